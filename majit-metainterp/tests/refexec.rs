//! Tests of the reference executor: traces written as text, compiled,
//! executed on real memory, and their dead frames and memory checked.
//!
//! Every trace is parsed with the shared test namespace
//! (`majit_ir::fuzzing::test_namespace`), the helper functions of
//! `calls.rs` as `@symbols`, and [`DESCRS`] in front.

mod refexec {
    pub mod alloc;
    pub mod arith;
    pub mod calls;
    pub mod control;
    pub mod gc;
    pub mod memory;
    pub mod random;
}

use majit_ir::fuzzing::test_namespace;
use majit_ir::{parse_with, Const, Namespace, Trace, Value};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::{Backend, CodeId, DeadFrame, ExecError};

/// Declarations the test traces use beyond the shared namespace.
pub const DESCRS: &str = "descr done = fail(id=100)";

/// The shared test namespace (`Node`, `Stack`, `IntArray`, raw arrays,
/// `Loop`, `g0`…) plus the helper functions of `calls.rs` as `@symbols`.
pub fn namespace() -> Namespace {
    let mut ns = test_namespace();
    refexec::calls::add_symbols(&mut ns);
    ns
}

/// Parses `text` (with [`DESCRS`] and the helper symbols).
pub fn trace(text: &str) -> Trace {
    parse_with(&format!("{DESCRS}\n{text}"), &namespace())
        .unwrap_or_else(|e| panic!("test trace does not parse: {e}\n{text}"))
}

/// Compiles `text` as a loop of `exec`.
pub fn compile(exec: &mut RefExec, text: &str) -> CodeId {
    exec.compile_loop(&trace(text))
        .unwrap_or_else(|e| panic!("test trace does not compile: {e}\n{text}"))
}

/// Compiles and runs `text` on `exec` (which owns the memory of what the
/// trace allocates); it must not fail.
pub fn run_in(exec: &mut RefExec, text: &str, inputs: &[Value]) -> DeadFrame {
    let code = compile(exec, text);
    exec.execute(code, inputs)
        .unwrap_or_else(|e| panic!("execution failed: {e}\n{text}"))
}

/// Compiles and runs `text` on a fresh executor.
pub fn try_run(text: &str, inputs: &[Value]) -> Result<DeadFrame, ExecError> {
    let mut exec = RefExec::new();
    let code = compile(&mut exec, text);
    exec.execute(code, inputs)
}

/// Compiles and runs `text` on a fresh executor; it must not fail. The
/// executor, and with it all memory the trace allocated, is dropped.
pub fn run(text: &str, inputs: &[Value]) -> DeadFrame {
    try_run(text, inputs).unwrap_or_else(|e| panic!("execution failed: {e}\n{text}"))
}

pub fn int(v: i64) -> Value {
    Value::Int(v)
}

pub fn float(v: f64) -> Value {
    Value::Float(v)
}

pub fn reference(v: usize) -> Value {
    Value::Ref(v)
}

/// The address of `x`, as trace ints and refs carry it.
pub fn addr_of<T>(x: &mut T) -> usize {
    x as *mut T as usize
}

/// A symbol for an address.
pub fn symbol(ns: &mut Namespace, name: &str, address: usize) {
    ns.add_symbol(name, Const::Int(address as i64));
}

/// A loop that prepends `Node`s valued `i0`, `i0 - 1`, ..., 1 to the list
/// `p1`, then leaves through `g0` with the list.
pub const BUILD_LIST: &str = "[i0, p1]
    label(i0, p1, descr=Loop)
    i2 = int_gt(i0, 0)
    guard_true(i2, descr=g0) [p1]
    p3 = new(descr=Node)
    setfield_gc(p3, i0, descr=Node.value)
    setfield_gc(p3, p1, descr=Node.next)
    i4 = int_sub(i0, 1)
    jump(i4, p3, descr=Loop)";

/// The 8-byte word at `addr + offset`.
pub fn word(addr: usize, offset: usize) -> u64 {
    // SAFETY: tests only read objects the executor allocated and keeps
    // alive (its allocator or heap is still live).
    unsafe { ((addr + offset) as *const u64).read() }
}

/// The values of the `Node` list starting at `node` (at most 1000: a
/// corrupted list may be cyclic).
pub fn node_values(mut node: usize) -> Vec<i64> {
    let mut values = Vec::new();
    while node != 0 && values.len() < 1000 {
        values.push(word(node, 0) as i64);
        node = word(node, 8) as usize;
    }
    values
}
