//! Shrinking a failing program on its syntax tree: drop statements,
//! declarations, clauses, bindings and deriving clauses; replace an
//! expression by a subexpression or a constant of the same type. A
//! candidate is kept when GHC still accepts it and gph still fails the same
//! way in the same configuration.

use crate::ast::*;
use crate::check::{self, Config, Expected, Failure, OracleResult};
use crate::driver::Settings;
use crate::print::print_program;
use crate::ty::{params_to, Class, Ty};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Target {
    pub failure: Failure,
    /// "check" or a configuration name.
    pub config: String,
    /// For rejections, panics and internal errors: the message without
    /// positions (`check::signature`), which must stay the same.
    pub signature: String,
}

struct Shrinker<'a> {
    target: &'a Target,
    st: &'a Settings,
    cfgs: &'a [Config],
    dir: &'a Path,
    seed: u64,
    tries: usize,
    known: BTreeSet<String>,
    start: Instant,
}

/// Stop after this long, whatever the budget.
const TIME_LIMIT: Duration = Duration::from_secs(1200);

pub fn shrink(
    prog: &Program,
    target: &Target,
    st: &Settings,
    cfgs: &[Config],
    dir: &Path,
    seed: u64,
) -> Program {
    let mut s = Shrinker {
        target,
        st,
        cfgs,
        dir,
        seed,
        tries: 0,
        known: binders(prog),
        start: Instant::now(),
    };
    let mut cur = prog.clone();
    let mut cur_len = print_program(&cur).len();
    'outer: loop {
        for cand in candidates(&cur) {
            if s.tries >= st.shrink_budget || s.start.elapsed() > TIME_LIMIT {
                break 'outer;
            }
            let len = print_program(&cand).len();
            if len >= cur_len || !scope_ok(&cand, &s.known) {
                continue;
            }
            if s.still_fails(&cand) {
                cur = cand;
                cur_len = len;
                continue 'outer;
            }
        }
        break;
    }
    cur
}

impl Shrinker<'_> {
    fn still_fails(&mut self, p: &Program) -> bool {
        self.tries += 1;
        let text = print_program(p);
        let file = self.dir.join(format!("seed{}-shrink.gph", self.seed));
        if std::fs::write(&file, &text).is_err() {
            return false;
        }
        let scratch = self.dir.join(format!("seed{}-ghc", self.seed));
        let limit = Duration::from_secs(12);
        let f = self.target.failure;
        if self.target.config == "check" {
            let Some((g, _)) = check::gph_check(&self.st.gph, &file) else {
                return false;
            };
            return g == f && check::ghc_typechecks(&self.st.oracle, &file, &scratch);
        }
        let Some(cfg) = self.cfgs.iter().find(|c| c.name == self.target.config) else {
            return false;
        };
        let run = |exp: &Expected| {
            let mut cmd = check::gph_command(&self.st.gph);
            cmd.arg("run").args(&cfg.flags).arg(&file);
            let out = check::run(&mut cmd, limit);
            check::classify(&out, exp).map(|(f, d)| (f, check::signature(f, &d)))
        };
        if matches!(
            f,
            Failure::Panic | Failure::InternalError | Failure::Timeout
        ) {
            // these show without the expected output
            let dummy = Expected {
                stdout: String::new(),
                status: 0,
            };
            if run(&dummy) != Some((f, self.target.signature.clone())) {
                return false;
            }
            return check::ghc_typechecks(&self.st.oracle, &file, &scratch);
        }
        // the front end must still accept it, and GHC too (cheap tests first)
        if check::gph_check(&self.st.gph, &file).is_some()
            || !check::ghc_typechecks(&self.st.oracle, &file, &scratch)
        {
            return false;
        }
        match check::oracle(&self.st.oracle, &file) {
            OracleResult::Ok(exp) => run(&exp).is_some_and(|(g, _)| g == f),
            _ => false,
        }
    }
}

// ---------------------------------------------------------------- candidates

