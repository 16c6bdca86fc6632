//! Derived instances: `deriving (Show, Read, Eq, Ord, Enum, Bounded,
//! Functor, Foldable, Traversable)` on a `data`
//! or `newtype` declaration becomes ordinary instance declarations, built
//! directly in the renamer's output form:
//!
//! * a reference to a library entity is its original name, `Prelude.showsPrec`
//!   (or `Gph.Prim.True` for the few that `Gph.Prim` defines);
//! * the type and its constructors are qualified with the declaring module;
//! * local variables are unqualified; operators are resolved `Expr::BinOp`s.
//!
//! The code follows what GHC 9.0 generates (`GHC.Tc.Deriv.Generate`), so that
//! results, error messages and strictness agree with GHC:
//!
//! * Show: `showsPrec d (C x y) = showParen (d >= 11) (showString "C " .
//!   showsPrec 11 x . showSpace . showsPrec 11 y)`; a constructor declared
//!   infix with fixity p shows both operands at p+1 under `showParen (d >= p+1)`;
//!   records `C {f = x, g = y}` show the fields at precedence 0 under
//!   `showParen (d >= 11)`; nullary constructors ignore the precedence.
//! * Read (Haskell 2010's report, section 11.4): each constructor's reader
//!   under `readParen`, joined with `++`: the name (a nullary constructor,
//!   in optional parentheses), the fields at precedence 11 (`d > 10`), an
//!   infix constructor's operands at its precedence + 1 (associativity
//!   ignored, as GHC does), a record's `{f = v, ..}` (`d > 11`).
//! * Eq: one clause per constructor comparing fields left to right with `&&`,
//!   and `_ == _ = False` when there are several constructors.
//! * Ord: `compare`, by constructor order, then the fields lexicographically
//!   (the last field with the method itself). For types with at most three
//!   constructors, or enumerations, `<` is generated the same way and `<=`,
//!   `>`, `>=` from it (`a <= b = not (b < a)`), as GHC does: this matters for
//!   fields such as a `Double` NaN, where `<` and `compare` disagree.
//! * Enum (enumerations only): `fromEnum`/`toEnum` by constructor index,
//!   `succ`/`pred`, `enumFrom` and `enumFromThen` stopping at the last (or
//!   first) constructor; `enumFromTo`/`enumFromThenTo` are the class defaults.
//!   Errors carry GHC's texts (`toEnum{Color}: tag (5) is outside of
//!   enumeration's range (0,2)`, `succ{Color}: tried to take `succ' of last
//!   tag in enumeration`).
//! * Bounded: first and last constructor of an enumeration, or the single
//!   constructor applied to `minBound`/`maxBound`.
//!
//! * Functor, Foldable, Traversable (GHC's DeriveFunctor and friends), over
//!   the last parameter `a`: `fmap f (C x1 .. xn)` maps each field by its
//!   type (`f x` for `a`, `fmap` through a list or an application `T .. a`,
//!   a case for a tuple, composition for a function returning `a`);
//!   `foldr` and `foldMap` fold the fields right to left / combine them
//!   with `mappend`; `traverse f (C x1 .. xn) = pure C <*> t1 <*> .. <*> tn`.
//!   The instance is for `T a1 .. an-1`, with the class on each type
//!   variable applied to `a` in a field (`Functor f` for a field `f a`).
//!
//! * Ix (Haskell 2010 report, 19.2): enumerations by constructor position,
//!   a single constructor as the tuple of its fields.
//! * Generic: an empty instance (gph has no generic representation); NFData
//!   (DeriveAnyClass, or `deriving anyclass`): `rnf` of every field, what
//!   deepseq's generic default does. Any other class under DeriveAnyClass:
//!   an instance with the class's default methods.
//! * Through a newtype (GeneralizedNewtypeDeriving or `deriving newtype`):
//!   `instance C U => C (N a)`, marked so that the checker makes its
//!   dictionary the context's own (U's, unchanged: newtypes are erased).
//!
//! The instance context puts the class on each type parameter that occurs in
//! a field (`instance Show a => Show (T a)`), and on each field part that
//! applies a parameter (`Show (b a)`); a phantom parameter needs none.

use gph_syntax::ast::*;
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, Span};
use std::collections::HashMap;

/// The classes gph can derive.
const DERIVABLE: [&str; 9] = [
    "Show",
    "Read",
    "Eq",
    "Ord",
    "Enum",
    "Bounded",
    "Functor",
    "Foldable",
    "Traversable",
];

/// Classes whose instances are for a type constructor of kind `* -> *`:
/// a newtype-derived instance of one drops the newtype's last parameter.
const CONSTRUCTOR_CLASSES: [&str; 10] = [
    "Functor",
    "Applicative",
    "Monad",
    "Foldable",
    "Traversable",
    "Alternative",
    "MonadPlus",
    "MonadFail",
    "MonadFix",
    "MonadIO",
];

/// Generates the instances a data declaration derives.
///
/// `module` is the declaring module (used to qualify the type and its
/// constructors); `fixities` gives the declared fixity of infix constructors
/// (absent: `infixl 9`); `extensions` the module's LANGUAGE extensions
/// (GeneralizedNewtypeDeriving, DeriveAnyClass); `constructor_class`
/// whether a class's last parameter is a type constructor (a newtype
/// derives it through its type less its last parameter).
pub fn derive_instances(
    data: &DataDecl,
    module: &str,
    fixities: &HashMap<Sym, (Assoc, u8)>,
    extensions: &[Sym],
    constructor_class: &dyn Fn(&QName) -> bool,
) -> (Vec<Decl>, Vec<Diagnostic>) {
    let has = |e: &str| extensions.iter().any(|x| &**x == e);
    let gnd = has("GeneralizedNewtypeDeriving") || has("GeneralisedNewtypeDeriving");
    let anyclass = has("DeriveAnyClass");
    let mut decls = Vec::new();
    let mut diags = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for Derived {
        class,
        args,
        strategy,
        via,
        standalone,
    } in &data.deriving
    {
        let ix = &*class.name == "Ix" && class.qual.as_deref() == Some("Data.Ix");
        let stock = args.is_empty()
            && (ix
                || (matches!(class.qual.as_deref(), None | Some("Prelude"))
                    && DERIVABLE.contains(&&*class.name)));
        let mut g = Gen::new(data, module, class.span, fixities);
        // A standalone declaration's instance has the context written (as
        // GHC's), in the declaration's parameter names.
        if let Some((ctx, vars)) = standalone {
            let to = |v: &Sym| {
                let i = vars.iter().position(|x| x == v)?;
                data.params.get(i).map(|p| p.name.clone())
            };
            g.written = Some(
                ctx.iter()
                    .map(|p| Pred {
                        ty: p.ty.clone().rename_vars(&to),
                        ..p.clone()
                    })
                    .collect(),
            );
        }
        // GHC's choice when no strategy is written: stock for what it
        // derives (a newtype's Eq, Ord, ... via the newtype with
        // GeneralizedNewtypeDeriving: the same results), else newtype
        // deriving or DeriveAnyClass when on.
        let via_newtype = match strategy {
            Strategy::Newtype => true,
            // With DeriveAnyClass on too, GHC takes anyclass (and warns).
            Strategy::Default => {
                // Show and Read print the constructor; the other stock
                // classes give the same through the underlying type (and
                // Enum, Bounded work for a newtype only that way).
                let same_either_way = matches!(&*class.name, "Eq" | "Ord" | "Enum" | "Bounded");
                data.newtype && gnd && !anyclass && !is_nfdata(class) && (!stock || same_either_way)
            }
            _ => false,
        };
        if seen.contains(&&*class.name) {
            diags.push(Diagnostic::error(
                class.span,
                format!("`{}` is derived twice for `{}`", class.name, data.name.name),
            ));
            continue;
        }
        seen.push(&class.name);
        // Every type is Typeable (the checker solves it), as in GHC since
        // 7.10, where `deriving Typeable` is accepted and does nothing.
        if is_typeable(class) {
            continue;
        }
        if let Some(via) = via {
            // DerivingVia: the instance at the type named, whose
            // representation is the derived type's (newtypes are erased).
            let over_constructors =
                CONSTRUCTOR_CLASSES.contains(&&*class.name) || constructor_class(class);
            match g.instance_through(class, args, over_constructors, Some(via)) {
                Ok(d) => decls.push(d),
                Err(e) => diags.push(e),
            }
            continue;
        }
        if via_newtype {
            let over_constructors =
                CONSTRUCTOR_CLASSES.contains(&&*class.name) || constructor_class(class);
            match g.instance_through(class, args, over_constructors, None) {
                Ok(d) => decls.push(d),
                Err(e) => diags.push(e),
            }
            continue;
        }
        if !args.is_empty() {
            diags.push(
                g.cannot(
                    &class.name,
                    "a class of several parameters is derived only through a newtype",
                )
                .with_help(if data.newtype {
                    "add {-# LANGUAGE GeneralizedNewtypeDeriving #-}, or write the instance by hand"
                } else {
                    "write the instance by hand"
                }),
            );
            continue;
        }
        // Generic (DeriveGeneric) is stock in GHC; gph's instance is empty.
        let any = is_generic(class)
            || *strategy == Strategy::Anyclass
            || (*strategy == Strategy::Default && !stock && (anyclass || is_nfdata(class)));
        if any {
            // NFData's generic default evaluates every field: so does the
            // derived `rnf`; any other class gets its default methods.
            let methods = if is_nfdata(class) {
                g.rnf()
            } else {
                Vec::new()
            };
            decls.push(g.instance_of(class.clone(), methods));
            continue;
        }
        if !stock {
            diags.push(
                Diagnostic::error(
                    class.span,
                    format!(
                        "cannot derive `{}`: gph derives Show, Read, Eq, Ord, Enum, Bounded, Ix, \
                         Functor, Foldable and Traversable",
                        class.name
                    ),
                )
                .with_help(if data.newtype {
                    "write the instance by hand, or add {-# LANGUAGE GeneralizedNewtypeDeriving #-} to use the underlying type's"
                } else {
                    "write the instance by hand"
                }),
            );
            continue;
        }
        // As GHC: a deriving clause writes a stock instance for
        // constructors that hide or fix no types; a standalone declaration
        // for any (a hidden type's instance then comes from the context
        // the constructor packs, or the instance is a type error).
        if let Some(c) = data.constrs.iter().find(|c| {
            standalone.is_none()
                && (!c.exists.is_empty() || !c.context.is_empty() || !c.eqs.is_empty())
        }) {
            diags.push(
                g.cannot(
                    &class.name,
                    &format!(
                        "the constructor `{}` has existential type variables, a context or a \
                         specialised result type",
                        c.name.name
                    ),
                )
                .with_help(
                    "derive it with a standalone declaration (`deriving instance Show (T a)`, \
                     which takes the context written), or write the instance by hand",
                ),
            );
            continue;
        }
        if matches!(&*class.name, "Functor" | "Foldable" | "Traversable") {
            match g.functorial(&class.name) {
                Ok(d) => decls.push(d),
                Err(e) => diags.push(e),
            }
            continue;
        }
        if ix {
            if data.constrs.len() != 1 && g.enumeration_problem().is_some() {
                diags.push(g.cannot(
                    "Ix",
                    "it must be an enumeration (only nullary constructors) or have exactly one constructor",
                ));
                continue;
            }
            decls.push(g.instance_of(class.clone(), g.ix()));
            continue;
        }
        let methods = match &*class.name {
            "Show" => g.show(),
            "Read" => g.read(),
            "Eq" => g.eq(),
            "Ord" => g.ord(),
            "Enum" => match g.enumeration_problem() {
                None => g.enum_(),
                Some(problem) => {
                    diags.push(
                        Diagnostic::error(
                            class.span,
                            format!("can't derive Enum for a type with {problem}"),
                        )
                        .with_secondary(data.name.span, "the type is declared here")
                        .with_help(
                            "only an enumeration (all constructors nullary) has a derived Enum",
                        ),
                    );
                    continue;
                }
            },
            _ => {
                if data.constrs.len() == 1 || g.enumeration_problem().is_none() {
                    g.bounded()
                } else {
                    diags.push(g.cannot(
                        "Bounded",
                        "it must be an enumeration (only nullary constructors) or have exactly one constructor",
                    ));
                    continue;
                }
            }
        };
        decls.push(g.instance(&class.name, methods));
    }
    (decls, diags)
}

