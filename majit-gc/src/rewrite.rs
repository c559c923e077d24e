//! The GC rewrite pass: lowers allocation and inserts write barriers in an
//! optimized trace (IR → IR), the last step before the backend.
//!
//! - `new` / `new_with_vtable` of a headered layout becomes
//!   `call_malloc_nursery(size)` followed by the header store
//!   `setfield_gc(p, type_id, descr=Gc.header)` ([`header_descr`]: an 8-byte
//!   int field at offset 0; the value is the type id with no flags, what
//!   `TypeId::header` gives). Consecutive headered allocations with no
//!   collection point in between share one bump: the first call's size
//!   grows to the total and later objects are
//!   `nursery_ptr_increment(first, offset)`, up to
//!   [`RewriteConfig::max_batch_bytes`].
//! - `new` of a headerless layout becomes
//!   `call_malloc_nursery_headerless(size, descr=Layout)`; no header.
//! - `new_array` / `new_array_clear` become
//!   `call_malloc_nursery_varsize(length, descr=Array)`; the allocator
//!   writes header and length and hands out zeroed items. With a constant
//!   length whose array fits a batch, they are allocated like a headered
//!   object instead (a bump, batched with its neighbours) and get their
//!   length stored (`setfield_gc(p, n, descr=Gc.array_length)`); the items
//!   are the nursery's zeroed bytes.
//! - Allocations are zero-filled (the nursery's free bytes are zero, an
//!   old-space allocation is cleared), so a fresh object needs no null
//!   stores, and a `setfield_gc` of 0 or null into a field of a fresh
//!   object is dropped while nothing can have written those bytes since
//!   the allocation: no `setfield_gc` to them, no call or raw store, no
//!   collection point (an interpreter's constructor spelling out its
//!   defaults).
//! - `setfield_gc` / `setarrayitem_gc` of a reference gets
//!   `cond_call_gc_wb(obj)` / `cond_call_gc_wb_array(obj, index)` in
//!   front, unless `obj` is fresh (allocated by this trace since the last
//!   collection point), already had a barrier since then, or the value is
//!   a constant (null or a prebuilt object, which is never young).
//!
//! - A `jump` that closes a loop body (since the last `label`, or the
//!   whole bridge) holding a call gets `cond_call_gc_collect()` in front:
//!   helpers allocate without collecting and only ask for a collection,
//!   which compiled code would otherwise never run (a loop of allocating
//!   calls would fill the old space with young garbage).
//!
//! Collection points, which end a batch and empty the fresh and barrier
//! sets: every allocation that is not batched, calls whose descr says
//! `can_collect` or `may_force`, any other op flagged `CAN_MALLOC`, and
//! `label` (the loop back edge).

use crate::jit::JitGcInfo;
use majit_ir::{Const, Descr, FieldDescr, Kind, Op, OpCode, OpRef, RefTarget, SizeDescr, Trace};
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// Name of the header field descriptor.
pub const HEADER_DESCR_NAME: &str = "Gc.header";

/// The field descriptor of the header word: `setfield_gc(p, type_id,
/// descr=Gc.header)` initialises a fresh headered object.
pub fn header_descr() -> Descr {
    gc_word(HEADER_DESCR_NAME, 0)
}

/// Name of the array length field descriptor.
pub const ARRAY_LENGTH_DESCR_NAME: &str = "Gc.array_length";

/// The field descriptor of an array's length word:
/// `setfield_gc(p, n, descr=Gc.array_length)` initialises a fresh array of
/// a constant length.
pub fn array_length_descr() -> Descr {
    gc_word(ARRAY_LENGTH_DESCR_NAME, crate::layout::ARRAY_LENGTH_OFFSET)
}

/// An immutable 8-byte int word the GC owns, at `offset` in an object.
fn gc_word(name: &str, offset: u32) -> Descr {
    FieldDescr {
        name: name.into(),
        owner: "Gc".into(),
        offset,
        size: 8,
        signed: false,
        kind: Kind::Int,
        immutable: true,
        quasi_immutable: false,
    }
    .into()
}

