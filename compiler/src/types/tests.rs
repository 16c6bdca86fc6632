//! Unit tests of the type checker, through the real front end (loader,
//! Prelude, renamer).

use super::*;
use crate::testing::dedent;
use gph_syntax::SourceFile;

/// Type-checks a program; returns the listing and the error messages
/// (with their line numbers).
fn run(src: &str) -> (String, Vec<(usize, String)>) {
    let file = SourceFile::new("t.gph", dedent(src));
    let (prog, sources, diags) = crate::front_end(&file);
    let errs: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect();
    assert!(errs.is_empty(), "front end errors: {errs:?}");
    let prog = prog.expect("renamed program");
    let r = typecheck(&prog.modules, None);
    let main_file = &sources.files[0];
    let errors = r
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let line = if main_file.contains(d.span.start) {
                main_file.line_col(d.span.start).0
            } else {
                0
            };
            (line, d.message.clone())
        })
        .collect();
    (show_types(&r), errors)
}

fn ok(src: &str) -> String {
    let (types, errors) = run(src);
    assert!(errors.is_empty(), "unexpected errors: {errors:#?}");
    types
}

/// The elaborated main module, printed.
fn elab(src: &str) -> String {
    let file = SourceFile::new("t.gph", dedent(src));
    let (prog, _, _) = crate::front_end(&file);
    let r = typecheck(&prog.expect("renamed").modules, None);
    assert!(
        r.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        r.diagnostics
    );
    r.elaborated
        .modules
        .last()
        .map(|m| m.to_string())
        .unwrap_or_default()
}

/// The errors of an ill-typed program: (line, message).
fn errs(src: &str) -> Vec<(usize, String)> {
    let (_, errors) = run(src);
    assert!(!errors.is_empty(), "expected errors");
    errors
}

fn has_type(types: &str, line: &str) {
    assert!(types.lines().any(|l| l == line), "no `{line}` in:\n{types}");
}

fn has_error(errors: &[(usize, String)], line: usize, needle: &str) {
    assert!(
        errors.iter().any(|(l, m)| *l == line && m.contains(needle)),
        "no error containing `{needle}` at line {line} in {errors:#?}"
    );
}

#[test]
fn prelude_checks() {
    let t = ok("main = print 1\n");
    assert_eq!(t, "main :: IO ()\n");
}

#[test]
fn inferred_types() {
    let t = ok("f x = if x > 0 then x else x + 1\n\
                pairUp xs = zip xs (tail xs)\n\
                compose f g x = f (g x)\n\
                len [] = 0\n\
                len (_ : xs) = 1 + len xs\n\
                isZero 0 = True\n\
                isZero _ = False\n\
                main = print (f 3, pairUp \"ab\", compose not id True, len \"x\", isZero 1)\n");
    has_type(&t, "f :: (Num a, Ord a) => a -> a");
    has_type(&t, "pairUp :: [a] -> [(a, a)]");
    has_type(&t, "compose :: (a -> b) -> (c -> a) -> c -> b");
    has_type(&t, "len :: Num b => [a] -> b");
    has_type(&t, "isZero :: (Eq a, Num a) => a -> Bool");
}

#[test]
fn signatures_keep_user_names_and_synonyms() {
    let t = ok("type Name = String\n\
                greet :: Name -> String\n\
                greet n = \"hi \" ++ n\n\
                twice :: (elem -> elem) -> elem -> elem\n\
                twice f = f . f\n\
                main = putStrLn (greet (twice id \"x\"))\n");
    has_type(&t, "greet :: Name -> String");
    has_type(&t, "twice :: (elem -> elem) -> elem -> elem");
}

#[test]
fn defaulting_and_monomorphism_restriction() {
    let t = ok("n = 42\n\
                d = 2.5\n\
                plus = (+)\n\
                used = plus 1 (2 :: Int)\n\
                poly x = x + 1\n\
                compose = map (+1) . filter even\n\
                main = print (n, d, used, poly 3, compose [1, 2], 2 ^ 10)\n");
    has_type(&t, "n :: Integer");
    has_type(&t, "d :: Double");
    has_type(&t, "plus :: Int -> Int -> Int");
    has_type(&t, "poly :: Num a => a -> a");
    has_type(&t, "compose :: [Integer] -> [Integer]");
}

