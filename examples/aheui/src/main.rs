//! The `aheui` command: `aheui [OPTIONS] FILE` (see `cli.rs` and README.md).
//!
//! Reads and validates the program, builds the code space and runs it with
//! the process's stdin and stdout. The exit status is the program's (from
//! ㅎ); interpreter errors print `aheui: <message>` to stderr and exit with
//! the code of `error.rs`. A program that stalls (no syllable ahead of the
//! cursor) never halts, like the reference; it then waits without using CPU.

use aheui::cli::{self, Command, Options};
use aheui::code::CodeSpace;
use aheui::engine::{self, Engine};
use aheui::error::{Error, Result};
use aheui::interp::Outcome;
use aheui::source;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match cli::parse(&args, |var| std::env::var(var).ok()) {
        Ok(Command::Help) => {
            print!("{}", cli::USAGE);
            ExitCode::SUCCESS
        }
        Ok(Command::Run(options)) => match run(&options) {
            Ok(status) => ExitCode::from(status),
            Err(e) => fail(&e),
        },
        Err(e) => fail(&e),
    }
}

fn fail(e: &Error) -> ExitCode {
    eprintln!("aheui: {e}");
    ExitCode::from(e.exit_code())
}

/// Runs the program of `options`; the exit status on ㅎ.
fn run(options: &Options) -> Result<u8> {
    let source = load(&options.file)?;
    let code = CodeSpace::build(&source)?;
    let engine = match options.jit.enabled {
        true => Engine::Jit(options.jit.params()?),
        false => Engine::Plain,
    };
    let input = Box::new(std::io::BufReader::new(std::io::stdin()));
    let start = Instant::now();
    let ran = engine::run(&code, input, Box::new(std::io::stdout()), engine)?;
    if options.stats {
        eprintln!("aheui stats: time {:.3} s", start.elapsed().as_secs_f64());
        eprint!("{}", ran.run_stats);
        if let Some(st) = &ran.jit_stats {
            eprint!("{st}");
        }
    }
    match ran.outcome {
        Outcome::Halted(status) => Ok(status),
        Outcome::Stalled => loop {
            std::thread::park();
        },
    }
}

/// Reads the program text (`-`: stdin) through the code space's limits.
fn load(path: &str) -> Result<String> {
    if path == "-" {
        return source::read(std::io::stdin().lock(), path);
    }
    let file = std::fs::File::open(path).map_err(|source| Error::Open {
        path: path.to_string(),
        source,
    })?;
    source::read(file, path)
}
