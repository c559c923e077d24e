//! The random trace generator: [`random_trace`] builds a valid trace op
//! by op (see the `fuzzing` module docs for what "valid by construction"
//! covers).
//!
//! The generator keeps pools of the values defined so far, by kind, and of
//! the objects it allocated, with their [`Shape`]. Each step picks an op
//! family (arithmetic, guards, memory, calls, ...) among those the
//! [`Knobs`] enable; a family emits one or a few ops whose arguments come
//! from the pools or are fresh constants. Raw addresses (`cast_ptr_to_int`
//! results) never enter a pool: they are used by the very next op, before
//! anything can collect and move the object.

use super::namespace::{
    fail_descr, test_namespace, CALL_DESCRS, CALL_TARGET_BASE, RAW_INT_ARRAYS, STACK_VTABLE,
};
use super::{Knobs, SplitMix64};
use crate::descr::{CallEffect, Descr};
use crate::op::{Const, Op, OpRef};
use crate::opcode::{Kind, OpCode};
use crate::text::Namespace;
use crate::trace::Trace;

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

/// The word the generated `guard_not_invalidated`s test: zero forever, so
/// they never fail.
pub static NEVER_INVALIDATED: u64 = 0;

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
            UintFloorDiv,
            UintMod,
            IntAnd,
            IntOr,
            IntXor,
            IntLshift,
            IntRshift,
            UintRshift,
        ];
        let unary = [IntNeg, IntInvert, IntIsZero, IntIsTrue, IntFitsTag, SameAsI];
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
                self.rng.pick(&[FloatNeg, FloatAbs, FloatSqrt, SameAsF]),
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
        match self.rng.below(5) {
            0 => {
                let op = self.rng.pick(&[OpCode::PtrEq, OpCode::PtrNe]);
                let (a, b) = (self.value(Kind::Ref), self.value(Kind::Ref));
                self.def(Op::new(op, &[a, b]));
            }
            1 => {
                let a = self.value(Kind::Ref);
                self.def(Op::new(OpCode::SameAsR, &[a]));
            }
            2 => {
                // A small integer in a ref and back; the tagged ref is no
                // object, so it joins no pool (it would meet loads).
                let i = self.value(Kind::Int);
                let tagged = self.emit(Op::new(OpCode::IntTag, &[i]));
                let other = self.value(Kind::Ref);
                let bit = self.rng.pick(&[tagged, other]);
                self.def(Op::new(OpCode::PtrIsTagged, &[bit]));
                self.def(Op::new(OpCode::IntUntag, &[tagged]));
            }
            3 => {
                // A small float in a ref and back, as for small integers;
                // any float, fitting or not (`float_tag` is total).
                let f = self.value(Kind::Float);
                self.def(Op::new(OpCode::FloatFitsTag, &[f]));
                let tagged = self.emit(Op::new(OpCode::FloatTag, &[f]));
                let other = self.value(Kind::Ref);
                let word = self.rng.pick(&[tagged, other]);
                let test = self
                    .rng
                    .pick(&[OpCode::PtrIsFloatTagged, OpCode::PtrIsTagged]);
                self.def(Op::new(test, &[word]));
                self.def(Op::new(OpCode::FloatUntag, &[tagged]));
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
            _ => {
                let word = self.konst(Const::Ref(std::ptr::addr_of!(NEVER_INVALIDATED) as usize));
                self.push_guard(GuardNotInvalidated, &[word]);
            }
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
        if self.rng.chance(10) {
            // A dependency marker: no effect when the trace runs.
            let marker = Op::new(OpCode::QuasiimmutField, &[obj]).with_descr(d.clone());
            self.emit(marker);
        }
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
        if e.can_raise && self.rng.chance(30) {
            // The path where the helper raised (the test namespace's
            // raising helper raises ints): take its exception.
            self.push_guard(GuardException, &[]);
            let x = self.t.push(Op::new(SaveExceptionI, &[]));
            self.pools[slot(Kind::Int)].push(x);
        } else if e.can_raise {
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
                    // No object to bar: the other slow GC op.
                    self.emit(Op::new(CondCallGcCollect, &[]));
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
