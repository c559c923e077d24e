//! The one operation table.
//!
//! Every opcode of the trace IR is one line of the `opcodes!` call below:
//! its Rust variant, its text name, its argument signature, its result kind
//! and its flags. `OpCode`, `OpCode::ALL`, `name()`, `from_name()` and the
//! per-op [`OpInfo`] all come from that single list, so adding an opcode is
//! one line here plus the exhaustive `match`es (verifier, refexec, emitters)
//! that the compiler then points at.
//!
//! Argument signatures are strings, one character per argument:
//! `i` int, `r` ref, `f` float, `a` any kind, `v` the kind named by the
//! op's field or array descr (the stored value), and a trailing `*` means
//! "any number of further arguments of any kind" (calls, `label`, `jump`,
//! `finish`, `debug_merge_point`).
//!
//! Relations that code leans on (a guard's inverse, a comparison's swap)
//! are explicit methods checked over `OpCode::ALL` by the tests.

/// The kind of a value: the three register banks of the JIT.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A machine integer (`i64`), also used for raw addresses and booleans.
    Int,
    /// A GC reference (or null).
    Ref,
    /// An IEEE-754 double.
    Float,
}

impl Kind {
    /// The letter that prefixes values of this kind in trace text (`i`, `p`, `f`).
    pub fn prefix(self) -> char {
        match self {
            Kind::Int => 'i',
            Kind::Ref => 'p',
            Kind::Float => 'f',
        }
    }

    /// The kind whose text prefix is `c`.
    pub fn from_prefix(c: char) -> Option<Kind> {
        match c {
            'i' => Some(Kind::Int),
            'p' => Some(Kind::Ref),
            'f' => Some(Kind::Float),
            _ => None,
        }
    }

    /// The lower-case name used in descriptor declarations.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int => "int",
            Kind::Ref => "ref",
            Kind::Float => "float",
        }
    }

    /// Inverse of [`Kind::name`].
    pub fn from_name(s: &str) -> Option<Kind> {
        match s {
            "int" => Some(Kind::Int),
            "ref" => Some(Kind::Ref),
            "float" => Some(Kind::Float),
            _ => None,
        }
    }
}

/// What an operation produces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ResultKind {
    Int,
    Ref,
    Float,
    /// No result (stores, guards, control flow).
    Void,
}

impl ResultKind {
    /// The value kind, or `None` for `Void`.
    pub fn kind(self) -> Option<Kind> {
        match self {
            ResultKind::Int => Some(Kind::Int),
            ResultKind::Ref => Some(Kind::Ref),
            ResultKind::Float => Some(Kind::Float),
            ResultKind::Void => None,
        }
    }
}

/// Bit flags describing an opcode. Predicates on [`OpCode`] read these,
/// never positions in the list.
pub mod flags {
    /// No side effects, result depends only on the arguments: may be CSE'd,
    /// folded and removed when unused.
    pub const PURE: u16 = 1 << 0;
    /// `op(a, b) == op(b, a)`.
    pub const COMMUTATIVE: u16 = 1 << 1;
    /// A guard: leaves the trace when its condition does not hold.
    pub const GUARD: u16 = 1 << 2;
    /// Writes memory or has another observable effect.
    pub const SIDE_EFFECT: u16 = 1 << 3;
    /// May raise (the next op is usually `guard_no_exception`).
    pub const CAN_RAISE: u16 = 1 << 4;
    /// May allocate, hence may run a collection.
    pub const CAN_MALLOC: u16 = 1 << 5;
    /// Needs a descriptor.
    pub const DESCR: u16 = 1 << 6;
    /// Overflow-checked arithmetic: must be followed by
    /// `guard_no_overflow` or `guard_overflow`.
    pub const OVF: u16 = 1 << 7;
    /// Ends a trace (`jump`, `finish`).
    pub const FINAL: u16 = 1 << 8;
    /// A call: the first argument is the function address, the effects
    /// come from the `CallDescr`.
    pub const CALL: u16 = 1 << 9;
    /// Reads memory (loads).
    pub const LOAD: u16 = 1 << 10;
    /// May carry a descriptor but does not need one (`finish`, guards).
    pub const OPT_DESCR: u16 = 1 << 11;
}

use flags::*;

/// Static facts about one opcode.
#[derive(Copy, Clone, Debug)]
pub struct OpInfo {
    /// Text name, e.g. `"int_add"`.
    pub name: &'static str,
    /// Argument signature, see the module docs.
    pub args: &'static str,
    /// Result kind.
    pub result: ResultKind,
    /// Bit set of [`flags`].
    pub flags: u16,
}

