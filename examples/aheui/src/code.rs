//! The code space, compiled into dense tables of syllable cells and moves.
//!
//! The source is split into rows at LF; each code point is one cell
//! (LANGUAGE.md §1). Only syllables do anything: a blank or non-existent
//! cell keeps the momentum, so the cursor leaving a syllable with momentum
//! `m` always reaches the same next syllable (or none, if it would pass
//! blanks forever). [`CodeSpace::build`] precomputes that successor for
//! every syllable and each of the 8 momenta, and folds the vowel in too.
//!
//! The interpreter's state is a *state index* `pc * 8 + m`: the cell and the
//! momentum the cursor arrived with. [`CodeSpace::steps`] maps a state to
//! the next state twice: `go` (the vowel applied, then the move) and `back`
//! (the vowel applied, the momentum reversed, then the move; used when the
//! command underflows or ㅊ pops zero). So one tick is one dependent load,
//! and blank cells cost nothing at run time.
//!
//! Successors come from one sweep per line (a row for horizontal momenta, a
//! column for vertical ones) and per speed, with the wrap-around rule of
//! LANGUAGE.md §9: a move that stays inside the bounding box is taken as is;
//! one that leaves it lands on the first existing cell on the far side of
//! the same row/column, regardless of speed or overshoot. Lines are
//! traversed in "line coordinates" where motion is always forward (a
//! leftward row or upward column is read reversed).
//!
//! Invariants: `steps.len() == cells.len() * 8`, and `start` and every
//! `go`/`back` are `< steps.len()`, so the interpreter may index both tables
//! unchecked. The last cell is the [`Op::Stall`] sentinel, which stands for
//! "no syllable ahead".

use crate::decode::{
    decode, reverse, vowel_index, Op, DOWN, LEFT, MOMENTA, RIGHT, SPEED2, UP, VOWEL_MOMENTUM,
};
use crate::error::Result;
use crate::source::Extent;

/// Marks a position that is not a syllable.
const BLANK: u32 = u32::MAX;

/// Most syllables a program may have (the tables take about 100 bytes per
/// syllable; state indices would fit up to 2^29).
pub const MAX_SYLLABLES: usize = 1 << 24;
/// Largest bounding box (rows × longest row, at least one column) a
/// program may span; building the tables visits every position of it.
pub const MAX_AREA: usize = 1 << 28;

/// One executable cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Cell {
    /// The command, specialised by its final.
    pub op: Op,
    /// Push constant or storage index.
    pub arg: u8,
}

/// The two possible next states of a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Step {
    /// Next state when the command runs normally.
    pub go: u32,
    /// Next state when the momentum is reversed.
    pub back: u32,
}

/// Where a syllable sits in the source (0-based), for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Row (line) index.
    pub row: u32,
    /// Column index in code points.
    pub col: u32,
}

/// The state index of cell `pc` entered with momentum `m`.
#[inline(always)]
pub const fn state(pc: u32, m: u8) -> u32 {
    (pc << 3) | m as u32
}

/// The cell of a state index.
#[inline(always)]
pub const fn cell_of(state: u32) -> usize {
    (state >> 3) as usize
}

/// A program ready to run. The fields are private so the invariants of
/// the module doc (which the interpreter's unchecked indexing relies on)
/// can only come from [`CodeSpace::build`].
#[derive(Debug)]
pub struct CodeSpace {
    /// The syllables, then the stall sentinel as the last entry.
    cells: Vec<Cell>,
    /// The moves of each state (`cells.len() * 8` entries).
    steps: Vec<Step>,
    /// Source position of each syllable (same order as `cells`, without the
    /// sentinel).
    positions: Vec<Position>,
    /// The first state: the first syllable reached moving down from the
    /// top-left cell (the sentinel if none is).
    start: u32,
}

/// One line of the grid seen in traversal order.
struct Line<'a> {
    /// Extent of the bounding box along the line.
    len: usize,
    /// Line coordinate the cursor lands on after leaving the box.
    wrap_to: usize,
    /// Syllable id at a line coordinate, or [`BLANK`].
    id_at: &'a dyn Fn(usize) -> u32,
}

