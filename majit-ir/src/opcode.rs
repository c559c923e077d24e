//! The one operation table.
//!
//! Every opcode of the trace IR is one line of the `opcodes!` call below,
//! and every per-op fact the crates rely on is a column of that line:
//!
//! | column  | meaning                                                      | read by |
//! |---------|--------------------------------------------------------------|---------|
//! | variant | the Rust name                                                | everyone |
//! | text    | the name in trace text                                       | `text` |
//! | args    | the argument signature (below)                               | verifier, refexec, parser |
//! | result  | the result kind                                              | everyone |
//! | descr   | which descriptor it takes and what for ([`DescrUse`])        | verifier, refexec `prepare` |
//! | gc      | what the GC rewrite does with it ([`GcRole`])                | `gclower`, regalloc, emitters |
//! | lat     | estimated cycles until its result is ready                   | schedulers ([`OpCode::latency`]) |
//! | flags   | pure, guard, side effect, ... ([`flags`])                    | optimizer, scheduler, everyone |
//!
//! `OpCode`, `OpCode::ALL`, `name()`, `from_name()` and the per-op
//! [`OpInfo`] all come from that single list.
//!
//! Adding an opcode (`docs/adding-an-op.md` has the details):
//! 1. one line here (and its relation methods below, if it has a partner);
//! 2. its semantics: `eval.rs` for a value op, else an arm in refexec's
//!    `step` (`majit-metainterp/src/refexec/exec.rs`);
//! 3. one dispatch arm in the backend's shared emission core
//!    (`majit-backend-dynasm/src/emit/`) and one encoder per architecture;
//! 4. its use in `majit-ir/tests/families.rs`, the fuzz generator (or
//!    `NOT_GENERATED` in `tests/fuzz_smoke.rs`) and a backend suite trace.
//!
//! The compiler points at the exhaustive `match`es, the tests at the rest.
//!
//! Argument signatures are strings, one character per argument:
//! `i` int, `r` ref, `f` float, `a` any kind, `v` the kind named by the
//! op's field or array descr (the stored value), and a trailing `*` means
//! "any number of further arguments of any kind" (calls, `label`, `jump`,
//! `finish`, `debug_merge_point`).
//!
//! Relations between columns (a `v` argument needs a field or array
//! descr, a GC allocation can malloc, ...) and between ops (a guard's
//! inverse, a comparison's swap) are checked over `OpCode::ALL` by the
//! tests at the end of this file.

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

/// The descriptor an op takes, and what the descriptor describes for it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DescrUse {
    /// No descriptor.
    Nothing,
    /// A fail descr, or nothing (guards, `finish`).
    OptFail,
    /// A field descr: the field read or written.
    Field,
    /// An array descr: the item at index arg 1 (GC arrays and raw arrays).
    Item,
    /// An array descr: the width and signedness of a raw access at byte
    /// offset arg 1 (`raw_load_*`, `raw_store`).
    Raw,
    /// An array descr: where the length word is (`arraylen_gc`).
    Len,
    /// A size descr: the object allocated.
    Size,
    /// An array descr: the array allocated, of length arg 0.
    NewArray,
    /// A call descr: signature and effects.
    Call,
    /// A target descr: the loop entry a `label` defines and a `jump` enters.
    Target,
}

impl DescrUse {
    /// The sort of descriptor required (as [`crate::Descr::sort`] names
    /// it); `None` when none is required.
    pub fn sort(self) -> Option<&'static str> {
        match self {
            DescrUse::Nothing | DescrUse::OptFail => None,
            DescrUse::Field => Some("field"),
            DescrUse::Item | DescrUse::Raw | DescrUse::Len | DescrUse::NewArray => Some("array"),
            DescrUse::Size => Some("size"),
            DescrUse::Call => Some("call"),
            DescrUse::Target => Some("target"),
        }
    }
}

