//! Jitcode: encoding round trips through the decoder, liveness sets at
//! the markers the builder inserts, builder errors, the disassembler.

use majit_ir::{Descr, FieldDescr, Kind, OpCode};
use majit_metainterp::jitcode::{Arg, JOp, JitCode, JitCodeBuilder, Label};

/// `fn count(n) { i = 0; while i < n { i += 1 }; return i }`
fn count() -> JitCode {
    let mut b = JitCodeBuilder::new("count");
    let n = b.param(Kind::Int);
    let i = b.reg(Kind::Int);
    let c = b.reg(Kind::Int);
    b.copy(Arg::Int(0), i);
    let (head, exit) = (b.label(), b.label());
    b.bind(head);
    b.op(OpCode::IntLt, &[i.into(), n.into()], c);
    b.goto_if_not(c.into(), exit);
    b.op(OpCode::IntAdd, &[i.into(), Arg::Int(1)], i);
    b.goto(head);
    b.bind(exit);
    b.ret(Some(i.into()));
    b.finish().unwrap()
}

fn markers(code: &JitCode) -> Vec<usize> {
    code.insn_starts()
        .into_iter()
        .filter(|&pc| code.decode(pc).op == JOp::Live)
        .collect()
}

#[test]
fn decoder_walks_every_instruction_to_the_end() {
    let code = count();
    let ops: Vec<JOp> = code
        .insn_starts()
        .iter()
        .map(|&pc| code.decode(pc).op)
        .collect();
    use JOp::*;
    assert_eq!(
        ops,
        [CopyI, Pure, Live, GotoIfNot, Pure, Goto, ReturnI],
        "{}",
        code.disassemble()
    );
    let last = *code.insn_starts().last().unwrap();
    assert_eq!(code.decode(last).next, code.code.len());
}

#[test]
fn liveness_across_a_loop_covers_both_successors() {
    let code = count();
    let m = markers(&code);
    assert_eq!(m.len(), 1);
    // Before `goto_if_not`: `i` is read on both paths, `n` by the loop
    // body's next test, `c` by the branch itself.
    let live = code.live_at(m[0]).unwrap();
    assert_eq!(live.ints, vec![0, 1, 2], "{}", code.disassemble());
}

#[test]
fn dead_registers_are_not_live() {
    let mut b = JitCodeBuilder::new("f");
    let a = b.param(Kind::Int);
    let t = b.reg(Kind::Int);
    let r = b.reg(Kind::Ref);
    let l = b.label();
    b.op(OpCode::IntAdd, &[a.into(), Arg::Int(1)], t);
    b.copy(Arg::Ref(0), r);
    // `a` is dead after the add; `t` is the condition and is read after.
    b.goto_if_not(t.into(), l);
    b.ret(Some(t.into()));
    b.bind(l);
    b.ret(Some(r.into()));
    let code = b.finish().unwrap();
    let live = code.live_at(markers(&code)[0]).unwrap();
    assert_eq!(live.ints, vec![1]);
    assert_eq!(live.refs, vec![0]);
}

#[test]
fn inline_call_marker_follows_the_call() {
    let mut b = JitCodeBuilder::new("caller");
    let x = b.param(Kind::Int);
    let y = b.reg(Kind::Int);
    b.inline_call(majit_metainterp::jitcode::FuncId(0), &[x.into()], Some(y));
    b.op(OpCode::IntAdd, &[x.into(), y.into()], y);
    b.ret(Some(y.into()));
    let code = b.finish().unwrap();
    let starts = code.insn_starts();
    assert_eq!(code.decode(starts[0]).op, JOp::InlineCallI);
    assert_eq!(code.decode(starts[1]).op, JOp::Live);
    let live = code.live_at(starts[1]).unwrap();
    assert_eq!(live.ints, vec![0, 1]);
    assert_eq!(live.without(code.decode(starts[0]).dst).ints, vec![0]);
}

/// `r = f(x); catch L -> e; return r + y` / `L: return e`, `f` can raise.
fn catching() -> JitCode {
    let descr: Descr = majit_ir::CallDescr {
        name: "f".into(),
        args: vec![Kind::Int],
        result: majit_ir::ResultKind::Int,
        effect: majit_ir::EffectInfo {
            can_raise: true,
            ..Default::default()
        },
    }
    .into();
    let mut b = JitCodeBuilder::new("catching");
    let (x, y) = (b.param(Kind::Int), b.param(Kind::Int));
    let (r, e) = (b.reg(Kind::Int), b.reg(Kind::Int));
    let handler = b.label();
    b.call(descr, Arg::Int(0x1000), &[x.into()], Some(r));
    b.catch_exception(handler, Some(e));
    b.op(OpCode::IntAdd, &[r.into(), y.into()], r);
    b.ret(Some(r.into()));
    b.bind(handler);
    b.ret(Some(e.into()));
    b.finish().unwrap()
}

