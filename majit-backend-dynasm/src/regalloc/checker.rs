//! An independent checker of register allocations.
//!
//! Inputs: the scheduled trace, the [`Allocation`] and the arch's register
//! description (the [`RegFile`] and per-op constraints). Nothing of the
//! allocator's internal state is used, so the checker validates any
//! allocation, a user policy's included.
//!
//! Lattice: each location (register or slot) maps to the set of *items* it
//! provably holds, an item being a trace value or a constant. Transfer
//! functions, in program order:
//! - a move copies the source's set to the destination (a constant source
//!   gives the constant plus every input that entered as that constant);
//! - an op's clobbered registers become empty;
//! - a def removes its value from every location, then puts it in the
//!   result register;
//! - at a collection point (allocation, collecting call), a live ref
//!   stays only in the locations the op lists as live: elsewhere the
//!   collector does not update it;
//! - a `label` keeps, for each argument, only its label location: that is
//!   all a `jump` back re-establishes, so the linear pass through the label
//!   is exactly the loop's fixpoint.
//!
//! Checks: every use finds its value at the stated location; operands the
//! arch wants in registers are in registers; results are allocatable
//! registers of the right bank; fail args and `finish` values are where
//! the exit records them; each `jump` argument is where its target label
//! expects it, and label locations are distinct; the schedule matches.

use super::{Allocation, Move};
use crate::arch::{Bank, Loc, OpConstraints, RegFile};
use majit_ir::{Const, Kind, Op, OpCode, OpRef, RefTarget, Trace};
use std::collections::BTreeMap;
use std::fmt;

/// Something the location must hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Value(OpRef),
    Const(Const),
}

/// One violated rule. `op` is the op index (`None`: the entry prologue).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// The allocation's op order differs from the schedule.
    OrderMismatch {
        position: usize,
        expected: usize,
        found: usize,
    },
    /// A use does not find its value where the allocation says.
    MissingValue {
        op: Option<usize>,
        operand: String,
        loc: Loc,
        expected: OpRef,
    },
    /// A register of the wrong bank for the value's kind.
    WrongBank {
        op: Option<usize>,
        loc: Loc,
        kind: Kind,
    },
    /// A register the allocator may not use (reserved or out of range).
    NotAllocatable { op: Option<usize>, loc: Loc },
    /// An operand the arch wants in a register is elsewhere.
    NotInRegister { op: usize, operand: usize, loc: Loc },
    /// A move or result writes to a constant, or a result is not a register.
    BadDestination { op: Option<usize>, loc: Loc },
    /// A location list has the wrong length.
    ArityMismatch {
        op: usize,
        what: &'static str,
        expected: usize,
        found: usize,
    },
    /// Two label (or jump target) positions share a location.
    DuplicateLocation { op: usize, loc: Loc },
    /// A jump's target location differs from the label's.
    LabelMismatch {
        op: usize,
        index: usize,
        expected: Loc,
        found: Loc,
    },
    /// The allocation claims a live ref in a register is rooted across a
    /// collecting call (the collector cannot update registers there).
    UnrootedRef { op: usize, loc: Loc, value: OpRef },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// Every violation found, in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckErrors(pub Vec<CheckError>);

impl fmt::Display for CheckErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

/// Checks `alloc` for `trace` scheduled as `order`.
pub fn check(
    trace: &Trace,
    order: &[usize],
    alloc: &Allocation,
    regs: &RegFile,
    constraints: &dyn Fn(&Op) -> OpConstraints,
) -> Result<(), CheckErrors> {
    let mut last_use = BTreeMap::new();
    for (k, &i) in order.iter().enumerate() {
        let op = &trace.ops[i];
        for &r in op.args.iter().chain(op.fail_args.iter().flatten()) {
            last_use.insert(r, k);
        }
    }
    let mut c = Checker {
        trace,
        regs,
        last_use,
        state: BTreeMap::new(),
        const_inputs: Vec::new(),
        errors: Vec::new(),
    };
    c.entry(alloc);
    if alloc.ops.len() != order.len() {
        c.errors.push(CheckError::ArityMismatch {
            op: 0,
            what: "scheduled ops",
            expected: order.len(),
            found: alloc.ops.len(),
        });
    }
    for (k, (a, &i)) in alloc.ops.iter().zip(order).enumerate() {
        if a.op != i {
            c.errors.push(CheckError::OrderMismatch {
                position: k,
                expected: i,
                found: a.op,
            });
            break;
        }
        c.op(k, i, a, alloc, constraints);
    }
    if c.errors.is_empty() {
        Ok(())
    } else {
        Err(CheckErrors(c.errors))
    }
}

