//! The optimizer context [`Cx`]: the state every pass shares.
//!
//! Values of the trace being optimized are named by *value refs*: an input
//! (`OpRef::input(i)`, unchanged), a constant of the output constant pool,
//! or a value id `OpRef::op(n)`. Every op fed into the pipeline gets a
//! fresh value id before any pass sees it, so a pass can attach facts to
//! the result of an op that is not (yet, or ever) emitted: a virtual `new`
//! keeps its id, and when it is forced the emitted `new` defines that same
//! id. Only when the optimized trace is assembled are value ids renumbered
//! into positions.
//!
//! `Cx` holds the value replacement table (`Same` outcomes, constants made
//! by `guard_value`), the [`Info`] of each value, the defining op of each
//! value (for passes that look through an argument), the buffer of extra
//! ops a pass emits (they re-enter the pipeline *after* the emitting pass,
//! before the op being fed), the pending fields recorded for the guard in
//! flight, and the ledger.
//!
//! Forcing lives here because any pass may need a real pointer: [`Cx::force`]
//! marks each reachable virtual non-virtual as it emits its allocation
//! (before visiting its fields, so cycles terminate), then emits one store
//! per set field once every allocation is out.

use super::info::{Info, IntBound, Tag, Virtual};
use super::ledger::{Ledger, LedgerKind};
use crate::resume::{Layout, Slot};
use majit_ir::hash::FastSet;
use majit_ir::{Const, Descr, Kind, Op, OpCode, OpRef, RefMap, RefTarget, Trace};

/// An op travelling through the pipeline, with the value id of its result
/// (void ops get an id too; nothing refers to it).
#[derive(Clone, Debug, PartialEq)]
pub struct OptOp {
    pub op: Op,
    pub res: OpRef,
}

/// A store delayed past the guard in flight (heap's pending field),
/// recorded in value refs; resume encoding tags them.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingStore {
    pub target: OpRef,
    pub slot: Slot,
    pub value: OpRef,
}

/// The shared optimizer state. See the module docs.
#[derive(Debug)]
pub struct Cx {
    /// The output constant pool (a trace without ops).
    pool: Trace,
    next_id: usize,
    forward: RefMap<OpRef>,
    infos: RefMap<Info>,
    defs: RefMap<Op>,
    kinds: RefMap<Kind>,
    /// The input-trace op index each value id came from.
    origins: RefMap<usize>,
    emitted: Vec<OptOp>,
    pending: Vec<PendingStore>,
    /// The `enable_opts` word of the pass currently running.
    pub(super) pass: &'static str,
    pub(super) ledger: Ledger,
    /// The forced virtuals, whose allocations the ledger already explains
    /// (a virtual rebuilt from the label state has no input op to match).
    pub(super) forced: FastSet<OpRef>,
}

impl Cx {
    pub(super) fn new(inputs: &[Kind]) -> Cx {
        let mut kinds = RefMap::default();
        for (i, &k) in inputs.iter().enumerate() {
            kinds.insert(OpRef::input(i), k);
        }
        Cx {
            pool: Trace::new(inputs),
            next_id: 0,
            forward: RefMap::default(),
            infos: RefMap::default(),
            defs: RefMap::default(),
            kinds,
            origins: RefMap::default(),
            emitted: Vec::new(),
            pending: Vec::new(),
            pass: "input",
            ledger: Ledger::default(),
            forced: FastSet::default(),
        }
    }

    // ---- values --------------------------------------------------------

    /// A fresh value id for an op whose result has kind `kind` (`None` for
    /// void ops).
    pub fn fresh(&mut self, kind: Option<Kind>) -> OpRef {
        let r = OpRef::op(self.next_id);
        self.next_id += 1;
        if let Some(k) = kind {
            self.kinds.insert(r, k);
        }
        r
    }

    /// Records `op` as the definition of `res` (fed from input op `origin`).
    pub(super) fn define(&mut self, res: OpRef, op: &Op, origin: usize) {
        self.origins.insert(res, origin);
        if op.opcode.result().kind().is_some() {
            self.defs.insert(res, op.clone());
        }
    }

    /// The current replacement of `r` (follows `Same` outcomes and
    /// constants made by guards).
    pub fn resolve(&self, mut r: OpRef) -> OpRef {
        while let Some(&next) = self.forward.get(&r) {
            r = next;
        }
        r
    }

    /// From now on, `r` is replaced by `by`.
    pub fn replace(&mut self, r: OpRef, by: OpRef) {
        let r = self.resolve(r);
        let by = self.resolve(by);
        if r != by {
            self.forward.insert(r, by);
        }
    }

    /// Makes `from` stand for `to` from now on, dropping whatever `from`
    /// was replaced by (a `label` re-binds its arguments).
    pub(super) fn rebind(&mut self, from: OpRef, to: OpRef) {
        if from == to {
            self.forward.remove(&from);
        } else {
            self.forward.insert(from, to);
        }
    }

    /// Forgets every fact about `r` (a `label` argument is a new value on
    /// each iteration).
    pub(super) fn forget(&mut self, r: OpRef) {
        self.infos.remove(&r);
        self.defs.remove(&r);
    }

