//! The last step of a module: replaces the placeholders of the elaborated
//! tree by their final form, now that every type and dictionary is known:
//! evidence holes by dictionaries, recursive references by applications to
//! their group's dictionary parameters, numeric literals by primitive
//! literals (at `Int`, `Integer`, `Double`) or `fromInteger`/`fromRational`
//! applications.

use super::elab::*;
use super::tc::{Pending, Tc, PRELUDE, PRIM};
use super::ty::{Global, Ty, Type};
use gph_syntax::ast::Literal;
use gph_syntax::lexer::Sym;
use gph_syntax::Span;
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// The primitive type a literal has, if its type is one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PrimNum {
    Int,
    Integer,
    Double,
}

/// Wraps an integer to 64 bits, as `fromInteger :: Integer -> Int` does.
pub fn wrap_i64(v: &BigInt) -> i64 {
    let m: BigInt = BigInt::one() << 64;
    let mut r = v % &m;
    if r.is_negative() {
        r += &m;
    }
    r.to_u64().unwrap_or(0) as i64
}

fn gcd(a: &BigInt, b: &BigInt) -> BigInt {
    let (mut a, mut b) = (a.abs(), b.abs());
    while !b.is_zero() {
        let r = &a % &b;
        a = b;
        b = r;
    }
    a
}

