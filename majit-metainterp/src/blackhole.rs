//! The blackhole interpreter: runs jitcode on plain values, recording
//! nothing.
//!
//! It finishes work the JIT started but cannot complete: after a guard
//! failure (frames rebuilt from resume data, resuming at the guard's
//! `-live-` marker, where the branch is re-executed with the real value),
//! and after an aborted trace (frames taken over from the tracer, resuming
//! at the instruction the tracer stopped before). The innermost frame
//! runs; a returning frame writes its result into its caller's result
//! register and the caller continues after the call. When the outermost
//! frame reaches the portal's `jit_merge_point`, the greens and reds are
//! handed back to the plain interpreter ([`Outcome::MergePoint`]); if it
//! returns instead, the interpreted program is done ([`Outcome::Returned`]).
//! A portal frame that is not the outermost (a call of the interpreted
//! program, `portal.rs`) reaching its merge point is handed to the portal
//! runner, which runs the callee with the JIT and returns its result.
//!
//! Exceptions: a call that raised goes to the `catch_exception` after it
//! ([`crate::jitcode::JitCode::catch_after`]); a frame without one ends
//! and the exception goes to its caller's, up to the outermost frame,
//! which then ends with it ([`Outcome::Raised`]). [`Blackhole::raise`]
//! delivers an exception that compiled code left pending (a failed
//! `guard_no_exception`) the same way.
//!
//! Invariants: the blackhole and the tracer share one semantics
//! ([`crate::jitcode::eval`]); a frame's ref registers are passed as roots
//! to every allocation, so a moving allocator can update them.

use crate::jitcode::eval::{self, ConcreteError};
use crate::jitcode::{FuncId, Insn, JOp, JitCode, JitCodeSet, Operand, RegOp};
use crate::portal::PortalCall;
use crate::runtime::Allocator;
use majit_ir::{Descr, Kind, Value};
use smallvec::SmallVec;
use std::sync::Arc;

/// One frame of the blackhole: a function, a position and registers.
#[derive(Clone, Debug)]
pub struct BhFrame {
    pub code: Arc<JitCode>,
    /// The next instruction to execute.
    pub pc: usize,
    pub ints: Vec<i64>,
    pub refs: Vec<usize>,
    pub floats: Vec<f64>,
    /// Where this frame's result goes in the caller (for inner frames).
    pub ret_dst: Option<RegOp>,
}

impl BhFrame {
    /// A frame of `code` at `pc` with all registers zero.
    pub fn new(code: Arc<JitCode>, pc: usize) -> BhFrame {
        let [ni, nr, nf] = code.num_regs.map(usize::from);
        BhFrame {
            code,
            pc,
            ints: vec![0; ni],
            refs: vec![0; nr],
            floats: vec![0.0; nf],
            ret_dst: None,
        }
    }

    /// The value of operand `r` (a register or a constant).
    pub fn get(&self, r: RegOp) -> Value {
        if self.code.is_const(r) {
            return self.code.const_value(r);
        }
        let i = r.index as usize;
        match r.kind {
            Kind::Int => Value::Int(self.ints[i]),
            Kind::Ref => Value::Ref(self.refs[i]),
            Kind::Float => Value::Float(self.floats[i]),
        }
    }

    /// Writes register `r`. `v` must have `r`'s kind.
    pub fn set(&mut self, r: RegOp, v: Value) {
        let i = r.index as usize;
        match v {
            Value::Int(x) => self.ints[i] = x,
            Value::Ref(x) => self.refs[i] = x,
            Value::Float(x) => self.floats[i] = x,
        }
    }

    fn int(&self, r: RegOp) -> i64 {
        self.get(r).as_int().unwrap_or(0)
    }
    fn reference(&self, r: RegOp) -> usize {
        self.get(r).as_ref().unwrap_or(0)
    }
}

/// How a blackhole run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The outermost frame reached the merge point: the interpreter goes
    /// on from here with these greens and reds (declaration order).
    MergePoint {
        greens: Vec<Value>,
        reds: Vec<Value>,
    },
    /// The outermost frame returned.
    Returned(Option<Value>),
    /// The outermost frame ended with this exception (no catch took it).
    Raised(Value),
}

/// Builds the frame for a call of `callee` with `args` in its parameters.
pub(crate) fn callee_frame(
    codes: &JitCodeSet,
    callee: FuncId,
    args: &[Value],
) -> Result<BhFrame, ConcreteError> {
    let code = codes
        .get(callee)
        .ok_or_else(|| ConcreteError::BadJitCode(format!("no function #{}", callee.0)))?
        .clone();
    if code.params.len() != args.len()
        || code
            .params
            .iter()
            .zip(args)
            .any(|(p, a)| p.kind != a.kind())
    {
        return Err(ConcreteError::BadJitCode(format!(
            "call of {} does not match its parameters",
            code.name
        )));
    }
    let mut f = BhFrame::new(code.clone(), 0);
    for (p, a) in code.params.iter().zip(args) {
        f.set(*p, *a);
    }
    Ok(f)
}

