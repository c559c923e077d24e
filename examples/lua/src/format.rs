//! `string.format`: C's `printf` conversions as Lua 5.4 restricts and
//! extends them (`%q`, coercions between numbers and strings, its own
//! checks of flags, width and precision), over byte strings.
//!
//! Floats are rendered from Rust's correctly rounded (ties-to-even)
//! decimal expansion, which is what glibc prints; `%a` is built from the
//! bits. Everything matches PUC-Rio Lua 5.4.4 on x86_64 Linux (glibc).
//!
//! ```
//! use lua::format::{format, FmtArg, FormatError};
//! let args = [FmtArg::Str(b"10"), FmtArg::Float(1.0 / 3.0), FmtArg::Int(255)];
//! let mut out = Vec::new();
//! let done = format(&mut out, b"%d|%5.2g|%#x", &args, |_| Ok::<_, FormatError>(Vec::new()));
//! assert_eq!((done, &out[..]), (Ok(()), &b"10| 0.33|0xff"[..]));
//! let err = format(&mut out, b"%d", &[FmtArg::Float(3.5)], |_| Ok::<_, FormatError>(Vec::new()));
//! assert_eq!(
//!     err.unwrap_err().to_string(),
//!     "bad argument #2 to 'format' (number has no integer representation)"
//! );
//! ```

use std::fmt;

use crate::number::{
    float_to_int, fmt_float, fmt_int, put_digits, str_to_number, Number, DIGITS_MAX,
};

/// One argument of `string.format` after the format string, as the
/// interpreter knows it (a string's bytes borrowed, not copied).
#[derive(Clone, Debug, PartialEq)]
pub enum FmtArg<'a> {
    /// `nil` (an explicit one: a missing argument is past the slice's end).
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string (numeric strings also serve numeric conversions).
    Str(&'a [u8]),
    /// Any other value: its type name for errors (the `__name` metafield
    /// if it has one, as `luaL_typeerror` uses). `%s` asks the caller for
    /// its `tostring`, only then, since `__tostring` may run code or fail.
    Other {
        /// The type name shown in "number expected, got ...".
        type_name: String,
    },
}

impl FmtArg<'_> {
    fn type_name(&self) -> &str {
        match self {
            FmtArg::Nil => "nil",
            FmtArg::Bool(_) => "boolean",
            FmtArg::Int(_) | FmtArg::Float(_) => "number",
            FmtArg::Str(_) => "string",
            FmtArg::Other { type_name } => type_name,
        }
    }
}

/// Why `string.format` failed; `Display` gives lua5.4's message (the
/// interpreter adds the position prefix and may rename the function).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError {
    /// `bad argument #arg to 'format' (message)`; `arg` counts the format
    /// string as #1.
    BadArg {
        /// The 1-based Lua argument position.
        arg: usize,
        /// The text in parentheses, like "no value".
        message: String,
    },
    /// A malformed format string; the complete message, like
    /// `invalid conversion '%y' to 'format'`.
    Invalid(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::BadArg { arg, message } => {
                write!(f, "bad argument #{arg} to 'format' ({message})")
            }
            FormatError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for FormatError {}

/// `string.format(fmt, ...)`, appended to `out` (the caller's buffer,
/// which it may reuse). `tostring(i)` is called for `%s` of `args[i]`
/// when that is [`FmtArg::Other`]; its error type `E` is the caller's,
/// which also carries this module's errors.
///
/// ```
/// use lua::format::{format, FmtArg, FormatError};
/// let args = [FmtArg::Other { type_name: "table".into() }, FmtArg::Str(b"a\nb")];
/// let mut out = Vec::new();
/// format(&mut out, b"%s %q", &args, |_| Ok::<_, FormatError>(b"table: 0x1".to_vec())).unwrap();
/// assert_eq!(out, b"table: 0x1 \"a\\\nb\"");
/// ```
pub fn format<E: From<FormatError>>(
    out: &mut Vec<u8>,
    fmt: &[u8],
    args: &[FmtArg],
    mut tostring: impl FnMut(usize) -> Result<Vec<u8>, E>,
) -> Result<(), E> {
    out.reserve(fmt.len());
    let mut next_arg = 0;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
        } else if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
        } else {
            let Some(arg) = args.get(next_arg) else {
                return Err(bad_arg(next_arg, "no value").into());
            };
            let item = Item::read(fmt, i - 1, arg, next_arg)?;
            i += item.form.len() - 1;
            item.convert(out, &mut tostring)?;
            next_arg += 1;
        }
    }
    Ok(())
}

/// The error about `args[index]` (Lua's argument `index + 2`).
fn bad_arg(index: usize, message: &str) -> FormatError {
    FormatError::BadArg {
        arg: index + 2,
        message: message.to_string(),
    }
}

/// Whether Lua lets `c` into a conversion before its letter: every flag,
/// digits and the precision's dot (a `match`, not a search of a list).
fn is_spec_byte(c: u8) -> bool {
    matches!(c, b'-' | b'+' | b' ' | b'#' | b'0'..=b'9' | b'.')
}
/// Lua's buffer for one conversion holds a spec shorter than this.
const MAX_SPEC: usize = 21;

/// One conversion of the format string, with its argument.
struct Item<'a> {
    /// From `%` through the conversion letter (which is absent at the end
    /// of the format).
    form: &'a [u8],
    /// The conversion letter, 0 if absent.
    conv: u8,
    arg: &'a FmtArg<'a>,
    index: usize,
}

impl<'a> Item<'a> {
    fn read(
        fmt: &'a [u8],
        start: usize,
        arg: &'a FmtArg<'a>,
        index: usize,
    ) -> Result<Self, FormatError> {
        let spec_len = fmt[start + 1..]
            .iter()
            .take_while(|&&c| is_spec_byte(c))
            .count();
        if spec_len >= MAX_SPEC {
            return Err(FormatError::Invalid("invalid format (too long)".into()));
        }
        let end = (start + spec_len + 2).min(fmt.len());
        Ok(Item {
            form: &fmt[start..end],
            conv: fmt.get(start + spec_len + 1).copied().unwrap_or(0),
            arg,
            index,
        })
    }

