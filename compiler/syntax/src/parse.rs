//! The parser's entry point and the helpers its grammar actions call:
//! turning expressions into patterns, declaration heads into names, and parse
//! failures into diagnostics.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{Sym, Tok, Token};
use crate::span::Span;
use lalrpop_util::ParseError;

type Res<T> = Result<T, ParseError<usize, Tok, Diagnostic>>;

fn fail<T>(span: Span, msg: impl Into<String>) -> Res<T> {
    Err(ParseError::User {
        error: Diagnostic::error(span, msg),
    })
}

fn fail_diag<T>(d: Diagnostic) -> Res<T> {
    Err(ParseError::User { error: d })
}

pub enum TopItem {
    Import(Import),
    Decls(Vec<Decl>),
    /// `deriving instance C (T a)` (StandaloneDeriving): the class and the
    /// type's name, added to the type's deriving clause.
    Deriving(Derived, QName),
    Error,
}

pub fn tuple_name(arity: usize) -> Sym {
    Sym::from(format!("({})", ",".repeat(arity - 1)))
}

pub fn module(
    name: Option<Ident>,
    exports: Option<Vec<Entity>>,
    body: Vec<TopItem>,
    span: Span,
) -> Res<Module> {
    let mut imports = Vec::new();
    let mut decls = Vec::new();
    let mut standalone = Vec::new();
    for item in body {
        match item {
            TopItem::Import(i) => {
                if !decls.is_empty() {
                    return fail_diag(
                        Diagnostic::error(i.span, "`import` after a declaration").with_help(
                            "move all imports to the top of the module, before any declaration",
                        ),
                    );
                }
                imports.push(i)
            }
            TopItem::Decls(ds) => decls.extend(ds),
            TopItem::Deriving(d, ty) => standalone.push((d, ty)),
            TopItem::Error => {}
        }
    }
    for (d, ty) in standalone {
        let data = decls.iter_mut().find_map(|x| match x {
            Decl::Data(dd) if ty.qual.is_none() && dd.name.name == ty.name => Some(dd),
            _ => None,
        });
        match data {
            Some(dd) => dd.deriving.push(d),
            None => {
                return fail(
                    ty.span,
                    format!(
                        "gph derives a standalone instance only for a type declared in the same module, not `{ty}`"
                    ),
                )
            }
        }
    }
    Ok(Module {
        name,
        exports,
        imports,
        decls,
        span,
        extensions: Vec::new(),
    })
}

/// Splits a type application `T a b` into its head and arguments. A
/// chain of one type operator at the head (`l op r`, or `(l op r) x` of a
/// declaration, a constraint or an instance) is `op` applied to `l` and
/// `r`: a head has one operator, so no fixity is needed.
fn spine(t: Type) -> (Type, Vec<Type>) {
    let mut args = Vec::new();
    let mut t = t;
    while let Type::App(f, a, s) = t {
        if is_type_chain(&f) {
            match *a {
                Type::Tuple(items, _) if items.len() == 3 => {
                    let [l, op, r]: [Type; 3] = items.try_into().expect("three items");
                    args.push(r);
                    args.push(l);
                    t = op;
                }
                other => t = Type::App(f, Box::new(other), s),
            }
            break;
        }
        args.push(*a);
        t = *f;
    }
    args.reverse();
    (t, args)
}

/// The name of the constructor that holds a chain of type operators
/// before fixity resolution (not a name a program can write).
pub const TYPE_CHAIN: &str = " type-chain";

fn is_type_chain(t: &Type) -> bool {
    is_internal_con(t, TYPE_CHAIN)
}

/// Whether the type is the parser's internal constructor `name`
/// (`TYPE_CHAIN`, `LAZY_MARK`).
pub fn is_internal_con(t: &Type, name: &str) -> bool {
    matches!(t, Type::Con(q) if q.qual.is_none() && &*q.name == name)
}

/// `t1 op1 t2 op2 t3 ...` (TypeOperators): the operands and operators in
/// order, as `TYPE_CHAIN` applied to them in a tuple; the renamer resolves
/// it by the operators' fixities.
pub fn type_chain(first: Type, rest: Vec<(QName, Type)>, span: Span) -> Type {
    if let Some((op, _)) = rest.first() {
        require(
            "TypeOperators",
            op.span,
            "a type operator",
            None,
            "add the pragma at the top of the file",
        );
    }
    let mut items = vec![first];
    for (op, t) in rest {
        items.push(Type::Con(op));
        items.push(t);
    }
    Type::App(
        Box::new(Type::Con(QName::unqual(Sym::from(TYPE_CHAIN), span))),
        Box::new(Type::Tuple(items, span)),
        span,
    )
}

/// `T a b` as the head of a data, newtype or type declaration.
fn decl_head(h: Type, what: &str) -> Res<(Ident, Vec<Ident>)> {
    let span = h.span();
    let (head, args) = spine(h);
    let name = match head {
        Type::Con(q) if q.qual.is_none() && (q.name.starts_with(char::is_uppercase) || crate::pretty::is_operator_name(&q.name)) => Ident { name: q.name, span: q.span },
        _ => return fail(span, format!("malformed head of {what} declaration: expected a type name followed by type variables")),
    };
    let mut params = Vec::new();
    for a in args {
        match a {
            Type::Var(v) => params.push(v),
            other => {
                return fail(
                    other.span(),
                    format!("a parameter of a {what} declaration must be a type variable"),
                )
            }
        }
    }
    Ok((name, params))
}

/// Converts a type written before `=>` into a list of constraints.
fn context(t: Type) -> Res<Vec<Pred>> {
    let items = match t {
        Type::Tuple(ts, _) => ts,
        Type::Con(ref q) if &*q.name == "()" => Vec::new(),
        other => vec![other],
    };
    items
        .into_iter()
        .map(|t| {
            let span = t.span();
            let (head, mut args) = spine(t);
            match head {
                Type::Con(class) if args.len() == 1 => Ok(Pred {
                    class,
                    ty: args.pop().unwrap(),
                    span,
                }),
                // As GHC, only the class declaration and its instances
                // need MultiParamTypeClasses, not a constraint.
                Type::Con(class) if args.len() > 1 => Ok(Pred {
                    class,
                    ty: multi_param(args, span),
                    span,
                }),
                // GHC.Stack's `HasCallStack`, the one constraint with no
                // type that base has (a synonym of an implicit parameter
                // in GHC), is its class at `()`: a class of one parameter
                // whose one instance, at `()`, solves it everywhere.
                Type::Con(class) if args.is_empty() && &*class.name == "HasCallStack" => {
                    let unit = QName::unqual(Sym::from("()"), class.span);
                    Ok(Pred {
                        class,
                        ty: Type::Con(unit),
                        span,
                    })
                }
                _ => fail(
                    span,
                    "malformed constraint: expected a class applied to a type, like `Eq a`",
                ),
            }
        })
        .collect()
}

pub fn qual_type(ctx: Option<Type>, ty: Type, span: Span) -> Res<QualType> {
    let context = match ctx {
        Some(c) => context(c)?,
        None => Vec::new(),
    };
    Ok(QualType {
        forall: Vec::new(),
        context,
        ty,
        span,
    })
}

/// The extensions that allow `forall` in a type (each implies
/// ExplicitForAll in GHC).
const FORALL_EXTENSIONS: &[&str] = &[
    "ExplicitForAll",
    "ScopedTypeVariables",
    "RankNTypes",
    "Rank2Types",
    "ExistentialQuantification",
    "GADTs",
    "LiberalTypeSynonyms",
    "PolyKinds",
    "TypeFamilies",
];

