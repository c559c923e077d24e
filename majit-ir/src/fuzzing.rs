//! Test and fuzzing support: the shared test [`Namespace`], a generator of
//! valid random traces, a text mutator and the round-trip check.
//!
//! [`random_trace`] builds a trace op by op from a seeded [`SplitMix64`],
//! keeping pools of the values defined so far (by kind) and of the objects
//! it allocated (with their layout), so every op it emits is valid by
//! construction: arguments are defined earlier and of the right kind,
//! loads and stores only touch objects of the matching layout at in-bounds
//! constant indices, every fresh object is fully initialised right after
//! its allocation, `*_ovf` ops are followed by their guard, calls that can
//! raise by `guard_no_exception`, and the trace ends with `finish` or with
//! a `jump` back to its `label`. The verifier is the oracle:
//! [`check_seed`] generates, verifies, round-trips through text and panics
//! with the seed and the trace text on any failure.
//!
//! Everything here is deterministic in the seed; no global state.

use crate::descr::{
    ArrayDescr, CallDescr, CallEffect, Descr, EffectInfo, FailDescr, FieldDescr, SizeDescr,
    TargetDescr,
};
use crate::op::{Const, Op, OpRef};
use crate::opcode::{Kind, OpCode, ResultKind};
use crate::text::{parse, print, Namespace};
use crate::trace::Trace;
use crate::verify::verify;

/// The class word of `Stack` objects (`new_with_vtable(descr=Stack)`), what
/// `guard_class` compares against.
pub const STACK_VTABLE: u64 = 0x5700;

/// The fake function address random traces pass as a call's first
/// argument: `CALL_TARGET_BASE + 16 * n` for the `n`-th call descr of
/// [`CALL_DESCRS`]. Nothing lives there; executors that run random traces
/// with calls must map these addresses to functions of their own.
pub const CALL_TARGET_BASE: i64 = 0x10_0000;

/// The call descriptors of [`test_namespace`], in the order that numbers
/// their fake addresses (see [`CALL_TARGET_BASE`]).
pub const CALL_DESCRS: [&str; 7] = [
    "Call.ii_i",
    "Call.i_v",
    "Call.ff_f",
    "Call.ff_v",
    "Call.many",
    "Call.r_r",
    "Call.force_i",
];