    fn convert<E: From<FormatError>>(
        &self,
        out: &mut Vec<u8>,
        tostring: &mut impl FnMut(usize) -> Result<Vec<u8>, E>,
    ) -> Result<(), E> {
        match self.conv {
            b'c' => {
                let spec = self.spec(b"-", false)?;
                let n = self.int()?;
                pad(out, &spec, b"", &[n as u8], false);
            }
            conv @ (b'd' | b'i') => {
                let n = self.int()?;
                fmt_integer(out, &self.spec(b"-+ 0", true)?, conv, n);
            }
            b'u' => {
                let n = self.int()?;
                fmt_integer(out, &self.spec(b"-0", true)?, b'u', n);
            }
            conv @ (b'o' | b'x' | b'X') => {
                let n = self.int()?;
                fmt_integer(out, &self.spec(b"-#0", true)?, conv, n);
            }
            conv @ (b'a' | b'A') => {
                let spec = self.spec(b"-+ #0", true)?;
                fmt_real(out, &spec, conv, self.float()?);
            }
            conv @ (b'e' | b'E' | b'f' | b'g' | b'G') => {
                let x = self.float()?;
                fmt_real(out, &self.spec(b"-+ #0", true)?, conv, x);
            }
            b'q' => self.quote(out)?,
            b's' => self.string(out, tostring)?,
            _ => {
                // Lua shows the spec as a C string: it stops at a zero byte.
                let form = self.form.split(|&c| c == 0).next().unwrap_or_default();
                let form = String::from_utf8_lossy(form);
                return Err(FormatError::Invalid(format!(
                    "invalid conversion '{form}' to 'format'"
                ))
                .into());
            }
        }
        Ok(())
    }

    /// Lua's check of the spec against the flags this conversion allows:
    /// a width of at most two digits not starting with `0`, and, if
    /// allowed, a precision of at most two digits.
    fn spec(&self, allowed: &[u8], precision_ok: bool) -> Result<Spec, FormatError> {
        let body = &self.form[1..self.form.len() - 1];
        let mut spec = Spec::default();
        let mut i = 0;
        while let Some(&c) = body.get(i).filter(|c| allowed.contains(c)) {
            spec.set_flag(c);
            i += 1;
        }
        if body.get(i) != Some(&b'0') {
            let (width, used) = two_digits(&body[i..]);
            spec.width = width;
            i += used;
            if precision_ok && body.get(i) == Some(&b'.') {
                let (precision, used) = two_digits(&body[i + 1..]);
                spec.precision = Some(precision);
                i += 1 + used;
            }
        }
        if i != body.len() {
            let form = String::from_utf8_lossy(self.form);
            return Err(FormatError::Invalid(format!(
                "invalid conversion specification: '{form}'"
            )));
        }
        Ok(spec)
    }

    fn number(&self) -> Result<Number, FormatError> {
        match self.arg {
            FmtArg::Int(i) => Ok(Number::Int(*i)),
            FmtArg::Float(x) => Ok(Number::Float(*x)),
            FmtArg::Str(s) => str_to_number(s).ok_or_else(|| self.type_error()),
            _ => Err(self.type_error()),
        }
    }

    fn type_error(&self) -> FormatError {
        bad_arg(
            self.index,
            &format!("number expected, got {}", self.arg.type_name()),
        )
    }

    fn int(&self) -> Result<i64, FormatError> {
        match self.number()? {
            Number::Int(i) => Ok(i),
            Number::Float(x) => float_to_int(x)
                .ok_or_else(|| bad_arg(self.index, "number has no integer representation")),
        }
    }

    fn float(&self) -> Result<f64, FormatError> {
        Ok(match self.number()? {
            Number::Int(i) => i as f64,
            Number::Float(x) => x,
        })
    }

    /// `%s`: the argument's `tostring`; with modifiers, it must hold no
    /// zero byte (checked before the modifiers, as Lua does). The text goes
    /// straight into `out`; only modifiers take it back out to pad it.
    fn string<E: From<FormatError>>(
        &self,
        out: &mut Vec<u8>,
        tostring: &mut impl FnMut(usize) -> Result<Vec<u8>, E>,
    ) -> Result<(), E> {
        let start = out.len();
        match self.arg {
            FmtArg::Nil => out.extend_from_slice(b"nil"),
            FmtArg::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            FmtArg::Int(i) => out.extend_from_slice(fmt_int(&mut [0; DIGITS_MAX], *i)),
            FmtArg::Float(x) => out.extend_from_slice(fmt_float(*x).as_bytes()),
            FmtArg::Str(s) => out.extend_from_slice(s),
            FmtArg::Other { .. } => out.extend(tostring(self.index)?),
        }
        if self.form.len() == 2 {
            return Ok(());
        }
        let text = out.split_off(start);
        if text.contains(&0) {
            return Err(bad_arg(self.index, "string contains zeros").into());
        }
        let spec = self.spec(b"-", true)?;
        let shown = &text[..spec.precision.map_or(text.len(), |p| p.min(text.len()))];
        pad(out, &spec, b"", shown, false);
        Ok(())
    }

    /// `%q`: the argument as Lua source that reads back as the same value.
    fn quote(&self, out: &mut Vec<u8>) -> Result<(), FormatError> {
        if self.form.len() != 2 {
            return Err(FormatError::Invalid(
                "specifier '%q' cannot have modifiers".into(),
            ));
        }
        match self.arg {
            FmtArg::Nil => out.extend_from_slice(b"nil"),
            FmtArg::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            // The minimum integer has no decimal literal (its negation overflows).
            FmtArg::Int(i64::MIN) => out.extend_from_slice(b"0x8000000000000000"),
            FmtArg::Int(i) => out.extend_from_slice(fmt_int(&mut [0; DIGITS_MAX], *i)),
            FmtArg::Float(x) => out.extend_from_slice(quote_float(*x).as_bytes()),
            FmtArg::Str(s) => quote_string(out, s),
            FmtArg::Other { .. } => return Err(bad_arg(self.index, "value has no literal form")),
        }
        Ok(())
    }
}

/// Up to two decimal digits: their value and how many there were.
fn two_digits(s: &[u8]) -> (usize, usize) {
    let used = s.iter().take(2).take_while(|c| c.is_ascii_digit()).count();
    let value = s[..used]
        .iter()
        .fold(0, |n, &c| n * 10 + usize::from(c - b'0'));
    (value, used)
}

/// The flags, width and precision of one conversion.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

impl Spec {
    fn set_flag(&mut self, c: u8) {
        match c {
            b'-' => self.left = true,
            b'+' => self.plus = true,
            b' ' => self.space = true,
            b'#' => self.alt = true,
            _ => self.zero = true,
        }
    }

