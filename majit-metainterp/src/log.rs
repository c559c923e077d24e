//! The `MAJIT_LOG` report: for every compiled loop and bridge, the trace
//! as recorded and as optimized, the optimizer's ledger, each guard's
//! resume data, and the machine code with its disassembly and pool.
//!
//! The driver opens the file when it is created ([`LogFile::from_env`]: a
//! path that cannot be opened is an error of `JitDriver::new` before
//! anything runs) and writes the report once, when it is dropped (compiled
//! code and resume data are final then; a bridge attached later changes
//! its guard's listing). It is deterministic: the same program and parameters give the
//! same file in every process. Run-dependent values never appear as
//! numbers: absolute addresses are printed as `<name>`: trace constants
//! that are addresses (refs as `<ptrN>`, numbered by first appearance;
//! call targets as `<fn:DESCR>`; vtables as `<vtable:LAYOUT>`), and the
//! backend's own addresses by the names it gives them (`<exit_routine>`,
//! `<Loop0>`, `<code2+0x40>`). Times are not in the log (`MAJIT_STATS`
//! prints them).

use crate::backend::{Backend, CodeId, MachineCode};
use crate::compiled::{Compiled, GuardInfo};
use crate::driver::JitError;
use crate::opt::ledger::Ledger;
use crate::stats::DontInline;
use crate::tracer::{SnapValue, Snapshot};
use majit_ir::{Const, Descr, Trace, Value};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Values below this are never taken for addresses (the first page and
/// small integers).
const MIN_ADDRESS: u64 = 0x10000;

/// A value this close above a known address is taken as that address plus
/// an offset (a field of an object, a raw base plus a displacement).
const MAX_OFFSET: u64 = 0x1000;

/// The addresses a log knows, with the names it prints for them.
#[derive(Clone, Debug, Default)]
pub struct AddressNames {
    names: BTreeMap<u64, String>,
    refs: u32,
}

impl AddressNames {
    /// No names yet.
    pub fn new() -> AddressNames {
        AddressNames::default()
    }

    /// The name of address `v`, if known: `ptr1`, or `ptr1+0x10` for a
    /// value less than 4 KiB above a known address.
    pub fn name(&self, v: u64) -> Option<String> {
        let (&a, name) = self.names.range(..=v).next_back()?;
        match v - a {
            0 => Some(name.clone()),
            off if off < MAX_OFFSET => Some(format!("{name}+{off:#x}")),
            _ => None,
        }
    }

    fn add(&mut self, v: u64, name: impl FnOnce(&mut Self) -> String) {
        if v >= MIN_ADDRESS && !self.names.contains_key(&v) {
            let n = name(self);
            let taken = |n: &String| self.names.values().any(|m| m == n);
            let unique = (1..)
                .map(|k| {
                    if k == 1 {
                        n.clone()
                    } else {
                        format!("{n}#{k}")
                    }
                })
                .find(|m| !taken(m))
                .unwrap_or(n);
            self.names.insert(v, unique);
        }
    }

    fn add_ref(&mut self, v: u64) {
        self.add(v, |s| {
            s.refs += 1;
            format!("ptr{}", s.refs)
        });
    }

    /// Learns a value: a ref is an address.
    pub fn learn_value(&mut self, v: Value) {
        if let Value::Ref(a) = v {
            self.add_ref(a as u64);
        }
    }

    /// Learns the addresses among `trace`'s constants, in op order: ref
    /// constants, the function of each call with a constant target, and
    /// the vtables of its layouts.
    pub fn learn_trace(&mut self, trace: &Trace) {
        for op in &trace.ops {
            let target = op.args.first().and_then(|&a| trace.get_const(a));
            if let (true, Some(Const::Int(f)), Some(Descr::Call(c))) =
                (op.opcode.is_call(), target, &op.descr)
            {
                self.add(f as u64, |_| format!("fn:{}", c.name));
            }
            for &a in op.args.iter().chain(op.fail_args.iter().flatten()) {
                if let Some(Const::Ref(r)) = trace.get_const(a) {
                    self.add_ref(r as u64);
                }
            }
            if let Some(Descr::Size(s)) = &op.descr {
                if let Some(vt) = s.vtable {
                    self.add(vt, |_| format!("vtable:{}", s.name));
                }
            }
        }
    }

    /// `text` with every number (decimal or `0x` hex, not part of a word)
    /// that is a known address replaced by `<name>`.
    pub fn mask(&self, text: &str) -> String {
        let bytes = text.as_bytes();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut out = String::with_capacity(text.len());
        let (mut i, mut copied) = (0, 0);
        while i < bytes.len() {
            let starts = bytes[i].is_ascii_digit() && (i == 0 || !word(bytes[i - 1]));
            if !starts {
                i += 1;
                continue;
            }
            let end = (i..bytes.len())
                .find(|&j| !word(bytes[j]))
                .unwrap_or(bytes.len());
            let token = &text[i..end];
            let value = match token.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => token.parse::<u64>().ok(),
            };
            if let Some(name) = value.and_then(|v| self.name(v)) {
                out.push_str(&text[copied..i]);
                let _ = write!(out, "<{name}>");
                copied = end;
            }
            i = end;
        }
        out.push_str(&text[copied..]);
        out
    }
}