/// The namespace of descriptors every crate's tests share.
///
/// Layouts (offsets in bytes; headered objects start with the 8-byte GC
/// header word):
///
/// | descr | sort | layout |
/// |---|---|---|
/// | `Node` | size 16, type_id 1, headerless | `Node.value` int @0, `Node.next` ref @8 |
/// | `Triple` | size 24, type_id 2, headerless | `Triple.a` int @0, `Triple.b` float @8, `Triple.c` ref @16 |
/// | `Stack` | size 24, type_id 3, headered, vtable [`STACK_VTABLE`] | header @0, `Stack.head` ref @8, `Stack.len` int @16 |
/// | `IntArray` | array, type_id 4 | header @0, length @8, int items (8 bytes, signed) @16 |
/// | `RefArray` | array, type_id 5 | header @0, length @8, ref items @16 |
/// | `FloatArray` | array, type_id 6 | header @0, length @8, float items @16 |
/// | `RawI8` `RawU8` `RawI16` `RawU16` `RawI32` `RawU32` `RawI64` | raw array | int items of 1/2/4/8 bytes, signed (`I`) or not (`U`), base 0 |
/// | `RawF64` | raw array | float items, base 0 |
/// | `Box` | size 16, type_id 9, headered, no vtable | header @0, `Box.value` int @8 |
/// | `ByteArray` | array, type_id 7 | header @0, length @8, unsigned 1-byte int items @16 |
/// | `RawCell.int`, `RawCell.float` | raw fields | int @0, float @8 (the shape of a `Triple`'s first two fields) |
/// | `Raw.i8` `Raw.u8` | raw fields | 1-byte int @1, signed / unsigned |
/// | `Raw.i16` `Raw.u16` | raw fields | 2-byte int @2, signed / unsigned |
/// | `Raw.i32` `Raw.u32` | raw fields | 4-byte int @4, signed / unsigned |
/// | `Raw.i64`, `Raw.f64`, `Raw.ref` | raw fields | int @8, float @16, ref @24 |
///
/// Calls (all `call` descrs; first arg of the op is the function address):
///
/// | descr | args → result | effects |
/// |---|---|---|
/// | `Call.ii_i` | int, int → int | elidable |
/// | `Call.i_v` | int → void | random, can_raise, can_collect |
/// | `Call.ff_f` | float, float → float | elidable |
/// | `Call.ff_v` | float, float → void | random |
/// | `Call.many` | int, ref, float, int, ref, float, int, int, float → int | random, can_raise, can_collect |
/// | `Call.r_r` | ref → ref | random, can_collect |
/// | `Call.force_i` | int → int | random, can_raise, can_collect, may_force |
///
/// Targets `Loop` and `Loop2`; fail descrs `g0` … `g15` with `id` equal to
/// the number.
pub fn test_namespace() -> Namespace {
    let mut ns = Namespace::new();
    ns.add_descr(size(
        "Node",
        16,
        1,
        true,
        None,
        &["Node.value", "Node.next"],
    ));
    ns.add_descr(field("Node.value", "Node", 0, 8, Kind::Int, true));
    ns.add_descr(field("Node.next", "Node", 8, 8, Kind::Ref, false));
    let triple = ["Triple.a", "Triple.b", "Triple.c"];
    ns.add_descr(size("Triple", 24, 2, true, None, &triple));
    ns.add_descr(field("Triple.a", "Triple", 0, 8, Kind::Int, true));
    ns.add_descr(field("Triple.b", "Triple", 8, 8, Kind::Float, false));
    ns.add_descr(field("Triple.c", "Triple", 16, 8, Kind::Ref, false));
    let stack = ["Stack.head", "Stack.len"];
    ns.add_descr(size("Stack", 24, 3, false, Some(STACK_VTABLE), &stack));
    ns.add_descr(field("Stack.head", "Stack", 8, 8, Kind::Ref, false));
    ns.add_descr(field("Stack.len", "Stack", 16, 8, Kind::Int, true));
    ns.add_descr(size("Box", 16, 9, false, None, &["Box.value"]));
    ns.add_descr(field("Box.value", "Box", 8, 8, Kind::Int, true));
    for (name, offset, size, kind, signed) in RAW_FIELDS {
        ns.add_descr(field(name, "Raw", offset, size, kind, signed));
    }
    ns.add_descr(field("RawCell.int", "RawCell", 0, 8, Kind::Int, true));
    ns.add_descr(field("RawCell.float", "RawCell", 8, 8, Kind::Float, false));
    ns.add_descr(array("IntArray", 16, 8, Kind::Int, true, 4));
    ns.add_descr(array("RefArray", 16, 8, Kind::Ref, false, 5));
    ns.add_descr(array("FloatArray", 16, 8, Kind::Float, false, 6));
    ns.add_descr(array("ByteArray", 16, 1, Kind::Int, false, 7));
    for (name, item, signed) in RAW_INT_ARRAYS {
        ns.add_descr(array(name, 0, item, Kind::Int, signed, 0));
    }
    ns.add_descr(array("RawF64", 0, 8, Kind::Float, false, 0));
    use Kind::{Float as F, Int as I, Ref as R};
    let random = |raise, collect| (CallEffect::Random, raise, collect, false);
    let pure = (CallEffect::Elidable, false, false, false);
    ns.add_descr(call("Call.ii_i", &[I, I], ResultKind::Int, pure));
    ns.add_descr(call("Call.i_v", &[I], ResultKind::Void, random(true, true)));
    ns.add_descr(call("Call.ff_f", &[F, F], ResultKind::Float, pure));
    ns.add_descr(call(
        "Call.ff_v",
        &[F, F],
        ResultKind::Void,
        random(false, false),
    ));
    let many = [I, R, F, I, R, F, I, I, F];
    ns.add_descr(call(
        "Call.many",
        &many,
        ResultKind::Int,
        random(true, true),
    ));
    ns.add_descr(call("Call.r_r", &[R], ResultKind::Ref, random(false, true)));
    let force = (CallEffect::Random, true, true, true);
    ns.add_descr(call("Call.force_i", &[I], ResultKind::Int, force));
    for name in ["Loop", "Loop2"] {
        ns.add_descr(TargetDescr { name: name.into() }.into());
    }
    for id in 0..16 {
        ns.add_descr(fail_descr(id));
    }
    ns
}

/// The raw fields of the `Raw` record: name, offset, size, kind, signed.
const RAW_FIELDS: [(&str, u32, u8, Kind, bool); 9] = [
    ("Raw.i8", 1, 1, Kind::Int, true),
    ("Raw.u8", 1, 1, Kind::Int, false),
    ("Raw.i16", 2, 2, Kind::Int, true),
    ("Raw.u16", 2, 2, Kind::Int, false),
    ("Raw.i32", 4, 4, Kind::Int, true),
    ("Raw.u32", 4, 4, Kind::Int, false),
    ("Raw.i64", 8, 8, Kind::Int, true),
    ("Raw.f64", 16, 8, Kind::Float, false),
    ("Raw.ref", 24, 8, Kind::Ref, false),
];

/// The raw int arrays: name, item size, signed.
const RAW_INT_ARRAYS: [(&str, u8, bool); 7] = [
    ("RawI8", 1, true),
    ("RawU8", 1, false),
    ("RawI16", 2, true),
    ("RawU16", 2, false),
    ("RawI32", 4, true),
    ("RawU32", 4, false),
    ("RawI64", 8, true),
];

fn size(
    name: &str,
    size: u32,
    type_id: u32,
    headerless: bool,
    vtable: Option<u64>,
    fields: &[&str],
) -> Descr {
    let fields = fields.iter().map(|f| f.to_string()).collect();
    let name = name.into();
    SizeDescr {
        name,
        size,
        type_id,
        headerless,
        vtable,
        fields,
    }
    .into()
}

fn field(name: &str, owner: &str, offset: u32, size: u8, kind: Kind, signed: bool) -> Descr {
    let (name, owner) = (name.into(), owner.into());
    FieldDescr {
        name,
        owner,
        offset,
        size,
        signed,
        kind,
        immutable: false,
    }
    .into()
}

fn array(name: &str, base: u32, item_size: u8, kind: Kind, signed: bool, type_id: u32) -> Descr {
    let len_offset = if base == 0 { 0 } else { 8 };
    let name = name.into();
    ArrayDescr {
        name,
        base_offset: base,
        len_offset,
        item_size,
        signed,
        kind,
        type_id,
    }
    .into()
}

