//! Benchmarks for majit live in `benches/benches/`; this library holds
//! helpers they share.

use std::process::ExitCode;
use std::time::Duration;

/// The minimum and median of `times`, in seconds (sorts them).
///
/// # Panics
/// If `times` is empty.
pub fn min_median(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    (times[0].as_secs_f64(), times[times.len() / 2].as_secs_f64())
}

/// A harness's exit code: success, or failure after its error on stderr
/// behind `name: `.
pub fn exit_code(name: &str, result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}
