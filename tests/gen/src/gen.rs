//! Type-directed generation of well-typed Tier 1 programs.
//!
//! Every expression is generated for a known type in an environment of
//! typed variables, functions (with type schemes and class constraints) and
//! rigid type variables (with their classes). Two invariants keep GHC happy:
//!
//! * no ambiguous types: an argument whose type is not visible in a call's
//!   result (`show e`, `length e`, `fst (e, _)`, a `case` scrutinee, the
//!   right-hand side of a binding without signature) is "determined" (its
//!   type is fixed by itself) or gets an annotation `(e :: T)`; the `det`
//!   flag of each expression says which;
//! * termination and speed: recursion only on a fuel argument (`n - 1`,
//!   callers pass a small non-negative number), on the tail of a list, or on
//!   the fields of a value; partial Prelude functions only at arguments that
//!   make them total; a cost estimate bounds calls inside loops.

use crate::ast::*;
use crate::library::{table, LibFn};
use crate::ty::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A function or value in scope: its scheme is over `?`-variables.
#[derive(Clone, Debug)]
pub struct Fun {
    pub name: String,
    pub ty: Ty,
    pub ctx: Vec<(String, Class)>,
    /// It has a signature, so a call's type follows from the scheme.
    pub determining: bool,
    pub cost: u64,
    /// Index of an argument that must be a small non-negative Int.
    pub fuel: Option<usize>,
}

impl Fun {
    /// A name of a type without type variables of its own (a value with a
    /// signature, a variable bound to a function).
    fn mono(name: &str, ty: Ty, cost: u64) -> Fun {
        Fun {
            name: name.to_string(),
            ty,
            ctx: vec![],
            determining: true,
            cost,
            fuel: None,
        }
    }

    /// The scheme of a declared function of type `ty`: its type variables
    /// `quantified` and those of its context `ctx` become `?`-variables.
    fn scheme<'v>(
        name: &str,
        ty: &Ty,
        quantified: impl IntoIterator<Item = &'v String>,
        ctx: &[(String, Class)],
        determining: bool,
        cost: u64,
        fuel: Option<usize>,
    ) -> Fun {
        let q: BTreeMap<String, Ty> = quantified
            .into_iter()
            .map(|v| (v.clone(), Ty::Var(format!("?{v}"))))
            .collect();
        Fun {
            name: name.to_string(),
            ty: ty.subst(&q),
            ctx: ctx.iter().map(|(v, c)| (format!("?{v}"), *c)).collect(),
            determining,
            cost,
            fuel,
        }
    }
}

#[derive(Clone)]
struct RecTarget {
    name: String,
    args: Vec<Ty>,
    res: Ty,
    /// The smaller arguments a recursive call may pass as its first.
    decs: Vec<Expr>,
}

struct RecCtx {
    targets: Vec<RecTarget>,
    left: Cell<u32>,
    used: Cell<u32>,
}

impl RecCtx {
    /// Recursion of one function on its first argument (two calls at most).
    fn one(name: &str, args: &[Ty], res: &Ty, decs: Vec<Expr>) -> Rc<RecCtx> {
        Rc::new(RecCtx {
            targets: vec![RecTarget {
                name: name.to_string(),
                args: args.to_vec(),
                res: res.clone(),
                decs,
            }],
            left: Cell::new(2),
            used: Cell::new(0),
        })
    }
}

#[derive(Clone, Default)]
pub struct Env {
    vars: Vec<(String, Ty)>,
    funs: Vec<Fun>,
    rigid: Rigid,
    rec: Option<Rc<RecCtx>>,
    mult: u64,
}

