//! Lua 5.4 tokens, and the lexer that cuts a source (a byte string) into
//! them.
//!
//! The lexer reproduces what `lua5.4` observably does: `\n`, `\r`, `\r\n`
//! and `\n\r` each end one line; numerals convert like `tonumber` (decimal
//! integers that overflow become floats, hexadecimal ones wrap around);
//! strings decode every escape; long brackets drop a first newline. Its
//! errors have `lua5.4`'s wording, including the `near` part, which shows a
//! token as `lua5.4`'s lexer buffer held it: a numeral's text, a string's
//! delimiters around its *decoded* contents so far.

use std::fmt;

/// A syntax error, lexical or grammatical, as `lua5.4` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// The chunk's display name (see [`crate::parse::chunk_id`]).
    pub chunk: String,
    /// The line the lexer had reached, as `lua5.4` counts it.
    pub line: u32,
    /// What went wrong, usually ending in `near <token>`.
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.chunk, self.line, self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// A token of Lua 5.4.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// `and`
    And,
    /// `break`
    Break,
    /// `do`
    Do,
    /// `else`
    Else,
    /// `elseif`
    Elseif,
    /// `end`
    End,
    /// `false`
    False,
    /// `for`
    For,
    /// `function`
    Function,
    /// `goto`
    Goto,
    /// `if`
    If,
    /// `in`
    In,
    /// `local`
    Local,
    /// `nil`
    Nil,
    /// `not`
    Not,
    /// `or`
    Or,
    /// `repeat`
    Repeat,
    /// `return`
    Return,
    /// `then`
    Then,
    /// `true`
    True,
    /// `until`
    Until,
    /// `while`
    While,
    /// `//`
    IDiv,
    /// `..`
    Concat,
    /// `...`
    Dots,
    /// `==`
    Eq,
    /// `>=`
    Ge,
    /// `<=`
    Le,
    /// `~=`
    Ne,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `::`
    DbColon,
    /// The end of the source.
    Eof,
    /// A float numeral's value.
    Float(f64),
    /// An integer numeral's value.
    Int(i64),
    /// A name (identifier): ASCII letters, digits and `_`, not a digit first.
    Name(String),
    /// A string literal's decoded bytes.
    Str(Vec<u8>),
    /// Any other single byte: `+`, `(`, ... but also a stray `@` or `\x80`,
    /// which only the parser rejects (as `lua5.4` does).
    Char(u8),
}

/// The reserved words and multi-byte symbols, with their source text.
const FIXED: [(&str, Token); 32] = [
    ("and", Token::And),
    ("break", Token::Break),
    ("do", Token::Do),
    ("else", Token::Else),
    ("elseif", Token::Elseif),
    ("end", Token::End),
    ("false", Token::False),
    ("for", Token::For),
    ("function", Token::Function),
    ("goto", Token::Goto),
    ("if", Token::If),
    ("in", Token::In),
    ("local", Token::Local),
    ("nil", Token::Nil),
    ("not", Token::Not),
    ("or", Token::Or),
    ("repeat", Token::Repeat),
    ("return", Token::Return),
    ("then", Token::Then),
    ("true", Token::True),
    ("until", Token::Until),
    ("while", Token::While),
    ("//", Token::IDiv),
    ("..", Token::Concat),
    ("...", Token::Dots),
    ("==", Token::Eq),
    (">=", Token::Ge),
    ("<=", Token::Le),
    ("~=", Token::Ne),
    ("<<", Token::Shl),
    (">>", Token::Shr),
    ("::", Token::DbColon),
];

impl Token {
    /// The token's kind as `lua5.4` names it in `... expected` messages:
    /// `'end'`, `'('`, `'<\128>'` (an unprintable byte), `<eof>`, `<name>`,
    /// `<string>`, `<integer>`, `<number>`.
    pub fn describe(&self) -> String {
        match self {
            Token::Eof => "<eof>".into(),
            Token::Float(_) => "<number>".into(),
            Token::Int(_) => "<integer>".into(),
            Token::Name(_) => "<name>".into(),
            Token::Str(_) => "<string>".into(),
            Token::Char(c @ b' '..=b'~') => format!("'{}'", *c as char),
            Token::Char(c) => format!("'<\\{c}>'"),
            fixed => {
                let (text, _) = FIXED
                    .iter()
                    .find(|(_, t)| t == fixed)
                    .expect("every other token is fixed");
                format!("'{text}'")
            }
        }
    }
}

