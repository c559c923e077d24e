//! The reference execution's result as bytes, from the child to the parent.
//!
//! Little-endian `u64` words: a tag, then for a frame the exit's code id and
//! op index, the fail-descr id (`u64::MAX` for none), the value count and
//! per value its kind, bits and whether it is an object the reference
//! execution allocated, then the count of written memory locations and per
//! location its address, size, final bits, freshness and the storing op;
//! for an error or an inconclusive run its message length and UTF-8 bytes.
//!
//! The other way, the parent sends the residual calls native code made
//! (`runtime/record.rs`), also as words: their count, then per call its
//! site, function, argument count and arguments, result, raised exception
//! (its tag and value words, `Raised::tag`: tag 0 for none) and forced
//! flag.

use crate::backend::{CodeId, ExitId};
use crate::runtime::record::Entry;
use crate::runtime::signal::{Raised, Signals};
use majit_ir::{Kind, Value};

/// How the reference execution ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RefOutcome {
    /// It left through an exit.
    Frame {
        exit: ExitId,
        fail_id: Option<u32>,
        values: Vec<Value>,
        /// Per value: a ref to an object allocated during this execution
        /// (its address cannot match the native side's).
        fresh: Vec<bool>,
        /// The final contents of the memory the execution stored to,
        /// outside the objects it allocated.
        written: Vec<Written>,
    },
    /// The reference executor reported an error.
    Failed(String),
    /// It could not be compared, for this reason (e.g. it ran out of
    /// steps, or a collection moved objects).
    Inconclusive(String),
}

/// Memory a store of the reference execution left: `size` bytes at
/// `addr` hold `bits`, last stored by the op at `by`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Written {
    pub addr: usize,
    pub size: u8,
    pub bits: u64,
    /// `bits` is the address of an object the execution allocated.
    pub fresh: bool,
    pub by: ExitId,
}

const FRAME: u64 = 0;
const FAILED: u64 = 1;
const INCONCLUSIVE: u64 = 2;

/// The bytes of `outcome`.
pub(crate) fn encode(outcome: &RefOutcome) -> Vec<u8> {
    let mut words: Vec<u64> = Vec::new();
    let mut tail: &[u8] = &[];
    match outcome {
        RefOutcome::Frame {
            exit,
            fail_id,
            values,
            fresh,
            written,
        } => {
            words.extend([FRAME, u64::from(exit.code.0), u64::from(exit.op_index)]);
            words.push(fail_id.map_or(u64::MAX, u64::from));
            words.push(values.len() as u64);
            for (v, &f) in values.iter().zip(fresh) {
                let kind = match v.kind() {
                    Kind::Int => 0,
                    Kind::Ref => 1,
                    Kind::Float => 2,
                };
                words.extend([kind, v.to_bits(), u64::from(f)]);
            }
            words.push(written.len() as u64);
            for w in written {
                words.extend([w.addr as u64, u64::from(w.size), w.bits, u64::from(w.fresh)]);
                words.extend([u64::from(w.by.code.0), u64::from(w.by.op_index)]);
            }
        }
        RefOutcome::Failed(message) | RefOutcome::Inconclusive(message) => {
            let tag = match outcome {
                RefOutcome::Failed(_) => FAILED,
                _ => INCONCLUSIVE,
            };
            words.extend([tag, message.len() as u64]);
            tail = message.as_bytes();
        }
    }
    let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.extend_from_slice(tail);
    bytes
}

