//! Inline helpers and traced functions: finding each definition (a
//! nested `fn` of the interpreter or a `#[majit::traced]` body from the
//! chain), checking that names are unique and that none is recursive, and
//! lowering each into its own jitcode function.
//!
//! Invariants: every `inline` helper and traced function has exactly one
//! definition and one name among all helpers; the call graph among them
//! is acyclic (each is inlined into the trace).

use crate::{attr, lower, traced, ty};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::Stmt;

/// Rejects two helpers or traced functions of one name: a call names
/// its callee by the last segment of its path. The error is at the
/// second declaration (for a traced function, at its path in `traced`).
pub fn unique_helpers(attr: &attr::Attr) -> syn::Result<()> {
    let declared = attr.helpers.len() - attr.traced.len();
    for (i, h) in attr.helpers.iter().enumerate() {
        if attr.helpers[..i].iter().any(|d| d.name == h.name) {
            let msg = format!(
                "`{}` is declared twice among the helpers and traced functions: calls name their \
                 function by its last path segment, so each name has one policy (rename one of \
                 the functions)",
                h.name
            );
            return Err(match i.checked_sub(declared) {
                Some(t) => syn::Error::new_spanned(&attr.traced[t], msg),
                None => syn::Error::new(h.name.span(), msg),
            });
        }
    }
    Ok(())
}

/// An inline helper or traced function: its declaration, definition,
/// parameters and (traced) const table.
type InlineDef<'a> = (
    &'a attr::Helper,
    &'a syn::ItemFn,
    Vec<(String, ty::Ty)>,
    Option<traced::ConstTable>,
);

/// The definition of the inline helper or traced function `h`, with a
/// traced function's const table.
fn find_def<'a>(
    h: &attr::Helper,
    attr: &'a attr::Attr,
    before: &'a [Stmt],
    traced_fns: &'a [syn::ItemFn],
) -> syn::Result<(&'a syn::ItemFn, Option<traced::ConstTable>)> {
    let mut traced = attr.traced.iter().zip(traced_fns);
    if let Some((path, f)) = traced.find(|(_, f)| crate::methods::fn_key(f) == h.name) {
        return Ok((f, Some(traced::ConstTable::new(path, f))));
    }
    let nested = before.iter().find_map(|s| match s {
        Stmt::Item(syn::Item::Fn(f)) if f.sig.ident == h.name => Some(f),
        _ => None,
    });
    match nested {
        Some(f) => Ok((f, None)),
        None => Err(syn::Error::new(
            h.name.span(),
            format!(
                "an `inline` helper must be defined inside the interpreter function, before the \
                 dispatch loop, so that its body can be lowered: `fn {}(..) {{ .. }}` (or mark a \
                 function `#[majit::traced]` and list it in `traced = [..]`)",
                h.name
            ),
        )),
    }
}

/// The definitions of the `inline` helpers (nested `fn`s of the
/// interpreter function, defined before the dispatch loop) and traced
/// functions; recursion among them is an error.
fn inline_defs<'a>(
    attr: &'a attr::Attr,
    before: &'a [Stmt],
    traced_fns: &'a [syn::ItemFn],
    names: &ty::Names,
) -> syn::Result<Vec<InlineDef<'a>>> {
    let mut defs = Vec::new();
    for h in attr
        .helpers
        .iter()
        .filter(|h| h.policy == attr::Policy::Inline)
    {
        let (def, consts) = find_def(h, attr, before, traced_fns)?;
        let params = helper_params(def, h, names)?;
        if params.len() != h.args.len() {
            return Err(syn::Error::new(
                def.sig.span(),
                "the definition does not match the declared helper signature",
            ));
        }
        defs.push((h, def, params, consts));
    }
    let bodies: Vec<(String, &syn::Block)> = defs
        .iter()
        .map(|(h, def, ..)| (h.name.to_string(), &*def.block))
        .collect();
    let methods: Vec<Option<String>> = defs
        .iter()
        .map(|(h, ..)| h.method.as_ref().map(|m| m.name.to_string()))
        .collect();
    check_recursion(&bodies, &methods)?;
    Ok(defs)
}

/// The nested `fn`s of the interpreter function that are inline helpers
/// (the shims of their residual forms call copies of them).
pub fn nested_helpers(
    attr: &attr::Attr,
    before: &[Stmt],
    traced_fns: &[syn::ItemFn],
) -> syn::Result<Vec<syn::ItemFn>> {
    let mut out = Vec::new();
    for h in attr
        .helpers
        .iter()
        .filter(|h| h.policy == attr::Policy::Inline)
    {
        if let (def, None) = find_def(h, attr, before, traced_fns)? {
            out.push(def.clone());
        }
    }
    Ok(out)
}

/// Lowers every inline helper and traced function into its own jitcode.
pub fn inline_helpers(
    attr: &attr::Attr,
    before: &[Stmt],
    traced_fns: &[syn::ItemFn],
    portal: &lower::Ctx,
) -> syn::Result<Vec<(String, lower::Lowered)>> {
    let mut out = Vec::new();
    for (h, def, params, consts) in inline_defs(attr, before, traced_fns, portal.names)? {
        let ctx = lower::Ctx {
            state: &[],
            helpers: portal.helpers,
            structs: portal.structs,
            names: portal.names,
            outer: &[],
            ret: h.ret.unwrap_or(ty::Ty::Unit),
            err: h.err,
            loop_label: None,
            break_ok: false,
            helper: true,
            consts: consts.as_ref(),
            self_struct: h.method.as_ref().map(|m| m.ty.to_string()),
            recursive: None,
        };
        out.push((
            h.name.to_string(),
            lower::lower_helper(&ctx, &params, &def.block)?,
        ));
    }
    Ok(out)
}

