//! Guard-exit records: for each exit of a trace (guard or `finish`), where
//! each of its values lives when the exit is taken.
//!
//! Exit protocol (every architecture): a failing guard branches to its
//! cold stub. The stub first jumps through its patch word in the trace's
//! pool; that word initially holds the address of the stub's second half,
//! which writes the stub's own address (the *exit token*) into the frame's
//! `EXIT` word and jumps to the shared exit routine. The exit routine stores
//! every allocatable register into its save slot and returns the frame to
//! Rust. Rust maps the token back to the record and reads each value from
//! its recorded location: a register means its save slot, a slot is read
//! directly, a constant needs no memory. Attaching a bridge rewrites the
//! patch word so the stub jumps straight to the bridge with all registers
//! and slots intact. A `finish` is an exit whose stub is reached
//! unconditionally and has no patch word; it stores only the registers its
//! values are in and jumps past the exit routine's stores (`leave`): a
//! function return through a `finish` is as frequent as calls are.
//!
//! Locations are recorded at the guard, after every move the allocator
//! inserted before it, and nothing between the guard's test and its branch
//! may change them.

use crate::arch::Loc;
use majit_ir::{Descr, Kind};

/// One exit of a compiled trace.
#[derive(Clone, Debug, PartialEq)]
pub struct ExitRecord {
    /// Exit number within the trace (order of emission).
    pub number: u32,
    /// Index of the guard or `finish` op in the trace.
    pub op_index: usize,
    /// The op's descr.
    pub descr: Option<Descr>,
    /// Location and kind of each fail arg (guards) or argument (`finish`).
    pub values: Vec<(Loc, Kind)>,
    /// Offset of the stub in the trace's code (set by the emitter); the
    /// exit token is the stub's absolute address.
    pub stub_offset: usize,
    /// Index of the pool word the stub jumps through (guards only).
    pub patch_word: Option<usize>,
    /// Not an op's exit: the allocation at `op_index` ran out of memory.
    pub out_of_memory: bool,
}

impl ExitRecord {
    /// A record for the exit op `op_index` with its value locations; the
    /// emitter fills in `stub_offset` and `patch_word`.
    pub fn new(
        number: u32,
        op_index: usize,
        descr: Option<Descr>,
        values: Vec<(Loc, Kind)>,
    ) -> Self {
        ExitRecord {
            number,
            op_index,
            descr,
            values,
            stub_offset: 0,
            patch_word: None,
            out_of_memory: false,
        }
    }
}