fn call(name: &str, args: &[Kind], result: ResultKind, e: (CallEffect, bool, bool, bool)) -> Descr {
    let (effect, can_raise, can_collect, may_force) = e;
    let effect = EffectInfo {
        effect,
        can_raise,
        can_collect,
        may_force,
        reads: vec![],
        writes: vec![],
    };
    CallDescr {
        name: name.into(),
        args: args.to_vec(),
        result,
        effect,
    }
    .into()
}

fn fail_descr(id: u32) -> Descr {
    FailDescr {
        name: format!("g{id}"),
        id,
    }
    .into()
}

/// A tiny seeded PRNG (SplitMix64): deterministic, no dependencies.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`; the tiny modulo bias does not matter here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }
    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// What [`random_trace`] may generate.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Upper bound on the number of ops (the trace gets 1..=max_ops plus
    /// the closing ops).
    pub max_ops: usize,
    /// Upper bound on the number of inputs.
    pub max_inputs: usize,
    /// Float arithmetic, comparisons, casts and float constants.
    pub floats: bool,
    /// Allocations, field/array/raw loads and stores.
    pub memory: bool,
    /// Calls (to the fake addresses of [`CALL_TARGET_BASE`]).
    pub calls: bool,
    /// Start with `label(inputs, descr=Loop)` and end with a `jump` back
    /// (otherwise end with `finish`). Such loops run until a guard fails.
    pub loops: bool,
    /// The lowered GC forms (`call_malloc_nursery*`, `nursery_ptr_increment`,
    /// `cond_call_gc_wb*`), which a trace normally has only after the GC
    /// rewrite.
    pub lowered: bool,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            max_ops: 40,
            max_inputs: 4,
            floats: true,
            memory: true,
            calls: true,
            loops: true,
            lowered: false,
        }
    }
}

impl Knobs {
    /// Everything on, including the lowered GC forms.
    pub fn all() -> Knobs {
        Knobs {
            lowered: true,
            ..Knobs::default()
        }
    }
}

/// The shape of an object the generator allocated, so loads and stores
/// match its layout.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Shape {
    Node,
    Triple,
    Stack,
    /// A GC array: its descr name and constant length.
    Array(&'static str, i64),
}

impl Shape {
    /// The fields of a fixed-size shape.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Shape::Node => &["Node.value", "Node.next"],
            Shape::Triple => &["Triple.a", "Triple.b", "Triple.c"],
            Shape::Stack => &["Stack.head", "Stack.len"],
            Shape::Array(..) => &[],
        }
    }
}

const ARRAYS: [&str; 3] = ["IntArray", "RefArray", "FloatArray"];

/// Generates a valid trace (the verifier accepts it) from `seed`; see the
/// module docs for what "valid by construction" covers.
///
/// ```
/// use majit_ir::fuzzing::{random_trace, Knobs};
/// let t = random_trace(7, &Knobs::default());
/// assert!(majit_ir::verify(&t).is_ok());
/// assert_eq!(t, random_trace(7, &Knobs::default()));
/// ```
pub fn random_trace(seed: u64, knobs: &Knobs) -> Trace {
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        knobs,
        ns: test_namespace(),
        t: Trace::default(),
        pools: [Vec::new(), Vec::new(), Vec::new()],
        objects: Vec::new(),
        next_fail: 0,
    };
    g.generate();
    g.t
}

struct Gen<'k> {
    rng: SplitMix64,
    knobs: &'k Knobs,
    ns: Namespace,
    t: Trace,
    /// Values defined so far, by kind (int, ref, float).
    pools: [Vec<OpRef>; 3],
    /// Objects allocated (and fully initialised) by this trace.
    objects: Vec<(OpRef, Shape)>,
    next_fail: u32,
}

fn slot(k: Kind) -> usize {
    match k {
        Kind::Int => 0,
        Kind::Ref => 1,
        Kind::Float => 2,
    }
}

