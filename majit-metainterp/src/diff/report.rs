//! Comparing the two sides of a checked entry, and the report of the first
//! divergence.

use super::memory::Reader;
use super::wire::{RefOutcome, Written};
use super::DiffState;
use crate::backend::{CodeId, DeadFrame, ExitId};
use crate::compiled::Compiled;
use majit_ir::text::{op_text, print, ref_text};
use majit_ir::{Kind, Trace, Value};
use std::collections::BTreeMap;
use std::fmt;

/// Native code and the reference executor disagreed on one loop entry.
/// Its `Display` is the full report: the loop, the entry's inputs, the
/// exit each side took, the first differing value and the traces.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// The loop's index in [`Compiled::loops`].
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
    /// The first memory location whose contents differ, when the exits
    /// and values agree.
    pub memory: Option<MemoryDiff>,
    /// The traces the exits are in (the loop first), as text.
    pub traces: String,
}

/// An exit of compiled code, named for a person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitSite {
    /// `loop N` or `bridge N` (indexes of [`Compiled::loops`] and
    /// [`Compiled::bridges`]), or `code N` if the driver does not know it.
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

/// Memory the reference execution stored to holds something else after
/// the native run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryDiff {
    pub addr: usize,
    /// The store's width in bytes.
    pub size: u8,
    /// The op that stored there last on the reference side. Its
    /// `fail_id` is `None`.
    pub stored_by: ExitSite,
    /// The native contents (zero-extended), `None` if not readable.
    pub native: Option<u64>,
    /// The reference contents (zero-extended).
    pub reference: u64,
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
        if let Some(m) = &self.memory {
            let native = m.native.map_or("unreadable".into(), |n| format!("{n:#x}"));
            writeln!(
                f,
                "  memory differs: {} bytes at {:#x}, last stored by {}: native {native}, reference {:#x}",
                m.size, m.addr, m.stored_by, m.reference
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

/// A checked entry: loop `li` of the compiled loops, entered with
/// `inputs`; `moved`: a collection may have moved objects during the
/// native run.
pub(super) struct Entry<'a> {
    pub li: usize,
    pub inputs: &'a [Value],
    pub moved: bool,
}

/// The divergence between `native` and `reference` on `entry`, if any.
/// After a move every ref matches by renaming and memory is not compared.
pub(super) fn compare(
    diff: &DiffState,
    compiled: &Compiled,
    entry: &Entry,
    native: &DeadFrame,
    reference: RefOutcome,
) -> Option<Divergence> {
    let (li, inputs) = (entry.li, entry.inputs);
    let native_site = site(compiled, native.exit, super::fail_id(native));
    let (reference_site, value, memory, reference_code) = match reference {
        RefOutcome::Frame {
            exit,
            fail_id,
            values,
            fresh,
            written,
        } => {
            let code = diff.backend_code(exit.code).unwrap_or(exit.code);
            let exit = ExitId { code, ..exit };
            let same_exit = exit == native.exit && fail_id == super::fail_id(native);
            let mut renaming = Renaming::default();
            let fresh: Vec<bool> = fresh.iter().map(|&f| f || entry.moved).collect();
            let slot = first_difference(&mut renaming, &native.values, &values, &fresh);
            let memory = (same_exit && slot.is_none() && !entry.moved)
                .then(|| first_memory_difference(diff, compiled, &mut renaming, &written))
                .flatten();
            if same_exit && slot.is_none() && memory.is_none() {
                return None;
            }
            let value = slot.filter(|_| same_exit).map(|slot| ValueDiff {
                slot,
                name: value_name(compiled, exit, slot),
                native: native.values.get(slot).copied(),
                reference: values.get(slot).copied(),
            });
            (Ok(site(compiled, exit, fail_id)), value, memory, Some(code))
        }
        RefOutcome::Failed(e) => (Err(e), None, None, None),
        RefOutcome::Inconclusive(_) => return None,
    };
    let root = compiled.loops[li].code;
    let mut codes = vec![root, native.exit.code];
    codes.extend(reference_code);
    codes.extend(memory.as_ref().map(|m| m.code));
    Some(Divergence {
        loop_index: li,
        greens: compiled.loops[li].key.values().to_vec(),
        entry: diff.checked(root),
        inputs: inputs.to_vec(),
        native: native_site,
        reference: reference_site,
        value,
        memory: memory.map(|m| m.diff),
        traces: traces_text(compiled, &codes),
    })
}

/// Addresses of objects the reference execution allocated matched to the
/// native side's: a one-to-one renaming, built as values are compared.
#[derive(Default)]
struct Renaming {
    to_native: BTreeMap<u64, u64>,
    to_reference: BTreeMap<u64, u64>,
}

impl Renaming {
    /// Whether `native` matches `reference`; `fresh`: `reference` is the
    /// address of an object the reference execution allocated.
    fn matches(&mut self, native: u64, reference: u64, fresh: bool) -> bool {
        if !fresh || native == 0 {
            return native == reference;
        }
        *self.to_native.entry(reference).or_insert(native) == native
            && *self.to_reference.entry(native).or_insert(reference) == reference
    }
}

/// The first slot where the values differ (kinds included).
fn first_difference(
    renaming: &mut Renaming,
    native: &[Value],
    reference: &[Value],
    fresh: &[bool],
) -> Option<usize> {
    (0..native.len().max(reference.len())).find(|&slot| {
        let (Some(&n), Some(&r)) = (native.get(slot), reference.get(slot)) else {
            return true;
        };
        let is_fresh = fresh.get(slot) == Some(&true) && r.kind() == Kind::Ref;
        n.kind() != r.kind() || !renaming.matches(n.to_bits(), r.to_bits(), is_fresh)
    })
}

/// A memory difference and the code of the op that stored there.
struct Located {
    diff: MemoryDiff,
    code: CodeId,
}

/// The first location the reference execution wrote whose native contents
/// differ (in address order).
fn first_memory_difference(
    diff: &DiffState,
    compiled: &Compiled,
    renaming: &mut Renaming,
    written: &[Written],
) -> Option<Located> {
    let reader = Reader::new()?;
    written.iter().find_map(|w| {
        let native = reader.read(w.addr, w.size);
        if native.is_some_and(|n| renaming.matches(n, w.bits, w.fresh)) {
            return None;
        }
        let code = diff.backend_code(w.by.code).unwrap_or(w.by.code);
        let by = ExitId { code, ..w.by };
        Some(Located {
            diff: MemoryDiff {
                addr: w.addr,
                size: w.size,
                stored_by: site(compiled, by, None),
                native,
                reference: w.bits,
            },
            code,
        })
    })
}

/// The driver's name for backend code `code` and its trace.
fn trace_name(compiled: &Compiled, code: CodeId) -> (String, Option<&Trace>) {
    match compiled.trace_of(code) {
        Some((name, t)) => (name, Some(t)),
        None => (format!("code {}", code.0), None),
    }
}

fn site(compiled: &Compiled, exit: ExitId, fail_id: Option<u32>) -> ExitSite {
    let (trace, t) = trace_name(compiled, exit.code);
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
fn value_name(compiled: &Compiled, exit: ExitId, slot: usize) -> String {
    let Some((_, t)) = compiled.trace_of(exit.code) else {
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
fn traces_text(compiled: &Compiled, codes: &[CodeId]) -> String {
    let mut out = String::new();
    let mut seen = Vec::new();
    for &c in codes {
        if seen.contains(&c) {
            continue;
        }
        seen.push(c);
        if let Some((name, t)) = compiled.trace_of(c) {
            out += &format!("# {name}\n{}", print(t));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{first_difference, Renaming};
    use majit_ir::Value;

    fn diff(native: &[Value], reference: &[Value], fresh: &[bool]) -> Option<usize> {
        first_difference(&mut Renaming::default(), native, reference, fresh)
    }

    #[test]
    fn fresh_refs_match_by_consistent_renaming_only() {
        let (a, b) = (Value::Ref(0x100), Value::Ref(0x200));
        let (x, y) = (Value::Ref(0x900), Value::Ref(0xa00));
        let fresh = [true, true, false];
        assert_eq!(diff(&[a, a], &[x, x], &fresh), None);
        assert_eq!(diff(&[a, b], &[x, y], &fresh), None);
        assert_eq!(diff(&[a, b], &[x, x], &fresh), Some(1));
        assert_eq!(diff(&[a, a], &[x, y], &fresh), Some(1));
        // A ref the reference side did not allocate must be the same address.
        assert_eq!(diff(&[a, a, a], &[x, x, y], &fresh), Some(2));
        assert_eq!(diff(&[Value::Ref(0)], &[x], &fresh), Some(0));
        assert_eq!(diff(&[Value::Int(3)], &[Value::Int(4)], &fresh), Some(0));
        assert_eq!(diff(&[Value::Int(0x900)], &[x], &fresh), Some(0), "kinds");
        assert_eq!(diff(&[a], &[], &fresh), Some(0));
    }

    #[test]
    fn memory_and_values_share_one_renaming() {
        let mut r = Renaming::default();
        assert!(r.matches(0x100, 0x900, true));
        assert!(r.matches(0x100, 0x900, true));
        assert!(!r.matches(0x200, 0x900, true));
        assert!(!r.matches(0x100, 0xa00, true));
        assert!(r.matches(5, 5, false));
        assert!(!r.matches(5, 6, false));
    }
}
