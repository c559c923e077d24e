//! Random Aheui programs, each run plainly (`--no-jit`, the oracle), with
//! the default JIT, with `--threshold 1`, with `--threshold 1` under
//! `MAJIT_GC_STRESS=1`, and with `--threshold 1` in diff mode
//! (`MAJIT_DIFF=3`) with and without GC stress: all must print the same,
//! exit the same and report the same error, and diff mode must conclude. The seeds are fixed (`MAJIT_FUZZ_SEED` replays one case,
//! `MAJIT_FUZZ_CASES` widens the run; see the example's README for a long
//! run).
//!
//! A program is one counted loop in three rows: a prologue going right
//! on row 0 (it fills storages, with values up to 9^8 that the body's
//! arithmetic pushes past `i64`, and puts the count on storage ㄱ), the
//! body going right on row 1, then the count's decrement and a ㅊ that
//! goes down into row 2 (back left to the loop head) or, at 0, up into
//! row 0's exit code (prints what is left, halts with a storage's top).
//! The generator tracks every storage's depth, so no command meets too
//! few values: the control flow is the loop, and the loop ends.

mod common;

use common::run;
use majit::ir::fuzzing::{fuzz_seeds, replaying, SplitMix64};
use std::time::Duration;

const INITIALS: &str = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ";
const VOWELS: &str = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ";
/// Finals in syllable order; index 0 is "none" (written as a space here).
const FINALS: &str = " ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ";
/// The value ㅂ pushes for each final (by the strokes of its jamo), `None`
/// for ㅇ and ㅎ (input).
const STROKES: [Option<i64>; 28] = [
    Some(0),
    Some(2),
    Some(4),
    Some(4),
    Some(2),
    Some(5),
    Some(5),
    Some(3),
    Some(5),
    Some(7),
    Some(9),
    Some(9),
    Some(7),
    Some(9),
    Some(9),
    Some(8),
    Some(4),
    Some(4),
    Some(6),
    Some(2),
    Some(4),
    None,
    Some(3),
    Some(4),
    Some(3),
    Some(4),
    Some(4),
    None,
];
/// Storage ㄱ holds the loop count; the body leaves it alone.
const COUNTER: usize = 1;
const QUEUE: usize = 21;
const CHANNEL: usize = 27;

/// The syllable of `initial`, `vowel` and `final_` (jamo; `' '` for none).
fn cell(initial: char, vowel: char, final_: char) -> char {
    let index = |set: &str, c: char| set.chars().position(|x| x == c).unwrap() as u32;
    let code = (index(INITIALS, initial) * 21 + index(VOWELS, vowel)) * 28 + index(FINALS, final_);
    char::from_u32(0xAC00 + code).unwrap()
}

/// A command moving right: `initial` with final number `f`.
fn right(initial: char, f: usize) -> char {
    cell(initial, 'ㅏ', FINALS.chars().nth(f).unwrap())
}

/// The three-row program (see the module docs): `prologue` runs once,
/// the loop head selects storage `head`, `body` runs once per count, and
/// `exit` runs when the count reaches 0.
fn loop_program(prologue: &[char], head: usize, body: &[char], exit: &[char]) -> String {
    let m = prologue.len();
    let mut tail = body.to_vec();
    // count -= 1 (1 is 2 / 2), keep a copy, leave when it is 0.
    tail.extend([right('ㅅ', COUNTER), right('ㅂ', 1), right('ㅂ', 1)]);
    tail.extend([
        right('ㄴ', 0),
        right('ㅌ', 0),
        right('ㅃ', 0),
        cell('ㅊ', 'ㅜ', ' '),
    ]);
    let e = m + tail.len();
    let row0: String = prologue
        .iter()
        .copied()
        .chain([cell('ㅇ', 'ㅜ', ' ')])
        .collect();
    let row0 = format!(
        "{row0}{}{}",
        " ".repeat(e - m - 1),
        exit.iter().collect::<String>()
    );
    let row1 = format!(
        "{}{}{}",
        " ".repeat(m),
        right('ㅅ', head),
        tail.iter().collect::<String>()
    );
    let back = cell('ㅇ', 'ㅓ', ' ').to_string().repeat(e - m);
    let row2 = format!("{}{}{back}", " ".repeat(m), cell('ㅇ', 'ㅗ', ' '));
    format!("{row0}\n{row1}\n{row2}\n")
}

