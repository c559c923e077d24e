//! Shared helpers of the optimizer tests: parsing with the shared test
//! namespace, `assert_opt` (text in, text out, compared modulo renaming,
//! verified after every pass prefix, blessable) and the execution oracle.

#![allow(dead_code)]

pub mod exec;

use majit_ir::fuzzing::test_namespace;
use majit_ir::testing::Expect;
use majit_ir::{parse_with, print_with, verify, Const, Descr, FailDescr, Namespace, Trace};
use majit_metainterp::opt::{optimize, parse_opts, OptError, Optimized};

/// Fail-descr ids given to guards written without `descr=`.
pub const AUTO_FAIL_BASE: u32 = 1000;

/// Test helper: returns its ref argument (`Call.r_r`, random effects).
pub extern "C" fn id_ref(p: usize) -> usize {
    p
}

/// Test helper: wrapping sum (`Call.ii_i`, elidable).
pub extern "C" fn add_ints(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// The shared test namespace plus the helpers above as `@id_ref` and
/// `@add_ints`.
pub fn ns() -> Namespace {
    let mut ns = test_namespace();
    ns.add_symbol("id_ref", Const::Int(id_ref as *const () as usize as i64));
    ns.add_symbol(
        "add_ints",
        Const::Int(add_ints as *const () as usize as i64),
    );
    ns
}

/// Parses `text` with the shared namespace; guards without a descr get a
/// fresh `FailDescr` (ids from [`AUTO_FAIL_BASE`], in order).
pub fn parse(text: &str) -> Trace {
    let mut t = parse_with(text, &ns()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut next = AUTO_FAIL_BASE;
    for op in &mut t.ops {
        if op.opcode.is_guard() && op.descr.is_none() {
            let d = FailDescr {
                name: format!("f{next}"),
                id: next,
                returns: false,
            };
            op.descr = Some(Descr::from(d));
            next += 1;
        }
    }
    t
}

/// The text of `t` with guard descrs left out, for comparisons.
pub fn normalized(t: &Trace) -> String {
    let mut t = t.clone();
    for op in &mut t.ops {
        if op.opcode.is_guard() {
            op.descr = None;
        }
    }
    print_with(&t, &ns())
}

/// Optimizes `t` with every prefix of `passes` (pipeline order) and checks
/// that each output verifies; returns the full run.
pub fn optimize_checked(passes: &str, t: &Trace) -> Optimized {
    try_optimize_checked(passes, t).unwrap_or_else(|e| panic!("{passes}: {e}"))
}

/// As [`optimize_checked`], but an optimizer error is returned.
pub fn try_optimize_checked(passes: &str, t: &Trace) -> Result<Optimized, OptError> {
    verify(t).unwrap_or_else(|e| panic!("input does not verify: {e}\n{}", normalized(t)));
    let names = parse_opts(passes).expect("valid enable_opts");
    let mut last = None;
    for k in 1..=names.len().max(1) {
        let prefix = names[..k.min(names.len())].join(":");
        let out = optimize(t, &prefix)?;
        if let Err(e) = verify(&out.trace) {
            panic!(
                "output of `{prefix}` does not verify: {e}\n{}",
                majit_ir::print(&out.trace)
            );
        }
        last = Some(out);
    }
    Ok(last.expect("at least one run"))
}

/// Text in, text out: optimizes `input` with `passes` and compares with
/// `expected` modulo renaming (`MAJIT_BLESS=1` rewrites a differing
/// `expected`, see [`majit_ir::testing`]); then runs both on the reference
/// executor (see [`exec::check_equivalent`]).
#[track_caller]
pub fn assert_opt(passes: &str, input: &str, expected: Expect) -> Optimized {
    let t = parse(input);
    let out = optimize_checked(passes, &t);
    // Text that does not parse (e.g. empty, to be blessed) compares as is.
    let want_text = parse_with(&expected.text(), &ns())
        .map(|want| normalized(&want))
        .unwrap_or_else(|_| expected.text());
    let got = normalized(&out.trace);
    if got != want_text {
        expected.mismatch(&got, &want_text);
    }
    exec::check_equivalent(&t, &out, 8);
    out
}
