//! The back end: simplified Core → lifted supercombinators → strictness →
//! `code::Program`, and the printers of `gph dump --stage sc|code`.

use crate::codegen;
use crate::core;
use crate::fuse;
use crate::lift;
use crate::lint;
use crate::simplify;
use crate::strictness::{self, Info};
use gph_runtime::code;

/// Everything the back end produced, for dumps and the REPL.
pub struct Compiled {
    pub core: core::Program,
    pub lifted: lift::Program,
    pub info: Info,
    pub code: code::Program,
    /// Internal errors of the code generator (none expected).
    pub errors: Vec<String>,
}

/// Runs the back end on a whole (closed) Core program. `main` is the
/// original name of the entry point (`Main.main`), if there is one.
pub fn compile_core(
    mut core: core::Program,
    main: Option<&str>,
    opts: &crate::Options,
) -> Compiled {
    // Core Lint after every pass (the first failure is the one to read).
    let mut lint_error: Option<lint::LintError> = None;
    let mut check = |p: &core::Program, pass: &str, unique: bool| {
        if opts.lint && lint_error.is_none() {
            lint_error = lint::core(p, pass, unique).err();
        }
    };
    check(&core, "desugaring", false);
    let mut next = if opts.optimise {
        let mut each_round = |p: &core::Program, pass: &str| check(p, pass, true);
        let hook: Option<&mut simplify::LintHook> = opts.lint.then_some(&mut each_round);
        let mut next = simplify::simplify(&mut core, hook);
        fuse::fuse(&mut core, &mut next);
        check(&core, "deforestation", true);
        next
    } else {
        let next = simplify::prepare(&mut core);
        check(&core, "renaming", true);
        next
    };
    let lifted = lift::lift(&core, &mut next);
    let info = strictness::analyse(&lifted);
    if opts.lint && lint_error.is_none() {
        lint_error = lint::lifted(&lifted, None, "lambda lifting")
            .and_then(|()| lint::lifted(&lifted, Some(&info), "strictness and workers"))
            .err();
    }
    let (code, codegen_errors) = codegen::generate(&lifted, info.clone(), main);
    let mut errors: Vec<String> = lint_error.iter().map(|e| e.to_string()).collect();
    errors.extend(
        codegen_errors
            .into_iter()
            .map(|e| format!("in the code generator: {e}")),
    );
    Compiled {
        core,
        lifted,
        info,
        code,
        errors,
    }
}

impl Compiled {
    /// The lifted supercombinators whose top-level parent starts with
    /// `prefix` (`Main.`), with the strictness and workers found.
    pub fn show_sc(&self, prefix: &str) -> String {
        let mut out = String::new();
        for sc in &self.lifted.scs {
            if sc.parent.starts_with(prefix) {
                out.push_str(&sc.to_string());
                let s = self.info.show(std::slice::from_ref(&sc.name));
                if !s.is_empty() {
                    out.push_str(&format!("  -- {s}\n"));
                }
            }
        }
        out
    }

    /// The code of every supercombinator whose name starts with `prefix`.
    pub fn show_code(&self, prefix: &str) -> String {
        let mut out = String::new();
        for (i, sc) in self.code.scs.iter().enumerate() {
            if sc.name.starts_with(prefix) {
                out.push_str(&self.code.show_sc(code::ScId(i as u32)));
                out.push('\n');
            }
        }
        out
    }

    /// `:sc NAME`: the lifted supercombinators of one top-level definition
    /// and their code.
    pub fn supercombinators_of(&self, name: &str) -> Option<String> {
        self.lifted.sc(name)?;
        let mut out = String::new();
        for sc in &self.lifted.scs {
            if &*sc.parent == name {
                out.push_str(&sc.to_string());
            }
        }
        out.push_str(&self.info.show(&[name.into()]));
        out.push('\n');
        for (i, sc) in self.code.scs.iter().enumerate() {
            if sc.name == name || sc.name.starts_with(&format!("{name}$")) {
                out.push_str(&self.code.show_sc(code::ScId(i as u32)));
                out.push('\n');
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gph_syntax::SourceFile;
    use std::path::PathBuf;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    pub(crate) fn compile_file(path: &std::path::Path) -> Option<(Compiled, String)> {
        let text = std::fs::read_to_string(path).unwrap();
        let file = SourceFile::new(path.to_str().unwrap(), text);
        let (c, _, _) = crate::compile_full(&file, "main", &crate::Options::default());
        c.map(|(c, m)| (c, m.to_string()))
    }

    fn corpus() -> Vec<PathBuf> {
        let mut files = Vec::new();
        for dir in ["programs", "tests/programs"] {
            let mut fs: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "gph"))
                .collect();
            fs.sort();
            files.extend(fs);
        }
        files
    }

    #[test]
    fn the_code_of_every_program_is_well_formed() {
        let mut failures = Vec::new();
        let mut checked = 0;
        for path in corpus() {
            let Some((c, _)) = compile_file(&path) else {
                continue;
            };
            checked += 1;
            if !c.errors.is_empty() {
                failures.push(format!(
                    "{}: {:?}",
                    path.display(),
                    &c.errors[..c.errors.len().min(5)]
                ));
            }
            if let Err(es) = gph_runtime::validate::validate(&c.code) {
                failures.push(format!("{}: {:?}", path.display(), &es[..es.len().min(5)]));
            }
        }
        assert!(checked > 50, "only {checked} programs compiled");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

#[cfg(test)]
mod dump {
    /// `GPH_DUMP=file.gph GPH_STAGE=sc|code|core cargo test dump_stage -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn dump_stage() {
        let path = std::env::var("GPH_DUMP").unwrap();
        let stage = std::env::var("GPH_STAGE").unwrap_or_else(|_| "code".into());
        let prefix = std::env::var("GPH_PREFIX").ok();
        let text = std::fs::read_to_string(&path).unwrap();
        let file = gph_syntax::SourceFile::new(&path, text);
        let (c, _, d) = crate::compile_full(&file, "", &crate::Options::default());
        for x in &d {
            eprintln!("{}", x.message);
        }
        let (c, m) = c.unwrap();
        let prefix = prefix.unwrap_or(format!("{m}."));
        match stage.as_str() {
            "sc" => println!("{}", c.show_sc(&prefix)),
            "core" => {
                for (n, e) in &c.core.binds {
                    if n.starts_with(&prefix) {
                        println!(
                            "{n} =\n  {}\n",
                            crate::core::show_expr(e).replace('\n', "\n  ")
                        );
                    }
                }
            }
            _ => println!("{}", c.show_code(&prefix)),
        }
    }
}
