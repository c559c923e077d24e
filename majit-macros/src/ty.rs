//! The types the lowering understands, and how each crosses between Rust
//! and jitcode.
//!
//! Integers and bools live in the int bank: integers keep their Rust
//! value sign- or zero-extended to 64 bits (so narrow types are
//! re-normalised after arithmetic that can leave their range), `bool` is
//! 0 or 1. An `f64` lives in the float bank (its bits, as Rust holds
//! them: NaN payloads and `-0.0` survive every copy). A slice is two
//! registers: its data pointer (ref bank) and its length (int bank). A fixed array `[T; N]` of scalars or GC handles is N
//! registers of T's bank: a register file the JIT tracks item by item, so
//! an item indexed by a green folds to one register in a trace. Anything
//! else is rejected where it is written.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

/// A Rust integer type: width and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntTy {
    pub bits: u8,
    pub signed: bool,
}

/// A scalar: an integer or a bool (int bank), or an `f64` (float bank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Int(IntTy),
    Bool,
    F64,
}

/// The type of a lowered value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Scalar(Scalar),
    /// `&[T]` / `&mut [T]` of a scalar.
    Slice {
        elem: Scalar,
        mutable: bool,
    },
    /// A handle of the declared GC struct with this index (ref bank).
    Gc(u8),
    /// `Obj`: a handle of any `#[headered]` struct (ref bank), tested
    /// with `is::<T>()` and cast with `cast::<T>()`.
    Obj,
    /// `Array<T>`: a handle of a GC array of `T`s (ref bank).
    GcArray(Item),
    /// `[T; len]` of a scalar or GC handle: `len` registers.
    Array {
        item: Item,
        len: u16,
    },
    /// The `Option` of `x.checked_*(y)`: the wrapped result and a `Some`
    /// flag (int bank; see `lower/overflow.rs`). Never a green or red.
    Checked(IntTy),
    Unit,
    /// A `Result<T, E>` kept in a local (`lower/result_values.rs`): a flag
    /// (1 = `Ok`, int bank), the error and the value (`None`: `T` is `()`),
    /// each in a register of its bank. Never a green or red.
    Result {
        ok: Option<Item>,
        err: Item,
    },
    /// The result of a function returning `Result<T, E>` (`T` and `E` are
    /// its `Ctx::ret` and `Ctx::err`; see `lower/results.rs`): only what
    /// the lowering is asked for (the `want` of the function's tail and of
    /// `return`), never a value.
    Fallible,
}

/// The item type of an array green or red, or of a GC array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    Scalar(Scalar),
    Gc(u8),
    Obj,
}

impl Item {
    pub fn ty(self) -> Ty {
        match self {
            Item::Scalar(s) => Ty::Scalar(s),
            Item::Gc(i) => Ty::Gc(i),
            Item::Obj => Ty::Obj,
        }
    }

    /// The item type of a value of type `t`, if it can be one.
    pub fn of(t: Ty) -> Option<Item> {
        match t {
            Ty::Scalar(s) => Some(Item::Scalar(s)),
            Ty::Gc(i) => Some(Item::Gc(i)),
            Ty::Obj => Some(Item::Obj),
            _ => None,
        }
    }

    /// The Rust type (`structs`: the declared struct names).
    pub fn rust(self, structs: &[String]) -> TokenStream {
        match self {
            Item::Scalar(Scalar::Bool) => quote!(bool),
            Item::Scalar(Scalar::Int(t)) => t.rust(),
            Item::Scalar(Scalar::F64) => quote!(f64),
            Item::Gc(i) => {
                let n = quote::format_ident!("{}", structs[usize::from(i)]);
                quote!(#n)
            }
            Item::Obj => quote!(::majit::gc::Obj),
        }
    }

    /// The facts of a GC array of this item for its `ArrayDescr`: item
    /// size in bytes, sign extension and register kind. One row per
    /// element kind (see `majit_gc::array`).
    pub fn array_facts(self) -> (u8, bool, TokenStream) {
        match self {
            Item::Scalar(Scalar::F64) => (8, false, quote!(::majit::ir::Kind::Float)),
            Item::Scalar(s) => (s.item_size(), s.signed(), quote!(::majit::ir::Kind::Int)),
            Item::Gc(_) | Item::Obj => (8, false, quote!(::majit::ir::Kind::Ref)),
        }
    }
}

pub const I64: IntTy = IntTy {
    bits: 64,
    signed: true,
};
pub const USIZE: IntTy = IntTy {
    bits: 64,
    signed: false,
};

impl IntTy {
    /// The integer type named `name` (`i64`, `usize`, ...).
    pub fn from_name(name: &str) -> Option<IntTy> {
        let (signed, bits) = match name {
            "i8" => (true, 8),
            "i16" => (true, 16),
            "i32" => (true, 32),
            "i64" | "isize" => (true, 64),
            "u8" => (false, 8),
            "u16" => (false, 16),
            "u32" => (false, 32),
            "u64" | "usize" => (false, 64),
            _ => return None,
        };
        Some(IntTy { bits, signed })
    }

