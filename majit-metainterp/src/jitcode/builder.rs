//! The jitcode builder: the one API that writes jitcode, used by hand and
//! by the `#[jit_interp]` macro.
//!
//! The builder collects symbolic instructions (registers, constants and
//! labels by name) and encodes them in [`JitCodeBuilder::finish`], once the
//! register counts are known (constant operands are numbered after the
//! registers of their bank). It inserts the `-live-` markers itself (before
//! every instruction where a guard can be taken, after every inline call
//! and every call that can raise), then runs the liveness pass on the
//! encoded code.
//!
//! Builder methods do not return errors one by one: the first misuse (a
//! kind mismatch, a descr of the wrong sort, an unbound label) is kept and
//! returned by `finish`, naming the instruction.
//!
//! ```
//! use majit_metainterp::jitcode::{JitCodeBuilder, Arg};
//! use majit_ir::{Kind, OpCode};
//! // fn count(n) { let mut i = 0; while i < n { i += 1 }; return i }
//! let mut b = JitCodeBuilder::new("count");
//! let n = b.param(Kind::Int);
//! let i = b.reg(Kind::Int);
//! let c = b.reg(Kind::Int);
//! b.copy(Arg::Int(0), i);
//! let head = b.label();
//! let exit = b.label();
//! b.bind(head);
//! b.op(OpCode::IntLt, &[i.into(), n.into()], c);
//! b.goto_if_not(c.into(), exit);
//! b.op(OpCode::IntAdd, &[i.into(), Arg::Int(1)], i);
//! b.goto(head);
//! b.bind(exit);
//! b.ret(Some(i.into()));
//! let code = b.finish().unwrap();
//! assert!(code.disassemble().contains("goto_if_not"));
//! ```

use super::{
    bank_index, is_ovf_jitcode_op, is_pure_jitcode_op, kind_byte, kind_of_letter, liveness, FuncId,
    JOp, JitCode, LiveSet, RegOp, SwitchTable,
};
use majit_ir::{Descr, Kind, OpCode, ResultKind};
use std::fmt;

/// A register of the function being built.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub kind: Kind,
    pub index: u16,
}

/// An operand: a register or a constant of some bank.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Arg {
    Reg(Reg),
    Int(i64),
    /// A ref constant: must stay valid (prebuilt or pinned) while the
    /// jitcode and any trace using it live.
    Ref(usize),
    Float(f64),
}

impl From<Reg> for Arg {
    fn from(r: Reg) -> Arg {
        Arg::Reg(r)
    }
}

impl Arg {
    /// The bank of this operand.
    pub fn kind(self) -> Kind {
        match self {
            Arg::Reg(r) => r.kind,
            Arg::Int(_) => Kind::Int,
            Arg::Ref(_) => Kind::Ref,
            Arg::Float(_) => Kind::Float,
        }
    }
}

/// A jump target, bound to a position with [`JitCodeBuilder::bind`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label(u32);

/// Jitcode that could not be built: which function, which instruction
/// (counted from 0 in builder-call order) and what is wrong. The author of
/// the jitcode (by hand or the macro) acts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    pub function: String,
    pub insn: usize,
    pub message: String,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "jitcode {}: instruction {}: {}",
            self.function, self.insn, self.message
        )
    }
}

impl std::error::Error for BuildError {}

/// One symbolic operand, in the instruction's format order.
#[derive(Clone, Debug)]
enum Item {
    Arg(Arg),
    Dst(Reg),
    Label(Label),
    Descr(u16),
    OpCode(OpCode),
    List(Vec<Arg>),
    Callee(FuncId),
    Switch(usize),
    Live,
}

#[derive(Clone, Debug)]
enum Sym {
    Insn(JOp, Vec<Item>),
    Bind(Label),
}

/// Writes one jitcode function. See the module docs for an example.
#[derive(Debug)]
pub struct JitCodeBuilder {
    name: String,
    num_regs: [u32; 3],
    params: Vec<Reg>,
    insns: Vec<Sym>,
    labels: u32,
    descrs: Vec<Descr>,
    switches: Vec<Vec<(i64, Label)>>,
    error: Option<BuildError>,
    count: usize,
    /// The last instruction is a call that can raise (or an inline call):
    /// a `catch_exception` may follow.
    can_catch: bool,
}

