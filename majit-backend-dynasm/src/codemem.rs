//! W^X code memory: one private mapping per compiled trace.
//!
//! A block is mapped read-write, filled with the code and its pool, then
//! flipped to read-execute; it is never writable and executable at once.
//! Patching (attaching a bridge) flips only the page holding the patched
//! word to read-write for that one write and back, then synchronises the
//! instruction cache (a no-op on x86_64, required on aarch64). Compiled code
//! runs on the thread that patches, so no code runs on the page while it is
//! writable. Dropping a block unmaps it.

use crate::arch::PoolWord;
use majit_metainterp::CompileError;

/// A block of executable memory holding one trace: code, then the pool.
#[derive(Debug)]
pub struct CodeBlock {
    ptr: *mut u8,
    len: usize,
    code_len: usize,
    pool_offset: usize,
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

thread_local! {
    /// How many of this thread's next `mprotect`s fail (see
    /// [`fail_next_protects`]).
    static FAIL_PROTECTS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Makes this thread's next `n` page-protection changes fail as `mprotect`
/// does when the kernel is out of mappings (`ENOMEM`). For tests of the
/// failure paths, which cannot make the kernel refuse reliably.
#[doc(hidden)]
pub fn fail_next_protects(n: u32) {
    FAIL_PROTECTS.with(|f| f.set(n));
}

fn protect(ptr: *mut u8, len: usize, prot: libc::c_int) -> Result<(), CompileError> {
    let injected = FAIL_PROTECTS.with(|f| {
        let n = f.get();
        f.set(n.saturating_sub(1));
        n > 0
    });
    let result = if injected {
        Err(std::io::Error::from_raw_os_error(libc::ENOMEM))
    } else {
        // SAFETY: callers pass a page-aligned range inside a mapping they
        // own.
        match unsafe { libc::mprotect(ptr.cast(), len, prot) } {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    };
    result.map_err(|e| CompileError::CodeMemory(format!("mprotect failed: {e}")))
}

impl CodeBlock {
    /// Maps `code` followed by `pool` (8-byte aligned) as executable memory.
    /// `PoolWord::Own(off)` words become `base + off`.
    pub fn new(code: &[u8], pool: &[PoolWord]) -> Result<CodeBlock, CompileError> {
        let pool_offset = code.len().next_multiple_of(8);
        let total = pool_offset + 8 * pool.len();
        let page = page_size();
        let len = total.max(1).next_multiple_of(page);
        // SAFETY: an anonymous private mapping with no address hint.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(CompileError::CodeMemory(format!(
                "mmap of {len} bytes failed: {}",
                std::io::Error::last_os_error()
            )));
        }
        let ptr = ptr.cast::<u8>();
        let block = CodeBlock {
            ptr,
            len,
            code_len: code.len(),
            pool_offset,
        };
        // SAFETY: the mapping is `len >= total` bytes, writable, and ours.
        let buf = unsafe { std::slice::from_raw_parts_mut(ptr, total) };
        buf[..code.len()].copy_from_slice(code);
        let base = ptr as usize;
        for (i, w) in pool.iter().enumerate() {
            let v = match *w {
                PoolWord::Abs(a) => a,
                PoolWord::Own(off) => base + off,
            };
            let at = pool_offset + 8 * i;
            buf[at..at + 8].copy_from_slice(&(v as u64).to_ne_bytes());
        }
        protect(ptr, len, libc::PROT_READ | libc::PROT_EXEC)?;
        dynasmrt::cache_control::synchronize_icache(block.code());
        // The code runs on this thread: an instruction barrier here makes
        // it see the synchronised instruction stream (a no-op on x86_64).
        dynasmrt::cache_control::prepare_for_execution(block.code());
        Ok(block)
    }

    /// The address of the first code byte.
    pub fn addr(&self) -> usize {
        self.ptr as usize
    }

    /// The bytes mapped for the block (whole pages).
    pub fn mapped_len(&self) -> usize {
        self.len
    }

    /// The instruction bytes (without the pool).
    pub fn code(&self) -> &[u8] {
        // SAFETY: the mapping stays readable for the block's lifetime.
        unsafe { std::slice::from_raw_parts(self.ptr, self.code_len) }
    }

    /// The current value of pool word `i`.
    pub fn pool_word(&self, i: usize) -> usize {
        let at = self.pool_offset + 8 * i;
        assert!(at + 8 <= self.len, "pool word {i} outside the block");
        // SAFETY: the word is inside the readable mapping and 8-byte aligned.
        unsafe { self.ptr.add(at).cast::<u64>().read() as usize }
    }

    /// Overwrites pool word `i` with `value`, flipping its page to
    /// read-write for the write only. If the page cannot be made writable,
    /// nothing changed; if it cannot be made executable again, the page
    /// stays read-write (never writable and executable) and code on it
    /// faults.
    pub fn patch_pool_word(&self, i: usize, value: usize) -> Result<(), CompileError> {
        let at = self.pool_offset + 8 * i;
        assert!(at + 8 <= self.len, "pool word {i} outside the block");
        let page = page_size();
        let page_start = (at / page) * page;
        // SAFETY: `page_start` is page-aligned and inside our mapping.
        let page_ptr = unsafe { self.ptr.add(page_start) };
        protect(page_ptr, page, libc::PROT_READ | libc::PROT_WRITE)?;
        // SAFETY: the word is inside the mapping, 8-byte aligned (pool
        // words are), and its page is writable now.
        unsafe { self.ptr.add(at).cast::<u64>().write(value as u64) };
        protect(page_ptr, page, libc::PROT_READ | libc::PROT_EXEC)?;
        // SAFETY: the page is readable again.
        let word = unsafe { std::slice::from_raw_parts(self.ptr.add(at), 8) };
        dynasmrt::cache_control::synchronize_icache(word);
        dynasmrt::cache_control::prepare_for_execution(word);
        Ok(())
    }
}

impl Drop for CodeBlock {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly the mapping created in `new`.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_words_are_placed_and_patched() {
        let block = CodeBlock::new(&[0xc3, 0x90, 0x90], &[PoolWord::Abs(7), PoolWord::Own(1)])
            .expect("map");
        assert_eq!(block.code(), &[0xc3, 0x90, 0x90]);
        assert_eq!(block.pool_word(0), 7);
        assert_eq!(block.pool_word(1), block.addr() + 1);
        block.patch_pool_word(0, 99).expect("patch");
        assert_eq!(block.pool_word(0), 99);
    }
}
