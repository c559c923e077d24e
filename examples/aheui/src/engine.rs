//! One entry point for both engines: the interpreter of [`crate::jit`]
//! as the plain function (`--no-jit`) or with the JIT, with the same
//! input, output, errors and result, so the CLI, the tests and the
//! benchmarks run either the same way.

use crate::code::CodeSpace;
use crate::error::{Error, Result};
use crate::jit;
use majit::{GcStats, JitParams, Stats};
use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::rc::Rc;

/// Which form of the interpreter runs the program.
#[derive(Clone, Debug)]
pub enum Engine {
    /// The plain function (`--no-jit`).
    Plain,
    /// The annotated interpreter with the JIT on the host's native backend.
    Jit(JitParams),
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// ㅎ ran; the process exit status.
    Halted(u8),
    /// No syllable lies ahead of the cursor: the program can never do
    /// anything again and never halts (the reference loops forever).
    Stalled,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Ran {
    /// ㅎ's exit status, or a stall.
    pub outcome: Outcome,
    /// The `--stats` line of the GC heap's counters.
    pub run_stats: String,
    /// The JIT's counters (none with [`Engine::Plain`]).
    pub jit_stats: Option<Stats>,
}

/// Runs `code` on `engine`, reading `input` and writing `output`.
///
/// ```
/// use aheui::{code::CodeSpace, engine::{run, Engine, Outcome, SharedBuf}};
/// use majit::JitParams;
/// // push 2, push 3, multiply, print, halt
/// let code = CodeSpace::build("박받따망희").unwrap();
/// for engine in [Engine::Plain, Engine::Jit(JitParams::default())] {
///     let out = SharedBuf::default();
///     let ran = run(&code, Box::new(&b""[..]), Box::new(out.clone()), engine).unwrap();
///     assert_eq!((ran.outcome, out.take()), (Outcome::Halted(0), b"6".to_vec()));
/// }
/// ```
pub fn run(
    code: &CodeSpace,
    input: Box<dyn BufRead>,
    output: Box<dyn Write>,
    engine: Engine,
) -> Result<Ran> {
    let params = match engine {
        Engine::Plain => None,
        Engine::Jit(params) => Some(params),
    };
    let (outcome, jit_stats) = jit::execute(code, input, output, params)?;
    let heap = majit::gc::thread_heap::shared().map_err(|e| Error::Env(e.to_string()))?;
    let run_stats = gc_line(&heap.borrow().stats());
    Ok(Ran {
        outcome,
        run_stats,
        jit_stats,
    })
}

/// The `--stats` line of a heap's counters.
fn gc_line(gc: &GcStats) -> String {
    format!(
        "aheui stats: gc: {} minor and {} major collections, {} nodes promoted ({} bytes), \
         {} nursery bytes allocated, {} old bytes (peak {}), {} heap bytes\n",
        gc.minor_collections,
        gc.major_collections,
        gc.promoted_objects,
        gc.promoted_bytes,
        gc.nursery_bytes_allocated,
        gc.old_bytes,
        gc.old_bytes_peak,
        gc.heap_bytes
    )
}

/// A `Write` into a shared buffer, for callers that keep the output.
#[derive(Clone, Default)]
pub struct SharedBuf(Rc<RefCell<Vec<u8>>>);

impl SharedBuf {
    /// The bytes written so far (the buffer is emptied).
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
