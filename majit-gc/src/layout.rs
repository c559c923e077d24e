//! The type registry: what the collector knows about every object.
//!
//! A fixed-size [`Layout`] is a size and the offsets of its reference
//! fields. A headered object starts with one 8-byte header word: the type
//! id in the low 32 bits, GC flags in the high 32 bits, so a reference
//! points at the header and the first field sits at offset 8. A headered
//! array ([`ArrayLayout`]) has the header at 0, its length at 8 and items
//! from 16. A headerless layout has no header at all: it allocates from its
//! own region, and the collector learns the type from the region (nursery)
//! or chunk (old space) an address lies in, never from the object.
//!
//! Type ids are dense, start at 1 (a zero header word means "no type
//! yet"), and index the registry vectors directly: no hashing on the hot
//! path.

use crate::error::{GcError, Result};

/// Size of the header word of headered objects.
pub const HEADER_SIZE: u32 = 8;
/// Offset of the length word of headered arrays.
pub const ARRAY_LENGTH_OFFSET: u32 = 8;
/// Offset of item 0 of headered arrays.
pub const ARRAY_ITEMS_OFFSET: u32 = 16;
/// Header flag (bit 32 of the header word, bit 0 of the byte at offset 4):
/// the object is old and not yet in the remembered set, so a store of a
/// reference into it must call the write barrier.
pub const FLAG_TRACK_YOUNG_PTRS: u64 = 1 << 32;
/// Largest headerless object size.
pub const MAX_HEADERLESS_SIZE: u32 = 4096;

/// A registered type. Ids are small dense integers starting at 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

impl TypeId {
    /// The header word of a freshly allocated (young) headered object of
    /// this type: the type id, no flags. The GC rewrite stores exactly this.
    pub fn header(self) -> u64 {
        self.0 as u64
    }
}

/// A fixed-size object layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// For error messages and debugging.
    pub name: String,
    /// Total size in bytes, header included for headered layouts; rounded
    /// up to a multiple of 8.
    pub size: u32,
    /// Byte offsets of the reference fields (8-aligned, inside the object,
    /// not overlapping the header).
    pub ref_offsets: Vec<u32>,
    /// No header word: the object lives in its layout's own region.
    pub headerless: bool,
}

impl Layout {
    /// A headered layout of `size` bytes (header included).
    pub fn headered(name: &str, size: u32, ref_offsets: &[u32]) -> Layout {
        Layout {
            name: name.to_string(),
            size,
            ref_offsets: ref_offsets.to_vec(),
            headerless: false,
        }
    }
    /// A headerless layout of `size` bytes.
    pub fn headerless(name: &str, size: u32, ref_offsets: &[u32]) -> Layout {
        Layout {
            headerless: true,
            ..Layout::headered(name, size, ref_offsets)
        }
    }
}

/// A headered array layout: header at 0, length at 8, items from 16.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayLayout {
    pub name: String,
    /// 1, 2, 4 or 8; reference arrays use 8.
    pub item_size: u32,
    /// The items are references.
    pub items_are_refs: bool,
}

/// What the registry stores per type id.
#[derive(Clone, Debug)]
pub(crate) enum TypeInfo {
    Fixed(Layout),
    Array(ArrayLayout),
}

impl TypeInfo {
    pub(crate) fn name(&self) -> &str {
        match self {
            TypeInfo::Fixed(l) => &l.name,
            TypeInfo::Array(a) => &a.name,
        }
    }
}

/// Rounds `n` up to a multiple of 8.
pub(crate) fn align8(n: usize) -> usize {
    (n + 7) & !7
}

/// Checks a fixed layout and returns it normalised (size rounded up,
/// offsets sorted).
pub(crate) fn check_layout(mut layout: Layout) -> Result<Layout> {
    let bad = |reason: String| GcError::BadLayout {
        name: layout.name.clone(),
        reason,
    };
    let size = align8(layout.size as usize);
    let min = if layout.headerless {
        8
    } else {
        HEADER_SIZE as usize
    };
    if size < min {
        return Err(bad(format!(
            "size {} is below the minimum of {min}",
            layout.size
        )));
    }
    if layout.headerless && size > MAX_HEADERLESS_SIZE as usize {
        return Err(bad(format!(
            "headerless size {size} exceeds the maximum of {MAX_HEADERLESS_SIZE}"
        )));
    }
    if size > u32::MAX as usize / 2 {
        return Err(bad(format!("size {} is too large", layout.size)));
    }
    let first = if layout.headerless { 0 } else { HEADER_SIZE };
    let mut offsets = layout.ref_offsets.clone();
    offsets.sort_unstable();
    for w in offsets.windows(2) {
        if w[0] == w[1] {
            return Err(bad(format!("reference offset {} listed twice", w[0])));
        }
    }
    for &off in &offsets {
        if off % 8 != 0 || off < first || off as usize + 8 > size {
            return Err(bad(format!(
                "reference offset {off} must be 8-aligned and within [{first}, {})",
                size - 7
            )));
        }
    }
    layout.size = size as u32;
    layout.ref_offsets = offsets;
    Ok(layout)
}

/// Checks an array layout.
pub(crate) fn check_array_layout(layout: &ArrayLayout) -> Result<()> {
    let bad = |reason: String| GcError::BadLayout {
        name: layout.name.clone(),
        reason,
    };
    if ![1, 2, 4, 8].contains(&layout.item_size) {
        return Err(bad(format!(
            "item size {} is not 1, 2, 4 or 8",
            layout.item_size
        )));
    }
    if layout.items_are_refs && layout.item_size != 8 {
        return Err(bad("reference items must be 8 bytes".into()));
    }
    Ok(())
}

/// Bytes of an array of `len` items of `item_size` bytes, header and
/// length word included, rounded up to 8; `None` on overflow.
pub(crate) fn array_bytes(item_size: u32, len: usize) -> Option<usize> {
    len.checked_mul(item_size as usize)?
        .checked_add(ARRAY_ITEMS_OFFSET as usize + 7)
        .map(|n| n & !7)
}
