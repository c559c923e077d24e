//! `checked_*` and `overflowing_*` as values. `x.checked_add(y)` outside a
//! `match`/`if let` scrutinee is an `Option` value ([`Ty::Checked`]): the
//! wrapped result and a flag (1 = `Some`), which `let r = ..;` keeps in two
//! registers and `match r`, `if let Some(v) = r`, `r.is_some()`,
//! `r.is_none()` and `r.unwrap_or(d)` read. `let (v, o) = x.overflowing_add(y);` binds the
//! wrapped result and the overflow bool. Both lower to the `int_*_ovf` op
//! and its overflow branch.
//!
//! Invariant: the wrapped result is written before the overflow branch (the
//! `ovf` instruction writes it on both paths), the flag on each path.

use super::*;

impl Lowerer<'_> {
    /// The IR op and operands of `x.PREFIXop(y)` (`op` one of add, sub,
    /// mul, on `i64`). `None`: control does not flow past the operands.
    pub(super) fn ovf_operands(
        &mut self,
        m: &syn::ExprMethodCall,
        prefix: &str,
    ) -> Res<Option<(syn::Ident, Opnd, Opnd)>> {
        let sp = m.span();
        let op = match m.method.to_string().strip_prefix(prefix) {
            Some("add") => "IntAddOvf",
            Some("sub") => "IntSubOvf",
            Some("mul") => "IntMulOvf",
            _ => {
                return err(
                    m.method.span(),
                    format!("only `{prefix}add`, `{prefix}sub` and `{prefix}mul` are lowered"),
                )
            }
        };
        let Some(recv) = self.expr(&m.receiver, None)? else {
            return Ok(None);
        };
        if recv.ty != Ty::int(I64) || m.args.len() != 1 {
            return err(
                sp,
                format!("`{prefix}*` is only lowered on `i64` with one argument"),
            );
        }
        let Some(arg) = self.expr(&m.args[0], Some(recv.ty))? else {
            return Ok(None);
        };
        if arg.ty != recv.ty {
            return err(m.args[0].span(), "expected an `i64`");
        }
        let op = format_ident!("{}", op);
        Ok(Some((op, recv.opnd(sp)?, arg.opnd(sp)?)))
    }

    /// `dst = op(a, b)` wrapped and `flag` = `ovf_flag` if it overflowed,
    /// else its negation.
    fn ovf_with_flag(&mut self, (op, a, b): (syn::Ident, Opnd, Opnd), dst: R, flag: R, ovf: i64) {
        let (over, end) = (self.label(), self.label());
        self.copy(&Opnd::Int(1 - ovf), flag);
        let (a, b, d, l) = (a.arg(), b.arg(), dst.tokens(), self.label_t(over));
        self.code
            .push(quote!(b.ovf(::majit::ir::OpCode::#op, #a, #b, #d, #l);));
        self.goto(end);
        self.bind(over);
        self.copy(&Opnd::Int(ovf), flag);
        self.bind(end);
    }

    /// `x.checked_op(y)` as a value.
    pub(super) fn checked_value(&mut self, m: &syn::ExprMethodCall) -> Res<Option<Val>> {
        let Some(ops) = self.ovf_operands(m, "checked_")? else {
            return Ok(None);
        };
        let (v, flag) = (self.regs.temp(Bank::Int), self.regs.temp(Bank::Int));
        self.ovf_with_flag(ops, v, flag, 0);
        Ok(Some(Val {
            len: Some(Opnd::Reg(flag)),
            ..Val::scalar(Ty::Checked(I64), Opnd::Reg(v))
        }))
    }

    /// `r.is_some()`, `r.is_none()` and `r.unwrap_or(d)` on an `Option`
    /// value. `None`: control does not flow past `d`.
    pub(super) fn option_method(&mut self, m: &syn::ExprMethodCall, r: &Val) -> Res<Option<Val>> {
        let flag = r.len.clone().expect("an Option value has its flag");
        let args: Vec<&Expr> = m.args.iter().collect();
        let v = match (m.method.to_string().as_str(), args.as_slice()) {
            ("is_some", []) => Val::scalar(Ty::BOOL, flag),
            ("is_none", []) => Val::scalar(Ty::BOOL, self.pure_t("IntIsZero", &[flag])),
            ("unwrap_or", [d]) => {
                let Some(dv) = self.expr(d, Some(Ty::int(I64)))? else {
                    return Ok(None);
                };
                if dv.ty != Ty::int(I64) {
                    return err(d.span(), "expected an `i64`");
                }
                // `res = d`, then `res = v` on the `Some` path.
                let (res, end) = (self.regs.temp(Bank::Int), self.label());
                self.copy(&dv.opnd(d.span())?, res);
                self.goto_if_not(&flag, end);
                self.copy(r.op.as_ref().expect("an Option value has a value"), res);
                self.bind(end);
                Val::scalar(Ty::int(I64), Opnd::Reg(res))
            }
            _ => return err(m.method.span(), OPTION_USE),
        };
        Ok(Some(v))
    }

    /// The value register of a `match`/`if let` scrutinee's `Some`, with
    /// control going to `none` otherwise; whether the register is a fresh
    /// variable the caller frees. `None`: control does not flow on.
    pub(super) fn option_scrutinee(&mut self, scrut: &Expr, none: u32) -> Res<Option<(R, bool)>> {
        if let Expr::MethodCall(m) = strip(scrut) {
            if m.method.to_string().starts_with("checked_") {
                let Some((op, a, b)) = self.ovf_operands(m, "checked_")? else {
                    return Ok(None);
                };
                let v = self.regs.var(Bank::Int);
                let (a, b, vt, nl) = (a.arg(), b.arg(), v.tokens(), self.label_t(none));
                self.code
                    .push(quote!(b.ovf(::majit::ir::OpCode::#op, #a, #b, #vt, #nl);));
                return Ok(Some((v, true)));
            }
        }
        let Some(r) = self.expr(scrut, None)? else {
            return Ok(None);
        };
        let (Ty::Checked(_), Some(Opnd::Reg(v)), Some(flag)) = (r.ty, &r.op, &r.len) else {
            return err(
                scrut.span(),
                "`Some(v)` patterns are only lowered on the `Option` of `x.checked_*(y)`",
            );
        };
        self.goto_if_not(flag, none);
        Ok(Some((*v, false)))
    }

    /// `let name = <Option value>;`: the value and the flag in two
    /// variables (the flag is the variable's `len`).
    pub(super) fn let_option(&mut self, name: &syn::Ident, v: &Val) -> Res<()> {
        let (reg, flag) = (self.regs.var(Bank::Int), self.regs.var(Bank::Int));
        self.copy(v.op.as_ref().expect("an Option value has a value"), reg);
        self.copy(v.len.as_ref().expect("an Option value has its flag"), flag);
        let var = Var {
            len: Some(flag),
            ..Var::local(name.to_string(), v.ty, reg)
        };
        self.scopes.last_mut().expect("a scope").push(var);
        Ok(())
    }

    /// `let (v, o) = x.overflowing_op(y);`.
    pub(super) fn let_overflowing(&mut self, t: &syn::PatTuple, init: &Expr) -> Res<Option<()>> {
        let names: Vec<&syn::Ident> = t
            .elems
            .iter()
            .filter_map(|p| match p {
                Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some(&p.ident),
                _ => None,
            })
            .collect();
        let call = match strip(init) {
            Expr::MethodCall(m) if m.method.to_string().starts_with("overflowing_") => Some(m),
            _ => None,
        };
        let (Some(m), [v, o]) = (call, names.as_slice()) else {
            return err(t.span(), OVERFLOWING_USE);
        };
        let Some(ops) = self.ovf_operands(m, "overflowing_")? else {
            return Ok(None);
        };
        let (vr, or) = (self.regs.var(Bank::Int), self.regs.var(Bank::Int));
        self.ovf_with_flag(ops, vr, or, 1);
        let scope = self.scopes.last_mut().expect("a scope");
        for (name, ty, reg) in [(v, Ty::int(I64), vr), (o, Ty::BOOL, or)] {
            scope.push(Var::local(name.to_string(), ty, reg));
        }
        Ok(Some(()))
    }
}

/// How an `Option` of `checked_*` may be used.
pub(super) const OPTION_USE: &str = "the `Option` of `x.checked_*(y)` is lowered in `match` \
     (`Some(v) => .., None => ..`), `if let Some(v) = ..`, `.is_some()`, `.is_none()` and \
     `.unwrap_or(d)` only";

/// How `overflowing_*` may be used.
pub(super) const OVERFLOWING_USE: &str = "`overflowing_*` is lowered only as `let (v, o) = \
     x.overflowing_add(y);` (likewise `_sub`, `_mul`)";