fn candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    // chunks of main, then single statements
    let n = p.main.len();
    let mut size = n / 2;
    while size >= 1 {
        let mut i = 0;
        while i + size <= n {
            if size < n {
                let mut q = p.clone();
                q.main.drain(i..i + size);
                out.push(q);
            }
            i += size;
        }
        size /= 2;
    }
    // declarations
    for i in (0..p.decls.len()).rev() {
        let mut q = p.clone();
        q.decls.remove(i);
        out.push(q);
    }
    // data types nobody mentions, fixities, deriving clauses
    for i in (0..p.datas.len()).rev() {
        let mut q = p.clone();
        let d = q.datas.remove(i);
        let rest = print_program(&q);
        let used = std::iter::once(&d.name)
            .chain(d.cons.iter().map(|c| &c.name))
            .any(|n| mentions_word(&rest, n));
        if !used {
            q.fixities
                .retain(|f| !d.cons.iter().any(|c| c.name == f.op));
            out.push(q);
        }
    }
    // constructors nobody uses, fields of constructors nobody uses
    let decls_only = Program {
        datas: vec![],
        fixities: vec![],
        ..p.clone()
    };
    let code = print_program(&decls_only);
    for i in 0..p.datas.len() {
        for j in 0..p.datas[i].cons.len() {
            let c = &p.datas[i].cons[j];
            if mentions_word(&code, &c.name) {
                continue;
            }
            if p.datas[i].cons.len() > 1 {
                let mut q = p.clone();
                q.datas[i].cons.remove(j);
                out.push(q);
            }
            for k in 0..c.fields.len() {
                if c.is_infix() {
                    continue;
                }
                let mut q = p.clone();
                q.datas[i].cons[j].fields.remove(k);
                out.push(q);
            }
        }
    }
    for i in 0..p.fixities.len() {
        let mut q = p.clone();
        q.fixities.remove(i);
        out.push(q);
    }
    for i in 0..p.datas.len() {
        for j in 0..p.datas[i].deriving.len() {
            let mut q = p.clone();
            let c = q.datas[i].deriving.remove(j);
            if c == Class::Eq {
                q.datas[i].deriving.retain(|x| *x != Class::Ord);
            }
            out.push(q);
        }
    }
    // clauses, guards and where bindings of top-level functions
    for i in 0..p.decls.len() {
        if let Bind::Fun(fb) = &p.decls[i] {
            for c in 0..fb.clauses.len() {
                if fb.clauses.len() > 1 && c + 1 < fb.clauses.len() {
                    let mut q = p.clone();
                    if let Bind::Fun(fq) = &mut q.decls[i] {
                        fq.clauses.remove(c);
                    }
                    out.push(q);
                }
                if let Rhs::Guarded(gs) = &fb.clauses[c].rhs {
                    for (_, e) in gs {
                        let mut q = p.clone();
                        if let Bind::Fun(fq) = &mut q.decls[i] {
                            fq.clauses[c].rhs = Rhs::Plain(e.clone());
                        }
                        out.push(q);
                    }
                }
                for w in 0..fb.clauses[c].wheres.len() {
                    let mut q = p.clone();
                    if let Bind::Fun(fq) = &mut q.decls[i] {
                        fq.clauses[c].wheres.remove(w);
                    }
                    out.push(q);
                }
            }
            if fb.sig.as_ref().is_some_and(|s| !s.ty.has_vars()) {
                let mut q = p.clone();
                if let Bind::Fun(fq) = &mut q.decls[i] {
                    fq.sig = None;
                }
                out.push(q);
            }
        }
    }
    // expressions, biggest first
    let datas: BTreeMap<String, DataDecl> = p
        .datas
        .iter()
        .map(|d| (d.name.clone(), d.clone()))
        .collect();
    let mut nodes: Vec<(usize, usize, Expr)> = Vec::new();
    let mut k = 0;
    p.walk(&mut |e| {
        nodes.push((e.size(), k, e.clone()));
        k += 1;
    });
    nodes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (size, idx, e) in nodes {
        if size <= 1 && matches!(e.kind, E::Lit(_) | E::Con(_) | E::Var(_)) {
            continue;
        }
        for r in replacements(&e, &datas) {
            let mut q = p.clone();
            edit_nth(&mut q, idx, |x| *x = r);
            out.push(q);
        }
        // a let binding less
        if let E::Let(bs, _) = &e.kind {
            for j in 0..bs.len() {
                let mut q = p.clone();
                edit_nth(&mut q, idx, |x| {
                    if let E::Let(bs, body) = &mut x.kind {
                        if bs.len() > 1 {
                            bs.remove(j);
                        } else {
                            *x = (**body).clone();
                        }
                    }
                });
                out.push(q);
            }
        }
    }
    out
}

