//! Traced functions: `#[majit::traced]` and the chain that hands their
//! bodies to `#[jit_interp]`.
//!
//! A proc macro sees only the item it is attached to, so an interpreter
//! cannot read the body of a function defined elsewhere. `#[traced]`
//! therefore emits, beside the unchanged function `f`, a hidden
//! `macro_rules! __majit_traced_f` (exported to the crate with `pub(crate)
//! use`) that appends `f`'s tokens to whatever it is given and passes
//! everything to `::majit::__jit_interp_chain!`. An interpreter listing
//! `traced = [a::f, b::g]` expands to `a::__majit_traced_f! { state }`,
//! whose expansion calls the chain, which calls `b::__majit_traced_g!`,
//! and so on; when every listed function has added its tokens, the chain
//! expands the interpreter with all the bodies ([`crate::expand`]).
//!
//! The state is four kinds of brace groups: `{ attribute } { function }
//! { paths still to visit } { traced fn }*`, the traced functions in the
//! order of the attribute's list. Tokens keep their spans through the
//! chain, so errors in a traced body point into it.
//!
//! Consts: a path in a traced body (`LIMIT`, `Op::Add`) must resolve in
//! the function's own module, but the jitcode is built in the
//! interpreter's. So `#[traced]` also emits `__majit_consts_f()`, beside
//! `f`, returning the value of every path the lowering takes for a const
//! ([`const_paths`]), and the lowering names `path::__majit_consts_f()[k]`
//! instead of the path ([`ConstTable`]).
//!
//! Invariants: the chain visits each listed path once, in order; the
//! final step sees exactly one body per listed path; `#[traced]` and the
//! lowering compute the same const list from the same tokens.

use crate::attr::{Helper, Policy};
use crate::ty::{Names, Ty};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::Token;