/// The parameters of an inline helper or traced function `h` (a
/// method's `self` first: its handle).
fn helper_params(
    def: &syn::ItemFn,
    h: &attr::Helper,
    names: &ty::Names,
) -> syn::Result<Vec<(String, ty::Ty)>> {
    let mut params = Vec::new();
    for input in &def.sig.inputs {
        match input {
            syn::FnArg::Receiver(_) if h.method.is_some() => {
                params.push(("self".to_string(), h.args[0]));
            }
            syn::FnArg::Typed(pt) => match (&*pt.pat, ty::Ty::parse_with(&pt.ty, names)?) {
                (syn::Pat::Ident(i), t) if t.is_param() => params.push((i.ident.to_string(), t)),
                _ => {
                    return Err(syn::Error::new(
                        pt.span(),
                        "inline helper parameters are `name: T`, `T` an integer, `bool`, `f64`, \
                         a declared GC struct, `Obj`, `Array<T>` or a slice of integers, `bool` \
                         or `f64`",
                    ))
                }
            },
            other => return Err(syn::Error::new(other.span(), "not a free function")),
        }
    }
    Ok(params)
}

/// Rejects recursion among the inline helpers and traced functions
/// `defs` (name, body; `methods`: the method name of each traced method):
/// it needs frames of their own (issue #16). The error is at the call
/// that closes a cycle and names the cycle.
fn check_recursion(defs: &[(String, &syn::Block)], methods: &[Option<String>]) -> syn::Result<()> {
    let names: Vec<&str> = defs.iter().map(|(n, _)| n.as_str()).collect();
    let calls: Vec<Vec<(usize, proc_macro2::Span)>> = defs
        .iter()
        .map(|(_, body)| {
            let mut v = Calls {
                names: &names,
                methods,
                out: Vec::new(),
            };
            v.visit_block(body);
            v.out
        })
        .collect();
    // 0: unvisited, 1: on the stack, 2: done.
    let mut state = vec![0u8; defs.len()];
    let mut stack = Vec::new();
    // A method `Node_m` (its key, see `methods.rs`) is shown as `Node::m`.
    let shown: Vec<String> = names
        .iter()
        .zip(methods)
        .map(|(key, m)| match m {
            Some(m) => format!("{}::{m}", &key[..key.len() - m.len() - 1]),
            None => key.to_string(),
        })
        .collect();
    let shown: Vec<&str> = shown.iter().map(String::as_str).collect();
    for i in 0..defs.len() {
        cycle_from(i, &calls, &mut state, &mut stack, &shown)?;
    }
    Ok(())
}

/// Depth-first search for a cycle through `i`.
fn cycle_from(
    i: usize,
    calls: &[Vec<(usize, proc_macro2::Span)>],
    state: &mut [u8],
    stack: &mut Vec<usize>,
    names: &[&str],
) -> syn::Result<()> {
    if state[i] != 0 {
        return Ok(());
    }
    state[i] = 1;
    stack.push(i);
    for &(j, sp) in &calls[i] {
        if state[j] == 1 {
            let from = stack.iter().position(|&k| k == j).expect("on the stack");
            let cycle: Vec<&str> = stack[from..]
                .iter()
                .chain([&j])
                .map(|&k| names[k])
                .collect();
            return Err(syn::Error::new(
                sp,
                format!(
                    "traced functions cannot be recursive ({}): each is inlined into the \
                     trace, and recursion needs frames of its own; declare one of them \
                     `dont_look_inside` (a residual call) to break the cycle",
                    cycle.join(" calls ")
                ),
            ));
        }
        cycle_from(j, calls, state, stack, names)?;
    }
    stack.pop();
    state[i] = 2;
    Ok(())
}

/// The calls of the named functions in a body (by the path's last name;
/// `Node::m(..)` by `Node_m`), and of the traced methods (`x.m(..)`: every
/// traced method named `m`, whose receiver's type the syntax does not
/// tell).
struct Calls<'a> {
    names: &'a [&'a str],
    methods: &'a [Option<String>],
    out: Vec<(usize, proc_macro2::Span)>,
}

impl Visit<'_> for Calls<'_> {
    fn visit_expr_call(&mut self, c: &syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let segs = crate::lower::segment_names(&p.path);
            let method = match &segs[..] {
                [.., t, m] => Some(format!("{t}_{m}")),
                _ => None,
            };
            let free = |i: usize| {
                self.methods[i].is_none() && segs.last() == Some(&self.names[i].to_string())
            };
            let called = (0..self.names.len()).find(|&i| {
                free(i) || (self.methods[i].is_some() && method.as_deref() == Some(self.names[i]))
            });
            if let Some(i) = called {
                self.out.push((i, c.span()));
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_expr_method_call(&mut self, m: &syn::ExprMethodCall) {
        let name = m.method.to_string();
        for (i, method) in self.methods.iter().enumerate() {
            if method.as_deref() == Some(name.as_str()) {
                self.out.push((i, m.span()));
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_item(&mut self, _: &syn::Item) {}
}
