//! The library functions written in Rust (`Builtin` values): each takes
//! its arguments and returns its results as `Obj`s, or raises an error
//! value. The interpreter calls them through [`call_builtin`], a residual
//! helper given the frame: the arguments are read from its registers and
//! the results written back there. `pcall` is the interpreter's own (a
//! protected call of itself, however it is reached); functions that call Lua functions back are
//! in the Lua prelude (`prelude.lua`), which gets the private builtins
//! ("prims", the `PRIM` library) as its first argument.
//!
//! The libraries are one module each under `builtins/`; this module keeps
//! the registry ([`call_builtin`], [`install`]) and [`Call`], which words
//! errors as `lua5.4` does for the call's site (see `Call::bad`).

mod base;
pub(crate) mod fast;
mod io;
mod load;
mod math;
mod os;
mod sort;
mod string;
mod table;

use crate::bytecode::op;
use crate::code::insn;
use crate::errors::at;
use crate::proto::{operand_name, position};
use crate::strings::{new_str, text_of, with_text};
use crate::table::{self as tbl, new_table};
use crate::value::{float_obj, float_of, int_obj, int_of, is_float, is_int};
use crate::vm::{Args, Bool, Builtin, Frame, Str, Table, PCALLED};
use majit::prelude::*;
use std::cell::{Cell, RefCell};
use std::io::Write;

pub use base::{raw_equal, tostring_raw};

/// A builtin's code.
type Fun = fn(&Call) -> Result<Rets, Obj>;

/// A builtin's results, inline up to two (most builtins return one): a
/// `Vec` cost a malloc and a free per call.
pub(crate) type Rets = SmallVec<[Obj; 2]>;
pub(crate) use smallvec::smallvec as rets;
use smallvec::SmallVec;

/// The library of the private builtins the prelude uses.
const PRIM: &str = "prim";
/// The library of the file methods (`io.stdout:write`).
const FILE: &str = "FILE*";

/// One builtin: the table [`install`] puts it in (`""`: the globals,
/// [`PRIM`]: the prelude's private table, [`FILE`]: the file methods), its
/// key there, the name its messages use when no call site names it (what
/// lua5.4's `pushglobalfuncname` finds: `string.rep`, `print`), how many
/// leading arguments the prelude adds before the user's (messages count
/// the user's only), and its code.
pub(crate) struct Def {
    lib: &'static str,
    key: &'static str,
    shown: &'static str,
    hidden: usize,
    fun: Fun,
}

/// A builtin of library `lib` (messages name it `shown`).
const fn def(lib: &'static str, key: &'static str, shown: &'static str, fun: Fun) -> Def {
    Def {
        lib,
        key,
        shown,
        hidden: 0,
        fun,
    }
}

/// A private builtin of the prelude, reporting as the library function
/// `shown`, whose first `hidden` arguments are the prelude's.
const fn prim(key: &'static str, shown: &'static str, hidden: usize, fun: Fun) -> Def {
    Def {
        lib: PRIM,
        key,
        shown,
        hidden,
        fun,
    }
}

/// Every builtin, library by library; a builtin's id is its index in
/// their concatenation (`pcall` first).
pub(crate) const LIBS: [&[Def]; 8] = [
    base::DEFS,
    string::DEFS,
    table::DEFS,
    sort::DEFS,
    math::DEFS,
    os::DEFS,
    io::DEFS,
    load::DEFS,
];

/// The id of `pcall`, which the interpreter runs itself (calling the
/// builtin only for its error without arguments).
pub const PCALL: i64 = 0;

pub(crate) fn def_of(id: i64) -> &'static Def {
    let mut i = id as usize;
    for lib in LIBS {
        if i < lib.len() {
            return &lib[i];
        }
        i -= lib.len();
    }
    panic!("no builtin has id {id}")
}