    /// The Rust type (the 64-bit ones as `i64`/`u64`).
    pub fn rust(self) -> TokenStream {
        match (self.signed, self.bits) {
            (true, 8) => quote!(i8),
            (true, 16) => quote!(i16),
            (true, 32) => quote!(i32),
            (true, _) => quote!(i64),
            (false, 8) => quote!(u8),
            (false, 16) => quote!(u16),
            (false, 32) => quote!(u32),
            (false, _) => quote!(u64),
        }
    }
}

impl Scalar {
    /// Width in bytes as an array item.
    pub fn item_size(self) -> u8 {
        match self {
            Scalar::Int(t) => t.bits / 8,
            Scalar::Bool => 1,
            Scalar::F64 => 8,
        }
    }
    pub fn signed(self) -> bool {
        matches!(self, Scalar::Int(IntTy { signed: true, .. }))
    }
    /// A short name for descriptors (`u8`, `i64`, `bool`).
    pub fn name(self) -> String {
        match self {
            Scalar::Int(t) => t.rust().to_string(),
            Scalar::Bool => "bool".into(),
            Scalar::F64 => "f64".into(),
        }
    }
    /// Whether values of this scalar live in the float bank.
    pub fn is_float(self) -> bool {
        self == Scalar::F64
    }
}

impl Ty {
    pub fn int(t: IntTy) -> Ty {
        Ty::Scalar(Scalar::Int(t))
    }
    pub const BOOL: Ty = Ty::Scalar(Scalar::Bool);
    pub const F64: Ty = Ty::Scalar(Scalar::F64);

    /// Whether values of this type are GC references (ref bank).
    pub fn is_ref(self) -> bool {
        matches!(self, Ty::Gc(_) | Ty::Obj | Ty::GcArray(_))
    }

    /// Whether a value of this type fits one register (a `let`, a join, a
    /// struct field, an operand).
    pub fn is_single(self) -> bool {
        matches!(self, Ty::Scalar(_)) || self.is_ref()
    }

    /// Whether a helper, inline helper or traced function can take a
    /// value of this type: one register, or a slice (its data pointer and
    /// length: two arguments, as at the merge point).
    pub fn is_param(self) -> bool {
        self.is_single() || matches!(self, Ty::Slice { .. })
    }

    /// Whether a value of this type can be passed where `param` is
    /// expected: the same type, or a `&mut [T]` for a `&[T]` (Rust's
    /// coercion).
    pub fn passes_as(self, param: Ty) -> bool {
        match (self, param) {
            (
                Ty::Slice { elem: a, .. },
                Ty::Slice {
                    elem: b,
                    mutable: false,
                },
            ) => a == b,
            _ => self == param,
        }
    }

    /// The integer type, if this is one.
    pub fn as_int(self) -> Option<IntTy> {
        match self {
            Ty::Scalar(Scalar::Int(t)) => Some(t),
            _ => None,
        }
    }

    /// Parses a Rust type the JIT supports (no declared names).
    pub fn parse(ty: &syn::Type) -> syn::Result<Ty> {
        Ty::parse_with(ty, &Names::default())
    }