struct Checker<'a> {
    trace: &'a Trace,
    regs: &'a RegFile,
    /// Schedule position of each value's last use.
    last_use: BTreeMap<OpRef, usize>,
    state: BTreeMap<Loc, Vec<Item>>,
    /// Inputs that entered as constants.
    const_inputs: Vec<(OpRef, Const)>,
    errors: Vec<CheckError>,
}

impl Checker<'_> {
    fn entry(&mut self, alloc: &Allocation) {
        for (i, (&loc, &kind)) in alloc.entry.iter().zip(&self.trace.inputs).enumerate() {
            let v = OpRef::input(i);
            if let Loc::Const(c) = loc {
                self.const_inputs.push((v, c));
            } else if self.valid_loc(None, loc, kind) {
                self.state.entry(loc).or_default().push(Item::Value(v));
            }
        }
        for m in &alloc.prologue {
            self.apply_move(None, m);
        }
    }

    /// Checks that `loc` can hold a value of `kind`.
    fn valid_loc(&mut self, op: Option<usize>, loc: Loc, kind: Kind) -> bool {
        let Loc::Reg(r) = loc else { return true };
        if !self.regs.is_allocatable(r) {
            self.errors.push(CheckError::NotAllocatable { op, loc });
            return false;
        }
        if self.regs.info(r).bank != Bank::of(kind) {
            self.errors.push(CheckError::WrongBank { op, loc, kind });
            return false;
        }
        true
    }

    fn apply_move(&mut self, op: Option<usize>, m: &Move) {
        if matches!(m.to, Loc::Const(_)) {
            self.errors
                .push(CheckError::BadDestination { op, loc: m.to });
            return;
        }
        if !self.valid_loc(op, m.from, m.kind) || !self.valid_loc(op, m.to, m.kind) {
            return;
        }
        let items = self.items_at(m.from);
        self.state.insert(m.to, items);
    }

    fn items_at(&self, loc: Loc) -> Vec<Item> {
        match loc {
            Loc::Const(c) => std::iter::once(Item::Const(c))
                .chain(
                    self.const_inputs
                        .iter()
                        .filter(|x| x.1 == c)
                        .map(|x| Item::Value(x.0)),
                )
                .collect(),
            _ => self.state.get(&loc).cloned().unwrap_or_default(),
        }
    }

    /// Checks that `r` (a value or a constant of the trace) is at `loc`.
    fn expect(&mut self, op: Option<usize>, operand: String, r: OpRef, loc: Loc) {
        let kind = self.trace.kind_of(r).unwrap_or(Kind::Int);
        if !self.valid_loc(op, loc, kind) {
            return;
        }
        let item = match r.target() {
            RefTarget::Const(_) => match self.trace.get_const(r) {
                Some(c) => Item::Const(c),
                None => return,
            },
            _ => Item::Value(r),
        };
        if !self.items_at(loc).contains(&item) {
            self.errors.push(CheckError::MissingValue {
                op,
                operand,
                loc,
                expected: r,
            });
        }
    }

    fn expect_all(&mut self, i: usize, what: &'static str, refs: &[OpRef], locs: &[Loc]) {
        if refs.len() != locs.len() {
            self.errors.push(CheckError::ArityMismatch {
                op: i,
                what,
                expected: refs.len(),
                found: locs.len(),
            });
            return;
        }
        for (j, (&r, &l)) in refs.iter().zip(locs).enumerate() {
            self.expect(Some(i), format!("{what} {j}"), r, l);
        }
    }

    fn distinct(&mut self, i: usize, locs: &[Loc]) {
        for (j, l) in locs.iter().enumerate() {
            if matches!(l, Loc::Const(_)) {
                self.errors.push(CheckError::BadDestination {
                    op: Some(i),
                    loc: *l,
                });
            } else if locs[..j].contains(l) {
                self.errors
                    .push(CheckError::DuplicateLocation { op: i, loc: *l });
            }
        }
    }

    fn op(
        &mut self,
        k: usize,
        i: usize,
        a: &super::OpAlloc,
        alloc: &Allocation,
        constraints: &dyn Fn(&Op) -> OpConstraints,
    ) {
        let op = &self.trace.ops[i];
        for m in &a.moves {
            self.apply_move(Some(i), m);
        }
        self.expect_all(i, "arg", &op.args, &a.args);
        let cons = constraints(op);
        if cons.args_in_regs {
            for (j, (&r, &l)) in op.args.iter().zip(&a.args).enumerate() {
                if !r.is_const() && !matches!(l, Loc::Reg(_)) {
                    self.errors.push(CheckError::NotInRegister {
                        op: i,
                        operand: j,
                        loc: l,
                    });
                }
            }
        }
        match op.opcode {
            OpCode::Finish => self.expect_all(i, "finish value", &op.args, &a.fail_args),
            OpCode::Jump => self.jump(i, a, alloc),
            OpCode::Label => self.label(i, &op.args, &a.args),
            _ => {}
        }
        if let Some(fa) = &op.fail_args {
            self.expect_all(i, "fail arg", fa, &a.fail_args);
        }
        for &r in cons.clobbers {
            self.state.remove(&Loc::Reg(r));
        }
        if super::needs_live(op) {
            self.roots(k, i, op, &a.live);
        }
        if let Some(kind) = op.opcode.result().kind() {
            self.def(i, OpRef::op(i), kind, a.result);
        }
    }

    /// At a collection point the collector updates only the listed
    /// locations: a live ref anywhere else is stale afterwards (removed
    /// from the state, so a later use of it is a `MissingValue`), and a
    /// collecting call cannot update a register at all.
    fn roots(&mut self, k: usize, i: usize, op: &Op, live: &[(Loc, Kind)]) {
        let in_slots = super::refs_to_slots(op);
        let listed = |loc: Loc| live.iter().any(|&(l, kind)| l == loc && kind == Kind::Ref);
        for (&loc, items) in self.state.iter_mut() {
            let (last_use, trace) = (&self.last_use, self.trace);
            let live_ref = |item: &Item| match *item {
                Item::Value(v) => {
                    last_use.get(&v).is_some_and(|&u| u > k) && trace.kind_of(v) == Some(Kind::Ref)
                }
                Item::Const(_) => false,
            };
            for item in items.iter().filter(|x| live_ref(x)) {
                if let (Item::Value(value), true, Loc::Reg(_)) =
                    (*item, in_slots && listed(loc), loc)
                {
                    self.errors
                        .push(CheckError::UnrootedRef { op: i, loc, value });
                }
            }
            items.retain(|x| !live_ref(x) || listed(loc));
        }
    }

    fn def(&mut self, i: usize, v: OpRef, kind: Kind, result: Option<Loc>) {
        for items in self.state.values_mut() {
            items.retain(|x| *x != Item::Value(v));
        }
        match result {
            Some(loc @ Loc::Reg(_)) => {
                if self.valid_loc(Some(i), loc, kind) {
                    self.state.insert(loc, vec![Item::Value(v)]);
                }
            }
            Some(loc) => self
                .errors
                .push(CheckError::BadDestination { op: Some(i), loc }),
            None => self.errors.push(CheckError::ArityMismatch {
                op: i,
                what: "result",
                expected: 1,
                found: 0,
            }),
        }
    }

    fn label(&mut self, i: usize, args: &[OpRef], locs: &[Loc]) {
        self.distinct(i, locs);
        let mut next: BTreeMap<Loc, Vec<Item>> = BTreeMap::new();
        for (k, (&r, &l)) in args.iter().zip(locs).enumerate() {
            let first = !r.is_const() && !args[..k].contains(&r);
            if first {
                next.insert(l, vec![Item::Value(r)]);
            }
        }
        self.state = next;
        self.const_inputs.clear();
    }

    fn jump(&mut self, i: usize, a: &super::OpAlloc, alloc: &Allocation) {
        let op = &self.trace.ops[i];
        if a.target.len() != op.args.len() {
            self.errors.push(CheckError::ArityMismatch {
                op: i,
                what: "jump target",
                expected: op.args.len(),
                found: a.target.len(),
            });
            return;
        }
        self.distinct(i, &a.target);
        let name = super::target_name(op).ok();
        let own = alloc
            .labels
            .iter()
            .rev()
            .find(|(li, _)| super::target_name(&self.trace.ops[*li]).ok() == name);
        if let Some((_, locs)) = own {
            for (k, (&e, &f)) in locs.iter().zip(&a.target).enumerate() {
                if e != f {
                    self.errors.push(CheckError::LabelMismatch {
                        op: i,
                        index: k,
                        expected: e,
                        found: f,
                    });
                }
            }
        }
        for (k, &l) in a.target.iter().enumerate() {
            let kind = self.trace.kind_of(op.args[k]).unwrap_or(Kind::Int);
            self.valid_loc(Some(i), l, kind);
        }
    }
}

