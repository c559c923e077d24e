//! # majit-macros: `#[jit_interp]`
//!
//! Turns a plain Rust interpreter into a tracing JIT. The attribute goes
//! on the interpreter's function; its dispatch loop starts with
//! `jit_merge_point!()` and every back edge of the *user* program calls
//! `can_enter_jit!()` as the statement right before its `continue` of the
//! dispatch loop (anywhere else is a compile error: code after it would be
//! skipped when the JIT resumes at the merge point). The macro emits:
//!
//! - `NAME`: the function unchanged (the two markers removed): the plain
//!   interpreter, with no JIT overhead. With GC structs, the merge point
//!   becomes a safepoint, and the heap's hot paths are inlined: `S::new`
//!   bumps the struct's nursery region, and the safepoint check is one
//!   load (`emit::fast_heap`).
//! - `NAME_jitcode()`: builds the portal jitcode (the dispatch loop body
//!   lowered through `JitCodeBuilder`) for `JitDriver::new`.
//! - `NAME_jit(&mut driver, args...) -> Result<R, JitError>`: the same
//!   interpreter, where `can_enter_jit!()` hands the greens and reds to
//!   `JitDriver::can_enter_jit` (which may trace, run compiled loops and
//!   deoptimize) and reloads them afterwards. An interpreter returning
//!   `Result<T, E>` gets `Ok(Err(e))` when its jitcode raised `e`.
//! - For an interpreter that calls itself (a call of the interpreted
//!   program, `recursion.rs`): the hidden `NAME_jit_call`, `NAME_jit_from`
//!   and the portal runner trampoline, and an entry jitcode function.
//!
//! See `docs/macros.md` for the supported subset and the design. Users
//! depend on the facade crate `majit` alone and write `use
//! majit::prelude::*` (or `use majit::jit_interp`): the generated code
//! names only paths under `::majit` (`::majit::ir`, `::majit::gc`,
//! `::majit::metainterp`), so it does not compile in a crate that depends
//! on the individual majit crates without the facade.
//!
//! Files: `attr.rs` parses the attribute, `ty.rs` the types, `lower/`
//! lowers the loop body (`mod.rs` the lowerer and its values, `expr.rs`
//! expressions, `control.rs` statements and control flow, `calls.rs` helper
//! and method calls, `objects.rs` GC structs, slices and arrays, `hints.rs`
//! `promote` and `we_are_jitted`, `results.rs` helpers and traced functions
//! returning `Result`, `result_values.rs` a `Result` kept in a local),
//! `regs.rs` allocates registers, `emit.rs`
//! writes the plain function, the JIT entry and the shims, `traced.rs`
//! implements `#[traced]` and the chain that hands traced functions'
//! bodies to `#[jit_interp]`, `methods.rs` traced methods (`#[traced]` on
//! an `impl`), `inline.rs` checks and lowers inline
//! helpers and traced functions, `recursion.rs` (with `lower/recursion.rs`)
//! the interpreter calling itself.