#[test]
fn a_call_that_can_raise_is_followed_by_a_marker_and_its_catch() {
    let code = catching();
    let starts = code.insn_starts();
    let ops: Vec<JOp> = starts.iter().map(|&pc| code.decode(pc).op).collect();
    assert_eq!(ops[..3], [JOp::CallI, JOp::Live, JOp::CatchI]);
    // Live after the call: its result and `y` (normal path); not the
    // catch's destination, which only the handler reads after the catch
    // writes it.
    assert_eq!(code.live_at(starts[1]).unwrap().ints, vec![1, 2]);
    let catch = code.catch_after(starts[1]).expect("the call's catch");
    assert_eq!(catch.pc, starts[2]);
    assert_eq!(code.catch_after(starts[3]), None);
    let text = code.disassemble();
    assert!(text.contains("int_catch_exception L"), "{text}");
    assert!(text.contains("-> %i3"), "{text}");
}

#[test]
fn a_catch_keeps_its_destination_live_on_the_normal_path() {
    // `e = x; r = f(x); catch L -> e; return e` / `L: return r`: the
    // old `e` is read when nothing was raised.
    let descr: Descr = majit_ir::CallDescr {
        name: "f".into(),
        args: vec![Kind::Int],
        result: majit_ir::ResultKind::Int,
        effect: majit_ir::EffectInfo {
            can_raise: true,
            ..Default::default()
        },
    }
    .into();
    let mut b = JitCodeBuilder::new("keeps");
    let x = b.param(Kind::Int);
    let (r, e) = (b.reg(Kind::Int), b.reg(Kind::Int));
    let handler = b.label();
    b.copy(x.into(), e);
    b.call(descr, Arg::Int(0x1000), &[x.into()], Some(r));
    b.catch_exception(handler, Some(e));
    b.ret(Some(e.into()));
    b.bind(handler);
    b.ret(Some(r.into()));
    let code = b.finish().unwrap();
    let marker = code.insn_starts()[2];
    assert_eq!(code.live_at(marker).unwrap().ints, vec![1, 2]);
}

#[test]
fn catch_and_raise_misuse_are_builder_errors() {
    let mut b = JitCodeBuilder::new("nocall");
    let (l, e) = (b.label(), b.reg(Kind::Int));
    b.catch_exception(l, Some(e));
    b.bind(l);
    b.ret(None);
    let err = b.finish().unwrap_err();
    assert!(err.message.contains("must directly follow a call"), "{err}");

    let mut b = JitCodeBuilder::new("float");
    let (l, f) = (b.label(), b.reg(Kind::Float));
    b.inline_call(majit_metainterp::jitcode::FuncId(0), &[], None);
    b.catch_exception(l, Some(f));
    b.bind(l);
    b.raise(f.into());
    let err = b.finish().unwrap_err();
    assert!(err.message.contains("not a float"), "{err}");
}

#[test]
fn constants_are_operands_past_the_registers() {
    let code = count();
    let insn = code.decode(code.insn_starts()[4]);
    assert_eq!(insn.ir_op(), OpCode::IntAdd);
    let one = insn.reg(2);
    assert!(code.is_const(one));
    assert_eq!(code.const_value(one), majit_ir::Value::Int(1));
}

#[test]
fn disassembly_names_ops_registers_constants_and_labels() {
    let text = count().disassemble();
    assert!(text.contains("int_copy $0 -> %i1"), "{text}");
    assert!(text.contains("int_lt %i1, %i0 -> %i2"), "{text}");
    assert!(text.contains("-live- [%i0, %i1, %i2]"), "{text}");
    assert!(text.contains("int_add %i1, $1 -> %i1"), "{text}");
    assert!(text.contains("int_return %i1"), "{text}");
}

#[test]
fn builder_errors_name_the_instruction() {
    let mut b = JitCodeBuilder::new("bad");
    let i = b.reg(Kind::Int);
    b.op(OpCode::IntAdd, &[i.into(), Arg::Int(1)], i);
    b.op(OpCode::FloatAdd, &[i.into(), Arg::Float(1.0)], i);
    let e = b.finish().unwrap_err();
    assert_eq!(e.insn, 1);
    assert!(e.to_string().contains("float_add"), "{e}");

    let mut b = JitCodeBuilder::new("unbound");
    let l: Label = b.label();
    b.goto(l);
    assert!(b.finish().unwrap_err().message.contains("never bound"));

    let field: Descr = FieldDescr {
        name: "T.x".into(),
        owner: "T".into(),
        offset: 8,
        size: 8,
        signed: true,
        kind: Kind::Int,
        immutable: false,
        quasi_immutable: false,
    }
    .into();
    let mut b = JitCodeBuilder::new("wrongkind");
    let p = b.reg(Kind::Ref);
    let f = b.reg(Kind::Float);
    b.getfield(p.into(), field, f);
    assert!(b.finish().unwrap_err().message.contains("must be int"));
}

#[test]
fn many_constants_fit_and_too_many_are_an_error_not_a_panic() {
    let build = |n: i64| {
        let mut b = JitCodeBuilder::new("big");
        let r = b.reg(Kind::Int);
        for k in 0..n {
            b.op(OpCode::IntAdd, &[r.into(), Arg::Int(k)], r);
        }
        b.ret(Some(r.into()));
        b.finish()
    };
    // Operands are two bytes: a bank holds up to 65535 registers and
    // constants (a language VM's interpreter needs more than 256).
    let code = build(300).unwrap();
    assert_eq!(code.consts_i.len(), 300);
    let e = build(70_000).unwrap_err();
    assert!(
        e.message
            .contains("more than 65535 registers and constants"),
        "{e}"
    );
}