impl Gen<'_> {
    fn generate(&mut self) {
        let kinds: &[Kind] = if self.knobs.floats {
            &[Kind::Int, Kind::Ref, Kind::Float]
        } else {
            &[Kind::Int, Kind::Ref]
        };
        let n = self.rng.below(self.knobs.max_inputs + 1);
        let inputs: Vec<Kind> = (0..n).map(|_| self.rng.pick(kinds)).collect();
        self.t = Trace::new(&inputs);
        for (i, &k) in inputs.iter().enumerate() {
            self.pools[slot(k)].push(OpRef::input(i));
        }
        if self.knobs.loops {
            let args: Vec<OpRef> = (0..n).map(OpRef::input).collect();
            let target = self.descr("Loop");
            self.t
                .push(Op::new(OpCode::Label, &args).with_descr(target));
        }
        let families = self.families();
        let target = self.t.ops.len() + 1 + self.rng.below(self.knobs.max_ops.max(1));
        while self.t.ops.len() < target {
            let family = self.rng.pick(&families);
            family(self);
        }
        self.close();
    }

    fn families(&self) -> Vec<fn(&mut Self)> {
        let mut f: Vec<fn(&mut Self)> = vec![
            Self::int_arith,
            Self::int_compare,
            Self::overflow,
            Self::guards,
            Self::pointer,
            Self::debug,
        ];
        if self.knobs.floats {
            f.push(Self::float_ops);
        }
        if self.knobs.memory {
            f.extend([Self::alloc, Self::field, Self::array, Self::raw] as [fn(&mut Self); 4]);
        }
        if self.knobs.calls {
            f.push(Self::call);
        }
        if self.knobs.lowered {
            f.push(Self::lowered);
        }
        f
    }

    fn descr(&self, name: &str) -> Descr {
        match self.ns.descr(name) {
            Some(d) => d.clone(),
            None => unreachable!("test_namespace defines {name}"),
        }
    }

    /// Appends `op`; its result (if any) joins the pool of its kind.
    fn def(&mut self, op: Op) -> OpRef {
        let kind = op.opcode.result().kind();
        let r = self.t.push(op);
        if let Some(k) = kind {
            self.pools[slot(k)].push(r);
        }
        r
    }

    /// Appends `op` without pooling its result (raw addresses and other
    /// values that must not be used later).
    fn emit(&mut self, op: Op) -> OpRef {
        self.t.push(op)
    }

    fn konst(&mut self, c: Const) -> OpRef {
        self.t.add_const(c)
    }

    fn int_const(&mut self) -> OpRef {
        let v = match self.rng.below(4) {
            0 => self
                .rng
                .pick(&[0, 1, -1, 2, 63, 64, i64::MIN, i64::MAX, 1 << 32]),
            1 => self.rng.next_u64() as i64,
            _ => self.rng.below(200) as i64 - 100,
        };
        self.konst(Const::Int(v))
    }

    fn float_const(&mut self) -> OpRef {
        let bits = match self.rng.below(3) {
            0 => {
                let v = [
                    0.0,
                    -0.0,
                    1.5,
                    -2.25,
                    1e300,
                    -1e-300,
                    5e-324,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                ];
                f64::to_bits(self.rng.pick(&v))
            }
            1 => self.rng.next_u64(),
            _ => (self.rng.below(2000) as f64 / 8.0 - 100.0).to_bits(),
        };
        let bits = if self.rng.chance(3) {
            f64::NAN.to_bits()
        } else {
            bits
        };
        self.konst(Const::Float(bits))
    }

    /// A value of kind `k`: usually an earlier value, sometimes a constant.
    fn value(&mut self, k: Kind) -> OpRef {
        let pool = &self.pools[slot(k)];
        if !pool.is_empty() && self.rng.chance(80) {
            return self.rng.pick(pool);
        }
        match k {
            Kind::Int => self.int_const(),
            Kind::Float => self.float_const(),
            Kind::Ref => self.konst(Const::Ref(0)),
        }
    }

    fn any_kind(&mut self) -> Kind {
        let kinds: &[Kind] = if self.knobs.floats {
            &[Kind::Int, Kind::Ref, Kind::Float]
        } else {
            &[Kind::Int, Kind::Ref]
        };
        self.rng.pick(kinds)
    }

    /// Appends guard `opcode` with random fail args and maybe a fail descr.
    fn push_guard(&mut self, opcode: OpCode, args: &[OpRef]) {
        let n = self.rng.below(5);
        let fail: Vec<OpRef> = (0..n)
            .map(|_| {
                let k = self.any_kind();
                self.value(k)
            })
            .collect();
        let mut op = Op::new(opcode, args).with_fail_args(&fail);
        if self.rng.chance(50) {
            op = op.with_descr(fail_descr(self.next_fail));
            self.next_fail += 1;
        }
        self.emit(op);
    }

    fn int_arith(&mut self) {
        use OpCode::*;
        let binary = [
            IntAdd,
            IntSub,
            IntMul,
            IntFloorDiv,
            IntMod,
            IntAnd,
            IntOr,
            IntXor,
            IntLshift,
            IntRshift,
            UintRshift,
        ];
        let unary = [IntNeg, IntInvert, IntIsZero, IntIsTrue, SameAsI];
        if self.rng.chance(70) {
            let op = self.rng.pick(&binary);
            let (a, b) = (self.value(Kind::Int), self.value(Kind::Int));
            self.def(Op::new(op, &[a, b]));
        } else {
            let op = self.rng.pick(&unary);
            let a = self.value(Kind::Int);
            self.def(Op::new(op, &[a]));
        }
    }

    fn int_compare(&mut self) {
        use OpCode::*;
        let op = self.rng.pick(&[
            IntLt, IntLe, IntEq, IntNe, IntGt, IntGe, UintLt, UintLe, UintGt, UintGe,
        ]);
        let (a, b) = (self.value(Kind::Int), self.value(Kind::Int));
        self.def(Op::new(op, &[a, b]));
    }

    fn overflow(&mut self) {
        let op = self
            .rng
            .pick(&[OpCode::IntAddOvf, OpCode::IntSubOvf, OpCode::IntMulOvf]);
        let (a, b) = (self.value(Kind::Int), self.value(Kind::Int));
        let r = self.t.push(Op::new(op, &[a, b]));
        let guard = if self.rng.chance(80) {
            OpCode::GuardNoOverflow
        } else {
            OpCode::GuardOverflow
        };
        self.push_guard(guard, &[]);
        self.pools[0].push(r);
    }

    fn float_ops(&mut self) {
        use OpCode::*;
        let (op, args): (OpCode, &[Kind]) = match self.rng.below(5) {
            0 => (
                self.rng.pick(&[FloatAdd, FloatSub, FloatMul, FloatTrueDiv]),
                &[Kind::Float, Kind::Float],
            ),
            1 => (
                self.rng.pick(&[FloatNeg, FloatAbs, SameAsF]),
                &[Kind::Float],
            ),
            2 => (
                self.rng
                    .pick(&[FloatLt, FloatLe, FloatEq, FloatNe, FloatGt, FloatGe]),
                &[Kind::Float, Kind::Float],
            ),
            3 => (
                self.rng
                    .pick(&[CastFloatToInt, ConvertFloatBytesToLonglong]),
                &[Kind::Float],
            ),
            _ => (
                self.rng
                    .pick(&[CastIntToFloat, ConvertLonglongBytesToFloat]),
                &[Kind::Int],
            ),
        };
        let args: Vec<OpRef> = args.iter().map(|&k| self.value(k)).collect();
        self.def(Op::new(op, &args));
    }

    fn pointer(&mut self) {
        match self.rng.below(3) {
            0 => {
                let op = self.rng.pick(&[OpCode::PtrEq, OpCode::PtrNe]);
                let (a, b) = (self.value(Kind::Ref), self.value(Kind::Ref));
                self.def(Op::new(op, &[a, b]));
            }
            1 => {
                let a = self.value(Kind::Ref);
                self.def(Op::new(OpCode::SameAsR, &[a]));
            }
            _ => {
                // Only a round trip: an int made up out of nothing is no ref.
                let a = self.value(Kind::Ref);
                let addr = self.emit(Op::new(OpCode::CastPtrToInt, &[a]));
                self.def(Op::new(OpCode::CastIntToPtr, &[addr]));
            }
        }
    }

    fn guards(&mut self) {
        use OpCode::*;
        let stacks: Vec<OpRef> = self
            .objects
            .iter()
            .filter(|o| o.1 == Shape::Stack)
            .map(|o| o.0)
            .collect();
        match self.rng.below(6) {
            0 | 1 => {
                let op = self.rng.pick(&[GuardTrue, GuardFalse]);
                let a = self.value(Kind::Int);
                self.push_guard(op, &[a]);
            }
            2 => {
                let k = self.any_kind();
                let (a, b) = (self.value(k), self.value(k));
                self.push_guard(GuardValue, &[a, b]);
            }
            3 => {
                let op = self.rng.pick(&[GuardNonnull, GuardIsnull]);
                let a = self.value(Kind::Ref);
                self.push_guard(op, &[a]);
            }
            4 if !stacks.is_empty() => {
                let op = self.rng.pick(&[GuardClass, GuardNonnullClass]);
                let obj = self.rng.pick(&stacks);
                let cls = self.konst(Const::Int(STACK_VTABLE as i64));
                self.push_guard(op, &[obj, cls]);
            }
            _ => self.push_guard(GuardNotInvalidated, &[]),
        }
    }
}

