//! The compiler: an AST (`ast.rs`) to the bytecode (`bytecode.rs`), one
//! prototype per function, appended to the code store.
//!
//! Registers are assigned as PUC Lua does: a function's locals occupy the
//! registers from 0 in declaration order, temporaries go above them, and
//! a call lays its function and arguments out from the first free
//! register. A pre-pass (`captures`) finds the locals an inner function
//! refers to; those live in cells from their declaration on. Jump targets
//! are emitted relative to the function's first word and made absolute
//! when the function is appended (its entry is known only then).

use crate::ast::*;
use crate::bytecode::{encode, encode_bx, imm, imm_float, op};
use crate::proto::{self, Proto, UpvalDesc};
use std::collections::{HashMap, HashSet};

/// A compile error (Lua's compile-time checks beyond syntax).
#[derive(Clone, Debug, PartialEq)]
pub struct CompileError {
    pub chunk: String,
    pub line: u32,
    pub message: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.chunk, self.line, self.message)
    }
}

/// A compiled chunk: its main prototype and the string constants its
/// functions share, from `K[FIRST_CONSTANT]` on (see there for the first).
pub struct Compiled {
    pub main: i64,
    pub constants: Vec<Vec<u8>>,
}

/// The constants every chunk starts with, which `run::load_chunk` sets:
/// `K[0]` the strings' `__index` table (`STRINGS_K`), `K[1]` and `K[2]`
/// the booleans `false` and `true` (`FALSE_K`, `TRUE_K`: one object each,
/// so `LOADBOOL` and `NOT` allocate nothing).
pub const FIRST_CONSTANT: usize = 3;
/// See [`FIRST_CONSTANT`].
pub const STRINGS_K: usize = 0;
/// See [`FIRST_CONSTANT`].
pub const FALSE_K: usize = 1;
/// See [`FIRST_CONSTANT`].
pub const TRUE_K: usize = 2;

/// Compiles `chunk` (display name `name`) into the code store.
pub fn compile(chunk: &Chunk, name: &str) -> Result<Compiled, CompileError> {
    let main = FuncBody {
        params: Vec::new(),
        is_vararg: true,
        body: chunk.body.clone(),
        line: 0,
        end_line: 0,
    };
    let mut captured = HashSet::new();
    captures(&main, &mut Scopes::default(), &mut captured);
    let mut c = Compiler {
        chunk: name.to_string(),
        captured,
        constants: vec![Vec::new(); FIRST_CONSTANT],
        constant_index: HashMap::new(),
        funcs: Vec::new(),
    };
    let id = c.function(&main)?;
    Ok(Compiled {
        main: id,
        constants: c.constants,
    })
}

/// A declaration's identity: the address of the AST node declaring it and
/// the name's position there.
type DeclKey = (usize, usize);

fn key<T>(node: &T, i: usize) -> DeclKey {
    (node as *const T as usize, i)
}

/// The pre-pass's scopes: names with their declaration and the function
/// depth that declared them.
#[derive(Default)]
struct Scopes {
    names: Vec<(String, DeclKey, usize)>,
    depth: usize,
}

impl Scopes {
    fn refer(&self, name: &str, captured: &mut HashSet<DeclKey>) {
        if let Some((_, k, d)) = self.names.iter().rev().find(|(n, ..)| n == name) {
            if *d < self.depth {
                captured.insert(*k);
            }
        }
    }
}

/// Marks in `captured` the locals of `f` (and of the functions in it)
/// that an inner function refers to.
fn captures(f: &FuncBody, s: &mut Scopes, captured: &mut HashSet<DeclKey>) {
    let mark = s.names.len();
    s.depth += 1;
    for (i, p) in f.params.iter().enumerate() {
        s.names.push((p.clone(), key(f, i), s.depth));
    }
    block_captures(&f.body, s, captured);
    s.depth -= 1;
    s.names.truncate(mark);
}

fn block_captures(b: &Block, s: &mut Scopes, captured: &mut HashSet<DeclKey>) {
    let mark = s.names.len();
    for st in &b.stats {
        stat_captures(st, s, captured);
    }
    s.names.truncate(mark);
}

