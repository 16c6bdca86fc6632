//! Files and the shell: `:load`, `:reload`, `:cd`, `:edit`, `:!`, and the
//! module the session's names live in.

use super::Session;

impl Session {
    pub(super) fn load(&mut self, file: Option<String>) {
        // As in GHCi, loading starts afresh: no bindings, no CAF values.
        self.defs.clear();
        self.imports.clear();
        self.bound.clear();
        self.machine_session = gph_runtime::session::Session::new();
        self.file = None;
        self.text.clear();
        self.target = file.clone();
        if let Some(f) = file {
            match gph_syntax::files::read(std::path::Path::new(&f)) {
                Ok(t) => {
                    self.text = t;
                    self.file = Some(f.clone());
                }
                Err(e) => {
                    gph_runtime::host_eprintln!("gph: cannot read {f}: {e}");
                    return;
                }
            }
            let src = self.source("");
            if self.types(&src, false).is_some() {
                gph_runtime::host_println!("Ok, loaded {f}.");
            } else {
                // As GHCi: nothing stays loaded, so that expressions are
                // evaluated in the Prelude's scope; :reload tries the file
                // again.
                self.file = None;
                self.text.clear();
                gph_runtime::host_println!("Failed, no modules loaded (fix {f} and :reload).");
            }
        }
        self.refresh_names();
    }

    /// The module the session's names live in.
    pub(super) fn module(&self) -> String {
        if self.file.is_some() {
            module_of(&self.text)
        } else {
            "Interactive".to_string()
        }
    }

    /// `:cd DIR`: the REPL's working directory (GHCi's): files loaded
    /// and written from now on are relative to it.
    pub(super) fn cd(&mut self, dir: &str) {
        let dir = if dir.is_empty() {
            std::env::var("HOME").unwrap_or_else(|_| "/".into())
        } else {
            dir.to_string()
        };
        // The loaded file stays loaded: its name made absolute first.
        let absolute = |f: &Option<String>| {
            f.as_ref()
                .and_then(|f| std::fs::canonicalize(f).ok())
                .map(|f| f.to_string_lossy().into_owned())
        };
        let (loaded, target) = (absolute(&self.file), absolute(&self.target));
        if let Err(e) = std::env::set_current_dir(&dir) {
            gph_runtime::host_eprintln!("gph: cannot change to {dir}: {e}");
            return;
        }
        if loaded.is_some() {
            self.file = loaded;
        }
        if target.is_some() {
            self.target = target;
        }
    }

    /// `:edit [FILE]`: the file (the loaded one by default) in $EDITOR,
    /// then loaded again if it was the loaded one.
    pub(super) fn edit(&mut self, arg: &str) {
        let file = if arg.is_empty() {
            match &self.target {
                Some(f) => f.clone(),
                None => {
                    gph_runtime::host_println!("no file to edit: :edit FILE, or :load one first");
                    return;
                }
            }
        } else {
            arg.to_string()
        };
        let editor = std::env::var("VISUAL")
            .or_else(|_| std::env::var("EDITOR"))
            .unwrap_or_else(|_| "vi".into());
        match std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$1\""))
            .arg("sh")
            .arg(&file)
            .status()
        {
            Ok(st) if st.success() => {
                if self.target.as_deref() == Some(file.as_str()) || self.target.is_none() {
                    self.load(Some(file));
                }
            }
            Ok(st) => gph_runtime::host_eprintln!("gph: the editor ({editor}) failed: {st}"),
            Err(e) => gph_runtime::host_eprintln!("gph: cannot run the editor ({editor}): {e}"),
        }
    }
}

pub(super) fn module_of(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("module "))
        .and_then(|r| r.split(|c: char| c.is_whitespace() || c == '(').next())
        .map(String::from)
        .unwrap_or_else(|| "Main".to_string())
}

/// `:! CMD`: a shell command.
pub(super) fn shell(cmd: &str) {
    if let Err(e) = std::process::Command::new("sh").arg("-c").arg(cmd).status() {
        gph_runtime::host_eprintln!("gph: cannot run the shell: {e}");
    }
}
