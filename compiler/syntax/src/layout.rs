//! The layout pass (Haskell 2010 section 10.3): turns indentation into virtual
//! braces and semicolons (`Tok::VLBrace`, `Tok::VSemi`, `Tok::VRBrace`).
//!
//! It runs over the token stream with an explicit context stack and never talks
//! to the parser. The report's parse-error(t) clause, which closes an implicit
//! block when the parser would otherwise fail, is replaced by closing rules for
//! the tokens that end a construct:
//!
//! * `)` `]` and an explicit `}` close the implicit blocks opened since the
//!   matching open bracket (`(case x of A -> 1)`, `[x | let y = 1]`).
//! * `,` closes the implicit blocks opened since the innermost open bracket
//!   or guard, unless it separates guards (`| p, q ->`) of the innermost block
//!   (`[f y | x <- xs, let y = x, odd y]`, `(case x of A -> 1, 2)`,
//!   `f x | let y = x, y > 0 = ...`); so does the `..` of an arithmetic
//!   sequence (`[case c of _ -> 1 ..]`).
//! * `|` closes `case`, `let` and `where` blocks whose current item already
//!   has an unguarded right-hand side (`[case c of _ -> 0 | c <- s]`), and
//!   `do` blocks (`[do a; b | c <- s]`).
//! * The `=` of a clause's guard and the `->` of a case alternative's guard
//!   close a `let` block that is a qualifier of that guard, once its current
//!   binding has its own `=` (`f x | let y = x = y`,
//!   `Just n | let k = n -> k`). A lambda's `->` does not (`\` is tracked).
//! * `in` closes the implicit blocks up to and including the innermost `let`
//!   block, if one is open since the last bracket (`let x = 1 in x + x`),
//!   except after the `}` of `let { .. }` (its own), and when it starts a
//!   line whose dedent has already closed a `let` block: then that block
//!   was its own (`let a = 2` / `    b = 3` / ` in a`
//!   nested in another `let` must not close the outer one).
//! * `then` and `else` close the implicit blocks opened since their `if`
//!   (`if c then do a else b`); `of` likewise since its `case`.
//! * `where` closes implicit `do` blocks, and `case` blocks when it stands
//!   where the next alternative would (a `where` after a `do` or `case` body
//!   belongs to the enclosing declaration).
//! * No virtual `;` is inserted before `then` or `else`, so `if`/`then`/`else`
//!   may line up inside a `do` block (Haskell 2010's DoAndIfThenElse).
//! * `if` directly followed by `|` (MultiWayIf) opens a block of guards,
//!   as GHC lays them out.
//! * A `do` block may start at the column of the enclosing block, as with
//!   GHC's NondecreasingIndentation (`if c then a else do` with the
//!   statements lined up under the `if`).
//! * A line of a `do` block or of case alternatives that starts with an
//!   infix operator or a backquoted name at the block's column ends the
//!   block instead (`main = do ...` then `` `catch` h `` lined up with the
//!   statements): no statement or alternative starts that way.
//!
//! Residual restriction: a `,` directly inside a `let` block that is itself
//! inside brackets (`(let a, b :: Int; ... in ...)`) ends the block; write the
//! signatures separately there.

use crate::lexer::{Tok, Token};
use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Top,
    Let,
    Where,
    Do,
    Of,
}

#[derive(Clone, Debug)]
enum Ctx {
    /// A block opened by indentation, at this column.
    Implicit {
        col: usize,
        kind: BlockKind,
        in_guard: bool,
        /// The current item has a plain right-hand side (`=`, or in a case
        /// alternative `->`, seen with no guard).
        plain_rhs: bool,
    },
    /// A block opened by an explicit `{` after a layout keyword.
    Explicit { kind: BlockKind },
    /// An open `(`, `[` or a `{` that is not a block.
    Bracket,
    /// An `if` waiting for its `then`/`else`.
    If,
    /// A `case` waiting for its `of`.
    Case,
    /// A lambda waiting for its `->`.
    Lambda,
}

