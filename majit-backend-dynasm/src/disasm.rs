//! Disassembly of compiled traces for logs, for both architectures on any
//! host (decoding is only reading bytes): x86_64 with `iced-x86`, aarch64
//! with `yaxpeax-arm`.
//!
//! Code is decoded as if it started at address 0, so branch targets and
//! PC-relative loads print as offsets into the trace and two runs print the
//! same text. A PC-relative reference into the pool is annotated with the
//! pool word's index (`; pool[3]`). Constants the caller names as addresses
//! (`names`) are printed as `<name>` and their bytes as `..`: on x86_64 a
//! `mov` immediate, on aarch64 every `movz`/`movn`/`movk` of the sequence
//! that builds the address.

use majit_metainterp::Insn;

/// Disassembles `code` of architecture `arch` (`"x86_64"` or `"aarch64"`).
/// `pool_at` is the offset where the pool starts (references from there on
/// are annotated as pool words); `names` names the values that are
/// addresses. An unknown architecture is an error naming it.
///
/// ```
/// use majit_backend_dynasm::disasm::disassemble;
/// // add rax, rbx
/// let x86 = disassemble("x86_64", &[0x48, 0x01, 0xd8], 8, &|_| None).unwrap();
/// assert_eq!(x86[0].text, "add rax, rbx");
/// // add x0, x1, x2
/// let a64 = disassemble("aarch64", &[0x20, 0x00, 0x02, 0x8b], 8, &|_| None).unwrap();
/// assert_eq!(a64[0].text, "add x0, x1, x2");
/// ```
pub fn disassemble(
    arch: &str,
    code: &[u8],
    pool_at: usize,
    names: &dyn Fn(u64) -> Option<String>,
) -> Result<Vec<Insn>, String> {
    match arch {
        "x86_64" => Ok(x86_64(code, pool_at, names)),
        "aarch64" => Ok(aarch64(code, pool_at, names)),
        other => Err(format!("no disassembler for architecture {other:?}")),
    }
}

/// Where a PC-relative reference to `target` points, as a comment.
fn target_note(target: u64, pool_at: usize) -> String {
    let pool_at = pool_at as u64;
    if target >= pool_at && (target - pool_at).is_multiple_of(8) {
        format!("  ; pool[{}]", (target - pool_at) / 8)
    } else {
        format!("  ; -> {target:#x}")
    }
}

/// `bytes` as hex, with the bytes in `masked` as `..`.
fn hex(bytes: &[u8], masked: std::ops::Range<usize>) -> String {
    let cells: Vec<String> = bytes
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if masked.contains(&i) {
                "..".to_string()
            } else {
                format!("{b:02x}")
            }
        })
        .collect();
    cells.join(" ")
}

fn x86_64(code: &[u8], pool_at: usize, names: &dyn Fn(u64) -> Option<String>) -> Vec<Insn> {
    use iced_x86::{Decoder, DecoderOptions, Formatter, Instruction, IntelFormatter, OpKind};
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut fmt = IntelFormatter::new();
    fmt.options_mut().set_hex_prefix("0x");
    fmt.options_mut().set_hex_suffix("");
    fmt.options_mut().set_uppercase_hex(false);
    fmt.options_mut().set_space_after_operand_separator(true);
    fmt.options_mut().set_branch_leading_zeros(false);
    let mut out = Vec::new();
    let mut ins = Instruction::default();
    while decoder.can_decode() {
        decoder.decode_out(&mut ins);
        let offset = ins.ip() as usize;
        let bytes = &code[offset..offset + ins.len()];
        let mut text = String::new();
        fmt.format(&ins, &mut text);
        let mut masked = 0..0;
        let imm = (0..ins.op_count()).find(|&i| {
            matches!(
                ins.op_kind(i),
                OpKind::Immediate64 | OpKind::Immediate32to64 | OpKind::Immediate32
            )
        });
        let named = imm
            .map(|i| ins.immediate(i))
            .and_then(|v| Some((v, names(v)?)));
        if let Some((v, name)) = named {
            text = text.replace(&format!("{v:#x}"), &format!("<{name}>"));
            let offs = decoder.get_constant_offsets(&ins);
            if offs.has_immediate() {
                let at = offs.immediate_offset();
                masked = at..at + offs.immediate_size();
            }
        }
        // Branch and memory targets already print as offsets; only a pool
        // word gets a note.
        if ins.is_ip_rel_memory_operand() && ins.ip_rel_memory_address() >= pool_at as u64 {
            text += &target_note(ins.ip_rel_memory_address(), pool_at);
        }
        out.push(Insn {
            offset,
            hex: hex(bytes, masked),
            text,
        });
    }
    out
}

/// A `movz`/`movn`/`movk` of a 64-bit register: `(kind, rd, shift, imm16)`.
fn a64_mov_wide(w: u32) -> Option<(u32, u32, u32, u64)> {
    let kind = w & 0xff80_0000;
    if ![0xd280_0000, 0x9280_0000, 0xf280_0000].contains(&kind) {
        return None;
    }
    Some((
        kind,
        w & 31,
        ((w >> 21) & 3) * 16,
        u64::from((w >> 5) & 0xffff),
    ))
}

/// The runs of `movz`/`movn` + `movk` into one register: for each word
/// index that belongs to a run, the value the run leaves in the register.
fn a64_constants(words: &[u32]) -> Vec<Option<u64>> {
    let mut out = vec![None; words.len()];
    let mut i = 0;
    while i < words.len() {
        let Some((kind, rd, shift, imm)) = a64_mov_wide(words[i]) else {
            i += 1;
            continue;
        };
        if kind == 0xf280_0000 {
            i += 1;
            continue;
        }
        let mut v = if kind == 0xd280_0000 {
            imm << shift
        } else {
            !(imm << shift)
        };
        let mut end = i + 1;
        while let Some((0xf280_0000, r, s, h)) = words.get(end).and_then(|&w| a64_mov_wide(w)) {
            if r != rd {
                break;
            }
            v = (v & !(0xffff << s)) | (h << s);
            end += 1;
        }
        out[i..end].iter_mut().for_each(|c| *c = Some(v));
        i = end;
    }
    out
}