fn stat_captures(st: &Stat, s: &mut Scopes, cap: &mut HashSet<DeclKey>) {
    let exprs = |es: &[Expr], s: &mut Scopes, cap: &mut HashSet<DeclKey>| {
        for e in es {
            expr_captures(e, s, cap);
        }
    };
    match &st.kind {
        StatKind::Local { names, values } => {
            exprs(values, s, cap);
            for (i, n) in names.iter().enumerate() {
                s.names.push((n.name.clone(), key(st, i), s.depth));
            }
        }
        StatKind::Assign { targets, values } => {
            exprs(targets, s, cap);
            exprs(values, s, cap);
        }
        StatKind::Call(e) => expr_captures(e, s, cap),
        StatKind::Do(b) => block_captures(b, s, cap),
        StatKind::While { cond, body } => {
            expr_captures(cond, s, cap);
            block_captures(body, s, cap);
        }
        StatKind::Repeat { body, cond } => {
            // The condition sees the body's locals.
            let mark = s.names.len();
            for st in &body.stats {
                stat_captures(st, s, cap);
            }
            expr_captures(cond, s, cap);
            s.names.truncate(mark);
        }
        StatKind::If { arms, otherwise } => {
            for (c, b) in arms {
                expr_captures(c, s, cap);
                block_captures(b, s, cap);
            }
            if let Some(b) = otherwise {
                block_captures(b, s, cap);
            }
        }
        StatKind::NumFor {
            var,
            start,
            limit,
            step,
            body,
        } => {
            expr_captures(start, s, cap);
            expr_captures(limit, s, cap);
            if let Some(e) = step {
                expr_captures(e, s, cap);
            }
            let mark = s.names.len();
            s.names.push((var.clone(), key(st, 0), s.depth));
            block_captures(body, s, cap);
            s.names.truncate(mark);
        }
        StatKind::GenFor {
            names,
            exprs: es,
            body,
        } => {
            exprs(es, s, cap);
            let mark = s.names.len();
            for (i, n) in names.iter().enumerate() {
                s.names.push((n.clone(), key(st, i), s.depth));
            }
            block_captures(body, s, cap);
            s.names.truncate(mark);
        }
        StatKind::Function { path, body, .. } => {
            s.refer(&path[0], cap);
            captures(body, s, cap);
        }
        StatKind::LocalFunction { name, body } => {
            s.names.push((name.clone(), key(st, 0), s.depth));
            captures(body, s, cap);
        }
        StatKind::Return(es) => exprs(es, s, cap),
        StatKind::Break => {}
    }
}

fn expr_captures(e: &Expr, s: &mut Scopes, cap: &mut HashSet<DeclKey>) {
    match &e.kind {
        ExprKind::Name(n) => s.refer(n, cap),
        ExprKind::Function(f) => captures(f, s, cap),
        ExprKind::Table(fields) => {
            for f in fields {
                match f {
                    Field::Pos(v) => expr_captures(v, s, cap),
                    Field::Keyed { key, value } => {
                        expr_captures(key, s, cap);
                        expr_captures(value, s, cap);
                    }
                }
            }
        }
        ExprKind::Bin { lhs, rhs, .. } => {
            expr_captures(lhs, s, cap);
            expr_captures(rhs, s, cap);
        }
        ExprKind::Un { operand, .. } | ExprKind::Paren(operand) => expr_captures(operand, s, cap),
        ExprKind::Index { obj, key } => {
            expr_captures(obj, s, cap);
            expr_captures(key, s, cap);
        }
        ExprKind::Call { func, args } => {
            expr_captures(func, s, cap);
            for a in args {
                expr_captures(a, s, cap);
            }
        }
        ExprKind::Method { obj, args, .. } => {
            expr_captures(obj, s, cap);
            for a in args {
                expr_captures(a, s, cap);
            }
        }
        _ => {}
    }
}

/// An active local variable.
struct Local {
    name: String,
    reg: usize,
    cell: bool,
    constant: bool,
}

/// Where a jump's target goes: the instruction word's `bx` field, or the
/// word after the instruction.
#[derive(Clone, Copy)]
enum Slot {
    Bx(usize),
    Word(usize),
}

/// The state of one function being compiled.
struct Func {
    words: Vec<i64>,
    lines: Vec<u32>,
    /// Words holding a jump target relative to the function's start.
    relocs: Vec<Slot>,
    locals: Vec<Local>,
    free: usize,
    maxstack: usize,
    upvals: Vec<(String, UpvalDesc)>,
    /// Per enclosing loop: the breaks to patch to its end.
    breaks: Vec<Vec<Slot>>,
    nparams: usize,
    is_vararg: bool,
    line: u32,
    /// Operand names of instructions that can fail (see `Proto::names`).
    names: HashMap<u32, [Option<String>; 2]>,
    /// The field instructions and the names of their keys
    /// (`shape::add_sites`).
    sites: Vec<(usize, i64)>,
}

/// Where a name refers to.
enum Var {
    Local {
        reg: usize,
        cell: bool,
        constant: bool,
    },
    Upval(usize),
    Global,
}

struct Compiler {
    chunk: String,
    captured: HashSet<DeclKey>,
    constants: Vec<Vec<u8>>,
    constant_index: HashMap<Vec<u8>, usize>,
    /// The functions being compiled, innermost last.
    funcs: Vec<Func>,
}

type Res<T> = Result<T, CompileError>;

impl Compiler {
    fn f(&mut self) -> &mut Func {
        self.funcs.last_mut().expect("a function is being compiled")
    }

    fn error<T>(&self, line: u32, message: String) -> Res<T> {
        Err(CompileError {
            chunk: self.chunk.clone(),
            line,
            message,
        })
    }

    // ---- emission ----

    fn emit(&mut self, w: i64) -> usize {
        let f = self.f();
        f.words.push(w);
        let line = f.line;
        f.lines.push(line);
        f.words.len() - 1
    }