impl Gen<'_> {
    /// Stores a fresh value into every field of `obj`.
    fn init_fields(&mut self, obj: OpRef, shape: Shape) {
        for name in shape.fields() {
            self.set_field(obj, name);
        }
    }

    fn set_field(&mut self, obj: OpRef, name: &str) {
        let d = self.descr(name);
        let kind = d.as_field().map_or(Kind::Int, |f| f.kind);
        let v = self.value(kind);
        self.emit(Op::new(OpCode::SetfieldGc, &[obj, v]).with_descr(d));
    }

    /// Stores a fresh value into every item of a GC array.
    fn init_items(&mut self, obj: OpRef, descr: &'static str, len: i64) {
        for i in 0..len {
            self.set_item(obj, descr, i);
        }
    }

    fn set_item(&mut self, obj: OpRef, descr: &str, index: i64) {
        let d = self.descr(descr);
        let kind = d.as_array().map_or(Kind::Int, |a| a.kind);
        let (i, v) = (self.konst(Const::Int(index)), self.value(kind));
        self.emit(Op::new(OpCode::SetarrayitemGc, &[obj, i, v]).with_descr(d));
    }

    fn alloc(&mut self) {
        let shape = match self.rng.below(4) {
            0 => Shape::Node,
            1 => Shape::Triple,
            2 => Shape::Stack,
            _ => Shape::Array(self.rng.pick(&ARRAYS), 1 + self.rng.below(4) as i64),
        };
        let obj = match shape {
            Shape::Node | Shape::Triple => {
                let d = self.descr(if shape == Shape::Node {
                    "Node"
                } else {
                    "Triple"
                });
                let op = self.rng.pick(&[OpCode::New, OpCode::NewWithVtable]);
                self.def(Op::new(op, &[]).with_descr(d))
            }
            Shape::Stack => {
                self.def(Op::new(OpCode::NewWithVtable, &[]).with_descr(self.descr("Stack")))
            }
            Shape::Array(name, len) => {
                let n = self.konst(Const::Int(len));
                let clear = self.rng.chance(30);
                let op = if clear {
                    OpCode::NewArrayClear
                } else {
                    OpCode::NewArray
                };
                let obj = self.def(Op::new(op, &[n]).with_descr(self.descr(name)));
                if !clear {
                    self.init_items(obj, name, len);
                }
                self.objects.push((obj, shape));
                return;
            }
        };
        self.init_fields(obj, shape);
        self.objects.push((obj, shape));
    }

    fn pick_object(&mut self, want_array: bool) -> Option<(OpRef, Shape)> {
        let fits: Vec<(OpRef, Shape)> = self
            .objects
            .iter()
            .copied()
            .filter(|o| matches!(o.1, Shape::Array(..)) == want_array)
            .collect();
        (!fits.is_empty()).then(|| self.rng.pick(&fits))
    }

    fn field(&mut self) {
        let Some((obj, shape)) = self.pick_object(false) else {
            return self.alloc();
        };
        let name = self.rng.pick(shape.fields());
        if self.rng.chance(50) {
            return self.set_field(obj, name);
        }
        let d = self.descr(name);
        let op = match d.as_field().map(|f| f.kind) {
            Some(Kind::Ref) => OpCode::GetfieldGcR,
            Some(Kind::Float) => OpCode::GetfieldGcF,
            _ => OpCode::GetfieldGcI,
        };
        self.def(Op::new(op, &[obj]).with_descr(d));
    }

    fn array(&mut self) {
        let Some((obj, Shape::Array(name, len))) = self.pick_object(true) else {
            return self.alloc();
        };
        let index = self.rng.below(len as usize) as i64;
        match self.rng.below(3) {
            0 => self.set_item(obj, name, index),
            1 => {
                let d = self.descr(name);
                let op = match d.as_array().map(|a| a.kind) {
                    Some(Kind::Ref) => OpCode::GetarrayitemGcR,
                    Some(Kind::Float) => OpCode::GetarrayitemGcF,
                    _ => OpCode::GetarrayitemGcI,
                };
                let i = self.konst(Const::Int(index));
                self.def(Op::new(op, &[obj, i]).with_descr(d));
            }
            _ => {
                self.def(Op::new(OpCode::ArraylenGc, &[obj]).with_descr(self.descr(name)));
            }
        }
    }

    /// Raw memory ops on the bytes of an object of this trace: the address
    /// comes from `cast_ptr_to_int` right before and is used only by the
    /// next op, so no collection can move the object in between.
    fn raw(&mut self) {
        let fits: Vec<(OpRef, Shape)> = self
            .objects
            .iter()
            .copied()
            .filter(|o| {
                matches!(
                    o.1,
                    Shape::Triple | Shape::Array("IntArray" | "FloatArray", _)
                )
            })
            .collect();
        if fits.is_empty() {
            return self.alloc();
        }
        let (obj, shape) = self.rng.pick(&fits);
        let addr = self.emit(Op::new(OpCode::CastPtrToInt, &[obj]));
        match shape {
            Shape::Array(_, len) => self.raw_array(addr, len),
            _ => self.raw_field(addr),
        }
    }

    fn raw_field(&mut self, addr: OpRef) {
        let (name, kind) = self
            .rng
            .pick(&[("RawCell.int", Kind::Int), ("RawCell.float", Kind::Float)]);
        let d = self.descr(name);
        if self.rng.chance(50) {
            let v = self.value(kind);
            self.emit(Op::new(OpCode::SetfieldRaw, &[addr, v]).with_descr(d));
        } else {
            let op = if kind == Kind::Int {
                OpCode::GetfieldRawI
            } else {
                OpCode::GetfieldRawF
            };
            self.def(Op::new(op, &[addr]).with_descr(d));
        }
    }

    /// One raw access inside the items of an int or float GC array of
    /// `len` 8-byte items at offset 16.
    fn raw_array(&mut self, addr: OpRef, len: i64) {
        let raws: Vec<(&str, u8, Kind)> = RAW_INT_ARRAYS
            .iter()
            .map(|&(n, size, _)| (n, size, Kind::Int))
            .chain([("RawF64", 8, Kind::Float)])
            .collect();
        let (name, size, kind) = self.rng.pick(&raws);
        let d = self.descr(name);
        let index = self.rng.below((len * 8 / size as i64) as usize) as i64;
        let float = kind == Kind::Float;
        if self.rng.chance(50) {
            // raw_load/raw_store take a byte offset from the address.
            let off = self.konst(Const::Int(16 + index * size as i64));
            if self.rng.chance(50) {
                let v = self.value(kind);
                self.emit(Op::new(OpCode::RawStore, &[addr, off, v]).with_descr(d));
            } else {
                let op = if float {
                    OpCode::RawLoadF
                } else {
                    OpCode::RawLoadI
                };
                self.def(Op::new(op, &[addr, off]).with_descr(d));
            }
        } else {
            // getarrayitem_raw/setarrayitem_raw index items from the base.
            let sixteen = self.konst(Const::Int(16));
            let base = self.emit(Op::new(OpCode::IntAdd, &[addr, sixteen]));
            let i = self.konst(Const::Int(index));
            if self.rng.chance(50) {
                let v = self.value(kind);
                self.emit(Op::new(OpCode::SetarrayitemRaw, &[base, i, v]).with_descr(d));
            } else {
                let op = if float {
                    OpCode::GetarrayitemRawF
                } else {
                    OpCode::GetarrayitemRawI
                };
                self.def(Op::new(op, &[base, i]).with_descr(d));
            }
        }
    }

    fn call(&mut self) {
        use OpCode::*;
        let n = self.rng.below(CALL_DESCRS.len());
        let name = CALL_DESCRS[n];
        let d = self.descr(name);
        let Some(c) = d.as_call().cloned() else {
            return;
        };
        if !self.knobs.floats && c.args.contains(&Kind::Float) {
            return;
        }
        let e = &c.effect;
        let opcode = if e.may_force {
            CallMayForceI
        } else if e.effect == CallEffect::Elidable && self.rng.chance(50) {
            CallPureI
        } else {
            CallI
        };
        let Some(opcode) = opcode.call_with_result(c.result) else {
            return;
        };
        let mut args = vec![self.konst(Const::Int(CALL_TARGET_BASE + 16 * n as i64))];
        for &k in &c.args {
            args.push(self.value(k));
        }
        let r = self.t.push(Op::new(opcode, &args).with_descr(d));
        if e.may_force {
            self.push_guard(GuardNotForced, &[]);
        }
        if e.can_raise {
            self.push_guard(GuardNoException, &[]);
        }
        if let Some(k) = c.result.kind() {
            self.pools[slot(k)].push(r);
        }
    }

    fn lowered(&mut self) {
        use OpCode::*;
        match self.rng.below(5) {
            0 => {
                let size = self.konst(Const::Int(32));
                let chunk = self.emit(Op::new(CallMallocNursery, &[size]));
                let sixteen = self.konst(Const::Int(16));
                self.emit(Op::new(NurseryPtrIncrement, &[chunk, sixteen]));
            }
            1 => {
                let size = self.konst(Const::Int(16));
                let obj = self.def(
                    Op::new(CallMallocNurseryHeaderless, &[size]).with_descr(self.descr("Node")),
                );
                self.init_fields(obj, Shape::Node);
                self.objects.push((obj, Shape::Node));
            }
            2 => {
                let len = 1 + self.rng.below(4) as i64;
                let n = self.konst(Const::Int(len));
                let obj = self.def(
                    Op::new(CallMallocNurseryVarsize, &[n]).with_descr(self.descr("IntArray")),
                );
                self.init_items(obj, "IntArray", len);
                self.objects.push((obj, Shape::Array("IntArray", len)));
            }
            3 => {
                let Some((obj, _)) = self.pick_object(false) else {
                    return;
                };
                self.emit(Op::new(CondCallGcWb, &[obj]));
            }
            _ => {
                let Some((obj, Shape::Array(_, len))) = self.pick_object(true) else {
                    return;
                };
                let index = self.rng.below(len as usize) as i64;
                let i = self.konst(Const::Int(index));
                self.emit(Op::new(CondCallGcWbArray, &[obj, i]));
            }
        }
    }

    fn debug(&mut self) {
        let n = self.rng.below(3);
        let args: Vec<OpRef> = (0..n).map(|_| self.value(Kind::Int)).collect();
        self.emit(Op::new(OpCode::DebugMergePoint, &args));
    }

    /// Ends the trace: a jump back to the label, or a finish.
    fn close(&mut self) {
        if self.knobs.loops {
            let kinds = self.t.inputs.clone();
            let args: Vec<OpRef> = kinds.iter().map(|&k| self.value(k)).collect();
            let target = self.descr("Loop");
            self.emit(Op::new(OpCode::Jump, &args).with_descr(target));
        } else {
            let n = self.rng.below(4);
            let args: Vec<OpRef> = (0..n)
                .map(|_| {
                    let k = self.any_kind();
                    self.value(k)
                })
                .collect();
            let mut op = Op::new(OpCode::Finish, &args);
            if self.rng.chance(50) {
                op = op.with_descr(fail_descr(self.next_fail));
            }
            self.emit(op);
        }
    }
}