/// `keyword`: where the `forall` is written.
fn forall_allowed(keyword: Span) {
    if !FORALL_EXTENSIONS.iter().any(|e| enabled(e)) {
        needs_extension(
            Diagnostic::error(
                keyword,
                "`forall` needs {-# LANGUAGE ScopedTypeVariables #-}",
            )
            .with_label("an explicit `forall`")
            .with_help(
                "add ScopedTypeVariables (or ExplicitForAll) at the top of the file, or \
                     leave the `forall` out: a signature's variables are quantified anyway",
            ),
        );
    }
}

/// `(a :: k)` in a type: the variable (gph infers every kind).
pub fn kind_signature(v: Ident, span: Span) -> Type {
    require(
        "KindSignatures",
        span,
        "a kind signature",
        None,
        "add the pragma at the top of the file, or leave the kind out",
    );
    Type::Var(v)
}

/// `forall a b. t` at the top of a signature or annotation.
pub fn forall_type(vars: Vec<Ident>, mut t: QualType, keyword: Span, span: Span) -> QualType {
    forall_allowed(keyword);
    t.forall = vars;
    t.span = span;
    t
}

/// A `forall` inside a type (`(forall a. a -> a) -> Int`): a rank-n type.
/// The `.` is lexed as an operator symbol; anything else there is an error.
pub fn nested_forall(vars: Vec<Ident>, mut t: QualType, keyword: Span, span: Span) -> Res<Type> {
    if !enabled("RankNTypes") && !enabled("Rank2Types") {
        needs_extension(
            Diagnostic::error(
                span,
                "a `forall` inside a type needs {-# LANGUAGE RankNTypes #-}",
            )
            .with_label("a rank-n type")
            .with_help(
                "add RankNTypes at the top of the file: the argument or field is then \
                     itself polymorphic",
            ),
        );
    }
    let _ = keyword;
    t.forall = vars;
    t.span = span;
    Ok(Type::Forall(Box::new(t)))
}

/// `f do ...`, `forM_ xs \\x -> ...` (BlockArguments): a block or an open
/// expression as a function's argument.
pub fn block_argument(f: Expr, a: Expr, span: Span) -> Expr {
    require(
        "BlockArguments",
        a.span(),
        "a block as a function argument",
        Some("an argument without `$` or parentheses"),
        "add the pragma at the top of the file, or write `$` before the block",
    );
    Expr::App(Box::new(f), Box::new(a), span)
}

pub fn type_syn(h: Type, ty: Type, span: Span) -> Res<Vec<Decl>> {
    let (name, params) = decl_head(h, "type")?;
    Ok(vec![Decl::TypeSyn {
        name,
        params,
        ty,
        span,
    }])
}

pub fn data_decl(
    newtype: bool,
    a: Type,
    b: Option<Type>,
    constrs: Vec<ConDecl>,
    deriving: Vec<Derived>,
    span: Span,
) -> Res<Decl> {
    let what = if newtype { "newtype" } else { "data" };
    let (ctx, head) = match b {
        Some(h) => (context(a)?, h),
        None => (Vec::new(), a),
    };
    let (name, params) = decl_head(head, what)?;
    if newtype && (constrs.len() != 1 || constrs[0].fields.len() != 1) {
        return fail_diag(
            Diagnostic::error(
                span,
                "a newtype must have exactly one constructor with exactly one field",
            )
            .with_help("use `data` for other shapes"),
        );
    }
    Ok(Decl::Data(DataDecl {
        newtype,
        context: ctx,
        name,
        params,
        constrs,
        deriving,
        span,
    }))
}

fn field(t: Type) -> Field {
    match t {
        Type::Bang(t, _) => Field {
            strict: true,
            lazy: false,
            ty: *t,
        },
        Type::App(f, t, _) if is_internal_con(&f, LAZY_MARK) => Field {
            strict: false,
            lazy: true,
            ty: *t,
        },
        t => Field {
            strict: false,
            lazy: false,
            ty: t,
        },
    }
}

/// The name of the constructor that marks a field `~T` (lazy under
/// StrictData) until the field is made (not a name a program can write).
pub const LAZY_MARK: &str = " lazy";

/// `~T`: a lazy field's type.
pub fn lazy_mark(t: Type, span: Span) -> Type {
    Type::App(
        Box::new(Type::Con(QName::unqual(Sym::from(LAZY_MARK), span))),
        Box::new(t),
        span,
    )
}

pub fn con_decl(ts: Vec<Type>, op: Option<(QName, Vec<Type>)>, span: Span) -> Res<ConDecl> {
    match op {
        Some((op, rhs)) => {
            let side = |ts: Vec<Type>| -> Type {
                let mut it = ts.into_iter();
                let first = it.next().expect("at least one type");
                it.fold(first, |f, a| {
                    let s = f.span().to(a.span());
                    Type::App(Box::new(f), Box::new(a), s)
                })
            };
            Ok(ConDecl {
                name: Ident {
                    name: op.name,
                    span: op.span,
                },
                fields: vec![field(side(ts)), field(side(rhs))],
                infix: true,
                labels: None,
                exists: Vec::new(),
                gadt: false,
                eqs: Vec::new(),
                context: Vec::new(),
                span,
            })
        }
        None => {
            let mut it = ts.into_iter();
            let name = match it.next() {
                Some(Type::Con(q)) if q.qual.is_none() => Ident {
                    name: q.name,
                    span: q.span,
                },
                Some(t) => return fail(t.span(), "expected a data constructor name"),
                None => return fail(span, "expected a data constructor"),
            };
            Ok(ConDecl {
                name,
                fields: it.map(field).collect(),
                infix: false,
                labels: None,
                exists: Vec::new(),
                gadt: false,
                eqs: Vec::new(),
                context: Vec::new(),
                span,
            })
        }
    }
}

/// The extensions that allow a constructor to hide type variables or
/// carry a context.
const EXISTENTIAL_EXTENSIONS: &[&str] = &["ExistentialQuantification", "ExistentialTypes", "GADTs"];

fn existential_allowed(c: &ConDecl, span: Span) {
    if !c.eqs.is_empty() && !enabled("GADTs") {
        needs_extension(
            Diagnostic::error(
                span,
                format!(
                    "the constructor `{}` fixes a parameter of its type in its result: \
                     that needs {{-# LANGUAGE GADTs #-}}",
                    c.name.name
                ),
            )
            .with_help("add the pragma at the top of the file"),
        );
        return;
    }
    if (!c.exists.is_empty() || !c.context.is_empty())
        && !EXISTENTIAL_EXTENSIONS.iter().any(|e| enabled(e))
    {
        needs_extension(
            Diagnostic::error(
                span,
                format!(
                    "the constructor `{}` has existential type variables or a context: \
                     that needs {{-# LANGUAGE ExistentialQuantification #-}}",
                    c.name.name
                ),
            )
            .with_help("add the pragma (or GADTs) at the top of the file"),
        );
    }
}

/// Types side by side (`Show a`, or one tuple `(Eq a, Show a)`) as one
/// type, for `context`.
fn applied(ts: Vec<Type>) -> Type {
    let mut it = ts.into_iter();
    let first = it.next().expect("at least one type");
    it.fold(first, |f, a| {
        let s = f.span().to(a.span());
        Type::App(Box::new(f), Box::new(a), s)
    })
}

