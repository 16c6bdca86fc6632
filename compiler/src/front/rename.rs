//! The renamer: resolves every name to the entity it refers to, checks
//! scopes, and resolves operator chains by fixity.
//!
//! Output conventions (what the type checker relies on):
//! * a reference to a top-level entity becomes `QName { qual: Some(M), name }`
//!   where `M` is the module that defines it (its *original name*);
//! * built-in syntax keeps `qual: None`: `[]`, `:`, `()`, tuples `(,)`..., `->`;
//! * a local variable keeps `qual: None` and its name (lexical scoping);
//! * operator chains become `Expr::BinOp`/`Expr::Neg`/`Pat::Con`;
//! * the clauses of one function are adjacent.

use crate::front::fixity::{self, Fixity};
use crate::front::modules::{imports_of, module_name, Loaded};
use crate::front::records::{self, ConFields};
use gph_syntax::ast::*;
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, SourceMap, Span};
use std::collections::{HashMap, HashSet};

/// A renamed program: every module, in dependency order (imports first).
pub struct Program {
    pub sources: SourceMap,
    pub modules: Vec<Module>,
    /// The name of the main module (the last one).
    pub main: Sym,
    /// What is in scope in the main module, for the REPL's `:info`.
    pub main_scope: Scope,
}

/// The names in scope in a module: what each may refer to, as (defining
/// module, name); and every operator's declared fixity.
#[derive(Default, Clone)]
pub struct Scope {
    values: NameTable,
    types: NameTable,
    fixities: HashMap<(Sym, Sym), Fixity>,
}

/// (qualifier, name) -> the (module, name) entities it may refer to.
type NameTable = HashMap<(Option<Sym>, Sym), Vec<(Sym, Sym)>>;

impl Scope {
    /// What `name` (possibly qualified, `M.x`) may refer to: values, then
    /// types and classes.
    pub fn resolve(&self, name: &str) -> (Vec<Orig>, Vec<Orig>) {
        let key = match split_qualified(name) {
            Some((q, n)) => (Some(Sym::from(q)), Sym::from(n)),
            None => (None, Sym::from(name)),
        };
        let get = |m: &NameTable| m.get(&key).cloned().unwrap_or_default();
        (get(&self.values), get(&self.types))
    }

    /// Whether a type or class can be named here, qualified or not.
    pub fn type_in_scope(&self, orig: &Orig) -> bool {
        self.types.values().any(|os| os.contains(orig))
    }

    /// The declared fixity of an operator (by its original name).
    pub fn fixity(&self, orig: &Orig) -> Option<Fixity> {
        self.fixities.get(orig).copied()
    }
}

/// `Data.Map.insert` as (`Data.Map`, `insert`); `.`, `Prelude..` too.
fn split_qualified(name: &str) -> Option<(&str, &str)> {
    let (q, n) = gph_code::split_qual(name);
    q.strip_suffix('.').map(|q| (q, n))
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Ns {
    Value,
    Type,
}

/// The original name of a top-level entity: defining module and name.
pub type Orig = (Sym, Sym);

#[derive(Default, Clone)]
struct Interface {
    values: HashMap<Sym, Orig>,
    /// Types and classes, with the subordinate names (constructors or methods) exported with them.
    types: HashMap<Sym, (Orig, Vec<Sym>)>,
}

/// What the renamer knows about entities of all modules processed so far.
#[derive(Default)]
struct Globals {
    interfaces: HashMap<Sym, Interface>,
    fixities: HashMap<Orig, Fixity>,
    /// Constructors of a type, methods of a class.
    subs: HashMap<Orig, Vec<Sym>>,
    classes: HashSet<Orig>,
    /// The classes whose last parameter is a type constructor (applied to
    /// arguments in a method's type, or constrained by such a class):
    /// a newtype derives them through its type less its last parameter.
    constructor_classes: HashSet<Orig>,
    /// Every data constructor's fields, for record syntax.
    records: HashMap<Orig, ConFields>,
    /// The constructors of each data type, in order.
    type_cons: HashMap<Orig, Vec<Orig>>,
    /// The type each field label belongs to.
    fields: HashMap<Orig, Orig>,
}

fn is_builtin(name: &str) -> bool {
    matches!(name, "[]" | ":" | "()" | "->")
        || (name.starts_with("(,") && name.ends_with(')'))
        || gph_syntax::ast::is_multi_param_name(name)
}

/// Whether the type applies the variable to an argument somewhere (`m a`).
fn applies_var(t: &Type, v: &Sym) -> bool {
    match t {
        Type::App(f, a, _) => {
            let mut h = &**f;
            while let Type::App(g, _, _) = h {
                h = g;
            }
            matches!(h, Type::Var(x) if &x.name == v) || applies_var(f, v) || applies_var(a, v)
        }
        Type::Fun(a, b, _) => applies_var(a, v) || applies_var(b, v),
        Type::List(a, _) | Type::Bang(a, _) => applies_var(a, v),
        Type::Tuple(ts, _) => ts.iter().any(|t| applies_var(t, v)),
        Type::Forall(q) => applies_var(&q.ty, v),
        _ => false,
    }
}

/// Edit distance, for "did you mean" suggestions.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

struct Renamer<'g> {
    g: &'g mut Globals,
    /// For the locations in run-time error messages (records).
    sources: &'g SourceMap,
    module: Sym,
    /// (namespace, qualifier, name) → the entities it may refer to.
    scope: HashMap<(Ns, Option<Sym>, Sym), Vec<Orig>>,
    locals: Vec<HashMap<Sym, Span>>,
    /// How many scopes of `locals` bind each name: a look through every
    /// scope was quadratic in a `do` block of 10,000 statements (8 s).
    local_names: HashMap<Sym, usize>,
    local_fixities: Vec<HashMap<Sym, Fixity>>,
    diags: Vec<Diagnostic>,
    /// Instances generated by `deriving` clauses, added after the declarations.
    derived: Vec<Decl>,
    /// The module's LANGUAGE extensions (how deriving clauses derive).
    extensions: Vec<Sym>,
}

/// Whether a pattern has a view pattern in it.
fn has_view(p: &Pat) -> bool {
    gph_syntax::stack::guard();
    match p {
        Pat::View(..) => true,
        Pat::Var(_) | Pat::Wildcard(_) | Pat::Lit(..) | Pat::NegLit(..) => false,
        Pat::Con(_, ps, _) | Pat::Tuple(ps, _) | Pat::List(ps, _) => ps.iter().any(has_view),
        Pat::OpChain(items, _) => items
            .iter()
            .any(|i| matches!(i, ChainItem::Operand(p) if has_view(p))),
        Pat::As(_, p, _)
        | Pat::Lazy(p, _)
        | Pat::Bang(p, _)
        | Pat::Paren(p, _)
        | Pat::Typed(p, _, _) => has_view(p),
        Pat::Record(_, fs, _, _) => fs.iter().any(|(_, p)| has_view(p)),
    }
}

/// Variables bound by a pattern, in order.
fn binders(p: &Pat, out: &mut Vec<Ident>) {
    binders_with(p, out, &mut |_, _, _| Vec::new())
}

/// What a record pattern's `..` binds: given the constructor, the fields
/// named and the `..`'s place.
type WildcardFields<'a> = dyn FnMut(&QName, &[(QName, Pat)], Span) -> Vec<Ident> + 'a;

/// The variables a pattern binds; `wildcard` names those a record
/// pattern's `..` binds (the constructor's other fields), which take the
/// renamer to know.
fn binders_with(p: &Pat, out: &mut Vec<Ident>, wildcard: &mut WildcardFields) {
    gph_syntax::stack::guard();
    let mut binders = |p: &Pat, out: &mut Vec<Ident>| binders_with(p, out, wildcard);
    match p {
        Pat::Var(i) => out.push(i.clone()),
        Pat::Wildcard(_) | Pat::Lit(..) | Pat::NegLit(..) => {}
        Pat::Con(_, ps, _) | Pat::Tuple(ps, _) | Pat::List(ps, _) => {
            ps.iter().for_each(|p| binders(p, out))
        }
        Pat::OpChain(items, _) => items.iter().for_each(|i| {
            if let ChainItem::Operand(p) = i {
                binders(p, out)
            }
        }),
        Pat::As(i, p, _) => {
            out.push(i.clone());
            binders(p, out)
        }
        Pat::Lazy(p, _)
        | Pat::Bang(p, _)
        | Pat::Paren(p, _)
        | Pat::Typed(p, _, _)
        | Pat::View(_, p, _) => binders(p, out),
        Pat::Record(c, fs, rest, _) => {
            fs.iter().for_each(|(_, p)| binders(p, out));
            if let Some(dots) = rest {
                out.extend(wildcard(c, fs, *dots))
            }
        }
    }
}

