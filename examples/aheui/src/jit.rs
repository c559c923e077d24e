//! The interpreter: one function, [`run`], that is at once the plain
//! interpreter (`--no-jit`) and, through `#[jit_interp]`, the tracing
//! JIT's description of Aheui ([`run_jit`], [`run_jitcode`]).
//!
//! State: greens are the state index (cell and incoming momentum, see
//! `code.rs`) and the selected storage, plus the code tables; reds are the
//! 28 storage heads (`[Node; 28]`: 16-byte headerless `{value, next}`
//! nodes), the queue's tail and the channel's remembered value. Because
//! the selected storage is a green, every storage access folds to one
//! head in a trace, and a node pushed and popped in the same iteration is
//! never allocated. The storage rules (LANGUAGE.md §6): a stack pushes and
//! pops at its head; the queue ㅇ pops at its head and pushes after its
//! tail (ㅃ puts the copy in front of the head); the channel ㅎ is a
//! stack whose ㅃ pushes the value last pushed to it by ㅂ, ㅆ or ㅃ.
//!
//! Node values are `i64`; [`BIG`] marks a value kept exactly in the
//! session (`session.rs`), whose residual helpers also do the I/O. The
//! back edges of the Aheui program, where the JIT counts loops, are the
//! transitions a depth-first search of the state graph from the start finds
//! closing a cycle ([`Tables::new`]): every cycle has one, and far fewer
//! transitions call into the JIT than with a rule like "moving up or left".

use crate::code::CodeSpace;
use crate::decode::{Op, CHANNEL, QUEUE};
use crate::engine::Outcome;
use crate::error::{Error, Result};
use crate::int::BIG;
use crate::session::{
    self, big_binary, big_drop, big_dup, big_move, big_swap, channel_recall, channel_remember,
    exit_status, failed, floor_div, floor_mod, print_char, print_number, read_char, read_number,
    FAILED, STALLED,
};
use majit::prelude::*;
use std::io::{BufRead, Write};

/// `closes[state]` bits: taking `go` / `back` closes a cycle.
const CLOSES_GO: u8 = 1;
const CLOSES_BACK: u8 = 2;
/// No storage receives a push.
const NO_PUSH: usize = 99;
/// The queue's and the channel's storage indices.
const Q: usize = QUEUE as usize;
const CH: usize = CHANNEL as usize;

