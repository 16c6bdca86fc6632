//! Kinds: inference for the type declarations of a module (data, newtype,
//! synonyms, classes; unconstrained kinds default to `*`), kind checking of
//! signatures and annotations, and the conversion of syntax types into
//! `Type`s with synonyms expanded (and remembered for printing).

use super::env::*;
use super::tc::Tc;
use super::ty::*;
use gph_syntax::ast::{self, Decl};
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, Span};
use std::collections::HashMap;

/// Type variables in scope during kind checking, with their kinds.
pub type KScope = Vec<(Sym, Kind)>;

/// Prints a syntax type the way the user wrote it (unqualified names).
pub fn show_ast_type(t: &ast::Type) -> String {
    show_ast_type_prec(t, 0)
}

/// As `show_ast_type`, parenthesised as the argument of a type
/// application when `prec` is 2.
pub fn show_ast_type_prec(t: &ast::Type, prec: u8) -> String {
    fn go(t: &ast::Type, prec: u8, out: &mut String) {
        gph_syntax::stack::guard();
        match t {
            ast::Type::Var(i) => out.push_str(&i.name),
            ast::Type::Con(q) => out.push_str(&q.name),
            ast::Type::App(f, a, _) => {
                if prec >= 2 {
                    out.push('(');
                }
                go(f, 1, out);
                out.push(' ');
                go(a, 2, out);
                if prec >= 2 {
                    out.push(')');
                }
            }
            ast::Type::Fun(a, b, _) => {
                if prec >= 1 {
                    out.push('(');
                }
                go(a, 1, out);
                out.push_str(" -> ");
                go(b, 0, out);
                if prec >= 1 {
                    out.push(')');
                }
            }
            ast::Type::List(a, _) => {
                out.push('[');
                go(a, 0, out);
                out.push(']');
            }
            ast::Type::Tuple(ts, _) => {
                out.push('(');
                for (i, x) in ts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    go(x, 0, out);
                }
                out.push(')');
            }
            ast::Type::Bang(a, _) => {
                out.push('!');
                go(a, 2, out);
            }
            ast::Type::Forall(_) => {
                let text = gph_syntax::pretty::ty(t);
                if prec >= 1 {
                    out.push_str(&format!("({text})"));
                } else {
                    out.push_str(&text);
                }
            }
        }
    }
    let mut s = String::new();
    go(t, prec, &mut s);
    s
}

/// The type with its variables replaced by `sub`'s types (those not in it
/// kept).
fn subst_ast(t: &ast::Type, sub: &HashMap<Sym, ast::Type>) -> ast::Type {
    gph_syntax::stack::guard();
    match t {
        ast::Type::Var(v) => sub.get(&v.name).cloned().unwrap_or_else(|| t.clone()),
        ast::Type::Con(_) | ast::Type::Forall(_) => t.clone(),
        ast::Type::App(a, b, s) => {
            ast::Type::App(Box::new(subst_ast(a, sub)), Box::new(subst_ast(b, sub)), *s)
        }
        ast::Type::Fun(a, b, s) => {
            ast::Type::Fun(Box::new(subst_ast(a, sub)), Box::new(subst_ast(b, sub)), *s)
        }
        ast::Type::List(a, s) => ast::Type::List(Box::new(subst_ast(a, sub)), *s),
        ast::Type::Bang(a, s) => ast::Type::Bang(Box::new(subst_ast(a, sub)), *s),
        ast::Type::Tuple(ts, s) => {
            ast::Type::Tuple(ts.iter().map(|x| subst_ast(x, sub)).collect(), *s)
        }
    }
}

fn ast_spine(t: &ast::Type) -> (&ast::Type, Vec<&ast::Type>) {
    let mut args = Vec::new();
    let mut t = t;
    while let ast::Type::App(f, a, _) = t {
        args.push(&**a);
        t = f;
    }
    args.reverse();
    (t, args)
}

impl Tc {
    // ------------------------------------------------------------ kind unification

    pub fn kfresh(&mut self) -> Kind {
        self.kvars.push(None);
        Kind::Var(self.kvars.len() as u32 - 1)
    }

    fn kprune(&self, k: &Kind) -> Kind {
        let mut k = k.clone();
        while let Kind::Var(v) = k {
            match self.kvars.get(v as usize).cloned().flatten() {
                Some(next) => k = next,
                None => break,
            }
        }
        k
    }

    fn koccurs(&self, v: u32, k: &Kind) -> bool {
        gph_syntax::stack::guard();
        match self.kprune(k) {
            Kind::Var(w) => w == v,
            Kind::Star => false,
            Kind::Arrow(a, b) => self.koccurs(v, &a) || self.koccurs(v, &b),
        }
    }

    pub fn kunify(&mut self, a: &Kind, b: &Kind) -> bool {
        gph_syntax::stack::guard();
        let (a, b) = (self.kprune(a), self.kprune(b));
        match (&a, &b) {
            (Kind::Star, Kind::Star) => true,
            (Kind::Var(x), Kind::Var(y)) if x == y => true,
            (Kind::Var(x), k) | (k, Kind::Var(x)) => {
                if self.koccurs(*x, k) {
                    return false;
                }
                self.kvars[*x as usize] = Some(k.clone());
                true
            }
            (Kind::Arrow(a1, b1), Kind::Arrow(a2, b2)) => {
                self.kunify(a1, a2) && self.kunify(b1, b2)
            }
            _ => false,
        }
    }

