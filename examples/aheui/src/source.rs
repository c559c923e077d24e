//! Reading a program text through the code space's limits.
//!
//! [`read`] checks every chunk as it arrives: UTF-8 (so `/dev/urandom` is
//! refused at its first bad byte), the byte limit and the number of
//! syllables, so an endless or huge input stops with [`Error::TooLarge`]
//! after at most [`MAX_BYTES`] bytes instead of being read whole first.
//! [`crate::code::CodeSpace::build`] applies the same limits ([`check`]) to
//! a text it is given directly.

use crate::code::MAX_SYLLABLES;
use crate::decode::decode;
use crate::error::{Error, Result};
use std::io::{ErrorKind, Read};

/// Most bytes a program text may have: room for [`MAX_SYLLABLES`]
/// syllables of 3 bytes each.
pub const MAX_BYTES: usize = 1 << 26;

/// The syllables of a text, counted against [`MAX_SYLLABLES`] chunk by
/// chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Syllables(usize);

impl Syllables {
    /// Counts the syllables of the next chunk; an error once the text has
    /// more than [`MAX_SYLLABLES`].
    pub fn add(&mut self, chunk: &str) -> Result<()> {
        self.0 += chunk.chars().filter(|&ch| decode(ch).is_some()).count();
        match self.0 > MAX_SYLLABLES {
            true => Err(Error::TooLarge(format!(
                "more than {MAX_SYLLABLES} syllables"
            ))),
            false => Ok(()),
        }
    }
}

/// Checks a whole text against [`MAX_BYTES`] and [`MAX_SYLLABLES`].
pub fn check(text: &str) -> Result<()> {
    if text.len() > MAX_BYTES {
        return Err(Error::TooLarge(format!("more than {MAX_BYTES} bytes")));
    }
    Syllables::default().add(text)
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
    let mut syllables = Syllables::default();
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
        syllables.add(new)?;
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
        // Blank rows or an endless row of blanks: the byte limit.
        for byte in [b'\n', b' '] {
            let (e, n) = endless("", byte);
            assert!(e.to_string().contains("more than 67108864 bytes"), "{e}");
            assert!(n <= MAX_BYTES + (1 << 16), "{n}");
        }
    }

    #[test]
    fn syllables_are_counted_while_reading() {
        let text = "가".repeat(MAX_SYLLABLES + 1);
        let e = read(text.as_bytes(), "p").unwrap_err();
        assert!(
            e.to_string().contains("more than 16777216 syllables"),
            "{e}"
        );
        assert!(check(&text[3..]).is_ok());
    }
}
