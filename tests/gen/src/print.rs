//! Prints a generated program as Haskell source, with the layout rule:
//! small constructs on one line (`case x of { ... }` with braces), large
//! ones at the top of a right-hand side over several lines.

use crate::ast::*;
use crate::library::home_module;
use crate::ty::{show_ty, Class};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Left,
    Right,
    Whole,
}

/// Where an expression is printed: `Top` allows open constructs (lambda,
/// `if`, `case`, `let`, `do`, annotations) and several lines.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ctx {
    Top,
    /// Operand of an operator with this fixity.
    Operand(u8, Assoc2, Side),
    /// Argument of an application (must be atomic).
    Arg,
    /// Function in an application.
    Fun,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Assoc2 {
    L,
    R,
    N,
}

pub fn fixity_of(name: &str, prog: &[Fixity]) -> (u8, Assoc2) {
    for f in prog {
        if f.op == name {
            let a = match f.assoc {
                Assoc::Left => Assoc2::L,
                Assoc::Right => Assoc2::R,
                Assoc::None => Assoc2::N,
            };
            return (f.prec, a);
        }
    }
    use Assoc2::*;
    match name {
        "." | "dot" => (9, R),
        "!!" => (9, L),
        "^" | "**" => (8, R),
        "*" | "/" | "div" | "mod" | "rem" | "quot" => (7, L),
        "+" | "-" => (6, L),
        ":" | "++" => (5, R),
        "\\\\" => (5, N),
        "==" | "/=" | "<" | "<=" | ">" | ">=" | "elem" | "notElem" => (4, N),
        "<$>" | "<$" | "<*>" => (4, L),
        "&&" => (3, R),
        "||" => (2, R),
        ">>" | ">>=" => (1, L),
        "$" | "$!" | "seq" | "par" | "pseq" => (0, R),
        "using" => (0, L),
        _ => (9, L),
    }
}

pub fn is_symbolic(name: &str) -> bool {
    !name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '[' || c == '(')
}

pub struct Printer<'a> {
    fixities: &'a [Fixity],
    out: String,
    oneline: bool,
}

impl<'a> Printer<'a> {
    fn col(&self) -> usize {
        self.out.len() - self.out.rfind('\n').map(|i| i + 1).unwrap_or(0)
    }
    fn t(&mut self, s: &str) {
        self.out.push_str(s);
    }
    fn nl(&mut self, col: usize) {
        // no trailing spaces
        while self.out.ends_with(' ') {
            self.out.pop();
        }
        self.out.push('\n');
        for _ in 0..col {
            self.out.push(' ');
        }
    }

