//! What the arch-neutral core needs to know about a machine, as data, and
//! the trait each architecture's emitter implements.
//!
//! The allocator, the checker and the exit protocol see registers only as
//! indices into a [`RegFile`]: a table of every register of both banks, with
//! its name, bank, whether the allocator may hand it out and whether calls
//! clobber it. Reserved registers (frame pointer, stack pointer, scratch
//! registers of inline sequences) are in the table but never allocatable, so
//! a location naming one is a checkable error rather than an unrepresentable
//! value.
//!
//! Invariants every architecture keeps:
//! - `RegFile::regs[i]` has save slot `i` in the jitframe (see `frame.rs`);
//!   the shared exit routine stores every allocatable register there.
//! - Scratch registers appear in no `alloc_order` and no clobber list: they
//!   never hold a value across an op boundary.
//! - Every op's emitted code only reads its argument locations before it
//!   writes its result or any register in its clobber set, and it is correct
//!   when the result register equals any argument register.

use crate::guard::ExitRecord;
use majit_ir::{Const, Kind, Op, OpCode};
use majit_metainterp::CompileError;

/// A register: an index into [`RegFile::regs`].
pub type Reg = u8;

/// Where a value lives at one point of the compiled code.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// A machine register (index into the [`RegFile`]).
    Reg(Reg),
    /// Spill slot `n` of the jitframe.
    Slot(u32),
    /// A constant, materialised by the code that reads it.
    Const(Const),
}

impl Loc {
    /// The register, if this is one.
    pub fn reg(self) -> Option<Reg> {
        match self {
            Loc::Reg(r) => Some(r),
            _ => None,
        }
    }
}

/// A register bank. Refs live in the integer bank.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Bank {
    Int,
    Float,
}

impl Bank {
    /// The bank values of `kind` live in.
    pub fn of(kind: Kind) -> Bank {
        match kind {
            Kind::Int | Kind::Ref => Bank::Int,
            Kind::Float => Bank::Float,
        }
    }
}

/// One register of the machine.
#[derive(Copy, Clone, Debug)]
pub struct RegInfo {
    /// Assembly name, for errors and logs.
    pub name: &'static str,
    pub bank: Bank,
    /// The hardware encoding number.
    pub hw: u8,
    /// The allocator may hand it out.
    pub allocatable: bool,
    /// Calls to foreign code may overwrite it.
    pub caller_saved: bool,
}

/// The register file, calling convention and reserved registers of an
/// architecture, as data (the allocator never sees assembler types).
#[derive(Debug)]
pub struct RegFile {
    /// Every register of both banks; the index is the [`Reg`].
    pub regs: &'static [RegInfo],
    /// Allocatable registers in preference order (caller-saved first).
    pub alloc_order: &'static [Reg],
    /// Integer argument registers of the C calling convention, in order.
    pub int_args: &'static [Reg],
    /// Float argument registers of the C calling convention, in order.
    pub float_args: &'static [Reg],
    /// Where a C function returns an int or pointer.
    pub int_result: Reg,
    /// Where a C function returns a double.
    pub float_result: Reg,
    /// Allocatable registers a C call overwrites.
    pub call_clobbers: &'static [Reg],
}

