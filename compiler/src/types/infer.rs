//! Inference and checking of expressions and patterns, producing the
//! elaborated tree.
//!
//! Checking is bidirectional where it helps the messages: an expected type
//! is pushed down to the smallest sub-expression (function arguments, list
//! elements, `if` branches, `case` alternatives, the last statement of a
//! `do`), so that a mismatch is reported at the expression whose type is
//! wrong, "expected" being what its context demands.

use super::elab::{self, Alt, Expr, Lit, Name, Pat, Rhs, RhsBody, Stmt};
use super::env::ValueInfo;
use super::errors::{count, fun_name, Ctx};
use super::tc::{Pending, Tc};
use super::ty::*;
use gph_syntax::ast::{self, Literal, QName};
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, Span};
use num_bigint::BigInt;

/// Variables bound by patterns, waiting to be put in scope.
pub type Binds = Vec<(Sym, Type)>;

/// A step of a `do` block, elaborated, before the block is folded.
enum DoStep {
    Then(Expr, Expr, Span),
    Bind(Expr, Pat, Expr, Option<Expr>, Span),
    Let(Vec<elab::Binding>, Span),
}

impl Tc {
    pub fn infer(&mut self, e: &ast::Expr) -> (Expr, Type) {
        self.tc_expr(e, None, &Ctx::Plain)
    }

    pub fn check(&mut self, e: &ast::Expr, exp: &Type, ctx: &Ctx) -> Expr {
        self.tc_expr(e, Some(exp), ctx).0
    }

    /// Unifies with the expected type if there is one.
    fn finish(
        &mut self,
        e: Expr,
        t: Type,
        exp: Option<&Type>,
        span: Span,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        match exp {
            Some(x) => {
                self.expect(x, &t, span, ctx);
                (e, x.clone())
            }
            None => (e, t),
        }
    }

    /// Puts pattern-bound variables in scope. A variable of a polymorphic
    /// type (an argument of type `forall a. [a] -> [a]`, RankNTypes) is
    /// used as a let-bound one is: instantiated at each use.
    pub fn push_binds(&mut self, binds: Binds) {
        for (n, t) in binds {
            let s = match self.table.head(&t).ty() {
                Ty::Forall(p) => p.to_scheme(),
                _ => Scheme::mono(t),
            };
            self.locals.push((n, ValueInfo::Poly(s)));
        }
    }

    /// Whether the function of an application (`f a b`, its head a name)
    /// has a polymorphic argument somewhere in its declared type.
    fn takes_poly_arg(&self, e: &ast::Expr) -> bool {
        let mut head = e;
        while let ast::Expr::App(f, _, _) | ast::Expr::Paren(f, _) = head {
            head = f;
        }
        let scheme = match head {
            ast::Expr::Var(q) if q.qual.is_none() => match self.lookup_local(&q.name) {
                Some(ValueInfo::Poly(s)) => Some(s),
                _ => None,
            },
            ast::Expr::Var(q) => match self.env.values.get(&Tc::global_of(q)) {
                Some(ValueInfo::Poly(s)) => Some(s),
                _ => None,
            },
            ast::Expr::Con(q) => self.env.datacons.get(&Tc::global_of(q)).map(|i| &i.scheme),
            _ => None,
        };
        scheme.is_some_and(|s| has_forall(&s.ty))
    }

    /// A polymorphic type met where a value is used (the result of a
    /// selector `runNat :: Nat f g -> forall a. f a -> g a`) is
    /// instantiated, its dictionaries applied.
    fn inst_forall(&mut self, mut e: Expr, mut t: Type, span: Span) -> (Expr, Type) {
        while let Ty::Forall(p) = self.table.head(&t).ty() {
            let (t2, preds) = self.instantiate(&p.to_scheme());
            e = self.apply_dicts(e, preds, span, "a use of a polymorphic value");
            t = t2;
        }
        (e, t)
    }

    /// An expression checked against a polymorphic type (the argument of
    /// `(forall a. [a] -> [a]) -> ...`): as a binding against its
    /// signature, rigid variables and given dictionaries; the value passed
    /// is the dictionary-taking function.
    fn check_poly(&mut self, e: &ast::Expr, p: &Poly, whole: &Type, ctx: &Ctx) -> (Expr, Type) {
        let scheme = p.to_scheme();
        let span = e.span();
        let owner = format!("the type `{}` the context expects", self.show_type(whole));
        let (dicts, body) = self.check_against_scheme(
            &scheme,
            Some((Sym::from(owner.as_str()), span)),
            &[],
            &[],
            |tc, ty| tc.check(e, ty, ctx),
        );
        if dicts.is_empty() {
            return (body, whole.clone());
        }
        let name = self.fresh_name("poly");
        let binding = dict_binding(&name, dicts, body, span);
        let e = Expr::Let(vec![binding], Box::new(Expr::local(name, span)), span);
        (e, whole.clone())
    }

    /// Dispatches on the form of the expression. Each form is checked by a
    /// function of its own, so that this function (on every path of the
    /// recursion) keeps a small stack frame: deeply nested expressions
    /// recurse through it.
    fn tc_expr(&mut self, e: &ast::Expr, exp: Option<&Type>, ctx: &Ctx) -> (Expr, Type) {
        gph_syntax::stack::guard();
        use ast::Expr as E;
        if let Some(x) = exp {
            if let Ty::Forall(p) = self.table.head(x).ty() {
                if !matches!(e, E::Paren(..)) {
                    let p = p.clone();
                    return self.check_poly(e, &p, x, ctx);
                }
            }
        }
        match e {
            E::Paren(inner, _) => self.tc_expr(inner, exp, ctx),
            E::Var(q) => self.tc_var_expr(q, exp, ctx),
            E::Con(q) => self.tc_con_expr(q, exp, ctx),
            E::Lit(l, span) => self.tc_lit(l, *span, exp, ctx),
            E::App(_, _, span) => self.tc_application(e, *span, exp, ctx),
            E::BinOp(op, l, r, span) => self.tc_binop(op, l, r, *span, exp, ctx),
            E::Neg(inner, span) => self.tc_neg(inner, *span, exp, ctx),
            E::LeftSection(l, op, span) => self.tc_left_section(l, op, *span, exp, ctx),
            E::RightSection(op, r, span) => self.tc_right_section(op, r, *span, exp, ctx),
            E::Lambda(pats, body, span) => self.tc_lambda(pats, body, *span, exp, ctx),
            E::Let(decls, body, span) => self.tc_let(decls, body, *span, exp, ctx),
            E::If(c, t, f, span) => self.tc_if(c, t, f, *span, exp, ctx),
            E::Case(scrut, alts, span) => self.tc_case(scrut, alts, *span, exp),
            E::Do(stmts, span) => self.tc_do(stmts, *span, exp, ctx),
            E::Tuple(es, span) => self.tc_tuple(es, *span, exp, ctx),
            E::List(es, span) => self.tc_list(es, *span, exp, ctx),
            E::Range {
                from,
                then,
                to,
                span,
            } => self.tc_range(from, then.as_deref(), to.as_deref(), *span, exp, ctx),
            E::Comprehension(body, stmts, span) => {
                self.tc_comprehension(body, stmts, *span, exp, ctx)
            }
            E::Typed(inner, qt, span) => self.tc_annotated(inner, qt, *span, exp, ctx),
            E::TypeApp(_, _, span) => self.tc_type_app(e, *span, exp, ctx),
            E::Wildcard(span)
            | E::As(_, _, span)
            | E::Lazy(_, span)
            | E::Bang(_, span)
            | E::View(_, _, span) => self.bad_expr(*span, "pattern syntax in an expression"),
            E::Record(_, _, _, span) => self.bad_expr(*span, "records are not supported yet"),
            E::OpChain(_, span) => {
                self.bad_expr(*span, "internal error: unresolved operator chain")
            }
        }
    }

