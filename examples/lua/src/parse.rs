//! The parser: Lua 5.4 source to an [`ast::Chunk`](crate::ast::Chunk), by
//! recursive descent over [`Lexer`]'s tokens.
//!
//! It reports the first syntax error as `lua5.4` would, same line and same
//! words. Three features are left out on purpose and refused as syntax
//! errors once parsed: `goto`, labels and `<close>` variables.
//!
//! Recursion is bounded: the parser counts nesting levels where `lua5.4`
//! counts C calls (each statement, each subexpression, each assignment
//! target after the first) and stops at the same depth, so no input
//! overflows the native stack. Left-associative operator chains and suffix
//! chains (`a.b.c`, `f()()`) are parsed in loops.

use crate::ast::{
    Attrib, BinOp, Block, Chunk, Expr, ExprKind, Field, FuncBody, LocalName, Stat, StatKind, UnOp,
};
use crate::lex::{Lexeme, Lexer, Token};

pub use crate::lex::SyntaxError;

/// Parses `source` into a chunk. `chunk` names it in errors (pass it through
/// [`chunk_id`] first); `skip_shebang` is for script files, as `lua5.4`
/// loads them: it skips a UTF-8 byte order mark and a first line starting
/// with `#`.
///
/// ```
/// use lua::ast::{ExprKind, StatKind};
/// use lua::parse::{chunk_id, parse};
///
/// let chunk = parse(b"#!/usr/bin/lua\nprint(1 + 2)", "script.lua", true).unwrap();
/// let StatKind::Call(call) = &chunk.body.stats[0].kind else { panic!() };
/// assert!(matches!(call.kind, ExprKind::Call { .. }));
/// assert_eq!(call.line, 2);
///
/// let err = parse(b"x = = 1", &chunk_id("x = = 1"), false).unwrap_err();
/// assert_eq!(err.to_string(), r#"[string "x = = 1"]:1: unexpected symbol near '='"#);
/// ```
pub fn parse(source: &[u8], chunk: &str, skip_shebang: bool) -> Result<Chunk, SyntaxError> {
    let mut lex = Lexer::new(source, chunk, skip_shebang);
    let tok = lex.next_lexeme()?;
    let mut parser = Parser {
        lex,
        tok,
        ahead: None,
        prev_line: 1,
        levels: 0,
        func: Func {
            is_vararg: true,
            loops: 0,
            stray_break: None,
        },
    };
    parser.main_chunk().map_err(|e| *e)
}

/// How `lua5.4` shows a chunk name in messages (`luaO_chunkid`, within
/// `LUA_IDSIZE`): `=name` as `name` (at most 59 bytes), `@file` as `file`
/// (long ones as `...` and their last 56 bytes), anything else, the source
/// of a `load`ed string, as `[string "first line"]`, cut to 45 bytes with
/// `...` when longer or when more lines follow. Like C, it stops at a NUL.
///
/// ```
/// use lua::parse::chunk_id;
/// assert_eq!(chunk_id("=stdin"), "stdin");
/// assert_eq!(chunk_id("@dir/x.lua"), "dir/x.lua");
/// assert_eq!(chunk_id("x = 1\nprint(x)"), r#"[string "x = 1..."]"#);
/// ```
pub fn chunk_id(name: &str) -> String {
    const ROOM: usize = 59; // LUA_IDSIZE without the C terminator
    const SOURCE_ROOM: usize = ROOM - "[string \"...\"]".len();
    let name = name.split('\0').next().unwrap_or_default().as_bytes();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    match name.split_first() {
        Some((b'=', rest)) => text(&rest[..rest.len().min(ROOM)]),
        Some((b'@', rest)) if rest.len() <= ROOM => text(rest),
        Some((b'@', rest)) => format!("...{}", text(&rest[rest.len() - (ROOM - 3)..])),
        _ => {
            let first_line = name.split(|&b| b == b'\n').next().unwrap_or_default();
            if first_line.len() == name.len() && name.len() < SOURCE_ROOM {
                format!("[string \"{}\"]", text(name))
            } else {
                let cut = &first_line[..first_line.len().min(SOURCE_ROOM)];
                format!("[string \"{}...\"]", text(cut))
            }
        }
    }
}

/// The parser's results: the error is boxed to keep the many `Result`
/// temporaries of deeply nested parsing small (see [`Parser::statement`]).
type Parsed<T> = Result<T, Box<SyntaxError>>;

/// `lua5.4` allows 200 nested C calls (`LUAI_MAXCCALLS`) while parsing, one
/// of them the standalone interpreter's own, and fails on reaching 200: so a
/// script may nest 198 levels.
const MAX_LEVELS: u32 = 198;

/// Operator priority for unary operators: above all binary ones but `^`.
const UNARY_PRIORITY: u8 = 12;

/// What the parser tracks about the function whose body it is in.
struct Func {
    is_vararg: bool,
    /// How many loops enclose the current statement.
    loops: u32,
    /// The line of the first `break` outside any loop, reported when the
    /// function ends (as `lua5.4` does).
    stray_break: Option<u32>,
}

struct Parser<'s> {
    lex: Lexer<'s>,
    /// The current token.
    tok: Lexeme,
    /// The token after it, once looked at (only for `name =` in tables).
    ahead: Option<Lexeme>,
    /// The line of the last token consumed.
    prev_line: u32,
    /// Nesting depth, see [`MAX_LEVELS`].
    levels: u32,
    func: Func,
}

/// Token helpers and errors.
impl Parser<'_> {
    fn next(&mut self) -> Parsed<()> {
        self.prev_line = self.tok.line;
        self.tok = match self.ahead.take() {
            Some(lexeme) => lexeme,
            None => self.lex.next_lexeme()?,
        };
        Ok(())
    }

    /// The token after the current one.
    fn peek(&mut self) -> Parsed<&Token> {
        if self.ahead.is_none() {
            self.ahead = Some(self.lex.next_lexeme()?);
        }
        Ok(&self.ahead.as_ref().expect("just filled").token)
    }

    fn is(&self, c: u8) -> bool {
        self.tok.token == Token::Char(c)
    }

    /// Consumes the current token if it is `token`.
    fn test(&mut self, token: &Token) -> Parsed<bool> {
        let found = self.tok.token == *token;
        if found {
            self.next()?;
        }
        Ok(found)
    }

    /// Consumes `token`, which must be the current one.
    fn check(&mut self, token: &Token) -> Parsed<()> {
        match self.test(token)? {
            true => Ok(()),
            false => Err(self.error_expected(token)),
        }
    }

    /// Consumes `close`, which ends what `open` started at `line`.
    fn check_match(&mut self, close: &Token, open: &Token, line: u32) -> Parsed<()> {
        if self.test(close)? {
            return Ok(());
        }
        if line == self.lex.line() {
            return Err(self.error_expected(close));
        }
        let (close, open) = (close.describe(), open.describe());
        Err(self.error(&format!(
            "{close} expected (to close {open} at line {line})"
        )))
    }

    /// Consumes a name.
    fn name(&mut self) -> Parsed<String> {
        let Token::Name(name) = &mut self.tok.token else {
            return Err(self.error("<name> expected"));
        };
        let name = std::mem::take(name);
        self.next()?;
        Ok(name)
    }

    /// `message` near the current token, at the lexer's line.
    fn error(&self, message: &str) -> Box<SyntaxError> {
        match self.lex.near(&self.tok) {
            Some(near) => self.semantic_error(format!("{message} near {near}")),
            None => self.semantic_error(message.to_string()),
        }
    }

    /// `message` as is (`lua5.4` omits `near` for errors not about a
    /// token), at the lexer's line.
    fn semantic_error(&self, message: String) -> Box<SyntaxError> {
        Box::new(self.lex.error(message))
    }

    fn error_expected(&self, token: &Token) -> Box<SyntaxError> {
        self.error(&format!("{} expected", token.describe()))
    }

    /// An unsupported feature, reported at `line` near `near`.
    fn unsupported(&self, line: u32, what: &str, near: &str) -> Box<SyntaxError> {
        Box::new(SyntaxError {
            line,
            ..self.lex.error(format!("{what} near '{near}'"))
        })
    }

    fn enter_level(&mut self) -> Parsed<()> {
        self.levels += 1;
        match self.levels > MAX_LEVELS {
            true => Err(self.semantic_error("chunk has too many syntax levels".into())),
            false => Ok(()),
        }
    }

    fn leave_level(&mut self) {
        self.levels -= 1;
    }
}

