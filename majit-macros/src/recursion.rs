//! Recursion of the interpreter function: a handler that calls the
//! interpreter itself (`let r = run(code, callee);`) runs a call of the
//! interpreted program on a new frame (issue #16).
//!
//! - Marking (`mark`): before anything else each such call, which must be
//!   a statement of its own (`let x = run(..);`, `x = run(..);` or
//!   `run(..);`), becomes `__majit_call!(k, run(..))`, so the lowering
//!   (`lower/recursion.rs`) and the expansions below find call `k` again.
//! - Jitcode: the call is an `inline_call` of the interpreter's *entry*
//!   function (its parameters, the setup before the dispatch loop, then an
//!   `inline_call` of the portal); see `majit_metainterp::portal`.
//! - Rust (`expand_calls`): the plain function calls itself, `NAME_jit`
//!   calls `NAME_jit` with the same driver. Around each call the handles
//!   of GC structs the caller holds (its GC reds and handler locals in
//!   scope) are rooted in the thread heap and reloaded after it, since the
//!   callee's safepoints may collect and move them (`lower/recursion.rs`
//!   lists them per call).
//! - The JIT's way back in (`jit_items`): `NAME_jit` runs the setup, then
//!   `NAME_jit_from`, the dispatch loop on the greens and reds as
//!   parameters, which starts with `JitDriver::enter_portal` (function-entry
//!   traces) and registers the portal runner: an `extern "C"` trampoline
//!   over `portal::call` and an adapter that turns greens and reds back
//!   into Rust values for `NAME_jit_from`.

use crate::emit::{self, EnterKind};
use crate::lower::StateVar;
use crate::ty::{Scalar, Ty};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// The marker name of a recursive call.
pub const MARKER: &str = "__majit_call";

/// A marked recursive call: `__majit_call!(index, call)`.
pub struct Marked {
    pub index: usize,
    pub call: syn::ExprCall,
}

impl Parse for Marked {
    fn parse(input: ParseStream) -> syn::Result<Marked> {
        let index: syn::LitInt = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let call: syn::ExprCall = input.parse()?;
        Ok(Marked {
            index: index.base10_parse()?,
            call,
        })
    }
}

/// A GC handle the caller holds across a recursive call: it is rooted
/// before the call and reloaded after it.
#[derive(Clone)]
pub struct Rooted {
    /// The place (`frame`, `heads[3]`).
    pub place: TokenStream,
    /// The handle's Rust type.
    pub rust: TokenStream,
    /// Reloaded by assignment (a red, or a local of an enclosing block);
    /// else by a `let` shadowing it (a local of the call's block).
    pub assign: bool,
}

/// Whether `e` calls the function `name` (by its name or a path ending
/// in it).
fn calls(e: &Expr, name: &syn::Ident) -> Option<syn::ExprCall> {
    match e {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.qself.is_none() && p.path.segments.last()?.ident == *name => {
                Some(c.clone())
            }
            _ => None,
        },
        _ => None,
    }
}

/// Marks the recursive calls of the interpreter `func` (see the module
/// docs) in its dispatch loop (statement `at` of the body); returns how
/// many there are. A call elsewhere, or not a statement of its own, is a
/// compile error at the call.
pub fn mark(func: &mut syn::ItemFn, at: usize) -> syn::Result<usize> {
    let name = func.sig.ident.clone();
    let mut m = Mark {
        name: &name,
        count: 0,
        error: None,
    };
    let stmts = &mut func.block.stmts;
    for (i, s) in stmts.iter_mut().enumerate() {
        if i == at {
            m.visit_stmt_mut(s);
        } else if let Some(c) = Find::first(s, &name) {
            return Err(syn::Error::new(
                c.span(),
                format!(
                    "`{name}` calls itself outside the dispatch loop: only handlers (inside \
                     `loop {{ jit_merge_point!(); .. }}`) may call the interpreter"
                ),
            ));
        }
    }
    match m.error {
        Some(e) => Err(e),
        None => Ok(m.count),
    }
}

