//! `stackvm [--no-jit] [--refexec] [--stats] [--threshold N] FILE [ARG]`:
//! runs a stackvm program (see the crate docs), printing what it prints;
//! `ARG`, an integer, is `main`'s argument (the program's size). The JIT
//! compiles to machine code unless `--refexec` picks the reference
//! executor; `--stats` prints the JIT's summary and the wall time to
//! stderr. Exits with status 0 when `main` returns, 1 (and a message on
//! stderr) when the program ends with an uncaught exception, a stack
//! overflow or a type error, 2 on bad usage, 3 when the program does not
//! assemble or the JIT fails.

use stackvm::{Ending, Engine};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

fn usage() -> ExitCode {
    eprintln!("usage: stackvm [--no-jit] [--refexec] [--stats] [--threshold N] FILE [ARG]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let (mut jit, mut native, mut stats, mut threshold) = (true, true, false, None);
    let (mut file, mut arg) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--no-jit" => jit = false,
            "--refexec" => native = false,
            "--stats" => stats = true,
            "--threshold" => match args.next().and_then(|n| n.parse::<u32>().ok()) {
                Some(n) if n >= 1 => threshold = Some(n),
                _ => return usage(),
            },
            _ if file.is_none() && !a.starts_with("--") => file = Some(a),
            _ if file.is_some() && arg.is_none() => match a.parse::<i64>() {
                Ok(n) => arg = Some(n),
                Err(_) => return usage(),
            },
            _ => return usage(),
        }
    }
    let Some(file) = file else { return usage() };
    let prog = match std::fs::read_to_string(&file)
        .map_err(|e| e.to_string())
        .and_then(|t| stackvm::assemble(&t).map_err(|e| e.to_string()))
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("stackvm: {file}: {e}");
            return ExitCode::from(3);
        }
    };
    let engine = match jit {
        true => Engine::Jit { native, threshold },
        false => Engine::Plain,
    };
    let start = Instant::now();
    let run = match stackvm::execute(&prog, engine, arg) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("stackvm: {file}: {e}");
            return ExitCode::from(3);
        }
    };
    let took = start.elapsed();
    let mut out = std::io::stdout().lock();
    if out
        .write_all(run.output.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    if stats {
        if let Some((_, summary)) = &run.stats {
            eprint!("{summary}");
        }
        eprintln!("time: {:.3} s", took.as_secs_f64());
    }
    match run.ending {
        Ending::Returned(_) => ExitCode::SUCCESS,
        ending => {
            eprintln!("stackvm: {ending}");
            ExitCode::FAILURE
        }
    }
}
