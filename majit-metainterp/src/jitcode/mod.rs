//! Jitcode: the register bytecode that describes an interpreter's handlers
//! to the tracer and the blackhole interpreter.
//!
//! A [`JitCode`] is one interpreter function: an instruction string plus
//! per-bank constants, descriptors, switch tables and liveness sets. There
//! are three register banks (int, ref, float). A register operand is two
//! bytes (a language VM's interpreter function holds more than 256
//! registers and constants in a bank): below the bank's register count it
//! names a register, from there on entry `index - num_regs` of the bank's
//! constants. Labels, descrs, switch tables, callees and liveness sets are
//! two-byte operands too.
//!
//! Every instruction is an opcode byte ([`JOp`]) followed by operands in
//! the order its format string gives (see [`JOp::format`]). The generic
//! `pure` instruction carries an IR [`OpCode`] and takes its register
//! operands from that op's signature, so jitcode arithmetic mirrors the IR
//! exactly. [`decode`] turns bytes back into an [`Insn`]; the liveness pass,
//! the disassembler, the tracer and the blackhole all read jitcode through
//! it, so there is one definition of the encoding.
//!
//! Files: [`builder`] writes jitcode (the one API both hand-written jitcode
//! and the macro use), [`liveness`] fills the `-live-` markers, [`disasm`]
//! prints jitcode for logs, [`eval`] gives the concrete semantics shared by
//! the tracer and the blackhole.
//!
//! Invariants: a decoded instruction never reads past the code; label
//! operands point at instruction starts; every point where a guard can be
//! taken or a frame resumed is a `-live-` marker (before branches, switches,
//! overflow checks, promotes and the merge point; after inline calls and
//! calls that can raise).
//!
//! Exceptions: a call that can raise (a `call_*` whose descr says
//! `can_raise`, or an `inline_call_*`) may be followed, after its `-live-`
//! marker, by `catch_exception L` (or `int_catch_exception L -> %i` /
//! `ref_catch_exception L -> %r`, which also write the exception value).
//! When the call raised, control goes to `L`; otherwise the catch does
//! nothing. `int_raise` / `ref_raise` end the current frame with an
//! exception. An exception with no catch after its call ends that frame
//! too and is raised again at the caller's `inline_call`, up to the
//! portal, which then ends with it. A call that raised still writes its
//! destination (a helper's return value, an inline call's none): the
//! handler must not read it.

pub mod builder;
pub mod disasm;
pub mod eval;
pub mod liveness;

use majit_ir::{CallDescr, Descr, Kind, OpCode};
use std::collections::BTreeMap;
use std::sync::Arc;

pub use builder::{Arg, BuildError, JitCodeBuilder, Label, Reg};

/// Index of a [`JitCode`] in a [`JitCodeSet`] (the callee operand of
/// inline calls).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u16);

macro_rules! jops {
    ($( $variant:ident $name:literal $format:literal ;)*) => {
        /// A jitcode instruction. Operand formats, one character each:
        /// `i`/`r`/`f` a register or constant of that bank, `>` followed by
        /// `i`/`r`/`f` the destination register, `L` a label, `d` a descr,
        /// `o` an IR opcode (its signature supplies further operands),
        /// `A` a kinded register list, `j` a callee, `s` a switch table,
        /// `v` a liveness set.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum JOp { $( $variant ),* }

        impl JOp {
            /// Every instruction, in opcode-byte order.
            pub const ALL: &'static [JOp] = &[ $( JOp::$variant ),* ];
            /// The instruction's name in disassembly.
            pub fn name(self) -> &'static str {
                match self { $( JOp::$variant => $name ),* }
            }
            /// The operand format (see the type docs).
            pub fn format(self) -> &'static str {
                match self { $( JOp::$variant => $format ),* }
            }
        }
    };
}

