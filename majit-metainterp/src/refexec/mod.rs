//! The reference executor: a [`Backend`] that interprets traces directly
//! on real memory, with real calls and real allocation. The oracle of
//! every optimizer and native-backend test (RPython's llgraph backend).
//!
//! Files, in reading order:
//! - `prepare.rs`: a [`Trace`] becomes `Code`: slots resolved once,
//!   descriptors digested, jumps bound to labels, the executor's checks.
//! - `exec.rs`: the interpreter loop, one exhaustive `match` over
//!   [`OpCode`](majit_ir::OpCode) grouped by family.
//!
//! Memory accesses, calls, allocation and helper signals are the shared
//! [`crate::runtime`]'s, so the tracer, the blackhole and native code
//! behave exactly like the executor.
//!
//! Semantics are those of `backend.rs`. Beyond them:
//! - Null-pointer loads, stores, `arraylen_gc`, `guard_class` and calls
//!   are caught ([`ExecError::NullPointer`]); any other invalid address
//!   (out-of-bounds index, freed object, wrong layout) is the trace's bug
//!   and undefined behaviour, as on native backends.
//! - `guard_class(p, cls)` compares `p`'s class word with `cls`: the
//!   vtable of the layout whose type id is in the low 32 bits of `p`'s
//!   header, or the type id itself for layouts without a vtable. The
//!   executor learns vtables from the `SizeDescr`s of compiled traces and
//!   from [`RefExec::register_layout`]. Never on headerless objects.
//!   `arraylen_gc` reads an 8-byte length word at the descr's `len_offset`.
//! - `guard_value` compares bit patterns (also for floats).
//! - Exceptions: a helper calls [`raise`](crate::runtime::raise) (or
//!   `raise_int`); the executor holds the exception (a ref exception is a
//!   GC root) until `save_exception_*` takes it. `guard_no_exception`
//!   fails while one is pending, `guard_exception` unless a catchable one
//!   (not a panic) is; `save_exception_i`/`_r` of an exception of the
//!   other kind is [`ExecError::BadInputs`]. A bridge starts with the
//!   exception still pending; an exit hands it out in
//!   [`DeadFrame::exception`](crate::backend::DeadFrame).
//! - `guard_not_forced` fails when the last call's helper called
//!   [`force_frame`](crate::runtime::force_frame); `guard_not_invalidated(word)` fails
//!   once the validity word at `word` is nonzero ([`crate::quasi`]);
//!   `quasiimmut_field` does nothing.
//! - Refs held in int slots (`cast_ptr_to_int`) are not GC roots.
//! - Labels: a `jump` starts a fresh frame holding only the jump's values,
//!   so ops after a `label` may use only its arguments, later values and
//!   constants (checked at compile time, as RPython's llgraph requires).
//!   Label names are unique among live traces; a `jump` binds to its label
//!   when compiled, and fails with [`ExecError::UnknownCode`] once that
//!   label's trace is freed.
//! - Calls: at most [`MAX_INT_ARGS`](crate::runtime::MAX_INT_ARGS) int/ref
//!   and [`MAX_FLOAT_ARGS`](crate::runtime::MAX_FLOAT_ARGS) float
//!   arguments (more is [`CompileError::ImplLimit`]); on targets other
//!   than SysV x86-64 and AAPCS64 calls are [`CompileError::Unsupported`].

mod exec;
mod prepare;

use crate::backend::{Backend, CodeId, CompileError, DeadFrame, ExecError, ExitId};
use crate::runtime::{Allocator, MallocAllocator};
pub use exec::Store;
use exec::{Machine, World};
use majit_ir::{Descr, SizeDescr, Trace, Value};
use prepare::{prepare, Code, Labels};
use std::cell::{Cell, RefCell, RefMut};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// The default step limit: ops executed per [`Backend::execute`].
pub const DEFAULT_STEP_LIMIT: u64 = 100_000_000;

