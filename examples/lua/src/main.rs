//! `lua [--no-jit] [--stats] [--threshold N] SCRIPT [ARGS...]`, `lua -`
//! (the script from stdin), `lua -e CHUNK`.

use lua::run::{run, Options, Script};
use std::io::Read;

const USAGE: &str =
    "usage: lua [--no-jit] [--stats] [--threshold N] (SCRIPT | - | -e CHUNK) [ARGS...]";

fn main() {
    let mut options = Options {
        jit: true,
        stats: false,
        threshold: None,
        exiting: true,
    };
    let mut args = std::env::args().skip(1);
    let script = loop {
        let Some(a) = args.next() else {
            fail(USAGE);
        };
        match a.as_str() {
            "--no-jit" => options.jit = false,
            "--stats" => options.stats = true,
            "--threshold" => {
                let n = args.next().and_then(|n| n.parse().ok());
                options.threshold =
                    Some(n.unwrap_or_else(|| fail("--threshold takes a number ≥ 1")));
            }
            "-e" => {
                let chunk = args.next().unwrap_or_else(|| fail("'-e' needs argument"));
                break Script {
                    source: chunk.into_bytes(),
                    chunk: "(command line)".into(),
                    script_name: "lua".into(),
                    args: Vec::new(),
                };
            }
            "-" => {
                let mut source = Vec::new();
                if let Err(e) = std::io::stdin().read_to_end(&mut source) {
                    fail(&format!("cannot read stdin: {e}"));
                }
                break Script {
                    source,
                    chunk: "stdin".into(),
                    script_name: "-".into(),
                    args: Vec::new(),
                };
            }
            file if !file.starts_with("--") => {
                let source = std::fs::read(file)
                    .unwrap_or_else(|e| fail(&format!("cannot open {file}: {e}")));
                break Script {
                    source,
                    chunk: lua::parse::chunk_id(&format!("@{file}")),
                    script_name: file.to_string(),
                    args: Vec::new(),
                };
            }
            other => fail(&format!("unrecognized option '{other}'\n{USAGE}")),
        }
    };
    let script = Script {
        args: args.collect(),
        ..script
    };
    std::process::exit(run(script, options));
}

fn fail(message: &str) -> ! {
    eprintln!("lua: {message}");
    std::process::exit(1)
}
