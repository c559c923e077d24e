//! Resume encoding: turns a guard's original fail args and the pending
//! fields recorded for it into a [`GuardResume`] plus the guard's new fail
//! args.
//!
//! Each value is tagged: a constant stays a constant (an int with exact
//! bounds counts, since the facts behind them held before this guard, and
//! so does the guard's own tested value, whose value on failure is known); a
//! virtual becomes `Virtual(i)`, its entry made *before* its fields are
//! tagged so that cycles and sharing end at the same index (one entry per
//! object keeps identity); a small number tagged by the trace becomes
//! `Tag(i, op)` over its untagged value; anything else becomes `Box(i)`,
//! `i` being the first position of that value in the new fail args.
//!
//! Runs at commit time, before the guard's `committed` hooks, so no fact
//! the guard itself proves has been applied yet.

use super::cx::{Cx, PendingStore};
use super::info::IntBound;
use crate::resume::{GuardResume, PendingField, Tagged, VirtualDesc};
use majit_ir::hash::FastMap;
use majit_ir::{Const, Kind, Op, OpCode, OpRef};

struct Encoder<'a> {
    cx: &'a mut Cx,
    boxes: Vec<OpRef>,
    box_index: FastMap<OpRef, u32>,
    virtuals: Vec<Option<VirtualDesc>>,
    virtual_index: FastMap<OpRef, u32>,
}

impl Encoder<'_> {
    fn tag(&mut self, r: OpRef) -> Tagged {
        let r = self.cx.resolve(r);
        if let Some(c) = self.cx.const_of(r) {
            return Tagged::Const(c);
        }
        if self.cx.kind(r) == Some(Kind::Int) {
            if let Some(v) = self.cx.int_const(r) {
                return Tagged::Const(Const::Int(v));
            }
        }
        if let Some(&i) = self.virtual_index.get(&r) {
            return Tagged::Virtual(i);
        }
        if let Some(v) = self.cx.virtual_of(r).cloned() {
            let i = self.virtuals.len() as u32;
            self.virtuals.push(None);
            self.virtual_index.insert(r, i);
            let fields = v
                .fields
                .iter()
                .map(|(slot, value)| (slot.clone(), self.tag(*value)))
                .collect();
            self.virtuals[i as usize] = Some(VirtualDesc {
                layout: v.layout.clone(),
                fields,
            });
            return Tagged::Virtual(i);
        }
        if let Some(t) = self.retag(r) {
            return t;
        }
        let next = self.boxes.len() as u32;
        let i = *self.box_index.entry(r).or_insert(next);
        if i == next {
            self.boxes.push(r);
        }
        Tagged::Box(i)
    }
}

impl Encoder<'_> {
    /// `Tag(i, code)` for `r = code(x)` (`int_tag`, `float_tag`) with `x`
    /// in the fail args: the tag is then computed only when the guard
    /// fails, and the trace's own tagging of `r` dies unless something
    /// else reads it.
    fn retag(&mut self, r: OpRef) -> Option<Tagged> {
        let d = self.cx.def(r)?;
        let code = d.opcode;
        if !matches!(code, OpCode::IntTag | OpCode::FloatTag) {
            return None;
        }
        let x = self.cx.resolve(d.args[0]);
        if self.cx.const_of(x).is_some() || self.cx.is_virtual(x) {
            return None;
        }
        match self.tag(x) {
            Tagged::Box(i) => Some(Tagged::Tag(i, code)),
            _ => None,
        }
    }
}

/// What is known of `guard`'s tested operand whenever the guard fails: 0
/// for `guard_true`, non-zero for `guard_false` (1 for a boolean), null
/// for `guard_nonnull`.
#[derive(Copy, Clone)]
struct Failing {
    arg: OpRef,
    code: OpCode,
    boolean: bool,
}

impl Failing {
    fn of(cx: &Cx, guard: &Op) -> Option<Failing> {
        let arg = cx.resolve(*guard.args.first()?);
        let code = guard.opcode;
        let boolean = code == OpCode::GuardFalse && cx.bound(arg).within(IntBound::BOOL);
        matches!(
            code,
            OpCode::GuardTrue | OpCode::GuardFalse | OpCode::GuardNonnull
        )
        .then_some(Failing { arg, code, boolean })
    }

    /// The constant fail arg `r` is whenever the guard fails, if known:
    /// the operand itself, or its negation (`int_is_zero` of it, see
    /// `rewrite::negation_of`; the rewrite pass turns
    /// `guard_true(int_is_zero(x))` into `guard_false(x)`, and the test's
    /// register is often live). Resume data names that constant, so the
    /// trace need not keep the value (a test then fuses into its branch).
    fn value(self, cx: &Cx, r: OpRef) -> Option<Const> {
        let r = cx.resolve(r);
        let zero = self.code == OpCode::GuardTrue;
        match self.code {
            OpCode::GuardNonnull if r == self.arg => Some(Const::Ref(0)),
            _ if r == self.arg && (zero || self.boolean) => Some(Const::Int(i64::from(!zero))),
            OpCode::GuardTrue | OpCode::GuardFalse => super::rewrite::negation_of(cx, r)
                .filter(|&x| cx.resolve(x) == self.arg)
                .map(|_| Const::Int(i64::from(zero))),
            _ => None,
        }
    }
}

/// Encodes `guard`'s resume data; returns the new fail args and the
/// description (`original` is left 0 for the caller to fill). `pending`
/// are the delayed stores heap kept past it.
pub(super) fn encode_guard(
    cx: &mut Cx,
    guard: &Op,
    pending: &[PendingStore],
) -> (Vec<OpRef>, GuardResume) {
    let n = guard.fail_args.as_deref().map_or(0, |a| a.len());
    let mut e = Encoder {
        cx,
        boxes: Vec::with_capacity(n),
        box_index: FastMap::with_capacity_and_hasher(n, Default::default()),
        virtuals: Vec::new(),
        virtual_index: FastMap::default(),
    };
    let failing = Failing::of(e.cx, guard);
    let values = guard
        .fail_args
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|&r| match failing.and_then(|f| f.value(e.cx, r)) {
            Some(c) => Tagged::Const(c),
            None => e.tag(r),
        })
        .collect();
    let pending = pending
        .iter()
        .map(|p| {
            let target = e.tag(p.target);
            debug_assert!(
                !matches!(target, Tagged::Virtual(_)),
                "pending-field target is virtual"
            );
            PendingField {
                target,
                slot: p.slot.clone(),
                value: e.tag(p.value),
            }
        })
        .collect();
    let virtuals = e
        .virtuals
        .into_iter()
        .map(|v| v.expect("every entry is filled before tag returns"))
        .collect();
    (
        e.boxes,
        GuardResume {
            original: 0,
            values,
            virtuals,
            pending,
        },
    )
}
