//! The bytecode the compiler emits and the interpreter runs: a register
//! machine in the manner of PUC Lua's, one `i64` word per instruction
//! (some take one more word: a 64-bit operand or a jump target).
//!
//! A word is `op | a << 8 | b << 24 | c << 44`: an 8-bit opcode, a 16-bit
//! `a` (a register, usually the destination) and two 20-bit operands `b`
//! and `c` (registers, constant indexes, counts). Registers are slots of
//! the running function's frame (`R[x]`); `K[x]` is its closure's constant
//! table (strings, and numbers too large for an operand); `U[x]` its
//! closure's upvalue cells. Every function's code lives in one global
//! store (`code.rs`), so a program counter is a global index, the only
//! green of the interpreter.
//!
//! A local captured by an inner function lives in a cell (an `UpVal`
//! object) in its register from its declaration on: the compiler reads and
//! writes it with `GETCELL`/`SETCELL`, a closure captures the cell itself,
//! and a loop's fresh local per iteration is a fresh cell. Nothing is ever
//! "closed": cells are ordinary objects.
//!
//! Calls: `CALL a b c` calls `R[a]` with `b - 1` arguments `R[a+1..]`
//! (`b == 0`: up to the frame's `top`, set by the previous `CALL`/`VARARG`
//! with an open result count) and keeps `c - 1` results in `R[a..]`
//! (`c == 0`: all, setting `top`). A callee gets a new frame; its
//! `RETURN a b` leaves `b - 1` results (`b == 0`: up to `top`) in its own
//! registers from `a`, which the caller copies.

/// Opcodes. The operand letters are those of the module docs; `+w` marks
/// an instruction that takes the next word too.
pub mod op {
    /// `R[a] = R[b]`.
    pub const MOVE: i64 = 0;
    /// `R[a] = K[bx]`.
    pub const LOADK: i64 = 1;
    /// `R[a] = integer w` (+w).
    pub const LOADI: i64 = 2;
    /// `R[a] = float with bits w` (+w).
    pub const LOADF: i64 = 3;
    /// `R[a..=a+b] = nil`.
    pub const LOADNIL: i64 = 4;
    /// `R[a] = (b != 0)`.
    pub const LOADBOOL: i64 = 5;
    /// `R[a] = U[b].v`.
    pub const GETUPVAL: i64 = 6;
    /// `U[b].v = R[a]`.
    pub const SETUPVAL: i64 = 7;
    /// `R[a] = new cell holding R[b]` (a captured local's declaration).
    pub const NEWCELL: i64 = 8;
    /// `R[a] = R[b].v` (`R[b]` a cell).
    pub const GETCELL: i64 = 9;
    /// `R[a].v = R[b]` (`R[a]` a cell).
    pub const SETCELL: i64 = 10;
    /// `R[a] = U[b].v[K[c]]` (a global read through `_ENV`).
    pub const GETTABUP: i64 = 11;
    /// `U[a].v[K[b]] = R[c]`.
    pub const SETTABUP: i64 = 12;
    /// `R[a] = R[b][R[c]]`.
    pub const GETTABLE: i64 = 13;
    /// `R[a] = R[b][K[c]]` (`K[c]` a string).
    pub const GETFIELD: i64 = 14;
    /// `pc = bx`.
    pub const JMP: i64 = 15;
    /// `if truthy(R[a]) == (c != 0) { pc = w }` (+w).
    pub const TESTJMP: i64 = 16;
    /// `if (R[b] == R[c]) != (a != 0) { pc = w }` (+w); `LT`, `LE`
    /// likewise with `<`, `<=`. (The jumps and comparisons come just before
    /// the arithmetic: the interpreter tests `JMP..=DIV` with one
    /// comparison.)
    pub const EQ: i64 = 17;
    pub const LT: i64 = 18;
    pub const LE: i64 = 19;
    /// `R[a] = R[b] + R[c]`; the arithmetic and bitwise binary operators
    /// follow in this order, all `R[a] = R[b] op R[c]`.
    pub const ADD: i64 = 20;
    pub const SUB: i64 = 21;
    pub const MUL: i64 = 22;
    /// `/`, always a float.
    pub const DIV: i64 = 23;
    pub const MOD: i64 = 24;
    /// `^`, always a float.
    pub const POW: i64 = 25;
    /// `//`.
    pub const IDIV: i64 = 26;
    pub const BAND: i64 = 27;
    pub const BOR: i64 = 28;
    pub const BXOR: i64 = 29;
    pub const SHL: i64 = 30;
    pub const SHR: i64 = 31;
    /// `R[a] = -R[b]`.
    pub const UNM: i64 = 32;
    /// `R[a] = ~R[b]`.
    pub const BNOT: i64 = 33;
    /// `R[a] = not R[b]`.
    pub const NOT: i64 = 34;
    /// `R[a] = #R[b]`.
    pub const LEN: i64 = 35;
    /// `R[a] = R[b] .. R[c]` (a chain `x .. y .. z` is two, right first).
    pub const CONCAT: i64 = 36;
    /// `R[a][R[b]] = R[c]`.
    pub const SETTABLE: i64 = 37;
    /// `R[a][K[b]] = R[c]` (`K[b]` a string).
    pub const SETFIELD: i64 = 38;
    /// `R[a] = {}` with room for `b` array items and `c` hash entries.
    pub const NEWTABLE: i64 = 39;
    /// `R[a][w + i] = R[a + 1 + i]` for `i` in `0..b` (`b == 0`: up to
    /// `top`) (+w: the first index).
    pub const SETLIST: i64 = 40;
    /// `R[a + 1] = R[b]; R[a] = R[b][K[c]]` (a method call's receiver).
    pub const SELF: i64 = 41;
    /// Numeric `for` over `R[a..a+4]` (index, limit, step, the loop
    /// variable): checks and prepares, `pc = bx` past the loop when it
    /// runs zero times.
    pub const FORPREP: i64 = 42;
    /// Steps the numeric `for` at `R[a]`; `pc = bx` (the body) while it
    /// runs on.
    pub const FORLOOP: i64 = 43;
    /// Generic `for`: `R[a+4..a+4+c] = R[a](R[a+1], R[a+2])`.
    pub const TFORCALL: i64 = 44;
    /// `if R[a+4] != nil { R[a+2] = R[a+4]; pc = bx }`.
    pub const TFORLOOP: i64 = 45;
    /// See the module docs.
    pub const CALL: i64 = 46;
    /// See the module docs.
    pub const RETURN: i64 = 47;
    /// `R[a] = closure of prototype bx` (its upvalues from this frame's
    /// cells and this closure's upvalues, as the prototype says).
    pub const CLOSURE: i64 = 48;
    /// `R[a..a + c - 1] = ...` (`c == 0`: all of them, setting `top`).
    pub const VARARG: i64 = 49;
    /// `return R[a](R[a+1..])` as `CALL a b 0` (followed by `RETURN a 0`):
    /// a Lua function called so runs in the frame's place (vm.rs, `TAIL`),
    /// anything else is called as by `CALL` and the `RETURN` returns its
    /// results.
    pub const TAILCALL: i64 = 50;
    /// How many opcodes there are.
    pub const COUNT: i64 = 51;
}