impl Env {
    /// The environment of a top-level declaration or of `main`.
    fn top() -> Env {
        Env {
            mult: 1,
            ..Env::default()
        }
    }
    fn with_vars(&self, vs: &[(String, Ty)]) -> Env {
        let mut e = self.clone();
        e.vars.extend(vs.iter().cloned());
        e
    }
    fn no_rec(&self) -> Env {
        let mut e = self.clone();
        e.rec = None;
        e
    }
    fn times(&self, k: u64) -> Env {
        let mut e = self.clone();
        e.mult = e.mult.saturating_mul(k);
        e.rec = None;
        e
    }
    fn vars_of(&self, t: &Ty) -> Vec<String> {
        self.vars
            .iter()
            .filter(|(_, vt)| vt == t)
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// Largest estimated cost of one call site in a loop or body.
const CALL_BUDGET: u64 = 30_000;
/// Largest estimated cost of a main statement.
const MAIN_BUDGET: u64 = 400_000;
/// How many times a function argument (lambda) is assumed to be called.
const LOOP: u64 = 6;

pub struct Gen {
    rng: Xoshiro256PlusPlus,
    pub datas: BTreeMap<String, DataInfo>,
    data_decls: Vec<DataDecl>,
    /// (constructor, type name, fields over params, recursive in its group)
    cons: BTreeMap<String, (String, Vec<Ty>, bool)>,
    fixities: Vec<Fixity>,
    globals: Vec<Fun>,
    counter: usize,
    cost: u64,
    infix_pool: Vec<&'static str>,
}

pub fn generate(seed: u64) -> Program {
    Gen::new(seed).program()
}

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            datas: BTreeMap::new(),
            data_decls: Vec::new(),
            cons: BTreeMap::new(),
            fixities: Vec::new(),
            globals: Vec::new(),
            counter: 0,
            cost: 0,
            infix_pool: vec![":+:", ":*:", ":::", ":|:", ":<>", ":-:", ":&:", ":=>"],
        }
    }

    // ---------------------------------------------------------------- random

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }
    fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        self.rng.random_range(lo..=hi)
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
    fn weighted<T: Clone>(&mut self, xs: &[(u32, T)]) -> T {
        let total: u32 = xs.iter().map(|(w, _)| *w).sum();
        let mut r = self.rng.random_range(0..total.max(1));
        for (w, x) in xs {
            if r < *w {
                return x.clone();
            }
            r -= w;
        }
        xs[0].1.clone()
    }
    fn fresh(&mut self, base: &str) -> String {
        self.counter += 1;
        format!("{base}{}", self.counter)
    }

    fn inst(&self) -> Instances<'_> {
        Instances { datas: &self.datas }
    }

    // ---------------------------------------------------------------- program

    fn program(&mut self) -> Program {
        self.gen_datas();
        let mut decls = Vec::new();
        let n = self.range(3, 7);
        for _ in 0..n {
            decls.extend(self.top_decl());
        }
        let expect_error = self.chance(0.1);
        let main = self.main_stmts(expect_error, &mut decls);
        Program {
            module_header: self.chance(0.3),
            open_imports: self.chance(0.3),
            fixities: self.fixities.clone(),
            datas: self.data_decls.clone(),
            decls,
            main,
            fails_at_run_time: expect_error,
        }
    }

    // ---------------------------------------------------------------- types

    /// A random type of values (no functions), at most `depth` deep.
    fn value_ty(&mut self, depth: u32) -> Ty {
        let user: Vec<String> = self.datas.keys().cloned().collect();
        let mut choices: Vec<(u32, u8)> = vec![(6, 0), (4, 1), (2, 2), (3, 3), (3, 4), (1, 5)];
        if depth > 0 {
            choices.extend([
                (3, 10),
                (3, 11),
                (2, 12),
                (1, 13),
                (3, 14),
                (1, 15),
                (1, 16),
            ]);
        }
        if !user.is_empty() {
            choices.push((4, 20));
        }
        match self.weighted(&choices) {
            0 => Ty::Int,
            1 => Ty::Integer,
            2 => Ty::Double,
            3 => Ty::Char,
            4 => Ty::Bool,
            5 => {
                if self.chance(0.5) {
                    Ty::Ordering
                } else {
                    Ty::Unit
                }
            }
            10 => Ty::string(),
            11 => Ty::list(self.value_ty(depth - 1)),
            12 => Ty::maybe(self.value_ty(depth - 1)),
            13 => Ty::either(self.value_ty(depth - 1), self.value_ty(depth - 1)),
            14 => Ty::Tuple(vec![self.value_ty(depth - 1), self.value_ty(depth - 1)]),
            15 => Ty::Tuple(vec![
                self.value_ty(depth - 1),
                self.value_ty(depth - 1),
                self.value_ty(depth - 1),
            ]),
            16 => {
                let n = self.range(4, 7) as usize;
                Ty::Tuple((0..n).map(|_| self.value_ty(0)).collect())
            }
            _ => {
                let name = self.pick(&user);
                let np = self.datas[&name].params.len();
                let args = (0..np)
                    .map(|_| self.value_ty(depth.saturating_sub(1).min(1)))
                    .collect();
                Ty::Data(name, args)
            }
        }
    }

    /// A random type with all the classes, or None.
    fn ty_with(&mut self, env: &Env, cs: &BTreeSet<Class>, allow_rigid: bool) -> Option<Ty> {
        if allow_rigid && self.chance(0.3) {
            let rig: Vec<Ty> = env
                .rigid
                .keys()
                .map(|v| Ty::Var(v.clone()))
                .filter(|t| self.inst().has_all(t, cs, &env.rigid) && !env.vars_of(t).is_empty())
                .collect();
            if !rig.is_empty() {
                return Some(self.pick(&rig));
            }
        }
        let mut biased: Vec<Ty> = Vec::new();
        if cs.contains(&Class::Fractional) {
            biased.push(Ty::Double);
        } else if cs.contains(&Class::Integral) {
            biased.extend([Ty::Int, Ty::Integer]);
        } else if cs.contains(&Class::Num) {
            biased.extend([Ty::Int, Ty::Integer, Ty::Double]);
        } else if cs.contains(&Class::Bounded) || cs.contains(&Class::Enum) {
            biased.extend([Ty::Int, Ty::Char, Ty::Bool, Ty::Ordering]);
            for (n, d) in &self.datas {
                if d.params.is_empty() {
                    biased.push(Ty::Data(n.clone(), vec![]));
                }
            }
        }
        for i in 0..40 {
            let t = if !biased.is_empty() && (i % 2 == 0 || i > 30) {
                self.pick(&biased)
            } else {
                self.value_ty(2)
            };
            if self.inst().has_all(&t, cs, &env.rigid) {
                return Some(t);
            }
        }
        None
    }

    // ---------------------------------------------------------------- data types

    fn field_ty(&mut self, params: &[String], depth: u32) -> Ty {
        if !params.is_empty() && self.chance(0.35) {
            return Ty::Var(self.pick(params));
        }
        let t = self.value_ty(depth);
        if depth > 0 && !params.is_empty() && self.chance(0.2) {
            let p = Ty::Var(self.pick(params));
            return if self.chance(0.5) {
                Ty::list(p)
            } else {
                Ty::maybe(p)
            };
        }
        t
    }

    fn gen_datas(&mut self) {
        let n = self.range(1, 4) as usize;
        while self.data_decls.len() < n {
            let k = self.data_decls.len() + 1;
            let name = format!("T{k}");
            let kind = self.below(100);
            let letters = ["A", "B", "C", "D", "E", "F"];
            let mut cons: Vec<ConDecl> = Vec::new();
            let mut params: Vec<String> = Vec::new();
            let mut newtype = false;
            let mut mutual: Option<DataDecl> = None;
            if kind < 22 {
                let m = self.range(2, 5) as usize;
                for l in letters.iter().take(m) {
                    cons.push(ConDecl {
                        name: format!("{l}{k}"),
                        fields: vec![],
                    });
                }
            } else if kind < 42 {
                let m = self.range(1, 3) as usize;
                for (i, l) in letters.iter().take(m).enumerate() {
                    let nf = if i == 0 && m > 1 {
                        self.range(0, 2)
                    } else {
                        self.range(1, 3)
                    };
                    let fields = (0..nf)
                        .map(|_| (self.field_ty(&[], 1), self.chance(0.2)))
                        .collect();
                    let cname = if m == 1 && self.chance(0.5) {
                        name.clone()
                    } else {
                        format!("{l}{k}")
                    };
                    cons.push(ConDecl {
                        name: cname,
                        fields,
                    });
                }
            } else if kind < 82 {
                // recursive, maybe parameterised, maybe with an infix constructor
                if kind >= 60 {
                    params.push("a".into());
                    if self.chance(0.25) {
                        params.push("b".into());
                    }
                }
                let self_ty = Ty::Data(name.clone(), params.iter().map(|p| Ty::var(p)).collect());
                let nbase = self.range(0, 1);
                let fields = (0..nbase)
                    .map(|_| (self.field_ty(&params, 0), self.chance(0.2)))
                    .collect();
                cons.push(ConDecl {
                    name: format!("A{k}"),
                    fields,
                });
                let nrec = self.range(1, 2);
                for i in 0..nrec {
                    let infix = i == 0 && !self.infix_pool.is_empty() && self.chance(0.5);
                    if infix {
                        let j = self.below(self.infix_pool.len());
                        let op = self.infix_pool.remove(j).to_string();
                        let left = if self.chance(0.7) {
                            self.field_ty(&params, 0)
                        } else {
                            self_ty.clone()
                        };
                        cons.push(ConDecl {
                            name: op.clone(),
                            fields: vec![(left, self.chance(0.2)), (self_ty.clone(), false)],
                        });
                        if self.chance(0.6) {
                            let assoc = self.pick(&[Assoc::Left, Assoc::Right, Assoc::None]);
                            let prec = self.range(0, 9) as u8;
                            self.fixities.push(Fixity { assoc, prec, op });
                        }
                    } else {
                        let mut fields = vec![(self_ty.clone(), self.chance(0.1))];
                        let extra = self.range(0, 2);
                        for _ in 0..extra {
                            fields.push((self.field_ty(&params, 1), self.chance(0.2)));
                        }
                        if self.chance(0.3) {
                            fields.push((self_ty.clone(), false));
                        }
                        let j = self.below(fields.len());
                        let last = fields.len() - 1;
                        fields.swap(j, last);
                        cons.push(ConDecl {
                            name: format!("{}{k}", letters[1 + i as usize]),
                            fields,
                        });
                    }
                }
                // every parameter is used
                for p in params.clone() {
                    let used = cons
                        .iter()
                        .any(|c| c.fields.iter().any(|(t, _)| t.var_set().contains(&p)));
                    if !used {
                        cons[0].fields.push((Ty::var(&p), false));
                    }
                }
            } else if kind < 90 {
                newtype = true;
                let t = self.field_ty(&[], 1);
                cons.push(ConDecl {
                    name: name.to_string(),
                    fields: vec![(t, false)],
                });
            } else {
                // two mutually recursive types
                let name2 = format!("T{}", k + 1);
                let t1 = Ty::Data(name.clone(), vec![]);
                let t2 = Ty::Data(name2.clone(), vec![]);
                cons.push(ConDecl {
                    name: format!("A{k}"),
                    fields: vec![(self.field_ty(&[], 0), false)],
                });
                cons.push(ConDecl {
                    name: format!("B{k}"),
                    fields: vec![
                        (t2.clone(), false),
                        (self.field_ty(&[], 0), self.chance(0.2)),
                    ],
                });
                let cons2 = vec![
                    ConDecl {
                        name: format!("A{}", k + 1),
                        fields: vec![],
                    },
                    ConDecl {
                        name: format!("B{}", k + 1),
                        fields: vec![(self.field_ty(&[], 0), false), (t1.clone(), false)],
                    },
                    ConDecl {
                        name: format!("C{}", k + 1),
                        fields: vec![(t2.clone(), false), (t1, false)],
                    },
                ];
                mutual = Some(DataDecl {
                    name: name2,
                    params: vec![],
                    newtype: false,
                    cons: cons2,
                    deriving: vec![],
                });
            }
            let mut ds = vec![DataDecl {
                name,
                params,
                newtype,
                cons,
                deriving: vec![],
            }];
            ds.extend(mutual);
            let group: BTreeSet<String> = ds.iter().map(|d| d.name.clone()).collect();
            for d in ds {
                let is_enum = d.cons.iter().all(|c| c.fields.is_empty());
                let mut want = BTreeSet::new();
                if self.chance(0.95) {
                    want.insert(Class::Show);
                }
                if self.chance(0.75) {
                    want.insert(Class::Eq);
                    if self.chance(0.6) {
                        want.insert(Class::Ord);
                    }
                }
                if is_enum && self.chance(0.7) {
                    want.insert(Class::Enum);
                    want.insert(Class::Bounded);
                }
                if d.cons.len() == 1 && !d.newtype && self.chance(0.3) {
                    want.insert(Class::Bounded);
                }
                for c in &d.cons {
                    let rec = c.fields.iter().any(|(t, _)| mentions_any(t, &group));
                    self.cons.insert(
                        c.name.clone(),
                        (
                            d.name.clone(),
                            c.fields.iter().map(|f| f.0.clone()).collect(),
                            rec,
                        ),
                    );
                }
                self.datas.insert(
                    d.name.clone(),
                    DataInfo {
                        params: d.params.clone(),
                        cons: d
                            .cons
                            .iter()
                            .map(|c| {
                                (
                                    c.name.clone(),
                                    c.fields.iter().map(|f| f.0.clone()).collect(),
                                )
                            })
                            .collect(),
                        derived: want,
                    },
                );
                self.data_decls.push(d);
            }
        }
        // derived instances need instances for the fields: a fixpoint
        loop {
            let mut changed = false;
            let names: Vec<String> = self.datas.keys().cloned().collect();
            for n in &names {
                let d = self.datas[n].clone();
                for c in d.derived.clone() {
                    let rigid: Rigid = d
                        .params
                        .iter()
                        .map(|p| (p.clone(), closure(&[c])))
                        .collect();
                    let ok = d
                        .cons
                        .iter()
                        .all(|(_, fs)| fs.iter().all(|t| self.inst().has(t, c, &rigid)));
                    let ok = ok && (c != Class::Ord || d.derived.contains(&Class::Eq));
                    if !ok {
                        self.datas.get_mut(n).unwrap().derived.remove(&c);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for d in &mut self.data_decls {
            d.deriving = self.datas[&d.name].derived.iter().copied().collect();
            d.deriving.sort_by_key(|c| match c {
                Class::Show => 0,
                Class::Eq => 1,
                Class::Ord => 2,
                Class::Enum => 3,
                _ => 4,
            });
        }
    }

    // ---------------------------------------------------------------- leaves

    fn num_lit(&mut self, t: &Ty) -> Expr {
        let s = match t {
            Ty::Integer if self.chance(0.2) => {
                let digits = self.range(19, 40);
                let mut s = String::new();
                s.push(char::from(b'1' + self.below(9) as u8));
                for _ in 1..digits {
                    s.push(char::from(b'0' + self.below(10) as u8));
                }
                if self.chance(0.3) {
                    s.insert(0, '-');
                }
                s
            }
            _ => {
                let n = self.weighted(&[
                    (6, (0, 10)),
                    (3, (-9, -1)),
                    (2, (11, 200)),
                    (1, (1000, 99999)),
                ]);
                self.range(n.0, n.1).to_string()
            }
        };
        Expr::new(E::Lit(Lit::Num(s)), t.clone(), false)
    }

    fn frac_lit(&mut self, t: &Ty) -> Expr {
        let s = self.pick(&[
            "0.5", "1.5", "2.25", "0.1", "3.75", "-2.5", "10.0", "1.0e-2", "2.5e7", "0.3", "-0.75",
            "1.0e22", "123.456",
        ]);
        Expr::new(E::Lit(Lit::Frac(s.to_string())), t.clone(), false)
    }

    fn char_lit(&mut self) -> char {
        let specials = [
            '\n', '\t', '\'', '"', '\\', ' ', '\0', '\x07', '\x1f', '\x7f', '\x0e',
        ];
        if self.chance(0.1) {
            self.pick(&specials)
        } else {
            let pool: Vec<char> = ('a'..='z').chain('A'..='F').chain('0'..='9').collect();
            self.pick(&pool)
        }
    }

    fn str_lit(&mut self) -> String {
        if self.chance(0.15) {
            return String::new();
        }
        let words = [
            "alpha",
            "beta",
            "gamma",
            "x",
            "hello world",
            "ab cd",
            "Tick",
            "zz9",
            "q",
            "tree",
            "a\nb",
            "tab\there",
            "quote\"d",
            "back\\slash",
            "\x0e\x48",
            "\x01\x32",
            "end.",
        ];
        self.pick(&words).to_string()
    }

    fn bool_con(&mut self, b: bool) -> Expr {
        Expr::con(if b { "True" } else { "False" }, Ty::Bool, true)
    }

    /// A constant of the type (or a variable in scope), no deeper than needed.
    fn leaf(&mut self, env: &Env, t: &Ty) -> Expr {
        let vs = env.vars_of(t);
        if !vs.is_empty() && (self.chance(0.6) || matches!(t, Ty::Var(_) | Ty::Fun(..))) {
            return Expr::var(&self.pick(&vs), t.clone(), true);
        }
        match t {
            Ty::Int if self.chance(0.04) => {
                let b = self.pick(&["minBound", "maxBound"]);
                Expr::var(b, Ty::Int, false)
            }
            Ty::Int | Ty::Integer => self.num_lit(t),
            Ty::Double => {
                if self.chance(0.6) {
                    self.frac_lit(t)
                } else {
                    self.num_lit(t)
                }
            }
            Ty::Char => {
                let c = self.char_lit();
                Expr::new(E::Lit(Lit::Char(c)), Ty::Char, true)
            }
            Ty::Bool => {
                let b = self.chance(0.5);
                self.bool_con(b)
            }
            Ty::Unit => Expr::con("()", Ty::Unit, true),
            Ty::Ordering => {
                let c = self.pick(&["LT", "EQ", "GT"]);
                Expr::con(c, Ty::Ordering, true)
            }
            Ty::List(e) if **e == Ty::Char => {
                let s = self.str_lit();
                Expr::str(&s)
            }
            Ty::List(e) => {
                if self.chance(0.3) {
                    Expr::con("[]", t.clone(), false)
                } else {
                    let n = self.range(1, 3);
                    let es: Vec<Expr> = (0..n).map(|_| self.leaf(env, e)).collect();
                    let det = es.iter().any(|x| x.det);
                    Expr::new(E::List(es), t.clone(), det)
                }
            }
            Ty::Tuple(ts) => {
                let es: Vec<Expr> = ts.iter().map(|x| self.leaf(env, x)).collect();
                let det = es.iter().all(|x| x.det);
                Expr::new(E::Tuple(es), t.clone(), det)
            }
            Ty::Maybe(e) => {
                if self.chance(0.3) {
                    Expr::con("Nothing", t.clone(), false)
                } else {
                    let x = self.leaf(env, e);
                    let det = x.det;
                    Expr::app(
                        Expr::con("Just", Ty::fun((**e).clone(), t.clone()), true),
                        vec![x],
                        t.clone(),
                        det,
                    )
                }
            }
            Ty::Either(a, b) => {
                let left = self.chance(0.5);
                let (name, inner) = if left { ("Left", a) } else { ("Right", b) };
                let x = self.leaf(env, inner);
                Expr::app(
                    Expr::con(name, Ty::fun((**inner).clone(), t.clone()), true),
                    vec![x],
                    t.clone(),
                    false,
                )
            }
            Ty::Data(n, args) => self.data_value(env, n, args, 0),
            Ty::Fun(a, b) => {
                let v = self.fresh("x");
                let body = self.leaf(&env.with_vars(&[(v.clone(), (**a).clone())]), b);
                let det = false;
                Expr::new(
                    E::Lam(vec![Pat::var(&v, (**a).clone())], Box::new(body)),
                    t.clone(),
                    det,
                )
            }
            Ty::Var(v) => {
                let cs = env.rigid.get(v).cloned().unwrap_or_default();
                if cs.contains(&Class::Fractional) && self.chance(0.5) {
                    self.frac_lit(t)
                } else if cs.contains(&Class::Num) {
                    self.num_lit(t)
                } else if cs.contains(&Class::Bounded) {
                    let b = self.pick(&["minBound", "maxBound"]);
                    Expr::var(b, t.clone(), false)
                } else {
                    panic!("no value of the rigid type {v} in scope")
                }
            }
            Ty::Pseudo(..) => self.pseudo(env, t, 1),
        }
    }

    /// A value of a user type: `depth` 0 takes a constructor without
    /// recursion in its group.
    fn data_value(&mut self, env: &Env, name: &str, args: &[Ty], depth: u32) -> Expr {
        let info = self.datas[name].clone();
        let t = Ty::Data(name.to_string(), args.to_vec());
        let cands: Vec<(String, Vec<Ty>)> = info
            .cons
            .iter()
            .filter(|(c, _)| depth > 0 || !self.cons[c].2)
            .cloned()
            .collect();
        let (cname, fields) = self.pick(&cands);
        let s = params_to(&info.params, args);
        let ftys: Vec<Ty> = fields.iter().map(|f| f.subst(&s)).collect();
        let es: Vec<Expr> = ftys
            .iter()
            .map(|ft| {
                if depth == 0 {
                    self.leaf(env, ft)
                } else {
                    self.expr(env, ft, depth - 1)
                }
            })
            .collect();
        // determined when every parameter shows in a determined field
        let det = info.params.iter().all(|p| {
            fields
                .iter()
                .zip(&es)
                .any(|(f, e)| e.det && f.var_set().contains(p))
        });
        let cty = Ty::funs(&ftys, t.clone());
        if cname.starts_with(':') {
            let mut it = es.into_iter();
            let a = it.next().unwrap();
            let b = it.next().unwrap();
            Expr::op(&cname, a, b, t, det)
        } else {
            Expr::app(Expr::con(&cname, cty, true), es, t, det)
        }
    }

    // ---------------------------------------------------------------- determinedness

    /// `e` if its type is determined, else annotated, else None when the
    /// type mentions rigid variables (no annotation can name them).
    fn fix(&mut self, env: &Env, e: Expr) -> Option<Expr> {
        if e.det {
            return Some(e);
        }
        if !e.ty.has_vars() {
            return Some(Expr::ann(e));
        }
        let vs = env.vars_of(&e.ty);
        if !vs.is_empty() {
            return Some(Expr::var(&self.pick(&vs), e.ty.clone(), true));
        }
        None
    }

    /// A determined expression of the type (see `fix`).
    fn det_expr(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        for _ in 0..3 {
            let e = self.expr(env, t, depth);
            if e.det || !t.has_vars() {
                return self.fix(env, e);
            }
        }
        let vs = env.vars_of(t);
        if vs.is_empty() {
            None
        } else {
            Some(Expr::var(&self.pick(&vs), t.clone(), true))
        }
    }

    // ---------------------------------------------------------------- expressions

    pub fn expr(&mut self, env: &Env, t: &Ty, depth: u32) -> Expr {
        self.cost += env.mult;
        if let Ty::Pseudo(..) = t {
            return self.pseudo(env, t, depth);
        }
        if depth == 0 {
            return self.leaf(env, t);
        }
        for _ in 0..6 {
            if let Some(e) = self.expr_once(env, t, depth) {
                debug_assert_eq!(e.ty.strip(), t.strip(), "generated {:?}", e.kind);
                return e;
            }
        }
        self.leaf(env, t)
    }

    fn expr_once(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        #[derive(Clone, Copy)]
        enum K {
            Leaf,
            Var,
            Call,
            Rec,
            If,
            Case,
            Let,
            Special,
            Par,
            Lazy,
        }
        let mut ks = vec![
            (3, K::Leaf),
            (6, K::Call),
            (1, K::If),
            (5, K::Special),
            (1, K::Lazy),
        ];
        if depth >= 2 {
            ks.push((1, K::Case));
            ks.push((1, K::Let));
        }
        if !env.vars_of(t).is_empty() {
            ks.push((6, K::Var));
        }
        if let Some(r) = &env.rec {
            if r.left.get() > 0 && r.targets.iter().any(|rt| &rt.res == t) {
                ks.push((if r.used.get() == 0 { 30 } else { 6 }, K::Rec));
            }
        }
        if depth >= 2 && self.chance(0.5) {
            ks.push((1, K::Par));
        }
        match self.weighted(&ks) {
            K::Leaf => Some(self.leaf(env, t)),
            K::Var => {
                let vs = env.vars_of(t);
                Some(Expr::var(&self.pick(&vs), t.clone(), true))
            }
            K::Call => self.call(env, t, depth),
            K::Rec => self.rec_call(env, t, depth),
            K::If => {
                let c = self.guard(&env.no_rec(), depth - 1);
                let a = self.expr(env, t, depth - 1);
                let b = self.expr(env, t, depth - 1);
                let det = a.det || b.det;
                Some(Expr::new(
                    E::If(Box::new(c), Box::new(a), Box::new(b)),
                    t.clone(),
                    det,
                ))
            }
            K::Case => self.case_expr(env, t, depth),
            K::Let => self.let_expr(env, t, depth),
            K::Special => self.special(env, t, depth),
            K::Par => self.par_expr(env, t, depth),
            K::Lazy => self.lazy_expr(env, t, depth),
        }
    }

    /// Arguments of pseudo-types.
    fn pseudo(&mut self, env: &Env, t: &Ty, depth: u32) -> Expr {
        match t {
            Ty::Pseudo(Pseudo::Small, _) => Expr::int(self.range(0, 6), Ty::Int),
            Ty::Pseudo(Pseudo::Exp, _) => {
                Expr::int(self.weighted(&[(4, 2), (3, 3), (2, 10), (1, 33)]), Ty::Int)
            }
            Ty::Pseudo(Pseudo::Pos, inner) => {
                let n = self.range(1, 9);
                let inner = inner.strip();
                Expr::new(E::Lit(Lit::Num(n.to_string())), inner, false)
            }
            Ty::Pseudo(Pseudo::NonEmpty, inner) => {
                let lt = inner.strip();
                let Ty::List(el) = &lt else { unreachable!() };
                match self.below(3) {
                    0 => {
                        let n = self.range(1, 4);
                        let es: Vec<Expr> = (0..n)
                            .map(|_| self.expr(env, el, depth.saturating_sub(1)))
                            .collect();
                        let det = es.iter().any(|e| e.det);
                        Expr::new(E::List(es), lt.clone(), det)
                    }
                    _ => {
                        let h = self.expr(env, el, depth.saturating_sub(1));
                        let rest = self.expr(env, &lt, depth.saturating_sub(1));
                        let det = h.det || rest.det;
                        Expr::op(":", h, rest, lt.clone(), det)
                    }
                }
            }
            _ => unreachable!(),
        }
    }

    fn fuel_arg(&mut self, env: &Env, depth: u32) -> Expr {
        if depth > 0 && self.chance(0.2) {
            let e = self.expr(&env.no_rec(), &Ty::Int, depth - 1);
            let k = self.range(2, 6);
            Expr::op("mod", e, Expr::int(k, Ty::Int), Ty::Int, true)
        } else {
            Expr::int(self.range(0, 5), Ty::Int)
        }
    }

    fn arg(&mut self, env: &Env, t: &Ty, depth: u32) -> Expr {
        if t.is_fun() {
            self.expr(&env.times(LOOP), t, depth)
        } else {
            self.expr(env, t, depth)
        }
    }

    /// A call of a library, global or local function whose result (after
    /// some of its arguments) has type `t`.
    fn call(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        // candidates: (weight, index into a list of callables, args supplied)
        let mut cands: Vec<(u32, usize, usize)> = Vec::new();
        let mut callees: Vec<(Fun, bool, u32, bool)> = Vec::new(); // (fun, is_lib, weight, infix)
        for l in table() {
            callees.push((lib_fun(l), true, l.weight, l.infix));
        }
        for g in &self.globals {
            if env.mult.saturating_mul(g.cost) <= CALL_BUDGET {
                let infix = crate::print::is_symbolic(&g.name);
                callees.push((g.clone(), false, 12, infix));
            }
        }
        for f in &env.funs {
            callees.push((f.clone(), false, 12, false));
        }
        for (v, vt) in &env.vars {
            if vt.is_fun() {
                callees.push((Fun::mono(v, vt.clone(), 1), false, 6, false));
            }
        }
        for (i, (f, _, w, _)) in callees.iter().enumerate() {
            let (args, res) = f.ty.split_fun();
            for j in (0..=args.len()).rev() {
                if args[j..].iter().any(|a| matches!(a, Ty::Pseudo(..))) {
                    break;
                }
                let rest = Ty::funs(&args[j..], res.clone());
                let mut s = BTreeMap::new();
                if match_ty(&rest, t, &mut s) {
                    // prefer full applications
                    let w = if j == args.len() {
                        *w * 3
                    } else if j == 0 {
                        1
                    } else {
                        *w
                    };
                    cands.push((w, i, j));
                }
            }
        }
        if cands.is_empty() {
            return None;
        }
        let (_, i, j) = self.weighted(
            &cands
                .iter()
                .map(|c| (c.0, (c.0, c.1, c.2)))
                .collect::<Vec<_>>(),
        );
        let (f, is_lib, _, infix) = callees[i].clone();
        self.apply(env, &f, is_lib, infix, j, t, depth)
    }

    /// Applies `f` to `j` generated arguments so that the result has type `t`.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        env: &Env,
        f: &Fun,
        is_lib: bool,
        infix: bool,
        j: usize,
        t: &Ty,
        depth: u32,
    ) -> Option<Expr> {
        let (args, res) = f.ty.split_fun();
        let rest = Ty::funs(&args[j..], res.clone());
        let mut s = BTreeMap::new();
        if !match_ty(&rest, t, &mut s) {
            return None;
        }
        // the scheme's own variables (`?a`); others are rigid, fixed by the
        // context; those the result does not fix are hidden
        let mut all: BTreeSet<String> =
            f.ty.var_set()
                .into_iter()
                .filter(|v| v.starts_with('?'))
                .collect();
        for (v, _) in &f.ctx {
            all.insert(v.clone());
        }
        let mut hidden = Vec::new();
        for v in &all {
            if !s.contains_key(v) {
                let cs: BTreeSet<Class> = closure(
                    &f.ctx
                        .iter()
                        .filter(|(x, _)| x == v)
                        .map(|(_, c)| *c)
                        .collect::<Vec<_>>(),
                );
                let ty = self.ty_with(env, &cs, true)?;
                s.insert(v.clone(), ty);
                hidden.push(v.clone());
            }
        }
        for (v, c) in &f.ctx {
            if !self.inst().has(&s[v], *c, &env.rigid) {
                return None;
            }
        }
        if is_lib
            && matches!(f.name.as_str(), "fromEnum" | "succ" | "pred")
            && s.values().any(|t| *t == Ty::Double)
        {
            return None;
        }
        let inner = depth.saturating_sub(1);
        let mut es = Vec::new();
        for (k, a) in args[..j].iter().enumerate() {
            let at = a.subst(&s);
            let e = if f.fuel == Some(k) {
                self.fuel_arg(env, depth)
            } else {
                self.arg(env, &at, inner)
            };
            es.push(e);
        }
        // without a signature, GHC may infer a more general type than ours,
        // in which any argument's type may be free: each must be determined
        if !f.determining {
            for e in es.iter_mut() {
                if !e.det {
                    let x = std::mem::replace(e, Expr::str(""));
                    *e = self.fix(env, x)?;
                }
            }
        }
        // every hidden variable must be fixed by a determined argument
        for v in &hidden {
            let holders: Vec<usize> = (0..j).filter(|k| args[*k].var_set().contains(v)).collect();
            if holders.is_empty() {
                return None;
            }
            if holders.iter().any(|k| es[*k].det) {
                continue;
            }
            // annotate a value rather than a function: `(xs :: [Int])`
            let k = holders
                .iter()
                .copied()
                .find(|k| !args[*k].is_fun())
                .unwrap_or(holders[0]);
            let e = std::mem::replace(&mut es[k], Expr::str(""));
            es[k] = self.fix(env, e)?;
        }
        // a determined result: every variable of the scheme held by a
        // determined argument (`return`'s table type fixes the monad, Maybe;
        // GHC's does not, so `return x` needs its context whatever `x` is)
        let det = f.determining
            && !(is_lib && f.name == "return")
            && rest
                .var_set()
                .iter()
                .filter(|v| v.starts_with('?'))
                .all(|v| (0..j).any(|k| es[k].det && args[k].var_set().contains(v)));
        if !is_lib {
            self.cost += env.mult.saturating_mul(f.cost);
        }
        let fty = f.ty.subst(&s).strip();
        let fname = f.name.clone();
        if infix && j == 2 && self.chance(0.9) {
            let mut it = es.into_iter();
            let a = it.next().unwrap();
            let b = it.next().unwrap();
            return Some(Expr::op(&fname, a, b, t.clone(), det));
        }
        Some(Expr::app(Expr::var(&fname, fty, det), es, t.clone(), det))
    }

    fn rec_call(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        let r = env.rec.clone()?;
        let targets: Vec<RecTarget> = r
            .targets
            .iter()
            .filter(|rt| &rt.res == t)
            .cloned()
            .collect();
        if targets.is_empty() || r.left.get() == 0 {
            return None;
        }
        let rt = self.pick(&targets);
        r.left.set(r.left.get() - 1);
        r.used.set(r.used.get() + 1);
        let inner = env.no_rec();
        let mut es = Vec::new();
        for (k, a) in rt.args.iter().enumerate() {
            if k == 0 {
                es.push(self.pick(&rt.decs));
            } else {
                es.push(self.arg(&inner, a, depth.saturating_sub(2)));
            }
        }
        let fty = Ty::funs(&rt.args, rt.res.clone());
        Some(Expr::app(
            Expr::var(&rt.name, fty, true),
            es,
            t.clone(),
            true,
        ))
    }

    // ---------------------------------------------------------------- patterns

    /// A pattern for type `t`; `refutable` allows constructors and literals.
    fn pat(&mut self, t: &Ty, refutable: bool, depth: u32) -> Pat {
        let var = |g: &mut Gen| {
            let base = match t {
                Ty::List(_) => "xs",
                Ty::Int | Ty::Integer => "n",
                Ty::Char => "c",
                _ => "v",
            };
            Pat::var(&g.fresh(base), t.clone())
        };
        if depth == 0 || self.chance(0.35) {
            // a variable of a rigid type stays bound: it is how values of that type are made
            return if self.chance(0.1) && !matches!(t, Ty::Var(_)) {
                Pat::wild(t.clone())
            } else {
                var(self)
            };
        }
        match t {
            Ty::Tuple(ts) => {
                let ps = ts
                    .iter()
                    .map(|x| self.pat(x, refutable, depth - 1))
                    .collect();
                let p = Pat::new(P::Tuple(ps), t.clone());
                if self.chance(0.1) {
                    Pat::new(P::Lazy(Box::new(p)), t.clone())
                } else if self.chance(0.1) {
                    Pat::new(P::As(self.fresh("whole"), Box::new(p)), t.clone())
                } else {
                    p
                }
            }
            Ty::Data(n, args) if refutable || self.datas[n].cons.len() == 1 => {
                let info = self.datas[n].clone();
                let (c, fs) = self.pick(&info.cons);
                let s = params_to(&info.params, args);
                let ps = fs
                    .iter()
                    .map(|f| self.pat(&f.subst(&s), refutable, depth - 1))
                    .collect();
                Pat::new(P::Con(c, ps), t.clone())
            }
            Ty::List(e) if refutable => match self.below(3) {
                0 => Pat::new(P::Con("[]".into(), vec![]), t.clone()),
                1 => {
                    let h = self.pat(e, true, depth - 1);
                    let tl = self.pat(t, true, depth - 1);
                    let p = Pat::new(P::Con(":".into(), vec![h, tl]), t.clone());
                    if self.chance(0.2) {
                        Pat::new(P::As(self.fresh("all"), Box::new(p)), t.clone())
                    } else {
                        p
                    }
                }
                _ => {
                    let n = self.range(1, 2);
                    let ps = (0..n).map(|_| self.pat(e, true, depth - 1)).collect();
                    Pat::new(P::List(ps), t.clone())
                }
            },
            Ty::Maybe(e) if refutable => {
                if self.chance(0.3) {
                    Pat::new(P::Con("Nothing".into(), vec![]), t.clone())
                } else {
                    let p = self.pat(e, true, depth - 1);
                    Pat::new(P::Con("Just".into(), vec![p]), t.clone())
                }
            }
            Ty::Either(a, b) if refutable => {
                if self.chance(0.5) {
                    let p = self.pat(a, true, depth - 1);
                    Pat::new(P::Con("Left".into(), vec![p]), t.clone())
                } else {
                    let p = self.pat(b, true, depth - 1);
                    Pat::new(P::Con("Right".into(), vec![p]), t.clone())
                }
            }
            Ty::Int | Ty::Integer if refutable => {
                let n = self.range(-2, 5);
                Pat::new(P::Lit(Lit::Num(n.to_string())), t.clone())
            }
            Ty::Char if refutable => {
                let c = self.char_lit();
                Pat::new(P::Lit(Lit::Char(c)), t.clone())
            }
            Ty::Bool if refutable => {
                let b = self.chance(0.5);
                Pat::new(
                    P::Con(if b { "True" } else { "False" }.into(), vec![]),
                    t.clone(),
                )
            }
            Ty::List(e) if **e == Ty::Char && refutable => {
                let s = self.str_lit();
                Pat::new(P::Lit(Lit::Str(s)), t.clone())
            }
            _ => var(self),
        }
    }

    /// Alternatives for a `case` on type `st`: each pattern, and whether a
    /// final catch-all is needed.
    fn alt_pats(&mut self, st: &Ty) -> (Vec<Pat>, bool) {
        match st {
            Ty::Bool => (
                vec![
                    Pat::new(P::Con("True".into(), vec![]), st.clone()),
                    Pat::new(P::Con("False".into(), vec![]), st.clone()),
                ],
                false,
            ),
            Ty::Maybe(e) => {
                let p = self.pat(e, true, 1);
                let full = p.irrefutable();
                (
                    vec![
                        Pat::new(P::Con("Nothing".into(), vec![]), st.clone()),
                        Pat::new(P::Con("Just".into(), vec![p]), st.clone()),
                    ],
                    !full,
                )
            }
            Ty::Either(a, b) => {
                let pa = self.pat(a, true, 1);
                let pb = self.pat(b, true, 1);
                let full = pa.irrefutable() && pb.irrefutable();
                (
                    vec![
                        Pat::new(P::Con("Left".into(), vec![pa]), st.clone()),
                        Pat::new(P::Con("Right".into(), vec![pb]), st.clone()),
                    ],
                    !full,
                )
            }
            Ty::List(e) => {
                if self.chance(0.6) {
                    let h = self.pat(e, true, 1);
                    let tlv = self.fresh("rest");
                    let full = h.irrefutable();
                    (
                        vec![
                            Pat::new(P::Con("[]".into(), vec![]), st.clone()),
                            Pat::new(
                                P::Con(":".into(), vec![h, Pat::var(&tlv, st.clone())]),
                                st.clone(),
                            ),
                        ],
                        !full,
                    )
                } else {
                    let p = self.pat(st, true, 2);
                    (vec![p], true)
                }
            }
            Ty::Data(n, args) => {
                let info = self.datas[n].clone();
                let s = params_to(&info.params, args);
                let all = self.chance(0.6);
                let mut full = all;
                let mut ps = Vec::new();
                for (c, fs) in &info.cons {
                    if !all && self.chance(0.4) {
                        continue;
                    }
                    let mut sub: Vec<Pat> = Vec::new();
                    for f in fs {
                        let r = self.chance(0.3);
                        sub.push(self.pat(&f.subst(&s), r, 1));
                    }
                    full &= sub.iter().all(|p| p.irrefutable());
                    ps.push(Pat::new(P::Con(c.clone(), sub), st.clone()));
                }
                if ps.is_empty() {
                    full = false;
                }
                (ps, !full)
            }
            Ty::Int | Ty::Integer | Ty::Char | Ty::Tuple(_) => {
                let n = self.range(1, 3);
                let ps = (0..n).map(|_| self.pat(st, true, 2)).collect();
                (ps, true)
            }
            _ => (vec![], true),
        }
    }

    fn case_expr(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        // scrutinise a variable in scope, or a determined expression
        let interesting: Vec<(String, Ty)> = env
            .vars
            .iter()
            .filter(|(_, vt)| {
                matches!(
                    vt,
                    Ty::List(_)
                        | Ty::Maybe(_)
                        | Ty::Either(..)
                        | Ty::Data(..)
                        | Ty::Tuple(_)
                        | Ty::Int
                        | Ty::Bool
                )
            })
            .cloned()
            .collect();
        let scrut = if !interesting.is_empty() && self.chance(0.6) {
            let (v, vt) = self.pick(&interesting);
            Expr::var(&v, vt, true)
        } else {
            let st = self.value_ty(1);
            let e = self.closed_expr(&env.no_rec(), &st, depth - 1);
            self.fix(env, e)?
        };
        let st = scrut.ty.clone();
        let (pats, catch_all) = self.alt_pats(&st);
        let mut alts = Vec::new();
        let mut det = false;
        for p in pats {
            let mut bs = Vec::new();
            p.typed_binders(&mut bs);
            let env2 = env.with_vars(&bs);
            let rhs = self.rhs(&env2, t, (depth - 1).min(2), catch_all);
            if let Rhs::Plain(e) = &rhs {
                det |= e.det;
            }
            alts.push(Alt { pat: p, rhs });
        }
        if catch_all {
            let p = if self.chance(0.5) {
                Pat::wild(st.clone())
            } else {
                Pat::var(&self.fresh("other"), st.clone())
            };
            let mut bs = Vec::new();
            p.typed_binders(&mut bs);
            let e = self.expr(&env.with_vars(&bs), t, (depth - 1).min(2));
            det |= e.det;
            alts.push(Alt {
                pat: p,
                rhs: Rhs::Plain(e),
            });
        }
        Some(Expr::new(E::Case(Box::new(scrut), alts), t.clone(), det))
    }

    /// A right-hand side: plain, or guards (which may fall through only when
    /// `may_fail`; otherwise the last guard is `otherwise`).
    fn rhs(&mut self, env: &Env, t: &Ty, depth: u32, may_fail: bool) -> Rhs {
        if depth > 0 && self.chance(0.2) {
            let n = self.range(1, 3);
            let mut gs = Vec::new();
            for _ in 0..n {
                let g = self.guard(&env.no_rec(), depth.min(2));
                let e = self.expr(env, t, depth);
                gs.push((g, e));
            }
            if !may_fail || self.chance(0.5) {
                let e = self.expr(env, t, depth);
                gs.push((Expr::var("otherwise", Ty::Bool, true), e));
            }
            Rhs::Guarded(gs)
        } else {
            Rhs::Plain(self.expr(env, t, depth))
        }
    }

    /// An expression that is not an open construct (`let`, `case`, `if`):
    /// a call, else a constant or variable.
    fn closed_expr(&mut self, env: &Env, t: &Ty, depth: u32) -> Expr {
        if depth > 0 {
            for _ in 0..4 {
                if let Some(e) = self.call(env, t, depth) {
                    return e;
                }
            }
        }
        self.leaf(env, t)
    }

    /// A guard: mostly a comparison or a predicate, rarely an open
    /// construct (`if`, `let`, `case`), which real programs seldom put there.
    fn guard(&mut self, env: &Env, depth: u32) -> Expr {
        if self.chance(0.97) {
            self.closed_expr(env, &Ty::Bool, depth)
        } else {
            self.expr(env, &Ty::Bool, depth)
        }
    }

    // ---------------------------------------------------------------- bindings

    /// Local bindings for `let`/`where`: values, pattern bindings and local
    /// functions (maybe polymorphic, maybe recursive).
    fn local_binds(&mut self, env: &Env, depth: u32) -> (Vec<Bind>, Env) {
        let n = self.range(1, 2);
        let mut binds = Vec::new();
        let mut env2 = env.clone();
        for _ in 0..n {
            match self.below(10) {
                0..=3 => {
                    let vt = self.value_ty(1);
                    let name = self.fresh("y");
                    let rhs = self.expr(&env2.no_rec(), &vt, depth);
                    let (sig, rhs) = if rhs.det {
                        (None, rhs)
                    } else if !vt.has_vars() {
                        if self.chance(0.5) {
                            (
                                Some(Sig {
                                    ctx: vec![],
                                    ty: vt.clone(),
                                }),
                                rhs,
                            )
                        } else {
                            (None, Expr::ann(rhs))
                        }
                    } else {
                        match self.fix(&env2, rhs) {
                            Some(e) => (None, e),
                            None => continue,
                        }
                    };
                    binds.push(Bind::value(&name, sig, rhs));
                    env2.vars.push((name, vt));
                }
                4..=5 => {
                    let ts = vec![self.value_ty(1), self.value_ty(1)];
                    let tt = Ty::Tuple(ts.clone());
                    let Some(rhs) = self.det_expr(&env2.no_rec(), &tt, depth) else {
                        continue;
                    };
                    let a = self.fresh("p");
                    let b = self.fresh("q");
                    let pat = Pat::new(
                        P::Tuple(vec![
                            Pat::var(&a, ts[0].clone()),
                            Pat::var(&b, ts[1].clone()),
                        ]),
                        tt,
                    );
                    binds.push(Bind::Pat(pat, rhs));
                    env2.vars.push((a, ts[0].clone()));
                    env2.vars.push((b, ts[1].clone()));
                }
                _ => {
                    let (b, f) = self.local_fun(&env2, depth);
                    binds.push(b);
                    env2.funs.push(f);
                }
            }
        }
        (binds, env2)
    }

    fn let_expr(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        let (binds, env2) = self.local_binds(env, (depth - 1).min(2));
        if binds.is_empty() {
            return None;
        }
        let body = self.expr(&env2, t, depth - 1);
        let det = body.det;
        Some(Expr::new(E::Let(binds, Box::new(body)), t.clone(), det))
    }

    /// A local function: `go`, maybe polymorphic in its own type variable,
    /// maybe recursive on fuel or a list; no signature unless its type is
    /// closed.
    fn local_fun(&mut self, env: &Env, depth: u32) -> (Bind, Fun) {
        let base = self.pick(&["go", "step", "aux", "h", "loop"]);
        let name = self.fresh(base);
        let poly = self.chance(0.35);
        let mut env_in = env.clone();
        let mut ctx = Vec::new();
        let mut tv = None;
        if poly {
            let v = self.fresh("t");
            let cs = self.pick(&[
                vec![],
                vec![Class::Show],
                vec![Class::Eq],
                vec![Class::Ord, Class::Show],
                vec![Class::Num],
                vec![Class::Num, Class::Show],
            ]);
            env_in.rigid.insert(v.clone(), closure(&cs));
            ctx = cs.iter().map(|c| (v.clone(), *c)).collect::<Vec<_>>();
            tv = Some(v);
        }
        let shape = self.below(10);
        let mut ptys: Vec<Ty> = Vec::new();
        let mut fuel = None;
        let pick_param = |g: &mut Gen, env: &Env| -> Ty {
            if let Some(v) = &tv {
                if g.chance(0.6) {
                    return Ty::Var(v.clone());
                }
            }
            if !env.vars.is_empty() && g.chance(0.4) {
                let (_, t) = g.pick(&env.vars);
                if !t.is_fun() {
                    return t;
                }
            }
            g.value_ty(1)
        };
        if let Some(v) = &tv {
            ptys.push(Ty::Var(v.clone()));
        }
        let np = self.range(0, 1);
        for _ in 0..np {
            let p = pick_param(self, &env_in);
            ptys.push(p);
        }
        if ptys.is_empty() {
            let p = pick_param(self, &env_in);
            ptys.push(p);
        }
        let rec_kind = if shape < 3 {
            ptys.insert(0, Ty::Int);
            fuel = Some(0);
            1
        } else if shape < 5 {
            let el = if let Some(v) = &tv {
                Ty::Var(v.clone())
            } else {
                self.value_ty(1)
            };
            ptys.insert(0, Ty::list(el));
            2
        } else {
            0
        };
        let res = if let Some(v) = &tv {
            if self.chance(0.4) {
                self.pick(&[
                    Ty::Var(v.clone()),
                    Ty::list(Ty::Var(v.clone())),
                    Ty::Tuple(vec![Ty::Var(v.clone()), Ty::Int]),
                ])
            } else {
                self.value_ty(1)
            }
        } else {
            self.value_ty(1)
        };
        let fty = Ty::funs(&ptys, res.clone());
        // a signature only when the type mentions no outer type variable
        let outer_vars = fty.var_set().iter().any(|v| Some(v) != tv.as_ref());
        let with_sig = !outer_vars && self.chance(0.5);
        let sig = if with_sig {
            Some(Sig {
                ctx: ctx.iter().map(|(v, c)| (*c, v.clone())).collect(),
                ty: fty.clone(),
            })
        } else {
            None
        };
        let saved_cost = self.cost;
        self.cost = 0;
        let clauses = self.fun_clauses(&env_in, &name, &ptys, &res, rec_kind, depth.min(2));
        let body_cost = self.cost.max(1);
        self.cost = saved_cost + body_cost;
        let cost = if rec_kind > 0 {
            body_cost * 8
        } else {
            body_cost
        };
        // the scheme: the local type variable is quantified
        let f = Fun::scheme(&name, &fty, &tv, &ctx, with_sig, cost, fuel);
        (Bind::Fun(FunBind { name, sig, clauses }), f)
    }

    /// Clauses of a function with parameters `ptys`. `rec_kind`: 0 none, 1 on
    /// fuel (parameter 0, an Int), 2 on a list (parameter 0).
    fn fun_clauses(
        &mut self,
        env: &Env,
        name: &str,
        ptys: &[Ty],
        res: &Ty,
        rec_kind: u32,
        depth: u32,
    ) -> Vec<Clause> {
        let mut clauses = Vec::new();
        match rec_kind {
            1 => {
                let n = self.fresh("n");
                let mut pats = vec![Pat::var(&n, Ty::Int)];
                let mut vars = vec![(n.clone(), Ty::Int)];
                for t in &ptys[1..] {
                    let v = self.fresh(if matches!(t, Ty::List(_)) { "xs" } else { "x" });
                    pats.push(Pat::var(&v, t.clone()));
                    vars.push((v, t.clone()));
                }
                let env1 = env.with_vars(&vars);
                let rc = RecCtx::one(name, ptys, res, vec![fuel_less(&n)]);
                let base = self.expr(&env1.no_rec(), res, depth.min(2));
                let mut env_r = env1.clone();
                env_r.rec = Some(rc.clone());
                let step = self.rec_body(&env_r, &rc, res, depth);
                let rhs = if self.chance(0.5) {
                    fuel_guards(&n, base, step)
                } else {
                    let done = Box::new(fuel_out(&n));
                    let e = E::If(done, Box::new(base), Box::new(step));
                    Rhs::Plain(Expr::new(e, res.clone(), true))
                };
                clauses.push(Clause::new(pats, rhs));
            }
            2 => {
                let Ty::List(el) = &ptys[0] else {
                    unreachable!()
                };
                let h = self.fresh("y");
                let tl = self.fresh("ys");
                let mut rest_pats = Vec::new();
                let mut vars = Vec::new();
                for t in &ptys[1..] {
                    let v = self.fresh("x");
                    rest_pats.push(Pat::var(&v, t.clone()));
                    vars.push((v, t.clone()));
                }
                let env1 = env.with_vars(&vars);
                let base = self.expr(&env1.no_rec(), res, depth.min(2));
                let mut p0 = vec![Pat::new(P::Con("[]".into(), vec![]), ptys[0].clone())];
                p0.extend(rest_pats.clone());
                clauses.push(Clause::new(p0, Rhs::Plain(base)));
                let tail = Expr::var(&tl, ptys[0].clone(), true);
                let rc = RecCtx::one(name, ptys, res, vec![tail]);
                let mut env_r =
                    env1.with_vars(&[(h.clone(), (**el).clone()), (tl.clone(), ptys[0].clone())]);
                env_r.rec = Some(rc.clone());
                let step = self.rec_body(&env_r, &rc, res, depth);
                let mut p1 = vec![Pat::new(
                    P::Con(
                        ":".into(),
                        vec![Pat::var(&h, (**el).clone()), Pat::var(&tl, ptys[0].clone())],
                    ),
                    ptys[0].clone(),
                )];
                p1.extend(rest_pats);
                clauses.push(Clause::new(p1, Rhs::Plain(step)));
            }
            _ => {
                // maybe a first clause with refutable patterns, then a general one
                if self.chance(0.3) {
                    let pats: Vec<Pat> = ptys
                        .iter()
                        .map(|t| {
                            if t.has_vars() {
                                self.pat(t, false, 0)
                            } else {
                                self.pat(t, true, 2)
                            }
                        })
                        .collect();
                    if pats.iter().any(|p| !p.irrefutable()) {
                        let mut bs = Vec::new();
                        pats.iter().for_each(|p| p.typed_binders(&mut bs));
                        let rhs = self.rhs(&env.with_vars(&bs), res, depth, true);
                        clauses.push(Clause::new(pats, rhs));
                    }
                }
                let pats: Vec<Pat> = ptys.iter().map(|t| self.pat(t, false, 1)).collect();
                let mut bs = Vec::new();
                pats.iter().for_each(|p| p.typed_binders(&mut bs));
                let env1 = env.with_vars(&bs);
                let rhs = self.rhs(&env1, res, depth, false);
                clauses.push(Clause::new(pats, rhs));
            }
        }
        clauses
    }

    /// The recursive branch: generated until it calls the function.
    fn rec_body(&mut self, env: &Env, rc: &Rc<RecCtx>, res: &Ty, depth: u32) -> Expr {
        for _ in 0..4 {
            rc.left.set(2);
            rc.used.set(0);
            let e = self.expr(env, res, depth);
            if rc.used.get() > 0 {
                return e;
            }
        }
        rc.left.set(1);
        rc.used.set(0);
        self.rec_call(env, res, depth)
            .expect("a recursive call of the right type")
    }

    // ---------------------------------------------------------------- special forms

    fn special(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        let d = depth - 1;
        match t {
            Ty::List(el) => match self.below(12) {
                0 | 1 => {
                    let n = self.range(1, 4);
                    let es: Vec<Expr> = (0..n).map(|_| self.expr(env, el, d)).collect();
                    let det = es.iter().any(|e| e.det);
                    Some(Expr::new(E::List(es), t.clone(), det))
                }
                2 | 3 => {
                    let h = self.expr(env, el, d);
                    let tl = self.expr(env, t, d);
                    let det = h.det || tl.det;
                    Some(Expr::op(":", h, tl, t.clone(), det))
                }
                4 | 5 => self.range_expr(env, el, d),
                6 | 7 => self.comprehension(env, el, d),
                8 => {
                    // take k (iterate f x), take k (repeat x), take k (cycle xs)
                    let k = Expr::int(self.range(0, 6), Ty::Int);
                    let inner = match self.below(3) {
                        0 => {
                            let f = self.expr(
                                &env.times(LOOP),
                                &Ty::fun((**el).clone(), (**el).clone()),
                                d,
                            );
                            let x = self.expr(env, el, d);
                            let det = x.det;
                            Expr::app(
                                Expr::var("iterate", opaque(), true),
                                vec![f, x],
                                t.clone(),
                                det,
                            )
                        }
                        1 => {
                            let x = self.expr(env, el, d);
                            let det = x.det;
                            Expr::app(Expr::var("repeat", opaque(), true), vec![x], t.clone(), det)
                        }
                        _ => {
                            let xs = self.pseudo(
                                env,
                                &Ty::Pseudo(Pseudo::NonEmpty, Box::new(t.clone())),
                                d,
                            );
                            let det = xs.det;
                            Expr::app(Expr::var("cycle", opaque(), true), vec![xs], t.clone(), det)
                        }
                    };
                    let det = inner.det;
                    Some(Expr::app(
                        Expr::var("take", opaque(), true),
                        vec![k, inner],
                        t.clone(),
                        det,
                    ))
                }
                9 => self.do_expr(env, t, d),
                10 => {
                    // a recursive local value: let zs = x : map f zs in take k zs
                    let zs = self.fresh("zs");
                    let x = self.expr(env, el, d);
                    let f = self.expr(
                        &env.times(LOOP),
                        &Ty::fun((**el).clone(), (**el).clone()),
                        d.min(2),
                    );
                    let zv = Expr::var(&zs, t.clone(), true);
                    let mapped = Expr::app(
                        Expr::var("map", opaque(), true),
                        vec![f, zv.clone()],
                        t.clone(),
                        true,
                    );
                    let cons = Expr::op(":", x, mapped, t.clone(), true);
                    let sig = if t.has_vars() {
                        None
                    } else {
                        Some(Sig {
                            ctx: vec![],
                            ty: t.clone(),
                        })
                    };
                    let bind = Bind::value(&zs, sig, cons);
                    let k = Expr::int(self.range(1, 6), Ty::Int);
                    let body = Expr::app(
                        Expr::var("take", opaque(), true),
                        vec![k, zv],
                        t.clone(),
                        true,
                    );
                    Some(Expr::new(
                        E::Let(vec![bind], Box::new(body)),
                        t.clone(),
                        true,
                    ))
                }
                _ => self.strategy_expr(env, t, d),
            },
            Ty::Maybe(inner) => match self.below(4) {
                0 => self.do_expr(env, t, d),
                1 => Some(Expr::con("Nothing", t.clone(), false)),
                _ => {
                    let x = self.expr(env, inner, d);
                    let det = x.det;
                    Some(Expr::app(
                        Expr::con("Just", Ty::fun((**inner).clone(), t.clone()), true),
                        vec![x],
                        t.clone(),
                        det,
                    ))
                }
            },
            Ty::Either(a, b) => match self.below(3) {
                0 => self.do_expr(env, t, d),
                1 => {
                    let x = self.expr(env, a, d);
                    Some(Expr::app(
                        Expr::con("Left", Ty::fun((**a).clone(), t.clone()), true),
                        vec![x],
                        t.clone(),
                        false,
                    ))
                }
                _ => {
                    let x = self.expr(env, b, d);
                    Some(Expr::app(
                        Expr::con("Right", Ty::fun((**b).clone(), t.clone()), true),
                        vec![x],
                        t.clone(),
                        false,
                    ))
                }
            },
            Ty::Tuple(ts) => {
                let es: Vec<Expr> = ts.iter().map(|x| self.expr(env, x, d)).collect();
                let det = es.iter().all(|e| e.det);
                Some(Expr::new(E::Tuple(es), t.clone(), det))
            }
            Ty::Data(n, args) => Some(self.data_value(env, n, args, d.min(3))),
            Ty::Fun(..) => self.fun_expr(env, t, d),
            Ty::Int | Ty::Integer | Ty::Double if self.chance(0.15) => {
                // read (show e) or read "literal"
                let s = if self.chance(0.5) {
                    let e = self.expr(env, t, d);
                    let e = self.fix(env, e)?;
                    Expr::app(
                        Expr::var("show", opaque(), true),
                        vec![e],
                        Ty::string(),
                        true,
                    )
                } else {
                    let lit = match t {
                        Ty::Double => self
                            .pick(&["2.5", "-1.25", "1.0e-3", "7", "3.0e10"])
                            .to_string(),
                        _ if self.chance(0.3) => {
                            self.pick(&["(-3)", " 12 ", "-7", "0", "(42)"]).to_string()
                        }
                        _ => self.range(-50, 1000).to_string(),
                    };
                    Expr::str(&lit)
                };
                Some(Expr::app(
                    Expr::var("read", opaque(), true),
                    vec![s],
                    t.clone(),
                    false,
                ))
            }
            Ty::Int | Ty::Integer | Ty::Double if self.chance(0.15) => {
                let e = self.expr(env, t, d);
                let det = e.det;
                Some(Expr::new(E::Neg(Box::new(e)), t.clone(), det))
            }
            Ty::Integer if self.chance(0.2) => {
                // product [1 .. 25], 2 ^ 100, 3 ^ 41 - 1, 10 ^ 20 + 7
                let n = |k: i64| Expr::int(k, Ty::Integer);
                let pow =
                    |b: i64, e: i64| Expr::op("^", n(b), Expr::int(e, Ty::Int), Ty::Integer, false);
                let offset = |op: &str, a: Expr, k: i64| Expr::op(op, a, n(k), Ty::Integer, false);
                Some(match self.below(4) {
                    0 => {
                        let r = E::Range(Box::new(n(1)), None, Some(Box::new(n(25))));
                        let r = Expr::new(r, Ty::list(Ty::Integer), false);
                        let product = Expr::var("product", opaque(), true);
                        Expr::app(product, vec![r], Ty::Integer, false)
                    }
                    1 => pow(2, 100),
                    2 => offset("-", pow(3, 41), 1),
                    _ => offset("+", pow(10, 20), 7),
                })
            }
            Ty::Char if self.chance(0.3) => {
                // chr (65 + e `mod` 26)
                let e = self.expr(env, &Ty::Int, d);
                let m = Expr::op("mod", e, Expr::int(26, Ty::Int), Ty::Int, true);
                let s = Expr::op(
                    "+",
                    Expr::int(self.pick(&[65, 97]), Ty::Int),
                    m,
                    Ty::Int,
                    true,
                );
                Some(Expr::app(
                    Expr::var("chr", opaque(), true),
                    vec![s],
                    Ty::Char,
                    true,
                ))
            }
            _ => None,
        }
    }

    /// Functions: lambdas, right sections, partial applications (via `call`).
    fn fun_expr(&mut self, env: &Env, t: &Ty, d: u32) -> Option<Expr> {
        match self.below(4) {
            0 | 1 => {
                // \p1 p2 -> body, over as many arguments as the type has (at most 3)
                let mut pats = Vec::new();
                let mut bs = Vec::new();
                let mut rt = t.clone();
                while let Ty::Fun(a1, b1) = rt.clone() {
                    if pats.len() == 3 || (!pats.is_empty() && self.chance(0.3)) {
                        break;
                    }
                    let p = self.pat(&a1, false, 1);
                    p.typed_binders(&mut bs);
                    pats.push(p);
                    rt = *b1;
                }
                let body = self.expr(&env.with_vars(&bs).no_rec(), &rt, d);
                Some(Expr::new(E::Lam(pats, Box::new(body)), t.clone(), false))
            }
            2 => {
                // a right section of a binary infix library function
                let cands: Vec<&LibFn> = table()
                    .iter()
                    .filter(|l| {
                        l.infix
                            && l.name != "-"
                            && l.name != "$"
                            && l.name != "."
                            && l.ty.split_fun().0.len() == 2
                    })
                    .collect();
                let l = cands[self.below(cands.len())];
                let f = lib_fun(l);
                let (args, res) = f.ty.split_fun();
                let want = Ty::fun(args[0].strip(), res.clone());
                let mut s = BTreeMap::new();
                if !match_ty(&want, t, &mut s) {
                    return None;
                }
                for v in f.ty.var_set() {
                    if !s.contains_key(&v) {
                        return None;
                    }
                }
                for (v, c) in &f.ctx {
                    if !self.inst().has(&s[v], *c, &env.rigid) {
                        return None;
                    }
                }
                let bt = args[1].subst(&s);
                let x = self.expr(env, &bt, d);
                Some(Expr::new(
                    E::SectionR(l.name.to_string(), Box::new(x)),
                    t.clone(),
                    false,
                ))
            }
            _ => None,
        }
    }

    fn range_expr(&mut self, env: &Env, el: &Ty, d: u32) -> Option<Expr> {
        let t = Ty::list(el.clone());
        let lit = |_: &mut Gen, n: i64| Expr::int(n, el.clone());
        match el {
            Ty::Int | Ty::Integer => {
                let lo = self.range(-3, 5);
                match self.below(4) {
                    0 => {
                        let hi = lo + self.range(-1, 8);
                        Some(Expr::new(
                            E::Range(Box::new(lit(self, lo)), None, Some(Box::new(lit(self, hi)))),
                            t,
                            false,
                        ))
                    }
                    1 => {
                        let step = self.pick(&[2, 3, -1, -2]);
                        let hi = lo + step * self.range(0, 5);
                        Some(Expr::new(
                            E::Range(
                                Box::new(lit(self, lo)),
                                Some(Box::new(lit(self, lo + step))),
                                Some(Box::new(lit(self, hi))),
                            ),
                            t,
                            false,
                        ))
                    }
                    2 => {
                        // take k [e ..]
                        let from = self.expr(env, el, d);
                        let det = from.det;
                        let r = Expr::new(E::Range(Box::new(from), None, None), t.clone(), det);
                        Some(Expr::app(
                            Expr::var("take", opaque(), true),
                            vec![Expr::int(self.range(0, 6), Ty::Int), r],
                            t,
                            det,
                        ))
                    }
                    _ => {
                        let vs = env.vars_of(el);
                        if vs.is_empty() {
                            return None;
                        }
                        let v = Expr::var(&self.pick(&vs), el.clone(), true);
                        let k = self.range(0, 6);
                        let hi = Expr::op("+", v.clone(), lit(self, k), el.clone(), true);
                        Some(Expr::new(
                            E::Range(Box::new(v), None, Some(Box::new(hi))),
                            t,
                            true,
                        ))
                    }
                }
            }
            Ty::Char => {
                let a = self.range(97, 110) as u8 as char;
                let b = (a as u8 + self.range(0, 8) as u8) as char;
                let c = |x: char| Expr::new(E::Lit(Lit::Char(x)), Ty::Char, true);
                if self.chance(0.7) {
                    Some(Expr::new(
                        E::Range(Box::new(c(a)), None, Some(Box::new(c(b)))),
                        t,
                        true,
                    ))
                } else {
                    Some(Expr::new(
                        E::Range(
                            Box::new(c(a)),
                            Some(Box::new(c((a as u8 + 2) as char))),
                            Some(Box::new(c(b))),
                        ),
                        t,
                        true,
                    ))
                }
            }
            Ty::Double => {
                let (a, b, c) = self.pick(&[
                    ("0.5", None, "3.0"),
                    ("1.0", Some("1.5"), "4.0"),
                    ("0", Some("0.1"), "1"),
                    ("1.25", None, "4"),
                    ("5.0", Some("4.5"), "2.0"),
                ]);
                let f = |s: &str| Expr::new(E::Lit(Lit::Frac(s.to_string())), Ty::Double, false);
                Some(Expr::new(
                    E::Range(
                        Box::new(f(a)),
                        b.map(|x| Box::new(f(x))),
                        Some(Box::new(f(c))),
                    ),
                    t,
                    false,
                ))
            }
            Ty::Bool | Ty::Ordering => {
                let from = self.leaf(env, el);
                Some(Expr::new(E::Range(Box::new(from), None, None), t, true))
            }
            Ty::Data(n, args)
                if args.is_empty() && self.datas[n].derived.contains(&Class::Enum) =>
            {
                let info = self.datas[n].clone();
                if self.chance(0.4) && info.derived.contains(&Class::Bounded) {
                    let lo = Expr::var("minBound", el.clone(), false);
                    let hi = Expr::var("maxBound", el.clone(), false);
                    Some(Expr::new(
                        E::Range(Box::new(lo), None, Some(Box::new(hi))),
                        t,
                        false,
                    ))
                } else {
                    let from = self.expr(env, el, d.min(1));
                    let det = from.det;
                    Some(Expr::new(E::Range(Box::new(from), None, None), t, det))
                }
            }
            _ => None,
        }
    }

    fn comprehension(&mut self, env: &Env, el: &Ty, d: u32) -> Option<Expr> {
        let mut env2 = env.times(LOOP);
        let mut quals = Vec::new();
        let ngen = self.range(1, 2);
        for _ in 0..ngen {
            let st = self.value_ty(1);
            let src = self.det_expr(&env2, &Ty::list(st.clone()), d.min(2))?;
            let p = self.pat(&st, false, 1);
            let mut bs = Vec::new();
            p.typed_binders(&mut bs);
            quals.push(Qual::Gen(p, src));
            env2 = env2.with_vars(&bs).times(LOOP);
            if self.chance(0.4) {
                let g = self.expr(&env2, &Ty::Bool, d.min(2));
                quals.push(Qual::Guard(g));
            }
            if self.chance(0.2) {
                let vt = self.value_ty(0);
                let rhs = self.det_expr(&env2, &vt, d.min(2))?;
                let v = self.fresh("w");
                quals.push(Qual::Let(vec![Bind::value(&v, None, rhs)]));
                env2 = env2.with_vars(&[(v, vt)]);
            }
        }
        let body = self.expr(&env2, el, d);
        let det = body.det;
        Some(Expr::new(
            E::Comp(Box::new(body), quals),
            Ty::list(el.clone()),
            det,
        ))
    }

    /// `do` in Maybe, lists or Either.
    fn do_expr(&mut self, env: &Env, t: &Ty, d: u32) -> Option<Expr> {
        let wrap = |inner: Ty| -> Ty {
            match t {
                Ty::Maybe(_) => Ty::maybe(inner),
                Ty::List(_) => Ty::list(inner),
                Ty::Either(e, _) => Ty::either((**e).clone(), inner),
                _ => unreachable!(),
            }
        };
        let mut env2 = if matches!(t, Ty::List(_)) {
            env.times(LOOP)
        } else {
            env.clone()
        };
        let mut stmts = Vec::new();
        let n = self.range(1, 3);
        for i in 0..n {
            // one binding statement at least: it fixes the monad, which a
            // Foldable context (`length (do ...)`) would leave open
            if i > 0 && self.chance(0.2) {
                let vt = self.value_ty(0);
                let rhs = self.det_expr(&env2, &vt, d.min(2))?;
                let v = self.fresh("w");
                stmts.push(Stmt::Let(vec![Bind::value(&v, None, rhs)]));
                env2 = env2.with_vars(&[(v, vt)]);
            } else {
                let st = self.value_ty(1);
                let m = self.det_expr(&env2, &wrap(st.clone()), d.min(2))?;
                let p = self.pat(&st, false, 1);
                let mut bs = Vec::new();
                p.typed_binders(&mut bs);
                stmts.push(Stmt::Bind(p, m));
                env2 = env2.with_vars(&bs);
                if matches!(t, Ty::List(_)) {
                    env2 = env2.times(LOOP);
                }
            }
        }
        let inner = match t {
            Ty::Maybe(x) | Ty::List(x) => (**x).clone(),
            Ty::Either(_, x) => (**x).clone(),
            _ => unreachable!(),
        };
        let last = if self.chance(0.6) {
            let e = self.expr(&env2, &inner, d);
            Expr::app(
                Expr::var("return", opaque(), true),
                vec![e],
                t.clone(),
                false,
            )
        } else {
            self.expr(&env2, t, d)
        };
        stmts.push(Stmt::Expr(last));
        Some(Expr::new(E::Do(stmts), t.clone(), false))
    }

    fn nfdata(&self, t: &Ty) -> bool {
        !t.has_vars() && self.inst().has(t, Class::NFData, &Rigid::new())
    }

    /// Strategies on a list: `xs `using` parList rdeepseq`, `parMap`, ...
    fn strategy_expr(&mut self, env: &Env, t: &Ty, d: u32) -> Option<Expr> {
        let Ty::List(el) = t else { return None };
        let unit = opaque();
        let v = |n: &str| Expr::var(n, opaque(), true);
        let elem_strat = |g: &mut Gen| -> Expr {
            if g.nfdata(el) && g.chance(0.5) {
                v("rdeepseq")
            } else {
                v(g.pick(&["rseq", "rpar", "r0"]))
            }
        };
        match self.below(3) {
            0 => {
                let xs = self.expr(env, t, d);
                let s = match self.below(4) {
                    0 => {
                        let es = elem_strat(self);
                        Expr::app(v("parList"), vec![es], unit, true)
                    }
                    1 => {
                        let es = elem_strat(self);
                        Expr::app(v("evalList"), vec![es], unit, true)
                    }
                    2 => {
                        let es = elem_strat(self);
                        Expr::app(
                            v("parListChunk"),
                            vec![Expr::int(self.range(1, 3), Ty::Int), es],
                            unit,
                            true,
                        )
                    }
                    _ => {
                        let es = elem_strat(self);
                        Expr::app(
                            v("parBuffer"),
                            vec![Expr::int(self.range(1, 3), Ty::Int), es],
                            unit,
                            true,
                        )
                    }
                };
                let det = xs.det;
                Some(Expr::op("using", xs, s, t.clone(), det))
            }
            1 => {
                let at = self.value_ty(1);
                let f = self.expr(&env.times(LOOP), &Ty::fun(at.clone(), (**el).clone()), d);
                let xs = self.det_expr(env, &Ty::list(at), d)?;
                let s = elem_strat(self);
                Some(Expr::app(v("parMap"), vec![s, f, xs], t.clone(), false))
            }
            _ => {
                let xs = self.expr(env, t, d);
                let s = elem_strat(self);
                let det = xs.det;
                Some(Expr::app(
                    v("withStrategy"),
                    vec![Expr::app(v("parList"), vec![s], opaque(), true), xs],
                    t.clone(),
                    det,
                ))
            }
        }
    }

    /// par/pseq around let-bound values, `runEval` with rpar/rseq, Eden's process.
    fn par_expr(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        let d = depth - 1;
        match self.below(3) {
            0 => {
                // let { a = e1; b = e2 } in a `par` (b `pseq` body)
                let ta = self.value_ty(1);
                let tb = self.value_ty(1);
                let ea = self.det_expr(&env.no_rec(), &ta, d)?;
                let eb = self.det_expr(&env.no_rec(), &tb, d)?;
                let a = self.fresh("pa");
                let b = self.fresh("pb");
                let env2 = env.with_vars(&[(a.clone(), ta.clone()), (b.clone(), tb.clone())]);
                let body = self.expr(&env2, t, d);
                let det = body.det;
                let inner = Expr::op("pseq", Expr::var(&b, tb, true), body, t.clone(), det);
                let whole = Expr::op("par", Expr::var(&a, ta, true), inner, t.clone(), det);
                let binds = vec![Bind::value(&a, None, ea), Bind::value(&b, None, eb)];
                Some(Expr::new(E::Let(binds, Box::new(whole)), t.clone(), det))
            }
            1 => {
                // runEval (do { a <- rpar e1; b <- rseq e2; return body })
                let ta = self.value_ty(1);
                let ea = self.det_expr(&env.no_rec(), &ta, d)?;
                let a = self.fresh("ea");
                let mut stmts = vec![Stmt::Bind(
                    Pat::var(&a, ta.clone()),
                    Expr::app(Expr::var("rpar", opaque(), true), vec![ea], opaque(), true),
                )];
                let mut env2 = env.with_vars(&[(a.clone(), ta.clone())]);
                if self.chance(0.5) {
                    let tb = self.value_ty(1);
                    let eb = self.det_expr(&env.no_rec(), &tb, d)?;
                    let b = self.fresh("eb");
                    stmts.push(Stmt::Bind(
                        Pat::var(&b, tb.clone()),
                        Expr::app(Expr::var("rseq", opaque(), true), vec![eb], opaque(), true),
                    ));
                    env2 = env2.with_vars(&[(b, tb)]);
                }
                let body = self.expr(&env2, t, d);
                let det = body.det;
                stmts.push(Stmt::Expr(Expr::app(
                    Expr::var("return", opaque(), true),
                    vec![body],
                    opaque(),
                    det,
                )));
                Some(Expr::app(
                    Expr::var("runEval", opaque(), true),
                    vec![Expr::new(E::Do(stmts), opaque(), det)],
                    t.clone(),
                    det,
                ))
            }
            _ => {
                // process (\x -> body) # arg
                let at = self.value_ty(1);
                let x = self.fresh("x");
                let body = self.expr(&env.with_vars(&[(x.clone(), at.clone())]).no_rec(), t, d);
                let arg = self.det_expr(&env.no_rec(), &at, d)?;
                let lam = Expr::new(
                    E::Lam(vec![Pat::var(&x, at.clone())], Box::new(body)),
                    Ty::fun(at, t.clone()),
                    false,
                );
                let p = Expr::app(
                    Expr::var("process", opaque(), true),
                    vec![lam],
                    opaque(),
                    false,
                );
                Some(Expr::op("#", p, arg, t.clone(), false))
            }
        }
    }

    /// A value that must never be evaluated (`undefined`, `error "..."`)
    /// beside `e`, where a lazy language drops it: a compiler that forces it
    /// fails where GHC does not.
    fn lazy_expr(&mut self, env: &Env, t: &Ty, depth: u32) -> Option<Expr> {
        let e = self.expr(env, t, depth - 1);
        let det = e.det;
        let ut = self.value_ty(1);
        let bomb = |g: &mut Gen, ty: &Ty| -> Expr {
            let b = if g.chance(0.5) {
                Expr::var("undefined", ty.clone(), false)
            } else {
                let msg = g.pick(&["never", "lazy", "not needed"]);
                Expr::app(
                    Expr::var("error", opaque(), true),
                    vec![Expr::str(msg)],
                    ty.clone(),
                    false,
                )
            };
            Expr::ann(b)
        };
        let op = |n: &str| Expr::var(n, opaque(), true);
        Some(match self.below(7) {
            0 => {
                let b = bomb(self, &ut);
                let pair = Expr::new(E::Tuple(vec![e, b]), Ty::Tuple(vec![t.clone(), ut]), det);
                Expr::app(op("fst"), vec![pair], t.clone(), det)
            }
            1 => {
                let b = bomb(self, &ut);
                let pair = Expr::new(E::Tuple(vec![b, e]), Ty::Tuple(vec![ut, t.clone()]), det);
                Expr::app(op("snd"), vec![pair], t.clone(), det)
            }
            2 => {
                let b = bomb(self, &ut);
                Expr::app(op("const"), vec![e, b], t.clone(), det)
            }
            3 => {
                let u = self.fresh("unused");
                let b = bomb(self, &ut);
                let bind = Bind::value(&u, None, b);
                Expr::new(E::Let(vec![bind], Box::new(e)), t.clone(), det)
            }
            4 => {
                // (\ ~(a, b) -> e) undefined
                let vt = self.value_ty(0);
                let tt = Ty::Tuple(vec![ut.clone(), vt.clone()]);
                let a = self.fresh("a");
                let b2 = self.fresh("b");
                let p = Pat::new(
                    P::Lazy(Box::new(Pat::new(
                        P::Tuple(vec![Pat::var(&a, ut), Pat::var(&b2, vt)]),
                        tt.clone(),
                    ))),
                    tt.clone(),
                );
                let lam = Expr::new(
                    E::Lam(vec![p], Box::new(e)),
                    Ty::fun(tt.clone(), t.clone()),
                    false,
                );
                let b = bomb(self, &tt);
                Expr::app(lam, vec![b], t.clone(), det)
            }
            5 => {
                // take k (xs ++ undefined), with k at most the length of xs
                let Ty::List(_) = t else { return None };
                let E::List(items) = &e.kind else { return None };
                let k = self.range(0, items.len() as i64);
                let b = bomb(self, t);
                let cat = Expr::op("++", e, b, t.clone(), det);
                Expr::app(op("take"), vec![Expr::int(k, Ty::Int), cat], t.clone(), det)
            }
            _ => {
                // length of a list of bombs, or `null (bomb : _)`
                if *t != Ty::Int && *t != Ty::Bool {
                    return None;
                }
                let n = self.range(1, 3);
                let items: Vec<Expr> = (0..n).map(|_| bomb(self, &ut)).collect();
                let xs = Expr::new(E::List(items), Ty::list(ut), true);
                if *t == Ty::Int {
                    Expr::app(op("length"), vec![xs], Ty::Int, true)
                } else {
                    Expr::app(op("null"), vec![xs], Ty::Bool, true)
                }
            }
        })
    }

    /// A binary operator of the user's, with a fixity declaration.
    fn operator_decl(&mut self) -> Option<Vec<Bind>> {
        let pool = [
            "<+>", "|>", "+++", ".*.", "<?>", "***", "%%", "^^^", "<=>", "&&&", "-|-", "<:>",
        ];
        let used: BTreeSet<String> = self.globals.iter().map(|g| g.name.clone()).collect();
        let free: Vec<&str> = pool
            .iter()
            .copied()
            .filter(|o| !used.contains(*o))
            .collect();
        if free.is_empty() {
            return None;
        }
        let name = self.pick(&free).to_string();
        let poly = self.chance(0.3);
        let mut env = Env::top();
        let mut ctx = Vec::new();
        let (a, b, r) = if poly {
            let cs = self.pick(&[
                vec![Class::Num],
                vec![Class::Ord],
                vec![Class::Show],
                vec![Class::Eq, Class::Show],
            ]);
            env.rigid.insert("a".into(), closure(&cs));
            ctx = cs.iter().map(|c| ("a".to_string(), *c)).collect::<Vec<_>>();
            let v = Ty::var("a");
            let r = self.pick(&[
                v.clone(),
                Ty::list(v.clone()),
                Ty::Tuple(vec![v.clone(), v.clone()]),
            ]);
            (v.clone(), v, r)
        } else {
            let a = self.value_ty(1);
            let b = if self.chance(0.6) {
                a.clone()
            } else {
                self.value_ty(1)
            };
            let r = if self.chance(0.5) {
                a.clone()
            } else {
                self.value_ty(1)
            };
            (a, b, r)
        };
        let x = self.fresh("l");
        let y = self.fresh("r");
        let env1 = env.with_vars(&[(x.clone(), a.clone()), (y.clone(), b.clone())]);
        self.cost = 0;
        let rhs = self.rhs(&env1, &r, 3, false);
        let cost = self.cost.max(1);
        let assoc = self.pick(&[Assoc::Left, Assoc::Right, Assoc::None]);
        let prec = self.range(1, 9) as u8;
        self.fixities.push(Fixity {
            assoc,
            prec,
            op: name.clone(),
        });
        let fty = Ty::funs(&[a.clone(), b.clone()], r);
        let f = Fun::scheme(&name, &fty, &["a".to_string()], &ctx, true, cost, None);
        self.globals.push(f);
        Some(vec![Bind::Fun(FunBind {
            name,
            sig: Some(Sig {
                ctx: ctx.iter().map(|(v, c)| (*c, v.clone())).collect(),
                ty: fty,
            }),
            clauses: vec![Clause::new(vec![Pat::var(&x, a), Pat::var(&y, b)], rhs)],
        })])
    }

    // ---------------------------------------------------------------- top level

    fn top_decl(&mut self) -> Vec<Bind> {
        let k = self.globals.len() + 1;
        let kind = self.below(100);
        if kind < 6 {
            // a value with a signature
            let t = self.value_ty(2);
            let name = format!("v{k}");
            self.cost = 0;
            let e = self.expr(&Env::top(), &t, 3);
            let cost = self.cost.max(1);
            self.globals.push(Fun::mono(&name, t.clone(), cost));
            return vec![Bind::value(&name, Some(Sig { ctx: vec![], ty: t }), e)];
        }
        if kind < 9 {
            // a top-level pattern binding
            let ts = vec![self.value_ty(1), self.value_ty(1)];
            let tt = Ty::Tuple(ts.clone());
            let env = Env::top();
            self.cost = 0;
            if let Some(e) = self.det_expr(&env, &tt, 3) {
                let cost = self.cost.max(1);
                let a = format!("p{k}");
                let b = format!("q{k}");
                self.globals.push(Fun::mono(&a, ts[0].clone(), cost));
                self.globals.push(Fun::mono(&b, ts[1].clone(), cost));
                return vec![Bind::Pat(
                    Pat::new(
                        P::Tuple(vec![
                            Pat::var(&a, ts[0].clone()),
                            Pat::var(&b, ts[1].clone()),
                        ]),
                        tt,
                    ),
                    e,
                )];
            }
        }
        if kind < 17 {
            return self.mutual_pair();
        }
        if kind < 25 {
            if let Some(d) = self.operator_decl() {
                return d;
            }
        }
        let name = format!("f{k}");
        let poly = self.chance(0.4);
        let mut env = Env::top();
        let mut ctx: Vec<(String, Class)> = Vec::new();
        let mut tvars: Vec<String> = Vec::new();
        if poly {
            let nv = if self.chance(0.8) { 1 } else { 2 };
            for v in ["a", "b"].iter().take(nv) {
                let cs = self.pick(&[
                    vec![],
                    vec![Class::Show],
                    vec![Class::Eq],
                    vec![Class::Ord],
                    vec![Class::Ord, Class::Show],
                    vec![Class::Eq, Class::Show],
                    vec![Class::Num],
                    vec![Class::Num, Class::Show],
                    vec![Class::Num, Class::Ord, Class::Show],
                    vec![Class::Integral],
                    vec![Class::Integral, Class::Show],
                    vec![Class::Fractional, Class::Show],
                    vec![Class::Enum, Class::Show],
                    vec![Class::Bounded, Class::Show],
                ]);
                env.rigid.insert(v.to_string(), closure(&cs));
                ctx.extend(cs.iter().map(|c| (v.to_string(), *c)));
                tvars.push(v.to_string());
            }
        }
        // parameters: each type variable appears alone at least once
        let mut ptys: Vec<Ty> = tvars.iter().map(|v| Ty::var(v)).collect();
        let extra = self.range(if ptys.is_empty() { 1 } else { 0 }, 2);
        for _ in 0..extra {
            let t = if !tvars.is_empty() && self.chance(0.5) {
                let v = Ty::var(&self.pick(&tvars));
                self.pick(&[
                    Ty::list(v.clone()),
                    Ty::maybe(v.clone()),
                    Ty::Tuple(vec![v.clone(), Ty::Int]),
                    Ty::fun(v.clone(), v),
                ])
            } else if self.chance(0.1) {
                let a = self.value_ty(0);
                let b = self.value_ty(0);
                Ty::fun(a, b)
            } else {
                self.value_ty(2)
            };
            ptys.push(t);
        }
        let rot = self.below(ptys.len());
        ptys.rotate_left(rot);
        let res = if !tvars.is_empty() && self.chance(0.5) {
            let v = Ty::var(&self.pick(&tvars));
            self.pick(&[
                v.clone(),
                Ty::list(v.clone()),
                Ty::Tuple(vec![v.clone(), Ty::string()]),
                Ty::maybe(v),
            ])
        } else {
            self.value_ty(2)
        };
        // shape
        let shape = self.below(10);
        let mut rec_kind = 0;
        let mut fuel = None;
        if shape < 3 {
            ptys.insert(0, Ty::Int);
            rec_kind = 1;
            fuel = Some(0);
        } else if shape < 5 {
            let el = if !tvars.is_empty() {
                Ty::var(&tvars[0])
            } else {
                self.value_ty(1)
            };
            ptys.insert(0, Ty::list(el));
            rec_kind = 2;
        } else if shape < 7 {
            // recursion over a recursive user type
            let recs: Vec<String> = self
                .datas
                .iter()
                .filter(|(_, d)| d.cons.iter().any(|(c, _)| self.cons[c].2))
                .map(|(n, _)| n.clone())
                .collect();
            if !recs.is_empty() {
                let n = self.pick(&recs);
                let np = self.datas[&n].params.len();
                let args: Vec<Ty> = (0..np)
                    .map(|_| {
                        if !tvars.is_empty() && self.chance(0.5) {
                            Ty::var(&tvars[0])
                        } else {
                            self.value_ty(0)
                        }
                    })
                    .collect();
                ptys.insert(0, Ty::Data(n, args));
                rec_kind = 3;
            }
        }
        let fty = Ty::funs(&ptys, res.clone());
        self.cost = 0;
        let depth = self.range(3, 4) as u32;
        let mut clauses = if rec_kind == 3 {
            self.data_rec_clauses(&env, &name, &ptys, &res, depth)
        } else {
            self.fun_clauses(&env, &name, &ptys, &res, rec_kind, depth)
        };
        // where bindings on the last clause sometimes
        if self.chance(0.3) && rec_kind == 0 {
            let last = clauses.last_mut().unwrap();
            let mut bs = Vec::new();
            last.pats.iter().for_each(|p| p.typed_binders(&mut bs));
            let env1 = env.with_vars(&bs);
            let (wheres, env2) = self.local_binds(&env1, 2);
            if !wheres.is_empty() {
                last.wheres = wheres;
                last.rhs = self.rhs(&env2, &res, depth, false);
            }
        }
        let body_cost = self.cost.max(1);
        let cost = match rec_kind {
            0 => body_cost,
            1 => body_cost * 12,
            _ => body_cost * 20,
        };
        let with_sig = poly || self.chance(0.9);
        let f = Fun::scheme(&name, &fty, &tvars, &ctx, with_sig, cost, fuel);
        self.globals.push(f);
        vec![Bind::Fun(FunBind {
            name,
            sig: if with_sig {
                Some(Sig {
                    ctx: ctx.iter().map(|(v, c)| (*c, v.clone())).collect(),
                    ty: fty,
                })
            } else {
                None
            },
            clauses,
        })]
    }

    /// One clause per constructor of a recursive user type (parameter 0),
    /// recursive calls on the fields of the same type.
    fn data_rec_clauses(
        &mut self,
        env: &Env,
        name: &str,
        ptys: &[Ty],
        res: &Ty,
        depth: u32,
    ) -> Vec<Clause> {
        let Ty::Data(dn, args) = &ptys[0] else {
            unreachable!()
        };
        let info = self.datas[dn].clone();
        let s = params_to(&info.params, args);
        let mut rest_pats = Vec::new();
        let mut vars = Vec::new();
        for t in &ptys[1..] {
            let v = self.fresh("x");
            rest_pats.push(Pat::var(&v, t.clone()));
            vars.push((v, t.clone()));
        }
        let mut clauses = Vec::new();
        for (c, fs) in &info.cons {
            let mut sub = Vec::new();
            let mut decs = Vec::new();
            let mut bs = vars.clone();
            for f in fs {
                let ft = f.subst(&s);
                let v = self.fresh(if ft == ptys[0] { "sub" } else { "z" });
                if ft == ptys[0] {
                    decs.push(Expr::var(&v, ft.clone(), true));
                }
                bs.push((v.clone(), ft.clone()));
                sub.push(Pat::var(&v, ft));
            }
            let mut env1 = env.with_vars(&bs);
            let rhs = if decs.is_empty() {
                self.expr(&env1, res, depth.min(2))
            } else {
                let rc = RecCtx::one(name, ptys, res, decs);
                env1.rec = Some(rc.clone());
                self.rec_body(&env1, &rc, res, depth)
            };
            let mut pats = vec![Pat::new(P::Con(c.clone(), sub), ptys[0].clone())];
            pats.extend(rest_pats.clone());
            clauses.push(Clause::new(pats, Rhs::Plain(rhs)));
        }
        clauses
    }

    /// Two mutually recursive functions on fuel.
    fn mutual_pair(&mut self) -> Vec<Bind> {
        let k = self.globals.len() + 1;
        let names = [format!("f{k}"), format!("f{}", k + 1)];
        let mut sigs = Vec::new();
        for _ in 0..2 {
            let np = self.range(0, 1);
            let mut ptys = vec![Ty::Int];
            for _ in 0..np {
                ptys.push(self.value_ty(1));
            }
            let res = self.value_ty(1);
            sigs.push((ptys, res));
        }
        let mut binds = Vec::new();
        let mut costs = Vec::new();
        for i in 0..2 {
            let (ptys, res) = sigs[i].clone();
            let n = self.fresh("n");
            let mut pats = vec![Pat::var(&n, Ty::Int)];
            let mut vars = vec![(n.clone(), Ty::Int)];
            for t in &ptys[1..] {
                let v = self.fresh("x");
                pats.push(Pat::var(&v, t.clone()));
                vars.push((v, t.clone()));
            }
            let env = Env { vars, ..Env::top() };
            self.cost = 0;
            let base = self.expr(&env, &res, 2);
            let other = 1 - i;
            let rc = Rc::new(RecCtx {
                targets: vec![
                    RecTarget {
                        name: names[other].clone(),
                        args: sigs[other].0.clone(),
                        res: sigs[other].1.clone(),
                        decs: vec![fuel_less(&n)],
                    },
                    RecTarget {
                        name: names[i].clone(),
                        args: ptys.clone(),
                        res: res.clone(),
                        decs: vec![fuel_less(&n)],
                    },
                ],
                left: Cell::new(1),
                used: Cell::new(0),
            });
            let mut env_r = env.clone();
            env_r.rec = Some(rc.clone());
            // the step must call the other function: find one of its result type
            let mut step = None;
            for _ in 0..6 {
                rc.left.set(1);
                rc.used.set(0);
                let e = self.expr(&env_r, &res, 3);
                if rc.used.get() > 0 && mentions(&e, &names[other]) {
                    step = Some(e);
                    break;
                }
            }
            let step = match step {
                Some(e) => e,
                None => {
                    // the other's result, observed through a let
                    let r = self.fresh("r");
                    let mut args = vec![fuel_less(&n)];
                    for t in &sigs[other].0[1..] {
                        args.push(self.expr(&env, t, 1));
                    }
                    let call = Expr::app(
                        Expr::var(
                            &names[other],
                            Ty::funs(&sigs[other].0, sigs[other].1.clone()),
                            true,
                        ),
                        args,
                        sigs[other].1.clone(),
                        true,
                    );
                    let env2 = env.with_vars(&[(r.clone(), sigs[other].1.clone())]);
                    let body = self.expr(&env2, &res, 2);
                    let bind = Bind::value(&r, None, call);
                    Expr::new(E::Let(vec![bind], Box::new(body)), res.clone(), true)
                }
            };
            costs.push(self.cost.max(1));
            binds.push(Bind::Fun(FunBind {
                name: names[i].clone(),
                sig: Some(Sig {
                    ctx: vec![],
                    ty: Ty::funs(&ptys, res.clone()),
                }),
                clauses: vec![Clause::new(pats, fuel_guards(&n, base, step))],
            }));
        }
        let cost = (costs[0] + costs[1]) * 12;
        for i in 0..2 {
            self.globals.push(Fun {
                name: names[i].clone(),
                ty: Ty::funs(&sigs[i].0, sigs[i].1.clone()),
                ctx: vec![],
                determining: true,
                cost,
                fuel: Some(0),
            });
        }
        binds
    }

    // ---------------------------------------------------------------- main

    fn show_expr(&mut self, e: Expr) -> Expr {
        Expr::app(
            Expr::var("show", opaque(), true),
            vec![e],
            Ty::string(),
            true,
        )
    }

    /// A statement printing `e` (determined, showable).
    fn print_stmt(&mut self, e: Expr, label: &str) -> Stmt {
        let io = opaque();
        match self.below(6) {
            0 if e.ty == Ty::string() => Stmt::Expr(Expr::app(
                Expr::var("putStrLn", io.clone(), true),
                vec![e],
                io,
                true,
            )),
            1 => {
                let s = self.show_expr(e);
                let l = Expr::str(&format!("{label}: "));
                let cat = Expr::op("++", l, s, Ty::string(), true);
                Stmt::Expr(Expr::app(
                    Expr::var("putStrLn", io.clone(), true),
                    vec![cat],
                    io,
                    true,
                ))
            }
            2 => {
                let s = self.show_expr(e);
                Stmt::Expr(Expr::op(
                    "$",
                    Expr::var("putStrLn", io.clone(), true),
                    s,
                    io,
                    true,
                ))
            }
            3 if matches!(e.ty, Ty::List(_)) && e.ty != Ty::string() => Stmt::Expr(Expr::app(
                Expr::var("mapM_", io.clone(), true),
                vec![Expr::var("print", io.clone(), true), e],
                io,
                true,
            )),
            4 => Stmt::Expr(Expr::op(
                "$",
                Expr::var("print", io.clone(), true),
                e,
                io,
                true,
            )),
            _ => Stmt::Expr(Expr::app(
                Expr::var("print", io.clone(), true),
                vec![e],
                io,
                true,
            )),
        }
    }

    fn showable(&self, t: &Ty) -> bool {
        self.inst().has(t, Class::Show, &Rigid::new())
    }

    fn main_stmts(&mut self, expect_error: bool, decls: &mut Vec<Bind>) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let mut env = Env::top();
        let globals = self.globals.clone();
        for g in &globals {
            let calls = if g.ctx.is_empty() && !g.ty.has_vars() {
                1
            } else {
                2
            };
            for _ in 0..calls {
                if let Some(s) = self.call_stmt(&env, g) {
                    stmts.push(s);
                }
            }
        }
        // some more expressions of showable types, and a let statement
        let extra = self.range(2, 5);
        for i in 0..extra {
            if i == 0 && self.chance(0.5) {
                let vt = self.value_ty(1);
                let v = self.fresh("r");
                if let Some(e) = self.det_expr(&env, &vt, 3) {
                    stmts.push(Stmt::Let(vec![Bind::value(&v, None, e)]));
                    env.vars.push((v, vt));
                }
                continue;
            }
            let t = loop {
                let t = self.value_ty(2);
                if self.showable(&t) {
                    break t;
                }
            };
            self.cost = 0;
            if let Some(e) = self.det_expr(&env, &t, 4) {
                if self.cost <= MAIN_BUDGET {
                    let s = self.print_stmt(e, "value");
                    stmts.push(s);
                }
            }
        }
        let n = stmts.len();
        let cut = self.below(n + 1);
        stmts.rotate_left(cut.min(n));
        // a `let` must come before its uses: keep let statements first
        stmts.sort_by_key(|s| !matches!(s, Stmt::Let(_)));
        if expect_error {
            stmts.push(self.error_stmt(decls));
        }
        stmts
    }

    /// `print (f args)` at an instance of f's type.
    fn call_stmt(&mut self, env: &Env, g: &Fun) -> Option<Stmt> {
        let (args, res) = g.ty.split_fun();
        let mut s = BTreeMap::new();
        for v in res.var_set() {
            let cs = closure(
                &g.ctx
                    .iter()
                    .filter(|(x, _)| *x == v)
                    .map(|(_, c)| *c)
                    .collect::<Vec<_>>(),
            );
            let mut cs2 = cs.clone();
            cs2.insert(Class::Show);
            let t = self
                .ty_with(env, &cs2, false)
                .or_else(|| self.ty_with(env, &cs, false))?;
            s.insert(v, t);
        }
        let res_t = res.subst(&s);
        let mut extra_args: Vec<Ty> = Vec::new();
        let mut rt = res_t.clone();
        while let Ty::Fun(a, b) = rt.clone() {
            extra_args.push(*a);
            rt = *b;
        }
        if !self.showable(&rt) {
            return None;
        }
        self.cost = 0;
        let call = self.apply(env, g, false, false, args.len(), &res_t, 3)?;
        let call = if extra_args.is_empty() {
            call
        } else {
            let es: Vec<Expr> = extra_args.iter().map(|a| self.arg(env, a, 2)).collect();
            let det = call.det;
            Expr::app(call, es, rt.clone(), det)
        };
        let call = if call.det { call } else { Expr::ann(call) };
        if self.cost > MAIN_BUDGET {
            return None;
        }
        Some(self.print_stmt(call, &g.name))
    }

    /// A statement that fails at run time after the output so far.
    fn error_stmt(&mut self, decls: &mut Vec<Bind>) -> Stmt {
        let io = opaque();
        let print = |e: Expr| {
            Stmt::Expr(Expr::app(
                Expr::var("print", opaque(), true),
                vec![e],
                opaque(),
                true,
            ))
        };
        let int = |n: i64| Expr::int(n, Ty::Int);
        match self.below(7) {
            0 => {
                let e = Expr::app(
                    Expr::var("head", opaque(), true),
                    vec![Expr::ann(Expr::con("[]", Ty::list(Ty::Int), false))],
                    Ty::Int,
                    true,
                );
                print(e)
            }
            1 => {
                let msg = Expr::str("boom");
                Stmt::Expr(Expr::app(
                    Expr::var("putStrLn", io.clone(), true),
                    vec![Expr::app(
                        Expr::var("error", opaque(), true),
                        vec![msg],
                        Ty::string(),
                        true,
                    )],
                    io,
                    true,
                ))
            }
            2 => {
                let e = Expr::op("div", int(1), Expr::ann(int(0)), Ty::Int, true);
                print(e)
            }
            3 => {
                // a partial tuple: "(1," is printed before the error
                let e = Expr::new(
                    E::Tuple(vec![
                        Expr::ann(int(self.range(0, 9))),
                        Expr::ann(Expr::app(
                            Expr::var("error", opaque(), true),
                            vec![Expr::str("late")],
                            Ty::Int,
                            false,
                        )),
                    ]),
                    Ty::Tuple(vec![Ty::Int, Ty::Int]),
                    true,
                );
                print(e)
            }
            4 => {
                let xs = Expr::new(
                    E::List(vec![
                        int(1),
                        int(2),
                        Expr::app(
                            Expr::var("error", opaque(), true),
                            vec![Expr::str("third")],
                            Ty::Int,
                            true,
                        ),
                    ]),
                    Ty::list(Ty::Int),
                    false,
                );
                Stmt::Expr(Expr::app(
                    Expr::var("mapM_", io.clone(), true),
                    vec![Expr::var("print", io.clone(), true), Expr::ann(xs)],
                    io,
                    true,
                ))
            }
            5 => {
                // an incomplete function
                let name = format!("partial{}", self.globals.len() + 1);
                decls.push(Bind::Fun(FunBind {
                    name: name.clone(),
                    sig: Some(Sig {
                        ctx: vec![],
                        ty: Ty::fun(Ty::Int, Ty::string()),
                    }),
                    clauses: vec![
                        Clause::new(
                            vec![Pat::new(P::Lit(Lit::Num("0".into())), Ty::Int)],
                            Rhs::Plain(Expr::str("zero")),
                        ),
                        Clause::new(
                            vec![Pat::new(P::Lit(Lit::Num("1".into())), Ty::Int)],
                            Rhs::Plain(Expr::str("one")),
                        ),
                    ],
                }));
                let e = Expr::app(
                    Expr::var(&name, Ty::fun(Ty::Int, Ty::string()), true),
                    vec![int(self.range(2, 9))],
                    Ty::string(),
                    true,
                );
                Stmt::Expr(Expr::app(
                    Expr::var("putStrLn", io.clone(), true),
                    vec![e],
                    io,
                    true,
                ))
            }
            _ => {
                // an incomplete case
                let xs = Expr::ann(Expr::new(E::List(vec![int(3)]), Ty::list(Ty::Int), false));
                let alt = Alt {
                    pat: Pat::new(P::Con("[]".into(), vec![]), Ty::list(Ty::Int)),
                    rhs: Rhs::Plain(int(0)),
                };
                print(Expr::new(E::Case(Box::new(xs), vec![alt]), Ty::Int, true))
            }
        }
    }
}

fn mentions_any(t: &Ty, names: &BTreeSet<String>) -> bool {
    match t {
        Ty::Data(n, args) => names.contains(n) || args.iter().any(|a| mentions_any(a, names)),
        _ => t.children().iter().any(|c| mentions_any(c, names)),
    }
}

fn mentions(e: &Expr, name: &str) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let E::Var(n) = &x.kind {
            if n == name {
                found = true;
            }
        }
    });
    found
}

/// `n - 1`
fn fuel_less(n: &str) -> Expr {
    let n = Expr::var(n, Ty::Int, true);
    Expr::op("-", n, Expr::int(1, Ty::Int), Ty::Int, true)
}

/// `n <= 0`
fn fuel_out(n: &str) -> Expr {
    let n = Expr::var(n, Ty::Int, true);
    Expr::op("<=", n, Expr::int(0, Ty::Int), Ty::Bool, true)
}

/// `| n <= 0 = base | otherwise = step`
fn fuel_guards(n: &str, base: Expr, step: Expr) -> Rhs {
    Rhs::Guarded(vec![
        (fuel_out(n), base),
        (Expr::var("otherwise", Ty::Bool, true), step),
    ])
}

fn lib_fun(l: &LibFn) -> Fun {
    Fun {
        name: l.name.to_string(),
        ty: l.ty.clone(),
        ctx: l.ctx.clone(),
        determining: true,
        cost: 1,
        fuel: None,
    }
}
