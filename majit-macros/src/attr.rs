//! Parsing of the `#[jit_interp(...)]` arguments.
//!
//! Grammar (every key at most once, `helpers` and `structs` optional):
//! `greens = [ident, ...], reds = [ident, ...],
//!  helpers = [policy (no_force)? fn name(arg: Ty, ...) -> Ty, ...],
//!  structs = [#[headered]? Name { field: Ty, ... }, ...], enums = [Name: repr, ...],
//!  traced = [path, ...], virtualizable = red (opaque_to_callees)?`
//! where `policy` is `residual`, `elidable`, `inline`, `loop_invariant` or
//! `dont_look_inside` (the last two may say `(no_force)`: the helper never
//! reaches the virtualizable frame), a helper's name may be a path, and a
//! struct field is an integer, `bool`, `f64` or another declared struct. Names are checked against
//! the function later (the attribute alone cannot know its locals).

use crate::ty::{Names, Ty};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{bracketed, parenthesized, Ident, Token};

/// How a helper call is traced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Recorded as a call; its effects are unknown to the JIT.
    Residual,
    /// Pure: folded when every argument is constant.
    Elidable,
    /// Traced through: its body (a nested `fn` of the interpreter
    /// function, or a `#[majit::traced]` function) is lowered to its own
    /// jitcode function.
    Inline,
    /// No arguments, the same result for a whole loop iteration: a
    /// residual call the optimizer keeps once per iteration.
    LoopInvariant,
    /// A residual call of a function the JIT could trace (e.g. one marked
    /// `#[majit::traced]`), kept opaque on purpose.
    DontLookInside,
}

impl Policy {
    /// The keyword that declares it.
    pub fn keyword(self) -> &'static str {
        match self {
            Policy::Residual => "residual",
            Policy::Elidable => "elidable",
            Policy::Inline => "inline",
            Policy::LoopInvariant => "loop_invariant",
            Policy::DontLookInside => "dont_look_inside",
        }
    }
}

/// One declared helper.
pub struct Helper {
    pub policy: Policy,
    /// The function's name (the last segment of its path).
    pub name: Ident,
    /// The function's path as written (the shim calls it).
    pub path: syn::Path,
    /// The argument types (see [`Helper::resolve`]).
    pub args: Vec<Ty>,
    /// The argument types as written (the shim casts to them).
    pub arg_tys: Vec<syn::Type>,
    /// The result type (for `Result<T, E>`: `T`); `None`: returns `()`.
    pub ret: Option<Ty>,
    /// The result type as written.
    pub ret_ty: Option<syn::Type>,
    /// For a helper returning `Result<T, E>`: `E` (it can fail: the shim
    /// raises the error, see `lower/results.rs`).
    pub err: Option<Ty>,
    /// A traced method (`methods.rs`): called as `x.name(..)`, its first
    /// argument the receiver. Its `name` is then `Type_method`.
    pub method: Option<Method>,
    /// Declared `residual(no_force)` (or `dont_look_inside(no_force)`):
    /// the helper never reaches the virtualizable frame, so its call is
    /// not `may_force` even when given GC handles (the frame stays in
    /// registers across it; see [`Helper::may_force`]).
    pub no_force: bool,
}

/// The receiver side of a traced method.
pub struct Method {
    /// The declared GC struct of `self`.
    pub ty: Ident,
    /// The method's name.
    pub name: Ident,
    /// It takes `&self` (its shim lends the handle).
    pub by_ref: bool,
}

impl Helper {
    /// Whether a call of it as `policy` (its own, or `dont_look_inside`
    /// for the residual form of a traced function) may force the
    /// virtualizable frame: a residual call given a GC handle may be given
    /// the frame, unless the helper is declared `no_force`. The tracer
    /// writes the frame back before such a call and reloads it after; the
    /// plain interpreter's cached view of the frame's array goes stale
    /// (`vcache.rs`).
    pub fn may_force(&self, policy: Policy) -> bool {
        matches!(policy, Policy::Residual | Policy::DontLookInside)
            && !self.no_force
            && self.args.iter().any(|t| t.is_ref())
    }

