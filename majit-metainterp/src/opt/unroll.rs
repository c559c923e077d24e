//! unroll: loop peeling with a short preamble.
//!
//! A loop `[inputs] label(inputs, descr=L) body jump(args, descr=L)` is
//! optimized twice (Ardö, Bolz, Fijałkowski 2012):
//!
//! 1. The *preamble*: the other enabled passes run over one iteration from
//!    the real entry, as for any trace. Before its closing jump, the passes
//!    *export* what they know ([`Pass::export`]): cached field values and
//!    pure results. The facts computable from the jump's arguments form the
//!    *short preamble* (an op per fact); each fact's value becomes an extra
//!    argument of the peeled loop's label `L.peeled`, and the preamble ends
//!    by falling into that label.
//! 2. The *peeled loop*: a fresh pipeline whose inputs are the label's
//!    arguments imports the facts (each short-preamble op is known to equal
//!    its label argument) and runs over the body again. Invariant loads and
//!    pure ops thus vanish from the loop: loop-invariant code motion falls
//!    out. Before the closing jump, the short-preamble ops are fed once more
//!    to compute the facts' values for the next iteration; usually the
//!    caches answer them for free.
//!
//! Guards of the peeled loop are copies: they get fresh `FailDescr` ids
//! (`id + offset`, name `.peeled`) and their resume data names the original
//! id in `GuardResume::original`. Label arguments nothing in the loop uses
//! are pruned. The short preamble is returned as a trace (inputs: the
//! label's original arguments; guards re-checking the facts the peeled
//! loop assumes about them, see below, and each load's object non-null;
//! ops; a jump to `L.peeled`) for bridges that enter the peeled loop
//! (`bridge.rs`). Its guards fail to its inputs with placeholder ids.
//!
//! Label state: a jump argument that is virtual at the end of the preamble
//! travels unboxed (`vstate.rs`): its leaves are label arguments and the
//! peeled loop rebuilds it as a virtual; if the loop's end does not fit
//! that shape, or the virtual escapes at the jump anyway, peeling is
//! retried with that argument boxed. Facts the preamble proved about label
//! arguments and about the short preamble's values (bounds, non-nullness,
//! class: a loaded object's class, or a tag test's outcome, is checked
//! once per loop, not per iteration) are assumed at the start of the peeled loop and
//! checked at its end; if one does not hold there (or the loop becomes
//! invalid under them), peeling is retried without facts. The short
//! preamble's entry guards check the same facts, a value's right after the
//! op computing it.
//!
//! The peeled label is also returned as a [`LoopLabel`] (states, facts,
//! short ops, pruned slots), which a bridge enters when its end fits
//! (`enter.rs`). A *retrace* (`retrace`) is the same peeling with a
//! bridge into the loop as the preamble: its end state becomes a new label
//! `L.peeled.k` and the loop's recorded body is optimized behind it.
//!
//! Limits: only cached fields and pure results enter the short preamble
//! (not array items); the short preamble trace is only returned when no
//! virtual travels unboxed (a bridge holding a real object cannot enter a
//! label that expects its fields); a short load the loop's end cannot answer
//! from its caches is only emitted when its object is known non-null
//! there and of the class the preamble knew (the short preamble trace
//! guards that class), otherwise the trace is optimized without peeling (the ledger
//! says why); there is no fallback "jump to the preamble" when the loop's
//! end does not fit: the retries end with boxed arguments and no facts.

use super::cx::{Cx, OptOp};
use super::driver::{Pipeline, Stage};
use super::info::{IntBound, Tag};
use super::vstate::{self, VState};
use super::{OptError, Optimized, Outcome, Pass};
use crate::resume::Slot;
use majit_ir::hash::FastSet;
use majit_ir::{Const, Descr, Kind, Op, OpCode, OpRef, RefTarget, TargetDescr, Trace};

/// The unroll pass's place in the pipeline: it passes ops through; the
/// peeling itself is done by `optimize_loop`, which runs the other passes
/// twice.
pub struct Unroll;

impl Pass for Unroll {
    fn name(&self) -> &'static str {
        "unroll"
    }
    fn feed(&mut self, _cx: &mut Cx, op: OptOp) -> Outcome {
        Outcome::Emit(op)
    }
}

/// An argument of a short-preamble op: a label slot or a constant.
#[derive(Clone, Debug)]
pub(super) enum ShortArg {
    Slot(usize),
    Const(Const),
}

/// One fact carried into the peeled loop: `opcode(args)` equals label
/// slot `n + k` (for the `k`-th op).
#[derive(Clone, Debug)]
pub(super) struct ShortOp {
    pub(super) opcode: OpCode,
    args: Vec<ShortArg>,
    descr: Option<Descr>,
    kind: Kind,
    /// For a load: its object's class in the preamble, which the load
    /// needs again wherever the op is replayed (a label slot may hold an
    /// object of another class there, e.g. a dead register of the
    /// interpreter's frame reused for another type).
    obj_class: Option<i64>,
}

