//! Perf maps: `perf report` names JIT code when `/tmp/perf-PID.map` lists
//! it, one `START SIZE name` line (hex, no `0x`) per code range.
//!
//! `MAJIT_PERF_MAP` (set, not `0`) makes every driver append a line for
//! each loop and bridge the backend compiled, as soon as it is compiled
//! (perf reads the file after the run, when the process may be gone).
//! Backends without machine code ([`crate::backend::Backend::code_range`]
//! is `None`) add nothing.

use crate::backend::{Backend, CodeId};
use std::io::Write;
use std::path::PathBuf;

/// A perf map file that compiled code is appended to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerfMap {
    pub path: PathBuf,
}

impl PerfMap {
    /// The map perf looks for: `/tmp/perf-<pid>.map`.
    pub fn for_this_process() -> PerfMap {
        PerfMap {
            path: PathBuf::from(format!("/tmp/perf-{}.map", std::process::id())),
        }
    }

    /// [`PerfMap::for_this_process`] if `MAJIT_PERF_MAP` is set and not `0`.
    pub fn from_env() -> Option<PerfMap> {
        let on = std::env::var("MAJIT_PERF_MAP").is_ok_and(|v| !v.is_empty() && v != "0");
        on.then(PerfMap::for_this_process)
    }

    /// Appends the line for `code` of `backend`, named `name`. A write
    /// error is reported on stderr once per line and otherwise ignored: a
    /// missing perf map must not stop the program.
    pub fn record<B: Backend>(&self, backend: &B, code: CodeId, name: &str) {
        let Some(range) = backend.code_range(code) else {
            return;
        };
        let line = format!("{:x} {:x} {name}\n", range.start, range.len());
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path);
        if let Err(e) = file.and_then(|mut f| f.write_all(line.as_bytes())) {
            eprintln!("perf map {}: {e}", self.path.display());
        }
    }
}
