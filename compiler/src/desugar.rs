//! Desugaring the renamed program to Core, with a pattern-match compiler.
//!
//! The match compiler is the classic one (Augustsson; Wadler, "Efficient
//! compilation of pattern matching"): the rows of a match are split into
//! blocks whose first patterns are all variables, all constructors or all
//! literals; a constructor block becomes one `case` over the constructors it
//! mentions (with the rest of the match as its default when it does not cover
//! the type); blocks are chained through shared failure continuations, so no
//! right-hand side is ever duplicated. Guards fall through to the next row the
//! same way. A row that can never be reached is an overlapping-pattern
//! warning; a reachable final failure is a non-exhaustive-pattern warning and
//! a located run-time error (`Prelude.patternMatchFail`).
//!
//! Until the type checker's elaboration is wired in, overloaded operations
//! (literals, `==` on literal patterns, `>>=` in `do`) are emitted without
//! their dictionary arguments.

use crate::core::{self, Alt, AltCon, Bind, Constr, DataType, Expr, Lit, Var};
use crate::exhaustive::{self, Signature};
use crate::rename::Program;
use gph_syntax::ast::{self, Decl, Literal, Pat, QName, Rhs, RhsBody, Stmt};
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, SourceMap, Span};
use std::collections::HashMap;

#[derive(Clone, Debug)]
struct ConInfo {
    /// The data type's name; its constructors are in `Desugar::siblings`.
    ty: Sym,
    newtype: bool,
}

/// The full (original) name of a renamed reference.
pub fn full_name(q: &QName) -> Sym {
    match &q.qual {
        Some(m) => Sym::from(format!("{m}.{}", q.name)),
        None => q.name.clone(),
    }
}

const TRUE: &str = "Gph.Prim.True";

/// What a row of a match produces once its patterns have matched.
#[derive(Clone, Copy)]
enum Body<'a> {
    Rhs(&'a Rhs),
    Expr(&'a ast::Expr),
    /// The variable of that name bound by the row's patterns (lazy patterns).
    Var(&'a Sym),
    /// Whatever follows a bind in `do`, a generator, or a pattern guard.
    Cont(&'a dyn Continue),
}

#[derive(Clone)]
struct Row<'a> {
    pats: Vec<Pat>,
    /// Source variables bound so far, to the Core variables they match.
    env: Vec<(Sym, Var)>,
    /// Variables of lazy patterns, bound to their selector expressions.
    lazy: Vec<(Var, Expr)>,
    body: Body<'a>,
    span: Span,
}

/// Where a binding of a declaration group goes.
enum Target {
    Name(Sym),
    Temp(Var),
}

struct Desugar<'s> {
    sources: &'s SourceMap,
    /// Numbers local variables; restarts at each top-level binding so that
    /// a binding's Core does not depend on what came before it.
    next: u32,
    /// Numbers top-level pattern-binding temporaries.
    next_global: u32,
    cons: HashMap<Sym, ConInfo>,
    siblings: HashMap<Sym, Vec<Sym>>,
    scopes: Vec<HashMap<Sym, Var>>,
    diags: Vec<Diagnostic>,
}

fn is_irrefutable_guard(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Var(q) => q.qual.as_deref() == Some("Prelude") && &*q.name == "otherwise",
        ast::Expr::Con(q) => full_name(q).as_ref() == TRUE,
        ast::Expr::Paren(e, _) => is_irrefutable_guard(e),
        _ => false,
    }
}

/// Whether a right-hand side always produces a value (cannot fall through).
fn rhs_total(b: &Body) -> bool {
    match b {
        Body::Rhs(r) => match &r.body {
            RhsBody::Plain(_) => true,
            RhsBody::Guarded(gs) => gs.last().is_some_and(|g| {
                g.guards.len() == 1
                    && matches!(&g.guards[0], Stmt::Expr(e) if is_irrefutable_guard(e))
            }),
        },
        _ => true,
    }
}

impl<'s> Desugar<'s> {
    fn fresh(&mut self, name: &str) -> Var {
        self.next += 1;
        Var {
            name: Sym::from(name),
            id: self.next,
        }
    }

    fn location(&self, span: Span) -> String {
        match self.sources.file_of(span) {
            Some(f) => f.ghc_span(span),
            None => "<unknown>".to_string(),
        }
    }

    fn pattern_fail(&self, span: Span, what: &str) -> Expr {
        let loc = format!("{}|{what}", self.location(span));
        Expr::app(
            Expr::global("Prelude.patternMatchFail"),
            vec![Expr::Lit(Lit::Str(Sym::from(loc)))],
        )
    }