    /// Interns a constant of the output trace.
    pub fn konst(&mut self, c: Const) -> OpRef {
        self.pool.add_const(c)
    }

    /// The constant `r` currently is, if it is one.
    pub fn const_of(&self, r: OpRef) -> Option<Const> {
        self.pool.get_const(self.resolve(r))
    }

    /// The integer constant `r` is, by value or by exact bounds.
    pub fn int_const(&self, r: OpRef) -> Option<i64> {
        match self.const_of(r) {
            Some(Const::Int(v)) => Some(v),
            Some(_) => None,
            None => self.bound(r).as_const(),
        }
    }

    /// The kind of value `r`.
    pub fn kind(&self, r: OpRef) -> Option<Kind> {
        let r = self.resolve(r);
        match r.target() {
            RefTarget::Const(_) => self.pool.get_const(r).map(|c| c.kind()),
            _ => self.kinds.get(&r).copied(),
        }
    }

    /// The op that defined `r` (as it entered the pipeline), for values
    /// that are op results.
    pub fn def(&self, r: OpRef) -> Option<&Op> {
        self.defs.get(&self.resolve(r))
    }

    /// The input-trace op index `r` came from.
    pub fn origin(&self, r: OpRef) -> Option<usize> {
        self.origins.get(&self.resolve(r)).copied()
    }

    /// The output constant pool.
    pub(super) fn pool(&self) -> &Trace {
        &self.pool
    }

    // ---- facts ---------------------------------------------------------

    /// Everything known about `r` (a default, empty `Info` for unknowns).
    pub fn info(&self, r: OpRef) -> Info {
        self.infos
            .get(&self.resolve(r))
            .cloned()
            .unwrap_or_default()
    }

    /// Mutable access to the facts about `r`.
    pub fn info_mut(&mut self, r: OpRef) -> &mut Info {
        let r = self.resolve(r);
        self.infos.get_or_default(r)
    }

    /// The integer bounds of `r` (exact for constants).
    pub fn bound(&self, r: OpRef) -> IntBound {
        let r = self.resolve(r);
        match self.pool.get_const(r) {
            Some(Const::Int(v)) => IntBound::exact(v),
            _ => self
                .infos
                .get(&r)
                .and_then(|i| i.bound)
                .unwrap_or(IntBound::FULL),
        }
    }

    /// Narrows the bounds of `r` to `b`. Returns `false` when the facts
    /// contradict (the code after this point can never run).
    pub fn narrow(&mut self, r: OpRef, b: IntBound) -> bool {
        let old = self.bound(r);
        match old.intersect(b) {
            Some(n) => {
                if self.const_of(r).is_none() {
                    self.info_mut(r).bound = Some(n);
                }
                true
            }
            None => false,
        }
    }

    /// Whether `r` is known not to be null.
    pub fn is_nonnull(&self, r: OpRef) -> bool {
        match self.const_of(r) {
            Some(Const::Ref(a)) => a != 0,
            Some(_) => false,
            None => self
                .infos
                .get(&self.resolve(r))
                .is_some_and(|i| i.nonnull || i.virt.is_some()),
        }
    }

    /// The class word of `r`, when a guard or allocation proved it.
    pub fn class_of(&self, r: OpRef) -> Option<i64> {
        self.infos.get(&self.resolve(r)).and_then(|i| i.class)
    }

    /// Whether float `r` is known to fit in a tagged ref.
    pub fn fits_tag(&self, r: OpRef) -> bool {
        self.infos.get(&self.resolve(r)).is_some_and(|i| i.fits_tag)
    }

    /// The tag ref `r` is known to have.
    pub fn tag_of(&self, r: OpRef) -> Option<Tag> {
        match self.const_of(r) {
            Some(Const::Ref(w)) => Tag::of_word(w as u64),
            Some(_) => None,
            None => self.infos.get(&self.resolve(r)).and_then(|i| i.tag),
        }
    }

    /// Whether `r` is a virtual object.
    pub fn is_virtual(&self, r: OpRef) -> bool {
        self.infos
            .get(&self.resolve(r))
            .is_some_and(|i| i.virt.is_some())
    }

    /// The virtual `r` is, if it is one.
    pub fn virtual_of(&self, r: OpRef) -> Option<&Virtual> {
        self.infos
            .get(&self.resolve(r))
            .and_then(|i| i.virt.as_ref())
    }

    /// Mutable access to the virtual `r` is.
    pub fn virtual_mut(&mut self, r: OpRef) -> Option<&mut Virtual> {
        let r = self.resolve(r);
        self.infos.get_mut(&r).and_then(|i| i.virt.as_mut())
    }

    /// Whether two refs may name the same object. Distinct refs may, unless
    /// one was allocated in this trace after the other was defined (an
    /// object cannot escape before it exists) or both are fresh.
    pub fn may_alias(&self, a: OpRef, b: OpRef) -> bool {
        let (a, b) = (self.resolve(a), self.resolve(b));
        if a == b {
            return true;
        }
        if let (Some(x), Some(y)) = (self.const_of(a), self.const_of(b)) {
            return x == y;
        }
        let fresh = |r: OpRef| self.infos.get(&r).is_some_and(|i| i.fresh);
        let (fa, fb) = (fresh(a), fresh(b));
        if fa && fb {
            return false;
        }
        // Inputs and constants order before every op result.
        let age = |r: OpRef| match r.target() {
            RefTarget::Op(i) => i as i64,
            _ => -1,
        };
        !(fa && age(b) < age(a) || fb && age(a) < age(b))
    }

