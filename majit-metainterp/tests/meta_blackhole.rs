//! The blackhole interpreter runs the test interpreter's jitcode on plain
//! values; every program must give the plain Rust interpreter's output
//! and result (this checks the jitcode and the blackhole together).

mod meta_support;

use majit_ir::Value;
use majit_metainterp::blackhole::{BhFrame, Blackhole, Outcome};
use majit_metainterp::jitcode::JitCodeSet;
use majit_metainterp::runtime::MallocAllocator;
use meta_support::*;

/// Runs the whole program in the blackhole, passing every merge point.
fn run_blackhole(
    set: &JitCodeSet,
    portal: majit_metainterp::jitcode::FuncId,
    prog: &Program,
    boxed: bool,
) -> (i64, usize) {
    let code = set.get(portal).unwrap().clone();
    let mp = code.merge_point_pc().unwrap();
    let mut alloc = MallocAllocator::default();
    let mut frame = BhFrame::new(code.clone(), mp);
    let mp_insn = code.decode(mp);
    let (g, r) = (mp_insn.list(0).to_vec(), mp_insn.list(1).to_vec());
    let mut keep = Boxes::default();
    let acc0 = if boxed {
        Value::Ref(keep.new_box(0))
    } else {
        Value::Int(0)
    };
    frame.set(g[0], Value::Int(0));
    frame.set(g[1], Value::Int(prog.addr()));
    frame.set(r[0], acc0);
    frame.set(r[1], Value::Int(0));
    let mut frames = vec![frame];
    let mut merges = 0;
    loop {
        frames[0].pc = mp_insn.next;
        let mut bh = Blackhole::new(set, &mut alloc, frames);
        match bh.run().unwrap() {
            Outcome::MergePoint { .. } => {
                merges += 1;
                frames = bh.frames;
            }
            Outcome::Returned(v) => return (v.unwrap().as_int().unwrap(), merges),
            Outcome::Raised(e) => panic!("the register machine raised {e:?}"),
        }
    }
}

#[test]
fn blackhole_matches_the_plain_interpreter_on_every_program() {
    for boxed in [false, true] {
        let (set, portal) = interp_jitcode(boxed);
        for (name, prog) in programs() {
            let expected = run_plain(&prog, boxed, &mut |_| false);
            let expected_out = take_output();
            let (got, merges) = run_blackhole(&set, portal, &prog, boxed);
            let got_out = take_output();
            assert_eq!(got, expected, "{name} boxed={boxed}");
            assert_eq!(got_out, expected_out, "{name} boxed={boxed}");
            assert!(merges > 10, "{name}: the dispatch loop ran {merges} times");
        }
    }
}

#[test]
fn inline_calls_return_into_the_caller_register() {
    let mut set = JitCodeSet::new();
    let mix_id = set.add(mix_jitcode());
    let mut b = majit_metainterp::jitcode::JitCodeBuilder::new("caller");
    let x = b.param(majit_ir::Kind::Int);
    let y = b.param(majit_ir::Kind::Int);
    let z = b.reg(majit_ir::Kind::Int);
    b.inline_call(mix_id, &[x.into(), y.into()], Some(z));
    b.op(majit_ir::OpCode::IntAdd, &[z.into(), x.into()], z);
    b.ret(Some(z.into()));
    let caller = set.add(b.finish().unwrap());
    let mut alloc = MallocAllocator::default();
    for (x, y) in [(10, 3), (3, 10), (-5, -5), (i64::MAX, -1)] {
        let code = set.get(caller).unwrap().clone();
        let mut f = BhFrame::new(code, 0);
        f.set(code_param(&f, 0), Value::Int(x));
        f.set(code_param(&f, 1), Value::Int(y));
        let mut bh = Blackhole::new(&set, &mut alloc, vec![f]);
        let out = bh.run().unwrap();
        assert_eq!(
            out,
            Outcome::Returned(Some(Value::Int(mix(x, y).wrapping_add(x))))
        );
    }
}

fn code_param(f: &BhFrame, i: usize) -> majit_metainterp::jitcode::RegOp {
    f.code.params[i]
}

#[test]
fn declared_functions_can_call_each_other() {
    use majit_ir::{Kind, OpCode};
    use majit_metainterp::jitcode::{Arg, JitCodeBuilder};
    // even(n) = n == 0 ? 1 : odd(n - 1); odd(n) = n == 0 ? 0 : even(n - 1)
    let mut set = JitCodeSet::new();
    let even = set.declare("even");
    let odd = set.declare("odd");
    assert_eq!(set.undefined(), vec!["even", "odd"]);
    for (id, other, base) in [(even, odd, 1), (odd, even, 0)] {
        let mut b = JitCodeBuilder::new(if id == even { "even" } else { "odd" });
        let n = b.param(Kind::Int);
        let t = b.reg(Kind::Int);
        let rec = b.label();
        b.goto_if_not(n.into(), rec);
        b.op(OpCode::IntSub, &[n.into(), Arg::Int(1)], t);
        b.inline_call(other, &[t.into()], Some(t));
        b.ret(Some(t.into()));
        b.bind(rec);
        b.ret(Some(Arg::Int(base)));
        set.define(id, b.finish().unwrap()).unwrap();
    }
    assert!(set.undefined().is_empty());
    assert!(set.define(even, mix_jitcode()).is_err());
    let mut alloc = MallocAllocator::default();
    for n in 0..12 {
        let code = set.get(even).unwrap().clone();
        let mut f = BhFrame::new(code, 0);
        f.set(code_param(&f, 0), Value::Int(n));
        let out = Blackhole::new(&set, &mut alloc, vec![f]).run().unwrap();
        assert_eq!(
            out,
            Outcome::Returned(Some(Value::Int((n % 2 == 0) as i64)))
        );
    }
}

