//! The allocation hook.
//!
//! Every op that allocates (`new*`, `call_malloc_nursery*`) or notifies the
//! GC (`cond_call_gc_wb*`), in the reference executor, the tracer, the
//! blackhole and resume, goes through an [`Allocator`]. A collecting
//! allocator may move objects: each allocating method receives `roots`,
//! every ref the executor holds at that moment (its ref-kind inputs and op
//! results, plus a pending exception), and must rewrite moved ones in
//! place. Null (0) entries must stay 0, and entries that are not heap
//! objects (prebuilt objects, raw addresses a trace cast to refs) must be
//! left alone. A `nursery_ptr_increment` result is a real object once its
//! header is stored (the GC rewrite stores it before any collection point),
//! so it is updated like any other.
//!
//! [`MallocAllocator`] is the default for tests: zeroed, 16-byte aligned
//! blocks from the system allocator that never move and are freed when
//! the allocator drops; [`MallocAllocator::recording`] also remembers the
//! address and size of every object it returned (to tell fresh objects
//! from others when comparing executions).
//!
//! Object conventions (shared with majit-gc): a headered object starts with
//! an 8-byte header word whose low 32 bits are the type id; a headerless
//! object has no header. A GC array is headered, keeps its length as an
//! 8-byte word at `len_offset` and its items from `base_offset`.

use majit_ir::{ArrayDescr, SizeDescr};
use std::alloc::{self, Layout};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// An allocation failed: the executor reports
/// [`ExecError::OutOfMemory`](crate::backend::ExecError::OutOfMemory).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OutOfMemory;

/// The memory manager traces and jitcode allocate through.
///
/// Every allocating method returns the address of a new object whose
/// memory is zeroed apart from what the method documents it writes, and
/// may move any object named in `roots`, updating those entries.
pub trait Allocator {
    /// `new` / `new_with_vtable`: an object of `layout.size` bytes. For a
    /// headered layout the hook writes the header word (type id in the low
    /// 32 bits); a headerless one comes from the layout's own region.
    fn new_object(&mut self, layout: &SizeDescr, roots: &mut [usize])
        -> Result<usize, OutOfMemory>;

    /// `new_array` / `new_array_clear`: an array of `length` items with
    /// its header and length word written and its items zeroed.
    fn new_array(
        &mut self,
        array: &ArrayDescr,
        length: usize,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory>;

    /// `call_malloc_nursery(size)`: `size` bytes for headered objects; the
    /// trace writes the header itself (the GC rewrite emits the store).
    fn malloc_nursery(&mut self, size: usize, roots: &mut [usize]) -> Result<usize, OutOfMemory>;

    /// `call_malloc_nursery_headerless(size, descr=layout)`: `size` bytes
    /// from the region of the headerless `layout` (by default, what
    /// [`Allocator::malloc_nursery`] returns: for allocators without
    /// per-layout regions).
    fn malloc_nursery_headerless(
        &mut self,
        size: usize,
        _layout: &SizeDescr,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        self.malloc_nursery(size, roots)
    }

    /// `call_malloc_nursery_varsize(length, descr=array)`: as
    /// [`Allocator::new_array`] (header and length written by the hook).
    fn malloc_nursery_varsize(
        &mut self,
        array: &ArrayDescr,
        length: usize,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        self.new_array(array, length, roots)
    }

    /// `cond_call_gc_wb(obj)`: `obj` is about to receive a ref store.
    fn write_barrier(&mut self, _obj: usize) {}

    /// `cond_call_gc_wb_array(obj, index)`: item `index` of the array
    /// `obj` is about to receive a ref store.
    fn write_barrier_array(&mut self, _obj: usize, _index: i64) {}

    /// Called before a call whose descr says it can collect, with every
    /// ref the executor holds: a moving collector roots them here.
    fn call_begin(&mut self, _roots: &[usize]) {}

    /// Called after that call returns: write back moved refs and unroot.
    fn call_end(&mut self, _roots: &mut [usize]) {}
}

/// An allocator shared by a driver's tracer, blackhole and resume, which
/// may run nested (a call of the interpreted program runs the interpreter
/// again while the outer one waits in the call): each method borrows the
/// shared allocator for its own duration only, so no borrow is held
/// across a call.
pub(crate) struct Shared<'a>(pub &'a RefCell<Box<dyn Allocator>>);

impl Allocator for Shared<'_> {
    fn new_object(
        &mut self,
        layout: &SizeDescr,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        self.0.borrow_mut().new_object(layout, roots)
    }
    fn new_array(
        &mut self,
        array: &ArrayDescr,
        length: usize,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        self.0.borrow_mut().new_array(array, length, roots)
    }
    fn malloc_nursery(&mut self, size: usize, roots: &mut [usize]) -> Result<usize, OutOfMemory> {
        self.0.borrow_mut().malloc_nursery(size, roots)
    }
    fn malloc_nursery_headerless(
        &mut self,
        size: usize,
        layout: &SizeDescr,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        let mut a = self.0.borrow_mut();
        a.malloc_nursery_headerless(size, layout, roots)
    }
    fn malloc_nursery_varsize(
        &mut self,
        array: &ArrayDescr,
        length: usize,
        roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        let mut a = self.0.borrow_mut();
        a.malloc_nursery_varsize(array, length, roots)
    }
    fn write_barrier(&mut self, obj: usize) {
        self.0.borrow_mut().write_barrier(obj)
    }
    fn write_barrier_array(&mut self, obj: usize, index: i64) {
        self.0.borrow_mut().write_barrier_array(obj, index)
    }
    fn call_begin(&mut self, roots: &[usize]) {
        self.0.borrow_mut().call_begin(roots)
    }
    fn call_end(&mut self, roots: &mut [usize]) {
        self.0.borrow_mut().call_end(roots)
    }
}