#[test]
fn default_declarations() {
    let t = ok("default (Int, Double)\n\
                n = 2 ^ 3\n\
                main = print n\n");
    has_type(&t, "n :: Int");
    let e = errs(
        "default ()\n\
                  main = print (2 + 3)\n",
    );
    has_error(&e, 2, "ambiguous type variable");
}

#[test]
fn let_polymorphism_and_local_restriction() {
    let t = ok(r#"
        f :: Int -> (Int, Char)
        f k = let ident x = x
                  m = 5
              in (ident k + m, ident 'c')
        g xs = [y | y <- xs, let z = y * 2, z > 3]
        main = print (f 1, g [1, 2, 3])
    "#);
    has_type(&t, "g :: (Num a, Ord a) => [a] -> [a]");
}

#[test]
fn mutual_recursion_and_where() {
    let t = ok(r#"
        ev 0 = True
        ev n = od (n - 1)
        od 0 = False
        od n = ev (n - 1)
        scale :: Num a => a -> [a] -> [a]
        scale k = map times
          where times y = k * y
        main = print (ev 10, scale 2 [1, 2])
    "#);
    has_type(&t, "ev :: (Eq a, Num a) => a -> Bool");
    has_type(&t, "od :: (Eq a, Num a) => a -> Bool");
}

#[test]
fn user_classes_superclasses_defaults_and_constructor_classes() {
    let src = "class Shape a where\n\
               \x20 area :: a -> Double\n\
               \x20 name :: a -> String\n\
               \x20 name _ = \"shape\"\n\
               class Shape a => Solid a where\n\
               \x20 volume :: a -> Double -> Double\n\
               \x20 volume x h = area x * h\n\
               data Square = Square Double\n\
               instance Shape Square where\n\
               \x20 area (Square s) = s * s\n\
               instance Solid Square\n\
               class Container f where\n\
               \x20 empty :: f a\n\
               \x20 insert :: a -> f a -> f a\n\
               \x20 toL :: f a -> [a]\n\
               newtype Box a = Box [a]\n\
               instance Container Box where\n\
               \x20 empty = Box []\n\
               \x20 insert x (Box xs) = Box (x : xs)\n\
               \x20 toL (Box xs) = xs\n\
               describe :: Solid a => a -> String\n\
               describe x = name x ++ show (volume x 2)\n\
               fill xs = foldr insert empty xs\n\
               main = do\n\
               \x20 putStrLn (describe (Square 3))\n\
               \x20 print (toL (fill [1, 2, 3] :: Box Int))\n";
    let t = ok(src);
    has_type(&t, "describe :: Solid a => a -> String");
    has_type(&t, "fill :: (Foldable a, Container c) => a b -> c b");
    let e = elab(src);
    // The Shape superclass of the Solid dictionary, default methods filled in.
    assert!(
        e.contains("Main.name {$dSolid388.Solid#0}") || e.contains(".Solid#0} x"),
        "{e}"
    );
    assert!(e.contains("super#0 = Main.$fShapeSquare"), "{e}");
    assert!(e.contains("Main.name = Main.$dmname {$this"), "{e}");
    assert!(e.contains("Main.volume = Main.$dmvolume {$this"), "{e}");
}

#[test]
fn instance_methods_use_this_and_context() {
    let e = elab(
        "data T a = L | N a (T a)\n\
                  instance Eq a => Eq (T a) where\n\
                  \x20 L == L = True\n\
                  \x20 N x l == N y r = x == y && l == r\n\
                  \x20 _ == _ = False\n\
                  main = print (N 1 L == N 1 L)\n",
    );
    // `l == r` at the instance's own type uses the dictionary being built.
    assert!(e.contains("Prelude.== {$this"), "{e}");
    // `/=` comes from the class default.
    assert!(e.contains("Prelude./= = Prelude.$dm/= {$this"), "{e}");
    // Known types pass known dictionaries.
    assert!(e.contains("{(Main.$fEqT Prelude.$fEqInteger)}"), "{e}");
}

#[test]
fn missing_method_without_default() {
    let e = elab(
        "class C a where\n\
                  \x20 m1 :: a -> Int\n\
                  \x20 m2 :: a -> Int\n\
                  instance C Bool where\n\
                  \x20 m1 _ = 1\n\
                  main = print (m1 True)\n",
    );
    assert!(e.contains("Main.m2 = <no method Main.m2>"), "{e}");
}

#[test]
fn variable_headed_instance() {
    let t = ok("class Trans a\n\
                instance Trans a\n\
                send :: Trans a => a -> a\n\
                send x = x\n\
                main = print (send (3 :: Int), send \"x\")\n");
    has_type(&t, "send :: Trans a => a -> a");
}

#[test]
fn literals_are_resolved() {
    let e = elab(
        "f :: Int -> Double\n\
                  f 0 = 1.5\n\
                  f n = fromIntegral n * 2\n\
                  g :: Integer -> Bool\n\
                  g (-1) = True\n\
                  g _ = False\n\
                  h x = x == 3\n\
                  half x = x * 0.5\n\
                  main = print (f 2, g 5, h 2.5, half 3)\n",
    );
    assert!(e.contains("Main.f 0#Int = 1.5#Double"), "{e}");
    assert!(e.contains("2.0#Double"), "{e}");
    assert!(e.contains("Main.g -1#Integer = "), "{e}");
    assert!(e.contains("Prelude.fromInteger {$dNum"), "{e}");
    assert!(e.contains("Prelude.fromRational {$dFractional"), "{e}");
    assert!(e.contains("(1 % 2)#Rational"), "{e}");
    assert!(
        e.contains("Main.h {Prelude.$fEqDouble} {Prelude.$fNumDouble} 2.5#Double"),
        "{e}"
    );
}

#[test]
fn do_notation_elaboration() {
    let e = elab(
        "main = do\n\
                  \x20 (a, b) <- return (1, 2)\n\
                  \x20 Just c <- return (Just 3)\n\
                  \x20 let d = a + b + c\n\
                  \x20 print d\n",
    );
    // A tuple pattern cannot fail: no MonadFail.
    assert!(e.contains("\\(a, b) -> "), "{e}");
    assert!(e.contains("Prelude.fail {Prelude.$fMonadFailIO}"), "{e}");
}

#[test]
fn polymorphic_annotation() {
    let t = ok("f = (id :: a -> a)\n\
                g = ((\\x -> x) :: Int -> Int)\n\
                main = print (f 'c', g 2)\n");
    has_type(&t, "g :: Int -> Int");
}

#[test]
fn error_mismatch_points_at_argument() {
    let e = errs(
        "double :: Int -> Int\n\
                  double n = n * 2\n\
                  main = print (double \"x\")\n",
    );
    has_error(&e, 3, "expected `Int`, found `[Char]`");
}

#[test]
fn error_signature_too_general() {
    let e = errs(
        "inc :: a -> a\n\
                  inc x = x + 1\n\
                  main = print (inc 1)\n",
    );
    has_error(&e, 2, "no instance for `Num a`");
    assert_eq!(e.len(), 1, "{e:?}");
    let e = errs(
        "f :: a -> Int\n\
                  f x = x\n\
                  main = print (f 1)\n",
    );
    has_error(&e, 2, "expected `Int`, found `a`");
}

#[test]
fn error_ambiguity_and_missing_instances() {
    let e = errs("main = putStrLn (show (read \"1\"))\n");
    has_error(&e, 1, "ambiguous type variable");
    let e = errs(
        "data C = R | G\n\
                  main = print (R == G)\n",
    );
    has_error(&e, 2, "no instance for `Eq C`");
    let e = errs("main = print id\n");
    has_error(&e, 1, "no instance for `Show (a -> a)`");
}

#[test]
fn error_occurs_and_kinds() {
    let e = errs("f x = x x\nmain = print 1\n");
    has_error(&e, 1, "infinite type");
    let e = errs("size :: Maybe -> Int\nsize _ = 0\nmain = print 1\n");
    has_error(&e, 1, "expecting one more argument to `Maybe`");
    let e = errs("type P a = (a, a)\nsw :: P Int Int -> Int\nsw _ = 0\nmain = print 1\n");
    has_error(&e, 2, "expected kind `* -> *`");
}

#[test]
fn error_main_not_io() {
    let e = errs("main = \"hello\"\n");
    has_error(&e, 1, "expected `IO t`");
}

#[test]
fn errors_are_independent_and_not_cascading() {
    let e = errs(
        "a :: Int\n\
                  a = length 'x'\n\
                  b = True + 1\n\
                  c = a + 1\n\
                  d :: String\n\
                  d = 'h' : True\n\
                  main = print (a, c)\n",
    );
    has_error(&e, 2, "expected `a b`, found `Char`");
    has_error(&e, 3, "no instance for `Num Bool`");
    has_error(&e, 6, "expected `[Char]`, found `Bool`");
    assert_eq!(e.len(), 3, "{e:#?}");
}

#[test]
fn error_instances() {
    let e = errs(
        "data T = T\n\
                  instance Ord T where\n\
                  \x20 compare _ _ = EQ\n\
                  main = print 1\n",
    );
    has_error(&e, 2, "no instance for `Eq T`");
    let e = errs(
        "data T = T\n\
                  instance Show T where\n\
                  \x20 show _ = \"T\"\n\
                  instance Show T where\n\
                  \x20 show _ = \"U\"\n\
                  main = print T\n",
    );
    has_error(&e, 2, "duplicate instance");
}

#[test]
fn error_declarations() {
    let e = errs(
        "f :: Show a => Int\n\
                  f = 1\n\
                  main = print f\n",
    );
    has_error(&e, 1, "the type signature for `f` is ambiguous");
    let e = errs(
        "class C a where\n\
                  \x20 m :: Int\n\
                  main = print 1\n",
    );
    has_error(&e, 2, "does not mention the class variable `a`");
    let e = errs(
        "class C a where\n\
                  \x20 m :: a -> Int\n\
                  instance C (Maybe Int) where\n\
                  \x20 m _ = 1\n\
                  main = print 1\n",
    );
    has_error(&e, 3, "illegal instance declaration for `C (Maybe Int)`");
}

#[test]
fn error_rigid_local_signature() {
    let e = errs(
        "pairWith :: a -> [b] -> [(a, b)]\n\
                  pairWith x ys = map attach ys\n\
                  \x20 where\n\
                  \x20   attach :: b -> (a, b)\n\
                  \x20   attach y = (x, y)\n\
                  main = print 1\n",
    );
    has_error(&e, 5, "expected `a`, found `a1`");
}

#[test]
fn error_constructor_arity_and_equations() {
    let e = errs(
        "data P = P Int Int\n\
                  f (P x) = x\n\
                  g :: Int -> Int\n\
                  g x y = x\n\
                  main = print 1\n",
    );
    has_error(&e, 2, "should have 2 arguments, but has been given 1");
    has_error(
        &e,
        4,
        "has 2 arguments, but its type `Int -> Int` has only 1",
    );
}

#[test]
fn large_program_is_fast() {
    let mut src = String::new();
    for i in 0..300 {
        src.push_str(&format!(
            "f{i} :: Int -> Int\nf{i} x = x + {i}\ng{i} xs = map (\\y -> y * 2 + f{i} y) xs\n\
             h{i} n = sum [j * j | j <- [1 .. n], even j]\n"
        ));
    }
    src.push_str("main = print (g0 [1], h1 3)\n");
    let t = ok(&src);
    has_type(&t, "h7 :: Integral a => a -> a");
}

/// Lines of the main file with an error, after the whole front end and
/// the type checker.
fn error_lines(path: &std::path::Path) -> Vec<usize> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let file = SourceFile::new(path.display().to_string(), text);
    let (prog, sources, mut diags) = crate::front_end(&file);
    if let Some(p) = prog {
        if !diags.iter().any(|d| d.is_error()) {
            diags.extend(typecheck(&p.modules, None).diagnostics);
        }
    }
    let main_file = &sources.files[0];
    let mut lines: Vec<usize> = diags
        .iter()
        .filter(|d| d.is_error() && main_file.contains(d.span.start))
        .map(|d| main_file.line_col(d.span.start).0)
        .collect();
    lines.sort();
    lines.dedup();
    lines
}

fn corpus(dir: &str, prefixes: &[&str]) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests")
        .join(dir);
    let mut files: Vec<_> = std::fs::read_dir(root)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p: &std::path::PathBuf| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.ends_with(".gph") && prefixes.iter().any(|pre| name.starts_with(pre))
    });
    files.sort();
    files
}