/// The reference executor. See the module docs.
///
/// ```
/// use majit_ir::{Const, Kind, Op, OpCode, Trace, Value};
/// use majit_metainterp::refexec::RefExec;
/// use majit_metainterp::Backend;
///
/// let mut t = Trace::new(&[Kind::Int]);
/// let two = t.add_const(Const::Int(2));
/// let x = t.push(Op::new(OpCode::IntMul, &[t.input(0), two]));
/// t.push(Op::new(OpCode::Finish, &[x]));
///
/// let mut exec = RefExec::new();
/// let code = exec.compile_loop(&t).unwrap();
/// let frame = exec.execute(code, &[Value::Int(21)]).unwrap();
/// assert_eq!(frame.int(0), 42);
/// ```
pub struct RefExec {
    /// Shared with the runs in progress, which borrow each table only
    /// for a moment (never across a call), so a helper may compile and
    /// run code of this executor while another run waits in the call
    /// ([`Backend::execute_in`]).
    t: Rc<Tables>,
}

/// The executor's state.
struct Tables {
    /// Compiled traces by `CodeId`; `None` once freed.
    codes: RefCell<Vec<Option<Rc<Code>>>>,
    /// Every live label by target name.
    labels: RefCell<Labels>,
    /// Guard exit -> the bridge attached to it.
    bridges: RefCell<HashMap<ExitId, CodeId>>,
    /// Type id -> vtable of every layout with a vtable seen so far.
    classes: RefCell<BTreeMap<u32, u64>>,
    allocator: RefCell<Box<dyn Allocator>>,
    step_limit: Cell<u64>,
    /// The stores of the last run, when recording (see
    /// [`RefExec::record_stores`]).
    stores: RefCell<Option<Vec<Store>>>,
}

impl Default for RefExec {
    fn default() -> Self {
        Self::new()
    }
}

impl RefExec {
    /// An executor that allocates with a [`MallocAllocator`].
    pub fn new() -> RefExec {
        Self::with_allocator(Box::new(MallocAllocator::default()))
    }

    /// An executor that allocates through `allocator`.
    pub fn with_allocator(allocator: Box<dyn Allocator>) -> RefExec {
        RefExec {
            t: Rc::new(Tables {
                codes: RefCell::new(Vec::new()),
                labels: RefCell::new(Labels::new()),
                bridges: RefCell::new(HashMap::new()),
                classes: RefCell::new(BTreeMap::new()),
                allocator: RefCell::new(allocator),
                step_limit: Cell::new(DEFAULT_STEP_LIMIT),
                stores: RefCell::new(None),
            }),
        }
    }

    /// Sets how many ops one `execute` may run before it fails with
    /// [`ExecError::StepLimit`].
    pub fn set_step_limit(&mut self, limit: u64) {
        self.t.step_limit.set(limit);
    }

    /// The allocator, e.g. to allocate test objects the same way traces do
    /// (borrowed until the guard is dropped: not while code runs).
    pub fn allocator(&self) -> RefMut<'_, dyn Allocator> {
        RefMut::map(self.t.allocator.borrow_mut(), |a| &mut **a)
    }

    /// Starts (`true`) or stops recording the stores (`setfield_*`,
    /// `setarrayitem_*`, `raw_store`) each `execute` makes, for
    /// [`RefExec::stores`].
    pub fn record_stores(&mut self, on: bool) {
        *self.t.stores.borrow_mut() = on.then(Vec::new);
    }

    /// The stores of the last `execute`, in order, when recording.
    pub fn stores(&self) -> Vec<Store> {
        self.t.stores.borrow().clone().unwrap_or_default()
    }

    /// Makes the class word of `layout`'s objects known to `guard_class`
    /// (needed for objects with a vtable that no compiled trace allocates).
    pub fn register_layout(&mut self, layout: &SizeDescr) {
        self.t.register_layout(layout);
    }

    fn code(&self, id: CodeId) -> Option<Rc<Code>> {
        self.t
            .codes
            .borrow()
            .get(id.0 as usize)
            .and_then(Clone::clone)
    }

    /// Verifies and prepares `trace` as the next code id, and registers
    /// its labels and layouts.
    fn compile(&mut self, trace: &Trace) -> Result<CodeId, CompileError> {
        let t = &self.t;
        let id = CodeId(
            u32::try_from(t.codes.borrow().len())
                .map_err(|_| CompileError::ImplLimit("too many traces".into()))?,
        );
        majit_ir::verify(trace).map_err(|e| CompileError::Invalid(e.to_string()))?;
        let (code, own) = prepare(id, trace, &t.labels.borrow())?;
        for descr in trace.descrs() {
            if let Descr::Size(layout) = descr {
                t.register_layout(&layout);
            }
        }
        t.labels.borrow_mut().extend(own);
        t.codes.borrow_mut().push(Some(Rc::new(code)));
        Ok(id)
    }

    /// One run of `code` over the shared tables `t` (see
    /// [`Backend::execute_in`]).
    fn run(t: &Tables, code: CodeId, inputs: &[Value]) -> Result<DeadFrame, ExecError> {
        if let Some(stores) = &mut *t.stores.borrow_mut() {
            stores.clear();
        }
        let world = World {
            codes: &t.codes,
            bridges: &t.bridges,
            classes: &t.classes,
            allocator: &t.allocator,
            step_limit: t.step_limit.get(),
            stores: &t.stores,
        };
        Machine::new(world, code, inputs)?.run()
    }
}

