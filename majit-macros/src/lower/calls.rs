//! Calls: declared helpers (residual, elidable, loop-invariant and
//! dont-look-inside through an `extern "C"` shim and a `CallDescr`; inline
//! helpers and traced functions with `inline_call`), the hints
//! (`hints.rs`) and method calls. A callee is named by its path's last
//! segment, so `ops::f(..)` and `f(..)` both call the helper `f`.
//!
//! Invariant: a call of an undeclared function is a compile error naming the
//! `helpers = [..]` declaration to add.

use super::*;

/// The last segment of the path `c` calls, if it calls a path.
pub(super) fn callee_name(c: &syn::ExprCall) -> Option<String> {
    match &*c.func {
        Expr::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// How errors name `h`: `f`, or `Node::m` for a traced method.
pub(super) fn display_name(h: &Helper) -> String {
    match &h.method {
        Some(m) => format!("{}::{}", m.ty, m.name),
        None => h.name.to_string(),
    }
}

/// A `CallDescr` expression. `raises`: the callee may panic, which the
/// trace checks with a `guard_no_exception` after the call (see
/// `runtime::catch_panic`).
pub(super) fn call_descr(
    name: &str,
    kinds: &[Bank],
    ret: Option<Bank>,
    policy: Policy,
    raises: bool,
) -> TokenStream {
    // A helper given a GC handle may be given the virtualizable frame: the
    // tracer writes the frame back before the call and reloads it after.
    let may_force = matches!(policy, Policy::Residual | Policy::DontLookInside)
        && kinds.iter().any(|k| matches!(k, Bank::Ref));
    descr(name, kinds, ret, (policy, raises), may_force)
}

/// The `CallDescr` expression of a call of the helper `h` with `policy`:
/// `may_force` as [`Helper::may_force`] says (only GC handle arguments count:
/// a slice's data pointer is in the ref bank, but it is never the frame).
pub(super) fn helper_descr(h: &Helper, policy: Policy) -> TokenStream {
    let kinds: Vec<Bank> = h.args.iter().flat_map(|t| arg_banks(*t)).collect();
    let name = h.name.to_string();
    let may_force = h.may_force(policy);
    descr(&name, &kinds, h.ret.map(bank), (policy, true), may_force)
}

/// [`call_descr`] with `may_force` decided.
fn descr(
    name: &str,
    kinds: &[Bank],
    ret: Option<Bank>,
    (policy, raises): (Policy, bool),
    may_force: bool,
) -> TokenStream {
    let kinds = kinds.iter().map(|k| k.kind());
    let result = match ret {
        Some(Bank::Int) => quote!(::majit::ir::ResultKind::Int),
        Some(Bank::Ref) => quote!(::majit::ir::ResultKind::Ref),
        Some(Bank::Float) => quote!(::majit::ir::ResultKind::Float),
        None => quote!(::majit::ir::ResultKind::Void),
    };
    let effect = match policy {
        Policy::Residual | Policy::DontLookInside => quote!(::majit::ir::CallEffect::Random),
        Policy::Elidable => quote!(::majit::ir::CallEffect::Elidable),
        Policy::LoopInvariant => quote!(::majit::ir::CallEffect::LoopInvariant),
        Policy::Inline => unreachable!("inline helpers are not called through descrs"),
    };
    quote! {
        ::majit::ir::Descr::from(::majit::ir::CallDescr {
            name: #name.into(),
            args: vec![#(#kinds),*],
            result: #result,
            effect: ::majit::ir::EffectInfo {
                effect: #effect,
                can_raise: #raises,
                may_force: #may_force,
                ..Default::default()
            },
        })
    }
}

/// The `CallDescr` expression of the residual form of the inline helper
/// or traced function `h` (what a call of it becomes once a too-long trace
/// marked it don't-inline): random effects, like `dont_look_inside`; it
/// may panic (its shim runs it in `runtime::catch_panic`).
pub fn residual_descr(h: &Helper) -> TokenStream {
    helper_descr(h, Policy::DontLookInside)
}

impl<'a> Lowerer<'a> {
    pub(super) fn method(&mut self, m: &syn::ExprMethodCall, want: Option<Ty>) -> Res<Option<Val>> {
        let sp = m.span();
        let name = m.method.to_string();
        if name.starts_with("checked_") {
            return self.checked_value(m);
        }
        if name.starts_with("overflowing_") {
            return err(m.method.span(), OVERFLOWING_USE);
        }
        let Some(recv) = self.expr(&m.receiver, want)? else {
            return Ok(None);
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        match recv.ty {
            Ty::Gc(si) => return self.gc_method(m, &recv, si, want),
            Ty::Obj => return self.obj_method(m, &recv),
            Ty::GcArray(item) => return self.array_method(m, &recv, item),
            Ty::Scalar(Scalar::F64) => return self.float_method(&m.method, &recv, &args),
            Ty::Checked(_) => return self.option_method(m, &recv),
            Ty::Result { .. } => return self.result_method(m, &recv),
            _ => {}
        }
        match (name.as_str(), recv.ty, args.as_slice()) {
            ("len", Ty::Slice { .. }, []) => Ok(Some(Val::scalar(
                Ty::int(USIZE),
                recv.len.clone().expect("slices have a length"),
            ))),
            ("wrapping_add" | "wrapping_sub" | "wrapping_mul", Ty::Scalar(Scalar::Int(_)), [a]) => {
                let Some(av) = self.expr(a, Some(recv.ty))? else {
                    return Ok(None);
                };
                let op = match name.as_str() {
                    "wrapping_add" => Arith::Add,
                    "wrapping_sub" => Arith::Sub,
                    _ => Arith::Mul,
                };
                self.arith(op, &recv, &av, sp, m).map(Some)
            }
            ("wrapping_neg", Ty::Scalar(Scalar::Int(t)), []) => {
                let r = self.pure_t("IntNeg", &[recv.opnd(sp)?]);
                Ok(Some(Val::scalar(recv.ty, self.normalize(r, t))))
            }
            ("wrapping_shl" | "wrapping_shr", Ty::Scalar(Scalar::Int(t)), [a]) => {
                let u32t = Ty::int(IntTy {
                    bits: 32,
                    signed: false,
                });
                let Some(av) = self.expr(a, Some(u32t))? else {
                    return Ok(None);
                };
                let n = self.pure_t(
                    "IntAnd",
                    &[av.opnd(a.span())?, Opnd::Int(t.bits as i64 - 1)],
                );
                let x = recv.opnd(sp)?;
                let r = match (name.as_str(), t.signed) {
                    ("wrapping_shl", _) => {
                        let r = self.pure_t("IntLshift", &[x, n]);
                        self.normalize(r, t)
                    }
                    (_, true) => self.pure_t("IntRshift", &[x, n]),
                    (_, false) => self.pure_t("UintRshift", &[x, n]),
                };
                Ok(Some(Val::scalar(recv.ty, r)))
            }
            _ => err(
                m.method.span(),
                format!(
                    "method `{name}` is not supported here: a handler knows `wrapping_*`, \
                     `checked_*` and `overflowing_*` on integers, `len()` on slices and the \
                     `f64` methods of docs/macros.md; call a declared helper instead"
                ),
            ),
        }
    }

    /// A call (`want`: see [`Lowerer::expr`]; a helper returning
    /// `Result` and `Ok(..)`/`Err(..)` need [`Ty::Fallible`], see
    /// `results.rs`).
    pub(super) fn call(&mut self, c: &syn::ExprCall, want: Option<Ty>) -> Res<Option<Val>> {
        let sp = c.span();
        if let Some(v) = self.struct_call(c, sp, want)? {
            return Ok(v);
        }
        if let Some(v) = self.float_fn(c)? {
            return Ok(v);
        }
        let name = callee_name(c);
        let Some(name) = name else {
            return err(
                c.func.span(),
                "only calls of declared helpers (function names or paths) are supported",
            );
        };
        if name == "Ok" || name == "Err" {
            return self.result_ctor(c, &name, want);
        }
        let Some(h) = self
            .ctx
            .helpers
            .iter()
            .find(|h| h.method.is_none() && h.name == name)
        else {
            if let Some(v) = self.hint(c, &name)? {
                return Ok(v);
            }
            return Self::undeclared(c, &name);
        };
        if h.err.is_some() {
            return self.fallible_value(c, h, want);
        }
        self.emit_call(c, h)
    }

    /// Emits the call `c` of the helper or traced function `h` (a
    /// fallible one's `catch_exception`, if any, must come next); its
    /// value, the `T` of a `Result<T, E>`.
    pub(super) fn emit_call(&mut self, c: &syn::ExprCall, h: &Helper) -> Res<Option<Val>> {
        let args: Vec<&Expr> = c.args.iter().collect();
        self.emit_call_with(c.span(), h, None, &args)
    }

    /// Emits the call (at `sp`) of `h` with the arguments `exprs`, after
    /// `recv`, a traced method's receiver (already lowered).
    pub(super) fn emit_call_with(
        &mut self,
        sp: Span,
        h: &Helper,
        recv: Option<&Val>,
        exprs: &[&Expr],
    ) -> Res<Option<Val>> {
        let name = h.name.to_string();
        let skip = usize::from(recv.is_some());
        if h.args.len() != exprs.len() + skip {
            let n = h.args.len() - skip;
            return err(
                sp,
                format!("helper `{}` takes {n} arguments", display_name(h)),
            );
        }
        let mut args = Vec::new();
        if let Some(r) = recv {
            args.push(r.opnd(sp)?.arg());
        }
        for (a, &t) in exprs.iter().copied().zip(&h.args[skip..]) {
            let Some(v) = self.expr(a, Some(t))? else {
                return Ok(None);
            };
            v.used()?;
            if !v.ty.passes_as(t) {
                return err(a.span(), "the argument does not have the declared type");
            }
            match (&v.op, &v.len, t) {
                // A slice passes its data pointer and its length.
                (Some(p), Some(len), Ty::Slice { .. }) => args.extend([p.arg(), len.arg()]),
                _ => args.push(v.opnd(a.span())?.arg()),
            }
        }
        let dst = h.ret.map(|t| (t, self.regs.temp(bank(t))));
        let d = match dst {
            Some((_, r)) => {
                let r = r.tokens();
                quote!(Some(#r))
            }
            None => quote!(None),
        };
        if h.policy == Policy::Inline {
            let f = format_ident!("__majit_f_{}", name);
            self.code
                .push(quote!(b.inline_call(#f, &[#(#args),*], #d);));
        } else {
            let descr = helper_descr(h, h.policy);
            let shim = format_ident!("__majit_shim_{}", name);
            let func = quote!(::majit::metainterp::jitcode::Arg::Int(#shim as usize as i64));
            self.code
                .push(quote!(b.call(#descr, #func, &[#(#args),*], #d);));
        }
        Ok(Some(match dst {
            Some((t, r)) => Val::scalar(t, Opnd::Reg(r)),
            None => Val::void_call(h, sp),
        }))
    }

    /// The helper or traced function `c` calls, if it is declared.
    pub(super) fn callee(&self, c: &syn::ExprCall) -> Option<&'a Helper> {
        let name = callee_name(c)?;
        self.ctx
            .helpers
            .iter()
            .find(|h| h.method.is_none() && h.name == name)
    }

    /// The traced method `name` of the declared struct `si`, if any.
    pub(super) fn traced_method(&self, si: u8, name: &str) -> Option<&'a Helper> {
        let ty = &self.ctx.structs[usize::from(si)].name;
        self.ctx.helpers.iter().find(|h| {
            h.method
                .as_ref()
                .is_some_and(|m| m.name == name && m.ty == ty)
        })
    }

    /// `recv.m(args)` or `S::m(recv, args)` (at `sp`) of the traced method
    /// `h`; `recv` is lowered, of `h`'s struct. A method returning `Result`
    /// here is what this function returns (`want`: see `results.rs`).
    pub(super) fn method_call(
        &mut self,
        sp: Span,
        h: &Helper,
        (recv, args): (&Val, &[&Expr]),
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        if h.err.is_none() {
            return self.emit_call_with(sp, h, Some(recv), args);
        }
        self.returned_through(h, sp, want)?;
        if let Some(v) = self.emit_call_with(sp, h, Some(recv), args)? {
            self.emit_ret(&v);
        }
        Ok(None)
    }

    /// The error for a call of `name`, which has no declared policy.
    fn undeclared(c: &syn::ExprCall, name: &str) -> Res<Option<Val>> {
        if let Some(s) = undeclared_struct(&c.func) {
            return err(
                c.func.span(),
                format!(
                    "`{s}` is not a declared GC struct: declare it in `structs = [{s} {{ \
                     field: Type, .. }}]` (its fields: integers, bools, `f64`, declared structs, \
                     `Obj` or `Array<T>`), or move this code into a helper declared in `helpers`"
                ),
            );
        }
        err(
            c.func.span(),
            format!(
                "`{name}` is not a declared helper: declare it in `helpers = [residual fn \
                 {name}(...) -> ...]` (or `elidable`, `loop_invariant`, `dont_look_inside`), \
                 or mark it `#[majit::traced]` and list it in `traced = [..]`"
            ),
        )
    }
}
