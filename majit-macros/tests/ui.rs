//! Compile-fail tests: each unsupported construct is an error at its span
//! with a message that says what to do. Checked against the native
//! toolchain only (rustc's rendering of the errors can differ between
//! versions; the aarch64 CI uses another rustc).

#[cfg(target_arch = "x86_64")]
#[test]
fn unsupported_constructs_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