/// `forall vs. ctx => C fields` or `ctx => C fields`
/// (ExistentialQuantification). `dot`: the operator after the variables.
pub fn existential(
    vars: Vec<Ident>,
    dot: Option<(Sym, Span)>,
    ctx: Option<Vec<Type>>,
    mut c: ConDecl,
    span: Span,
) -> Res<ConDecl> {
    if let Some((d, s)) = dot {
        if &*d != "." {
            return fail(s, "expected `.` after the variables of `forall`");
        }
    }
    c.exists = vars;
    if let Some(ts) = ctx {
        c.context = context(applied(ts))?;
    }
    c.span = span;
    existential_allowed(&c, span);
    Ok(c)
}

/// An item of a GADT-style declaration's `where` block.
pub enum GadtItem {
    /// `C1, C2 :: forall vs. ctx => t1 -> .. -> T a b`
    Cons(Vec<Ident>, QualType, Span),
    /// `C :: { f :: t, .. } -> T a b`
    Record(Vec<Ident>, Vec<(Vec<Ident>, Type)>, Type, Span),
    /// A deriving clause at the block's indentation.
    Deriving(Vec<Derived>),
}

/// `data T a where C :: t -> T a; ...` (GADTSyntax): each constructor's
/// result applies the type to variables, which are renamed to the
/// declaration's parameters, and its other variables are existential. A
/// result that fixes a parameter (`IntE :: Int -> Expr Int`) gives the
/// constructor an equality (`a ~ Int`, GADTs), which a match refines.
#[allow(clippy::too_many_arguments)]
/// The head `E` of `data E :: Type -> Type where` as `E t1` (the GADT's
/// constructors name their own variables).
pub fn kinded_head(head: Type, arity: usize, span: Span) -> Type {
    require(
        "KindSignatures",
        span,
        "a kind signature",
        None,
        "add the pragma at the top of the file, or name the parameters: `data E a where`",
    );
    (1..=arity).fold(head, |h, i| {
        let v = Ident {
            name: Sym::from(format!("t{i}").as_str()),
            span,
        };
        Type::App(Box::new(h), Box::new(Type::Var(v)), span)
    })
}

