//! Exceptions at the jitcode level: a loop whose helpers raise ints and
//! GC refs on some iterations only, caught in the same frame, after
//! unwinding two inline frames, raised by jitcode (`ref_raise`) and caught
//! by the caller, and finally raised out of the portal (`int_raise`). It
//! runs plain and with the JIT on RefExec and the native backend, with a
//! normal and a stress-mode heap (every allocation of the tracer, the
//! blackhole and compiled code collects and moves the objects a handler
//! holds), with bridges (the guards after the raising calls fail often and
//! get bridges that start by taking the exception) and with every failure
//! in the blackhole. Results equal the plain run's.

use majit::gc::testing::stress_config;
use majit::gc::{Gc, GcConfig, GcRef, Layout, TypeId};
use majit::ir::{
    CallDescr, CallEffect, Descr, EffectInfo, FieldDescr, Kind, OpCode, ResultKind, SizeDescr,
    Value,
};
use majit::metainterp::driver::{JitAction, JitDriver};
use majit::metainterp::jitcode::{Arg, FuncId, JitCodeBuilder, JitCodeSet};
use majit::metainterp::runtime;
use majit::metainterp::tracer::ResumeAt;
use majit::{GcBackend, HostBackend, JitParams, RefExec};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// `Node { value: i64, next: Node }`, headered: `value` at 8, `next` at 16.
const VALUE: usize = 8;
const NEXT: usize = 16;

/// A heap with `Node` registered.
struct Heap {
    gc: Rc<RefCell<Gc>>,
    node: Arc<SizeDescr>,
}

impl Heap {
    fn new(stress: bool) -> Heap {
        let config = if stress {
            stress_config()
        } else {
            GcConfig::default()
        };
        let mut gc = Gc::new(config).unwrap();
        let ty = gc
            .register_layout(Layout::headered("Node", 24, &[NEXT as u32]))
            .unwrap();
        let node = Arc::new(SizeDescr {
            name: "Node".into(),
            size: 24,
            type_id: ty.0,
            headerless: false,
            vtable: None,
            fields: vec!["Node.value".into(), "Node.next".into()],
        });
        Heap {
            gc: Rc::new(RefCell::new(gc)),
            node,
        }
    }

    /// A new node (the plain interpreter's `new`).
    fn node(&self, value: i64, next: usize) -> usize {
        let mut gc = self.gc.borrow_mut();
        let n = gc.alloc_uncollected(TypeId(self.node.type_id)).unwrap();
        gc.write_ref(n, NEXT as u32, GcRef(next));
        set_value(n.addr(), value);
        n.addr()
    }
}

fn value_of(node: usize) -> i64 {
    // SAFETY: callers pass a live node (between collections).
    unsafe { *((node + VALUE) as *const i64) }
}

fn set_value(node: usize, v: i64) {
    // SAFETY: as in `value_of`; an int store needs no barrier.
    unsafe { *((node + VALUE) as *mut i64) = v }
}

fn next_of(node: usize) -> usize {
    // SAFETY: as in `value_of`.
    unsafe { *((node + NEXT) as *const usize) }
}

fn field(name: &str, offset: usize, kind: Kind) -> Descr {
    Descr::Field(Arc::new(FieldDescr {
        name: format!("Node.{name}"),
        owner: "Node".into(),
        offset: offset as u32,
        size: 8,
        signed: true,
        kind,
        immutable: false,
        quasi_immutable: false,
    }))
}

/// Fails with `3 i` when `i % 5 == 2`, else `i + 1`.
fn check(i: i64) -> Result<i64, i64> {
    if i % 5 == 2 {
        Err(3 * i)
    } else {
        Ok(i + 1)
    }
}

/// Fails with `i + 100` when `i % 4 == 1`, else `i ^ 5`.
fn check2(i: i64) -> Result<i64, i64> {
    if i % 4 == 1 {
        Err(i + 100)
    } else {
        Ok(i ^ 5)
    }
}

/// Fails with the node `obj` when `i % 6 == 5`, else `i`.
fn check_ref(obj: usize, i: i64) -> Result<i64, usize> {
    if i % 6 == 5 {
        Err(obj)
    } else {
        Ok(i)
    }
}

/// The helpers as jitcode calls them: an error is raised
/// (`runtime::raise_int`, `runtime::raise`), the result is then 0.
extern "C" fn check_shim(i: i64) -> i64 {
    check(i).unwrap_or_else(|e| {
        runtime::raise_int(e);
        0
    })
}

extern "C" fn check2_shim(i: i64) -> i64 {
    check2(i).unwrap_or_else(|e| {
        runtime::raise_int(e);
        0
    })
}