    /// `f @T1 @_ ...`: the head's first specified type variables are the
    /// types given (`_` leaves one to inference), as GHC's TypeApplications.
    #[inline(never)]
    fn tc_type_app(
        &mut self,
        e: &ast::Expr,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let mut targs = Vec::new();
        let mut head = e;
        loop {
            match head {
                ast::Expr::TypeApp(f, t, s) => {
                    targs.push((t.as_ref(), *s));
                    head = f;
                }
                ast::Expr::Paren(f, _) => head = f,
                _ => break,
            }
        }
        targs.reverse();
        let mut types = Vec::new();
        for (t, s) in targs {
            types.push(match t {
                Some(t) => match self.visible_type(t) {
                    Some(ty) => Some(ty),
                    None => return (Expr::Tuple(Vec::new(), s), Type::error()),
                },
                None => None,
            });
        }
        let (te, t) = match head {
            ast::Expr::Var(q) => self.tc_var_at(q, &types),
            ast::Expr::Con(q) => self.tc_con_at(q, &types),
            _ => {
                return self.bad_expr(
                    span,
                    "a visible type application must follow a variable or a constructor",
                )
            }
        };
        self.finish(te, t, exp, span, ctx)
    }

    /// The type of a visible type application: variables of the enclosing
    /// signatures (ScopedTypeVariables) may occur, no others.
    fn visible_type(&mut self, t: &ast::Type) -> Option<Type> {
        let qt = ast::QualType {
            forall: Vec::new(),
            context: Vec::new(),
            ty: t.clone(),
            span: t.span(),
        };
        let scheme = self.convert_sig(&qt)?;
        if let Some(Some(v)) = scheme.vars.first() {
            self.error(
                Diagnostic::error(t.span(), format!("type variable `{v}` is not in scope"))
                    .with_help("a type application names a type, or a variable bound by a `forall` in scope (ScopedTypeVariables)"),
            );
            return None;
        }
        Some(scheme.ty)
    }

    /// Instantiates `s` for a use named `q`, its first variables with the
    /// types of a visible type application (`None`: fresh), if any.
    fn instantiate_at(
        &mut self,
        s: &Scheme,
        types: &[Option<Type>],
        q: &QName,
    ) -> (Type, Vec<Pred>) {
        if types.is_empty() {
            return self.instantiate(s);
        }
        let specified = s.vars.iter().take_while(|v| v.is_some()).count();
        if types.len() > specified {
            let (ty, preds) = self.instantiate(s);
            let shown = self.show_type(&ty);
            let msg = if specified == 0 {
                format!(
                    "cannot apply `{}` to a type: its type `{shown}` has no variables \
                     given by a signature",
                    q.name
                )
            } else {
                format!(
                    "`{}` is applied to {} types, but its type `{shown}` has only {specified} \
                     variable{} to give",
                    q.name,
                    types.len(),
                    if specified == 1 { "" } else { "s" }
                )
            };
            self.error(
                Diagnostic::error(q.span, msg)
                    .with_help("a type application gives the variables of a signature, in order of their first occurrence"),
            );
            return (ty, preds);
        }
        let n = s.vars.len();
        let args: Vec<Type> = (0..n)
            .map(|i| match types.get(i) {
                Some(Some(t)) => t.clone(),
                _ => self.table.fresh(),
            })
            .collect();
        Tc::instantiate_with(s, &args)
    }

    #[inline(never)]
    fn bad_expr(&mut self, span: Span, msg: &str) -> (Expr, Type) {
        self.error(Diagnostic::error(span, msg));
        (Expr::Tuple(Vec::new(), span), Type::error())
    }

    #[inline(never)]
    fn tc_var_expr(&mut self, q: &QName, exp: Option<&Type>, ctx: &Ctx) -> (Expr, Type) {
        let (te, t) = self.tc_var(q);
        let (te, t) = self.inst_forall(te, t, q.span);
        self.finish(te, t, exp, q.span, ctx)
    }

    #[inline(never)]
    fn tc_con_expr(&mut self, q: &QName, exp: Option<&Type>, ctx: &Ctx) -> (Expr, Type) {
        let (te, t) = self.tc_con(q);
        let (te, t) = self.inst_forall(te, t, q.span);
        self.finish(te, t, exp, q.span, ctx)
    }

    #[inline(never)]
    fn tc_application(
        &mut self,
        e: &ast::Expr,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let mut args = Vec::new();
        let mut head = e;
        while let ast::Expr::App(f, a, _) = head {
            args.push(&**a);
            head = f;
        }
        args.reverse();
        let desc = match head {
            ast::Expr::Var(q) | ast::Expr::Con(q) => Some(fun_name(&q.name)),
            _ => None,
        };
        let (he, ht) = self.infer(head);
        self.tc_app(he, ht, desc, &args, head.span(), span, exp, ctx)
    }

    #[inline(never)]
    fn tc_binop(
        &mut self,
        op: &QName,
        l: &ast::Expr,
        r: &ast::Expr,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        // `f $ x` is `f x` when `f` takes a polymorphic argument (`runCont
        // $ ...`, `SB $ show`): GHC 9.0's rule for `($)`, since `($)`'s
        // own type would instantiate its `a` with a polymorphic type.
        let g = Tc::global_of(op);
        if &*g.name == "$" && &*g.module == "Prelude" && self.takes_poly_arg(l) {
            return self.tc_application(
                &ast::Expr::App(Box::new(l.clone()), Box::new(r.clone()), span),
                span,
                exp,
                ctx,
            );
        }
        let (he, ht) = self.tc_op(op);
        self.tc_app(
            he,
            ht,
            Some(fun_name(&op.name)),
            &[l, r],
            op.span,
            span,
            exp,
            ctx,
        )
    }

    #[inline(never)]
    fn tc_neg(
        &mut self,
        inner: &ast::Expr,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let (he, ht) = self.prelude_value("negate", span, "a use of `-`");
        self.tc_app(
            he,
            ht,
            Some("negate".into()),
            &[inner],
            span,
            span,
            exp,
            ctx,
        )
    }