impl ShortOp {
    /// The op over concrete values: `slot(i)` gives label slot `i`.
    fn build(&self, cx: &mut Cx, slot: &dyn Fn(usize) -> OpRef) -> Op {
        let args: Vec<OpRef> = self
            .args
            .iter()
            .map(|a| match a {
                ShortArg::Slot(i) => slot(*i),
                ShortArg::Const(c) => cx.konst(*c),
            })
            .collect();
        let mut op = Op::new(self.opcode, &args);
        op.descr = self.descr.clone();
        op
    }
}

/// The label descr of a loop this pass can peel.
pub(super) fn loop_target(trace: &Trace) -> Option<Descr> {
    let first = trace.ops.first()?;
    let last = trace.ops.last()?;
    let inputs_in_order = first.args.len() == trace.inputs.len()
        && first
            .args
            .iter()
            .enumerate()
            .all(|(i, a)| *a == OpRef::input(i));
    let labels = trace
        .ops
        .iter()
        .filter(|o| o.opcode == OpCode::Label)
        .count();
    let ok = first.opcode == OpCode::Label
        && last.opcode == OpCode::Jump
        && labels == 1
        && inputs_in_order
        && first.descr.as_ref().and_then(|d| d.as_target()).is_some()
        && last.descr == first.descr
        && last.args.len() == first.args.len();
    ok.then(|| first.descr.clone()).flatten()
}

/// A peeled label as a bridge can enter it (`enter.rs`): the state each
/// jump argument travels in, the facts the body assumes about the label's
/// slots, the short-preamble ops computing the slots after the leaves,
/// and which slots were pruned from the label.
#[derive(Clone, Debug)]
pub struct LoopLabel {
    pub(super) descr: Descr,
    pub(super) states: Vec<Option<VState>>,
    pub(super) facts: Vec<Fact>,
    pub(super) short: Vec<ShortOp>,
    /// Pruned slot positions, highest first.
    pub(super) pruned: Vec<usize>,
}

impl LoopLabel {
    /// The label's name (`L.peeled`, or `L.peeled.k` for a retrace).
    pub fn name(&self) -> &str {
        self.descr.name()
    }

    /// Whether some jump argument travels as an unboxed virtual.
    pub fn carries_virtuals(&self) -> bool {
        carries_virtuals(&self.states)
    }
}

/// Whether some state has a virtual node (tagged numbers do not count:
/// entry guards of a short preamble untag them).
fn carries_virtuals(states: &[Option<VState>]) -> bool {
    states.iter().flatten().any(VState::has_virtual)
}

/// Optimizes a loop with peeling; `Err(reason)` when the trace is not a
/// loop of the supported shape or peeling had to give up.
pub(super) fn optimize_loop(
    trace: &Trace,
    stages: &[Stage],
) -> Result<Result<Optimized, String>, OptError> {
    let Some(Descr::Target(target)) = loop_target(trace) else {
        let why = "not a loop of the shape label(inputs) ... jump (see opt docs)";
        return Ok(Err(why.into()));
    };
    let peeled = Descr::from(TargetDescr {
        name: format!("{}.peeled", target.name),
    });
    // The copies' ids follow the trace's own, which are the newest.
    let (min, max) = fail_id_range(trace);
    peel_until_it_fits(trace, trace, stages, &peeled, max - min + 1)
}

/// Retraces the loop `loop_trace` (as recorded, a loop `optimize_loop`
/// peels) from the end of `bridge`, a trace ending in a jump to the
/// loop's start label: the bridge is the preamble, its end state becomes
/// a new label `name` and the loop's body is peeled once more behind it,
/// specialised to that state; the result is the bridge, that label and
/// the body jumping back to it. The body's guard copies get fail ids
/// from `first_copy_id` up. `Err(reason)` when the shapes do not match or
/// no virtual travels through the new label (then the retrace would be
/// the loop's own body again).
pub(super) fn retrace(
    bridge: &Trace,
    loop_trace: &Trace,
    stages: &[Stage],
    name: &str,
    first_copy_id: u32,
) -> Result<Result<Optimized, String>, OptError> {
    let Some(target) = loop_target(loop_trace) else {
        return Ok(Err("the loop is not of a shape unroll peels".into()));
    };
    let jump = bridge.ops.last().filter(|o| o.opcode == OpCode::Jump);
    if jump.and_then(|j| j.descr.as_ref()) != Some(&target)
        || jump.map(|j| j.args.len()) != Some(loop_trace.inputs.len())
    {
        return Ok(Err("the bridge does not end at the loop's start".into()));
    }
    let label = Descr::from(TargetDescr { name: name.into() });
    let offset = first_copy_id - fail_id_range(loop_trace).0;
    peel_until_it_fits(bridge, loop_trace, stages, &label, offset)
}