fn mentions_word(text: &str, w: &str) -> bool {
    let mut start = 0;
    while let Some(i) = text[start..].find(w) {
        let a = start + i;
        let b = a + w.len();
        let word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
        let sym = |c: char| "!#$%&*+./<=>?@\\^|-~:".contains(c);
        let same = |c: char| if w.starts_with(':') { sym(c) } else { word(c) };
        let before = text[..a].chars().next_back().is_some_and(same);
        let after = text[b..].chars().next().is_some_and(same);
        if !before && !after {
            return true;
        }
        start = b;
    }
    false
}

/// Applies `f` to expression number `idx` of the program (in the order of
/// `Program::walk`).
fn edit_nth(p: &mut Program, idx: usize, f: impl FnOnce(&mut Expr)) {
    let mut n = 0;
    let mut f = Some(f);
    p.walk_mut(&mut |x| {
        let this = n;
        n += 1;
        if this != idx {
            return true;
        }
        if let Some(f) = f.take() {
            f(x);
        }
        false
    });
}

/// Simpler expressions of the same type.
fn replacements(e: &Expr, datas: &BTreeMap<String, DataDecl>) -> Vec<Expr> {
    let mut out = Vec::new();
    if e.ty == crate::ty::opaque() {
        return out;
    }
    let same = |c: &Expr| c.ty == e.ty && (c.det || !e.det);
    let mut kids: Vec<&Expr> = Vec::new();
    match &e.kind {
        E::App(_, args) => kids.extend(args.iter()),
        E::Op(_, a, b) => kids.extend([&**a, &**b]),
        E::Let(_, b) | E::Ann(b, _) | E::Neg(b) => kids.push(b),
        E::If(_, a, b) => kids.extend([&**a, &**b]),
        E::Case(_, alts) => {
            for a in alts {
                if let Rhs::Plain(x) = &a.rhs {
                    kids.push(x);
                }
            }
        }
        _ => {}
    }
    for k in kids {
        if same(k) {
            out.push(k.clone());
        }
    }
    if let Some(c) = simple(&e.ty, datas, 0) {
        let c = if e.det && !c.det { Expr::ann(c) } else { c };
        if !matches!(e.kind, E::Lit(_) | E::Con(_)) {
            out.push(c);
        }
    }
    out
}