/// Runs the program whose tables are `ops`/`args` (per cell) and
/// `go`/`back`/`closes` (per state) from state `start`; returns the exit
/// status, [`STALLED`] or [`FAILED`].
#[jit_interp(
    greens = [state, sel, ops, args, go, back, closes],
    reds = [heads, tail, channel],
    enums = [Op: u8],
    structs = [Node { value: i64, next: Node }],
    helpers = [
        residual fn big_binary(op: i64, s: i64, b: i64, a: i64, state: i64) -> i64,
        elidable fn floor_div(b: i64, a: i64) -> i64,
        elidable fn floor_mod(b: i64, a: i64) -> i64,
        residual fn big_drop(s: i64),
        residual fn big_move(from: i64, to: i64),
        residual fn big_dup(s: i64),
        residual fn big_swap(s: i64),
        residual fn channel_remember(s: i64),
        residual fn channel_recall(s: i64) -> i64,
        residual fn print_number(s: i64, v: i64) -> bool,
        residual fn print_char(s: i64, v: i64) -> bool,
        residual fn read_number(s: i64, state: i64) -> i64,
        residual fn read_char() -> i64,
        residual fn exit_status(s: i64, v: i64) -> i64,
        residual fn failed() -> bool,
    ]
)]
pub fn run(ops: &[Op], args: &[u8], go: &[u32], back: &[u32], closes: &[u8], start: u32) -> i64 {
    let mut state: u32 = start;
    let mut sel: usize = 0;
    let mut heads: [Node; 28] = [Node::null(); 28];
    let mut tail: Node = Node::null();
    let mut channel: i64 = 0;
    loop {
        jit_merge_point!();
        let cell = (state >> 3) as usize;
        let op = ops[cell];
        // The op is skipped or ㅊ popped zero: the momentum reverses.
        let mut reversed = false;
        let mut push_to: usize = NO_PUSH;
        let mut pushed: i64 = 0;
        // ㅂ, ㅆ and ㅃ pushes make the channel remember the value.
        let mut remember = false;
        let head = heads[sel];
        match op {
            Op::Nop => {}
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Mod | Op::Cmp => {
                if head.is_null() || head.next().is_null() {
                    reversed = true;
                } else {
                    let a = head.value();
                    let second = head.next();
                    let b = second.value();
                    let mut r: i64 = BIG;
                    if a != BIG && b != BIG {
                        r = match op {
                            Op::Add => match b.checked_add(a) {
                                Some(v) => v,
                                None => BIG,
                            },
                            Op::Sub => match b.checked_sub(a) {
                                Some(v) => v,
                                None => BIG,
                            },
                            Op::Mul => match b.checked_mul(a) {
                                Some(v) => v,
                                None => BIG,
                            },
                            Op::Div => floor_div(b, a),
                            Op::Mod => floor_mod(b, a),
                            _ => (b >= a) as i64,
                        };
                    }
                    if r == BIG {
                        r = big_binary(op as i64, sel as i64, b, a, state as i64);
                        if failed() {
                            return FAILED;
                        }
                    }
                    if sel == Q {
                        heads[sel] = second.next();
                        push_to = sel;
                        pushed = r;
                    } else {
                        // Pop both, push the result: the second node takes it.
                        second.set_value(r);
                        heads[sel] = second;
                    }
                }
            }
            Op::Pop | Op::PrintNum | Op::PrintChar | Op::Branch | Op::Move => {
                if head.is_null() {
                    reversed = true;
                } else {
                    let v = head.value();
                    heads[sel] = head.next();
                    match op {
                        Op::Pop => {
                            if v == BIG {
                                big_drop(sel as i64);
                            }
                        }
                        Op::PrintNum => {
                            if !print_number(sel as i64, v) {
                                return FAILED;
                            }
                        }
                        Op::PrintChar => {
                            if !print_char(sel as i64, v) {
                                return FAILED;
                            }
                        }
                        Op::Branch => {
                            if v == BIG {
                                big_drop(sel as i64);
                            }
                            if v == 0 {
                                reversed = true;
                            }
                        }
                        _ => {
                            let to = args[cell] as usize;
                            if v == BIG {
                                big_move(sel as i64, to as i64);
                            }
                            push_to = to;
                            pushed = v;
                            remember = true;
                        }
                    }
                }
            }
            Op::PushConst => {
                push_to = sel;
                pushed = args[cell] as i64;
                remember = true;
            }
            Op::ReadNum => {
                push_to = sel;
                pushed = read_number(sel as i64, state as i64);
                remember = true;
                if failed() {
                    return FAILED;
                }
            }
            Op::ReadChar => {
                push_to = sel;
                pushed = read_char();
                remember = true;
                if failed() {
                    return FAILED;
                }
            }
            Op::Dup => {
                if head.is_null() {
                    reversed = true;
                } else if sel == CH {
                    push_to = sel;
                    pushed = channel;
                    if channel == BIG {
                        pushed = channel_recall(sel as i64);
                    }
                    remember = true;
                } else {
                    let v = head.value();
                    if v == BIG {
                        big_dup(sel as i64);
                    }
                    // Stack and queue alike put the copy in front.
                    heads[sel] = Node::new(v, head);
                }
            }
            Op::Swap => {
                if head.is_null() || head.next().is_null() {
                    reversed = true;
                } else {
                    let second = head.next();
                    let a = head.value();
                    let b = second.value();
                    if a == BIG && b == BIG {
                        big_swap(sel as i64);
                    }
                    head.set_value(b);
                    second.set_value(a);
                }
            }
            Op::Select => sel = args[cell] as usize,
            Op::Halt => {
                if head.is_null() {
                    return 0;
                }
                return exit_status(sel as i64, head.value());
            }
            _ => return STALLED,
        }
        if push_to != NO_PUSH {
            if push_to == Q {
                let n = Node::new(pushed, Node::null());
                if heads[Q].is_null() {
                    heads[Q] = n;
                } else {
                    tail.set_next(n);
                }
                tail = n;
            } else {
                heads[push_to] = Node::new(pushed, heads[push_to]);
            }
            if remember && push_to == CH {
                channel = pushed;
                if pushed == BIG {
                    channel_remember(CH as i64);
                }
            }
        }
        let mut cycle = closes[state as usize] & CLOSES_GO;
        let mut next = go[state as usize];
        if reversed {
            cycle = closes[state as usize] & CLOSES_BACK;
            next = back[state as usize];
        }
        state = next;
        if cycle != 0 {
            can_enter_jit!();
            continue;
        }
    }
}