/// Statements.
impl Parser<'_> {
    /// The main chunk: a block up to the end of the source.
    fn main_chunk(&mut self) -> Parsed<Chunk> {
        let body = self.block()?;
        if self.tok.token != Token::Eof {
            return Err(self.error_expected(&Token::Eof));
        }
        self.close_func()?;
        Ok(Chunk { body })
    }

    /// Statements up to the end of the enclosing construct, or a `return`.
    fn block(&mut self) -> Parsed<Block> {
        let mut stats = Vec::new();
        while !matches!(
            self.tok.token,
            Token::Else | Token::Elseif | Token::End | Token::Eof | Token::Until
        ) {
            if self.is(b';') {
                self.next()?;
                continue;
            }
            let is_return = self.tok.token == Token::Return;
            stats.push(self.statement()?);
            if is_return {
                break;
            }
        }
        Ok(Block { stats })
    }

    /// A block that is a loop's body.
    fn loop_body(&mut self) -> Parsed<Block> {
        self.func.loops += 1;
        let body = self.block()?;
        self.func.loops -= 1;
        Ok(body)
    }

    // The statement and expression functions on the recursive paths keep
    // one construct each (and few `?`): unoptimized builds give every
    // temporary its own stack slot, and 198 nesting levels must fit a 2 MiB
    // thread stack even there.
    fn statement(&mut self) -> Parsed<Stat> {
        let line = self.tok.line;
        self.enter_level()?;
        let kind = match self.tok.token {
            Token::If => self.if_stat(line),
            Token::While => self.while_stat(line),
            Token::Do => self.do_stat(line),
            Token::For => self.for_stat(line),
            Token::Repeat => self.repeat_stat(line),
            Token::Function => self.function_stat(line),
            Token::Local => self.local_stat(),
            Token::DbColon => self.label_stat(line),
            Token::Return => self.return_stat(),
            Token::Break => self.break_stat(line),
            Token::Goto => self.goto_stat(line),
            _ => self.expr_stat(),
        }?;
        self.leave_level();
        Ok(Stat {
            line,
            end_line: self.prev_line,
            kind,
        })
    }

    /// `do block end`
    fn do_stat(&mut self, line: u32) -> Parsed<StatKind> {
        self.next()?;
        let body = self.block()?;
        self.check_match(&Token::End, &Token::Do, line)?;
        Ok(StatKind::Do(body))
    }

    /// `break`; outside a loop it is an error once the function ends.
    fn break_stat(&mut self, line: u32) -> Parsed<StatKind> {
        self.next()?;
        if self.func.loops == 0 {
            self.func.stray_break.get_or_insert(line);
        }
        Ok(StatKind::Break)
    }

    /// `::name::`, parsed to report syntax errors as `lua5.4` does, then
    /// refused.
    fn label_stat(&mut self, line: u32) -> Parsed<StatKind> {
        self.next()?;
        self.name()?;
        if self.tok.token != Token::DbColon {
            return Err(self.error_expected(&Token::DbColon));
        }
        Err(self.unsupported(line, "labels are not supported", "::"))
    }

    /// `goto name`, parsed, then refused.
    fn goto_stat(&mut self, line: u32) -> Parsed<StatKind> {
        self.next()?;
        self.name()?;
        Err(self.unsupported(line, "'goto' is not supported", "goto"))
    }

    /// `if cond then block {elseif cond then block} [else block] end`
    fn if_stat(&mut self, line: u32) -> Parsed<StatKind> {
        let mut arms = vec![self.test_then_block()?];
        while self.tok.token == Token::Elseif {
            arms.push(self.test_then_block()?);
        }
        let otherwise = match self.test(&Token::Else)? {
            true => Some(self.block()?),
            false => None,
        };
        self.check_match(&Token::End, &Token::If, line)?;
        Ok(StatKind::If { arms, otherwise })
    }

    /// `if cond then block` or `elseif cond then block`.
    fn test_then_block(&mut self) -> Parsed<(Expr, Block)> {
        self.next()?;
        let cond = self.expr()?;
        self.check(&Token::Then)?;
        Ok((cond, self.block()?))
    }

    /// `while cond do block end`
    fn while_stat(&mut self, line: u32) -> Parsed<StatKind> {
        self.next()?;
        let cond = self.expr()?;
        self.check(&Token::Do)?;
        let body = self.loop_body()?;
        self.check_match(&Token::End, &Token::While, line)?;
        Ok(StatKind::While { cond, body })
    }

    /// `repeat block until cond`
    fn repeat_stat(&mut self, line: u32) -> Parsed<StatKind> {
        self.next()?;
        let body = self.loop_body()?;
        self.check_match(&Token::Until, &Token::Repeat, line)?;
        let cond = self.expr()?;
        Ok(StatKind::Repeat { body, cond })
    }

    /// `for name = e, e [, e] do block end` or
    /// `for name {, name} in explist do block end`
    fn for_stat(&mut self, line: u32) -> Parsed<StatKind> {
        self.next()?;
        let var = self.name()?;
        let kind = match self.tok.token {
            Token::Char(b'=') => self.num_for(var),
            Token::Char(b',') | Token::In => self.gen_for(var),
            _ => Err(self.error("'=' or 'in' expected")),
        }?;
        self.check_match(&Token::End, &Token::For, line)?;
        Ok(kind)
    }

    /// `= start, limit [, step] do block`, after `for var`.
    fn num_for(&mut self, var: String) -> Parsed<StatKind> {
        self.next()?;
        let start = Box::new(self.expr()?);
        self.check(&Token::Char(b','))?;
        let limit = Box::new(self.expr()?);
        let step = match self.test(&Token::Char(b','))? {
            true => Some(Box::new(self.expr()?)),
            false => None,
        };
        let body = self.for_body()?;
        Ok(StatKind::NumFor {
            var,
            start,
            limit,
            step,
            body,
        })
    }

    /// `{, name} in explist do block`, after `for name`.
    fn gen_for(&mut self, var: String) -> Parsed<StatKind> {
        let mut names = vec![var];
        while self.test(&Token::Char(b','))? {
            names.push(self.name()?);
        }
        self.check(&Token::In)?;
        let exprs = self.expr_list()?;
        let body = self.for_body()?;
        Ok(StatKind::GenFor { names, exprs, body })
    }

    fn for_body(&mut self) -> Parsed<Block> {
        self.check(&Token::Do)?;
        self.loop_body()
    }

    /// `function name {'.' name} [':' name] body`
    fn function_stat(&mut self, line: u32) -> Parsed<StatKind> {
        self.next()?;
        let mut path = vec![self.name()?];
        while self.test(&Token::Char(b'.'))? {
            path.push(self.name()?);
        }
        let method = match self.test(&Token::Char(b':'))? {
            true => Some(self.name()?),
            false => None,
        };
        let body = self.func_body(method.is_some(), line)?;
        Ok(StatKind::Function { path, method, body })
    }

    /// `local function ...` or `local name ...`
    fn local_stat(&mut self) -> Parsed<StatKind> {
        self.next()?;
        match self.test(&Token::Function)? {
            true => self.local_function(),
            false => self.local_names(),
        }
    }

    /// `local function name body`, after `function`.
    fn local_function(&mut self) -> Parsed<StatKind> {
        let name = self.name()?;
        let body = self.func_body(false, self.tok.line)?;
        Ok(StatKind::LocalFunction { name, body })
    }

    /// `local name attrib {, name attrib} [= explist]`, after `local`.
    fn local_names(&mut self) -> Parsed<StatKind> {
        let mut names = Vec::new();
        loop {
            let name = self.name()?;
            let attrib = self.attrib()?;
            names.push(LocalName { name, attrib });
            if !self.test(&Token::Char(b','))? {
                break;
            }
        }
        let values = match self.test(&Token::Char(b'='))? {
            true => self.expr_list()?,
            false => Vec::new(),
        };
        Ok(StatKind::Local { names, values })
    }

    /// `['<' name '>']`
    fn attrib(&mut self) -> Parsed<Attrib> {
        if !self.test(&Token::Char(b'<'))? {
            return Ok(Attrib::Plain);
        }
        let name = self.name()?;
        if !self.is(b'>') {
            return Err(self.error_expected(&Token::Char(b'>')));
        }
        if name == "close" {
            // Refused at its `>`, so the message has a `near` like others.
            return Err(self.error("'<close>' variables are not supported"));
        }
        self.next()?;
        match name.as_str() {
            "const" => Ok(Attrib::Const),
            _ => Err(self.semantic_error(format!("unknown attribute '{name}'"))),
        }
    }

    /// `return [explist] [';']`
    fn return_stat(&mut self) -> Parsed<StatKind> {
        self.next()?;
        let ends_block = matches!(
            self.tok.token,
            Token::Else
                | Token::Elseif
                | Token::End
                | Token::Eof
                | Token::Until
                | Token::Char(b';')
        );
        let values = match ends_block {
            true => Vec::new(),
            false => self.expr_list()?,
        };
        self.test(&Token::Char(b';'))?;
        Ok(StatKind::Return(values))
    }

    /// A call, or an assignment `target {, target} = explist`.
    fn expr_stat(&mut self) -> Parsed<StatKind> {
        let first = self.suffixed_exp()?;
        if !self.is(b'=') && !self.is(b',') {
            return match matches!(first.kind, ExprKind::Call { .. } | ExprKind::Method { .. }) {
                true => Ok(StatKind::Call(first)),
                false => Err(self.error("syntax error")),
            };
        }
        self.assignment(first)
    }

    /// `{, target} = explist` after the first target.
    fn assignment(&mut self, first: Expr) -> Parsed<StatKind> {
        self.check_target(&first)?;
        let mut targets = vec![first];
        while self.test(&Token::Char(b','))? {
            targets.push(self.suffixed_exp()?);
            // `lua5.4` recurses once per extra target.
            self.enter_level()?;
            self.check_target(&targets[targets.len() - 1])?;
        }
        self.check(&Token::Char(b'='))?;
        let values = self.expr_list()?;
        self.levels -= targets.len() as u32 - 1;
        Ok(StatKind::Assign { targets, values })
    }

    fn check_target(&self, target: &Expr) -> Parsed<()> {
        match target.kind {
            ExprKind::Name(_) | ExprKind::Index { .. } => Ok(()),
            _ => Err(self.error("syntax error")),
        }
    }

    /// `'(' [params] ')' block end`: a function's parameters and body;
    /// `line` is where `lua5.4` says the function is defined.
    fn func_body(&mut self, is_method: bool, line: u32) -> Parsed<FuncBody> {
        let outer = std::mem::replace(
            &mut self.func,
            Func {
                is_vararg: false,
                loops: 0,
                stray_break: None,
            },
        );
        let params = self.params(is_method)?;
        let body = self.block()?;
        let end_line = self.tok.line;
        self.check_match(&Token::End, &Token::Function, line)?;
        let is_vararg = self.func.is_vararg;
        self.close_func()?;
        self.func = outer;
        Ok(FuncBody {
            params,
            is_vararg,
            body,
            line,
            end_line,
        })
    }

    /// `'(' [name {, name} [, '...'] | '...'] ')'`; sets `is_vararg`.
    fn params(&mut self, is_method: bool) -> Parsed<Vec<String>> {
        self.check(&Token::Char(b'('))?;
        let mut params = match is_method {
            true => vec!["self".to_string()],
            false => Vec::new(),
        };
        if !self.is(b')') {
            loop {
                match self.tok.token {
                    Token::Name(_) => params.push(self.name()?),
                    Token::Dots => {
                        self.next()?;
                        self.func.is_vararg = true;
                    }
                    _ => return Err(self.error("<name> or '...' expected")),
                }
                if self.func.is_vararg || !self.test(&Token::Char(b','))? {
                    break;
                }
            }
        }
        self.check(&Token::Char(b')'))?;
        Ok(params)
    }

    /// At the end of a function: a `break` outside loops is an error now.
    fn close_func(&self) -> Parsed<()> {
        match self.func.stray_break {
            Some(line) => Err(self.semantic_error(format!("break outside loop at line {line}"))),
            None => Ok(()),
        }
    }
}

