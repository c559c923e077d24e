//! Calls of the interpreted program in the tracer (`crate::portal`): a
//! portal frame that is not the outermost reaching a merge point, and the
//! outermost frame returning.
//!
//! At a callee's first merge point the tracer decides: it *inlines* the
//! callee (its frames stay on the tracer's stack and its later merge points
//! are traced through) unless the callee's greens are already the entry
//! greens of a portal frame on the stack (a recursive call; the outermost
//! frame's entry is the trace's start; a bridge inlines one such level),
//! the callee is marked don't-inline (inlining it made a trace too long),
//! or there is no portal runner. Then
//! it records a residual call of the runner with the greens and reds
//! (executed for real, the boxes rooted: the callee may collect), drops
//! the callee's portal frame and returns the call's result into the frame
//! that called the portal (the interpreter's entry function). A merge
//! point of a callee frame a bridge started in decides the same way; for
//! recursion such a frame counts with its entry greens in the guard's
//! trace (`SnapFrame::entry`), so bridges of bridges do not unroll a
//! recursion one more level each.
//!
//! The outermost frame returning ends an entry trace or a bridge with the
//! stores that write the virtualizable frame back, then a `finish` of the
//! result: the portal returned. A loop traced from a back edge aborts there instead
//! (`PortalReturned`: the loop was no loop), except on the last attempt
//! the driver allows at its key: that trace ends with the `finish` and is
//! compiled at the loop's greens (RPython's `compile_done_with_this_frame`),
//! so the loop runs compiled from its header, and its exit guard, failing
//! while the loop goes on, gets a bridge that closes the loop at that
//! header. Given up instead, a loop whose traced iterations kept being its
//! last would run interpreted for good (queens' inner loop did).

use super::*;