mod attr;
mod emit;
#[cfg(test)]
mod expand_tests;
mod fields;
mod inline;
mod lower;
mod methods;
mod recursion;
mod regs;
mod traced;
mod ty;
mod vable;
mod vcache;

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// Makes an interpreter function a tracing JIT.
///
/// ```
/// use majit::prelude::*;
///
/// const HALT: i64 = 0;
/// const DEC: i64 = 1;
/// const JNZ: i64 = 2;
///
/// #[jit_interp(greens = [pc, code], reds = [acc])]
/// fn run(code: &[i64], start: i64) -> i64 {
///     let mut pc: usize = 0;
///     let mut acc: i64 = start;
///     loop {
///         jit_merge_point!();
///         let op = code[pc];
///         match op {
///             HALT => return acc,
///             DEC => {
///                 acc -= 1;
///                 pc += 1;
///             }
///             JNZ => {
///                 if acc != 0 {
///                     pc = code[pc + 1] as usize;
///                     can_enter_jit!();
///                     continue;
///                 }
///                 pc += 2;
///             }
///             _ => return -1,
///         }
///     }
/// }
///
/// fn main() {
///     let prog = [DEC, JNZ, 0, HALT];
///     // Without the JIT:
///     let plain = run(&prog, 100);
///     // With it:
///     let (codes, portal) = run_jitcode().unwrap();
///     let params = JitParams::default().with_threshold(2);
///     let mut driver = JitDriver::new(codes, portal, RefExec::new(), params).unwrap();
///     assert_eq!(run_jit(&mut driver, &prog, 100).unwrap(), plain);
///     assert!(driver.stats().loop_entries >= 1);
/// }
/// ```
///
/// Arguments: `greens = [..]` (locals or parameters identifying the
/// position in the user program; constants inside a trace), `reds = [..]`
/// (every other local the loop carries across iterations), and optionally
/// `helpers = [residual fn name(a: i64) -> i64, elidable fn .., inline fn ..]`
/// (the functions handlers may call and how the JIT treats each call:
/// `residual`, `elidable`, `loop_invariant`, `dont_look_inside`, or
/// `inline` for nested `fn`s defined before the dispatch loop; with a
/// `virtualizable` frame, `residual(no_force) fn ..` promises the helper
/// never reaches the frame, so a trace keeps the frame in registers
/// across its call; `virtualizable = frame(opaque_to_callees)` promises
/// that calls of the interpreted program never read or write their
/// callers' frames, so a trace keeps them in registers across those too),
/// `traced = [path::to::f, ..]` (functions marked [`macro@traced`],
/// traced through), `structs = [Node { value: i64, next: Node }, #[headered] Leaf { .. }]`
/// (GC structs: a handle type `Node` is generated, with field syntax
/// `x.value` / `x.value = v`; `#[headered]` ones can be held as an `Obj`
/// and class-tested with `o.is::<Leaf>()`; a `#[quasi_immutable]` field,
/// e.g. `Class { #[quasi_immutable] version: i64 }`, is folded by traces
/// reading it through a promoted handle, and its setter invalidates them;
/// an `#[immutable]` field, e.g. `Closure { #[immutable] code: i64 }`, is
/// set by the constructor only (it has no setter), so a trace's load of it
/// survives calls)
/// and `enums = [Op: u8]`.
/// `can_enter_jit!()` is only allowed as the
/// statement right before a `continue` of the dispatch loop (`continue
/// 'label` from inside a handler's own loop). Greens and reds need a type: an integer,
/// `bool`, `f64`, a slice or array of them, a declared struct, `Obj` or a GC array `Array<T>`. The supported subset
/// of Rust inside the loop is listed in `docs/macros.md`; anything else
/// is a compile error at its span.
#[proc_macro_attribute]
pub fn jit_interp(attr: TokenStream, item: TokenStream) -> TokenStream {
    let tokens = proc_macro2::TokenStream::from(attr.clone());
    let parsed = syn::parse_macro_input!(attr as attr::Attr);
    if !parsed.traced.is_empty() {
        let traced = parsed.traced.clone();
        let structs: Vec<String> = parsed.structs.iter().map(|s| s.name.to_string()).collect();
        return traced::start(tokens, item.into(), &traced, &structs)
            .unwrap_or_else(|e| e.to_compile_error())
            .into();
    }
    let func = syn::parse_macro_input!(item as syn::ItemFn);
    match expand(parsed, func, Vec::new()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Marks a function an interpreter may trace through: listed in its
/// `#[jit_interp(traced = [path::to::f, ..])]`, calls of `f` in handlers
/// (and in other traced functions) are lowered to an `inline_call` of
/// `f`'s own jitcode instead of a residual call. The function itself is
/// unchanged (the plain interpreter calls it as written) but for field
/// syntax on GC handles, rewritten to the accessors as in a handler
/// (`x.f` is `x.f()`, `x.f = v` is `x.set_f(v)`).
///
/// ```
/// mod ops {
///     #[majit::traced]
///     pub(crate) fn double(x: i64) -> i64 {
///         x.wrapping_mul(2)
///     }
/// }
/// use majit::prelude::*;
///
/// #[jit_interp(greens = [pc], reds = [acc], traced = [ops::double])]
/// fn run(start: i64) -> i64 {
///     let mut pc: usize = 0;
///     let mut acc: i64 = start;
///     loop {
///         jit_merge_point!();
///         if pc == 3 {
///             return acc;
///         }
///         acc = ops::double(acc);
///         pc += 1;
///     }
/// }
///
/// fn main() {
///     assert_eq!(run(5), 40);
/// }
/// ```
///
/// The function must be a free function of the same crate, not generic,
/// and its body and signature within the subset of `docs/macros.md`;
/// traced functions may call each other, but not recursively. On the
/// inherent `impl` of a declared GC struct (`impl Node { .. }`), the
/// attribute makes every method taking `self` or `&self` traceable, listed
/// as `traced = [path::Node::method]` (`methods.rs`). See `traced.rs` for
/// how the interpreter gets the body.
#[proc_macro_attribute]
pub fn traced(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = proc_macro2::TokenStream::from(attr);
    let item = syn::parse_macro_input!(item as syn::Item);
    let out = match item {
        syn::Item::Impl(imp) if attr.is_empty() => methods::impl_attribute(imp),
        syn::Item::Fn(mut func) => {
            fields::FieldSyntax { fields: None }.visit_block_mut(&mut func.block);
            traced::attribute(attr, func)
        }
        other => Err(syn::Error::new(
            other.span(),
            "#[majit::traced] goes on a free function or on the inherent `impl` of a declared \
             GC struct, and takes no arguments",
        )),
    };
    out.unwrap_or_else(|e| e.to_compile_error()).into()
}

/// One step of the chain that collects the traced functions' bodies for
/// `#[jit_interp]` (see `traced.rs`); not for direct use.
#[doc(hidden)]
#[proc_macro]
pub fn __jit_interp_chain(input: TokenStream) -> TokenStream {
    let chain = syn::parse_macro_input!(input as traced::Chain);
    chain_step(chain)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// The next callback, or the interpreter's expansion with every body.
fn chain_step(chain: traced::Chain) -> syn::Result<proc_macro2::TokenStream> {
    if let Some(next) = traced::step(&chain)? {
        return Ok(next);
    }
    let attr: attr::Attr = syn::parse2(chain.attr)?;
    let func: syn::ItemFn = syn::parse2(chain.item)?;
    expand(attr, func, chain.fns)
}

/// A local or parameter declared outside the dispatch loop.
struct Outer {
    name: String,
    ty: Option<syn::Type>,
    mutable: bool,
}

fn pat_binding(p: &syn::Pat) -> Option<(String, Option<syn::Type>, bool)> {
    match p {
        syn::Pat::Ident(i) => Some((i.ident.to_string(), None, i.mutability.is_some())),
        syn::Pat::Type(t) => {
            let (n, _, m) = pat_binding(&t.pat)?;
            Some((n, Some((*t.ty).clone()), m))
        }
        _ => None,
    }
}

/// The parameters and the `let`s before the dispatch loop.
fn outer_vars(func: &syn::ItemFn, before: &[Stmt]) -> syn::Result<Vec<Outer>> {
    let mut out = Vec::new();
    for input in &func.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return Err(syn::Error::new(
                input.span(),
                "#[jit_interp] goes on a free function, not a method",
            ));
        };
        if let syn::Pat::Ident(i) = &*pt.pat {
            out.push(Outer {
                name: i.ident.to_string(),
                ty: Some((*pt.ty).clone()),
                mutable: i.mutability.is_some(),
            });
        }
    }
    for s in before {
        if let Stmt::Local(l) = s {
            if let Some((name, ty, mutable)) = pat_binding(&l.pat) {
                out.retain(|o| o.name != name);
                out.push(Outer { name, ty, mutable });
            }
        }
    }
    Ok(out)
}

/// The index of the dispatch loop among the body's statements.
fn find_loop(func: &syn::ItemFn) -> syn::Result<usize> {
    for (i, s) in func.block.stmts.iter().enumerate() {
        if let Stmt::Expr(Expr::Loop(l), _) = s {
            if l.body
                .stmts
                .first()
                .is_some_and(|s| emit::is_macro_stmt(s, "jit_merge_point"))
            {
                return Ok(i);
            }
        }
    }
    Err(syn::Error::new(
        func.sig.ident.span(),
        "#[jit_interp] needs a dispatch loop at the top level of the function: a `loop { \
         jit_merge_point!(); ... }`",
    ))
}

/// Rejects a `can_enter_jit!()` in `s`, a statement outside the dispatch
/// loop (it only stands right before a `continue` of that loop).
fn outside_dispatch_loop(s: &Stmt) -> syn::Result<()> {
    struct Find(Option<proc_macro2::Span>);
    impl syn::visit::Visit<'_> for Find {
        fn visit_macro(&mut self, m: &syn::Macro) {
            if m.path.is_ident("can_enter_jit") && self.0.is_none() {
                self.0 = Some(m.span());
            }
        }
    }
    let mut find = Find(None);
    syn::visit::Visit::visit_stmt(&mut find, s);
    match find.0 {
        Some(sp) => Err(syn::Error::new(
            sp,
            "`can_enter_jit!()` outside the dispatch loop: it must be the statement right \
             before a `continue` of the dispatch loop",
        )),
        None => Ok(()),
    }
}

