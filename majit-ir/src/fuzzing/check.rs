//! The checks fuzz targets and smoke tests run: round trip through text,
//! generated traces verify, mutated text and corrupted traces never panic
//! the parser, verifier or printer. Each failure panics with the seed and
//! the trace (as text where it prints).

use super::{random_trace, test_namespace, Knobs, SplitMix64};
use crate::descr::Descr;
use crate::op::OpRef;
use crate::opcode::OpCode;
use crate::text::{parse, print};
use crate::trace::Trace;
use crate::verify::verify;

/// Why `trace` fails the round trip (`parse(print(t)) == t` and printing
/// the result gives the same text), or `None` if it passes.
fn roundtrip_failure(trace: &Trace) -> Option<String> {
    let text = print(trace);
    match parse(&text) {
        Err(e) => Some(format!("printed text does not parse: {e}\n{text}")),
        Ok(back) if back != *trace => Some(format!(
            "parse(print(t)) != t\n--- printed\n{text}--- reprinted\n{}",
            print(&back)
        )),
        Ok(back) if print(&back) != text => Some(format!(
            "print(parse(print(t))) != print(t)\n--- printed\n{text}--- reprinted\n{}",
            print(&back)
        )),
        Ok(_) => None,
    }
}

/// Panics (with the trace text) unless `parse(print(trace)) == trace` and
/// printing is stable across the round trip.
pub fn check_roundtrip(trace: &Trace) {
    if let Some(why) = roundtrip_failure(trace) {
        panic!("round trip failed: {why}");
    }
}

/// Generates the trace of `seed`, verifies it and round-trips it; panics
/// with the seed and the trace text on any failure.
pub fn check_seed(seed: u64, knobs: &Knobs) {
    let t = random_trace(seed, knobs);
    if let Err(e) = verify(&t) {
        panic!(
            "seed {seed}: generated trace does not verify:\n{e}\n{}",
            print(&t)
        );
    }
    if let Some(why) = roundtrip_failure(&t) {
        panic!("seed {seed}: round trip failed: {why}");
    }
}

/// A copy of `trace` with one to three random structural corruptions:
/// an argument or fail arg replaced by an arbitrary (possibly dangling)
/// reference, an op removed, two ops swapped, a descriptor dropped or
/// replaced, fail args toggled, or the opcode replaced. The result is
/// usually invalid; it exercises the verifier and printer on bad traces.
pub fn corrupt_trace(trace: &Trace, seed: u64) -> Trace {
    let mut rng = SplitMix64::new(seed);
    let mut t = trace.clone();
    let descrs: Vec<Descr> = test_namespace().descrs().cloned().collect();
    for _ in 0..1 + rng.below(3) {
        if t.ops.is_empty() {
            break;
        }
        let i = rng.below(t.ops.len());
        match rng.below(6) {
            0 => {
                let r = match rng.below(3) {
                    0 => OpRef::input(rng.below(t.inputs.len() + 2)),
                    1 => OpRef::op(rng.below(t.ops.len() + 2)),
                    _ => OpRef::konst(rng.below(t.consts().len() + 2)),
                };
                let op = &mut t.ops[i];
                let n = op.args.len() + op.fail_args.as_ref().map_or(0, Vec::len);
                let k = rng.below(n.max(1));
                match (op.args.len(), &mut op.fail_args) {
                    (a, _) if k < a => op.args[k] = r,
                    (a, Some(fail)) if k - a < fail.len() => fail[k - a] = r,
                    _ => op.args.push(r),
                }
            }
            1 => {
                t.ops.remove(i);
            }
            2 => {
                let j = rng.below(t.ops.len());
                t.ops.swap(i, j);
            }
            3 => {
                t.ops[i].descr = rng
                    .chance(50)
                    .then(|| descrs[rng.below(descrs.len())].clone())
            }
            4 => {
                let op = &mut t.ops[i];
                op.fail_args = if op.fail_args.is_some() {
                    None
                } else {
                    Some(Vec::new())
                };
            }
            _ => t.ops[i].opcode = rng.pick(OpCode::ALL),
        }
    }
    t
}

