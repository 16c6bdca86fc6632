//! Binding groups, at top level and in `let`/`where`: dependency analysis
//! (strongly connected components; a binding with a signature breaks the
//! cycles through it), inference of each group at a deeper level, the
//! monomorphism restriction, defaulting, generalisation; and the checking
//! of bindings against their signatures.

use super::elab::{self, Clause, Name};
use super::env::ValueInfo;
use super::errors::{count, fun_name, Ctx};
use super::kinds::pat_is_var;
use super::tc::{Given, Tc};
use super::ty::*;
use gph_syntax::ast::{self, Decl, QName};
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, Span};
use std::collections::HashMap;

pub use crate::graph::sccs;

/// One binding of a declaration list: a function (all its clauses) or a
/// pattern binding.
pub enum BindItem<'a> {
    Fun {
        name: Sym,
        name_span: Span,
        clauses: Vec<ClauseRef<'a>>,
        span: Span,
    },
    Pat {
        pat: &'a ast::Pat,
        rhs: &'a ast::Rhs,
        names: Vec<Sym>,
        span: Span,
    },
}

#[derive(Clone, Copy)]
pub struct ClauseRef<'a> {
    pub args: &'a [ast::Pat],
    pub rhs: &'a ast::Rhs,
    pub span: Span,
}

impl BindItem<'_> {
    fn names(&self) -> Vec<Sym> {
        match self {
            BindItem::Fun { name, .. } => vec![name.clone()],
            BindItem::Pat { names, .. } => names.clone(),
        }
    }
}

/// The bindings of a declaration list, and its signatures.
pub fn collect_binds(
    decls: &[Decl],
) -> (Vec<BindItem<'_>>, Vec<(&ast::Ident, &ast::QualType, Span)>) {
    let mut items: Vec<BindItem> = Vec::new();
    let mut index: HashMap<Sym, usize> = HashMap::new();
    let mut sigs = Vec::new();
    for d in decls {
        match d {
            Decl::FunClause {
                name,
                args,
                rhs,
                span,
            } => {
                let c = ClauseRef {
                    args,
                    rhs,
                    span: *span,
                };
                add_clause(&mut items, &mut index, name.name.clone(), name.span, c);
            }
            Decl::PatBind { pat, rhs, span } => {
                if let Some(v) = simple_var(pat) {
                    let c = ClauseRef {
                        args: &[],
                        rhs,
                        span: *span,
                    };
                    add_clause(&mut items, &mut index, v.name.clone(), v.span, c);
                } else {
                    let mut names = Vec::new();
                    pat_vars(pat, &mut names);
                    items.push(BindItem::Pat {
                        pat,
                        rhs,
                        names,
                        span: *span,
                    });
                }
            }
            Decl::Sig { names, ty, span } => {
                for n in names {
                    sigs.push((n, ty, *span));
                }
            }
            _ => {}
        }
    }
    (items, sigs)
}

fn add_clause<'a>(
    items: &mut Vec<BindItem<'a>>,
    index: &mut HashMap<Sym, usize>,
    name: Sym,
    name_span: Span,
    c: ClauseRef<'a>,
) {
    if let Some(&i) = index.get(&name) {
        if let BindItem::Fun { clauses, span, .. } = &mut items[i] {
            clauses.push(c);
            *span = span.to(c.span);
            return;
        }
    }
    index.insert(name.clone(), items.len());
    items.push(BindItem::Fun {
        name,
        name_span,
        clauses: vec![c],
        span: c.span,
    });
}

fn simple_var(p: &ast::Pat) -> Option<&ast::Ident> {
    gph_syntax::stack::guard();
    match p {
        ast::Pat::Var(i) => Some(i),
        ast::Pat::Paren(p, _) => simple_var(p),
        _ => None,
    }
}

pub fn pat_vars(p: &ast::Pat, out: &mut Vec<Sym>) {
    p.vars_into(out)
}

// ---------------------------------------------------------------- references