/// The objects a recording [`MallocAllocator`] returned: address -> size
/// in bytes.
pub type Allocated = Rc<RefCell<BTreeMap<usize, usize>>>;

/// The default allocator: zeroed blocks from the system allocator,
/// 16-byte aligned, never moved, all freed when the allocator drops.
///
/// ```
/// use majit_metainterp::runtime::{Allocator, MallocAllocator};
/// use majit_ir::SizeDescr;
/// let layout = SizeDescr { name: "T".into(), size: 16, type_id: 7, headerless: false,
///                          vtable: None, fields: vec![] };
/// let mut a = MallocAllocator::default();
/// let p = a.new_object(&layout, &mut []).unwrap();
/// assert_eq!(unsafe { *(p as *const u64) }, 7);
/// ```
#[derive(Debug, Default)]
pub struct MallocAllocator {
    blocks: Vec<(usize, Layout)>,
    /// Where every object returned is recorded, if anywhere.
    recorded: Option<Allocated>,
}

/// The alignment of every [`MallocAllocator`] block.
const ALIGN: usize = 16;

impl MallocAllocator {
    /// An allocator that records every object it returns (address and
    /// size) in `allocated`.
    ///
    /// ```
    /// use majit_metainterp::runtime::{Allocated, Allocator, MallocAllocator};
    /// use majit_ir::SizeDescr;
    /// let layout = SizeDescr { name: "T".into(), size: 16, type_id: 7, headerless: false,
    ///                          vtable: None, fields: vec![] };
    /// let seen = Allocated::default();
    /// let mut a = MallocAllocator::recording(seen.clone());
    /// let p = a.new_object(&layout, &mut []).unwrap();
    /// assert_eq!(seen.borrow().get(&p), Some(&16));
    /// ```
    pub fn recording(allocated: Allocated) -> MallocAllocator {
        MallocAllocator {
            blocks: Vec::new(),
            recorded: Some(allocated),
        }
    }

    /// A zeroed block of at least `size` bytes.
    fn block(&mut self, size: usize) -> Result<usize, OutOfMemory> {
        let layout = Layout::from_size_align(size.max(1), ALIGN).map_err(|_| OutOfMemory)?;
        // SAFETY: `layout` has a non-zero size.
        let p = unsafe { alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return Err(OutOfMemory);
        }
        self.blocks.push((p as usize, layout));
        if let Some(recorded) = &self.recorded {
            recorded.borrow_mut().insert(p as usize, layout.size());
        }
        Ok(p as usize)
    }

    /// Writes the header word of a headered object.
    fn write_header(obj: usize, type_id: u32) {
        // SAFETY: `obj` is a fresh 16-aligned block of at least 8 bytes
        // (callers check the object size first).
        unsafe { (obj as *mut u64).write(u64::from(type_id)) }
    }

    /// How many blocks are live (for tests of allocation counts).
    pub fn allocated_blocks(&self) -> usize {
        self.blocks.len()
    }
}

impl Allocator for MallocAllocator {
    fn new_object(
        &mut self,
        layout: &SizeDescr,
        _roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        let obj = self.block(layout.size as usize)?;
        if !layout.headerless && layout.size >= 8 {
            Self::write_header(obj, layout.type_id);
        }
        Ok(obj)
    }

    fn new_array(
        &mut self,
        array: &ArrayDescr,
        length: usize,
        _roots: &mut [usize],
    ) -> Result<usize, OutOfMemory> {
        let items = length
            .checked_mul(array.item_size as usize)
            .and_then(|n| n.checked_add(array.base_offset as usize))
            .ok_or(OutOfMemory)?;
        let size = items.max(array.len_offset as usize + 8);
        let obj = self.block(size)?;
        if array.len_offset >= 8 {
            Self::write_header(obj, array.type_id);
        }
        // SAFETY: the block holds at least `len_offset + 8` bytes; the
        // length word is 8-aligned whenever `len_offset` is.
        unsafe { ((obj + array.len_offset as usize) as *mut u64).write_unaligned(length as u64) };
        Ok(obj)
    }

    fn malloc_nursery(&mut self, size: usize, _roots: &mut [usize]) -> Result<usize, OutOfMemory> {
        self.block(size)
    }
}

impl Drop for MallocAllocator {
    fn drop(&mut self) {
        for &(p, layout) in &self.blocks {
            // SAFETY: every block was allocated by `block` with this layout
            // and is freed exactly once, here.
            unsafe { alloc::dealloc(p as *mut u8, layout) }
        }
    }
}
