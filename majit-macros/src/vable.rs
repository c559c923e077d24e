//! `virtualizable = frame` (or `frame(opaque_to_callees)`): the red GC
//! struct whose fields and `Array` field live in registers inside compiled
//! code (see `majit_metainterp::vable`).

use crate::attr::Helper;
use crate::lower::{gc_array_descr_value, StateVar, StructDef};
use crate::ty::Ty;
use proc_macro2::TokenStream;
use quote::quote;

/// The `VirtualizableInfo` expression of the red named `frame`, for
/// `NAME_driver`: every field of its struct but the `Array` one is a
/// virtualized field, the `Array` field (at most one) the virtualized
/// array. A compile error at `frame` when it is not a red of a declared
/// GC struct, or its struct has two `Array` fields; at a `no_force` helper
/// that takes the frame's struct.
pub fn info(
    frame: &syn::Ident,
    opaque_to_callees: bool,
    state: &[StateVar],
    structs: &[StructDef],
    helpers: &[Helper],
) -> syn::Result<TokenStream> {
    let err = |m: String| syn::Error::new(frame.span(), m);
    let mut index = 0usize;
    let mut found = None;
    for sv in state.iter().filter(|s| !s.green) {
        if sv.name == *frame {
            found = Some(sv);
            break;
        }
        // The red's position among the merge point's values.
        index += match sv.ty {
            Ty::Slice { .. } => 2,
            Ty::Array { len, .. } => usize::from(len),
            _ => 1,
        };
    }
    let sv = found.ok_or_else(|| {
        err(format!(
            "`virtualizable = {frame}`: `{frame}` is not a red; the frame must be one of the reds"
        ))
    })?;
    let Ty::Gc(k) = sv.ty else {
        return Err(err(format!(
            "`virtualizable = {frame}`: the frame must be a declared GC struct (`structs = [..]`)"
        )));
    };
    let def = &structs[usize::from(k)];
    if let Some(h) = helpers
        .iter()
        .find(|h| h.no_force && h.args.contains(&sv.ty))
    {
        return Err(syn::Error::new(
            h.name.span(),
            format!(
                "`{}` is declared `no_force` but takes the virtualizable frame's struct `{}`: a \
                 helper given the frame may read or change it, so its call must write the frame \
                 back (remove `no_force`)",
                h.name, def.name
            ),
        ));
    }
    let names: Vec<String> = structs.iter().map(|s| s.name.clone()).collect();
    let (mut fields, mut array) = (Vec::new(), None);
    for (i, (name, ty)) in def.fields.iter().enumerate() {
        let d = def.field_descr_value(i);
        match ty {
            Ty::GcArray(_) if array.is_some() => {
                return Err(err(format!(
                    "`virtualizable = {frame}`: `{}` has more than one `Array` field (`{name}`); \
                     a virtualizable frame has at most one",
                    def.name
                )))
            }
            Ty::GcArray(item) => {
                let a = gc_array_descr_value(
                    *item,
                    &names,
                    |t| quote!(::majit::gc::thread_heap::array_type_id(#t)?.0),
                );
                array = Some(quote! {
                    .with_array(::std::sync::Arc::new(#d), ::std::sync::Arc::new(#a))
                });
            }
            _ => fields.push(quote!(::std::sync::Arc::new(#d))),
        }
    }
    let opaque = opaque_to_callees.then(|| quote!(.opaque_to_callees()));
    Ok(quote! {
        ::majit::metainterp::vable::VirtualizableInfo::new(#index)
            .with_fields(::std::vec![#(#fields),*]) #array #opaque
    })
}