/// The target of a PC-relative aarch64 instruction at `at` (literal loads,
/// `adr`, branches), if `w` is one.
fn a64_target(w: u32, at: u64) -> Option<u64> {
    let sext = |v: u32, bits: u32| (((v << (32 - bits)) as i32) >> (32 - bits)) as i64;
    let rel = if w & 0xbf00_0000 == 0x1800_0000 || w & 0xff00_0000 == 0x5c00_0000 {
        // ldr (literal), 32/64-bit register or d register
        sext((w >> 5) & 0x7ffff, 19) * 4
    } else if w & 0x9f00_0000 == 0x1000_0000 {
        // adr
        sext((((w >> 5) & 0x7ffff) << 2) | ((w >> 29) & 3), 21)
    } else if w & 0x7c00_0000 == 0x1400_0000 {
        // b, bl
        sext(w & 0x03ff_ffff, 26) * 4
    } else if w & 0xff00_0010 == 0x5400_0000 || w & 0x7e00_0000 == 0x3400_0000 {
        // b.cond, cbz, cbnz
        sext((w >> 5) & 0x7ffff, 19) * 4
    } else {
        return None;
    };
    Some(at.wrapping_add(rel as u64))
}

fn aarch64(code: &[u8], pool_at: usize, names: &dyn Fn(u64) -> Option<String>) -> Vec<Insn> {
    use yaxpeax_arch::{Decoder, U8Reader};
    let decoder = yaxpeax_arm::armv8::a64::InstDecoder::default();
    let words: Vec<u32> = code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let constants = a64_constants(&words);
    let mut out = Vec::new();
    for (k, (&w, bytes)) in words.iter().zip(code.chunks_exact(4)).enumerate() {
        let offset = 4 * k;
        let name = constants[k].and_then(names);
        let mut text = match (&name, a64_mov_wide(w)) {
            (Some(name), Some((kind, rd, ..))) => {
                let m = match kind {
                    0xd280_0000 => "movz",
                    0x9280_0000 => "movn",
                    _ => "movk",
                };
                format!("{m} x{rd}, <{name}>")
            }
            _ => match decoder.decode(&mut U8Reader::new(bytes)) {
                Ok(ins) => ins.to_string(),
                Err(_) => format!(".word {w:#010x}"),
            },
        };
        if let Some(t) = a64_target(w, offset as u64) {
            text += &target_note(t, pool_at);
        }
        let masked = if name.is_some() { 0..4 } else { 0..0 };
        out.push(Insn {
            offset,
            hex: hex(bytes, masked),
            text,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn x86_64_masks_named_immediates_and_notes_pool_loads() {
        // mov rcx, 0x7f0012345678 ; call qword ptr [rip] (-> pool[0] at 16)
        let mut code = vec![0x48, 0xb9, 0x78, 0x56, 0x34, 0x12, 0x00, 0x7f, 0, 0];
        code.extend([0xff, 0x15, 0x00, 0, 0, 0]);
        let names = |v: u64| (v == 0x7f00_1234_5678).then(|| "ptr1".to_string());
        let l = disassemble("x86_64", &code, 16, &names).unwrap();
        assert_eq!(l[0].text, "mov rcx, <ptr1>");
        assert_eq!(l[0].hex, "48 b9 .. .. .. .. .. .. .. ..");
        assert_eq!(l[1].offset, 10);
        assert!(
            l[1].text.starts_with("call qword ptr [0x10]"),
            "{}",
            l[1].text
        );
        assert!(l[1].text.ends_with("; pool[0]"), "{}", l[1].text);
    }

    #[test]
    fn aarch64_masks_a_named_movz_movk_sequence() {
        // mov x16, #0x5678 ; movk x16, #0x1234, lsl #32 ; blr x16 ; mov x1, #5
        let code = words(&[0xd28a_cf10, 0xf2c2_4690, 0xd63f_0200, 0xd280_00a1]);
        let names = |v: u64| (v == 0x1234_0000_5678).then(|| "fn:helper".to_string());
        let l = disassemble("aarch64", &code, 16, &names).unwrap();
        assert_eq!(l[0].text, "movz x16, <fn:helper>");
        assert_eq!(l[1].text, "movk x16, <fn:helper>");
        assert_eq!(l[1].hex, ".. .. .. ..");
        assert_eq!(l[2].text, "blr x16");
        assert_eq!(l[3].text, "mov x1, #0x5");
        assert_eq!(l[3].hex, "a1 00 80 d2");
    }

    #[test]
    fn aarch64_notes_literal_loads_and_branch_targets() {
        // ldr x16, <+8> ; b.ne <-4>
        let code = words(&[0x5800_0050, 0x54ff_ffe1]);
        let l = disassemble("aarch64", &code, 8, &|_| None).unwrap();
        assert!(l[0].text.starts_with("ldr x16"), "{}", l[0].text);
        assert!(l[0].text.ends_with("; pool[0]"), "{}", l[0].text);
        assert!(l[1].text.ends_with("; -> 0x0"), "{}", l[1].text);
    }

    #[test]
    fn unknown_architecture_is_an_error() {
        let e = disassemble("riscv64", &[0; 4], 4, &|_| None).unwrap_err();
        assert!(e.contains("riscv64"), "{e}");
    }
}
