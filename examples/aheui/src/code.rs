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
//! the same row/column, regardless of speed or overshoot. Only syllables
//! stop the cursor, so a sweep visits a line's syllables alone (in the
//! order the cursor meets them) and the blanks between them cost nothing:
//! building takes time and memory proportional to the syllables (plus one
//! pass over the text), however wide or tall the bounding box.
//!
//! Invariants: `steps.len() == cells.len() * 8`, and `start` and every
//! `go`/`back` are `< steps.len()`, so the interpreter may index both tables
//! unchecked. The last cell is the [`Op::Stall`] sentinel, which stands for
//! "no syllable ahead".

use crate::decode::{
    decode, reverse, vowel_index, Op, DOWN, LEFT, MOMENTA, RIGHT, SPEED2, UP, VOWEL_MOMENTUM,
};
use crate::error::Result;
use crate::source;

/// Most syllables a program may have (the tables take about 100 bytes per
/// syllable; state indices would fit up to 2^29).
pub const MAX_SYLLABLES: usize = 1 << 24;

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

/// Where a vertical wrap lands in each column: the first and the last row
/// long enough to have it, from the rows' lengths as they stream by. Kept
/// as the rows where the running maximum length grows (from the top) and
/// where a suffix maximum sits (from the bottom); either list has strictly
/// monotonic lengths summing to at most the text's size, so both are short.
#[derive(Default)]
struct ColumnEnds {
    /// (row, length): each row longer than every row above it.
    growing: Vec<(u32, u32)>,
    /// (row, length): each row longer than every row below it.
    shrinking: Vec<(u32, u32)>,
}

impl ColumnEnds {
    fn add_row(&mut self, row: u32, len: u32) {
        if len > self.growing.last().map_or(0, |g| g.1) {
            self.growing.push((row, len));
        }
        if len > 0 {
            while self.shrinking.last().is_some_and(|s| s.1 <= len) {
                self.shrinking.pop();
            }
            self.shrinking.push((row, len));
        }
    }

    /// The first and the last row longer than `col` (one is, if `col` holds
    /// a syllable).
    fn rows_with(&self, col: u32) -> (u32, u32) {
        let top = self.growing[self.growing.partition_point(|g| g.1 <= col)].0;
        let bottom = self.shrinking[self.shrinking.partition_point(|s| s.1 > col) - 1].0;
        (top, bottom)
    }
}

/// Writes the successors under `momentum` at `speed` of one line's
/// syllables: `line` holds (coordinate, id) in the order the cursor meets
/// them, `wrap` is the coordinate where a cursor leaving the bounding box
/// comes back in. A cursor stops at the next syllable whose coordinate
/// shares its own modulo `speed`, else it wraps and stops at the first
/// that shares `wrap`'s, else nothing is ahead (`stall`).
fn fill_line(
    line: &[(u32, u32)],
    wrap: u32,
    speed: u32,
    momentum: u8,
    next: &mut [[u32; MOMENTA]],
    stall: u32,
) {
    let class = |c: u32| (c % speed) as usize;
    let after_wrap = line
        .iter()
        .find(|&&(c, _)| class(c) == class(wrap))
        .map_or(stall, |&(_, id)| id);
    let mut ahead = [after_wrap; 2];
    for &(c, id) in line.iter().rev() {
        next[id as usize][momentum as usize] = ahead[class(c)];
        ahead[class(c)] = id;
    }
}

