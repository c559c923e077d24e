//! Linear-scan register allocation over the scheduled trace.
//!
//! Traces are linear, so the scan is one forward pass over the schedule,
//! allocating at each op (the shape of RPython's allocator, with the
//! decisions of Poletto–Sarkar's scan made per op from next-use distance):
//!
//! 1. operands the arch wants in registers are loaded (from their spill
//!    slot or as constants), never evicting another operand of the op;
//! 2. guards record where each fail arg is (a register, a slot or a
//!    constant: exits read any location);
//! 3. values living past the op leave the registers the op clobbers (a
//!    call's caller-saved set, `idiv`'s `rax`/`rdx`): to a free register
//!    outside the set, else to their slot;
//! 4. values whose last use is this op release their register and slot;
//! 5. the result gets a register: its hint (the label location its `jump`
//!    argument needs, a call's argument or result register) if free, else
//!    the policy's pick; with none free the policy picks a victim, by
//!    default the value whose next real use is furthest (values only read
//!    by exits go first). A spilled value keeps its slot for life (values
//!    are SSA), so it is stored once.
//!
//! A `label` fixes one distinct location per argument (loading slot-only
//! arguments into free registers); a `jump` reads its arguments wherever
//! they are and the emitter performs the parallel move into the target's
//! locations. Loop inputs arrive in slots `0..n`; bridge inputs arrive where
//! the guard's fail args were.
//!
//! Invariants: a register holds at most one value; a value's slot, once
//! written, holds it until the value dies; scratch registers are never
//! handed out (they are not in `alloc_order`). The output is validated by
//! [`checker::check`], which knows nothing of this file.

pub mod checker;
pub mod liverange;
pub mod moves;
pub mod policy;

use crate::arch::{Bank, Loc, OpConstraints, Reg, RegFile};
use liverange::{value_id, value_ref, Liveness, ValueId};
use majit_ir::{Const, GcRole, Kind, Op, OpCode, OpRef, Trace};
use majit_metainterp::CompileError;
pub use moves::Move;
use policy::{AllocCx, LiveRange, Occupant, RegCandidate};
pub use policy::{AllocDecision, AllocPolicy, NativePolicy, RandomPolicy};
use smallvec::SmallVec;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The allocation of one op, in schedule order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpAlloc {
    /// Index of the op in the trace.
    pub op: usize,
    /// Moves to run, in order, before the op.
    pub moves: Vec<Move>,
    /// Location of each argument when the op runs (most ops take few).
    pub args: SmallVec<[Loc; 3]>,
    /// Where the result is written.
    pub result: Option<Loc>,
    /// Guards and `finish`: location of each exit value.
    pub fail_args: Vec<Loc>,
    /// `jump` only: where the target label expects each argument.
    pub target: Vec<Loc>,
    /// Ops with [`needs_live`]: every location of every value living past
    /// the op, with its kind (after the op's moves).
    pub live: Vec<(Loc, Kind)>,
}

/// Whether the emitter needs the live values of `op`: lowered GC ops with
/// a slow path ([`GcRole::Slow`]: an allocation's saves live registers and
/// roots refs, a write barrier's saves live caller-saved registers) and
/// collecting calls.
pub fn needs_live(op: &Op) -> bool {
    op.opcode.gc_role() == GcRole::Slow || refs_to_slots(op)
}

/// Whether `op` is a call that may collect: live refs must be in spill
/// slots across it (the collector cannot see a callee's saved registers).
pub fn refs_to_slots(op: &Op) -> bool {
    op.opcode.is_call()
        && op
            .descr
            .as_ref()
            .and_then(|d| d.as_call())
            .is_none_or(|c| c.effect.can_collect)
}

