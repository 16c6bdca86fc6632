//! A bound on how deeply a program nests, checked on the laid-out tokens
//! before parsing.
//!
//! The compiler's passes recurse over the syntax tree and Core; they run on
//! a large stack with a guard (`crate::stack`), so deep programs compile
//! (a 10,000-operand `++` chain, 10,000 nested applications) and a program
//! too deep for that stack is stopped cleanly. This check rejects the
//! pathological ones earlier and with a location: more than
//! [`MAX_NESTING`] levels ("expression nested too deeply"), before any tree
//! is built. GHC accepts deeper programs still, but no program written by a
//! person comes near (the deepest path in the Prelude, the library and the
//! test corpus is 55).
//!
//! The bound is computed on tokens, so it is cheap and needs no tree: every
//! level of the syntax tree consumes at least one token other than an
//! infix operator, so the depth of a tree is at most the number of such
//! tokens on a path from the root that does not cross a separator.
//! Concretely, each bracket (`(`, `[`, `{` and the layout rule's virtual
//! `{`) opens a level that starts from the count so far; within a level,
//! the count grows by one per token (operator symbols and backquotes
//! excepted: an operand is a level of a chain, its operator is not) and
//! restarts at a separator (`,`, `;`, the layout rule's `;`, or a guard's
//! `|`), since what those separate are siblings, not nested in each other;
//! and after `then`/`else`, `of`, `in` and a lambda's `->` it restarts from
//! the count of their `if`, `case`, `let` or `\\`, whose children follow.

use crate::diag::Diagnostic;
use crate::lexer::{Tok, Token};

/// The largest nesting bound accepted. A debug build of the compiler needs
/// a few KB of stack per level in its deepest pass, so this leaves room on
/// the 1 GiB stack of `crate::stack` for the constructs that nest deeper
/// in Core than in the source.
#[cfg(not(target_arch = "wasm32"))]
pub const MAX_NESTING: usize = 100_000;

/// The browser build runs the compiler on the page's worker stack (about
/// 1 MB, which the page cannot enlarge) without the guard: a smaller bound,
/// still far above what people write (docs/web.md).
#[cfg(target_arch = "wasm32")]
pub const MAX_NESTING: usize = 1_000;

/// Checks the nesting bound of a laid-out token stream; the error points at
/// the first token beyond the limit.
pub fn check(tokens: &[Token]) -> Result<(), Diagnostic> {
    match deepest(tokens, MAX_NESTING) {
        None => Ok(()),
        Some(i) => Err(
            Diagnostic::error(tokens[i].span, "expression nested too deeply")
                .with_label(format!(
                    "more than {MAX_NESTING} levels of nesting at this point"
                ))
                .with_help("split the expression: name its parts with `let` or `where`"),
        ),
    }
}

/// The nesting bound of each token (see the module documentation), as the
/// largest over the stream.
pub fn bound(tokens: &[Token]) -> usize {
    let mut max = 0;
    walk(tokens, |_, depth| {
        max = max.max(depth);
        false
    });
    max
}

/// Index of the first token whose bound exceeds `limit`.
fn deepest(tokens: &[Token], limit: usize) -> Option<usize> {
    walk(tokens, |_, depth| depth > limit)
}

/// Calls `f(index, bound)` for each token until it returns true.
fn walk(tokens: &[Token], mut f: impl FnMut(usize, usize) -> bool) -> Option<usize> {
    // For each open bracket: the level's base and its count before the bracket.
    let mut open: Vec<(usize, usize)> = Vec::new();
    // Keywords waiting for their continuation (`if` for `then`/`else`, `case`
    // for `of`, `let` for `in`, `\` for `->`): bracket level, keyword, count.
    let mut marks: Vec<(usize, Tok, usize)> = Vec::new();
    let (mut base, mut count) = (0usize, 0usize);
    for (i, t) in tokens.iter().enumerate() {
        let level = open.len();
        match &t.tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace | Tok::VLBrace => {
                count += 1;
                if f(i, base + count) {
                    return Some(i);
                }
                open.push((base, count));
                base += count;
                count = 0;
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace | Tok::VRBrace => {
                if let Some((b, c)) = open.pop() {
                    base = b;
                    count = c;
                }
                // Keywords inside the bracket end with it.
                let l = open.len();
                marks.retain(|m| m.0 <= l);
            }
            Tok::Comma | Tok::Semi | Tok::VSemi | Tok::Bar => {
                count = 0;
                marks.retain(|m| m.0 < level);
            }
            Tok::If | Tok::Case | Tok::Let | Tok::Backslash => {
                count += 1;
                if f(i, base + count) {
                    return Some(i);
                }
                marks.push((level, t.tok.clone(), count));
            }
            // What follows these is a child of the construct their keyword
            // began, not nested in what came before them.
            Tok::Then | Tok::Else | Tok::Of | Tok::In | Tok::RArrow => {
                let opener = match t.tok {
                    Tok::Then | Tok::Else => Tok::If,
                    Tok::Of => Tok::Case,
                    Tok::In => Tok::Let,
                    _ => Tok::Backslash,
                };
                match marks.last() {
                    Some((l, k, c)) if *l == level && *k == opener => {
                        count = *c;
                        if t.tok != Tok::Then {
                            marks.pop();
                        }
                    }
                    _ => {
                        count += 1;
                        if f(i, base + count) {
                            return Some(i);
                        }
                    }
                }
            }
            // An infix operator is not a level of the tree its chain becomes.
            Tok::VarSym(_)
            | Tok::ConSym(_)
            | Tok::QVarSym(_)
            | Tok::QConSym(_)
            | Tok::Colon
            | Tok::Backquote => {}
            _ => {
                count += 1;
                if f(i, base + count) {
                    return Some(i);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound_of(src: &str) -> usize {
        let (tokens, _) = crate::lexer::lex(src, 0);
        let laid = crate::layout::layout(src, 0, &tokens);
        bound(&laid)
    }

    #[test]
    fn bounds() {
        assert_eq!(bound_of("x = 1"), 4); // v{ x = 1
        assert_eq!(bound_of("x = ((1))"), 6);
        assert_eq!(bound_of("x = [1, 2, 3, 4, 5, 6, 7, 8]"), 5);
        assert_eq!(bound_of("x = f a b c"), 7);
        assert_eq!(bound_of("x = 1 : 2 : 3 : []"), 7);
        assert_eq!(bound_of("x = a `f` b `f` c"), 8);
        let n = MAX_NESTING + 1;
        let deep = format!("x = {}1{}", "(".repeat(n), ")".repeat(n));
        assert!(bound_of(&deep) > MAX_NESTING);
    }
}