    fn lookup_local(&self, name: &Sym) -> Option<Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name).cloned())
    }

    fn if_then_else(&mut self, c: Expr, t: Expr, e: Expr) -> Expr {
        let b = self.fresh("b");
        Expr::Case(
            Box::new(c),
            b,
            vec![Alt {
                con: AltCon::Con(Sym::from(TRUE)),
                vars: vec![],
                body: t,
            }],
            Some(Box::new(e)),
        )
    }

    /// Binds a failure expression to a variable unless it is already trivial.
    fn share(&mut self, fail: Expr, k: impl FnOnce(&mut Self, Expr) -> Expr) -> Expr {
        match fail {
            Expr::Local(_) | Expr::Global(_) => k(self, fail),
            _ => {
                let v = self.fresh("fail");
                let body = k(self, Expr::Local(v.clone()));
                Expr::Let(Box::new(Bind::NonRec(v, fail)), Box::new(body))
            }
        }
    }

    // ------------------------------------------------------------ literals

    fn literal(&mut self, l: &Literal, negative: bool) -> Expr {
        match l {
            Literal::Int(digits) => {
                let mut n: num_bigint::BigInt = digits.parse().unwrap_or_default();
                if negative {
                    n = -n;
                }
                Expr::app(
                    Expr::global("Prelude.fromInteger"),
                    vec![Expr::Lit(Lit::Integer(n))],
                )
            }
            Literal::Frac(text) => {
                let (num, den) = decimal_ratio(text);
                let num = if negative { -num } else { num };
                let ratio = Expr::app(
                    Expr::Con(Sym::from("Prelude.:%")),
                    vec![Expr::Lit(Lit::Integer(num)), Expr::Lit(Lit::Integer(den))],
                );
                Expr::app(Expr::global("Prelude.fromRational"), vec![ratio])
            }
            Literal::Char(c) => Expr::Lit(Lit::Char(*c)),
            Literal::Str(s) => Expr::Lit(Lit::Str(s.clone())),
        }
    }

    // ------------------------------------------------------------ expressions

    fn var_ref(&mut self, q: &QName) -> Expr {
        if q.qual.is_none() {
            if let Some(v) = self.lookup_local(&q.name) {
                return Expr::Local(v);
            }
        }
        Expr::Global(full_name(q))
    }

    fn con_ref(&mut self, q: &QName) -> Expr {
        let n = full_name(q);
        if self.cons.get(&n).is_some_and(|c| c.newtype) {
            // A newtype constructor is the identity at run time.
            let x = self.fresh("x");
            return Expr::Lam(vec![x.clone()], Box::new(Expr::Local(x)));
        }
        Expr::Con(n)
    }

    fn expr(&mut self, e: &ast::Expr) -> Expr {
        use ast::Expr as E;
        match e {
            E::Var(q) => self.var_ref(q),
            E::Con(q) => self.con_ref(q),
            E::Lit(l, _) => self.literal(l, false),
            E::App(..) => {
                let mut args = Vec::new();
                let mut f = e;
                while let E::App(g, a, _) = f {
                    args.push(a);
                    f = g;
                }
                let f = self.expr(f);
                let args = args.into_iter().rev().map(|a| self.expr(a)).collect();
                Expr::app(f, args)
            }
            E::BinOp(op, l, r, _) => {
                let f = if op.is_con() {
                    self.con_ref(op)
                } else {
                    self.var_ref(op)
                };
                let (l, r) = (self.expr(l), self.expr(r));
                Expr::app(f, vec![l, r])
            }
            E::Neg(x, _) => {
                if let E::Lit(l @ (Literal::Int(_) | Literal::Frac(_)), _) = &**x {
                    return self.literal(l, true);
                }
                let x = self.expr(x);
                Expr::app(Expr::global("Prelude.negate"), vec![x])
            }
            E::Lambda(pats, body, span) => {
                let vars: Vec<Var> = pats.iter().map(|_| self.fresh("a")).collect();
                let row = Row {
                    pats: pats.clone(),
                    env: vec![],
                    lazy: vec![],
                    body: Body::Expr(body),
                    span: *span,
                };
                let fail = self.pattern_fail(*span, "lambda");
                let m = self.match_top(&vars, vec![row], fail, None);
                Expr::Lam(vars, Box::new(m))
            }
            E::Let(ds, body, _) => self.let_group(ds, |d| d.expr(body)),
            E::If(c, t, f, _) => {
                let (c, t, f) = (self.expr(c), self.expr(t), self.expr(f));
                self.if_then_else(c, t, f)
            }
            E::Case(scrut, alts, span) => {
                let s = self.expr(scrut);
                let v = self.fresh("scrut");
                let rows = alts
                    .iter()
                    .map(|a| Row {
                        pats: vec![a.pat.clone()],
                        env: vec![],
                        lazy: vec![],
                        body: Body::Rhs(&a.rhs),
                        span: a.span,
                    })
                    .collect();
                let fail = self.pattern_fail(*span, "case");
                let m = self.match_top(
                    std::slice::from_ref(&v),
                    rows,
                    fail,
                    Some("case alternatives"),
                );
                Expr::Let(Box::new(Bind::NonRec(v, s)), Box::new(m))
            }
            E::Do(stmts, _) => self.do_block(stmts),
            E::Tuple(es, _) => {
                let name = Sym::from(format!("({})", ",".repeat(es.len() - 1)));
                let args = es.iter().map(|e| self.expr(e)).collect();
                Expr::app(Expr::Con(name), args)
            }
            E::List(es, _) => {
                let mut out = Expr::Con(Sym::from("[]"));
                for e in es.iter().rev() {
                    let x = self.expr(e);
                    out = Expr::app(Expr::Con(Sym::from(":")), vec![x, out]);
                }
                out
            }
            E::Range { from, then, to, .. } => {
                let (f, name) = match (then, to) {
                    (None, None) => (vec![from], "Prelude.enumFrom"),
                    (Some(t), None) => (vec![from, t], "Prelude.enumFromThen"),
                    (None, Some(u)) => (vec![from, u], "Prelude.enumFromTo"),
                    (Some(t), Some(u)) => (vec![from, t, u], "Prelude.enumFromThenTo"),
                };
                let args = f.into_iter().map(|e| self.expr(e)).collect();
                Expr::app(Expr::global(name), args)
            }
            E::Comprehension(head, quals, _) => self.comprehension(head, quals),
            E::LeftSection(x, op, _) => {
                // (x op) = \y -> op x y, with x evaluated at most once.
                let a = self.fresh("l");
                let y = self.fresh("y");
                let xe = self.expr(x);
                let f = if op.is_con() {
                    self.con_ref(op)
                } else {
                    self.var_ref(op)
                };
                let body = Expr::Lam(
                    vec![y.clone()],
                    Box::new(Expr::app(f, vec![Expr::Local(a.clone()), Expr::Local(y)])),
                );
                Expr::Let(Box::new(Bind::NonRec(a, xe)), Box::new(body))
            }
            E::RightSection(op, x, _) => {
                let a = self.fresh("r");
                let y = self.fresh("y");
                let xe = self.expr(x);
                let f = if op.is_con() {
                    self.con_ref(op)
                } else {
                    self.var_ref(op)
                };
                let body = Expr::Lam(
                    vec![y.clone()],
                    Box::new(Expr::app(f, vec![Expr::Local(y), Expr::Local(a.clone())])),
                );
                Expr::Let(Box::new(Bind::NonRec(a, xe)), Box::new(body))
            }
            E::Typed(x, _, _) | E::Paren(x, _) => self.expr(x),
            E::OpChain(_, span)
            | E::Wildcard(span)
            | E::As(_, _, span)
            | E::Lazy(_, span)
            | E::Record(_, _, span) => {
                // The renamer reports these; keep going with an error value.
                Expr::app(
                    Expr::global("Prelude.error"),
                    vec![Expr::Lit(Lit::Str(Sym::from(format!(
                        "{}: invalid expression",
                        self.location(*span)
                    ))))],
                )
            }
        }
    }

    fn do_block(&mut self, stmts: &[Stmt]) -> Expr {
        let Some((first, rest)) = stmts.split_first() else {
            return Expr::global("Prelude.undefined");
        };
        if rest.is_empty() {
            if let Stmt::Expr(e) = first {
                return self.expr(e);
            }
        }
        match first {
            Stmt::Expr(e) => {
                let a = self.expr(e);
                let b = self.do_block(rest);
                Expr::app(Expr::global("Prelude.>>"), vec![a, b])
            }
            Stmt::Let(ds, _) => self.let_group(ds, |d| d.do_block(rest)),
            Stmt::Bind(p, e, span) => {
                let m = self.expr(e);
                let v = self.fresh("x");
                let fail = if self.failable(p) {
                    let msg = format!(
                        "Pattern match failure in do expression at {}",
                        self.location(p.span())
                    );
                    Expr::app(
                        Expr::global("Prelude.fail"),
                        vec![Expr::Lit(Lit::Str(Sym::from(msg)))],
                    )
                } else {
                    self.pattern_fail(*span, "do")
                };
                let cont = DoRest(rest);
                let row = Row {
                    pats: vec![p.clone()],
                    env: vec![],
                    lazy: vec![],
                    body: Body::Cont(&cont),
                    span: *span,
                };
                let body = self.match_top(std::slice::from_ref(&v), vec![row], fail, None);
                Expr::app(
                    Expr::global("Prelude.>>="),
                    vec![m, Expr::Lam(vec![v], Box::new(body))],
                )
            }
        }
    }

    fn comprehension(&mut self, head: &ast::Expr, quals: &[Stmt]) -> Expr {
        let Some((q, rest)) = quals.split_first() else {
            let h = self.expr(head);
            return Expr::app(
                Expr::Con(Sym::from(":")),
                vec![h, Expr::Con(Sym::from("[]"))],
            );
        };
        match q {
            Stmt::Expr(g) => {
                let c = self.expr(g);
                let t = self.comprehension(head, rest);
                self.if_then_else(c, t, Expr::Con(Sym::from("[]")))
            }
            Stmt::Let(ds, _) => self.let_group(ds, |d| d.comprehension(head, rest)),
            Stmt::Bind(p, l, span) => {
                let list = self.expr(l);
                let v = self.fresh("x");
                let cont = CompRest(head, rest);
                let row = Row {
                    pats: vec![p.clone()],
                    env: vec![],
                    lazy: vec![],
                    body: Body::Cont(&cont),
                    span: *span,
                };
                let body = self.match_top(
                    std::slice::from_ref(&v),
                    vec![row],
                    Expr::Con(Sym::from("[]")),
                    None,
                );
                Expr::app(
                    Expr::global("Prelude.concatMap"),
                    vec![Expr::Lam(vec![v], Box::new(body)), list],
                )
            }
        }
    }

    // ------------------------------------------------------------ bindings

    /// Desugars a `let`/`where` group around the body that `k` produces.
    fn let_group(&mut self, ds: &[Decl], k: impl FnOnce(&mut Self) -> Expr) -> Expr {
        let mut scope = HashMap::new();
        for name in group_binders(ds) {
            let v = self.fresh(&name);
            scope.insert(name, v);
        }
        self.scopes.push(scope.clone());
        let binds = self.bindings(ds, None);
        let body = k(self);
        self.scopes.pop();
        if binds.is_empty() {
            return body;
        }
        let binds = binds
            .into_iter()
            .map(|(t, e)| match t {
                Target::Name(n) => (scope[&n].clone(), e),
                Target::Temp(v) => (v, e),
            })
            .collect();
        Expr::Let(Box::new(Bind::Rec(binds)), Box::new(body))
    }

    /// The bindings of a declaration group. `top` is the module for top-level
    /// groups (pattern temporaries become globals there).
    fn bindings(&mut self, ds: &[Decl], top: Option<&Sym>) -> Vec<(Target, Expr)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < ds.len() {
            if top.is_some() {
                self.next = 0;
            }
            match &ds[i] {
                Decl::FunClause { name, args, .. } => {
                    let mut j = i + 1;
                    while j < ds.len()
                        && matches!(&ds[j], Decl::FunClause { name: n, .. } if n.name == name.name)
                    {
                        j += 1;
                    }
                    let clauses = &ds[i..j];
                    let span = clauses[0].span().to(clauses[j - i - 1].span());
                    let vars: Vec<Var> = args.iter().map(|_| self.fresh("a")).collect();
                    let rows = clauses
                        .iter()
                        .filter_map(|c| match c {
                            Decl::FunClause {
                                args, rhs, span, ..
                            } => Some(Row {
                                pats: args.clone(),
                                env: vec![],
                                lazy: vec![],
                                body: Body::Rhs(rhs),
                                span: *span,
                            }),
                            _ => None,
                        })
                        .collect();
                    let what = format!("function {}", name.name);
                    let fail = self.pattern_fail(span, &what);
                    let body = self.match_top(&vars, rows, fail, Some(&what));
                    let e = if vars.is_empty() {
                        body
                    } else {
                        Expr::Lam(vars, Box::new(body))
                    };
                    out.push((Target::Name(name.name.clone()), e));
                    i = j;
                    continue;
                }
                Decl::PatBind { pat, rhs, span } => {
                    let fail = self.pattern_fail(*span, "pattern binding");
                    let value = self.emit(
                        &Row {
                            pats: vec![],
                            env: vec![],
                            lazy: vec![],
                            body: Body::Rhs(rhs),
                            span: *span,
                        },
                        fail,
                    );
                    let (target, reference) = match top {
                        Some(m) => {
                            self.next_global += 1;
                            let n = Sym::from(format!("pat{}", self.next_global));
                            (
                                Target::Name(n.clone()),
                                Expr::Global(Sym::from(format!("{m}.{n}"))),
                            )
                        }
                        None => {
                            let v = self.fresh("pat");
                            (Target::Temp(v.clone()), Expr::Local(v))
                        }
                    };
                    out.push((target, value));
                    let mut vars = Vec::new();
                    pat_vars(pat, &mut vars);
                    for x in vars {
                        let t = self.fresh("p");
                        let row = Row {
                            pats: vec![pat.clone()],
                            env: vec![],
                            lazy: vec![],
                            body: Body::Var(&x),
                            span: *span,
                        };
                        let fail = self.pattern_fail(*span, "irrefutable pattern");
                        let sel = self.match_top(std::slice::from_ref(&t), vec![row], fail, None);
                        out.push((
                            Target::Name(x.clone()),
                            Expr::Let(Box::new(Bind::NonRec(t, reference.clone())), Box::new(sel)),
                        ));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    /// The body of a row, once its patterns matched, falling through to `fail`.
    fn emit(&mut self, row: &Row, fail: Expr) -> Expr {
        self.scopes.push(row.env.iter().cloned().collect());
        let lazy = row.lazy.clone();
        let e = match row.body {
            Body::Expr(e) => self.expr(e),
            Body::Var(x) => match self.lookup_local(x) {
                Some(v) => Expr::Local(v),
                None => fail,
            },
            Body::Cont(c) => c.produce(self, fail),
            Body::Rhs(r) => {
                let body = &r.body;
                self.let_group(&r.wheres, |d| match body {
                    RhsBody::Plain(e) => d.expr(e),
                    RhsBody::Guarded(gs) => d.share(fail, |d, fail| {
                        let mut acc = fail.clone();
                        for g in gs.iter().rev() {
                            acc = d.guard_chain(&g.guards, &g.body, acc);
                        }
                        acc
                    }),
                })
            }
        };
        self.scopes.pop();
        lazy.into_iter().rev().fold(e, |e, (v, b)| {
            Expr::Let(Box::new(Bind::NonRec(v, b)), Box::new(e))
        })
    }

    fn guard_chain(&mut self, quals: &[Stmt], body: &ast::Expr, fail: Expr) -> Expr {
        let Some((q, rest)) = quals.split_first() else {
            return self.expr(body);
        };
        match q {
            Stmt::Expr(c) if is_irrefutable_guard(c) => self.guard_chain(rest, body, fail),
            Stmt::Expr(c) => {
                let c = self.expr(c);
                let t = self.guard_chain(rest, body, fail.clone());
                self.if_then_else(c, t, fail)
            }
            Stmt::Let(ds, _) => self.let_group(ds, |d| d.guard_chain(rest, body, fail)),
            Stmt::Bind(p, e, span) => {
                let scrut = self.expr(e);
                let v = self.fresh("g");
                let cont = GuardRest(rest, body);
                let row = Row {
                    pats: vec![p.clone()],
                    env: vec![],
                    lazy: vec![],
                    body: Body::Cont(&cont),
                    span: *span,
                };
                let m = self.match_rows(std::slice::from_ref(&v), vec![row], fail);
                Expr::Let(Box::new(Bind::NonRec(v, scrut)), Box::new(m))
            }
        }
    }

    // ------------------------------------------------------------ matching

    /// A whole match: warns when its final failure is reachable (`what` names
    /// the construct for the warning) or a row can never match.
    fn match_top(&mut self, vars: &[Var], rows: Vec<Row>, fail: Expr, what: Option<&str>) -> Expr {
        if let Some(what) = what {
            self.warn_patterns(&rows, what);
        }
        let fv = self.fresh("nomatch");
        let m = self.match_rows(vars, rows, Expr::Local(fv.clone()));
        if mentions(&m, &fv) {
            Expr::Let(Box::new(Bind::NonRec(fv, fail)), Box::new(m))
        } else {
            m
        }
    }

    /// Overlap and exhaustiveness warnings for a match (see `exhaustive`).
    fn warn_patterns(&mut self, rows: &[Row], what: &str) {
        let full = |q: &QName| full_name(q);
        let simple: Vec<Vec<exhaustive::P>> = rows
            .iter()
            .map(|r| {
                r.pats
                    .iter()
                    .map(|p| exhaustive::simplify(p, &full, self))
                    .collect()
            })
            .collect();
        let guarded: Vec<bool> = rows.iter().map(|r| !rhs_total(&r.body)).collect();
        let (redundant, complete) = exhaustive::check(&simple, &guarded, self);
        for i in redundant {
            self.diags.push(
                Diagnostic::warning(
                    rows[i].span,
                    format!("pattern match is redundant in {what}"),
                )
                .with_label("no value reaches this equation"),
            );
        }
        if !complete {
            let span = rows
                .first()
                .map_or(Span::default(), |r| r.span)
                .to(rows.last().map_or(Span::default(), |r| r.span));
            self.diags.push(
                Diagnostic::warning(
                    span,
                    format!("pattern match(es) are non-exhaustive in {what}"),
                )
                .with_label("some values match no equation"),
            );
        }
    }

    fn match_rows(&mut self, vars: &[Var], mut rows: Vec<Row>, fail: Expr) -> Expr {
        if rows.is_empty() {
            return fail;
        }
        let Some((u, us)) = vars.split_first() else {
            let first = rows.remove(0);
            if !rows.is_empty() && rhs_total(&first.body) {
                for r in &rows {
                    self.diags.push(
                        Diagnostic::warning(r.span, "pattern match is redundant")
                            .with_label("an earlier equation always matches first"),
                    );
                }
                return self.emit(&first, fail);
            }
            return self.share(fail, |d, fail| {
                let rest = d.match_rows(&[], rows, fail);
                d.share(rest, |d, rest| d.emit(&first, rest))
            });
        };
        for r in &mut rows {
            normalize(r, u, &self.cons);
        }
        // Split into blocks of the same kind of first pattern.
        let kind = |p: &Pat| match p {
            Pat::Con(..) => 1,
            Pat::Lit(..) | Pat::NegLit(..) => 2,
            _ => 0,
        };
        let mut blocks: Vec<Vec<Row>> = Vec::new();
        for r in rows {
            match blocks.last_mut() {
                Some(b) if kind(&b[0].pats[0]) == kind(&r.pats[0]) => b.push(r),
                _ => blocks.push(vec![r]),
            }
        }
        let mut acc = fail;
        for block in blocks.into_iter().rev() {
            acc = self.share(acc, |d, fail| d.match_block(u, us, block, fail));
        }
        acc
    }

    fn match_block(&mut self, u: &Var, us: &[Var], block: Vec<Row>, fail: Expr) -> Expr {
        match &block[0].pats[0] {
            Pat::Con(..) => {
                let mut order: Vec<Sym> = Vec::new();
                let mut groups: HashMap<Sym, (Vec<Var>, Vec<Row>)> = HashMap::new();
                for mut r in block {
                    let Pat::Con(q, args, _) = r.pats.remove(0) else {
                        unreachable!("constructor block")
                    };
                    let c = full_name(&q);
                    if !groups.contains_key(&c) {
                        let vars = (0..args.len()).map(|_| self.fresh("f")).collect();
                        order.push(c.clone());
                        groups.insert(c.clone(), (vars, Vec::new()));
                    }
                    let g = groups.get_mut(&c).expect("group");
                    let mut pats = args;
                    pats.resize_with(g.0.len(), || Pat::Wildcard(Span::default()));
                    pats.extend(r.pats);
                    g.1.push(Row { pats, ..r });
                }
                let all = order
                    .first()
                    .and_then(|c| self.cons.get(c))
                    .and_then(|ci| self.siblings.get(&ci.ty))
                    .cloned();
                let complete = all.is_some_and(|all| all.iter().all(|c| groups.contains_key(c)));
                let mut alts = Vec::new();
                for c in order {
                    let (vars, rows) = groups.remove(&c).expect("group");
                    let mut next: Vec<Var> = vars.clone();
                    next.extend(us.iter().cloned());
                    let body = self.match_rows(&next, rows, fail.clone());
                    alts.push(Alt {
                        con: AltCon::Con(c),
                        vars,
                        body,
                    });
                }
                let b = self.fresh("c");
                Expr::Case(
                    Box::new(Expr::Local(u.clone())),
                    b,
                    alts,
                    if complete { None } else { Some(Box::new(fail)) },
                )
            }
            Pat::Lit(..) | Pat::NegLit(..) => {
                // One test per distinct literal, in order of appearance.
                let mut order: Vec<(Literal, bool)> = Vec::new();
                let mut groups: Vec<Vec<Row>> = Vec::new();
                for mut r in block {
                    let (l, neg) = match r.pats.remove(0) {
                        Pat::Lit(l, _) => (l, false),
                        Pat::NegLit(l, _) => (l, true),
                        _ => unreachable!("literal block"),
                    };
                    match order.iter().position(|(o, n)| same_lit(o, &l) && *n == neg) {
                        Some(k) => groups[k].push(r),
                        None => {
                            order.push((l, neg));
                            groups.push(vec![r]);
                        }
                    }
                }
                if order.iter().all(|(l, _)| matches!(l, Literal::Char(_))) {
                    let alts = order
                        .into_iter()
                        .zip(groups)
                        .map(|((l, _), rows)| {
                            let Literal::Char(c) = l else {
                                unreachable!("char literal")
                            };
                            Alt {
                                con: AltCon::Lit(Lit::Char(c)),
                                vars: vec![],
                                body: self.match_rows(us, rows, fail.clone()),
                            }
                        })
                        .collect();
                    let b = self.fresh("c");
                    return Expr::Case(
                        Box::new(Expr::Local(u.clone())),
                        b,
                        alts,
                        Some(Box::new(fail)),
                    );
                }
                let mut acc = fail.clone();
                for ((l, neg), rows) in order.into_iter().zip(groups).rev() {
                    let lit = self.literal(&l, neg);
                    let test = Expr::app(
                        Expr::global("Prelude.=="),
                        vec![Expr::Local(u.clone()), lit],
                    );
                    let then = self.match_rows(us, rows, fail.clone());
                    acc = self.if_then_else(test, then, acc);
                }
                acc
            }
            _ => {
                // Variables were bound by `normalize`; lazy patterns bind their
                // variables to selectors that match only when demanded.
                let mut rows = Vec::new();
                for mut r in block {
                    if let Pat::Lazy(p, span) = r.pats.remove(0) {
                        let mut vars = Vec::new();
                        pat_vars(&p, &mut vars);
                        for x in vars {
                            let v = self.fresh(&x);
                            let row = Row {
                                pats: vec![(*p).clone()],
                                env: vec![],
                                lazy: vec![],
                                body: Body::Var(&x),
                                span,
                            };
                            let pf = self.pattern_fail(span, "irrefutable pattern");
                            let sel = self.match_top(std::slice::from_ref(u), vec![row], pf, None);
                            let bound = Expr::Let(
                                Box::new(Bind::NonRec(v.clone(), sel)),
                                Box::new(Expr::Local(v.clone())),
                            );
                            // Bind through a let so that the selector is a shared thunk.
                            let t = self.fresh(&x);
                            r.env.push((x.clone(), t.clone()));
                            r.lazy.push((t, bound));
                        }
                    }
                    rows.push(r);
                }
                self.match_rows(us, rows, fail)
            }
        }
    }

    /// Whether a `do` pattern can fail (needs `fail`): anything but variables,
    /// wildcards, lazy patterns and single-constructor patterns of such.
    fn failable(&self, p: &Pat) -> bool {
        match p {
            Pat::Var(_) | Pat::Wildcard(_) | Pat::Lazy(..) => false,
            Pat::Paren(p, _) | Pat::Typed(p, _, _) | Pat::Bang(p, _) | Pat::As(_, p, _) => {
                self.failable(p)
            }
            Pat::Tuple(ps, _) => ps.iter().any(|p| self.failable(p)),
            Pat::Con(q, ps, _) => {
                let n = full_name(q);
                let single = self
                    .cons
                    .get(&n)
                    .is_some_and(|c| self.siblings.get(&c.ty).is_some_and(|s| s.len() == 1))
                    || &*n == "()";
                !single || ps.iter().any(|p| self.failable(p))
            }
            _ => true,
        }
    }
}

impl Signature for Desugar<'_> {
    fn siblings(&self, con: &str) -> Option<&[Sym]> {
        self.cons
            .get(con)
            .and_then(|c| self.siblings.get(&c.ty))
            .map(Vec::as_slice)
    }
    fn is_newtype(&self, con: &str) -> bool {
        self.cons.get(con).is_some_and(|c| c.newtype)
    }
}

/// The remainder of a `do` block after a bind: the row body it produces.
struct DoRest<'a>(&'a [Stmt]);
/// The remainder of a comprehension after a generator.
struct CompRest<'a>(&'a ast::Expr, &'a [Stmt]);

/// The remainder of a guard after a pattern guard `p <- e`.
struct GuardRest<'a>(&'a [Stmt], &'a ast::Expr);

/// How to produce the body of a row whose body is "the rest of the construct".
trait Continue {
    fn produce(&self, d: &mut Desugar, fail: Expr) -> Expr;
}

impl Continue for DoRest<'_> {
    fn produce(&self, d: &mut Desugar, _: Expr) -> Expr {
        d.do_block(self.0)
    }
}

