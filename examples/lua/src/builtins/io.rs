//! The io library (`liolib.c`). A file handle is a table with the shared
//! `FILE*` metatable (`__index`: the methods, `__name`, `__tostring`)
//! whose serial number keys its stream here; `type` calls it userdata.
//! `io.write`, `io.read`, `io.lines`, `io.open`... are the prelude's (they
//! use the default files it keeps, or return iterators); their prims
//! and the methods are here.

use super::{boolean, def, flush_out, int, prim, rets, str_obj, write_out, Call, Def, Rets, FILE};
use crate::strings::bytes_of;
use crate::table::{self as tbl, new_table};
use crate::value::{float_of, int_of, is_float, is_int};
use crate::vm::{Str, Table};
use majit::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{BufRead, Read, Seek, SeekFrom, Write};

pub(super) const DEFS: &[Def] = &[
    def(FILE, "read", "read", f_read),
    def(FILE, "write", "write", f_write),
    def(FILE, "close", "close", f_close),
    def(FILE, "flush", "flush", f_flush),
    def(FILE, "seek", "seek", f_seek),
    def(FILE, "setvbuf", "setvbuf", f_setvbuf),
    def("io", "type", "io.type", io_type),
    prim("file_tostring", "tostring", 0, f_tostring),
    prim("io.write", "io.write", 1, io_write),
    prim("io.read", "io.read", 1, io_read),
    prim("io.open", "io.open", 1, io_open),
    prim("io.close", "io.close", 0, f_close),
    prim("checkfile", "?", 1, check_file),
    prim("readline", "for iterator", 1, readline),
];

/// A file's stream.
enum Stream {
    Stdin,
    Stdout,
    Stderr,
    Disk(Box<DiskFile>),
    Closed,
}

/// A file on disk with C stdio's buffering: reads fill `rbuf`, writes
/// collect in `wbuf`; switching direction or seeking settles both.
struct DiskFile {
    file: std::fs::File,
    rbuf: Vec<u8>,
    rpos: usize,
    wbuf: Vec<u8>,
}

impl DiskFile {
    /// Drops the read-ahead, moving the file back to the logical position.
    fn settle_reads(&mut self) -> std::io::Result<()> {
        let unread = (self.rbuf.len() - self.rpos) as i64;
        self.rbuf.clear();
        self.rpos = 0;
        if unread > 0 {
            self.file.seek(SeekFrom::Current(-unread))?;
        }
        Ok(())
    }
}

impl Read for DiskFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for DiskFile {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.flush()?;
        if self.rpos == self.rbuf.len() {
            self.rbuf.resize(8192, 0);
            let n = self.file.read(&mut self.rbuf)?;
            self.rbuf.truncate(n);
            self.rpos = 0;
        }
        Ok(&self.rbuf[self.rpos..])
    }

    fn consume(&mut self, n: usize) {
        self.rpos += n;
    }
}

impl Write for DiskFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.settle_reads()?;
        self.wbuf.extend_from_slice(buf);
        if self.wbuf.len() >= 8192 {
            self.flush()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.wbuf.is_empty() {
            self.file.write_all(&self.wbuf)?;
            self.wbuf.clear();
        }
        Ok(())
    }
}

thread_local! {
    /// The streams of the file handles, by the handles' serial numbers.
    static FILES: RefCell<HashMap<i64, Stream>> = RefCell::new(HashMap::new());
    static STDIN: RefCell<std::io::BufReader<std::io::Stdin>> =
        RefCell::new(std::io::BufReader::new(std::io::stdin()));
    /// Standard output's buffering (`setvbuf`): `no`, `line` or `full`.
    static STDOUT_MODE: RefCell<&'static str> = const { RefCell::new("full") };
}

/// All of standard input that is left (`loadfile` without a file name).
pub(super) fn read_stdin_all() -> std::io::Result<Vec<u8>> {
    let mut all = Vec::new();
    STDIN.with(|r| r.borrow_mut().read_to_end(&mut all))?;
    Ok(all)
}

/// Whether `v` is a file handle.
pub(super) fn is_file(v: Obj) -> bool {
    v.is::<Table>() && FILES.with(|f| f.borrow().contains_key(&v.cast::<Table>().serial()))
}

