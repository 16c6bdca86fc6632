//! Tab completion: names in scope, commands, and files' names where a
//! command takes one.

use super::Session;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};
use std::sync::{Arc, Mutex};

pub(super) struct Completion {
    pub(super) names: Arc<Mutex<Vec<String>>>,
    pub(super) files: FilenameCompleter,
}

impl Completer for Completion {
    type Candidate = Pair;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        // A file's name after a command that takes one, or in a string.
        let takes_file = [
            ":load ",
            ":l ",
            ":cd ",
            ":edit ",
            ":e ",
            ":profile ",
            ":trace ",
            ":eventlog ",
            ":set grid ",
            ":!",
        ]
        .iter()
        .any(|c| line.starts_with(c));
        let in_string = line[..pos].matches('"').count() % 2 == 1;
        if takes_file || in_string {
            return self.files.complete_path(line, pos);
        }
        let start = line[..pos]
            .rfind(|c: char| {
                !(c.is_alphanumeric() || c == '_' || c == '\'' || c == '.' || c == ':')
            })
            .map_or(0, |i| i + 1);
        let word = &line[start..pos];
        if word.is_empty() {
            return Ok((pos, Vec::new()));
        }
        let names = self.names.lock().unwrap();
        let found = names
            .iter()
            .filter(|n| n.starts_with(word))
            .map(|n| Pair {
                display: n.clone(),
                replacement: n.clone(),
            })
            .collect();
        Ok((start, found))
    }
}

impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Helper for Completion {}

impl Session {
    pub(super) fn refresh_names(&self) {
        let mut names: Vec<String> = prelude_names();
        if let Some(ts) = self.types(&self.source(""), true) {
            names.extend(ts.into_iter().map(|(n, _)| n));
        }
        for c in [
            ":load",
            ":reload",
            ":type",
            ":browse",
            ":sc",
            ":set",
            ":unset",
            ":help",
            ":quit",
            ":sparks",
            ":stats",
            ":profile",
            ":trace",
            ":eventlog",
        ] {
            names.push(c.to_string());
        }
        names.sort();
        names.dedup();
        *self.names.lock().unwrap() = names;
    }
}

/// The Prelude's exported names (from its export list), for completion.
fn prelude_names() -> Vec<String> {
    let Some((_, src)) = gph_compiler::modules::library_source("Prelude") else {
        return Vec::new();
    };
    let start = src.find("module Prelude").unwrap_or(0);
    let end = src[start..]
        .find(") where")
        .map_or(src.len(), |e| start + e);
    src[start..end]
        .lines()
        .map(|l| l.split("--").next().unwrap_or(""))
        .flat_map(|l| {
            l.split(|c: char| c == ',' || c == '(' || c == ')' || c.is_whitespace())
                .filter(|w| !w.is_empty() && *w != "module" && *w != "Prelude" && *w != "..")
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}