impl Tables {
    fn register_layout(&self, layout: &SizeDescr) {
        if let Some(vtable) = layout.vtable {
            self.classes.borrow_mut().insert(layout.type_id, vtable);
        }
    }
}

impl Backend for RefExec {
    fn name(&self) -> &'static str {
        "refexec"
    }

    fn compile_loop(&mut self, trace: &Trace) -> Result<CodeId, CompileError> {
        self.compile(trace)
    }

    fn compile_bridge(&mut self, guard: ExitId, bridge: &Trace) -> Result<CodeId, CompileError> {
        let unknown = || {
            CompileError::UnknownTarget(format!(
                "no guard at op {} of code {}",
                guard.op_index, guard.code.0
            ))
        };
        let parent = self.code(guard.code).ok_or_else(unknown)?;
        let step = parent
            .steps
            .get(guard.op_index as usize)
            .ok_or_else(unknown)?;
        if !step.opcode.is_guard() {
            return Err(unknown());
        }
        let fail_kinds: Vec<_> = step.exit.iter().map(|&(_, k)| k).collect();
        if fail_kinds != bridge.inputs {
            return Err(CompileError::Invalid(format!(
                "bridge inputs {:?} differ from the guard's fail args {fail_kinds:?}",
                bridge.inputs
            )));
        }
        if self.t.bridges.borrow().contains_key(&guard) {
            return Err(CompileError::Invalid(format!(
                "guard at op {} already has a bridge",
                guard.op_index
            )));
        }
        let id = self.compile(bridge)?;
        self.t.bridges.borrow_mut().insert(guard, id);
        Ok(id)
    }

    fn execute(&mut self, code: CodeId, inputs: &[Value]) -> Result<DeadFrame, ExecError> {
        RefExec::run(&self.t, code, inputs)
    }

    fn execute_in(
        cell: &RefCell<RefExec>,
        code: CodeId,
        inputs: &[Value],
    ) -> Result<DeadFrame, ExecError> {
        // The run keeps the tables alive, not a borrow of the executor.
        let t = Rc::clone(&cell.borrow().t);
        RefExec::run(&t, code, inputs)
    }

    fn code_size(&self, code: CodeId) -> usize {
        self.code(code).map_or(0, |c| c.size())
    }

    fn free(&mut self, code: CodeId) {
        let mut pending = vec![code];
        let t = &self.t;
        while let Some(id) = pending.pop() {
            let freed = t
                .codes
                .borrow_mut()
                .get_mut(id.0 as usize)
                .and_then(Option::take);
            if let Some(c) = freed {
                for name in &c.label_names {
                    t.labels.borrow_mut().remove(name);
                }
            }
            let attached: Vec<(ExitId, CodeId)> = t
                .bridges
                .borrow()
                .iter()
                .filter(|(exit, &bridge)| exit.code == id || bridge == id)
                .map(|(&exit, &bridge)| (exit, bridge))
                .collect();
            for (exit, bridge) in attached {
                t.bridges.borrow_mut().remove(&exit);
                if exit.code == id {
                    pending.push(bridge);
                }
            }
        }
    }
}
