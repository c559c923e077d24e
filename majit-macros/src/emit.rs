//! What `#[jit_interp]` emits besides the lowered jitcode: the plain
//! function, the JIT entry point and the `extern "C"` shims.
//!
//! The plain function is the user's, with the `jit_merge_point!()` and
//! `can_enter_jit!()` statements removed. The JIT entry `NAME_jit` is the
//! same body taking a `JitDriver` first and returning
//! `Result<R, JitError>`: every `return x` becomes `return Ok(x)`, and each
//! `can_enter_jit!()` becomes a call of `JitDriver::can_enter_jit` with the
//! greens and reds as `Value` arrays; on `Continue` the mutable greens and
//! reds are reloaded and the dispatch loop continues, on `Finished` the
//! function returns the portal's result. The jitcode builder
//! `NAME_jitcode` holds the shims the jitcode calls.

use crate::attr::{FieldMark, Helper, Policy, StructDecl};
use crate::lower::{Lowered, StateVar, StructDef};
use crate::regs::Bank;
use crate::ty::{Scalar, Ty};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use std::collections::BTreeSet;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// Whether `s` is the statement `name!(...)`.
pub fn is_macro_stmt(s: &Stmt, name: &str) -> bool {
    match s {
        Stmt::Macro(m) => m.mac.path.is_ident(name),
        Stmt::Expr(Expr::Macro(m), _) => m.mac.path.is_ident(name),
        _ => false,
    }
}

/// Removes `can_enter_jit!()` and replaces `jit_merge_point!()` by the
/// safepoint, if any (the plain interpreter).
pub struct StripMarkers {
    pub safepoint: Option<TokenStream>,
}

impl VisitMut for StripMarkers {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        b.stmts.retain(|s| {
            !is_macro_stmt(s, "can_enter_jit")
                && (self.safepoint.is_some() || !is_macro_stmt(s, "jit_merge_point"))
        });
        syn::visit_mut::visit_block_mut(self, b);
        replace_merge_point(b, &self.safepoint);
    }
}