/// The outcome in `bytes`, or `None` when they are not a whole message.
pub(crate) fn decode(bytes: &[u8]) -> Option<RefOutcome> {
    let mut r = Reader { bytes, at: 0 };
    let outcome = match r.word()? {
        FRAME => {
            let code = CodeId(u32::try_from(r.word()?).ok()?);
            let op_index = u32::try_from(r.word()?).ok()?;
            let fail_id = match r.word()? {
                u64::MAX => None,
                id => Some(u32::try_from(id).ok()?),
            };
            let n = usize::try_from(r.word()?).ok()?;
            let (mut values, mut fresh) = (Vec::new(), Vec::new());
            for _ in 0..n {
                let kind = match r.word()? {
                    0 => Kind::Int,
                    1 => Kind::Ref,
                    2 => Kind::Float,
                    _ => return None,
                };
                values.push(Value::from_bits(kind, r.word()?));
                fresh.push(r.word()? != 0);
            }
            let n = usize::try_from(r.word()?).ok()?;
            let mut written = Vec::new();
            for _ in 0..n {
                let (addr, size) = (usize::try_from(r.word()?).ok()?, r.word()?);
                let (bits, fresh) = (r.word()?, r.word()? != 0);
                let code = CodeId(u32::try_from(r.word()?).ok()?);
                let op_index = u32::try_from(r.word()?).ok()?;
                written.push(Written {
                    addr,
                    size: u8::try_from(size).ok()?,
                    bits,
                    fresh,
                    by: ExitId { code, op_index },
                });
            }
            RefOutcome::Frame {
                exit: ExitId { code, op_index },
                fail_id,
                values,
                fresh,
                written,
            }
        }
        tag @ (FAILED | INCONCLUSIVE) => {
            let n = usize::try_from(r.word()?).ok()?;
            let text = r.bytes.get(r.at..r.at.checked_add(n)?)?;
            r.at += n;
            let text = String::from_utf8_lossy(text).into_owned();
            match tag {
                FAILED => RefOutcome::Failed(text),
                _ => RefOutcome::Inconclusive(text),
            }
        }
        _ => return None,
    };
    (r.at == bytes.len()).then_some(outcome)
}

/// The bytes of the recorded calls `log`.
pub(crate) fn encode_calls(log: &[Entry]) -> Vec<u8> {
    let mut words = vec![log.len() as u64];
    for e in log {
        words.extend([e.site as u64, e.func as u64, e.args.len() as u64]);
        words.extend(&e.args);
        let (tag, bits) = e.signals.exception.map_or((0, 0), |x| (x.tag(), x.bits()));
        words.extend([e.result, tag, bits, u64::from(e.signals.forced)]);
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The recorded calls in `bytes`, or `None` when they are not a whole log.
pub(crate) fn decode_calls(bytes: &[u8]) -> Option<Vec<Entry>> {
    let mut r = Reader { bytes, at: 0 };
    let n = usize::try_from(r.word()?).ok()?;
    let mut log = Vec::new();
    for _ in 0..n {
        let (site, func) = (r.word()? as usize, r.word()? as usize);
        let nargs = usize::try_from(r.word()?).ok()?;
        let args = (0..nargs).map(|_| r.word()).collect::<Option<Vec<u64>>>()?;
        let (result, tag, bits, forced) = (r.word()?, r.word()?, r.word()?, r.word()?);
        let signals = Signals {
            exception: Raised::from_words(tag, bits),
            forced: forced != 0,
        };
        log.push(Entry {
            site,
            func,
            args,
            result,
            signals,
        });
    }
    (r.at == bytes.len()).then_some(log)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn word(&mut self) -> Option<u64> {
        let b = self.bytes.get(self.at..self.at + 8)?;
        self.at += 8;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_round_trip_and_truncations_are_rejected() {
        let frame = RefOutcome::Frame {
            exit: ExitId {
                code: CodeId(3),
                op_index: 17,
            },
            fail_id: Some(9),
            values: vec![Value::Int(-5), Value::Ref(0x1000), Value::Float(f64::NAN)],
            fresh: vec![false, true, false],
            written: vec![Written {
                addr: 0x2000,
                size: 4,
                bits: 77,
                fresh: false,
                by: ExitId {
                    code: CodeId(1),
                    op_index: 2,
                },
            }],
        };
        let outcomes = [
            frame,
            RefOutcome::Failed("null pointer access at op 4".into()),
            RefOutcome::Inconclusive("step limit".into()),
        ];
        for o in outcomes {
            let bytes = encode(&o);
            assert_eq!(decode(&bytes), Some(o.clone()));
            assert_eq!(decode(&bytes[..bytes.len() - 1]), None, "{o:?}");
        }
    }

    #[test]
    fn call_logs_round_trip_and_truncations_are_rejected() {
        let log = vec![
            Entry {
                site: 0x10,
                func: 0x20,
                args: vec![1, u64::MAX],
                result: 7,
                signals: Signals::default(),
            },
            Entry {
                site: 0x10,
                func: 0x30,
                args: vec![],
                result: 0,
                signals: Signals {
                    exception: Some(Raised::Value(Value::Ref(0x40))),
                    forced: true,
                },
            },
        ];
        let bytes = encode_calls(&log);
        assert_eq!(decode_calls(&bytes), Some(log));
        assert_eq!(decode_calls(&bytes[..bytes.len() - 1]), None);
    }
}
