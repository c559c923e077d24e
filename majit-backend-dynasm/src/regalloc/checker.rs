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
    let mut c = Checker {
        trace,
        regs,
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
        c.op(i, a, alloc, constraints);
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
        if let Some(kind) = op.opcode.result().kind() {
            self.def(i, OpRef::op(i), kind, a.result);
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
