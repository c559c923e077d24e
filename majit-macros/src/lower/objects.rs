//! Data: GC structs (construction, field access), slices and fixed arrays
//! (bounds-checked item access, the switch over a fixed array's items) and
//! assignment places.
//!
//! Invariant: every slice or array index is bounds-checked before the item is
//! read or written; an index out of bounds jumps to the failure block.

use super::*;
use crate::attr::FieldMark;

/// A declared GC struct: one 8-byte slot per field in order, after the
/// header word when `headered`.
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Ty)>,
    pub headered: bool,
    /// Per field: its mark, which its descr carries (a quasi-immutable
    /// field's setter invalidates the traces that folded it; an immutable
    /// one has no setter).
    pub marks: Vec<FieldMark>,
}

impl StructDef {
    /// The local of `NAME_jitcode` holding the struct's type id in the
    /// thread heap (see `emit::jitcode_fn`).
    pub fn type_id_local(&self) -> syn::Ident {
        format_ident!("__majit_ty_{}", self.name)
    }

    /// The `SizeDescr` expression.
    pub fn size_descr(&self) -> TokenStream {
        let (name, headerless) = (&self.name, !self.headered);
        let size = 8 * (self.fields.len() as u32 + u32::from(self.headered));
        let fields = self.fields.iter().map(|(f, _)| format!("{name}.{f}"));
        let ty = self.type_id_local();
        quote! {
            ::majit::ir::Descr::from(::majit::ir::SizeDescr {
                name: #name.into(), size: #size, type_id: #ty, headerless: #headerless,
                vtable: None,
                fields: vec![#(#fields.into()),*],
            })
        }
    }

    /// The `Descr` expression of field `i`.
    pub fn field_descr(&self, i: usize) -> TokenStream {
        let f = self.field_descr_value(i);
        quote!(::majit::ir::Descr::from(#f))
    }

    /// The `FieldDescr` expression of field `i`.
    pub fn field_descr_value(&self, i: usize) -> TokenStream {
        let (owner, (f, ty)) = (&self.name, &self.fields[i]);
        let name = format!("{owner}.{f}");
        let offset = 8 * (i as u32 + u32::from(self.headered));
        let (immutable, quasi) = match self.marks[i] {
            FieldMark::Plain => (false, false),
            FieldMark::Immutable => (true, false),
            FieldMark::QuasiImmutable => (false, true),
        };
        let (kind, signed) = match ty {
            t if t.is_ref() => (quote!(::majit::ir::Kind::Ref), false),
            Ty::Scalar(Scalar::F64) => (quote!(::majit::ir::Kind::Float), false),
            t => (
                quote!(::majit::ir::Kind::Int),
                t.as_int().is_none_or(|t| t.signed),
            ),
        };
        quote! {
            ::majit::ir::FieldDescr {
                name: #name.into(), owner: #owner.into(), offset: #offset, size: 8,
                signed: #signed, kind: #kind, immutable: #immutable, quasi_immutable: #quasi,
            }
        }
    }
}

/// `S` when `f` is `S::new` or `S::null` (a call the macro lowers only
/// for a declared struct).
pub(super) fn undeclared_struct(f: &Expr) -> Option<String> {
    let Expr::Path(p) = f else { return None };
    let segs = super::segment_names(&p.path);
    match segs.as_slice() {
        [s, ctor] if matches!(ctor.as_str(), "new" | "null") => Some(s.clone()),
        _ => None,
    }
}

/// Where an assignment goes.
pub(super) enum Place {
    Var(Var),
    Item(Var, Opnd),
}

pub(super) fn place_ty(p: &Place) -> Ty {
    match p {
        Place::Var(v) => v.ty,
        Place::Item(arr, _) => match arr.ty {
            Ty::Slice { elem, .. } => Ty::Scalar(elem),
            Ty::Array { item, .. } | Ty::GcArray(item) => item.ty(),
            t => t,
        },
    }
}

impl<'a> Lowerer<'a> {
    /// `S::new(fields...)` and `S::null()` of a declared struct, and
    /// `S::m(x, ..)` of a traced method (`want`: see [`Lowerer::expr`]).
    pub(super) fn struct_call(
        &mut self,
        c: &syn::ExprCall,
        sp: Span,
        want: Option<Ty>,
    ) -> Res<Option<Option<Val>>> {
        let Expr::Path(p) = &*c.func else {
            return Ok(None);
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let [sname, ctor] = segs.as_slice() else {
            return Ok(None);
        };
        // In a traced method, `Self` is its struct.
        let sname = match (sname.as_str(), &self.ctx.self_struct) {
            ("Self", Some(s)) => s,
            _ => sname,
        };
        if sname == "Obj" {
            return Ok(Some(self.obj_call(c, ctor, sp)?));
        }
        if sname == "Array" {
            return Ok(Some(self.array_call(c, &p.path, ctor, sp)?));
        }
        let Some(si) = self.ctx.structs.iter().position(|s| s.name == *sname) else {
            return Ok(None);
        };
        let ty = Ty::Gc(si as u8);
        match ctor.as_str() {
            "null" if c.args.is_empty() => Ok(Some(Some(Val::scalar(ty, Opnd::Null)))),
            "new" => {
                let nf = self.ctx.structs[si].fields.len();
                if c.args.len() != nf {
                    return err(
                        sp,
                        format!("`{sname}::new` takes {nf} arguments (its fields)"),
                    );
                }
                let mut vals = Vec::new();
                for (i, a) in c.args.iter().enumerate() {
                    let fty = self.ctx.structs[si].fields[i].1;
                    let Some(v) = self.expr(a, Some(fty))? else {
                        return Ok(Some(None));
                    };
                    if v.ty != fty {
                        return err(a.span(), "the value does not have the field's type");
                    }
                    vals.push(v.opnd(a.span())?);
                }
                let dst = self.regs.temp(Bank::Ref);
                let (size, d) = (self.ctx.structs[si].size_descr(), dst.tokens());
                self.code.push(quote!(b.new_object(#size, #d);));
                for (i, v) in vals.iter().enumerate() {
                    let (fd, a) = (self.ctx.structs[si].field_descr(i), v.arg());
                    let obj = Opnd::Reg(dst).arg();
                    self.code.push(quote!(b.setfield(#obj, #a, #fd);));
                }
                Ok(Some(Some(Val::scalar(ty, Opnd::Reg(dst)))))
            }
            other => match (self.traced_method(si as u8, other), c.args.first()) {
                (Some(h), Some(first)) => self.ufcs_call(c, h, first, ty, want).map(Some),
                _ => err(
                    sp,
                    format!(
                        "`{sname}::{other}` is not lowered: GC structs have `new(fields..)`, \
                         `null()` and the traced methods of their `#[majit::traced] impl`"
                    ),
                ),
            },
        }
    }

    /// `S::m(x, args)` (`S::m(&x, ..)` for `&self`) of the traced method `h`
    /// of `S` (whose handle type is `ty`).
    fn ufcs_call(
        &mut self,
        c: &syn::ExprCall,
        h: &Helper,
        first: &Expr,
        ty: Ty,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        let recv = match (strip(first), h.method.as_ref().is_some_and(|m| m.by_ref)) {
            (Expr::Reference(r), true) if r.mutability.is_none() => &*r.expr,
            (e, _) => e,
        };
        let Some(v) = self.expr(recv, Some(ty))? else {
            return Ok(None);
        };
        v.used()?;
        if v.ty != ty {
            return err(first.span(), "the receiver does not have the method's type");
        }
        let args: Vec<&Expr> = c.args.iter().skip(1).collect();
        self.method_call(c.span(), h, (&v, &args), want)
    }

    /// `x.field()`, `x.set_field(v)` and `x.is_null()` on a GC handle.
    pub(super) fn gc_method(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: &Val,
        si: u8,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        let sp = m.span();
        let name = m.method.to_string();
        if let Some(h) = self.traced_method(si, &name) {
            let args: Vec<&Expr> = m.args.iter().collect();
            return self.method_call(sp, h, (recv, &args), want);
        }
        if matches!(name.as_str(), "is" | "cast") {
            return err(m.receiver.span(), self.class_test_of_struct(si));
        }
        let obj = recv.opnd(sp)?;
        if name == "is_null" && m.args.is_empty() {
            return Ok(Some(Val::scalar(
                Ty::BOOL,
                self.pure_t("PtrEq", &[obj, Opnd::Null]),
            )));
        }
        let sd = &self.ctx.structs[si as usize];
        let (field, set) = match name.strip_prefix("set_") {
            Some(f) if m.args.len() == 1 => (f.to_string(), true),
            _ if m.args.is_empty() => (name.clone(), false),
            _ => (String::new(), false),
        };
        let Some(fi) = sd.fields.iter().position(|(f, _)| *f == field) else {
            return err(
                m.method.span(),
                format!(
                    "undeclared field: `{}` has no field `{name}` (declared: {}); its methods \
                     are `field()`, `set_field(v)` and `is_null()`",
                    sd.name,
                    sd.fields
                        .iter()
                        .map(|(f, _)| f.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        };
        let (fty, fd) = (sd.fields[fi].1, sd.field_descr(fi));
        let o = obj.arg();
        if set && sd.marks[fi] == FieldMark::Immutable {
            return err(
                m.method.span(),
                format!(
                    "`{}.{field}` is `#[immutable]`: only `{}::new` sets it",
                    sd.name, sd.name
                ),
            );
        }
        if set {
            let Some(v) = self.expr(&m.args[0], Some(fty))? else {
                return Ok(None);
            };
            if v.ty != fty {
                return err(m.args[0].span(), "the value does not have the field's type");
            }
            let a = v.opnd(sp)?.arg();
            self.code.push(quote!(b.setfield(#o, #a, #fd);));
            return Ok(Some(Val::unit()));
        }
        let dst = self.regs.temp(bank(fty));
        let d = dst.tokens();
        self.code.push(quote!(b.getfield(#o, #fd, #d);));
        Ok(Some(Val::scalar(fty, Opnd::Reg(dst))))
    }

    /// `arr[idx]` as a value; `at` is where a failed bounds check reports
    /// it.
    pub(super) fn index_load(&mut self, ix: &syn::ExprIndex, at: Span) -> Res<Val> {
        let (arr, idx) = self.index(&ix.expr, &ix.index, at)?;
        self.load(&arr, &idx)
    }

    /// The slice variable and index operand of `arr[idx]`, bounds-checked
    /// (a failure reported at `at`).
    pub(super) fn index(&mut self, arr: &Expr, idx: &Expr, at: Span) -> Res<(Var, Opnd)> {
        let var = match arr {
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|id| self.lookup(&id.to_string())),
            _ => return self.gc_index(arr, idx, at),
        };
        if let Some(Ty::GcArray(_)) = var.as_ref().map(|v| v.ty) {
            return self.gc_index(arr, idx, at);
        }
        let Some(var) = var.filter(|v| matches!(v.ty, Ty::Slice { .. } | Ty::Array { .. })) else {
            return err(
                arr.span(),
                "only slices and arrays that are greens or reds can be indexed in a handler",
            );
        };
        let Some(iv) = self.expr(idx, Some(Ty::int(USIZE)))? else {
            return err(idx.span(), "the index must produce a value");
        };
        if iv.ty != Ty::int(USIZE) {
            return err(idx.span(), "indices must be `usize`");
        }
        let i = iv.opnd(idx.span())?;
        let len = match var.len {
            Some(len) => Opnd::Reg(len),
            None => Opnd::Int(var.items.len() as i64),
        };
        let text = format!("{}[{}]", quote!(#arr), quote!(#idx));
        let place = checks::place(&text, at);
        let fail = self.failure(Failure::Bounds, place, &i, &len);
        let ok = self.pure_t("UintLt", &[i.clone(), len]);
        self.goto_if_not(&ok, fail);
        Ok((var, i))
    }

    pub(super) fn array_descr(elem: Scalar) -> TokenStream {
        let name = format!("items_{}", elem.name());
        let (size, signed) = (elem.item_size(), elem.signed());
        let kind = bank(Ty::Scalar(elem)).kind();
        quote! {
            ::majit::ir::Descr::from(::majit::ir::ArrayDescr {
                name: #name.into(), base_offset: 0, len_offset: 0, item_size: #size,
                signed: #signed, kind: #kind, type_id: 0,
            })
        }
    }

    /// A switch over an array's items on `idx` (checked in bounds by
    /// `index`): `each(self, k)` emits the code of item `k`. In a trace
    /// the index is usually a green, so the switch folds away.
    pub(super) fn item_switch(
        &mut self,
        arr: &Var,
        idx: &Opnd,
        mut each: impl FnMut(&mut Self, R),
    ) {
        let end = self.label();
        let labels: Vec<u32> = arr.items.iter().map(|_| self.label()).collect();
        let cases = labels.iter().enumerate().map(|(k, &l)| {
            let (k, l) = (k as i64, self.label_t(l));
            quote!((#k, #l))
        });
        let cases: Vec<TokenStream> = cases.collect();
        let i = idx.arg();
        self.code.push(quote!(b.switch(#i, &[#(#cases),*]);));
        self.goto(self.unreachable);
        for (&l, &item) in labels.iter().zip(&arr.items) {
            self.bind(l);
            each(self, item);
            self.goto(end);
        }
        self.bind(end);
    }

    pub(super) fn load(&mut self, arr: &Var, idx: &Opnd) -> Res<Val> {
        let elem = match arr.ty {
            Ty::Slice { elem, .. } => elem,
            Ty::Array { item, .. } => {
                let ty = item.ty();
                let dst = self.regs.temp(bank(ty));
                self.item_switch(arr, idx, |l, r| l.copy(&Opnd::Reg(r), dst));
                return Ok(Val::scalar(ty, Opnd::Reg(dst)));
            }
            Ty::GcArray(item) => {
                let dst = self.regs.temp(bank(item.ty()));
                let (a, i, d) = (Opnd::Reg(arr.reg).arg(), idx.arg(), dst.tokens());
                let descr = self.gc_array_descr(item);
                self.code.push(quote!(b.getarrayitem(#a, #i, #descr, #d);));
                return Ok(Val::scalar(item.ty(), Opnd::Reg(dst)));
            }
            _ => unreachable!("index() only returns slices and arrays"),
        };
        let dst = self.regs.temp(bank(Ty::Scalar(elem)));
        let (a, i, d) = (Opnd::Reg(arr.reg).arg(), idx.arg(), dst.tokens());
        if arr.frozen {
            // A frozen green slice: an elidable load, folded when the
            // pointer and index are constants (they are, in a trace).
            let shim = format_ident!("__majit_load_{}", arr.name);
            let descr = call_descr(
                &format!("load_{}", arr.name),
                &[Bank::Ref, Bank::Int],
                Some(dst.bank),
                Policy::Elidable,
                false,
            );
            self.code.push(quote! {
                b.call(#descr, ::majit::metainterp::jitcode::Arg::Int(#shim as usize as i64),
                       &[#a, #i], Some(#d));
            });
        } else {
            let descr = Self::array_descr(elem);
            self.code.push(quote!(b.getarrayitem(#a, #i, #descr, #d);));
        }
        Ok(Val::scalar(Ty::Scalar(elem), Opnd::Reg(dst)))
    }

    /// The place `left` and the value `right` of an assignment (plain or
    /// compound): the value first, as Rust evaluates it (a call there runs
    /// before the place's bounds check fails), when the place's type is
    /// known without lowering it ([`Lowerer::known_place_ty`]); else the
    /// place first, typing the value. `None`: control does not flow past
    /// the value.
    pub(super) fn place_and_value(
        &mut self,
        left: &Expr,
        right: &Expr,
    ) -> Res<Option<(Place, Val)>> {
        if let Some(t) = self.known_place_ty(left) {
            let Some(v) = self.expr(right, Some(t))? else {
                return Ok(None);
            };
            return Ok(Some((self.place(left)?, v)));
        }
        let place = self.place(left)?;
        Ok(self
            .expr(right, Some(place_ty(&place)))?
            .map(|v| (place, v)))
    }

    /// The type of the place `e` when it is a variable or an item of a
    /// slice or array variable (nothing is lowered).
    fn known_place_ty(&self, e: &Expr) -> Option<Ty> {
        let var = |e: &Expr| match strip(e) {
            Expr::Path(p) => self.lookup(&p.path.get_ident()?.to_string()),
            _ => None,
        };
        match strip(e) {
            Expr::Index(ix) => match var(&ix.expr)?.ty {
                Ty::Slice { elem, .. } => Some(Ty::Scalar(elem)),
                Ty::Array { item, .. } | Ty::GcArray(item) => Some(item.ty()),
                _ => None,
            },
            e => var(e).map(|v| v.ty).filter(|t| t.is_single()),
        }
    }

    pub(super) fn place(&mut self, e: &Expr) -> Res<Place> {
        match e {
            Expr::Path(p) if p.path.get_ident().is_some() => {
                let id = p.path.get_ident().expect("checked");
                match self.lookup(&id.to_string()) {
                    Some(v) if v.ty.is_single() => Ok(Place::Var(v)),
                    Some(Var {
                        ty: Ty::Result { .. },
                        ..
                    }) => err(
                        id.span(),
                        "a `Result` local cannot be assigned: bind the new `Result` with `let`",
                    ),
                    Some(_) => err(id.span(), "slices cannot be reassigned in a handler"),
                    None => {
                        self.path(p, None)?;
                        err(id.span(), "only variables can be assigned")
                    }
                }
            }
            Expr::Index(ix) => {
                let (arr, i) = self.index(&ix.expr, &ix.index, ix.span())?;
                if !matches!(
                    arr.ty,
                    Ty::Slice { mutable: true, .. } | Ty::Array { .. } | Ty::GcArray(_)
                ) {
                    return err(e.span(), "only `&mut` slices and arrays can be written");
                }
                Ok(Place::Item(arr, i))
            }
            Expr::Paren(p) => self.place(&p.expr),
            Expr::Field(f) => err(
                f.span(),
                "undeclared field: a handler only sees the declared greens and reds (keep \
                 this state in a local listed in `reds`), or move this code into a helper",
            ),
            other => err(other.span(), "this cannot be assigned in a handler"),
        }
    }

    pub(super) fn read(&mut self, p: &Place) -> Res<Val> {
        match p {
            Place::Var(v) => Ok(Val::scalar(v.ty, Opnd::Reg(v.reg))),
            Place::Item(arr, i) => self.load(arr, i),
        }
    }

    pub(super) fn write(&mut self, p: &Place, v: &Val, sp: Span) -> Res<()> {
        v.used()?;
        if v.ty != place_ty(p) {
            return err(
                sp,
                "the value does not have the type of the place it is stored to",
            );
        }
        let o = v.opnd(sp)?;
        match p {
            Place::Var(var) => self.copy(&o, var.reg),
            Place::Item(arr, i) if matches!(arr.ty, Ty::Array { .. }) => {
                self.item_switch(arr, i, |l, r| l.copy(&o, r));
            }
            Place::Item(arr, i) => {
                let descr = match arr.ty {
                    Ty::Slice { elem, .. } => Self::array_descr(elem),
                    Ty::GcArray(item) => self.gc_array_descr(item),
                    _ => unreachable!("items are of slices and arrays"),
                };
                let (a, i, o) = (Opnd::Reg(arr.reg).arg(), i.arg(), o.arg());
                self.code.push(quote!(b.setarrayitem(#a, #i, #o, #descr);));
            }
        }
        Ok(())
    }
}