/// What the GC rewrite (`majit_gc::rewrite`) does with an op.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GcRole {
    /// Nothing: it passes through unchanged (stores of refs gain a write
    /// barrier in front, but stay).
    Plain,
    /// A high-level allocation: the rewrite replaces it by nursery ops, so
    /// a backend with a heap never sees it.
    Alloc,
    /// Produced by the rewrite, with a slow path into the GC (a
    /// collection or a barrier): the emitter needs the live values.
    Slow,
    /// Produced by the rewrite, plain address arithmetic.
    Inline,
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
    /// Overflow-checked arithmetic: must be followed by
    /// `guard_no_overflow` or `guard_overflow`.
    pub const OVF: u16 = 1 << 6;
    /// Ends a trace (`jump`, `finish`).
    pub const FINAL: u16 = 1 << 7;
    /// A call: the first argument is the function address, the effects
    /// come from the `CallDescr`.
    pub const CALL: u16 = 1 << 8;
    /// Reads memory (loads).
    pub const LOAD: u16 = 1 << 9;
    /// Its arguments are carried elsewhere (to a label, an exit, the log),
    /// not computed on: they may be in any location.
    pub const CARRY: u16 = 1 << 10;
    /// Its result is 0 or 1 (a comparison, a test).
    pub const BOOL: u16 = 1 << 11;
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
    /// The descriptor it takes.
    pub descr: DescrUse,
    /// What the GC rewrite does with it.
    pub gc: GcRole,
    /// Estimated cycles until the result is available.
    pub latency: u8,
    /// Bit set of [`flags`].
    pub flags: u16,
}

macro_rules! opcodes {
    ($( $variant:ident $name:literal $args:literal $result:ident $descr:ident $gc:ident
        $latency:literal $flags:expr ;)*) => {
        /// An IR operation. See the module docs for the table it comes from.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum OpCode { $( $variant ),* }

        impl OpCode {
            /// Every opcode, in table order.
            pub const ALL: &'static [OpCode] = &[ $( OpCode::$variant ),* ];
            const INFO: &'static [OpInfo] = &[
                $( OpInfo {
                    name: $name,
                    args: $args,
                    result: ResultKind::$result,
                    descr: DescrUse::$descr,
                    gc: GcRole::$gc,
                    latency: $latency,
                    flags: $flags,
                } ),*
            ];
        }
    };
}

const STORE: u16 = SIDE_EFFECT;
const ALLOC: u16 = CAN_MALLOC;
const CALLS: u16 = CALL | SIDE_EFFECT | CAN_RAISE | CAN_MALLOC;
const CALL_PURE: u16 = CALL | PURE;
const CALL_FORCE: u16 = CALL | SIDE_EFFECT | CAN_RAISE | CAN_MALLOC;

