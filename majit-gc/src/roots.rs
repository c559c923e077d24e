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

/// Where a JIT frame keeps references. `#[repr(C)]`: JIT code writes it,
/// and registers a frame itself by linking it into the heap's list of
/// frames through [`JitFrameRoots::prev`] (`JitGcInfo::frames_addr`).
#[repr(C)]
#[derive(Debug)]
pub struct JitFrameRoots {
    /// Slot 0 of the frame.
    pub base: *mut usize,
    /// The gcmap of the current collection point, or null for "no refs".
    pub gcmap: *const u64,
    /// The frame registered before this one (null: none), while this one
    /// is registered.
    pub prev: *mut JitFrameRoots,
}

/// The root set besides the remembered set.
pub(crate) struct Roots {
    pub shadow: Vec<GcRef>,
    /// The innermost registered JIT frame (null: none); the others follow
    /// through `prev`. An intrusive list, so compiled code can push and
    /// pop a frame with a few stores (`call_assembler`).
    pub frames: *mut JitFrameRoots,
}

impl Default for Roots {
    fn default() -> Roots {
        Roots {
            shadow: Vec::new(),
            frames: std::ptr::null_mut(),
        }
    }
}

impl Roots {
    /// Calls `visit` with a pointer to every root slot.
    pub fn for_each_slot(&mut self, mut visit: impl FnMut(*mut usize)) {
        for r in self.shadow.iter_mut() {
            visit(&mut r.0);
        }
        let mut frame = self.frames;
        while !frame.is_null() {
            // SAFETY: a pushed frame descriptor stays valid until popped
            // (the contract of `push_jit_frame`).
            unsafe {
                visit_frame(frame, &mut visit);
                frame = (*frame).prev;
            }
        }
    }

    /// Registers `frame` as the innermost JIT frame.
    ///
    /// # Safety
    /// `frame` is valid and not registered; it stays valid until popped.
    pub unsafe fn push_frame(&mut self, frame: *mut JitFrameRoots) {
        (*frame).prev = self.frames;
        self.frames = frame;
    }

    /// Unregisters the innermost JIT frame (none: nothing happens).
    pub fn pop_frame(&mut self) {
        if !self.frames.is_null() {
            // SAFETY: a registered frame is valid (`push_frame`).
            self.frames = unsafe { (*self.frames).prev };
        }
    }

    /// Runs `f` with `frame` registered (unless null, or already the
    /// innermost frame: a collection point of the frame that runs).
    ///
    /// # Safety
    /// As for [`Roots::push_frame`], for the duration of `f`.
    pub unsafe fn with_frame<T>(
        heap: &mut crate::heap::GcHeap,
        frame: *mut JitFrameRoots,
        f: impl FnOnce(&mut crate::heap::GcHeap) -> T,
    ) -> T {
        let push = !frame.is_null() && heap.roots.frames != frame;
        if push {
            heap.roots.push_frame(frame);
        }
        let result = f(heap);
        if push {
            heap.roots.pop_frame();
        }
        result
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