impl Continue for CompRest<'_> {
    fn produce(&self, d: &mut Desugar, _: Expr) -> Expr {
        d.comprehension(self.0, self.1)
    }
}

impl Continue for GuardRest<'_> {
    fn produce(&self, d: &mut Desugar, fail: Expr) -> Expr {
        d.guard_chain(self.0, self.1, fail)
    }
}

/// `1.5e-3` as an exact fraction.
fn decimal_ratio(text: &str) -> (num_bigint::BigInt, num_bigint::BigInt) {
    use num_bigint::BigInt;
    let (mant, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits: BigInt = format!("{int}{frac}").parse().unwrap_or_default();
    let scale = exp - frac.len() as i64;
    let ten = BigInt::from(10);
    if scale >= 0 {
        (
            digits * num_traits::pow(ten, scale as usize),
            BigInt::from(1),
        )
    } else {
        let den = num_traits::pow(ten, (-scale) as usize);
        let g = num_integer_gcd(&digits, &den);
        (digits / &g, den / g)
    }
}

fn num_integer_gcd(a: &num_bigint::BigInt, b: &num_bigint::BigInt) -> num_bigint::BigInt {
    use num_traits::Zero;
    let (mut a, mut b) = (a.clone(), b.clone());
    while !b.is_zero() {
        let r = &a % &b;
        a = b;
        b = r;
    }
    if a.is_zero() {
        num_bigint::BigInt::from(1)
    } else {
        a
    }
}

/// Simplifies a row's first pattern against scrutinee `u`: binds variables
/// and as-patterns, drops parentheses and annotations, turns tuples, lists
/// and strings into constructor patterns and skips newtype constructors.
fn normalize(r: &mut Row, u: &Var, cons: &HashMap<Sym, ConInfo>) {
    loop {
        let p = std::mem::replace(&mut r.pats[0], Pat::Wildcard(Span::default()));
        r.pats[0] = match p {
            Pat::Var(i) => {
                r.env.push((i.name, u.clone()));
                Pat::Wildcard(i.span)
            }
            Pat::As(i, p, _) => {
                r.env.push((i.name, u.clone()));
                *p
            }
            Pat::Paren(p, _) | Pat::Typed(p, _, _) | Pat::Bang(p, _) => *p,
            Pat::Tuple(ps, s) => {
                let n = Sym::from(format!("({})", ",".repeat(ps.len() - 1)));
                return r.pats[0] = Pat::Con(QName::unqual(n, s), ps, s);
            }
            Pat::List(ps, s) => {
                let mut out = Pat::Con(QName::unqual(Sym::from("[]"), s), vec![], s);
                for p in ps.into_iter().rev() {
                    out = Pat::Con(QName::unqual(Sym::from(":"), s), vec![p, out], s);
                }
                return r.pats[0] = out;
            }
            Pat::Lit(Literal::Str(text), s) => {
                let mut out = Pat::Con(QName::unqual(Sym::from("[]"), s), vec![], s);
                for c in text.chars().rev() {
                    out = Pat::Con(
                        QName::unqual(Sym::from(":"), s),
                        vec![Pat::Lit(Literal::Char(c), s), out],
                        s,
                    );
                }
                return r.pats[0] = out;
            }
            Pat::Con(q, mut args, s)
                if args.len() == 1 && cons.get(&full_name(&q)).is_some_and(|c| c.newtype) =>
            {
                let _ = s;
                args.remove(0)
            }
            other => return r.pats[0] = other,
        };
    }
}

fn same_lit(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Int(x), Literal::Int(y))
        | (Literal::Frac(x), Literal::Frac(y))
        | (Literal::Str(x), Literal::Str(y)) => x == y,
        (Literal::Char(x), Literal::Char(y)) => x == y,
        _ => false,
    }
}