/// `#[traced]` on `func`: the function unchanged plus its hidden
/// callback macro.
pub fn attribute(attr: TokenStream, func: syn::ItemFn) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "#[majit::traced] takes no arguments",
        ));
    }
    check_signature(&func.sig)?;
    if let Some(syn::FnArg::Receiver(r)) = func.sig.inputs.first() {
        return Err(syn::Error::new(
            r.span(),
            "a traced method is marked through its `impl` block: put #[majit::traced] on the \
             `impl` of a declared GC struct (`impl Node { .. }`) and list the method as \
             `traced = [path::Node::method]`",
        ));
    }
    if let Some(sp) = dollar(quote!(#func)) {
        return Err(syn::Error::new(
            sp,
            "a traced function cannot contain `$` (a nested `macro_rules!`): move it out",
        ));
    }
    let mac = callback(&func.sig.ident);
    let paths = const_paths(&func);
    let consts = (!paths.is_empty()).then(|| {
        let (f, n) = (consts_fn(&func.sig.ident), paths.len());
        quote! {
            #[doc(hidden)]
            #[allow(dead_code, clippy::unnecessary_cast)]
            pub(crate) fn #f() -> [i64; #n] {
                [#((#paths) as i64),*]
            }
        }
    });
    Ok(quote! {
        #func
        #consts
        #[doc(hidden)]
        macro_rules! #mac {
            ($($state:tt)*) => { ::majit::__jit_interp_chain! { $($state)* { #func } } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #mac;
    })
}

/// The callback macro of the traced function `name`.
pub(crate) fn callback(name: &syn::Ident) -> syn::Ident {
    format_ident!("__majit_traced_{}", name, span = name.span())
}

/// The const-values function of the traced function `name`.
pub(crate) fn consts_fn(name: &syn::Ident) -> syn::Ident {
    format_ident!("__majit_consts_{}", name)
}

/// The paths of `f`'s body that the lowering takes for consts: in
/// expressions, a path of several segments or an uppercase name other
/// than `None` (not as a callee, nor as the receiver of a method other
/// than the integer ones, nor in a closure or macro: code the lowering
/// rejects, which a `dont_look_inside` function may hold); in patterns, a
/// path or an uppercase name. Deduplicated, in source order.
pub fn const_paths(f: &syn::ItemFn) -> Vec<TokenStream> {
    let mut v = ConstPaths(Vec::new());
    v.visit_block(&f.block);
    let mut seen = Vec::new();
    v.0.retain(|t| {
        let k = t.to_string();
        let new = !seen.contains(&k);
        seen.push(k);
        new
    });
    v.0
}

/// The lowering's view of a traced function's consts: `func()[k]` is
/// the value of `keys[k]` (a path's tokens as a string).
pub struct ConstTable {
    pub func: TokenStream,
    pub keys: Vec<String>,
}

impl ConstTable {
    /// The table of `f`, listed in the interpreter as `path`.
    pub fn new(path: &syn::Path, f: &syn::ItemFn) -> ConstTable {
        let func = match crate::methods::receiver(f) {
            Some((ty, _)) => crate::methods::consts_path(&ty, &f.sig.ident),
            None => {
                let mut func = path.clone();
                let last = func.segments.last_mut().expect("a path has a segment");
                last.ident = consts_fn(&f.sig.ident);
                quote!(#func)
            }
        };
        ConstTable {
            func,
            keys: const_paths(f).iter().map(|t| t.to_string()).collect(),
        }
    }

    /// What the jitcode builder evaluates for the const `t`.
    pub fn value(&self, t: TokenStream) -> TokenStream {
        match self.keys.iter().position(|k| *k == t.to_string()) {
            Some(k) => {
                let f = &self.func;
                quote!(#f()[#k])
            }
            None => t,
        }
    }
}

fn uppercase(id: &syn::Ident) -> bool {
    id.to_string().starts_with(|c: char| c.is_ascii_uppercase())
}

struct ConstPaths(Vec<TokenStream>);

impl Visit<'_> for ConstPaths {
    fn visit_expr_path(&mut self, p: &syn::ExprPath) {
        let is_const = match p.path.get_ident() {
            Some(id) => uppercase(id) && id != "None",
            None => p.qself.is_none(),
        };
        if is_const {
            self.0.push(quote!(#p));
        }
    }
    fn visit_expr_call(&mut self, c: &syn::ExprCall) {
        for a in &c.args {
            self.visit_expr(a);
        }
    }
    fn visit_expr_method_call(&mut self, m: &syn::ExprMethodCall) {
        let name = m.method.to_string();
        if ["wrapping_", "checked_", "overflowing_"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            self.visit_expr(&m.receiver);
        }
        for a in &m.args {
            self.visit_expr(a);
        }
    }
    fn visit_expr_closure(&mut self, _: &syn::ExprClosure) {}
    fn visit_pat(&mut self, p: &syn::Pat) {
        match p {
            syn::Pat::Path(p) => self.0.push(quote!(#p)),
            syn::Pat::Ident(i)
                if i.subpat.is_none() && uppercase(&i.ident) && i.ident != "None" =>
            {
                let id = &i.ident;
                self.0.push(quote!(#id));
            }
            _ => syn::visit::visit_pat(self, p),
        }
    }
    fn visit_item(&mut self, _: &syn::Item) {}
    fn visit_macro(&mut self, _: &syn::Macro) {}
}

/// Rejects what a traced function or method cannot be: generic, `async`,
/// `const`, `extern` or variadic. Parameter and result types are checked
/// by the interpreter that lists the function (they may name its structs).
pub(crate) fn check_signature(sig: &syn::Signature) -> syn::Result<()> {
    let bad = |sp: proc_macro2::Span, what: &str| {
        Err(syn::Error::new(
            sp,
            format!("a traced function cannot be {what}: it is lowered to jitcode like a handler"),
        ))
    };
    if !sig.generics.params.is_empty() {
        return bad(sig.generics.span(), "generic");
    }
    if let Some(a) = &sig.asyncness {
        return bad(a.span(), "`async`");
    }
    if let Some(c) = &sig.constness {
        return bad(c.span(), "`const`");
    }
    if let Some(a) = &sig.abi {
        return bad(a.span(), "`extern`");
    }
    if let Some(v) = &sig.variadic {
        return bad(v.span(), "variadic");
    }
    Ok(())
}

/// The span of the first `$` in `tokens`.
pub(crate) fn dollar(tokens: TokenStream) -> Option<proc_macro2::Span> {
    tokens.into_iter().find_map(|t| match t {
        proc_macro2::TokenTree::Punct(p) if p.as_char() == '$' => Some(p.span()),
        proc_macro2::TokenTree::Group(g) => dollar(g.stream()),
        _ => None,
    })
}

/// The helper entry of a traced function at `path` (from the interpreter's
/// module, where its residual form's shim calls it): called with `inline_call`,
/// its signature read from the definition. Parameters are `name: T`, `T`
/// and the result integers, `bool`, `f64` or GC handles (declared structs,
/// `Obj`, `Array<T>`; an error at the type otherwise).
pub fn helper(f: &syn::ItemFn, path: syn::Path, names: &Names) -> syn::Result<Helper> {
    let (mut args, mut arg_tys) = (Vec::new(), Vec::new());
    let method = crate::methods::receiver(f);
    for input in &f.sig.inputs {
        let pt = match (input, &method) {
            (syn::FnArg::Typed(pt), _) => pt,
            // A method's `self: Node` (see `methods.rs`): the handle.
            (syn::FnArg::Receiver(r), Some((ty, _))) => {
                let t: syn::Type = syn::parse_quote_spanned!(r.span()=> #ty);
                args.push(traced_ty(&t, names)?);
                arg_tys.push(t);
                continue;
            }
            (syn::FnArg::Receiver(r), None) => {
                return Err(syn::Error::new(r.span(), "a traced method takes `self`"))
            }
        };
        if !matches!(&*pt.pat, syn::Pat::Ident(_)) {
            return Err(syn::Error::new(
                pt.pat.span(),
                "a traced function's parameters are plain names (`x: i64`), not patterns",
            ));
        }
        args.push(match Ty::parse_with(&pt.ty, names) {
            Ok(t @ Ty::Slice { .. }) => t,
            _ => traced_ty(&pt.ty, names)?,
        });
        arg_tys.push((*pt.ty).clone());
    }
    let ret_ty = match &f.sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) => Some((**t).clone()),
    };
    let (ok, err) = match &ret_ty {
        Some(t) => match crate::ty::result_parts(t) {
            Some((ok, err)) => (Some(ok), Some(crate::ty::error_ty(err, names)?)),
            None => (Some(t), None),
        },
        None => (None, None),
    };
    let ret = match ok {
        Some(t) if !matches!(Ty::parse(t), Ok(Ty::Unit)) => Some(traced_ty(t, names)?),
        _ => None,
    };
    let (name, path) = match &method {
        Some((ty, _)) => {
            let m = &f.sig.ident;
            (crate::methods::fn_key(f), syn::parse_quote!(#ty::#m))
        }
        None => (f.sig.ident.clone(), path),
    };
    Ok(Helper {
        policy: Policy::Inline,
        path,
        name,
        method: method.map(|(ty, by_ref)| crate::attr::Method {
            ty,
            name: f.sig.ident.clone(),
            by_ref,
        }),
        args,
        arg_tys,
        ret,
        ret_ty,
        err,
        no_force: false,
    })
}

/// A parameter or result type of a traced function.
fn traced_ty(t: &syn::Type, names: &Names) -> syn::Result<Ty> {
    match Ty::parse_with(t, names) {
        Ok(ty) if ty.is_single() => Ok(ty),
        _ => Err(syn::Error::new(
            t.span(),
            "a traced function takes and returns integers, `bool`, `f64`, declared GC structs, \
             `Obj` and `Array<T>`, and takes slices `&[T]` / `&mut [T]` of integers, `bool` or \
             `f64` (other types: call it through a `dont_look_inside` helper)",
        )),
    }
}

/// The state the chain passes along.
pub struct Chain {
    pub attr: TokenStream,
    pub item: TokenStream,
    rest: Vec<syn::Path>,
    pub fns: Vec<syn::ItemFn>,
}

impl Parse for Chain {
    fn parse(input: ParseStream) -> syn::Result<Chain> {
        let group = |input: ParseStream| -> syn::Result<TokenStream> {
            let content;
            syn::braced!(content in input);
            content.parse()
        };
        let attr = group(input)?;
        let item = group(input)?;
        let content;
        syn::braced!(content in input);
        let rest = Punctuated::<syn::Path, Token![,]>::parse_terminated(&content)?;
        let mut fns = Vec::new();
        while !input.is_empty() {
            let content;
            syn::braced!(content in input);
            fns.push(content.parse()?);
        }
        Ok(Chain {
            attr,
            item,
            rest: rest.into_iter().collect(),
            fns,
        })
    }
}

/// The next step: the callback of the next listed function, or `None`
/// when every body has arrived.
pub fn step(c: &Chain) -> syn::Result<Option<TokenStream>> {
    let Some((next, rest)) = c.rest.split_first() else {
        return Ok(None);
    };
    let (attr, item, fns) = (&c.attr, &c.item, &c.fns);
    let state = quote!({ #attr } { #item } { #(#rest),* } #({ #fns })*);
    Ok(Some(quote!(#next! { #state })))
}

/// The first step, from `#[jit_interp]` with a `traced` list (the
/// declared `structs` tell methods from free functions). The chain visits
/// the callback macros' paths (`methods::callback_path`), whose names
/// carry the span of the listed name, so a function without `#[traced]`
/// is reported there (as a missing `__majit_traced_NAME` macro).
pub fn start(
    attr: TokenStream,
    item: TokenStream,
    paths: &[syn::Path],
    structs: &[String],
) -> syn::Result<TokenStream> {
    let macros = paths
        .iter()
        .map(|p| crate::methods::callback_path(p, structs))
        .collect::<syn::Result<Vec<_>>>()?;
    let (next, rest) = macros.split_first().expect("start is called with a list");
    Ok(quote!(#next! { { #attr } { #item } { #(#rest),* } }))
}
