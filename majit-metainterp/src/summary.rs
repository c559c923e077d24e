//! The `MAJIT_STATS` summary printed when a driver is dropped: what was
//! compiled, why tracing gave up, which guards fail most, what the
//! optimizer did, and where the time went.

use crate::backend::Backend;
use crate::driver::{Exit, JitDriver};
use std::fmt::Write;

/// How many of the most-failing guards the summary lists.
pub const HOTTEST_GUARDS: usize = 10;

/// The summary of `jit` as text, one fact a line.
///
/// ```
/// use majit_metainterp::{driver::JitDriver, jitcode::JitCodeSet, summary};
/// # use majit_metainterp::jitcode::JitCodeBuilder;
/// # use majit_ir::Kind;
/// # let mut b = JitCodeBuilder::new("portal");
/// # let pc = b.param(Kind::Int);
/// # b.jit_merge_point(&[pc], &[]);
/// # b.ret(None);
/// # let mut codes = JitCodeSet::new();
/// # let portal = codes.add(b.finish().unwrap());
/// let jit = JitDriver::new(codes, portal, majit_metainterp::refexec::RefExec::new(),
///     Default::default()).unwrap();
/// assert!(summary::render(&jit).contains("loops: 0 compiled, 0 entries"));
/// ```
pub fn render<B: Backend>(jit: &JitDriver<B>) -> String {
    let s = &jit.stats;
    let mut out = format!("# majit stats (backend {})\n", jit.backend.name());
    let _ = writeln!(
        out,
        "loops: {} compiled, {} entries",
        s.loops_compiled, s.loop_entries
    );
    let _ = writeln!(out, "bridges: {} compiled", s.bridges_compiled);
    let _ = writeln!(
        out,
        "traces: {} started, {} aborted",
        s.traces_started,
        s.total_aborts()
    );
    for (reason, n) in &s.aborts {
        let _ = writeln!(out, "  abort ({}): {n}", reason.message());
        for m in s.abort_messages_for(*reason) {
            let _ = writeln!(out, "    {m}");
        }
    }
    let _ = writeln!(
        out,
        "guard failures: {}, blackhole runs: {}",
        s.guard_failures, s.blackhole_runs
    );
    out += &hottest_guards(jit);
    let _ = writeln!(
        out,
        "ops: {} recorded, {} after optimization",
        s.ops_recorded, s.ops_optimized
    );
    let _ = writeln!(
        out,
        "allocations: {} removed, {} kept",
        s.allocations_removed, s.allocations_kept
    );
    let ledgers = jit
        .loops
        .iter()
        .map(|l| (format!("loop {}", l.code.0), &l.ledger));
    let ledgers = ledgers.chain(
        jit.bridges
            .iter()
            .map(|b| (format!("bridge {}", b.code.0), &b.ledger)),
    );
    for (what, ledger) in ledgers {
        for e in ledger.allocations() {
            let _ = writeln!(out, "  kept in {what}: {e}");
        }
    }
    if s.diff_checks > 0 {
        let _ = writeln!(
            out,
            "diff: {} loop entries checked against the reference executor, {} inconclusive",
            s.diff_checks, s.diff_inconclusive
        );
    }
    let _ = writeln!(
        out,
        "time: tracing {:?}, optimizing {:?}, backend {:?}, running compiled code {:?}",
        s.time_tracing, s.time_optimizing, s.time_backend, s.time_running
    );
    out
}

/// The guards that failed most (ties by fail id), at most
/// [`HOTTEST_GUARDS`], each with where it is.
fn hottest_guards<B: Backend>(jit: &JitDriver<B>) -> String {
    let mut guards: Vec<(u32, u32, bool)> = jit
        .exits
        .iter()
        .filter_map(|(&id, e)| match e {
            Exit::Guard(g) if g.failures > 0 => Some((id, g.failures, g.bridged)),
            _ => None,
        })
        .collect();
    guards.sort_by_key(|&(id, n, _)| (std::cmp::Reverse(n), id));
    let mut out = String::new();
    for (id, n, bridged) in guards.into_iter().take(HOTTEST_GUARDS) {
        let bridge = if bridged { ", bridged" } else { "" };
        let _ = writeln!(
            out,
            "  guard {} ({}): {n} failures{bridge}",
            id,
            guard_place(jit, id)
        );
    }
    out
}

/// `loop 0 op 12 guard_true`: where the guard with fail id `id` is.
fn guard_place<B: Backend>(jit: &JitDriver<B>, id: u32) -> String {
    let loops = jit
        .loops
        .iter()
        .enumerate()
        .map(|(i, l)| (format!("loop {i}"), &l.trace));
    let bridges = jit
        .bridges
        .iter()
        .enumerate()
        .map(|(i, b)| (format!("bridge {i}"), &b.trace));
    for (what, t) in loops.chain(bridges) {
        for (k, op) in t.ops.iter().enumerate() {
            let fid = op.descr.as_ref().and_then(|d| d.as_fail()).map(|f| f.id);
            if fid == Some(id) {
                return format!("{what} op {k} {}", op.opcode);
            }
        }
    }
    "unknown trace".into()
}