/// The simplest value of a type without type variables or functions.
fn simple(t: &Ty, datas: &BTreeMap<String, DataDecl>, depth: u32) -> Option<Expr> {
    if t.has_vars() || depth > 4 {
        return None;
    }
    let e = match t {
        Ty::Int | Ty::Integer => Expr::int(0, t.clone()),
        Ty::Double => Expr::new(E::Lit(Lit::Frac("0.5".into())), t.clone(), false),
        Ty::Char => Expr::new(E::Lit(Lit::Char('a')), t.clone(), true),
        Ty::Bool => Expr::con("False", t.clone(), true),
        Ty::Unit => Expr::con("()", t.clone(), true),
        Ty::Ordering => Expr::con("EQ", t.clone(), true),
        Ty::List(x) if **x == Ty::Char => Expr::str(""),
        Ty::List(_) => Expr::con("[]", t.clone(), false),
        Ty::Maybe(_) => Expr::con("Nothing", t.clone(), false),
        Ty::Tuple(ts) => {
            let es: Vec<Expr> = ts
                .iter()
                .map(|x| simple(x, datas, depth + 1))
                .collect::<Option<_>>()?;
            let det = es.iter().all(|x| x.det);
            Expr::new(E::Tuple(es), t.clone(), det)
        }
        Ty::Either(a, _) => {
            let x = simple(a, datas, depth + 1)?;
            Expr::app(
                Expr::con("Left", crate::ty::opaque(), true),
                vec![x],
                t.clone(),
                false,
            )
        }
        Ty::Data(n, args) => {
            let d = datas.get(n)?;
            let c = &d.cons[0];
            let s = params_to(&d.params, args);
            let es: Vec<Expr> = c
                .fields
                .iter()
                .map(|(f, _)| simple(&f.subst(&s), datas, depth + 1))
                .collect::<Option<_>>()?;
            let det = d.params.is_empty();
            if c.is_infix() {
                let mut it = es.into_iter();
                let a = it.next()?;
                let b = it.next()?;
                Expr::op(&c.name, a, b, t.clone(), det)
            } else {
                Expr::app(
                    Expr::con(&c.name, crate::ty::opaque(), true),
                    es,
                    t.clone(),
                    det,
                )
            }
        }
        _ => return None,
    };
    Some(e)
}

// ---------------------------------------------------------------- scopes

/// Every name the program binds (names are unique in generated programs).
fn binders(p: &Program) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let add_bind = |b: &Bind, out: &mut BTreeSet<String>| {
        out.extend(b.binders());
        if let Bind::Fun(fb) = b {
            for c in &fb.clauses {
                for q in &c.pats {
                    out.extend(q.binders());
                }
            }
        }
    };
    for b in &p.decls {
        add_bind(b, &mut out);
    }
    for s in &p.main {
        match s {
            Stmt::Let(bs) => bs.iter().for_each(|b| add_bind(b, &mut out)),
            Stmt::Bind(q, _) => out.extend(q.binders()),
            Stmt::Expr(_) => {}
        }
    }
    let mut locals = BTreeSet::new();
    p.walk(&mut |e| match &e.kind {
        E::Lam(ps, _) => ps.iter().for_each(|q| locals.extend(q.binders())),
        E::Let(bs, _) => bs.iter().for_each(|b| add_bind(b, &mut locals)),
        E::Case(_, alts) => alts.iter().for_each(|a| locals.extend(a.pat.binders())),
        E::Comp(_, qs) => qs.iter().for_each(|q| match q {
            Qual::Gen(p, _) => locals.extend(p.binders()),
            Qual::Let(bs) => bs.iter().for_each(|b| add_bind(b, &mut locals)),
            Qual::Guard(_) => {}
        }),
        E::Do(ss) => ss.iter().for_each(|s| match s {
            Stmt::Bind(p, _) => locals.extend(p.binders()),
            Stmt::Let(bs) => bs.iter().for_each(|b| add_bind(b, &mut locals)),
            Stmt::Expr(_) => {}
        }),
        _ => {}
    });
    // where bindings
    fn wheres(b: &Bind, out: &mut BTreeSet<String>) {
        if let Bind::Fun(fb) = b {
            for c in &fb.clauses {
                for w in &c.wheres {
                    out.extend(w.binders());
                    if let Bind::Fun(wf) = w {
                        for wc in &wf.clauses {
                            for q in &wc.pats {
                                out.extend(q.binders());
                            }
                        }
                    }
                    wheres(w, out);
                }
            }
        }
    }
    for b in &p.decls {
        wheres(b, &mut out);
    }
    out.extend(locals);
    out
}

struct Scope<'a> {
    known: &'a BTreeSet<String>,
    vars: Vec<String>,
}

