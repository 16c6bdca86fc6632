//! Deforestation: a recursive function that takes apart a data structure,
//! applied to a recursive function that builds it, becomes one loop that
//! builds nothing. `foldl' (+) 0 (zipWith (*) xs ys)` and `length (filter p
//! [1 .. n])` run without the intermediate lists.
//!
//! The rule. A *loop* is a recursive function `c = \x1..xn -> body` (a
//! `letrec` binding, or a self-recursive global copied in as one). It
//! *consumes* parameter k when its body is `case xk of alts`, `xk` occurs
//! nowhere else and the case binder is unused: `c` evaluates that argument
//! before anything else. So in a saturated call `c a1 .. e .. an` the call can
//! be pushed into the leaves of `e` (case of case through `case` and `let`),
//! and when a leaf calls another loop `p = \y1..ym -> pbody` (the
//! *producer*) the pair becomes a new loop
//!
//! ```text
//! cp = \a1..an (without ak) y1..ym -> push(pbody)
//! ```
//!
//! where `push` turns each leaf of a producer expression into what `c` would
//! do with it:
//! * `p b1..bm` (the producer's recursion) becomes `cp a1..an b1..bm`;
//! * a constructor `K f1..fj` becomes `c`'s alternative for `K` with the
//!   fields bound, and a field that the alternative only passes on to `c`'s
//!   own recursive call at position k (at most once on every path, not
//!   under a lambda) is pushed into that call instead of being built;
//! * any other leaf stays a call of `c`.
//!
//! Nothing is evaluated earlier or more often than before: the pushed
//! expressions were evaluated first thing by `c`, and a pushed field was
//! used once. Fused loops are themselves loops, so chains fuse from the
//! inside out (`foldl'` of `zipWith` of `map`).

use crate::core::simplify::{
    is_atom, live_bindings, mentions_global, occurrences, size, static_args, substitute, Renamer,
};
use crate::core::{Alt, AltCon, Bind, Expr, Program, Var};
use gph_syntax::lexer::Sym;
use std::collections::HashMap;
use std::rc::Rc;

/// Fusions per top-level binding (each copies a loop body or two).
const MAX_FUSIONS: usize = 24;
/// Loops larger than this are not copied.
const MAX_LOOP_SIZE: usize = 400;
/// A field pushed into a recursive call is copied once per call site.
const MAX_FIELD_COPY: usize = 120;
/// A fused loop (and its call site) larger than this is not made.
const MAX_FUSED_SIZE: usize = 1200;
/// Arguments up to this size that bind nothing are copied into the leaves,
/// others `let`-bound.
const MAX_ARG_COPY: usize = 6;

/// Whether `e` binds no variable (no lambda, `let` or `case` inside): it
/// may be copied as it is.
fn binds_nothing(e: &Expr) -> bool {
    let mut ok = true;
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if matches!(e, Expr::Lam(..) | Expr::Let(..) | Expr::Case(..)) {
            ok = false;
            break;
        }
        e.for_each_child(|c| stack.push(c));
    }
    ok
}

/// A known recursive function `\params -> body`.
struct Loop {
    params: Vec<Var>,
    body: Expr,
}

type Loops = HashMap<u32, Rc<Loop>>;

/// A saturated call of a loop. A global loop comes with the binding of its
/// local copy (`binds`) and the arguments its definition supplies itself
/// (`prefix`, as in `length = go 0`).
#[derive(Clone)]
struct LoopCall {
    binds: Rc<Vec<(Var, Expr)>>,
    var: Var,
    lp: Rc<Loop>,
    args: Vec<Expr>,
    global: Option<(Sym, Vec<Expr>)>,
}

/// Fuses every consumer-of-producer call in the program.
pub fn fuse(p: &mut Program, next: &mut u32) {
    let defs: HashMap<Sym, Expr> = p.binds.iter().cloned().collect();
    let mut f = Fuser {
        defs: &defs,
        globals: HashMap::new(),
        next,
        fuel: 0,
    };
    for (_, e) in &mut p.binds {
        f.fuel = MAX_FUSIONS;
        let fused = f.expr(e, &Loops::new());
        if f.fuel < MAX_FUSIONS {
            *e = drop_dead(&fused);
        }
    }
}

