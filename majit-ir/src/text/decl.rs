//! Reading descriptor declarations:
//! `descr NAME = SORT(key=value, flag, key=[a, b], ...)`.
//!
//! The body is first read into a generic list of items (`key=word`,
//! `key=[words]`, bare `flag`), then [`Items`] hands them to the builder of
//! the sort, which takes the keys it knows; a missing required key, a
//! duplicate, or a key left over is an error naming it and its column.

use super::parse::{parse_u64, Cursor};
use super::print::{effect_name, result_name};
use crate::descr::{
    ArrayDescr, CallDescr, CallEffect, Descr, EffectInfo, FailDescr, FieldDescr, SizeDescr,
    TargetDescr,
};
use crate::error::ParseError;
use crate::opcode::{Kind, ResultKind};

enum Value {
    Flag,
    Word(String),
    List(Vec<String>),
}

struct Item {
    key: String,
    col: usize,
    value: Value,
}

/// The items of one declaration, consumed by key.
struct Items<'c, 'a> {
    cur: &'c Cursor<'a>,
    items: Vec<Item>,
    /// Column of the sort word, for "missing key" errors.
    col: usize,
}

/// Reads the declaration body after `descr NAME =`.
pub(crate) fn parse_decl(cur: &mut Cursor, name: &str) -> Result<Descr, ParseError> {
    let (sort, col) = cur.word("a descriptor sort (size, field, array, call, fail, target)")?;
    cur.expect('(')?;
    let items = read_items(cur)?;
    let mut it = Items { cur, items, col };
    let name = name.to_string();
    let descr = match sort.as_str() {
        "size" => Descr::from(SizeDescr {
            name,
            size: it.num("size")?,
            type_id: it.num("type_id")?,
            headerless: it.flag("headerless"),
            vtable: it.opt_num("vtable")?,
            fields: it.list("fields")?,
        }),
        "field" => Descr::from(FieldDescr {
            name,
            owner: it.word("owner")?,
            offset: it.num("offset")?,
            size: it.num("size")?,
            kind: it.kind("kind")?,
            signed: it.flag("signed"),
            immutable: it.flag("immutable"),
            quasi_immutable: it.flag("quasi_immutable"),
        }),
        "array" => Descr::from(ArrayDescr {
            name,
            base_offset: it.num("base")?,
            len_offset: it.num("len")?,
            item_size: it.num("item_size")?,
            kind: it.kind("kind")?,
            type_id: it.num("type_id")?,
            signed: it.flag("signed"),
        }),
        "call" => Descr::from(call_decl(&mut it, name)?),
        "fail" => Descr::from(FailDescr {
            name,
            id: it.num("id")?,
            returns: it.flag("returns"),
        }),
        "target" => Descr::from(TargetDescr { name }),
        _ => {
            return Err(cur.err_at(
                col,
                "a descriptor sort (size, field, array, call, fail, target)",
                format!("`{sort}`"),
            ))
        }
    };
    it.finish()?;
    Ok(descr)
}

fn call_decl(it: &mut Items, name: String) -> Result<CallDescr, ParseError> {
    let args = it.list("args")?;
    let args = args
        .iter()
        .map(|a| Kind::from_name(a).ok_or_else(|| it.bad("args", "int, ref or float", a)))
        .collect::<Result<Vec<_>, _>>()?;
    let result = it.word("result")?;
    let result = [
        ResultKind::Int,
        ResultKind::Ref,
        ResultKind::Float,
        ResultKind::Void,
    ]
    .into_iter()
    .find(|r| result_name(r.kind()) == result)
    .ok_or_else(|| it.bad("result", "int, ref, float or void", &result))?;
    let effect = it.word("effect")?;
    let effect = [
        CallEffect::Random,
        CallEffect::Declared,
        CallEffect::Elidable,
        CallEffect::LoopInvariant,
    ]
    .into_iter()
    .find(|&e| effect_name(e) == effect)
    .ok_or_else(|| {
        it.bad(
            "effect",
            "random, declared, elidable or loop_invariant",
            &effect,
        )
    })?;
    Ok(CallDescr {
        name,
        args,
        result,
        effect: EffectInfo {
            effect,
            can_raise: it.flag("can_raise"),
            can_collect: it.flag("can_collect"),
            may_force: it.flag("may_force"),
            reads: it.opt_list("reads")?,
            writes: it.opt_list("writes")?,
        },
    })
}

