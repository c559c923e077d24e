//! The pipeline driver: feeds a trace's ops through the enabled passes,
//! commits what comes out, encodes each guard's resume data and assembles
//! the optimized trace.
//!
//! Algorithm: for each input op, rename its arguments to value refs (inputs
//! stay, constants are re-interned, op results become their value id after
//! replacement), give it a fresh value id, and run it from the first pass.
//! `run(stage, op)` calls the stage's hooks and `feed`, then runs the extra
//! ops the pass emitted, then the outcome, each from `stage + 1`; at the end
//! of the chain the op is committed. Committing a guard encodes its resume
//! data ([`super::encode`]); committing any other op forces the virtuals it
//! still uses (nothing virtual reaches the output). Finally dead pure ops
//! are removed and value ids are renumbered into positions.
//!
//! Invariant: ops reach the output in an order where every value id is
//! defined before it is used; the verifier checks it in tests.

use super::cx::{Cx, OptOp};
use super::encode::encode_guard;
use super::enter;
use super::ledger::LedgerKind;
use super::unroll::{self, LoopLabel};
use super::user::{catch_user_panic, Guarded};
use super::{parse_opts, OptError, Optimized, Outcome, Pass, ALL_PASSES};
use super::{PassFactory, Position, UserPasses};
use crate::resume::{GuardResume, ResumeMap};
use majit_ir::hash::{FastMap, FastSet};
use majit_ir::{Descr, Op, OpCode, OpRef, RefTarget, Trace};

/// Optimizes `trace` with the passes named in `enable_opts` (see the
/// [module docs](super) for the contract).
pub fn optimize(trace: &Trace, enable_opts: &str) -> Result<Optimized, OptError> {
    optimize_with(trace, enable_opts, &UserPasses::none())
}

/// As [`optimize`], with `user`'s passes at their positions: each is
/// checked as `user.rs` describes.
pub fn optimize_with(
    trace: &Trace,
    enable_opts: &str,
    user: &UserPasses,
) -> Result<Optimized, OptError> {
    user.check()?;
    let stages = stages(&parse_opts(enable_opts)?, user);
    if user.is_empty() {
        let out = optimize_stages(trace, &stages)?;
        if cfg!(debug_assertions) {
            verified(out, OptError::Internal)
        } else {
            Ok(out)
        }
    } else {
        catch_user_panic(|| optimize_checking_users(trace, &stages))
    }
}

/// How a bridge that ends by jumping to a peeled loop's start label is
/// to end instead (see [`optimize_bridge`]).
#[derive(Clone, Copy, Debug)]
pub enum BridgeEnd<'a> {
    /// Jump into `label` when the bridge's end fits its state (`enter.rs`);
    /// with `force`, a virtual may be forced where the label takes a boxed
    /// value.
    Enter { label: &'a LoopLabel, force: bool },
    /// Peel the loop `loop_trace` (as recorded) once more behind the
    /// bridge, specialised to the bridge's end state, under the new label
    /// `name` (`unroll::retrace`); the body's guard copies get fail ids
    /// from `first_copy_id` up.
    Retrace {
        loop_trace: &'a Trace,
        name: &'a str,
        first_copy_id: u32,
    },
}