/// The type names the attribute declares.
fn declared_names(attr: &attr::Attr) -> syn::Result<ty::Names> {
    let mut enums = Vec::new();
    for (name, repr) in &attr.enums {
        match ty::Ty::parse(repr)?.as_int() {
            Some(t) => enums.push((name.to_string(), t)),
            None => {
                return Err(syn::Error::new(
                    repr.span(),
                    "an enum's representation is an integer type (its `#[repr]`)",
                ))
            }
        }
    }
    Ok(ty::Names {
        structs: attr.structs.iter().map(|s| s.name.to_string()).collect(),
        enums,
    })
}

/// Resolves the declared GC structs' field types.
fn struct_defs(attr: &attr::Attr, names: &ty::Names) -> syn::Result<Vec<lower::StructDef>> {
    let mut out = Vec::new();
    for decl in &attr.structs {
        let mut fields = Vec::new();
        for ((f, t), &mark) in decl.fields.iter().zip(&decl.marks) {
            let ty = ty::Ty::parse_with(t, names)?;
            if mark == attr::FieldMark::QuasiImmutable && ty.is_ref() {
                return Err(syn::Error::new(
                    f.span(),
                    "a `#[quasi_immutable]` field holds an integer, `bool` or `f64`: traces fold \
                     its value into constants, and a folded GC reference would go stale when the \
                     collector moves the object",
                ));
            }
            if !ty.is_single() {
                return Err(syn::Error::new(
                    t.span(),
                    "a GC struct field is an integer, `bool`, `f64`, a declared struct, `Obj` or an \
                     `Array<T>`",
                ));
            }
            fields.push((f.to_string(), ty));
        }
        out.push(lower::StructDef {
            name: decl.name.to_string(),
            fields,
            headered: decl.headered,
            marks: decl.marks.clone(),
        });
    }
    Ok(out)
}