/// Makes the `FILE*` metatable (its methods: `methods`) and the standard
/// files `io.stdin`, `io.stdout`, `io.stderr`; the prelude gets them as
/// `prims.filemeta`, `prims.stdin`...
pub(super) fn install(io: Table, methods: Table, prims: Table) {
    let meta = new_table(0, 4);
    tbl::set(meta, str_obj(b"__name"), str_obj(b"FILE*"));
    tbl::set(meta, str_obj(b"__index"), Obj::from(methods));
    tbl::set(
        meta,
        str_obj(b"__tostring"),
        tbl::get_bytes(prims, b"file_tostring"),
    );
    tbl::set(prims, str_obj(b"filemeta"), Obj::from(meta));
    for (name, stream) in [
        ("stdin", Stream::Stdin),
        ("stdout", Stream::Stdout),
        ("stderr", Stream::Stderr),
    ] {
        let f = new_file(meta, stream);
        tbl::set(io, str_obj(name.as_bytes()), f);
        tbl::set(prims, str_obj(name.as_bytes()), f);
    }
}

/// A new file handle for `stream`.
fn new_file(meta: Table, stream: Stream) -> Obj {
    let f = new_table(0, 0);
    f.set_meta(Obj::from(meta));
    FILES.with(|files| files.borrow_mut().insert(f.serial(), stream));
    Obj::from(f)
}

/// Runs `f` on the stream of file handle `file`.
fn with_stream<R>(file: Table, f: impl FnOnce(&mut Stream) -> R) -> R {
    FILES.with(|files| {
        let mut files = files.borrow_mut();
        f(files.get_mut(&file.serial()).expect("a file handle"))
    })
}

fn is_closed(file: Table) -> bool {
    with_stream(file, |s| matches!(s, Stream::Closed))
}

/// Argument `i` as a file handle, open (`tofile`).
fn to_file(c: &Call, i: usize) -> Result<Table, Obj> {
    let v = c.arg(i);
    if !is_file(v) {
        return Err(c.expected(i, "FILE*"));
    }
    let file = v.cast::<Table>();
    match is_closed(file) {
        true => Err(c.error("attempt to use a closed file")),
        false => Ok(file),
    }
}

/// The failure results of an I/O error (`luaL_fileresult`): `nil`, the
/// message (after `name: `), the error number.
fn failure(e: &std::io::Error, name: Option<&[u8]>) -> Rets {
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or_default();
    let mut message = name.map_or(Vec::new(), |n| [n, b": "].concat());
    message.extend_from_slice(text.as_bytes());
    rets![
        Obj::null(),
        str_obj(&message),
        int(i64::from(e.raw_os_error().unwrap_or(0))),
    ]
}

/// The error a stream gives for a direction it does not have.
fn bad_descriptor() -> std::io::Error {
    std::io::Error::from_raw_os_error(9)
}

/// Writes `bytes` to `stream`.
fn write_stream(stream: &mut Stream, bytes: &[u8]) -> std::io::Result<()> {
    match stream {
        Stream::Stdout => {
            write_out(bytes);
            let mode = STDOUT_MODE.with(|m| *m.borrow());
            if mode == "no" || (mode == "line" && bytes.contains(&b'\n')) {
                flush_out();
            }
            Ok(())
        }
        Stream::Stderr => std::io::stderr().write_all(bytes),
        Stream::Disk(d) => d.write_all(bytes),
        Stream::Stdin | Stream::Closed => Err(bad_descriptor()),
    }
}

/// `file:write(...)` for the values from argument `first` on: strings,
/// and numbers as `%.14g` or integers; returns the file.
fn write_values(c: &Call, file: Table, first: usize) -> Result<Rets, Obj> {
    for i in first..c.args.len() {
        let v = c.arg(i);
        let bytes = if is_int(v) {
            int_of(v).to_string().into_bytes()
        } else if is_float(v) {
            crate::format::format_g(float_of(v), 14).into_bytes()
        } else if v.is::<Str>() {
            bytes_of(v.cast::<Str>())
        } else {
            return Err(c.expected(i, "string"));
        };
        if let Err(e) = with_stream(file, |s| write_stream(s, &bytes)) {
            return Ok(failure(&e, None));
        }
    }
    Ok(rets![Obj::from(file)])
}

fn f_write(c: &Call) -> Result<Rets, Obj> {
    let file = to_file(c, 0)?;
    write_values(c, file, 1)
}