extern "C" fn check_ref_shim(obj: usize, i: i64) -> i64 {
    check_ref(obj, i).unwrap_or_else(|p| {
        runtime::raise(p);
        0
    })
}

/// The interpreter's state at its merge point.
struct State {
    acc: i64,
    i: i64,
    obj: usize,
}

/// The plain interpreter, the oracle: `back_edge` is called at the end of
/// every iteration (the loop's back edge) and may take over the run. The
/// program raises its end value when it is a multiple of 3, else returns
/// it.
fn interpret(
    heap: &Heap,
    n: i64,
    back_edge: &mut dyn FnMut(&mut State) -> Option<Result<i64, i64>>,
) -> Result<i64, i64> {
    let inner = |i: i64| -> Result<i64, i64> { Ok(check2(i)? * 2) };
    let outer = |i: i64| -> Result<i64, i64> { Ok(inner(i)? + 1) };
    let make = |acc: i64, i: i64| -> Result<usize, usize> {
        let p = heap.node(acc & 1023, 0);
        if i % 3 == 0 {
            Err(p)
        } else {
            Ok(p)
        }
    };
    let mut st = State {
        acc: 0,
        i: n,
        obj: heap.node(0, 0),
    };
    loop {
        match check(st.i) {
            Ok(r) => st.acc += r,
            Err(e) => st.acc -= e,
        }
        match outer(st.i) {
            Ok(r) => st.acc += r,
            Err(e) => st.acc += 2 * e,
        }
        match make(st.acc, st.i) {
            Ok(p) => st.obj = p,
            Err(p) => {
                let q = heap.node(1, p);
                st.acc += value_of(next_of(q)) + value_of(q);
                st.obj = p;
            }
        }
        // A node live across the call (virtual in the trace: the failing
        // guard's resume data re-allocates it while the exception is
        // pending).
        let keep = heap.node(st.i & 7, 0);
        match check_ref(st.obj, st.i) {
            Ok(r) => st.acc += r,
            Err(p) => {
                let q = heap.node(value_of(p) + 1, p);
                st.obj = q;
                st.acc += value_of(next_of(q));
            }
        }
        st.acc += value_of(keep);
        st.i -= 1;
        if st.i == 0 {
            let end = st.acc + value_of(st.obj);
            return if end % 3 != 0 { Ok(end) } else { Err(end) };
        }
        if let Some(done) = back_edge(&mut st) {
            return done;
        }
    }
}

/// The descr of a residual helper that can raise.
fn raising(name: &str, args: &[Kind]) -> Descr {
    CallDescr {
        name: name.into(),
        args: args.to_vec(),
        result: ResultKind::Int,
        effect: EffectInfo {
            effect: CallEffect::Random,
            can_raise: true,
            ..EffectInfo::default()
        },
    }
    .into()
}

fn addr(f: usize) -> Arg {
    Arg::Int(f as i64)
}