pub fn gadt_decl(
    newtype: bool,
    a: Type,
    b: Option<Type>,
    items: Vec<GadtItem>,
    mut deriving: Vec<Derived>,
    keyword: Span,
    span: Span,
) -> Res<Decl> {
    if !["GADTSyntax", "GADTs"].iter().any(|e| enabled(e)) {
        needs_extension(
            Diagnostic::error(
                keyword,
                "a data declaration in GADT syntax needs {-# LANGUAGE GADTSyntax #-}",
            )
            .with_label("constructors given by their signatures")
            .with_help("add the pragma (or GADTs) at the top of the file"),
        );
    }
    let what = if newtype { "newtype" } else { "data" };
    let head = b.clone().unwrap_or_else(|| a.clone());
    let (name, params) = decl_head(head, what)?;
    let mut constrs = Vec::new();
    let mut derivs_inside = Vec::new();
    for item in items {
        let (names, forall, ctx, args, labels, result, ispan) = match item {
            GadtItem::Deriving(d) => {
                derivs_inside.extend(d);
                continue;
            }
            GadtItem::Cons(names, qt, ispan) => {
                let mut args = Vec::new();
                let mut t = qt.ty;
                while let Type::Fun(x, y, _) = t {
                    args.push(*x);
                    t = *y;
                }
                (names, qt.forall, qt.context, args, None, t, ispan)
            }
            GadtItem::Record(names, fs, result, ispan) => {
                let mut labels = Vec::new();
                let mut args = Vec::new();
                for (ls, t) in fs {
                    for l in ls {
                        labels.push(l);
                        args.push(t.clone());
                    }
                }
                (
                    names,
                    Vec::new(),
                    Vec::new(),
                    args,
                    Some(labels),
                    result,
                    ispan,
                )
            }
        };
        let shown = |n: &[Ident]| {
            n.iter()
                .map(|i| format!("`{}`", i.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let rspan = result.span();
        let (rhead, rargs) = spine(result);
        if !matches!(&rhead, Type::Con(q) if q.name == name.name && q.qual.is_none()) {
            return fail(
                rspan,
                format!(
                    "the constructor {} must return the type `{}` being declared",
                    shown(&names),
                    name.name
                ),
            );
        }
        if rargs.len() != params.len() {
            return fail(
                rspan,
                format!(
                    "the result of {} should apply `{}` to {} type variables, as its declaration does",
                    shown(&names),
                    name.name,
                    params.len()
                ),
            );
        }
        // Result variable k stands for parameter k; a parameter the result
        // fixes (`Expr Int`, or a variable repeated) is an equality a match
        // brings into scope (GADTs' type refinement).
        let mut to: Vec<(Sym, Sym)> = Vec::new();
        let mut refined: Vec<(Ident, Type)> = Vec::new();
        for (r, p) in rargs.into_iter().zip(&params) {
            match r {
                Type::Var(v) if !to.iter().any(|(x, _)| *x == v.name) => {
                    to.push((v.name.clone(), p.name.clone()))
                }
                other => refined.push((p.clone(), other)),
            }
        }
        // A variable of the signature that is not a result variable but has
        // a parameter's name is renamed apart.
        let mut sig_vars: Vec<Sym> = forall.iter().map(|v| v.name.clone()).collect();
        for t in &args {
            t.vars_into(&mut sig_vars);
        }
        for p in &ctx {
            p.ty.vars_into(&mut sig_vars);
        }
        for (_, t) in &refined {
            t.vars_into(&mut sig_vars);
        }
        let mut exists = Vec::new();
        for v in &sig_vars {
            if to.iter().any(|(x, _)| x == v) {
                continue;
            }
            let mut fresh = v.clone();
            while params.iter().any(|p| p.name == fresh)
                || sig_vars.iter().any(|s| *s == fresh && s != v)
            {
                fresh = Sym::from(format!("{fresh}'").as_str());
            }
            to.push((v.clone(), fresh.clone()));
            exists.push(Ident {
                name: fresh,
                span: ispan,
            });
        }
        let rename = |t: Type| {
            t.rename_vars(&|v: &Sym| to.iter().find(|(x, _)| x == v).map(|(_, y)| y.clone()))
        };
        let fields: Vec<Field> = args.into_iter().map(|t| field(rename(t))).collect();
        let context: Vec<Pred> = ctx
            .into_iter()
            .map(|p| Pred {
                ty: rename(p.ty),
                ..p
            })
            .collect();
        let eqs: Vec<(Ident, Type)> = refined.into_iter().map(|(p, t)| (p, rename(t))).collect();
        for n in names {
            // Infix if it has a fixity declaration too: the renamer knows.
            let infix = fields.len() == 2 && n.name.starts_with(':') && labels.is_none();
            let c = ConDecl {
                name: n,
                fields: fields.clone(),
                infix,
                gadt: true,
                labels: labels.clone(),
                exists: exists.clone(),
                context: context.clone(),
                eqs: eqs.clone(),
                span: ispan,
            };
            existential_allowed(&c, ispan);
            constrs.push(c);
        }
    }
    derivs_inside.append(&mut deriving);
    data_decl(newtype, a, b, constrs, derivs_inside, span)
}

/// `deriving`, `deriving stock`, `deriving newtype` or `deriving anyclass`.
/// `via T` after a deriving clause: T, with DerivingVia.
pub fn via(word: Sym, span: Span, t: Type) -> Res<Type> {
    if &*word != "via" {
        return fail(span, format!("unexpected `{word}` after a deriving clause"));
    }
    require(
        "DerivingVia",
        span,
        "`deriving ... via`",
        None,
        "add the pragma at the top of the file",
    );
    Ok(t)
}

pub fn strategy(word: Option<(Sym, Span)>, newtype: Option<Span>) -> Res<Strategy> {
    let (strategy, span) = match (word, newtype) {
        (_, Some(s)) => (Strategy::Newtype, s),
        (Some((w, s)), None) => match &*w {
            "stock" => (Strategy::Stock, s),
            "anyclass" => (Strategy::Anyclass, s),
            _ => {
                return fail(
                    s,
                    format!(
                    "unknown deriving strategy `{w}`: expected `stock`, `newtype` or `anyclass`"
                ),
                )
            }
        },
        (None, None) => return Ok(Strategy::Default),
    };
    require(
        "DerivingStrategies",
        span,
        "a deriving strategy",
        None,
        "add the pragma at the top of the file, or leave the strategy out",
    );
    Ok(strategy)
}

/// `deriving instance [ctx =>] C (T a ..)` (StandaloneDeriving); the
/// context written is not needed: the derived one is inferred as for a
/// deriving clause.
pub fn standalone_deriving(
    strategy: Strategy,
    a: Type,
    b: Option<Type>,
    span: Span,
) -> Res<TopItem> {
    require(
        "StandaloneDeriving",
        span,
        "`deriving instance`",
        None,
        "add the pragma at the top of the file, or derive in the type's declaration",
    );
    let (written, head) = match b {
        Some(h) => (context(a)?, h),
        None => (Vec::new(), a),
    };
    let bad = || {
        fail(
            head.span(),
            "expected a class applied to a type, like `Show (T a)`",
        )
    };
    // `C a1 .. an (T v1 ..)`: the class, its arguments before the
    // derived type (a class of several parameters), the derived type.
    let Type::App(class, ty, _) = &head else {
        return bad();
    };
    let mut class = &**class;
    let mut args = Vec::new();
    while let Type::App(f, a, _) = class {
        args.push((**a).clone());
        class = f;
    }
    args.reverse();
    let Type::Con(class) = class else {
        return bad();
    };
    let mut t = &**ty;
    let mut vars = Vec::new();
    while let Type::App(f, x, _) = t {
        if let Type::Var(v) = &**x {
            vars.push(v.name.clone());
        }
        t = f;
    }
    vars.reverse();
    let Type::Con(tycon) = t else {
        return bad();
    };
    Ok(TopItem::Deriving(
        Derived {
            class: class.clone(),
            args,
            strategy,
            via: None,
            standalone: Some((written, vars)),
        },
        tycon.clone(),
    ))
}

/// `-n` read as one literal (NegativeLiterals): `(-n)`, a negation in
/// its own parentheses, so that it binds tighter than any operator and is
/// an argument (`f -1`); in a pattern, a negative literal pattern.
pub fn negative_literal(lit: Literal, minus: Span, at: Span) -> Expr {
    let span = minus.to(at);
    Expr::Paren(
        Box::new(Expr::OpChain(
            vec![
                ChainItem::Neg(minus),
                ChainItem::Operand(Expr::Lit(lit, at)),
            ],
            span,
        )),
        span,
    )
}

/// `(e)`. A negative literal in parentheses is that literal's own
/// parentheses (so that printing and reading `(-1)` again gives the same
/// tree, with NegativeLiterals or without).
pub fn paren(e: Expr, span: Span) -> Expr {
    match e {
        Expr::Paren(inner, s)
            if matches!(&*inner, Expr::OpChain(items, _)
                if matches!(items.first(), Some(ChainItem::Neg(m)) if m.start == s.start)) =>
        {
            Expr::Paren(inner, span)
        }
        e => Expr::Paren(Box::new(e), span),
    }
}

pub fn record_con(name: Ident, fs: Vec<(Vec<Ident>, Type)>, span: Span) -> ConDecl {
    let mut labels = Vec::new();
    let mut fields = Vec::new();
    for (names, ty) in fs {
        for n in names {
            labels.push(n);
            fields.push(field(ty.clone()));
        }
    }
    ConDecl {
        name,
        fields,
        infix: false,
        labels: Some(labels),
        exists: Vec::new(),
        gadt: false,
        eqs: Vec::new(),
        context: Vec::new(),
        span,
    }
}

pub fn class_decl(
    a: Type,
    b: Option<Type>,
    fundeps: Vec<(Vec<Ident>, Vec<Ident>, Span)>,
    decls: Vec<Decl>,
    span: Span,
) -> Res<Vec<Decl>> {
    let (ctx, head) = match b {
        Some(h) => (context(a)?, h),
        None => (Vec::new(), a),
    };
    let hspan = head.span();
    let (name, params) = decl_head(head, "class")?;
    if params.is_empty() {
        return fail(span, "a class must have a type parameter");
    }
    if params.len() > 1 {
        require(
            "MultiParamTypeClasses",
            hspan,
            "a class of several types",
            None,
            "add the pragma at the top of the file",
        );
    }
    for (from, to, fspan) in &fundeps {
        require(
            "FunctionalDependencies",
            *fspan,
            "a functional dependency",
            None,
            "add the pragma at the top of the file",
        );
        for v in from.iter().chain(to) {
            if !params.iter().any(|p| p.name == v.name) {
                return fail(
                    v.span,
                    format!(
                        "`{}` in a functional dependency is not a parameter of the class",
                        v.name
                    ),
                );
            }
        }
    }
    let mut params = params.into_iter();
    let tyvar = params.next().unwrap();
    Ok(vec![Decl::Class(ClassDecl {
        context: ctx,
        name,
        tyvar,
        more_vars: params.collect(),
        fundeps: fundeps.into_iter().map(|(f, t, _)| (f, t)).collect(),
        decls,
        span,
    })])
}

pub fn instance_decl(a: Type, b: Option<Type>, decls: Vec<Decl>, span: Span) -> Res<Vec<Decl>> {
    for d in &decls {
        if let Decl::Sig { span, .. } = d {
            require(
                "InstanceSigs",
                *span,
                "a type signature in an instance",
                None,
                "add the pragma at the top of the file, or leave the signature out",
            );
        }
    }
    let (ctx, head) = match b {
        Some(h) => (context(a)?, h),
        None => (Vec::new(), a),
    };
    let hspan = head.span();
    let (h, mut args) = spine(head);
    match h {
        Type::Con(class) if args.len() == 1 => Ok(vec![Decl::Instance(InstanceDecl {
            context: ctx,
            class,
            ty: args.pop().unwrap(),
            decls,
            span,
            newtype_derived: false,
        })]),
        Type::Con(class) if args.len() > 1 => {
            require(
                "MultiParamTypeClasses",
                hspan,
                "an instance of a class of several types",
                None,
                "add the pragma at the top of the file",
            );
            Ok(vec![Decl::Instance(InstanceDecl {
                context: ctx,
                class,
                ty: multi_param(args, hspan),
                decls,
                span,
                newtype_derived: false,
            })])
        }
        _ => fail(
            hspan,
            "malformed instance head: expected a class applied to one type, like `Show (Tree a)`",
        ),
    }
}

pub fn foreign(cc: Sym, name: Sym, v: Ident, ty: QualType, span: Span) -> Res<Vec<Decl>> {
    if &*cc != "prim" {
        return fail(
            span,
            format!("unsupported calling convention `{cc}`: gph only has `foreign import prim`"),
        );
    }
    Ok(vec![Decl::Foreign {
        prim: name,
        name: v,
        ty,
        span,
    }])
}

pub fn signature(names: Vec<QName>, ty: QualType, span: Span) -> Res<Vec<Decl>> {
    let mut ids = Vec::new();
    for q in names {
        if q.qual.is_some() {
            return fail(
                q.span,
                format!("a type signature cannot give a type to the qualified name `{q}`"),
            );
        }
        ids.push(Ident {
            name: q.name,
            span: q.span,
        });
    }
    Ok(vec![Decl::Sig {
        names: ids,
        ty,
        span,
    }])
}

pub fn fixity(assoc: Assoc, prec: Option<Sym>, ops: Vec<Ident>, span: Span) -> Res<Vec<Decl>> {
    let prec = match prec {
        None => 9,
        Some(p) => match p.parse::<u8>() {
            Ok(n) if n <= 9 => n,
            _ => {
                return fail(
                    span,
                    format!("precedence {p} is out of range: it must be between 0 and 9"),
                )
            }
        },
    };
    Ok(vec![Decl::Fixity {
        assoc,
        prec,
        ops,
        span,
    }])
}

/// Builds an operator chain, or returns the single operand.
pub fn chain(mut items: Vec<ChainItem<Expr>>, span: Span) -> Expr {
    if items.len() == 1 {
        if let Some(ChainItem::Operand(e)) = items.pop() {
            return e;
        }
        unreachable!("a one-item chain is an operand");
    }
    Expr::OpChain(items, span)
}

/// A parallel list comprehension `[e | qs1 | qs2 ...]` (ParallelListComp):
/// the branches' comprehensions of the variables each binds, zipped, as
/// GHC defines it: `[e | (vs1, (vs2, ..)) <- zip [vs1 | qs1] (zip ..)]`.
/// The zip is a local function (over `:` and `[]` alone), so a program's
/// own `zip`, or none in scope, changes nothing.
pub fn parallel_comprehension(e: Expr, first: Vec<Stmt>, more: Vec<Vec<Stmt>>, span: Span) -> Expr {
    require(
        "ParallelListComp",
        span,
        "a parallel list comprehension",
        Some("a second branch of qualifiers"),
        "add the pragma at the top of the file, or zip the lists",
    );
    let ident = |n: &str| Ident {
        name: Sym::from(n),
        span,
    };
    let var = |n: &Sym| Expr::Var(QName::unqual(n.clone(), span));
    let con = |n: &str| QName::unqual(Sym::from(n), span);
    // What a branch binds, as an expression and as a pattern.
    let branch = |qs: Vec<Stmt>| -> (Expr, Pat) {
        let mut vs: Vec<Sym> = Vec::new();
        for q in &qs {
            match q {
                Stmt::Bind(p, _, _) => p.vars_into(&mut vs),
                Stmt::Let(ds, _) => {
                    for d in ds {
                        match d {
                            Decl::FunClause { name, .. } => vs.push(name.name.clone()),
                            Decl::PatBind { pat, .. } => pat.vars_into(&mut vs),
                            _ => {}
                        }
                    }
                }
                Stmt::Expr(_) => {}
            }
        }
        let mut seen = std::collections::HashSet::new();
        vs.retain(|v| seen.insert(v.clone()));
        let (t, p) = match vs.as_slice() {
            [v] => (var(v), Pat::Var(ident(v))),
            _ => (
                Expr::Tuple(vs.iter().map(var).collect(), span),
                Pat::Tuple(vs.iter().map(|v| Pat::Var(ident(v))).collect(), span),
            ),
        };
        (Expr::Comprehension(Box::new(t), qs, span), p)
    };
    // zip'par (a : as) (b : bs) = (a, b) : zip'par as bs; zip'par _ _ = []
    let zip = Sym::from("zip'par");
    let cons_pat =
        |h: &str, t: &str| Pat::Con(con(":"), vec![Pat::Var(ident(h)), Pat::Var(ident(t))], span);
    let app = |f: Expr, args: Vec<Expr>| {
        args.into_iter()
            .fold(f, |f, a| Expr::App(Box::new(f), Box::new(a), span))
    };
    let clause = |args: Vec<Pat>, body: Expr| Decl::FunClause {
        name: ident("zip'par"),
        args,
        rhs: Rhs {
            body: RhsBody::Plain(body),
            wheres: Vec::new(),
            span,
        },
        span,
    };
    let zip_decls = vec![
        clause(
            vec![cons_pat("a'par", "as'par"), cons_pat("b'par", "bs'par")],
            app(
                Expr::Con(con(":")),
                vec![
                    Expr::Tuple(
                        vec![var(&Sym::from("a'par")), var(&Sym::from("b'par"))],
                        span,
                    ),
                    app(
                        var(&zip),
                        vec![var(&Sym::from("as'par")), var(&Sym::from("bs'par"))],
                    ),
                ],
            ),
        ),
        clause(
            vec![Pat::Wildcard(span), Pat::Wildcard(span)],
            Expr::Con(con("[]")),
        ),
    ];
    let mut branches: Vec<(Expr, Pat)> = std::iter::once(first).chain(more).map(branch).collect();
    let (mut list, mut pat) = branches.pop().expect("two branches at least");
    while let Some((l, p)) = branches.pop() {
        list = Expr::Let(
            zip_decls.clone(),
            Box::new(app(var(&zip), vec![l, list])),
            span,
        );
        pat = Pat::Tuple(vec![p, pat], span);
    }
    Expr::Comprehension(Box::new(e), vec![Stmt::Bind(pat, list, span)], span)
}

/// A visible type application `f @T` (`None`: `@_`). Without
/// TypeApplications it is an error, as in GHC 9.0.
pub fn type_app(f: Expr, t: Option<Type>, span: Span) -> Expr {
    require(
        "TypeApplications",
        span,
        "a visible type application",
        Some("a type application"),
        "add the pragma at the top of the file, or write a type annotation",
    );
    Expr::TypeApp(Box::new(f), t, span)
}

/// A view pattern `(f -> p)` (ViewPatterns), still in expression form.
pub fn view_pattern(f: Expr, p: Expr, span: Span) -> Expr {
    require(
        "ViewPatterns",
        span,
        "a view pattern",
        Some("a view pattern"),
        "add the pragma at the top of the file, or match the result of the \
         function in a `case`",
    );
    Expr::View(Box::new(f), Box::new(p), span)
}

/// A tuple whose components are all there, or a tuple section: a function
/// of the missing components, in order. The components given are shared
/// by every application, as GHC's are: `(, e)` is
/// `(\s0 -> \m0 -> (m0, s0)) e`. Without TupleSections, a section is an
/// error (as in GHC), reported after the parse.
pub fn tuple_or_section(items: Vec<Option<Expr>>, span: Span) -> Expr {
    if items.iter().all(Option::is_some) {
        return Expr::Tuple(items.into_iter().flatten().collect(), span);
    }
    require(
        "TupleSections",
        span,
        "a tuple section",
        Some("a tuple with a missing component"),
        "add the pragma at the top of the file, or write a lambda",
    );
    // The given components are arguments outside the lambdas, so the
    // lambdas' parameters capture nothing a program wrote.
    let var = |kind: &str, i: usize| Ident {
        name: Sym::from(format!("{kind}'{i}")),
        span,
    };
    let (mut given, mut missing, mut fields) = (Vec::new(), Vec::new(), Vec::new());
    for item in items {
        let v = match item {
            Some(e) => {
                let v = var("tuple", given.len());
                given.push((v.clone(), e));
                v
            }
            None => {
                let v = var("section", missing.len());
                missing.push(v.clone());
                v
            }
        };
        fields.push(Expr::Var(QName::unqual(v.name, span)));
    }
    let body = Expr::Lambda(
        missing.into_iter().map(Pat::Var).collect(),
        Box::new(Expr::Tuple(fields, span)),
        span,
    );
    if given.is_empty() {
        return body;
    }
    let (params, args): (Vec<_>, Vec<_>) = given.into_iter().unzip();
    let f = Expr::Paren(
        Box::new(Expr::Lambda(
            params.into_iter().map(Pat::Var).collect(),
            Box::new(body),
            span,
        )),
        span,
    );
    args.into_iter()
        .fold(f, |f, a| Expr::App(Box::new(f), Box::new(a), span))
}

pub fn left_section(mut prefix: Vec<ChainItem<Expr>>, span: Span) -> Res<Expr> {
    let Some(ChainItem::Op(op)) = prefix.pop() else {
        unreachable!("a prefix ends with an operator")
    };
    let inner = prefix.iter().fold(None, |acc: Option<Span>, i| {
        let s = match i {
            ChainItem::Operand(e) => e.span(),
            ChainItem::Op(q) => q.span,
            ChainItem::Neg(s) => *s,
        };
        Some(acc.map_or(s, |a| a.to(s)))
    });
    let e = chain(prefix, inner.unwrap_or(span));
    Ok(Expr::LeftSection(Box::new(e), op, span))
}

pub fn lambda(args: Vec<Expr>, body: Expr, span: Span) -> Res<Expr> {
    let pats = args.into_iter().map(expr_to_pat).collect::<Res<Vec<_>>>()?;
    Ok(Expr::Lambda(pats, Box::new(body), span))
}

/// `\case alts` (LambdaCase): `\case'arg -> case case'arg of alts`.
pub fn lambda_case(alts: Vec<Alt>, span: Span) -> Expr {
    require(
        "LambdaCase",
        span,
        "`\\case`",
        None,
        "add the pragma at the top of the file, or write `\\x -> case x of`",
    );
    let arg = Ident {
        name: Sym::from("case'arg"),
        span,
    };
    Expr::Lambda(
        vec![Pat::Var(arg.clone())],
        Box::new(Expr::Case(
            Box::new(Expr::Var(QName::unqual(arg.name, span))),
            alts,
            span,
        )),
        span,
    )
}

/// `if | g1 -> e1 | g2 -> e2` (MultiWayIf): `case () of _ | g1 -> e1 | g2
/// -> e2`, which fails as GHC's does when no guard holds.
pub fn multi_way_if(guards: Vec<Guarded>, span: Span) -> Expr {
    require(
        "MultiWayIf",
        span,
        "a multi-way if",
        None,
        "add the pragma at the top of the file, or write guards in a `case`",
    );
    Expr::Case(
        Box::new(Expr::Con(QName::unqual(Sym::from("()"), span))),
        vec![Alt {
            pat: Pat::Wildcard(span),
            rhs: Rhs {
                body: RhsBody::Guarded(guards),
                wheres: Vec::new(),
                span,
            },
            span,
        }],
        span,
    )
}

pub fn do_block(stmts: Vec<Stmt>, span: Span) -> Res<Expr> {
    match stmts.last() {
        None => fail_diag(
            Diagnostic::error(span, "empty `do` block")
                .with_help("a `do` block needs at least one expression"),
        ),
        Some(Stmt::Expr(_)) => Ok(Expr::Do(stmts, span)),
        Some(s) => fail_diag(
            Diagnostic::error(
                s.span(),
                "the last statement in a `do` block must be an expression",
            )
            .with_label("this binds a value but nothing uses it afterwards"),
        ),
    }
}

/// Whether a chain operator names a constructor (`:`, `:+`, `` `Cons` ``).
fn is_con_op(q: &QName) -> bool {
    q.name.starts_with(':') || q.name.starts_with(char::is_uppercase)
}

thread_local! {
    /// The LANGUAGE extensions of the module being parsed (set by
    /// `parse_module_with`); None, every one on, for the REPL's
    /// expressions (as GHCi with them, so that `let !x = ...` works there).
    static EXTENSIONS_ON: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
    /// Syntax met while its extension is off: reported after the parse,
    /// which goes on (read as GHC reads it).
    static EXTENSION_ERRORS: std::cell::RefCell<Vec<Diagnostic>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether the module being parsed asks for this extension.
fn enabled(extension: &str) -> bool {
    EXTENSIONS_ON.with(|e| {
        e.borrow()
            .as_ref()
            .is_none_or(|v| v.iter().any(|x| x == extension))
    })
}

/// Reports syntax whose extension is off (after the parse).
fn needs_extension(d: Diagnostic) {
    EXTENSION_ERRORS.with(|v| v.borrow_mut().push(d));
}

/// `what` (syntax at `span`) needs `extension`: unless the module asks for
/// it, an error "{what} needs {-# LANGUAGE extension #-}" with `label` on
/// the syntax and `help`; the parse goes on as with the extension.
fn require(extension: &str, span: Span, what: &str, label: Option<&str>, help: &str) {
    if enabled(extension) {
        return;
    }
    let mut d = Diagnostic::error(span, format!("{what} needs {{-# LANGUAGE {extension} #-}}"));
    if let Some(label) = label {
        d = d.with_label(label);
    }
    needs_extension(d.with_help(help));
}

/// `C { f }` (NamedFieldPuns): the field `f` given the variable `f`, which
/// is unqualified even when the field is written `M.f`.
pub fn field_pun(field: QName) -> (QName, Expr) {
    require(
        "NamedFieldPuns",
        field.span,
        "a field pun",
        Some("a field without `= value`"),
        "add the pragma at the top of the file, or write `f = f`",
    );
    let var = QName {
        qual: None,
        name: field.name.clone(),
        span: field.span,
    };
    (field, Expr::Var(var))
}

/// `C { .. }` (RecordWildCards): the fields not named, each given the
/// variable of its name (in a pattern, bound to it).
pub fn record_wildcard(span: Span) -> Span {
    require(
        "RecordWildCards",
        span,
        "`..` in a record",
        Some("the fields not named"),
        "add the pragma at the top of the file, or name the fields",
    );
    span
}

/// Converts an expression parsed in a pattern position into a pattern.
pub fn expr_to_pat(e: Expr) -> Res<Pat> {
    crate::stack::guard();
    let span = e.span();
    match e {
        Expr::Var(q) => {
            if q.qual.is_some() {
                return fail(span, format!("qualified name `{q}` in a pattern: a pattern variable must be a plain name"));
            }
            Ok(Pat::Var(Ident {
                name: q.name,
                span: q.span,
            }))
        }
        Expr::Wildcard(s) => Ok(Pat::Wildcard(s)),
        Expr::Lit(l, s) => Ok(Pat::Lit(l, s)),
        Expr::Con(q) => Ok(Pat::Con(q, Vec::new(), span)),
        Expr::App(..) => {
            let mut args = Vec::new();
            let mut f = e;
            while let Expr::App(g, a, _) = f {
                args.push(expr_to_pat(*a)?);
                f = *g;
            }
            args.reverse();
            match f {
                Expr::Con(q) => Ok(Pat::Con(q, args, span)),
                other => fail_diag(
                    Diagnostic::error(other.span(), "invalid pattern: only a constructor can be applied to arguments in a pattern")
                        .with_label("not a constructor"),
                ),
            }
        }
        Expr::OpChain(items, s) => {
            // `-1` alone is a negative literal pattern.
            if let [ChainItem::Neg(_), ChainItem::Operand(Expr::Lit(l @ (Literal::Int(_) | Literal::Frac(_)), _))] =
                &items[..]
            {
                return Ok(Pat::NegLit(l.clone(), s));
            }
            let mut out = Vec::new();
            let mut it = items.into_iter().peekable();
            while let Some(item) = it.next() {
                match item {
                    ChainItem::Operand(e) => out.push(ChainItem::Operand(expr_to_pat(e)?)),
                    ChainItem::Op(q) if is_con_op(&q) => out.push(ChainItem::Op(q)),
                    ChainItem::Op(q) => {
                        return fail_diag(
                            Diagnostic::error(q.span, format!("operator `{q}` in a pattern"))
                                .with_label(
                                    "only constructor operators like `:` may appear in a pattern",
                                ),
                        )
                    }
                    ChainItem::Neg(ns) => match it.next() {
                        Some(ChainItem::Operand(Expr::Lit(
                            l @ (Literal::Int(_) | Literal::Frac(_)),
                            ls,
                        ))) => out.push(ChainItem::Operand(Pat::NegLit(l, ns.to(ls)))),
                        _ => {
                            return fail(
                                ns,
                                "a `-` in a pattern must be followed by a numeric literal",
                            )
                        }
                    },
                }
            }
            Ok(Pat::OpChain(out, s))
        }
        Expr::Tuple(es, s) => Ok(Pat::Tuple(
            es.into_iter().map(expr_to_pat).collect::<Res<_>>()?,
            s,
        )),
        Expr::List(es, s) => Ok(Pat::List(
            es.into_iter().map(expr_to_pat).collect::<Res<_>>()?,
            s,
        )),
        Expr::Paren(e, s) => Ok(Pat::Paren(Box::new(expr_to_pat(*e)?), s)),
        Expr::As(v, e, s) => Ok(Pat::As(v, Box::new(expr_to_pat(*e)?), s)),
        Expr::Lazy(e, s) => Ok(Pat::Lazy(Box::new(expr_to_pat(*e)?), s)),
        Expr::Bang(e, s) => {
            require(
                "BangPatterns",
                s,
                "a bang pattern",
                Some("a bang pattern"),
                "GHC 9.0 reads `!` before a name or bracket, after a space, as a \
                 bang pattern: add the pragma at the top of the file, or write \
                 `f ! x` for the operator `!`",
            );
            Ok(Pat::Bang(Box::new(expr_to_pat(*e)?), s))
        }
        Expr::Typed(e, t, s) => Ok(Pat::Typed(Box::new(expr_to_pat(*e)?), t, s)),
        Expr::View(f, p, s) => Ok(Pat::View(f, Box::new(expr_to_pat(*p)?), s)),
        Expr::Record(c, fs, rest, s) => match *c {
            Expr::Con(q) => {
                let fs = fs
                    .into_iter()
                    .map(|(f, p)| Ok((f, expr_to_pat(p)?)))
                    .collect::<Res<_>>()?;
                Ok(Pat::Record(q, fs, rest, s))
            }
            _ => fail(
                s,
                "invalid record pattern: expected a constructor before `{`",
            ),
        },
        other => {
            let what = match other {
                Expr::Lambda(..) => "a lambda",
                Expr::Let(..) => "a `let` expression",
                Expr::If(..) => "an `if` expression",
                Expr::Case(..) => "a `case` expression",
                Expr::Do(..) => "a `do` block",
                Expr::Range { .. } => "an arithmetic sequence",
                Expr::Comprehension(..) => "a list comprehension",
                Expr::LeftSection(..) | Expr::RightSection(..) => "an operator section",
                _ => "this expression",
            };
            fail_diag(
                Diagnostic::error(span, format!("{what} cannot be used as a pattern"))
                    .with_label("expected a pattern here"),
            )
        }
    }
}

/// Classifies `lhs = rhs`: a function clause (prefix or infix) or a pattern binding.
/// `x :: T = e`: the signature `x :: T` and the binding `x = e`.
pub fn typed_binding(vs: Vec<QName>, ty: QualType, rhs: Rhs, span: Span) -> Res<Vec<Decl>> {
    let [v] = &vs[..] else {
        return fail(
            span,
            "a binding with a signature in its pattern binds one variable",
        );
    };
    let v = v.clone();
    require(
        "ScopedTypeVariables",
        span,
        "a signature in a binding's pattern",
        None,
        "add the pragma at the top of the file, or give the signature on its own line",
    );
    let sig_span = v.span.to(ty.span);
    let mut out = signature(vec![v.clone()], ty, sig_span)?;
    out.extend(value_decl(Expr::Var(v), rhs, span)?);
    Ok(out)
}

pub fn value_decl(lhs: Expr, rhs: Rhs, span: Span) -> Res<Vec<Decl>> {
    crate::stack::guard();
    // Infix definition `p1 op p2 = ...` where op is a variable operator.
    if let Expr::OpChain(items, _) = &lhs {
        let var_ops: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|(_, i)| matches!(i, ChainItem::Op(q) if !is_con_op(q)))
            .map(|(k, _)| k)
            .collect();
        if var_ops.len() > 1 {
            let ChainItem::Op(q) = &items[var_ops[1]] else {
                unreachable!()
            };
            return fail(q.span, format!("cannot define `{q}` here: the left-hand side has more than one variable operator"));
        }
        if let [k] = var_ops[..] {
            let Expr::OpChain(mut items, _) = lhs else {
                unreachable!()
            };
            let right = items.split_off(k + 1);
            let Some(ChainItem::Op(op)) = items.pop() else {
                unreachable!()
            };
            let part = |v: Vec<ChainItem<Expr>>| -> Res<Pat> {
                let s = v.iter().fold(None::<Span>, |acc, i| {
                    let s = match i {
                        ChainItem::Operand(e) => e.span(),
                        ChainItem::Op(q) => q.span,
                        ChainItem::Neg(s) => *s,
                    };
                    Some(acc.map_or(s, |a| a.to(s)))
                });
                expr_to_pat(chain(v, s.unwrap_or(span)))
            };
            if op.qual.is_some() {
                return fail(op.span, format!("cannot define a qualified name `{op}`"));
            }
            let args = vec![part(items)?, part(right)?];
            return Ok(vec![Decl::FunClause {
                name: Ident {
                    name: op.name,
                    span: op.span,
                },
                args,
                rhs,
                span,
            }]);
        }
    }
    // Prefix definition `f p1 ... pn = ...`, or `(p1 op p2) p3 = ...`.
    let mut args = Vec::new();
    let mut head = lhs;
    while let Expr::App(f, a, _) = head {
        args.push(*a);
        head = *f;
    }
    args.reverse();
    match head {
        Expr::Var(q) => {
            if q.qual.is_some() {
                return fail(q.span, format!("cannot define a qualified name `{q}`"));
            }
            let args = args.into_iter().map(expr_to_pat).collect::<Res<Vec<_>>>()?;
            Ok(vec![Decl::FunClause {
                name: Ident {
                    name: q.name,
                    span: q.span,
                },
                args,
                rhs,
                span,
            }])
        }
        Expr::Paren(inner, _) if !args.is_empty() && matches!(&*inner, Expr::OpChain(..)) => {
            let Decl::FunClause {
                name,
                args: mut first,
                ..
            } = value_decl(*inner, rhs.clone(), span)?
                .pop()
                .expect("one declaration")
            else {
                return fail(span, "invalid function definition");
            };
            for a in args {
                first.push(expr_to_pat(a)?);
            }
            Ok(vec![Decl::FunClause {
                name,
                args: first,
                rhs,
                span,
            }])
        }
        head => {
            let mut e = head;
            for a in args {
                let s = e.span().to(a.span());
                e = Expr::App(Box::new(e), Box::new(a), s);
            }
            let pat = expr_to_pat(e)?;
            Ok(vec![Decl::PatBind { pat, rhs, span }])
        }
    }
}

/// Describes what the parser expected, in a short human list.
fn expected_list(expected: &[String]) -> Option<String> {
    let mut names: Vec<String> = expected
        .iter()
        .map(|e| {
            let e = e.trim_matches('"');
            match e {
                "varid" | "qvarid" => "a variable".to_string(),
                "conid" | "qconid" => "a constructor".to_string(),
                "varsym" | "consym" | "qvarsym" | "qconsym" => "an operator".to_string(),
                "integer" | "float" | "char" | "string" => "a literal".to_string(),
                "v{" | "v;" | "v}" => "a new line at the right indentation".to_string(),
                other => format!("`{}`", other.replace("\\\\", "\\")),
            }
        })
        .collect();
    names.sort();
    names.dedup();
    if names.is_empty() || names.len() > 8 {
        return None;
    }
    Some(match names.len() {
        1 => names.remove(0),
        _ => {
            let last = names.pop().unwrap();
            format!("{} or {}", names.join(", "), last)
        }
    })
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::VLBrace => "start of a layout block".into(),
        Tok::VSemi => "new line (a virtual `;` from the layout rule)".into(),
        Tok::VRBrace => "end of a layout block".into(),
        Tok::VarId(_) | Tok::QVarId(_) => format!("variable `{t}`"),
        Tok::ConId(_) | Tok::QConId(_) => format!("constructor `{t}`"),
        Tok::Integer(_) | Tok::Float(_) | Tok::Char(_) | Tok::String(_) => format!("literal {t}"),
        _ => format!("`{t}`"),
    }
}

/// `prev_end` gives, for a position, the end of the last real token before
/// it: an error at a virtual token is reported where the incomplete construct
/// stops, which is where the user has to look.
pub fn error_to_diag(
    e: ParseError<usize, Tok, Diagnostic>,
    text_len: usize,
    prev_end: &dyn Fn(usize) -> Option<usize>,
) -> Diagnostic {
    match e {
        ParseError::User { error } => error,
        ParseError::InvalidToken { location } => {
            Diagnostic::error(Span::new(location, location + 1), "invalid token")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let d = Diagnostic::error(
                Span::new(location.min(text_len), location.min(text_len)),
                "unexpected end of input",
            );
            match expected_list(&expected) {
                Some(x) => d.with_label(format!("expected {x}")),
                None => d,
            }
        }
        ParseError::UnrecognizedToken {
            token: (l, t, r),
            expected,
        } => {
            let virt = matches!(t, Tok::VLBrace | Tok::VSemi | Tok::VRBrace);
            let mut d = if virt {
                let at = prev_end(l).unwrap_or(l);
                let what = match t {
                    Tok::VSemi => "parse error: this line ends before its construct is complete",
                    Tok::VRBrace => "parse error: the block ends before this construct is complete",
                    _ => "parse error: unexpected start of a block",
                };
                Diagnostic::error(Span::new(at, at), what)
            } else {
                Diagnostic::error(
                    Span::new(l, r),
                    format!("parse error: unexpected {}", describe(&t)),
                )
            };
            if let Some(x) = expected_list(&expected) {
                d = d.with_label(format!("expected {x}"));
            }
            if virt {
                d = d.with_help(
                    "possibly bad layout, or something missing (like `=`, `->` or `in`): check the indentation \
                     of the next line against the block it belongs to (a line indented as far as the block's \
                     first line starts a new item; less ends the block)",
                );
            }
            d
        }
        ParseError::ExtraToken { token: (l, t, r) } => Diagnostic::error(
            Span::new(l, r),
            format!("parse error: unexpected {}", describe(&t)),
        ),
    }
}

fn triples(tokens: Vec<Token>) -> impl Iterator<Item = Result<(usize, Tok, usize), Diagnostic>> {
    tokens
        .into_iter()
        .map(|t| Ok((t.span.start as usize, t.tok, t.span.end as usize)))
}

/// Parses a whole module from laid-out tokens. Returns the module (if the
/// parser got to the end) and every error found on the way.
/// The end of the last non-virtual token that ends at or before `pos`.
fn prev_end_in(tokens: &[Token]) -> impl Fn(usize) -> Option<usize> + '_ {
    move |pos| {
        let i = tokens
            .partition_point(|t| (t.span.end as usize) <= pos && (t.span.start as usize) < pos);
        tokens[..i]
            .iter()
            .rev()
            .find(|t| !matches!(t.tok, Tok::VLBrace | Tok::VSemi | Tok::VRBrace))
            .map(|t| t.span.end as usize)
    }
}

/// Parses a module with the LANGUAGE extensions its pragmas name: without
/// BangPatterns, TupleSections, LambdaCase or InstanceSigs their syntax is
/// an error, as in GHC 9.0 (the lexer makes `!x` a bang either way).
pub fn parse_module_with(
    tokens: Vec<Token>,
    text_len: usize,
    extensions: Vec<String>,
) -> (Option<Module>, Vec<Diagnostic>) {
    let names = extensions.iter().map(|e| Sym::from(e.as_str())).collect();
    EXTENSIONS_ON.with(|e| *e.borrow_mut() = Some(extensions));
    EXTENSION_ERRORS.with(|v| v.borrow_mut().clear());
    let (mut m, mut diags) = parse_module(tokens, text_len);
    if let Some(m) = &mut m {
        m.extensions = names;
    }
    EXTENSIONS_ON.with(|e| *e.borrow_mut() = None);
    diags.extend(EXTENSION_ERRORS.with(|v| std::mem::take(&mut *v.borrow_mut())));
    (m, diags)
}

pub fn parse_module(tokens: Vec<Token>, text_len: usize) -> (Option<Module>, Vec<Diagnostic>) {
    // Too deep a program would overflow the stack of the passes that follow.
    if let Err(d) = crate::nesting::check(&tokens) {
        return (None, vec![d]);
    }
    let kept = tokens.clone();
    let prev_end = prev_end_in(&kept);
    let mut recovered = Vec::new();
    let result = crate::grammar::ModuleParser::new().parse(&mut recovered, triples(tokens));
    let mut diags: Vec<Diagnostic> = recovered
        .into_iter()
        .map(|r| error_to_diag(r.error, text_len, &prev_end))
        .collect();
    match result {
        Ok(m) => (Some(m), diags),
        Err(e) => {
            diags.push(error_to_diag(e, text_len, &prev_end));
            (None, diags)
        }
    }
}

/// Parses one expression (for the REPL and tests).
pub fn parse_expr(tokens: Vec<Token>, text_len: usize) -> Result<Expr, Diagnostic> {
    crate::nesting::check(&tokens)?;
    let kept = tokens.clone();
    let prev_end = prev_end_in(&kept);
    let mut recovered = Vec::new();
    let r = crate::grammar::ExpParser::new().parse(&mut recovered, triples(tokens));
    if let Some(e) = recovered.into_iter().next() {
        return Err(error_to_diag(e.error, text_len, &prev_end));
    }
    r.map_err(|e| error_to_diag(e, text_len, &prev_end))
}