    /// Resolves a kind, defaulting unconstrained variables to `*`.
    pub fn kdefault(&self, k: &Kind) -> Kind {
        gph_syntax::stack::guard();
        match self.kprune(k) {
            Kind::Var(_) | Kind::Star => Kind::Star,
            Kind::Arrow(a, b) => Kind::arrow(self.kdefault(&a), self.kdefault(&b)),
        }
    }

    fn kshow(&self, k: &Kind) -> String {
        self.kdefault(k).to_string()
    }

    // ------------------------------------------------------------ kind checking

    fn tycon_of_name(&self, q: &ast::QName) -> Option<TcId> {
        self.env.lookup_tycon(&Tc::global_of(q))
    }

    /// The kind of a syntax type; reports errors and returns `None` after one.
    /// `new_vars`: unknown type variables are added to the scope (in a
    /// signature) rather than reported (in a declaration's body).
    pub fn kind_of(&mut self, t: &ast::Type, scope: &mut KScope, new_vars: bool) -> Option<Kind> {
        gph_syntax::stack::guard();
        match t {
            ast::Type::Var(id) => {
                if let Some((_, k)) = scope.iter().find(|(n, _)| *n == id.name) {
                    return Some(k.clone());
                }
                if new_vars {
                    let k = self.kfresh();
                    scope.push((id.name.clone(), k.clone()));
                    Some(k)
                } else {
                    self.error(Diagnostic::error(
                        id.span,
                        format!("type variable `{}` is not in scope", id.name),
                    ));
                    None
                }
            }
            // The arguments of a constraint on several types: their kinds
            // are the class's parameters' (`check_pred_kind`).
            ast::Type::Con(q) if q.qual.is_none() && ast::is_multi_param_name(&q.name) => {
                let n: usize = q.name[2..q.name.len() - 1].parse().unwrap_or(0);
                let mut k = Kind::Star;
                for _ in 0..n {
                    k = Kind::arrow(self.kfresh(), k);
                }
                Some(k)
            }
            ast::Type::Con(q) => match self.tycon_of_name(q) {
                Some(tc) => {
                    let info = self.env.tycon(tc);
                    if let TyConDef::Synonym { params, .. } = info.def {
                        if params > 0 {
                            self.synonym_arity_error(q, params, 0, q.span);
                            return None;
                        }
                    }
                    Some(info.kind.clone())
                }
                None => {
                    if self.env.lookup_class(&Tc::global_of(q)).is_some() {
                        self.error(Diagnostic::error(
                            q.span,
                            format!("`{}` is a class, but it is used as a type", q.name),
                        ));
                    } else {
                        self.error(Diagnostic::error(
                            q.span,
                            format!("type `{}` is not in scope", q.name),
                        ));
                    }
                    None
                }
            },
            ast::Type::App(_, _, span) => {
                let (head, args) = ast_spine(t);
                if let ast::Type::Con(q) = head {
                    if let Some(tc) = self.tycon_of_name(q) {
                        if let TyConDef::Synonym { params, .. } = self.env.tycon(tc).def {
                            if args.len() < params {
                                self.synonym_arity_error(q, params, args.len(), *span);
                                return None;
                            }
                        }
                    }
                }
                let mut kf = match head {
                    ast::Type::Con(q) if q.qual.is_none() && ast::is_multi_param_name(&q.name) => {
                        self.kind_of(head, scope, new_vars)?
                    }
                    ast::Type::Con(q) => match self.tycon_of_name(q) {
                        Some(tc) => self.env.tycon(tc).kind.clone(),
                        None => self.kind_of(head, scope, new_vars)?,
                    },
                    _ => self.kind_of(head, scope, new_vars)?,
                };
                let mut applied_span = head.span();
                for a in args {
                    let ka = self.kind_of(a, scope, new_vars)?;
                    match self.kprune(&kf) {
                        Kind::Arrow(p, r) => {
                            if !self.kunify(&p, &ka) {
                                let msg = format!(
                                    "expected kind `{}`, but `{}` has kind `{}`",
                                    self.kshow(&p),
                                    show_ast_type(a),
                                    self.kshow(&ka)
                                );
                                self.error(Diagnostic::error(a.span(), msg));
                                return None;
                            }
                            kf = (*r).clone();
                        }
                        Kind::Var(_) => {
                            let r = self.kfresh();
                            let want = Kind::arrow(ka, r.clone());
                            if !self.kunify(&kf, &want) {
                                self.error(Diagnostic::error(a.span(), "kind mismatch"));
                                return None;
                            }
                            kf = r;
                        }
                        Kind::Star => {
                            let partial =
                                ast::Type::App(Box::new(head.clone()), Box::new(a.clone()), *span);
                            let shown = show_ast_type(&partial);
                            let shown = shown
                                .rsplit_once(' ')
                                .map_or(shown.clone(), |(f, _)| f.to_string());
                            let msg = format!(
                                "expected kind `{} -> *`, but `{}` has kind `*`",
                                self.kshow(&ka),
                                shown.trim_start_matches('(')
                            );
                            self.error(
                                Diagnostic::error(applied_span, msg)
                                    .with_label("this is applied to too many type arguments"),
                            );
                            return None;
                        }
                    }
                    applied_span = applied_span.to(a.span());
                }
                Some(kf)
            }
            ast::Type::Fun(a, b, _) => {
                let ok_a = self.expect_star(a, scope, new_vars);
                let ok_b = self.expect_star(b, scope, new_vars);
                (ok_a && ok_b).then_some(Kind::Star)
            }
            ast::Type::List(a, _) => self.expect_star(a, scope, new_vars).then_some(Kind::Star),
            ast::Type::Tuple(ts, _) => {
                let mut ok = true;
                for x in ts {
                    ok &= self.expect_star(x, scope, new_vars);
                }
                ok.then_some(Kind::Star)
            }
            ast::Type::Forall(q) => {
                // Its variables are its own: in front of the scope (found
                // first), removed after.
                let n = q.forall.len();
                for v in q.forall.iter().rev() {
                    let k = self.kfresh();
                    scope.insert(0, (v.name.clone(), k));
                }
                let mut ok = true;
                for p in &q.context {
                    ok &= self.check_pred_kind(p, scope, new_vars).is_some();
                }
                ok &= self.expect_star(&q.ty, scope, new_vars);
                scope.drain(0..n);
                ok.then_some(Kind::Star)
            }
            ast::Type::Bang(_, span) => {
                self.error(
                    Diagnostic::error(
                        *span,
                        format!("unexpected strictness annotation: {}", show_ast_type(t)),
                    )
                    .with_help(
                        "a strictness mark `!` may only stand before a field of a data constructor",
                    ),
                );
                None
            }
        }
    }