impl JitCodeBuilder {
    /// A builder for the function `name`.
    pub fn new(name: &str) -> JitCodeBuilder {
        JitCodeBuilder {
            name: name.to_string(),
            num_regs: [0; 3],
            params: Vec::new(),
            insns: Vec::new(),
            labels: 0,
            descrs: Vec::new(),
            switches: Vec::new(),
            error: None,
            count: 0,
            can_catch: false,
        }
    }

    /// A fresh register of bank `kind`.
    pub fn reg(&mut self, kind: Kind) -> Reg {
        let n = &mut self.num_regs[bank_index(kind)];
        let index = (*n).min(u16::MAX.into()) as u16;
        *n += 1;
        Reg { kind, index }
    }

    /// A fresh register that receives the next argument of the function.
    pub fn param(&mut self, kind: Kind) -> Reg {
        let r = self.reg(kind);
        self.params.push(r);
        r
    }

    /// A fresh, unbound label.
    pub fn label(&mut self) -> Label {
        self.labels += 1;
        Label(self.labels - 1)
    }

    /// Binds `l` to the position of the next instruction.
    pub fn bind(&mut self, l: Label) {
        self.insns.push(Sym::Bind(l));
        self.can_catch = false;
    }

    fn fail(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some(BuildError {
                function: self.name.clone(),
                insn: self.count,
                message,
            });
        }
    }

    fn check_kind(&mut self, what: &str, got: Kind, want: Kind) {
        if got != want {
            self.fail(format!(
                "{what} must be {}, got {}",
                want.name(),
                got.name()
            ));
        }
    }

    fn emit(&mut self, op: JOp, items: Vec<Item>) {
        self.insns.push(Sym::Insn(op, items));
        self.count += 1;
        self.can_catch = false;
    }

    fn live(&mut self) {
        self.insns.push(Sym::Insn(JOp::Live, vec![Item::Live]));
    }

    fn intern_descr(&mut self, d: Descr) -> u16 {
        let i = match self.descrs.iter().position(|e| *e == d) {
            Some(i) => i,
            None => {
                self.descrs.push(d);
                self.descrs.len() - 1
            }
        };
        i as u16
    }

    /// `dst = op(args)` for a pure IR op (arithmetic, comparisons, casts,
    /// `ptr_eq`...). Operand and result kinds follow the op's signature.
    pub fn op(&mut self, op: OpCode, args: &[Arg], dst: Reg) {
        if !is_pure_jitcode_op(op) {
            self.fail(format!("{op} is not a pure jitcode op"));
            return;
        }
        let sig: Vec<Kind> = op.info().args.chars().filter_map(kind_of_letter).collect();
        if sig.len() != args.len() {
            self.fail(format!(
                "{op} takes {} operands, got {}",
                sig.len(),
                args.len()
            ));
            return;
        }
        for (a, k) in args.iter().zip(&sig) {
            self.check_kind(&format!("operand of {op}"), a.kind(), *k);
        }
        if let Some(k) = op.result().kind() {
            self.check_kind(&format!("result of {op}"), dst.kind, k);
        }
        let mut items = vec![Item::OpCode(op)];
        items.extend(args.iter().map(|&a| Item::Arg(a)));
        items.push(Item::Dst(dst));
        self.emit(JOp::Pure, items);
    }

    /// `dst = op(a, b)` for `int_add_ovf`/`int_sub_ovf`/`int_mul_ovf`;
    /// `dst` gets the wrapped result, then control goes to `on_overflow`
    /// if the operation overflowed.
    pub fn ovf(&mut self, op: OpCode, a: Arg, b: Arg, dst: Reg, on_overflow: Label) {
        if !is_ovf_jitcode_op(op) {
            self.fail(format!("{op} is not an overflow-checked op"));
        }
        for x in [a.kind(), b.kind(), dst.kind] {
            self.check_kind(&format!("operand of {op}"), x, Kind::Int);
        }
        self.live();
        let items = vec![
            Item::OpCode(op),
            Item::Label(on_overflow),
            Item::Arg(a),
            Item::Arg(b),
            Item::Dst(dst),
        ];
        self.emit(JOp::Ovf, items);
    }

    /// `dst = src` (same bank).
    pub fn copy(&mut self, src: Arg, dst: Reg) {
        self.check_kind("copy source", src.kind(), dst.kind);
        let op = match dst.kind {
            Kind::Int => JOp::CopyI,
            Kind::Ref => JOp::CopyR,
            Kind::Float => JOp::CopyF,
        };
        self.emit(op, vec![Item::Arg(src), Item::Dst(dst)]);
    }

    /// Unconditional jump.
    pub fn goto(&mut self, l: Label) {
        self.emit(JOp::Goto, vec![Item::Label(l)]);
    }

    /// Jumps to `l` when the int `cond` is zero.
    pub fn goto_if_not(&mut self, cond: Arg, l: Label) {
        self.check_kind("goto_if_not condition", cond.kind(), Kind::Int);
        self.live();
        self.emit(JOp::GotoIfNot, vec![Item::Arg(cond), Item::Label(l)]);
    }

    /// Jumps to `l` when the ref `r` is null.
    pub fn goto_if_null(&mut self, r: Arg, l: Label) {
        self.check_kind("goto_if_null operand", r.kind(), Kind::Ref);
        self.live();
        self.emit(JOp::GotoIfNull, vec![Item::Arg(r), Item::Label(l)]);
    }

    /// Jumps to the label of the case equal to `v`; falls through when no
    /// case matches.
    pub fn switch(&mut self, v: Arg, cases: &[(i64, Label)]) {
        self.check_kind("switch operand", v.kind(), Kind::Int);
        self.switches.push(cases.to_vec());
        let s = self.switches.len() - 1;
        self.live();
        self.emit(JOp::Switch, vec![Item::Arg(v), Item::Switch(s)]);
    }

    fn field_descr(&mut self, d: &Descr) -> Option<Kind> {
        match d.as_field() {
            Some(f) => Some(f.kind),
            None => {
                self.fail(format!("{} is a {} descr, not a field", d, d.sort()));
                None
            }
        }
    }

    fn array_descr(&mut self, d: &Descr) -> Option<Kind> {
        match d.as_array() {
            Some(a) => Some(a.kind),
            None => {
                self.fail(format!("{} is a {} descr, not an array", d, d.sort()));
                None
            }
        }
    }

    /// `dst = obj.field`; the bank comes from the field descr.
    pub fn getfield(&mut self, obj: Arg, descr: Descr, dst: Reg) {
        let Some(kind) = self.field_descr(&descr) else {
            return;
        };
        self.check_kind("getfield object", obj.kind(), Kind::Ref);
        self.check_kind(&format!("result of getfield {descr}"), dst.kind, kind);
        let op = [JOp::GetfieldI, JOp::GetfieldR, JOp::GetfieldF][bank_index(kind)];
        if descr.as_field().is_some_and(|f| f.quasi_immutable) {
            // The tracer may record `guard_not_invalidated` here.
            self.live();
        }
        let d = self.intern_descr(descr);
        self.emit(op, vec![Item::Arg(obj), Item::Descr(d), Item::Dst(dst)]);
    }

    /// `obj.field = value`.
    pub fn setfield(&mut self, obj: Arg, value: Arg, descr: Descr) {
        let Some(kind) = self.field_descr(&descr) else {
            return;
        };
        self.check_kind("setfield object", obj.kind(), Kind::Ref);
        self.check_kind(&format!("value of setfield {descr}"), value.kind(), kind);
        let op = [JOp::SetfieldI, JOp::SetfieldR, JOp::SetfieldF][bank_index(kind)];
        let d = self.intern_descr(descr);
        self.emit(op, vec![Item::Arg(obj), Item::Arg(value), Item::Descr(d)]);
    }

    /// `dst = array[index]`.
    pub fn getarrayitem(&mut self, array: Arg, index: Arg, descr: Descr, dst: Reg) {
        let Some(kind) = self.array_descr(&descr) else {
            return;
        };
        self.check_kind("array operand", array.kind(), Kind::Ref);
        self.check_kind("array index", index.kind(), Kind::Int);
        self.check_kind(&format!("result of getarrayitem {descr}"), dst.kind, kind);
        let op = [JOp::GetarrayitemI, JOp::GetarrayitemR, JOp::GetarrayitemF][bank_index(kind)];
        let d = self.intern_descr(descr);
        let items = vec![
            Item::Arg(array),
            Item::Arg(index),
            Item::Descr(d),
            Item::Dst(dst),
        ];
        self.emit(op, items);
    }

    /// `array[index] = value`.
    pub fn setarrayitem(&mut self, array: Arg, index: Arg, value: Arg, descr: Descr) {
        let Some(kind) = self.array_descr(&descr) else {
            return;
        };
        self.check_kind("array operand", array.kind(), Kind::Ref);
        self.check_kind("array index", index.kind(), Kind::Int);
        self.check_kind(
            &format!("value of setarrayitem {descr}"),
            value.kind(),
            kind,
        );
        let op = [JOp::SetarrayitemI, JOp::SetarrayitemR, JOp::SetarrayitemF][bank_index(kind)];
        let d = self.intern_descr(descr);
        let items = vec![
            Item::Arg(array),
            Item::Arg(index),
            Item::Arg(value),
            Item::Descr(d),
        ];
        self.emit(op, items);
    }

    /// `dst = len(array)`.
    pub fn arraylen(&mut self, array: Arg, descr: Descr, dst: Reg) {
        self.array_descr(&descr);
        self.check_kind("array operand", array.kind(), Kind::Ref);
        self.check_kind("arraylen result", dst.kind, Kind::Int);
        let d = self.intern_descr(descr);
        self.emit(
            JOp::Arraylen,
            vec![Item::Arg(array), Item::Descr(d), Item::Dst(dst)],
        );
    }

    /// `dst = class(obj)`: the class word of the non-null headered object
    /// `obj` (see `JitCodeSet::class_word`). A trace records
    /// `guard_class(obj, class)` and continues with the class as a
    /// constant, so comparing it with a class folds.
    pub fn guard_class(&mut self, obj: Arg, dst: Reg) {
        self.check_kind("guard_class operand", obj.kind(), Kind::Ref);
        self.check_kind("guard_class result", dst.kind, Kind::Int);
        self.live();
        self.emit(JOp::GuardClass, vec![Item::Arg(obj), Item::Dst(dst)]);
    }

    /// `dst = new(layout)`: a zeroed object (headered or headerless).
    pub fn new_object(&mut self, layout: Descr, dst: Reg) {
        if layout.as_size().is_none() {
            self.fail(format!(
                "{} is a {} descr, not a size",
                layout,
                layout.sort()
            ));
        }
        self.check_kind("new result", dst.kind, Kind::Ref);
        let d = self.intern_descr(layout);
        self.emit(JOp::New, vec![Item::Descr(d), Item::Dst(dst)]);
    }

    /// `dst = new_array(len)`.
    pub fn new_array(&mut self, len: Arg, descr: Descr, dst: Reg) {
        self.array_descr(&descr);
        self.check_kind("array length", len.kind(), Kind::Int);
        self.check_kind("new_array result", dst.kind, Kind::Ref);
        let d = self.intern_descr(descr);
        self.emit(
            JOp::NewArray,
            vec![Item::Arg(len), Item::Descr(d), Item::Dst(dst)],
        );
    }

    /// Calls the `extern "C"` function at address `func` (an int operand,
    /// usually a constant) with `args`. The policy comes from the call
    /// descr's effect: `Elidable` calls record `call_pure_*` and fold when
    /// every argument is constant; the others are residual `call_*`.
    /// `dst` must match the descr's result kind (`None` for void). When
    /// the descr says `can_raise`, the helper may raise (`runtime::raise`)
    /// and [`JitCodeBuilder::catch_exception`] may follow.
    pub fn call(&mut self, descr: Descr, func: Arg, args: &[Arg], dst: Option<Reg>) {
        let Some(cd) = descr.as_call().cloned() else {
            self.fail(format!("{} is a {} descr, not a call", descr, descr.sort()));
            return;
        };
        self.check_kind("call target", func.kind(), Kind::Int);
        if cd.args.len() != args.len() {
            self.fail(format!(
                "call {} takes {} arguments, got {}",
                cd.name,
                cd.args.len(),
                args.len()
            ));
        }
        for (a, k) in args.iter().zip(&cd.args) {
            self.check_kind(&format!("argument of call {}", cd.name), a.kind(), *k);
        }
        if dst.map(|r| r.kind) != cd.result.kind() {
            self.fail(format!("call {}: result register does not match", cd.name));
        }
        let op = match cd.result {
            ResultKind::Int => JOp::CallI,
            ResultKind::Ref => JOp::CallR,
            ResultKind::Float => JOp::CallF,
            ResultKind::Void => JOp::CallV,
        };
        let d = self.intern_descr(descr);
        let mut items = vec![Item::Descr(d), Item::Arg(func), Item::List(args.to_vec())];
        items.extend(dst.map(Item::Dst));
        self.emit(op, items);
        if cd.effect.can_raise {
            // Where a failing `guard_no_exception` resumes.
            self.live();
            self.can_catch = true;
        }
    }

    /// Calls the jitcode function `callee`, which the tracer traces
    /// through (a new frame). Arguments go to the callee's parameters in
    /// order; `dst` receives its result (`None` for void). The kinds are
    /// checked against the callee when a tracer or blackhole runs it.
    pub fn inline_call(&mut self, callee: FuncId, args: &[Arg], dst: Option<Reg>) {
        let op = match dst.map(|r| r.kind) {
            Some(Kind::Int) => JOp::InlineCallI,
            Some(Kind::Ref) => JOp::InlineCallR,
            Some(Kind::Float) => JOp::InlineCallF,
            None => JOp::InlineCallV,
        };
        let mut items = vec![Item::Callee(callee), Item::List(args.to_vec())];
        items.extend(dst.map(Item::Dst));
        self.emit(op, items);
        self.live();
        self.can_catch = true;
    }

    /// The handler of the call just emitted (a `call` whose descr can
    /// raise, or an `inline_call`): when it raised, control goes to
    /// `handler` with the exception value in `dst` (an int or ref
    /// register of the exception's kind; `None` ignores the value);
    /// otherwise this does nothing. Without a catch, an exception ends the
    /// frame and goes to the caller's catch. On the exception path the
    /// call's own destination holds no meaningful value.
    pub fn catch_exception(&mut self, handler: Label, dst: Option<Reg>) {
        if !self.can_catch {
            self.fail(
                "catch_exception must directly follow a call that can raise or an inline call"
                    .into(),
            );
            return;
        }
        let op = match dst.map(|r| r.kind) {
            None => JOp::Catch,
            Some(Kind::Int) => JOp::CatchI,
            Some(Kind::Ref) => JOp::CatchR,
            Some(Kind::Float) => {
                self.fail("an exception is an int or a ref, not a float".into());
                return;
            }
        };
        let mut items = vec![Item::Label(handler)];
        items.extend(dst.map(Item::Dst));
        self.emit(op, items);
    }

    /// Ends the function by raising `v` (an int or a ref): the exception
    /// goes to the catch after the caller's `inline_call`, or out of the
    /// caller too when it has none (out of the portal: the program ends
    /// with it).
    pub fn raise(&mut self, v: Arg) {
        let op = match v.kind() {
            Kind::Int => JOp::RaiseI,
            Kind::Ref => JOp::RaiseR,
            Kind::Float => {
                self.fail("an exception is an int or a ref, not a float".into());
                return;
            }
        };
        self.emit(op, vec![Item::Arg(v)]);
    }

    /// `promote(v)`: the tracer makes `v` a constant behind a
    /// `guard_value` (RPython's `int_guard_value` / `ref_guard_value` /
    /// `float_guard_value` hint; a float is compared bit for bit, so
    /// `-0.0` and each NaN payload are constants of their own).
    pub fn promote(&mut self, v: Arg) {
        let op = match v.kind() {
            Kind::Int => JOp::PromoteI,
            Kind::Ref => JOp::PromoteR,
            Kind::Float => JOp::PromoteF,
        };
        self.live();
        self.emit(op, vec![Item::Arg(v)]);
    }

    /// `dst = we_are_jitted()`: 1 while tracing (the trace records the
    /// constant), 0 in the blackhole, which runs the same jitcode when a
    /// guard fails (RPython's `we_are_jitted` hint).
    pub fn we_are_jitted(&mut self, dst: Reg) {
        self.check_kind("we_are_jitted result", dst.kind, Kind::Int);
        self.emit(JOp::WeAreJitted, vec![Item::Dst(dst)]);
    }

    /// Returns from the function (with a value, or none).
    pub fn ret(&mut self, v: Option<Arg>) {
        let op = match v.map(Arg::kind) {
            Some(Kind::Int) => JOp::ReturnI,
            Some(Kind::Ref) => JOp::ReturnR,
            Some(Kind::Float) => JOp::ReturnF,
            None => JOp::ReturnV,
        };
        self.emit(op, v.into_iter().map(Item::Arg).collect());
    }

    /// The interpreter's merge point: the head of its dispatch loop, with
    /// the green registers (the position in the user program) and the red
    /// ones (the rest of the state), each in declaration order. Traces
    /// start and close here; the blackhole stops here.
    pub fn jit_merge_point(&mut self, greens: &[Reg], reds: &[Reg]) {
        self.live();
        let (g, r) = (
            greens.iter().map(|&r| r.into()),
            reds.iter().map(|&r| r.into()),
        );
        let items = vec![Item::List(g.collect()), Item::List(r.collect())];
        self.emit(JOp::MergePoint, items);
    }

    /// A back edge of the user program, with the same greens and reds as
    /// the merge point it jumps to. A marker for readers and logs: the
    /// plain interpreter calls the driver's `can_enter_jit` there.
    pub fn can_enter_jit(&mut self, greens: &[Reg], reds: &[Reg]) {
        let (g, r) = (
            greens.iter().map(|&r| r.into()),
            reds.iter().map(|&r| r.into()),
        );
        let items = vec![Item::List(g.collect()), Item::List(r.collect())];
        self.emit(JOp::CanEnterJit, items);
    }

    /// Encodes the function and computes its liveness.
    pub fn finish(self) -> Result<JitCode, BuildError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Encoder::new(self).run()
    }
}