/// Variables a pattern binds.
fn pat_vars(p: &Pat, out: &mut Vec<Sym>) {
    match p {
        Pat::Var(i) => out.push(i.name.clone()),
        Pat::As(i, p, _) => {
            out.push(i.name.clone());
            pat_vars(p, out)
        }
        Pat::Con(_, ps, _) | Pat::Tuple(ps, _) | Pat::List(ps, _) => {
            ps.iter().for_each(|p| pat_vars(p, out))
        }
        Pat::Lazy(p, _) | Pat::Bang(p, _) | Pat::Paren(p, _) | Pat::Typed(p, _, _) => {
            pat_vars(p, out)
        }
        _ => {}
    }
}

/// Names a declaration group binds.
fn group_binders(ds: &[Decl]) -> Vec<Sym> {
    let mut out: Vec<Sym> = Vec::new();
    for d in ds {
        match d {
            Decl::FunClause { name, .. } if out.last() != Some(&name.name) => {
                out.push(name.name.clone())
            }
            Decl::PatBind { pat, .. } => pat_vars(pat, &mut out),
            _ => {}
        }
    }
    out
}

/// Whether an expression refers to a local variable.
fn mentions(e: &Expr, v: &Var) -> bool {
    match e {
        Expr::Local(x) => x == v,
        Expr::Global(_) | Expr::Lit(_) | Expr::Con(_) => false,
        Expr::App(f, args) => mentions(f, v) || args.iter().any(|a| mentions(a, v)),
        Expr::Lam(_, b) => mentions(b, v),
        Expr::Let(b, body) => {
            mentions(body, v)
                || match &**b {
                    Bind::NonRec(_, e) => mentions(e, v),
                    Bind::Rec(bs) => bs.iter().any(|(_, e)| mentions(e, v)),
                }
        }
        Expr::Case(s, _, alts, d) => {
            mentions(s, v)
                || alts.iter().any(|a| mentions(&a.body, v))
                || d.as_ref().is_some_and(|d| mentions(d, v))
        }
    }
}

