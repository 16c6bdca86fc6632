//! Printing types the user's way: unqualified names, list and tuple syntax,
//! synonyms as written, type variables with the names of the signature they
//! come from, and fresh variables as `a`, `b`, `c`, ...

use super::env::Env;
use super::ty::*;
use gph_syntax::lexer::Sym;
use std::collections::HashMap;

/// Names the variables of the types printed in one message consistently.
#[derive(Default)]
pub struct Namer {
    metas: HashMap<u32, String>,
    skolems: HashMap<u32, String>,
    /// Names of the bound variables when printing a scheme.
    gens: Vec<String>,
    /// Names of the variables of the `forall`s inside types being printed.
    bound: HashMap<u32, String>,
    used: Vec<String>,
    next: usize,
}

impl Namer {
    pub fn new() -> Namer {
        Namer::default()
    }

    fn fresh(&mut self) -> String {
        loop {
            let i = self.next;
            self.next += 1;
            let letter = (b'a' + (i % 26) as u8) as char;
            let name = if i < 26 {
                letter.to_string()
            } else {
                format!("{letter}{}", i / 26)
            };
            if !self.used.contains(&name) {
                self.used.push(name.clone());
                return name;
            }
        }
    }

    /// A name that is `base` unless taken, else `base1`, `base2`, ...
    fn unique(&mut self, base: &str) -> String {
        if !self.used.iter().any(|u| u == base) {
            self.used.push(base.to_string());
            return base.to_string();
        }
        let mut i = 1;
        loop {
            let n = format!("{base}{i}");
            if !self.used.contains(&n) {
                self.used.push(n.clone());
                return n;
            }
            i += 1;
        }
    }

    fn meta(&mut self, v: u32) -> String {
        if let Some(n) = self.metas.get(&v) {
            return n.clone();
        }
        let n = self.fresh();
        self.metas.insert(v, n.clone());
        n
    }

    fn skolem(&mut self, v: u32, table: &TypeTable) -> String {
        if let Some(n) = self.skolems.get(&v) {
            return n.clone();
        }
        let base = table
            .skolems
            .get(v as usize)
            .map_or("t".to_string(), |s| s.name.to_string());
        let n = self.unique(&base);
        self.skolems.insert(v, n.clone());
        n
    }

    /// Reserves the names of the rigid variables in `t` first, so that
    /// fresh variables do not take them (`a` from a signature stays `a`).
    pub fn reserve(&mut self, table: &mut TypeTable, t: &Type) {
        let t = table.prune(t);
        match t.ty() {
            Ty::Skol(s) => {
                self.skolem(*s, table);
            }
            Ty::App(f, a) => {
                let (f, a) = (f.clone(), a.clone());
                self.reserve(table, &f);
                self.reserve(table, &a);
            }
            Ty::Syn(_, xs, _) => {
                for x in xs.clone() {
                    self.reserve(table, &x);
                }
            }
            _ => {}
        }
    }
}

pub struct Printer<'a> {
    pub env: &'a Env,
    pub table: &'a mut TypeTable,
    pub namer: &'a mut Namer,
}

