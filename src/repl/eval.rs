//! What is not a command: a statement. An expression is evaluated (or an
//! action run) and its value bound to `it`; a definition joins the
//! session's; `x <- action` binds a value the machine's session keeps.

use super::source::{Placed, Source};
use super::{Session, ENTRY, IT};
use gph_syntax::Diagnostic;

impl Session {
    /// A line that is not a command: an `import`, a definition (with `let`
    /// or without), `x <- action`, `PAT <- action`, or an expression.
    pub(super) fn statement(&mut self, line: &str) {
        let t = line.trim();
        if t.starts_with("import ") {
            let mut imports = self.imports.clone();
            imports.push(t.to_string());
            self.set_imports(imports);
            return;
        }
        // `let x = e` defines; `let x = e in x + 1` is an expression.
        if t.starts_with("let ") && self.type_of_quietly(line).is_none() {
            self.define(line, let_drop(line));
            return;
        }
        if let Some((name, action)) = bind_statement(line) {
            self.eval(action, Some(name));
            return;
        }
        if let Some((pat, action)) = pattern_bind_statement(line) {
            // `(a, b) <- action`: the result is bound to a hidden name, and
            // the pattern takes it apart as a definition of a and b.
            self.pattern_binds += 1;
            let hidden = format!("gph'bound{}", self.pattern_binds);
            if self.eval_bound(action, &hidden) {
                self.define(&format!("{pat} = {hidden}"), |_, _| 0);
            }
            return;
        }
        self.eval(line, None);
    }

    /// `:module + A B`, `:module - A`, `:module A B` (these and no other
    /// imports), `:module` (none), as GHCi's: what the session imports.
    pub(super) fn module_command(&mut self, arg: &str) {
        let (sign, names) = match arg.chars().next() {
            Some(c @ ('+' | '-')) => (Some(c), &arg[1..]),
            _ => (None, arg),
        };
        // GHCi's `*M` (M's whole scope) is M's exports here.
        let names: Vec<&str> = names
            .split_whitespace()
            .map(|n| n.trim_start_matches('*'))
            .collect();
        let module_of = |import: &str| {
            import
                .split_whitespace()
                .find(|w| *w != "import" && *w != "qualified")
                .unwrap_or("")
                .to_string()
        };
        let mut imports = match sign {
            None => Vec::new(),
            Some(_) => self.imports.clone(),
        };
        if sign == Some('-') {
            imports.retain(|i| !names.contains(&module_of(i).as_str()));
        } else {
            for n in names {
                if !imports.iter().any(|i| module_of(i) == n) {
                    imports.push(format!("import {n}"));
                }
            }
        }
        self.set_imports(imports);
    }

    /// The session's imports become these, unless the program does not
    /// compile with them (its errors are shown and nothing changes).
    fn set_imports(&mut self, imports: Vec<String>) {
        let before = std::mem::replace(&mut self.imports, imports);
        let src = self.source("");
        if self.types(&src, false).is_none() {
            self.imports = before;
        } else {
            self.refresh_names();
        }
    }

    /// The type of `gph'it` in this program (errors shown unless `quiet`).
    pub(super) fn it_type(&self, src: &Source, quiet: bool) -> Option<String> {
        self.types(src, quiet)?
            .into_iter()
            .find(|(n, _)| n == IT)
            .map(|(_, t)| t)
    }

    /// The type of `input` as an expression, without reporting errors.
    pub(super) fn type_of_quietly(&self, input: &str) -> Option<String> {
        let src = self.source_with(&format!("{IT} =\n"), Some(Placed::indented(input, 2)), "");
        self.it_type(&src, true)
    }

