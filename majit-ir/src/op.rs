//! Operations and the values they refer to.
//!
//! An [`OpRef`] names a value inside one trace: an input argument, the
//! result of an earlier op, or an interned constant. It is a packed `u32`
//! (two tag bits, thirty index bits) so ops stay small.

use crate::descr::Descr;
use crate::opcode::{Kind, OpCode};
use smallvec::SmallVec;
use std::fmt;

const TAG_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << TAG_SHIFT) - 1;
const TAG_OP: u32 = 0;
const TAG_INPUT: u32 = 1;
const TAG_CONST: u32 = 2;

/// A reference to a value of a trace.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpRef(u32);

/// What an [`OpRef`] points at.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RefTarget {
    /// `trace.inputs[i]`
    Input(usize),
    /// The result of `trace.ops[i]`.
    Op(usize),
    /// `trace.consts[i]`
    Const(usize),
}

impl OpRef {
    /// The largest index an `OpRef` can hold.
    pub const MAX_INDEX: usize = INDEX_MASK as usize;

    fn pack(tag: u32, index: usize) -> OpRef {
        assert!(index <= Self::MAX_INDEX, "trace too large: index {index}");
        OpRef(tag << TAG_SHIFT | index as u32)
    }
    /// The result of op number `i`.
    pub fn op(i: usize) -> OpRef {
        Self::pack(TAG_OP, i)
    }
    /// Input argument number `i`.
    pub fn input(i: usize) -> OpRef {
        Self::pack(TAG_INPUT, i)
    }
    /// Interned constant number `i`.
    pub fn konst(i: usize) -> OpRef {
        Self::pack(TAG_CONST, i)
    }
    pub fn target(self) -> RefTarget {
        let i = (self.0 & INDEX_MASK) as usize;
        match self.0 >> TAG_SHIFT {
            TAG_OP => RefTarget::Op(i),
            TAG_INPUT => RefTarget::Input(i),
            _ => RefTarget::Const(i),
        }
    }
    pub fn is_const(self) -> bool {
        self.0 >> TAG_SHIFT == TAG_CONST
    }
    /// The packed representation (stable within a trace; used as a map key).
    pub fn raw(self) -> u32 {
        self.0
    }
}

impl fmt::Debug for OpRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.target() {
            RefTarget::Input(i) => write!(f, "in{i}"),
            RefTarget::Op(i) => write!(f, "op{i}"),
            RefTarget::Const(i) => write!(f, "c{i}"),
        }
    }
}

/// A constant. Floats are kept as bits so equality and hashing are exact.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Const {
    Int(i64),
    /// A GC reference (address) or null (0). Constant refs must point to
    /// objects that never move (prebuilt or old and pinned).
    Ref(usize),
    /// The bit pattern of an `f64`.
    Float(u64),
}

impl Const {
    pub fn kind(self) -> Kind {
        match self {
            Const::Int(_) => Kind::Int,
            Const::Ref(_) => Kind::Ref,
            Const::Float(_) => Kind::Float,
        }
    }
    pub fn float(v: f64) -> Const {
        Const::Float(v.to_bits())
    }
    pub fn value(self) -> Value {
        match self {
            Const::Int(v) => Value::Int(v),
            Const::Ref(v) => Value::Ref(v),
            Const::Float(b) => Value::Float(f64::from_bits(b)),
        }
    }
}

impl From<Value> for Const {
    fn from(v: Value) -> Const {
        match v {
            Value::Int(x) => Const::Int(x),
            Value::Ref(x) => Const::Ref(x),
            Value::Float(x) => Const::float(x),
        }
    }
}

/// A concrete run-time value: trace inputs, dead-frame contents, results.
#[derive(Copy, Clone, Debug)]
pub enum Value {
    Int(i64),
    /// A GC reference or raw address held in the ref bank (0 is null).
    Ref(usize),
    Float(f64),
}

impl Value {
    pub fn kind(self) -> Kind {
        match self {
            Value::Int(_) => Kind::Int,
            Value::Ref(_) => Kind::Ref,
            Value::Float(_) => Kind::Float,
        }
    }
    /// The value as a 64-bit word, as it sits in a register or frame slot.
    pub fn to_bits(self) -> u64 {
        match self {
            Value::Int(v) => v as u64,
            Value::Ref(v) => v as u64,
            Value::Float(v) => v.to_bits(),
        }
    }
    /// The inverse of [`Value::to_bits`] for a known kind.
    pub fn from_bits(kind: Kind, bits: u64) -> Value {
        match kind {
            Kind::Int => Value::Int(bits as i64),
            Kind::Ref => Value::Ref(bits as usize),
            Kind::Float => Value::Float(f64::from_bits(bits)),
        }
    }
    pub fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_ref(self) -> Option<usize> {
        match self {
            Value::Ref(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_float(self) -> Option<f64> {
        match self {
            Value::Float(v) => Some(v),
            _ => None,
        }
    }
}

/// Values compare bit-exactly (so a NaN equals the same NaN), which is what
/// differential tests between executors need.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.kind() == other.kind() && self.to_bits() == other.to_bits()
    }
}
impl Eq for Value {}

/// Argument list storage: most ops have at most three.
pub type Args = SmallVec<[OpRef; 3]>;

/// One operation of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub opcode: OpCode,
    pub args: Args,
    pub descr: Option<Descr>,
    /// Guards only: the values the guard's exit saves (its resume inputs).
    /// `Some` on every guard, `None` on every other op.
    pub fail_args: Option<Vec<OpRef>>,
}

impl Op {
    /// An op without descr or fail args.
    pub fn new(opcode: OpCode, args: &[OpRef]) -> Op {
        Op {
            opcode,
            args: args.iter().copied().collect(),
            descr: None,
            fail_args: None,
        }
    }
    /// Builder-style: attach a descriptor.
    pub fn with_descr(mut self, descr: Descr) -> Op {
        self.descr = Some(descr);
        self
    }
    /// Builder-style: attach fail args (guards).
    pub fn with_fail_args(mut self, fail_args: &[OpRef]) -> Op {
        self.fail_args = Some(fail_args.to_vec());
        self
    }
    pub fn arg(&self, i: usize) -> OpRef {
        self.args[i]
    }
    /// Whether executing this op may raise: its opcode can (`call_*`), or
    /// it is a call whose descr says so (a `call_pure_*` of an elidable
    /// helper that may panic). Executors read the helper's signals after
    /// such ops.
    pub fn may_raise(&self) -> bool {
        self.opcode.can_raise()
            || (self.opcode.is_call()
                && self
                    .descr
                    .as_ref()
                    .and_then(Descr::as_call)
                    .is_some_and(|d| d.effect.can_raise))
    }
}
