//! Decoding one Hangul syllable into what the interpreter executes.
//!
//! A precomposed syllable U+AC00..U+D7A3 splits arithmetically into an
//! initial consonant (the command), a medial vowel (the new momentum) and a
//! final consonant (the argument) — LANGUAGE.md §2. This file turns that
//! triple into an [`Op`] already specialised by its final (ㅁ+ㅇ is
//! [`Op::PrintNum`], ㅂ+ㄱ is [`Op::PushConst`] with 2, ...), so the dispatch
//! loop never looks at the final again, and defines the momentum encoding
//! and the vowel table.
//!
//! Momentum encoding (one byte, `0..8`): bits 0..1 are the direction
//! (0 right, 1 left, 2 down, 3 up) and bit 2 is "speed 2". Reversal keeps
//! the speed and flips the direction, which is `m ^ 1` with this encoding;
//! [`VOWEL_MOMENTUM`] and the interpreter rely on that.

/// First code point that is an instruction (가).
pub const FIRST_SYLLABLE: u32 = 0xAC00;
/// Last code point that is an instruction (힣).
pub const LAST_SYLLABLE: u32 = 0xD7A3;

/// Number of distinct momenta (4 directions × 2 speeds).
pub const MOMENTA: usize = 8;
/// Momentum "right, speed 1".
pub const RIGHT: u8 = 0;
/// Momentum "left, speed 1".
pub const LEFT: u8 = 1;
/// Momentum "down, speed 1" — the initial momentum of every program.
pub const DOWN: u8 = 2;
/// Momentum "up, speed 1".
pub const UP: u8 = 3;
/// Added to a speed-1 momentum to make it speed 2.
pub const SPEED2: u8 = 4;

/// Flips the direction of a momentum and keeps its speed.
#[inline(always)]
pub const fn reverse(momentum: u8) -> u8 {
    momentum ^ 1
}

/// True if the momentum moves horizontally.
pub const fn is_horizontal(momentum: u8) -> bool {
    momentum & 2 == 0
}

/// Index of the storage that is a queue (final ㅇ).
pub const QUEUE: u8 = 21;
/// Index of the extension channel (final ㅎ).
pub const CHANNEL: u8 = 27;
/// Number of storages, one per final consonant (none included).
pub const STORAGES: usize = 28;

/// Values pushed by ㅂ for each final (its stroke count); the entries for
/// ㅇ (21) and ㅎ (27) are never used because those finals mean input.
const PUSH_CONSTANTS: [u8; STORAGES] = [
    0, 2, 4, 4, 2, 5, 5, 3, 5, 7, 9, 9, 7, 9, 9, 8, 4, 4, 6, 2, 4, 0, 3, 4, 3, 4, 4, 0,
];

/// Final consonant index of ㅇ: with ㅁ/ㅂ it means "number".
const FINAL_IEUNG: u8 = 21;
/// Final consonant index of ㅎ: with ㅁ/ㅂ it means "character".
const FINAL_HIEUH: u8 = 27;

/// What a syllable does, already specialised by its final consonant.
///
/// `arg` in [`Cell`](crate::code::Cell) carries the constant of
/// [`Op::PushConst`] and the storage index of [`Op::Select`] and
/// [`Op::Move`]; other ops ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// ㄱ ㄲ ㅇ ㅉ ㅋ: nothing (the vowel still applies).
    Nop,
    /// ㄷ: push b + a.
    Add,
    /// ㅌ: push b − a.
    Sub,
    /// ㄸ: push b × a.
    Mul,
    /// ㄴ: push b ÷ a (floored).
    Div,
    /// ㄹ: push b mod a (floored: the sign of a).
    Mod,
    /// ㅈ: push 1 if b ≥ a else 0.
    Cmp,
    /// ㅁ with a final other than ㅇ/ㅎ: pop and discard.
    Pop,
    /// ㅁ+ㅇ: pop and print as decimal.
    PrintNum,
    /// ㅁ+ㅎ: pop and print as a UTF-8 character.
    PrintChar,
    /// ㅂ with another final: push the constant `arg`.
    PushConst,
    /// ㅂ+ㅇ: read a decimal number from stdin and push it.
    ReadNum,
    /// ㅂ+ㅎ: read one UTF-8 character from stdin and push its code point.
    ReadChar,
    /// ㅃ: duplicate the top (stack) or front (queue).
    Dup,
    /// ㅍ: swap the top/front two values.
    Swap,
    /// ㅅ: select storage `arg`.
    Select,
    /// ㅆ: pop and push onto storage `arg`.
    Move,
    /// ㅊ: pop; reverse the momentum if the value is zero.
    Branch,
    /// ㅎ: halt, exit status from the selected storage.
    Halt,
    /// Not a syllable: the sentinel cell reached when no syllable lies
    /// ahead (the cursor would pass blank cells forever).
    Stall,
}