fn read_items(cur: &mut Cursor) -> Result<Vec<Item>, ParseError> {
    let mut items: Vec<Item> = Vec::new();
    if cur.eat(')') {
        return Ok(items);
    }
    loop {
        let (key, col) = cur.word("a declaration key")?;
        if items.iter().any(|i| i.key == key) {
            return Err(cur.err_at(col, "each key once", format!("a second `{key}`")));
        }
        let value = if cur.eat('=') {
            if cur.eat('[') {
                Value::List(read_names(cur)?)
            } else {
                Value::Word(cur.word("a value")?.0)
            }
        } else {
            Value::Flag
        };
        items.push(Item { key, col, value });
        if cur.eat(')') {
            return Ok(items);
        }
        cur.expect(',')?;
    }
}

fn read_names(cur: &mut Cursor) -> Result<Vec<String>, ParseError> {
    let mut out = Vec::new();
    if cur.eat(']') {
        return Ok(out);
    }
    loop {
        let (w, col) = cur.word("a name")?;
        if !super::is_name(&w) {
            return Err(cur.err_at(col, "a name", format!("`{w}`")));
        }
        out.push(w);
        if cur.eat(']') {
            return Ok(out);
        }
        cur.expect(',')?;
    }
}

impl Items<'_, '_> {
    fn take(&mut self, key: &str) -> Option<Item> {
        let i = self.items.iter().position(|it| it.key == key)?;
        Some(self.items.remove(i))
    }

    fn missing(&self, key: &str) -> ParseError {
        self.cur
            .err_at(self.col, format!("a `{key}=` entry"), "none".to_string())
    }

    fn bad(&self, key: &str, expected: &str, found: &str) -> ParseError {
        self.cur.err_at(
            self.col,
            format!("`{key}` to be {expected}"),
            format!("`{found}`"),
        )
    }

    fn flag(&mut self, key: &str) -> bool {
        // A `key=...` form is left in place and reported by `finish`.
        match self.items.iter().position(|it| it.key == key) {
            Some(i) if matches!(self.items[i].value, Value::Flag) => {
                self.items.remove(i);
                true
            }
            _ => false,
        }
    }

    fn opt_word(&mut self, key: &str) -> Result<Option<String>, ParseError> {
        match self.take(key) {
            None => Ok(None),
            Some(Item {
                value: Value::Word(w),
                ..
            }) => Ok(Some(w)),
            Some(it) => {
                Err(self
                    .cur
                    .err_at(it.col, format!("`{key}=` and a value"), format!("`{key}`")))
            }
        }
    }

    fn word(&mut self, key: &str) -> Result<String, ParseError> {
        self.opt_word(key)?.ok_or_else(|| self.missing(key))
    }

    fn opt_num<T: TryFrom<u64>>(&mut self, key: &str) -> Result<Option<T>, ParseError> {
        let Some(w) = self.opt_word(key)? else {
            return Ok(None);
        };
        parse_u64(&w)
            .and_then(|v| T::try_from(v).ok())
            .map(Some)
            .ok_or_else(|| self.bad(key, "a number in range", &w))
    }

    fn num<T: TryFrom<u64>>(&mut self, key: &str) -> Result<T, ParseError> {
        self.opt_num(key)?.ok_or_else(|| self.missing(key))
    }

    fn kind(&mut self, key: &str) -> Result<Kind, ParseError> {
        let w = self.word(key)?;
        Kind::from_name(&w).ok_or_else(|| self.bad(key, "int, ref or float", &w))
    }

    fn opt_list(&mut self, key: &str) -> Result<Vec<String>, ParseError> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Item {
                value: Value::List(l),
                ..
            }) => Ok(l),
            Some(it) => Err(self
                .cur
                .err_at(it.col, format!("`{key}=[...]`"), format!("`{key}`"))),
        }
    }

    fn list(&mut self, key: &str) -> Result<Vec<String>, ParseError> {
        if !self.items.iter().any(|it| it.key == key) {
            return Err(self.missing(key));
        }
        self.opt_list(key)
    }

    /// Errors on the first key no builder took.
    fn finish(self) -> Result<(), ParseError> {
        match self.items.first() {
            None => Ok(()),
            Some(it) => Err(self.cur.err_at(
                it.col,
                "a key this descriptor sort knows",
                format!("`{}`", it.key),
            )),
        }
    }
}
