//! Strictness analysis and worker/wrapper on the lifted program.
//!
//! * [`strict_vars`]: the variables certainly evaluated (to WHNF) when an
//!   expression is evaluated to WHNF. A parameter of a function is strict
//!   when its body's set contains it; recursive groups are solved by
//!   iterating from "everything strict" down to a fixed point (the greatest
//!   fixed point, as usual for strictness). Calls to known functions are
//!   strict in the arguments at strict parameters; primitives in their
//!   arguments of primitive type; a `case` in its scrutinee and in what
//!   every alternative is strict in. A call of `error` counts as strict in
//!   nothing (conservative: the order of errors is kept), and an
//!   alternative that is such a call is left out of the intersection.
//! * Types are not in Core, so unboxing is driven by evidence: a variable is
//!   an `Int` (`Double`, `Char`) when it is passed to a primitive at an
//!   argument of that type, matched against literals of that type, or
//!   passed to an unboxed parameter of a worker. A function's result is an
//!   `Int` when every way out of its body returns an `Int` expression (a
//!   literal, an `Int` primitive, a call of a worker returning `Int`, an
//!   unboxed variable) or fails with `error`.
//! * A function with a strict parameter that is an `Int`/`Double`/`Char`,
//!   or with an unboxed result, gets a worker (`f$w`) with those parameters
//!   in value registers and that return kind; `f` itself becomes a wrapper
//!   (evaluate, unbox, call the worker, box), used for unknown calls.
//!   Known saturated calls go to the worker directly (`CallV`).

use crate::back::lift::{self, GlobalKind};
use crate::back::prims::{self, Op, PrimInfo, Special, ValueKind};
use crate::core::{AltCon, Bind, Expr, Lit};
use gph_code::{RetKind, ScKind};
use gph_syntax::lexer::Sym;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worker {
    /// Per parameter: unboxed of that kind, or boxed.
    pub params: Vec<Option<ValueKind>>,
    pub ret: RetKind,
}

#[derive(Clone, Debug, Default)]
pub struct Info {
    /// Per function supercombinator: which parameters are strict.
    pub strict: HashMap<Sym, Vec<bool>>,
    pub workers: HashMap<Sym, Worker>,
}

impl Info {
    pub fn is_strict(&self, f: &str, i: usize) -> bool {
        self.strict
            .get(f)
            .and_then(|s| s.get(i))
            .copied()
            .unwrap_or(false)
    }

    /// A readable summary (for dumps and tests).
    pub fn show(&self, names: &[Sym]) -> String {
        let mut out = String::new();
        for n in names {
            if let Some(s) = self.strict.get(n) {
                let flags: String = s.iter().map(|b| if *b { 'S' } else { 'L' }).collect();
                let _ = write!(out, "{n}: {flags}");
                if let Some(w) = self.workers.get(n) {
                    let ps: Vec<String> = w
                        .params
                        .iter()
                        .map(|p| match p {
                            Some(k) => format!("{k:?}"),
                            None => "_".into(),
                        })
                        .collect();
                    let _ = write!(out, "  worker ({}) -> {:?}", ps.join(", "), w.ret);
                }
                out.push('\n');
            }
        }
        out
    }
}

/// What the analyses know about globals.
pub struct Env<'a> {
    pub lp: &'a lift::Program,
    pub prims: HashMap<Sym, PrimInfo>,
    pub info: Info,
    /// The GADT constructors that refine their type's parameters.
    refining: HashSet<Sym>,
}

/// A set of variables, or "everything" (not used: see the module comment).
type Set = HashSet<u32>;

