//! Statements and control flow: blocks and `let`, `if`/`match` (with their
//! join register), `while`/`loop` inside handlers, `break`/`continue`/`return`,
//! and the placement rule of `can_enter_jit!()`.
//!
//! Invariant: a branching construct with a value writes it to one join
//! register on every arm that flows on; `continue` of the dispatch loop is a
//! `goto` to the merge point's head label.

use super::*;

/// The join of a branching construct: the result register (a temporary
/// of the enclosing statement) every arm with a value writes. The arms
/// share one type, so one register of its bank: taken at the first arm
/// with a value, so that a join without one (a statement `if`/`match`)
/// reserves none.
pub(super) struct Join {
    pub(super) res: Option<R>,
    pub(super) ty: Option<Ty>,
    pub(super) end: u32,
    pub(super) flows: bool,
}

/// A `while`/`loop` inside a handler: where `continue` and `break` go.
pub(super) struct InnerLoop {
    pub(super) label: Option<String>,
    pub(super) head: u32,
    pub(super) exit: u32,
    /// A `break` targets it (a `loop` then falls through to its exit).
    pub(super) broken: bool,
}

/// The error of a `can_enter_jit!()` not followed by a `continue`.
pub(super) const MISPLACED_ENTER: &str = "`can_enter_jit!()` must be the statement right before a \
     `continue` of the dispatch loop: the JIT may resume at `jit_merge_point!()` from there, \
     so code after it would be skipped (move that code before `can_enter_jit!()`)";

