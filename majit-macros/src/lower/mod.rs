//! Lowering of the dispatch loop body into builder calls.
//!
//! The lowering walks the loop body once, with a type for every value
//! (see [`crate::ty`]), and produces the Rust statements that, run at
//! jitcode-build time, call `JitCodeBuilder` to write the portal:
//! `bind(head); jit_merge_point(greens, reds); <body>; goto(head)`.
//! Control flow (`if`, `match`, `&&`, `||`, `checked_*`, bounds checks)
//! becomes labels and branches; `continue` jumps to the head, `return`
//! (and `break` of a tail loop) returns from the portal. Values are
//! operands: a register, an integer or float constant, null, or a const
//! path evaluated when the jitcode is built. `f64` values live in the
//! float bank (`floats.rs`), GC struct handles in the ref
//! bank (`new` + `setfield`s, `getfield`/`setfield`); helper calls become
//! `call` (residual, elidable, loop-invariant, dont-look-inside: through an
//! `extern "C"` shim) or `inline_call` (an inline helper or traced
//! function, lowered by [`lower_helper`] into its own function).
//!
//! Invariants: every value read by jitcode was written on every path
//! reaching it (branch results go through one join register); the right
//! side of `&&`/`||` is only evaluated on the path that needs it; a value
//! of a narrow integer type is always kept sign- or zero-extended.

mod calls;
mod checks;
mod classes;
mod control;
mod expr;
mod floats;
mod gcarray;
mod hints;
mod objects;
mod overflow;
mod recursion;
mod result_values;
mod results;

pub use calls::residual_descr;
use calls::*;
use checks::*;
use control::*;
use expr::*;
pub use gcarray::gc_array_descr_value;
pub use objects::StructDef;
use objects::*;
use overflow::*;
pub use recursion::lower_entry;
use result_values::*;
use results::*;

use crate::attr::{Helper, Policy};
use crate::regs::{Bank, Regs, R};
use crate::ty::{IntTy, Scalar, Ty, I64, USIZE};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;
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
    /// A float constant.
    Float(f64),
    /// A const path of type `f64`, read when the jitcode is built.
    ConstF(TokenStream),
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
            Opnd::Float(v) => {
                // Through the bits: exact for -0.0, and NaN/inf have no literal.
                let bits = v.to_bits();
                quote!(::majit::metainterp::jitcode::Arg::Float(f64::from_bits(#bits)))
            }
            Opnd::ConstF(t) => quote!(::majit::metainterp::jitcode::Arg::Float(#t)),
        }
    }
}

/// A lowered value: its type and operand (none for `()`); slices carry
/// their length in `len`, the `Option` of `checked_*` its `Some` flag.
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
        let policy = h.policy.keyword();
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
            (Some(o), t) if t.is_single() => Ok(o.clone()),
            (_, Ty::Checked(_)) => err(span, OPTION_USE),
            (_, Ty::Result { .. }) => err(span, RESULT_LOCAL_USE),
            _ => err(
                span,
                "expected an integer, bool, `f64`, GC struct, `Obj` or `Array` value here",
            ),
        }
    }
}

/// A variable in scope.
#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    reg: R,
    /// A slice's length, or an `Option`'s `Some` flag.
    len: Option<R>,
    /// An array's item registers (`reg` is the first).
    items: Vec<R>,
    /// A green `&[T]` (handlers cannot reassign slices): its reads are
    /// elidable loads that fold in a trace.
    frozen: bool,
    /// Declared `mut` (greens and reds count as such: they are reloaded).
    mutable: bool,
    /// A green or red (not a handler's local).
    state: bool,
}

impl Var {
    /// A handler's local: one register, not frozen.
    fn local(name: String, ty: Ty, reg: R) -> Var {
        Var {
            name,
            ty,
            reg,
            len: None,
            items: vec![],
            frozen: false,
            mutable: false,
            state: false,
        }
    }
}

/// The register bank of a value of type `ty`.
fn bank(ty: Ty) -> Bank {
    match ty {
        t if t.is_ref() => Bank::Ref,
        Ty::Scalar(Scalar::F64) => Bank::Float,
        _ => Bank::Int,
    }
}