    fn op(&mut self, op: i64, a: usize, b: usize, c: usize) -> usize {
        let at = self.emit(encode(op, a as u32, b as u32, c as u32));
        // A field instruction's key is a string constant: its name is what
        // the instruction looks up in a shaped table.
        let key = match op {
            op::GETFIELD | op::GETTABUP | op::SELF => Some(c),
            op::SETFIELD | op::SETTABUP => Some(b),
            _ => None,
        };
        if let Some(k) = key {
            let text = &self.constants[k];
            let name = crate::shape::intern(crate::strings::hash(text), text);
            self.f().sites.push((at, name));
        }
        at
    }

    /// An instruction with a jump target in its `bx` field (to patch).
    fn jump_bx(&mut self, op: i64, a: usize) -> Slot {
        let at = self.emit(encode_bx(op, a as u32, 0));
        self.f().relocs.push(Slot::Bx(at));
        Slot::Bx(at)
    }

    /// An instruction followed by a jump-target word (to patch).
    fn jump_word(&mut self, op: i64, a: usize, b: usize, c: usize) -> Slot {
        self.op(op, a, b, c);
        let at = self.emit(0);
        self.f().relocs.push(Slot::Word(at));
        Slot::Word(at)
    }

    fn here(&mut self) -> usize {
        self.f().words.len()
    }

    fn patch(&mut self, s: Slot, target: usize) {
        let f = self.f();
        match s {
            Slot::Bx(at) => {
                let w = f.words[at];
                f.words[at] = (w & 0xff_ffff) | (target as i64) << 24;
            }
            Slot::Word(at) => f.words[at] = target as i64,
        }
    }

    fn patch_here(&mut self, slots: Vec<Slot>) {
        let here = self.here();
        for s in slots {
            self.patch(s, here);
        }
    }

    fn jump_to(&mut self, target: usize) {
        let s = self.jump_bx(op::JMP, 0);
        self.patch(s, target);
    }

    /// Records what the operands of the instruction at word `at` are.
    fn name_operands(&mut self, at: usize, names: [Option<String>; 2]) {
        if names.iter().any(Option::is_some) {
            self.f().names.insert(at as u32, names);
        }
    }

