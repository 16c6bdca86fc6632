//! The REPL's commands: one table, in `:help`'s order, that dispatch,
//! `:help` and tab completion all read. A command added here is typed,
//! listed and completed; the tests below hold the three together.

use super::Session;

/// What a command's argument is, for tab completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arg {
    /// None, or nothing to complete.
    Nothing,
    /// A file's name.
    File,
    /// An expression, a name or a type: the names in scope.
    Name,
    /// A setting's name (then a file's, for a setting that takes one).
    Setting,
}

/// What a command does.
pub(super) enum Action {
    /// Runs with the argument (trimmed).
    Run(fn(&mut Session, &str)),
    /// Ends the session.
    Quit,
}

pub(super) struct Command {
    /// Typed after `:`.
    pub(super) name: &'static str,
    /// Abbreviations that mean it too (`:t` for `:type`). Only these: as
    /// before the table, no other prefix of a name is taken.
    pub(super) aliases: &'static [&'static str],
    /// Its argument as `:help` shows it (`EXPR`, `[FILE]`).
    pub(super) args: &'static str,
    /// Its row in `:help`; a second line goes under the first's text.
    pub(super) help: &'static str,
    /// `:help`'s lines above its row: a heading, or rows that are not
    /// commands (statements, settings).
    pub(super) above: &'static str,
    /// Shown on the row before, after that row's text (`:trace` beside
    /// `:profile`).
    pub(super) beside: bool,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // completion only
    pub(super) arg: Arg,
    pub(super) action: Action,
    /// It writes files or runs other programs (a sandboxed session
    /// refuses it, `Repl::sandbox`).
    pub(super) outside: bool,
}

/// A command's row, with the defaults filled in.
const ROW: Command = Command {
    name: "",
    aliases: &[],
    args: "",
    help: "",
    above: "",
    beside: false,
    arg: Arg::Nothing,
    action: Action::Quit,
    outside: false,
};

pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "sprint",
        args: "NAME",
        help: "how much of a value is evaluated (`_` where it is not)",
        above: "\
Commands:
  EXPR                evaluate and print an expression (run it if it is an IO action)
  let DEFS / DEFS     add definitions to the session (e.g. `let sq x = x * x`)
  :{ ... :}           a definition or expression over several lines
  x <- ACTION         run an IO action and bind its result to x (`it` is the last value)
