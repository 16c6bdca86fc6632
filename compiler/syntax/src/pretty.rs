//! Pretty-printing of the syntax tree as Haskell source a person can read.
//!
//! The output uses layout (indentation, no braces) and is itself valid gph:
//! parsing it again gives the same tree up to parentheses and spans.
//!
//! * Blocks: `do` and `case ... of` hang their items two columns in from the
//!   line they start on; `let` and `where` align their bindings.
//! * Parentheses are added only where the grammar needs them (application
//!   binds tightest; a lambda, `let`, `if`, `case` or `do` is parenthesised
//!   unless nothing follows it), with one deliberate exception: an operand of
//!   a resolved operator (`Expr::BinOp`) that is itself an operator
//!   application is always parenthesised, so that the result of fixity
//!   resolution is visible (`1 + (2 * 3)`). An unresolved `Expr::OpChain`
//!   prints flat, as written.
//! * Names print as written, qualified ones as `M.x`; operators print infix
//!   (`x M.+ y`, `` x `div` y ``) and in parentheses where used as values.

use crate::ast::*;

/// A whole module: header, imports, declarations.
pub fn module(m: &Module) -> String {
    let mut p = Printer::new();
    p.module(m);
    p.finish()
}

/// A single declaration (which may take several lines).
pub fn decl(d: &Decl) -> String {
    let mut p = Printer::new();
    p.decl(d);
    p.finish()
}

/// A list of declarations, in the grouping a module uses.
pub fn decls(ds: &[Decl]) -> String {
    let mut p = Printer::new();
    p.top_decls(ds);
    p.finish()
}

pub fn expr(e: &Expr) -> String {
    crate::stack::guard();
    let mut p = Printer::new();
    p.expr(e, Lvl::Top, true);
    p.finish()
}

pub fn pat(x: &Pat) -> String {
    crate::stack::guard();
    let mut p = Printer::new();
    p.pat(x, Lvl::Top);
    p.finish()
}

pub fn ty(t: &Type) -> String {
    crate::stack::guard();
    let mut p = Printer::new();
    p.ty(t, TLvl::Fun);
    p.finish()
}

pub fn qual_type(t: &QualType) -> String {
    let mut p = Printer::new();
    p.qual_type(t);
    p.finish()
}

/// Where an expression or pattern stands, from loosest to tightest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Lvl {
    /// Anything, including `e :: T`.
    Top,
    /// An operator application (a chain, a negation).
    Infix,
    /// An operand of an operator: an application, or a lambda/let/if/case/do.
    Operand,
    /// The function of an application.
    Fun,
    /// An argument of an application: atoms only.
    Arg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum TLvl {
    Fun,
    App,
    Arg,
}

/// The loosest context an expression can stand in without parentheses.
fn expr_lvl(e: &Expr) -> Lvl {
    match e {
        Expr::Typed(..) | Expr::View(..) => Lvl::Top,
        Expr::OpChain(..) | Expr::BinOp(..) | Expr::Neg(..) => Lvl::Infix,
        Expr::Lambda(..) | Expr::Let(..) | Expr::If(..) | Expr::Case(..) | Expr::Do(..) => {
            Lvl::Operand
        }
        Expr::App(..) | Expr::TypeApp(..) => Lvl::Fun,
        _ => Lvl::Arg,
    }
}

/// Whether an expression, printed without parentheses, ends in a construct
/// that extends as far right as possible (a lambda, `let`, `if`) or in a
/// layout block (`case`, `do`): then nothing may follow it on its line.
fn ends_open(e: &Expr) -> bool {
    let mut e = e;
    loop {
        match e {
            Expr::Lambda(..) | Expr::Let(..) | Expr::If(..) | Expr::Case(..) | Expr::Do(..) => {
                return true
            }
            Expr::OpChain(items, _) => match items.last() {
                Some(ChainItem::Operand(last)) if expr_lvl(last) >= Lvl::Operand => e = last,
                _ => return false,
            },
            Expr::BinOp(_, _, r, _) | Expr::Neg(r, _) if expr_lvl(r) >= Lvl::Operand => e = r,
            _ => return false,
        }
    }
}

fn is_sym_char(c: char) -> bool {
    "!#$%&*+./<=>?@\\^|~:-".contains(c)
}

/// A name used as a value: operators in parentheses (`(+)`, `(M.:+)`).
fn name_str(q: &QName) -> String {
    if is_operator_name(&q.name) {
        format!("({q})")
    } else {
        q.to_string()
    }
}

/// A name used as an infix operator: alphanumeric ones in backquotes.
fn op_str(q: &QName) -> String {
    if is_operator_name(&q.name) {
        q.to_string()
    } else {
        format!("`{q}`")
    }
}

fn ident_str(i: &Ident) -> String {
    if is_operator_name(&i.name) {
        format!("({})", i.name)
    } else {
        i.name.to_string()
    }
}

fn ident_op_str(i: &Ident) -> String {
    if is_operator_name(&i.name) {
        i.name.to_string()
    } else {
        format!("`{}`", i.name)
    }
}

/// Escapes a character or string body the way Haskell source writes it.
fn escape_into(out: &mut String, s: &str, quote: char) {
    let mut numeric_before = false;
    for c in s.chars() {
        if numeric_before && c.is_ascii_digit() {
            out.push_str("\\&");
        }
        numeric_before = false;
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            // Only ASCII graphic characters and letters/digits of other
            // scripts stand for themselves; anything else (controls,
            // unassigned code points) is written as a decimal escape.
            c if c.is_ascii_control() || (!c.is_ascii() && !c.is_alphanumeric()) => {
                out.push_str(&format!("\\{}", c as u32));
                numeric_before = true;
            }
            c => out.push(c),
        }
    }
}

