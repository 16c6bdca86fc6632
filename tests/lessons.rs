//! The lessons in docs/teaching/ replayed: every ```repl block of a lesson
//! is a transcript of `gph repl --echo` (its standard error merged in); the
//! inputs (lines after the `gph> ` and `gph| ` prompts) of all the blocks
//! of a lesson are typed into one session, and what it prints must be the
//! text of the blocks. Pictures the lesson writes into docs/teaching/ are
//! written to a scratch directory instead and compared with the checked-in
//! ones. UPDATE_SNAPSHOTS=1 rewrites the blocks and pictures (review the
//! diff, then commit).

mod common;

use common::without_svg;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PICTURES: &str = "docs/teaching/";

struct Block {
    /// Line numbers of the opening and closing fences.
    open: usize,
    close: usize,
    inputs: Vec<String>,
}

fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() == "```repl" {
            let open = i;
            let mut inputs = Vec::new();
            i += 1;
            while i < lines.len() && lines[i].trim_end() != "```" {
                if lines[i].starts_with("gph> ") || lines[i].starts_with("gph| ") {
                    inputs.push(lines[i][5..].to_string());
                }
                i += 1;
            }
            out.push(Block {
                open,
                close: i,
                inputs,
            });
        }
        i += 1;
    }
    out
}

/// `gph repl --echo` on `script`, standard error merged into its output.
fn replay(script: &str, scratch: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let home = scratch.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" repl --echo 2>&1")
        .arg(env!("CARGO_BIN_EXE_gph"))
        .current_dir(root)
        .env("HOME", &home)
        .env("EDITOR", "true")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gph runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = script.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("gph finishes");
    writer.join().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn lessons_replay_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join(PICTURES);
    let mut lessons: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("docs/teaching")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    lessons.sort();
    assert!(!lessons.is_empty());
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for lesson in lessons {
        let text = std::fs::read_to_string(&lesson).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let bs = blocks(&lines);
        if bs.is_empty() {
            continue;
        }
        let scratch = std::env::temp_dir().join(format!(
            "gph-lesson-{}-{}",
            std::process::id(),
            lesson.file_stem().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).unwrap();
        let here = format!("{}/", scratch.display());
        let mut script = String::new();
        for b in &bs {
            for i in &b.inputs {
                script.push_str(&i.replace(PICTURES, &here));
                script.push('\n');
            }
        }
        let out = replay(&script, &scratch).replace(&here, PICTURES);
        // The banner, then each block's inputs (echoed) and what they print.
        let mut got: Vec<&str> = out.lines().skip(1).collect();
        let mut actual: Vec<Vec<String>> = Vec::new();
        for (k, b) in bs.iter().enumerate() {
            let next_first = bs.get(k + 1).and_then(|n| n.inputs.first());
            let mut mine = Vec::new();
            let mut seen = 0;
            while let Some(l) = got.first() {
                let echo = l.starts_with("gph> ") || l.starts_with("gph| ");
                if echo && seen == b.inputs.len() && next_first.is_some_and(|n| l[5..] == **n) {
                    break;
                }
                if echo {
                    seen += 1;
                }
                mine.push(l.to_string());
                got.remove(0);
            }
            actual.push(mine);
        }
        let expected: Vec<Vec<String>> = bs
            .iter()
            .map(|b| {
                lines[b.open + 1..b.close]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            })
            .collect();
        // Whether `:graph` could also draw SVG depends on Graphviz.
        let same = |a: &Vec<String>, e: &Vec<String>| {
            without_svg(&a.join("\n")) == without_svg(&e.join("\n"))
        };
        if update {
            let mut new = Vec::new();
            let mut at = 0;
            for (b, a) in bs.iter().zip(&actual) {
                new.extend(lines[at..=b.open].iter().map(|s| s.to_string()));
                new.extend(a.iter().cloned());
                at = b.close;
            }
            new.extend(lines[at..].iter().map(|s| s.to_string()));
            std::fs::write(&lesson, new.join("\n") + "\n").unwrap();
        } else if actual.len() != expected.len()
            || actual.iter().zip(&expected).any(|(a, e)| !same(a, e))
        {
            for (k, (a, e)) in actual.iter().zip(&expected).enumerate() {
                if !same(a, e) {
                    failures.push(format!(
                        "{} block {} (line {}) differs\n--- expected\n{}\n--- actual\n{}",
                        lesson.display(),
                        k + 1,
                        bs[k].open + 1,
                        e.join("\n"),
                        a.join("\n")
                    ));
                }
            }
        }
        // Pictures: as checked in.
        for f in std::fs::read_dir(&scratch).unwrap().flatten() {
            let p = f.path();
            if p.is_dir() {
                continue;
            }
            let name = p.file_name().unwrap();
            let mine = dir.join(name);
            // An SVG that Graphviz drew from a DOT file of ours: its bytes
            // are Graphviz's (the DOT file is compared).
            let drawn =
                p.extension().is_some_and(|e| e == "svg") && p.with_extension("dot").exists();
            if drawn && !update {
                continue;
            }
            let made = std::fs::read(&p).unwrap();
            if update {
                std::fs::write(&mine, &made).unwrap();
            } else if std::fs::read(&mine).ok().as_deref() != Some(&made[..]) {
                failures.push(format!(
                    "{} differs from what the lesson makes now",
                    mine.display()
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        failures.is_empty(),
        "{}\n(UPDATE_SNAPSHOTS=1 rewrites them)",
        failures.join("\n\n")
    );
}