    fn sub(&self) -> Printer<'a> {
        Printer {
            fixities: self.fixities,
            out: String::new(),
            oneline: true,
        }
    }

    /// The one-line rendering of an expression.
    fn flat(&self, e: &Expr, ctx: Ctx) -> String {
        let mut p = self.sub();
        p.expr(e, ctx, 0);
        p.out
    }

    fn own_prec(&self, e: &Expr) -> i32 {
        match &e.kind {
            E::Var(_) | E::Con(_) | E::Lit(_) | E::Tuple(_) | E::List(_) | E::Range(..) => 11,
            E::Comp(..) | E::SectionR(..) | E::Neg(_) => 11,
            E::App(f, args) => match &f.kind {
                E::Var(n) | E::Con(n) if is_symbolic(n) && args.len() == 1 => 11,
                E::Var(n) | E::Con(n) if is_symbolic(n) && args.len() == 2 && self.infix_app(n) => {
                    fixity_of(n, self.fixities).0 as i32
                }
                _ => 10,
            },
            E::Op(n, _, _) => fixity_of(n, self.fixities).0 as i32,
            E::Lam(..) | E::Let(..) | E::If(..) | E::Case(..) | E::Do(_) | E::Ann(..) => -1,
        }
    }

    /// A symbolic name applied to two arguments prints infix for constructors
    /// (`x : xs`, `a :+: b`) and prefix (`(+) a b`) for functions.
    fn infix_app(&self, n: &str) -> bool {
        n.starts_with(':')
    }

    fn needs_parens(&self, e: &Expr, ctx: Ctx) -> bool {
        let p = self.own_prec(e);
        match ctx {
            Ctx::Top => false,
            Ctx::Arg => p < 11,
            Ctx::Fun => p < 10,
            Ctx::Operand(cp, ca, side) => {
                if p < 0 {
                    return true;
                }
                if p > cp as i32 {
                    return false;
                }
                if p < cp as i32 {
                    return true;
                }
                // same precedence: only the same associativity on its side
                let child_assoc = match &e.kind {
                    E::Op(n, _, _) => fixity_of(n, self.fixities).1,
                    E::App(f, _) => match &f.kind {
                        E::Var(n) | E::Con(n) => fixity_of(n, self.fixities).1,
                        _ => return true,
                    },
                    _ => return p != 10 && p != 11,
                };
                !(child_assoc == ca
                    && ((ca == Assoc2::L && side == Side::Left)
                        || (ca == Assoc2::R && side == Side::Right)))
            }
        }
    }

    /// Prints `e`; `ind` is the least column of its continuation lines.
    /// Prints `e`, over several lines if it is long (not inside braces).
    fn expr(&mut self, e: &Expr, ctx: Ctx, ind: usize) {
        let ml = !self.oneline;
        self.expr_ml(e, ctx, ind, ml)
    }

    /// Prints `e` without layout blocks over lines (a condition, a
    /// scrutinee, a guard).
    fn expr_flat(&mut self, e: &Expr, ctx: Ctx, ind: usize) {
        self.expr_ml(e, ctx, ind, false)
    }

    /// `ml`: the expression may take several lines (it is a right-hand
    /// side, a statement, or a branch of a construct printed over lines).
    fn expr_ml(&mut self, e: &Expr, ctx: Ctx, ind: usize, ml: bool) {
        if self.needs_parens(e, ctx) {
            // layout may continue inside the parentheses: `)` closes an
            // implicit block (the parse-error(t) rule)
            self.t("(");
            let c = self.col();
            self.expr_ml(e, Ctx::Top, ind.max(c), !self.oneline);
            self.t(")");
            return;
        }
        let multi = ml && ctx == Ctx::Top && !self.oneline && self.flat(e, ctx).len() > 70;
        let saved = self.oneline;
        if !multi && matches!(e.kind, E::Let(..) | E::Case(..) | E::Do(_)) {
            // braces on one line: no line breaks inside
            self.oneline = true;
        }
        self.expr_inner(e, ind, multi);
        self.oneline = saved;
    }

    fn expr_inner(&mut self, e: &Expr, ind: usize, multi: bool) {
        match &e.kind {
            E::Var(n) | E::Con(n) => {
                if is_symbolic(n) {
                    self.t(&format!("({n})"))
                } else {
                    self.t(n)
                }
            }
            E::Lit(l) => self.t(&lit(l)),
            E::App(f, args) => {
                if let E::Var(n) | E::Con(n) = &f.kind {
                    if is_symbolic(n) && args.len() == 1 {
                        self.t("(");
                        let (p, a) = fixity_of(n, self.fixities);
                        self.expr(&args[0], Ctx::Operand(p, a, Side::Left), ind);
                        self.t(&format!(" {n})"));
                        return;
                    }
                    if is_symbolic(n) && args.len() == 2 && self.infix_app(n) {
                        self.binop(n, &args[0], &args[1], ind);
                        return;
                    }
                }
                self.expr(f, Ctx::Fun, ind);
                for a in args {
                    let w = self.flat(a, Ctx::Arg).len();
                    self.space_or_break(w, ind);
                    self.expr(a, Ctx::Arg, ind);
                }
            }
            E::Op(n, a, b) => self.binop(n, a, b, ind),
            E::SectionR(n, a) => {
                let (p, asc) = fixity_of(n, self.fixities);
                if is_symbolic(n) {
                    self.t(&format!("({n} "));
                } else {
                    self.t(&format!("(`{n}` "));
                }
                self.expr(a, Ctx::Operand(p, asc, Side::Right), ind);
                self.t(")");
            }
            E::Neg(a) => {
                self.t("(- ");
                self.expr(a, Ctx::Operand(6, Assoc2::N, Side::Right), ind);
                self.t(")");
            }
            E::Lam(ps, body) => {
                let ps = pats_str(ps, true, " ");
                // `\~p` and `\!p` would lex as the operators `\~` and `\!`
                if ps.starts_with(['~', '!']) {
                    self.t("\\ ");
                } else {
                    self.t("\\");
                }
                self.t(&ps);
                self.t(" -> ");
                self.expr(body, Ctx::Top, ind);
            }
            E::Let(bs, body) => {
                if multi {
                    self.let_layout(bs, true);
                    self.nl(ind);
                    self.t("in ");
                    self.expr_ml(body, Ctx::Top, ind + 2, true);
                } else {
                    // `let a = 1; b = 2 in e`: the implicit block ends at `in`
                    self.t("let ");
                    self.binds_flat(bs);
                    self.t(" in ");
                    self.expr(body, Ctx::Top, ind);
                }
            }
            E::If(c, a, b) => {
                self.t("if ");
                self.expr_flat(c, Ctx::Top, ind + 2);
                if multi {
                    self.nl(ind);
                    self.t("then ");
                    self.expr_ml(a, Ctx::Top, ind + 2, true);
                    self.nl(ind);
                    self.t("else ");
                    self.expr_ml(b, Ctx::Top, ind + 2, true);
                } else {
                    self.t(" then ");
                    self.expr(a, Ctx::Top, ind);
                    self.t(" else ");
                    self.expr(b, Ctx::Top, ind);
                }
            }
            E::Case(s, alts) => {
                self.t("case ");
                self.expr_flat(s, Ctx::Top, ind + 2);
                self.t(" of");
                if multi {
                    for a in alts {
                        self.nl(ind);
                        self.alt(a, ind, true);
                    }
                } else {
                    self.t(" { ");
                    for (i, a) in alts.iter().enumerate() {
                        if i > 0 {
                            self.t("; ");
                        }
                        self.alt(a, ind, false);
                    }
                    self.t(" }");
                }
            }
            E::Tuple(es) => self.items("(", es, ")", ind),
            E::List(es) => self.items("[", es, "]", ind),
            E::Range(a, b, c) => {
                self.t("[");
                self.expr(a, Ctx::Top, ind);
                if let Some(b) = b {
                    self.t(", ");
                    self.expr(b, Ctx::Top, ind);
                }
                self.t(" ..");
                if let Some(c) = c {
                    self.t(" ");
                    self.expr(c, Ctx::Top, ind);
                }
                self.t("]");
            }
            E::Comp(body, qs) => {
                // no layout blocks over lines in a comprehension: `|` does
                // not end a `do` block in gph (FINDINGS.md)
                let saved = self.oneline;
                self.oneline = true;
                self.t("[");
                self.expr(body, Ctx::Top, ind);
                self.t(" | ");
                for (i, q) in qs.iter().enumerate() {
                    if i > 0 {
                        self.t(", ");
                    }
                    match q {
                        Qual::Gen(p, e) => {
                            self.pat(p, false);
                            self.t(" <- ");
                            self.expr(e, Ctx::Top, ind);
                        }
                        Qual::Guard(g) => self.expr(g, Ctx::Top, ind),
                        Qual::Let(bs) => self.let_flat(bs),
                    }
                }
                self.t("]");
                self.oneline = saved;
            }
            E::Do(ss) => {
                if multi {
                    self.t("do");
                    for s in ss {
                        self.nl(ind);
                        self.stmt_ml(s, ind, true);
                    }
                } else {
                    self.t("do { ");
                    for (i, s) in ss.iter().enumerate() {
                        if i > 0 {
                            self.t("; ");
                        }
                        match s {
                            Stmt::Let(bs) => self.let_flat(bs),
                            _ => self.stmt(s, ind),
                        }
                    }
                    self.t(" }");
                }
            }
            E::Ann(x, ty) => {
                self.expr(x, Ctx::Operand(0, Assoc2::N, Side::Whole), ind);
                self.t(&format!(" :: {}", show_ty(ty, 0)));
            }
        }
    }

    /// `open e1, e2, ... close`, breaking long lines after a comma.
    fn items(&mut self, open: &str, es: &[Expr], close: &str, ind: usize) {
        self.t(open);
        for (i, x) in es.iter().enumerate() {
            if i > 0 {
                self.t(",");
                let w = self.flat(x, Ctx::Top).len();
                self.space_or_break(w, ind);
            }
            self.expr(x, Ctx::Top, ind);
        }
        self.t(close);
    }

    /// `b1; b2; ...` on one line.
    fn binds_flat(&mut self, bs: &[Bind]) {
        for (i, b) in bs.iter().enumerate() {
            if i > 0 {
                self.t("; ");
            }
            self.bind(b, 0);
        }
    }

    /// `let { b1; b2 }`: a `let` statement or qualifier on one line.
    fn let_flat(&mut self, bs: &[Bind]) {
        let saved = self.oneline;
        self.oneline = true;
        self.t("let { ");
        self.binds_flat(bs);
        self.t(" }");
        self.oneline = saved;
    }

    /// `let b1` with the other bindings below `b1`, at its column.
    fn let_layout(&mut self, bs: &[Bind], ml: bool) {
        self.t("let ");
        let c = self.col();
        for (i, b) in bs.iter().enumerate() {
            if i > 0 {
                self.nl(c);
            }
            self.bind_ml(b, c, ml);
        }
    }

    fn binop(&mut self, n: &str, a: &Expr, b: &Expr, ind: usize) {
        let (p, asc) = fixity_of(n, self.fixities);
        self.expr(a, Ctx::Operand(p, asc, Side::Left), ind);
        let op = if is_symbolic(n) {
            n.to_string()
        } else {
            format!("`{n}`")
        };
        self.t(&format!(" {op}"));
        // `f $ \x -> ...`, `print $ case ...`: an open construct ends the
        // expression, so it needs no parentheses right of `$`
        let ctx = if n == "$" && self.own_prec(b) < 0 && !matches!(b.kind, E::Ann(..)) {
            Ctx::Top
        } else {
            Ctx::Operand(p, asc, Side::Right)
        };
        let w = self.flat(b, ctx).len();
        self.space_or_break(w, ind);
        self.expr(b, ctx, ind);
    }

    /// A space, or a new line at column `ind` when the next `w` characters
    /// would make the line longer than 100 (never inside braces).
    fn space_or_break(&mut self, w: usize, ind: usize) {
        if !self.oneline && self.col() + 1 + w > 100 && self.col() > ind + 12 {
            self.nl(ind);
        } else {
            self.t(" ");
        }
    }

    fn alt(&mut self, a: &Alt, col: usize, ml: bool) {
        self.pat(&a.pat, false);
        self.rhs(&a.rhs, "->", col, ml);
    }

    /// ` = e` or guards, for a binding or alternative starting at column `col`.
    fn rhs(&mut self, r: &Rhs, eq: &str, col: usize, ml: bool) {
        match r {
            Rhs::Plain(e) => {
                self.t(&format!(" {eq} "));
                self.expr_ml(e, Ctx::Top, col + 2, ml);
            }
            Rhs::Guarded(gs) => {
                let flat = self.oneline || !ml || {
                    let mut p = self.sub();
                    p.rhs(r, eq, col, false);
                    p.out.len() < 70
                };
                for (g, e) in gs {
                    if flat {
                        self.t(" | ");
                    } else {
                        self.nl(col + 2);
                        self.t("| ");
                    }
                    self.expr_flat(g, Ctx::Top, col + 4);
                    self.t(&format!(" {eq} "));
                    self.expr_ml(e, Ctx::Top, col + 4, !flat);
                }
            }
        }
    }

    fn stmt(&mut self, s: &Stmt, col: usize) {
        self.stmt_ml(s, col, false)
    }

    fn stmt_ml(&mut self, s: &Stmt, col: usize, ml: bool) {
        match s {
            Stmt::Expr(e) => self.expr_ml(e, Ctx::Top, col + 2, ml),
            Stmt::Bind(p, e) => {
                self.pat(p, false);
                self.t(" <- ");
                self.expr_ml(e, Ctx::Top, col + 2, ml);
            }
            Stmt::Let(bs) => {
                if self.oneline {
                    self.let_flat(bs);
                } else {
                    self.let_layout(bs, ml);
                }
            }
        }
    }

    /// A binding whose first line starts at column `col` (the cursor is there).
    fn bind(&mut self, b: &Bind, col: usize) {
        self.bind_ml(b, col, false)
    }

    fn bind_ml(&mut self, b: &Bind, col: usize, ml: bool) {
        match b {
            Bind::Pat(p, e) => {
                self.pat(p, false);
                self.t(" = ");
                self.expr_ml(e, Ctx::Top, col + 2, ml);
            }
            Bind::Fun(fb) => {
                let mut first = true;
                let sym = is_symbolic(&fb.name);
                let prefix_name = if sym {
                    format!("({})", fb.name)
                } else {
                    fb.name.clone()
                };
                if let Some(sig) = &fb.sig {
                    self.t(&format!("{prefix_name} :: {}", show_sig(sig)));
                    first = false;
                }
                for c in &fb.clauses {
                    if !first {
                        if self.oneline {
                            self.t("; ");
                        } else {
                            self.nl(col);
                        }
                    }
                    first = false;
                    if sym && c.pats.len() == 2 {
                        // `l <+> r = ...`
                        self.pat(&c.pats[0], true);
                        self.t(&format!(" {} ", fb.name));
                        self.pat(&c.pats[1], true);
                    } else {
                        self.t(&prefix_name);
                        for p in &c.pats {
                            self.t(" ");
                            self.pat(p, true);
                        }
                    }
                    self.rhs(&c.rhs, "=", col, ml);
                    if !c.wheres.is_empty() {
                        if self.oneline {
                            // where is not allowed in braces-free one-line
                            // contexts; the generator only puts where
                            // clauses on bindings printed over lines.
                            self.t(" where { ");
                            self.binds_flat(&c.wheres);
                            self.t(" }");
                        } else {
                            self.nl(col + 2);
                            self.t("where");
                            for w in &c.wheres {
                                self.nl(col + 4);
                                self.bind_ml(w, col + 4, true);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Prints a pattern; `arg` when it must be atomic (function arguments, lambdas).
    fn pat(&mut self, p: &Pat, arg: bool) {
        let s = pat_str(p, arg);
        self.t(&s);
    }
}

pub fn show_sig(s: &Sig) -> String {
    let ctx: Vec<String> = s
        .ctx
        .iter()
        .map(|(c, v)| format!("{} {}", c.name(), v))
        .collect();
    match ctx.len() {
        0 => show_ty(&s.ty, 0),
        1 => format!("{} => {}", ctx[0], show_ty(&s.ty, 0)),
        _ => format!("({}) => {}", ctx.join(", "), show_ty(&s.ty, 0)),
    }
}

/// Patterns joined by `sep`.
fn pats_str(ps: &[Pat], arg: bool, sep: &str) -> String {
    ps.iter()
        .map(|p| pat_str(p, arg))
        .collect::<Vec<_>>()
        .join(sep)
}

fn pat_str(p: &Pat, arg: bool) -> String {
    let paren = |s: String| if arg { format!("({s})") } else { s };
    match &p.kind {
        P::Var(n) => n.clone(),
        P::Wild => "_".into(),
        P::Lit(l) => lit(l),
        P::Con(n, ps) if ps.is_empty() => {
            if is_symbolic(n) && n != "[]" {
                format!("({n})")
            } else {
                n.clone()
            }
        }
        P::Con(n, ps) if is_symbolic(n) && ps.len() == 2 => paren(format!(
            "{} {} {}",
            pat_str(&ps[0], true),
            n,
            pat_str(&ps[1], true)
        )),
        P::Con(n, ps) => paren(format!("{n} {}", pats_str(ps, true, " "))),
        P::Tuple(ps) => format!("({})", pats_str(ps, false, ", ")),
        P::List(ps) => format!("[{}]", pats_str(ps, false, ", ")),
        P::As(n, q) => format!("{n}@{}", pat_str(q, true)),
        P::Lazy(q) => format!("~{}", pat_str(q, true)),
    }
}

pub fn lit(l: &Lit) -> String {
    match l {
        Lit::Num(n) | Lit::Frac(n) => {
            if n.starts_with('-') {
                format!("({n})")
            } else {
                n.clone()
            }
        }
        Lit::Char(c) => {
            if *c == '\'' {
                "'\\''".into()
            } else if *c == '"' {
                "'\"'".into()
            } else {
                format!("'{}'", escape(&c.to_string(), '\''))
            }
        }
        Lit::Str(s) => format!("\"{}\"", escape(s, '"')),
    }
}

/// Haskell escapes; a numeric escape followed by a digit gets `\&`.
pub fn escape(s: &str, quote: char) -> String {
    let mut out = String::new();
    let mut numeric = false;
    for c in s.chars() {
        if numeric && c.is_ascii_digit() {
            out.push_str("\\&");
        }
        numeric = false;
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 32 || (c as u32) >= 127 => {
                out.push_str(&format!("\\{}", c as u32));
                numeric = true;
            }
            c => out.push(c),
        }
    }
    out
}

/// The library names a program uses, by module.
fn imports(p: &Program) -> BTreeMap<&'static str, BTreeSet<String>> {
    let mut used: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    let mut visit = |e: &Expr| {
        let name = match &e.kind {
            E::Var(n) | E::Op(n, _, _) | E::SectionR(n, _) => n,
            _ => return,
        };
        if let Some(m) = home_module(name) {
            used.entry(m).or_default().insert(name.clone());
        }
    };
    p.walk(&mut visit);
    used
}

pub fn print_program(p: &Program) -> String {
    let mut pr = Printer {
        fixities: &p.fixities,
        out: String::new(),
        oneline: false,
    };
    if p.module_header {
        pr.t("module Main (main) where\n\n");
    }
    let imps = imports(p);
    for (m, names) in &imps {
        if p.open_imports {
            pr.t(&format!("import {m}\n"));
        } else {
            let ns: Vec<String> = names
                .iter()
                .map(|n| {
                    if is_symbolic(n) {
                        format!("({n})")
                    } else {
                        n.clone()
                    }
                })
                .collect();
            pr.t(&format!("import {m} ({})\n", ns.join(", ")));
        }
    }
    if !imps.is_empty() {
        pr.t("\n");
    }
    for f in &p.fixities {
        let kw = match f.assoc {
            Assoc::Left => "infixl",
            Assoc::Right => "infixr",
            Assoc::None => "infix",
        };
        pr.t(&format!("{kw} {} {}\n", f.prec, f.op));
    }
    if !p.fixities.is_empty() {
        pr.t("\n");
    }
    for d in &p.datas {
        pr.t(&data_decl(d));
        pr.t("\n\n");
    }
    for b in &p.decls {
        pr.bind_ml(b, 0, true);
        pr.t("\n\n");
    }
    pr.t("main :: IO ()\nmain = do");
    for s in &p.main {
        pr.nl(2);
        pr.stmt_ml(s, 2, true);
    }
    pr.t("\n");
    pr.out
}

fn data_decl(d: &DataDecl) -> String {
    let mut s = format!(
        "{} {}",
        if d.newtype { "newtype" } else { "data" },
        std::iter::once(d.name.clone())
            .chain(d.params.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let field = |(t, strict): &(crate::ty::Ty, bool)| {
        format!("{}{}", if *strict { "!" } else { "" }, show_ty(t, 2))
    };
    let cons: Vec<String> = d
        .cons
        .iter()
        .map(|c| {
            if c.is_infix() {
                format!("{} {} {}", field(&c.fields[0]), c.name, field(&c.fields[1]))
            } else {
                std::iter::once(c.name.clone())
                    .chain(c.fields.iter().map(field))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        })
        .collect();
    let one = format!("{s} = {}", cons.join(" | "));
    if one.len() <= 70 {
        s = one;
    } else {
        s.push_str(&format!("\n  = {}", cons.join("\n  | ")));
    }
    if !d.deriving.is_empty() {
        let cs: Vec<&str> = d.deriving.iter().map(|c: &Class| c.name()).collect();
        if cs.len() == 1 {
            s.push_str(&format!("\n  deriving {}", cs[0]));
        } else {
            s.push_str(&format!("\n  deriving ({})", cs.join(", ")));
        }
    }
    s
}
