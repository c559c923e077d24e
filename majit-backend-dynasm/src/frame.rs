//! The jitframe: the block of memory compiled code runs against.
//!
//! Layout, in 8-byte words from the frame pointer:
//!
//! | word            | contents                                               |
//! |-----------------|--------------------------------------------------------|
//! | 0 `EXIT`        | exit token written by the exit stub (its own address); |
//! |                 | while the frame is free, the next free frame           |
//! | 1 `ROOTS`       | the frame's own address: words 1–3 are majit-gc's      |
//! |                 | `JitFrameRoots { base, gcmap, prev }`                   |
//! | 2 `GCMAP`       | the gcmap of the current collection point, or 0         |
//! | 3 `PREV`        | the frame registered before this one (majit-gc's list) |
//! | 4 `DEPTH`       | number of spill slots this frame holds                  |
//! | 5 `EXCEPTION`   | the pending exception's tag (`Raised::tag`; 0: none)   |
//! | 6 `EXC_VALUE`   | the pending exception's value word                      |
//! | 7 `FORCED`      | 1 when the last call's helper forced the frame          |
//! | 8 `RETURNED`    | 0, or the tag of a portal return's result              |
//! | 9 `RESULT`      | a portal return's result                               |
//! | 10 ..           | one save slot per register of the `RegFile` (by index) |
//! | 10 + R ..       | spill slots; loop inputs are placed in slots 0..n       |
//!
//! Words 5–7 are a `runtime::SignalWords`, which `take_signals` fills
//! after every call that may raise. A pending ref exception is no GC root:
//! the trace takes it (`save_exception_r`, right after its
//! `guard_exception`) before anything can allocate, or exits with it.
//!
//! A gcmap bit `i` names frame word `i` (see `gcmap.rs`).
//!
//! The frame is allocated by [`Frame::new`] on the Rust side (and reused,
//! [`Frame::reset`]), sized for the deepest trace compiled so far plus
//! `FRAME_HEADROOM`, at least `MIN_FRAME_SLOTS` (a bridge may need more
//! slots than its loop; code compiled while frames run, by a nested run of
//! the interpreter, is refused when it needs more than the smallest running
//! frame has, so sizing at entry covers every trace the run can reach: see
//! `native.rs`). The entry trampoline passes its
//! address in the frame register; code addresses slots relative to it.

use crate::arch::{Loc, RegFile};
use majit_ir::{Kind, Value};

/// Word index of the exit token.
pub const EXIT: usize = 0;
/// Word index of the `JitFrameRoots` (its `base` word).
pub const ROOTS: usize = 1;
/// Word index of the gcmap pointer.
pub const GCMAP: usize = 2;
/// Word index of the previously registered frame.
pub const PREV: usize = 3;
/// Word index of the frame depth.
pub const DEPTH: usize = 4;
/// Word index of the pending exception's tag (0: none), set after calls.
pub const EXCEPTION: usize = 5;
/// Word index of the pending exception's value.
pub const EXC_VALUE: usize = 6;
/// Word index of the forced flag of the last call.
pub const FORCED: usize = 7;
/// Word index of the returned tag: a `finish` whose descr `returns`
/// writes it (see [`returned_tag`]); nothing else does.
pub const RETURNED: usize = 8;
/// Word index of a portal return's result.
pub const RESULT: usize = 9;
/// Number of header words.
pub const HEADER: usize = 10;
/// Word index of the next free frame, while a frame is free.
pub const NEXT_FREE: usize = EXIT;

/// The `RETURNED` word of a portal return with a result of `kind` (or
/// none): never 0, so a caller tells a return from any other exit by one
/// load and compare, and reads the result from `RESULT` without looking
/// the exit up.
pub fn returned_tag(kind: Option<Kind>) -> u64 {
    match kind {
        None => 1,
        Some(Kind::Int) => 2,
        Some(Kind::Ref) => 3,
        Some(Kind::Float) => 4,
    }
}

// Words ROOTS..=PREV must be exactly majit-gc's frame descriptor, and
// words EXCEPTION.. the helpers' signal words.
const _: () = {
    use majit_metainterp::runtime::SignalWords;
    assert!(std::mem::offset_of!(majit_gc::JitFrameRoots, base) == 0);
    assert!(std::mem::offset_of!(majit_gc::JitFrameRoots, gcmap) == (GCMAP - ROOTS) * 8);
    assert!(std::mem::offset_of!(majit_gc::JitFrameRoots, prev) == (PREV - ROOTS) * 8);
    assert!(std::mem::offset_of!(SignalWords, value) == (EXC_VALUE - EXCEPTION) * 8);
    assert!(std::mem::offset_of!(SignalWords, forced) == (FORCED - EXCEPTION) * 8);
};
/// The largest number of spill slots a trace may use.
pub const MAX_SLOTS: u32 = 1 << 16;

