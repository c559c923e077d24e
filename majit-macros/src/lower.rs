//! Lowering of the dispatch loop body into builder calls.
//!
//! The lowering walks the loop body once, with a type for every value
//! (see [`crate::ty`]), and produces the Rust statements that, run at
//! jitcode-build time, call `JitCodeBuilder` to write the portal:
//! `bind(head); jit_merge_point(greens, reds); <body>; goto(head)`.
//! Control flow (`if`, `match`, `&&`, `||`, `checked_*`, bounds checks)
//! becomes labels and branches; `continue` jumps to the head, `return`
//! (and `break` of a tail loop) returns from the portal. Values are
//! operands: a register, an integer constant, null, or a const path
//! evaluated when the jitcode is built. GC struct handles live in the ref
//! bank (`new` + `setfield`s, `getfield`/`setfield`); helper calls become
//! `call` (residual/elidable, through an `extern "C"` shim) or
//! `inline_call` (an inline helper, lowered by [`lower_helper`] into its
//! own function).
//!
//! Invariants: every value read by jitcode was written on every path
//! reaching it (branch results go through one join register); the right
//! side of `&&`/`||` is only evaluated on the path that needs it; a value
//! of a narrow integer type is always kept sign- or zero-extended.

use crate::attr::{Helper, Policy};
use crate::regs::{Bank, Regs, R};
use crate::ty::{IntTy, Scalar, Ty, I64, USIZE};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Pat, Stmt, UnOp};

type Res<T> = syn::Result<T>;

fn err<T>(span: Span, msg: impl std::fmt::Display) -> Res<T> {
    Err(syn::Error::new(span, msg))
}

/// An operand.
#[derive(Clone)]
enum Opnd {
    Reg(R),
    Int(i64),
    /// The null reference.
    Null,
    /// A const path, cast to `i64` when the jitcode is built.
    Const(TokenStream),
}

