//! Robustness of the front end: whatever the input, lexing, layout and
//! parsing (`gph_syntax::parse_file`) return diagnostics or a tree, never
//! panic, never overflow the stack, and finish quickly.
//!
//! * random byte strings;
//! * random sequences of tokens from a vocabulary of every keyword, reserved
//!   operator, bracket, kind of name and literal, comments, and line breaks
//!   with indentation (spaces and tabs);
//! * random mutations (deleted, duplicated, swapped, inserted tokens and
//!   lines) of the layout corpus `tests/layout/*.gph`;
//! * programs nested far too deeply (10,000 parentheses, a 100,000-operator
//!   chain, ...), which must be rejected with "expression nested too deeply".
//!
//! Inputs are bounded in size and each case must take under a second.

use gph_syntax::{pretty, SourceFile};
use proptest::prelude::*;
use std::time::{Duration, Instant};

const CASE_TIME: Duration = Duration::from_secs(1);

/// Runs the front end on a source text as `gph` does: on the compiler's
/// stack (`gph_syntax::stack`), whose guard stops a recursion before it
/// overflows; every input here is within its limits, so a stop fails.
fn front_end(text: String) -> (bool, Vec<String>, Duration) {
    gph_syntax::stack::run(move || {
        let start = Instant::now();
        let file = SourceFile::new("fuzz.gph", text);
        let (m, diags) = gph_syntax::parse_file(&file);
        // Printing what parsed must work too.
        if let Some(m) = &m {
            let _ = pretty::module(m);
        }
        let messages = diags.iter().map(|d| d.message.clone()).collect();
        (m.is_some(), messages, start.elapsed())
    })
    .expect("the front end ran out of stack")
}

fn check(text: String) -> Result<(), TestCaseError> {
    let shown = text.clone();
    let (_, _, took) = front_end(text);
    prop_assert!(took < CASE_TIME, "took {took:?} on input {shown:?}");
    Ok(())
}

const VOCABULARY: &[&str] = &[
    // keywords
    "case",
    "class",
    "data",
    "default",
    "deriving",
    "do",
    "else",
    "foreign",
    "if",
    "import",
    "in",
    "infix",
    "infixl",
    "infixr",
    "instance",
    "let",
    "module",
    "newtype",
    "of",
    "then",
    "type",
    "where",
    "_",
    "qualified",
    "as",
    "hiding",
    "prim",
    // reserved operators and special characters
    "..",
    ":",
    "::",
    "=",
    "\\",
    "|",
    "<-",
    "->",
    "@",
    "~",
    "=>",
    "-",
    "!",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    "{",
    "}",
    "`",
    // names
    "x",
    "y",
    "f",
    "go",
    "main",
    "xs",
    "a'",
    "Just",
    "Nothing",
    "T",
    "M.x",
    "M.T",
    "Data.List.sort",
    "Prelude.+",
    "M.:+",
    // operators
    "+",
    "*",
    "++",
    ".",
    "$",
    ">>=",
    "==",
    ":+",
    "<$>",
    "`div`",
    "`elem`",
    "&&",
    // literals
    "0",
    "1",
    "42",
    "0x1F",
    "0o17",
    "1.5",
    "2e-3",
    "'a'",
    "'\\n'",
    "'\\''",
    "\"s\"",
    "\"esc\\\"aped\"",
    "\"\\1234\\&5\"",
    "\"\\SOH\"",
    "\"",
    // comments and pragmas
    "-- comment",
    "{- block -}",
    "{- {- nested -} -}",
    "{-",
    "-}",
    "{-# INLINE f #-}",
];

const BREAKS: &[&str] = &[
    "\n",
    "\n ",
    "\n  ",
    "\n    ",
    "\n\t",
    "\n        ",
    "\n\t  ",
];

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => proptest::sample::select(VOCABULARY).prop_map(str::to_string),
        2 => proptest::sample::select(BREAKS).prop_map(str::to_string),
    ]
}

fn layout_corpus() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(read_layout_corpus)
}

fn read_layout_corpus() -> Vec<String> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/layout");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/layout")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "gph"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("program"))
        .collect()
}

