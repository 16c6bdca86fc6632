//! Core-to-Core simplification.
//!
//! 1. Every bound variable is renamed apart ([`renumber`]); the later
//!    passes rely on unique variables.
//! 2. Top-level `let`s are floated to new top-level bindings, so that an
//!    instance dictionary `$fNumInt = letrec this = D:Num m1 ..; m5 = ..
//!    in this` becomes the constructor application `$fNumInt = D:Num m1 ..
//!    $fNumInt$m5 ..` of globals, a *known dictionary*.
//! 3. Each binding is simplified with the definitions of the others at hand:
//!    * beta reduction of known lambdas (atoms substituted, other arguments
//!      `let`-bound);
//!    * inlining of small non-recursive global functions when saturated
//!      (method selectors, superclass selectors, `$`, `.`, `&&`, ...) and of
//!      `let`s used once (not under a lambda) or bound to atoms;
//!    * case of known constructor (a constructor application, a literal, a
//!      variable already scrutinised or `let`-bound to a constructor, or a
//!      global defined as one — a known dictionary), so a method selector
//!      applied to a known dictionary reduces to the method: `(+) $fNumInt
//!      x y` becomes `primIntAdd x y`;
//!    * specialisation: a global function applied to known dictionaries is
//!      replaced by a copy with those dictionaries substituted (`sum
//!      $fNumInt` becomes `Prelude.sum@$fNumInt`), memoised so that
//!      recursion goes to the copy; a dictionary function applied to known
//!      dictionaries (`$fEqList $fEqInt`) becomes a new known dictionary;
//!    * the static dictionary arguments of local functions (a `letrec`
//!      function whose calls all pass the same global, or its own
//!      parameter, at some position) are substituted;
//!    * `bindIO`/`returnIO`/`instantiate` applied to all their arguments are
//!      expanded (`bindIO m k w` is `case m w of IORes x -> k x w`);
//!    * a `letrec` is split into its binding groups (`binding_groups`), so
//!      that a `where` clause's non-recursive bindings are plain `let`s;
//!    * a variable bound to a partial application of a known function is
//!      called as that function (`Known::Pap`); a `let`-bound lambda used
//!      once, and called, inside a loop is moved there;
//!    * case of case, where the inner case's leaves are known values.
//!
//! docs/backend.md ("Simplifier") gives each with its measurement.

use crate::back::prims::{self, Op, PrimInfo, Special};
use crate::core::{Alt, AltCon, Bind, Constr, DataType, Expr, Lit, Program, Var};
use gph_syntax::lexer::Sym;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// The simplifier's scopes: a persistent map, so that copying one at each
/// `let`, alternative or branch costs nothing (with a `HashMap` a nest of
/// 10,000 scopes copied 10,000² / 2 entries).
type PMap<V> = imbl::HashMap<u32, V>;

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
        gph_syntax::stack::guard();
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

pub(crate) fn is_atom(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_)
    ) && !matches!(e, Expr::Lit(Lit::Str(_)) | Expr::Lit(Lit::Integer(_)))
}

/// The number of nodes of an expression (for inlining decisions).
pub fn size(e: &Expr) -> usize {
    gph_syntax::stack::guard();
    match e {
        Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => 1,
        Expr::App(f, a) => size(f) + a.iter().map(size).sum::<usize>(),
        Expr::Lam(_, b) => 1 + size(b),
        Expr::Let(b, body) => {
            1 + size(body)
                + match &**b {
                    Bind::NonRec(_, r) => size(r),
                    Bind::Rec(bs) => bs.iter().map(|(_, r)| size(r)).sum(),
                }
        }
        Expr::Case(s, _, alts, d) => {
            1 + size(s)
                + alts.iter().map(|a| size(&a.body)).sum::<usize>()
                + d.as_ref().map_or(0, |d| size(d))
        }
    }
}

pub(crate) fn mentions_global(e: &Expr, g: &str) -> bool {
    gph_syntax::stack::guard();
    match e {
        Expr::Global(x) => &**x == g,
        Expr::Local(_) | Expr::Lit(_) | Expr::Con(_) => false,
        Expr::App(f, a) => mentions_global(f, g) || a.iter().any(|x| mentions_global(x, g)),
        Expr::Lam(_, b) => mentions_global(b, g),
        Expr::Let(b, body) => {
            mentions_global(body, g)
                || match &**b {
                    Bind::NonRec(_, r) => mentions_global(r, g),
                    Bind::Rec(bs) => bs.iter().any(|(_, r)| mentions_global(r, g)),
                }
        }
        Expr::Case(s, _, alts, d) => {
            mentions_global(s, g)
                || alts.iter().any(|a| mentions_global(&a.body, g))
                || d.as_ref().is_some_and(|d| mentions_global(d, g))
        }
    }
}

/// The globals an expression mentions, each once, in order of appearance.
pub(crate) fn globals_of(e: &Expr) -> Vec<Sym> {
    fn go(e: &Expr, seen: &mut HashSet<Sym>, out: &mut Vec<Sym>) {
        match e {
            Expr::Global(g) => {
                if seen.insert(g.clone()) {
                    out.push(g.clone());
                }
            }
            _ => e.for_each_child(|c| go(c, seen, out)),
        }
    }
    let mut out = Vec::new();
    go(e, &mut HashSet::new(), &mut out);
    out
}

/// Nodes whose removal leaves the graph (restricted to `nodes`) without
/// cycles: for each strongly connected component with a cycle, the member
/// with the most edges into the component (so one breaker cuts many
/// cycles; ties by name, so compilation is deterministic) is removed, and
/// the rest of the component is examined again.
pub(crate) fn loop_breakers(nodes: &HashSet<Sym>, edges: &HashMap<Sym, Vec<Sym>>) -> Vec<Sym> {
    let mut breakers = Vec::new();
    let mut sorted: Vec<Sym> = nodes.iter().cloned().collect();
    sorted.sort();
    let mut work = vec![sorted];
    while let Some(group) = work.pop() {
        let at: HashMap<&Sym, usize> = group.iter().enumerate().map(|(i, n)| (n, i)).collect();
        let succ: Vec<Vec<usize>> = group
            .iter()
            .map(|n| {
                edges
                    .get(n)
                    .map(|es| es.iter().filter_map(|m| at.get(m).copied()).collect())
                    .unwrap_or_default()
            })
            .collect();
        for scc in crate::graph::sccs(group.len(), &succ) {
            if scc.len() == 1 && !succ[scc[0]].contains(&scc[0]) {
                continue;
            }
            let into = |i: usize| scc.iter().filter(|&&j| succ[j].contains(&i)).count();
            let b = *scc
                .iter()
                .max_by(|&&a, &&b| into(a).cmp(&into(b)).then_with(|| group[b].cmp(&group[a])))
                .unwrap();
            breakers.push(group[b].clone());
            let rest: Vec<Sym> = scc
                .iter()
                .filter(|&&i| i != b)
                .map(|&i| group[i].clone())
                .collect();
            if !rest.is_empty() {
                work.push(rest);
            }
        }
    }
    breakers
}

/// Occurrences of a variable: (count, whether one is under a lambda).
pub(crate) fn occurrences(e: &Expr, v: u32) -> (usize, bool) {
    let mut unlimited = usize::MAX;
    occurrences_within(e, v, &mut unlimited).expect("no limit")
}