/// Turns the symbolic instruction list into bytes.
struct Encoder {
    b: JitCodeBuilder,
    code: Vec<u8>,
    consts_i: Vec<i64>,
    consts_r: Vec<usize>,
    consts_f: Vec<u64>,
    label_pos: Vec<Option<usize>>,
    /// (byte offset of a label operand, label)
    fixups: Vec<(usize, Label)>,
    live_count: u16,
}

impl Encoder {
    fn new(b: JitCodeBuilder) -> Encoder {
        let labels = b.labels as usize;
        Encoder {
            b,
            code: Vec::new(),
            consts_i: Vec::new(),
            consts_r: Vec::new(),
            consts_f: Vec::new(),
            label_pos: vec![None; labels],
            fixups: Vec::new(),
            live_count: 0,
        }
    }

    fn error(&self, insn: usize, message: String) -> BuildError {
        BuildError {
            function: self.b.name.clone(),
            insn,
            message,
        }
    }

    fn operand_index(&mut self, a: Arg) -> usize {
        fn intern<T: PartialEq>(v: &mut Vec<T>, x: T) -> usize {
            match v.iter().position(|e| *e == x) {
                Some(i) => i,
                None => {
                    v.push(x);
                    v.len() - 1
                }
            }
        }
        let base = |k: Kind| self.b.num_regs[bank_index(k)] as usize;
        match a {
            Arg::Reg(r) => usize::from(r.index),
            Arg::Int(v) => base(Kind::Int) + intern(&mut self.consts_i, v),
            Arg::Ref(v) => base(Kind::Ref) + intern(&mut self.consts_r, v),
            Arg::Float(v) => base(Kind::Float) + intern(&mut self.consts_f, v.to_bits()),
        }
    }

