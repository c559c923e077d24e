//! The plain interpreter: the dispatch loop over the compiled code space.
//!
//! State is the state index (cell and incoming momentum, see `code.rs`),
//! the selected storage and the storages. One tick (LANGUAGE.md §3): the
//! op runs and the next state is the step's `go`; or, if the selected
//! storage holds fewer values than the op needs, the op is skipped and the
//! next state is `back` (the vowel's momentum reversed); ㅊ popping zero
//! also takes `back`; ㅎ stops. The vowel, the move, wrap-around and blank
//! cells are all folded into the step table by `code.rs`.
//!
//! The loop allocates nothing itself: only the nodes the program pushes
//! (ㅂ, ㅃ, ㅆ), and the slow paths (big integers, I/O) allocate. Binary
//! commands on a stack try the `i64` fast path of `int.rs` and write the
//! result over the second node in place (no allocation); a big operand,
//! an overflow, a zero divisor or the queue take the exact slow path,
//! which pops both and pushes the result. Each op checks its own need so
//! the underflow branch is predicted per op.

use crate::code::{cell_of, CodeSpace};
use crate::decode::Op;
use crate::error::{Error, Result};
use crate::int::{fast, slow, ArithError, BinOp, BIG};
use crate::io::{Input, NumberInputError, Output};
use crate::storage::{StorageError, Storages};
use std::io::{BufRead, Write};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// ㅎ ran; the process exit status.
    Halted(u8),
    /// No syllable lies ahead of the cursor: the program can never do
    /// anything again and never halts (the reference loops forever).
    Stalled,
}

/// Counters of one run, for `--stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Syllable cells executed (blank cells are not counted: the code
    /// space skips them).
    pub instructions: u64,
}

impl From<StorageError> for Error {
    fn from(e: StorageError) -> Error {
        Error::Heap(e.0)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Io(e)
    }
}

/// A running program: storages, selection, stdin and stdout.
pub struct Machine<'a, R: BufRead, W: Write> {
    code: &'a CodeSpace,
    storages: Storages,
    selected: u8,
    input: Input<R>,
    output: Output<W>,
    /// Counters, complete once [`Machine::run`] returns.
    pub stats: Stats,
}

impl<'a, R: BufRead, W: Write> Machine<'a, R, W> {
    /// A machine at the start of `code`, storage 0 selected.
    pub fn new(code: &'a CodeSpace, storages: Storages, input: R, output: W) -> Self {
        Machine {
            code,
            storages,
            selected: 0,
            input: Input::new(input),
            output: Output::new(output),
            stats: Stats::default(),
        }
    }

    /// The output writer (flushed), for callers that collect output.
    pub fn into_output(self) -> Result<W> {
        Ok(self.output.into_inner()?)
    }

    /// The storages, for `--stats`.
    pub fn storages(&self) -> &Storages {
        &self.storages
    }

    /// Runs until ㅎ, a stall or an error; output is flushed on every exit.
    ///
    /// ```
    /// use aheui::{code::CodeSpace, interp::{Machine, Outcome}, storage::Storages};
    /// // push 2, push 3, multiply, print, halt
    /// let code = CodeSpace::build("박받따망희").unwrap();
    /// let mut out = Vec::new();
    /// let mut m = Machine::new(&code, Storages::new(majit_gc::GcConfig::default()).unwrap(), &b""[..], &mut out);
    /// assert_eq!(m.run().unwrap(), Outcome::Halted(0));
    /// drop(m);
    /// assert_eq!(out, b"6");
    /// ```
    pub fn run(&mut self) -> Result<Outcome> {
        let result = self.dispatch();
        let flushed = self.output.flush();
        let outcome = result?;
        flushed?;
        Ok(outcome)
    }

    fn dispatch(&mut self) -> Result<Outcome> {
        let mut ticks: u64 = 0;
        let result = self.dispatch_counting(&mut ticks);
        // The stall sentinel is not a syllable.
        self.stats.instructions += ticks - u64::from(matches!(result, Ok(Outcome::Stalled)));
        result
    }

