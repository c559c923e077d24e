//! The trace verifier: [`verify`] checks the rules every pass and backend
//! relies on, and reports every violation, not just the first.
//!
//! One walk over the ops. For each op it checks, in order: references
//! (in range, defined earlier, not a void op's result) for args and fail
//! args; arity; the descriptor (presence and sort, from the op table's
//! `descr` column); argument kinds against the signature (`v` is the
//! kind of the field/array descr; `guard_value`'s two args agree; call args
//! and result against the `CallDescr`; load results against their descr);
//! fail args on guards only; overflow pairing (`*_ovf` immediately followed
//! by `guard_no_overflow`/`guard_overflow`, and those guards only there);
//! exception pairing (`guard_exception` immediately followed by
//! `save_exception_*`, which comes only there: a pending ref exception is
//! no GC root, so nothing may allocate before it is taken);
//! that nothing follows a final op; that no class guard reads a headerless
//! allocation directly. Then trace-wide rules: the last op is final, one
//! `label` per target, each `jump` to a label of this trace matches its
//! arguments, and descriptor names are printable and unique by content.
//!
//! Invariant: `verify` never panics, whatever the trace holds, so it can
//! check traces built by fuzzers and user code.

use crate::descr::{CallDescr, Descr};
use crate::error::{VerifyError, VerifyErrorKind as E, VerifyErrors};
use crate::op::{Op, OpRef, RefTarget};
use crate::opcode::{DescrUse, Kind, OpCode};
use crate::text::{is_name, op_text, result_name};
use crate::trace::Trace;
use std::collections::BTreeMap;

/// Checks `trace` against the IR rules (see the module docs).
///
/// ```
/// use majit_ir::{parse, verify};
/// let ok = parse("[i0]\ni1 = int_add(i0, 1)\nfinish(i1)").unwrap();
/// assert!(verify(&ok).is_ok());
/// let bad = parse("[i0]\ni1 = int_add(i0, i2)\ni2 = int_neg(i0)\nfinish(i1)").unwrap();
/// let errors = verify(&bad).unwrap_err();
/// assert_eq!(errors.0.len(), 1);
/// assert!(errors.to_string().contains("before it is defined"));
/// ```
pub fn verify(trace: &Trace) -> Result<(), VerifyErrors> {
    let mut v = Verifier {
        trace,
        errors: Vec::new(),
    };
    let mut names: BTreeMap<&str, &Descr> = BTreeMap::new();
    for (i, op) in trace.ops.iter().enumerate() {
        v.check_refs(i, op);
        v.check_arity(i, op);
        v.check_descr(i, op, &mut names);
        v.check_kinds(i, op);
        v.check_fail_args(i, op);
        v.check_overflow(i, op);
        v.check_exception(i, op);
        v.check_headerless_class(i, op);
        if op.opcode.is_final() && i + 1 < trace.ops.len() {
            v.error(i, E::Final, format!("`{}` must be the last op", op.opcode));
        }
    }
    v.check_end();
    v.check_labels();
    if v.errors.is_empty() {
        Ok(())
    } else {
        v.errors.sort_by_key(|e| e.index);
        Err(VerifyErrors(v.errors))
    }
}

struct Verifier<'t> {
    trace: &'t Trace,
    errors: Vec<VerifyError>,
}

/// The kind of values a field or array descr stores, if `d` is one.
fn stored_kind(d: Option<&Descr>) -> Option<Kind> {
    match d? {
        Descr::Field(f) => Some(f.kind),
        Descr::Array(a) => Some(a.kind),
        _ => None,
    }
}

