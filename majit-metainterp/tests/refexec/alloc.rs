//! Allocation through the hook: `MallocAllocator` round trips for every
//! allocating op, and a moving test allocator that checks the executor
//! hands over (and takes back) every ref it holds.

use crate::{compile, int, node_values, reference, run_in, try_run, word, BUILD_LIST};
use majit_ir::{ArrayDescr, SizeDescr};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::runtime::{Allocator, MallocAllocator, OutOfMemory};
use majit_metainterp::{Backend, ExecError};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

#[test]
fn new_objects_are_zeroed_and_headered_ones_carry_their_type_id() {
    let mut exec = RefExec::new();
    let frame = run_in(
        &mut exec,
        "[i0]
         p1 = new(descr=Node)
         setfield_gc(p1, i0, descr=Node.value)
         p2 = new(descr=Box)
         p3 = new_with_vtable(descr=Stack)
         setfield_gc(p3, p1, descr=Stack.head)
         guard_class(p3, 0x5700, descr=g0) []
         i4 = getfield_gc_i(p2, descr=Box.value)
         finish(p1, p2, p3, i4, descr=done)",
        &[int(-6)],
    );
    assert_eq!(
        frame.descr.as_ref().unwrap().name(),
        "done",
        "guard_class sees Stack's vtable"
    );
    let (node, boxed, stack) = (frame.reference(0), frame.reference(1), frame.reference(2));
    assert_eq!(
        (word(node, 0), word(node, 8)),
        (-6i64 as u64, 0),
        "headerless: value at 0"
    );
    assert_eq!((word(boxed, 0), word(boxed, 8)), (9, 0));
    assert_eq!(frame.int(3), 0);
    assert_eq!(
        (word(stack, 0), word(stack, 8), word(stack, 16)),
        (3, node as u64, 0)
    );
    assert_eq!(node % 16, 0, "16-byte aligned");
}

#[test]
fn new_arrays_have_header_length_and_zeroed_items() {
    let mut exec = RefExec::new();
    let frame = run_in(
        &mut exec,
        "[i0]
         p1 = new_array(i0, descr=IntArray)
         p2 = new_array_clear(3, descr=RefArray)
         i3 = arraylen_gc(p1, descr=IntArray)
         i4 = getarrayitem_gc_i(p1, 4, descr=IntArray)
         setarrayitem_gc(p1, 0, 11, descr=IntArray)
         setarrayitem_gc(p2, 2, p1, descr=RefArray)
         finish(p1, p2, i3, i4)",
        &[int(5)],
    );
    let (ints, refs) = (frame.reference(0), frame.reference(1));
    assert_eq!((frame.int(2), frame.int(3)), (5, 0));
    assert_eq!((word(ints, 0), word(ints, 8), word(ints, 16)), (4, 5, 11));
    assert_eq!(
        (word(refs, 0), word(refs, 8), word(refs, 32)),
        (5, 3, ints as u64)
    );
}

#[test]
fn a_loop_builds_a_linked_list() {
    let mut exec = RefExec::new();
    let frame = run_in(&mut exec, BUILD_LIST, &[int(10), reference(0)]);
    assert_eq!(
        node_values(frame.reference(0)),
        (1..=10).collect::<Vec<_>>()
    );
}

#[test]
fn lowered_allocations() {
    let mut exec = RefExec::new();
    let frame = run_in(
        &mut exec,
        "[]
         p0 = call_malloc_nursery(32)
         setfield_gc(p0, 9, descr=Box.value)
         p1 = nursery_ptr_increment(p0, 16)
         setfield_gc(p1, 7, descr=Box.value)
         p2 = call_malloc_nursery_headerless(16, descr=Node)
         setfield_gc(p2, p1, descr=Node.next)
         p3 = call_malloc_nursery_varsize(2, descr=IntArray)
         i4 = arraylen_gc(p3, descr=IntArray)
         finish(p0, p1, p2, p3, i4)",
        &[],
    );
    let (p0, p1, p2, p3) = (
        frame.reference(0),
        frame.reference(1),
        frame.reference(2),
        frame.reference(3),
    );
    assert_eq!(p1, p0 + 16);
    assert_eq!(
        (word(p0, 0), word(p0, 8), word(p0, 24)),
        (0, 9, 7),
        "the trace writes headers"
    );
    assert_eq!(word(p2, 8), p1 as u64);
    assert_eq!((word(p3, 0), word(p3, 8), frame.int(4)), (4, 2, 2));
}

