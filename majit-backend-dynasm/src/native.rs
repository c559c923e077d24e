//! [`NativeBackend`]: the `Backend` trait over an [`Arch`].
//!
//! Owns the runtime code (entry trampoline, exit routine), every compiled
//! trace's code block and exit records, the map from exit tokens (stub
//! addresses) back to exits, and the labels other traces may jump to.
//! `execute` sizes a jitframe for the deepest trace compiled so far, puts
//! the inputs in slots `0..n`, enters the code and turns the exit token the
//! frame holds afterwards into a [`DeadFrame`].

use crate::arch::{Arch, DirectEnv, EmitEnv, Loc, PoolWord};
use crate::codemem::CodeBlock;
use crate::driver::{self, CompileOptions, Compiled, ExternalLabel};
use crate::frame::{self, Frame};
use crate::framepool::FramePool;
use crate::guard::ExitRecord;
use crate::regalloc::{self, AllocPolicy, NativePolicy};
use crate::sched::{NativeSched, SchedStrategy};
use majit_ir::{Kind, Trace, Value};
use majit_metainterp::runtime::{Raised, SignalWords};
use majit_metainterp::strategy::Strategies;
use majit_metainterp::{
    Backend, CodeId, CompileError, DeadFrame, ExecError, ExitId, Exited, MachineCode,
};
use std::collections::BTreeMap;
use std::marker::PhantomData;

/// One compiled trace.
#[derive(Debug)]
pub(crate) struct TraceCode {
    pub block: CodeBlock,
    pub exits: Vec<ExitRecord>,
    pub inputs: Vec<Kind>,
    /// Bridges: the guard they are attached to (trace, pool word) and the
    /// word's value before attaching.
    pub attached_to: Option<(CodeId, usize, usize)>,
    pub labels: Vec<String>,
    /// The pool as emitted (what each word is, for listings).
    pub pool: Vec<PoolWord>,
}

/// A run of compiled code, prepared by `enter_frame`: it needs nothing
/// of the backend while the code runs.
struct Entry {
    frame: Frame,
    trampoline: usize,
    code: usize,
    heap: Option<*mut majit_gc::GcHeap>,
}

impl Entry {
    /// Runs the code on the frame and returns the frame.
    ///
    /// # Safety
    /// `trampoline` is the entry trampoline of an `A` backend and `code`
    /// compiled code of it that stays mapped during the run; the frame has
    /// at least the spill slots of every trace the run can reach; `heap`,
    /// if any, is the live heap the code allocates on.
    ///
    /// With `take_stale`, signals raised outside any call of this run are
    /// dropped first, as refexec does before each call; a call from
    /// compiled code (`call_in`) needs no such step: its caller took the
    /// signals of its own last call, and nothing raises between.
    unsafe fn run<A: Arch>(mut self, take_stale: bool) -> Frame {
        let ptr = self.frame.as_mut_ptr();
        if let Some(heap) = self.heap {
            // SAFETY: the heap is live (the caller's contract); the frame
            // stays alive and in place until the matching pop.
            unsafe { majit_gc::majit_gc_push_frame(heap, self.frame.roots_ptr()) };
        }
        if take_stale {
            let mut stale = SignalWords::default();
            // SAFETY: `stale` is a valid `SignalWords`.
            unsafe { majit_metainterp::runtime::take_signals(&mut stale) };
        }
        // SAFETY: the caller's contract.
        let back = unsafe { A::enter(self.trampoline, ptr, self.code) };
        if let Some(heap) = self.heap {
            // SAFETY: pops the frame pushed above (runs nest, so it is on top).
            unsafe { majit_gc::majit_gc_pop_frame(heap) };
        }
        debug_assert_eq!(back, ptr);
        self.frame
    }
}