jops! {
//  variant         name                        format
    Live            "-live-"                    "v";
    Pure            "pure"                      "o";
    Ovf             "ovf"                       "oLii>i";
    CopyI           "int_copy"                  "i>i";
    CopyR           "ref_copy"                  "r>r";
    CopyF           "float_copy"                "f>f";
    Goto            "goto"                      "L";
    GotoIfNot       "goto_if_not"               "iL";
    GotoIfNull      "goto_if_null"              "rL";
    Switch          "switch"                    "is";
    GetfieldI       "getfield_gc_i"             "rd>i";
    GetfieldR       "getfield_gc_r"             "rd>r";
    GetfieldF       "getfield_gc_f"             "rd>f";
    SetfieldI       "setfield_gc_i"             "rid";
    SetfieldR       "setfield_gc_r"             "rrd";
    SetfieldF       "setfield_gc_f"             "rfd";
    GetarrayitemI   "getarrayitem_gc_i"         "rid>i";
    GetarrayitemR   "getarrayitem_gc_r"         "rid>r";
    GetarrayitemF   "getarrayitem_gc_f"         "rid>f";
    SetarrayitemI   "setarrayitem_gc_i"         "riid";
    SetarrayitemR   "setarrayitem_gc_r"         "rird";
    SetarrayitemF   "setarrayitem_gc_f"         "rifd";
    Arraylen        "arraylen_gc"               "rd>i";
    GuardClass      "guard_class"               "r>i";
    New             "new"                       "d>r";
    NewArray        "new_array"                 "id>r";
    CallI           "call_i"                    "diA>i";
    CallR           "call_r"                    "diA>r";
    CallF           "call_f"                    "diA>f";
    CallV           "call_v"                    "diA";
    InlineCallI     "inline_call_i"             "jA>i";
    InlineCallR     "inline_call_r"             "jA>r";
    InlineCallF     "inline_call_f"             "jA>f";
    InlineCallV     "inline_call_v"             "jA";
    Catch           "catch_exception"           "L";
    CatchI          "int_catch_exception"       "L>i";
    CatchR          "ref_catch_exception"       "L>r";
    RaiseI          "int_raise"                 "i";
    RaiseR          "ref_raise"                 "r";
    PromoteI        "int_promote"               "i";
    PromoteR        "ref_promote"               "r";
    PromoteF        "float_promote"             "f";
    WeAreJitted     "we_are_jitted"             ">i";
    ReturnI         "int_return"                "i";
    ReturnR         "ref_return"                "r";
    ReturnF         "float_return"              "f";
    ReturnV         "void_return"               "";
    MergePoint      "jit_merge_point"           "AA";
    CanEnterJit     "can_enter_jit"             "AA";
}

impl JOp {
    /// The instruction with opcode byte `b`.
    pub fn from_byte(b: u8) -> Option<JOp> {
        JOp::ALL.get(b as usize).copied()
    }
}

/// Whether `op` may appear in a `pure` instruction: a pure IR op without
/// descr whose operands and result are plain values of one bank each.
pub fn is_pure_jitcode_op(op: OpCode) -> bool {
    op.is_always_pure()
        && !op.needs_descr()
        && !op.is_variadic()
        && op.result().kind().is_some()
        && op.info().args.chars().all(|c| "irf".contains(c))
        && !matches!(op, OpCode::SameAsI | OpCode::SameAsR | OpCode::SameAsF)
}

/// Whether `op` may appear in an `ovf` instruction.
pub fn is_ovf_jitcode_op(op: OpCode) -> bool {
    op.is_ovf()
}

/// A register (or constant) operand: a bank and an index (two bytes in
/// the code: a language VM's interpreter function easily holds more than
/// 256 registers and constants in one bank).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegOp {
    pub kind: Kind,
    pub index: u16,
}

/// One decoded operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Reg(RegOp),
    Label(u16),
    Descr(u16),
    OpCode(OpCode),
    List(Vec<RegOp>),
    Callee(FuncId),
    Switch(u16),
    Live(u16),
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Insn {
    pub op: JOp,
    /// Where it starts.
    pub pc: usize,
    /// The operands before the destination, in format order (for `pure`:
    /// the IR opcode followed by its register operands).
    pub operands: Vec<Operand>,
    pub dst: Option<RegOp>,
    /// Where the next instruction starts.
    pub next: usize,
}

