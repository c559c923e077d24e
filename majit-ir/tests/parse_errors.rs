//! Every kind of parse error, with the line and column it must point at
//! and words its message must contain; plus inputs that must fail cleanly
//! (random bytes, huge numbers, unbalanced brackets).

use majit_ir::fuzzing::{test_namespace, SplitMix64};
use majit_ir::{parse, parse_with, ParseError};

fn err(text: &str) -> ParseError {
    match parse_with(text, &test_namespace()) {
        Ok(t) => panic!("parsed, but should not:\n{text}\n{t:?}"),
        Err(e) => e,
    }
}

/// Asserts the error of `text` is at `line`:`col` and that its expected
/// and found parts contain the given words.
fn check(text: &str, line: usize, col: usize, expected: &str, found: &str) {
    let e = err(text);
    let shown = e.to_string();
    assert_eq!((e.line, e.col), (line, col), "{shown}\n{text}");
    assert!(
        e.expected.contains(expected),
        "expected part of `{shown}` lacks `{expected}`"
    );
    assert!(
        e.found.contains(found),
        "found part of `{shown}` lacks `{found}`"
    );
    assert!(
        shown.starts_with(&format!("line {line}, col {col}: expected ")),
        "{shown}"
    );
}

#[test]
fn display_format() {
    let e = ParseError {
        line: 3,
        col: 7,
        expected: "`)`".into(),
        found: "end of line".into(),
    };
    assert_eq!(
        e.to_string(),
        "line 3, col 7: expected `)`, found end of line"
    );
    let _: &dyn std::error::Error = &e;
}

#[test]
fn lexical_errors() {
    check("[i0]\ni1 = int_add(i0, $)", 2, 18, "a name, number", "'$'");
    check("[i0]\nfinish(@ )", 2, 9, "a symbol name", "' '");
    check("[i0]\nfinish(i0 - 1)", 2, 11, "a name, number", "'-'");
}

#[test]
fn unknown_op_suggests_names() {
    check(
        "[i0]\ni1 = int_ad(i0, 1)",
        2,
        6,
        "did you mean `int_add`",
        "`int_ad`",
    );
    check(
        "[i0]\nguard_ture(i0) []",
        2,
        1,
        "`guard_true`",
        "`guard_ture`",
    );
    check(
        "[i0]\nzzzzzzzzzzzzzzzzzzzz(i0)",
        2,
        1,
        "an op name",
        "`zzzz",
    );
}

#[test]
fn result_names() {
    check(
        "[i0]\np1 = int_add(i0, 1)",
        2,
        1,
        "starting with `i` (`int_add` returns int)",
        "`p1`",
    );
    check(
        "[p0]\ni1 = setfield_gc(p0, 1, descr=Node.value)",
        2,
        1,
        "no result name (`setfield_gc` has no result)",
        "`i1`",
    );
    check("[i0]\nx1 = int_add(i0, 1)", 2, 1, "a result name", "`x1`");
    check("[i0]\ninf = float_neg(1.0)", 2, 1, "a result name", "`inf`");
}

#[test]
fn fail_args_required_on_guards_only() {
    check(
        "[i0]\nguard_true(i0)",
        2,
        15,
        "a fail-arg list",
        "end of line",
    );
    check("[i0]\ni1 = int_neg(i0) [i0]", 2, 18, "not a guard", "`[`");
}

#[test]
fn value_names() {
    check(
        "[i0]\ni1 = int_add(i0, i7)",
        2,
        18,
        "a defined value name",
        "`i7`",
    );
    check(
        "[i0]\ni0 = int_neg(1)",
        2,
        1,
        "a fresh value name",
        "already defined on line 1",
    );
    check(
        "[i0]\ni1 = int_neg(1)\ni1 = int_neg(2)",
        3,
        1,
        "a fresh value name",
        "line 2",
    );
    check(
        "[i0]\ni1 = int_neg(x)",
        2,
        14,
        "a value name or a constant",
        "`x`",
    );
    check("[i0, x1]", 1, 6, "an input name", "`x1`");
    check("[nan]", 1, 2, "an input name", "`nan`");
}

#[test]
fn descriptors_by_name() {
    check(
        "[i0]\njump(i0, descr=Nowhere)",
        2,
        16,
        "a descriptor of the namespace",
        "unknown descriptor `Nowhere`",
    );
    check(
        "[]\nfinish(@nothing)",
        2,
        8,
        "a symbol of the namespace",
        "unknown symbol `@nothing`",
    );
    check(
        "descr Loop = fail(id=1)\n[]\nfinish()",
        1,
        7,
        "equal to the namespace's",
        "a different one",
    );
    check(
        "descr X = fail(id=1)\ndescr X = fail(id=2)\n[]\nfinish()",
        2,
        7,
        "one declaration of `X` (first on line 1)",
        "a different one",
    );
    // Repeating the namespace's own declaration is fine.
    parse_with("descr Loop = target()\n[]\nfinish()", &test_namespace()).unwrap();
}

