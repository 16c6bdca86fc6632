//! Checking one module: its type declarations, primitives, instance heads,
//! top-level bindings, class default methods and instance bodies, `main`,
//! and the constraints left over at the end (defaulted).

use super::bind::{decl_binds, ClauseRef};
use super::elab::{self, Clause, Dict, Expr, Name, Rhs, RhsBody};
use super::env::*;
use super::errors::fun_name;
use super::kinds::pat_is_var;
use super::pretty::{Namer, Printer};
use super::tc::{Given, Tc, PRIM};
use super::ty::*;
use gph_syntax::ast::{self, Decl};
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, Span};
use std::collections::HashMap;

/// A name usable inside a generated global (`$fShow[]` is fine, but keep
/// the names readable in dumps).
fn dfun_part(name: &str) -> String {
    match name {
        "[]" => "List".into(),
        "()" => "Unit".into(),
        "->" => "Fun".into(),
        n if n.starts_with("(,") => format!("Tuple{}", n.len() - 1),
        n => n.to_string(),
    }
}

impl Tc {
    pub fn module_name(m: &ast::Module) -> Sym {
        m.name
            .as_ref()
            .map_or_else(|| Sym::from("Main"), |i| i.name.clone())
    }

    /// Checks a module and returns its elaboration.
    pub fn check_module(&mut self, m: &ast::Module) -> elab::Module {
        self.module = Tc::module_name(m);
        let has = |name: &str| m.extensions.iter().any(|e| &**e == name);
        self.scoped_type_variables = has("ScopedTypeVariables");
        self.flexible_instances = has("FlexibleInstances") || has("TypeSynonymInstances");
        self.undecidable_instances = has("UndecidableInstances");
        self.no_monomorphism_restriction = has("NoMonomorphismRestriction");
        self.overloaded_strings = has("OverloadedStrings");
        self.table.level = 1;
        self.declare_types(&m.decls);
        self.defaults = None;
        for d in &m.decls {
            if let Decl::Default { types, .. } = d {
                let mut ds = Vec::new();
                for t in types {
                    let mut scope = Vec::new();
                    if self.expect_star(t, &mut scope, false) {
                        let ty = self.to_type(t, &HashMap::new());
                        ds.push(ty);
                    }
                }
                self.defaults = Some(ds);
            }
        }
        let mut foreigns = Vec::new();
        for d in &m.decls {
            if let Decl::Foreign { prim, name, ty, .. } = d {
                if let Some(s) = self.convert_sig(ty) {
                    let g = Global {
                        module: self.module.clone(),
                        name: name.name.clone(),
                    };
                    let arity = self.arity_of(&s.ty);
                    self.env.values.insert(g.clone(), ValueInfo::Poly(s));
                    foreigns.push(elab::ForeignDef {
                        name: g,
                        prim: prim.clone(),
                        arity,
                    });
                }
            }
        }
        let mut insts = Vec::new();
        for d in &m.decls {
            if let Decl::Instance(inst) = d {
                if let Some(id) = self.declare_instance(inst) {
                    insts.push((id, inst));
                }
            }
        }
        let mut binds = self.infer_top_binds(&m.decls);
        let mut classes = Vec::new();
        for d in &m.decls {
            if let Decl::Class(cd) = d {
                let g = Global {
                    module: self.module.clone(),
                    name: cd.name.name.clone(),
                };
                if let Some(c) = self.env.lookup_class(&g) {
                    binds.extend(self.check_class_defaults(c, cd));
                    let info = self.env.class(c);
                    classes.push(elab::ClassDef {
                        name: info.name.clone(),
                        supers: info
                            .supers
                            .iter()
                            .map(|s| self.env.class(*s).name.clone())
                            .collect(),
                        methods: info.methods.clone(),
                        defaults: info.defaults.clone(),
                    });
                }
            }
        }
        let mut instances = Vec::new();
        for (id, inst) in insts {
            instances.push(self.check_instance(id, inst));
        }
        self.settle_deferred(0, 0);
        if &*self.module == "Main" {
            self.check_main(m);
        }
        // Constraints on monomorphic variables that nothing resolved.
        let ws = std::mem::take(&mut self.wanted);
        self.default_wanteds(ws, &[], 0, false);
        let mut datas = Vec::new();
        for d in &m.decls {
            if let Decl::Data(dd) = d {
                let g = |n: &Sym| Global {
                    module: self.module.clone(),
                    name: n.clone(),
                };
                datas.push(elab::DataDef {
                    name: g(&dd.name.name),
                    params: dd.params.len(),
                    newtype: dd.newtype,
                    cons: dd
                        .constrs
                        .iter()
                        .enumerate()
                        .map(|(tag, c)| {
                            // An existential constructor's dictionaries
                            // come first, lazy.
                            let dicts = c.context.len();
                            elab::ConDef {
                                name: g(&c.name.name),
                                tag,
                                arity: dicts + c.fields.len(),
                                strict: std::iter::repeat_n(false, dicts)
                                    .chain(c.fields.iter().map(|f| f.strict))
                                    .collect(),
                                refines: !c.eqs.is_empty(),
                            }
                        })
                        .collect(),
                });
            }
        }
        let mut out = elab::Module {
            name: self.module.clone(),
            datas,
            classes,
            instances,
            foreigns,
            binds,
        };
        self.finish_module(&mut out);
        out
    }