impl Tracer<'_> {
    /// The merge point `insn` of a callee's portal frame (see the module
    /// docs).
    pub(super) fn callee_merge_point(&mut self, insn: &Insn) -> Result<Step, ConcreteError> {
        let greens = self.promoted_greens(insn);
        let key = GreenKey::new(&greens);
        let top = self.frames.len() - 1;
        if self.frames[top].entry.is_none() {
            if !self.inlines(&key) {
                return self.residual_portal_call(insn, &key);
            }
            self.frames[top].entry = Some(key);
            self.frames[top].entered_at = self.trace.ops.len();
            self.env.stats.borrow_mut().calls_inlined += 1;
        }
        self.frames[top].pc = insn.next;
        Ok(Step::Next)
    }

    /// Whether the callee starting at `key` is inlined: not when it would
    /// be more levels of its own function than a trace unrolls
    /// ([`Tracer::recursion_levels`]), nor when it is marked don't-inline.
    fn inlines(&self, key: &GreenKey) -> bool {
        if self.env.portal.runner.is_none() {
            return true;
        }
        let levels = self
            .frames
            .iter()
            .filter(|f| f.function() == Some(key))
            .count();
        levels <= self.recursion_levels() && !(self.env.dont_inline_callee)(key)
    }

    /// How many calls of a function already on the stack a trace inlines:
    /// none in a loop, one in a bridge. A bridge often starts at a
    /// function's base case (fib's `k < 2`, a tree's leaf) and inlines the
    /// next call's base case too; the frames it starts in keep the entry
    /// greens their trace gave them (`SnapFrame::entry`), so bridges of
    /// bridges do not unroll the recursion further.
    fn recursion_levels(&self) -> usize {
        usize::from(matches!(self.kind, TraceKind::Bridge))
    }

    /// A residual call of the portal runner with the merge point's greens
    /// and reds, for the callee whose portal frame is on top: its result
    /// goes to the frame that called the portal, or what it raised unwinds
    /// from there.
    /// It is a `call_assembler_*` with the token of `key`, so compiled code
    /// enters the callee's compiled code directly (`crate::callasm`).
    fn residual_portal_call(&mut self, insn: &Insn, key: &GreenKey) -> Result<Step, ConcreteError> {
        let (func, d) = self
            .env
            .portal
            .runner
            .clone()
            .expect("a callee is inlined when there is no runner");
        let cd = d.as_call().expect("the runner has a call descr").clone();
        let token = (self.env.call_target)(key);
        let token = self.konst(Value::Int(token));
        let lists = insn.list(0).iter().chain(insn.list(1));
        let args: Vec<TBox> = std::iter::once(token)
            .chain(lists.map(|&r| self.get(r)))
            .collect();
        let vals: Vec<Value> = args.iter().map(|b| b.v).collect();
        let result = self.call_rooted(func, &cd, &vals)?;
        self.heap.call(&cd.effect);
        self.env.stats.borrow_mut().calls_residual += 1;
        let done = self.pop_frame();
        let call = Call {
            family: OpCode::CallAssemblerI,
            func: self.konst(Value::Int(func as i64)),
            args: &args,
            result,
        };
        let next = self.top().pc;
        self.record_call((d, &cd), call, done.ret_dst, next)
    }

    /// Calls `func` for real with every ref box rooted (the callee runs
    /// the interpreter, whose safepoints may collect).
    fn call_rooted(
        &mut self,
        func: usize,
        cd: &CallDescr,
        args: &[Value],
    ) -> Result<(Value, Option<Value>), ConcreteError> {
        let mut roots: Vec<usize> = self
            .ref_boxes()
            .map(|b| b.v.as_ref().unwrap_or(0))
            .collect();
        self.env.alloc.call_begin(&roots);
        let v = eval::call(func, cd, args);
        self.env.alloc.call_end(&mut roots);
        for (b, p) in self.ref_boxes().zip(roots) {
            b.v = Value::Ref(p);
        }
        v
    }

    /// Pops the top frame, whose result is `v`, into its caller.
    pub(super) fn return_to_caller(&mut self, v: Option<TBox>) -> Result<(), ConcreteError> {
        let done = self.pop_frame();
        match (done.ret_dst, v) {
            (Some(dst), Some(b)) if dst.kind == b.v.kind() => self.set(dst, b),
            (None, _) => {}
            _ => return Err(bad_return(&done.code)),
        }
        Ok(())
    }

    /// Pops the top frame, which an inlined call pushed.
    fn pop_frame(&mut self) -> TFrame {
        let at = self.trace.ops.len();
        self.sizes.leave(at);
        let done = self.frames.pop().expect("the tracer has a caller frame");
        if let Some(key) = &done.entry {
            self.sizes.callee_done(key, at - done.entered_at);
        }
        done
    }

    /// The outermost frame returns `v` (see the module docs).
    pub(super) fn portal_return(&mut self, v: Option<TBox>) -> TraceEnd {
        self.frames.pop();
        if !self.ends_at_return() {
            let ended = Outcome::Returned(v.map(|b| b.v));
            return self.abort(AbortReason::PortalReturned, Some(ended));
        }
        // The trace writes the frame back itself, so a return needs no
        // work outside compiled code (`call_assembler`'s fast path).
        self.vable_store();
        let args: Vec<OpRef> = v.iter().map(|b| b.r).collect();
        let (id, descr) = self.fail_descr(true);
        self.flush_stores(None);
        self.trace
            .push(Op::new(OpCode::Finish, &args).with_descr(descr));
        TraceEnd::Done(Box::new(Finished {
            trace: std::mem::take(&mut self.trace),
            guards: std::mem::take(&mut self.guards),
            finish: Some(id),
            returned: Some(v.map(|b| b.v)),
            jumped_to: None,
            budget: self.budget.take(),
            loop_word_guard: None,
            greens: Vec::new(),
            reds: Vec::new(),
            validity: self.env.validity.clone(),
        }))
    }

    /// A back edge in a callee this trace called and inlined: the abort
    /// that marks the callee don't-inline (`AbortReason::LoopInCallee`).
    /// The frames a bridge starts in go on: their loop inlined them.
    pub(super) fn loop_in_callee(&self) -> Option<TraceEnd> {
        let top = self.frames.len() - 1;
        if top < self.first_call.max(1) {
            return None;
        }
        let callee = self.frames[top].entry.clone()?;
        match self.abort(AbortReason::LoopInCallee, None) {
            TraceEnd::Aborted {
                reason,
                frames,
                ended,
                ..
            } => Some(TraceEnd::Aborted {
                reason,
                frames,
                ended,
                blamed: None,
                callee: Some(Box::new(callee)),
            }),
            done => Some(done),
        }
    }

    /// A back edge (`can_enter_jit`) of another loop in a loop trace's own
    /// frame, before its last attempt: the abort `AbortReason::LoopLeft`
    /// (LuaJIT's LINNER). A trace that went on would close a loop around
    /// the other loop's iteration, e.g. one inner iteration plus the outer
    /// loop's step, and run the inner loop through its bridges.
    pub(super) fn loop_left(&mut self, insn: &Insn) -> Option<TraceEnd> {
        let in_loop = matches!(
            self.kind,
            TraceKind::Loop {
                entry: false,
                last_attempt: false,
                ..
            }
        );
        if !in_loop || self.frames.len() != 1 {
            return None;
        }
        let greens: Vec<Value> = insn.list(0).iter().map(|&g| self.get(g).v).collect();
        if matches!(&self.kind, TraceKind::Loop { start, .. } if *start == GreenKey::new(&greens)) {
            return None;
        }
        Some(self.abort(AbortReason::LoopLeft, None))
    }

    /// The callee a too-long trace stops inlining: the outermost inlined
    /// callee still running, else the inlined callee that recorded the
    /// most ops and may still be inlined.
    pub(super) fn inlined_callee(&self) -> Option<GreenKey> {
        let open = self.frames.iter().skip(1).find_map(|f| f.entry.clone());
        open.or_else(|| {
            self.sizes
                .biggest_callee(|k| !(self.env.dont_inline_callee)(k))
                .cloned()
        })
    }
}
