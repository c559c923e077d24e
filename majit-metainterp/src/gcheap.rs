//! The JIT on a majit-gc heap.
//!
//! An interpreter whose objects live in a majit-gc heap (the structs of
//! `#[jit_interp]` live in the thread heap, `majit_gc::thread_heap`) needs
//! every part of the JIT to allocate there: the tracer and the blackhole
//! (the driver's allocator, a [`GcAllocator`]), and compiled code (a
//! [`GcBackend`]: `RefExec` with a `GcAllocator`, the native backend with
//! the heap's `JitGcInfo`). [`JitDriver::new_gc`] builds such a driver in
//! one call. The interpreter collects at its safepoints through
//! [`JitDriver::safepoint`], passing every reference it holds. In diff
//! mode the heap's collection count is the driver's GC epoch
//! ([`JitDriver::set_diff_gc_epoch`]).

use crate::backend::{Backend, CompileError};
use crate::driver::{JitDriver, JitError};
use crate::jitcode::{FuncId, JitCodeSet};
use crate::params::JitParams;
use crate::refexec::RefExec;
use crate::runtime::GcAllocator;
use majit_gc::Gc;
use std::cell::RefCell;
use std::rc::Rc;

/// A backend whose compiled code can allocate on a majit-gc heap.
pub trait GcBackend: Backend + Sized {
    /// A backend allocating on `gc` (which must outlive it).
    fn on_heap(gc: &Rc<RefCell<Gc>>) -> Result<Self, CompileError>;
}

impl GcBackend for RefExec {
    fn on_heap(gc: &Rc<RefCell<Gc>>) -> Result<RefExec, CompileError> {
        Ok(RefExec::with_allocator(Box::new(GcAllocator::new(
            gc.clone(),
        ))))
    }
}

impl<B: GcBackend> JitDriver<B> {
    /// A driver whose tracer, blackhole and compiled code all allocate on
    /// `gc` (see the module docs).
    ///
    /// ```
    /// use majit_metainterp::driver::JitDriver;
    /// use majit_metainterp::jitcode::{JitCodeBuilder, JitCodeSet};
    /// use majit_metainterp::{params::JitParams, refexec::RefExec};
    /// use majit_ir::Kind;
    /// let mut b = JitCodeBuilder::new("portal");
    /// let n = b.param(Kind::Int);
    /// let head = b.label();
    /// b.bind(head);
    /// b.jit_merge_point(&[], &[n]);
    /// b.goto(head);
    /// let mut codes = JitCodeSet::new();
    /// let portal = codes.add(b.finish().unwrap());
    /// let heap = majit_metainterp::majit_gc::thread_heap::shared().unwrap();
    /// let driver = JitDriver::<RefExec>::new_gc(codes, portal, heap, JitParams::default());
    /// assert!(driver.unwrap().gc_heap().is_some());
    /// ```
    pub fn new_gc(
        codes: JitCodeSet,
        portal: FuncId,
        gc: Rc<RefCell<Gc>>,
        params: JitParams,
    ) -> Result<JitDriver<B>, JitError> {
        let backend = B::on_heap(&gc)
            .map_err(|e| JitError::BadState(format!("building the backend on the heap: {e}")))?;
        let mut driver = JitDriver::new(codes, portal, backend, params)?
            .with_allocator(Box::new(GcAllocator::new(gc.clone())));
        let heap = gc.clone();
        driver.set_diff_gc_epoch(Box::new(move || {
            let stats = heap.borrow().stats();
            stats.minor_collections + stats.major_collections
        }));
        driver.gc = Some(gc);
        Ok(driver)
    }
}

impl<B: Backend> JitDriver<B> {
    /// The heap of a driver built with [`JitDriver::new_gc`].
    pub fn gc_heap(&self) -> Option<&Rc<RefCell<Gc>>> {
        self.gc.as_ref()
    }

    /// Fails unless the driver's heap (of a driver built with
    /// [`JitDriver::new_gc`] on the thread heap) is still the thread's
    /// current heap. The jitcode holds the type ids the heap gave the
    /// interpreter's structs when the driver was made; after
    /// `thread_heap::install` (or `take`) the interpreter's objects live in
    /// another heap, under other ids, so the driver must be made again.
    /// A driver without a heap passes.
    pub fn check_thread_heap(&self) -> Result<(), JitError> {
        let Some(gc) = &self.gc else {
            return Ok(());
        };
        if Rc::ptr_eq(gc, &majit_gc::thread_heap::shared()?) {
            return Ok(());
        }
        Err(JitError::BadState(
            "the thread heap was replaced (`thread_heap::install` or `take`) after this driver \
             was made: its jitcode holds the old heap's type ids; make the driver again after \
             installing the heap"
                .into(),
        ))
    }

    /// A safepoint of the interpreter: when the heap asked for a
    /// collection ([`Gc::collect_requested`]), collects with `roots`
    /// (every reference the interpreter holds) rooted and writes the
    /// moved ones back. Does nothing for a driver without a heap (its
    /// allocator's objects are not traced, so collecting could free
    /// objects only they reference).
    pub fn safepoint(&self, roots: &mut [usize]) -> Result<(), JitError> {
        let Some(gc) = &self.gc else {
            return Ok(());
        };
        let mut gc = gc.borrow_mut();
        if gc.collect_requested() {
            gc.with_roots(roots, |gc| gc.collect_minor())?;
        }
        Ok(())
    }
}