/// The default file, given by the prelude as argument 0, which must be
/// open (`getiofile`).
fn default_file(c: &Call, which: &str) -> Result<Table, Obj> {
    let file = c.arg(0).cast::<Table>();
    match is_closed(file) {
        true => Err(c.error(&format!("default {which} file is closed"))),
        false => Ok(file),
    }
}

/// The prelude's `io.write(out, ...)`.
fn io_write(c: &Call) -> Result<Rets, Obj> {
    let file = default_file(c, "output")?;
    write_values(c, file, 1)
}

/// Runs `f` on the stream of `file` as a reader.
fn with_reader<R>(
    file: Table,
    f: impl FnOnce(&mut dyn BufRead) -> std::io::Result<R>,
) -> std::io::Result<R> {
    with_stream(file, |s| match s {
        Stream::Stdin => STDIN.with(|r| f(&mut *r.borrow_mut())),
        Stream::Disk(d) => f(d.as_mut()),
        _ => Err(bad_descriptor()),
    })
}

fn peek(r: &mut dyn BufRead) -> std::io::Result<Option<u8>> {
    Ok(r.fill_buf()?.first().copied())
}

/// A line, without its newline unless `keep`; `None` at the end.
fn read_line(r: &mut dyn BufRead, keep: bool) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    r.read_until(b'\n', &mut line)?;
    let newline = line.last() == Some(&b'\n');
    if newline && !keep {
        line.pop();
    }
    Ok((newline || !line.is_empty()).then_some(line))
}

/// Up to `n` bytes; `None` when none are left.
fn read_chars(r: &mut dyn BufRead, n: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut out = Vec::new();
    r.take(n).read_to_end(&mut out)?;
    Ok((!out.is_empty()).then_some(out))
}

/// Most bytes of a numeral `read("n")` takes (`L_MAXLENNUM`).
const MAX_NUMERAL: usize = 200;

/// `read("n")` (`read_number`): takes the longest prefix that looks like
/// a numeral (lookahead of one byte) and converts it.
fn read_number(r: &mut dyn BufRead) -> std::io::Result<Option<Obj>> {
    while peek(r)?.is_some_and(crate::number::is_space) {
        r.consume(1);
    }
    let mut buf: Vec<u8> = Vec::new();
    let mut overflow = false;
    // Takes the next byte if it is in `set`.
    let mut take = |r: &mut dyn BufRead, buf: &mut Vec<u8>, set: &dyn Fn(u8) -> bool| {
        let Some(c) = peek(r)? else {
            return Ok(false);
        };
        if !set(c) {
            return Ok(false);
        }
        if buf.len() >= MAX_NUMERAL {
            overflow = true;
            return Ok(false);
        }
        buf.push(c);
        r.consume(1);
        Ok::<bool, std::io::Error>(true)
    };
    take(r, &mut buf, &|c| c == b'-' || c == b'+')?;
    let mut count = 0;
    let mut hex = false;
    if take(r, &mut buf, &|c| c == b'0')? {
        if take(r, &mut buf, &|c| c == b'x' || c == b'X')? {
            hex = true;
        } else {
            count = 1;
        }
    }
    let digit = move |c: u8| {
        if hex {
            c.is_ascii_hexdigit()
        } else {
            c.is_ascii_digit()
        }
    };
    while take(r, &mut buf, &digit)? {
        count += 1;
    }
    if take(r, &mut buf, &|c| c == b'.')? {
        while take(r, &mut buf, &digit)? {
            count += 1;
        }
    }
    let exponent = move |c: u8| {
        if hex {
            c == b'p' || c == b'P'
        } else {
            c == b'e' || c == b'E'
        }
    };
    if count > 0 && take(r, &mut buf, &exponent)? {
        take(r, &mut buf, &|c| c == b'-' || c == b'+')?;
        while take(r, &mut buf, &|c: u8| c.is_ascii_digit())? {}
    }
    if overflow {
        return Ok(None);
    }
    Ok(match crate::number::str_to_number(&buf) {
        Some(crate::number::Number::Int(i)) => Some(int(i)),
        Some(crate::number::Number::Float(f)) => Some(super::float(f)),
        None => None,
    })
}

/// One read format, from a `read` argument.
enum Format {
    Count(u64),
    Number,
    Line(bool),
    All,
}