struct Fuser<'a> {
    defs: &'a HashMap<Sym, Expr>,
    /// The global loops, as templates to copy ([`Fuser::global_loop`]).
    globals: HashMap<Sym, Option<LoopCall>>,
    next: &'a mut u32,
    fuel: usize,
}

/// What a fusion is about: consumer `c` at parameter `k`, producer `p`,
/// and the fused loop `cp`.
struct Ctx {
    c: LoopCall,
    k: usize,
    p: LoopCall,
    cp: Var,
}

impl Ctx {
    /// The producer's arguments, if `e` is a saturated call of it.
    fn p_call(&self, e: &Expr) -> Option<Vec<Expr>> {
        let Expr::App(h, args) = e else { return None };
        let arity = self.p.lp.params.len();
        match &**h {
            Expr::Local(v) if v.id == self.p.var.id && args.len() == arity => Some(args.clone()),
            Expr::Global(g) => {
                let (pg, prefix) = self.p.global.as_ref()?;
                (g == pg && prefix.len() + args.len() == arity)
                    .then(|| prefix.iter().chain(args).cloned().collect())
            }
            _ => None,
        }
    }

    fn alts(&self) -> (&[Alt], Option<&Expr>) {
        match &self.c.lp.body {
            Expr::Case(_, _, alts, def) => (alts, def.as_deref()),
            _ => unreachable!("a consumer's body is a case"),
        }
    }
}

fn add_loops(loops: &mut Loops, bs: &[(Var, Expr)]) {
    for (v, r) in bs {
        if let Expr::Lam(ps, b) = r {
            if size(b) <= MAX_LOOP_SIZE {
                loops.insert(
                    v.id,
                    Rc::new(Loop {
                        params: ps.clone(),
                        body: (**b).clone(),
                    }),
                );
            }
        }
    }
}

/// The loops bound by the `letrec`s among `lets`.
fn add_let_loops(loops: &mut Loops, lets: &[Bind]) {
    for b in lets {
        if let Bind::Rec(bs) = b {
            add_loops(loops, bs);
        }
    }
}

impl LoopCall {
    /// Whether two calls are of the same loop (the same local, or copies
    /// of the same global).
    fn same_loop(&self, o: &LoopCall) -> bool {
        self.var.id == o.var.id
            || matches!((&self.global, &o.global), (Some((a, _)), Some((b, _))) if a == b)
    }
}

/// Whether the loop consumes its parameter `k` (see the module comment).
fn consumes(lp: &Loop, k: usize) -> bool {
    let Expr::Case(s, b, alts, def) = &lp.body else {
        return false;
    };
    let x = lp.params[k].id;
    matches!(&**s, Expr::Local(v) if v.id == x)
        && occurrences(&lp.body, x).0 == 1
        && !alts.is_empty()
        && alts
            .iter()
            .all(|a| matches!(a.con, AltCon::Con(_)) && occurrences(&a.body, b.id).0 == 0)
        && def.as_ref().is_none_or(|d| occurrences(d, b.id).0 == 0)
}

/// The constructor and fields of a constructor application.
fn as_con(e: &Expr) -> Option<(&Sym, &[Expr])> {
    match e {
        Expr::Con(c) => Some((c, &[])),
        Expr::App(h, fs) => match &**h {
            Expr::Con(c) => Some((c, fs)),
            _ => None,
        },
        _ => None,
    }
}

/// The `let`s at the top of an expression, and what they scope over.
fn peel_lets(e: &Expr) -> (Vec<Bind>, &Expr) {
    let mut lets = Vec::new();
    let mut e = e;
    while let Expr::Let(b, body) = e {
        lets.push((**b).clone());
        e = body;
    }
    (lets, e)
}

fn wrap_lets(lets: Vec<Bind>, e: Expr) -> Expr {
    lets.into_iter()
        .rev()
        .fold(e, |e, b| Expr::Let(Box::new(b), Box::new(e)))
}

