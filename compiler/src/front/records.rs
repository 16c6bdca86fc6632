//! Records (LANGUAGE.md Tier 2): field labels, selectors, construction,
//! update and record patterns, all turned into ordinary Haskell by the
//! renamer, so that the type checker and the back end never see a record.
//!
//! * A labelled field `f` of type `T` is a top-level function, the
//!   selector: one clause `f (C _ x _) = x` per constructor that has the
//!   field, and `f _ = error "No match in record selector f"` when another
//!   constructor of `T` lacks it. Its type is inferred (`T a -> a`).
//! * Construction `C { f = e }` is `C` applied to its fields in declaration
//!   order; a field left out is `error "Missing field in record
//!   construction f"` (a strict one is a compile-time error, as in GHC).
//!   `C {}` works for any constructor, labelled or not.
//! * Update `e { f = x }` is `case e of C v1 .. vn -> C v1 .. x .. vn`, one
//!   alternative per constructor that has every updated field, and a
//!   failing one when some constructor lacks them. The case makes a
//!   type-changing update (`r { val = show (val r) }`) type-check as in
//!   Haskell 2010.
//! * A pattern `C { f = p }` is `C _ .. p .. _`.
//!
//! Field names in record syntax are looked up among top-level names only:
//! a local variable named like a field does not hide it (as in GHC).
//!
//! The code built here is in the renamer's output form (see derive.rs):
//! library names are original names (`Prelude.error`), the type's
//! constructors are qualified with the declaring module, and local
//! variables are unqualified. The variables an update binds are named
//! `field$N`, which no user variable can capture.

use gph_syntax::ast::*;
use gph_syntax::lexer::Sym;
use gph_syntax::Span;

/// A constructor as record syntax needs it.
#[derive(Clone, Debug)]
pub struct ConFields {
    /// The constructor's type, as (module, name).
    pub ty: (Sym, Sym),
    /// Field labels in order; empty for a constructor declared without.
    pub labels: Vec<Sym>,
    /// Which fields are strict (`!T`).
    pub strict: Vec<bool>,
}

impl ConFields {
    pub fn arity(&self) -> usize {
        self.strict.len()
    }
    pub fn position(&self, label: &Sym) -> Option<usize> {
        self.labels.iter().position(|l| l == label)
    }
}

/// The labels of a type, each once, in order of first appearance.
pub fn labels_of(data: &DataDecl) -> Vec<Ident> {
    let mut out: Vec<Ident> = Vec::new();
    for c in &data.constrs {
        for l in c.labels.iter().flatten() {
            if !out.iter().any(|o| o.name == l.name) {
                out.push(l.clone());
            }
        }
    }
    out
}

fn lib(name: &str, span: Span) -> QName {
    QName {
        qual: Some(Sym::from("Prelude")),
        name: Sym::from(name),
        span,
    }
}

/// `Prelude.errorWithoutStackTrace "message"`: GHC's record errors carry no
/// call stack.
pub fn failure(message: String, span: Span) -> Expr {
    Expr::App(
        Box::new(Expr::Var(lib("errorWithoutStackTrace", span))),
        Box::new(Expr::Lit(Literal::Str(Sym::from(message)), span)),
        span,
    )
}

fn plain(body: Expr, span: Span) -> Rhs {
    Rhs {
        body: RhsBody::Plain(body),
        wheres: Vec::new(),
        span,
    }
}

fn local(name: &str, span: Span) -> QName {
    QName::unqual(Sym::from(name), span)
}