/// Byte offset of register `r`'s save slot from the frame pointer.
pub fn save_slot_offset(r: u8) -> i32 {
    ((HEADER + r as usize) * 8) as i32
}

/// Byte offset of spill slot `n` from the frame pointer.
pub fn spill_offset(regs: &RegFile, n: u32) -> i32 {
    ((HEADER + regs.regs.len() + n as usize) * 8) as i32
}

/// A jitframe owned by Rust while compiled code runs on it.
#[derive(Debug)]
pub struct Frame {
    words: Box<[u64]>,
    nregs: usize,
}

impl Frame {
    /// A zeroed frame with `depth` spill slots for a register file.
    pub fn new(regs: &RegFile, depth: u32) -> Frame {
        let nregs = regs.regs.len();
        let mut words = vec![0u64; HEADER + nregs + depth as usize].into_boxed_slice();
        words[DEPTH] = depth as u64;
        words[ROOTS] = words.as_ptr() as u64;
        Frame { words, nregs }
    }

    /// The frame as a bare pointer (for a free list; see [`Frame::from_raw`]).
    pub fn into_raw(self) -> *mut u64 {
        Box::into_raw(self.words).cast()
    }

    /// Takes back a frame [`Frame::into_raw`] gave.
    ///
    /// # Safety
    /// `p` came from `into_raw` of a frame for `regs`, its `DEPTH` word is
    /// intact, and nothing else owns it any more.
    pub unsafe fn from_raw(regs: &RegFile, p: *mut u64) -> Frame {
        let nregs = regs.regs.len();
        let len = HEADER + nregs + *p.add(DEPTH) as usize;
        let words = Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, len));
        Frame { words, nregs }
    }

    /// Prepares a frame that ran before to run again: its header as
    /// [`Frame::new`] writes it. Its slots keep stale words, which nothing
    /// reads: compiled code writes a slot before it reads it (the inputs are
    /// written by the caller), and a collection reads only the slots the
    /// gcmap of its call marks, which hold live values there.
    pub fn reset(&mut self) {
        let depth = self.words[DEPTH];
        self.words[..HEADER].fill(0);
        self.words[DEPTH] = depth;
        self.words[ROOTS] = self.words.as_ptr() as u64;
    }

    /// When the run left through a portal return: its result, if any.
    pub fn returned(&self) -> Option<Option<Value>> {
        let kind = match self.words[RETURNED] {
            0 => return None,
            1 => return Some(None),
            2 => Kind::Int,
            3 => Kind::Ref,
            _ => Kind::Float,
        };
        Some(Some(Value::from_bits(kind, self.words[RESULT])))
    }

    /// The number of spill slots.
    pub fn depth(&self) -> u32 {
        self.words[DEPTH] as u32
    }

    /// The frame's `JitFrameRoots`, for registering it with majit-gc.
    pub fn roots_ptr(&mut self) -> *mut majit_gc::JitFrameRoots {
        // SAFETY: ROOTS is inside the header, so the offset stays in bounds.
        unsafe { self.words.as_mut_ptr().add(ROOTS).cast() }
    }

    /// The frame pointer handed to compiled code.
    pub fn as_mut_ptr(&mut self) -> *mut u64 {
        self.words.as_mut_ptr()
    }

    /// Word `i` of the frame.
    pub fn word(&self, i: usize) -> u64 {
        self.words[i]
    }

    /// Writes `v` into spill slot `n`.
    pub fn set_slot(&mut self, n: u32, v: Value) {
        self.words[HEADER + self.nregs + n as usize] = v.to_bits();
    }

    /// Reads the value of kind `kind` at `loc` after an exit: a register
    /// means its save slot.
    pub fn read(&self, loc: Loc, kind: Kind) -> Value {
        let bits = match loc {
            Loc::Reg(r) => self.words[HEADER + r as usize],
            Loc::Slot(n) => self.words[HEADER + self.nregs + n as usize],
            Loc::Const(c) => c.value().to_bits(),
        };
        Value::from_bits(kind, bits)
    }
}