/// Calls builtin `id` with the `nargs` arguments in `frame`'s registers
/// after `base`; writes its results from register `base` on and returns
/// their number. Results past the registers go to `frame.spill` instead,
/// all of them (the interpreter grows the frame: a helper must not).
/// `pc` is the calling instruction; `from_c`: the call is `pcall`'s.
pub fn call_builtin(
    id: i64,
    frame: Frame,
    base: i64,
    nargs: i64,
    pc: i64,
    from_c: bool,
) -> Result<i64, Obj> {
    let def = def_of(id);
    let mut regs = frame.regs();
    let base = base as usize;
    let args = SmallVec::from_slice(&regs.as_slice()[base + 1..base + 1 + nargs as usize]);
    let call = Call {
        args,
        pc,
        def,
        frame,
        from_c,
    };
    let results = (def.fun)(&call).inspect_err(|_| {
        // The prelude's private builtins are part of a "C" function.
        let shown = (def.lib != PRIM).then_some(def.shown);
        if def.key != base::RETHROW {
            crate::traceback::record(frame, pc, shown);
        }
    })?;
    if base + results.len() > regs.len() {
        let mut spill = Array::<Obj>::new(results.len());
        for (i, r) in results.iter().enumerate() {
            spill[i] = *r;
        }
        frame.set_spill(Args::new(spill));
        return Ok(results.len() as i64);
    }
    for (i, r) in results.iter().enumerate() {
        regs[base + i] = *r;
    }
    Ok(results.len() as i64)
}

/// Makes the global functions and library tables in `env` (the globals
/// table). Returns the `string` table (strings' `__index`) and the
/// prelude's private table.
pub fn install(env: Table) -> (Table, Table) {
    let prims = new_table(0, 32);
    let files = new_table(0, 8);
    let mut libs: Vec<(&str, Table)> = vec![("", env), (PRIM, prims), (FILE, files)];
    let mut id = 0;
    for lib in LIBS {
        for d in lib {
            let f = Obj::from(Builtin::new(crate::vm::next_serial(), id));
            id += 1;
            let target = match libs.iter().find(|l| l.0 == d.lib) {
                Some(&(_, t)) => t,
                None => {
                    let t = new_table(0, 16);
                    libs.push((d.lib, t));
                    tbl::set(env, str_obj(d.lib.as_bytes()), Obj::from(t));
                    t
                }
            };
            tbl::set(target, str_obj(d.key.as_bytes()), f);
        }
    }
    let lib = |name: &str| libs.iter().find(|l| l.0 == name).expect("a library").1;
    math::install(lib("math"));
    io::install(lib("io"), files, prims);
    tbl::set(env, str_obj(b"_VERSION"), str_obj(b"Lua 5.4"));
    tbl::set(env, str_obj(b"_G"), Obj::from(env));
    (lib("string"), prims)
}

thread_local! {
    /// The program counters of the prelude's code (`start..end`).
    static PRELUDE: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    static OUT: RefCell<std::io::BufWriter<std::io::Stdout>> =
        RefCell::new(std::io::BufWriter::new(std::io::stdout()));
}

/// Tells the library where the prelude's code is: its functions stand for
/// library functions written in C, so messages skip them (see `Site`).
pub fn set_prelude_code(code: std::ops::Range<usize>) {
    PRELUDE.with(|p| p.set((code.start, code.end)));
}

pub(crate) fn in_prelude(pc: i64) -> bool {
    let (start, end) = PRELUDE.with(Cell::get);
    (start as i64..end as i64).contains(&pc)
}

/// Writes to standard output (buffered: [`flush_out`] at exit).
pub fn write_out(bytes: &[u8]) {
    // A closed pipe ends the output, not the program.
    OUT.with(|o| {
        let _ = o.borrow_mut().write_all(bytes);
    });
}

/// Flushes what [`write_out`] buffered.
pub fn flush_out() {
    OUT.with(|o| {
        let _ = o.borrow_mut().flush();
    });
}

/// A string value.
fn str_obj(b: &[u8]) -> Obj {
    Obj::from(new_str(b))
}

fn int(i: i64) -> Obj {
    int_obj(i)
}

fn float(f: f64) -> Obj {
    float_obj(f)
}

fn boolean(b: bool) -> Obj {
    Obj::from(Bool::new(b))
}

