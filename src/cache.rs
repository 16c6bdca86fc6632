//! Compiled programs kept between runs of `gph run`, as GHC keeps its
//! interface and object files and MicroHs its compiled modules: a program
//! whose sources have not changed since this gph compiled it runs without
//! being compiled again.
//!
//! Why: compiling (the Prelude included) takes about 0.1 s on the 2-core
//! development machine and twice that on a slower 16-core Xeon, which on 16
//! PEs was up to 40 % of a whole run (nfib 38 24: 0.40 s, 0.24 s of it
//! running), a cost a GHC binary does not pay. With the program cached a
//! `gph run` starts running in a few milliseconds.
//!
//! An entry is one file, `DIR/HASH.bin`: postcard's encoding of
//! [`Entry`]. HASH names the main file's path and text, the compiler's
//! options and this gph; an entry is used only if everything it was
//! compiled from is as it was, compared in full, not by hash: this gph
//! (its executable's path, size and modification time: a rebuilt gph
//! compiles anew), the options, the text of every file of the user's
//! modules, and the absence of the files the module search would have
//! taken before them. Only programs that compiled without errors are
//! kept. A cache that cannot be read or written is no cache: the program
//! is compiled, as without one.
//!
//! DIR is `$GPH_CACHE_DIR`, else `$XDG_CACHE_HOME/gph`, else
//! `$HOME/.cache/gph`; `gph run --recompile` compiles (and keeps) the
//! program afresh.

use gph_compiler::front::modules;
use gph_runtime::code::Program;
use gph_syntax::{SourceFile, SourceMap};
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// What a compiled program was compiled from, and the program.
#[derive(Serialize, Deserialize)]
struct Entry {
    build: String,
    options: String,
    /// The main file and the user's modules: (path, text).
    files: Vec<(String, String)>,
    /// Files that must still not exist (`modules::looked_for_first`).
    absent: Vec<String>,
    program: Program,
}

/// Where this run keeps compiled programs, if anywhere.
fn dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = var("GPH_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("gph"));
    }
    var("HOME").map(|h| PathBuf::from(h).join(".cache").join("gph"))
}

/// This gph: a rebuilt executable compiles programs anew.
fn build() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!(
        "{} {} {} {}",
        env!("CARGO_PKG_VERSION"),
        exe.display(),
        meta.len(),
        mtime.as_nanos()
    ))
}

/// The cache's view of one compilation: where its entry lives and what
/// it must match.
pub struct Key {
    path: PathBuf,
    build: String,
    options: String,
}

impl Key {
    /// The key of compiling `main` with `options`; None when there is no
    /// cache to use.
    pub fn new(main: &SourceFile, options: &gph_compiler::Options) -> Option<Key> {
        let build = build()?;
        let options = format!("{options:?}");
        let mut h = rustc_hash::FxHasher::default();
        (&build, &options, &main.name, &main.text).hash(&mut h);
        let path = dir()?.join(format!("{:016x}.bin", h.finish()));
        Some(Key {
            path,
            build,
            options,
        })
    }

    /// The program compiled from exactly these sources, if kept.
    pub fn lookup(&self) -> Option<Program> {
        let bytes = std::fs::read(&self.path).ok()?;
        let e: Entry = postcard::from_bytes(&bytes).ok()?;
        // (Recently used: the last to go when the cache is pruned.)
        if let Ok(f) = std::fs::File::options().write(true).open(&self.path) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        let same = e.build == self.build
            && e.options == self.options
            && e.files
                .iter()
                .all(|(path, text)| std::fs::read_to_string(path).is_ok_and(|now| now == *text))
            && e.absent.iter().all(|p| !std::path::Path::new(p).exists());
        same.then_some(e.program)
    }

    /// Keeps `program`, compiled from `sources` (the main file first).
    /// Failing to is not an error: the next run compiles again.
    pub fn store(&self, program: &Program, sources: &SourceMap) {
        let mut files = Vec::new();
        let mut absent = Vec::new();
        for (i, f) in sources.files.iter().enumerate() {
            if modules::is_library_file(&f.name) {
                continue;
            }
            // The text on disk (a literate file's source map holds the
            // code alone).
            let Ok(text) = std::fs::read_to_string(&f.name) else {
                return;
            };
            if i > 0 {
                absent.extend(modules::looked_for_first(&f.name));
            }
            files.push((f.name.clone(), text));
        }
        let entry = Entry {
            build: self.build.clone(),
            options: self.options.clone(),
            files,
            absent,
            program: program.clone(),
        };
        let Ok(bytes) = postcard::to_stdvec(&entry) else {
            return;
        };
        // Written aside and renamed: a run reading it at the same time
        // sees the old entry or the new one, never half of one.
        let Some(dir) = self.path.parent() else {
            return;
        };
        // The folder is the user's alone, and the entry is written under a
        // name that must not exist yet (nor be a link: src/files.rs).
        if crate::files::private_dir(dir).is_err() {
            return;
        }
        let tmp = self
            .path
            .with_extension(format!("{}.tmp", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        if crate::files::write_fresh(&tmp, &bytes).is_ok() {
            if std::fs::rename(&tmp, &self.path).is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
        } else {
            let _ = std::fs::remove_file(&tmp);
        }
        prune(dir);
    }
}

/// Bytes of entries kept at most: when there are more, the least recently
/// used go until `KEEP` bytes are left. An entry is 50-700 KB (the
/// Prelude's code is in each), so this is some two thousand programs. It
/// was 256 entries: fewer than the test suite's golden corpus, which runs
/// its 261 programs in turn, so each run found its entry just pruned and
/// compiled again (about 0.1 s a run, some 2,300 runs in tests/run.rs).
const MOST: u64 = 128 << 20;
const KEEP: u64 = 96 << 20;

fn prune(dir: &std::path::Path) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<(std::time::SystemTime, u64, PathBuf)> = read
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "bin"))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, meta.len(), e.path()))
        })
        .collect();
    let mut total: u64 = entries.iter().map(|e| e.1).sum();
    if total <= MOST {
        return;
    }
    entries.sort();
    for (_, len, p) in &entries {
        if total <= KEEP {
            break;
        }
        let _ = std::fs::remove_file(p);
        total -= len;
    }
}