/// A native backend for architecture `A`.
///
/// ```
/// # #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))] {
/// use majit_backend_dynasm::HostBackend;
/// use majit_ir::{Const, Kind, Op, OpCode, Trace, Value};
/// use majit_metainterp::Backend;
/// let mut t = Trace::new(&[Kind::Int]);
/// let one = t.add_const(Const::Int(1));
/// let sum = t.push(Op::new(OpCode::IntAdd, &[t.input(0), one]));
/// t.push(Op::new(OpCode::Finish, &[sum]));
/// let mut b = HostBackend::new().unwrap();
/// let code = b.compile_loop(&t).unwrap();
/// assert_eq!(b.execute(code, &[Value::Int(41)]).unwrap().int(0), 42);
/// # }
/// ```
pub struct NativeBackend<A: Arch> {
    _runtime: CodeBlock,
    entry: usize,
    pub(crate) traces: BTreeMap<CodeId, TraceCode>,
    next_id: u32,
    /// Exit token (stub address) -> (trace, position in its exits).
    pub(crate) tokens: BTreeMap<usize, (CodeId, usize)>,
    pub(crate) labels: BTreeMap<String, (CodeId, ExternalLabel)>,
    max_slots: u32,
    check: bool,
    /// Class words and GC contract handed to the emitters.
    pub(crate) env: EmitEnv,
    sched: Box<dyn SchedStrategy>,
    policy: Box<dyn AllocPolicy>,
    /// The spill slots of the jitframes running right now (runs nest when
    /// a helper runs code of this backend, see `Backend::execute_in`): code
    /// compiled meanwhile must fit the smallest (see [`FRAME_HEADROOM`]).
    running: Vec<u32>,
    /// Jitframes that ran, for the next runs (compiled code takes them
    /// too: `call_assembler`).
    pub(crate) frames: FramePool,
    _arch: PhantomData<A>,
}

/// Spill slots a jitframe gets beyond the deepest trace compiled when it
/// is entered (and at least [`MIN_FRAME_SLOTS`]): a trace compiled while
/// the frame runs (by a nested run of the interpreter, a call of the
/// interpreted program) may be entered from it, so code compiled while
/// frames run may use at most the smallest running frame's slots (more is
/// `CompileError::ImplLimit`).
pub const FRAME_HEADROOM: u32 = 32;

/// The fewest spill slots a jitframe has (2 KiB of slots).
pub const MIN_FRAME_SLOTS: u32 = 256;

/// How many jitframes the backend keeps for reuse: runs nest as deep as
/// the interpreted program's calls, and a frame made afresh costs a
/// zeroed allocation of several KiB, so the pool keeps the depths that
/// recursive programs reach (about 10 MiB of frames at most).
pub const FRAME_POOL: usize = 4096;

impl<A: Arch> NativeBackend<A> {
    /// A backend with the native scheduling and allocation strategies. The
    /// allocation checker runs in debug builds and when `MAJIT_CHECK_REGALLOC`
    /// is set.
    pub fn new() -> Result<Self, CompileError> {
        let rt = A::runtime()?;
        let runtime = CodeBlock::new(&rt.code, &[])?;
        let base = runtime.addr();
        let frames = FramePool::new(A::regs(), MIN_FRAME_SLOTS, FRAME_POOL);
        Ok(NativeBackend {
            _runtime: runtime,
            entry: base + rt.entry,
            traces: BTreeMap::new(),
            next_id: 0,
            tokens: BTreeMap::new(),
            labels: BTreeMap::new(),
            max_slots: 0,
            check: cfg!(debug_assertions) || std::env::var_os("MAJIT_CHECK_REGALLOC").is_some(),
            env: EmitEnv {
                exit_routine: base + rt.exit,
                leave_routine: base + rt.leave,
                direct: DirectEnv {
                    pool: frames.addr(),
                    entry: base + rt.entry,
                    leave: majit_metainterp::portal::leave_direct as *const () as usize,
                    ..DirectEnv::default()
                },
                ..EmitEnv::default()
            },
            sched: Box::new(NativeSched),
            policy: Box::new(NativePolicy),
            running: Vec::new(),
            frames,
            _arch: PhantomData,
        })
    }

    /// A backend whose traces may allocate on the majit-gc heap described
    /// by `gc` (inline nursery bumps, write barriers, frames as roots).
    /// Traces are lowered with majit-gc's rewrite pass before compiling
    /// (unless they already are; see `gclower.rs`). The caller keeps that
    /// heap alive as long as the backend exists, and does not compile
    /// while the heap is allocating or collecting.
    pub fn with_gc(gc: majit_gc::JitGcInfo) -> Result<Self, CompileError> {
        let mut b = Self::new()?;
        b.env.gc = Some(gc);
        Ok(b)
    }