fn state_vars(
    attr: &attr::Attr,
    outer: &[Outer],
    names: &ty::Names,
) -> syn::Result<Vec<lower::StateVar>> {
    let mut out: Vec<lower::StateVar> = Vec::new();
    let all = attr.greens.iter().map(|g| (g, true));
    for (id, green) in all.chain(attr.reds.iter().map(|r| (r, false))) {
        let name = id.to_string();
        if out.iter().any(|s| s.name == *id) {
            return Err(syn::Error::new(
                id.span(),
                format!("`{name}` is declared twice in greens/reds"),
            ));
        }
        let Some(o) = outer.iter().find(|o| o.name == name) else {
            return Err(syn::Error::new(
                id.span(),
                format!(
                    "`{name}` is not a local or parameter of the interpreter function: greens \
                     and reds are the variables (declared before the dispatch loop) that the \
                     loop carries"
                ),
            ));
        };
        let Some(ty) = &o.ty else {
            return Err(syn::Error::new(
                id.span(),
                format!("give `{name}` a type annotation where it is declared"),
            ));
        };
        let rust_ty = ty.clone();
        if let syn::Type::Path(p) = ty {
            if names.enums.iter().any(|(e, _)| p.path.is_ident(e)) {
                return Err(syn::Error::new(
                    id.span(),
                    "a green or red cannot have an enum type (the JIT could not turn an integer \
                     back into it): keep the integer, or a slice of the enum",
                ));
            }
        }
        let ty = ty::Ty::parse_with(ty, names)?;
        if ty == ty::Ty::Unit {
            return Err(syn::Error::new(id.span(), "greens and reds cannot be `()`"));
        }
        out.push(lower::StateVar {
            name: id.clone(),
            ty,
            rust_ty,
            green,
        });
    }
    Ok(out)
}

