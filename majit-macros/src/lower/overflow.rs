//! `checked_*` and `overflowing_*` as values. `x.checked_add(y)` outside a
//! `match`/`if let` scrutinee is an `Option` value ([`Ty::Checked`]): the
//! wrapped result and a flag (1 = `Some`), which `let r = ..;` keeps in two
//! registers and `match r`, `if let Some(v) = r`, `r.is_some()`,
//! `r.is_none()` and `r.unwrap_or(d)` read. `let (v, o) = x.overflowing_add(y);` binds the
//! wrapped result and the overflow bool. On `i64` both lower to the
//! `int_*_ovf` op and its overflow branch; on narrower types (and `u64` add
//! and sub) to the 64-bit operation and a comparison.
//!
//! Invariant: the wrapped result is written before the overflow branch (the
//! `ovf` instruction writes it on both paths), the flag on each path.

use super::*;

/// An overflow-checked operation: `a op b` on the integer type `t`.
pub(super) struct OvfOp {
    op: Arith,
    a: Opnd,
    b: Opnd,
    t: IntTy,
}

impl Lowerer<'_> {
    /// The operation of `x.PREFIXop(y)` (`op` one of add, sub, mul; on any
    /// integer type but `u64` for mul). `None`: control does not flow past
    /// the operands.
    pub(super) fn ovf_operands(
        &mut self,
        m: &syn::ExprMethodCall,
        prefix: &str,
    ) -> Res<Option<OvfOp>> {
        let sp = m.span();
        let op = match m.method.to_string().strip_prefix(prefix) {
            Some("add") => Arith::Add,
            Some("sub") => Arith::Sub,
            Some("mul") => Arith::Mul,
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
        let t = match (recv.ty.as_int(), m.args.len()) {
            (Some(USIZE), _) if op == Arith::Mul => {
                return err(sp, format!("`{prefix}mul` is not lowered on `u64`/`usize`"))
            }
            (Some(t), 1) => t,
            _ => {
                return err(
                    sp,
                    format!("`{prefix}*` is lowered on integers with one argument"),
                )
            }
        };
        let Some(arg) = self.expr(&m.args[0], Some(recv.ty))? else {
            return Ok(None);
        };
        if arg.ty != recv.ty {
            return err(m.args[0].span(), "the operands have different types");
        }
        let (a, b) = (recv.opnd(sp)?, arg.opnd(sp)?);
        Ok(Some(OvfOp { op, a, b, t }))
    }

    /// `dst = a op b` wrapped, and `flag` = `ovf` if it overflowed, else
    /// `1 - ovf`. On `i64`, the `int_*_ovf` op and its branch; on the other
    /// types the exact result is computed in 64 bits and compared.
    fn ovf_with_flag(&mut self, o: OvfOp, dst: R, flag: R, ovf: i64) {
        if o.t == I64 {
            let (over, end) = (self.label(), self.label());
            self.copy(&Opnd::Int(1 - ovf), flag);
            self.ovf_branch(&o, dst, over);
            self.goto(end);
            self.bind(over);
            self.copy(&Opnd::Int(ovf), flag);
            self.bind(end);
            return;
        }
        let name = match o.op {
            Arith::Add => "IntAdd",
            Arith::Sub => "IntSub",
            _ => "IntMul",
        };
        let wide = self.pure_t(name, &[o.a.clone(), o.b.clone()]);
        let wrapped = self.normalize(wide.clone(), o.t);
        // Narrow operands are exact in 64 bits (a product of two 32-bit
        // values included), so the result overflowed iff wrapping changed
        // it; a `u64` sum wrapped iff it is below an operand, a difference
        // iff the subtrahend is the larger.
        let over = match (o.t.bits, o.op) {
            (64, Arith::Add) => self.pure_t("UintLt", &[wrapped.clone(), o.a]),
            (64, _) => self.pure_t("UintLt", &[o.a, o.b]),
            _ => self.pure_t("IntNe", &[wrapped.clone(), wide]),
        };
        self.copy(&wrapped, dst);
        if ovf == 1 {
            self.copy(&over, flag);
        } else {
            self.pure("IntIsZero", &[over], flag);
        }
    }

    /// `dst = a op b` (on `i64`) with the `int_*_ovf` op, going to
    /// `on_overflow` if it overflowed.
    fn ovf_branch(&mut self, o: &OvfOp, dst: R, on_overflow: u32) {
        let name = match o.op {
            Arith::Add => "IntAddOvf",
            Arith::Sub => "IntSubOvf",
            _ => "IntMulOvf",
        };
        let op = format_ident!("{}", name);
        let (a, b, d, l) = (
            o.a.arg(),
            o.b.arg(),
            dst.tokens(),
            self.label_t(on_overflow),
        );
        self.code
            .push(quote!(b.ovf(::majit::ir::OpCode::#op, #a, #b, #d, #l);));
    }

    /// `x.checked_op(y)` as a value.
    pub(super) fn checked_value(&mut self, m: &syn::ExprMethodCall) -> Res<Option<Val>> {
        let Some(o) = self.ovf_operands(m, "checked_")? else {
            return Ok(None);
        };
        let t = o.t;
        let (v, flag) = (self.regs.temp(Bank::Int), self.regs.temp(Bank::Int));
        self.ovf_with_flag(o, v, flag, 0);
        Ok(Some(Val {
            len: Some(Opnd::Reg(flag)),
            ..Val::scalar(Ty::Checked(t), Opnd::Reg(v))
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
                let Ty::Checked(t) = r.ty else {
                    unreachable!("called on Option values")
                };
                let Some(dv) = self.expr(d, Some(Ty::int(t)))? else {
                    return Ok(None);
                };
                if dv.ty != Ty::int(t) {
                    return err(d.span(), "the default does not have the `Option`'s type");
                }
                // `res = d`, then `res = v` on the `Some` path.
                let (res, end) = (self.regs.temp(Bank::Int), self.label());
                self.copy(&dv.opnd(d.span())?, res);
                self.goto_if_not(&flag, end);
                self.copy(r.op.as_ref().expect("an Option value has a value"), res);
                self.bind(end);
                Val::scalar(Ty::int(t), Opnd::Reg(res))
            }
            _ => return err(m.method.span(), OPTION_USE),
        };
        Ok(Some(v))
    }

    /// The value register and type of a `match`/`if let` scrutinee's
    /// `Some`, with control going to `none` otherwise; whether the register
    /// is a fresh variable the caller frees. `None`: control does not flow
    /// on.
    pub(super) fn option_scrutinee(
        &mut self,
        scrut: &Expr,
        none: u32,
    ) -> Res<Option<(R, Ty, bool)>> {
        if let Expr::MethodCall(m) = strip(scrut) {
            if m.method.to_string().starts_with("checked_") {
                let Some(o) = self.ovf_operands(m, "checked_")? else {
                    return Ok(None);
                };
                let t = Ty::int(o.t);
                let v = self.regs.var(Bank::Int);
                if o.t == I64 {
                    // Straight to `none` on overflow: no flag.
                    self.ovf_branch(&o, v, none);
                } else {
                    let flag = self.regs.temp(Bank::Int);
                    self.ovf_with_flag(o, v, flag, 0);
                    self.goto_if_not(&Opnd::Reg(flag), none);
                }
                return Ok(Some((v, t, true)));
            }
        }
        let Some(r) = self.expr(scrut, None)? else {
            return Ok(None);
        };
        let (Ty::Checked(t), Some(Opnd::Reg(v)), Some(flag)) = (r.ty, &r.op, &r.len) else {
            return err(
                scrut.span(),
                "`Some(v)` patterns are only lowered on the `Option` of `x.checked_*(y)`",
            );
        };
        self.goto_if_not(flag, none);
        Ok(Some((*v, Ty::int(t), false)))
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
            return err(
                t.span(),
                "only `let name` bindings are supported, and `let (v, o) = \
                 x.overflowing_add(y);`",
            );
        };
        let Some(ops) = self.ovf_operands(m, "overflowing_")? else {
            return Ok(None);
        };
        let t = Ty::int(ops.t);
        let (vr, or) = (self.regs.var(Bank::Int), self.regs.var(Bank::Int));
        self.ovf_with_flag(ops, vr, or, 1);
        let scope = self.scopes.last_mut().expect("a scope");
        for (name, ty, reg) in [(v, t, vr), (o, Ty::BOOL, or)] {
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
