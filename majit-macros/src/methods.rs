//! Traced methods: `#[majit::traced]` on an inherent `impl` block of a
//! declared GC struct's handle makes each of its methods (`self`, `mut
//! self` or `&self`) one an interpreter may trace through, listed as
//! `traced = [path::Node::sum]` and called as `x.sum(..)` or
//! `Node::sum(x, ..)`.
//!
//! An attribute on a method inside an `impl` can only expand to
//! associated items, and the chain of `traced.rs` needs a module-level
//! callback macro per function, so the attribute goes on the `impl`
//! block, which emits beside itself `__majit_traced_Node_sum` for each
//! method. The body it hands on is the method as a function whose first
//! parameter is `self: Node` (or `self: &Node`), so the chain carries
//! `ItemFn`s only. Its const table is an associated function of the
//! `impl` (`Node::__majit_consts_sum`), where `Self::K` and the module's
//! paths resolve as in the method.
//!
//! The JIT passes a handle in a register, so only handles of declared GC
//! structs can be receivers: listing a method of another type is an error
//! at the type's name ([`callback_path`]).
//!
//! Invariant: a traced method's helper name (its jitcode function, shims
//! and descrs) is its [`key`] `Node_sum`, distinct from every free
//! function's name and other types' methods.

use crate::traced::{callback, const_paths, consts_fn, dollar};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// `#[traced]` on `imp`: the `impl` (field syntax rewritten, a const
/// table per method) and a callback macro per method.
pub fn impl_attribute(mut imp: syn::ItemImpl) -> syn::Result<TokenStream> {
    if let Some((_, t, _)) = &imp.trait_ {
        return Err(syn::Error::new(
            t.span(),
            "#[majit::traced] goes on an inherent `impl` (`impl Node { .. }`), not a trait impl",
        ));
    }
    if !imp.generics.params.is_empty() {
        return Err(syn::Error::new(
            imp.generics.span(),
            "a traced `impl` cannot be generic: it is lowered to jitcode like a handler",
        ));
    }
    let ty = self_ident(&imp.self_ty)?;
    let (mut consts, mut macros) = (Vec::new(), Vec::new());
    for item in &mut imp.items {
        let syn::ImplItem::Fn(m) = item else { continue };
        if !matches!(m.sig.inputs.first(), Some(syn::FnArg::Receiver(_))) {
            continue; // an associated function: not a method, left alone
        }
        crate::fields::FieldSyntax { fields: None }.visit_block_mut(&mut m.block);
        let f = as_function(m, &ty)?;
        crate::traced::check_signature(&f.sig)?;
        if let Some(sp) = dollar(quote!(#f)) {
            return Err(syn::Error::new(
                sp,
                "a traced method cannot contain `$` (a nested `macro_rules!`): move it out",
            ));
        }
        let paths = const_paths(&f);
        if !paths.is_empty() {
            let (c, n) = (consts_fn(&m.sig.ident), paths.len());
            consts.push(quote! {
                #[doc(hidden)]
                #[allow(dead_code, clippy::unnecessary_cast)]
                pub(crate) fn #c() -> [i64; #n] {
                    [#((#paths) as i64),*]
                }
            });
        }
        let mac = callback(&key(&ty, &m.sig.ident));
        macros.push(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case)]
            macro_rules! #mac {
                ($($state:tt)*) => { ::majit::__jit_interp_chain! { $($state)* { #f } } };
            }
            #[doc(hidden)]
            #[allow(unused_imports)]
            pub(crate) use #mac;
        });
    }
    let self_ty = &imp.self_ty;
    let extra = (!consts.is_empty()).then(|| quote!(impl #self_ty { #(#consts)* }));
    Ok(quote!(#imp #extra #(#macros)*))
}

/// The name of the `impl`'s type (the last segment of its path).
fn self_ident(t: &syn::Type) -> syn::Result<syn::Ident> {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().expect("a path has a segment");
            if last.arguments.is_none() {
                return Ok(last.ident.clone());
            }
            Err(syn::Error::new(
                last.arguments.span(),
                "a traced `impl` is of a GC struct's handle, which has no generic arguments",
            ))
        }
        _ => Err(syn::Error::new(
            t.span(),
            "a traced `impl` is of a GC struct's handle (`impl Node { .. }`)",
        )),
    }
}

/// The method `m` of `ty` as the function the chain carries: its
/// receiver written `self: ty` or `self: &ty`.
fn as_function(m: &syn::ImplItemFn, ty: &syn::Ident) -> syn::Result<syn::ItemFn> {
    let mut sig = m.sig.clone();
    let Some(syn::FnArg::Receiver(r)) = sig.inputs.first() else {
        unreachable!("called for methods")
    };
    let bad = |msg: &str| Err(syn::Error::new(r.span(), msg));
    if r.colon_token.is_some() {
        return bad("a traced method takes `self` or `&self` (a GC handle), not a typed `self`");
    }
    let recv: syn::FnArg = match (&r.reference, &r.mutability) {
        (None, m) => syn::parse_quote!(#m self: #ty),
        (Some(_), None) => syn::parse_quote!(self: &#ty),
        (Some(_), Some(_)) => {
            return bad(
                "a traced method takes `self` or `&self`: a GC handle is `Copy`, and writing \
                 its fields needs no `&mut`",
            )
        }
    };
    sig.inputs[0] = recv;
    Ok(syn::ItemFn {
        attrs: m.attrs.clone(),
        vis: m.vis.clone(),
        sig,
        block: Box::new(m.block.clone()),
    })
}

/// The helper name of the method `name` of `ty`: `Node_sum`.
pub fn key(ty: &syn::Ident, name: &syn::Ident) -> syn::Ident {
    format_ident!("{}_{}", ty, name, span = name.span())
}

/// A traced method's type (the struct name, as the interpreter's module
/// names it) and whether it takes `&self`; `None` for a free function.
pub fn receiver(f: &syn::ItemFn) -> Option<(syn::Ident, bool)> {
    let Some(syn::FnArg::Receiver(r)) = f.sig.inputs.first() else {
        return None;
    };
    let (by_ref, t) = match &*r.ty {
        syn::Type::Reference(t) => (true, &*t.elem),
        t => (false, t),
    };
    match t {
        syn::Type::Path(p) => p.path.get_ident().map(|id| (id.clone(), by_ref)),
        _ => None,
    }
}

/// The helper name of the traced function or method `f`.
pub fn fn_key(f: &syn::ItemFn) -> syn::Ident {
    match receiver(f) {
        Some((ty, _)) => key(&ty, &f.sig.ident),
        None => f.sig.ident.clone(),
    }
}

/// The path of the callback macro of a listed traced function `path`,
/// from the interpreter's module: `a::__majit_traced_f` for `a::f`, and
/// `a::__majit_traced_Node_sum` for the method `a::Node::sum` of a
/// declared struct (`structs`). A capitalized segment before the last
/// names a type: one that is not a declared struct is an error there.
pub fn callback_path(path: &syn::Path, structs: &[String]) -> syn::Result<syn::Path> {
    let mut p = path.clone();
    let n = p.segments.len();
    if let Some(seg) = p.segments.iter().find(|s| !s.arguments.is_none()) {
        return Err(syn::Error::new(
            seg.arguments.span(),
            "a traced function is listed by its path, without generic arguments",
        ));
    }
    let ty = (n >= 2).then(|| p.segments[n - 2].ident.clone());
    let Some(ty) = ty.filter(|t| t.to_string().starts_with(|c: char| c.is_ascii_uppercase()))
    else {
        let last = p.segments.last_mut().expect("a path has a segment");
        last.ident = callback(&last.ident);
        return Ok(p);
    };
    if !structs.iter().any(|s| ty == s) {
        return Err(syn::Error::new(
            ty.span(),
            format!(
                "`{ty}` is not a declared GC struct: traced methods are methods of the handles \
                 of structs declared in `structs = [..]` (the JIT passes no other `self`); make \
                 the method a free function taking its values"
            ),
        ));
    }
    let name = p
        .segments
        .last()
        .expect("a path has a segment")
        .ident
        .clone();
    let mac = callback(&key(&ty, &name));
    let mut segs: Vec<syn::PathSegment> = p.segments.into_iter().take(n - 2).collect();
    segs.push(mac.into());
    p.segments = segs.into_iter().collect();
    Ok(p)
}

/// The path of a traced method's const table, from the interpreter's
/// module (the struct is declared there).
pub fn consts_path(ty: &syn::Ident, name: &syn::Ident) -> TokenStream {
    let f = consts_fn(name);
    quote!(#ty::#f)
}