impl fixity::Operand for Expr {
    fn span(&self) -> Span {
        gph_syntax::stack::guard();
        Expr::span(self)
    }
    fn binary(op: QName, l: Expr, r: Expr) -> Expr {
        let s = l.span().to(r.span());
        Expr::BinOp(op, Box::new(l), Box::new(r), s)
    }
    fn negate(minus: Span, e: Expr) -> Result<Expr, Diagnostic> {
        let s = minus.to(e.span());
        Ok(Expr::Neg(Box::new(e), s))
    }
}

impl fixity::Operand for Pat {
    fn span(&self) -> Span {
        gph_syntax::stack::guard();
        Pat::span(self)
    }
    fn binary(op: QName, l: Pat, r: Pat) -> Pat {
        let s = l.span().to(r.span());
        Pat::Con(op, vec![l, r], s)
    }
    fn negate(minus: Span, _: Pat) -> Result<Pat, Diagnostic> {
        Err(Diagnostic::error(
            minus,
            "a `-` in a pattern must be followed by a numeric literal",
        ))
    }
}

/// A resolved chain of type operators: `l op r` is `op` applied to both.
impl fixity::Operand for Type {
    fn span(&self) -> Span {
        gph_syntax::stack::guard();
        Type::span(self)
    }
    fn binary(op: QName, l: Type, r: Type) -> Type {
        let s = l.span().to(r.span());
        let f = Type::App(Box::new(Type::Con(op)), Box::new(l), s);
        Type::App(Box::new(f), Box::new(r), s)
    }
    fn negate(minus: Span, _: Type) -> Result<Type, Diagnostic> {
        Err(Diagnostic::error(minus, "a `-` in a type"))
    }
}

