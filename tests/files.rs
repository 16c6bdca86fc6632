//! Files gph makes on its own (src/files.rs): the REPL's scratch folder
//! has a random name and mode 0700, guessable names planted beforehand
//! (folders, symbolic links) are left alone, and `:graph`'s default output
//! is not written through a symbolic link; and `--heap-limit` below the
//! smallest is refused with the smallest in the message.

mod common;

use std::io::Write;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn fresh_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gph-files-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_repl_scratch_folder_is_private_and_unguessable() {
    let tmp = fresh_dir("tmp");
    let elsewhere = fresh_dir("elsewhere");
    // What another user could have planted, for the PIDs gph may get.
    let mut planted = Vec::new();
    for pid in 1..=4194304u32 {
        if pid % 65536 != 0 {
            continue;
        }
        let link = format!("gph-repl-{pid}");
        symlink(&elsewhere, tmp.join(&link)).unwrap();
        planted.push(link);
    }
    std::fs::create_dir(tmp.join("gph-repl")).unwrap();
    planted.push("gph-repl".into());
    planted.sort();
    let home = fresh_dir("home");
    let mut child = common::spawn_piped(
        Command::new(env!("CARGO_BIN_EXE_gph"))
            .arg("repl")
            .env("TMPDIR", &tmp)
            .env("HOME", &home)
            .current_dir(&home),
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"sum [1 .. 100 :: Int]\n").unwrap();
    stdin.flush().unwrap();
    // The scratch folder, while the session lasts.
    let start = Instant::now();
    let scratch = loop {
        let made: Vec<String> = names(&tmp)
            .into_iter()
            .filter(|n| !planted.contains(n))
            .collect();
        if let Some(n) = made.first() {
            break tmp.join(n);
        }
        assert!(start.elapsed() < common::TIMEOUT, "no scratch folder made");
        std::thread::sleep(Duration::from_millis(20));
    };
    let meta = std::fs::symlink_metadata(&scratch).unwrap();
    assert!(meta.is_dir(), "{} is a folder", scratch.display());
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    let name = scratch.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("gph-repl-"), "{name}");
    assert_ne!(
        name,
        format!("gph-repl-{}", child.id()),
        "a name anyone could guess"
    );
    stdin.write_all(b":quit\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("5050"));
    // Gone at the end; what was planted is as it was, and nothing was
    // written where the links point.
    assert_eq!(names(&tmp), planted);
    assert!(names(&elsewhere).is_empty());
    for d in [tmp, elsewhere, home] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// `gph repl` in `dir` (its home too), with `input`.
fn repl_in(dir: &Path, input: &[u8]) -> common::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gph"));
    cmd.arg("repl").env("HOME", dir).current_dir(dir);
    common::run_command(cmd, Some(input))
}

#[test]
fn graph_does_not_write_its_default_file_through_a_link() {
    let dir = fresh_dir("graph");
    let target = dir.join("someone-elses-file");
    std::fs::write(&target, "theirs\n").unwrap();
    symlink(&target, dir.join("gph-graph.dot")).unwrap();
    let out = repl_in(&dir, b":graph [1, 2, 3 :: Int]\n");
    let stderr = &out.stderr;
    assert_eq!(out.status, Some(0), "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs\n");
    // A file of the user's own naming is theirs to point anywhere.
    let out = repl_in(&dir, b":set graph-file mine.dot\n:graph [1, 2, 3 :: Int]\n");
    assert_eq!(out.status, Some(0));
    assert!(std::fs::read_to_string(dir.join("mine.dot"))
        .unwrap()
        .contains("digraph"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_heap_limit_below_the_smallest_is_refused_with_the_smallest() {
    for limit in ["1K", "3M", "4194303"] {
        let out = common::gph(
            &[
                "run",
                "--heap-limit",
                limit,
                "tests/programs/lex_comments.gph",
            ],
            None,
        );
        assert_eq!(out.status, Some(2), "{limit}: {}", out.stderr);
        assert!(
            out.stderr.contains("smallest heap limit, 4M"),
            "{}",
            out.stderr
        );
    }
    let out = common::gph(
        &[
            "run",
            "--heap-limit",
            "4M",
            "tests/programs/lex_comments.gph",
        ],
        None,
    );
    assert_eq!(out.status, Some(0), "{}", out.stderr);
}