/// One edit of a program, as lines of words (indentation kept).
#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    DeleteWord(usize, usize),
    DuplicateWord(usize, usize),
    SwapWords(usize, usize, usize),
    InsertWord(usize, usize, String),
    Reindent(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let i = || 0usize..10_000;
    prop_oneof![
        i().prop_map(Mutation::DeleteLine),
        i().prop_map(Mutation::DuplicateLine),
        (i(), i()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (i(), i()).prop_map(|(a, b)| Mutation::DeleteWord(a, b)),
        (i(), i()).prop_map(|(a, b)| Mutation::DuplicateWord(a, b)),
        (i(), i(), i()).prop_map(|(a, b, c)| Mutation::SwapWords(a, b, c)),
        (i(), i(), proptest::sample::select(VOCABULARY))
            .prop_map(|(a, b, w)| Mutation::InsertWord(a, b, w.to_string())),
        (i(), 0usize..12).prop_map(|(a, b)| Mutation::Reindent(a, b)),
    ]
}

fn apply(text: &str, edits: &[Mutation]) -> String {
    let mut lines: Vec<(String, Vec<String>)> = text
        .lines()
        .map(|l| {
            let body = l.trim_start();
            let indent = l[..l.len() - body.len()].to_string();
            (indent, body.split(' ').map(str::to_string).collect())
        })
        .collect();
    for e in edits {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match e {
            Mutation::DeleteLine(a) => {
                lines.remove(a % n);
            }
            Mutation::DuplicateLine(a) => {
                let l = lines[a % n].clone();
                lines.insert(a % n, l);
            }
            Mutation::SwapLines(a, b) => lines.swap(a % n, b % n),
            Mutation::DeleteWord(a, w) => {
                let ws = &mut lines[a % n].1;
                if !ws.is_empty() {
                    let k = w % ws.len();
                    ws.remove(k);
                }
            }
            Mutation::DuplicateWord(a, w) => {
                let ws = &mut lines[a % n].1;
                if !ws.is_empty() {
                    let k = w % ws.len();
                    let word = ws[k].clone();
                    ws.insert(k, word);
                }
            }
            Mutation::SwapWords(a, w, v) => {
                let ws = &mut lines[a % n].1;
                if !ws.is_empty() {
                    let len = ws.len();
                    ws.swap(w % len, v % len);
                }
            }
            Mutation::InsertWord(a, w, word) => {
                let ws = &mut lines[a % n].1;
                let k = w % (ws.len() + 1);
                ws.insert(k, word.clone());
            }
            Mutation::Reindent(a, cols) => lines[a % n].0 = " ".repeat(*cols),
        }
    }
    let mut out = String::new();
    for (indent, words) in lines {
        out.push_str(&indent);
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        check(String::from_utf8_lossy(&bytes).into_owned())?;
    }

    #[test]
    fn random_ascii(text in "[ -~\n\t]{0,1500}") {
        check(text)?;
    }

    #[test]
    fn random_tokens(tokens in proptest::collection::vec(token(), 0..400)) {
        check(tokens.join(" "))?;
    }

    #[test]
    fn mutated_layout_programs(
        which in 0usize..1000,
        edits in proptest::collection::vec(mutation(), 1..6),
    ) {
        let corpus = layout_corpus();
        let text = apply(&corpus[which % corpus.len()], &edits);
        check(text)?;
    }
}

/// Programs nested beyond the limit are rejected with a diagnostic, not a
/// crash.
#[test]
fn deep_nesting_is_an_error() {
    let n = gph_syntax::nesting::MAX_NESTING + 100;
    let cases = [
        (
            "parentheses",
            format!("main = print {}1{}", "(".repeat(n), ")".repeat(n)),
        ),
        ("lists", format!("x = {}{}", "[".repeat(n), "]".repeat(n))),
        (
            "operator chain",
            format!("main = print ({})", vec!["1"; n].join(" + ")),
        ),
        (
            "cons chain",
            format!("x = {} : []", vec!["1"; n].join(" : ")),
        ),
        ("application", format!("x = f{}", " a".repeat(n))),
        ("lambdas", format!("x = {}a", "\\a -> ".repeat(n))),
        ("lets", format!("x = {}a", "let a = 1 in ".repeat(n))),
        ("ifs", format!("x = {}c", "if a then b else ".repeat(n))),
        (
            "cases",
            format!("x = {}1{}", "case 1 of { _ -> ".repeat(n), " }".repeat(n)),
        ),
        (
            "do blocks",
            format!("main = {}return (){}", "do { ".repeat(n), " }".repeat(n)),
        ),
        ("negations", format!("x = {}1", "negate $ ".repeat(n))),
        ("lazy patterns", format!("f {}x = x", "~ ".repeat(n))),
        ("as patterns", format!("f {}x = x", "a@".repeat(n))),
        (
            "nested pattern",
            format!("f {}x{} = x", "(Just ".repeat(n), ")".repeat(n)),
        ),
        ("types", format!("f :: {}a\nf = f", "a -> ".repeat(n))),
        (
            "type brackets",
            format!("f :: {}a{}\nf = f", "[".repeat(n), "]".repeat(n)),
        ),
    ];
    for (what, text) in cases {
        let (parsed, messages, took) = front_end(text);
        assert!(took < CASE_TIME * 3, "{what}: took {took:?}");
        assert!(
            !parsed && messages.iter().any(|m| m == "expression nested too deeply"),
            "{what}: expected the nesting error, got {messages:?}"
        );
    }
}

/// 10,000 deep, the same shapes parse (and print).
#[test]
fn deep_nesting_parses() {
    let n = 10_000;
    let cases = [
        format!("main = print {}1{}", "(".repeat(n), ")".repeat(n)),
        format!("x = {}{}", "[".repeat(n), "]".repeat(n)),
        format!("main = print ({})", vec!["1"; n].join(" + ")),
        format!("x = {} : []", vec!["1"; n].join(" : ")),
        format!("x = {}a", "\\a -> ".repeat(n)),
        format!("x = {}a", "let a = 1 in ".repeat(n)),
        format!("x = {}c", "if a then b else ".repeat(n)),
        format!("x = {}1{}", "case 1 of { _ -> ".repeat(n), " }".repeat(n)),
        format!("main = {}return (){}", "do { ".repeat(n), " }".repeat(n)),
        format!("f {}x{} = x", "(Just ".repeat(n), ")".repeat(n)),
        format!("f :: {}a\nf = f", "a -> ".repeat(n)),
        format!("x = f{}", " a".repeat(n)),
        // 3,000 nested layout blocks (the text grows with the square).
        {
            let mut s = String::from("main = do\n");
            for k in 1..3000 {
                s.push_str(&" ".repeat(k));
                s.push_str("do\n");
            }
            s.push_str(&" ".repeat(3001));
            s.push_str("return ()\n");
            s
        },
    ];
    for text in cases {
        let shown: String = text.chars().take(40).collect();
        let (parsed, messages, _) = front_end(text);
        assert!(parsed && messages.is_empty(), "{shown}...: {messages:?}");
    }
}
