//! The ledger: what the optimizer could not do, and why.
//!
//! Passes add entries while they run; the optimizer's output carries them
//! so stats and logs can print them. The one report every run makes: each
//! allocation that stays in the optimized trace, with the reason it
//! escaped (or why it was never made virtual).
//!
//! Entries are kept in the order they were made, which is deterministic
//! because the optimizer processes ops in trace order.

use std::fmt;

/// What kind of missed opportunity an entry records.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LedgerKind {
    /// A virtual was forced: its allocation is in the optimized trace.
    Escaped,
    /// An allocation was never made virtual.
    NotVirtual,
    /// Any other thing a pass left undone (a guard it could not remove...).
    Missed,
}

/// One entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerEntry {
    /// The `enable_opts` word of the pass that made the entry (`"output"`
    /// for the optimizer's final emission step).
    pub pass: &'static str,
    pub kind: LedgerKind,
    /// The index, in the INPUT trace, of the op concerned (for allocations:
    /// the `new*` op), when there is one.
    pub op_index: Option<usize>,
    /// Human-readable detail: the reason.
    pub detail: String,
}

/// All entries of one optimizer run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub entries: Vec<LedgerEntry>,
}

impl Ledger {
    /// Adds an entry.
    pub fn note(
        &mut self,
        pass: &'static str,
        kind: LedgerKind,
        op_index: Option<usize>,
        detail: String,
    ) {
        self.entries.push(LedgerEntry {
            pass,
            kind,
            op_index,
            detail,
        });
    }

    /// The entries about allocations left in the trace.
    pub fn allocations(&self) -> impl Iterator<Item = &LedgerEntry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.kind, LedgerKind::Escaped | LedgerKind::NotVirtual))
    }
}

impl fmt::Display for LedgerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            LedgerKind::Escaped => "escaped",
            LedgerKind::NotVirtual => "not virtual",
            LedgerKind::Missed => "missed",
        };
        match self.op_index {
            Some(i) => write!(f, "[{}] op {i} {what}: {}", self.pass, self.detail),
            None => write!(f, "[{}] {what}: {}", self.pass, self.detail),
        }
    }
}