    fn synonym_arity_error(&mut self, q: &ast::QName, params: usize, given: usize, span: Span) {
        let given = if given == 0 {
            "none".to_string()
        } else {
            given.to_string()
        };
        self.error(Diagnostic::error(
            span,
            format!(
                "the type synonym `{}` should have {}, but has been given {given}",
                q.name,
                super::errors::count(params, "argument")
            ),
        ));
    }

    /// Checks that a syntax type has kind `*`.
    pub fn expect_star(&mut self, t: &ast::Type, scope: &mut KScope, new_vars: bool) -> bool {
        let Some(k) = self.kind_of(t, scope, new_vars) else {
            return false;
        };
        if self.kunify(&k, &Kind::Star) {
            return true;
        }
        let kd = self.kdefault(&k);
        let mut missing = 0;
        let mut kk = kd.clone();
        while let Kind::Arrow(_, r) = kk {
            missing += 1;
            kk = (*r).clone();
        }
        let shown = show_ast_type(t);
        let msg = if missing > 0 {
            format!(
                "expecting {} more argument{} to `{shown}`",
                if missing == 1 {
                    "one".to_string()
                } else {
                    missing.to_string()
                },
                if missing == 1 { "" } else { "s" }
            )
        } else {
            format!("`{shown}` is not a type")
        };
        self.error(
            Diagnostic::error(t.span(), msg)
                .with_label(format!("expected a type, but `{shown}` has kind `{kd}`")),
        );
        false
    }

    /// Checks the kind of a constraint `C t`.
    pub fn check_pred_kind(
        &mut self,
        p: &ast::Pred,
        scope: &mut KScope,
        new_vars: bool,
    ) -> Option<ClassId> {
        let g = Tc::global_of(&p.class);
        let Some(c) = self.env.lookup_class(&g) else {
            self.error(Diagnostic::error(
                p.class.span,
                format!("class `{}` is not in scope", p.class.name),
            ));
            return None;
        };
        let args = ast::constraint_args(&p.ty);
        let arity = self.env.class_arity(c);
        if args.len() != arity {
            self.error(Diagnostic::error(
                p.span,
                format!(
                    "`{}` is applied to {}, but the class has {}",
                    p.class.name,
                    super::errors::count(args.len(), "type"),
                    super::errors::count(arity, "parameter")
                ),
            ));
            return None;
        }
        if arity > 1 {
            let kinds: Vec<Kind> = std::iter::once(self.env.class(c).kind.clone())
                .chain(self.env.class(c).more.iter().map(|(_, k)| k.clone()))
                .collect();
            let mut ok = true;
            for (a, ck) in args.iter().zip(kinds) {
                let Some(k) = self.kind_of(a, scope, new_vars) else {
                    ok = false;
                    continue;
                };
                if !self.kunify(&k, &ck) {
                    let msg = format!(
                        "expected kind `{}` for an argument of `{}`, but `{}` has kind `{}`",
                        self.kshow(&ck),
                        p.class.name,
                        show_ast_type(a),
                        self.kshow(&k)
                    );
                    self.error(Diagnostic::error(a.span(), msg));
                    ok = false;
                }
            }
            return ok.then_some(c);
        }
        let k = self.kind_of(&p.ty, scope, new_vars)?;
        let ck = self.env.class(c).kind.clone();
        if !self.kunify(&k, &ck) {
            let msg = format!(
                "expected kind `{}` for the argument of `{}`, but `{}` has kind `{}`",
                self.kshow(&ck),
                p.class.name,
                show_ast_type(&p.ty),
                self.kshow(&k)
            );
            self.error(Diagnostic::error(p.ty.span(), msg));
            return None;
        }
        Some(c)
    }

    /// The kind scope of a class's parameters, in order.
    fn class_scope(&self, c: ClassId) -> KScope {
        let info = self.env.class(c);
        std::iter::once((info.tyvar.clone(), info.kind.clone()))
            .chain(info.more.iter().cloned())
            .collect()
    }

    // ------------------------------------------------------------ conversion

