//! The trace parser: [`parse`] and [`parse_with`] read the text format of
//! [`crate::text`] back into a [`Trace`].
//!
//! Two passes. The first reads each line into a statement (a descriptor
//! declaration, the input list, or an op with its arguments still as
//! names); constants are decoded here. The second resolves: descriptor
//! declarations are checked against the [`Namespace`], every defined value
//! name gets its `OpRef` (inputs, then ops in order), and the ops are built.
//! Because names are collected before ops are built, a use before the
//! definition parses (to a forward reference the verifier rejects), while a
//! name defined nowhere is a parse error.
//!
//! Invariant: no input makes the parser panic; every failure is a
//! [`ParseError`] with the line and column of the offending token.

use super::decl::parse_decl;
use super::lex::{lex_line, Tok, Token};
use super::Namespace;
use crate::descr::Descr;
use crate::error::ParseError;
use crate::op::{Const, Op, OpRef};
use crate::opcode::{Kind, OpCode};
use crate::trace::Trace;
use std::collections::{BTreeMap, HashMap};

/// Parses trace text that uses no namespace: every descriptor must be
/// declared in the text itself (as [`crate::print`] does).
///
/// ```
/// let t = majit_ir::parse("
///     [i0]
///     i1 = int_add(i0, 1)
///     finish(i1)
/// ").unwrap();
/// assert_eq!(t.ops.len(), 2);
/// ```
pub fn parse(text: &str) -> Result<Trace, ParseError> {
    parse_with(text, &Namespace::new())
}

/// Parses trace text, resolving descriptor names and `@symbols` against
/// `ns` first, then against the text's own `descr` declarations.
///
/// A declaration that conflicts with a namespace entry of the same name is
/// an error; one that repeats it exactly is fine (so printed text reads back
/// under the namespace it was made with).
///
/// ```
/// use majit_ir::{parse_with, Namespace, TargetDescr};
/// let mut ns = Namespace::new();
/// ns.add_descr(TargetDescr { name: "Loop".into() }.into());
/// let t = parse_with("[i0]\nlabel(i0, descr=Loop)\njump(i0, descr=Loop)", &ns).unwrap();
/// assert_eq!(t.ops[1].descr, ns.descr("Loop").cloned());
/// ```
pub fn parse_with(text: &str, ns: &Namespace) -> Result<Trace, ParseError> {
    let stmts = read_statements(text)?;
    Resolver::new(ns).build(&stmts)
}

/// A value operand as written: a name to resolve later, a constant, or a
/// namespace symbol.
#[derive(Debug)]
enum ArgKind {
    Name(String),
    Const(Const),
    Symbol(String),
}

#[derive(Debug)]
struct Arg {
    kind: ArgKind,
    col: usize,
}

/// A name and the column it was written at.
#[derive(Debug)]
struct Spelled {
    name: String,
    col: usize,
}

#[derive(Debug)]
struct OpLine {
    result: Option<Spelled>,
    opcode: OpCode,
    args: Vec<Arg>,
    descr: Option<Spelled>,
    fail_args: Option<Vec<Arg>>,
}

#[derive(Debug)]
enum Stmt {
    Decl { name: Spelled, descr: Descr },
    Inputs(Vec<Spelled>),
    Op(Box<OpLine>),
}

/// A statement and its 1-based line number.
type Numbered = (usize, Stmt);

fn read_statements(text: &str) -> Result<Vec<Numbered>, ParseError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let (toks, end_col) = lex_line(line, lineno)?;
        if toks.is_empty() {
            continue;
        }
        let mut cur = Cursor {
            toks: &toks,
            pos: 0,
            line: lineno,
            end_col,
        };
        out.push((lineno, read_statement(&mut cur)?));
    }
    Ok(out)
}

/// A position in the tokens of one line.
pub(crate) struct Cursor<'a> {
    pub toks: &'a [Token],
    pub pos: usize,
    pub line: usize,
    /// The column where the line's content ends (its comment or its end).
    pub end_col: usize,
}

