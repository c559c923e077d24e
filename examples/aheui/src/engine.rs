//! One entry point for both engines: the plain interpreter
//! ([`crate::interp::Machine`], `--no-jit`) and the interpreter annotated
//! for the JIT ([`crate::jit`]), with the same input, output, errors and
//! result, so the CLI, the tests and the benchmarks run either the same way.

use crate::code::CodeSpace;
use crate::error::{Error, Result};
use crate::interp::{Machine, Outcome};
use crate::jit;
use crate::storage::Storages;
use majit_gc::{GcConfig, GcStats};
use majit_metainterp::params::JitParams;
use majit_metainterp::stats::Stats;
use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::rc::Rc;

/// Which interpreter runs the program.
#[derive(Clone, Debug)]
pub enum Engine {
    /// The plain interpreter (`--no-jit`).
    Plain,
    /// The annotated interpreter with the JIT on the host's native backend.
    Jit(JitParams),
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Ran {
    /// ㅎ's exit status, or a stall.
    pub outcome: Outcome,
    /// `--stats` lines about the run: instructions (plain interpreter)
    /// and the GC heap's counters.
    pub run_stats: String,
    /// The JIT's counters.
    pub jit_stats: Option<Stats>,
}

/// Runs `code` on `engine`, reading `input` and writing `output`.
///
/// ```
/// use aheui::{code::CodeSpace, engine::{run, Engine, SharedBuf}, interp::Outcome};
/// use majit_metainterp::params::JitParams;
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
    match engine {
        Engine::Plain => {
            let gc_config = GcConfig::from_env().map_err(|e| Error::Env(e.to_string()))?;
            let mut machine = Machine::new(code, Storages::new(gc_config)?, input, output);
            let outcome = machine.run();
            let run_stats = plain_stats(&machine);
            Ok(Ran {
                outcome: outcome?,
                run_stats,
                jit_stats: None,
            })
        }
        Engine::Jit(params) => {
            let (outcome, stats) = jit::execute(code, input, output, params)?;
            let heap = majit_gc::thread_heap::shared().map_err(|e| Error::Env(e.to_string()))?;
            let run_stats = gc_line(&heap.borrow().stats());
            Ok(Ran {
                outcome,
                run_stats,
                jit_stats: Some(stats),
            })
        }
    }
}

fn plain_stats<R: BufRead, W: Write>(machine: &Machine<R, W>) -> String {
    format!(
        "aheui stats: instructions executed: {}\n{}",
        machine.stats.instructions,
        gc_line(&machine.storages().gc_stats())
    )
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