macro_rules! opcodes {
    ($( $variant:ident $name:literal $args:literal $result:ident $flags:expr ;)*) => {
        /// An IR operation. See the module docs for the table it comes from.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum OpCode { $( $variant ),* }

        impl OpCode {
            /// Every opcode, in table order.
            pub const ALL: &'static [OpCode] = &[ $( OpCode::$variant ),* ];
            const INFO: &'static [OpInfo] = &[
                $( OpInfo { name: $name, args: $args, result: ResultKind::$result, flags: $flags } ),*
            ];
        }
    };
}

const NONE: u16 = 0;
const LOADD: u16 = LOAD | DESCR;
const STORE: u16 = SIDE_EFFECT | DESCR;
const ALLOC: u16 = CAN_MALLOC | DESCR;
const CALLS: u16 = CALL | DESCR | SIDE_EFFECT | CAN_RAISE | CAN_MALLOC;
const CALL_PURE: u16 = CALL | DESCR | PURE;
const CALL_FORCE: u16 = CALL | DESCR | SIDE_EFFECT | CAN_RAISE | CAN_MALLOC;
const GUARDD: u16 = GUARD | OPT_DESCR;

opcodes! {
//  variant                         text                                args    result  flags
    // -- integer arithmetic (wrapping) --
    IntAdd                          "int_add"                           "ii"    Int     PURE | COMMUTATIVE;
    IntSub                          "int_sub"                           "ii"    Int     PURE;
    IntMul                          "int_mul"                           "ii"    Int     PURE | COMMUTATIVE;
    IntFloorDiv                     "int_floordiv"                      "ii"    Int     PURE;
    IntMod                          "int_mod"                           "ii"    Int     PURE;
    IntAnd                          "int_and"                           "ii"    Int     PURE | COMMUTATIVE;
    IntOr                           "int_or"                            "ii"    Int     PURE | COMMUTATIVE;
    IntXor                          "int_xor"                           "ii"    Int     PURE | COMMUTATIVE;
    IntLshift                       "int_lshift"                        "ii"    Int     PURE;
    IntRshift                       "int_rshift"                        "ii"    Int     PURE;
    UintRshift                      "uint_rshift"                       "ii"    Int     PURE;
    IntNeg                          "int_neg"                           "i"     Int     PURE;
    IntInvert                       "int_invert"                        "i"     Int     PURE;
    IntIsZero                       "int_is_zero"                       "i"     Int     PURE;
    IntIsTrue                       "int_is_true"                       "i"     Int     PURE;
    // -- overflow-checked arithmetic --
    IntAddOvf                       "int_add_ovf"                       "ii"    Int     OVF | COMMUTATIVE;
    IntSubOvf                       "int_sub_ovf"                       "ii"    Int     OVF;
    IntMulOvf                       "int_mul_ovf"                       "ii"    Int     OVF | COMMUTATIVE;
    // -- integer comparisons (result 0 or 1) --
    IntLt                           "int_lt"                            "ii"    Int     PURE;
    IntLe                           "int_le"                            "ii"    Int     PURE;
    IntEq                           "int_eq"                            "ii"    Int     PURE | COMMUTATIVE;
    IntNe                           "int_ne"                            "ii"    Int     PURE | COMMUTATIVE;
    IntGt                           "int_gt"                            "ii"    Int     PURE;
    IntGe                           "int_ge"                            "ii"    Int     PURE;
    UintLt                          "uint_lt"                           "ii"    Int     PURE;
    UintLe                          "uint_le"                           "ii"    Int     PURE;
    UintGt                          "uint_gt"                           "ii"    Int     PURE;
    UintGe                          "uint_ge"                           "ii"    Int     PURE;
    // -- floats --
    FloatAdd                        "float_add"                         "ff"    Float   PURE | COMMUTATIVE;
    FloatSub                        "float_sub"                         "ff"    Float   PURE;
    FloatMul                        "float_mul"                         "ff"    Float   PURE | COMMUTATIVE;
    FloatTrueDiv                    "float_truediv"                     "ff"    Float   PURE;
    FloatNeg                        "float_neg"                         "f"     Float   PURE;
    FloatAbs                        "float_abs"                         "f"     Float   PURE;
    FloatLt                         "float_lt"                          "ff"    Int     PURE;
    FloatLe                         "float_le"                          "ff"    Int     PURE;
    FloatEq                         "float_eq"                          "ff"    Int     PURE | COMMUTATIVE;
    FloatNe                         "float_ne"                          "ff"    Int     PURE | COMMUTATIVE;
    FloatGt                         "float_gt"                          "ff"    Int     PURE;
    FloatGe                         "float_ge"                          "ff"    Int     PURE;
    CastFloatToInt                  "cast_float_to_int"                 "f"     Int     PURE;
    CastIntToFloat                  "cast_int_to_float"                 "i"     Float   PURE;
    ConvertFloatBytesToLonglong     "convert_float_bytes_to_longlong"   "f"     Int     PURE;
    ConvertLonglongBytesToFloat     "convert_longlong_bytes_to_float"   "i"     Float   PURE;
    // -- pointers and copies --
    PtrEq                           "ptr_eq"                            "rr"    Int     PURE | COMMUTATIVE;
    PtrNe                           "ptr_ne"                            "rr"    Int     PURE | COMMUTATIVE;
    CastPtrToInt                    "cast_ptr_to_int"                   "r"     Int     PURE;
    CastIntToPtr                    "cast_int_to_ptr"                   "i"     Ref     PURE;
    SameAsI                         "same_as_i"                         "i"     Int     PURE;
    SameAsR                         "same_as_r"                         "r"     Ref     PURE;
    SameAsF                         "same_as_f"                         "f"     Float   PURE;
    // -- guards --
    GuardTrue                       "guard_true"                        "i"     Void    GUARDD;
    GuardFalse                      "guard_false"                       "i"     Void    GUARDD;
    GuardValue                      "guard_value"                       "aa"    Void    GUARDD;
    GuardClass                      "guard_class"                       "ri"    Void    GUARDD;
    GuardNonnull                    "guard_nonnull"                     "r"     Void    GUARDD;
    GuardIsnull                     "guard_isnull"                      "r"     Void    GUARDD;
    GuardNonnullClass               "guard_nonnull_class"               "ri"    Void    GUARDD;
    GuardNoException                "guard_no_exception"                ""      Void    GUARDD;
    GuardNotInvalidated             "guard_not_invalidated"             ""      Void    GUARDD;
    GuardNoOverflow                 "guard_no_overflow"                 ""      Void    GUARDD;
    GuardOverflow                   "guard_overflow"                    ""      Void    GUARDD;
    GuardNotForced                  "guard_not_forced"                  ""      Void    GUARDD;
    // -- GC memory: fields, arrays --
    GetfieldGcI                     "getfield_gc_i"                     "r"     Int     LOADD;
    GetfieldGcR                     "getfield_gc_r"                     "r"     Ref     LOADD;
    GetfieldGcF                     "getfield_gc_f"                     "r"     Float   LOADD;
    SetfieldGc                      "setfield_gc"                       "rv"    Void    STORE;
    GetarrayitemGcI                 "getarrayitem_gc_i"                 "ri"    Int     LOADD;
    GetarrayitemGcR                 "getarrayitem_gc_r"                 "ri"    Ref     LOADD;
    GetarrayitemGcF                 "getarrayitem_gc_f"                 "ri"    Float   LOADD;
    SetarrayitemGc                  "setarrayitem_gc"                   "riv"   Void    STORE;
    ArraylenGc                      "arraylen_gc"                       "r"     Int     PURE | DESCR;
    // -- raw memory (addresses are ints) --
    GetfieldRawI                    "getfield_raw_i"                    "i"     Int     LOADD;
    GetfieldRawF                    "getfield_raw_f"                    "i"     Float   LOADD;
    SetfieldRaw                     "setfield_raw"                      "iv"    Void    STORE;
    GetarrayitemRawI                "getarrayitem_raw_i"                "ii"    Int     LOADD;
    GetarrayitemRawF                "getarrayitem_raw_f"                "ii"    Float   LOADD;
    SetarrayitemRaw                 "setarrayitem_raw"                  "iiv"   Void    STORE;
    RawLoadI                        "raw_load_i"                        "ii"    Int     LOADD;
    RawLoadF                        "raw_load_f"                        "ii"    Float   LOADD;
    RawStore                        "raw_store"                         "iiv"   Void    STORE;
    // -- allocation: high-level forms (optimizer) --
    New                             "new"                               ""      Ref     ALLOC;
    NewWithVtable                   "new_with_vtable"                   ""      Ref     ALLOC;
    NewArray                        "new_array"                         "i"     Ref     ALLOC;
    NewArrayClear                   "new_array_clear"                   "i"     Ref     ALLOC;
    // -- allocation: lowered forms (GC rewrite -> backend) --
    CallMallocNursery               "call_malloc_nursery"               "i"     Ref     CAN_MALLOC;
    CallMallocNurseryHeaderless     "call_malloc_nursery_headerless"    "i"     Ref     ALLOC;
    CallMallocNurseryVarsize        "call_malloc_nursery_varsize"       "i"     Ref     ALLOC;
    NurseryPtrIncrement             "nursery_ptr_increment"             "ri"    Ref     PURE;
    CondCallGcWb                    "cond_call_gc_wb"                   "r"     Void    SIDE_EFFECT;
    CondCallGcWbArray               "cond_call_gc_wb_array"             "ri"    Void    SIDE_EFFECT;
    // -- calls: arg 0 is the function address --
    CallI                           "call_i"                            "i*"    Int     CALLS;
    CallR                           "call_r"                            "i*"    Ref     CALLS;
    CallF                           "call_f"                            "i*"    Float   CALLS;
    CallN                           "call_n"                            "i*"    Void    CALLS;
    CallPureI                       "call_pure_i"                       "i*"    Int     CALL_PURE;
    CallPureR                       "call_pure_r"                       "i*"    Ref     CALL_PURE;
    CallPureF                       "call_pure_f"                       "i*"    Float   CALL_PURE;
    CallPureN                       "call_pure_n"                       "i*"    Void    CALL_PURE;
    CallMayForceI                   "call_may_force_i"                  "i*"    Int     CALL_FORCE;
    CallMayForceR                   "call_may_force_r"                  "i*"    Ref     CALL_FORCE;
    CallMayForceF                   "call_may_force_f"                  "i*"    Float   CALL_FORCE;
    CallMayForceN                   "call_may_force_n"                  "i*"    Void    CALL_FORCE;
    // -- control --
    Label                           "label"                             "*"     Void    DESCR;
    Jump                            "jump"                              "*"     Void    DESCR | FINAL;
    Finish                          "finish"                            "*"     Void    FINAL | OPT_DESCR;
    DebugMergePoint                 "debug_merge_point"                 "*"     Void    NONE;
}