/// An `instance NFData T` with no methods, for a type of this module that
/// derives Generic, gets deepseq's generic default: `rnf` of every field
/// (the class's own default only evaluates to weak head normal form).
pub fn generic_nfdata(decls: &mut [Decl], module: &str) {
    let datas: HashMap<Sym, DataDecl> = decls
        .iter()
        .filter_map(|d| match d {
            Decl::Data(dd) if dd.deriving.iter().any(|x| is_generic(&x.class)) => {
                Some((dd.name.name.clone(), dd.clone()))
            }
            _ => None,
        })
        .collect();
    if datas.is_empty() {
        return;
    }
    let no_fixities = HashMap::new();
    for d in decls.iter_mut() {
        let Decl::Instance(inst) = d else { continue };
        if !is_nfdata(&inst.class) || !inst.decls.is_empty() {
            continue;
        }
        let mut head = &inst.ty;
        while let Type::App(f, _, _) = head {
            head = f;
        }
        let Type::Con(q) = head else { continue };
        if q.qual.as_deref() != Some(module) {
            continue;
        }
        if let Some(data) = datas.get(&q.name) {
            inst.decls = Gen::new(data, module, inst.span, &no_fixities).rnf();
        }
    }
}

fn is_nfdata(class: &QName) -> bool {
    &*class.name == "NFData" && class.qual.as_deref() == Some("Gph.Prim")
}

fn is_typeable(class: &QName) -> bool {
    &*class.name == "Typeable" && class.qual.as_deref() == Some("Gph.Prim")
}

fn is_generic(class: &QName) -> bool {
    &*class.name == "Generic" && class.qual.as_deref() == Some("GHC.Generics")
}

/// The parts of a field's type a derived instance's context constrains:
/// type variables, and applications of a type variable (kept whole, with
/// a printed key to tell them apart). Under a type constructor, its
/// arguments are constrained (`Show [a]` needs `Show a`).
fn constrained(t: &Type, vars: &mut Vec<Sym>, applied: &mut Vec<(String, Type)>) {
    gph_syntax::stack::guard();
    let mut head = t;
    while let Type::App(f, _, _) = head {
        head = f;
    }
    match t {
        Type::App(..) if matches!(head, Type::Var(_)) => {
            let key = type_key(t);
            if !applied.iter().any(|(k, _)| *k == key) {
                applied.push((key, t.clone()));
            }
        }
        Type::Var(v) => {
            if !vars.contains(&v.name) {
                vars.push(v.name.clone());
            }
        }
        Type::Con(_) => {}
        Type::App(a, b, _) | Type::Fun(a, b, _) => {
            constrained(a, vars, applied);
            constrained(b, vars, applied);
        }
        Type::List(t, _) | Type::Bang(t, _) => constrained(t, vars, applied),
        Type::Tuple(ts, _) => ts.iter().for_each(|t| constrained(t, vars, applied)),
        // A polymorphic field: no instance of the class is derivable for
        // it (the checker says so); its free variables are the type's.
        Type::Forall(q) => {
            let mut free = Vec::new();
            t.vars_into(&mut free);
            for v in free {
                if !vars.contains(&v) {
                    vars.push(v);
                }
            }
            let _ = q;
        }
    }
}

/// A type as text, to compare types regardless of where they are written.
fn type_key(t: &Type) -> String {
    match t {
        Type::Var(v) => v.name.to_string(),
        Type::Con(q) => q.to_string(),
        Type::App(a, b, _) => format!("({} {})", type_key(a), type_key(b)),
        Type::Fun(a, b, _) => format!("({} -> {})", type_key(a), type_key(b)),
        Type::List(t, _) => format!("[{}]", type_key(t)),
        Type::Bang(t, _) => type_key(t),
        Type::Forall(_) => gph_syntax::pretty::ty(t),
        Type::Tuple(ts, _) => format!(
            "({})",
            ts.iter().map(type_key).collect::<Vec<_>>().join(",")
        ),
    }
}

/// Whether type variable `a` occurs in a type.
fn mentions(t: &Type, a: &Sym) -> bool {
    let mut vs = Vec::new();
    t.vars_into(&mut vs);
    vs.contains(a)
}

/// The method being generated by the Ord code: `compare` or `<`.
#[derive(Clone, Copy, PartialEq)]
enum OrdOp {
    Compare,
    Lt,
}

struct Gen<'a> {
    data: &'a DataDecl,
    module: Sym,
    span: Span,
    fixities: &'a HashMap<Sym, (Assoc, u8)>,
    /// Numbers the variables of the Functor/Foldable/Traversable code.
    fresh: std::cell::Cell<usize>,
    /// The instance's context when written (standalone deriving).
    written: Option<Vec<Pred>>,
}

impl<'a> Gen<'a> {
    fn new(
        data: &'a DataDecl,
        module: &str,
        span: Span,
        fixities: &'a HashMap<Sym, (Assoc, u8)>,
    ) -> Gen<'a> {
        Gen {
            data,
            module: Sym::from(module),
            span,
            fixities,
            fresh: std::cell::Cell::new(0),
            written: None,
        }
    }
}