/// What the moving allocator saw.
#[derive(Default)]
struct Log {
    moves: usize,
    barriers: Vec<(usize, Option<i64>)>,
    call_roots: Vec<Vec<usize>>,
}

/// Moves every object it allocated that is named in `roots` to a fresh
/// block on each allocation and around each collecting call, poisoning
/// the old copy. (Fields pointing to moved objects are not updated: the
/// tests keep such pointers out of the way.)
struct Moving {
    memory: MallocAllocator,
    sizes: BTreeMap<usize, usize>,
    log: Rc<RefCell<Log>>,
    fail: bool,
}

impl Moving {
    fn new(log: Rc<RefCell<Log>>) -> Moving {
        Moving {
            memory: MallocAllocator::default(),
            sizes: BTreeMap::new(),
            log,
            fail: false,
        }
    }

    fn collect(&mut self, roots: &mut [usize]) {
        for root in roots.iter_mut() {
            let Some(size) = self.sizes.remove(root) else {
                continue;
            };
            let new = self.memory.malloc_nursery(size, &mut []).unwrap();
            // SAFETY: both blocks are `size` bytes from `memory`.
            unsafe {
                std::ptr::copy_nonoverlapping(*root as *const u8, new as *mut u8, size);
                std::ptr::write_bytes(*root as *mut u8, 0xdd, size);
            }
            self.sizes.insert(new, size);
            *root = new;
            self.log.borrow_mut().moves += 1;
        }
    }

    fn fresh(&mut self, size: usize, roots: &mut [usize]) -> Result<usize, OutOfMemory> {
        if self.fail {
            return Err(OutOfMemory);
        }
        self.collect(roots);
        let obj = self.memory.malloc_nursery(size, &mut [])?;
        self.sizes.insert(obj, size);
        Ok(obj)
    }
}

impl Allocator for Moving {
    fn new_object(
        &mut self,
        layout: &SizeDescr,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        self.fresh(layout.size as usize, roots)
    }
    fn new_array(
        &mut self,
        array: &ArrayDescr,
        length: usize,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        let obj = self.fresh(
            array.base_offset as usize + length * array.item_size as usize,
            roots,
        )?;
        // SAFETY: the block holds the length word (base_offset > len_offset).
        unsafe { ((obj + array.len_offset as usize) as *mut u64).write(length as u64) };
        Ok(obj)
    }
    fn malloc_nursery(&mut self, size: usize, roots: &mut [usize]) -> Result<usize, OutOfMemory> {
        self.fresh(size, roots)
    }
    fn write_barrier(&mut self, obj: usize) {
        self.log.borrow_mut().barriers.push((obj, None));
    }
    fn write_barrier_array(&mut self, obj: usize, index: i64) {
        self.log.borrow_mut().barriers.push((obj, Some(index)));
    }
    fn call_begin(&mut self, roots: &[usize]) {
        self.log.borrow_mut().call_roots.push(roots.to_vec());
    }
    fn call_end(&mut self, roots: &mut [usize]) {
        self.collect(roots);
    }
}

fn moving() -> (RefExec, Rc<RefCell<Log>>) {
    let log = Rc::new(RefCell::new(Log::default()));
    (
        RefExec::with_allocator(Box::new(Moving::new(Rc::clone(&log)))),
        log,
    )
}

