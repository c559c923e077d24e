//! Everything that stops the interpreter other than ㅎ, with its exit code.
//!
//! A program's own exit status (from ㅎ) can be any of 0..=255, so no code
//! is free of overlap; the interpreter therefore always explains itself on
//! stderr (a line starting with `aheui: `) and uses the BSD `sysexits.h`
//! numbers so scripts can tell the classes apart:
//!
//! | code | class |
//! |---|---|
//! | 64 | usage: unknown flag, missing or bad flag value, no FILE |
//! | 65 | data: the program is not valid UTF-8 or too large; a bad `MAJIT_*` variable |
//! | 66 | input: the program file cannot be opened or read (missing, a directory) |
//! | 70 | runtime: division/remainder by zero, an integer past 2^20 bits, unreadable number input, heap exhausted |
//! | 74 | I/O: writing stdout or reading stdin failed (e.g. a closed pipe or stdout), or `MAJIT_LOG` cannot be opened |

use crate::code::Position;
use crate::io::NumberInputError;
use std::fmt;
use std::io;

/// Exit code for command-line mistakes.
pub const EXIT_USAGE: u8 = 64;
/// Exit code for a program text that is not UTF-8 or bad environment.
pub const EXIT_DATA: u8 = 65;
/// Exit code for a program file that cannot be read.
pub const EXIT_NO_INPUT: u8 = 66;
/// Exit code for a run-time error of the Aheui program.
pub const EXIT_RUNTIME: u8 = 70;
/// Exit code for a failure to read stdin, write stdout or open the JIT log.
pub const EXIT_IO: u8 = 74;

/// Why the interpreter stopped without ㅎ.
#[derive(Debug)]
pub enum Error {
    /// Bad command line; the message says what and how to fix it.
    Usage(String),
    /// Bad `MAJIT_*` environment variable.
    Env(String),
    /// The program file could not be read.
    Open {
        /// The path as given (`-` for stdin).
        path: String,
        /// What the OS said.
        source: io::Error,
    },
    /// The program exceeds the code space limits (`code::MAX_*`).
    TooLarge(String),
    /// The program text is not UTF-8.
    NotUtf8 {
        /// The path as given.
        path: String,
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// ㄴ or ㄹ with a zero divisor.
    DivisionByZero {
        /// The cell that divided.
        at: Position,
    },
    /// A result beyond `int::MAX_BITS`.
    IntegerTooLarge {
        /// The cell that computed it.
        at: Position,
    },
    /// ㅂ+ㅇ found no number on stdin.
    NumberInput {
        /// The cell that read.
        at: Position,
        /// What was there instead.
        cause: NumberInputError,
    },
    /// The storages could not grow.
    Heap(String),
    /// Reading stdin or writing stdout failed.
    Io(io::Error),
    /// The JIT's log file (`MAJIT_LOG`) cannot be opened for appending.
    Log {
        /// The path as given.
        path: String,
        /// What the OS said.
        source: io::Error,
    },
    /// The JIT could not be set up or failed (a bug of majit, not of the
    /// program).
    Jit(String),
}

impl Error {
    /// The process exit code for this error (see the module doc).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => EXIT_USAGE,
            Error::Env(_) | Error::NotUtf8 { .. } | Error::TooLarge(_) => EXIT_DATA,
            Error::Open { .. } => EXIT_NO_INPUT,
            Error::DivisionByZero { .. }
            | Error::IntegerTooLarge { .. }
            | Error::NumberInput { .. }
            | Error::Heap(_)
            | Error::Jit(_) => EXIT_RUNTIME,
            Error::Io(_) | Error::Log { .. } => EXIT_IO,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.row + 1, self.col + 1)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) => write!(f, "{msg} (try --help)"),
            Error::Env(msg) => write!(f, "environment: {msg}"),
            Error::Open { path, source } => write!(f, "cannot read program {path:?}: {source}"),
            Error::NotUtf8 { path, offset } => {
                write!(f, "program {path:?} is not valid UTF-8 (byte offset {offset})")
            }
            Error::TooLarge(msg) => write!(f, "program too large: {msg}"),
            Error::DivisionByZero { at } => write!(f, "division by zero at {at}"),
            Error::IntegerTooLarge { at } => write!(
                f,
                "integer result at {at} exceeds {} bits",
                crate::int::MAX_BITS
            ),
            Error::NumberInput { at, cause } => match cause {
                NumberInputError::Eof => {
                    write!(f, "number input at {at}: end of input, expected a number")
                }
                NumberInputError::NotADigit(b) => write!(
                    f,
                    "number input at {at}: expected an optional '-' and digits, found byte 0x{b:02x}"
                ),
                NumberInputError::TooLong => write!(
                    f,
                    "number input at {at}: more than {} digits",
                    crate::io::MAX_DIGITS
                ),
                NumberInputError::Io(e) => write!(f, "number input at {at}: {e}"),
            },
            Error::Heap(msg) => write!(f, "{msg}"),
            Error::Jit(msg) => write!(f, "JIT: {msg}"),
            Error::Io(e) => write!(f, "I/O error: {e}"),
            Error::Log { path, source } => {
                write!(f, "cannot open the JIT log MAJIT_LOG={path:?}: {source}")
            }
        }
    }
}

impl std::error::Error for Error {}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_place() {
        let e = Error::DivisionByZero {
            at: Position { row: 2, col: 0 },
        };
        assert_eq!(e.to_string(), "division by zero at line 3, column 1");
        assert_eq!(e.exit_code(), EXIT_RUNTIME);
        let e = Error::NotUtf8 {
            path: "x.aheui".into(),
            offset: 4,
        };
        assert_eq!(
            e.to_string(),
            "program \"x.aheui\" is not valid UTF-8 (byte offset 4)"
        );
        assert_eq!(e.exit_code(), EXIT_DATA);
    }
}
