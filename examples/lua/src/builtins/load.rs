//! Loading code: the prims behind the prelude's `load`, `loadfile`,
//! `dofile` and `require`, and `package.searchpath` (`lbaselib.c`,
//! `lauxlib.c`, `loadlib.c`). Chunks compile with `run::load_chunk`;
//! precompiled (binary) chunks cannot be made here (no `string.dump`),
//! so one is refused with the reason lua5.4's header check gives.

use super::{def, prim, rets, str_obj, Call, Def, Rets};
use crate::parse::chunk_id;
use crate::strings::text_of;
use majit::prelude::*;

pub(super) const DEFS: &[Def] = &[
    prim("load", "load", 1, load),
    prim("loadfile", "loadfile", 1, loadfile),
    def("package", "searchpath", "package.searchpath", searchpath),
];

/// The first byte of a precompiled chunk.
const SIGNATURE: u8 = 0x1b;

/// Why lua5.4 refuses the precompiled chunk `s` (`checkHeader`); chunks
/// that pass it still cannot be loaded here.
fn binary_error(s: &[u8]) -> &'static str {
    let header: [(&[u8], &str); 9] = [
        (b"\x1bLua", "not a binary chunk"),
        (&[0x54], "version mismatch"),
        (&[0], "format mismatch"),
        (b"\x19\x93\r\n\x1a\n", "corrupted chunk"),
        (&[4], "Instruction size mismatch"),
        (&[8], "lua_Integer size mismatch"),
        (&[8], "lua_Number size mismatch"),
        (&0x5678i64.to_le_bytes(), "integer format mismatch"),
        (&370.5f64.to_le_bytes(), "float format mismatch"),
    ];
    let mut at = 0;
    for (expected, why) in header {
        let Some(got) = s.get(at..at + expected.len()) else {
            return "truncated chunk";
        };
        if got != expected {
            return why;
        }
        at += expected.len();
    }
    "precompiled chunks are not supported"
}

/// Compiles `source` named `name` (a chunk name: `=stdin`, `@file`, or
/// the source itself) in mode `mode`, its `_ENV` being `env`: the
/// function, or `nil` and the message.
fn compile(c: &Call, source: &[u8], name: &[u8], mode: &[u8], env: Obj, shebang: bool) -> Rets {
    let binary = source.first() == Some(&SIGNATURE);
    let (kind, letter) = if binary {
        ("binary", b'b')
    } else {
        ("text", b't')
    };
    let refuse = |message: String| rets![Obj::null(), str_obj(message.as_bytes())];
    if !mode.contains(&letter) {
        let mode = String::from_utf8_lossy(mode);
        return refuse(format!("attempt to load a {kind} chunk (mode is '{mode}')"));
    }
    let name = String::from_utf8_lossy(name).into_owned();
    if binary {
        let shown = match name.as_bytes().first() {
            Some(b'@' | b'=') => &name[1..],
            Some(&SIGNATURE) => "binary string",
            _ => &name,
        };
        return refuse(format!(
            "{shown}: bad binary format ({})",
            binary_error(source)
        ));
    }
    match crate::run::load_chunk(source, &chunk_id(&name), env, c.strings(), shebang) {
        Ok(f) => rets![Obj::from(f)],
        Err(message) => refuse(message),
    }
}

/// The environment argument `i`: the given one (even `nil`), else the
/// globals (argument 0, the prelude's).
fn env_arg(c: &Call, i: usize) -> Obj {
    match c.args.len() > i {
        true => c.arg(i),
        false => c.arg(0),
    }
}

/// The prelude's `load(G, chunk [, chunkname [, mode [, env]]])` for a
/// string chunk (the prelude reads a reader function's pieces first).
fn load(c: &Call) -> Result<Rets, Obj> {
    let mode = c.opt_string(3, b"bt")?;
    let Some(source) = text_of(c.arg(1)) else {
        return Err(c.expected(1, "function"));
    };
    let name = c.opt_string(2, &source)?;
    Ok(compile(c, &source, &name, &mode, env_arg(c, 4), false))
}

/// The prelude's `loadfile(G [, filename [, mode [, env]]])`: standard
/// input without a file name; a first line starting with `#` is skipped.
fn loadfile(c: &Call) -> Result<Rets, Obj> {
    let file = c.arg(1);
    let filename = match file.is_null() {
        true => None,
        false => Some(c.string(1)?),
    };
    let mode = c.opt_string(2, b"bt")?;
    let (source, name) = match &filename {
        None => (super::io::read_stdin_all(), b"=stdin".to_vec()),
        Some(f) => {
            let path: &std::ffi::OsStr = std::os::unix::ffi::OsStrExt::from_bytes(f);
            match std::fs::read(path) {
                Ok(source) => (Ok(source), [b"@", f.as_slice()].concat()),
                Err(e) => (Err(e), [b"@", f.as_slice()].concat()),
            }
        }
    };
    let source = match source {
        Ok(s) => s,
        Err(e) => {
            let what = String::from_utf8_lossy(&name[1..]).into_owned();
            let reason = e.to_string();
            let reason = reason.split(" (os error").next().unwrap_or_default();
            let message = format!("cannot open {what}: {reason}");
            return Ok(rets![Obj::null(), str_obj(message.as_bytes())]);
        }
    };
    let source = source.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&source);
    Ok(compile(c, source, &name, &mode, env_arg(c, 4), true))
}

/// `package.searchpath(name, path [, sep [, rep]])`: the first file of
/// `path`'s templates (`?` replaced by `name`, its `sep`s by `rep`) that
/// opens, or `nil` and the list of the files tried.
fn searchpath(c: &Call) -> Result<Rets, Obj> {
    let mut name = c.string(0)?;
    let path = c.string(1)?;
    let sep = c.opt_string(2, b".")?;
    let rep = c.opt_string(3, b"/")?;
    if !sep.is_empty() {
        name = replace(&name, &sep, &rep);
    }
    let mut tried = Vec::new();
    for template in path.split(|&b| b == b';').filter(|t| !t.is_empty()) {
        let file = replace(template, b"?", &name);
        let os: &std::ffi::OsStr = std::os::unix::ffi::OsStrExt::from_bytes(&file);
        if std::fs::File::open(os).is_ok() {
            return Ok(rets![str_obj(&file)]);
        }
        tried.push([b"no file '", file.as_slice(), b"'"].concat());
    }
    Ok(rets![Obj::null(), str_obj(&tried.join(&b"\n\t"[..]))])
}

/// `s` with every `from` replaced by `to` (`luaL_gsub`).
fn replace(s: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_headers_are_refused_as_lua54_checks_them() {
        assert_eq!(binary_error(b"\x1bLua"), "truncated chunk");
        assert_eq!(binary_error(b"\x1bLuaQ"), "version mismatch");
        assert_eq!(binary_error(b"\x1bLub"), "not a binary chunk");
    }

    #[test]
    fn replace_substitutes_every_occurrence() {
        assert_eq!(replace(b"a.b.c", b".", b"/"), b"a/b/c");
        assert_eq!(replace(b"./?.lua;?", b"?", b"m"), b"./m.lua;m");
    }
}
