//! The assembler: program text to code, with a check of every function's
//! operand stack (its depth at each instruction is the same on every path,
//! never negative; the frame gets the locals plus the deepest stack).
//!
//! ```text
//! # a comment
//! func NAME NARGS [LOCALS]   # LOCALS (default NARGS) slots, the arguments first
//! label:
//!     INSTRUCTION [OPERAND]
//! end
//! ```
//!
//! Instructions: `push INT`, `pushf FLOAT`, `pop`, `dup`, `load SLOT`,
//! `store SLOT`, `add`, `sub`, `mul`, `div` (always a float), `mod`
//! (integers), `lt`, `le`, `eq`, `jmp LABEL`,
//! `jz LABEL`, `jnz LABEL`, `call FUNC`, `ret`, `print`, `point`, `px`,
//! `py`, `try LABEL` (at an empty operand stack; the handler at `LABEL`
//! starts with the exception as the only operand), `endtry`, `raise`.
//! Labels are local to their function. The program starts at `main`,
//! which takes no argument or one: the integer given on the command line,
//! else the one a top-level `arg N` line sets (a program's size, so that
//! tests can run it smaller).

use crate::vm::*;
use std::collections::HashMap;
use std::fmt;

/// Assembled code: instruction `i` is `code[2i]` (`op | a << 8 | b << 16`)
/// and `code[2i + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub code: Vec<i64>,
    /// Where `main` starts.
    pub main: usize,
    /// `main`'s frame size (slots).
    pub main_size: usize,
    /// Whether `main` takes its one argument, and the default (`arg N`).
    pub main_arg: Option<Option<i64>>,
}

/// Text that does not assemble: the line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for AsmError {}

/// How an instruction's operand is written.
#[derive(Clone, Copy, PartialEq)]
enum Operand {
    None,
    Int,
    Float,
    Label,
    Func,
}

/// The instructions: name, opcode, operand.
const OPS: &[(&str, i64, Operand)] = &[
    ("push", PUSH, Operand::Int),
    ("pushf", PUSHF, Operand::Float),
    ("pop", POP, Operand::None),
    ("dup", DUP, Operand::None),
    ("load", LOAD, Operand::Int),
    ("store", STORE, Operand::Int),
    ("add", ADD, Operand::None),
    ("sub", SUB, Operand::None),
    ("mul", MUL, Operand::None),
    ("div", DIV, Operand::None),
    ("mod", MOD, Operand::None),
    ("lt", LT, Operand::None),
    ("le", LE, Operand::None),
    ("eq", EQ, Operand::None),
    ("jmp", JMP, Operand::Label),
    ("jz", JZ, Operand::Label),
    ("jnz", JNZ, Operand::Label),
    ("call", CALL, Operand::Func),
    ("ret", RET, Operand::None),
    ("print", PRINT, Operand::None),
    ("point", POINT, Operand::None),
    ("px", PX, Operand::None),
    ("py", PY, Operand::None),
    ("try", TRY, Operand::Label),
    ("endtry", ENDTRY, Operand::None),
    ("raise", RAISE, Operand::None),
];

/// One instruction as written.
struct Insn<'t> {
    line: usize,
    op: i64,
    operand: Option<&'t str>,
}

/// One function as written.
struct Func<'t> {
    line: usize,
    name: &'t str,
    nargs: usize,
    locals: usize,
    insns: Vec<Insn<'t>>,
    labels: HashMap<&'t str, usize>,
    /// Where its `ENTER` goes, and its frame size (filled by `layout`).
    start: usize,
    size: usize,
}

fn err(line: usize, message: impl Into<String>) -> AsmError {
    AsmError {
        line,
        message: message.into(),
    }
}