    #[inline(never)]
    fn tc_left_section(
        &mut self,
        l: &ast::Expr,
        op: &QName,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let (he, ht) = self.tc_op(op);
        self.tc_app(he, ht, Some(fun_name(&op.name)), &[l], span, span, exp, ctx)
    }

    #[inline(never)]
    fn tc_right_section(
        &mut self,
        op: &QName,
        r: &ast::Expr,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let (he, ht) = self.tc_op(op);
        let (a, b, c) = (self.table.fresh(), self.table.fresh(), self.table.fresh());
        let want = self.fun(a.clone(), self.fun(b.clone(), c.clone()));
        if !self.expect(&want, &ht, op.span, &Ctx::Plain) {
            self.infer(r);
            return (
                Expr::Tuple(Vec::new(), span),
                exp.cloned().unwrap_or_else(Type::error),
            );
        }
        let arg = self.check(r, &b, &Ctx::Arg(Some(fun_name(&op.name)), 2));
        let x = self.fresh_name("sec");
        // `(op e)` is `\x -> op x e`, with `e` bound outside the lambda so
        // that it is evaluated once however often the section is applied.
        let trivial = matches!(
            arg,
            Expr::Var(..) | Expr::Con(..) | Expr::Lit(..) | Expr::Pending(_)
        );
        let (arg, shared) = if trivial {
            (arg, None)
        } else {
            let v = self.fresh_name("arg");
            (Expr::local(v.clone(), span), Some((v, arg)))
        };
        let body = Expr::app(Expr::app(he, Expr::local(x.clone(), span), span), arg, span);
        let mut lam = Expr::Lambda(vec![Pat::Var(x, span)], Box::new(body), span);
        if let Some((v, e)) = shared {
            let bind = elab::Binding::Fun {
                name: Name::Local(v),
                dicts: Vec::new(),
                clauses: vec![elab::Clause {
                    args: Vec::new(),
                    rhs: plain_rhs(e, span),
                    span,
                }],
                span,
            };
            lam = Expr::Let(vec![bind], Box::new(lam), span);
        }
        let t = self.fun(a, c);
        self.finish(lam, t, exp, span, ctx)
    }

    #[inline(never)]
    fn tc_let(
        &mut self,
        decls: &[ast::Decl],
        body: &ast::Expr,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let mark = self.locals.len();
        let binds = self.infer_local_binds(decls);
        let (be, bt) = self.tc_expr(body, exp, ctx);
        self.locals.truncate(mark);
        (Expr::Let(binds, Box::new(be), span), bt)
    }

    #[inline(never)]
    fn tc_if(
        &mut self,
        c: &ast::Expr,
        t: &ast::Expr,
        f: &ast::Expr,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let b = self.bool_type();
        let ce = self.check(c, &b, &Ctx::Cond);
        let (te, tt) = self.tc_expr(t, exp, ctx);
        let fe = self.check(f, &tt, ctx);
        (Expr::If(Box::new(ce), Box::new(te), Box::new(fe), span), tt)
    }

    #[inline(never)]
    fn tc_case(
        &mut self,
        scrut: &ast::Expr,
        alts: &[ast::Alt],
        span: Span,
        exp: Option<&Type>,
    ) -> (Expr, Type) {
        let (se, st) = self.infer(scrut);
        let res = exp.cloned().unwrap_or_else(|| self.table.fresh());
        let mut out = Vec::new();
        for alt in alts {
            let mark = self.locals.len();
            let (pat, rhs) = self.pat_scope(&[&alt.pat], |tc| {
                let mut binds = Vec::new();
                let pat = tc.check_pat(&alt.pat, &st, &mut binds);
                tc.push_binds(binds);
                (pat, tc.check_rhs(&alt.rhs, &res))
            });
            self.locals.truncate(mark);
            out.push(Alt {
                pat,
                rhs,
                span: alt.span,
            });
        }
        (Expr::Case(Box::new(se), out, span), res)
    }

    #[inline(never)]
    fn tc_tuple(
        &mut self,
        es: &[ast::Expr],
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        if let Some(x) = exp {
            let (h, args) = self.table.spine(x);
            let is_tuple = matches!(h.ty(), Ty::Con(c) if self.known.tuples.get(es.len()).copied().flatten() == Some(*c));
            if is_tuple && args.len() == es.len() {
                let items = es
                    .iter()
                    .zip(&args)
                    .map(|(e, t)| self.check(e, t, &Ctx::Plain))
                    .collect();
                return (Expr::Tuple(items, span), x.clone());
            }
        }
        let mut items = Vec::new();
        let mut tys = Vec::new();
        for e in es {
            let (ie, it) = self.infer(e);
            items.push(ie);
            tys.push(it);
        }
        let t = self.tuple_of(tys);
        self.finish(Expr::Tuple(items, span), t, exp, span, ctx)
    }

    #[inline(never)]
    fn tc_list(
        &mut self,
        es: &[ast::Expr],
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let elem = match exp.and_then(|x| self.as_list(x)) {
            Some(t) => t,
            None => self.table.fresh(),
        };
        let items = es
            .iter()
            .map(|e| self.check(e, &elem, &Ctx::ListElem))
            .collect();
        let t = self.list_of(elem);
        self.finish(Expr::List(items, span), t, exp, span, ctx)
    }

    #[inline(never)]
    fn tc_range(
        &mut self,
        from: &ast::Expr,
        then: Option<&ast::Expr>,
        to: Option<&ast::Expr>,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let name = match (then.is_some(), to.is_some()) {
            (false, false) => "enumFrom",
            (true, false) => "enumFromThen",
            (false, true) => "enumFromTo",
            (true, true) => "enumFromThenTo",
        };
        let (he, ht) = self.prelude_value(name, span, "the arithmetic sequence");
        let mut args: Vec<&ast::Expr> = vec![from];
        args.extend(then);
        args.extend(to);
        self.tc_app(he, ht, Some(name.to_string()), &args, span, span, exp, ctx)
    }

    #[inline(never)]
    fn tc_comprehension(
        &mut self,
        body: &ast::Expr,
        stmts: &[ast::Stmt],
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let mark = self.locals.len();
        let elem = match exp.and_then(|x| self.as_list(x)) {
            Some(t) => t,
            None => self.table.fresh(),
        };
        // A generator's existential pattern scopes over the rest.
        let gens = bind_patterns(stmts);
        let (out, be) = self.pat_scope(&gens, |tc| {
            let mut out = Vec::new();
            for s in stmts {
                out.push(tc.tc_qual(s, true));
            }
            (out, tc.check(body, &elem, &Ctx::Plain))
        });
        self.locals.truncate(mark);
        let t = self.list_of(elem);
        self.finish(
            Expr::Comprehension(Box::new(be), out, span),
            t,
            exp,
            span,
            ctx,
        )
    }

    pub fn as_list(&mut self, t: &Type) -> Option<Type> {
        let (h, args) = self.table.spine(t);
        match h.ty() {
            Ty::Con(c) if Some(*c) == self.known.list && args.len() == 1 => Some(args[0].clone()),
            _ => None,
        }
    }