/// The blackhole interpreter over a stack of frames (outermost first).
pub struct Blackhole<'a> {
    codes: &'a JitCodeSet,
    alloc: &'a mut dyn Allocator,
    pub frames: Vec<BhFrame>,
    /// The portal, for calls of the interpreted program (see
    /// [`Blackhole::with_portal`]).
    portal: Option<PortalCall>,
}

impl<'a> Blackhole<'a> {
    /// A blackhole over `frames` (outermost first; the last one runs).
    pub fn new(
        codes: &'a JitCodeSet,
        alloc: &'a mut dyn Allocator,
        frames: Vec<BhFrame>,
    ) -> Blackhole<'a> {
        Blackhole {
            codes,
            alloc,
            frames,
            portal: None,
        }
    }

    /// Makes the blackhole run calls of the interpreted program with the
    /// portal runner: when a portal frame that is not the outermost reaches
    /// its merge point, the runner runs the callee from there (with the
    /// JIT: compiled code or the interpreter) and the frame returns its
    /// result. Without a runner, callee frames run here to their return.
    pub fn with_portal(mut self, portal: PortalCall) -> Blackhole<'a> {
        self.portal = Some(portal);
        self
    }

    /// Runs until the outermost frame reaches a merge point or returns.
    pub fn run(&mut self) -> Result<Outcome, ConcreteError> {
        // The top frame's code, cloned only when a call or return changes
        // it: an `Arc` clone per instruction was half of a step's time.
        let mut code = self.top_code()?;
        loop {
            if !Arc::ptr_eq(&code, self.top_code_ref()?) {
                code = self.top_code()?;
            }
            if let Some(out) = self.step_in(&code)? {
                return Ok(out);
            }
        }
    }

    /// Executes one instruction; `Some` when the run is over (the next
    /// instruction of the outermost frame is the merge point, which is not
    /// executed, or the outermost frame returned).
    pub fn step(&mut self) -> Result<Option<Outcome>, ConcreteError> {
        let code = self.top_code()?;
        self.step_in(&code)
    }

    fn top_code_ref(&self) -> Result<&Arc<JitCode>, ConcreteError> {
        match self.frames.last() {
            Some(f) => Ok(&f.code),
            None => Err(ConcreteError::BadJitCode(
                "a blackhole without frames".into(),
            )),
        }
    }

    fn top_code(&self) -> Result<Arc<JitCode>, ConcreteError> {
        self.top_code_ref().cloned()
    }

    /// [`Blackhole::step`] with the top frame's code, `code`.
    fn step_in(&mut self, code: &JitCode) -> Result<Option<Outcome>, ConcreteError> {
        let depth = self.frames.len();
        // The instruction as decoded when the code was built.
        let insn = code.insn(self.frames[depth - 1].pc);
        if insn.op == JOp::MergePoint && depth == 1 {
            let f = &self.frames[0];
            let greens = insn.list(0).iter().map(|&r| f.get(r)).collect();
            let reds = insn.list(1).iter().map(|&r| f.get(r)).collect();
            return Ok(Some(Outcome::MergePoint { greens, reds }));
        }
        if insn.op == JOp::MergePoint {
            if let Some(out) = self.call_portal(insn)? {
                return Ok(out);
            }
        }
        self.exec(code, insn)
    }

    /// At the merge point `insn` of a callee's portal frame: calls the
    /// portal runner with the frame's greens and reds (every frame's refs
    /// rooted: the callee may collect) and returns its result from the
    /// frame, or raises what it raised. `None` when the top frame is no
    /// portal frame or there is no runner; else what the step did.
    fn call_portal(&mut self, insn: &Insn) -> Result<Option<Option<Outcome>>, ConcreteError> {
        let f = self.frames.last().expect("a blackhole has a frame");
        let runner = self.portal.as_ref().filter(|p| p.is_portal(&f.code));
        let Some((func, descr)) = runner.and_then(|p| p.runner.clone()) else {
            return Ok(None);
        };
        let lists = insn.list(0).iter().chain(insn.list(1));
        // Token 0: the runner runs the interpreter from this merge point.
        let token = std::iter::once(Value::Int(0));
        let args: Vec<Value> = token.chain(lists.map(|&r| f.get(r))).collect();
        let mut roots = self.roots();
        self.alloc.call_begin(&roots);
        let cd = descr.as_call().expect("the runner has a call descr");
        let v = eval::call(func, cd, &args);
        self.alloc.call_end(&mut roots);
        self.set_roots(roots);
        let (v, raised) = v?;
        if let Some(e) = raised {
            self.frames.pop();
            return self.raise(e).map(Some);
        }
        self.leave(cd.result.kind().map(|_| v)).map(Some)
    }

    /// Delivers exception `e` to the top frame, which stands right after
    /// the call that raised (or before a `-live-` marker after it): to the
    /// catch there, else to its caller's, frame by frame. `Some` when no
    /// frame caught it (the outermost one ended with it).
    pub fn raise(&mut self, e: Value) -> Result<Option<Outcome>, ConcreteError> {
        while let Some(f) = self.frames.last_mut() {
            let code = f.code.clone();
            if let Some(catch) = code.catch_after(f.pc) {
                eval::check_exception_kind(catch.dst.map(|d| d.kind), e)?;
                if let Some(d) = catch.dst {
                    f.set(d, e);
                }
                f.pc = catch.label(0);
                return Ok(None);
            }
            self.frames.pop();
        }
        Ok(Some(Outcome::Raised(e)))
    }

    fn top(&mut self) -> &mut BhFrame {
        self.frames.last_mut().expect("a blackhole has a frame")
    }

    /// Every frame's refs, in order (the roots of a collection).
    fn roots(&self) -> SmallVec<[usize; 32]> {
        let refs = self.frames.iter().flat_map(|f| f.refs.iter().copied());
        refs.collect()
    }

    /// Writes back the refs of [`Blackhole::roots`] after a collection.
    fn set_roots(&mut self, roots: SmallVec<[usize; 32]>) {
        let mut it = roots.into_iter();
        for f in &mut self.frames {
            for r in &mut f.refs {
                *r = it.next().unwrap_or(*r);
            }
        }
    }

    /// Allocates through the hook with every frame's refs as roots.
    fn allocate(
        &mut self,
        make: impl FnOnce(
            &mut dyn Allocator,
            &mut [usize],
        ) -> Result<usize, crate::runtime::OutOfMemory>,
    ) -> Result<usize, ConcreteError> {
        let mut roots = self.roots();
        let obj = make(self.alloc, &mut roots).map_err(|_| ConcreteError::OutOfMemory)?;
        self.set_roots(roots);
        Ok(obj)
    }

    /// Executes one instruction of the top frame. `Some` when the
    /// outermost frame returned or raised.
    fn exec(&mut self, code: &JitCode, insn: &Insn) -> Result<Option<Outcome>, ConcreteError> {
        let f = self.frames.last().expect("a blackhole has a frame");
        let mut next = insn.next;
        let mut result: Option<Value> = None;
        match insn.op {
            // A catch is reached only when nothing was raised.
            JOp::Live
            | JOp::CanEnterJit
            | JOp::PromoteI
            | JOp::PromoteR
            | JOp::PromoteF
            | JOp::MergePoint
            | JOp::Catch
            | JOp::CatchI
            | JOp::CatchR => {}
            JOp::Pure => {
                let args: SmallVec<[Value; 4]> = insn.operands[1..]
                    .iter()
                    .map(|o| match o {
                        Operand::Reg(r) => f.get(*r),
                        _ => Value::Int(0),
                    })
                    .collect();
                result = Some(eval::pure(insn.ir_op(), &args));
            }
            JOp::Ovf => {
                let (v, overflow) = eval::ovf(insn.ir_op(), f.int(insn.reg(2)), f.int(insn.reg(3)));
                result = Some(Value::Int(v));
                if overflow {
                    next = insn.label(1);
                }
            }
            JOp::CopyI | JOp::CopyR | JOp::CopyF => result = Some(f.get(insn.reg(0))),
            // The blackhole is the interpreter's side: not jitted.
            JOp::WeAreJitted => result = Some(Value::Int(0)),
            JOp::Goto => next = insn.label(0),
            JOp::GotoIfNot => {
                if f.int(insn.reg(0)) == 0 {
                    next = insn.label(1);
                }
            }
            JOp::GotoIfNull => {
                if f.reference(insn.reg(0)) == 0 {
                    next = insn.label(1);
                }
            }
            JOp::Switch => {
                let v = f.int(insn.reg(0));
                if let Operand::Switch(s) = insn.operands[1] {
                    let table = &f.code.switches[s as usize];
                    if let Some(&(_, l)) = table.cases.iter().find(|&&(c, _)| c == v) {
                        next = l as usize;
                    }
                }
            }
            JOp::GetfieldI | JOp::GetfieldR | JOp::GetfieldF => {
                let d = &code.descrs[insn.descr(1)];
                result = Some(eval::getfield(f.reference(insn.reg(0)), field(d))?);
            }
            JOp::SetfieldI | JOp::SetfieldR | JOp::SetfieldF => {
                let d = &code.descrs[insn.descr(2)];
                let (obj, v) = (f.reference(insn.reg(0)), f.get(insn.reg(1)));
                eval::setfield(self.alloc, obj, field(d), v)?;
            }
            JOp::GetarrayitemI | JOp::GetarrayitemR | JOp::GetarrayitemF => {
                let d = &code.descrs[insn.descr(2)];
                let (a, i) = (f.reference(insn.reg(0)), f.int(insn.reg(1)));
                result = Some(eval::getarrayitem(a, i, array(d))?);
            }
            JOp::SetarrayitemI | JOp::SetarrayitemR | JOp::SetarrayitemF => {
                let d = &code.descrs[insn.descr(3)];
                let (a, i, v) = (
                    f.reference(insn.reg(0)),
                    f.int(insn.reg(1)),
                    f.get(insn.reg(2)),
                );
                eval::setarrayitem(self.alloc, a, i, array(d), v)?;
            }
            JOp::Arraylen => {
                let d = &code.descrs[insn.descr(1)];
                result = Some(Value::Int(eval::arraylen(
                    f.reference(insn.reg(0)),
                    array(d),
                )?));
            }
            JOp::GuardClass => {
                let obj = f.reference(insn.reg(0));
                result = Some(Value::Int(eval::class_word(self.codes, obj)?));
            }
            JOp::New => {
                let d = &code.descrs[insn.descr(0)];
                let layout = d.as_size().expect("builder checked a size descr");
                result = Some(Value::Ref(
                    self.allocate(|a, roots| a.new_object(layout, roots))?,
                ));
            }
            JOp::NewArray => {
                let d = &code.descrs[insn.descr(1)];
                let len = f.int(insn.reg(0)).max(0) as usize;
                let ad = array(d);
                result = Some(Value::Ref(
                    self.allocate(|a, roots| a.new_array(ad, len, roots))?,
                ));
            }
            JOp::CallI | JOp::CallR | JOp::CallF | JOp::CallV => {
                let d = &code.descrs[insn.descr(0)];
                let cd = d.as_call().expect("builder checked a call descr");
                let func = f.int(insn.reg(1)) as usize;
                let args: SmallVec<[Value; 8]> = insn.list(2).iter().map(|&r| f.get(r)).collect();
                let (v, raised) = eval::call(func, cd, &args)?;
                let top = self.top();
                if let Some(dst) = insn.dst {
                    top.set(dst, v);
                }
                top.pc = insn.next;
                return match raised {
                    Some(e) => self.raise(e),
                    None => Ok(None),
                };
            }
            JOp::RaiseI | JOp::RaiseR => {
                let e = f.get(insn.reg(0));
                self.frames.pop();
                return self.raise(e);
            }
            JOp::InlineCallI | JOp::InlineCallR | JOp::InlineCallF | JOp::InlineCallV => {
                let Operand::Callee(callee) = insn.operands[0] else {
                    return Err(ConcreteError::BadJitCode(
                        "inline call without callee".into(),
                    ));
                };
                let args: SmallVec<[Value; 8]> = insn.list(1).iter().map(|&r| f.get(r)).collect();
                let mut callee = callee_frame(self.codes, callee, &args)?;
                callee.ret_dst = insn.dst;
                self.top().pc = insn.next;
                self.frames.push(callee);
                return Ok(None);
            }
            JOp::ReturnI | JOp::ReturnR | JOp::ReturnF | JOp::ReturnV => {
                let v = insn.operands.first().map(|o| match o {
                    Operand::Reg(r) => f.get(*r),
                    _ => Value::Int(0),
                });
                return self.leave(v);
            }
        }
        let top = self.top();
        if let (Some(dst), Some(v)) = (insn.dst, result) {
            top.set(dst, v);
        }
        top.pc = next;
        Ok(None)
    }
}

impl Blackhole<'_> {
    /// The top frame returns `v`: into its caller's result register, or
    /// the run is over (`Some(v)`: the outermost frame returned).
    fn leave(&mut self, v: Option<Value>) -> Result<Option<Outcome>, ConcreteError> {
        let done = self.frames.pop().expect("a blackhole has a frame");
        match self.frames.last_mut() {
            None => return Ok(Some(Outcome::Returned(v))),
            Some(caller) => match (done.ret_dst, v) {
                (Some(dst), Some(v)) if dst.kind == v.kind() => caller.set(dst, v),
                (None, _) => {}
                _ => return Err(bad_return(&done.code)),
            },
        }
        Ok(None)
    }
}

/// A callee returned a value its caller's call instruction cannot take.
pub(crate) fn bad_return(callee: &JitCode) -> ConcreteError {
    ConcreteError::BadJitCode(format!(
        "{} returns a value of another kind than its caller expects",
        callee.name
    ))
}

pub(crate) fn field(d: &Descr) -> &majit_ir::FieldDescr {
    d.as_field().expect("builder checked a field descr")
}

pub(crate) fn array(d: &Descr) -> &majit_ir::ArrayDescr {
    d.as_array().expect("builder checked an array descr")
}
