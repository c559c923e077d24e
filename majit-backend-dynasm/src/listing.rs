//! What a [`NativeBackend`] tells logs and perf maps about its code: the
//! address range of a compiled trace, and its machine code with a
//! disassembly and the meaning of each pool word.
//!
//! Absolute addresses reach compiled code in two ways: pool words (the exit
//! routine, helpers, GC words, other traces' labels, the trace's own stubs)
//! and immediates materialised from trace constants (refs, call targets;
//! see `mov_imm`). The backend names the first kind itself
//! ([`NativeBackend::address_name`]); the caller names the second (it knows
//! the trace's constants). Everything else in a pool is data (gcmaps) and
//! prints as its value.

use crate::arch::{Arch, PoolWord};
use crate::native::NativeBackend;
use majit_metainterp::{CodeId, MachineCode, PoolEntry};

impl<A: Arch> NativeBackend<A> {
    /// The addresses `code` occupies: its code and pool.
    pub(crate) fn range_of(&self, code: CodeId) -> Option<std::ops::Range<usize>> {
        let t = self.traces.get(&code)?;
        let len = t.block.code().len().next_multiple_of(8) + 8 * t.pool.len();
        Some(t.block.addr()..t.block.addr() + len)
    }

    /// The backend's name for address `v`, if it is one it placed or
    /// knows: runtime routines, GC words and helpers, labels, or a place in
    /// a compiled trace (`code3`, `code3+0x40`).
    pub fn address_name(&self, v: u64) -> Option<String> {
        let v = usize::try_from(v).ok()?;
        let take_signals = majit_metainterp::runtime::take_signals as *const () as usize;
        let direct = &self.env.direct;
        let mut known = vec![
            (self.env.exit_routine, "exit_routine".to_string()),
            (self.env.leave_routine, "leave_routine".to_string()),
            (take_signals, "take_signals".to_string()),
            (
                majit_metainterp::runtime::signal_flag_addr(),
                "signal_flag".to_string(),
            ),
            (direct.entry, "entry_trampoline".to_string()),
            (direct.pool, "frame_pool".to_string()),
            (direct.leave, "leave_direct".to_string()),
        ];
        for (token, (cell, _)) in &direct.targets {
            known.push((*cell, format!("call_target[{token}]")));
        }
        if let Some(gc) = &self.env.gc {
            known.extend([
                (gc.heap, "gc.heap".to_string()),
                (gc.nursery_free_addr, "gc.nursery_free".to_string()),
                (gc.nursery_top_addr, "gc.nursery_top".to_string()),
                (gc.card_table_biased, "gc.card_table".to_string()),
                (gc.malloc_nursery_fn, "gc.malloc_nursery".to_string()),
                (
                    gc.malloc_nursery_headerless_fn,
                    "gc.malloc_headerless".to_string(),
                ),
                (gc.malloc_varsize_fn, "gc.malloc_varsize".to_string()),
                (gc.write_barrier_fn, "gc.write_barrier".to_string()),
                (gc.collect_fn, "gc.collect".to_string()),
                (
                    gc.collect_requested_addr,
                    "gc.collect_requested".to_string(),
                ),
                (gc.frames_addr, "gc.frames".to_string()),
            ]);
            for r in &gc.headerless {
                known.push((r.free_addr, format!("gc.free[type {}]", r.type_id)));
                known.push((r.top_addr, format!("gc.top[type {}]", r.type_id)));
            }
        }
        if let Some((_, name)) = known.into_iter().find(|k| k.0 == v) {
            return Some(name);
        }
        if let Some((name, _)) = self.labels.iter().find(|(_, l)| l.1.addr == v) {
            return Some(name.clone());
        }
        self.traces.keys().find_map(|&id| {
            let r = self.range_of(id)?;
            match v.checked_sub(r.start) {
                Some(0) => Some(format!("code{}", id.0)),
                Some(off) if r.contains(&v) => Some(format!("code{}+{off:#x}", id.0)),
                _ => None,
            }
        })
    }

    /// The machine code of `code` with its disassembly and pool; `names`
    /// names the trace constants that are addresses (see the module docs).
    pub(crate) fn listing(
        &self,
        code: CodeId,
        names: &dyn Fn(u64) -> Option<String>,
    ) -> Option<MachineCode> {
        let t = self.traces.get(&code)?;
        let bytes = t.block.code();
        let pool_at = bytes.len().next_multiple_of(8);
        let name = |v: u64| self.address_name(v).or_else(|| names(v));
        let listing = crate::disasm::disassemble(A::NAME, bytes, pool_at, &name).ok()?;
        let pool = t
            .pool
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let now = t.block.pool_word(i);
                let meaning = match *w {
                    PoolWord::Own(off) if now == t.block.addr() + off => {
                        format!("<code+{off:#x}>")
                    }
                    PoolWord::Own(off) => format!(
                        "<code+{off:#x}>, patched to <{}>",
                        name(now as u64).unwrap_or_else(|| "addr".into())
                    ),
                    PoolWord::Abs(_) => match name(now as u64) {
                        Some(n) => format!("<{n}>"),
                        None => format!("{now:#x}"),
                    },
                };
                PoolEntry {
                    offset: pool_at + 8 * i,
                    meaning,
                }
            })
            .collect();
        Some(MachineCode {
            arch: A::NAME,
            base: t.block.addr(),
            code: bytes.to_vec(),
            listing,
            pool,
        })
    }
}
