//! The interpreter loop of the reference executor.
//!
//! A [`Machine`] runs one `execute`: a frame of 64-bit slots (see
//! `prepare` for the numbering), the current code and op index, and the
//! per-run state the guards read: the overflow flag of the last `*_ovf`
//! op, the pending exception, and the forced flag of the last call. Each
//! op is one arm of the exhaustive `match` in [`Machine::step`], grouped by
//! family; an op either writes its result slot and falls through, or
//! leaves the current code (guard failure, `jump`, `finish`).
//!
//! Invariant the allocation hook relies on: every non-constant ref slot
//! holds 0 or a ref computed since the current code was entered, because
//! a fresh frame is all zeros and a `jump` clears the frame before writing
//! the label's arguments.

use super::prepare::{Code, Extra, Step};
use crate::backend::{CodeId, DeadFrame, ExecError, ExitId};
use crate::runtime::call::{self, CallArgs};
use crate::runtime::{signal, Access, Allocator, OutOfMemory, Raised};
use majit_ir::{eval, Kind, OpCode, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// The executor state a run needs (`RefExec`'s tables). Each table is
/// borrowed only for the moment of one access, never across a call: a
/// helper the run calls may compile and run code of the same executor.
pub(crate) struct World<'a> {
    pub codes: &'a RefCell<Vec<Option<Rc<Code>>>>,
    pub bridges: &'a RefCell<HashMap<ExitId, CodeId>>,
    /// Type id -> class word, for the layouts that have a vtable.
    pub classes: &'a RefCell<BTreeMap<u32, u64>>,
    pub allocator: &'a RefCell<Box<dyn Allocator>>,
    pub step_limit: u64,
    /// Where stores are recorded, when the caller asked for it.
    pub stores: &'a RefCell<Option<Vec<Store>>>,
}

/// One store a run made: `size` bytes at `addr`, by the op at `by`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Store {
    pub addr: usize,
    pub size: u8,
    pub by: ExitId,
}

/// How an op left the machine.
enum Flow {
    /// Go on with the next op.
    Next,
    /// A guard failed.
    GuardFailed,
    /// `jump` to `label` of `code`.
    Jump { code: CodeId, label: usize },
    /// `finish`.
    Finish,
}

/// One run of compiled code.
pub(crate) struct Machine<'a> {
    world: World<'a>,
    code_id: CodeId,
    code: Rc<Code>,
    frame: Vec<u64>,
    pc: usize,
    overflow: bool,
    forced: bool,
    /// The exception raised by the last raising call, until
    /// `save_exception_*` takes it (across bridges) or an exit hands it to
    /// the caller (see [`Machine::run`]).
    exception: Option<Raised>,
    /// Scratch for the ref roots handed to the allocator.
    roots: Vec<usize>,
    /// Scratch for the values a `jump` passes.
    jump_values: Vec<u64>,
}