impl Line<'_> {
    /// For each coordinate `k`: the first syllable met by a cursor that
    /// arrives at `k` moving forward at `speed` (`k` itself included), and
    /// the same for a cursor that has just wrapped. [`BLANK`] = none ever.
    fn landings(&self, speed: usize) -> (Vec<u32>, u32) {
        let mut after_wrap = BLANK;
        let mut k = self.wrap_to;
        while k < self.len {
            let id = (self.id_at)(k);
            if id != BLANK {
                after_wrap = id;
                break;
            }
            k += speed;
        }
        let mut land = vec![BLANK; self.len];
        for k in (0..self.len).rev() {
            let id = (self.id_at)(k);
            land[k] = if id != BLANK {
                id
            } else if k + speed < self.len {
                land[k + speed]
            } else {
                after_wrap
            };
        }
        (land, after_wrap)
    }

    /// Writes, for every syllable on the line, its successor under
    /// `momentum` (which moves forward along this line at `speed`).
    fn fill(&self, speed: usize, momentum: u8, next: &mut [[u32; MOMENTA]], stall: u32) {
        let (land, after_wrap) = self.landings(speed);
        for k in 0..self.len {
            let id = (self.id_at)(k);
            if id == BLANK {
                continue;
            }
            let to = if k + speed < self.len {
                land[k + speed]
            } else {
                after_wrap
            };
            next[id as usize][momentum as usize] = if to == BLANK { stall } else { to };
        }
    }
}

impl CodeSpace {
    /// Builds the tables of a program text.
    ///
    /// ```
    /// use aheui::code::{cell_of, CodeSpace};
    /// use aheui::decode::Op;
    /// let code = CodeSpace::build("#!x\n희").unwrap();
    /// // The first row has no syllable: the cursor moves down onto 희.
    /// assert_eq!(code.cells()[cell_of(code.start())].op, Op::Halt);
    /// ```
    pub fn build(source: &str) -> Result<CodeSpace> {
        let width = Extent::of(source)?.width;
        let rows: Vec<Vec<char>> = source.split('\n').map(|r| r.chars().collect()).collect();
        let mut cells = Vec::new();
        let mut vowels = Vec::new();
        let mut positions = Vec::new();
        let mut ids: Vec<Vec<u32>> = Vec::with_capacity(rows.len());
        for (r, row) in rows.iter().enumerate() {
            let mut row_ids = Vec::with_capacity(row.len());
            for (c, &ch) in row.iter().enumerate() {
                let Some(s) = decode(ch) else {
                    row_ids.push(BLANK);
                    continue;
                };
                row_ids.push(cells.len() as u32);
                positions.push(Position {
                    row: r as u32,
                    col: c as u32,
                });
                cells.push(Cell {
                    op: s.op,
                    arg: s.arg,
                });
                vowels.push(s.vowel);
            }
            ids.push(row_ids);
        }
        let stall = cells.len() as u32;
        cells.push(Cell {
            op: Op::Stall,
            arg: 0,
        });
        vowels.push(1); // ㅐ: keeps the momentum
        let mut next = vec![[stall; MOMENTA]; cells.len()];
        fill_rows(&ids, width, &mut next, stall);
        fill_columns(&ids, width, &mut next, stall);
        let start_cell = if width == 0 {
            stall
        } else {
            let column = |k: usize| ids[k].first().copied().unwrap_or(BLANK);
            let first = ids.iter().position(|row| !row.is_empty()).unwrap_or(0);
            let line = Line {
                len: rows.len(),
                wrap_to: first,
                id_at: &column,
            };
            match line.landings(1).0[0] {
                BLANK => stall,
                s => s,
            }
        };
        Ok(CodeSpace {
            steps: steps(&next, &vowels),
            cells,
            positions,
            start: state(start_cell, DOWN),
        })
    }

    /// Number of syllable cells (the sentinel excluded).
    pub fn syllables(&self) -> usize {
        self.positions.len()
    }

    /// The syllables, then the stall sentinel as the last entry.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The moves of each state (`cells().len() * 8` entries); every `go`
    /// and `back` is a valid state.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Source position of each syllable (same order as [`CodeSpace::cells`],
    /// without the sentinel).
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The first state: the first syllable reached moving down from the
    /// top-left cell (the sentinel if none is).
    pub fn start(&self) -> u32 {
        self.start
    }
}

