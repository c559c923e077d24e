//! One negative test per verifier rule, each checking the op index, the
//! error kind and the message; plus a valid trace that passes.

use majit_ir::{
    parse_with, verify, FailDescr, Kind, Namespace, Op, OpCode, OpRef, SizeDescr, Trace,
    VerifyErrorKind as E, VerifyErrors,
};

fn ns() -> Namespace {
    majit_ir::fuzzing::test_namespace()
}

fn errors(text: &str) -> VerifyErrors {
    let t = parse_with(text, &ns()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify(&t).expect_err("trace should be rejected")
}

/// Asserts the only error is `kind` at op `index` with `needle` in its text.
fn assert_one(text: &str, index: usize, kind: E, needle: &str) {
    let errs = errors(text);
    assert_eq!(errs.0.len(), 1, "{errs}");
    let e = &errs.0[0];
    assert_eq!((e.index, e.kind), (index, kind), "{errs}");
    assert!(
        errs.to_string().contains(needle),
        "`{needle}` not in: {errs}"
    );
}

#[test]
fn valid_loop_passes() {
    let t = parse_with(
        "[i0, p1]
        label(i0, p1, descr=Loop)
        i2 = int_add_ovf(i0, 1)
        guard_no_overflow() [i0]
        p3 = new(descr=Node)
        setfield_gc(p3, i2, descr=Node.value)
        setfield_gc(p3, p1, descr=Node.next)
        i4 = getfield_gc_i(p3, descr=Node.value)
        i5 = call_i(4096, i4, i2, descr=Call.ii_i)
        guard_value(i5, 3) [i0, p1, i5]
        jump(i2, p3, descr=Loop)",
        &ns(),
    )
    .unwrap();
    verify(&t).unwrap();
}

#[test]
fn use_before_definition() {
    assert_one(
        "[i0]\ni1 = int_add(i0, i2)\ni2 = int_neg(i0)\nfinish(i1)",
        0,
        E::UseBeforeDef,
        "op 0 `i1 = int_add(i0, i2)`: arg 1 uses op 1 before it is defined",
    );
    assert_one(
        "[i0]\nguard_true(i0) [i2]\ni2 = int_neg(i0)\nfinish(i2)",
        0,
        E::UseBeforeDef,
        "fail arg 0 uses op 1",
    );
}

#[test]
fn references_out_of_range_or_to_void_ops() {
    let mut t = Trace::new(&[Kind::Int]);
    t.push(Op::new(OpCode::IntNeg, &[OpRef::input(3)]));
    t.push(Op::new(OpCode::IntNeg, &[OpRef::konst(9)]));
    let dmp = t.push(Op::new(OpCode::DebugMergePoint, &[]));
    t.push(Op::new(OpCode::IntNeg, &[dmp]));
    t.push(Op::new(OpCode::Finish, &[OpRef::op(77)]));
    let errs = verify(&t).unwrap_err();
    let msgs: Vec<(usize, E)> = errs.0.iter().map(|e| (e.index, e.kind)).collect();
    assert_eq!(
        msgs,
        vec![
            (0, E::BadRef),
            (1, E::BadRef),
            (3, E::BadRef),
            (4, E::BadRef)
        ],
        "{errs}"
    );
    let text = errs.to_string();
    assert_eq!(text.lines().count(), 4);
    assert!(
        text.contains("op 0 `i1 = int_neg(?input3)`: arg 0 names input 3, but the trace has 1"),
        "{text}"
    );
    assert!(text.contains("arg 0 names constant 9"), "{text}");
    assert!(
        text.contains("names op 2 (`debug_merge_point`), which has no result"),
        "{text}"
    );
    assert!(
        text.contains("arg 0 names op 77, which does not exist"),
        "{text}"
    );
}

#[test]
fn argument_kinds() {
    assert_one(
        "[i0, p1]\ni2 = int_add(i0, p1)\nfinish(i2)",
        0,
        E::ArgKind,
        "arg 1 is ref, expected int",
    );
    // `v`: the field's kind.
    assert_one(
        "[i0, p1]\nsetfield_gc(p1, 1.5, descr=Node.value)\nfinish()",
        0,
        E::ArgKind,
        "arg 1 is float, expected int",
    );
    assert_one(
        "[i0, p1]\nguard_value(i0, p1) [] \nfinish()",
        0,
        E::ArgKind,
        "guard_value compares a int with a ref",
    );
    assert_one(
        "[i0, f1]\ni2 = call_i(4096, i0, f1, descr=Call.ii_i)\nfinish(i2)",
        0,
        E::ArgKind,
        "arg 2 is float, expected int",
    );
}

#[test]
fn result_kinds_against_descrs() {
    assert_one(
        "[p0]\nf1 = getfield_gc_f(p0, descr=Node.value)\nfinish(f1)",
        0,
        E::ResultKind,
        "`getfield_gc_f` loads a float but its descr holds int",
    );
    assert_one(
        "[i0]\np1 = call_r(4096, i0, i0, descr=Call.ii_i)\nfinish(p1)",
        0,
        E::ResultKind,
        "`call_r` returns ref, call descr `Call.ii_i` returns int",
    );
}

#[test]
fn arity_fixed_variadic_and_call() {
    assert_one(
        "[i0]\ni1 = int_add(i0)\nfinish(i1)",
        0,
        E::Arity,
        "`int_add` takes 2 args, got 1",
    );
    assert_one(
        "[i0]\ni1 = int_neg(i0, i0)\nfinish(i1)",
        0,
        E::Arity,
        "`int_neg` takes 1 args, got 2",
    );
    let errs = errors("[i0]\ni1 = call_i(descr=Call.ii_i)\nfinish(i1)");
    assert_eq!(errs.0.len(), 2, "{errs}");
    assert!(
        errs.0.iter().all(|e| e.kind == E::Arity && e.index == 0),
        "{errs}"
    );
    assert!(
        errs.to_string()
            .contains("`call_i` takes at least 1 args, got 0"),
        "{errs}"
    );
    assert_one(
        "[i0]\ni1 = call_i(4096, i0, descr=Call.ii_i)\nfinish(i1)",
        0,
        E::Arity,
        "call descr `Call.ii_i` takes 2 args, got 1",
    );
}

#[test]
fn call_assembler_needs_a_may_force_descr_and_a_constant_token() {
    assert_one(
        "[i0]\ni1 = call_assembler_i(4096, 3, i0, descr=Call.ii_i)\nfinish(i1)",
        0,
        E::Descr,
        "`call_assembler_i` needs a may_force call descr, not `Call.ii_i`",
    );
    assert_one(
        "[i0]\ni1 = call_assembler_i(4096, i0, descr=Call.force_i)\nfinish(i1)",
        0,
        E::ArgKind,
        "`call_assembler_i` takes a constant token as arg 1",
    );
    let ok = parse_with(
        "[i0]\ni1 = call_assembler_i(4096, 3, descr=Call.force_i)\nfinish(i1)",
        &ns(),
    )
    .unwrap();
    assert!(verify(&ok).is_ok());
}

#[test]
fn descriptor_presence_and_sort() {
    assert_one(
        "[p0]\ni1 = getfield_gc_i(p0)\nfinish(i1)",
        0,
        E::Descr,
        "`getfield_gc_i` needs a field descr",
    );
    assert_one(
        "[]\np0 = new(descr=IntArray)\nfinish(p0)",
        0,
        E::Descr,
        "`new` needs a size descr, got array descr `IntArray`",
    );
    assert_one(
        "[i0]\ni1 = int_neg(i0, descr=Node)\nfinish(i1)",
        0,
        E::Descr,
        "`int_neg` takes no descr, got `Node`",
    );
    assert_one(
        "[i0]\nguard_true(i0, descr=Loop) []\nfinish()",
        0,
        E::Descr,
        "takes a fail descr, got target descr `Loop`",
    );
    assert_one(
        "[i0]\nlabel(i0)\nfinish()",
        0,
        E::Descr,
        "`label` needs a target descr",
    );
    assert_one(
        "[i0]\njump(i0, descr=g1)",
        0,
        E::Descr,
        "`jump` needs a target descr, got fail descr `g1`",
    );
}

#[test]
fn descriptor_names_unique_and_printable() {
    let mut t = Trace::new(&[Kind::Int]);
    let a = FailDescr {
        name: "g".into(),
        id: 1,
        returns: false,
    };
    let b = FailDescr {
        name: "g".into(),
        id: 2,
        returns: false,
    };
    t.push(
        Op::new(OpCode::GuardTrue, &[t.input(0)])
            .with_descr(a.into())
            .with_fail_args(&[]),
    );
    t.push(
        Op::new(OpCode::GuardTrue, &[t.input(0)])
            .with_descr(b.into())
            .with_fail_args(&[]),
    );
    let bad = SizeDescr {
        name: "my node".into(),
        size: 8,
        type_id: 1,
        headerless: true,
        vtable: None,
        fields: vec![],
    };
    let p = t.push(Op::new(OpCode::New, &[]).with_descr(bad.into()));
    t.push(Op::new(OpCode::Finish, &[p]));
    let errs = verify(&t).unwrap_err();
    let kinds: Vec<(usize, E)> = errs.0.iter().map(|e| (e.index, e.kind)).collect();
    assert_eq!(kinds, vec![(1, E::DescrName), (2, E::DescrName)], "{errs}");
    assert!(
        errs.to_string()
            .contains("two different descrs are named `g`"),
        "{errs}"
    );
    assert!(
        errs.to_string()
            .contains("mentions `my node`, which is not a printable name"),
        "{errs}"
    );
}

#[test]
fn fail_args_only_on_guards() {
    let mut t = Trace::new(&[Kind::Int]);
    t.push(Op::new(OpCode::GuardTrue, &[t.input(0)]));
    let n = t.push(Op::new(OpCode::IntNeg, &[t.input(0)]).with_fail_args(&[]));
    t.push(Op::new(OpCode::Finish, &[n]));
    let errs = verify(&t).unwrap_err();
    let kinds: Vec<(usize, E)> = errs.0.iter().map(|e| (e.index, e.kind)).collect();
    assert_eq!(kinds, vec![(0, E::FailArgs), (1, E::FailArgs)], "{errs}");
    let text = errs.to_string();
    assert!(
        text.contains("op 0 `guard_true(i0)`: a guard needs fail args"),
        "{text}"
    );
    assert!(
        text.contains("op 1 `i2 = int_neg(i0) []`: `int_neg` is not a guard"),
        "{text}"
    );
}

#[test]
fn exception_pairing() {
    assert_one(
        "[i0]\nguard_exception() []\nfinish(i0)",
        0,
        E::Exception,
        "`guard_exception` must be followed by save_exception_i or save_exception_r",
    );
    assert_one(
        "[i0]\nguard_no_exception() []\np1 = save_exception_r()\nfinish(p1)",
        1,
        E::Exception,
        "`save_exception_r` must directly follow guard_exception",
    );
}

#[test]
fn overflow_pairing() {
    assert_one(
        "[i0]\ni1 = int_mul_ovf(i0, i0)\nfinish(i1)",
        0,
        E::Overflow,
        "`int_mul_ovf` must be followed by guard_no_overflow or guard_overflow",
    );
    assert_one(
        "[i0]\ni1 = int_add(i0, i0)\nguard_overflow() []\nfinish(i1)",
        1,
        E::Overflow,
        "`guard_overflow` must directly follow an *_ovf op",
    );
}

#[test]
fn exactly_one_final_op_at_the_end() {
    assert_one(
        "[i0]\ni1 = int_neg(i0)",
        0,
        E::Final,
        "the trace ends with `int_neg`, not jump or finish",
    );
    assert_one(
        "[i0]\nfinish(i0)\nfinish(i0)",
        0,
        E::Final,
        "`finish` must be the last op",
    );
    let errs = verify(&Trace::new(&[])).unwrap_err();
    assert_eq!(errs.0[0].kind, E::Final);
    assert!(errs.to_string().contains("the trace is empty"), "{errs}");
}

#[test]
fn jump_matches_its_label() {
    assert_one(
        "[i0, p1]\nlabel(i0, p1, descr=Loop)\njump(i0, descr=Loop)",
        1,
        E::JumpLabel,
        "jump passes 1 args, its label (op 0) takes 2",
    );
    assert_one(
        "[i0, p1]\nlabel(i0, p1, descr=Loop)\njump(i0, i0, descr=Loop)",
        1,
        E::JumpLabel,
        "jump arg 1 is int, label (op 0) arg 1 is ref",
    );
    // A jump to a target outside the trace is not checked here.
    let t = parse_with(
        "[i0]\nlabel(i0, descr=Loop)\njump(1.5, 2, descr=Loop2)",
        &ns(),
    )
    .unwrap();
    verify(&t).unwrap();
}

#[test]
fn one_label_per_target() {
    assert_one(
        "[i0]\nlabel(i0, descr=Loop)\nlabel(i0, descr=Loop)\njump(i0, descr=Loop)",
        1,
        E::DuplicateLabel,
        "a second label for target `Loop` (first is op 0)",
    );
}

#[test]
fn no_class_guard_on_headerless_allocations() {
    assert_one(
        "[]\np0 = new(descr=Node)\nguard_class(p0, 4096) []\nfinish(p0)",
        1,
        E::HeaderlessClass,
        "`guard_class` on a headerless object",
    );
    assert_one(
        "[]\np0 = call_malloc_nursery_headerless(16, descr=Node)\nguard_nonnull_class(p0, 4096) []\nfinish(p0)",
        1,
        E::HeaderlessClass,
        "`guard_nonnull_class` on a headerless object",
    );
    let t = parse_with(
        "[]\np0 = new_with_vtable(descr=Stack)\nguard_class(p0, 4096) []\nfinish(p0)",
        &ns(),
    )
    .unwrap();
    verify(&t).unwrap();
}

#[test]
fn all_errors_are_reported_one_per_line() {
    let errs =
        errors("[i0, p1]\ni2 = int_add(i0, p1)\ni3 = int_neg(i9, descr=Node)\ni9 = int_neg(i0)");
    let text = errs.to_string();
    assert_eq!(text.lines().count(), errs.0.len());
    for k in [E::ArgKind, E::UseBeforeDef, E::Descr, E::Final] {
        assert!(errs.has(k), "{k:?} missing from:\n{text}");
    }
}
