//! The trace text format: [`print()`] (or [`print_with`]) writes it, [`parse`] and [`parse_with`]
//! read it, and a [`Namespace`] supplies descriptors and symbols that tests
//! share instead of declaring them in every trace.
//!
//! # Shape
//!
//! ```text
//! # comments run from `#` to the end of the line; blank lines are ignored
//! descr Node = size(size=16, type_id=1, headerless, fields=[Node.value, Node.next])
//! descr Node.value = field(owner=Node, offset=0, size=8, kind=int, signed)
//! descr g0 = fail(id=0)
//! descr Loop = target()
//! [i0, p1]
//! label(i0, p1, descr=Loop)
//! i2 = int_add(i0, 1)
//! p3 = new(descr=Node)
//! setfield_gc(p3, i2, descr=Node.value)
//! i4 = int_lt(i2, 100)
//! guard_true(i4, descr=g0) [i0, p1]
//! jump(i2, p3, descr=Loop)
//! ```
//!
//! A trace is: any number of `descr` declarations (anywhere), exactly one
//! input list `[name, ...]` before the first op, then one op per line.
//!
//! # Values
//!
//! - A value name is `i`, `p` or `f` (int, ref, float) followed by letters,
//!   digits or `_`. An input's kind comes from its prefix; an op's result
//!   name must carry the prefix of the op's result kind. Each name is
//!   defined once. The words `inf`, `nan`, `null`, `ptr`, `float_bits` are
//!   constants, never names.
//! - An op with a result may omit `name =` (the value is then unnamed);
//!   an op without a result must omit it.
//! - Ints: decimal in `i64` range (`-5`), or hex (`0x1f`, `-0x1f`, up to
//!   64 bits, taken as the two's-complement pattern).
//! - Floats: any decimal with `.` or an exponent (`1.5`, `-0.0`, `1e300`),
//!   `nan` (the canonical quiet NaN), `inf`, `-inf`, or an exact bit pattern
//!   `float_bits(0x7ff8000000000001)` (how other NaNs print).
//! - Refs: `null` or `ptr(0x1000)`.
//! - `@name`: a constant from the namespace ([`Namespace::add_symbol`]),
//!   e.g. a call target. Symbols print back as their value.
//!
//! The printer names values by position: value number `n` is entry `n` of
//! `inputs ++ ops` (void ops use a number but print no name), so printing is
//! deterministic and `parse(print(t)) == t`.
//!
//! # Ops
//!
//! `[name =] opname(arg, ..., [descr=NAME]) [[fail, args]]`. The descriptor,
//! if any, is the last thing inside the parentheses. Guards must have a
//! fail-arg list (`[]` when empty); no other op may have one. A name used
//! before its definition parses (the verifier rejects it); a name defined
//! nowhere is a parse error, as is an unknown op (with the closest names as
//! a hint) or an unknown descriptor.
//!
//! # Descriptor declarations
//!
//! `descr NAME = SORT(items)`, where NAME is letters, digits, `_` and `.`,
//! and items are `key=value`, `key=[a, b]` or a bare flag, in any order:
//!
//! | sort | required | optional |
//! |---|---|---|
//! | `size` | `size=16, type_id=1, fields=[Node.value, ...]` | `headerless`, `vtable=0x...` |
//! | `field` | `owner=Node, offset=0, size=8, kind=int` | `signed`, `immutable`, `quasi_immutable` |
//! | `array` | `base=16, len=8, item_size=8, kind=int, type_id=4` | `signed` |
//! | `call` | `args=[int, ref], result=int, effect=elidable` | `can_raise`, `can_collect`, `may_force`, `reads=[..]`, `writes=[..]` |
//! | `fail` | `id=3` | |
//! | `target` | | |
//!
//! `kind` is `int`, `ref` or `float`; a call's `result` also allows `void`;
//! `effect` is `random`, `declared`, `elidable` or `loop_invariant`. Numbers are decimal or
//! `0x` hex. [`print()`] writes the declarations of every descriptor a trace
//! uses, in first-use order, keys in the order shown, so its output needs no
//! namespace.
//!
//! `parse_with` looks a `descr=NAME` up in the namespace first, then in the
//! text's declarations. A declaration that differs from the namespace entry
//! of the same name, or from an earlier declaration, is an error.

mod decl;
mod lex;
mod parse;
mod print;

pub use parse::{parse, parse_with};
pub(crate) use print::result_name;
pub use print::{const_text, descr_decl, op_text, print, print_with, ref_text};

use crate::descr::Descr;
use crate::op::Const;
use std::collections::BTreeMap;

/// Descriptors and symbols that trace text may name without declaring them.
///
/// ```
/// use majit_ir::{parse_with, Const, Namespace};
/// let mut ns = Namespace::new();
/// ns.add_symbol("answer", Const::Int(42));
/// let t = parse_with("[]\nfinish(@answer)", &ns).unwrap();
/// assert_eq!(t.get_const(t.ops[0].args[0]), Some(Const::Int(42)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Namespace {
    descrs: BTreeMap<String, Descr>,
    symbols: BTreeMap<String, Const>,
}

impl Namespace {
    /// An empty namespace.
    pub fn new() -> Namespace {
        Namespace::default()
    }

    /// Adds `descr` under its own name, replacing any descriptor of that name.
    pub fn add_descr(&mut self, descr: Descr) {
        self.descrs.insert(descr.name().to_string(), descr);
    }

    /// Adds the symbol `@name` standing for the constant `value`, replacing
    /// any symbol of that name.
    pub fn add_symbol(&mut self, name: impl Into<String>, value: Const) {
        self.symbols.insert(name.into(), value);
    }

    /// The descriptor called `name`.
    pub fn descr(&self, name: &str) -> Option<&Descr> {
        self.descrs.get(name)
    }

    /// The constant `@name` stands for.
    pub fn symbol(&self, name: &str) -> Option<Const> {
        self.symbols.get(name).copied()
    }

    /// Every descriptor, sorted by name.
    pub fn descrs(&self) -> impl Iterator<Item = &Descr> {
        self.descrs.values()
    }
}

/// Whether `s` can be written as a descriptor name (or a name inside a
/// declaration): non-empty ASCII letters, digits, `_` and `.`.
pub fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}