    fn operand(&mut self, insn: usize, v: usize, what: &str) -> Result<(), BuildError> {
        let b = u16::try_from(v).map_err(|_| {
            self.error(
                insn,
                format!("more than 65535 registers and constants for a {what} operand"),
            )
        })?;
        self.code.extend_from_slice(&b.to_le_bytes());
        Ok(())
    }

    fn item(&mut self, insn: usize, item: &Item) -> Result<(), BuildError> {
        match item {
            Item::Arg(a) => {
                let v = self.operand_index(*a);
                self.operand(insn, v, "register")?;
            }
            Item::Dst(r) => self.code.extend_from_slice(&r.index.to_le_bytes()),
            Item::Label(l) => {
                self.fixups.push((self.code.len(), *l));
                self.code.extend_from_slice(&[0, 0]);
            }
            Item::Descr(d) => self.code.extend_from_slice(&d.to_le_bytes()),
            Item::OpCode(op) => self.code.extend_from_slice(&(*op as u16).to_le_bytes()),
            Item::List(args) => {
                let n = u8::try_from(args.len())
                    .map_err(|_| self.error(insn, "more than 255 list operands".into()))?;
                self.code.push(n);
                for a in args {
                    self.code.push(kind_byte(a.kind()));
                    let v = self.operand_index(*a);
                    self.operand(insn, v, "list")?;
                }
            }
            Item::Callee(f) => self.code.extend_from_slice(&f.0.to_le_bytes()),
            Item::Switch(s) => self.code.extend_from_slice(&(*s as u16).to_le_bytes()),
            Item::Live => {
                self.code.extend_from_slice(&self.live_count.to_le_bytes());
                self.live_count += 1;
            }
        }
        Ok(())
    }

