//! The emission core every architecture shares.
//!
//! - [`buffer`]: the emitter state ([`Asm`]: assembler, pool, labels,
//!   stubs, inline exits, flags) and assembling it into an `Assembled`.
//! - [`plan`]: the arch-neutral decisions (supported ops, nursery region
//!   and slow path, `guard_class` type ids, registers a slow path saves).
//! - [`dispatch`]: the one `match OpCode` ([`dispatch::family`]) and the
//!   [`arch::Emitter`](crate::arch::Emitter) implementation for every
//!   [`Encoder`]: moves, jumps, exits, guard logic and the GC sequences
//!   in terms of the encoder methods below.
//!
//! An architecture (`x86_64/`, `aarch64/`) is its register file and an
//! [`Encoder`]: one method per op family, each emitting that family's
//! instructions. Adding an op is one arm in `dispatch::family` plus, when
//! it forms a new family, one `Encoder` method per architecture.

pub mod buffer;
pub mod dispatch;
pub mod plan;
#[cfg(test)]
pub(crate) mod rows;

pub use buffer::{Asm, Flags, PoolSource, Stub};
pub use dispatch::{Access, CmpOp, FloatOp, IntOp, OvfOp, ShiftOp, UnaryOp};

use crate::arch::{Bank, Loc, OpCx, Reg, RegFile};
use dynasmrt::DynamicLabel;
use majit_gc::JitGcInfo;
use majit_ir::Kind;
use majit_metainterp::callasm::CallShape;
use majit_metainterp::CompileError;

/// What emitting an op returns.
pub type Emitted = Result<(), CompileError>;

/// Where a nursery bump allocates and where it branches.
#[derive(Copy, Clone, Debug)]
pub struct Bump {
    /// Addresses of the region's free and top words.
    pub free: usize,
    pub top: usize,
    /// The slow path, and the end of the whole sequence.
    pub slow: DynamicLabel,
    pub done: DynamicLabel,
}

/// A condition code of the machine's flags.
pub trait CondCode: Copy + Eq + std::fmt::Debug {
    /// The condition that holds exactly when `self` does not.
    fn negate(self) -> Self;
    /// "Not equal" (after a compare): where `guard_value` exits.
    const NE: Self;
}

/// What an architecture encodes: moves and the arithmetic families (in
/// `<arch>/emit.rs`), with memory access, calls, the GC sequences and the
/// guard and exit sequences (the supertraits, one per `<arch>/` file).
/// The shared code ([`dispatch`]) decides what to emit; these methods emit
/// it. Every method only reads its argument locations before it writes its
/// result (see `arch.rs`).
pub trait Encoder: MemoryEncoder + CallEncoder + DirectEncoder + GcEncoder + GuardEncoder {
    /// The byte that pads code up to the pool.
    const PAD: u8;
    /// A reserved register the shared sequences load an operand into
    /// (the size of an allocation, the object of a write barrier).
    const SCRATCH: Reg;
    /// The register file.
    const REGS: &'static RegFile;

    // -- moves --

    /// Integer register `dst` := the value at `from` (flags unchanged).
    fn load_int(&mut self, dst: Reg, from: Loc);
    /// Float register `dst` := the value at `from` (flags unchanged).
    fn load_float(&mut self, dst: Reg, from: Loc);
    /// Spill slot `n` := the value at `from` (flags unchanged).
    fn store_slot(&mut self, n: u32, from: Loc, kind: Kind);
    /// Frame header word `word` := the value at `from` (flags unchanged).
    fn store_frame_word(&mut self, word: usize, from: Loc);
    /// The register a parallel move breaks cycles of `bank` through.
    fn cycle_temp(bank: Bank) -> Reg;

    // -- per op family --

    fn int_op(&mut self, op: IntOp, dst: Reg, a: Loc, b: Loc);
    /// An overflow-checked op; returns the condition meaning "overflowed".
    fn ovf_op(&mut self, op: OvfOp, dst: Reg, a: Loc, b: Loc) -> Self::Cond;
    /// `int_floordiv` (`is_mod` false) or `int_mod`, or with `signed`
    /// false `uint_floordiv`/`uint_mod`, with the defined results for a
    /// zero divisor and `MIN / -1`.
    fn div_mod(&mut self, is_mod: bool, signed: bool, dst: Reg, a: Loc, b: Loc);
    fn shift(&mut self, op: ShiftOp, dst: Reg, a: Loc, count: Loc);
    /// A comparison into `dst` (0/1); returns the condition the flags
    /// then hold for a following guard, if they do.
    fn compare(&mut self, op: CmpOp, dst: Reg, a: Loc, b: Loc) -> Option<Self::Cond>;
    fn float_op(&mut self, op: FloatOp, dst: Reg, a: Loc, b: Loc);
    fn unary(&mut self, op: UnaryOp, dst: Reg, a: Loc);
    /// `nursery_ptr_increment(base, offset)`.
    fn ptr_add(&mut self, dst: Reg, base: Loc, off: Loc);
}

/// Loads and stores (`<arch>/memory.rs`).
pub trait MemoryEncoder {
    fn load(&mut self, cx: &OpCx, access: Access, dst: Reg) -> Emitted;
    fn store(&mut self, cx: &OpCx, access: Access) -> Emitted;
}

/// Calls to foreign code (`<arch>/call.rs`).
pub trait CallEncoder {
    /// A call to foreign code (arguments, result, signals).
    fn call(&mut self, cx: &OpCx, dst: Reg) -> Emitted;
}