/// Whether every occurrence of `v` in `e` is argument `k` of a saturated
/// call of `c` (arity `n`), not under a lambda, at most once on any path.
fn passed_on(e: &Expr, v: u32, c: u32, k: usize, n: usize) -> bool {
    fn ok(e: &Expr, v: u32, c: u32, k: usize, n: usize, lam: bool) -> bool {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(x) => x.id != v,
            Expr::App(h, a) => {
                if matches!(&**h, Expr::Local(f) if f.id == c)
                    && a.len() == n
                    && matches!(&a[k], Expr::Local(x) if x.id == v)
                {
                    return !lam
                        && a.iter()
                            .enumerate()
                            .all(|(i, x)| i == k || occurrences(x, v).0 == 0);
                }
                ok(h, v, c, k, n, lam) && a.iter().all(|x| ok(x, v, c, k, n, lam))
            }
            Expr::Lam(_, b) => ok(b, v, c, k, n, true),
            Expr::Let(b, body) => {
                (match &**b {
                    Bind::NonRec(_, r) => ok(r, v, c, k, n, lam),
                    Bind::Rec(bs) => bs.iter().all(|(_, r)| ok(r, v, c, k, n, true)),
                }) && ok(body, v, c, k, n, lam)
            }
            _ => {
                let mut all = true;
                e.for_each_child(|x| all &= ok(x, v, c, k, n, lam));
                all
            }
        }
    }
    fn path(e: &Expr, v: u32) -> usize {
        gph_syntax::stack::guard();
        match e {
            Expr::Local(x) => usize::from(x.id == v),
            Expr::Case(s, _, alts, d) => {
                path(s, v)
                    + alts
                        .iter()
                        .map(|a| path(&a.body, v))
                        .chain(d.iter().map(|d| path(d, v)))
                        .max()
                        .unwrap_or(0)
            }
            _ => {
                let mut n = 0;
                e.for_each_child(|x| n += path(x, v));
                n
            }
        }
    }
    ok(e, v, c, k, n, false) && path(e, v) <= 1
}

/// Replaces a global by a local variable.
fn localise(e: &Expr, g: &str, v: &Var) -> Expr {
    gph_syntax::stack::guard();
    match e {
        Expr::Global(x) if &**x == g => Expr::Local(v.clone()),
        _ => e.map_children(|c| localise(c, g, v)),
    }
}

/// Drops the `letrec` bindings nothing uses any more (the loops a fusion
/// replaced).
fn drop_dead(e: &Expr) -> Expr {
    gph_syntax::stack::guard();
    match e {
        Expr::Let(b, body) => {
            let body = drop_dead(body);
            match &**b {
                Bind::NonRec(v, r) => Expr::Let(
                    Box::new(Bind::NonRec(v.clone(), drop_dead(r))),
                    Box::new(body),
                ),
                Bind::Rec(bs) => {
                    let bs: Vec<(Var, Expr)> =
                        bs.iter().map(|(v, r)| (v.clone(), drop_dead(r))).collect();
                    let bs = live_bindings(bs, &body);
                    if bs.is_empty() {
                        body
                    } else {
                        Expr::Let(Box::new(Bind::Rec(bs)), Box::new(body))
                    }
                }
            }
        }
        _ => e.map_children(drop_dead),
    }
}