    fn tc_op(&mut self, op: &QName) -> (Expr, Type) {
        if op.is_con() {
            self.tc_con(op)
        } else {
            self.tc_var(op)
        }
    }

    pub fn tc_var(&mut self, q: &QName) -> (Expr, Type) {
        self.tc_var_at(q, &[])
    }

    /// `tc_var`, with the types of a visible type application.
    fn tc_var_at(&mut self, q: &QName, types: &[Option<Type>]) -> (Expr, Type) {
        let what = format!("a use of `{}`", fun_name(&q.name));
        if q.qual.is_some() {
            let g = Tc::global_of(q);
            match self.env.values.get(&g).cloned() {
                Some(ValueInfo::Poly(s)) => {
                    let (t, preds) = self.instantiate_at(&s, types, q);
                    let e = self.apply_dicts(Expr::global(g, q.span), preds, q.span, &what);
                    (e, t)
                }
                Some(ValueInfo::InProgress(t, group)) => {
                    let id = self.add_pending(Pending::RecRef {
                        name: Name::Global(g),
                        group,
                        span: q.span,
                    });
                    (Expr::Pending(id), t)
                }
                None if self.env.hidden_fields.contains(&g) => {
                    self.error(
                        Diagnostic::error(
                            q.span,
                            format!(
                                "cannot use the record selector `{}` as a function: the type of \
                                 its field is hidden by an existential constructor",
                                q.name
                            ),
                        )
                        .with_help(
                            "match the constructor instead: `case r of C { field = x } -> ...`",
                        ),
                    );
                    (Expr::global(g, q.span), Type::error())
                }
                None => {
                    self.error(Diagnostic::error(q.span, format!("`{q}` is not in scope")));
                    (Expr::global(g, q.span), Type::error())
                }
            }
        } else {
            match self.lookup_local(&q.name).cloned() {
                Some(ValueInfo::Poly(s)) => {
                    let (t, preds) = self.instantiate_at(&s, types, q);
                    let e =
                        self.apply_dicts(Expr::local(q.name.clone(), q.span), preds, q.span, &what);
                    (e, t)
                }
                Some(ValueInfo::InProgress(t, group)) => {
                    let id = self.add_pending(Pending::RecRef {
                        name: Name::Local(q.name.clone()),
                        group,
                        span: q.span,
                    });
                    (Expr::Pending(id), t)
                }
                None => {
                    self.error(Diagnostic::error(
                        q.span,
                        format!("`{}` is not in scope", q.name),
                    ));
                    (Expr::local(q.name.clone(), q.span), Type::error())
                }
            }
        }
    }

    pub fn tc_con(&mut self, q: &QName) -> (Expr, Type) {
        self.tc_con_at(q, &[])
    }

    /// `tc_con`, with the types of a visible type application.
    fn tc_con_at(&mut self, q: &QName, types: &[Option<Type>]) -> (Expr, Type) {
        let g = Tc::global_of(q);
        match self.env.datacons.get(&g) {
            Some(info) => {
                let s = info.scheme.clone();
                let (t, preds) = self.instantiate_at(&s, types, q);
                // An existential constructor packs the dictionaries of its
                // context, as an overloaded function takes them.
                let what = format!("a use of `{}`", fun_name(&q.name));
                let e = self.apply_dicts(Expr::Con(g, q.span), preds, q.span, &what);
                (e, t)
            }
            None => {
                self.error(Diagnostic::error(
                    q.span,
                    format!("data constructor `{q}` is not in scope"),
                ));
                (Expr::Con(g, q.span), Type::error())
            }
        }
    }

    fn tc_lit(&mut self, l: &Literal, span: Span, exp: Option<&Type>, ctx: &Ctx) -> (Expr, Type) {
        match l {
            Literal::Char(c) => {
                let t = self.char_type();
                self.finish(Expr::Lit(Lit::Char(*c), span), t, exp, span, ctx)
            }
            Literal::Str(s) if self.overloaded_strings => {
                let what = "an overloaded string literal";
                let (from, ft) = self.prelude_value("fromString", span, what);
                let lit = Expr::Lit(Lit::Str(s.clone()), span);
                match self.as_fun(&ft) {
                    Some((_, t)) => self.finish(Expr::app(from, lit, span), t, exp, span, ctx),
                    None => (lit, Type::error()),
                }
            }
            Literal::Str(s) => {
                let t = self.string_type();
                self.finish(Expr::Lit(Lit::Str(s.clone()), span), t, exp, span, ctx)
            }
            Literal::Int(digits) => {
                let t = exp.cloned().unwrap_or_else(|| self.table.fresh());
                let value: BigInt = digits.parse().unwrap_or_default();
                let Some(num) = self.prelude_class("Num") else {
                    return (
                        Expr::Lit(Lit::Integer(value), span),
                        self.prim_type("Integer"),
                    );
                };
                let hole = self.want(num, t.clone(), span, format!("the literal `{digits}`"));
                let id = self.add_pending(Pending::Int {
                    value,
                    ty: t.clone(),
                    hole,
                    span,
                });
                (Expr::Pending(id), t)
            }
            Literal::Frac(text) => {
                let t = exp.cloned().unwrap_or_else(|| self.table.fresh());
                let Some(frac) = self.prelude_class("Fractional") else {
                    let v = text.parse().unwrap_or(0.0);
                    return (Expr::Lit(Lit::Double(v), span), self.prim_type("Double"));
                };
                let hole = self.want(frac, t.clone(), span, format!("the literal `{text}`"));
                let id = self.add_pending(Pending::Frac {
                    text: text.clone(),
                    ty: t.clone(),
                    hole,
                    span,
                });
                (Expr::Pending(id), t)
            }
        }
    }