/// The code tables [`run`] reads: per cell its op and argument, per state
/// its two successors.
pub struct Tables {
    ops: Vec<Op>,
    args: Vec<u8>,
    go: Vec<u32>,
    back: Vec<u32>,
    closes: Vec<u8>,
    start: u32,
}

impl Tables {
    /// The tables of a built code space.
    pub fn new(code: &CodeSpace) -> Tables {
        let go: Vec<u32> = code.steps().iter().map(|s| s.go).collect();
        let back: Vec<u32> = code.steps().iter().map(|s| s.back).collect();
        let closes = back_edges(&go, &back, code.start());
        Tables {
            ops: code.cells().iter().map(|c| c.op).collect(),
            args: code.cells().iter().map(|c| c.arg).collect(),
            go,
            back,
            closes,
            start: code.start(),
        }
    }
}

/// The transitions that close a cycle: an iterative depth-first search
/// from `start` marks an edge whose target is still on the search path.
/// Every cycle reachable from `start` contains such an edge.
fn back_edges(go: &[u32], back: &[u32], start: u32) -> Vec<u8> {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut color = vec![NEW; go.len()];
    let mut closes = vec![0u8; go.len()];
    // (state, successors tried so far)
    let mut path: Vec<(u32, u8)> = vec![(start, 0)];
    color[start as usize] = ON_PATH;
    while let Some(top) = path.last_mut() {
        let (s, tried) = (top.0 as usize, top.1);
        if tried == 2 {
            color[s] = DONE;
            path.pop();
            continue;
        }
        top.1 += 1;
        let (target, bit) = match tried {
            0 => (go[s], CLOSES_GO),
            _ => (back[s], CLOSES_BACK),
        };
        match color[target as usize] {
            ON_PATH => closes[s] |= bit,
            NEW => {
                color[target as usize] = ON_PATH;
                path.push((target, 0));
            }
            _ => {}
        }
    }
    closes
}

/// Runs `code` with the JIT on the host's native backend (`params`), or
/// as the plain function [`run`] (`None`), reading `input` and writing
/// `output`; how it ended and the JIT's counters.
pub fn execute(
    code: &CodeSpace,
    input: Box<dyn BufRead>,
    output: Box<dyn Write>,
    params: Option<JitParams>,
) -> Result<(Outcome, Option<Stats>)> {
    let t = Tables::new(code);
    // The nodes' heap, from MAJIT_NURSERY_SIZE, MAJIT_GC_STRESS and
    // MAJIT_MAX_HEAP: a bad setting is reported before the program runs.
    majit::gc::thread_heap::shared().map_err(|e| Error::Env(e.to_string()))?;
    session::start(input, output, code.positions().to_vec());
    let result = match params {
        Some(params) => with_jit(&t, params).map(|(status, stats)| (status, Some(stats))),
        None => Ok((
            run(&t.ops, &t.args, &t.go, &t.back, &t.closes, t.start),
            None,
        )),
    };
    let finished = session::finish();
    let (status, stats) = result?;
    finished?;
    let outcome = match status {
        STALLED => Outcome::Stalled,
        FAILED => return Err(Error::Jit("a helper failed without an error".into())),
        s => Outcome::Halted(s as u8),
    };
    Ok((outcome, stats))
}

/// A JIT failure as the interpreter reports it: an exhausted heap is the
/// program's (exit 70, like the plain interpreter's), a `MAJIT_LOG` file
/// the driver cannot open an I/O error (exit 74), anything else a JIT bug.
fn jit_error(e: JitError) -> Error {
    use majit::metainterp::jitcode::eval::ConcreteError;
    use majit::metainterp::ExecError;
    match e {
        JitError::Log {
            path,
            kind,
            message,
        } => Error::Log {
            path,
            source: std::io::Error::new(kind, message),
        },
        JitError::Exec(ExecError::OutOfMemory { .. })
        | JitError::Concrete(ConcreteError::OutOfMemory)
        | JitError::Gc(_) => Error::Heap(format!("out of memory: {e} (raise MAJIT_MAX_HEAP)")),
        e => Error::Jit(e.to_string()),
    }
}

fn with_jit(t: &Tables, params: JitParams) -> Result<(i64, Stats)> {
    // The tracer, blackhole and compiled code allocate on the thread heap,
    // where the plain code's nodes live (collected at the merge point).
    let mut driver = run_driver::<HostBackend>(params).map_err(jit_error)?;
    let status = run_jit(
        &mut driver,
        &t.ops,
        &t.args,
        &t.go,
        &t.back,
        &t.closes,
        t.start,
    )
    .map_err(jit_error)?;
    Ok((status, driver.stats().clone()))
}