#[cfg(test)]
mod tests {
    //! One hand-corrupted allocation per error kind, on a tiny machine.
    use super::*;
    use crate::arch::{Reg, RegInfo};
    use crate::regalloc::{allocate, AllocInput, NativePolicy, OpAlloc};
    use majit_ir::{Descr, TargetDescr};
    use smallvec::smallvec;

    const fn reg(name: &'static str, bank: Bank, hw: u8, allocatable: bool) -> RegInfo {
        RegInfo {
            name,
            bank,
            hw,
            allocatable,
            caller_saved: true,
        }
    }
    static REGS: [RegInfo; 6] = [
        reg("a", Bank::Int, 0, true),
        reg("b", Bank::Int, 1, true),
        reg("c", Bank::Int, 2, true),
        reg("scratch", Bank::Int, 3, false),
        reg("x", Bank::Float, 0, true),
        reg("y", Bank::Float, 1, true),
    ];
    static CLOBBERS: [Reg; 2] = [0, 4];
    static FILE: RegFile = RegFile {
        regs: &REGS,
        alloc_order: &[0, 1, 2, 4, 5],
        int_args: &[0, 1],
        float_args: &[4],
        int_result: 0,
        float_result: 4,
        call_clobbers: &CLOBBERS,
    };

    fn constraints(op: &Op) -> OpConstraints {
        match op.opcode {
            OpCode::Label | OpCode::Jump | OpCode::Finish => OpConstraints::default(),
            _ if op.opcode.is_call() => OpConstraints {
                args_in_regs: false,
                clobbers: &CLOBBERS,
            },
            _ => OpConstraints {
                args_in_regs: true,
                clobbers: &[],
            },
        }
    }

