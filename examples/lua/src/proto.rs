//! Function prototypes: what the compiler knows of each Lua function and
//! the interpreter reads through elidable helpers (a prototype never
//! changes once added, so in a trace, where the prototype number is a
//! constant, these reads fold).

use std::cell::{Cell, RefCell};

/// Where a closure's upvalue comes from when the closure is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpvalDesc {
    /// From a register of the enclosing frame (which holds the local's
    /// cell) rather than from the enclosing closure's upvalues.
    pub in_stack: bool,
    pub index: u32,
}

/// One compiled function.
#[derive(Clone, Debug)]
pub struct Proto {
    /// The program counter of its first instruction.
    pub entry: usize,
    pub nparams: u32,
    pub is_vararg: bool,
    /// Registers its frame needs.
    pub maxstack: u32,
    pub upvals: Vec<UpvalDesc>,
    /// Where the function is defined (`linedefined`; 0: a main chunk).
    pub defined: u32,
    /// The source line of each code word, from `entry` on.
    pub lines: Vec<u32>,
    /// The chunk's display name (`test.lua`, `[string "..."]`).
    pub chunk: String,
    /// What the operands of an instruction that can fail are, by its word
    /// offset from `entry`: `global 'x'`, `local 't'`, `field 'k'`... (the
    /// parenthesized part of PUC Lua's error messages).
    pub names: std::collections::HashMap<u32, [Option<String>; 2]>,
}

/// What a call reads of a prototype, kept apart so that the plain
/// interpreter reads it inline (the prototypes' `RefCell` is a call).
#[derive(Clone, Copy)]
struct Head {
    entry: i64,
    nparams: i64,
    maxstack: i64,
    is_vararg: bool,
}

thread_local! {
    static PROTOS: RefCell<Vec<Proto>> = const { RefCell::new(Vec::new()) };
    static HEADS: RefCell<Vec<Head>> = const { RefCell::new(Vec::new()) };
    /// `HEADS`' items and length as of the last `add`, which [`head`]
    /// reads.
    static HEAD_ITEMS: Cell<(*const Head, usize)> = const { Cell::new((std::ptr::null(), 0)) };
}

/// Registers `p`; returns its number.
pub fn add(p: Proto) -> usize {
    HEADS.with(|hs| {
        let mut hs = hs.borrow_mut();
        hs.push(Head {
            entry: p.entry as i64,
            nparams: i64::from(p.nparams),
            maxstack: i64::from(p.maxstack),
            is_vararg: p.is_vararg,
        });
        HEAD_ITEMS.with(|h| h.set((hs.as_ptr(), hs.len())));
    });
    PROTOS.with(|ps| {
        let mut ps = ps.borrow_mut();
        ps.push(p);
        ps.len() - 1
    })
}

/// The head of prototype `p` (which must exist).
#[inline]
fn head(p: i64) -> Head {
    let (heads, len) = HEAD_ITEMS.with(Cell::get);
    let i = p as usize;
    assert!(i < len, "no prototype {p}");
    // SAFETY: `heads` points to `HEADS`' buffer of `len` items, published
    // by `add` after its last change; only `add` changes (moves) it, and
    // publishes it again.
    unsafe { *heads.add(i) }
}

/// Sets the upvalue descriptions of prototype `id` (the compiler knows
/// them only after the enclosing function's registers are assigned).
pub fn set_upvals(id: i64, upvals: Vec<UpvalDesc>) {
    PROTOS.with(|ps| ps.borrow_mut()[id as usize].upvals = upvals);
}

/// Runs `f` on prototype `id`.
pub fn with<R>(id: i64, f: impl FnOnce(&Proto) -> R) -> R {
    PROTOS.with(|ps| f(&ps.borrow()[id as usize]))
}

/// The source position `chunk:line` of program counter `pc`, searching
/// the prototype whose code holds it; `?` when none does.
pub fn position(pc: usize) -> String {
    at_pc(pc, |p, off| format!("{}:{}", p.chunk, p.lines[off])).unwrap_or_else(|| "?".into())
}

/// The prototype whose code holds `pc`, with `f` applied to it and the
/// offset of `pc` in it.
fn at_pc<R>(pc: usize, f: impl FnOnce(&Proto, usize) -> R) -> Option<R> {
    PROTOS.with(|ps| {
        let ps = ps.borrow();
        let p = ps
            .iter()
            .filter(|p| p.entry <= pc && pc < p.entry + p.lines.len())
            .max_by_key(|p| p.entry)?;
        Some(f(p, pc - p.entry))
    })
}

/// The chunk name, the line where the function is defined, the line of
/// `pc` and the function's entry, for the function whose code holds `pc`.
pub fn describe_pc(pc: usize) -> Option<(String, u32, u32, usize)> {
    at_pc(pc, |p, off| {
        (p.chunk.clone(), p.defined, p.lines[off], p.entry)
    })
}

/// What operand `k` (0 or 1) of the instruction at `pc` is, if the
/// compiler knew (`global 'x'`).
pub fn operand_name(pc: usize, k: usize) -> Option<String> {
    at_pc(pc, |p, off| {
        p.names.get(&(off as u32)).and_then(|n| n[k].clone())
    })
    .flatten()
}

/// Elidable: the entry program counter of prototype `p`.
#[inline]
pub fn entry(p: i64) -> i64 {
    head(p).entry
}

/// Elidable: the number of fixed parameters of prototype `p`.
#[inline]
pub fn nparams(p: i64) -> i64 {
    head(p).nparams
}

/// Elidable: the registers a frame of prototype `p` gets: the compiler's
/// `maxstack`, or more once [`widen`] asked for more.
#[inline]
pub fn maxstack(p: i64) -> i64 {
    head(p).maxstack
}

/// Frames of prototype `p` get at least `regs` registers from now on: a
/// `return g(..)` in `p` made its frame grow for a larger `g`, and a trace
/// that meets a frame growing aborts (json.lua's `parse_value`, whose
/// tail calls made every call's trace abort). Only a size: a trace that
/// folded the old one still runs correctly (its frames grow as before).
pub fn widen(p: i64, regs: i64) {
    HEADS.with(|hs| {
        let mut hs = hs.borrow_mut();
        let h = &mut hs[p as usize];
        h.maxstack = h.maxstack.max(regs);
        // (The buffer did not move: `HEAD_ITEMS` stays right.)
    });
}

/// Elidable: whether prototype `p` takes `...`.
#[inline]
pub fn is_vararg(p: i64) -> bool {
    head(p).is_vararg
}

/// Elidable: the number of upvalues of prototype `p`.
pub fn nupvals(p: i64) -> i64 {
    with(p, |p| p.upvals.len() as i64)
}

/// Elidable: upvalue `i` of prototype `p`: its index, plus `1 << 32` when
/// it comes from the enclosing frame's register.
pub fn upval(p: i64, i: i64) -> i64 {
    with(p, |p| {
        let u = p.upvals[i as usize];
        i64::from(u.index) | i64::from(u.in_stack) << 32
    })
}