    /// A variable of an instance head that a functional dependency's
    /// right-hand side uses and its left-hand side does not (GHC's
    /// coverage condition), unless UndecidableInstances is on.
    fn coverage_failure(&mut self, c: ClassId, new: &Scheme) -> Option<Sym> {
        if self.undecidable_instances {
            return None;
        }
        let fundeps = self.env.class(c).fundeps.clone();
        let args = self.class_args(c, &new.ty);
        for (from, to) in &fundeps {
            let mut left = Vec::new();
            for &i in from {
                super::bind::gens_of(&args[i], &mut left);
            }
            for &j in to {
                let mut right = Vec::new();
                super::bind::gens_of(&args[j], &mut right);
                if let Some(v) = right.iter().find(|v| !left.contains(v)) {
                    return Some(
                        new.vars
                            .get(*v as usize)
                            .cloned()
                            .flatten()
                            .unwrap_or_else(|| Sym::from("a")),
                    );
                }
            }
        }
        None
    }

    /// An instance of the class already declared that a functional
    /// dependency rules out beside the head `new`: the arguments the
    /// dependency goes from unify, and those it goes to then differ.
    fn fundep_conflict(&mut self, c: ClassId, new: &Scheme) -> Option<usize> {
        let fundeps = self.env.class(c).fundeps.clone();
        if fundeps.is_empty() {
            return None;
        }
        let fresh =
            |tc: &mut Tc, n: usize| -> Vec<Type> { (0..n).map(|_| tc.table.fresh()).collect() };
        for i in 0..self.env.instances.len() {
            if self.env.instances[i].class != c {
                continue;
            }
            let other = self.env.instances[i].clone();
            for (from, to) in &fundeps {
                // Fresh variables for both heads' own: unification here
                // binds only them.
                let v1 = fresh(self, new.vars.len());
                let v2 = fresh(self, other.vars.len());
                let a1 = self.class_args(c, &subst_gen(&new.ty, &v1));
                let a2 = self.class_args(c, &subst_gen(&other.head, &v2));
                let meet = from
                    .iter()
                    .all(|&k| self.table.unify(&a1[k], &a2[k]).is_ok());
                if meet && !to.iter().all(|&k| self.table.equal(&a1[k], &a2[k])) {
                    return Some(i);
                }
            }
        }
        None
    }