impl Fuser<'_> {
    fn fresh(&mut self, name: &str) -> Var {
        *self.next += 1;
        Var {
            name: Sym::from(name),
            id: *self.next,
        }
    }

    fn rename(&mut self, e: &Expr) -> Expr {
        Renamer {
            next: &mut *self.next,
            map: HashMap::new(),
        }
        .expr(e)
    }

    fn expr(&mut self, e: &Expr, loops: &Loops) -> Expr {
        gph_syntax::stack::guard();
        match e {
            Expr::Let(b, body) => match &**b {
                Bind::NonRec(v, r) => Expr::Let(
                    Box::new(Bind::NonRec(v.clone(), self.expr(r, loops))),
                    Box::new(self.expr(body, loops)),
                ),
                Bind::Rec(bs) => {
                    let mut inner = loops.clone();
                    add_loops(&mut inner, bs);
                    let bs: Vec<(Var, Expr)> = bs
                        .iter()
                        .map(|(v, r)| (v.clone(), self.expr(r, &inner)))
                        .collect();
                    add_loops(&mut inner, &bs);
                    let body = self.expr(body, &inner);
                    Expr::Let(Box::new(Bind::Rec(bs)), Box::new(body))
                }
            },
            Expr::App(f, args) => {
                let f = self.expr(f, loops);
                let args = args.iter().map(|a| self.expr(a, loops)).collect();
                self.call(f, args, loops)
            }
            _ => e.map_children(|c| self.expr(c, loops)),
        }
    }

    /// A global loop: a self-recursive function, or a `letrec` loop
    /// applied to some arguments (`length = go 0`), as a local copy to be
    /// instantiated ([`Fuser::instantiate`]) where it is used.
    fn global_loop(&mut self, g: &Sym) -> Option<LoopCall> {
        if let Some(t) = self.globals.get(g) {
            return t.clone();
        }
        // (None while it is being made, against definitions that refer to each other.)
        self.globals.insert(g.clone(), None);
        let t = self.make_global_loop(g);
        self.globals.insert(g.clone(), t.clone());
        t
    }

    /// A fresh copy of a loop call's bindings (none for a local loop), so
    /// that variables stay unique.
    fn instantiate(&mut self, c: LoopCall) -> LoopCall {
        if c.binds.is_empty() {
            return c;
        }
        let e = Expr::Let(
            Box::new(Bind::Rec((*c.binds).clone())),
            Box::new(Expr::app(Expr::Local(c.var.clone()), c.args.clone())),
        );
        let Expr::Let(b, call) = self.rename(&e) else {
            unreachable!()
        };
        let (Bind::Rec(bs), Expr::App(h, args)) = (*b, *call) else {
            unreachable!()
        };
        let Expr::Local(var) = *h else { unreachable!() };
        let Some((_, Expr::Lam(ps, body))) = bs.iter().find(|(v, _)| v.id == var.id) else {
            unreachable!()
        };
        let lp = Rc::new(Loop {
            params: ps.clone(),
            body: (**body).clone(),
        });
        LoopCall {
            binds: Rc::new(bs),
            var,
            lp,
            args,
            global: c.global,
        }
    }

    fn make_global_loop(&mut self, g: &Sym) -> Option<LoopCall> {
        let def = self.defs.get(g)?;
        // `length = length$go 0`, the loop floated to the top level.
        if let Expr::App(h, prefix) = def {
            let Expr::Global(h) = &**h else { return None };
            let mut c = self.global_loop(h)?;
            let (_, inner) = c.global.as_ref()?;
            if !inner.is_empty() || h == g {
                return None;
            }
            c.global = Some((g.clone(), prefix.clone()));
            return Some(c);
        }
        if !matches!(def, Expr::Lam(..) | Expr::Let(..)) {
            return None;
        }
        if size(def) > MAX_LOOP_SIZE {
            return None;
        }
        match self.rename(def) {
            Expr::Lam(ps, body) if mentions_global(&body, g) => {
                let short = g.rsplit('.').next().unwrap_or(g);
                let var = self.fresh(short);
                let body = localise(&body, g, &var);
                let lp = Rc::new(Loop {
                    params: ps.clone(),
                    body: body.clone(),
                });
                Some(LoopCall {
                    binds: Rc::new(vec![(var.clone(), Expr::Lam(ps, Box::new(body)))]),
                    var,
                    lp,
                    args: vec![],
                    global: Some((g.clone(), vec![])),
                })
            }
            Expr::Let(b, call) => {
                let Bind::Rec(bs) = *b else { return None };
                let [(var, Expr::Lam(ps, body))] = &bs[..] else {
                    return None;
                };
                let Expr::App(h, prefix) = *call else {
                    return None;
                };
                if !matches!(&*h, Expr::Local(v) if v.id == var.id) || mentions_global(body, g) {
                    return None;
                }
                Some(LoopCall {
                    var: var.clone(),
                    lp: Rc::new(Loop {
                        params: ps.clone(),
                        body: (**body).clone(),
                    }),
                    args: vec![],
                    global: Some((g.clone(), prefix)),
                    binds: Rc::new(bs),
                })
            }
            _ => None,
        }
    }

    /// `h` applied to `n` arguments as a saturated call of a loop, with
    /// the arguments its definition supplies (to which the call's are to
    /// be added). The call's own are copied only when a fusion needs them:
    /// copying them at every call of a loop was quadratic in a chain of
    /// 5,000 `++` (15 s).
    fn loop_head(&mut self, h: &Expr, n: usize, loops: &Loops) -> Option<LoopCall> {
        match h {
            Expr::Local(v) => {
                let lp = loops.get(&v.id)?;
                (lp.params.len() == n).then(|| LoopCall {
                    binds: Rc::new(vec![]),
                    var: v.clone(),
                    lp: lp.clone(),
                    args: vec![],
                    global: None,
                })
            }
            Expr::Global(g) => {
                let mut c = self.global_loop(g)?;
                let prefix = &c.global.as_ref()?.1;
                if prefix.len() + n != c.lp.params.len() {
                    return None;
                }
                c.args = prefix.clone();
                Some(c)
            }
            _ => None,
        }
    }

    /// The first loop called at a leaf of `e` other than `c`.
    fn find_producer(&mut self, e: &Expr, c: &LoopCall, loops: &Loops) -> Option<LoopCall> {
        gph_syntax::stack::guard();
        match e {
            Expr::Case(_, _, alts, def) => {
                for a in alts {
                    if let Some(p) = self.find_producer(&a.body, c, loops) {
                        return Some(p);
                    }
                }
                self.find_producer(def.as_deref()?, c, loops)
            }
            // Loops bound inside would be out of the fused loop's scope.
            Expr::Let(b, body) if matches!(**b, Bind::NonRec(..)) => {
                self.find_producer(body, c, loops)
            }
            Expr::App(h, args) => {
                let mut p = self.loop_head(h, args.len(), loops)?;
                if p.same_loop(c) {
                    return None;
                }
                p.args.extend(args.iter().cloned());
                Some(p)
            }
            _ => None,
        }
    }

    /// Tries to fuse the call `f args` (both already walked).
    fn call(&mut self, f: Expr, args: Vec<Expr>, loops: &Loops) -> Expr {
        if self.fuel == 0 {
            return Expr::app(f, args);
        }
        let Some(head) = self.loop_head(&f, args.len(), loops) else {
            return Expr::app(f, args);
        };
        let prefix = head.args.len();
        for k in 0..prefix + args.len() {
            if !consumes(&head.lp, k) {
                continue;
            }
            let (lets, arg) = peel_lets(if k < prefix {
                &head.args[k]
            } else {
                &args[k - prefix]
            });
            let mut inner = loops.clone();
            add_let_loops(&mut inner, &lets);
            let Some(p) = self.find_producer(arg, &head, &inner) else {
                continue;
            };
            let arg = arg.clone();
            let mut c = head.clone();
            c.args.extend(args.iter().cloned());
            if let Some((lets, site)) = self.fuse(c, k, p, lets, &arg) {
                self.fuel -= 1;
                // The fused loop may itself consume another producer.
                add_let_loops(&mut inner, &lets);
                let site = self.expr(&site, &inner);
                return wrap_lets(lets, site);
            }
        }
        Expr::app(f, args)
    }

    /// Builds the fused loop and the call site (see the module comment), or
    /// nothing when the copies would make the code too big.
    fn fuse(
        &mut self,
        c: LoopCall,
        k: usize,
        p: LoopCall,
        arg_lets: Vec<Bind>,
        arg: &Expr,
    ) -> Option<(Vec<Bind>, Expr)> {
        let c = self.instantiate(c);
        let p = self.instantiate(p);
        let name = format!("{}_{}", c.var.name, p.var.name);
        let cp = self.fresh(&name);
        let site_args = c.args.clone();
        let mut outer: Vec<Bind> = Vec::new();
        for binds in [&c.binds, &p.binds] {
            if !binds.is_empty() {
                outer.push(Bind::Rec((**binds).clone()));
            }
        }
        let ctx = Ctx { c, k, p, cp };
        // The fused loop's parameters.
        let cparams: Vec<Var> = ctx
            .c
            .lp
            .params
            .iter()
            .map(|v| self.fresh(&v.name))
            .collect();
        let Expr::Lam(pparams, pbody) = self.rename(&Expr::Lam(
            ctx.p.lp.params.clone(),
            Box::new(ctx.p.lp.body.clone()),
        )) else {
            unreachable!()
        };
        let cargs: Vec<Expr> = cparams.iter().map(|v| Expr::Local(v.clone())).collect();
        let body = self.push(&ctx, &cargs, &pbody);
        let params: Vec<Var> = cparams
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, v)| v.clone())
            .chain(pparams)
            .collect();
        let lam = Expr::Lam(params, Box::new(body));
        // The call site.
        let (atom_lets, site_args) = self.atomise(&site_args, k);
        let site = self.push(&ctx, &site_args, arg);
        let budget = 2 * (size(&ctx.c.lp.body) + size(&ctx.p.lp.body) + size(arg)) + 40;
        if size(&lam) + size(&site) > budget.min(MAX_FUSED_SIZE)
            || occurrences(&lam, ctx.cp.id).0 == 0
        {
            // Too big, or no recursion met recursion: nothing gained.
            return None;
        }
        // A global the call site passes and the loop passes on unchanged
        // (the function of `foldl (+) 0 [1 .. n]`) is substituted into the
        // loop, so that the strictness analysis sees what it does with the
        // accumulator: a lazy accumulator built a chain of n thunks.
        let loop_bind = vec![(ctx.cp.clone(), lam)];
        let (loop_bind, site) = static_args(&loop_bind, &site).unwrap_or((loop_bind, site));
        let mut lets = outer;
        lets.extend(atom_lets);
        lets.extend(arg_lets);
        lets.push(Bind::Rec(loop_bind));
        Some((lets, site))
    }

    /// Arguments fit to be copied into several leaves: small ones as they
    /// are, others `let`-bound (argument `skip` is left alone).
    fn atomise(&mut self, args: &[Expr], skip: usize) -> (Vec<Bind>, Vec<Expr>) {
        let mut lets = Vec::new();
        let args = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                // A copy must bind nothing: variables stay unique.
                if i == skip || is_atom(a) || size(a) <= MAX_ARG_COPY && binds_nothing(a) {
                    a.clone()
                } else {
                    let v = self.fresh("arg");
                    lets.push(Bind::NonRec(v.clone(), a.clone()));
                    Expr::Local(v)
                }
            })
            .collect();
        (lets, args)
    }

    /// `c cargs e` with the call pushed into the leaves of `e`.
    fn push(&mut self, ctx: &Ctx, cargs: &[Expr], e: &Expr) -> Expr {
        gph_syntax::stack::guard();
        match e {
            Expr::Case(s, b, alts, def) => Expr::Case(
                s.clone(),
                b.clone(),
                alts.iter()
                    .map(|a| Alt {
                        con: a.con.clone(),
                        vars: a.vars.clone(),
                        body: self.push(ctx, cargs, &a.body),
                    })
                    .collect(),
                def.as_ref().map(|d| Box::new(self.push(ctx, cargs, d))),
            ),
            Expr::Let(b, body) => Expr::Let(b.clone(), Box::new(self.push(ctx, cargs, body))),
            _ => {
                if let Some(pargs) = ctx.p_call(e) {
                    let args = cargs
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != ctx.k)
                        .map(|(_, a)| a.clone())
                        .chain(pargs)
                        .collect();
                    return Expr::app(Expr::Local(ctx.cp.clone()), args);
                }
                if let Some((con, fields)) = as_con(e) {
                    if let Some(r) = self.consume(ctx, cargs, con, fields) {
                        return r;
                    }
                }
                let mut args = cargs.to_vec();
                args[ctx.k] = e.clone();
                Expr::app(Expr::Local(ctx.c.var.clone()), args)
            }
        }
    }

    /// The consumer's alternative for the constructor `con` applied to
    /// `fields`, with its parameters `cargs`.
    fn consume(&mut self, ctx: &Ctx, cargs: &[Expr], con: &Sym, fields: &[Expr]) -> Option<Expr> {
        let (alts, def) = ctx.alts();
        let (vars, body) = match alts.iter().find(|a| a.con == AltCon::Con(con.clone())) {
            Some(a) if a.vars.len() == fields.len() => (&a.vars[..], &a.body),
            Some(_) => return None,
            None => (&[][..], def?),
        };
        let n = ctx.c.lp.params.len();
        let mut m = HashMap::new();
        for (i, v) in ctx.c.lp.params.iter().enumerate() {
            if i != ctx.k {
                m.insert(v.id, cargs[i].clone());
            }
        }
        let mut lets = Vec::new();
        let mut pushed = HashMap::new();
        for (v, fe) in vars.iter().zip(fields) {
            if is_atom(fe) {
                m.insert(v.id, fe.clone());
            } else if size(fe) <= MAX_FIELD_COPY && passed_on(body, v.id, ctx.c.var.id, ctx.k, n) {
                pushed.insert(v.id, fe.clone());
            } else {
                lets.push(Bind::NonRec(v.clone(), fe.clone()));
            }
        }
        let body = substitute(body, &m);
        let body = if pushed.is_empty() {
            body
        } else {
            self.push_calls(ctx, &body, &pushed)
        };
        let e = wrap_lets(lets, body);
        Some(self.rename(&e))
    }

    /// Replaces each recursive call of the consumer whose argument k is a
    /// pushed field by the field with the call pushed into it.
    fn push_calls(&mut self, ctx: &Ctx, e: &Expr, pushed: &HashMap<u32, Expr>) -> Expr {
        gph_syntax::stack::guard();
        if let Expr::App(h, args) = e {
            if let (Expr::Local(f), Some(Expr::Local(x))) = (&**h, args.get(ctx.k)) {
                if f.id == ctx.c.var.id && args.len() == ctx.c.lp.params.len() {
                    if let Some(fe) = pushed.get(&x.id) {
                        let args: Vec<Expr> = args
                            .iter()
                            .map(|a| self.push_calls(ctx, a, pushed))
                            .collect();
                        let (lets, args) = self.atomise(&args, ctx.k);
                        let inner = self.push(ctx, &args, fe);
                        return wrap_lets(lets, inner);
                    }
                }
            }
        }
        e.map_children(|c| self.push_calls(ctx, c, pushed))
    }
}

