//! The `aheui` command: `aheui [OPTIONS] FILE` (see `cli.rs` and README.md).
//!
//! Reads and validates the program, builds the code space and runs it with
//! the process's stdin and stdout. The exit status is the program's (from
//! ㅎ); interpreter errors print `aheui: <message>` to stderr and exit with
//! the code of `error.rs`. A program that stalls (no syllable ahead of the
//! cursor) never halts, like the reference; it then waits without using CPU.

use aheui::cli::{self, Command, Options};
use aheui::code::CodeSpace;
use aheui::engine::{self, Engine, Outcome};
use aheui::error::{Error, Result};
use aheui::source;
use std::fs::File;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

fn main() -> ExitCode {
    let output = stdout();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match cli::parse(&args, |var| std::env::var(var).ok()) {
        Ok(Command::Help) => {
            print!("{}", cli::USAGE);
            ExitCode::SUCCESS
        }
        Ok(Command::Run(options)) => match run(&options, output) {
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

/// Runs the program of `options`, writing to `output`; the exit status
/// on ㅎ.
fn run(options: &Options, output: Box<dyn Write>) -> Result<u8> {
    let source = load(&options.file)?;
    let code = CodeSpace::build(&source)?;
    let engine = match options.jit.enabled {
        true => Engine::Jit(options.jit.params()?),
        false => Engine::Plain,
    };
    let input = Box::new(std::io::BufReader::new(std::io::stdin()));
    let start = Instant::now();
    let ran = engine::run(&code, input, output, engine)?;
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

/// Whether descriptor 1 was closed when the process started
/// (`aheui prog >&-`). Rust's runtime reopens a closed standard descriptor
/// on /dev/null before `main`, where the output would vanish with status 0,
/// so this is recorded by an ELF constructor, which runs before it.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

#[used]
#[link_section = ".init_array"]
static RECORD_STDOUT: extern "C" fn() = record_stdout;

extern "C" fn record_stdout() {
    // SAFETY: F_GETFD only reads the flags of descriptor 1; no memory is
    // passed.
    let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
    STDOUT_CLOSED.store(closed, Ordering::Relaxed);
}

/// The program's stdout (`engine.rs` buffers it).
fn stdout() -> Box<dyn Write> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Box::new(RawStdout(None));
    }
    // SAFETY: descriptor 1 is open (it was at start, and nothing closes
    // it), and the `ManuallyDrop` keeps this `File` from ever closing it.
    let fd1 = unsafe { File::from_raw_fd(1) };
    Box::new(RawStdout(Some(ManuallyDrop::new(fd1))))
}

/// Descriptor 1, written directly: Rust's `Stdout` reports success for a
/// write that fails with EBADF (e.g. descriptor 1 not open for writing).
/// `None`: it was closed at start, and every write fails.
struct RawStdout(Option<ManuallyDrop<File>>);

impl Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.0 {
            Some(fd1) => fd1.write(buf),
            None => Err(std::io::Error::other("stdout is closed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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