/// Peels `loop_trace` behind the end of `pre_trace` (the loop itself, or
/// a bridge into it), retrying with a jump argument boxed when the body's
/// end does not fit its virtual state and without facts when they break.
fn peel_until_it_fits(
    pre_trace: &Trace,
    loop_trace: &Trace,
    stages: &[Stage],
    peeled: &Descr,
    fail_id_offset: u32,
) -> Result<Result<Optimized, String>, OptError> {
    let mut unboxed = vec![true; loop_trace.inputs.len()];
    let mut with_facts = true;
    let traces = (pre_trace, loop_trace);
    // A retrace is worth it only for the virtuals it keeps.
    let retrace = !std::ptr::eq(pre_trace, loop_trace);
    loop {
        let attempt = (&unboxed[..], with_facts, retrace);
        match peel(traces, stages, peeled, fail_id_offset, attempt)? {
            Peel::Done(out) => return Ok(Ok(*out)),
            Peel::FactsBroken if with_facts => with_facts = false,
            Peel::FactsBroken => return Ok(Err("label facts do not hold".into())),
            Peel::Retry(k) if unboxed[k] => unboxed[k] = false,
            Peel::Retry(k) => {
                return Ok(Err(format!("jump argument {k} fits no label state")));
            }
            Peel::GiveUp(why) => return Ok(Err(why)),
        }
    }
}

/// The result of one peeling attempt.
enum Peel {
    Done(Box<Optimized>),
    /// Jump argument `k` cannot travel unboxed.
    Retry(usize),
    /// A fact assumed about a label argument does not hold at the loop's
    /// end.
    FactsBroken,
    GiveUp(String),
}

/// What the preamble hands the peeled body through its label.
struct Handover {
    /// Per jump argument: the virtual state it travels in, if unboxed.
    states: Vec<Option<VState>>,
    /// The kinds of the label's slots: the leaves, then the short values.
    kinds: Vec<Kind>,
    short: Vec<ShortOp>,
    /// One per label slot.
    facts: Vec<Fact>,
}

/// One peeling attempt: `pre_trace` (the loop, or a bridge into it) is
/// fed up to its closing jump to the loop's start, then `loop_trace`'s
/// body is fed again behind the label `peeled`. `unboxed[k]` allows jump
/// argument `k` to travel unboxed when it is virtual; `with_facts`
/// carries the preamble's facts about label arguments (bounds,
/// non-nullness, class) into the loop; `need_virtual` gives up when no
/// virtual travels unboxed.
fn peel(
    (pre_trace, loop_trace): (&Trace, &Trace),
    stages: &[Stage],
    peeled: &Descr,
    fail_id_offset: u32,
    (unboxed, with_facts, need_virtual): (&[bool], bool, bool),
) -> Result<Peel, OptError> {
    let last = pre_trace.ops.len() - 1;
    let mut pre = Pipeline::new(pre_trace, stages);
    pre.feed_trace(pre_trace, &|k| k == last)?;
    let j: Vec<OpRef> = pre_trace.ops[last]
        .args
        .iter()
        .map(|a| pre.rename(pre_trace, *a))
        .collect();
    let read = read_inputs(loop_trace);
    let handover = match hand_over(&mut pre, &j, unboxed, (with_facts, &read), peeled)? {
        Ok(h) => h,
        Err(p) => return Ok(p),
    };
    if need_virtual && !carries_virtuals(&handover.states) {
        let why = "nothing virtual travels through the new label: a retrace gains nothing";
        return Ok(Peel::GiveUp(why.into()));
    }
    let pre_out = pre.finish();
    let mut body = Pipeline::with_inputs(&handover.kinds, stages);
    body.fail_id_offset = fail_id_offset;
    let body_out = match peeled_body(&mut body, loop_trace, &handover, peeled, with_facts)? {
        Ok(()) => body.finish(),
        Err(p) => return Ok(p),
    };
    let Handover {
        states,
        short,
        facts,
        ..
    } = handover;
    let label = LoopLabel {
        descr: peeled.clone(),
        states,
        facts,
        short,
        pruned: Vec::new(),
    };
    let mut out = merge(pre_out, body_out, label)?;
    if let Some(l) = out.label.as_ref().filter(|l| !l.carries_virtuals()) {
        out.short_preamble = Some(short_preamble(&loop_trace.inputs, l));
    }
    Ok(Peel::Done(Box::new(out)))
}