    /// Resolves the argument and result types, which may name declared
    /// structs: integers, `bool`, `f64` and GC handles (declared structs,
    /// `Obj`, `Array<T>`: in the ref bank; through the `extern "C"` shim
    /// as addresses).
    pub fn resolve(&mut self, names: &Names) -> syn::Result<()> {
        let one = |t: &syn::Type| match Ty::parse_with(t, names)? {
            ty if ty.is_single() => Ok(ty),
            _ => Err(syn::Error::new_spanned(
                t,
                "helper arguments and results must be integers, `bool`, `f64`, declared GC \
                 structs, `Obj` or `Array<T>` (arguments also slices `&[T]` / `&mut [T]` of \
                 integers, `bool` or `f64`)",
            )),
        };
        let arg = |t: &syn::Type| match Ty::parse_with(t, names) {
            Ok(ty) if ty.is_param() => Ok(ty),
            _ => one(t),
        };
        self.args = self.arg_tys.iter().map(arg).collect::<syn::Result<_>>()?;
        if self.policy != Policy::Inline {
            check_arg_limits(&self.name, &self.args)?;
        }
        let (ok, err) = match &self.ret_ty {
            Some(t) => match crate::ty::result_parts(t) {
                Some((ok, err)) => (Some(ok), Some(crate::ty::error_ty(err, names)?)),
                None => (Some(t), None),
            },
            None => (None, None),
        };
        self.ret = match ok {
            Some(t) if Ty::parse_with(t, names)? != Ty::Unit => Some(one(t)?),
            _ => None,
        };
        self.err = err;
        if self.err.is_some() && self.policy == Policy::LoopInvariant {
            return Err(syn::Error::new(
                self.name.span(),
                "a `loop_invariant` helper cannot fail: its result is reused for the whole loop \
                 iteration (declare it `residual` to return a `Result`)",
            ));
        }
        if self.policy == Policy::LoopInvariant && (!self.args.is_empty() || self.ret.is_none()) {
            return Err(syn::Error::new(
                self.name.span(),
                "a `loop_invariant` helper takes no arguments and returns a value (the same \
                 for a whole loop iteration): `loop_invariant fn f() -> T`",
            ));
        }
        Ok(())
    }
}

/// One declared GC struct: `Name { field: Type, ... }`, or
/// `#[headered] Name { .. }` for a struct whose objects carry their type
/// id, so that an `Obj` holding one can be tested for its class.
pub struct StructDecl {
    pub name: Ident,
    pub fields: Vec<(Ident, syn::Type)>,
    pub headered: bool,
    /// Per field: its mark.
    pub marks: Vec<FieldMark>,
}

/// How a GC struct field may change after its object is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldMark {
    /// Written at will (a setter).
    Plain,
    /// `#[immutable]`: set by the constructor only (no setter), so a
    /// trace's load of it survives calls.
    Immutable,
    /// `#[quasi_immutable]`: read often, written rarely; traces fold it
    /// and a write invalidates them.
    QuasiImmutable,
}