",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.sprint(a, false)),
        ..ROW
    },
    Command {
        name: "print",
        args: "NAME",
        help: "the same, with the type of what is not evaluated",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.sprint(a, true)),
        ..ROW
    },
    Command {
        name: "steps",
        args: "EXPR",
        help: "every step of its graph reduction (:set steps N: how many)",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.steps(a)),
        ..ROW
    },
    Command {
        name: "step",
        args: "EXPR",
        help: "one step at a time: Enter for the next, :continue, :stop",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.step_start(a)),
        ..ROW
    },
    Command {
        name: "graph",
        args: "EXPR|NAME",
        help: "the heap graph (of EXPR's value, or of NAME now) as DOT and SVG\n\
               (into gph-graph.dot, or :set graph-file PATH)",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.graph(a)),
        // In the browser the graph goes to the page, not to a file.
        outside: !cfg!(target_arch = "wasm32"),
        ..ROW
    },
    Command {
        name: "load",
        aliases: &["l"],
        args: "FILE",
        help: "load a file (its top-level names come into scope)",
        arg: Arg::File,
        action: Action::Run(|s, a| s.load((!a.is_empty()).then(|| a.to_string()))),
        ..ROW
    },
    Command {
        name: "module",
        aliases: &["m"],
        args: "[+|-] M...",
        help: "import library modules into the session (+ add, - drop, none: only these)",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.module_command(a)),
        ..ROW
    },
    Command {
        name: "reload",
        aliases: &["r"],
        help: "load the same file again",
        action: Action::Run(|s, _| s.load(s.target.clone())),
        ..ROW
    },
    Command {
        name: "type",
        aliases: &["t"],
        args: "EXPR",
        help: "show the type of an expression",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.show_type(a)),
        ..ROW
    },
    Command {
        name: "browse",
        aliases: &["b"],
        help: "list the loaded file's definitions with their types",
        action: Action::Run(|s, _| s.browse()),
        ..ROW
    },
    Command {
        name: "info",
        aliases: &["i"],
        args: "NAME",
        help: "what a name is: its type, declaration, instances, fixity",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.info(a)),
        ..ROW
    },
    Command {
        name: "kind",
        aliases: &["k"],
        args: "TYPE",
        help: "the kind of a type",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.kind(a)),
        ..ROW
    },
    Command {
        name: "sc",
        args: "NAME",
        help: "show the supercombinators and machine code of a definition",
        arg: Arg::Name,
        action: Action::Run(|s, a| s.show_sc(a)),
        ..ROW
    },
    Command {
        name: "set",
        help: "show how the machine is set",
        above: "  :set +s / :unset +s show time, reductions and allocation after each evaluation
  :set -XName         a LANGUAGE extension on (-XNoName: off)

The parallel machine (the options of `gph run`, without their dashes):
",
        arg: Arg::Setting,
        action: Action::Run(|s, a| s.set(a, false)),
        ..ROW
    },
    Command {
        name: "unset",
        args: "OPTION",
        help: "back to its default",
        above: "  :set pes N          evaluate on N PEs          :set engine sim|threads
  :set grid FILE      a grid file's machine      :set sched gum|gum2
  :set OPTION VALUE   any other (thread-limit, low-watermark, seed, heap-limit, ...)
",
        arg: Arg::Setting,
        action: Action::Run(|s, a| s.set(a, true)),
        ..ROW
    },
    Command {
        name: "sparks",
        help: "sparks created, converted, fizzled per PE",
        above: "After an evaluation:\n",
        action: Action::Run(|s, _| s.sparks()),
        ..ROW
    },
    Command {
        name: "messages",
        help: "the messages the PEs sent, by kind",
        action: Action::Run(|s, _| s.messages()),
        ..ROW
    },
    Command {
        name: "stats",
        help: "the statistics of `gph run --stats`",
        action: Action::Run(|s, _| s.stats()),
        ..ROW
    },
    Command {
        name: "profile",
        args: "FILE.svg",
        help: "its activity profile",
        arg: Arg::File,
        action: Action::Run(|s, a| s.save_recording("profile", a)),
        // In the browser the recording goes to the page.
        outside: !cfg!(target_arch = "wasm32"),
        ..ROW
    },
    Command {
        name: "trace",
        args: "FILE.json",
        help: "a Perfetto trace",
        beside: true,
        arg: Arg::File,
        action: Action::Run(|s, a| s.save_recording("trace", a)),
        // In the browser the recording goes to the page.
        outside: !cfg!(target_arch = "wasm32"),
        ..ROW
    },
    Command {
        name: "eventlog",
        args: "FILE",
        help: "a GHC eventlog (ThreadScope)",
        arg: Arg::File,
        action: Action::Run(|s, a| s.save_recording("eventlog", a)),
        // In the browser the recording goes to the page.
        outside: !cfg!(target_arch = "wasm32"),
        ..ROW
    },
    Command {
        name: "main",
        args: "ARGS",
        help: "run the loaded file's main with these arguments",
        above: "\n",
        // As GHCi's: arguments are often files' names.
        arg: Arg::File,
        action: Action::Run(|s, a| s.run_main_with(a)),
        ..ROW
    },
    Command {
        name: "cd",
        args: "DIR",
        help: "change the working directory",
        arg: Arg::File,
        action: Action::Run(|s, a| s.cd(a)),
        outside: true,
        ..ROW
    },
    Command {
        name: "!",
        args: "COMMAND",
        help: "run a shell command",
        arg: Arg::File,
        action: Action::Run(|_, a| super::load::shell(a)),
        outside: true,
        ..ROW
    },
    Command {
        name: "edit",
        aliases: &["e"],
        args: "[FILE]",
        help: "edit a file (the loaded one) with $EDITOR, then reload",
        arg: Arg::File,
        action: Action::Run(|s, a| s.edit(a)),
        outside: true,
        ..ROW
    },
    Command {
        name: "help",
        aliases: &["?", "h"],
        help: "this text",
        action: Action::Run(|_, _| gph_runtime::host_print!("{}", help())),
        ..ROW
    },
    Command {
        name: "quit",
        aliases: &["q"],
        help: "leave (also Ctrl-D)",
        action: Action::Quit,
        ..ROW
    },
];