/// Whether `v` is the string `s`.
fn is_str(v: Obj, s: &[u8]) -> bool {
    v.is::<Str>() && v.cast::<Str>().bytes().as_slice() == s
}

/// Who called a builtin, as lua5.4's messages see it.
enum Site {
    /// A Lua function, at this program counter: messages start with its
    /// position and name the function as the call does (`global 'f'`,
    /// `method 'rep'`), if it does.
    Lua {
        pc: i64,
        name: Option<(String, bool)>,
    },
    /// C: `pcall`, or nothing (above the main chunk): no position, the
    /// function's global name.
    C,
}

/// The function name of the call at `pc` (`"rep"`, method or not).
fn call_name(pc: i64) -> Option<(String, bool)> {
    call_name_of(pc).map(|(name, kind)| (name, kind == "method"))
}

/// The function name of the call at `pc` and its kind (`"rep"`,
/// `"method"`), from the compiler's operand description `method 'rep'`.
pub(crate) fn call_name_of(pc: i64) -> Option<(String, String)> {
    let w = insn(pc) & 0xff;
    if w != op::CALL && w != op::TAILCALL && w != op::TFORCALL {
        return None;
    }
    let d = operand_name(pc as usize, 0)?;
    let (kind, rest) = d.split_once(" '")?;
    Some((rest.strip_suffix('\'')?.to_string(), kind.to_string()))
}

/// One call of a builtin: its arguments and where it was made.
pub struct Call {
    pub args: SmallVec<[Obj; 4]>,
    /// The program counter of the calling instruction.
    pub pc: i64,
    def: &'static Def,
    /// The frame of the calling function.
    frame: Frame,
    /// Whether `pcall` made the call (C, for messages).
    from_c: bool,
}

impl Call {
    /// Argument `i` (0-based; `nil` when absent).
    fn arg(&self, i: usize) -> Obj {
        self.args.get(i).copied().unwrap_or(Obj::null())
    }

    /// Where the call was made, the prelude's functions skipped: a
    /// builtin they call speaks for them as lua5.4's C functions speak
    /// for themselves.
    fn site(&self) -> Site {
        let (mut f, mut pc) = (self.frame, self.pc);
        let mut from_c = self.from_c;
        loop {
            if from_c {
                return Site::C;
            }
            if !in_prelude(pc) {
                return Site::Lua {
                    pc,
                    name: call_name(pc),
                };
            }
            if f.parent().is_null() || f.call_pc() < 0 {
                return Site::C;
            }
            // A function `pcall` called runs called from C.
            from_c = f.call_kind() == PCALLED;
            (f, pc) = (f.parent(), f.call_pc());
        }
    }

    /// An error raised by the builtin (`luaL_error`): `message` after the
    /// position of a Lua caller.
    fn error(&self, message: &str) -> Obj {
        match self.site() {
            Site::Lua { pc, .. } => at(pc, message),
            Site::C => str_obj(message.as_bytes()),
        }
    }

    /// `bad argument #i to 'name' (message)` for argument `i` (0-based) as
    /// `luaL_argerror` words it: a method call does not count `self`.
    fn bad(&self, i: usize, message: &str) -> Obj {
        self.bad_as(i, self.def.shown, message)
    }

    /// [`Call::bad`] for a function whose global name is `shown`.
    fn bad_as(&self, i: usize, shown: &str, message: &str) -> Obj {
        let n = (i + 1).saturating_sub(self.def.hidden);
        let text = match self.site() {
            Site::Lua {
                name: Some((name, true)),
                ..
            } if n == 1 => {
                format!("calling '{name}' on bad self ({message})")
            }
            Site::Lua {
                name: Some((name, true)),
                ..
            } => {
                format!("bad argument #{} to '{name}' ({message})", n - 1)
            }
            Site::Lua {
                name: Some((name, false)),
                ..
            } => {
                format!("bad argument #{n} to '{name}' ({message})")
            }
            _ => format!("bad argument #{n} to '{shown}' ({message})"),
        };
        self.error(&text)
    }

