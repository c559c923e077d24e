//! The trace printer: [`print()`] (and [`print_with`]) turns a [`Trace`] into the text format of
//! [`crate::text`].
//!
//! Names are positional: value number `n` is the `n`-th entry of
//! `inputs ++ ops`, so the output depends only on the trace's structure
//! and `parse(print(t)) == t`. Constants are written by value, floats with
//! the shortest text that reads back to the same bits (or `float_bits(..)`
//! for NaNs other than the canonical one). The printer never panics, even on
//! traces the verifier rejects: an out-of-range reference prints as
//! `?op7`-style text, which the parser refuses.

use super::Namespace;
use crate::descr::{CallEffect, Descr};
use crate::op::{Const, Op, OpRef, RefTarget};
use crate::opcode::Kind;
use crate::trace::Trace;
use std::fmt::Write;

/// Prints `trace` as self-contained text: one `descr` declaration per
/// descriptor used (first-use order), the `[inputs]` line, then one line
/// per op.
///
/// ```
/// use majit_ir::{parse, print, Const, Kind, Op, OpCode, Trace};
/// let mut t = Trace::new(&[Kind::Int]);
/// let one = t.add_const(Const::Int(1));
/// let sum = t.push(Op::new(OpCode::IntAdd, &[t.input(0), one]));
/// t.push(Op::new(OpCode::Finish, &[sum]));
/// let text = print(&t);
/// assert_eq!(text, "[i0]\ni1 = int_add(i0, 1)\nfinish(i1)\n");
/// assert_eq!(parse(&text).unwrap(), t);
/// ```
pub fn print(trace: &Trace) -> String {
    print_with(trace, &Namespace::new())
}

/// Like [`print()`], but leaves out the declarations of descriptors that `ns`
/// holds unchanged, so the text is shorter and reads back with
/// [`crate::parse_with`] and the same namespace.
///
/// ```
/// use majit_ir::{parse_with, print_with, Namespace, TargetDescr};
/// let mut ns = Namespace::new();
/// ns.add_descr(TargetDescr { name: "Loop".into() }.into());
/// let t = parse_with("[i0]\nlabel(i0, descr=Loop)\njump(i0, descr=Loop)", &ns).unwrap();
/// assert_eq!(print_with(&t, &ns), "[i0]\nlabel(i0, descr=Loop)\njump(i0, descr=Loop)\n");
/// ```
pub fn print_with(trace: &Trace, ns: &Namespace) -> String {
    let mut out = String::new();
    for d in trace.descrs() {
        if ns.descr(d.name()) != Some(&d) {
            out.push_str(&descr_decl(&d));
            out.push('\n');
        }
    }
    out.push('[');
    for (i, &k) in trace.inputs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}{i}", k.prefix());
    }
    out.push_str("]\n");
    for i in 0..trace.ops.len() {
        out.push_str(&op_text(trace, i));
        out.push('\n');
    }
    out
}

/// The text of op `index` of `trace`, named as [`print()`] names it (used by
/// verifier messages). Out-of-range `index` gives `<no op N>`.
pub fn op_text(trace: &Trace, index: usize) -> String {
    let Some(op) = trace.ops.get(index) else {
        return format!("<no op {index}>");
    };
    let mut out = String::new();
    if let Some(k) = op.opcode.result().kind() {
        let _ = write!(out, "{}{} = ", k.prefix(), trace.inputs.len() + index);
    }
    out.push_str(op.opcode.name());
    out.push('(');
    write_refs(&mut out, trace, &op.args);
    if let Some(d) = &op.descr {
        if !op.args.is_empty() {
            out.push_str(", ");
        }
        let _ = write!(out, "descr={}", d.name());
    }
    out.push(')');
    write_fail_args(&mut out, trace, op);
    out
}

fn write_fail_args(out: &mut String, trace: &Trace, op: &Op) {
    if let Some(fail) = &op.fail_args {
        out.push_str(" [");
        write_refs(out, trace, fail);
        out.push(']');
    }
}

fn write_refs(out: &mut String, trace: &Trace, refs: &[OpRef]) {
    for (i, &r) in refs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&ref_text(trace, r));
    }
}