    fn declare_instance(&mut self, inst: &ast::InstanceDecl) -> Option<usize> {
        let cg = Tc::global_of(&inst.class);
        let Some(c) = self.env.lookup_class(&cg) else {
            self.error(Diagnostic::error(
                inst.class.span,
                format!("class `{}` is not in scope", inst.class.name),
            ));
            return None;
        };
        // A class of several parameters: each argument as a head.
        // A newtype-derived instance takes the class's other arguments as
        // written (`deriving (MonadWriter [String])`), as GHC's does.
        let flexible = self.flexible_instances || inst.newtype_derived;
        let head_ok = ast::constraint_args(&inst.ty).into_iter().all(|t| {
            if flexible {
                flexible_head_ok(t)
            } else {
                instance_head_ok(t, self)
            }
        });
        if !head_ok {
            let help = if self.flexible_instances {
                "an instance head must be a type constructor applied to types, as in \
                 `instance Show (Tree Int)`"
            } else {
                "an instance head must be a type constructor (not a synonym) applied to distinct type variables, \
                 as in `instance Show (Tree a)`; add {-# LANGUAGE FlexibleInstances #-} for \
                 heads like `Tree Int` or `String`"
            };
            self.error(
                Diagnostic::error(
                    inst.ty.span(),
                    format!(
                        "illegal instance declaration for `{} {}`",
                        inst.class.name,
                        ast::constraint_args(&inst.ty)
                            .into_iter()
                            .map(|t| super::kinds::show_ast_type_prec(t, 2))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                )
                .with_help(help),
            );
            // A head FlexibleInstances would take is kept, so that its uses
            // are not reported too.
            if !ast::constraint_args(&inst.ty)
                .into_iter()
                .all(flexible_head_ok)
            {
                return None;
            }
        }
        let multi = self.env.class_arity(c) > 1 || ast::constraint_args(&inst.ty).len() > 1;
        if multi {
            // Each argument against its parameter's kind.
            let head = ast::Pred {
                class: inst.class.clone(),
                ty: inst.ty.clone(),
                span: inst.ty.span(),
            };
            self.check_pred_kind(&head, &mut Vec::new(), true)?;
        }
        let (scheme, k) = self.convert_open(&inst.ty, &inst.context)?;
        let ck = self.env.class(c).kind.clone();
        if !multi && k != ck {
            self.error(Diagnostic::error(
                inst.ty.span(),
                format!(
                    "an instance of `{}` needs a type of kind `{ck}`, but `{}` has kind `{k}`",
                    inst.class.name,
                    super::kinds::show_ast_type(&inst.ty)
                ),
            ));
            return None;
        }
        let (h, _) = self.table.spine(&scheme.ty);
        let key = match h.ty() {
            Ty::Con(tc) => Some(*tc),
            Ty::Gen(_) => None,
            _ => return None,
        };
        let head_s = {
            let mut namer = Namer::new();
            let mut p = Printer {
                env: &self.env,
                table: &mut self.table,
                namer: &mut namer,
            };
            let shown = p.scheme(&Scheme {
                vars: scheme.vars.clone(),
                preds: Vec::new(),
                ty: scheme.ty.clone(),
            });
            // A class of several parameters: its arguments, not `(#2) a b`.
            match super::pretty::multi_param_args(&shown) {
                Some(args) if multi => args.to_string(),
                _ => shown,
            }
        };
        let class_name = self.env.class(c).name.name.clone();
        // Two heads that are the same up to their variables' names are
        // duplicates; an instance for every type overlaps all others.
        // Under one constructor, different heads may overlap: the most
        // specific one that matches is used.
        let same_key = self
            .env
            .inst_index
            .get(&(c, key))
            .cloned()
            .unwrap_or_default();
        let n_vars = scheme.vars.len();
        let dup = same_key.into_iter().find(|&i| {
            let other = self.env.instances[i].clone();
            let mut s1 = vec![None; other.vars.len()];
            let mut s2 = vec![None; n_vars];
            self.match_ty(&other.head, &scheme.ty, &mut s1)
                && self.match_ty(&scheme.ty, &other.head, &mut s2)
        });
        let overlap = match key {
            None => self.env.instances.iter().position(|o| o.class == c),
            Some(_) => self
                .env
                .inst_index
                .get(&(c, None))
                .and_then(|v| v.first().copied()),
        };
        let clash = dup.or(overlap);
        if let Some(i) = clash {
            let first = self.env.instances[i].span;
            let what = if dup.is_some() {
                "duplicate"
            } else {
                "overlapping"
            };
            // As GHC: at the first of two instances in this module, at this
            // one when the other is imported.
            let here = self.env.instances[i].dfun.module == self.module && first != Span::default();
            let (at, other) = if here {
                (first, inst.span)
            } else {
                (inst.span, first)
            };
            let mut d = Diagnostic::error(
                at,
                format!("{what} instance declarations for `{class_name} {head_s}`"),
            );
            if other != Span::default() {
                d = d.with_secondary(other, "the other instance");
            }
            self.error(d);
            return None;
        }
        if let Some(v) = self.coverage_failure(c, &scheme) {
            self.error(
                Diagnostic::error(
                    inst.ty.span(),
                    format!(
                        "illegal instance declaration for `{class_name} {head_s}`: the coverage \
                         condition of a functional dependency fails"
                    ),
                )
                .with_label(format!(
                    "`{v}` is not determined by the dependency's left-hand side"
                ))
                .with_help(
                    "the types right of a dependency's `->` may only use variables of those on \
                     its left (UndecidableInstances lifts this)",
                ),
            );
            // Kept, so that its uses are not reported too.
        }
        if let Some(i) = self.fundep_conflict(c, &scheme) {
            let other = self.env.instances[i].span;
            let mut d = Diagnostic::error(
                inst.span,
                format!(
                    "functional dependencies conflict between instance declarations for `{class_name}`"
                ),
            )
            .with_help(
                "the class's dependencies say the types on the left of `->` fix those on the \
                 right, but two instances give them different ones",
            );
            if other != Span::default() {
                d = d.with_secondary(other, "the other instance");
            }
            self.error(d);
            return None;
        }
        let base = if multi {
            // `$fConvertIntString`: the head constructor of each argument.
            let args = self.class_args(c, &scheme.ty);
            args.iter()
                .map(|a| match self.table.spine(a).0.ty() {
                    Ty::Con(tc) => dfun_part(&self.env.tycon(*tc).name.name),
                    _ => "Any".to_string(),
                })
                .collect::<String>()
        } else {
            match key {
                Some(tc) => dfun_part(&self.env.tycon(tc).name.name),
                None => "Any".to_string(),
            }
        };
        let mut name = format!("$f{class_name}{base}");
        let mut n = 1;
        while self.dfun_names.contains(&Global::new(&self.module, &name)) {
            n += 1;
            name = format!("$f{class_name}{base}{n}");
        }
        let info = InstInfo {
            class: c,
            vars: scheme
                .vars
                .iter()
                .map(|v| v.clone().unwrap_or_else(|| Sym::from("a")))
                .collect(),
            head: scheme.ty,
            context: scheme.preds,
            dfun: Global {
                module: self.module.clone(),
                name: Sym::from(name),
            },
            span: inst.span,
        };
        let id = self.env.instances.len();
        self.dfun_names.insert(info.dfun.clone());
        self.env.instances.push(info);
        self.env.inst_index.entry((c, key)).or_default().push(id);
        Some(id)
    }

    /// The clauses of a class or instance body that define `name`.
    fn clauses_for<'a>(decls: &'a [Decl], name: &str) -> Vec<ClauseRef<'a>> {
        decls
            .iter()
            .filter(|d| decl_binds(d, name))
            .filter_map(|d| match d {
                Decl::FunClause {
                    args, rhs, span, ..
                } => Some(ClauseRef {
                    args,
                    rhs,
                    span: *span,
                }),
                Decl::PatBind { rhs, span, .. } => Some(ClauseRef {
                    args: &[],
                    rhs,
                    span: *span,
                }),
                _ => None,
            })
            .collect()
    }

    fn check_class_defaults(&mut self, c: ClassId, cd: &ast::ClassDecl) -> Vec<elab::Binding> {
        let info = self.env.class(c).clone();
        let mut out = Vec::new();
        for (i, m) in info.methods.iter().enumerate() {
            let Some(dm) = info.defaults.get(i).cloned().flatten() else {
                continue;
            };
            let Some(ValueInfo::Poly(s)) = self.env.values.get(m).cloned() else {
                continue;
            };
            let clauses = Tc::clauses_for(&cd.decls, &m.name);
            let span = clauses.first().map_or(cd.span, |c| c.span);
            let owner = Some((m.name.clone(), span));
            // ScopedTypeVariables: the class variable (the scheme's first)
            // scopes over a default method's body.
            let scoped: Vec<Sym> = match s.vars.first() {
                Some(Some(v)) if self.scoped_type_variables => vec![v.clone()],
                _ => Vec::new(),
            };
            let (dicts, cls) = self.check_against_scheme(&s, owner, &[], &scoped, |tc, ty| {
                tc.tc_clauses(&m.name, &clauses, ty)
            });
            out.push(elab::Binding::Fun {
                name: Name::Global(dm),
                dicts,
                clauses: cls,
                span,
            });
        }
        for d in &cd.decls {
            let name = match d {
                Decl::FunClause { name, .. } => Some((&name.name, name.span)),
                Decl::PatBind { pat, span, .. } => {
                    let mut vs = Vec::new();
                    super::bind::pat_vars(pat, &mut vs);
                    if vs.len() == 1 && pat_is_var(pat, &vs[0]) {
                        None
                    } else {
                        self.error(Diagnostic::error(
                            *span,
                            "a class body may only define its methods",
                        ));
                        None
                    }
                }
                _ => None,
            };
            if let Some((n, sp)) = name {
                if !info.methods.iter().any(|m| m.name == *n) {
                    self.error(Diagnostic::error(
                        sp,
                        format!(
                            "`{}` is not a method of class `{}`",
                            fun_name(n),
                            info.name.name
                        ),
                    ));
                }
            }
        }
        out
    }

    fn check_instance(&mut self, id: usize, inst: &ast::InstanceDecl) -> elab::InstanceDef {
        let info = self.env.instances[id].clone();
        let class = self.env.class(info.class).clone();
        if inst.newtype_derived {
            // The context's one dictionary is this one (the derived
            // instance's context is the class at the underlying type).
            let d = self.fresh_name("dnewtype");
            return elab::InstanceDef {
                dfun: info.dfun,
                class: class.name,
                dicts: vec![d.clone()],
                this: d,
                supers: Vec::new(),
                methods: Vec::new(),
                alias: true,
            };
        }
        let saved = std::mem::take(&mut self.wanted);
        let eq_start = self.deferred_eqs.len();
        let diag_mark = self.diags.len();
        let outer = self.table.level;
        self.table.level += 1;
        let sks: Vec<Type> = info
            .vars
            .iter()
            .map(|v| {
                self.table
                    .skolem(v.clone(), Some((Sym::from("the instance"), inst.span)))
            })
            .collect();
        let head = subst_gen(&info.head, &sks);
        // ScopedTypeVariables: the head's variables scope over the methods.
        let scope_mark = self.locals.len();
        if self.scoped_type_variables {
            for (v, sk) in info.vars.iter().zip(&sks) {
                self.bind_type_variable(v, sk.clone());
            }
        }
        let mut givens: Vec<Given> = Vec::new();
        let mut dicts = Vec::new();
        for p in &info.context {
            let cname = self.env.class(p.class).name.name.clone();
            let param = self.fresh_name(&format!("d{cname}"));
            dicts.push(param.clone());
            self.add_given(
                &mut givens,
                p.class,
                subst_gen(&p.ty, &sks),
                Dict::Var(param),
            );
        }
        let this = self.fresh_name("this");
        // Superclass dictionaries, from the context (not from `this`).
        let mut supers = Vec::new();
        let head_args = self.class_args(info.class, &head);
        for (s, st) in class.supers.iter().zip(&class.super_tys) {
            let what = "the superclasses of an instance declaration".to_string();
            let h = self.want(*s, subst_gen(st, &head_args), inst.ty.span(), what);
            supers.push(Dict::Hole(h));
        }
        let ws = std::mem::take(&mut self.wanted);
        self.solve_with_givens(ws, &givens, outer, false, Some("the instance declaration"));
        // Methods.
        let mut method_givens = givens.clone();
        method_givens.push(Given {
            class: info.class,
            ty: head.clone(),
            dict: Dict::Var(this.clone()),
        });
        let mut methods = Vec::new();
        for (i, m) in class.methods.iter().enumerate() {
            let Some(ValueInfo::Poly(s)) = self.env.values.get(m).cloned() else {
                continue;
            };
            // The method's type at this instance: the class variable is the
            // head; the method's own variables and constraints remain.
            let n = s.vars.len();
            let p = head_args.len();
            let args: Vec<Type> = head_args
                .iter()
                .cloned()
                .chain((p..n).map(|k| Type::gen((k - p) as u32)))
                .collect();
            let ms = Scheme {
                vars: s.vars.iter().skip(p).cloned().collect(),
                preds: s
                    .preds
                    .iter()
                    .skip(1)
                    .map(|p| Pred {
                        class: p.class,
                        ty: subst_gen(&p.ty, &args),
                    })
                    .collect(),
                ty: subst_gen(&s.ty, &args),
            };
            let clauses = Tc::clauses_for(&inst.decls, &m.name);
            let span = clauses.first().map_or(inst.span, |c| c.span);
            if !clauses.is_empty() {
                let owner = Some((m.name.clone(), span));
                let (mdicts, cls) =
                    self.check_against_scheme(&ms, owner, &method_givens, &[], |tc, ty| {
                        tc.tc_clauses(&m.name, &clauses, ty)
                    });
                methods.push(elab::Binding::Fun {
                    name: Name::Global(m.clone()),
                    dicts: mdicts,
                    clauses: cls,
                    span,
                });
                continue;
            }
            let extra: Vec<Sym> = ms
                .preds
                .iter()
                .map(|p| {
                    let cname = self.env.class(p.class).name.name.clone();
                    self.fresh_name(&format!("d{cname}"))
                })
                .collect();
            let body = match class.defaults.get(i).cloned().flatten() {
                Some(dm) => {
                    let mut e = Expr::app(
                        Expr::global(dm, inst.span),
                        Expr::Dict(Dict::Var(this.clone())),
                        inst.span,
                    );
                    for x in &extra {
                        e = Expr::app(e, Expr::Dict(Dict::Var(x.clone())), inst.span);
                    }
                    e
                }
                None => Expr::NoMethod(m.clone(), inst.span),
            };
            methods.push(elab::Binding::Fun {
                name: Name::Global(m.clone()),
                dicts: extra,
                clauses: vec![Clause {
                    args: Vec::new(),
                    rhs: Rhs {
                        body: RhsBody::Plain(body),
                        wheres: Vec::new(),
                        span: inst.span,
                    },
                    span: inst.span,
                }],
                span: inst.span,
            });
        }
        for d in &inst.decls {
            // The names an instance body defines or (InstanceSigs, which the
            // parser asks the pragma for) gives signatures to: each must be
            // a method. A signature changes nothing else: the clauses are
            // checked against the method's type at the instance.
            let named: Vec<(Sym, Span)> = match d {
                Decl::FunClause { name, .. } => vec![(name.name.clone(), name.span)],
                Decl::PatBind { pat, span, .. } => {
                    let mut vs = Vec::new();
                    super::bind::pat_vars(pat, &mut vs);
                    vs.into_iter()
                        .next()
                        .map(|v| (v, *span))
                        .into_iter()
                        .collect()
                }
                Decl::Sig { names, .. } => names.iter().map(|n| (n.name.clone(), n.span)).collect(),
                _ => Vec::new(),
            };
            for (n, sp) in named {
                if !class.methods.iter().any(|m| m.name == n) {
                    self.error(Diagnostic::error(
                        sp,
                        format!(
                            "`{}` is not a (visible) method of class `{}`",
                            fun_name(&n),
                            class.name.name
                        ),
                    ));
                }
            }
        }
        self.locals.truncate(scope_mark);
        self.table.level = outer;
        self.settle_deferred(eq_start, outer);
        let ws = std::mem::take(&mut self.wanted);
        let quiet = self.diags.len() > diag_mark;
        self.solve_with_givens(
            ws,
            &method_givens,
            outer,
            quiet,
            Some("the instance declaration"),
        );
        let left = std::mem::replace(&mut self.wanted, saved);
        self.wanted.extend(left);
        elab::InstanceDef {
            dfun: info.dfun,
            class: class.name,
            dicts,
            this,
            supers,
            methods,
            alias: false,
        }
    }

    fn check_main(&mut self, m: &ast::Module) {
        let g = Global {
            module: self.module.clone(),
            name: Sym::from("main"),
        };
        let span = m.decls.iter().find_map(|d| match d {
            Decl::FunClause { name, .. } if &*name.name == "main" => Some(name.span),
            Decl::PatBind { pat, span, .. } if pat_is_var(pat, "main") => Some(*span),
            _ => None,
        });
        let Some(span) = span else {
            // The renamer reports a missing `main`.
            return;
        };
        let Some(ValueInfo::Poly(s)) = self.env.values.get(&g).cloned() else {
            return;
        };
        if matches!(s.ty.ty(), Ty::Error) {
            return;
        }
        let Some(io) = self.lib_tycon(PRIM, "IO") else {
            return;
        };
        let (t, _) = self.instantiate(&s);
        let a = self.table.fresh();
        let want = Type::app(Type::con(io), a);
        if self.table.unify(&want, &t).is_err() {
            let found = self.show_type(&t);
            self.error(
                Diagnostic::error(span, format!("expected `IO t`, found `{found}`"))
                    .with_label("`main` must be an `IO` action")
                    .with_help("the program's `main` must have type `IO t` for some type `t`, e.g. `main :: IO ()`"),
            );
        }
    }

    /// The types of the module's top-level bindings in source order, as
    /// `name :: type`.
    pub fn binding_types(&mut self, m: &ast::Module) -> Vec<(String, String)> {
        let module = Tc::module_name(m);
        let mut seen: std::collections::HashSet<Sym> = std::collections::HashSet::new();
        let mut out = Vec::new();
        for d in &m.decls {
            let names: Vec<Sym> = match d {
                Decl::FunClause { name, .. } => vec![name.name.clone()],
                Decl::PatBind { pat, .. } => {
                    let mut vs = Vec::new();
                    super::bind::pat_vars(pat, &mut vs);
                    vs
                }
                _ => Vec::new(),
            };
            for n in names {
                if !seen.insert(n.clone()) {
                    continue;
                }
                let g = Global {
                    module: module.clone(),
                    name: n.clone(),
                };
                if let Some(ValueInfo::Poly(s)) = self.env.values.get(&g).cloned() {
                    let mut namer = Namer::new();
                    let mut p = Printer {
                        env: &self.env,
                        table: &mut self.table,
                        namer: &mut namer,
                    };
                    out.push((fun_name(&n), p.scheme(&s)));
                }
            }
        }
        out
    }
}

