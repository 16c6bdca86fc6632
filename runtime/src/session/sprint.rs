//! `:sprint`: a saved value as far as it is evaluated, in GHCi's notation:
//! `_` for what is not (a thunk; also a function, which has nothing to
//! show), constructors and literals for what is. A list whose spine is
//! all there prints as `[1,2,3]` (a string as `"abc"` once every
//! character is evaluated), one whose tail is not yet as `1 : 2 : _`.
//!
//! Reading stops after a budget of nodes (`...`), so a long or cyclic
//! value prints in bounded time and space; it never evaluates anything.

use super::saved::{Saved, SavedNode};
use crate::code::{ConId, Program, CONS, NIL};
use crate::machine::heap::kind;
use crate::machine::prims::show_double;

/// How `w` (a saved pointer word) looks evaluated so far.
pub fn sprint(program: &Program, saved: &Saved, w: u64, budget: usize) -> String {
    let mut p = Printer {
        program,
        saved,
        budget,
    };
    p.value(w, false)
}

struct Printer<'a> {
    program: &'a Program,
    saved: &'a Saved,
    budget: usize,
}

/// What a word is, as the printer needs it.
enum Shape<'a> {
    Con(ConId, &'a [u64]),
    Int(i64),
    Double(f64),
    Char(char),
    Integer(String),
    Other,
}

impl<'a> Printer<'a> {
    fn shape(&self, w: u64) -> Shape<'a> {
        match self.saved.node(w) {
            SavedNode::Static(k, v) => match k {
                kind::CON => Shape::Con(ConId(v), &[]),
                kind::INT => Shape::Int(v as i32 as i64),
                kind::CHAR => char::from_u32(v).map_or(Shape::Other, Shape::Char),
                _ => Shape::Other,
            },
            SavedNode::Heap { kind, info, fields } => {
                let raw = |i: usize| fields.get(i).copied().unwrap_or(0);
                match kind {
                    kind::CON => Shape::Con(ConId(info), fields),
                    kind::INT => Shape::Int(raw(0) as i64),
                    kind::SMALLINT => Shape::Integer((raw(0) as i64).to_string()),
                    kind::BIGINT => {
                        let limbs: Vec<u32> = fields[1..]
                            .iter()
                            .flat_map(|l| [*l as u32, (*l >> 32) as u32])
                            .collect();
                        let mag = num_bigint::BigUint::from_slice(&limbs);
                        let sign = if raw(0) == 1 { "-" } else { "" };
                        Shape::Integer(format!("{sign}{mag}"))
                    }
                    kind::DOUBLE => Shape::Double(f64::from_bits(raw(0))),
                    kind::CHAR => char::from_u32(raw(0) as u32).map_or(Shape::Other, Shape::Char),
                    _ => Shape::Other,
                }
            }
        }
    }

    /// `arg`: in a constructor's argument position (parenthesise
    /// applications and negative numbers).
    fn value(&mut self, w: u64, arg: bool) -> String {
        if self.budget == 0 {
            return "...".into();
        }
        self.budget -= 1;
        let paren = |s: String, needed: bool| if needed { format!("({s})") } else { s };
        match self.shape(w) {
            Shape::Int(i) => paren(i.to_string(), arg && i < 0),
            Shape::Integer(s) => {
                let neg = s.starts_with('-');
                paren(s, arg && neg)
            }
            Shape::Double(d) => {
                let s = show_double(d);
                let neg = s.starts_with('-');
                paren(s, arg && neg)
            }
            Shape::Char(c) => format!("{c:?}").replace('"', "\\\""),
            Shape::Con(c, _) if c == CONS || c == NIL => self.list(w, arg),
            Shape::Con(c, fields) => {
                let name = self.con_name(c);
                if name.starts_with("(,") {
                    let items: Vec<String> = fields.iter().map(|f| self.value(*f, false)).collect();
                    return format!("({})", items.join(","));
                }
                if fields.is_empty() {
                    return name;
                }
                let mut s = if is_operator(&name) {
                    format!("({name})")
                } else {
                    name
                };
                for f in fields {
                    s.push(' ');
                    s.push_str(&self.value(*f, true));
                }
                paren(s, arg)
            }
            Shape::Other => "_".into(),
        }
    }

    /// A list: `[a,b]` when the spine ends in `[]`, a string when it is
    /// all characters, else `a : b : _`.
    fn list(&mut self, w: u64, arg: bool) -> String {
        let mut items = Vec::new();
        let mut cur = w;
        let complete = loop {
            match self.shape(cur) {
                Shape::Con(c, _) if c == NIL => break true,
                Shape::Con(c, fields) if c == CONS && fields.len() == 2 => {
                    items.push(fields[0]);
                    cur = fields[1];
                    if items.len() > self.budget {
                        break false;
                    }
                }
                _ => break false,
            }
        };
        if complete && !items.is_empty() {
            let chars: Option<String> = items
                .iter()
                .map(|i| match self.shape(*i) {
                    Shape::Char(c) => Some(c),
                    _ => None,
                })
                .collect();
            if let Some(s) = chars {
                self.budget = self.budget.saturating_sub(items.len());
                return format!("{s:?}");
            }
        }
        let shown: Vec<String> = items.iter().map(|i| self.value(*i, false)).collect();
        if complete {
            return format!("[{}]", shown.join(","));
        }
        let mut s = String::new();
        for x in &shown {
            s.push_str(x);
            s.push_str(" : ");
        }
        s.push_str(&if self.budget == 0 {
            "...".to_string()
        } else {
            self.value(cur, true)
        });
        if arg {
            format!("({s})")
        } else {
            s
        }
    }

    /// A constructor's name as the user wrote it (without its module).
    fn con_name(&self, c: ConId) -> String {
        let full = self
            .program
            .cons
            .get(c.0 as usize)
            .map_or("?", |i| i.name.as_str());
        if full.starts_with('(') || full.starts_with(':') || full == "[]" {
            return full.to_string();
        }
        crate::code::split_qual(full).1.to_string()
    }
}

fn is_operator(name: &str) -> bool {
    name.starts_with(|c: char| !c.is_alphanumeric() && c != '_' && c != '(')
}
