//! The REPL's machine session (runtime/src/session): programs linked into
//! one that only grows, and values that live from one run to the next.

use gph_runtime::session::Session;
use gph_runtime::{Config, Exit};
use gph_syntax::SourceFile;

fn compile(text: &str) -> gph_runtime::code::Program {
    let file = SourceFile::new("<test>", format!("module Interactive where\n{text}"));
    let (p, _, diags) = gph_compiler::compile_entry(&file, "gph'main", &Default::default());
    assert!(
        !diags.iter().any(|d| d.is_error()),
        "{:?}",
        diags.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    p.expect("a program")
}

fn config() -> Config {
    Config {
        pes: 1,
        engine: gph_runtime::EngineKind::Sim,
        heap_limit: 1 << 30,
        ..Default::default()
    }
}

/// Runs `text` (with its `gph'main`) in the session: what it printed.
fn run(s: &mut Session, text: &str, bind: Option<&str>) -> String {
    let mut out = Vec::new();
    let (exit, _) = s.run_with(&compile(text), &config(), bind, &mut out, &mut &b""[..]);
    let printed = String::from_utf8(out).unwrap();
    match exit {
        Exit::Success => printed,
        Exit::Error(e) => format!("{printed}error: {e}"),
        Exit::ExitWith(c) => format!("{printed}exit {c}"),
    }
}

#[test]
fn linking_the_same_program_again_adds_nothing() {
    let mut s = Session::new();
    let text = "f :: Int -> Int\nf x = x * 2\ngph'main = print (f 21)\n";
    let first = s.link(&compile(text)).unwrap();
    assert!(first.new_scs > 0);
    let scs = s.program().scs.len();
    let again = s.link(&compile(text)).unwrap();
    assert_eq!(again.new_scs, 0);
    assert_eq!(s.program().scs.len(), scs);
}

#[test]
fn a_changed_definition_gets_new_code_and_so_do_its_callers() {
    let mut s = Session::new();
    let base = "g :: Int -> Int\ng x = x + 1\nh :: Int -> Int\nh x = x - 1\n";
    s.link(&compile(&format!(
        "{base}f :: Int -> Int\nf x = g x * 3\ngph'main = print (f 1, h 1)\n"
    )))
    .unwrap();
    let f_old = s.sc("Interactive.f").unwrap();
    let h_old = s.sc("Interactive.h").unwrap();
    let changed = base.replace("x + 1", "x + 2");
    s.link(&compile(&format!(
        "{changed}f :: Int -> Int\nf x = g x * 3\ngph'main = print (f 1, h 1)\n"
    )))
    .unwrap();
    // f calls the new g: its code is new; h is untouched.
    assert_ne!(s.sc("Interactive.f").unwrap(), f_old);
    assert_eq!(s.sc("Interactive.h").unwrap(), h_old);
}

#[test]
fn a_caf_is_evaluated_once_across_runs() {
    let mut s = Session::new();
    let defs = "import Debug.Trace\nxs :: [Int]\nxs = trace \"computing\" (map (* 2) [1, 2, 3])\n";
    // trace writes on stderr; the value shows that xs is shared: its
    // evaluation is observed through :sprint.
    assert_eq!(
        run(
            &mut s,
            &format!("{defs}gph'main = print (length xs)\n"),
            None
        ),
        "3\n"
    );
    assert_eq!(s.sprint("Interactive.xs", 100).unwrap(), "[_,_,_]");
    assert_eq!(
        run(&mut s, &format!("{defs}gph'main = print (sum xs)\n"), None),
        "12\n"
    );
    assert_eq!(s.sprint("Interactive.xs", 100).unwrap(), "[2,4,6]");
}

#[test]
fn a_bound_value_is_kept_and_an_action_runs_once() {
    let mut s = Session::new();
    let text = "import Data.IORef\ngph'main = newIORef (1 :: Int)\n";
    assert_eq!(run(&mut s, text, Some("Interactive.r")), "");
    let r = "import Data.IORef\nr :: IORef Int\nr = r\n";
    run(
        &mut s,
        &format!("{r}gph'main = modifyIORef r (+ 41)\n"),
        None,
    );
    assert_eq!(
        run(
            &mut s,
            &format!("{r}gph'main = readIORef r >>= print\n"),
            None
        ),
        "42\n"
    );
}

#[test]
fn an_error_leaves_the_session_usable() {
    let mut s = Session::new();
    let defs = "ys :: [Int]\nys = [1, 2, error \"boom\", 4]\n";
    assert_eq!(
        run(&mut s, &format!("{defs}gph'main = print (sum ys)\n"), None),
        "error: boom"
    );
    // The CAF under evaluation when the error struck starts again.
    assert_eq!(
        run(
            &mut s,
            &format!("{defs}gph'main = print (take 2 ys)\n"),
            None
        ),
        "[1,2]\n"
    );
    assert_eq!(s.sprint("Interactive.ys", 100).unwrap(), "1 : 2 : _");
}

#[test]
fn sprint_shows_constructors_numbers_and_strings_as_ghci_does() {
    let mut s = Session::new();
    let defs = "data T = Leaf | Node T Int T\nv :: (Maybe Int, Either Double Integer, String, T)\n\
                v = (Just (-3), Right (2 ^ 70), \"hi\", Node Leaf 1 Leaf)\n";
    run(
        &mut s,
        &format!("{defs}gph'main = print (v `seq` ())\n"),
        None,
    );
    assert_eq!(s.sprint("Interactive.v", 100).unwrap(), "(_,_,_,_)");
    run(
        &mut s,
        &format!(
            "{defs}gph'main = case v of (a, b, c, d) -> print (a, b, c) >> (d `seq` return ())\n"
        ),
        None,
    );
    let shown = s.sprint("Interactive.v", 100).unwrap();
    assert_eq!(
        shown,
        "(Just (-3),Right 1180591620717411303424,\"hi\",Node Leaf 1 Leaf)"
    );
}