#[test]
fn allocation_may_move_every_ref_the_executor_holds() {
    let (mut exec, log) = moving();
    let code = compile(
        &mut exec,
        "[i0]
         p1 = new(descr=Node)
         setfield_gc(p1, i0, descr=Node.value)
         p2 = new(descr=Node)
         setfield_gc(p2, p1, descr=Node.next)
         i3 = getfield_gc_i(p1, descr=Node.value)
         p4 = new_array(2, descr=IntArray)
         finish(p1, p2, i3, p4)",
    );
    let frame = exec.execute(code, &[int(31)]).unwrap();
    let (p1, p2) = (frame.reference(0), frame.reference(1));
    assert_eq!(frame.int(2), 31, "the load went to the moved copy");
    assert_eq!(word(p1, 0), 31);
    // p2 moved at the array allocation too, p1 once more; p2.next kept
    // p1's address of the time of the store, which the mover does not fix.
    assert_eq!(log.borrow().moves, 3);
    assert_ne!(word(p2, 8), p1 as u64);
    assert_eq!(word(frame.reference(3), 8), 2);
}

#[test]
fn a_collecting_call_roots_the_frames_refs() {
    let (mut exec, log) = moving();
    let code = compile(
        &mut exec,
        "descr C.collect = call(args=[int], result=void, effect=random, can_collect)
         descr C.plain = call(args=[int], result=void, effect=random)
         [i0]
         p1 = new(descr=Node)
         setfield_gc(p1, i0, descr=Node.value)
         call_n(@store_sink, 5, descr=C.plain)
         call_n(@store_sink, 6, descr=C.collect)
         i2 = getfield_gc_i(p1, descr=Node.value)
         finish(p1, i2)",
    );
    let frame = exec.execute(code, &[int(12)]).unwrap();
    let log = log.borrow();
    assert_eq!(log.call_roots.len(), 1, "only the collecting call");
    assert_eq!(log.call_roots[0].len(), 1, "exactly the one ref slot");
    assert_eq!(log.moves, 1);
    assert_ne!(
        frame.reference(0),
        log.call_roots[0][0],
        "moved by call_end"
    );
    assert_eq!((word(frame.reference(0), 0), frame.int(1)), (12, 12));
}

#[test]
fn write_barriers_reach_the_hook() {
    let (mut exec, log) = moving();
    let code = compile(
        &mut exec,
        "[p0, p1]
         cond_call_gc_wb(p0)
         cond_call_gc_wb_array(p1, 3)
         finish()",
    );
    exec.execute(code, &[reference(0x100), reference(0x200)])
        .unwrap();
    assert_eq!(log.borrow().barriers, [(0x100, None), (0x200, Some(3))]);
}

#[test]
fn allocation_failure_is_out_of_memory() {
    let log = Rc::new(RefCell::new(Log::default()));
    let mut failing = Moving::new(log);
    failing.fail = true;
    let mut exec = RefExec::with_allocator(Box::new(failing));
    let code = compile(
        &mut exec,
        "[]\ni0 = int_add(1, 2)\np1 = new(descr=Node)\nfinish(p1)",
    );
    assert_eq!(
        exec.execute(code, &[]),
        Err(ExecError::OutOfMemory { op_index: 1 })
    );
    let negative = try_run(
        "[i0]\np1 = new_array(i0, descr=IntArray)\nfinish(p1)",
        &[int(-1)],
    );
    assert_eq!(negative, Err(ExecError::OutOfMemory { op_index: 0 }));
}

#[test]
fn malloc_allocator_counts_its_blocks() {
    let mut a = MallocAllocator::default();
    let layout = SizeDescr {
        name: "T".into(),
        size: 24,
        type_id: 12,
        headerless: false,
        vtable: None,
        fields: vec![],
    };
    let p = a.new_object(&layout, &mut []).unwrap();
    let q = a.malloc_nursery(0, &mut []).unwrap();
    assert_ne!(p, q);
    assert_eq!((word(p, 0), word(p, 8), word(p, 16)), (12, 0, 0));
    assert_eq!(a.allocated_blocks(), 2);
}