/// Folds each cell's vowel into its successor table.
fn steps(next: &[[u32; MOMENTA]], vowels: &[u8]) -> Vec<Step> {
    let mut steps = Vec::with_capacity(next.len() * MOMENTA);
    for (succ, &vowel) in next.iter().zip(vowels) {
        for incoming in 0..MOMENTA as u8 {
            let m = VOWEL_MOMENTUM[vowel_index(vowel, incoming) as usize];
            let r = reverse(m);
            steps.push(Step {
                go: state(succ[m as usize], m),
                back: state(succ[r as usize], r),
            });
        }
    }
    steps
}

fn fill_rows(ids: &[Vec<u32>], width: usize, next: &mut [[u32; MOMENTA]], stall: u32) {
    for row in ids {
        let forward = |k: usize| row.get(k).copied().unwrap_or(BLANK);
        let backward = |k: usize| row.get(width - 1 - k).copied().unwrap_or(BLANK);
        // Rightward: wrap to column 0. Leftward: wrap to the row's last cell
        // (an empty row has none; it has no syllable either, so any target
        // gives "none").
        let right = Line {
            len: width,
            wrap_to: 0,
            id_at: &forward,
        };
        let left = Line {
            len: width,
            wrap_to: width.saturating_sub(row.len().max(1)),
            id_at: &backward,
        };
        for (speed, extra) in [(1, 0), (2, SPEED2)] {
            right.fill(speed, RIGHT + extra, next, stall);
            left.fill(speed, LEFT + extra, next, stall);
        }
    }
}