impl OpCode {
    /// The static facts about this opcode.
    pub fn info(self) -> &'static OpInfo {
        &Self::INFO[self as usize]
    }

    /// Text name, e.g. `"int_add"`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The opcode whose text name is `name`.
    pub fn from_name(name: &str) -> Option<OpCode> {
        Self::ALL.iter().copied().find(|op| op.name() == name)
    }

    /// Result kind.
    pub fn result(self) -> ResultKind {
        self.info().result
    }

    /// Number of fixed arguments (variadic ops may take more).
    pub fn arity(self) -> usize {
        self.info().args.trim_end_matches('*').len()
    }

    /// Whether further arguments beyond [`OpCode::arity`] are allowed.
    pub fn is_variadic(self) -> bool {
        self.info().args.ends_with('*')
    }

    fn has(self, flag: u16) -> bool {
        self.info().flags & flag != 0
    }

    pub fn is_guard(self) -> bool {
        self.has(GUARD)
    }
    /// No side effects and a result that depends only on the arguments.
    pub fn is_always_pure(self) -> bool {
        self.has(PURE)
    }
    pub fn has_side_effect(self) -> bool {
        self.has(SIDE_EFFECT)
    }
    pub fn can_raise(self) -> bool {
        self.has(CAN_RAISE)
    }
    pub fn can_malloc(self) -> bool {
        self.has(CAN_MALLOC)
    }
    pub fn is_commutative(self) -> bool {
        self.has(COMMUTATIVE)
    }
    pub fn is_ovf(self) -> bool {
        self.has(OVF)
    }
    pub fn is_final(self) -> bool {
        self.has(FINAL)
    }
    pub fn is_call(self) -> bool {
        self.has(CALL)
    }
    pub fn is_load(self) -> bool {
        self.has(LOAD)
    }
    /// A descriptor is required.
    pub fn needs_descr(self) -> bool {
        self.has(DESCR)
    }
    /// A descriptor is allowed (required or optional).
    pub fn allows_descr(self) -> bool {
        self.has(DESCR | OPT_DESCR)
    }

    /// The guard that holds exactly when this one fails, if any.
    pub fn inverse_guard(self) -> Option<OpCode> {
        use OpCode::*;
        Some(match self {
            GuardTrue => GuardFalse,
            GuardFalse => GuardTrue,
            GuardNonnull => GuardIsnull,
            GuardIsnull => GuardNonnull,
            GuardNoOverflow => GuardOverflow,
            GuardOverflow => GuardNoOverflow,
            _ => return None,
        })
    }

    /// For a comparison `a OP b`, the opcode `OP'` with `b OP' a == a OP b`.
    pub fn swapped_comparison(self) -> Option<OpCode> {
        use OpCode::*;
        Some(match self {
            IntLt => IntGt,
            IntGt => IntLt,
            IntLe => IntGe,
            IntGe => IntLe,
            IntEq => IntEq,
            IntNe => IntNe,
            UintLt => UintGt,
            UintGt => UintLt,
            UintLe => UintGe,
            UintGe => UintLe,
            FloatLt => FloatGt,
            FloatGt => FloatLt,
            FloatLe => FloatGe,
            FloatGe => FloatLe,
            FloatEq => FloatEq,
            FloatNe => FloatNe,
            PtrEq => PtrEq,
            PtrNe => PtrNe,
            _ => return None,
        })
    }

    /// For an integer/pointer comparison, the comparison giving the negated result.
    /// (Floats have none: NaN makes `!(a < b)` differ from `a >= b`.)
    pub fn negated_comparison(self) -> Option<OpCode> {
        use OpCode::*;
        Some(match self {
            IntLt => IntGe,
            IntGe => IntLt,
            IntLe => IntGt,
            IntGt => IntLe,
            IntEq => IntNe,
            IntNe => IntEq,
            UintLt => UintGe,
            UintGe => UintLt,
            UintLe => UintGt,
            UintGt => UintLe,
            PtrEq => PtrNe,
            PtrNe => PtrEq,
            _ => return None,
        })
    }

    /// For `call_*`, `call_pure_*` and `call_may_force_*`: the same family
    /// with the result kind `result`.
    pub fn call_with_result(self, result: ResultKind) -> Option<OpCode> {
        use OpCode::*;
        let family = match self {
            CallI | CallR | CallF | CallN => [CallI, CallR, CallF, CallN],
            CallPureI | CallPureR | CallPureF | CallPureN => {
                [CallPureI, CallPureR, CallPureF, CallPureN]
            }
            CallMayForceI | CallMayForceR | CallMayForceF | CallMayForceN => {
                [CallMayForceI, CallMayForceR, CallMayForceF, CallMayForceN]
            }
            _ => return None,
        };
        Some(match result {
            ResultKind::Int => family[0],
            ResultKind::Ref => family[1],
            ResultKind::Float => family[2],
            ResultKind::Void => family[3],
        })
    }
}

