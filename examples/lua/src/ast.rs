//! The syntax tree of a Lua 5.4 chunk, as [`crate::parse::parse`] builds it.
//!
//! It is syntax only: names are not resolved (an [`ExprKind::Name`] may be a
//! local, an upvalue or a global), constants are not folded, and none of the
//! compiler's limits (registers, locals, upvalues) is checked. `a.b` is an
//! [`ExprKind::Index`] whose key is the string `"b"`, and a table field
//! `b = v` is a [`Field::Keyed`] with the same key.
//!
//! # Lines
//!
//! Every statement and expression carries a source line, chosen as
//! `lua5.4` attributes its run-time errors, so that `chunk:line:` prefixes
//! match. A token's line is the line it ends on (only long strings span
//! lines).
//!
//! | node | line |
//! |---|---|
//! | [`Stat`] | its first token; [`Stat::end_line`] its last (`lua5.4` reports an assignment's stores, e.g. indexing `nil`, there) |
//! | literal, name, `...` | the token |
//! | [`ExprKind::Bin`], [`ExprKind::Un`] | the operator (`lua5.4` reports order comparisons at the right operand's end instead) |
//! | [`ExprKind::Index`] | the key's last token: the name after `.`, or `]` |
//! | [`ExprKind::Call`], [`ExprKind::Method`] | where the whole prefix expression starts: `t.f\n(x)` is a call on `t`'s line |
//! | [`ExprKind::Table`], [`ExprKind::Paren`] | the `{` or `(` |
//! | [`ExprKind::Function`] | the `function` keyword ([`FuncBody::line`] differs) |
//!
//! # Depth
//!
//! Nesting that recurses in the grammar (blocks, parentheses, unary
//! operators, the right-associative `..` and `^`, tables, functions) is at
//! most about 200 levels deep: the parser refuses more, as `lua5.4` does.
//! Left-associative chains are not limited: `a + b + c ...` is a
//! left-leaning tree of `Bin` nodes and `a.b.c(d)(e) ...` a chain of `Index`
//! and `Call` nodes as deep as the source is long. [`Expr`] drops them
//! without recursion; a pass that walks the tree recursively must bound its
//! own depth on the `lhs`, `obj` and `func` side of those nodes, or walk
//! them in a loop.

/// A whole chunk: the main function, which is vararg (its `...` are the
/// chunk's arguments) and has no named parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The chunk's statements.
    pub body: Block,
}

/// A sequence of statements; a [`StatKind::Return`] can only be the last.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// The statements in order (empty statements `;` are left out).
    pub stats: Vec<Stat>,
}