/// The marking visitor.
struct Mark<'a> {
    name: &'a syn::Ident,
    count: usize,
    error: Option<syn::Error>,
}

impl Mark<'_> {
    /// Marks the call `c` (a statement's own call).
    fn marker(&mut self, c: &syn::ExprCall) -> Expr {
        let k = self.count;
        self.count += 1;
        let lit = syn::LitInt::new(&k.to_string(), c.span());
        let marker = format_ident!("{}", MARKER, span = c.span());
        syn::parse_quote_spanned!(c.span()=> #marker!(#lit, #c))
    }
}

impl VisitMut for Mark<'_> {
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        let own = match s {
            Stmt::Local(syn::Local {
                init: Some(init), ..
            }) if init.diverge.is_none() => Some(&mut *init.expr),
            Stmt::Expr(Expr::Assign(a), Some(_)) if matches!(&*a.left, Expr::Path(_)) => {
                Some(&mut *a.right)
            }
            Stmt::Expr(e @ Expr::Match(_), None) => Some(e),
            Stmt::Expr(e, Some(_)) => Some(e),
            _ => None,
        };
        if let Some(e) = own {
            // `run(..)`, `run(..)?`, or `match run(..) { .. }` (whose arms
            // are marked as usual).
            let (site, arms) = match e {
                Expr::Try(t) => (&mut *t.expr, None),
                Expr::Match(m) => (&mut *m.expr, Some(&mut m.arms)),
                e => (e, None),
            };
            if let Some(c) = calls(site, self.name) {
                if let Some(inner) = c.args.iter().find_map(|a| Find::first_expr(a, self.name)) {
                    self.fail(inner.span());
                }
                *site = self.marker(&c);
                for arm in arms.into_iter().flatten() {
                    self.visit_arm_mut(arm);
                }
                return;
            }
        }
        syn::visit_mut::visit_stmt_mut(self, s);
    }
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if calls(e, self.name).is_some() {
            self.fail(e.span());
            return;
        }
        // `match run(..) { .. }` as an expression (a match arm's body, as
        // rustfmt writes it): a block's statement of its own.
        if let Expr::Match(m) = e {
            if calls(&m.expr, self.name).is_some() {
                *e = syn::parse_quote_spanned!(m.span()=> { #m });
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Mark<'_> {
    fn fail(&mut self, at: proc_macro2::Span) {
        let name = self.name;
        self.error.get_or_insert_with(|| {
            syn::Error::new(
                at,
                format!(
                    "a call of the interpreter must be a statement of its own: `let x = \
                     {name}(..);`, `x = {name}(..);` or `{name}(..);` (the GC handles the caller \
                     holds are rooted around it)"
                ),
            )
        });
    }
}

/// Finds a call of a function named `name`.
struct Find<'a> {
    name: &'a syn::Ident,
    found: Option<syn::ExprCall>,
}

impl Find<'_> {
    fn first(s: &Stmt, name: &syn::Ident) -> Option<syn::ExprCall> {
        let mut f = Find { name, found: None };
        syn::visit::Visit::visit_stmt(&mut f, s);
        f.found
    }
    fn first_expr(e: &Expr, name: &syn::Ident) -> Option<syn::ExprCall> {
        let mut f = Find { name, found: None };
        syn::visit::Visit::visit_expr(&mut f, e);
        f.found
    }
}

impl syn::visit::Visit<'_> for Find<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        if self.found.is_none() {
            self.found = calls(e, self.name);
        }
        syn::visit::visit_expr(self, e);
    }
    fn visit_item(&mut self, _: &syn::Item) {}
}

/// How a marked call is expanded.
#[derive(Clone, Copy)]
pub enum CallIn {
    /// The plain function calls itself.
    Plain,
    /// The plain inner function (`plain_context`) calls itself with its
    /// context.
    PlainInner,
    /// `NAME_jit` calls `NAME_jit` with its driver; an error returns.
    Jit,
}