impl Cursor<'_> {
    pub fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }
    pub fn peek_at(&self, ahead: usize) -> Option<&Tok> {
        self.toks.get(self.pos + ahead).map(|t| &t.tok)
    }
    /// The column of the current token (or the end of the line).
    pub fn col(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end_col, |t| t.col)
    }
    /// An error at the current token.
    pub fn err(&self, expected: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line,
            col: self.col(),
            expected: expected.into(),
            found: self.peek().map_or("end of line".to_string(), Tok::describe),
        }
    }
    /// An error at column `col` with an explicit `found`.
    pub fn err_at(&self, col: usize, expected: impl Into<String>, found: String) -> ParseError {
        ParseError {
            line: self.line,
            col,
            expected: expected.into(),
            found,
        }
    }
    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    pub fn expect(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(format!("`{c}`")))
        }
    }
    /// The current word and its column.
    pub fn word(&mut self, what: &str) -> Result<(String, usize), ParseError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                let col = self.col();
                self.pos += 1;
                Ok((w, col))
            }
            _ => Err(self.err(what)),
        }
    }
    pub fn expect_end(&self, expected: &str) -> Result<(), ParseError> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.err(expected)),
        }
    }
}

fn read_statement(cur: &mut Cursor) -> Result<Stmt, ParseError> {
    match (cur.peek(), cur.peek_at(1)) {
        (Some(Tok::Punct('[')), _) => read_inputs(cur),
        (Some(Tok::Word(w)), Some(Tok::Word(_))) if w == "descr" => {
            cur.pos += 1;
            let (name, col) = cur.word("a descriptor name")?;
            check_descr_name(cur, &name, col)?;
            cur.expect('=')?;
            let descr = parse_decl(cur, &name)?;
            cur.expect_end("end of line after the declaration")?;
            Ok(Stmt::Decl {
                name: Spelled { name, col },
                descr,
            })
        }
        _ => read_op(cur).map(|op| Stmt::Op(Box::new(op))),
    }
}

fn check_descr_name(cur: &Cursor, name: &str, col: usize) -> Result<(), ParseError> {
    if super::is_name(name) {
        Ok(())
    } else {
        Err(cur.err_at(col, "a descriptor name", format!("`{name}`")))
    }
}

fn read_inputs(cur: &mut Cursor) -> Result<Stmt, ParseError> {
    cur.expect('[')?;
    let mut names = Vec::new();
    if !cur.eat(']') {
        loop {
            let (name, col) = cur.word("an input name (`i0`, `p1`, `f2`)")?;
            if value_kind(&name).is_none() {
                return Err(cur.err_at(
                    col,
                    "an input name (`i0`, `p1`, `f2`)",
                    format!("`{name}`"),
                ));
            }
            names.push(Spelled { name, col });
            if cur.eat(']') {
                break;
            }
            cur.expect(',')?;
        }
    }
    cur.expect_end("end of line after the input list")?;
    Ok(Stmt::Inputs(names))
}

/// The kind of a value name (`i..`, `p..`, `f..` followed by letters,
/// digits or `_`), or `None` if `name` is not a value name. The constant
/// keywords `inf`, `nan`, `null`, `ptr`, `float_bits` are not value names.
fn value_kind(name: &str) -> Option<Kind> {
    if matches!(name, "inf" | "nan" | "null" | "ptr" | "float_bits") {
        return None;
    }
    let mut chars = name.chars();
    let kind = Kind::from_prefix(chars.next()?)?;
    chars
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then_some(kind)
}