/// The allocator's output for one trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Allocation {
    /// Where each input is on entry.
    pub entry: Vec<Loc>,
    /// Moves run on entry, before the first op.
    pub prologue: Vec<Move>,
    /// One entry per scheduled op, in schedule order.
    pub ops: Vec<OpAlloc>,
    /// For each `label` (by op index): the location of each argument.
    pub labels: Vec<(usize, Vec<Loc>)>,
    /// Number of spill slots used.
    pub slots: u32,
}

/// Everything the allocator needs besides the policy.
pub struct AllocInput<'a> {
    pub trace: &'a Trace,
    /// The schedule (op indices in execution order).
    pub order: &'a [usize],
    pub regs: &'static RegFile,
    pub constraints: &'a dyn Fn(&Op) -> OpConstraints,
    /// Where each input is on entry.
    pub entry: Vec<Loc>,
    /// The argument locations of a label of an earlier trace, by name.
    pub external_label: &'a dyn Fn(&str) -> Option<Vec<Loc>>,
}

/// Allocates registers for `input.trace`; see the module docs.
pub fn allocate(
    input: &AllocInput,
    policy: &mut dyn AllocPolicy,
) -> Result<Allocation, CompileError> {
    let regs = input.regs;
    let is_call = |i: usize| {
        let c = (input.constraints)(&input.trace.ops[i]);
        !c.clobbers.is_empty() && c.clobbers == regs.call_clobbers
    };
    let live = Liveness::compute(input.trace, input.order, regs, is_call);
    let nv = live.def.len();
    let mut a = Allocator {
        t: input.trace,
        regs,
        live,
        reg_val: vec![None; regs.regs.len()],
        val_reg: vec![None; nv],
        val_slot: vec![None; nv],
        val_const: vec![None; nv],
        free_slots: Vec::new(),
        next_slot: 0,
        label_hint: vec![None; nv],
        labels: Vec::new(),
        policy,
        op: 0,
    };
    let prologue = a.enter(&input.entry)?;
    a.hint_external_jump(input)?;
    let mut ops = Vec::with_capacity(input.order.len());
    for (k, &i) in input.order.iter().enumerate() {
        ops.push(a.step(k as u32 + 1, i, input)?);
    }
    Ok(Allocation {
        entry: input.entry.clone(),
        prologue,
        ops,
        labels: a.labels,
        slots: a.next_slot,
    })
}

struct Allocator<'a> {
    t: &'a Trace,
    regs: &'static RegFile,
    live: Liveness,
    reg_val: Vec<Option<ValueId>>,
    val_reg: Vec<Option<Reg>>,
    val_slot: Vec<Option<u32>>,
    val_const: Vec<Option<Const>>,
    /// Released slots below `next_slot`, reused smallest-last.
    free_slots: Vec<u32>,
    next_slot: u32,
    /// Register a value should get because the trace's `jump` passes it
    /// to a label location that is this register.
    label_hint: Vec<Option<Reg>>,
    labels: Vec<(usize, Vec<Loc>)>,
    policy: &'a mut dyn AllocPolicy,
    /// The op being allocated (trace index), for the policy and errors.
    op: usize,
}

fn invalid(msg: String) -> CompileError {
    CompileError::Invalid(msg)
}