/// Replaces every marked call in `block` by the real call, with the
/// rooting of `roots` (per call index) when the interpreter has GC
/// structs (`heap`: the body holds `__majit_heap`).
pub fn expand_calls(block: &mut syn::Block, roots: &[Vec<Rooted>], kind: CallIn, heap: bool) {
    Expand { roots, kind, heap }.visit_block_mut(block);
}

struct Expand<'a> {
    roots: &'a [Vec<Rooted>],
    kind: CallIn,
    heap: bool,
}

impl Expand<'_> {
    /// The expression of statement `s` that holds its own marked call,
    /// if any (the call itself, `call?`, or a `match` on it).
    fn marked(s: &mut Stmt) -> Option<&mut Expr> {
        let e = match s {
            Stmt::Local(syn::Local {
                init: Some(init), ..
            }) => &mut *init.expr,
            Stmt::Expr(Expr::Assign(a), _) => &mut *a.right,
            Stmt::Expr(e, _) => e,
            _ => return None,
        };
        Self::site(e)?;
        Some(e)
    }

    /// The marked call in `e` (see [`Expand::marked`]).
    fn site(e: &mut Expr) -> Option<&mut Expr> {
        match e {
            Expr::Macro(m) if m.mac.path.is_ident(MARKER) => Some(e),
            Expr::Try(t) => Self::site(&mut t.expr),
            Expr::Match(m) => Self::site(&mut m.expr),
            _ => None,
        }
    }

    /// The real call of a marked one.
    fn call(&self, m: &Marked) -> Expr {
        let c = &m.call;
        match self.kind {
            CallIn::Plain => Expr::Call(c.clone()),
            CallIn::PlainInner => {
                let mut c = c.clone();
                if let Expr::Path(p) = &mut *c.func {
                    if let Some(last) = p.path.segments.last_mut() {
                        last.ident = inner_name(&last.ident);
                    }
                }
                c.args.insert(0, syn::parse_quote!(__majit_ctx));
                Expr::Call(c)
            }
            CallIn::Jit => {
                let mut c = c.clone();
                if let Expr::Path(p) = &mut *c.func {
                    if let Some(last) = p.path.segments.last_mut() {
                        last.ident = format_ident!("{}_jit_call", last.ident);
                    }
                }
                c.args.insert(0, syn::parse_quote!(__majit_driver));
                syn::parse_quote!(#c?)
            }
        }
    }

    /// The statements of marked call `s`: rooting, the call, reloading.
    fn expand(&self, mut s: Stmt) -> Vec<Stmt> {
        let Some(e) = Self::marked(&mut s) else {
            return vec![s];
        };
        let Some(site) = Self::site(e) else {
            return vec![s];
        };
        let Expr::Macro(mac) = &*site else {
            return vec![s];
        };
        let Ok(m) = mac.mac.parse_body::<Marked>() else {
            return vec![s];
        };
        *site = self.call(&m);
        let roots = self.roots.get(m.index).map_or(&[][..], |r| &r[..]);
        if roots.is_empty() || !self.heap {
            return vec![s];
        }
        let (n, w) = (roots.len(), 1 + roots.len().div_ceil(64));
        let raw = roots.iter().map(|r| {
            let p = &r.place;
            quote!(#p.to_raw())
        });
        let th = quote!(::majit::gc::thread_heap);
        let mut out: Vec<Stmt> = vec![
            syn::parse_quote!(let mut __majit_roots = #th::RootFrame::new([#(#raw),*], {
                static MAP: #th::RootMap<#n, #w> = #th::RootMap::new();
                &MAP
            });),
            syn::parse_quote!(let __majit_rooted = __majit_heap.link(&mut __majit_roots);),
        ];
        match e {
            // The arms run before the statement ends: each reloads first.
            Expr::Match(mm) => {
                for arm in &mut mm.arms {
                    let reload = reload(roots);
                    let body = &arm.body;
                    *arm.body = syn::parse_quote!({
                        __majit_rooted.release();
                        #(#reload)*
                        #body
                    });
                }
                out.push(s);
                // `let`-bound handles leave with the arms' scopes.
                let lets = roots.iter().enumerate().filter(|(_, r)| !r.assign);
                out.extend(lets.map(|(i, r)| rebind(i, r)));
            }
            _ => {
                out.push(s);
                out.push(syn::parse_quote!(__majit_rooted.release();));
                out.extend(reload(roots));
            }
        }
        out
    }
}