opcodes! {
//  variant                         text                                args    result  descr    gc     lat flags
    // -- integer arithmetic (wrapping) --
    IntAdd                          "int_add"                           "ii"    Int     Nothing  Plain  1   PURE | COMMUTATIVE;
    IntSub                          "int_sub"                           "ii"    Int     Nothing  Plain  1   PURE;
    IntMul                          "int_mul"                           "ii"    Int     Nothing  Plain  3   PURE | COMMUTATIVE;
    IntFloorDiv                     "int_floordiv"                      "ii"    Int     Nothing  Plain  20  PURE;
    IntMod                          "int_mod"                           "ii"    Int     Nothing  Plain  20  PURE;
    IntAnd                          "int_and"                           "ii"    Int     Nothing  Plain  1   PURE | COMMUTATIVE;
    IntOr                           "int_or"                            "ii"    Int     Nothing  Plain  1   PURE | COMMUTATIVE;
    IntXor                          "int_xor"                           "ii"    Int     Nothing  Plain  1   PURE | COMMUTATIVE;
    IntLshift                       "int_lshift"                        "ii"    Int     Nothing  Plain  1   PURE;
    IntRshift                       "int_rshift"                        "ii"    Int     Nothing  Plain  1   PURE;
    UintRshift                      "uint_rshift"                       "ii"    Int     Nothing  Plain  1   PURE;
    UintFloorDiv                    "uint_floordiv"                     "ii"    Int     Nothing  Plain  20  PURE;
    UintMod                         "uint_mod"                          "ii"    Int     Nothing  Plain  20  PURE;
    IntNeg                          "int_neg"                           "i"     Int     Nothing  Plain  1   PURE;
    IntInvert                       "int_invert"                        "i"     Int     Nothing  Plain  1   PURE;
    IntIsZero                       "int_is_zero"                       "i"     Int     Nothing  Plain  1   PURE | BOOL;
    IntIsTrue                       "int_is_true"                       "i"     Int     Nothing  Plain  1   PURE | BOOL;
    // -- overflow-checked arithmetic --
    IntAddOvf                       "int_add_ovf"                       "ii"    Int     Nothing  Plain  1   OVF | COMMUTATIVE;
    IntSubOvf                       "int_sub_ovf"                       "ii"    Int     Nothing  Plain  1   OVF;
    IntMulOvf                       "int_mul_ovf"                       "ii"    Int     Nothing  Plain  3   OVF | COMMUTATIVE;
    // -- integer comparisons (result 0 or 1) --
    IntLt                           "int_lt"                            "ii"    Int     Nothing  Plain  1   PURE | BOOL;
    IntLe                           "int_le"                            "ii"    Int     Nothing  Plain  1   PURE | BOOL;
    IntEq                           "int_eq"                            "ii"    Int     Nothing  Plain  1   PURE | COMMUTATIVE | BOOL;
    IntNe                           "int_ne"                            "ii"    Int     Nothing  Plain  1   PURE | COMMUTATIVE | BOOL;
    IntGt                           "int_gt"                            "ii"    Int     Nothing  Plain  1   PURE | BOOL;
    IntGe                           "int_ge"                            "ii"    Int     Nothing  Plain  1   PURE | BOOL;
    UintLt                          "uint_lt"                           "ii"    Int     Nothing  Plain  1   PURE | BOOL;
    UintLe                          "uint_le"                           "ii"    Int     Nothing  Plain  1   PURE | BOOL;
    UintGt                          "uint_gt"                           "ii"    Int     Nothing  Plain  1   PURE | BOOL;
    UintGe                          "uint_ge"                           "ii"    Int     Nothing  Plain  1   PURE | BOOL;
    // -- floats --
    FloatAdd                        "float_add"                         "ff"    Float   Nothing  Plain  3   PURE | COMMUTATIVE;
    FloatSub                        "float_sub"                         "ff"    Float   Nothing  Plain  3   PURE;
    FloatMul                        "float_mul"                         "ff"    Float   Nothing  Plain  3   PURE | COMMUTATIVE;
    FloatTrueDiv                    "float_truediv"                     "ff"    Float   Nothing  Plain  20  PURE;
    FloatNeg                        "float_neg"                         "f"     Float   Nothing  Plain  1   PURE;
    FloatAbs                        "float_abs"                         "f"     Float   Nothing  Plain  1   PURE;
    FloatSqrt                       "float_sqrt"                        "f"     Float   Nothing  Plain  15  PURE;
    FloatLt                         "float_lt"                          "ff"    Int     Nothing  Plain  1   PURE | BOOL;
    FloatLe                         "float_le"                          "ff"    Int     Nothing  Plain  1   PURE | BOOL;
    FloatEq                         "float_eq"                          "ff"    Int     Nothing  Plain  1   PURE | COMMUTATIVE | BOOL;
    FloatNe                         "float_ne"                          "ff"    Int     Nothing  Plain  1   PURE | COMMUTATIVE | BOOL;
    FloatGt                         "float_gt"                          "ff"    Int     Nothing  Plain  1   PURE | BOOL;
    FloatGe                         "float_ge"                          "ff"    Int     Nothing  Plain  1   PURE | BOOL;
    CastFloatToInt                  "cast_float_to_int"                 "f"     Int     Nothing  Plain  3   PURE;
    CastIntToFloat                  "cast_int_to_float"                 "i"     Float   Nothing  Plain  3   PURE;
    ConvertFloatBytesToLonglong     "convert_float_bytes_to_longlong"   "f"     Int     Nothing  Plain  1   PURE;
    ConvertLonglongBytesToFloat     "convert_longlong_bytes_to_float"   "i"     Float   Nothing  Plain  1   PURE;
    // -- pointers and copies --
    PtrEq                           "ptr_eq"                            "rr"    Int     Nothing  Plain  1   PURE | COMMUTATIVE | BOOL;
    PtrNe                           "ptr_ne"                            "rr"    Int     Nothing  Plain  1   PURE | COMMUTATIVE | BOOL;
    CastPtrToInt                    "cast_ptr_to_int"                   "r"     Int     Nothing  Plain  1   PURE;
    CastIntToPtr                    "cast_int_to_ptr"                   "i"     Ref     Nothing  Plain  1   PURE;
    // A small integer in a ref (`Obj::small_int`): `2v + 1`, odd where objects are
    // aligned. The tracer tags only values that fit in 63 bits (it guards that).
    IntTag                          "int_tag"                           "i"     Ref     Nothing  Plain  1   PURE;
    IntUntag                        "int_untag"                         "r"     Int     Nothing  Plain  1   PURE;
    PtrIsTagged                     "ptr_is_tagged"                     "r"     Int     Nothing  Plain  1   PURE | BOOL;
    // Whether `v` fits in a tagged ref: `2v` does not overflow (one add and a flag).
    IntFitsTag                      "int_fits_tag"                      "i"     Int     Nothing  Plain  1   PURE | BOOL;
    // A small float in a ref (`Obj::small_float`, `crate::flonum`): low bits `10`.
    // The tracer tags only values `float_fits_tag` accepts (it guards that).
    FloatTag                        "float_tag"                         "f"     Ref     Nothing  Plain  3   PURE;
    FloatUntag                      "float_untag"                       "r"     Float   Nothing  Plain  3   PURE;
    PtrIsFloatTagged                "ptr_is_float_tagged"               "r"     Int     Nothing  Plain  1   PURE | BOOL;
    FloatFitsTag                    "float_fits_tag"                    "f"     Int     Nothing  Plain  3   PURE | BOOL;
    SameAsI                         "same_as_i"                         "i"     Int     Nothing  Plain  1   PURE;
    SameAsR                         "same_as_r"                         "r"     Ref     Nothing  Plain  1   PURE;
    SameAsF                         "same_as_f"                         "f"     Float   Nothing  Plain  1   PURE;
    // -- guards --
    GuardTrue                       "guard_true"                        "i"     Void    OptFail  Plain  1   GUARD;
    GuardFalse                      "guard_false"                       "i"     Void    OptFail  Plain  1   GUARD;
    GuardValue                      "guard_value"                       "aa"    Void    OptFail  Plain  1   GUARD;
    GuardClass                      "guard_class"                       "ri"    Void    OptFail  Plain  1   GUARD;
    GuardNonnull                    "guard_nonnull"                     "r"     Void    OptFail  Plain  1   GUARD;
    GuardIsnull                     "guard_isnull"                      "r"     Void    OptFail  Plain  1   GUARD;
    GuardNonnullClass               "guard_nonnull_class"               "ri"    Void    OptFail  Plain  1   GUARD;
    GuardNoException                "guard_no_exception"                ""      Void    OptFail  Plain  1   GUARD;
    GuardException                  "guard_exception"                   ""      Void    OptFail  Plain  1   GUARD;
    GuardNotInvalidated             "guard_not_invalidated"             "r"     Void    OptFail  Plain  1   GUARD;
    GuardNoOverflow                 "guard_no_overflow"                 ""      Void    OptFail  Plain  1   GUARD;
    GuardOverflow                   "guard_overflow"                    ""      Void    OptFail  Plain  1   GUARD;
    GuardNotForced                  "guard_not_forced"                  ""      Void    OptFail  Plain  1   GUARD;
    // -- the pending exception (after guard_exception): take it --
    SaveExceptionI                  "save_exception_i"                  ""      Int     Nothing  Plain  1   SIDE_EFFECT;
    SaveExceptionR                  "save_exception_r"                  ""      Ref     Nothing  Plain  1   SIDE_EFFECT;
    // -- GC memory: fields, arrays --
    GetfieldGcI                     "getfield_gc_i"                     "r"     Int     Field    Plain  4   LOAD;
    GetfieldGcR                     "getfield_gc_r"                     "r"     Ref     Field    Plain  4   LOAD;
    GetfieldGcF                     "getfield_gc_f"                     "r"     Float   Field    Plain  4   LOAD;
    SetfieldGc                      "setfield_gc"                       "rv"    Void    Field    Plain  1   STORE;
    QuasiimmutField                 "quasiimmut_field"                  "r"     Void    Field    Plain  1   0;
    GetarrayitemGcI                 "getarrayitem_gc_i"                 "ri"    Int     Item     Plain  4   LOAD;
    GetarrayitemGcR                 "getarrayitem_gc_r"                 "ri"    Ref     Item     Plain  4   LOAD;
    GetarrayitemGcF                 "getarrayitem_gc_f"                 "ri"    Float   Item     Plain  4   LOAD;
    SetarrayitemGc                  "setarrayitem_gc"                   "riv"   Void    Item     Plain  1   STORE;
    ArraylenGc                      "arraylen_gc"                       "r"     Int     Len      Plain  1   PURE;
    // -- raw memory (addresses are ints) --
    GetfieldRawI                    "getfield_raw_i"                    "i"     Int     Field    Plain  4   LOAD;
    GetfieldRawF                    "getfield_raw_f"                    "i"     Float   Field    Plain  4   LOAD;
    SetfieldRaw                     "setfield_raw"                      "iv"    Void    Field    Plain  1   STORE;
    GetarrayitemRawI                "getarrayitem_raw_i"                "ii"    Int     Item     Plain  4   LOAD;
    GetarrayitemRawF                "getarrayitem_raw_f"                "ii"    Float   Item     Plain  4   LOAD;
    SetarrayitemRaw                 "setarrayitem_raw"                  "iiv"   Void    Item     Plain  1   STORE;
    RawLoadI                        "raw_load_i"                        "ii"    Int     Raw      Plain  4   LOAD;
    RawLoadF                        "raw_load_f"                        "ii"    Float   Raw      Plain  4   LOAD;
    RawStore                        "raw_store"                         "iiv"   Void    Raw      Plain  1   STORE;
    // -- allocation: high-level forms (optimizer) --
    New                             "new"                               ""      Ref     Size     Alloc  1   ALLOC;
    NewWithVtable                   "new_with_vtable"                   ""      Ref     Size     Alloc  1   ALLOC;
    NewArray                        "new_array"                         "i"     Ref     NewArray Alloc  1   ALLOC;
    NewArrayClear                   "new_array_clear"                   "i"     Ref     NewArray Alloc  1   ALLOC;
    // -- allocation: lowered forms (GC rewrite -> backend) --
    CallMallocNursery               "call_malloc_nursery"               "i"     Ref     Nothing  Slow   1   CAN_MALLOC;
    CallMallocNurseryHeaderless     "call_malloc_nursery_headerless"    "i"     Ref     Size     Slow   1   ALLOC;
    CallMallocNurseryVarsize        "call_malloc_nursery_varsize"       "i"     Ref     NewArray Slow   1   ALLOC;
    NurseryPtrIncrement             "nursery_ptr_increment"             "ri"    Ref     Nothing  Inline 1   PURE;
    CondCallGcWb                    "cond_call_gc_wb"                   "r"     Void    Nothing  Slow   1   SIDE_EFFECT;
    CondCallGcWbArray               "cond_call_gc_wb_array"             "ri"    Void    Nothing  Slow   1   SIDE_EFFECT;
    // a loop's back edge after calls, which allocate without collecting
    // (the mutator's helpers): collects when the heap asked for it
    CondCallGcCollect               "cond_call_gc_collect"              ""      Void    Nothing  Slow   1   SIDE_EFFECT | CAN_MALLOC;
    // -- calls: arg 0 is the function address --
    CallI                           "call_i"                            "i*"    Int     Call     Plain  1   CALLS;
    CallR                           "call_r"                            "i*"    Ref     Call     Plain  1   CALLS;
    CallF                           "call_f"                            "i*"    Float   Call     Plain  1   CALLS;
    CallN                           "call_n"                            "i*"    Void    Call     Plain  1   CALLS;
    CallPureI                       "call_pure_i"                       "i*"    Int     Call     Plain  1   CALL_PURE;
    CallPureR                       "call_pure_r"                       "i*"    Ref     Call     Plain  1   CALL_PURE;
    CallPureF                       "call_pure_f"                       "i*"    Float   Call     Plain  1   CALL_PURE;
    CallPureN                       "call_pure_n"                       "i*"    Void    Call     Plain  1   CALL_PURE;
    CallMayForceI                   "call_may_force_i"                  "i*"    Int     Call     Plain  1   CALL_FORCE;
    CallMayForceR                   "call_may_force_r"                  "i*"    Ref     Call     Plain  1   CALL_FORCE;
    CallMayForceF                   "call_may_force_f"                  "i*"    Float   Call     Plain  1   CALL_FORCE;
    CallMayForceN                   "call_may_force_n"                  "i*"    Void    Call     Plain  1   CALL_FORCE;
    // arg 1 is the callee's token (its entry greens): a call of the
    // interpreted program that enters the callee's compiled entry trace
    // through the runner (RPython's call_assembler; docs/backend.md)
    CallAssemblerI                  "call_assembler_i"                  "ii*"   Int     Call     Plain  1   CALL_FORCE;
    CallAssemblerR                  "call_assembler_r"                  "ii*"   Ref     Call     Plain  1   CALL_FORCE;
    CallAssemblerF                  "call_assembler_f"                  "ii*"   Float   Call     Plain  1   CALL_FORCE;
    CallAssemblerN                  "call_assembler_n"                  "ii*"   Void    Call     Plain  1   CALL_FORCE;
    // -- control --
    Label                           "label"                             "*"     Void    Target   Plain  1   CARRY;
    Jump                            "jump"                              "*"     Void    Target   Plain  1   FINAL | CARRY;
    Finish                          "finish"                            "*"     Void    OptFail  Plain  1   FINAL | CARRY;
    DebugMergePoint                 "debug_merge_point"                 "*"     Void    Nothing  Plain  1   CARRY;
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
    /// Whether the result is always 0 or 1.
    pub fn is_boolean(self) -> bool {
        self.has(BOOL)
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
    /// Its arguments are carried elsewhere, not computed on ([`flags::CARRY`]).
    pub fn carries_args(self) -> bool {
        self.has(CARRY)
    }
    /// The descriptor it takes.
    pub fn descr_use(self) -> DescrUse {
        self.info().descr
    }
    /// A descriptor is required.
    pub fn needs_descr(self) -> bool {
        self.descr_use().sort().is_some()
    }
    /// A descriptor is allowed (required or optional).
    pub fn allows_descr(self) -> bool {
        self.descr_use() != DescrUse::Nothing
    }
    /// What the GC rewrite does with it.
    pub fn gc_role(self) -> GcRole {
        self.info().gc
    }
    /// A high-level allocation (`new*`), which the GC rewrite lowers.
    pub fn is_allocation(self) -> bool {
        self.gc_role() == GcRole::Alloc
    }
    /// Only the GC rewrite produces it: a trace holding one is lowered.
    pub fn is_gc_lowered(self) -> bool {
        matches!(self.gc_role(), GcRole::Slow | GcRole::Inline)
    }
    /// A load, store or length read of a GC object (arg 0).
    pub fn accesses_gc_object(self) -> bool {
        let memory = matches!(
            self.descr_use(),
            DescrUse::Field | DescrUse::Item | DescrUse::Len
        );
        memory && self.info().args.starts_with('r')
    }
    /// Estimated cycles until the result is available: what a scheduler
    /// can use to start long operations early. Machine-independent.
    pub fn latency(self) -> u32 {
        u32::from(self.info().latency)
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

    /// `call_assembler_*`: a call of the portal runner with the callee's
    /// token, entering its compiled code.
    pub fn is_call_assembler(self) -> bool {
        use OpCode::*;
        matches!(
            self,
            CallAssemblerI | CallAssemblerR | CallAssemblerF | CallAssemblerN
        )
    }

    /// For `call_*`, `call_pure_*`, `call_may_force_*` and `call_assembler_*`:
    /// the same family
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
            CallAssemblerI | CallAssemblerR | CallAssemblerF | CallAssemblerN => [
                CallAssemblerI,
                CallAssemblerR,
                CallAssemblerF,
                CallAssemblerN,
            ],
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
                // call_assembler_*: the function, then the token
                let fixed = if op.is_call_assembler() { "ii" } else { "i" };
                assert!(op.is_variadic() && body == fixed, "{op}");
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
                assert!(op.is_boolean(), "{op}: a comparison is 0 or 1");
            }
            if op.is_boolean() {
                assert_eq!(op.result(), ResultKind::Int, "{op}");
                assert!(op.is_always_pure(), "{op}");
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

    #[test]
    fn descr_column_agrees_with_the_flags() {
        for &op in OpCode::ALL {
            let d = op.descr_use();
            assert_eq!(op.is_call(), d == DescrUse::Call, "{op}");
            if op.is_guard() {
                assert_eq!(d, DescrUse::OptFail, "{op}");
            }
            if d == DescrUse::OptFail {
                assert!(op.is_guard() || op == OpCode::Finish, "{op}");
            }
            if d == DescrUse::Target {
                assert!(op.carries_args(), "{op}");
            }
            if op.is_load() || op.info().args.contains('v') {
                let memory = [DescrUse::Field, DescrUse::Item, DescrUse::Raw];
                assert!(memory.contains(&d), "{op}: {d:?}");
            }
            if matches!(d, DescrUse::Size | DescrUse::NewArray) {
                assert!(op.can_malloc() && op.result() == ResultKind::Ref, "{op}");
            }
        }
    }

    #[test]
    fn gc_column_agrees_with_the_flags() {
        for &op in OpCode::ALL {
            match op.gc_role() {
                GcRole::Plain => {}
                GcRole::Alloc => {
                    assert!(op.can_malloc() && op.result() == ResultKind::Ref, "{op}");
                    assert!(!op.is_gc_lowered(), "{op}");
                }
                GcRole::Slow => assert!(op.can_malloc() || op.has_side_effect(), "{op}"),
                GcRole::Inline => assert!(op.is_always_pure(), "{op}"),
            }
            // Every other op that can allocate is a call (the GC sees its
            // effects through the call descr).
            if op.can_malloc() && op.gc_role() == GcRole::Plain {
                assert!(op.is_call(), "{op}");
            }
        }
    }

    #[test]
    fn latencies_rank_long_operations_first() {
        use OpCode::*;
        for &op in OpCode::ALL {
            assert!(op.latency() >= 1, "{op}");
            if op.is_load() {
                assert!(op.latency() > IntAdd.latency(), "{op}");
            }
        }
        assert!(IntFloorDiv.latency() > IntMul.latency());
        assert!(IntMul.latency() > IntAdd.latency());
        assert_eq!(IntMulOvf.latency(), IntMul.latency());
    }

    #[test]
    fn carried_args_are_the_variadic_non_calls() {
        for &op in OpCode::ALL {
            assert_eq!(op.carries_args(), op.is_variadic() && !op.is_call(), "{op}");
        }
    }
}