impl<'a> Machine<'a> {
    /// A machine at the start of `code_id` with `inputs`.
    pub fn new(
        world: World<'a>,
        code_id: CodeId,
        inputs: &[Value],
    ) -> Result<Machine<'a>, ExecError> {
        let code = lookup(world.codes, code_id)?;
        check_inputs(&code.inputs, inputs)?;
        let mut machine = Machine {
            world,
            code_id,
            code,
            frame: Vec::new(),
            pc: 0,
            overflow: false,
            forced: false,
            exception: None,
            roots: Vec::new(),
            jump_values: Vec::new(),
        };
        machine.start(code_id, inputs)?;
        Ok(machine)
    }

    /// Runs until an exit that has no bridge, or an error.
    pub fn run(&mut self) -> Result<DeadFrame, ExecError> {
        let mut steps: u64 = 0;
        loop {
            // Runs the current code until it leaves through a jump or exit.
            let code = Rc::clone(&self.code);
            let flow = loop {
                steps += 1;
                if steps > self.world.step_limit {
                    return Err(ExecError::StepLimit);
                }
                match self.step(&code.steps[self.pc])? {
                    Flow::Next => self.pc += 1,
                    leave => break leave,
                }
            };
            let step = &code.steps[self.pc];
            match flow {
                Flow::Jump { code, label } => self.enter(code, label)?,
                _ => {
                    let exit = ExitId {
                        code: self.code_id,
                        op_index: self.pc as u32,
                    };
                    let values = step
                        .exit
                        .iter()
                        .map(|&(s, k)| Value::from_bits(k, self.frame[s as usize]));
                    let values: Vec<Value> = values.collect();
                    let bridge = self.world.bridges.borrow().get(&exit).copied();
                    let Some(bridge) = bridge else {
                        return Ok(DeadFrame {
                            exit,
                            descr: step.descr.clone(),
                            values,
                            exception: self.exception,
                        });
                    };
                    self.start(bridge, &values)?;
                }
            }
        }
    }

    /// Continues at the start of `code` with `inputs` (the first code, or
    /// a bridge with its guard's fail-arg values).
    fn start(&mut self, code: CodeId, inputs: &[Value]) -> Result<(), ExecError> {
        self.code = lookup(self.world.codes, code)?;
        self.code_id = code;
        self.frame.clone_from(&self.code.template);
        for (slot, v) in self.frame.iter_mut().zip(inputs) {
            *slot = v.to_bits();
        }
        self.pc = 0;
        Ok(())
    }

    /// Continues after the label at op `label` of `code`, with the values
    /// of the current op's (the jump's) arguments.
    fn enter(&mut self, code: CodeId, label: usize) -> Result<(), ExecError> {
        let mut values = std::mem::take(&mut self.jump_values);
        values.clear();
        values.extend(
            self.code.steps[self.pc]
                .args
                .iter()
                .map(|&s| self.frame[s as usize]),
        );
        if code != self.code_id {
            self.code = lookup(self.world.codes, code)?;
            self.code_id = code;
            self.frame.clone_from(&self.code.template);
        } else {
            self.frame[..self.code.n_values].fill(0);
        }
        let targets = &self.code.steps[label].args;
        for (&slot, &bits) in targets.iter().zip(&values) {
            self.frame[slot as usize] = bits;
        }
        self.jump_values = values;
        self.pc = label + 1;
        Ok(())
    }

    /// Executes the op `s` (the one at `self.pc`).
    fn step(&mut self, s: &Step) -> Result<Flow, ExecError> {
        use OpCode::*;
        match s.opcode {
            // -- value ops: majit_ir::eval is their one definition --
            IntAdd | IntSub | IntMul | IntFloorDiv | IntMod | IntAnd | IntOr | IntXor
            | IntLshift | IntRshift | UintRshift | UintFloorDiv | UintMod | IntLt | IntLe
            | IntEq | IntNe | IntGt | IntGe | UintLt | UintLe | UintGt | UintGe => {
                self.exec_int_binary(s)
            }
            IntAddOvf | IntSubOvf | IntMulOvf => self.exec_int_ovf(s),
            IntNeg
            | IntInvert
            | IntIsZero
            | IntIsTrue
            | FloatAdd
            | FloatSub
            | FloatMul
            | FloatTrueDiv
            | FloatNeg
            | FloatAbs
            | FloatSqrt
            | FloatLt
            | FloatLe
            | FloatEq
            | FloatNe
            | FloatGt
            | FloatGe
            | CastFloatToInt
            | CastIntToFloat
            | ConvertFloatBytesToLonglong
            | ConvertLonglongBytesToFloat
            | PtrEq
            | PtrNe
            | CastPtrToInt
            | CastIntToPtr
            | IntTag
            | IntUntag
            | PtrIsTagged
            | IntFitsTag
            | FloatTag
            | FloatUntag
            | PtrIsFloatTagged
            | FloatFitsTag
            | SameAsI
            | SameAsR
            | SameAsF => self.exec_value_op(s),
            // -- guards --
            GuardTrue | GuardFalse | GuardValue | GuardNonnull | GuardIsnull | GuardNoException
            | GuardException | GuardNoOverflow | GuardOverflow | GuardNotForced => {
                Ok(self.guard_flow(self.guard_holds(s)))
            }
            GuardNotInvalidated => self.exec_guard_not_invalidated(s),
            SaveExceptionI | SaveExceptionR => self.exec_save_exception(s),
            GuardClass | GuardNonnullClass => self.exec_guard_class(s),
            // -- memory --
            GetfieldGcI | GetfieldGcR | GetfieldGcF | GetfieldRawI | GetfieldRawF => {
                self.exec_load(s, false)
            }
            GetarrayitemGcI | GetarrayitemGcR | GetarrayitemGcF | GetarrayitemRawI
            | GetarrayitemRawF | RawLoadI | RawLoadF => self.exec_load(s, true),
            SetfieldGc | SetfieldRaw => self.exec_store(s, false),
            SetarrayitemGc | SetarrayitemRaw | RawStore => self.exec_store(s, true),
            ArraylenGc => self.exec_arraylen_gc(s),
            // -- allocation --
            New
            | NewWithVtable
            | NewArray
            | NewArrayClear
            | CallMallocNursery
            | CallMallocNurseryHeaderless
            | CallMallocNurseryVarsize => self.exec_alloc(s),
            NurseryPtrIncrement => self.set(s, self.arg(s, 0).wrapping_add(self.arg(s, 1))),
            CondCallGcWb => {
                let obj = self.arg(s, 0) as usize;
                self.world.allocator.borrow_mut().write_barrier(obj);
                Ok(Flow::Next)
            }
            CondCallGcWbArray => {
                let (obj, index) = (self.arg(s, 0) as usize, self.arg(s, 1) as i64);
                self.world
                    .allocator
                    .borrow_mut()
                    .write_barrier_array(obj, index);
                Ok(Flow::Next)
            }
            // Optional: a collection changes no value of the trace, and
            // this executor's allocator collects at its own allocations.
            CondCallGcCollect => Ok(Flow::Next),
            // -- calls --
            CallI | CallR | CallF | CallN | CallPureI | CallPureR | CallPureF | CallPureN
            | CallMayForceI | CallMayForceR | CallMayForceF | CallMayForceN | CallAssemblerI
            | CallAssemblerR | CallAssemblerF | CallAssemblerN => self.exec_call(s),
            // -- control --
            // A dependency marker (`quasi.rs`): nothing to run.
            Label | DebugMergePoint | QuasiimmutField => Ok(Flow::Next),
            Jump => match s.extra {
                Extra::Jump { code, label } => Ok(Flow::Jump { code, label }),
                _ => unreachable!("prepare binds every jump"),
            },
            Finish => Ok(Flow::Finish),
        }
    }

    // -- operand access --

    fn arg(&self, s: &Step, i: usize) -> u64 {
        self.frame[s.args[i] as usize]
    }

    fn int(&self, s: &Step, i: usize) -> i64 {
        self.arg(s, i) as i64
    }

    /// Writes the current op's result.
    fn set(&mut self, s: &Step, bits: u64) -> Result<Flow, ExecError> {
        debug_assert!(std::ptr::eq(s, &self.code.steps[self.pc]));
        let slot = self.code.inputs.len() + self.pc;
        self.frame[slot] = bits;
        Ok(Flow::Next)
    }

    fn set_int(&mut self, s: &Step, v: i64) -> Result<Flow, ExecError> {
        self.set(s, v as u64)
    }

    fn guard_flow(&self, holds: bool) -> Flow {
        if holds {
            Flow::Next
        } else {
            Flow::GuardFailed
        }
    }

    // -- value ops (semantics: majit_ir::eval) --

    /// Two-operand integer arithmetic and comparisons, kept apart from
    /// [`Self::exec_value_op`] because they are the hottest ops of loops.
    fn exec_int_binary(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let r = eval::eval_int_binary(s.opcode, self.int(s, 0), self.int(s, 1))
            .expect("dispatched only for integer binary ops");
        self.set_int(s, r)
    }

    fn exec_int_ovf(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let (r, overflow) = eval::eval_ovf(s.opcode, self.int(s, 0), self.int(s, 1))
            .expect("dispatched only for int_*_ovf");
        self.overflow = overflow;
        self.set_int(s, r)
    }

    /// Any other value op: its arguments read with the kinds of its
    /// signature (the verifier checked them).
    fn exec_value_op(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let mut args = [Value::Int(0); 2];
        let sig = s.opcode.info().args.as_bytes();
        for (i, &k) in sig.iter().enumerate() {
            let kind = match k {
                b'f' => Kind::Float,
                b'r' => Kind::Ref,
                _ => Kind::Int,
            };
            args[i] = Value::from_bits(kind, self.arg(s, i));
        }
        let r = eval::eval_pure(s.opcode, &args[..sig.len()])
            .expect("dispatched only for value ops with verified kinds");
        self.set(s, r.to_bits())
    }

    // -- guards --

    /// Whether the condition of a guard without memory access holds.
    fn guard_holds(&self, s: &Step) -> bool {
        match s.opcode {
            OpCode::GuardTrue | OpCode::GuardNonnull => self.arg(s, 0) != 0,
            OpCode::GuardFalse | OpCode::GuardIsnull => self.arg(s, 0) == 0,
            // Bit equality: guard_value(f, 0.0) fails for -0.0, holds for the same NaN.
            OpCode::GuardValue => self.arg(s, 0) == self.arg(s, 1),
            OpCode::GuardNoException => self.exception.is_none(),
            OpCode::GuardException => matches!(self.exception, Some(Raised::Value(_))),
            OpCode::GuardNoOverflow => !self.overflow,
            OpCode::GuardOverflow => self.overflow,
            _ => !self.forced, // guard_not_forced
        }
    }

    /// `guard_not_invalidated(word)`: the validity word (`quasi.rs`) is 0.
    fn exec_guard_not_invalidated(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let word = self.arg(s, 0) as usize;
        if word == 0 {
            return Err(ExecError::NullPointer { op_index: self.pc });
        }
        let access = crate::runtime::Access {
            size: 8,
            signed: false,
        };
        // SAFETY: the Backend contract: the argument is the address of a
        // validity word, which lives as long as the code testing it.
        let bits = unsafe { access.load(word) };
        Ok(self.guard_flow(bits == 0))
    }

    /// `save_exception_i`/`_r`: takes the pending exception, which must be
    /// a catchable one of the op's kind (`guard_exception` checked the
    /// first).
    fn exec_save_exception(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let want = s.opcode.result().kind();
        match self.exception.take().and_then(Raised::value) {
            Some(v) if Some(v.kind()) == want => self.set(s, v.to_bits()),
            other => Err(ExecError::BadInputs(format!(
                "{} at op {} with the pending exception {other:?}",
                s.opcode, self.pc
            ))),
        }
    }

    /// `guard_class(p, cls)`, `guard_nonnull_class(p, cls)`: `p`'s class
    /// word is `cls`. The class word is the vtable of the layout whose type
    /// id sits in the low 32 bits of `p`'s header, or that type id when the
    /// layout has no vtable (RPython's approach without a type pointer).
    fn exec_guard_class(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let obj = self.arg(s, 0) as usize;
        if obj == 0 {
            return match s.opcode {
                OpCode::GuardNonnullClass => Ok(Flow::GuardFailed),
                _ => Err(ExecError::NullPointer { op_index: self.pc }),
            };
        }
        if obj & 3 != 0 {
            // A small integer or float (`int_tag`, `float_tag`): of no class.
            return Ok(Flow::GuardFailed);
        }
        let header = Access {
            size: 8,
            signed: false,
        };
        // SAFETY: the Backend contract: `p` is a live headered object.
        let type_id = (unsafe { header.load(obj) } & 0xffff_ffff) as u32;
        let class = self
            .world
            .classes
            .borrow()
            .get(&type_id)
            .copied()
            .unwrap_or(u64::from(type_id));
        Ok(self.guard_flow(class == self.arg(s, 1)))
    }

    // -- memory --

    /// The address an access op touches: base + offset (+ index * stride,
    /// or + the byte offset argument for `raw_*`).
    fn address(&self, s: &Step, indexed: bool) -> Result<(usize, Access), ExecError> {
        let Extra::Memory {
            offset,
            stride,
            access,
        } = s.extra
        else {
            unreachable!("prepare gives every access op Extra::Memory")
        };
        let base = self.arg(s, 0) as usize;
        if base == 0 {
            return Err(ExecError::NullPointer { op_index: self.pc });
        }
        let index = if indexed { self.arg(s, 1) as usize } else { 0 };
        Ok((
            base.wrapping_add(offset)
                .wrapping_add(index.wrapping_mul(stride)),
            access,
        ))
    }

    fn exec_load(&mut self, s: &Step, indexed: bool) -> Result<Flow, ExecError> {
        let (addr, access) = self.address(s, indexed)?;
        // SAFETY: the Backend contract: the trace only loads from memory
        // that is valid for the access (null was rejected above).
        let bits = unsafe { access.load(addr) };
        self.set(s, bits)
    }

    fn exec_store(&mut self, s: &Step, indexed: bool) -> Result<Flow, ExecError> {
        let (addr, access) = self.address(s, indexed)?;
        let value = self.arg(s, if indexed { 2 } else { 1 });
        // SAFETY: the Backend contract: the trace only stores to memory
        // that is valid for the access (null was rejected above).
        unsafe { access.store(addr, value) };
        self.barrier_after_store(s);
        if let Some(stores) = &mut *self.world.stores.borrow_mut() {
            stores.push(Store {
                addr,
                size: access.size,
                by: ExitId {
                    code: self.code_id,
                    op_index: self.pc as u32,
                },
            });
        }
        Ok(Flow::Next)
    }

    /// A ref stored into a GC object by a trace that was not rewritten
    /// (which has no `cond_call_gc_wb`): the allocator's barrier records
    /// the object, as compiled code's barrier would.
    fn barrier_after_store(&mut self, s: &Step) {
        let obj = self.arg(s, 0) as usize;
        let stores_ref = |field: bool| {
            let kind = s.descr.as_ref().and_then(|d| match field {
                true => d.as_field().map(|f| f.kind),
                false => d.as_array().map(|a| a.kind),
            });
            kind == Some(majit_ir::Kind::Ref)
        };
        match s.opcode {
            OpCode::SetfieldGc if stores_ref(true) => {
                self.world.allocator.borrow_mut().write_barrier(obj)
            }
            OpCode::SetarrayitemGc if stores_ref(false) => {
                let index = self.arg(s, 1) as i64;
                let mut a = self.world.allocator.borrow_mut();
                a.write_barrier_array(obj, index)
            }
            _ => {}
        }
    }

    fn exec_arraylen_gc(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let Extra::Length { offset } = s.extra else {
            unreachable!("prepare gives arraylen_gc Extra::Length")
        };
        let array = self.arg(s, 0) as usize;
        if array == 0 {
            return Err(ExecError::NullPointer { op_index: self.pc });
        }
        // SAFETY: the Backend contract: `array` is a live GC array, whose
        // length word sits at `offset`.
        let length = unsafe {
            Access {
                size: 8,
                signed: true,
            }
            .load(array + offset)
        };
        self.set(s, length)
    }

    // -- allocation --

    /// Copies the held refs into the roots scratch (refs of the frame, then
    /// the pending exception).
    fn gather_roots(&mut self) {
        self.roots.clear();
        let frame = &self.frame;
        self.roots.extend(
            self.code
                .ref_slots
                .iter()
                .map(|&r| frame[r as usize] as usize),
        );
        self.roots.extend(self.exception_ref());
    }

    /// The pending exception when it is a ref (a GC root).
    fn exception_ref(&self) -> Option<usize> {
        match self.exception {
            Some(Raised::Value(Value::Ref(r))) => Some(r),
            _ => None,
        }
    }

    /// Writes back the refs a collection may have moved.
    fn scatter_roots(&mut self) {
        for (&slot, &r) in self.code.ref_slots.iter().zip(&self.roots) {
            self.frame[slot as usize] = r as u64;
        }
        if self.exception_ref().is_some() {
            let moved = self.roots.last().copied().unwrap_or(0);
            self.exception = Some(Raised::Value(Value::Ref(moved)));
        }
    }

    fn exec_alloc(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let oom = ExecError::OutOfMemory { op_index: self.pc };
        let count = |bits: u64| usize::try_from(bits as i64).map_err(|_| oom.clone());
        let size_arg = if s.args.is_empty() {
            0
        } else {
            count(self.arg(s, 0))?
        };
        self.gather_roots();
        let mut roots = std::mem::take(&mut self.roots);
        let mut a = self.world.allocator.borrow_mut();
        let r: Result<usize, OutOfMemory> = match (&s.extra, s.opcode) {
            (Extra::Object(layout), OpCode::CallMallocNurseryHeaderless) => {
                a.malloc_nursery_headerless(size_arg, layout, &mut roots)
            }
            (Extra::Object(layout), _) => a.new_object(layout, &mut roots),
            (Extra::Array(array), OpCode::CallMallocNurseryVarsize) => {
                a.malloc_nursery_varsize(array, size_arg, &mut roots)
            }
            (Extra::Array(array), _) => a.new_array(array, size_arg, &mut roots),
            _ => a.malloc_nursery(size_arg, &mut roots), // call_malloc_nursery
        };
        drop(a);
        self.roots = roots;
        self.scatter_roots();
        let obj = r.map_err(|OutOfMemory| oom)?;
        self.set(s, obj as u64)
    }

    // -- calls --

    fn exec_call(&mut self, s: &Step) -> Result<Flow, ExecError> {
        let Extra::Call {
            ref kinds,
            float_result,
            can_collect,
        } = s.extra
        else {
            unreachable!("prepare gives every call Extra::Call")
        };
        let func = self.arg(s, 0) as usize;
        if func == 0 {
            return Err(ExecError::NullPointer { op_index: self.pc });
        }
        let args = CallArgs::new(kinds, s.args[1..].iter().map(|&a| self.frame[a as usize]));
        if can_collect {
            self.gather_roots();
            self.world.allocator.borrow_mut().call_begin(&self.roots);
        }
        signal::take(); // drop stale signals raised outside any call
                        // SAFETY: the Backend contract: `func` is an `extern "C"` function
                        // whose signature the call descr describes, and prepare checked the
                        // descr against the canonical call's limits (see call.rs).
        let result = unsafe { call::call(func, &args, float_result) };
        let signals = signal::take();
        if can_collect {
            let mut roots = std::mem::take(&mut self.roots);
            self.world.allocator.borrow_mut().call_end(&mut roots);
            self.roots = roots;
            self.scatter_roots();
        }
        self.exception = signals.exception.or(self.exception);
        self.forced = signals.forced;
        if s.opcode.result().kind().is_some() {
            self.set(s, result)?;
        }
        Ok(Flow::Next)
    }
}

/// The live code `id`.
fn lookup(codes: &RefCell<Vec<Option<Rc<Code>>>>, id: CodeId) -> Result<Rc<Code>, ExecError> {
    codes
        .borrow()
        .get(id.0 as usize)
        .and_then(Clone::clone)
        .ok_or(ExecError::UnknownCode(id))
}

/// Inputs must match the code's input kinds in number and kind.
fn check_inputs(kinds: &[Kind], inputs: &[Value]) -> Result<(), ExecError> {
    if kinds.len() != inputs.len() {
        return Err(ExecError::BadInputs(format!(
            "expected {} inputs, got {}",
            kinds.len(),
            inputs.len()
        )));
    }
    for (i, (k, v)) in kinds.iter().zip(inputs).enumerate() {
        if v.kind() != *k {
            return Err(ExecError::BadInputs(format!(
                "input {i} is {:?}, expected {k:?}",
                v.kind()
            )));
        }
    }
    Ok(())
}
