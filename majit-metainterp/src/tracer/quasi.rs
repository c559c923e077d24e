//! Tracing quasi-immutable fields (see [`crate::quasi`]).
//!
//! A read of a quasi-immutable field from a constant object records no
//! load: the value read becomes a constant, the dependency is registered
//! at once under the trace's validity word (so a write later in the
//! traced iteration already invalidates the trace, which the driver then
//! does not compile), and the trace records `quasiimmut_field` (once per
//! object and field) and `guard_not_invalidated` (unless one was recorded
//! since the last residual call: nothing else can write a field). The
//! guard resumes at the `-live-` marker the builder put before the read,
//! so a failure re-executes the read with the new value.
//!
//! A store to a quasi-immutable field of an object that is not fresh
//! records a call of [`crate::quasi::written_shim`] before the
//! `setfield_gc`, so compiled code invalidates the dependents as the
//! interpreter's setter does.

use super::{FastSet, TBox, Tracer};
use crate::quasi::{self, Validity};
use majit_ir::{Const, Descr, FieldDescr, Op, OpCode, OpRef, Value};
use std::rc::Rc;

/// The tracer's quasi-immutable state.
#[derive(Debug, Default)]
pub(super) struct QuasiState {
    /// A `guard_not_invalidated` was recorded since the last residual call.
    validated: bool,
    /// The (object, offset) pairs with a `quasiimmut_field` in the trace.
    recorded: FastSet<(OpRef, u32)>,
}

impl Tracer<'_> {
    /// Field `fd` (quasi-immutable) of the constant object `obj` holds `v`:
    /// the trace depends on it and continues with `v` as a constant.
    pub(super) fn quasi_read(&mut self, obj: TBox, d: &Descr, fd: &FieldDescr, v: Value) -> TBox {
        let validity: &Rc<Validity> = self.env.validity;
        quasi::depend(obj.v.as_ref().unwrap_or(0), fd.offset, validity);
        if self.quasi.recorded.insert((obj.r, fd.offset)) {
            let marker = Op::new(OpCode::QuasiimmutField, &[obj.r]).with_descr(d.clone());
            self.trace.push(marker);
        }
        if !self.quasi.validated {
            let word = self.const_ref(Const::Ref(validity.address()));
            self.guard(OpCode::GuardNotInvalidated, &[word]);
            self.quasi.validated = true;
        }
        self.konst(v)
    }

    /// Before the `setfield_gc` of quasi-immutable field `fd` of `obj`:
    /// compiled code invalidates its dependents, as the setter does.
    pub(super) fn quasi_write(&mut self, obj: TBox, fd: &FieldDescr) {
        let func = self.const_ref(Const::Int(quasi::written_shim as *const () as usize as i64));
        let offset = self.const_ref(Const::Int(i64::from(fd.offset)));
        let call =
            Op::new(OpCode::CallN, &[func, obj.r, offset]).with_descr(quasi::written_descr());
        self.trace.push(call);
        self.quasi.validated = false;
    }

    /// A residual call was recorded: it may have written a quasi-immutable
    /// field, so the next folded read needs a new guard.
    pub(super) fn quasi_after_call(&mut self) {
        self.quasi.validated = false;
    }
}
