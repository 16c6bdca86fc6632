//! Where the compiler reads source files: a user's modules beside the main
//! file, and the REPL's `:load`. Natively the file system; in the browser
//! build (web/, docs/web.md), which has none, the files its page provides
//! ([`provide`]: the repository's example programs, the editor's text).

use std::path::Path;

/// The text of the source file at `path`.
pub fn read(path: &Path) -> std::io::Result<String> {
    imp::read(path)
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    pub fn read(path: &std::path::Path) -> std::io::Result<String> {
        std::fs::read_to_string(path)
    }
}

/// Makes `text` the file at `path` (relative, as the page names it:
/// `programs/sumEuler.gph`), replacing what was there.
#[cfg(target_arch = "wasm32")]
pub fn provide(path: &str, text: String) {
    imp::FILES.with(|f| f.borrow_mut().insert(imp::normal(Path::new(path)), text));
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::path::Path;

    thread_local! {
        pub static FILES: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
    }

    /// `./a/../b/C.gph` as `b/C.gph`.
    pub fn normal(path: &Path) -> String {
        let mut parts: Vec<String> = Vec::new();
        for c in path.components() {
            match c {
                std::path::Component::ParentDir => {
                    parts.pop();
                }
                std::path::Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                _ => {}
            }
        }
        parts.join("/")
    }

    pub fn read(path: &Path) -> std::io::Result<String> {
        FILES.with(|f| {
            f.borrow().get(&normal(path)).cloned().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory")
            })
        })
    }
}