/// Why `trace` fails the round trip (`parse(print(t)) == t` and printing
/// the result gives the same text), or `None` if it passes.
fn roundtrip_failure(trace: &Trace) -> Option<String> {
    let text = print(trace);
    match parse(&text) {
        Err(e) => Some(format!("printed text does not parse: {e}\n{text}")),
        Ok(back) if back != *trace => Some(format!(
            "parse(print(t)) != t\n--- printed\n{text}--- reprinted\n{}",
            print(&back)
        )),
        Ok(back) if print(&back) != text => Some(format!(
            "print(parse(print(t))) != print(t)\n--- printed\n{text}--- reprinted\n{}",
            print(&back)
        )),
        Ok(_) => None,
    }
}

/// Panics (with the trace text) unless `parse(print(trace)) == trace` and
/// printing is stable across the round trip.
pub fn check_roundtrip(trace: &Trace) {
    if let Some(why) = roundtrip_failure(trace) {
        panic!("round trip failed: {why}");
    }
}

/// Generates the trace of `seed`, verifies it and round-trips it; panics
/// with the seed and the trace text on any failure.
pub fn check_seed(seed: u64, knobs: &Knobs) {
    let t = random_trace(seed, knobs);
    if let Err(e) = verify(&t) {
        panic!(
            "seed {seed}: generated trace does not verify:\n{e}\n{}",
            print(&t)
        );
    }
    if let Some(why) = roundtrip_failure(&t) {
        panic!("seed {seed}: round trip failed: {why}");
    }
}