/// Captures, at the end of the preamble `pre` whose closing jump's
/// arguments are `j`, what the label `peeled` hands the body (the states,
/// leaves, short preamble and facts), and closes the preamble with the
/// jump there.
fn hand_over(
    pre: &mut Pipeline,
    j: &[OpRef],
    unboxed: &[bool],
    (with_facts, read): (bool, &[bool]),
    peeled: &Descr,
) -> Result<Result<Handover, Peel>, OptError> {
    let mut seen = FastSet::default();
    let states: Vec<Option<VState>> = j
        .iter()
        .zip(unboxed)
        .map(|(r, u)| u.then(|| vstate::capture(&pre.cx, *r, &mut seen)).flatten())
        .collect();
    let mut leaves = Vec::new();
    // The jump argument each leaf comes from.
    let mut owner = Vec::new();
    let mut flat = FastSet::default();
    for (k, (r, st)) in j.iter().zip(&states).enumerate() {
        let fits = vstate::flatten(
            &mut pre.cx,
            *r,
            st.as_ref().unwrap_or(&VState::Leaf),
            &mut flat,
            &mut leaves,
        );
        debug_assert!(fits, "a captured state fits its own value");
        owner.resize(leaves.len(), k);
    }
    let usable: Vec<bool> = owner.iter().map(|k| read[*k]).collect();
    let (short, values) = select_short(pre, &leaves, &usable);
    let args: Vec<OpRef> = leaves.iter().chain(&values).copied().collect();
    pre.feed_extra(Op::new(OpCode::Jump, &args).with_descr(peeled.clone()))?;
    if let Some(k) = escaped(&pre.cx, j, &states) {
        return Ok(Err(Peel::Retry(k)));
    }
    let mut kinds: Vec<Kind> = leaves
        .iter()
        .map(|r| pre.cx.kind(*r).unwrap_or(Kind::Int))
        .collect();
    kinds.extend(short.iter().map(|s| s.kind));
    // One fact per label slot: the leaves, then the short preamble's
    // values. A slot the body never reads (a temporary it overwrites, kept
    // only for resume data) gets none: a fact about it would only keep out
    // a bridge that leaves another value there.
    let fact = |r: &OpRef, read: &bool| match read {
        true => Fact::of(&pre.cx, *r),
        false => Fact::default(),
    };
    let facts: Vec<Fact> = match with_facts {
        true => leaves
            .iter()
            .zip(&usable)
            .map(|(r, u)| fact(r, u))
            .chain(values.iter().map(|r| Fact::of(&pre.cx, *r)))
            .collect(),
        false => vec![Fact::default(); leaves.len() + values.len()],
    };
    Ok(Ok(Handover {
        states,
        kinds,
        short,
        facts,
    }))
}

/// Which inputs of the loop `t` an op of its body reads (not only its
/// guards' fail args or the closing jump).
fn read_inputs(t: &Trace) -> Vec<bool> {
    let mut read = vec![false; t.inputs.len()];
    for op in &t.ops[1..t.ops.len() - 1] {
        for a in &op.args {
            if let RefTarget::Input(i) = a.target() {
                read[i] = true;
            }
        }
    }
    read
}

/// Feeds `body` (a pipeline whose inputs are the label's slots) the body
/// of `trace` from the state `h` and closes it with a jump to `peeled`
/// whose arguments fit that state again.
fn peeled_body(
    body: &mut Pipeline,
    trace: &Trace,
    h: &Handover,
    peeled: &Descr,
    with_facts: bool,
) -> Result<Result<(), Peel>, OptError> {
    let last = trace.ops.len() - 1;
    let n = h.kinds.len() - h.short.len();
    // Facts first: a rebuilt tag's round trip folds only for a leaf
    // known to fit.
    for (i, f) in h.facts[..n].iter().enumerate() {
        f.assume(&mut body.cx, OpRef::input(i));
    }
    let mut inputs = (0..n).map(OpRef::input);
    let mut input_map = Vec::with_capacity(h.states.len());
    for st in &h.states {
        let st = st.as_ref().unwrap_or(&VState::Leaf);
        input_map.push(vstate::rebuild(body, st, &mut inputs)?);
    }
    body.input_map = input_map;
    for (k, s) in h.short.iter().enumerate() {
        let op = s.build(&mut body.cx, &|i| OpRef::input(i));
        // The slot is that op of other slots: algebra may look through it.
        body.cx.define(OpRef::input(n + k), &op, usize::MAX);
        body.import(&OptOp {
            op,
            res: OpRef::input(n + k),
        });
        h.facts[n + k].assume(&mut body.cx, OpRef::input(n + k));
    }
    // A guard that always fails in the loop is legitimate (the loop then
    // runs once): it only means the loop cannot be peeled this way.
    let invalid = |e: OptError| match e {
        OptError::Invalid { .. } if with_facts => Ok(Err(Peel::FactsBroken)),
        OptError::Invalid { reason, .. } => {
            Ok(Err(Peel::GiveUp(format!("peeled loop invalid: {reason}"))))
        }
        other => Err(other),
    };
    if let Err(e) = body.feed_trace(trace, &|k| k == 0 || k == last) {
        return invalid(e);
    }
    let j2: Vec<OpRef> = trace.ops[last]
        .args
        .iter()
        .map(|a| body.rename(trace, *a))
        .collect();
    let mut next = Vec::new();
    let mut flat = FastSet::default();
    for (k, (r, st)) in j2.iter().zip(&h.states).enumerate() {
        let st = st.as_ref().unwrap_or(&VState::Leaf);
        if !vstate::flatten(&mut body.cx, *r, st, &mut flat, &mut next) {
            return Ok(Err(Peel::Retry(k)));
        }
    }
    if !Fact::all_hold(&h.facts[..n], &body.cx, &next) {
        return Ok(Err(Peel::FactsBroken));
    }
    match short_values(body, &h.short, &mut next) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => return Ok(Err(Peel::GiveUp(why))),
        Err(e) => return invalid(e),
    }
    if !Fact::all_hold(&h.facts[n..], &body.cx, &next[n..]) {
        return Ok(Err(Peel::FactsBroken));
    }
    if let Err(e) = body.feed_extra(Op::new(OpCode::Jump, &next).with_descr(peeled.clone())) {
        return invalid(e);
    }
    if let Some(k) = escaped(&body.cx, &j2, &h.states) {
        return Ok(Err(Peel::Retry(k)));
    }
    Ok(Ok(()))
}

