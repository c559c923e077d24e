//! The backend contract: what the metainterp asks of a code generator.
//!
//! A backend compiles traces (loops and bridges), runs compiled loops with
//! input values, and reports how they left: through a guard that failed or
//! a `finish`, with the exit's values in a [`DeadFrame`].
//!
//! Two implementations exist: the reference executor ([`crate::refexec`]),
//! which interprets traces and is the oracle of every test, and the native
//! backends of `majit-backend-dynasm`.
//!
//! ## What a caller guarantees
//! - Every trace passed in verifies (`majit_ir::verify`).
//! - Loops: the trace starts at its inputs; a `jump` targets a `label` of
//!   the same trace or of an earlier compiled trace, named by its
//!   `TargetDescr`. Target names are unique within one backend.
//! - Bridges: `compile_bridge(guard, t)` gets a trace whose inputs have the
//!   kinds of that guard's fail args, in order. It ends in a `finish` or a
//!   `jump` to a known label.
//! - Memory ops only touch memory that is valid for the access; divisions
//!   follow the defined semantics below; calls name `extern "C"` functions
//!   whose signature matches the `CallDescr`.
//!
//! ## Defined semantics every backend implements
//! - Integer ops wrap (two's complement, 64 bits). Shift counts are taken
//!   modulo 64.
//! - `int_floordiv(x, 0) == 0`, `int_mod(x, 0) == x`,
//!   `int_floordiv(i64::MIN, -1) == i64::MIN`, `int_mod(i64::MIN, -1) == 0`;
//!   otherwise division truncates toward zero and `int_mod` has the sign of
//!   the dividend (C semantics; what aarch64's `sdiv`/`msub` compute).
//! - `cast_float_to_int` truncates toward zero and saturates; NaN gives 0
//!   (Rust's `as`).
//! - `int_*_ovf` sets the overflow condition that the immediately following
//!   `guard_no_overflow`/`guard_overflow` tests; on overflow the result is
//!   the wrapped value.
//! - After a call that may raise (`Op::may_raise`), what the helper raised
//!   (`runtime::Raised`) replaces the pending exception (none raised keeps
//!   it). `guard_no_exception` fails while one is pending,
//!   `guard_exception` unless a catchable one (not a panic) is;
//!   `save_exception_i`/`_r` (right after `guard_exception`) gives its value
//!   and clears it. It stays pending into a bridge; an exit hands it out in
//!   [`DeadFrame::exception`].

use crate::runtime::Raised;
use crate::strategy::Strategies;
use majit_ir::{Descr, Trace, Value};
use std::fmt;

/// Identifies one compiled trace (loop or bridge) of a backend.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CodeId(pub u32);

/// Identifies one exit of compiled code: a guard or `finish` op, by the
/// trace it belongs to and its index in that trace's ops.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExitId {
    pub code: CodeId,
    pub op_index: u32,
}

/// How compiled code returned: which exit, its descr, the values of its
/// fail args (guards) or arguments (`finish`), in order, and the exception
/// left pending (raised by a helper and not taken by `save_exception_*`;
/// a failed `guard_no_exception` leaves one).
///
/// Refs in `values` and `exception` are GC roots only while the caller
/// keeps them rooted: a caller that may allocate before it has copied them
/// out must put them in a root scope first.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadFrame {
    pub exit: ExitId,
    /// The exit op's descr (a `FailDescr` for guards, if it had one).
    pub descr: Option<Descr>,
    pub values: Vec<Value>,
    pub exception: Option<Raised>,
}

/// How a run through [`Backend::call_in`] ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Exited {
    /// It left through a `finish` the caller named a return: that
    /// finish's first value, if any.
    Returned(Option<Value>),
    /// Any other exit.
    Left(DeadFrame),
}

impl DeadFrame {
    /// Value number `i` as an int. Panics when it is not one: a caller
    /// reading a dead frame against its own resume data knows the kinds.
    pub fn int(&self, i: usize) -> i64 {
        self.values[i]
            .as_int()
            .expect("dead-frame value is not an int")
    }
    /// Value number `i` as a ref (address, 0 for null).
    pub fn reference(&self, i: usize) -> usize {
        self.values[i]
            .as_ref()
            .expect("dead-frame value is not a ref")
    }
    /// Value number `i` as a float.
    pub fn float(&self, i: usize) -> f64 {
        self.values[i]
            .as_float()
            .expect("dead-frame value is not a float")
    }
}

