//! The `MAJIT_STATS` summary printed when a driver is dropped: what was
//! compiled, why tracing gave up, which guards fail most, what the
//! optimizer did, and where the time went.

use crate::compiled::Compiled;
use crate::stats::Stats;
use std::fmt::Write;

/// How many of the most-failing guards the summary lists.
pub const HOTTEST_GUARDS: usize = 10;

/// The summary of a driver as text, one fact a line: its `stats`, the
/// name of its backend and what it `compiled` (what
/// [`JitDriver::summary`](crate::driver::JitDriver::summary) prints).
///
/// ```
/// use majit_metainterp::{compiled::Compiled, stats::Stats, summary};
/// let text = summary::render(&Stats::default(), "refexec", &Compiled::default());
/// assert!(text.contains("loops: 0 compiled, 0 entries"));
/// ```
pub fn render(s: &Stats, backend: &str, compiled: &Compiled) -> String {
    let mut out = format!("# majit stats (backend {backend})\n");
    let _ = writeln!(
        out,
        "loops: {} compiled, {} entries",
        s.loops_compiled, s.loop_entries
    );
    let _ = writeln!(
        out,
        "bridges: {} compiled, {} into a loop body, {} retraced, {} to a loop start",
        s.bridges_compiled, s.bridges_into_body, s.bridges_retraced, s.bridges_to_loop_start
    );
    let _ = writeln!(
        out,
        "traces: {} started, {} aborted",
        s.traces_started,
        s.total_aborts()
    );
    for (reason, n) in &s.aborts {
        let _ = writeln!(out, "  abort ({}): {n}", reason.message());
        for m in s.abort_messages_for(*reason) {
            let _ = writeln!(out, "    {m}");
        }
    }
    for d in &s.dont_inline {
        let _ = writeln!(out, "  marked don't-inline: {d}");
    }
    let _ = writeln!(
        out,
        "guard failures: {}, blackhole runs: {}",
        s.guard_failures, s.blackhole_runs
    );
    if s.calls_inlined + s.calls_residual + s.portal_runs > 0 {
        let _ = writeln!(
            out,
            "calls: {} inlined, {} residual, {} nested runs ({} call_assembler, {} direct, {} slow), {} guard failures in callees",
            s.calls_inlined, s.calls_residual, s.portal_runs, s.call_assembler,
            s.call_assembler_direct, s.call_assembler_slow, s.callee_guard_failures
        );
    }
    if s.entry_traces_compiled + s.portal_entries > 0 {
        let _ = writeln!(
            out,
            "entry traces: {} compiled, {} entries, {} returns",
            s.entry_traces_compiled, s.portal_entries, s.portal_returns
        );
    }
    out += &hottest_guards(compiled);
    let _ = writeln!(
        out,
        "ops: {} recorded, {} after optimization",
        s.ops_recorded, s.ops_optimized
    );
    let _ = writeln!(
        out,
        "allocations: {} removed, {} kept",
        s.allocations_removed, s.allocations_kept
    );
    let ledgers = compiled
        .loops()
        .iter()
        .map(|l| (format!("loop {}", l.code.0), &l.ledger));
    let ledgers = ledgers.chain(
        compiled
            .bridges()
            .iter()
            .map(|b| (format!("bridge {}", b.code.0), &b.ledger)),
    );
    for (what, ledger) in ledgers {
        for e in ledger.allocations() {
            let _ = writeln!(out, "  kept in {what}: {e}");
        }
    }
    if s.code_peak > 0 {
        let _ = writeln!(
            out,
            "code: {} bytes in use (peak {}); {} traces invalidated; freed {} loops and {} \
             bridges ({} bytes)",
            s.code_in_use,
            s.code_peak,
            s.invalidations,
            s.loops_freed,
            s.bridges_freed,
            s.code_freed_bytes
        );
    }
    if s.diff_checks > 0 {
        let _ = writeln!(
            out,
            "diff: {} loop entries checked against the reference executor, {} inconclusive{}",
            s.diff_checks,
            s.diff_inconclusive,
            match s.diff_renamed {
                0 => String::new(),
                n =>
                    format!(", {n} compared after a collection (refs renamed, memory not compared)"),
            }
        );
    }
    let _ = writeln!(
        out,
        "time: tracing {:?}, optimizing {:?}, backend {:?}, running compiled code {:?}",
        s.time_tracing, s.time_optimizing, s.time_backend, s.time_running
    );
    out
}

/// The summary's line for the GC heap a driver runs on (what
/// [`JitDriver::summary`](crate::driver::JitDriver::summary) appends).
///
/// ```
/// use majit_metainterp::summary;
/// let text = summary::gc_line(&majit_gc::GcStats::default());
/// assert!(text.starts_with("gc: 0 minor and 0 major collections"));
/// ```
pub fn gc_line(g: &majit_gc::GcStats) -> String {
    format!(
        "gc: {} minor and {} major collections, {} bytes promoted, old space peak {} bytes\n",
        g.minor_collections, g.major_collections, g.promoted_bytes, g.old_bytes_peak
    )
}

/// The guards that failed most (ties by fail id), at most
/// [`HOTTEST_GUARDS`], each with where it is.
fn hottest_guards(compiled: &Compiled) -> String {
    let mut guards: Vec<(u32, u32, bool)> = compiled
        .guards()
        .filter(|(_, g)| g.failures > 0)
        .map(|(id, g)| (id, g.failures, g.bridged))
        .collect();
    guards.sort_by_key(|&(id, n, _)| (std::cmp::Reverse(n), id));
    let mut out = String::new();
    for (id, n, bridged) in guards.into_iter().take(HOTTEST_GUARDS) {
        let bridge = if bridged { ", bridged" } else { "" };
        let _ = writeln!(
            out,
            "  guard {} ({}): {n} failures{bridge}",
            id,
            guard_place(compiled, id)
        );
    }
    out
}

/// `loop 0 op 12 guard_true`: where the guard with fail id `id` is.
fn guard_place(compiled: &Compiled, id: u32) -> String {
    for (what, _, t) in compiled.traces() {
        for (k, op) in t.ops.iter().enumerate() {
            let fid = op.descr.as_ref().and_then(|d| d.as_fail()).map(|f| f.id);
            if fid == Some(id) {
                return format!("{what} op {k} {}", op.opcode);
            }
        }
    }
    "unknown trace".into()
}