/// Fills both directions and speeds of one line, given in increasing
/// coordinates with the wrap targets of the forward and backward motion.
fn fill_both_ways(
    line: &mut [(u32, u32)],
    (forward, backward): (u8, u8),
    (wrap_forward, wrap_backward): (u32, u32),
    next: &mut [[u32; MOMENTA]],
    stall: u32,
) {
    for (speed, extra) in [(1, 0), (2, SPEED2)] {
        fill_line(line, wrap_forward, speed, forward + extra, next, stall);
    }
    line.reverse();
    for (speed, extra) in [(1, 0), (2, SPEED2)] {
        fill_line(line, wrap_backward, speed, backward + extra, next, stall);
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
        source::check(source)?;
        let mut cells = Vec::new();
        let mut vowels = Vec::new();
        let mut positions = Vec::new();
        let mut rows = Vec::new(); // (first syllable, length) of rows with syllables
        let mut ends = ColumnEnds::default();
        for (r, text) in source.split('\n').enumerate() {
            let first = cells.len();
            let mut len = 0;
            for (c, ch) in text.chars().enumerate() {
                len = c as u32 + 1;
                let Some(s) = decode(ch) else { continue };
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
            if cells.len() > first {
                rows.push((first, len));
            }
            ends.add_row(r as u32, len);
        }
        let stall = cells.len() as u32;
        cells.push(Cell {
            op: Op::Stall,
            arg: 0,
        });
        vowels.push(1); // ㅐ: keeps the momentum
        let mut next = vec![[stall; MOMENTA]; cells.len()];
        for (k, &(first, len)) in rows.iter().enumerate() {
            let end = rows.get(k + 1).map_or(positions.len(), |r| r.0);
            let mut line: Vec<(u32, u32)> = (first..end)
                .map(|id| (positions[id].col, id as u32))
                .collect();
            // Right: wrap to column 0. Left: to the row's last cell.
            let wraps = (0, len - 1);
            fill_both_ways(&mut line, (RIGHT, LEFT), wraps, &mut next, stall);
        }
        // By column, rows in order (the sort is stable).
        let mut by_col: Vec<u32> = (0..stall).collect();
        by_col.sort_by_key(|&id| positions[id as usize].col);
        for column in
            by_col.chunk_by(|&a, &b| positions[a as usize].col == positions[b as usize].col)
        {
            let mut line: Vec<(u32, u32)> = column
                .iter()
                .map(|&id| (positions[id as usize].row, id))
                .collect();
            let wraps = ends.rows_with(positions[column[0] as usize].col);
            fill_both_ways(&mut line, (DOWN, UP), wraps, &mut next, stall);
        }
        // The first syllable of column 0, if any.
        let start_cell = match by_col.first() {
            Some(&id) if positions[id as usize].col == 0 => id,
            _ => stall,
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
    fn a_wide_sparse_grid_costs_its_syllables_only() {
        // A 2^27-cell bounding box (2^20 columns, 128 rows) holding three
        // syllables: the old dense build visited every cell.
        let wide = format!("{}개\n{}개{}", " ".repeat(1 << 20), "\n".repeat(126), "개");
        let start = std::time::Instant::now();
        let code = CodeSpace::build(&wide).unwrap();
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
        assert_eq!(code.steps.len(), 4 * MOMENTA);
        assert_eq!(next_of(&code, 0, 1 << 20, RIGHT), Some((0, 1 << 20)));
        assert_eq!(next_of(&code, 127, 0, RIGHT), Some((127, 1)));
        assert_eq!(next_of(&code, 127, 1, LEFT), Some((127, 0)));
        assert_eq!(next_of(&code, 127, 0, UP), Some((127, 0)));
    }

    /// The successor of every syllable and momentum by walking the grid
    /// cell by cell (LANGUAGE.md §9), for comparison.
    fn walk(rows: &[Vec<bool>], r: usize, c: usize, m: u8) -> Option<(u32, u32)> {
        let (height, width) = (
            rows.len() as i64,
            rows.iter().map(Vec::len).max().unwrap() as i64,
        );
        let has = |r: i64, c: i64| rows[r as usize].get(c as usize) == Some(&true);
        let long = |r: &i64| rows[*r as usize].len() as i64 > c as i64;
        let speed = if m & SPEED2 != 0 { 2 } else { 1 };
        let (dr, dc) = [(0, 1), (0, -1), (1, 0), (-1, 0)][(m & 3) as usize];
        let (mut r, mut c, mut wrapped) = (r as i64, c as i64, false);
        loop {
            (r, c) = (r + dr * speed, c + dc * speed);
            if r < 0 || r >= height || c < 0 || c >= width {
                if wrapped {
                    return None;
                }
                wrapped = true;
                match m & 3 {
                    RIGHT => c = 0,
                    LEFT => c = rows[r as usize].len() as i64 - 1,
                    DOWN => r = (0..height).find(long).unwrap(),
                    _ => r = (0..height).rev().find(long).unwrap(),
                }
                (r, c) = (r - dr * speed, c - dc * speed);
            } else if has(r, c) {
                return Some((r as u32, c as u32));
            }
        }
    }

    #[test]
    fn successors_match_a_cell_by_cell_walk() {
        let mut rng = majit::ir::fuzzing::SplitMix64::new(21);
        for _ in 0..300 {
            let height = 1 + rng.below(6);
            let rows: Vec<Vec<bool>> = (0..height)
                .map(|_| (0..rng.below(7)).map(|_| rng.chance(33)).collect())
                .collect();
            let picture: Vec<String> = rows
                .iter()
                .map(|row| row.iter().map(|&s| if s { '#' } else { '.' }).collect())
                .collect();
            let code = grid(&picture.join("\n"));
            for (id, p) in code.positions.iter().enumerate() {
                for m in 0..MOMENTA as u8 {
                    let expected = walk(&rows, p.row as usize, p.col as usize, m);
                    let got = next_of(&code, p.row, p.col, m);
                    assert_eq!(got, expected, "{picture:?} #{id} at {p:?}, momentum {m}");
                }
            }
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