fn fill_columns(ids: &[Vec<u32>], width: usize, next: &mut [[u32; MOMENTA]], stall: u32) {
    let height = ids.len();
    for c in 0..width {
        let forward = |k: usize| ids[k].get(c).copied().unwrap_or(BLANK);
        let backward = |k: usize| ids[height - 1 - k].get(c).copied().unwrap_or(BLANK);
        // Some row is at least `width` long, so both searches succeed.
        let top = (0..height).find(|&r| ids[r].len() > c).unwrap_or(0);
        let bottom = (0..height).rev().find(|&r| ids[r].len() > c).unwrap_or(0);
        let down = Line {
            len: height,
            wrap_to: top,
            id_at: &forward,
        };
        let up = Line {
            len: height,
            wrap_to: height - 1 - bottom,
            id_at: &backward,
        };
        for (speed, extra) in [(1, 0), (2, SPEED2)] {
            down.fill(speed, DOWN + extra, next, stall);
            up.fill(speed, UP + extra, next, stall);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a program where every syllable keeps the momentum (개: ㄱ+ㅐ),
    /// from a picture with `#` for a syllable and `.` for a blank.
    fn grid(picture: &str) -> CodeSpace {
        CodeSpace::build(&picture.replace('#', "개").replace('.', " ")).unwrap()
    }

    /// The source position reached leaving the syllable at (r, c) with
    /// momentum `m`, or None for the stall sentinel.
    fn next_of(code: &CodeSpace, r: u32, c: u32, m: u8) -> Option<(u32, u32)> {
        let pc = code
            .positions
            .iter()
            .position(|p| *p == Position { row: r, col: c })
            .expect("a syllable at that position");
        let to = code.steps[state(pc as u32, m) as usize].go;
        assert_eq!(to & 7, m as u32, "a keeping vowel keeps the momentum");
        code.positions.get(cell_of(to)).map(|p| (p.row, p.col))
    }

    #[test]
    fn speed_one_moves_and_wraps_in_all_directions() {
        let code = grid("###\n#.#\n###");
        assert_eq!(next_of(&code, 0, 0, RIGHT), Some((0, 1)));
        assert_eq!(next_of(&code, 0, 2, RIGHT), Some((0, 0)));
        assert_eq!(next_of(&code, 0, 0, LEFT), Some((0, 2)));
        assert_eq!(next_of(&code, 0, 0, DOWN), Some((1, 0)));
        assert_eq!(next_of(&code, 2, 0, DOWN), Some((0, 0)));
        assert_eq!(next_of(&code, 0, 0, UP), Some((2, 0)));
        // The blank (1,1) is passed over.
        assert_eq!(next_of(&code, 1, 0, RIGHT), Some((1, 2)));
        assert_eq!(next_of(&code, 0, 1, DOWN), Some((2, 1)));
    }

    #[test]
    fn speed_two_wraps_onto_the_first_cell_regardless_of_overshoot() {
        // Width 4: from column 2 moving right by 2 lands on column 0 (not 1).
        let code = grid("####");
        assert_eq!(next_of(&code, 0, 2, RIGHT + SPEED2), Some((0, 0)));
        assert_eq!(next_of(&code, 0, 3, RIGHT + SPEED2), Some((0, 0)));
        assert_eq!(next_of(&code, 0, 0, RIGHT + SPEED2), Some((0, 2)));
        assert_eq!(next_of(&code, 0, 1, LEFT + SPEED2), Some((0, 3)));
        assert_eq!(next_of(&code, 0, 0, LEFT + SPEED2), Some((0, 3)));
        let code = grid("#\n#\n#\n#\n#");
        assert_eq!(next_of(&code, 3, 0, DOWN + SPEED2), Some((0, 0)));
        assert_eq!(next_of(&code, 1, 0, UP + SPEED2), Some((4, 0)));
    }

    #[test]
    fn vertical_wrap_uses_rows_that_have_the_column() {
        // Column 2 exists only in rows 1 and 2.
        let code = grid("##\n###\n###\n#");
        assert_eq!(next_of(&code, 2, 2, DOWN), Some((1, 2)));
        assert_eq!(next_of(&code, 1, 2, UP), Some((2, 2)));
        // Down from row 2, column 1: row 3 has no column 1 (a blank inside
        // the box), then the wrap lands on row 0.
        assert_eq!(next_of(&code, 2, 1, DOWN), Some((0, 1)));
    }

    #[test]
    fn left_wrap_lands_on_the_last_existing_cell_of_short_rows() {
        let code = grid("####\n##");
        assert_eq!(next_of(&code, 1, 0, LEFT), Some((1, 1)));
        assert_eq!(next_of(&code, 1, 0, LEFT + SPEED2), Some((1, 1)));
    }

    #[test]
    fn no_syllable_ahead_is_the_stall_sentinel() {
        let code = grid("#\n\n.");
        // The only syllable: moving right wraps onto itself.
        assert_eq!(next_of(&code, 0, 0, RIGHT), Some((0, 0)));
        let code = grid("#.\n.#");
        assert_eq!(next_of(&code, 0, 0, RIGHT + SPEED2), Some((0, 0)));
        assert_eq!(next_of(&code, 1, 1, UP + SPEED2), Some((1, 1)));
        for source in ["", "abc\ndef", "\n\n"] {
            let code = CodeSpace::build(source).unwrap();
            assert_eq!(code.cells[cell_of(code.start)].op, Op::Stall, "{source:?}");
        }
    }

    #[test]
    fn start_passes_a_non_hangul_first_row() {
        let code = CodeSpace::build("#!/usr/bin/env aheui\n아희").unwrap();
        assert_eq!(
            code.positions[cell_of(code.start)],
            Position { row: 1, col: 0 }
        );
        assert_eq!(code.start & 7, DOWN as u32);
    }

    #[test]
    fn vowels_and_reversal_are_folded_into_steps() {
        // 아 (ㅏ) at (0,0), 어 (ㅓ) at (0,1): entering 아 from any direction
        // goes right to 어; reversed goes left, wrapping onto 어 as well.
        let code = CodeSpace::build("아어").unwrap();
        for m in 0..MOMENTA as u8 {
            let step = code.steps[state(0, m) as usize];
            assert_eq!(step.go, state(1, RIGHT));
            assert_eq!(step.back, state(1, LEFT));
        }
    }

    #[test]
    fn a_huge_bounding_box_is_rejected() {
        use crate::error::Error;
        let source = format!("{}\n{}", "x".repeat(1 << 15), "\n".repeat(1 << 14));
        match CodeSpace::build(&source) {
            Err(Error::TooLarge(msg)) => {
                assert!(msg.contains("8193 rows × 32768 columns"), "{msg}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_step_is_in_range() {
        let code = grid("#.#\n\n..##\n#");
        assert_eq!(code.steps.len(), code.cells.len() * MOMENTA);
        for step in &code.steps {
            assert!((step.go as usize) < code.steps.len());
            assert!((step.back as usize) < code.steps.len());
        }
    }
}
