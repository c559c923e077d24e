//! The seeds a fuzz test runs, the same convention in every fuzz test of
//! the workspace: a fixed default range (so CI is deterministic),
//! `MAJIT_FUZZ_SEED=n` to replay one case, `MAJIT_FUZZ_CASES=n` to run
//! `n` cases from the range's start (a long run).

use std::ops::Range;

/// The seeds a fuzz test runs: `MAJIT_FUZZ_SEED` alone when it is set
/// (replaying one case), else `default`, as many as `MAJIT_FUZZ_CASES`
/// says when that is set.
///
/// # Panics
/// When either variable is set but not a number (the test's user acts).
pub fn fuzz_seeds(default: Range<u64>) -> Range<u64> {
    let number = |name: &str| {
        let v = std::env::var(name).ok()?;
        Some(
            v.parse::<u64>()
                .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        )
    };
    match number("MAJIT_FUZZ_SEED") {
        Some(seed) => seed..seed + 1,
        None => match number("MAJIT_FUZZ_CASES") {
            Some(n) => default.start..default.start + n,
            None => default,
        },
    }
}

/// Whether `MAJIT_FUZZ_SEED` replays one case (totals over many cases do
/// not apply then).
pub fn replaying() -> bool {
    std::env::var_os("MAJIT_FUZZ_SEED").is_some()
}