impl Insn {
    /// The register operand `i` (panics if operand `i` is not a register:
    /// callers match on the instruction's format).
    pub fn reg(&self, i: usize) -> RegOp {
        match &self.operands[i] {
            Operand::Reg(r) => *r,
            other => panic!("operand {i} of {} is {other:?}", self.op.name()),
        }
    }
    /// The label operand `i`.
    pub fn label(&self, i: usize) -> usize {
        match &self.operands[i] {
            Operand::Label(l) => *l as usize,
            other => panic!("operand {i} of {} is {other:?}", self.op.name()),
        }
    }
    /// The descr-index operand `i`.
    pub fn descr(&self, i: usize) -> usize {
        match &self.operands[i] {
            Operand::Descr(d) => *d as usize,
            other => panic!("operand {i} of {} is {other:?}", self.op.name()),
        }
    }
    /// The register-list operand `i`.
    pub fn list(&self, i: usize) -> &[RegOp] {
        match &self.operands[i] {
            Operand::List(l) => l,
            other => panic!("operand {i} of {} is {other:?}", self.op.name()),
        }
    }
    /// The IR opcode of a `pure` or `ovf` instruction.
    pub fn ir_op(&self) -> OpCode {
        match &self.operands[0] {
            Operand::OpCode(op) => *op,
            other => panic!("operand 0 of {} is {other:?}", self.op.name()),
        }
    }
    /// All register operands read (list operands included).
    pub fn uses(&self) -> Vec<RegOp> {
        let mut out = Vec::new();
        for o in &self.operands {
            match o {
                Operand::Reg(r) => out.push(*r),
                Operand::List(l) => out.extend_from_slice(l),
                _ => {}
            }
        }
        out
    }
    /// Label targets this instruction may jump to (switch targets come
    /// from the code's switch table).
    pub fn targets(&self, code: &JitCode) -> Vec<usize> {
        match self.op {
            JOp::Switch => match &self.operands[1] {
                Operand::Switch(s) => code.switches[*s as usize]
                    .cases
                    .iter()
                    .map(|&(_, l)| l as usize)
                    .collect(),
                _ => Vec::new(),
            },
            _ => self
                .operands
                .iter()
                .filter_map(|o| match o {
                    Operand::Label(l) => Some(*l as usize),
                    _ => None,
                })
                .collect(),
        }
    }
    /// Whether control can continue to `next` (not a goto, return or
    /// raise).
    pub fn falls_through(&self) -> bool {
        !matches!(
            self.op,
            JOp::Goto
                | JOp::ReturnI
                | JOp::ReturnR
                | JOp::ReturnF
                | JOp::ReturnV
                | JOp::RaiseI
                | JOp::RaiseR
        )
    }

    /// Whether this is a `catch_exception` (of any kind): its destination
    /// is written only when it catches, on the way to its label.
    pub fn is_catch(&self) -> bool {
        matches!(self.op, JOp::Catch | JOp::CatchI | JOp::CatchR)
    }
}

/// The cases of one `switch`: value → label. Unmatched values fall through.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SwitchTable {
    pub cases: Vec<(i64, u16)>,
}

/// The registers live at one `-live-` marker, per bank, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LiveSet {
    pub ints: Vec<u16>,
    pub refs: Vec<u16>,
    pub floats: Vec<u16>,
}