impl Ctx {
    /// A new item of a block (after a `;`, virtual or not): no guard, no
    /// right-hand side yet.
    fn start_item(&mut self) {
        if let Ctx::Implicit {
            in_guard,
            plain_rhs,
            ..
        } = self
        {
            *in_guard = false;
            *plain_rhs = false;
        }
    }
}

struct Layout {
    /// Global position of the end of the text.
    end: u32,
    /// The dedent at the current token closed a `let` block.
    dedent_closed_let: bool,
    /// The last token was the `}` of a `let { .. }` (`closed_explicit_let`
    /// while it is the current token).
    after_explicit_let: bool,
    closed_explicit_let: bool,
    out: Vec<Token>,
    stack: Vec<Ctx>,
}

/// Column (1-based, tabs to multiples of 8) and line of each token's start.
fn positions(text: &str, base: u32, tokens: &[Token]) -> Vec<(usize, usize)> {
    let mut res = Vec::with_capacity(tokens.len());
    let (mut line, mut col, mut at) = (1usize, 1usize, 0usize);
    for t in tokens {
        let target = (t.span.start - base) as usize;
        for ch in text[at..target].chars() {
            match ch {
                '\n' => {
                    line += 1;
                    col = 1;
                }
                '\t' => col += 8 - (col - 1) % 8,
                _ => col += 1,
            }
        }
        at = target;
        res.push((line, col));
    }
    res
}

impl Layout {
    fn virt(&mut self, tok: Tok, at: Span) {
        self.out.push(Token {
            tok,
            span: at.point(),
        });
    }

    /// Column of the innermost layout block (0 for an explicit one or none).
    fn enclosing_col(&self) -> usize {
        for c in self.stack.iter().rev() {
            match c {
                Ctx::Implicit { col, .. } => return *col,
                Ctx::Explicit { .. } => return 0,
                _ => {}
            }
        }
        0
    }

    /// Index of the innermost layout block, skipping brackets and markers.
    fn innermost_block(&self) -> Option<usize> {
        self.stack
            .iter()
            .rposition(|c| matches!(c, Ctx::Implicit { .. } | Ctx::Explicit { .. }))
    }

    fn close_top(&mut self, at: Span) {
        self.stack.pop();
        self.virt(Tok::VRBrace, at);
    }

    /// Closes implicit blocks on top of the stack while `pred` says so.
    fn close_while(&mut self, at: Span, mut pred: impl FnMut(&Ctx) -> bool) {
        while let Some(top) = self.stack.last() {
            if matches!(top, Ctx::Implicit { .. }) && pred(top) {
                self.close_top(at);
            } else {
                break;
            }
        }
    }

    /// The beginning of a line at column `col`: Haskell's `<n>` rule.
    fn new_line(&mut self, tok: &Token, col: usize) {
        while let Some(i) = self.innermost_block() {
            let Ctx::Implicit { col: m, .. } = self.stack[i] else {
                return;
            };
            if col == m && continues_expression(&tok.tok) && closes_on_operator(&self.stack[i]) {
                // A `do` statement or case alternative cannot start with an
                // infix operator: the line goes on the expression the block
                // ends (`main = do ...` / `  \`catch\` h`), as the report's
                // parse-error(t) rule has it.
                self.stack.truncate(i + 1);
                self.close_top(tok.span);
            } else if col == m {
                if !matches!(tok.tok, Tok::Then | Tok::Else) {
                    self.stack[i].start_item();
                    self.virt(Tok::VSemi, tok.span);
                }
                return;
            } else if col < m {
                // Brackets or markers opened inside the block end with it.
                self.stack.truncate(i + 1);
                if matches!(
                    self.stack[i],
                    Ctx::Implicit {
                        kind: BlockKind::Let,
                        ..
                    }
                ) {
                    self.dedent_closed_let = true;
                }
                self.close_top(tok.span);
            } else {
                return;
            }
        }
    }

