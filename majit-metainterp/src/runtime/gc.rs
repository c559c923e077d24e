//! [`GcAllocator`]: allocation on a majit-gc heap.
//!
//! Each allocation pushes every ref the executor holds onto the heap's
//! shadow stack inside a root scope, allocates (which may run a minor or
//! major collection and move young objects), reads the possibly moved refs
//! back and closes the scope. Collecting calls do the same around the call
//! (`call_begin` opens the scope, `call_end` reads back and closes it).
//! The high-level forms use `Gc::alloc` / `Gc::alloc_array`; the lowered
//! forms call majit-gc's JIT slow paths, which JIT code reaches after its
//! inline bump fails. Write barriers call the barrier's slow path
//! directly: it does nothing for young or already recorded objects, so
//! calling it unconditionally equals the inline test plus call.
//!
//! Type ids are majit-gc's: a descr's `type_id` must be the id the heap
//! gave its layout (`Gc::register_layout` / `register_array`). Any
//! allocation error (out of memory, an unknown or mismatched type id, a
//! bad size) is reported as [`OutOfMemory`]; for the lowered forms
//! `Gc::take_jit_error` keeps the cause.

use super::{Allocator, OutOfMemory};
use majit_gc::{
    majit_gc_malloc_nursery, majit_gc_malloc_nursery_headerless, majit_gc_malloc_varsize,
    majit_gc_write_barrier, Gc, GcRef, RootScope, TypeId,
};
use majit_ir::{ArrayDescr, SizeDescr};
use std::cell::RefCell;
use std::ptr;
use std::rc::Rc;

/// Allocates through a shared majit-gc heap (see the module docs).
///
/// ```
/// use majit_gc::{Gc, GcConfig, Layout};
/// use majit_metainterp::refexec::RefExec;
/// use majit_metainterp::runtime::GcAllocator;
/// use std::{cell::RefCell, rc::Rc};
/// let gc = Rc::new(RefCell::new(Gc::new(GcConfig::default()).unwrap()));
/// gc.borrow_mut().register_layout(Layout::headerless("Node", 16, &[8])).unwrap();
/// let exec = RefExec::with_allocator(Box::new(GcAllocator::new(Rc::clone(&gc))));
/// ```
pub struct GcAllocator {
    gc: Rc<RefCell<Gc>>,
    /// The root scopes of the collecting calls in progress.
    calls: Vec<RootScope>,
}

impl GcAllocator {
    /// An allocator on `gc`, which the caller keeps to read the objects.
    pub fn new(gc: Rc<RefCell<Gc>>) -> GcAllocator {
        GcAllocator {
            gc,
            calls: Vec::new(),
        }
    }

    /// Runs `alloc` with `roots` rooted, then writes the moved roots back.
    fn rooted(
        &mut self,
        roots: &mut [usize],
        alloc: impl FnOnce(&mut Gc) -> Option<usize>,
    ) -> Result<usize, OutOfMemory> {
        self.call_begin(roots);
        let obj = alloc(&mut self.gc.borrow_mut());
        self.call_end(roots);
        obj.filter(|&o| o != 0).ok_or(OutOfMemory)
    }
}

impl Allocator for GcAllocator {
    fn new_object(
        &mut self,
        layout: &SizeDescr,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        let ty = TypeId(layout.type_id);
        self.rooted(roots, |gc| gc.alloc(ty).ok().map(|r| r.0))
    }

    fn new_array(
        &mut self,
        array: &ArrayDescr,
        length: usize,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        let ty = TypeId(array.type_id);
        self.rooted(roots, |gc| gc.alloc_array(ty, length).ok().map(|r| r.0))
    }

    fn malloc_nursery(&mut self, size: usize, roots: &mut [usize]) -> Result<usize, OutOfMemory> {
        self.rooted(roots, |gc| {
            // SAFETY: the heap is live and not otherwise borrowed during
            // the call (we hold the only `&mut Gc`); no JIT frame is passed.
            Some(unsafe { majit_gc_malloc_nursery(gc.heap_ptr(), size, ptr::null_mut()) })
        })
    }

    fn malloc_nursery_headerless(
        &mut self,
        _size: usize,
        layout: &SizeDescr,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        self.rooted(roots, |gc| {
            let heap = gc.heap_ptr();
            // SAFETY: as in `malloc_nursery`.
            Some(unsafe {
                majit_gc_malloc_nursery_headerless(heap, layout.type_id, ptr::null_mut())
            })
        })
    }

    fn malloc_nursery_varsize(
        &mut self,
        array: &ArrayDescr,
        length: usize,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        self.rooted(roots, |gc| {
            let heap = gc.heap_ptr();
            // SAFETY: as in `malloc_nursery`.
            Some(unsafe { majit_gc_malloc_varsize(heap, array.type_id, length, ptr::null_mut()) })
        })
    }

    fn write_barrier(&mut self, obj: usize) {
        let heap = self.gc.borrow_mut().heap_ptr();
        // SAFETY: the heap is live; the slow path accepts any address
        // (it only records old objects of this heap).
        unsafe { majit_gc_write_barrier(heap, obj) }
    }

    fn write_barrier_array(&mut self, obj: usize, _index: i64) {
        // Recording the whole array is what the card would have led to.
        self.write_barrier(obj);
    }

    fn call_begin(&mut self, roots: &[usize]) {
        let mut gc = self.gc.borrow_mut();
        let scope = gc.enter_scope();
        for &r in roots {
            gc.push_root(GcRef(r));
        }
        self.calls.push(scope);
    }

    fn call_end(&mut self, roots: &mut [usize]) {
        let Some(scope) = self.calls.pop() else {
            return;
        };
        let mut gc = self.gc.borrow_mut();
        for (k, r) in roots.iter_mut().enumerate() {
            *r = gc.root(scope.index(k)).0;
        }
        gc.leave_scope(scope);
    }
}