pub fn literal(l: &Literal) -> String {
    match l {
        Literal::Int(s) | Literal::Frac(s) => s.to_string(),
        Literal::Char(c) => {
            let mut out = String::from("'");
            escape_into(&mut out, &c.to_string(), '\'');
            out.push('\'');
            out
        }
        Literal::Str(s) => {
            let mut out = String::from("\"");
            escape_into(&mut out, s, '"');
            out.push('"');
            out
        }
    }
}

// ------------------------------------------------------------ multi-line

fn ml_expr(e: &Expr) -> bool {
    crate::stack::guard();
    match e {
        Expr::Case(..) | Expr::Do(..) => true,
        Expr::Let(ds, b, _) => ds.len() > 1 || ds.iter().any(ml_decl) || ml_expr(b),
        Expr::Var(_) | Expr::Con(_) | Expr::Lit(..) | Expr::Wildcard(_) => false,
        Expr::App(a, b, _) | Expr::BinOp(_, a, b, _) => ml_expr(a) || ml_expr(b),
        Expr::OpChain(items, _) => items
            .iter()
            .any(|i| matches!(i, ChainItem::Operand(e) if ml_expr(e))),
        Expr::Neg(e, _)
        | Expr::Lambda(_, e, _)
        | Expr::LeftSection(e, _, _)
        | Expr::RightSection(_, e, _)
        | Expr::Typed(e, _, _)
        | Expr::TypeApp(e, _, _)
        | Expr::Paren(e, _)
        | Expr::As(_, e, _)
        | Expr::Lazy(e, _)
        | Expr::Bang(e, _) => ml_expr(e),
        Expr::View(f, p, _) => ml_expr(f) || ml_expr(p),
        Expr::If(a, b, c, _) => ml_expr(a) || ml_expr(b) || ml_expr(c),
        Expr::Tuple(es, _) | Expr::List(es, _) => es.iter().any(ml_expr),
        Expr::Range { from, then, to, .. } => {
            ml_expr(from)
                || then.as_deref().is_some_and(ml_expr)
                || to.as_deref().is_some_and(ml_expr)
        }
        Expr::Comprehension(e, qs, _) => ml_expr(e) || qs.iter().any(ml_stmt),
        Expr::Record(e, fs, _, _) => ml_expr(e) || fs.iter().any(|(_, e)| ml_expr(e)),
    }
}

fn ml_stmt(s: &Stmt) -> bool {
    match s {
        Stmt::Bind(_, e, _) | Stmt::Expr(e) => ml_expr(e),
        Stmt::Let(ds, _) => ds.len() > 1 || ds.iter().any(ml_decl),
    }
}

fn ml_rhs(r: &Rhs) -> bool {
    !r.wheres.is_empty()
        || match &r.body {
            RhsBody::Plain(e) => ml_expr(e),
            RhsBody::Guarded(gs) => {
                gs.len() > 1
                    || gs
                        .iter()
                        .any(|g| ml_expr(&g.body) || g.guards.iter().any(ml_stmt))
            }
        }
}

fn ml_decl(d: &Decl) -> bool {
    match d {
        Decl::FunClause { rhs, .. } | Decl::PatBind { rhs, .. } => ml_rhs(rhs),
        Decl::Class(c) => !c.decls.is_empty(),
        Decl::Instance(i) => !i.decls.is_empty(),
        _ => false,
    }
}

// ------------------------------------------------------------ the printer

struct Printer {
    out: String,
    /// The column (0-based) continuation lines of the current item start at.
    indent: usize,
}

impl Printer {
    fn new() -> Printer {
        Printer {
            out: String::new(),
            indent: 0,
        }
    }

    fn finish(mut self) -> String {
        if !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        self.out
    }

    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// The current column (0-based).
    fn col(&self) -> usize {
        let start = self.out.rfind('\n').map_or(0, |i| i + 1);
        self.out[start..].chars().count()
    }

    /// A new line starting at column `col`.
    fn nl_at(&mut self, col: usize) {
        while self.out.ends_with(' ') {
            self.out.pop();
        }
        self.out.push('\n');
        for _ in 0..col {
            self.out.push(' ');
        }
    }

    fn blank_line(&mut self) {
        while self.out.ends_with(' ') {
            self.out.pop();
        }
        self.out.push('\n');
    }

    /// Runs `f` with continuation lines at `indent`.
    fn with_indent(&mut self, indent: usize, f: impl FnOnce(&mut Printer)) {
        let saved = std::mem::replace(&mut self.indent, indent);
        f(self);
        self.indent = saved;
    }

    /// After a prefix symbol (`-`, `\`) printed before position `at`, makes
    /// sure what follows does not lex together with it.
    fn separate_symbol(&mut self, at: usize) {
        if self.out[at..].starts_with(is_sym_char) {
            self.out.insert(at, ' ');
        }
    }

    // -------------------------------------------------------- modules

    fn module(&mut self, m: &Module) {
        let mut any = false;
        if let Some(name) = &m.name {
            self.s("module ");
            self.s(&name.name);
            if let Some(exports) = &m.exports {
                self.s(" (");
                self.entities(exports);
                self.s(")");
            }
            self.s(" where");
            any = true;
        }
        if !m.imports.is_empty() {
            if any {
                self.blank_line();
                self.nl_at(0);
            }
            for (k, i) in m.imports.iter().enumerate() {
                if k > 0 {
                    self.nl_at(0);
                }
                self.import(i);
            }
            any = true;
        }
        if !m.decls.is_empty() {
            if any {
                self.blank_line();
                self.nl_at(0);
            }
            self.top_decls(&m.decls);
        }
    }

