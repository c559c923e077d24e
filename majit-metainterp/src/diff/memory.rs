//! The memory side of a check: what the reference execution's stores left
//! (in the child), and reading the same locations in the parent without
//! crashing on an address that is not readable there.

use super::wire::Written;
use crate::refexec::Store;
use crate::runtime::{Access, Allocated};
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, OwnedFd};

/// The final contents of every location `stores` wrote, outside the
/// objects in `fresh` (their addresses mean nothing to the parent). Runs
/// in the child, right after the execution.
pub(super) fn written(stores: &[Store], fresh: &Allocated) -> Vec<Written> {
    let fresh = fresh.borrow();
    let inside_fresh = |addr: usize| {
        fresh
            .range(..=addr)
            .next_back()
            .is_some_and(|(&start, &size)| addr < start + size)
    };
    let mut last = BTreeMap::new();
    for s in stores.iter().filter(|s| !inside_fresh(s.addr)) {
        last.insert((s.addr, s.size), s.by);
    }
    last.into_iter()
        .map(|((addr, size), by)| {
            let access = Access {
                size,
                signed: false,
            };
            // SAFETY: the execution just stored `size` bytes at `addr`, so
            // the location is valid memory of this process.
            let bits = unsafe { access.load(addr) };
            Written {
                addr,
                size,
                bits,
                fresh: size == 8 && fresh.contains_key(&(bits as usize)),
                by,
            }
        })
        .collect()
}

/// Reads `size` (1, 2, 4 or 8) bytes at `addr` of this process through a
/// pipe, so an unreadable address is an error from the kernel rather than a
/// crash. Zero-extended.
pub(super) struct Reader {
    read: OwnedFd,
    write: OwnedFd,
}

impl Reader {
    pub(super) fn new() -> Option<Reader> {
        let (read, write) = super::child::pipe().ok()?;
        Some(Reader { read, write })
    }

    /// The bytes at `addr`, or `None` when they are not readable.
    pub(super) fn read(&self, addr: usize, size: u8) -> Option<u64> {
        let n = usize::from(size);
        // SAFETY: `write` only reads from `addr`; the kernel checks the
        // range and fails with EFAULT instead of faulting.
        let wrote = unsafe { libc::write(self.write.as_raw_fd(), addr as *const _, n) };
        if wrote != n as isize {
            return None;
        }
        let mut buf = [0u8; 8];
        // SAFETY: `buf` has room for the `n <= 8` bytes just written.
        let got = unsafe { libc::read(self.read.as_raw_fd(), buf.as_mut_ptr().cast(), n) };
        (got == n as isize).then(|| u64::from_ne_bytes(buf))
    }
}