/// The selector functions of a (renamed) data declaration of `module`.
pub fn selectors(data: &DataDecl, module: &Sym) -> Vec<Decl> {
    let mut decls = Vec::new();
    for label in labels_of(data) {
        // A field whose type is hidden by an existential constructor has
        // no selector function (its type would escape), as in GHC; it can
        // still be given and matched by name.
        let escapes = data.constrs.iter().any(|c| {
            c.labels
                .iter()
                .flatten()
                .zip(&c.fields)
                .any(|(l, f)| l.name == label.name && c.hides(f))
        });
        if escapes {
            continue;
        }
        let span = label.span;
        let clause = |args: Vec<Pat>, body: Expr| Decl::FunClause {
            name: label.clone(),
            args,
            rhs: plain(body, span),
            span,
        };
        let mut partial = false;
        for c in &data.constrs {
            let at = c
                .labels
                .as_ref()
                .and_then(|ls| ls.iter().position(|l| l.name == label.name));
            let Some(at) = at else {
                partial = true;
                continue;
            };
            let args = (0..c.fields.len())
                .map(|i| {
                    if i == at {
                        Pat::Var(Ident {
                            name: Sym::from("x"),
                            span,
                        })
                    } else {
                        Pat::Wildcard(span)
                    }
                })
                .collect();
            let con = QName {
                qual: Some(module.clone()),
                name: c.name.name.clone(),
                span,
            };
            decls.push(clause(
                vec![Pat::Con(con, args, span)],
                Expr::Var(local("x", span)),
            ));
        }
        if partial {
            let msg = format!("No match in record selector {}", label.name);
            decls.push(clause(vec![Pat::Wildcard(span)], failure(msg, span)));
        }
    }
    decls
}

/// `C e1 .. en` from the fields given (position → expression); a missing
/// lazy field fails when demanded. The caller has checked strict fields.
/// `at` is the construction's location, which GHC's message names.
pub fn construct(
    con: QName,
    info: &ConFields,
    mut given: Vec<Option<Expr>>,
    at: &str,
    span: Span,
) -> Expr {
    given.resize_with(info.arity(), || None);
    given
        .into_iter()
        .enumerate()
        .fold(Expr::Con(con), |f, (i, e)| {
            let arg = e.unwrap_or_else(|| {
                let what = info
                    .labels
                    .get(i)
                    .map_or_else(String::new, |l| format!(" {l}"));
                failure(
                    format!("{at}: Missing field in record construction{what}"),
                    span,
                )
            });
            Expr::App(Box::new(f), Box::new(arg), span)
        })
}

/// The `case` of an update: `cons` are the constructors that have every
/// updated field (with their field information), `updates` the fields'
/// new values by label, `total` whether every constructor of the type is
/// among `cons`.
pub fn update(
    scrutinee: Expr,
    cons: &[(QName, &ConFields)],
    updates: &[(Sym, Expr)],
    total: bool,
    at: &str,
    span: Span,
) -> Expr {
    let mut alts = Vec::new();
    for (con, info) in cons {
        let vars: Vec<String> = (1..=info.arity()).map(|i| format!("field${i}")).collect();
        let pat = Pat::Con(
            con.clone(),
            vars.iter()
                .map(|v| {
                    Pat::Var(Ident {
                        name: Sym::from(v.as_str()),
                        span,
                    })
                })
                .collect(),
            span,
        );
        let args = vars.iter().enumerate().map(|(i, v)| {
            let new = info
                .labels
                .get(i)
                .and_then(|l| updates.iter().find(|(u, _)| u == l));
            match new {
                Some((_, e)) => e.clone(),
                None => Expr::Var(local(v, span)),
            }
        });
        let body = args.fold(Expr::Con(con.clone()), |f, a| {
            Expr::App(Box::new(f), Box::new(a), span)
        });
        alts.push(Alt {
            pat,
            rhs: plain(body, span),
            span,
        });
    }
    if !total {
        alts.push(Alt {
            pat: Pat::Wildcard(span),
            rhs: plain(
                failure(
                    format!("{at}: Non-exhaustive patterns in record update"),
                    span,
                ),
                span,
            ),
            span,
        });
    }
    Expr::Case(Box::new(scrutinee), alts, span)
}

/// `C _ .. p .. _` from the fields' patterns (position → pattern).
pub fn pattern(con: QName, info: &ConFields, mut given: Vec<Option<Pat>>, span: Span) -> Pat {
    given.resize_with(info.arity(), || None);
    let args = given
        .into_iter()
        .map(|p| p.unwrap_or(Pat::Wildcard(span)))
        .collect();
    Pat::Con(con, args, span)
}
