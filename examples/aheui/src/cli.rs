//! Command line and environment: what to run and how.
//!
//! The flags are exactly `--no-jit`, `--stats`, `--threshold N`,
//! `--trace-limit N`, `--enable-opts LIST` and `--help` (a value may also
//! be attached as `--threshold=N`), plus one FILE (`-` = read the program
//! from stdin). Every value is validated here, so a later JIT reads a
//! [`JitConfig`] it can trust.
//!
//! Environment: `MAJIT_STATS=1` is `--stats`; `MAJIT_LOG` names the JIT's
//! log file (kept in the config; nothing is logged without a JIT; empty is
//! an error). A flag overrides its variable (`--threshold` and
//! `MAJIT_THRESHOLD`, ...) even if the variable's value is bad, and with
//! `--no-jit` the JIT's variables are not read at all. The GC
//! variables (`MAJIT_NURSERY_SIZE`, `MAJIT_GC_STRESS`, `MAJIT_MAX_HEAP`) are
//! read by majit-gc's `GcConfig::from_env` in `main.rs`.

use crate::error::{Error, Result};
use majit::metainterp::opt;
use majit::JitParams;

/// Loop-entry count after which a loop is traced (majit's default).
pub const DEFAULT_THRESHOLD: u32 = 56;
/// Maximum recorded trace length in operations. Higher than RPython's 6000:
/// the tracer records every node load, store and guard of an Aheui
/// command, most of which the optimizer then removes, and logo's pixel loop
/// records about 29,000 operations that optimize to about 1,500.
pub const DEFAULT_TRACE_LIMIT: u32 = 100_000;

/// The `MAJIT_*` variables a flag overrides (`--threshold`,
/// `--trace-limit`, `--enable-opts`).
const FLAG_VARS: [&str; 3] = ["MAJIT_THRESHOLD", "MAJIT_TRACE_LIMIT", "MAJIT_ENABLE_OPTS"];

/// The usage text printed by `--help`.
pub const USAGE: &str = "\
usage: aheui [OPTIONS] FILE
Runs the Aheui program FILE ('-' reads the program from stdin). The program
reads stdin and writes stdout; the exit status comes from the halting cell.

options:
  --no-jit              run the plain interpreter only
  --stats               print statistics to stderr at exit (also MAJIT_STATS=1)
  --threshold N         loop count before tracing, 1..=2^31 (default 56)
  --trace-limit N       maximum trace length in operations, 1..=2^31 (default 100000)
  --enable-opts LIST    ':'-separated optimizer passes from
                        intbounds:rewrite:virtualize:heap:pure:unroll ('' = none)
  --help                print this text

environment: MAJIT_NURSERY_SIZE (bytes, k/m/g suffix), MAJIT_GC_STRESS=1,
MAJIT_MAX_HEAP, MAJIT_LOG (JIT log file), MAJIT_STATS=1, and majit's JIT
parameters (MAJIT_THRESHOLD, MAJIT_TRACE_LIMIT, ...: the flags win).
exit status: the program's (0..=255); interpreter errors print 'aheui: ...'
to stderr and exit 64 (usage), 65 (not UTF-8, too large / bad environment),
66 (cannot read FILE), 70 (division by zero, bad number input, out of
memory), 74 (I/O: stdin, stdout, the MAJIT_LOG file).
";

/// Parameters for the JIT, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitConfig {
    /// False with `--no-jit`.
    pub enabled: bool,
    /// `--threshold`.
    pub threshold: u32,
    /// `--trace-limit`.
    pub trace_limit: u32,
    /// `--enable-opts`: known pass words in the order given.
    pub enable_opts: Vec<&'static str>,
    /// `MAJIT_LOG`: where the JIT writes its log.
    pub log: Option<String>,
}

impl JitConfig {
    /// The JIT's parameters: the environment's (`MAJIT_*`), with this
    /// configuration's threshold, trace limit and passes.
    pub fn params(&self) -> Result<JitParams> {
        let env = |e: majit::metainterp::params::ParamError| Error::Env(e.to_string());
        // The config holds the final values of the flag variables (a bad
        // one was refused by `parse`, or overridden by its flag).
        JitParams::from_lookup(|k| {
            (!FLAG_VARS.contains(&k))
                .then(|| std::env::var(k).ok())
                .flatten()
        })
        .map_err(env)?
        .with_threshold(self.threshold)
        .with_trace_limit(self.trace_limit as usize)
        .with_opts(&self.enable_opts.join(":"))
        .map_err(env)
    }
}

