//! Tests of the reference executor: traces written as text, compiled,
//! executed on real memory, and their dead frames and memory checked.
//!
//! Every trace is parsed with [`DESCRS`] in front (the shapes of the
//! shared test namespace: `Node`, `Stack`, `IntArray`, raw arrays, …) and
//! with the helper functions of `calls.rs` as `@symbols`.

mod refexec {
    pub mod alloc;
    pub mod arith;
    pub mod calls;
    pub mod control;
    pub mod memory;
}

use majit_ir::{parse_with, Const, Namespace, Trace, Value};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::{Backend, CodeId, DeadFrame, ExecError};

/// Descriptor declarations every test trace may use.
pub const DESCRS: &str = "
descr Node = size(size=16, type_id=1, headerless, fields=[Node.value, Node.next])
descr Node.value = field(owner=Node, offset=0, size=8, kind=int, signed)
descr Node.next = field(owner=Node, offset=8, size=8, kind=ref)
descr Triple = size(size=24, type_id=2, headerless, fields=[Triple.a, Triple.b, Triple.c])
descr Triple.a = field(owner=Triple, offset=0, size=8, kind=int, signed)
descr Triple.b = field(owner=Triple, offset=8, size=8, kind=float)
descr Triple.c = field(owner=Triple, offset=16, size=8, kind=ref)
descr Stack = size(size=24, type_id=3, vtable=0x5700, fields=[Stack.head, Stack.len])
descr Stack.head = field(owner=Stack, offset=8, size=8, kind=ref)
descr Stack.len = field(owner=Stack, offset=16, size=8, kind=int, signed)
descr Box = size(size=16, type_id=9, fields=[Box.value])
descr Box.value = field(owner=Box, offset=8, size=8, kind=int, signed)
descr IntArray = array(base=16, len=8, item_size=8, kind=int, type_id=4, signed)
descr RefArray = array(base=16, len=8, item_size=8, kind=ref, type_id=5)
descr FloatArray = array(base=16, len=8, item_size=8, kind=float, type_id=6)
descr ByteArray = array(base=16, len=8, item_size=1, kind=int, type_id=7)
descr RawI8 = array(base=0, len=0, item_size=1, kind=int, type_id=0, signed)
descr RawU8 = array(base=0, len=0, item_size=1, kind=int, type_id=0)
descr RawI16 = array(base=0, len=0, item_size=2, kind=int, type_id=0, signed)
descr RawU16 = array(base=0, len=0, item_size=2, kind=int, type_id=0)
descr RawI32 = array(base=0, len=0, item_size=4, kind=int, type_id=0, signed)
descr RawU32 = array(base=0, len=0, item_size=4, kind=int, type_id=0)
descr RawI64 = array(base=0, len=0, item_size=8, kind=int, type_id=0, signed)
descr RawF64 = array(base=0, len=0, item_size=8, kind=float, type_id=0)
descr Raw.i8 = field(owner=Raw, offset=1, size=1, kind=int, signed)
descr Raw.u8 = field(owner=Raw, offset=1, size=1, kind=int)
descr Raw.i16 = field(owner=Raw, offset=2, size=2, kind=int, signed)
descr Raw.u16 = field(owner=Raw, offset=2, size=2, kind=int)
descr Raw.i32 = field(owner=Raw, offset=4, size=4, kind=int, signed)
descr Raw.u32 = field(owner=Raw, offset=4, size=4, kind=int)
descr Raw.i64 = field(owner=Raw, offset=8, size=8, kind=int, signed)
descr Raw.f64 = field(owner=Raw, offset=16, size=8, kind=float)
descr Raw.ref = field(owner=Raw, offset=24, size=8, kind=ref)
descr Loop = target()
descr Loop2 = target()
descr g0 = fail(id=0)
descr g1 = fail(id=1)
descr g2 = fail(id=2)
descr done = fail(id=100)
";

/// The namespace of symbols (helper addresses) the traces use.
pub fn namespace() -> Namespace {
    let mut ns = Namespace::new();
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