    /// How PUC Lua's messages name the value of `e`, if they do.
    fn describe(&mut self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Name(n) => Some(match self.resolve(n) {
                Var::Local { .. } => format!("local '{n}'"),
                Var::Upval(_) => format!("upvalue '{n}'"),
                Var::Global => format!("global '{n}'"),
            }),
            ExprKind::Index { key, .. } => match &key.kind {
                ExprKind::Str(k) => Some(format!("field '{}'", String::from_utf8_lossy(k))),
                // What lua5.4 (5.4.4) says of a value read at a constant
                // integer index.
                ExprKind::Int(_) => Some("field 'integer index'".into()),
                _ => None,
            },
            ExprKind::Paren(inner) => self.describe(inner),
            ExprKind::Method { name, .. } => Some(format!("method '{name}'")),
            ExprKind::Str(k) => Some(format!("constant '{}'", String::from_utf8_lossy(k))),
            _ => None,
        }
    }

    fn konst(&mut self, s: &[u8]) -> usize {
        if let Some(&k) = self.constant_index.get(s) {
            return k;
        }
        self.constants.push(s.to_vec());
        let k = self.constants.len() - 1;
        self.constant_index.insert(s.to_vec(), k);
        k
    }

    fn load_k(&mut self, dst: usize, k: usize) {
        self.emit(encode_bx(op::LOADK, dst as u32, k as u64));
    }

    // ---- registers ----

    fn reserve(&mut self, n: usize) -> usize {
        let f = self.f();
        let r = f.free;
        f.free += n;
        f.maxstack = f.maxstack.max(f.free);
        r
    }

    fn set_free(&mut self, r: usize) {
        self.f().free = r;
    }

    fn free(&mut self) -> usize {
        self.f().free
    }

    // ---- functions ----

    /// Compiles `body` as a new prototype (a method's `self` is among its
    /// parameters already).
    fn function(&mut self, body: &FuncBody) -> Res<i64> {
        self.funcs.push(Func {
            words: Vec::new(),
            lines: Vec::new(),
            relocs: Vec::new(),
            locals: Vec::new(),
            free: 0,
            maxstack: 0,
            upvals: Vec::new(),
            breaks: Vec::new(),
            nparams: 0,
            is_vararg: body.is_vararg,
            line: body.line,
            names: HashMap::new(),
            sites: Vec::new(),
        });
        if self.funcs.len() == 1 {
            // The main chunk's only upvalue: the globals table's cell.
            let env = UpvalDesc {
                in_stack: false,
                index: 0,
            };
            self.f().upvals.push(("_ENV".into(), env));
        }
        for (i, p) in body.params.iter().enumerate() {
            let cell = self.captured.contains(&key(body, i));
            let r = self.reserve(1);
            self.f().locals.push(Local {
                name: p.clone(),
                reg: r,
                cell,
                constant: false,
            });
        }
        let nparams = self.free();
        self.f().nparams = nparams;
        for i in 0..nparams {
            if self.f().locals[i].cell {
                self.op(op::NEWCELL, i, i, 0);
            }
        }
        self.block(&body.body)?;
        self.f().line = body.end_line;
        self.op(op::RETURN, 0, 1, 0);
        let f = self.funcs.pop().expect("pushed above");
        Ok(self.finish(f, body.line))
    }

    /// Appends `f`'s code (jump targets made absolute) and registers it.
    fn finish(&mut self, mut f: Func, defined: u32) -> i64 {
        let entry = crate::code::next_pc();
        for s in &f.relocs {
            match *s {
                Slot::Bx(at) => {
                    let w = f.words[at];
                    let target = crate::bytecode::bx(w) + entry;
                    f.words[at] = (w & 0xff_ffff) | (target as i64) << 24;
                }
                Slot::Word(at) => f.words[at] += entry as i64,
            }
        }
        let at = crate::code::append(&f.words);
        debug_assert_eq!(at, entry);
        crate::shape::add_sites(entry, f.words.len(), &f.sites);
        proto::add(Proto {
            entry,
            nparams: f.nparams as u32,
            is_vararg: f.is_vararg,
            maxstack: f.maxstack.max(1) as u32,
            upvals: f.upvals.into_iter().map(|u| u.1).collect(),
            defined,
            lines: f.lines,
            chunk: self.chunk.clone(),
            names: f.names,
        }) as i64
    }

    // ---- names ----

    fn resolve(&mut self, name: &str) -> Var {
        self.resolve_in(self.funcs.len() - 1, name)
    }

    fn resolve_in(&mut self, depth: usize, name: &str) -> Var {
        let f = &self.funcs[depth];
        if let Some(l) = f.locals.iter().rev().find(|l| l.name == name) {
            return Var::Local {
                reg: l.reg,
                cell: l.cell,
                constant: l.constant,
            };
        }
        if let Some(i) = f.upvals.iter().position(|u| u.0 == name) {
            return Var::Upval(i);
        }
        if depth == 0 {
            return Var::Global;
        }
        let desc = match self.resolve_in(depth - 1, name) {
            Var::Local { reg, .. } => UpvalDesc {
                in_stack: true,
                index: reg as u32,
            },
            Var::Upval(i) => UpvalDesc {
                in_stack: false,
                index: i as u32,
            },
            Var::Global => return Var::Global,
        };
        let f = &mut self.funcs[depth];
        f.upvals.push((name.to_string(), desc));
        Var::Upval(f.upvals.len() - 1)
    }

    /// Declares the local `name` in register `reg` (its value is there).
    fn declare(&mut self, name: &str, reg: usize, decl: DeclKey, constant: bool) {
        let cell = self.captured.contains(&decl);
        if cell {
            self.op(op::NEWCELL, reg, reg, 0);
        }
        self.f().locals.push(Local {
            name: name.to_string(),
            reg,
            cell,
            constant,
        });
    }

    // ---- blocks and statements ----

    fn block(&mut self, b: &Block) -> Res<()> {
        let (locals, free) = (self.f().locals.len(), self.free());
        for st in &b.stats {
            self.stat(st)?;
        }
        self.f().locals.truncate(locals);
        self.set_free(free);
        Ok(())
    }

    fn stat(&mut self, st: &Stat) -> Res<()> {
        self.f().line = st.line;
        let free = self.free();
        match &st.kind {
            StatKind::Local { names, values } => {
                let base = self.free();
                self.explist(values, base, names.len())?;
                self.set_free(base + names.len());
                for (i, n) in names.iter().enumerate() {
                    self.declare(&n.name, base + i, key(st, i), n.attrib == Attrib::Const);
                }
                return Ok(());
            }
            StatKind::Assign { targets, values } => self.assign(st.line, targets, values)?,
            StatKind::Call(e) => {
                let base = self.free();
                self.call(e, base, Some(0))?;
            }
            StatKind::Do(b) => self.block(b)?,
            StatKind::While { cond, body } => {
                let top = self.here();
                let exits = self.cond(cond, false)?;
                self.f().breaks.push(exits);
                self.block(body)?;
                self.jump_to(top);
                let exits = self.f().breaks.pop().expect("pushed above");
                self.patch_here(exits);
            }
            StatKind::Repeat { body, cond } => {
                let top = self.here();
                self.f().breaks.push(Vec::new());
                let (locals, free) = (self.f().locals.len(), self.free());
                for s in &body.stats {
                    self.stat(s)?;
                }
                let done = self.cond(cond, true)?;
                self.f().locals.truncate(locals);
                self.set_free(free);
                self.jump_to(top);
                self.patch_here(done);
                let exits = self.f().breaks.pop().expect("pushed above");
                self.patch_here(exits);
            }
            StatKind::If { arms, otherwise } => {
                let mut ends = Vec::new();
                for (cond, body) in arms {
                    let next = self.cond(cond, false)?;
                    self.block(body)?;
                    ends.push(self.jump_bx(op::JMP, 0));
                    self.patch_here(next);
                }
                if let Some(b) = otherwise {
                    self.block(b)?;
                }
                self.patch_here(ends);
            }
            StatKind::NumFor {
                var,
                start,
                limit,
                step,
                body,
            } => {
                let base = self.reserve(3);
                self.expr_to(start, base)?;
                self.expr_to(limit, base + 1)?;
                match step {
                    Some(e) => self.expr_to(e, base + 2)?,
                    None => {
                        self.op(op::LOADI, base + 2, 0, 0);
                        self.emit(1);
                    }
                }
                let prep = self.jump_bx(op::FORPREP, base);
                let body_at = self.here();
                let v = self.reserve(1);
                self.f().breaks.push(Vec::new());
                self.declare(var, v, key(st, 0), false);
                self.block(body)?;
                self.f().locals.pop();
                let back = self.jump_bx(op::FORLOOP, base);
                self.patch(back, body_at);
                self.patch_here(vec![prep]);
                let exits = self.f().breaks.pop().expect("pushed above");
                self.patch_here(exits);
            }
            StatKind::GenFor { names, exprs, body } => {
                let base = self.free();
                self.explist(exprs, base, 3)?;
                self.set_free(base + 3);
                self.reserve(1);
                let vars = self.reserve(names.len().max(3));
                let to_call = self.jump_bx(op::JMP, 0);
                let body_at = self.here();
                self.f().breaks.push(Vec::new());
                let locals = self.f().locals.len();
                for (i, n) in names.iter().enumerate() {
                    self.declare(n, vars + i, key(st, i), false);
                }
                self.block(body)?;
                self.f().locals.truncate(locals);
                self.patch_here(vec![to_call]);
                let at = self.op(op::TFORCALL, base, 0, names.len());
                self.name_operands(at, [Some("for iterator 'for iterator'".into()), None]);
                let back = self.jump_bx(op::TFORLOOP, base);
                self.patch(back, body_at);
                let exits = self.f().breaks.pop().expect("pushed above");
                self.patch_here(exits);
            }
            StatKind::Function { path, method, body } => {
                let r = self.reserve(1);
                let proto = self.function(body)?;
                self.emit(encode_bx(op::CLOSURE, r as u32, proto as u64));
                self.store_path(st.line, path, method.as_deref(), r)?;
            }
            StatKind::LocalFunction { name, body } => {
                let r = self.reserve(1);
                if self.captured.contains(&key(st, 0)) {
                    self.op(op::LOADNIL, r, 0, 0);
                    self.declare(name, r, key(st, 0), false);
                    let t = self.reserve(1);
                    let proto = self.function(body)?;
                    self.emit(encode_bx(op::CLOSURE, t as u32, proto as u64));
                    self.op(op::SETCELL, r, t, 0);
                } else {
                    self.declare(name, r, key(st, 0), false);
                    let proto = self.function(body)?;
                    self.emit(encode_bx(op::CLOSURE, r as u32, proto as u64));
                }
                self.set_free(r + 1);
                return Ok(());
            }
            StatKind::Return(values) => {
                let base = self.free();
                let n = self.explist(values, base, usize::MAX)?;
                if let [e] = values.as_slice() {
                    if matches!(e.kind, ExprKind::Call { .. } | ExprKind::Method { .. }) {
                        // `return f(x)`: the CALL just emitted is a proper
                        // tail call (same operands).
                        let f = self.f();
                        let at = f.words.len() - 1;
                        f.words[at] = f.words[at] & !0xff | op::TAILCALL;
                    }
                }
                self.op(op::RETURN, base, n.map_or(0, |n| n + 1), 0);
            }
            StatKind::Break => {
                let s = self.jump_bx(op::JMP, 0);
                match self.f().breaks.last_mut() {
                    Some(b) => b.push(s),
                    None => return self.error(st.line, "break outside a loop at line".into()),
                }
            }
        }
        self.set_free(free);
        Ok(())
    }

    /// Stores register `r` (a function) at `a.b.c` or `a.b:m`.
    fn store_path(
        &mut self,
        line: u32,
        path: &[String],
        method: Option<&str>,
        r: usize,
    ) -> Res<()> {
        let mut keys: Vec<&str> = path[1..].iter().map(String::as_str).collect();
        keys.extend(method);
        if keys.is_empty() {
            return self.store_name(line, &path[0], r);
        }
        let t = self.reserve(1);
        self.load_name(&path[0], t);
        for k in &keys[..keys.len() - 1] {
            let k = self.konst(k.as_bytes());
            self.op(op::GETFIELD, t, t, k);
        }
        let k = self.konst(keys[keys.len() - 1].as_bytes());
        self.op(op::SETFIELD, t, k, r);
        Ok(())
    }

    fn assign(&mut self, line: u32, targets: &[Expr], values: &[Expr]) -> Res<()> {
        // The targets' tables and keys first, then the values, then the
        // stores (Lua evaluates every expression before assigning).
        enum Place {
            Name(String),
            Field(usize, usize, Option<String>),
            Item(usize, usize, Option<String>),
        }
        let mut places = Vec::new();
        for t in targets {
            places.push(match &t.kind {
                ExprKind::Name(n) => Place::Name(n.clone()),
                ExprKind::Index { obj, key } => {
                    let o = self.expr_any(obj)?;
                    let name = self.describe(obj);
                    match &key.kind {
                        ExprKind::Str(s) => Place::Field(o, self.konst(s), name),
                        _ => Place::Item(o, self.expr_any(key)?, name),
                    }
                }
                _ => return self.error(line, "syntax error near '='".into()),
            });
        }
        let base = self.free();
        self.explist(values, base, targets.len())?;
        self.set_free(base + targets.len());
        for (i, p) in places.iter().enumerate().rev() {
            match p {
                Place::Name(n) => self.store_name(line, n, base + i)?,
                Place::Field(o, k, name) => {
                    let at = self.op(op::SETFIELD, *o, *k, base + i);
                    self.name_operands(at, [name.clone(), None]);
                }
                Place::Item(o, k, name) => {
                    let at = self.op(op::SETTABLE, *o, *k, base + i);
                    self.name_operands(at, [name.clone(), None]);
                }
            }
        }
        Ok(())
    }

    fn store_name(&mut self, line: u32, name: &str, r: usize) -> Res<()> {
        match self.resolve(name) {
            Var::Local { constant: true, .. } => {
                let message = format!("attempt to assign to const variable '{name}'");
                return self.error(line, message);
            }
            Var::Local {
                reg, cell: false, ..
            } => {
                if reg != r {
                    self.op(op::MOVE, reg, r, 0);
                }
            }
            Var::Local {
                reg, cell: true, ..
            } => {
                self.op(op::SETCELL, reg, r, 0);
            }
            Var::Upval(u) => {
                self.op(op::SETUPVAL, r, u, 0);
            }
            Var::Global => {
                let k = self.konst(name.as_bytes());
                match self.resolve("_ENV") {
                    Var::Upval(env) => {
                        self.op(op::SETTABUP, env, k, r);
                    }
                    _ => {
                        let t = self.reserve(1);
                        self.load_name("_ENV", t);
                        self.op(op::SETFIELD, t, k, r);
                    }
                }
            }
        }
        Ok(())
    }

    fn load_name(&mut self, name: &str, dst: usize) {
        match self.resolve(name) {
            Var::Local {
                reg, cell: false, ..
            } => {
                if reg != dst {
                    self.op(op::MOVE, dst, reg, 0);
                }
            }
            Var::Local {
                reg, cell: true, ..
            } => {
                self.op(op::GETCELL, dst, reg, 0);
            }
            Var::Upval(u) => {
                self.op(op::GETUPVAL, dst, u, 0);
            }
            Var::Global => {
                let k = self.konst(name.as_bytes());
                match self.resolve("_ENV") {
                    Var::Upval(env) => {
                        self.op(op::GETTABUP, dst, env, k);
                    }
                    _ => {
                        self.load_name("_ENV", dst);
                        self.op(op::GETFIELD, dst, dst, k);
                    }
                }
            }
        }
    }

    // ---- expressions ----

    /// Evaluates `values` into registers from `base`, adjusted to `want`
    /// values (`usize::MAX`: all; a last call or `...` then stays open and
    /// the result is `None`, else `Some(count)`).
    fn explist(&mut self, values: &[Expr], base: usize, want: usize) -> Res<Option<usize>> {
        for (i, e) in values.iter().enumerate() {
            let last = i + 1 == values.len();
            let r = base + i;
            self.set_free(r);
            if last && is_multi(e) {
                let need = if want == usize::MAX {
                    None
                } else {
                    Some(want.saturating_sub(i))
                };
                self.reserve(need.unwrap_or(1).max(1));
                self.multi(e, r, need)?;
                return Ok(need.map(|n| i + n));
            }
            self.reserve(1);
            self.expr_to(e, r)?;
        }
        let n = values.len();
        if want != usize::MAX && n < want {
            self.set_free(base + n);
            self.reserve(want - n);
            self.op(op::LOADNIL, base + n, want - n - 1, 0);
        }
        Ok(Some(if want == usize::MAX { n } else { want }))
    }

    /// A call or `...` giving `want` values (`None`: all, open) at `dst`.
    fn multi(&mut self, e: &Expr, dst: usize, want: Option<usize>) -> Res<()> {
        match &e.kind {
            ExprKind::Vararg => {
                self.op(op::VARARG, dst, 0, want.map_or(0, |n| n + 1));
                Ok(())
            }
            _ => self.call(e, dst, want),
        }
    }

    /// Compiles the call `e` with its function at register `base` (the
    /// first free one), keeping `want` results there (`None`: all).
    fn call(&mut self, e: &Expr, base: usize, want: Option<usize>) -> Res<()> {
        self.set_free(base);
        self.reserve(1);
        let args = match &e.kind {
            ExprKind::Call { func, args } => {
                self.expr_to(func, base)?;
                args
            }
            ExprKind::Method { obj, name, args } => {
                let o = self.expr_any(obj)?;
                self.reserve(1);
                let k = self.konst(name.as_bytes());
                let at = self.op(op::SELF, base, o, k);
                let described = self.describe(obj);
                self.name_operands(at, [described, None]);
                self.set_free(base + 2);
                args
            }
            _ => return self.error(e.line, "not a call".into()),
        };
        let first = self.free();
        let n = self.explist(args, first, usize::MAX)?;
        self.f().line = e.line;
        let nargs = n.map_or(0, |n| first - base + n);
        let at = self.op(op::CALL, base, nargs, want.map_or(0, |n| n + 1));
        let name = match &e.kind {
            ExprKind::Call { func, .. } => self.describe(func),
            _ => self.describe(e),
        };
        self.name_operands(at, [name, None]);
        self.set_free(base + want.unwrap_or(1).max(1));
        Ok(())
    }

    /// A register holding `e`'s value: a plain local's own, or a new one.
    fn expr_any(&mut self, e: &Expr) -> Res<usize> {
        if let ExprKind::Name(n) = &e.kind {
            if let Var::Local {
                reg, cell: false, ..
            } = self.resolve(n)
            {
                return Ok(reg);
            }
        }
        let r = self.reserve(1);
        self.expr_to(e, r)?;
        Ok(r)
    }

    /// An operand of an arithmetic or comparison instruction: a small
    /// integer or integral float literal is an immediate
    /// (`bytecode::IMM`), anything else a register.
    fn operand(&mut self, e: &Expr) -> Res<usize> {
        let immediate = match e.kind {
            ExprKind::Int(i) => imm(i),
            ExprKind::Float(f) => imm_float(f),
            _ => None,
        };
        match immediate {
            Some(o) => Ok(o),
            None => self.expr_any(e),
        }
    }

    /// Evaluates `e` (one value) into register `dst`.
    fn expr_to(&mut self, e: &Expr, dst: usize) -> Res<()> {
        let free = self.free().max(dst + 1);
        self.set_free(free);
        self.f().line = e.line;
        match &e.kind {
            ExprKind::Nil => {
                self.op(op::LOADNIL, dst, 0, 0);
            }
            ExprKind::True | ExprKind::False => {
                self.op(
                    op::LOADBOOL,
                    dst,
                    usize::from(matches!(e.kind, ExprKind::True)),
                    0,
                );
            }
            ExprKind::Int(i) => {
                self.op(op::LOADI, dst, 0, 0);
                self.emit(*i);
            }
            ExprKind::Float(x) => {
                self.op(op::LOADF, dst, 0, 0);
                self.emit(x.to_bits() as i64);
            }
            ExprKind::Str(s) => {
                let k = self.konst(s);
                self.load_k(dst, k);
            }
            ExprKind::Vararg | ExprKind::Call { .. } | ExprKind::Method { .. } => {
                let base = self.free();
                self.multi(e, base, Some(1))?;
                self.op(op::MOVE, dst, base, 0);
            }
            ExprKind::Function(body) => {
                let proto = self.function(body)?;
                self.emit(encode_bx(op::CLOSURE, dst as u32, proto as u64));
            }
            ExprKind::Table(fields) => self.table(fields, dst)?,
            ExprKind::Name(n) => self.load_name(n, dst),
            ExprKind::Index { obj, key } => {
                let o = self.expr_any(obj)?;
                let at = match &key.kind {
                    ExprKind::Str(s) => {
                        let k = self.konst(s);
                        self.f().line = e.line;
                        self.op(op::GETFIELD, dst, o, k)
                    }
                    _ => {
                        let k = self.expr_any(key)?;
                        self.f().line = e.line;
                        self.op(op::GETTABLE, dst, o, k)
                    }
                };
                let name = self.describe(obj);
                self.name_operands(at, [name, None]);
            }
            ExprKind::Paren(inner) => self.expr_to(inner, dst)?,
            ExprKind::Un { op: u, operand } => {
                let r = self.expr_any(operand)?;
                let code = match u {
                    UnOp::Not => op::NOT,
                    UnOp::Len => op::LEN,
                    UnOp::Neg => op::UNM,
                    UnOp::BNot => op::BNOT,
                };
                self.f().line = e.line;
                let at = self.op(code, dst, r, 0);
                let name = self.describe(operand);
                self.name_operands(at, [name, None]);
            }
            ExprKind::Bin { op: b, lhs, rhs } => self.binary(e, *b, lhs, rhs, dst)?,
        }
        self.set_free(free);
        Ok(())
    }

    fn binary(&mut self, e: &Expr, b: BinOp, lhs: &Expr, rhs: &Expr, dst: usize) -> Res<()> {
        match b {
            BinOp::And | BinOp::Or => {
                self.expr_to(lhs, dst)?;
                let skip = self.jump_word(op::TESTJMP, dst, 0, usize::from(b == BinOp::Or));
                self.expr_to(rhs, dst)?;
                self.patch_here(vec![skip]);
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                let no = self.cond(e, false)?;
                self.op(op::LOADBOOL, dst, 1, 0);
                let end = self.jump_bx(op::JMP, 0);
                self.patch_here(no);
                self.op(op::LOADBOOL, dst, 0, 0);
                self.patch_here(vec![end]);
            }
            _ => {
                let (l, r) = match b {
                    BinOp::Concat => (self.expr_any(lhs)?, self.expr_any(rhs)?),
                    _ => (self.operand(lhs)?, self.operand(rhs)?),
                };
                let code = match b {
                    BinOp::Add => op::ADD,
                    BinOp::Sub => op::SUB,
                    BinOp::Mul => op::MUL,
                    BinOp::Div => op::DIV,
                    BinOp::Mod => op::MOD,
                    BinOp::Pow => op::POW,
                    BinOp::IDiv => op::IDIV,
                    BinOp::BAnd => op::BAND,
                    BinOp::BOr => op::BOR,
                    BinOp::BXor => op::BXOR,
                    BinOp::Shl => op::SHL,
                    BinOp::Shr => op::SHR,
                    _ => op::CONCAT,
                };
                self.f().line = e.line;
                let at = self.op(code, dst, l, r);
                let names = [self.describe(lhs), self.describe(rhs)];
                self.name_operands(at, names);
            }
        }
        Ok(())
    }

    /// Compiles `e` as a condition: the returned jumps are taken when its
    /// truth is `jump_if`; otherwise control falls through.
    fn cond(&mut self, e: &Expr, jump_if: bool) -> Res<Vec<Slot>> {
        let free = self.free();
        let out = match &e.kind {
            ExprKind::Un {
                op: UnOp::Not,
                operand,
            } => self.cond(operand, !jump_if)?,
            ExprKind::Bin {
                op: b @ (BinOp::And | BinOp::Or),
                lhs,
                rhs,
            } => {
                // `a and b` jumps on false when either is false; on true
                // only when both are (and dually for `or`).
                let short = (*b == BinOp::And) != jump_if;
                if short {
                    let mut j = self.cond(lhs, jump_if)?;
                    j.extend(self.cond(rhs, jump_if)?);
                    j
                } else {
                    let skip = self.cond(lhs, !jump_if)?;
                    let j = self.cond(rhs, jump_if)?;
                    self.patch_here(skip);
                    j
                }
            }
            ExprKind::Bin { op: b, lhs, rhs } if is_comparison(*b) => {
                let (code, swap, negate) = match b {
                    BinOp::Eq => (op::EQ, false, false),
                    BinOp::Ne => (op::EQ, false, true),
                    BinOp::Lt => (op::LT, false, false),
                    BinOp::Le => (op::LE, false, false),
                    BinOp::Gt => (op::LT, true, false),
                    _ => (op::LE, true, false),
                };
                let l = self.operand(lhs)?;
                let r = self.operand(rhs)?;
                let (l, r) = if swap { (r, l) } else { (l, r) };
                // Jump when (l op r) != a, i.e. a = !(jump_if xor negate).
                let a = usize::from(jump_if == negate);
                self.f().line = e.line;
                vec![self.jump_word(code, a, l, r)]
            }
            ExprKind::True | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => {
                match jump_if {
                    true => vec![self.jump_bx(op::JMP, 0)],
                    false => Vec::new(),
                }
            }
            ExprKind::Nil | ExprKind::False => match jump_if {
                true => Vec::new(),
                false => vec![self.jump_bx(op::JMP, 0)],
            },
            _ => {
                let r = self.expr_any(e)?;
                vec![self.jump_word(op::TESTJMP, r, 0, usize::from(jump_if))]
            }
        };
        self.set_free(free);
        Ok(out)
    }

    /// A table constructor into `dst`, built in a fresh register so that
    /// its positional values can follow it for `SETLIST`.
    fn table(&mut self, fields: &[Field], dst: usize) -> Res<()> {
        let npos = fields.iter().filter(|f| matches!(f, Field::Pos(_))).count();
        let nkeyed = fields.len() - npos;
        let t = self.reserve(1);
        self.op(op::NEWTABLE, t, npos.min(1 << 19), nkeyed.min(1 << 19));
        let base = t + 1;
        let mut pending = 0usize;
        let mut first = 1i64;
        for (i, f) in fields.iter().enumerate() {
            self.set_free(base + pending);
            match f {
                Field::Pos(v) => {
                    let r = self.reserve(1);
                    if i + 1 == fields.len() && is_multi(v) {
                        self.multi(v, r, None)?;
                        self.op(op::SETLIST, t, 0, 0);
                        self.emit(first);
                        pending = 0;
                        break;
                    }
                    self.expr_to(v, r)?;
                    pending += 1;
                    if pending == 50 {
                        self.op(op::SETLIST, t, pending, 0);
                        self.emit(first);
                        first += pending as i64;
                        pending = 0;
                    }
                }
                Field::Keyed { key, value } => {
                    let k = match &key.kind {
                        ExprKind::Str(s) => Err(self.konst(s)),
                        _ => Ok(self.expr_any(key)?),
                    };
                    let v = self.expr_any(value)?;
                    match k {
                        Err(k) => self.op(op::SETFIELD, t, k, v),
                        Ok(k) => self.op(op::SETTABLE, t, k, v),
                    };
                }
            }
        }
        if pending > 0 {
            self.op(op::SETLIST, t, pending, 0);
            self.emit(first);
        }
        if t != dst {
            self.op(op::MOVE, dst, t, 0);
        }
        Ok(())
    }
}

fn is_multi(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Call { .. } | ExprKind::Method { .. } | ExprKind::Vararg
    )
}

fn is_comparison(b: BinOp) -> bool {
    matches!(
        b,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}
