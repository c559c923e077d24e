//! # bf: a Brainfuck interpreter with a JIT from `#[jit_interp]`
//!
//! The source is compiled to pairs `(op, arg)` ([`compile`]): runs of
//! `+`/`-` and `<`/`>` become one `ADD`/`MOVE` with a count, brackets
//! carry the index of their partner. [`run`] is the plain interpreter
//! over that code and a byte tape; `#[jit_interp]` also generates
//! `run_jit` (the same interpreter driving a `JitDriver`) and
//! `run_jitcode` (its jitcode). Greens: the code, the bracket targets and
//! `pc`; reds: the tape and the head. `]` jumping back is the user
//! program's back edge, where `can_enter_jit!()` sits.
//!
//! I/O goes through two residual helpers over a thread-local buffer, so
//! the JIT and the plain interpreter produce observable output the same
//! way.
//!
//! ```
//! let prog = bf::compile("++++++++[>++++++++<-]>+.").unwrap();
//! assert_eq!(bf::execute(&prog, b"", None).unwrap().0, b"A");
//! ```

use majit::prelude::*;
use std::cell::RefCell;
use std::fmt;

/// `tape[head] += arg` (mod 256).
pub const ADD: i64 = 0;
/// `head += arg`.
pub const MOVE: i64 = 1;
/// Print `tape[head]`.
pub const OUT: i64 = 2;
/// Read a byte into `tape[head]` (0 at end of input).
pub const IN: i64 = 3;
/// `[`: jump past the partner when `tape[head] == 0`.
pub const JZ: i64 = 4;
/// `]`: jump back after the partner when `tape[head] != 0`.
pub const JNZ: i64 = 5;
/// End of program.
pub const HALT: i64 = 6;

/// Tape length in cells.
pub const TAPE: usize = 30_000;

/// A compiled program: instruction `i` is `code[2i]` (op), `code[2i+1]`
/// (arg); `pc` counts in slots, so it advances by 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub code: Vec<i64>,
}

/// A source that does not compile: unmatched bracket at byte `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub at: usize,
    pub message: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.at, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Compiles Brainfuck source (non-command bytes are comments).
pub fn compile(src: &str) -> Result<Program, ParseError> {
    let mut code: Vec<i64> = Vec::new();
    let mut open: Vec<(usize, usize)> = Vec::new();
    for (at, c) in src.bytes().enumerate() {
        let (op, arg) = match c {
            b'+' => (ADD, 1),
            b'-' => (ADD, -1),
            b'>' => (MOVE, 1),
            b'<' => (MOVE, -1),
            b'.' => (OUT, 0),
            b',' => (IN, 0),
            b'[' => (JZ, 0),
            b']' => (JNZ, 0),
            _ => continue,
        };
        let n = code.len();
        if (op == ADD || op == MOVE) && n >= 2 && code[n - 2] == op {
            code[n - 1] += arg;
            continue;
        }
        match op {
            JZ => open.push((n, at)),
            JNZ => {
                let (partner, _) = open.pop().ok_or(ParseError {
                    at,
                    message: "`]` without `[`",
                })?;
                code[partner + 1] = n as i64;
                code.extend([JNZ, partner as i64]);
                continue;
            }
            _ => {}
        }
        code.extend([op, arg]);
    }
    if let Some(&(_, at)) = open.last() {
        return Err(ParseError {
            at,
            message: "`[` without `]`",
        });
    }
    code.extend([HALT, 0]);
    Ok(Program { code })
}

thread_local! {
    static IO: RefCell<(Vec<u8>, usize, Vec<u8>)> = const { RefCell::new((Vec::new(), 0, Vec::new())) };
}

/// Residual helper: appends a byte to the output.
fn put(c: u8) {
    IO.with(|io| io.borrow_mut().2.push(c));
}

/// Residual helper: the next input byte, 0 at the end.
fn get() -> u8 {
    IO.with(|io| {
        let mut io = io.borrow_mut();
        let (input, at, _) = &mut *io;
        let c = input.get(*at).copied().unwrap_or(0);
        *at += 1;
        c
    })
}

