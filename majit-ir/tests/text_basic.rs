//! Hand-written traces through the printer and parser: exact printed text,
//! round trips, constants of every kind, and namespace resolution.

use majit_ir::{
    parse, parse_with, print, ArrayDescr, CallDescr, CallEffect, Const, Descr, EffectInfo,
    FailDescr, FieldDescr, Kind, Namespace, Op, OpCode, ResultKind, SizeDescr, TargetDescr, Trace,
};

fn node() -> Descr {
    SizeDescr {
        name: "Node".into(),
        size: 16,
        type_id: 1,
        headerless: true,
        vtable: None,
        fields: vec!["Node.value".into(), "Node.next".into()],
    }
    .into()
}

fn node_value() -> Descr {
    FieldDescr {
        name: "Node.value".into(),
        owner: "Node".into(),
        offset: 0,
        size: 8,
        signed: true,
        kind: Kind::Int,
        immutable: false,
        quasi_immutable: false,
    }
    .into()
}

fn all_sorts_trace() -> Trace {
    let mut t = Trace::new(&[Kind::Int, Kind::Ref, Kind::Float]);
    let lp: Descr = TargetDescr {
        name: "Loop".into(),
    }
    .into();
    t.push(Op::new(OpCode::Label, &[t.input(0), t.input(1), t.input(2)]).with_descr(lp.clone()));
    let one = t.add_const(Const::Int(-0x1f));
    let i = t.push(Op::new(OpCode::IntAdd, &[t.input(0), one]));
    let p = t.push(Op::new(OpCode::New, &[]).with_descr(node()));
    t.push(Op::new(OpCode::SetfieldGc, &[p, i]).with_descr(node_value()));
    let arr: Descr = ArrayDescr {
        name: "IntArray".into(),
        base_offset: 16,
        len_offset: 8,
        item_size: 8,
        signed: true,
        kind: Kind::Int,
        type_id: 4,
    }
    .into();
    let n = t.add_const(Const::Int(3));
    let a = t.push(Op::new(OpCode::NewArray, &[n]).with_descr(arr));
    let call: Descr = CallDescr {
        name: "Call.x".into(),
        args: vec![Kind::Float, Kind::Ref],
        result: ResultKind::Float,
        effect: EffectInfo {
            effect: CallEffect::Declared,
            can_raise: true,
            can_collect: false,
            may_force: true,
            reads: vec!["Node.value".into()],
            writes: vec![],
        },
    }
    .into();
    let fnaddr = t.add_const(Const::Int(0x1234));
    let nan = t.add_const(Const::Float(0x7ff8_0000_0000_0001));
    let f = t.push(Op::new(OpCode::CallF, &[fnaddr, nan, a]).with_descr(call));
    let g: Descr = FailDescr {
        name: "g7".into(),
        id: 7,
        returns: false,
    }
    .into();
    t.push(
        Op::new(OpCode::GuardNoException, &[])
            .with_descr(g)
            .with_fail_args(&[i, f]),
    );
    let null = t.add_const(Const::Ref(0));
    let ptr = t.add_const(Const::Ref(0x1000));
    t.push(Op::new(OpCode::PtrEq, &[null, ptr]));
    let neg0 = t.add_const(Const::float(-0.0));
    t.push(Op::new(OpCode::Jump, &[i, p, neg0]).with_descr(lp));
    t
}

#[test]
fn prints_every_descriptor_sort_and_reads_it_back() {
    let t = all_sorts_trace();
    let text = print(&t);
    let expected = "\
descr Loop = target()
descr Node = size(size=16, type_id=1, headerless, fields=[Node.value, Node.next])
descr Node.value = field(owner=Node, offset=0, size=8, kind=int, signed)
descr IntArray = array(base=16, len=8, item_size=8, kind=int, type_id=4, signed)
descr Call.x = call(args=[float, ref], result=float, effect=declared, can_raise, may_force, reads=[Node.value], writes=[])
descr g7 = fail(id=7)
[i0, p1, f2]
label(i0, p1, f2, descr=Loop)
i4 = int_add(i0, -31)
p5 = new(descr=Node)
setfield_gc(p5, i4, descr=Node.value)
p7 = new_array(3, descr=IntArray)
f8 = call_f(4660, float_bits(0x7ff8000000000001), p7, descr=Call.x)
guard_no_exception(descr=g7) [i4, f8]
i10 = ptr_eq(null, ptr(0x1000))
jump(i4, p5, -0.0, descr=Loop)
";
    assert_eq!(text, expected);
    let back = parse(&text).unwrap();
    assert_eq!(back, t);
    assert_eq!(print(&back), text);
}

#[test]
fn namespace_descrs_and_symbols_resolve() {
    let mut ns = Namespace::new();
    ns.add_descr(node());
    ns.add_descr(node_value());
    ns.add_symbol("fortytwo", Const::Int(42));
    let t = parse_with(
        "
        # a comment line
        [i0]
        p1 = new(descr=Node)   # trailing comment
        setfield_gc(p1, @fortytwo, descr=Node.value)

        finish(p1)
        ",
        &ns,
    )
    .unwrap();
    assert_eq!(t.ops[0].descr.as_ref(), ns.descr("Node"));
    assert_eq!(t.get_const(t.ops[1].args[1]), Some(Const::Int(42)));
    // Printed text repeats the namespace's declarations and still parses under it.
    let again = parse_with(&print(&t), &ns).unwrap();
    assert_eq!(again, t);
}

#[test]
fn float_constants_keep_their_bits() {
    let cases = [
        "1.5", "-0.0", "0.0", "1e300", "-1e-300", "nan", "inf", "-inf", "5e-324",
    ];
    for c in cases {
        let t = parse(&format!("[]\nf0 = float_neg({c})\nfinish(f0)")).unwrap();
        let k = t.get_const(t.ops[0].args[0]).unwrap();
        let text = print(&t);
        let back = parse(&text).unwrap();
        assert_eq!(
            back.get_const(back.ops[0].args[0]),
            Some(k),
            "{c} -> {text}"
        );
    }
    let t = parse("[]\nf0 = float_neg(float_bits(0xfff0000000000abc))\nfinish(f0)").unwrap();
    assert_eq!(t.consts(), &[Const::Float(0xfff0_0000_0000_0abc)]);
}

#[test]
fn int_constants_cover_the_full_range() {
    let t = parse(
        "[]\ni0 = int_add(-9223372036854775808, 9223372036854775807)\n\
         i1 = int_add(0xffffffffffffffff, -0x8000000000000000)\nfinish(i0, i1)",
    )
    .unwrap();
    let c = |i: usize, a: usize| t.get_const(t.ops[i].args[a]).unwrap();
    assert_eq!(c(0, 0), Const::Int(i64::MIN));
    assert_eq!(c(0, 1), Const::Int(i64::MAX));
    assert_eq!(c(1, 0), Const::Int(-1));
    assert_eq!(c(1, 1), Const::Int(i64::MIN));
}