    /// Evaluates an expression (or runs an action) and binds its value to
    /// `it`, or to `bind` for `x <- action` (then nothing is printed).
    fn eval(&mut self, input: &str, bind: Option<&str>) {
        // An expression, or else a definition.
        let as_expr = |s: &Session, after: &str| {
            s.source_with(
                &format!("{IT} =\n"),
                Some(Placed::indented(input, 2)),
                after,
            )
        };
        // An action in an unknown monad (`return 'x'`) runs in IO, as in GHCi.
        let as_io = |s: &Session, after: &str| {
            s.source_with(
                &format!("{IT}'io :: IO a -> IO a\n{IT}'io a = a\n{IT} =\n  {IT}'io (\n"),
                Some(Placed::indented(input, 4)),
                &format!("  )\n{after}"),
            )
        };
        let type_of_it = |src: &Source| self.it_type(src, true);
        let expr_src = as_expr(self, "");
        let mut io = false;
        let mut ty = type_of_it(&expr_src);
        if ty.is_none() || bind.is_some() && !ty.as_deref().is_some_and(|t| t.starts_with("IO ")) {
            if let Some(t) = type_of_it(&as_io(self, "")) {
                ty = Some(t);
                io = true;
            }
        }
        let Some(ty) = ty else {
            if bind.is_none() && looks_like_definition(input) {
                return self.define(input, |_, _| 0);
            }
            self.types(&expr_src, false);
            return;
        };
        let action = ty.starts_with("IO ");
        if bind.is_some() && !action {
            // Shown against the input, as GHCi reports `x <- 5`.
            self.types(&as_io(self, ""), false);
            return;
        }
        let build = |s: &Session, after: &str| {
            if io {
                as_io(s, after)
            } else {
                as_expr(s, after)
            }
        };
        let mut value_ty = ty.strip_prefix("IO ").unwrap_or(&ty).to_string();
        // An action whose result type is a bare type variable (`printf
        // ...`, `IO a`) gives () and is not printed, as in GHCi.
        let unit = ty == "IO ()"
            || action
                && value_ty.chars().all(|c| c.is_alphanumeric() || c == '\'')
                && value_ty.starts_with(char::is_lowercase);
        let entry = if action && unit && ty != "IO ()" {
            value_ty = "()".to_string();
            format!("{ENTRY} = {IT} >> return ()\n")
        } else if bind.is_some() || unit {
            format!("{ENTRY} = {IT}\n")
        } else if action {
            format!("{ENTRY} = {IT} >>= \\{IT}'r -> print {IT}'r >> return {IT}'r\n")
        } else {
            format!("{ENTRY} = print {IT} >> return {IT}\n")
        };
        let shown_result = action && !unit && bind.is_none();
        let program = match self.compile(&build(self, &entry), shown_result) {
            // A result without Show is not printed.
            None if shown_result => self.compile(&build(self, &format!("{ENTRY} = {IT}\n")), false),
            p => p,
        };
        let Some(p) = program else { return };
        let name = bind.unwrap_or("it");
        let global = format!("{}.{name}", self.module());
        if self.run(&p, input, Some(&global)) {
            self.bind(name, &value_ty);
        }
    }

    /// Runs an action and binds its result to `name` (`x <- action`);
    /// whether it did.
    fn eval_bound(&mut self, action: &str, name: &str) -> bool {
        self.eval(action, Some(name));
        self.bound.iter().any(|(n, _)| n == name)
    }

    /// After `x <- action` (or an evaluation, for `it`): `name` holds a
    /// value of type `ty` from now on (declared in the program text, its
    /// value kept by the machine's session).
    fn bind(&mut self, name: &str, ty: &str) {
        let previous = self.bound.clone();
        self.bound.retain(|(n, _)| n != name);
        if ty.contains("=>") {
            // An overloaded value would need its dictionaries: GHCi
            // defaults it first; here it is not kept.
            if name != "it" {
                gph_runtime::host_eprintln!("gph: `{name}` is not kept: its type `{ty}` is overloaded (add a type annotation)");
            }
            return;
        }
        let defs = self.defs.clone();
        self.defs.retain(|(ns, _)| !ns.iter().any(|n| n == name));
        self.bound.push((name.to_string(), ty.to_string()));
        if self.types(&self.source(""), true).is_none() {
            self.bound = previous;
            self.defs = defs;
            if name != "it" {
                gph_runtime::host_eprintln!(
                    "gph: `{name}` is not kept: its type `{ty}` cannot be declared here"
                );
            }
            return;
        }
        self.refresh_names();
    }

    /// Adds a definition (`user` as typed; `drop(i, line)` characters of
    /// each line are not part of it, e.g. `let `).
    fn define(&mut self, user: &str, drop: impl Fn(usize, &str) -> usize) {
        let placed = Placed::new(user, 0, drop);
        let text = placed.text.clone();
        let bound = defined_names(&text);
        // A new definition replaces an older one of the same name.
        let old: Vec<(Vec<String>, String)> = self
            .defs
            .iter()
            .filter(|(ns, _)| !ns.iter().any(|n| bound.contains(n)))
            .cloned()
            .collect();
        let previous = std::mem::replace(&mut self.defs, old);
        let previous_bound = self.bound.clone();
        self.bound.retain(|(n, _)| !bound.contains(n));
        let src = self.source_with("", Some(placed), "");
        if self.types(&src, false).is_some() {
            self.defs.push((bound, text));
            self.refresh_names();
        } else {
            self.defs = previous;
            self.bound = previous_bound;
        }
    }

