//! `Obj`, the handle of any `#[headered]` struct, and class tests:
//! `Obj::from(x)`, `Obj::null()`, `o.is::<T>()`, `o.cast::<T>()`,
//! `o.is_null()`; small integers in a handle: `Obj::small_int(v)`,
//! `Obj::fits_small_int(v)`, `o.is_small_int()`, `o.to_small_int()`
//! (`int_tag`, `int_untag`, `ptr_is_tagged`); small floats likewise:
//! `Obj::small_float(f)`, `Obj::fits_small_float(f)`, `o.is_small_float()`,
//! `o.to_small_float()` (`float_tag`, `float_untag`, `ptr_is_float_tagged`,
//! `float_fits_tag`).
//!
//! A class test is `goto_if_null`, tests of the tag bits (a small integer
//! or float has no header), then `guard_class` (the object's class
//! word, the type id of a headered layout) compared with `T`'s type id: in a
//! trace the guard pins the class and the comparison folds, so a second
//! test of the same object records nothing the optimizer keeps.
//!
//! Invariant: `T` is a declared headered struct (a headerless object has
//! no header to read: testing one is a compile error at `T`); a cast that
//! fails (null, or another class) never yields a handle: it calls the
//! failure shim, which panics as the plain `Obj::cast` does.

use super::*;

impl<'a> Lowerer<'a> {
    /// `Obj::from(x)` (x a headered struct handle) and `Obj::null()`.
    pub(super) fn obj_call(&mut self, c: &syn::ExprCall, ctor: &str, sp: Span) -> Res<Option<Val>> {
        match (ctor, c.args.len()) {
            ("null", 0) => Ok(Some(Val::scalar(Ty::Obj, Opnd::Null))),
            ("small_int" | "fits_small_int" | "small_float" | "fits_small_float", 1) => {
                self.small_value(c, ctor, sp)
            }
            ("from", 1) => {
                let a = &c.args[0];
                let Some(v) = self.expr(a, None)? else {
                    return Ok(None);
                };
                match v.ty {
                    Ty::Gc(si) if self.ctx.structs[si as usize].headered => {
                        Ok(Some(Val::scalar(Ty::Obj, v.opnd(a.span())?)))
                    }
                    Ty::Gc(si) => err(a.span(), self.headerless(si)),
                    Ty::Obj => Ok(Some(v)),
                    _ => err(
                        a.span(),
                        "`Obj::from` takes a handle of a `#[headered]` struct",
                    ),
                }
            }
            _ => err(
                sp,
                "`Obj` has `Obj::from(x)` (x a `#[headered]` struct), `Obj::null()`, \
                 `Obj::small_int(v)`, `Obj::fits_small_int(v)` (v an `i64`), \
                 `Obj::small_float(f)` and `Obj::fits_small_float(f)` (f an `f64`)",
            ),
        }
    }