    fn entities(&mut self, es: &[Entity]) {
        for (k, e) in es.iter().enumerate() {
            if k > 0 {
                self.s(", ");
            }
            match e {
                Entity::Var(q) => self.s(&name_str(q)),
                Entity::Type(q, subs) => {
                    self.s(&name_str(q));
                    match subs {
                        None => {}
                        Some(SubItems::All) => self.s("(..)"),
                        Some(SubItems::Some(items)) => {
                            let items: Vec<String> = items.iter().map(ident_str).collect();
                            self.s(&format!("({})", items.join(", ")));
                        }
                    }
                }
                Entity::Module(m) => {
                    self.s("module ");
                    self.s(&m.name);
                }
            }
        }
    }

    fn import(&mut self, i: &Import) {
        self.s("import ");
        if i.qualified {
            self.s("qualified ");
        }
        self.s(&i.module.name);
        if let Some(a) = &i.alias {
            self.s(" as ");
            self.s(&a.name);
        }
        if let Some((hiding, items)) = &i.items {
            self.s(if *hiding { " hiding (" } else { " (" });
            self.entities(items);
            self.s(")");
        }
    }

    /// Top-level declarations, a blank line between groups; the clauses of
    /// one function and its signature stay together.
    fn top_decls(&mut self, ds: &[Decl]) {
        let indent = self.indent;
        for (k, d) in ds.iter().enumerate() {
            if k > 0 {
                let together = match (&ds[k - 1], d) {
                    (Decl::FunClause { name: a, .. }, Decl::FunClause { name: b, .. }) => {
                        a.name == b.name
                    }
                    (Decl::Fixity { .. }, Decl::Fixity { .. }) => true,
                    (Decl::Sig { names, .. }, Decl::FunClause { name, .. }) => {
                        names.iter().any(|n| n.name == name.name)
                    }
                    (
                        Decl::Sig { names, .. },
                        Decl::PatBind {
                            pat: Pat::Var(v), ..
                        },
                    ) => names.iter().any(|n| n.name == v.name),
                    _ => false,
                };
                if !together {
                    self.blank_line();
                }
                self.nl_at(indent);
            }
            self.decl(d);
        }
    }

    /// Declarations of a block aligned at the current column.
    fn aligned_decls(&mut self, ds: &[Decl]) {
        let col = self.col();
        self.with_indent(col, |p| {
            for (k, d) in ds.iter().enumerate() {
                if k > 0 {
                    p.nl_at(col);
                }
                p.decl(d);
            }
        });
    }

    /// Declarations of a block on the following lines, at column `col`.
    fn block_decls(&mut self, ds: &[Decl], col: usize) {
        self.with_indent(col, |p| {
            for d in ds {
                p.nl_at(col);
                p.decl(d);
            }
        });
    }

    // -------------------------------------------------------- declarations