impl<'a> Env<'a> {
    pub fn new(lp: &'a lift::Program) -> Env<'a> {
        let prims = lp
            .prims
            .iter()
            .filter_map(|(orig, name, _)| prims::lookup(name).map(|p| (orig.clone(), p)))
            .collect();
        let refining = lp
            .data
            .iter()
            .flat_map(|d| &d.constrs)
            .filter(|c| c.refines)
            .map(|c| c.name.clone())
            .collect();
        Env {
            lp,
            prims,
            info: Info::default(),
            refining,
        }
    }

    pub fn global_kind(&self, g: &str) -> Option<GlobalKind> {
        if let Some(sc) = self.lp.sc(g) {
            return Some(match sc.kind {
                ScKind::Fun => GlobalKind::Fun(sc.params.len()),
                ScKind::Caf => GlobalKind::Caf,
                ScKind::Thunk => GlobalKind::Thunk,
            });
        }
        self.prims.get(g).map(|p| {
            if p.arity() == 0 {
                GlobalKind::Caf
            } else {
                GlobalKind::Fun(p.arity())
            }
        })
    }

    /// Variables certainly evaluated when `e` is evaluated.
    pub fn strict_vars(&self, e: &Expr) -> Set {
        let mut s = Set::new();
        self.sv(e, &mut s, 0);
        s
    }

    fn sv(&self, e: &Expr, out: &mut Set, depth: usize) {
        gph_syntax::stack::guard();
        if depth > 200 {
            return;
        }
        match e {
            Expr::Local(v) => {
                out.insert(v.id);
            }
            Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) | Expr::Lam(..) => {}
            Expr::App(f, args) => match &**f {
                Expr::Local(v) => {
                    out.insert(v.id);
                }
                Expr::Global(g) => {
                    if let Some(p) = self.prims.get(g) {
                        if args.len() < p.arity() {
                            return;
                        }
                        match p.op {
                            Op::Special(Special::Seq) => {
                                self.sv(&args[0], out, depth + 1);
                                self.sv(&args[1], out, depth + 1);
                            }
                            // `a `pseq` b` evaluates b only after a (GHC's
                            // `pseq x y = x `seq` lazy y`): counted strict
                            // in b, a caller could evaluate b first, which
                            // Eden's `new (\c v -> (p # c) `pseq` v)`
                            // turned into a deadlock (v waits on the
                            // process that p # c creates).
                            Op::Special(Special::Pseq) => self.sv(&args[0], out, depth + 1),
                            // Nor is `a `par` e` strict in e (GHC's `par x y
                            // = case par# x of _ -> lazy y`): what e
                            // evaluates, evaluated first, would run before
                            // the spark is made. `let a = nfib (n-1); b =
                            // nfib (n-2) in a `par` (b `pseq` a + b)`
                            // computed b, then sparked a, already needed.
                            Op::Special(Special::Par) => {}
                            Op::Special(Special::Instantiate) => self.sv(&args[0], out, depth + 1),
                            Op::Special(Special::BindIO) => self.sv(&args[0], out, depth + 1),
                            Op::Special(_) => {}
                            _ => {
                                for (a, t) in args.iter().zip(&p.args) {
                                    if t.strict() {
                                        self.sv(a, out, depth + 1);
                                    }
                                }
                            }
                        }
                        return;
                    }
                    match self.lp.sc(g) {
                        Some(sc) if sc.kind == ScKind::Thunk => self.sv(&sc.body, out, depth + 1),
                        Some(sc) if sc.kind == ScKind::Fun && args.len() >= sc.params.len() => {
                            if let Some(st) = self.info.strict.get(g) {
                                for (a, s) in args.iter().zip(st) {
                                    if *s {
                                        self.sv(a, out, depth + 1);
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                }
                Expr::Con(_) => {}
                other => self.sv(other, out, depth + 1),
            },
            Expr::Let(b, body) => {
                let mut inner = Set::new();
                self.sv(body, &mut inner, depth + 1);
                match &**b {
                    Bind::NonRec(v, rhs) => {
                        if inner.remove(&v.id) {
                            self.sv(rhs, &mut inner, depth + 1);
                            inner.remove(&v.id);
                        }
                    }
                    Bind::Rec(bs) => {
                        for (v, _) in bs {
                            inner.remove(&v.id);
                        }
                    }
                }
                out.extend(inner);
            }
            Expr::Case(s, b, alts, def) => {
                self.sv(s, out, depth + 1);
                let mut common: Option<Set> = None;
                let mut branch = |body: &Expr, bound: &[u32]| {
                    if is_error_call(body, &self.prims) {
                        return;
                    }
                    let mut bs = Set::new();
                    self.sv(body, &mut bs, depth + 1);
                    for v in bound {
                        bs.remove(v);
                    }
                    bs.remove(&b.id);
                    common = Some(match common.take() {
                        None => bs,
                        Some(c) => c.intersection(&bs).copied().collect(),
                    });
                };
                for a in alts {
                    let vs: Vec<u32> = a.vars.iter().map(|v| v.id).collect();
                    branch(&a.body, &vs);
                }
                if let Some(d) = def {
                    branch(d, &[]);
                }
                if let Some(c) = common {
                    out.extend(c);
                }
            }
        }
    }
}

/// Whether an expression certainly fails (a saturated `error` or
/// `patternMatchFail`-style call of `error`).
pub fn is_error_call(e: &Expr, prims: &HashMap<Sym, PrimInfo>) -> bool {
    match e {
        Expr::App(f, args) => match &**f {
            Expr::Global(g) => {
                (prims
                    .get(g)
                    .is_some_and(|p| p.op == Op::Special(Special::Error) && !args.is_empty()))
                    || (&**g == "Prelude.patternMatchFail" && !args.is_empty())
                    || (&**g == "Prelude.error" && !args.is_empty())
            }
            _ => false,
        },
        _ => false,
    }
}

/// Runs the analysis over the whole lifted program.
pub fn analyse(lp: &lift::Program) -> Info {
    let mut env = Env::new(lp);
    // Strictness: greatest fixed point.
    for sc in &lp.scs {
        if sc.kind == ScKind::Fun {
            env.info
                .strict
                .insert(sc.name.clone(), vec![true; sc.params.len()]);
        }
    }
    loop {
        let mut changed = false;
        for sc in &lp.scs {
            if sc.kind != ScKind::Fun {
                continue;
            }
            let s = env.strict_vars(&sc.body);
            let new: Vec<bool> = sc.params.iter().map(|p| s.contains(&p.id)).collect();
            if env.info.strict[&sc.name] != new {
                env.info.strict.insert(sc.name.clone(), new);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    workers(&mut env);
    env.info
}

// ------------------------------------------------------------ unboxing

struct Kinds<'e, 'a> {
    env: &'e Env<'a>,
    /// The function being analysed: its own calls return what it returns.
    this: Option<Sym>,
    /// Evidence on variables.
    vars: HashMap<u32, ValueKind>,
}

impl Kinds<'_, '_> {
    fn note(&mut self, e: &Expr, k: ValueKind) {
        if let Expr::Local(v) = e {
            self.vars.entry(v.id).or_insert(k);
        }
    }

    /// Collects evidence about variables from how they are used.
    fn evidence(&mut self, e: &Expr) {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => {}
            Expr::App(f, args) => {
                if let Expr::Global(g) = &**f {
                    if let Some(p) = self.env.prims.get(g) {
                        for (a, t) in args.iter().zip(&p.args) {
                            if let Some(k) = t.unboxed() {
                                self.note(a, k);
                            }
                        }
                    } else if let Some(w) = self.env.info.workers.get(g) {
                        for (a, k) in args.iter().zip(&w.params) {
                            if let Some(k) = k {
                                self.note(a, *k);
                            }
                        }
                    } else if let Some(sc) = self.env.lp.sc(g) {
                        if sc.kind == ScKind::Thunk {
                            self.evidence(&sc.body);
                        }
                    }
                }
                self.evidence(f);
                for a in args {
                    self.evidence(a);
                }
            }
            Expr::Lam(_, b) => self.evidence(b),
            Expr::Let(b, body) => {
                match &**b {
                    Bind::NonRec(_, rhs) => self.evidence(rhs),
                    Bind::Rec(bs) => bs.iter().for_each(|(_, r)| self.evidence(r)),
                }
                self.evidence(body)
            }
            Expr::Case(s, b, alts, def) => {
                self.evidence(s);
                if let Some(k) = alts.first().and_then(|a| match &a.con {
                    AltCon::Lit(l) => lit_kind(l),
                    _ => None,
                }) {
                    self.note(s, k);
                    self.vars.entry(b.id).or_insert(k);
                }
                if let Some(k) = self.expr_kind(s) {
                    self.vars.entry(b.id).or_insert(k);
                }
                for a in alts {
                    // In a GADT constructor's alternative a variable may
                    // have another type than elsewhere (`f TI n = n + 1;
                    // f (TL t) xs = ..`: `n` is an Int only there): what is
                    // learnt inside stays inside.
                    if matches!(&a.con, AltCon::Con(c) if self.env.refining.contains(c)) {
                        let outside = self.vars.clone();
                        self.evidence(&a.body);
                        self.vars = outside;
                    } else {
                        self.evidence(&a.body);
                    }
                }
                if let Some(d) = def {
                    self.evidence(d);
                }
            }
        }
    }

    /// The unboxed kind an expression certainly produces, if any.
    fn expr_kind(&self, e: &Expr) -> Option<ValueKind> {
        gph_syntax::stack::guard();
        match e {
            Expr::Lit(l) => lit_kind(l),
            Expr::Local(v) => self.vars.get(&v.id).copied(),
            Expr::App(f, args) => match &**f {
                Expr::Global(g) => {
                    if let Some(p) = self.env.prims.get(g) {
                        if args.len() != p.arity() {
                            return None;
                        }
                        return match p.op {
                            Op::Special(Special::Seq | Special::Pseq | Special::Par) => {
                                self.expr_kind(&args[1])
                            }
                            Op::Special(_) => None,
                            _ => p.ret.unboxed(),
                        };
                    }
                    if let Some(w) = self.env.info.workers.get(g) {
                        if args.len() == w.params.len() {
                            return ret_kind(w.ret);
                        }
                    }
                    None
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The kind every way out of `e` returns (None: boxed / unknown;
    /// Some(None): only failures).
    fn result(&self, e: &Expr, depth: usize) -> Option<Option<ValueKind>> {
        gph_syntax::stack::guard();
        if depth > 100 {
            return None;
        }
        if is_error_call(e, &self.env.prims) {
            return Some(None);
        }
        match e {
            Expr::Let(_, body) => self.result(body, depth + 1),
            Expr::Case(_, _, alts, def) => {
                let mut acc: Option<ValueKind> = None;
                for body in alts.iter().map(|a| &a.body).chain(def.iter().map(|d| &**d)) {
                    match self.result(body, depth + 1)? {
                        None => {}
                        Some(k) => {
                            if acc.is_some_and(|a| a != k) {
                                return None;
                            }
                            acc = Some(k);
                        }
                    }
                }
                Some(acc)
            }
            Expr::App(f, args) => {
                if let Expr::Global(g) = &**f {
                    if let Some(p) = self.env.prims.get(g) {
                        if args.len() == p.arity() {
                            if let Op::Special(Special::Seq | Special::Pseq | Special::Par) = p.op {
                                return self.result(&args[1], depth + 1);
                            }
                        }
                    }
                    if let Some(sc) = self.env.lp.sc(g) {
                        if sc.kind == ScKind::Thunk {
                            return self.result(&sc.body, depth + 1);
                        }
                    }
                }
                if let Expr::Global(g) = &**f {
                    if self.this.as_ref() == Some(g)
                        && self
                            .env
                            .lp
                            .sc(g)
                            .is_some_and(|s| s.params.len() == args.len())
                    {
                        // Self recursion: no information (induction).
                        return Some(None);
                    }
                }
                self.expr_kind(e).map(Some)
            }
            _ => self.expr_kind(e).map(Some),
        }
    }
}

fn lit_kind(l: &Lit) -> Option<ValueKind> {
    match l {
        Lit::Int(_) => Some(ValueKind::Int),
        Lit::Double(_) => Some(ValueKind::Double),
        Lit::Char(_) => Some(ValueKind::Char),
        _ => None,
    }
}

pub fn ret_kind(r: RetKind) -> Option<ValueKind> {
    match r {
        RetKind::Int => Some(ValueKind::Int),
        RetKind::Double => Some(ValueKind::Double),
        RetKind::Char => Some(ValueKind::Char),
        RetKind::Boxed => None,
    }
}

pub fn kind_ret(k: Option<ValueKind>) -> RetKind {
    match k {
        Some(ValueKind::Int) => RetKind::Int,
        Some(ValueKind::Double) => RetKind::Double,
        Some(ValueKind::Char) => RetKind::Char,
        None => RetKind::Boxed,
    }
}

/// Decides the workers: optimistic about results (every candidate returns
/// what its body suggests, assuming the others), then drops contradicted
/// assumptions until nothing changes.
fn workers(env: &mut Env) {
    let lp = env.lp;
    let funs: Vec<usize> = (0..lp.scs.len())
        .filter(|&i| lp.scs[i].kind == ScKind::Fun)
        .collect();
    for _round in 0..6 {
        let mut next: HashMap<Sym, Worker> = HashMap::new();
        for &i in &funs {
            let sc = &lp.scs[i];
            let mut k = Kinds {
                env,
                this: Some(sc.name.clone()),
                vars: HashMap::new(),
            };
            k.evidence(&sc.body);
            // Parameters unboxed by a previous round are known.
            if let Some(w) = env.info.workers.get(&sc.name) {
                for (p, kind) in sc.params.iter().zip(&w.params) {
                    if let Some(kind) = kind {
                        k.vars.insert(p.id, *kind);
                    }
                }
            }
            let strict = &env.info.strict[&sc.name];
            let params: Vec<Option<ValueKind>> = sc
                .params
                .iter()
                .zip(strict)
                .map(|(p, s)| if *s { k.vars.get(&p.id).copied() } else { None })
                .collect();
            // Only unboxed parameters count as unboxed variables for the
            // result (others may be boxed at run time, which is fine too).
            let ret = match k.result(&sc.body, 0) {
                Some(Some(kind)) => kind_ret(Some(kind)),
                _ => RetKind::Boxed,
            };
            if params.iter().any(|p| p.is_some()) || ret != RetKind::Boxed {
                next.insert(sc.name.clone(), Worker { params, ret });
            }
        }
        if next == env.info.workers {
            break;
        }
        env.info.workers = next;
    }
    // Verify results with the final set (drop any unsound return kind),
    // until nothing changes.
    loop {
        let mut changed = false;
        let mut names: Vec<Sym> = env.info.workers.keys().cloned().collect();
        names.sort();
        for n in names {
            let sc = lp.sc(&n).unwrap();
            let w = env.info.workers[&n].clone();
            let mut k = Kinds {
                env,
                this: Some(sc.name.clone()),
                vars: HashMap::new(),
            };
            k.evidence(&sc.body);
            for (p, kind) in sc.params.iter().zip(&w.params) {
                if let Some(kind) = kind {
                    k.vars.insert(p.id, *kind);
                }
            }
            let ok = match ret_kind(w.ret) {
                None => true,
                Some(kind) => matches!(k.result(&sc.body, 0), Some(Some(x)) if x == kind),
            };
            if !ok {
                changed = true;
                let mut w2 = w.clone();
                w2.ret = RetKind::Boxed;
                if w2.params.iter().any(|p| p.is_some()) {
                    env.info.workers.insert(n, w2);
                } else {
                    env.info.workers.remove(&n);
                }
            }
        }
        if !changed {
            break;
        }
    }
}
