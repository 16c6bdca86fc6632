//! The README's first two commands stay true: `cargo run --release -- run
//! ...` must know which binary to run (the package has two, and cargo
//! refuses to choose without `default-run`: it did for a session after
//! gph-mpi came), and the test command is the one `.ci/run` runs.

use std::path::Path;

fn read(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_first_commands_of_the_readme_work() {
    let readme = read("README.md");
    let first: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("```"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(
        first
            .first()
            .is_some_and(|l| l.starts_with("cargo run --release -- run ")),
        "the README's first command: {first:?}"
    );
    assert!(
        first
            .get(1)
            .is_some_and(|l| l.starts_with("cargo test --workspace")),
        "the README's second command: {first:?}"
    );
    assert!(
        read(".ci/run")
            .lines()
            .any(|l| l.trim() == "cargo test --workspace"),
        ".ci/run runs the README's test command"
    );
    let manifest = read("Cargo.toml");
    let bins = manifest.matches("[[bin]]").count();
    assert!(
        bins <= 1 || manifest.contains("default-run = \"gph\""),
        "Cargo.toml has {bins} binaries and no `default-run = \"gph\"`: `cargo run` would refuse"
    );
}