impl std::fmt::Display for OpCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for &op in OpCode::ALL {
            assert_eq!(OpCode::from_name(op.name()), Some(op), "{op:?}");
        }
        assert_eq!(OpCode::ALL.len(), OpCode::INFO.len());
    }

    #[test]
    fn signatures_are_well_formed() {
        for &op in OpCode::ALL {
            let args = op.info().args;
            let body = args.trim_end_matches('*');
            assert!(args.len() - body.len() <= 1, "{op}: one '*' at most");
            assert!(body.chars().all(|c| "irfav".contains(c)), "{op}: {args}");
            if body.contains('v') {
                assert!(op.needs_descr(), "{op}: 'v' needs a descr");
            }
            if op.is_call() {
                assert!(op.is_variadic() && body == "i", "{op}");
            }
        }
    }

    #[test]
    fn inverse_guards_are_involutions() {
        for &op in OpCode::ALL {
            if let Some(inv) = op.inverse_guard() {
                assert!(op.is_guard() && inv.is_guard());
                assert_eq!(inv.inverse_guard(), Some(op));
            }
        }
    }

    #[test]
    fn comparison_relations_are_consistent() {
        for &op in OpCode::ALL {
            if let Some(s) = op.swapped_comparison() {
                assert_eq!(s.swapped_comparison(), Some(op));
                assert_eq!(op.result(), ResultKind::Int);
            }
            if let Some(n) = op.negated_comparison() {
                assert_eq!(n.negated_comparison(), Some(op));
                assert!(op.swapped_comparison().is_some());
            }
        }
    }

    #[test]
    fn flags_are_consistent() {
        for &op in OpCode::ALL {
            assert!(!(op.is_always_pure() && op.has_side_effect()), "{op}");
            assert!(!(op.is_guard() && op.result() != ResultKind::Void), "{op}");
            if op.is_ovf() {
                assert!(!op.is_always_pure(), "{op}: sets the overflow flag");
            }
            if let Some(f) = op.call_with_result(ResultKind::Void) {
                for r in [ResultKind::Int, ResultKind::Ref, ResultKind::Float] {
                    assert_eq!(f.call_with_result(r).unwrap().result(), r);
                }
            }
        }
    }
}