    /// The closing rules that stand in for parse-error(t).
    fn close_for(&mut self, tok: &Token) {
        let at = tok.span;
        match tok.tok {
            Tok::RParen | Tok::RBracket => {
                self.close_while(at, |_| true);
                // Stray markers from unfinished `if`/`case`/lambda end with the bracket.
                while matches!(self.stack.last(), Some(Ctx::If | Ctx::Case | Ctx::Lambda)) {
                    self.stack.pop();
                }
                if matches!(self.stack.last(), Some(Ctx::Bracket)) {
                    self.stack.pop();
                }
            }
            Tok::RBrace => {
                self.close_while(at, |_| true);
                while matches!(self.stack.last(), Some(Ctx::If | Ctx::Case | Ctx::Lambda)) {
                    self.stack.pop();
                }
                match self.stack.last() {
                    Some(Ctx::Explicit { kind }) => {
                        self.closed_explicit_let = *kind == BlockKind::Let;
                        self.stack.pop();
                    }
                    Some(Ctx::Bracket) => {
                        self.stack.pop();
                    }
                    _ => {}
                }
            }
            // `..` ends an element the way `,` does (`[case c of _ -> 1 ..]`).
            Tok::Comma | Tok::DotDot => {
                // Close the blocks opened since the innermost bracket or guard.
                let stop = self.stack.iter().rposition(|c| {
                    !matches!(
                        c,
                        Ctx::Implicit {
                            in_guard: false,
                            ..
                        }
                    )
                });
                if stop
                    .is_some_and(|i| matches!(self.stack[i], Ctx::Bracket | Ctx::Implicit { .. }))
                {
                    self.close_while(at, |c| !matches!(c, Ctx::Implicit { in_guard: true, .. }));
                }
            }
            Tok::Bar => {
                // A guard cannot follow a plain right-hand side, and a `do`
                // statement has none: the `|` belongs to an enclosing
                // construct (`[case c of _ -> 0 | c <- s]`, `[do a; b | c <- s]`).
                self.close_while(at, |c| {
                    matches!(
                        c,
                        Ctx::Implicit {
                            plain_rhs: true,
                            kind: BlockKind::Of | BlockKind::Let | BlockKind::Where,
                            ..
                        } | Ctx::Implicit {
                            kind: BlockKind::Do,
                            ..
                        }
                    )
                });
            }
            Tok::Equals | Tok::RArrow => {
                // A `let` guard qualifier ends at the guard's `=` (in a clause)
                // or `->` (in a case alternative) once its binding has its own `=`.
                let n = self.stack.len();
                if n >= 2 {
                    if let (
                        Ctx::Implicit {
                            kind: BlockKind::Let,
                            plain_rhs: true,
                            ..
                        },
                        Ctx::Implicit {
                            kind: parent,
                            in_guard: true,
                            ..
                        },
                    ) = (&self.stack[n - 1], &self.stack[n - 2])
                    {
                        let ends_guard = if *parent == BlockKind::Of {
                            Tok::RArrow
                        } else {
                            Tok::Equals
                        };
                        if tok.tok == ends_guard {
                            self.close_top(at);
                        }
                    }
                }
            }
            // The `in` of `let { .. }`, whose block its `}` closed.
            Tok::In if self.dedent_closed_let || self.after_explicit_let => {}
            Tok::In => {
                let has_let = self
                    .stack
                    .iter()
                    .rev()
                    .take_while(|c| matches!(c, Ctx::Implicit { .. }))
                    .any(|c| {
                        matches!(
                            c,
                            Ctx::Implicit {
                                kind: BlockKind::Let,
                                ..
                            }
                        )
                    });
                if has_let {
                    let mut done = false;
                    self.close_while(at, |c| {
                        let go = !done;
                        done = matches!(
                            c,
                            Ctx::Implicit {
                                kind: BlockKind::Let,
                                ..
                            }
                        );
                        go
                    });
                }
            }
            Tok::Then | Tok::Else | Tok::Of => {
                let marker_below = self
                    .stack
                    .iter()
                    .rev()
                    .find(|c| !matches!(c, Ctx::Implicit { .. }))
                    .is_some_and(|c| match tok.tok {
                        Tok::Of => matches!(c, Ctx::Case),
                        _ => matches!(c, Ctx::If),
                    });
                if marker_below {
                    self.close_while(at, |_| true);
                    if !matches!(tok.tok, Tok::Then) {
                        self.stack.pop();
                    }
                }
            }
            Tok::Where => loop {
                let just_semi = matches!(
                    self.out.last(),
                    Some(Token {
                        tok: Tok::VSemi,
                        ..
                    })
                );
                match self.stack.last() {
                    Some(Ctx::Implicit {
                        kind: BlockKind::Do,
                        ..
                    }) => {}
                    Some(Ctx::Implicit {
                        kind: BlockKind::Of,
                        ..
                    }) if just_semi => {}
                    _ => break,
                }
                if just_semi {
                    self.out.pop();
                }
                self.close_top(at);
            },
            _ => {}
        }
    }

