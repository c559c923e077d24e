//! `Result<T, E>`: helpers, inline helpers and traced functions that can
//! fail, and the constructs that consume what they return.
//!
//! A call of a fallible function returns `T` in a register; its `Err(e)`
//! is the JIT's exception (a residual helper's shim raises `e`, a traced
//! function's `Err(e)` is a `raise`). Where the error goes decides the
//! lowering:
//! - `match f(..) { Ok(v) => A, Err(e) => B }` and `if let Ok(v) = f(..)`
//!   / `if let Err(e) = f(..)`: the call, then `catch_exception` to `B`
//!   with `e` in a register;
//! - `f(..)?` in a function returning `Result<_, E>` with the same `E`: the
//!   call without a catch, so the exception leaves the frame for the
//!   caller's catch (out of the portal, the run ends with `Err(e)`);
//! - the function's result (its tail and `return`, lowered with `want`
//!   [`Ty::Fallible`]): `Ok(x)` returns `x`, `Err(e)` raises `e`, `f(..)`
//!   returns what `f` returns and lets its exception through.
//!
//! - `let r = f(..);`: the `Result` kept in a local (`result_values.rs`),
//!   read by the same constructs.
//!
//! Anything else (a `Result` passed on, `Ok(..)` elsewhere, another error
//! type) is a compile error saying what to write.
//!
//! Invariant: a fallible call's `catch_exception`, if any, is the very
//! next instruction (the builder checks it).

use super::*;

/// How the `Result` of a fallible call may be used.
pub(super) fn result_use(name: &str) -> String {
    format!(
        "`{name}` returns a `Result`, which is lowered only when it is matched (`match \
         {name}(..) {{ Ok(v) => .., Err(e) => .. }}`, `if let Ok(v) = {name}(..)`), propagated \
         with `?`, returned, or kept in a local (`let r = {name}(..);`, then matched): a \
         `Result` cannot be passed on"
    )
}

/// What a function returning `Result` must end with.
pub(super) const RESULT_END: &str = "a function returning `Result` returns `Ok(..)`, `Err(..)` or \
     a call returning the same `Result` (as its last expression, or with `return`)";

/// Where `Ok(..)` and `Err(..)` may stand.
const CTOR_USE: &str = "`Ok(..)` and `Err(..)` are lowered only as what a function returning \
     `Result` returns (its last expression, or `return Ok(..)` / `return Err(..)`)";

/// A pattern of a `match`/`if let` on a `Result`.
enum ResultPat {
    /// `Ok(v)`, `Ok(_)`, `Ok(())`: the name bound, if any.
    Ok(Option<String>),
    Err(Option<String>),
    /// `_` (the other of `Ok`/`Err`).
    Other,
}

/// Whether `p` is an `Ok(..)` or `Err(..)` pattern.
pub(super) fn is_result_pat(p: &Pat) -> bool {
    matches!(p, Pat::TupleStruct(ts) if ts.path.is_ident("Ok") || ts.path.is_ident("Err"))
}

fn result_pat(p: &Pat) -> Res<ResultPat> {
    let bad = || {
        err(
            p.span(),
            "the patterns of a `Result` are `Ok(name)`, `Err(name)`, `Ok(_)`, `Err(_)` or `_`",
        )
    };
    let Pat::TupleStruct(ts) = p else {
        return match p {
            Pat::Wild(_) => Ok(ResultPat::Other),
            _ => bad(),
        };
    };
    let [inner] = ts.elems.iter().collect::<Vec<_>>()[..] else {
        return bad();
    };
    let name = match inner {
        Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => Some(i.ident.to_string()),
        Pat::Wild(_) => None,
        Pat::Tuple(t) if t.elems.is_empty() => None,
        _ => return bad(),
    };
    if ts.path.is_ident("Ok") {
        Ok(ResultPat::Ok(name))
    } else {
        Ok(ResultPat::Err(name))
    }
}

