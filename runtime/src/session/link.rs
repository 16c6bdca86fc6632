//! Linking a freshly compiled program into the session's program.
//!
//! The REPL compiles the whole program again for every input (the file,
//! the session's definitions and the input), but the values the session
//! keeps refer to supercombinators, constructors, strings and integers by
//! number. So the session's program only grows: each new program is linked
//! into it, and a part of the new program that is *the same* as a part
//! already there takes that part's number, so that the values made by
//! earlier evaluations stay meaningful and a CAF evaluated before keeps its
//! value (a global of the same number is the same code).
//!
//! "The same" is decided by name, then checked: a supercombinator (or a
//! global) of the new program is matched with the newest one of its name in
//! the session, and the match holds if their code is equal once the new
//! program's numbers are replaced by the matched ones. A match that fails
//! changes the numbers that other code refers to, so the check runs again
//! until no match fails (at most a few rounds: a redefinition invalidates
//! what calls it, and what calls that). What is left is a set of matches
//! under which every matched piece of code is literally the code it
//! replaces: sharing it is sound. Constructors match by name, tag, arity
//! and siblings; strings and integers by value.

use crate::code::{ConId, Global, GlobalId, Program, Renumber, ScId};
use num_bigint::BigInt;
use std::collections::HashMap;

/// The session's program and its indexes.
#[derive(Default)]
pub struct Linker {
    pub program: Program,
    cons: HashMap<(String, u32, u32, u32), u32>,
    scs: HashMap<String, ScId>,
    globals: HashMap<String, GlobalId>,
    strings: HashMap<String, u32>,
    integers: HashMap<BigInt, u32>,
}

/// Where a linked program's parts went.
pub struct Linked {
    /// The new number of each of the program's globals.
    pub globals: Vec<GlobalId>,
    /// How many of its supercombinators were new.
    pub new_scs: usize,
}

impl Linker {
    /// Links `p` in; the session's `main` becomes `p`'s.
    pub fn link(&mut self, p: &Program) -> Result<Linked, String> {
        crate::validate::validate(p).map_err(|e| format!("invalid code: {}", e.join("; ")))?;
        let con: Vec<ConId> = p.cons.iter().map(|c| self.con(c)).collect();
        let string: Vec<u32> = p.strings.iter().map(|s| self.string(s)).collect();
        let integer: Vec<u32> = p.integers.iter().map(|i| self.integer(i)).collect();
        // Candidate matches by name, then dropped until every one holds.
        let mut sc_match: Vec<Option<ScId>> = p
            .scs
            .iter()
            .map(|s| self.scs.get(&s.name).copied())
            .collect();
        let mut g_match: Vec<Option<GlobalId>> = p
            .global_names
            .iter()
            .map(|n| self.globals.get(n).copied())
            .collect();
        loop {
            let sc = numbering(&sc_match, self.program.scs.len(), ScId);
            let global = numbering(&g_match, self.program.globals.len(), GlobalId);
            let r = Renumber {
                sc: &sc,
                con: &con,
                global: &global,
                string: &string,
                integer: &integer,
            };
            let mut changed = false;
            for (i, m) in sc_match.iter_mut().enumerate() {
                let Some(j) = *m else { continue };
                let mine = &self.program.scs[j.0 as usize];
                let new = &p.scs[i];
                let same = mine.kind == new.kind
                    && mine.arity == new.arity
                    && mine.varity == new.varity
                    && mine.nregs == new.nregs
                    && mine.nvregs == new.nvregs
                    && mine.returns == new.returns
                    && mine.code.len() == new.code.len()
                    && mine
                        .code
                        .iter()
                        .zip(&new.code)
                        .all(|(a, b)| *a == b.renumbered(&r));
                if !same {
                    *m = None;
                    changed = true;
                }
            }
            for (i, m) in g_match.iter_mut().enumerate() {
                let Some(j) = *m else { continue };
                let same = match (&self.program.globals[j.0 as usize], &p.globals[i]) {
                    (Global::Fun(a), Global::Fun(b)) | (Global::Caf(a), Global::Caf(b)) => {
                        *a == sc[b.0 as usize]
                    }
                    _ => false,
                };
                if !same {
                    *m = None;
                    changed = true;
                }
            }
            if changed {
                continue;
            }
            // Append what is new, renumbered.
            let mut new_scs = 0;
            for (i, s) in p.scs.iter().enumerate() {
                if sc_match[i].is_none() {
                    let mut s = s.clone();
                    s.code = s.code.iter().map(|x| x.renumbered(&r)).collect();
                    self.scs.insert(s.name.clone(), sc[i]);
                    self.program.scs.push(s);
                    new_scs += 1;
                }
            }
            for (i, g) in p.globals.iter().enumerate() {
                if g_match[i].is_none() {
                    let g = match g {
                        Global::Fun(s) => Global::Fun(sc[s.0 as usize]),
                        Global::Caf(s) => Global::Caf(sc[s.0 as usize]),
                    };
                    let name = p.global_names.get(i).cloned().unwrap_or_default();
                    self.globals.insert(name.clone(), global[i]);
                    self.program.globals.push(g);
                    self.program.global_names.push(name);
                }
            }
            self.program.main = p.main.map(|m| global[m.0 as usize]);
            return Ok(Linked {
                globals: global,
                new_scs,
            });
        }
    }

    fn con(&mut self, c: &crate::code::ConInfo) -> ConId {
        let key = (c.name.clone(), c.tag, c.arity, c.siblings);
        ConId(intern(&mut self.cons, &mut self.program.cons, key, || {
            c.clone()
        }))
    }

    fn string(&mut self, s: &str) -> u32 {
        intern(
            &mut self.strings,
            &mut self.program.strings,
            s.to_string(),
            || s.to_string(),
        )
    }

    fn integer(&mut self, n: &BigInt) -> u32 {
        intern(
            &mut self.integers,
            &mut self.program.integers,
            n.clone(),
            || n.clone(),
        )
    }

    /// The session's supercombinator of this name (the newest one).
    pub fn sc(&self, name: &str) -> Option<ScId> {
        self.scs.get(name).copied()
    }

    /// The session's global of this name (the newest one).
    pub fn global(&self, name: &str) -> Option<GlobalId> {
        self.globals.get(name).copied()
    }
}

/// The numbers under these matches: a matched entry keeps its match, the
/// others are numbered from `base` in order.
fn numbering<T: Copy>(matches: &[Option<T>], base: usize, make: fn(u32) -> T) -> Vec<T> {
    let mut next = base as u32;
    matches
        .iter()
        .map(|m| {
            m.unwrap_or_else(|| {
                next += 1;
                make(next - 1)
            })
        })
        .collect()
}

/// The index of `key`'s entry in `table`, which gets `make()` when the key
/// is new (constructors, strings and integers are each kept once).
fn intern<K: std::hash::Hash + Eq, T>(
    map: &mut HashMap<K, u32>,
    table: &mut Vec<T>,
    key: K,
    make: impl FnOnce() -> T,
) -> u32 {
    *map.entry(key).or_insert_with(|| {
        table.push(make());
        (table.len() - 1) as u32
    })
}
