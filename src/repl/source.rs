//! The program text of an input: the loaded file, the session's imports,
//! definitions and bound names, then the input placed under a synthetic
//! binding; and its diagnostics moved back into what the user typed.

use super::{Session, IT, KIND};
use crate::options::report;
use gph_syntax::{Diagnostic, SourceFile, SourceMap, Span};

/// What the session's program looks like with some extra text appended.
pub(super) struct Source {
    pub(super) file: SourceFile,
    /// Where the appended part starts.
    split: usize,
    /// Where the text the user typed went, for errors against it.
    input: Option<Placed>,
}

/// The types of a module's bindings: (name, type) as `:type` shows them.
pub(super) type Types = Vec<(String, String)>;

/// What a check of a [`Source`] depends on besides the files on disk.
#[derive(PartialEq)]
pub(super) struct Key {
    name: String,
    text: String,
    split: usize,
}

impl Source {
    pub(super) fn key(&self) -> Key {
        Key {
            name: self.file.name.clone(),
            text: self.file.text.clone(),
            split: self.split,
        }
    }
}

/// The user's input as placed in the program text: every line moved
/// (indented under a synthetic binding, or `let ` taken off), with the map
/// back to the user's own text so that errors point there.
pub(super) struct Placed {
    /// The user's text.
    user: String,
    /// The text as placed.
    pub(super) text: String,
    /// Per line: (offset in `text`, offset in `user`, length) of the part
    /// both share.
    lines: Vec<(usize, usize, usize)>,
    /// Where `text` starts in the program (set by `Session::source`).
    at: usize,
}

impl Placed {
    /// Each line of `user` with `drop(i, line)` characters taken off its
    /// start and `indent` spaces put before it.
    pub(super) fn new(user: &str, indent: usize, drop: impl Fn(usize, &str) -> usize) -> Placed {
        let mut text = String::new();
        let mut lines = Vec::new();
        let mut upos = 0;
        for (i, l) in user.split('\n').enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let d = drop(i, l).min(l.len());
            text.push_str(&" ".repeat(indent));
            lines.push((text.len(), upos + d, l.len() - d));
            text.push_str(&l[d..]);
            upos += l.len() + 1;
        }
        Placed {
            user: user.to_string(),
            text,
            lines,
            at: 0,
        }
    }

    pub(super) fn indented(user: &str, indent: usize) -> Placed {
        Placed::new(user, indent, |_, _| 0)
    }

    /// The user's offset of a program offset, if it falls in their text.
    fn to_user(&self, pos: usize) -> Option<usize> {
        let rel = pos.checked_sub(self.at)?;
        self.lines
            .iter()
            .find(|(t, _, n)| rel >= *t && rel <= t + n)
            .map(|(t, u, _)| u + (rel - t))
    }
}

