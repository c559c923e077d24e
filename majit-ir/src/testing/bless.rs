//! Rewriting the literal of an [`Expect`] in its source file.
//!
//! The source file on disk is the one the test binary was compiled from,
//! so the `line!()`/`column!()` of each `expect!` name a place in its
//! original text. Every rewrite of one file is kept (per process) and the
//! file is written as its original text with all of them applied, so
//! tests of one file that bless in any order or in parallel do not shift
//! each other's places.

use super::Expect;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// One file's original text and its rewrites: literal start (byte
/// offset) -> (literal end, new literal).
struct FilePatches {
    original: String,
    patches: BTreeMap<usize, (usize, String)>,
}

static FILES: Mutex<BTreeMap<PathBuf, FilePatches>> = Mutex::new(BTreeMap::new());

/// Replaces `e`'s literal in its source file by one holding `actual`.
pub(super) fn rewrite(e: &Expect, actual: &str) -> Result<(), String> {
    let path = locate(e.file)?;
    // A panicking test cannot leave the map half-updated: each entry is
    // replaced whole.
    let mut files = FILES.lock().unwrap_or_else(|p| p.into_inner());
    if !files.contains_key(&path) {
        let original = std::fs::read_to_string(&path).map_err(|err| err.to_string())?;
        let patches = BTreeMap::new();
        files.insert(path.clone(), FilePatches { original, patches });
    }
    let Some(f) = files.get_mut(&path) else {
        return Err("lost the file's entry".into());
    };
    let (start, end) = literal_at(&f.original, e.line, e.column)?;
    let (indent, starts_line) = line_of(&f.original, start);
    let body = if starts_line { indent } else { indent + 4 };
    f.patches.insert(start, (end, render(actual, body, indent)));
    std::fs::write(&path, apply(&f.original, &f.patches)).map_err(|err| err.to_string())
}

/// The file `file!()` names: relative to the workspace root, which is the
/// working directory or one of its ancestors.
fn locate(file: &str) -> Result<PathBuf, String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    cwd.ancestors()
        .map(|dir| dir.join(file))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("no file {file} above {}", cwd.display()))
}

/// The byte range of the first string literal after the `[`, `(` or `{`
/// that follows line `line`, column `column` (both 1-based, columns in
/// characters).
pub(super) fn literal_at(src: &str, line: u32, column: u32) -> Result<(usize, usize), String> {
    let line_start = match line {
        0 | 1 => 0,
        n => src
            .match_indices('\n')
            .nth(n as usize - 2)
            .map(|(i, _)| i + 1)
            .ok_or("line past the end of the file")?,
    };
    let at = src[line_start..]
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map(|(i, _)| line_start + i)
        .ok_or("column past the end of the file")?;
    let open = src[at..]
        .find(['[', '(', '{'])
        .ok_or("no delimiter after expect!")?;
    let inside = &src[at + open + 1..];
    let start = src.len() - inside.trim_start().len();
    let rest = &src[start..];
    let len = if let Some(raw) = rest.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let close = format!("\"{}", "#".repeat(hashes));
        let body = raw[hashes..].strip_prefix('"').ok_or("no string literal")?;
        1 + hashes + 1 + body.find(&close).ok_or("unterminated raw string")? + close.len()
    } else {
        let body = rest
            .strip_prefix('"')
            .ok_or("no string literal after expect!")?;
        let mut escaped = false;
        let end = body
            .char_indices()
            .find(|&(_, c)| {
                let closes = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                closes
            })
            .ok_or("unterminated string")?;
        1 + end.0 + 1
    };
    Ok((start, start + len))
}

/// The indentation of the line holding byte `at`, and whether only
/// that indentation precedes `at` on it.
fn line_of(src: &str, at: usize) -> (usize, bool) {
    let before = &src[src[..at].rfind('\n').map_or(0, |i| i + 1)..at];
    let indent = before.len() - before.trim_start_matches(' ').len();
    (indent, indent == before.len())
}

/// A raw string literal holding `text` on its own lines, indented by
/// `body`, the closing quote indented by `close`.
pub(super) fn render(text: &str, body: usize, close: usize) -> String {
    let hashes = (0..)
        .find(|&n| !text.contains(&format!("\"{}", "#".repeat(n))))
        .unwrap_or(0);
    let fence = "#".repeat(hashes);
    let mut out = format!("r{fence}\"\n");
    for line in text.lines() {
        if !line.is_empty() {
            out.push_str(&" ".repeat(body));
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str(&" ".repeat(close));
    out.push('"');
    out.push_str(&fence);
    out
}

fn apply(original: &str, patches: &BTreeMap<usize, (usize, String)>) -> String {
    let mut out = String::with_capacity(original.len());
    let mut done = 0;
    for (&start, (end, text)) in patches {
        out.push_str(&original[done..start]);
        out.push_str(text);
        done = *end;
    }
    out.push_str(&original[done..]);
    out
}

#[cfg(test)]
mod tests {
    use super::super::dedent;
    use super::*;

    const SRC: &str = "fn t() {\n    check(\"in\", expect![\"old \\\" text\"]);\n    x(expect![\n        r#\"\n        a\"b\n        \"#\n    ]);\n}\n";

    #[test]
    fn literals_are_found_from_the_invocation() {
        let (s, e) = literal_at(SRC, 2, 17).unwrap();
        assert_eq!(&SRC[s..e], "\"old \\\" text\"");
        let (s, e) = literal_at(SRC, 3, 7).unwrap();
        assert!(SRC[s..e].starts_with("r#\"") && SRC[s..e].ends_with("\"#"));
        assert!(literal_at(SRC, 9, 1).is_err());
    }

    #[test]
    fn a_literal_on_its_own_line_keeps_its_indentation() {
        let (s, _) = literal_at(SRC, 3, 7).unwrap();
        assert_eq!(line_of(SRC, s), (8, true));
        let (s, _) = literal_at(SRC, 2, 17).unwrap();
        assert_eq!(line_of(SRC, s), (4, false));
    }

    #[test]
    fn rendered_literals_dedent_to_the_text() {
        for text in ["a\n\n  b", "say \"hi\"", "r\"#x", ""] {
            let lit = render(text, 8, 4);
            let mut patches = BTreeMap::new();
            let (s, e) = literal_at(SRC, 2, 17).unwrap();
            patches.insert(s, (e, lit.clone()));
            let patched = apply(SRC, &patches);
            assert!(patched.contains(&lit), "{patched}");
            let inner = lit.trim_start_matches('r').trim_matches('#');
            let inner = &inner[1..inner.len() - 1];
            assert_eq!(dedent(inner), text, "{lit}");
        }
    }
}
