//! Program input and output (LANGUAGE.md §10).
//!
//! Input is one byte stream shared by number and character reads, read
//! through a [`BufRead`] so a read can look one byte ahead without
//! consuming it. Output goes through a buffered writer; the interpreter
//! flushes it before every read (so prompts appear) and at the end.
//!
//! Defined behaviour where the language leaves it open:
//! * Number input: an optional `-`, then one or more ASCII digits, then one
//!   space, tab or LF is consumed if present. No leading whitespace, no `+`.
//!   Anything else (including EOF), or more than [`MAX_DIGITS`] digits, is
//!   a [`NumberInputError`] — the reference interpreter aborts there too;
//!   the interpreter reports it and exits.
//! * Character input: one UTF-8 sequence → its code point. EOF → −1. A
//!   malformed sequence → −1, consuming its maximal invalid prefix (an
//!   invalid lead byte alone, or a valid lead with the continuation bytes
//!   that fit), so the next read starts at the first byte that did not fit.

use crate::int::{parse_decimal, Int};
use std::io::{self, BufRead, Write};

/// Why a number could not be read.
#[derive(Debug)]
pub enum NumberInputError {
    /// The stream ended before a digit.
    Eof,
    /// A byte that cannot start (or continue after `-`) a number.
    NotADigit(u8),
    /// More than [`MAX_DIGITS`] digits.
    TooLong,
    /// Reading stdin failed.
    Io(io::Error),
}

/// Most digits a number read from stdin may have (below `int::MAX_BITS`).
pub const MAX_DIGITS: usize = 100_000;

/// The program's stdin.
pub struct Input<R: BufRead> {
    reader: R,
}