impl LiveSet {
    /// The registers of bank `kind`.
    pub fn bank(&self, kind: Kind) -> &[u16] {
        match kind {
            Kind::Int => &self.ints,
            Kind::Ref => &self.refs,
            Kind::Float => &self.floats,
        }
    }
    /// All live registers in snapshot order: ints, refs, floats.
    pub fn regs(&self) -> impl Iterator<Item = RegOp> + '_ {
        [Kind::Int, Kind::Ref, Kind::Float]
            .into_iter()
            .flat_map(move |kind| {
                self.bank(kind)
                    .iter()
                    .map(move |&index| RegOp { kind, index })
            })
    }
    /// The number of live registers.
    pub fn len(&self) -> usize {
        self.ints.len() + self.refs.len() + self.floats.len()
    }
    /// Whether no register is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// This set without `reg` (a call's result register).
    pub fn without(&self, reg: Option<RegOp>) -> LiveSet {
        let mut out = self.clone();
        if let Some(r) = reg {
            let bank = match r.kind {
                Kind::Int => &mut out.ints,
                Kind::Ref => &mut out.refs,
                Kind::Float => &mut out.floats,
            };
            bank.retain(|&x| x != r.index);
        }
        out
    }
}

/// One interpreter function in jitcode. Built by [`JitCodeBuilder`].
#[derive(Clone, Debug, PartialEq)]
pub struct JitCode {
    pub name: String,
    pub code: Vec<u8>,
    /// Register counts per bank: int, ref, float.
    pub num_regs: [u16; 3],
    pub consts_i: Vec<i64>,
    pub consts_r: Vec<usize>,
    pub consts_f: Vec<f64>,
    pub descrs: Vec<Descr>,
    pub switches: Vec<SwitchTable>,
    pub liveness: Vec<LiveSet>,
    /// Parameter registers in argument order (inline calls and the
    /// portal's initial state write them).
    pub params: Vec<RegOp>,
    /// Every instruction decoded once, at its start pc (`None` elsewhere):
    /// the tracer reads them without decoding each time.
    insns: Vec<Option<Insn>>,
}

/// The bank index of a kind in `num_regs`.
pub(crate) fn bank_index(kind: Kind) -> usize {
    match kind {
        Kind::Int => 0,
        Kind::Ref => 1,
        Kind::Float => 2,
    }
}

impl JitCode {
    /// The number of registers of bank `kind`.
    pub fn regs_of(&self, kind: Kind) -> usize {
        self.num_regs[bank_index(kind)] as usize
    }

    /// Whether operand `r` names a constant rather than a register.
    pub fn is_const(&self, r: RegOp) -> bool {
        r.index as usize >= self.regs_of(r.kind)
    }

    /// The constant operand `r` names (callers check [`JitCode::is_const`]).
    pub fn const_value(&self, r: RegOp) -> majit_ir::Value {
        let i = r.index as usize - self.regs_of(r.kind);
        match r.kind {
            Kind::Int => majit_ir::Value::Int(self.consts_i[i]),
            Kind::Ref => majit_ir::Value::Ref(self.consts_r[i]),
            Kind::Float => majit_ir::Value::Float(self.consts_f[i]),
        }
    }

    /// Decodes the instruction at `pc`.
    ///
    /// # Panics
    /// If `pc` is not an instruction start of this code: jitcode comes from
    /// the builder, which only emits well-formed code.
    pub fn decode(&self, pc: usize) -> Insn {
        decode(&self.code, pc).unwrap_or_else(|| panic!("{}: bad jitcode at pc {pc}", self.name))
    }

    /// The instruction at `pc`, decoded when the code was built (panics
    /// when `pc` is not an instruction start, like [`JitCode::decode`]).
    pub fn insn(&self, pc: usize) -> &Insn {
        match self.insns.get(pc) {
            Some(Some(insn)) => insn,
            _ => panic!("{}: no instruction at pc {pc}", self.name),
        }
    }

    /// Fills the decoded instructions (the builder's last step).
    pub(crate) fn decode_all(&mut self) {
        let mut insns = vec![None; self.code.len()];
        for pc in self.insn_starts() {
            insns[pc] = Some(self.decode(pc));
        }
        self.insns = insns;
    }

    /// Every instruction start, in order.
    pub fn insn_starts(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut pc = 0;
        while pc < self.code.len() {
            out.push(pc);
            pc = self.decode(pc).next;
        }
        out
    }

