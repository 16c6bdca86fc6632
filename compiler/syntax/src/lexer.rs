//! The lexer: Haskell 2010 lexemes (as far as gph uses them) with byte spans.
//!
//! Comments and pragmas are skipped here; the layout pass works on what is left.

use crate::diag::Diagnostic;
use crate::span::Span;
use logos::{Logos, Skip};
use std::fmt;
use std::rc::Rc;

/// An interned-enough identifier or literal text.
pub type Sym = Rc<str>;

#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexError {
    #[default]
    BadChar,
    UnterminatedComment,
    UnterminatedString,
    BadEscape(String),
    BadCharLiteral,
}

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f\v]+")]
pub enum Tok {
    // Comments: `--` (any number of dashes) not followed by a symbol, and nested `{- -}`.
    #[regex(r"--+([^!#$%&*+./<=>?@\\^|~:\n][^\n]*)?", logos::skip, priority = 10)]
    #[token("{-", nested_comment)]
    Comment,

    // Keywords.
    #[token("case")]
    Case,
    #[token("class")]
    Class,
    #[token("data")]
    Data,
    #[token("default")]
    Default,
    #[token("deriving")]
    Deriving,
    #[token("do")]
    Do,
    #[token("else")]
    Else,
    #[token("foreign")]
    Foreign,
    #[token("if")]
    If,
    #[token("import")]
    Import,
    #[token("in")]
    In,
    #[token("infix")]
    Infix,
    #[token("infixl")]
    Infixl,
    #[token("infixr")]
    Infixr,
    #[token("instance")]
    Instance,
    #[token("let")]
    Let,
    #[token("module")]
    Module,
    #[token("newtype")]
    Newtype,
    #[token("of")]
    Of,
    #[token("then")]
    Then,
    #[token("type")]
    Type,
    #[token("where")]
    Where,
    #[token("_")]
    Underscore,
    // Special only in some places; the grammar also accepts them as variables.
    #[token("qualified")]
    Qualified,
    #[token("as")]
    As,
    #[token("hiding")]
    Hiding,

    // Reserved operators.
    #[token("..")]
    DotDot,
    #[token(":")]
    Colon,
    #[token("::")]
    DColon,
    #[token("=")]
    Equals,
    #[token("\\")]
    Backslash,
    #[token("|")]
    Bar,
    #[token("<-")]
    LArrow,
    #[token("->")]
    RArrow,
    #[token("@")]
    At,
    #[token("~")]
    Tilde,
    #[token("=>")]
    DArrow,
    // `-` and `!` are ordinary operators that the grammar also uses for negation and strictness.
    #[token("-")]
    Minus,
    #[token("!")]
    Bang,
    /// `!` as a bang pattern or strictness mark: a `!` after white space or
    /// an opening bracket and before a non-space (GHC 9.0's rule for a
    /// prefix occurrence, with or without BangPatterns: without it, the
    /// parser reports the bang pattern); made by `lex`, not by logos.
    PrefixBang,
    /// `@` in prefix position (`f @Int`): a visible type application.
    PrefixAt,
    /// `-` in prefix position right before a digit, with NegativeLiterals:
    /// the sign of a negative literal (`f -1` is `f (-1)`, `-1 \`mod\` 3`
    /// is `(-1) \`mod\` 3`, GHC 9.0's rule).
    PrefixMinus,
    /// `forall` before type variables and a `.` (`forall a b. t`): made by
    /// `lex`, so that `forall` stays a plain variable name elsewhere.
    Forall,