    /// Tells `guard_class` about a layout: its class word is its vtable,
    /// or its type id when it has none (as in refexec). Layouts named by
    /// the descrs of compiled traces are learnt automatically.
    pub fn register_layout(&mut self, layout: &majit_ir::SizeDescr) {
        let class = layout.vtable.unwrap_or(layout.type_id as u64);
        let entry = (class, layout.type_id);
        if !self.env.classes.contains(&entry) {
            self.env.classes.push(entry);
        }
    }

    /// Replaces the scheduling strategy and allocation policy (one
    /// instance each; `Backend::set_strategies` builds them from a
    /// driver's factories). A user policy's allocations are always checked.
    pub fn replace_strategies(
        &mut self,
        sched: Box<dyn SchedStrategy>,
        policy: Box<dyn AllocPolicy>,
    ) {
        self.sched = sched;
        self.policy = policy;
        self.check = true;
    }

    /// How many compiled traces (loops and bridges) hold code memory. A
    /// failed compilation adds none: its code is mapped only once every
    /// check passed.
    pub fn code_blocks(&self) -> usize {
        self.traces.len()
    }

    /// The instruction bytes of a compiled trace (without its pool).
    pub fn code_bytes(&self, code: CodeId) -> Option<&[u8]> {
        self.traces.get(&code).map(|t| t.block.code())
    }

    /// The exit records of a compiled trace.
    pub fn exits(&self, code: CodeId) -> Option<&[ExitRecord]> {
        self.traces.get(&code).map(|t| t.exits.as_slice())
    }

    /// Compiles `trace` with inputs at `entry` and installs it.
    pub(crate) fn install(
        &mut self,
        trace: &Trace,
        entry: Vec<Loc>,
        attached_to: Option<(CodeId, usize, usize)>,
    ) -> Result<CodeId, CompileError> {
        let (lowered, origins) = self.lower_for_gc(trace)?;
        let trace = &*lowered;
        for d in trace.descrs() {
            if let Some(layout) = d.as_size() {
                self.register_layout(layout);
            }
        }
        let labels = &self.labels;
        let external = |name: &str| labels.get(name).map(|l| l.1.clone());
        let mut compiled: Compiled = driver::compile::<A>(
            trace,
            entry,
            &external,
            &self.env,
            CompileOptions {
                sched: self.sched.as_mut(),
                policy: self.policy.as_mut(),
                check: self.check,
                has_gc: self.env.gc.is_some(),
            },
        )?;
        if let Some(origins) = &origins {
            for e in &mut compiled.assembled.exits {
                e.op_index = origins[e.op_index];
            }
        }
        let mut names = Vec::new();
        for &(op, _) in &compiled.assembled.labels {
            let name = regalloc::target_name(&trace.ops[op])?.to_string();
            if self.labels.contains_key(&name) || names.contains(&name) {
                return Err(CompileError::Invalid(format!(
                    "label {name} is defined twice"
                )));
            }
            names.push(name);
        }
        let block = CodeBlock::new(&compiled.assembled.code, &compiled.assembled.pool)?;
        let id = CodeId(self.next_id);
        self.next_id += 1;
        let base = block.addr();
        for (k, e) in compiled.assembled.exits.iter().enumerate() {
            self.tokens.insert(base + e.stub_offset, (id, k));
        }
        for (&(op, off), name) in compiled.assembled.labels.iter().zip(&names) {
            let locs = compiled
                .allocation
                .labels
                .iter()
                .find(|l| l.0 == op)
                .map(|l| l.1.clone())
                .unwrap_or_default();
            self.labels.insert(
                name.clone(),
                (
                    id,
                    ExternalLabel {
                        addr: base + off,
                        locs,
                    },
                ),
            );
        }
        let slots = self
            .max_slots
            .max(compiled.allocation.slots)
            .max(trace.inputs.len() as u32);
        // Frames compiled code took run code of at most `frames.depth()`
        // slots, which only grows while none runs.
        let in_flight = self.frames.words().in_flight > 0;
        let direct = in_flight.then(|| self.frames.depth());
        let room = self.running.iter().copied().chain(direct).min();
        if let Some(room) = room.filter(|&r| slots > r) {
            return Err(CompileError::ImplLimit(format!(
                "a running jitframe has {room} spill slots, compiled code would need {slots}"
            )));
        }
        self.max_slots = slots;
        if !in_flight && slots > self.frames.depth() {
            self.frames
                .grow((slots + FRAME_HEADROOM).max(MIN_FRAME_SLOTS));
        }
        self.traces.insert(
            id,
            TraceCode {
                block,
                exits: compiled.assembled.exits,
                inputs: trace.inputs.clone(),
                attached_to,
                labels: names,
                pool: compiled.assembled.pool,
            },
        );
        Ok(id)
    }

