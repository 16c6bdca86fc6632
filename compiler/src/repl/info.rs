//! The REPL's `:info NAME` and `:kind TYPE`, printed as GHCi prints them:
//! a value with its type, a constructor or method with the declaration it
//! belongs to, a type or class with its kind, its declaration and its
//! instances; where each is defined (`-- Defined at FILE:L:C` in the
//! user's file, `-- Defined in ‘Module’` in the library) and an
//! operator's fixity.

use crate::types::env::{Env, TyConDef};
use crate::types::pretty::{Namer, Printer};
use crate::types::ty::{Global, Scheme, Ty, Type, TypeTable};
use crate::{front_end, types, Options, Outcome};
use gph_syntax::ast::Assoc;
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, SourceFile, SourceMap, Span};

/// `:info NAME` in the scope of `file`'s main module.
pub fn info(file: &SourceFile, name: &str, opts: &Options) -> Outcome {
    let opts = *opts;
    checked(file, &opts, |p, env, sources| {
        let (values, tys) = p.main_scope.resolve(name);
        let d = Describe::new(p, env, sources, &opts);
        let mut out = String::new();
        for (m, n) in values.iter().chain(tys.iter()) {
            let is_type =
                tys.contains(&(m.clone(), n.clone())) && !values.contains(&(m.clone(), n.clone()));
            let g = Global {
                module: m.clone(),
                name: n.clone(),
            };
            out.push_str(&if is_type {
                d.type_or_class(&g)
            } else {
                d.value(&g)
            });
            if let Some(f) = p.main_scope.fixity(&(m.clone(), n.clone())) {
                let assoc = match f.assoc {
                    Assoc::Left => "infixl",
                    Assoc::Right => "infixr",
                    Assoc::None => "infix",
                };
                let op = if is_operator(n) {
                    n.to_string()
                } else {
                    format!("`{n}`")
                };
                out.push_str(&format!("{assoc} {} {op}\n", f.prec));
            }
        }
        if out.is_empty() {
            Err(format!("`{name}` is not in scope"))
        } else {
            Ok(out)
        }
    })
}

/// The declared type of the value `name` in the scope of `file`'s main
/// module, with the type variables its signature names (GHCi's `:type
/// length` is `Foldable t => t a -> Int`), or None when `name` is not one
/// value there.
pub fn declared_type(file: &SourceFile, name: &str, opts: &Options) -> Option<String> {
    let opts = *opts;
    checked(file, &opts, |p, env, sources| {
        let (values, _) = p.main_scope.resolve(name);
        let [(m, n)] = values.as_slice() else {
            return Err(format!("`{name}` is not one value"));
        };
        let g = Global {
            module: m.clone(),
            name: n.clone(),
        };
        let d = Describe::new(p, env, sources, &opts);
        match env.values.get(&g) {
            Some(types::env::ValueInfo::Poly(s)) => Ok(d.scheme(s)),
            _ => Err(format!("`{name}` has no type")),
        }
    })
    .output
}

/// The kind of the main module's type synonym `synonym` (the REPL
/// declares `type Gph'kind = TYPE` for `:kind TYPE`).
pub fn kind(file: &SourceFile, synonym: &str, opts: &Options) -> Outcome {
    checked(file, opts, |p, env, _| {
        let g = Global {
            module: p.main.clone(),
            name: Sym::from(synonym),
        };
        env.lookup_tycon(&g)
            .map(|t| env.tycon(t).kind.to_string())
            .ok_or_else(|| format!("no type `{synonym}`"))
    })
}

/// The kind of the class `name` in the scope of `file`'s main module
/// (`:kind Functor`), or None when it names no class there.
pub fn class_kind_of(file: &SourceFile, name: &str, opts: &Options) -> Option<String> {
    checked(file, opts, |p, env, _| {
        let (_, tys) = p.main_scope.resolve(name);
        tys.iter()
            .find_map(|(m, n)| {
                let g = Global {
                    module: m.clone(),
                    name: n.clone(),
                };
                env.lookup_class(&g).map(|c| class_kind(env.class(c)))
            })
            .ok_or_else(|| format!("`{name}` is not a class"))
    })
    .output
}

/// Runs the front end and the type checker, then `f` on what they know.
fn checked(
    file: &SourceFile,
    opts: &Options,
    f: impl FnOnce(&crate::front::rename::Program, &Env, &SourceMap) -> Result<String, String>,
) -> Outcome {
    let (program, sources, mut diagnostics) = front_end(file);
    let Some(p) = program.filter(|_| !diagnostics.iter().any(Diagnostic::is_error)) else {
        return Outcome {
            sources,
            diagnostics,
            output: None,
        };
    };
    let typed = types::typecheck(&p.modules, opts.interactive_from);
    diagnostics.extend(typed.diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Outcome {
            sources,
            diagnostics,
            output: None,
        };
    }
    let output = match f(&p, &typed.env, &sources) {
        Ok(s) => Some(s),
        Err(e) => {
            diagnostics.push(Diagnostic::error(Span::default(), e));
            None
        }
    };
    Outcome {
        sources,
        diagnostics,
        output,
    }
}