fn read_op(cur: &mut Cursor) -> Result<OpLine, ParseError> {
    let result = if cur.peek_at(1) == Some(&Tok::Punct('=')) {
        let (name, col) = cur.word("a result name")?;
        cur.pos += 1;
        Some(Spelled { name, col })
    } else {
        None
    };
    let (opname, op_col) = cur.word("an op name")?;
    let opcode = OpCode::from_name(&opname)
        .ok_or_else(|| cur.err_at(op_col, unknown_op_hint(&opname), format!("`{opname}`")))?;
    check_result_name(cur, opcode, result.as_ref())?;
    cur.expect('(')?;
    let (args, descr) = read_args(cur)?;
    let fail_args = if cur.peek() == Some(&Tok::Punct('[')) {
        if !opcode.is_guard() {
            return Err(cur.err(format!(
                "end of line (`{opname}` is not a guard and takes no fail args)"
            )));
        }
        cur.pos += 1;
        Some(read_list(cur, ']')?)
    } else {
        None
    };
    if opcode.is_guard() && fail_args.is_none() {
        return Err(cur.err("a fail-arg list `[...]` after the guard (`[]` if empty)"));
    }
    cur.expect_end("end of line after the op")?;
    Ok(OpLine {
        result,
        opcode,
        args,
        descr,
        fail_args,
    })
}

fn check_result_name(
    cur: &Cursor,
    opcode: OpCode,
    result: Option<&Spelled>,
) -> Result<(), ParseError> {
    let Some(r) = result else { return Ok(()) };
    let found = format!("`{}`", r.name);
    match (opcode.result().kind(), value_kind(&r.name)) {
        (None, _) => Err(cur.err_at(
            r.col,
            format!("no result name (`{opcode}` has no result)"),
            found,
        )),
        (Some(_), None) => Err(cur.err_at(r.col, "a result name (`i3`, `p3`, `f3`)", found)),
        (Some(want), Some(got)) if want != got => Err(cur.err_at(
            r.col,
            format!(
                "a result name starting with `{}` (`{opcode}` returns {})",
                want.prefix(),
                want.name()
            ),
            found,
        )),
        _ => Ok(()),
    }
}

/// The hint for an unknown op name: the closest known names.
fn unknown_op_hint(name: &str) -> String {
    let mut best: Vec<(usize, &str)> = OpCode::ALL
        .iter()
        .map(|op| (edit_distance(name, op.name()), op.name()))
        .collect();
    best.sort();
    let close: Vec<String> = best
        .iter()
        .take(3)
        .filter(|(d, _)| *d <= name.len().max(3) / 2 + 1)
        .map(|(_, n)| format!("`{n}`"))
        .collect();
    if close.is_empty() {
        "an op name".to_string()
    } else {
        format!("an op name (did you mean {}?)", close.join(" or "))
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().take(64).enumerate() {
        let mut row = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            row.push(sub.min(prev[j + 1] + 1).min(row[j] + 1));
        }
        prev = row;
    }
    prev[b.len()]
}

/// The arguments after `(`, through `)`: values, then an optional final
/// `descr=NAME`.
fn read_args(cur: &mut Cursor) -> Result<(Vec<Arg>, Option<Spelled>), ParseError> {
    let mut args = Vec::new();
    if cur.eat(')') {
        return Ok((args, None));
    }
    loop {
        if cur.peek() == Some(&Tok::Word("descr".to_string()))
            && cur.peek_at(1) == Some(&Tok::Punct('='))
        {
            cur.pos += 2;
            let (name, col) = cur.word("a descriptor name")?;
            check_descr_name(cur, &name, col)?;
            cur.expect(')')?;
            return Ok((args, Some(Spelled { name, col })));
        }
        args.push(read_arg(cur)?);
        if cur.eat(')') {
            return Ok((args, None));
        }
        cur.expect(',')?;
    }
}

/// A comma-separated list of values up to `close` (already past the opener).
fn read_list(cur: &mut Cursor, close: char) -> Result<Vec<Arg>, ParseError> {
    let mut out = Vec::new();
    if cur.eat(close) {
        return Ok(out);
    }
    loop {
        out.push(read_arg(cur)?);
        if cur.eat(close) {
            return Ok(out);
        }
        cur.expect(',')?;
    }
}

const VALUE: &str = "a value name or a constant";