/// Corrupts the trace of `seed` ([`corrupt_trace`]): verifying and
/// printing it must not panic, and if it still verifies it must
/// round-trip. Panics with the seed and the trace otherwise.
pub fn check_corruption(seed: u64, knobs: &Knobs) {
    let t = corrupt_trace(&random_trace(seed, knobs), seed ^ 0xc0de);
    let outcome = std::panic::catch_unwind(|| {
        let text = print(&t);
        match verify(&t) {
            Ok(()) => roundtrip_failure(&t),
            Err(e) => {
                let _ = (e.to_string(), text);
                None
            }
        }
    });
    match outcome {
        Err(_) => panic!("seed {seed}: the verifier or printer panicked on:\n{t:#?}"),
        Ok(Some(why)) => panic!("seed {seed}: corrupted trace verifies but {why}"),
        Ok(None) => {}
    }
}

/// Tokens that mutations splice in: the parser's punctuation, keywords,
/// and edge-case numbers.
const SPLICES: [&str; 24] = [
    "(",
    ")",
    "[",
    "]",
    ",",
    "=",
    "descr=",
    "descr x = ",
    "@",
    "@x",
    "#",
    "-",
    "1e999",
    "0x",
    "99999999999999999999",
    "-0x8000000000000001",
    "nan",
    "i0",
    "p99",
    "f1 =",
    "guard_true(",
    "float_bits(",
    "ptr(",
    "\u{e9}",
];

/// A mutated copy of `text`: one to four random edits (delete, duplicate
/// or swap lines, splice a token, replace or drop characters, truncate).
/// Used to check that the parser fails cleanly on almost-valid text.
pub fn mutate_text(text: &str, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let l = rng.below(lines.len());
        let mut chars: Vec<char> = lines[l].chars().collect();
        let at = rng.below(chars.len() + 1);
        match rng.below(7) {
            0 => {
                lines.remove(l);
            }
            1 => {
                let copy = lines[l].clone();
                lines.insert(rng.below(lines.len() + 1), copy);
            }
            2 => {
                let m = rng.below(lines.len());
                lines.swap(l, m);
            }
            3 => {
                let splice: Vec<char> = rng.pick(&SPLICES).chars().collect();
                chars.splice(at..at, splice);
                lines[l] = chars.into_iter().collect();
            }
            4 => {
                let end = (at + 1 + rng.below(4)).min(chars.len());
                chars.drain(at.min(end)..end);
                lines[l] = chars.into_iter().collect();
            }
            5 => {
                let c = char::from_u32(rng.below(0x300) as u32).unwrap_or('?');
                if at < chars.len() {
                    chars[at] = c;
                } else {
                    chars.push(c);
                }
                lines[l] = chars.into_iter().collect();
            }
            _ => {
                chars.truncate(at);
                lines[l] = chars.into_iter().collect();
                lines.truncate(l + 1);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Mutates the printed trace of `seed` and parses the result: it must not
/// panic, and if it parses and verifies it must round-trip. Panics with the
/// seed and the mutated text otherwise.
pub fn check_mutation(seed: u64, knobs: &Knobs) {
    let text = mutate_text(&print(&random_trace(seed, knobs)), seed ^ 0x5eed);
    let outcome = std::panic::catch_unwind(|| match parse(&text) {
        Ok(t) if verify(&t).is_ok() => roundtrip_failure(&t),
        Ok(t) => {
            let _ = print(&t);
            None
        }
        Err(e) => {
            let _ = e.to_string();
            None
        }
    });
    match outcome {
        Err(_) => panic!("seed {seed}: the parser or verifier panicked on:\n{text}"),
        Ok(Some(why)) => panic!("seed {seed}: mutated text verifies but {why}"),
        Ok(None) => {}
    }
}