/// Why a trace could not be compiled. Compilation failures are never
/// fatal: the metainterp keeps interpreting that loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The trace does not verify (a bug in whoever produced it).
    Invalid(String),
    /// The backend does not handle this op (majit's developers act).
    Unsupported { op: String },
    /// A size limit of the backend (nobody acts: it is a limit).
    ImplLimit(String),
    /// The register allocation checker rejected the allocation.
    Regalloc(String),
    /// A user strategy made an illegal choice or panicked.
    Strategy {
        op: String,
        decision: String,
        reason: String,
    },
    /// Code memory could not be mapped or protected.
    CodeMemory(String),
    /// `compile_bridge` named a guard this backend does not know, or a jump
    /// named an unknown label.
    UnknownTarget(String),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Invalid(m) => write!(f, "invalid trace: {m}"),
            CompileError::Unsupported { op } => write!(f, "unsupported op: {op}"),
            CompileError::ImplLimit(m) => write!(f, "implementation limit: {m}"),
            CompileError::Regalloc(m) => write!(f, "register allocation check failed: {m}"),
            CompileError::Strategy {
                op,
                decision,
                reason,
            } => write!(f, "illegal strategy decision at {op}: {decision}: {reason}"),
            CompileError::CodeMemory(m) => write!(f, "code memory: {m}"),
            CompileError::UnknownTarget(m) => write!(f, "unknown target: {m}"),
        }
    }
}

impl std::error::Error for CompileError {}

/// Why running compiled code failed in a way the backend could detect.
/// The reference executor detects these; native code may crash instead,
/// which is why traces must not do these things.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// The inputs do not match the trace's input kinds.
    BadInputs(String),
    /// A load or store through a null pointer.
    NullPointer { op_index: usize },
    /// An allocation failed (the GC reported out of memory).
    OutOfMemory { op_index: usize },
    /// The executor's step limit was reached (an endless loop in a test).
    StepLimit,
    /// The code id is unknown or was freed.
    UnknownCode(CodeId),
    /// A helper called by running code tried to run code of the same
    /// backend, which cannot be re-entered (see [`Backend::execute_in`]).
    Busy,
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::BadInputs(m) => write!(f, "bad inputs: {m}"),
            ExecError::NullPointer { op_index } => {
                write!(f, "null pointer access at op {op_index}")
            }
            ExecError::OutOfMemory { op_index } => write!(f, "out of memory at op {op_index}"),
            ExecError::StepLimit => write!(f, "step limit reached"),
            ExecError::UnknownCode(c) => write!(f, "unknown code id {}", c.0),
            ExecError::Busy => f.write_str("the backend is running code and cannot be re-entered"),
        }
    }
}

impl std::error::Error for ExecError {}

/// A code generator for traces.
pub trait Backend {
    /// A short name for logs and stats (`"refexec"`, `"x86_64"`, `"aarch64"`).
    fn name(&self) -> &'static str;

    /// Compiles a loop (or any trace that starts at its inputs).
    fn compile_loop(&mut self, trace: &Trace) -> Result<CodeId, CompileError>;

    /// Compiles `bridge` and attaches it to the guard `guard`: from now on
    /// a failure of that guard runs the bridge instead of exiting.
    fn compile_bridge(&mut self, guard: ExitId, bridge: &Trace) -> Result<CodeId, CompileError>;

    /// Runs the loop `code` from its start with `inputs` until an exit.
    fn execute(&mut self, code: CodeId, inputs: &[Value]) -> Result<DeadFrame, ExecError>;

    /// Runs the loop `code` as [`Backend::execute`] does, for a driver that
    /// may be re-entered while the code runs: a helper the code calls (the
    /// interpreter running a call of the interpreted program) may compile
    /// and run code of this backend through `cell` meanwhile. An
    /// implementation holds no borrow of `cell` while compiled code runs,
    /// and never frees or moves code that is running. The default holds a
    /// borrow for the whole run, so a re-entrant use fails with
    /// [`ExecError::Busy`] (or, for a compilation, the driver's
    /// `CompileFailed` abort); `RefExec` and the native backends override
    /// it.
    fn execute_in(
        cell: &std::cell::RefCell<Self>,
        code: CodeId,
        inputs: &[Value],
    ) -> Result<DeadFrame, ExecError>
    where
        Self: Sized,
    {
        let mut backend = cell.try_borrow_mut().map_err(|_| ExecError::Busy)?;
        backend.execute(code, inputs)
    }

    /// [`Backend::execute_in`] for a call of the interpreted program
    /// (`call_assembler`'s fast path): a run leaving through a `finish`
    /// whose fail descr `returns` (a portal return) gives just that
    /// finish's value, so the backend need not build a dead frame. The
    /// default builds one and looks at it.
    fn call_in(
        cell: &std::cell::RefCell<Self>,
        code: CodeId,
        inputs: &[Value],
    ) -> Result<Exited, ExecError>
    where
        Self: Sized,
    {
        let df = Self::execute_in(cell, code, inputs)?;
        match df.descr.as_ref().and_then(|d| d.as_fail()) {
            Some(f) if f.returns => Ok(Exited::Returned(df.values.first().copied())),
            _ => Ok(Exited::Left(df)),
        }
    }