    fn decl(&mut self, d: &Decl) {
        match d {
            Decl::Sig { names, ty, .. } => {
                let names: Vec<String> = names.iter().map(ident_str).collect();
                self.s(&names.join(", "));
                self.s(" :: ");
                self.qual_type(ty);
            }
            Decl::Fixity {
                assoc, prec, ops, ..
            } => {
                self.s(match assoc {
                    Assoc::Left => "infixl ",
                    Assoc::Right => "infixr ",
                    Assoc::None => "infix ",
                });
                self.s(&prec.to_string());
                self.s(" ");
                let ops: Vec<String> = ops.iter().map(ident_op_str).collect();
                self.s(&ops.join(", "));
            }
            Decl::FunClause {
                name, args, rhs, ..
            } => {
                if is_operator_name(&name.name) && args.len() == 2 {
                    self.pat(&args[0], Lvl::Operand);
                    self.s(" ");
                    self.s(&name.name);
                    self.s(" ");
                    self.pat(&args[1], Lvl::Operand);
                } else {
                    self.s(&ident_str(name));
                    for a in args {
                        self.s(" ");
                        self.pat(a, Lvl::Arg);
                    }
                }
                self.rhs(rhs, "=");
            }
            Decl::PatBind { pat, rhs, .. } => {
                self.pat(pat, Lvl::Infix);
                self.rhs(rhs, "=");
            }
            Decl::Data(d) => self.data(d),
            Decl::TypeSyn {
                name, params, ty, ..
            } => {
                self.s("type ");
                let names: Vec<&str> = params.iter().map(|v| &*v.name).collect();
                self.s(&var_head(&name.name, &names));
                self.s(" = ");
                self.ty(ty, TLvl::Fun);
            }
            Decl::Class(c) => {
                self.s("class ");
                self.context(&c.context);
                let names: Vec<&str> = c.params().into_iter().map(|v| &*v.name).collect();
                self.s(&var_head(&c.name.name, &names));
                for (k, (from, to)) in c.fundeps.iter().enumerate() {
                    self.s(if k == 0 { " |" } else { "," });
                    for v in from {
                        self.s(" ");
                        self.s(&v.name);
                    }
                    self.s(" ->");
                    for v in to {
                        self.s(" ");
                        self.s(&v.name);
                    }
                }
                if !c.decls.is_empty() {
                    self.s(" where");
                    let col = self.indent + 2;
                    self.block_decls(&c.decls, col);
                }
            }
            Decl::Instance(i) => {
                self.s("instance ");
                self.context(&i.context);
                self.applied(&i.class, &i.ty);
                if !i.decls.is_empty() {
                    self.s(" where");
                    let col = self.indent + 2;
                    self.block_decls(&i.decls, col);
                }
            }
            Decl::Foreign { prim, name, ty, .. } => {
                self.s("foreign import prim ");
                self.s(&literal(&Literal::Str(prim.clone())));
                self.s(" ");
                self.s(&ident_str(name));
                self.s(" :: ");
                self.qual_type(ty);
            }
            Decl::Default { types, .. } => {
                self.s("default (");
                for (k, t) in types.iter().enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.ty(t, TLvl::Fun);
                }
                self.s(")");
            }
        }
    }

    fn data(&mut self, d: &DataDecl) {
        let mut head = String::from(if d.newtype { "newtype " } else { "data " });
        {
            let mut p = Printer::new();
            p.context(&d.context);
            head.push_str(&p.out);
        }
        let names: Vec<&str> = d.params.iter().map(|v| &*v.name).collect();
        head.push_str(&var_head(&d.name.name, &names));
        let cons: Vec<String> = d
            .constrs
            .iter()
            .map(|c| {
                let mut p = Printer::new();
                p.con_decl(c);
                p.out
            })
            .collect();
        let deriving = if d.deriving.is_empty() {
            None
        } else {
            let name = |q: &Derived| {
                let mut p = Printer::new();
                p.out.push_str(&q.class.to_string());
                for a in &q.args {
                    p.out.push(' ');
                    p.ty(a, TLvl::Arg);
                }
                p.out
            };
            let plain: Vec<String> = d
                .deriving
                .iter()
                .filter(|q| q.via.is_none())
                .map(name)
                .collect();
            let mut clauses = Vec::new();
            if !plain.is_empty() {
                clauses.push(format!("deriving ({})", plain.join(", ")));
            }
            // DerivingVia: a clause for each, with its type.
            for q in d.deriving.iter().filter(|q| q.via.is_some()) {
                let mut p = Printer::new();
                p.ty(q.via.as_ref().expect("a via type"), TLvl::Arg);
                clauses.push(format!("deriving ({}) via {}", name(q), p.out));
            }
            Some(clauses.join(" "))
        };
        let one_line = {
            let mut s = head.clone();
            if !cons.is_empty() {
                s.push_str(" = ");
                s.push_str(&cons.join(" | "));
            }
            if let Some(dv) = &deriving {
                s.push(' ');
                s.push_str(dv);
            }
            s
        };
        if self.indent + one_line.chars().count() <= 80 || cons.len() < 2 {
            self.s(&one_line);
            return;
        }
        self.s(&head);
        let col = self.indent + 2;
        for (k, c) in cons.iter().enumerate() {
            self.nl_at(col);
            self.s(if k == 0 { "= " } else { "| " });
            self.s(c);
        }
        if let Some(dv) = &deriving {
            self.nl_at(col);
            self.s(dv);
        }
    }

    fn con_decl(&mut self, c: &ConDecl) {
        if !c.exists.is_empty() {
            self.s("forall");
            for v in &c.exists {
                self.s(" ");
                self.s(&v.name);
            }
            self.s(". ");
        }
        self.context(&c.context);
        if c.infix && c.fields.len() == 2 {
            self.field(&c.fields[0], TLvl::App);
            self.s(" ");
            self.s(&ident_op_str(&c.name));
            self.s(" ");
            self.field(&c.fields[1], TLvl::App);
            return;
        }
        self.s(&ident_str(&c.name));
        match &c.labels {
            Some(labels) => {
                self.s(" {");
                for (k, (l, f)) in labels.iter().zip(&c.fields).enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.s(&ident_str(l));
                    self.s(" :: ");
                    self.field(f, TLvl::Fun);
                }
                self.s("}");
            }
            None => {
                for f in &c.fields {
                    self.s(" ");
                    self.field(f, TLvl::Arg);
                }
            }
        }
    }

    fn field(&mut self, f: &Field, lvl: TLvl) {
        if f.strict || f.lazy {
            self.s(if f.strict { "!" } else { "~" });
            self.ty(&f.ty, TLvl::Arg);
        } else {
            self.ty(&f.ty, lvl);
        }
    }

    fn rhs(&mut self, r: &Rhs, arrow: &str) {
        match &r.body {
            RhsBody::Plain(e) => {
                self.s(" ");
                self.s(arrow);
                self.s(" ");
                self.expr(e, Lvl::Top, true);
            }
            RhsBody::Guarded(gs) => {
                self.s(" ");
                let bar = self.col();
                self.with_indent(bar, |p| {
                    for (k, g) in gs.iter().enumerate() {
                        if k > 0 {
                            p.nl_at(bar);
                        }
                        p.s("| ");
                        for (j, q) in g.guards.iter().enumerate() {
                            if j > 0 {
                                p.s(", ");
                            }
                            p.stmt(q, true);
                        }
                        p.s(" ");
                        p.s(arrow);
                        p.s(" ");
                        p.expr(&g.body, Lvl::Top, true);
                    }
                });
            }
        }
        if !r.wheres.is_empty() {
            let col = self.indent + 2;
            self.nl_at(col);
            self.s("where");
            self.block_decls(&r.wheres, col + 2);
        }
    }

    // -------------------------------------------------------- types

    fn context(&mut self, ctx: &[Pred]) {
        match ctx {
            [] => {}
            [p] => {
                self.pred(p);
                self.s(" => ");
            }
            ps => {
                self.s("(");
                for (k, p) in ps.iter().enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.pred(p);
                }
                self.s(") => ");
            }
        }
    }

    fn pred(&mut self, p: &Pred) {
        self.applied(&p.class, &p.ty);
    }

    /// A class applied to its arguments: `C a b`, or an operator class
    /// between its two (`f :<: g`, TypeOperators).
    fn applied(&mut self, class: &QName, t: &Type) {
        let args = constraint_args(t);
        if is_operator_name(&class.name) && args.len() == 2 {
            self.ty(args[0], TLvl::App);
            self.s(" ");
            self.s(&class.to_string());
            self.s(" ");
            self.ty(args[1], TLvl::App);
        } else {
            self.s(&class.to_string());
            self.constraint_args(t);
        }
    }

    /// A constraint's or instance head's arguments: one type, or the
    /// several of a class of several parameters (`C a b`, not the
    /// `(#2) a b` it is stored as).
    fn constraint_args(&mut self, t: &Type) {
        for a in constraint_args(t) {
            self.s(" ");
            self.ty(a, TLvl::Arg);
        }
    }

    fn qual_type(&mut self, t: &QualType) {
        self.context(&t.context);
        self.ty(&t.ty, TLvl::Fun);
    }

    fn ty(&mut self, t: &Type, lvl: TLvl) {
        crate::stack::guard();
        let chain = type_chain_items(t);
        let own = match t {
            Type::Fun(..) | Type::Forall(..) => TLvl::Fun,
            // Type operators: below application, and in parentheses left
            // of an arrow too (read back, the same tree).
            Type::App(..) if chain.is_some() => TLvl::Fun,
            Type::App(..) => TLvl::App,
            _ => TLvl::Arg,
        };
        if own < lvl {
            self.s("(");
            self.ty(t, TLvl::Fun);
            self.s(")");
            return;
        }
        match t {
            Type::Var(v) => self.s(&v.name),
            Type::Con(q) => {
                if &*q.name == "->" || is_operator_name(&q.name) {
                    self.s("(");
                    self.s(&q.to_string());
                    self.s(")");
                } else {
                    self.s(&q.to_string());
                }
            }
            Type::App(..) if chain.is_some() => {
                for (k, item) in chain.unwrap_or_default().iter().enumerate() {
                    if k > 0 {
                        self.s(" ");
                    }
                    match item {
                        Type::Con(op) if k % 2 == 1 && is_operator_name(&op.name) => {
                            self.s(&op.to_string())
                        }
                        Type::Con(op) if k % 2 == 1 => {
                            self.s("`");
                            self.s(&op.to_string());
                            self.s("`");
                        }
                        t => self.ty(t, TLvl::App),
                    }
                }
            }
            Type::App(f, a, _) => {
                self.ty(f, TLvl::App);
                self.s(" ");
                self.ty(a, TLvl::Arg);
            }
            Type::Fun(a, b, _) => {
                self.ty(a, TLvl::App);
                self.s(" -> ");
                self.ty(b, TLvl::Fun);
            }
            Type::List(t, _) => {
                self.s("[");
                self.ty(t, TLvl::Fun);
                self.s("]");
            }
            Type::Tuple(ts, _) => {
                self.s("(");
                for (k, t) in ts.iter().enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.ty(t, TLvl::Fun);
                }
                self.s(")");
            }
            Type::Bang(t, _) => {
                self.s("!");
                self.ty(t, TLvl::Arg);
            }
            Type::Forall(q) => {
                self.s("forall");
                for v in &q.forall {
                    self.s(" ");
                    self.s(&v.name);
                }
                self.s(". ");
                self.qual_type(q);
            }
        }
    }

    // -------------------------------------------------------- patterns

    fn pat_lvl(p: &Pat) -> Lvl {
        match p {
            Pat::Typed(..) | Pat::View(..) => Lvl::Top,
            Pat::OpChain(..) | Pat::NegLit(..) => Lvl::Infix,
            Pat::Con(q, args, _) if args.len() == 2 && is_operator_name(&q.name) => Lvl::Infix,
            Pat::Con(_, args, _) if !args.is_empty() => Lvl::Fun,
            _ => Lvl::Arg,
        }
    }

    fn pat(&mut self, p: &Pat, lvl: Lvl) {
        crate::stack::guard();
        if Self::pat_lvl(p) < lvl {
            self.s("(");
            self.pat(p, Lvl::Top);
            self.s(")");
            return;
        }
        match p {
            Pat::Var(v) => self.s(&ident_str(v)),
            Pat::Wildcard(_) => self.s("_"),
            Pat::Lit(l, _) => self.s(&literal(l)),
            Pat::NegLit(l, _) => {
                self.s("-");
                self.s(&literal(l));
            }
            Pat::Con(q, args, _) if args.len() == 2 && is_operator_name(&q.name) => {
                self.pat(&args[0], Lvl::Fun);
                self.s(" ");
                self.s(&op_str(q));
                self.s(" ");
                self.pat(&args[1], Lvl::Fun);
            }
            Pat::Con(q, args, _) => {
                self.s(&name_str(q));
                for a in args {
                    self.s(" ");
                    self.pat(a, Lvl::Arg);
                }
            }
            Pat::OpChain(items, _) => {
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        self.s(" ");
                    }
                    match item {
                        ChainItem::Operand(p @ Pat::NegLit(..)) => self.pat(p, Lvl::Infix),
                        ChainItem::Operand(p) => self.pat(p, Lvl::Fun),
                        ChainItem::Op(q) => self.s(&op_str(q)),
                        ChainItem::Neg(_) => self.s("-"),
                    }
                }
            }
            Pat::Tuple(ps, _) => {
                self.s("(");
                for (k, p) in ps.iter().enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.pat(p, Lvl::Top);
                }
                self.s(")");
            }
            Pat::List(ps, _) => {
                self.s("[");
                for (k, p) in ps.iter().enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.pat(p, Lvl::Top);
                }
                self.s("]");
            }
            Pat::As(v, p, _) => {
                self.s(&v.name);
                self.s("@");
                self.prefixed_pat(p);
            }
            Pat::Lazy(p, _) => {
                self.s("~");
                self.prefixed_pat(p);
            }
            Pat::Bang(p, _) => {
                self.s("!");
                self.prefixed_pat(p);
            }
            Pat::Paren(p, _) => {
                self.s("(");
                self.pat(p, Lvl::Top);
                self.s(")");
            }
            Pat::Typed(p, t, _) => {
                self.pat(p, Lvl::Infix);
                self.s(" :: ");
                self.qual_type(t);
            }
            Pat::View(f, p, _) => {
                self.expr(f, Lvl::Infix, false);
                self.s(" -> ");
                self.pat(p, Lvl::Top);
            }
            Pat::Record(q, fs, rest, _) => {
                self.s(&name_str(q));
                self.s(" {");
                for (k, (f, p)) in fs.iter().enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.s(&name_str(f));
                    self.s(" = ");
                    self.pat(p, Lvl::Top);
                }
                self.rest_fields(fs.is_empty(), rest);
                self.s("}");
            }
        }
    }

    /// The pattern after `@`, `~` or `!`: an atom that does not start with a symbol.
    fn prefixed_pat(&mut self, p: &Pat) {
        if matches!(p, Pat::Lazy(..) | Pat::Bang(..)) {
            self.s("(");
            self.pat(p, Lvl::Top);
            self.s(")");
        } else {
            self.pat(p, Lvl::Arg);
        }
    }

    // -------------------------------------------------------- expressions

    /// Prints `e` where the context admits `lvl`; `open_ok` says whether
    /// the end of the enclosing construct may come right after it (so that
    /// a trailing lambda, `let`, `if` or layout block can stay unparenthesised).
    fn expr(&mut self, e: &Expr, lvl: Lvl, open_ok: bool) {
        crate::stack::guard();
        if expr_lvl(e) < lvl || (!open_ok && ends_open(e)) {
            self.s("(");
            self.expr(e, Lvl::Top, true);
            self.s(")");
            return;
        }
        match e {
            Expr::Var(q) | Expr::Con(q) => self.s(&name_str(q)),
            Expr::Lit(l, _) => self.s(&literal(l)),
            Expr::App(f, a, _) => {
                self.expr(f, Lvl::Fun, false);
                self.s(" ");
                self.expr(a, Lvl::Arg, false);
            }
            Expr::OpChain(items, _) => {
                let last = items
                    .iter()
                    .rposition(|i| matches!(i, ChainItem::Operand(_)));
                let mut glue = false;
                for (k, item) in items.iter().enumerate() {
                    if k > 0 && !glue {
                        self.s(" ");
                    }
                    glue = false;
                    match item {
                        ChainItem::Operand(x) => {
                            let at = self.out.len();
                            self.expr(x, Lvl::Operand, open_ok && Some(k) == last);
                            if k > 0 && matches!(items[k - 1], ChainItem::Neg(_)) {
                                self.separate_symbol(at);
                            }
                        }
                        ChainItem::Op(q) => self.s(&op_str(q)),
                        ChainItem::Neg(_) => {
                            self.s("-");
                            glue = true;
                        }
                    }
                }
            }
            Expr::BinOp(op, l, r, _) => {
                self.expr(l, Lvl::Operand, false);
                self.s(" ");
                self.s(&op_str(op));
                self.s(" ");
                self.expr(r, Lvl::Operand, open_ok);
            }
            Expr::Neg(x, _) => {
                self.s("-");
                let at = self.out.len();
                self.expr(x, Lvl::Operand, open_ok);
                self.separate_symbol(at);
            }
            Expr::Lambda(ps, body, _) => {
                self.s("\\");
                let at = self.out.len();
                for (k, p) in ps.iter().enumerate() {
                    if k > 0 {
                        self.s(" ");
                    }
                    self.pat(p, Lvl::Arg);
                }
                self.separate_symbol(at);
                self.s(" -> ");
                self.expr(body, Lvl::Top, true);
            }
            Expr::Let(ds, body, _) => {
                if ds.len() <= 1 && !ds.iter().any(ml_decl) && !ml_expr(body) {
                    self.s("let ");
                    if let Some(d) = ds.first() {
                        self.decl(d);
                        self.s(" ");
                    }
                    self.s("in ");
                    self.expr(body, Lvl::Top, true);
                } else {
                    let col = self.col();
                    self.s("let ");
                    self.aligned_decls(ds);
                    self.nl_at(col + 1);
                    self.s("in ");
                    self.with_indent(col + 1, |p| p.expr(body, Lvl::Top, true));
                }
            }
            Expr::If(c, t, f, _) => {
                if !ml_expr(c) && !ml_expr(t) && !ml_expr(f) {
                    self.s("if ");
                    self.expr(c, Lvl::Top, true);
                    self.s(" then ");
                    self.expr(t, Lvl::Top, true);
                    self.s(" else ");
                    self.expr(f, Lvl::Top, true);
                } else {
                    let col = self.indent + 2;
                    self.s("if ");
                    self.with_indent(col, |p| {
                        p.expr(c, Lvl::Top, true);
                        p.nl_at(col);
                        p.s("then ");
                        p.expr(t, Lvl::Top, true);
                        p.nl_at(col);
                        p.s("else ");
                        p.expr(f, Lvl::Top, true);
                    });
                }
            }
            Expr::Case(scrut, alts, _) => {
                self.s("case ");
                self.expr(scrut, Lvl::Top, true);
                self.s(" of");
                let col = self.indent + 2;
                self.with_indent(col, |p| {
                    for a in alts {
                        p.nl_at(col);
                        p.pat(&a.pat, Lvl::Infix);
                        p.rhs(&a.rhs, "->");
                    }
                });
            }
            Expr::Do(stmts, _) => {
                self.s("do");
                let col = self.indent + 2;
                self.with_indent(col, |p| {
                    for s in stmts {
                        p.nl_at(col);
                        p.stmt(s, false);
                    }
                });
            }
            Expr::Tuple(es, _) => {
                self.s("(");
                self.comma_exprs(es);
                self.s(")");
            }
            Expr::List(es, _) => {
                self.s("[");
                self.comma_exprs(es);
                self.s("]");
            }
            Expr::Range { from, then, to, .. } => {
                self.s("[");
                self.expr(from, Lvl::Top, then.is_some());
                if let Some(t) = then {
                    self.s(", ");
                    self.expr(t, Lvl::Top, false);
                }
                self.s(" ..");
                if let Some(t) = to {
                    self.s(" ");
                    self.expr(t, Lvl::Top, true);
                }
                self.s("]");
            }
            Expr::Comprehension(e, qs, _) => {
                self.s("[");
                self.expr(e, Lvl::Top, false);
                self.s(" | ");
                for (k, q) in qs.iter().enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.stmt(q, false);
                }
                self.s("]");
            }
            Expr::LeftSection(x, op, _) => {
                self.s("(");
                if matches!(**x, Expr::BinOp(..)) {
                    self.s("(");
                    self.expr(x, Lvl::Top, true);
                    self.s(")");
                } else {
                    self.expr(x, Lvl::Infix, false);
                }
                self.s(" ");
                self.s(&op_str(op));
                self.s(")");
            }
            Expr::RightSection(op, x, _) => {
                self.s("(");
                self.s(&op_str(op));
                self.s(" ");
                if matches!(**x, Expr::BinOp(..)) {
                    self.s("(");
                    self.expr(x, Lvl::Top, true);
                    self.s(")");
                } else {
                    self.expr(x, Lvl::Infix, true);
                }
                self.s(")");
            }
            Expr::Typed(x, t, _) => {
                self.expr(x, Lvl::Infix, false);
                self.s(" :: ");
                self.qual_type(t);
            }
            Expr::TypeApp(f, t, _) => {
                self.expr(f, Lvl::Fun, false);
                self.s(" @");
                match t {
                    Some(t) => self.ty(t, TLvl::Arg),
                    None => self.s("_"),
                }
            }
            Expr::Paren(x, _) => {
                self.s("(");
                self.expr(x, Lvl::Top, true);
                self.s(")");
            }
            Expr::Wildcard(_) => self.s("_"),
            Expr::As(v, x, _) => {
                self.s(&v.name);
                self.s("@");
                self.prefixed_expr(x);
            }
            Expr::Lazy(x, _) => {
                self.s("~");
                self.prefixed_expr(x);
            }
            Expr::Bang(x, _) => {
                self.s("!");
                self.prefixed_expr(x);
            }
            Expr::View(f, p, _) => {
                self.expr(f, Lvl::Infix, false);
                self.s(" -> ");
                self.expr(p, Lvl::Top, false);
            }
            Expr::Record(x, fs, rest, _) => {
                self.expr(x, Lvl::Arg, false);
                self.s(" {");
                for (k, (f, v)) in fs.iter().enumerate() {
                    if k > 0 {
                        self.s(", ");
                    }
                    self.s(&name_str(f));
                    self.s(" = ");
                    self.expr(v, Lvl::Top, true);
                }
                self.rest_fields(fs.is_empty(), rest);
                self.s("}");
            }
        }
    }

    /// The `..` that ends a record's fields (RecordWildCards).
    fn rest_fields(&mut self, first: bool, rest: &Option<crate::Span>) {
        if rest.is_some() {
            self.s(if first { ".." } else { ", .." });
        }
    }

    fn prefixed_expr(&mut self, x: &Expr) {
        if matches!(x, Expr::Lazy(..) | Expr::Bang(..)) {
            self.s("(");
            self.expr(x, Lvl::Top, true);
            self.s(")");
        } else {
            self.expr(x, Lvl::Arg, false);
        }
    }

    fn comma_exprs(&mut self, es: &[Expr]) {
        for (k, e) in es.iter().enumerate() {
            if k > 0 {
                self.s(", ");
            }
            self.expr(e, Lvl::Top, true);
        }
    }

    /// A statement of a `do` block or comprehension, or (`guard`) a guard
    /// qualifier, whose expressions must be closed.
    fn stmt(&mut self, s: &Stmt, guard: bool) {
        let (lvl, open) = if guard {
            (Lvl::Infix, false)
        } else {
            (Lvl::Top, true)
        };
        match s {
            Stmt::Bind(p, e, _) => {
                self.pat(p, Lvl::Infix);
                self.s(" <- ");
                self.expr(e, lvl, open);
            }
            Stmt::Let(ds, _) => {
                self.s("let ");
                self.aligned_decls(ds);
            }
            Stmt::Expr(e) => self.expr(e, lvl, open),
        }
    }
}

