//! # boxed: a stack language on linked-list GC nodes
//!
//! The operand stack is a singly linked list of `Node { value, next }`,
//! a GC struct declared in `#[jit_interp]` (a headerless 16-byte layout):
//! every push, and every arithmetic result, allocates a node. The JIT's
//! optimizer can keep nodes that never escape a loop iteration virtual,
//! which is what this example exercises. [`assemble`] turns text into
//! code pairs `(op, arg)`; [`run`] is the plain interpreter (its
//! `#[jit_interp]` also generates `run_jit` and `run_jitcode`).
//!
//! Text: one instruction per word (`push 5`, `add`, `jnz loop`), `name:`
//! defines a label, `#` starts a comment.
//!
//! ```
//! let prog = boxed::assemble("push 2 push 3 add print halt").unwrap();
//! assert_eq!(boxed::execute(&prog, None).unwrap().0, vec![5]);
//! ```

use majit::ir::Trace;
use majit::prelude::*;
use std::cell::RefCell;
use std::fmt;

/// The instructions: name, opcode, whether it takes an argument.
const OPS: &[(&str, i64, bool)] = &[
    ("halt", HALT, false),
    ("push", PUSH, true),
    ("pop", POP, false),
    ("dup", DUP, false),
    ("swap", SWAP, false),
    ("over", OVER, false),
    ("rot", ROT, false),
    ("add", ADD, false),
    ("sub", SUB, false),
    ("mul", MUL, false),
    ("print", PRINT, false),
    ("jnz", JNZ, true),
    ("jmp", JMP, true),
];

pub const HALT: i64 = 0;
pub const PUSH: i64 = 1;
pub const POP: i64 = 2;
pub const DUP: i64 = 3;
pub const SWAP: i64 = 4;
pub const OVER: i64 = 5;
pub const ADD: i64 = 6;
pub const SUB: i64 = 7;
pub const MUL: i64 = 8;
pub const PRINT: i64 = 9;
/// Pops; jumps when the value is not zero (the user program's back edge).
pub const JNZ: i64 = 10;
pub const JMP: i64 = 11;
/// `a b c -- b c a` (the third item comes to the top).
pub const ROT: i64 = 12;

/// What [`run`] returns when the program pops an empty stack.
pub const UNDERFLOW: i64 = i64::MIN;

/// Assembled code: instruction `i` is `code[2i]`, `code[2i+1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub code: Vec<i64>,
}

/// Text that does not assemble: the word and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub word: String,
    pub message: &'static str,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.word, self.message)
    }
}

impl std::error::Error for AsmError {}

/// Assembles program text (see the crate docs).
pub fn assemble(text: &str) -> Result<Program, AsmError> {
    let words: Vec<&str> = text
        .lines()
        .flat_map(|l| l.split('#').next().unwrap_or("").split_whitespace())
        .collect();
    let error = |word: &str, message| AsmError {
        word: word.to_string(),
        message,
    };
    // Pass 1: label addresses.
    let (mut labels, mut at, mut i) = (Vec::new(), 0i64, 0);
    while i < words.len() {
        let w = words[i];
        if let Some(name) = w.strip_suffix(':') {
            labels.push((name, at));
        } else {
            let (_, _, arg) = OPS
                .iter()
                .find(|o| o.0 == w)
                .ok_or(error(w, "unknown instruction"))?;
            i += usize::from(*arg);
            at += 2;
        }
        i += 1;
    }
    // Pass 2: code.
    let mut code = Vec::new();
    let mut words = words.into_iter();
    while let Some(w) = words.next() {
        if w.ends_with(':') {
            continue;
        }
        let &(_, op, has_arg) = OPS.iter().find(|o| o.0 == w).expect("checked in pass 1");
        let arg = if !has_arg {
            0
        } else {
            let a = words.next().ok_or(error(w, "missing argument"))?;
            match labels.iter().find(|l| l.0 == a) {
                Some(&(_, addr)) if op == JNZ || op == JMP => addr,
                _ if op == JNZ || op == JMP => return Err(error(a, "unknown label")),
                _ => a.parse().map_err(|_| error(a, "expected an integer"))?,
            }
        };
        code.extend([op, arg]);
    }
    code.extend([HALT, 0]);
    Ok(Program { code })
}

thread_local! {
    static OUT: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}

/// Residual helper: records a printed value.
fn emit(x: i64) {
    OUT.with(|o| o.borrow_mut().push(x));
}