/// Parameters of the pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RewriteConfig {
    /// Largest total size of one batch of headered allocations; 0 turns
    /// batching off.
    pub max_batch_bytes: usize,
}

impl Default for RewriteConfig {
    fn default() -> Self {
        RewriteConfig {
            max_batch_bytes: 512,
        }
    }
}

impl RewriteConfig {
    /// Batches up to the heap's largest nursery object.
    pub fn from_jit_info(info: &JitGcInfo) -> RewriteConfig {
        RewriteConfig {
            max_batch_bytes: info.max_nursery_object,
        }
    }
}

/// Why a trace could not be rewritten. Who acts: whoever built the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RewriteError {
    /// An op lacks the descriptor sort the pass needs.
    BadDescr {
        op_index: usize,
        expected: &'static str,
    },
}

impl fmt::Display for RewriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RewriteError::BadDescr { op_index, expected } => {
                write!(f, "op {op_index}: expected a {expected} descr")
            }
        }
    }
}

impl std::error::Error for RewriteError {}

/// Rewrites `trace`.
///
/// ```
/// use majit_gc::rewrite::{rewrite, RewriteConfig};
/// use majit_ir::{parse, print};
/// let t = parse("
///     descr Node = size(size=16, type_id=1, headerless, fields=[Node.value])
///     descr Node.value = field(owner=Node, offset=0, size=8, kind=int)
///     [i0]
///     p1 = new(descr=Node)
///     setfield_gc(p1, i0, descr=Node.value)
///     finish(p1)").unwrap();
/// let out = rewrite(&t, &RewriteConfig::default()).unwrap();
/// assert!(print(&out).contains("call_malloc_nursery_headerless(16, descr=Node)"));
/// ```
pub fn rewrite(trace: &Trace, config: &RewriteConfig) -> Result<Trace, RewriteError> {
    rewrite_with_origins(trace, config).map(|(out, _)| out)
}

/// [`rewrite`], also returning for each output op the index of the input
/// op it stems from (a backend reports exits in the numbering of the
/// trace it was given, e.g. an out-of-memory exit of a
/// `call_malloc_nursery` as its `new`).
pub fn rewrite_with_origins(
    trace: &Trace,
    config: &RewriteConfig,
) -> Result<(Trace, Vec<usize>), RewriteError> {
    let mut pass = Rewriter {
        config,
        out: Trace::new(&trace.inputs),
        map: Vec::with_capacity(trace.ops.len()),
        fresh: HashSet::new(),
        barriered: HashSet::new(),
        zeroed: HashSet::new(),
        written: Vec::new(),
        batch: None,
        header: header_descr(),
        calls: false,
    };
    let mut origins = Vec::with_capacity(trace.ops.len());
    for (i, op) in trace.ops.iter().enumerate() {
        let r = pass.op(trace, i, op)?;
        pass.map.push(r);
        origins.resize(pass.out.ops.len(), i);
    }
    Ok((pass.out, origins))
}

/// The open batch of headered allocations.
struct Batch {
    /// Index in the output of its `call_malloc_nursery`.
    call: usize,
    base: OpRef,
    total: usize,
}

struct Rewriter<'a> {
    config: &'a RewriteConfig,
    out: Trace,
    /// Input op index → output value.
    map: Vec<OpRef>,
    fresh: HashSet<OpRef>,
    barriered: HashSet<OpRef>,
    /// Fresh objects whose bytes the trace did not write are still the
    /// allocation's zeros: nothing but `setfield_gc`s (in `written`) can
    /// have touched them since.
    zeroed: HashSet<OpRef>,
    /// The byte ranges (object, start, end) of `zeroed` objects the trace
    /// wrote.
    written: Vec<(OpRef, u32, u32)>,
    batch: Option<Batch>,
    header: Descr,
    /// A call was copied since the last `label`.
    calls: bool,
}

