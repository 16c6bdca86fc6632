//! Core Lint: the invariants every Core-to-Core pass must keep, checked
//! after each of them (as GHC's `-dcore-lint`). It runs in debug builds
//! (so in every test) and with `gph run --lint` / `gph dump --lint`.
//!
//! Checked on Core (after desugaring, each simplifier round, fusion):
//! * scope: every `Local` is bound by an enclosing lambda, `let`, case
//!   binder or alternative; every `Global` names a top-level binding or a
//!   primitive; every `Con` a constructor; no top-level name twice;
//! * binders: no variable twice in one lambda or `letrec`, and, once
//!   [`crate::core::simplify::prepare`] has renamed the program apart, no
//!   variable bound twice anywhere (the later passes substitute without
//!   renaming);
//! * constructors: applied to at most their arity; the alternatives of a
//!   `case` are constructors of one data type, each once, with one
//!   variable per field, or literals of one kind, each once; a scrutinee
//!   whose constructor or literal kind is visible (`case Just x of`,
//!   `case primIntAdd a b of`) matches its alternatives;
//! * primitives: an argument whose kind is visible (a literal, a
//!   constructor, a saturated primitive) is of the kind the primitive
//!   takes (an `Int` where it takes an `Int`, never a constructor).
//!
//! And on the lifted program (after lambda lifting and strictness): every
//! supercombinator is closed (its free variables are its parameters) and
//! has no lambda left, its strictness flags and its worker have one entry
//! per parameter.
//!
//! Core is untyped: Lint cannot see a dictionary of the wrong instance
//! (docs/backend.md says why Core stays untyped; differential testing
//! against `-O0` and GHC covers what types would).

use crate::back::lift;
use crate::back::prims::{self, Ty};
use crate::back::strictness::Info;
use crate::core::{AltCon, Bind, Expr, Lit, Program, Var};
use std::collections::{HashMap, HashSet};

/// A broken invariant: which pass left it, in which binding, and what.
#[derive(Debug, Clone)]
pub struct LintError {
    pub pass: String,
    pub binding: String,
    pub problem: String,
}

impl std::fmt::Display for LintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Core Lint after {}: in `{}`: {}",
            self.pass, self.binding, self.problem
        )
    }
}

/// The constructor of `True`, whose type primitives' `Bool` results have.
const BOOL_TRUE: &str = "Gph.Prim.True";

/// What an expression is known to evaluate to, for the kind checks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape<'a> {
    /// A value of this data type (a constructor application).
    Data(&'a str),
    /// An unboxed-kind value (a literal, a primitive's result).
    Prim(Ty),
    Unknown,
}

struct Checker<'a> {
    globals: HashSet<&'a str>,
    /// Constructor → (arity, data type).
    cons: HashMap<&'a str, (usize, &'a str)>,
    /// Primitive (by its original name) → its argument and result kinds.
    prims: HashMap<&'a str, (Vec<Ty>, Ty)>,
    /// Variables in scope, by number.
    scope: HashMap<u32, usize>,
    /// Every variable bound so far (for uniqueness), when checked.
    bound: Option<HashSet<u32>>,
    /// No lambda may remain (lifted code).
    lifted: bool,
    /// The data type primitives' `Bool` results are constructors of.
    bool_ty: Option<&'a str>,
}

impl<'a> Checker<'a> {
    fn new(
        data: &'a [crate::core::DataType],
        prim_list: &'a [(gph_syntax::lexer::Sym, gph_syntax::lexer::Sym, usize)],
        globals: impl Iterator<Item = &'a str>,
        unique: bool,
    ) -> Result<Self, String> {
        let mut g = HashSet::new();
        for n in globals {
            if !g.insert(n) {
                return Err(format!("top-level `{n}` defined twice"));
            }
        }
        let mut prims = HashMap::new();
        for (n, rt, _) in prim_list {
            if !g.insert(&**n) {
                return Err(format!("primitive `{n}` defined twice"));
            }
            if let Some(info) = prims::lookup(rt) {
                prims.insert(&**n, (info.args.clone(), info.ret));
            }
        }
        let mut cons = HashMap::new();
        for d in data {
            for c in &d.constrs {
                if c.strict.len() != c.arity {
                    return Err(format!(
                        "constructor `{}`: strictness of {} fields, arity {}",
                        c.name,
                        c.strict.len(),
                        c.arity
                    ));
                }
                if cons.insert(&*c.name, (c.arity, &*d.name)).is_some() {
                    return Err(format!("constructor `{}` defined twice", c.name));
                }
            }
        }
        let bool_ty = cons.get(BOOL_TRUE).map(|(_, d)| *d);
        Ok(Checker {
            bool_ty,
            globals: g,
            cons,
            prims,
            scope: HashMap::new(),
            bound: unique.then(HashSet::new),
            lifted: false,
        })
    }