impl<R: BufRead> Input<R> {
    /// Wraps a buffered reader.
    pub fn new(reader: R) -> Self {
        Input { reader }
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        loop {
            match self.reader.fill_buf() {
                Ok(buf) => return Ok(buf.first().copied()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn consume(&mut self) {
        self.reader.consume(1);
    }

    /// Reads a number for ㅂ+ㅇ.
    ///
    /// ```
    /// use aheui::io::Input;
    /// use aheui::int::Int;
    /// let mut input = Input::new(&b"-42\n7"[..]);
    /// assert_eq!(input.read_number().unwrap(), Int::Small(-42));
    /// assert_eq!(input.read_number().unwrap(), Int::Small(7));
    /// assert!(input.read_number().is_err()); // EOF
    /// ```
    pub fn read_number(&mut self) -> Result<Int, NumberInputError> {
        let mut text = String::new();
        if self.peek().map_err(NumberInputError::Io)? == Some(b'-') {
            self.consume();
            text.push('-');
        }
        while let Some(byte) = self.peek().map_err(NumberInputError::Io)? {
            if !byte.is_ascii_digit() {
                break;
            }
            if text.len() > MAX_DIGITS {
                return Err(NumberInputError::TooLong);
            }
            self.consume();
            text.push(byte as char);
        }
        if text.len() == usize::from(text.starts_with('-')) {
            return Err(match self.peek().map_err(NumberInputError::Io)? {
                None => NumberInputError::Eof,
                Some(byte) => NumberInputError::NotADigit(byte),
            });
        }
        if matches!(
            self.peek().map_err(NumberInputError::Io)?,
            Some(b' ' | b'\t' | b'\n')
        ) {
            self.consume();
        }
        // The text is `-?[0-9]+`, which always parses.
        parse_decimal(&text).ok_or(NumberInputError::Eof)
    }

    /// Reads a character for ㅂ+ㅎ: its code point, or −1 at EOF or on a
    /// malformed sequence (see the module doc).
    ///
    /// ```
    /// use aheui::io::Input;
    /// let mut input = Input::new("가a".as_bytes());
    /// assert_eq!(input.read_char().unwrap(), 0xAC00);
    /// assert_eq!(input.read_char().unwrap(), 'a' as i64);
    /// assert_eq!(input.read_char().unwrap(), -1);
    /// ```
    pub fn read_char(&mut self) -> io::Result<i64> {
        let Some(lead) = self.peek()? else {
            return Ok(-1);
        };
        self.consume();
        let (len, mut code) = match lead {
            0x00..=0x7F => return Ok(i64::from(lead)),
            0xC2..=0xDF => (2, u32::from(lead & 0x1F)),
            0xE0..=0xEF => (3, u32::from(lead & 0x0F)),
            0xF0..=0xF4 => (4, u32::from(lead & 0x07)),
            _ => return Ok(-1),
        };
        for i in 1..len {
            // The second byte's range depends on the lead (no overlongs,
            // no surrogates, nothing past U+10FFFF).
            let range = match (lead, i) {
                (0xE0, 1) => 0xA0..=0xBF,
                (0xED, 1) => 0x80..=0x9F,
                (0xF0, 1) => 0x90..=0xBF,
                (0xF4, 1) => 0x80..=0x8F,
                _ => 0x80..=0xBF,
            };
            match self.peek()? {
                Some(byte) if range.contains(&byte) => {
                    self.consume();
                    code = (code << 6) | u32::from(byte & 0x3F);
                }
                _ => return Ok(-1),
            }
        }
        Ok(i64::from(code))
    }
}

/// The program's stdout.
pub struct Output<W: Write> {
    writer: io::BufWriter<W>,
}

impl<W: Write> Output<W> {
    /// Wraps a writer with a buffer.
    pub fn new(writer: W) -> Self {
        Output {
            writer: io::BufWriter::with_capacity(1 << 16, writer),
        }
    }

    /// ㅁ+ㅇ: the value in decimal, nothing else.
    pub fn print_number(&mut self, value: &Int) -> io::Result<()> {
        write!(self.writer, "{value}")
    }

    /// ㅁ+ㅎ: the value as a UTF-8 character (U+FFFD if it is not one).
    pub fn print_char(&mut self, value: &Int) -> io::Result<()> {
        let mut buf = [0u8; 4];
        self.writer
            .write_all(value.to_char().encode_utf8(&mut buf).as_bytes())
    }

    /// Pushes buffered output to the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(bytes: &[u8]) -> Vec<i64> {
        let mut input = Input::new(bytes);
        let mut out = Vec::new();
        loop {
            let at_end = input.peek().unwrap().is_none();
            out.push(input.read_char().unwrap());
            if at_end {
                return out;
            }
        }
    }

    #[test]
    fn characters_decode_utf8_of_every_length() {
        assert_eq!(
            chars("a\u{e9}가😄".as_bytes()),
            vec![97, 0xE9, 0xAC00, 0x1F604, -1]
        );
    }

    #[test]
    fn malformed_characters_are_minus_one_and_resynchronise() {
        // Stray continuation, truncated 3-byte sequence before 'a', invalid
        // lead 0xFF, overlong lead 0xC0, encoded surrogate.
        assert_eq!(chars(&[0x80, b'x']), vec![-1, 120, -1]);
        assert_eq!(chars(&[0xEA, 0xB0, b'a']), vec![-1, 97, -1]);
        assert_eq!(chars(&[0xFF, 0xC0, 0xAF]), vec![-1, -1, -1, -1]);
        assert_eq!(chars(&[0xED, 0xA0, 0x80]), vec![-1, -1, -1, -1]);
        // Truncated at EOF.
        assert_eq!(chars(&[0xF0, 0x9F]), vec![-1, -1]);
    }

    #[test]
    fn numbers_take_sign_digits_and_one_separator() {
        let mut input = Input::new(&b"12 34\t-5\n\n6x99999999999999999999"[..]);
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push(input.read_number().unwrap().to_string());
        }
        assert_eq!(got, ["12", "34", "-5"]);
        // The second LF is not skipped.
        assert!(matches!(
            input.read_number(),
            Err(NumberInputError::NotADigit(b'\n'))
        ));
        input.consume();
        assert_eq!(input.read_number().unwrap(), Int::Small(6));
        // 'x' is left in place.
        assert_eq!(input.read_char().unwrap(), 'x' as i64);
        assert_eq!(
            input.read_number().unwrap().to_string(),
            "99999999999999999999"
        );
        assert!(matches!(input.read_number(), Err(NumberInputError::Eof)));
    }

    #[test]
    fn numbers_longer_than_the_limit_are_rejected() {
        let ok = "9".repeat(1000);
        assert!(Input::new(ok.as_bytes()).read_number().is_ok());
        let long = "9".repeat(MAX_DIGITS + 2);
        let r = Input::new(long.as_bytes()).read_number();
        assert!(matches!(r, Err(NumberInputError::TooLong)));
    }

    #[test]
    fn numbers_reject_plus_leading_space_and_bare_minus() {
        for text in ["+1", " 1", "-", "-x"] {
            let mut input = Input::new(text.as_bytes());
            assert!(input.read_number().is_err(), "{text:?}");
        }
    }

    #[test]
    fn output_writes_numbers_and_characters() {
        let mut bytes = Vec::new();
        let mut out = Output::new(&mut bytes);
        out.print_number(&Int::Small(-12)).unwrap();
        out.print_char(&Int::Small(0xD7A3)).unwrap();
        out.print_char(&Int::Small(0)).unwrap();
        out.flush().unwrap();
        drop(out);
        assert_eq!(bytes, "-12힣\u{FFFD}".as_bytes());
    }
}
