//! What the tracer folds at trace time (see `tracer/facts.rs` and
//! `tracer/heap_cache.rs`): each test traces a small loop with the
//! optimizer off, so the loop's trace is exactly what the tracer recorded,
//! and checks both the recorded ops and the result (the loop ran compiled,
//! so a wrong fold would give a wrong result).
//!
//! The loop: `while n != 0 { BODY; n -= 1 }; return acc` with greens `[g]`
//! and reds `[n, acc, p]` (`p` a node `{value: int, next: ref}`).

mod meta_support;

use majit_ir::{Descr, FieldDescr, Kind, OpCode, SizeDescr, Trace, Value};
use majit_metainterp::driver::{JitAction, JitDriver};
use majit_metainterp::jitcode::builder::{Arg, JitCodeBuilder, Reg};
use majit_metainterp::jitcode::JitCodeSet;
use majit_metainterp::majit_gc::testing::{stress_config, test_heap};
use majit_metainterp::majit_gc::Gc;
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use std::cell::RefCell;
use std::rc::Rc;

fn node() -> Descr {
    SizeDescr {
        name: "Node".into(),
        size: 16,
        type_id: 1,
        headerless: true,
        vtable: None,
        fields: vec!["Node.value".into(), "Node.next".into()],
    }
    .into()
}

fn field(name: &str, offset: u32, kind: Kind) -> Descr {
    FieldDescr {
        name: format!("Node.{name}"),
        owner: "Node".into(),
        offset,
        size: 8,
        signed: true,
        kind,
        immutable: false,
        quasi_immutable: false,
    }
    .into()
}

fn value() -> Descr {
    field("value", 0, Kind::Int)
}

fn next() -> Descr {
    field("next", 8, Kind::Ref)
}

/// The loop's registers, for a body to use.
struct Regs {
    n: Reg,
    acc: Reg,
    p: Reg,
}

/// Builds the loop around `body`, runs it from `n`, `acc`, `p` with the
/// JIT (threshold 1, no optimizer) and returns the result and the
/// recorded loop trace.
fn run(body: impl FnOnce(&mut JitCodeBuilder, &Regs), n: i64, p: usize) -> (i64, Trace) {
    run_on(None, body, n, p)
}

/// As [`run`], allocating on `gc` when given.
fn run_on(
    gc: Option<Rc<RefCell<Gc>>>,
    body: impl FnOnce(&mut JitCodeBuilder, &Regs),
    n: i64,
    p: usize,
) -> (i64, Trace) {
    let mut b = JitCodeBuilder::new("fold");
    let g = b.param(Kind::Int);
    let r = Regs {
        n: b.param(Kind::Int),
        acc: b.param(Kind::Int),
        p: b.param(Kind::Ref),
    };
    let (top, exit) = (b.label(), b.label());
    b.bind(top);
    b.jit_merge_point(&[g], &[r.n, r.acc, r.p]);
    body(&mut b, &r);
    b.op(OpCode::IntSub, &[r.n.into(), Arg::Int(1)], r.n);
    b.goto_if_not(r.n.into(), exit);
    b.can_enter_jit(&[g], &[r.n, r.acc, r.p]);
    b.goto(top);
    b.bind(exit);
    b.ret(Some(r.acc.into()));
    let mut set = JitCodeSet::default();
    let portal = set.add(b.finish().unwrap());
    let params = JitParams::default()
        .with_threshold(1)
        .with_opts("")
        .unwrap();
    let jit = match gc {
        Some(gc) => JitDriver::<RefExec>::new_gc(set, portal, gc, params),
        None => JitDriver::new(set, portal, RefExec::new(), params),
    }
    .unwrap();
    let (mut greens, mut reds) = (
        [Value::Int(0)],
        [Value::Int(n), Value::Int(0), Value::Ref(p)],
    );
    let result = loop {
        match jit.can_enter_jit(&mut greens, &mut reds).unwrap() {
            JitAction::Raised(e) => panic!("raised {e:?}"),
            JitAction::Finished(v) => break v.unwrap().as_int().unwrap(),
            JitAction::Continue => {}
            JitAction::Interpret => panic!("threshold 1 traces at the first back edge"),
        }
    };
    let stats = jit.stats();
    assert_eq!(stats.loops_compiled, 1, "{stats}");
    assert!(stats.loop_entries >= 1, "{stats}");
    (result, jit.loops()[0].recorded.clone())
}

