//! `Obj` and `Array<T>` in signatures: residual, elidable, dont-look-inside
//! and loop-invariant helpers and traced functions take and return them.
//! Run plain and with the JIT (RefExec and the native backend) under GC
//! stress, where every safepoint after an allocation collects and moves
//! what the helpers returned.

#[path = "common/heap.rs"]
mod heap;

use heap::stress_heap;
use majit::prelude::*;

/// The VM's operations on dynamic values.
mod vm {
    use super::{Num, Pair};
    use majit::prelude::*;

    /// A fresh array of `n` numbers (residual: returns an `Array<Obj>`).
    pub fn make_items(n: i64) -> Array<Obj> {
        let mut a = Array::<Obj>::new(n as usize);
        for i in 0..n {
            a[i as usize] = Obj::from(Num::new(i * 10 + n));
        }
        a
    }

    /// The sum of the numbers in `items` (traced, but called
    /// `dont_look_inside`: an `Array<Obj>` argument).
    #[majit::traced]
    pub(crate) fn total(items: Array<Obj>) -> i64 {
        let mut s: i64 = 0;
        let mut i: usize = 0;
        while i < items.len() {
            s += value(items[i]);
            i += 1;
        }
        s
    }

    /// A number's value, a pair's sum of values (traced: an `Obj`
    /// argument).
    #[majit::traced]
    pub(crate) fn value(o: Obj) -> i64 {
        if o.is::<Num>() {
            return o.cast::<Num>().v;
        }
        let p = o.cast::<Pair>();
        if p.a.is::<Num>() && p.b.is::<Num>() {
            return p.a.cast::<Num>().v + p.b.cast::<Num>().v;
        }
        -1
    }

    /// The first item, or null (traced: `Array<Obj>` in, `Obj` out).
    #[majit::traced]
    pub(crate) fn first(items: Array<Obj>) -> Obj {
        if items.is_empty() {
            return Obj::null();
        }
        items[0]
    }

    /// A pair of two values (traced: allocates and returns an `Obj`).
    #[majit::traced]
    pub(crate) fn pair(a: Obj, b: Obj) -> Obj {
        Obj::from(Pair::new(a, b))
    }

    /// A boxed number (residual: returns an `Obj`).
    pub fn boxed(v: i64) -> Obj {
        Obj::from(Num::new(v))
    }

    /// A description of `o`: its class and value (residual: an `Obj`
    /// argument).
    pub fn describe(o: Obj) -> i64 {
        if o.is_null() {
            return 0;
        }
        if o.is::<Num>() {
            // Not traced: the accessors, not field syntax.
            1000 + o.cast::<Num>().v()
        } else {
            2000 + value(o)
        }
    }

    /// How heavy an array of weights is (elidable: the weights never
    /// change).
    pub fn weight(w: Array<i64>) -> i64 {
        let mut s = 0;
        for i in 0..w.len() {
            s += w[i] * (i as i64 + 1);
        }
        s
    }

    /// This iteration's scale table (loop-invariant: the same contents for
    /// a whole iteration; a fresh array each call).
    pub fn table() -> Array<i64> {
        let mut t = Array::<i64>::new(2);
        t[0] = 3;
        t[1] = 5;
        t
    }
}

const FILL: i64 = 0;
const SUM: i64 = 1;
const FIRST: i64 = 2;
const PAIR: i64 = 3;
const DESCRIBE: i64 = 4;
const WEIGH: i64 = 5;
const LOOP: i64 = 6;

#[jit_interp(
    greens = [pc, code],
    reds = [items, weights, cur, acc, n],
    helpers = [
        residual fn vm::make_items(n: i64) -> Array<Obj>,
        residual fn vm::boxed(v: i64) -> Obj,
        residual fn vm::describe(o: Obj) -> i64,
        dont_look_inside fn vm::total(items: Array<Obj>) -> i64,
        elidable fn vm::weight(w: Array<i64>) -> i64,
        loop_invariant fn vm::table() -> Array<i64>,
    ],
    structs = [#[headered] Num { v: i64 }, #[headered] Pair { a: Obj, b: Obj }],
    traced = [vm::value, vm::first, vm::pair],
)]
fn run(code: &[i64], n0: i64) -> i64 {
    let mut pc: usize = 0;
    let mut items: Array<Obj> = Array::null();
    let mut weights: Array<i64> = Array::new(3);
    weights[0] = 2;
    weights[2] = 7;
    let mut cur: Obj = Obj::null();
    let mut acc: i64 = 0;
    let mut n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            FILL => items = vm::make_items((n & 3) + 1),
            SUM => acc = acc.wrapping_add(vm::total(items)),
            FIRST => cur = vm::first(items),
            PAIR => cur = vm::pair(cur, vm::boxed(n)),
            DESCRIBE => acc = acc.wrapping_mul(7).wrapping_add(vm::describe(cur)),
            WEIGH => {
                let t = vm::table();
                acc = acc.wrapping_add(vm::weight(weights) * t[n as usize & 1]);
                acc = acc.wrapping_add(vm::value(cur));
            }
            LOOP => {
                n -= 1;
                if n > 0 {
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

const PROG: [i64; 8] = [FILL, SUM, FIRST, DESCRIBE, PAIR, DESCRIBE, WEIGH, LOOP];

/// Plain, then with `B`, both under GC stress: equal results, a loop
/// compiled and entered, and the heap collected at least once per
/// iteration.
fn jit_equals_plain<B: GcBackend>() {
    let n = 400;
    stress_heap();
    let plain = run(&PROG, n);
    stress_heap();
    let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &PROG, n).unwrap(), plain);
    let s = driver.stats();
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
    let heap = majit::gc::thread_heap::shared().unwrap();
    assert!(heap.borrow().stats().minor_collections >= n as u64);
}

#[test]
fn handle_signatures_jit_equals_plain_on_refexec() {
    jit_equals_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn handle_signatures_jit_equals_plain_natively() {
    jit_equals_plain::<HostBackend>();
}

/// The policies show in the optimized loop: the residual and
/// dont-look-inside helpers stay calls, traced functions leave none, the
/// elidable `weight` of the loop-invariant `weights` array runs in the
/// preamble only, `table` once per iteration.
#[test]
fn handle_helpers_keep_their_policies() {
    stress_heap();
    let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    run_jit(&mut driver, &PROG, 200).unwrap();
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    let body = &trace[trace.rfind("label(").expect("a loop has a label")..];
    for f in ["make_items", "boxed", "total", "table"] {
        assert_eq!(
            body.matches(&format!("descr={f})")).count(),
            1,
            "{f}: {body}"
        );
    }
    assert_eq!(body.matches("descr=describe)").count(), 2, "{body}");
    for f in ["value", "first", "pair", "weight"] {
        assert!(!body.contains(&format!("descr={f})")), "{f}: {body}");
    }
}