/// The names of `path`'s segments (`["value", "int_obj"]`).
pub fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// The banks of the arguments a value of type `ty` passes to a call: a
/// slice is its data pointer (ref bank, as at the merge point) and its
/// length.
pub fn arg_banks(ty: Ty) -> Vec<Bank> {
    match ty {
        Ty::Slice { .. } => vec![Bank::Ref, Bank::Int],
        t => vec![bank(t)],
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
    /// The result type (of a function returning `Result<T, E>`: `T`).
    pub ret: Ty,
    /// Of a function returning `Result<T, E>`: `E` (see `results.rs`).
    pub err: Option<Ty>,
    pub loop_label: Option<String>,
    /// The loop is the function's tail: `break v` returns `v`.
    pub break_ok: bool,
    /// Lowering an inline helper rather than the portal.
    pub helper: bool,
    /// A traced function's consts, evaluated in its own module.
    pub consts: Option<&'a crate::traced::ConstTable>,
    /// A traced method's struct, which `Self` names.
    pub self_struct: Option<String>,
    /// A recursive interpreter's parameters, by name and type (its calls
    /// of itself are lowered, see `recursion.rs`); `None` in helpers.
    pub recursive: Option<&'a [(String, Ty)]>,
}

/// The lowered portal.
pub struct Lowered {
    pub code: Vec<TokenStream>,
    /// Parameter registers in order (inline helpers).
    pub params: Vec<R>,
    pub int_regs: u16,
    pub ref_regs: u16,
    pub float_regs: u16,
    pub labels: u32,
    /// The `extern "C"` failure shims of its checks (see `checks.rs`),
    /// items of the block that builds the function.
    pub fail_shims: Vec<TokenStream>,
    /// The float shims its code calls (see `floats.rs`), by name.
    pub float_shims: BTreeSet<String>,
    /// Per call of the interpreter (by its index), the GC handles the
    /// caller holds across it (`recursion.rs`).
    pub roots: Vec<Vec<crate::recursion::Rooted>>,
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
    /// The block after a `switch` no case of which can match (a `match`
    /// Rust checked exhaustive).
    unreachable: u32,
    /// The failure blocks of the checks, emitted after the code.
    fail_blocks: Vec<TokenStream>,
    fail_shims: Vec<TokenStream>,
    float_shims: BTreeSet<String>,
    greens: Vec<R>,
    reds: Vec<R>,
    roots: Vec<Vec<crate::recursion::Rooted>>,
}

impl<'a> Lowerer<'a> {
    /// A lowerer of one function, with labels 0 (the head) and 1 (the
    /// unreachable block) reserved.
    fn new(ctx: &'a Ctx<'a>) -> Lowerer<'a> {
        Lowerer {
            ctx,
            inner: Vec::new(),
            code: Vec::new(),
            regs: Regs::default(),
            labels: 2,
            scopes: vec![Vec::new()],
            head: 0,
            unreachable: 1,
            fail_blocks: Vec::new(),
            fail_shims: Vec::new(),
            float_shims: BTreeSet::new(),
            greens: Vec::new(),
            reds: Vec::new(),
            roots: Vec::new(),
        }
    }
}

/// Lowers the loop `body` (whose first statement is `jit_merge_point!`).
pub fn lower(ctx: &Ctx, body: &[Stmt]) -> Res<Lowered> {
    let mut l = Lowerer::new(ctx);
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
    // A recursive interpreter's entry function calls the portal with the
    // greens and reds (the registers `state_vars` took first, in order).
    let params = match ctx.recursive {
        Some(_) => [l.greens.clone(), l.reds.clone()].concat(),
        None => Vec::new(),
    };
    Ok(l.finish(params))
}

/// Lowers the body of an inline helper with these parameters.
pub fn lower_helper(ctx: &Ctx, params: &[(String, Ty)], body: &syn::Block) -> Res<Lowered> {
    let mut l = Lowerer::new(ctx);
    let mut regs = Vec::new();
    for (name, ty) in params {
        // A slice parameter is two: its data pointer and its length.
        let banks = arg_banks(*ty);
        let reg = l.regs.var(banks[0]);
        let len = banks.get(1).map(|&b| l.regs.var(b));
        regs.push(reg);
        regs.extend(len);
        l.scopes[0].push(Var {
            len,
            ..Var::local(name.clone(), *ty, reg)
        });
    }
    let span = body.brace_token.span.join();
    let want = if ctx.err.is_some() {
        Ty::Fallible
    } else {
        ctx.ret
    };
    if let Some(v) = l.block(body, Some(want))? {
        if ctx.err.is_some() {
            return err(span, RESULT_END);
        }
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

fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Unary(u) => matches!(u.op, UnOp::Neg(_)) && is_literal(&u.expr),
        Expr::Paren(p) => is_literal(&p.expr),
        _ => false,
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

impl Lowerer<'_> {
    /// Appends the failure blocks and packs the result.
    fn finish(mut self, params: Vec<R>) -> Lowered {
        self.emit_unreachable();
        self.code.append(&mut self.fail_blocks);
        Lowered {
            code: self.code,
            params,
            int_regs: self.regs.count(Bank::Int),
            ref_regs: self.regs.count(Bank::Ref),
            float_regs: self.regs.count(Bank::Float),
            labels: self.labels,
            fail_shims: self.fail_shims,
            float_shims: self.float_shims,
            roots: self.roots,
        }
    }

    /// The block no execution reaches (`unreachable`): it reports a
    /// panic, as a Rust `unreachable!` would.
    fn emit_unreachable(&mut self) {
        let l = self.label_t(self.unreachable);
        let descr = call_descr("unreachable", &[], None, Policy::Residual, true);
        let shim = quote!(::majit::metainterp::jitcode::Arg::Int(
            __majit_unreachable as usize as i64
        ));
        self.code.push(quote! {
            b.bind(#l);
            b.call(#descr, #shim, &[], None);
            b.goto(#l);
        });
    }
}

impl<'a> Lowerer<'a> {
    /// The type `t` as written in a `let`, `Self` in a traced method its
    /// struct.
    fn parse_ty(&self, t: &syn::Type) -> Res<Ty> {
        match (t, &self.ctx.self_struct) {
            (syn::Type::Path(p), Some(s)) if p.qself.is_none() && p.path.is_ident("Self") => {
                let i = self.ctx.names.structs.iter().position(|n| n == s);
                Ok(Ty::Gc(
                    i.expect("a traced method's struct is declared") as u8
                ))
            }
            _ => Ty::parse_with(t, self.ctx.names),
        }
    }

    /// The jitcode builder's expression for the const path `t` (a traced
    /// function's consts are evaluated in its module: `traced.rs`).
    fn konst(&self, t: TokenStream) -> TokenStream {
        match self.ctx.consts {
            Some(c) => c.value(t),
            None => t,
        }
    }

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
                len,
                items,
                frozen,
                mutable: true,
                state: true,
                ..Var::local(name, sv.ty, reg)
            });
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<Var> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|v| v.name == name)
            .cloned()
    }
}
