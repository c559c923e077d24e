//! JIT statistics: what happened, counted where it happens.
//!
//! The driver owns one [`Stats`]. Each counter is incremented at the one
//! place its event occurs: a loop is counted after the backend accepted
//! it, an abort where tracing gives up (so a successful compile is never
//! an abort), a guard failure when a dead frame comes back through a
//! guard. Times are wall-clock durations of the tracer, the optimizer and
//! the backend's compile calls. [`AbortReason`] is the one table of why
//! tracing stops early.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// Why tracing stopped without producing a trace. Each reason says who
/// acts: nobody (a limit), the interpreter author, or majit's developers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AbortReason {
    /// The trace outgrew `trace_limit` (a limit; raise it if loops are
    /// legitimately long). When an inlined function with a residual form
    /// recorded ops, the one with the most is marked don't-inline
    /// ([`Stats::dont_inline`]), its later calls are traced as residual
    /// calls, and the abort does not count toward the key's `max_aborts`:
    /// the key is traced again at its next back edge.
    TraceTooLong,
    /// The interpreted program ended during tracing (nobody: the loop was
    /// not a loop after all).
    PortalReturned,
    /// A merge point inside an inlined call (the interpreter author: the
    /// merge point belongs in the portal only).
    MergePointInCallee,
    /// A loop trace reached a back edge (`can_enter_jit`) in an inlined
    /// call of the interpreted program (nobody: as LuaJIT does, the callee
    /// is marked don't-inline rather than unrolled into the trace until it
    /// is too long, its calls become `call_assembler`s of its own code, and
    /// the key is traced again without counting toward `max_aborts`).
    LoopInCallee,
    /// A loop trace reached another loop's back edge in the loop's own
    /// frame: the traced iteration left the loop (a `break`, or the loop's
    /// last iteration) for an enclosing loop, or entered an inner loop not
    /// compiled yet (nobody: as LuaJIT does, the attempt is dropped and the
    /// loop traced again at its next back edge, which usually loops; the
    /// loop's exit becomes a bridge; after `warmstate::LOOP_LEFT_RETRIES`
    /// such attempts count toward `JitParams::max_aborts`, and the last
    /// attempt goes on).
    LoopLeft,
    /// The backend or optimizer rejected the finished trace (majit's
    /// developers, or a backend limit).
    CompileFailed,
    /// The optimizer proved a guard always fails (nobody: the trace was
    /// taken down a path that cannot repeat).
    InvalidLoop,
    /// The virtualizable frame red holds another frame at the merge point
    /// (nobody: the VM switched frames without a call of the interpreter,
    /// which traces do not follow).
    FrameChanged,
    /// The virtualizable frame's array field was replaced (nobody: a VM
    /// growing its frame; the blackhole makes the store, or goes on after
    /// the residual call that made it, and the key is traced again, with
    /// the new array's length, when hot).
    ArrayReplaced,
    /// Compiling would take the code in use past `JitParams::max_code`
    /// (`MAJIT_MAX_CODE`; the user acts: raise it, or accept the
    /// interpreted loop). The key is not traced again.
    CodeFull,
    /// A quasi-immutable field the trace folded was written before the
    /// trace was compiled (nobody: the key is traced again when hot).
    QuasiWritten,
    /// A nested run (a call of the interpreted program the tracer made)
    /// compiled the key while it was traced further out (nobody: the
    /// nested run's code is used, the outer trace is dropped).
    CompiledMeanwhile,
    /// A bridge's end did not fit the loop label it was to enter, or a
    /// retrace gained nothing (never counted: the driver ends the bridge
    /// another way and notes why in its ledger).
    NoFit,
}

impl AbortReason {
    /// A one-line message for logs.
    pub fn message(self) -> &'static str {
        match self {
            AbortReason::TraceTooLong => "trace too long",
            AbortReason::PortalReturned => "the program ended while tracing",
            AbortReason::MergePointInCallee => "merge point reached in an inlined call",
            AbortReason::LoopInCallee => "a loop's back edge in an inlined call",
            AbortReason::LoopLeft => "another loop's back edge in a loop trace",
            AbortReason::CompileFailed => "compilation failed",
            AbortReason::InvalidLoop => "the optimizer found a guard that always fails",
            AbortReason::FrameChanged => "the virtualizable frame changed",
            AbortReason::ArrayReplaced => "the virtualizable frame's array was replaced",
            AbortReason::CodeFull => "code memory full (MAJIT_MAX_CODE)",
            AbortReason::QuasiWritten => {
                "a quasi-immutable field it read was written while tracing"
            }
            AbortReason::CompiledMeanwhile => "a nested run compiled the key while it was traced",
            AbortReason::NoFit => "the bridge's end fits no loop label",
        }
    }
}

