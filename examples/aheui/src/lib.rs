//! # aheui: an Aheui interpreter on majit
//!
//! Aheui is a 2-D esoteric language written in Hangul syllables: each
//! syllable's initial consonant is a command, its vowel moves the cursor and
//! its final consonant is an argument. The semantics implemented here are
//! those of `LANGUAGE.md` (the reference interpreter rpaheui where the
//! description is silent); `README.md` beside this crate lists every
//! defined behaviour.
//!
//! Pipeline: [`cli`] parses the command line; the program text becomes a
//! [`code::CodeSpace`] (a dense table of decoded syllables, [`decode`],
//! with each state's successor precomputed, vowels and blank cells folded
//! in); [`jit::run`] runs it over the 28 storages (linked lists of GC
//! nodes), plainly or with the JIT ([`engine`]), with I/O and the exact
//! big integers ([`int`]) in the [`session`]. Values are `i64` with an
//! exact big integer slow path. Read `jit.rs` first.
//!
//! ```
//! use aheui::{code::CodeSpace, engine::{run, Engine, Outcome, SharedBuf}};
//! // push 9 twice, multiply, dup, print both as characters ("QQ"), halt
//! let code = CodeSpace::build("밞밞따빠맣맣희").unwrap();
//! let out = SharedBuf::default();
//! let ran = run(&code, Box::new(&b""[..]), Box::new(out.clone()), Engine::Plain).unwrap();
//! assert_eq!(ran.outcome, Outcome::Halted(0));
//! assert_eq!(out.take(), b"QQ");
//! ```

#![warn(missing_docs)]

pub mod cli;
pub mod code;
pub mod decode;
pub mod engine;
pub mod error;
pub mod int;
pub mod io;
pub mod jit;
pub mod session;
pub mod source;