/// The interpreter as jitcode: the portal (green `pc`, reds `acc`, `i`,
/// `obj`) and the inline-called `outer`, `inner` and `make`.
fn jitcode(heap: &Heap) -> (JitCodeSet, FuncId) {
    use Kind::{Int, Ref};
    let mut set = JitCodeSet::new();
    let node = Descr::Size(heap.node.clone());
    let (value, next) = (field("value", VALUE, Int), field("next", NEXT, Ref));

    // inner(i) = check2(i)? * 2: the helper's exception leaves the frame.
    let mut b = JitCodeBuilder::new("inner");
    let (i, r) = (b.param(Int), b.reg(Int));
    let f = addr(check2_shim as *const () as usize);
    b.call(raising("check2", &[Int]), f, &[i.into()], Some(r));
    b.op(OpCode::IntMul, &[r.into(), Arg::Int(2)], r);
    b.ret(Some(r.into()));
    let inner = set.add(b.finish().unwrap());

    // outer(i) = inner(i)? + 1: no catch, it leaves this frame too.
    let mut b = JitCodeBuilder::new("outer");
    let (i, r) = (b.param(Int), b.reg(Int));
    b.inline_call(inner, &[i.into()], Some(r));
    b.op(OpCode::IntAdd, &[r.into(), Arg::Int(1)], r);
    b.ret(Some(r.into()));
    let outer = set.add(b.finish().unwrap());

    // make(acc, i): a node of `acc & 1023`, raised when `i % 3 == 0`.
    let mut b = JitCodeBuilder::new("make");
    let (acc, i) = (b.param(Int), b.param(Int));
    let (t, p, raise) = (b.reg(Int), b.reg(Ref), b.label());
    b.new_object(node.clone(), p);
    b.op(OpCode::IntAnd, &[acc.into(), Arg::Int(1023)], t);
    b.setfield(p.into(), t.into(), value.clone());
    // Every field is written (the native GC rewrite needs to know them).
    b.setfield(p.into(), Arg::Ref(0), next.clone());
    b.op(OpCode::IntMod, &[i.into(), Arg::Int(3)], t);
    b.goto_if_not(t.into(), raise);
    b.ret(Some(p.into()));
    b.bind(raise);
    b.raise(p.into());
    let make = set.add(b.finish().unwrap());

    let mut b = JitCodeBuilder::new("portal");
    let pc = b.param(Int);
    let (acc, i, obj) = (b.param(Int), b.param(Int), b.param(Ref));
    let [r, e, t] = [(); 3].map(|_| b.reg(Int));
    let [p, q, p2, keep] = [(); 4].map(|_| b.reg(Ref));
    let [top, l1, j1, l2, j2, l3, j3, l4, j4, done, raise_end] = [(); 11].map(|_| b.label());
    b.bind(top);
    b.jit_merge_point(&[pc], &[acc, i, obj]);
    // Caught in the same frame.
    let f = addr(check_shim as *const () as usize);
    b.call(raising("check", &[Int]), f, &[i.into()], Some(r));
    b.catch_exception(l1, Some(e));
    b.op(OpCode::IntAdd, &[acc.into(), r.into()], acc);
    b.goto(j1);
    b.bind(l1);
    b.op(OpCode::IntSub, &[acc.into(), e.into()], acc);
    b.bind(j1);
    // Raised two inline frames down.
    b.inline_call(outer, &[i.into()], Some(r));
    b.catch_exception(l2, Some(e));
    b.op(OpCode::IntAdd, &[acc.into(), r.into()], acc);
    b.goto(j2);
    b.bind(l2);
    b.op(OpCode::IntMul, &[e.into(), Arg::Int(2)], t);
    b.op(OpCode::IntAdd, &[acc.into(), t.into()], acc);
    b.bind(j2);
    // A fresh node raised by jitcode; the handler allocates while it
    // holds it.
    b.inline_call(make, &[acc.into(), i.into()], Some(p));
    b.catch_exception(l3, Some(p));
    b.copy(p.into(), obj);
    b.goto(j3);
    b.bind(l3);
    b.new_object(node.clone(), q);
    b.setfield(q.into(), Arg::Int(1), value.clone());
    b.setfield(q.into(), p.into(), next.clone());
    b.getfield(q.into(), next.clone(), p2);
    b.getfield(p2.into(), value.clone(), t);
    b.op(OpCode::IntAdd, &[acc.into(), t.into()], acc);
    b.getfield(q.into(), value.clone(), t);
    b.op(OpCode::IntAdd, &[acc.into(), t.into()], acc);
    b.copy(p.into(), obj);
    b.bind(j3);
    // A helper raising a GC ref, with a node live across the call.
    b.new_object(node.clone(), keep);
    b.op(OpCode::IntAnd, &[i.into(), Arg::Int(7)], t);
    b.setfield(keep.into(), t.into(), value.clone());
    b.setfield(keep.into(), Arg::Ref(0), next.clone());
    let f = addr(check_ref_shim as *const () as usize);
    b.call(
        raising("check_ref", &[Ref, Int]),
        f,
        &[obj.into(), i.into()],
        Some(r),
    );
    b.catch_exception(l4, Some(p));
    b.op(OpCode::IntAdd, &[acc.into(), r.into()], acc);
    b.goto(j4);
    b.bind(l4);
    b.getfield(p.into(), value.clone(), t);
    b.op(OpCode::IntAdd, &[t.into(), Arg::Int(1)], t);
    b.new_object(node, q);
    b.setfield(q.into(), t.into(), value.clone());
    b.setfield(q.into(), p.into(), next.clone());
    b.copy(q.into(), obj);
    b.getfield(q.into(), next, p2);
    b.getfield(p2.into(), value.clone(), t);
    b.op(OpCode::IntAdd, &[acc.into(), t.into()], acc);
    b.bind(j4);
    b.getfield(keep.into(), value.clone(), t);
    b.op(OpCode::IntAdd, &[acc.into(), t.into()], acc);
    b.op(OpCode::IntSub, &[i.into(), Arg::Int(1)], i);
    b.goto_if_not(i.into(), done);
    b.can_enter_jit(&[pc], &[acc, i, obj]);
    b.goto(top);
    // The end: out of the portal with an exception for a multiple of 3.
    b.bind(done);
    b.getfield(obj.into(), value, t);
    b.op(OpCode::IntAdd, &[acc.into(), t.into()], t);
    b.op(OpCode::IntMod, &[t.into(), Arg::Int(3)], e);
    b.goto_if_not(e.into(), raise_end);
    b.ret(Some(t.into()));
    b.bind(raise_end);
    b.raise(t.into());
    let portal = set.add(b.finish().unwrap());
    (set, portal)
}