/// Haskell 2010's form of an instance head: `T a1 ... an` with distinct
/// variables and `T` not a synonym (also `[a]`, `(a, b)`, `a -> b`). A bare
/// variable is accepted too, for Eden's `instance Trans a`.
/// FlexibleInstances: any type (a type variable: an instance for every
/// type).
fn flexible_head_ok(t: &ast::Type) -> bool {
    !matches!(t, ast::Type::Bang(..))
}

fn instance_head_ok(t: &ast::Type, tc: &Tc) -> bool {
    fn distinct(vs: &[&ast::Type]) -> bool {
        let mut seen: Vec<&Sym> = Vec::new();
        for v in vs {
            match v {
                ast::Type::Var(i) if !seen.contains(&&i.name) => seen.push(&i.name),
                _ => return false,
            }
        }
        true
    }
    match t {
        ast::Type::Var(_) | ast::Type::Con(_) => match t {
            ast::Type::Con(q) => !is_synonym(q, tc),
            _ => true,
        },
        ast::Type::List(a, _) => distinct(&[a]),
        ast::Type::Tuple(ts, _) => distinct(&ts.iter().collect::<Vec<_>>()),
        ast::Type::Fun(a, b, _) => distinct(&[a, b]),
        ast::Type::App(..) => {
            let mut args = Vec::new();
            let mut h = t;
            while let ast::Type::App(f, a, _) = h {
                args.push(&**a);
                h = f;
            }
            matches!(h, ast::Type::Con(q) if !is_synonym(q, tc)) && distinct(&args)
        }
        ast::Type::Bang(..) | ast::Type::Forall(_) => false,
    }
}

fn is_synonym(q: &ast::QName, tc: &Tc) -> bool {
    tc.env
        .lookup_tycon(&Tc::global_of(q))
        .is_some_and(|c| matches!(tc.env.tycon(c).def, TyConDef::Synonym { .. }))
}