    fn alloc(t: &Trace) -> (Vec<usize>, Allocation) {
        let order: Vec<usize> = (0..t.ops.len()).collect();
        let no_labels = |_: &str| None;
        let input = AllocInput {
            trace: t,
            order: &order,
            regs: &FILE,
            constraints: &constraints,
            entry: (0..t.inputs.len() as u32).map(Loc::Slot).collect(),
            external_label: &no_labels,
        };
        let a = allocate(&input, &mut NativePolicy).expect("allocates");
        check(t, &order, &a, &FILE, &constraints).expect("the uncorrupted allocation checks");
        (order, a)
    }

    /// `[i0, i1] i2 = int_add(i0, i1); guard_true(i2) [i0, i2]; finish(i2)`
    fn straight() -> Trace {
        let mut t = Trace::new(&[Kind::Int, Kind::Int]);
        let s = t.push(Op::new(OpCode::IntAdd, &[t.input(0), t.input(1)]));
        t.push(Op::new(OpCode::GuardTrue, &[s]).with_fail_args(&[t.input(0), s]));
        t.push(Op::new(OpCode::Finish, &[s]));
        t
    }

    /// `[i0, i1] label(i0, i1) i2 = int_add(i0, 1); jump(i1, i2)`
    fn looping() -> Trace {
        let mut t = Trace::new(&[Kind::Int, Kind::Int]);
        let l: Descr = TargetDescr { name: "L".into() }.into();
        let one = t.add_const(Const::Int(1));
        t.push(Op::new(OpCode::Label, &[t.input(0), t.input(1)]).with_descr(l.clone()));
        let s = t.push(Op::new(OpCode::IntAdd, &[t.input(0), one]));
        t.push(Op::new(OpCode::Jump, &[t.input(1), s]).with_descr(l));
        t
    }

