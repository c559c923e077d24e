//! The executor on a real majit-gc heap (`GcAllocator`), mostly in stress
//! mode (a minor collection at every allocation): every ref the executor
//! holds must survive moves, and stores into old objects need their
//! barrier.

use crate::{compile, int, namespace, node_values, reference, BUILD_LIST, DESCRS};
use majit_gc::testing::{stress_config, test_heap};
use majit_gc::{majit_gc_collect, Gc, GcConfig, GcHeap, GcRef};
use majit_ir::{parse_with, Const};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::runtime::GcAllocator;
use majit_metainterp::Backend;
use std::cell::RefCell;
use std::rc::Rc;

/// A heap whose type ids match the shared test namespace; `stress`: a
/// minor collection at every allocation.
pub fn heap(stress: bool) -> Rc<RefCell<Gc>> {
    let config = GcConfig {
        stress_every: stress.then_some(1),
        ..stress_config()
    };
    Rc::new(RefCell::new(test_heap(config)))
}

fn exec_on(gc: &Rc<RefCell<Gc>>) -> RefExec {
    RefExec::with_allocator(Box::new(GcAllocator::new(Rc::clone(gc))))
}

#[test]
fn a_list_built_in_a_loop_survives_a_collection_per_allocation() {
    let gc = heap(true);
    let mut exec = exec_on(&gc);
    let code = compile(&mut exec, BUILD_LIST);
    let frame = exec.execute(code, &[int(300), reference(0)]).unwrap();
    let gc = gc.borrow();
    assert!(gc.stats().minor_collections >= 300, "{:?}", gc.stats());
    assert_eq!(
        node_values(frame.reference(0)),
        (1..=300).collect::<Vec<_>>()
    );
}

#[test]
fn stores_into_an_old_object_keep_young_nodes_alive_through_the_barrier() {
    let gc = heap(true);
    let stack = {
        let mut g = gc.borrow_mut();
        let ty = majit_gc::TypeId(3);
        let s = g.alloc(ty).unwrap();
        let root = g.push_root(s);
        g.collect_minor().unwrap();
        let s = g.pop_root().unwrap();
        assert_eq!(root, 0);
        assert!(!g.is_young(s), "the Stack is old");
        s.0
    };
    let mut exec = exec_on(&gc);
    let code = compile(
        &mut exec,
        "[p0, i1]
         label(p0, i1, descr=Loop)
         i2 = int_gt(i1, 0)
         guard_true(i2, descr=g0) [p0]
         p3 = new(descr=Node)
         setfield_gc(p3, i1, descr=Node.value)
         p4 = getfield_gc_r(p0, descr=Stack.head)
         setfield_gc(p3, p4, descr=Node.next)
         cond_call_gc_wb(p0)
         setfield_gc(p0, p3, descr=Stack.head)
         i5 = int_sub(i1, 1)
         jump(p0, i5, descr=Loop)",
    );
    let frame = exec.execute(code, &[reference(stack), int(100)]).unwrap();
    assert_eq!(frame.reference(0), stack, "old objects do not move");
    let gc = gc.borrow();
    let head = gc.read_ref(GcRef(stack), 8).0;
    assert_eq!(node_values(head), (1..=100).collect::<Vec<_>>());
}

#[test]
fn lowered_allocations_on_the_gc() {
    let gc = heap(true);
    let mut exec = exec_on(&gc);
    let code = compile(
        &mut exec,
        "descr Box.header = field(owner=Box, offset=0, size=8, kind=int)
         [i0]
         p1 = call_malloc_nursery(16)
         setfield_gc(p1, 9, descr=Box.header)
         setfield_gc(p1, i0, descr=Box.value)
         p2 = call_malloc_nursery_headerless(16, descr=Node)
         setfield_gc(p2, i0, descr=Node.value)
         setfield_gc(p2, p1, descr=Node.next)
         p3 = call_malloc_nursery_varsize(2, descr=RefArray)
         setarrayitem_gc(p3, 1, p2, descr=RefArray)
         p4 = new(descr=Box)
         finish(p3, p4)",
    );
    let frame = exec.execute(code, &[int(-5)]).unwrap();
    let gc = gc.borrow();
    let array = GcRef(frame.reference(0));
    assert_eq!(gc.array_len(array), 2);
    let node = gc.read_ref(array, 24);
    let boxed = gc.read_ref(node, 8);
    assert_eq!(gc.read_word(node, 0) as i64, -5);
    let header = gc.read_word(boxed, 0);
    assert_eq!(
        (header & 0xffff_ffff, gc.read_word(boxed, 8) as i64),
        (9, -5),
        "type id, flags above"
    );
    assert_eq!(gc.type_of(GcRef(frame.reference(1))).0, 9);
}

extern "C" fn collect_now(heap: usize) {
    // SAFETY: the test passes the address of its live heap, which nothing
    // borrows during the call.
    let ok = unsafe { majit_gc_collect(heap as *mut GcHeap, std::ptr::null_mut()) };
    assert_eq!(ok, 1);
}

#[test]
fn a_collecting_call_moves_the_frames_refs() {
    let gc = heap(false);
    let mut ns = namespace();
    ns.add_symbol(
        "collect_now",
        Const::Int(collect_now as *const () as usize as i64),
    );
    ns.add_symbol("heap", Const::Int(gc.borrow().heap_ptr() as i64));
    let text = "descr C.collect = call(args=[int], result=void, effect=random, can_collect)
        [i0]
        p1 = new(descr=Node)
        setfield_gc(p1, i0, descr=Node.value)
        call_n(@collect_now, @heap, descr=C.collect)
        i2 = getfield_gc_i(p1, descr=Node.value)
        finish(p1, i2)";
    let trace = parse_with(&format!("{DESCRS}\n{text}"), &ns).unwrap();
    let mut exec = exec_on(&gc);
    let code = exec.compile_loop(&trace).unwrap();
    let frame = exec.execute(code, &[int(77)]).unwrap();
    let gc = gc.borrow();
    assert_eq!(gc.stats().minor_collections, 1);
    assert!(
        !gc.is_young(GcRef(frame.reference(0))),
        "moved out of the nursery"
    );
    assert_eq!(frame.int(1), 77);
    assert_eq!(gc.read_word(GcRef(frame.reference(0)), 0), 77);
}