    /// Opens a block after a layout keyword, looking at the token that follows.
    fn open_block(&mut self, kind: BlockKind, next: Option<(&Token, usize)>) -> bool {
        match next {
            Some((t, _)) if t.tok == Tok::LBrace => {
                self.stack.push(Ctx::Explicit { kind });
                self.out.push(t.clone());
                true
            }
            Some((t, col)) => {
                self.virt(Tok::VLBrace, t.span);
                // GHC's NondecreasingIndentation (on by default in GHC 9.0):
                // a `do` block may start at the column of the block around
                // it (`else do` with the statements lined up below).
                let enclosing = self.enclosing_col();
                if col > enclosing
                    || (kind == BlockKind::Do && col == enclosing && enclosing > 0)
                    || (kind == BlockKind::Top && self.stack.is_empty())
                {
                    self.stack.push(Ctx::Implicit {
                        col,
                        kind,
                        in_guard: false,
                        plain_rhs: false,
                    });
                } else {
                    self.virt(Tok::VRBrace, t.span);
                }
                false
            }
            None => {
                let end = Span {
                    start: self.end,
                    end: self.end,
                };
                self.virt(Tok::VLBrace, end);
                self.virt(Tok::VRBrace, end);
                false
            }
        }
    }

    fn after(&mut self, tok: &Tok) {
        match tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => self.stack.push(Ctx::Bracket),
            Tok::If => self.stack.push(Ctx::If),
            Tok::Case => self.stack.push(Ctx::Case),
            Tok::Backslash => self.stack.push(Ctx::Lambda),
            Tok::RArrow if matches!(self.stack.last(), Some(Ctx::Lambda)) => {
                self.stack.pop();
            }
            // An explicit `;` starts a new item, as a virtual one does.
            Tok::Semi => {
                if let Some(c) = self.stack.last_mut() {
                    c.start_item();
                }
            }
            Tok::Bar | Tok::Equals | Tok::RArrow => {
                if let Some(Ctx::Implicit {
                    in_guard,
                    plain_rhs,
                    kind,
                    ..
                }) = self.stack.last_mut()
                {
                    // (Only a case alternative's right-hand side follows
                    // `->`; elsewhere it is a type's or a lambda's arrow:
                    // `let f :: Show t => Int -> t -> Int; f n x = 0 in ..`
                    // in a guard lost its binding to the second arrow.)
                    let rhs = *tok == Tok::Equals || *kind == BlockKind::Of;
                    if *tok != Tok::Bar && !*in_guard && rhs {
                        *plain_rhs = true;
                    }
                    *in_guard = *tok == Tok::Bar;
                }
            }
            _ => {}
        }
    }
}

fn block_keyword(tok: &Tok) -> Option<BlockKind> {
    match tok {
        Tok::Let => Some(BlockKind::Let),
        Tok::Where => Some(BlockKind::Where),
        Tok::Do => Some(BlockKind::Do),
        Tok::Of => Some(BlockKind::Of),
        _ => None,
    }
}

