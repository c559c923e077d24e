//! Register allocation for the lowering: compile-time register numbers
//! per bank, reused once dead.
//!
//! Expression temporaries live on a stack; a statement records a mark
//! before it runs and frees everything pushed after it (the statement's
//! temporaries are dead once it completes). `let` variables take their
//! register outside that stack and free it when their block ends.
//! Registers keep the number the builder will hand out: the generated
//! code reserves `count(bank)` registers per bank in order.

use proc_macro2::TokenStream;
use quote::quote;

/// A register bank of the jitcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bank {
    Int,
    Ref,
    Float,
}

impl Bank {
    /// The IR kind of this bank.
    pub fn kind(self) -> TokenStream {
        match self {
            Bank::Int => quote!(::majit::ir::Kind::Int),
            Bank::Ref => quote!(::majit::ir::Kind::Ref),
            Bank::Float => quote!(::majit::ir::Kind::Float),
        }
    }
}

/// A register: bank and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct R {
    pub bank: Bank,
    pub idx: u16,
}

impl R {
    /// The builder's `Reg` for this register.
    pub fn tokens(self) -> TokenStream {
        let i = self.idx;
        let kind = self.bank.kind();
        quote!(::majit::metainterp::jitcode::Reg { kind: #kind, index: #i })
    }
}

fn slot(bank: Bank) -> usize {
    match bank {
        Bank::Int => 0,
        Bank::Ref => 1,
        Bank::Float => 2,
    }
}

/// The allocator of one jitcode function.
#[derive(Default)]
pub struct Regs {
    next: [u16; 3],
    free: [Vec<u16>; 3],
    temps: Vec<R>,
}

impl Regs {
    fn take(&mut self, bank: Bank) -> R {
        let s = slot(bank);
        let idx = self.free[s].pop().unwrap_or_else(|| {
            self.next[s] += 1;
            self.next[s] - 1
        });
        R { bank, idx }
    }

    /// A register for a variable (freed with [`Regs::free_var`]).
    pub fn var(&mut self, bank: Bank) -> R {
        self.take(bank)
    }

    /// A register for a temporary of the current statement.
    pub fn temp(&mut self, bank: Bank) -> R {
        let r = self.take(bank);
        self.temps.push(r);
        r
    }

    /// Makes `r` (taken with [`Regs::var`]) a temporary of the current
    /// statement.
    pub fn adopt(&mut self, r: R) {
        self.temps.push(r);
    }

    /// Frees a variable's register.
    pub fn free_var(&mut self, r: R) {
        self.free[slot(r.bank)].push(r.idx);
    }

    /// The current temporary mark.
    pub fn mark(&self) -> usize {
        self.temps.len()
    }

    /// Frees the temporaries taken since `mark`.
    pub fn release(&mut self, mark: usize) {
        while self.temps.len() > mark {
            let r = self.temps.pop().expect("above the mark");
            self.free[slot(r.bank)].push(r.idx);
        }
    }

    /// Registers used in `bank` so far.
    pub fn count(&self, bank: Bank) -> u16 {
        self.next[slot(bank)]
    }
}