/// The exact value of a fractional literal (`1.5`, `2e-3`, `1.0E+10`) as a
/// fraction in lowest terms.
pub fn parse_rational(text: &str) -> (BigInt, BigInt) {
    let (mant, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits: BigInt = format!("{int}{frac}").parse().unwrap_or_default();
    let scale = exp - frac.len() as i64;
    let ten = BigInt::from(10);
    let (n, d) = if scale >= 0 {
        (
            digits * num_traits::pow(ten, scale.min(100_000) as usize),
            BigInt::one(),
        )
    } else {
        (digits, num_traits::pow(ten, (-scale).min(100_000) as usize))
    };
    let g = gcd(&n, &d);
    if g.is_zero() || g.is_one() {
        (n, d)
    } else {
        (n / &g, d / &g)
    }
}

impl Tc {
    fn prim_num(&mut self, t: &Type) -> Option<PrimNum> {
        let h = self.table.head(t);
        let Ty::Con(c) = h.ty() else { return None };
        let name = &self.env.tycon(*c).name;
        if &*name.module != PRIM {
            return None;
        }
        match &*name.name {
            "Int" => Some(PrimNum::Int),
            "Integer" => Some(PrimNum::Integer),
            "Double" => Some(PrimNum::Double),
            _ => None,
        }
    }

    fn resolve_dict(&mut self, d: &Dict, depth: u32) -> Dict {
        gph_syntax::stack::guard();
        match d {
            // A hole met again while its own dictionary is being built: the
            // dictionary refers to itself (`simplify` shares a constraint
            // solved once by an instance), and becomes a recursive binding.
            Dict::Hole(h) if self.dict_visiting.contains(h) => {
                self.dict_recursive.insert(*h);
                Dict::Var(Sym::from(format!("$drec{h}").as_str()))
            }
            Dict::Hole(h) => match self.holes.get(*h as usize).cloned().flatten() {
                Some(x) if depth < 10_000 => {
                    self.dict_visiting.push(*h);
                    let r = self.resolve_dict(&x, depth + 1);
                    self.dict_visiting.pop();
                    if self.dict_recursive.remove(h) {
                        Dict::Rec(Sym::from(format!("$drec{h}").as_str()), Box::new(r))
                    } else {
                        r
                    }
                }
                _ => Dict::Var(Sym::from("$missing")),
            },
            Dict::Rec(n, x) => Dict::Rec(n.clone(), Box::new(self.resolve_dict(x, depth + 1))),
            Dict::Var(_) => d.clone(),
            Dict::Inst(g, args) => Dict::Inst(
                g.clone(),
                args.iter()
                    .map(|a| self.resolve_dict(a, depth + 1))
                    .collect(),
            ),
            Dict::Super(x, c, i) => {
                Dict::Super(Box::new(self.resolve_dict(x, depth + 1)), c.clone(), *i)
            }
            Dict::Typeable(g, args) => Dict::Typeable(
                g.clone(),
                args.iter()
                    .map(|a| self.resolve_dict(a, depth + 1))
                    .collect(),
            ),
        }
    }

    fn method(&mut self, name: &str, hole: u32, span: Span) -> Expr {
        let d = self.resolve_dict(&Dict::Hole(hole), 0);
        Expr::app(
            Expr::global(Global::new(PRELUDE, name), span),
            Expr::Dict(d),
            span,
        )
    }

    /// An integer literal as an expression of type `ty`.
    fn int_literal(&mut self, value: &BigInt, ty: &Type, hole: u32, span: Span) -> Expr {
        match self.prim_num(ty) {
            Some(PrimNum::Int) => Expr::Lit(Lit::Int(wrap_i64(value)), span),
            Some(PrimNum::Integer) => Expr::Lit(Lit::Integer(value.clone()), span),
            Some(PrimNum::Double) => {
                Expr::Lit(Lit::Double(value.to_string().parse().unwrap_or(0.0)), span)
            }
            None => {
                let f = self.method("fromInteger", hole, span);
                Expr::app(f, Expr::Lit(Lit::Integer(value.clone()), span), span)
            }
        }
    }

    fn frac_literal(
        &mut self,
        text: &str,
        negative: bool,
        ty: &Type,
        hole: u32,
        span: Span,
    ) -> Expr {
        if self.prim_num(ty) == Some(PrimNum::Double) {
            let v: f64 = text.parse().unwrap_or(0.0);
            return Expr::Lit(Lit::Double(if negative { -v } else { v }), span);
        }
        let (n, d) = parse_rational(text);
        let f = self.method("fromRational", hole, span);
        let lit = Expr::app(f, Expr::Lit(Lit::Rational(n, d), span), span);
        if negative {
            let neg = self.method("negate", hole, span);
            // `negate` wants a Num dictionary: the Fractional one's superclass.
            let neg = match neg {
                Expr::App(f, d, s) => match *d {
                    Expr::Dict(dict) => {
                        Expr::App(f, Box::new(Expr::Dict(self.num_of_fractional(dict))), s)
                    }
                    other => Expr::App(f, Box::new(other), s),
                },
                other => other,
            };
            Expr::app(neg, lit, span)
        } else {
            lit
        }
    }

    /// The `Num` superclass of a `Fractional` dictionary.
    fn num_of_fractional(&self, d: Dict) -> Dict {
        let Some(frac) = self.prelude_class("Fractional") else {
            return d;
        };
        let Some(num) = self.prelude_class("Num") else {
            return d;
        };
        for (c, path) in self.env.super_closure(frac) {
            if c == num {
                let mut x = d;
                for (via, k) in path {
                    x = Dict::Super(Box::new(x), self.env.class(via).name.clone(), k);
                }
                return x;
            }
        }
        d
    }

    fn resolve_pending_expr(&mut self, id: u32) -> Expr {
        let Some(p) = self.pending.get(id as usize).cloned() else {
            return Expr::Tuple(Vec::new(), Span::default());
        };
        match p {
            Pending::RecRef { name, group, span } => {
                let params = self.groups.get(group as usize).cloned().unwrap_or_default();
                params.into_iter().fold(Expr::Var(name, span), |e, p| {
                    Expr::app(e, Expr::Dict(Dict::Var(p)), span)
                })
            }
            Pending::Int {
                value,
                ty,
                hole,
                span,
            } => self.int_literal(&value, &ty, hole, span),
            Pending::Frac {
                text,
                ty,
                hole,
                span,
            } => self.frac_literal(&text, false, &ty, hole, span),
            Pending::PatNum { .. } | Pending::PatStr { .. } => {
                Expr::Tuple(Vec::new(), Span::default())
            }
        }
    }

    fn resolve_pending_pat(&mut self, id: u32, span: Span) -> Pat {
        if let Some(Pending::PatStr {
            text,
            ty,
            eq,
            string,
            span,
        }) = self.pending.get(id as usize).cloned()
        {
            // At String (a list whose element is Char) the plain match.
            let list = self.known.list;
            let is_string = match self.table.prune(&ty).ty() {
                Ty::App(f, a) => {
                    let (f, a) = (f.clone(), a.clone());
                    matches!(self.table.head(&f).ty(), Ty::Con(c) if Some(*c) == list)
                        && matches!(self.table.head(&a).ty(), Ty::Con(c)
                            if &*self.env.tycon(*c).name.name == "Char"
                                && &*self.env.tycon(*c).name.module == PRIM)
                }
                _ => false,
            };
            if is_string {
                return Pat::Lit(Lit::Str(text), span);
            }
            let from = self.method("fromString", string, span);
            let value = Expr::app(from, Expr::Lit(Lit::Str(text), span), span);
            let eq = self.method("==", eq, span);
            return Pat::Overloaded {
                eq: Box::new(eq),
                value: Box::new(value),
                span,
            };
        }
        let Some(Pending::PatNum {
            lit,
            negative,
            ty,
            eq,
            num,
            span,
        }) = self.pending.get(id as usize).cloned()
        else {
            return Pat::Wildcard(span);
        };
        let prim = self.prim_num(&ty);
        match (&lit, prim) {
            (Literal::Int(digits), Some(p)) => {
                let mut v: BigInt = digits.parse().unwrap_or_default();
                if negative {
                    v = -v;
                }
                let l = match p {
                    PrimNum::Int => Lit::Int(wrap_i64(&v)),
                    PrimNum::Integer => Lit::Integer(v),
                    PrimNum::Double => Lit::Double(v.to_string().parse().unwrap_or(0.0)),
                };
                Pat::Lit(l, span)
            }
            (Literal::Frac(text), Some(PrimNum::Double)) => {
                let v: f64 = text.parse().unwrap_or(0.0);
                Pat::Lit(Lit::Double(if negative { -v } else { v }), span)
            }
            _ => {
                let value = match &lit {
                    Literal::Int(digits) => {
                        let v: BigInt = digits.parse().unwrap_or_default();
                        let e = self.int_literal(&v, &ty, num, span);
                        if negative {
                            let neg = self.method("negate", num, span);
                            Expr::app(neg, e, span)
                        } else {
                            e
                        }
                    }
                    Literal::Frac(text) => self.frac_literal(text, negative, &ty, num, span),
                    _ => Expr::Tuple(Vec::new(), span),
                };
                let eq = self.method("==", eq, span);
                Pat::Overloaded {
                    eq: Box::new(eq),
                    value: Box::new(value),
                    span,
                }
            }
        }
    }

    pub fn finish_module(&mut self, m: &mut Module) {
        for b in &mut m.binds {
            self.fin_binding(b);
        }
        for i in &mut m.instances {
            for d in &mut i.supers {
                *d = self.resolve_dict(d, 0);
            }
            for b in &mut i.methods {
                self.fin_binding(b);
            }
        }
    }

    fn fin_binding(&mut self, b: &mut Binding) {
        match b {
            Binding::Fun { clauses, .. } => {
                for c in clauses {
                    for p in &mut c.args {
                        self.fin_pat(p);
                    }
                    self.fin_rhs(&mut c.rhs);
                }
            }
            Binding::Pat { pat, rhs, .. } => {
                self.fin_pat(pat);
                self.fin_rhs(rhs);
            }
        }
    }

    fn fin_rhs(&mut self, r: &mut Rhs) {
        for b in &mut r.wheres {
            self.fin_binding(b);
        }
        match &mut r.body {
            RhsBody::Plain(e) => self.fin_expr(e),
            RhsBody::Guarded(gs) => {
                for g in gs {
                    self.fin_stmts(&mut g.guards);
                    self.fin_expr(&mut g.body);
                }
            }
        }
    }

    fn fin_stmts(&mut self, ss: &mut [Stmt]) {
        for s in ss {
            match s {
                Stmt::Bind(p, e, _) => {
                    self.fin_pat(p);
                    self.fin_expr(e);
                }
                Stmt::Let(bs, _) => bs.iter_mut().for_each(|b| self.fin_binding(b)),
                Stmt::Expr(e) => self.fin_expr(e),
            }
        }
    }

    fn fin_expr(&mut self, e: &mut Expr) {
        gph_syntax::stack::guard();
        match e {
            Expr::Pending(id) => {
                let mut r = self.resolve_pending_expr(*id);
                // A pending form may itself contain dictionaries to resolve.
                self.fin_expr(&mut r);
                *e = r;
            }
            Expr::Dict(d) => *d = self.resolve_dict(d, 0),
            Expr::Var(..) | Expr::Con(..) | Expr::Lit(..) | Expr::NoMethod(..) => {}
            Expr::App(..) => {
                // Long application spines are iterated, not recursed into.
                let mut cur: &mut Expr = e;
                while let Expr::App(f, a, _) = cur {
                    self.fin_expr(a);
                    cur = f;
                }
                self.fin_expr(cur);
            }
            Expr::Lambda(ps, b, _) => {
                ps.iter_mut().for_each(|p| self.fin_pat(p));
                self.fin_expr(b);
            }
            Expr::Let(bs, b, _) => {
                bs.iter_mut().for_each(|x| self.fin_binding(x));
                self.fin_expr(b);
            }
            Expr::If(c, t, f, _) => {
                self.fin_expr(c);
                self.fin_expr(t);
                self.fin_expr(f);
            }
            Expr::Case(s, alts, _) => {
                self.fin_expr(s);
                for a in alts {
                    self.fin_pat(&mut a.pat);
                    self.fin_rhs(&mut a.rhs);
                }
            }
            Expr::Tuple(es, _) | Expr::List(es, _) => es.iter_mut().for_each(|x| self.fin_expr(x)),
            Expr::Comprehension(b, ss, _) => {
                self.fin_expr(b);
                self.fin_stmts(ss);
            }
        }
    }

    fn fin_pat(&mut self, p: &mut Pat) {
        gph_syntax::stack::guard();
        match p {
            Pat::Pending(id, span) => {
                let mut r = self.resolve_pending_pat(*id, *span);
                if let Pat::Overloaded { eq, value, .. } = &mut r {
                    self.fin_expr(eq);
                    self.fin_expr(value);
                }
                *p = r;
            }
            Pat::Con(_, ps, _) | Pat::Tuple(ps, _) | Pat::List(ps, _) => {
                ps.iter_mut().for_each(|x| self.fin_pat(x))
            }
            Pat::As(_, x, _) | Pat::Lazy(x, _) | Pat::Bang(x, _) => self.fin_pat(x),
            Pat::Overloaded { eq, value, .. } => {
                self.fin_expr(eq);
                self.fin_expr(value);
            }
            Pat::View(f, x, _) => {
                self.fin_expr(f);
                self.fin_pat(x);
            }
            Pat::Var(..) | Pat::Wildcard(_) | Pat::Lit(..) => {}
        }
    }
}