fn expand(
    mut attr: attr::Attr,
    mut func: syn::ItemFn,
    traced_fns: Vec<syn::ItemFn>,
) -> syn::Result<proc_macro2::TokenStream> {
    fields::FieldSyntax {
        fields: Some(
            attr.structs
                .iter()
                .flat_map(|s| s.fields.iter().map(|(f, _)| f.to_string()))
                .collect(),
        ),
    }
    .visit_block_mut(&mut func.block);
    if !func.sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            func.sig.generics.span(),
            "#[jit_interp] functions cannot be generic",
        ));
    }
    let at = find_loop(&func)?;
    let recursive = recursion::mark(&mut func, at)? > 0;
    let stmts = &func.block.stmts;
    let Stmt::Expr(Expr::Loop(dispatch), semi) = &stmts[at] else {
        unreachable!("find_loop returns a loop")
    };
    for s in stmts[..at].iter().chain(&stmts[at + 1..]) {
        outside_dispatch_loop(s)?;
    }
    let outer = outer_vars(&func, &stmts[..at])?;
    let names = declared_names(&attr)?;
    for h in &mut attr.helpers {
        h.resolve(&names)?;
    }
    for (f, path) in traced_fns.iter().zip(attr.traced.clone()) {
        attr.helpers.push(traced::helper(f, path, &names)?);
    }
    inline::unique_helpers(&attr)?;
    let structs = struct_defs(&attr, &names)?;
    let state = state_vars(&attr, &outer, &names)?;
    let returns = returns(&func.sig.output, &names)?;
    let (ret, err) = (returns.ok.0, returns.err.as_ref().map(|e| e.0));
    let outer_names: Vec<String> = outer.iter().map(|o| o.name.clone()).collect();
    let params = match recursive {
        true => Some(recursion::params(&func, &state, &names)?),
        false => None,
    };
    let ctx = lower::Ctx {
        state: &state,
        helpers: &attr.helpers,
        structs: &structs,
        names: &names,
        outer: &outer_names,
        ret,
        err,
        loop_label: dispatch.label.as_ref().map(|l| l.name.ident.to_string()),
        break_ok: at + 1 == stmts.len() && semi.is_none(),
        helper: false,
        consts: None,
        self_struct: None,
        recursive: params.as_deref(),
    };
    let lowered = lower::lower(&ctx, &dispatch.body.stmts)?;
    let entry = match &params {
        Some(p) => {
            let setup = lower::Ctx {
                loop_label: None,
                break_ok: false,
                helper: true,
                recursive: None,
                self_struct: None,
                ..ctx
            };
            Some(lower::lower_entry(&setup, p, &stmts[..at])?)
        }
        None => None,
    };
    let helpers = inline::inline_helpers(&attr, &stmts[..at], &traced_fns, &ctx)?;
    if lowered.int_regs > 256 || lowered.ref_regs > 256 || lowered.float_regs > 256 {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            "the dispatch loop needs more than 256 registers of a bank: move handlers into \
             helpers",
        ));
    }

    let places = gc_places(&state, &outer, !structs.is_empty())?;
    let mut plain = func.clone();
    let cache = array_cache(&attr, &state, &structs, &func, &traced_fns);
    if let Some(cache) = &cache {
        cache.rewrite(&mut plain.block);
    }
    // (The view's refresh after a collection: vcache.rs counts on it.)
    let refresh = cache.as_ref().map(|c| c.refresh());
    emit::StripMarkers {
        safepoint: places.as_ref().map(|p| emit::safepoint(p, false, refresh)),
    }
    .visit_block_mut(&mut plain.block);
    let gc = !structs.is_empty();
    // A recursive interpreter's calls share one heap look-up (the context).
    let split = recursive && gc;
    let (calls, heap) = match split {
        true => (recursion::CallIn::PlainInner, emit::HeapFrom::Context),
        false => (recursion::CallIn::Plain, emit::HeapFrom::Thread),
    };
    recursion::expand_calls(&mut plain.block, &lowered.roots, calls, gc);
    emit::fast_heap(&mut plain.block, &structs, heap);
    let plain = match split {
        true => recursion::plain_context(&plain, &structs),
        false => quote!(#plain),
    };

    let safepoint = places.as_ref().map(|p| emit::safepoint(p, true, None));
    let jit = match recursive {
        true => recursion::jit_items(&recursion::JitItems {
            func: &func,
            at,
            state: &state,
            returns,
            roots: &lowered.roots,
            safepoint,
            structs: &structs,
        }),
        false => jit_entry(&func, at, &state, &outer, returns, safepoint, &structs),
    };
    let name = func.sig.ident.to_string();
    let floats = helpers
        .iter()
        .fold(lowered.float_shims.clone(), |mut all, (_, l)| {
            all.extend(l.float_shims.iter().cloned());
            all
        });
    let nested = inline::nested_helpers(&attr, &stmts[..at], &traced_fns)?;
    let shims = emit::shims(&name, &attr.helpers, &nested, &state, &floats);
    let jitcode = emit::jitcode_fn(
        &func.vis,
        &func.sig.ident,
        (&lowered, entry.as_ref()),
        &helpers,
        &structs,
        (shims, emit::residual_forms(&attr.helpers)),
    );
    let vable = attr
        .virtualizable
        .as_ref()
        .map(|frame| {
            vable::info(
                frame,
                attr.opaque_to_callees,
                &state,
                &structs,
                &attr.helpers,
            )
        })
        .transpose()?;
    let driver = emit::driver_fn(&func.vis, &func.sig.ident, vable);
    let types = structs
        .iter()
        .zip(&attr.structs)
        .map(|(d, decl)| emit::gc_struct(&func.vis, d, decl));
    Ok(quote!(#(#types)* #plain #jit #jitcode #driver))
}

/// The plain function's cached view of the virtualizable frame's array
/// (`vcache.rs`), when the frame has an `Array` field.
fn array_cache<'a>(
    attr: &'a attr::Attr,
    state: &[lower::StateVar],
    structs: &[lower::StructDef],
    func: &'a syn::ItemFn,
    traced_fns: &'a [syn::ItemFn],
) -> Option<vcache::ArrayCache<'a>> {
    let red = attr.virtualizable.as_ref()?;
    let sv = state.iter().find(|s| !s.green && s.name == *red)?;
    let ty::Ty::Gc(k) = sv.ty else { return None };
    let def = &structs[usize::from(k)];
    let i = def
        .fields
        .iter()
        .position(|(_, t)| matches!(t, ty::Ty::GcArray(_)))?;
    let decl = attr.structs.iter().find(|d| d.name == def.name)?;
    let (field, field_ty) = decl.fields.get(i).map(|(f, t)| (f, t))?;
    let nested = func.block.stmts.iter().filter_map(|s| match s {
        Stmt::Item(syn::Item::Fn(f)) => Some(f),
        _ => None,
    });
    Some(vcache::ArrayCache {
        red,
        field,
        field_ty,
        helpers: &attr.helpers,
        bodies: traced_fns.iter().chain(nested).collect(),
        structs: structs.iter().map(|s| s.name.clone()).collect(),
        memo: Default::default(),
        in_loop: Default::default(),
        breaks: Default::default(),
    })
}