    /// `bad argument` for a value of the wrong type (`luaL_typeerror`).
    fn expected(&self, i: usize, what: &str) -> Obj {
        let got = match i < self.args.len() {
            true => base::shown_type(self.arg(i)),
            false => "no value".to_string(),
        };
        self.bad(i, &format!("{what} expected, got {got}"))
    }

    /// Argument `i`, which must be given (`luaL_checkany`).
    fn any(&self, i: usize) -> Result<Obj, Obj> {
        match i < self.args.len() {
            true => Ok(self.arg(i)),
            false => Err(self.bad(i, "value expected")),
        }
    }

    /// Argument `i` as a table (file handles are not).
    fn table(&self, i: usize) -> Result<Table, Obj> {
        let v = self.arg(i);
        match v.is::<Table>() && !io::is_file(v) {
            true => Ok(v.cast::<Table>()),
            false => Err(self.expected(i, "table")),
        }
    }

    /// Argument `i` as a number (numeric strings convert): an `Int` or a
    /// `Float`.
    fn number(&self, i: usize) -> Result<Obj, Obj> {
        let v = crate::arith::to_number(self.arg(i));
        match is_int(v) || is_float(v) {
            true => Ok(v),
            false => Err(self.expected(i, "number")),
        }
    }

    fn float(&self, i: usize) -> Result<f64, Obj> {
        Ok(crate::value::to_f64(self.number(i)?))
    }

    /// Argument `i` as an integer (floats with an integer value and
    /// numeric strings convert).
    fn integer(&self, i: usize) -> Result<i64, Obj> {
        let v = self.number(i)?;
        if is_int(v) {
            return Ok(int_of(v));
        }
        crate::number::float_to_int(float_of(v))
            .ok_or_else(|| self.bad(i, "number has no integer representation"))
    }

    fn opt_integer(&self, i: usize, default: i64) -> Result<i64, Obj> {
        match self.arg(i).is_null() {
            true => Ok(default),
            false => self.integer(i),
        }
    }

    /// Argument `i` as a string (numbers convert).
    fn string(&self, i: usize) -> Result<Vec<u8>, Obj> {
        text_of(self.arg(i)).ok_or_else(|| self.expected(i, "string"))
    }

    /// `f` of argument `i`'s bytes (numbers convert), without copying a
    /// string: `string.byte(s, i)` in a loop over a long `s` stays linear.
    fn with_string<R>(&self, i: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R, Obj> {
        with_text(self.arg(i), f).ok_or_else(|| self.expected(i, "string"))
    }

    fn opt_string(&self, i: usize, default: &[u8]) -> Result<Vec<u8>, Obj> {
        self.with_opt_string(i, default, <[u8]>::to_vec)
    }

    /// [`Call::with_string`] of an optional argument (`default` if `nil`).
    fn with_opt_string<R>(
        &self,
        i: usize,
        default: &[u8],
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, Obj> {
        match self.arg(i).is_null() {
            true => Ok(f(default)),
            false => self.with_string(i, f),
        }
    }

    /// The `string` library table (every chunk's constant 0).
    fn strings(&self) -> Obj {
        self.frame.cl().k()[crate::compile::STRINGS_K]
    }

    /// Where error level `level` points, as `luaL_where` gives it for
    /// `error`: level 1 is the function that called this builtin, each
    /// `pcall` is a level of its own (C: no position), and so is each
    /// prelude function (standing for a C function). Empty past the top.
    fn where_level(&self, level: i64) -> String {
        let (mut f, mut pc) = (self.frame, self.pc);
        let mut from_c = self.from_c;
        let mut n = 1;
        loop {
            if from_c {
                if n == level {
                    return String::new();
                }
                n += 1;
            }
            if n == level {
                return match in_prelude(pc) {
                    true => String::new(),
                    false => format!("{}: ", position(pc as usize)),
                };
            }
            if f.parent().is_null() || f.call_pc() < 0 {
                return String::new();
            }
            // A function `pcall` called runs called from C.
            from_c = f.call_kind() == PCALLED;
            (f, pc) = (f.parent(), f.call_pc());
            n += 1;
        }
    }
}