/// Collects the names a piece of syntax refers to that `want` accepts (an
/// over-approximation: shadowing is ignored, which can only merge groups).
struct Refs<'f> {
    want: &'f dyn Fn(&QName) -> bool,
    out: Vec<Sym>,
}

impl Refs<'_> {
    fn name(&mut self, q: &QName) {
        if (self.want)(q) {
            self.out.push(q.name.clone());
        }
    }

    fn expr(&mut self, e: &ast::Expr) {
        gph_syntax::stack::guard();
        use ast::Expr as E;
        match e {
            E::Var(q) => self.name(q),
            E::Con(_) | E::Lit(..) | E::Wildcard(_) => {}
            E::App(f, a, _) => {
                self.expr(f);
                self.expr(a)
            }
            E::OpChain(items, _) => {
                for it in items {
                    match it {
                        ast::ChainItem::Operand(e) => self.expr(e),
                        ast::ChainItem::Op(q) => self.name(q),
                        ast::ChainItem::Neg(_) => {}
                    }
                }
            }
            E::BinOp(op, l, r, _) => {
                self.name(op);
                self.expr(l);
                self.expr(r)
            }
            E::Neg(e, _)
            | E::Paren(e, _)
            | E::Lazy(e, _)
            | E::Bang(e, _)
            | E::As(_, e, _)
            | E::TypeApp(e, _, _)
            | E::Typed(e, _, _) => self.expr(e),
            E::Lambda(ps, b, _) => {
                ps.iter().for_each(|p| self.pat(p));
                self.expr(b)
            }
            E::View(f, p, _) => {
                self.expr(f);
                self.expr(p)
            }
            E::Let(ds, b, _) => {
                self.decls(ds);
                self.expr(b)
            }
            E::If(c, t, f, _) => {
                self.expr(c);
                self.expr(t);
                self.expr(f)
            }
            E::Case(s, alts, _) => {
                self.expr(s);
                for a in alts {
                    self.pat(&a.pat);
                    self.rhs(&a.rhs)
                }
            }
            E::Do(stmts, _) => self.stmts(stmts),
            E::Tuple(es, _) | E::List(es, _) => es.iter().for_each(|e| self.expr(e)),
            E::Range { from, then, to, .. } => {
                self.expr(from);
                if let Some(t) = then {
                    self.expr(t)
                }
                if let Some(t) = to {
                    self.expr(t)
                }
            }
            E::Comprehension(b, stmts, _) => {
                self.expr(b);
                self.stmts(stmts)
            }
            E::LeftSection(e, op, _) | E::RightSection(op, e, _) => {
                self.name(op);
                self.expr(e)
            }
            E::Record(e, fs, _, _) => {
                self.expr(e);
                fs.iter().for_each(|(_, e)| self.expr(e))
            }
        }
    }

    fn stmts(&mut self, stmts: &[ast::Stmt]) {
        for s in stmts {
            match s {
                ast::Stmt::Bind(p, e, _) => {
                    self.pat(p);
                    self.expr(e)
                }
                ast::Stmt::Expr(e) => self.expr(e),
                ast::Stmt::Let(ds, _) => self.decls(ds),
            }
        }
    }

    fn rhs(&mut self, r: &ast::Rhs) {
        self.decls(&r.wheres);
        match &r.body {
            ast::RhsBody::Plain(e) => self.expr(e),
            ast::RhsBody::Guarded(gs) => {
                for g in gs {
                    self.stmts(&g.guards);
                    self.expr(&g.body)
                }
            }
        }
    }

    fn decls(&mut self, ds: &[Decl]) {
        for d in ds {
            match d {
                Decl::FunClause { args, rhs, .. } => {
                    args.iter().for_each(|p| self.pat(p));
                    self.rhs(rhs)
                }
                Decl::PatBind { pat, rhs, .. } => {
                    self.pat(pat);
                    self.rhs(rhs)
                }
                _ => {}
            }
        }
    }

    /// The functions of a pattern's view patterns.
    fn pat(&mut self, p: &ast::Pat) {
        gph_syntax::stack::guard();
        use ast::Pat as P;
        match p {
            P::View(f, p, _) => {
                self.expr(f);
                self.pat(p)
            }
            P::Con(_, ps, _) | P::Tuple(ps, _) | P::List(ps, _) => {
                ps.iter().for_each(|p| self.pat(p))
            }
            P::As(_, p, _) | P::Lazy(p, _) | P::Bang(p, _) | P::Paren(p, _) | P::Typed(p, _, _) => {
                self.pat(p)
            }
            P::Record(_, fs, _, _) => fs.iter().for_each(|(_, p)| self.pat(p)),
            P::OpChain(items, _) => items.iter().for_each(|i| {
                if let ast::ChainItem::Operand(p) = i {
                    self.pat(p)
                }
            }),
            P::Var(_) | P::Wildcard(_) | P::Lit(..) | P::NegLit(..) => {}
        }
    }
}