impl Rewriter<'_> {
    /// The output value for input value `r`.
    fn value(&mut self, trace: &Trace, r: OpRef) -> OpRef {
        match r.target() {
            RefTarget::Op(i) => self.map[i],
            RefTarget::Input(_) => r,
            RefTarget::Const(_) => {
                let c = trace.get_const(r).expect("constant of the trace");
                self.out.add_const(c)
            }
        }
    }

    fn int(&mut self, v: usize) -> OpRef {
        self.out.add_const(Const::Int(v as i64))
    }

    fn emit(&mut self, opcode: OpCode, args: &[OpRef], descr: Option<Descr>) -> OpRef {
        let mut op = Op::new(opcode, args);
        op.descr = descr;
        self.out.push(op)
    }

    fn op(&mut self, trace: &Trace, i: usize, op: &Op) -> Result<OpRef, RewriteError> {
        let args: Vec<OpRef> = op.args.iter().map(|&a| self.value(trace, a)).collect();
        let bad = |expected| RewriteError::BadDescr {
            op_index: i,
            expected,
        };
        match op.opcode {
            OpCode::New | OpCode::NewWithVtable => {
                let size = op
                    .descr
                    .as_ref()
                    .and_then(Descr::as_size)
                    .ok_or(bad("size"))?;
                self.opt_new(size.clone())
            }
            OpCode::NewArray | OpCode::NewArrayClear => {
                let descr = op.descr.clone().filter(|d| d.as_array().is_some());
                let array = descr.as_ref().and_then(Descr::as_array);
                let len = trace.get_const(op.args[0]).and_then(|c| match c {
                    Const::Int(n) => usize::try_from(n).ok(),
                    _ => None,
                });
                if let (Some(array), Some(len)) = (array, len) {
                    let bytes = crate::layout::array_bytes(u32::from(array.item_size), len);
                    if let Some(bytes) = bytes.filter(|&b| b <= self.config.max_batch_bytes) {
                        return Ok(self.new_constant_array(array.type_id, len, bytes));
                    }
                }
                self.collection_point();
                let r = self.emit(
                    OpCode::CallMallocNurseryVarsize,
                    &args,
                    Some(descr.ok_or(bad("array"))?),
                );
                self.fresh.insert(r);
                Ok(r)
            }
            OpCode::SetfieldGc => {
                let field = op
                    .descr
                    .as_ref()
                    .and_then(Descr::as_field)
                    .ok_or(bad("field"))?;
                if self.zeroed.contains(&args[0]) {
                    let bytes = (args[0], field.offset, field.offset + u32::from(field.size));
                    let untouched = !self.written.iter().any(|w| overlap(*w, bytes));
                    if untouched && is_zero(trace, op.args[1]) {
                        // The allocation is zero-filled: the store changes
                        // nothing.
                        return Ok(args[1]);
                    }
                    self.written.push(bytes);
                }
                if field.kind == Kind::Ref && self.needs_barrier(trace, args[0], op.args[1]) {
                    self.emit(OpCode::CondCallGcWb, &[args[0]], None);
                    self.barriered.insert(args[0]);
                }
                Ok(self.copy(op, &args, trace))
            }
            OpCode::SetarrayitemGc => {
                let array = op
                    .descr
                    .as_ref()
                    .and_then(Descr::as_array)
                    .ok_or(bad("array"))?;
                if array.kind == Kind::Ref && self.needs_barrier(trace, args[0], op.args[2]) {
                    self.emit(OpCode::CondCallGcWbArray, &[args[0], args[1]], None);
                    self.barriered.insert(args[0]);
                }
                Ok(self.copy(op, &args, trace))
            }
            _ => {
                if op.opcode.has_side_effect() {
                    // A call given a fresh object may have written it.
                    self.forget_zeros();
                }
                if op.opcode == OpCode::Jump && self.calls {
                    self.emit(OpCode::CondCallGcCollect, &[], None);
                }
                if op.opcode == OpCode::Label || collects(op) {
                    self.collection_point();
                }
                if op.opcode == OpCode::Label {
                    self.calls = false;
                } else if op.opcode.is_call() {
                    self.calls = true;
                }
                Ok(self.copy(op, &args, trace))
            }
        }
    }

    /// Emits `op` with mapped arguments and fail args.
    fn copy(&mut self, op: &Op, args: &[OpRef], trace: &Trace) -> OpRef {
        let mut new = Op::new(op.opcode, args);
        new.descr = op.descr.clone();
        new.fail_args = op
            .fail_args
            .as_ref()
            .map(|fa| fa.iter().map(|&a| self.value(trace, a)).collect());
        self.out.push(new)
    }

    /// A headered object of `bytes`: a bump of its own, or a part of the
    /// open batch's; its header stored.
    fn bump_headered(&mut self, type_id: u32, bytes: usize) -> OpRef {
        let r = match &mut self.batch {
            Some(b) if b.total + bytes <= self.config.max_batch_bytes => {
                let (call, base, offset) = (b.call, b.base, b.total);
                b.total += bytes;
                let total = b.total;
                self.out.ops[call].args[0] = self.int(total);
                let off = self.int(offset);
                self.emit(OpCode::NurseryPtrIncrement, &[base, off], None)
            }
            _ => {
                self.collection_point();
                let n = self.int(bytes);
                let r = self.emit(OpCode::CallMallocNursery, &[n], None);
                if bytes < self.config.max_batch_bytes {
                    self.batch = Some(Batch {
                        call: self.out.ops.len() - 1,
                        base: r,
                        total: bytes,
                    });
                }
                r
            }
        };
        let header = self.out.add_const(Const::Int(type_id as i64));
        self.emit(OpCode::SetfieldGc, &[r, header], Some(self.header.clone()));
        r
    }

    /// An array of the constant length `len` (`bytes` in all).
    fn new_constant_array(&mut self, type_id: u32, len: usize, bytes: usize) -> OpRef {
        let r = self.bump_headered(type_id, bytes);
        let n = self.int(len);
        self.emit(OpCode::SetfieldGc, &[r, n], Some(array_length_descr()));
        self.fresh.insert(r);
        r
    }

    fn opt_new(&mut self, size: Arc<SizeDescr>) -> Result<OpRef, RewriteError> {
        let bytes = size.size as usize;
        let r = if size.headerless {
            self.collection_point();
            let n = self.int(bytes);
            self.emit(
                OpCode::CallMallocNurseryHeaderless,
                &[n],
                Some(Descr::Size(size.clone())),
            )
        } else {
            self.bump_headered(size.type_id, bytes)
        };
        self.fresh.insert(r);
        self.zeroed.insert(r);
        Ok(r)
    }

    /// Whether a store of input value `value` into output object `obj`
    /// needs a barrier.
    fn needs_barrier(&self, trace: &Trace, obj: OpRef, value: OpRef) -> bool {
        !(self.fresh.contains(&obj) || self.barriered.contains(&obj) || value.is_const())
            && trace.kind_of(value) == Some(Kind::Ref)
    }

    /// No fresh object is known to hold zeros any more.
    fn forget_zeros(&mut self) {
        self.zeroed.clear();
        self.written.clear();
    }

    /// Before an op that may collect: objects must be complete, and
    /// nothing allocated before it is known young afterwards.
    fn collection_point(&mut self) {
        self.batch = None;
        self.fresh.clear();
        self.forget_zeros();
        self.barriered.clear();
    }
}

/// Whether two written byte ranges `(object, start, end)` share a byte.
fn overlap(a: (OpRef, u32, u32), b: (OpRef, u32, u32)) -> bool {
    a.0 == b.0 && a.1 < b.2 && b.1 < a.2
}

/// Whether input value `r` is the constant 0 or null.
fn is_zero(trace: &Trace, r: OpRef) -> bool {
    matches!(trace.get_const(r), Some(Const::Int(0) | Const::Ref(0)))
}

/// Whether `op` may run a collection.
fn collects(op: &Op) -> bool {
    if op.opcode.is_call() {
        match op.descr.as_ref().and_then(Descr::as_call) {
            Some(c) => c.effect.can_collect || c.effect.may_force,
            None => true,
        }
    } else {
        op.opcode.can_malloc()
    }
}