/// How many ops named `name` the trace has.
fn count(t: &Trace, name: &str) -> usize {
    t.ops.iter().filter(|op| op.opcode.name() == name).count()
}

#[test]
fn a_fresh_node_is_non_null_its_fields_are_known_and_overwritten_stores_vanish() {
    let (result, t) = run(
        |b, r| {
            let (m, x, c) = (b.reg(Kind::Ref), b.reg(Kind::Int), b.reg(Kind::Int));
            b.new_object(node(), m);
            b.setfield(m.into(), Arg::Int(0), value());
            b.setfield(m.into(), r.p.into(), next());
            b.setfield(m.into(), r.n.into(), value()); // overwrites the 0 before any guard
            b.getfield(m.into(), value(), x); // the box just stored
            let skip = b.label();
            b.goto_if_null(m.into(), skip); // fresh: never null
            b.op(OpCode::PtrEq, &[m.into(), Arg::Ref(0)], c);
            b.goto_if_not(c.into(), skip); // ptr_eq(fresh, null) is 0
            b.copy(Arg::Int(-1), r.acc);
            b.bind(skip);
            b.op(OpCode::IntAdd, &[r.acc.into(), x.into()], r.acc);
            b.copy(m.into(), r.p);
        },
        10,
        0,
    );
    assert_eq!(result, 55);
    let text = majit_ir::text::print(&t);
    // Without folding: 3 setfields, a getfield, guard_nonnull, ptr_eq and
    // its guard_false.
    assert_eq!(count(&t, "setfield_gc"), 2, "{text}");
    for gone in ["getfield_gc_i", "guard_nonnull", "ptr_eq", "guard_false"] {
        assert_eq!(count(&t, gone), 0, "{gone}:\n{text}");
    }
}

#[test]
fn a_guarded_comparison_is_known_with_its_negation_and_swapped_forms() {
    let (result, t) = run(
        |b, r| {
            let (c, d, e, k, y) = (
                b.reg(Kind::Int),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
            );
            let (l1, l2, l3, done) = (b.label(), b.label(), b.label(), b.label());
            b.op(OpCode::IntLt, &[r.n.into(), Arg::Int(100)], c);
            b.goto_if_not(c.into(), done); // guard_true(n < 100)
            b.op(OpCode::IntGe, &[r.n.into(), Arg::Int(100)], d);
            b.goto_if_not(d.into(), l1); // known false: no guard
            b.copy(Arg::Int(-1000), r.acc);
            b.bind(l1);
            b.op(OpCode::IntGt, &[Arg::Int(100), r.n.into()], e);
            b.goto_if_not(e.into(), done); // swapped form: known true
            b.op(OpCode::IntLt, &[r.n.into(), Arg::Int(100)], e);
            b.goto_if_not(e.into(), done); // the same op again
                                           // acc == 0 on the first iteration only: when traced, `acc` is
                                           // guarded equal to 0, so it is the constant 0 afterwards.
            b.op(OpCode::IntEq, &[r.acc.into(), Arg::Int(0)], k);
            b.goto_if_not(k.into(), l2);
            b.op(OpCode::IntMul, &[r.acc.into(), Arg::Int(7)], y); // 0 * 7 folds
            b.op(OpCode::IntAdd, &[y.into(), Arg::Int(1)], r.acc);
            b.goto(l3);
            b.bind(l2);
            b.op(OpCode::IntAdd, &[r.acc.into(), r.n.into()], r.acc);
            b.bind(l3);
            b.bind(done);
        },
        5,
        0,
    );
    // Traced with acc == 0: acc = 1, then the compiled loop fails the
    // acc == 0 guard and the rest runs acc += n for n = 4, 3, 2, 1.
    assert_eq!(result, 11);
    let text = majit_ir::text::print(&t);
    // Without folding: int_lt twice, int_ge, int_gt and int_mul recorded,
    // five boolean guards on them.
    assert_eq!(count(&t, "int_lt"), 1, "{text}");
    assert_eq!(count(&t, "int_eq"), 1, "{text}");
    for gone in ["int_ge", "int_gt", "int_mul", "int_add"] {
        assert_eq!(count(&t, gone), 0, "{gone}:\n{text}");
    }
    // n < 100, acc == 0, and the loop's n != 0.
    assert_eq!(count(&t, "guard_true"), 3, "{text}");
}