impl Tc {
    fn bind_name(&self, top: bool, n: &Sym) -> Name {
        if top {
            Name::Global(Global {
                module: self.module.clone(),
                name: n.clone(),
            })
        } else {
            Name::Local(n.clone())
        }
    }

    pub fn set_value(&mut self, n: &Name, info: ValueInfo) {
        match n {
            Name::Global(g) => {
                self.env.values.insert(g.clone(), info);
            }
            Name::Local(s) => self.locals.push((s.clone(), info)),
        }
    }

    /// A signature whose context constrains a variable that its type does
    /// not mention can never be used: reject it, as GHC's ambiguity check.
    fn check_sig_ambiguity(&mut self, s: &Scheme, name: &Sym, qt: &ast::QualType) {
        let mut in_type = Vec::new();
        gens_of(&s.ty, &mut in_type);
        let fd_preds: Vec<(ClassId, Type)> =
            s.preds.iter().map(|p| (p.class, p.ty.clone())).collect();
        self.fundep_closure(&fd_preds, &mut in_type, |_, t, out| gens_of(t, out));
        let context = self.expand_context(&qt.context);
        for (p, ap) in s.preds.iter().zip(&context) {
            let mut vs = Vec::new();
            gens_of(&p.ty, &mut vs);
            if let Some(v) = vs.iter().find(|v| !in_type.contains(v)) {
                let vname = s
                    .vars
                    .get(*v as usize)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| Sym::from("a"));
                let shown = {
                    let class = self.env.class(p.class).name.name.clone();
                    let args: Vec<String> = ast::constraint_args(&ap.ty)
                        .into_iter()
                        .map(|t| super::kinds::show_ast_type_prec(t, 2))
                        .collect();
                    format!("{class} {}", args.join(" "))
                };
                self.error(
                    Diagnostic::error(
                        ap.span,
                        format!("the type signature for `{}` is ambiguous", fun_name(name)),
                    )
                    .with_label(format!(
                        "`{vname}` is constrained here (`{shown}`) but does not appear in the type"
                    ))
                    .with_help(
                        "every constrained type variable must appear in the type after `=>`",
                    ),
                );
            }
        }
    }

    /// Extends `vars` with the variables that functional dependencies of
    /// `preds` determine from them (`a` of `Container c a` when `c` is
    /// there and `c -> a`), until nothing is added: a constraint on those
    /// is not ambiguous. `collect` gives a type's variables.
    pub fn fundep_closure(
        &mut self,
        preds: &[(ClassId, Type)],
        vars: &mut Vec<u32>,
        collect: impl Fn(&mut Tc, &Type, &mut Vec<u32>),
    ) {
        loop {
            let mut grew = false;
            for (c, t) in preds {
                let fundeps = self.env.class(*c).fundeps.clone();
                if fundeps.is_empty() {
                    continue;
                }
                let args = self.class_args(*c, t);
                for (from, to) in fundeps {
                    let mut fv = Vec::new();
                    for &i in &from {
                        collect(self, &args[i], &mut fv);
                    }
                    if !fv.iter().all(|v| vars.contains(v)) {
                        continue;
                    }
                    for &j in &to {
                        let mut tv = Vec::new();
                        collect(self, &args[j], &mut tv);
                        for v in tv {
                            if !vars.contains(&v) {
                                vars.push(v);
                                grew = true;
                            }
                        }
                    }
                }
            }
            if !grew {
                break;
            }
        }
    }

    /// The bindings of a `let` or `where`: left in scope for the caller
    /// (which truncates `locals` when the scope ends).
    pub fn infer_local_binds(&mut self, decls: &[Decl]) -> Vec<elab::Binding> {
        self.infer_binds(decls, false)
    }

    /// The top-level bindings of the current module.
    pub fn infer_top_binds(&mut self, decls: &[Decl]) -> Vec<elab::Binding> {
        self.infer_binds(decls, true)
    }

    fn infer_binds(&mut self, decls: &[Decl], top: bool) -> Vec<elab::Binding> {
        let (items, sig_list) = collect_binds(decls);
        if items.is_empty() {
            return Vec::new();
        }
        let mut sigs: HashMap<Sym, (Scheme, Span)> = HashMap::new();
        let mut scoped: HashMap<Sym, Vec<Sym>> = HashMap::new();
        for (name, qt, span) in sig_list {
            if let Some(s) = self.convert_sig(qt) {
                self.check_sig_ambiguity(&s, &name.name, qt);
                sigs.insert(name.name.clone(), (s, span));
                scoped.insert(name.name.clone(), self.scoped_by(qt));
            }
        }
        // Signed functions are known before anything is inferred.
        let mut signed = vec![false; items.len()];
        for (i, it) in items.iter().enumerate() {
            if let BindItem::Fun { name, .. } = it {
                if let Some((s, _)) = sigs.get(name) {
                    signed[i] = true;
                    let n = self.bind_name(top, name);
                    self.set_value(&n, ValueInfo::Poly(s.clone()));
                }
            }
        }
        // Dependencies.
        let mut owner: HashMap<Sym, usize> = HashMap::new();
        for (i, it) in items.iter().enumerate() {
            for n in it.names() {
                owner.insert(n, i);
            }
        }
        let module = self.module.clone();
        let want = move |q: &QName| -> bool {
            match &q.qual {
                Some(m) => top && *m == module,
                None => !top,
            }
        };
        let mut edges = vec![Vec::new(); items.len()];
        for (i, it) in items.iter().enumerate() {
            let mut r = Refs {
                want: &want,
                out: Vec::new(),
            };
            match it {
                BindItem::Fun { clauses, .. } => clauses.iter().for_each(|c| {
                    c.args.iter().for_each(|p| r.pat(p));
                    r.rhs(c.rhs)
                }),
                BindItem::Pat { pat, rhs, .. } => {
                    r.pat(pat);
                    r.rhs(rhs)
                }
            }
            for n in r.out {
                if let Some(&j) = owner.get(&n) {
                    if !signed[j] && !edges[i].contains(&j) {
                        edges[i].push(j);
                    }
                }
            }
        }
        let mut out = Vec::new();
        for comp in sccs(items.len(), &edges) {
            if comp.len() == 1 && signed[comp[0]] {
                if let BindItem::Fun {
                    name,
                    clauses,
                    span,
                    ..
                } = &items[comp[0]]
                {
                    if let Some((s, sig_span)) = sigs.get(name).cloned() {
                        let n = self.bind_name(top, name);
                        let owner = Some((name.clone(), sig_span));
                        let (dicts, cls) =
                            self.check_against_scheme(&s, owner, &[], &scoped[name], |tc, ty| {
                                tc.tc_clauses(name, clauses, ty)
                            });
                        out.push(elab::Binding::Fun {
                            name: n,
                            dicts,
                            clauses: cls,
                            span: *span,
                        });
                        continue;
                    }
                }
            }
            let group: Vec<&BindItem> = comp.iter().map(|&i| &items[i]).collect();
            out.extend(self.infer_group(&group, &sigs, top));
        }
        out
    }

    /// Infers a group of mutually recursive bindings without signatures
    /// (pattern bindings may have signatures for their variables).
    fn infer_group(
        &mut self,
        items: &[&BindItem],
        sigs: &HashMap<Sym, (Scheme, Span)>,
        top: bool,
    ) -> Vec<elab::Binding> {
        let diag_mark = self.diags.len();
        let outer = self.table.level;
        self.table.level += 1;
        let gid = self.groups.len() as u32;
        self.groups.push(Vec::new());
        // Monomorphic types for everything the group binds.
        let mut monos: Vec<(Name, Type)> = Vec::new();
        let mut item_types: Vec<Type> = Vec::new();
        let mut pats: Vec<Option<elab::Pat>> = Vec::new();
        for it in items {
            let t = self.table.fresh();
            item_types.push(t.clone());
            match it {
                BindItem::Fun { name, .. } => {
                    let n = self.bind_name(top, name);
                    self.set_value(&n, ValueInfo::InProgress(t.clone(), gid));
                    monos.push((n, t));
                    pats.push(None);
                }
                BindItem::Pat { pat, .. } => {
                    let mut binds = Vec::new();
                    // No existential scope reaches into a pattern binding.
                    let outer_givens = self.pat_givens.take();
                    let p = self.check_pat(pat, &t, &mut binds);
                    self.pat_givens = outer_givens;
                    for (v, vt) in binds {
                        if let Some((s, sp)) = sigs.get(&v) {
                            let (st, _) = self.instantiate(s);
                            self.expect(&st, &vt, *sp, &Ctx::Plain);
                        }
                        let n = self.bind_name(top, &v);
                        self.set_value(&n, ValueInfo::InProgress(vt.clone(), gid));
                        monos.push((n, vt));
                    }
                    pats.push(Some(p));
                }
            }
        }
        let saved = std::mem::take(&mut self.wanted);
        let eq_start = self.deferred_eqs.len();
        let old_group = self.enter_group();
        let mut bodies = Vec::new();
        for (it, t) in items.iter().zip(&item_types) {
            match it {
                BindItem::Fun { name, clauses, .. } => {
                    bodies.push(Ok(self.tc_clauses(name, clauses, t)));
                }
                BindItem::Pat { rhs, .. } => bodies.push(Err(self.check_rhs(rhs, t))),
            }
        }
        self.table.level = outer;
        self.cur_group = old_group;
        self.settle_deferred(eq_start, outer);
        let ws = std::mem::replace(&mut self.wanted, saved);
        let errored = self.diags.len() > diag_mark;
        // (A pattern binding stays restricted without it too: GHC does
        // not generalise one over constraints, its dictionaries would have
        // nowhere to go.)
        let restricted = items.iter().any(|it| match it {
            BindItem::Pat { .. } => true,
            BindItem::Fun { clauses, .. } => {
                !self.no_monomorphism_restriction && clauses.iter().all(|c| c.args.is_empty())
            }
        });
        let (local, deferred) = self.simplify(ws, &[], outer, errored);
        self.wanted.extend(deferred);
        // Variables of the types: a constraint on anything else is ambiguous.
        let mut type_vars = Vec::new();
        for (_, t) in &monos {
            self.table.free_vars(t, &mut type_vars);
        }
        // ... or on what a functional dependency determines from them.
        let fd_preds: Vec<(ClassId, Type)> =
            local.iter().map(|w| (w.class, w.ty.clone())).collect();
        self.fundep_closure(&fd_preds, &mut type_vars, |tc, t, out| {
            tc.table.free_vars(t, out)
        });
        let mut ambiguous = Vec::new();
        let mut retained = Vec::new();
        for w in local {
            let mut fv = Vec::new();
            self.table.free_vars(&w.ty, &mut fv);
            let inner_unreached = fv
                .iter()
                .any(|v| self.table.vars[*v as usize].level > outer && !type_vars.contains(v));
            // Under the monomorphism restriction a constraint on a variable
            // the type does not show goes out with the others, as GHC's
            // does: what the enclosing scope learns may still settle it
            // (`main = printf "a" >> printf "b"`: `PrintfType (m a)` is
            // solved once main's m is IO).
            if inner_unreached && !restricted {
                ambiguous.push(w)
            } else {
                retained.push(w)
            }
        }
        self.default_wanteds(ambiguous, &[], outer, errored);
        let preds: Vec<(Pred, Sym)> = if restricted {
            // The monomorphism restriction: constrained variables stay
            // monomorphic; the constraints go to the enclosing scope.
            for w in &retained {
                self.table.lower(&w.ty, outer);
            }
            if errored {
                for w in retained {
                    self.fill(w.hole, super::classes::error_dict());
                }
            } else {
                self.wanted.extend(retained);
            }
            Vec::new()
        } else {
            self.quantify(retained, &type_vars)
        };
        // Generalise.
        let mut gen_vars = Vec::new();
        for (_, t) in &monos {
            self.table.free_vars(t, &mut gen_vars);
        }
        for (p, _) in &preds {
            self.table.free_vars(&p.ty, &mut gen_vars);
        }
        gen_vars.retain(|v| self.table.vars[*v as usize].level > outer);
        for (i, v) in gen_vars.iter().enumerate() {
            self.table.vars[*v as usize].link = Some(Type::gen(i as u32));
        }
        let scheme_preds: Vec<Pred> = preds
            .iter()
            .map(|(p, _)| Pred {
                class: p.class,
                ty: self.table.zonk(&p.ty),
            })
            .collect();
        let params: Vec<Sym> = if errored {
            Vec::new()
        } else {
            preds.iter().map(|(_, s)| s.clone()).collect()
        };
        self.groups[gid as usize] = params.clone();
        for (n, t) in &monos {
            let scheme = if errored {
                Scheme::mono(Type::error())
            } else {
                Scheme {
                    vars: vec![None; gen_vars.len()],
                    preds: scheme_preds.clone(),
                    ty: self.table.zonk(t),
                }
            };
            self.set_value(n, ValueInfo::Poly(scheme));
        }
        // The elaborated bindings.
        let mut out = Vec::new();
        for ((it, body), pat) in items.iter().zip(bodies).zip(pats) {
            match (it, body, pat) {
                (BindItem::Fun { name, span, .. }, Ok(clauses), _) => {
                    out.push(elab::Binding::Fun {
                        name: self.bind_name(top, name),
                        dicts: params.clone(),
                        clauses,
                        span: *span,
                    })
                }
                (BindItem::Pat { span, .. }, Err(rhs), Some(pat)) => out.push(elab::Binding::Pat {
                    pat,
                    rhs,
                    span: *span,
                }),
                _ => {}
            }
        }
        out
    }

    /// Checks something against a scheme (a signature): its variables
    /// become rigid, its context becomes given dictionaries (the returned
    /// parameters, with `extra` givens of the enclosing instance); what the
    /// body needs beyond them is an error.
    pub fn check_against_scheme<T>(
        &mut self,
        s: &Scheme,
        owner: Option<(Sym, Span)>,
        extra: &[Given],
        scoped: &[Sym],
        body: impl FnOnce(&mut Tc, &Type) -> T,
    ) -> (Vec<Sym>, T) {
        let diag_mark = self.diags.len();
        let outer = self.table.level;
        self.table.level += 1;
        let sks: Vec<Type> = s
            .vars
            .iter()
            .map(|v| {
                let n = v.clone().unwrap_or_else(|| Sym::from("a"));
                self.table.skolem(n, owner.clone())
            })
            .collect();
        let ty = subst_gen(&s.ty, &sks);
        let mut givens: Vec<Given> = extra.to_vec();
        let mut params = Vec::new();
        for p in &s.preds {
            let cname = self.env.class(p.class).name.name.clone();
            let param = self.fresh_name(&format!("d{cname}"));
            params.push(param.clone());
            let pt = subst_gen(&p.ty, &sks);
            self.add_given(&mut givens, p.class, pt, elab::Dict::Var(param));
        }
        let saved = std::mem::take(&mut self.wanted);
        let eq_start = self.deferred_eqs.len();
        let old_group = self.enter_group();
        // The scheme's variables named in `scoped` (ScopedTypeVariables)
        // stand for its rigid variables in the body's signatures.
        let scope_mark = self.locals.len();
        for (v, sk) in s.vars.iter().zip(&sks) {
            if let Some(v) = v.as_ref().filter(|v| scoped.contains(v)) {
                self.bind_type_variable(v, sk.clone());
            }
        }
        let r = body(self, &ty);
        self.locals.truncate(scope_mark);
        self.cur_group = old_group;
        self.table.level = outer;
        self.settle_deferred(eq_start, outer);
        let ws = std::mem::replace(&mut self.wanted, saved);
        let errored = self.diags.len() > diag_mark;
        let owner_name = owner.as_ref().map(|(n, _)| n.to_string());
        self.solve_with_givens(ws, &givens, outer, errored, owner_name.as_deref());
        (params, r)
    }

    /// Checks patterns and what they scope over (`body` does both). When a
    /// pattern matches an existential constructor this is a scope of its
    /// own, like a signature's: the hidden types are rigid variables one
    /// level in (so they cannot escape into the enclosing types), and the
    /// packed dictionaries are givens for what the body wants.
    pub fn pat_scope<T>(&mut self, pats: &[&ast::Pat], body: impl FnOnce(&mut Tc) -> T) -> T {
        if !pats.iter().any(|p| self.opens_existential(p)) {
            return body(self);
        }
        let diag_mark = self.diags.len();
        let outer = self.table.level;
        self.table.level += 1;
        let saved = std::mem::take(&mut self.wanted);
        let saved_givens = self.pat_givens.replace(Vec::new());
        let eq_start = self.deferred_eqs.len();
        let links = self.pat_links.len();
        let r = body(self);
        self.table.level = outer;
        self.settle_deferred(eq_start, outer);
        let ws = std::mem::replace(&mut self.wanted, saved);
        let givens = std::mem::replace(&mut self.pat_givens, saved_givens).unwrap_or_default();
        let errored = self.diags.len() > diag_mark;
        // Solved while a GADT match's refinements hold (`Show a` is `Show
        // Int` in the branch of `IntE`), then the refinements end.
        self.solve_with_givens(ws, &givens, outer, errored, None);
        for s in self.pat_links.split_off(links) {
            self.table.skolems[s as usize].link = None;
        }
        r
    }

    /// Whether the pattern matches an existential constructor somewhere.
    fn opens_existential(&self, p: &ast::Pat) -> bool {
        gph_syntax::stack::guard();
        use ast::Pat as P;
        let existential = |q: &QName| {
            self.env
                .datacons
                .get(&Tc::global_of(q))
                .is_some_and(|i| i.is_existential())
        };
        match p {
            P::Con(q, args, _) => existential(q) || args.iter().any(|a| self.opens_existential(a)),
            P::Tuple(ps, _) | P::List(ps, _) => ps.iter().any(|a| self.opens_existential(a)),
            P::As(_, p, _)
            | P::Lazy(p, _)
            | P::Bang(p, _)
            | P::Paren(p, _)
            | P::Typed(p, _, _)
            | P::View(_, p, _) => self.opens_existential(p),
            P::Record(q, fs, _, _) => {
                existential(q) || fs.iter().any(|(_, a)| self.opens_existential(a))
            }
            P::OpChain(items, _) => items.iter().any(|i| match i {
                ast::ChainItem::Operand(a) => self.opens_existential(a),
                _ => false,
            }),
            P::Var(_) | P::Wildcard(_) | P::Lit(..) | P::NegLit(..) => false,
        }
    }

    pub fn solve_with_givens(
        &mut self,
        ws: Vec<Wanted>,
        givens: &[Given],
        outer: u32,
        quiet: bool,
        owner: Option<&str>,
    ) {
        let (local, deferred) = self.simplify(ws, givens, outer, quiet);
        self.wanted.extend(deferred);
        self.solve_local(local, givens, outer, quiet, owner);
    }

    /// The clauses of a function against its (monomorphic or rigid) type.
    pub fn tc_clauses(&mut self, name: &Sym, clauses: &[ClauseRef], ty: &Type) -> Vec<Clause> {
        let Some(first) = clauses.first() else {
            return Vec::new();
        };
        let arity = first.args.len();
        let mut args = Vec::new();
        let mut t = ty.clone();
        for i in 0..arity {
            match self.as_fun(&t) {
                Some((a, r)) => {
                    args.push(a);
                    t = r;
                }
                None => {
                    let h = self.table.head(&t);
                    match h.ty() {
                        Ty::Var(_) => {
                            let (a, r) = (self.table.fresh(), self.table.fresh());
                            let f = self.fun(a.clone(), r.clone());
                            if self.expect(&f, &t, first.span, &Ctx::Equation(fun_name(name))) {
                                args.push(a);
                                t = r;
                            } else {
                                args.push(Type::error());
                                t = Type::error();
                            }
                        }
                        Ty::Error => {
                            args.push(Type::error());
                        }
                        _ => {
                            let ts = self.show_type(ty);
                            self.error(Diagnostic::error(
                                first.span,
                                format!(
                                    "the equation for `{}` has {}, but its type `{ts}` has {}",
                                    fun_name(name),
                                    count(arity, "argument"),
                                    if i == 0 {
                                        "none".to_string()
                                    } else {
                                        format!("only {i}")
                                    }
                                ),
                            ));
                            while args.len() < arity {
                                args.push(Type::error());
                            }
                            t = Type::error();
                            break;
                        }
                    }
                }
            }
        }
        let mut out = Vec::new();
        for c in clauses {
            if c.args.len() != arity {
                self.error(
                    Diagnostic::error(
                        c.span,
                        format!(
                            "the equations for `{}` have different numbers of arguments",
                            fun_name(name)
                        ),
                    )
                    .with_secondary(
                        first.span,
                        format!("this one has {}", count(arity, "argument")),
                    ),
                );
                continue;
            }
            let mark = self.locals.len();
            let arg_pats: Vec<&ast::Pat> = c.args.iter().collect();
            let (pats, rhs) = self.pat_scope(&arg_pats, |tc| {
                let mut binds = Vec::new();
                let pats = c
                    .args
                    .iter()
                    .zip(&args)
                    .map(|(p, at)| tc.check_pat(p, at, &mut binds))
                    .collect();
                tc.push_binds(binds);
                (pats, tc.check_rhs(c.rhs, &t))
            });
            self.locals.truncate(mark);
            out.push(Clause {
                args: pats,
                rhs,
                span: c.span,
            });
        }
        out
    }
}

use super::tc::Wanted;

/// Whether a declaration binds `name` (used for instance and class bodies).
pub fn decl_binds(d: &Decl, name: &str) -> bool {
    match d {
        Decl::FunClause { name: n, .. } => &*n.name == name,
        Decl::PatBind { pat, .. } => pat_is_var(pat, name),
        _ => false,
    }
}

/// The bound variables a type mentions.
pub fn gens_of(t: &Type, out: &mut Vec<u32>) {
    gph_syntax::stack::guard();
    match t.ty() {
        Ty::Gen(i) if !out.contains(i) => out.push(*i),
        Ty::App(f, a) => {
            gens_of(f, out);
            gens_of(a, out);
        }
        Ty::Syn(_, _, e) => gens_of(e, out),
        _ => {}
    }
}
