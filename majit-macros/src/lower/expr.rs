//! Expressions: literals, paths, operators (with narrow-type
//! normalisation), short-circuit `&&`/`||`, casts and the `checked_*`
//! overflow branches.
//!
//! Invariant: a value of a narrow integer type is always kept sign- or
//! zero-extended to 64 bits (see `normalize`).

use super::*;

/// A lowered binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Arith {
    fn from(op: &BinOp, sp: Span) -> Res<Arith> {
        Ok(match op {
            BinOp::Add(_) => Arith::Add,
            BinOp::Sub(_) => Arith::Sub,
            BinOp::Mul(_) => Arith::Mul,
            BinOp::Div(_) => Arith::Div,
            BinOp::Rem(_) => Arith::Rem,
            BinOp::BitAnd(_) => Arith::BitAnd,
            BinOp::BitOr(_) => Arith::BitOr,
            BinOp::BitXor(_) => Arith::BitXor,
            BinOp::Shl(_) => Arith::Shl,
            BinOp::Shr(_) => Arith::Shr,
            BinOp::Eq(_) => Arith::Eq,
            BinOp::Ne(_) => Arith::Ne,
            BinOp::Lt(_) => Arith::Lt,
            BinOp::Le(_) => Arith::Le,
            BinOp::Gt(_) => Arith::Gt,
            BinOp::Ge(_) => Arith::Ge,
            _ => return err(sp, "unsupported operator"),
        })
    }
    pub(super) fn is_cmp(self) -> bool {
        matches!(
            self,
            Arith::Eq | Arith::Ne | Arith::Lt | Arith::Le | Arith::Gt | Arith::Ge
        )
    }
}

/// The operator of a compound assignment (`+=` → `+`).
pub(super) fn compound_base(op: &BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::AddAssign(_) => Arith::Add,
        BinOp::SubAssign(_) => Arith::Sub,
        BinOp::MulAssign(_) => Arith::Mul,
        BinOp::DivAssign(_) => Arith::Div,
        BinOp::RemAssign(_) => Arith::Rem,
        BinOp::BitAndAssign(_) => Arith::BitAnd,
        BinOp::BitOrAssign(_) => Arith::BitOr,
        BinOp::BitXorAssign(_) => Arith::BitXor,
        BinOp::ShlAssign(_) => Arith::Shl,
        BinOp::ShrAssign(_) => Arith::Shr,
        _ => return None,
    })
}

impl<'a> Lowerer<'a> {
    pub(super) fn expr(&mut self, e: &Expr, want: Option<Ty>) -> Res<Option<Val>> {
        let sp = e.span();
        match e {
            // A panic in a parenthesized expression is reported at the
            // outer parenthesis (rustc gives the inner expression its span).
            Expr::Paren(p) => match strip(&p.expr) {
                Expr::Binary(b) => self.binary(b, want, p.span()),
                Expr::Index(ix) => self.index_load(ix, p.span()).map(Some),
                inner => self.expr(inner, want),
            },
            Expr::Group(g) => self.expr(&g.expr, want),
            Expr::Lit(l) => self.lit(&l.lit, want).map(Some),
            Expr::Path(p) => self.path(p, want).map(Some),
            Expr::Binary(b) => self.binary(b, want, sp),
            Expr::Unary(u) => self.unary(u, want),
            Expr::Cast(c) => self.cast(c),
            Expr::Assign(a) => {
                let place = self.place(&a.left)?;
                let Some(v) = self.expr(&a.right, Some(place_ty(&place)))? else {
                    return Ok(None);
                };
                self.write(&place, &v, a.right.span())?;
                Ok(Some(Val::unit()))
            }
            Expr::Index(ix) => self.index_load(ix, sp).map(Some),
            Expr::MethodCall(m) => self.method(m, want),
            Expr::Call(c) => self.call(c, want),
            Expr::Block(b) if b.label.is_none() => self.block(&b.block, want),
            Expr::If(i) => self.if_expr(i, want),
            Expr::Match(m) => self.match_expr(m, want),
            Expr::Return(r) => self.ret(r.expr.as_deref(), sp),
            Expr::Break(b) => {
                if let Target::Inner(i) = self.target(b.label.as_ref(), "break")? {
                    if b.expr.is_some() {
                        return err(
                            sp,
                            "`break` with a value is only lowered for the dispatch loop",
                        );
                    }
                    self.inner[i].broken = true;
                    self.goto(self.inner[i].exit);
                    return Ok(None);
                }
                if !self.ctx.break_ok {
                    return err(
                        sp,
                        "`break` is only lowered when the dispatch loop is the function's \
                         last expression: use `return`",
                    );
                }
                self.ret(b.expr.as_deref(), sp)
            }
            Expr::Continue(c) => {
                match self.target(c.label.as_ref(), "continue")? {
                    Target::Inner(i) => self.goto(self.inner[i].head),
                    Target::Dispatch => self.goto(self.head),
                }
                Ok(None)
            }
            Expr::While(w) => self.while_loop(w),
            Expr::Loop(l) => self.inner_loop(l),
            Expr::Macro(m) => self.mac(&m.mac),
            Expr::Closure(_) => err(
                sp,
                "closures are not supported in a handler: move this code into a helper \
                 function and declare it in `helpers` with a policy",
            ),
            Expr::Try(t) => self.try_expr(t),
            Expr::ForLoop(_) => err(
                sp,
                "`for` loops run iterators, which a handler cannot lower: use `while` with an \
                 index, or move the loop into a helper function declared in `helpers`",
            ),
            Expr::Field(f) => err(
                f.span(),
                "undeclared field: a handler only sees the declared greens and reds (keep \
                 this state in a local listed in `reds`), or move this code into a helper",
            ),
            _ => err(
                sp,
                "this expression is outside the #[jit_interp] subset: move it into a helper \
                 function and declare it in `helpers` with a policy",
            ),
        }
    }