impl Scope<'_> {
    fn name(&self, n: &str) -> bool {
        !self.known.contains(n) || self.vars.iter().any(|v| v == n)
    }
    fn with<T>(&mut self, names: Vec<String>, f: impl FnOnce(&mut Self) -> T) -> T {
        let k = self.vars.len();
        self.vars.extend(names);
        let r = f(self);
        self.vars.truncate(k);
        r
    }
    fn binds_names(bs: &[Bind]) -> Vec<String> {
        bs.iter().flat_map(|b| b.binders()).collect()
    }
    fn bind(&mut self, b: &Bind) -> bool {
        match b {
            Bind::Pat(_, e) => self.expr(e),
            Bind::Fun(fb) => fb.clauses.iter().all(|c| {
                let mut names: Vec<String> = c.pats.iter().flat_map(|p| p.binders()).collect();
                names.extend(Self::binds_names(&c.wheres));
                self.with(names, |s| {
                    c.wheres.iter().all(|w| s.bind(w)) && s.rhs(&c.rhs)
                })
            }),
        }
    }
    fn rhs(&mut self, r: &Rhs) -> bool {
        match r {
            Rhs::Plain(e) => self.expr(e),
            Rhs::Guarded(gs) => gs.iter().all(|(g, e)| self.expr(g) && self.expr(e)),
        }
    }
    fn stmts(&mut self, ss: &[Stmt]) -> bool {
        let k = self.vars.len();
        let mut ok = true;
        for s in ss {
            match s {
                Stmt::Expr(e) => ok &= self.expr(e),
                Stmt::Bind(p, e) => {
                    ok &= self.expr(e);
                    self.vars.extend(p.binders());
                }
                Stmt::Let(bs) => {
                    self.vars.extend(Self::binds_names(bs));
                    ok &= bs.iter().all(|b| self.bind(b));
                }
            }
        }
        self.vars.truncate(k);
        ok
    }
    fn expr(&mut self, e: &Expr) -> bool {
        match &e.kind {
            E::Var(n) => self.name(n),
            E::Con(_) | E::Lit(_) => true,
            E::App(f, args) => self.expr(f) && args.iter().all(|a| self.expr(a)),
            E::Op(n, a, b) => self.name(n) && self.expr(a) && self.expr(b),
            E::SectionR(n, a) => self.name(n) && self.expr(a),
            E::Neg(a) | E::Ann(a, _) => self.expr(a),
            E::Lam(ps, b) => {
                let names = ps.iter().flat_map(|p| p.binders()).collect();
                self.with(names, |s| s.expr(b))
            }
            E::Let(bs, body) => self.with(Self::binds_names(bs), |s| {
                bs.iter().all(|b| s.bind(b)) && s.expr(body)
            }),
            E::If(c, a, b) => self.expr(c) && self.expr(a) && self.expr(b),
            E::Case(sc, alts) => {
                self.expr(sc)
                    && alts
                        .iter()
                        .all(|a| self.with(a.pat.binders(), |s| s.rhs(&a.rhs)))
            }
            E::Tuple(es) | E::List(es) => es.iter().all(|x| self.expr(x)),
            E::Range(a, b, c) => {
                self.expr(a)
                    && b.as_ref().is_none_or(|b| self.expr(b))
                    && c.as_ref().is_none_or(|c| self.expr(c))
            }
            E::Comp(body, qs) => {
                let k = self.vars.len();
                let mut ok = true;
                for q in qs {
                    match q {
                        Qual::Gen(p, src) => {
                            ok &= self.expr(src);
                            self.vars.extend(p.binders());
                        }
                        Qual::Guard(g) => ok &= self.expr(g),
                        Qual::Let(bs) => {
                            self.vars.extend(Self::binds_names(bs));
                            ok &= bs.iter().all(|b| self.bind(b));
                        }
                    }
                }
                ok &= self.expr(body);
                self.vars.truncate(k);
                ok
            }
            E::Do(ss) => self.stmts(ss),
        }
    }
}

/// Every reference to a name the original program bound is in its scope.
fn scope_ok(p: &Program, known: &BTreeSet<String>) -> bool {
    let mut s = Scope {
        known,
        vars: p.decls.iter().flat_map(|b| b.binders()).collect(),
    };
    p.decls.iter().all(|b| s.bind(b)) && s.stmts(&p.main)
}
