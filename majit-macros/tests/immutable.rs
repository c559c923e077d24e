//! `#[immutable]` fields: set by the constructor only. A loop reading
//! `node.next.value` around a residual call keeps the load of `next`
//! (immutable) across the call, while `value` (plain) is loaded again
//! after it; results equal the plain run's. On RefExec and natively.

use majit::prelude::*;

/// A residual helper the optimizer knows nothing about: it could write
/// any plain field.
fn bump(n: Node) -> i64 {
    n.set_value(n.value() + 1);
    1
}

#[jit_interp(
    greens = [pc, code],
    reds = [node, acc, i, n],
    helpers = [residual fn bump(n: Node) -> i64],
    structs = [Node { value: i64, #[immutable] next: Node }],
)]
fn walk(code: &[i64], n0: i64) -> i64 {
    let mut pc: usize = 0;
    let mut node: Node = Node::new(1, Node::new(10, Node::null()));
    let mut acc: i64 = 0;
    let mut i: i64 = 0;
    let n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            0 => acc = acc.wrapping_add(node.next.value),
            1 => acc = acc.wrapping_add(bump(node.next)),
            2 => acc = acc.wrapping_add(node.next.value * 3),
            3 => {
                i += 1;
                if i < n {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                return acc;
            }
            _ => return -1,
        }
        pc += 1;
    }
}

fn loads_survive_calls<B: GcBackend>() {
    let prog = [0, 1, 2, 3];
    let plain = walk(&prog, 500);
    let mut driver = walk_driver::<B>(JitParams::default().with_threshold(5)).unwrap();
    assert_eq!(walk_jit(&mut driver, &prog, 500).unwrap(), plain);
    let s = driver.stats();
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    let loads = |f: &str| trace.matches(&format!("descr=Node.{f})")).count();
    // Unrolled: `next` once in the preamble, then carried through the
    // calls; `value` before and after the call in the preamble, after it
    // in the loop (its load before the call is the last iteration's).
    // Without the mark, `next` is loaded again after each call.
    assert_eq!(loads("next"), 1, "{trace}");
    assert_eq!(loads("value"), 3, "{trace}");
}

#[test]
fn an_immutable_load_survives_a_call_on_refexec() {
    loads_survive_calls::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn an_immutable_load_survives_a_call_natively() {
    loads_survive_calls::<HostBackend>();
}