struct Describe<'a> {
    env: &'a Env,
    sources: &'a SourceMap,
    main: &'a Sym,
    /// Where the REPL's own text starts (its definitions are "at
    /// <interactive>").
    interactive_from: Option<u32>,
    /// The main module, for where its values are defined.
    module: Option<&'a gph_syntax::ast::Module>,
    /// What the main module can name: as GHCi, a class's instances for
    /// types that are not in scope (the library's own) are not listed.
    scope: &'a crate::front::rename::Scope,
}

impl<'a> Describe<'a> {
    /// What `:info` and `:type` describe with: the checked program's main
    /// module and its scope.
    fn new(
        p: &'a crate::front::rename::Program,
        env: &'a Env,
        sources: &'a SourceMap,
        opts: &Options,
    ) -> Describe<'a> {
        Describe {
            env,
            sources,
            main: &p.main,
            interactive_from: opts.interactive_from,
            module: p.modules.last(),
            scope: &p.main_scope,
        }
    }
    fn scheme(&self, s: &Scheme) -> String {
        let mut table = TypeTable::default();
        let mut namer = Namer::new();
        let mut p = Printer {
            env: self.env,
            table: &mut table,
            namer: &mut namer,
        };
        p.scheme(s)
    }

    /// `\t-- Defined at FILE:L:C` or `\t-- Defined in ‘Module’`.
    fn defined(&self, g: &Global, span: Option<Span>) -> String {
        if g.is_builtin() {
            return "\t-- Built in\n".into();
        }
        let span = span.or_else(|| self.value_span(g));
        match (span, &g.module == self.main) {
            (Some(sp), true) if self.interactive_from.is_some_and(|f| sp.start >= f) => {
                "\t-- Defined at <interactive>\n".into()
            }
            (Some(sp), true) => match self.sources.file_of(sp) {
                Some(f) => format!("\t-- Defined at {}\n", f.locate(sp)),
                None => format!("\t-- Defined in ‘{}’\n", g.module),
            },
            _ => format!("\t-- Defined in ‘{}’\n", g.module),
        }
    }

    /// Where the main module defines the value `g` (its first clause).
    fn value_span(&self, g: &Global) -> Option<Span> {
        use gph_syntax::ast::{Decl, Pat};
        if &g.module != self.main {
            return None;
        }
        self.module?.decls.iter().find_map(|d| match d {
            Decl::FunClause { name, span, .. } if name.name == g.name => Some(*span),
            Decl::PatBind {
                pat: Pat::Var(v),
                span,
                ..
            } if v.name == g.name => Some(*span),
            _ => None,
        })
    }

    fn value(&self, g: &Global) -> String {
        let env = self.env;
        if let Some(dc) = env.datacons.get(g) {
            return self.tycon_decl(dc.tycon.0 as usize, false);
        }
        if let Some(&(c, _)) = env.methods.get(g) {
            return self.class_decl(c.0 as usize, false);
        }
        let ty = match env.values.get(g) {
            Some(types::env::ValueInfo::Poly(s)) => self.scheme(s),
            _ => "?".into(),
        };
        format!("{} :: {ty}{}", shown(&g.name), self.defined(g, None))
    }

    fn type_or_class(&self, g: &Global) -> String {
        if let Some(c) = self.env.lookup_class(g) {
            return self.class_decl(c.0 as usize, true);
        }
        match self.env.lookup_tycon(g) {
            Some(t) => self.tycon_decl(t.0 as usize, true),
            None => format!("{}{}", g.name, self.defined(g, None)),
        }
    }

    /// `type T :: KIND`, then `data T a = C1 .. | C2 ..` (or the synonym),
    /// where it is defined, and (`instances`) its instances.
    fn tycon_decl(&self, t: usize, instances: bool) -> String {
        let env = self.env;
        let info = &env.tycons[t];
        let name = shown(&info.name.name);
        let mut out = format!("type {name} :: {}\n", info.kind);
        match &info.def {
            TyConDef::Data { newtype, cons } => {
                let mut head = std::iter::once(name.clone())
                    .chain((0..info.arity).map(var_name))
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut alts = Vec::new();
                for c in cons {
                    let Some(dc) = env.datacons.get(c) else {
                        continue;
                    };
                    let printed = self.scheme(&dc.scheme);
                    // An existential constructor: `forall b. Show b => C b`.
                    let mut alt = String::new();
                    let nparams = dc.scheme.vars.len() - dc.exists;
                    if dc.exists > 0 {
                        let hidden: Vec<String> = dc.scheme.vars[nparams..]
                            .iter()
                            .map(|v| v.as_deref().unwrap_or("a").to_string())
                            .collect();
                        alt.push_str(&format!("forall {}. ", hidden.join(" ")));
                    }
                    let printed = match printed.split_once(" => ") {
                        Some((ctx, rest)) if !dc.scheme.preds.is_empty() => {
                            alt.push_str(ctx);
                            alt.push_str(" => ");
                            rest.to_string()
                        }
                        _ => printed,
                    };
                    let mut parts = split_arrows(&printed);
                    let result = parts.pop().unwrap_or_default();
                    // A GADT constructor's result fixes parameters: the
                    // head is another's (or the parameters'), not its own.
                    if dc.eqs.is_empty() {
                        head = result;
                    }
                    alt.push_str(&shown(&c.name));
                    for (i, a) in parts.iter().enumerate() {
                        alt.push(' ');
                        if dc.strict.get(i).copied().unwrap_or(false) {
                            alt.push('!');
                        }
                        alt.push_str(&atomic(a));
                    }
                    alts.push(alt);
                }
                let keyword = if *newtype { "newtype" } else { "data" };
                // A GADT (a constructor fixes a parameter): each
                // constructor by its signature, as GHCi shows it.
                let refines = cons
                    .iter()
                    .any(|c| env.datacons.get(c).is_some_and(|dc| !dc.eqs.is_empty()));
                if refines {
                    out.push_str(&format!("{keyword} {head} where\n"));
                    for c in cons {
                        if let Some(dc) = env.datacons.get(c) {
                            let sig = self.scheme(&dc.scheme);
                            out.push_str(&format!("  {} :: {sig}\n", shown(&c.name)));
                        }
                    }
                } else if alts.is_empty() {
                    out.push_str(&format!("{keyword} {head}\n"));
                } else {
                    out.push_str(&format!("{keyword} {head} = {}\n", alts.join(" | ")));
                }
            }
            TyConDef::Synonym { params, rhs } => {
                let vars: Vec<String> = (0..*params).map(var_name).collect();
                let s = Scheme {
                    vars: vars.iter().map(|v| Some(Sym::from(v.as_str()))).collect(),
                    preds: Vec::new(),
                    ty: rhs.clone(),
                };
                let mut head = name.clone();
                for v in &vars {
                    head.push(' ');
                    head.push_str(v);
                }
                out.push_str(&format!("type {head} = {}\n", self.scheme(&s)));
            }
            TyConDef::Abstract => out.push_str(&format!("data {name}\n")),
        }
        out.push_str(&self.defined(&info.name, Some(info.span)));
        if instances {
            for (i, inst) in env.instances.iter().enumerate() {
                if head_tycon(&inst.head) == Some(t) {
                    out.push_str(&self.instance(i));
                }
            }
        }
        out
    }

    /// `type C :: * -> Constraint`, `class Super a => C a where` and its
    /// methods, where it is defined, and (`instances`) its instances.
    fn class_decl(&self, c: usize, instances: bool) -> String {
        let env = self.env;
        let info = &env.classes[c];
        let name = shown(&info.name.name);
        let mut out = format!("type {name} :: {}\n", class_kind(info));
        let params: Vec<String> = std::iter::once(info.tyvar.to_string())
            .chain(info.more.iter().map(|(v, _)| v.to_string()))
            .collect();
        let a = params.join(" ");
        // A superclass of a class of several parameters is on the types
        // its declaration names (`Gen(i)`: the i-th parameter).
        let supers: Vec<String> = info
            .supers
            .iter()
            .zip(&info.super_tys)
            .map(|(s, t)| {
                let on = if params.len() == 1 {
                    a.clone()
                } else {
                    let vars: Vec<Option<Sym>> =
                        params.iter().map(|p| Some(Sym::from(p.as_str()))).collect();
                    atomic(&self.scheme(&Scheme {
                        vars,
                        preds: Vec::new(),
                        ty: t.clone(),
                    }))
                };
                format!("{} {on}", env.class(*s).name.name)
            })
            .collect();
        let fundeps: Vec<String> = info
            .fundeps
            .iter()
            .map(|(from, to)| {
                let names = |is: &[usize]| {
                    is.iter()
                        .map(|&i| params[i].clone())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                format!("{} -> {}", names(from), names(to))
            })
            .collect();
        let a = if fundeps.is_empty() {
            a
        } else {
            format!("{a} | {}", fundeps.join(", "))
        };
        let context = match supers.len() {
            0 => String::new(),
            1 => format!("{} => ", supers[0]),
            _ => format!("({}) => ", supers.join(", ")),
        };
        out.push_str(&format!("class {context}{name} {a} where\n"));
        for m in &info.methods {
            if let Some(types::env::ValueInfo::Poly(s)) = env.values.get(m) {
                // The method's type without its own class's constraint.
                let mut s = s.clone();
                if let Some(i) = s.preds.iter().position(|p| p.class.0 as usize == c) {
                    s.preds.remove(i);
                }
                out.push_str(&format!("  {} :: {}\n", shown(&m.name), self.scheme(&s)));
            }
        }
        out.push_str(&self.defined(&info.name, Some(info.span)));
        if instances {
            for (i, inst) in env.instances.iter().enumerate() {
                if inst.class.0 as usize == c && self.head_in_scope(&inst.head) {
                    out.push_str(&self.instance(i));
                }
            }
        }
        out
    }

    /// Whether an instance head's type constructor can be named (built-in
    /// syntax such as `[]` and `(,)` always can).
    fn head_in_scope(&self, head: &Type) -> bool {
        let Some(t) = head_tycon(head) else {
            return true;
        };
        let name = &self.env.tycons[t].name;
        !name.name.starts_with(|c: char| c.is_alphabetic())
            || self
                .scope
                .type_in_scope(&(name.module.clone(), name.name.clone()))
    }

    fn instance(&self, i: usize) -> String {
        let inst = &self.env.instances[i];
        let s = Scheme {
            vars: inst.vars.iter().cloned().map(Some).collect(),
            preds: inst.context.clone(),
            ty: inst.head.clone(),
        };
        let printed = self.scheme(&s);
        let (context, head) = match printed.split_once(" => ") {
            Some((c, h)) => (format!("{c} => "), h.to_string()),
            None => (String::new(), printed),
        };
        let class = &self.env.class(inst.class).name.name;
        // A class of several parameters: its arguments, not `(#2) a b`.
        let head = match types::pretty::multi_param_args(&head) {
            Some(args) if self.env.class_arity(inst.class) > 1 => args.to_string(),
            _ => atomic(&head),
        };
        format!(
            "instance {context}{class} {head}{}",
            self.defined(&inst.dfun, None).replace('\t', " ")
        )
    }
}