/// The `MAJIT_LOG` text for everything a driver `compiled` with `backend`
/// (see the module docs; what
/// [`JitDriver::log`](crate::driver::JitDriver::log) writes).
///
/// ```
/// use majit_metainterp::{compiled::Compiled, log, refexec::RefExec};
/// let text = log::render(&RefExec::new(), &Compiled::default());
/// assert!(text.starts_with("# majit log: backend refexec, 0 loops"));
/// ```
pub fn render(backend: &dyn Backend, compiled: &Compiled) -> String {
    let mut names = AddressNames::new();
    for l in compiled.loops() {
        l.key
            .values()
            .into_iter()
            .for_each(|v| names.learn_value(v));
    }
    let traces = compiled.loops().iter().map(|l| (&l.recorded, &l.trace));
    let traces = traces.chain(compiled.bridges().iter().map(|b| (&b.recorded, &b.trace)));
    for (recorded, optimized) in traces {
        names.learn_trace(recorded);
        names.learn_trace(optimized);
    }
    let mut out = format!(
        "# majit log: backend {}, {} loops, {} bridges\n",
        backend.name(),
        compiled.loops().len(),
        compiled.bridges().len()
    );
    let log = Log {
        backend,
        compiled,
        names,
    };
    for (i, l) in compiled.loops().iter().enumerate() {
        let greens: Vec<String> = l.key.values().iter().map(|v| format!("{v:?}")).collect();
        let head = format!(
            "loop {i} at greens [{}], code {}",
            greens.join(", "),
            l.code.0
        );
        out += &log.section(&head, l.code, &l.recorded, &l.trace, &l.ledger);
    }
    for (i, b) in compiled.bridges().iter().enumerate() {
        let head = format!(
            "bridge {i} from guard {} (code {} op {}), code {}",
            guard_name(compiled, b.guard.code, b.guard.op_index as usize),
            b.guard.code.0,
            b.guard.op_index,
            b.code.0
        );
        out += &log.section(&head, b.code, &b.recorded, &b.trace, &b.ledger);
    }
    out
}

/// The log's lines for the functions too-long traces marked don't-inline
/// (after the traces: `# marked don't-inline: ...`).
pub fn dont_inline(marked: &[DontInline]) -> String {
    marked
        .iter()
        .map(|d| format!("# marked don't-inline: {d}\n"))
        .collect()
}

/// The `MAJIT_LOG` file, opened (created, for appending) when a driver is
/// created and written when it is dropped.
#[derive(Debug)]
pub struct LogFile {
    path: String,
    file: std::fs::File,
}

impl LogFile {
    /// The file `MAJIT_LOG` names, if set; a path that cannot be opened
    /// for appending (or an empty one) is a [`JitError::Log`].
    pub fn from_env() -> Result<Option<LogFile>, JitError> {
        let Some(path) = std::env::var_os("MAJIT_LOG") else {
            return Ok(None);
        };
        let path = path.to_string_lossy().into_owned();
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path);
        match file {
            Ok(file) => Ok(Some(LogFile { path, file })),
            Err(e) => Err(JitError::Log {
                path,
                kind: e.kind(),
                message: e.to_string(),
            }),
        }
    }

    /// Appends `text`; an error is reported on stderr (the driver is being
    /// dropped, there is no caller to return it to).
    pub fn append(&mut self, text: &str) {
        use std::io::Write as _;
        if let Err(e) = self.file.write_all(text.as_bytes()) {
            eprintln!("MAJIT_LOG={}: {e}", self.path);
        }
    }
}

/// The name of the guard at `op` of the trace compiled as `code`.
fn guard_name(compiled: &Compiled, code: CodeId, op: usize) -> String {
    compiled
        .trace_of(code)
        .and_then(|(_, t)| t.ops.get(op)?.descr.as_ref().map(|d| d.name().to_string()))
        .unwrap_or_else(|| "?".into())
}

/// What every section of one log needs.
struct Log<'a> {
    backend: &'a dyn Backend,
    compiled: &'a Compiled,
    names: AddressNames,
}

