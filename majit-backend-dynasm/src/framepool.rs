//! The jitframes a backend keeps for reuse: a free list that Rust and
//! compiled code share.
//!
//! Runs nest as deep as the interpreted program's calls, and a frame made
//! afresh costs a zeroed allocation of several KiB, so frames that ran go
//! back to a free list threaded through their `NEXT_FREE` word. Compiled
//! code entering a callee directly (`call_assembler`) takes a frame from
//! the head of the list and gives it back without leaving machine code,
//! through the [`PoolWords`], whose address is fixed.
//!
//! Every frame on the list was made for this backend's register file,
//! has a clean header (its `RETURNED` word is 0: compiled code gives a
//! frame back only after a return, having cleared it) and at least
//! [`PoolWords::depth`] spill slots, the frame size every trace compiled
//! so far fits in: the depth grows only while compiled code runs on no
//! frame it took (see `native.rs`), the list is emptied when it grows, and
//! a smaller frame Rust gives back is freed, so compiled code takes the
//! head unchecked.

use crate::arch::RegFile;
use crate::frame::{Frame, DEPTH, NEXT_FREE};

/// The words compiled code reads and writes (`#[repr(C)]`, boxed).
#[repr(C)]
#[derive(Debug)]
pub struct PoolWords {
    /// The first free frame (null: none).
    pub head: *mut u64,
    /// The fewest spill slots a frame taken from the list must have.
    pub depth: u64,
    /// Runs of frames compiled code took from the list, not yet ended.
    pub in_flight: u64,
    /// How many calls compiled code entered directly (for the stats).
    pub entries: u64,
}

/// Byte offsets of the [`PoolWords`] fields, for the emitters.
pub const HEAD: i32 = std::mem::offset_of!(PoolWords, head) as i32;
pub const IN_FLIGHT: i32 = std::mem::offset_of!(PoolWords, in_flight) as i32;
pub const ENTRIES: i32 = std::mem::offset_of!(PoolWords, entries) as i32;

/// The free list and how many frames exist.
#[derive(Debug)]
pub struct FramePool {
    words: Box<PoolWords>,
    regs: &'static RegFile,
    /// Frames made and not freed (on the list, or running).
    made: usize,
    /// At most this many frames stay once nothing runs.
    keep: usize,
}

impl FramePool {
    /// An empty pool handing out frames of at least `depth` slots, keeping
    /// at most `keep` frames once nothing runs.
    pub fn new(regs: &'static RegFile, depth: u32, keep: usize) -> FramePool {
        FramePool {
            words: Box::new(PoolWords {
                head: std::ptr::null_mut(),
                depth: depth as u64,
                in_flight: 0,
                entries: 0,
            }),
            regs,
            made: 0,
            keep,
        }
    }

    /// The address of the [`PoolWords`].
    pub fn addr(&self) -> usize {
        &*self.words as *const PoolWords as usize
    }

    /// The words compiled code shares.
    pub fn words(&self) -> &PoolWords {
        &self.words
    }

    /// The spill slots a frame taken now has at least.
    pub fn depth(&self) -> u32 {
        self.words.depth as u32
    }

    /// Frames taken from now on have at least `depth` slots (more than
    /// now: the smaller free frames are freed). Compiled code runs on no
    /// frame it took meanwhile.
    pub fn grow(&mut self, depth: u32) {
        debug_assert_eq!(self.words.in_flight, 0);
        if u64::from(depth) > self.words.depth {
            self.words.depth = depth as u64;
            self.release_all();
        }
    }

    /// Frees every frame on the list.
    fn release_all(&mut self) {
        while let Some(p) = self.pop() {
            // SAFETY: `p` is a frame of this pool's, off the list.
            drop(unsafe { Frame::from_raw(self.regs, p) });
            self.made -= 1;
        }
    }

    /// A frame of at least [`FramePool::depth`] slots, from the list or new.
    pub fn take(&mut self) -> Frame {
        let depth = self.words.depth;
        while let Some(p) = self.pop() {
            // SAFETY: `p` is a frame of this pool's (see `pop`).
            if unsafe { *p.add(DEPTH) } >= depth {
                // SAFETY: as above; taken off the list, nothing else owns it.
                let mut f = unsafe { Frame::from_raw(self.regs, p) };
                f.reset();
                return f;
            }
            // SAFETY: as above.
            drop(unsafe { Frame::from_raw(self.regs, p) });
            self.made -= 1;
        }
        self.made += 1;
        Frame::new(self.regs, depth as u32)
    }

    /// `frame` ran: back on the list, its header as new (compiled code
    /// takes frames as they are: their `RETURNED` word must be 0).
    pub fn give(&mut self, mut frame: Frame) {
        if u64::from(frame.depth()) < self.words.depth {
            self.made -= 1;
            return;
        }
        frame.reset();
        let p = frame.into_raw();
        // SAFETY: `p` is a live frame of at least HEADER words.
        unsafe { *p.add(NEXT_FREE) = self.words.head as u64 };
        self.words.head = p;
    }

    /// Nothing runs: frees the frames beyond the number kept.
    pub fn trim(&mut self) {
        while self.made > self.keep {
            let Some(p) = self.pop() else { break };
            // SAFETY: `p` is a frame of this pool's, off the list.
            drop(unsafe { Frame::from_raw(self.regs, p) });
            self.made -= 1;
        }
    }

    /// The head of the list, unlinked.
    fn pop(&mut self) -> Option<*mut u64> {
        let p = self.words.head;
        if p.is_null() {
            return None;
        }
        // SAFETY: every frame on the list is live and owned by the list
        // (`give`, and compiled code, which links only frames it took).
        self.words.head = unsafe { *p.add(NEXT_FREE) } as *mut u64;
        Some(p)
    }
}

impl Drop for FramePool {
    fn drop(&mut self) {
        self.release_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    fn regs() -> &'static RegFile {
        &crate::x86_64::regs::REG_FILE
    }
    #[cfg(target_arch = "aarch64")]
    fn regs() -> &'static RegFile {
        &crate::aarch64::regs::REG_FILE
    }

    #[test]
    fn frames_are_reused_grown_and_trimmed() {
        let mut pool = FramePool::new(regs(), 8, 1);
        let (a, b) = (pool.take(), pool.take());
        assert_eq!((a.depth(), pool.made), (8, 2));
        let a_at = a.word(crate::frame::ROOTS);
        pool.give(a);
        pool.give(b);
        let again = pool.take();
        assert_ne!(again.word(crate::frame::ROOTS), a_at, "last in, first out");
        pool.give(again);
        // Bigger frames from now on: the free small ones are freed, and so
        // is a small one given back later.
        let small = pool.take();
        pool.grow(16);
        assert_eq!(pool.made, 1, "the running one");
        pool.give(small);
        assert_eq!(pool.made, 0);
        let big = pool.take();
        assert_eq!((big.depth(), pool.made), (16, 1));
        pool.give(big);
        let (x, y) = (pool.take(), pool.take());
        pool.give(x);
        pool.give(y);
        assert_eq!(pool.made, 2);
        pool.trim();
        assert_eq!(pool.made, 1);
    }
}
