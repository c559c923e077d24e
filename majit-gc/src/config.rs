//! Heap parameters, settable from code and from the environment.
//!
//! `MAJIT_NURSERY_SIZE` sets the nursery size in bytes (a `k`/`m`/`g`
//! suffix multiplies by 1024, 1024², 1024³). `MAJIT_GC_STRESS=1` turns on
//! stress mode: a tiny nursery and a minor collection at every allocation
//! that reaches the slow path; `MAJIT_GC_STRESS=N` collects at every N-th
//! allocation instead, and `0` (or unset) turns stress off. In stress mode
//! the inline fast path always fails (its `top` word equals its `free`
//! word), so allocations from JIT code are counted too. `MAJIT_MAX_HEAP`
//! caps the address space the heap reserves.

use crate::error::{GcError, Result};

/// The smallest nursery (and headerless region) the heap accepts.
pub const MIN_NURSERY_SIZE: usize = 256;
/// The nursery size stress mode uses unless `MAJIT_NURSERY_SIZE` is set.
pub const STRESS_NURSERY_SIZE: usize = 1024;

/// Parameters of one heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GcConfig {
    /// Bytes of the headered nursery; every headerless region gets the same
    /// capacity (at least four objects of its layout).
    pub nursery_size: usize,
    /// Collect at every N-th allocation (`Some(1)`: every allocation).
    pub stress_every: Option<u32>,
    /// A major collection runs once the old space holds more than
    /// `max(major_threshold, 2 × live bytes after the last major)`.
    pub major_threshold: usize,
    /// Address space reserved for the whole heap; allocation beyond it
    /// after a full collection is [`GcError::OutOfMemory`].
    pub max_heap: usize,
}

impl Default for GcConfig {
    fn default() -> GcConfig {
        GcConfig {
            nursery_size: 4 << 20,
            stress_every: None,
            major_threshold: 32 << 20,
            max_heap: 4 << 30,
        }
    }
}

impl GcConfig {
    /// The default configuration adjusted by `MAJIT_NURSERY_SIZE`,
    /// `MAJIT_GC_STRESS` and `MAJIT_MAX_HEAP`.
    ///
    /// ```
    /// let config = majit_gc::GcConfig::from_env().expect("bad MAJIT_* variable");
    /// assert!(config.nursery_size >= majit_gc::MIN_NURSERY_SIZE);
    /// ```
    pub fn from_env() -> Result<GcConfig> {
        Self::from_lookup(|var| std::env::var(var).ok())
    }

    /// Like [`GcConfig::from_env`], reading variables through `lookup`
    /// (tests use this to avoid touching the process environment).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<GcConfig> {
        let mut config = GcConfig::default();
        if let Some(v) = lookup("MAJIT_GC_STRESS") {
            let n = parse_size("MAJIT_GC_STRESS", &v, false)?;
            if n > 0 {
                let every = u32::try_from(n).map_err(|_| GcError::BadEnv {
                    var: "MAJIT_GC_STRESS",
                    value: v.clone(),
                    reason: "period does not fit in 32 bits".into(),
                })?;
                config.stress_every = Some(every);
                config.nursery_size = STRESS_NURSERY_SIZE;
            }
        }
        if let Some(v) = lookup("MAJIT_NURSERY_SIZE") {
            config.nursery_size = parse_size("MAJIT_NURSERY_SIZE", &v, true)?;
        }
        if let Some(v) = lookup("MAJIT_MAX_HEAP") {
            config.max_heap = parse_size("MAJIT_MAX_HEAP", &v, true)?;
        }
        config.validate().map_err(|e| match e {
            GcError::BadConfig { field, reason } => GcError::BadEnv {
                var: env_name(field),
                value: lookup(env_name(field)).unwrap_or_default(),
                reason,
            },
            other => other,
        })?;
        Ok(config)
    }

    /// Checks the ranges: nursery at least [`MIN_NURSERY_SIZE`], the
    /// heap large enough for the nursery, a nonzero stress period.
    pub fn validate(&self) -> Result<()> {
        let bad = |field, reason: String| Err(GcError::BadConfig { field, reason });
        if self.nursery_size < MIN_NURSERY_SIZE {
            return bad(
                "nursery_size",
                format!(
                    "{} bytes is below the minimum of {MIN_NURSERY_SIZE}",
                    self.nursery_size
                ),
            );
        }
        if self.nursery_size > 1 << 40 {
            return bad(
                "nursery_size",
                format!("{} bytes is absurdly large", self.nursery_size),
            );
        }
        if self.stress_every == Some(0) {
            return bad(
                "stress_every",
                "a period of 0 allocations; use None to turn stress off".into(),
            );
        }
        let min_heap = 4 * self.nursery_size.max(1 << 20);
        if self.max_heap < min_heap || self.max_heap > 1 << 46 {
            return bad(
                "max_heap",
                format!(
                    "{} bytes; with a {}-byte nursery it must be at least {min_heap} bytes \
                     ({} MiB: four nurseries) and below 64 TiB",
                    self.max_heap,
                    self.nursery_size,
                    min_heap >> 20
                ),
            );
        }
        Ok(())
    }
}

fn env_name(field: &str) -> &'static str {
    match field {
        "nursery_size" => "MAJIT_NURSERY_SIZE",
        "stress_every" => "MAJIT_GC_STRESS",
        _ => "MAJIT_MAX_HEAP",
    }
}

/// Parses a decimal count with an optional `k`/`m`/`g` suffix (binary
/// multiples) when `suffixes` is allowed; `var` names the variable in the
/// error. (The JIT's `MAJIT_MAX_CODE` is read with it too.)
pub fn parse_size(var: &'static str, value: &str, suffixes: bool) -> Result<usize> {
    let err = |reason: &str| GcError::BadEnv {
        var,
        value: value.to_string(),
        reason: reason.to_string(),
    };
    let text = value.trim();
    let (digits, shift) = match text.char_indices().last() {
        Some((i, c)) if suffixes && "kKmMgG".contains(c) => {
            (&text[..i], 10 * (1 + "kKmMgG".find(c).unwrap() / 2))
        }
        _ => (text, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(if suffixes {
            "expected a byte count such as 65536, 64k or 4m"
        } else {
            "expected a non-negative integer (0 = off, 1 = every allocation, N = every N-th)"
        }));
    }
    let n: usize = digits.parse().map_err(|_| err("number too large"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| err("number too large"))
}