    /// An application `head args...`: each argument is checked against the
    /// parameter type the function's type gives it.
    #[allow(clippy::too_many_arguments)]
    fn tc_app(
        &mut self,
        he: Expr,
        ht: Type,
        desc: Option<String>,
        args: &[&ast::Expr],
        start: Span,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let mut e = he;
        let mut t = ht.clone();
        for (i, a) in args.iter().enumerate() {
            (e, t) = self.inst_forall(e, t, span);
            let (arg_t, res_t) = match self.as_fun(&t) {
                Some(p) => p,
                None => {
                    let h = self.table.head(&t);
                    // A type still unknown at its head (`f a` of `pure 3`)
                    // may yet be a function's.
                    let unknown_head = matches!(self.table.spine(&h).0.ty(), Ty::Var(_));
                    match h.ty() {
                        _ if unknown_head => {
                            let (x, r) = (self.table.fresh(), self.table.fresh());
                            let f = self.fun(x.clone(), r.clone());
                            if !self.expect(&f, &t, span, &Ctx::Plain) {
                                for a in &args[i..] {
                                    self.infer(a);
                                }
                                return (e, exp.cloned().unwrap_or_else(Type::error));
                            }
                            (x, r)
                        }
                        Ty::Error => {
                            for a in &args[i..] {
                                let (ae, _) = self.infer(a);
                                e = Expr::app(e, ae, span);
                            }
                            return (e, exp.cloned().unwrap_or_else(Type::error));
                        }
                        _ => {
                            let has = self.arity_of(&ht);
                            let ht_s = self.show_type(&ht);
                            let who = match &desc {
                                Some(d) => format!("`{d}`"),
                                None => "this function".to_string(),
                            };
                            let msg = format!(
                                "{who} is applied to {}, but its type `{ht_s}` has {}",
                                count(args.len(), "argument"),
                                if has == 0 {
                                    "none".to_string()
                                } else {
                                    format!("only {has}")
                                }
                            );
                            let found = self.show_type(&t);
                            self.error(
                                Diagnostic::error(span, msg)
                                    .with_label(format!("expected a function, found `{found}`")),
                            );
                            for a in &args[i..] {
                                self.infer(a);
                            }
                            return (e, exp.cloned().unwrap_or_else(Type::error));
                        }
                    }
                }
            };
            let ae = self.check(a, &arg_t, &Ctx::Arg(desc.clone(), i + 1));
            e = Expr::app(e, ae, start.to(a.span()));
            t = res_t;
        }
        let (e, t) = self.inst_forall(e, t, span);
        self.finish(e, t, exp, span, ctx)
    }

    fn tc_lambda(
        &mut self,
        pats: &[ast::Pat],
        body: &ast::Expr,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        // Decompose the expected type when it is visibly a function of
        // enough arguments; otherwise infer and unify at the end.
        let mut parts = Vec::new();
        let mut res = None;
        if let Some(x) = exp {
            let mut t = x.clone();
            for _ in pats {
                match self.as_fun(&t) {
                    Some((a, r)) => {
                        parts.push(a);
                        t = r;
                    }
                    None => break,
                }
            }
            if parts.len() == pats.len() {
                res = Some(t);
            } else {
                parts.clear();
            }
        }
        let checked = res.is_some();
        if !checked {
            parts = pats.iter().map(|_| self.table.fresh()).collect();
        }
        let mark = self.locals.len();
        // The body's type, when inferred, is made outside an existential
        // pattern's scope (so that a hidden type cannot escape into it).
        let res_t = res.clone().unwrap_or_else(|| self.table.fresh());
        let lam_pats: Vec<&ast::Pat> = pats.iter().collect();
        let (ps, be) = self.pat_scope(&lam_pats, |tc| {
            let mut binds = Vec::new();
            let ps: Vec<Pat> = pats
                .iter()
                .zip(&parts)
                .map(|(p, t)| tc.check_pat(p, t, &mut binds))
                .collect();
            tc.push_binds(binds);
            let be = match &res {
                Some(r) => tc.check(body, r, &Ctx::Plain),
                None => {
                    let (be, bt) = tc.infer(body);
                    tc.expect(&res_t, &bt, body.span(), &Ctx::Plain);
                    be
                }
            };
            (ps, be)
        });
        let bt = res_t;
        self.locals.truncate(mark);
        let t = parts.into_iter().rev().fold(bt, |r, a| self.fun(a, r));
        let e = Expr::Lambda(ps, Box::new(be), span);
        if checked {
            (e, exp.cloned().unwrap_or(t))
        } else {
            self.finish(e, t, exp, span, ctx)
        }
    }

    /// `(e :: T)`.
    fn tc_annotated(
        &mut self,
        inner: &ast::Expr,
        qt: &ast::QualType,
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let Some(scheme) = self.convert_sig(qt) else {
            let (e, _) = self.infer(inner);
            return (e, exp.cloned().unwrap_or_else(Type::error));
        };
        if scheme.vars.is_empty() && scheme.preds.is_empty() {
            let e = self.check(inner, &scheme.ty, &Ctx::Annotation);
            return self.finish(e, scheme.ty, exp, span, ctx);
        }
        // A polymorphic annotation: check the expression against the
        // scheme like a binding with a signature, then use it at an instance.
        let name = self.fresh_name("ann");
        let owner = Sym::from("the annotation");
        let (dicts, body) = self.check_against_scheme(
            &scheme,
            Some((owner, qt.span)),
            &[],
            &self.scoped_by(qt),
            |tc, ty| tc.check(inner, ty, &Ctx::Annotation),
        );
        let binding = dict_binding(&name, dicts, body, span);
        let (t, preds) = self.instantiate(&scheme);
        let use_ = self.apply_dicts(
            Expr::local(name, span),
            preds,
            span,
            "an expression type signature",
        );
        let e = Expr::Let(vec![binding], Box::new(use_), span);
        self.finish(e, t, exp, span, ctx)
    }

    /// A right-hand side (`= e` or guards, with `where`) against a type.
    pub fn check_rhs(&mut self, rhs: &ast::Rhs, exp: &Type) -> Rhs {
        let mark = self.locals.len();
        let wheres = self.infer_local_binds(&rhs.wheres);
        let body = match &rhs.body {
            ast::RhsBody::Plain(e) => RhsBody::Plain(self.check(e, exp, &Ctx::Plain)),
            ast::RhsBody::Guarded(gs) => RhsBody::Guarded(
                gs.iter()
                    .map(|g| {
                        let mark2 = self.locals.len();
                        let guards = g.guards.iter().map(|s| self.tc_qual(s, false)).collect();
                        let body = self.check(&g.body, exp, &Ctx::Plain);
                        self.locals.truncate(mark2);
                        elab::Guarded {
                            guards,
                            body,
                            span: g.span,
                        }
                    })
                    .collect(),
            ),
        };
        self.locals.truncate(mark);
        Rhs {
            body,
            wheres,
            span: rhs.span,
        }
    }

    /// A qualifier of a guard (`generator` false) or a list comprehension
    /// (`generator` true); its binders are left in scope.
    fn tc_qual(&mut self, s: &ast::Stmt, generator: bool) -> Stmt {
        match s {
            ast::Stmt::Expr(e) => {
                let b = self.bool_type();
                Stmt::Expr(self.check(e, &b, &Ctx::Guard))
            }
            ast::Stmt::Bind(p, e, span) => {
                let (ee, pt) = if generator {
                    let a = self.table.fresh();
                    let la = self.list_of(a.clone());
                    (self.check(e, &la, &Ctx::Generator), a)
                } else {
                    self.infer(e)
                };
                let mut binds = Vec::new();
                let pat = self.check_pat(p, &pt, &mut binds);
                self.push_binds(binds);
                Stmt::Bind(pat, ee, *span)
            }
            ast::Stmt::Let(ds, span) => Stmt::Let(self.infer_local_binds(ds), *span),
        }
    }

