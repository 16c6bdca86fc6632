//! Desugaring the elaborated program (the type checker's output, see
//! `types::elab`) to Core, with a pattern-match compiler.
//!
//! # Overloading
//!
//! The input has every overloading explicit; the output has no classes at
//! all, only ordinary data and functions:
//!
//! * A class `C` (say `Prelude.Num`) is a Core data type of the same name
//!   with one constructor `D:C` (`Prelude.D:Num`) whose fields are the
//!   superclass dictionaries, then the methods (in `elab::ClassDef` order),
//!   all lazy.
//! * Each method's global name (`Prelude.+`) is a top-level selector
//!   `\d -> case d of D:Num f0 .. fn -> fk`; superclass `i` (0-based) of `C`
//!   is selected by the generated global `M.$p{i+1}C` (GHC's naming:
//!   `Prelude.$p1Ord` gives the `Eq` dictionary of an `Ord` dictionary), so
//!   `Dict::Super(d, Ord, 0)` is `Prelude.$p1Ord d`.
//! * `Dict::Inst(dfun, args)` is `dfun args..`; `Dict::Var` the local.
//! * An instance is a top-level binding
//!   `dfun = \dicts -> letrec this = D:C supers.. methods..; m1 = ..; .. in this`
//!   (no lambda without context). A method whose definition is a small
//!   expression (e.g. a default method applied to `this`) is put in the
//!   record directly rather than bound.
//! * Default methods (`M.$dm==`) and every other binding with dictionary
//!   parameters `Binding::Fun { dicts, clauses }` become
//!   `\dicts.. args.. -> match`: one lambda for the dictionaries and the
//!   arguments together (the same value as `\dicts -> \args -> ..`).
//! * A method with neither an instance definition nor a default is
//!   `Prelude.errorWithoutStackTrace "LOC: No instance nor default method
//!   for class operation M"` (GHC's message).
//!
//! Literals at `Int`, `Integer`, `Double`, `Char` and strings are Core
//! literals; a rational literal is `Prelude.:% n d`; the `do` failure message
//! is a string literal with GHC's location format.
//!
//! # Pattern matching
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
//! * Literal patterns at `Int`, `Integer`, `Double` and `Char` become one
//!   `case` with literal alternatives (primitive comparison). A string
//!   literal pattern is the list of its characters (`"ab"` is
//!   `'a' : 'b' : []`), matched character by character.
//! * An overloaded literal pattern (`Pat::Overloaded { eq, value }`, a
//!   literal at a type other than the primitive ones) is a test
//!   `case eq v value of True -> <rest of the row>; _ -> <next rows>`; each
//!   such row is a block of its own.
//! * A bang pattern `!p` evaluates the scrutinee (`case v of _ -> ..`) before
//!   matching `p`.
//! * A newtype constructor is erased: matching it never fails, and as an
//!   expression it is the identity.
//! * List comprehensions become local loops (see `comprehension_onto`).
//! * A failing match calls `Prelude.patternMatchFail "LOC|CONTEXT"` with
//!   GHC's location and context: `function f` (the span of all its
//!   equations), `case`, `lambda`, or, for a lazy pattern or a pattern
//!   binding, the pattern's text (`Just x`, located at the enclosing
//!   equation or binding).

pub mod exhaustive;

use crate::core::{self, Alt, AltCon, Bind, Constr, DataType, Expr, Lit, Var};
use crate::types::elab::{self, Binding, Dict, Name, Pat, Rhs, RhsBody, Stmt};
use crate::types::ty::Global;
use exhaustive::Signature;
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, SourceMap, Span};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug)]
struct ConInfo {
    /// The data type's name; its constructors are in `Desugar::siblings`.
    ty: Sym,
    newtype: bool,
}

const TRUE: &str = "Gph.Prim.True";

/// The name of the selector of superclass `index` (0-based) of `class`.
pub fn super_selector(class: &Global, index: usize) -> Sym {
    Sym::from(format!("{}.$p{}{}", class.module, index + 1, class.name))
}

/// The name of the dictionary constructor of `class`.
pub fn dict_con(class: &Global) -> Sym {
    Sym::from(format!("{}.D:{}", class.module, class.name))
}

fn gname(g: &Global) -> Sym {
    Sym::from(g.to_string())
}