fn read_arg(cur: &mut Cursor) -> Result<Arg, ParseError> {
    let col = cur.col();
    if let Some(Tok::Symbol(s)) = cur.peek() {
        let kind = ArgKind::Symbol(s.clone());
        cur.pos += 1;
        return Ok(Arg { kind, col });
    }
    let (word, col) = cur.word(VALUE)?;
    let kind = match word.as_str() {
        "null" => ArgKind::Const(Const::Ref(0)),
        "nan" => ArgKind::Const(Const::float(f64::NAN)),
        "inf" => ArgKind::Const(Const::float(f64::INFINITY)),
        "-inf" => ArgKind::Const(Const::float(f64::NEG_INFINITY)),
        "ptr" | "float_bits" => {
            cur.expect('(')?;
            let (num, num_col) = cur.word("an address or bit pattern")?;
            let bits = parse_u64(&num).ok_or_else(|| {
                cur.err_at(num_col, "an unsigned 64-bit number", format!("`{num}`"))
            })?;
            cur.expect(')')?;
            if word == "ptr" {
                let addr = usize::try_from(bits)
                    .map_err(|_| cur.err_at(num_col, "an address", format!("`{num}`")))?;
                ArgKind::Const(Const::Ref(addr))
            } else {
                ArgKind::Const(Const::Float(bits))
            }
        }
        w if w.starts_with('-') || w.starts_with(|c: char| c.is_ascii_digit()) => {
            ArgKind::Const(parse_number(w).ok_or_else(|| {
                cur.err_at(col, "a number (i64, hex, or float)", format!("`{w}`"))
            })?)
        }
        w if value_kind(w).is_some() => ArgKind::Name(word),
        _ => return Err(cur.err_at(col, VALUE, format!("`{word}`"))),
    };
    Ok(Arg { kind, col })
}

/// An unsigned number, decimal or `0x` hex.
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if s.starts_with(|c: char| c.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}

/// An int (decimal in `i64` range, or hex as a 64-bit pattern, optionally
/// negated) or a float (has `.`, `e` or `E`).
fn parse_number(w: &str) -> Option<Const> {
    let (neg, body) = match w.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, w),
    };
    if body.starts_with("0x") || body.starts_with("0X") {
        let bits = parse_u64(body)?;
        if neg && bits > 1 << 63 {
            return None;
        }
        let v = bits as i64;
        return Some(Const::Int(if neg { v.wrapping_neg() } else { v }));
    }
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if body.contains(['.', 'e', 'E']) {
        return w.parse::<f64>().ok().map(Const::float);
    }
    w.parse::<i64>().ok().map(Const::Int)
}

/// The second pass: names to `OpRef`s, descriptor names to descriptors.
struct Resolver<'a> {
    ns: &'a Namespace,
    declared: BTreeMap<String, (usize, Descr)>,
    values: HashMap<String, (usize, OpRef)>,
}

impl<'a> Resolver<'a> {
    fn new(ns: &'a Namespace) -> Self {
        Resolver {
            ns,
            declared: BTreeMap::new(),
            values: HashMap::new(),
        }
    }

    fn build(mut self, stmts: &[Numbered]) -> Result<Trace, ParseError> {
        let inputs = self.define_names(stmts)?;
        let mut trace = Trace::new(&inputs);
        for (line, stmt) in stmts {
            if let Stmt::Op(op) = stmt {
                let op = self.build_op(&mut trace, *line, op)?;
                trace.push(op);
            }
        }
        Ok(trace)
    }

    /// Registers declarations and every defined value name; returns the
    /// input kinds.
    fn define_names(&mut self, stmts: &[Numbered]) -> Result<Vec<Kind>, ParseError> {
        let mut inputs: Option<Vec<Kind>> = None;
        let mut op_index = 0;
        for (line, stmt) in stmts {
            let line = *line;
            match stmt {
                Stmt::Decl { name, descr } => self.declare(line, name, descr)?,
                Stmt::Inputs(names) => {
                    if inputs.is_some() {
                        return Err(error(line, 1, "one input list", "a second one".into()));
                    }
                    let mut kinds = Vec::new();
                    for (i, n) in names.iter().enumerate() {
                        kinds.push(value_kind(&n.name).unwrap_or(Kind::Int));
                        self.define(line, n, OpRef::input(i))?;
                    }
                    inputs = Some(kinds);
                }
                Stmt::Op(op) => {
                    if inputs.is_none() {
                        return Err(error(
                            line,
                            1,
                            "the input list `[...]` before the first op",
                            format!("`{}`", op.opcode),
                        ));
                    }
                    if let Some(r) = &op.result {
                        self.define(line, r, OpRef::op(op_index))?;
                    }
                    op_index += 1;
                }
            }
        }
        let last = stmts.last().map_or(1, |(l, _)| *l);
        inputs.ok_or_else(|| error(last, 1, "the input list `[...]`", "end of input".into()))
    }