/// Every good program of the test corpus type-checks.
#[test]
fn corpus_programs_typecheck() {
    let mut bad = Vec::new();
    for p in corpus("programs", &[""]) {
        let lines = error_lines(&p);
        if !lines.is_empty() {
            bad.push((p.display().to_string(), lines));
        }
    }
    assert!(bad.is_empty(), "rejected: {bad:#?}");
}

/// Every type error of the error corpus is reported at GHC's lines.
#[test]
fn corpus_type_errors_at_ghc_lines() {
    let mut bad = Vec::new();
    for p in corpus("errors", &["type_", "multi_"]) {
        let ghc = std::fs::read_to_string(p.with_extension("ghc")).unwrap_or_default();
        let mut want: Vec<usize> = ghc
            .lines()
            .filter_map(|l| l.strip_prefix("Main.hs:"))
            .filter_map(|l| l.split(':').next()?.parse().ok())
            .collect();
        want.sort();
        want.dedup();
        let got = error_lines(&p);
        if got != want {
            bad.push((p.display().to_string(), want, got));
        }
    }
    assert!(bad.is_empty(), "(file, GHC's lines, ours): {bad:#?}");
}

/// Prints the types and diagnostics of the file named by `GPH_FILE`
/// (a development aid: `GPH_FILE=x.gph cargo test -- --ignored show_file --nocapture`).
#[test]
#[ignore]
fn show_file() {
    let Ok(path) = std::env::var("GPH_FILE") else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let file = SourceFile::new(path, text);
    let (prog, sources, diags) = crate::front_end(&file);
    let render = |d: &Diagnostic| match sources.file_of(d.span) {
        Some(f) => d.render(f, false),
        None => format!("{}\n", d.message),
    };
    for d in &diags {
        eprintln!("{}", render(d));
    }
    let Some(prog) = prog else { return };
    eprintln!("front end done");
    let t0 = std::time::Instant::now();
    let r = typecheck(&prog.modules, None);
    eprintln!("typecheck: {:?}", t0.elapsed());
    print!("{}", show_types(&r));
    for d in &r.diagnostics {
        eprintln!("{}", render(d));
    }
    if std::env::var("GPH_ELAB").is_ok() {
        if let Some(m) = r.elaborated.modules.last() {
            eprintln!("{m}");
        }
    }
}