/// Assembles program text (see the module docs).
pub fn assemble(text: &str) -> Result<Program, AsmError> {
    let (mut funcs, default) = parse(text)?;
    let depths = funcs
        .iter()
        .map(|f| max_depth(f, &funcs))
        .collect::<Result<Vec<_>, _>>()?;
    let mut at = 0;
    for (f, d) in funcs.iter_mut().zip(depths) {
        f.start = at;
        f.size = f.locals + d.max(1);
        at += 1 + f.insns.len();
    }
    let main = funcs
        .iter()
        .find(|f| f.name == "main")
        .ok_or_else(|| err(0, "no function `main`"))?;
    if main.nargs > 1 {
        return Err(err(main.line, "`main` takes no argument or one"));
    }
    let main_arg = (main.nargs == 1).then_some(default);
    let (main_start, main_size) = (main.start, main.size);
    let mut code = Vec::new();
    for f in &funcs {
        code.extend([ENTER | (f.nargs as i64) << 8, f.locals as i64]);
        for i in &f.insns {
            code.extend(encode(i, f, &funcs)?);
        }
    }
    Ok(Program {
        code,
        main: main_start,
        main_size,
        main_arg,
    })
}

/// Splits the text into functions of instructions; also the `arg` line's
/// value.
fn parse(text: &str) -> Result<(Vec<Func<'_>>, Option<i64>), AsmError> {
    let mut funcs: Vec<Func> = Vec::new();
    let (mut open, mut default) = (false, None);
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        let words: Vec<&str> = line
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let Some(&first) = words.first() else {
            continue;
        };
        match (first, open) {
            ("func", false) => {
                let [_, name, nargs, rest @ ..] = &words[..] else {
                    return Err(err(n, "`func NAME NARGS [LOCALS]`"));
                };
                let count = |w: &str| w.parse::<usize>().map_err(|_| err(n, "a count"));
                let nargs = count(nargs)?;
                let locals = rest.first().map_or(Ok(nargs), |w| count(w))?;
                if nargs > 255 || locals < nargs || rest.len() > 1 {
                    return Err(err(n, "at most 255 arguments, and at least as many locals"));
                }
                if funcs.iter().any(|f| f.name == *name) {
                    return Err(err(n, format!("`{name}` is defined twice")));
                }
                funcs.push(Func {
                    line: n,
                    name,
                    nargs,
                    locals,
                    insns: Vec::new(),
                    labels: HashMap::new(),
                    start: 0,
                    size: 0,
                });
                open = true;
            }
            ("end", true) => open = false,
            ("arg", false) => match (&words[1..], default) {
                ([w], None) => {
                    default = Some(w.parse().map_err(|_| err(n, "`arg N`, an integer"))?)
                }
                _ => return Err(err(n, "one `arg N` line, N an integer")),
            },
            (_, false) => return Err(err(n, "instructions go inside `func .. end`")),
            (w, true) => {
                let f = funcs.last_mut().expect("a function is open");
                if let Some(label) = w.strip_suffix(':') {
                    if f.labels.insert(label, f.insns.len()).is_some() {
                        return Err(err(n, format!("label `{label}` is defined twice")));
                    }
                    if words.len() > 1 {
                        return Err(err(n, "a label stands on its own line"));
                    }
                    continue;
                }
                let &(_, op, operand) = OPS
                    .iter()
                    .find(|o| o.0 == w)
                    .ok_or_else(|| err(n, format!("unknown instruction `{w}`")))?;
                let given = words.get(1).copied();
                if (operand == Operand::None) != given.is_none() || words.len() > 2 {
                    return Err(err(
                        n,
                        format!(
                            "`{w}` takes {} operand",
                            match operand {
                                Operand::None => "no",
                                _ => "one",
                            }
                        ),
                    ));
                }
                f.insns.push(Insn {
                    line: n,
                    op,
                    operand: given,
                });
            }
        }
    }
    if open {
        return Err(err(text.lines().count(), "missing `end`"));
    }
    Ok((funcs, default))
}