    /// `do` blocks, elaborated to `>>=` and `>>` of the block's monad (and
    /// `fail` of MonadFail for a pattern that can fail).
    fn tc_do(
        &mut self,
        stmts: &[ast::Stmt],
        span: Span,
        exp: Option<&Type>,
        ctx: &Ctx,
    ) -> (Expr, Type) {
        let Some((last, init)) = stmts.split_last() else {
            self.error(Diagnostic::error(span, "empty `do` block"));
            return (Expr::Tuple(Vec::new(), span), Type::error());
        };
        let ast::Stmt::Expr(last_e) = last else {
            self.error(
                Diagnostic::error(
                    last.span(),
                    "the last statement of a `do` block must be an expression",
                )
                .with_help("add an expression such as `return ()` after it"),
            );
            for s in stmts {
                if let ast::Stmt::Bind(_, e, _) = s {
                    self.infer(e);
                }
            }
            return (Expr::Tuple(Vec::new(), span), Type::error());
        };
        if init.is_empty() {
            return self.tc_expr(last_e, exp, ctx);
        }
        let m = self.table.fresh();
        let res_val = self.table.fresh();
        let res_t = Type::app(m.clone(), res_val);
        if let Some(x) = exp {
            self.expect(x, &res_t, span, ctx);
        }
        let mark = self.locals.len();
        // A bind's existential pattern scopes over the rest of the block;
        // the block's type was made outside that scope.
        let bind_pats = bind_patterns(init);
        let last_t = res_t.clone();
        let (steps, mut acc) = self.pat_scope(&bind_pats, |tc| {
            let mut steps = Vec::new();
            for s in init {
                match s {
                    ast::Stmt::Expr(e) => {
                        let a = tc.table.fresh();
                        let ma = Type::app(m.clone(), a.clone());
                        let ee = tc.check(e, &ma, &Ctx::Stmt);
                        let (op, opt) =
                            tc.prelude_value(">>", e.span(), "a statement in a `do` block");
                        let b = tc.table.fresh();
                        let mb = Type::app(m.clone(), b);
                        let want = tc.fun(ma, tc.fun(mb.clone(), mb));
                        tc.table.unify(&want, &opt).ok();
                        steps.push(DoStep::Then(op, ee, e.span()));
                    }
                    ast::Stmt::Bind(p, e, sp) => {
                        let a = tc.table.fresh();
                        let ma = Type::app(m.clone(), a.clone());
                        let ee = tc.check(e, &ma, &Ctx::Stmt);
                        let mut binds = Vec::new();
                        let pat = tc.check_pat(p, &a, &mut binds);
                        tc.push_binds(binds);
                        let (op, opt) = tc.prelude_value(">>=", *sp, "a statement in a `do` block");
                        let b = tc.table.fresh();
                        let mb = Type::app(m.clone(), b);
                        let want = tc.fun(ma, tc.fun(tc.fun(a, mb.clone()), mb));
                        tc.table.unify(&want, &opt).ok();
                        let fail = if tc.pat_can_fail(&pat) {
                            let what = "a `do` statement whose pattern can fail";
                            let (f, ft) = tc.prelude_value("fail", p.span(), what);
                            let c = tc.table.fresh();
                            let want = tc.fun(tc.string_type(), Type::app(m.clone(), c));
                            tc.table.unify(&want, &ft).ok();
                            Some(f)
                        } else {
                            None
                        };
                        steps.push(DoStep::Bind(op, pat, ee, fail, *sp));
                    }
                    ast::Stmt::Let(ds, sp) => {
                        let binds = tc.infer_local_binds(ds);
                        steps.push(DoStep::Let(binds, *sp));
                    }
                }
            }
            let acc = tc.check(last_e, &last_t, &Ctx::Stmt);
            (steps, acc)
        });
        self.locals.truncate(mark);
        for step in steps.into_iter().rev() {
            acc = match step {
                DoStep::Then(op, e, sp) => Expr::app(Expr::app(op, e, sp), acc, span),
                DoStep::Let(binds, sp) => Expr::Let(binds, Box::new(acc), sp.to(span)),
                DoStep::Bind(op, pat, e, fail, sp) => {
                    let lam = match fail {
                        None => Expr::Lambda(vec![pat], Box::new(acc), sp),
                        Some(f) => {
                            let x = self.fresh_name("do");
                            let pspan = pat.span();
                            let alts = vec![
                                Alt {
                                    pat,
                                    rhs: plain_rhs(acc, sp),
                                    span: sp,
                                },
                                Alt {
                                    pat: Pat::Wildcard(sp),
                                    rhs: plain_rhs(
                                        Expr::app(f, Expr::Lit(Lit::DoFailMsg(pspan), pspan), sp),
                                        sp,
                                    ),
                                    span: sp,
                                },
                            ];
                            let case = Expr::Case(Box::new(Expr::local(x.clone(), sp)), alts, sp);
                            Expr::Lambda(vec![Pat::Var(x, sp)], Box::new(case), sp)
                        }
                    };
                    Expr::app(Expr::app(op, e, sp), lam, span)
                }
            };
        }
        (acc, exp.cloned().unwrap_or(res_t))
    }

    /// Whether matching the pattern can fail (GHC's notion: constructors of
    /// types with one constructor, variables, lazy patterns and tuples of
    /// such cannot).
    pub fn pat_can_fail(&self, p: &Pat) -> bool {
        gph_syntax::stack::guard();
        match p {
            Pat::Var(..) | Pat::Wildcard(_) | Pat::Lazy(..) => false,
            Pat::Bang(p, _) | Pat::As(_, p, _) => self.pat_can_fail(p),
            Pat::Tuple(ps, _) => ps.iter().any(|p| self.pat_can_fail(p)),
            Pat::Con(c, ps, _) => {
                let single = self.env.datacons.get(c).is_some_and(|info| {
                    matches!(&self.env.tycon(info.tycon).def, super::env::TyConDef::Data { cons, .. } if cons.len() == 1)
                });
                !single || ps.iter().any(|p| self.pat_can_fail(p))
            }
            Pat::Lit(..)
            | Pat::Overloaded { .. }
            | Pat::List(..)
            | Pat::Pending(..)
            | Pat::View(..) => true,
        }
    }

    // ------------------------------------------------------------ patterns