    /// `o.is::<T>()`, `o.cast::<T>()` and `o.is_null()` on an `Obj`.
    pub(super) fn obj_method(&mut self, m: &syn::ExprMethodCall, recv: &Val) -> Res<Option<Val>> {
        let sp = m.span();
        let obj = recv.opnd(sp)?;
        let name = m.method.to_string();
        let known = [
            "is",
            "cast",
            "is_null",
            "is_small_int",
            "to_small_int",
            "is_small_float",
            "to_small_float",
        ];
        if !m.args.is_empty() || !known.contains(&name.as_str()) {
            return err(
                m.method.span(),
                format!(
                    "`Obj` has no method `{name}` in a handler: use `is::<T>()`, \
                     `cast::<T>()`, `is_null()`, `is_small_int()`, `to_small_int()`, \
                     `is_small_float()` or `to_small_float()`"
                ),
            );
        }
        let float = name.ends_with("float");
        let test = if float {
            "PtrIsFloatTagged"
        } else {
            "PtrIsTagged"
        };
        match name.as_str() {
            "is_null" => {
                let r = self.pure_t("PtrEq", &[obj, Opnd::Null]);
                return Ok(Some(Val::scalar(Ty::BOOL, r)));
            }
            "is_small_int" | "is_small_float" => {
                let r = self.pure_t(test, &[obj]);
                return Ok(Some(Val::scalar(Ty::BOOL, r)));
            }
            "to_small_int" | "to_small_float" => {
                let tagged = self.pure_t(test, std::slice::from_ref(&obj));
                let place = checks::place(&quote!(#m).to_string(), sp);
                let nothing = Opnd::Int(0);
                let what = if float {
                    Failure::NotSmallFloat
                } else {
                    Failure::NotSmallInt
                };
                let bad = self.failure(what, place, &nothing, &nothing);
                self.goto_if_not(&tagged, bad);
                let (untag, ty, bank) = if float {
                    ("FloatUntag", Ty::F64, Bank::Float)
                } else {
                    ("IntUntag", Ty::int(crate::ty::I64), Bank::Int)
                };
                let r = self.regs.temp(bank);
                self.pure(untag, &[obj], r);
                return Ok(Some(Val::scalar(ty, Opnd::Reg(r))));
            }
            _ => {}
        }
        let si = self.class_arg(m)?;
        let is = self.class_test(&obj, si);
        if name == "is" {
            return Ok(Some(Val::scalar(Ty::BOOL, is)));
        }
        let sname = self.ctx.structs[si as usize].name.clone();
        let place = checks::place(&quote!(#m).to_string(), sp);
        let nothing = Opnd::Int(0);
        let bad = self.failure(Failure::BadCast(sname), place, &nothing, &nothing);
        self.goto_if_not(&is, bad);
        Ok(Some(Val::scalar(Ty::Gc(si), obj)))
    }

    /// The struct `T` of `is::<T>()` / `cast::<T>()`: declared and headered.
    fn class_arg(&self, m: &syn::ExprMethodCall) -> Res<u8> {
        let name = &m.method;
        let ty = m.turbofish.as_ref().and_then(|t| match t.args.first() {
            Some(syn::GenericArgument::Type(syn::Type::Path(p))) if t.args.len() == 1 => {
                p.path.get_ident()
            }
            _ => None,
        });
        let Some(ty) = ty else {
            return err(
                m.method.span(),
                format!("name the struct: `x.{name}::<T>()`, T a `#[headered]` struct"),
            );
        };
        let Some(si) = self.ctx.structs.iter().position(|s| ty == &s.name) else {
            return err(
                ty.span(),
                format!("`{ty}` is not a declared struct: declare it `#[headered] {ty} {{ .. }}` in `structs`"),
            );
        };
        if !self.ctx.structs[si].headered {
            return err(ty.span(), self.headerless(si as u8));
        }
        Ok(si as u8)
    }

    /// The error for `x.is::<T>()` / `x.cast::<T>()` on a struct handle.
    pub(super) fn class_test_of_struct(&self, si: u8) -> String {
        let s = &self.ctx.structs[si as usize];
        if !s.headered {
            return self.headerless(si);
        }
        format!(
            "this is a `{}` already: class tests and casts are on an `Obj` \
             (`Obj::from(x).is::<T>()`)",
            s.name
        )
    }

    fn headerless(&self, si: u8) -> String {
        let s = &self.ctx.structs[si as usize].name;
        format!(
            "`{s}` is headerless: its objects carry no class, so they cannot be an `Obj` or be \
             class-tested; declare it `#[headered] {s} {{ .. }}` in `structs`"
        )
    }

    /// `o` is a non-null object of struct `si` (a bool operand).
    fn class_test(&mut self, o: &Opnd, si: u8) -> Opnd {
        let (null, end) = (self.label(), self.label());
        let dst = self.regs.temp(Bank::Int);
        let (a, l) = (o.arg(), self.label_t(null));
        self.code.push(quote!(b.goto_if_null(#a, #l);));
        for test in ["PtrIsTagged", "PtrIsFloatTagged"] {
            let tagged = self.pure_t(test, std::slice::from_ref(o));
            let untagged = self.pure_t("IntIsZero", &[tagged]);
            self.goto_if_not(&untagged, null);
        }
        let class = self.regs.temp(Bank::Int);
        let c = class.tokens();
        self.code.push(quote!(b.guard_class(#a, #c);));
        let id = self.ctx.structs[si as usize].type_id_local();
        self.pure("IntEq", &[Opnd::Reg(class), Opnd::Const(quote!(#id))], dst);
        self.goto(end);
        self.bind(null);
        self.copy(&Opnd::Int(0), dst);
        self.bind(end);
        Opnd::Reg(dst)
    }

    /// `Obj::small_int(v)` / `Obj::small_float(f)`: the fit check (a
    /// failure panics as the plain method does), then the tag; or the fit
    /// check alone (`fits_small_*`).
    fn small_value(&mut self, c: &syn::ExprCall, ctor: &str, sp: Span) -> Res<Option<Val>> {
        let float = ctor.ends_with("float");
        let (ty, tname) = if float {
            (Ty::F64, "f64")
        } else {
            (Ty::int(crate::ty::I64), "i64")
        };
        let a = &c.args[0];
        let Some(v) = self.expr(a, Some(ty))? else {
            return Ok(None);
        };
        if v.ty != ty {
            return err(a.span(), format!("`Obj::{ctor}` takes an `{tname}`"));
        }
        let v = v.opnd(a.span())?;
        let fits = if float {
            self.pure_t("FloatFitsTag", std::slice::from_ref(&v))
        } else {
            self.fits_small_int(&v)
        };
        if ctor.starts_with("fits_") {
            return Ok(Some(Val::scalar(Ty::BOOL, fits)));
        }
        let place = checks::place(&quote!(#c).to_string(), sp);
        let (what, tag) = if float {
            (Failure::SmallFloatRange, "FloatTag")
        } else {
            (Failure::SmallIntRange, "IntTag")
        };
        let bad = self.failure(what, place, &v, &Opnd::Int(0));
        self.goto_if_not(&fits, bad);
        let r = self.regs.temp(Bank::Ref);
        self.pure(tag, &[v], r);
        Ok(Some(Val::scalar(Ty::Obj, Opnd::Reg(r))))
    }

    /// Whether `v` fits in a handle: `int_fits_tag` (one add and its
    /// overflow flag), which intbounds reads as `v` within 63 bits (so
    /// `int_untag(int_tag(v))` folds to `v` in a trace).
    fn fits_small_int(&mut self, v: &Opnd) -> Opnd {
        self.pure_t("IntFitsTag", std::slice::from_ref(v))
    }
}