impl RegFile {
    /// The description of register `r`.
    pub fn info(&self, r: Reg) -> &RegInfo {
        &self.regs[r as usize]
    }
    /// Whether `r` names a register the allocator may use.
    pub fn is_allocatable(&self, r: Reg) -> bool {
        self.regs.get(r as usize).is_some_and(|i| i.allocatable)
    }
    /// The name of `r`, or `"r?"` when out of range.
    pub fn name(&self, r: Reg) -> &'static str {
        self.regs.get(r as usize).map_or("r?", |i| i.name)
    }
    /// The hardware number of `r`, as dynasm's dynamic register operands
    /// take it.
    pub fn hw(&self, r: Reg) -> u8 {
        self.regs[r as usize].hw
    }
    /// Whether `r` is a float register.
    pub fn is_float(&self, r: Reg) -> bool {
        self.regs[r as usize].bank == Bank::Float
    }
    /// Registers the exit routine saves (every allocatable one).
    pub fn saved(&self) -> impl Iterator<Item = Reg> + '_ {
        (0..self.regs.len() as Reg).filter(|&r| self.regs[r as usize].allocatable)
    }
    /// Checks the invariants of the module docs: registers are numbered
    /// by bank, `bank_size` each, in hardware order; `reserved` are the
    /// registers that must never be allocated nor clobbered by calls.
    #[cfg(test)]
    pub(crate) fn assert_consistent(&self, bank_size: usize, reserved: &[Reg]) {
        for (i, info) in self.regs.iter().enumerate() {
            assert_eq!(info.hw as usize, i % bank_size, "{}", info.name);
            assert_eq!(info.bank == Bank::Float, i >= bank_size, "{}", info.name);
        }
        let mut order = self.alloc_order.to_vec();
        order.sort_unstable();
        order.dedup();
        assert_eq!(order.len(), self.alloc_order.len(), "allocation order");
        assert!(order.iter().all(|&r| self.is_allocatable(r)));
        assert_eq!(self.saved().count(), self.alloc_order.len());
        for &r in reserved {
            assert!(!self.is_allocatable(r), "{}", self.name(r));
            assert!(!self.call_clobbers.contains(&r), "{}", self.name(r));
        }
        for &r in self.call_clobbers {
            assert!(self.info(r).caller_saved && self.is_allocatable(r));
        }
        let clobbered = self.saved().filter(|&r| self.info(r).caller_saved);
        assert_eq!(clobbered.count(), self.call_clobbers.len());
    }
}

/// Per-op demands an architecture makes on the allocator.
#[derive(Clone, Debug, Default)]
pub struct OpConstraints {
    /// Non-constant arguments must be in registers (else any location).
    pub args_in_regs: bool,
    /// Registers whose contents the op destroys (values living past the op
    /// must leave them first).
    pub clobbers: &'static [Reg],
}

/// Where a `jump` goes and where its target expects each argument.
#[derive(Clone, Debug)]
pub struct JumpTarget {
    /// `None`: a label of the trace being compiled, by its label op index.
    /// `Some(addr)`: the absolute address of another trace's label.
    pub external: Option<usize>,
    pub label_op: usize,
    pub locs: Vec<Loc>,
}

/// The machine code of one trace before it is placed in executable memory.
#[derive(Clone, Debug, Default)]
pub struct Assembled {
    /// Instruction bytes (position-independent: everything outside the
    /// trace is reached through the pool).
    pub code: Vec<u8>,
    /// Pool words appended after the code (8-byte aligned).
    pub pool: Vec<PoolWord>,
    /// Offset of each label op (by op index) in `code`.
    pub labels: Vec<(usize, usize)>,
    /// The exits, in exit-number order.
    pub exits: Vec<ExitRecord>,
}

/// One 8-byte word of a trace's constant pool.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PoolWord {
    /// An absolute address outside the trace.
    Abs(usize),
    /// The absolute address of `code[offset]` (filled in at placement).
    Own(usize),
}

/// An arch's shared runtime code and the offsets of its routines in it.
#[derive(Debug)]
pub struct Runtime {
    pub code: Vec<u8>,
    /// The entry trampoline, `extern "C" fn(frame, code) -> frame`: saves
    /// the callee-saved registers, puts `frame` in the frame register and
    /// jumps to `code`.
    pub entry: usize,
    /// The exit routine: stores every allocatable register in its save
    /// slot (a guard's fail args may be in any), then falls into `leave`.
    pub exit: usize,
    /// Restores the entry's callee-saved registers and returns the frame
    /// to the entry's caller; a `finish` jumps here after saving just the
    /// registers its values are in.
    pub leave: usize,
}

/// Backend-wide facts an emitter may need besides the trace.
#[derive(Clone, Debug, Default)]
pub struct EmitEnv {
    /// Address of the shared exit routine.
    pub exit_routine: usize,
    /// Address of the exit routine's second half, which saves no
    /// registers ([`Runtime::leave`]).
    pub leave_routine: usize,
    /// `(class word, type id)` of every layout the backend knows: the
    /// vtable for layouts that have one, the type id itself otherwise
    /// (what `guard_class` compares, see refexec's docs).
    pub classes: Vec<(u64, u32)>,
    /// The GC's JIT contract, when allocation ops are supported.
    pub gc: Option<majit_gc::JitGcInfo>,
    /// What a `call_assembler_*` needs to enter its callee directly.
    pub direct: DirectEnv,
}