impl Op {
    /// How many values the selected storage must hold for the op to run;
    /// with fewer the op is skipped and the momentum reversed.
    pub const fn needs(self) -> usize {
        match self {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Mod | Op::Cmp | Op::Swap => 2,
            Op::Pop | Op::PrintNum | Op::PrintChar | Op::Dup | Op::Move | Op::Branch => 1,
            Op::Nop
            | Op::PushConst
            | Op::ReadNum
            | Op::ReadChar
            | Op::Select
            | Op::Halt
            | Op::Stall => 0,
        }
    }
}

/// A decoded syllable: the op, its argument and the vowel index (0..21).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Syllable {
    /// The command, specialised by the final.
    pub op: Op,
    /// Push constant or storage index (see [`Op`]).
    pub arg: u8,
    /// Medial vowel index, the row of [`VOWEL_MOMENTUM`].
    pub vowel: u8,
}

/// Decodes `ch` if it is a precomposed Hangul syllable; `None` means the
/// character is a blank cell.
///
/// ```
/// use aheui::decode::{decode, Op};
/// let s = decode('밞').unwrap(); // ㅂ + ㅏ + ㄻ: push 9, move right
/// assert_eq!((s.op, s.arg, s.vowel), (Op::PushConst, 9, 0));
/// assert!(decode('a').is_none());
/// ```
pub fn decode(ch: char) -> Option<Syllable> {
    let cp = ch as u32;
    if !(FIRST_SYLLABLE..=LAST_SYLLABLE).contains(&cp) {
        return None;
    }
    let index = cp - FIRST_SYLLABLE;
    let initial = (index / 588) as u8;
    let vowel = ((index / 28) % 21) as u8;
    let fin = (index % 28) as u8;
    let (op, arg) = match initial {
        2 => (Op::Div, 0),
        3 => (Op::Add, 0),
        4 => (Op::Mul, 0),
        5 => (Op::Mod, 0),
        6 => match fin {
            FINAL_IEUNG => (Op::PrintNum, 0),
            FINAL_HIEUH => (Op::PrintChar, 0),
            _ => (Op::Pop, 0),
        },
        7 => match fin {
            FINAL_IEUNG => (Op::ReadNum, 0),
            FINAL_HIEUH => (Op::ReadChar, 0),
            _ => (Op::PushConst, PUSH_CONSTANTS[fin as usize]),
        },
        8 => (Op::Dup, 0),
        9 => (Op::Select, fin),
        10 => (Op::Move, fin),
        12 => (Op::Cmp, 0),
        14 => (Op::Branch, 0),
        16 => (Op::Sub, 0),
        17 => (Op::Swap, 0),
        18 => (Op::Halt, 0),
        _ => (Op::Nop, 0), // ㄱ ㄲ ㅇ ㅉ ㅋ
    };
    Some(Syllable { op, arg, vowel })
}

/// The momentum a vowel produces from the incoming one:
/// `VOWEL_MOMENTUM[vowel * 8 + incoming]` (LANGUAGE.md §4). The table has
/// 256 entries (rows 21..32 unused, identity) so that a `u8` index needs no
/// bounds check in the dispatch loop.
pub static VOWEL_MOMENTUM: [u8; 256] = build_vowel_table();

/// Index of (vowel, momentum) in [`VOWEL_MOMENTUM`]; `vowel < 32` and
/// `momentum < 8`.
#[inline(always)]
pub const fn vowel_index(vowel: u8, momentum: u8) -> u8 {
    (vowel << 3) | momentum
}

