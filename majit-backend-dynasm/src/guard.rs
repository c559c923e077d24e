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
use majit_ir::{Const, Descr, Kind};

/// One exit of a compiled trace.
#[derive(Clone, Debug, PartialEq)]
pub struct ExitRecord {
    /// Exit number within the trace (order of emission).
    pub number: u32,
    /// Index of the guard or `finish` op in the trace.
    pub op_index: usize,
    /// The op's descr.
    pub descr: Option<Descr>,
    /// Location and kind of each fail arg (guards) or argument (`finish`),
    /// packed: records live as long as their trace, one per guard.
    values: Box<[ExitLoc]>,
    /// The constants `values` name (most exits have none).
    consts: Box<[Const]>,
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
        values: impl IntoIterator<Item = (Loc, Kind)>,
    ) -> Self {
        let mut consts = Vec::new();
        let values = values
            .into_iter()
            .map(|(loc, kind)| ExitLoc::pack(loc, kind, &mut consts))
            .collect();
        ExitRecord {
            number,
            op_index,
            descr,
            values,
            consts: consts.into(),
            stub_offset: 0,
            patch_word: None,
            out_of_memory: false,
        }
    }
    /// Location and kind of each value, in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = (Loc, Kind)> + '_ {
        self.values.iter().map(|v| v.unpack(&self.consts))
    }
}

/// A value's location and kind in one word: the kind in bits 0-1, the
/// sort of location in bits 2-3, then a register number, a slot number or
/// an index into the record's constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ExitLoc(u32);

impl ExitLoc {
    const REG: u32 = 0;
    const SLOT: u32 = 1;
    const CONST: u32 = 2;

    fn pack(loc: Loc, kind: Kind, consts: &mut Vec<Const>) -> ExitLoc {
        let (sort, n) = match loc {
            Loc::Reg(r) => (Self::REG, u32::from(r)),
            Loc::Slot(n) => {
                // A frame has fewer slots than its trace has values, which
                // `trace_limit` bounds far below 2^28.
                assert!(n < 1 << 28, "spill slot {n} does not fit an exit record");
                (Self::SLOT, n)
            }
            Loc::Const(c) => {
                consts.push(c);
                (Self::CONST, consts.len() as u32 - 1)
            }
        };
        let k = match kind {
            Kind::Int => 0,
            Kind::Ref => 1,
            Kind::Float => 2,
        };
        ExitLoc(n << 4 | sort << 2 | k)
    }

    fn unpack(self, consts: &[Const]) -> (Loc, Kind) {
        let n = self.0 >> 4;
        let loc = match (self.0 >> 2) & 3 {
            Self::REG => Loc::Reg(n as u8),
            Self::SLOT => Loc::Slot(n),
            _ => Loc::Const(consts[n as usize]),
        };
        let kind = match self.0 & 3 {
            0 => Kind::Int,
            1 => Kind::Ref,
            _ => Kind::Float,
        };
        (loc, kind)
    }
}