    /// Parses a Rust type the JIT supports, knowing the declared GC
    /// structs and enums.
    pub fn parse_with(ty: &syn::Type, names: &Names) -> syn::Result<Ty> {
        let unsupported = || {
            syn::Error::new(
                ty.span(),
                "this type is not supported by #[jit_interp]: use an integer type, `bool`, \
                 `f64`, a slice `&[T]` / `&mut [T]` of them, an array `[T; N]` of them or of a \
                 declared struct, a struct declared in `structs`, or `Obj`",
            )
        };
        match ty {
            syn::Type::Paren(p) => Ty::parse_with(&p.elem, names),
            syn::Type::Tuple(t) if t.elems.is_empty() => Ok(Ty::Unit),
            syn::Type::Path(p) if p.qself.is_none() => {
                if let Some(item) = gc_array_item(p, names)? {
                    return Ok(Ty::GcArray(item));
                }
                let id = p.path.get_ident().ok_or_else(unsupported)?.to_string();
                if let Some(i) = names.structs.iter().position(|s| *s == id) {
                    return Ok(Ty::Gc(i as u8));
                }
                if id == "Obj" {
                    return Ok(Ty::Obj);
                }
                if let Some((_, t)) = names.enums.iter().find(|(e, _)| *e == id) {
                    return Ok(Ty::int(*t));
                }
                scalar_named(&id).map(Ty::Scalar).ok_or_else(unsupported)
            }
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => match Ty::parse_with(&s.elem, names)? {
                    Ty::Scalar(elem) => Ok(Ty::Slice {
                        elem,
                        mutable: r.mutability.is_some(),
                    }),
                    t if t.is_ref() => Err(syn::Error::new(
                        s.span(),
                        "slices of GC handles are not supported: a Rust slice lies outside the \
                         GC heap, where the collector cannot see or move the handles it holds; \
                         keep them in a GC array (`Array<Obj>`, `Array<S>`)",
                    )),
                    _ => Err(unsupported()),
                },
                _ => Err(unsupported()),
            },
            syn::Type::Array(a) => {
                let item = Item::of(Ty::parse_with(&a.elem, names)?).ok_or_else(unsupported)?;
                let len = match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(n),
                        ..
                    }) => n.base10_parse::<u16>().ok().filter(|&n| n > 0),
                    _ => None,
                };
                let len = len.ok_or_else(|| {
                    syn::Error::new(
                        a.len.span(),
                        "the length of an array green or red must be an integer literal from \
                         1 to 65535 (each item is a register of the JIT)",
                    )
                })?;
                Ok(Ty::Array { item, len })
            }
            _ => Err(unsupported()),
        }
    }

    /// Tokens turning the Rust value `x` (an expression of this type)
    /// into `Value`s, in register order.
    pub fn to_values(self, x: &TokenStream) -> Vec<TokenStream> {
        let v = quote!(::majit::ir::Value);
        match self {
            Ty::Slice { mutable: true, .. } => vec![
                quote!(#v::Ref((#x).as_mut_ptr() as usize)),
                quote!(#v::Int((#x).len() as i64)),
            ],
            Ty::Scalar(Scalar::F64) => vec![quote!(#v::Float(#x))],
            Ty::Scalar(_) => vec![quote!(#v::Int((#x) as i64))],
            Ty::Gc(_) | Ty::Obj | Ty::GcArray(_) => vec![quote!(#v::Ref((#x).to_raw()))],
            Ty::Slice { .. } => vec![
                quote!(#v::Ref((#x).as_ptr() as usize)),
                quote!(#v::Int((#x).len() as i64)),
            ],
            Ty::Array { item, len } => (0..usize::from(len))
                .flat_map(|k| item.ty().to_values(&quote!((#x)[#k])))
                .collect(),
            Ty::Checked(_) | Ty::Result { .. } | Ty::Unit | Ty::Fallible => vec![],
        }
    }

    /// Tokens turning the `Value` `v` back into a Rust value of this
    /// (scalar) type, spelled `rust` (the driver guarantees the kind).
    pub fn value_to_rust(self, v: &TokenStream, rust: &TokenStream) -> TokenStream {
        let raw = quote!((#v).as_int().unwrap_or(0));
        match self {
            Ty::Scalar(Scalar::Bool) => quote!(#raw != 0),
            Ty::Scalar(Scalar::F64) => quote!((#v).as_float().unwrap_or(0.0)),
            Ty::Scalar(Scalar::Int(_)) => quote!(#raw as #rust),
            Ty::Gc(_) | Ty::Obj | Ty::GcArray(_) => {
                quote!(<#rust>::from_raw((#v).as_ref().unwrap_or(0)))
            }
            _ => quote!(()),
        }
    }
}

/// The names declared in the attribute that are types: GC structs (by
/// index) and fieldless enums with their integer representation.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub structs: Vec<String>,
    pub enums: Vec<(String, IntTy)>,
}

/// The item of `Array<T>` (`None` for other paths).
fn gc_array_item(p: &syn::TypePath, names: &Names) -> syn::Result<Option<Item>> {
    let [seg] = p.path.segments.iter().collect::<Vec<_>>()[..] else {
        return Ok(None);
    };
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return Ok(None);
    };
    let (true, [syn::GenericArgument::Type(t)]) = (
        seg.ident == "Array",
        &args.args.iter().collect::<Vec<_>>()[..],
    ) else {
        return Ok(None);
    };
    Item::of(Ty::parse_with(t, names)?)
        .map(Some)
        .ok_or_else(|| {
            syn::Error::new(
                t.span(),
                "a GC array holds integers, `bool`, `f64`, declared structs or `Obj`",
            )
        })
}

/// `bool`, `f64` or an integer type name.
pub fn scalar_named(name: &str) -> Option<Scalar> {
    match name {
        "bool" => return Some(Scalar::Bool),
        "f64" => return Some(Scalar::F64),
        _ => {}
    }
    IntTy::from_name(name).map(Scalar::Int)
}

/// The `T` and `E` of the type `Result<T, E>` as written (`None` for any
/// other type).
pub fn result_parts(ty: &syn::Type) -> Option<(&syn::Type, &syn::Type)> {
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    match (
        seg.ident == "Result",
        &args.args.iter().collect::<Vec<_>>()[..],
    ) {
        (true, [syn::GenericArgument::Type(t), syn::GenericArgument::Type(e)]) => Some((t, e)),
        _ => None,
    }
}

/// The error type `E` of a `Result<T, E>` a helper, traced function or
/// interpreter returns: one word the JIT raises, an integer, a `bool`, a
/// declared GC struct or an `Obj` (a dynamic language's exception object,
/// class-tested where it is caught).
pub fn error_ty(t: &syn::Type, names: &Names) -> syn::Result<Ty> {
    match Ty::parse_with(t, names) {
        Ok(ty @ (Ty::Scalar(Scalar::Int(_) | Scalar::Bool) | Ty::Gc(_) | Ty::Obj)) => Ok(ty),
        _ => Err(syn::Error::new(
            t.span(),
            "the error type of a `Result` the JIT lowers is an integer, a `bool`, a declared \
             GC struct or an `Obj` (one word, which the JIT raises as an exception)",
        )),
    }
}
