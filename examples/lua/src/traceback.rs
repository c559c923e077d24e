//! The stack traceback `lua` prints after an uncaught error. Where an
//! error is raised, the program counters of the calls running then are
//! recorded (innermost first: cheap, and nothing to root); they are worded
//! as lua5.4's `luaL_traceback` words them only if the error ends the
//! script. The prelude's functions stand for C functions (`[C]: in ?`).

use crate::builtins::{call_name_of, in_prelude};
use crate::proto::describe_pc;
use crate::vm::Frame;
use std::cell::RefCell;

/// The last raised error's levels: the library function that raised it,
/// if one did, and the program counters of the calls, innermost first.
struct Trace {
    builtin: Option<&'static str>,
    pcs: Vec<i64>,
}

thread_local! {
    static TRACE: RefCell<Trace> = const { RefCell::new(Trace { builtin: None, pcs: Vec::new() }) };
}

/// Records the levels of an error raised at `pc` in `frame` (`builtin`:
/// by that library function, called there).
pub fn record(frame: Frame, pc: i64, builtin: Option<&'static str>) {
    let mut pcs = vec![pc];
    let mut f = frame;
    while !f.is_null() && f.call_pc() >= 0 {
        pcs.push(f.call_pc());
        f = f.parent();
    }
    TRACE.with(|t| *t.borrow_mut() = Trace { builtin, pcs });
}

/// The lines after `stack traceback:` for the last raised error.
pub fn lines() -> Vec<String> {
    let c_level = "[C]: in ?".to_string();
    TRACE.with(|t| {
        let t = t.borrow();
        let mut out: Vec<String> = t
            .builtin
            .iter()
            .map(|n| format!("[C]: in function '{n}'"))
            .collect();
        for (k, &pc) in t.pcs.iter().enumerate() {
            let level = match describe_pc(pc as usize) {
                _ if in_prelude(pc) => c_level.clone(),
                Some((chunk, defined, line, _)) => {
                    let what = match (defined, t.pcs.get(k + 1).and_then(|&c| function_name(c))) {
                        (0, _) => "main chunk".to_string(),
                        (_, Some(name)) => name,
                        _ => format!("function <{chunk}:{defined}>"),
                    };
                    format!("{chunk}:{line}: in {what}")
                }
                None => continue,
            };
            if out.last() != Some(&level) || level != c_level {
                out.push(level);
            }
        }
        if out.last() != Some(&c_level) {
            out.push(c_level);
        }
        elide(out)
    })
}

/// A deep traceback as lua5.4's `luaL_traceback` shortens it: the first 10
/// levels, a line naming how many it skips (one fewer than it leaves out,
/// as lua5.4 counts), the last 11.
fn elide(mut levels: Vec<String>) -> Vec<String> {
    const FIRST: usize = 10;
    const LAST: usize = 11;
    let n = levels.len();
    if n <= FIRST + LAST + 1 {
        return levels;
    }
    let tail = levels.split_off(n - LAST);
    levels.truncate(FIRST);
    levels.push(format!("...\t(skipping {} levels)", n - FIRST - LAST - 1));
    levels.extend(tail);
    levels
}

/// How lua5.4 names the function called at `pc`: `function 'f'` for a
/// global (found in `_G`), `local 'f'`, `upvalue 'f'`, `method 'm'`,
/// `field 'f'` as the call names it.
fn function_name(pc: i64) -> Option<String> {
    let (name, kind) = call_name_of(pc)?;
    Some(match kind.as_str() {
        "global" => format!("function '{name}'"),
        "local" | "upvalue" | "method" | "field" => format!("{kind} '{name}'"),
        _ => return None,
    })
}
