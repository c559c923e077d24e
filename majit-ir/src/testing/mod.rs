//! Blessable text tests (feature `testing`).
//!
//! A test writes its expected text in place, inside [`expect!`](crate::expect!):
//!
//! ```
//! use majit_ir::expect;
//! let out = "[i0]\nfinish(i0)";
//! expect![r"
//!     [i0]
//!     finish(i0)
//! "]
//! .assert_eq(out);
//! ```
//!
//! The literal is dedented (its common indentation, the first empty line
//! and trailing whitespace go) before comparing. On a mismatch the test
//! fails with a line diff; run with `MAJIT_BLESS=1` instead and the
//! literal in the test's source file is rewritten to the actual text, the
//! way Cranelift's precise-output filetests and the `expect-test` crate
//! do. Review the change with `git diff` before committing it.
//!
//! Expected text stays next to its input in the test source, and a file
//! with several mismatching tests is rewritten once per test, each patch
//! applied to the original text.

mod bless;
mod diff;

pub use diff::line_diff;

/// The environment variable that turns mismatches into rewrites.
pub const BLESS_VAR: &str = "MAJIT_BLESS";

/// An expected text and where its literal stands in the source.
#[derive(Copy, Clone, Debug)]
pub struct Expect {
    /// `file!()` of the [`expect!`](crate::expect!) invocation.
    pub file: &'static str,
    /// `line!()` of the invocation (1-based).
    pub line: u32,
    /// `column!()` of the invocation (1-based, in characters).
    pub column: u32,
    /// The literal as written.
    pub data: &'static str,
}

/// An [`Expect`] of the string literal given, located at the invocation.
#[macro_export]
macro_rules! expect {
    [$data:literal] => {
        $crate::testing::Expect {
            file: file!(),
            line: line!(),
            column: column!(),
            data: $data,
        }
    };
}

impl Expect {
    /// The expected text: the literal, dedented.
    pub fn text(&self) -> String {
        dedent(self.data)
    }

    /// Passes when `actual` (trailing whitespace ignored) is the expected
    /// text; otherwise blesses or fails, see the module docs.
    #[track_caller]
    pub fn assert_eq(&self, actual: &str) {
        let want = self.text();
        let got = actual.trim_end();
        if got != want {
            self.mismatch(got, &want);
        }
    }

    /// The test found `actual` where it expected `expected` (both as the
    /// test renders them): rewrites the literal under `MAJIT_BLESS`,
    /// otherwise panics with their diff. For tests that compare modulo
    /// something (renaming, order) and so decide equality themselves.
    #[track_caller]
    pub fn mismatch(&self, actual: &str, expected: &str) {
        if blessing() {
            if let Err(e) = bless::rewrite(self, actual.trim_end()) {
                panic!(
                    "{BLESS_VAR}: cannot rewrite {}:{}: {e}",
                    self.file, self.line
                );
            }
            return;
        }
        panic!("{}", self.report(actual, expected));
    }

    /// The failure message of a mismatch: the place, how to bless, the diff.
    pub fn report(&self, actual: &str, expected: &str) -> String {
        format!(
            "text differs from the expectation at {}:{} \
             (rerun with {BLESS_VAR}=1 to accept the new text):\n{}",
            self.file,
            self.line,
            line_diff(expected, actual)
        )
    }
}

/// Whether `MAJIT_BLESS` asks for rewrites (set, and not `0` or empty).
pub fn blessing() -> bool {
    std::env::var(BLESS_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `text` without its first line when that is blank, without trailing
/// whitespace, and without the indentation all its non-blank lines share.
pub fn dedent(text: &str) -> String {
    let text = text.trim_end();
    let text = match text.split_once('\n') {
        Some((first, rest)) if first.trim().is_empty() => rest,
        _ => text,
    };
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedent_strips_the_shared_indentation() {
        assert_eq!(dedent("\n    a\n      b\n\n    c\n  "), "a\n  b\n\nc");
        assert_eq!(dedent("a\nb"), "a\nb");
        assert_eq!(dedent(""), "");
    }

    #[test]
    fn equal_text_passes_and_records_the_call_site() {
        let e = expect![
            "
            one
            two"
        ];
        e.assert_eq("one\ntwo\n");
        assert_eq!((e.file, e.line), (file!(), line!() - 6));
    }

    #[test]
    fn a_mismatch_names_the_place_and_shows_the_diff() {
        let e = expect!["one\ntwo"];
        let msg = e.report("one\nthree", &e.text());
        assert!(msg.contains(file!()) && msg.contains(BLESS_VAR), "{msg}");
        assert!(msg.contains("-two") && msg.contains("+three"), "{msg}");
    }
}
