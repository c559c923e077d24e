//! The tokenizer of trace text: one line at a time into words, `@symbols`
//! and punctuation, each with its 1-based character column.
//!
//! A word is a run of ASCII letters, digits, `_` and `.`; it may start with
//! `-` (negative numbers, `-inf`), and a numeric word may carry a signed
//! exponent (`1e-5`). Everything from `#` to the end of the line is a
//! comment. Any other character is an error naming it and its column.

use crate::error::ParseError;

/// One token of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A name, a number or a keyword.
    Word(String),
    /// `@name`: a namespace symbol.
    Symbol(String),
    /// One of `( ) [ ] , =`.
    Punct(char),
}

impl Tok {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Symbol(s) => format!("`@{s}`"),
            Tok::Punct(c) => format!("`{c}`"),
        }
    }
}

/// A token and the column of its first character.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub col: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Splits one line (without its newline) into tokens, and gives the column
/// where the line's content ends (its comment, or past its last
/// character). `line` is the 1-based line number for errors.
pub(crate) fn lex_line(text: &str, line: usize) -> Result<(Vec<Token>, usize), ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c == '#' {
            return Ok((toks, col));
        } else if c.is_whitespace() {
            i += 1;
        } else if "()[],=".contains(c) {
            toks.push(Token {
                tok: Tok::Punct(c),
                col,
            });
            i += 1;
        } else if c == '@' {
            let end = word_end(&chars, i + 1);
            if end == i + 1 {
                return Err(unexpected(line, col + 1, chars.get(i + 1), "a symbol name"));
            }
            let name: String = chars[i + 1..end].iter().collect();
            toks.push(Token {
                tok: Tok::Symbol(name),
                col,
            });
            i = end;
        } else if is_word_char(c)
            || (c == '-' && chars.get(i + 1).is_some_and(|&d| is_word_char(d)))
        {
            let end = word_end(&chars, i + 1);
            toks.push(Token {
                tok: Tok::Word(chars[i..end].iter().collect()),
                col,
            });
            i = end;
        } else {
            return Err(unexpected(
                line,
                col,
                Some(&c),
                "a name, number or one of `()[],=@#`",
            ));
        }
    }
    Ok((toks, chars.len() + 1))
}

/// The end of the word starting at `start - 1`: word characters, plus a
/// sign right after the exponent marker of a decimal number.
fn word_end(chars: &[char], start: usize) -> usize {
    let first = start - 1;
    let body = if chars[first] == '-' {
        first + 1
    } else {
        first
    };
    let decimal = chars.get(body).is_some_and(|c| c.is_ascii_digit())
        && !matches!(chars.get(body + 1), Some('x' | 'X'));
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        let exp_sign = decimal
            && (c == '+' || c == '-')
            && matches!(chars[i - 1], 'e' | 'E')
            && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit());
        if !(is_word_char(c) || exp_sign) {
            break;
        }
        i += 1;
    }
    i
}

fn unexpected(line: usize, col: usize, c: Option<&char>, expected: &str) -> ParseError {
    ParseError {
        line,
        col,
        expected: expected.to_string(),
        found: match c {
            Some(c) => format!("{c:?}"),
            None => "end of line".to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Tok> {
        lex_line(s, 1)
            .unwrap()
            .0
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn splits_words_numbers_and_punctuation() {
        let w = |s: &str| Tok::Word(s.to_string());
        assert_eq!(
            words("i2 = int_add(i0, -1e-5) # note"),
            vec![
                w("i2"),
                Tok::Punct('='),
                w("int_add"),
                Tok::Punct('('),
                w("i0"),
                Tok::Punct(','),
                w("-1e-5"),
                Tok::Punct(')'),
            ]
        );
        assert_eq!(words("0x1e-5"), vec![w("0x1e"), w("-5")]);
        assert_eq!(words("@f.x"), vec![Tok::Symbol("f.x".to_string())]);
        assert_eq!(lex_line("[i0]  # inputs", 1).unwrap().1, 7);
    }

    #[test]
    fn rejects_stray_characters() {
        let e = lex_line("i0 = $", 3).unwrap_err();
        assert_eq!((e.line, e.col, e.found.as_str()), (3, 6, "'$'"));
        assert_eq!(lex_line("a - b", 1).unwrap_err().col, 3);
        assert_eq!(lex_line("@ x", 1).unwrap_err().col, 2);
    }
}
