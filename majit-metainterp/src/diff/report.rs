//! Comparing the two sides of a checked entry, and the report of the first
//! divergence.

use super::wire::RefOutcome;
use crate::backend::{Backend, CodeId, DeadFrame, ExitId};
use crate::driver::JitDriver;
use majit_ir::text::{op_text, print, ref_text};
use majit_ir::{Trace, Value};
use std::collections::BTreeMap;
use std::fmt;

/// Native code and the reference executor disagreed on one loop entry.
/// Its `Display` is the full report: the loop, the entry's inputs, the
/// exit each side took, the first differing value and the traces.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// The loop's index in [`JitDriver::loops`].
    pub loop_index: usize,
    /// The loop's greens.
    pub greens: Vec<Value>,
    /// Which checked entry of the loop diverged (1 is the first).
    pub entry: u32,
    /// The loop's inputs (reds) on that entry.
    pub inputs: Vec<Value>,
    /// Where native code left.
    pub native: ExitSite,
    /// Where the reference executor left, or the error it reported.
    pub reference: Result<ExitSite, String>,
    /// The first differing value, when both left through the same exit.
    pub value: Option<ValueDiff>,
    /// The traces the exits are in (the loop first), as text.
    pub traces: String,
}

/// An exit of compiled code, named for a person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitSite {
    /// `loop N` or `bridge N` (indexes of [`JitDriver::loops`] and
    /// [`JitDriver::bridges`]), or `code N` if the driver does not know it.
    pub trace: String,
    /// The exit op's index in that trace.
    pub op_index: u32,
    /// The exit op as trace text.
    pub op: String,
    /// The exit's fail-descr id.
    pub fail_id: Option<u32>,
}

/// The first value of the exit that differs.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueDiff {
    /// Its position among the exit's values (fail args or `finish` args).
    pub slot: usize,
    /// The trace value it holds (`i7`, `p3`, a constant).
    pub name: String,
    pub native: Option<Value>,
    pub reference: Option<Value>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "native code diverged from the reference executor in loop {} \
             (greens {:?}) on checked entry {} with inputs {:?}",
            self.loop_index, self.greens, self.entry, self.inputs
        )?;
        writeln!(f, "  native exit:    {}", self.native)?;
        match &self.reference {
            Ok(site) => writeln!(f, "  reference exit: {site}")?,
            Err(e) => writeln!(f, "  reference executor failed: {e}")?,
        }
        if let Some(v) = &self.value {
            let show = |v: &Option<Value>| v.map_or("(none)".to_string(), |v| format!("{v:?}"));
            writeln!(
                f,
                "  first differing value: slot {} ({}): native {}, reference {}",
                v.slot,
                v.name,
                show(&v.native),
                show(&v.reference)
            )?;
        }
        write!(f, "{}", self.traces)
    }
}

impl fmt::Display for ExitSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} op {}: {}", self.trace, self.op_index, self.op)
    }
}

/// The divergence between `native` and `reference` on an entry of loop
/// `li` with `inputs`, if any.
pub(super) fn compare<B: Backend>(
    jit: &JitDriver<B>,
    li: usize,
    inputs: &[Value],
    native: &DeadFrame,
    reference: RefOutcome,
) -> Option<Divergence> {
    let diff = jit.diff.as_ref()?;
    let native_site = site(jit, native.exit, super::fail_id(native));
    let (reference_site, value, reference_code) = match reference {
        RefOutcome::Frame {
            exit,
            fail_id,
            values,
            fresh,
        } => {
            let code = diff.backend_code(exit.code).unwrap_or(exit.code);
            let exit = ExitId { code, ..exit };
            let same_exit = exit == native.exit && fail_id == super::fail_id(native);
            let slot = first_difference(&native.values, &values, &fresh);
            if same_exit && slot.is_none() {
                return None;
            }
            let value = slot.filter(|_| same_exit).map(|slot| ValueDiff {
                slot,
                name: value_name(jit, exit, slot),
                native: native.values.get(slot).copied(),
                reference: values.get(slot).copied(),
            });
            (Ok(site(jit, exit, fail_id)), value, Some(code))
        }
        RefOutcome::Failed(e) => (Err(e), None, None),
        RefOutcome::Inconclusive(_) => return None,
    };
    let root = jit.loops[li].code;
    let mut codes = vec![root, native.exit.code];
    codes.extend(reference_code);
    Some(Divergence {
        loop_index: li,
        greens: jit.loops[li].key.values().to_vec(),
        entry: diff.checked(root),
        inputs: inputs.to_vec(),
        native: native_site,
        reference: reference_site,
        value,
        traces: traces_text(jit, &codes),
    })
}

