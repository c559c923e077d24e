//! A `Result` kept in a local: `let r = f(..);` of a helper or traced
//! function returning `Result<T, E>` ([`Ty::Result`]). The call is caught
//! at once (`catch_exception`), and three registers hold what both paths
//! wrote: a flag (1 = `Ok`), the value `T` (none for `()`) and the error
//! `E`, the other path writing zero / null there. `match r { Ok(v) => ..,
//! Err(e) => .. }` and `if let` branch on the flag (`results.rs`), as do
//! `r.is_ok()`, `r.is_err()`, `r?` (the error raised to the caller) and
//! `r` as what a function returning `Result` returns.
//!
//! Invariant: every register of a `Result` local is written on both paths
//! of its call, so no path reads an unwritten register; a binding `Ok(v)`
//! or `Err(e)` gets a copy (an arm that assigns `v` leaves `r` alone, as
//! in Rust).

use super::*;
use crate::ty::Item;

/// How a `Result` local may be used.
pub(super) const RESULT_LOCAL_USE: &str = "a `Result` kept in a local is read by `match r { Ok(v) \
     => .., Err(e) => .. }`, `if let Ok(v) = r`, `if let Err(e) = r`, `r.is_ok()`, `r.is_err()`, \
     `r?`, or returned by a function returning the same `Result`: it cannot be copied or passed on";

/// Zero of a register of type `t`: what the path that does not write a
/// `Result` local's value or error leaves there.
fn zero(t: Ty) -> Opnd {
    match t {
        Ty::Scalar(Scalar::F64) => Opnd::Float(0.0),
        t if t.is_ref() => Opnd::Null,
        _ => Opnd::Int(0),
    }
}