impl Verifier<'_> {
    fn error(&mut self, index: usize, kind: E, message: String) {
        self.errors.push(VerifyError {
            index,
            op: op_text(self.trace, index),
            kind,
            message,
        });
    }

    fn check_refs(&mut self, i: usize, op: &Op) {
        for (a, &r) in op.args.iter().enumerate() {
            self.check_ref(i, r, &format!("arg {a}"));
        }
        for (a, &r) in op.fail_args.iter().flatten().enumerate() {
            self.check_ref(i, r, &format!("fail arg {a}"));
        }
    }

    fn check_ref(&mut self, i: usize, r: OpRef, what: &str) {
        let t = self.trace;
        let problem = match r.target() {
            RefTarget::Input(n) if n >= t.inputs.len() => {
                format!(
                    "{what} names input {n}, but the trace has {}",
                    t.inputs.len()
                )
            }
            RefTarget::Const(n) if n >= t.consts().len() => {
                format!("{what} names constant {n}, which does not exist")
            }
            RefTarget::Op(n) if n >= t.ops.len() => {
                format!("{what} names op {n}, which does not exist")
            }
            RefTarget::Op(n) if n >= i => {
                let msg = format!("{what} uses op {n} before it is defined");
                return self.error(i, E::UseBeforeDef, msg);
            }
            RefTarget::Op(n) if t.ops[n].opcode.result().kind().is_none() => {
                format!(
                    "{what} names op {n} (`{}`), which has no result",
                    t.ops[n].opcode
                )
            }
            _ => return,
        };
        self.error(i, E::BadRef, problem);
    }

    fn check_arity(&mut self, i: usize, op: &Op) {
        let (want, got) = (op.opcode.arity(), op.args.len());
        if got < want || (got > want && !op.opcode.is_variadic()) {
            let more = if op.opcode.is_variadic() {
                "at least "
            } else {
                ""
            };
            let msg = format!("`{}` takes {more}{want} args, got {got}", op.opcode);
            self.error(i, E::Arity, msg);
        }
    }

    fn check_descr<'t>(&mut self, i: usize, op: &'t Op, names: &mut BTreeMap<&'t str, &'t Descr>) {
        let name = op.opcode.name();
        let need = op.opcode.descr_use();
        match (need, need.sort(), &op.descr) {
            (DescrUse::Nothing, _, Some(d)) => {
                self.error(i, E::Descr, format!("`{name}` takes no descr, got `{d}`"))
            }
            (DescrUse::OptFail, _, Some(d)) if d.as_fail().is_none() => {
                let msg = format!("`{name}` takes a fail descr, got {} descr `{d}`", d.sort());
                self.error(i, E::Descr, msg)
            }
            (_, Some(s), None) => self.error(i, E::Descr, format!("`{name}` needs a {s} descr")),
            (_, Some(s), Some(d)) if d.sort() != s => {
                let msg = format!("`{name}` needs a {s} descr, got {} descr `{d}`", d.sort());
                self.error(i, E::Descr, msg)
            }
            _ => {}
        }
        if let Some(d) = &op.descr {
            self.check_descr_name(i, d, names);
        }
    }

    fn check_descr_name<'t>(
        &mut self,
        i: usize,
        d: &'t Descr,
        names: &mut BTreeMap<&'t str, &'t Descr>,
    ) {
        match names.get(d.name()) {
            Some(&seen) if seen != d => {
                let msg = format!("two different descrs are named `{d}`");
                return self.error(i, E::DescrName, msg);
            }
            Some(_) => return,
            None => {
                names.insert(d.name(), d);
            }
        }
        let inner: Vec<&str> = match d {
            Descr::Size(s) => s.fields.iter().map(String::as_str).collect(),
            Descr::Field(f) => vec![f.owner.as_str()],
            Descr::Call(c) => c
                .effect
                .reads
                .iter()
                .chain(&c.effect.writes)
                .map(String::as_str)
                .collect(),
            _ => Vec::new(),
        };
        for n in std::iter::once(d.name()).chain(inner) {
            if !is_name(n) {
                let msg = format!("descr `{d}` mentions `{n}`, which is not a printable name");
                self.error(i, E::DescrName, msg);
            }
        }
    }

    fn kind_of(&self, r: OpRef) -> Option<Kind> {
        self.trace.kind_of(r)
    }

    fn check_kinds(&mut self, i: usize, op: &Op) {
        let sig = op.opcode.info().args.trim_end_matches('*');
        let stored = stored_kind(op.descr.as_ref());
        for (a, (c, &r)) in sig.chars().zip(&op.args).enumerate() {
            let want = match c {
                'i' => Some(Kind::Int),
                'r' => Some(Kind::Ref),
                'f' => Some(Kind::Float),
                'v' => stored,
                _ => None,
            };
            self.expect_kind(i, a, r, want);
        }
        if op.opcode == OpCode::GuardValue && op.args.len() == 2 {
            let (x, y) = (self.kind_of(op.args[0]), self.kind_of(op.args[1]));
            if let (Some(x), Some(y)) = (x, y) {
                if x != y {
                    let msg = format!("guard_value compares a {} with a {}", x.name(), y.name());
                    self.error(i, E::ArgKind, msg);
                }
            }
        }
        if op.opcode.is_load() {
            if let (Some(k), Some(r)) = (stored, op.opcode.result().kind()) {
                if k != r {
                    let msg = format!(
                        "`{}` loads a {} but its descr holds {}",
                        op.opcode,
                        r.name(),
                        k.name()
                    );
                    self.error(i, E::ResultKind, msg);
                }
            }
        }
        if op.opcode.is_call() {
            self.check_call(i, op);
        }
    }

    fn expect_kind(&mut self, i: usize, a: usize, r: OpRef, want: Option<Kind>) {
        if let (Some(want), Some(got)) = (want, self.kind_of(r)) {
            if want != got {
                let msg = format!("arg {a} is {}, expected {}", got.name(), want.name());
                self.error(i, E::ArgKind, msg);
            }
        }
    }

    fn check_call(&mut self, i: usize, op: &Op) {
        let Some(c) = op.descr.as_ref().and_then(Descr::as_call) else {
            return;
        };
        let passed = op.args.len().saturating_sub(1);
        if passed != c.args.len() {
            let msg = format!(
                "call descr `{}` takes {} args, got {passed}",
                c.name,
                c.args.len()
            );
            self.error(i, E::Arity, msg);
        }
        for (a, (&want, &r)) in c.args.iter().zip(op.args.iter().skip(1)).enumerate() {
            self.expect_kind(i, a + 1, r, Some(want));
        }
        if op.opcode.is_call_assembler() {
            self.check_call_assembler(i, op, c);
        }
        if c.result != op.opcode.result() {
            let msg = format!(
                "`{}` returns {}, call descr `{}` returns {}",
                op.opcode,
                result_name(op.opcode.result().kind()),
                c.name,
                result_name(c.result.kind())
            );
            self.error(i, E::ResultKind, msg);
        }
    }

    /// A `call_assembler_*` enters compiled code that reads and writes the
    /// virtualizable frame, so its descr is `may_force`; its token (arg 1)
    /// names the callee, so it is a constant.
    fn check_call_assembler(&mut self, i: usize, op: &Op, c: &CallDescr) {
        if !c.effect.may_force {
            let msg = format!(
                "`{}` needs a may_force call descr, not `{}`",
                op.opcode, c.name
            );
            self.error(i, E::Descr, msg);
        }
        if !op.args.get(1).is_some_and(|t| t.is_const()) {
            let msg = format!("`{}` takes a constant token as arg 1", op.opcode);
            self.error(i, E::ArgKind, msg);
        }
    }

    fn check_fail_args(&mut self, i: usize, op: &Op) {
        match (op.opcode.is_guard(), &op.fail_args) {
            (true, None) => self.error(
                i,
                E::FailArgs,
                "a guard needs fail args (maybe empty)".into(),
            ),
            (false, Some(_)) => {
                let msg = format!("`{}` is not a guard and takes no fail args", op.opcode);
                self.error(i, E::FailArgs, msg)
            }
            _ => {}
        }
    }

    fn check_overflow(&mut self, i: usize, op: &Op) {
        let ops = &self.trace.ops;
        let is_ovf_guard =
            |o: &Op| matches!(o.opcode, OpCode::GuardNoOverflow | OpCode::GuardOverflow);
        if op.opcode.is_ovf() && !ops.get(i + 1).is_some_and(is_ovf_guard) {
            let msg = format!(
                "`{}` must be followed by guard_no_overflow or guard_overflow",
                op.opcode
            );
            self.error(i, E::Overflow, msg);
        }
        if is_ovf_guard(op) && !(i > 0 && ops[i - 1].opcode.is_ovf()) {
            let msg = format!("`{}` must directly follow an *_ovf op", op.opcode);
            self.error(i, E::Overflow, msg);
        }
    }

    fn check_exception(&mut self, i: usize, op: &Op) {
        let ops = &self.trace.ops;
        let is_save = |o: &Op| matches!(o.opcode, OpCode::SaveExceptionI | OpCode::SaveExceptionR);
        if op.opcode == OpCode::GuardException && !ops.get(i + 1).is_some_and(is_save) {
            let msg = "`guard_exception` must be followed by save_exception_i or save_exception_r";
            self.error(i, E::Exception, msg.into());
        }
        if is_save(op) && !(i > 0 && ops[i - 1].opcode == OpCode::GuardException) {
            let msg = format!("`{}` must directly follow guard_exception", op.opcode);
            self.error(i, E::Exception, msg);
        }
    }

    fn check_headerless_class(&mut self, i: usize, op: &Op) {
        if !matches!(op.opcode, OpCode::GuardClass | OpCode::GuardNonnullClass) {
            return;
        }
        let Some(def) = op.args.first().and_then(|&r| self.trace.def(r)) else {
            return;
        };
        let headerless = match def.opcode {
            OpCode::CallMallocNurseryHeaderless => true,
            OpCode::New | OpCode::NewWithVtable => def
                .descr
                .as_ref()
                .and_then(Descr::as_size)
                .is_some_and(|s| s.headerless),
            _ => false,
        };
        if headerless {
            let msg = format!("`{}` on a headerless object, which has no class", op.opcode);
            self.error(i, E::HeaderlessClass, msg);
        }
    }

    fn check_end(&mut self) {
        match self.trace.ops.last() {
            None => self.error(
                0,
                E::Final,
                "the trace is empty; it must end with jump or finish".into(),
            ),
            Some(op) if !op.opcode.is_final() => {
                let last = self.trace.ops.len() - 1;
                let msg = format!("the trace ends with `{}`, not jump or finish", op.opcode);
                self.error(last, E::Final, msg);
            }
            Some(_) => {}
        }
    }

    fn check_labels(&mut self) {
        let mut labels: Vec<(usize, &Descr)> = Vec::new();
        for (i, op) in self.trace.ops.iter().enumerate() {
            if op.opcode != OpCode::Label {
                continue;
            }
            let Some(d) = &op.descr else { continue };
            if let Some(&(first, _)) = labels.iter().find(|(_, e)| *e == d) {
                let msg = format!("a second label for target `{d}` (first is op {first})");
                self.error(i, E::DuplicateLabel, msg);
            } else {
                labels.push((i, d));
            }
        }
        for (i, op) in self.trace.ops.iter().enumerate() {
            if op.opcode != OpCode::Jump {
                continue;
            }
            let label = labels.iter().find(|(_, d)| Some(*d) == op.descr.as_ref());
            if let Some(&(l, _)) = label {
                self.check_jump(i, op, l);
            }
        }
    }

    fn check_jump(&mut self, i: usize, jump: &Op, l: usize) {
        let label = &self.trace.ops[l];
        if jump.args.len() != label.args.len() {
            let msg = format!(
                "jump passes {} args, its label (op {l}) takes {}",
                jump.args.len(),
                label.args.len()
            );
            return self.error(i, E::JumpLabel, msg);
        }
        for (a, (&j, &t)) in jump.args.iter().zip(&label.args).enumerate() {
            if let (Some(x), Some(y)) = (self.kind_of(j), self.kind_of(t)) {
                if x != y {
                    let msg = format!(
                        "jump arg {a} is {}, label (op {l}) arg {a} is {}",
                        x.name(),
                        y.name()
                    );
                    self.error(i, E::JumpLabel, msg);
                }
            }
        }
    }
}
