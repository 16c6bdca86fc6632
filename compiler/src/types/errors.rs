//! Diagnostics of the type checker, in the user's terms: "expected `Int`,
//! found `[Char]`", with the offending sub-expression underlined and the
//! context ("the 2nd argument of `f`") as its label.

use super::pretty::{Namer, Printer};
use super::tc::Tc;
use super::ty::*;
use gph_syntax::{Diagnostic, Span};

/// Where an expected type comes from, for the label of a mismatch.
#[derive(Clone, Debug)]
pub enum Ctx {
    Plain,
    /// The n-th (1-based) argument of a function (its name as the user
    /// would write it, e.g. `f` or `(++)`, when known).
    Arg(Option<String>, usize),
    Cond,
    Guard,
    Generator,
    Stmt,
    ListElem,
    Branch,
    Annotation,
    Pattern,
    Equation(String),
}

pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

pub fn count(n: usize, what: &str) -> String {
    match n {
        0 => format!("no {what}s"),
        1 => format!("1 {what}"),
        _ => format!("{n} {what}s"),
    }
}

impl Ctx {
    fn label(&self) -> Option<String> {
        Some(match self {
            Ctx::Plain => return None,
            Ctx::Arg(Some(f), n) => format!("the {} argument of `{f}`", ordinal(*n)),
            Ctx::Arg(None, n) => format!("the {} argument of this function", ordinal(*n)),
            Ctx::Cond => "the condition of `if` must be a `Bool`".into(),
            Ctx::Guard => "a guard must be a `Bool`".into(),
            Ctx::Generator => "a generator draws from a list".into(),
            Ctx::Stmt => "a statement of this `do` block".into(),
            Ctx::ListElem => "an element of this list".into(),
            Ctx::Branch => "this branch".into(),
            Ctx::Annotation => "the annotated expression".into(),
            Ctx::Pattern => "this pattern".into(),
            Ctx::Equation(f) => format!("the equation for `{f}`"),
        })
    }
}

impl Tc {
    pub fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// `show` with a printer whose type variables are named for `t`.
    pub fn print_for<R>(&mut self, t: &Type, show: impl FnOnce(&mut Printer) -> R) -> R {
        let mut namer = Namer::new();
        namer.reserve(&mut self.table, t);
        show(&mut Printer {
            env: &self.env,
            table: &mut self.table,
            namer: &mut namer,
        })
    }

    pub fn show_type(&mut self, t: &Type) -> String {
        self.print_for(t, |p| p.ty(t))
    }

    pub fn show_pred(&mut self, class: ClassId, t: &Type) -> String {
        let pred = Pred {
            class,
            ty: t.clone(),
        };
        self.print_for(t, |p| p.pred(&pred))
    }

    /// Unifies the type the context demands with the one the expression at
    /// `span` has; reports a mismatch there. Returns whether it worked.
    pub fn expect(&mut self, expected: &Type, found: &Type, span: Span, ctx: &Ctx) -> bool {
        self.table.deferring = true;
        let r = self.table.unify(expected, found);
        self.table.deferring = false;
        for (var, ty) in std::mem::take(&mut self.table.deferred) {
            self.deferred_eqs.push(super::tc::DeferredEq {
                var,
                ty,
                expected: expected.clone(),
                found: found.clone(),
                span,
                ctx: ctx.clone(),
            });
        }
        match r {
            Ok(()) => true,
            Err(e) => {
                self.report_unify(e, expected, found, span, ctx);
                false
            }
        }
    }

    /// At the end of a binding (the level is back to `outer`): solves the
    /// equations deferred since `start`, except those on variables that are
    /// still unknown and belong further out, which stay for later.
    pub fn settle_deferred(&mut self, start: usize, outer: u32) {
        if start >= self.deferred_eqs.len() {
            return;
        }
        let mine = self.deferred_eqs.split_off(start);
        for d in mine {
            let v = self.table.prune(&Type::var(d.var));
            // It may wait only if both sides belong further out: a side
            // with this binding's variables must be solved before they are
            // generalised (`g o n = let m = o + n in m == q` defers `n ~ o`,
            // then binds `o` to the outer `q`'s type; `n` is still inner).
            if let Ty::Var(x) = v.ty() {
                if self.table.vars[*x as usize].level <= outer && self.table.closed(&d.ty, outer) {
                    self.deferred_eqs.push(d);
                    continue;
                }
            }
            if let Err(e) = self.table.unify(&v, &d.ty) {
                self.report_unify(e, &d.expected, &d.found, d.span, &d.ctx);
            }
        }
    }