/// A token with where it lies in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Lexeme {
    /// The token.
    pub token: Token,
    /// The line the token ends on (a long string can span lines); `lua5.4`
    /// attributes a token to this line too.
    pub line: u32,
    /// Byte offset of the token's first byte.
    pub start: usize,
}

/// `lua5.4` counts lines in an `int` and gives up before it overflows.
const MAX_LINE: u32 = i32::MAX as u32;

/// The lexer: hands out [`Lexeme`]s one at a time.
pub struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
    line: u32,
    chunk: &'s str,
}

impl<'s> Lexer<'s> {
    /// A lexer at the start of `src`, naming `chunk` in its errors. With
    /// `skip_shebang` (for script files, as `lua5.4` loads them) a UTF-8 byte
    /// order mark and then a first line starting with `#` are skipped; the
    /// line's newline stays, so line numbers are unchanged.
    pub fn new(src: &'s [u8], chunk: &'s str, skip_shebang: bool) -> Self {
        let mut pos = 0;
        if skip_shebang {
            if src.starts_with(b"\xEF\xBB\xBF") {
                pos = 3;
            }
            if src.get(pos) == Some(&b'#') {
                pos += src[pos..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(src.len() - pos);
            }
        }
        Lexer {
            src,
            pos,
            line: 1,
            chunk,
        }
    }

    /// The line the lexer has reached: where the last token it handed out
    /// ends. `lua5.4` dates its syntax errors with this line.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// An error at the current line, with `message` as is (no `near`).
    pub fn error(&self, message: String) -> SyntaxError {
        SyntaxError {
            chunk: self.chunk.to_string(),
            line: self.line,
            message,
        }
    }

    /// How `lua5.4` shows `lexeme` after `near`: a name, string or numeral
    /// quoted as its lexer buffer held it, other tokens as
    /// [`Token::describe`]. `None` for a NUL byte, which `lua5.4` cannot
    /// show and leaves out.
    pub fn near(&self, lexeme: &Lexeme) -> Option<String> {
        let text = match &lexeme.token {
            Token::Char(0) => return None,
            Token::Name(name) => name.as_bytes().to_vec(),
            Token::Int(_) | Token::Float(_) => {
                let len = numeral_len(&self.src[lexeme.start..]);
                self.src[lexeme.start..lexeme.start + len].to_vec()
            }
            Token::Str(value) => self.delimited(lexeme.start, value),
            other => return Some(other.describe()),
        };
        Some(quote(&text))
    }

    /// A string's decoded `value` between the delimiters found at `start`.
    fn delimited(&self, start: usize, value: &[u8]) -> Vec<u8> {
        let quote = self.src[start];
        let (open, close) = match quote {
            b'[' => {
                let equals = "=".repeat(self.equals_at(start + 1));
                (format!("[{equals}["), format!("]{equals}]"))
            }
            _ => ((quote as char).to_string(), (quote as char).to_string()),
        };
        [open.as_bytes(), value, close.as_bytes()].concat()
    }

    /// The next token.
    pub fn next_lexeme(&mut self) -> Result<Lexeme, SyntaxError> {
        loop {
            let start = self.pos;
            let Some(c) = self.peek() else {
                return Ok(Lexeme {
                    token: Token::Eof,
                    line: self.line,
                    start,
                });
            };
            let token = match c {
                b'\n' | b'\r' => {
                    self.new_line()?;
                    continue;
                }
                b' ' | b'\t' | 0x0b | 0x0c => {
                    self.pos += 1;
                    continue;
                }
                b'-' if self.peek_at(1) == Some(b'-') => {
                    self.comment()?;
                    continue;
                }
                b'[' => self.open_bracket()?,
                b'"' | b'\'' => self.short_string(c)?,
                b'.' if self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => self.numeral()?,
                b'0'..=b'9' => self.numeral()?,
                c if is_alpha(c) => self.name(),
                _ => self.symbol(c),
            };
            return Ok(Lexeme {
                token,
                line: self.line,
                start,
            });
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.pos + ahead).copied()
    }

    /// Skips a line break at `pos`: one of `\n`, `\r`, `\r\n`, `\n\r`.
    fn new_line(&mut self) -> Result<(), SyntaxError> {
        let first = self.src[self.pos];
        self.pos += 1;
        if matches!(self.peek(), Some(c @ (b'\n' | b'\r')) if c != first) {
            self.pos += 1;
        }
        self.line += 1;
        if self.line >= MAX_LINE {
            return Err(self.error("chunk has too many lines".into()));
        }
        Ok(())
    }

    /// An error whose `near` part is `text`, quoted.
    fn error_near(&self, message: &str, text: &[u8]) -> SyntaxError {
        self.error(format!("{message} near {}", quote(text)))
    }

    fn error_near_eof(&self, message: &str) -> SyntaxError {
        self.error(format!("{message} near <eof>"))
    }

    /// A single-byte token, or one of the two- and three-byte symbols it
    /// starts.
    fn symbol(&mut self, c: u8) -> Token {
        let two = match (c, self.peek_at(1)) {
            (b'=', Some(b'=')) => Some(Token::Eq),
            (b'<', Some(b'=')) => Some(Token::Le),
            (b'<', Some(b'<')) => Some(Token::Shl),
            (b'>', Some(b'=')) => Some(Token::Ge),
            (b'>', Some(b'>')) => Some(Token::Shr),
            (b'/', Some(b'/')) => Some(Token::IDiv),
            (b'~', Some(b'=')) => Some(Token::Ne),
            (b':', Some(b':')) => Some(Token::DbColon),
            (b'.', Some(b'.')) if self.peek_at(2) == Some(b'.') => {
                self.pos += 3;
                return Token::Dots;
            }
            (b'.', Some(b'.')) => Some(Token::Concat),
            _ => None,
        };
        match two {
            Some(token) => {
                self.pos += 2;
                token
            }
            None => {
                self.pos += 1;
                Token::Char(c)
            }
        }
    }

    fn name(&mut self) -> Token {
        let start = self.pos;
        while self.peek().is_some_and(is_alnum) {
            self.pos += 1;
        }
        let word = &self.src[start..self.pos];
        match FIXED.iter().find(|(text, _)| text.as_bytes() == word) {
            Some((_, reserved)) => reserved.clone(),
            None => Token::Name(word.iter().map(|&b| b as char).collect()),
        }
    }

    /// A numeral: `lua5.4` takes digits, `.`, exponent marks and their sign
    /// greedily, plus one touching letter, then converts the whole text or
    /// calls it malformed (so `3..2` and `3x` are errors, not two tokens).
    fn numeral(&mut self) -> Result<Token, SyntaxError> {
        let start = self.pos;
        self.pos += numeral_len(&self.src[start..]);
        let text = &self.src[start..self.pos];
        numeral_value(text).ok_or_else(|| self.error_near("malformed number", text))
    }

    /// The number of `=` from `at` on.
    fn equals_at(&self, at: usize) -> usize {
        self.src[at.min(self.src.len())..]
            .iter()
            .take_while(|&&b| b == b'=')
            .count()
    }

    /// At `[`: a long string, a plain `[`, or `[=` without its second `[`.
    fn open_bracket(&mut self) -> Result<Token, SyntaxError> {
        let level = self.equals_at(self.pos + 1);
        match self.peek_at(level + 1) {
            Some(b'[') => self.long_string(level, "string").map(Token::Str),
            _ if level == 0 => {
                self.pos += 1;
                Ok(Token::Char(b'['))
            }
            _ => Err(self.error_near(
                "invalid long string delimiter",
                &self.src[self.pos..self.pos + 1 + level],
            )),
        }
    }

    /// At `--`: a long comment if a long bracket follows, else the rest of
    /// the line.
    fn comment(&mut self) -> Result<(), SyntaxError> {
        self.pos += 2;
        if self.peek() == Some(b'[') {
            let level = self.equals_at(self.pos + 1);
            if self.peek_at(level + 1) == Some(b'[') {
                return self.long_string(level, "comment").map(drop);
            }
        }
        while !matches!(self.peek(), None | Some(b'\n' | b'\r')) {
            self.pos += 1;
        }
        Ok(())
    }

    /// The contents of a long bracket of `level` starting at `pos`; `what`
    /// (`string` or `comment`) names it in the unfinished error.
    fn long_string(&mut self, level: usize, what: &str) -> Result<Vec<u8>, SyntaxError> {
        let first_line = self.line;
        self.pos += level + 2;
        if matches!(self.peek(), Some(b'\n' | b'\r')) {
            self.new_line()?;
        }
        let mut value = Vec::new();
        loop {
            match self.peek() {
                None => {
                    let message = format!("unfinished long {what} (starting at line {first_line})");
                    return Err(self.error_near_eof(&message));
                }
                Some(b']')
                    if self.equals_at(self.pos + 1) == level
                        && self.peek_at(level + 1) == Some(b']') =>
                {
                    self.pos += level + 2;
                    return Ok(value);
                }
                Some(b'\n' | b'\r') => {
                    self.new_line()?;
                    value.push(b'\n');
                }
                Some(c) => {
                    self.pos += 1;
                    value.push(c);
                }
            }
        }
    }

    /// A string between `quote`s (`"` or `'`), escapes decoded.
    fn short_string(&mut self, quote: u8) -> Result<Token, SyntaxError> {
        self.pos += 1;
        let mut value = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.error_near_eof("unfinished string")),
                Some(b'\n' | b'\r') => {
                    return Err(
                        self.error_near("unfinished string", &[&[quote], &value[..]].concat())
                    );
                }
                Some(b'\\') => {
                    let escape = Escape {
                        quote,
                        value: &value,
                        start: self.pos,
                    };
                    if let Some(bytes) = self.escape(escape)? {
                        value.extend(bytes);
                    }
                }
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(Token::Str(value));
                }
                Some(c) => {
                    self.pos += 1;
                    value.push(c);
                }
            }
        }
    }

    /// At a backslash in a string: the bytes the escape stands for (`None`
    /// when it stands for nothing: `\z`, or a backslash at the end of the
    /// source, which the string then reports as unfinished).
    fn escape(&mut self, at: Escape) -> Result<Option<Vec<u8>>, SyntaxError> {
        self.pos += 1;
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let simple = match c {
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'\\' | b'"' | b'\'' => c,
            b'\n' | b'\r' => {
                self.new_line()?;
                return Ok(Some(vec![b'\n']));
            }
            b'x' => return self.hex_escape(&at).map(|b| Some(vec![b])),
            b'u' => return self.utf8_escape(&at).map(Some),
            b'z' => {
                self.skip_space()?;
                return Ok(None);
            }
            b'0'..=b'9' => return self.decimal_escape(&at).map(|b| Some(vec![b])),
            _ => return Err(self.escape_error(&at, "invalid escape sequence")),
        };
        self.pos += 1;
        Ok(Some(vec![simple]))
    }

    /// `lua5.4` shows a bad escape as the string so far, the escape's bytes
    /// read so far, and the byte where it found the problem.
    fn escape_error(&self, at: &Escape, message: &str) -> SyntaxError {
        let mut text = vec![at.quote];
        text.extend_from_slice(at.value);
        text.extend_from_slice(&self.src[at.start..self.pos]);
        text.extend(self.peek());
        self.error_near(message, &text)
    }

    /// The hex digit at `pos`, or the error `lua5.4` gives without one.
    fn hex_digit(&self, at: &Escape) -> Result<u8, SyntaxError> {
        match self.peek().and_then(hex_value) {
            Some(digit) => Ok(digit),
            None => Err(self.escape_error(at, "hexadecimal digit expected")),
        }
    }

    /// `\xXX`: exactly two hex digits.
    fn hex_escape(&mut self, at: &Escape) -> Result<u8, SyntaxError> {
        self.pos += 1;
        let high = self.hex_digit(at)?;
        self.pos += 1;
        let low = self.hex_digit(at)?;
        self.pos += 1;
        Ok(high << 4 | low)
    }

    /// `\ddd`: one to three decimal digits, at most 255.
    fn decimal_escape(&mut self, at: &Escape) -> Result<u8, SyntaxError> {
        let mut value = 0u32;
        for _ in 0..3 {
            match self.peek() {
                Some(d @ b'0'..=b'9') => value = value * 10 + u32::from(d - b'0'),
                _ => break,
            }
            self.pos += 1;
        }
        u8::try_from(value).map_err(|_| self.escape_error(at, "decimal escape too large"))
    }

    /// `\u{XXX}`: a code point below 2^31, encoded as (extended) UTF-8.
    fn utf8_escape(&mut self, at: &Escape) -> Result<Vec<u8>, SyntaxError> {
        self.pos += 1;
        if self.peek() != Some(b'{') {
            return Err(self.escape_error(at, "missing '{'"));
        }
        self.pos += 1;
        let mut code = u32::from(self.hex_digit(at)?);
        self.pos += 1;
        while let Some(digit) = self.peek().and_then(hex_value) {
            if code > 0x7FFF_FFFF >> 4 {
                return Err(self.escape_error(at, "UTF-8 value too large"));
            }
            code = code << 4 | u32::from(digit);
            self.pos += 1;
        }
        if self.peek() != Some(b'}') {
            return Err(self.escape_error(at, "missing '}'"));
        }
        self.pos += 1;
        Ok(utf8_encode(code))
    }

    /// After `\z`: skips white space, line breaks included.
    fn skip_space(&mut self) -> Result<(), SyntaxError> {
        self.pos += 1;
        loop {
            match self.peek() {
                Some(b'\n' | b'\r') => self.new_line()?,
                Some(b' ' | b'\t' | 0x0b | 0x0c) => self.pos += 1,
                _ => return Ok(()),
            }
        }
    }
}

