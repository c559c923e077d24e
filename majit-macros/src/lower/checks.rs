//! Run-time checks that panic in the plain build: bounds checks of
//! slices, arrays and GC arrays, null GC arrays, `Obj::cast`, and the
//! divisor checks of `/` and `%`.
//!
//! A check is a branch to its own failure block at the end of the
//! function, which calls the check's `extern "C"` failure shim with the
//! operands the message needs (index and length). The shim reports the
//! plain build's panic message and the place (the expression and its
//! source location, where the plain build's panic points) through
//! `runtime::report_panic`, so the run ends with `JitError::Panic`: the
//! jitcode call fails in the tracer and the blackhole, and compiled code
//! never reaches the block (the check is a guard there; its failure
//! resumes in the blackhole, which calls the shim).
//!
//! Invariant: a failure block is entered only from its check's branch,
//! so the registers it reads still hold the values the check tested.

use super::*;

/// Which panic a failed check raises (the plain build's message).
pub(super) enum Failure {
    /// `x` is the index, `y` the length.
    Bounds,
    DivByZero,
    RemByZero,
    DivOverflow,
    RemOverflow,
    /// A null GC array; the `ArrayType` expression of its item type.
    NullArray(TokenStream),
    /// `Obj::cast` to the headered struct named here.
    BadCast(String),
    /// `Obj::small_int(x)` of an `x` outside 63 bits.
    SmallIntRange,
    /// `Obj::to_small_int` of a handle holding an object.
    NotSmallInt,
    /// `Obj::small_float(x)` of an `x` that does not fit (`x` the float).
    SmallFloatRange,
    /// `Obj::to_small_float` of a handle holding no float.
    NotSmallFloat,
}

impl Failure {
    /// The message as an expression over the shim's `x` and `y`.
    fn message(&self) -> TokenStream {
        let text = |s: &str| quote!(::std::string::String::from(#s));
        match self {
            Failure::Bounds => quote!(::std::format!(
                "index out of bounds: the len is {} but the index is {}",
                y as u64,
                x as u64
            )),
            Failure::DivByZero => text("attempt to divide by zero"),
            Failure::RemByZero => text("attempt to calculate the remainder with a divisor of zero"),
            Failure::DivOverflow => text("attempt to divide with overflow"),
            Failure::RemOverflow => text("attempt to calculate the remainder with overflow"),
            Failure::NullArray(t) => quote!(::std::format!("null {} dereferenced", #t.name)),
            Failure::BadCast(s) => text(&format!("Obj::cast: the object is not a `{s}`")),
            Failure::SmallIntRange => {
                quote!(::std::format!(
                    "Obj::small_int: {} does not fit in 63 bits",
                    x
                ))
            }
            Failure::NotSmallInt => {
                text("Obj::to_small_int: the handle holds an object, not an integer")
            }
            // The shim gets the float's bits (see `failure`).
            Failure::SmallFloatRange => quote!(::std::format!(
                "Obj::small_float: {:?} does not fit in a handle",
                f64::from_bits(x as u64)
            )),
            Failure::NotSmallFloat => text("Obj::to_small_float: the handle holds no float"),
        }
    }
}

/// `` `expr` at file:line:column ``: the expression (`text`) and the
/// location the plain build's panic reports (`sp`'s start).
pub(super) fn place(text: &str, sp: Span) -> String {
    // Outside a compiler (the expansion's unit tests) spans have no
    // location.
    if !proc_macro::is_available() {
        return format!("`{text}`");
    }
    let at = sp.unwrap();
    format!("`{text}` at {}:{}:{}", at.file(), at.line(), at.column())
}

impl<'a> Lowerer<'a> {
    /// A failure block raising `what` at `place` with the operands `x`,
    /// `y` (see [`Failure`]); returns its label, for the check's branch.
    pub(super) fn failure(&mut self, what: Failure, place: String, x: &Opnd, y: &Opnd) -> u32 {
        let label = self.label();
        let shim = format_ident!("__majit_fail_{}", self.fail_shims.len());
        let msg = what.message();
        self.fail_shims.push(quote! {
            #[allow(unused_variables)]
            extern "C" fn #shim(x: i64, y: i64) {
                ::majit::metainterp::runtime::report_panic(#place, #msg)
            }
        });
        let descr = call_descr(
            "panic",
            &[Bank::Int, Bank::Int],
            None,
            Policy::Residual,
            true,
        );
        // A float operand goes to the shim as its bits, converted here on
        // the failure path (the shim takes integers).
        let (convert, x) = match x {
            Opnd::Reg(R {
                bank: Bank::Float, ..
            })
            | Opnd::Float(_)
            | Opnd::ConstF(_) => {
                let bits = self.regs.temp(Bank::Int);
                let (f, d) = (x.arg(), bits.tokens());
                let convert =
                    quote!(b.op(::majit::ir::OpCode::ConvertFloatBytesToLonglong, &[#f], #d););
                (convert, Opnd::Reg(bits))
            }
            _ => (quote!(), x.clone()),
        };
        let (l, x, y) = (self.label_t(label), x.arg(), y.arg());
        self.fail_blocks.push(quote! {
            b.bind(#l);
            #convert
            b.call(#descr, ::majit::metainterp::jitcode::Arg::Int(#shim as usize as i64),
                   &[#x, #y], None);
            b.goto(#l);
        });
        label
    }

    /// `a / b` or `a % b` (`rem`) on `t` with Rust's semantics: truncating,
    /// and the plain build's panics for a zero divisor and for `MIN / -1`
    /// (signed types). A constant divisor needs neither check (the trace
    /// folds them anyway); `u64`/`usize` divide unsigned.
    pub(super) fn divide(&mut self, rem: bool, t: IntTy, a: Opnd, b: Opnd, place: String) -> Opnd {
        let nothing = Opnd::Int(0);
        if !matches!(b, Opnd::Int(v) if v != 0) {
            let what = if rem {
                Failure::RemByZero
            } else {
                Failure::DivByZero
            };
            let fail = self.failure(what, place.clone(), &nothing, &nothing);
            let ok = self.pure_t("IntNe", &[b.clone(), Opnd::Int(0)]);
            self.goto_if_not(&ok, fail);
        }
        if t.signed && !matches!(b, Opnd::Int(v) if v != -1) {
            let what = if rem {
                Failure::RemOverflow
            } else {
                Failure::DivOverflow
            };
            let fail = self.failure(what, place.clone(), &nothing, &nothing);
            let min = Opnd::Int(i64::MIN >> (64 - t.bits));
            let not_m1 = self.pure_t("IntNe", &[b.clone(), Opnd::Int(-1)]);
            let not_min = self.pure_t("IntNe", &[a.clone(), min]);
            let ok = self.pure_t("IntOr", &[not_m1, not_min]);
            self.goto_if_not(&ok, fail);
        }
        let name = match (t.signed || t.bits < 64, rem) {
            (true, false) => "IntFloorDiv",
            (true, true) => "IntMod",
            (false, false) => "UintFloorDiv",
            (false, true) => "UintMod",
        };
        self.pure_t(name, &[a, b])
    }
}