/// Optimizes the bridge `trace`, which ends in a jump to a peeled loop's
/// start label, with the end `end` instead (the passes as in
/// [`optimize_with`]); `Ok(Err(why))` when that end does not fit.
///
/// ```
/// use majit_ir::{Const, Descr, Kind, Op, OpCode, TargetDescr, Trace};
/// use majit_metainterp::opt::{optimize, optimize_bridge, BridgeEnd, UserPasses, DEFAULT_OPTS};
/// let l = Descr::from(TargetDescr { name: "L".into() });
/// // A loop `i += 1` and a bridge into it that adds 2.
/// let step = |k: i64, label: bool| {
///     let mut t = Trace::new(&[Kind::Int]);
///     if label {
///         t.push(Op::new(OpCode::Label, &[t.input(0)]).with_descr(l.clone()));
///     }
///     let c = t.add_const(Const::Int(k));
///     let i = t.push(Op::new(OpCode::IntAdd, &[t.input(0), c]));
///     t.push(Op::new(OpCode::Jump, &[i]).with_descr(l.clone()));
///     t
/// };
/// let peeled = optimize(&step(1, true), DEFAULT_OPTS).unwrap();
/// let label = peeled.label.as_ref().unwrap();
/// let end = BridgeEnd::Enter { label, force: false };
/// let out = optimize_bridge(&step(2, false), end, DEFAULT_OPTS, &UserPasses::none());
/// let jump = out.unwrap().unwrap().trace.ops.pop().unwrap();
/// assert_eq!(jump.descr.unwrap().name(), "L.peeled");
/// ```
pub fn optimize_bridge(
    trace: &Trace,
    end: BridgeEnd,
    enable_opts: &str,
    user: &UserPasses,
) -> Result<Result<Optimized, String>, OptError> {
    user.check()?;
    let stages = stages(&parse_opts(enable_opts)?, user);
    check_fail_descrs(trace)?;
    let run = || match end {
        BridgeEnd::Enter { label, force } => enter::enter(trace, &stages, label, force),
        BridgeEnd::Retrace {
            loop_trace,
            name,
            first_copy_id,
        } => unroll::retrace(trace, loop_trace, &stages, name, first_copy_id),
    };
    let check = |out: Result<Optimized, String>, error: &dyn Fn(String) -> OptError| match out {
        Ok(o) => verified(o, error).map(Ok),
        Err(why) => Ok(Err(why)),
    };
    if user.is_empty() {
        let out = run()?;
        match cfg!(debug_assertions) {
            true => check(out, &OptError::Internal),
            false => Ok(out),
        }
    } else {
        let names: Vec<&str> = stages
            .iter()
            .filter_map(|s| match s {
                Stage::User(make) => Some(make().name()),
                Stage::Builtin(_) => None,
            })
            .collect();
        catch_user_panic(|| check(run()?, &|m| user_error(&names.join("`, `"), m)))
    }
}

/// Runs the prefix of `stages` ending with each user pass and verifies
/// its output, then the whole pipeline, verified too.
fn optimize_checking_users(trace: &Trace, stages: &[Stage]) -> Result<Optimized, OptError> {
    let peels = stages.iter().any(|s| matches!(s, Stage::Builtin("unroll")));
    let mut names = Vec::new();
    for (k, stage) in stages.iter().enumerate() {
        let Stage::User(make) = stage else { continue };
        let name = make().name();
        names.push(name);
        let mut prefix = stages[..=k].to_vec();
        if peels && !prefix.iter().any(|s| matches!(s, Stage::Builtin("unroll"))) {
            prefix.push(Stage::Builtin("unroll"));
        }
        let out = optimize_stages(trace, &prefix)?;
        verified(out, |m| user_error(name, m))?;
    }
    let out = optimize_stages(trace, stages)?;
    verified(out, |m| user_error(&names.join("`, `"), m))
}

fn user_error(pass: &str, reason: String) -> OptError {
    OptError::UserPass {
        pass: pass.to_string(),
        reason,
    }
}

/// `out`, or `error` of why its trace does not verify.
fn verified(out: Optimized, error: impl Fn(String) -> OptError) -> Result<Optimized, OptError> {
    match majit_ir::verify(&out.trace) {
        Ok(()) => Ok(out),
        Err(e) => {
            let text = majit_ir::print(&out.trace);
            Err(error(format!(
                "the optimized trace does not verify: {e}\n{text}"
            )))
        }
    }
}