/// Inserts the virtual braces and semicolons of the layout rule.
/// `base` is the global position of the text's start (see `SourceMap`).
pub fn layout(text: &str, base: u32, tokens: &[Token]) -> Vec<Token> {
    let pos = positions(text, base, tokens);
    let end_pos = base + text.len() as u32;
    let mut l = Layout {
        end: end_pos,
        dedent_closed_let: false,
        after_explicit_let: false,
        closed_explicit_let: false,
        out: Vec::with_capacity(tokens.len() * 5 / 4),
        stack: Vec::new(),
    };
    let mut pending: Option<BlockKind> = None;
    let mut i = 0;
    // A module without a header is one implicit top-level block.
    if tokens.first().is_none_or(|t| t.tok != Tok::Module) {
        pending = Some(BlockKind::Top);
    }
    let mut prev_line = 0;
    while i < tokens.len() {
        let tok = &tokens[i];
        let (line, col) = pos[i];
        let first_on_line = line != prev_line;
        prev_line = line;
        let mut skip_newline_rule = false;
        if let Some(kind) = pending.take() {
            // `module M where` opens the top block; so does the first token.
            let kind = if kind == BlockKind::Where && l.stack.is_empty() {
                BlockKind::Top
            } else {
                kind
            };
            let depth = l.stack.len();
            if l.open_block(kind, Some((tok, col))) {
                i += 1;
                continue;
            }
            // The token begins the block just opened: no `;` before it. An
            // empty block (`class C a where` with the next declaration
            // below) opened none, and the token goes on the enclosing one.
            skip_newline_rule = l.stack.len() > depth
                && matches!(l.stack.last(), Some(Ctx::Implicit { col: c, .. }) if *c == col);
        }
        l.dedent_closed_let = false;
        l.after_explicit_let = std::mem::take(&mut l.closed_explicit_let);
        if first_on_line && !skip_newline_rule {
            l.new_line(tok, col);
        }
        l.close_for(tok);
        l.out.push(tok.clone());
        if tok.tok == Tok::If && tokens.get(i + 1).is_some_and(|t| t.tok == Tok::Bar) {
            // A multi-way if (MultiWayIf): its guards are a layout block,
            // as in GHC, so that a `|` lined up below goes on the `if`.
            pending = Some(BlockKind::Of);
        } else if tok.tok == Tok::Case && i > 0 && tokens[i - 1].tok == Tok::Backslash {
            // `\case` (LambdaCase): the alternatives' block opens at once,
            // and the lambda has no arrow of its own.
            if matches!(l.stack.last(), Some(Ctx::Lambda)) {
                l.stack.pop();
            }
            pending = Some(BlockKind::Of);
        } else {
            l.after(&tok.tok);
            pending = block_keyword(&tok.tok);
        }
        i += 1;
    }
    if let Some(kind) = pending {
        l.open_block(kind, None);
    }
    let end = Span {
        start: end_pos,
        end: end_pos,
    };
    while let Some(c) = l.stack.pop() {
        if matches!(c, Ctx::Implicit { .. }) {
            l.virt(Tok::VRBrace, end);
        }
    }
    l.out
}

/// Prints a token stream one source line per line, virtual tokens marked with `v`.
pub fn show_tokens(text: &str, base: u32, tokens: &[Token]) -> String {
    let mut out = String::new();
    let mut line = 0;
    let mut starts = vec![0usize];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    for t in tokens {
        let l = starts.partition_point(|&s| s <= (t.span.start - base) as usize);
        if l != line {
            if line != 0 {
                out.push('\n');
            }
            out.push_str(&format!("{l:4}: "));
            line = l;
        } else {
            out.push(' ');
        }
        out.push_str(&t.tok.to_string());
    }
    out.push('\n');
    out
}

/// Whether a token can only continue an expression (an infix operator,
/// a backquoted name), never start a statement or an alternative. `-`
/// (negation), `!` and `~` (patterns) can start one.
fn continues_expression(t: &Tok) -> bool {
    matches!(
        t,
        Tok::VarSym(_) | Tok::ConSym(_) | Tok::QVarSym(_) | Tok::QConSym(_) | Tok::Backquote
    )
}

/// The blocks a line starting with an infix operator ends: `do` blocks
/// and case alternatives.
fn closes_on_operator(c: &Ctx) -> bool {
    matches!(
        c,
        Ctx::Implicit {
            kind: BlockKind::Do | BlockKind::Of,
            ..
        }
    )
}