/// A statement with its lines (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct Stat {
    /// The line of the statement's first token.
    pub line: u32,
    /// The line of the statement's last token.
    pub end_line: u32,
    /// What the statement is.
    pub kind: StatKind,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StatKind {
    /// `local n1 <const>, n2 = e1, e2`: new locals, in scope from the next
    /// statement on; `values` may be empty or of any length.
    Local {
        /// The names with their attributes, left to right.
        names: Vec<LocalName>,
        /// The initial values (`= ...`), empty if there are none.
        values: Vec<Expr>,
    },
    /// `t1, t2 = e1, e2`: each target is an [`ExprKind::Name`] or an
    /// [`ExprKind::Index`].
    Assign {
        /// Where to store, left to right.
        targets: Vec<Expr>,
        /// The values; never empty.
        values: Vec<Expr>,
    },
    /// A call as a statement: an [`ExprKind::Call`] or
    /// [`ExprKind::Method`], its results discarded.
    Call(Expr),
    /// `do ... end`.
    Do(Block),
    /// `while cond do body end`.
    While {
        /// Checked before each iteration.
        cond: Expr,
        /// The loop body.
        body: Block,
    },
    /// `repeat body until cond`: `cond` is inside `body`'s scope (it sees the
    /// body's locals).
    Repeat {
        /// The loop body.
        body: Block,
        /// Checked after each iteration, in `body`'s scope.
        cond: Expr,
    },
    /// `if c1 then b1 elseif c2 then b2 else b3 end`.
    If {
        /// The `if` arm and each `elseif` arm: condition and block.
        arms: Vec<(Expr, Block)>,
        /// The `else` block, if any.
        otherwise: Option<Block>,
    },
    /// `for var = start, limit, step do body end` (the expressions are boxed
    /// to keep every statement small).
    NumFor {
        /// The control variable, local to `body`.
        var: String,
        /// The initial value.
        start: Box<Expr>,
        /// The limit.
        limit: Box<Expr>,
        /// The step; `None` means 1.
        step: Option<Box<Expr>>,
        /// The loop body.
        body: Block,
    },
    /// `for n1, n2 in e1, e2 do body end`.
    GenFor {
        /// The loop variables, local to `body`; at least one.
        names: Vec<String>,
        /// The expressions after `in`; at least one.
        exprs: Vec<Expr>,
        /// The loop body.
        body: Block,
    },
    /// `function a.b.c:m() end`: assigns the function to the variable
    /// `path[0]` (`path.len() == 1`) or to the field `path[n-1]` of
    /// `path[0].path[1]...`, or with a method name to the field `method` of
    /// the whole path.
    Function {
        /// The variable, then field names; at least one.
        path: Vec<String>,
        /// The name after `:`; its body's first parameter is then `self`.
        method: Option<String>,
        /// The function.
        body: FuncBody,
    },
    /// `local function name() end`: `name` is in scope inside the body (so
    /// it can recurse), unlike `local name = function() end`.
    LocalFunction {
        /// The new local.
        name: String,
        /// The function.
        body: FuncBody,
    },
    /// `return e1, e2`: always the last statement of its block.
    Return(Vec<Expr>),
    /// `break`: always inside a loop of the same function (the parser
    /// checks).
    Break,
}

/// A name declared by `local`, with its attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalName {
    /// The local's name.
    pub name: String,
    /// `<const>` or none (`<close>` is refused by the parser).
    pub attrib: Attrib,
}

/// A local's attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attrib {
    /// No attribute: an ordinary variable.
    Plain,
    /// `<const>`: may not be assigned after its declaration.
    Const,
}

/// A function's parameters and body.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncBody {
    /// Parameter names in order; a method (`function a:m()`) has `self`
    /// prepended.
    pub params: Vec<String>,
    /// Whether the parameter list ends with `...`.
    pub is_vararg: bool,
    /// The statements.
    pub body: Block,
    /// Where `lua5.4` says the function is defined (`linedefined`): the
    /// `function` keyword of a `function` statement, but the `(` of a
    /// function expression or `local function`.
    pub line: u32,
    /// The line of the closing `end` (`lastlinedefined`).
    pub end_line: u32,
}