    /// Checks a pattern against the type its context gives it; its
    /// variables are added to `binds`.
    pub fn check_pat(&mut self, p: &ast::Pat, exp: &Type, binds: &mut Binds) -> Pat {
        gph_syntax::stack::guard();
        use ast::Pat as P;
        match p {
            P::Var(id) => {
                binds.push((id.name.clone(), exp.clone()));
                Pat::Var(id.name.clone(), id.span)
            }
            P::Wildcard(s) => Pat::Wildcard(*s),
            P::Lit(l, s) => self.tc_pat_lit(l, false, exp, *s),
            P::NegLit(l, s) => self.tc_pat_lit(l, true, exp, *s),
            P::Con(q, args, span) => {
                let g = Tc::global_of(q);
                let Some(info) = self.env.datacons.get(&g).cloned() else {
                    self.error(Diagnostic::error(
                        q.span,
                        format!("data constructor `{q}` is not in scope"),
                    ));
                    for a in args {
                        self.check_pat(a, &Type::error(), binds);
                    }
                    return Pat::Wildcard(*span);
                };
                if args.len() != info.arity {
                    let given = match args.len() {
                        0 => "none".to_string(),
                        n => n.to_string(),
                    };
                    self.error(Diagnostic::error(
                        *span,
                        format!(
                            "the constructor `{}` should have {}, but has been given {given}",
                            q.name,
                            count(info.arity, "argument")
                        ),
                    ));
                    for a in args {
                        self.check_pat(a, &Type::error(), binds);
                    }
                    return Pat::Wildcard(*span);
                }
                let Opened {
                    ty: mut t,
                    result,
                    dicts,
                    eqs,
                } = if info.is_existential() {
                    self.open_existential(&info, q, *span)
                } else {
                    Opened {
                        ty: self.instantiate(&info.scheme).0,
                        result: None,
                        dicts: Vec::new(),
                        eqs: Vec::new(),
                    }
                };
                let mut fields = Vec::new();
                for _ in 0..info.arity {
                    match self.as_fun(&t) {
                        Some((a, r)) => {
                            fields.push(a);
                            t = r;
                        }
                        None => fields.push(Type::error()),
                    }
                }
                let t = result.unwrap_or(t);
                self.expect(exp, &t, *span, &Ctx::Pattern);
                for (a, b) in eqs {
                    self.refine(&a, &b, *span);
                }
                let mut ps = dicts;
                for (a, ft) in args.iter().zip(&fields) {
                    let p = self.check_pat(a, ft, binds);
                    ps.push(p);
                }
                Pat::Con(g, ps, *span)
            }
            P::Tuple(ps, span) => {
                let (h, args) = self.table.spine(exp);
                let is_tuple = matches!(h.ty(), Ty::Con(c) if self.known.tuples.get(ps.len()).copied().flatten() == Some(*c));
                if is_tuple && args.len() == ps.len() {
                    let out = ps
                        .iter()
                        .zip(&args)
                        .map(|(p, t)| self.check_pat(p, t, binds))
                        .collect();
                    return Pat::Tuple(out, *span);
                }
                let tys: Vec<Type> = ps.iter().map(|_| self.table.fresh()).collect();
                let t = self.tuple_of(tys.clone());
                self.expect(exp, &t, *span, &Ctx::Pattern);
                let out = ps
                    .iter()
                    .zip(&tys)
                    .map(|(p, t)| self.check_pat(p, t, binds))
                    .collect();
                Pat::Tuple(out, *span)
            }
            P::List(ps, span) => {
                let elem = match self.as_list(exp) {
                    Some(t) => t,
                    None => {
                        let a = self.table.fresh();
                        let la = self.list_of(a.clone());
                        self.expect(exp, &la, *span, &Ctx::Pattern);
                        a
                    }
                };
                let out = ps.iter().map(|p| self.check_pat(p, &elem, binds)).collect();
                Pat::List(out, *span)
            }
            P::As(id, inner, span) => {
                binds.push((id.name.clone(), exp.clone()));
                let ip = self.check_pat(inner, exp, binds);
                Pat::As(id.name.clone(), Box::new(ip), *span)
            }
            P::Lazy(inner, span) => {
                self.lazy_pat += 1;
                let p = self.check_pat(inner, exp, binds);
                self.lazy_pat -= 1;
                Pat::Lazy(Box::new(p), *span)
            }
            P::Bang(inner, span) => Pat::Bang(Box::new(self.check_pat(inner, exp, binds)), *span),
            P::Paren(inner, _) => self.check_pat(inner, exp, binds),
            P::View(f, inner, span) => {
                // `f` takes the matched value to what `inner` matches; it
                // sees the variables bound left of it.
                let res = self.table.fresh();
                let ft = self.fun(exp.clone(), res.clone());
                let mark = self.locals.len();
                self.push_binds(binds.clone());
                let f = self.check(f, &ft, &Ctx::Pattern);
                self.locals.truncate(mark);
                let p = self.check_pat(inner, &res, binds);
                Pat::View(Box::new(f), Box::new(p), *span)
            }
            P::Typed(inner, qt, _) => {
                if let Some(s) = self.convert_sig(qt) {
                    // A pattern signature's new variables name the types
                    // they meet, for what the pattern's binders scope over.
                    let args: Vec<Type> = s.vars.iter().map(|_| self.table.fresh()).collect();
                    for (v, t) in s.vars.iter().zip(&args) {
                        if let Some(v) = v {
                            self.bind_type_variable(v, t.clone());
                        }
                    }
                    let t = subst_gen(&s.ty, &args);
                    self.expect(exp, &t, qt.span, &Ctx::Pattern);
                }
                self.check_pat(inner, exp, binds)
            }
            P::Record(_, _, _, span) => {
                self.error(Diagnostic::error(
                    *span,
                    "record patterns are not supported yet",
                ));
                Pat::Wildcard(*span)
            }
            P::OpChain(_, span) => {
                self.error(Diagnostic::error(
                    *span,
                    "internal error: unresolved operator chain",
                ));
                Pat::Wildcard(*span)
            }
        }
    }

    /// The type of an existential constructor's pattern, its hidden types
    /// rigid (with, for a GADT constructor, the result the pattern meets
    /// the scrutinee with, and the equalities that refine it), and the
    /// patterns that bind the dictionaries it packs (which become givens of
    /// the enclosing `pat_scope`).
    fn open_existential(
        &mut self,
        info: &super::env::DataConInfo,
        q: &QName,
        span: Span,
    ) -> Opened {
        let nparams = info.scheme.vars.len() - info.exists;
        if self.pat_givens.is_none() || self.lazy_pat > 0 {
            self.error(
                Diagnostic::error(
                    span,
                    format!(
                        "the existential constructor `{}` cannot be matched in a lazy pattern \
                         or a `let` or `where` pattern binding",
                        q.name
                    ),
                )
                .with_help(
                    "the types it hides would have no scope: match it with `case`, in a \
                     function's arguments, a lambda or a `do` bind",
                ),
            );
            let (t, _) = self.instantiate(&info.scheme);
            let dicts = info
                .scheme
                .preds
                .iter()
                .map(|_| Pat::Wildcard(span))
                .collect();
            return Opened {
                ty: t,
                result: None,
                dicts,
                eqs: Vec::new(),
            };
        }
        let owner = Some((
            Sym::from(format!("the pattern of the constructor `{}`", q.name)),
            span,
        ));
        let mut args: Vec<Type> = (0..nparams).map(|_| self.table.fresh()).collect();
        for v in &info.scheme.vars[nparams..] {
            let name = v.clone().unwrap_or_else(|| Sym::from("a"));
            let sk = self.table.skolem(name, owner.clone());
            args.push(sk);
        }
        let t = subst_gen(&info.scheme.ty, &args);
        // GADTs: the pattern meets the scrutinee with the type's parameters
        // in every place; what the constructor fixes them to is an equality
        // the match refines them by (`refine`, once they are met).
        let result = (!info.eqs.is_empty())
            .then(|| Type::apps(Type::con(info.tycon), args[..nparams].iter().cloned()));
        let eqs = info
            .eqs
            .iter()
            .map(|(i, et)| (args[*i].clone(), subst_gen(et, &args)))
            .collect();
        let mut pats = Vec::new();
        let mut givens = self.pat_givens.take().unwrap_or_default();
        for p in &info.scheme.preds {
            let cname = self.env.class(p.class).name.name.clone();
            let d = self.fresh_name(&format!("d{cname}"));
            let pt = subst_gen(&p.ty, &args);
            self.add_given(&mut givens, p.class, pt, elab::Dict::Var(d.clone()));
            pats.push(Pat::Var(d, span));
        }
        self.pat_givens = Some(givens);
        Opened {
            ty: t,
            result,
            dicts: pats,
            eqs,
        }
    }