    fn dead_frame(&self, frame: &Frame) -> Result<DeadFrame, ExecError> {
        let token = frame.word(frame::EXIT) as usize;
        let &(code, k) = self.tokens.get(&token).ok_or_else(|| {
            ExecError::BadInputs(format!(
                "compiled code returned an unknown exit token {token:#x}"
            ))
        })?;
        let exit = &self.traces[&code].exits[k];
        if exit.out_of_memory {
            return Err(ExecError::OutOfMemory {
                op_index: exit.op_index,
            });
        }
        Ok(DeadFrame {
            exit: ExitId {
                code,
                op_index: exit.op_index as u32,
            },
            descr: exit.descr.clone(),
            values: exit
                .values()
                .map(|(loc, kind)| frame.read(loc, kind))
                .collect(),
            exception: Raised::from_words(
                frame.word(frame::EXCEPTION),
                frame.word(frame::EXC_VALUE),
            ),
        })
    }

    /// Checks `inputs` against loop `code` and prepares its run: a frame
    /// (from the pool if one is large enough) of [`FRAME_HEADROOM`] slots
    /// more than the deepest trace compiled so far, the inputs in slots
    /// `0..n`, registered as running.
    fn enter_frame(&mut self, code: CodeId, inputs: &[Value]) -> Result<Entry, ExecError> {
        let t = self.traces.get(&code).ok_or(ExecError::UnknownCode(code))?;
        if t.attached_to.is_some() {
            return Err(ExecError::BadInputs(format!(
                "code {} is a bridge, not a loop",
                code.0
            )));
        }
        if inputs.len() != t.inputs.len()
            || inputs.iter().zip(&t.inputs).any(|(v, &k)| v.kind() != k)
        {
            return Err(ExecError::BadInputs(format!(
                "expected inputs of kinds {:?}, got {inputs:?}",
                t.inputs
            )));
        }
        let mut frame = self.frames.take();
        for (i, &v) in inputs.iter().enumerate() {
            frame.set_slot(i as u32, v);
        }
        self.running.push(frame.depth());
        Ok(Entry {
            frame,
            trampoline: self.entry,
            code: t.block.addr(),
            heap: self
                .env
                .gc
                .as_ref()
                .map(|g| g.heap as *mut majit_gc::GcHeap),
        })
    }

    /// After a run: no longer running; its exit (with the exception it
    /// left); the frame goes back to the pool.
    fn leave_frame(&mut self, frame: Frame) -> Result<DeadFrame, ExecError> {
        let df = self.dead_frame(&frame);
        self.release(frame);
        df
    }

    /// `frame` no longer runs; it goes back to the pool.
    fn release(&mut self, frame: Frame) {
        self.running.pop();
        self.frames.give(frame);
        if self.running.is_empty() && self.frames.words().in_flight == 0 {
            self.frames.trim();
        }
    }

    /// Removes trace `id` and its tokens and labels.
    pub(crate) fn remove(&mut self, id: CodeId) -> Option<TraceCode> {
        let t = self.traces.remove(&id)?;
        self.tokens.retain(|_, v| v.0 != id);
        for name in &t.labels {
            self.labels.remove(name);
        }
        Some(t)
    }
}