    /// The loop; `ticks` counts the cells executed, also when it fails.
    #[inline(always)]
    fn dispatch_counting(&mut self, ticks: &mut u64) -> Result<Outcome> {
        let cells = self.code.cells();
        let steps = self.code.steps();
        let mut state = self.code.start();
        loop {
            // SAFETY: `start` and every `go`/`back` are < steps.len() ==
            // cells.len() * 8 (the invariant of `CodeSpace::build`).
            let (cell, step) = unsafe {
                (
                    cells.get_unchecked(cell_of(state)),
                    steps.get_unchecked(state as usize),
                )
            };
            *ticks += 1;
            let s = self.selected;
            let len = self.storages.len(s);
            // Each op checks its own need, so the underflow branch is
            // predicted per op; too few values take `back`.
            macro_rules! guarded {
                ($op:expr, $body:expr) => {
                    if len < $op.needs() {
                        step.back
                    } else {
                        $body;
                        step.go
                    }
                };
            }
            state = match cell.op {
                Op::Nop => step.go,
                Op::Add => guarded!(Op::Add, self.binary(BinOp::Add, state)?),
                Op::Sub => guarded!(Op::Sub, self.binary(BinOp::Sub, state)?),
                Op::Mul => guarded!(Op::Mul, self.binary(BinOp::Mul, state)?),
                Op::Div => guarded!(Op::Div, self.binary(BinOp::Div, state)?),
                Op::Mod => guarded!(Op::Mod, self.binary(BinOp::Mod, state)?),
                Op::Cmp => guarded!(Op::Cmp, self.binary(BinOp::Cmp, state)?),
                Op::Pop => guarded!(Op::Pop, self.discard(s)),
                Op::PrintNum => guarded!(Op::PrintNum, self.print_number(s)?),
                Op::PrintChar => guarded!(Op::PrintChar, self.print_char(s)?),
                Op::PushConst => self
                    .storages
                    .push_small(s, i64::from(cell.arg))
                    .map(|()| step.go)?,
                Op::ReadNum => self.read_number(state).map(|()| step.go)?,
                Op::ReadChar => self.read_char().map(|()| step.go)?,
                Op::Dup => guarded!(Op::Dup, self.storages.dup(s)?),
                Op::Swap => guarded!(Op::Swap, self.storages.swap(s)),
                Op::Select => {
                    self.selected = cell.arg;
                    step.go
                }
                Op::Move => guarded!(Op::Move, {
                    let v = self.storages.pop(s);
                    self.storages.push(cell.arg, v)?
                }),
                Op::Branch => {
                    if len < Op::Branch.needs() || self.pop_is_zero(s) {
                        step.back
                    } else {
                        step.go
                    }
                }
                Op::Halt => return Ok(self.halt(s)),
                Op::Stall => return Ok(Outcome::Stalled),
            };
        }
    }

    /// A binary command on the selected storage (two values present).
    #[inline(always)]
    fn binary(&mut self, op: BinOp, state: u32) -> Result<()> {
        let s = self.selected;
        if self.storages.combine_top_two(s, |b, a| fast(op, b, a)) {
            return Ok(());
        }
        self.binary_slow(op, state)
    }

    /// The exact path: big operands, overflow, division by zero, and
    /// every binary command on the queue.
    #[cold]
    fn binary_slow(&mut self, op: BinOp, state: u32) -> Result<()> {
        let s = self.selected;
        // Bigs leave the side list in pop order: a's first.
        let a = self.storages.pop(s);
        let b = self.storages.pop(s);
        let at = self.code.positions()[cell_of(state)];
        match slow(op, &b, &a) {
            Ok(r) => Ok(self.storages.push_result(s, r)?),
            Err(ArithError::DivisionByZero) => Err(Error::DivisionByZero { at }),
            Err(ArithError::TooLarge) => Err(Error::IntegerTooLarge { at }),
        }
    }

    fn discard(&mut self, s: u8) {
        if self.storages.pop_raw(s) == BIG {
            self.storages.take_big(s);
        }
    }

    fn pop_is_zero(&mut self, s: u8) -> bool {
        match self.storages.pop_raw(s) {
            0 => true,
            BIG => {
                self.storages.take_big(s);
                false
            }
            _ => false,
        }
    }

    fn print_number(&mut self, s: u8) -> Result<()> {
        let v = self.storages.pop(s);
        Ok(self.output.print_number(&v)?)
    }

    fn print_char(&mut self, s: u8) -> Result<()> {
        let v = self.storages.pop(s);
        Ok(self.output.print_char(&v)?)
    }

    #[cold]
    fn read_number(&mut self, state: u32) -> Result<()> {
        self.output.flush()?;
        match self.input.read_number() {
            Ok(v) => Ok(self.storages.push(self.selected, v)?),
            Err(NumberInputError::Io(e)) => Err(Error::Io(e)),
            Err(cause) => Err(Error::NumberInput {
                at: self.code.positions()[cell_of(state)],
                cause,
            }),
        }
    }

    #[cold]
    fn read_char(&mut self) -> Result<()> {
        self.output.flush()?;
        let c = self.input.read_char()?;
        Ok(self.storages.push_small(self.selected, c)?)
    }

    fn halt(&mut self, s: u8) -> Outcome {
        if self.storages.len(s) == 0 {
            Outcome::Halted(0)
        } else {
            Outcome::Halted(self.storages.pop(s).exit_status())
        }
    }
}
