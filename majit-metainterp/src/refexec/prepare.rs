//! Turns a [`Trace`] into the executor's form: value slots resolved once,
//! descriptors checked and digested, jumps bound to their labels.
//!
//! Slot numbering of one trace: inputs `0..n`, then op `i`'s result at
//! `n + i`, then the interned constants. A fresh frame is a copy of the
//! trace's template (constants filled in, everything else 0).
//!
//! Checks made here, each a `CompileError` naming the op: arity and
//! argument kinds against the op table, definition before use, the
//! descriptor each opcode needs (the table's `descr` column) and its
//! widths, call signatures against the canonical call's limits, and the
//! label rule below. They are what the executor relies on to run without
//! panicking (`RefExec` runs `majit_ir::verify`, the full verifier,
//! first; these checks keep `prepare` safe on its own).
//!
//! **Label rule** (as RPython's llgraph backend): a `jump` to a label
//! starts a fresh frame holding only the jump's values, so ops after a
//! `label` may use only that label's arguments, values defined after it,
//! and constants. A label's arguments are distinct, non-constant values.

use crate::backend::{CodeId, CompileError};
use crate::runtime::call;
use crate::runtime::memory::{is_valid_width, Access};
use majit_ir::{
    ArrayDescr, CallDescr, Descr, DescrUse, FieldDescr, Kind, Op, OpCode, OpRef, RefTarget,
    SizeDescr, Trace,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A label that jumps may target.
#[derive(Clone, Debug)]
pub(crate) struct LabelInfo {
    pub code: CodeId,
    pub op_index: usize,
    pub kinds: Vec<Kind>,
}

/// The label table of one executor, by target name.
pub(crate) type Labels = BTreeMap<String, LabelInfo>;

/// What an op needs besides its argument slots.
#[derive(Clone, Debug)]
pub(crate) enum Extra {
    None,
    /// A memory access at `base + offset + index * stride`, where `index`
    /// is the second argument of indexed ops (array items: `stride` is the
    /// item size; `raw_*`: the byte offset, `stride` 1) and 0 for fields.
    Memory {
        offset: usize,
        stride: usize,
        access: Access,
    },
    /// `arraylen_gc`: the 8-byte length word's offset.
    Length {
        offset: usize,
    },
    Object(Arc<SizeDescr>),
    Array(Arc<ArrayDescr>),
    Call {
        kinds: Box<[Kind]>,
        float_result: bool,
        can_collect: bool,
    },
    Jump {
        code: CodeId,
        label: usize,
    },
}

/// One op in executable form.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub opcode: OpCode,
    pub args: Box<[u32]>,
    /// Guards: the fail args; `finish`: its args. With their kinds.
    pub exit: Box<[(u32, Kind)]>,
    /// The op's descriptor, reported in dead frames.
    pub descr: Option<Descr>,
    pub extra: Extra,
}

/// A compiled trace.
#[derive(Debug)]
pub(crate) struct Code {
    pub inputs: Vec<Kind>,
    /// Inputs plus op results: the slots a jump clears.
    pub n_values: usize,
    /// A fresh frame: constants filled in, everything else 0.
    pub template: Vec<u64>,
    pub steps: Vec<Step>,
    /// The slots holding refs (inputs and results; constants never move).
    pub ref_slots: Vec<u32>,
    /// The target names of this trace's labels.
    pub label_names: Vec<String>,
}

impl Code {
    /// The bytes this prepared trace holds (`Backend::code_size`).
    pub fn size(&self) -> usize {
        std::mem::size_of::<Code>()
            + self.steps.len() * std::mem::size_of::<Step>()
            + self.template.len() * 8
    }
}

fn invalid(i: usize, op: &Op, msg: impl std::fmt::Display) -> CompileError {
    CompileError::Invalid(format!("op {i} ({}): {msg}", op.opcode))
}

