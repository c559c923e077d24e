//! What the interpreter (`jit.rs`) keeps outside its
//! registers: stdin, stdout, the big integers behind [`BIG`] node values,
//! the channel's remembered big and the first error. It lives in a
//! thread-local [`Session`] that the residual helpers reach; the JIT
//! records each helper as a call, so none of this is traced.
//!
//! Big values: each storage keeps its bigs in a deque in the order of its
//! marked nodes — for a stack the back is the top-most, for the queue the
//! front is the front-most — and every helper that moves a marked node
//! moves its big the same way.
//!
//! Errors: a helper that fails records the error and returns a value the
//! interpreter checks only on that slow path (`failed()`), then stops with
//! [`FAILED`]; the caller takes the error with [`finish`].

use crate::code::Position;
use crate::decode::{Op, QUEUE, STORAGES};
use crate::error::Error;
use crate::int::{slow, ArithError, BinOp, Int, BIG};
use crate::io::{Input, NumberInputError, Output};
use num_bigint::BigInt;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufRead, Write};

/// Most bytes the big values of all storages may hold together; past it
/// a push of a big value fails like an exhausted heap (big values live
/// outside the GC heap, whose own limit is `MAJIT_MAX_HEAP`).
pub const MAX_BIG_BYTES: usize = 1 << 30;

/// What `run` returns when a helper failed (the error is in the session).
pub const FAILED: i64 = -1;
/// What `run` returns when the program stalls.
pub const STALLED: i64 = -2;

/// The state of one run outside the interpreter's registers.
pub struct Session {
    input: Input<Box<dyn BufRead>>,
    output: Output<Box<dyn Write>>,
    bigs: Vec<VecDeque<BigInt>>,
    big_bytes: usize,
    /// The channel's last pushed value when it is big.
    channel_big: BigInt,
    positions: Vec<Position>,
    error: Option<Error>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// Installs a session for the run on this thread.
pub fn start(input: Box<dyn BufRead>, output: Box<dyn Write>, positions: Vec<Position>) {
    let s = Session {
        input: Input::new(input),
        output: Output::new(output),
        bigs: vec![VecDeque::new(); STORAGES],
        big_bytes: 0,
        channel_big: BigInt::default(),
        positions,
        error: None,
    };
    SESSION.with(|c| *c.borrow_mut() = Some(s));
}

/// Ends the session: flushes the output and returns the first error.
pub fn finish() -> Result<(), Error> {
    let s = SESSION.with(|c| c.borrow_mut().take());
    let Some(mut s) = s else {
        return Ok(());
    };
    let flushed = s.output.flush();
    match s.error.take() {
        Some(e) => Err(e),
        None => flushed.map_err(Error::Io),
    }
}

fn with<R>(f: impl FnOnce(&mut Session) -> R) -> R {
    SESSION.with(|c| {
        let mut c = c.borrow_mut();
        f(c.as_mut().expect("the interpreter runs inside a session"))
    })
}

impl Session {
    fn fail(&mut self, e: Error) {
        self.error.get_or_insert(e);
    }

    fn at(&self, state: i64) -> Position {
        let cell = (state >> 3) as usize;
        self.positions
            .get(cell)
            .copied()
            .unwrap_or(Position { row: 0, col: 0 })
    }

    /// The value of a node just popped from `s` (its big if marked).
    fn take(&mut self, s: usize, v: i64) -> Int {
        if v != BIG {
            return Int::Small(v);
        }
        let b = if s == QUEUE as usize {
            self.bigs[s].pop_front()
        } else {
            self.bigs[s].pop_back()
        };
        let b = b.unwrap_or_default();
        self.big_bytes -= big_size(&b).min(self.big_bytes);
        Int::Big(b)
    }