    /// A GADT match's equality `a ~ b` (a parameter of the scrutinee's
    /// type and what the constructor fixes it to), taken apart: a rigid
    /// variable met on either side is linked to the other side for the rest
    /// of the match's scope (`pat_scope` cuts the link; of two rigid
    /// variables the inner one, the pattern's own, is linked, so that the
    /// branch's types are told in the signature's); anything else must
    /// unify.
    fn refine(&mut self, a: &Type, b: &Type, span: Span) {
        gph_syntax::stack::guard();
        let (a, b) = (self.table.head(a), self.table.head(b));
        let level = |tc: &Tc, s: u32| tc.table.skolems[s as usize].level;
        let link = match (a.ty(), b.ty()) {
            (Ty::Skol(x), Ty::Skol(y)) if x == y => return,
            (Ty::Skol(x), Ty::Skol(y)) if level(self, *y) > level(self, *x) => {
                Some((*y, a.clone()))
            }
            (Ty::Skol(x), _) if !mentions_skolem(&mut self.table, &b, *x) => Some((*x, b.clone())),
            (_, Ty::Skol(y)) if !mentions_skolem(&mut self.table, &a, *y) => Some((*y, a.clone())),
            (Ty::App(f1, a1), Ty::App(f2, a2)) => {
                let (f1, a1, f2, a2) = (f1.clone(), a1.clone(), f2.clone(), a2.clone());
                self.refine(&f1, &f2, span);
                self.refine(&a1, &a2, span);
                return;
            }
            _ => None,
        };
        match link {
            Some((s, t)) => {
                self.table.skolems[s as usize].link = Some(t);
                self.pat_links.push(s);
            }
            None => {
                self.expect(&a, &b, span, &Ctx::Pattern);
            }
        }
    }

    fn tc_pat_lit(&mut self, l: &Literal, negative: bool, exp: &Type, span: Span) -> Pat {
        match l {
            Literal::Char(c) => {
                let t = self.char_type();
                self.expect(exp, &t, span, &Ctx::Pattern);
                Pat::Lit(Lit::Char(*c), span)
            }
            Literal::Str(s) if self.overloaded_strings => {
                let (Some(eq), Some(string)) =
                    (self.prelude_class("Eq"), self.prelude_class("IsString"))
                else {
                    let t = self.string_type();
                    self.expect(exp, &t, span, &Ctx::Pattern);
                    return Pat::Lit(Lit::Str(s.clone()), span);
                };
                let what = format!("the literal {s:?}");
                let eq = self.want(eq, exp.clone(), span, what.clone());
                let string = self.want(string, exp.clone(), span, what);
                let id = self.add_pending(Pending::PatStr {
                    text: s.clone(),
                    ty: exp.clone(),
                    eq,
                    string,
                    span,
                });
                Pat::Pending(id, span)
            }
            Literal::Str(s) => {
                let t = self.string_type();
                self.expect(exp, &t, span, &Ctx::Pattern);
                Pat::Lit(Lit::Str(s.clone()), span)
            }
            Literal::Int(_) | Literal::Frac(_) => {
                let frac = matches!(l, Literal::Frac(_));
                let (Some(eq), Some(num)) = (
                    self.prelude_class("Eq"),
                    self.prelude_class(if frac { "Fractional" } else { "Num" }),
                ) else {
                    self.error(Diagnostic::error(
                        span,
                        "numeric literal patterns need the Prelude",
                    ));
                    return Pat::Wildcard(span);
                };
                let text = match l {
                    Literal::Int(s) | Literal::Frac(s) => s.clone(),
                    _ => Sym::from(""),
                };
                let what = format!("the literal `{}{text}`", if negative { "-" } else { "" });
                let eq_hole = self.want(eq, exp.clone(), span, what.clone());
                let num_hole = self.want(num, exp.clone(), span, what);
                let id = self.add_pending(Pending::PatNum {
                    lit: l.clone(),
                    negative,
                    ty: exp.clone(),
                    eq: eq_hole,
                    num: num_hole,
                    span,
                });
                Pat::Pending(id, span)
            }
        }
    }
}

pub fn plain_rhs(e: Expr, span: Span) -> Rhs {
    Rhs {
        body: RhsBody::Plain(e),
        wheres: Vec::new(),
        span,
    }
}

/// The patterns of the statements' binds (`p <- e`).
fn bind_patterns(stmts: &[ast::Stmt]) -> Vec<&ast::Pat> {
    stmts
        .iter()
        .filter_map(|s| match s {
            ast::Stmt::Bind(p, _, _) => Some(p),
            _ => None,
        })
        .collect()
}

/// Whether the rigid variable `s` occurs in `t`.
fn mentions_skolem(table: &mut TypeTable, t: &Type, s: u32) -> bool {
    gph_syntax::stack::guard();
    let t = table.prune(t);
    match t.ty() {
        Ty::Skol(x) => *x == s,
        Ty::App(f, a) => {
            let (f, a) = (f.clone(), a.clone());
            mentions_skolem(table, &f, s) || mentions_skolem(table, &a, s)
        }
        Ty::Syn(_, _, e) => {
            let e = e.clone();
            mentions_skolem(table, &e, s)
        }
        _ => false,
    }
}

/// A constructor's pattern, opened (`Tc::open_existential`).
struct Opened {
    /// `fields -> result`.
    ty: Type,
    /// For a GADT constructor: the result the pattern meets the scrutinee
    /// with (the type's parameters in every place).
    result: Option<Type>,
    /// The patterns that bind the dictionaries it packs.
    dicts: Vec<Pat>,
    /// The equalities that refine the parameters (`Tc::refine`).
    eqs: Vec<(Type, Type)>,
}

/// `name dicts = body`: a value checked against a polymorphic type, its
/// context's dictionaries its parameters.
fn dict_binding(name: &Sym, dicts: Vec<Sym>, body: Expr, span: Span) -> elab::Binding {
    elab::Binding::Fun {
        name: Name::Local(name.clone()),
        dicts,
        clauses: vec![elab::Clause {
            args: Vec::new(),
            rhs: Rhs {
                body: RhsBody::Plain(body),
                wheres: Vec::new(),
                span,
            },
            span,
        }],
        span,
    }
}