    fn bind(&mut self, v: &Var) -> Result<(), String> {
        if let Some(b) = &mut self.bound {
            if !b.insert(v.id) {
                return Err(format!("`{v}` is bound twice (variables must be unique)"));
            }
        }
        *self.scope.entry(v.id).or_insert(0) += 1;
        Ok(())
    }

    fn unbind(&mut self, v: &Var) {
        if let Some(n) = self.scope.get_mut(&v.id) {
            *n -= 1;
            if *n == 0 {
                self.scope.remove(&v.id);
            }
        }
    }

    fn distinct(vs: &[Var], what: &str) -> Result<(), String> {
        let mut seen = HashSet::new();
        for v in vs {
            if !seen.insert(v.id) {
                return Err(format!("`{v}` bound twice in one {what}"));
            }
        }
        Ok(())
    }

    fn lit_ty(l: &Lit) -> Ty {
        match l {
            Lit::Int(_) => Ty::Int,
            Lit::Integer(_) => Ty::Integer,
            Lit::Double(_) => Ty::Double,
            Lit::Char(_) => Ty::Char,
            Lit::Str(_) => Ty::Any,
        }
    }

    /// What `e` evaluates to, where that is visible without evaluating.
    fn shape(&self, e: &Expr) -> Shape<'a> {
        match e {
            Expr::Lit(l) => Shape::Prim(Self::lit_ty(l)),
            Expr::Con(c) => match self.cons.get(&**c) {
                Some((0, d)) => Shape::Data(d),
                _ => Shape::Unknown,
            },
            Expr::App(f, args) => match &**f {
                Expr::Con(c) => match self.cons.get(&**c) {
                    Some((n, d)) if *n == args.len() => Shape::Data(d),
                    _ => Shape::Unknown,
                },
                Expr::Global(g) => match self.prims.get(&**g) {
                    Some((ps, r)) if ps.len() == args.len() && *r != Ty::Any => Shape::Prim(*r),
                    _ => Shape::Unknown,
                },
                _ => Shape::Unknown,
            },
            _ => Shape::Unknown,
        }
    }

    fn expr(&mut self, e: &Expr) -> Result<(), String> {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(v) => {
                if self.scope.contains_key(&v.id) {
                    Ok(())
                } else {
                    Err(format!("`{v}` is not in scope"))
                }
            }
            Expr::Global(g) => {
                if self.globals.contains(&**g) {
                    Ok(())
                } else {
                    Err(format!("unknown global `{g}`"))
                }
            }
            Expr::Con(c) => {
                if self.cons.contains_key(&**c) {
                    Ok(())
                } else {
                    Err(format!("unknown constructor `{c}`"))
                }
            }
            Expr::Lit(_) => Ok(()),
            Expr::App(f, args) => {
                if args.is_empty() {
                    return Err("an application to no arguments".into());
                }
                match &**f {
                    Expr::Con(c) => {
                        if let Some((n, _)) = self.cons.get(&**c) {
                            if args.len() > *n {
                                return Err(format!(
                                    "constructor `{c}` of arity {n} applied to {} arguments",
                                    args.len()
                                ));
                            }
                        }
                    }
                    Expr::Global(g) => {
                        if let Some((ps, _)) = self.prims.get(&**g) {
                            for (i, (a, t)) in args.iter().zip(ps).enumerate() {
                                self.prim_arg(g, i, a, *t)?;
                            }
                        }
                    }
                    _ => {}
                }
                self.expr(f)?;
                args.iter().try_for_each(|a| self.expr(a))
            }
            Expr::Lam(vs, b) => {
                if self.lifted {
                    return Err("a lambda is left after lambda lifting".into());
                }
                if vs.is_empty() {
                    return Err("a lambda without parameters".into());
                }
                Self::distinct(vs, "lambda")?;
                for v in vs {
                    self.bind(v)?;
                }
                let r = self.expr(b);
                vs.iter().for_each(|v| self.unbind(v));
                r
            }
            Expr::Let(b, body) => match &**b {
                Bind::NonRec(v, rhs) => {
                    self.expr(rhs)?;
                    self.bind(v)?;
                    let r = self.expr(body);
                    self.unbind(v);
                    r
                }
                Bind::Rec(bs) => {
                    let vs: Vec<Var> = bs.iter().map(|(v, _)| v.clone()).collect();
                    Self::distinct(&vs, "letrec")?;
                    for v in &vs {
                        self.bind(v)?;
                    }
                    let r = bs
                        .iter()
                        .try_for_each(|(_, rhs)| self.expr(rhs))
                        .and_then(|()| self.expr(body));
                    vs.iter().for_each(|v| self.unbind(v));
                    r
                }
            },
            Expr::Case(s, b, alts, def) => {
                self.expr(s)?;
                self.alts_agree(s, alts)?;
                self.bind(b)?;
                let mut r = Ok(());
                for a in alts {
                    Self::distinct(&a.vars, "alternative")?;
                    for v in &a.vars {
                        self.bind(v)?;
                    }
                    r = self.expr(&a.body);
                    a.vars.iter().for_each(|v| self.unbind(v));
                    if r.is_err() {
                        break;
                    }
                }
                if r.is_ok() {
                    if let Some(d) = def {
                        r = self.expr(d);
                    }
                }
                self.unbind(b);
                r
            }
        }
    }

    fn prim_arg(&self, g: &str, i: usize, a: &Expr, want: Ty) -> Result<(), String> {
        let scalar = matches!(want, Ty::Int | Ty::Double | Ty::Char | Ty::Integer);
        let wrong = match self.shape(a) {
            Shape::Prim(t) => scalar && t != want && t != Ty::Any,
            Shape::Data(d) => scalar || (want == Ty::Bool && Some(d) != self.bool_ty),
            Shape::Unknown => false,
        };
        if wrong {
            return Err(format!(
                "primitive `{g}` takes {want:?} as argument {}, given `{}`",
                i + 1,
                crate::core::show_expr(a)
            ));
        }
        Ok(())
    }

    /// The alternatives of a case: constructors of one type (each with
    /// its fields) or literals of one kind, each once, agreeing with a
    /// scrutinee whose shape is visible.
    fn alts_agree(&self, s: &Expr, alts: &[crate::core::Alt]) -> Result<(), String> {
        let mut ty: Option<Shape> = None;
        let mut seen_cons = HashSet::new();
        let mut seen_lits: Vec<&Lit> = Vec::new();
        for a in alts {
            let this = match &a.con {
                AltCon::Con(c) => {
                    let Some((n, d)) = self.cons.get(&**c) else {
                        return Err(format!("alternative of unknown constructor `{c}`"));
                    };
                    if a.vars.len() != *n {
                        return Err(format!(
                            "alternative `{c}` binds {} variables, the constructor has {n} fields",
                            a.vars.len()
                        ));
                    }
                    if !seen_cons.insert(&**c) {
                        return Err(format!("two alternatives for `{c}`"));
                    }
                    Shape::Data(d)
                }
                AltCon::Lit(l) => {
                    if seen_lits.contains(&l) {
                        return Err(format!("two alternatives for the literal {l:?}"));
                    }
                    seen_lits.push(l);
                    Shape::Prim(Self::lit_ty(l))
                }
            };
            match ty {
                None => ty = Some(this),
                Some(t) if t == this => {}
                Some(t) => {
                    return Err(format!(
                        "alternatives of different types in one case ({t:?} and {this:?})"
                    ))
                }
            }
        }
        let shape = self.shape(s);
        if let (Some(t), false) = (ty, shape == Shape::Unknown) {
            // A string literal is a list; a literal alternative's kind
            // must be the scrutinee's.
            let agree = match (shape, t) {
                (Shape::Prim(Ty::Any), Shape::Data(_)) => true,
                (Shape::Prim(Ty::Bool), Shape::Data(d)) => Some(d) == self.bool_ty,
                (a, b) => a == b,
            };
            if !agree {
                return Err(format!(
                    "case of `{}` ({shape:?}) with alternatives of {t:?}",
                    crate::core::show_expr(s)
                ));
            }
        }
        Ok(())
    }
}

