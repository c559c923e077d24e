//! GC structs in the thread heap under collection: an interpreter keeping
//! lists of nodes in an array red and in a plain red, building nested
//! temporaries (`Node::new(a, Node::new(b, c))`) that are rooted nowhere,
//! gives the same result plain and with the JIT (RefExec and the native
//! backend, each through `run_driver`) under GC stress, where every
//! safepoint after an allocation collects and moves the reds' objects.

use majit::gc::thread_heap;
#[path = "common/heap.rs"]
mod heap;

use heap::stress_heap;
use majit::jit_interp;
use majit::JitParams;
use majit::RefExec;

#[jit_interp(
    greens = [pc, code],
    reds = [lists, spare, n],
    structs = [Node { value: i64, next: Node }]
)]
fn run(code: &[i64], count: i64) -> i64 {
    let mut pc: usize = 0;
    let mut lists: [Node; 2] = [Node::null(); 2];
    let mut spare: Node = Node::null();
    let mut n: i64 = count;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        match op {
            // Two nodes at once on list 0; list 1 gets a copy of the head.
            0 => {
                lists[0] = Node::new(n, Node::new(n * 3, lists[0]));
                lists[1] = Node::new(lists[0].value() + 1, lists[1]);
            }
            // Garbage, and a node kept in `spare` every 8th iteration.
            1 => {
                let g = Node::new(n, Node::null());
                if n % 8 == 0 {
                    spare = Node::new(g.value(), spare);
                }
            }
            2 => {
                n -= 1;
                if n != 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                let mut total: i64 = 0;
                let mut k: Node = lists[0];
                while !k.is_null() {
                    total = total.wrapping_mul(31).wrapping_add(k.value());
                    k = k.next();
                }
                k = lists[1];
                while !k.is_null() {
                    total = total.wrapping_mul(7).wrapping_add(k.value());
                    k = k.next();
                }
                k = spare;
                while !k.is_null() {
                    total = total.wrapping_add(k.value());
                    k = k.next();
                }
                return total;
            }
            _ => return -1,
        }
    }
}

const CODE: [i64; 3] = [0, 1, 2];

fn minor_collections() -> u64 {
    thread_heap::shared()
        .unwrap()
        .borrow()
        .stats()
        .minor_collections
}

/// The same lists built in Rust.
fn expected(count: i64) -> i64 {
    let (mut l0, mut l1, mut spare) = (Vec::new(), Vec::new(), Vec::new());
    for n in (1..=count).rev() {
        l0.insert(0, n * 3);
        l0.insert(0, n);
        l1.insert(0, n + 1);
        if n % 8 == 0 {
            spare.insert(0, n);
        }
    }
    let mut total: i64 = 0;
    for v in l0 {
        total = total.wrapping_mul(31).wrapping_add(v);
    }
    for v in l1 {
        total = total.wrapping_mul(7).wrapping_add(v);
    }
    spare.iter().fold(total, |t, v| t.wrapping_add(*v))
}

#[test]
fn plain_and_jit_agree_under_gc_stress() {
    let count = 3000;
    let want = expected(count);
    stress_heap();
    assert_eq!(run(&CODE, count), want);
    assert!(minor_collections() >= count as u64);

    stress_heap();
    let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &CODE, count).unwrap(), want);
    assert!(driver.stats().loops_compiled >= 1, "{}", driver.stats());
    assert!(minor_collections() >= count as u64);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_jit_agrees_under_gc_stress() {
    use majit::HostBackend;
    let count = 3000;
    stress_heap();
    let mut driver = run_driver::<HostBackend>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &CODE, count).unwrap(), expected(count));
    assert!(driver.stats().loop_entries >= 1, "{}", driver.stats());
    assert!(minor_collections() >= count as u64);
}
