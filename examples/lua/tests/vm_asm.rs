//! The interpreter on hand-assembled bytecode (the compiler is not needed
//! to test it): recursive `fib` through a cell-held closure, a numeric
//! `for` summing floats, and a run-time error; plain, and with the JIT on
//! RefExec and natively, checking that traces compiled and ran.

use lua::bytecode::{encode, encode_bx, op};
use lua::proto::{self, Proto, UpvalDesc};
use lua::value::{float_of, int_obj, int_of, is_float, is_int};
use lua::vm::{self, Args, Closure, Frame, Str, UpVal};
use majit::gc::thread_heap::RunHeap;
use majit::metainterp::gcheap::GcBackend;
use majit::prelude::*;

/// Appends the words `code(entry)` makes (given their first program
/// counter, for jump targets) as a prototype of `nparams` parameters and
/// `maxstack` registers, word `k` on line `k + 1` of chunk `asm`.
fn proto(code: impl Fn(i64) -> Vec<i64>, nparams: u32, maxstack: u32, up: &[UpvalDesc]) -> i64 {
    let words = code(lua::code::next_pc() as i64);
    let entry = lua::code::append(&words);
    proto::add(Proto {
        entry,
        nparams,
        is_vararg: false,
        maxstack,
        upvals: up.to_vec(),
        defined: 1,
        lines: (1..=words.len() as u32).collect(),
        chunk: "asm".into(),
        names: Default::default(),
    }) as i64
}

/// `local function fib(n) if n < 2 then return n end return fib(n-1) +
/// fib(n-2) end return fib(arg)`.
fn fib_program() -> i64 {
    let fib = proto(
        |at| {
            vec![
                encode(op::LOADI, 1, 0, 0),
                2,
                encode(op::LT, 1, 0, 1),
                at + 5,
                encode(op::RETURN, 0, 2, 0),
                encode(op::GETUPVAL, 1, 0, 0),
                encode(op::LOADI, 3, 0, 0),
                1,
                encode(op::SUB, 2, 0, 3),
                encode(op::CALL, 1, 2, 2),
                encode(op::GETUPVAL, 2, 0, 0),
                encode(op::LOADI, 4, 0, 0),
                2,
                encode(op::SUB, 3, 0, 4),
                encode(op::CALL, 2, 2, 2),
                encode(op::ADD, 1, 1, 2),
                encode(op::RETURN, 1, 2, 0),
            ]
        },
        1,
        5,
        &[UpvalDesc {
            in_stack: false,
            index: 0,
        }],
    );
    let up = [UpvalDesc {
        in_stack: true,
        index: 1,
    }];
    let main = proto(
        |_| {
            vec![
                encode(op::NEWCELL, 1, 1, 0),
                encode_bx(op::CLOSURE, 2, fib as u64),
                encode(op::SETCELL, 1, 2, 0),
                encode(op::MOVE, 3, 0, 0),
                encode(op::CALL, 2, 2, 2),
                encode(op::RETURN, 2, 2, 0),
            ]
        },
        1,
        4,
        &[],
    );
    // fib's upvalue comes from main's register 1 (the cell).
    set_upvals(fib, &up);
    main
}

fn set_upvals(p: i64, up: &[UpvalDesc]) {
    proto::set_upvals(p, up.to_vec());
}

/// `local s = 0.0 for i = 1, arg do s = s + i * 0.5 end return s`.
fn float_sum_program() -> i64 {
    proto(
        |at| {
            vec![
                encode(op::LOADF, 1, 0, 0),
                0.0f64.to_bits() as i64,
                encode(op::LOADI, 2, 0, 0),
                1,
                encode(op::MOVE, 3, 0, 0),
                encode(op::LOADI, 4, 0, 0),
                1,
                encode_bx(op::FORPREP, 2, (at + 13) as u64),
                encode(op::LOADF, 6, 0, 0),
                0.5f64.to_bits() as i64,
                encode(op::MUL, 6, 5, 6),
                encode(op::ADD, 1, 1, 6),
                encode_bx(op::FORLOOP, 2, (at + 8) as u64),
                encode(op::RETURN, 1, 2, 0),
            ]
        },
        1,
        7,
        &[],
    )
}

/// Runs prototype `main` on `arg`, plain or with the JIT driver `jit`;
/// describes its one result or its error.
fn run<B: GcBackend>(main: i64, arg: Obj, jit: Option<&mut JitDriver<B>>) -> String {
    let cl = Closure::new(0, main, Array::<Obj>::new(0), Array::<UpVal>::new(0));
    let mut regs = Array::<Obj>::new(proto::maxstack(main) as usize + vm::SCRATCH);
    regs[0] = arg;
    let frame = Frame::new(
        regs,
        cl,
        Args::new(Array::<Obj>::new(0)),
        0,
        0,
        0,
        Frame::null(),
        -1,
        Args::null(),
        vm::CALLED,
    );
    // The run's collections may move the frame this function reads.
    let heap = RunHeap::current().unwrap();
    let mut roots = [frame.to_raw()];
    let rooted = heap.root(&roots);
    let entry = proto::entry(main) as usize;
    let result = match jit {
        None => vm::run(entry, frame),
        Some(d) => vm::run_jit(d, entry, frame).unwrap(),
    };
    rooted.release(&mut roots);
    let frame = Frame::from_raw(roots[0]);
    match result {
        Ok(n) => {
            assert_eq!(n, 1);
            describe(frame.regs()[frame.ret() as usize])
        }
        Err(e) => format!("error: {}", describe(e)),
    }
}

fn describe(v: Obj) -> String {
    if is_int(v) {
        int_of(v).to_string()
    } else if is_float(v) {
        format!("{:?}", float_of(v))
    } else if v.is::<Str>() {
        String::from_utf8_lossy(&lua::strings::bytes_of(v.cast::<Str>())).into_owned()
    } else {
        "other".into()
    }
}

fn jit_matches_plain<B: GcBackend>() {
    let fib = fib_program();
    let sum = float_sum_program();
    // Arguments are made right before each run: a run's collections move
    // the objects it sees, so a handle kept from before would be stale.
    let cases = [
        (fib, Some(22), "17711", true),
        (sum, Some(1000), "250250.0", false),
        (
            fib,
            None,
            "error: asm:3: attempt to compare nil with number",
            false,
        ),
    ];
    let arg = |n: Option<i64>| n.map_or(Obj::null(), int_obj);
    for (main, n, want, recursive) in cases {
        assert_eq!(run::<B>(main, arg(n), None), want);
        let mut driver = vm::run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
        assert_eq!(run(main, arg(n), Some(&mut driver)), want);
        let s = driver.stats();
        if want.starts_with("error") {
            continue;
        }
        assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
        if recursive {
            assert!(s.entry_traces_compiled >= 1 && s.call_assembler >= 1, "{s}");
        }
    }
}

#[test]
fn refexec_runs_the_bytecode_as_the_plain_interpreter() {
    jit_matches_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_runs_the_bytecode_as_the_plain_interpreter() {
    jit_matches_plain::<HostBackend>();
}