impl<A: Arch> Backend for NativeBackend<A> {
    fn name(&self) -> &'static str {
        A::NAME
    }

    fn compile_loop(&mut self, trace: &Trace) -> Result<CodeId, CompileError> {
        let entry = (0..trace.inputs.len() as u32).map(Loc::Slot).collect();
        self.install(trace, entry, None)
    }

    fn compile_bridge(&mut self, guard: ExitId, bridge: &Trace) -> Result<CodeId, CompileError> {
        self.attach_bridge(guard, bridge)
    }

    fn execute(&mut self, code: CodeId, inputs: &[Value]) -> Result<DeadFrame, ExecError> {
        let entry = self.enter_frame(code, inputs)?;
        // SAFETY: `enter_frame` checked the code and sized the frame; the
        // code stays mapped (we hold the backend).
        let frame = unsafe { entry.run::<A>(true) };
        self.leave_frame(frame)
    }

    fn execute_in(
        cell: &std::cell::RefCell<Self>,
        code: CodeId,
        inputs: &[Value],
    ) -> Result<DeadFrame, ExecError> {
        let entry = cell.borrow_mut().enter_frame(code, inputs)?;
        // No borrow of the backend while the code runs: a helper it calls
        // may compile and run code of this backend.
        // SAFETY: `enter_frame` checked the code and sized the frame;
        // code is never freed while it runs (the driver frees none, and
        // `free` needs the backend mutably, which a run never hands out).
        let frame = unsafe { entry.run::<A>(true) };
        cell.borrow_mut().leave_frame(frame)
    }
    fn call_in(
        cell: &std::cell::RefCell<Self>,
        code: CodeId,
        inputs: &[Value],
    ) -> Result<Exited, ExecError> {
        let entry = cell.borrow_mut().enter_frame(code, inputs)?;
        // SAFETY: as in `execute_in`.
        let frame = unsafe { entry.run::<A>(false) };
        let mut b = cell.borrow_mut();
        let exited = match frame.returned() {
            Some(value) => Ok(Exited::Returned(value)),
            None => b.dead_frame(&frame).map(Exited::Left),
        };
        b.release(frame);
        exited
    }

    fn call_target(
        &mut self,
        token: i64,
        cell: usize,
        shape: &majit_metainterp::callasm::CallShape,
    ) {
        self.env.direct.targets.insert(token, (cell, shape.clone()));
    }

    fn entry_address(&self, code: CodeId) -> Option<usize> {
        let t = self.traces.get(&code)?;
        t.attached_to.is_none().then(|| t.block.addr())
    }

    fn direct_calls(&self) -> (u64, bool) {
        let w = self.frames.words();
        (w.entries, w.in_flight > 0)
    }

    fn leave_call(cell: &std::cell::RefCell<Self>, frame: usize) -> Result<DeadFrame, ExecError> {
        let mut b = cell.borrow_mut();
        // SAFETY: compiled code passes the frame it took from this
        // backend's pool and ran the callee on; it no longer uses it.
        let frame = unsafe { Frame::from_raw(A::regs(), frame as *mut u64) };
        let df = b.dead_frame(&frame);
        b.frames.give(frame);
        df
    }

    fn free(&mut self, code: CodeId) {
        // On failure the code stays mapped and attached (`free_tree`): a
        // leak, never a jump into freed memory. `free` has no error channel;
        // callers that want the error call `free_tree`.
        let _kept = self.free_tree(code);
    }

    fn code_range(&self, code: CodeId) -> Option<std::ops::Range<usize>> {
        self.range_of(code)
    }

    /// The whole pages mapped for the trace (one mapping per trace).
    fn code_size(&self, code: CodeId) -> usize {
        self.traces.get(&code).map_or(0, |t| t.block.mapped_len())
    }

    fn machine_code(
        &self,
        code: CodeId,
        names: &dyn Fn(u64) -> Option<String>,
    ) -> Option<MachineCode> {
        self.listing(code, names)
    }

    fn set_strategies(&mut self, strategies: &Strategies) -> Result<(), CompileError> {
        let sched: Box<dyn SchedStrategy> = match &strategies.sched {
            Some(make) => make(),
            None => Box::new(NativeSched),
        };
        let policy: Box<dyn AllocPolicy> = match &strategies.alloc {
            Some(make) => make(),
            None => Box::new(NativePolicy),
        };
        if strategies.is_native() {
            self.sched = sched;
            self.policy = policy;
        } else {
            self.replace_strategies(sched, policy);
        }
        Ok(())
    }
}
