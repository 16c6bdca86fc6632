//! Lambda lifting: Core (simplified) → supercombinators.
//!
//! Every top-level binding becomes a supercombinator of the same name: a
//! function (`ScKind::Fun`) when it is a lambda, after arity analysis (a
//! binding `f = g a` where `g` is a known function of arity 3 is
//! eta-expanded to `f = \x y -> g a x y`, and nested lambdas are merged), a
//! constant (`ScKind::Caf`) otherwise.
//!
//! Inside a body:
//!
//! * a lambda becomes a new supercombinator `top$lN` of kind `Fun` whose
//!   leading parameters are the lambda's free variables, and the lambda is
//!   replaced by the (partial) application `top$lN fv1 .. fvk`;
//! * an expression in a lazy position (an argument, the right-hand side of
//!   a `let`) that cannot simply be allocated becomes a new supercombinator
//!   `top$tN` of kind `Thunk` whose parameters are its free variables, and
//!   is replaced by `top$tN fv1 .. fvk`. The parameters are the very
//!   variables of the enclosing scope, so the code generator can also
//!   compile a thunk's body in place when the value is needed at once
//!   (strict arguments, strict `let`s).
//!
//! "Can simply be allocated" ([`Lifter::is_alloc`]): variables, literals,
//! globals, constructors, saturated constructor applications without
//! strict fields, partial applications of known functions, and thunk
//! applications, with allocatable arguments.
//!
//! After lifting, supercombinator bodies contain no lambda, and every
//! supercombinator is closed: its free variables are its parameters.

use crate::back::prims;
use crate::core::{Bind, DataType, Expr, Var};
use gph_code::ScKind;
use gph_syntax::lexer::Sym;
use std::collections::{HashMap, HashSet};
use std::fmt;

#[derive(Clone, Debug)]
pub struct ScDef {
    pub name: Sym,
    pub kind: ScKind,
    pub params: Vec<Var>,
    pub body: Expr,
    /// The top-level binding this supercombinator was lifted out of.
    pub parent: Sym,
}

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub data: Vec<DataType>,
    pub prims: Vec<(Sym, Sym, usize)>,
    pub scs: Vec<ScDef>,
    /// Supercombinator by name.
    pub index: HashMap<Sym, usize>,
}

impl Program {
    pub fn sc(&self, name: &str) -> Option<&ScDef> {
        self.index.get(name).map(|&i| &self.scs[i])
    }
}

/// What is known about a global name while lifting and generating code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalKind {
    /// A function of this arity (a supercombinator, a primitive wrapper).
    Fun(usize),
    Caf,
    Thunk,
}

/// The arities of constructors and whether they have strict fields.
pub fn constructors(data: &[DataType]) -> HashMap<Sym, (usize, bool)> {
    let mut m = HashMap::new();
    for d in data {
        for c in &d.constrs {
            m.insert(c.name.clone(), (c.arity, c.strict.iter().any(|s| *s)));
        }
    }
    m
}

/// Free variables of an expression, in order of first occurrence.
pub fn free_vars(e: &Expr) -> Vec<Var> {
    fn go(e: &Expr, bound: &mut Vec<u32>, seen: &mut HashSet<u32>, out: &mut Vec<Var>) {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(v) => {
                if !bound.contains(&v.id) && seen.insert(v.id) {
                    out.push(v.clone());
                }
            }
            Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => {}
            Expr::App(f, args) => {
                go(f, bound, seen, out);
                for a in args {
                    go(a, bound, seen, out);
                }
            }
            Expr::Lam(vs, b) => {
                let m = bound.len();
                bound.extend(vs.iter().map(|v| v.id));
                go(b, bound, seen, out);
                bound.truncate(m);
            }
            Expr::Let(b, body) => {
                let m = bound.len();
                match &**b {
                    Bind::NonRec(v, rhs) => {
                        go(rhs, bound, seen, out);
                        bound.push(v.id);
                    }
                    Bind::Rec(bs) => {
                        bound.extend(bs.iter().map(|(v, _)| v.id));
                        for (_, rhs) in bs {
                            go(rhs, bound, seen, out);
                        }
                    }
                }
                go(body, bound, seen, out);
                bound.truncate(m);
            }
            Expr::Case(s, b, alts, def) => {
                go(s, bound, seen, out);
                let m = bound.len();
                bound.push(b.id);
                for a in alts {
                    let m2 = bound.len();
                    bound.extend(a.vars.iter().map(|v| v.id));
                    go(&a.body, bound, seen, out);
                    bound.truncate(m2);
                }
                if let Some(d) = def {
                    go(d, bound, seen, out);
                }
                bound.truncate(m);
            }
        }
    }
    let mut out = Vec::new();
    go(e, &mut Vec::new(), &mut HashSet::new(), &mut out);
    out
}

