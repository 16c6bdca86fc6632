//! The cache of compiled programs (src/cache.rs): a program compiled once
//! runs again from the cache, and any change to what it was compiled from
//! (the main file, a module of the user's, a file the module search would
//! now take first, the compiler's options) compiles it again.

use std::path::Path;
use std::process::Command;

fn gph(cache: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gph"))
        .env("GPH_CACHE_DIR", cache)
        .args(args)
        .output()
        .expect("gph runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn entries(cache: &Path) -> usize {
    std::fs::read_dir(cache).map_or(0, |d| {
        d.flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "bin"))
            .count()
    })
}

#[test]
fn a_changed_source_is_compiled_again() {
    let dir = std::env::temp_dir().join(format!("gph-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = dir.join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    let main = dir.join("Main.gph");
    let main = main.to_str().unwrap();
    std::fs::write(main, "import Helper\nmain = print (helper 3)\n").unwrap();
    let helper = |ext: &str, body: &str| {
        let text = format!("module Helper where\nhelper :: Int -> Int\nhelper x = {body}\n");
        std::fs::write(dir.join(format!("Helper.{ext}")), text).unwrap();
    };
    helper("hs", "x + 1");
    let run = |flags: &[&str]| {
        let mut args = vec!["run"];
        args.extend_from_slice(flags);
        args.push(main);
        gph(&cache, &args).0
    };

    assert_eq!(run(&[]), "4\n");
    assert_eq!(entries(&cache), 1, "the compiled program is kept");
    assert_eq!(run(&[]), "4\n", "and runs again");
    helper("hs", "x + 100");
    assert_eq!(run(&[]), "103\n", "a module of the user's changed");
    helper("gph", "x * 1000");
    assert_eq!(run(&[]), "3000\n", "Helper.gph is taken before Helper.hs");
    std::fs::remove_file(dir.join("Helper.gph")).unwrap();
    assert_eq!(run(&[]), "103\n");
    std::fs::write(main, "import Helper\nmain = print (helper 4)\n").unwrap();
    assert_eq!(run(&[]), "104\n", "the main file changed");
    assert_eq!(run(&["-O0"]), "104\n", "other options, another entry");
    assert_eq!(entries(&cache), 3);
    assert_eq!(run(&["--recompile"]), "104\n");

    // A program with errors is not kept; its errors are shown every time.
    std::fs::write(main, "main = print (1 + True)\n").unwrap();
    for _ in 0..2 {
        let (out, err) = gph(&cache, &["run", main]);
        assert_eq!(out, "");
        assert!(err.contains("no instance for `Num Bool`"), "{err}");
    }
    assert_eq!(entries(&cache), 3);

    // A cache that cannot be written is no cache.
    std::fs::write(main, "main = print 7\n").unwrap();
    let file = dir.join("not-a-directory");
    std::fs::write(&file, "").unwrap();
    assert_eq!(gph(&file, &["run", main]).0, "7\n");
    let _ = std::fs::remove_dir_all(&dir);
}
