//! `MAJIT_DIFF` end to end: the `bf` binary with the native backend and
//! diff mode from the environment prints the program's output once and
//! reports its checks in `--stats`.

use majit::metainterp::testing::bin_command;

#[test]
fn majit_diff_from_the_environment_checks_and_keeps_the_output() {
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/nested.bf");
    let out = bin_command(env!("CARGO_BIN_EXE_bf"))
        .args(["--native", "--stats", "--threshold", "2", program])
        .env("MAJIT_DIFF", "3")
        .env_remove("MAJIT_LOG")
        .env_remove("MAJIT_PERF_MAP")
        .output()
        .expect("spawn the bf binary");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(out.stdout, b"AJ", "{stderr}");
    let checks = stderr
        .lines()
        .find_map(|l| l.strip_prefix("diff checks:"))
        .unwrap_or_else(|| panic!("no diff line in --stats: {stderr}"));
    let (n, rest) = checks.trim().split_once(' ').unwrap();
    assert!(n.parse::<u32>().unwrap() >= 3, "{stderr}");
    assert_eq!(rest, "(0 inconclusive)", "{stderr}");
}
