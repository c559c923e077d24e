//! Observability with the host's native backend: the `MAJIT_LOG` report
//! (sections, disassembly, pool), the `MAJIT_STATS` summary against
//! `JitDriver::stats`, perf map lines against the backend's code ranges,
//! and determinism of compiled code within one process.

#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use majit_backend_dynasm::HostBackend;
use majit_ir::{Const, Kind, Op, OpCode, Trace, Value};
use majit_metainterp::driver::{JitAction, JitDriver};
use majit_metainterp::jitcode::{Arg, JitCodeBuilder, JitCodeSet};
use majit_metainterp::params::JitParams;
use majit_metainterp::perfmap::PerfMap;
use majit_metainterp::Backend;

/// `loop { merge(pc; acc, n); if n & 1 { acc += n } else { acc -= 1 };
/// n -= 1; if n == 0 { return acc } }`: the branch fails its guard every
/// other iteration, so the loop gets a bridge.
fn portal() -> (JitCodeSet, majit_metainterp::jitcode::FuncId) {
    let mut b = JitCodeBuilder::new("portal");
    let (pc, acc, n) = (b.param(Kind::Int), b.param(Kind::Int), b.param(Kind::Int));
    let odd = b.reg(Kind::Int);
    let (top, even, next, done) = (b.label(), b.label(), b.label(), b.label());
    b.bind(top);
    b.jit_merge_point(&[pc], &[acc, n]);
    b.op(OpCode::IntAnd, &[n.into(), Arg::Int(1)], odd);
    b.goto_if_not(odd.into(), even);
    b.op(OpCode::IntAdd, &[acc.into(), n.into()], acc);
    b.goto(next);
    b.bind(even);
    b.op(OpCode::IntSub, &[acc.into(), Arg::Int(1)], acc);
    b.bind(next);
    b.op(OpCode::IntSub, &[n.into(), Arg::Int(1)], n);
    b.goto_if_not(n.into(), done);
    b.can_enter_jit(&[pc], &[acc, n]);
    b.goto(top);
    b.bind(done);
    b.ret(Some(acc.into()));
    let mut codes = JitCodeSet::new();
    let id = codes.add(b.finish().unwrap());
    (codes, id)
}

/// One iteration of the plain interpreter of [`portal`]: the new `acc`
/// and `n` (the program ends when `n` reaches 0).
fn step(acc: i64, n: i64) -> (i64, i64) {
    let acc = if n & 1 != 0 {
        acc.wrapping_add(n)
    } else {
        acc - 1
    };
    (acc, n - 1)
}

/// The plain interpreter of [`portal`].
fn oracle(mut n: i64) -> i64 {
    let mut acc = 0i64;
    loop {
        (acc, n) = step(acc, n);
        if n == 0 {
            return acc;
        }
    }
}

/// Runs [`portal`] from `n` with the JIT; returns the result and the driver.
fn run(n: i64, perf: Option<PerfMap>) -> (i64, JitDriver<HostBackend>) {
    let (codes, id) = portal();
    let params = JitParams::default()
        .with_threshold(3)
        .with_bridge_threshold(5);
    let mut jit = JitDriver::new(codes, id, HostBackend::new().unwrap(), params).unwrap();
    if let Some(p) = perf {
        jit = jit.with_perf_map(p);
    }
    let (mut acc, mut n) = (0i64, n);
    let result = loop {
        (acc, n) = step(acc, n);
        if n == 0 {
            break acc;
        }
        let (mut g, mut r) = ([Value::Int(0)], [Value::Int(acc), Value::Int(n)]);
        match jit.can_enter_jit(&mut g, &mut r).unwrap() {
            JitAction::Interpret => {}
            JitAction::Continue => {
                acc = r[0].as_int().unwrap();
                n = r[1].as_int().unwrap();
            }
            JitAction::Raised(e) => panic!("raised {e:?}"),
            JitAction::Finished(v) => break v.unwrap().as_int().unwrap(),
        }
    };
    (result, jit)
}

/// The text between the line starting with `head` and the next `## ` or
/// `# ` header.
fn section<'a>(text: &'a str, head: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with(head));
    lines.next();
    lines.take_while(|l| !l.starts_with('#')).collect()
}

#[test]
fn the_log_has_every_section_with_a_disassembly() {
    let (result, mut jit) = run(1000, None);
    assert_eq!(result, oracle(1000));
    assert!(jit.stats().bridges_compiled >= 1, "{}", jit.report());
    let text = jit.log();
    let arch = jit_arch();
    assert_eq!(
        text.matches("## machine code: ").count(),
        jit.loops().len() + jit.bridges().len(),
        "{text}"
    );
    for head in ["## recorded trace", "## optimized trace", "## resume data"] {
        assert_eq!(
            text.matches(head).count(),
            jit.loops().len() + jit.bridges().len()
        );
    }
    let listing = section(&text, &format!("## machine code: {arch}"));
    assert!(listing.len() > 5, "{text}");
    // The loop adds `n` to `acc`: the listing has an add instruction.
    assert!(listing.iter().any(|l| l.contains("  add ")), "{text}");
    let pool = section(&text, "## pool");
    assert!(pool.iter().any(|l| l.ends_with("<exit_routine>")), "{text}");
    // The guard that got the bridge: its patched pool word names the bridge.
    let bridge = jit.bridges()[0].code.0;
    assert!(
        text.contains(&format!("patched to <code{bridge}>")),
        "{text}"
    );
    assert!(text.contains(", bridged\n"), "{text}");
    // No raw address of this process reaches the log.
    let base = jit_base(&mut jit);
    assert!(!text.contains(&format!("{base:x}")), "{text}");
}