/// Pushes `n` (a product of stroke values) onto the selected storage.
fn push_product(factors: &[usize]) -> Vec<char> {
    let mut cells = vec![right('ㅂ', factors[0])];
    for &f in &factors[1..] {
        cells.extend([right('ㅂ', f), right('ㄸ', 0)]);
    }
    cells
}

/// A generated program and its stdin.
struct Case {
    program: String,
    input: Vec<u8>,
}

/// What the generator knows while it writes commands.
struct Gen {
    rng: SplitMix64,
    depth: [usize; 28],
    selected: usize,
    cells: Vec<char>,
}

impl Gen {
    /// A random storage other than the counter's.
    fn storage(&mut self) -> usize {
        loop {
            let s = self.rng.below(28);
            if s != COUNTER {
                return s;
            }
        }
    }

    fn select(&mut self, s: usize) {
        self.cells.push(right('ㅅ', s));
        self.selected = s;
    }

    /// Appends one random command that finds enough values.
    fn command(&mut self, input: bool) {
        let (s, d) = (self.selected, self.depth[self.selected]);
        let stroke_finals: Vec<usize> = (0..28).filter(|&f| STROKES[f].is_some()).collect();
        match self.rng.below(12) {
            0 | 1 => {
                let f = self.rng.pick(&stroke_finals);
                self.cells.push(right('ㅂ', f));
                self.depth[s] += 1;
            }
            2 if input => {
                let f = if self.rng.chance(50) { 21 } else { 27 };
                self.cells.push(right('ㅂ', f));
                self.depth[s] += 1;
            }
            3 if d >= 1 && s != CHANNEL => {
                self.cells.push(right('ㅃ', 0));
                self.depth[s] += 1;
            }
            4 if d >= 2 => self.cells.push(right('ㅍ', 0)),
            5 | 6 if d >= 2 => {
                let op = self
                    .rng
                    .pick(&['ㄷ', 'ㄸ', 'ㅌ', 'ㄴ', 'ㄹ', 'ㅈ', 'ㄸ', 'ㄷ']);
                self.cells.push(right(op, 0));
                self.depth[s] -= 1;
            }
            7 if d >= 1 => {
                let f = self.rng.pick(&[0, 21, 21, 27]);
                self.cells.push(right('ㅁ', f));
                self.depth[s] -= 1;
            }
            8 => {
                let t = self.storage();
                self.select(t);
            }
            9 if d >= 1 => {
                let t = self.storage();
                self.cells.push(right('ㅆ', t));
                self.depth[s] -= 1;
                self.depth[t] += 1;
            }
            _ => {}
        }
    }

    /// Pushes onto every storage that has fewer values than `floor`.
    fn refill(&mut self, floor: &[usize; 28]) {
        for (s, &floor) in floor.iter().enumerate() {
            while self.depth[s] < floor {
                if self.selected != s {
                    self.select(s);
                }
                let f = self.rng.pick(&[1, 4, 7, 8, 10]);
                self.cells.push(right('ㅂ', f));
                self.depth[s] += 1;
            }
        }
    }

    /// Takes the commands written so far.
    fn take(&mut self) -> Vec<char> {
        std::mem::take(&mut self.cells)
    }
}

