//! The nodes live in the thread heap and are collected: the plain
//! interpreter, the JIT on RefExec and the JIT on the native backend give
//! the same results under GC stress (a collection at every safepoint after
//! an allocation, compiled code taking the allocation slow path every
//! time) and with a small nursery over millions of allocations, the heap
//! stays small, and collections happened.

use boxed::BackendChoice;
use majit::gc::{thread_heap, Gc, GcConfig, GcStats};
use majit::JitParams;

/// Builds a stack of `n` nodes (each loop iteration's node escapes into
/// the next) and folds it back to their sum.
fn escape(n: u32) -> boxed::Program {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/programs/escape.txt"))
        .unwrap();
    boxed::assemble(&text.replace("push 1000000", &format!("push {n}"))).unwrap()
}

fn sum_program(n: u32) -> boxed::Program {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/programs/sum.txt")).unwrap();
    boxed::assemble(&text.replace("push 1000000", &format!("push {n}"))).unwrap()
}

/// A fresh thread heap with `config` (64 MiB of address space).
fn install(nursery_size: usize, stress_every: Option<u32>) {
    let config = GcConfig {
        nursery_size,
        stress_every,
        max_heap: 64 << 20,
        ..GcConfig::default()
    };
    thread_heap::install(Gc::new(config).unwrap());
}

fn stats() -> GcStats {
    thread_heap::shared().unwrap().borrow().stats()
}

/// The modes to compare: plain, JIT on RefExec, JIT native.
fn modes() -> [(Option<JitParams>, BackendChoice); 3] {
    let jit = Some(JitParams::default().with_threshold(3));
    [
        (None, BackendChoice::RefExec),
        (jit.clone(), BackendChoice::RefExec),
        (jit, BackendChoice::Native),
    ]
}

#[test]
fn escaping_nodes_under_gc_stress() {
    let n = 20_000u32;
    let want = (n as i64) * (n as i64 + 1) / 2;
    for (params, backend) in modes() {
        install(1024, Some(1));
        let (out, result, jit) = boxed::execute_on(&escape(n), params, backend).unwrap();
        assert_eq!((out, result), (vec![want], 0), "{backend:?}");
        if let Some(jit) = jit {
            assert!(jit.loops_compiled >= 2 && jit.loop_entries > 0, "{jit}");
        }
        let gc = stats();
        // At least one collection per node of the stack.
        assert!(gc.minor_collections >= n as u64, "{backend:?}: {gc:?}");
        assert!(gc.promoted_objects >= n as u64, "{backend:?}: {gc:?}");
    }
}

#[test]
fn the_escape_loop_allocates_in_compiled_code() {
    install(1024, Some(1));
    let params = JitParams::default().with_threshold(3);
    let loops = boxed::compiled_loops(&escape(1000), params).unwrap();
    let allocating = loops
        .iter()
        .filter(|t| t.ops.iter().any(|op| op.opcode == majit::ir::OpCode::New))
        .count();
    assert!(allocating >= 1, "no compiled loop allocates");
}

#[test]
fn millions_of_allocations_in_a_small_heap() {
    // The plain run allocates 6 nodes per iteration; the JIT runs keep
    // them virtual in the loop but not in the escape program.
    let n = 1_000_000u32;
    let want = (n as i64) * (n as i64 + 1) / 2;
    for (params, backend) in modes() {
        install(64 << 10, None);
        let (out, _, _) = boxed::execute_on(&sum_program(n), params.clone(), backend).unwrap();
        assert_eq!(out, vec![want]);
        let gc = stats();
        if params.is_none() {
            assert!(gc.minor_collections > 1000, "{gc:?}");
            assert!(gc.nursery_bytes_allocated > 80_000_000, "{gc:?}");
        }
        assert!(gc.heap_bytes < 4 << 20, "{backend:?}: {gc:?}");

        install(64 << 10, None);
        let m = 300_000;
        let (out, _, _) = boxed::execute_on(&escape(m), params, backend).unwrap();
        assert_eq!(out, vec![(m as i64) * (m as i64 + 1) / 2]);
        let gc = stats();
        // 300 000 live 16-byte nodes at the peak (the last few may still
        // be young when the program ends).
        assert!(
            gc.promoted_objects >= m as u64 * 9 / 10,
            "{backend:?}: {gc:?}"
        );
        assert!(gc.old_bytes_peak < 24 << 20, "{backend:?}: {gc:?}");
    }
}
