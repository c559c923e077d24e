//! Loads and stores of 1, 2, 4 and 8 bytes on real memory.
//!
//! Values travel as 64-bit words (the executor's slot format): a narrow
//! load sign- or zero-extends to 64 bits, a narrow store keeps the low
//! bytes. Accesses are unaligned-safe. The executor rejects widths other
//! than 1, 2, 4 and 8 when it prepares a trace, and checks for null before
//! calling in here; any other invalid address is the trace's bug (the
//! `Backend` contract: memory ops only touch valid memory).

/// How one memory access reads or writes its value, the same for the
/// reference executor, the tracer, the blackhole and resume.
///
/// ```
/// use majit_metainterp::runtime::Access;
/// let word: u64 = 0xff80;
/// let byte = Access { size: 1, signed: true };
/// assert_eq!(unsafe { byte.load(&word as *const u64 as usize) }, -128i64 as u64);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// Width in bytes: 1, 2, 4 or 8.
    pub size: u8,
    /// Sign-extend narrow loads (else zero-extend).
    pub signed: bool,
}

impl Access {
    /// Reads the value at `addr`.
    ///
    /// # Safety
    /// `addr .. addr + size` must be readable memory.
    pub unsafe fn load(self, addr: usize) -> u64 {
        let p = addr as *const u8;
        // SAFETY: the caller guarantees `size` readable bytes at `addr`.
        unsafe {
            match (self.size, self.signed) {
                (1, false) => u64::from(p.read()),
                (1, true) => p.cast::<i8>().read() as i64 as u64,
                (2, false) => u64::from(p.cast::<u16>().read_unaligned()),
                (2, true) => p.cast::<i16>().read_unaligned() as i64 as u64,
                (4, false) => u64::from(p.cast::<u32>().read_unaligned()),
                (4, true) => p.cast::<i32>().read_unaligned() as i64 as u64,
                _ => p.cast::<u64>().read_unaligned(),
            }
        }
    }

    /// Writes the low `size` bytes of `bits` at `addr`.
    ///
    /// # Safety
    /// `addr .. addr + size` must be writable memory.
    pub unsafe fn store(self, addr: usize, bits: u64) {
        let p = addr as *mut u8;
        // SAFETY: the caller guarantees `size` writable bytes at `addr`.
        unsafe {
            match self.size {
                1 => p.write(bits as u8),
                2 => p.cast::<u16>().write_unaligned(bits as u16),
                4 => p.cast::<u32>().write_unaligned(bits as u32),
                _ => p.cast::<u64>().write_unaligned(bits),
            }
        }
    }
}

/// Whether `size` is a width the executor can load and store.
pub(crate) fn is_valid_width(size: u8) -> bool {
    matches!(size, 1 | 2 | 4 | 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_loads_extend_by_signedness() {
        let word: u64 = 0x8182_8384_8586_8788;
        let addr = &word as *const u64 as usize;
        let load = |size, signed| unsafe { Access { size, signed }.load(addr) };
        assert_eq!(load(1, false), 0x88);
        assert_eq!(load(1, true), 0x88u8 as i8 as i64 as u64);
        assert_eq!(load(2, false), 0x8788);
        assert_eq!(load(2, true), 0x8788u16 as i16 as i64 as u64);
        assert_eq!(load(4, true), 0x8586_8788u32 as i32 as i64 as u64);
        assert_eq!(load(8, true), word);
    }

    #[test]
    fn narrow_stores_keep_neighbours() {
        let mut word: u64 = u64::MAX;
        let addr = &mut word as *mut u64 as usize;
        unsafe {
            Access {
                size: 2,
                signed: false,
            }
            .store(addr + 2, 0x1234_5678)
        };
        assert_eq!(word, 0xffff_ffff_5678_ffff);
    }
}