    fn errors(t: &Trace, order: &[usize], a: &Allocation) -> Vec<CheckError> {
        check(t, order, a, &FILE, &constraints)
            .expect_err("the corruption is caught")
            .0
    }

    fn free_int_reg(a: &OpAlloc) -> Loc {
        let used: Vec<Loc> = a.args.iter().chain(&a.result).copied().collect();
        [0, 1, 2]
            .into_iter()
            .map(Loc::Reg)
            .find(|l| !used.contains(l))
            .unwrap()
    }

    #[test]
    fn missing_value() {
        let t = straight();
        let (order, mut a) = alloc(&t);
        let wrong = free_int_reg(&a.ops[0]);
        a.ops[0].args[1] = wrong;
        let e = errors(&t, &order, &a);
        assert!(
            matches!(e[0], CheckError::MissingValue { op: Some(0), loc, .. } if loc == wrong),
            "{e:?}"
        );
    }

    #[test]
    fn wrong_bank() {
        let t = straight();
        let (order, mut a) = alloc(&t);
        a.ops[0].result = Some(Loc::Reg(4));
        assert!(matches!(
            errors(&t, &order, &a)[0],
            CheckError::WrongBank {
                op: Some(0),
                kind: Kind::Int,
                ..
            }
        ));
    }

    #[test]
    fn not_allocatable() {
        let t = straight();
        let (order, mut a) = alloc(&t);
        a.ops[0].result = Some(Loc::Reg(3));
        let e = errors(&t, &order, &a);
        assert!(
            matches!(
                e[0],
                CheckError::NotAllocatable {
                    op: Some(0),
                    loc: Loc::Reg(3)
                }
            ),
            "{e:?}"
        );
    }

    #[test]
    fn not_in_register() {
        let t = straight();
        let (order, mut a) = alloc(&t);
        // i0 really is in slot 0 (its entry location), but int_add wants a register.
        let loaded = a.ops[0].args[0];
        a.ops[0].moves.retain(|m| m.to != loaded);
        a.ops[0].args[0] = Loc::Slot(0);
        let e = errors(&t, &order, &a);
        assert_eq!(
            e[0],
            CheckError::NotInRegister {
                op: 0,
                operand: 0,
                loc: Loc::Slot(0)
            }
        );
    }

    #[test]
    fn bad_destination() {
        let t = straight();
        let (order, mut a) = alloc(&t);
        a.ops[1].moves.push(Move {
            from: Loc::Reg(0),
            to: Loc::Const(Const::Int(3)),
            kind: Kind::Int,
        });
        assert!(matches!(
            errors(&t, &order, &a)[0],
            CheckError::BadDestination { op: Some(1), .. }
        ));
    }

    #[test]
    fn fail_args_arity_and_location() {
        let t = straight();
        let (order, mut a) = alloc(&t);
        let mut short = a.clone();
        short.ops[1].fail_args.pop();
        let e = errors(&t, &order, &short);
        assert!(
            matches!(
                e[0],
                CheckError::ArityMismatch {
                    op: 1,
                    what: "fail arg",
                    expected: 2,
                    found: 1
                }
            ),
            "{e:?}"
        );
        a.ops[1].fail_args[0] = Loc::Slot(1);
        let e = errors(&t, &order, &a);
        assert!(
            matches!(&e[0], CheckError::MissingValue { op: Some(1), operand, .. } if operand == "fail arg 0"),
            "{e:?}"
        );
    }

    #[test]
    fn order_mismatch() {
        let t = straight();
        let (order, mut a) = alloc(&t);
        a.ops.swap(1, 2);
        assert!(matches!(
            errors(&t, &order, &a)[0],
            CheckError::OrderMismatch {
                position: 1,
                expected: 1,
                found: 2
            }
        ));
    }