impl Parse for StructDecl {
    fn parse(input: ParseStream) -> syn::Result<StructDecl> {
        let mut headered = false;
        for a in input.call(syn::Attribute::parse_outer)? {
            if !a.path().is_ident("headered") || !matches!(a.meta, syn::Meta::Path(_)) {
                return Err(syn::Error::new_spanned(
                    &a,
                    "the only attribute of a declared struct is `#[headered]` (objects with a \
                     type id header, whose class `Obj::is::<T>()` can test)",
                ));
            }
            headered = true;
        }
        let name: Ident = input.parse()?;
        let content;
        syn::braced!(content in input);
        let mut fields = Vec::new();
        let mut marks = Vec::new();
        while !content.is_empty() {
            let mut mark = FieldMark::Plain;
            for a in content.call(syn::Attribute::parse_outer)? {
                let word = match &a.meta {
                    syn::Meta::Path(p) if p.is_ident("immutable") => FieldMark::Immutable,
                    syn::Meta::Path(p) if p.is_ident("quasi_immutable") => {
                        FieldMark::QuasiImmutable
                    }
                    _ => FieldMark::Plain,
                };
                if word == FieldMark::Plain || mark != FieldMark::Plain {
                    return Err(syn::Error::new_spanned(
                        &a,
                        "a GC struct field takes one attribute: `#[immutable]` (set by the \
                         constructor only: traces keep its loads across calls) or \
                         `#[quasi_immutable]` (read often, written rarely: traces fold it and \
                         are invalidated by a write)",
                    ));
                }
                mark = word;
            }
            marks.push(mark);
            let f: Ident = content.parse()?;
            content.parse::<Token![:]>()?;
            fields.push((f, content.parse::<syn::Type>()?));
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        Ok(StructDecl {
            name,
            fields,
            headered,
            marks,
        })
    }
}

/// The parsed attribute.
pub struct Attr {
    pub greens: Vec<Ident>,
    pub reds: Vec<Ident>,
    pub helpers: Vec<Helper>,
    pub structs: Vec<StructDecl>,
    /// Fieldless enums with their `#[repr]` integer type.
    pub enums: Vec<(Ident, syn::Type)>,
    /// Functions marked `#[majit::traced]`, by path (see `traced.rs`).
    pub traced: Vec<syn::Path>,
    /// The red holding the interpreter's frame, a GC struct whose fields
    /// and `Array` field live in registers inside compiled code.
    pub virtualizable: Option<Ident>,
    /// `virtualizable = frame(opaque_to_callees)`: calls of the
    /// interpreted program never look at their callers' frames
    /// (`VirtualizableInfo::opaque_to_callees`).
    pub opaque_to_callees: bool,
}

/// `red` or `red(opaque_to_callees)`: the virtualizable frame and its
/// promise.
fn virtualizable_arg(input: ParseStream) -> syn::Result<(Ident, bool)> {
    let red: Ident = input.parse()?;
    if !input.peek(syn::token::Paren) {
        return Ok((red, false));
    }
    let content;
    parenthesized!(content in input);
    let flag: Ident = content.parse()?;
    if flag != "opaque_to_callees" || !content.is_empty() {
        return Err(syn::Error::new(
            flag.span(),
            format!(
                "unknown `virtualizable` option `{flag}`: the only one is `opaque_to_callees` \
                 (calls of the interpreted program never read or write their callers' frames)"
            ),
        ));
    }
    Ok((red, true))
}

fn ident_list(input: ParseStream) -> syn::Result<Vec<Ident>> {
    let content;
    bracketed!(content in input);
    let list = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
    Ok(list.into_iter().collect())
}

/// The optional `(no_force)` after a helper's policy.
fn parse_no_force(input: ParseStream, policy: Policy) -> syn::Result<bool> {
    if !input.peek(syn::token::Paren) {
        return Ok(false);
    }
    let content;
    parenthesized!(content in input);
    let flag: Ident = content.parse()?;
    if flag != "no_force" || !content.is_empty() {
        return Err(syn::Error::new(
            flag.span(),
            "the only helper flag is `no_force` (`residual(no_force) fn ..`: the helper never \
             reaches the virtualizable frame)",
        ));
    }
    if !matches!(policy, Policy::Residual | Policy::DontLookInside) {
        return Err(syn::Error::new(
            flag.span(),
            format!(
                "`no_force` is for `residual` and `dont_look_inside` helpers (`{}` helpers \
                 never force the frame)",
                policy.keyword()
            ),
        ));
    }
    Ok(true)
}

impl Parse for Helper {
    fn parse(input: ParseStream) -> syn::Result<Helper> {
        let policy_id: Ident = input.parse()?;
        let all = [
            Policy::Residual,
            Policy::Elidable,
            Policy::Inline,
            Policy::LoopInvariant,
            Policy::DontLookInside,
        ];
        let Some(policy) = all.into_iter().find(|p| policy_id == p.keyword()) else {
            return Err(syn::Error::new(
                policy_id.span(),
                format!(
                    "unknown helper policy `{policy_id}`: use `residual` (the call is recorded), \
                     `elidable` (pure, folded on constants), `inline` (traced through), \
                     `loop_invariant` (no arguments, called once per loop iteration) or \
                     `dont_look_inside` (recorded, even for a traced function)"
                ),
            ));
        };
        let no_force = parse_no_force(input, policy)?;
        input.parse::<Token![fn]>()?;
        let path: syn::Path = input.parse()?;
        let name = path.segments.last().expect("a path").ident.clone();
        if policy == Policy::Inline && path.get_ident().is_none() {
            return Err(syn::Error::new_spanned(
                &path,
                "an `inline` helper is a nested `fn` named by its name; a function elsewhere is \
                 marked `#[majit::traced]` and listed in `traced = [..]`",
            ));
        }
        let content;
        parenthesized!(content in input);
        let mut arg_tys = Vec::new();
        while !content.is_empty() {
            content.parse::<Ident>()?;
            content.parse::<Token![:]>()?;
            arg_tys.push(content.parse::<syn::Type>()?);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        let ret_ty = if input.peek(Token![->]) {
            input.parse::<Token![->]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Helper {
            policy,
            name,
            path,
            args: Vec::new(),
            arg_tys,
            ret: None,
            ret_ty,
            err: None,
            method: None,
            no_force,
        })
    }
}

/// The most arguments of each bank a helper call passes (the canonical
/// call of `majit-metainterp/src/runtime/call.rs`).
const MAX_INT_ARGS: usize = 16;
const MAX_FLOAT_ARGS: usize = 8;

fn check_arg_limits(name: &Ident, args: &[Ty]) -> syn::Result<()> {
    let floats = args
        .iter()
        .filter(|a| matches!(a, Ty::Scalar(s) if s.is_float()))
        .count();
    // A slice is two words: its data pointer and its length.
    let slices = args
        .iter()
        .filter(|a| matches!(a, Ty::Slice { .. }))
        .count();
    let ints = args.len() - floats + slices;
    if ints > MAX_INT_ARGS || floats > MAX_FLOAT_ARGS {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "helper `{name}` takes {ints} integer/bool/handle and {floats} `f64` arguments: \
                 a call passes at most {MAX_INT_ARGS} and {MAX_FLOAT_ARGS}"
            ),
        ));
    }
    Ok(())
}