/// A class's kind, from its parameters': `* -> Constraint`,
/// `(* -> *) -> Constraint`, `* -> (* -> *) -> Constraint`.
pub fn class_kind(info: &types::env::ClassInfo) -> String {
    let mut out = String::new();
    for k in std::iter::once(&info.kind).chain(info.more.iter().map(|(_, k)| k)) {
        let k = k.to_string();
        if k.contains("->") {
            out.push_str(&format!("({k}) -> "));
        } else {
            out.push_str(&format!("{k} -> "));
        }
    }
    out + "Constraint"
}

/// The type constructor at the head of a type.
fn head_tycon(t: &Type) -> Option<usize> {
    let mut t = t;
    loop {
        match t.ty() {
            Ty::App(f, _) => t = f,
            Ty::Con(c) => return Some(c.0 as usize),
            Ty::Syn(_, _, e) => t = e,
            _ => return None,
        }
    }
}

/// `a -> Maybe b -> T` as its parts at the top level: `a`, `Maybe b`, `T`.
fn split_arrows(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if depth == 0 && s[i..].starts_with(" -> ") {
            parts.push(std::mem::take(&mut cur));
            i += 4;
            continue;
        }
        cur.push(c);
        i += c.len_utf8();
    }
    parts.push(cur);
    parts
}

/// A type as an argument: parenthesised unless it is one word or bracketed.
fn atomic(t: &str) -> String {
    let simple = !t.contains(' ')
        || (t.starts_with('[') && t.ends_with(']'))
        || (t.starts_with('(') && t.ends_with(')') && balanced_outer(t));
    if simple {
        t.to_string()
    } else {
        format!("({t})")
    }
}

/// Whether the outer parentheses of `(..)` enclose the whole text.
fn balanced_outer(t: &str) -> bool {
    let mut depth = 0;
    for (i, c) in t.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 < t.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

fn var_name(i: usize) -> String {
    ((b'a' + (i % 26) as u8) as char).to_string()
}

fn is_operator(name: &str) -> bool {
    !name.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '(' || c == '[')
}

/// A name as it is written alone: operators in parentheses.
fn shown(name: &str) -> String {
    if is_operator(name) {
        format!("({name})")
    } else {
        name.to_string()
    }
}