/// Feeds the short-preamble ops `short` over the label slots in `slots`
/// (the leaves so far), appending each value; `Err(why)` when an op loads
/// from an object not known non-null there.
pub(super) fn short_values(
    p: &mut Pipeline,
    short: &[ShortOp],
    slots: &mut Vec<OpRef>,
) -> Result<Result<(), String>, OptError> {
    for s in short {
        let op = s.build(&mut p.cx, &|i| slots[i]);
        let obj = op.args.first().copied();
        let (v, loaded) = p.feed_extra(op)?;
        let safe = obj.is_some_and(|o| {
            p.cx.is_nonnull(o) && (s.obj_class.is_none() || p.cx.class_of(o) == s.obj_class)
        });
        if loaded && !safe {
            return Ok(Err(format!(
                "short preamble op `{}` needs a load the loop cannot prove safe",
                s.opcode
            )));
        }
        slots.push(v);
    }
    Ok(Ok(()))
}

/// What the preamble proved about a label argument, assumed at the start
/// of the peeled loop and checked at its end.
#[derive(Clone, Debug, Default)]
pub(super) struct Fact {
    bound: Option<IntBound>,
    nonnull: bool,
    class: Option<i64>,
    /// A float that fits in a tagged ref.
    fits_tag: bool,
    /// A ref's tag.
    tag: Option<Tag>,
}

impl Fact {
    fn of(cx: &Cx, r: OpRef) -> Fact {
        let bound = match cx.kind(r) {
            Some(Kind::Int) => Some(cx.bound(r)).filter(|b| !b.is_full()),
            _ => None,
        };
        let is_ref = cx.kind(r) == Some(Kind::Ref);
        Fact {
            bound,
            nonnull: is_ref && cx.is_nonnull(r),
            class: cx.class_of(r),
            fits_tag: cx.kind(r) == Some(Kind::Float) && cx.fits_tag(r),
            tag: cx.tag_of(r),
        }
    }

    fn assume(&self, cx: &mut Cx, r: OpRef) {
        if let Some(b) = self.bound {
            cx.narrow(r, b);
        }
        let info = cx.info_mut(r);
        info.nonnull |= self.nonnull;
        info.class = info.class.or(self.class);
        info.fits_tag |= self.fits_tag;
        info.tag = info.tag.or(self.tag);
    }

    /// Appends to the short preamble `t` the guards that check the fact
    /// on `r`; `nonnull` collects the refs known non-null after them.
    fn guard(&self, t: &mut Trace, r: OpRef, nonnull: &mut FastSet<OpRef>) {
        if (self.nonnull || self.class.is_some()) && nonnull.insert(r) {
            entry_guard(t, Op::new(OpCode::GuardNonnull, &[r]));
        }
        if let Some(c) = self.class {
            let c = t.add_const(Const::Int(c));
            entry_guard(t, Op::new(OpCode::GuardClass, &[r, c]));
        }
        if self.fits_tag {
            let ok = t.push(Op::new(OpCode::FloatFitsTag, &[r]));
            entry_guard(t, Op::new(OpCode::GuardTrue, &[ok]));
        }
        if let Some(tag) = self.tag {
            let test = match tag {
                Tag::Int => OpCode::PtrIsTagged,
                Tag::Float => OpCode::PtrIsFloatTagged,
            };
            let ok = t.push(Op::new(test, &[r]));
            entry_guard(t, Op::new(OpCode::GuardTrue, &[ok]));
        }
        let Some(b) = self.bound else { return };
        if let Some(v) = b.as_const() {
            let v = t.add_const(Const::Int(v));
            let ok = t.push(Op::new(OpCode::IntEq, &[r, v]));
            entry_guard(t, Op::new(OpCode::GuardTrue, &[ok]));
            return;
        }
        for (cmp, limit, full) in [
            (OpCode::IntGe, b.lo, i64::MIN),
            (OpCode::IntLe, b.hi, i64::MAX),
        ] {
            if limit != full {
                let limit = t.add_const(Const::Int(limit));
                let ok = t.push(Op::new(cmp, &[r, limit]));
                entry_guard(t, Op::new(OpCode::GuardTrue, &[ok]));
            }
        }
    }