    #[test]
    fn duplicate_label_location_and_label_mismatch() {
        let t = looping();
        let (order, a) = alloc(&t);
        let mut dup = a.clone();
        dup.ops[0].args[1] = dup.ops[0].args[0];
        let e = errors(&t, &order, &dup);
        assert!(
            e.iter()
                .any(|x| matches!(x, CheckError::DuplicateLocation { op: 0, .. })),
            "{e:?}"
        );
        let mut other = a.clone();
        let elsewhere = Loc::Slot(7);
        other.ops[2].target[0] = elsewhere;
        let e = errors(&t, &order, &other);
        assert!(e.iter().any(|x| matches!(x, CheckError::LabelMismatch { op: 2, index: 0, found, .. } if *found == elsewhere)), "{e:?}");
    }

    #[test]
    fn a_value_left_in_a_clobbered_register() {
        // i1 lives across a call in register a, which the call clobbers.
        let mut t = Trace::new(&[Kind::Int]);
        let f = t.add_const(Const::Int(0x1000));
        let d: Descr = majit_ir::CallDescr {
            name: "c".into(),
            args: vec![],
            result: majit_ir::ResultKind::Int,
            effect: Default::default(),
        }
        .into();
        let v = t.push(Op::new(OpCode::IntAdd, &[t.input(0), t.input(0)]));
        let r = t.push(Op::new(OpCode::CallI, &[f]).with_descr(d));
        let s = t.push(Op::new(OpCode::IntAdd, &[v, r]));
        t.push(Op::new(OpCode::Finish, &[s]));
        let (order, mut a) = alloc(&t);
        a.ops[0].result = Some(Loc::Reg(0));
        a.ops[1].moves.clear();
        a.ops[1].result = Some(Loc::Reg(1));
        a.ops[2].moves.clear();
        a.ops[2].args = smallvec![Loc::Reg(0), Loc::Reg(1)];
        let e = errors(&t, &order, &a);
        assert!(
            matches!(
                e[0],
                CheckError::MissingValue {
                    op: Some(2),
                    loc: Loc::Reg(0),
                    ..
                }
            ),
            "{e:?}"
        );
    }

    #[test]
    fn a_ref_in_a_register_across_a_collecting_call() {
        let mut t = Trace::new(&[Kind::Ref]);
        let f = t.add_const(Const::Int(0x1000));
        let d: Descr = majit_ir::CallDescr {
            name: "c".into(),
            args: vec![],
            result: majit_ir::ResultKind::Int,
            effect: majit_ir::EffectInfo {
                can_collect: true,
                ..Default::default()
            },
        }
        .into();
        let r = t.push(Op::new(OpCode::CallI, &[f]).with_descr(d));
        let p = t.push(Op::new(OpCode::SameAsR, &[t.input(0)]));
        t.push(Op::new(OpCode::Finish, &[p, r]));
        let (order, a) = alloc(&t);
        // Keep p0 in register b across the call and claim it is rooted.
        let mut bad = a.clone();
        bad.prologue = vec![Move {
            from: Loc::Slot(0),
            to: Loc::Reg(1),
            kind: Kind::Ref,
        }];
        bad.ops[0].moves.clear();
        bad.ops[0].result = Some(Loc::Reg(2));
        bad.ops[0].live = vec![(Loc::Reg(1), Kind::Ref)];
        bad.ops[1].moves.clear();
        bad.ops[1].args = smallvec![Loc::Reg(1)];
        bad.ops[2].moves.clear();
        let e = errors(&t, &order, &bad);
        assert!(
            matches!(
                e[0],
                CheckError::UnrootedRef {
                    op: 0,
                    loc: Loc::Reg(1),
                    ..
                }
            ),
            "{e:?}"
        );
        // Not listed at all: the copy is stale after the call, so its use is missing.
        bad.ops[0].live.clear();
        let e = errors(&t, &order, &bad);
        assert!(
            matches!(
                e[0],
                CheckError::MissingValue {
                    op: Some(1),
                    loc: Loc::Reg(1),
                    ..
                }
            ),
            "{e:?}"
        );
    }
}