    // ---- emission ------------------------------------------------------

    /// Emits an extra op: it enters the pipeline right after the pass that
    /// is running, before the op that pass is handling.
    pub fn emit(&mut self, op: OptOp) {
        self.emitted.push(op);
    }

    /// Emits a new op with a fresh result id, returning that id.
    pub fn emit_new(&mut self, op: Op) -> OpRef {
        let res = self.fresh(op.opcode.result().kind());
        self.emit(OptOp { op, res });
        res
    }

    pub(super) fn take_emitted(&mut self) -> Vec<OptOp> {
        std::mem::take(&mut self.emitted)
    }

    /// Records a pending field for the guard in flight.
    pub fn add_pending(&mut self, p: PendingStore) {
        self.pending.push(p);
    }

    pub(super) fn take_pending(&mut self) -> Vec<PendingStore> {
        std::mem::take(&mut self.pending)
    }

    /// Adds a ledger entry from the running pass about input op `op_index`.
    pub fn note(&mut self, kind: LedgerKind, op_index: Option<usize>, detail: String) {
        self.ledger.note(self.pass, kind, op_index, detail);
    }

    // ---- forcing -------------------------------------------------------

    /// Makes `r` a real object if it is virtual: emits its allocation and
    /// its field stores (see the module docs). `why` goes to the ledger.
    pub fn force(&mut self, r: OpRef, why: &str) {
        self.force_all(&[r], why);
    }

    /// Forces the virtuals among `roots` and every virtual they reach:
    /// first all allocations, then all field stores. Allocating everything
    /// first matters beyond cycles: a downstream pass handling one of the
    /// stores may emit a delayed store of another forced object, which
    /// must already be allocated in the output.
    pub fn force_all(&mut self, roots: &[OpRef], why: &str) {
        if !self.any_virtual(roots) {
            return;
        }
        let mut forced = Vec::new();
        let mut todo: Vec<(OpRef, String)> = roots
            .iter()
            .rev()
            .map(|r| (self.resolve(*r), why.to_string()))
            .collect();
        while let Some((r, reason)) = todo.pop() {
            let Some(v) = self.infos.get_mut(&r).and_then(|i| i.virt.take()) else {
                continue;
            };
            let origin = self.origin(r);
            self.note(LedgerKind::Escaped, origin, reason);
            self.forced.insert(r);
            let alloc = self.allocation(&v.layout);
            self.emit(OptOp { op: alloc, res: r });
            let inner = format!("reachable from an escaping object ({why})");
            for (_, value) in v.fields.iter().rev() {
                todo.push((self.resolve(*value), inner.clone()));
            }
            forced.push((r, v));
        }
        for (r, v) in forced {
            for (slot, value) in v.fields {
                let value = self.resolve(value);
                // The allocation is zeroed: a zero or null needs no store
                // (Lua's call frames set half their fields to 0 or nil).
                if matches!(
                    self.const_of(value),
                    Some(Const::Int(0) | Const::Ref(0) | Const::Float(0))
                ) {
                    continue;
                }
                let store = match slot {
                    Slot::Field(f) => {
                        Op::new(OpCode::SetfieldGc, &[r, value]).with_descr(Descr::Field(f))
                    }
                    Slot::Item(a, i) => {
                        let index = self.konst(Const::Int(i64::from(i)));
                        Op::new(OpCode::SetarrayitemGc, &[r, index, value])
                            .with_descr(Descr::Array(a))
                    }
                };
                self.emit_new(store);
            }
        }
    }

    /// The op that allocates an object of `layout`.
    fn allocation(&mut self, layout: &Layout) -> Op {
        match layout {
            Layout::Struct { size, vtable } => {
                let code = if *vtable {
                    OpCode::NewWithVtable
                } else {
                    OpCode::New
                };
                Op::new(code, &[]).with_descr(Descr::Size(size.clone()))
            }
            Layout::Array { descr, len } => {
                let len = self.konst(Const::Int(i64::from(*len)));
                Op::new(OpCode::NewArrayClear, &[len]).with_descr(Descr::Array(descr.clone()))
            }
        }
    }

    /// Forces every virtual argument of `op` (an op that lets them escape),
    /// all allocations first.
    pub fn force_args(&mut self, op: &Op, why: &str) {
        if self.any_virtual(&op.args) {
            let args: Vec<OpRef> = op.args.to_vec();
            self.force_all(&args, why);
        }
    }

    /// Whether one of `refs` is virtual (most ops force nothing: this
    /// spares them the work lists and ledger texts).
    pub fn any_virtual(&self, refs: &[OpRef]) -> bool {
        refs.iter().any(|&r| self.is_virtual(r))
    }
}
