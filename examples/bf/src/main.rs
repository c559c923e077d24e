//! `bf [--no-jit] [--native] [--stats] [--threshold N] FILE`: runs a
//! Brainfuck program (input from stdin), printing its output. The JIT
//! compiles with RefExec unless `--native` picks majit-backend-dynasm;
//! `--stats` prints the JIT's counters and the wall time to stderr.

use majit::JitParams;
use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Instant;

fn usage() -> ExitCode {
    eprintln!("usage: bf [--no-jit] [--native] [--stats] [--threshold N] FILE");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let (mut jit, mut stats, mut threshold, mut file) = (true, false, None, None);
    let mut backend = bf::BackendChoice::RefExec;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--no-jit" => jit = false,
            "--stats" => stats = true,
            "--native" => backend = bf::BackendChoice::Native,
            "--threshold" => match args.next().and_then(|n| n.parse::<u32>().ok()) {
                Some(n) if n >= 1 => threshold = Some(n),
                _ => {
                    eprintln!("bf: --threshold needs a positive integer");
                    return usage();
                }
            },
            _ if file.is_none() && !a.starts_with("--") => file = Some(a),
            _ => return usage(),
        }
    }
    let Some(file) = file else { return usage() };
    let src = match std::fs::read_to_string(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bf: {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let prog = match bf::compile(&src) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bf: {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("bf: stdin: {e}");
        return ExitCode::FAILURE;
    }
    let params = match JitParams::from_env() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bf: {e}");
            return ExitCode::FAILURE;
        }
    };
    let params = jit.then(|| match threshold {
        Some(t) => params.with_threshold(t),
        None => params,
    });
    let start = Instant::now();
    match bf::execute_on(&prog, &input, params, backend) {
        Ok((out, st)) => {
            let _ = std::io::stdout().write_all(&out);
            if stats {
                if let Some(st) = st {
                    eprint!("{st}");
                }
                eprintln!("wall: {:?}", start.elapsed());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bf: {e}");
            ExitCode::FAILURE
        }
    }
}