/// The GC references the merge point's safepoint roots, when the
/// interpreter declares GC structs (`None`: no safepoint). A GC-typed red
/// must be a mutable local (the safepoint writes moved references back);
/// a green cannot be GC-typed (traces hold greens as constants, which a
/// moving collector would leave stale).
fn gc_places(
    state: &[lower::StateVar],
    outer: &[Outer],
    has_structs: bool,
) -> syn::Result<Option<Vec<emit::GcPlace>>> {
    for sv in state {
        let gc = match sv.ty {
            t if t.is_ref() => true,
            ty::Ty::Array { item, .. } => item.ty().is_ref(),
            _ => false,
        };
        if !gc {
            continue;
        }
        let name = sv.name.to_string();
        if sv.green {
            return Err(syn::Error::new(
                sv.name.span(),
                format!(
                    "`{name}` is a GC handle and cannot be a green: the collector moves objects, \
                     while traces keep greens as constants (make it a red)"
                ),
            ));
        }
        if !outer.iter().any(|o| o.name == name && o.mutable) {
            return Err(syn::Error::new(
                sv.name.span(),
                format!(
                    "declare `{name}` with `mut`: a GC-typed red is updated when the collector \
                     moves its object"
                ),
            ));
        }
    }
    Ok(has_structs.then(|| emit::gc_places(state)))
}

/// The interpreter's return type (`()` when it has none).
fn return_tokens(func: &syn::ItemFn) -> proc_macro2::TokenStream {
    match &func.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, t) => quote!(#t),
    }
}