impl Log<'_> {
    /// One loop or bridge: header, traces, ledger, resume data, machine
    /// code.
    fn section(
        &self,
        head: &str,
        code: CodeId,
        recorded: &Trace,
        optimized: &Trace,
        ledger: &Ledger,
    ) -> String {
        let names = &self.names;
        let mut out = format!("\n# {}\n", names.mask(head));
        let _ = writeln!(out, "## recorded trace: {} ops", recorded.ops.len());
        out += &names.mask(&majit_ir::text::print(recorded));
        let _ = writeln!(out, "## optimized trace: {} ops", optimized.ops.len());
        out += &names.mask(&majit_ir::text::print(optimized));
        for e in &ledger.entries {
            out += &names.mask(&format!("# ledger: {e}\n"));
        }
        out += "## resume data\n";
        for (i, op) in optimized.ops.iter().enumerate() {
            let Some(fail) = op.descr.as_ref().and_then(|d| d.as_fail()) else {
                continue;
            };
            if let Some(info) = self.compiled.guard(fail.id) {
                let what = format!("{} (op {i}, {})", fail.name, op.opcode);
                out += &names.mask(&guard_text(&what, info));
            }
        }
        let lookup = |v: u64| names.name(v);
        match self.backend.machine_code(code, &lookup) {
            Some(mc) => out += &machine_code_text(&mc),
            None => out += "## machine code: none (the backend interprets traces)\n",
        }
        out
    }
}

/// A guard's resume data: failures, snapshot frames, optimizer resume.
fn guard_text(what: &str, info: &GuardInfo) -> String {
    let mut out = format!("{what}: {} failures", info.failures);
    if info.bridged {
        out += ", bridged";
    }
    out.push('\n');
    out += &snapshot_text(&info.snapshot);
    match &info.resume {
        Some(rd) => {
            for line in rd.to_string().lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
        None => out += "    values: the fail args as recorded\n",
    }
    out
}

/// One line per snapshot frame: `portal@12 [a0, a1, Int(5)]`, where `aN`
/// is original fail arg `N`.
fn snapshot_text(snap: &Snapshot) -> String {
    let mut out = String::new();
    for f in &snap.frames {
        let vals: Vec<String> = f
            .values
            .iter()
            .map(|v| match v {
                SnapValue::Arg(i) => format!("a{i}"),
                SnapValue::Const(c) => format!("{c:?}"),
            })
            .collect();
        let _ = writeln!(
            out,
            "    frame {}@{} [{}]",
            f.code.name,
            f.pc,
            vals.join(", ")
        );
    }
    out
}

/// The listing: offset, bytes, instruction; then the pool.
fn machine_code_text(mc: &MachineCode) -> String {
    let mut out = format!(
        "## machine code: {}, {} bytes, {} pool words\n",
        mc.arch,
        mc.code.len(),
        mc.pool.len()
    );
    let width = mc.listing.iter().map(|i| i.hex.len()).max().unwrap_or(0);
    for i in &mc.listing {
        let _ = writeln!(out, "  {:#06x}  {:width$}  {}", i.offset, i.hex, i.text);
    }
    out += "## pool\n";
    for (k, p) in mc.pool.iter().enumerate() {
        let _ = writeln!(out, "  {:#06x}  pool[{k}] {}", p.offset, p.meaning);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use majit_ir::{Kind, Op, OpCode};

    #[test]
    fn masks_known_addresses_and_offsets_from_them_as_whole_numbers() {
        let mut n = AddressNames::new();
        n.learn_value(Value::Ref(0x7f00_0000_1000));
        n.learn_value(Value::Ref(0x7f00_0000_2000));
        n.learn_value(Value::Ref(0x20)); // below MIN_ADDRESS: not an address
        let text = format!(
            "ptr({:#x}) Ref({}) i{} 0x20 {} {}",
            0x7f00_0000_2000u64,
            0x7f00_0000_1000u64,
            0x7f00_0000_1000u64,
            0x7f00_0000_2018u64,
            0x7f00_0000_3000u64
        );
        assert_eq!(
            n.mask(&text),
            format!(
                "ptr(<ptr2>) Ref(<ptr1>) i{} 0x20 <ptr2+0x18> {}",
                0x7f00_0000_1000u64, 0x7f00_0000_3000u64
            )
        );
    }

    #[test]
    fn learns_call_targets_and_ref_constants_of_a_trace() {
        let mut t = Trace::new(&[Kind::Int]);
        let f = t.add_const(Const::Int(0x5555_0000_1230));
        let p = t.add_const(Const::Ref(0x7f00_0000_4000));
        let call = majit_ir::CallDescr {
            name: "emit".into(),
            args: vec![Kind::Ref],
            result: majit_ir::ResultKind::Void,
            effect: Default::default(),
        };
        t.push(Op::new(OpCode::CallN, &[f, p]).with_descr(Descr::Call(call.into())));
        let mut n = AddressNames::new();
        n.learn_trace(&t);
        assert_eq!(n.name(0x5555_0000_1230).as_deref(), Some("fn:emit"));
        assert_eq!(n.name(0x7f00_0000_4000).as_deref(), Some("ptr1"));
        let text = n.mask(&majit_ir::text::print(&t));
        assert!(
            text.contains("call_n(<fn:emit>, ptr(<ptr1>), descr=emit)"),
            "{text}"
        );
    }
}
