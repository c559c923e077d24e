//! Field syntax on GC struct handles: `x.f`, `x.f = v` and `x.f op= v`
//! become the accessors `x.f()`, `x.set_f(v)` and
//! `x.set_f(x.f() op v)`, in the interpreter function before anything else
//! reads it. The plain function, `NAME_jit` and the lowering then see only
//! accessor calls, so the three agree by construction.
//!
//! `#[majit::traced]` rewrites the traced function the same way, for the
//! plain function and the tokens it hands to the interpreter.
//!
//! A handle is a pointer, not a Rust struct, so Rust itself cannot resolve
//! `x.f` (nor could a real field store run the write barrier); the macro
//! cannot know `x`'s type either, so in the interpreter function it
//! rewrites every named field access whose name is a field of some
//! declared struct (the documented rule: a Rust struct used in the
//! interpreter function must not share a field name with a declared GC
//! struct). A traced function does not see the declarations, and needs
//! none: its values are within the lowered subset, where GC structs are
//! the only ones with named fields, so every named field access is
//! rewritten. Nested items other than
//! functions are left alone, and so are macro calls whose arguments are not
//! comma-separated expressions.

use proc_macro2::Span;
use quote::{format_ident, quote_spanned, ToTokens};
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Member, Token};

/// Rewrites field syntax on the field names `fields` (`None`: on every
/// named field, in a traced function).
pub struct FieldSyntax {
    pub fields: Option<Vec<String>>,
}

impl FieldSyntax {
    /// The base and field name of `e` when it is `base.f` with `f` a
    /// declared field name.
    fn field<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, &'e syn::Ident)> {
        let Expr::Field(f) = e else { return None };
        let Member::Named(name) = &f.member else {
            return None;
        };
        let known = match &self.fields {
            Some(fields) => fields.iter().any(|d| name == d),
            None => true,
        };
        known.then_some((&*f.base, name))
    }
}

/// The binary operator of a compound assignment (`+=` gives `+`).
fn compound(op: &BinOp) -> Option<BinOp> {
    let sp = Span::call_site();
    Some(match op {
        BinOp::AddAssign(_) => BinOp::Add(syn::Token![+](sp)),
        BinOp::SubAssign(_) => BinOp::Sub(syn::Token![-](sp)),
        BinOp::MulAssign(_) => BinOp::Mul(syn::Token![*](sp)),
        BinOp::DivAssign(_) => BinOp::Div(syn::Token![/](sp)),
        BinOp::RemAssign(_) => BinOp::Rem(syn::Token![%](sp)),
        BinOp::BitAndAssign(_) => BinOp::BitAnd(syn::Token![&](sp)),
        BinOp::BitOrAssign(_) => BinOp::BitOr(syn::Token![|](sp)),
        BinOp::BitXorAssign(_) => BinOp::BitXor(syn::Token![^](sp)),
        BinOp::ShlAssign(_) => BinOp::Shl(syn::Token![<<](sp)),
        BinOp::ShrAssign(_) => BinOp::Shr(syn::Token![>>](sp)),
        _ => return None,
    })
}

impl VisitMut for FieldSyntax {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // The target of an assignment is a write: rewrite the parts around
        // it first, then the assignment itself (its base is a read).
        let write = match e {
            Expr::Assign(a) => self.field(&a.left).is_some(),
            Expr::Binary(b) => compound(&b.op).is_some() && self.field(&b.left).is_some(),
            _ => false,
        };
        if !write {
            syn::visit_mut::visit_expr_mut(self, e);
            if let Some((base, name)) = self.field(e) {
                let sp = name.span();
                *e = syn::parse_quote_spanned!(sp=> #base.#name());
            }
            return;
        }
        let (left, right, op) = match e {
            Expr::Assign(a) => (&mut a.left, &mut a.right, None),
            Expr::Binary(b) => (&mut b.left, &mut b.right, compound(&b.op)),
            _ => unreachable!("checked above"),
        };
        let Expr::Field(f) = &mut **left else {
            unreachable!("checked above")
        };
        self.visit_expr_mut(&mut f.base);
        self.visit_expr_mut(right);
        let (base, Member::Named(name)) = (&f.base, &f.member) else {
            unreachable!("checked above")
        };
        let sp = name.span();
        let set = format_ident!("set_{}", name, span = sp);
        *e = match op {
            None => syn::parse_quote_spanned!(sp=> #base.#set(#right)),
            // A path base is read twice; anything else is evaluated once.
            Some(op) if matches!(**base, Expr::Path(_)) => {
                syn::parse_quote_spanned!(sp=> #base.#set(#base.#name() #op (#right)))
            }
            Some(op) => {
                let obj = quote_spanned!(sp=> __majit_obj);
                syn::parse_quote_spanned!(sp=> {
                    let #obj = #base;
                    #obj.#set(#obj.#name() #op (#right))
                })
            }
        };
    }
    fn visit_item_mut(&mut self, i: &mut syn::Item) {
        if let syn::Item::Fn(f) = i {
            self.visit_block_mut(&mut f.block);
        }
    }
    /// The arguments of a macro call that are comma-separated expressions
    /// (`println!("{}", x.f)`, `assert_eq!(x.f, 1)`); other macro bodies
    /// are left alone.
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let parse = Punctuated::<Expr, Token![,]>::parse_terminated;
        let Ok(mut args) = m.parse_body_with(parse) else {
            return;
        };
        args.iter_mut().for_each(|a| self.visit_expr_mut(a));
        m.tokens = args.to_token_stream();
    }
}
