//! Quasi-immutable fields: what compiled code assumes about them, and how
//! a write takes the assumption back.
//!
//! A field whose [`majit_ir::FieldDescr::quasi_immutable`] is set is read often and
//! written rarely (a class's method table, a global's version). When the
//! tracer reads one from a constant object, it records no load: the
//! current value becomes a constant of the trace, and the trace *depends*
//! on (object, field). Such a trace records `quasiimmut_field(obj,
//! descr=f)` (the dependency, a no-op when run) and `guard_not_invalidated
//! (word)`, where `word` is the address of the trace's [`Validity`] word.
//!
//! **Granularity: per object and field.** A dependency is the pair (object
//! address, field offset), so writing `f` of one object invalidates only
//! the traces that folded `f` of that object. Every trace (loop or bridge)
//! has its own word; [`written`] sets the word of every trace that depends
//! on the pair, and that trace leaves at its next `guard_not_invalidated`.
//! The driver notices (the word's owner counter changed), stops entering
//! an invalidated loop, traces its green key again when it is hot, and
//! frees the old code once nothing can run it (`lifetime.rs`).
//!
//! **The guard is a load and a compare** of that word, not a patched jump
//! (RPython's way): the word is plain data, so a setter in the
//! interpreter, a helper called from compiled code, and compiled code
//! itself invalidate by one store each, without touching code memory (no
//! `mprotect`, nothing to get wrong while the code runs). It is cheap
//! because the optimizer keeps one `guard_not_invalidated` per stretch of
//! trace between residual calls (only a call can write a field): a loop
//! without calls tests the word once per iteration.
//!
//! **Where writes come from.** Whatever writes a quasi-immutable field
//! must call [`written`]: the setters `#[jit_interp]` generates for a
//! `#[quasi_immutable]` field do, the jitcode `setfield` does in the tracer
//! and the blackhole (`jitcode::eval::setfield`), and compiled code calls
//! [`written_shim`] before its `setfield_gc` (the tracer records that
//! call). A new object's fields are initialised without it: a fresh
//! object has no dependents.
//!
//! Dependencies are keyed by address: an object that a moving collection
//! moves keeps its old dependencies under its old address. Traces reach
//! such an object only as a promoted handle, whose `guard_value` fails
//! after the move, so the stale entries are harmless, except that another
//! object later placed at that address passes the guard (the caveat of
//! every promoted GC handle, `docs/macros.md`, Hints).
//!
//! The table is per thread, like drivers, heaps and compiled code.

use majit_ir::{CallDescr, CallEffect, Descr, EffectInfo, Kind, ResultKind};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

/// The validity word of one compiled trace: 0 while valid, 1 once a field
/// it depends on was written. Its address is the argument of the trace's
/// `guard_not_invalidated` ops, so it lives (in an `Rc`) as long as the
/// trace's code.
#[derive(Debug)]
pub struct Validity {
    word: Cell<u64>,
    /// Bumped when this word is set: the driver owning the trace compares
    /// it with the value it last saw to notice invalidations cheaply.
    owner: Rc<Cell<u64>>,
}

impl Validity {
    /// A valid word whose invalidation bumps `owner`.
    pub fn new(owner: Rc<Cell<u64>>) -> Rc<Validity> {
        Rc::new(Validity {
            word: Cell::new(0),
            owner,
        })
    }

    /// The address `guard_not_invalidated` loads.
    pub fn address(&self) -> usize {
        self.word.as_ptr() as usize
    }

    /// False once a field the trace depends on was written.
    pub fn is_valid(&self) -> bool {
        self.word.get() == 0
    }

    fn invalidate(&self) {
        if self.is_valid() {
            self.word.set(1);
            self.owner.set(self.owner.get() + 1);
        }
    }
}

/// One dependency: the address of an object and the byte offset of one of
/// its quasi-immutable fields.
pub type Dep = (usize, u32);

thread_local! {
    static TABLE: RefCell<HashMap<Dep, Vec<Rc<Validity>>>> = RefCell::new(HashMap::new());
}

/// `validity`'s trace assumes the current value of field `offset` of `obj`.
pub fn depend(obj: usize, offset: u32, validity: &Rc<Validity>) {
    TABLE.with(|t| {
        let mut t = t.borrow_mut();
        let users = t.entry((obj, offset)).or_default();
        if !users.iter().any(|u| Rc::ptr_eq(u, validity)) {
            users.push(validity.clone());
        }
    });
}

/// Field `offset` of `obj` is being written: every trace that depends on
/// it is invalidated (and forgets the dependency). Cheap when nothing
/// depends on it: one lookup.
pub fn written(obj: usize, offset: u32) {
    // `try_with`: a setter may run while the thread's locals are torn down.
    let users = TABLE
        .try_with(|t| t.borrow_mut().remove(&(obj, offset)))
        .ok()
        .flatten();
    for u in users.into_iter().flatten() {
        u.invalidate();
    }
}

/// Drops every dependency of `validity` (its code was freed, or its trace
/// was never compiled).
pub fn forget(validity: &Rc<Validity>) {
    let _ = TABLE.try_with(|t| {
        t.borrow_mut().retain(|_, users| {
            users.retain(|u| !Rc::ptr_eq(u, validity));
            !users.is_empty()
        })
    });
}

/// How many (dependency, trace) pairs this thread's table holds.
pub fn registered() -> usize {
    TABLE.with(|t| t.borrow().values().map(Vec::len).sum())
}

/// [`written`] for compiled code: the call the tracer records before a
/// `setfield_gc` of a quasi-immutable field.
pub extern "C" fn written_shim(obj: usize, offset: i64) {
    written(obj, offset as u32);
}

/// The descr of calls of [`written_shim`]: `(ref, int) -> void`, reading
/// and writing no field (it only sets validity words, which no trace
/// loads other than through `guard_not_invalidated`).
pub fn written_descr() -> Descr {
    static DESCR: OnceLock<Descr> = OnceLock::new();
    DESCR
        .get_or_init(|| {
            Descr::Call(Arc::new(CallDescr {
                name: WRITTEN_DESCR.to_string(),
                args: vec![Kind::Ref, Kind::Int],
                result: ResultKind::Void,
                effect: EffectInfo {
                    effect: CallEffect::Declared,
                    ..EffectInfo::default()
                },
            }))
        })
        .clone()
}

/// The name of [`written_descr`].
pub const WRITTEN_DESCR: &str = "quasi_written";