/// Replaces a `jit_merge_point!()` statement of `b` by `safepoint`.
fn replace_merge_point(b: &mut syn::Block, safepoint: &Option<TokenStream>) {
    let Some(sp) = safepoint else { return };
    for s in &mut b.stmts {
        if is_macro_stmt(s, "jit_merge_point") {
            *s = syn::parse_quote!(#sp);
        }
    }
}

/// Rewrites the body for the JIT entry point.
pub struct JitBody {
    /// `can_enter_jit!()` replaced by this block.
    pub glue: TokenStream,
    /// `jit_merge_point!()` replaced by this block (removed if `None`).
    pub safepoint: Option<TokenStream>,
    /// The interpreter returns `Result<T, E>`: `e?` becomes a `match`
    /// returning `Ok(Err(e))` (`?` itself would convert `E` into the
    /// entry's `JitError`).
    pub fallible: bool,
}

impl VisitMut for JitBody {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        // Children first, so the glue's own `return`s stay as written.
        syn::visit_mut::visit_block_mut(self, b);
        if self.safepoint.is_none() {
            b.stmts.retain(|s| !is_macro_stmt(s, "jit_merge_point"));
        }
        replace_merge_point(b, &self.safepoint);
        for s in &mut b.stmts {
            if is_macro_stmt(s, "can_enter_jit") {
                let glue = &self.glue;
                *s = syn::parse_quote!(#glue);
            }
        }
    }
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => {}
            Expr::Try(t) if self.fallible => {
                let inner = &t.expr;
                *e = syn::parse_quote!(match #inner {
                    ::core::result::Result::Ok(__majit_v) => __majit_v,
                    ::core::result::Result::Err(__majit_e) => return ::core::result::Result::Err(
                        ::core::convert::From::from(__majit_e)),
                });
                self.visit_expr_mut(e);
            }
            Expr::Return(r) => {
                if let Some(v) = &mut r.expr {
                    self.visit_expr_mut(v);
                }
                let v = r.expr.take().map_or(quote!(()), |v| quote!(#v));
                r.expr = Some(Box::new(syn::parse_quote!(::core::result::Result::Ok(#v))));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Where the driver is called from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum EnterKind {
    /// `can_enter_jit!()`: on `Continue` the dispatch loop continues.
    BackEdge,
    /// The first merge point of `NAME_jit_from` (a recursive interpreter):
    /// `JitDriver::enter_portal`, and on `Continue` the loop starts.
    Entry,
}

/// What the interpreter returns: `T` (its type and Rust type), and for
/// `Result<T, E>` also `E`.
#[derive(Clone)]
pub struct Returns {
    pub ok: (Ty, TokenStream),
    pub err: Option<(Ty, TokenStream)>,
}

/// The `can_enter_jit!()` glue for the JIT entry point (or, `kind`, the
/// function-entry glue of a recursive interpreter).
pub fn glue(
    state: &[StateVar],
    mutable: &[String],
    returns: Returns,
    label: &syn::Lifetime,
    kind: EnterKind,
) -> TokenStream {
    let (ret, ret_rust) = returns.ok;
    let (mut g, mut r, mut reload) = (Vec::new(), Vec::new(), Vec::new());
    for sv in state {
        let name = &sv.name;
        let list = if sv.green { &mut g } else { &mut r };
        let at = list.len();
        list.extend(sv.ty.to_values(&quote!(#name)));
        if !mutable.contains(&name.to_string()) {
            continue;
        }
        let arr = if sv.green {
            quote!(__majit_g)
        } else {
            quote!(__majit_r)
        };
        match (sv.ty, &sv.rust_ty) {
            (t, rt) if t.is_single() => {
                let v = sv.ty.value_to_rust(&quote!(#arr[#at]), &quote!(#rt));
                reload.push(quote!(#name = #v;));
            }
            (Ty::Array { item, len }, syn::Type::Array(a)) => {
                let rt = &a.elem;
                for k in 0..usize::from(len) {
                    let i = at + k;
                    let v = item.ty().value_to_rust(&quote!(#arr[#i]), &quote!(#rt));
                    reload.push(quote!(#name[#k] = #v;));
                }
            }
            _ => {}
        }
    }
    let (ng, nr) = (g.len(), r.len());
    let (enter, next) = match kind {
        EnterKind::BackEdge => (quote!(can_enter_jit), quote!(continue #label;)),
        EnterKind::Entry => (quote!(enter_portal), quote!()),
    };
    let finished = match ret {
        Ty::Scalar(_) => {
            let v = ret.value_to_rust(&quote!(v), &ret_rust);
            quote!(match __majit_v {
                ::core::option::Option::Some(v) => ::core::result::Result::Ok(#v),
                ::core::option::Option::None => ::core::result::Result::Err(
                    ::majit::metainterp::driver::JitError::BadState(
                        "the portal finished without a value".into())),
            })
        }
        _ => quote!(::core::result::Result::Ok(())),
    };
    let jit = quote!(::majit::metainterp::driver);
    let (finished, raised) = match returns.err {
        Some((e, e_rust)) => {
            let e = e.value_to_rust(&quote!(__majit_e), &e_rust);
            (
                quote!((#finished).map(::core::result::Result::Ok)),
                quote!(::core::result::Result::Ok(::core::result::Result::Err(#e))),
            )
        }
        None => (
            finished,
            quote!(::core::result::Result::Err(#jit::JitError::BadState(
                ::std::format!("the portal raised {:?}, but the interpreter does not return \
                    `Result`", __majit_e)))),
        ),
    };
    quote! {
        {
            let mut __majit_g: [::majit::ir::Value; #ng] = [#(#g),*];
            let mut __majit_r: [::majit::ir::Value; #nr] = [#(#r),*];
            match __majit_driver.#enter(&mut __majit_g, &mut __majit_r) {
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
                ::core::result::Result::Ok(::majit::metainterp::driver::JitAction::Interpret) => {}
                ::core::result::Result::Ok(::majit::metainterp::driver::JitAction::Continue) => {
                    #(#reload)*
                    #next
                }
                ::core::result::Result::Ok(
                    ::majit::metainterp::driver::JitAction::Finished(__majit_v)) => {
                    return #finished;
                }
                ::core::result::Result::Ok(
                    ::majit::metainterp::driver::JitAction::Raised(__majit_e)) => {
                    return #raised;
                }
            }
        }
    }
}

/// A GC reference the interpreter holds at the merge point: a GC-typed
/// red, or an item of an array red of GC handles.
pub struct GcPlace {
    /// The place expression (`stack`, `heads[3]`).
    pub place: TokenStream,
    /// The handle type as written.
    pub rust_ty: TokenStream,
}

/// The GC references among the reds (all of them mutable locals: the
/// caller checks), in order.
pub fn gc_places(state: &[StateVar]) -> Vec<GcPlace> {
    let mut out = Vec::new();
    for sv in state.iter().filter(|s| !s.green) {
        let name = &sv.name;
        match (sv.ty, &sv.rust_ty) {
            (t, rt) if t.is_ref() => out.push(GcPlace {
                place: quote!(#name),
                rust_ty: quote!(#rt),
            }),
            (
                Ty::Array {
                    item: crate::ty::Item::Gc(_) | crate::ty::Item::Obj,
                    len,
                },
                syn::Type::Array(a),
            ) => {
                let rt = &a.elem;
                out.extend((0..usize::from(len)).map(|k| GcPlace {
                    place: quote!(#name[#k]),
                    rust_ty: quote!(#rt),
                }));
            }
            _ => {}
        }
    }
    out
}

/// The safepoint at the merge point: when the thread heap asked for a
/// collection, the reds' references are rooted, the heap collects, and
/// the (possibly moved) references are reloaded. Nothing else holds a GC
/// reference there, since every value the loop carries is a green or a
/// red. The check is a load through `__majit_heap` (see [`fast_heap`]).
/// `jit`: in `NAME_jit` the driver collects (and reports failure as a
/// `JitError`); in the plain function a failure ends the process with a
/// message (`RunHeap::collect_or_exit`). `refresh`: the plain function's
/// cached view of the frame's array (`vcache.rs`), read again last.
pub fn safepoint(places: &[GcPlace], jit: bool, refresh: Option<Stmt>) -> TokenStream {
    let n = places.len();
    let raw = places.iter().map(|p| {
        let place = &p.place;
        quote!(#place.to_raw())
    });
    let reload = places.iter().enumerate().map(|(i, p)| {
        let (place, rt) = (&p.place, &p.rust_ty);
        quote!(#place = <#rt>::from_raw(__majit_roots[#i]);)
    });
    let collect = if jit {
        quote! {
            if let ::core::result::Result::Err(e) = __majit_driver.safepoint(&mut __majit_roots) {
                return ::core::result::Result::Err(e);
            }
        }
    } else {
        quote!(__majit_heap.collect_or_exit(&mut __majit_roots);)
    };
    quote! {
        if __majit_heap.collect_requested() {
            #[allow(unused_mut)]
            let mut __majit_roots: [usize; #n] = [#(#raw),*];
            #collect
            #(#reload)*
            #refresh
        }
    }
}

/// The local holding struct `name`'s inline allocator in a body
/// rewritten by [`fast_heap`].
pub fn bump_local(name: &str) -> syn::Ident {
    format_ident!("__majit_bump_{}", name)
}

/// Where a body's fast heap paths come from (see [`fast_heap`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum HeapFrom {
    /// Looked up once per call: a failure exits the process.
    Thread,
    /// Looked up once per call: a failure returns a `JitError`
    /// (`NAME_jit`), and the run fails first unless the driver's heap is
    /// the thread heap (`JitDriver::check_thread_heap`).
    ThreadForJit,
    /// The `__majit_ctx` parameter of a recursive interpreter's inner
    /// function (`recursion::plain_context`): its calls share one look-up.
    Context,
}

/// Gives a body that uses GC structs the thread heap's fast paths: its
/// first statements bind `__majit_heap` (a `&RunHeap`) and per struct its
/// `&LazyBump` (looked up on its first allocation), `from` where `from`
/// says; every `S::new(..)` of a declared struct becomes
/// `S::__majit_new_in(bump, ..)`, an inline bump of the struct's nursery
/// region, and every `Array::<T>::new(n)` an inline bump of the headered
/// region.
pub fn fast_heap(block: &mut syn::Block, structs: &[StructDef], from: HeapFrom) {
    if structs.is_empty() {
        return;
    }
    let names = structs.iter().map(|s| s.name.clone()).collect();
    FastNew { names }.visit_block_mut(block);
    let heap = quote!(::majit::gc::thread_heap);
    let mut prologue: Vec<Stmt> = match from {
        HeapFrom::Context => vec![syn::parse_quote!(let __majit_heap = __majit_ctx.heap;)],
        HeapFrom::Thread => vec![syn::parse_quote!(
            let __majit_heap = &#heap::RunHeap::current_or_exit();
        )],
        // The driver's jitcode names the type ids of the heap it was made on.
        HeapFrom::ThreadForJit => vec![
            syn::parse_quote!(__majit_driver.check_thread_heap()?;),
            syn::parse_quote!(let __majit_heap = &#heap::RunHeap::current()?;),
        ],
    };
    for s in structs {
        let (local, ty) = (bump_local(&s.name), format_ident!("{}", s.name));
        let bump: Expr = match from {
            HeapFrom::Context => syn::parse_quote!(&__majit_ctx.#local),
            _ => syn::parse_quote!(&__majit_heap.lazy_bump(#ty::__majit_type())),
        };
        prologue.push(syn::parse_quote! {
            #[allow(unused_variables)]
            let #local = #bump;
        });
    }
    block.stmts.splice(0..0, prologue);
}

/// Rewrites `S::new(args)` of the declared structs `names` to
/// `S::__majit_new_in(__majit_bump_S, args)` and `Array::<T>::new(n)` (a
/// path ending in `Array::new`, with or without the turbofish) to
/// `Array::<T>::__majit_new_in(__majit_heap, n)` (not inside nested
/// items, which cannot see the locals).
struct FastNew {
    names: Vec<String>,
}

impl VisitMut for FastNew {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let Expr::Call(call) = e else { return };
        let Expr::Path(p) = &mut *call.func else {
            return;
        };
        let n = p.path.segments.len();
        if p.qself.is_some() || n < 2 || p.path.segments[n - 1].ident != "new" {
            return;
        }
        let owner = &p.path.segments[n - 2];
        let ty = owner.ident.to_string();
        if ty == "Array" {
            p.path.segments[n - 1].ident = format_ident!("__majit_new_in");
            call.args.insert(0, syn::parse_quote!(__majit_heap));
        } else if n == 2 && owner.arguments.is_none() && self.names.contains(&ty) {
            let (local, ty) = (bump_local(&ty), &owner.ident);
            let args = &call.args;
            *e = syn::parse_quote!(#ty::__majit_new_in(#local, #args));
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn scalar_rust(s: Scalar) -> TokenStream {
    match s {
        Scalar::Int(t) => t.rust(),
        Scalar::Bool => quote!(u8),
        Scalar::F64 => quote!(f64),
    }
}

/// The type of a value of `s` across the `extern "C"` boundary: a float
/// register for `f64`, an int register for the rest.
fn abi_rust(s: Scalar) -> TokenStream {
    abi_ty(Ty::Scalar(s))
}

/// [`abi_rust`] of a helper's argument or result type (a GC handle is an
/// address: an int register).
fn abi_ty(t: Ty) -> TokenStream {
    match t {
        Ty::Scalar(s) if s.is_float() => quote!(f64),
        _ => quote!(i64),
    }
}

/// The shim's body of a call `call` returning `ret`: its value as the
/// `extern "C"` result.
fn ret_to_abi(call: TokenStream, ret: Option<Ty>) -> TokenStream {
    match ret {
        Some(r) if r.is_ref() => quote!(#call.to_raw() as i64),
        Some(r) => {
            let r = abi_ty(r);
            quote!(#call as #r)
        }
        None => quote!(#call;),
    }
}

/// The shim's body of a call `call` returning `Result<ret, err>`: the
/// `Ok` value as the result, an `Err` raised as the JIT's exception
/// (`runtime::raise` / `raise_int`), with a zero result nothing reads.
fn raising_body(call: TokenStream, ret: Option<Ty>, err: Ty) -> TokenStream {
    let rt = quote!(::majit::metainterp::runtime);
    let ok = ret_to_abi(quote!(__majit_v), ret);
    let raise = match err {
        e if e.is_ref() => quote!(#rt::raise(__majit_e.to_raw())),
        _ => quote!(#rt::raise_int(__majit_e as i64)),
    };
    let zero = match ret {
        Some(Ty::Scalar(Scalar::F64)) => quote!(0.0),
        Some(_) => quote!(0),
        None => quote!(),
    };
    quote! {
        match #call {
            ::core::result::Result::Ok(__majit_v) => { #ok }
            ::core::result::Result::Err(__majit_e) => {
                #raise;
                #zero
            }
        }
    }
}

/// The `extern "C"` shim `shim` calling the helper `h` through `callee`
/// (a path): arguments cast from their ABI types to the declared ones (a
/// GC handle through `from_raw`, its result through `to_raw`; an `Err`
/// raised, see [`raising_body`]), the call run in `runtime::catch_panic`,
/// whose panic is reported at `place`.
fn shim(h: &Helper, shim: &syn::Ident, callee: TokenStream, place: &str) -> TokenStream {
    let (mut params, mut conv) = (Vec::new(), Vec::new());
    for (i, (a, t)) in h.args.iter().zip(&h.arg_tys).enumerate() {
        let (p, abi) = (format_ident!("a{}", i), abi_ty(*a));
        params.push(quote!(#p: #abi));
        conv.push(match a {
            Ty::Scalar(Scalar::Bool) => quote!(#p != 0),
            Ty::Scalar(Scalar::F64) => quote!(#p),
            a if a.is_ref() => quote!(<#t>::from_raw(#p as usize)),
            Ty::Slice { mutable, .. } => {
                let n = format_ident!("n{}", i);
                params.push(quote!(#n: i64));
                slice_from_abi(&p, &n, t, *mutable)
            }
            _ => quote!(#p as #t),
        });
    }
    if let (Some(m), Some(recv)) = (&h.method, conv.first_mut()) {
        if m.by_ref {
            *recv = quote!(&#recv);
        }
    }
    let call = quote!(#callee(#(#conv),*));
    let body = match h.err {
        Some(e) => raising_body(call, h.ret, e),
        None => ret_to_abi(call, h.ret),
    };
    let ret = h.ret.map(abi_ty).map(|r| quote!(-> #r));
    // A panic cannot unwind out of `extern "C"`: it becomes the run's
    // `JitError::Panic` (see `runtime::catch_panic`).
    quote! {
        #[allow(dead_code)]
        extern "C" fn #shim(#(#params),*) #ret {
            ::majit::metainterp::runtime::catch_panic(#place, || { #body })
        }
    }
}

/// The slice of type `t` (`&[T]` or `&mut [T]` as written) whose data
/// pointer and length a shim received as `p` and `n`.
fn slice_from_abi(p: &syn::Ident, n: &syn::Ident, t: &syn::Type, mutable: bool) -> TokenStream {
    let elem = slice_elem(t);
    // SAFETY (both): jitcode holds only the pointer and length of a slice
    // the interpreter lent it (a green, a red or a parameter), alive and
    // unaliased for the call, as in the plain function.
    match mutable {
        true => quote!(unsafe { ::core::slice::from_raw_parts_mut(#p as *mut #elem, #n as usize) }),
        false => quote!(unsafe { ::core::slice::from_raw_parts(#p as *const #elem, #n as usize) }),
    }
}

/// The `T` of the slice type `&[T]` / `&mut [T]` as written.
fn slice_elem(t: &syn::Type) -> &syn::Type {
    match t {
        syn::Type::Paren(p) => slice_elem(&p.elem),
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(s) => &s.elem,
            _ => unreachable!("a slice type is `&[T]`"),
        },
        _ => unreachable!("a slice type is `&[T]`"),
    }
}

/// The shim of the residual form of the inline helper or traced function
/// `name` (`jitcode_fn` registers it).
fn residual_shim_name(name: &str) -> syn::Ident {
    format_ident!("__majit_residual_{}", name)
}

/// The `extern "C"` functions the jitcode calls: one per helper (its
/// panic is caught and reported, see `runtime::catch_panic`), one load
/// per frozen green slice, and the unreachable block's (the checks'
/// failure shims are in each function's block, see `lower/checks.rs`),
/// and the float shims named in `floats` (those the lowering called).
/// Also the residual form of every inline helper and traced function
/// (calling the traced function by its path, an inline helper through a
/// copy of `nested`, its definition inside the interpreter function) and
/// those copies: a too-long trace may mark one don't-inline.
pub fn shims(
    fn_name: &str,
    helpers: &[Helper],
    nested: &[syn::ItemFn],
    state: &[StateVar],
    floats: &BTreeSet<String>,
) -> TokenStream {
    let mut out = Vec::new();
    for h in helpers {
        let name = h.name.to_string();
        if h.policy != Policy::Inline {
            let (path, place) = (&h.path, format!("helper `{name}`"));
            let id = format_ident!("__majit_shim_{}", name);
            out.push(shim(h, &id, quote!(#path), &place));
            continue;
        }
        let callee = match nested.iter().any(|f| f.sig.ident == h.name) {
            true => h.name.to_token_stream(),
            false => h.path.to_token_stream(),
        };
        let place = format!("`{name}` (called, not inlined: too long to trace)");
        out.push(shim(h, &residual_shim_name(&name), callee, &place));
    }
    // Items in a function body cannot see its locals: a copy means the same.
    out.extend(nested.iter().map(|f| quote!(#f)));
    for sv in state {
        if let (
            true,
            Ty::Slice {
                elem,
                mutable: false,
            },
        ) = (sv.green, sv.ty)
        {
            let shim = format_ident!("__majit_load_{}", sv.name);
            let (t, r) = (scalar_rust(elem), abi_rust(elem));
            out.push(quote! {
                #[allow(dead_code)]
                extern "C" fn #shim(p: usize, i: i64) -> #r {
                    // SAFETY: the jitcode calls this only after its bounds
                    // check, with the data pointer of the live green slice.
                    unsafe { *(p as *const #t).add(i as usize) as #r }
                }
            });
        }
    }
    let place = format!("the jitcode of `{fn_name}`");
    out.push(quote! {
        extern "C" fn __majit_unreachable() {
            ::majit::metainterp::runtime::report_panic(
                #place,
                "internal error: entered unreachable code".into(),
            )
        }
    });
    out.extend(
        float_shims()
            .into_iter()
            .filter(|(name, _)| floats.contains(&name.to_string()))
            .map(|(_, shim)| shim),
    );
    quote!(#(#out)*)
}

/// The float operations the IR has no op for, as elidable calls of Rust
/// itself (so their results are Rust's to the bit): `%`, the `f64`
/// methods of [`FLOAT_METHODS`], the casts from `f64` to the integer
/// types other than `i64` (whose saturation bounds differ) and from `u64`
/// (above `i64::MAX` in its register as a negative `i64`). Integers pass
/// as their 64-bit register value. Each shim comes with its name, so that
/// [`shims`] emits only the ones some jitcode calls.
fn float_shims() -> Vec<(syn::Ident, TokenStream)> {
    let (rem, u64_to) = (
        format_ident!("__majit_f64_rem"),
        format_ident!("__majit_u64_to_f64"),
    );
    let mut out = vec![
        (
            rem.clone(),
            quote!(extern "C" fn #rem(a: f64, b: f64) -> f64 { a % b }),
        ),
        (
            u64_to.clone(),
            quote!(extern "C" fn #u64_to(a: i64) -> f64 { a as u64 as f64 }),
        ),
    ];
    for &(m, arity) in FLOAT_METHODS {
        let f = format_ident!("__majit_f64_{}", m);
        let m = format_ident!("{}", m);
        let shim = match arity {
            1 => quote!(extern "C" fn #f(a: f64) -> f64 { a.#m() }),
            _ => quote!(extern "C" fn #f(a: f64, b: f64) -> f64 { a.#m(b) }),
        };
        out.push((f, shim));
    }
    for t in CAST_INTS {
        let f = float_cast_shim(t);
        let t = format_ident!("{}", t);
        out.push((
            f.clone(),
            quote!(extern "C" fn #f(a: f64) -> i64 { a as #t as i64 }),
        ));
    }
    out
}

/// The `f64` methods lowered as elidable calls, with their arity (the
/// receiver counts).
pub const FLOAT_METHODS: &[(&str, u8)] = &[
    ("floor", 1),
    ("ceil", 1),
    ("round", 1),
    ("trunc", 1),
    ("exp", 1),
    ("ln", 1),
    ("sin", 1),
    ("cos", 1),
    ("min", 2),
    ("max", 2),
    ("powf", 2),
];

/// The integer types whose casts from `f64` are calls.
pub const CAST_INTS: [&str; 7] = ["i8", "i16", "i32", "u8", "u16", "u32", "u64"];

/// The shim casting `f64` to the integer type `t` (one of [`CAST_INTS`]).
pub fn float_cast_shim(t: &str) -> syn::Ident {
    format_ident!("__majit_f64_to_{}", t)
}

/// The block that builds one jitcode function and evaluates to it.
fn build_function(name: &str, lowered: &Lowered) -> TokenStream {
    let (nl, code) = (lowered.labels as usize, &lowered.code);
    let params = lowered.params.iter().map(|r| r.bank.kind());
    let count = |b: Bank| lowered.params.iter().filter(|r| r.bank == b).count() as u16;
    let (pi, pr, pf) = (count(Bank::Int), count(Bank::Ref), count(Bank::Float));
    let (ni, nr, nf) = (lowered.int_regs, lowered.ref_regs, lowered.float_regs);
    // No loop over an empty range: clippy flags one in a traced
    // function, whose tokens come from user code.
    let regs = |p: u16, n: u16, kind: TokenStream| {
        (n > p).then(|| quote!(for _ in #p..#n { b.reg(::majit::ir::Kind::#kind); }))
    };
    let (int_regs, ref_regs, float_regs) = (
        regs(pi, ni, quote!(Int)),
        regs(pr, nr, quote!(Ref)),
        regs(pf, nf, quote!(Float)),
    );
    let fail_shims = &lowered.fail_shims;
    quote! {{
        #(#fail_shims)*
        let mut b = ::majit::metainterp::jitcode::JitCodeBuilder::new(#name);
        #( b.param(#params); )*
        #int_regs
        #ref_regs
        #float_regs
        let __l: ::std::vec::Vec<::majit::metainterp::jitcode::Label> =
            (0..#nl).map(|_| b.label()).collect();
        #(#code)*
        b.finish()?
    }}
}

/// The statements that give every inline helper and traced function
/// (`__majit_f_NAME` in the jitcode set `set`) its residual form: its
/// shim from [`shims`], with random effects.
pub fn residual_forms(helpers: &[Helper]) -> TokenStream {
    let forms = helpers
        .iter()
        .filter(|h| h.policy == Policy::Inline)
        .map(|h| {
            let name = h.name.to_string();
            let id = format_ident!("__majit_f_{}", name);
            let shim = residual_shim_name(&name);
            let descr = crate::lower::residual_descr(h);
            quote! {
                set.set_residual(#id, #shim as *const () as usize, #descr).map_err(|message| {
                    ::majit::metainterp::jitcode::BuildError {
                        function: #name.into(),
                        insn: 0,
                        message,
                    }
                })?;
            }
        });
    quote!(#(#forms)*)
}

/// The `NAME_jitcode` function: inline helpers are declared first (the
/// portal and other helpers name them), then built and given their
/// residual forms (`forms`, from [`residual_forms`]), then the portal. A
/// recursive interpreter's `entry` function and portal are declared first
/// too (each calls the other).
pub fn jitcode_fn(
    vis: &syn::Visibility,
    name: &syn::Ident,
    (lowered, entry): (&Lowered, Option<&Lowered>),
    helpers: &[(String, Lowered)],
    structs: &[StructDef],
    (shims, forms): (TokenStream, TokenStream),
) -> TokenStream {
    let f = format_ident!("{}_jitcode", name);
    let fname = name.to_string();
    let type_ids = structs.iter().map(|s| {
        let (local, ty) = (s.type_id_local(), format_ident!("{}", s.name));
        let msg = format!("registering the GC struct `{}` in the thread heap", s.name);
        quote! {
            let #local: u32 = ::majit::gc::thread_heap::type_id(
                #ty::__majit_type(),
            )
            .map_err(|e| ::majit::metainterp::jitcode::BuildError {
                function: #fname.into(),
                insn: 0,
                message: ::std::format!("{}: {}", #msg, e),
            })?
            .0;
        }
    });
    let array_id = quote! {
        #[allow(unused_variables)]
        let __majit_array_id = |t: &'static ::majit::gc::thread_heap::ArrayType| {
            ::majit::gc::thread_heap::array_type_id(t)
                .map(|id| id.0)
                .map_err(|e| ::majit::metainterp::jitcode::BuildError {
                    function: #fname.into(),
                    insn: 0,
                    message: ::std::format!(
                        "registering the GC array `{}` in the thread heap: {}", t.name, e
                    ),
                })
        };
    };
    let ids: Vec<_> = helpers
        .iter()
        .map(|(n, _)| format_ident!("__majit_f_{}", n))
        .collect();
    let names: Vec<&String> = helpers.iter().map(|(n, _)| n).collect();
    let builds = helpers.iter().map(|(n, l)| build_function(n, l));
    let portal = build_function(&fname, lowered);
    let (declare, finish) = match entry {
        Some(entry) => {
            let entry_name = format!("{fname}.entry");
            let entry = build_function(&entry_name, entry);
            let define = |id: TokenStream, n: &str| {
                quote! {
                    set.define(#id, code).map_err(|message| {
                        ::majit::metainterp::jitcode::BuildError {
                            function: #n.into(),
                            insn: 0,
                            message,
                        }
                    })?;
                }
            };
            let (de, dp) = (
                define(quote!(__majit_entry_id), &entry_name),
                define(quote!(__majit_portal_id), &fname),
            );
            (
                quote! {
                    let __majit_portal_id = set.declare(#fname);
                    let __majit_entry_id = set.declare(#entry_name);
                },
                quote! {
                    let code = #entry;
                    #de
                    let code = #portal;
                    #dp
                    let portal = __majit_portal_id;
                },
            )
        }
        None => (
            quote!(),
            quote! {
                let code = #portal;
                let portal = set.add(code);
            },
        ),
    };
    let doc = format!(
        "The jitcode of `{fname}` (generated by `#[jit_interp]`): the portal and its inline \
         helpers, for `JitDriver::new`."
    );
    quote! {
        #[doc = #doc]
        #vis fn #f() -> ::core::result::Result<
            (::majit::metainterp::jitcode::JitCodeSet, ::majit::metainterp::jitcode::FuncId),
            ::majit::metainterp::jitcode::BuildError,
        > {
            #shims
            #(#type_ids)*
            #array_id
            let mut set = ::majit::metainterp::jitcode::JitCodeSet::new();
            #declare
            #( let #ids = set.declare(#names); )*
            #(
                let code = #builds;
                set.define(#ids, code).map_err(|message| {
                    ::majit::metainterp::jitcode::BuildError {
                        function: #names.into(),
                        insn: 0,
                        message,
                    }
                })?;
            )*
            #forms
            #finish
            ::core::result::Result::Ok((set, portal))
        }
    }
}

/// The `NAME_driver` function: a driver whose tracer, blackhole and
/// backend all allocate on the thread heap (`JitDriver::new_gc`).
/// With `vable` (a `VirtualizableInfo` expression) the frame is declared
/// virtualizable.
pub fn driver_fn(
    vis: &syn::Visibility,
    name: &syn::Ident,
    vable: Option<TokenStream>,
) -> TokenStream {
    let (f, jitcode) = (
        format_ident!("{}_driver", name),
        format_ident!("{}_jitcode", name),
    );
    let fname = name.to_string();
    let doc = format!(
        "A JIT driver for `{fname}_jit` (generated by `#[jit_interp]`) on the thread heap: \
         its tracer, blackhole and backend `B` allocate where the GC structs live, so \
         collections at the merge point see every object."
    );
    let jit = quote!(::majit::metainterp::driver);
    let vable = match vable {
        Some(info) => quote!(driver.with_virtualizable(#info)),
        None => quote!(::core::result::Result::Ok(driver)),
    };
    quote! {
        #[doc = #doc]
        #[allow(dead_code)]
        #vis fn #f<__B: ::majit::metainterp::gcheap::GcBackend>(
            params: ::majit::metainterp::params::JitParams,
        ) -> ::core::result::Result<#jit::JitDriver<__B>, #jit::JitError> {
            let (codes, portal) = #jitcode().map_err(|e| {
                #jit::JitError::BadState(::std::format!("the jitcode of `{}`: {}", #fname, e))
            })?;
            let heap = ::majit::gc::thread_heap::shared()?;
            let driver = #jit::JitDriver::new_gc(codes, portal, heap, params)?;
            #vable
        }
    }
}

/// The handle type of a declared GC struct: a copyable pointer to a
/// headerless or headered (header in slot 0, `Headered` implemented)
/// object of 8-byte slots in the thread heap, with `new`,
/// `null`, `is_null`, getters and setters. `new` never collects
/// (collections happen at the merge point's safepoint only); setters of
/// GC fields run the write barrier. Jitcode allocates through the
/// driver's allocator, on the same heap with `NAME_driver`.
pub fn gc_struct(vis: &syn::Visibility, def: &StructDef, decl: &StructDecl) -> TokenStream {
    let name = &decl.name;
    // Slot 0 of a headered object is its header.
    let first = usize::from(decl.headered);
    let size = 8 * (first + def.fields.len());
    // A struct without fields still takes one word (the heap's minimum).
    let (size32, sname) = ((size as u32).max(8), def.name.clone());
    let ref_offsets: Vec<u32> = def
        .fields
        .iter()
        .enumerate()
        .filter(|(_, (_, t))| t.is_ref())
        .map(|(i, _)| 8 * (first + i) as u32)
        .collect();
    let heap = quote!(::majit::gc::thread_heap);
    let array_name = format!("Array_{}", def.name);
    let (layout, new_type) = if decl.headered {
        ("headered", quote!(headered))
    } else {
        ("headerless", quote!(new))
    };
    let headered_impl = decl.headered.then(|| {
        quote! {
            impl ::majit::gc::Headered for #name {
                fn struct_type() -> &'static #heap::StructType {
                    Self::__majit_type()
                }
                fn class_cache() -> &'static ::std::thread::LocalKey<::core::cell::Cell<u32>> {
                    ::std::thread_local! {
                        static CACHE: ::core::cell::Cell<u32> = const { ::core::cell::Cell::new(0) };
                    }
                    &CACHE
                }
                fn from_raw(p: usize) -> #name {
                    #name::from_raw(p)
                }
                fn to_raw(self) -> usize {
                    #name::to_raw(self)
                }
            }
        }
    });
    // One barrier after all the stores: a fresh object is old only when
    // the nursery was full, and then it is recorded with every field set.
    let new_barrier =
        (!ref_offsets.is_empty()).then(|| quote!(#heap::write_barrier(obj.to_raw());));
    let null_msg = format!("null {} dereferenced", def.name);
    let mut params = Vec::new();
    let mut args = Vec::new();
    let mut inits = Vec::new();
    let mut accessors = Vec::new();
    for (k, ((fname, rty), (_, ty))) in decl.fields.iter().zip(&def.fields).enumerate() {
        let i = first + k;
        let set = format_ident!("set_{}", fname);
        let (read, write) = match ty {
            Ty::Scalar(Scalar::Bool) => (quote!(bits != 0), quote!(v as u64)),
            Ty::Scalar(Scalar::F64) => (quote!(f64::from_bits(bits)), quote!(v.to_bits())),
            t if t.is_ref() => (
                quote!(<#rty>::from_raw(bits as usize)),
                quote!(v.to_raw() as u64),
            ),
            _ => (quote!(bits as i64 as #rty), quote!(v as i64 as u64)),
        };
        let barrier = match decl.headered {
            true => quote!(#heap::write_barrier_headered(self.to_raw());),
            false => quote!(#heap::write_barrier(self.to_raw());),
        };
        let barrier = ty.is_ref().then_some(barrier);
        let offset = 8 * i as u32;
        let mark = def.marks[k];
        let invalidate = (mark == FieldMark::QuasiImmutable)
            .then(|| quote!(::majit::metainterp::quasi::written(self.to_raw(), #offset);));
        params.push(quote!(#fname: #rty));
        args.push(quote!(#fname));
        inits.push(quote! {
            let v = #fname;
            // SAFETY: `obj` is a fresh object of this layout.
            unsafe { obj.0.add(#i).write(#write) }
        });
        let doc_get = format!("Reads `{}.{fname}`.", def.name);
        let doc_set = format!("Writes `{}.{fname}`.", def.name);
        accessors.push(quote! {
            #[doc = #doc_get]
            pub fn #fname(self) -> #rty {
                // SAFETY: `slot` checked the handle is not null; it points
                // to a live object of this layout (handles held across a
                // collection are reds, which the safepoint updates).
                let bits = unsafe { self.slot(#i).read() };
                #read
            }
        });
        if mark != FieldMark::Immutable {
            accessors.push(quote! {
                #[doc = #doc_set]
                pub fn #set(self, v: #rty) {
                    #invalidate
                    // SAFETY: as in the getter.
                    unsafe { self.slot(#i).write(#write) }
                    #barrier
                }
            });
        }
    }
    let doc = format!(
        "A handle of the GC struct `{}` declared in `#[jit_interp]`: a {layout} object of \
         {size} bytes in the thread heap, one 8-byte slot per field.",
        def.name
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(transparent)]
        #vis struct #name(*mut u64);

        // SAFETY: the handle is a `#[repr(transparent)]` GC pointer whose
        // zero value is null, stored as an 8-byte reference item.
        unsafe impl ::majit::gc::Elem for #name {
            const IS_REF: bool = true;
            fn array_type() -> &'static #heap::ArrayType {
                static TYPE: #heap::ArrayType = #heap::ArrayType::new(#array_name, 8, true);
                &TYPE
            }
        }

        // An interpreter may use only some of the accessors.
        #[allow(dead_code)]
        impl #name {
            /// The object size in bytes.
            pub const SIZE: usize = #size;
            /// The null handle.
            pub fn null() -> #name {
                #name(::core::ptr::null_mut())
            }
            /// Whether this is the null handle.
            pub fn is_null(self) -> bool {
                self.0.is_null()
            }
            /// The struct's type in the thread heap.
            #[doc(hidden)]
            pub fn __majit_type() -> &'static #heap::StructType {
                static TYPE: #heap::StructType =
                    #heap::StructType::#new_type(#sname, #size32, &[#(#ref_offsets),*]);
                &TYPE
            }
            /// Allocates an object with these field values in the thread
            /// heap. Never collects. If the heap is exhausted (more than
            /// `MAJIT_MAX_HEAP` between two merge points), prints why and
            /// exits the process with status 70.
            #[allow(clippy::too_many_arguments)]
            pub fn new(#(#params),*) -> #name {
                let obj = #name(#heap::alloc_or_exit(Self::__majit_type()) as *mut u64);
                #(#inits)*
                #new_barrier
                obj
            }
            /// [`Self::new`] through `bump`, the struct's inline
            /// allocator for the current run (see `emit::fast_heap` in
            /// majit-macros): a fresh nursery object needs no barrier.
            #[doc(hidden)]
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            pub fn __majit_new_in(bump: &#heap::LazyBump<'_>, #(#params),*) -> #name {
                match bump.alloc() {
                    ::core::option::Option::Some(p) => {
                        let obj = #name(p as *mut u64);
                        #(#inits)*
                        obj
                    }
                    ::core::option::Option::None => Self::__majit_new_slow(#(#args),*),
                }
            }
            #[cold]
            #[inline(never)]
            #[allow(clippy::too_many_arguments)]
            fn __majit_new_slow(#(#params),*) -> #name {
                Self::new(#(#args),*)
            }
            /// The address (as the JIT sees it).
            pub fn to_raw(self) -> usize {
                self.0 as usize
            }
            /// A handle from an address the JIT produced.
            pub fn from_raw(p: usize) -> #name {
                #name(p as *mut u64)
            }
            fn slot(self, i: usize) -> *mut u64 {
                assert!(!self.0.is_null(), #null_msg);
                self.0.wrapping_add(i)
            }
            #(#accessors)*
        }

        #headered_impl
    }
}
