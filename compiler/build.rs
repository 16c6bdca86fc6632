//! Embeds the Prelude and library modules (`prelude/**/*.gph`) into the compiler.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, root: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "gph") {
            let rel = p.strip_prefix(root).expect("under root").with_extension("");
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(".");
            // Only module-shaped paths (capitalised components) are library modules.
            if name
                .split('.')
                .all(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
            {
                out.push((name, p));
            }
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../prelude");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut src = String::from("/// The library modules built into gph: (module name, path for messages, source).\npub static LIBRARY: &[(&str, &str, &str)] = &[\n");
    for (name, path) in &files {
        let canon = path.canonicalize().expect("prelude file");
        let rel = path.strip_prefix(&root).expect("under root");
        src.push_str(&format!(
            "    ({name:?}, \"<prelude>/{}\", include_str!({:?})),\n",
            rel.display(),
            canon.display()
        ));
        println!("cargo:rerun-if-changed={}", canon.display());
    }
    src.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("library.rs");
    std::fs::write(out, src).expect("write library table");
}