    // Special characters.
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("`")]
    Backquote,

    // Virtual tokens, inserted by the layout pass, never produced by the lexer.
    VLBrace,
    VSemi,
    VRBrace,

    // Names and operators may use any Unicode letter, digit or symbol, as
    // the Haskell report's uniSmall, uniLarge, uniDigit and uniSymbol
    // (`café`, `λ`, `x₁`, `∘`); the qualified forms stay ASCII.
    #[regex(r"[\p{Ll}_][\p{L}\p{N}\p{Mn}_']*", |lex| Sym::from(lex.slice()), priority = 1)]
    VarId(Sym),
    #[regex(r"[\p{Lu}\p{Lt}][\p{L}\p{N}\p{Mn}_']*", |lex| Sym::from(lex.slice()))]
    ConId(Sym),
    #[regex(r"([A-Z][A-Za-z0-9_']*\.)+[a-z_][A-Za-z0-9_']*", |lex| qualified(lex.slice()))]
    QVarId((Sym, Sym)),
    #[regex(r"([A-Z][A-Za-z0-9_']*\.)+[A-Z][A-Za-z0-9_']*", |lex| qualified(lex.slice()))]
    QConId((Sym, Sym)),
    #[regex(r"([!#$%&*+./<=>?@\\^|~-]|[\p{S}\p{P}&&[^\x00-\x7F]])([!#$%&*+./<=>?@\\^|~:-]|[\p{S}\p{P}&&[^\x00-\x7F]])*", |lex| Sym::from(lex.slice()), priority = 1)]
    VarSym(Sym),
    #[regex(r":([!#$%&*+./<=>?@\\^|~:-]|[\p{S}\p{P}&&[^\x00-\x7F]])*", |lex| Sym::from(lex.slice()), priority = 1)]
    ConSym(Sym),
    #[regex(r"([A-Z][A-Za-z0-9_']*\.)+[!#$%&*+./<=>?@\\^|~-][!#$%&*+./<=>?@\\^|~:-]*", |lex| qualified(lex.slice()))]
    QVarSym((Sym, Sym)),
    #[regex(r"([A-Z][A-Za-z0-9_']*\.)+:[!#$%&*+./<=>?@\\^|~:-]*", |lex| qualified(lex.slice()))]
    QConSym((Sym, Sym)),

    /// Integer literal, kept as decimal digits (arbitrary precision).
    /// Underscores between digits (NumericUnderscores) and binary literals
    /// (BinaryLiterals) are lexed always and refused in `lex` when the
    /// file does not ask for them, so the message can name the extension.
    #[regex(r"[0-9](_*[0-9])*", |lex| radix(lex.slice(), 10))]
    #[regex(r"0[xX]_*[0-9a-fA-F](_*[0-9a-fA-F])*", |lex| radix(&lex.slice()[2..], 16))]
    #[regex(r"0[oO]_*[0-7](_*[0-7])*", |lex| radix(&lex.slice()[2..], 8))]
    #[regex(r"0[bB]_*[01](_*[01])*", |lex| radix(&lex.slice()[2..], 2))]
    Integer(Sym),
    /// Fractional literal, kept as written (less any underscores).
    #[regex(r"[0-9](_*[0-9])*\.[0-9](_*[0-9])*(_*[eE][+-]?[0-9](_*[0-9])*)?", |lex| Sym::from(lex.slice().replace('_', "")))]
    #[regex(r"[0-9](_*[0-9])*_*[eE][+-]?[0-9](_*[0-9])*", |lex| Sym::from(lex.slice().replace('_', "")))]
    Float(Sym),
    #[regex(r"'([^'\\\n]|\\[^\n][^'\n]*)'", char_literal)]
    Char(char),
    #[regex(r#""([^"\\\n]|\\[^\n]|\\[ \t\r\n]+\\)*""#, string_literal)]
    #[regex(r#""[^"\n]*"#, unterminated_string)]
    String(Sym),
}

fn qualified(s: &str) -> (Sym, Sym) {
    // The qualifier ends at the first dot after which the name starts (a lower-case
    // letter, an underscore, a symbol, or the last upper-case identifier).
    let mut split = 0;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_uppercase() {
        let mut j = i;
        while j < bytes.len()
            && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_' || bytes[j] == b'\'')
        {
            j += 1;
        }
        if j < bytes.len() && bytes[j] == b'.' && j + 1 < bytes.len() {
            split = j;
            i = j + 1;
        } else {
            break;
        }
    }
    (Sym::from(&s[..split]), Sym::from(&s[split + 1..]))
}

fn radix(digits: &str, radix: u32) -> Sym {
    let digits = digits.replace('_', "");
    if radix == 10 {
        return Sym::from(digits);
    }
    let n = num_bigint::BigUint::parse_bytes(digits.as_bytes(), radix).unwrap_or_default();
    Sym::from(n.to_string())
}