/// [`occurrences`], looking at no more than `left` nodes (`None` when that
/// is not enough); `left` is decreased by the nodes looked at.
fn occurrences_within(e: &Expr, v: u32, left: &mut usize) -> Option<(usize, bool)> {
    fn go(e: &Expr, v: u32, lam: bool, out: &mut (usize, bool), left: &mut usize) -> bool {
        gph_syntax::stack::guard();
        if *left == 0 {
            return false;
        }
        *left -= 1;
        let mut go = |e: &Expr, lam: bool| go(e, v, lam, out, left);
        match e {
            Expr::Local(x) => {
                if x.id == v {
                    out.0 += 1;
                    out.1 |= lam;
                }
                true
            }
            Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => true,
            Expr::App(f, a) => go(f, lam) && a.iter().all(|x| go(x, lam)),
            Expr::Lam(_, b) => go(b, true),
            Expr::Let(b, body) => {
                (match &**b {
                    Bind::NonRec(_, r) => go(r, lam),
                    // A letrec may be a loop: count as under a lambda.
                    Bind::Rec(bs) => bs.iter().all(|(_, r)| go(r, true)),
                }) && go(body, lam)
            }
            Expr::Case(s, _, alts, d) => {
                go(s, lam)
                    && alts.iter().all(|a| go(&a.body, lam))
                    && d.as_ref().is_none_or(|d| go(d, lam))
            }
        }
    }
    let mut out = (0, false);
    go(e, v, false, &mut out, left).then_some(out)
}

/// Replaces every occurrence of variables by expressions (no capture:
/// variables are unique).
pub(crate) fn substitute(e: &Expr, m: &HashMap<u32, Expr>) -> Expr {
    gph_syntax::stack::guard();
    match e {
        Expr::Local(v) => m.get(&v.id).cloned().unwrap_or_else(|| e.clone()),
        Expr::App(f, a) => Expr::app(
            substitute(f, m),
            a.iter().map(|x| substitute(x, m)).collect(),
        ),
        _ => e.map_children(|x| substitute(x, m)),
    }
}

/// Replaces the one occurrence of `v` in `e` by `by`, in place.
fn substitute_once(e: &mut Expr, v: u32, by: &mut Option<Expr>) {
    gph_syntax::stack::guard();
    if by.is_none() {
        return;
    }
    match e {
        Expr::Local(x) if x.id == v => *e = by.take().expect("not yet used"),
        Expr::App(f, args) => {
            substitute_once(f, v, by);
            args.iter_mut().for_each(|a| substitute_once(a, v, by));
            // An application of an application is one application.
            if let Expr::App(..) = **f {
                let Expr::App(f, args) = std::mem::replace(e, Expr::Lit(Lit::Int(0))) else {
                    unreachable!()
                };
                *e = Expr::app(*f, args);
            }
        }
        _ => e.for_each_child_mut(|c| substitute_once(c, v, by)),
    }
}

/// What is known about a local variable inside the simplifier.
#[derive(Clone)]
enum Known {
    /// Bound to (or matched as) this constructor with these atoms.
    Con(Sym, Vec<Expr>),
    Lit(Lit),
    /// Bound to a global function (or primitive) applied to fewer atoms
    /// than it takes: applying the variable calls that function, and a
    /// call of a known function is inlined, specialised or given its
    /// worker where a call of a closure is not (sumEuler's `filter
    /// (relprime n)`, fused into a loop, applied its closure to each
    /// number).
    Pap(Sym, Vec<Expr>),
}

/// Persistent maps: the environment is copied at every scope.
#[derive(Clone, Default)]
struct Env {
    subst: PMap<Expr>,
    known: PMap<Known>,
}

const INLINE_SIZE: usize = 24;
/// Case of case: the most `case`s the inner nest may have, and the largest
/// outer alternatives (copied once per leaf of the nest).
const CASE_OF_CASE_LEAVES: usize = 4;
const CASE_OF_CASE_SIZE: usize = 40;
const SPEC_SIZE: usize = 600;
const MAX_SPECS: usize = 3000;
/// The work budget of a top-level binding: nodes looked at (by the
/// simplifier and its occurrence counts) before inlining stops. Inlining
/// simplifies again what it substitutes into, and a `let` counts the uses
/// of its variable in its body, so a nest of 10,000 `do` statements or
/// `let`s was quadratic; once the budget is spent the rest of the binding
/// is only copied (still correct, less optimised).
const WORK_BASE: usize = 200_000;
const WORK_PER_NODE: usize = 50;
/// How deeply specialisations may nest (`f@($fEqList@($fEqList@$fEqInt))`):
/// each level is a new dictionary type, so this bounds the copies a
/// polymorphically recursive function can make.
const MAX_SPEC_DEPTH: usize = 3;

struct Simp {
    defs: HashMap<Sym, Expr>,
    cons: HashMap<Sym, usize>,
    /// Constructors with strict fields: their fields' strictness.
    strict: HashMap<Sym, Vec<bool>>,
    prims: HashMap<Sym, PrimInfo>,
    /// Globals that may be inlined (small, not recursive).
    inline: HashSet<Sym>,
    specs: HashMap<String, Sym>,
    /// How deeply each specialisation nests (see [`MAX_SPEC_DEPTH`]).
    spec_depth: HashMap<Sym, usize>,
    /// `static_param`'s answers.
    static_params: HashMap<(Sym, usize), Static>,
    queue: Vec<Sym>,
    order: Vec<Sym>,
    next: u32,
    fuel: usize,
    depth: usize,
    /// Nodes looked at for the current top-level binding, and how many it
    /// may take (see `simplify`).
    work: usize,
    budget: usize,
    /// Nodes the current top-level binding may still copy to split its
    /// `letrec`s (see `binding_groups`).
    copies: usize,
    iores: Sym,
}

impl Simp {
    fn fresh(&mut self, name: &str) -> Var {
        self.next += 1;
        Var {
            name: Sym::from(name),
            id: self.next,
        }
    }

    fn rename(&mut self, e: &Expr) -> Expr {
        let mut r = Renamer {
            next: &mut self.next,
            map: HashMap::new(),
        };
        r.expr(e)
    }