/// The interpreter: returns the top of the stack at `halt` (0 when
/// empty), or [`UNDERFLOW`].
#[jit_interp(
    greens = [pc, code],
    reds = [stack, depth],
    structs = [Node { value: i64, next: Node }],
    helpers = [residual fn emit(x: i64)]
)]
pub fn run(code: &[i64]) -> i64 {
    let mut pc: usize = 0;
    let mut stack: Node = Node::null();
    let mut depth: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        let arg = code[pc + 1];
        pc += 2;
        let need = match op {
            POP | DUP | PRINT | JNZ => 1,
            SWAP | OVER | ADD | SUB | MUL => 2,
            ROT => 3,
            _ => 0,
        };
        if depth < need {
            return UNDERFLOW;
        }
        match op {
            PUSH => {
                stack = Node::new(arg, stack);
                depth += 1;
            }
            POP => {
                stack = stack.next();
                depth -= 1;
            }
            DUP => {
                stack = Node::new(stack.value(), stack);
                depth += 1;
            }
            SWAP => {
                let b = stack;
                let a = b.next();
                stack = Node::new(a.value(), Node::new(b.value(), a.next()));
            }
            ROT => {
                let c = stack;
                let b = c.next();
                let a = b.next();
                stack = Node::new(
                    a.value(),
                    Node::new(c.value(), Node::new(b.value(), a.next())),
                );
            }
            OVER => {
                stack = Node::new(stack.next().value(), stack);
                depth += 1;
            }
            ADD | SUB | MUL => {
                let b = stack.value();
                let rest = stack.next();
                let a = rest.value();
                let v = match op {
                    ADD => a.wrapping_add(b),
                    SUB => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                };
                stack = Node::new(v, rest.next());
                depth -= 1;
            }
            PRINT => {
                emit(stack.value());
                stack = stack.next();
                depth -= 1;
            }
            JNZ => {
                let v = stack.value();
                stack = stack.next();
                depth -= 1;
                if v != 0 {
                    pc = arg as usize;
                    can_enter_jit!();
                    continue;
                }
            }
            JMP => {
                pc = arg as usize;
                can_enter_jit!();
                continue;
            }
            _ => {
                if depth == 0 {
                    return 0;
                }
                return stack.value();
            }
        }
    }
}

/// Which backend compiles the JIT's traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// The metainterp's reference executor (an interpreter of traces).
    RefExec,
    /// `majit-backend-dynasm`'s native backend (x86_64 and aarch64).
    Native,
}

/// Runs `prog`: with `params` through the JIT on RefExec, else plain.
/// Returns the printed values, the result and (JIT) the stats.
pub fn execute(
    prog: &Program,
    params: Option<JitParams>,
) -> Result<(Vec<i64>, i64, Option<Stats>), JitError> {
    execute_on(prog, params, BackendChoice::RefExec)
}

/// [`execute`] on a chosen backend.
pub fn execute_on(
    prog: &Program,
    params: Option<JitParams>,
    backend: BackendChoice,
) -> Result<(Vec<i64>, i64, Option<Stats>), JitError> {
    OUT.with(|o| o.borrow_mut().clear());
    let (result, stats) = match (params, backend) {
        (None, _) => (run(&prog.code), None),
        (Some(p), BackendChoice::RefExec) => with_jit::<RefExec>(prog, p)?,
        (Some(p), BackendChoice::Native) => native(prog, p)?,
    };
    let out = OUT.with(|o| std::mem::take(&mut *o.borrow_mut()));
    Ok((out, result, stats))
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn native(prog: &Program, params: JitParams) -> Result<(i64, Option<Stats>), JitError> {
    with_jit::<HostBackend>(prog, params)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn native(_: &Program, _: JitParams) -> Result<(i64, Option<Stats>), JitError> {
    Err(JitError::BadState(
        "the native backend supports x86_64 and aarch64 only".into(),
    ))
}

/// The loops the JIT compiles for `prog` (after the optimizer), on
/// RefExec.
pub fn compiled_loops(prog: &Program, params: JitParams) -> Result<Vec<Trace>, JitError> {
    let mut driver = run_driver::<RefExec>(params)?;
    OUT.with(|o| o.borrow_mut().clear());
    run_jit(&mut driver, &prog.code)?;
    Ok(driver.loops().iter().map(|l| l.trace.clone()).collect())
}

/// Runs `prog` with the JIT on backend `B`; every part of it allocates
/// on the thread heap, where the plain interpreter's nodes live.
fn with_jit<B: GcBackend>(
    prog: &Program,
    params: JitParams,
) -> Result<(i64, Option<Stats>), JitError> {
    let mut driver = run_driver::<B>(params)?;
    let r = run_jit(&mut driver, &prog.code)?;
    Ok((r, Some(driver.stats().clone())))
}