    pub(super) fn lit(&mut self, l: &syn::Lit, want: Option<Ty>) -> Res<Val> {
        match l {
            syn::Lit::Bool(b) => Ok(Val::scalar(Ty::BOOL, Opnd::Int(b.value as i64))),
            syn::Lit::Byte(b) => Ok(Val::scalar(
                Ty::int(IntTy {
                    bits: 8,
                    signed: false,
                }),
                Opnd::Int(b.value() as i64),
            )),
            syn::Lit::Int(i) => {
                let ty = if i.suffix().is_empty() {
                    match want.and_then(Ty::as_int) {
                        Some(t) => t,
                        None => I64,
                    }
                } else {
                    match IntTy::from_name(i.suffix()) {
                        Some(t) => t,
                        None => return err(i.span(), "unsupported integer suffix"),
                    }
                };
                let v: u64 = i.base10_parse()?;
                Ok(Val::scalar(Ty::int(ty), Opnd::Int(v as i64)))
            }
            syn::Lit::Float(f) => self.float_lit(f),
            other => err(
                other.span(),
                "only integer, float and bool literals are supported in a handler",
            ),
        }
    }

    pub(super) fn path(&mut self, p: &syn::ExprPath, want: Option<Ty>) -> Res<Val> {
        if let Some(id) = p.path.get_ident() {
            let name = id.to_string();
            if let Some(v) = self.lookup(&name) {
                return Ok(Val {
                    ty: v.ty,
                    op: Some(Opnd::Reg(v.reg)),
                    len: v.len.map(Opnd::Reg),
                    no_value: None,
                });
            }
            if self.ctx.outer.contains(&name) {
                return err(
                    id.span(),
                    format!(
                        "`{name}` is a local of the interpreter function but neither a green \
                         nor a red: add it to `reds` (or `greens` if it identifies the \
                         position in the user program)"
                    ),
                );
            }
            if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
                return err(
                    id.span(),
                    format!(
                        "unknown name `{name}`: a handler may use greens, reds, its own \
                         `let`s and consts"
                    ),
                );
            }
        }
        // `f64::NAN`, `std::f64::consts::PI` are floats whatever the context.
        let float_path = p.path.segments.iter().any(|s| s.ident == "f64");
        let ty = match want.filter(|t| matches!(t, Ty::Scalar(_))) {
            _ if float_path => Ty::F64,
            Some(t) => t,
            None => Ty::int(I64),
        };
        if ty == Ty::F64 {
            return Ok(Val::scalar(ty, Opnd::ConstF(quote!(#p))));
        }
        // A traced function's integer consts are evaluated in its module;
        // its float consts are named as written (`traced.rs`).
        Ok(Val::scalar(ty, Opnd::Const(self.konst(quote!(#p)))))
    }

    /// Both operands, typing a literal side from the other.
    pub(super) fn operands(
        &mut self,
        l: &Expr,
        r: &Expr,
        want: Option<Ty>,
    ) -> Res<Option<(Val, Val)>> {
        if is_literal(l) && !is_literal(r) {
            let Some(rv) = self.expr(r, want)? else {
                return Ok(None);
            };
            let Some(lv) = self.expr(l, Some(rv.ty))? else {
                return Ok(None);
            };
            return Ok(Some((lv, rv)));
        }
        let Some(lv) = self.expr(l, want)? else {
            return Ok(None);
        };
        let Some(rv) = self.expr(r, Some(lv.ty))? else {
            return Ok(None);
        };
        Ok(Some((lv, rv)))
    }

    /// A binary expression; `at` is where a failing check reports it.
    pub(super) fn binary(
        &mut self,
        b: &syn::ExprBinary,
        want: Option<Ty>,
        at: Span,
    ) -> Res<Option<Val>> {
        let sp = b.span();
        if let Some(op) = compound_base(&b.op) {
            let place = self.place(&b.left)?;
            let cur = self.read(&place)?;
            let Some(rv) = self.expr(&b.right, Some(cur.ty))? else {
                return Ok(None);
            };
            let v = self.arith(op, &cur, &rv, at, b)?;
            self.write(&place, &v, sp)?;
            return Ok(Some(Val::unit()));
        }
        match b.op {
            BinOp::And(_) => return self.short_circuit(&b.left, &b.right, true),
            BinOp::Or(_) => return self.short_circuit(&b.left, &b.right, false),
            _ => {}
        }
        let cmp = matches!(
            b.op,
            BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_)
        );
        let Some((l, r)) = self.operands(&b.left, &b.right, if cmp { None } else { want })? else {
            return Ok(None);
        };
        self.arith(Arith::from(&b.op, sp)?, &l, &r, at, b).map(Some)
    }

    /// A binary operation on two scalars of the same type: the expression
    /// `e` (errors point at it), whose failing check reports `at`.
    pub(super) fn arith(
        &mut self,
        op: Arith,
        l: &Val,
        r: &Val,
        at: Span,
        e: &dyn quote::ToTokens,
    ) -> Res<Val> {
        let sp = e.span();
        l.used()?;
        r.used()?;
        if l.ty != r.ty {
            return err(sp, "the operands have different types: add an `as` cast");
        }
        let (a, b) = (l.opnd(sp)?, r.opnd(sp)?);
        let t = match l.ty {
            Ty::Scalar(Scalar::Int(t)) => t,
            Ty::Scalar(Scalar::F64) => return self.float_arith(op, a, b, sp),
            t if t.is_ref() => {
                let name = match op {
                    Arith::Eq => "PtrEq",
                    Arith::Ne => "PtrNe",
                    _ => return err(sp, "GC struct handles can only be compared with == and !="),
                };
                return Ok(Val::scalar(Ty::BOOL, self.pure_t(name, &[a, b])));
            }
            Ty::Scalar(Scalar::Bool) => {
                let name = match op {
                    Arith::BitAnd => "IntAnd",
                    Arith::BitOr => "IntOr",
                    Arith::BitXor => "IntXor",
                    Arith::Eq => "IntEq",
                    Arith::Ne => "IntNe",
                    _ => return err(sp, "this operator is not defined on bool"),
                };
                return Ok(Val::scalar(Ty::BOOL, self.pure_t(name, &[a, b])));
            }
            _ => return err(sp, "expected integer operands"),
        };
        let wide_unsigned = !t.signed && t.bits == 64;
        let cmp = |s: &str, u: &str| {
            if wide_unsigned {
                u.to_string()
            } else {
                s.to_string()
            }
        };
        let (name, normalize) = match op {
            Arith::Add => ("IntAdd".into(), true),
            Arith::Sub => ("IntSub".into(), true),
            Arith::Mul => ("IntMul".into(), true),
            Arith::Div | Arith::Rem => {
                let res = self.divide(
                    op == Arith::Rem,
                    t,
                    a,
                    b,
                    checks::place(&e.to_token_stream().to_string(), at),
                );
                return Ok(Val::scalar(l.ty, res));
            }
            Arith::BitAnd => ("IntAnd".into(), false),
            Arith::BitOr => ("IntOr".into(), false),
            Arith::BitXor => ("IntXor".into(), false),
            Arith::Shl | Arith::Shr => {
                if !matches!(b, Opnd::Int(v) if (0..t.bits as i64).contains(&v)) {
                    return err(
                        sp,
                        "shifts are only lowered by a constant smaller than the type's width: \
                         use `wrapping_shl`/`wrapping_shr`",
                    );
                }
                match op {
                    Arith::Shl => ("IntLshift".into(), true),
                    _ if t.signed => ("IntRshift".into(), false),
                    _ => ("UintRshift".into(), false),
                }
            }
            Arith::Eq => ("IntEq".into(), false),
            Arith::Ne => ("IntNe".into(), false),
            Arith::Lt => (cmp("IntLt", "UintLt"), false),
            Arith::Le => (cmp("IntLe", "UintLe"), false),
            Arith::Gt => (cmp("IntGt", "UintGt"), false),
            Arith::Ge => (cmp("IntGe", "UintGe"), false),
        };
        let res = self.pure_t(&name, &[a, b]);
        if op.is_cmp() {
            return Ok(Val::scalar(Ty::BOOL, res));
        }
        let res = if normalize {
            self.normalize(res, t)
        } else {
            res
        };
        Ok(Val::scalar(l.ty, res))
    }

    /// Brings a 64-bit result back into the range of `t`.
    pub(super) fn normalize(&mut self, o: Opnd, t: IntTy) -> Opnd {
        if t.bits == 64 {
            return o;
        }
        if t.signed {
            let sh = Opnd::Int(64 - t.bits as i64);
            let x = self.pure_t("IntLshift", &[o, sh.clone()]);
            self.pure_t("IntRshift", &[x, sh])
        } else {
            self.pure_t("IntAnd", &[o, Opnd::Int((1i64 << t.bits) - 1)])
        }
    }

    /// `a && b` (`and`) or `a || b`: `b` runs only when `a` requires it.
    pub(super) fn short_circuit(&mut self, a: &Expr, b: &Expr, and: bool) -> Res<Option<Val>> {
        let Some(av) = self.expr(a, Some(Ty::BOOL))? else {
            return Ok(None);
        };
        if av.ty != Ty::BOOL {
            return err(a.span(), "expected a bool");
        }
        let res = self.regs.temp(Bank::Int);
        self.copy(&av.opnd(a.span())?, res);
        let end = self.label();
        if and {
            self.goto_if_not(&Opnd::Reg(res), end);
        } else {
            let rhs = self.label();
            self.goto_if_not(&Opnd::Reg(res), rhs);
            self.goto(end);
            self.bind(rhs);
        }
        let mark = self.regs.mark();
        if let Some(bv) = self.expr(b, Some(Ty::BOOL))? {
            if bv.ty != Ty::BOOL {
                return err(b.span(), "expected a bool");
            }
            self.copy(&bv.opnd(b.span())?, res);
        }
        self.regs.release(mark);
        self.bind(end);
        Ok(Some(Val::scalar(Ty::BOOL, Opnd::Reg(res))))
    }

    pub(super) fn unary(&mut self, u: &syn::ExprUnary, want: Option<Ty>) -> Res<Option<Val>> {
        let sp = u.span();
        let Some(v) = self.expr(&u.expr, want)? else {
            return Ok(None);
        };
        let o = v.opnd(sp)?;
        match (&u.op, v.ty) {
            (UnOp::Neg(_), Ty::Scalar(Scalar::F64)) => {
                Ok(Some(Val::scalar(v.ty, self.float_neg(o))))
            }
            (UnOp::Neg(_), Ty::Scalar(Scalar::Int(t))) => {
                if let Opnd::Int(x) = o {
                    return Ok(Some(Val::scalar(v.ty, Opnd::Int(x.wrapping_neg()))));
                }
                let r = self.pure_t("IntNeg", &[o]);
                Ok(Some(Val::scalar(v.ty, self.normalize(r, t))))
            }
            (UnOp::Not(_), Ty::Scalar(Scalar::Bool)) => {
                Ok(Some(Val::scalar(Ty::BOOL, self.pure_t("IntIsZero", &[o]))))
            }
            (UnOp::Not(_), Ty::Scalar(Scalar::Int(t))) => {
                let r = self.pure_t("IntInvert", &[o]);
                let r = if t.signed { r } else { self.normalize(r, t) };
                Ok(Some(Val::scalar(v.ty, r)))
            }
            _ => err(
                sp,
                "this unary operator is not supported in a handler (no dereferences)",
            ),
        }
    }

    pub(super) fn cast(&mut self, c: &syn::ExprCast) -> Res<Option<Val>> {
        let to = Ty::parse(&c.ty).unwrap_or(Ty::Unit);
        if !matches!(to, Ty::Scalar(Scalar::Int(_) | Scalar::F64)) {
            return err(
                c.ty.span(),
                "`as` casts are only lowered to integer types and `f64`",
            );
        }
        let Some(v) = self.expr(&c.expr, None)? else {
            return Ok(None);
        };
        // A const's type is unknown here (it may be an `f64`): the cast
        // runs in Rust when the jitcode is built.
        if let (Some(Opnd::Const(k) | Opnd::ConstF(k)), Ty::Scalar(s)) = (&v.op, to) {
            let r = if s.is_float() {
                Opnd::ConstF(quote!((#k) as f64))
            } else {
                let rt = to.as_int().expect("checked above").rust();
                Opnd::Const(quote!((#k) as #rt))
            };
            return Ok(Some(Val::scalar(to, r)));
        }
        if let Some(r) = self.float_cast(&v, to, c.span())? {
            return Ok(Some(Val::scalar(to, r)));
        }
        let t = to.as_int().expect("checked above");
        let o = v.opnd(c.expr.span())?;
        Ok(Some(Val::scalar(to, self.normalize(o, t))))
    }

    /// `match x.checked_op(y) { Some(v) => A, None => B }` and the
    /// `if let` form: `int_op_ovf` into `v`, overflow branches to B. The
    /// scrutinee may also be an `Option` value (`lower/overflow.rs`): its
    /// flag branches.
    pub(super) fn checked(
        &mut self,
        scrut: &Expr,
        some_pat: &Pat,
        some_body: ArmBody,
        none_body: ArmBody,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        let name = match some_pat {
            Pat::TupleStruct(ts) if ts.path.is_ident("Some") && ts.elems.len() == 1 => {
                match &ts.elems[0] {
                    Pat::Ident(p) if p.subpat.is_none() => p.ident.to_string(),
                    other => return err(other.span(), "expected `Some(name)`"),
                }
            }
            other => return err(other.span(), "expected `Some(name)`"),
        };
        let none = self.label();
        let Some((v, ty, fresh)) = self.option_scrutinee(scrut, none)? else {
            return Ok(None);
        };
        let mut j = self.new_join();
        self.scopes.push(vec![Var::local(name, ty, v)]);
        self.arm(&mut j, some_body, want)?;
        self.scopes.pop();
        self.bind(none);
        self.arm(&mut j, none_body, want)?;
        if fresh {
            self.regs.free_var(v);
        }
        Ok(self.finish_join(j))
    }

    pub(super) fn checked_match(
        &mut self,
        m: &syn::ExprMatch,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        let mut some = None;
        let mut none = None;
        for arm in &m.arms {
            if let Some((_, g)) = &arm.guard {
                return err(g.span(), "match guards are not supported");
            }
            match &arm.pat {
                Pat::TupleStruct(ts) if ts.path.is_ident("Some") => some = Some(arm),
                Pat::Ident(p) if p.ident == "None" => none = Some(arm),
                Pat::Path(p) if p.path.is_ident("None") => none = Some(arm),
                Pat::Wild(_) => none = Some(arm),
                other => return err(other.span(), "expected `Some(v)` or `None`"),
            }
        }
        let (Some(s), Some(n)) = (some, none) else {
            return err(
                m.span(),
                "a `checked_*` match needs a `Some(v)` and a `None` arm",
            );
        };
        self.checked(
            &m.expr,
            &s.pat,
            ArmBody::Expr(&s.body),
            ArmBody::Expr(&n.body),
            want,
        )
    }
}