    pub fn report_unify(
        &mut self,
        err: UnifyError,
        expected: &Type,
        found: &Type,
        span: Span,
        ctx: &Ctx,
    ) {
        let mut namer = Namer::new();
        namer.reserve(&mut self.table, expected);
        namer.reserve(&mut self.table, found);
        let mut p = Printer {
            env: &self.env,
            table: &mut self.table,
            namer: &mut namer,
        };
        let exp_s = p.ty(expected);
        let found_s = p.ty(found);
        let mut d;
        match &err {
            UnifyError::Occurs(v, t) => {
                let vs = p.ty(v);
                let ts = p.ty(t);
                d = Diagnostic::error(
                    span,
                    format!("cannot construct the infinite type `{vs} ~ {ts}`"),
                )
                .with_label(
                    ctx.label()
                        .unwrap_or_else(|| format!("expected `{exp_s}`, found `{found_s}`")),
                );
                d = d.with_help(format!("expected `{exp_s}`, found `{found_s}`"));
            }
            UnifyError::Mismatch(a, b) => {
                let whole = saturated(p.table, p.env, a) && saturated(p.table, p.env, b);
                let a_s = p.ty(a);
                let b_s = p.ty(b);
                d = Diagnostic::error(span, format!("expected `{exp_s}`, found `{found_s}`"));
                if let Some(l) = ctx.label() {
                    d = d.with_label(l);
                }
                if let Some(help) = foldable_help(&a_s, &b_s, ctx.label().as_deref()) {
                    d = d.with_help(help);
                } else if whole && (a_s != exp_s || b_s != found_s) && a_s != b_s {
                    d = d.with_help(format!("couldn't match `{a_s}` with `{b_s}`"));
                }
            }
            UnifyError::Rigid(s, t) => {
                let sk = Type::new(Ty::Skol(*s));
                let sk_s = p.ty(&sk);
                let t_s = p.ty(t);
                d = Diagnostic::error(span, format!("expected `{exp_s}`, found `{found_s}`"));
                if let Some(l) = ctx.label() {
                    d = d.with_label(l);
                }
                let owner = self
                    .table
                    .skolems
                    .get(*s as usize)
                    .and_then(|i| i.owner.clone());
                let bound = owner_phrase(owner.as_ref().map(|(f, _)| &**f));
                // An existential constructor's hidden type (`open_existential`).
                let hidden = owner
                    .as_ref()
                    .is_some_and(|(f, _)| f.starts_with("the pattern of"));
                let stands = if hidden {
                    "it stands for the type the value hides, known only inside that match"
                } else {
                    "it stands for any type the caller chooses"
                };
                d = d.with_help(format!(
                    "couldn't match `{sk_s}` with `{t_s}`: `{sk_s}` is a rigid type variable bound by {bound}; \
                     {stands}"
                ));
                if let Some((_, sp)) = owner {
                    if sp != Span::default() {
                        d = d.with_secondary(sp, format!("`{sk_s}` is bound here"));
                    }
                }
            }
        }
        self.error(d);
    }
}

/// Formats the name of a function for messages: `f`, or `(++)` for an operator.
pub fn fun_name(name: &str) -> String {
    if gph_syntax::ast::is_operator_name(name) {
        format!("({name})")
    } else {
        name.to_string()
    }
}

/// "the type signature for `f`", or the phrase itself when the owner is
/// not a binding ("the instance declaration", "the annotation").
pub fn owner_phrase(owner: Option<&str>) -> String {
    match owner {
        Some(o) if o.starts_with("the ") => o.to_string(),
        Some(o) => format!("the type signature for `{}`", fun_name(o)),
        None => "the type signature".to_string(),
    }
}

/// Whether a type reads well on its own in a message (not a partially
/// applied tuple or function type such as `(,,) c`).
fn saturated(table: &mut TypeTable, env: &super::env::Env, t: &Type) -> bool {
    let (h, args) = table.spine(t);
    match h.ty() {
        Ty::Con(c) => {
            let info = env.tycon(*c);
            let syntax = info.name.name.starts_with("(,") || &*info.name.name == "->";
            !syntax || args.len() >= info.arity
        }
        _ => true,
    }
}

/// The Foldable and Traversable functions, whose argument is a container
/// `t a` (docs/language.md).
const FOLDABLE: &[&str] = &[
    "length",
    "sum",
    "product",
    "elem",
    "notElem",
    "foldr",
    "foldl",
    "foldr'",
    "foldl'",
    "foldr1",
    "foldl1",
    "maximum",
    "minimum",
    "null",
    "toList",
    "mapM_",
    "forM_",
    "sequence_",
    "traverse_",
    "for_",
    "sequenceA_",
    "concat",
    "concatMap",
    "and",
    "or",
    "any",
    "all",
    "find",
    "maximumBy",
    "minimumBy",
    "foldMap",
    "fold",
    "foldM",
    "mapM",
    "forM",
    "traverse",
    "sequence",
    "sequenceA",
    "for",
    "asum",
    "msum",
];

/// The help for a Foldable function applied to something that is not a
/// container (`length 5`, `sum (T 3)`): the message alone says only that
/// `t a` was expected.
fn foldable_help(a: &str, b: &str, label: Option<&str>) -> Option<String> {
    let is_container =
        |t: &str| t.starts_with(|c: char| c.is_lowercase()) && t.contains(' ') && !t.contains("->");
    let other = if is_container(a) {
        b
    } else if is_container(b) {
        a
    } else {
        return None;
    };
    let f = FOLDABLE
        .iter()
        .find(|f| label.is_some_and(|l| l.contains(&format!("`{f}`"))))?;
    Some(format!(
        "`{f}` takes a container of elements (a list, Maybe, Map, Set, Array, ...: a type \
         with a Foldable instance), and `{other}` is not one"
    ))
}
