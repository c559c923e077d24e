//! The promises of code memory (`codemem.rs`): W^X as the kernel sees it,
//! and `mprotect` failures as errors that leave code runnable.

use majit_backend_dynasm::{codemem, HostBackend};
use majit_ir::{text, Value};
use majit_metainterp::{Backend, CodeId, ExitId};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Counts `i0` down to 0, summing into `i1`; the guard (op 4) exits at 0.
const COUNT: &str = "descr L = target()
[i0, i1]
label(i0, i1, descr=L)
i2 = int_sub(i0, 1)
i3 = int_add(i1, i0)
i4 = int_gt(i2, 0)
guard_true(i4) [i2, i3]
jump(i2, i3, descr=L)";

/// A bridge for the guard of `COUNT`: returns the sum plus 1000.
const BRIDGE: &str = "[i0, i1]
i2 = int_add(i1, 1000)
finish(i2)";

fn compile(b: &mut HostBackend) -> (CodeId, ExitId) {
    let code = b.compile_loop(&text::parse(COUNT).unwrap()).unwrap();
    (code, ExitId { code, op_index: 4 })
}

/// The last value of the exit of running `code` on `n`.
fn sum_to(b: &mut HostBackend, code: CodeId, n: i64) -> Value {
    let d = b.execute(code, &[Value::Int(n), Value::Int(0)]).unwrap();
    *d.values.last().unwrap()
}

/// The mappings of this process that are writable and executable, and
/// the permissions of the one holding `addr`.
fn maps(addr: usize) -> (Vec<String>, String) {
    let text = std::fs::read_to_string("/proc/self/maps").unwrap();
    let mut wx = Vec::new();
    let mut at = String::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let (range, perms) = (fields.next().unwrap(), fields.next().unwrap());
        if perms.contains('w') && perms.contains('x') {
            wx.push(line.to_string());
        }
        let (lo, hi) = range.split_once('-').unwrap();
        let lo = usize::from_str_radix(lo, 16).unwrap();
        let hi = usize::from_str_radix(hi, 16).unwrap();
        if (lo..hi).contains(&addr) {
            at = perms.to_string();
        }
    }
    (wx, at)
}

#[test]
fn code_is_never_writable_and_executable() {
    let mut b = HostBackend::new().unwrap();
    let (code, guard) = compile(&mut b);
    let addr = b.code_range(code).unwrap().start;
    assert_eq!(maps(addr), (vec![], "r-xp".to_string()));
    // Another thread reads the maps while the loop runs; a read counts if
    // it ended before the loop did. The loop runs until the watcher has
    // counted one (each run is 100M iterations).
    let (started, done, during) = (
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicU32::new(0),
    );
    std::thread::scope(|s| {
        s.spawn(|| {
            while !started.load(Ordering::SeqCst) {
                std::hint::spin_loop();
            }
            loop {
                let (wx, at) = maps(addr);
                assert!(wx.is_empty(), "writable and executable: {wx:?}");
                if done.load(Ordering::SeqCst) {
                    break;
                }
                // Reading the maps is not atomic: a read racing a mapping
                // change elsewhere in the process (qemu-user's own, when
                // emulated) can miss the code's line. Such a read says
                // nothing about the code page, so it does not count.
                if at.is_empty() {
                    continue;
                }
                assert_eq!(at, "r-xp");
                during.fetch_add(1, Ordering::SeqCst);
            }
        });
        started.store(true, Ordering::SeqCst);
        while during.load(Ordering::SeqCst) == 0 {
            let sum = sum_to(&mut b, code, 100_000_000);
            assert_eq!(sum, Value::Int(100_000_000 * 100_000_001 / 2));
        }
        done.store(true, Ordering::SeqCst);
    });
    // Attaching a bridge patches a word of the loop's page.
    let bridge = b
        .compile_bridge(guard, &text::parse(BRIDGE).unwrap())
        .unwrap();
    assert_eq!(maps(addr), (vec![], "r-xp".to_string()));
    let bridge_addr = b.code_range(bridge).unwrap().start;
    assert_eq!(maps(bridge_addr).1, "r-xp");
    assert_eq!(sum_to(&mut b, code, 10), Value::Int(55 + 1000));
}

#[test]
fn a_bridge_that_cannot_be_detached_stays_attached() {
    let mut b = HostBackend::new().unwrap();
    let (code, guard) = compile(&mut b);
    let bridge = b
        .compile_bridge(guard, &text::parse(BRIDGE).unwrap())
        .unwrap();
    let blocks = b.code_blocks();
    codemem::fail_next_protects(1);
    let e = b.free_tree(bridge).unwrap_err();
    assert!(e.to_string().contains("mprotect failed"), "{e}");
    assert_eq!(b.code_blocks(), blocks, "nothing unmapped");
    assert_eq!(
        sum_to(&mut b, code, 10),
        Value::Int(55 + 1000),
        "the bridge still runs"
    );
    b.free_tree(bridge).unwrap();
    assert_eq!(b.code_blocks(), blocks - 1);
    let d = b.execute(code, &[Value::Int(10), Value::Int(0)]).unwrap();
    let exit = (d.exit.op_index, d.values[1]);
    assert_eq!(exit, (4, Value::Int(55)), "detached");
}