    /// The program with `gph'main` as its entry, or its errors (shown
    /// unless `quiet`).
    pub(super) fn compile(&self, src: &Source, quiet: bool) -> Option<gph_runtime::code::Program> {
        let (program, sources, diags) =
            gph_compiler::compile_entry(&src.file, ENTRY, &self.options(src));
        if quiet && diags.iter().any(Diagnostic::is_error) || self.report(src, &sources, &diags) {
            return None;
        }
        program
    }
}

/// `x <- action`: the name and the action.
fn bind_statement(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start();
    let end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .unwrap_or(t.len());
    let (name, rest) = t.split_at(end);
    let action = rest.trim_start().strip_prefix("<-")?;
    let keyword = matches!(name, "let" | "case" | "if" | "do" | "where" | "of" | "in");
    (name.starts_with(|c: char| c.is_lowercase() || c == '_') && !keyword)
        .then_some((name, action.trim_start()))
}

/// `PAT <- action` with a pattern that is not a plain variable (`(a, b)`,
/// `Just x`): the pattern and the action. The `<-` must be outside
/// brackets, and the pattern start with a bracket or a constructor.
fn pattern_bind_statement(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    if !t.starts_with(|c: char| c == '(' || c == '[' || c == '~' || c.is_uppercase()) {
        return None;
    }
    let mut depth = 0i32;
    let b = t.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'"' | b'\'' => return None,
            b'<' if depth == 0 && b.get(i + 1) == Some(&b'-') => {
                let pat = t[..i].trim();
                return (!pat.is_empty()).then(|| (pat, t[i + 2..].trim()));
            }
            _ => {}
        }
    }
    None
}

/// How much of each line of `let f x = ...` (possibly over several lines)
/// is not part of the definitions: `let ` and the spaces after it on the
/// first, and as many leading spaces (at most 4) on the others.
fn let_drop(text: &str) -> impl Fn(usize, &str) -> usize {
    let first = text.lines().next().unwrap_or("");
    let lead = first.len() - first.trim_start().len();
    let after_let = first.trim_start().strip_prefix("let").unwrap_or("");
    let gap = after_let.len() - after_let.trim_start().len();
    let first_drop = lead + 3 + gap;
    move |i, l: &str| {
        if i == 0 {
            first_drop
        } else {
            (l.len() - l.trim_start_matches(' ').len()).min(4)
        }
    }
}

fn looks_like_definition(input: &str) -> bool {
    let first = input.lines().next().unwrap_or("");
    let mut depth = 0i32;
    let b = first.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = if i > 0 { b[i - 1] } else { b' ' };
                let next = b.get(i + 1).copied().unwrap_or(b' ');
                if !b"=<>/!:".contains(&prev) && next != b'=' && next != b'>' {
                    return true;
                }
            }
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => return true,
            _ => {}
        }
    }
    false
}

/// The names a definition binds: the first word of each unindented line
/// (`f x = ..`, `f :: ..`), or the operator of `x <+> y = ..`.
fn defined_names(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    for l in text.lines() {
        if l.starts_with(char::is_whitespace) || l.is_empty() {
            continue;
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        let Some(w) = words.first() else { continue };
        if w.starts_with(['(', '[', '~']) && !w.starts_with("(,") {
            // A pattern binding, `(a, b) = e`: the variables before `=`.
            let lhs = l.split(" = ").next().unwrap_or("");
            for word in lhs.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'')) {
                if word.starts_with(|c: char| c.is_lowercase()) {
                    v.push(word.to_string());
                }
            }
            if lhs.starts_with('(') && !lhs.contains(',') && v.is_empty() {
                // `(<+>) = ...` is an operator's definition.
                v.push(lhs.trim_matches(['(', ')', ' ']).to_string());
            }
        } else if w.starts_with(|c: char| c.is_lowercase() || c == '_') {
            v.push(
                w.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
                    .to_string(),
            );
        } else if let Some(op) = words
            .get(1)
            .filter(|o| o.chars().all(|c| "!#$%&*+./<=>?@\\^|-~:".contains(c)))
        {
            v.push(op.to_string());
        }
    }
    v
}