/// The name bound by `let` (a plain name, with or without a type).
fn let_name(p: &Pat) -> Option<&syn::Ident> {
    match p {
        Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => Some(&i.ident),
        Pat::Type(t) => let_name(&t.pat),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// `let r = f(..);` of a fallible `f` (`None`: another `let`; `Some(None)`:
    /// control does not flow past it).
    pub(super) fn let_result(&mut self, local: &syn::Local) -> Res<Option<Option<()>>> {
        let (Some(name), Some(init)) = (let_name(&local.pat), &local.init) else {
            return Ok(None);
        };
        let Some(f) = self.fallible_call(&init.expr) else {
            return Ok(None);
        };
        if init.diverge.is_some() {
            return err(local.span(), "`let ... else` is not supported: use `match`");
        }
        let handler = self.label();
        let Some((v, h)) = self.emit_fallible(f)? else {
            return Ok(Some(None));
        };
        let e_ty = h.err.expect("a fallible call");
        let e = self.regs.var(bank(e_ty));
        let (l, et) = (self.label_t(handler), e.tokens());
        self.code.push(quote!(b.catch_exception(#l, Some(#et));));
        let flag = self.regs.var(Bank::Int);
        let value = h.ret.map(|t| (t, self.regs.var(bank(t))));
        let end = self.label();
        if let (Some((_, r)), Some(o)) = (value, &v.op) {
            self.copy(o, r);
        }
        self.copy(&Opnd::Int(1), flag);
        self.copy(&zero(e_ty), e);
        self.goto(end);
        self.bind(handler);
        self.copy(&Opnd::Int(0), flag);
        if let Some((t, r)) = value {
            self.copy(&zero(t), r);
        }
        self.bind(end);
        let ty = Ty::Result {
            ok: h.ret.and_then(Item::of),
            err: Item::of(e_ty).expect("an error type is one word"),
        };
        let mut var = Var::local(name.to_string(), ty, flag);
        var.items = std::iter::once(e).chain(value.map(|(_, r)| r)).collect();
        self.scopes.last_mut().expect("a scope").push(var);
        Ok(Some(Some(())))
    }

    /// The `Result` local `e` names, if it is one.
    pub(super) fn result_var(&self, e: &Expr) -> Option<Var> {
        let Expr::Path(p) = strip(e) else { return None };
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        matches!(v.ty, Ty::Result { .. }).then_some(v)
    }

    /// The flag, value and error of the `Result` local `v`.
    fn result_parts(v: &Var) -> (Opnd, Val, Val) {
        let Ty::Result { ok, err } = v.ty else {
            unreachable!("a Result local")
        };
        let value = match (ok, v.items.get(1)) {
            (Some(t), Some(&r)) => Val::scalar(t.ty(), Opnd::Reg(r)),
            _ => Val::unit(),
        };
        let error = Val::scalar(err.ty(), Opnd::Reg(v.items[0]));
        (Opnd::Reg(v.reg), value, error)
    }

    /// A copy of `v` in a temporary (a binding that may be assigned).
    fn copied(&mut self, v: Val) -> Val {
        match (&v.op, v.ty) {
            (Some(o), t) if t.is_single() => {
                let r = self.regs.temp(bank(t));
                self.copy(&o.clone(), r);
                Val::scalar(t, Opnd::Reg(r))
            }
            _ => v,
        }
    }

    /// The scrutinee `r` of a `match`/`if let` on a `Result` local: goes to
    /// `handler` on `Err`; copies of its value and error.
    pub(super) fn branch_on_result(&mut self, r: &Expr, handler: u32) -> Res<(Val, Option<Val>)> {
        let var = self.result_var(r).expect("checked by the caller");
        let (flag, value, error) = Self::result_parts(&var);
        let (value, error) = (self.copied(value), self.copied(error));
        self.goto_if_not(&flag, handler);
        Ok((value, Some(error)))
    }

    /// `r.is_ok()` and `r.is_err()` of a `Result` local.
    pub(super) fn result_method(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: &Val,
    ) -> Res<Option<Val>> {
        let flag = recv.op.clone().expect("a Result local's flag");
        match (m.method.to_string().as_str(), m.args.is_empty()) {
            ("is_ok", true) => Ok(Some(Val::scalar(Ty::BOOL, flag))),
            ("is_err", true) => Ok(Some(Val::scalar(
                Ty::BOOL,
                self.pure_t("IntIsZero", &[flag]),
            ))),
            _ => err(m.method.span(), RESULT_LOCAL_USE),
        }
    }

    /// Raises the error of the `Result` local `r` unless it is `Ok`: its
    /// value, the `T` of `r?`.
    pub(super) fn try_result_var(&mut self, r: &Expr, sp: Span) -> Res<Option<Val>> {
        let (value, ok) = self.raise_unless_ok(r, sp)?;
        self.bind(ok);
        Ok(Some(value))
    }

    /// `r`, a `Result` local, as what a function returning `Result`
    /// returns: its value, or its error raised.
    pub(super) fn return_result(&mut self, r: &Expr) -> Res<Option<Val>> {
        let (value, ok) = self.raise_unless_ok(r, r.span())?;
        self.bind(ok);
        if value.ty != self.ctx.ret {
            return err(
                r.span(),
                "this `Result` has another `T` than the function returns",
            );
        }
        self.emit_ret(&value);
        Ok(None)
    }

    /// The branch to a `raise` of `r`'s error (the same error type as this
    /// function's) unless `r` is `Ok`: its value and the label of the `Ok`
    /// path, for the caller to bind.
    fn raise_unless_ok(&mut self, r: &Expr, sp: Span) -> Res<(Val, u32)> {
        let var = self.result_var(r).expect("checked by the caller");
        let (flag, value, error) = Self::result_parts(&var);
        self.same_error(&var.name, Some(error.ty), sp)?;
        let (raise, ok) = (self.label(), self.label());
        self.goto_if_not(&flag, raise);
        self.goto(ok);
        self.bind(raise);
        let e = error.opnd(sp)?.arg();
        self.code.push(quote!(b.raise(#e);));
        Ok((value, ok))
    }
}