    /// The live set of the `-live-` marker at `pc`.
    pub fn live_at(&self, pc: usize) -> Option<&LiveSet> {
        let decoded;
        let insn = match self.insns.get(pc) {
            Some(Some(insn)) => insn,
            _ => {
                decoded = decode(&self.code, pc)?;
                &decoded
            }
        };
        match (insn.op, insn.operands.first()) {
            (JOp::Live, Some(Operand::Live(i))) => self.liveness.get(*i as usize),
            _ => None,
        }
    }

    /// The `catch_exception` that handles an exception raised by the call
    /// whose next instruction is at `pc` (the `-live-` marker after it),
    /// if the call has one.
    pub fn catch_after(&self, pc: usize) -> Option<&Insn> {
        let mut insn = self.insn(pc);
        while insn.op == JOp::Live {
            insn = self.insn(insn.next);
        }
        insn.is_catch().then_some(insn)
    }

    /// The `pc` of the merge point, if this code has one.
    pub fn merge_point_pc(&self) -> Option<usize> {
        self.insn_starts()
            .into_iter()
            .find(|&pc| self.decode(pc).op == JOp::MergePoint)
    }
}

/// The callable version of a jitcode function: an `extern "C"` function
/// that does what the jitcode does, and the call descr to call it with.
/// A call of a function marked don't-inline after a too-long trace is
/// traced as a residual call of it (`tracer/blame.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualForm {
    /// The function's address.
    pub func: usize,
    /// A `Descr::Call` whose arguments are the jitcode function's
    /// parameter kinds and whose result is the kind it returns.
    pub descr: Descr,
}

/// Records the vtables of `code`'s size descrs (the first per type id).
fn note_vtables(vtables: &mut BTreeMap<u32, i64>, code: &JitCode) {
    for s in code.descrs.iter().filter_map(Descr::as_size) {
        if let Some(v) = s.vtable {
            vtables.entry(s.type_id).or_insert(v as i64);
        }
    }
}

/// The jitcode functions of one interpreter; inline calls name callees by
/// [`FuncId`]. A function can be declared before it is defined, so
/// mutually recursive functions can name each other.
#[derive(Clone, Debug, Default)]
pub struct JitCodeSet {
    codes: Vec<(String, Option<Arc<JitCode>>)>,
    residuals: BTreeMap<FuncId, ResidualForm>,
    /// Type id -> vtable, from the size descrs of the functions in the
    /// order they were given (`class_word` runs at every `guard_class`
    /// the tracer or the blackhole meets).
    vtables: BTreeMap<u32, i64>,
}