/// An expression with its line (see the [module docs](self)).
///
/// `Expr` implements `Drop` (to drop deep chains without recursion), so its
/// fields cannot be moved out by destructuring: match on `&expr.kind`, or
/// take the kind with `std::mem::replace`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The line `lua5.4` attributes the expression's run-time errors to.
    pub line: u32,
    /// What the expression is.
    pub kind: ExprKind,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// `nil`
    Nil,
    /// `true`
    True,
    /// `false`
    False,
    /// An integer numeral (hexadecimal ones wrapped around to 64 bits).
    Int(i64),
    /// A float numeral (includes decimal integers too large for `i64`).
    Float(f64),
    /// A string literal, escapes decoded.
    Str(Vec<u8>),
    /// `...` (only inside a vararg function; the parser checks).
    Vararg,
    /// `function (params) body end`.
    Function(Box<FuncBody>),
    /// `{ fields }`.
    Table(Vec<Field>),
    /// `lhs op rhs`; `and` and `or` short-circuit.
    Bin {
        /// The operator.
        op: BinOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `op operand`.
    Un {
        /// The operator.
        op: UnOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A variable: a local, an upvalue or a global.
    Name(String),
    /// `obj[key]`, and `obj.name` with a [`ExprKind::Str`] key.
    Index {
        /// The indexed value.
        obj: Box<Expr>,
        /// The key.
        key: Box<Expr>,
    },
    /// `func(args)`, also `func "str"` and `func {fields}` (one argument).
    Call {
        /// The called value.
        func: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `obj:name(args)`: calls `obj.name` with `obj` as first argument,
    /// evaluating `obj` once.
    Method {
        /// The receiver.
        obj: Box<Expr>,
        /// The method's name.
        name: String,
        /// The arguments after the receiver.
        args: Vec<Expr>,
    },
    /// `(inner)`: kept because it truncates `inner`'s results to one (and a
    /// parenthesized expression cannot be assigned to).
    Paren(Box<Expr>),
}

/// A field of a table constructor.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// A positional value; the last one, if a call or `...`, contributes all
    /// its results.
    Pos(Expr),
    /// `[key] = value`, and `name = value` with a [`ExprKind::Str`] key.
    Keyed {
        /// The key.
        key: Expr,
        /// The value.
        value: Expr,
    },
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `or` (short-circuit)
    Or,
    /// `and` (short-circuit)
    And,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `~=`
    Ne,
    /// `==`
    Eq,
    /// `|`
    BOr,
    /// `~`
    BXor,
    /// `&`
    BAnd,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `..`
    Concat,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `//`
    IDiv,
    /// `%`
    Mod,
    /// `^`
    Pow,
}

impl BinOp {
    /// The operator's source text.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Ne => "~=",
            BinOp::Eq => "==",
            BinOp::BOr => "|",
            BinOp::BXor => "~",
            BinOp::BAnd => "&",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Concat => "..",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::IDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "^",
        }
    }
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `not`
    Not,
    /// `#`
    Len,
    /// `-`
    Neg,
    /// `~`
    BNot,
}

impl UnOp {
    /// The operator's source text.
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Not => "not",
            UnOp::Len => "#",
            UnOp::Neg => "-",
            UnOp::BNot => "~",
        }
    }
}

impl Expr {
    /// An expression of `kind` at `line`.
    pub fn new(line: u32, kind: ExprKind) -> Self {
        Expr { line, kind }
    }

    /// Moves the boxed subexpressions that have subexpressions themselves
    /// out to `pending`, leaving `nil` in their place.
    fn detach_children(&mut self, pending: &mut Vec<Expr>) {
        let mut detach = |child: &mut Box<Expr>| {
            if child.has_boxed_children() {
                pending.push(std::mem::replace(&mut **child, Expr::new(0, ExprKind::Nil)));
            }
        };
        match &mut self.kind {
            ExprKind::Bin { lhs, rhs, .. } => {
                detach(lhs);
                detach(rhs);
            }
            ExprKind::Index { obj, key } => {
                detach(obj);
                detach(key);
            }
            ExprKind::Un { operand: inner, .. }
            | ExprKind::Call { func: inner, .. }
            | ExprKind::Method { obj: inner, .. }
            | ExprKind::Paren(inner) => detach(inner),
            _ => {}
        }
    }

    fn has_boxed_children(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Bin { .. }
                | ExprKind::Index { .. }
                | ExprKind::Un { .. }
                | ExprKind::Call { .. }
                | ExprKind::Method { .. }
                | ExprKind::Paren(_)
        )
    }
}

impl Drop for Expr {
    /// Dismantles the tree with a work list: dropping a left-leaning chain
    /// like `a + b + c ...` recursively would need native stack in
    /// proportion to the source's length.
    fn drop(&mut self) {
        if !self.has_boxed_children() {
            return;
        }
        let mut pending = Vec::new();
        self.detach_children(&mut pending);
        while let Some(mut expr) = pending.pop() {
            expr.detach_children(&mut pending);
        }
    }
}
