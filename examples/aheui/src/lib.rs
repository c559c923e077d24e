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
//! in); [`interp::Machine`] runs it over the 28 [`storage`]s,
//! reading and writing through [`io`]. Values are `i64` with an exact big
//! integer slow path ([`int`]). Read `interp.rs` first.
//!
//! ```
//! use aheui::{code::CodeSpace, interp::{Machine, Outcome}, storage::Storages};
//! // push 9 twice, multiply, dup, print both as characters ("QQ"), halt
//! let code = CodeSpace::build("밞밞따빠맣맣희").unwrap();
//! let mut out = Vec::new();
//! let mut machine = Machine::new(&code, Storages::new(majit_gc::GcConfig::default()).unwrap(), &b""[..], &mut out);
//! assert!(matches!(machine.run().unwrap(), Outcome::Halted(_)));
//! drop(machine);
//! assert_eq!(out, b"QQ");
//! ```

#![warn(missing_docs)]

pub mod cli;
pub mod code;
pub mod decode;
pub mod engine;
pub mod error;
pub mod int;
pub mod interp;
pub mod io;
pub mod jit;
pub mod session;
pub mod source;
pub mod storage;