    /// Whether the value `r` passed to the next iteration has the fact.
    fn holds(&self, cx: &Cx, r: OpRef) -> bool {
        self.bound.is_none_or(|b| cx.bound(r).within(b))
            && (!self.fits_tag || cx.fits_tag(r))
            && (self.tag.is_none() || cx.tag_of(r) == self.tag)
            && (!self.nonnull || cx.is_nonnull(r))
            && (self.class.is_none() || cx.class_of(r) == self.class)
    }

    /// Whether every fact holds of the value at its position.
    pub(super) fn all_hold(facts: &[Fact], cx: &Cx, values: &[OpRef]) -> bool {
        facts.iter().zip(values).all(|(f, r)| f.holds(cx, *r))
    }
}

/// The first unboxed position whose virtual was forced anyway (it escaped
/// at the jump some other way, e.g. through a delayed store).
pub(super) fn escaped(cx: &Cx, j: &[OpRef], states: &[Option<VState>]) -> Option<usize> {
    j.iter().zip(states).position(|(r, st)| {
        st.as_ref()
            .is_some_and(|st| !vstate::still_virtual(cx, cx.resolve(*r), st))
    })
}

/// Chooses the exported facts computable from the jump arguments `j`;
/// returns them as short-preamble ops plus their values in the preamble.
/// Besides the passes' exports, the fields of a virtual that becomes a
/// slot are facts too (it is forced with exactly those values). Only
/// slots the body reads (`usable`) are operands: a fact about a slot the
/// loop overwrites unread (a temporary) helps nothing, and its guard in the
/// short preamble would keep bridges out.
fn select_short(pre: &Pipeline, j: &[OpRef], usable: &[bool]) -> (Vec<ShortOp>, Vec<OpRef>) {
    let cx = &pre.cx;
    let mut slots: Vec<OpRef> = j.iter().map(|r| cx.resolve(*r)).collect();
    let mut candidates = pre.exports();
    for &r in &slots {
        candidates.extend(virtual_fields(cx, r));
    }
    let mut done = vec![false; candidates.len()];
    let (mut short, mut values) = (Vec::new(), Vec::new());
    let mut progress = true;
    while progress {
        progress = false;
        for i in 0..candidates.len() {
            if done[i] {
                continue;
            }
            let e = &candidates[i];
            let res = cx.resolve(e.res);
            let kind = cx.kind(res);
            let obj_ok =
                !e.op.opcode.is_load() || e.op.args.first().is_some_and(|o| cx.is_nonnull(*o));
            // A tag is one instruction: recomputing it beats a register.
            let tag = matches!(e.op.opcode, OpCode::IntTag | OpCode::FloatTag);
            if cx.const_of(res).is_some()
                || slots.contains(&res)
                || kind.is_none()
                || !obj_ok
                || tag
            {
                done[i] = true;
                continue;
            }
            let Some(args) = short_args(cx, &e.op, &slots, usable) else {
                continue;
            };
            let obj_class = match e.op.opcode.is_load() {
                true => e.op.args.first().and_then(|o| cx.class_of(*o)),
                false => None,
            };
            short.push(ShortOp {
                opcode: e.op.opcode,
                args,
                descr: e.op.descr.clone(),
                kind: kind.expect("checked"),
                obj_class,
            });
            values.push(res);
            slots.push(res);
            let more = virtual_fields(cx, res);
            candidates.extend(more);
            done.resize(candidates.len(), false);
            done[i] = true;
            progress = true;
        }
    }
    (short, values)
}

/// The arguments of `op` as slots or constants, if all are available
/// (slots past `usable` are short values, always usable).
fn short_args(cx: &Cx, op: &Op, slots: &[OpRef], usable: &[bool]) -> Option<Vec<ShortArg>> {
    op.args
        .iter()
        .map(|a| match cx.const_of(*a) {
            Some(c) => Some(ShortArg::Const(c)),
            None => slots
                .iter()
                .enumerate()
                .position(|(i, s)| *s == cx.resolve(*a) && usable.get(i).copied().unwrap_or(true))
                .map(ShortArg::Slot),
        })
        .collect()
}