/// The steps of a direct call, a `call_assembler_*` entering its callee's
/// code without leaving machine code (`<arch>/direct.rs`; the sequence is
/// `dispatch::call_assembler`, the runtime side `framepool.rs` and
/// `majit_metainterp::callasm`).
pub trait DirectEncoder {
    /// Checks, before anything changes, that the callee can be entered:
    /// its frame array has the length the call target `cell` needs (with
    /// `shape.array`), the cell names code, the pool has a free jitframe;
    /// branches to `slow` if not. Keeps the frame and the code address.
    fn direct_checks(&mut self, cx: &OpCx, cell: usize, shape: &CallShape, slow: DynamicLabel);
    /// Stores the reds (the last `shape.reds` arguments) into the
    /// frame's input slots.
    fn direct_inputs(&mut self, cx: &OpCx, shape: &CallShape);
    /// Takes the frame off the pool (counted as in flight and entered),
    /// links it into the GC's frame list, points this frame's `GCMAP` at
    /// the site's map, calls the entry trampoline, unlinks the frame.
    /// Whether the map was set.
    fn direct_enter(&mut self, cx: &OpCx) -> bool;
    /// Branches to `left` unless the callee returned (`RETURNED`); else
    /// keeps its result and gives the frame back to the pool.
    fn direct_returned(&mut self, left: DynamicLabel);
    /// The callee left otherwise: `portal::leave_direct(frame)` finishes
    /// it (taking the frame back), then its signals are taken.
    fn direct_left(&mut self);
    /// The run is over (no longer in flight, `GCMAP` cleared when
    /// `rooted`): the result into `dst`.
    fn direct_end(&mut self, cx: &OpCx, dst: Reg, rooted: bool);
}

/// The pieces of the GC sequences (`<arch>/nursery.rs`; the sequences
/// themselves are in `dispatch.rs`).
pub trait GcEncoder {
    /// The nursery bump for an allocation whose size is in `SCRATCH`:
    /// `dst` := the object, or a branch to `at.slow` (size still in
    /// `SCRATCH`); ends with a branch to `at.done`.
    fn nursery_bump(&mut self, cx: &OpCx, dst: Reg, at: Bump) -> Emitted;
    /// The card test of the object in `SCRATCH`: a branch to `done` when
    /// no barrier is needed.
    fn card_test(&mut self, cx: &OpCx, gc: &JitGcInfo, done: DynamicLabel) -> Emitted;
    /// A branch to `done` when the byte at address `flag` is zero.
    fn flag_test(&mut self, flag: usize, done: DynamicLabel);
    /// Register `r`'s save slot := `r`.
    fn save_reg(&mut self, r: Reg);
    /// `r` := its save slot.
    fn reload_reg(&mut self, r: Reg);
    /// The frame's `GCMAP` word := the address of `map`.
    fn set_gcmap(&mut self, map: DynamicLabel);
    /// Calls the function in pool word `func` with the heap in pool word
    /// `heap` as first argument (the others are loaded).
    fn call_gc(&mut self, heap: DynamicLabel, func: DynamicLabel);
    /// Clears `GCMAP` and branches to `oom` when the call returned 0.
    fn after_gc_point(&mut self, oom: DynamicLabel);
}

/// Guards, jumps and exits (`<arch>/guard.rs`).
pub trait GuardEncoder {
    /// The machine's condition codes.
    type Cond: CondCode;

    /// Branches to `l` when `cond` holds.
    fn branch(&mut self, cond: Self::Cond, l: DynamicLabel);
    /// Branches to `stub` unless the int at `loc` is (non)zero as
    /// `want_true` says.
    fn guard_truth(&mut self, loc: Loc, want_true: bool, stub: DynamicLabel);
    /// Compares `a` and `b` (of `kind`) bit for bit: afterwards the
    /// condition `NE` holds when they differ.
    fn value_cmp(&mut self, kind: Kind, a: Loc, b: Loc);
    /// Branches to `stub` unless the type id in `p`'s header is one of
    /// `ids` (or, with `nonnull`, when `p` is null).
    fn guard_class(&mut self, p: Loc, nonnull: bool, ids: &[u32], stub: DynamicLabel);
    /// Branches to `stub` when frame word `word` is nonzero.
    fn guard_frame_word(&mut self, word: usize, stub: DynamicLabel);
    /// Branches to `stub` when the word at the address in `base` is
    /// nonzero (`guard_not_invalidated`'s validity word).
    fn guard_word_at(&mut self, base: Reg, stub: DynamicLabel);
    /// Branches to `stub` unless a catchable exception is pending: the
    /// frame's `EXCEPTION` tag is below `Raised::INT` (none, or a panic).
    fn guard_exception(&mut self, stub: DynamicLabel);
    /// Branches to this trace's label `l`.
    fn jump_label(&mut self, l: DynamicLabel);
    /// Branches to the address in pool word `word`.
    fn jump_word(&mut self, word: DynamicLabel);
    /// The frame's `EXIT` word := the address of `token` (the exit
    /// token).
    fn store_exit_token(&mut self, token: DynamicLabel);
    /// `save_exception_*`: `dst = frame[EXC_VALUE]`, `frame[EXCEPTION] =
    /// 0` (the exception is taken).
    fn take_exception(&mut self, dst: Reg);
}
