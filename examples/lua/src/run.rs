//! Running a chunk: parse, compile, set up the globals and the main
//! function's frame, and run it plain or with the JIT, on a thread with a
//! stack deep enough for [`crate::vm::MAX_DEPTH`] nested Lua calls.

use crate::builtins::{flush_out, install, set_prelude_code, tostring_raw};
use crate::compile::{compile, FALSE_K, FIRST_CONSTANT, STRINGS_K, TRUE_K};
use crate::parse::parse;
use crate::proto;
use crate::strings::new_str;
use crate::table::{self, new_table};
use crate::value::{int_obj, is_int};
use crate::vm::{self, Args, Bool, Closure, Frame, Str, UpVal, SCRATCH};
use majit::prelude::*;

/// The native stack a run gets: room for `vm::MAX_DEPTH` nested calls
/// with the JIT in a debug build (mapped lazily, so mostly untouched).
pub const STACK_BYTES: usize = 4 << 30;

/// The JIT's trace limit for Lua (`MAJIT_TRACE_LIMIT` overrides it): at
/// majit's default (6000, RPython's) deltablue recorded half its ops in 11
/// traces aborted as too long. Min of 3 runs: deltablue 1.00 -> 0.89 s,
/// json 0.78 -> 0.65, permute 0.36 -> 0.26, the other programs unchanged;
/// 3000 sent queens' recursion down the slow call path (0.44 -> 1.40 s).
pub const TRACE_LIMIT: usize = 4000;

/// How to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Use the JIT (native backend).
    pub jit: bool,
    /// Print the JIT's statistics to stderr at the end.
    pub stats: bool,
    /// The JIT's loop threshold (default: `JitParams::from_env`'s).
    pub threshold: Option<u32>,
    /// The process exits after the run: the JIT driver is leaked, not
    /// freed ([`majit::JitDriver::leak_at_exit`]).
    pub exiting: bool,
}

/// A script to run: its source, the chunk name its messages use, and the
/// command line (`arg[0]` and the arguments).
#[derive(Clone, Debug)]
pub struct Script {
    pub source: Vec<u8>,
    pub chunk: String,
    pub script_name: String,
    pub args: Vec<String>,
}

/// Runs `script` on a new thread; returns the process exit status (0, or
/// 1 after printing the error to stderr as `lua` does).
pub fn run(script: Script, options: Options) -> i32 {
    let worker = std::thread::Builder::new()
        .name("lua".into())
        .stack_size(STACK_BYTES)
        .spawn(move || run_here(&script, &options));
    match worker.map(|w| w.join()) {
        Ok(Ok(status)) => status,
        Ok(Err(_)) => {
            eprintln!("lua: internal error (the interpreter thread panicked)");
            1
        }
        Err(e) => {
            eprintln!("lua: cannot start the interpreter thread: {e}");
            1
        }
    }
}

/// [`run`] on this thread.
pub fn run_here(script: &Script, options: &Options) -> i32 {
    let status = match execute(script, options) {
        Ok(()) => 0,
        Err(message) => {
            flush_out();
            eprintln!("lua: {message}");
            eprintln!("stack traceback:");
            for line in crate::traceback::lines() {
                eprintln!("\t{line}");
            }
            1
        }
    };
    flush_out();
    status
}

/// The library functions written in Lua (see its header).
const PRELUDE: &[u8] = include_bytes!("prelude.lua");