/// A copy of `trace` with one to three random structural corruptions:
/// an argument or fail arg replaced by an arbitrary (possibly dangling)
/// reference, an op removed, two ops swapped, a descriptor dropped or
/// replaced, fail args toggled, or the opcode replaced. The result is
/// usually invalid; it exercises the verifier and printer on bad traces.
pub fn corrupt_trace(trace: &Trace, seed: u64) -> Trace {
    let mut rng = SplitMix64::new(seed);
    let mut t = trace.clone();
    let descrs: Vec<Descr> = test_namespace().descrs().cloned().collect();
    for _ in 0..1 + rng.below(3) {
        if t.ops.is_empty() {
            break;
        }
        let i = rng.below(t.ops.len());
        match rng.below(6) {
            0 => {
                let r = match rng.below(3) {
                    0 => OpRef::input(rng.below(t.inputs.len() + 2)),
                    1 => OpRef::op(rng.below(t.ops.len() + 2)),
                    _ => OpRef::konst(rng.below(t.consts().len() + 2)),
                };
                let op = &mut t.ops[i];
                let n = op.args.len() + op.fail_args.as_ref().map_or(0, Vec::len);
                let k = rng.below(n.max(1));
                match (op.args.len(), &mut op.fail_args) {
                    (a, _) if k < a => op.args[k] = r,
                    (a, Some(fail)) if k - a < fail.len() => fail[k - a] = r,
                    _ => op.args.push(r),
                }
            }
            1 => {
                t.ops.remove(i);
            }
            2 => {
                let j = rng.below(t.ops.len());
                t.ops.swap(i, j);
            }
            3 => {
                t.ops[i].descr = rng
                    .chance(50)
                    .then(|| descrs[rng.below(descrs.len())].clone())
            }
            4 => {
                let op = &mut t.ops[i];
                op.fail_args = if op.fail_args.is_some() {
                    None
                } else {
                    Some(Vec::new())
                };
            }
            _ => t.ops[i].opcode = rng.pick(OpCode::ALL),
        }
    }
    t
}