/// `getfield(r, f) = value` for every set field of `r` when it is a
/// virtual struct.
fn virtual_fields(cx: &Cx, r: OpRef) -> Vec<OptOp> {
    let Some(v) = cx.virtual_of(r) else {
        return Vec::new();
    };
    v.fields
        .iter()
        .filter_map(|(slot, value)| match slot {
            Slot::Field(f) => {
                let code = match f.kind {
                    Kind::Int => OpCode::GetfieldGcI,
                    Kind::Ref => OpCode::GetfieldGcR,
                    Kind::Float => OpCode::GetfieldGcF,
                };
                let op = Op::new(code, &[r]).with_descr(Descr::Field(f.clone()));
                Some(OptOp { op, res: *value })
            }
            Slot::Item(..) => None,
        })
        .collect()
}

/// The smallest and largest fail-descr ids of `trace` (`(0, 0)` without
/// any). Copies of its guards are offset by a distance, not moved past
/// an absolute id: ids stay dense however many loops are peeled.
fn fail_id_range(trace: &Trace) -> (u32, u32) {
    let ids = trace
        .ops
        .iter()
        .filter_map(|o| o.descr.as_ref().and_then(|d| d.as_fail()).map(|d| d.id));
    ids.fold(None, |r, id| match r {
        None => Some((id, id)),
        Some((lo, hi)) => Some((lo.min(id), hi.max(id))),
    })
    .unwrap_or((0, 0))
}

/// The short preamble of `label` as a trace: from the label's original
/// arguments (kinds `inputs`) to a jump into the peeled loop. It starts
/// with guards for the facts the peeled loop assumes about its label
/// arguments (untagging those that travel as numbers), guards each load's
/// object non-null (the preamble proved it for its own values only) and
/// each short value's fact after the op computing it. Its guards' fail args are its
/// inputs: failing one means "enter at the loop's start label instead";
/// their ids are placeholders (`0..`) the user renumbers.
fn short_preamble(inputs: &[Kind], label: &LoopLabel) -> Trace {
    let mut t = Trace::new(inputs);
    let n = inputs.len();
    let mut slots: Vec<OpRef> = Vec::with_capacity(n);
    let mut nonnull = FastSet::default();
    for (i, st) in label.states.iter().enumerate() {
        let slot = match st {
            Some(VState::Tagged(code)) => untag_entry(&mut t, OpRef::input(i), *code),
            _ => OpRef::input(i),
        };
        label.facts[i].guard(&mut t, slot, &mut nonnull);
        slots.push(slot);
    }
    for (k, s) in label.short.iter().enumerate() {
        let args: Vec<OpRef> = s
            .args
            .iter()
            .map(|a| match a {
                ShortArg::Slot(i) => slots[*i],
                ShortArg::Const(c) => t.add_const(*c),
            })
            .collect();
        if s.opcode.is_load() && nonnull.insert(args[0]) {
            entry_guard(&mut t, Op::new(OpCode::GuardNonnull, &[args[0]]));
        }
        if let Some(c) = s.obj_class {
            let c = t.add_const(Const::Int(c));
            let guarded = t
                .ops
                .iter()
                .any(|o| o.opcode == OpCode::GuardClass && o.args[..] == [args[0], c]);
            if !guarded {
                entry_guard(&mut t, Op::new(OpCode::GuardClass, &[args[0], c]));
            }
        }
        let mut op = Op::new(s.opcode, &args);
        op.descr = s.descr.clone();
        let r = t.push(op);
        label.facts[n + k].guard(&mut t, r, &mut nonnull);
        slots.push(r);
    }
    for &k in &label.pruned {
        slots.remove(k);
    }
    t.push(Op::new(OpCode::Jump, &slots).with_descr(label.descr.clone()));
    t
}

/// Appends to the short preamble `t` the test that input `p` is tagged by
/// `code` (`int_tag` or `float_tag`) and its untagging; returns the number.
fn untag_entry(t: &mut Trace, p: OpRef, code: OpCode) -> OpRef {
    let (test, untag) = match code {
        OpCode::FloatTag => (OpCode::PtrIsFloatTagged, OpCode::FloatUntag),
        _ => (OpCode::PtrIsTagged, OpCode::IntUntag),
    };
    let ok = t.push(Op::new(test, &[p]));
    entry_guard(t, Op::new(OpCode::GuardTrue, &[ok]));
    t.push(Op::new(untag, &[p]))
}