/// The first slot where the values differ. Refs to objects the reference
/// execution allocated (`fresh`) match non-null native refs through a
/// consistent one-to-one renaming.
fn first_difference(native: &[Value], reference: &[Value], fresh: &[bool]) -> Option<usize> {
    let (mut to_native, mut to_reference) = (BTreeMap::new(), BTreeMap::new());
    for slot in 0..native.len().max(reference.len()) {
        let (Some(&n), Some(&r)) = (native.get(slot), reference.get(slot)) else {
            return Some(slot);
        };
        let renamed = match (n, r) {
            (Value::Ref(n), Value::Ref(r)) if fresh.get(slot) == Some(&true) && n != 0 => {
                *to_native.entry(r).or_insert(n) == n && *to_reference.entry(n).or_insert(r) == r
            }
            _ => n == r,
        };
        if !renamed {
            return Some(slot);
        }
    }
    None
}

/// The driver's name for backend code `code` and its trace.
fn trace_name<B: Backend>(jit: &JitDriver<B>, code: CodeId) -> (String, Option<&Trace>) {
    if let Some(i) = jit.loops.iter().position(|l| l.code == code) {
        return (format!("loop {i}"), Some(&jit.loops[i].trace));
    }
    if let Some(i) = jit.bridges.iter().position(|b| b.code == code) {
        return (format!("bridge {i}"), Some(&jit.bridges[i].trace));
    }
    (format!("code {}", code.0), None)
}

fn site<B: Backend>(jit: &JitDriver<B>, exit: ExitId, fail_id: Option<u32>) -> ExitSite {
    let (trace, t) = trace_name(jit, exit.code);
    let op = t.map_or_else(
        || "(unknown trace)".to_string(),
        |t| op_text(t, exit.op_index as usize),
    );
    ExitSite {
        trace,
        op_index: exit.op_index,
        op,
        fail_id,
    }
}

/// The trace value in `slot` of the exit op at `exit`.
fn value_name<B: Backend>(jit: &JitDriver<B>, exit: ExitId, slot: usize) -> String {
    let (_, Some(t)) = trace_name(jit, exit.code) else {
        return "?".into();
    };
    let Some(op) = t.ops.get(exit.op_index as usize) else {
        return "?".into();
    };
    let refs = op.fail_args.as_deref().unwrap_or(&op.args);
    refs.get(slot).map_or("?".into(), |&r| ref_text(t, r))
}

/// The text of the traces of `codes` (each once, in order), headed by
/// their names.
fn traces_text<B: Backend>(jit: &JitDriver<B>, codes: &[CodeId]) -> String {
    let mut out = String::new();
    let mut seen = Vec::new();
    for &c in codes {
        if seen.contains(&c) {
            continue;
        }
        seen.push(c);
        if let (name, Some(t)) = trace_name(jit, c) {
            out += &format!("# {name}\n{}", print(t));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::first_difference;
    use majit_ir::Value;

    #[test]
    fn fresh_refs_match_by_consistent_renaming_only() {
        let (a, b) = (Value::Ref(0x100), Value::Ref(0x200));
        let (x, y) = (Value::Ref(0x900), Value::Ref(0xa00));
        let fresh = [true, true, false];
        assert_eq!(first_difference(&[a, a], &[x, x], &fresh), None);
        assert_eq!(first_difference(&[a, b], &[x, y], &fresh), None);
        assert_eq!(first_difference(&[a, b], &[x, x], &fresh), Some(1));
        assert_eq!(first_difference(&[a, a], &[x, y], &fresh), Some(1));
        // A ref the reference side did not allocate must be the same address.
        assert_eq!(first_difference(&[a, a, a], &[x, x, y], &fresh), Some(2));
        assert_eq!(first_difference(&[Value::Ref(0)], &[x], &fresh), Some(0));
        assert_eq!(
            first_difference(&[Value::Int(3)], &[Value::Int(4)], &fresh),
            Some(0)
        );
        assert_eq!(first_difference(&[a], &[], &fresh), Some(0));
    }
}