    /// Converts a kind-correct syntax type (errors become the error type).
    pub fn to_type(&mut self, t: &ast::Type, vars: &HashMap<Sym, Type>) -> Type {
        gph_syntax::stack::guard();
        match t {
            ast::Type::Var(id) => vars.get(&id.name).cloned().unwrap_or_else(Type::error),
            ast::Type::Con(q) => match self.tycon_of_name(q) {
                Some(tc) => match &self.env.tycon(tc).def {
                    TyConDef::Synonym { params: 0, rhs } => {
                        Type::new(Ty::Syn(tc, Vec::new(), rhs.clone()))
                    }
                    TyConDef::Synonym { .. } => Type::error(),
                    _ => Type::con(tc),
                },
                None => Type::error(),
            },
            ast::Type::App(..) => {
                let (head, args) = ast_spine(t);
                let args: Vec<Type> = args.iter().map(|a| self.to_type(a, vars)).collect();
                if let ast::Type::Con(q) = head {
                    if let Some(tc) = self.tycon_of_name(q) {
                        if let TyConDef::Synonym { params, rhs } = &self.env.tycon(tc).def {
                            let (params, rhs) = (*params, rhs.clone());
                            if args.len() < params {
                                return Type::error();
                            }
                            let (now, rest) = args.split_at(params);
                            let syn = Type::new(Ty::Syn(tc, now.to_vec(), subst_gen(&rhs, now)));
                            return Type::apps(syn, rest.iter().cloned());
                        }
                    }
                }
                let h = self.to_type(head, vars);
                Type::apps(h, args)
            }
            ast::Type::Fun(a, b, _) => {
                let (a, b) = (self.to_type(a, vars), self.to_type(b, vars));
                self.fun(a, b)
            }
            ast::Type::List(a, _) => {
                let a = self.to_type(a, vars);
                self.list_of(a)
            }
            ast::Type::Tuple(ts, _) => {
                let ts = ts.iter().map(|x| self.to_type(x, vars)).collect();
                self.tuple_of(ts)
            }
            ast::Type::Bang(a, _) => self.to_type(a, vars),
            ast::Type::Forall(q) => {
                let mut inner = vars.clone();
                let mut bvars = Vec::new();
                for v in &q.forall {
                    let id = self.table.next_bound;
                    self.table.next_bound += 1;
                    inner.insert(v.name.clone(), Type::new(Ty::Bound(id)));
                    bvars.push((id, v.name.clone()));
                }
                let mut preds = Vec::new();
                for p in &q.context {
                    if let Some(class) = self.env.lookup_class(&Tc::global_of(&p.class)) {
                        let ty = self.to_type(&p.ty, &inner);
                        preds.push(Pred { class, ty });
                    }
                }
                let ty = self.to_type(&q.ty, &inner);
                Type::new(Ty::Forall(std::rc::Rc::new(Poly {
                    vars: bvars,
                    preds,
                    ty,
                })))
            }
        }
    }