/// Appends `guard` to the short preamble `t`, failing to its inputs.
fn entry_guard(t: &mut Trace, guard: Op) {
    let id = t.ops.iter().filter(|o| o.opcode.is_guard()).count() as u32;
    let descr = Descr::from(majit_ir::FailDescr {
        name: format!("entry{id}"),
        id,
        returns: false,
    });
    let inputs: Vec<OpRef> = (0..t.inputs.len()).map(OpRef::input).collect();
    t.push(guard.with_descr(descr).with_fail_args(&inputs));
}

/// Joins the preamble (its closing jump becomes the peeled loop's label)
/// and the peeled loop (its inputs become that label's arguments).
fn merge(pre: Optimized, body: Optimized, mut label: LoopLabel) -> Result<Optimized, OptError> {
    let mut t = pre.trace;
    let jump = t
        .ops
        .pop()
        .filter(|o| o.opcode == OpCode::Jump)
        .ok_or_else(|| OptError::BadInput("preamble lost its closing jump".into()))?;
    let mut label_args = Vec::new();
    let mut seen = FastSet::default();
    for &a in &jump.args {
        if t.get_const(a).is_some() || !seen.insert(a) {
            let code = match t.kind_of(a) {
                Some(Kind::Ref) => OpCode::SameAsR,
                Some(Kind::Float) => OpCode::SameAsF,
                _ => OpCode::SameAsI,
            };
            label_args.push(t.push(Op::new(code, &[a])));
        } else {
            label_args.push(a);
        }
    }
    let label_index = t.ops.len();
    t.push(Op::new(OpCode::Label, &label_args).with_descr(label.descr.clone()));
    let base = t.ops.len();
    for op in &body.trace.ops {
        let mut op = op.clone();
        let map = |t: &mut Trace, r: OpRef| match r.target() {
            RefTarget::Input(i) => label_args[i],
            RefTarget::Op(j) => OpRef::op(base + j),
            RefTarget::Const(_) => t.add_const(body.trace.get_const(r).expect("body const")),
        };
        for a in op.args.iter_mut() {
            *a = map(&mut t, *a);
        }
        if let Some(fa) = op.fail_args.as_mut() {
            for a in fa.iter_mut() {
                *a = map(&mut t, *a);
            }
        }
        t.push(op);
    }
    label.pruned = prune_label_args(&mut t, label_index);
    if !label.pruned.is_empty() {
        // The preamble computed the pruned slots' values for nothing.
        t = without_dead_ops(&t);
    }
    let mut resume = pre.resume;
    resume.extend(body.resume);
    let mut ledger = pre.ledger;
    for mut e in body.ledger.entries {
        e.detail = format!("peeled loop: {}", e.detail);
        ledger.entries.push(e);
    }
    Ok(Optimized {
        trace: t,
        resume,
        ledger,
        short_preamble: None,
        label: Some(label),
    })
}

/// `t` without the pure ops and loads whose results nothing uses.
fn without_dead_ops(t: &Trace) -> Trace {
    let ops = t.ops.iter().enumerate().map(|(i, o)| (o, OpRef::op(i)));
    let keep = super::driver::live(ops.collect());
    let mut out = Trace::new(&t.inputs);
    let mut pos: Vec<OpRef> = Vec::with_capacity(t.ops.len());
    for (op, keep) in t.ops.iter().zip(keep) {
        let mut op = op.clone();
        let map = |out: &mut Trace, r: OpRef| match r.target() {
            RefTarget::Op(j) => pos[j],
            RefTarget::Const(_) => out.add_const(t.get_const(r).expect("trace const")),
            RefTarget::Input(_) => r,
        };
        for a in op.args.iter_mut() {
            *a = map(&mut out, *a);
        }
        if let Some(fa) = op.fail_args.as_mut() {
            for a in fa.iter_mut() {
                *a = map(&mut out, *a);
            }
        }
        // A dropped op's result is never read: any ref stands in.
        pos.push(if keep { out.push(op) } else { OpRef::op(0) });
    }
    out
}

/// Drops label arguments that nothing after the label uses except the
/// closing jump at the same position; returns the dropped positions,
/// highest first.
fn prune_label_args(t: &mut Trace, label: usize) -> Vec<usize> {
    let mut dropped = Vec::new();
    let last = t.ops.len() - 1;
    let mut k = t.ops[label].args.len();
    while k > 0 {
        k -= 1;
        let r = t.ops[label].args[k];
        let used = t.ops[label + 1..].iter().enumerate().any(|(i, op)| {
            let at_jump = label + 1 + i == last;
            let in_args = op
                .args
                .iter()
                .enumerate()
                .any(|(p, a)| *a == r && !(at_jump && p == k));
            in_args || op.fail_args.as_ref().is_some_and(|fa| fa.contains(&r))
        });
        if !used {
            t.ops[label].args.remove(k);
            t.ops[last].args.remove(k);
            dropped.push(k);
        }
    }
    dropped
}