/// Whether a type or class is named by an operator (TypeOperators):
/// `:+:`, `~>`; not `[]`, a tuple, `->` or the internal `(#2)`.
pub fn is_operator_name(n: &str) -> bool {
    n.chars()
        .next()
        .is_some_and(|c| !c.is_alphanumeric() && c != '_' && c != '(' && c != '[' && c != ' ')
        && n != "->"
}

/// The operands and operators of a chain of type operators (the parser's
/// `parse::TYPE_CHAIN`), if the type is one.
fn type_chain_items(t: &Type) -> Option<&[Type]> {
    match t {
        Type::App(f, a, _) if crate::parse::is_internal_con(f, crate::parse::TYPE_CHAIN) => {
            match &**a {
                Type::Tuple(items, _) => Some(items),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A declaration's head: its name and parameters, an operator name between
/// its first two (`a :*: b`, `(f :+: g) e`).
fn var_head(name: &str, params: &[&str]) -> String {
    if is_operator_name(name) && params.len() >= 2 {
        let infix = format!("{} {name} {}", params[0], params[1]);
        if params.len() == 2 {
            infix
        } else {
            format!("({infix}) {}", params[2..].join(" "))
        }
    } else {
        std::iter::once(name)
            .chain(params.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::{SourceFile, Span};

    fn parse(src: &str) -> Module {
        let file = SourceFile::new("test.gph", src);
        let (m, diags) = crate::parse_file(&file);
        let errors: Vec<String> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{}: {}", file.locate(d.span), d.message))
            .collect();
        assert!(errors.is_empty(), "parse errors in\n{src}\n{errors:#?}");
        m.expect("a module")
    }

    /// Prints, parses the printout and prints again: the two must agree.
    fn round_trip(src: &str) -> String {
        let once = module(&parse(src));
        let twice = module(&parse(&once));
        assert_eq!(once, twice, "not a fixed point; source:\n{src}");
        once
    }

    #[test]
    fn fixed_points() {
        let snippets = [
            "main = print (1 + 2 * 3)",
            "f x = let y = x + 1 in y * y",
            "f x = let y = 1; z = 2 in y + z",
            "main = do\n  let x = 1\n      y = 2\n  print (x + y)\n  mapM_ print [x, y]",
            "f x = case x of\n  Just y | y > 0, even y -> y\n         | otherwise -> 0\n  Nothing -> -1",
            "g xs = [ (x, y) | x <- xs, let y = x * x, odd y ]",
            "h = (+ 1) . (2 *) . (`div` 3) . (subtract 4)",
            "k = \\x y -> if x then y else not y",
            "r = ([1 ..], [1, 3 ..], [1 .. 10], [1, 3 .. 9])",
            "s = \"a\\nb\\\"c\\\\\" ++ ['\\'', '\\t', 'x', '\\0'] ++ \"\\1234\\&5\"",
            "module Main (main, T(..), f) where\nimport Data.List (sort, nub)\nimport qualified Data.Char as C\nmain = print (sort (map C.ord \"ba\"))",
            "data T a = L | N (T a) a !(T a) deriving (Show, Eq)\ndata P = Int :+: Int\nnewtype W = W { unW :: Int }\ntype S = [Int]",
            "f :: (Ord a, Show a) => a -> [a] -> String\nf x ys\n  | x `elem` ys = show x\n  | otherwise = \"\"\n  where\n    z = 1",
            "infixl 6 <+>\n(<+>) :: Int -> Int -> Int\nx <+> y = x + y\n(Just a) <+> b = a",
            "main = mapM_ (\\x -> do\n  print x\n  print (x * 2)) [1, 2, 3]",
            "main = forM_ xs $ \\x -> do\n  print x\n  where xs = [1, 2]",
            "f x = (case x of\n  1 -> 2\n  _ -> 3) + 4",
            "main = do\n  if True\n    then putStrLn \"a\"\n    else do\n      putStrLn \"b\"\n      putStrLn \"c\"",
            "f (x:xs) = x : f xs\nf [] = []\ng xs@(_:_) ~(a, b) = (xs, a, b)\nh (-1) = 0\nh n = n",
            "t = (1 :: Int, [] :: [Int], (\\x -> x) 2)",
            "u = - x + y\nv = negate (-3)\nw = f (- 2) - - 3",
            "class Eq a => C a where\n  m :: a -> a\n  m x = x\ninstance C Int where\n  m = id",
            "main = do\n  x <- return 1\n  let f y = case y of\n        0 -> 1\n        n -> n * f (n - 1)\n  print (f x)",
            "q = M.foldr (M.+) 0 [x M.+ y, a `M.div` b]",
            "z = let in 1\nzz = let a = let b = 1 in b in a",
            "f x | let y = x, y > 0 = y\n    | otherwise = 0",
            "e = [if x then 1 else 2 | x <- [True], let y = 1\n                                           z = 2]",
            "foreign import prim \"intAdd\" primIntAdd :: Int -> Int -> Int\ndefault (Integer, Double)",
        ];
        for s in snippets {
            round_trip(s);
        }
    }

    #[test]
    fn readable_output() {
        assert_eq!(
            round_trip("main=do{x<-getLine;if null x then return () else do{putStrLn x;main}}"),
            "main = do\n  x <- getLine\n  if null x\n    then return ()\n    else do\n      putStrLn x\n      main\n"
        );
        assert_eq!(
            round_trip("f x = case x of { Just y -> y; Nothing -> 0 } where { z = 1 }"),
            "f x = case x of\n  Just y -> y\n  Nothing -> 0\n  where\n    z = 1\n"
        );
        assert_eq!(
            round_trip("f = (\\x -> x) (case 1 of _ -> 2) (let y = 1 in y)"),
            "f = (\\x -> x) (case 1 of\n  _ -> 2) (let y = 1 in y)\n"
        );
        assert_eq!(round_trip("x = f (-1) - -2"), "x = f (-1) - -2\n");
    }

    fn v(n: &str) -> Expr {
        Expr::Var(QName::unqual(n.into(), Span::default()))
    }

    fn bin(op: &str, l: Expr, r: Expr) -> Expr {
        Expr::BinOp(
            QName::unqual(op.into(), Span::default()),
            Box::new(l),
            Box::new(r),
            Span::default(),
        )
    }

    #[test]
    fn binop_trees_show_their_structure() {
        let e = bin("+", v("a"), bin("*", v("b"), v("c")));
        assert_eq!(expr(&e), "a + (b * c)\n");
        let e = bin("-", bin("-", v("a"), v("b")), v("c"));
        assert_eq!(expr(&e), "(a - b) - c\n");
        let app = Expr::App(Box::new(v("f")), Box::new(v("x")), Span::default());
        let e = bin("div", app, Expr::Neg(Box::new(v("y")), Span::default()));
        assert_eq!(expr(&e), "f x `div` (-y)\n");
        let lam = Expr::Lambda(
            vec![Pat::Var(Ident {
                name: "x".into(),
                span: Span::default(),
            })],
            Box::new(v("x")),
            Span::default(),
        );
        let e = bin("$", v("f"), lam.clone());
        assert_eq!(expr(&e), "f $ \\x -> x\n");
        let e = bin("$", lam, v("y"));
        assert_eq!(expr(&e), "(\\x -> x) $ y\n");
        let q = QName {
            qual: Some("Prelude".into()),
            name: "&&".into(),
            span: Span::default(),
        };
        let e = Expr::BinOp(q, Box::new(v("p")), Box::new(v("q")), Span::default());
        assert_eq!(expr(&e), "p Prelude.&& q\n");
    }
}