/// The two words of instruction `i` of function `f`.
fn encode(i: &Insn, f: &Func, funcs: &[Func]) -> Result<[i64; 2], AsmError> {
    let operand = OPS
        .iter()
        .find(|o| o.1 == i.op)
        .map_or(Operand::None, |o| o.2);
    let w = i.operand.unwrap_or("");
    Ok(match operand {
        Operand::None => [i.op, 0],
        Operand::Int => {
            let v: i64 = w
                .parse()
                .map_err(|_| err(i.line, format!("`{w}` is no integer")))?;
            if matches!(i.op, LOAD | STORE) && !(0..f.locals as i64).contains(&v) {
                return Err(err(i.line, format!("slot {v} is not a local")));
            }
            [i.op, v]
        }
        Operand::Float => {
            let v: f64 = w
                .parse()
                .map_err(|_| err(i.line, format!("`{w}` is no float")))?;
            [i.op, v.to_bits() as i64]
        }
        Operand::Label => {
            let &k = f
                .labels
                .get(w)
                .ok_or_else(|| err(i.line, format!("no label `{w}` in `{}`", f.name)))?;
            [i.op, (f.start + 1 + k) as i64]
        }
        Operand::Func => {
            let g = callee(i, funcs)?;
            let word = CALL | (g.nargs as i64) << 8 | (g.size as i64) << 16;
            [word, g.start as i64]
        }
    })
}

/// The function `call` instruction `i` names.
fn callee<'a, 't>(i: &Insn, funcs: &'a [Func<'t>]) -> Result<&'a Func<'t>, AsmError> {
    let w = i.operand.unwrap_or("");
    funcs
        .iter()
        .find(|g| g.name == w)
        .ok_or_else(|| err(i.line, format!("no function `{w}`")))
}

/// The deepest operand stack of `f`, checking that every instruction has
/// one depth on every path and enough operands (see the module docs).
fn max_depth(f: &Func, funcs: &[Func]) -> Result<usize, AsmError> {
    let mut depth: Vec<Option<usize>> = vec![None; f.insns.len() + 1];
    let mut work = vec![(0usize, 0usize)];
    let mut max = 0;
    while let Some((k, d)) = work.pop() {
        let line = f.insns.get(k).map_or(f.line, |i| i.line);
        match depth[k] {
            Some(e) if e == d => continue,
            Some(e) => {
                return Err(err(
                    line,
                    format!("the stack is {e} deep here on one path, {d} on another"),
                ))
            }
            None => depth[k] = Some(d),
        }
        max = max.max(d);
        let Some(i) = f.insns.get(k) else {
            return Err(err(
                line,
                format!("`{}` runs past its end without `ret`", f.name),
            ));
        };
        let target = |w: Option<&str>| f.labels.get(w.unwrap_or("")).copied();
        let (pops, pushes) = effect(i, funcs)?;
        if d < pops {
            return Err(err(i.line, "the operand stack is too short here"));
        }
        let next = d - pops + pushes;
        match i.op {
            RET | RAISE => {}
            JMP => work.extend(target(i.operand).map(|t| (t, next))),
            JZ | JNZ => {
                work.extend(target(i.operand).map(|t| (t, next)));
                work.push((k + 1, next));
            }
            TRY => {
                if d != 0 {
                    return Err(err(i.line, "`try` needs an empty operand stack"));
                }
                work.extend(target(i.operand).map(|t| (t, 1)));
                work.push((k + 1, next));
            }
            _ => work.push((k + 1, next)),
        }
    }
    Ok(max)
}

/// The operands instruction `i` pops and the values it pushes (a call
/// pops its callee's arguments, `funcs`).
fn effect(i: &Insn, funcs: &[Func]) -> Result<(usize, usize), AsmError> {
    Ok(match i.op {
        PUSH | PUSHF | LOAD => (0, 1),
        DUP => (1, 2),
        POP | STORE | PRINT | JZ | JNZ | RET | RAISE => (1, 0),
        ADD | SUB | MUL | DIV | MOD | LT | LE | EQ | POINT => (2, 1),
        PX | PY => (1, 1),
        CALL => (callee(i, funcs)?.nargs, 1),
        _ => (0, 0),
    })
}
