//! Reading a program text through the code space's limits.
//!
//! [`read`] checks every chunk as it arrives: UTF-8 (so `/dev/urandom` is
//! refused at its first bad byte), the byte limit, the number of syllables
//! and the bounding box ([`Extent`]), so an endless or huge input stops with
//! [`Error::TooLarge`] after at most [`MAX_BYTES`] bytes instead of being
//! read whole first. [`crate::code::CodeSpace::build`] applies the same
//! [`Extent`] to a text it is given directly.

use crate::code::{MAX_AREA, MAX_SYLLABLES};
use crate::decode::decode;
use crate::error::{Error, Result};
use std::io::{ErrorKind, Read};

/// Most bytes a program text may have: room for [`MAX_SYLLABLES`]
/// syllables of 3 bytes each.
pub const MAX_BYTES: usize = 1 << 26;

/// How much of the code space a text spans so far, checked against
/// [`MAX_SYLLABLES`] and [`MAX_AREA`] after every code point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extent {
    /// Rows begun (a text has at least one, maybe empty).
    pub rows: usize,
    /// The longest row in code points.
    pub width: usize,
    /// Code points in the current row.
    row_len: usize,
    /// Syllables seen.
    pub syllables: usize,
}

impl Default for Extent {
    fn default() -> Self {
        Extent {
            rows: 1,
            width: 0,
            row_len: 0,
            syllables: 0,
        }
    }
}

impl Extent {
    /// Accounts for the next code point; an error as soon as the text has
    /// more than [`MAX_SYLLABLES`] syllables or its bounding box (rows ×
    /// the longest row, at least one column) more than [`MAX_AREA`] cells.
    pub fn add(&mut self, ch: char) -> Result<()> {
        if ch == '\n' {
            self.rows += 1;
            self.row_len = 0;
        } else {
            self.row_len += 1;
            self.width = self.width.max(self.row_len);
            if decode(ch).is_some() {
                self.syllables += 1;
                if self.syllables > MAX_SYLLABLES {
                    return Err(Error::TooLarge(format!(
                        "more than {MAX_SYLLABLES} syllables"
                    )));
                }
            }
        }
        if self.rows.saturating_mul(self.width.max(1)) > MAX_AREA {
            return Err(Error::TooLarge(format!(
                "{} rows × {} columns is more than {MAX_AREA} cells",
                self.rows,
                self.width.max(1)
            )));
        }
        Ok(())
    }

    /// The extent of a whole text.
    pub fn of(text: &str) -> Result<Extent> {
        let mut extent = Extent::default();
        text.chars().try_for_each(|ch| extent.add(ch))?;
        Ok(extent)
    }
}

/// Reads a program text from `input` (named `path` in errors), checking
/// UTF-8 and the limits while reading.
///
/// ```
/// use aheui::{error::Error, source::read};
/// assert_eq!(read(&b"\xed\x9d\xac"[..], "-").unwrap(), "희");
/// let bad = read(&b"\xed\x9d\xac\xff and more"[..], "-");
/// assert!(matches!(bad, Err(Error::NotUtf8 { offset: 3, .. })));
/// ```
pub fn read(mut input: impl Read, path: &str) -> Result<String> {
    let mut text = String::new();
    let mut extent = Extent::default();
    let mut pending = Vec::new(); // read, not yet in `text`: at most a split sequence
    let mut chunk = vec![0; 1 << 16];
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(Error::Open {
                    path: path.to_string(),
                    source,
                })
            }
        };
        if text.len() + pending.len() + n > MAX_BYTES {
            return Err(Error::TooLarge(format!("more than {MAX_BYTES} bytes")));
        }
        pending.extend_from_slice(&chunk[..n]);
        let valid = match std::str::from_utf8(&pending) {
            Ok(s) => s.len(),
            // A sequence cut by the chunk's end completes with the next.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => return Err(not_utf8(path, text.len() + e.valid_up_to())),
        };
        let new = std::str::from_utf8(&pending[..valid]).expect("checked above");
        new.chars().try_for_each(|ch| extent.add(ch))?;
        text.push_str(new);
        pending.drain(..valid);
    }
    match pending.is_empty() {
        true => Ok(text),
        false => Err(not_utf8(path, text.len())),
    }
}

fn not_utf8(path: &str, offset: usize) -> Error {
    Error::NotUtf8 {
        path: path.to_string(),
        offset,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Yields `byte` forever and counts what was read.
    struct Endless {
        byte: u8,
        read: usize,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(self.byte);
            self.read += buf.len();
            Ok(buf.len())
        }
    }

    /// The error of reading `prefix` then `byte` forever; the bytes of
    /// `byte` read.
    fn endless(prefix: &str, byte: u8) -> (Error, usize) {
        let mut input = Endless { byte, read: 0 };
        let e = read(prefix.as_bytes().chain(&mut input), "-").unwrap_err();
        (e, input.read)
    }

    #[test]
    fn sequences_split_between_chunks_are_joined() {
        // 65535 ASCII bytes, then 희 across the chunk boundary.
        let mut bytes = vec![b'#'; (1 << 16) - 1];
        bytes.extend("희\n아".as_bytes());
        let text = read(&bytes[..], "p").unwrap();
        assert!(text.ends_with("희\n아"));
        let cut = &bytes[..1 << 16]; // 희 cut after its first byte
        assert!(matches!(
            read(cut, "p"),
            Err(Error::NotUtf8 { offset, .. }) if offset == (1 << 16) - 1
        ));
    }

    #[test]
    fn endless_inputs_stop_at_a_limit() {
        // Not UTF-8: the first chunk is enough.
        let (e, n) = endless("", 0xff);
        assert!(matches!(e, Error::NotUtf8 { offset: 0, .. }), "{e}");
        assert_eq!(n, 1 << 16);
        // A wide row, then rows: the bounding box grows past the limit.
        let (e, n) = endless(&"x".repeat(1 << 15), b'\n');
        assert!(e.to_string().contains("8193 rows × 32768 columns"), "{e}");
        assert!(n <= 1 << 16, "{n}"); // one chunk
                                      // Blank rows or an endless row of blanks: the byte limit.
        for byte in [b'\n', b' '] {
            let (e, n) = endless("", byte);
            assert!(e.to_string().contains("more than 67108864 bytes"), "{e}");
            assert!(n <= MAX_BYTES + (1 << 16), "{n}");
        }
    }

    #[test]
    fn syllables_are_counted_while_reading() {
        let mut extent = Extent::default();
        let text = "가".repeat(MAX_SYLLABLES + 1);
        let e = text.chars().try_for_each(|ch| extent.add(ch)).unwrap_err();
        assert!(
            e.to_string().contains("more than 16777216 syllables"),
            "{e}"
        );
        assert_eq!(Extent::of("가\n\n나다").unwrap().rows, 3);
    }
}