/// How many abort messages [`Stats`] keeps: enough to diagnose, bounded
/// so a driver failing to compile again and again does not grow.
pub const MAX_ABORT_MESSAGES: usize = 32;

/// A function marked don't-inline because a trace through it was too
/// long (see `tracer/blame.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct DontInline {
    /// The jitcode function's name.
    pub name: String,
    /// The ops recorded while its calls (and their callees) ran.
    pub ops: u64,
    /// The length of the aborted trace.
    pub trace_ops: u64,
    /// Which trace: `loop at greens [..]` or `bridge from guard gN`.
    pub trace: String,
}

impl fmt::Display for DontInline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}`: {} of {} ops of the {}",
            self.name, self.ops, self.trace_ops, self.trace
        )
    }
}

/// Counters and times of one driver.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Traces started (loops and bridges).
    pub traces_started: u64,
    /// Loops the backend compiled.
    pub loops_compiled: u64,
    /// Bridges the backend compiled and attached.
    pub bridges_compiled: u64,
    /// Of those, bridges that end by jumping into a peeled loop body
    /// (through the loop's short preamble).
    pub bridges_into_body: u64,
    /// Of those, bridges that retrace the loop they end at: a peeled body
    /// specialised to the bridge's end state follows the bridge behind a
    /// new label (its virtuals fit none of the loop's labels).
    pub bridges_retraced: u64,
    /// Of those, bridges that end by jumping to a loop's start label (the
    /// loop was not peeled; its preamble runs again).
    pub bridges_to_loop_start: u64,
    /// Times the interpreter entered compiled code.
    pub loop_entries: u64,
    /// Dead frames that came back through a guard.
    pub guard_failures: u64,
    /// Of the other exits, those of guards that resume at a merge point: a
    /// bridge's entry guards (the loop body's assumptions did not hold;
    /// the loop is entered at its start) and diff mode's budget guards.
    pub merge_point_exits: u64,
    /// Blackhole runs (after guard failures and aborts).
    pub blackhole_runs: u64,
    /// Calls of the interpreted program (`portal.rs`): of the loops
    /// compiled, entry traces (traced from a function's first merge
    /// point); entries into compiled code at a function's first merge
    /// point (also counted in `loop_entries`); exits through a `finish` at
    /// the portal's return.
    pub entry_traces_compiled: u64,
    pub portal_entries: u64,
    pub portal_returns: u64,
    /// Calls of the interpreted program the tracer met: inlined into the
    /// trace (the callee's frames traced through), and made residual calls
    /// of the portal runner (recursive or don't-inline callees).
    pub calls_inlined: u64,
    pub calls_residual: u64,
    /// Nested runs of the interpreter through the portal runner (from
    /// compiled code, the tracer or the blackhole).
    pub portal_runs: u64,
    /// Of `portal_runs`, those that entered the callee's compiled entry
    /// trace directly (`call_assembler_*`, `callasm.rs`), and of those the
    /// slow paths: the callee left other than through its return.
    pub call_assembler: u64,
    pub call_assembler_slow: u64,
    /// Of `call_assembler`, those compiled code made without leaving
    /// machine code (`Backend::call_target`).
    pub call_assembler_direct: u64,
    /// Of `guard_failures`, those of guards inside an inlined callee
    /// (resuming more than one portal frame).
    pub callee_guard_failures: u64,
    /// Tracing aborts, by reason.
    pub aborts: BTreeMap<AbortReason, u64>,
    /// What went wrong, for aborts whose reason has a detail (a compile
    /// failure's `CompileError`, the optimizer's error), oldest first; at
    /// most [`MAX_ABORT_MESSAGES`] are kept (the counts in `aborts` stay
    /// exact).
    pub abort_messages: Vec<(AbortReason, String)>,
    /// The functions too-long traces marked don't-inline, in marking
    /// order (each at most once).
    pub dont_inline: Vec<DontInline>,
    /// Ops recorded by the tracer in traces that were compiled.
    pub ops_recorded: u64,
    /// Ops of those traces after the optimizer.
    pub ops_optimized: u64,
    /// Allocations the optimizer could not remove from compiled traces
    /// (each has a ledger entry with the reason in the `MAJIT_LOG` report).
    pub allocations_kept: u64,
    /// Differential mode: loop entries checked against the reference
    /// executor, and how many of those checks could not conclude.
    pub diff_checks: u64,
    pub diff_inconclusive: u64,
    /// Differential mode: conclusive checks of entries during which a
    /// collection may have moved objects (refs matched by renaming,
    /// memory not compared).
    pub diff_renamed: u64,
    /// Allocations of recorded traces that are not in the optimized ones.
    pub allocations_removed: u64,
    /// Compiled traces (loops and bridges) invalidated by a write to a
    /// quasi-immutable field they depend on.
    pub invalidations: u64,
    /// Loops whose code was freed (invalidated and no longer reachable),
    /// with their bridges, and the bytes their code took.
    pub loops_freed: u64,
    pub bridges_freed: u64,
    pub code_freed_bytes: u64,
    /// Bytes of compiled code in use now (`Backend::code_size` of every
    /// trace not freed), and the most there ever was.
    pub code_in_use: u64,
    pub code_peak: u64,
    pub time_tracing: Duration,
    pub time_optimizing: Duration,
    pub time_backend: Duration,
    /// Time in the backend's `execute` (running compiled loops and bridges).
    pub time_running: Duration,
}

impl Stats {
    /// Counts one abort.
    pub fn abort(&mut self, reason: AbortReason) {
        *self.aborts.entry(reason).or_default() += 1;
    }
    /// Counts one abort and keeps `message`, its detail.
    pub fn abort_because(&mut self, reason: AbortReason, message: String) {
        self.abort(reason);
        if self.abort_messages.len() < MAX_ABORT_MESSAGES {
            self.abort_messages.push((reason, message));
        }
    }
    /// The kept messages of aborts for `reason`, oldest first.
    pub fn abort_messages_for(&self, reason: AbortReason) -> impl Iterator<Item = &str> {
        self.abort_messages
            .iter()
            .filter(move |(r, _)| *r == reason)
            .map(|(_, m)| m.as_str())
    }
    /// The number of aborts for `reason`.
    pub fn aborts_for(&self, reason: AbortReason) -> u64 {
        self.aborts.get(&reason).copied().unwrap_or(0)
    }
    /// All aborts.
    pub fn total_aborts(&self) -> u64 {
        self.aborts.values().sum()
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "traces started:   {}", self.traces_started)?;
        writeln!(f, "loops compiled:   {}", self.loops_compiled)?;
        writeln!(f, "bridges compiled: {}", self.bridges_compiled)?;
        writeln!(f, "  into loop body: {}", self.bridges_into_body)?;
        writeln!(f, "  retraced:       {}", self.bridges_retraced)?;
        writeln!(f, "  to loop start:  {}", self.bridges_to_loop_start)?;
        writeln!(f, "loop entries:     {}", self.loop_entries)?;
        writeln!(f, "guard failures:   {}", self.guard_failures)?;
        writeln!(f, "merge-point exits: {}", self.merge_point_exits)?;
        writeln!(f, "blackhole runs:   {}", self.blackhole_runs)?;
        if self.calls_inlined + self.calls_residual + self.portal_runs > 0 {
            writeln!(
                f,
                "calls:            {} inlined, {} residual, {} nested runs ({} call_assembler, {} direct, {} slow), {} guard failures in callees",
                self.calls_inlined, self.calls_residual, self.portal_runs, self.call_assembler,
                self.call_assembler_direct, self.call_assembler_slow, self.callee_guard_failures
            )?;
        }
        if self.entry_traces_compiled + self.portal_entries > 0 {
            writeln!(
                f,
                "entry traces:     {} compiled, {} entries, {} returns",
                self.entry_traces_compiled, self.portal_entries, self.portal_returns
            )?;
        }
        writeln!(f, "ops recorded:     {}", self.ops_recorded)?;
        writeln!(f, "ops optimized:    {}", self.ops_optimized)?;
        writeln!(f, "allocations kept: {}", self.allocations_kept)?;
        if self.diff_checks > 0 {
            writeln!(
                f,
                "diff checks:      {} ({} inconclusive)",
                self.diff_checks, self.diff_inconclusive
            )?;
        }
        if self.diff_renamed > 0 {
            writeln!(f, "diff after a collection: {}", self.diff_renamed)?;
        }
        writeln!(f, "allocations removed: {}", self.allocations_removed)?;
        if self.invalidations > 0 || self.loops_freed > 0 {
            writeln!(f, "invalidations:    {}", self.invalidations)?;
            writeln!(
                f,
                "freed:            {} loops, {} bridges, {} bytes",
                self.loops_freed, self.bridges_freed, self.code_freed_bytes
            )?;
        }
        writeln!(
            f,
            "code in use:      {} bytes (peak {})",
            self.code_in_use, self.code_peak
        )?;
        for (reason, n) in &self.aborts {
            writeln!(f, "aborts ({}): {n}", reason.message())?;
        }
        for (_, m) in &self.abort_messages {
            writeln!(f, "abort: {m}")?;
        }
        for d in &self.dont_inline {
            writeln!(f, "don't-inline: {d}")?;
        }
        writeln!(
            f,
            "time: tracing {:?}, optimizing {:?}, backend {:?}, running {:?}",
            self.time_tracing, self.time_optimizing, self.time_backend, self.time_running
        )
    }
}