#[test]
fn declaration_syntax() {
    check(
        "descr X = thing()\n[]",
        1,
        11,
        "a descriptor sort",
        "`thing`",
    );
    check(
        "descr X = fail(id=1, colour=red)\n[]",
        1,
        22,
        "a key this descriptor sort knows",
        "`colour`",
    );
    check("descr X = fail()\n[]", 1, 11, "a `id=` entry", "none");
    check(
        "descr X = fail(id=1, id=2)\n[]",
        1,
        22,
        "each key once",
        "a second `id`",
    );
    check(
        "descr X = fail(id=-1)\n[]",
        1,
        11,
        "`id` to be a number in range",
        "`-1`",
    );
    check(
        "descr X = field(owner=A, offset=0, size=300, kind=int)\n[]",
        1,
        11,
        "`size` to be a number in range",
        "`300`",
    );
    check(
        "descr X = field(owner=A, offset=0, size=8, kind=word)\n[]",
        1,
        11,
        "`kind` to be int, ref or float",
        "`word`",
    );
    check(
        "descr C = call(args=[int, byte], result=int, effect=random)\n[]",
        1,
        11,
        "`args` to be int, ref or float",
        "`byte`",
    );
    check(
        "descr C = call(args=[], result=int, effect=pure)\n[]",
        1,
        11,
        "`effect` to be random",
        "`pure`",
    );
    check(
        "descr C = call(args=int, result=int, effect=random)\n[]",
        1,
        16,
        "`args=[...]`",
        "`args`",
    );
    check(
        "descr X = size(size=8, type_id=1, fields=[a b])\n[]",
        1,
        45,
        "`,`",
        "`b`",
    );
    check(
        "descr X = target() extra\n[]",
        1,
        20,
        "end of line after the declaration",
        "`extra`",
    );
}

#[test]
fn numbers() {
    check(
        "[]\ni0 = int_neg(9223372036854775808)\nfinish(i0)",
        2,
        14,
        "a number",
        "`9223372036854775808`",
    );
    check(
        "[]\ni0 = int_neg(0x10000000000000000)\nfinish(i0)",
        2,
        14,
        "a number",
        "`0x1",
    );
    check(
        "[]\ni0 = int_neg(-0x8000000000000001)\nfinish(i0)",
        2,
        14,
        "a number",
        "`-0x8000000000000001`",
    );
    check(
        "[]\nf0 = float_neg(1.2.3)\nfinish(f0)",
        2,
        16,
        "a number",
        "`1.2.3`",
    );
    check(
        "[]\nfinish(ptr(0xzz))",
        2,
        12,
        "an unsigned 64-bit number",
        "`0xzz`",
    );
    check(
        "[]\nfinish(float_bits(1.5))",
        2,
        19,
        "an unsigned 64-bit number",
        "`1.5`",
    );
    check("[]\nfinish(ptr 5)", 2, 12, "`(`", "`5`");
    // Out-of-range floats saturate as IEEE parsing does, like Rust's `parse`.
    let t = parse("[]\nfinish(1e999)").unwrap();
    assert_eq!(t.consts()[0], majit_ir::Const::float(f64::INFINITY));
}

#[test]
fn structure() {
    check("", 1, 1, "the input list", "end of input");
    check(
        "# only a comment\n\ndescr L = target()",
        3,
        1,
        "the input list",
        "end of input",
    );
    check(
        "i0 = int_neg(1)\n[]",
        1,
        1,
        "the input list `[...]` before the first op",
        "`int_neg`",
    );
    check("[]\n[i0]", 2, 1, "one input list", "a second one");
    check("[i0\nfinish()", 1, 4, "`,`", "end of line");
    check(
        "[i0] junk",
        1,
        6,
        "end of line after the input list",
        "`junk`",
    );
    check("[i0]\nfinish(i0", 2, 10, "`,`", "end of line");
    check(
        "[i0]\nfinish(i0))",
        2,
        11,
        "end of line after the op",
        "`)`",
    );
    check("[i0]\njump(descr=Loop, i0)", 2, 16, "`)`", "`,`");
    check("[i0]\nguard_true(i0) [i0", 2, 19, "`,`", "end of line");
    check("[i0]\nfinish(descr=)", 2, 14, "a descriptor name", "`)`");
    check("[i0]\ni1 = ", 2, 6, "an op name", "end of line");
}

#[test]
fn random_bytes_and_garbage_fail_cleanly() {
    let mut rng = SplitMix64::new(42);
    for _ in 0..2000 {
        let n = rng.below(60);
        let bytes: Vec<u8> = (0..n)
            .map(|_| rng.pick(b"[](),=@#ipf0123456789.-xe_ \nabcdr\xff"))
            .collect();
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text);
    }
    let deep = format!("[]\nfinish({}", "(".repeat(10_000));
    assert!(parse(&deep).is_err());
    let long = format!("[]\nfinish({})", "1, ".repeat(5000) + "1");
    assert_eq!(parse(&long).unwrap().ops[0].args.len(), 5001);
    let huge = format!("[]\ni0 = int_neg({})", "9".repeat(5000));
    assert!(parse(&huge).is_err());
}