/// The random program of `seed`.
fn generate(seed: u64) -> Case {
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        depth: [0; 28],
        selected: 0,
        cells: Vec::new(),
    };
    // Fill a few storages; sometimes with 9^8, whose products overflow.
    for _ in 0..1 + g.rng.below(4) {
        let s = g.storage();
        g.select(s);
        for _ in 0..1 + g.rng.below(3) {
            if g.rng.chance(20) {
                g.cells
                    .extend([right('ㅂ', 10), right('ㅃ', 0), right('ㄸ', 0)]);
                g.cells.extend([
                    right('ㅃ', 0),
                    right('ㄸ', 0),
                    right('ㅃ', 0),
                    right('ㄸ', 0),
                ]);
            } else {
                let f = g.rng.below(21);
                g.cells.push(right('ㅂ', f));
            }
            g.depth[s] += 1;
        }
    }
    let count: Vec<usize> = (0..1 + g.rng.below(3))
        .map(|_| g.rng.pick(&[1, 4, 7, 8, 10, 16]))
        .collect();
    g.select(COUNTER);
    g.cells.extend(push_product(&count));
    let prologue = g.take();
    let head = g.storage();
    g.selected = head;
    let floor = g.depth;
    let input = g.rng.chance(40);
    for _ in 0..g.rng.below(30) {
        g.command(input);
    }
    g.refill(&floor);
    let body = g.take();
    // Exit: print some of what is left, then halt with a storage's top.
    for s in [QUEUE, g.storage(), g.storage()] {
        if g.depth[s] > 0 && g.rng.chance(70) {
            g.select(s);
            for _ in 0..g.depth[s].min(3) {
                g.cells.push(right('ㅁ', 21));
                g.depth[s] -= 1;
            }
        }
    }
    let last = g.storage();
    g.select(last);
    g.cells.push(cell('ㅎ', 'ㅏ', ' '));
    let exit = g.take();
    let input = (0..g.rng.below(400))
        .map(|i| {
            let n = g.rng.next_u64() % 1000;
            match i % 3 {
                0 => format!("{n}\n"),
                1 => format!("-{n}\n"),
                _ => format!("{n}x\n"),
            }
        })
        .collect::<String>();
    Case {
        program: loop_program(&prologue, head, &body, &exit),
        input: input.into_bytes(),
    }
}

/// An engine: its name, its flags and its environment.
type Engine = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// The engines compared with the plain interpreter.
const ENGINES: [Engine; 5] = [
    ("jit", &[], &[]),
    ("threshold 1", &["--threshold", "1"], &[]),
    (
        "threshold 1, gc stress",
        &["--threshold", "1"],
        &[("MAJIT_GC_STRESS", "1")],
    ),
    (
        "threshold 1, gc stress, diff mode",
        &["--threshold", "1", "--stats"],
        &[("MAJIT_DIFF", "3"), ("MAJIT_GC_STRESS", "1")],
    ),
    (
        "threshold 1, diff mode",
        &["--threshold", "1", "--stats"],
        &[("MAJIT_DIFF", "3")],
    ),
];

/// What a run shows: stdout, exit status, the interpreter's error lines.
fn observed(r: &common::Run) -> (Vec<u8>, Option<i32>, Vec<String>) {
    let errors = r.stderr.lines().filter(|l| l.starts_with("aheui:"));
    (
        r.stdout.clone(),
        r.status,
        errors.map(String::from).collect(),
    )
}