#[test]
fn a_repeated_pure_or_overflow_checked_op_records_once() {
    let (result, t) = run(
        |b, r| {
            let (s1, s2, a1, a2, ovf) = (
                b.reg(Kind::Int),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
                b.label(),
            );
            b.op(OpCode::IntMul, &[r.n.into(), r.n.into()], s1);
            b.op(OpCode::IntMul, &[r.n.into(), r.n.into()], s2);
            b.ovf(OpCode::IntAddOvf, s1.into(), r.acc.into(), a1, ovf);
            b.ovf(OpCode::IntAddOvf, r.acc.into(), s2.into(), a2, ovf); // commuted
            b.op(OpCode::IntAdd, &[a1.into(), a2.into()], r.acc);
            b.bind(ovf);
        },
        4,
        0,
    );
    // acc' = 2 * (n * n + acc) for n = 4, 3, 2, 1.
    let expected = [4i64, 3, 2, 1].iter().fold(0, |acc, n| 2 * (n * n + acc));
    assert_eq!(result, expected);
    let text = majit_ir::text::print(&t);
    assert_eq!(count(&t, "int_mul"), 1, "{text}");
    assert_eq!(count(&t, "int_add_ovf"), 1, "{text}");
    assert_eq!(count(&t, "guard_no_overflow"), 1, "{text}");
}

/// The support module's GC array of ints, as a descr.
fn int_array() -> Descr {
    meta_support::int_array().into()
}

#[test]
fn an_array_length_loads_once_and_smaller_constant_indexes_stay_in_bounds() {
    let (result, t) = run(
        |b, r| {
            let (m, len, c, x) = (
                b.reg(Kind::Ref),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
            );
            let out = b.label();
            b.op(OpCode::IntAdd, &[r.n.into(), Arg::Int(2)], len);
            b.new_array(len.into(), int_array(), m);
            b.setarrayitem(m.into(), Arg::Int(1), r.n.into(), int_array());
            // `index < len(m)` for index 1, then 0 and 1 again: one length
            // (the allocation's own), one check.
            for k in [1, 0, 1] {
                b.arraylen(m.into(), int_array(), x);
                b.op(OpCode::UintLt, &[Arg::Int(k), x.into()], c);
                b.goto_if_not(c.into(), out);
            }
            b.getarrayitem(m.into(), Arg::Int(1), int_array(), x);
            b.op(OpCode::IntAdd, &[r.acc.into(), x.into()], r.acc);
            b.bind(out);
        },
        10,
        0,
    );
    assert_eq!(result, 55);
    let text = majit_ir::text::print(&t);
    assert_eq!(count(&t, "arraylen_gc"), 0, "{text}");
    assert_eq!(count(&t, "uint_lt"), 1, "{text}");
}

#[test]
fn a_negated_comparison_teaches_the_comparison() {
    let (result, t) = run(
        |b, r| {
            let (c, z, d) = (b.reg(Kind::Int), b.reg(Kind::Int), b.reg(Kind::Int));
            let (l1, l2) = (b.label(), b.label());
            b.op(OpCode::IntLt, &[r.n.into(), Arg::Int(100)], c);
            b.op(OpCode::IntIsZero, &[c.into()], z);
            b.goto_if_not(z.into(), l1); // guard_false(int_is_zero(n < 100))
            b.copy(Arg::Int(-1000), r.acc);
            b.bind(l1);
            b.op(OpCode::IntGe, &[r.n.into(), Arg::Int(100)], d);
            b.goto_if_not(d.into(), l2); // known false: no guard
            b.copy(Arg::Int(-1000), r.acc);
            b.bind(l2);
            b.op(OpCode::IntAdd, &[r.acc.into(), r.n.into()], r.acc);
        },
        10,
        0,
    );
    assert_eq!(result, 55);
    let text = majit_ir::text::print(&t);
    assert_eq!(count(&t, "int_ge"), 0, "{text}");
    assert_eq!(count(&t, "guard_false"), 1, "{text}");
}

