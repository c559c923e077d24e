//! The errors of majit-ir: [`ParseError`] for trace text, [`VerifyErrors`]
//! for traces that break the IR's rules.
//!
//! Who acts on them: a `ParseError` is the test or tool author's (the text
//! is wrong); a `VerifyError` after a pass is a bug in that pass (majit's
//! developers), and before any pass a bug in whoever built the trace.

use std::fmt;

/// Trace text that does not parse. `line` and `col` are 1-based; `col`
/// counts characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    /// What the parser wanted at that point.
    pub expected: String,
    /// What it saw instead.
    pub found: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, col {}: expected {}, found {}",
            self.line, self.col, self.expected, self.found
        )
    }
}

impl std::error::Error for ParseError {}

/// What rule a [`VerifyError`] breaks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VerifyErrorKind {
    /// An argument or fail arg names an op at or after the op using it.
    UseBeforeDef,
    /// A reference to an input, op or constant that does not exist, or to
    /// an op that has no result.
    BadRef,
    /// An argument of the wrong kind for the op's signature or call descr.
    ArgKind,
    /// The op's result kind disagrees with its field/array/call descr.
    ResultKind,
    /// Too few or too many arguments.
    Arity,
    /// A missing, unexpected or wrong-sort descriptor.
    Descr,
    /// Two different descriptors share a name, or a name cannot be printed.
    DescrName,
    /// Fail args missing on a guard or present elsewhere.
    FailArgs,
    /// An `*_ovf` op not followed by an overflow guard, or the reverse.
    Overflow,
    /// A `guard_exception` not followed by `save_exception_*`, or the
    /// reverse.
    Exception,
    /// The trace does not end with exactly one final op (`jump`/`finish`).
    Final,
    /// A `jump` whose arguments do not match its label's.
    JumpLabel,
    /// Two `label`s with the same target descr.
    DuplicateLabel,
    /// `guard_class`/`guard_nonnull_class` on a headerless allocation.
    HeaderlessClass,
}

/// One broken rule: which op, how it prints, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// Index into `trace.ops` (for trace-level problems, the last op, or 0
    /// for an empty trace).
    pub index: usize,
    /// The op as text, named as [`crate::print`] names it.
    pub op: String,
    pub kind: VerifyErrorKind,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "op {} `{}`: {}", self.index, self.op, self.message)
    }
}

/// Every error the verifier found in a trace, in op order (never empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl VerifyErrors {
    /// Whether some error is of `kind`.
    pub fn has(&self, kind: VerifyErrorKind) -> bool {
        self.0.iter().any(|e| e.kind == kind)
    }
}

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}