/// What a row of a match produces once its patterns have matched.
#[derive(Clone, Copy)]
enum Body<'a> {
    Rhs(&'a Rhs),
    Expr(&'a elab::Expr),
    /// The variable of that name bound by the row's patterns (lazy patterns).
    Var(&'a Sym),
    /// Whatever follows a generator or a pattern guard.
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
    Global(Sym),
    Local(Var),
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
    /// How many matches are being built, and the failure variables whose
    /// `let` waits for the outermost to be done (see `match_top`).
    match_depth: usize,
    pending_fails: HashSet<u32>,
    /// The values of the strict pattern bindings (`let !p = e`) of the
    /// group being desugared, which its body forces first.
    strict_values: Vec<Var>,
}

fn is_irrefutable_guard(e: &elab::Expr) -> bool {
    match e {
        elab::Expr::Var(Name::Global(g), _) => &*g.module == "Prelude" && &*g.name == "otherwise",
        elab::Expr::Con(g, _) => g.to_string() == TRUE,
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

fn binding_span(b: &Binding) -> Span {
    match b {
        Binding::Fun { span, .. } | Binding::Pat { span, .. } => *span,
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
        self.sources.ghc_location(span)
    }

    /// GHC locates a missing method at the instance head (`Eq (Maybe a)`,
    /// context included): the text of the declaration `span` between the
    /// keyword `instance` and `where` (or its end).
    fn instance_head(&self, span: Span) -> Span {
        let Some(f) = self.sources.file_of(span) else {
            return span;
        };
        let text = f.slice(span);
        let Some(rest) = text.strip_prefix("instance") else {
            return span;
        };
        let start = text.len() - rest.trim_start().len();
        let end = rest
            .match_indices("where")
            .find(|(i, _)| {
                let before = rest[..*i].chars().next_back();
                let after = rest[i + 5..].chars().next();
                before.is_some_and(char::is_whitespace)
                    && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '\''))
            })
            .map_or(text.len(), |(i, _)| text.len() - rest.len() + i);
        let end = start + text[start..end].trim_end().len();
        if end <= start {
            return span;
        }
        Span::new(span.start as usize + start, span.start as usize + end)
    }

    /// A pattern as the user wrote it (white space collapsed), as GHC
    /// names a failed lazy pattern or pattern binding.
    fn pat_text(&self, p: &Pat) -> String {
        let span = p.span();
        match self.sources.file_of(span) {
            Some(f) if span.end > span.start => f
                .slice(span)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            _ => "irrefutable pattern".to_string(),
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

    fn local(&mut self, name: &Sym) -> Expr {
        match self.lookup_local(name) {
            Some(v) => Expr::Local(v),
            // The checker never produces an unbound local; keep going with a
            // value the scope check reports.
            None => Expr::Global(Sym::from(format!("<unbound {name}>"))),
        }
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

    fn literal(&mut self, l: &elab::Lit) -> Expr {
        match l {
            elab::Lit::Int(n) => Expr::Lit(Lit::Int(*n)),
            elab::Lit::Integer(n) => Expr::Lit(Lit::Integer(n.clone())),
            elab::Lit::Double(d) => Expr::Lit(Lit::Double(*d)),
            elab::Lit::Char(c) => Expr::Lit(Lit::Char(*c)),
            elab::Lit::Str(s) => Expr::Lit(Lit::Str(s.clone())),
            elab::Lit::Rational(n, d) => Expr::app(
                Expr::Con(Sym::from("Prelude.:%")),
                vec![
                    Expr::Lit(Lit::Integer(n.clone())),
                    Expr::Lit(Lit::Integer(d.clone())),
                ],
            ),
            elab::Lit::DoFailMsg(span) => Expr::Lit(Lit::Str(Sym::from(format!(
                "Pattern match failure in do expression at {}",
                self.location(*span)
            )))),
        }
    }

    // ------------------------------------------------------------ expressions

    fn dict(&mut self, d: &Dict) -> Expr {
        gph_syntax::stack::guard();
        match d {
            Dict::Var(s) => self.local(s),
            Dict::Rec(name, d) => {
                let v = self.fresh("drec");
                self.scopes.push(HashMap::from([(name.clone(), v.clone())]));
                let e = self.dict(d);
                self.scopes.pop();
                Expr::Let(
                    Box::new(Bind::Rec(vec![(v.clone(), e)])),
                    Box::new(Expr::Local(v)),
                )
            }
            Dict::Inst(g, args) => {
                let args = args.iter().map(|a| self.dict(a)).collect();
                Expr::app(Expr::Global(gname(g)), args)
            }
            Dict::Super(d, class, i) => {
                let d = self.dict(d);
                Expr::app(Expr::Global(super_selector(class, *i)), vec![d])
            }
            Dict::Typeable(g, args) => {
                // D:Typeable (\x -> TypeRep "Module" "T" [primTypeRep d1 x, ...]):
                // the method never looks at its argument.
                let x = self.fresh("x");
                let mut reps = Expr::Con(Sym::from("[]"));
                for a in args.iter().rev() {
                    let d = self.dict(a);
                    let rep = Expr::app(
                        Expr::Global(Sym::from("Gph.Prim.primTypeRep")),
                        vec![d, Expr::Local(x.clone())],
                    );
                    reps = Expr::app(Expr::Con(Sym::from(":")), vec![rep, reps]);
                }
                let module = if g.module.is_empty() {
                    "GHC.Types"
                } else {
                    &g.module
                };
                let rep = Expr::app(
                    Expr::Con(Sym::from("Gph.Prim.TypeRep")),
                    vec![
                        Expr::Lit(Lit::Str(Sym::from(module))),
                        Expr::Lit(Lit::Str(g.name.clone())),
                        reps,
                    ],
                );
                let class = Global::new("Gph.Prim", "Typeable");
                Expr::app(
                    Expr::Con(dict_con(&class)),
                    vec![Expr::Lam(vec![x], Box::new(rep))],
                )
            }
            Dict::Hole(h) => Expr::Global(Sym::from(format!("<dictionary hole {h}>"))),
        }
    }

    fn con_ref(&mut self, g: &Global) -> Expr {
        let n = gname(g);
        if self.cons.get(&n).is_some_and(|c| c.newtype) {
            // A newtype constructor is the identity at run time.
            let x = self.fresh("x");
            return Expr::Lam(vec![x.clone()], Box::new(Expr::Local(x)));
        }
        Expr::Con(n)
    }

    fn expr(&mut self, e: &elab::Expr) -> Expr {
        gph_syntax::stack::guard();
        use elab::Expr as E;
        match e {
            E::Var(Name::Local(s), _) => self.local(s),
            E::Var(Name::Global(g), _) => Expr::Global(gname(g)),
            E::Con(g, _) => self.con_ref(g),
            E::Lit(l, _) => self.literal(l),
            E::Dict(d) => self.dict(d),
            E::App(..) => {
                let mut args = Vec::new();
                let mut f = e;
                while let E::App(g, a, _) = f {
                    args.push(&**a);
                    f = g;
                }
                args.reverse();
                if let E::Con(g, _) = f {
                    if self.cons.get(&gname(g)).is_some_and(|c| c.newtype) {
                        // A newtype constructor applied: its argument.
                        let mut args = args.into_iter().map(|a| self.expr(a));
                        let x = args.next().expect("an argument");
                        return Expr::app(x, args.collect());
                    }
                }
                let f = self.expr(f);
                let args = args.into_iter().map(|a| self.expr(a)).collect();
                Expr::app(f, args)
            }
            E::Lambda(pats, body, span) => {
                let vars: Vec<Var> = pats.iter().map(|p| self.fresh(var_name(p))).collect();
                let row = Row {
                    pats: pats.clone(),
                    env: vec![],
                    lazy: vec![],
                    body: Body::Expr(body),
                    span: *span,
                };
                let fail = self.pattern_fail(*span, "lambda");
                let m = self.match_top(&vars, vec![row], fail, None);
                if vars.is_empty() {
                    m
                } else {
                    Expr::Lam(vars, Box::new(m))
                }
            }
            E::Let(bs, body, _) => self.let_group(bs, |d| d.expr(body)),
            E::If(c, t, f, _) => {
                let (c, t, f) = (self.expr(c), self.expr(t), self.expr(f));
                self.if_then_else(c, t, f)
            }
            E::Case(scrut, alts, span) => {
                let s = self.expr(scrut);
                // A variable is matched directly; anything else is shared.
                let (v, s) = match s {
                    Expr::Local(v) => (v, None),
                    s => (self.fresh("scrut"), Some(s)),
                };
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
                match (s, m) {
                    // `case e of x -> x`
                    (Some(s), Expr::Local(x)) if x == v => s,
                    (Some(s), m) => Expr::Let(Box::new(Bind::NonRec(v, s)), Box::new(m)),
                    (None, m) => m,
                }
            }
            E::Tuple(es, _) => {
                let name = Sym::from(format!("({})", ",".repeat(es.len().saturating_sub(1))));
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
            E::Comprehension(head, quals, _) => self.comprehension(head, quals),
            E::NoMethod(g, span) => {
                let msg = format!(
                    "{}: No instance nor default method for class operation {}",
                    self.location(self.instance_head(*span)),
                    g.name
                );
                Expr::app(
                    Expr::global("Prelude.errorWithoutStackTrace"),
                    vec![Expr::Lit(Lit::Str(Sym::from(msg)))],
                )
            }
            E::Pending(i) => Expr::Global(Sym::from(format!("<pending {i}>"))),
        }
    }

    fn comprehension(&mut self, head: &elab::Expr, quals: &[Stmt]) -> Expr {
        self.comprehension_onto(head, quals, Expr::Con(Sym::from("[]")))
    }

    /// `[head | quals] ++ tail`, without building the left list (the
    /// translation of Wadler's chapter in Peyton Jones 1987, as GHC's
    /// desugarer without fusion): a generator `p <- l` becomes a local loop
    /// `go [] = tail; go (x : us) = case x of p -> [head | rest] ++ go us;
    /// _ -> go us`, a guard `if b then [head | rest] ++ tail else tail`.
    /// A rejected element is a tail call of the loop, so a long run of them
    /// takes no stack (with `concatMap`, `[] ++ go us` left an update frame
    /// per element).
    fn comprehension_onto(&mut self, head: &elab::Expr, quals: &[Stmt], tail: Expr) -> Expr {
        gph_syntax::stack::guard();
        let Some((q, rest)) = quals.split_first() else {
            let h = self.expr(head);
            return Expr::app(Expr::Con(Sym::from(":")), vec![h, tail]);
        };
        match q {
            Stmt::Expr(g) => {
                let c = self.expr(g);
                let t = self.comprehension_onto(head, rest, tail.clone());
                self.if_then_else(c, t, tail)
            }
            Stmt::Let(bs, _) => self.let_group(bs, |d| d.comprehension_onto(head, rest, tail)),
            Stmt::Bind(p, l, span) => {
                let list = self.expr(l);
                let go = self.fresh("go");
                let xs = self.fresh("xs");
                let x = self.fresh("x");
                let us = self.fresh("us");
                let next = Expr::app(Expr::Local(go.clone()), vec![Expr::Local(us.clone())]);
                let cont = CompRest(head, rest, next.clone());
                let row = Row {
                    pats: vec![p.clone()],
                    env: vec![],
                    lazy: vec![],
                    body: Body::Cont(&cont),
                    span: *span,
                };
                let cons = self.match_top(std::slice::from_ref(&x), vec![row], next, None);
                let scrutinee = self.fresh("c");
                let body = Expr::Case(
                    Box::new(Expr::Local(xs.clone())),
                    scrutinee,
                    vec![
                        Alt {
                            con: AltCon::Con(Sym::from("[]")),
                            vars: vec![],
                            body: tail,
                        },
                        Alt {
                            con: AltCon::Con(Sym::from(":")),
                            vars: vec![x, us],
                            body: cons,
                        },
                    ],
                    None,
                );
                Expr::Let(
                    Box::new(Bind::Rec(vec![(
                        go.clone(),
                        Expr::Lam(vec![xs], Box::new(body)),
                    )])),
                    Box::new(Expr::app(Expr::Local(go), vec![list])),
                )
            }
        }
    }

    // ------------------------------------------------------------ bindings

    /// Desugars a `let`/`where` group around the body that `k` produces.
    fn let_group(&mut self, bs: &[Binding], k: impl FnOnce(&mut Self) -> Expr) -> Expr {
        let mut scope = HashMap::new();
        for name in group_binders(bs) {
            let v = self.fresh(printed(&name));
            scope.insert(name, v);
        }
        self.scopes.push(scope);
        let outer = std::mem::take(&mut self.strict_values);
        let binds = self.bindings(bs, None);
        let strict = std::mem::replace(&mut self.strict_values, outer);
        let mut body = k(self);
        // `let !p = e in b` evaluates `e` before `b` (GHC's BangPatterns).
        for v in strict.into_iter().rev() {
            let b = self.fresh("s");
            body = Expr::Case(Box::new(Expr::Local(v)), b, vec![], Some(Box::new(body)));
        }
        self.scopes.pop();
        if binds.is_empty() {
            return body;
        }
        let binds = binds
            .into_iter()
            .filter_map(|(t, e)| match t {
                Target::Local(v) => Some((v, e)),
                Target::Global(_) => None,
            })
            .collect();
        Expr::Let(Box::new(Bind::Rec(binds)), Box::new(body))
    }

    /// `\dicts.. args.. -> match clauses`.
    fn function(
        &mut self,
        dicts: &[Sym],
        clauses: &[elab::Clause],
        span: Span,
        what: &str,
    ) -> Expr {
        let dvars: Vec<Var> = dicts.iter().map(|d| self.fresh(printed(d))).collect();
        self.scopes
            .push(dicts.iter().cloned().zip(dvars.iter().cloned()).collect());
        let nargs = clauses.first().map_or(0, |c| c.args.len());
        // Each argument is named after the first clause's variable there.
        let vars: Vec<Var> = (0..nargs)
            .map(|i| {
                let p = clauses
                    .iter()
                    .filter_map(|c| c.args.get(i))
                    .find(|p| pat_name(p).is_some());
                self.fresh(p.map_or("a", var_name))
            })
            .collect();
        let rows = clauses
            .iter()
            .map(|c| Row {
                pats: c.args.clone(),
                env: vec![],
                lazy: vec![],
                body: Body::Rhs(&c.rhs),
                span: c.span,
            })
            .collect();
        let fail = self.pattern_fail(span, what);
        let body = self.match_top(&vars, rows, fail, Some(what));
        self.scopes.pop();
        let params: Vec<Var> = dvars.into_iter().chain(vars).collect();
        if params.is_empty() {
            body
        } else {
            Expr::Lam(params, Box::new(body))
        }
    }

    /// The bindings of a group. `top` is the module for top-level groups
    /// (names and pattern temporaries are globals there).
    fn bindings(&mut self, bs: &[Binding], top: Option<&Sym>) -> Vec<(Target, Expr)> {
        let mut out = Vec::new();
        for b in bs {
            if top.is_some() {
                self.next = 0;
            }
            match b {
                Binding::Fun {
                    name,
                    dicts,
                    clauses,
                    span,
                } => {
                    let (target, short) = match name {
                        Name::Global(g) => (Target::Global(gname(g)), g.name.clone()),
                        Name::Local(s) => match self.lookup_local(s) {
                            Some(v) => (Target::Local(v), s.clone()),
                            None => continue,
                        },
                    };
                    let what = format!("function {short}");
                    let e = self.function(dicts, clauses, *span, &what);
                    out.push((target, e));
                }
                Binding::Pat { pat, rhs, span } => {
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
                            let n = Sym::from(format!("{m}.pat{}", self.next_global));
                            (Target::Global(n.clone()), Expr::Global(n))
                        }
                        None => {
                            let v = self.fresh("pat");
                            if matches!(pat, Pat::Bang(..)) {
                                self.strict_values.push(v.clone());
                            }
                            (Target::Local(v.clone()), Expr::Local(v))
                        }
                    };
                    out.push((target, value));
                    let mut vars = Vec::new();
                    pat_vars(pat, &mut vars);
                    for x in vars {
                        if top.is_some() {
                            self.next = 0;
                        }
                        let t = self.fresh("p");
                        let row = Row {
                            pats: vec![pat.clone()],
                            env: vec![],
                            lazy: vec![],
                            body: Body::Var(&x),
                            span: *span,
                        };
                        let what = self.pat_text(pat);
                        let fail = self.pattern_fail(*span, &what);
                        let sel = self.match_top(std::slice::from_ref(&t), vec![row], fail, None);
                        let target = match top {
                            Some(m) => Target::Global(Sym::from(format!("{m}.{x}"))),
                            None => match self.lookup_local(&x) {
                                Some(v) => Target::Local(v),
                                None => continue,
                            },
                        };
                        out.push((
                            target,
                            Expr::Let(Box::new(Bind::NonRec(t, reference.clone())), Box::new(sel)),
                        ));
                    }
                }
            }
        }
        out
    }

    /// The body of a row, once its patterns matched, falling through to `fail`.
    fn emit(&mut self, row: &Row, fail: Expr) -> Expr {
        self.scopes.push(row.env.iter().cloned().collect());
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
        with_lazy(&row.lazy, e)
    }

    fn guard_chain(&mut self, quals: &[Stmt], body: &elab::Expr, fail: Expr) -> Expr {
        gph_syntax::stack::guard();
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
            Stmt::Let(bs, _) => self.let_group(bs, |d| d.guard_chain(rest, body, fail)),
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

    // ------------------------------------------------------------ classes

    /// The data type of a class's dictionaries, its method selectors and its
    /// superclass selectors.
    fn class(&mut self, c: &elab::ClassDef, out: &mut core::Program) {
        let con = dict_con(&c.name);
        let n = c.supers.len() + c.methods.len();
        out.data.push(DataType {
            name: gname(&c.name),
            constrs: vec![Constr {
                name: con.clone(),
                arity: n,
                strict: vec![false; n],
                refines: false,
            }],
        });
        let fields = c
            .supers
            .iter()
            .enumerate()
            .map(|(i, _)| super_selector(&c.name, i))
            .chain(c.methods.iter().map(gname));
        for (k, sel) in fields.enumerate() {
            self.next = 0;
            let d = self.fresh("d");
            let fs: Vec<Var> = (0..n).map(|_| self.fresh("f")).collect();
            let b = self.fresh("c");
            let body = Expr::Case(
                Box::new(Expr::Local(d.clone())),
                b,
                vec![Alt {
                    con: AltCon::Con(con.clone()),
                    vars: fs.clone(),
                    body: Expr::Local(fs[k].clone()),
                }],
                None,
            );
            out.binds.push((sel, Expr::Lam(vec![d], Box::new(body))));
        }
    }

    /// An instance's dictionary (function).
    fn instance(&mut self, i: &elab::InstanceDef) -> Expr {
        self.next = 0;
        let dvars: Vec<Var> = i.dicts.iter().map(|d| self.fresh(printed(d))).collect();
        if i.alias {
            return Expr::Lam(dvars.clone(), Box::new(Expr::Local(dvars[0].clone())));
        }
        let this = self.fresh(printed(&i.this));
        let mut scope: HashMap<Sym, Var> =
            i.dicts.iter().cloned().zip(dvars.iter().cloned()).collect();
        scope.insert(i.this.clone(), this.clone());
        self.scopes.push(scope);
        let mut fields: Vec<Expr> = i.supers.iter().map(|d| self.dict(d)).collect();
        let mut binds = vec![];
        for m in &i.methods {
            let Binding::Fun {
                name,
                dicts,
                clauses,
                span,
            } = m
            else {
                continue;
            };
            let short = match name {
                Name::Global(g) => g.name.clone(),
                Name::Local(s) => s.clone(),
            };
            let what = format!("function {short}");
            let e = self.function(dicts, clauses, *span, &what);
            if is_small(&e) {
                fields.push(e);
            } else {
                let v = self.fresh(printed(&short));
                fields.push(Expr::Local(v.clone()));
                binds.push((v, e));
            }
        }
        self.scopes.pop();
        let record = Expr::app(Expr::Con(dict_con(&i.class)), fields);
        let mut all = vec![(this.clone(), record)];
        all.extend(binds);
        let body = Expr::Let(Box::new(Bind::Rec(all)), Box::new(Expr::Local(this)));
        if dvars.is_empty() {
            body
        } else {
            Expr::Lam(dvars, Box::new(body))
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
        self.match_depth += 1;
        let m = self.match_rows(vars, rows, Expr::Local(fv.clone()));
        self.match_depth -= 1;
        // A call of a known loop on variables (`go us`, the next element
        // of a comprehension's generator) is copied where it is needed:
        // bound by a `let`, it would be a thunk, and returning it a new
        // update frame per skipped element.
        let cheap = match &fail {
            Expr::App(f, args) => {
                matches!(&**f, Expr::Local(_)) && args.iter().all(|a| matches!(a, Expr::Local(_)))
            }
            _ => false,
        };
        // Otherwise, whether the match can fail: looked up at once in a
        // small match; in a large one (which may hold 5,000 nested
        // matches: a search in each was quadratic) decided for all at once
        // when the outermost match is done (`prune_fail_lets`), with the
        // same result.
        let mut left = 1000;
        let found = if cheap || !self.pending_fails.is_empty() {
            None
        } else {
            mentions_within(&m, &fv, &mut left)
        };
        let e = match found {
            _ if cheap => {
                let mut to = HashMap::new();
                to.insert(fv.id, fail);
                crate::core::simplify::substitute(&m, &to)
            }
            Some(false) => m,
            Some(true) => Expr::Let(Box::new(Bind::NonRec(fv, fail)), Box::new(m)),
            None => {
                self.pending_fails.insert(fv.id);
                Expr::Let(Box::new(Bind::NonRec(fv, fail)), Box::new(m))
            }
        };
        if self.match_depth == 0 && !self.pending_fails.is_empty() {
            let pending = std::mem::take(&mut self.pending_fails);
            prune_fail_lets(e, &pending)
        } else {
            e
        }
    }

    /// Overlap and exhaustiveness warnings for a match (see `exhaustive`).
    fn warn_patterns(&mut self, rows: &[Row], what: &str) {
        let simple: Vec<Vec<exhaustive::P>> = rows
            .iter()
            .map(|r| {
                r.pats
                    .iter()
                    .map(|p| exhaustive::simplify(p, self))
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
        // Split into blocks of the same kind of first pattern; overloaded
        // literals and views are a block each.
        let kind = |p: &Pat| match p {
            Pat::Con(..) => 1,
            Pat::Lit(..) => 2,
            Pat::Bang(..) => 3,
            Pat::Overloaded { .. } => 4,
            Pat::View(..) => 5,
            _ => 0,
        };
        let mut blocks: Vec<Vec<Row>> = Vec::new();
        for r in rows {
            let k = kind(&r.pats[0]);
            match blocks.last_mut() {
                Some(b) if k < 4 && kind(&b[0].pats[0]) == k => b.push(r),
                _ => blocks.push(vec![r]),
            }
        }
        let mut acc = fail;
        for block in blocks.into_iter().rev() {
            acc = self.share(acc, |d, fail| d.match_block(u, us, block, fail));
        }
        acc
    }

    fn match_block(&mut self, u: &Var, us: &[Var], mut block: Vec<Row>, fail: Expr) -> Expr {
        match &block[0].pats[0] {
            Pat::Con(..) => {
                let mut order: Vec<Sym> = Vec::new();
                let mut groups: HashMap<Sym, (Vec<Var>, Vec<Row>)> = HashMap::new();
                for mut r in block {
                    let Pat::Con(g, args, _) = r.pats.remove(0) else {
                        unreachable!("constructor block")
                    };
                    let c = gname(&g);
                    if !groups.contains_key(&c) {
                        let vars = args
                            .iter()
                            .map(|p| {
                                self.fresh(match p {
                                    Pat::Wildcard(_) => "_",
                                    _ if pat_name(p).is_some() => var_name(p),
                                    _ => "f",
                                })
                            })
                            .collect();
                        order.push(c.clone());
                        groups.insert(c.clone(), (vars, Vec::new()));
                    }
                    let g = groups.get_mut(&c).expect("group");
                    let mut pats = args;
                    pats.resize_with(g.0.len(), || Pat::Wildcard(Span::default()));
                    pats.extend(r.pats);
                    g.1.push(Row { pats, ..r });
                }
                // The groups are distinct constructors of one type: all of
                // them when as many. (Copying the type's constructors at each
                // match was quadratic for a type with 2,000.)
                let complete = order
                    .first()
                    .and_then(|c| self.cons.get(c))
                    .and_then(|ci| self.siblings.get(&ci.ty))
                    .is_some_and(|all| all.len() == groups.len());
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
            Pat::Lit(..) => {
                // One alternative per distinct literal, in order of appearance.
                // Found through an index: 5,000 literals compared with
                // each other were quadratic.
                let mut groups: Vec<(Lit, Vec<Row>)> = Vec::new();
                let mut index: HashMap<String, usize> = HashMap::new();
                for mut r in block {
                    let Pat::Lit(l, _) = r.pats.remove(0) else {
                        unreachable!("literal block")
                    };
                    let l = match self.literal(&l) {
                        Expr::Lit(l) => l,
                        _ => unreachable!("primitive literal pattern"),
                    };
                    match index.entry(lit_key(&l)) {
                        Entry::Occupied(k) => groups[*k.get()].1.push(r),
                        Entry::Vacant(k) => {
                            k.insert(groups.len());
                            groups.push((l, vec![r]));
                        }
                    }
                }
                let alts = groups
                    .into_iter()
                    .map(|(l, rows)| Alt {
                        con: AltCon::Lit(l),
                        vars: vec![],
                        body: self.match_rows(us, rows, fail.clone()),
                    })
                    .collect();
                let b = self.fresh("c");
                Expr::Case(
                    Box::new(Expr::Local(u.clone())),
                    b,
                    alts,
                    Some(Box::new(fail)),
                )
            }
            Pat::Overloaded { .. } => {
                let mut r = block.remove(0);
                let Pat::Overloaded { eq, value, .. } = r.pats.remove(0) else {
                    unreachable!("overloaded literal block")
                };
                let eq = self.expr(&eq);
                let value = self.expr(&value);
                let test = Expr::app(eq, vec![Expr::Local(u.clone()), value]);
                let then = self.match_rows(us, vec![r], fail.clone());
                self.if_then_else(test, then, fail)
            }
            Pat::View(..) => {
                // `(f -> p)`: `p` matches `f u`, bound lazily (p decides
                // whether it is evaluated); the function sees the variables
                // bound left of it, lazy patterns' through their selectors.
                let mut r = block.remove(0);
                let Pat::View(f, p, _) = r.pats.remove(0) else {
                    unreachable!("view block")
                };
                self.scopes.push(r.env.iter().cloned().collect());
                let f = self.expr(&f);
                self.scopes.pop();
                let f = with_lazy(&r.lazy, f);
                let v = self.fresh(var_name(&p));
                r.pats.insert(0, *p);
                let mut vars = vec![v.clone()];
                vars.extend(us.iter().cloned());
                let body = self.match_rows(&vars, vec![r], fail);
                Expr::Let(
                    Box::new(Bind::NonRec(v, Expr::app(f, vec![Expr::Local(u.clone())]))),
                    Box::new(body),
                )
            }
            Pat::Bang(..) => {
                // Evaluate the scrutinee, then match the inner patterns.
                for r in &mut block {
                    if let Pat::Bang(p, _) =
                        std::mem::replace(&mut r.pats[0], Pat::Wildcard(Span::default()))
                    {
                        r.pats[0] = *p;
                    }
                }
                let mut vars = vec![u.clone()];
                vars.extend(us.iter().cloned());
                let body = self.match_rows(&vars, block, fail);
                let b = self.fresh("c");
                Expr::Case(
                    Box::new(Expr::Local(u.clone())),
                    b,
                    vec![],
                    Some(Box::new(body)),
                )
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
                            let v = self.fresh(printed(&x));
                            let row = Row {
                                pats: vec![(*p).clone()],
                                env: vec![],
                                lazy: vec![],
                                body: Body::Var(&x),
                                span,
                            };
                            // GHC blames the enclosing equation.
                            let what = self.pat_text(&p);
                            let pf = self.pattern_fail(r.span, &what);
                            let sel = self.match_top(std::slice::from_ref(u), vec![row], pf, None);
                            let bound = Expr::Let(
                                Box::new(Bind::NonRec(v.clone(), sel)),
                                Box::new(Expr::Local(v.clone())),
                            );
                            // Bind through a let so that the selector is a shared thunk.
                            let t = self.fresh(printed(&x));
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
}

/// `e` under the `let`s that bind a row's lazy-pattern variables to their
/// selectors.
fn with_lazy(lazy: &[(Var, Expr)], e: Expr) -> Expr {
    lazy.iter().rev().fold(e, |e, (v, b)| {
        Expr::Let(Box::new(Bind::NonRec(v.clone(), b.clone())), Box::new(e))
    })
}

/// The source variable a pattern binds to the whole value it matches
/// (`x`, `xs@(..)`, `!n`), if any.
fn pat_name(p: &Pat) -> Option<&Sym> {
    match p {
        Pat::Var(x, _) | Pat::As(x, _, _) => Some(x),
        Pat::Bang(p, _) => pat_name(p),
        _ => None,
    }
}

/// The name of the Core variable that stands for the value a pattern
/// matches: the source variable's when the pattern names it, so that Core
/// (and `:step`) reads like the source; `_` for a wildcard, `a` otherwise.
fn var_name(p: &Pat) -> &str {
    match p {
        Pat::Wildcard(_) => "_",
        _ => pat_name(p).map_or("a", |x| printed(x)),
    }
}

/// How a variable named by the checker prints in Core: without the number
/// that made it unique (Core variables have their own), and `op` for an
/// operator (`$dNum12` is `$dNum_4`, a local `==` is `op_5`).
fn printed(name: &str) -> &str {
    if !name.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
        return "op";
    }
    match name.strip_prefix('$') {
        Some(rest) => {
            let trimmed = rest.trim_end_matches(|c: char| c.is_ascii_digit());
            &name[..1 + trimmed.len()]
        }
        None => name,
    }
}

/// Whether a method's Core is small enough to go into the dictionary record
/// directly: a variable, literal or constructor applied to such.
fn is_small(e: &Expr) -> bool {
    let atom = |e: &Expr| {
        matches!(
            e,
            Expr::Local(_) | Expr::Global(_) | Expr::Lit(_) | Expr::Con(_)
        )
    };
    match e {
        Expr::App(f, args) => atom(f) && args.iter().all(atom),
        e => atom(e),
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

/// The remainder of a comprehension after a generator, and what follows
/// its elements (the loop over the generator's other elements).
struct CompRest<'a>(&'a elab::Expr, &'a [Stmt], Expr);

/// The remainder of a guard after a pattern guard `p <- e`.
struct GuardRest<'a>(&'a [Stmt], &'a elab::Expr);

/// How to produce the body of a row whose body is "the rest of the construct".
trait Continue {
    fn produce(&self, d: &mut Desugar, fail: Expr) -> Expr;
}

impl Continue for CompRest<'_> {
    fn produce(&self, d: &mut Desugar, _: Expr) -> Expr {
        d.comprehension_onto(self.0, self.1, self.2.clone())
    }
}

impl Continue for GuardRest<'_> {
    fn produce(&self, d: &mut Desugar, fail: Expr) -> Expr {
        d.guard_chain(self.0, self.1, fail)
    }
}

fn tuple_con(n: usize) -> Global {
    Global::builtin(&format!("({})", ",".repeat(n.saturating_sub(1))))
}

/// Simplifies a row's first pattern against scrutinee `u`: binds variables
/// and as-patterns, turns tuples, lists and strings into constructor
/// patterns and skips newtype constructors.
fn normalize(r: &mut Row, u: &Var, cons: &HashMap<Sym, ConInfo>) {
    loop {
        let p = std::mem::replace(&mut r.pats[0], Pat::Wildcard(Span::default()));
        r.pats[0] = match p {
            Pat::Var(x, s) => {
                r.env.push((x, u.clone()));
                Pat::Wildcard(s)
            }
            Pat::As(x, p, _) => {
                r.env.push((x, u.clone()));
                *p
            }
            Pat::Pending(_, s) => Pat::Wildcard(s),
            Pat::Tuple(ps, s) => {
                return r.pats[0] = Pat::Con(tuple_con(ps.len()), ps, s);
            }
            Pat::List(ps, s) => {
                let mut out = Pat::Con(Global::builtin("[]"), vec![], s);
                for p in ps.into_iter().rev() {
                    out = Pat::Con(Global::builtin(":"), vec![p, out], s);
                }
                return r.pats[0] = out;
            }
            Pat::Lit(elab::Lit::Str(text), s) => {
                let mut out = Pat::Con(Global::builtin("[]"), vec![], s);
                for c in text.chars().rev() {
                    out = Pat::Con(
                        Global::builtin(":"),
                        vec![Pat::Lit(elab::Lit::Char(c), s), out],
                        s,
                    );
                }
                return r.pats[0] = out;
            }
            Pat::Con(g, mut args, _)
                if args.len() == 1 && cons.get(&gname(&g)).is_some_and(|c| c.newtype) =>
            {
                args.remove(0)
            }
            other => return r.pats[0] = other,
        };
    }
}

/// Equal keys for the same literal pattern: doubles bitwise, so that the
/// grouping is an equivalence.
fn lit_key(l: &Lit) -> String {
    match l {
        Lit::Double(x) => format!("d{}", x.to_bits()),
        Lit::Int(n) => format!("i{n}"),
        Lit::Integer(n) => format!("I{n}"),
        Lit::Char(c) => format!("c{}", *c as u32),
        Lit::Str(s) => format!("s{s}"),
    }
}

/// Variables a pattern binds.
fn pat_vars(p: &Pat, out: &mut Vec<Sym>) {
    gph_syntax::stack::guard();
    match p {
        Pat::Var(x, _) => out.push(x.clone()),
        Pat::As(x, p, _) => {
            out.push(x.clone());
            pat_vars(p, out)
        }
        Pat::Con(_, ps, _) | Pat::Tuple(ps, _) | Pat::List(ps, _) => {
            ps.iter().for_each(|p| pat_vars(p, out))
        }
        Pat::Lazy(p, _) | Pat::Bang(p, _) | Pat::View(_, p, _) => pat_vars(p, out),
        Pat::Wildcard(_) | Pat::Lit(..) | Pat::Overloaded { .. } | Pat::Pending(..) => {}
    }
}

/// Names a local binding group binds.
fn group_binders(bs: &[Binding]) -> Vec<Sym> {
    let mut out: Vec<Sym> = Vec::new();
    for b in bs {
        match b {
            Binding::Fun {
                name: Name::Local(s),
                ..
            } => out.push(s.clone()),
            Binding::Fun { .. } => {}
            Binding::Pat { pat, .. } => pat_vars(pat, &mut out),
        }
    }
    out
}

/// Whether an expression refers to a local variable, looking at no more
/// than `left` nodes (`None` if that is not enough).
fn mentions_within(e: &Expr, v: &Var, left: &mut usize) -> Option<bool> {
    fn go(e: &Expr, v: &Var, left: &mut usize) -> Option<bool> {
        gph_syntax::stack::guard();
        *left = left.checked_sub(1)?;
        if let Expr::Local(x) = e {
            return Some(x == v);
        }
        let mut found = Some(false);
        e.for_each_child(|c| {
            if found == Some(false) {
                found = go(c, v, left);
            }
        });
        found
    }
    go(e, v, left)
}

/// Drops the `let nomatch = ..` (of the variables in `pending`) that
/// nothing refers to, as if each had been decided when its match was made:
/// a `let` goes when no occurrence is left once the `let`s inside it are
/// decided, and the occurrences in what a dropped `let` bound go with it.
fn prune_fail_lets(e: Expr, pending: &HashSet<u32>) -> Expr {
    fn count(e: &Expr, pending: &HashSet<u32>, counts: &mut HashMap<u32, isize>, by: isize) {
        gph_syntax::stack::guard();
        if let Expr::Local(x) = e {
            if pending.contains(&x.id) {
                *counts.entry(x.id).or_default() += by;
            }
        }
        e.for_each_child(|c| count(c, pending, counts, by));
    }
    fn prune(e: &mut Expr, pending: &HashSet<u32>, counts: &mut HashMap<u32, isize>) {
        gph_syntax::stack::guard();
        if let Expr::Let(b, body) = e {
            if let Bind::NonRec(v, rhs) = &**b {
                if pending.contains(&v.id) {
                    prune(body, pending, counts);
                    if counts.get(&v.id).copied().unwrap_or(0) == 0 {
                        count(rhs, pending, counts, -1);
                        let body = std::mem::replace(&mut **body, Expr::Lit(Lit::Int(0)));
                        *e = body;
                    } else if let Bind::NonRec(_, rhs) = &mut **b {
                        prune(rhs, pending, counts);
                    }
                    return;
                }
            }
        }
        e.for_each_child_mut(|c| prune(c, pending, counts));
    }
    let mut counts = HashMap::new();
    count(&e, pending, &mut counts, 1);
    let mut e = e;
    prune(&mut e, pending, &mut counts);
    e
}

/// Desugars an elaborated program (every module, the Prelude included) to
/// Core; returns the pattern warnings. `sources` locates spans (run-time
/// failure messages).
pub fn desugar(program: &elab::Program, sources: &SourceMap) -> (core::Program, Vec<Diagnostic>) {
    let mut d = Desugar {
        sources,
        next: 0,
        next_global: 0,
        cons: HashMap::new(),
        siblings: HashMap::new(),
        scopes: Vec::new(),
        diags: Vec::new(),
        match_depth: 0,
        pending_fails: HashSet::new(),
        strict_values: Vec::new(),
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
                refines: false,
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
    let mut newtypes = HashSet::new();
    for m in &program.modules {
        for dd in &m.datas {
            let ty = gname(&dd.name);
            if dd.newtype {
                newtypes.insert(ty.clone());
            }
            let mut cons = dd.cons.clone();
            cons.sort_by_key(|c| c.tag);
            data.push(DataType {
                name: ty,
                constrs: cons
                    .iter()
                    .map(|c| Constr {
                        name: gname(&c.name),
                        arity: c.arity,
                        strict: c.strict.clone(),
                        refines: c.refines,
                    })
                    .collect(),
            });
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
        for f in &m.foreigns {
            out.prims.push((gname(&f.name), f.prim.clone(), f.arity));
        }
        for c in &m.classes {
            d.class(c, &mut out);
        }
        // Source order reads best (the checker orders by dependency).
        let mut binds: Vec<&Binding> = m.binds.iter().collect();
        binds.sort_by_key(|b| binding_span(b).start);
        let binds: Vec<Binding> = binds.into_iter().cloned().collect();
        for (t, e) in d.bindings(&binds, Some(&m.name)) {
            if let Target::Global(n) = t {
                out.binds.push((n, e));
            }
        }
        for i in &m.instances {
            let e = d.instance(i);
            out.binds.push((gname(&i.dfun), e));
        }
    }
    (out, d.diags)
}

#[cfg(test)]
mod tests;
