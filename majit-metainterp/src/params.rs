//! `JitParams`: the knobs of the JIT, settable in code and from the
//! environment.
//!
//! Every parameter has a default (RPython's where one exists, except the
//! loop threshold: LuaJIT's 56, which warms up sooner at no loss on the
//! examples; see docs/decisions.md) and an environment variable. [`JitParams::from_env`] reads the process
//! environment; [`JitParams::from_lookup`] reads any key/value source, so
//! tests do not race on the process environment. A malformed value is a
//! [`ParamError`] naming the variable, the value and what was expected,
//! never a silent default.

use crate::opt::UserPasses;
use crate::strategy::Strategies;
use std::fmt;

/// The JIT's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitParams {
    /// Back-edge passes at one green key before a loop is traced
    /// (`MAJIT_THRESHOLD`, ≥ 1). 1 traces at the first back edge.
    pub threshold: u32,
    /// Ops a trace may record before tracing aborts (`MAJIT_TRACE_LIMIT`).
    pub trace_limit: usize,
    /// Failures of one guard before a bridge is traced from it
    /// (`MAJIT_BRIDGE_THRESHOLD`). 0 traces at the first failure. A
    /// `guard_value` counts per value and bridges at an eighth of it.
    pub bridge_threshold: u32,
    /// Retraces of one loop (`MAJIT_RETRACE_LIMIT`, RPython's
    /// `retrace_limit`): a bridge whose end state carries virtuals no
    /// label of the loop takes gets a specialised copy of the loop's body
    /// behind it, at most this many per loop; then it forces them and
    /// enters the loop as it can. 0 turns retracing off.
    pub retrace_limit: u32,
    /// Percentage by which every hotness counter decays each time a trace
    /// starts (`MAJIT_DECAY`, 0..=100).
    pub decay: u32,
    /// Tracing aborts at one key after which it is never traced again.
    pub max_aborts: u32,
    /// Optimizer passes to run (`MAJIT_ENABLE_OPTS`, a colon-separated
    /// list of [`crate::opt::ALL_PASSES`] words; empty: traces go to the
    /// backend unoptimized). Default: [`crate::opt::DEFAULT_OPTS`].
    pub enable_opts: String,
    /// Differential mode (`MAJIT_DIFF`): the first `diff` entries of every
    /// compiled loop (counted again after a bridge is attached to it) also
    /// run on the reference executor, and the two exits are compared
    /// ([`crate::diff`]). 0 (the default) turns it off.
    pub diff: u32,
    /// User scheduling and allocation strategies for the backend (code
    /// only, no variable). Default: the backend's own. See
    /// [`crate::strategy`].
    pub strategies: Strategies,
    /// User optimizer passes at named positions of the pipeline (code
    /// only, no variable). Default: none. They run whenever the optimizer
    /// does, even with `enable_opts` empty. See [`crate::opt::UserPasses`].
    pub passes: UserPasses,
    /// The most bytes of compiled code in use at once (`MAJIT_MAX_CODE`,
    /// `k`/`m`/`g` suffixes; default unbounded). A loop or bridge whose
    /// code would pass it is not kept: an abort [`AbortReason::CodeFull`]
    /// (the key stays interpreted). Freed code ([`crate::lifetime`]) no
    /// longer counts. What a byte is depends on the backend
    /// (`Backend::code_size`: whole pages mapped for native code).
    ///
    /// [`AbortReason::CodeFull`]: crate::stats::AbortReason::CodeFull
    pub max_code: usize,
}

impl Default for JitParams {
    fn default() -> JitParams {
        JitParams {
            threshold: 56,
            trace_limit: 6000,
            bridge_threshold: 200,
            retrace_limit: 5,
            decay: 40,
            max_aborts: 3,
            enable_opts: crate::opt::DEFAULT_OPTS.to_string(),
            diff: 0,
            strategies: Strategies::native(),
            passes: UserPasses::none(),
            max_code: usize::MAX,
        }
    }
}

/// A parameter value that cannot be used: whoever set the variable acts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub var: String,
    pub value: String,
    pub expected: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?}: expected {}",
            self.var, self.value, self.expected
        )
    }
}

impl std::error::Error for ParamError {}

fn number<T: std::str::FromStr + PartialOrd + fmt::Display>(
    var: &str,
    value: &str,
    min: T,
    max: T,
) -> Result<T, ParamError> {
    let err = || ParamError {
        var: var.to_string(),
        value: value.to_string(),
        expected: format!("an integer from {min} to {max}"),
    };
    let v: T = value.trim().parse().map_err(|_| err())?;
    if v < min || v > max {
        return Err(err());
    }
    Ok(v)
}

/// Checks a colon-separated pass list against the optimizer's passes.
pub fn parse_opts(var: &str, value: &str) -> Result<String, ParamError> {
    match crate::opt::parse_opts(value.trim()) {
        Ok(_) => Ok(value.trim().to_string()),
        Err(e) => Err(ParamError {
            var: var.to_string(),
            value: value.to_string(),
            expected: format!("pass names separated by ':' ({e})"),
        }),
    }
}

