//! Traced methods: `#[majit::traced]` on the `impl` of a GC struct's
//! handle makes its methods (`self`, `&self`) traceable, called as
//! `x.m(..)` and `Node::m(x, ..)` from the interpreter and from other
//! traced functions and methods. Run plain and with the JIT (RefExec and
//! the native backend) under GC stress: equal results, a loop compiled and
//! entered, and no call of a traced method left in the loop. Methods
//! returning `Result` are matched, propagated with `?`, returned and kept
//! in locals.

#[path = "common/heap.rs"]
mod heap;

use heap::stress_heap;
use majit::prelude::*;

/// The VM's list operations, as methods of the interpreter's `Node`.
mod vm {
    use super::Node;

    /// A private const of this module, read by a traced method.
    const MASK: i64 = 0xff;

    impl Node {
        /// An associated const, read as `Self::STEP`.
        pub(crate) const STEP: i64 = 3;
    }

    #[majit::traced]
    impl Node {
        /// The sum of the list from here (`self` by value, a handler loop
        /// over the links).
        pub(crate) fn sum(self) -> i64 {
            let mut s: i64 = 0;
            let mut k: Self = self;
            while !k.is_null() {
                s = s.wrapping_add(k.value);
                k = k.next;
            }
            s
        }

        /// A new node holding `v` in front of this one (`&self`).
        pub(crate) fn push(&self, v: i64) -> Node {
            Self::new(v & MASK, *self)
        }

        /// Adds `d` to the value (a field write through `self`) and
        /// returns the new sum, through another traced method.
        pub(crate) fn bump(self, d: i64) -> i64 {
            self.value += d * Self::STEP;
            self.sum() ^ depth(self)
        }

        /// The value doubled, failing with it when it is above 5 (a method
        /// returning `Result`).
        pub(crate) fn small(self) -> Result<i64, i64> {
            if self.value > 5 {
                return Err(self.value);
            }
            Ok(self.value * 2)
        }

        /// `small` of this node and the next: `?` on a method call, the
        /// next's `Result` returned through or kept in a local.
        pub(crate) fn small2(&self) -> Result<i64, i64> {
            let a = self.small()?;
            if self.next.value == 0 {
                return self.next.small();
            }
            let r = self.next.small();
            Ok(a + r?)
        }

        /// Not a method (no `self`): left alone, callable as usual.
        #[allow(dead_code)]
        pub(crate) fn single(v: i64) -> Node {
            Node::new(v, Node::null())
        }
    }

    /// The list's length (a traced free function calling nothing but
    /// fields).
    #[majit::traced]
    pub(crate) fn depth(n: Node) -> i64 {
        let mut d: i64 = 0;
        let mut k: Node = n;
        while !k.is_null() {
            d += 1;
            k = k.next;
        }
        d
    }

    /// The sum of two lists (a traced free function calling a method).
    #[majit::traced]
    pub(crate) fn both(a: Node, b: Node) -> i64 {
        a.sum().wrapping_mul(31).wrapping_add(b.sum())
    }
}

const RESET: i64 = 0;
const PUSH: i64 = 1;
const SUM: i64 = 2;
const BUMP: i64 = 3;
const UFCS: i64 = 4;
const BOTH: i64 = 5;
const SMALL: i64 = 6;
const LOOP: i64 = 7;

#[jit_interp(
    greens = [pc, code],
    reds = [head, keep, n, acc],
    structs = [Node { value: i64, next: Node }],
    traced = [
        vm::Node::sum,
        vm::Node::push,
        vm::Node::bump,
        vm::Node::small,
        vm::Node::small2,
        vm::depth,
        vm::both,
    ],
)]
fn run(code: &[i64], n0: i64) -> i64 {
    let mut pc: usize = 0;
    let mut head: Node = Node::null();
    let mut keep: Node = Node::new(5, Node::new(6, Node::null()));
    let mut n: i64 = n0;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        match code[pc] {
            RESET => head = Node::new(n & 7, Node::null()),
            PUSH => head = head.push(n & 3).push(2),
            SUM => acc = acc.wrapping_mul(7).wrapping_add(head.sum()),
            BUMP => acc ^= keep.bump(n & 1),
            UFCS => acc = acc.wrapping_add(Node::sum(head) + Node::push(&keep, 1).value),
            BOTH => acc = acc.wrapping_add(vm::both(head, keep)),
            SMALL => {
                match head.small2() {
                    Ok(v) => acc += v,
                    Err(e) => acc -= e,
                }
                let r = keep.small2();
                if let Err(e) = r {
                    acc ^= e;
                }
                if r.is_ok() {
                    acc += 1;
                }
            }
            LOOP => {
                n -= 1;
                if n > 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                return acc.wrapping_add(keep.value);
            }
            _ => return -1,
        }
        pc += 1;
    }
}

const PROG: [i64; 8] = [RESET, PUSH, SUM, BUMP, UFCS, BOTH, SMALL, LOOP];

/// Plain, then with `B`, both under GC stress: equal results, a loop
/// compiled and entered.
fn jit_equals_plain<B: GcBackend>() {
    let n = 300;
    stress_heap();
    let plain = run(&PROG, n);
    stress_heap();
    let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &PROG, n).unwrap(), plain);
    let s = driver.stats();
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
}

#[test]
fn methods_jit_equals_plain_on_refexec() {
    jit_equals_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn methods_jit_equals_plain_natively() {
    jit_equals_plain::<HostBackend>();
}

/// Traced methods are inlined: the optimized loop calls none of them.
#[test]
fn traced_methods_leave_no_call() {
    stress_heap();
    let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    run_jit(&mut driver, &PROG, 100).unwrap();
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    let body = &trace[trace.rfind("label(").expect("a loop has a label")..];
    assert!(body.contains("getfield_gc_i"), "{body}");
    assert!(!body.contains("call_"), "{body}");
}
