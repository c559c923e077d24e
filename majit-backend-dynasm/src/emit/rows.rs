//! The harness of the per-arch encoder tests (`<arch>/emit_tests.rs`):
//! each row encodes one instruction (or one short sequence) with the
//! arch's encoder and states its bytes and the in-tree disassembler's text
//! for them, so a row documents what the bytes mean and a change to
//! either the encoder or the disassembler shows up as a failing row.

use super::buffer::Asm;
use crate::arch::EmitEnv;
use dynasmrt::relocations::Relocation;

/// One row: what it encodes, the encoder calls, the bytes (hex, spaced),
/// the disassembly (instructions joined by `"; "`).
pub type Row<E> = (&'static str, fn(&mut E), &'static str, &'static str);

/// The bytes and disassembly of what `f` emits on a fresh emitter.
fn encode<R: Relocation, C>(arch: &str, f: fn(&mut Asm<R, C>)) -> (String, String) {
    let mut e = Asm::new(EmitEnv::default());
    f(&mut e);
    e.ops.commit().expect("assembles");
    let bytes = e.ops.take().expect("bytes");
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let pool_at = bytes.len().next_multiple_of(8);
    let insns = crate::disasm::disassemble(arch, &bytes, pool_at, &|_| None).expect("arch");
    let text: Vec<String> = insns.into_iter().map(|i| i.text).collect();
    (hex.join(" "), text.join("; "))
}

/// Checks every row of `arch`, reporting all mismatches at once.
pub fn check<R: Relocation, C>(arch: &str, rows: &[Row<Asm<R, C>>]) {
    let mut wrong = Vec::new();
    for &(what, f, bytes, text) in rows {
        let found = encode(arch, f);
        if found != (bytes.to_string(), text.to_string()) {
            wrong.push(format!("{what}: {:?}, {:?}", found.0, found.1));
        }
    }
    assert!(wrong.is_empty(), "rows that differ:\n{}", wrong.join("\n"));
}