/// The interpreter: runs `code` on `tape` from head 0; returns the final
/// head position.
#[jit_interp(
    greens = [pc, code],
    reds = [head, tape],
    helpers = [residual fn put(c: u8), residual fn get() -> u8]
)]
pub fn run(code: &[i64], tape: &mut [u8]) -> usize {
    let mut pc: usize = 0;
    let mut head: usize = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        let arg = code[pc + 1];
        match op {
            ADD => tape[head] = tape[head].wrapping_add(arg as u8),
            MOVE => head = (head as i64).wrapping_add(arg) as usize,
            OUT => put(tape[head]),
            IN => tape[head] = get(),
            JZ => {
                if tape[head] == 0 {
                    pc = arg as usize;
                }
            }
            JNZ => {
                if tape[head] != 0 {
                    pc = arg as usize + 2;
                    can_enter_jit!();
                    continue;
                }
            }
            _ => return head,
        }
        pc += 2;
    }
}

/// Which backend compiles the JIT's traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// The metainterp's reference executor (an interpreter of traces).
    RefExec,
    /// `majit-backend-dynasm`'s native backend for this machine (x86_64 or
    /// aarch64).
    Native,
}

/// Runs `prog` on `input`; with `params` through the JIT (on `backend`),
/// else the plain interpreter. Returns the output and, with the JIT, its
/// stats.
pub fn execute(
    prog: &Program,
    input: &[u8],
    params: Option<JitParams>,
) -> Result<(Vec<u8>, Option<Stats>), JitError> {
    execute_on(prog, input, params, BackendChoice::RefExec)
}

/// [`execute`] on a chosen backend.
pub fn execute_on(
    prog: &Program,
    input: &[u8],
    params: Option<JitParams>,
    backend: BackendChoice,
) -> Result<(Vec<u8>, Option<Stats>), JitError> {
    IO.with(|io| *io.borrow_mut() = (input.to_vec(), 0, Vec::new()));
    let mut tape = vec![0u8; TAPE];
    let stats = match params {
        None => {
            run(&prog.code, &mut tape);
            None
        }
        Some(params) => Some(match backend {
            BackendChoice::RefExec => with_jit::<RefExec>(prog, &mut tape, params)?,
            BackendChoice::Native => with_jit::<HostBackend>(prog, &mut tape, params)?,
        }),
    };
    let out = IO.with(|io| std::mem::take(&mut io.borrow_mut().2));
    Ok((out, stats))
}

/// Runs `prog` with the JIT on backend `B`, built by `run_driver` (the
/// one-liner every `#[jit_interp]` interpreter gets).
fn with_jit<B: GcBackend>(
    prog: &Program,
    tape: &mut [u8],
    params: JitParams,
) -> Result<Stats, JitError> {
    let mut driver = run_driver::<B>(params)?;
    run_jit(&mut driver, &prog.code, tape)?;
    Ok(driver.stats().clone())
}

fn driver_for<B: Backend>(backend: B, params: JitParams) -> Result<JitDriver<B>, JitError> {
    let (codes, portal) =
        run_jitcode().map_err(|e| JitError::BadState(format!("bf jitcode: {e}")))?;
    JitDriver::new(codes, portal, backend, params)
}

/// Runs `prog` on `input` through a JIT compiling with `backend`; returns
/// the output and the driver (its stats, loops and backend).
pub fn execute_with<B: Backend>(
    prog: &Program,
    input: &[u8],
    backend: B,
    params: JitParams,
) -> Result<(Vec<u8>, JitDriver<B>), JitError> {
    IO.with(|io| *io.borrow_mut() = (input.to_vec(), 0, Vec::new()));
    let mut tape = vec![0u8; TAPE];
    let mut driver = driver_for(backend, params)?;
    run_jit(&mut driver, &prog.code, &mut tape)?;
    let out = IO.with(|io| std::mem::take(&mut io.borrow_mut().2));
    Ok((out, driver))
}
