//! What a memory op touches, read from its field or array descr: the
//! arch-neutral half of every load and store emitter.

use crate::arch::OpCx;
use majit_ir::{Kind, OpCode};
use majit_metainterp::CompileError;

/// Offset, width, signedness and kind of the memory a descr describes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// Byte offset from the base (item 0 for arrays, the length word for
    /// `arraylen_gc`).
    pub offset: i64,
    /// Width in bytes: 1, 2, 4 or 8 (floats: 8).
    pub size: u8,
    pub signed: bool,
    pub kind: Kind,
}

/// The access of the load/store/`arraylen_gc` op `cx`, or an error for a
/// missing descr or a width no backend encodes.
pub fn mem_access(cx: &OpCx) -> Result<MemAccess, CompileError> {
    let bad = || {
        CompileError::Invalid(format!(
            "{} at op {} needs a field or array descr",
            cx.op.opcode, cx.index
        ))
    };
    let d = cx.op.descr.as_ref().ok_or_else(bad)?;
    let a = if let Some(f) = d.as_field() {
        MemAccess {
            offset: f.offset as i64,
            size: f.size,
            signed: f.signed,
            kind: f.kind,
        }
    } else {
        let a = d.as_array().ok_or_else(bad)?;
        let (offset, size, kind) = if cx.op.opcode == OpCode::ArraylenGc {
            (a.len_offset as i64, 8, Kind::Int)
        } else {
            (a.base_offset as i64, a.item_size, a.kind)
        };
        MemAccess {
            offset,
            size,
            signed: a.signed,
            kind,
        }
    };
    let ok_size = matches!(a.size, 1 | 2 | 4 | 8) && (a.kind != Kind::Float || a.size == 8);
    if !ok_size {
        return Err(CompileError::Unsupported {
            op: format!("{} ({}-byte {:?} access)", cx.op.opcode, a.size, a.kind),
        });
    }
    Ok(a)
}
