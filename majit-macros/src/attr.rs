//! Parsing of the `#[jit_interp(...)]` arguments.
//!
//! Grammar (every key at most once, `helpers` and `structs` optional):
//! `greens = [ident, ...], reds = [ident, ...],
//!  helpers = [policy fn name(arg: Ty, ...) -> Ty, ...],
//!  structs = [#[headered]? Name { field: Ty, ... }, ...], enums = [Name: repr, ...],
//!  virtualizable = red`
//! where `policy` is `residual`, `elidable` or `inline` and a struct field is an
//! integer, `bool`, `f64` or another declared struct. Names are checked against
//! the function later (the attribute alone cannot know its locals).

use crate::ty::{Scalar, Ty};
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
    /// function) is lowered to its own jitcode function.
    Inline,
}

/// One declared helper.
pub struct Helper {
    pub policy: Policy,
    pub name: Ident,
    pub args: Vec<Scalar>,
    /// The argument types as written (the shim casts to them).
    pub arg_tys: Vec<syn::Type>,
    /// `None`: returns `()`.
    pub ret: Option<Scalar>,
}

/// One declared GC struct: `Name { field: Type, ... }`, or
/// `#[headered] Name { .. }` for a struct whose objects carry their type
/// id, so that an `Obj` holding one can be tested for its class.
pub struct StructDecl {
    pub name: Ident,
    pub fields: Vec<(Ident, syn::Type)>,
    pub headered: bool,
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
        while !content.is_empty() {
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
    /// The red holding the interpreter's frame, a GC struct whose fields
    /// and `Array` field live in registers inside compiled code.
    pub virtualizable: Option<Ident>,
}

fn ident_list(input: ParseStream) -> syn::Result<Vec<Ident>> {
    let content;
    bracketed!(content in input);
    let list = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
    Ok(list.into_iter().collect())
}

fn scalar(ty: &syn::Type) -> syn::Result<Scalar> {
    match Ty::parse(ty)? {
        Ty::Scalar(s) => Ok(s),
        _ => Err(syn::Error::new_spanned(
            ty,
            "helper arguments and results must be integers, `bool` or `f64`",
        )),
    }
}

impl Parse for Helper {
    fn parse(input: ParseStream) -> syn::Result<Helper> {
        let policy_id: Ident = input.parse()?;
        let policy = match policy_id.to_string().as_str() {
            "residual" => Policy::Residual,
            "elidable" => Policy::Elidable,
            "inline" => Policy::Inline,
            other => {
                return Err(syn::Error::new(
                    policy_id.span(),
                    format!(
                        "unknown helper policy `{other}`: use `residual` (the call is \
                         recorded), `elidable` (pure, folded on constants) or `inline` (traced \
                         through)"
                    ),
                ))
            }
        };
        input.parse::<Token![fn]>()?;
        let name: Ident = input.parse()?;
        let content;
        parenthesized!(content in input);
        let (mut args, mut arg_tys) = (Vec::new(), Vec::new());
        while !content.is_empty() {
            content.parse::<Ident>()?;
            content.parse::<Token![:]>()?;
            let ty = content.parse::<syn::Type>()?;
            args.push(scalar(&ty)?);
            arg_tys.push(ty);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        if policy != Policy::Inline {
            check_arg_limits(&name, &args)?;
        }
        let ret = if input.peek(Token![->]) {
            input.parse::<Token![->]>()?;
            let ty: syn::Type = input.parse()?;
            match Ty::parse(&ty)? {
                Ty::Unit => None,
                _ => Some(scalar(&ty)?),
            }
        } else {
            None
        };
        Ok(Helper {
            policy,
            name,
            args,
            arg_tys,
            ret,
        })
    }
}

/// The most arguments of each bank a helper call passes (the canonical
/// call of `majit-metainterp/src/runtime/call.rs`).
const MAX_INT_ARGS: usize = 16;
const MAX_FLOAT_ARGS: usize = 8;

fn check_arg_limits(name: &Ident, args: &[Scalar]) -> syn::Result<()> {
    let floats = args.iter().filter(|a| a.is_float()).count();
    let ints = args.len() - floats;
    if ints > MAX_INT_ARGS || floats > MAX_FLOAT_ARGS {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "helper `{name}` takes {ints} integer/bool and {floats} `f64` arguments: a \
                 call passes at most {MAX_INT_ARGS} and {MAX_FLOAT_ARGS}"
            ),
        ));
    }
    Ok(())
}

impl Parse for Attr {
    fn parse(input: ParseStream) -> syn::Result<Attr> {
        let (mut greens, mut reds, mut helpers, mut structs) = (None, None, None, None);
        let (mut enums, mut virtualizable) = (None, None);
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
                "virtualizable" if virtualizable.is_none() => virtualizable = Some(input.parse()?),
                "greens" | "reds" | "helpers" | "structs" | "enums" | "virtualizable" => {
                    return Err(dup(&key))
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown #[jit_interp] key `{other}`: expected `greens`, `reds`, \
                             `helpers`, `structs`, `enums` or `virtualizable`"
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
            virtualizable,
        })
    }
}