/// Corrupts the trace of `seed` ([`corrupt_trace`]): verifying and
/// printing it must not panic, and if it still verifies it must
/// round-trip. Panics with the seed and the trace otherwise.
pub fn check_corruption(seed: u64, knobs: &Knobs) {
    let t = corrupt_trace(&random_trace(seed, knobs), seed ^ 0xc0de);
    let outcome = std::panic::catch_unwind(|| {
        let text = print(&t);
        match verify(&t) {
            Ok(()) => roundtrip_failure(&t),
            Err(e) => {
                let _ = (e.to_string(), text);
                None
            }
        }
    });
    match outcome {
        Err(_) => panic!("seed {seed}: the verifier or printer panicked on:\n{t:#?}"),
        Ok(Some(why)) => panic!("seed {seed}: corrupted trace verifies but {why}"),
        Ok(None) => {}
    }
}

/// Tokens that mutations splice in: the parser's punctuation, keywords,
/// and edge-case numbers.
const SPLICES: [&str; 24] = [
    "(",
    ")",
    "[",
    "]",
    ",",
    "=",
    "descr=",
    "descr x = ",
    "@",
    "@x",
    "#",
    "-",
    "1e999",
    "0x",
    "99999999999999999999",
    "-0x8000000000000001",
    "nan",
    "i0",
    "p99",
    "f1 =",
    "guard_true(",
    "float_bits(",
    "ptr(",
    "\u{e9}",
];

/// A mutated copy of `text`: one to four random edits (delete, duplicate
/// or swap lines, splice a token, replace or drop characters, truncate).
/// Used to check that the parser fails cleanly on almost-valid text.
pub fn mutate_text(text: &str, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let l = rng.below(lines.len());
        let mut chars: Vec<char> = lines[l].chars().collect();
        let at = rng.below(chars.len() + 1);
        match rng.below(7) {
            0 => {
                lines.remove(l);
            }
            1 => {
                let copy = lines[l].clone();
                lines.insert(rng.below(lines.len() + 1), copy);
            }
            2 => {
                let m = rng.below(lines.len());
                lines.swap(l, m);
            }
            3 => {
                let splice: Vec<char> = rng.pick(&SPLICES).chars().collect();
                chars.splice(at..at, splice);
                lines[l] = chars.into_iter().collect();
            }
            4 => {
                let end = (at + 1 + rng.below(4)).min(chars.len());
                chars.drain(at.min(end)..end);
                lines[l] = chars.into_iter().collect();
            }
            5 => {
                let c = char::from_u32(rng.below(0x300) as u32).unwrap_or('?');
                if at < chars.len() {
                    chars[at] = c;
                } else {
                    chars.push(c);
                }
                lines[l] = chars.into_iter().collect();
            }
            _ => {
                chars.truncate(at);
                lines[l] = chars.into_iter().collect();
                lines.truncate(l + 1);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Mutates the printed trace of `seed` and parses the result: it must not
/// panic, and if it parses and verifies it must round-trip. Panics with the
/// seed and the mutated text otherwise.
pub fn check_mutation(seed: u64, knobs: &Knobs) {
    let text = mutate_text(&print(&random_trace(seed, knobs)), seed ^ 0x5eed);
    let outcome = std::panic::catch_unwind(|| match parse(&text) {
        Ok(t) if verify(&t).is_ok() => roundtrip_failure(&t),
        Ok(t) => {
            let _ = print(&t);
            None
        }
        Err(e) => {
            let _ = e.to_string();
            None
        }
    });
    match outcome {
        Err(_) => panic!("seed {seed}: the parser or verifier panicked on:\n{text}"),
        Ok(Some(why)) => panic!("seed {seed}: mutated text verifies but {why}"),
        Ok(None) => {}
    }
}