/// Parses, compiles and runs `script`; `Err` is the message of the error
/// that ended it. The prelude's main function runs first, given the
/// private builtins, the script's main function and its arguments: it
/// sets the library up and then calls the script (so that no handle is
/// held here across a run, which may move objects).
fn execute(script: &Script, options: &Options) -> Result<(), String> {
    let env = new_table(0, 64);
    let (strings, prims) = install(env);
    table::set(
        env,
        Obj::from(new_str(b"arg")),
        Obj::from(arg_table(script)),
    );
    let (env, strings) = (Obj::from(env), Obj::from(strings));
    let start = crate::code::next_pc();
    let prelude = load_chunk(PRELUDE, "=[prelude]", env, strings, false)?;
    set_prelude_code(start..crate::code::next_pc());
    let main = load_chunk(&script.source, &script.chunk, env, strings, true)?;
    let mut va = Array::<Obj>::new(script.args.len() + 2);
    va[0] = Obj::from(prims);
    va[1] = Obj::from(main);
    for (i, a) in script.args.iter().enumerate() {
        va[i + 2] = Obj::from(new_str(a.as_bytes()));
    }
    let p = prelude.proto();
    let regs = Array::<Obj>::new(proto::maxstack(p) as usize + SCRATCH);
    let frame = Frame::new(
        regs,
        prelude,
        Args::new(va),
        0,
        0,
        0,
        Frame::null(),
        -1,
        Args::null(),
        vm::CALLED,
    );
    let entry = proto::entry(p) as usize;
    let result = if options.jit {
        let base = JitParams::default().with_trace_limit(TRACE_LIMIT);
        let mut params = JitParams::from_env_over(base).map_err(|e| e.to_string())?;
        if let Some(t) = options.threshold {
            params = params.with_threshold(t);
        }
        let mut driver = vm::run_driver::<HostBackend>(params).map_err(|e| e.to_string())?;
        let r = vm::run_jit(&mut driver, entry, frame).map_err(|e| e.to_string())?;
        if options.stats {
            flush_out();
            eprintln!("{}", driver.summary());
        }
        if options.exiting {
            driver.leak_at_exit();
        }
        r
    } else {
        vm::run_plain(entry, frame)
    };
    result.map(|_| ()).map_err(error_message)
}

/// Compiles `source` (chunk display name `chunk`) into a closure whose
/// `_ENV` is `env`: the main function of a script, or what `load` returns.
/// `strings` is the `string` library table (strings' `__index`, the
/// constant `K[STRINGS_K]` of every chunk: a builtin finds it in its
/// caller's closure). `Err` is the syntax or compile error's message.
///
/// Call only where no collection can happen before the closure is stored
/// somewhere rooted (a helper, or before the run starts).
pub fn load_chunk(
    source: &[u8],
    chunk: &str,
    env: Obj,
    strings: Obj,
    shebang: bool,
) -> Result<Closure, String> {
    let ast = parse(source, chunk, shebang).map_err(|e| e.to_string())?;
    let compiled = compile(&ast, chunk).map_err(|e| e.to_string())?;
    let mut k = Array::<Obj>::new(compiled.constants.len());
    k[STRINGS_K] = strings;
    k[FALSE_K] = Obj::from(Bool::new(false));
    k[TRUE_K] = Obj::from(Bool::new(true));
    for (i, c) in compiled.constants.iter().enumerate().skip(FIRST_CONSTANT) {
        k[i] = Obj::from(new_str(c));
    }
    let mut up = Array::<UpVal>::new(1);
    up[0] = UpVal::new(env);
    Ok(Closure::new(vm::next_serial(), compiled.main, k, up))
}

/// The `arg` table: the script name at 0, its arguments from 1, the
/// interpreter at -1.
fn arg_table(script: &Script) -> crate::vm::Table {
    let t = new_table(script.args.len() as i64, 2);
    let set = |i: i64, s: &str| {
        table::set(t, int_obj(i), Obj::from(new_str(s.as_bytes())));
    };
    set(-1, "lua");
    set(0, &script.script_name);
    for (i, a) in script.args.iter().enumerate() {
        set(i as i64 + 1, a);
    }
    t
}

/// What `lua` prints for an error value that ended the script.
fn error_message(e: Obj) -> String {
    if e.is::<Str>() || is_int(e) || e.is::<crate::vm::Float>() {
        String::from_utf8_lossy(&tostring_raw(e)).into_owned()
    } else {
        format!("(error object is a {} value)", crate::errors::type_name(e))
    }
}