fn nested_comment(lex: &mut logos::Lexer<Tok>) -> Result<Skip, LexError> {
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    let mut depth = 1usize;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"{-") {
            depth += 1;
            i += 2;
        } else if bytes[i..].starts_with(b"-}") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                lex.bump(i);
                return Ok(Skip);
            }
        } else {
            i += 1;
        }
    }
    lex.bump(rest.len());
    Err(LexError::UnterminatedComment)
}

const ASCII_NAMES: [&str; 34] = [
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
    "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
    "FS", "GS", "RS", "US", "SP", "DEL",
];

/// Decodes one escape after a backslash; returns the char (None for `\&`) and the bytes used.
fn escape(s: &str) -> Result<(Option<char>, usize), LexError> {
    let bad = || LexError::BadEscape(s.chars().take(4).collect());
    let c = s.chars().next().ok_or_else(bad)?;
    let simple = match c {
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'f' => Some('\x0c'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\x0b'),
        '\\' => Some('\\'),
        '"' => Some('"'),
        '\'' => Some('\''),
        _ => None,
    };
    if let Some(ch) = simple {
        return Ok((Some(ch), 1));
    }
    if c == '&' {
        return Ok((None, 1));
    }
    if c == '^' {
        let d = s[1..].chars().next().ok_or_else(bad)?;
        if ('@'..='_').contains(&d) {
            return Ok((Some(char::from(d as u8 - b'@')), 2));
        }
        return Err(bad());
    }
    let number =
        |digits: &str, radix: u32, skip: usize| -> Result<(Option<char>, usize), LexError> {
            let n = digits.chars().take_while(|d| d.is_digit(radix)).count();
            if n == 0 {
                return Err(bad());
            }
            let v = u32::from_str_radix(&digits[..n], radix).map_err(|_| bad())?;
            let ch = char::from_u32(v).ok_or_else(bad)?;
            Ok((Some(ch), skip + n))
        };
    if c.is_ascii_digit() {
        return number(s, 10, 0);
    }
    if c == 'x' {
        return number(&s[1..], 16, 1);
    }
    if c == 'o' {
        return number(&s[1..], 8, 1);
    }
    // Longest match: SOH before SO.
    let mut best: Option<(usize, usize)> = None;
    for (i, name) in ASCII_NAMES.iter().enumerate() {
        if s.starts_with(name) && best.is_none_or(|(_, l)| name.len() > l) {
            best = Some((i, name.len()));
        }
    }
    match best {
        Some((i, len)) => {
            let code = match i {
                32 => 32,
                33 => 127,
                _ => i as u32,
            };
            Ok((char::from_u32(code), len))
        }
        None => Err(bad()),
    }
}

fn decode(body: &str) -> Result<String, LexError> {
    let mut out = String::new();
    let mut rest = body;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        // A gap: backslash, white space, backslash.
        let ws = rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
        if ws > 0 {
            rest = rest[ws..]
                .strip_prefix('\\')
                .ok_or(LexError::BadEscape("\\ ".into()))?;
            continue;
        }
        let (ch, used) = escape(rest)?;
        out.extend(ch);
        rest = &rest[used..];
    }
    out.push_str(rest);
    Ok(out)
}

fn char_literal(lex: &mut logos::Lexer<Tok>) -> Result<char, LexError> {
    let s = lex.slice();
    let decoded = decode(&s[1..s.len() - 1])?;
    let mut chars = decoded.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(LexError::BadCharLiteral),
    }
}

fn unterminated_string(_: &mut logos::Lexer<Tok>) -> Result<Sym, LexError> {
    Err(LexError::UnterminatedString)
}

fn string_literal(lex: &mut logos::Lexer<Tok>) -> Result<Sym, LexError> {
    let s = lex.slice();
    Ok(Sym::from(decode(&s[1..s.len() - 1])?))
}