/// Where an escape started, for its error message.
struct Escape<'v> {
    quote: u8,
    /// The string's decoded bytes before the escape.
    value: &'v [u8],
    /// The backslash's offset.
    start: usize,
}

fn is_alpha(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// `text` between single quotes, as `lua5.4` prints it after `near`: cut at
/// a NUL byte (it formats a C string); bytes that are not UTF-8 become
/// U+FFFD.
fn quote(text: &[u8]) -> String {
    let text = text.split(|&b| b == 0).next().unwrap_or_default();
    format!("'{}'", String::from_utf8_lossy(text))
}

/// The length of the numeral at the start of `src` (a digit, or `.` and a
/// digit), as `lua5.4` delimits it: a `0x` after a leading `.` still
/// switches to hexadecimal exponents (the result is malformed either way,
/// but the message shows the text so delimited).
fn numeral_len(src: &[u8]) -> usize {
    let first = usize::from(src[0] == b'.');
    let hex = src.get(first) == Some(&b'0') && matches!(src.get(first + 1), Some(b'x' | b'X'));
    let exponent: &[u8] = if hex { b"pP" } else { b"eE" };
    let mut len = first + if hex { 2 } else { 1 };
    while let Some(&c) = src.get(len) {
        if exponent.contains(&c) {
            len += 1;
            if matches!(src.get(len), Some(b'+' | b'-')) {
                len += 1;
            }
        } else if c.is_ascii_hexdigit() || c == b'.' {
            len += 1;
        } else {
            break;
        }
    }
    // A letter touching the numeral joins it, making it malformed.
    len + usize::from(src.get(len).is_some_and(|&c| is_alnum(c)))
}

/// The value of a numeral's text: an integer if it is one (hexadecimal
/// integers wrap around, decimal ones that overflow are floats), else a
/// float; `None` if malformed.
fn numeral_value(text: &[u8]) -> Option<Token> {
    if let Some(digits) = text
        .strip_prefix(b"0x")
        .or_else(|| text.strip_prefix(b"0X"))
    {
        let int = digits.iter().try_fold(0i64, |acc, &d| {
            Some(acc.wrapping_mul(16).wrapping_add(i64::from(hex_value(d)?)))
        });
        return match int {
            Some(value) if !digits.is_empty() => Some(Token::Int(value)),
            _ => hex_float(digits).map(Token::Float),
        };
    }
    if text.iter().all(u8::is_ascii_digit) {
        let value = text.iter().try_fold(0i64, |acc, &d| {
            acc.checked_mul(10)?.checked_add(i64::from(d - b'0'))
        });
        if let Some(value) = value {
            return Some(Token::Int(value));
        }
    }
    // The text holds only digits, `.`, `e`, signs and at most one letter, so
    // Rust's grammar for floats accepts exactly what C's strtod would.
    std::str::from_utf8(text)
        .ok()?
        .parse()
        .ok()
        .map(Token::Float)
}

/// The value of a hexadecimal float's text after `0x`: hex digits with an
/// optional `.`, then an optional binary exponent `p[+-]ddd`; rounded to
/// nearest, ties to even, like strtod.
fn hex_float(text: &[u8]) -> Option<f64> {
    let mantissa_len = text
        .iter()
        .position(|&c| matches!(c, b'p' | b'P'))
        .unwrap_or(text.len());
    let (mantissa, exponent) = text.split_at(mantissa_len);
    let (int_part, frac_part) = match mantissa.iter().position(|&c| c == b'.') {
        Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
        None => (mantissa, &[][..]),
    };
    if int_part.len() + frac_part.len() == 0 {
        return None;
    }
    // 60 bits of digits (15) are more than the 53 + rounding bits needed;
    // digits beyond only matter as being zero or not (`sticky`).
    let (mut bits, mut scale, mut sticky) = (0u64, 0i64, false);
    for (i, &c) in int_part.iter().chain(frac_part).enumerate() {
        let digit = u64::from(hex_value(c)?);
        let in_fraction = i >= int_part.len();
        if bits >> 60 == 0 {
            bits = bits << 4 | digit;
            scale -= 4 * i64::from(in_fraction);
        } else {
            sticky |= digit != 0;
            scale += 4 * i64::from(!in_fraction);
        }
    }
    if let Some(exponent) = exponent.get(1..) {
        let (negative, digits) = match exponent.split_first() {
            Some((b'-', rest)) => (true, rest),
            Some((b'+', rest)) => (false, rest),
            _ => (false, exponent),
        };
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        // Any exponent beyond 2^20 overflows or underflows anyway.
        let value = digits.iter().fold(0i64, |acc, &d| {
            (acc * 10 + i64::from(d - b'0')).min(1 << 20)
        });
        scale += if negative { -value } else { value };
    }
    Some(round_to_f64(bits, sticky, scale))
}

/// `bits * 2^scale` (plus a little more if `sticky`) rounded to the nearest
/// `f64`, ties to even, subnormals and overflow included.
fn round_to_f64(bits: u64, sticky: bool, scale: i64) -> f64 {
    if bits == 0 {
        return 0.0;
    }
    let shift = bits.leading_zeros();
    let bits = u128::from(bits << shift);
    // The value lies in [2^top, 2^(top + 1)).
    let mut top = scale - i64::from(shift) + 63;
    if top > 1023 {
        return f64::INFINITY;
    }
    // Keep 53 bits, fewer below the normal range.
    let drop = 11 + (-1022 - top).max(0);
    if drop > 64 {
        return 0.0; // below half the smallest subnormal
    }
    let (kept, rest, half) = (bits >> drop, bits & ((1 << drop) - 1), 1u128 << (drop - 1));
    let round_up = rest > half || (rest == half && (sticky || kept & 1 == 1));
    let mut kept = kept as u64 + u64::from(round_up);
    if top < -1022 {
        // A subnormal; a carry into bit 52 makes it the smallest normal.
        return f64::from_bits(kept);
    }
    if kept == 1 << 53 {
        kept >>= 1;
        top += 1;
        if top > 1023 {
            return f64::INFINITY;
        }
    }
    f64::from_bits(((top + 1023) as u64) << 52 | (kept & ((1 << 52) - 1)))
}

/// `code` (below 2^31) in UTF-8, extended as Lua does to 5 and 6 bytes.
fn utf8_encode(code: u32) -> Vec<u8> {
    if code < 0x80 {
        return vec![code as u8];
    }
    let len = match code {
        0..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        0x1_0000..=0x1F_FFFF => 4,
        0x20_0000..=0x3FF_FFFF => 5,
        _ => 6,
    };
    let lead = (0xFF00u32 >> len) as u8 | (code >> (6 * (len - 1))) as u8;
    let tail = (0..len - 1)
        .rev()
        .map(|k| 0x80 | ((code >> (6 * k)) as u8 & 0x3F));
    std::iter::once(lead).chain(tail).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All tokens of `src` up to the end, with their lines.
    fn lex(src: &[u8]) -> Result<Vec<(Token, u32)>, String> {
        let mut lexer = Lexer::new(src, "t", false);
        let mut tokens = Vec::new();
        loop {
            let lexeme = lexer.next_lexeme().map_err(|e| e.to_string())?;
            if lexeme.token == Token::Eof {
                return Ok(tokens);
            }
            tokens.push((lexeme.token, lexeme.line));
        }
    }

    fn tokens(src: &[u8]) -> Vec<Token> {
        lex(src)
            .unwrap()
            .into_iter()
            .map(|(token, _)| token)
            .collect()
    }

    #[test]
    fn symbols_and_words() {
        use Token::*;
        let src = b"+ - * / // % ^ # & ~ | << >> == ~= <= >= < > = ( ) { } [ ] :: ; : , . .. ...";
        let want = [
            Char(b'+'),
            Char(b'-'),
            Char(b'*'),
            Char(b'/'),
            IDiv,
            Char(b'%'),
            Char(b'^'),
            Char(b'#'),
            Char(b'&'),
            Char(b'~'),
            Char(b'|'),
            Shl,
            Shr,
            Eq,
            Ne,
            Le,
            Ge,
            Char(b'<'),
            Char(b'>'),
            Char(b'='),
            Char(b'('),
            Char(b')'),
            Char(b'{'),
            Char(b'}'),
            Char(b'['),
            Char(b']'),
            DbColon,
            Char(b';'),
            Char(b':'),
            Char(b','),
            Char(b'.'),
            Concat,
            Dots,
        ];
        assert_eq!(tokens(src), want);
        assert_eq!(tokens(b"a...b"), [Name("a".into()), Dots, Name("b".into())]);
        assert_eq!(
            tokens(b"a....b"),
            [Name("a".into()), Dots, Char(b'.'), Name("b".into())]
        );
        let words = b"and break do else elseif end false for function goto if in local nil not or repeat return then true until while";
        assert_eq!(tokens(words).len(), 22);
        assert!(tokens(words).iter().all(|t| !matches!(t, Name(_))));
        assert_eq!(
            tokens(b"andy _x1 End nil_"),
            ["andy", "_x1", "End", "nil_"].map(|n| Name(n.into()))
        );
        assert_eq!(
            tokens(b"@ $ ! ? ` \\ \x00 \x7f \xff"),
            b"@$!?`\\\x00\x7f\xff".map(Char)
        );
    }

    #[test]
    fn describe_and_near() {
        assert_eq!(Token::End.describe(), "'end'");
        assert_eq!(Token::Concat.describe(), "'..'");
        assert_eq!(Token::Eof.describe(), "<eof>");
        assert_eq!(Token::Name("x".into()).describe(), "<name>");
        assert_eq!(Token::Char(b'(').describe(), "'('");
        assert_eq!(Token::Char(0x80).describe(), "'<\\128>'");
        let src = b"abc 0x1F 1.5e3 'a\\tb' [==[\r\nx]==] \"\" \x00";
        let mut lexer = Lexer::new(src, "t", false);
        let mut near = Vec::new();
        loop {
            let lexeme = lexer.next_lexeme().unwrap();
            near.push(lexer.near(&lexeme));
            if lexeme.token == Token::Eof {
                break;
            }
        }
        let want = [
            "'abc'",
            "'0x1F'",
            "'1.5e3'",
            "''a\tb''",
            "'[==[x]==]'",
            "'\"\"'",
        ]
        .map(|s| Some(s.to_string()));
        assert_eq!(near[..6], want);
        assert_eq!(near[6..], [None, Some("<eof>".into())]);
    }

    #[test]
    fn numeral_extent() {
        let cases: [(&[u8], usize); 10] = [
            (b"3..2", 4),
            (b"3 ..2", 1),
            (b"1e+5-1", 4),
            (b"0x1p-2+1", 6),
            (b"0x1e+1", 4),
            (b".5x", 3),
            (b".0x1p+5", 7),
            (b"12_ab", 3),
            (b"0xABCDEFG", 9),
            (b"7,", 1),
        ];
        for (src, len) in cases {
            assert_eq!(numeral_len(src), len, "{}", src.escape_ascii());
        }
    }

    #[test]
    fn line_counting() {
        let found: Vec<u32> = lex(b"a\nb\rc\r\nd\n\re\n\nf\r\rg")
            .unwrap()
            .into_iter()
            .map(|(_, line)| line)
            .collect();
        assert_eq!(found, [1, 2, 3, 4, 5, 7, 9]);
        // Tokens spanning lines belong to their last line.
        let found: Vec<u32> = lex(b"[[\n\n]] --[[\n]] x '\\\n' y")
            .unwrap()
            .into_iter()
            .map(|(_, line)| line)
            .collect();
        assert_eq!(found, [3, 4, 5, 5]);
    }

    #[test]
    fn shebang_and_bom_in_scripts() {
        let first = |src: &[u8], script| {
            let mut lexer = Lexer::new(src, "t", script);
            let lexeme = lexer.next_lexeme().unwrap();
            (lexeme.token, lexeme.line)
        };
        assert_eq!(first(b"#!lua\nx", true), (Token::Name("x".into()), 2));
        assert_eq!(first(b"#!lua\r\nx", true), (Token::Name("x".into()), 2));
        assert_eq!(
            first(b"\xEF\xBB\xBF#!lua\nx", true),
            (Token::Name("x".into()), 2)
        );
        assert_eq!(first(b"\xEF\xBB\xBFx", true), (Token::Name("x".into()), 1));
        assert_eq!(first(b"#!lua", true), (Token::Eof, 1));
        assert_eq!(first(b"#!lua\nx", false), (Token::Char(b'#'), 1));
        assert_eq!(first(b" #\nx", true), (Token::Char(b'#'), 1));
    }

    #[test]
    fn utf8_extended() {
        let cases: [(u32, &[u8]); 8] = [
            (0x7F, b"\x7f"),
            (0x80, b"\xc2\x80"),
            (0x7FF, b"\xdf\xbf"),
            (0xFFFF, b"\xef\xbf\xbf"),
            (0x10_FFFF, b"\xf4\x8f\xbf\xbf"),
            (0x1F_FFFF, b"\xf7\xbf\xbf\xbf"),
            (0x3FF_FFFF, b"\xfb\xbf\xbf\xbf\xbf"),
            (0x7FFF_FFFF, b"\xfd\xbf\xbf\xbf\xbf\xbf"),
        ];
        for (code, want) in cases {
            assert_eq!(utf8_encode(code), want, "{code:x}");
        }
    }

    /// Expected values are lua5.4's (strtod's) for the same numerals.
    #[test]
    fn hex_float_rounding() {
        assert_eq!(hex_float(b"1p-1074"), Some(f64::from_bits(1)));
        assert_eq!(hex_float(b"1p-1075"), Some(0.0)); // a tie: to even
        assert_eq!(hex_float(b"1.0000000000001p-1075"), Some(f64::from_bits(1)));
        assert_eq!(hex_float(b"0.0000000000000000000001p88"), Some(1.0));
        // Halfway between subnormals: to even, up into the normal range or down.
        assert_eq!(
            hex_float(b"1fffffffffffffp-1075"),
            Some(f64::from_bits(0x0010_0000_0000_0000))
        );
        assert_eq!(
            hex_float(b"1ffffffffffffdp-1075"),
            Some(f64::from_bits(0x000F_FFFF_FFFF_FFFE))
        );
        assert_eq!(
            hex_float(b"1.fffffffffffff7fffffp0"),
            Some(f64::from_bits(0x3FFF_FFFF_FFFF_FFFF))
        );
        assert_eq!(hex_float(b"1.fffffffffffff8p0"), Some(2.0));
        assert_eq!(hex_float(b"1p99999999999"), Some(f64::INFINITY));
        assert_eq!(hex_float(b"1p-99999999999"), Some(0.0));
        for bad in [
            &b""[..],
            b".",
            b"p1",
            b"1p",
            b"1p+",
            b"1.2.3",
            b"1g",
            b"1p1p",
        ] {
            assert_eq!(hex_float(bad), None, "{}", bad.escape_ascii());
        }
    }

    #[test]
    fn errors_carry_chunk_and_line() {
        let err = Lexer::new(b"\n\n'abc", "=x", false)
            .next_lexeme()
            .unwrap_err();
        assert_eq!(
            err,
            SyntaxError {
                chunk: "=x".into(),
                line: 3,
                message: "unfinished string near <eof>".into()
            }
        );
        assert_eq!(err.to_string(), "=x:3: unfinished string near <eof>");
    }
}
