//! Roots: the shadow stack, root scopes and registered JIT frames.
//!
//! The interpreter keeps every reference it holds across an allocation in
//! the shadow stack (push / get / set / truncate by index). A
//! [`RootScope`] is just a remembered depth: `enter_scope` returns it and
//! `leave_scope` truncates back to it, with no closure and no guard object
//! borrowing the heap. Resume code rebuilding virtuals uses the same
//! mechanism: each rebuilt object is pushed, read back by index after
//! every allocation (it may have moved), and the scope is left at the end.
//!
//! JIT code reports the references in its frames through
//! [`JitFrameRoots`]: a frame base and a gcmap (word 0 = number of bitmap
//! words `n`, words 1..=n = the bitmap; bit `i` set means the 8-byte slot at
//! `base + 8*i` holds a reference or null). The collector rewrites those
//! slots when it moves objects. A frame descriptor is either pushed for as
//! long as the frame lives (and its `gcmap` field updated before each
//! collection point), or passed to an allocation slow path for that call.

/// A reference into the GC heap; 0 is null.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(transparent)]
pub struct GcRef(pub usize);

impl GcRef {
    /// The null reference.
    pub const NULL: GcRef = GcRef(0);
    pub fn is_null(self) -> bool {
        self.0 == 0
    }
    /// The object's address (the address of its header if it has one).
    pub fn addr(self) -> usize {
        self.0
    }
}

/// A shadow-stack depth to return to; see [`crate::Gc::enter_scope`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RootScope {
    depth: usize,
}

impl RootScope {
    pub(crate) fn new(depth: usize) -> RootScope {
        RootScope { depth }
    }
    /// The shadow-stack depth at entry.
    pub fn depth(self) -> usize {
        self.depth
    }
    /// The absolute shadow-stack index of the `k`-th root pushed inside
    /// this scope.
    pub fn index(self, k: usize) -> usize {
        self.depth + k
    }
}

/// Where a JIT frame keeps references. `#[repr(C)]`: JIT code writes it.
#[repr(C)]
#[derive(Debug)]
pub struct JitFrameRoots {
    /// Slot 0 of the frame.
    pub base: *mut usize,
    /// The gcmap of the current collection point, or null for "no refs".
    pub gcmap: *const u64,
}

/// The root set besides the remembered set.
#[derive(Default)]
pub(crate) struct Roots {
    pub shadow: Vec<GcRef>,
    pub frames: Vec<*mut JitFrameRoots>,
}

impl Roots {
    /// Calls `visit` with a pointer to every root slot.
    pub fn for_each_slot(&mut self, mut visit: impl FnMut(*mut usize)) {
        for r in self.shadow.iter_mut() {
            visit(&mut r.0);
        }
        for &frame in &self.frames {
            // SAFETY: a pushed frame descriptor stays valid until popped
            // (the contract of `push_jit_frame`).
            unsafe { visit_frame(frame, &mut visit) };
        }
    }
}

/// Calls `visit` with every slot of `frame` that its gcmap marks.
///
/// # Safety
/// `frame` is valid; its gcmap (if not null) is a well-formed gcmap whose
/// marked slots lie inside the frame.
pub(crate) unsafe fn visit_frame(frame: *const JitFrameRoots, visit: &mut impl FnMut(*mut usize)) {
    let frame = &*frame;
    if frame.gcmap.is_null() {
        return;
    }
    let words = *frame.gcmap as usize;
    for w in 0..words {
        let mut bits = *frame.gcmap.add(1 + w);
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            visit(frame.base.add(w * 64 + b));
        }
    }
}