    fn sign(&self, negative: bool) -> &'static [u8] {
        match (negative, self.plus, self.space) {
            (true, _, _) => b"-",
            (false, true, _) => b"+",
            (false, false, true) => b" ",
            _ => b"",
        }
    }
}

/// Writes `prefix` (sign, `0x`) and `body` within the width: left-justified
/// with `-`, zero-filled after the prefix with `0` where `zero_ok`, else
/// right-justified with spaces.
fn pad(out: &mut Vec<u8>, spec: &Spec, prefix: &[u8], body: &[u8], zero_ok: bool) {
    let fill = spec.width.saturating_sub(prefix.len() + body.len());
    if spec.left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if spec.zero && zero_ok {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
}

/// `%d %i %u %o %x %X` of a 64-bit integer (the last four see its two's
/// complement bits). The digits are built on the stack, right-aligned:
/// precision zeros and `%#o`'s `0` go in front of them.
fn fmt_integer(out: &mut Vec<u8>, spec: &Spec, conv: u8, n: i64) {
    // A precision is at most two digits: its zeros fit in 100 bytes.
    let mut body = [b'0'; 100 + DIGITS_MAX];
    let end = body.len();
    let mut start = match conv {
        b'd' | b'i' => put_digits::<10>(&mut body, n.unsigned_abs(), false),
        b'u' => put_digits::<10>(&mut body, n as u64, false),
        b'o' => put_digits::<8>(&mut body, n as u64, false),
        _ => put_digits::<16>(&mut body, n as u64, conv == b'X'),
    };
    if let Some(p) = spec.precision {
        if n == 0 && p == 0 {
            start = end;
        }
        start = start.min(end - p);
    }
    if spec.alt && conv == b'o' && body.get(start) != Some(&b'0') {
        start -= 1;
    }
    let prefix: &[u8] = match conv {
        b'd' | b'i' => spec.sign(n < 0),
        b'x' if spec.alt && n != 0 => b"0x",
        b'X' if spec.alt && n != 0 => b"0X",
        _ => b"",
    };
    pad(out, spec, prefix, &body[start..], spec.precision.is_none());
}

/// `%a %A %e %E %f %g %G` of a float; infinities and NaNs are never
/// zero-filled.
fn fmt_real(out: &mut Vec<u8>, spec: &Spec, conv: u8, x: f64) {
    let sign = spec.sign(x.is_sign_negative());
    let upper = conv.is_ascii_uppercase();
    let (hex_prefix, body) = if !x.is_finite() {
        ("", if x.is_nan() { "nan" } else { "inf" }.to_string())
    } else {
        let (a, p, alt) = (x.abs(), spec.precision, spec.alt);
        match conv.to_ascii_lowercase() {
            b'a' => ("0x", hex_float(a, p, alt)),
            b'e' => ("", exp_form(a, p.unwrap_or(6), alt)),
            b'f' => ("", fixed_form(a, p.unwrap_or(6), alt)),
            _ => ("", general_form(a, p.unwrap_or(6), alt)),
        }
    };
    let mut prefix = sign.to_vec();
    prefix.extend_from_slice(hex_prefix.as_bytes());
    let mut body = body.into_bytes();
    if upper {
        prefix.make_ascii_uppercase();
        body.make_ascii_uppercase();
    }
    pad(out, spec, &prefix, &body, x.is_finite());
}

/// C's `%.{precision}g` with no flags: the form `tostring` builds on.
///
/// ```
/// use lua::format::format_g;
/// assert_eq!(format_g(1.0 / 3.0, 14), "0.33333333333333");
/// assert_eq!(format_g(1e15, 14), "1e+15");
/// assert_eq!(format_g(-f64::NAN, 14), "-nan");
/// ```
pub fn format_g(x: f64, precision: usize) -> String {
    let mut out = Vec::new();
    let spec = Spec {
        precision: Some(precision),
        ..Spec::default()
    };
    fmt_real(&mut out, &spec, b'g', x);
    String::from_utf8(out).expect("%g output is ASCII")
}

/// `%e` of a finite `x ≥ 0`: one digit, `precision` decimals, and an
/// exponent of at least two digits.
fn exp_form(x: f64, precision: usize, alt: bool) -> String {
    let (mantissa, exp) = split_exp(x, precision);
    let dot = if alt && precision == 0 { "." } else { "" };
    let exp_sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{dot}e{exp_sign}{:02}", exp.unsigned_abs())
}

/// Rust's correctly rounded scientific form of `x`, split into mantissa
/// and decimal exponent.
fn split_exp(x: f64, precision: usize) -> (String, i32) {
    let s = format!("{x:.precision$e}");
    let (mantissa, exp) = s.split_once('e').expect("Rust's {:e} has an exponent");
    (
        mantissa.to_string(),
        exp.parse().expect("Rust's exponent is decimal"),
    )
}

/// The decimal exponent of `x > 0` itself, before any rounding (a
/// double's exact expansion has fewer than 770 significant digits).
fn exact_exponent(x: f64) -> i32 {
    split_exp(x, 770).1
}

/// `%f` of a finite `x ≥ 0`.
fn fixed_form(x: f64, precision: usize, alt: bool) -> String {
    let dot = if alt && precision == 0 { "." } else { "" };
    format!("{x:.precision$}{dot}")
}

/// `%g` of a finite `x ≥ 0`: `precision` significant digits, in `%f` form
/// unless the exponent is below -4 or not below the precision; trailing
/// zeros go unless `#`.
fn general_form(x: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    let (_, exp) = split_exp(x, p - 1);
    let (mut digits, exp_part) = if exp < -4 || exp >= p as i32 {
        // glibc's quirk: when rounding carries a value of exponent P-1
        // (%f style, no decimals left) to exponent P, the %e form it
        // switches to keeps no decimals either: `%#.3g` of 999.5 is
        // `1.e+03`. Without `#` the zeros go anyway.
        let carried = alt && exp == p as i32 && exact_exponent(x) == exp - 1;
        let s = exp_form(x, if carried { 0 } else { p - 1 }, alt);
        let at = s.find('e').expect("%e has an exponent");
        (s[..at].to_string(), s[at..].to_string())
    } else {
        (
            fixed_form(x, (p as i32 - 1 - exp) as usize, alt),
            String::new(),
        )
    };
    if !alt && digits.contains('.') {
        digits.truncate(digits.trim_end_matches('0').trim_end_matches('.').len());
    }
    digits + &exp_part
}

/// `%a` of a finite `x ≥ 0` after the `0x`: the leading bit, the 52-bit
/// fraction in hex (shortest exact, or to `precision` digits), and the
/// binary exponent; subnormals show `0.` and exponent -1022.
fn hex_float(x: f64, precision: Option<usize>, alt: bool) -> String {
    let bits = x.to_bits();
    let biased = (bits >> 52) as i32;
    let frac = bits & ((1 << 52) - 1);
    let lead = u64::from(biased != 0);
    let exp = match (biased, frac) {
        (0, 0) => 0,
        (0, _) => -1022,
        _ => biased - 1023,
    };
    let (lead, mut digits) = match precision {
        None => (
            lead,
            format!("{frac:013x}").trim_end_matches('0').to_string(),
        ),
        Some(p) if p >= 13 => (lead, format!("{frac:013x}{:0<1$}", "", p - 13)),
        Some(p) => round_hex(lead, frac, p),
    };
    if !digits.is_empty() || alt {
        digits.insert(0, '.');
    }
    format!("{lead}{digits}p{exp:+}")
}

/// `lead.frac` (52 fraction bits) rounded to `p < 13` hex digits, ties to
/// even; a carry out of the fraction bumps the leading digit, to 2 for a
/// normal number, as glibc prints it (`0x2.0p+0`), without renormalising.
fn round_hex(lead: u64, frac: u64, p: usize) -> (u64, String) {
    let shift = 52 - 4 * p as u32;
    let kept = frac >> shift;
    let rest = frac & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let odd = (if p == 0 { lead } else { kept }) & 1 == 1;
    let rounded = kept + u64::from(rest > half || (rest == half && odd));
    let (lead, kept) = if rounded >> (4 * p) != 0 {
        (lead + 1, 0)
    } else {
        (lead, rounded)
    };
    let digits = if p == 0 {
        String::new()
    } else {
        format!("{kept:0p$x}")
    };
    (lead, digits)
}

/// `%q` of a float: a hex float that reads back exactly; infinities and
/// NaN as expressions that evaluate to them.
fn quote_float(x: f64) -> String {
    if x.is_nan() {
        "(0/0)".into()
    } else if x.is_infinite() {
        if x > 0.0 { "1e9999" } else { "-1e9999" }.into()
    } else {
        let sign = if x.is_sign_negative() { "-" } else { "" };
        format!("{sign}0x{}", hex_float(x.abs(), None, false))
    }
}

/// `%q` of a string: quoted, with `"`, `\` and newline escaped by a
/// backslash and other control bytes in decimal (three digits when a
/// digit follows, so the escape does not swallow it).
fn quote_string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for (i, &c) in s.iter().enumerate() {
        match c {
            b'"' | b'\\' | b'\n' => out.extend_from_slice(&[b'\\', c]),
            0..=31 | 127 => {
                let escape = if s.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    format!("\\{c:03}")
                } else {
                    format!("\\{c}")
                };
                out.extend_from_slice(escape.as_bytes());
            }
            _ => out.push(c),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    //! Every expectation was printed by PUC-Rio lua5.4 5.4.4 (x86_64 Linux,
    //! glibc) for `pcall(string.format, ...)`; lua5.4 names the function
    //! 'string.format' there, shortened here to the 'format' this module
    //! uses. Tables passed as `other` had `__tostring` returning "TT".

    use super::FmtArg::{Bool as B, Float as F, Int as I, Nil};
    use super::*;

    fn s(bytes: &[u8]) -> FmtArg<'_> {
        FmtArg::Str(bytes)
    }

    fn other(type_name: &str) -> FmtArg<'static> {
        FmtArg::Other {
            type_name: type_name.into(),
        }
    }

    fn run(fmt: &[u8], args: &[FmtArg]) -> Result<Vec<u8>, FormatError> {
        let mut out = b"kept".to_vec();
        format(&mut out, fmt, args, |i| {
            assert!(matches!(args[i], FmtArg::Other { .. }));
            Ok(b"TT".to_vec())
        })?;
        assert_eq!(&out[..4], b"kept", "format appends");
        Ok(out.split_off(4))
    }

    #[track_caller]
    fn ok(fmt: &[u8], args: &[FmtArg], want: &[u8]) {
        let got =
            run(fmt, args).unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(fmt)));
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(want),
            "{:?}",
            String::from_utf8_lossy(fmt)
        );
        assert_eq!(got, want);
    }

    #[track_caller]
    fn err(fmt: &[u8], args: &[FmtArg], want: &str) {
        match run(fmt, args) {
            Ok(out) => panic!(
                "{:?} gave {:?}",
                String::from_utf8_lossy(fmt),
                String::from_utf8_lossy(&out)
            ),
            Err(e) => assert_eq!(e.to_string(), want, "{:?}", String::from_utf8_lossy(fmt)),
        }
    }

    #[test]
    fn format_matches_lua() {
        err(b"%y", &[I(1)], "invalid conversion '%y' to 'format'");
        err(b"%y", &[], "bad argument #2 to 'format' (no value)");
        err(
            b"%10.3q",
            &[s(b"a")],
            "specifier '%q' cannot have modifiers",
        );
        err(b"abc%", &[I(1)], "invalid conversion '%' to 'format'");
        err(b"abc%", &[], "bad argument #2 to 'format' (no value)");
        err(
            b"%100d",
            &[I(1)],
            "invalid conversion specification: '%100d'",
        );
        err(
            b"%.100d",
            &[I(1)],
            "invalid conversion specification: '%.100d'",
        );
        err(b"%5y", &[I(1)], "invalid conversion '%5y' to 'format'");
        err(b"%\x00", &[I(1)], "invalid conversion '%' to 'format'");
        err(b"%5%", &[I(1)], "invalid conversion '%5%' to 'format'");
        err(b"%5%", &[], "bad argument #2 to 'format' (no value)");
        err(
            b"%000000000000000000000d",
            &[I(1)],
            "invalid format (too long)",
        );
        ok(b"%00000000000000000000d", &[I(1)], b"1");
        err(
            b"%000000000000000000000d",
            &[],
            "bad argument #2 to 'format' (no value)",
        );
        err(
            b"%1.2.3d",
            &[I(1)],
            "invalid conversion specification: '%1.2.3d'",
        );
        err(
            b"%05c",
            &[other("table")],
            "invalid conversion specification: '%05c'",
        );
        err(
            b"%#d",
            &[other("table")],
            "bad argument #2 to 'format' (number expected, got table)",
        );
        err(
            b"%.5.5a",
            &[other("table")],
            "invalid conversion specification: '%.5.5a'",
        );
        err(
            b"%.5.5f",
            &[other("table")],
            "bad argument #2 to 'format' (number expected, got table)",
        );
        err(
            b"%.5.5g",
            &[s(b"x")],
            "bad argument #2 to 'format' (number expected, got string)",
        );
        err(
            b"%.5.5x",
            &[s(b"x")],
            "bad argument #2 to 'format' (number expected, got string)",
        );
        err(
            b"%.5.5s",
            &[other("table")],
            "invalid conversion specification: '%.5.5s'",
        );
        err(
            b"%.5.5c",
            &[other("table")],
            "invalid conversion specification: '%.5.5c'",
        );
        err(b"%5q", &[Nil], "specifier '%q' cannot have modifiers");
        err(
            b"%#5.3q",
            &[other("table")],
            "specifier '%q' cannot have modifiers",
        );
        err(
            b"%05s",
            &[other("table")],
            "invalid conversion specification: '%05s'",
        );
        err(
            b"%05s",
            &[s(b"a\x00")],
            "bad argument #2 to 'format' (string contains zeros)",
        );
        err(
            b"%05s",
            &[s(b"a")],
            "invalid conversion specification: '%05s'",
        );
        err(b"%", &[I(1)], "invalid conversion '%' to 'format'");
        err(b"%.", &[I(1)], "invalid conversion '%.' to 'format'");
        err(b"%5", &[I(1)], "invalid conversion '%5' to 'format'");
        err(b"%-", &[I(1)], "invalid conversion '%-' to 'format'");
        err(b"%F", &[F(1.5)], "invalid conversion '%F' to 'format'");
        err(b"%+u", &[I(1)], "invalid conversion specification: '%+u'");
        err(b"% u", &[I(1)], "invalid conversion specification: '% u'");
        err(b"%#d", &[I(1)], "invalid conversion specification: '%#d'");
        err(
            b"%.5c",
            &[I(65)],
            "invalid conversion specification: '%.5c'",
        );
        err(b"%ld", &[I(1)], "invalid conversion '%l' to 'format'");
        err(b"%lld", &[I(1)], "invalid conversion '%l' to 'format'");
        ok(b"%0-5d", &[I(1)], b"1    ");
        ok(b"%-+ 0#g", &[I(1)], b"+1.00000");
        ok(b"%99.99f", &[I(1)], b"1.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000");
        ok(b"%.99f", &[F(0.3333333333333333)], b"0.333333333333333314829616256247390992939472198486328125000000000000000000000000000000000000000000000");
        err(
            b"%d",
            &[s(b"x")],
            "bad argument #2 to 'format' (number expected, got string)",
        );
        err(b"%d", &[], "bad argument #2 to 'format' (no value)");
        err(b"%s", &[], "bad argument #2 to 'format' (no value)");
        err(b"%s %s", &[I(1)], "bad argument #3 to 'format' (no value)");
        err(
            b"%d",
            &[other("table")],
            "bad argument #2 to 'format' (number expected, got table)",
        );
        err(
            b"%d",
            &[other("MyT")],
            "bad argument #2 to 'format' (number expected, got MyT)",
        );
        err(
            b"%d",
            &[Nil],
            "bad argument #2 to 'format' (number expected, got nil)",
        );
        err(
            b"%d",
            &[B(true)],
            "bad argument #2 to 'format' (number expected, got boolean)",
        );
        err(
            b"%d",
            &[other("function")],
            "bad argument #2 to 'format' (number expected, got function)",
        );
        err(
            b"%d",
            &[F(3.5)],
            "bad argument #2 to 'format' (number has no integer representation)",
        );
        err(
            b"%d",
            &[s(b"3.5")],
            "bad argument #2 to 'format' (number has no integer representation)",
        );
        err(
            b"%d",
            &[F(9.223372036854776e+18)],
            "bad argument #2 to 'format' (number has no integer representation)",
        );
        err(
            b"%x",
            &[F(f64::INFINITY)],
            "bad argument #2 to 'format' (number has no integer representation)",
        );
        err(
            b"%f",
            &[s(b"abc")],
            "bad argument #2 to 'format' (number expected, got string)",
        );
        err(
            b"%c",
            &[F(-f64::NAN)],
            "bad argument #2 to 'format' (number has no integer representation)",
        );
        err(
            b"%q",
            &[other("table")],
            "bad argument #2 to 'format' (value has no literal form)",
        );
        err(
            b"%q",
            &[other("function")],
            "bad argument #2 to 'format' (value has no literal form)",
        );
        err(b"%q", &[], "bad argument #2 to 'format' (no value)");
        err(
            b"%10s|",
            &[s(b"a\x00b")],
            "bad argument #2 to 'format' (string contains zeros)",
        );
        err(
            b"%.1s",
            &[s(b"a\x00b")],
            "bad argument #2 to 'format' (string contains zeros)",
        );
        err(
            b"%d %d %d",
            &[I(1), I(2)],
            "bad argument #4 to 'format' (no value)",
        );
        ok(b"%d", &[s(b"10")], b"10");
        ok(b"%d", &[F(3.0)], b"3");
        ok(b"%d", &[s(b" 0x10 ")], b"16");
        ok(b"%d", &[s(b"1e2")], b"100");
        ok(b"%x", &[s(b"0x10")], b"10");
        ok(b"%f", &[s(b"1.5")], b"1.500000");
        ok(b"%f", &[s(b" 0x10 ")], b"16.000000");
        ok(b"%g", &[I(7)], b"7");
        ok(b"%s", &[I(12)], b"12");
        ok(b"%s", &[F(1.5)], b"1.5");
        ok(b"%s", &[F(1e+100)], b"1e+100");
        ok(b"%s", &[F(-0.0)], b"-0.0");
        ok(b"%s", &[Nil], b"nil");
        ok(b"%s", &[B(true)], b"true");
        ok(b"%s", &[B(false)], b"false");
        ok(b"%s", &[other("table")], b"TT");
        ok(b"%5s", &[other("MyT")], b"   TT");
        ok(b"%.3s", &[I(12345)], b"123");
        ok(b"%s", &[s(b"a\x00b")], b"a\x00b");
        ok(b"%d", &[F(-0.0)], b"0");
        ok(b"%i", &[I(0)], b"0");
        ok(b"%.3f", &[I(7)], b"7.000");
        ok(b"%-5d", &[I(3)], b"3    ");
        ok(b"%5d", &[I(-3)], b"   -3");
        ok(b"%05d", &[I(-42)], b"-0042");
        ok(b"%-05d", &[I(42)], b"42   ");
        ok(b"% d", &[I(5)], b" 5");
        ok(b"%+d", &[I(5)], b"+5");
        ok(b"% +d", &[I(5)], b"+5");
        ok(b"%+ d", &[I(5)], b"+5");
        ok(b"% d", &[I(-5)], b"-5");
        ok(b"%.3d", &[I(5)], b"005");
        ok(b"%8.3d", &[I(-5)], b"    -005");
        ok(b"%08.3d", &[I(5)], b"     005");
        ok(b"%.0d", &[I(0)], b"");
        ok(b"%5.0d", &[I(0)], b"     ");
        ok(b"%+.0d", &[I(0)], b"+");
        ok(b"%d", &[I(i64::MIN)], b"-9223372036854775808");
        ok(b"%d", &[I(9223372036854775807)], b"9223372036854775807");
        ok(b"%i", &[I(42)], b"42");
        ok(b"%u", &[I(42)], b"42");
        ok(b"%u", &[I(-1)], b"18446744073709551615");
        ok(b"%-8u|", &[I(7)], b"7       |");
        ok(b"%08u", &[I(7)], b"00000007");
        ok(b"%x", &[I(-1)], b"ffffffffffffffff");
        ok(b"%X", &[I(i64::MIN)], b"8000000000000000");
        ok(b"%o", &[I(-1)], b"1777777777777777777777");
        ok(b"%#o", &[I(8)], b"010");
        ok(b"%#x", &[I(255)], b"0xff");
        ok(b"%#X", &[I(255)], b"0XFF");
        ok(b"%#o", &[I(0)], b"0");
        ok(b"%#x", &[I(0)], b"0");
        ok(b"%#5x", &[I(1)], b"  0x1");
        ok(b"%#05x", &[I(1)], b"0x001");
        ok(b"%-#8x|", &[I(255)], b"0xff    |");
        ok(b"%#010x", &[I(255)], b"0x000000ff");
        ok(b"%-#010x", &[I(255)], b"0xff      ");
        ok(b"%5.3x", &[I(10)], b"  00a");
        ok(b"%.0x", &[I(0)], b"");
        ok(b"%#.0x", &[I(0)], b"");
        ok(b"%#.0o", &[I(0)], b"0");
        ok(b"%#o", &[I(1)], b"01");
        ok(b"%#3o", &[I(1)], b" 01");
        ok(b"%o", &[I(0)], b"0");
        ok(b"%#.3o", &[I(8)], b"010");
        ok(b"%#.3o", &[I(1)], b"001");
        ok(b"%X", &[I(11259375)], b"ABCDEF");
        ok(b"%x", &[I(9223372036854775807)], b"7fffffffffffffff");
        ok(b"%c", &[I(0)], b"\x00");
        ok(b"%c", &[I(255)], b"\xff");
        ok(b"%c", &[I(256)], b"\x00");
        ok(b"%c", &[I(-1)], b"\xff");
        ok(b"%5c", &[I(65)], b"    A");
        ok(b"%-5c", &[I(65)], b"A    ");
        ok(b"%c%c%c", &[I(76), I(117), I(97)], b"Lua");
        ok(b"%c", &[F(65.0)], b"A");
        ok(b"%c", &[s(b"66")], b"B");
        ok(b"%5.1s", &[s(b"hello")], b"    h");
        ok(b"%-5s|", &[s(b"ab")], b"ab   |");
        ok(b"%.s", &[s(b"abc")], b"");
        ok(b"%.0s", &[s(b"abc")], b"");
        ok(b"%10.2s|", &[s(b"abc")], b"        ab|");
        ok(b"%-10.5s|", &[s(b"abc")], b"abc       |");
        ok(b"%s", &[s(b"")], b"");
        ok(b"%5s", &[s(b"")], b"     ");
        ok(b"%s%%%s", &[I(1), I(2)], b"1%2");
        ok(b"%%", &[], b"%");
        ok(b"a%%b%sc", &[s(b"x")], b"a%bxc");
        ok(b"%s", &[s(b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")], b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        ok(b"%5s", &[s(b"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy")], b"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
        ok(b"%.3s", &[s(b"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")], b"zzz");
        ok(b"\x00%s\x00", &[s(b"\x01")], b"\x00\x01\x00");
        ok(b"%5.2g", &[F(0.3333333333333333)], b" 0.33");
        ok(b"%+.3e", &[F(12345.678)], b"+1.235e+04");
        ok(b"%g", &[F(1e-05)], b"1e-05");
        ok(b"%g", &[F(1e+20)], b"1e+20");
        ok(b"%g", &[I(100000)], b"100000");
        ok(b"%g", &[F(1e+15)], b"1e+15");
        ok(b"%g", &[F(0.1)], b"0.1");
        ok(b"%g", &[I(123456)], b"123456");
        ok(b"%g", &[I(1234567)], b"1.23457e+06");
        ok(b"%g", &[F(0.0001)], b"0.0001");
        ok(b"%g", &[F(1.234e-05)], b"1.234e-05");
        ok(b"%.3g", &[F(0.0001234)], b"0.000123");
        ok(b"%g", &[I(0)], b"0");
        ok(b"%g", &[F(-0.0)], b"-0");
        ok(b"%g", &[F(1e+100)], b"1e+100");
        ok(b"%g", &[I(123456789)], b"1.23457e+08");
        ok(b"%10.3g|", &[F(1234.5)], b"  1.23e+03|");
        ok(b"%-10.3g|", &[F(0.00012345)], b"0.000123  |");
        ok(b"%g", &[F(9.223372036854776e+18)], b"9.22337e+18");
        ok(
            b"%.14g",
            &[F(9.223372036854776e+18)],
            b"9.2233720368548e+18",
        );
        ok(b"%.17g", &[F(0.1)], b"0.10000000000000001");
        ok(
            b"%.99g",
            &[F(0.1)],
            b"0.1000000000000000055511151231257827021181583404541015625",
        );
        ok(b"%g", &[F(9.9999995)], b"10");
        ok(b"%g", &[F(999999.5)], b"1e+06");
        ok(b"%.0g", &[I(123)], b"1e+02");
        ok(b"%.1g", &[F(0.95)], b"0.9");
        ok(b"%G", &[F(1e-20)], b"1E-20");
        ok(b"%G", &[F(1e+300)], b"1E+300");
        ok(b"%#g", &[I(1)], b"1.00000");
        ok(b"%#.3g", &[I(1)], b"1.00");
        ok(b"%#g", &[I(0)], b"0.00000");
        ok(b"%#g", &[I(123456789)], b"1.23457e+08");
        ok(b"%#.0g", &[I(1)], b"1.");
        ok(b"%#g", &[F(0.0001)], b"0.000100000");
        ok(b"%#.2g", &[F(1e-10)], b"1.0e-10");
        ok(b"%e", &[I(0)], b"0.000000e+00");
        ok(b"%e", &[F(5e-324)], b"4.940656e-324");
        ok(b"%E", &[F(12345.0)], b"1.234500E+04");
        ok(b"%.0e", &[I(12345)], b"1e+04");
        ok(b"%#.0e", &[I(1)], b"1.e+00");
        ok(b"%+.0e", &[I(0)], b"+0e+00");
        ok(b"%e", &[F(1e+308)], b"1.000000e+308");
        ok(b"%.3e", &[F(9.9995)], b"9.999e+00");
        ok(b"%.3e", &[F(9.9996)], b"1.000e+01");
        ok(b"%12.4e|", &[F(-0.000123456)], b" -1.2346e-04|");
        ok(b"%-12.2E|", &[F(1e-100)], b"1.00E-100   |");
        ok(b"%012.3e", &[F(-1.5)], b"-001.500e+00");
        ok(b"%e", &[F(f64::NAN)], b"nan");
        ok(b"%f", &[F(1.5)], b"1.500000");
        ok(b"%.0f", &[F(0.5)], b"0");
        ok(b"%.0f", &[F(1.5)], b"2");
        ok(b"%.0f", &[F(2.5)], b"2");
        ok(b"%.0f", &[F(-0.5)], b"-0");
        ok(b"%.20f", &[F(0.1)], b"0.10000000000000000555");
        ok(b"%f", &[F(1e+308)], b"100000000000000001097906362944045541740492309677311846336810682903157585404911491537163328978494688899061249669721172515611590283743140088328307009198146046031271664502933027185697489699588559043338384466165001178426897626212945177628091195786707458122783970171784415105291802893207873272974885715430223118336.000000");
        ok(b"%.3f", &[F(2.0005)], b"2.001");
        ok(b"%.2f", &[F(2.675)], b"2.67");
        ok(b"%.1f", &[F(0.25)], b"0.2");
        ok(b"%.1f", &[F(0.35)], b"0.3");
        ok(b"%10.4f|", &[F(std::f64::consts::PI)], b"    3.1416|");
        ok(b"%-10.4f|", &[F(-std::f64::consts::PI)], b"-3.1416   |");
        ok(b"%+010.4f|", &[F(std::f64::consts::PI)], b"+0003.1416|");
        ok(b"% 010.4f|", &[F(std::f64::consts::PI)], b" 0003.1416|");
        ok(b"%#.0f", &[I(1)], b"1.");
        ok(b"%f", &[F(-0.0)], b"-0.000000");
        ok(b"%.3f", &[F(1e-10)], b"0.000");
        ok(b"%5.1f", &[F(99.95)], b"100.0");
        ok(
            b"%f",
            &[F(9.223372036854776e+18)],
            b"9223372036854775808.000000",
        );
        ok(b"%f", &[I(i64::MIN)], b"-9223372036854775808.000000");
        ok(b"%.15f", &[F(5e-324)], b"0.000000000000000");
        ok(b"%g", &[F(-f64::NAN)], b"-nan");
        ok(b"%g", &[F(f64::NAN)], b"nan");
        ok(b"%5g", &[F(f64::INFINITY)], b"  inf");
        ok(b"%-8g|", &[F(f64::NEG_INFINITY)], b"-inf    |");
        ok(b"%08g", &[F(f64::INFINITY)], b"     inf");
        ok(b"%+g", &[F(f64::INFINITY)], b"+inf");
        ok(b"% g", &[F(-f64::NAN)], b"-nan");
        ok(b"% g", &[F(f64::NAN)], b" nan");
        ok(b"%+f", &[F(f64::NAN)], b"+nan");
        ok(b"%e", &[F(f64::INFINITY)], b"inf");
        ok(b"%a", &[F(f64::INFINITY)], b"inf");
        ok(b"%010.3f", &[F(f64::NEG_INFINITY)], b"      -inf");
        ok(b"%A", &[F(f64::INFINITY)], b"INF");
        ok(b"%A", &[F(-f64::NAN)], b"-NAN");
        ok(b"%E", &[F(f64::NAN)], b"NAN");
        ok(b"%G", &[F(f64::NEG_INFINITY)], b"-INF");
        ok(b"%-+6f|", &[F(f64::INFINITY)], b"+inf  |");
        err(
            b"%#x",
            &[F(f64::INFINITY)],
            "bad argument #2 to 'format' (number has no integer representation)",
        );
        ok(b"%a", &[F(1.0)], b"0x1p+0");
        ok(b"%a", &[F(0.1)], b"0x1.999999999999ap-4");
        ok(b"%A", &[F(0.1)], b"0X1.999999999999AP-4");
        ok(b"%a", &[I(0)], b"0x0p+0");
        ok(b"%a", &[F(-0.0)], b"-0x0p+0");
        ok(b"%a", &[F(5e-324)], b"0x0.0000000000001p-1022");
        ok(b"%a", &[F(2.2250738585072014e-308)], b"0x1p-1022");
        ok(b"%a", &[F(1e+300)], b"0x1.7e43c8800759cp+996");
        ok(b"%a", &[F(1.5e-323)], b"0x0.0000000000003p-1022");
        ok(b"%a", &[I(-2)], b"-0x1p+1");
        ok(b"% a", &[I(2)], b" 0x1p+1");
        ok(b"%A", &[F(255.5)], b"0X1.FFP+7");
        ok(b"%a", &[F(1e-310)], b"0x0.012688b70e62bp-1022");
        ok(b"%a", &[I(7)], b"0x1.cp+2");
        ok(b"%.3a", &[I(1)], b"0x1.000p+0");
        ok(b"%.1a", &[F(1.96875)], b"0x2.0p+0");
        ok(b"%.0a", &[F(1.5)], b"0x2p+0");
        ok(b"%.0a", &[F(2.5)], b"0x1p+1");
        ok(b"%#.0a", &[I(1)], b"0x1.p+0");
        ok(b"%20a", &[I(1)], b"              0x1p+0");
        ok(b"%-20a|", &[I(1)], b"0x1p+0              |");
        ok(b"%020a", &[I(1)], b"0x000000000000001p+0");
        ok(b"%+a", &[I(1)], b"+0x1p+0");
        ok(b"%.3a", &[F(5e-324)], b"0x0.000p-1022");
        ok(b"%.0a", &[F(5e-324)], b"0x0p-1022");
        ok(b"%.1a", &[F(1.999755859375)], b"0x2.0p+0");
        ok(b"%.2a", &[F(-1.999755859375)], b"-0x2.00p+0");
        ok(b"%.1a", &[F(1.03125)], b"0x1.0p+0");
        ok(b"%.1a", &[F(1.09375)], b"0x1.2p+0");
        ok(b"%.1a", &[F(1.093994140625)], b"0x1.2p+0");
        ok(b"%.12a", &[F(1.9999999999999998)], b"0x2.000000000000p+0");
        ok(b"%.13a", &[I(1)], b"0x1.0000000000000p+0");
        ok(b"%.20a", &[F(0.1)], b"0x1.999999999999a0000000p-4");
        ok(b"%.3a", &[F(1.7974736898995642e+308)], b"0x1.fffp+1023");
        ok(b"%.0a", &[F(3.337610787760802e-308)], b"0x2p-1022");
        ok(b"%.0a", &[F(1.1125369292536007e-308)], b"0x0p-1022");
        ok(b"%.0a", &[F(1.112536929253601e-308)], b"0x1p-1022");
        ok(b"%.1a", &[F(2.1555403004288513e-308)], b"0x1.0p-1022");
        ok(b"%#A", &[I(2)], b"0X1.P+1");
        ok(b"%020A", &[F(-0.1)], b"-0X1.999999999999AP-4");
        ok(
            b"%q",
            &[s(b"a\"b\\c\x0ad\x0de\x00f\x01g\x012")],
            b"\"a\\\"b\\\\c\\\x0ad\\13e\\0f\\1g\\0012\"",
        );
        ok(b"%q", &[s(b"\x0d\x0a\x09\\")], b"\"\\13\\\x0a\\9\\\\\"");
        ok(b"%q", &[s(b"1\x002\x00a")], b"\"1\\0002\\0a\"");
        ok(b"%q", &[s(b"\x1f\x1f9")], b"\"\\31\\0319\"");
        ok(b"%q", &[s(b"\x7f\xc8\xff")], b"\"\\127\xc8\xff\"");
        ok(b"%q", &[s(b"\x009")], b"\"\\0009\"");
        ok(b"%q", &[s(b"")], b"\"\"");
        ok(b"%q", &[s(b"\x099\x09")], b"\"\\0099\\9\"");
        ok(b"%q", &[s(b"\x1b0")], b"\"\\0270\"");
        ok(b"%q", &[F(0.1)], b"0x1.999999999999ap-4");
        ok(b"%q", &[F(f64::INFINITY)], b"1e9999");
        ok(b"%q", &[F(f64::NEG_INFINITY)], b"-1e9999");
        ok(b"%q", &[F(-f64::NAN)], b"(0/0)");
        ok(b"%q", &[F(f64::NAN)], b"(0/0)");
        ok(b"%q", &[F(1.0)], b"0x1p+0");
        ok(b"%q", &[I(i64::MIN)], b"0x8000000000000000");
        ok(b"%q", &[I(9223372036854775807)], b"9223372036854775807");
        ok(b"%q", &[I(42)], b"42");
        ok(b"%q", &[I(-42)], b"-42");
        ok(b"%q", &[Nil], b"nil");
        ok(b"%q", &[B(true)], b"true");
        ok(b"%q", &[B(false)], b"false");
        ok(b"%q", &[F(-0.0)], b"-0x0p+0");
        ok(b"%q", &[F(1e+100)], b"0x1.249ad2594c37dp+332");
        ok(b"%q", &[F(9.223372036854776e+18)], b"0x1p+63");
        ok(b"%q", &[F(-9.223372036854776e+18)], b"-0x1p+63");
        ok(b"%q", &[F(1e-310)], b"0x0.012688b70e62bp-1022");
        ok(b"%q", &[F(0.3333333333333333)], b"0x1.5555555555555p-2");
        ok(b"%q %q", &[I(1), s(b"x")], b"1 \"x\"");
        ok(b"%#.5g", &[F(99999.9)], b"1.e+05");
        ok(b"%#g", &[F(999999.7)], b"1.e+06");
        ok(b"%#.3g", &[F(999.5)], b"1.e+03");
        ok(b"%#.2g", &[F(99.96)], b"1.e+02");
        ok(b"%#.3g", &[F(99.96)], b"100.");
        ok(b"%#.5g", &[F(9999.99)], b"10000.");
        ok(b"%#.3g", &[F(9.9999e-05)], b"0.000100");
        ok(b"%#.1g", &[F(9.5)], b"1.e+01");
        ok(b"%#G", &[F(-999999.995)], b"-1.E+06");
        ok(b"%#.2g", &[F(9.96e+22)], b"1.0e+23");
        ok(b"%.3g", &[F(999.5)], b"1e+03");
    }

    #[test]
    fn tostring_is_lazy_and_its_error_propagates() {
        let args = [other("table"), I(1)];
        let mut calls = 0;
        let mut out = Vec::new();
        let done = format(&mut out, b"%d", &args[1..], |_| {
            calls += 1;
            Ok::<_, FormatError>(Vec::new())
        });
        assert_eq!((done, &out[..], calls), (Ok(()), &b"1"[..], 0));
        let failed = format(&mut out, b"%s", &args, |_| {
            Err(FormatError::Invalid("boom".into()))
        });
        assert_eq!(failed.unwrap_err().to_string(), "boom");
    }

    #[test]
    fn format_g_is_c_g() {
        // string.format("%.14g", x) in lua5.4 5.4.4
        assert_eq!(format_g(1.0 / 3.0, 14), "0.33333333333333");
        assert_eq!(format_g(2f64.powi(63), 14), "9.2233720368548e+18");
        assert_eq!(format_g(100.0, 14), "100");
        assert_eq!(format_g(f64::NEG_INFINITY, 14), "-inf");
    }
}