fn arity(t: &ast::Type) -> usize {
    match t {
        ast::Type::Fun(_, r, _) => 1 + arity(r),
        _ => 0,
    }
}

/// Desugars a renamed program to Core; returns warnings (and errors).
pub fn desugar(program: &Program) -> (core::Program, Vec<Diagnostic>) {
    let mut d = Desugar {
        sources: &program.sources,
        next: 0,
        next_global: 0,
        cons: HashMap::new(),
        siblings: HashMap::new(),
        scopes: Vec::new(),
        diags: Vec::new(),
    };
    let mut out = core::Program::default();
    // Built-in types: lists, unit and tuples.
    let builtin = |name: &str, cs: &[(&str, usize)]| DataType {
        name: Sym::from(name),
        constrs: cs
            .iter()
            .map(|(c, a)| Constr {
                name: Sym::from(*c),
                arity: *a,
                strict: vec![false; *a],
            })
            .collect(),
    };
    let mut data = vec![
        builtin("[]", &[("[]", 0), (":", 2)]),
        builtin("()", &[("()", 0)]),
    ];
    for n in 2..=15 {
        let t = format!("({})", ",".repeat(n - 1));
        data.push(builtin(&t, &[(&t, n)]));
    }
    let mut newtypes = std::collections::HashSet::new();
    for m in &program.modules {
        let module = crate::modules::module_name(m);
        for decl in &m.decls {
            if let Decl::Data(dd) = decl {
                let ty = Sym::from(format!("{module}.{}", dd.name.name));
                if dd.newtype {
                    newtypes.insert(ty.clone());
                }
                data.push(DataType {
                    name: ty,
                    constrs: dd
                        .constrs
                        .iter()
                        .map(|c| Constr {
                            name: Sym::from(format!("{module}.{}", c.name.name)),
                            arity: c.fields.len(),
                            strict: c.fields.iter().map(|f| f.strict).collect(),
                        })
                        .collect(),
                });
            }
        }
    }
    for dt in &data {
        d.siblings.insert(
            dt.name.clone(),
            dt.constrs.iter().map(|c| c.name.clone()).collect(),
        );
        for c in &dt.constrs {
            d.cons.insert(
                c.name.clone(),
                ConInfo {
                    ty: dt.name.clone(),
                    newtype: newtypes.contains(&dt.name),
                },
            );
        }
    }
    out.data = data
        .into_iter()
        .filter(|dt| !newtypes.contains(&dt.name))
        .collect();
    for m in &program.modules {
        let module = crate::modules::module_name(m);
        for decl in &m.decls {
            if let Decl::Foreign { prim, name, ty, .. } = decl {
                out.prims.push((
                    Sym::from(format!("{module}.{}", name.name)),
                    prim.clone(),
                    arity(&ty.ty),
                ));
            }
        }
        let binds = d.bindings(&m.decls, Some(&module));
        for (t, e) in binds {
            if let Target::Name(n) = t {
                out.binds.push((Sym::from(format!("{module}.{n}")), e));
            }
        }
    }
    (out, d.diags)
}