pub struct Lifter<'a> {
    pub kinds: HashMap<Sym, GlobalKind>,
    pub cons: &'a HashMap<Sym, (usize, bool)>,
    scs: Vec<ScDef>,
    top: Sym,
    counter: usize,
}

impl Lifter<'_> {
    /// Whether an expression can be built without evaluating anything.
    pub fn is_alloc(&self, e: &Expr) -> bool {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(_) | Expr::Lit(_) | Expr::Global(_) | Expr::Con(_) => true,
            Expr::App(f, args) => {
                let args_ok = args.iter().all(|a| self.is_alloc(a));
                match &**f {
                    Expr::Global(g) => match self.kinds.get(g) {
                        Some(GlobalKind::Fun(n)) => args.len() < *n && args_ok,
                        Some(GlobalKind::Thunk) => args_ok,
                        _ => false,
                    },
                    Expr::Con(c) => match self.cons.get(c) {
                        Some((n, strict)) => {
                            args_ok && (args.len() < *n || (args.len() == *n && !*strict))
                        }
                        None => false,
                    },
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// `top$l1`, `top$t2`, ...: numbered within the top-level binding, so
    /// that its names do not depend on what else is compiled (the REPL
    /// links code by name), and past any name the program has already (a
    /// binding the simplifier floated out of `top` may be `top$t2`).
    fn fresh_name(&mut self, what: &str) -> Sym {
        loop {
            self.counter += 1;
            let name = Sym::from(format!("{}${}{}", self.top, what, self.counter));
            if !self.kinds.contains_key(&name) {
                return name;
            }
        }
    }

    fn new_sc(&mut self, what: &str, kind: ScKind, params: Vec<Var>, body: Expr) -> Sym {
        let name = self.fresh_name(what);
        if let ScKind::Fun = kind {
            self.kinds
                .insert(name.clone(), GlobalKind::Fun(params.len()));
        } else {
            self.kinds.insert(name.clone(), GlobalKind::Thunk);
        }
        self.scs.push(ScDef {
            name: name.clone(),
            kind,
            params,
            body,
            parent: self.top.clone(),
        });
        name
    }

    fn applied(name: Sym, fvs: &[Var]) -> Expr {
        Expr::app(
            Expr::Global(name),
            fvs.iter().map(|v| Expr::Local(v.clone())).collect(),
        )
    }

    /// A lambda as a partial application of a new function.
    fn lambda(&mut self, vs: &[Var], body: &Expr) -> Expr {
        let (mut params, body) = merge_lams(vs, body);
        let body = self.strict(body);
        let fvs: Vec<Var> = free_vars(&body)
            .into_iter()
            .filter(|v| !params.iter().any(|p| p.id == v.id))
            .collect();
        let mut all = fvs.clone();
        all.append(&mut params);
        let name = self.new_sc("l", ScKind::Fun, all, body);
        Self::applied(name, &fvs)
    }

    /// An expression in a lazy position.
    fn lazy(&mut self, e: &Expr) -> Expr {
        gph_syntax::stack::guard();
        if let Expr::Lam(vs, b) = e {
            return self.lambda(vs, b);
        }
        let e = match e {
            // Keep allocatable applications, lifting their arguments.
            Expr::App(f, args) if matches!(**f, Expr::Global(_) | Expr::Con(_)) => {
                let args: Vec<Expr> = args.iter().map(|a| self.lazy(a)).collect();
                let app = Expr::App(f.clone(), args);
                if self.is_alloc(&app) {
                    return app;
                }
                // Not allocatable: lift the original (args become thunks
                // inside the thunk).
                app
            }
            _ => self.strict(e),
        };
        if self.is_alloc(&e) {
            return e;
        }
        let fvs = free_vars(&e);
        let name = self.new_sc("t", ScKind::Thunk, fvs.clone(), e);
        Self::applied(name, &fvs)
    }

    /// An expression in a strict position (evaluated when reached).
    fn strict(&mut self, e: &Expr) -> Expr {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => e.clone(),
            Expr::App(f, args) => {
                let f = self.strict(f);
                let args = args.iter().map(|a| self.lazy(a)).collect();
                Expr::app(f, args)
            }
            Expr::Lam(vs, b) => self.lambda(vs, b),
            Expr::Let(b, body) if has_local_function(b) => self.local_functions(b, body),
            Expr::Let(b, body) => {
                let b = match &**b {
                    Bind::NonRec(v, rhs) => Bind::NonRec(v.clone(), self.lazy(rhs)),
                    Bind::Rec(bs) => Bind::Rec(
                        bs.iter()
                            .map(|(v, rhs)| {
                                let r = match rhs {
                                    // `letrec x = y`: a thunk, never an alias.
                                    Expr::Local(_) => {
                                        let fvs = free_vars(rhs);
                                        let name = self.new_sc(
                                            "t",
                                            ScKind::Thunk,
                                            fvs.clone(),
                                            rhs.clone(),
                                        );
                                        Self::applied(name, &fvs)
                                    }
                                    _ => self.lazy(rhs),
                                };
                                (v.clone(), r)
                            })
                            .collect(),
                    ),
                };
                Expr::Let(Box::new(b), Box::new(self.strict(body)))
            }
            Expr::Case(..) => e.map_children(|x| self.strict(x)),
        }
    }
}

fn has_local_function(b: &Bind) -> bool {
    match b {
        Bind::NonRec(_, e) => matches!(e, Expr::Lam(..)),
        Bind::Rec(bs) => bs.iter().any(|(_, e)| matches!(e, Expr::Lam(..))),
    }
}

impl Lifter<'_> {
    /// `let`-bound functions are lifted Johnsson-style: each becomes a
    /// supercombinator whose leading parameters are its free variables
    /// (with those of the functions of its group it calls), and every
    /// saturated call in scope becomes a known call of it with those
    /// variables passed (other occurrences become partial applications).
    fn local_functions(&mut self, b: &Bind, body: &Expr) -> Expr {
        let (bs, rec) = match b {
            Bind::NonRec(v, e) => (vec![(v.clone(), e.clone())], false),
            Bind::Rec(bs) => (bs.clone(), true),
        };
        let funs: Vec<(Var, Vec<Var>, Expr)> = bs
            .iter()
            .filter_map(|(v, e)| match e {
                Expr::Lam(ps, b) => {
                    let (ps, b) = merge_lams(ps, b);
                    Some((v.clone(), ps, b.clone()))
                }
                _ => None,
            })
            .collect();
        let names: HashSet<u32> = funs.iter().map(|(v, _, _)| v.id).collect();
        // Free variables, closed over the calls within the group.
        let mut fvs: Vec<Vec<Var>> = Vec::new();
        let mut refs: Vec<Vec<usize>> = Vec::new();
        for (_, ps, b) in &funs {
            let all = free_vars(&Expr::Lam(ps.clone(), Box::new(b.clone())));
            fvs.push(
                all.iter()
                    .filter(|v| !names.contains(&v.id))
                    .cloned()
                    .collect(),
            );
            refs.push(
                all.iter()
                    .filter_map(|v| funs.iter().position(|(f, _, _)| f.id == v.id))
                    .collect(),
            );
        }
        loop {
            let mut changed = false;
            for i in 0..funs.len() {
                for &j in &refs[i].clone() {
                    for v in fvs[j].clone() {
                        if !fvs[i].iter().any(|w| w.id == v.id) {
                            fvs[i].push(v);
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut table: HashMap<u32, (Sym, Vec<Var>, usize)> = HashMap::new();
        for (i, (f, ps, _)) in funs.iter().enumerate() {
            let name = self.fresh_name("l");
            self.kinds
                .insert(name.clone(), GlobalKind::Fun(fvs[i].len() + ps.len()));
            table.insert(f.id, (name, fvs[i].clone(), ps.len()));
        }
        for (f, ps, b) in &funs {
            let (name, fv, _) = table[&f.id].clone();
            let b = rewrite_calls(b, &table);
            let b = self.strict(&b);
            let mut params = fv.clone();
            params.extend(ps.iter().cloned());
            self.scs.push(ScDef {
                name,
                kind: ScKind::Fun,
                params,
                body: b,
                parent: self.top.clone(),
            });
        }
        let rest: Vec<(Var, Expr)> = bs
            .iter()
            .filter(|(v, _)| !names.contains(&v.id))
            .map(|(v, e)| (v.clone(), rewrite_calls(e, &table)))
            .collect();
        let body = rewrite_calls(body, &table);
        let e = if rest.is_empty() {
            body
        } else if rec {
            Expr::Let(Box::new(Bind::Rec(rest)), Box::new(body))
        } else {
            let (v, e) = rest.into_iter().next().unwrap();
            Expr::Let(Box::new(Bind::NonRec(v, e)), Box::new(body))
        };
        self.strict(&e)
    }
}

/// Replaces calls of lifted local functions by known calls.
fn rewrite_calls(e: &Expr, t: &HashMap<u32, (Sym, Vec<Var>, usize)>) -> Expr {
    gph_syntax::stack::guard();
    let rec = |x: &Expr| rewrite_calls(x, t);
    let head = |id: u32| -> Option<Expr> {
        let (name, fv, _) = t.get(&id)?;
        Some(Expr::app(
            Expr::Global(name.clone()),
            fv.iter().map(|v| Expr::Local(v.clone())).collect(),
        ))
    };
    match e {
        Expr::Local(v) => head(v.id).unwrap_or_else(|| e.clone()),
        Expr::App(f, args) => {
            let args: Vec<Expr> = args.iter().map(rec).collect();
            Expr::app(rec(f), args)
        }
        _ => e.map_children(rec),
    }
}

/// The parameters of nested lambdas, and the body inside them (borrowed:
/// a copy at each of 2,000 nested lambdas was quadratic).
fn merge_lams<'e>(vs: &[Var], body: &'e Expr) -> (Vec<Var>, &'e Expr) {
    let mut params = vs.to_vec();
    let mut body = body;
    while let Expr::Lam(more, b) = body {
        params.extend(more.iter().cloned());
        body = b;
    }
    (params, body)
}

/// The arity of each top-level binding, with eta-expansion of partial
/// applications of known functions (to a fixed point).
fn arities(
    binds: &[(Sym, Expr)],
    prims: &[(Sym, Sym, usize)],
    cons: &HashMap<Sym, (usize, bool)>,
) -> HashMap<Sym, GlobalKind> {
    let mut kinds: HashMap<Sym, GlobalKind> = HashMap::new();
    for (orig, name, _) in prims {
        if let Some(p) = prims::lookup(name) {
            kinds.insert(
                orig.clone(),
                if p.arity() == 0 {
                    GlobalKind::Caf
                } else {
                    GlobalKind::Fun(p.arity())
                },
            );
        }
    }
    for (n, e) in binds {
        let k = match e {
            Expr::Lam(vs, b) => GlobalKind::Fun(merge_lams(vs, b).0.len()),
            _ => GlobalKind::Caf,
        };
        kinds.insert(n.clone(), k);
    }
    loop {
        let mut changed = false;
        for (n, e) in binds {
            if kinds.get(n) != Some(&GlobalKind::Caf) {
                continue;
            }
            if let Some(extra) = eta_extra(e, &kinds, cons) {
                kinds.insert(n.clone(), GlobalKind::Fun(extra));
                changed = true;
            }
        }
        if !changed {
            return kinds;
        }
    }
}

/// How many parameters eta-expanding a constant would add: for a partial
/// application of a known function to atoms.
fn eta_extra(
    e: &Expr,
    kinds: &HashMap<Sym, GlobalKind>,
    cons: &HashMap<Sym, (usize, bool)>,
) -> Option<usize> {
    let (f, args): (&Expr, &[Expr]) = match e {
        Expr::App(f, args) => (f, args),
        f => (f, &[]),
    };
    let arity = match f {
        Expr::Global(g) => match kinds.get(g) {
            Some(GlobalKind::Fun(n)) => *n,
            _ => return None,
        },
        Expr::Con(c) => cons.get(c).map(|(n, _)| *n)?,
        _ => return None,
    };
    let atoms = args.iter().all(|a| {
        matches!(
            a,
            Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_)
        )
    });
    (atoms && args.len() < arity).then(|| arity - args.len())
}

/// Lifts a whole program. Variables must be unique (as the simplifier
/// leaves them); `next_var` is larger than every variable number used.
pub fn lift(program: &crate::core::Program, next_var: &mut u32) -> Program {
    let cons = constructors(&program.data);
    let kinds = arities(&program.binds, &program.prims, &cons);
    let mut lifter = Lifter {
        kinds,
        cons: &cons,
        scs: Vec::new(),
        top: Sym::from(""),
        counter: 0,
    };
    for (name, e) in &program.binds {
        lifter.top = name.clone();
        lifter.counter = 0;
        let (params, body) = match (lifter.kinds[name], e) {
            (GlobalKind::Fun(_), Expr::Lam(vs, b)) => {
                let (ps, b) = merge_lams(vs, b);
                (ps, b.clone())
            }
            (GlobalKind::Fun(n), _) => {
                let extra: Vec<Var> = (0..n)
                    .map(|_| {
                        *next_var += 1;
                        Var {
                            name: Sym::from("eta"),
                            id: *next_var,
                        }
                    })
                    .collect();
                let body = Expr::app(
                    e.clone(),
                    extra.iter().map(|v| Expr::Local(v.clone())).collect(),
                );
                (extra, body)
            }
            _ => (Vec::new(), e.clone()),
        };
        let body = lifter.strict(&body);
        let kind = if params.is_empty() {
            ScKind::Caf
        } else {
            ScKind::Fun
        };
        lifter.scs.push(ScDef {
            name: name.clone(),
            kind,
            params,
            body,
            parent: name.clone(),
        });
    }
    let scs = lifter.scs;
    let index = scs
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    Program {
        data: program.data.clone(),
        prims: program.prims.clone(),
        scs,
        index,
    }
}

impl fmt::Display for ScDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = self.params.iter().map(|v| v.to_string()).collect();
        let body = crate::core::show_expr(&self.body).replace('\n', "\n  ");
        writeln!(
            f,
            "{} ({:?}) {} =\n  {}\n",
            self.name,
            self.kind,
            params.join(" "),
            body
        )
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for sc in &self.scs {
            write!(f, "{sc}")?;
        }
        Ok(())
    }
}
