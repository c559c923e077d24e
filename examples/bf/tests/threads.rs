//! Several JIT drivers at once, one per thread (the threading contract of
//! docs/metainterp.md): each thread builds its own driver on its own heap
//! and compiles and runs native code, all starting together; every result
//! equals the plain interpreter's, and threads running the same program
//! compile the same loops.

use bf::{compile, execute, execute_on, BackendChoice};
use majit::JitParams;
use std::sync::Barrier;

/// Nested counting loops printing one byte, and an echo loop.
const PROGRAMS: [(&str, &[u8]); 2] = [
    (
        "++++[>++++[>++++[>++++<-]<-]<-]>>>[<<<+>>>-]<<<++++++++++++++++.",
        b"",
    ),
    (",[.,]", b"every thread echoes this"),
];

#[test]
fn drivers_on_several_threads_at_once_agree() {
    let threads = 6;
    let barrier = Barrier::new(threads);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let barrier = &barrier;
                s.spawn(move || {
                    let (src, input) = PROGRAMS[t % PROGRAMS.len()];
                    let prog = compile(src).unwrap();
                    barrier.wait();
                    let params = JitParams::default().with_threshold(2);
                    let (out, stats) =
                        execute_on(&prog, input, Some(params), BackendChoice::Native).unwrap();
                    let stats = stats.unwrap();
                    (t, out, stats.loops_compiled, stats.loop_entries)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, out, compiled, entered) in &results {
        let (src, input) = PROGRAMS[t % PROGRAMS.len()];
        let (plain, _) = execute(&compile(src).unwrap(), input, None).unwrap();
        assert_eq!(*out, plain, "thread {t}");
        assert!(
            *compiled >= 1 && *entered >= 1,
            "thread {t}: {compiled} {entered}"
        );
        let first = &results[t % PROGRAMS.len()];
        assert_eq!(
            (compiled, entered),
            (&first.2, &first.3),
            "thread {t} compiled differently from thread {}",
            first.0
        );
    }
}