/// The stats line `name: N` of a `--stats` run.
fn stat(stderr: &str, name: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix(name)?
                .trim_start_matches([':', ' '])
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Runs case `seed` on every engine; the stderr of the `--stats` runs
/// (diff mode with and without GC stress).
fn check(seed: u64, dir: &std::path::Path) -> Vec<String> {
    let case = generate(seed);
    let file = dir.join(format!("case{seed}.aheui"));
    std::fs::write(&file, &case.program).unwrap();
    let file = file.to_string_lossy().into_owned();
    let limit = Duration::from_secs(60);
    let plain = run(&["--no-jit", &file], &case.input, &[], limit);
    assert!(
        plain.status.is_some(),
        "seed {seed}: the plain run hung\n{}",
        case.program
    );
    let mut diff_stderr = Vec::new();
    for (name, flags, env) in ENGINES {
        let args: Vec<&str> = flags.iter().copied().chain([file.as_str()]).collect();
        let r = run(&args, &case.input, env, limit);
        assert_eq!(
            observed(&r),
            observed(&plain),
            "seed {seed} ({name}) differs from --no-jit; replay with MAJIT_FUZZ_SEED={seed}\n{}\nstderr: {}",
            case.program,
            r.stderr
        );
        if flags.contains(&"--stats") {
            diff_stderr.push(r.stderr);
        }
    }
    diff_stderr
}

/// The default seeds: 300 natively, 40 under an emulator
/// (`MAJIT_TEST_RUNNER`, e.g. qemu-aarch64), where each of a case's seven
/// runs is an emulated process and the full range would take CI minutes.
fn default_seeds() -> std::ops::Range<u64> {
    match std::env::var_os("MAJIT_TEST_RUNNER") {
        Some(_) => 0..40,
        None => 0..300,
    }
}

#[test]
fn random_programs_agree_on_every_engine() {
    let dir = std::env::temp_dir().join(format!("aheui-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut compiled, mut checks, mut inconclusive, mut renamed, mut cases) = (0, 0, 0, 0, 0);
    for seed in fuzz_seeds(default_seeds()) {
        let runs = check(seed, &dir);
        compiled += u64::from(stat(&runs[1], "loops compiled") > 0);
        for stderr in &runs {
            checks += stat(stderr, "diff checks");
            inconclusive += inconclusive_of(stderr);
            renamed += stat(stderr, "diff after a collection");
        }
        cases += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{cases} cases: {compiled} compiled a loop; {checks} diff checks, \
         {renamed} after a collection, {inconclusive} inconclusive"
    );
    if !replaying() {
        // Most programs loop long enough to be compiled at threshold 1,
        // and diff mode checks their entries conclusively.
        assert!(
            compiled * 2 > cases,
            "{compiled} of {cases} compiled a loop"
        );
        assert!(checks >= 2 * compiled, "{checks} diff checks");
        assert!(
            renamed > 0,
            "no check saw a collection during the native run"
        );
        assert_eq!(inconclusive, 0, "inconclusive diff checks");
    }
}

/// The inconclusive count of the stats line `diff checks: N (M inconclusive)`.
fn inconclusive_of(stderr: &str) -> u64 {
    let line = stderr.lines().find(|l| l.starts_with("diff checks"));
    line.and_then(|l| l.split('(').nth(1)?.split(' ').next()?.parse().ok())
        .unwrap_or(0)
}

/// A loop that reads 2000 numbers (or characters) and prints them: the
/// input is larger than the stdin buffer, so the forked reference run
/// could not read it again; its residual calls are replayed instead, and
/// diff mode checks the entry conclusively, also under GC stress.
#[test]
fn diff_mode_replays_input_beyond_the_stdin_buffer() {
    let dir = std::env::temp_dir().join(format!("aheui-fuzz-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let numbers: String = (0..2000i64)
        .map(|i| format!("{}\n", i * 1234567 % 99991))
        .collect();
    let chars: String = (0..12000)
        .map(|i| char::from(b'-' + (i % 50) as u8))
        .collect();
    for (read, input) in [(21, numbers), (27, chars)] {
        // 2000 = 5 * 5 * 5 * 4 * 4 iterations of: read, print it, print LF.
        let body = [
            right('ㅂ', read),
            right('ㅁ', 21),
            right('ㅂ', 8),
            right('ㅂ', 1),
        ];
        let body = [&body[..], &[right('ㄸ', 0), right('ㅁ', 27)]].concat();
        let mut prologue = vec![right('ㅅ', COUNTER)];
        prologue.extend(push_product(&[8, 8, 8, 16, 16]));
        let program = loop_program(&prologue, 0, &body, &[cell('ㅎ', 'ㅏ', ' ')]);
        let file = dir.join(format!("read{read}.aheui"));
        std::fs::write(&file, program).unwrap();
        let file = file.to_string_lossy().into_owned();
        let limit = Duration::from_secs(120);
        let plain = run(&["--no-jit", &file], input.as_bytes(), &[], limit);
        assert_eq!(plain.status, Some(0), "{}", plain.stderr);
        let args = ["--threshold", "1", "--stats", file.as_str()];
        for stress in ["0", "1"] {
            let env = [("MAJIT_DIFF", "3"), ("MAJIT_GC_STRESS", stress)];
            let diff = run(&args, input.as_bytes(), &env, limit);
            assert_eq!(observed(&diff), observed(&plain), "{}", diff.stderr);
            assert!(stat(&diff.stderr, "loop entries") >= 1, "{}", diff.stderr);
            assert!(stat(&diff.stderr, "diff checks") >= 1, "{}", diff.stderr);
            assert_eq!(inconclusive_of(&diff.stderr), 0, "{}", diff.stderr);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