/// A token with its place in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// Splits a source text into tokens; lexical errors are reported and skipped.
/// Spans are offset by `base` (the file's place in the `SourceMap`).
pub fn lex(text: &str, base: u32) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Tok::lexer(text);
    let extensions: Vec<&str> = language_extensions(text).collect();
    let negative_literals = extensions.contains(&"NegativeLiterals");
    while let Some(result) = lexer.next() {
        let local = Span::new(lexer.span().start, lexer.span().end);
        let span = Span {
            start: local.start + base,
            end: local.end + base,
        };
        if let Ok(Tok::Integer(_) | Tok::Float(_)) = &result {
            let written = &text[lexer.span()];
            if let Some(d) = literal_extension(written, &extensions) {
                errors.push(d.at(span));
            }
        }
        match result {
            Ok(Tok::Bang) if prefix_occurrence(text, local) => tokens.push(Token {
                tok: Tok::PrefixBang,
                span,
            }),
            Ok(Tok::At) if prefix_occurrence(text, local) => tokens.push(Token {
                tok: Tok::PrefixAt,
                span,
            }),
            Ok(Tok::Minus)
                if negative_literals
                    && prefix_occurrence(text, local)
                    && text[local.end as usize..].starts_with(|c: char| c.is_ascii_digit()) =>
            {
                tokens.push(Token {
                    tok: Tok::PrefixMinus,
                    span,
                })
            }
            Ok(tok) => tokens.push(Token { tok, span }),
            Err(e) => {
                let mut d = lex_error(e, local, text);
                d.span = Span {
                    start: d.span.start + base,
                    end: d.span.end + base,
                };
                errors.push(d)
            }
        }
    }
    mark_foralls(&mut tokens);
    (tokens, errors)
}

/// `forall` followed by type variables and a `.` is the quantifier.
fn mark_foralls(tokens: &mut [Token]) {
    for i in 0..tokens.len() {
        if !matches!(&tokens[i].tok, Tok::VarId(v) if &**v == "forall") {
            continue;
        }
        let vars = tokens[i + 1..]
            .iter()
            .take_while(|t| matches!(t.tok, Tok::VarId(_)))
            .count();
        let dot = tokens.get(i + 1 + vars);
        if vars > 0 && dot.is_some_and(|t| matches!(&t.tok, Tok::VarSym(s) if &**s == ".")) {
            tokens[i].tok = Tok::Forall;
        }
    }
}

/// The extensions named in the file's `{-# LANGUAGE A, B #-}` pragmas: in
/// its header, as GHC reads them (before the first token of the module,
/// among white space, comments and other pragmas; a pragma's text inside
/// a comment or later in the file is not one).
pub fn language_extensions(text: &str) -> impl Iterator<Item = &str> {
    header_pragmas(text).into_iter().flat_map(|body| {
        let names = body
            .trim_start()
            .strip_prefix("LANGUAGE")
            .filter(|b| b.starts_with(char::is_whitespace))
            .unwrap_or("");
        names.split(',').map(str::trim).filter(|n| !n.is_empty())
    })
}