    fn gen_vars(scope: &KScope) -> HashMap<Sym, Type> {
        scope
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.clone(), Type::gen(i as u32)))
            .collect()
    }

    /// A type signature (or annotation) as a scheme; `None` after an error.
    pub fn convert_sig(&mut self, qt: &ast::QualType) -> Option<Scheme> {
        if qt.context.iter().any(|p| {
            self.env
                .constraint_synonyms
                .contains_key(&Tc::global_of(&p.class))
        }) {
            let mut expanded = qt.clone();
            expanded.context = self.expand_context(&qt.context);
            return self.convert_sig(&expanded);
        }
        let mut scope = KScope::new();
        let mut ok = self.expect_star(&qt.ty, &mut scope, true);
        let mut classes = Vec::new();
        for p in &qt.context {
            match self.check_pred_kind(p, &mut scope, true) {
                Some(c) => classes.push(c),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        // GHC's order of the quantified variables, which a visible type
        // application follows: an explicit `forall`'s, else each
        // variable's first occurrence from left to right, the context
        // included (`(Integral a, Num b) => a -> b` is `@a @b`).
        let mut order: Vec<Sym> = qt.forall.iter().map(|v| v.name.clone()).collect();
        for p in &qt.context {
            p.ty.vars_into(&mut order);
        }
        qt.ty.vars_into(&mut order);
        scope.sort_by_key(|(n, _)| order.iter().position(|o| o == n).unwrap_or(usize::MAX));
        // A variable in scope (ScopedTypeVariables) is that type, unless
        // the signature's own `forall` binds the name afresh; the others
        // are the signature's to quantify.
        let mut vars = HashMap::new();
        let mut bound = Vec::new();
        for (n, _) in scope {
            let fresh = qt.forall.iter().any(|v| v.name == n);
            match self.scoped_type_variable(&n).filter(|_| !fresh) {
                Some(t) => {
                    vars.insert(n, t);
                }
                None => {
                    vars.insert(n.clone(), Type::gen(bound.len() as u32));
                    bound.push(Some(n));
                }
            }
        }
        let ty = self.to_type(&qt.ty, &vars);
        let preds = qt
            .context
            .iter()
            .zip(classes)
            .map(|(p, class)| Pred {
                class,
                ty: self.to_type(&p.ty, &vars),
            })
            .collect();
        Some(self.prenex(Scheme {
            vars: bound,
            preds,
            ty,
        }))
    }

    /// A signature's `forall`s right of its arrows moved to its front
    /// (`Int -> forall a. a -> a` is `forall a. Int -> a -> a`; `_1 ::
    /// Lens (a, b) a` with `type Lens s a = forall f. ...`), as GHC does: a
    /// binding's clauses and its uses see one scheme.
    pub fn prenex(&mut self, mut s: Scheme) -> Scheme {
        let mut args = Vec::new();
        let mut t = s.ty.clone();
        let mut changed = false;
        loop {
            let h = self.table.head(&t);
            if let Ty::Forall(p) = h.ty() {
                let ids: Vec<u32> = p.vars.iter().map(|(i, _)| *i).collect();
                let gens: Vec<Type> = (0..ids.len())
                    .map(|k| Type::gen((s.vars.len() + k) as u32))
                    .collect();
                s.vars.extend(p.vars.iter().map(|(_, n)| Some(n.clone())));
                s.preds.extend(p.preds.iter().map(|q| Pred {
                    class: q.class,
                    ty: subst_bound(&q.ty, &ids, &gens),
                }));
                t = subst_bound(&p.ty, &ids, &gens);
                changed = true;
                continue;
            }
            match self.as_fun(&h) {
                Some((a, r)) => {
                    args.push(a);
                    t = r;
                }
                None => break,
            }
        }
        if changed {
            s.ty = args.into_iter().rev().fold(t, |r, a| self.fun(a, r));
        }
        s
    }

    /// The constraints a synonym's right-hand side stands for, when it is
    /// made of classes (`(Ord a, Show a)`, `Monad m`): a class in scope or
    /// one of `local` (declared in this module).
    fn constraint_rhs(&self, ty: &ast::Type, local: &[Sym]) -> Option<Vec<ast::Pred>> {
        let items: Vec<&ast::Type> = match ty {
            ast::Type::Tuple(ts, _) => ts.iter().collect(),
            t => vec![t],
        };
        let mut out = Vec::new();
        for t in items {
            let (head, args) = ast_spine(t);
            let ast::Type::Con(q) = head else { return None };
            let is_class = self.env.lookup_class(&Tc::global_of(q)).is_some()
                || (q.qual.as_ref().is_none_or(|m| *m == self.module) && local.contains(&q.name))
                || self.env.constraint_synonyms.contains_key(&Tc::global_of(q));
            if !is_class || args.is_empty() {
                return None;
            }
            let ty = if args.len() == 1 {
                args[0].clone()
            } else {
                ast::multi_param(args.into_iter().cloned().collect(), t.span())
            };
            out.push(ast::Pred {
                class: q.clone(),
                ty,
                span: t.span(),
            });
        }
        Some(out)
    }

    /// A context with its constraint synonyms expanded (to any depth).
    pub fn expand_context(&self, ctx: &[ast::Pred]) -> Vec<ast::Pred> {
        let mut out = Vec::new();
        for p in ctx {
            self.expand_pred(p, &mut out, 0);
        }
        out
    }

    fn expand_pred(&self, p: &ast::Pred, out: &mut Vec<ast::Pred>, depth: u32) {
        let Some((params, preds)) = self.env.constraint_synonyms.get(&Tc::global_of(&p.class))
        else {
            out.push(p.clone());
            return;
        };
        if depth > 100 {
            return;
        }
        let args = ast::constraint_args(&p.ty);
        let sub: HashMap<Sym, ast::Type> = params
            .iter()
            .cloned()
            .zip(args.into_iter().cloned())
            .collect();
        for q in preds {
            let e = ast::Pred {
                class: q.class.clone(),
                ty: subst_ast(&q.ty, &sub),
                span: p.span,
            };
            self.expand_pred(&e, out, depth + 1);
        }
    }

    /// A type in a declaration (instance head, foreign import): its scheme
    /// over the variables it mentions, and the kind it has.
    pub fn convert_open(&mut self, t: &ast::Type, context: &[ast::Pred]) -> Option<(Scheme, Kind)> {
        let expanded = self.expand_context(context);
        let context = &expanded[..];
        let mut scope = KScope::new();
        let k = self.kind_of(t, &mut scope, true)?;
        let mut preds = Vec::new();
        let mut ok = true;
        // A constraint may be on any type over the head's variables
        // (`Show (f a) => Show (Wrap f a)`, as GHC 9.0 accepts).
        for p in context {
            let before = scope.len();
            match self.check_pred_kind(p, &mut scope, true) {
                Some(c) => preds.push((c, &p.ty)),
                None => ok = false,
            }
            if scope.len() > before {
                let (n, _) = &scope[before];
                self.error(Diagnostic::error(
                    p.ty.span(),
                    format!(
                        "type variable `{n}` of the context does not appear in the instance head"
                    ),
                ));
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let vars = Tc::gen_vars(&scope);
        let ty = self.to_type(t, &vars);
        let preds = preds
            .into_iter()
            .map(|(class, pt)| Pred {
                class,
                ty: self.to_type(pt, &vars),
            })
            .collect();
        let k = self.kdefault(&k);
        Some((
            Scheme {
                vars: scope.into_iter().map(|(n, _)| Some(n)).collect(),
                preds,
                ty,
            },
            k,
        ))
    }

    // ------------------------------------------------------------ declarations

    /// Registers and kind-checks the type-level declarations of a module:
    /// data types, newtypes, synonyms and classes; then builds constructor
    /// types, synonym expansions and method types.
    pub fn declare_types(&mut self, decls: &[Decl]) {
        let module = self.module.clone();
        let g = |name: &Sym| Global {
            module: module.clone(),
            name: name.clone(),
        };
        // 1. Register every name, with kind variables.
        let mut datas = Vec::new();
        let mut syns = Vec::new();
        let mut classes = Vec::new();
        // The classes this module declares (a constraint synonym may name them).
        let local_classes: Vec<Sym> = decls
            .iter()
            .filter_map(|d| match d {
                Decl::Class(cd) => Some(cd.name.name.clone()),
                _ => None,
            })
            .collect();
        for d in decls {
            match d {
                Decl::Data(dd) => {
                    let pk: Vec<Kind> = dd.params.iter().map(|_| self.kfresh()).collect();
                    let kind = pk
                        .iter()
                        .rev()
                        .fold(Kind::Star, |r, a| Kind::arrow(a.clone(), r));
                    let tc = self.env.add_tycon(TyConInfo {
                        name: g(&dd.name.name),
                        kind,
                        arity: dd.params.len(),
                        def: TyConDef::Data {
                            newtype: dd.newtype,
                            cons: dd.constrs.iter().map(|c| g(&c.name.name)).collect(),
                        },
                        span: dd.span,
                    });
                    datas.push((tc, dd, pk));
                }
                Decl::TypeSyn {
                    name, params, ty, ..
                } if self.constraint_rhs(ty, &local_classes).is_some() => {
                    let preds = self.constraint_rhs(ty, &local_classes).unwrap_or_default();
                    let ps = params.iter().map(|p| p.name.clone()).collect();
                    self.env
                        .constraint_synonyms
                        .insert(g(&name.name), (ps, preds));
                }
                Decl::TypeSyn {
                    name, params, span, ..
                } => {
                    let pk: Vec<Kind> = params.iter().map(|_| self.kfresh()).collect();
                    let rk = self.kfresh();
                    let kind = pk
                        .iter()
                        .rev()
                        .fold(rk.clone(), |r, a| Kind::arrow(a.clone(), r));
                    let tc = self.env.add_tycon(TyConInfo {
                        name: g(&name.name),
                        kind,
                        arity: params.len(),
                        def: TyConDef::Synonym {
                            params: params.len(),
                            rhs: Type::error(),
                        },
                        span: *span,
                    });
                    syns.push((tc, d, pk, rk));
                }
                Decl::Class(cd) => {
                    let kind = self.kfresh();
                    let more = cd
                        .more_vars
                        .iter()
                        .map(|v| (v.name.clone(), self.kfresh()))
                        .collect();
                    let pos = |v: &ast::Ident| cd.params().iter().position(|p| p.name == v.name);
                    let fundeps = cd
                        .fundeps
                        .iter()
                        .map(|(f, t)| {
                            (
                                f.iter().filter_map(pos).collect(),
                                t.iter().filter_map(pos).collect(),
                            )
                        })
                        .collect();
                    let c = self.env.add_class(ClassInfo {
                        name: g(&cd.name.name),
                        tyvar: cd.tyvar.name.clone(),
                        kind,
                        more,
                        fundeps,
                        super_tys: Vec::new(),
                        supers: Vec::new(),
                        methods: Vec::new(),
                        defaults: Vec::new(),
                        span: cd.span,
                    });
                    classes.push((c, cd));
                }
                _ => {}
            }
        }
        // 2. Kind inference over all of them together.
        for (_, dd, pk) in &datas {
            let mut scope: KScope = dd
                .params
                .iter()
                .map(|p| p.name.clone())
                .zip(pk.iter().cloned())
                .collect();
            for c in &dd.constrs {
                // An existential constructor's own variables, for its
                // fields and context only.
                let mark = scope.len();
                for v in &c.exists {
                    let k = self.kfresh();
                    scope.push((v.name.clone(), k));
                }
                for f in &c.fields {
                    let t = match &f.ty {
                        ast::Type::Bang(t, _) => &**t,
                        t => t,
                    };
                    self.expect_star(t, &mut scope, false);
                }
                for p in &c.context {
                    self.check_pred_kind(p, &mut scope, false);
                }
                // A refined parameter's type has the parameter's kind.
                for (p, t) in &c.eqs {
                    let pk = scope
                        .iter()
                        .find(|(n, _)| *n == p.name)
                        .map(|(_, k)| k.clone());
                    if let (Some(pk), Some(k)) = (pk, self.kind_of(t, &mut scope, false)) {
                        if !self.kunify(&pk, &k) {
                            self.error(Diagnostic::error(
                                t.span(),
                                format!(
                                    "kind mismatch: `{}` stands where the parameter `{}` is",
                                    show_ast_type(t),
                                    p.name
                                ),
                            ));
                        }
                    }
                }
                scope.truncate(mark);
            }
        }
        for (_, d, pk, rk) in &syns {
            if let Decl::TypeSyn { params, ty, .. } = d {
                let mut scope: KScope = params
                    .iter()
                    .map(|p| p.name.clone())
                    .zip(pk.iter().cloned())
                    .collect();
                if let Some(k) = self.kind_of(ty, &mut scope, false) {
                    if !self.kunify(&k, rk) {
                        self.error(Diagnostic::error(
                            ty.span(),
                            "kind mismatch in type synonym",
                        ));
                    }
                }
            }
        }
        for (c, cd) in &classes {
            for p in &cd.context {
                let mut scope = self.class_scope(*c);
                self.check_pred_kind(p, &mut scope, false);
            }
            for d in &cd.decls {
                if let Decl::Sig { ty, .. } = d {
                    let mut scope = self.class_scope(*c);
                    self.expect_star(&ty.ty, &mut scope, true);
                    for p in &ty.context {
                        self.check_pred_kind(p, &mut scope, true);
                    }
                }
            }
        }
        // 3. Default the kinds.
        for (tc, _, _) in &datas {
            let k = self.kdefault(&self.env.tycon(*tc).kind);
            self.env.tycons[tc.0 as usize].kind = k;
        }
        for (tc, _, _, _) in &syns {
            let k = self.kdefault(&self.env.tycon(*tc).kind);
            self.env.tycons[tc.0 as usize].kind = k;
        }
        for (c, _) in &classes {
            let k = self.kdefault(&self.env.class(*c).kind);
            self.env.classes[c.0 as usize].kind = k;
            for i in 0..self.env.class(*c).more.len() {
                let k = self.kdefault(&self.env.class(*c).more[i].1);
                self.env.classes[c.0 as usize].more[i].1 = k;
            }
        }
        // 4. Synonym expansions, each after the synonyms it mentions.
        let syn_ids: HashMap<TcId, usize> = syns
            .iter()
            .enumerate()
            .map(|(i, (tc, ..))| (*tc, i))
            .collect();
        let mut state = vec![0u8; syns.len()];
        for i in 0..syns.len() {
            self.convert_synonym(i, &syns, &syn_ids, &mut state);
        }
        // 5. Constructors.
        for (tc, dd, _) in &datas {
            for (tag, c) in dd.constrs.iter().enumerate() {
                // The type's parameters, then the constructor's existential
                // variables.
                let vars: HashMap<Sym, Type> = dd
                    .params
                    .iter()
                    .chain(&c.exists)
                    .enumerate()
                    .map(|(i, p)| (p.name.clone(), Type::gen(i as u32)))
                    .collect();
                let preds: Vec<Pred> = c
                    .context
                    .iter()
                    .filter_map(|p| {
                        let class = self.env.lookup_class(&Tc::global_of(&p.class))?;
                        Some(Pred {
                            class,
                            ty: self.to_type(&p.ty, &vars),
                        })
                    })
                    .collect();
                // The result: a refined parameter is what it is fixed to.
                let eqs: Vec<(usize, Type)> = c
                    .eqs
                    .iter()
                    .filter_map(|(p, t)| {
                        let i = dd.params.iter().position(|q| q.name == p.name)?;
                        Some((i, self.to_type(t, &vars)))
                    })
                    .collect();
                let res = Type::apps(
                    Type::con(*tc),
                    (0..dd.params.len()).map(|i| match eqs.iter().find(|(j, _)| *j == i) {
                        Some((_, t)) => t.clone(),
                        None => Type::gen(i as u32),
                    }),
                );
                let fields: Vec<Type> = c
                    .fields
                    .iter()
                    .map(|f| self.to_type(&f.ty, &vars))
                    .collect();
                let strict: Vec<bool> = c
                    .fields
                    .iter()
                    .map(|f| f.strict || matches!(f.ty, ast::Type::Bang(..)))
                    .collect();
                let ty = fields
                    .iter()
                    .rev()
                    .fold(res.clone(), |r, a| self.fun(a.clone(), r));
                for (l, f) in c.labels.iter().flatten().zip(&c.fields) {
                    if c.hides(f) {
                        self.env.hidden_fields.insert(g(&l.name));
                    }
                }
                let name = g(&c.name.name);
                self.env.datacons.insert(
                    name.clone(),
                    DataConInfo {
                        name,
                        tycon: *tc,
                        tag,
                        arity: fields.len(),
                        strict,
                        scheme: Scheme {
                            vars: dd
                                .params
                                .iter()
                                .chain(&c.exists)
                                .map(|p| Some(p.name.clone()))
                                .collect(),
                            preds,
                            ty,
                        },
                        exists: c.exists.len(),
                        eqs,
                    },
                );
            }
        }
        // 6. Classes: superclasses and method types.
        for (c, cd) in &classes {
            let mut supers = Vec::new();
            let mut super_tys = Vec::new();
            let multi = !cd.more_vars.is_empty();
            let params: HashMap<Sym, Type> = cd
                .params()
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.clone(), Type::gen(i as u32)))
                .collect();
            for p in &cd.context {
                let is_var = matches!(&p.ty, ast::Type::Var(v) if v.name == cd.tyvar.name);
                // A class of several parameters may constrain any of them
                // (`class Monad m => MonadState s m`).
                let mut free = Vec::new();
                p.ty.vars_into(&mut free);
                let over_params = multi && free.iter().all(|v| params.contains_key(v));
                match self.env.lookup_class(&Tc::global_of(&p.class)) {
                    Some(s) if is_var || over_params => {
                        if *c == s || self.env.is_subclass(s, *c) {
                            self.error(Diagnostic::error(
                                p.span,
                                "cycle in the superclasses of a class",
                            ));
                        } else {
                            let st = if multi {
                                self.to_type(&p.ty, &params)
                            } else {
                                Type::gen(0)
                            };
                            let dup = supers
                                .iter()
                                .zip(&super_tys)
                                .any(|(x, t)| *x == s && self.table.equal(t, &st));
                            if !dup {
                                supers.push(s);
                                super_tys.push(st);
                            }
                        }
                    }
                    Some(_) => self.error(Diagnostic::error(
                        p.span,
                        format!(
                            "a superclass constraint must be on the class variable `{}`",
                            cd.tyvar.name
                        ),
                    )),
                    None => {}
                }
            }
            self.env.classes[c.0 as usize].supers = supers;
            self.env.classes[c.0 as usize].super_tys = super_tys;
            let mut methods = Vec::new();
            let mut defaults = Vec::new();
            for d in &cd.decls {
                let Decl::Sig { names, ty, .. } = d else {
                    continue;
                };
                let mut scope = self.class_scope(*c);
                let arity = scope.len();
                if self.kind_of(&ty.ty, &mut scope, true).is_none() {
                    continue;
                }
                let mut ok = true;
                let mut extra = Vec::new();
                for p in &ty.context {
                    match self.check_pred_kind(p, &mut scope, true) {
                        Some(pc) => extra.push((pc, &p.ty)),
                        None => ok = false,
                    }
                }
                if !ok {
                    continue;
                }
                let vars = Tc::gen_vars(&scope);
                let mty = self.to_type(&ty.ty, &vars);
                let class_ty = self.class_type(*c, (0..arity as u32).map(Type::gen).collect());
                let mut preds = vec![Pred {
                    class: *c,
                    ty: class_ty,
                }];
                for (pc, pt) in extra {
                    let t = self.to_type(pt, &vars);
                    preds.push(Pred { class: pc, ty: t });
                }
                let mut mentioned = Vec::new();
                super::bind::gens_of(&mty, &mut mentioned);
                if !(0..arity as u32).any(|i| mentioned.contains(&i)) {
                    let names: Vec<String> = names
                        .iter()
                        .map(|n| format!("`{}`", super::errors::fun_name(&n.name)))
                        .collect();
                    self.error(Diagnostic::error(
                        ty.span,
                        format!(
                            "the method {} of class `{}` does not mention the class variable `{}`",
                            names.join(", "),
                            cd.name.name,
                            cd.tyvar.name
                        ),
                    ));
                }
                let scheme = Scheme {
                    vars: scope.iter().map(|(n, _)| Some(n.clone())).collect(),
                    preds,
                    ty: mty,
                };
                for n in names {
                    let mg = g(&n.name);
                    let has_default = cd.decls.iter().any(|d| match d {
                        Decl::FunClause { name, .. } => name.name == n.name,
                        Decl::PatBind { pat, .. } => pat_is_var(pat, &n.name),
                        _ => false,
                    });
                    defaults.push(has_default.then(|| g(&Sym::from(format!("$dm{}", n.name)))));
                    self.env.methods.insert(mg.clone(), (*c, methods.len()));
                    self.env
                        .values
                        .insert(mg.clone(), ValueInfo::Poly(scheme.clone()));
                    methods.push(mg);
                }
            }
            let info = &mut self.env.classes[c.0 as usize];
            info.methods = methods;
            info.defaults = defaults;
        }
    }

    fn convert_synonym(
        &mut self,
        i: usize,
        syns: &[(TcId, &Decl, Vec<Kind>, Kind)],
        ids: &HashMap<TcId, usize>,
        state: &mut [u8],
    ) {
        gph_syntax::stack::guard();
        if state[i] == 2 {
            return;
        }
        let (tc, d, _, _) = &syns[i];
        let Decl::TypeSyn {
            params,
            ty,
            span,
            name,
        } = d
        else {
            return;
        };
        if state[i] == 1 {
            self.error(Diagnostic::error(
                *span,
                format!(
                    "cycle in type synonym declarations involving `{}`",
                    name.name
                ),
            ));
            state[i] = 2;
            return;
        }
        state[i] = 1;
        let mut used = Vec::new();
        collect_cons(ty, &mut used);
        for q in used {
            if let Some(j) = self.tycon_of_name(q).and_then(|t| ids.get(&t).copied()) {
                self.convert_synonym(j, syns, ids, state);
                if state[i] == 2 {
                    return;
                }
            }
        }
        let vars: HashMap<Sym, Type> = params
            .iter()
            .enumerate()
            .map(|(k, p)| (p.name.clone(), Type::gen(k as u32)))
            .collect();
        let rhs = self.to_type(ty, &vars);
        self.env.tycons[tc.0 as usize].def = TyConDef::Synonym {
            params: params.len(),
            rhs,
        };
        state[i] = 2;
    }
}

fn collect_cons<'a>(t: &'a ast::Type, out: &mut Vec<&'a ast::QName>) {
    gph_syntax::stack::guard();
    match t {
        ast::Type::Con(q) => out.push(q),
        ast::Type::Var(_) => {}
        ast::Type::App(a, b, _) | ast::Type::Fun(a, b, _) => {
            collect_cons(a, out);
            collect_cons(b, out);
        }
        ast::Type::List(a, _) | ast::Type::Bang(a, _) => collect_cons(a, out),
        ast::Type::Tuple(ts, _) => ts.iter().for_each(|x| collect_cons(x, out)),
        ast::Type::Forall(q) => {
            q.context.iter().for_each(|p| collect_cons(&p.ty, out));
            collect_cons(&q.ty, out)
        }
    }
}

/// Whether a pattern is just the variable `name` (possibly parenthesised).
pub fn pat_is_var(p: &ast::Pat, name: &str) -> bool {
    gph_syntax::stack::guard();
    match p {
        ast::Pat::Var(i) => &*i.name == name,
        ast::Pat::Paren(p, _) => pat_is_var(p, name),
        _ => false,
    }
}
