//! The GC rewrite before native compilation.
//!
//! A backend built with a heap ([`NativeBackend::with_gc`]) lowers every
//! trace it compiles with majit-gc's rewrite pass
//! ([`majit_gc::rewrite::rewrite`]): `new*` become nursery allocations
//! and reference stores get write barriers, which the emitters handle.
//! A trace that already holds lowered GC ops (`call_malloc_nursery*`,
//! `nursery_ptr_increment`, `cond_call_gc_wb*`: the op table's `gc`
//! column says which) was rewritten by its
//! producer and compiles as it is; a trace without them gains nothing
//! from a second rewrite, so the test is exact.
//!
//! Headerless layouts allocate from their region,
//! which the heap creates when the layout is registered there: if a
//! trace names a layout the backend's [`JitGcInfo`] snapshot does not
//! list, the backend re-reads the regions from the live heap first.

use crate::arch::Arch;
use crate::native::NativeBackend;
use majit_gc::rewrite::{rewrite_with_origins, RewriteConfig};
use majit_gc::{JitGcInfo, TypeId};
use majit_ir::{DescrUse, Trace};
use majit_metainterp::CompileError;
use std::borrow::Cow;

/// Whether `trace` already went through the GC rewrite.
fn is_lowered(trace: &Trace) -> bool {
    trace.ops.iter().any(|op| op.opcode.is_gc_lowered())
}

impl<A: Arch> NativeBackend<A> {
    /// `trace` as the emitters need it: rewritten by the GC pass when the
    /// backend has a heap and the trace is not lowered yet, with the
    /// index of the given op each rewritten op stems from (exits are
    /// reported in the numbering of the given trace).
    pub(crate) fn lower_for_gc<'t>(
        &mut self,
        trace: &'t Trace,
    ) -> Result<(Cow<'t, Trace>, Option<Vec<usize>>), CompileError> {
        let Some(gc) = self.env.gc.as_mut() else {
            return Ok((Cow::Borrowed(trace), None));
        };
        check_regions(gc, trace)?;
        if is_lowered(trace) {
            return Ok((Cow::Borrowed(trace), None));
        }
        let config = RewriteConfig::from_jit_info(gc);
        rewrite_with_origins(trace, &config)
            .map(|(out, origins)| (Cow::Owned(out), Some(origins)))
            .map_err(|e| CompileError::Invalid(format!("GC rewrite: {e}")))
    }
}

/// Makes sure `gc` lists the region of every headerless layout `trace`
/// allocates, re-reading the live heap when one is missing.
fn check_regions(gc: &mut JitGcInfo, trace: &Trace) -> Result<(), CompileError> {
    let allocating = trace
        .ops
        .iter()
        .filter(|op| op.opcode.descr_use() == DescrUse::Size);
    let layouts = allocating.filter_map(|op| op.descr.as_ref()?.as_size());
    for layout in layouts.filter(|l| l.headerless) {
        let ty = TypeId(layout.type_id);
        if gc.headerless_region(ty).is_some() {
            continue;
        }
        // SAFETY: `with_gc`'s contract: the heap outlives the backend, and
        // compilation runs while no collection or allocation is under way.
        unsafe { gc.refresh_headerless() };
        if gc.headerless_region(ty).is_none() {
            return Err(CompileError::Invalid(format!(
                "headerless layout `{}` (type id {}) is not registered in the backend's heap",
                layout.name, layout.type_id
            )));
        }
    }
    Ok(())
}

impl<A: Arch> majit_metainterp::gcheap::GcBackend for NativeBackend<A> {
    /// A backend on `gc`'s `JitGcInfo` (see [`NativeBackend::with_gc`]).
    fn on_heap(
        gc: &std::rc::Rc<std::cell::RefCell<majit_gc::Gc>>,
    ) -> Result<NativeBackend<A>, CompileError> {
        NativeBackend::with_gc(gc.borrow().jit_info())
    }
}