impl Allocator<'_> {
    fn kind(&self, v: ValueId) -> Kind {
        self.t.kind_of(value_ref(self.t, v)).unwrap_or(Kind::Int)
    }

    fn alloc_slot(&mut self) -> Result<u32, CompileError> {
        if let Some(s) = self.free_slots.pop() {
            return Ok(s);
        }
        if self.next_slot >= crate::frame::MAX_SLOTS {
            return Err(CompileError::ImplLimit(format!(
                "more than {} spill slots",
                crate::frame::MAX_SLOTS
            )));
        }
        self.next_slot += 1;
        Ok(self.next_slot - 1)
    }

    fn bind_reg(&mut self, v: ValueId, r: Reg) {
        self.reg_val[r as usize] = Some(v);
        self.val_reg[v] = Some(r);
    }

    fn unbind_reg(&mut self, r: Reg) {
        if let Some(v) = self.reg_val[r as usize].take() {
            self.val_reg[v] = None;
        }
    }

    fn release(&mut self, v: ValueId) {
        if let Some(r) = self.val_reg[v] {
            self.unbind_reg(r);
        }
        if let Some(s) = self.val_slot[v].take() {
            self.free_slots.push(s);
        }
        self.val_const[v] = None;
    }

    /// The current location of `r` (register first, then slot, then
    /// constant).
    fn loc_of(&self, r: OpRef) -> Result<Loc, CompileError> {
        let Some(v) = value_id(self.t, r) else {
            let c = self
                .t
                .get_const(r)
                .ok_or_else(|| invalid(format!("unknown constant {r:?}")))?;
            return Ok(Loc::Const(c));
        };
        if let Some(reg) = self.val_reg.get(v).copied().flatten() {
            return Ok(Loc::Reg(reg));
        }
        if let Some(s) = self.val_slot.get(v).copied().flatten() {
            return Ok(Loc::Slot(s));
        }
        match self.val_const.get(v).copied().flatten() {
            Some(c) => Ok(Loc::Const(c)),
            None => Err(invalid(format!("{r:?} is used where it is not live"))),
        }
    }

    /// Binds the inputs to their entry locations; returns the prologue.
    fn enter(&mut self, entry: &[Loc]) -> Result<Vec<Move>, CompileError> {
        if entry.len() != self.t.inputs.len() {
            return Err(invalid("entry locations do not match the inputs".into()));
        }
        let mut used_slots: Vec<u32> = entry
            .iter()
            .filter_map(|l| match l {
                Loc::Slot(s) => Some(*s),
                _ => None,
            })
            .collect();
        used_slots.sort_unstable();
        used_slots.dedup();
        self.next_slot = used_slots.last().map_or(0, |&s| s + 1);
        self.free_slots = (0..self.next_slot)
            .rev()
            .filter(|s| used_slots.binary_search(s).is_err())
            .collect();
        let mut taken_slots: Vec<u32> = Vec::new();
        let mut prologue = Vec::new();
        for (v, &loc) in entry.iter().enumerate() {
            let kind = self.t.inputs[v];
            let dup = match loc {
                Loc::Reg(r) => {
                    if !self.regs.is_allocatable(r) || Bank::of(kind) != self.regs.info(r).bank {
                        return Err(invalid(format!("entry location {loc:?} of input {v}")));
                    }
                    self.reg_val[r as usize].is_some()
                }
                Loc::Slot(s) => taken_slots.contains(&s),
                Loc::Const(c) => {
                    self.val_const[v] = Some(c);
                    continue;
                }
            };
            if dup {
                let s = self.alloc_slot()?;
                prologue.push(Move {
                    from: loc,
                    to: Loc::Slot(s),
                    kind,
                });
                self.val_slot[v] = Some(s);
            } else if let Loc::Reg(r) = loc {
                self.bind_reg(v, r);
            } else if let Loc::Slot(s) = loc {
                taken_slots.push(s);
                self.val_slot[v] = Some(s);
            }
        }
        for v in 0..entry.len() {
            if self.live.last_use[v] == 0 {
                self.release(v);
            }
        }
        Ok(prologue)
    }

    /// Hints the final `jump`'s arguments when it targets another trace.
    fn hint_external_jump(&mut self, input: &AllocInput) -> Result<(), CompileError> {
        let Some(jump) = self.t.ops.iter().rfind(|op| op.opcode == OpCode::Jump) else {
            return Ok(());
        };
        let name = target_name(jump)?;
        let own = self
            .t
            .ops
            .iter()
            .any(|op| op.opcode == OpCode::Label && target_name(op).ok() == Some(name));
        if !own {
            if let Some(locs) = (input.external_label)(name) {
                self.set_jump_hints(jump, &locs);
            }
        }
        Ok(())
    }

    fn set_jump_hints(&mut self, jump: &Op, locs: &[Loc]) {
        for (&a, &l) in jump.args.iter().zip(locs) {
            if let (Some(v), Loc::Reg(r)) = (value_id(self.t, a), l) {
                self.label_hint[v].get_or_insert(r);
            }
        }
    }

    fn step(&mut self, p: u32, i: usize, input: &AllocInput) -> Result<OpAlloc, CompileError> {
        self.op = i;
        let op = &self.t.ops[i];
        let mut out = OpAlloc {
            op: i,
            ..OpAlloc::default()
        };
        match op.opcode {
            OpCode::Label => self.label(p, i, &mut out)?,
            OpCode::Jump => {
                out.args = self.locs(&op.args)?;
                out.target = self.jump_target(op, input)?;
            }
            OpCode::Finish | OpCode::DebugMergePoint => {
                out.args = self.locs(&op.args)?;
                if op.opcode == OpCode::Finish {
                    out.fail_args = out.args.to_vec();
                }
            }
            _ => {
                let cons = (input.constraints)(op);
                if cons.args_in_regs {
                    self.load_args(p, op, &mut out.moves)?;
                }
                out.args = self.locs(&op.args)?;
                if let Some(fa) = &op.fail_args {
                    out.fail_args = self.locs(fa)?;
                }
                self.evict(p, cons.clobbers, &mut out.moves)?;
                if refs_to_slots(op) {
                    self.spill_live_refs(p, &mut out.moves)?;
                }
            }
        }
        let before = self.free_slots.len();
        for &a in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Some(v) = value_id(self.t, a) {
                if self.live.last_use[v] <= p {
                    self.release(v);
                }
            }
        }
        // The op still reads the slots of operands dying here, while the
        // spills for its result are stored before it runs: they must not
        // reuse those slots.
        let dying_slots = self.free_slots.split_off(before);
        if let Some(kind) = op.opcode.result().kind() {
            let v = self.t.inputs.len() + i;
            let r = self.take_reg(v, p, &[], true, &mut out.moves)?;
            debug_assert_eq!(Bank::of(kind), self.regs.info(r).bank);
            self.bind_reg(v, r);
            out.result = Some(Loc::Reg(r));
            if self.live.last_use[v] <= p {
                self.release(v);
            }
        }
        self.free_slots.extend(dying_slots);
        if needs_live(op) {
            // After every move of the op, the result's spills included.
            let def = self.t.inputs.len() + i;
            out.live = self.live_locs(p, def);
        }
        Ok(out)
    }

    fn locs<C: FromIterator<Loc>>(&self, refs: &[OpRef]) -> Result<C, CompileError> {
        refs.iter().map(|&r| self.loc_of(r)).collect()
    }

    /// Loads every non-constant argument into a register.
    fn load_args(&mut self, p: u32, op: &Op, moves: &mut Vec<Move>) -> Result<(), CompileError> {
        for &a in &op.args {
            let Some(v) = value_id(self.t, a) else {
                continue;
            };
            if self.val_reg[v].is_some() {
                continue;
            }
            let from = self.loc_of(a)?;
            let busy: Vec<Reg> = op
                .args
                .iter()
                .filter_map(|&b| value_id(self.t, b).and_then(|w| self.val_reg[w]))
                .collect();
            let r = self.take_reg(v, p, &busy, true, moves)?;
            moves.push(Move {
                from,
                to: Loc::Reg(r),
                kind: self.kind(v),
            });
            self.bind_reg(v, r);
        }
        Ok(())
    }

    /// Moves values living past `p` out of the registers in `clobbers`.
    fn evict(
        &mut self,
        p: u32,
        clobbers: &[Reg],
        moves: &mut Vec<Move>,
    ) -> Result<(), CompileError> {
        for &c in clobbers {
            let Some(v) = self.reg_val[c as usize] else {
                continue;
            };
            if self.live.last_use[v] <= p {
                continue;
            }
            let bank = self.regs.info(c).bank;
            let free = self.free_candidates(bank, clobbers);
            if !free.is_empty() {
                let cx = AllocCx {
                    op: self.op,
                    now: p,
                    range: self.range(v, p),
                    free: &free,
                    occupied: &[],
                    hint: None,
                };
                let AllocDecision::Reg(r) = self.decide(&cx)? else {
                    unreachable!("decide only accepts candidates and none are occupied")
                };
                moves.push(Move {
                    from: Loc::Reg(c),
                    to: Loc::Reg(r),
                    kind: self.kind(v),
                });
                self.unbind_reg(c);
                self.bind_reg(v, r);
            } else {
                self.spill_reg(c, moves)?;
            }
        }
        Ok(())
    }

    /// Spills every ref living past `p` out of its register.
    fn spill_live_refs(&mut self, p: u32, moves: &mut Vec<Move>) -> Result<(), CompileError> {
        for r in 0..self.reg_val.len() as Reg {
            if let Some(v) = self.reg_val[r as usize] {
                if self.kind(v) == Kind::Ref && self.live.last_use[v] > p {
                    self.spill_reg(r, moves)?;
                }
            }
        }
        Ok(())
    }

    /// Every location of every value living past `p` (but `def`, the
    /// op's own result), by value number.
    fn live_locs(&self, p: u32, def: ValueId) -> Vec<(Loc, Kind)> {
        let mut out = Vec::new();
        for v in 0..self.val_reg.len() {
            if self.live.last_use[v] <= p || v == def {
                continue;
            }
            let kind = self.kind(v);
            if let Some(r) = self.val_reg[v] {
                out.push((Loc::Reg(r), kind));
            }
            if let Some(s) = self.val_slot[v] {
                out.push((Loc::Slot(s), kind));
            }
        }
        out
    }

    /// Frees register `r` by storing its value into the value's slot
    /// (allocated and written on its first spill only).
    fn spill_reg(&mut self, r: Reg, moves: &mut Vec<Move>) -> Result<(), CompileError> {
        if let Some(v) = self.reg_val[r as usize] {
            if self.val_slot[v].is_none() && self.val_const[v].is_none() {
                let s = self.alloc_slot()?;
                moves.push(Move {
                    from: Loc::Reg(r),
                    to: Loc::Slot(s),
                    kind: self.kind(v),
                });
                self.val_slot[v] = Some(s);
            }
        }
        self.unbind_reg(r);
        Ok(())
    }

    /// A register for value `v` at `p`, never one in `exclude`: a free one
    /// or, when none is free or the policy prefers it (and `may_evict`),
    /// one whose range the policy evicts.
    fn take_reg(
        &mut self,
        v: ValueId,
        p: u32,
        exclude: &[Reg],
        may_evict: bool,
        moves: &mut Vec<Move>,
    ) -> Result<Reg, CompileError> {
        let bank = Bank::of(self.kind(v));
        let free = self.free_candidates(bank, exclude);
        let offer = free.is_empty() || (may_evict && self.policy.evicts_while_free());
        let occupied: Vec<Occupant> = if offer {
            self.regs
                .alloc_order
                .iter()
                .copied()
                .filter(|&r| self.regs.info(r).bank == bank && !exclude.contains(&r))
                .filter_map(|r| {
                    let w = self.reg_val[r as usize]?;
                    Some(Occupant {
                        reg: self.candidate(r),
                        range: self.range(w, p),
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        if free.is_empty() && occupied.is_empty() {
            return Err(CompileError::ImplLimit(format!(
                "no {bank:?} register left for {:?}",
                value_ref(self.t, v)
            )));
        }
        let cx = AllocCx {
            op: self.op,
            now: p,
            range: self.range(v, p),
            free: &free,
            occupied: &occupied,
            hint: self.label_hint[v].or(self.live.hint[v]),
        };
        match self.decide(&cx)? {
            AllocDecision::Reg(r) => Ok(r),
            AllocDecision::Evict(x) => {
                let r = occupied
                    .iter()
                    .find(|o| o.range.value == x)
                    .expect("decide accepted an occupant")
                    .reg
                    .reg;
                self.spill_reg(r, moves)?;
                Ok(r)
            }
        }
    }

    /// The policy's decision for `cx`, if it is legal.
    fn decide(&mut self, cx: &AllocCx) -> Result<AllocDecision, CompileError> {
        let d = catch_unwind(AssertUnwindSafe(|| self.policy.decide(cx))).map_err(|p| {
            let why = majit_metainterp::strategy::panic_text(&*p);
            self.strategy_error(
                "allocation".into(),
                format!("the allocation policy panicked: {why}"),
            )
        })?;
        let names = |regs: &mut dyn Iterator<Item = &RegCandidate>| {
            regs.map(|c| c.name).collect::<Vec<_>>().join(", ")
        };
        let value = cx.range.value;
        match d {
            AllocDecision::Reg(r) if cx.free.iter().any(|c| c.reg == r) => Ok(d),
            AllocDecision::Reg(r) => Err(self.strategy_error(
                match self.regs.regs.get(r as usize) {
                    Some(info) => format!("register {} for {value:?}", info.name),
                    None => format!("register #{r} (no such register) for {value:?}"),
                },
                format!("not among the candidates [{}]", names(&mut cx.free.iter())),
            )),
            AllocDecision::Evict(x) if cx.occupied.iter().any(|o| o.range.value == x) => Ok(d),
            AllocDecision::Evict(x) => {
                let why = match value_id(self.t, x).filter(|&w| w < self.val_reg.len()) {
                    Some(w) if self.loc_of(x).is_ok() && self.live.last_use[w] > cx.now => {
                        format!(
                            "{x:?} is live but in no evictable register (evictable: [{}])",
                            names(&mut cx.occupied.iter().map(|o| &o.reg))
                        )
                    }
                    _ => format!("{x:?} is not live here"),
                };
                Err(self.strategy_error(format!("evict {x:?} for {value:?}"), why))
            }
        }
    }

    /// What a policy sees of register `r`.
    fn candidate(&self, r: Reg) -> RegCandidate {
        RegCandidate {
            reg: r,
            name: self.regs.name(r),
            caller_saved: self.regs.info(r).caller_saved,
        }
    }

    /// The free registers of `bank` but `exclude`, as candidates.
    fn free_candidates(&self, bank: Bank, exclude: &[Reg]) -> Vec<RegCandidate> {
        let free = self.regs.alloc_order.iter().copied().filter(|&r| {
            self.regs.info(r).bank == bank
                && self.reg_val[r as usize].is_none()
                && !exclude.contains(&r)
        });
        free.map(|r| self.candidate(r)).collect()
    }

    /// What a policy sees of value `v`'s range at position `p`.
    fn range(&self, v: ValueId, p: u32) -> LiveRange {
        LiveRange {
            value: value_ref(self.t, v),
            kind: self.kind(v),
            def: self.live.def[v],
            next_use: self.live.next_use(v, p),
            end: self.live.last_use[v],
            crosses_call: self.live.crosses_call[v],
        }
    }

    /// An illegal decision at the current op.
    fn strategy_error(&self, decision: String, reason: String) -> CompileError {
        CompileError::Strategy {
            op: format!("op {} ({})", self.op, self.t.ops[self.op].opcode.name()),
            decision,
            reason,
        }
    }

    /// Fixes one distinct location per label argument.
    fn label(&mut self, p: u32, i: usize, out: &mut OpAlloc) -> Result<(), CompileError> {
        let op = &self.t.ops[i];
        let mut locs = Vec::with_capacity(op.args.len());
        let mut claimed: Vec<ValueId> = Vec::new();
        let mut scratch_slots = Vec::new();
        for &a in &op.args {
            let v = value_id(self.t, a).filter(|v| !claimed.contains(v));
            let Some(v) = v else {
                // A constant or repeated argument: a location nobody reads
                // after the label, written again by every jump.
                let from = self.loc_of(a)?;
                let s = self.alloc_slot()?;
                scratch_slots.push(s);
                let kind = self.t.kind_of(a).unwrap_or(Kind::Int);
                out.moves.push(Move {
                    from,
                    to: Loc::Slot(s),
                    kind,
                });
                locs.push(Loc::Slot(s));
                continue;
            };
            claimed.push(v);
            locs.push(self.fix_label_loc(v, p, &mut out.moves)?);
        }
        self.free_slots.extend(scratch_slots);
        for w in 0..self.val_reg.len() {
            let live = self.val_reg[w].is_some()
                || self.val_slot[w].is_some()
                || self.val_const[w].is_some();
            if live && !claimed.contains(&w) && self.live.last_use[w] > p {
                return Err(CompileError::Unsupported {
                    op: format!(
                        "label at op {i}: {:?} is used after it but is not one of its arguments",
                        value_ref(self.t, w)
                    ),
                });
            }
        }
        out.args = locs.iter().copied().collect();
        if let Some(jump) = self.t.ops.iter().rfind(|j| j.opcode == OpCode::Jump) {
            if target_name(jump).ok() == target_name(op).ok() {
                self.set_jump_hints(jump, &locs);
            }
        }
        self.labels.push((i, locs));
        Ok(())
    }

    /// Gives label argument `v` exactly one location and returns it.
    fn fix_label_loc(
        &mut self,
        v: ValueId,
        p: u32,
        moves: &mut Vec<Move>,
    ) -> Result<Loc, CompileError> {
        let kind = self.kind(v);
        if self.val_reg[v].is_none() {
            let from = self.loc_of(value_ref(self.t, v))?;
            let free = self.free_candidates(Bank::of(kind), &[]);
            if self.live.next_use(v, p).is_some() && !free.is_empty() {
                // Free registers exist, so this spills nothing (earlier
                // arguments' locations stay valid).
                let r = self.take_reg(v, p, &[], false, moves)?;
                moves.push(Move {
                    from,
                    to: Loc::Reg(r),
                    kind,
                });
                self.bind_reg(v, r);
            } else if self.val_slot[v].is_none() {
                let s = self.alloc_slot()?;
                moves.push(Move {
                    from,
                    to: Loc::Slot(s),
                    kind,
                });
                self.val_slot[v] = Some(s);
            }
        }
        self.val_const[v] = None;
        if let Some(r) = self.val_reg[v] {
            if let Some(s) = self.val_slot[v].take() {
                self.free_slots.push(s);
            }
            return Ok(Loc::Reg(r));
        }
        Ok(Loc::Slot(
            self.val_slot[v].expect("label argument has a slot"),
        ))
    }

    fn jump_target(&self, op: &Op, input: &AllocInput) -> Result<Vec<Loc>, CompileError> {
        let name = target_name(op)?;
        let own = self
            .labels
            .iter()
            .rev()
            .find(|(li, _)| target_name(&self.t.ops[*li]).ok() == Some(name));
        let locs = match own {
            Some((_, locs)) => locs.clone(),
            None => (input.external_label)(name)
                .ok_or_else(|| CompileError::UnknownTarget(format!("label {name}")))?,
        };
        if locs.len() != op.args.len() {
            return Err(invalid(format!(
                "jump to {name} passes {} values, the label takes {}",
                op.args.len(),
                locs.len()
            )));
        }
        Ok(locs)
    }
}

/// The `TargetDescr` name of a `label` or `jump`.
pub fn target_name(op: &Op) -> Result<&str, CompileError> {
    op.descr
        .as_ref()
        .and_then(|d| d.as_target())
        .map(|t| t.name.as_str())
        .ok_or_else(|| invalid(format!("{} without a target descr", op.opcode)))
}