impl Printer<'_> {
    pub fn ty(&mut self, t: &Type) -> String {
        let mut s = String::new();
        self.go(t, 0, &mut s);
        s
    }

    pub fn pred(&mut self, p: &Pred) -> String {
        let mut s = self.env.class(p.class).name.name.to_string();
        if self.env.class_arity(p.class) > 1 {
            // `C a b`, not the `(#2) a b` it is on.
            let (_, args) = self.raw_spine(&p.ty);
            // An operator class between its two arguments, in parentheses
            // as GHC's: `(f :<: g)`.
            if is_type_operator(&s) && args.len() == 2 {
                let mut out = String::from("(");
                self.go(&args[0], 2, &mut out);
                out.push(' ');
                out.push_str(&s);
                out.push(' ');
                self.go(&args[1], 2, &mut out);
                out.push(')');
                return out;
            }
            for a in args {
                s.push(' ');
                self.go(&a, 2, &mut s);
            }
            return s;
        }
        let mut arg = String::new();
        self.go(&p.ty, 2, &mut arg);
        // A constraint written with no type (`HasCallStack`) is its class
        // at `()` (the parser's reading): shown as written.
        if arg != "()" {
            s.push(' ');
            s.push_str(&arg);
        }
        s
    }

    /// `C a => t`, `(C a, D b) => t`, or `t`.
    pub fn qualified(&mut self, preds: &[Pred], t: &Type) -> String {
        let ty = self.ty(t);
        let ps: Vec<String> = preds.iter().map(|p| self.pred(p)).collect();
        match ps.len() {
            0 => ty,
            1 => format!("{} => {ty}", ps[0]),
            _ => format!("({}) => {ty}", ps.join(", ")),
        }
    }

    /// A scheme with its bound variables named: user names when known, else
    /// `a`, `b`, ... in order of appearance.
    pub fn scheme(&mut self, s: &Scheme) -> String {
        let mut order = Vec::new();
        gen_order(&s.ty, &mut order);
        for p in &s.preds {
            gen_order(&p.ty, &mut order);
        }
        let mut names = vec![
            String::new();
            s.vars
                .len()
                .max(order.iter().map(|&i| i as usize + 1).max().unwrap_or(0))
        ];
        // User names first so that fresh ones avoid them.
        for &i in &order {
            if let Some(Some(n)) = s.vars.get(i as usize) {
                names[i as usize] = self.namer.unique(n);
            }
        }
        for &i in &order {
            if names[i as usize].is_empty() {
                names[i as usize] = self.namer.fresh();
            }
        }
        self.namer.gens = names;
        let r = self.qualified(&s.preds, &s.ty);
        self.namer.gens.clear();
        r
    }

    fn tycon_name(&self, c: TcId) -> Sym {
        self.env.tycon(c).name.name.clone()
    }

    /// `prec`: 0 anywhere, 1 as the argument of `->`, 2 as a type argument.
    fn go(&mut self, t: &Type, prec: u8, out: &mut String) {
        gph_syntax::stack::guard();
        let t = self.table.prune(t);
        match t.ty() {
            Ty::Var(v) => out.push_str(&self.namer.meta(*v)),
            Ty::Skol(v) => {
                let n = self.namer.skolem(*v, self.table);
                out.push_str(&n)
            }
            Ty::Gen(i) => {
                let n = self
                    .namer
                    .gens
                    .get(*i as usize)
                    .cloned()
                    .unwrap_or_default();
                if n.is_empty() {
                    out.push_str(&format!("t{i}"))
                } else {
                    out.push_str(&n)
                }
            }
            Ty::Error => out.push('_'),
            Ty::Bound(b) => {
                let n = self.namer.bound.get(b).cloned();
                out.push_str(&n.unwrap_or_else(|| format!("t{b}")))
            }
            Ty::Forall(p) => {
                let p = p.clone();
                if prec >= 1 {
                    out.push('(');
                }
                out.push_str("forall");
                for (id, n) in &p.vars {
                    let n = self.namer.unique(n);
                    out.push(' ');
                    out.push_str(&n);
                    self.namer.bound.insert(*id, n);
                }
                out.push_str(". ");
                let body = self.qualified(&p.preds, &p.ty);
                out.push_str(&body);
                if prec >= 1 {
                    out.push(')');
                }
            }
            Ty::Con(c) => {
                let n = self.tycon_name(*c);
                // The function type unapplied, or applied to one argument
                // (`instance Functor ((->) r)`), is written as a prefix.
                if &*n == "->" || is_type_operator(&n) {
                    out.push('(');
                    out.push_str(&n);
                    out.push(')');
                } else {
                    out.push_str(&n)
                }
            }
            Ty::Syn(c, args, _) if is_type_operator(&self.tycon_name(*c)) && args.len() == 2 => {
                let (n, args) = (self.tycon_name(*c), args.clone());
                self.infix(&n, &args[0], &args[1], prec, out);
            }
            Ty::Syn(c, args, _) => {
                let n = self.tycon_name(*c);
                if args.is_empty() {
                    out.push_str(&n);
                } else {
                    let paren = prec >= 2;
                    if paren {
                        out.push('(');
                    }
                    out.push_str(&n);
                    for a in args.clone() {
                        out.push(' ');
                        self.go(&a, 2, out);
                    }
                    if paren {
                        out.push(')');
                    }
                }
            }
            Ty::App(..) => {
                let (head, args) = self.raw_spine(&t);
                let con = match head.ty() {
                    Ty::Con(c) => Some(self.tycon_name(*c)),
                    _ => None,
                };
                match con.as_deref() {
                    Some("->") if args.len() == 2 => {
                        if prec >= 1 {
                            out.push('(');
                        }
                        self.go(&args[0], 1, out);
                        out.push_str(" -> ");
                        self.go(&args[1], 0, out);
                        if prec >= 1 {
                            out.push(')');
                        }
                    }
                    Some(n) if is_type_operator(n) && args.len() == 2 => {
                        let n = n.to_string();
                        self.infix(&n, &args[0], &args[1], prec, out);
                    }
                    Some("[]") if args.len() == 1 => {
                        out.push('[');
                        self.go(&args[0], 0, out);
                        out.push(']');
                    }
                    Some(n) if n.starts_with("(,") && args.len() == n.len() - 1 => {
                        out.push('(');
                        for (i, a) in args.iter().enumerate() {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            self.go(a, 0, out);
                        }
                        out.push(')');
                    }
                    _ => {
                        if prec >= 2 {
                            out.push('(');
                        }
                        self.go(&head, 2, out);
                        for a in &args {
                            out.push(' ');
                            self.go(a, 2, out);
                        }
                        if prec >= 2 {
                            out.push(')');
                        }
                    }
                }
            }
        }
    }

    /// A type operator between its two arguments, in parentheses anywhere
    /// but at the top (as GHC prints them: `(a :*: (b :*: c)) -> a`).
    fn infix(&mut self, op: &str, l: &Type, r: &Type, prec: u8, out: &mut String) {
        if prec >= 1 {
            out.push('(');
        }
        self.go(l, 2, out);
        out.push(' ');
        out.push_str(op);
        out.push(' ');
        self.go(r, 2, out);
        if prec >= 1 {
            out.push(')');
        }
    }

    /// The application spine without expanding synonyms at the head.
    fn raw_spine(&mut self, t: &Type) -> (Type, Vec<Type>) {
        let mut args = Vec::new();
        let mut t = self.table.prune(t);
        while let Ty::App(f, a) = t.ty() {
            args.push(a.clone());
            let next = f.clone();
            t = self.table.prune(&next);
        }
        args.reverse();
        (t, args)
    }
}

/// A printed instance head of a class of several parameters, `(#2) a (T
/// b)`, as the arguments a user writes: `a (T b)`. None for any other.
pub fn multi_param_args(printed: &str) -> Option<&str> {
    printed
        .strip_prefix("(#")?
        .split_once(") ")
        .map(|(_, args)| args)
}

fn gen_order(t: &Type, out: &mut Vec<u32>) {
    match t.ty() {
        Ty::Gen(i) if !out.contains(i) => out.push(*i),
        Ty::App(f, a) => {
            gen_order(f, out);
            gen_order(a, out);
        }
        Ty::Syn(_, xs, e) => {
            for x in xs {
                gen_order(x, out);
            }
            gen_order(e, out);
        }
        Ty::Forall(p) => p.parts().iter().for_each(|x| gen_order(x, out)),
        _ => {}
    }
}

/// Whether a type constructor or class is named by an operator
/// (TypeOperators), as the syntax printer tells it.
fn is_type_operator(n: &str) -> bool {
    gph_syntax::pretty::is_operator_name(n)
}
