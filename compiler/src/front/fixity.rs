//! Fixity resolution (Haskell 2010 section 10.6): turns the parser's flat
//! operator chains into trees, once the renamer knows which operator each
//! name refers to and so its declared fixity.
//!
//! An explicit operator stack (shunting-yard) rather than the report's
//! recursive formulation, so that a chain of 100,000 `++` cannot overflow the
//! native stack; the accept/reject decisions are the report's: equal
//! precedences must agree on a direction, and a prefix `-` (precedence 6,
//! left) may only follow an operator of lower precedence.

use gph_syntax::ast::{Assoc, ChainItem, QName};
use gph_syntax::{Diagnostic, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixity {
    pub assoc: Assoc,
    pub prec: u8,
}

impl Fixity {
    pub const DEFAULT: Fixity = Fixity {
        assoc: Assoc::Left,
        prec: 9,
    };
    pub const NEGATION: Fixity = Fixity {
        assoc: Assoc::Left,
        prec: 6,
    };
}

fn assoc_name(a: Assoc) -> &'static str {
    match a {
        Assoc::Left => "infixl",
        Assoc::Right => "infixr",
        Assoc::None => "infix",
    }
}

fn describe(op: Option<&QName>, f: Fixity) -> String {
    match op {
        Some(q) => format!("`{}` [{} {}]", q.name, assoc_name(f.assoc), f.prec),
        None => format!("prefix `-` [{} {}]", assoc_name(f.assoc), f.prec),
    }
}

/// What a resolved chain is built from: the caller supplies how to make a
/// binary application and a negation of its operand type.
pub trait Operand: Sized {
    fn span(&self) -> Span;
    fn binary(op: QName, l: Self, r: Self) -> Self;
    fn negate(minus: Span, e: Self) -> Result<Self, Diagnostic>;
}

/// Resolves a chain. `fixity` gives each operator's fixity.
pub fn resolve<T: Operand>(
    items: Vec<ChainItem<T>>,
    fixity: &dyn Fn(&QName) -> Fixity,
) -> Result<T, Diagnostic> {
    // Operators waiting for their right operand: Some(op) or None for negation.
    let mut ops: Vec<(Option<QName>, Fixity, Span)> = Vec::new();
    let mut out: Vec<T> = Vec::new();
    fn reduce<T: Operand>(
        out: &mut Vec<T>,
        op: Option<QName>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        gph_syntax::stack::guard();
        let r = out
            .pop()
            .ok_or_else(|| Diagnostic::error(span, "operator is missing an operand"))?;
        let e = match op {
            None => T::negate(span, r)?,
            Some(op) => {
                let l = out
                    .pop()
                    .ok_or_else(|| Diagnostic::error(span, "operator is missing an operand"))?;
                T::binary(op, l, r)
            }
        };
        out.push(e);
        Ok(())
    }
    for item in items {
        match item {
            ChainItem::Operand(e) => out.push(e),
            ChainItem::Neg(span) => {
                if let Some((prev, f, _)) = ops.last() {
                    if f.prec >= 6 {
                        return Err(Diagnostic::error(
                            span,
                            format!("cannot mix {} and prefix `-` [infixl 6] in the same infix expression", describe(prev.as_ref(), *f)),
                        )
                        .with_help("use parentheses, like `a * (-b)`"));
                    }
                }
                ops.push((None, Fixity::NEGATION, span));
            }
            ChainItem::Op(op) => {
                let f2 = fixity(&op);
                while let Some((prev, f1, _)) = ops.last() {
                    if f1.prec == f2.prec && (f1.assoc != f2.assoc || f1.assoc == Assoc::None) {
                        return Err(Diagnostic::error(
                            op.span,
                            format!(
                                "precedence parsing error: cannot mix {} and {} in the same infix expression",
                                describe(prev.as_ref(), *f1),
                                describe(Some(&op), f2)
                            ),
                        )
                        .with_help("add parentheses to say which operator applies first"));
                    }
                    if f1.prec > f2.prec || (f1.prec == f2.prec && f1.assoc == Assoc::Left) {
                        let (prev, _, span) = ops.pop().expect("nonempty");
                        reduce(&mut out, prev, span)?;
                    } else {
                        break;
                    }
                }
                let span = op.span;
                ops.push((Some(op), f2, span));
            }
        }
    }
    while let Some((op, _, span)) = ops.pop() {
        reduce(&mut out, op, span)?;
    }
    match (out.pop(), out.is_empty()) {
        (Some(e), true) => Ok(e),
        _ => Err(Diagnostic::error(
            Span::default(),
            "malformed operator expression",
        )),
    }
}