impl JitParams {
    /// Defaults overridden by the `MAJIT_*` environment variables.
    ///
    /// ```
    /// let p = majit_metainterp::params::JitParams::from_lookup(|k| {
    ///     (k == "MAJIT_THRESHOLD").then(|| "7".to_string())
    /// }).unwrap();
    /// assert_eq!(p.threshold, 7);
    /// ```
    pub fn from_env() -> Result<JitParams, ParamError> {
        JitParams::from_lookup(|k| std::env::var(k).ok())
    }

    /// A VM's own defaults `base` overridden by the `MAJIT_*` environment
    /// variables (a VM whose traces record more or fewer ops per
    /// instruction tunes `trace_limit`, and the user can still set it).
    ///
    /// ```
    /// use majit_metainterp::params::JitParams;
    /// let base = JitParams::default().with_trace_limit(4000);
    /// let p = JitParams::from_env_over(base).unwrap();
    /// let want = std::env::var("MAJIT_TRACE_LIMIT").map_or(4000, |v| v.parse().unwrap());
    /// assert_eq!(p.trace_limit, want);
    /// ```
    pub fn from_env_over(base: JitParams) -> Result<JitParams, ParamError> {
        JitParams::lookup_over(base, |k| std::env::var(k).ok())
    }

    /// Defaults overridden by the values `lookup` returns for the
    /// `MAJIT_*` names.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<JitParams, ParamError> {
        JitParams::lookup_over(JitParams::default(), lookup)
    }

    /// `base` overridden by the values `lookup` returns for the `MAJIT_*`
    /// names.
    fn lookup_over(
        base: JitParams,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<JitParams, ParamError> {
        let mut p = base;
        if let Some(v) = lookup("MAJIT_THRESHOLD") {
            p.threshold = number("MAJIT_THRESHOLD", &v, 1, u32::MAX)?;
        }
        if let Some(v) = lookup("MAJIT_TRACE_LIMIT") {
            p.trace_limit = number("MAJIT_TRACE_LIMIT", &v, 1, 1 << 30)?;
        }
        if let Some(v) = lookup("MAJIT_BRIDGE_THRESHOLD") {
            p.bridge_threshold = number("MAJIT_BRIDGE_THRESHOLD", &v, 0, u32::MAX)?;
        }
        if let Some(v) = lookup("MAJIT_RETRACE_LIMIT") {
            p.retrace_limit = number("MAJIT_RETRACE_LIMIT", &v, 0, 1000)?;
        }
        if let Some(v) = lookup("MAJIT_DECAY") {
            p.decay = number("MAJIT_DECAY", &v, 0, 100)?;
        }
        if let Some(v) = lookup("MAJIT_ENABLE_OPTS") {
            p.enable_opts = parse_opts("MAJIT_ENABLE_OPTS", &v)?;
        }
        if let Some(v) = lookup("MAJIT_DIFF") {
            p.diff = number("MAJIT_DIFF", &v, 0, u32::MAX)?;
        }
        if let Some(v) = lookup("MAJIT_MAX_CODE") {
            p.max_code =
                majit_gc::config::parse_size("MAJIT_MAX_CODE", &v, true).map_err(|_| {
                    ParamError {
                        var: "MAJIT_MAX_CODE".into(),
                        value: v.clone(),
                        expected: "a byte count such as 1048576, 512k or 4m".into(),
                    }
                })?;
        }
        Ok(p)
    }

    /// Builder-style: set the threshold.
    pub fn with_threshold(mut self, threshold: u32) -> JitParams {
        self.threshold = threshold.max(1);
        self
    }
    /// Builder-style: set the trace limit.
    pub fn with_trace_limit(mut self, limit: usize) -> JitParams {
        self.trace_limit = limit;
        self
    }
    /// Builder-style: set the bridge threshold.
    pub fn with_bridge_threshold(mut self, threshold: u32) -> JitParams {
        self.bridge_threshold = threshold;
        self
    }
    /// Builder-style: set the retrace limit (see
    /// [`JitParams::retrace_limit`]).
    pub fn with_retrace_limit(mut self, limit: u32) -> JitParams {
        self.retrace_limit = limit;
        self
    }
    /// Builder-style: diff the first `entries` entries of every loop
    /// against the reference executor (0: off).
    pub fn with_diff(mut self, entries: u32) -> JitParams {
        self.diff = entries;
        self
    }
    /// Builder-style: set the backend's scheduling and allocation
    /// strategies.
    pub fn with_strategies(mut self, strategies: Strategies) -> JitParams {
        self.strategies = strategies;
        self
    }
    /// Builder-style: keep at most `bytes` of compiled code in use (see
    /// [`JitParams::max_code`]).
    pub fn with_max_code(mut self, bytes: usize) -> JitParams {
        self.max_code = bytes;
        self
    }
    /// Builder-style: set the user optimizer passes.
    pub fn with_passes(mut self, passes: UserPasses) -> JitParams {
        self.passes = passes;
        self
    }
    /// Whether traces go through the optimizer: built-in or user passes
    /// are enabled.
    pub fn optimizes(&self) -> bool {
        !self.enable_opts.is_empty() || !self.passes.is_empty()
    }
    /// Builder-style: set the optimizer passes (colon-separated).
    pub fn with_opts(mut self, opts: &str) -> Result<JitParams, ParamError> {
        self.enable_opts = parse_opts("enable_opts", opts)?;
        Ok(self)
    }
}
