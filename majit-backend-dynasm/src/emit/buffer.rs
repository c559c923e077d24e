//! The emitter state every architecture shares: the assembler, the
//! constant pool, label positions, guard stubs, inline exits and what the
//! condition flags hold, and the assembly of all of it into an
//! [`Assembled`] once the trace is emitted.
//!
//! An architecture's emitter is `Asm<its relocation, its condition code>`
//! (`x86_64::emit::X64Emitter`, `aarch64::emit::A64Emitter`); its encoders
//! are inherent methods and an [`Encoder`](super::Encoder) impl on that
//! type.

use crate::arch::{Assembled, EmitEnv, PoolWord};
use crate::guard::ExitRecord;
use dynasmrt::relocations::Relocation;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use majit_metainterp::CompileError;

/// Where a pool word's value comes from.
#[derive(Copy, Clone, Debug)]
pub enum PoolSource {
    /// An absolute address (or data word) known now.
    Abs(usize),
    /// The address of a label of this trace (filled in at placement).
    Label(DynamicLabel),
}

/// A guard's cold stub waiting to be emitted.
#[derive(Debug)]
pub struct Stub {
    pub label: DynamicLabel,
    pub exit: ExitRecord,
}

/// What the condition flags hold after an op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Flags<C> {
    /// The op that set them.
    pub op: usize,
    /// The condition meaning "the op's boolean result is true" (for
    /// overflow-checked ops: "it overflowed").
    pub cond: C,
    /// Set by an `int_*_ovf` op.
    pub overflow: bool,
}

/// Emitter state for one trace, generic over the architecture's
/// relocation type `R` and condition code `C`.
pub struct Asm<R: Relocation, C> {
    pub(crate) ops: VecAssembler<R>,
    pool: Vec<(DynamicLabel, PoolSource)>,
    exit_word: DynamicLabel,
    leave_word: Option<DynamicLabel>,
    labels: Vec<(usize, DynamicLabel)>,
    pub(crate) stubs: Vec<Stub>,
    /// Exits emitted inline (`finish`): label of the token and the record.
    inline_exits: Vec<(DynamicLabel, ExitRecord)>,
    /// The flags the previous op left; cleared by every op that may
    /// change them.
    pub(crate) flags: Option<Flags<C>>,
    /// The comparison being emitted is read only through the flags (see
    /// `OpCx::flags_only`): its 0/1 result is not written.
    pub(crate) flags_only: bool,
    /// Class words and the GC contract.
    pub(crate) env: EmitEnv,
}

impl<R: Relocation, C> Asm<R, C> {
    /// A fresh emitter for the backend facts `env`; pool word 0 holds the
    /// exit routine's address.
    pub fn new(env: EmitEnv) -> Self {
        let mut ops = VecAssembler::new(0);
        let exit_word = ops.new_dynamic_label();
        Asm {
            ops,
            pool: vec![(exit_word, PoolSource::Abs(env.exit_routine))],
            exit_word,
            leave_word: None,
            labels: Vec::new(),
            stubs: Vec::new(),
            inline_exits: Vec::new(),
            flags: None,
            flags_only: false,
            env,
        }
    }

    /// A pool word holding `src`: its label and index.
    pub(crate) fn pool_word(&mut self, src: PoolSource) -> (DynamicLabel, usize) {
        let l = self.ops.new_dynamic_label();
        self.pool.push((l, src));
        (l, self.pool.len() - 1)
    }

    /// The pool word holding the exit routine's address.
    pub(crate) fn exit_word(&self) -> DynamicLabel {
        self.exit_word
    }

    /// The pool word holding the leave routine's address (made at the
    /// first `finish`).
    pub(crate) fn leave_word(&mut self) -> DynamicLabel {
        if let Some(w) = self.leave_word {
            return w;
        }
        let (w, _) = self.pool_word(PoolSource::Abs(self.env.leave_routine));
        self.leave_word = Some(w);
        w
    }

    /// Defines a new label here for label op `op_index`.
    pub(crate) fn label_op(&mut self, op_index: usize) {
        let l = self.ops.new_dynamic_label();
        self.ops.dynamic_label(l);
        self.labels.push((op_index, l));
    }

    /// The label of label op `op_index` of this trace.
    pub(crate) fn label_of(&self, op_index: usize) -> Result<DynamicLabel, CompileError> {
        self.labels
            .iter()
            .find(|(i, _)| *i == op_index)
            .map(|x| x.1)
            .ok_or_else(|| CompileError::UnknownTarget(format!("label op {op_index}")))
    }

    /// Records an exit whose token is the address of `here`.
    pub(crate) fn inline_exit(&mut self, here: DynamicLabel, exit: ExitRecord) {
        self.inline_exits.push((here, exit));
    }

    /// Resolves a dynamic label after `commit`.
    fn resolve(&self, l: DynamicLabel) -> Result<usize, CompileError> {
        self.ops
            .labels()
            .resolve_dynamic(l)
            .map(|o| o.0)
            .map_err(|e| CompileError::ImplLimit(format!("assembler label: {e}")))
    }

    /// Appends the pool (8-byte aligned, padded with `pad`), resolves
    /// every label and returns the trace's code, pool, labels and exits.
    /// The guard stubs must have been emitted.
    pub(crate) fn assemble(mut self, pad: u8) -> Result<Assembled, CompileError> {
        self.ops.align(8, pad);
        let pool = std::mem::take(&mut self.pool);
        for (l, _) in &pool {
            self.ops.dynamic_label(*l);
            self.ops.push_u64(0);
        }
        let code_len = self.ops.offset().0 - 8 * pool.len();
        self.ops
            .commit()
            .map_err(|e| CompileError::ImplLimit(format!("assembler: {e}")))?;
        let mut words = Vec::with_capacity(pool.len());
        for (_, src) in &pool {
            words.push(match *src {
                PoolSource::Abs(a) => PoolWord::Abs(a),
                PoolSource::Label(l) => PoolWord::Own(self.resolve(l)?),
            });
        }
        let mut labels = Vec::with_capacity(self.labels.len());
        for &(i, l) in &self.labels {
            labels.push((i, self.resolve(l)?));
        }
        let mut exits = Vec::new();
        for s in std::mem::take(&mut self.stubs) {
            let mut e = s.exit;
            e.stub_offset = self.resolve(s.label)?;
            exits.push(e);
        }
        for (l, mut e) in std::mem::take(&mut self.inline_exits) {
            e.stub_offset = self.resolve(l)?;
            exits.push(e);
        }
        exits.sort_by_key(|e| e.number);
        let mut code = self
            .ops
            .take()
            .map_err(|e| CompileError::ImplLimit(format!("assembler: {e}")))?;
        code.truncate(code_len);
        Ok(Assembled {
            code,
            pool: words,
            labels,
            exits,
        })
    }
}