#[cfg(test)]
mod tests {
    use gph_syntax::SourceFile;

    /// The machine code of the top-level definitions of `src` named `prefix…`.
    fn code_of(src: &str, prefix: &str) -> String {
        let file = SourceFile::new("fusion.gph", src.to_string());
        let (c, _, d) = crate::compile_full(&file, "main", &crate::Options::default());
        let (c, _) =
            c.unwrap_or_else(|| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
        c.show_code(prefix)
    }

    #[test]
    fn strict_consumers_of_producers_build_no_list() {
        let src = "import Data.List (foldl')\n\
                   dot :: [Int] -> [Int] -> Int\n\
                   dot xs ys = foldl' (+) 0 (zipWith (*) xs ys)\n\
                   euler :: Int -> Int\n\
                   euler n = length (filter (\\k -> gcd n k == 1) [1 .. n - 1])\n\
                   squares :: Int -> Int\n\
                   squares n = sum (map (\\x -> x * x) [1 .. n])\n\
                   main = print (dot [1, 2] [3, 4], euler 10, squares 3)\n";
        for f in ["Main.dot", "Main.euler", "Main.squares"] {
            let code = code_of(src, f);
            assert!(!code.contains("con :"), "{f} builds a list:\n{code}");
        }
    }

    #[test]
    fn a_shared_list_is_not_fused() {
        let src = "total :: Int -> (Int, Int)\n\
                   total n = let xs = map (* 2) [1 .. n] in (sum xs, length xs)\n\
                   main = print (total 10)\n";
        assert!(code_of(src, "Main.total").contains("con :"));
    }
}