impl JitCodeSet {
    /// An empty set.
    pub fn new() -> JitCodeSet {
        JitCodeSet::default()
    }
    /// Adds a function and returns its id.
    pub fn add(&mut self, code: JitCode) -> FuncId {
        note_vtables(&mut self.vtables, &code);
        self.codes.push((code.name.clone(), Some(Arc::new(code))));
        FuncId((self.codes.len() - 1) as u16)
    }
    /// Reserves an id for the function `name`, to be given its code with
    /// [`JitCodeSet::define`].
    pub fn declare(&mut self, name: &str) -> FuncId {
        self.codes.push((name.to_string(), None));
        FuncId((self.codes.len() - 1) as u16)
    }
    /// Gives the declared function `id` its code (which must fit the
    /// residual form given to `id`, if any).
    pub fn define(&mut self, id: FuncId, code: JitCode) -> Result<(), String> {
        if let Some(form) = self.residuals.get(&id) {
            residual_fits(&code, &form.descr)?;
        }
        match self.codes.get_mut(id.0 as usize) {
            Some((_, slot @ None)) => {
                note_vtables(&mut self.vtables, &code);
                *slot = Some(Arc::new(code));
                Ok(())
            }
            Some((name, Some(_))) => Err(format!("function {name} is already defined")),
            None => Err(format!("no function #{} was declared", id.0)),
        }
    }
    /// Gives function `id` a residual form: `func`, an `extern "C"`
    /// function that does what the jitcode of `id` does, called with the
    /// call descr `descr` (its arguments the function's parameter kinds,
    /// its result the kind the function returns; checked here, or when
    /// `id` is defined). Its effects are the function's: usually
    /// `CallEffect::Random`, `can_raise` when `func` reports panics through
    /// `runtime::catch_panic`, `may_force` when it may be given the
    /// virtualizable frame. Only a function with a residual form can be
    /// marked don't-inline when a trace through it is too long (see
    /// `docs/metainterp.md`, "Too-long traces").
    ///
    /// ```
    /// use majit_ir::{CallDescr, Descr, EffectInfo, Kind, OpCode, ResultKind};
    /// use majit_metainterp::jitcode::{JitCodeBuilder, JitCodeSet};
    /// extern "C" fn double(x: i64) -> i64 {
    ///     x.wrapping_mul(2)
    /// }
    /// let mut b = JitCodeBuilder::new("double");
    /// let x = b.param(Kind::Int);
    /// b.op(OpCode::IntMul, &[x.into(), majit_metainterp::jitcode::Arg::Int(2)], x);
    /// b.ret(Some(x.into()));
    /// let mut codes = JitCodeSet::new();
    /// let id = codes.add(b.finish().unwrap());
    /// let descr = Descr::from(CallDescr {
    ///     name: "double".into(),
    ///     args: vec![Kind::Int],
    ///     result: ResultKind::Int,
    ///     effect: EffectInfo::default(),
    /// });
    /// codes.set_residual(id, double as *const () as usize, descr).unwrap();
    /// assert!(codes.residual(id).is_some());
    /// ```
    pub fn set_residual(&mut self, id: FuncId, func: usize, descr: Descr) -> Result<(), String> {
        let Some((name, code)) = self.codes.get(id.0 as usize) else {
            return Err(format!("no function #{} was declared", id.0));
        };
        if descr.as_call().is_none() {
            return Err(format!("the residual form of {name} needs a call descr"));
        }
        if let Some(code) = code {
            residual_fits(code, &descr)?;
        }
        self.residuals.insert(id, ResidualForm { func, descr });
        Ok(())
    }
    /// The residual form of function `id`, if it was given one.
    pub fn residual(&self, id: FuncId) -> Option<&ResidualForm> {
        self.residuals.get(&id)
    }
    /// The id of `code`, one of this set's functions (compared by address).
    pub fn id_of(&self, code: &Arc<JitCode>) -> Option<FuncId> {
        self.codes
            .iter()
            .position(|(_, c)| c.as_ref().is_some_and(|c| Arc::ptr_eq(c, code)))
            .map(|i| FuncId(i as u16))
    }
    /// The class word of objects whose header holds `type_id`, as
    /// `guard_class` compares it: the vtable of a size descr of that type
    /// id in any function of the set, else the type id itself (the
    /// convention of the executors for layouts without a vtable).
    pub fn class_word(&self, type_id: u32) -> i64 {
        self.vtables
            .get(&type_id)
            .copied()
            .unwrap_or(i64::from(type_id))
    }
    /// Declared functions still without code.
    pub fn undefined(&self) -> Vec<&str> {
        self.codes
            .iter()
            .filter(|(_, c)| c.is_none())
            .map(|(n, _)| n.as_str())
            .collect()
    }
    /// The function `id`, if it exists and is defined.
    pub fn get(&self, id: FuncId) -> Option<&Arc<JitCode>> {
        self.codes.get(id.0 as usize).and_then(|(_, c)| c.as_ref())
    }
    /// The id of the function named `name`.
    pub fn find(&self, name: &str) -> Option<FuncId> {
        self.codes
            .iter()
            .position(|(n, _)| n == name)
            .map(|i| FuncId(i as u16))
    }
    /// The number of functions (declared or defined).
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
}