impl Renamer<'_> {
    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn add_scope(&mut self, ns: Ns, qual: Option<Sym>, name: Sym, orig: Orig) {
        let entry = self.scope.entry((ns, qual, name)).or_default();
        if !entry.contains(&orig) {
            entry.push(orig);
        }
    }

    fn is_local(&self, name: &str) -> bool {
        self.local_names.contains_key(name)
    }

    fn suggest(&self, ns: Ns, q: &QName) -> Option<String> {
        let mut best: Option<(usize, String)> = None;
        let limit = (q.name.chars().count() / 3).clamp(1, 2);
        // An operator is never suggested for a name, nor the other way.
        let symbolic = |n: &str| n.starts_with(|c: char| !(c.is_alphanumeric() || c == '_'));
        let mut consider = |cand: &str| {
            if cand == &*q.name || symbolic(cand) != symbolic(&q.name) {
                return;
            }
            let d = distance(&q.name, cand);
            if d <= limit
                && best
                    .as_ref()
                    .is_none_or(|(bd, bn)| d < *bd || (d == *bd && cand < bn.as_str()))
            {
                best = Some((d, cand.to_string()));
            }
        };
        if ns == Ns::Value && q.qual.is_none() {
            for s in &self.locals {
                s.keys().for_each(|k| consider(k));
            }
        }
        for (n, qual, name) in self.scope.keys() {
            if *n == ns && *qual == q.qual {
                consider(name);
            }
        }
        best.map(|(_, n)| match &q.qual {
            Some(m) => format!("{m}.{n}"),
            None => n,
        })
    }

    /// Resolves a reference to a value (variable or constructor).
    fn value(&mut self, q: QName) -> QName {
        if q.qual.is_none() && (is_builtin(&q.name) || (!q.is_con() && self.is_local(&q.name))) {
            return q;
        }
        self.global(Ns::Value, q)
    }

    fn global(&mut self, ns: Ns, q: QName) -> QName {
        if ns == Ns::Type && q.qual.is_none() && is_builtin(&q.name) {
            return q;
        }
        let key = (ns, q.qual.clone(), q.name.clone());
        match self.scope.get(&key).map(Vec::as_slice) {
            Some([orig]) => QName {
                qual: Some(orig.0.clone()),
                name: orig.1.clone(),
                span: q.span,
            },
            Some(many) if many.len() > 1 => {
                let list = many
                    .iter()
                    .map(|(m, n)| format!("`{m}.{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let first = many[0].clone();
                self.err(
                    Diagnostic::error(q.span, format!("ambiguous occurrence `{q}`"))
                        .with_label(format!("it could refer to {list}"))
                        .with_help("qualify the name, or hide one of them in an import"),
                );
                QName {
                    qual: Some(first.0),
                    name: first.1,
                    span: q.span,
                }
            }
            _ => {
                let what = match ns {
                    Ns::Type if q.name.starts_with(char::is_uppercase) => "type or class",
                    Ns::Type => "type",
                    Ns::Value if q.is_con() => "data constructor",
                    Ns::Value => "variable",
                };
                let mut d = Diagnostic::error(q.span, format!("{what} `{q}` is not in scope"))
                    .with_label("not in scope");
                if ns == Ns::Value && matches!(&*q.name, "Empty" | ":<|" | ":|>") {
                    // containers' pattern synonyms: gph has no PatternSynonyms.
                    d = d.with_help(
                        "Data.Sequence's pattern synonyms `Empty`, `:<|` and `:|>` are not in \
                         gph (it has no pattern synonyms): match on `Seq.viewl s` (`EmptyL`, \
                         `x :< rest`) or `Seq.viewr s` (`EmptyR`, `rest :> x`)",
                    );
                } else if let Some(s) = self.suggest(ns, &q) {
                    d = d.with_help(format!("did you mean `{s}`?"));
                } else if let Some(m) = &q.qual {
                    if !self.scope.keys().any(|(_, qq, _)| qq.as_ref() == Some(m)) {
                        d = d.with_help(format!(
                            "no module named `{m}` is imported (add `import qualified {m}`?)"
                        ));
                    }
                }
                self.err(d);
                q
            }
        }
    }

    fn fixity_of(&self, q: &QName) -> Fixity {
        match &q.qual {
            None if &*q.name == ":" => Fixity {
                assoc: Assoc::Right,
                prec: 5,
            },
            None => {
                for fs in self.local_fixities.iter().rev() {
                    if let Some(f) = fs.get(&q.name) {
                        return *f;
                    }
                }
                Fixity::DEFAULT
            }
            Some(m) => self
                .g
                .fixities
                .get(&(m.clone(), q.name.clone()))
                .copied()
                .unwrap_or(Fixity::DEFAULT),
        }
    }

    // ------------------------------------------------------------ types

    fn ty(&mut self, t: Type) -> Type {
        gph_syntax::stack::guard();
        match t {
            Type::Var(_) => t,
            Type::Con(q) => Type::Con(self.global(Ns::Type, q)),
            Type::App(f, t, s)
                if gph_syntax::parse::is_internal_con(&f, gph_syntax::parse::LAZY_MARK) =>
            {
                self.err(Diagnostic::error(
                    s,
                    "a laziness mark `~` is only allowed on a constructor field",
                ));
                self.ty(*t)
            }
            // Type operators (TypeOperators), resolved by their fixities
            // (a fixity declaration is the type's and the constructor's).
            Type::App(f, a, s)
                if gph_syntax::parse::is_internal_con(&f, gph_syntax::parse::TYPE_CHAIN) =>
            {
                let Type::Tuple(items, _) = *a else {
                    return Type::Con(QName::unqual(Sym::from("()"), s));
                };
                let items: Vec<ChainItem<Type>> = items
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| match t {
                        Type::Con(op) if i % 2 == 1 => ChainItem::Op(self.global(Ns::Type, op)),
                        t => ChainItem::Operand(self.ty(t)),
                    })
                    .collect();
                match fixity::resolve(items, &|q| self.fixity_of(q)) {
                    Ok(t) => t,
                    Err(d) => {
                        self.err(d);
                        Type::Con(QName::unqual(Sym::from("()"), s))
                    }
                }
            }
            Type::App(f, a, s) => Type::App(Box::new(self.ty(*f)), Box::new(self.ty(*a)), s),
            Type::Fun(a, b, s) => Type::Fun(Box::new(self.ty(*a)), Box::new(self.ty(*b)), s),
            Type::List(t, s) => Type::List(Box::new(self.ty(*t)), s),
            Type::Tuple(ts, s) => Type::Tuple(ts.into_iter().map(|t| self.ty(t)).collect(), s),
            Type::Forall(q) => Type::Forall(Box::new(self.qual_type(*q))),
            Type::Bang(t, s) => {
                self.err(Diagnostic::error(
                    s,
                    "a strictness mark `!` is only allowed on a constructor field",
                ));
                self.ty(*t)
            }
        }
    }

    /// Records which of the module's classes are over type constructors
    /// (GHC knows from kinds; the renamer, before kinds, from how the
    /// last parameter is used), for newtype deriving.
    fn note_constructor_classes(&mut self, decls: &[Decl]) {
        let classes: Vec<&ClassDecl> = decls
            .iter()
            .filter_map(|d| match d {
                Decl::Class(c) => Some(c),
                _ => None,
            })
            .collect();
        // Superclasses may come later in the module: repeat to a fixpoint.
        loop {
            let mut changed = false;
            for c in &classes {
                let orig: Orig = (self.module.clone(), c.name.name.clone());
                if self.g.constructor_classes.contains(&orig) {
                    continue;
                }
                let last = &c.params().last().expect("a class has a parameter").name;
                let applied = c.decls.iter().any(|d| match d {
                    Decl::Sig { ty, .. } => applies_var(&ty.ty, last),
                    _ => false,
                });
                let by_super = c.context.iter().any(|p| {
                    matches!(constraint_args(&p.ty).last(), Some(Type::Var(v)) if &v.name == last)
                        && self
                            .scope
                            .get(&(Ns::Type, p.class.qual.clone(), p.class.name.clone()))
                            .is_some_and(|os| {
                                os.len() == 1 && self.g.constructor_classes.contains(&os[0])
                            })
                });
                if applied || by_super {
                    self.g.constructor_classes.insert(orig);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn preds(&mut self, ps: Vec<Pred>) -> Vec<Pred> {
        ps.into_iter()
            .map(|p| Pred {
                class: self.global(Ns::Type, p.class),
                ty: self.ty(p.ty),
                span: p.span,
            })
            .collect()
    }

    fn qual_type(&mut self, q: QualType) -> QualType {
        QualType {
            forall: q.forall,
            context: self.preds(q.context),
            ty: self.ty(q.ty),
            span: q.span,
        }
    }

    // ------------------------------------------------------------ patterns

    fn pat(&mut self, p: Pat) -> Pat {
        gph_syntax::stack::guard();
        match p {
            Pat::Var(_) | Pat::Wildcard(_) | Pat::Lit(..) | Pat::NegLit(..) => p,
            Pat::Con(q, ps, s) => {
                let q = self.value(q);
                Pat::Con(q, ps.into_iter().map(|p| self.pat(p)).collect(), s)
            }
            Pat::OpChain(items, s) => {
                let items = items
                    .into_iter()
                    .map(|i| match i {
                        ChainItem::Operand(p) => ChainItem::Operand(self.pat(p)),
                        ChainItem::Op(q) => ChainItem::Op(self.value(q)),
                        ChainItem::Neg(s) => ChainItem::Neg(s),
                    })
                    .collect();
                match fixity::resolve(items, &|q| self.fixity_of(q)) {
                    Ok(p) => p,
                    Err(d) => {
                        self.err(d);
                        Pat::Wildcard(s)
                    }
                }
            }
            Pat::Tuple(ps, s) => Pat::Tuple(ps.into_iter().map(|p| self.pat(p)).collect(), s),
            Pat::List(ps, s) => Pat::List(ps.into_iter().map(|p| self.pat(p)).collect(), s),
            Pat::As(i, p, s) => Pat::As(i, Box::new(self.pat(*p)), s),
            Pat::Lazy(p, s) => Pat::Lazy(Box::new(self.pat(*p)), s),
            Pat::Bang(p, s) => Pat::Bang(Box::new(self.pat(*p)), s),
            Pat::Paren(p, s) => Pat::Paren(Box::new(self.pat(*p)), s),
            // The function sees the scope around the pattern, and the
            // arguments left of it (`arg_pats`).
            Pat::View(f, p, s) => Pat::View(Box::new(self.expr(*f)), Box::new(self.pat(*p)), s),
            Pat::Typed(p, t, s) => {
                let t = self.qual_type(t);
                Pat::Typed(Box::new(self.pat(*p)), t, s)
            }
            Pat::Record(q, mut fs, rest, s) => {
                if let Some(dots) = rest {
                    let vars = self.wildcard_fields(&q, &fs, dots);
                    fs.extend(vars.into_iter().map(|v| (field_of(&v), Pat::Var(v))));
                }
                self.record_pat(q, fs, s)
            }
        }
    }

    /// A function's or lambda's argument patterns: a view pattern's function
    /// sees the variables of the arguments left of it (as in GHC:
    /// `f n (lookup n -> Just v)`).
    fn arg_pats(&mut self, ps: Vec<Pat>) -> Vec<Pat> {
        let mut out: Vec<Pat> = Vec::with_capacity(ps.len());
        for p in ps {
            if out.is_empty() || !has_view(&p) {
                out.push(self.pat(p));
                continue;
            }
            let mut left = Vec::new();
            out.iter().for_each(|q| binders(q, &mut left));
            let mut seen = HashSet::new();
            left.retain(|v| seen.insert(v.name.clone()));
            self.push_scope(left, "");
            out.push(self.pat(p));
            self.pop_scope();
        }
        out
    }

    /// Opens a scope binding the variables of these patterns; reports duplicates.
    fn bind_pats<'a>(&mut self, pats: impl IntoIterator<Item = &'a Pat>) {
        let mut vars = Vec::new();
        for p in pats {
            binders(p, &mut vars);
        }
        self.push_scope(vars, "in this pattern");
    }

    fn push_scope(&mut self, vars: Vec<Ident>, place: &str) {
        let mut scope: HashMap<Sym, Span> = HashMap::new();
        for v in vars {
            if let Some(first) = scope.get(&v.name) {
                self.err(
                    Diagnostic::error(v.span, format!("conflicting definitions for `{}`", v.name))
                        .with_label(format!("bound again {place}"))
                        .with_secondary(*first, "first bound here"),
                );
            } else {
                scope.insert(v.name.clone(), v.span);
            }
        }
        for name in scope.keys() {
            *self.local_names.entry(name.clone()).or_default() += 1;
        }
        self.locals.push(scope);
        self.local_fixities.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        if let Some(scope) = self.locals.pop() {
            for name in scope.keys() {
                if let Some(n) = self.local_names.get_mut(name) {
                    *n -= 1;
                    if *n == 0 {
                        self.local_names.remove(name);
                    }
                }
            }
        }
        self.local_fixities.pop();
    }

    // ------------------------------------------------------------ expressions

    fn expr(&mut self, e: Expr) -> Expr {
        gph_syntax::stack::guard();
        match e {
            Expr::Var(q) => Expr::Var(self.value(q)),
            Expr::Con(q) => Expr::Con(self.value(q)),
            Expr::Lit(..) => e,
            Expr::App(f, a, s) => Expr::App(Box::new(self.expr(*f)), Box::new(self.expr(*a)), s),
            Expr::OpChain(items, s) => {
                let items = items
                    .into_iter()
                    .map(|i| match i {
                        ChainItem::Operand(e) => ChainItem::Operand(self.expr(e)),
                        ChainItem::Op(q) => ChainItem::Op(self.value(q)),
                        ChainItem::Neg(s) => ChainItem::Neg(s),
                    })
                    .collect();
                match fixity::resolve(items, &|q| self.fixity_of(q)) {
                    Ok(e) => e,
                    Err(d) => {
                        self.err(d);
                        Expr::Wildcard(s)
                    }
                }
            }
            Expr::BinOp(op, l, r, s) => {
                let op = self.value(op);
                Expr::BinOp(op, Box::new(self.expr(*l)), Box::new(self.expr(*r)), s)
            }
            Expr::Neg(e, s) => Expr::Neg(Box::new(self.expr(*e)), s),
            Expr::Lambda(ps, body, s) => {
                let ps = self.arg_pats(ps);
                self.bind_pats(&ps);
                let body = self.expr(*body);
                self.pop_scope();
                Expr::Lambda(ps, Box::new(body), s)
            }
            Expr::Let(ds, body, s) => {
                let ds = self.local_decls(ds);
                let body = self.expr(*body);
                self.pop_scope();
                Expr::Let(ds, Box::new(body), s)
            }
            Expr::If(c, t, f, s) => Expr::If(
                Box::new(self.expr(*c)),
                Box::new(self.expr(*t)),
                Box::new(self.expr(*f)),
                s,
            ),
            Expr::Case(scrut, alts, s) => {
                let scrut = self.expr(*scrut);
                let alts = alts
                    .into_iter()
                    .map(|a| {
                        let pat = self.pat(a.pat);
                        self.bind_pats([&pat]);
                        let rhs = self.rhs(a.rhs);
                        self.pop_scope();
                        Alt {
                            pat,
                            rhs,
                            span: a.span,
                        }
                    })
                    .collect();
                Expr::Case(Box::new(scrut), alts, s)
            }
            Expr::Do(stmts, s) => {
                let (stmts, depth) = self.stmts(stmts);
                (0..depth).for_each(|_| self.pop_scope());
                Expr::Do(stmts, s)
            }
            Expr::Tuple(es, s) => Expr::Tuple(es.into_iter().map(|e| self.expr(e)).collect(), s),
            Expr::List(es, s) => Expr::List(es.into_iter().map(|e| self.expr(e)).collect(), s),
            Expr::Range {
                from,
                then,
                to,
                span,
            } => Expr::Range {
                from: Box::new(self.expr(*from)),
                then: then.map(|e| Box::new(self.expr(*e))),
                to: to.map(|e| Box::new(self.expr(*e))),
                span,
            },
            Expr::Comprehension(head, quals, s) => {
                let (quals, depth) = self.stmts(quals);
                let head = self.expr(*head);
                (0..depth).for_each(|_| self.pop_scope());
                Expr::Comprehension(Box::new(head), quals, s)
            }
            Expr::LeftSection(e, op, s) => {
                let e = self.expr(*e);
                let op = self.value(op);
                self.check_section(&e, &op, true);
                Expr::LeftSection(Box::new(e), op, s)
            }
            Expr::RightSection(op, e, s) => {
                let op = self.value(op);
                let e = self.expr(*e);
                self.check_section(&e, &op, false);
                Expr::RightSection(op, Box::new(e), s)
            }
            Expr::Typed(e, t, s) => {
                let e = self.expr(*e);
                Expr::Typed(Box::new(e), self.qual_type(t), s)
            }
            Expr::TypeApp(e, t, s) => {
                let e = self.expr(*e);
                Expr::TypeApp(Box::new(e), t.map(|t| self.ty(t)), s)
            }
            Expr::Paren(e, s) => Expr::Paren(Box::new(self.expr(*e)), s),
            Expr::Wildcard(s) => {
                self.err(
                    Diagnostic::error(s, "`_` is not an expression")
                        .with_help("a wildcard can only be used in a pattern"),
                );
                e
            }
            Expr::As(_, _, s) => {
                self.err(Diagnostic::error(
                    s,
                    "an as-pattern `x@p` can only be used in a pattern",
                ));
                Expr::Wildcard(s)
            }
            Expr::Lazy(_, s) => {
                self.err(Diagnostic::error(
                    s,
                    "a lazy pattern `~p` can only be used in a pattern",
                ));
                Expr::Wildcard(s)
            }
            Expr::View(_, _, s) => {
                self.err(Diagnostic::error(
                    s,
                    "a view pattern `(f -> p)` can only be used in a pattern",
                ));
                Expr::Wildcard(s)
            }
            Expr::Bang(_, s) => {
                self.err(
                    Diagnostic::error(s, "a bang pattern `!p` can only be used in a pattern")
                        .with_help("`!` before a name or bracket, after a space, is a bang pattern (GHC 9.0's rule); write `a ! b` for the operator"),
                );
                Expr::Wildcard(s)
            }
            Expr::Record(e, mut fs, rest, s) => {
                match *e {
                    Expr::Con(q) => {
                        if let Some(dots) = rest {
                            // GHC's rule: a field not named is given the
                            // variable of its name when a local one is in scope.
                            let vars = self.wildcard_fields(&q, &fs, dots);
                            fs.extend(vars.into_iter().filter(|v| self.is_local(&v.name)).map(
                                |v| {
                                    let var = QName {
                                        qual: None,
                                        name: v.name.clone(),
                                        span: v.span,
                                    };
                                    (field_of(&v), Expr::Var(var))
                                },
                            ));
                        }
                        self.record_construction(q, fs, s)
                    }
                    e => {
                        if let Some(dots) = rest {
                            self.err(
                                Diagnostic::error(dots, "`..` cannot be used in a record update")
                                    .with_help("name the fields to update"),
                            );
                        }
                        self.record_update(e, fs, s)
                    }
                }
            }
        }
    }

    /// The fields of constructor `con` that a record's `..` stands for (those
    /// not named in `given`), as variables at the `..`; none when `con` is
    /// not a record constructor (reported where the record is renamed).
    fn wildcard_fields<T>(&mut self, con: &QName, given: &[(QName, T)], dots: Span) -> Vec<Ident> {
        let saved = self.diags.len();
        let (_, info) = self.record_con(con.clone());
        self.diags.truncate(saved);
        let Some(info) = info else {
            return Vec::new();
        };
        info.labels
            .iter()
            .filter(|l| !given.iter().any(|(f, _)| f.name == **l))
            .map(|l| Ident {
                name: l.clone(),
                span: dots,
            })
            .collect()
    }

    /// A field label in record syntax: a top-level name (locals do not
    /// hide fields); `None` if it is not in scope (reported).
    fn field_label(&mut self, q: QName) -> Option<Orig> {
        let r = self.global(Ns::Value, q);
        Some((r.qual?, r.name))
    }

    /// The constructor of a record construction or pattern, with its fields.
    fn record_con(&mut self, q: QName) -> (QName, Option<ConFields>) {
        let con = self.value(q);
        let info = con
            .qual
            .clone()
            .and_then(|m| self.g.records.get(&(m, con.name.clone())))
            .cloned();
        if info.is_none() && con.qual.is_none() {
            self.err(Diagnostic::error(
                con.span,
                format!(
                    "record syntax needs a constructor declared with `data`, not `{}`",
                    con.name
                ),
            ));
        }
        (con, info)
    }

    /// The positions of the fields named in `C { f = .. }` (construction or
    /// pattern), each with its renamed value; errors for a label that is
    /// not a field of `C` or is given twice.
    fn record_fields<T>(
        &mut self,
        con: &QName,
        info: &ConFields,
        fs: Vec<(QName, T)>,
        mut rename: impl FnMut(&mut Self, T) -> T,
    ) -> Vec<Option<T>> {
        let mut given: Vec<Option<T>> = (0..info.arity()).map(|_| None).collect();
        for (f, v) in fs {
            let v = rename(self, v);
            let span = f.span;
            let Some(label) = self.field_label(f) else {
                continue;
            };
            let at = (label.0 == info.ty.0)
                .then(|| info.position(&label.1))
                .flatten();
            match at {
                None => self.err(Diagnostic::error(
                    span,
                    format!(
                        "constructor `{}` does not have field `{}`",
                        con.name, label.1
                    ),
                )),
                Some(i) if given[i].is_some() => self.err(Diagnostic::error(
                    span,
                    format!("field `{}` is given twice", label.1),
                )),
                Some(i) => given[i] = Some(v),
            }
        }
        given
    }

    /// `C { f = e, .. }`: the constructor applied to its fields in order.
    fn record_construction(&mut self, q: QName, fs: Vec<(QName, Expr)>, s: Span) -> Expr {
        let (con, info) = self.record_con(q);
        let Some(info) = info else {
            fs.into_iter().for_each(|(_, e)| drop(self.expr(e)));
            return Expr::Wildcard(s);
        };
        let given = self.record_fields(&con, &info, fs, |r, e| r.expr(e));
        let missing: Vec<String> = (0..info.arity())
            .filter(|&i| info.strict[i] && given[i].is_none())
            .map(|i| match info.labels.get(i) {
                Some(l) => format!("`{l}`"),
                None => format!("field {}", i + 1),
            })
            .collect();
        if !missing.is_empty() {
            self.err(Diagnostic::error(
                s,
                format!(
                    "constructor `{}` does not have the required strict field(s): {}",
                    con.name,
                    missing.join(", ")
                ),
            ));
        }
        let at = self.sources.ghc_location(s);
        records::construct(con, &info, given, &at, s)
    }

    /// `e { f = x, .. }`: a case over the constructors that have every field.
    fn record_update(&mut self, e: Expr, fs: Vec<(QName, Expr)>, s: Span) -> Expr {
        let e = self.expr(e);
        if fs.is_empty() {
            self.err(Diagnostic::error(s, "empty record update"));
            return e;
        }
        let mut ty: Option<Orig> = None;
        let mut updates: Vec<(Sym, Expr)> = Vec::new();
        let mut ok = true;
        let mut mixed = false;
        for (f, v) in fs {
            let v = self.expr(v);
            let span = f.span;
            let Some(label) = self.field_label(f) else {
                ok = false;
                continue;
            };
            let Some(t) = self.g.fields.get(&label).cloned() else {
                self.err(Diagnostic::error(
                    span,
                    format!("`{}` is not a record field", label.1),
                ));
                ok = false;
                continue;
            };
            mixed |= ty.as_ref().is_some_and(|ty| *ty != t);
            if updates.iter().any(|(u, _)| *u == label.1) {
                self.err(Diagnostic::error(
                    span,
                    format!("field `{}` is given twice", label.1),
                ));
                ok = false;
            }
            ty = Some(t);
            updates.push((label.1, v));
        }
        let Some(ty) = ty.filter(|_| ok) else {
            return Expr::Wildcard(s);
        };
        let all = self.g.type_cons.get(&ty).cloned().unwrap_or_default();
        let cons: Vec<(QName, ConFields)> = all
            .iter()
            .filter_map(|c| {
                let info = self.g.records.get(c)?;
                updates
                    .iter()
                    .all(|(u, _)| info.position(u).is_some())
                    .then(|| {
                        (
                            QName {
                                qual: Some(c.0.clone()),
                                name: c.1.clone(),
                                span: s,
                            },
                            info.clone(),
                        )
                    })
            })
            .collect();
        if cons.is_empty() || mixed {
            let names: Vec<String> = updates.iter().map(|(u, _)| format!("`{u}`")).collect();
            self.err(Diagnostic::error(
                s,
                format!("no constructor has all these fields: {}", names.join(", ")),
            ));
            return Expr::Wildcard(s);
        }
        let refs: Vec<(QName, &ConFields)> = cons.iter().map(|(q, i)| (q.clone(), i)).collect();
        let at = self.sources.ghc_location(s);
        records::update(e, &refs, &updates, cons.len() == all.len(), &at, s)
    }

    /// `C { f = p, .. }`: the constructor pattern with wildcards elsewhere.
    fn record_pat(&mut self, q: QName, fs: Vec<(QName, Pat)>, s: Span) -> Pat {
        let (con, info) = self.record_con(q);
        let Some(info) = info else {
            return Pat::Wildcard(s);
        };
        let given = self.record_fields(&con, &info, fs, |r, p| r.pat(p));
        records::pattern(con, &info, given, s)
    }

    /// A section `(e op)` needs `e`'s own top operator to bind tighter (or to
    /// associate the same way); likewise `(op e)`.
    fn check_section(&mut self, e: &Expr, op: &QName, left: bool) {
        let f = self.fixity_of(op);
        let inner = match e {
            Expr::BinOp(o, ..) => Some((self.fixity_of(o), o.name.to_string())),
            Expr::Neg(..) => Some((Fixity::NEGATION, "-".to_string())),
            _ => None,
        };
        if let Some((fi, name)) = inner {
            let want = if left { Assoc::Left } else { Assoc::Right };
            let ok = fi.prec > f.prec || (fi.prec == f.prec && fi.assoc == want && f.assoc == want);
            if !ok {
                self.err(
                    Diagnostic::error(
                        e.span(),
                        format!(
                            "the operator `{}` of a section must bind more loosely than `{name}`",
                            op.name
                        ),
                    )
                    .with_help("add parentheses around the operand"),
                );
            }
        }
    }

    /// Statements of a `do` block or qualifiers of a comprehension: each binds
    /// for those after it. Returns how many scopes to pop afterwards.
    fn stmts(&mut self, stmts: Vec<Stmt>) -> (Vec<Stmt>, usize) {
        let mut depth = 0;
        let out = stmts
            .into_iter()
            .map(|s| match s {
                Stmt::Expr(e) => Stmt::Expr(self.expr(e)),
                Stmt::Bind(p, e, s) => {
                    let e = self.expr(e);
                    let p = self.pat(p);
                    self.bind_pats([&p]);
                    depth += 1;
                    Stmt::Bind(p, e, s)
                }
                Stmt::Let(ds, s) => {
                    let ds = self.local_decls(ds);
                    depth += 1;
                    Stmt::Let(ds, s)
                }
            })
            .collect();
        (out, depth)
    }

    fn rhs(&mut self, r: Rhs) -> Rhs {
        let wheres = self.local_decls(r.wheres);
        let body = match r.body {
            RhsBody::Plain(e) => RhsBody::Plain(self.expr(e)),
            RhsBody::Guarded(gs) => RhsBody::Guarded(
                gs.into_iter()
                    .map(|g| {
                        let (guards, depth) = self.stmts(g.guards);
                        let body = self.expr(g.body);
                        (0..depth).for_each(|_| self.pop_scope());
                        Guarded {
                            guards,
                            body,
                            span: g.span,
                        }
                    })
                    .collect(),
            ),
        };
        self.pop_scope();
        Rhs {
            body,
            wheres,
            span: r.span,
        }
    }

    // ------------------------------------------------------------ declarations

    /// Binders of a declaration group, checking that function clauses are
    /// adjacent and agree on their number of arguments.
    fn group_binders(&mut self, ds: &[Decl]) -> Vec<Ident> {
        let mut out: Vec<Ident> = Vec::new();
        let mut seen: HashMap<Sym, Span> = HashMap::new();
        let mut prev_fun: Option<(Sym, usize)> = None;
        for d in ds {
            match d {
                Decl::FunClause {
                    name, args, span, ..
                } => {
                    if let Some((p, arity)) = &prev_fun {
                        if *p == name.name {
                            if *arity != args.len() {
                                self.err(
                                    Diagnostic::error(*span, format!("equations for `{}` have different numbers of arguments", name.name))
                                        .with_secondary(seen[&name.name], "first equation here"),
                                );
                            }
                            continue;
                        }
                    }
                    prev_fun = Some((name.name.clone(), args.len()));
                    self.note_binder(&mut seen, &mut out, name.clone());
                }
                Decl::PatBind { pat, .. } => {
                    prev_fun = None;
                    let mut vs = Vec::new();
                    binders_with(pat, &mut vs, &mut |c, fs, dots| {
                        self.wildcard_fields(c, fs, dots)
                    });
                    for v in vs {
                        self.note_binder(&mut seen, &mut out, v);
                    }
                }
                Decl::Sig { .. } | Decl::Fixity { .. } => {}
                _ => prev_fun = None,
            }
        }
        out
    }

    fn note_binder(&mut self, seen: &mut HashMap<Sym, Span>, out: &mut Vec<Ident>, v: Ident) {
        if let Some(first) = seen.get(&v.name) {
            self.err(
                Diagnostic::error(v.span, format!("multiple declarations of `{}`", v.name))
                    .with_secondary(*first, "first declared here")
                    .with_help(
                        "the equations of a function must be written together, one after another",
                    ),
            );
        } else {
            seen.insert(v.name.clone(), v.span);
            out.push(v);
        }
    }

    /// Checks signatures and fixity declarations against the group's binders.
    fn check_sigs(
        &mut self,
        ds: &[Decl],
        bound: &HashSet<Sym>,
        fixities: &mut HashMap<Sym, Fixity>,
    ) {
        let mut sigs: HashMap<Sym, Span> = HashMap::new();
        for d in ds {
            match d {
                Decl::Sig { names, .. } => {
                    for n in names {
                        if !bound.contains(&n.name) {
                            self.err(
                                Diagnostic::error(
                                    n.span,
                                    format!(
                                        "the type signature for `{}` lacks an accompanying binding",
                                        n.name
                                    ),
                                )
                                .with_help(format!("define `{}` next to its signature", n.name)),
                            );
                        } else if let Some(first) = sigs.insert(n.name.clone(), n.span) {
                            self.err(
                                Diagnostic::error(
                                    n.span,
                                    format!("duplicate type signatures for `{}`", n.name),
                                )
                                .with_secondary(first, "first signature here"),
                            );
                        }
                    }
                }
                Decl::Fixity {
                    assoc, prec, ops, ..
                } => {
                    for o in ops {
                        if !bound.contains(&o.name) {
                            self.err(Diagnostic::error(
                                o.span,
                                format!(
                                    "the fixity declaration for `{}` lacks an accompanying binding",
                                    o.name
                                ),
                            ));
                        }
                        fixities.insert(
                            o.name.clone(),
                            Fixity {
                                assoc: *assoc,
                                prec: *prec,
                            },
                        );
                    }
                }
                _ => {}
            }
        }
    }

    /// A `let`/`where` group: opens a scope (the caller pops it) and renames.
    fn local_decls(&mut self, ds: Vec<Decl>) -> Vec<Decl> {
        let vars = self.group_binders(&ds);
        let bound: HashSet<Sym> = vars.iter().map(|v| v.name.clone()).collect();
        self.push_scope(vars, "in this group of definitions");
        let mut fx = HashMap::new();
        self.check_sigs(&ds, &bound, &mut fx);
        if let Some(top) = self.local_fixities.last_mut() {
            top.extend(fx);
        }
        ds.into_iter().filter_map(|d| self.value_decl(d)).collect()
    }

    /// Renames a value-level declaration (binding, signature, fixity).
    fn value_decl(&mut self, d: Decl) -> Option<Decl> {
        Some(match d {
            Decl::FunClause {
                name,
                args,
                rhs,
                span,
            } => {
                let args = self.arg_pats(args);
                self.bind_pats(&args);
                let rhs = self.rhs(rhs);
                self.pop_scope();
                Decl::FunClause {
                    name,
                    args,
                    rhs,
                    span,
                }
            }
            Decl::PatBind { pat, rhs, span } => {
                let pat = self.pat(pat);
                let rhs = self.rhs(rhs);
                Decl::PatBind { pat, rhs, span }
            }
            Decl::Sig { names, ty, span } => Decl::Sig {
                names,
                ty: self.qual_type(ty),
                span,
            },
            Decl::Fixity { .. } => d,
            other => {
                self.err(Diagnostic::error(
                    other.span(),
                    "this declaration is only allowed at the top level of a module",
                ));
                return None;
            }
        })
    }
}

/// The field label a variable of a record's `..` gives.
fn field_of(v: &Ident) -> QName {
    QName {
        qual: None,
        name: v.name.clone(),
        span: v.span,
    }
}

/// Top-level entities a module defines, before renaming its bodies.
struct Defined {
    values: Vec<Ident>,
    /// (type or class, its constructors or methods, is a class)
    types: Vec<(Ident, Vec<Ident>, bool)>,
}

fn collect_defined(r: &mut Renamer, m: &Module) -> Defined {
    let mut values = r.group_binders(&m.decls);
    let mut types = Vec::new();
    for d in &m.decls {
        match d {
            // A type's subordinate names: its constructors and field labels.
            Decl::Data(dd) => types.push((
                dd.name.clone(),
                dd.constrs
                    .iter()
                    .map(|c| c.name.clone())
                    .chain(records::labels_of(dd))
                    .collect(),
                false,
            )),
            Decl::TypeSyn { name, .. } => types.push((name.clone(), Vec::new(), false)),
            Decl::Class(c) => {
                let methods: Vec<Ident> = c
                    .decls
                    .iter()
                    .filter_map(|d| match d {
                        Decl::Sig { names, .. } => Some(names.clone()),
                        _ => None,
                    })
                    .flatten()
                    .collect();
                types.push((c.name.clone(), methods, true))
            }
            Decl::Foreign { name, .. } => values.push(name.clone()),
            _ => {}
        }
    }
    // Constructors and methods live in the value namespace too.
    for (_, subs, _) in &types {
        values.extend(subs.iter().cloned());
    }
    let mut seen: HashMap<Sym, Span> = HashMap::new();
    for v in &values {
        if let Some(first) = seen.insert(v.name.clone(), v.span) {
            r.err(
                Diagnostic::error(v.span, format!("multiple declarations of `{}`", v.name))
                    .with_secondary(first, "first declared here"),
            );
        }
    }
    let mut seen_t: HashMap<Sym, Span> = HashMap::new();
    for (t, _, _) in &types {
        if let Some(first) = seen_t.insert(t.name.clone(), t.span) {
            r.err(
                Diagnostic::error(t.span, format!("multiple declarations of `{}`", t.name))
                    .with_secondary(first, "first declared here"),
            );
        }
    }
    Defined { values, types }
}

/// Brings an import's entities into scope.
fn import(r: &mut Renamer, imp: &Import) {
    let Some(iface) = r.g.interfaces.get(&imp.module.name).cloned() else {
        return;
    };
    let qual = imp
        .alias
        .as_ref()
        .map_or(imp.module.name.clone(), |a| a.name.clone());
    let add = |r: &mut Renamer, ns: Ns, name: &Sym, orig: &Orig| {
        r.add_scope(ns, Some(qual.clone()), name.clone(), orig.clone());
        if !imp.qualified {
            r.add_scope(ns, None, name.clone(), orig.clone());
        }
    };
    match &imp.items {
        None => {
            for (n, o) in &iface.values {
                add(r, Ns::Value, n, o);
            }
            for (n, (o, _)) in &iface.types {
                add(r, Ns::Type, n, o);
            }
        }
        Some((false, items)) => {
            for item in items {
                match item {
                    Entity::Var(q) => match iface.values.get(&q.name) {
                        Some(o) if !q.is_con() => add(r, Ns::Value, &q.name, o),
                        _ => r.err(not_exported(&imp.module.name, q)),
                    },
                    Entity::Type(q, subs) => match iface.types.get(&q.name) {
                        Some((o, exported_subs)) => {
                            add(r, Ns::Type, &q.name, o);
                            let wanted: Vec<Ident> = match subs {
                                None => Vec::new(),
                                Some(SubItems::All) => exported_subs
                                    .iter()
                                    .map(|s| Ident {
                                        name: s.clone(),
                                        span: q.span,
                                    })
                                    .collect(),
                                Some(SubItems::Some(list)) => list.clone(),
                            };
                            for s in wanted {
                                match iface.values.get(&s.name) {
                                    Some(o) if exported_subs.contains(&s.name) => add(r, Ns::Value, &s.name, o),
                                    _ => r.err(
                                        Diagnostic::error(s.span, format!("`{}` is not a constructor or method of `{}` exported by `{}`", s.name, q.name, imp.module.name)),
                                    ),
                                }
                            }
                        }
                        None => r.err(not_exported(&imp.module.name, q)),
                    },
                    Entity::Module(m) => r.err(Diagnostic::error(
                        m.span,
                        "`module M` can only appear in an export list",
                    )),
                }
            }
        }
        Some((true, items)) => {
            let mut hidden_values: HashSet<Sym> = HashSet::new();
            let mut hidden_types: HashSet<Sym> = HashSet::new();
            for item in items {
                match item {
                    Entity::Var(q) => {
                        hidden_values.insert(q.name.clone());
                    }
                    Entity::Type(q, subs) => {
                        // `hiding (C)` hides a data constructor C as well as a type C.
                        hidden_types.insert(q.name.clone());
                        hidden_values.insert(q.name.clone());
                        let exported = iface
                            .types
                            .get(&q.name)
                            .map(|(_, s)| s.clone())
                            .unwrap_or_default();
                        match subs {
                            Some(SubItems::All) => hidden_values.extend(exported),
                            Some(SubItems::Some(list)) => {
                                hidden_values.extend(list.iter().map(|i| i.name.clone()))
                            }
                            None => {}
                        }
                    }
                    Entity::Module(m) => r.err(Diagnostic::error(
                        m.span,
                        "`module M` can only appear in an export list",
                    )),
                }
            }
            for (n, o) in &iface.values {
                if !hidden_values.contains(n) {
                    add(r, Ns::Value, n, o);
                }
            }
            for (n, (o, _)) in &iface.types {
                if !hidden_types.contains(n) {
                    add(r, Ns::Type, n, o);
                }
            }
        }
    }
}

fn not_exported(module: &Sym, q: &QName) -> Diagnostic {
    Diagnostic::error(
        q.span,
        format!("module `{module}` does not export `{}`", q.name),
    )
    .with_label("not exported")
}

/// The interface a module offers to its importers.
fn exports(r: &mut Renamer, m: &Module, defined: &Defined) -> Interface {
    let mut iface = Interface::default();
    let module = r.module.clone();
    let own = |n: &Ident| (module.clone(), n.name.clone());
    let all_own = |iface: &mut Interface| {
        for v in &defined.values {
            iface.values.insert(v.name.clone(), own(v));
        }
        for (t, subs, _) in &defined.types {
            iface.types.insert(
                t.name.clone(),
                (own(t), subs.iter().map(|s| s.name.clone()).collect()),
            );
        }
    };
    let Some(list) = &m.exports else {
        all_own(&mut iface);
        return iface;
    };
    for e in list {
        match e {
            Entity::Var(q) => {
                let rq = r.value(q.clone());
                if let Some(mq) = rq.qual {
                    iface.values.insert(q.name.clone(), (mq, rq.name));
                }
            }
            Entity::Type(q, subs) => {
                let rq = r.global(Ns::Type, q.clone());
                let Some(mq) = rq.qual else { continue };
                let orig: Orig = (mq, rq.name.clone());
                let all = r.g.subs.get(&orig).cloned().unwrap_or_default();
                let chosen: Vec<Sym> = match subs {
                    None => Vec::new(),
                    Some(SubItems::All) => all.clone(),
                    Some(SubItems::Some(list)) => {
                        let mut v = Vec::new();
                        for s in list {
                            if all.contains(&s.name) {
                                v.push(s.name.clone());
                            } else {
                                r.err(Diagnostic::error(
                                    s.span,
                                    format!(
                                        "`{}` is not a constructor or method of `{}`",
                                        s.name, q.name
                                    ),
                                ));
                            }
                        }
                        v
                    }
                };
                for s in &chosen {
                    iface.values.insert(s.clone(), (orig.0.clone(), s.clone()));
                }
                iface.types.insert(q.name.clone(), (orig, chosen));
            }
            Entity::Module(mname) => {
                if mname.name == r.module {
                    all_own(&mut iface);
                    continue;
                }
                // Everything in scope both unqualified and as `M.x`.
                let keys: Vec<_> = r
                    .scope
                    .keys()
                    .filter(|(_, q, _)| q.as_ref() == Some(&mname.name))
                    .cloned()
                    .collect();
                if keys.is_empty() {
                    r.err(Diagnostic::error(
                        mname.span,
                        format!("no module named `{}` is imported", mname.name),
                    ));
                }
                for (ns, _, name) in keys {
                    let (Some(q), Some(u)) = (
                        r.scope.get(&(ns, Some(mname.name.clone()), name.clone())),
                        r.scope.get(&(ns, None, name.clone())),
                    ) else {
                        continue;
                    };
                    if let ([o], [o2]) = (q.as_slice(), u.as_slice()) {
                        if o == o2 {
                            match ns {
                                Ns::Value => {
                                    iface.values.insert(name.clone(), o.clone());
                                }
                                Ns::Type => {
                                    let subs = r.g.subs.get(o).cloned().unwrap_or_default();
                                    iface.types.insert(name.clone(), (o.clone(), subs));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    iface
}

fn rename_module(
    g: &mut Globals,
    sources: &SourceMap,
    m: Module,
) -> (Module, Vec<Diagnostic>, Scope) {
    let name = module_name(&m);
    let mut r = Renamer {
        g,
        sources,
        module: name.clone(),
        scope: HashMap::new(),
        locals: Vec::new(),
        local_names: HashMap::new(),
        local_fixities: Vec::new(),
        diags: Vec::new(),
        derived: Vec::new(),
        extensions: m.extensions.clone(),
    };
    let defined = collect_defined(&mut r, &m);
    // Own entities, unqualified and qualified by the module's name.
    for v in &defined.values {
        let o: Orig = (name.clone(), v.name.clone());
        r.add_scope(Ns::Value, None, v.name.clone(), o.clone());
        r.add_scope(Ns::Value, Some(name.clone()), v.name.clone(), o);
    }
    for (t, subs, is_class) in &defined.types {
        let o: Orig = (name.clone(), t.name.clone());
        r.add_scope(Ns::Type, None, t.name.clone(), o.clone());
        r.add_scope(Ns::Type, Some(name.clone()), t.name.clone(), o.clone());
        r.g.subs
            .insert(o.clone(), subs.iter().map(|s| s.name.clone()).collect());
        if *is_class {
            r.g.classes.insert(o);
        }
    }
    for d in &m.decls {
        if let Decl::Data(dd) = d {
            let ty: Orig = (name.clone(), dd.name.name.clone());
            let mut cons = Vec::new();
            for c in &dd.constrs {
                let con: Orig = (name.clone(), c.name.name.clone());
                let labels = c.labels.iter().flatten().map(|l| l.name.clone());
                let fields = ConFields {
                    ty: ty.clone(),
                    labels: labels.collect(),
                    strict: c.fields.iter().map(|f| f.strict).collect(),
                };
                r.g.records.insert(con.clone(), fields);
                cons.push(con);
            }
            for l in records::labels_of(dd) {
                r.g.fields.insert((name.clone(), l.name), ty.clone());
            }
            r.g.type_cons.insert(ty, cons);
        }
    }
    for imp in &imports_of(&name, &m) {
        import(&mut r, imp);
    }
    // Top-level fixities (including those declared in class bodies for methods).
    // A fixity declaration may name a type operator or class (TypeOperators).
    let bound: HashSet<Sym> = defined
        .values
        .iter()
        .map(|v| v.name.clone())
        .chain(defined.types.iter().map(|(t, _, _)| t.name.clone()))
        .collect();
    let mut fx = HashMap::new();
    r.check_sigs(
        &m.decls
            .iter()
            .filter(|d| !matches!(d, Decl::Sig { .. }))
            .cloned()
            .collect::<Vec<_>>(),
        &bound,
        &mut fx,
    );
    for d in &m.decls {
        if let Decl::Class(c) = d {
            for cd in &c.decls {
                if let Decl::Fixity {
                    assoc, prec, ops, ..
                } = cd
                {
                    for o in ops {
                        fx.insert(
                            o.name.clone(),
                            Fixity {
                                assoc: *assoc,
                                prec: *prec,
                            },
                        );
                    }
                }
            }
        }
    }
    for (op, f) in fx {
        r.g.fixities.insert((name.clone(), op), f);
    }
    // Signatures at top level (those in classes are checked with the class).
    let sig_only: Vec<Decl> = m
        .decls
        .iter()
        .filter(|d| matches!(d, Decl::Sig { .. }))
        .cloned()
        .collect();
    let value_bound: HashSet<Sym> = r
        .group_binders_quiet(&m.decls)
        .into_iter()
        .chain(m.decls.iter().filter_map(|d| match d {
            Decl::Foreign { name, .. } => Some(name.name.clone()),
            _ => None,
        }))
        .collect();
    r.check_sigs(&sig_only, &value_bound, &mut HashMap::new());

    r.note_constructor_classes(&m.decls);
    let mut decls: Vec<Decl> = m.decls.into_iter().filter_map(|d| r.top_decl(d)).collect();
    decls.append(&mut r.derived);
    crate::front::derive::generic_nfdata(&mut decls, &r.module);
    if name.as_ref() == "Main" && !defined.values.iter().any(|v| &*v.name == "main") {
        let span = m.name.as_ref().map_or(m.span.point(), |i| i.span);
        r.err(
            Diagnostic::error(span, "the IO action `main` is not defined in module `Main`")
                .with_help("add `main :: IO ()` and its definition"),
        );
    }
    let iface = exports(
        &mut r,
        &Module {
            name: m.name.clone(),
            exports: m.exports.clone(),
            imports: Vec::new(),
            decls: Vec::new(),
            span: m.span,
            extensions: Vec::new(),
        },
        &defined,
    );
    if name.as_ref() == "Prelude" {
        // The library's view of the Prelude: everything it defines, the
        // class methods GHC's Prelude does not export (`foldl'`, `toList`)
        // included.
        let all = exports(
            &mut r,
            &Module {
                name: None,
                exports: None,
                imports: Vec::new(),
                decls: Vec::new(),
                span: m.span,
                extensions: Vec::new(),
            },
            &defined,
        );
        r.g.interfaces.insert(Sym::from(super::modules::BASE), all);
    }
    let diags = std::mem::take(&mut r.diags);
    let mut scope = Scope::default();
    for ((ns, q, n), origs) in std::mem::take(&mut r.scope) {
        let table = match ns {
            Ns::Value => &mut scope.values,
            Ns::Type => &mut scope.types,
        };
        table.insert((q, n), origs);
    }
    scope.fixities = g.fixities.clone();
    g.interfaces.insert(name, iface);
    (
        Module {
            name: m.name,
            exports: m.exports,
            imports: m.imports,
            decls,
            span: m.span,
            extensions: m.extensions,
        },
        diags,
        scope,
    )
}

impl Renamer<'_> {
    fn group_binders_quiet(&mut self, ds: &[Decl]) -> Vec<Sym> {
        let saved = self.diags.len();
        let v = self.group_binders(ds).into_iter().map(|i| i.name).collect();
        self.diags.truncate(saved);
        v
    }

    /// The parameters of a type declaration must be distinct variables.
    fn distinct_params(&mut self, params: &[Ident]) {
        let mut seen: HashMap<&Sym, Span> = HashMap::new();
        for p in params {
            if let Some(first) = seen.get(&p.name) {
                self.err(
                    Diagnostic::error(p.span, format!("conflicting definitions for `{}`", p.name))
                        .with_label("a type parameter named again")
                        .with_secondary(*first, "first named here"),
                );
            } else {
                seen.insert(&p.name, p.span);
            }
        }
    }

    fn top_decl(&mut self, d: Decl) -> Option<Decl> {
        match &d {
            Decl::Data(dd) => self.distinct_params(&dd.params),
            Decl::TypeSyn { params, .. } => self.distinct_params(params),
            _ => {}
        }
        Some(match d {
            Decl::Data(dd) => {
                let context = self.preds(dd.context);
                // StrictData: every field of a data type is strict (a
                // newtype's field cannot be).
                let strict_data = self.extensions.iter().any(|e| &**e == "StrictData");
                let all_strict = !dd.newtype && strict_data;
                // As GHC: a `~` mark says something only under StrictData.
                if !strict_data {
                    for c in &dd.constrs {
                        if c.fields.iter().any(|f| f.lazy) {
                            self.err(
                                Diagnostic::error(
                                    c.name.span,
                                    format!(
                                        "a lazy annotation (~) on a field of `{}` without StrictData",
                                        c.name.name
                                    ),
                                )
                                .with_help(
                                    "fields are lazy already; add {-# LANGUAGE StrictData #-} or drop the `~`",
                                ),
                            );
                        }
                    }
                }
                let constrs = dd
                    .constrs
                    .into_iter()
                    .map(|c| ConDecl {
                        context: self.preds(c.context),
                        eqs: c.eqs.into_iter().map(|(p, t)| (p, self.ty(t))).collect(),
                        // GHC shows a GADT-syntax operator infix only when
                        // it has a fixity declaration.
                        infix: c.infix
                            && (!c.gadt
                                || self
                                    .g
                                    .fixities
                                    .contains_key(&(self.module.clone(), c.name.name.clone()))),
                        fields: c
                            .fields
                            .into_iter()
                            .map(|f| Field {
                                strict: f.strict || (all_strict && !f.lazy),
                                lazy: f.lazy,
                                ty: self.ty(f.ty),
                            })
                            .collect(),
                        ..c
                    })
                    .collect();
                let deriving = dd
                    .deriving
                    .into_iter()
                    .map(|d| Derived {
                        class: self.global(Ns::Type, d.class),
                        args: d.args.into_iter().map(|t| self.ty(t)).collect(),
                        via: d.via.map(|t| self.ty(t)),
                        standalone: d.standalone.map(|(ctx, vars)| (self.preds(ctx), vars)),
                        ..d
                    })
                    .collect();
                let renamed = DataDecl {
                    context,
                    constrs,
                    deriving,
                    ..dd
                };
                self.derived
                    .extend(records::selectors(&renamed, &self.module));
                if !renamed.deriving.is_empty() {
                    // Fixities of infix constructors decide how derived Show prints them.
                    let fixities: HashMap<Sym, (Assoc, u8)> = renamed
                        .constrs
                        .iter()
                        .filter_map(|c| {
                            let f = self
                                .g
                                .fixities
                                .get(&(self.module.clone(), c.name.name.clone()))?;
                            Some((c.name.name.clone(), (f.assoc, f.prec)))
                        })
                        .collect();
                    let constructor_classes = &self.g.constructor_classes;
                    let (decls, diags) = crate::front::derive::derive_instances(
                        &renamed,
                        &self.module,
                        &fixities,
                        &self.extensions,
                        &|c: &QName| {
                            c.qual.as_ref().is_some_and(|m| {
                                constructor_classes.contains(&(m.clone(), c.name.clone()))
                            })
                        },
                    );
                    self.derived.extend(decls);
                    self.diags.extend(diags);
                }
                Decl::Data(renamed)
            }
            Decl::TypeSyn {
                name,
                params,
                ty,
                span,
            } => Decl::TypeSyn {
                name,
                params,
                ty: self.ty(ty),
                span,
            },
            Decl::Class(c) => {
                let context = self.preds(c.context);
                let methods: HashSet<Sym> = c
                    .decls
                    .iter()
                    .filter_map(|d| match d {
                        Decl::Sig { names, .. } => {
                            Some(names.iter().map(|n| n.name.clone()).collect::<Vec<_>>())
                        }
                        _ => None,
                    })
                    .flatten()
                    .collect();
                let decls = self.class_body(c.decls, &methods, &c.name.name);
                Decl::Class(ClassDecl {
                    context,
                    decls,
                    ..c
                })
            }
            Decl::Instance(i) => {
                let context = self.preds(i.context);
                let class = self.global(Ns::Type, i.class);
                let ty = self.ty(i.ty);
                let orig: Option<Orig> = class.qual.clone().map(|m| (m, class.name.clone()));
                let methods: HashSet<Sym> = match &orig {
                    Some(o) if self.g.classes.contains(o) => self
                        .g
                        .subs
                        .get(o)
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .collect(),
                    Some(_) => {
                        self.err(Diagnostic::error(
                            class.span,
                            format!("`{}` is not a class", class.name),
                        ));
                        HashSet::new()
                    }
                    None => HashSet::new(),
                };
                let decls = self.class_body(i.decls, &methods, &class.name);
                Decl::Instance(InstanceDecl {
                    context,
                    class,
                    ty,
                    decls,
                    ..i
                })
            }
            Decl::Foreign {
                prim,
                name,
                ty,
                span,
            } => Decl::Foreign {
                prim,
                name,
                ty: self.qual_type(ty),
                span,
            },
            Decl::Default { types, span } => Decl::Default {
                types: types.into_iter().map(|t| self.ty(t)).collect(),
                span,
            },
            other => return self.value_decl(other),
        })
    }

    /// The bindings of a class (default methods) or an instance: each must
    /// define a method of the class.
    fn class_body(&mut self, ds: Vec<Decl>, methods: &HashSet<Sym>, class: &Sym) -> Vec<Decl> {
        let binders = self.group_binders(&ds);
        for b in &binders {
            if !methods.contains(&b.name) {
                self.err(Diagnostic::error(
                    b.span,
                    format!("`{}` is not a (visible) method of class `{class}`", b.name),
                ));
            }
        }
        ds.into_iter()
            .filter_map(|d| match d {
                Decl::Fixity { .. } => Some(d),
                Decl::PatBind { span, .. } => {
                    self.err(Diagnostic::error(
                        span,
                        "a pattern binding cannot define a class method",
                    ));
                    None
                }
                d => self.value_decl(d),
            })
            .collect()
    }
}

/// Renames every module of a loaded program.
pub fn rename(loaded: Loaded) -> (Program, Vec<Diagnostic>) {
    let mut g = Globals::default();
    let mut diags = Vec::new();
    let mut modules = Vec::new();
    let main = loaded
        .modules
        .last()
        .map_or_else(|| Sym::from("Main"), |p| p.name.clone());
    let mut main_scope = Scope::default();
    for p in loaded.modules {
        let (m, d, scope) = rename_module(&mut g, &loaded.sources, p.ast);
        diags.extend(d);
        modules.push(m);
        main_scope = scope;
    }
    (
        Program {
            sources: loaded.sources,
            modules,
            main,
            main_scope,
        },
        diags,
    )
}