impl Default for JitConfig {
    fn default() -> Self {
        JitConfig {
            enabled: true,
            threshold: DEFAULT_THRESHOLD,
            trace_limit: DEFAULT_TRACE_LIMIT,
            enable_opts: opt::parse_opts(opt::DEFAULT_OPTS).expect("the default passes exist"),
            log: None,
        }
    }
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `--help`.
    Help,
    /// Run a program.
    Run(Options),
}

/// A run request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Program path; `-` means stdin.
    pub file: String,
    /// `--stats` or `MAJIT_STATS=1`.
    pub stats: bool,
    /// JIT parameters.
    pub jit: JitConfig,
}

/// Parses arguments (without the program name) and the environment,
/// read through `env`.
///
/// ```
/// use aheui::cli::{parse, Command};
/// let args = ["--no-jit", "--threshold", "7", "x.aheui"].map(String::from);
/// let Command::Run(o) = parse(&args, |_| None).unwrap() else { panic!() };
/// assert_eq!((o.file.as_str(), o.jit.enabled, o.jit.threshold), ("x.aheui", false, 7));
/// ```
pub fn parse(args: &[String], env: impl Fn(&str) -> Option<String>) -> Result<Command> {
    let mut file = None;
    let mut stats = false;
    let mut jit = JitConfig::default();
    let mut flags = Vec::new(); // the FLAG_VARS a flag overrides
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, attached) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String> {
            attached
                .clone()
                .or_else(|| rest.next().cloned())
                .ok_or_else(|| Error::Usage(format!("{name} needs a value")))
        };
        let switch = matches!(flag, "--help" | "-h" | "--no-jit" | "--stats");
        if switch && attached.is_some() {
            return Err(Error::Usage(format!("{flag} takes no value ({arg:?})")));
        }
        match flag {
            "--help" | "-h" => return Ok(Command::Help),
            "--no-jit" => jit.enabled = false,
            "--stats" => stats = true,
            "--threshold" => {
                jit.threshold = count(flag, &value(flag)?)?;
                flags.push(FLAG_VARS[0]);
            }
            "--trace-limit" => {
                jit.trace_limit = count(flag, &value(flag)?)?;
                flags.push(FLAG_VARS[1]);
            }
            "--enable-opts" => {
                jit.enable_opts = opts(&value(flag)?)?;
                flags.push(FLAG_VARS[2]);
            }
            _ if attached.is_some() || (flag.starts_with('-') && flag != "-") => {
                return Err(Error::Usage(format!("unknown option {arg:?}")));
            }
            _ if file.is_some() => {
                return Err(Error::Usage(format!("more than one FILE given ({arg:?})")))
            }
            _ => file = Some(arg.clone()),
        }
    }
    let file = file.ok_or_else(|| Error::Usage("no FILE given".into()))?;
    match env("MAJIT_STATS").as_deref() {
        None | Some("" | "0") => {}
        Some("1") => stats = true,
        Some(other) => {
            return Err(Error::Env(format!(
                "MAJIT_STATS={other:?}: expected 0 or 1"
            )))
        }
    }
    if jit.enabled {
        jit_env(&mut jit, |k| {
            (!flags.contains(&k)).then(|| env(k)).flatten()
        })?;
    }
    Ok(Command::Run(Options { file, stats, jit }))
}

/// Applies the JIT's environment, as `env` shows it (without the variables
/// a flag overrode), to `jit`; every `MAJIT_*` JIT parameter is validated.
fn jit_env(jit: &mut JitConfig, env: impl Fn(&str) -> Option<String>) -> Result<()> {
    let params = JitParams::from_lookup(&env).map_err(|e| Error::Env(e.to_string()))?;
    if env(FLAG_VARS[0]).is_some() {
        jit.threshold = params.threshold;
    }
    if env(FLAG_VARS[1]).is_some() {
        jit.trace_limit = u32::try_from(params.trace_limit).unwrap_or(u32::MAX);
    }
    if env(FLAG_VARS[2]).is_some() {
        jit.enable_opts = opts(&params.enable_opts)?;
    }
    jit.log = match env("MAJIT_LOG") {
        Some(path) if path.is_empty() => {
            return Err(Error::Env(
                "MAJIT_LOG is empty: name the log file, or unset it".into(),
            ))
        }
        path => path,
    };
    Ok(())
}

/// A positive count no larger than 2^31.
fn count(flag: &str, text: &str) -> Result<u32> {
    match text.parse::<u32>() {
        Ok(n) if (1..=1 << 31).contains(&n) => Ok(n),
        _ => Err(Error::Usage(format!(
            "{flag} {text:?}: expected a whole number from 1 to 2147483648"
        ))),
    }
}