impl Session {
    /// The program text: the file (or an empty module), the session's
    /// imports and definitions, then `before`, the user's input as placed,
    /// and `after`.
    pub(super) fn source_with(&self, before: &str, input: Option<Placed>, after: &str) -> Source {
        let mut text = if self.file.is_some() {
            self.text.clone()
        } else {
            "module Interactive where\n".to_string()
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        // Imports must precede the declarations: put them after the last one.
        if !self.imports.is_empty() {
            let at = last_import_end(&text);
            let mut added = String::new();
            for i in &self.imports {
                added.push_str(i);
                added.push('\n');
            }
            text.insert_str(at, &added);
        }
        // `:set -X` extensions: a pragma in front, on the first line (no
        // line of the file moves), after the imports are placed (which look
        // for the lines that begin with `module` and `import`).
        if !self.extensions.is_empty() {
            text.insert_str(
                0,
                &format!("{{-# LANGUAGE {} #-}} ", self.extensions.join(", ")),
            );
        }
        let split = text.len();
        for (_, d) in &self.defs {
            text.push_str(d);
            text.push('\n');
        }
        // Names bound by `x <- action` and `it`: their values are in the
        // machine's session (this body never runs).
        for (n, t) in &self.bound {
            text.push_str(&format!("{n} :: {t}\n{n} = {n}\n"));
        }
        text.push_str(before);
        let input = input.map(|mut p| {
            p.at = text.len();
            text.push_str(&p.text);
            text.push('\n');
            p
        });
        text.push_str(after);
        let name = self.file.clone().unwrap_or_else(|| "<interactive>".into());
        Source {
            file: SourceFile::new(name, text),
            split,
            input,
        }
    }

    pub(super) fn source(&self, extra: &str) -> Source {
        self.source_with(extra, None, "")
    }

    /// The compiler's options for this source: what the user typed follows
    /// GHCi's extended default rules.
    pub(super) fn options(&self, src: &Source) -> gph_compiler::Options {
        gph_compiler::Options {
            interactive_from: Some(src.split as u32),
            ..self.compiler
        }
    }

    /// Shows diagnostics. Those about the appended part are shown against
    /// the user's input (`<interactive>`), never the synthetic lines around
    /// it: a span outside the input points at the whole input.
    pub(super) fn report(&self, src: &Source, sources: &SourceMap, diags: &[Diagnostic]) -> bool {
        let mut map = SourceMap::default();
        let split = src.split as u32;
        let main = sources
            .files
            .iter()
            .position(|f| f.name == src.file.name && f.text == src.file.text);
        let user = src.input.as_ref().map_or("", |p| p.user.as_str());
        let end_of_main = main.map(|i| sources.files[i].base + src.file.text.len() as u32);
        for (i, f) in sources.files.iter().enumerate() {
            if Some(i) == main {
                let prefix = &f.text[..src.split];
                if self.file.is_some() || src.input.is_some() {
                    map.files
                        .push(SourceFile::with_base(f.name.clone(), prefix, f.base));
                    map.files
                        .push(SourceFile::with_base("<interactive>", user, f.base + split));
                } else {
                    map.files.push(f.clone());
                }
            } else {
                map.files.push(f.clone());
            }
        }
        let base = main.map_or(0, |i| sources.files[i].base);
        let whole = Span::new(
            (base + split) as usize,
            (base + split) as usize + user.len(),
        );
        let place = |sp: Span| -> Span {
            let appended = base + split..=end_of_main.unwrap_or(0);
            if main.is_none() || !appended.contains(&sp.start) || src.input.is_none() {
                return sp;
            }
            let p = src.input.as_ref().unwrap();
            let at = |x: u32| p.to_user((x - base) as usize);
            match (at(sp.start), at(sp.end.max(sp.start))) {
                (Some(a), Some(b)) => Span::new(whole.start as usize + a, whole.start as usize + b),
                (Some(a), None) => Span::new(whole.start as usize + a, whole.end as usize),
                _ => whole,
            }
        };
        let diags: Vec<Diagnostic> = diags
            .iter()
            .map(|d| {
                let mut d = d.clone();
                d.span = place(d.span);
                for (sp, _) in &mut d.secondary {
                    *sp = place(*sp);
                }
                d.message = d.message.replace(IT, "it").replace(KIND, "the type");
                d.label = d.label.map(|l| l.replace(IT, "it"));
                d.help = d.help.map(|h| h.replace(IT, "it"));
                d
            })
            .collect();
        report(&map, &diags)
    }

    /// The types of the main module's bindings, or the diagnostics.
    pub(super) fn types(&self, src: &Source, quiet: bool) -> Option<Types> {
        let key = src.key();
        if let Some((k, types)) = &*self.types_memo.borrow() {
            if *k == key {
                return Some(types.clone());
            }
        }
        let out = gph_compiler::dump(&src.file, gph_compiler::Stage::Types, &self.options(src));
        if out.has_errors() {
            if !quiet {
                self.report(src, &out.sources, &out.diagnostics);
            }
            return None;
        }
        let types: Types = out
            .output
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let (n, t) = l.split_once(" :: ")?;
                Some((n.to_string(), t.to_string()))
            })
            .collect();
        *self.types_memo.borrow_mut() = Some((key, types.clone()));
        Some(types)
    }
}

/// Where the text after the module's last `import` line starts (or after
/// the header when there is none).
fn last_import_end(text: &str) -> usize {
    let mut end = 0;
    let mut pos = 0;
    for l in text.split_inclusive('\n') {
        pos += l.len();
        if l.starts_with("import ") || l.starts_with("module ") {
            end = pos;
        }
    }
    end
}
