//! Tab completion, read from the table of commands: a command's name
//! after `:`, then what the table says its argument is (a file's name, a
//! name in scope, a setting); elsewhere a name in scope, or a file's name
//! inside a string.

use super::commands::{self, Arg, COMMANDS};
use super::settings::settings;
use super::Session;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};
use std::sync::{Arc, Mutex};

pub(super) struct Completion {
    /// The names in scope (`Session::refresh_names` keeps them).
    pub(super) names: Arc<Mutex<Vec<String>>>,
    pub(super) files: FilenameCompleter,
}

/// What completes the text before the cursor.
#[derive(Debug, PartialEq, Eq)]
enum Want {
    /// A file's name (rustyline's completer finds where it starts).
    File,
    /// One of these words, in place of the text from `start` on.
    Words { start: usize, words: Vec<String> },
}

impl Completion {
    fn want(&self, line: &str, pos: usize) -> Want {
        let before = &line[..pos];
        if before.matches('"').count() % 2 == 1 {
            return Want::File;
        }
        let lead = before.len() - before.trim_start().len();
        let Some(cmd) = before[lead..].strip_prefix(':') else {
            return self.names(before);
        };
        // Still the command's name: `:!` takes its argument without a space.
        if !cmd.contains(char::is_whitespace) && (cmd == "!" || !cmd.starts_with('!')) {
            let words = COMMANDS
                .iter()
                .map(|c| format!(":{}", c.name))
                .filter(|c| c.starts_with(&before[lead..]))
                .collect();
            return Want::Words { start: lead, words };
        }
        let (name, arg) = match cmd.strip_prefix('!') {
            Some(rest) => ("!", rest),
            None => cmd.split_once(char::is_whitespace).unwrap_or((cmd, "")),
        };
        let nothing = Want::Words {
            start: pos,
            words: Vec::new(),
        };
        match commands::find(name).map(|c| c.arg) {
            None | Some(Arg::Nothing) => nothing,
            Some(Arg::File) => Want::File,
            Some(Arg::Name) => self.names(before),
            Some(Arg::Setting) => {
                let arg = arg.trim_start();
                match arg.split_once(char::is_whitespace) {
                    None => Want::Words {
                        start: pos - arg.len(),
                        words: settings()
                            .into_iter()
                            .map(|(s, _)| s)
                            .filter(|s| s.starts_with(arg))
                            .collect(),
                    },
                    // A setting's value: a file's name for those that take one.
                    Some((setting, _)) if settings().contains(&(setting.to_string(), true)) => {
                        Want::File
                    }
                    Some(_) => nothing,
                }
            }
        }
    }

    /// The names in scope that start with the word before the cursor.
    fn names(&self, before: &str) -> Want {
        // A word of a name, qualified or not (`:` is no longer part of one:
        // the commands come from the table).
        let start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'' || c == '.'))
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let words = if word.is_empty() {
            Vec::new()
        } else {
            let names = self.names.lock().unwrap();
            names
                .iter()
                .filter(|n| n.starts_with(word))
                .cloned()
                .collect()
        };
        Want::Words { start, words }
    }
}

impl Completer for Completion {
    type Candidate = Pair;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        match self.want(line, pos) {
            Want::File => self.files.complete_path(line, pos),
            Want::Words { start, words } => Ok((
                start,
                words
                    .into_iter()
                    .map(|w| Pair {
                        display: w.clone(),
                        replacement: w,
                    })
                    .collect(),
            )),
        }
    }
}

impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Helper for Completion {}

impl Session {
    /// The names in scope for completion: the Prelude's and the program's.
    pub(super) fn refresh_names(&self) {
        let mut names: Vec<String> = prelude_names();
        if let Some(ts) = self.types(&self.source(""), true) {
            names.extend(ts.into_iter().map(|(n, _)| n));
        }
        names.sort();
        names.dedup();
        *self.names.lock().unwrap() = names;
    }
}

/// The Prelude's exported names (from its export list), for completion.
fn prelude_names() -> Vec<String> {
    let Some((_, src)) = gph_compiler::front::modules::library_source("Prelude") else {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn completion() -> Completion {
        Completion {
            names: Arc::new(Mutex::new(vec!["main".into(), "map".into()])),
            files: FilenameCompleter::new(),
        }
    }

    fn words(w: Want) -> Vec<String> {
        match w {
            Want::Words { words, .. } => words,
            Want::File => panic!("a file's name, not words"),
        }
    }

    #[test]
    fn every_command_in_the_table_completes() {
        let c = completion();
        assert_eq!(words(c.want(":", 1)).len(), COMMANDS.len());
        for cmd in COMMANDS {
            let name = format!(":{}", cmd.name);
            for typed in [&name[..2], &name[..]] {
                let got = c.want(typed, typed.len());
                assert!(
                    matches!(&got, Want::Words { start: 0, words } if words.contains(&name)),
                    "{typed} does not complete to {name}: {got:?}"
                );
            }
        }
    }

    #[test]
    fn a_commands_argument_completes_as_the_table_says() {
        let c = completion();
        let want = |line: &str| c.want(line, line.len());
        assert_eq!(want(":load pro"), Want::File);
        assert_eq!(want(":l pro"), Want::File);
        assert_eq!(want(":!ls pro"), Want::File);
        assert_eq!(want(":set grid pro"), Want::File);
        assert_eq!(want(":set graph-file pro"), Want::File);
        assert_eq!(
            want(":type ma"),
            Want::Words {
                start: 6,
                words: vec!["main".into(), "map".into()]
            }
        );
        assert_eq!(words(want(":t (map")), vec!["map".to_string()]);
        let set = words(want(":set gr"));
        assert!(set.contains(&"grid".into()) && set.contains(&"graph-file".into()));
        assert_eq!(words(want(":unset +")), vec!["+s".to_string()]);
        assert!(words(want(":set pes 4")).is_empty());
        assert!(words(want(":quit m")).is_empty());
        assert!(words(want(":nonsense m")).is_empty());
        assert_eq!(words(want("x:ma")), vec!["main".to_string(), "map".into()]);
        assert_eq!(want("putStrLn \"pro"), Want::File);
    }
}