/// Runs the program from `n` with the JIT called at every back edge.
fn jit_run<B: GcBackend>(heap: &Heap, driver: &mut JitDriver<B>, n: i64) -> Result<i64, i64> {
    interpret(heap, n, &mut |st| {
        let mut roots = [st.obj];
        driver.safepoint(&mut roots).unwrap();
        st.obj = roots[0];
        let mut g = [Value::Int(0)];
        let mut r = [Value::Int(st.acc), Value::Int(st.i), Value::Ref(st.obj)];
        match driver.can_enter_jit(&mut g, &mut r).unwrap() {
            JitAction::Interpret => None,
            JitAction::Continue => {
                st.acc = r[0].as_int().unwrap();
                st.i = r[1].as_int().unwrap();
                st.obj = r[2].as_ref().unwrap();
                None
            }
            JitAction::Finished(v) => Some(Ok(v.unwrap().as_int().unwrap())),
            JitAction::Raised(e) => Some(Err(e.as_int().unwrap())),
        }
    })
}

fn params(bridges: bool) -> JitParams {
    let p = JitParams::default().with_threshold(3);
    if bridges {
        p.with_bridge_threshold(3)
    } else {
        p.with_bridge_threshold(u32::MAX)
    }
}

/// The JIT on `B` agrees with the plain run, stressed or not, with
/// bridges or with every guard failure in the blackhole.
fn agrees<B: GcBackend>() {
    for n in [300, 303] {
        let want = interpret(&Heap::new(false), n, &mut |_| None);
        for stress in [false, true] {
            for bridges in [false, true] {
                let heap = Heap::new(stress);
                let (set, portal) = jitcode(&heap);
                let mut driver =
                    JitDriver::<B>::new_gc(set, portal, heap.gc.clone(), params(bridges)).unwrap();
                let got = jit_run(&heap, &mut driver, n);
                let what = format!("n={n} stress={stress} bridges={bridges}");
                assert_eq!(got, want, "{what}");
                let s = driver.stats();
                assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{what}\n{s}");
                // `keep` is virtual at the guards after `check_ref`: their
                // failures re-allocate it while the exception is pending.
                let virtual_at_call_guard = driver.compiled().guards().any(|(_, g)| {
                    g.snapshot.resume_at == ResumeAt::AfterCall
                        && g.resume.as_ref().is_some_and(|r| !r.virtuals.is_empty())
                });
                assert!(virtual_at_call_guard, "{what}\n{}", driver.log());
                assert!(s.guard_failures > 50, "{what}\n{s}");
                if bridges {
                    // Bridges from guard_no_exception take the exception first.
                    let bridges = driver.bridges();
                    let taking = bridges.iter().filter(|b| {
                        b.recorded.ops.first().map(|o| o.opcode) == Some(OpCode::GuardException)
                    });
                    assert!(taking.count() >= 2, "{what}\n{s}\n{}", driver.log());
                } else {
                    assert_eq!(s.bridges_compiled, 0, "{what}");
                    assert!(s.blackhole_runs >= s.guard_failures, "{what}\n{s}");
                }
            }
        }
    }
}

#[test]
fn the_plain_run_raises_out_of_the_portal_for_one_start_and_returns_for_the_other() {
    let ends: Vec<_> = [300, 303]
        .map(|n| interpret(&Heap::new(false), n, &mut |_| None))
        .into();
    assert!(
        ends.iter().any(Result::is_ok) && ends.iter().any(Result::is_err),
        "{ends:?}"
    );
}

#[test]
fn exceptions_on_refexec() {
    agrees::<RefExec>();
}

#[test]
fn exceptions_on_the_native_backend() {
    agrees::<HostBackend>();
}

/// Differential mode checks the first entries of every loop (with its
/// bridges) against the reference executor: no divergence, same result.
#[test]
fn exceptions_in_differential_mode() {
    let want = interpret(&Heap::new(false), 300, &mut |_| None);
    let heap = Heap::new(false);
    let (set, portal) = jitcode(&heap);
    let params = params(true).with_diff(20);
    let mut driver =
        JitDriver::<HostBackend>::new_gc(set, portal, heap.gc.clone(), params).unwrap();
    assert_eq!(jit_run(&heap, &mut driver, 300), want);
    let s = driver.stats();
    assert!(s.diff_checks > 20 && s.bridges_compiled > 0, "{s}");
}
