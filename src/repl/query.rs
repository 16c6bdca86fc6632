//! Questions about the program, answered by the compiler without running
//! anything: `:type`, `:browse`, `:info`, `:kind`, `:sc`.

use super::load::module_of;
use super::source::Placed;
use super::{Session, IT, KIND};
use gph_syntax::Span;

impl Session {
    /// `:type EXPR`.
    pub(super) fn show_type(&self, expr: &str) {
        if expr.trim().is_empty() {
            gph_runtime::host_println!("usage: :type EXPR");
            return;
        }
        if let Some(t) = self.declared_type(expr).or_else(|| self.type_of(expr)) {
            gph_runtime::host_println!("{expr} :: {t}");
        }
    }

    /// The type of a name as its declaration gives it (its signature's
    /// variable names), when the expression is just a name.
    fn declared_type(&self, expr: &str) -> Option<String> {
        let e = expr.trim();
        let name = e
            .strip_prefix('(')
            .and_then(|n| n.strip_suffix(')'))
            .filter(|n| {
                !n.is_empty()
                    && !n.contains(|c: char| c.is_alphanumeric() || "(),[]`\"'".contains(c))
            })
            .unwrap_or(e);
        let is_name = name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '\'')
        }) && name.starts_with(|c: char| c.is_alphabetic() || c == '_');
        let is_op = name != e;
        if !(is_name || is_op) {
            return None;
        }
        let src = self.source("");
        gph_compiler::repl::info::declared_type(&src.file, name, &self.options(&src))
    }

    /// The type of an expression, generalised as GHCi shows it.
    fn type_of(&self, expr: &str) -> Option<String> {
        // A function of () escapes the monomorphism restriction.
        let src = self.source_with(&format!("{IT} () =\n"), Some(Placed::indented(expr, 2)), "");
        self.it_type(&src, false).map(|t| strip_unit_arg(&t))
    }

    /// `:info NAME...`: what each name is, as GHCi says it.
    pub(super) fn info(&self, arg: &str) {
        if arg.is_empty() {
            gph_runtime::host_println!("usage: :info NAME");
            return;
        }
        for name in arg.split_whitespace() {
            // `(+)` is asked for as `+`.
            let name = name
                .strip_prefix('(')
                .and_then(|n| n.strip_suffix(')'))
                .filter(|n| !n.is_empty() && !n.starts_with(','))
                .unwrap_or(name);
            let src = self.source("");
            let out = gph_compiler::repl::info::info(&src.file, name, &self.options(&src));
            if let Some(o) = &out.output {
                gph_runtime::host_print!("{o}");
            } else if out.diagnostics.iter().all(|d| d.span == Span::default()) {
                for d in &out.diagnostics {
                    gph_runtime::host_eprintln!("gph: {}", d.message);
                }
            } else {
                self.report(&src, &out.sources, &out.diagnostics);
            }
        }
    }

    /// `:kind TYPE`: its kind, as the kind checker infers it.
    pub(super) fn kind(&self, ty: &str) {
        if ty.is_empty() {
            gph_runtime::host_println!("usage: :kind TYPE");
            return;
        }
        // A class has a kind too (GHCi: `Functor :: (* -> *) -> Constraint`).
        let name = ty.trim();
        if name.starts_with(char::is_uppercase) && !name.contains(char::is_whitespace) {
            let src = self.source("");
            let opts = self.options(&src);
            if let Some(k) = gph_compiler::repl::info::class_kind_of(&src.file, name, &opts) {
                gph_runtime::host_println!("{name} :: {k}");
                return;
            }
        }
        let src = self.source_with(
            &format!("type {KIND} =\n"),
            Some(Placed::indented(ty, 2)),
            "",
        );
        let out = gph_compiler::repl::info::kind(&src.file, KIND, &self.options(&src));
        match &out.output {
            Some(k) => gph_runtime::host_println!("{} :: {k}", ty.trim()),
            None => {
                self.report(&src, &out.sources, &out.diagnostics);
            }
        }
    }

    pub(super) fn browse(&self) {
        let src = self.source("");
        if let Some(ts) = self.types(&src, false) {
            for (n, t) in ts {
                let shown = if n.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                    n
                } else {
                    format!("({n})")
                };
                gph_runtime::host_println!("{shown} :: {t}");
            }
        }
    }

    pub(super) fn show_sc(&self, name: &str) {
        let src = self.source("");
        let (program, sources, diags) = gph_compiler::compile_entry(&src.file, "", &self.compiler);
        if self.report(&src, &sources, &diags) {
            return;
        }
        let Some(program) = program else { return };
        let module = if self.file.is_some() {
            module_of(&self.text)
        } else {
            "Interactive".to_string()
        };
        let full = format!("{module}.{name}");
        let mut found = false;
        for (i, sc) in program.scs.iter().enumerate() {
            let rest = sc.name.strip_prefix(&full);
            if rest.is_some_and(|r| r.is_empty() || r.starts_with('$')) {
                gph_runtime::host_print!("{}", program.show_sc(gph_runtime::code::ScId(i as u32)));
                found = true;
            }
        }
        if !found {
            gph_runtime::host_println!(
                "no supercombinators for `{name}` (is it a top-level definition?)"
            );
        }
    }
}

/// `() -> T` becomes `T`, keeping a context: `Num a => () -> a` is `Num a => a`.
fn strip_unit_arg(t: &str) -> String {
    // The context's `=>` is the first one unless the type begins with the
    // argument (`() -> (forall a. Show a => a -> String) -> C`).
    if let Some(rest) = t.strip_prefix("() -> ") {
        return rest.to_string();
    }
    match t.split_once("=> ") {
        Some((ctx, rest)) => format!("{ctx}=> {}", rest.strip_prefix("() -> ").unwrap_or(rest)),
        None => t.to_string(),
    }
}
