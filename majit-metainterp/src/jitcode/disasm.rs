//! The jitcode disassembler, for logs and test failure messages.
//!
//! One line per instruction: `pc: name operands -> dst`. Registers print as
//! `%i3`/`%r0`/`%f1`, constants as `$42`, `$ptr(0x1000)`, `$1.5`; labels as
//! `L<pc>`; descrs by name; a `pure` or `ovf` instruction prints its IR
//! op's name; a `-live-` marker prints its registers.

use super::{JitCode, Operand, RegOp};
use majit_ir::{Kind, Value};
use std::fmt::Write;

impl JitCode {
    /// The text form of operand `r`: a register or a constant.
    pub fn operand_text(&self, r: RegOp) -> String {
        if self.is_const(r) {
            match self.const_value(r) {
                Value::Int(v) => format!("${v}"),
                Value::Ref(a) => format!("$ptr({a:#x})"),
                Value::Float(v) => format!("${v:?}"),
            }
        } else {
            format!("%{}{}", bank_letter(r.kind), r.index)
        }
    }

    fn operand_list(&self, list: &[RegOp]) -> String {
        let items: Vec<String> = list.iter().map(|&r| self.operand_text(r)).collect();
        format!("[{}]", items.join(", "))
    }

    /// The whole function, one instruction per line, with a header naming
    /// the function and its register counts.
    pub fn disassemble(&self) -> String {
        let mut out = String::new();
        let [ni, nr, nf] = self.num_regs;
        let _ = writeln!(out, "jitcode {} (regs: i{ni} r{nr} f{nf})", self.name);
        for pc in self.insn_starts() {
            let _ = writeln!(out, "{pc:5}: {}", self.insn_text(pc));
        }
        out
    }

    /// The instruction at `pc` as text (without its pc).
    pub fn insn_text(&self, pc: usize) -> String {
        let insn = self.decode(pc);
        let mut parts = Vec::new();
        let mut name = insn.op.name().to_string();
        for o in &insn.operands {
            parts.push(match o {
                Operand::Reg(r) => self.operand_text(*r),
                Operand::Label(l) => format!("L{l}"),
                Operand::Descr(d) => format!("<{}>", self.descrs[*d as usize]),
                Operand::OpCode(op) => {
                    name = op.name().to_string();
                    continue;
                }
                Operand::List(l) => self.operand_list(l),
                Operand::Callee(f) => format!("<func#{}>", f.0),
                Operand::Switch(s) => {
                    let cases: Vec<String> = self.switches[*s as usize]
                        .cases
                        .iter()
                        .map(|(v, l)| format!("{v}: L{l}"))
                        .collect();
                    format!("{{{}}}", cases.join(", "))
                }
                Operand::Live(i) => {
                    let regs: Vec<RegOp> = self.liveness[*i as usize].regs().collect();
                    self.operand_list(&regs)
                }
            });
        }
        let mut text = format!("{name} {}", parts.join(", "));
        if let Some(d) = insn.dst {
            let _ = write!(text, " -> {}", self.operand_text(d));
        }
        text.trim_end().to_string()
    }
}

fn bank_letter(kind: Kind) -> char {
    match kind {
        Kind::Int => 'i',
        Kind::Ref => 'r',
        Kind::Float => 'f',
    }
}