/// The bodies of the pragmas (`{-# ... #-}`) of the file's header.
fn header_pragmas(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("{-#") {
            let Some(end) = r.find("#-}") else { break };
            out.push(&r[..end]);
            rest = &r[end + 3..];
        } else if rest.starts_with("{-") {
            // A nested block comment.
            let mut depth = 0usize;
            let mut i = 0;
            let b = rest.as_bytes();
            while i + 1 < b.len() {
                if b[i] == b'{' && b[i + 1] == b'-' {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'-' && b[i + 1] == b'}' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            if depth != 0 {
                break;
            }
            rest = &rest[i..];
        } else if rest.starts_with("--")
            && !rest
                .trim_start_matches('-')
                .starts_with(|c: char| "!#$%&*+./<=>?@\\^|~:".contains(c))
        {
            rest = rest.find('\n').map_or("", |n| &rest[n..]);
        } else {
            break;
        }
    }
    out
}

/// Whether the `!` at `at` is a prefix occurrence: after white space, an
/// opening bracket, a comma or the start of the file, and not before white
/// space or a closing bracket (`f !x`, `(!x, !y)`, `T !Int`; `a ! b`,
/// `a!b` and `(!)` are the operator).
fn prefix_occurrence(text: &str, at: Span) -> bool {
    let before = text[..at.start as usize].chars().next_back();
    let after = text[at.end as usize..].chars().next();
    before.is_none_or(|c| c.is_whitespace() || "([,;{".contains(c))
        && after.is_some_and(|c| !c.is_whitespace() && !")]},;".contains(c))
}

/// The error for a numeric literal written with a syntax whose extension
/// the file does not name (GHC 9.0 reads both only on request).
fn literal_extension(written: &str, extensions: &[&str]) -> Option<LiteralNeeds> {
    let binary = written.starts_with("0b") || written.starts_with("0B");
    if binary && !extensions.contains(&"BinaryLiterals") {
        Some(LiteralNeeds("BinaryLiterals", "a binary literal"))
    } else if written.contains('_') && !extensions.contains(&"NumericUnderscores") {
        Some(LiteralNeeds(
            "NumericUnderscores",
            "a numeric literal with underscores",
        ))
    } else {
        None
    }
}

struct LiteralNeeds(&'static str, &'static str);

impl LiteralNeeds {
    fn at(self, span: Span) -> Diagnostic {
        let LiteralNeeds(extension, what) = self;
        Diagnostic::error(span, format!("{what} needs {{-# LANGUAGE {extension} #-}}"))
            .with_label("not Haskell 2010")
            .with_help("add the pragma at the top of the file")
    }
}

fn lex_error(e: LexError, span: Span, text: &str) -> Diagnostic {
    match e {
        LexError::BadChar => {
            let c = text[span.start as usize..].chars().next().unwrap_or(' ');
            Diagnostic::error(span, format!("lexical error at character {c:?}"))
                .with_label("not valid here")
        }
        LexError::UnterminatedComment => Diagnostic::error(
            Span::new(span.start as usize, span.start as usize + 2),
            "unterminated `{-` comment",
        )
        .with_label("this comment is never closed")
        .with_help("close it with `-}` (comments nest, so every `{-` needs its own `-}`)"),
        LexError::UnterminatedString => Diagnostic::error(span, "unterminated string literal")
            .with_label("this string has no closing `\"` on its line"),
        LexError::BadEscape(s) => Diagnostic::error(span, format!("bad escape sequence `\\{s}`"))
            .with_help(
                "valid escapes include \\n \\t \\\\ \\\" \\' \\65 \\x41 \\o101 \\^A \\NUL \\&",
            ),
        LexError::BadCharLiteral => Diagnostic::error(
            span,
            "a character literal must contain exactly one character",
        )
        .with_help("use double quotes for a string"),
    }
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s: &str = match self {
            Tok::Comment => "comment",
            Tok::Case => "case",
            Tok::Class => "class",
            Tok::Data => "data",
            Tok::Default => "default",
            Tok::Deriving => "deriving",
            Tok::Do => "do",
            Tok::Else => "else",
            Tok::Foreign => "foreign",
            Tok::If => "if",
            Tok::Import => "import",
            Tok::In => "in",
            Tok::Infix => "infix",
            Tok::Infixl => "infixl",
            Tok::Infixr => "infixr",
            Tok::Instance => "instance",
            Tok::Let => "let",
            Tok::Module => "module",
            Tok::Newtype => "newtype",
            Tok::Of => "of",
            Tok::Then => "then",
            Tok::Type => "type",
            Tok::Where => "where",
            Tok::Underscore => "_",
            Tok::Qualified => "qualified",
            Tok::As => "as",
            Tok::Hiding => "hiding",
            Tok::DotDot => "..",
            Tok::Colon => ":",
            Tok::DColon => "::",
            Tok::Equals => "=",
            Tok::Backslash => "\\",
            Tok::Bar => "|",
            Tok::LArrow => "<-",
            Tok::RArrow => "->",
            Tok::Tilde => "~",
            Tok::DArrow => "=>",
            Tok::Minus | Tok::PrefixMinus => "-",
            Tok::Bang | Tok::PrefixBang => "!",
            Tok::At | Tok::PrefixAt => "@",
            Tok::Forall => "forall",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Backquote => "`",
            Tok::VLBrace => "v{",
            Tok::VSemi => "v;",
            Tok::VRBrace => "v}",
            Tok::VarId(s)
            | Tok::ConId(s)
            | Tok::VarSym(s)
            | Tok::ConSym(s)
            | Tok::Integer(s)
            | Tok::Float(s) => s,
            Tok::QVarId((q, n))
            | Tok::QConId((q, n))
            | Tok::QVarSym((q, n))
            | Tok::QConSym((q, n)) => {
                return write!(f, "{q}.{n}");
            }
            Tok::Char(c) => return write!(f, "{c:?}"),
            Tok::String(s) => return write!(f, "{:?}", &**s),
        };
        f.write_str(s)
    }
}