/// How many words the instruction with opcode `code` takes (`+w` ones
/// two).
pub fn width(code: i64) -> usize {
    use op::*;
    match code {
        LOADI | LOADF | SETLIST | TESTJMP | EQ | LT | LE => 2,
        _ => 1,
    }
}

/// An operand `b` or `c` of the arithmetic, bitwise and comparison
/// instructions at or above `IMM` is not a register (registers are below
/// 2^16) but an immediate: below `IMM_FLOAT` the integer `operand -
/// IMM_BIAS` ([`imm`]), from it the float `operand - IMM_FLOAT_BIAS`
/// ([`imm_float`]). So `n - 1`, `k % 2 == 0` and `2.0 * x` need no
/// `LOADI` or `LOADF`.
pub const IMM: usize = 1 << 19;
/// See [`IMM`].
pub const IMM_FLOAT: usize = IMM + (1 << 18);
/// See [`IMM`].
pub const IMM_BIAS: i64 = IMM as i64 + (1 << 17);
/// See [`IMM`].
pub const IMM_FLOAT_BIAS: i64 = IMM_FLOAT as i64 + (1 << 17);

/// The operand standing for the integer `v`, if it is small enough.
pub fn imm(v: i64) -> Option<usize> {
    (-(1 << 17)..1 << 17)
        .contains(&v)
        .then(|| (v + IMM_BIAS) as usize)
}

/// The operand standing for the float `f`, if it is a small integral
/// value other than a zero (zeros are boxed: `majit_ir::flonum`).
pub fn imm_float(f: f64) -> Option<usize> {
    let fits = f.fract() == 0.0 && (-131072.0..131072.0).contains(&f);
    (fits && f != 0.0).then(|| (f as i64 + IMM_FLOAT_BIAS) as usize)
}

/// One instruction word.
pub fn encode(op: i64, a: u32, b: u32, c: u32) -> i64 {
    debug_assert!(a < 1 << 16 && b < 1 << 20 && c < 1 << 20);
    op | (a as i64) << 8 | (b as i64) << 24 | (c as i64) << 44
}

/// An instruction word with a 40-bit operand `bx` in place of `b` and `c`.
pub fn encode_bx(op: i64, a: u32, bx: u64) -> i64 {
    debug_assert!(a < 1 << 16 && bx < 1 << 40);
    op | (a as i64) << 8 | (bx as i64) << 24
}

/// The fields of an instruction word: `(op, a, b, c)`.
#[inline]
pub fn decode(w: i64) -> (i64, usize, usize, usize) {
    (
        w & 0xff,
        ((w >> 8) & 0xffff) as usize,
        ((w >> 24) & 0xf_ffff) as usize,
        ((w >> 44) & 0xf_ffff) as usize,
    )
}

/// The 40-bit operand of a word made by [`encode_bx`].
#[inline]
pub fn bx(w: i64) -> usize {
    ((w as u64) >> 24) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let w = encode(op::CALL, 65535, (1 << 20) - 1, 7);
        assert_eq!(decode(w), (op::CALL, 65535, (1 << 20) - 1, 7));
        let w = encode_bx(op::JMP, 3, (1 << 40) - 1);
        assert_eq!(
            (decode(w).0, decode(w).1, bx(w)),
            (op::JMP, 3, (1 << 40) - 1)
        );
    }

    #[test]
    fn immediates_span_the_operand_above_the_registers() {
        assert_eq!(
            [imm(-(1 << 17)), imm(0), imm((1 << 17) - 1), imm(1 << 17)],
            [Some(IMM), Some(IMM + (1 << 17)), Some(IMM_FLOAT - 1), None]
        );
        assert_eq!(imm(-5).map(|o| o as i64 - IMM_BIAS), Some(-5));
        let floats = [-131072.0, 1.0, 131071.0, 131072.0, 0.5, -0.0, 0.0, f64::NAN];
        assert_eq!(
            floats.map(imm_float),
            [
                Some(IMM_FLOAT),
                Some(IMM_FLOAT + (1 << 17) + 1),
                Some((1 << 20) - 1),
                None,
                None,
                None,
                None,
                None
            ]
        );
        assert_eq!(imm_float(-3.0).map(|o| o as i64 - IMM_FLOAT_BIAS), Some(-3));
    }
}