/// Prepares `trace` as code `id`. `labels` holds the labels of the other
/// compiled traces; this trace's own labels are returned beside the code,
/// for the caller to register.
pub(crate) fn prepare(
    id: CodeId,
    trace: &Trace,
    labels: &Labels,
) -> Result<(Code, Labels), CompileError> {
    let own = own_labels(id, trace, labels)?;
    check_label_rule(trace)?;
    let n_in = trace.inputs.len();
    let n_values = n_in + trace.ops.len();
    let mut template = vec![0u64; n_values];
    template.extend(trace.consts().iter().map(|&c| c.value().to_bits()));
    let slot = |r: OpRef| -> u32 {
        (match r.target() {
            RefTarget::Input(i) => i,
            RefTarget::Op(i) => n_in + i,
            RefTarget::Const(i) => n_values + i,
        }) as u32
    };
    let mut steps = Vec::with_capacity(trace.ops.len());
    for (i, op) in trace.ops.iter().enumerate() {
        check_args(trace, i, op)?;
        let exit_refs = match op.opcode {
            OpCode::Finish => Some(&op.args[..]),
            _ => op.fail_args.as_deref(),
        };
        let exit = exit_refs
            .unwrap_or_default()
            .iter()
            .map(|&r| (slot(r), trace.kind_of(r).unwrap_or(Kind::Int)))
            .collect();
        let extra = extra_for(trace, i, op, labels, &own)?;
        steps.push(Step {
            opcode: op.opcode,
            args: op.args.iter().map(|&r| slot(r)).collect(),
            exit,
            descr: op.descr.clone(),
            extra,
        });
    }
    match trace.ops.last() {
        Some(op) if op.opcode.is_final() => {}
        _ => {
            return Err(CompileError::Invalid(
                "the trace does not end in jump or finish".into(),
            ))
        }
    }
    let input_refs = (0..n_in).filter(|&i| trace.inputs[i] == Kind::Ref);
    let result_refs = (0..trace.ops.len())
        .filter(|&i| trace.ops[i].opcode.result().kind() == Some(Kind::Ref))
        .map(|i| n_in + i);
    let code = Code {
        inputs: trace.inputs.clone(),
        n_values,
        template,
        steps,
        ref_slots: input_refs.chain(result_refs).map(|s| s as u32).collect(),
        label_names: own.keys().cloned().collect(),
    };
    Ok((code, own))
}

/// The labels `trace` defines, checked for unique names.
fn own_labels(id: CodeId, trace: &Trace, labels: &Labels) -> Result<Labels, CompileError> {
    let mut own = Labels::new();
    for (i, op) in trace.ops.iter().enumerate() {
        if op.opcode != OpCode::Label {
            continue;
        }
        let Some(target) = op.descr.as_ref().and_then(Descr::as_target) else {
            return Err(invalid(i, op, "needs a target descr"));
        };
        if labels.contains_key(&target.name) || own.contains_key(&target.name) {
            return Err(invalid(
                i,
                op,
                format!("label {} is already defined", target.name),
            ));
        }
        let kinds = op
            .args
            .iter()
            .map(|&r| trace.kind_of(r).unwrap_or(Kind::Int))
            .collect();
        own.insert(
            target.name.clone(),
            LabelInfo {
                code: id,
                op_index: i,
                kinds,
            },
        );
    }
    Ok(own)
}

/// Checks the label rule of the module docs.
fn check_label_rule(trace: &Trace) -> Result<(), CompileError> {
    let n_in = trace.inputs.len();
    let index = |r: OpRef| match r.target() {
        RefTarget::Input(i) => Some(i),
        RefTarget::Op(i) => Some(n_in + i),
        RefTarget::Const(_) => None,
    };
    let mut usable = vec![true; n_in + trace.ops.len()];
    let mut last_label: Option<usize> = None;
    for (i, op) in trace.ops.iter().enumerate() {
        if op.opcode == OpCode::Label {
            let mut now = vec![false; usable.len()];
            for &r in &op.args {
                match index(r) {
                    Some(s) if s < n_in + i && !now[s] => now[s] = true,
                    Some(_) => {
                        return Err(invalid(i, op, format!("bad or repeated argument {r:?}")))
                    }
                    None => return Err(invalid(i, op, "a label argument cannot be a constant")),
                }
            }
            usable = now;
            last_label = Some(i);
            continue;
        }
        let uses = op.args.iter().chain(op.fail_args.iter().flatten());
        for &r in uses {
            if let Some(s) = index(r) {
                if s < usable.len() && !usable[s] {
                    let l = last_label.unwrap_or_default();
                    return Err(invalid(
                        i,
                        op,
                        format!("uses {r:?}, which the label at op {l} does not pass"),
                    ));
                }
            }
        }
        if let Some(s) = usable.get_mut(n_in + i) {
            *s = true;
        }
    }
    Ok(())
}

