//! The plain interpreter's cached view of the virtualizable frame's array
//! (`majit_gc::CachedArray`): `frame.regs[i]`, `frame.regs[i] = v` and
//! `frame.regs.len()` read the handle and length from a local instead of
//! through the frame, refreshed before the first access after anything
//! that may replace or move the array. Only the plain function is
//! rewritten; traces keep the array virtual as before.
//!
//! What makes a view stale (`Inv`), the JIT's own contract for what may
//! touch the frame: a macro (a recursive call of the interpreter, anything
//! unknown; not the JIT's markers, below), an assignment or rebinding of
//! the frame, a call of a residual helper given a GC handle unless it is
//! declared `no_force` (`may_force`), a setter of the array field, and a
//! traced or inline function whose body does one of these. Allocation never collects in the plain interpreter,
//! and the other calls a handler may make (the lowering rejects any other)
//! are pure operations.
//!
//! Placement is per statement of each block: a statement that may make
//! the view stale keeps its accesses as written (always correct) and
//! leaves the view stale; a statement with accesses and no such call gets
//! a refresh before it when the view is stale. `if`, `match`, `while`,
//! `loop`, plain blocks and `let`s of an `if`, `match` or block are
//! followed into.
//!
//! A loop with accesses keeps the view fresh at its head, so an iteration
//! that made nothing stale costs no refresh: the view is refreshed before
//! the loop, before each `continue` reached stale (every `continue` inside
//! a statement that may make the view stale), at the end of a body that
//! ends stale, and, where branches join with some fresh, at the end of
//! the stale ones; the view is fresh after the loop when it is at every
//! `break` (tracked per loop; a labeled `break` counts for all). Outside
//! such loops a compound statement that makes the view stale anywhere
//! leaves it stale. The JIT's markers make nothing stale:
//! `can_enter_jit!()` is removed and the merge point's safepoint refreshes
//! the view itself after a collection ([`ArrayCache::refresh`]).

use crate::attr::{Helper, Policy};
use proc_macro2::TokenStream;
use quote::format_ident;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Stmt};

/// The local holding the view.
const VIEW: &str = "__majit_va";
/// Whether macro `m` is a marker the plain function keeps the view
/// across: `can_enter_jit!()` (removed) or `jit_merge_point!()` (its
/// safepoint refreshes the view after a collection).
fn is_marker(m: &syn::Macro) -> bool {
    m.path.is_ident("jit_merge_point") || m.path.is_ident("can_enter_jit")
}

/// The rewrite's facts: the frame red, its array field, what the calls of
/// the body are.
pub struct ArrayCache<'a> {
    /// The virtualizable red (`frame`).
    pub red: &'a syn::Ident,
    /// Its `Array` field (`regs`) and that field's type as declared.
    pub field: &'a syn::Ident,
    pub field_ty: &'a syn::Type,
    pub helpers: &'a [Helper],
    /// The bodies of traced functions and nested `fn`s (inline helpers).
    pub bodies: Vec<&'a syn::ItemFn>,
    /// The declared GC structs' names (`S::new(..)` allocates).
    pub structs: Vec<String>,
    /// Per body name: whether calling it may make the view stale (`None`
    /// while it is being decided: recursion counts as stale).
    pub memo: RefCell<HashMap<String, Option<bool>>>,
    /// Whether the innermost loop being rewritten keeps the view fresh at
    /// its head.
    pub in_loop: Cell<bool>,
    /// Per loop being rewritten, innermost last: whether the view is
    /// fresh at every `break` met so far.
    pub breaks: RefCell<Vec<bool>>,
}