#[test]
fn a_class_is_guarded_once_per_object_and_known_for_an_allocation() {
    // A headered object of type 7 (no vtable: its class word is 7), the
    // loop's `p`; the header is the type id's word.
    let obj: Box<[u64; 2]> = Box::new([7, 0]);
    let headered = SizeDescr {
        name: "Boxed".into(),
        size: 16,
        type_id: 9,
        headerless: false,
        vtable: None,
        fields: vec![],
    };
    let (result, t) = run(
        |b, r| {
            let (m, k) = (b.reg(Kind::Ref), b.reg(Kind::Int));
            b.guard_class(r.p.into(), k);
            b.guard_class(r.p.into(), k); // known: no guard
            b.op(OpCode::IntAdd, &[r.acc.into(), k.into()], r.acc);
            b.new_object(headered.into(), m);
            b.guard_class(m.into(), k); // a fresh object's class: no guard
            b.op(OpCode::IntAdd, &[r.acc.into(), k.into()], r.acc);
        },
        10,
        obj.as_ptr() as usize,
    );
    assert_eq!(result, 10 * (7 + 9));
    let text = majit_ir::text::print(&t);
    assert_eq!(count(&t, "guard_class"), 1, "{text}");
}

#[test]
fn a_store_to_an_object_that_may_alias_drops_cached_fields() {
    // p.next is p itself: the store through `q = p.next` changes p.value,
    // which must be loaded again; the fresh node's field and p.value after
    // a store to the fresh node stay known.
    let mut p = Box::new([0u64; 2]);
    p[1] = &*p as *const [u64; 2] as u64;
    let addr = &*p as *const [u64; 2] as usize;
    let (result, t) = run(
        |b, r| {
            let (a, q, a1, bv, m, c, d) = (
                b.reg(Kind::Int),
                b.reg(Kind::Ref),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
                b.reg(Kind::Ref),
                b.reg(Kind::Int),
                b.reg(Kind::Int),
            );
            b.getfield(r.p.into(), value(), a);
            b.getfield(r.p.into(), next(), q);
            b.op(OpCode::IntAdd, &[a.into(), Arg::Int(1)], a1);
            b.setfield(q.into(), a1.into(), value()); // q may be p
            b.getfield(r.p.into(), value(), bv); // loaded again
            b.new_object(node(), m);
            b.setfield(m.into(), Arg::Int(7), value()); // m is not p
            b.getfield(m.into(), value(), c); // the 7
            b.getfield(r.p.into(), value(), d); // still bv
            b.op(OpCode::IntAdd, &[r.acc.into(), bv.into()], r.acc);
            b.op(OpCode::IntAdd, &[r.acc.into(), c.into()], r.acc);
            b.op(OpCode::IntSub, &[r.acc.into(), d.into()], r.acc);
            b.op(OpCode::IntAdd, &[r.acc.into(), bv.into()], r.acc);
        },
        10,
        addr,
    );
    // Iteration i = 1..=10 sets p.value = i and adds i + 7.
    assert_eq!(result, 55 + 70);
    assert_eq!(p[0], 10);
    let text = majit_ir::text::print(&t);
    // Without the cache: five loads.
    assert_eq!(count(&t, "getfield_gc_i"), 2, "{text}");
    assert_eq!(count(&t, "getfield_gc_r"), 1, "{text}");
    drop(p);
}

#[test]
fn a_cached_ref_field_folds_after_a_collection_moved_it() {
    // The heap cache is no GC root: its boxes' concrete refs go stale when
    // a collection (here at every allocation) moves the nodes, and a hit
    // must still fold and take the moved value from the load.
    let gc = Rc::new(RefCell::new(test_heap(stress_config())));
    let (result, t) = run_on(
        Some(gc.clone()),
        |b, r| {
            let (m, q, k) = (b.reg(Kind::Ref), b.reg(Kind::Ref), b.reg(Kind::Ref));
            let (x, c) = (b.reg(Kind::Ref), b.reg(Kind::Int));
            b.new_object(node(), m);
            b.new_object(node(), q); // collects: m moves
            b.setfield(m.into(), q.into(), next());
            b.new_object(node(), k); // collects: q moves
            b.setfield(k.into(), m.into(), next());
            b.getfield(m.into(), next(), x); // the box stored: q
            b.op(OpCode::PtrEq, &[x.into(), q.into()], c);
            b.op(OpCode::IntAdd, &[r.acc.into(), c.into()], r.acc);
            b.copy(k.into(), r.p);
        },
        20,
        0,
    );
    assert_eq!(result, 20, "every reload is the node stored");
    assert!(gc.borrow().stats().minor_collections >= 20);
    let text = majit_ir::text::print(&t);
    assert_eq!(count(&t, "getfield_gc_r"), 0, "{text}");
}
