//! Running the `bf` binary from tests.

use std::process::Command;

/// A command for the `bf` binary; when cross-testing, `MAJIT_TEST_RUNNER`
/// names the emulator that runs it.
pub fn bf_command() -> Command {
    let bin = env!("CARGO_BIN_EXE_bf");
    match std::env::var_os("MAJIT_TEST_RUNNER") {
        Some(runner) if !runner.is_empty() => {
            let mut cmd = Command::new(runner);
            cmd.arg(bin);
            cmd
        }
        _ => Command::new(bin),
    }
}