/// `:help`'s last line, below the table's rows.
const HELP_END: &str = "Ctrl-C interrupts a long evaluation.\n";

/// A command's synopsis: `:name ARGS`.
fn usage(c: &Command) -> String {
    if c.args.is_empty() {
        format!(":{}", c.name)
    } else {
        format!(":{} {}", c.name, c.args)
    }
}

/// `:help`'s text, written from the table.
pub(super) fn help() -> String {
    let mut out = String::new();
    for c in COMMANDS {
        out.push_str(c.above);
        if c.beside {
            // The second column of a shared row: as `:help` always laid it out.
            out.pop();
            out.push_str(&format!("      {:<19}{}\n", usage(c), c.help));
        } else {
            let text = c.help.replace('\n', &format!("\n{:22}", ""));
            out.push_str(&format!("  {:<20}{text}\n", usage(c)));
        }
    }
    out.push_str(HELP_END);
    out
}

/// A command line (after its `:`) as the command's name and its argument,
/// trimmed. `:!` needs no space before its argument.
pub(super) fn split(line: &str) -> (&str, &str) {
    let (c, arg) = match line.strip_prefix('!') {
        Some(rest) => ("!", rest),
        None => line.split_once(char::is_whitespace).unwrap_or((line, "")),
    };
    (c, arg.trim())
}

/// The command a name or an abbreviation means.
pub(super) fn find(name: &str) -> Option<&'static Command> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_abbreviations_are_unique() {
        let mut all: Vec<&str> = COMMANDS
            .iter()
            .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
            .collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n, "a name or an abbreviation means two commands");
    }

    #[test]
    fn every_command_is_found_by_its_name_and_abbreviations() {
        for c in COMMANDS {
            for n in std::iter::once(&c.name).chain(c.aliases) {
                assert_eq!(find(n).map(|f| f.name), Some(c.name));
            }
        }
        // No prefix matching: only the listed abbreviations.
        assert!(find("ty").is_none());
        assert!(find("").is_none());
    }

    #[test]
    fn only_quit_quits() {
        // `ROW`'s action is `Quit`: an entry that forgets its own would end
        // the session.
        for c in COMMANDS {
            assert_eq!(
                matches!(c.action, Action::Quit),
                c.name == "quit",
                ":{}",
                c.name
            );
        }
    }

    #[test]
    fn help_shows_every_command() {
        let text = help();
        for c in COMMANDS {
            let shown = text.lines().any(|l| {
                l.contains(&format!("  {}", usage(c))) && l.contains(c.help.lines().next().unwrap())
            });
            assert!(shown, ":help does not show :{}", c.name);
        }
    }

    #[test]
    fn split_takes_the_name_and_trims_the_argument() {
        assert_eq!(split("type  map "), ("type", "map"));
        assert_eq!(split("!ls -l"), ("!", "ls -l"));
        assert_eq!(split("! ls"), ("!", "ls"));
        assert_eq!(split("reload"), ("reload", ""));
        assert_eq!(split(""), ("", ""));
    }
}