impl Gen<'_> {
    // ------------------------------------------------------------ names

    /// The original name of a library entity.
    fn lib(&self, name: &str) -> QName {
        let home = match name {
            "True" | "False" | "Bool" | "Int" => "Gph.Prim",
            _ => "Prelude",
        };
        self.entity(home, name)
    }

    /// The library entity `module.name` (its original name).
    fn entity(&self, module: &str, name: &str) -> QName {
        QName {
            qual: Some(Sym::from(module)),
            name: Sym::from(name),
            span: self.span,
        }
    }

    /// A name of the derived type's module (the type or a constructor).
    fn own(&self, name: &Sym) -> QName {
        QName {
            qual: Some(self.module.clone()),
            name: name.clone(),
            span: self.span,
        }
    }

    fn ident(&self, name: &str) -> Ident {
        Ident {
            name: Sym::from(name),
            span: self.span,
        }
    }

    // ------------------------------------------------------------ expressions

    fn var(&self, name: &str) -> Expr {
        Expr::Var(QName::unqual(Sym::from(name), self.span))
    }

    fn lib_var(&self, name: &str) -> Expr {
        Expr::Var(self.lib(name))
    }

    fn lib_con(&self, name: &str) -> Expr {
        Expr::Con(self.lib(name))
    }

    fn int(&self, n: usize) -> Expr {
        Expr::Lit(Literal::Int(Sym::from(n.to_string())), self.span)
    }

    fn string(&self, s: &str) -> Expr {
        Expr::Lit(Literal::Str(Sym::from(s)), self.span)
    }

    fn app(&self, f: Expr, args: Vec<Expr>) -> Expr {
        args.into_iter()
            .fold(f, |f, a| Expr::App(Box::new(f), Box::new(a), self.span))
    }

    /// `f a b ...` with `f` a library function.
    fn call(&self, f: &str, args: Vec<Expr>) -> Expr {
        self.app(self.lib_var(f), args)
    }

    /// `l op r` with `op` a library operator.
    fn bin(&self, op: &str, l: Expr, r: Expr) -> Expr {
        Expr::BinOp(self.lib(op), Box::new(l), Box::new(r), self.span)
    }

    /// `e1 . e2 . ... . en`, nested to the right.
    fn compose(&self, mut parts: Vec<Expr>) -> Expr {
        let mut e = parts.pop().expect("something to compose");
        while let Some(p) = parts.pop() {
            e = self.bin(".", p, e);
        }
        e
    }

    fn case(&self, scrut: Expr, alts: Vec<(Pat, Expr)>) -> Expr {
        let alts = alts
            .into_iter()
            .map(|(pat, body)| Alt {
                pat,
                rhs: self.rhs(body),
                span: self.span,
            })
            .collect();
        Expr::Case(Box::new(scrut), alts, self.span)
    }

    fn if_(&self, c: Expr, t: Expr, e: Expr) -> Expr {
        Expr::If(Box::new(c), Box::new(t), Box::new(e), self.span)
    }

    // ------------------------------------------------------------ patterns

    fn pvar(&self, name: &str) -> Pat {
        Pat::Var(self.ident(name))
    }

    fn wild(&self) -> Pat {
        Pat::Wildcard(self.span)
    }

    /// The constructor applied to variables `prefix1 .. prefixN`.
    fn con_pat(&self, c: &ConDecl, prefix: &str) -> Pat {
        let args = (1..=c.fields.len())
            .map(|i| self.pvar(&format!("{prefix}{i}")))
            .collect();
        Pat::Con(self.own(&c.name.name), args, self.span)
    }

    /// The constructor applied to wildcards.
    fn con_wild(&self, c: &ConDecl) -> Pat {
        let args = c.fields.iter().map(|_| self.wild()).collect();
        Pat::Con(self.own(&c.name.name), args, self.span)
    }

    fn vars(&self, c: &ConDecl, prefix: &str) -> Vec<Expr> {
        (1..=c.fields.len())
            .map(|i| self.var(&format!("{prefix}{i}")))
            .collect()
    }

    // ------------------------------------------------------------ declarations

    fn rhs(&self, body: Expr) -> Rhs {
        Rhs {
            body: RhsBody::Plain(body),
            wheres: Vec::new(),
            span: self.span,
        }
    }

    fn clause(&self, name: &str, args: Vec<Pat>, body: Expr) -> Decl {
        Decl::FunClause {
            name: self.ident(name),
            args,
            rhs: self.rhs(body),
            span: self.span,
        }
    }

    fn instance(&self, class: &str, decls: Vec<Decl>) -> Decl {
        self.instance_of(self.lib(class), decls)
    }

    /// An instance of `class` (a resolved name) for the type, the class on
    /// each parameter a field mentions; `Generic` needs none.
    fn instance_of(&self, class: QName, decls: Vec<Decl>) -> Decl {
        let mut vars = Vec::new();
        let mut applied = Vec::new();
        for c in &self.data.constrs {
            for f in &c.fields {
                constrained(&f.ty, &mut vars, &mut applied);
            }
        }
        // The class on each parameter a field mentions, and on each field
        // part that applies a parameter (`Show (b a)` for a field `b a`,
        // as GHC infers).
        let mut context: Vec<Pred> = self
            .data
            .params
            .iter()
            .filter(|p| vars.contains(&p.name))
            .map(|p| Type::Var(p.clone()))
            .chain(applied.into_iter().map(|(_, t)| t))
            .map(|ty| Pred {
                class: class.clone(),
                ty,
                span: self.span,
            })
            .collect();
        if is_generic(&class) {
            context.clear();
        }
        if let Some(w) = &self.written {
            context = w.clone();
        }
        Decl::Instance(InstanceDecl {
            context,
            class,
            ty: self.head_type(),
            decls,
            span: self.span,
            newtype_derived: false,
        })
    }

    /// `rnf (C x1 .. xn) = rnf x1 `seq` .. `seq` rnf xn `seq` ()`: every
    /// field to normal form, as NFData's generic default.
    fn rnf(&self) -> Vec<Decl> {
        let unit = Expr::Con(QName::unqual(Sym::from("()"), self.span));
        self.data
            .constrs
            .iter()
            .map(|c| {
                let body = self
                    .vars(c, "a")
                    .into_iter()
                    .rev()
                    .fold(unit.clone(), |acc, x| {
                        let forced = self.app(Expr::Var(self.entity("Gph.Prim", "rnf")), vec![x]);
                        self.bin("seq", forced, acc)
                    });
                self.clause("rnf", vec![self.con_pat(c, "a")], body)
            })
            .collect()
    }

    /// GeneralizedNewtypeDeriving: `instance C U => C (N a ..)` whose
    /// dictionary is the one for `C U`, U the newtype's field (newtypes are
    /// erased, so it is the same record of methods), or with DerivingVia
    /// U the type named after `via`. For a class over type constructors
    /// the last parameter is dropped from both.
    fn instance_through(
        &self,
        class: &QName,
        args: &[Type],
        over_constructors: bool,
        via: Option<&Type>,
    ) -> Result<Decl, Diagnostic> {
        if let Some(via) = via {
            let params = if over_constructors {
                match self.data.params.split_last() {
                    Some((_, rest)) => rest,
                    None => {
                        return Err(self.cannot(&class.name, "it has no type parameter to drop"))
                    }
                }
            } else {
                &self.data.params[..]
            };
            return Ok(self.newtype_instance(class, args, params, via.clone()));
        }
        let field = match &self.data.constrs[..] {
            [c] if self.data.newtype => &c.fields[0].ty,
            _ => {
                return Err(self.cannot(
                    &class.name,
                    "only a newtype derives an instance through its underlying type",
                ))
            }
        };
        let (params, under) = if over_constructors {
            let Some((last, rest)) = self.data.params.split_last() else {
                return Err(self.cannot(&class.name, "it has no type parameter to drop"));
            };
            match field {
                Type::App(f, a, _)
                    if matches!(&**a, Type::Var(v) if v.name == last.name)
                        && !mentions(f, &last.name) =>
                {
                    (rest, (**f).clone())
                }
                _ => {
                    return Err(self.cannot(
                        &class.name,
                        "its field must be a type applied to the last parameter, as in `newtype N m a = N (m a)`",
                    ))
                }
            }
        } else {
            (&self.data.params[..], field.clone())
        };
        Ok(self.newtype_instance(class, args, params, under))
    }

    /// `instance C args U => C args (T params)` whose dictionary is U's
    /// (the checker shares it: the types have one representation).
    fn newtype_instance(
        &self,
        class: &QName,
        args: &[Type],
        params: &[Ident],
        under: Type,
    ) -> Decl {
        let head = params
            .iter()
            .fold(Type::Con(self.own(&self.data.name.name)), |t, p| {
                Type::App(Box::new(t), Box::new(Type::Var(p.clone())), self.span)
            });
        // A class of several parameters: its other arguments, then the type.
        let with_args = |t: Type| {
            if args.is_empty() {
                t
            } else {
                let mut all = args.to_vec();
                all.push(t);
                multi_param(all, self.span)
            }
        };
        Decl::Instance(InstanceDecl {
            context: vec![Pred {
                class: class.clone(),
                ty: with_args(under),
                span: self.span,
            }],
            class: class.clone(),
            ty: with_args(head),
            decls: Vec::new(),
            span: self.span,
            newtype_derived: true,
        })
    }

    /// `tag :: M.T a.. -> Int`, the constructor's position.
    fn tag_decls(&self) -> Vec<Decl> {
        let mut wheres = vec![Decl::Sig {
            names: vec![self.ident("tag")],
            ty: QualType {
                forall: vec![],
                context: vec![],
                ty: Type::Fun(
                    Box::new(self.head_type()),
                    Box::new(Type::Con(self.lib("Int"))),
                    self.span,
                ),
                span: self.span,
            },
            span: self.span,
        }];
        for (k, c) in self.data.constrs.iter().enumerate() {
            wheres.push(self.clause("tag", vec![self.con_wild(c)], self.int(k)));
        }
        wheres
    }

    /// Ix (Haskell 2010 report, section 19.2): an enumeration by
    /// constructor position; a single constructor as the tuple of its
    /// fields (the last varying fastest). `index` is the class's default
    /// (GHC's "Error in array index" outside the range).
    fn ix(&self) -> Vec<Decl> {
        let ix = |name: &str| Expr::Var(self.entity("Data.Ix", name));
        let pair = |a: Expr, b: Expr| Expr::Tuple(vec![a, b], self.span);
        let ppair = |a: Pat, b: Pat| Pat::Tuple(vec![a, b], self.span);
        let with_tag = |name: &str, args: Vec<Pat>, body: Expr| Decl::FunClause {
            name: self.ident(name),
            args,
            rhs: Rhs {
                body: RhsBody::Plain(body),
                wheres: self.tag_decls(),
                span: self.span,
            },
            span: self.span,
        };
        let tag = |v: &str| self.app(self.var("tag"), vec![self.var(v)]);
        if self.enumeration_problem().is_none() {
            let all = Expr::List(
                self.data
                    .constrs
                    .iter()
                    .map(|c| Expr::Con(self.own(&c.name.name)))
                    .collect(),
                self.span,
            );
            let within = self.lambda(
                vec![self.pvar("c")],
                self.app(
                    ix("inRange"),
                    vec![pair(self.var("a"), self.var("b")), self.var("c")],
                ),
            );
            return vec![
                self.clause(
                    "range",
                    vec![ppair(self.pvar("a"), self.pvar("b"))],
                    self.call("filter", vec![within, all]),
                ),
                with_tag(
                    "unsafeIndex",
                    vec![ppair(self.pvar("a"), self.wild()), self.pvar("c")],
                    self.bin("-", tag("c"), tag("a")),
                ),
                with_tag(
                    "inRange",
                    vec![ppair(self.pvar("a"), self.pvar("b")), self.pvar("c")],
                    self.bin(
                        "&&",
                        self.bin(">=", tag("c"), tag("a")),
                        self.bin("<=", tag("c"), tag("b")),
                    ),
                ),
            ];
        }
        let c = &self.data.constrs[0];
        let (ls, us, is) = (self.vars(c, "l"), self.vars(c, "u"), self.vars(c, "i"));
        let bounds = ppair(self.con_pat(c, "l"), self.con_pat(c, "u"));
        let part = |f: &str, k: usize| {
            self.app(
                ix(f),
                vec![pair(ls[k].clone(), us[k].clone()), is[k].clone()],
            )
        };
        let n = c.fields.len();
        let range = Expr::Comprehension(
            Box::new(self.app(Expr::Con(self.own(&c.name.name)), is.clone())),
            (0..n)
                .map(|k| {
                    Stmt::Bind(
                        self.pvar(&format!("i{}", k + 1)),
                        self.app(ix("range"), vec![pair(ls[k].clone(), us[k].clone())]),
                        self.span,
                    )
                })
                .collect(),
            self.span,
        );
        let mut index = if n == 0 {
            self.int(0)
        } else {
            part("unsafeIndex", 0)
        };
        for k in 1..n {
            let size = self.app(
                ix("unsafeRangeSize"),
                vec![pair(ls[k].clone(), us[k].clone())],
            );
            index = self.bin("+", self.bin("*", index, size), part("unsafeIndex", k));
        }
        let mut within = self.lib_con("True");
        for k in (0..n).rev() {
            within = if k == n - 1 {
                part("inRange", k)
            } else {
                self.bin("&&", part("inRange", k), within)
            };
        }
        vec![
            self.clause("range", vec![bounds.clone()], range),
            self.clause(
                "unsafeIndex",
                vec![bounds.clone(), self.con_pat(c, "i")],
                index,
            ),
            self.clause("inRange", vec![bounds, self.con_pat(c, "i")], within),
        ]
    }

    /// `M.T a b`
    fn head_type(&self) -> Type {
        self.data
            .params
            .iter()
            .fold(Type::Con(self.own(&self.data.name.name)), |t, p| {
                Type::App(Box::new(t), Box::new(Type::Var(p.clone())), self.span)
            })
    }

    fn cannot(&self, class: &str, why: &str) -> Diagnostic {
        Diagnostic::error(
            self.span,
            format!("can't derive {class} for `{}`: {why}", self.data.name.name),
        )
        .with_secondary(self.data.name.span, "the type is declared here")
    }

    /// Why the type is not an enumeration, if it is not.
    fn enumeration_problem(&self) -> Option<&'static str> {
        if self.data.constrs.is_empty() {
            Some("no constructors")
        } else if self.data.constrs.iter().any(|c| !c.fields.is_empty()) {
            Some("a non-nullary constructor")
        } else {
            None
        }
    }

    // ------------------------------------------------------------ Show

    fn show(&self) -> Vec<Decl> {
        if self.data.constrs.is_empty() {
            // GHC: `showsPrec _ z = case z of {}`: forcing z is all it does.
            let body = self.call("seq", vec![self.var("z"), self.lib_var("undefined")]);
            return vec![self.clause("showsPrec", vec![self.wild(), self.pvar("z")], body)];
        }
        self.data
            .constrs
            .iter()
            .map(|c| {
                let name = &c.name.name;
                let prefix_name = if is_operator_name(name) {
                    format!("({name})")
                } else {
                    name.to_string()
                };
                if c.fields.is_empty() {
                    let body = self.call("showString", vec![self.string(&prefix_name)]);
                    return self.clause("showsPrec", vec![self.wild(), self.con_pat(c, "b")], body);
                }
                let args = self.vars(c, "b");
                let shows = |prec: usize, e: Expr| self.call("showsPrec", vec![self.int(prec), e]);
                let show_string = |s: &str| self.call("showString", vec![self.string(s)]);
                let (limit, parts) = if let Some(labels) = &c.labels {
                    let mut parts = vec![show_string(&format!("{prefix_name} {{"))];
                    for (k, (l, a)) in labels.iter().zip(args).enumerate() {
                        if k > 0 {
                            parts.push(show_string(", "));
                        }
                        let label = if is_operator_name(&l.name) {
                            format!("({})", l.name)
                        } else {
                            l.name.to_string()
                        };
                        parts.push(show_string(&format!("{label} = ")));
                        parts.push(shows(0, a));
                    }
                    parts.push(show_string("}"));
                    (11, parts)
                } else if c.infix && args.len() == 2 {
                    let prec = self.fixities.get(name).map_or(9, |f| f.1) as usize;
                    let op = if is_operator_name(name) {
                        name.to_string()
                    } else {
                        format!("`{name}`")
                    };
                    let mut args = args.into_iter();
                    let (l, r) = (args.next().unwrap(), args.next().unwrap());
                    (
                        prec + 1,
                        vec![
                            shows(prec + 1, l),
                            show_string(&format!(" {op} ")),
                            shows(prec + 1, r),
                        ],
                    )
                } else {
                    let mut parts = vec![show_string(&format!("{prefix_name} "))];
                    for (k, a) in args.into_iter().enumerate() {
                        if k > 0 {
                            parts.push(self.lib_var("showSpace"));
                        }
                        parts.push(shows(11, a));
                    }
                    (11, parts)
                };
                let cond = self.bin(">=", self.var("d"), self.int(limit));
                let body = self.call("showParen", vec![cond, self.compose(parts)]);
                self.clause(
                    "showsPrec",
                    vec![self.pvar("d"), self.con_pat(c, "b")],
                    body,
                )
            })
            .collect()
    }

    // ------------------------------------------------------------ Read

    /// Haskell 2010's derived Read (report section 11.4), as GHC reads:
    /// `readsPrec d s` tries each constructor. A nullary one is its name
    /// (in optional parentheses); a prefix one its name and the fields at
    /// precedence 11, under `readParen (d > 10)`; an infix one (fixity p)
    /// both operands at p + 1 under `readParen (d > p)`; a record
    /// `C {f = v, ..}` the fields at precedence 0 under `readParen (d > 11)`.
    fn read(&self) -> Vec<Decl> {
        let alts: Vec<Expr> = self
            .data
            .constrs
            .iter()
            .map(|c| self.read_constructor(c))
            .collect();
        let body = alts
            .into_iter()
            .reduce(|a, b| self.bin("++", a, b))
            .unwrap_or_else(|| Expr::List(Vec::new(), self.span));
        vec![self.clause("readsPrec", vec![self.pvar("d"), self.pvar("s")], body)]
    }

    fn read_constructor(&self, c: &ConDecl) -> Expr {
        let name = &c.name.name;
        let mut stmts: Vec<Stmt> = Vec::new();
        let mut cur = 0usize;
        let lex_token = |stmts: &mut Vec<Stmt>, cur: &mut usize, t: &str| {
            let next = *cur + 1;
            stmts.push(Stmt::Bind(
                Pat::Tuple(
                    vec![
                        Pat::Lit(Literal::Str(Sym::from(t)), self.span),
                        self.pvar(&format!("s{next}")),
                    ],
                    self.span,
                ),
                self.call("lex", vec![self.var(&format!("s{cur}"))]),
                self.span,
            ));
            *cur = next;
        };
        let read_field = |stmts: &mut Vec<Stmt>, cur: &mut usize, x: &str, prec: usize| {
            let next = *cur + 1;
            stmts.push(Stmt::Bind(
                Pat::Tuple(
                    vec![self.pvar(x), self.pvar(&format!("s{next}"))],
                    self.span,
                ),
                self.call(
                    "readsPrec",
                    vec![self.int(prec), self.var(&format!("s{cur}"))],
                ),
                self.span,
            ));
            *cur = next;
        };
        // A name as the lexer reads it: `(:+)` is three tokens.
        let name_tokens = |stmts: &mut Vec<Stmt>, cur: &mut usize, n: &str| {
            if is_operator_name(n) {
                lex_token(stmts, cur, "(");
                lex_token(stmts, cur, n);
                lex_token(stmts, cur, ")");
            } else {
                lex_token(stmts, cur, n);
            }
        };
        let xs: Vec<String> = (1..=c.fields.len()).map(|i| format!("x{i}")).collect();
        let limit: Option<usize> = if c.fields.is_empty() {
            name_tokens(&mut stmts, &mut cur, name);
            None
        } else if let Some(labels) = &c.labels {
            name_tokens(&mut stmts, &mut cur, name);
            lex_token(&mut stmts, &mut cur, "{");
            for (k, (l, x)) in labels.iter().zip(&xs).enumerate() {
                if k > 0 {
                    lex_token(&mut stmts, &mut cur, ",");
                }
                name_tokens(&mut stmts, &mut cur, &l.name);
                lex_token(&mut stmts, &mut cur, "=");
                read_field(&mut stmts, &mut cur, x, 0);
            }
            lex_token(&mut stmts, &mut cur, "}");
            Some(11)
        } else if c.infix && xs.len() == 2 {
            let prec = self.fixities.get(name).map_or(9, |f| f.1) as usize;
            read_field(&mut stmts, &mut cur, &xs[0], prec + 1);
            if is_operator_name(name) {
                lex_token(&mut stmts, &mut cur, name);
            } else {
                lex_token(&mut stmts, &mut cur, "`");
                lex_token(&mut stmts, &mut cur, name);
                lex_token(&mut stmts, &mut cur, "`");
            }
            read_field(&mut stmts, &mut cur, &xs[1], prec + 1);
            Some(prec)
        } else {
            name_tokens(&mut stmts, &mut cur, name);
            for x in &xs {
                read_field(&mut stmts, &mut cur, x, 11);
            }
            Some(10)
        };
        let value = self.app(
            Expr::Con(self.own(name)),
            xs.iter().map(|x| self.var(x)).collect(),
        );
        let result = Expr::Tuple(vec![value, self.var(&format!("s{cur}"))], self.span);
        let reader = self.lambda(
            vec![self.pvar("s0")],
            Expr::Comprehension(Box::new(result), stmts, self.span),
        );
        let cond = match limit {
            None => self.lib_con("False"),
            Some(p) => self.bin(">", self.var("d"), self.int(p)),
        };
        self.call("readParen", vec![cond, reader, self.var("s")])
    }

    // ------------------------------------------------------------ Eq

    fn eq(&self) -> Vec<Decl> {
        let cons = &self.data.constrs;
        let mut out: Vec<Decl> = cons
            .iter()
            .map(|c| {
                let tests: Vec<Expr> = self
                    .vars(c, "a")
                    .into_iter()
                    .zip(self.vars(c, "b"))
                    .map(|(a, b)| self.bin("==", a, b))
                    .collect();
                let body = match tests.len() {
                    0 => self.lib_con("True"),
                    _ => {
                        let mut tests = tests;
                        let mut e = tests.pop().unwrap();
                        while let Some(t) = tests.pop() {
                            e = self.bin("&&", t, e);
                        }
                        e
                    }
                };
                self.clause("==", vec![self.con_pat(c, "a"), self.con_pat(c, "b")], body)
            })
            .collect();
        match cons.len() {
            0 => out.push(self.clause("==", vec![self.wild(), self.wild()], self.lib_con("True"))),
            1 => {}
            _ => out.push(self.clause("==", vec![self.wild(), self.wild()], self.lib_con("False"))),
        }
        out
    }

    // ------------------------------------------------------------ Ord

    fn lt_result(&self, op: OrdOp) -> Expr {
        match op {
            OrdOp::Compare => self.lib_con("LT"),
            OrdOp::Lt => self.lib_con("True"),
        }
    }

    fn eq_result(&self, op: OrdOp) -> Expr {
        match op {
            OrdOp::Compare => self.lib_con("EQ"),
            OrdOp::Lt => self.lib_con("False"),
        }
    }

    fn gt_result(&self, op: OrdOp) -> Expr {
        match op {
            OrdOp::Compare => self.lib_con("GT"),
            OrdOp::Lt => self.lib_con("False"),
        }
    }

    fn ord_method(op: OrdOp) -> &'static str {
        match op {
            OrdOp::Compare => "compare",
            OrdOp::Lt => "<",
        }
    }

    /// Compares the fields `a1..an` with `b1..bn` lexicographically.
    fn compare_fields(&self, op: OrdOp, n: usize, i: usize) -> Expr {
        gph_syntax::stack::guard();
        let a = self.var(&format!("a{i}"));
        let b = self.var(&format!("b{i}"));
        if n == 0 {
            self.eq_result(op)
        } else if i == n {
            match op {
                OrdOp::Compare => self.call("compare", vec![a, b]),
                OrdOp::Lt => self.bin("<", a, b),
            }
        } else {
            let lt = self.lt_result(op);
            let eq = self.compare_fields(op, n, i + 1);
            let gt = self.gt_result(op);
            self.case(
                self.call("compare", vec![a, b]),
                vec![
                    (Pat::Con(self.lib("LT"), vec![], self.span), lt),
                    (Pat::Con(self.lib("EQ"), vec![], self.span), eq),
                    (Pat::Con(self.lib("GT"), vec![], self.span), gt),
                ],
            )
        }
    }

    /// `op a b` where `a` is known to be the `i`-th constructor and `b` is
    /// another one: compares constructor positions (GHC's `mkInnerRhs`).
    fn ord_inner(&self, op: OrdOp, i: usize, uses_tag: &mut bool) -> Expr {
        let cons = &self.data.constrs;
        let n = cons.len();
        let c = &cons[i];
        let same = (
            self.con_pat(c, "b"),
            self.compare_fields(op, c.fields.len(), 1),
        );
        let alts = if n == 1 {
            vec![same]
        } else if i == 0 {
            vec![same, (self.wild(), self.lt_result(op))]
        } else if i == n - 1 {
            vec![same, (self.wild(), self.gt_result(op))]
        } else if i == 1 {
            vec![
                (self.con_wild(&cons[0]), self.gt_result(op)),
                same,
                (self.wild(), self.lt_result(op)),
            ]
        } else if i == n - 2 {
            vec![
                (self.con_wild(&cons[n - 1]), self.lt_result(op)),
                same,
                (self.wild(), self.gt_result(op)),
            ]
        } else {
            *uses_tag = true;
            let tag_b = self.app(self.var("tag"), vec![self.var("b")]);
            let other = match op {
                OrdOp::Compare => self.call("compare", vec![self.int(i), tag_b]),
                OrdOp::Lt => self.bin("<", self.int(i), tag_b),
            };
            vec![same, (self.wild(), other)]
        };
        self.case(self.var("b"), alts)
    }

    fn ord_op(&self, op: OrdOp) -> Decl {
        let mut uses_tag = false;
        let alts = (0..self.data.constrs.len())
            .map(|i| {
                let c = &self.data.constrs[i];
                (self.con_pat(c, "a"), self.ord_inner(op, i, &mut uses_tag))
            })
            .collect();
        let body = self.case(self.var("a"), alts);
        let wheres = if uses_tag {
            self.tag_decls()
        } else {
            Vec::new()
        };
        Decl::FunClause {
            name: self.ident(Self::ord_method(op)),
            args: vec![self.pvar("a"), self.pvar("b")],
            rhs: Rhs {
                body: RhsBody::Plain(body),
                wheres,
                span: self.span,
            },
            span: self.span,
        }
    }

    fn ord(&self) -> Vec<Decl> {
        let cons = &self.data.constrs;
        if cons.is_empty() {
            return vec![self.clause(
                "compare",
                vec![self.wild(), self.wild()],
                self.lib_con("EQ"),
            )];
        }
        let mut out = vec![self.ord_op(OrdOp::Compare)];
        let enumeration = cons.iter().all(|c| c.fields.is_empty());
        if cons.len() <= 3 || enumeration {
            out.push(self.ord_op(OrdOp::Lt));
            let (a, b) = (self.var("a"), self.var("b"));
            let ab = vec![self.pvar("a"), self.pvar("b")];
            let not = |e: Expr| self.call("not", vec![e]);
            out.push(self.clause("<=", ab.clone(), not(self.bin("<", b.clone(), a.clone()))));
            out.push(self.clause(">", ab.clone(), self.bin("<", b.clone(), a.clone())));
            out.push(self.clause(">=", ab, not(self.bin("<", a, b))));
        }
        out
    }

    // ------------------------------------------------------------ Enum

    fn enum_(&self) -> Vec<Decl> {
        let cons = &self.data.constrs;
        let tname = &self.data.name.name;
        let last = cons.len() - 1;
        let a = || self.var("a");
        let from_enum = |e: Expr| self.call("fromEnum", vec![e]);
        let error = |msg: Expr| self.call("error", vec![msg]);
        let mut out = Vec::new();
        // succ / pred
        for (method, edge, step, what) in [("succ", last, "+", "last"), ("pred", 0, "-", "first")] {
            let msg = format!(
                "{method}{{{tname}}}: tried to take `{method}' of {what} tag in enumeration"
            );
            let next = self.call("toEnum", vec![self.bin(step, from_enum(a()), self.int(1))]);
            let body = self.case(
                a(),
                vec![
                    (self.con_pat(&cons[edge], "a"), error(self.string(&msg))),
                    (self.wild(), next),
                ],
            );
            out.push(self.clause(method, vec![self.pvar("a")], body));
        }
        // toEnum
        let mut alts: Vec<(Pat, Expr)> = cons
            .iter()
            .enumerate()
            .map(|(k, c)| {
                (
                    Pat::Lit(Literal::Int(Sym::from(k.to_string())), self.span),
                    Expr::Con(self.own(&c.name.name)),
                )
            })
            .collect();
        let msg = self.bin(
            "++",
            self.string(&format!("toEnum{{{tname}}}: tag (")),
            self.call(
                "showsPrec",
                vec![
                    self.int(0),
                    a(),
                    self.string(&format!(") is outside of enumeration's range (0,{last})")),
                ],
            ),
        );
        alts.push((self.wild(), error(msg)));
        out.push(self.clause("toEnum", vec![self.pvar("a")], self.case(a(), alts)));
        // fromEnum
        for (k, c) in cons.iter().enumerate() {
            out.push(self.clause("fromEnum", vec![self.con_pat(c, "a")], self.int(k)));
        }
        // enumFrom / enumFromThen
        let to_enums = |list: Expr| self.call("map", vec![self.lib_var("toEnum"), list]);
        out.push(self.clause(
            "enumFrom",
            vec![self.pvar("a")],
            to_enums(self.call("enumFromTo", vec![from_enum(a()), self.int(last)])),
        ));
        let b = || self.var("b");
        let limit = self.if_(
            self.bin(">", from_enum(a()), from_enum(b())),
            self.int(0),
            self.int(last),
        );
        out.push(self.clause(
            "enumFromThen",
            vec![self.pvar("a"), self.pvar("b")],
            to_enums(self.call(
                "enumFromThenTo",
                vec![from_enum(a()), from_enum(b()), limit],
            )),
        ));
        out
    }

    // ------------------------------------------------------------ Bounded

    fn bounded(&self) -> Vec<Decl> {
        let cons = &self.data.constrs;
        let (first, last) = (&cons[0], &cons[cons.len() - 1]);
        let bound = |c: &ConDecl, which: &str| {
            let args = c.fields.iter().map(|_| self.lib_var(which)).collect();
            self.app(Expr::Con(self.own(&c.name.name)), args)
        };
        vec![
            self.clause("minBound", vec![], bound(first, "minBound")),
            self.clause("maxBound", vec![], bound(last, "maxBound")),
        ]
    }

    // ------------------------------------------------------------ Functor, Foldable, Traversable

    /// A fresh variable `{stem}N`.
    fn fresh_name(&self, stem: &str) -> String {
        let n = self.fresh.get() + 1;
        self.fresh.set(n);
        format!("{stem}{n}")
    }

    fn lambda(&self, params: Vec<Pat>, body: Expr) -> Expr {
        Expr::Lambda(params, Box::new(body), self.span)
    }

    /// `method (\y -> inner y) x`: `inner` at each element of a field that
    /// is a list or an application `T .. a` (fmap, foldMap, traverse).
    fn through(&self, method: &str, x: Expr, inner: impl FnOnce(Expr) -> Expr) -> Expr {
        let y = self.fresh_name("y");
        let body = inner(self.var(&y));
        self.call(method, vec![self.lambda(vec![self.pvar(&y)], body), x])
    }

    /// A tuple field taken apart: a fresh variable per component and the
    /// pattern that binds them.
    fn tuple_parts(&self, ts: &[Type]) -> (Vec<Expr>, Pat) {
        let ys: Vec<String> = ts.iter().map(|_| self.fresh_name("y")).collect();
        let pat = Pat::Tuple(ys.iter().map(|y| self.pvar(y)).collect(), self.span);
        (ys.iter().map(|y| self.var(y)).collect(), pat)
    }

    /// `instance (C g, ..) => C (T a1 .. an-1)` over the last parameter, as
    /// GHC's DeriveFunctor, DeriveFoldable and DeriveTraversable generate
    /// it: `fmap`; `foldr` and `foldMap`; `traverse`. The context asks the
    /// class of each type variable applied to the last parameter in a field
    /// (`data Wrap f a = Wrap (f a)` needs `Functor f`).
    fn functorial(&self, class: &str) -> Result<Decl, Diagnostic> {
        let Some(last) = self.data.params.last() else {
            return Err(self.cannot(
                class,
                "it must have a type parameter (the one the class maps over)",
            ));
        };
        let a = &last.name;
        let mut context_vars: Vec<Sym> = Vec::new();
        for c in &self.data.constrs {
            for f in &c.fields {
                self.check_functorial(class, &f.ty, a, &mut context_vars)?;
            }
        }
        let decls = match class {
            "Functor" => self.derive_fmap(a),
            "Foldable" => {
                let mut ds = self.derive_foldr(a);
                ds.extend(self.derive_foldmap(a));
                ds
            }
            _ => self.derive_traverse(a),
        };
        let params = &self.data.params[..self.data.params.len() - 1];
        let head = params
            .iter()
            .fold(Type::Con(self.own(&self.data.name.name)), |t, p| {
                Type::App(Box::new(t), Box::new(Type::Var(p.clone())), self.span)
            });
        let context = context_vars
            .into_iter()
            .map(|v| Pred {
                class: self.lib(class),
                ty: Type::Var(Ident {
                    name: v,
                    span: self.span,
                }),
                span: self.span,
            })
            .collect();
        Ok(Decl::Instance(InstanceDecl {
            context,
            class: self.lib(class),
            ty: head,
            decls,
            span: self.span,
            newtype_derived: false,
        }))
    }

    /// Whether the class can be derived through a field of this type; the
    /// type variables applied to the last parameter go to `context`.
    fn check_functorial(
        &self,
        class: &str,
        t: &Type,
        a: &Sym,
        context: &mut Vec<Sym>,
    ) -> Result<(), Diagnostic> {
        gph_syntax::stack::guard();
        if !mentions(t, a) {
            return Ok(());
        }
        match t {
            Type::Var(_) => Ok(()),
            Type::Forall(_) => Err(self.cannot(class, "a field has a polymorphic (`forall`) type")),
            Type::Bang(t, _) | Type::List(t, _) => self.check_functorial(class, t, a, context),
            Type::Tuple(ts, _) => ts
                .iter()
                .try_for_each(|t| self.check_functorial(class, t, a, context)),
            Type::App(f, x, _) => {
                if mentions(f, a) {
                    return Err(self.cannot(
                        class,
                        &format!("its last parameter `{a}` occurs other than as the last argument of a type"),
                    ));
                }
                let mut head = &**f;
                while let Type::App(g, _, _) = head {
                    head = g;
                }
                if let Type::Var(v) = head {
                    if !context.contains(&v.name) {
                        context.push(v.name.clone());
                    }
                }
                self.check_functorial(class, x, a, context)
            }
            Type::Fun(arg, res, _) => {
                if class != "Functor" || mentions(arg, a) {
                    Err(self.cannot(
                        class,
                        &format!("its last parameter `{a}` occurs in a function type"),
                    ))
                } else {
                    self.check_functorial(class, res, a, context)
                }
            }
            Type::Con(_) => Ok(()),
        }
    }

    /// Each constructor's clause `m f .. (C x1 .. xn) = body`.
    fn per_constructor(
        &self,
        method: &str,
        before: Vec<Pat>,
        body: impl Fn(&ConDecl, Vec<Expr>) -> Expr,
    ) -> Vec<Decl> {
        self.data
            .constrs
            .iter()
            .map(|c| {
                let mut args = before.clone();
                args.push(self.con_pat(c, "x"));
                self.clause(method, args, body(c, self.vars(c, "x")))
            })
            .collect()
    }

    fn derive_fmap(&self, a: &Sym) -> Vec<Decl> {
        if self.data.constrs.is_empty() {
            // fmap _ z = case z of {} (evaluates the argument, as GHC's).
            vec![self.clause(
                "fmap",
                vec![self.wild(), self.pvar("z")],
                self.call("seq", vec![self.var("z"), self.lib_var("undefined")]),
            )]
        } else {
            self.per_constructor("fmap", vec![self.pvar("f")], |c, xs| {
                let fields = c
                    .fields
                    .iter()
                    .zip(xs)
                    .map(|(fd, x)| self.fmap_field(&fd.ty, a, x))
                    .collect();
                self.app(Expr::Con(self.own(&c.name.name)), fields)
            })
        }
    }

    /// `x` with `f` applied at each occurrence of `a` in its type.
    fn fmap_field(&self, t: &Type, a: &Sym, x: Expr) -> Expr {
        gph_syntax::stack::guard();
        if !mentions(t, a) {
            return x;
        }
        match t {
            Type::Var(_) => self.app(self.var("f"), vec![x]),
            Type::Bang(t, _) => self.fmap_field(t, a, x),
            // Refused by `check_functorial` before.
            Type::Forall(_) => x,
            Type::List(t, _) | Type::App(_, t, _) => {
                self.through("fmap", x, |y| self.fmap_field(t, a, y))
            }
            Type::Tuple(ts, _) => {
                let (ys, pat) = self.tuple_parts(ts);
                let parts = ts
                    .iter()
                    .zip(ys)
                    .map(|(t, y)| self.fmap_field(t, a, y))
                    .collect();
                self.case(x, vec![(pat, Expr::Tuple(parts, self.span))])
            }
            Type::Fun(_, res, _) => {
                let y = self.fresh_name("y");
                let applied = self.app(x, vec![self.var(&y)]);
                self.lambda(vec![self.pvar(&y)], self.fmap_field(res, a, applied))
            }
            Type::Con(_) => x,
        }
    }

    fn derive_foldr(&self, a: &Sym) -> Vec<Decl> {
        if self.data.constrs.is_empty() {
            vec![self.clause(
                "foldr",
                vec![self.wild(), self.pvar("z"), self.wild()],
                self.var("z"),
            )]
        } else {
            self.per_constructor("foldr", vec![self.pvar("f"), self.pvar("z")], |c, xs| {
                c.fields
                    .iter()
                    .zip(xs)
                    .rev()
                    .fold(self.var("z"), |acc, (fd, x)| {
                        self.foldr_field(&fd.ty, a, x, acc)
                    })
            })
        }
    }

    /// The right fold of `f` over the `a`s in `x`, ending in `acc`.
    fn foldr_field(&self, t: &Type, a: &Sym, x: Expr, acc: Expr) -> Expr {
        gph_syntax::stack::guard();
        if !mentions(t, a) {
            return acc;
        }
        match t {
            Type::Var(_) => self.app(self.var("f"), vec![x, acc]),
            Type::Bang(t, _) => self.foldr_field(t, a, x, acc),
            // Refused by `check_functorial` before.
            Type::Forall(_) => acc,
            Type::List(t, _) | Type::App(_, t, _) => {
                let (y, r) = (self.fresh_name("y"), self.fresh_name("r"));
                let inner = self.foldr_field(t, a, self.var(&y), self.var(&r));
                let step = self.lambda(vec![self.pvar(&y), self.pvar(&r)], inner);
                self.call("foldr", vec![step, acc, x])
            }
            Type::Tuple(ts, _) => {
                let (ys, pat) = self.tuple_parts(ts);
                let body = ts
                    .iter()
                    .zip(ys)
                    .rev()
                    .fold(acc, |acc, (t, y)| self.foldr_field(t, a, y, acc));
                self.case(x, vec![(pat, body)])
            }
            Type::Fun(..) | Type::Con(_) => acc,
        }
    }

    fn derive_foldmap(&self, a: &Sym) -> Vec<Decl> {
        if self.data.constrs.is_empty() {
            vec![self.clause(
                "foldMap",
                vec![self.wild(), self.wild()],
                self.lib_var("mempty"),
            )]
        } else {
            self.per_constructor("foldMap", vec![self.pvar("f")], |c, xs| {
                let parts: Vec<Expr> = c
                    .fields
                    .iter()
                    .zip(xs)
                    .filter(|(fd, _)| mentions(&fd.ty, a))
                    .map(|(fd, x)| self.foldmap_field(&fd.ty, a, x))
                    .collect();
                self.mappends(parts)
            })
        }
    }

    /// `p1 <> (p2 <> ...)`, `mempty` for none.
    fn mappends(&self, mut parts: Vec<Expr>) -> Expr {
        let Some(mut e) = parts.pop() else {
            return self.lib_var("mempty");
        };
        while let Some(p) = parts.pop() {
            e = self.call("mappend", vec![p, e]);
        }
        e
    }

    /// foldMap of `f` over the `a`s in `x`.
    fn foldmap_field(&self, t: &Type, a: &Sym, x: Expr) -> Expr {
        gph_syntax::stack::guard();
        if !mentions(t, a) {
            return self.lib_var("mempty");
        }
        match t {
            Type::Var(_) => self.app(self.var("f"), vec![x]),
            Type::Bang(t, _) => self.foldmap_field(t, a, x),
            // Refused by `check_functorial` before.
            Type::Forall(_) => self.lib_var("mempty"),
            Type::List(t, _) | Type::App(_, t, _) => {
                self.through("foldMap", x, |y| self.foldmap_field(t, a, y))
            }
            Type::Tuple(ts, _) => {
                let (ys, pat) = self.tuple_parts(ts);
                let parts = ts
                    .iter()
                    .zip(ys)
                    .filter(|(t, _)| mentions(t, a))
                    .map(|(t, y)| self.foldmap_field(t, a, y))
                    .collect();
                self.case(x, vec![(pat, self.mappends(parts))])
            }
            Type::Fun(..) | Type::Con(_) => self.lib_var("mempty"),
        }
    }

    fn derive_traverse(&self, a: &Sym) -> Vec<Decl> {
        if self.data.constrs.is_empty() {
            vec![self.clause(
                "traverse",
                vec![self.wild(), self.pvar("z")],
                self.call(
                    "pure",
                    vec![self.call("seq", vec![self.var("z"), self.lib_var("undefined")])],
                ),
            )]
        } else {
            self.per_constructor("traverse", vec![self.pvar("f")], |c, xs| {
                let parts = c
                    .fields
                    .iter()
                    .zip(xs)
                    .map(|(fd, x)| self.traverse_field(&fd.ty, a, x))
                    .collect();
                self.applicative(Expr::Con(self.own(&c.name.name)), parts)
            })
        }
    }

    /// `pure k <*> p1 <*> .. <*> pn`.
    fn applicative(&self, k: Expr, parts: Vec<Expr>) -> Expr {
        parts
            .into_iter()
            .fold(self.call("pure", vec![k]), |acc, p| self.bin("<*>", acc, p))
    }

    /// The traversal of `f` over the `a`s in `x`, rebuilding it.
    fn traverse_field(&self, t: &Type, a: &Sym, x: Expr) -> Expr {
        gph_syntax::stack::guard();
        if !mentions(t, a) {
            return self.call("pure", vec![x]);
        }
        match t {
            Type::Var(_) => self.app(self.var("f"), vec![x]),
            Type::Bang(t, _) => self.traverse_field(t, a, x),
            // Refused by `check_functorial` before.
            Type::Forall(_) => self.call("pure", vec![x]),
            Type::List(t, _) | Type::App(_, t, _) => {
                self.through("traverse", x, |y| self.traverse_field(t, a, y))
            }
            Type::Tuple(ts, _) => {
                let (ys, pat) = self.tuple_parts(ts);
                let zs: Vec<String> = ts.iter().map(|_| self.fresh_name("z")).collect();
                let parts = ts
                    .iter()
                    .zip(ys)
                    .map(|(t, y)| self.traverse_field(t, a, y))
                    .collect();
                let rebuild = self.lambda(
                    zs.iter().map(|z| self.pvar(z)).collect(),
                    Expr::Tuple(zs.iter().map(|z| self.var(z)).collect(), self.span),
                );
                self.case(x, vec![(pat, self.applicative(rebuild, parts))])
            }
            Type::Fun(..) | Type::Con(_) => self.call("pure", vec![x]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gph_syntax::{pretty, SourceFile};

    /// Parses a module and derives the instances of its data declarations.
    fn derive(src: &str) -> (String, Vec<String>) {
        let file = SourceFile::new("T.gph", src);
        let (m, diags) = gph_syntax::parse_file(&file);
        assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
        let m = m.unwrap();
        let mut fixities = HashMap::new();
        for d in &m.decls {
            if let Decl::Fixity {
                assoc, prec, ops, ..
            } = d
            {
                for o in ops {
                    fixities.insert(o.name.clone(), (*assoc, *prec));
                }
            }
        }
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for d in &m.decls {
            if let Decl::Data(dd) = d {
                let (ds, diags) = derive_instances(dd, "Main", &fixities, &[], &|_| false);
                out.extend(ds);
                errors.extend(diags.into_iter().map(|d| d.message));
            }
        }
        (pretty::decls(&out), errors)
    }

    #[test]
    fn show_prefix_infix_record() {
        let (out, errs) = derive(
            "infixr 5 :+:\n\
             data T a = L | N (T a) a | a :+: a | R { x :: Int, (&&&) :: a } deriving Show",
        );
        assert!(errs.is_empty());
        assert_eq!(
            out,
            r#"instance Prelude.Show a => Prelude.Show (Main.T a) where
  showsPrec _ Main.L = Prelude.showString "L"
  showsPrec d (Main.N b1 b2) = Prelude.showParen (d Prelude.>= 11) (Prelude.showString "N " Prelude.. (Prelude.showsPrec 11 b1 Prelude.. (Prelude.showSpace Prelude.. Prelude.showsPrec 11 b2)))
  showsPrec d (b1 Main.:+: b2) = Prelude.showParen (d Prelude.>= 6) (Prelude.showsPrec 6 b1 Prelude.. (Prelude.showString " :+: " Prelude.. Prelude.showsPrec 6 b2))
  showsPrec d (Main.R b1 b2) = Prelude.showParen (d Prelude.>= 11) (Prelude.showString "R {" Prelude.. (Prelude.showString "x = " Prelude.. (Prelude.showsPrec 0 b1 Prelude.. (Prelude.showString ", " Prelude.. (Prelude.showString "(&&&) = " Prelude.. (Prelude.showsPrec 0 b2 Prelude.. Prelude.showString "}"))))))
"#
        );
    }

    #[test]
    fn show_backquoted_infix_default_fixity_and_phantom() {
        let (out, _) = derive("data P a b = Int `P` Int deriving (Show)");
        assert_eq!(
            out,
            r#"instance Prelude.Show (Main.P a b) where
  showsPrec d (Main.P b1 b2) = Prelude.showParen (d Prelude.>= 10) (Prelude.showsPrec 10 b1 Prelude.. (Prelude.showString " `P` " Prelude.. Prelude.showsPrec 10 b2))
"#
        );
    }

    #[test]
    fn eq_and_ord() {
        let (out, _) = derive("data V = V Int Double | W deriving (Eq, Ord)");
        assert_eq!(
            out,
            r#"instance Prelude.Eq Main.V where
  Main.V a1 a2 == Main.V b1 b2 = (a1 Prelude.== b1) Prelude.&& (a2 Prelude.== b2)
  Main.W == Main.W = Gph.Prim.True
  _ == _ = Gph.Prim.False

instance Prelude.Ord Main.V where
  compare a b = case a of
    Main.V a1 a2 -> case b of
      Main.V b1 b2 -> case Prelude.compare a1 b1 of
        Prelude.LT -> Prelude.LT
        Prelude.EQ -> Prelude.compare a2 b2
        Prelude.GT -> Prelude.GT
      _ -> Prelude.LT
    Main.W -> case b of
      Main.W -> Prelude.EQ
      _ -> Prelude.GT
  a < b = case a of
    Main.V a1 a2 -> case b of
      Main.V b1 b2 -> case Prelude.compare a1 b1 of
        Prelude.LT -> Gph.Prim.True
        Prelude.EQ -> a2 Prelude.< b2
        Prelude.GT -> Gph.Prim.False
      _ -> Gph.Prim.True
    Main.W -> case b of
      Main.W -> Gph.Prim.False
      _ -> Gph.Prim.False
  a <= b = Prelude.not (b Prelude.< a)
  a > b = b Prelude.< a
  a >= b = Prelude.not (a Prelude.< b)
"#
        );
    }

    #[test]
    fn ord_of_a_large_type_uses_positions() {
        let (out, _) = derive("data E = A | B Int | C | D | F Int deriving Ord");
        // Five constructors, not all nullary: only `compare`; the middle
        // constructor compares positions through `tag`.
        assert!(out.contains("  compare a b = case a of\n"), "{out}");
        assert!(!out.contains(" < "), "{out}");
        assert!(
            out.contains("    Main.C -> case b of\n      Main.C -> Prelude.EQ\n      _ -> Prelude.compare 2 (tag b)\n"),
            "{out}"
        );
        assert!(out.contains("    where\n      tag :: Main.E -> Gph.Prim.Int\n      tag Main.A = 0\n      tag (Main.B _) = 1\n"), "{out}");
        assert!(out.contains("      Main.A -> Prelude.GT\n      Main.B b1 -> Prelude.compare a1 b1\n      _ -> Prelude.LT\n"), "{out}");
    }

    #[test]
    fn enum_and_bounded() {
        let (out, errs) = derive("data Color = Red | Green | Blue deriving (Enum, Bounded)");
        assert!(errs.is_empty());
        assert_eq!(
            out,
            r#"instance Prelude.Enum Main.Color where
  succ a = case a of
    Main.Blue -> Prelude.error "succ{Color}: tried to take `succ' of last tag in enumeration"
    _ -> Prelude.toEnum (Prelude.fromEnum a Prelude.+ 1)
  pred a = case a of
    Main.Red -> Prelude.error "pred{Color}: tried to take `pred' of first tag in enumeration"
    _ -> Prelude.toEnum (Prelude.fromEnum a Prelude.- 1)
  toEnum a = case a of
    0 -> Main.Red
    1 -> Main.Green
    2 -> Main.Blue
    _ -> Prelude.error ("toEnum{Color}: tag (" Prelude.++ Prelude.showsPrec 0 a ") is outside of enumeration's range (0,2)")
  fromEnum Main.Red = 0
  fromEnum Main.Green = 1
  fromEnum Main.Blue = 2
  enumFrom a = Prelude.map Prelude.toEnum (Prelude.enumFromTo (Prelude.fromEnum a) 2)
  enumFromThen a b = Prelude.map Prelude.toEnum (Prelude.enumFromThenTo (Prelude.fromEnum a) (Prelude.fromEnum b) (if Prelude.fromEnum a Prelude.> Prelude.fromEnum b then 0 else 2))

instance Prelude.Bounded Main.Color where
  minBound = Main.Red
  maxBound = Main.Blue
"#
        );
        let (out, errs) = derive("data P a = P a Bool deriving (Bounded)");
        assert!(errs.is_empty());
        assert_eq!(
            out,
            "instance Prelude.Bounded a => Prelude.Bounded (Main.P a) where\n  minBound = Main.P Prelude.minBound Prelude.minBound\n  maxBound = Main.P Prelude.maxBound Prelude.maxBound\n"
        );
    }

    #[test]
    fn diagnostics() {
        let (_, errs) = derive(
            "data T a = A a | B deriving (Enum, Bounded, Generic, Show, Show)\n\
             data U a = U (a -> Int) deriving (Functor, Foldable)\n\
             data V = V Int deriving Functor\n\
             data W a = W (Either a Int) deriving Traversable",
        );
        assert_eq!(
            errs,
            vec![
                "can't derive Enum for a type with a non-nullary constructor",
                "can't derive Bounded for `T`: it must be an enumeration (only nullary constructors) or have exactly one constructor",
                "cannot derive `Generic`: gph derives Show, Read, Eq, Ord, Enum, Bounded, Ix, Functor, Foldable and Traversable",
                "`Show` is derived twice for `T`",
                "can't derive Functor for `U`: its last parameter `a` occurs in a function type",
                "can't derive Foldable for `U`: its last parameter `a` occurs in a function type",
                "can't derive Functor for `V`: it must have a type parameter (the one the class maps over)",
                "can't derive Traversable for `W`: its last parameter `a` occurs other than as the last argument of a type",
            ]
        );
    }

    #[test]
    fn functor_foldable_traversable() {
        let (out, errs) = derive(
            "data T b a = L | N (T b a) a [(b, a)] deriving (Functor, Foldable, Traversable)",
        );
        assert!(errs.is_empty(), "{errs:?}");
        for want in [
            "instance Prelude.Functor (Main.T b) where",
            "fmap f (Main.N x1 x2 x3) = Main.N (Prelude.fmap (\\y1 -> f y1) x1) (f x2)",
            "foldr f z (Main.N x1 x2 x3) = Prelude.foldr",
            "foldMap f (Main.N x1 x2 x3) = Prelude.mappend",
            "traverse f (Main.N x1 x2 x3) = ((Prelude.pure Main.N Prelude.<*> Prelude.traverse",
        ] {
            assert!(out.contains(want), "no `{want}` in\n{out}");
        }
    }

    #[test]
    fn empty_and_newtype() {
        let (out, _) =
            derive("data Void deriving (Show, Eq, Ord)\nnewtype N = N Int deriving (Show)");
        assert_eq!(
            out,
            r#"instance Prelude.Show Main.Void where
  showsPrec _ z = Prelude.seq z Prelude.undefined

instance Prelude.Eq Main.Void where
  _ == _ = Gph.Prim.True

instance Prelude.Ord Main.Void where
  compare _ _ = Prelude.EQ

instance Prelude.Show Main.N where
  showsPrec d (Main.N b1) = Prelude.showParen (d Prelude.>= 11) (Prelude.showString "N " Prelude.. Prelude.showsPrec 11 b1)
"#
        );
    }
}