const fn vowel_effect(vowel: u8, m: u8) -> u8 {
    match vowel {
        0 => RIGHT,                            // ㅏ
        2 => RIGHT + SPEED2,                   // ㅑ
        4 => LEFT,                             // ㅓ
        6 => LEFT + SPEED2,                    // ㅕ
        8 => UP,                               // ㅗ
        12 => UP + SPEED2,                     // ㅛ
        13 => DOWN,                            // ㅜ
        17 => DOWN + SPEED2,                   // ㅠ
        18 if !is_horizontal(m) => reverse(m), // ㅡ reflects vertical motion
        20 if is_horizontal(m) => reverse(m),  // ㅣ reflects horizontal motion
        19 => reverse(m),                      // ㅢ always bounces back
        _ => m,
    }
}

const fn build_vowel_table() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut vowel = 0;
    while vowel < 32 {
        let mut m = 0;
        while m < MOMENTA {
            table[vowel * MOMENTA + m] = vowel_effect(vowel as u8, m as u8);
            m += 1;
        }
        vowel += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_command_initial() {
        let cases = [
            ('가', Op::Nop),
            ('까', Op::Nop),
            ('나', Op::Div),
            ('다', Op::Add),
            ('따', Op::Mul),
            ('라', Op::Mod),
            ('마', Op::Pop),
            ('망', Op::PrintNum),
            ('맣', Op::PrintChar),
            ('바', Op::PushConst),
            ('방', Op::ReadNum),
            ('밯', Op::ReadChar),
            ('빠', Op::Dup),
            ('사', Op::Select),
            ('싸', Op::Move),
            ('아', Op::Nop),
            ('자', Op::Cmp),
            ('짜', Op::Nop),
            ('차', Op::Branch),
            ('카', Op::Nop),
            ('타', Op::Sub),
            ('파', Op::Swap),
            ('하', Op::Halt),
        ];
        for (ch, op) in cases {
            assert_eq!(decode(ch).unwrap().op, op, "{ch}");
        }
    }

    #[test]
    fn push_constants_follow_stroke_counts() {
        let expect = [
            ('박', 2),
            ('반', 2),
            ('받', 3),
            ('발', 5),
            ('밤', 4),
            ('밥', 4),
            ('밧', 2),
            ('밪', 3),
            ('밫', 4),
            ('밬', 3),
            ('밭', 4),
            ('밮', 4),
            ('밖', 4),
            ('밗', 4),
            ('밚', 5),
            ('밙', 5),
            ('밝', 7),
            ('밞', 9),
            ('밟', 9),
            ('밠', 7),
            ('밡', 9),
            ('밢', 9),
            ('밣', 8),
            ('밦', 6),
            ('밨', 4),
            ('바', 0),
        ];
        for (ch, value) in expect {
            let s = decode(ch).unwrap();
            assert_eq!((s.op, s.arg), (Op::PushConst, value), "{ch}");
        }
    }

    #[test]
    fn blanks_are_not_syllables() {
        for ch in [
            'a', ' ', '\t', '\u{3000}', 'ㅇ', 'ㅏ', '\u{1100}', '😄', '\r',
        ] {
            assert!(decode(ch).is_none(), "{ch:?}");
        }
        assert!(decode('\u{D7A4}').is_none());
        assert!(decode('가').is_some() && decode('힣').is_some());
    }

    #[test]
    fn reflectors_keep_speed_and_pass_the_other_axis() {
        let table = |v: u8, m: u8| VOWEL_MOMENTUM[vowel_index(v, m) as usize];
        // ㅡ (18): vertical reflected, horizontal passes.
        assert_eq!(table(18, DOWN + SPEED2), UP + SPEED2);
        assert_eq!(table(18, RIGHT + SPEED2), RIGHT + SPEED2);
        // ㅣ (20): horizontal reflected, vertical passes.
        assert_eq!(table(20, LEFT), RIGHT);
        assert_eq!(table(20, UP + SPEED2), UP + SPEED2);
        // ㅢ (19): always back.
        for m in 0..MOMENTA as u8 {
            assert_eq!(table(19, m), reverse(m));
        }
        // ㅐ (1) keeps.
        assert_eq!(table(1, LEFT + SPEED2), LEFT + SPEED2);
    }
}