/// Expressions.
impl Parser<'_> {
    fn expr(&mut self) -> Parsed<Expr> {
        self.subexpr(0)
    }

    fn expr_list(&mut self) -> Parsed<Vec<Expr>> {
        let mut exprs = vec![self.expr()?];
        while self.test(&Token::Char(b','))? {
            exprs.push(self.expr()?);
        }
        Ok(exprs)
    }

    /// An expression whose binary operators all bind tighter than `limit`
    /// (precedence climbing: a left-associative chain loops here, only
    /// right operands recurse).
    fn subexpr(&mut self, limit: u8) -> Parsed<Expr> {
        self.enter_level()?;
        let mut lhs = match unary_op(&self.tok.token) {
            Some(op) => self.unary(op),
            None => self.simple_exp(),
        }?;
        while let Some(op) = binary_op(&self.tok.token) {
            let (left, right) = priority(op);
            if left <= limit {
                break;
            }
            lhs = self.binary(lhs, op, right)?;
        }
        self.leave_level();
        Ok(lhs)
    }

    /// `op operand`, at the operator.
    fn unary(&mut self, op: UnOp) -> Parsed<Expr> {
        let line = self.tok.line;
        self.next()?;
        let operand = Box::new(self.subexpr(UNARY_PRIORITY)?);
        Ok(Expr::new(line, ExprKind::Un { op, operand }))
    }

    /// `lhs op rhs`, at the operator; `rhs` binds tighter than `right`.
    fn binary(&mut self, lhs: Expr, op: BinOp, right: u8) -> Parsed<Expr> {
        let line = self.tok.line;
        self.next()?;
        let rhs = Box::new(self.subexpr(right)?);
        Ok(Expr::new(
            line,
            ExprKind::Bin {
                op,
                lhs: Box::new(lhs),
                rhs,
            },
        ))
    }

    /// A literal, `...`, a table, a function, or a suffixed expression.
    fn simple_exp(&mut self) -> Parsed<Expr> {
        let line = self.tok.line;
        let kind = match &mut self.tok.token {
            Token::Nil => ExprKind::Nil,
            Token::True => ExprKind::True,
            Token::False => ExprKind::False,
            Token::Int(i) => ExprKind::Int(*i),
            Token::Float(f) => ExprKind::Float(*f),
            Token::Str(s) => ExprKind::Str(std::mem::take(s)),
            Token::Dots if !self.func.is_vararg => {
                return Err(self.error("cannot use '...' outside a vararg function"));
            }
            Token::Dots => ExprKind::Vararg,
            Token::Char(b'{') => return self.table(),
            Token::Function => return self.function_exp(),
            _ => return self.suffixed_exp(),
        };
        self.next()?;
        Ok(Expr::new(line, kind))
    }

    /// `function body`
    fn function_exp(&mut self) -> Parsed<Expr> {
        let line = self.tok.line;
        self.next()?;
        let body = self.func_body(false, self.tok.line)?;
        Ok(Expr::new(line, ExprKind::Function(Box::new(body))))
    }

    /// A name or parenthesized expression, then any number of `.name`,
    /// `[key]`, `:name args` and `args`.
    fn suffixed_exp(&mut self) -> Parsed<Expr> {
        let line = self.tok.line;
        let mut expr = self.primary_exp()?;
        loop {
            expr = match self.tok.token {
                Token::Char(b'.') => self.field_index(expr),
                Token::Char(b'[') => self.key_index(expr),
                Token::Char(b':') => self.method_call(expr, line),
                Token::Char(b'(' | b'{') | Token::Str(_) => self.call(expr, line),
                _ => return Ok(expr),
            }?;
        }
    }

    /// `obj.name`, at the `.`.
    fn field_index(&mut self, obj: Expr) -> Parsed<Expr> {
        self.next()?;
        let line = self.tok.line;
        let key = Box::new(Expr::new(line, ExprKind::Str(self.name()?.into_bytes())));
        Ok(Expr::new(
            line,
            ExprKind::Index {
                obj: Box::new(obj),
                key,
            },
        ))
    }

    /// `obj[key]`, at the `[`.
    fn key_index(&mut self, obj: Expr) -> Parsed<Expr> {
        self.next()?;
        let key = Box::new(self.expr()?);
        let line = self.tok.line;
        self.check(&Token::Char(b']'))?;
        Ok(Expr::new(
            line,
            ExprKind::Index {
                obj: Box::new(obj),
                key,
            },
        ))
    }

    /// `obj:name args`, at the `:`; `line` is the call's.
    fn method_call(&mut self, obj: Expr, line: u32) -> Parsed<Expr> {
        self.next()?;
        let name = self.name()?;
        let args = self.call_args(line)?;
        Ok(Expr::new(
            line,
            ExprKind::Method {
                obj: Box::new(obj),
                name,
                args,
            },
        ))
    }

    /// `func args`, at the arguments; `line` is the call's.
    fn call(&mut self, func: Expr, line: u32) -> Parsed<Expr> {
        let args = self.call_args(line)?;
        Ok(Expr::new(
            line,
            ExprKind::Call {
                func: Box::new(func),
                args,
            },
        ))
    }

    /// A name or `(expr)`.
    fn primary_exp(&mut self) -> Parsed<Expr> {
        let line = self.tok.line;
        match self.tok.token {
            Token::Name(_) => Ok(Expr::new(line, ExprKind::Name(self.name()?))),
            Token::Char(b'(') => {
                self.next()?;
                let inner = self.expr()?;
                self.check_match(&Token::Char(b')'), &Token::Char(b'('), line)?;
                Ok(Expr::new(line, ExprKind::Paren(Box::new(inner))))
            }
            _ => Err(self.error("unexpected symbol")),
        }
    }

    /// `'(' [explist] ')'`, a table or a string; `line` is the call's (an
    /// unclosed `(` is reported as opened there too, as `lua5.4` does).
    fn call_args(&mut self, line: u32) -> Parsed<Vec<Expr>> {
        match &mut self.tok.token {
            Token::Str(s) => {
                let arg = Expr::new(self.tok.line, ExprKind::Str(std::mem::take(s)));
                self.next()?;
                Ok(vec![arg])
            }
            Token::Char(b'{') => Ok(vec![self.table()?]),
            Token::Char(b'(') => self.paren_args(line),
            _ => Err(self.error("function arguments expected")),
        }
    }

    /// `'(' [explist] ')'`
    fn paren_args(&mut self, line: u32) -> Parsed<Vec<Expr>> {
        self.next()?;
        let args = match self.is(b')') {
            true => Vec::new(),
            false => self.expr_list()?,
        };
        self.check_match(&Token::Char(b')'), &Token::Char(b'('), line)?;
        Ok(args)
    }

    /// `'{' [field {sep field} [sep]] '}'` where `sep` is `,` or `;`.
    fn table(&mut self) -> Parsed<Expr> {
        let line = self.tok.line;
        self.next()?;
        let mut fields = Vec::new();
        while !self.is(b'}') {
            fields.push(self.field()?);
            if !self.test(&Token::Char(b','))? && !self.test(&Token::Char(b';'))? {
                break;
            }
        }
        self.check_match(&Token::Char(b'}'), &Token::Char(b'{'), line)?;
        Ok(Expr::new(line, ExprKind::Table(fields)))
    }

    /// `name = expr`, `[expr] = expr` or `expr`.
    fn field(&mut self) -> Parsed<Field> {
        let named = matches!(self.tok.token, Token::Name(_)) && *self.peek()? == Token::Char(b'=');
        let key = match self.tok.token {
            Token::Name(_) if named => {
                let line = self.tok.line;
                Expr::new(line, ExprKind::Str(self.name()?.into_bytes()))
            }
            Token::Char(b'[') => self.bracket_key()?,
            _ => return self.expr().map(Field::Pos),
        };
        self.keyed_value(key)
    }

    /// `[expr]` of a field.
    fn bracket_key(&mut self) -> Parsed<Expr> {
        self.next()?;
        let key = self.expr()?;
        self.check(&Token::Char(b']'))?;
        Ok(key)
    }

    /// `= expr` of a keyed field.
    fn keyed_value(&mut self, key: Expr) -> Parsed<Field> {
        self.check(&Token::Char(b'='))?;
        let value = self.expr()?;
        Ok(Field::Keyed { key, value })
    }
}

