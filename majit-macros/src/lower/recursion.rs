//! Calls of the interpreter by itself (`crate::recursion`): a marked call
//! in a handler is an `inline_call` of the entry function, which this file
//! also lowers (parameters, the setup statements, then an `inline_call` of
//! the portal with the greens and reds); each call records the GC handles
//! its caller holds across it, which the Rust expansions root.

use super::*;
use crate::recursion::{handle_rust, Marked, Rooted};
use quote::ToTokens;

/// The jitcode builder's id of the portal, in a recursive interpreter.
fn portal_id() -> TokenStream {
    quote!(__majit_portal_id)
}

/// The jitcode builder's id of the entry function.
fn entry_id() -> TokenStream {
    quote!(__majit_entry_id)
}

impl Lowerer<'_> {
    /// `__majit_call!(k, run(args))`: an `inline_call` of the entry
    /// function. An interpreter returning `Result` may call itself only
    /// where its error is handled (`consumed`: `?`, `match`, `if let`).
    pub(super) fn recursive_call(&mut self, m: &syn::Macro, consumed: bool) -> Res<Option<Val>> {
        let marked: Marked = m.parse_body()?;
        let c = &marked.call;
        if self.ctx.err.is_some() && !consumed {
            let name = c.func.to_token_stream().to_string();
            return err(
                c.span(),
                format!(
                    "`{name}` returns a `Result`: its call of itself is lowered as `{name}(..)?` \
                     or `match {name}(..) {{ Ok(v) => .., Err(e) => .. }}`"
                ),
            );
        }
        let Some(params) = self.ctx.recursive else {
            return err(
                c.span(),
                "only the interpreter's handlers may call the interpreter, not a helper or a \
                 traced function",
            );
        };
        if params.len() != c.args.len() {
            return err(
                c.span(),
                format!("the interpreter takes {} arguments", params.len()),
            );
        }
        let mut args = Vec::new();
        for (a, (_, t)) in c.args.iter().zip(params) {
            let Some(v) = self.expr(a, Some(*t))? else {
                return Ok(None);
            };
            v.used()?;
            if v.ty != *t {
                return err(a.span(), "the argument does not have the parameter's type");
            }
            match (v.ty, &v.op, &v.len) {
                (Ty::Slice { .. }, Some(p), Some(n)) => args.extend([p.arg(), n.arg()]),
                _ => args.push(v.opnd(a.span())?.arg()),
            }
        }
        let roots = self.rooted(c.span())?;
        if self.roots.len() <= marked.index {
            self.roots.resize(marked.index + 1, Vec::new());
        }
        self.roots[marked.index] = roots;
        let ret = self.ctx.ret;
        let dst = (ret != Ty::Unit).then(|| self.regs.temp(bank(ret)));
        let d = match dst {
            Some(r) => {
                let r = r.tokens();
                quote!(Some(#r))
            }
            None => quote!(None),
        };
        let f = entry_id();
        self.code
            .push(quote!(b.inline_call(#f, &[#(#args),*], #d);));
        Ok(Some(match dst {
            Some(r) => Val::scalar(ret, Opnd::Reg(r)),
            None => Val::unit(),
        }))
    }

    /// The GC handles in scope at a call (at `at`): the innermost binding
    /// of each name. Reds and locals of enclosing blocks are reloaded by
    /// assignment, so such a local must be `mut`.
    fn rooted(&self, at: Span) -> Res<Vec<Rooted>> {
        let structs: Vec<String> = self.ctx.structs.iter().map(|s| s.name.clone()).collect();
        let innermost = self.scopes.len() - 1;
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for (k, scope) in self.scopes.iter().enumerate().rev() {
            for v in scope.iter().rev() {
                if v.name.is_empty() || seen.contains(&v.name.as_str()) {
                    continue;
                }
                seen.push(&v.name);
                // The call's span: the user's hygiene, also when the interpreter
                // comes through the `traced` chain's macro_rules.
                let name = format_ident!("{}", v.name, span = at);
                match v.ty {
                    t if t.is_ref() => {
                        let assign = v.state || k < innermost;
                        if assign && !v.mutable {
                            return err(
                                at,
                                format!(
                                    "declare `{}` with `mut`: it holds a GC handle across this \
                                     call of the interpreter, whose collections may move it",
                                    v.name
                                ),
                            );
                        }
                        out.push(Rooted {
                            place: quote!(#name),
                            rust: handle_rust(t, &structs),
                            assign,
                        });
                    }
                    Ty::Array { item, len } if item.ty().is_ref() => {
                        out.extend((0..usize::from(len)).map(|i| Rooted {
                            place: quote!(#name[#i]),
                            rust: item.rust(&structs),
                            assign: true,
                        }));
                    }
                    _ => {}
                }
            }
        }
        Ok(out)
    }
}

/// Lowers the entry function of a recursive interpreter: its parameters
/// `params`, the statements before the dispatch loop (`setup`), then an
/// `inline_call` of the portal with the greens and reds, whose result it
/// returns.
pub fn lower_entry(ctx: &Ctx, params: &[(String, Ty)], setup: &[Stmt]) -> Res<Lowered> {
    let mut l = Lowerer::new(ctx);
    let mut regs = Vec::new();
    for (name, ty) in params {
        let (reg, len) = match ty {
            Ty::Slice { .. } => (l.regs.var(Bank::Ref), Some(l.regs.var(Bank::Int))),
            t => (l.regs.var(bank(*t)), None),
        };
        regs.push(reg);
        regs.extend(len);
        l.scopes[0].push(Var {
            len,
            mutable: true,
            ..Var::local(name.clone(), *ty, reg)
        });
    }
    let flows = l.stmts(setup, None, false).map_err(|e| {
        let note = "(the statements before the dispatch loop of a recursive interpreter are \
                    lowered too: every call of the interpreted program runs them)";
        syn::Error::new(e.span(), format!("{e} {note}"))
    })?;
    if flows.is_some() {
        let mut args = Vec::new();
        let state = ctx.state.iter().filter(|s| s.green);
        for sv in state.chain(ctx.state.iter().filter(|s| !s.green)) {
            let Some(v) = l.lookup(&sv.name.to_string()) else {
                return err(
                    sv.name.span(),
                    format!(
                        "`{}` must be a parameter or a `let` before the dispatch loop of a \
                         recursive interpreter",
                        sv.name
                    ),
                );
            };
            match v.items.is_empty() {
                true => args.extend(std::iter::once(v.reg).chain(v.len)),
                false => args.extend(v.items.iter().copied()),
            }
        }
        let args = args.iter().map(|r| Opnd::Reg(*r).arg());
        let dst = (ctx.ret != Ty::Unit).then(|| l.regs.temp(bank(ctx.ret)));
        let (d, v) = match dst {
            Some(r) => {
                let t = r.tokens();
                let a = Opnd::Reg(r).arg();
                (quote!(Some(#t)), quote!(Some(#a)))
            }
            None => (quote!(None), quote!(None)),
        };
        let f = portal_id();
        l.code.push(quote! {
            b.inline_call(#f, &[#(#args),*], #d);
            b.ret(#v);
        });
    }
    Ok(l.finish(regs))
}