fn located(pass: &str, binding: &str, problem: String) -> LintError {
    LintError {
        pass: pass.to_string(),
        binding: binding.to_string(),
        problem,
    }
}

/// Checks a Core program after `pass`. `unique`: variables must be
/// unique across the program (after the renaming that starts the back end).
pub fn core(p: &Program, pass: &str, unique: bool) -> Result<(), LintError> {
    let mut c = Checker::new(&p.data, &p.prims, p.binds.iter().map(|(n, _)| &**n), unique)
        .map_err(|e| located(pass, "the program", e))?;
    for (n, e) in &p.binds {
        c.expr(e).map_err(|e| located(pass, n, e))?;
    }
    Ok(())
}

/// Checks the lifted program (and, when given, the strictness found for it).
pub fn lifted(p: &lift::Program, info: Option<&Info>, pass: &str) -> Result<(), LintError> {
    let mut c = Checker::new(&p.data, &p.prims, p.scs.iter().map(|s| &*s.name), false)
        .map_err(|e| located(pass, "the program", e))?;
    c.lifted = true;
    for sc in &p.scs {
        let at = |e: String| located(pass, &sc.name, e);
        Checker::distinct(&sc.params, "supercombinator").map_err(at)?;
        for v in &sc.params {
            c.bind(v).map_err(at)?;
        }
        let r = c.expr(&sc.body);
        sc.params.iter().for_each(|v| c.unbind(v));
        r.map_err(|e| {
            at(format!(
                "{e} (a supercombinator is closed over its parameters)"
            ))
        })?;
        if let Some(info) = info {
            if let Some(s) = info.strict.get(&sc.name) {
                if s.len() != sc.params.len() {
                    return Err(at(format!(
                        "strictness for {} parameters, the supercombinator has {}",
                        s.len(),
                        sc.params.len()
                    )));
                }
            }
            if let Some(w) = info.workers.get(&sc.name) {
                if w.params.len() != sc.params.len() {
                    return Err(at(format!(
                        "worker with {} parameters, its wrapper has {}",
                        w.params.len(),
                        sc.params.len()
                    )));
                }
            }
        }
    }
    if let Some(info) = info {
        for n in info.workers.keys() {
            if p.sc(n).is_none() {
                return Err(located(
                    pass,
                    n,
                    "a worker without a supercombinator".into(),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Alt, AltCon, Bind, Constr, DataType, Expr, Lit, Program, Var};
    use gph_syntax::lexer::Sym;

    fn lint(p: Program) -> Result<(), String> {
        core(&p, "test", false).map_err(|e| e.to_string())
    }

    fn var(n: &str, id: u32) -> Var {
        Var {
            name: Sym::from(n),
            id,
        }
    }

    fn program(e: Expr) -> Program {
        Program {
            data: vec![DataType {
                name: Sym::from("M.T"),
                constrs: vec![Constr {
                    name: Sym::from("M.K"),
                    arity: 2,
                    strict: vec![false, true],
                    refines: false,
                }],
            }],
            binds: vec![(Sym::from("M.f"), e)],
            prims: vec![(Sym::from("M.p"), Sym::from("intAdd"), 2)],
        }
    }

    fn case_k(vars: Vec<Var>, body: Expr) -> Expr {
        let x = var("x", 1);
        Expr::Lam(
            vec![x.clone()],
            Box::new(Expr::Case(
                Box::new(Expr::Local(x)),
                var("c", 2),
                vec![Alt {
                    con: AltCon::Con(Sym::from("M.K")),
                    vars,
                    body,
                }],
                None,
            )),
        )
    }

    #[test]
    fn closed_program_passes() {
        let e = case_k(
            vec![var("a", 3), var("b", 4)],
            Expr::app(
                Expr::global("M.p"),
                vec![
                    Expr::Local(var("a", 3)),
                    Expr::app(Expr::global("M.f"), vec![Expr::Local(var("c", 2))]),
                ],
            ),
        );
        assert_eq!(lint(program(e)), Ok(()));
    }

    #[test]
    fn unbound_names_and_wrong_arities_are_found() {
        let unbound_local = case_k(vec![var("a", 3), var("b", 4)], Expr::Local(var("a", 5)));
        assert!(lint(program(unbound_local))
            .unwrap_err()
            .contains("is not in scope"));
        let unbound_global = case_k(vec![var("a", 3), var("b", 4)], Expr::global("M.g"));
        assert!(lint(program(unbound_global))
            .unwrap_err()
            .contains("unknown global"));
        let arity = case_k(vec![var("a", 3)], Expr::Local(var("a", 3)));
        assert!(lint(program(arity)).unwrap_err().contains("has 2 fields"));
        let con = Expr::Con(Sym::from("M.J"));
        assert!(lint(program(con))
            .unwrap_err()
            .contains("unknown constructor"));
        // A variable of one alternative is not in scope after the case.
        let escaped = Expr::Let(
            Box::new(Bind::NonRec(
                var("y", 9),
                case_k(vec![var("a", 3), var("b", 4)], Expr::Lit(Lit::Int(1))),
            )),
            Box::new(Expr::Local(var("a", 3))),
        );
        assert!(lint(program(escaped)).is_err());
    }

    #[test]
    fn broken_invariants_of_the_passes_are_found() {
        let x = var("x", 1);
        // A letrec binding one variable twice.
        let dup = Expr::Let(
            Box::new(Bind::Rec(vec![
                (x.clone(), Expr::Lit(Lit::Int(1))),
                (x.clone(), Expr::Lit(Lit::Int(2))),
            ])),
            Box::new(Expr::Local(x.clone())),
        );
        assert!(lint(program(dup))
            .unwrap_err()
            .contains("bound twice in one letrec"));
        // A constructor where the primitive takes an Int.
        let k = Expr::app(
            Expr::Con(Sym::from("M.K")),
            vec![Expr::Lit(Lit::Int(1)), Expr::Lit(Lit::Int(2))],
        );
        let bad_prim = Expr::app(Expr::global("M.p"), vec![k.clone(), Expr::Lit(Lit::Int(3))]);
        assert!(lint(program(bad_prim))
            .unwrap_err()
            .contains("takes Int as argument 1"));
        // A double literal where it takes an Int.
        let bad_lit = Expr::app(
            Expr::global("M.p"),
            vec![Expr::Lit(Lit::Double(1.5)), Expr::Lit(Lit::Int(3))],
        );
        assert!(lint(program(bad_lit)).unwrap_err().contains("takes Int"));
        // Over-application of a constructor.
        let over = Expr::app(
            Expr::Con(Sym::from("M.K")),
            vec![
                Expr::Lit(Lit::Int(1)),
                Expr::Lit(Lit::Int(2)),
                Expr::Lit(Lit::Int(3)),
            ],
        );
        assert!(lint(program(over))
            .unwrap_err()
            .contains("applied to 3 arguments"));
        // A literal scrutinised against a constructor alternative.
        let lit_case = Expr::Case(
            Box::new(Expr::Lit(Lit::Int(1))),
            var("c", 2),
            vec![Alt {
                con: AltCon::Con(Sym::from("M.K")),
                vars: vec![var("a", 3), var("b", 4)],
                body: Expr::Lit(Lit::Int(0)),
            }],
            None,
        );
        assert!(lint(program(lit_case))
            .unwrap_err()
            .contains("with alternatives of"));
        // Literal and constructor alternatives in one case.
        let mixed = Expr::Lam(
            vec![x.clone()],
            Box::new(Expr::Case(
                Box::new(Expr::Local(x.clone())),
                var("c", 2),
                vec![
                    Alt {
                        con: AltCon::Lit(Lit::Int(0)),
                        vars: vec![],
                        body: Expr::Lit(Lit::Int(0)),
                    },
                    Alt {
                        con: AltCon::Con(Sym::from("M.K")),
                        vars: vec![var("a", 3), var("b", 4)],
                        body: Expr::Lit(Lit::Int(0)),
                    },
                ],
                None,
            )),
        );
        assert!(lint(program(mixed))
            .unwrap_err()
            .contains("different types"));
    }

    #[test]
    fn variables_must_be_unique_after_renaming() {
        let x = var("x", 1);
        let twice = Expr::Lam(
            vec![x.clone()],
            Box::new(Expr::app(
                Expr::global("M.p"),
                vec![
                    Expr::Lam(vec![x.clone()], Box::new(Expr::Local(x.clone()))),
                    Expr::Local(x.clone()),
                ],
            )),
        );
        let p = program(twice);
        assert!(core(&p, "test", false).is_ok());
        let e = core(&p, "renaming", true).unwrap_err();
        assert_eq!(e.pass, "renaming");
        assert_eq!(e.binding, "M.f");
        assert!(e.problem.contains("bound twice"));
    }
}
