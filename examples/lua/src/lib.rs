//! Lua 5.4 on majit (see README.md).

pub mod arith;
pub mod ast;
pub mod builtins;
pub mod bytecode;
pub mod code;
pub mod compile;
pub mod errors;
pub mod format;
pub mod lex;
pub mod meta;
pub mod number;
pub mod parse;
pub mod pattern;
pub mod proto;
pub mod run;
pub mod shape;
pub mod strings;
pub mod table;
pub mod traceback;
pub mod value;
pub mod vm;