    fn run(mut self) -> Result<JitCode, BuildError> {
        for (k, &n) in self.b.num_regs.iter().enumerate() {
            if n > u32::from(u16::MAX) {
                let kind = [Kind::Int, Kind::Ref, Kind::Float][k];
                return Err(self.error(0, format!("more than 65535 {} registers", kind.name())));
            }
        }
        let insns = std::mem::take(&mut self.b.insns);
        let mut index = 0;
        for sym in &insns {
            match sym {
                Sym::Bind(l) => self.label_pos[l.0 as usize] = Some(self.code.len()),
                Sym::Insn(op, items) => {
                    self.code.push(*op as u8);
                    for item in items {
                        self.item(index, item)?;
                    }
                    if *op != JOp::Live {
                        index += 1;
                    }
                }
            }
        }
        if self.code.len() > u16::MAX as usize {
            return Err(self.error(index, "function longer than 65535 bytes".into()));
        }
        let resolve = |s: &Encoder, l: Label| {
            s.label_pos[l.0 as usize]
                .map(|p| p as u16)
                .ok_or_else(|| s.error(index, format!("label {} is never bound", l.0)))
        };
        for &(at, l) in &self.fixups {
            let pos = resolve(&self, l)?;
            self.code[at..at + 2].copy_from_slice(&pos.to_le_bytes());
        }
        let mut switches = Vec::new();
        for cases in &self.b.switches {
            let mut t = SwitchTable::default();
            for &(v, l) in cases {
                t.cases.push((v, resolve(&self, l)?));
            }
            switches.push(t);
        }
        let num_regs = self.b.num_regs.map(|n| n as u16);
        let mut jc = JitCode {
            name: self.b.name.clone(),
            code: self.code,
            num_regs,
            consts_i: self.consts_i,
            consts_r: self.consts_r,
            consts_f: self.consts_f.into_iter().map(f64::from_bits).collect(),
            descrs: self.b.descrs,
            switches,
            liveness: vec![LiveSet::default(); self.live_count as usize],
            params: self
                .b
                .params
                .iter()
                .map(|r| RegOp {
                    kind: r.kind,
                    index: r.index,
                })
                .collect(),
            insns: Vec::new(),
        };
        liveness::compute(&mut jc);
        jc.decode_all();
        Ok(jc)
    }
}
