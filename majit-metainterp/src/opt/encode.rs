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
use crate::warmstate::FastMap;
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
        if let Some(v) = self.cx.virtual_of(r).cloned() {
            if let Some(&i) = self.virtual_index.get(&r) {
                return Tagged::Virtual(i);
            }
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

/// The value `guard`'s tested operand has whenever the guard fails: 0
/// for `guard_true`, 1 for `guard_false` of a boolean, null for
/// `guard_nonnull`. Resume data names that constant, so the trace need not
/// keep the operand (a comparison then fuses into its branch).
fn failing_value(cx: &Cx, guard: &Op) -> Option<(OpRef, Const)> {
    let arg = cx.resolve(*guard.args.first()?);
    match guard.opcode {
        OpCode::GuardTrue => Some((arg, Const::Int(0))),
        OpCode::GuardFalse if cx.bound(arg).within(IntBound::BOOL) => Some((arg, Const::Int(1))),
        OpCode::GuardNonnull => Some((arg, Const::Ref(0))),
        _ => None,
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
    let failing = failing_value(e.cx, guard);
    let values = guard
        .fail_args
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|&r| match failing {
            Some((t, c)) if e.cx.resolve(r) == t => Tagged::Const(c),
            _ => e.tag(r),
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
