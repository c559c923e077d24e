//! `boxed [--no-jit] [--native] [--stats] [--threshold N] FILE`: runs a
//! stack program, printing each printed value on a line and the result.
//! The JIT compiles with RefExec unless `--native` picks
//! majit-backend-dynasm; `--stats` prints the JIT's
//! counters, the heap's collections and sizes, and the wall time to
//! stderr. The nodes live in the thread heap (`MAJIT_NURSERY_SIZE`,
//! `MAJIT_GC_STRESS`, `MAJIT_MAX_HEAP` apply).

use majit::JitParams;
use std::process::ExitCode;
use std::time::Instant;

fn usage() -> ExitCode {
    eprintln!("usage: boxed [--no-jit] [--native] [--stats] [--threshold N] FILE");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let (mut jit, mut stats, mut threshold, mut file) = (true, false, None, None);
    let mut backend = boxed::BackendChoice::RefExec;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--no-jit" => jit = false,
            "--stats" => stats = true,
            "--native" => backend = boxed::BackendChoice::Native,
            "--threshold" => match args.next().and_then(|n| n.parse::<u32>().ok()) {
                Some(n) if n >= 1 => threshold = Some(n),
                _ => {
                    eprintln!("boxed: --threshold needs a positive integer");
                    return usage();
                }
            },
            _ if file.is_none() && !a.starts_with("--") => file = Some(a),
            _ => return usage(),
        }
    }
    let Some(file) = file else { return usage() };
    let prog = match std::fs::read_to_string(&file)
        .map_err(|e| e.to_string())
        .and_then(|t| boxed::assemble(&t).map_err(|e| e.to_string()))
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("boxed: {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let params = match JitParams::from_env() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("boxed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let params = jit.then(|| match threshold {
        Some(t) => params.with_threshold(t),
        None => params,
    });
    let start = Instant::now();
    match boxed::execute_on(&prog, params, backend) {
        Ok((out, result, st)) => {
            for v in out {
                println!("{v}");
            }
            println!("result {result}");
            if stats {
                if let Some(st) = st {
                    eprint!("{st}");
                }
                if let Ok(heap) = majit::gc::thread_heap::shared() {
                    let gc = heap.borrow().stats();
                    eprintln!(
                        "gc: {} minor and {} major collections, {} objects promoted, \
                         heap {} bytes, old space peak {} bytes",
                        gc.minor_collections,
                        gc.major_collections,
                        gc.promoted_objects,
                        gc.heap_bytes,
                        gc.old_bytes_peak
                    );
                }
                eprintln!("wall: {:?}", start.elapsed());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("boxed: {e}");
            ExitCode::FAILURE
        }
    }
}