/// A branch body.
#[derive(Clone, Copy)]
pub(super) enum ArmBody<'e> {
    Block(&'e syn::Block),
    Expr(&'e Expr),
    Unit,
}

impl<'a> Lowerer<'a> {
    /// Lowers statements; the last one is the value if `tail` holds.
    /// `None`: control does not flow past them.
    pub(super) fn stmts(
        &mut self,
        stmts: &[Stmt],
        want: Option<Ty>,
        tail: bool,
    ) -> Res<Option<Val>> {
        for (i, s) in stmts.iter().enumerate() {
            if let (true, true, Stmt::Expr(e, None)) = (tail, i + 1 == stmts.len(), s) {
                return self.expr(e, want);
            }
            if !self.ctx.helper && crate::emit::is_macro_stmt(s, "can_enter_jit") {
                self.can_enter_jit(s, stmts.get(i + 1))?;
                continue;
            }
            let mark = self.regs.mark();
            let flow = self.stmt(s)?;
            self.regs.release(mark);
            if flow.is_none() {
                return Ok(None);
            }
        }
        Ok(Some(Val::unit()))
    }

    pub(super) fn block(&mut self, b: &syn::Block, want: Option<Ty>) -> Res<Option<Val>> {
        self.scopes.push(Vec::new());
        let v = self.stmts(&b.stmts, want, true)?;
        let scope = self.scopes.pop().expect("pushed above");
        // A block's value must not live in a register the block frees.
        let v = match v {
            Some(Val {
                ty,
                op: Some(Opnd::Reg(r)),
                len: None,
                ..
            }) if scope.iter().any(|var| var.reg == r) => {
                let t = self.regs.temp(bank(ty));
                self.copy(&Opnd::Reg(r), t);
                Some(Val::scalar(ty, Opnd::Reg(t)))
            }
            v => v,
        };
        for var in scope {
            self.regs.free_var(var.reg);
            // An `Option`'s flag (slices are never `let`s).
            if let Some(flag) = var.len {
                self.regs.free_var(flag);
            }
            // A `Result`'s error and value (arrays are never `let`s).
            for r in var.items {
                self.regs.free_var(r);
            }
        }
        Ok(v)
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> Res<Option<()>> {
        match s {
            Stmt::Local(local) => self.local(local),
            Stmt::Expr(e, _) => Ok(self.expr(e, None)?.map(|_| ())),
            Stmt::Macro(m) => self.mac(&m.mac).map(|v| v.map(|_| ())),
            Stmt::Item(i) => err(
                i.span(),
                "items are not supported inside the dispatch loop: define them outside the \
                 interpreter function",
            ),
        }
    }

    pub(super) fn local(&mut self, local: &syn::Local) -> Res<Option<()>> {
        if let (Pat::Tuple(t), Some(init)) = (&local.pat, &local.init) {
            return self.let_overflowing(t, &init.expr);
        }
        if let Some(r) = self.let_result(local)? {
            return Ok(r);
        }
        let (ident, declared, mutable) = match &local.pat {
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                (&p.ident, None, p.mutability.is_some())
            }
            Pat::Type(pt) => match &*pt.pat {
                Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => (
                    &p.ident,
                    Some(self.parse_ty(&pt.ty)?),
                    p.mutability.is_some(),
                ),
                other => return err(other.span(), "only `let name` bindings are supported"),
            },
            other => return err(other.span(), "only `let name` bindings are supported"),
        };
        let Some(init) = &local.init else {
            return err(
                local.span(),
                "give the variable a value where it is declared",
            );
        };
        if init.diverge.is_some() {
            return err(local.span(), "`let ... else` is not supported: use `match`");
        }
        let Some(v) = self.expr(&init.expr, declared)? else {
            return Ok(None);
        };
        v.used()?;
        if let (Some(Opnd::Const(_)), None) = (&v.op, declared) {
            return err(
                init.expr.span(),
                format!(
                    "give `{ident}` a type (`let {ident}: T = ..`): the macro cannot see the type \
                     of a const"
                ),
            );
        }
        if let Ty::Result { .. } = v.ty {
            return err(init.expr.span(), RESULT_LOCAL_USE);
        }
        if let (Ty::Checked(_), None) = (v.ty, declared) {
            self.let_option(ident, &v)?;
            return Ok(Some(()));
        }
        let ty = declared.unwrap_or(v.ty);
        if !ty.is_single() || v.ty != ty {
            return err(
                init.expr.span(),
                "a `let` in a handler must hold an integer, bool, `f64`, GC struct or the \
                 `Option` of `checked_*` of the declared type",
            );
        }
        let reg = self.regs.var(bank(ty));
        self.copy(&v.opnd(init.expr.span())?, reg);
        let var = Var {
            mutable,
            ..Var::local(ident.to_string(), ty, reg)
        };
        self.scopes.last_mut().expect("a scope").push(var);
        Ok(Some(()))
    }

    /// `can_enter_jit!()` (the statement `at`), which must come right
    /// before a `continue` of the dispatch loop: on that back edge the JIT
    /// may run a compiled loop and resume at the merge point, so any code
    /// in between would run in the plain interpreter only.
    pub(super) fn can_enter_jit(&mut self, at: &Stmt, next: Option<&Stmt>) -> Res<()> {
        let Some(Stmt::Expr(Expr::Continue(c), _)) = next else {
            return err(at.span(), MISPLACED_ENTER);
        };
        if let Target::Inner(_) = self.target(c.label.as_ref(), "continue")? {
            return err(
                at.span(),
                "`can_enter_jit!()` is followed by a `continue` of a loop inside the handler, \
                 which is no back edge of the user program: it must come right before a \
                 `continue` of the dispatch loop (label the dispatch loop, `'dispatch: loop`, \
                 and write `continue 'dispatch`)",
            );
        }
        let g = self.greens.iter().map(|r| r.tokens());
        let r = self.reds.iter().map(|r| r.tokens());
        self.code
            .push(quote!(b.can_enter_jit(&[#(#g),*], &[#(#r),*]);));
        Ok(())
    }

    pub(super) fn mac(&mut self, m: &syn::Macro) -> Res<Option<Val>> {
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        match name.as_deref() {
            Some(crate::recursion::MARKER) => self.recursive_call(m, false),
            // A statement right before a `continue` is lowered by `stmts`.
            Some("can_enter_jit") if !self.ctx.helper => err(m.span(), MISPLACED_ENTER),
            Some("jit_merge_point") => err(
                m.span(),
                "`jit_merge_point!()` must be the first statement of the dispatch loop, and \
                 appear once",
            ),
            _ => err(
                m.span(),
                "macro calls are not supported in a handler (only `can_enter_jit!()`): move \
                 this code into a helper function and declare it in `helpers` with a policy",
            ),
        }
    }

    /// The loop a `break`/`continue` with this label goes to: the
    /// innermost handler loop (or the labelled one), else the dispatch loop.
    pub(super) fn target(&self, l: Option<&syn::Lifetime>, what: &str) -> Res<Target> {
        let name = l.map(|l| l.ident.to_string());
        let inner = match &name {
            None => self.inner.len().checked_sub(1),
            Some(n) => self.inner.iter().rposition(|i| i.label.as_ref() == Some(n)),
        };
        if let Some(i) = inner {
            return Ok(Target::Inner(i));
        }
        let sp = l.map_or_else(Span::call_site, |l| l.span());
        if self.ctx.helper {
            return err(sp, format!("`{what}` outside a loop of the helper"));
        }
        if name.is_some() && name != self.ctx.loop_label {
            return err(sp, format!("`{what}` to an unknown loop label"));
        }
        Ok(Target::Dispatch)
    }

    pub(super) fn push_inner(&mut self, label: Option<&syn::Label>) -> (u32, u32) {
        let (head, exit) = (self.label(), self.label());
        self.inner.push(InnerLoop {
            label: label.map(|l| l.name.ident.to_string()),
            head,
            exit,
            broken: false,
        });
        (head, exit)
    }

    /// `while cond { body }` inside a handler (traced per iteration).
    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) -> Res<Option<Val>> {
        if let Expr::Let(l) = &*w.cond {
            return err(
                l.span(),
                "`while let` is not lowered: use `loop` with `match`",
            );
        }
        let (head, exit) = self.push_inner(w.label.as_ref());
        self.bind(head);
        let mark = self.regs.mark();
        let Some(c) = self.expr(&w.cond, Some(Ty::BOOL))? else {
            self.inner.pop();
            return Ok(None);
        };
        if c.ty != Ty::BOOL {
            return err(w.cond.span(), "the condition must be a bool");
        }
        self.goto_if_not(&c.opnd(w.cond.span())?, exit);
        self.regs.release(mark);
        if self.block(&w.body, None)?.is_some() {
            self.goto(head);
        }
        self.inner.pop();
        self.bind(exit);
        Ok(Some(Val::unit()))
    }

    /// `loop { body }` inside a handler: reachable after it only through
    /// a `break`.
    pub(super) fn inner_loop(&mut self, l: &syn::ExprLoop) -> Res<Option<Val>> {
        let (head, exit) = self.push_inner(l.label.as_ref());
        self.bind(head);
        if self.block(&l.body, None)?.is_some() {
            self.goto(head);
        }
        let broken = self.inner.pop().expect("pushed above").broken;
        self.bind(exit);
        Ok(broken.then(Val::unit))
    }

    pub(super) fn ret(&mut self, e: Option<&Expr>, sp: Span) -> Res<Option<Val>> {
        if self.ctx.err.is_some() {
            return self.result_return(e, sp);
        }
        let v = match e {
            Some(e) => match self.expr(e, Some(self.ctx.ret))? {
                Some(v) => v,
                None => return Ok(None),
            },
            None => Val::unit(),
        };
        if v.ty != self.ctx.ret {
            return err(
                sp,
                "the returned value does not have the function's return type",
            );
        }
        self.emit_ret(&v);
        Ok(None)
    }

    pub(super) fn join_arm(&mut self, j: &mut Join, v: Option<Val>, sp: Span) -> Res<()> {
        let Some(v) = v else { return Ok(()) };
        if let Some(t) = j.ty {
            if t != v.ty {
                return err(sp, "the branches have different types");
            }
        }
        j.ty = Some(v.ty);
        j.flows = true;
        if let Ty::Checked(_) = v.ty {
            return err(sp, OPTION_USE);
        }
        // Values of the other types (unit) have no register.
        if matches!(v.ty, Ty::Scalar(_)) || v.ty.is_ref() {
            // Not a temporary of the arm, whose end frees those: the
            // register lives on until the enclosing statement ends (see
            // `finish_join`).
            let r = *j.res.get_or_insert_with(|| self.regs.var(bank(v.ty)));
            self.copy(&v.opnd(sp)?, r);
        }
        self.goto(j.end);
        Ok(())
    }

    pub(super) fn finish_join(&mut self, j: Join) -> Option<Val> {
        self.bind(j.end);
        if !j.flows {
            return None;
        }
        Some(match (j.ty, j.res) {
            (Some(t), Some(r)) => {
                self.regs.adopt(r);
                Val::scalar(t, Opnd::Reg(r))
            }
            _ => Val::unit(),
        })
    }

    pub(super) fn new_join(&mut self) -> Join {
        Join {
            res: None,
            ty: None,
            end: self.label(),
            flows: false,
        }
    }

    /// Lowers `e` (a branch body) in its own temporary scope (the join
    /// register outlives it).
    pub(super) fn arm(&mut self, j: &mut Join, e: ArmBody, want: Option<Ty>) -> Res<()> {
        let mark = self.regs.mark();
        let (v, sp) = match e {
            ArmBody::Block(b) => (self.block(b, want)?, b.span()),
            ArmBody::Expr(e) => (self.expr(e, want)?, e.span()),
            ArmBody::Unit => (Some(Val::unit()), Span::call_site()),
        };
        self.join_arm(j, v, sp)?;
        self.regs.release(mark);
        Ok(())
    }

    pub(super) fn if_expr(&mut self, i: &syn::ExprIf, want: Option<Ty>) -> Res<Option<Val>> {
        if let Expr::Let(l) = &*i.cond {
            let else_body = match &i.else_branch {
                Some((_, e)) => ArmBody::Expr(e),
                None => ArmBody::Unit,
            };
            if is_result_pat(&l.pat) {
                return self.result_if_let(l, &i.then_branch, else_body, want);
            }
            return self.checked(
                &l.expr,
                &l.pat,
                ArmBody::Block(&i.then_branch),
                else_body,
                want,
            );
        }
        let Some(c) = self.expr(&i.cond, Some(Ty::BOOL))? else {
            return Ok(None);
        };
        if c.ty != Ty::BOOL {
            return err(i.cond.span(), "the condition must be a bool");
        }
        let c = c.opnd(i.cond.span())?;
        let mut j = self.new_join();
        let other = self.label();
        self.goto_if_not(&c, other);
        self.arm(&mut j, ArmBody::Block(&i.then_branch), want)?;
        self.bind(other);
        match &i.else_branch {
            Some((_, e)) => self.arm(&mut j, ArmBody::Expr(e), want)?,
            None => self.arm(&mut j, ArmBody::Unit, want)?,
        }
        Ok(self.finish_join(j))
    }

    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch, want: Option<Ty>) -> Res<Option<Val>> {
        let some = |p: &Pat| matches!(p, Pat::TupleStruct(ts) if ts.path.is_ident("Some"));
        if m.arms.iter().any(|a| some(&a.pat)) {
            return self.checked_match(m, want);
        }
        if m.arms.iter().any(|a| is_result_pat(&a.pat)) {
            return self.result_match(m, want);
        }
        let Some(s) = self.expr(&m.expr, None)? else {
            return Ok(None);
        };
        let Ty::Scalar(Scalar::Int(_) | Scalar::Bool) = s.ty else {
            return err(
                m.expr.span(),
                "only integers and bools can be matched (compare floats with `if`)",
            );
        };
        let so = s.opnd(m.expr.span())?;
        // Keep the scrutinee in a register the arms cannot clobber.
        let sreg = self.regs.temp(Bank::Int);
        self.copy(&so, sreg);
        let mut cases = Vec::new();
        let mut arm_labels = Vec::new();
        let mut default = None;
        let mut binds = Vec::new();
        for arm in &m.arms {
            if let Some((_, g)) = &arm.guard {
                return err(
                    g.span(),
                    "match guards are not supported: use `if` inside the arm",
                );
            }
            let l = self.label();
            arm_labels.push(l);
            let mut bind = None;
            self.patterns(&arm.pat, l, &mut cases, &mut default, &mut bind)?;
            binds.push(bind);
        }
        let cases_t = cases.iter().map(|(v, l)| {
            let l = self.label_t(*l);
            quote!(((#v) as i64, #l))
        });
        let sr = Opnd::Reg(sreg).arg();
        self.code.push(quote!(b.switch(#sr, &[#(#cases_t),*]);));
        match default {
            Some(l) => self.goto(l),
            None => self.goto(self.unreachable),
        }
        let mut j = self.new_join();
        for ((arm, l), bind) in m.arms.iter().zip(arm_labels).zip(binds) {
            self.bind(l);
            let scope = bind
                .map(|name| Var::local(name, s.ty, sreg))
                .into_iter()
                .collect();
            self.scopes.push(scope);
            self.arm(&mut j, ArmBody::Expr(&arm.body), want)?;
            self.scopes.pop();
        }
        Ok(self.finish_join(j))
    }

    /// Adds the cases of `pat` (jumping to `l`) to `cases`.
    pub(super) fn patterns(
        &mut self,
        pat: &Pat,
        l: u32,
        cases: &mut Vec<(TokenStream, u32)>,
        default: &mut Option<u32>,
        bind: &mut Option<String>,
    ) -> Res<()> {
        match pat {
            Pat::Or(o) => {
                for p in &o.cases {
                    self.patterns(p, l, cases, default, bind)?;
                }
            }
            Pat::Lit(lit) => match &lit.lit {
                syn::Lit::Int(i) => {
                    let v = i.base10_parse::<u64>()? as i64;
                    cases.push((quote!(#v), l));
                }
                syn::Lit::Bool(b) => {
                    let v = b.value as i64;
                    cases.push((quote!(#v), l));
                }
                syn::Lit::Byte(b) => {
                    let v = b.value() as i64;
                    cases.push((quote!(#v), l));
                }
                other => return err(other.span(), "only integer, byte and bool literals"),
            },
            Pat::Path(p) => cases.push((self.konst(quote!(#p)), l)),
            Pat::Ident(p)
                if p.subpat.is_none()
                    && p.ident
                        .to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase()) =>
            {
                let id = &p.ident;
                cases.push((self.konst(quote!(#id)), l));
            }
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                default.get_or_insert(l);
                *bind = Some(p.ident.to_string());
            }
            Pat::Wild(_) => {
                default.get_or_insert(l);
            }
            other => {
                return err(
                    other.span(),
                    "unsupported pattern: use integer or bool literals, consts, `|`, `_` or a \
                     name",
                )
            }
        }
        Ok(())
    }
}