/// Mutates the corpus programs (swapping, duplicating and deleting words)
/// and type-checks every mutant the front end accepts: the checker must
/// never panic. `GPH_MUTANTS` sets the number of mutants per program.
#[test]
fn mutants_never_panic() {
    let per_file: usize = std::env::var("GPH_MUTANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut checked = 0;
    for p in corpus("programs", &[""]) {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let words: Vec<&str> = text.split(' ').collect();
        for _ in 0..per_file {
            let mut w: Vec<&str> = words.clone();
            for _ in 0..1 + next() % 3 {
                if w.len() < 2 {
                    break;
                }
                let i = (next() as usize) % w.len();
                let j = (next() as usize) % w.len();
                match next() % 3 {
                    0 => w.swap(i, j),
                    1 => {
                        let x = w[j];
                        w.insert(i, x)
                    }
                    _ => {
                        w.remove(i);
                    }
                }
            }
            let src = w.join(" ");
            let file = SourceFile::new("m.gph", src.clone());
            let (prog, _, diags) = crate::front_end(&file);
            let Some(prog) = prog else { continue };
            if diags.iter().any(|d| d.is_error()) {
                continue;
            }
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                typecheck(&prog.modules, None)
            }));
            assert!(r.is_ok(), "type checker panicked on:\n{src}");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

/// A Foldable function applied to something that is not a container
/// (`sum (T 3)`) says what it takes; on a Map it is accepted.
#[test]
fn a_foldable_function_on_a_non_container_says_why() {
    let check = |src: &str| {
        let file = SourceFile::new("t.gph", dedent(src));
        let (prog, _, _) = crate::front_end(&file);
        typecheck(&prog.expect("renamed").modules, None)
    };
    let r = check(
        "
        data T = T Int
        total :: T -> Int
        total t = sum t
        ",
    );
    let d = r
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .expect("a type error");
    let help = d.help.clone().unwrap_or_default();
    assert!(
        help.contains("`sum` takes a container") && help.contains("`T` is not one"),
        "{d:?}"
    );
    let r = check(
        "
        import qualified Data.Map as M
        total :: M.Map Int Int -> Int
        total m = sum m
        ",
    );
    assert!(
        !r.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        r.diagnostics
    );
}