impl ArrayCache<'_> {
    /// Rewrites the plain function's body (see the module docs).
    pub fn rewrite(&self, block: &mut Block) {
        self.block(block, false);
        let (view, ty) = (format_ident!("{}", VIEW), self.field_ty);
        block.stmts.insert(
            0,
            syn::parse_quote! {
                #[allow(unused_mut, unused_variables, unused_assignments)]
                let mut #view = ::majit::gc::CachedArray::of(<#ty>::null());
            },
        );
    }

    /// The statement that refreshes the view (also the merge point's
    /// safepoint's last, after a collection).
    pub fn refresh(&self) -> Stmt {
        let (view, red, field) = (format_ident!("{}", VIEW), self.red, self.field);
        syn::parse_quote!(#view = ::majit::gc::CachedArray::of(#red.#field());)
    }

    /// Whether what `visit` walks may make the view stale.
    fn stale(&self, visit: impl FnOnce(&mut Inv)) -> bool {
        let mut v = Inv {
            cx: self,
            found: false,
        };
        visit(&mut v);
        v.found
    }

    /// Whether `node` holds an access the view can serve.
    fn accesses(&self, visit: impl FnOnce(&mut Acc)) -> bool {
        let mut a = Acc {
            cx: self,
            found: false,
        };
        visit(&mut a);
        a.found
    }

    fn block(&self, b: &mut Block, mut valid: bool) -> bool {
        let mut out = Vec::with_capacity(b.stmts.len());
        for s in std::mem::take(&mut b.stmts) {
            valid = self.stmt(s, valid, &mut out);
        }
        b.stmts = out;
        valid
    }

    /// Appends `s` (rewritten, maybe after a refresh) to `out`; whether
    /// the view is fresh after it (vacuously after a `continue`, `break`
    /// or `return`).
    fn stmt(&self, s: Stmt, valid: bool, out: &mut Vec<Stmt>) -> bool {
        match s {
            Stmt::Expr(e, semi) if compound(&e) => {
                let (e, v) = self.compound(e, valid, out);
                out.push(Stmt::Expr(e, semi));
                v
            }
            Stmt::Local(mut l) if self.value_compound(&l) => {
                let init = l.init.take().expect("value_compound: an initializer");
                let (e, v) = self.compound(*init.expr, valid, out);
                l.init = Some(syn::LocalInit {
                    expr: Box::new(e),
                    ..init
                });
                out.push(Stmt::Local(l));
                v
            }
            Stmt::Item(_) => {
                out.push(s);
                valid
            }
            mut s => {
                let diverges = matches!(
                    &s,
                    Stmt::Expr(Expr::Continue(_) | Expr::Break(_) | Expr::Return(_), _)
                );
                if self.stale(|v| v.visit_stmt(&s)) {
                    Continues { cx: self }.visit_stmt_mut(&mut s);
                    self.leaves(|b| b.visit_stmt(&s), false);
                    out.push(s);
                    return diverges;
                }
                if self.accesses(|a| a.visit_stmt(&s)) {
                    if !valid {
                        out.push(self.refresh());
                    }
                    Rewrite { cx: self }.visit_stmt_mut(&mut s);
                } else if !valid {
                    Continues { cx: self }.visit_stmt_mut(&mut s);
                    self.leaves(|b| b.visit_stmt(&s), false);
                    out.push(s);
                    return diverges;
                }
                out.push(s);
                true
            }
        }
    }

    /// An `if`, `match`, loop or block statement.
    fn compound(&self, mut e: Expr, mut valid: bool, out: &mut Vec<Stmt>) -> (Expr, bool) {
        let stale = self.stale(|v| v.visit_expr(&e));
        // A loop with accesses gets the view before it starts and keeps it
        // fresh at its head (module docs); a `while` whose condition may
        // make the view stale starts each iteration stale.
        let looping = match &e {
            Expr::While(w) => !self.stale(|v| v.visit_expr(&w.cond)),
            Expr::Loop(_) => true,
            _ => false,
        } && self.accesses(|a| a.visit_expr(&e));
        if looping && !valid {
            out.push(self.refresh());
            valid = true;
        }
        // The expressions evaluated before any branch: a condition, a
        // scrutinee with its guards (a loop's condition runs again each
        // iteration: only served when the loop keeps the view fresh).
        let heads: Vec<&mut Expr> = match &mut e {
            Expr::If(i) => vec![&mut *i.cond],
            Expr::Match(m) => {
                let guards = m.arms.iter_mut().filter_map(|a| a.guard.as_mut());
                std::iter::once(&mut *m.expr)
                    .chain(guards.map(|(_, g)| &mut **g))
                    .collect()
            }
            Expr::While(w) if looping => vec![&mut *w.cond],
            _ => vec![],
        };
        if heads.iter().any(|h| self.stale(|v| v.visit_expr(h))) {
            Continues { cx: self }.visit_expr_mut(&mut e);
            self.leaves(|b| b.visit_expr(&e), false);
            return (e, false);
        }
        if heads.iter().any(|h| self.accesses(|a| a.visit_expr(h))) {
            if !valid {
                out.push(self.refresh());
                valid = true;
            }
            for h in heads {
                Rewrite { cx: self }.visit_expr_mut(h);
            }
        }
        let after = match &mut e {
            Expr::If(i) => {
                let mut ends = vec![self.block(&mut i.then_branch, valid)];
                if let Some((_, x)) = &mut i.else_branch {
                    ends.push(self.branch(x, valid));
                }
                // (No `else`: that way is as fresh as the view before.)
                let other = i.else_branch.is_none().then_some(valid);
                let mut blocks = vec![&mut i.then_branch];
                if let Some((_, x)) = &mut i.else_branch {
                    blocks.push(as_block(x));
                }
                self.join(blocks, ends, other)
            }
            Expr::Match(m) => {
                // Every arm is rewritten (no short circuit).
                let ends = m
                    .arms
                    .iter_mut()
                    .map(|arm| self.branch(&mut arm.body, valid));
                let ends: Vec<bool> = ends.collect();
                let blocks = m.arms.iter_mut().map(|arm| as_block(&mut arm.body));
                self.join(blocks.collect(), ends, None)
            }
            Expr::While(w) => self.body(&mut w.body, looping, valid, stale),
            Expr::Loop(l) => self.body(&mut l.body, looping, valid, stale),
            Expr::Block(b) => self.block(&mut b.block, valid) && !(stale && b.label.is_some()),
            _ => unreachable!("compound() lists these"),
        };
        (e, after)
    }

    /// Whether the view is fresh where the branches `blocks` (which end
    /// fresh as `ends` say) join with the implicit way of an `if` without
    /// `else` (`other`: how fresh it is). In a loop that keeps the view
    /// fresh, where some ways arrive fresh the stale ones refresh at their
    /// end, which the join would do on every way.
    fn join(&self, blocks: Vec<&mut Block>, ends: Vec<bool>, other: Option<bool>) -> bool {
        if other == Some(false) {
            return false; // (nowhere to refresh that way)
        }
        let all = ends.iter().all(|&f| f);
        let some = other == Some(true) || ends.iter().any(|&f| f);
        if all || !some || !self.in_loop.get() {
            return all;
        }
        for (b, fresh) in blocks.into_iter().zip(ends) {
            if !fresh {
                self.end_fresh(b);
            }
        }
        true
    }

    /// Appends a refresh to `b`, keeping its value.
    fn end_fresh(&self, b: &mut Block) {
        let refresh = self.refresh();
        // (Unreachable after a diverging call, as `panic!()`.)
        let refresh: Stmt = syn::parse_quote!(#[allow(unreachable_code)] { #refresh });
        match b.stmts.pop() {
            Some(Stmt::Expr(tail, None)) => {
                b.stmts.push(syn::parse_quote!(let __majit_r = #tail;));
                b.stmts.push(refresh);
                b.stmts.push(Stmt::Expr(syn::parse_quote!(__majit_r), None));
            }
            last => {
                b.stmts.extend(last);
                b.stmts.push(refresh);
            }
        }
    }

    /// A loop's body, which starts with the view fresh when the loop keeps
    /// it fresh at its head (then it also ends fresh), else as `valid`
    /// and nothing `stale` in the loop say; whether the view is fresh
    /// after the loop: where a loop that keeps it fresh leaves, at its
    /// head or at a `break`, else when nothing in the loop is stale.
    fn body(&self, b: &mut Block, looping: bool, valid: bool, stale: bool) -> bool {
        let outer = self.in_loop.replace(looping);
        self.breaks.borrow_mut().push(true);
        let fresh = self.block(b, looping || valid && !stale);
        let breaks = self.breaks.borrow_mut().pop().expect("pushed above");
        self.in_loop.set(outer);
        if looping && !fresh {
            self.end_fresh(b);
        }
        match looping {
            true => breaks,
            false => fresh && !stale,
        }
    }

    /// Notes how fresh the view is at the `break`s of what `visit` walks:
    /// an unlabeled one leaves the innermost loop, a labeled one (any
    /// label, a block's too) counts for every loop.
    fn leaves(&self, visit: impl FnOnce(&mut Breaks), fresh: bool) {
        let mut b = Breaks::default();
        visit(&mut b);
        let mut stack = self.breaks.borrow_mut();
        if b.labeled {
            stack.iter_mut().for_each(|f| *f &= fresh);
        } else if let (true, Some(top)) = (b.plain, stack.last_mut()) {
            *top &= fresh;
        }
    }

    /// Whether `l` is `let PAT = if/match/block;`, which is followed into
    /// as a compound statement (not when it binds the frame).
    fn value_compound(&self, l: &syn::Local) -> bool {
        let Some(init) = &l.init else { return false };
        init.diverge.is_none()
            && matches!(&*init.expr, Expr::If(_) | Expr::Match(_) | Expr::Block(_))
            && compound(&init.expr)
            && !self.stale(|v| v.visit_pat(&l.pat))
    }

    /// An `else` branch or a match arm's body, as a block.
    fn branch(&self, e: &mut Expr, valid: bool) -> bool {
        if !matches!(e, Expr::Block(b) if b.label.is_none()) {
            let inner = std::mem::replace(e, Expr::Verbatim(TokenStream::new()));
            *e = syn::parse_quote!({ #inner });
        }
        self.block(as_block(e), valid)
    }

    /// Whether calling the traced or nested function `name` may make the
    /// view stale (a function of that name that is not listed: it may).
    fn body_inv(&self, name: &str) -> bool {
        if let Some(known) = self.memo.borrow().get(name) {
            return known.unwrap_or(true);
        }
        self.memo.borrow_mut().insert(name.to_string(), None);
        let fns: Vec<&syn::ItemFn> = self
            .bodies
            .iter()
            .copied()
            .filter(|f| f.sig.ident == name)
            .collect();
        let stale = fns.is_empty() || fns.iter().any(|f| self.stale(|v| v.visit_block(&f.block)));
        self.memo.borrow_mut().insert(name.to_string(), Some(stale));
        stale
    }

    fn call_inv(&self, c: &syn::ExprCall) -> bool {
        let Expr::Path(p) = &*c.func else {
            return true;
        };
        let segs = crate::lower::segment_names(&p.path);
        let last = segs.last().map_or("", String::as_str);
        // `Obj::from(..)`, `S::new(..)`, `Array::new(..)`, `f64::from_bits(..)`.
        const PURE_TYPES: [&str; 15] = [
            "Obj", "Array", "f64", "f32", "i64", "u64", "i32", "u32", "i16", "u16", "i8", "u8",
            "usize", "isize", "bool",
        ];
        if segs.len() >= 2
            && (PURE_TYPES.contains(&segs[0].as_str()) || self.structs.contains(&segs[0]))
        {
            return false;
        }
        if segs.len() == 1 && matches!(last, "Ok" | "Err" | "Some") {
            return false;
        }
        match self
            .helpers
            .iter()
            .find(|h| h.method.is_none() && h.name == last)
        {
            Some(h) => match h.policy {
                Policy::Elidable | Policy::LoopInvariant => false,
                Policy::Residual | Policy::DontLookInside => h.may_force(h.policy),
                Policy::Inline => self.body_inv(last),
            },
            None => !matches!(last, "promote" | "we_are_jitted"),
        }
    }

    fn method_inv(&self, m: &syn::ExprMethodCall) -> bool {
        let name = m.method.to_string();
        if name == format!("set_{}", self.field) {
            return true;
        }
        let traced = self
            .helpers
            .iter()
            .any(|h| h.method.as_ref().is_some_and(|t| t.name == name));
        traced && self.body_inv(&name)
    }

    /// `frame.regs()` (after the field syntax rewrite).
    fn is_array(&self, e: &Expr) -> bool {
        let Expr::MethodCall(m) = e else { return false };
        m.method == *self.field
            && m.args.is_empty()
            && matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident(self.red))
    }

    /// `frame.regs()[i]`.
    fn is_item(&self, e: &Expr) -> bool {
        matches!(e, Expr::Index(ix) if self.is_array(&ix.expr))
    }
}

/// The block of a branch [`ArrayCache::branch`] made a block.
fn as_block(e: &mut Expr) -> &mut Block {
    match e {
        Expr::Block(b) => &mut b.block,
        _ => unreachable!("ArrayCache::branch made it a block"),
    }
}

/// The statement kinds `ArrayCache::compound` follows into.
fn compound(e: &Expr) -> bool {
    match e {
        Expr::If(_) | Expr::Match(_) | Expr::While(_) | Expr::Loop(_) => true,
        Expr::Block(b) => b.attrs.is_empty(),
        _ => false,
    }
}

/// Whether `op` is a compound assignment (`+=`).
fn assigns(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Finds what may make the view stale.
struct Inv<'c, 'a> {
    cx: &'c ArrayCache<'a>,
    found: bool,
}

impl<'ast> Visit<'ast> for Inv<'_, '_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.found {
            return;
        }
        let cx = self.cx;
        let stale = match e {
            Expr::Macro(m) => !is_marker(&m.mac),
            Expr::Closure(_) => true,
            Expr::Call(c) => cx.call_inv(c),
            Expr::MethodCall(m) => cx.method_inv(m),
            Expr::Assign(a) => matches!(&*a.left, Expr::Path(p) if p.path.is_ident(cx.red)),
            Expr::Binary(b) => {
                assigns(&b.op) && matches!(&*b.left, Expr::Path(p) if p.path.is_ident(cx.red))
            }
            _ => false,
        };
        if stale {
            self.found = true;
            return;
        }
        syn::visit::visit_expr(self, e);
    }
    fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
        self.found |= !is_marker(&m.mac);
    }
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.found |= p.ident == *self.cx.red;
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Finds an access the view can serve.
struct Acc<'c, 'a> {
    cx: &'c ArrayCache<'a>,
    found: bool,
}

impl<'ast> Visit<'ast> for Acc<'_, '_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Macro(_) | Expr::Closure(_) => {}
            Expr::Index(ix) if self.cx.is_array(&ix.expr) => self.found = true,
            Expr::MethodCall(m)
                if m.method == "len" && m.args.is_empty() && self.cx.is_array(&m.receiver) =>
            {
                self.found = true
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Serves the accesses of a statement from the view.
struct Rewrite<'c, 'a> {
    cx: &'c ArrayCache<'a>,
}

impl VisitMut for Rewrite<'_, '_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let view = format_ident!("{}", VIEW);
        match e {
            Expr::Macro(_) | Expr::Closure(_) => {}
            Expr::Assign(a) if self.cx.is_item(&a.left) => {
                let Expr::Index(ix) = &mut *a.left else {
                    unreachable!("is_item")
                };
                self.visit_expr_mut(&mut ix.index);
                self.visit_expr_mut(&mut a.right);
                let (i, v) = (&ix.index, &a.right);
                // The value first, as the assignment evaluates it.
                *e = syn::parse_quote!({
                    let __majit_v = #v;
                    #view.set(#i, __majit_v)
                });
            }
            // A compound assignment or a `&mut` borrow of an item keeps
            // the handle's `IndexMut`.
            Expr::Binary(b) if assigns(&b.op) && self.cx.is_item(&b.left) => {
                if let Expr::Index(ix) = &mut *b.left {
                    self.visit_expr_mut(&mut ix.index);
                }
                self.visit_expr_mut(&mut b.right);
            }
            Expr::Reference(r) if r.mutability.is_some() && self.cx.is_item(&r.expr) => {
                if let Expr::Index(ix) = &mut *r.expr {
                    self.visit_expr_mut(&mut ix.index);
                }
            }
            Expr::Index(ix) if self.cx.is_array(&ix.expr) => {
                self.visit_expr_mut(&mut ix.index);
                let i = &ix.index;
                *e = syn::parse_quote!(#view.get(#i));
            }
            Expr::MethodCall(m)
                if m.method == "len" && m.args.is_empty() && self.cx.is_array(&m.receiver) =>
            {
                *e = syn::parse_quote!(#view.len());
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Refreshes the view before every `continue` of a statement reached
/// stale or making the view stale, so loop heads stay fresh.
struct Continues<'c, 'a> {
    cx: &'c ArrayCache<'a>,
}

impl VisitMut for Continues<'_, '_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => {}
            Expr::Continue(_) => {
                let refresh = self.cx.refresh();
                *e = syn::parse_quote!({ #refresh #e });
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Finds the `break`s of a statement.
#[derive(Default)]
struct Breaks {
    /// Loops entered inside (an unlabeled `break` there leaves them).
    depth: usize,
    /// An unlabeled `break` of the loop around the statement.
    plain: bool,
    /// A `break` with a label.
    labeled: bool,
}

impl<'ast> Visit<'ast> for Breaks {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Closure(_) => return,
            Expr::Break(b) if b.label.is_some() => self.labeled = true,
            Expr::Break(_) => self.plain |= self.depth == 0,
            _ => {}
        }
        let nested = matches!(e, Expr::While(_) | Expr::Loop(_) | Expr::ForLoop(_));
        self.depth += usize::from(nested);
        syn::visit::visit_expr(self, e);
        self.depth -= usize::from(nested);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