/// The statements reloading the rooted handles `roots` from
/// `__majit_roots`' slots (reassigned, or bound again when `let`-bound).
fn reload(roots: &[Rooted]) -> Vec<Stmt> {
    roots
        .iter()
        .enumerate()
        .map(|(i, r)| match r.assign {
            true => {
                let (p, t) = (&r.place, &r.rust);
                syn::parse_quote!(#p = <#t>::from_raw(__majit_roots.slots[#i]);)
            }
            false => rebind(i, r),
        })
        .collect()
}

/// `let mut PLACE = <T>::from_raw(__majit_roots.slots[i]);`
fn rebind(i: usize, r: &Rooted) -> Stmt {
    let (p, t) = (&r.place, &r.rust);
    syn::parse_quote! {
        #[allow(unused_variables, unused_mut)]
        let mut #p = <#t>::from_raw(__majit_roots.slots[#i]);
    }
}

impl VisitMut for Expand<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let stmts = std::mem::take(&mut b.stmts);
        b.stmts = stmts.into_iter().flat_map(|s| self.expand(s)).collect();
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The Rust type of a GC handle of type `ty` (`structs`: the declared
/// struct names).
pub fn handle_rust(ty: Ty, structs: &[String]) -> TokenStream {
    match ty {
        Ty::Gc(i) => {
            let n = format_ident!("{}", structs[usize::from(i)]);
            quote!(#n)
        }
        Ty::Obj => quote!(::majit::gc::Obj),
        Ty::GcArray(item) => {
            let item = item.rust(structs);
            quote!(::majit::gc::Array<#item>)
        }
        _ => quote!(()),
    }
}

/// What the JIT items of a recursive interpreter need.
pub struct JitItems<'a> {
    pub func: &'a syn::ItemFn,
    /// The dispatch loop's statement index.
    pub at: usize,
    pub state: &'a [StateVar],
    pub returns: emit::Returns,
    /// The rooted handles per call.
    pub roots: &'a [Vec<Rooted>],
    /// The merge point's safepoint, if the interpreter has GC structs.
    pub safepoint: Option<TokenStream>,
    pub structs: &'a [crate::lower::StructDef],
}

/// `NAME_jit`, `NAME_jit_from`, the adapter and the trampoline of a
/// recursive interpreter (see the module docs).
pub fn jit_items(j: &JitItems) -> TokenStream {
    let name = &j.func.sig.ident;
    let from = format_ident!("{}_jit_from", name);
    let args = j.state.iter().map(|s| &s.name);
    let setup = &j.func.block.stmts[..j.at];
    let call = format_ident!("{}_jit_call", name);
    let mut entry = j.func.clone();
    entry.sig.ident = call.clone();
    entry.block = syn::parse_quote!({ #(#setup)* });
    // The setup's `let mut`s are only handed on.
    entry.attrs.push(syn::parse_quote!(#[allow(unused_mut)]));
    emit::JitBody {
        glue: quote!(),
        safepoint: None,
        fallible: j.returns.err.is_some(),
    }
    .visit_block_mut(&mut entry.block);
    // After the rewrite: this `?` passes on the run's `JitError`.
    let tail: Expr = syn::parse_quote!(#from(__majit_driver, #(#args),*)?);
    entry.block.stmts.push(Stmt::Expr(tail, None));
    let entry = crate::jit_signature(entry, j.func, quote!(&));
    let public = public_entry(j.func, &call);
    let from_fn = from_fn(j, &from);
    let adapter = adapter(j, &from);
    let trampoline = trampoline(name, j.state, j.returns.ok.0);
    quote!(#public #[doc(hidden)] #entry #from_fn #adapter #trampoline)
}

/// `NAME_jit`, taking the driver by `&mut` as for every interpreter: it
/// runs `call` (`NAME_jit_call`), which the interpreter's calls of itself
/// call with the shared driver.
fn public_entry(func: &syn::ItemFn, call: &syn::Ident) -> TokenStream {
    let mut f = func.clone();
    let mut args = Vec::new();
    for input in &mut f.sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            if let syn::Pat::Ident(i) = &mut *pt.pat {
                i.mutability = None;
                args.push(i.ident.clone());
            }
        }
    }
    f.sig.ident = format_ident!("{}_jit", func.sig.ident);
    f.block = syn::parse_quote!({ #call(__majit_driver, #(#args),*) });
    let r = crate::return_tokens(func);
    let m = quote!(::majit::metainterp);
    f.sig.generics = syn::parse_quote!(<__B: #m::Backend>);
    f.sig.inputs.insert(
        0,
        syn::parse_quote!(__majit_driver: &mut #m::driver::JitDriver<__B>),
    );
    f.sig.output = syn::parse_quote!(-> ::core::result::Result<#r, #m::driver::JitError>);
    let doc = format!(
        "`{}` with the JIT (generated by `#[jit_interp]`): the driver traces and runs \
         compiled code at every `can_enter_jit!()` and at the first merge point of every call \
         of the interpreter (function-entry traces); calls of the interpreted program run on \
         the same driver. What the plain function would panic with is \
         `Err(JitError::Panic)`.",
        func.sig.ident
    );
    f.attrs.retain(|a| !a.path().is_ident("doc"));
    quote!(#[doc = #doc] #f)
}

/// `NAME_jit_from`: the dispatch loop from a merge point's state.
fn from_fn(j: &JitItems, from: &syn::Ident) -> TokenStream {
    let name = &j.func.sig.ident;
    let Stmt::Expr(Expr::Loop(dispatch), _) = &j.func.block.stmts[j.at] else {
        unreachable!("find_loop returns a loop")
    };
    let mut dispatch = dispatch.clone();
    let label = dispatch
        .label
        .get_or_insert_with(|| syn::parse_quote!('__majit_dispatch:))
        .name
        .clone();
    let mutable: Vec<String> = j.state.iter().map(|s| s.name.to_string()).collect();
    let glue = emit::glue(
        j.state,
        &mutable,
        j.returns.clone(),
        &label,
        EnterKind::BackEdge,
    );
    let mut block: syn::Block = syn::parse_quote!({ #dispatch });
    emit::JitBody {
        glue,
        safepoint: j.safepoint.clone(),
        fallible: j.returns.err.is_some(),
    }
    .visit_block_mut(&mut block);
    expand_calls(&mut block, j.roots, CallIn::Jit, !j.structs.is_empty());
    let enter = emit::glue(
        j.state,
        &mutable,
        j.returns.clone(),
        &label,
        EnterKind::Entry,
    );
    block.stmts.insert(0, syn::parse_quote!(#enter));
    emit::fast_heap(&mut block, j.structs, emit::HeapFrom::ThreadForJit);
    let params = j.state.iter().map(|s| {
        let (n, t) = (&s.name, &s.rust_ty);
        quote!(mut #n: #t)
    });
    let runner = format_ident!("__majit_run_from_{}", name);
    let tramp = format_ident!("__majit_portal_{}", name);
    let result = result_kind(j.returns.ok.0);
    let r = crate::return_tokens(j.func);
    let m = quote!(::majit::metainterp);
    let place = format!("`{name}_jit` while interpreting");
    let vis = &j.func.vis;
    quote! {
        #[doc(hidden)]
        #[allow(unused_mut, unreachable_code, clippy::too_many_arguments)]
        #vis fn #from<__B: #m::Backend>(
            __majit_driver: &#m::driver::JitDriver<__B>,
            #(#params),*
        ) -> ::core::result::Result<#r, #m::driver::JitError> {
            __majit_driver.set_portal_runner(#m::portal::PortalRunner {
                trampoline: #tramp as *const () as usize,
                result: #result,
                run: #runner::<__B>,
            });
            let __majit_run = ::std::panic::AssertUnwindSafe(
                || -> ::core::result::Result<#r, #m::driver::JitError> {
                    ::core::result::Result::Ok(#block)
                },
            );
            match ::std::panic::catch_unwind(__majit_run) {
                ::core::result::Result::Ok(r) => r,
                ::core::result::Result::Err(p) => ::core::result::Result::Err(
                    #m::driver::JitError::Panic {
                        place: #place.into(),
                        message: #m::runtime::panic_message(&*p),
                    },
                ),
            }
        }
    }
}

/// The portal's result kind.
fn result_kind(ret: Ty) -> TokenStream {
    match ret {
        Ty::Scalar(Scalar::F64) => quote!(::majit::ir::ResultKind::Float),
        Ty::Scalar(_) => quote!(::majit::ir::ResultKind::Int),
        _ => quote!(::majit::ir::ResultKind::Void),
    }
}

/// The Rust value of state variable `s` from the `Value`s at `vals[at..]`
/// (a slice is its data pointer and length).
fn from_values(s: &StateVar, vals: &TokenStream, at: usize) -> TokenStream {
    match (s.ty, &s.rust_ty) {
        (Ty::Slice { .. }, syn::Type::Reference(r)) => {
            let syn::Type::Slice(elem) = &*r.elem else {
                return quote!(());
            };
            let t = &elem.elem;
            let (p, n) = (quote!(#vals[#at]), at + 1);
            quote! {{
                let p = #p.as_ref().unwrap_or(0) as *const #t;
                let n = #vals[#n].as_int().unwrap_or(0) as usize;
                // SAFETY: the data pointer and length of a live slice the
                // caller holds (a green of the calling run, which waits
                // in the call).
                unsafe { ::core::slice::from_raw_parts(p, n) }
            }}
        }
        (Ty::Array { item, len }, syn::Type::Array(a)) => {
            let t = &a.elem;
            let items = (0..usize::from(len)).map(|k| {
                let i = at + k;
                item.ty()
                    .value_to_rust(&quote!(#vals[#i]), &t.to_token_stream())
            });
            quote!([#(#items),*])
        }
        (ty, rt) => ty.value_to_rust(&quote!(#vals[#at]), &rt.to_token_stream()),
    }
}

/// The adapter the runner calls: `NAME_jit_from` on greens and reds.
fn adapter(j: &JitItems, from: &syn::Ident) -> TokenStream {
    let name = &j.func.sig.ident;
    let runner = format_ident!("__majit_run_from_{}", name);
    let (mut g_at, mut r_at) = (0, 0);
    let args = j.state.iter().map(|s| {
        let n = s.ty.to_values(&quote!(x)).len();
        let (vals, at) = match s.green {
            true => (quote!(g), &mut g_at),
            false => (quote!(r), &mut r_at),
        };
        let v = from_values(s, &vals, *at);
        *at += n;
        v
    });
    let args: Vec<TokenStream> = args.collect();
    let value = match j.returns.ok.0 {
        Ty::Unit => quote!(::core::option::Option::None),
        ty => ty
            .to_values(&quote!(v))
            .into_iter()
            .next()
            .map_or(quote!(None), |v| quote!(::core::option::Option::Some(#v))),
    };
    let m = quote!(::majit::metainterp);
    // The callee's `Err(e)` is raised in its caller (`runtime::raise`).
    let unwrap = match &j.returns.err {
        Some((e, _)) => {
            let raise = match e.is_ref() {
                true => quote!(#m::runtime::raise(e.to_raw())),
                false => quote!(#m::runtime::raise_int(e as i64)),
            };
            quote! {
                let v = match v {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => {
                        #raise;
                        return ::core::result::Result::Ok(::core::option::Option::None);
                    }
                };
            }
        }
        None => quote!(),
    };
    quote! {
        #[doc(hidden)]
        #[allow(unused_variables, clippy::unit_arg)]
        fn #runner<__B: #m::Backend>(
            d: &#m::driver::JitDriver<__B>,
            g: &[::majit::ir::Value],
            r: &[::majit::ir::Value],
        ) -> ::core::result::Result<
            ::core::option::Option<::majit::ir::Value>,
            #m::driver::JitError,
        > {
            let v = #from(d, #(#args),*)?;
            #unwrap
            ::core::result::Result::Ok(#value)
        }
    }
}

/// The `extern "C"` portal runner trampoline: the call target's token
/// (`call_assembler_*`), greens and reds in, the portal's result out,
/// through `portal::call`.
fn trampoline(name: &syn::Ident, state: &[StateVar], ret: Ty) -> TokenStream {
    let tramp = format_ident!("__majit_portal_{}", name);
    let v = quote!(::majit::ir::Value);
    let mut params = vec![quote!(__majit_token: i64)];
    let (mut g, mut r) = (Vec::new(), Vec::new());
    for s in state {
        let kinds = value_kinds(s.ty);
        for k in kinds {
            let a = format_ident!("a{}", params.len());
            let (ty, val) = match k {
                'f' => (quote!(f64), quote!(#v::Float(#a))),
                'r' => (quote!(i64), quote!(#v::Ref(#a as usize))),
                _ => (quote!(i64), quote!(#v::Int(#a))),
            };
            params.push(quote!(#a: #ty));
            if s.green {
                g.push(val)
            } else {
                r.push(val)
            }
        }
    }
    let call = quote!(::majit::metainterp::portal::call(__majit_token, &[#(#g),*], &[#(#r),*]));
    let (out, body) = match ret {
        Ty::Scalar(Scalar::F64) => (
            quote!(-> f64),
            quote!(#call.and_then(|v| v.as_float()).unwrap_or(0.0)),
        ),
        Ty::Scalar(_) => (
            quote!(-> i64),
            quote!(#call.and_then(|v| v.as_int()).unwrap_or(0)),
        ),
        _ => (quote!(), quote!(let _ = #call;)),
    };
    quote! {
        #[doc(hidden)]
        extern "C" fn #tramp(#(#params),*) #out {
            #body
        }
    }
}

/// The kinds (`i`, `r`, `f`) of the `Value`s of a state variable of type
/// `ty`, in order.
pub fn value_kinds(ty: Ty) -> Vec<char> {
    let one = |t: Ty| match t {
        t if t.is_ref() => 'r',
        Ty::Scalar(Scalar::F64) => 'f',
        _ => 'i',
    };
    match ty {
        Ty::Slice { .. } => vec!['r', 'i'],
        Ty::Array { item, len } => vec![one(item.ty()); usize::from(len)],
        t => vec![one(t)],
    }
}

/// The parameters of a recursive interpreter `func` (the arguments of its
/// calls) by name and type, after checking its state (`check_state`).
pub fn params(
    func: &syn::ItemFn,
    state: &[StateVar],
    names: &crate::ty::Names,
) -> syn::Result<Vec<(String, Ty)>> {
    check_state(func, state)?;
    let mut out = Vec::new();
    for input in &func.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return Err(syn::Error::new(input.span(), "not a free function"));
        };
        let (syn::Pat::Ident(i), t) = (&*pt.pat, Ty::parse_with(&pt.ty, names)?) else {
            return Err(syn::Error::new(pt.pat.span(), "a parameter is `name: T`"));
        };
        match t {
            Ty::Slice { mutable: false, .. } => {}
            t if t.is_single() => {}
            _ => {
                return Err(syn::Error::new(
                    pt.ty.span(),
                    "a recursive interpreter's parameters are integers, `bool`, `f64`, GC \
                     handles or `&[T]` slices (the arguments of its calls)",
                ))
            }
        }
        out.push((i.ident.to_string(), t));
    }
    Ok(out)
}

/// Checks that a recursive interpreter's state fits the portal runner:
/// no `&mut` slices (a callee would alias them), and at most as many
/// values as a call passes after the runner's token (15 integer or
/// reference, 8 `f64`).
pub fn check_state(func: &syn::ItemFn, state: &[StateVar]) -> syn::Result<()> {
    for s in state {
        if let Ty::Slice { mutable: true, .. } = s.ty {
            return Err(syn::Error::new(
                s.name.span(),
                format!(
                    "`{}` is a `&mut` slice, which the calls of a recursive interpreter would \
                     share: use a GC array (`Array<T>`) in a red",
                    s.name
                ),
            ));
        }
    }
    let kinds: Vec<char> = state.iter().flat_map(|s| value_kinds(s.ty)).collect();
    let floats = kinds.iter().filter(|&&k| k == 'f').count();
    if floats > 8 || kinds.len() - floats > 15 {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            format!(
                "a recursive interpreter passes its greens and reds to a call of the \
                 interpreted program: at most 15 integer or reference and 8 `f64` values, \
                 these are {} and {floats}",
                kinds.len() - floats
            ),
        ));
    }
    Ok(())
}

/// The inner function of recursive interpreter `name` (`plain_context`).
fn inner_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("__majit_{}_in", name)
}

/// Splits the plain function `plain` of a recursive interpreter with GC
/// structs (its recursive calls expanded with [`CallIn::PlainInner`]) in
/// two, so that a call of the interpreted program does not look the heap
/// up again: `NAME` looks it up once into a context (the `RunHeap` and the
/// structs' lazy bumps) and calls the inner function, which takes the
/// context first and passes it on to its recursive calls.
pub fn plain_context(plain: &syn::ItemFn, structs: &[crate::lower::StructDef]) -> TokenStream {
    let name = &plain.sig.ident;
    let (inner, ctx) = (inner_name(name), format_ident!("__MajitCtx_{}", name));
    let heap = quote!(::majit::gc::thread_heap);
    let locals: Vec<syn::Ident> = structs.iter().map(|s| emit::bump_local(&s.name)).collect();
    let tys = structs.iter().map(|s| format_ident!("{}", s.name));
    let mut inner_fn = plain.clone();
    inner_fn.sig.ident = inner.clone();
    inner_fn.vis = syn::Visibility::Inherited;
    inner_fn.attrs.retain(|a| !a.path().is_ident("doc"));
    inner_fn
        .sig
        .inputs
        .insert(0, syn::parse_quote!(__majit_ctx: &#ctx<'_>));
    let mut outer = plain.clone();
    let mut args = Vec::new();
    for (i, input) in outer.sig.inputs.iter_mut().enumerate() {
        if let syn::FnArg::Typed(t) = input {
            let arg = format_ident!("__majit_arg{}", i);
            *t.pat = syn::parse_quote!(#arg);
            args.push(arg);
        }
    }
    outer.block = syn::parse_quote!({
        let __majit_heap = #heap::RunHeap::current_or_exit();
        let __majit_ctx = #ctx {
            heap: &__majit_heap,
            #(#locals: __majit_heap.lazy_bump(#tys::__majit_type()),)*
        };
        #inner(&__majit_ctx, #(#args),*)
    });
    quote! {
        /// The thread heap and the structs' inline allocators, looked up
        /// once per outermost call (`plain_context` in majit-macros).
        #[allow(non_camel_case_types)]
        #[doc(hidden)]
        struct #ctx<'h> {
            heap: &'h #heap::RunHeap,
            #(#locals: #heap::LazyBump<'h>,)*
        }
        #outer
        #[allow(clippy::too_many_arguments)]
        #inner_fn
    }
}