    /// The node value for `value` pushed (at the back of the queue, on top
    /// of a stack) onto `s`.
    fn put(&mut self, s: usize, value: Int) -> i64 {
        match value {
            Int::Small(v) => v,
            Int::Big(b) => {
                self.big_bytes += big_size(&b);
                if self.big_bytes > MAX_BIG_BYTES {
                    self.fail(Error::Heap(format!(
                        "out of memory: big integers in the storages exceed {MAX_BIG_BYTES} bytes"
                    )));
                }
                self.bigs[s].push_back(b);
                BIG
            }
        }
    }
}

fn big_size(b: &BigInt) -> usize {
    (b.bits() as usize).div_ceil(8) + 32
}

/// The binary command `op` (an [`Op`] as its integer) on node values
/// `b`, `a` just popped from storage `s`, exactly; the node value of the
/// result, pushed next onto `s`. ÷0 or a too large result fail.
pub fn big_binary(op: i64, s: i64, b: i64, a: i64, state: i64) -> i64 {
    let op = [
        (Op::Add, BinOp::Add),
        (Op::Sub, BinOp::Sub),
        (Op::Mul, BinOp::Mul),
        (Op::Div, BinOp::Div),
        (Op::Mod, BinOp::Mod),
    ]
    .into_iter()
    .find(|&(o, _)| o as i64 == op)
    .map_or(BinOp::Cmp, |(_, b)| b);
    let s = s as usize;
    with(|x| {
        let a = x.take(s, a);
        let b = x.take(s, b);
        match slow(op, &b, &a) {
            Ok(r) => x.put(s, r),
            Err(e) => {
                let at = x.at(state);
                x.fail(match e {
                    ArithError::DivisionByZero => Error::DivisionByZero { at },
                    ArithError::TooLarge => Error::IntegerTooLarge { at },
                });
                0
            }
        }
    })
}

/// `b ÷ a` floored, or [`BIG`] when the fast path does not apply (a
/// marked operand, a zero divisor, overflow).
pub fn floor_div(b: i64, a: i64) -> i64 {
    crate::int::fast(BinOp::Div, b, a).unwrap_or(BIG)
}

/// `b mod a` floored, or [`BIG`] as [`floor_div`].
pub fn floor_mod(b: i64, a: i64) -> i64 {
    crate::int::fast(BinOp::Mod, b, a).unwrap_or(BIG)
}

/// A marked node was popped from `s` and discarded.
pub fn big_drop(s: i64) {
    with(|x| drop(x.take(s as usize, BIG)));
}

/// A marked node moved from `from` to `to`.
pub fn big_move(from: i64, to: i64) {
    with(|x| {
        let v = x.take(from as usize, BIG);
        x.put(to as usize, v);
    });
}

/// ㅃ copied a marked node of `s` in front of its head.
pub fn big_dup(s: i64) {
    let s = s as usize;
    with(|x| {
        let q = s == QUEUE as usize;
        let copy = if q {
            x.bigs[s].front()
        } else {
            x.bigs[s].back()
        };
        let copy = copy.cloned().unwrap_or_default();
        x.big_bytes += big_size(&copy);
        if q {
            x.bigs[s].push_front(copy);
        } else {
            x.bigs[s].push_back(copy);
        }
    });
}

/// ㅍ exchanged two marked nodes at the head of `s`.
pub fn big_swap(s: i64) {
    let s = s as usize;
    with(|x| {
        let d = &mut x.bigs[s];
        let n = d.len();
        if s == QUEUE as usize {
            d.swap(0, 1);
        } else if n >= 2 {
            d.swap(n - 1, n - 2);
        }
    });
}

/// The channel remembers the marked value just pushed onto it (`s`).
pub fn channel_remember(s: i64) {
    with(|x| x.channel_big = x.bigs[s as usize].back().cloned().unwrap_or_default());
}

/// The channel's remembered big, pushed again onto `s`.
pub fn channel_recall(s: i64) -> i64 {
    with(|x| {
        let b = x.channel_big.clone();
        x.put(s as usize, Int::Big(b))
    })
}

type Printer = fn(&mut Output<Box<dyn Write>>, &Int) -> std::io::Result<()>;

/// Prints a node value popped from `s` with `print`; false if it failed.
fn print_with(s: i64, v: i64, print: Printer) -> bool {
    with(|x| {
        let v = x.take(s as usize, v);
        if let Err(e) = print(&mut x.output, &v) {
            x.fail(Error::Io(e));
        }
        x.error.is_none()
    })
}

/// ㅁ+ㅇ of a node value popped from `s`; false if it failed.
pub fn print_number(s: i64, v: i64) -> bool {
    print_with(s, v, Output::print_number)
}

/// ㅁ+ㅎ of a node value popped from `s`; false if it failed.
pub fn print_char(s: i64, v: i64) -> bool {
    print_with(s, v, Output::print_char)
}

/// ㅂ+ㅇ: a number from stdin, as the node value pushed next onto `s`.
pub fn read_number(s: i64, state: i64) -> i64 {
    with(|x| {
        if let Err(e) = x.output.flush() {
            x.fail(Error::Io(e));
            return 0;
        }
        match x.input.read_number() {
            Ok(v) => x.put(s as usize, v),
            Err(NumberInputError::Io(e)) => {
                x.fail(Error::Io(e));
                0
            }
            Err(cause) => {
                let at = x.at(state);
                x.fail(Error::NumberInput { at, cause });
                0
            }
        }
    })
}

/// ㅂ+ㅎ: a character's code point from stdin (−1 at EOF).
pub fn read_char() -> i64 {
    with(|x| {
        if let Err(e) = x.output.flush() {
            x.fail(Error::Io(e));
            return 0;
        }
        x.input.read_char().unwrap_or_else(|e| {
            x.fail(Error::Io(e));
            0
        })
    })
}

/// The exit status ㅎ gives for a node value popped from `s`.
pub fn exit_status(s: i64, v: i64) -> i64 {
    with(|x| i64::from(x.take(s as usize, v).exit_status()))
}

/// Whether a helper failed (the interpreter then stops with [`FAILED`]).
pub fn failed() -> bool {
    with(|x| x.error.is_some())
}
