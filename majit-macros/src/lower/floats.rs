//! Floats: `f64` operators, comparisons, negation, `as` casts between `f64`
//! and the integer types, the `f64` methods and `f64::from_bits`.
//!
//! Invariant: every float result is Rust's to the bit (NaN payloads aside).
//! IR ops are used where their semantics are Rust's: `float_*`,
//! `cast_float_to_int` (saturating, NaN to 0, as `f as i64`) and
//! `cast_int_to_float` from the types whose register value is their value
//! (all but `u64`); the rest are elidable calls of Rust's own code (the
//! shims of `emit::float_shims`), which fold on constants in a trace.

use super::*;
use crate::emit::{float_cast_shim, FLOAT_METHODS};

impl Lowerer<'_> {
    /// `op(args)` into a fresh float temporary.
    fn pure_f(&mut self, op: &str, args: &[Opnd]) -> Opnd {
        let r = self.regs.temp(Bank::Float);
        self.pure(op, args, r);
        Opnd::Reg(r)
    }

    /// An elidable call of the float shim `shim` (`emit::float_shims`)
    /// with these arguments and banks, its result in a `ret` temporary.
    fn float_call(&mut self, shim: &syn::Ident, args: &[(Opnd, Bank)], ret: Bank) -> Opnd {
        self.float_shims.insert(shim.to_string());
        let banks: Vec<Bank> = args.iter().map(|a| a.1).collect();
        let descr = call_descr(
            &shim.to_string(),
            &banks,
            Some(ret),
            Policy::Elidable,
            false,
        );
        let args = args.iter().map(|a| a.0.arg());
        let dst = self.regs.temp(ret);
        let d = dst.tokens();
        self.code.push(quote! {
            b.call(#descr, ::majit::metainterp::jitcode::Arg::Int(#shim as usize as i64),
                   &[#(#args),*], Some(#d));
        });
        Opnd::Reg(dst)
    }

    /// A binary operator on two `f64`s (IEEE comparisons: NaN is unequal
    /// to everything, `-0.0 == 0.0`).
    pub(super) fn float_arith(&mut self, op: Arith, a: Opnd, b: Opnd, sp: Span) -> Res<Val> {
        let name = match op {
            Arith::Add => "FloatAdd",
            Arith::Sub => "FloatSub",
            Arith::Mul => "FloatMul",
            Arith::Div => "FloatTrueDiv",
            Arith::Rem => {
                let shim = format_ident!("__majit_f64_rem");
                let args = [(a, Bank::Float), (b, Bank::Float)];
                return Ok(Val::scalar(
                    Ty::F64,
                    self.float_call(&shim, &args, Bank::Float),
                ));
            }
            Arith::Eq => "FloatEq",
            Arith::Ne => "FloatNe",
            Arith::Lt => "FloatLt",
            Arith::Le => "FloatLe",
            Arith::Gt => "FloatGt",
            Arith::Ge => "FloatGe",
            _ => {
                return err(
                    sp,
                    "this operator is not defined on `f64` (for its bits, use `to_bits()` and \
                     `f64::from_bits`)",
                )
            }
        };
        if op.is_cmp() {
            return Ok(Val::scalar(Ty::BOOL, self.pure_t(name, &[a, b])));
        }
        Ok(Val::scalar(Ty::F64, self.pure_f(name, &[a, b])))
    }

    /// `-x` on an `f64` (a literal folds, `-0.0` included).
    pub(super) fn float_neg(&mut self, o: Opnd) -> Opnd {
        match o {
            Opnd::Float(x) => Opnd::Float(-x),
            o => self.pure_f("FloatNeg", &[o]),
        }
    }

    /// `v as to` when `v` or `to` is `f64` (`None`: neither is).
    pub(super) fn float_cast(&mut self, v: &Val, to: Ty, sp: Span) -> Res<Option<Opnd>> {
        let (from, to) = match (v.ty, to) {
            (Ty::Scalar(f), Ty::Scalar(t)) if f.is_float() || t.is_float() => (f, t),
            _ => return Ok(None),
        };
        let o = v.opnd(sp)?;
        let r = match (from, to) {
            (Scalar::F64, Scalar::F64) => o,
            (Scalar::F64, Scalar::Int(I64)) => self.pure_t("CastFloatToInt", &[o]),
            (Scalar::F64, Scalar::Int(t)) => {
                let shim = float_cast_shim(&t.rust().to_string());
                self.float_call(&shim, &[(o, Bank::Float)], Bank::Int)
            }
            (Scalar::Int(USIZE), Scalar::F64) => {
                let shim = format_ident!("__majit_u64_to_f64");
                self.float_call(&shim, &[(o, Bank::Int)], Bank::Float)
            }
            (Scalar::Int(_), Scalar::F64) => self.pure_f("CastIntToFloat", &[o]),
            _ => {
                return err(
                    sp,
                    "`as` casts between `f64` and integer types are lowered, not from or to \
                     `bool`",
                )
            }
        };
        Ok(Some(r))
    }

    /// `recv.name(args)` on an `f64`.
    pub(super) fn float_method(
        &mut self,
        m: &syn::Ident,
        recv: &Val,
        args: &[&Expr],
    ) -> Res<Option<Val>> {
        let (sp, name) = (m.span(), m.to_string());
        let x = recv.opnd(sp)?;
        let r = match (name.as_str(), args) {
            ("abs", []) => Val::scalar(Ty::F64, self.pure_f("FloatAbs", &[x])),
            ("sqrt", []) => Val::scalar(Ty::F64, self.pure_f("FloatSqrt", &[x])),
            ("to_bits", []) => Val::scalar(
                Ty::int(USIZE),
                self.pure_t("ConvertFloatBytesToLonglong", &[x]),
            ),
            ("is_nan", []) => Val::scalar(Ty::BOOL, self.pure_t("FloatNe", &[x.clone(), x])),
            _ => {
                let arity = FLOAT_METHODS.iter().find(|(n, _)| *n == name).map(|m| m.1);
                if arity != Some(args.len() as u8 + 1) {
                    let known: Vec<String> =
                        FLOAT_METHODS.iter().map(|m| format!("`{}`", m.0)).collect();
                    return err(
                        sp,
                        format!(
                            "method `{name}` is not lowered on `f64`: a handler knows `abs`, \
                             `sqrt`, `to_bits`, `is_nan`, {} (with their Rust arguments); call a \
                             declared helper instead",
                            known.join(", ")
                        ),
                    );
                }
                let mut opnds = vec![(x, Bank::Float)];
                for a in args {
                    let Some(v) = self.expr(a, Some(Ty::F64))? else {
                        return Ok(None);
                    };
                    if v.ty != Ty::F64 {
                        return err(a.span(), "expected an `f64`");
                    }
                    opnds.push((v.opnd(a.span())?, Bank::Float));
                }
                let shim = format_ident!("__majit_f64_{}", name);
                Val::scalar(Ty::F64, self.float_call(&shim, &opnds, Bank::Float))
            }
        };
        Ok(Some(r))
    }

    /// `f64::name(args)`: `f64::from_bits(u)`, or a method in path form
    /// (`f64::sqrt(x)`). `None` when `c` is no such call.
    pub(super) fn float_fn(&mut self, c: &syn::ExprCall) -> Res<Option<Option<Val>>> {
        let Expr::Path(p) = &*c.func else {
            return Ok(None);
        };
        let segs: Vec<&syn::Ident> = p.path.segments.iter().map(|s| &s.ident).collect();
        let [f64_, m] = segs.as_slice() else {
            return Ok(None);
        };
        if *f64_ != "f64" || c.args.is_empty() {
            return Ok(None);
        }
        let want = if *m == "from_bits" {
            Ty::int(USIZE)
        } else {
            Ty::F64
        };
        let Some(first) = self.expr(&c.args[0], Some(want))? else {
            return Ok(Some(None));
        };
        if first.ty != want {
            let t = if *m == "from_bits" {
                "a `u64`"
            } else {
                "an `f64`"
            };
            return err(c.args[0].span(), format!("expected {t}"));
        }
        if *m == "from_bits" && c.args.len() == 1 {
            let o = first.opnd(c.args[0].span())?;
            let r = self.pure_f("ConvertLonglongBytesToFloat", &[o]);
            return Ok(Some(Some(Val::scalar(Ty::F64, r))));
        }
        let rest: Vec<&Expr> = c.args.iter().skip(1).collect();
        self.float_method(m, &first, &rest).map(Some)
    }

    /// A float literal (`1.5`, `2.0f64`, `1e3`).
    pub(super) fn float_lit(&mut self, f: &syn::LitFloat) -> Res<Val> {
        if !matches!(f.suffix(), "" | "f64") {
            return err(f.span(), "only `f64` float literals are supported");
        }
        Ok(Val::scalar(Ty::F64, Opnd::Float(f.base10_parse::<f64>()?)))
    }
}