/// A call that may fail, as written.
pub(super) enum Fallible<'e, 'a> {
    /// Of a helper or traced function returning `Result`.
    Call(&'e syn::ExprCall, &'a Helper),
    /// Of a method named like a traced method returning `Result` (which
    /// one, the receiver's type tells once it is lowered).
    Method(&'e syn::ExprMethodCall),
}

impl<'a> Lowerer<'a> {
    /// `e` as a call that may fail, if it is one (nothing is emitted).
    pub(super) fn fallible_call<'e>(&self, e: &'e Expr) -> Option<Fallible<'e, 'a>> {
        match strip(e) {
            Expr::Call(c) => self
                .callee(c)
                .filter(|h| h.err.is_some())
                .map(|h| Fallible::Call(c, h)),
            Expr::MethodCall(m) => {
                let named = |h: &Helper| h.method.as_ref().is_some_and(|x| x.name == m.method);
                let any = self.ctx.helpers.iter().any(|h| h.err.is_some() && named(h));
                any.then_some(Fallible::Method(m))
            }
            _ => None,
        }
    }

    /// Emits `f` (a catch, if any, must come next): its value and callee.
    /// `None`: control does not flow past its receiver or arguments.
    pub(super) fn emit_fallible(&mut self, f: Fallible<'_, 'a>) -> Res<Option<(Val, &'a Helper)>> {
        let m = match f {
            Fallible::Call(c, h) => return Ok(self.emit_call(c, h)?.map(|v| (v, h))),
            Fallible::Method(m) => m,
        };
        let Some(recv) = self.expr(&m.receiver, None)? else {
            return Ok(None);
        };
        let h = match recv.ty {
            Ty::Gc(si) => self.traced_method(si, &m.method.to_string()),
            _ => None,
        };
        let Some(h) = h.filter(|h| h.err.is_some()) else {
            return err(
                m.method.span(),
                format!(
                    "no traced method `{}` returning `Result` takes this receiver",
                    m.method
                ),
            );
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        Ok(self
            .emit_call_with(m.span(), h, Some(&recv), &args)?
            .map(|v| (v, h)))
    }

    /// `Ok(x)` / `Err(e)`: only as the function's result (`want` is
    /// [`Ty::Fallible`]), which returns `x` / raises `e`.
    pub(super) fn result_ctor(
        &mut self,
        c: &syn::ExprCall,
        name: &str,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        let (Some(Ty::Fallible), Some(e_ty)) = (want, self.ctx.err) else {
            return err(c.span(), CTOR_USE);
        };
        let args: Vec<&Expr> = c.args.iter().collect();
        let ty = if name == "Ok" { self.ctx.ret } else { e_ty };
        let unit = |a: &Expr| matches!(strip(a), Expr::Tuple(t) if t.elems.is_empty());
        let v = match args[..] {
            [a] if ty == Ty::Unit && unit(a) => Val::unit(),
            [a] => match self.expr(a, Some(ty))? {
                Some(v) => v,
                None => return Ok(None),
            },
            _ => return err(c.span(), format!("`{name}` takes one value")),
        };
        v.used()?;
        if v.ty != ty {
            let what = if name == "Ok" { "`T`" } else { "error type" };
            return err(
                c.span(),
                format!("the value does not have the function's {what}"),
            );
        }
        if name == "Ok" {
            self.emit_ret(&v);
        } else {
            let e = v.opnd(c.span())?.arg();
            self.code.push(quote!(b.raise(#e);));
        }
        Ok(None)
    }

    /// A call of the fallible `h` outside `match`/`if let`/`?`: only as
    /// the function's result (`want` is [`Ty::Fallible`]): what it returns
    /// is returned, its exception goes through.
    pub(super) fn fallible_value(
        &mut self,
        c: &syn::ExprCall,
        h: &Helper,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        self.returned_through(h, c.span(), want)?;
        if let Some(v) = self.emit_call(c, h)? {
            self.emit_ret(&v);
        }
        Ok(None)
    }

    /// The `Result` of a call (at `sp`) of the fallible `h` can be what
    /// this function returns (`want` is [`Ty::Fallible`]).
    pub(super) fn returned_through(&self, h: &Helper, sp: Span, want: Option<Ty>) -> Res<()> {
        let name = display_name(h);
        if want != Some(Ty::Fallible) {
            return err(sp, result_use(&name));
        }
        self.same_error(&name, h.err, sp)?;
        if h.ret.unwrap_or(Ty::Unit) != self.ctx.ret {
            return err(
                sp,
                format!("`{name}` returns another `T` than this function"),
            );
        }
        Ok(())
    }

    /// `f(..)?`: the call without a catch.
    pub(super) fn try_expr(&mut self, t: &syn::ExprTry) -> Res<Option<Val>> {
        if let Some(m) = recursive_marker(&t.expr) {
            // The interpreter's own error type: it goes to the caller.
            return self.recursive_call(m, true);
        }
        if self.result_var(&t.expr).is_some() {
            return self.try_result_var(&t.expr, t.span());
        }
        let Some(f) = self.fallible_call(&t.expr) else {
            return err(
                t.span(),
                "`?` is lowered only on a call of a helper or traced function returning \
                 `Result` (declared `-> Result<T, E>`) or on a local holding one: handle other \
                 values with `match`",
            );
        };
        let Some((v, h)) = self.emit_fallible(f)? else {
            return Ok(None);
        };
        self.same_error(&display_name(h), h.err, t.span())?;
        Ok(Some(v))
    }

    /// An error of type `e` from `name` (a function or `Result` local) can
    /// go to this function's caller.
    pub(super) fn same_error(&self, name: &str, e: Option<Ty>, sp: Span) -> Res<()> {
        match self.ctx.err {
            None => err(
                sp,
                format!(
                    "the error of `{name}` would pass to this function's caller, but the \
                     function does not return `Result<_, E>`: handle it with `match`"
                ),
            ),
            Some(mine) if Some(mine) != e => err(
                sp,
                format!(
                    "`{name}` fails with another error type than this function: handle it with \
                     `match` (the JIT converts no errors)"
                ),
            ),
            Some(_) => Ok(()),
        }
    }

    /// Returns `v` from the function.
    pub(super) fn emit_ret(&mut self, v: &Val) {
        match &v.op {
            Some(o) => {
                let a = o.arg();
                self.code.push(quote!(b.ret(Some(#a));));
            }
            None => self.code.push(quote!(b.ret(None);)),
        }
    }

    /// `return e` in a function returning `Result`.
    pub(super) fn result_return(&mut self, e: Option<&Expr>, sp: Span) -> Res<Option<Val>> {
        let Some(e) = e else {
            return err(sp, RESULT_END);
        };
        match self.expr(e, Some(Ty::Fallible))? {
            None => Ok(None),
            Some(_) => err(e.span(), RESULT_END),
        }
    }

    /// The scrutinee of a `match`/`if let` on a `Result`, a fallible call:
    /// emitted, then its catch to `handler`, the error into a fresh
    /// register when `bind_err`. Its value and the error (in that
    /// register).
    fn catching_call(
        &mut self,
        scrut: &Expr,
        handler: u32,
        bind_err: bool,
    ) -> Res<Option<(Val, Option<Val>)>> {
        if let Some(m) = recursive_marker(scrut) {
            let e_ty = self.ctx.err;
            return match self.recursive_call(m, true)? {
                Some(v) => Ok(Some((
                    v,
                    self.catch_into(handler, bind_err.then_some(e_ty).flatten()),
                ))),
                None => Ok(None),
            };
        }
        if self.result_var(scrut).is_some() {
            return self.branch_on_result(scrut, handler).map(Some);
        }
        let Some(f) = self.fallible_call(scrut) else {
            return err(
                scrut.span(),
                "`Ok`/`Err` patterns are lowered on a call of a helper or traced function \
                 returning `Result` (declared `-> Result<T, E>`) or on a local holding one",
            );
        };
        let Some((v, h)) = self.emit_fallible(f)? else {
            return Ok(None);
        };
        let e_ty = h.err.expect("a fallible helper");
        Ok(Some((
            v,
            self.catch_into(handler, bind_err.then_some(e_ty)),
        )))
    }

    /// The `catch_exception` right after a fallible call: to `handler`,
    /// the error (of type `e_ty`, if bound) into a fresh register.
    fn catch_into(&mut self, handler: u32, e_ty: Option<Ty>) -> Option<Val> {
        let e = e_ty.map(|t| (t, self.regs.temp(bank(t))));
        let dst = match e {
            Some((_, r)) => {
                let r = r.tokens();
                quote!(Some(#r))
            }
            None => quote!(None),
        };
        let l = self.label_t(handler);
        self.code.push(quote!(b.catch_exception(#l, #dst);));
        e.map(|(t, r)| Val::scalar(t, Opnd::Reg(r)))
    }

    /// One arm of a `match`/`if let` on a `Result`, with its binding.
    fn result_arm(
        &mut self,
        j: &mut Join,
        bind: Option<(String, Val)>,
        body: ArmBody,
        want: Option<Ty>,
        sp: Span,
    ) -> Res<()> {
        let scope = match bind {
            Some((name, v)) => match (&v.op, v.ty) {
                (Some(Opnd::Reg(reg)), ty) => vec![Var::local(name, ty, *reg)],
                _ => return err(sp, "`Ok(())` binds nothing: write `Ok(_)` or `Ok(())`"),
            },
            None => Vec::new(),
        };
        self.scopes.push(scope);
        self.arm(j, body, want)?;
        self.scopes.pop();
        Ok(())
    }

    /// `match f(..) { Ok(v) => A, Err(e) => B }` (either order, `_` for
    /// one of them).
    pub(super) fn result_match(
        &mut self,
        m: &syn::ExprMatch,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        let (mut ok, mut er) = (None, None);
        for arm in &m.arms {
            if let Some((_, g)) = &arm.guard {
                return err(
                    g.span(),
                    "match guards are not supported: use `if` inside the arm",
                );
            }
            let slot = match result_pat(&arm.pat)? {
                ResultPat::Ok(n) => (&mut ok, n),
                ResultPat::Err(n) => (&mut er, n),
                ResultPat::Other if ok.is_none() => (&mut ok, None),
                ResultPat::Other => (&mut er, None),
            };
            if slot.0.is_some() {
                return err(
                    arm.pat.span(),
                    "a `Result` is matched with one `Ok` and one `Err` arm",
                );
            }
            *slot.0 = Some((slot.1, arm));
        }
        let (Some((ok_name, ok_arm)), Some((err_name, err_arm))) = (ok, er) else {
            return err(
                m.span(),
                "a `Result` is matched with one `Ok` and one `Err` arm",
            );
        };
        let handler = self.label();
        let Some((v, e)) = self.catching_call(&m.expr, handler, err_name.is_some())? else {
            return Ok(None);
        };
        let mut j = self.new_join();
        let body = ArmBody::Expr(&ok_arm.body);
        let sp = ok_arm.pat.span();
        self.result_arm(&mut j, ok_name.map(|n| (n, v)), body, want, sp)?;
        self.bind(handler);
        let sp = err_arm.pat.span();
        let body = ArmBody::Expr(&err_arm.body);
        self.result_arm(&mut j, err_name.zip(e), body, want, sp)?;
        Ok(self.finish_join(j))
    }

    /// `if let Ok(v) = f(..) { A } else { B }`, or `if let Err(e) = ..`.
    pub(super) fn result_if_let(
        &mut self,
        l: &syn::ExprLet,
        then: &syn::Block,
        other: ArmBody,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        let pat = result_pat(&l.pat)?;
        let handler = self.label();
        let err_name = match &pat {
            ResultPat::Err(n) => n.clone(),
            _ => None,
        };
        let Some((v, e)) = self.catching_call(&l.expr, handler, err_name.is_some())? else {
            return Ok(None);
        };
        let mut j = self.new_join();
        let sp = l.pat.span();
        match pat {
            ResultPat::Ok(name) => {
                self.result_arm(&mut j, name.map(|n| (n, v)), ArmBody::Block(then), want, sp)?;
                self.bind(handler);
                self.result_arm(&mut j, None, other, want, sp)?;
            }
            _ => {
                self.result_arm(&mut j, None, other, want, sp)?;
                self.bind(handler);
                self.result_arm(&mut j, err_name.zip(e), ArmBody::Block(then), want, sp)?;
            }
        }
        Ok(self.finish_join(j))
    }
}

/// The interpreter's call of itself in `e` (`__majit_call!(..)`), if it
/// is one.
fn recursive_marker(e: &Expr) -> Option<&syn::Macro> {
    match strip(e) {
        Expr::Macro(m) if m.mac.path.is_ident(crate::recursion::MARKER) => Some(&m.mac),
        _ => None,
    }
}
