//! Core-to-Core simplification (see `simplify` for the transformations).

use crate::core::{Alt, Bind, Expr, Program, Var};
use std::collections::HashMap;

/// Renames every bound variable of the program so that all are distinct
/// (the passes after this one rely on it). Returns the next free number.
pub fn renumber(p: &mut Program) -> u32 {
    let mut next = 0;
    for (_, e) in &mut p.binds {
        let mut r = Renamer {
            next: &mut next,
            map: HashMap::new(),
        };
        *e = r.expr(e);
    }
    next + 1
}

pub struct Renamer<'a> {
    pub next: &'a mut u32,
    pub map: HashMap<u32, u32>,
}

impl Renamer<'_> {
    fn fresh(&mut self, v: &Var) -> Var {
        *self.next += 1;
        self.map.insert(v.id, *self.next);
        Var {
            name: v.name.clone(),
            id: *self.next,
        }
    }

    pub fn expr(&mut self, e: &Expr) -> Expr {
        match e {
            Expr::Local(v) => Expr::Local(Var {
                name: v.name.clone(),
                id: self.map.get(&v.id).copied().unwrap_or(v.id),
            }),
            Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => e.clone(),
            Expr::App(f, args) => Expr::App(
                Box::new(self.expr(f)),
                args.iter().map(|a| self.expr(a)).collect(),
            ),
            Expr::Lam(vs, b) => {
                let vs = vs.iter().map(|v| self.fresh(v)).collect();
                Expr::Lam(vs, Box::new(self.expr(b)))
            }
            Expr::Let(b, body) => {
                let b = match &**b {
                    Bind::NonRec(v, rhs) => {
                        let rhs = self.expr(rhs);
                        Bind::NonRec(self.fresh(v), rhs)
                    }
                    Bind::Rec(bs) => {
                        let vs: Vec<Var> = bs.iter().map(|(v, _)| self.fresh(v)).collect();
                        Bind::Rec(
                            vs.into_iter()
                                .zip(bs)
                                .map(|(v, (_, rhs))| (v, self.expr(rhs)))
                                .collect(),
                        )
                    }
                };
                Expr::Let(Box::new(b), Box::new(self.expr(body)))
            }
            Expr::Case(s, b, alts, def) => {
                let s = self.expr(s);
                let b = self.fresh(b);
                let alts = alts
                    .iter()
                    .map(|a| {
                        let vars = a.vars.iter().map(|v| self.fresh(v)).collect();
                        Alt {
                            con: a.con.clone(),
                            vars,
                            body: self.expr(&a.body),
                        }
                    })
                    .collect();
                let def = def.as_ref().map(|d| Box::new(self.expr(d)));
                Expr::Case(Box::new(s), b, alts, def)
            }
        }
    }
}

/// Simplifies a program; returns the next free variable number.
pub fn simplify(p: &mut Program) -> u32 {
    renumber(p)
}
