//! Resume on a moving heap: a failing guard's virtuals and pending fields
//! are rebuilt on majit-gc in stress mode (a minor collection at every
//! allocation), so every phase-2 allocation moves what was rebuilt before
//! it. The rebuilt graph must be intact, identity and cycles included,
//! and survive further collections (stores went through the barrier).

mod opt_support;

use majit_gc::testing::{stress_config, test_heap};
use majit_gc::{Gc, GcRef};
use majit_ir::Value;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::resume::{rebuild, Tagged};
use majit_metainterp::runtime::GcAllocator;
use majit_metainterp::Backend;
use opt_support::{optimize_checked, parse};
use std::cell::RefCell;
use std::rc::Rc;

/// A stress-mode heap whose type ids match the shared test namespace.
fn heap() -> Rc<RefCell<Gc>> {
    Rc::new(RefCell::new(test_heap(stress_config())))
}

/// Runs a minor collection with `refs` rooted; returns them moved.
fn collect(gc: &Rc<RefCell<Gc>>, refs: &[usize]) -> Vec<usize> {
    let mut gc = gc.borrow_mut();
    let scope = gc.enter_scope();
    for &r in refs {
        gc.push_root(GcRef(r));
    }
    gc.collect_minor().expect("collection");
    let moved = (0..refs.len()).map(|k| gc.root(scope.index(k)).0).collect();
    gc.leave_scope(scope);
    moved
}

#[test]
fn cyclic_virtuals_and_a_pending_field_rebuild_under_stress() {
    let t = parse(
        "
        [p0, i1]
        p2 = new(descr=Node)
        p3 = new(descr=Node)
        setfield_gc(p2, i1, descr=Node.value)
        setfield_gc(p2, p3, descr=Node.next)
        setfield_gc(p3, p2, descr=Node.next)
        i5 = int_add(i1, 1)
        setfield_gc(p3, i5, descr=Node.value)
        setfield_gc(p0, p2, descr=Stack.head)
        i4 = int_gt(i1, 100)
        guard_true(i4, descr=g0) [p0, p3, i1]
        finish()",
    );
    let out = optimize_checked("virtualize:heap", &t);
    let rd = &out.resume[&0];
    assert_eq!(rd.virtuals.len(), 2, "{rd}");
    assert_eq!(rd.pending.len(), 1, "{rd}");
    assert_eq!(rd.values[1], Tagged::Virtual(0));

    let gc = heap();
    let mut exec = RefExec::with_allocator(Box::new(GcAllocator::new(Rc::clone(&gc))));
    let stack_layout = opt_support::ns()
        .descr("Stack")
        .and_then(|d| d.as_size().cloned())
        .expect("Stack");
    let stack = exec
        .allocator()
        .new_object(&stack_layout, &mut [])
        .expect("stack");
    let code = exec.compile_loop(&out.trace).expect("compile");
    let frame = exec
        .execute(code, &[Value::Ref(stack), Value::Int(7)])
        .expect("run");
    // SAFETY: `rd` describes the guard that produced `frame`; its refs are
    // live objects of the heap (nothing allocated since the exit).
    let values = unsafe { rebuild(&frame.values, rd, &mut *exec.allocator()) }.expect("rebuild");
    let refs: Vec<usize> = values.iter().filter_map(|v| v.as_ref()).collect();
    let [p0, p3] = collect(&gc, &refs)[..] else {
        panic!("two refs")
    };
    let gc = gc.borrow();
    let p2 = gc.read_ref(GcRef(p0), 8).0;
    assert_ne!(p2, 0, "pending field applied");
    assert_eq!(gc.read_word(GcRef(p2), 0), 7);
    assert_eq!(gc.read_ref(GcRef(p2), 8).0, p3, "p2.next is p3");
    assert_eq!(gc.read_ref(GcRef(p3), 8).0, p2, "p3.next is p2: the cycle");
    assert_eq!(gc.read_word(GcRef(p3), 0), 8);
    assert_eq!(values[2], Value::Int(7));
}
