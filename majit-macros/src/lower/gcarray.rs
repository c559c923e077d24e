//! GC arrays: `Array::<T>::new(len)`, `Array::<T>::null()`, `a.len()`,
//! `a.is_null()`, and the bounds check of `a[i]` (the item access itself
//! is in `objects.rs`, beside slices and fixed arrays).
//!
//! Invariant: an item is read or written only after `a` was found non-null
//! and `i < arraylen(a)`; otherwise the code jumps to the bounds failure
//! block, as for slices. In a trace the null check and the length load of
//! a known array fold away.

use super::*;
use crate::ty::Item;

impl<'a> Lowerer<'a> {
    /// `Array::<T>::new(len)` and `Array::<T>::null()`.
    pub(super) fn array_call(
        &mut self,
        c: &syn::ExprCall,
        path: &syn::Path,
        ctor: &str,
        sp: Span,
    ) -> Res<Option<Val>> {
        let item = self.array_item(&path.segments[0])?;
        let ty = Ty::GcArray(item);
        match (ctor, c.args.len()) {
            ("null", 0) => Ok(Some(Val::scalar(ty, Opnd::Null))),
            ("new", 1) => {
                let a = &c.args[0];
                let Some(len) = self.expr(a, Some(Ty::int(USIZE)))? else {
                    return Ok(None);
                };
                if len.ty != Ty::int(USIZE) {
                    return err(a.span(), "the length of an array is a `usize`");
                }
                let dst = self.regs.temp(Bank::Ref);
                let (l, d) = (len.opnd(a.span())?.arg(), dst.tokens());
                let descr = self.gc_array_descr(item);
                self.code.push(quote!(b.new_array(#l, #descr, #d);));
                Ok(Some(Val::scalar(ty, Opnd::Reg(dst))))
            }
            _ => err(
                sp,
                "a GC array is made with `Array::<T>::new(len)` or `Array::<T>::null()`",
            ),
        }
    }

    /// `T` of `Array::<T>::..`.
    fn array_item(&self, seg: &syn::PathSegment) -> Res<Item> {
        let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
            return err(
                seg.ident.span(),
                "name the item type in a handler: `Array::<T>::new(len)`",
            );
        };
        let (Some(syn::GenericArgument::Type(t)), 1) = (args.args.first(), args.args.len()) else {
            return err(args.span(), "`Array` takes one item type: `Array::<T>`");
        };
        Item::of(Ty::parse_with(t, self.ctx.names)?).map_or_else(
            || {
                err(
                    t.span(),
                    "a GC array holds integers, `bool`, `f64`, declared structs or `Obj`",
                )
            },
            Ok,
        )
    }

    /// `a.len()` and `a.is_null()` on a GC array.
    pub(super) fn array_method(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: &Val,
        item: Item,
    ) -> Res<Option<Val>> {
        let a = recv.opnd(m.span())?;
        match (m.method.to_string().as_str(), m.args.len()) {
            ("is_null", 0) => {
                let r = self.pure_t("PtrEq", &[a, Opnd::Null]);
                Ok(Some(Val::scalar(Ty::BOOL, r)))
            }
            ("len", 0) => {
                let place = checks::place(&quote!(#m).to_string(), m.span());
                let len = self.array_len(&a, item, place);
                Ok(Some(Val::scalar(Ty::int(USIZE), len)))
            }
            ("is_empty", 0) => {
                let place = checks::place(&quote!(#m).to_string(), m.span());
                let len = self.array_len(&a, item, place);
                let r = self.pure_t("IntEq", &[len, Opnd::Int(0)]);
                Ok(Some(Val::scalar(Ty::BOOL, r)))
            }
            (name, _) => err(
                m.method.span(),
                format!(
                    "`Array` has no method `{name}` in a handler: use `len()`, `is_empty()`, \
                     `is_null()` or `a[i]`"
                ),
            ),
        }
    }

    /// The length of the GC array `a` (null is the plain build's panic,
    /// reported at `place`).
    fn array_len(&mut self, a: &Opnd, item: Item, place: String) -> Opnd {
        let t = self.gc_array_type(item);
        let null = self.failure(Failure::NullArray(t), place, &Opnd::Int(0), &Opnd::Int(0));
        let (x, null) = (a.arg(), self.label_t(null));
        self.code.push(quote!(b.goto_if_null(#x, #null);));
        let len = self.regs.temp(Bank::Int);
        let (descr, l) = (self.gc_array_descr(item), len.tokens());
        self.code.push(quote!(b.arraylen(#x, #descr, #l);));
        Opnd::Reg(len)
    }

    /// `arr[idx]` of the GC array expression `arr`: the array variable
    /// (its register) and the bounds-checked index (failures reported at
    /// `at`).
    pub(super) fn gc_index(&mut self, arr: &Expr, idx: &Expr, at: Span) -> Res<(Var, Opnd)> {
        let Some(av) = self.expr(arr, None)? else {
            return err(arr.span(), "the array must produce a value");
        };
        let Ty::GcArray(item) = av.ty else {
            return err(
                arr.span(),
                "only slices and arrays that are greens or reds, and GC arrays, can be indexed \
                 in a handler",
            );
        };
        let Opnd::Reg(reg) = av.opnd(arr.span())? else {
            return err(arr.span(), "this array is null");
        };
        let Some(iv) = self.expr(idx, Some(Ty::int(USIZE)))? else {
            return err(idx.span(), "the index must produce a value");
        };
        if iv.ty != Ty::int(USIZE) {
            return err(idx.span(), "indices must be `usize`");
        }
        let i = iv.opnd(idx.span())?;
        let place = checks::place(&format!("{}[{}]", quote!(#arr), quote!(#idx)), at);
        let len = self.array_len(&Opnd::Reg(reg), item, place.clone());
        let fail = self.failure(Failure::Bounds, place, &i, &len);
        let ok = self.pure_t("UintLt", &[i.clone(), len]);
        self.goto_if_not(&ok, fail);
        let var = Var::local(String::new(), av.ty, reg);
        Ok((var, i))
    }

    /// The thread heap's `ArrayType` of `Array<item>` (an expression).
    fn gc_array_type(&self, item: Item) -> TokenStream {
        let names: Vec<String> = self.ctx.structs.iter().map(|s| s.name.clone()).collect();
        array_type_expr(item, &names)
    }

    /// The `ArrayDescr` of `Array<item>`: the thread heap's array type.
    pub(super) fn gc_array_descr(&self, item: Item) -> TokenStream {
        let names: Vec<String> = self.ctx.structs.iter().map(|s| s.name.clone()).collect();
        let d = gc_array_descr_value(item, &names, |t| quote!(__majit_array_id(#t)?));
        quote!(::majit::ir::Descr::from(#d))
    }
}

/// The `ArrayDescr` expression of `Array<item>` (`structs`: the declared
/// struct names), its type id given by `type_id` of the expression of the
/// thread heap's `ArrayType`.
pub fn gc_array_descr_value(
    item: Item,
    structs: &[String],
    type_id: impl Fn(&TokenStream) -> TokenStream,
) -> TokenStream {
    let (size, signed, kind) = item.array_facts();
    let t = array_type_expr(item, structs);
    let id = type_id(&t);
    quote! {
        ::majit::ir::ArrayDescr {
            name: #t.name.into(), base_offset: ::majit::gc::ARRAY_ITEMS_OFFSET,
            len_offset: ::majit::gc::ARRAY_LENGTH_OFFSET, item_size: #size,
            signed: #signed, kind: #kind, type_id: #id,
        }
    }
}

/// The thread heap's `ArrayType` of `Array<item>` (an expression;
/// `structs`: the declared struct names).
fn array_type_expr(item: Item, structs: &[String]) -> TokenStream {
    let rust = item.rust(structs);
    quote!(<#rust as ::majit::gc::Elem>::array_type())
}