fn jit_arch() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "x86_64"
    } else {
        "aarch64"
    }
}

/// The start address of the first loop's code.
fn jit_base(jit: &mut JitDriver<HostBackend>) -> usize {
    let code = jit.loops()[0].code;
    jit.backend().code_range(code).unwrap().start
}

#[test]
fn the_summary_counts_what_the_stats_count() {
    let (_, jit) = run(600, None);
    let s = jit.stats();
    let text = jit.summary();
    let expect = [
        format!(
            "loops: {} compiled, {} entries",
            s.loops_compiled, s.loop_entries
        ),
        format!(
            "bridges: {} compiled, {} into a loop body, {} retraced, {} to a loop start",
            s.bridges_compiled, s.bridges_into_body, s.bridges_retraced, s.bridges_to_loop_start
        ),
        format!(
            "traces: {} started, {} aborted",
            s.traces_started,
            s.total_aborts()
        ),
        format!(
            "guard failures: {}, blackhole runs: {}",
            s.guard_failures, s.blackhole_runs
        ),
        format!(
            "ops: {} recorded, {} after optimization",
            s.ops_recorded, s.ops_optimized
        ),
        format!(
            "allocations: {} removed, {} kept",
            s.allocations_removed, s.allocations_kept
        ),
    ];
    for line in &expect {
        assert!(text.lines().any(|l| l == line), "{line:?} not in\n{text}");
    }
    assert!(s.loops_compiled >= 1 && s.guard_failures > 5, "{text}");
    // The hottest guard is listed with the failures its bridge saw first.
    let hottest: Vec<&str> = text.lines().filter(|l| l.starts_with("  guard ")).collect();
    assert!(!hottest.is_empty(), "{text}");
    assert!(hottest[0].contains("bridged"), "{text}");
    assert!(text.contains("running compiled code"), "{text}");
}

#[test]
fn perf_map_lines_cover_the_compiled_code() {
    let path = std::env::temp_dir().join(format!("majit-perf-test-{}.map", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let (_, mut jit) = run(1000, Some(PerfMap { path: path.clone() }));
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let lines: Vec<&str> = text.lines().collect();
    let codes: Vec<_> = jit
        .loops()
        .iter()
        .map(|l| l.code)
        .chain(jit.bridges().iter().map(|b| b.code))
        .collect();
    assert_eq!(lines.len(), codes.len(), "{text}");
    for (line, code) in lines.iter().zip(&codes) {
        let mut parts = line.splitn(3, ' ');
        let start = usize::from_str_radix(parts.next().unwrap(), 16).unwrap();
        let size = usize::from_str_radix(parts.next().unwrap(), 16).unwrap();
        let name = parts.next().unwrap();
        let range = jit.backend().code_range(*code).unwrap();
        assert_eq!((start, size), (range.start, range.len()), "{line}");
        assert!(name.starts_with("majit "), "{line}");
    }
    assert!(lines[0].contains("majit loop 0 [Int(0)]"), "{text}");
    assert!(
        lines.iter().any(|l| l.contains("majit bridge 0 from code")),
        "{text}"
    );
}

/// A small loop with a call, a guard and a constant: compiled twice on
/// two backends it gives the same bytes and the same listing.
#[test]
fn the_same_trace_compiles_to_the_same_bytes_on_two_backends() {
    let mut t = Trace::new(&[Kind::Int, Kind::Int]);
    let target = majit_ir::TargetDescr { name: "L".into() }.into();
    t.push(Op::new(OpCode::Label, &[t.input(0), t.input(1)]).with_descr(target));
    let one = t.add_const(Const::Int(1));
    let big = t.add_const(Const::Int(0x1234_5678_9abc));
    let sum = t.push(Op::new(OpCode::IntAdd, &[t.input(0), big]));
    let n = t.push(Op::new(OpCode::IntSub, &[t.input(1), one]));
    let fail = majit_ir::FailDescr {
        name: "g0".into(),
        id: 0,
        returns: false,
    };
    let mut g = Op::new(OpCode::GuardTrue, &[n]).with_descr(fail.into());
    g.fail_args = Some(vec![sum, n]);
    t.push(g);
    let target = majit_ir::TargetDescr { name: "L".into() }.into();
    t.push(Op::new(OpCode::Jump, &[sum, n]).with_descr(target));
    let compile = || {
        let mut b = HostBackend::new().unwrap();
        let code = b.compile_loop(&t).unwrap();
        let out = b.execute(code, &[Value::Int(0), Value::Int(3)]).unwrap();
        assert_eq!(
            out.values,
            vec![Value::Int(3 * 0x1234_5678_9abc), Value::Int(0)]
        );
        let mc = b.machine_code(code, &|_| None).unwrap();
        (b.code_bytes(code).unwrap().to_vec(), mc, b)
    };
    // Both backends stay alive, so their code lives at different addresses.
    let (bytes1, mc1, _b1) = compile();
    let (bytes2, mc2, _b2) = compile();
    assert_eq!(bytes1, bytes2);
    assert_eq!(mc1.listing, mc2.listing);
    assert_eq!(mc1.pool, mc2.pool);
    assert_ne!(mc1.base, mc2.base, "two backends map their code apart");
    assert!(mc1.listing.iter().any(|i| i.text.starts_with("add ")));
}
