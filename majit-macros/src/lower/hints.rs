//! Hints (the facade's `majit::promote`, `majit::we_are_jitted`, called by
//! any path ending in their name, when no helper has that name): plain
//! functions in the Rust build, jitcode instructions here.
//!
//! - `promote(x)` (integer, bool, `f64` or GC handle) is `x`, plus an
//!   `int_promote`/`ref_promote`/`float_promote`: the tracer records a
//!   `guard_value` (bit-exact for floats) and `x`'s register is that
//!   constant afterwards, so what depends on it folds (elidable calls on it
//!   included). A constant needs no promote.
//! - `we_are_jitted()` is a `bool`: 1 in the tracer (a constant in the
//!   trace), 0 in the blackhole and in the plain build.
//!
//! Invariant: a misused hint (wrong arity, a value that cannot be promoted)
//! is a compile error at the call.

use super::*;

impl Lowerer<'_> {
    /// Lowers the hint call `c` of `name`; `None` when `name` is no hint.
    pub(super) fn hint(&mut self, c: &syn::ExprCall, name: &str) -> Res<Option<Option<Val>>> {
        let args: Vec<&Expr> = c.args.iter().collect();
        match (name, args.as_slice()) {
            ("promote", [a]) => {
                let Some(v) = self.expr(a, None)? else {
                    return Ok(Some(None));
                };
                v.used()?;
                if !v.ty.is_single() {
                    return err(
                        a.span(),
                        "`promote` takes an integer, a bool, an `f64` or a GC handle (the value \
                         becomes a constant in the trace)",
                    );
                }
                if let Some(o @ Opnd::Reg(_)) = &v.op {
                    let o = o.arg();
                    self.code.push(quote!(b.promote(#o);));
                }
                Ok(Some(Some(v)))
            }
            ("we_are_jitted", []) => {
                let d = self.regs.temp(Bank::Int);
                let dt = d.tokens();
                self.code.push(quote!(b.we_are_jitted(#dt);));
                Ok(Some(Some(Val::scalar(
                    Ty::Scalar(Scalar::Bool),
                    Opnd::Reg(d),
                ))))
            }
            ("promote", _) => err(c.span(), "`promote(x)` takes one value"),
            ("we_are_jitted", _) => err(c.span(), "`we_are_jitted()` takes no arguments"),
            _ => Ok(None),
        }
    }
}