/// Reads `format`: `None` on failure (the end).
fn read_one(r: &mut dyn BufRead, format: &Format) -> std::io::Result<Option<Obj>> {
    Ok(match format {
        Format::Count(0) => (!r.fill_buf()?.is_empty()).then(|| str_obj(b"")),
        Format::Count(n) => read_chars(r, *n)?.map(|s| str_obj(&s)),
        Format::Number => read_number(r)?,
        Format::Line(keep) => read_line(r, *keep)?.map(|s| str_obj(&s)),
        Format::All => {
            let mut all = Vec::new();
            r.read_to_end(&mut all)?;
            Some(str_obj(&all))
        }
    })
}

/// `file:read(...)` with the formats from argument `first` on (`g_read`):
/// a value per format until one fails, which gives `nil` and ends it.
fn read_values(c: &Call, file: Table, first: usize) -> Result<Rets, Obj> {
    let mut formats = Vec::new();
    for i in first..c.args.len().max(first + 1) {
        let v = c.arg(i);
        let format = if i >= c.args.len() {
            Format::Line(false)
        } else if is_int(v) || is_float(v) {
            Format::Count(c.integer(i)? as u64)
        } else {
            let s = c.string(i)?;
            match s.strip_prefix(b"*").unwrap_or(&s).first() {
                Some(b'n') => Format::Number,
                Some(b'l') => Format::Line(false),
                Some(b'L') => Format::Line(true),
                Some(b'a') => Format::All,
                _ => return Err(c.bad(i, "invalid format")),
            }
        };
        formats.push(format);
    }
    let read = with_reader(file, |r| {
        let mut out = Rets::new();
        for format in &formats {
            let v = read_one(r, format)?;
            out.push(v.unwrap_or(Obj::null()));
            if v.is_none() {
                break;
            }
        }
        Ok(out)
    });
    Ok(read.unwrap_or_else(|e| failure(&e, None)))
}

fn f_read(c: &Call) -> Result<Rets, Obj> {
    let file = to_file(c, 0)?;
    read_values(c, file, 1)
}

/// The prelude's `io.read(input, ...)`.
fn io_read(c: &Call) -> Result<Rets, Obj> {
    let file = default_file(c, "input")?;
    read_values(c, file, 1)
}

/// The prelude's `readline(file, toclose, ...)`: one step of a `lines`
/// iterator (`io_readline`); closes the file at the end when `toclose`.
fn readline(c: &Call) -> Result<Rets, Obj> {
    let file = c.arg(0).cast::<Table>();
    if is_closed(file) {
        return Err(c.error("file is already closed"));
    }
    let values = read_values(c, file, 2)?;
    if crate::value::truthy(values[0]) {
        return Ok(values);
    }
    if values.len() > 1 {
        let message = crate::strings::text_of(values[1]).unwrap_or_default();
        return Err(c.error(&String::from_utf8_lossy(&message)));
    }
    if crate::value::truthy(c.arg(1)) {
        close_stream(file).map_err(|e| c.error(&e.to_string()))?;
    }
    Ok(Rets::new())
}

/// Closes `file`'s stream (a standard file stays open: `Ok(false)`).
fn close_stream(file: Table) -> std::io::Result<bool> {
    with_stream(file, |s| match s {
        Stream::Stdin | Stream::Stdout | Stream::Stderr => Ok(false),
        Stream::Disk(d) => {
            let flushed = d.flush();
            *s = Stream::Closed;
            flushed.map(|_| true)
        }
        Stream::Closed => Ok(true),
    })
}

fn f_close(c: &Call) -> Result<Rets, Obj> {
    let file = to_file(c, 0)?;
    Ok(match close_stream(file) {
        Ok(true) => rets![boolean(true)],
        Ok(false) => rets![Obj::null(), str_obj(b"cannot close standard file")],
        Err(e) => failure(&e, None),
    })
}

fn f_flush(c: &Call) -> Result<Rets, Obj> {
    let file = to_file(c, 0)?;
    let flushed = with_stream(file, |s| match s {
        Stream::Stdout => {
            flush_out();
            Ok(())
        }
        Stream::Disk(d) => d.flush(),
        _ => Ok(()),
    });
    Ok(flushed.map_or_else(|e| failure(&e, None), |_| rets![boolean(true)]))
}

