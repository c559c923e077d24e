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