    fn declare(&mut self, line: usize, name: &Spelled, descr: &Descr) -> Result<(), ParseError> {
        if let Some(known) = self.ns.descr(&name.name) {
            if known != descr {
                return Err(error(
                    line,
                    name.col,
                    format!("a declaration of `{}` equal to the namespace's", name.name),
                    "a different one".into(),
                ));
            }
        }
        if let Some((first, old)) = self.declared.get(&name.name) {
            if old != descr {
                return Err(error(
                    line,
                    name.col,
                    format!("one declaration of `{}` (first on line {first})", name.name),
                    "a different one".into(),
                ));
            }
        }
        self.declared
            .insert(name.name.clone(), (line, descr.clone()));
        Ok(())
    }

    fn define(&mut self, line: usize, name: &Spelled, r: OpRef) -> Result<(), ParseError> {
        if let Some((first, _)) = self.values.get(&name.name) {
            return Err(error(
                line,
                name.col,
                "a fresh value name",
                format!("`{}`, already defined on line {first}", name.name),
            ));
        }
        self.values.insert(name.name.clone(), (line, r));
        Ok(())
    }

    fn build_op(&self, trace: &mut Trace, line: usize, op: &OpLine) -> Result<Op, ParseError> {
        let args = self.resolve_all(trace, line, &op.args)?;
        let mut out = Op::new(op.opcode, &args);
        if let Some(d) = &op.descr {
            out.descr = Some(self.resolve_descr(line, d)?);
        }
        if let Some(fail) = &op.fail_args {
            out.fail_args = Some(self.resolve_all(trace, line, fail)?);
        }
        Ok(out)
    }

    fn resolve_all(
        &self,
        trace: &mut Trace,
        line: usize,
        args: &[Arg],
    ) -> Result<Vec<OpRef>, ParseError> {
        args.iter().map(|a| self.resolve(trace, line, a)).collect()
    }

    fn resolve(&self, trace: &mut Trace, line: usize, arg: &Arg) -> Result<OpRef, ParseError> {
        match &arg.kind {
            ArgKind::Const(c) => Ok(trace.add_const(*c)),
            ArgKind::Name(n) => match self.values.get(n) {
                Some(&(_, r)) => Ok(r),
                None => Err(error(
                    line,
                    arg.col,
                    "a defined value name",
                    format!("`{n}`"),
                )),
            },
            ArgKind::Symbol(s) => match self.ns.symbol(s) {
                Some(c) => Ok(trace.add_const(c)),
                None => Err(error(
                    line,
                    arg.col,
                    "a symbol of the namespace",
                    format!("unknown symbol `@{s}`"),
                )),
            },
        }
    }

    fn resolve_descr(&self, line: usize, d: &Spelled) -> Result<Descr, ParseError> {
        if let Some(descr) = self.ns.descr(&d.name) {
            return Ok(descr.clone());
        }
        match self.declared.get(&d.name) {
            Some((_, descr)) => Ok(descr.clone()),
            None => Err(error(
                line,
                d.col,
                "a descriptor of the namespace or a `descr` declaration",
                format!("unknown descriptor `{}`", d.name),
            )),
        }
    }
}

fn error(line: usize, col: usize, expected: impl Into<String>, found: String) -> ParseError {
    ParseError {
        line,
        col,
        expected: expected.into(),
        found,
    }
}