fn f_seek(c: &Call) -> Result<Rets, Obj> {
    let file = to_file(c, 0)?;
    let whence = c.opt_string(1, b"cur")?;
    let offset = c.opt_integer(2, 0)?;
    let to = match whence.as_slice() {
        b"set" => SeekFrom::Start(offset as u64),
        b"cur" => SeekFrom::Current(offset),
        b"end" => SeekFrom::End(offset),
        _ => {
            let name = String::from_utf8_lossy(&whence).into_owned();
            return Err(c.bad(1, &format!("invalid option '{name}'")));
        }
    };
    let sought = with_stream(file, |s| match s {
        Stream::Disk(d) => {
            d.flush()?;
            d.settle_reads()?;
            d.file.seek(to)
        }
        // Pipes and terminals: what `fseek` says of them.
        _ => Err(std::io::Error::from_raw_os_error(29)),
    });
    Ok(sought.map_or_else(|e| failure(&e, None), |p| rets![int(p as i64)]))
}

fn f_setvbuf(c: &Call) -> Result<Rets, Obj> {
    let file = to_file(c, 0)?;
    let mode = c.string(1)?;
    let Some(mode) = ["no", "full", "line"]
        .into_iter()
        .find(|m| m.as_bytes() == mode)
    else {
        let name = String::from_utf8_lossy(&mode).into_owned();
        return Err(c.bad(1, &format!("invalid option '{name}'")));
    };
    c.opt_integer(2, 0)?;
    if with_stream(file, |s| matches!(s, Stream::Stdout)) {
        flush_out();
        STDOUT_MODE.with(|m| *m.borrow_mut() = mode);
    }
    Ok(rets![boolean(true)])
}

fn f_tostring(c: &Call) -> Result<Rets, Obj> {
    let file = c.arg(0).cast::<Table>();
    let text = match is_closed(file) {
        true => "file (closed)".to_string(),
        false => format!("file (0x{:012x})", 0x7f00_0000_0000 + file.serial() * 0x40),
    };
    Ok(rets![str_obj(text.as_bytes())])
}

fn io_type(c: &Call) -> Result<Rets, Obj> {
    let v = c.any(0)?;
    Ok(rets![match is_file(v) {
        false => Obj::null(),
        true if is_closed(v.cast::<Table>()) => str_obj(b"closed file"),
        true => str_obj(b"file"),
    }])
}

/// The prelude's `checkfile(name, f)`: raises unless `f` is an open
/// file, as the library function `name` does (`tofile`).
fn check_file(c: &Call) -> Result<Rets, Obj> {
    let f = c.arg(1);
    if !is_file(f) {
        let name = String::from_utf8_lossy(&c.string(0)?).into_owned();
        let got = match c.args.len() > 1 {
            true => super::base::shown_type(f),
            false => "no value".to_string(),
        };
        return Err(c.bad_as(1, &name, &format!("FILE* expected, got {got}")));
    }
    to_file(c, 1)?;
    Ok(Rets::new())
}

/// Whether `mode` is a valid `fopen` mode as lua5.4 checks it.
fn valid_mode(mode: &[u8]) -> bool {
    let rest = match mode.split_first() {
        Some((b'r' | b'w' | b'a', rest)) => rest,
        _ => return false,
    };
    let rest = rest.strip_prefix(b"+").unwrap_or(rest);
    rest.iter().all(|&c| c == b'b')
}

/// The prelude's `io.open(filemeta, name, mode)`: a new handle, or the
/// failure results.
fn io_open(c: &Call) -> Result<Rets, Obj> {
    let meta = c.arg(0).cast::<Table>();
    let name = c.string(1)?;
    let mode = c.opt_string(2, b"r")?;
    if !valid_mode(&mode) {
        return Err(c.bad(2, "invalid mode"));
    }
    let plus = mode.contains(&b'+');
    let mut options = std::fs::OpenOptions::new();
    match mode[0] {
        b'r' => options.read(true).write(plus),
        b'w' => options.write(true).create(true).truncate(true).read(plus),
        _ => options.append(true).create(true).read(plus),
    };
    let path: &std::ffi::OsStr = std::os::unix::ffi::OsStrExt::from_bytes(&name);
    match options.open(path) {
        Ok(file) => {
            let disk = DiskFile {
                file,
                rbuf: Vec::new(),
                rpos: 0,
                wbuf: Vec::new(),
            };
            Ok(rets![new_file(meta, Stream::Disk(Box::new(disk)))])
        }
        Err(e) => Ok(failure(&e, Some(&name))),
    }
}