/// Backend-wide facts for direct calls (`call_assembler_*` entering the
/// callee's code without leaving machine code; see `framepool.rs`).
#[derive(Clone, Debug, Default)]
pub struct DirectEnv {
    /// The call targets the driver registered, by token: the address of
    /// the target's `CallCell` and the calls' shape. A call naming
    /// another token goes through its runner.
    pub targets: std::collections::BTreeMap<i64, (usize, majit_metainterp::callasm::CallShape)>,
    /// The address of the jitframe pool's `PoolWords`.
    pub pool: usize,
    /// The entry trampoline (frame, code) -> frame.
    pub entry: usize,
    /// `majit_metainterp::portal::leave_direct`.
    pub leave: usize,
}

/// What the driver hands the emitter for one op.
#[derive(Debug)]
pub struct OpCx<'a> {
    pub index: usize,
    pub op: &'a Op,
    pub args: &'a [Loc],
    /// The kind of each argument.
    pub kinds: &'a [Kind],
    pub result: Option<Loc>,
    /// Ops that may collect: every location holding a value that lives
    /// past the op, with its kind (refs there are GC roots).
    pub live: &'a [(Loc, Kind)],
    /// The result is read only by the next op, a `guard_true`/`guard_false`
    /// that branches on the flags: a comparison need not write its 0/1.
    pub flags_only: bool,
}

/// An architecture's code emitter. The driver (`driver.rs`) walks the
/// scheduled, allocated trace and calls these in order; the emitter owns
/// the instruction encodings, the guard stubs and the pool.
pub trait Emitter {
    /// Emits one move between locations of one bank (`to` is never a
    /// constant). Must not change the condition flags.
    fn emit_move(&mut self, from: Loc, to: Loc, kind: Kind) -> Result<(), CompileError>;
    /// Emits an op that is not a guard, label, jump or finish.
    fn emit_op(&mut self, cx: &OpCx) -> Result<(), CompileError>;
    /// Emits a guard's test and a branch to its cold exit stub. `exit`
    /// describes the exit (its number is `exit.number`).
    fn emit_guard(&mut self, cx: &OpCx, exit: ExitRecord) -> Result<(), CompileError>;
    /// Marks the position of a label.
    fn emit_label(&mut self, op_index: usize) -> Result<(), CompileError>;
    /// Emits a `jump`: a parallel move of `args` into `target.locs`, then
    /// the branch.
    fn emit_jump(&mut self, args: &[(Loc, Kind)], target: &JumpTarget) -> Result<(), CompileError>;
    /// Emits a `finish`: an unconditional exit.
    fn emit_finish(&mut self, exit: ExitRecord) -> Result<(), CompileError>;
    /// Appends the cold stubs and pool and returns the result.
    fn finish(self: Box<Self>) -> Result<Assembled, CompileError>;
}

/// An architecture: its register description, per-op constraints and an
/// emitter factory.
pub trait Arch {
    /// `"x86_64"`, `"aarch64"`.
    const NAME: &'static str;
    /// The register file, ABI and reserved registers.
    fn regs() -> &'static RegFile;
    /// What the allocator must respect for `op`.
    fn constraints(op: &Op) -> OpConstraints;
    /// Whether the emitters handle `opcode` (others are `Unsupported`):
    /// the same for every architecture, see [`crate::emit::plan::supports`].
    fn supports(opcode: OpCode, has_gc: bool) -> bool {
        crate::emit::plan::supports(opcode, has_gc)
    }
    /// A fresh emitter for one trace. `exit_routine` is the address of the
    /// shared exit routine (from [`Arch::runtime`]).
    fn emitter(exit_routine: usize) -> Box<dyn Emitter> {
        Self::emitter_with(&EmitEnv {
            exit_routine,
            ..EmitEnv::default()
        })
    }
    /// A fresh emitter that also sees the backend's class map and GC
    /// contract (needed by `guard_class` and the allocation ops).
    fn emitter_with(env: &EmitEnv) -> Box<dyn Emitter>;
    /// The shared runtime code (see [`Runtime`]).
    fn runtime() -> Result<Runtime, CompileError>;
    /// Calls the entry trampoline at `entry` with `frame` and `code`.
    ///
    /// # Safety
    /// `entry` must be this arch's entry routine in executable memory,
    /// `code` compiled code of this backend, and `frame` a jitframe large
    /// enough for every trace that code may reach.
    unsafe fn enter(entry: usize, frame: *mut u64, code: usize) -> *mut u64;
}
