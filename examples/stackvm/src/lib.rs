//! # stackvm: a textbook stack VM with calls
//!
//! A small language the way a textbook writes its interpreter: every call
//! of a function gets a frame (a GC struct with the operand stack and the
//! locals) and runs by calling the interpreter function itself; values are
//! objects (integers, floats, points); a function returns a status, and
//! an exception raised deep in the calls unwinds to the nearest handler.
//! One `#[jit_interp]` makes it a tracing JIT: the frame is virtualizable,
//! small callees are inlined into the traces of their callers' loops,
//! recursive calls run the callee's compiled code (function-entry traces)
//! through the portal runner. See `asm.rs` for the text format and
//! `vm.rs` for the interpreter.
//!
//! ```
//! let prog = stackvm::assemble("
//!     func main 0
//!         push 2
//!         pushf 0.5
//!         mul
//!         print
//!         push 0
//!         ret
//!     end
//! ").unwrap();
//! let run = stackvm::execute(&prog, stackvm::Engine::Plain, None).unwrap();
//! assert_eq!(run.output, "1.0\n");
//! ```

pub mod asm;
pub mod vm;

pub use asm::{assemble, AsmError, Program};
use majit::gc::thread_heap;
use majit::prelude::*;
use std::fmt;
use vm::{Frame, Int};

/// The native stack the VM runs on: room for [`vm::MAX_DEPTH`] nested
/// calls with the JIT (each a few kilobytes of Rust frames, more in debug
/// builds), so the VM's own "stack overflow" comes first.
pub const STACK_BYTES: usize = 4 << 30;

/// How a program ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// `main` returned this value.
    Returned(String),
    /// An exception no handler caught.
    Uncaught(String),
    /// Calls nested deeper than [`vm::MAX_DEPTH`].
    StackOverflow,
    /// An operation on values of the wrong type.
    TypeError,
    /// `mod` by zero.
    ZeroDivision,
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Returned(v) => write!(f, "returned {v}"),
            Ending::Uncaught(v) => write!(f, "uncaught exception {v}"),
            Ending::StackOverflow => f.write_str("stack overflow"),
            Ending::TypeError => f.write_str("type error"),
            Ending::ZeroDivision => f.write_str("mod by zero"),
        }
    }
}

/// Where the program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The interpreter alone.
    Plain,
    /// With the JIT, parameters from the `MAJIT_*` environment (and the
    /// threshold, if given), compiling to machine code (`native`) or for
    /// the reference executor.
    Jit {
        native: bool,
        threshold: Option<u32>,
    },
}

/// What a run produced: the printed lines, how it ended, and the JIT's
/// stats with its summary.
#[derive(Clone, Debug)]
pub struct Run {
    pub output: String,
    pub ending: Ending,
    pub stats: Option<(Stats, String)>,
}

/// Runs `prog` on a new thread with a [`STACK_BYTES`] stack (and its own
/// GC heap, from the `MAJIT_*` environment), `main` with `arg` when it
/// takes an argument (else the program's default); a JIT failure, or an
/// argument `main` does not take, is the error.
pub fn execute(prog: &Program, engine: Engine, arg: Option<i64>) -> Result<Run, String> {
    let arg = match (prog.main_arg, arg) {
        (None, None) => None,
        (Some(default), arg) => Some(
            arg.or(default)
                .ok_or("`main` takes an argument and the program has no `arg` line")?,
        ),
        (None, Some(_)) => return Err("`main` takes no argument".into()),
    };
    let prog = prog.clone();
    std::thread::Builder::new()
        .name("stackvm".into())
        .stack_size(STACK_BYTES)
        .spawn(move || execute_here(&prog, engine, arg))
        .map_err(|e| format!("cannot start the VM thread: {e}"))?
        .join()
        .map_err(|_| "the VM thread panicked".to_string())?
}

/// [`execute`] on this thread.
fn execute_here(prog: &Program, engine: Engine, arg: Option<i64>) -> Result<Run, String> {
    let mut stack = Array::<Obj>::new(prog.main_size);
    if let Some(n) = arg {
        stack[0] = Obj::from(Int::new(n));
    }
    let frame = Frame::new(0, 0, 0, -1, Obj::null(), stack);
    // The run's collections may move `main`'s frame, which this function
    // holds to read the result: it is rooted meanwhile.
    let heap = thread_heap::RunHeap::current().map_err(|e| e.to_string())?;
    let mut roots = [frame.to_raw()];
    let rooted = heap.root(&roots);
    let (status, stats) = match engine {
        Engine::Plain => (vm::run(&prog.code, prog.main, frame), None),
        Engine::Jit { native, threshold } => {
            let mut params = JitParams::from_env().map_err(|e| e.to_string())?;
            if let Some(t) = threshold {
                params = params.with_threshold(t);
            }
            match native {
                true => jit::<HostBackend>(prog, params, frame)?,
                false => jit::<RefExec>(prog, params, frame)?,
            }
        }
    };
    rooted.release(&mut roots);
    let frame = Frame::from_raw(roots[0]);
    let output = vm::take_output();
    let result = vm::describe(frame.result());
    let ending = match status {
        vm::OK => Ending::Returned(result),
        vm::RAISED => Ending::Uncaught(result),
        vm::OVERFLOW => Ending::StackOverflow,
        vm::ZERO_DIVISION => Ending::ZeroDivision,
        _ => Ending::TypeError,
    };
    Ok(Run {
        output,
        ending,
        stats,
    })
}

/// The status of a JIT run, and the stats.
type JitRun = (i64, Option<(Stats, String)>);

fn jit<B: GcBackend>(prog: &Program, params: JitParams, frame: Frame) -> Result<JitRun, String> {
    let mut driver = vm::run_driver::<B>(params).map_err(|e| e.to_string())?;
    let status = vm::run_jit(&mut driver, &prog.code, prog.main, frame);
    let status = status.map_err(|e| e.to_string())?;
    let stats = (driver.stats(), driver.summary());
    Ok((status, Some(stats)))
}