    /// Compiled code of this backend may enter the call target named
    /// `token` in `call_assembler_*` directly: `cell` is the address of
    /// its [`CallCell`](crate::callasm::CallCell), which lives as long as
    /// the backend; when the cell names code, the call runs the callee
    /// there on a jitframe of its own, and leaves through the driver
    /// ([`crate::portal::leave_direct`]) when the callee exits other than
    /// by a portal return. Default: ignored (every call goes through the
    /// runner).
    fn call_target(&mut self, _token: i64, _cell: usize, _shape: &crate::callasm::CallShape) {}

    /// The address compiled code enters loop `code` at directly (see
    /// [`Backend::call_target`]), if it can. Default: none.
    fn entry_address(&self, _code: CodeId) -> Option<usize> {
        None
    }

    /// Calls compiled code entered directly: how many so far, and whether
    /// one runs right now (code must not be freed then).
    fn direct_calls(&self) -> (u64, bool) {
        (0, false)
    }

    /// A direct call (see [`Backend::call_target`]) left the callee's code
    /// on the jitframe at `frame` other than by a portal return: its exit.
    /// The frame goes back to the backend.
    fn leave_call(cell: &std::cell::RefCell<Self>, frame: usize) -> Result<DeadFrame, ExecError>
    where
        Self: Sized,
    {
        let _ = (cell, frame);
        Err(ExecError::BadInputs(
            "this backend makes no direct calls".into(),
        ))
    }

    /// Frees the code of `code` and of the bridges attached to it. Running
    /// it afterwards is an error. Freeing a bridge also detaches it: its
    /// guard exits again.
    fn free(&mut self, code: CodeId);

    /// The bytes of memory the code of `code` takes (that trace alone, not
    /// its bridges), counted against `JitParams::max_code`. Default: the
    /// length of [`Backend::code_range`], 0 for a backend without machine
    /// code.
    fn code_size(&self, code: CodeId) -> usize {
        self.code_range(code).map_or(0, |r| r.len())
    }

    /// The address range the machine code of `code` occupies (for perf
    /// maps). `None` (the default): the backend has no machine code.
    fn code_range(&self, _code: CodeId) -> Option<std::ops::Range<usize>> {
        None
    }

    /// The machine code of `code` with its disassembly, for logs. `names`
    /// names the values the caller knows to be addresses (trace constants):
    /// the listing prints those, and the backend's own addresses, as
    /// `<name>` so that it does not depend on where things were mapped.
    /// `None` (the default): the backend has no machine code.
    fn machine_code(
        &self,
        _code: CodeId,
        _names: &dyn Fn(u64) -> Option<String>,
    ) -> Option<MachineCode> {
        None
    }

    /// Makes later compilations use `strategies` (the driver calls this
    /// once, when it is built). A backend that makes no scheduling or
    /// allocation decisions accepts only [`Strategies::is_native`].
    fn set_strategies(&mut self, strategies: &Strategies) -> Result<(), CompileError> {
        if strategies.is_native() {
            return Ok(());
        }
        Err(CompileError::Unsupported {
            op: format!(
                "user strategies: the {} backend has no scheduler or register allocator",
                self.name()
            ),
        })
    }
}

/// The machine code of one compiled trace, as [`Backend::machine_code`]
/// reports it. Offsets count from the first code byte; absolute addresses
/// appear only as names (`<exit_routine>`, `<Loop0>`, `<code+0x40>`, or the
/// caller's names), so two runs of one program give equal listings.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineCode {
    /// `"x86_64"` or `"aarch64"`.
    pub arch: &'static str,
    /// Where the code starts (not printed in logs: it varies by run).
    pub base: usize,
    /// Instruction bytes, without the pool.
    pub code: Vec<u8>,
    /// The disassembly of `code`, one entry per instruction.
    pub listing: Vec<Insn>,
    /// The constant pool after the code.
    pub pool: Vec<PoolEntry>,
}

/// One decoded instruction of a [`MachineCode`] listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Offset from the first code byte.
    pub offset: usize,
    /// The bytes in hex, `..` for a byte of a masked address.
    pub hex: String,
    /// The instruction text; addresses as `<name>`.
    pub text: String,
}

/// One word of a trace's constant pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolEntry {
    /// Offset of the word from the first code byte.
    pub offset: usize,
    /// What it holds: `<name>` for an address, the value for data.
    pub meaning: String,
}