/// Arity, argument kinds and definition before use, against the op table.
fn check_args(trace: &Trace, i: usize, op: &Op) -> Result<(), CompileError> {
    let sig = op.opcode.info().args;
    let fixed = op.opcode.arity();
    let count_ok = if op.opcode.is_variadic() {
        op.args.len() >= fixed
    } else {
        op.args.len() == fixed
    };
    if !count_ok {
        return Err(invalid(
            i,
            op,
            format!("expects {sig:?} arguments, got {}", op.args.len()),
        ));
    }
    let stored = stored_kind(op);
    let uses = op.args.iter().chain(op.fail_args.iter().flatten());
    for (n, &r) in uses.enumerate() {
        let defined_before = match r.target() {
            RefTarget::Op(j) => j < i,
            _ => true,
        };
        let kind = trace.kind_of(r).filter(|_| defined_before);
        let Some(kind) = kind else {
            return Err(invalid(
                i,
                op,
                format!("{r:?} is not a value defined before this op"),
            ));
        };
        let expected = match sig.as_bytes().get(n).filter(|_| n < op.args.len()) {
            Some(b'i') => Some(Kind::Int),
            Some(b'r') => Some(Kind::Ref),
            Some(b'f') => Some(Kind::Float),
            Some(b'v') => stored,
            _ => None,
        };
        if expected.is_some_and(|k| k != kind) {
            return Err(invalid(
                i,
                op,
                format!("argument {n} ({r:?}) is {kind:?}, expected {expected:?}"),
            ));
        }
    }
    if op.opcode.is_guard() != op.fail_args.is_some() {
        return Err(invalid(i, op, "guards, and only guards, carry fail args"));
    }
    Ok(())
}

/// The kind of the value a store op stores, from its descr.
fn stored_kind(op: &Op) -> Option<Kind> {
    match &op.descr {
        Some(Descr::Field(f)) => Some(f.kind),
        Some(Descr::Array(a)) => Some(a.kind),
        _ => None,
    }
}

/// Digests op `i`'s descriptor into its `Extra`.
fn extra_for(
    trace: &Trace,
    i: usize,
    op: &Op,
    labels: &Labels,
    own: &Labels,
) -> Result<Extra, CompileError> {
    let need = op.opcode.descr_use();
    let descr = op.descr.as_ref();
    let missing = |sort: &str| {
        invalid(
            i,
            op,
            format!("needs a {sort} descr, has {:?}", descr.map(Descr::sort)),
        )
    };
    match need {
        DescrUse::Nothing | DescrUse::OptFail => Ok(Extra::None),
        DescrUse::Target if op.opcode == OpCode::Label => Ok(Extra::None),
        DescrUse::Field => {
            let f = descr
                .and_then(Descr::as_field)
                .ok_or_else(|| missing("field"))?;
            check_width(i, op, f.kind, f.size)?;
            check_loaded_kind(i, op, f.kind)?;
            Ok(field_access(f))
        }
        DescrUse::Item | DescrUse::Raw => {
            let a = descr
                .and_then(Descr::as_array)
                .ok_or_else(|| missing("array"))?;
            check_width(i, op, a.kind, a.item_size)?;
            check_loaded_kind(i, op, a.kind)?;
            let (offset, stride) = match need {
                DescrUse::Item => (a.base_offset as usize, a.item_size as usize),
                _ => (0, 1),
            };
            let access = Access {
                size: a.item_size,
                signed: a.signed,
            };
            Ok(Extra::Memory {
                offset,
                stride,
                access,
            })
        }
        DescrUse::Len => {
            let a = descr
                .and_then(Descr::as_array)
                .ok_or_else(|| missing("array"))?;
            Ok(Extra::Length {
                offset: a.len_offset as usize,
            })
        }
        DescrUse::Size => Ok(Extra::Object(
            descr
                .and_then(Descr::as_size)
                .ok_or_else(|| missing("size"))?
                .clone(),
        )),
        DescrUse::NewArray => Ok(Extra::Array(
            descr
                .and_then(Descr::as_array)
                .ok_or_else(|| missing("array"))?
                .clone(),
        )),
        DescrUse::Call => call_extra(
            trace,
            i,
            op,
            descr
                .and_then(Descr::as_call)
                .ok_or_else(|| missing("call"))?,
        ),
        DescrUse::Target => {
            let t = descr
                .and_then(Descr::as_target)
                .ok_or_else(|| missing("target"))?;
            let Some(label) = own.get(&t.name).or_else(|| labels.get(&t.name)) else {
                return Err(CompileError::UnknownTarget(format!(
                    "op {i} (jump): no label {}",
                    t.name
                )));
            };
            let kinds: Vec<Kind> = op
                .args
                .iter()
                .map(|&r| trace.kind_of(r).unwrap_or(Kind::Int))
                .collect();
            if kinds != label.kinds {
                return Err(invalid(
                    i,
                    op,
                    format!(
                        "passes {kinds:?} to label {} which takes {:?}",
                        t.name, label.kinds
                    ),
                ));
            }
            Ok(Extra::Jump {
                code: label.code,
                label: label.op_index,
            })
        }
    }
}