/// Whether the call descr `descr` can stand for `code`: the same parameter
/// kinds, and every return of `code` of the descr's result kind.
fn residual_fits(code: &JitCode, descr: &Descr) -> Result<(), String> {
    let cd: &CallDescr = descr.as_call().expect("set_residual checked a call descr");
    let params: Vec<Kind> = code.params.iter().map(|p| p.kind).collect();
    if params != cd.args {
        return Err(format!(
            "the residual form {} of {} takes {:?}, the function {params:?}",
            cd.name, code.name, cd.args
        ));
    }
    for pc in code.insn_starts() {
        let returns = match code.decode(pc).op {
            JOp::ReturnI => Some(Kind::Int),
            JOp::ReturnR => Some(Kind::Ref),
            JOp::ReturnF => Some(Kind::Float),
            JOp::ReturnV => None,
            _ => continue,
        };
        if returns != cd.result.kind() {
            return Err(format!(
                "the residual form {} of {} returns {:?}, the function {returns:?} (pc {pc})",
                cd.name, code.name, cd.result
            ));
        }
    }
    Ok(())
}

/// The bank a format letter (`i`, `r`, `f`) names.
pub(crate) fn kind_of_letter(c: char) -> Option<Kind> {
    match c {
        'i' => Some(Kind::Int),
        'r' => Some(Kind::Ref),
        'f' => Some(Kind::Float),
        _ => None,
    }
}

/// Kind bytes in list operands.
pub(crate) fn kind_byte(kind: Kind) -> u8 {
    bank_index(kind) as u8
}

fn kind_from_byte(b: u8) -> Option<Kind> {
    [Kind::Int, Kind::Ref, Kind::Float].get(b as usize).copied()
}

/// A byte reader that fails instead of running off the end.
struct Reader<'a> {
    code: &'a [u8],
    pc: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> Option<u8> {
        let b = *self.code.get(self.pc)?;
        self.pc += 1;
        Some(b)
    }
    fn u16(&mut self) -> Option<u16> {
        let lo = self.u8()?;
        let hi = self.u8()?;
        Some(u16::from_le_bytes([lo, hi]))
    }
}

/// Decodes the instruction at `pc` of `code`; `None` if the bytes there do
/// not form one.
pub fn decode(code: &[u8], pc: usize) -> Option<Insn> {
    let mut rd = Reader { code, pc };
    let op = JOp::from_byte(rd.u8()?)?;
    let mut operands = Vec::new();
    let mut dst = None;
    let mut chars = op.format().chars();
    while let Some(c) = chars.next() {
        match c {
            'i' | 'r' | 'f' => operands.push(Operand::Reg(RegOp {
                kind: kind_of_letter(c)?,
                index: rd.u16()?,
            })),
            '>' => {
                let kind = kind_of_letter(chars.next()?)?;
                dst = Some(RegOp {
                    kind,
                    index: rd.u16()?,
                });
            }
            'L' => operands.push(Operand::Label(rd.u16()?)),
            'd' => operands.push(Operand::Descr(rd.u16()?)),
            'j' => operands.push(Operand::Callee(FuncId(rd.u16()?))),
            's' => operands.push(Operand::Switch(rd.u16()?)),
            'v' => operands.push(Operand::Live(rd.u16()?)),
            'A' => {
                let n = rd.u8()?;
                let mut list = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let kind = kind_from_byte(rd.u8()?)?;
                    list.push(RegOp {
                        kind,
                        index: rd.u16()?,
                    });
                }
                operands.push(Operand::List(list));
            }
            'o' => {
                let raw = rd.u16()?;
                let ir = *OpCode::ALL.get(raw as usize)?;
                operands.push(Operand::OpCode(ir));
                if op == JOp::Pure {
                    for a in ir.info().args.chars() {
                        operands.push(Operand::Reg(RegOp {
                            kind: kind_of_letter(a)?,
                            index: rd.u16()?,
                        }));
                    }
                    dst = Some(RegOp {
                        kind: ir.result().kind()?,
                        index: rd.u16()?,
                    });
                }
            }
            _ => return None,
        }
    }
    Some(Insn {
        op,
        pc,
        operands,
        dst,
        next: rd.pc,
    })
}