fn unary_op(token: &Token) -> Option<UnOp> {
    match token {
        Token::Not => Some(UnOp::Not),
        Token::Char(b'-') => Some(UnOp::Neg),
        Token::Char(b'~') => Some(UnOp::BNot),
        Token::Char(b'#') => Some(UnOp::Len),
        _ => None,
    }
}

fn binary_op(token: &Token) -> Option<BinOp> {
    Some(match token {
        Token::Or => BinOp::Or,
        Token::And => BinOp::And,
        Token::Char(b'<') => BinOp::Lt,
        Token::Char(b'>') => BinOp::Gt,
        Token::Le => BinOp::Le,
        Token::Ge => BinOp::Ge,
        Token::Ne => BinOp::Ne,
        Token::Eq => BinOp::Eq,
        Token::Char(b'|') => BinOp::BOr,
        Token::Char(b'~') => BinOp::BXor,
        Token::Char(b'&') => BinOp::BAnd,
        Token::Shl => BinOp::Shl,
        Token::Shr => BinOp::Shr,
        Token::Concat => BinOp::Concat,
        Token::Char(b'+') => BinOp::Add,
        Token::Char(b'-') => BinOp::Sub,
        Token::Char(b'*') => BinOp::Mul,
        Token::Char(b'/') => BinOp::Div,
        Token::IDiv => BinOp::IDiv,
        Token::Char(b'%') => BinOp::Mod,
        Token::Char(b'^') => BinOp::Pow,
        _ => return None,
    })
}