impl Parse for Attr {
    fn parse(input: ParseStream) -> syn::Result<Attr> {
        let (mut greens, mut reds, mut helpers, mut structs) = (None, None, None, None);
        let (mut enums, mut traced, mut virtualizable) = (None, None, None);
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let dup = |k: &Ident| syn::Error::new(k.span(), format!("`{k}` is given twice"));
            match key.to_string().as_str() {
                "greens" if greens.is_none() => greens = Some(ident_list(input)?),
                "reds" if reds.is_none() => reds = Some(ident_list(input)?),
                "helpers" if helpers.is_none() => {
                    let content;
                    bracketed!(content in input);
                    let list = Punctuated::<Helper, Token![,]>::parse_terminated(&content)?;
                    helpers = Some(list.into_iter().collect());
                }
                "structs" if structs.is_none() => {
                    let content;
                    bracketed!(content in input);
                    let list = Punctuated::<StructDecl, Token![,]>::parse_terminated(&content)?;
                    structs = Some(list.into_iter().collect());
                }
                "enums" if enums.is_none() => {
                    let content;
                    bracketed!(content in input);
                    let mut list = Vec::new();
                    while !content.is_empty() {
                        let name: Ident = content.parse()?;
                        content.parse::<Token![:]>()?;
                        list.push((name, content.parse::<syn::Type>()?));
                        if content.is_empty() {
                            break;
                        }
                        content.parse::<Token![,]>()?;
                    }
                    enums = Some(list);
                }
                "traced" if traced.is_none() => {
                    let content;
                    bracketed!(content in input);
                    let list = Punctuated::<syn::Path, Token![,]>::parse_terminated(&content)?;
                    traced = Some(list.into_iter().collect());
                }
                "virtualizable" if virtualizable.is_none() => {
                    virtualizable = Some(virtualizable_arg(input)?)
                }
                "greens" | "reds" | "helpers" | "structs" | "enums" | "traced"
                | "virtualizable" => return Err(dup(&key)),
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown #[jit_interp] key `{other}`: expected `greens`, `reds`, \
                             `helpers`, `structs`, `enums`, `traced` or `virtualizable`"
                        ),
                    ))
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        let greens = greens.ok_or_else(|| {
            input.error("#[jit_interp] needs `greens = [...]` (the position in the user program)")
        })?;
        let reds = reds.ok_or_else(|| {
            input.error("#[jit_interp] needs `reds = [...]` (the rest of the loop state)")
        })?;
        Ok(Attr {
            greens,
            reds,
            helpers: helpers.unwrap_or_default(),
            structs: structs.unwrap_or_default(),
            enums: enums.unwrap_or_default(),
            traced: traced.unwrap_or_default(),
            opaque_to_callees: virtualizable.as_ref().is_some_and(|v: &(Ident, bool)| v.1),
            virtualizable: virtualizable.map(|v| v.0),
        })
    }
}