    /// The constructor application a global is defined as, if any.
    fn global_con(&self, g: &str) -> Option<(Sym, Vec<Expr>)> {
        match self.defs.get(g)? {
            Expr::Con(c) => Some((c.clone(), vec![])),
            Expr::App(f, args) => match &**f {
                Expr::Con(c)
                    if args.iter().all(is_atom)
                        && self.cons.get(c) == Some(&args.len())
                        && self.lazy_con(c, args) =>
                {
                    Some((c.clone(), args.clone()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The globals that may be inlined: small functions, minus loop
    /// breakers. Inlining `f` unfolds its body, and through it whatever that
    /// reaches: other small functions, and the methods of known dictionaries
    /// (case of known constructor looks through a dictionary global). A
    /// derived `showsPrec` for a recursive type calls itself through its
    /// own dictionary, and mutually recursive `f`/`g` call each other, so
    /// "does not mention itself" is not enough: every cycle of unfoldings
    /// gets one function that is never inlined (GHC's loop breakers), and
    /// inlining then always stops.
    fn inlinable(&self) -> HashSet<Sym> {
        let candidates: HashSet<Sym> = self
            .defs
            .iter()
            .filter(|(_, e)| matches!(e, Expr::Lam(..)) && size(e) <= INLINE_SIZE)
            .map(|(n, _)| n.clone())
            .collect();
        // Edges: the candidates a candidate's body reaches, directly or
        // through globals the simplifier looks into (dictionaries, aliases).
        let mut edges: HashMap<Sym, Vec<Sym>> = HashMap::new();
        for n in &candidates {
            let mut seen: HashSet<Sym> = HashSet::new();
            let mut stack = globals_of(&self.defs[n]);
            let mut out = Vec::new();
            while let Some(g) = stack.pop() {
                if !seen.insert(g.clone()) {
                    continue;
                }
                if candidates.contains(&g) {
                    out.push(g);
                } else if self.global_con(&g).is_some()
                    || matches!(self.defs.get(&g), Some(Expr::Global(_)))
                {
                    stack.extend(globals_of(&self.defs[&g]));
                }
            }
            out.sort();
            edges.insert(n.clone(), out);
        }
        let mut inline = candidates;
        for breaker in loop_breakers(&inline, &edges) {
            inline.remove(&breaker);
        }
        inline
    }

    fn is_dict(&self, e: &Expr) -> Option<Sym> {
        if let Expr::Global(g) = e {
            if let Some((c, _)) = self.global_con(g) {
                if c.contains(".D:") {
                    return Some(g.clone());
                }
            }
        }
        None
    }

    /// A known function: a global function or primitive, or one applied
    /// to fewer arguments than it takes, all globals or literals (a
    /// closed partial application such as `flip delete@$fEqChar`).
    fn is_known_fun(&self, e: &Expr) -> bool {
        let (f, n) = match e {
            Expr::Global(f) => (f, 0),
            Expr::App(f, args) => match &**f {
                Expr::Global(f)
                    if args
                        .iter()
                        .all(|a| matches!(a, Expr::Global(_) | Expr::Lit(_))) =>
                {
                    (f, args.len())
                }
                _ => return false,
            },
            _ => return false,
        };
        n < self.arity(f)
    }

    /// How many arguments global function or primitive `g` takes (0 for
    /// anything else).
    fn arity(&self, g: &Sym) -> usize {
        match self.prims.get(g) {
            Some(p) => p.arity(),
            None => match self.defs.get(g) {
                Some(Expr::Lam(ps, _)) => ps.len(),
                _ => 0,
            },
        }
    }

    /// Whether global `g` is recursive and passes its parameter `i` on
    /// unchanged in every call of itself (a static argument): then a copy
    /// specialised at a known function keeps calling itself, and the
    /// function's every call in it is known (`deleteBy eq x (y : ys) = ..
    /// deleteBy eq x ys` at `eq = primCharEq` compares characters inline).
    /// Or (`Static::Applied`) whether `g` is not recursive and applies
    /// parameter `i`: `span p = go where go ..` (`break isSpace` is `span
    /// (not . isSpace)`), `map` and `filter` loop in a local function, and
    /// a copy at a known function calls it directly there (`(.) not p`
    /// inlines `not`). A copy of a function small enough to be inlined may
    /// be inlined too: `f . reverse`, a closure until applied, is then
    /// `f (reverse x)` where it is, as `(.) f reverse x` was.
    fn static_param(&mut self, g: &Sym, i: usize) -> Static {
        if let Some(&b) = self.static_params.get(&(g.clone(), i)) {
            return b;
        }
        let b = match self.defs.get(g) {
            Some(Expr::Lam(ps, body)) if i < ps.len() && size(body) <= SPEC_SIZE => {
                let mut check = StaticArg::new(Callee::Global(g), i, ps[i].id);
                check.walk(body);
                // Only its own parameter passed on, not a global.
                if !check.ok || check.seen.is_some() {
                    Static::No
                } else if check.calls > 0 {
                    Static::Passed
                } else if applies(body, ps[i].id) {
                    Static::Applied
                } else {
                    Static::No
                }
            }
            _ => Static::No,
        };
        self.static_params.insert((g.clone(), i), b);
        b
    }

    /// Whether inlining may go on: fuel left, and work budget.
    fn may_inline(&self) -> bool {
        self.fuel > 0 && self.work < self.budget
    }

    /// A bounded look (`occurrences_within`, `live_bindings_within`) on
    /// what is left of the work budget, charged to it.
    fn charged<T>(&mut self, look: impl FnOnce(&mut usize) -> T) -> T {
        let mut left = self.budget.saturating_sub(self.work);
        let r = look(&mut left);
        self.work = self.budget - left;
        r
    }

    /// [`occurrences`] charged to the work budget; `None` once the budget
    /// is spent.
    fn occurrences(&mut self, e: &Expr, v: u32) -> Option<(usize, bool)> {
        self.charged(|left| occurrences_within(e, v, left))
    }

    fn expr(&mut self, e: &Expr, env: &Env) -> Expr {
        gph_syntax::stack::guard();
        self.work += 1;
        match e {
            Expr::Local(v) => match env.subst.get(&v.id) {
                Some(x) => x.clone(),
                None => e.clone(),
            },
            Expr::Global(g) => {
                // Aliases of atoms.
                match self.defs.get(g) {
                    Some(
                        x @ (Expr::Global(_)
                        | Expr::Lit(Lit::Int(_) | Lit::Char(_) | Lit::Double(_))),
                    ) => {
                        if let Expr::Global(h) = x {
                            if h == g {
                                return e.clone();
                            }
                        }
                        x.clone()
                    }
                    _ => e.clone(),
                }
            }
            Expr::Lit(_) | Expr::Con(_) => e.clone(),
            Expr::Lam(vs, b) => {
                let b = self.expr(b, env);
                match b {
                    Expr::Lam(more, inner) => {
                        let mut all = vs.clone();
                        all.extend(more);
                        Expr::Lam(all, inner)
                    }
                    b => Expr::Lam(vs.clone(), Box::new(b)),
                }
            }
            Expr::App(f, args) => {
                let args: Vec<Expr> = args.iter().map(|a| self.expr(a, env)).collect();
                let f = self.expr(f, env);
                self.app(f, args, env)
            }
            Expr::Let(b, body) => self.let_(b, body, env),
            Expr::Case(s, b, alts, def) => {
                let s = self.expr(s, env);
                self.case(s, b, alts, def.as_deref(), env)
            }
        }
    }

    /// `f args`, both simplified.
    fn app(&mut self, f: Expr, mut args: Vec<Expr>, env: &Env) -> Expr {
        gph_syntax::stack::guard();
        if args.is_empty() {
            return f;
        }
        let f = match f {
            Expr::App(g, mut a) => {
                a.append(&mut args);
                args = a;
                *g
            }
            f => f,
        };
        if let Expr::Local(v) = &f {
            if let Some(Known::Pap(g, given)) = env.known.get(&v.id) {
                let mut all = given.clone();
                all.append(&mut args);
                return self.app(Expr::Global(g.clone()), all, env);
            }
        }
        if !self.may_inline() || self.depth > 40 {
            return Expr::App(Box::new(f), args);
        }
        match f {
            Expr::Lam(ps, body) => {
                self.fuel -= 1;
                self.beta(ps, *body, args, env)
            }
            Expr::Let(b, body) => {
                let inner = self.app(*body, args, env);
                Expr::Let(b, Box::new(inner))
            }
            Expr::Global(g) => {
                if let Some(p) = self.prims.get(&g) {
                    if args.len() >= p.arity() {
                        if let Some(e) = self.prim(&g, p.op, &args, env) {
                            return e;
                        }
                    }
                    return Expr::App(Box::new(Expr::Global(g)), args);
                }
                let Some(Expr::Lam(ps, _)) = self.defs.get(&g) else {
                    return Expr::App(Box::new(Expr::Global(g)), args);
                };
                let arity = ps.len();
                if self.inline.contains(&g) && args.len() >= arity {
                    self.fuel -= 1;
                    let def = self.defs[&g].clone();
                    let Expr::Lam(ps, body) = self.rename(&def) else {
                        unreachable!()
                    };
                    self.depth += 1;
                    let r = self.beta(ps, *body, args, env);
                    self.depth -= 1;
                    return r;
                }
                // Specialisation at known dictionaries, and at known
                // functions that a recursive function passes on unchanged.
                let mut applied = false;
                let dicts: Vec<(usize, Expr)> = args
                    .iter()
                    .take(arity)
                    .enumerate()
                    .filter_map(|(i, a)| match self.is_dict(a) {
                        Some(d) => Some((i, Expr::Global(d))),
                        None if self.is_known_fun(a) => match self.static_param(&g, i) {
                            Static::No => None,
                            Static::Passed => Some((i, a.clone())),
                            Static::Applied => {
                                applied = true;
                                Some((i, a.clone()))
                            }
                        },
                        None => None,
                    })
                    .collect();
                if !dicts.is_empty() {
                    if let Some(spec) = self.specialise(&g, &dicts) {
                        if applied && self.inline.contains(&g) {
                            self.inline.insert(spec.clone());
                        }
                        let rest: Vec<Expr> = args
                            .into_iter()
                            .enumerate()
                            .filter(|(i, _)| !dicts.iter().any(|(j, _)| j == i))
                            .map(|(_, a)| a)
                            .collect();
                        let f = self.expr(&Expr::Global(spec), env);
                        return if rest.is_empty() {
                            f
                        } else {
                            self.app(f, rest, env)
                        };
                    }
                }
                Expr::App(Box::new(Expr::Global(g)), args)
            }
            Expr::Case(s, b, alts, def)
                if args.iter().all(is_atom) && alts.len() + def.iter().len() <= 4 =>
            {
                // (case s of p -> e) a  ==>  case s of p -> e a
                let alts = alts
                    .into_iter()
                    .map(|a| {
                        let body = self.app(a.body, args.clone(), env);
                        Alt { body, ..a }
                    })
                    .collect();
                let def = def.map(|d| Box::new(self.app(*d, args.clone(), env)));
                Expr::Case(s, b, alts, def)
            }
            f => Expr::App(Box::new(f), args),
        }
    }

    fn beta(&mut self, ps: Vec<Var>, body: Expr, mut args: Vec<Expr>, env: &Env) -> Expr {
        let n = ps.len().min(args.len());
        let rest_args = args.split_off(n);
        let mut env2 = env.clone();
        let mut lets = Vec::new();
        for (p, a) in ps.iter().zip(args) {
            if is_atom(&a) {
                env2.subst.insert(p.id, a);
            } else {
                lets.push((p.clone(), a));
            }
        }
        let body = if ps.len() > n {
            Expr::Lam(ps[n..].to_vec(), Box::new(body))
        } else {
            body
        };
        let mut e = body;
        for (p, a) in lets.into_iter().rev() {
            e = Expr::Let(Box::new(Bind::NonRec(p, a)), Box::new(e));
        }
        let e = self.expr(&e, &env2);
        if rest_args.is_empty() {
            e
        } else {
            self.app(e, rest_args, env)
        }
    }

    fn prim(&mut self, _g: &Sym, op: Op, args: &[Expr], env: &Env) -> Option<Expr> {
        match op {
            Op::Special(Special::Instantiate) => {
                let e = self.app(args[0].clone(), vec![args[1].clone()], env);
                Some(self.app(e, args[2..].to_vec(), env))
            }
            Op::Special(Special::ReturnIO) if args.len() == 2 => Some(Expr::app(
                Expr::Con(self.iores.clone()),
                vec![args[0].clone()],
            )),
            Op::Special(Special::BindIO) if args.len() == 3 => {
                let w = args[2].clone();
                if !is_atom(&w) {
                    return None;
                }
                let x = self.fresh("r");
                let b = self.fresh("io");
                let scrut = self.app(args[0].clone(), vec![w.clone()], env);
                let body = self.app(args[1].clone(), vec![Expr::Local(x.clone()), w], env);
                Some(Expr::Case(
                    Box::new(scrut),
                    b,
                    vec![Alt {
                        con: AltCon::Con(self.iores.clone()),
                        vars: vec![x],
                        body,
                    }],
                    None,
                ))
            }
            // `fromInteger 0 :: Int`: a literal, not a shared thunk.
            Op::Rt(gph_code::Prim::IntegerToInt) => match &args[0] {
                Expr::Lit(Lit::Integer(n)) => {
                    use num_traits::ToPrimitive;
                    // Wraps like the primitive (two's complement, low 64 bits).
                    let m = n % (num_bigint::BigInt::from(1u8) << 64u32);
                    let w = m.to_i128().map(|x| x as u64 as i64)?;
                    Some(Expr::Lit(Lit::Int(w)))
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn specialise(&mut self, g: &Sym, dicts: &[(usize, Expr)]) -> Option<Sym> {
        let key = format!(
            "{g}@{}",
            dicts
                .iter()
                .map(|(i, d)| format!("{i}={}", closed_name(d)))
                .collect::<Vec<_>>()
                .join(",")
        );
        if let Some(s) = self.specs.get(&key) {
            return Some(s.clone());
        }
        let depth = 1 + dicts
            .iter()
            .flat_map(|(_, d)| globals_of(d))
            .map(|d| self.spec_depth.get(&d).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        if self.specs.len() >= MAX_SPECS || depth > MAX_SPEC_DEPTH {
            return None;
        }
        let def = self.defs.get(g)?.clone();
        if size(&def) > SPEC_SIZE {
            return None;
        }
        let Expr::Lam(ps, body) = self.rename(&def) else {
            return None;
        };
        // Named after the dictionaries *and their positions* (`_` for an
        // argument that stays): `$fShowTuple2@$fShowInteger` shows
        // `(Integer, a)`, `$fShowTuple2@_@$fShowInteger` shows `(a, Integer)`.
        let last = dicts.iter().map(|(i, _)| *i).max().unwrap_or(0);
        let name = Sym::from(format!(
            "{g}@{}",
            (0..=last)
                .map(|i| match dicts.iter().find(|(j, _)| *j == i) {
                    Some((_, d)) => closed_name(d),
                    None => "_".to_string(),
                })
                .collect::<Vec<_>>()
                .join("@")
        ));
        if self.defs.contains_key(&name) {
            return None;
        }
        self.specs.insert(key, name.clone());
        self.spec_depth.insert(name.clone(), depth);
        let mut m = HashMap::new();
        for (i, d) in dicts {
            m.insert(ps[*i].id, d.clone());
        }
        let rest: Vec<Var> = ps
            .iter()
            .enumerate()
            .filter(|(i, _)| !dicts.iter().any(|(j, _)| j == i))
            .map(|(_, p)| p.clone())
            .collect();
        let body = substitute(&body, &m);
        let e = if rest.is_empty() {
            body
        } else {
            Expr::Lam(rest, Box::new(body))
        };
        // A dictionary function's result: float it into a known dictionary.
        let mut new = vec![(name.clone(), e)];
        float_binds(&mut new, &self.cons);
        for (n, e) in new {
            self.defs.insert(n.clone(), e);
            self.order.push(n.clone());
            self.queue.push(n);
        }
        Some(name)
    }

    fn let_(&mut self, b: &Bind, body: &Expr, env: &Env) -> Expr {
        gph_syntax::stack::guard();
        match b {
            Bind::NonRec(v, rhs) => {
                // A local function whose calls all pass one dictionary (a
                // `where` function, polymorphic: `a r k = (r * 7 + k * 3)
                // `mod` 10` takes Integral's) is specialised to it, as in a
                // `letrec`.
                if matches!(rhs, Expr::Lam(..)) {
                    let one = [(v.clone(), rhs.clone())];
                    if let Some((mut bs, body)) = static_args(&one, body) {
                        let (v, rhs) = bs.pop().expect("one binding");
                        return self.let_(&Bind::NonRec(v, rhs), &body, env);
                    }
                }
                // let v = e in case v of b { alts }  ==>  case e of b { alts }
                // with b for v in alts (the same value, evaluated): the
                // `case` may then meet the case that e is (`compare`'s
                // `case compare x y of EQ -> ..; other -> other`).
                // (Substituted in the input: a copy that case of case
                // renames must see its own binder. Counted as a copy, so
                // that a nest of such `let`s is not quadratic.)
                if let Expr::Case(s, b, alts, def) = body {
                    if matches!(&**s, Expr::Local(x) if x.id == v.id)
                        && b.id != v.id
                        && within(body, &mut self.copies)
                    {
                        let m = HashMap::from([(v.id, Expr::Local(b.clone()))]);
                        let alts: Vec<Alt> = alts
                            .iter()
                            .map(|a| Alt {
                                con: a.con.clone(),
                                vars: a.vars.clone(),
                                body: substitute(&a.body, &m),
                            })
                            .collect();
                        let def = def.as_deref().map(|d| substitute(d, &m));
                        let s = self.expr(rhs, env);
                        return self.case(s, b, &alts, def.as_ref(), env);
                    }
                }
                let rhs = self.expr(rhs, env);
                let mut env2 = env.clone();
                if is_atom(&rhs) {
                    env2.subst.insert(v.id, rhs);
                    return self.expr(body, &env2);
                }
                if let Some(k) = self.known_of(&rhs, env) {
                    env2.known.insert(v.id, k);
                }
                let body = self.expr(body, &env2);
                let Some((n, under_lam)) = self.occurrences(&body, v.id) else {
                    return Expr::Let(Box::new(Bind::NonRec(v.clone(), rhs)), Box::new(body));
                };
                if n == 0 {
                    return body;
                }
                // A lambda called in another lambda (a loop) is moved
                // there: no work is done more often, and the call becomes
                // a beta reduction (fusion's `all p (takeWhile q xs)`
                // called both predicates as closures). One only passed on
                // there stays: it would be allocated at each pass.
                let is_lam = matches!(rhs, Expr::Lam(..));
                if n == 1
                    && (!under_lam || is_lam && applies(&body, v.id))
                    && !is_selection(&rhs)
                    && self.may_inline()
                {
                    self.fuel -= 1;
                    // Moved, not copied: a copy of each failure
                    // continuation of a 2,000-alternative match into the
                    // next was quadratic.
                    let mut e = body;
                    substitute_once(&mut e, v.id, &mut Some(rhs));
                    // A lambda may now be applied: beta-reduce it.
                    return if is_lam {
                        self.expr(&e, &Env::default())
                    } else {
                        e
                    };
                }
                Expr::Let(Box::new(Bind::NonRec(v.clone(), rhs)), Box::new(body))
            }
            Bind::Rec(bs) => {
                if let Some(groups) = self.charged(|left| binding_groups(bs, left)) {
                    if let [one] = &groups[..] {
                        return self.let_(one, body, env);
                    }
                    // The body is copied into the nest: counted (apart from
                    // the work budget, which inlining needs), so that a nest
                    // of such `letrec`s is not quadratic.
                    if within(body, &mut self.copies) {
                        let mut e = body.clone();
                        for b in groups.into_iter().rev() {
                            e = Expr::Let(Box::new(b), Box::new(e));
                        }
                        return self.expr(&e, env);
                    }
                }
                // Unchanged, borrowed: copying the body at every `letrec`
                // of a nest was quadratic.
                let (bs, body): (Cow<[(Var, Expr)]>, Cow<Expr>) = match static_args(bs, body) {
                    Some((bs, body)) => (Cow::Owned(bs), Cow::Owned(body)),
                    None => (Cow::Borrowed(bs), Cow::Borrowed(body)),
                };
                let mut env2 = env.clone();
                for (v, rhs) in bs.iter() {
                    if let Some(k) = self.known_of(rhs, env) {
                        env2.known.insert(v.id, k);
                    }
                }
                let bs: Vec<(Var, Expr)> = bs
                    .iter()
                    .map(|(v, r)| (v.clone(), self.expr(r, &env2)))
                    .collect();
                let body = self.expr(&body, &env2);
                let bs = self.charged(|left| live_bindings_within(bs, &body, left));
                if bs.is_empty() {
                    return body;
                }
                // A single non-recursive binding is a plain let.
                if bs.len() == 1
                    && self
                        .occurrences(&bs[0].1, bs[0].0.id)
                        .is_some_and(|o| o.0 == 0)
                {
                    let (v, r) = bs.into_iter().next().unwrap();
                    return Expr::Let(Box::new(Bind::NonRec(v, r)), Box::new(body));
                }
                Expr::Let(Box::new(Bind::Rec(bs)), Box::new(body))
            }
        }
    }

    /// Whether building this constructor application evaluates nothing
    /// (its strict fields, if any, are literals).
    fn lazy_con(&self, c: &Sym, args: &[Expr]) -> bool {
        match self.strict.get(c) {
            None => true,
            Some(st) => st
                .iter()
                .zip(args)
                .all(|(s, a)| !*s || matches!(a, Expr::Lit(_))),
        }
    }

    fn known_of(&self, e: &Expr, env: &Env) -> Option<Known> {
        match e {
            Expr::Con(c) if self.cons.get(c) == Some(&0) => Some(Known::Con(c.clone(), vec![])),
            Expr::App(f, args) => match &**f {
                Expr::Con(c)
                    if self.cons.get(c) == Some(&args.len())
                        && args.iter().all(is_atom)
                        && self.lazy_con(c, args) =>
                {
                    Some(Known::Con(c.clone(), args.clone()))
                }
                Expr::Global(g) if args.iter().all(is_atom) && args.len() < self.arity(g) => {
                    Some(Known::Pap(g.clone(), args.clone()))
                }
                _ => None,
            },
            Expr::Lit(l @ (Lit::Int(_) | Lit::Char(_) | Lit::Double(_))) => {
                Some(Known::Lit(l.clone()))
            }
            Expr::Local(v) => env.known.get(&v.id).cloned(),
            Expr::Global(g) => self.global_con(g).map(|(c, a)| Known::Con(c, a)),
            _ => None,
        }
    }

    /// `case (case s of p -> v ..) of alts`, each leaf `v` a known value:
    /// `case s of p -> (case v of alts) ..`, where each copy of the outer
    /// case reduces to the alternative that `v` picks. A copy after the
    /// first has its binders renamed (they are unique program-wide).
    fn case_of_case(
        &mut self,
        inner: Expr,
        b: &Var,
        alts: &[Alt],
        def: Option<&Expr>,
        env: &Env,
        first: &mut bool,
    ) -> Expr {
        match inner {
            Expr::Case(s, b2, alts2, def2) => {
                let alts2 = alts2
                    .into_iter()
                    .map(|a| Alt {
                        body: self.case_of_case(a.body, b, alts, def, env, first),
                        ..a
                    })
                    .collect();
                let def2 = def2.map(|d| Box::new(self.case_of_case(*d, b, alts, def, env, first)));
                Expr::Case(s, b2, alts2, def2)
            }
            leaf if std::mem::take(first) => self.case(leaf, b, alts, def, env),
            leaf => {
                let copy = self.rename(&Expr::Case(
                    Box::new(Expr::Lit(Lit::Int(0))),
                    b.clone(),
                    alts.to_vec(),
                    def.map(|d| Box::new(d.clone())),
                ));
                let Expr::Case(_, b, alts, def) = copy else {
                    unreachable!("a renamed case is a case")
                };
                self.case(leaf, &b, &alts, def.as_deref(), env)
            }
        }
    }

    fn case(&mut self, s: Expr, b: &Var, alts: &[Alt], def: Option<&Expr>, env: &Env) -> Expr {
        gph_syntax::stack::guard();
        // case (let bs in e) of ...  ==>  let bs in case e of ...
        if let Expr::Let(bind, inner) = s {
            let c = self.case(*inner, b, alts, def, env);
            return Expr::Let(bind, Box::new(c));
        }
        if let Expr::Case(..) = &s {
            if self.may_inline()
                && known_leaves(&s, self, CASE_OF_CASE_LEAVES)
                && alts.iter().map(|a| size(&a.body)).sum::<usize>() + def.map_or(0, size)
                    <= CASE_OF_CASE_SIZE
            {
                let mut first = true;
                return self.case_of_case(s, b, alts, def, env, &mut first);
            }
        }
        if let Some(k) = self.known_of(&s, env) {
            let pick = match &k {
                Known::Con(c, args) => alts
                    .iter()
                    .find(|a| matches!(&a.con, AltCon::Con(x) if x == c))
                    .map(|a| (Some((a.vars.clone(), args.clone())), &a.body))
                    .or(def.map(|d| (None, d))),
                Known::Lit(l) => alts
                    .iter()
                    .find(|a| matches!(&a.con, AltCon::Lit(x) if x == l))
                    .map(|a| (None, &a.body))
                    .or(def.map(|d| (None, d))),
                Known::Pap(..) => None,
            };
            if let Some((fields, body)) = pick {
                let mut env2 = env.clone();
                if is_atom(&s) {
                    env2.subst.insert(b.id, s.clone());
                }
                if let Some((vars, args)) = fields {
                    for (v, a) in vars.iter().zip(args) {
                        env2.subst.insert(v.id, a);
                    }
                }
                if is_atom(&s) {
                    return self.expr(body, &env2);
                }
                // Keep the binder bound to the (allocated) value.
                let body = self.expr(body, &env2);
                if self.occurrences(&body, b.id).is_some_and(|o| o.0 == 0) {
                    return body;
                }
                return Expr::Let(Box::new(Bind::NonRec(b.clone(), s)), Box::new(body));
            }
        }
        let alts: Vec<Alt> = alts
            .iter()
            .map(|a| {
                let mut env2 = env.clone();
                match &a.con {
                    AltCon::Con(c) => {
                        let k = Known::Con(
                            c.clone(),
                            a.vars.iter().map(|v| Expr::Local(v.clone())).collect(),
                        );
                        env2.known.insert(b.id, k.clone());
                        if let Expr::Local(x) = &s {
                            env2.known.insert(x.id, k);
                        }
                    }
                    AltCon::Lit(l) => {
                        env2.known.insert(b.id, Known::Lit(l.clone()));
                        if let Expr::Local(x) = &s {
                            env2.known.insert(x.id, Known::Lit(l.clone()));
                        }
                    }
                }
                Alt {
                    con: a.con.clone(),
                    vars: a.vars.clone(),
                    body: self.expr(&a.body, &env2),
                }
            })
            .collect();
        let def = def.map(|d| Box::new(self.expr(d, env)));
        Expr::Case(Box::new(s), b.clone(), alts, def)
    }
}

/// Whether `e` selects a field of a variable (`case p of (_, b) -> b`, a
/// lazy pattern's binding). Such a `let` is not moved into the expression
/// that uses it: bound alone it is a selector thunk, which the collector
/// replaces by the field once the variable is evaluated, so that it does
/// not hold the rest of the node (`let (a, b) = span p xs` would keep all
/// of `a` alive through `head b` while `length a` runs).
fn is_selection(e: &Expr) -> bool {
    match e {
        Expr::Case(s, _, alts, None) => {
            matches!(&**s, Expr::Local(_))
                && matches!(&alts[..], [a] if matches!(&a.body, Expr::Local(x) if a.vars.iter().any(|v| v.id == x.id)))
        }
        _ => false,
    }
}

/// Whether `e` is a nest of at most `most` `case`s whose every leaf is a
/// known value (a constructor or a literal).
fn known_leaves(e: &Expr, s: &Simp, most: usize) -> bool {
    fn go(e: &Expr, s: &Simp, left: &mut usize) -> bool {
        match e {
            Expr::Case(_, _, alts, def) => {
                if *left == 0 {
                    return false;
                }
                *left -= 1;
                alts.iter().all(|a| go(&a.body, s, left))
                    && def.as_deref().is_none_or(|d| go(d, s, left))
            }
            leaf => matches!(
                s.known_of(leaf, &Env::default()),
                Some(Known::Con(..) | Known::Lit(_))
            ),
        }
    }
    let mut left = most;
    go(e, s, &mut left)
}

/// Whether `e` applies local variable `v` to arguments somewhere.
fn applies(e: &Expr, v: u32) -> bool {
    gph_syntax::stack::guard();
    if let Expr::App(h, _) = e {
        if matches!(&**h, Expr::Local(x) if x.id == v) {
            return true;
        }
    }
    let mut found = false;
    e.for_each_child(|c| found = found || applies(c, v));
    found
}

/// Why a global function may be specialised at a known function passed
/// as one of its parameters (`Simp::static_param`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Static {
    No,
    /// Recursive, passing the parameter on unchanged.
    Passed,
    /// Not recursive, applying the parameter.
    Applied,
}

/// Whether `e` has no more than `left` nodes; `left` is decreased by the
/// nodes looked at.
fn within(e: &Expr, left: &mut usize) -> bool {
    gph_syntax::stack::guard();
    if *left == 0 {
        return false;
    }
    *left -= 1;
    let mut ok = true;
    e.for_each_child(|c| ok = ok && within(c, left));
    ok
}

/// The bindings of a `letrec` as the binding groups (strongly connected
/// components of "mentions") of a nest of `let`s, each group outside those
/// that mention it, a binding that does not mention itself a plain `let`;
/// `None` when they are one recursive group or `left` (nodes to look at)
/// runs out. A `where` clause is one `letrec`: split, its non-recursive
/// bindings are plain `let`s, which are inlined where used once and
/// evaluated at once where the body is strict in them (`balance`'s `sl =
/// size l` was a thunk built and forced at once for each node of a Map).
fn binding_groups(bs: &[(Var, Expr)], left: &mut usize) -> Option<Vec<Bind>> {
    fn mentions(
        e: &Expr,
        of: &HashMap<u32, usize>,
        out: &mut Vec<usize>,
        left: &mut usize,
    ) -> bool {
        gph_syntax::stack::guard();
        if *left == 0 {
            return false;
        }
        *left -= 1;
        if let Expr::Local(v) = e {
            if let Some(&i) = of.get(&v.id) {
                out.push(i);
            }
            return true;
        }
        let mut ok = true;
        e.for_each_child(|c| ok = ok && mentions(c, of, out, left));
        ok
    }
    let of: HashMap<u32, usize> = bs.iter().enumerate().map(|(i, (v, _))| (v.id, i)).collect();
    let mut edges = Vec::with_capacity(bs.len());
    for (_, rhs) in bs {
        let mut out = Vec::new();
        if !mentions(rhs, &of, &mut out, left) {
            return None;
        }
        out.sort_unstable();
        out.dedup();
        edges.push(out);
    }
    let groups = crate::graph::sccs(bs.len(), &edges);
    let recursive = |g: &[usize]| g.len() > 1 || edges[g[0]].contains(&g[0]);
    if groups.len() == 1 && recursive(&groups[0]) {
        return None;
    }
    let binds = groups
        .iter()
        .map(|g| {
            if recursive(g) {
                Bind::Rec(g.iter().map(|&i| bs[i].clone()).collect())
            } else {
                let (v, r) = bs[g[0]].clone();
                Bind::NonRec(v, r)
            }
        })
        .collect();
    Some(binds)
}

/// The bindings of a `letrec` that `body` needs, directly or through the
/// others (the rest are dead).
pub(crate) fn live_bindings(bs: Vec<(Var, Expr)>, body: &Expr) -> Vec<(Var, Expr)> {
    let mut unlimited = usize::MAX;
    live_bindings_within(bs, body, &mut unlimited)
}

/// [`live_bindings`], looking at no more than `left` nodes: beyond, what is
/// left to look at counts as live.
fn live_bindings_within(bs: Vec<(Var, Expr)>, body: &Expr, left: &mut usize) -> Vec<(Var, Expr)> {
    let mut uses = |e: &Expr, v: u32| occurrences_within(e, v, left).is_none_or(|o| o.0 > 0);
    let mut live: HashSet<u32> = HashSet::new();
    let mut changed = true;
    while changed {
        changed = false;
        for (v, _) in &bs {
            if !live.contains(&v.id)
                && (uses(body, v.id)
                    || bs
                        .iter()
                        .any(|(w, r)| live.contains(&w.id) && uses(r, v.id)))
            {
                live.insert(v.id);
                changed = true;
            }
        }
    }
    bs.into_iter()
        .filter(|(v, _)| live.contains(&v.id))
        .collect()
}

/// Static argument transformation for local functions whose calls all
/// pass the same global (or their own parameter) at some position: the
/// parameter goes and the global is substituted in the body (where a
/// known function can then be called directly, and its strictness seen).
/// `None` when no parameter goes.
#[allow(clippy::type_complexity)]
pub(crate) fn static_args(bs: &[(Var, Expr)], body: &Expr) -> Option<(Vec<(Var, Expr)>, Expr)> {
    // Copied only when a parameter goes.
    let mut bs: Cow<[(Var, Expr)]> = Cow::Borrowed(bs);
    let mut body: Cow<Expr> = Cow::Borrowed(body);
    for k in 0..bs.len() {
        let f = bs[k].0.clone();
        let Expr::Lam(ps, _) = &bs[k].1 else { continue };
        let ps = ps.clone();
        for i in (0..ps.len()).rev() {
            // Collect the argument at position i of every call.
            let mut check = StaticArg::new(Callee::Local(f.id), i, ps[i].id);
            check.walk(&body);
            for (_, r) in bs.iter() {
                check.walk(r);
            }
            let (true, Some(g)) = (check.ok, check.seen) else {
                continue;
            };
            // Drop parameter i: rewrite every call, substitute in the body.
            let mut m = HashMap::new();
            m.insert(ps[i].id, Expr::Global(g));
            let Expr::Lam(_, fbody) = &bs[k].1 else {
                unreachable!()
            };
            let new_body = substitute(fbody, &m);
            let mut new_ps = ps.clone();
            new_ps.remove(i);
            let new_rhs = if new_ps.is_empty() {
                new_body
            } else {
                Expr::Lam(new_ps, Box::new(new_body))
            };
            let bs = bs.to_mut();
            bs[k].1 = new_rhs;
            for (_, r) in bs.iter_mut() {
                *r = drop_arg(r, f.id, i);
            }
            body = Cow::Owned(drop_arg(&body, f.id, i));
            break;
        }
    }
    matches!(body, Cow::Owned(_)).then(|| (bs.into_owned(), body.into_owned()))
}

/// Who a static-argument check is about: a `letrec` function or a global.
#[derive(Clone, Copy)]
enum Callee<'a> {
    Local(u32),
    Global(&'a Sym),
}

impl Callee<'_> {
    fn is(self, e: &Expr) -> bool {
        match (self, e) {
            (Callee::Local(f), Expr::Local(v)) => v.id == f,
            (Callee::Global(g), Expr::Global(h)) => h == g,
            _ => false,
        }
    }
}

/// Every occurrence of `f` looked at: is each a call with more than `i`
/// arguments whose argument `i` is one global (the same everywhere, kept
/// in `seen`) or `f`'s own parameter `p`? `calls` counts the calls.
struct StaticArg<'a> {
    f: Callee<'a>,
    i: usize,
    p: u32,
    seen: Option<Sym>,
    calls: usize,
    ok: bool,
}

impl<'a> StaticArg<'a> {
    fn new(f: Callee<'a>, i: usize, p: u32) -> Self {
        StaticArg {
            f,
            i,
            p,
            seen: None,
            calls: 0,
            ok: true,
        }
    }

    fn walk(&mut self, e: &Expr) {
        gph_syntax::stack::guard();
        if !self.ok {
            return;
        }
        match e {
            _ if self.f.is(e) => self.ok = false,
            Expr::App(h, args) if self.f.is(h) => {
                self.calls += 1;
                match args.get(self.i) {
                    Some(Expr::Local(x)) if x.id == self.p => {}
                    Some(Expr::Global(g)) => match &self.seen {
                        None => self.seen = Some(g.clone()),
                        Some(s) if s == g => {}
                        _ => self.ok = false,
                    },
                    _ => self.ok = false,
                }
                for a in args {
                    self.walk(a);
                }
            }
            _ => e.for_each_child(|c| self.walk(c)),
        }
    }
}

/// How a closed argument of a specialisation is named in its copy's name:
/// `flip delete@$fEqChar` as `(flip delete@$fEqChar)`.
fn closed_name(e: &Expr) -> String {
    match e {
        Expr::Global(g) => g.to_string(),
        Expr::Lit(l) => format!("{l:?}"),
        Expr::App(f, args) => {
            let mut s = format!("({}", closed_name(f));
            for a in args {
                s.push(' ');
                s.push_str(&closed_name(a));
            }
            s + ")"
        }
        _ => "?".to_string(),
    }
}

/// Removes argument `i` from every call of `f`.
fn drop_arg(e: &Expr, f: u32, i: usize) -> Expr {
    gph_syntax::stack::guard();
    let rec = |x: &Expr| drop_arg(x, f, i);
    match e {
        Expr::App(h, args) => {
            let mut args: Vec<Expr> = args.iter().map(rec).collect();
            if matches!(&**h, Expr::Local(v) if v.id == f) && args.len() > i {
                args.remove(i);
                if args.is_empty() {
                    return (**h).clone();
                }
                return Expr::App(h.clone(), args);
            }
            Expr::App(Box::new(rec(h)), args)
        }
        _ => e.map_children(rec),
    }
}

/// Floats the `let`s at the top of top-level bindings to new top-level
/// bindings, and gives constructor applications atomic arguments, until
/// nothing changes.
///
/// A `let` is floated when what it binds are values (functions,
/// constructors), or when the binding is itself a constructor built from
/// them (an instance dictionary: `letrec this = D:Num ..; m5 = .. in this`).
/// Any other `let` stays: a thunk floated out of `main = let xs = iterate
/// f 1 in ...` would become a constant of the program, alive for the whole
/// run, where in place it dies after its last use (as in GHC).
///
/// Linear in the size of the program: a top-level list literal of 10,000
/// elements floats 10,000 bindings (each binding is moved, not copied, and
/// the new ones go through a work stack rather than being spliced into the
/// middle of the program), and the name of a field floated from a floated
/// field does not grow with the depth (`xs$f1$f1$f1$f1` then `xs$f1$N`,
/// `N` fresh): names a path long took 90 s for 10,000 elements.
///
/// A floated name is numbered within its top-level binding (`f$go1`,
/// `xs$f1$2`), not by the program's variable numbers: the same binding
/// floats to the same names whatever else is compiled with it, so the
/// REPL, which compiles only what each input needs, links the code of one
/// input with the values of the last (runtime `session::link`).
fn float_binds(binds: &mut Vec<(Sym, Expr)>, cons: &HashMap<Sym, usize>) {
    // Every name given out, so that no two bindings share one (a field's
    // `xs$f1` and a floated `f` numbered 1, `xs$f1`, would).
    let mut taken: HashSet<Sym> = binds.iter().map(|(n, _)| n.clone()).collect();
    let mut counter: HashMap<Sym, u32> = HashMap::new();
    let mut fresh = |root: &Sym, first: Option<Sym>, make: &dyn Fn(u32) -> Sym| {
        if let Some(n) = first.filter(|n| !taken.contains(n)) {
            taken.insert(n.clone());
            return n;
        }
        loop {
            let k = counter.entry(root.clone()).or_insert(0);
            *k += 1;
            let n = make(*k);
            if taken.insert(n.clone()) {
                return n;
            }
        }
    };
    // (name, definition, the top-level binding it came from, how many
    // fields deep), in reverse order: the next binding to look at is last.
    let mut work: Vec<(Sym, Expr, Sym, usize)> = std::mem::take(binds)
        .into_iter()
        .rev()
        .map(|(n, e)| (n.clone(), e, n, 0))
        .collect();
    // Whether `e`, under its `let`s, is a constructor application or a
    // variable bound by `bound` or by one of those `let`s (`let return =
    // .. in letrec this = D:Monad .. in this`: the simplifier splits a
    // `letrec` into its binding groups).
    let builds_con = |mut e: &Expr, bound: &dyn Fn(u32) -> bool| {
        let mut inner: Vec<u32> = Vec::new();
        loop {
            match e {
                Expr::Let(b, body) => {
                    match &**b {
                        Bind::NonRec(v, _) => inner.push(v.id),
                        Bind::Rec(bs) => inner.extend(bs.iter().map(|(v, _)| v.id)),
                    }
                    e = body
                }
                Expr::Con(_) => return true,
                Expr::App(f, _) => return matches!(&**f, Expr::Con(c) if cons.contains_key(c)),
                Expr::Local(v) => return bound(v.id) || inner.contains(&v.id),
                _ => return false,
            }
        }
    };
    let is_value = |e: &Expr| match e {
        Expr::Lam(..) | Expr::Con(_) => true,
        Expr::App(f, _) => matches!(&**f, Expr::Con(_)),
        _ => is_atom(e),
    };
    let floats = |e: &Expr| match e {
        Expr::Let(b, body) => match &**b {
            Bind::NonRec(v, r) => is_value(r) || builds_con(body, &|id| id == v.id),
            Bind::Rec(bs) => {
                bs.iter().all(|(_, r)| is_value(r))
                    || builds_con(body, &|id| bs.iter().any(|(x, _)| x.id == id))
            }
        },
        _ => false,
    };
    while let Some((name, e, root, depth)) = work.pop() {
        match e {
            Expr::Let(..) if floats(&e) => {
                // Every `let` at the top at once, with one substitution:
                // one at a time substituted into the rest of a nest of
                // 10,000 `let`s 10,000 times.
                let mut m = HashMap::new();
                let mut levels: Vec<Vec<(Sym, Expr)>> = Vec::new();
                let mut e = e;
                let mut own = false;
                while floats(&e) {
                    let Expr::Let(b, body) = e else {
                        unreachable!("floats() holds only of a let")
                    };
                    let bs = match *b {
                        Bind::Rec(bs) => bs,
                        Bind::NonRec(v, e) => vec![(v, e)],
                    };
                    // The body's own variable (`in this`) takes the binding's name.
                    let own_var = match &*body {
                        Expr::Local(v) if bs.iter().any(|(x, _)| x.id == v.id) => Some(v.id),
                        _ => None,
                    };
                    let mut level = Vec::new();
                    for (v, rhs) in bs {
                        let n = if Some(v.id) == own_var {
                            name.clone()
                        } else {
                            fresh(&root, None, &|k| Sym::from(format!("{name}${}{k}", v.name)))
                        };
                        m.insert(v.id, Expr::Global(n.clone()));
                        level.push((n, rhs));
                    }
                    levels.push(level);
                    e = *body;
                    if own_var.is_some() {
                        own = true;
                        break;
                    }
                }
                // The new ones are looked at next: the binding itself, then
                // the innermost `let`'s, as when floated one at a time.
                let mut new: Vec<(Sym, Expr)> = Vec::new();
                if !own {
                    new.push((name.clone(), substitute(&e, &m)));
                }
                for level in levels.into_iter().rev() {
                    new.extend(level.into_iter().map(|(n, rhs)| (n, substitute(&rhs, &m))));
                }
                // (The binding's own name first keeps the order readable.)
                new.sort_by_key(|(n, _)| if *n == name { 0 } else { 1 });
                work.extend(
                    new.into_iter()
                        .rev()
                        .map(|(n, e)| (n, e, root.clone(), depth)),
                );
            }
            Expr::App(f, args)
                if matches!(&*f, Expr::Con(c) if cons.get(c) == Some(&args.len()))
                    && !args.iter().all(is_atom) =>
            {
                let mut extra = Vec::new();
                let args = args
                    .into_iter()
                    .enumerate()
                    .map(|(k, a)| {
                        if is_atom(&a) {
                            a
                        } else {
                            let short = (depth < 4).then(|| Sym::from(format!("{name}$f{k}")));
                            let n = fresh(&root, short, &|j| Sym::from(format!("{root}$f{k}${j}")));
                            extra.push((n.clone(), a));
                            Expr::Global(n)
                        }
                    })
                    .collect();
                binds.push((name, Expr::App(f, args)));
                work.extend(
                    extra
                        .into_iter()
                        .rev()
                        .map(|(n, e)| (n, e, root.clone(), depth + 1)),
                );
            }
            e => binds.push((name, e)),
        }
    }
}

/// The name of the IO result constructor the simplifier introduces.
pub use crate::back::codegen::IORES_NAME;

/// What every later pass needs, optimised or not (`-O0` runs only this):
/// unique variables and the IO result type. Returns the next free variable
/// number.
pub fn prepare(p: &mut Program) -> u32 {
    let next = renumber(p);
    let iores = Sym::from(IORES_NAME);
    if !p
        .data
        .iter()
        .any(|d| d.constrs.iter().any(|c| c.name == iores))
    {
        p.data.push(DataType {
            name: iores.clone(),
            constrs: vec![Constr {
                name: iores.clone(),
                arity: 1,
                strict: vec![false],
                refines: false,
            }],
        });
    }
    next
}

/// A check run after each pass (Core Lint): the program and the pass's name.
pub type LintHook<'a> = dyn FnMut(&Program, &str) + 'a;

/// Simplifies a program; returns the next free variable number. `lint`,
/// when given, is called with the program after each round.
pub fn simplify(p: &mut Program, mut lint: Option<&mut LintHook>) -> u32 {
    let next = prepare(p);
    let iores = Sym::from(IORES_NAME);
    let cons: HashMap<Sym, usize> = p
        .data
        .iter()
        .flat_map(|d| d.constrs.iter().map(|c| (c.name.clone(), c.arity)))
        .collect();
    float_binds(&mut p.binds, &cons);
    if let Some(lint) = lint.as_mut() {
        lint(p, "floating top-level lets");
    }
    let prims: HashMap<Sym, PrimInfo> = p
        .prims
        .iter()
        .filter_map(|(o, n, _)| prims::lookup(n).map(|i| (o.clone(), i)))
        .collect();
    let strict = p
        .data
        .iter()
        .flat_map(|d| d.constrs.iter())
        .filter(|c| c.strict.iter().any(|s| *s))
        .map(|c| (c.name.clone(), c.strict.clone()))
        .collect();
    let mut s = Simp {
        defs: p.binds.iter().cloned().collect(),
        cons,
        strict,
        prims,
        inline: HashSet::new(),
        specs: HashMap::new(),
        spec_depth: HashMap::new(),
        static_params: HashMap::new(),
        queue: Vec::new(),
        order: p.binds.iter().map(|(n, _)| n.clone()).collect(),
        next,
        fuel: 0,
        depth: 0,
        work: 0,
        budget: 0,
        copies: 0,
        iores,
    };
    for round in 1..=2 {
        s.inline = s.inlinable();
        s.queue = s.order.clone();
        let mut k = 0;
        while k < s.queue.len() {
            let n = s.queue[k].clone();
            k += 1;
            let e = s.defs[&n].clone();
            s.fuel = 4000;
            s.depth = 0;
            s.work = 0;
            s.budget = WORK_BASE + WORK_PER_NODE * size(&e);
            s.copies = s.budget;
            let e2 = s.expr(&e, &Env::default());
            s.defs.insert(n, e2);
        }
        if let Some(lint) = lint.as_mut() {
            let now = Program {
                data: p.data.clone(),
                binds: s
                    .order
                    .iter()
                    .map(|n| (n.clone(), s.defs[n].clone()))
                    .collect(),
                prims: p.prims.clone(),
            };
            lint(&now, &format!("simplifier round {round}"));
        }
    }
    p.binds = s
        .order
        .iter()
        .map(|n| (n.clone(), s.defs[n].clone()))
        .collect();
    s.next + 1
}