/// Left and right priority: an operator takes the operand on its left when
/// its left priority exceeds the limit; right-associative operators (`..`,
/// `^`) have a lower right priority.
fn priority(op: BinOp) -> (u8, u8) {
    match op {
        BinOp::Or => (1, 1),
        BinOp::And => (2, 2),
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Ne | BinOp::Eq => (3, 3),
        BinOp::BOr => (4, 4),
        BinOp::BXor => (5, 5),
        BinOp::BAnd => (6, 6),
        BinOp::Shl | BinOp::Shr => (7, 7),
        BinOp::Concat => (9, 8),
        BinOp::Add | BinOp::Sub => (10, 10),
        BinOp::Mul | BinOp::Div | BinOp::IDiv | BinOp::Mod => (11, 11),
        BinOp::Pow => (14, 13),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compact S-expression of a block: `[stat stat ...]`.
    fn block(b: &Block) -> String {
        let stats: Vec<String> = b.stats.iter().map(stat).collect();
        format!("[{}]", stats.join(" "))
    }

    fn list(exprs: &[Expr]) -> String {
        exprs.iter().map(expr).collect::<Vec<_>>().join(" ")
    }

    fn stat(s: &Stat) -> String {
        match &s.kind {
            StatKind::Local { names, values } => {
                let names: Vec<String> = names
                    .iter()
                    .map(|n| match n.attrib {
                        Attrib::Plain => n.name.clone(),
                        Attrib::Const => format!("{}<const>", n.name),
                    })
                    .collect();
                format!("(local {} = {})", names.join(" "), list(values))
            }
            StatKind::Assign { targets, values } => {
                format!("(set {} = {})", list(targets), list(values))
            }
            StatKind::Call(call) => expr(call),
            StatKind::Do(body) => format!("(do {})", block(body)),
            StatKind::While { cond, body } => format!("(while {} {})", expr(cond), block(body)),
            StatKind::Repeat { body, cond } => format!("(repeat {} {})", block(body), expr(cond)),
            StatKind::If { arms, otherwise } => {
                let mut out = String::from("(if");
                for (cond, body) in arms {
                    out += &format!(" {} {}", expr(cond), block(body));
                }
                if let Some(body) = otherwise {
                    out += &format!(" else {}", block(body));
                }
                out + ")"
            }
            StatKind::NumFor {
                var,
                start,
                limit,
                step,
                body,
            } => {
                let step = step
                    .as_ref()
                    .map(|e| format!(" {}", expr(e)))
                    .unwrap_or_default();
                format!(
                    "(for {var} {} {}{step} {})",
                    expr(start),
                    expr(limit),
                    block(body)
                )
            }
            StatKind::GenFor { names, exprs, body } => {
                format!(
                    "(forin {} = {} {})",
                    names.join(" "),
                    list(exprs),
                    block(body)
                )
            }
            StatKind::Function { path, method, body } => {
                let method = method.as_ref().map(|m| format!(":{m}")).unwrap_or_default();
                format!("(function {}{method} {})", path.join("."), func(body))
            }
            StatKind::LocalFunction { name, body } => {
                format!("(local function {name} {})", func(body))
            }
            StatKind::Return(values) => format!("(return {})", list(values)).replace(" )", ")"),
            StatKind::Break => "break".into(),
        }
    }

    fn func(f: &FuncBody) -> String {
        let mut params = f.params.clone();
        if f.is_vararg {
            params.push("...".into());
        }
        format!("({}) {}", params.join(" "), block(&f.body))
    }

    fn expr(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Nil => "nil".into(),
            ExprKind::True => "true".into(),
            ExprKind::False => "false".into(),
            ExprKind::Int(i) => i.to_string(),
            ExprKind::Float(f) => format!("{f:?}"),
            ExprKind::Str(s) => format!("\"{}\"", s.escape_ascii()),
            ExprKind::Vararg => "...".into(),
            ExprKind::Function(body) => format!("(fn {})", func(body)),
            ExprKind::Table(fields) => {
                let fields: Vec<String> = fields
                    .iter()
                    .map(|f| match f {
                        Field::Pos(value) => expr(value),
                        Field::Keyed { key, value } => format!("[{}]={}", expr(key), expr(value)),
                    })
                    .collect();
                format!("{{{}}}", fields.join(" "))
            }
            ExprKind::Bin { op, lhs, rhs } => {
                format!("({} {} {})", op.symbol(), expr(lhs), expr(rhs))
            }
            ExprKind::Un { op, operand } => format!("({} {})", op.symbol(), expr(operand)),
            ExprKind::Name(name) => name.clone(),
            ExprKind::Index { obj, key } => format!("(. {} {})", expr(obj), expr(key)),
            ExprKind::Call { func, args } => {
                format!("(call {})", [expr(func), list(args)].join(" ").trim_end())
            }
            ExprKind::Method { obj, name, args } => {
                format!("(: {} {name} {})", expr(obj), list(args)).replace(" )", ")")
            }
            ExprKind::Paren(inner) => format!("(paren {})", expr(inner)),
        }
    }

    /// The chunk's statements as S-expressions, or the error.
    fn show(src: &str) -> String {
        match parse(src.as_bytes(), "t", false) {
            Ok(chunk) => chunk
                .body
                .stats
                .iter()
                .map(stat)
                .collect::<Vec<_>>()
                .join(" "),
            Err(e) => format!("ERR {e}"),
        }
    }

    /// The expression `src` as an S-expression.
    fn show_expr(src: &str) -> String {
        let shown = show(&format!("return {src}"));
        shown["(return ".len()..shown.len() - 1].to_string()
    }

    #[test]
    fn statements() {
        let cases = [
            ("local a", "(local a = )"),
            ("local a <const>, b = 1, 2, 3", "(local a<const> b = 1 2 3)"),
            ("a, b.c, d[1] = 1, 2", "(set a (. b \"c\") (. d 1) = 1 2)"),
            (
                "f() g(1, 2) h'x' i\"y\" j[[z]] k{1}",
                "(call f) (call g 1 2) (call h \"x\") (call i \"y\") (call j \"z\") (call k {1})",
            ),
            (
                "o:m() o:m(1, 2) o:m'x' o:m{} a.b:c(d)",
                "(: o m) (: o m 1 2) (: o m \"x\") (: o m {}) (: (. a \"b\") c d)",
            ),
            ("f()()(1)", "(call (call (call f)) 1)"),
            ("do end do local x end", "(do []) (do [(local x = )])"),
            ("while x do break end", "(while x [break])"),
            ("repeat local y until y", "(repeat [(local y = )] y)"),
            (
                "if a then elseif b then f() else g() end",
                "(if a [] b [(call f)] else [(call g)])",
            ),
            ("if a then x = 1 end", "(if a [(set x = 1)])"),
            (
                "for i = 1, 10 do end for i = 1, 10, 2 do break end",
                "(for i 1 10 []) (for i 1 10 2 [break])",
            ),
            (
                "for k, v in pairs(t) do end",
                "(forin k v = (call pairs t) [])",
            ),
            ("for k in a, b, c do end", "(forin k = a b c [])"),
            ("function f(a, b) end", "(function f (a b) [])"),
            (
                "function a.b.c:m(x, ...) return ... end",
                "(function a.b.c:m (self x ...) [(return ...)])",
            ),
            ("function f(...) end", "(function f (...) [])"),
            (
                "local function f() return f end",
                "(local function f () [(return f)])",
            ),
            ("return", "(return)"),
            ("return;", "(return)"),
            ("return 1, 2;", "(return 1 2)"),
            (";;x = 1;;", "(set x = 1)"),
            ("do return end", "(do [(return)])"),
            ("x = ...", "(set x = ...)"),
            (
                "x = function(a, ...) return ... end",
                "(set x = (fn (a ...) [(return ...)]))",
            ),
            ("x = (f())", "(set x = (paren (call f)))"),
            ("(f)()", "(call (paren f))"),
            ("x = {}", "(set x = {})"),
            ("x = {1, 2; 3,}", "(set x = {1 2 3})"),
            (
                "x = {a = 1, [2] = 3; 'p', f()}",
                "(set x = {[\"a\"]=1 [2]=3 \"p\" (call f)})",
            ),
            ("x = {a}", "(set x = {a})"),
            ("x = {a == 1}", "(set x = {(== a 1)})"),
            ("x = a.b[c].d", "(set x = (. (. (. a \"b\") c) \"d\"))"),
            (
                "x = nil, true, false, 'a\\0b'",
                "(set x = nil true false \"a\\x00b\")",
            ),
        ];
        for (src, want) in cases {
            assert_eq!(show(src), want, "{src}");
        }
    }

    #[test]
    fn precedence_and_associativity() {
        let cases = [
            ("1 + 2 * 3", "(+ 1 (* 2 3))"),
            ("1 * 2 + 3", "(+ (* 1 2) 3)"),
            ("1 - 2 - 3", "(- (- 1 2) 3)"),
            ("a .. b .. c", "(.. a (.. b c))"),
            ("2 ^ 3 ^ 2", "(^ 2 (^ 3 2))"),
            ("-x ^ 2", "(- (^ x 2))"),
            ("2 ^ -3", "(^ 2 (- 3))"),
            ("-2 ^ -3 ^ 2", "(- (^ 2 (- (^ 3 2))))"),
            ("not a == b", "(== (not a) b)"),
            ("not not a", "(not (not a))"),
            ("#t + 1", "(+ (# t) 1)"),
            ("~a & b", "(& (~ a) b)"),
            ("a or b and c", "(or a (and b c))"),
            ("a and b or c and d", "(or (and a b) (and c d))"),
            ("a < b == c", "(== (< a b) c)"),
            (
                "a | b ~ c & d << e .. f + g * h",
                "(| a (~ b (& c (<< d (.. e (+ f (* g h)))))))",
            ),
            ("a << b >> c", "(>> (<< a b) c)"),
            ("1 + 2 .. 3 + 4", "(.. (+ 1 2) (+ 3 4))"),
            ("a // b % c / d", "(/ (% (// a b) c) d)"),
            ("a ~= b", "(~= a b)"),
            ("a >= b", "(>= a b)"),
            ("a <= b", "(<= a b)"),
            ("a > b", "(> a b)"),
            (
                "a == b or c ~= d and e < f",
                "(or (== a b) (and (~= c d) (< e f)))",
            ),
            ("- - x", "(- (- x))"),
            ("a.b ^ c:d()", "(^ (. a \"b\") (: c d))"),
        ];
        for (src, want) in cases {
            assert_eq!(show_expr(src), want, "{src}");
        }
    }

    fn single_value(src: &[u8]) -> ExprKind {
        let chunk = parse(&[b"return ", src].concat(), "t", false).unwrap();
        match &chunk.body.stats[0].kind {
            StatKind::Return(values) => values[0].kind.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn numerals() {
        let ints = [
            ("0", 0),
            ("08", 8),
            ("0x10", 16),
            ("0XfF", 255),
            ("0x7fffffffffffffff", i64::MAX),
            ("0xffffffffffffffff", -1),
            ("0x10000000000000001", 1),
            ("9223372036854775807", i64::MAX),
        ];
        for (src, want) in ints {
            assert_eq!(single_value(src.as_bytes()), ExprKind::Int(want), "{src}");
        }
        let floats = [
            ("9223372036854775808", 9223372036854775808.0),
            ("1e308", 1e308),
            ("1e309", f64::INFINITY),
            ("1.5", 1.5),
            ("5.", 5.0),
            (".5", 0.5),
            (".5e1", 5.0),
            ("3E-2", 0.03),
            ("1e+2", 100.0),
            ("0x1.8p3", 12.0),
            ("0x.1", 0.0625),
            ("0x1.", 1.0),
            ("0xA.8p1", 21.0),
            ("0xep1", 28.0),
            ("0x1P-2", 0.25),
            ("0x1p-1074", 5e-324),
            ("0x1p-1075", 0.0),
            ("0x3p-1075", 1e-323),
            ("0x1.fffffffffffff8p1023", f64::INFINITY),
            ("0x1.fffffffffffff7p1023", f64::MAX),
            ("0x1.00000000000008p0", 1.0),
            ("0x1.00000000000018p0", 1.0000000000000004),
            (
                "0x123456789abcdef123p0",
                f64::from_bits(0x4432_3456_789a_bcdf),
            ),
        ];
        for (src, want) in floats {
            assert_eq!(single_value(src.as_bytes()), ExprKind::Float(want), "{src}");
        }
        // `-` is an operator: the literal stays positive.
        assert_eq!(
            show_expr("-9223372036854775808"),
            "(- 9.223372036854776e18)"
        );
    }

    #[test]
    fn strings() {
        let cases: [(&[u8], &[u8]); 12] = [
            (br#""\a\b\f\n\r\t\v\\\"\'""#, b"\x07\x08\x0c\n\r\t\x0b\\\"'"),
            (br"'\x41\x7a\xFF'", b"Az\xff"),
            (br"'\65\0\255\0015'", b"A\0\xff\x015"),
            (
                br"'\u{41}\u{7FF}\u{800}\u{10FFFF}'",
                "A\u{7ff}\u{800}\u{10ffff}".as_bytes(),
            ),
            (
                br"'\u{7FFFFFFF}\u{0000000041}'",
                b"\xfd\xbf\xbf\xbf\xbf\xbfA",
            ),
            (b"'a\\z  \n\t  b'", b"ab"),
            (b"'a\\\nb\\\r\nc'", b"a\nb\nc"),
            (b"[[\nabc]]", b"abc"),
            (b"[[\r\nabc\r\n]]", b"abc\n"),
            (b"[==[a]]b]=]c]==]", b"a]]b]=]c"),
            (b"[[\n\nx\n\ry]]", b"\nx\ny"),
            (b"'\x80\xff'", b"\x80\xff"),
        ];
        for (src, want) in cases {
            assert_eq!(
                single_value(src),
                ExprKind::Str(want.to_vec()),
                "{}",
                src.escape_ascii()
            );
        }
        // Comments, long or not, are skipped; `--[=x` is a short comment.
        assert_eq!(
            show("--[==[ a\n]] ]==] x = 1 --[=x\n--\ny = 2 -- z"),
            "(set x = 1) (set y = 2)"
        );
    }

    fn lines(src: &str) -> Chunk {
        parse(src.as_bytes(), "t", false).unwrap()
    }

    #[test]
    fn statement_and_function_lines() {
        let chunk =
            lines("local x\n\nx = 1 +\n2\nfunction f()\n\nend\nlocal g = function\n(\n)\nend");
        let stats = &chunk.body.stats;
        assert_eq!(
            stats
                .iter()
                .map(|s| (s.line, s.end_line))
                .collect::<Vec<_>>(),
            [(1, 1), (3, 4), (5, 7), (8, 11)]
        );
        let StatKind::Function { body, .. } = &stats[2].kind else {
            panic!()
        };
        assert_eq!((body.line, body.end_line), (5, 7));
        let StatKind::Local { values, .. } = &stats[3].kind else {
            panic!()
        };
        let ExprKind::Function(body) = &values[0].kind else {
            panic!()
        };
        assert_eq!((values[0].line, body.line, body.end_line), (8, 9, 11));
        let chunk = lines("local function\nf\n(\n)\nend");
        let StatKind::LocalFunction { body, .. } = &chunk.body.stats[0].kind else {
            panic!()
        };
        assert_eq!(body.line, 3); // the `(`, as lua5.4's linedefined
    }

    #[test]
    fn expression_lines() {
        // A call's line is where its prefix starts; an operator's is its own.
        let chunk = lines("t\n.f\n(\n1\n)");
        let StatKind::Call(call) = &chunk.body.stats[0].kind else {
            panic!()
        };
        let ExprKind::Call { func, args } = &call.kind else {
            panic!()
        };
        assert_eq!((call.line, func.line, args[0].line), (1, 2, 4));
        let chunk = lines("x = a\n+\nb\n*\nc");
        let StatKind::Assign { values, .. } = &chunk.body.stats[0].kind else {
            panic!()
        };
        let ExprKind::Bin { rhs, .. } = &values[0].kind else {
            panic!()
        };
        assert_eq!((values[0].line, rhs.line), (2, 4));
        let chunk = lines("x = t\n[\n1\n]\n.y");
        let StatKind::Assign { values, .. } = &chunk.body.stats[0].kind else {
            panic!()
        };
        let ExprKind::Index { obj, .. } = &values[0].kind else {
            panic!()
        };
        assert_eq!((values[0].line, obj.line), (5, 4));
        let chunk = lines("x = -\n#\ny");
        let StatKind::Assign { values, .. } = &chunk.body.stats[0].kind else {
            panic!()
        };
        assert_eq!(values[0].line, 1);
        // Line breaks: \n, \r, \r\n and \n\r each count once.
        let chunk = lines("a()\r\nb()\n\rc()\rd()\n\ne()");
        let found: Vec<u32> = chunk.body.stats.iter().map(|s| s.line).collect();
        assert_eq!(found, [1, 2, 3, 4, 6]);
        // A multi-line long string belongs to the line it ends on.
        let chunk = lines("f[[\n\n]]");
        assert_eq!(chunk.body.stats[0].line, 1);
        let StatKind::Call(call) = &chunk.body.stats[0].kind else {
            panic!()
        };
        let ExprKind::Call { args, .. } = &call.kind else {
            panic!()
        };
        assert_eq!(args[0].line, 3);
    }

    #[test]
    fn shebang_only_for_scripts() {
        assert_eq!(
            parse(b"#!/usr/bin/lua\nx = 1", "t", true)
                .unwrap()
                .body
                .stats
                .len(),
            1
        );
        assert_eq!(parse(b"#", "t", true).unwrap().body.stats.len(), 0);
        let err = parse(b"#!/usr/bin/lua\nx = 1", "t", false).unwrap_err();
        assert_eq!(err.to_string(), "t:1: unexpected symbol near '#'");
        let err = parse(b"\xEF\xBB\xBFx = ", "t", false).unwrap_err();
        assert_eq!(err.to_string(), "t:1: unexpected symbol near '<\\239>'");
        assert!(parse(b"\xEF\xBB\xBFx = 1", "t", true).is_ok());
    }

    /// Malformed programs and the messages `lua5.4` (PUC-Rio 5.4.4) gives for
    /// them, obtained by running `luac5.4 -p t.lua` on each.
    const MALFORMED: &[(&[u8], &str)] = &[
        (b"x = = 1", "t.lua:1: unexpected symbol near '='"),
        (b"x", "t.lua:1: syntax error near <eof>"),
        (b"x, y", "t.lua:1: '=' expected near <eof>"),
        (b"f(", "t.lua:1: unexpected symbol near <eof>"),
        (b"function f() ", "t.lua:1: 'end' expected near <eof>"),
        (
            b"function f()\nx = 1\n",
            "t.lua:3: 'end' expected (to close 'function' at line 1) near <eof>",
        ),
        (b"(x", "t.lua:1: ')' expected near <eof>"),
        (b"f() = 1", "t.lua:1: syntax error near '='"),
        (b"x = 1 @", "t.lua:1: unexpected symbol near '@'"),
        (b"x = 1 \x80", "t.lua:1: unexpected symbol near '<\\128>'"),
        (b"x = 1 \x01", "t.lua:1: unexpected symbol near '<\\1>'"),
        (b"x = 1 \x00", "t.lua:1: unexpected symbol"),
        (b"local 5", "t.lua:1: <name> expected near '5'"),
        (b"end", "t.lua:1: <eof> expected near 'end'"),
        (b"return 1 x = 2", "t.lua:1: <eof> expected near 'x'"),
        (
            b"function f() return ... end",
            "t.lua:1: cannot use '...' outside a vararg function near '...'",
        ),
        (b"x = \"abc\n", "t.lua:1: unfinished string near '\"abc'"),
        (b"x = \"abc", "t.lua:1: unfinished string near <eof>"),
        (
            b"x = 'a\\tb\\q'",
            "t.lua:1: invalid escape sequence near ''a\tb\\q'",
        ),
        (
            b"x = [[abc",
            "t.lua:1: unfinished long string (starting at line 1) near <eof>",
        ),
        (
            b"--[[ abc\n",
            "t.lua:2: unfinished long comment (starting at line 1) near <eof>",
        ),
        (
            b"x = [=abc",
            "t.lua:1: invalid long string delimiter near '[='",
        ),
        (b"x = 3x", "t.lua:1: malformed number near '3x'"),
        (b"x = 3..2", "t.lua:1: malformed number near '3..2'"),
        (b"x = 1e", "t.lua:1: malformed number near '1e'"),
        (b"x = 0x", "t.lua:1: malformed number near '0x'"),
        (b"x = 1e+", "t.lua:1: malformed number near '1e+'"),
        (b"x = .5x", "t.lua:1: malformed number near '.5x'"),
        (b"x = 0x1p", "t.lua:1: malformed number near '0x1p'"),
        (b"x = 3.. 2", "t.lua:1: malformed number near '3..'"),
        (b"x = .0x1p+5", "t.lua:1: malformed number near '.0x1p+5'"),
        (
            b"x = \"\\300\"",
            "t.lua:1: decimal escape too large near '\"\\300\"'",
        ),
        (
            b"x = \"\\xg\"",
            "t.lua:1: hexadecimal digit expected near '\"\\xg'",
        ),
        (
            b"x = \"\\x1\"",
            "t.lua:1: hexadecimal digit expected near '\"\\x1\"'",
        ),
        (
            b"x = \"\\u{}\"",
            "t.lua:1: hexadecimal digit expected near '\"\\u{}'",
        ),
        (b"x = \"\\u{12\"", "t.lua:1: missing '}' near '\"\\u{12\"'"),
        (b"x = \"\\u12\"", "t.lua:1: missing '{' near '\"\\u1'"),
        (
            b"x = \"\\u{80000000}\"",
            "t.lua:1: UTF-8 value too large near '\"\\u{80000000'",
        ),
        (
            b"x = \"a\\z  \n  b\\q\"",
            "t.lua:2: invalid escape sequence near '\"ab\\q'",
        ),
        (b"x = \"\\", "t.lua:1: unfinished string near <eof>"),
        (
            b"x = \"\\0\\q\"",
            "t.lua:1: invalid escape sequence near '\"'",
        ),
        (
            b"x = 1 \"a\\tb\"",
            "t.lua:1: unexpected symbol near '\"a\tb\"'",
        ),
        (
            b"x = 1 [==[\nab\r\nc]==]",
            "t.lua:3: unexpected symbol near '[==[ab\nc]==]'",
        ),
        (b"x = 1 'q'", "t.lua:1: unexpected symbol near ''q''"),
        (
            b"f\n(\n1\n2",
            "t.lua:4: ')' expected (to close '(' at line 1) near '2'",
        ),
        (
            b"x = (\n1\n2",
            "t.lua:3: ')' expected (to close '(' at line 1) near '2'",
        ),
        (
            b"x = {\n1\n2",
            "t.lua:3: '}' expected (to close '{' at line 1) near '2'",
        ),
        (
            b"x = {[1]\n=2",
            "t.lua:2: '}' expected (to close '{' at line 1) near <eof>",
        ),
        (b"x = {[1 = 2}", "t.lua:1: ']' expected near '='"),
        (b"x = {a 1}", "t.lua:1: '}' expected near '1'"),
        (b"function f(...,a) end", "t.lua:1: ')' expected near ','"),
        (
            b"function f(a,) end",
            "t.lua:1: <name> or '...' expected near ')'",
        ),
        (b"function f.5() end", "t.lua:1: '(' expected near '.5'"),
        (b"function a:b.c() end", "t.lua:1: '(' expected near '.'"),
        (b"while x", "t.lua:1: 'do' expected near <eof>"),
        (b"if x", "t.lua:1: 'then' expected near <eof>"),
        (
            b"if x then else elseif",
            "t.lua:1: 'end' expected near 'elseif'",
        ),
        (
            b"while x do until y",
            "t.lua:1: 'end' expected near 'until'",
        ),
        (b"repeat x = 1", "t.lua:1: 'until' expected near <eof>"),
        (
            b"repeat\nx = 1\nend",
            "t.lua:3: 'until' expected (to close 'repeat' at line 1) near 'end'",
        ),
        (b"for i 1", "t.lua:1: '=' or 'in' expected near '1'"),
        (b"for i = 1 do end", "t.lua:1: ',' expected near 'do'"),
        (b"for i = 1, 2 x", "t.lua:1: 'do' expected near 'x'"),
        (b"for a, b = 1, 2 do end", "t.lua:1: 'in' expected near '='"),
        (b"for a, 5 in x do end", "t.lua:1: <name> expected near '5'"),
        (b"local function 5", "t.lua:1: <name> expected near '5'"),
        (b"local x <", "t.lua:1: <name> expected near <eof>"),
        (b"local x <const", "t.lua:1: '>' expected near <eof>"),
        (b"local x <xyz> = 1", "t.lua:1: unknown attribute 'xyz'"),
        (
            b"local x\n<\nxyz\n>\n=\n1",
            "t.lua:5: unknown attribute 'xyz'",
        ),
        (
            b"x = a:b",
            "t.lua:1: function arguments expected near <eof>",
        ),
        (b"x = a:5()", "t.lua:1: <name> expected near '5'"),
        (
            b"a.b:c = 1",
            "t.lua:1: function arguments expected near '='",
        ),
        (b"a, b.c, d() = 1", "t.lua:1: syntax error near '='"),
        (b"(a) = 1", "t.lua:1: syntax error near '='"),
        (b"a.b = 1, ", "t.lua:1: unexpected symbol near <eof>"),
        (b"return return", "t.lua:1: unexpected symbol near 'return'"),
        (b"return 1;;", "t.lua:1: <eof> expected near ';'"),
        (b"x = #", "t.lua:1: unexpected symbol near <eof>"),
        (b"x = 1 +", "t.lua:1: unexpected symbol near <eof>"),
        (b"x = }", "t.lua:1: unexpected symbol near '}'"),
        (b"x = not", "t.lua:1: unexpected symbol near <eof>"),
        (b"x = a.", "t.lua:1: <name> expected near <eof>"),
        (b"x = a[1", "t.lua:1: ']' expected near <eof>"),
        (b"x = a..", "t.lua:1: unexpected symbol near <eof>"),
        (b"x = 1 2", "t.lua:1: unexpected symbol near '2'"),
        (b"x = ~", "t.lua:1: unexpected symbol near <eof>"),
        (b"x = 1 ~= ", "t.lua:1: unexpected symbol near <eof>"),
        (b"break", "t.lua:1: break outside loop at line 1"),
        (
            b"function f()\n  break\nend\nx = 1\n",
            "t.lua:4: break outside loop at line 2",
        ),
        (
            b"do\nbreak\nend\n\nx = 1\n",
            "t.lua:6: break outside loop at line 2",
        ),
        (
            b"if x then break end",
            "t.lua:1: break outside loop at line 1",
        ),
        (
            b"x = function() break end",
            "t.lua:1: break outside loop at line 1",
        ),
        (
            b"local t = {...}\nfunction g() return ... end",
            "t.lua:2: cannot use '...' outside a vararg function near '...'",
        ),
        (
            b"x = [==[ ]=] ]]",
            "t.lua:1: unfinished long string (starting at line 1) near <eof>",
        ),
        (
            b"x = \"\\u{7FFFFFFF}\" y",
            "t.lua:1: syntax error near <eof>",
        ),
        (b"x = 'abc\\\n", "t.lua:2: unfinished string near <eof>"),
        // lua5.4 prints the byte \xff itself; a Rust String holds U+FFFD.
        (
            b"x = '\xff\\q'",
            "t.lua:1: invalid escape sequence near ''\u{fffd}\\q'",
        ),
        (b"::", "t.lua:1: <name> expected near <eof>"),
        (b"goto", "t.lua:1: <name> expected near <eof>"),
        (
            b"#!/bin/lua\nx = = 1",
            "t.lua:2: unexpected symbol near '='",
        ),
        (
            b"\xef\xbb\xbf#!\nx(",
            "t.lua:2: unexpected symbol near <eof>",
        ),
        (
            b"x = 1\r\n\r\ny = = 2",
            "t.lua:3: unexpected symbol near '='",
        ),
        (
            b"x = 1\n\r\n\ry = = 2",
            "t.lua:3: unexpected symbol near '='",
        ),
        (b"x = 1\r\ry = = 2", "t.lua:3: unexpected symbol near '='"),
        (b"x = [[\n\n]] y", "t.lua:3: syntax error near <eof>"),
        (b"f{}.x = 1 x", "t.lua:1: syntax error near <eof>"),
        (b"a.b.c:d'x' = 1", "t.lua:1: syntax error near '='"),
        (
            b"for i = 1, 2 do end end",
            "t.lua:1: <eof> expected near 'end'",
        ),
        (
            b"if x then elseif y then else end end",
            "t.lua:1: <eof> expected near 'end'",
        ),
        (b"t = {;}", "t.lua:1: unexpected symbol near ';'"),
        (b"t = {,}", "t.lua:1: unexpected symbol near ','"),
        (b"t = {1,,2}", "t.lua:1: unexpected symbol near ','"),
        (
            b"local function f(a, ...) return ... end return ...,",
            "t.lua:1: unexpected symbol near <eof>",
        ),
    ];

    #[test]
    fn malformed_programs_match_lua() {
        for (src, want) in MALFORMED {
            let got = parse(src, "t.lua", true)
                .map(drop)
                .map_err(|e| e.to_string());
            assert_eq!(got, Err(want.to_string()), "{}", src.escape_ascii());
        }
    }

    #[test]
    fn unsupported_features() {
        let cases: [(&[u8], &str); 5] = [
            (
                b"x = 1\ngoto done",
                "t:2: 'goto' is not supported near 'goto'",
            ),
            (
                b"do\n::top::\nend",
                "t:2: labels are not supported near '::'",
            ),
            (
                b"local f <close> = nil",
                "t:1: '<close>' variables are not supported near '>'",
            ),
            (b"goto 5", "t:1: <name> expected near '5'"),
            (b"::a", "t:1: '::' expected near <eof>"),
        ];
        for (src, want) in cases {
            assert_eq!(parse(src, "t", false).unwrap_err().to_string(), want);
        }
    }

    #[test]
    fn chunk_ids_match_lua() {
        let a = |n: usize| "a".repeat(n);
        let cases = [
            ("=stdin".to_string(), "stdin".to_string()),
            ("=(command line)".into(), "(command line)".into()),
            ("@file.lua".into(), "file.lua".into()),
            ("x=".into(), "[string \"x=\"]".into()),
            ("".into(), "[string \"\"]".into()),
            ("x=\ny".into(), "[string \"x=...\"]".into()),
            (a(44), format!("[string \"{}\"]", a(44))),
            (a(45), format!("[string \"{}...\"]", a(45))),
            (a(46), format!("[string \"{}...\"]", a(45))),
            (format!("ab\n{}", a(60)), "[string \"ab...\"]".into()),
            (format!("={}", a(70)), a(59)),
            (format!("@{}", a(59)), a(59)),
            (format!("@{}", a(60)), format!("...{}", a(56))),
            ("a\0b".into(), "[string \"a\"]".into()),
        ];
        for (name, want) in cases {
            assert_eq!(chunk_id(&name), want, "{name:?}");
        }
    }

    /// Runs `check` on a thread with the default 2 MiB test stack, as a
    /// reminder that nesting must not depend on a big main-thread stack.
    fn on_small_stack(check: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(check)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn nesting_limit_matches_lua() {
        on_small_stack(|| {
            // `prefix open^n middle close^n` and the deepest `n` lua5.4
            // accepts (found with luac5.4 -p).
            let cases = [
                ("x = ", "(", "1", ")", 196),
                ("", "do ", "", "end ", 198),
                ("x = ", "- ", "1", "", 196),
                ("x = ", "not ", "1", "", 196),
                ("x = 1", " .. 1", "", "", 196),
                ("x = ", "2^", "1", "", 196),
                ("a", ", a", " = 1", "", 196),
                ("x = ", "{", "", "}", 197),
                ("x = ", "{a = ", "1", "}", 196),
                ("x = ", "a[", "1", "]", 196),
                ("x = ", "f(", "", ")", 197),
                ("x = ", "function() return ", "1", " end", 98),
                ("", "if x then ", "", "end ", 197),
                ("", "while x do ", "", "end ", 197),
                ("", "repeat ", "", "until x ", 197),
                ("", "function f() ", "", "end ", 198),
            ];
            for (prefix, open, middle, close, deepest) in cases {
                let nest =
                    |n: usize| format!("{prefix}{}{middle}{}", open.repeat(n), close.repeat(n));
                assert!(
                    parse(nest(deepest).as_bytes(), "t", false).is_ok(),
                    "{}",
                    nest(deepest)
                );
                let err = parse(nest(deepest + 1).as_bytes(), "t", false).unwrap_err();
                assert_eq!(err.message, "chunk has too many syntax levels");
            }
            // Far deeper input stops at the limit too, without exhausting the stack.
            for src in [
                "(".repeat(100_000),
                "x = ".to_string() + &"- ".repeat(100_000),
                "a = {".repeat(100_000),
            ] {
                assert!(parse(src.as_bytes(), "t", false).is_err());
            }
        });
    }

    #[test]
    fn long_chains_do_not_recurse() {
        on_small_stack(|| {
            let n = 100_000;
            let sources = [
                format!("x = a{}", ".b".repeat(n)),
                format!("x = 1{}", " + 1".repeat(n)),
                format!("f{}", "()".repeat(n)),
                format!("x = a{}", "[1]".repeat(n)),
                format!("o{}", ":m()".repeat(n)),
                format!("x = {{{}}}", "1, ".repeat(n)),
                format!("x = 1{}", " or 1 and 1 < 1".repeat(n)),
                format!("if x then{} end", " elseif x then".repeat(n)),
                "x = 1 ".repeat(n),
            ];
            for src in sources {
                let chunk = parse(src.as_bytes(), "t", false).unwrap();
                drop(chunk); // dropping the deep left-leaning tree must not recurse either
            }
        });
    }

    /// A xorshift generator: reproducible pseudo-random numbers without
    /// crates.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const SAMPLE: &str = r#"#!/usr/bin/lua
local t <const> = { 1, 2.5, 0x1p4, "s\n\z
    x", [[long
string]], k = {}, [f(1)] = ... ; }
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
function t.a.b:m(x, ...) return self, x, ... end
for i = 1, 10, 2 do print(i, #t, -i ^ 2, ~i & 3 | 1 << 2 >> 1) end
for k, v in pairs(t) do repeat local y = k .. v until y ~= nil end
while false do break end --[==[ comment ]==] -- line comment
if a and b or not c then x, y = (f()), o:m"s" elseif d then elseif e then else end
do return 1 // 2 % 3, 'a\x41\65\u{48}\'' end
"#;

    #[test]
    fn random_input_never_panics() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let alphabet =
            b"()[]{}=<>~:;,.\"'\\-+*/%^#&|0123456789xXeEpP abcdfilnortuz_\n\r\t\x00\x80\xff";
        for _ in 0..10_000 {
            let len = rng.below(40);
            let src: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let _ = parse(&src, "t", rng.below(2) == 0);
        }
        let valid = SAMPLE.as_bytes();
        assert!(parse(valid, "t", true).is_ok());
        for _ in 0..10_000 {
            let mut src = valid.to_vec();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(src.len() + 1);
                match rng.below(4) {
                    0 => drop(src.drain(at..(at + 1 + rng.below(6)).min(src.len()))),
                    1 => src.insert(at, alphabet[rng.below(alphabet.len())]),
                    2 => {
                        let from = rng.below(src.len().max(1));
                        let piece = src[from..(from + rng.below(12)).min(src.len())].to_vec();
                        src.splice(at..at, piece);
                    }
                    _ => src.truncate(at),
                }
            }
            let _ = parse(&src, "t", true);
        }
    }
}
