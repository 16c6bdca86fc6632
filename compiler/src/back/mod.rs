//! The back end (docs/backend.md): simplified Core → lifted
//! supercombinators → strictness → `code::Program`. The passes are the
//! submodules, run in order by `crate::compile_core`; this module holds
//! what they produced and the printers of `gph dump --stage sc|code`.

pub mod codegen;
pub mod lift;
pub mod prims;
pub mod strictness;

use crate::core;
use gph_code as code;
use strictness::Info;

/// Everything the back end produced, for dumps and the REPL.
pub struct Compiled {
    /// The Core that was lifted: after the simplifier and deforestation.
    pub core: core::Program,
    pub lifted: lift::Program,
    pub info: Info,
    pub code: code::Program,
    /// Internal errors: Core Lint's and the code generator's (none expected).
    pub errors: Vec<String>,
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
mod tests;

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