/// The text of one value reference: a positional name or a constant.
pub fn ref_text(trace: &Trace, r: OpRef) -> String {
    match r.target() {
        RefTarget::Input(i) => match trace.inputs.get(i) {
            Some(k) => format!("{}{i}", k.prefix()),
            None => format!("?input{i}"),
        },
        RefTarget::Op(i) => match trace.ops.get(i).map(|op| op.opcode.result().kind()) {
            Some(Some(k)) => format!("{}{}", k.prefix(), trace.inputs.len() + i),
            Some(None) => format!("?void{}", trace.inputs.len() + i),
            None => format!("?op{i}"),
        },
        RefTarget::Const(i) => match trace.consts().get(i) {
            Some(&c) => const_text(c),
            None => format!("?const{i}"),
        },
    }
}

/// The text of a constant: `-5`, `1.5`, `nan`, `float_bits(0x..)`, `null`,
/// `ptr(0x1000)`.
pub fn const_text(c: Const) -> String {
    match c {
        Const::Int(v) => v.to_string(),
        Const::Ref(0) => "null".to_string(),
        Const::Ref(a) => format!("ptr({a:#x})"),
        Const::Float(bits) => float_text(bits),
    }
}

fn float_text(bits: u64) -> String {
    let v = f64::from_bits(bits);
    if v.is_nan() {
        if bits == f64::NAN.to_bits() {
            "nan".to_string()
        } else {
            format!("float_bits({bits:#x})")
        }
    } else {
        // `{:?}` is the shortest text that parses back to the same bits,
        // and always has a `.`, an `e` or is `inf`/`-inf`.
        format!("{v:?}")
    }
}

/// The declaration line of a descriptor (see the module docs of
/// [`crate::text`] for the syntax).
pub fn descr_decl(d: &Descr) -> String {
    let body = match d {
        Descr::Size(s) => {
            let mut b = format!("size(size={}, type_id={}", s.size, s.type_id);
            if s.headerless {
                b.push_str(", headerless");
            }
            if let Some(v) = s.vtable {
                let _ = write!(b, ", vtable={v:#x}");
            }
            let _ = write!(b, ", fields=[{}])", s.fields.join(", "));
            b
        }
        Descr::Field(f) => format!(
            "field(owner={}, offset={}, size={}, kind={}{}{}{})",
            f.owner,
            f.offset,
            f.size,
            f.kind.name(),
            flag(f.signed, "signed"),
            flag(f.immutable, "immutable"),
            flag(f.quasi_immutable, "quasi_immutable")
        ),
        Descr::Array(a) => format!(
            "array(base={}, len={}, item_size={}, kind={}, type_id={}{})",
            a.base_offset,
            a.len_offset,
            a.item_size,
            a.kind.name(),
            a.type_id,
            flag(a.signed, "signed")
        ),
        Descr::Call(c) => {
            let e = &c.effect;
            let args: Vec<&str> = c.args.iter().map(|k| k.name()).collect();
            format!(
                "call(args=[{}], result={}, effect={}{}{}{}, reads=[{}], writes=[{}])",
                args.join(", "),
                result_name(c.result.kind()),
                effect_name(e.effect),
                flag(e.can_raise, "can_raise"),
                flag(e.can_collect, "can_collect"),
                flag(e.may_force, "may_force"),
                e.reads.join(", "),
                e.writes.join(", ")
            )
        }
        Descr::Fail(f) => format!("fail(id={}{})", f.id, flag(f.returns, "returns")),
        Descr::Target(_) => "target()".to_string(),
    };
    format!("descr {} = {body}", d.name())
}

fn flag(on: bool, name: &str) -> String {
    if on {
        format!(", {name}")
    } else {
        String::new()
    }
}

/// `int`, `ref`, `float` or `void`: the result of a call declaration.
pub(crate) fn result_name(k: Option<Kind>) -> &'static str {
    k.map_or("void", Kind::name)
}

/// The word for an effect kind in a call declaration.
pub(crate) fn effect_name(e: CallEffect) -> &'static str {
    match e {
        CallEffect::Random => "random",
        CallEffect::Declared => "declared",
        CallEffect::Elidable => "elidable",
        CallEffect::LoopInvariant => "loop_invariant",
    }
}