/// What the interpreter returns: its type (an integer, a bool, an `f64`
/// or `()`), or `Result<T, E>` of one with an error type `E` (see
/// `lower/results.rs`).
fn returns(output: &syn::ReturnType, names: &ty::Names) -> syn::Result<emit::Returns> {
    let syn::ReturnType::Type(_, t) = output else {
        return Ok(emit::Returns {
            ok: (ty::Ty::Unit, quote!(())),
            err: None,
        });
    };
    let (ok, err) = match ty::result_parts(t) {
        Some((ok, e)) => (ok, Some((ty::error_ty(e, names)?, quote!(#e)))),
        None => (&**t, None),
    };
    match ty::Ty::parse(ok)? {
        ok_ty @ (ty::Ty::Scalar(_) | ty::Ty::Unit) => Ok(emit::Returns {
            ok: (ok_ty, quote!(#ok)),
            err,
        }),
        _ => Err(syn::Error::new(
            ok.span(),
            "the interpreter must return an integer, a bool, an `f64`, `()`, or a `Result<T, E>` \
             of one",
        )),
    }
}

/// `NAME_jit`: the interpreter with the driver glue.
fn jit_entry(
    func: &syn::ItemFn,
    at: usize,
    state: &[lower::StateVar],
    outer: &[Outer],
    returns: emit::Returns,
    safepoint: Option<proc_macro2::TokenStream>,
    structs: &[lower::StructDef],
) -> proc_macro2::TokenStream {
    let mut f = func.clone();
    let label: syn::Lifetime = match &mut f.block.stmts[at] {
        Stmt::Expr(Expr::Loop(l), _) => l
            .label
            .get_or_insert_with(|| syn::parse_quote!('__majit_dispatch:))
            .name
            .clone(),
        _ => unreachable!("find_loop returns a loop"),
    };
    let mutable: Vec<String> = outer
        .iter()
        .filter(|o| o.mutable)
        .map(|o| o.name.clone())
        .collect();
    let fallible = returns.err.is_some();
    let glue = emit::glue(state, &mutable, returns, &label, emit::EnterKind::BackEdge);
    emit::JitBody {
        glue,
        safepoint,
        fallible,
    }
    .visit_block_mut(&mut f.block);
    emit::fast_heap(&mut f.block, structs, emit::HeapFrom::ThreadForJit);
    f.sig.ident = format_ident!("{}_jit", func.sig.ident);
    jit_signature(f, func, quote!(&mut))
}

/// The JIT entry `f` (named already) from the interpreter `func` with its
/// body rewritten for the JIT: taking the driver first (by `by`, `&` or
/// `&mut`), returning `Result<R, JitError>`, with the body run in
/// `catch_unwind` (a panic while interpreting is the run's
/// `JitError::Panic`).
fn jit_signature(
    mut f: syn::ItemFn,
    func: &syn::ItemFn,
    by: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let r = return_tokens(func);
    f.sig.generics = syn::parse_quote!(<__B: ::majit::metainterp::Backend>);
    f.sig.inputs.insert(
        0,
        syn::parse_quote!(__majit_driver: #by ::majit::metainterp::driver::JitDriver<__B>),
    );
    f.sig.output = syn::parse_quote!(
        -> ::core::result::Result<#r, ::majit::metainterp::driver::JitError>
    );
    let stmts = &f.block.stmts;
    // A panic while interpreting (in the body or a helper it calls
    // directly) ends the run with the same error as one in the JIT.
    let place = format!("`{}_jit` while interpreting", func.sig.ident);
    let jit = quote!(::majit::metainterp);
    f.block = syn::parse_quote!({
        let __majit_run = ::std::panic::AssertUnwindSafe(
            || -> ::core::result::Result<#r, #jit::driver::JitError> {
                ::core::result::Result::Ok({ #(#stmts)* })
            },
        );
        match ::std::panic::catch_unwind(__majit_run) {
            ::core::result::Result::Ok(r) => r,
            ::core::result::Result::Err(p) => {
                ::core::result::Result::Err(#jit::driver::JitError::Panic {
                    place: #place.into(),
                    message: #jit::runtime::panic_message(&*p),
                })
            }
        }
    });
    let doc = format!(
        "`{}` with the JIT (generated by `#[jit_interp]`): the driver traces and runs \
         compiled loops at every `can_enter_jit!()`. What the plain function would panic with \
         (in the body, a helper, a bounds or divisor check) is `Err(JitError::Panic)`.",
        func.sig.ident
    );
    f.attrs.retain(|a| !a.path().is_ident("doc"));
    quote!(#[doc = #doc] #[allow(unreachable_code)] #f)
}