/// A `:`-separated list of known pass words, no repeats; the passes in
/// pipeline order.
fn opts(text: &str) -> Result<Vec<&'static str>> {
    let words: Vec<&str> = text.split(':').filter(|w| !w.is_empty()).collect();
    if let Some(w) =
        (0..words.len()).find_map(|i| words[..i].contains(&words[i]).then_some(words[i]))
    {
        return Err(Error::Usage(format!("--enable-opts: {w:?} given twice")));
    }
    opt::parse_opts(text).map_err(|e| match e {
        opt::OptError::UnknownPass { word, valid } => Error::Usage(format!(
            "--enable-opts: unknown optimization {word:?}; valid: {}",
            valid.join(", ")
        )),
        e => Error::Usage(format!("--enable-opts: {e}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Command> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&args, |_| None)
    }

    fn options(args: &[&str]) -> Options {
        match run(args) {
            Ok(Command::Run(o)) => o,
            other => panic!("{other:?}"),
        }
    }

    fn usage_error(args: &[&str]) -> String {
        match run(args) {
            Err(e @ Error::Usage(_)) => e.to_string(),
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn every_flag_is_parsed_and_kept() {
        let o = options(&[
            "--stats",
            "--no-jit",
            "--threshold=5",
            "--trace-limit",
            "100",
            "--enable-opts",
            "heap:intbounds",
            "-",
        ]);
        assert_eq!(o.file, "-");
        assert!(o.stats && !o.jit.enabled);
        assert_eq!((o.jit.threshold, o.jit.trace_limit), (5, 100));
        assert_eq!(o.jit.enable_opts, vec!["intbounds", "heap"]);
        assert_eq!(
            options(&["--enable-opts=", "f"]).jit.enable_opts,
            Vec::<&str>::new()
        );
        assert_eq!(run(&["--help", "--bogus"]).unwrap(), Command::Help);
    }

    #[test]
    fn bad_values_are_named() {
        assert!(usage_error(&["--threshold", "0", "f"]).contains("--threshold \"0\""));
        assert!(usage_error(&["--threshold", "-3", "f"]).contains("whole number"));
        assert!(usage_error(&["--trace-limit", "x", "f"]).contains("--trace-limit"));
        assert!(usage_error(&["--trace-limit"]).contains("needs a value"));
        assert!(usage_error(&["--enable-opts", "heap:fast", "f"]).contains("\"fast\""));
        assert!(usage_error(&["--enable-opts", "heap:heap", "f"]).contains("twice"));
        assert!(usage_error(&["--jit", "f"]).contains("unknown option"));
        assert!(usage_error(&["--stats=1", "f"]).contains("takes no value"));
        assert!(usage_error(&["a", "b"]).contains("more than one FILE"));
        assert!(usage_error(&[]).contains("no FILE"));
    }

    #[test]
    fn environment_sets_stats_and_log() {
        let args = vec!["f".to_string()];
        let env = |k: &str| match k {
            "MAJIT_STATS" => Some("1".to_string()),
            "MAJIT_LOG" => Some("/tmp/log".to_string()),
            _ => None,
        };
        let Ok(Command::Run(o)) = parse(&args, env) else {
            panic!()
        };
        assert!(o.stats);
        assert_eq!(o.jit.log.as_deref(), Some("/tmp/log"));
        let bad = parse(&args, |k| (k == "MAJIT_STATS").then(|| "yes".to_string()));
        assert!(matches!(bad, Err(Error::Env(_))));
        let empty_log = parse(&args, |k| (k == "MAJIT_LOG").then(String::new));
        assert!(matches!(empty_log, Err(Error::Env(m)) if m.contains("MAJIT_LOG is empty")));
    }

    #[test]
    fn flags_and_no_jit_override_bad_jit_variables() {
        let env = |k: &str| (k == "MAJIT_THRESHOLD").then(|| "lots".to_string());
        let parse_with = |args: &[&str]| {
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            parse(&args, env)
        };
        let Ok(Command::Run(o)) = parse_with(&["--threshold", "5", "f"]) else {
            panic!()
        };
        assert_eq!(o.jit.threshold, 5);
        assert!(parse_with(&["--no-jit", "f"]).is_ok());
        assert!(matches!(parse_with(&["f"]), Err(Error::Env(m)) if m.contains("MAJIT_THRESHOLD")));
    }
}