/// Sets every register outside the frame's resume live set to garbage.
fn prune(frames: &mut [BhFrame]) {
    use majit_ir::Kind;
    use majit_metainterp::jitcode::RegOp;
    for k in 0..frames.len() {
        let callee_dst = frames.get(k + 1).and_then(|c| c.ret_dst);
        let f = &mut frames[k];
        let live: Vec<RegOp> =
            majit_metainterp::tracer::live_regs(&f.code, f.pc, callee_dst).collect();
        for kind in [Kind::Int, Kind::Ref, Kind::Float] {
            for i in 0..f.code.regs_of(kind) {
                if !live.contains(&RegOp {
                    kind,
                    index: i as u16,
                }) {
                    let garbage = match kind {
                        Kind::Int => Value::Int(0x5a5a_5a5a_5a5a),
                        Kind::Ref => Value::Ref(0x10),
                        Kind::Float => Value::Float(f64::NAN),
                    };
                    f.set(
                        RegOp {
                            kind,
                            index: i as u16,
                        },
                        garbage,
                    );
                }
            }
        }
    }
}

#[test]
fn live_registers_suffice_at_every_marker() {
    // At every `-live-` marker reached while running each program, a run
    // from only the live registers (the rest garbage) must reach the next
    // merge point with the same state and output as a run from all of them.
    use majit_metainterp::jitcode::JOp;
    let (set, portal) = interp_jitcode(false);
    let code = set.get(portal).unwrap().clone();
    let mp = code.merge_point_pc().unwrap();
    let mp_insn = code.decode(mp);
    let (g, r) = (mp_insn.list(0).to_vec(), mp_insn.list(1).to_vec());
    let mut probes = 0;
    for (name, prog) in programs() {
        let mut frame = BhFrame::new(code.clone(), mp_insn.next);
        frame.set(g[0], Value::Int(0));
        frame.set(g[1], Value::Int(prog.addr()));
        frame.set(r[0], Value::Int(0));
        frame.set(r[1], Value::Int(0));
        let (mut alloc, mut probe_alloc) = (MallocAllocator::default(), MallocAllocator::default());
        let mut bh = Blackhole::new(&set, &mut alloc, vec![frame]);
        for _ in 0..4000 {
            let top = bh.frames.last().unwrap();
            if top.code.decode(top.pc).op == JOp::Live {
                let full = bh.frames.clone();
                let mut pruned = full.clone();
                prune(&mut pruned);
                take_output();
                let a = Blackhole::new(&set, &mut probe_alloc, full).run().unwrap();
                let out_a = take_output();
                let b = Blackhole::new(&set, &mut probe_alloc, pruned)
                    .run()
                    .unwrap();
                assert_eq!((a, out_a), (b, take_output()), "{name} at {}", top.pc);
                probes += 1;
            }
            match bh.step().unwrap() {
                None => {}
                Some(Outcome::MergePoint { .. }) => bh.frames[0].pc = mp_insn.next,
                Some(Outcome::Returned(_) | Outcome::Raised(_)) => break,
            }
        }
    }
    assert!(probes > 500, "{probes} markers probed");
}

#[test]
fn invalid_jitcode_runs_are_errors_not_panics() {
    use majit_ir::Kind;
    use majit_metainterp::jitcode::eval::ConcreteError;
    use majit_metainterp::jitcode::{Arg, JitCodeBuilder};
    let mut b = JitCodeBuilder::new("null_load");
    let v = b.reg(Kind::Int);
    b.getfield(Arg::Ref(0), int_box_value().into(), v);
    b.ret(Some(v.into()));
    let mut set = JitCodeSet::new();
    let id = set.add(b.finish().unwrap());
    let mut alloc = MallocAllocator::default();
    let f = BhFrame::new(set.get(id).unwrap().clone(), 0);
    let err = Blackhole::new(&set, &mut alloc, vec![f]).run().unwrap_err();
    assert!(
        matches!(err, ConcreteError::NullPointer(ref d) if d == "IntBox.value"),
        "{err}"
    );
    let err = Blackhole::new(&set, &mut alloc, vec![]).run().unwrap_err();
    assert!(matches!(err, ConcreteError::BadJitCode(_)), "{err}");
}