impl Opnd {
    fn arg(&self) -> TokenStream {
        match self {
            Opnd::Reg(r) => {
                let r = r.tokens();
                quote!(::majit::metainterp::jitcode::Arg::Reg(#r))
            }
            Opnd::Int(v) => quote!(::majit::metainterp::jitcode::Arg::Int(#v)),
            Opnd::Null => quote!(::majit::metainterp::jitcode::Arg::Ref(0)),
            Opnd::Const(t) => quote!(::majit::metainterp::jitcode::Arg::Int((#t) as i64)),
        }
    }
}

/// A lowered value: its type and operand (none for `()`); slices carry
/// their length.
#[derive(Clone)]
struct Val {
    ty: Ty,
    op: Option<Opnd>,
    len: Option<Opnd>,
    /// The result of a helper declared without a return type: the error
    /// (at the declaration) that using it as a value reports.
    no_value: Option<syn::Error>,
}

impl Val {
    fn unit() -> Val {
        Val {
            ty: Ty::Unit,
            op: None,
            len: None,
            no_value: None,
        }
    }
    fn scalar(ty: Ty, op: Opnd) -> Val {
        Val {
            ty,
            op: Some(op),
            len: None,
            no_value: None,
        }
    }
    /// The result of a call (at `call`) of `h`, a helper declared without
    /// a return type.
    fn void_call(h: &Helper, call: Span) -> Val {
        let policy = match h.policy {
            Policy::Residual => "residual",
            Policy::Elidable => "elidable",
            Policy::Inline => "inline",
        };
        let msg = format!(
            "`{}` is declared without a return type, but its result is used: declare the type \
             it returns, `{policy} fn {}(..) -> T`",
            h.name, h.name
        );
        let mut e = syn::Error::new(h.name.span(), msg);
        e.combine(syn::Error::new(
            call,
            format!("the result of `{}` is used here", h.name),
        ));
        Val {
            no_value: Some(e),
            ..Val::unit()
        }
    }
    /// Fails if this is the result of a helper declared without a return
    /// type (reported at the declaration and at the call).
    fn used(&self) -> Res<()> {
        match &self.no_value {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
    fn opnd(&self, span: Span) -> Res<Opnd> {
        self.used()?;
        match (&self.op, self.ty) {
            (Some(o), Ty::Scalar(_) | Ty::Gc(_)) => Ok(o.clone()),
            _ => err(span, "expected an integer, bool or GC struct value here"),
        }
    }
}

/// A variable in scope.
#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    reg: R,
    len: Option<R>,
    /// An array's item registers (`reg` is the first).
    items: Vec<R>,
    /// A green `&[T]` (handlers cannot reassign slices): its reads are
    /// elidable loads that fold in a trace.
    frozen: bool,
}

/// The register bank of a value of type `ty`.
fn bank(ty: Ty) -> Bank {
    match ty {
        Ty::Gc(_) => Bank::Ref,
        _ => Bank::Int,
    }
}

/// A declared GC struct: headerless, one 8-byte slot per field in order.
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Ty)>,
}

impl StructDef {
    /// The local of `NAME_jitcode` holding the struct's type id in the
    /// thread heap (see `emit::jitcode_fn`).
    pub fn type_id_local(&self) -> syn::Ident {
        format_ident!("__majit_ty_{}", self.name)
    }

    /// The `SizeDescr` expression.
    pub fn size_descr(&self) -> TokenStream {
        let name = &self.name;
        let size = 8 * self.fields.len() as u32;
        let fields = self.fields.iter().map(|(f, _)| format!("{name}.{f}"));
        let ty = self.type_id_local();
        quote! {
            ::majit::ir::Descr::from(::majit::ir::SizeDescr {
                name: #name.into(), size: #size, type_id: #ty, headerless: true, vtable: None,
                fields: vec![#(#fields.into()),*],
            })
        }
    }

    /// The `FieldDescr` expression of field `i`.
    pub fn field_descr(&self, i: usize) -> TokenStream {
        let (owner, (f, ty)) = (&self.name, &self.fields[i]);
        let name = format!("{owner}.{f}");
        let offset = 8 * i as u32;
        let (kind, signed) = match ty {
            Ty::Gc(_) => (quote!(::majit::ir::Kind::Ref), false),
            t => (
                quote!(::majit::ir::Kind::Int),
                t.as_int().is_none_or(|t| t.signed),
            ),
        };
        quote! {
            ::majit::ir::Descr::from(::majit::ir::FieldDescr {
                name: #name.into(), owner: #owner.into(), offset: #offset, size: 8,
                signed: #signed, kind: #kind, immutable: false,
            })
        }
    }
}

/// A green or red: name, type and whether it is a green.
pub struct StateVar {
    pub name: syn::Ident,
    pub ty: Ty,
    /// The type as written (reloads cast back to it).
    pub rust_ty: syn::Type,
    pub green: bool,
}

/// What the lowering needs to know about the interpreter function.
pub struct Ctx<'a> {
    pub state: &'a [StateVar],
    pub helpers: &'a [Helper],
    pub structs: &'a [StructDef],
    /// Type names declared in the attribute.
    pub names: &'a crate::ty::Names,
    /// Locals and parameters outside the loop (for diagnostics).
    pub outer: &'a [String],
    pub ret: Ty,
    pub loop_label: Option<String>,
    /// The loop is the function's tail: `break v` returns `v`.
    pub break_ok: bool,
    /// Lowering an inline helper rather than the portal.
    pub helper: bool,
}

/// The lowered portal.
pub struct Lowered {
    pub code: Vec<TokenStream>,
    /// Parameter registers in order (inline helpers).
    pub params: Vec<R>,
    pub int_regs: u16,
    pub ref_regs: u16,
    pub labels: u32,
}

/// Where an assignment goes.
enum Place {
    Var(Var),
    Item(Var, Opnd),
}

/// The join of a branching construct: one result register (a temporary
/// of the enclosing statement) that every arm with a value writes.
struct Join {
    res: R,
    res_ref: R,
    ty: Option<Ty>,
    end: u32,
    flows: bool,
}

/// A `while`/`loop` inside a handler: where `continue` and `break` go.
struct InnerLoop {
    label: Option<String>,
    head: u32,
    exit: u32,
    /// A `break` targets it (a `loop` then falls through to its exit).
    broken: bool,
}

/// The error of a `can_enter_jit!()` not followed by a `continue`.
const MISPLACED_ENTER: &str = "`can_enter_jit!()` must be the statement right before a \
     `continue` of the dispatch loop: the JIT may resume at `jit_merge_point!()` from there, \
     so code after it would be skipped (move that code before `can_enter_jit!()`)";

/// `S` when `f` is `S::new` or `S::null` (a call the macro lowers only
/// for a declared struct).
fn undeclared_struct(f: &Expr) -> Option<String> {
    let Expr::Path(p) = f else { return None };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segs.as_slice() {
        [s, ctor] if matches!(ctor.as_str(), "new" | "null") => Some(s.clone()),
        _ => None,
    }
}

/// Where a `break`/`continue` goes.
enum Target {
    Dispatch,
    Inner(usize),
}

struct Lowerer<'a> {
    ctx: &'a Ctx<'a>,
    inner: Vec<InnerLoop>,
    code: Vec<TokenStream>,
    regs: Regs,
    labels: u32,
    scopes: Vec<Vec<Var>>,
    head: u32,
    oob: u32,
    greens: Vec<R>,
    reds: Vec<R>,
}

/// Lowers the loop `body` (whose first statement is `jit_merge_point!`).
pub fn lower(ctx: &Ctx, body: &[Stmt]) -> Res<Lowered> {
    let mut l = Lowerer {
        ctx,
        inner: Vec::new(),
        code: Vec::new(),
        regs: Regs::default(),
        labels: 0,
        scopes: vec![Vec::new()],
        head: 0,
        oob: 1,
        greens: Vec::new(),
        reds: Vec::new(),
    };
    l.labels = 2;
    l.state_vars()?;
    let (g, r) = (l.greens.clone(), l.reds.clone());
    let (g, r) = (g.iter().map(|x| x.tokens()), r.iter().map(|x| x.tokens()));
    let head = l.label_t(l.head);
    l.code.push(quote!(b.bind(#head);));
    l.code
        .push(quote!(b.jit_merge_point(&[#(#g),*], &[#(#r),*]);));
    if l.stmts(&body[1..], None, false)?.is_some() {
        l.code.push(quote!(b.goto(#head);));
    }
    Ok(l.finish(Vec::new()))
}

/// Lowers the body of an inline helper with these parameters.
pub fn lower_helper(ctx: &Ctx, params: &[(String, Ty)], body: &syn::Block) -> Res<Lowered> {
    let mut l = Lowerer {
        ctx,
        inner: Vec::new(),
        code: Vec::new(),
        regs: Regs::default(),
        labels: 2,
        scopes: vec![Vec::new()],
        head: 0,
        oob: 1,
        greens: Vec::new(),
        reds: Vec::new(),
    };
    let mut regs = Vec::new();
    for (name, ty) in params {
        let reg = l.regs.var(bank(*ty));
        regs.push(reg);
        l.scopes[0].push(Var {
            name: name.clone(),
            ty: *ty,
            reg,
            len: None,
            items: vec![],
            frozen: false,
        });
    }
    let span = body.brace_token.span.join();
    if let Some(v) = l.block(body, Some(ctx.ret))? {
        if v.ty != ctx.ret {
            return err(span, "the helper's value does not have its return type");
        }
        match v.op {
            Some(o) => {
                let a = o.arg();
                l.code.push(quote!(b.ret(Some(#a));));
            }
            None => l.code.push(quote!(b.ret(None);)),
        }
    }
    Ok(l.finish(regs))
}

impl Lowerer<'_> {
    /// Appends the bounds-check failure block and packs the result.
    fn finish(mut self, params: Vec<R>) -> Lowered {
        self.emit_oob();
        Lowered {
            code: self.code,
            params,
            int_regs: self.regs.count(Bank::Int),
            ref_regs: self.regs.count(Bank::Ref),
            labels: self.labels,
        }
    }

    /// The bounds-check failure block: the same panic as the plain
    /// interpreter (an `extern "C"` shim cannot unwind, so the process
    /// aborts).
    fn emit_oob(&mut self) {
        let oob = self.label_t(self.oob);
        let descr = call_descr("index_out_of_bounds", &[], None, Policy::Residual);
        let shim = quote!(::majit::metainterp::jitcode::Arg::Int(
            __majit_oob as usize as i64
        ));
        self.code.push(quote! {
            b.bind(#oob);
            b.call(#descr, #shim, &[], None);
            b.goto(#oob);
        });
    }
}

/// A `CallDescr` expression.
fn call_descr(name: &str, kinds: &[Bank], ret: Option<()>, policy: Policy) -> TokenStream {
    let kinds = kinds.iter().map(|k| match k {
        Bank::Int => quote!(::majit::ir::Kind::Int),
        Bank::Ref => quote!(::majit::ir::Kind::Ref),
    });
    let result = match ret {
        Some(()) => quote!(::majit::ir::ResultKind::Int),
        None => quote!(::majit::ir::ResultKind::Void),
    };
    let effect = match policy {
        Policy::Residual => quote!(::majit::ir::CallEffect::Random),
        Policy::Elidable => quote!(::majit::ir::CallEffect::Elidable),
        Policy::Inline => unreachable!("inline helpers are not called through descrs"),
    };
    quote! {
        ::majit::ir::Descr::from(::majit::ir::CallDescr {
            name: #name.into(),
            args: vec![#(#kinds),*],
            result: #result,
            effect: ::majit::ir::EffectInfo { effect: #effect, ..Default::default() },
        })
    }
}

fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Unary(u) => matches!(u.op, UnOp::Neg(_)) && is_literal(&u.expr),
        Expr::Paren(p) => is_literal(&p.expr),
        _ => false,
    }
}

impl<'a> Lowerer<'a> {
    fn label(&mut self) -> u32 {
        self.labels += 1;
        self.labels - 1
    }
    fn label_t(&self, l: u32) -> TokenStream {
        let l = l as usize;
        quote!(__l[#l])
    }
    fn bind(&mut self, l: u32) {
        let t = self.label_t(l);
        self.code.push(quote!(b.bind(#t);));
    }
    fn goto(&mut self, l: u32) {
        let t = self.label_t(l);
        self.code.push(quote!(b.goto(#t);));
    }
    fn goto_if_not(&mut self, c: &Opnd, l: u32) {
        let (c, t) = (c.arg(), self.label_t(l));
        self.code.push(quote!(b.goto_if_not(#c, #t);));
    }
    fn copy(&mut self, src: &Opnd, dst: R) {
        if let Opnd::Reg(r) = src {
            if *r == dst {
                return;
            }
        }
        let (s, d) = (src.arg(), dst.tokens());
        self.code.push(quote!(b.copy(#s, #d);));
    }
    fn pure(&mut self, op: &str, args: &[Opnd], dst: R) {
        let op = format_ident!("{}", op);
        let args = args.iter().map(Opnd::arg);
        let d = dst.tokens();
        self.code
            .push(quote!(b.op(::majit::ir::OpCode::#op, &[#(#args),*], #d);));
    }
    /// `op(args)` into a fresh temporary.
    fn pure_t(&mut self, op: &str, args: &[Opnd]) -> Opnd {
        let r = self.regs.temp(Bank::Int);
        self.pure(op, args, r);
        Opnd::Reg(r)
    }

    /// Installs the greens and reds in the outer scope.
    fn state_vars(&mut self) -> Res<()> {
        for sv in self.ctx.state {
            let (reg, len, items) = match sv.ty {
                Ty::Slice { .. } => (
                    self.regs.var(Bank::Ref),
                    Some(self.regs.var(Bank::Int)),
                    vec![],
                ),
                Ty::Array { item, len } => {
                    let b = bank(item.ty());
                    let items: Vec<R> = (0..len).map(|_| self.regs.var(b)).collect();
                    (items[0], None, items)
                }
                t => (self.regs.var(bank(t)), None, vec![]),
            };
            let list = if sv.green {
                &mut self.greens
            } else {
                &mut self.reds
            };
            if items.is_empty() {
                list.push(reg);
            }
            list.extend(len);
            list.extend(items.iter().copied());
            let name = sv.name.to_string();
            let frozen = sv.green && matches!(sv.ty, Ty::Slice { mutable: false, .. });
            self.scopes[0].push(Var {
                name,
                ty: sv.ty,
                reg,
                len,
                items,
                frozen,
            });
        }
        Ok(())
    }

    /// `S::new(fields...)` and `S::null()` of a declared struct.
    fn struct_call(&mut self, c: &syn::ExprCall, sp: Span) -> Res<Option<Option<Val>>> {
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
        let Some(si) = self.ctx.structs.iter().position(|s| s.name == *sname) else {
            return Ok(None);
        };
        let ty = Ty::Gc(si as u8);
        match ctor.as_str() {
            "null" if c.args.is_empty() => Ok(Some(Some(Val::scalar(ty, Opnd::Null)))),
            "new" => {
                let nf = self.ctx.structs[si].fields.len();
                if c.args.len() != nf {
                    return err(sp, format!("`{sname}::new` takes {nf} arguments (its fields)"));
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
            other => err(
                sp,
                format!("`{sname}::{other}` is not lowered: GC structs have `new(fields..)` and `null()`"),
            ),
        }
    }

    /// `x.field()`, `x.set_field(v)` and `x.is_null()` on a GC handle.
    fn gc_method(&mut self, m: &syn::ExprMethodCall, recv: &Val, si: u8) -> Res<Option<Val>> {
        let sp = m.span();
        let name = m.method.to_string();
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

    fn lookup(&self, name: &str) -> Option<Var> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|v| v.name == name)
            .cloned()
    }

    /// Lowers statements; the last one is the value if `tail` holds.
    /// `None`: control does not flow past them.
    fn stmts(&mut self, stmts: &[Stmt], want: Option<Ty>, tail: bool) -> Res<Option<Val>> {
        for (i, s) in stmts.iter().enumerate() {
            if let (true, true, Stmt::Expr(e, None)) = (tail, i + 1 == stmts.len(), s) {
                return self.expr(e, want);
            }
            if !self.ctx.helper && crate::emit::is_macro_stmt(s, "can_enter_jit") {
                self.can_enter_jit(s, stmts.get(i + 1))?;
                continue;
            }
            let mark = self.regs.mark();
            let flow = self.stmt(s)?;
            self.regs.release(mark);
            if flow.is_none() {
                return Ok(None);
            }
        }
        Ok(Some(Val::unit()))
    }

    fn block(&mut self, b: &syn::Block, want: Option<Ty>) -> Res<Option<Val>> {
        self.scopes.push(Vec::new());
        let v = self.stmts(&b.stmts, want, true)?;
        let scope = self.scopes.pop().expect("pushed above");
        // A block's value must not live in a register the block frees.
        let v = match v {
            Some(Val {
                ty,
                op: Some(Opnd::Reg(r)),
                len: None,
                ..
            }) if scope.iter().any(|var| var.reg == r) => {
                let t = self.regs.temp(bank(ty));
                self.copy(&Opnd::Reg(r), t);
                Some(Val::scalar(ty, Opnd::Reg(t)))
            }
            v => v,
        };
        for var in scope {
            self.regs.free_var(var.reg);
        }
        Ok(v)
    }

    fn stmt(&mut self, s: &Stmt) -> Res<Option<()>> {
        match s {
            Stmt::Local(local) => self.local(local),
            Stmt::Expr(e, _) => Ok(self.expr(e, None)?.map(|_| ())),
            Stmt::Macro(m) => self.mac(&m.mac).map(|v| v.map(|_| ())),
            Stmt::Item(i) => err(
                i.span(),
                "items are not supported inside the dispatch loop: define them outside the \
                 interpreter function",
            ),
        }
    }

    fn local(&mut self, local: &syn::Local) -> Res<Option<()>> {
        let (ident, declared) = match &local.pat {
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => (&p.ident, None),
            Pat::Type(pt) => match &*pt.pat {
                Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                    (&p.ident, Some(Ty::parse_with(&pt.ty, self.ctx.names)?))
                }
                other => return err(other.span(), "only `let name` bindings are supported"),
            },
            other => return err(other.span(), "only `let name` bindings are supported"),
        };
        let Some(init) = &local.init else {
            return err(
                local.span(),
                "give the variable a value where it is declared",
            );
        };
        if init.diverge.is_some() {
            return err(local.span(), "`let ... else` is not supported: use `match`");
        }
        let Some(v) = self.expr(&init.expr, declared)? else {
            return Ok(None);
        };
        v.used()?;
        let ty = declared.unwrap_or(v.ty);
        if !matches!(ty, Ty::Scalar(_) | Ty::Gc(_)) || v.ty != ty {
            return err(
                init.expr.span(),
                "a `let` in a handler must hold an integer, bool or GC struct of the declared \
                 type",
            );
        }
        let reg = self.regs.var(bank(ty));
        self.copy(&v.opnd(init.expr.span())?, reg);
        self.scopes.last_mut().expect("a scope").push(Var {
            name: ident.to_string(),
            ty,
            reg,
            len: None,
            items: vec![],
            frozen: false,
        });
        Ok(Some(()))
    }

    /// `can_enter_jit!()` (the statement `at`), which must come right
    /// before a `continue` of the dispatch loop: on that back edge the JIT
    /// may run a compiled loop and resume at the merge point, so any code
    /// in between would run in the plain interpreter only.
    fn can_enter_jit(&mut self, at: &Stmt, next: Option<&Stmt>) -> Res<()> {
        let Some(Stmt::Expr(Expr::Continue(c), _)) = next else {
            return err(at.span(), MISPLACED_ENTER);
        };
        if let Target::Inner(_) = self.target(c.label.as_ref(), "continue")? {
            return err(
                at.span(),
                "`can_enter_jit!()` is followed by a `continue` of a loop inside the handler, \
                 which is no back edge of the user program: it must come right before a \
                 `continue` of the dispatch loop (label the dispatch loop, `'dispatch: loop`, \
                 and write `continue 'dispatch`)",
            );
        }
        let g = self.greens.iter().map(|r| r.tokens());
        let r = self.reds.iter().map(|r| r.tokens());
        self.code
            .push(quote!(b.can_enter_jit(&[#(#g),*], &[#(#r),*]);));
        Ok(())
    }

    fn mac(&mut self, m: &syn::Macro) -> Res<Option<Val>> {
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        match name.as_deref() {
            // A statement right before a `continue` is lowered by `stmts`.
            Some("can_enter_jit") if !self.ctx.helper => err(m.span(), MISPLACED_ENTER),
            Some("jit_merge_point") => err(
                m.span(),
                "`jit_merge_point!()` must be the first statement of the dispatch loop, and \
                 appear once",
            ),
            _ => err(
                m.span(),
                "macro calls are not supported in a handler (only `can_enter_jit!()`): move \
                 this code into a helper function and declare it in `helpers` with a policy",
            ),
        }
    }

    fn expr(&mut self, e: &Expr, want: Option<Ty>) -> Res<Option<Val>> {
        let sp = e.span();
        match e {
            Expr::Paren(p) => self.expr(&p.expr, want),
            Expr::Group(g) => self.expr(&g.expr, want),
            Expr::Lit(l) => self.lit(&l.lit, want).map(Some),
            Expr::Path(p) => self.path(p, want).map(Some),
            Expr::Binary(b) => self.binary(b, want),
            Expr::Unary(u) => self.unary(u, want),
            Expr::Cast(c) => self.cast(c),
            Expr::Assign(a) => {
                let place = self.place(&a.left)?;
                let Some(v) = self.expr(&a.right, Some(place_ty(&place)))? else {
                    return Ok(None);
                };
                self.write(&place, &v, a.right.span())?;
                Ok(Some(Val::unit()))
            }
            Expr::Index(ix) => {
                let (arr, idx) = self.index(&ix.expr, &ix.index)?;
                self.load(&arr, &idx).map(Some)
            }
            Expr::MethodCall(m) => self.method(m, want),
            Expr::Call(c) => self.call(c),
            Expr::Block(b) if b.label.is_none() => self.block(&b.block, want),
            Expr::If(i) => self.if_expr(i, want),
            Expr::Match(m) => self.match_expr(m, want),
            Expr::Return(r) => self.ret(r.expr.as_deref(), sp),
            Expr::Break(b) => {
                if let Target::Inner(i) = self.target(b.label.as_ref(), "break")? {
                    if b.expr.is_some() {
                        return err(
                            sp,
                            "`break` with a value is only lowered for the dispatch loop",
                        );
                    }
                    self.inner[i].broken = true;
                    self.goto(self.inner[i].exit);
                    return Ok(None);
                }
                if !self.ctx.break_ok {
                    return err(
                        sp,
                        "`break` is only lowered when the dispatch loop is the function's \
                         last expression: use `return`",
                    );
                }
                self.ret(b.expr.as_deref(), sp)
            }
            Expr::Continue(c) => {
                match self.target(c.label.as_ref(), "continue")? {
                    Target::Inner(i) => self.goto(self.inner[i].head),
                    Target::Dispatch => self.goto(self.head),
                }
                Ok(None)
            }
            Expr::While(w) => self.while_loop(w),
            Expr::Loop(l) => self.inner_loop(l),
            Expr::Macro(m) => self.mac(&m.mac),
            Expr::Closure(_) => err(
                sp,
                "closures are not supported in a handler: move this code into a helper \
                 function and declare it in `helpers` with a policy",
            ),
            Expr::Try(_) => err(
                sp,
                "`?` is not supported in a handler: handle the error with `match`, or move \
                 this code into a helper function and declare it in `helpers` with a policy",
            ),
            Expr::ForLoop(_) => err(
                sp,
                "`for` loops run iterators, which a handler cannot lower: use `while` with an \
                 index, or move the loop into a helper function declared in `helpers`",
            ),
            Expr::Field(f) => err(
                f.span(),
                "undeclared field: a handler only sees the declared greens and reds (keep \
                 this state in a local listed in `reds`), or move this code into a helper",
            ),
            _ => err(
                sp,
                "this expression is outside the #[jit_interp] subset: move it into a helper \
                 function and declare it in `helpers` with a policy",
            ),
        }
    }

    /// The loop a `break`/`continue` with this label goes to: the
    /// innermost handler loop (or the labelled one), else the dispatch loop.
    fn target(&self, l: Option<&syn::Lifetime>, what: &str) -> Res<Target> {
        let name = l.map(|l| l.ident.to_string());
        let inner = match &name {
            None => self.inner.len().checked_sub(1),
            Some(n) => self.inner.iter().rposition(|i| i.label.as_ref() == Some(n)),
        };
        if let Some(i) = inner {
            return Ok(Target::Inner(i));
        }
        let sp = l.map_or_else(Span::call_site, |l| l.span());
        if self.ctx.helper {
            return err(sp, format!("`{what}` outside a loop of the helper"));
        }
        if name.is_some() && name != self.ctx.loop_label {
            return err(sp, format!("`{what}` to an unknown loop label"));
        }
        Ok(Target::Dispatch)
    }

    fn push_inner(&mut self, label: Option<&syn::Label>) -> (u32, u32) {
        let (head, exit) = (self.label(), self.label());
        self.inner.push(InnerLoop {
            label: label.map(|l| l.name.ident.to_string()),
            head,
            exit,
            broken: false,
        });
        (head, exit)
    }

    /// `while cond { body }` inside a handler (traced per iteration).
    fn while_loop(&mut self, w: &syn::ExprWhile) -> Res<Option<Val>> {
        if let Expr::Let(l) = &*w.cond {
            return err(
                l.span(),
                "`while let` is not lowered: use `loop` with `match`",
            );
        }
        let (head, exit) = self.push_inner(w.label.as_ref());
        self.bind(head);
        let mark = self.regs.mark();
        let Some(c) = self.expr(&w.cond, Some(Ty::BOOL))? else {
            self.inner.pop();
            return Ok(None);
        };
        if c.ty != Ty::BOOL {
            return err(w.cond.span(), "the condition must be a bool");
        }
        self.goto_if_not(&c.opnd(w.cond.span())?, exit);
        self.regs.release(mark);
        if self.block(&w.body, None)?.is_some() {
            self.goto(head);
        }
        self.inner.pop();
        self.bind(exit);
        Ok(Some(Val::unit()))
    }

    /// `loop { body }` inside a handler: reachable after it only through
    /// a `break`.
    fn inner_loop(&mut self, l: &syn::ExprLoop) -> Res<Option<Val>> {
        let (head, exit) = self.push_inner(l.label.as_ref());
        self.bind(head);
        if self.block(&l.body, None)?.is_some() {
            self.goto(head);
        }
        let broken = self.inner.pop().expect("pushed above").broken;
        self.bind(exit);
        Ok(broken.then(Val::unit))
    }

    fn ret(&mut self, e: Option<&Expr>, sp: Span) -> Res<Option<Val>> {
        let v = match e {
            Some(e) => match self.expr(e, Some(self.ctx.ret))? {
                Some(v) => v,
                None => return Ok(None),
            },
            None => Val::unit(),
        };
        if v.ty != self.ctx.ret {
            return err(
                sp,
                "the returned value does not have the function's return type",
            );
        }
        match v.op {
            Some(o) => {
                let a = o.arg();
                self.code.push(quote!(b.ret(Some(#a));));
            }
            None => self.code.push(quote!(b.ret(None);)),
        }
        Ok(None)
    }

    fn lit(&mut self, l: &syn::Lit, want: Option<Ty>) -> Res<Val> {
        match l {
            syn::Lit::Bool(b) => Ok(Val::scalar(Ty::BOOL, Opnd::Int(b.value as i64))),
            syn::Lit::Byte(b) => Ok(Val::scalar(
                Ty::int(IntTy {
                    bits: 8,
                    signed: false,
                }),
                Opnd::Int(b.value() as i64),
            )),
            syn::Lit::Int(i) => {
                let ty = if i.suffix().is_empty() {
                    match want.and_then(Ty::as_int) {
                        Some(t) => t,
                        None => I64,
                    }
                } else {
                    match IntTy::from_name(i.suffix()) {
                        Some(t) => t,
                        None => return err(i.span(), "unsupported integer suffix"),
                    }
                };
                let v: u64 = i.base10_parse()?;
                Ok(Val::scalar(Ty::int(ty), Opnd::Int(v as i64)))
            }
            other => err(
                other.span(),
                "only integer and bool literals are supported in a handler",
            ),
        }
    }

    fn path(&mut self, p: &syn::ExprPath, want: Option<Ty>) -> Res<Val> {
        if let Some(id) = p.path.get_ident() {
            let name = id.to_string();
            if let Some(v) = self.lookup(&name) {
                return Ok(Val {
                    ty: v.ty,
                    op: Some(Opnd::Reg(v.reg)),
                    len: v.len.map(Opnd::Reg),
                    no_value: None,
                });
            }
            if self.ctx.outer.contains(&name) {
                return err(
                    id.span(),
                    format!(
                        "`{name}` is a local of the interpreter function but neither a green \
                         nor a red: add it to `reds` (or `greens` if it identifies the \
                         position in the user program)"
                    ),
                );
            }
            if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
                return err(
                    id.span(),
                    format!(
                        "unknown name `{name}`: a handler may use greens, reds, its own \
                         `let`s and consts"
                    ),
                );
            }
        }
        let ty = want
            .filter(|t| matches!(t, Ty::Scalar(_)))
            .unwrap_or(Ty::int(I64));
        Ok(Val::scalar(ty, Opnd::Const(quote!(#p))))
    }

    /// Both operands, typing a literal side from the other.
    fn operands(&mut self, l: &Expr, r: &Expr, want: Option<Ty>) -> Res<Option<(Val, Val)>> {
        if is_literal(l) && !is_literal(r) {
            let Some(rv) = self.expr(r, want)? else {
                return Ok(None);
            };
            let Some(lv) = self.expr(l, Some(rv.ty))? else {
                return Ok(None);
            };
            return Ok(Some((lv, rv)));
        }
        let Some(lv) = self.expr(l, want)? else {
            return Ok(None);
        };
        let Some(rv) = self.expr(r, Some(lv.ty))? else {
            return Ok(None);
        };
        Ok(Some((lv, rv)))
    }

    fn binary(&mut self, b: &syn::ExprBinary, want: Option<Ty>) -> Res<Option<Val>> {
        let sp = b.span();
        if let Some(op) = compound_base(&b.op) {
            let place = self.place(&b.left)?;
            let cur = self.read(&place)?;
            let Some(rv) = self.expr(&b.right, Some(cur.ty))? else {
                return Ok(None);
            };
            let v = self.arith(op, &cur, &rv, sp)?;
            self.write(&place, &v, sp)?;
            return Ok(Some(Val::unit()));
        }
        match b.op {
            BinOp::And(_) => return self.short_circuit(&b.left, &b.right, true),
            BinOp::Or(_) => return self.short_circuit(&b.left, &b.right, false),
            _ => {}
        }
        let cmp = matches!(
            b.op,
            BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_)
        );
        let Some((l, r)) = self.operands(&b.left, &b.right, if cmp { None } else { want })? else {
            return Ok(None);
        };
        self.arith(Arith::from(&b.op, sp)?, &l, &r, sp).map(Some)
    }

    /// A binary operation on two scalars of the same type.
    fn arith(&mut self, op: Arith, l: &Val, r: &Val, sp: Span) -> Res<Val> {
        l.used()?;
        r.used()?;
        if l.ty != r.ty {
            return err(sp, "the operands have different types: add an `as` cast");
        }
        let (a, b) = (l.opnd(sp)?, r.opnd(sp)?);
        let t = match l.ty {
            Ty::Scalar(Scalar::Int(t)) => t,
            Ty::Gc(_) => {
                let name = match op {
                    Arith::Eq => "PtrEq",
                    Arith::Ne => "PtrNe",
                    _ => return err(sp, "GC struct handles can only be compared with == and !="),
                };
                return Ok(Val::scalar(Ty::BOOL, self.pure_t(name, &[a, b])));
            }
            Ty::Scalar(Scalar::Bool) => {
                let name = match op {
                    Arith::BitAnd => "IntAnd",
                    Arith::BitOr => "IntOr",
                    Arith::BitXor => "IntXor",
                    Arith::Eq => "IntEq",
                    Arith::Ne => "IntNe",
                    _ => return err(sp, "this operator is not defined on bool"),
                };
                return Ok(Val::scalar(Ty::BOOL, self.pure_t(name, &[a, b])));
            }
            _ => return err(sp, "expected integer operands"),
        };
        let wide_unsigned = !t.signed && t.bits == 64;
        let cmp = |s: &str, u: &str| {
            if wide_unsigned {
                u.to_string()
            } else {
                s.to_string()
            }
        };
        let (name, normalize) = match op {
            Arith::Add => ("IntAdd".into(), true),
            Arith::Sub => ("IntSub".into(), true),
            Arith::Mul => ("IntMul".into(), true),
            Arith::Div | Arith::Rem => {
                let ok = matches!(b, Opnd::Int(v) if v != 0 && v != -1) && !wide_unsigned;
                if !ok {
                    return err(
                        sp,
                        "`/` and `%` are only lowered with a constant divisor other than 0 \
                         and -1 on signed or narrow types: move this into a helper",
                    );
                }
                let n = if op == Arith::Div {
                    "IntFloorDiv"
                } else {
                    "IntMod"
                };
                (n.into(), false)
            }
            Arith::BitAnd => ("IntAnd".into(), false),
            Arith::BitOr => ("IntOr".into(), false),
            Arith::BitXor => ("IntXor".into(), false),
            Arith::Shl | Arith::Shr => {
                if !matches!(b, Opnd::Int(v) if (0..t.bits as i64).contains(&v)) {
                    return err(
                        sp,
                        "shifts are only lowered by a constant smaller than the type's width: \
                         use `wrapping_shl`/`wrapping_shr`",
                    );
                }
                match op {
                    Arith::Shl => ("IntLshift".into(), true),
                    _ if t.signed => ("IntRshift".into(), false),
                    _ => ("UintRshift".into(), false),
                }
            }
            Arith::Eq => ("IntEq".into(), false),
            Arith::Ne => ("IntNe".into(), false),
            Arith::Lt => (cmp("IntLt", "UintLt"), false),
            Arith::Le => (cmp("IntLe", "UintLe"), false),
            Arith::Gt => (cmp("IntGt", "UintGt"), false),
            Arith::Ge => (cmp("IntGe", "UintGe"), false),
        };
        let res = self.pure_t(&name, &[a, b]);
        if op.is_cmp() {
            return Ok(Val::scalar(Ty::BOOL, res));
        }
        let res = if normalize {
            self.normalize(res, t)
        } else {
            res
        };
        Ok(Val::scalar(l.ty, res))
    }

    /// Brings a 64-bit result back into the range of `t`.
    fn normalize(&mut self, o: Opnd, t: IntTy) -> Opnd {
        if t.bits == 64 {
            return o;
        }
        if t.signed {
            let sh = Opnd::Int(64 - t.bits as i64);
            let x = self.pure_t("IntLshift", &[o, sh.clone()]);
            self.pure_t("IntRshift", &[x, sh])
        } else {
            self.pure_t("IntAnd", &[o, Opnd::Int((1i64 << t.bits) - 1)])
        }
    }

    /// `a && b` (`and`) or `a || b`: `b` runs only when `a` requires it.
    fn short_circuit(&mut self, a: &Expr, b: &Expr, and: bool) -> Res<Option<Val>> {
        let Some(av) = self.expr(a, Some(Ty::BOOL))? else {
            return Ok(None);
        };
        if av.ty != Ty::BOOL {
            return err(a.span(), "expected a bool");
        }
        let res = self.regs.temp(Bank::Int);
        self.copy(&av.opnd(a.span())?, res);
        let end = self.label();
        if and {
            self.goto_if_not(&Opnd::Reg(res), end);
        } else {
            let rhs = self.label();
            self.goto_if_not(&Opnd::Reg(res), rhs);
            self.goto(end);
            self.bind(rhs);
        }
        let mark = self.regs.mark();
        if let Some(bv) = self.expr(b, Some(Ty::BOOL))? {
            if bv.ty != Ty::BOOL {
                return err(b.span(), "expected a bool");
            }
            self.copy(&bv.opnd(b.span())?, res);
        }
        self.regs.release(mark);
        self.bind(end);
        Ok(Some(Val::scalar(Ty::BOOL, Opnd::Reg(res))))
    }

    fn unary(&mut self, u: &syn::ExprUnary, want: Option<Ty>) -> Res<Option<Val>> {
        let sp = u.span();
        let Some(v) = self.expr(&u.expr, want)? else {
            return Ok(None);
        };
        let o = v.opnd(sp)?;
        match (&u.op, v.ty) {
            (UnOp::Neg(_), Ty::Scalar(Scalar::Int(t))) => {
                if let Opnd::Int(x) = o {
                    return Ok(Some(Val::scalar(v.ty, Opnd::Int(x.wrapping_neg()))));
                }
                let r = self.pure_t("IntNeg", &[o]);
                Ok(Some(Val::scalar(v.ty, self.normalize(r, t))))
            }
            (UnOp::Not(_), Ty::Scalar(Scalar::Bool)) => {
                Ok(Some(Val::scalar(Ty::BOOL, self.pure_t("IntIsZero", &[o]))))
            }
            (UnOp::Not(_), Ty::Scalar(Scalar::Int(t))) => {
                let r = self.pure_t("IntInvert", &[o]);
                let r = if t.signed { r } else { self.normalize(r, t) };
                Ok(Some(Val::scalar(v.ty, r)))
            }
            _ => err(
                sp,
                "this unary operator is not supported in a handler (no dereferences)",
            ),
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Res<Option<Val>> {
        let to = Ty::parse(&c.ty)?;
        let Some(t) = to.as_int() else {
            return err(c.ty.span(), "`as` casts are only lowered to integer types");
        };
        let Some(v) = self.expr(&c.expr, None)? else {
            return Ok(None);
        };
        let o = v.opnd(c.expr.span())?;
        Ok(Some(Val::scalar(to, self.normalize(o, t))))
    }

    /// The slice variable and index operand of `arr[idx]`, bounds-checked.
    fn index(&mut self, arr: &Expr, idx: &Expr) -> Res<(Var, Opnd)> {
        let var = match arr {
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|id| self.lookup(&id.to_string())),
            _ => None,
        };
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
        let Some(len) = var.len else {
            // An array: its switch's default is the bounds failure.
            return Ok((var, i));
        };
        let len = Opnd::Reg(len);
        let ok = self.pure_t("UintLt", &[i.clone(), len]);
        self.goto_if_not(&ok, self.oob);
        Ok((var, i))
    }

    fn array_descr(elem: Scalar) -> TokenStream {
        let name = format!("items_{}", elem.name());
        let (size, signed) = (elem.item_size(), elem.signed());
        quote! {
            ::majit::ir::Descr::from(::majit::ir::ArrayDescr {
                name: #name.into(), base_offset: 0, len_offset: 0, item_size: #size,
                signed: #signed, kind: ::majit::ir::Kind::Int, type_id: 0,
            })
        }
    }

    /// A switch over an array's items on `idx`: `each(self, k)` emits the
    /// code of item `k`; no matching item is the bounds failure. In a
    /// trace the index is usually a green, so the switch folds away.
    fn item_switch(&mut self, arr: &Var, idx: &Opnd, mut each: impl FnMut(&mut Self, R)) {
        let end = self.label();
        let labels: Vec<u32> = arr.items.iter().map(|_| self.label()).collect();
        let cases = labels.iter().enumerate().map(|(k, &l)| {
            let (k, l) = (k as i64, self.label_t(l));
            quote!((#k, #l))
        });
        let cases: Vec<TokenStream> = cases.collect();
        let i = idx.arg();
        self.code.push(quote!(b.switch(#i, &[#(#cases),*]);));
        self.goto(self.oob);
        for (&l, &item) in labels.iter().zip(&arr.items) {
            self.bind(l);
            each(self, item);
            self.goto(end);
        }
        self.bind(end);
    }

    fn load(&mut self, arr: &Var, idx: &Opnd) -> Res<Val> {
        let elem = match arr.ty {
            Ty::Slice { elem, .. } => elem,
            Ty::Array { item, .. } => {
                let ty = item.ty();
                let dst = self.regs.temp(bank(ty));
                self.item_switch(arr, idx, |l, r| l.copy(&Opnd::Reg(r), dst));
                return Ok(Val::scalar(ty, Opnd::Reg(dst)));
            }
            _ => unreachable!("index() only returns slices and arrays"),
        };
        let dst = self.regs.temp(Bank::Int);
        let (a, i, d) = (Opnd::Reg(arr.reg).arg(), idx.arg(), dst.tokens());
        if arr.frozen {
            // A frozen green slice: an elidable load, folded when the
            // pointer and index are constants (they are, in a trace).
            let shim = format_ident!("__majit_load_{}", arr.name);
            let descr = call_descr(
                &format!("load_{}", arr.name),
                &[Bank::Ref, Bank::Int],
                Some(()),
                Policy::Elidable,
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

    fn place(&mut self, e: &Expr) -> Res<Place> {
        match e {
            Expr::Path(p) if p.path.get_ident().is_some() => {
                let id = p.path.get_ident().expect("checked");
                match self.lookup(&id.to_string()) {
                    Some(v) if matches!(v.ty, Ty::Scalar(_) | Ty::Gc(_)) => Ok(Place::Var(v)),
                    Some(_) => err(id.span(), "slices cannot be reassigned in a handler"),
                    None => {
                        self.path(p, None)?;
                        err(id.span(), "only variables can be assigned")
                    }
                }
            }
            Expr::Index(ix) => {
                let (arr, i) = self.index(&ix.expr, &ix.index)?;
                if !matches!(arr.ty, Ty::Slice { mutable: true, .. } | Ty::Array { .. }) {
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

    fn read(&mut self, p: &Place) -> Res<Val> {
        match p {
            Place::Var(v) => Ok(Val::scalar(v.ty, Opnd::Reg(v.reg))),
            Place::Item(arr, i) => self.load(arr, i),
        }
    }

    fn write(&mut self, p: &Place, v: &Val, sp: Span) -> Res<()> {
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
                let Ty::Slice { elem, .. } = arr.ty else {
                    unreachable!("items are of slices")
                };
                let descr = Self::array_descr(elem);
                let (a, i, o) = (Opnd::Reg(arr.reg).arg(), i.arg(), o.arg());
                self.code.push(quote!(b.setarrayitem(#a, #i, #o, #descr);));
            }
        }
        Ok(())
    }

    fn method(&mut self, m: &syn::ExprMethodCall, want: Option<Ty>) -> Res<Option<Val>> {
        let sp = m.span();
        let name = m.method.to_string();
        if name.starts_with("checked_") {
            return err(
                sp,
                "`checked_*` is lowered only as the scrutinee of `match` (`Some(v) => ..., \
                 None => ...`) or in `if let Some(v) = ...`",
            );
        }
        let Some(recv) = self.expr(&m.receiver, want)? else {
            return Ok(None);
        };
        if let Ty::Gc(si) = recv.ty {
            return self.gc_method(m, &recv, si);
        }
        let args: Vec<&Expr> = m.args.iter().collect();
        match (name.as_str(), recv.ty, args.as_slice()) {
            ("len", Ty::Slice { .. }, []) => Ok(Some(Val::scalar(
                Ty::int(USIZE),
                recv.len.clone().expect("slices have a length"),
            ))),
            ("wrapping_add" | "wrapping_sub" | "wrapping_mul", Ty::Scalar(Scalar::Int(_)), [a]) => {
                let Some(av) = self.expr(a, Some(recv.ty))? else {
                    return Ok(None);
                };
                let op = match name.as_str() {
                    "wrapping_add" => Arith::Add,
                    "wrapping_sub" => Arith::Sub,
                    _ => Arith::Mul,
                };
                self.arith(op, &recv, &av, sp).map(Some)
            }
            ("wrapping_neg", Ty::Scalar(Scalar::Int(t)), []) => {
                let r = self.pure_t("IntNeg", &[recv.opnd(sp)?]);
                Ok(Some(Val::scalar(recv.ty, self.normalize(r, t))))
            }
            ("wrapping_shl" | "wrapping_shr", Ty::Scalar(Scalar::Int(t)), [a]) => {
                let u32t = Ty::int(IntTy {
                    bits: 32,
                    signed: false,
                });
                let Some(av) = self.expr(a, Some(u32t))? else {
                    return Ok(None);
                };
                let n = self.pure_t(
                    "IntAnd",
                    &[av.opnd(a.span())?, Opnd::Int(t.bits as i64 - 1)],
                );
                let x = recv.opnd(sp)?;
                let r = match (name.as_str(), t.signed) {
                    ("wrapping_shl", _) => {
                        let r = self.pure_t("IntLshift", &[x, n]);
                        self.normalize(r, t)
                    }
                    (_, true) => self.pure_t("IntRshift", &[x, n]),
                    (_, false) => self.pure_t("UintRshift", &[x, n]),
                };
                Ok(Some(Val::scalar(recv.ty, r)))
            }
            _ => err(
                m.method.span(),
                format!(
                    "method `{name}` is not supported here: a handler knows `wrapping_*` and \
                     `checked_*` on integers and `len()` on slices; call a declared helper \
                     instead"
                ),
            ),
        }
    }

    fn call(&mut self, c: &syn::ExprCall) -> Res<Option<Val>> {
        let sp = c.span();
        if let Some(v) = self.struct_call(c, sp)? {
            return Ok(v);
        }
        let name = match &*c.func {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let Some(name) = name else {
            if let Some(s) = undeclared_struct(&c.func) {
                return err(
                    c.func.span(),
                    format!(
                        "`{s}` is not a declared GC struct: declare it in `structs = [{s} {{ \
                         field: Type, .. }}]` (its fields: integers, bools or declared structs), \
                         or move this code into a helper declared in `helpers`"
                    ),
                );
            }
            return err(
                c.func.span(),
                "only calls of declared helpers (plain function names) are supported",
            );
        };
        let Some(h) = self.ctx.helpers.iter().find(|h| h.name == name) else {
            return err(
                c.func.span(),
                format!(
                    "`{name}` is not a declared helper: declare it in `helpers = [residual fn \
                     {name}(...) -> ...]` (or `elidable fn` if it is pure)"
                ),
            );
        };
        if h.args.len() != c.args.len() {
            return err(
                sp,
                format!("helper `{name}` takes {} arguments", h.args.len()),
            );
        }
        let mut args = Vec::new();
        for (a, &t) in c.args.iter().zip(&h.args) {
            let Some(v) = self.expr(a, Some(Ty::Scalar(t)))? else {
                return Ok(None);
            };
            v.used()?;
            if v.ty != Ty::Scalar(t) {
                return err(a.span(), "the argument does not have the declared type");
            }
            args.push(v.opnd(a.span())?.arg());
        }
        if h.policy == Policy::Inline {
            let f = format_ident!("__majit_f_{}", name);
            return Ok(Some(match h.ret {
                Some(t) => {
                    let d = self.regs.temp(Bank::Int);
                    let dt = d.tokens();
                    self.code
                        .push(quote!(b.inline_call(#f, &[#(#args),*], Some(#dt));));
                    Val::scalar(Ty::Scalar(t), Opnd::Reg(d))
                }
                None => {
                    self.code
                        .push(quote!(b.inline_call(#f, &[#(#args),*], None);));
                    Val::void_call(h, sp)
                }
            }));
        }
        let descr = call_descr(
            &name,
            &vec![Bank::Int; h.args.len()],
            h.ret.map(|_| ()),
            h.policy,
        );
        let shim = format_ident!("__majit_shim_{}", name);
        let func = quote!(::majit::metainterp::jitcode::Arg::Int(#shim as usize as i64));
        match h.ret {
            Some(t) => {
                let dst = self.regs.temp(Bank::Int);
                let d = dst.tokens();
                self.code
                    .push(quote!(b.call(#descr, #func, &[#(#args),*], Some(#d));));
                Ok(Some(Val::scalar(Ty::Scalar(t), Opnd::Reg(dst))))
            }
            None => {
                self.code
                    .push(quote!(b.call(#descr, #func, &[#(#args),*], None);));
                Ok(Some(Val::void_call(h, sp)))
            }
        }
    }

    fn join_arm(&mut self, j: &mut Join, v: Option<Val>, sp: Span) -> Res<()> {
        let Some(v) = v else { return Ok(()) };
        if let Some(t) = j.ty {
            if t != v.ty {
                return err(sp, "the branches have different types");
            }
        }
        j.ty = Some(v.ty);
        j.flows = true;
        match v.ty {
            Ty::Scalar(_) => self.copy(&v.opnd(sp)?, j.res),
            Ty::Gc(_) => self.copy(&v.opnd(sp)?, j.res_ref),
            _ => {}
        }
        self.goto(j.end);
        Ok(())
    }

    fn finish_join(&mut self, j: Join) -> Option<Val> {
        self.bind(j.end);
        if !j.flows {
            return None;
        }
        Some(match j.ty {
            Some(t @ Ty::Scalar(_)) => Val::scalar(t, Opnd::Reg(j.res)),
            Some(t @ Ty::Gc(_)) => Val::scalar(t, Opnd::Reg(j.res_ref)),
            _ => Val::unit(),
        })
    }

    fn new_join(&mut self) -> Join {
        Join {
            res: self.regs.temp(Bank::Int),
            res_ref: self.regs.temp(Bank::Ref),
            ty: None,
            end: self.label(),
            flows: false,
        }
    }

    /// Lowers `e` (a branch body) in its own temporary scope, keeping
    /// the join register reserved.
    fn arm(&mut self, j: &mut Join, e: ArmBody, want: Option<Ty>) -> Res<()> {
        let mark = self.regs.mark();
        let (v, sp) = match e {
            ArmBody::Block(b) => (self.block(b, want)?, b.span()),
            ArmBody::Expr(e) => (self.expr(e, want)?, e.span()),
            ArmBody::Unit => (Some(Val::unit()), Span::call_site()),
        };
        self.join_arm(j, v, sp)?;
        self.regs.release(mark);
        Ok(())
    }

    fn if_expr(&mut self, i: &syn::ExprIf, want: Option<Ty>) -> Res<Option<Val>> {
        if let Expr::Let(l) = &*i.cond {
            let else_body = match &i.else_branch {
                Some((_, e)) => ArmBody::Expr(e),
                None => ArmBody::Unit,
            };
            return self.checked(
                &l.expr,
                &l.pat,
                ArmBody::Block(&i.then_branch),
                else_body,
                want,
            );
        }
        let Some(c) = self.expr(&i.cond, Some(Ty::BOOL))? else {
            return Ok(None);
        };
        if c.ty != Ty::BOOL {
            return err(i.cond.span(), "the condition must be a bool");
        }
        let c = c.opnd(i.cond.span())?;
        let mut j = self.new_join();
        let other = self.label();
        self.goto_if_not(&c, other);
        self.arm(&mut j, ArmBody::Block(&i.then_branch), want)?;
        self.bind(other);
        match &i.else_branch {
            Some((_, e)) => self.arm(&mut j, ArmBody::Expr(e), want)?,
            None => self.arm(&mut j, ArmBody::Unit, want)?,
        }
        Ok(self.finish_join(j))
    }

    /// `match x.checked_op(y) { Some(v) => A, None => B }` and the
    /// `if let` form: `int_op_ovf` into `v`, overflow branches to B.
    fn checked(
        &mut self,
        scrut: &Expr,
        some_pat: &Pat,
        some_body: ArmBody,
        none_body: ArmBody,
        want: Option<Ty>,
    ) -> Res<Option<Val>> {
        let sp = scrut.span();
        let Expr::MethodCall(m) = strip(scrut) else {
            return err(
                sp,
                "`if let` is only lowered for `Some(v) = x.checked_*(y)`",
            );
        };
        let op = match m.method.to_string().as_str() {
            "checked_add" => "IntAddOvf",
            "checked_sub" => "IntSubOvf",
            "checked_mul" => "IntMulOvf",
            _ => {
                return err(
                    m.method.span(),
                    "only `checked_add`, `checked_sub` and `checked_mul` are lowered",
                )
            }
        };
        let name = match some_pat {
            Pat::TupleStruct(ts) if ts.path.is_ident("Some") && ts.elems.len() == 1 => {
                match &ts.elems[0] {
                    Pat::Ident(p) if p.subpat.is_none() => p.ident.to_string(),
                    other => return err(other.span(), "expected `Some(name)`"),
                }
            }
            other => return err(other.span(), "expected `Some(name)`"),
        };
        let Some(recv) = self.expr(&m.receiver, None)? else {
            return Ok(None);
        };
        if recv.ty != Ty::int(I64) || m.args.len() != 1 {
            return err(sp, "`checked_*` is only lowered on `i64` with one argument");
        }
        let Some(arg) = self.expr(&m.args[0], Some(recv.ty))? else {
            return Ok(None);
        };
        let (a, b) = (recv.opnd(sp)?.arg(), arg.opnd(sp)?.arg());
        let v = self.regs.var(Bank::Int);
        let mut j = self.new_join();
        let none = self.label();
        let (opi, vt, nl) = (format_ident!("{}", op), v.tokens(), self.label_t(none));
        self.code
            .push(quote!(b.ovf(::majit::ir::OpCode::#opi, #a, #b, #vt, #nl);));
        self.scopes.push(vec![Var {
            name,
            ty: recv.ty,
            reg: v,
            len: None,
            items: vec![],
            frozen: false,
        }]);
        self.arm(&mut j, some_body, want)?;
        self.scopes.pop();
        self.bind(none);
        self.arm(&mut j, none_body, want)?;
        self.regs.free_var(v);
        Ok(self.finish_join(j))
    }

    fn match_expr(&mut self, m: &syn::ExprMatch, want: Option<Ty>) -> Res<Option<Val>> {
        if let Expr::MethodCall(mc) = strip(&m.expr) {
            if mc.method.to_string().starts_with("checked_") {
                return self.checked_match(m, want);
            }
        }
        let Some(s) = self.expr(&m.expr, None)? else {
            return Ok(None);
        };
        let Ty::Scalar(_) = s.ty else {
            return err(m.expr.span(), "only integers and bools can be matched");
        };
        let so = s.opnd(m.expr.span())?;
        // Keep the scrutinee in a register the arms cannot clobber.
        let sreg = self.regs.temp(Bank::Int);
        self.copy(&so, sreg);
        let mut cases = Vec::new();
        let mut arm_labels = Vec::new();
        let mut default = None;
        let mut binds = Vec::new();
        for arm in &m.arms {
            if let Some((_, g)) = &arm.guard {
                return err(
                    g.span(),
                    "match guards are not supported: use `if` inside the arm",
                );
            }
            let l = self.label();
            arm_labels.push(l);
            let mut bind = None;
            self.patterns(&arm.pat, l, &mut cases, &mut default, &mut bind)?;
            binds.push(bind);
        }
        let cases_t = cases.iter().map(|(v, l)| {
            let l = self.label_t(*l);
            quote!(((#v) as i64, #l))
        });
        let sr = Opnd::Reg(sreg).arg();
        self.code.push(quote!(b.switch(#sr, &[#(#cases_t),*]);));
        match default {
            Some(l) => self.goto(l),
            None => self.goto(self.oob),
        }
        let mut j = self.new_join();
        for ((arm, l), bind) in m.arms.iter().zip(arm_labels).zip(binds) {
            self.bind(l);
            let scope = bind
                .map(|name| Var {
                    name,
                    ty: s.ty,
                    reg: sreg,
                    len: None,
                    items: vec![],
                    frozen: false,
                })
                .into_iter()
                .collect();
            self.scopes.push(scope);
            self.arm(&mut j, ArmBody::Expr(&arm.body), want)?;
            self.scopes.pop();
        }
        Ok(self.finish_join(j))
    }

    /// Adds the cases of `pat` (jumping to `l`) to `cases`.
    fn patterns(
        &mut self,
        pat: &Pat,
        l: u32,
        cases: &mut Vec<(TokenStream, u32)>,
        default: &mut Option<u32>,
        bind: &mut Option<String>,
    ) -> Res<()> {
        match pat {
            Pat::Or(o) => {
                for p in &o.cases {
                    self.patterns(p, l, cases, default, bind)?;
                }
            }
            Pat::Lit(lit) => match &lit.lit {
                syn::Lit::Int(i) => {
                    let v = i.base10_parse::<u64>()? as i64;
                    cases.push((quote!(#v), l));
                }
                syn::Lit::Bool(b) => {
                    let v = b.value as i64;
                    cases.push((quote!(#v), l));
                }
                syn::Lit::Byte(b) => {
                    let v = b.value() as i64;
                    cases.push((quote!(#v), l));
                }
                other => return err(other.span(), "only integer, byte and bool literals"),
            },
            Pat::Path(p) => cases.push((quote!(#p), l)),
            Pat::Ident(p)
                if p.subpat.is_none()
                    && p.ident
                        .to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase()) =>
            {
                let id = &p.ident;
                cases.push((quote!(#id), l));
            }
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                default.get_or_insert(l);
                *bind = Some(p.ident.to_string());
            }
            Pat::Wild(_) => {
                default.get_or_insert(l);
            }
            other => {
                return err(
                    other.span(),
                    "unsupported pattern: use integer or bool literals, consts, `|`, `_` or a \
                     name",
                )
            }
        }
        Ok(())
    }

    fn checked_match(&mut self, m: &syn::ExprMatch, want: Option<Ty>) -> Res<Option<Val>> {
        let mut some = None;
        let mut none = None;
        for arm in &m.arms {
            if let Some((_, g)) = &arm.guard {
                return err(g.span(), "match guards are not supported");
            }
            match &arm.pat {
                Pat::TupleStruct(ts) if ts.path.is_ident("Some") => some = Some(arm),
                Pat::Ident(p) if p.ident == "None" => none = Some(arm),
                Pat::Path(p) if p.path.is_ident("None") => none = Some(arm),
                Pat::Wild(_) => none = Some(arm),
                other => return err(other.span(), "expected `Some(v)` or `None`"),
            }
        }
        let (Some(s), Some(n)) = (some, none) else {
            return err(
                m.span(),
                "a `checked_*` match needs a `Some(v)` and a `None` arm",
            );
        };
        self.checked(
            &m.expr,
            &s.pat,
            ArmBody::Expr(&s.body),
            ArmBody::Expr(&n.body),
            want,
        )
    }
}

/// A branch body.
#[derive(Clone, Copy)]
enum ArmBody<'e> {
    Block(&'e syn::Block),
    Expr(&'e Expr),
    Unit,
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn place_ty(p: &Place) -> Ty {
    match p {
        Place::Var(v) => v.ty,
        Place::Item(arr, _) => match arr.ty {
            Ty::Slice { elem, .. } => Ty::Scalar(elem),
            Ty::Array { item, .. } => item.ty(),
            t => t,
        },
    }
}

/// A lowered binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Arith {
    fn from(op: &BinOp, sp: Span) -> Res<Arith> {
        Ok(match op {
            BinOp::Add(_) => Arith::Add,
            BinOp::Sub(_) => Arith::Sub,
            BinOp::Mul(_) => Arith::Mul,
            BinOp::Div(_) => Arith::Div,
            BinOp::Rem(_) => Arith::Rem,
            BinOp::BitAnd(_) => Arith::BitAnd,
            BinOp::BitOr(_) => Arith::BitOr,
            BinOp::BitXor(_) => Arith::BitXor,
            BinOp::Shl(_) => Arith::Shl,
            BinOp::Shr(_) => Arith::Shr,
            BinOp::Eq(_) => Arith::Eq,
            BinOp::Ne(_) => Arith::Ne,
            BinOp::Lt(_) => Arith::Lt,
            BinOp::Le(_) => Arith::Le,
            BinOp::Gt(_) => Arith::Gt,
            BinOp::Ge(_) => Arith::Ge,
            _ => return err(sp, "unsupported operator"),
        })
    }
    fn is_cmp(self) -> bool {
        matches!(
            self,
            Arith::Eq | Arith::Ne | Arith::Lt | Arith::Le | Arith::Gt | Arith::Ge
        )
    }
}

/// The operator of a compound assignment (`+=` → `+`).
fn compound_base(op: &BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::AddAssign(_) => Arith::Add,
        BinOp::SubAssign(_) => Arith::Sub,
        BinOp::MulAssign(_) => Arith::Mul,
        BinOp::DivAssign(_) => Arith::Div,
        BinOp::RemAssign(_) => Arith::Rem,
        BinOp::BitAndAssign(_) => Arith::BitAnd,
        BinOp::BitOrAssign(_) => Arith::BitOr,
        BinOp::BitXorAssign(_) => Arith::BitXor,
        BinOp::ShlAssign(_) => Arith::Shl,
        BinOp::ShrAssign(_) => Arith::Shr,
        _ => return None,
    })
}