fn field_access(f: &FieldDescr) -> Extra {
    let access = Access {
        size: f.size,
        signed: f.signed,
    };
    Extra::Memory {
        offset: f.offset as usize,
        stride: 0,
        access,
    }
}

/// Ints may be 1, 2, 4 or 8 bytes wide; refs and floats 8.
fn check_width(i: usize, op: &Op, kind: Kind, size: u8) -> Result<(), CompileError> {
    let ok = match kind {
        Kind::Int => is_valid_width(size),
        Kind::Ref | Kind::Float => size == 8,
    };
    if ok {
        Ok(())
    } else {
        Err(CompileError::ImplLimit(format!(
            "op {i} ({}): {size}-byte {kind:?} access",
            op.opcode
        )))
    }
}

/// A load's result kind must be the kind its descr describes.
fn check_loaded_kind(i: usize, op: &Op, kind: Kind) -> Result<(), CompileError> {
    match op.opcode.result().kind() {
        Some(k) if k != kind => Err(invalid(i, op, format!("loads a {kind:?} item as {k:?}"))),
        _ => Ok(()),
    }
}

fn call_extra(trace: &Trace, i: usize, op: &Op, d: &CallDescr) -> Result<Extra, CompileError> {
    if !call::CALLS_SUPPORTED {
        return Err(CompileError::Unsupported {
            op: format!("{} on this target", op.opcode),
        });
    }
    let actual: Vec<Kind> = op.args[1..]
        .iter()
        .map(|&r| trace.kind_of(r).unwrap_or(Kind::Int))
        .collect();
    if actual != d.args {
        return Err(invalid(
            i,
            op,
            format!("passes {actual:?}, descr {} declares {:?}", d.name, d.args),
        ));
    }
    if op.opcode.result() != d.result {
        return Err(invalid(
            i,
            op,
            format!("descr {} returns {:?}", d.name, d.result),
        ));
    }
    if !call::fits(&d.args) {
        return Err(CompileError::ImplLimit(format!(
            "op {i} ({}): more than {} int/ref or {} float arguments",
            op.opcode,
            call::MAX_INT_ARGS,
            call::MAX_FLOAT_ARGS
        )));
    }
    Ok(Extra::Call {
        kinds: d.args.clone().into_boxed_slice(),
        float_result: d.result.kind() == Some(Kind::Float),
        can_collect: d.effect.can_collect,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use majit_ir::parse;

    /// `prepare` on its own (without the verifier in front) rejects what
    /// would make the executor misbehave, with an error and no panic.
    fn prepare_error(text: &str) -> CompileError {
        let trace = parse(text).unwrap();
        prepare(CodeId(0), &trace, &Labels::new()).unwrap_err()
    }

    #[test]
    fn prepare_rejects_what_the_executor_cannot_run() {
        let mut no_fail_args = parse("[i0]\nguard_true(i0) []\nfinish()").unwrap();
        no_fail_args.ops[0].fail_args = None;
        let err = prepare(CodeId(0), &no_fail_args, &Labels::new()).unwrap_err();
        assert!(err.to_string().contains("fail args"), "{err}");
        let cases = [
            ("[f0]\ni1 = int_add(f0, 1)\nfinish(i1)", "argument 0"),
            ("[i0]\ni1 = int_add(i2, 1)\ni2 = int_neg(i0)\nfinish(i1)", "not a value"),
            ("[i0]\ni1 = int_neg(i0, i0)\nfinish(i1)", "arguments"),
            ("[i0]\ni1 = getfield_raw_i(i0)\nfinish(i1)", "field descr"),
            ("descr A = array(base=0, len=0, item_size=8, kind=int, type_id=0)\n[i0]\ni1 = getfield_raw_i(i0, descr=A)\nfinish(i1)", "field descr"),
            ("[i0]\ni1 = int_neg(i0)", "does not end"),
        ];
        for (text, words) in cases {
            let err = prepare_error(text).to_string();
            assert!(err.contains(words), "{text}: {err}");
        }
    }

    #[test]
    fn slots_are_inputs_then_results_then_constants() {
        let trace = parse("[i0, p1]\ni2 = int_add(i0, 7)\nfinish(i2, p1)").unwrap();
        let (code, _) = prepare(CodeId(0), &trace, &Labels::new()).unwrap();
        assert_eq!(code.steps[0].args[..], [0, 4]);
        assert_eq!(code.template, [0, 0, 0, 0, 7]);
        assert_eq!(code.steps[1].exit[..], [(2, Kind::Int), (1, Kind::Ref)]);
        assert_eq!(code.ref_slots, [1]);
    }
}