/// One stage of a pipeline: a built-in pass by its `enable_opts` word, or
/// a user pass.
#[derive(Clone)]
pub(super) enum Stage {
    Builtin(&'static str),
    User(PassFactory),
}

/// The enabled built-in passes `names` (pipeline order) with `user`'s
/// passes at their positions.
fn stages(names: &[&'static str], user: &UserPasses) -> Vec<Stage> {
    let mut out = Vec::new();
    for &(word, _) in ALL_PASSES {
        out.extend(user.at(Position::Before(word)).cloned().map(Stage::User));
        if names.contains(&word) {
            out.push(Stage::Builtin(word));
        }
        out.extend(user.at(Position::After(word)).cloned().map(Stage::User));
    }
    out
}

fn optimize_stages(trace: &Trace, stages: &[Stage]) -> Result<Optimized, OptError> {
    check_fail_descrs(trace)?;
    let mut not_peeled = None;
    if stages.iter().any(|s| matches!(s, Stage::Builtin("unroll"))) {
        match unroll::optimize_loop(trace, stages)? {
            Ok(out) => return Ok(out),
            Err(why) => not_peeled = Some(why),
        }
    }
    let mut p = Pipeline::new(trace, stages);
    if let Some(why) = not_peeled {
        let detail = format!("loop not peeled: {why}");
        p.cx.ledger.note("unroll", LedgerKind::Missed, None, detail);
    }
    p.feed_trace(trace, &|_| false)?;
    Ok(p.finish())
}

/// Every guard needs a `FailDescr` with an id no other guard has.
fn check_fail_descrs(trace: &Trace) -> Result<(), OptError> {
    let mut seen = FastSet::default();
    for (i, op) in trace.ops.iter().enumerate() {
        if !op.opcode.is_guard() {
            continue;
        }
        let Some(Descr::Fail(d)) = &op.descr else {
            return Err(OptError::BadInput(format!(
                "op {i} ({}) has no fail descr",
                op.opcode
            )));
        };
        if !seen.insert(d.id) {
            return Err(OptError::BadInput(format!(
                "op {i} ({}): fail descr id {} is used twice",
                op.opcode, d.id
            )));
        }
    }
    Ok(())
}

/// The enabled passes plus the shared state and the output so far.
pub(super) struct Pipeline {
    pub(super) cx: Cx,
    passes: Vec<Box<dyn Pass>>,
    /// Input op index -> value id of its result.
    map: Vec<OpRef>,
    out: Vec<OptOp>,
    resume: ResumeMap,
    allocs_noted: FastSet<OpRef>,
    /// Fail-descr ids of guard copies -> the id they were copied from.
    pub(super) originals: FastMap<u32, u32>,
    /// When non-zero, fed guards get `id + fail_id_offset` (unroll's copy).
    pub(super) fail_id_offset: u32,
    /// What the input trace's inputs stand for, when not themselves (the
    /// peeled loop: label arguments, or virtuals rebuilt from them).
    pub(super) input_map: Vec<OpRef>,
}

impl Pipeline {
    pub(super) fn new(trace: &Trace, stages: &[Stage]) -> Pipeline {
        Self::with_inputs(&trace.inputs, stages)
    }

    /// A pipeline whose input values have kinds `inputs`.
    pub(super) fn with_inputs(inputs: &[majit_ir::Kind], stages: &[Stage]) -> Pipeline {
        let make = |s: &Stage| -> Option<Box<dyn Pass>> {
            match s {
                Stage::Builtin("unroll") => None,
                Stage::Builtin(n) => ALL_PASSES.iter().find(|(w, _)| w == n).map(|p| (p.1)()),
                Stage::User(f) => Some(Box::new(Guarded(f()))),
            }
        };
        let passes = stages.iter().filter_map(make).collect();
        Pipeline {
            cx: Cx::new(inputs),
            passes,
            map: Vec::new(),
            out: Vec::new(),
            resume: ResumeMap::new(),
            allocs_noted: FastSet::default(),
            originals: FastMap::default(),
            fail_id_offset: 0,
            input_map: Vec::new(),
        }
    }

    /// The value ref an input-trace ref currently stands for.
    pub(super) fn rename(&mut self, trace: &Trace, r: OpRef) -> OpRef {
        match r.target() {
            RefTarget::Input(i) => match self.input_map.get(i) {
                Some(&to) => self.cx.resolve(to),
                None => self.cx.resolve(r),
            },
            RefTarget::Op(i) => self.cx.resolve(self.map[i]),
            RefTarget::Const(_) => {
                let c = trace.get_const(r).expect("verified trace");
                self.cx.konst(c)
            }
        }
    }

    /// Feeds every op of `trace` for which `skip` is false (skipped ops
    /// still get a value id so later references resolve).
    pub(super) fn feed_trace(
        &mut self,
        trace: &Trace,
        skip: &dyn Fn(usize) -> bool,
    ) -> Result<(), OptError> {
        for (k, op) in trace.ops.iter().enumerate() {
            let mut o = op.clone();
            for a in o.args.iter_mut() {
                *a = self.rename(trace, *a);
            }
            if let Some(fa) = o.fail_args.as_mut() {
                for a in fa.iter_mut() {
                    *a = self.rename(trace, *a);
                }
            }
            let res = self.cx.fresh(o.opcode.result().kind());
            self.map.push(res);
            if skip(k) {
                continue;
            }
            self.cx.define(res, &o, k);
            if o.opcode.is_allocation() {
                let info = self.cx.info_mut(res);
                info.fresh = true;
                info.nonnull = true;
            }
            if o.opcode.is_guard() {
                self.cx.take_pending();
                self.rename_fail_descr(&mut o);
            }
            if o.opcode == OpCode::Label {
                self.bind_label(op, &mut o);
            }
            self.run(0, OptOp { op: o, res })
                .map_err(|(pass, reason)| OptError::Invalid {
                    pass,
                    op_index: k,
                    reason,
                })?;
        }
        Ok(())
    }

    /// Guard copies (the peeled loop's) get fresh fail-descr ids.
    fn rename_fail_descr(&mut self, guard: &mut Op) {
        if self.fail_id_offset == 0 {
            return;
        }
        if let Some(Descr::Fail(d)) = &guard.descr {
            let copy = majit_ir::FailDescr {
                name: format!("{}.peeled", d.name),
                id: d.id + self.fail_id_offset,
                returns: d.returns,
            };
            self.originals.insert(copy.id, d.id);
            guard.descr = Some(Descr::from(copy));
        }
    }

    /// Runs an extra op (not from the input trace) through the whole
    /// pipeline; returns the value its result stands for afterwards and
    /// whether it reached the output as a load.
    pub(super) fn feed_extra(&mut self, op: Op) -> Result<(OpRef, bool), OptError> {
        let res = self.cx.fresh(op.opcode.result().kind());
        self.cx.define(res, &op, usize::MAX);
        let before = self.out.len();
        self.run(0, OptOp { op, res })
            .map_err(|(pass, reason)| OptError::Invalid {
                pass,
                op_index: usize::MAX,
                reason,
            })?;
        let loaded = self.out[before..]
            .iter()
            .any(|o| o.res == res && o.op.opcode.is_load());
        Ok((self.cx.resolve(res), loaded))
    }

    /// Tells every pass that `op`'s result is already available as
    /// `op.res` (facts imported into the peeled loop).
    pub(super) fn import(&mut self, op: &OptOp) {
        for p in &mut self.passes {
            self.cx.pass = p.name();
            p.committed(&mut self.cx, op);
        }
    }

    /// Every pass's exported facts, in pipeline order.
    pub(super) fn exports(&self) -> Vec<OptOp> {
        self.passes
            .iter()
            .flat_map(|p| p.export(&self.cx))
            .collect()
    }

    /// A `label` re-binds its arguments: each becomes a distinct
    /// non-constant value (a `same_as` where needed) about which nothing is
    /// known, and the label's original argument refs stand for it from now
    /// on.
    fn bind_label(&mut self, orig: &Op, label: &mut Op) {
        let mut seen = FastSet::default();
        for (i, a) in label.args.iter_mut().enumerate() {
            self.cx.force(*a, "live across the loop back edge");
            self.commit_forced();
            if self.cx.const_of(*a).is_some() || !seen.insert(*a) {
                let kind = self.cx.kind(*a);
                let code = match kind {
                    Some(majit_ir::Kind::Ref) => OpCode::SameAsR,
                    Some(majit_ir::Kind::Float) => OpCode::SameAsF,
                    _ => OpCode::SameAsI,
                };
                let res = self.cx.fresh(kind);
                self.commit(OptOp {
                    op: Op::new(code, &[*a]),
                    res,
                });
                *a = res;
                seen.insert(res);
            }
            self.cx.forget(*a);
            let original = orig.args[i];
            match original.target() {
                RefTarget::Input(_) => self.cx.rebind(original, *a),
                RefTarget::Op(j) => self.map[j] = *a,
                RefTarget::Const(_) => {}
            }
        }
    }

    /// Commits the ops a force at the driver level emitted.
    fn commit_forced(&mut self) {
        for forced in self.cx.take_emitted() {
            self.note_alloc(&forced);
            self.out.push(forced);
        }
    }

    /// Runs `op` from pass `stage` on; returns whether it was committed.
    pub(super) fn run(&mut self, stage: usize, op: OptOp) -> Result<bool, (&'static str, String)> {
        if stage == self.passes.len() {
            self.commit(op);
            return Ok(true);
        }
        let pass = &mut self.passes[stage];
        self.cx.pass = pass.name();
        if op.op.opcode.is_guard() {
            pass.at_guard(&mut self.cx, &op);
        }
        if matches!(op.op.opcode, OpCode::Label | OpCode::Jump | OpCode::Finish) {
            pass.flush(&mut self.cx);
        }
        let res = op.res;
        let outcome = pass.feed(&mut self.cx, op);
        self.run_emitted(stage + 1)?;
        match outcome {
            Outcome::Emit(o) => {
                // `committed` reads no fail args: a guard's are not copied.
                let head = OptOp {
                    op: Op {
                        opcode: o.op.opcode,
                        args: o.op.args.clone(),
                        descr: o.op.descr.clone(),
                        fail_args: None,
                    },
                    res: o.res,
                };
                let committed = self.run(stage + 1, o)?;
                if committed {
                    self.cx.pass = self.passes[stage].name();
                    self.passes[stage].committed(&mut self.cx, &head);
                    self.run_emitted(stage + 1)?;
                }
                Ok(committed)
            }
            Outcome::Same(r) => {
                self.cx.replace(res, r);
                Ok(false)
            }
            Outcome::Drop => Ok(false),
            Outcome::Invalid(reason) => Err((self.passes[stage].name(), reason)),
        }
    }

    fn run_emitted(&mut self, stage: usize) -> Result<(), (&'static str, String)> {
        for e in self.cx.take_emitted() {
            self.run(stage, e)?;
        }
        Ok(())
    }

    /// Appends `op` to the output: guards get their resume data, other ops
    /// force whatever virtual they still use.
    fn commit(&mut self, mut op: OptOp) {
        self.cx.pass = "output";
        // An argument made by an op a pass emitted may have been replaced
        // by a later pass (an emitted `int_sub` found by CSE).
        for a in &mut op.op.args {
            *a = self.cx.resolve(*a);
        }
        let forces = self.cx.any_virtual(&op.op.args);
        if op.op.opcode.is_guard() {
            // Guards never force their fail args; a virtual guard argument
            // is an op virtualize does not model.
            if forces {
                let why = format!("tested by `{}`", op.op.opcode);
                self.cx.force_args(&op.op, &why);
            }
            self.commit_forced();
            let pending = self.cx.take_pending();
            let (boxes, rd) = encode_guard(&mut self.cx, &op.op, &pending);
            op.op.fail_args = Some(boxes);
            if let Some(Descr::Fail(d)) = &op.op.descr {
                let original = self.originals.get(&d.id).copied().unwrap_or(d.id);
                self.resume.insert(d.id, GuardResume { original, ..rd });
            }
        } else {
            if forces {
                let why = format!("used by `{}`", op.op.opcode);
                self.cx.force_args(&op.op, &why);
            }
            self.commit_forced();
        }
        if op.op.opcode.accesses_gc_object() {
            // A load or store dereferences its object: it is not null.
            self.cx.info_mut(op.op.arg(0)).nonnull = true;
        }
        self.note_alloc(&op);
        self.out.push(op);
    }

    /// Every allocation in the output gets a ledger entry.
    fn note_alloc(&mut self, op: &OptOp) {
        if !op.op.opcode.is_allocation() || !self.allocs_noted.insert(op.res) {
            return;
        }
        let explained = self.cx.forced.contains(&op.res)
            || self.cx.ledger.entries.iter().any(|e| {
                matches!(e.kind, LedgerKind::Escaped | LedgerKind::NotVirtual)
                    && e.op_index.is_some()
                    && e.op_index == self.cx.origin(op.res)
            });
        if !explained {
            let origin = self.cx.origin(op.res);
            self.cx.ledger.note(
                "output",
                LedgerKind::NotVirtual,
                origin,
                "virtualize is not enabled".into(),
            );
        }
    }

    /// Assembles the optimized trace.
    pub(super) fn finish(mut self) -> Optimized {
        for p in &mut self.passes {
            self.cx.pass = p.name();
            p.finish(&mut self.cx);
        }
        let live = live_ops(&self.out);
        let mut pos: FastMap<OpRef, OpRef> = FastMap::default();
        let mut trace = self.cx.pool().clone();
        for (o, keep) in self.out.iter().zip(&live) {
            if !keep {
                continue;
            }
            let map = |r: OpRef| pos.get(&r).copied().unwrap_or(r);
            let mut op: Op = o.op.clone();
            for a in op.args.iter_mut() {
                *a = map(*a);
            }
            if let Some(fa) = op.fail_args.as_mut() {
                for a in fa.iter_mut() {
                    *a = map(*a);
                }
            }
            let r = trace.push(op);
            pos.insert(o.res, r);
        }
        Optimized {
            trace,
            resume: self.resume,
            ledger: self.cx.ledger,
            short_preamble: None,
            label: None,
        }
    }
}

/// Which ops to keep: everything but side-effect-free ops whose result
/// nothing kept uses (computed backwards).
fn live_ops(out: &[OptOp]) -> Vec<bool> {
    live(out.iter().map(|o| (&o.op, o.res)).collect())
}

/// [`live_ops`] over `(op, result)` pairs in trace order.
pub(super) fn live(ops: Vec<(&Op, OpRef)>) -> Vec<bool> {
    let mut used: FastSet<OpRef> = FastSet::default();
    let mut keep = vec![true; ops.len()];
    for (i, (op, res)) in ops.iter().enumerate().rev() {
        let code = op.opcode;
        let removable = code.result().kind().is_some()
            && (code.is_always_pure() || code.is_load())
            && !used.contains(res);
        if removable {
            keep[i] = false;
            continue;
        }
        used.extend(op.args.iter().copied());
        if let Some(fa) = &op.fail_args {
            used.extend(fa.iter().copied());
        }
    }
    keep
}
