//! `:set` and `:unset`: the REPL's own settings, and the machine's options
//! (those of `gph run`, without their dashes).

use super::Session;
use crate::MachineOpts;
use clap::Parser;

/// `:set`'s options: those of `gph run` that say how the machine runs.
#[derive(clap::Parser)]
#[command(name = ":set", no_binary_name = true, args_override_self = true)]
struct SetArgs {
    #[command(flatten)]
    machine: MachineOpts,
}

/// The REPL's own settings, which `set` tries before the machine's options,
/// with whether a setting's value is a file's name.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))] // completion only
const OWN: &[(&str, bool)] = &[("+s", false), ("steps", false), ("graph-file", true)];

/// Every setting `:set` knows, with whether its value is a file's name
/// (for completion). The machine's are read from its options, so that a new
/// option of `gph run` is completed too.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))] // completion only
pub(super) fn settings() -> Vec<(String, bool)> {
    use clap::CommandFactory;
    let machine = SetArgs::command();
    let options = machine
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| {
            let file = a.get_value_names().is_some_and(|v| {
                v.iter()
                    .any(|n| n.as_str() == "FILE" || n.as_str() == "PATH")
            });
            Some((a.get_long()?.to_string(), file))
        });
    OWN.iter()
        .map(|&(n, file)| (n.to_string(), file))
        .chain(options)
        .collect()
}

impl Session {
    /// `:set ARG` (or `:unset ARG`): the REPL's own settings (`+s`,
    /// `steps`, `graph-file`), or else an option of the machine.
    pub(super) fn set(&mut self, arg: &str, unset: bool) {
        match arg {
            "+s" => self.timing = !unset,
            "" if !unset => {
                gph_runtime::host_println!("machine: {}", self.machine.describe());
                gph_runtime::host_println!("options: {}", self.machine.to_args().join(" "));
            }
            _ if arg.starts_with("-X") => self.set_extensions(arg, unset),
            _ if !unset && arg.starts_with("steps") => self.set_steps(arg),
            _ if !unset && arg.starts_with("graph-file") => match arg.split_whitespace().nth(1) {
                Some(f) => {
                    self.graph_file = f.to_string();
                    gph_runtime::host_println!("graph file: {f}");
                }
                None => gph_runtime::host_eprintln!("gph: :set graph-file PATH needs a path"),
            },
            _ => self.set_machine(arg, unset),
        }
    }

    /// `:set -XName` (several at once too): a LANGUAGE extension on for
    /// what follows, as in GHCi; `:set -XNoName` or `:unset -XName` turns
    /// it off. One gph does not read is refused with the list it reads.
    fn set_extensions(&mut self, arg: &str, unset: bool) {
        for word in arg.split_whitespace() {
            let Some(name) = word.strip_prefix("-X") else {
                gph_runtime::host_eprintln!("gph: :set {word}: expected -XExtension");
                continue;
            };
            let (name, off) = match name.strip_prefix("No") {
                Some(n) if gph_syntax::EXTENSIONS.contains(&n) => (n, true),
                _ => (name, unset),
            };
            if !gph_syntax::EXTENSIONS.contains(&name) {
                gph_runtime::host_eprintln!(
                    "gph: gph does not support the extension `{name}` (it reads {})",
                    gph_syntax::EXTENSIONS
                        .iter()
                        .filter(|e| !e.starts_with("Haskell"))
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                continue;
            }
            self.extensions.retain(|e| e != name);
            if !off {
                self.extensions.push(name.to_string());
            }
        }
    }

    /// `:set steps N`: how many steps `:steps` and `:continue` show.
    fn set_steps(&mut self, arg: &str) {
        match arg
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<u64>().ok())
        {
            Some(n) if n > 0 => {
                self.step_limit = n;
                gph_runtime::host_println!("steps: at most {n}");
            }
            _ => {
                gph_runtime::host_eprintln!("gph: :set steps N needs a number of steps, at least 1")
            }
        }
    }

    /// `:set OPTION [VALUE]`: a machine option of `gph run`, without its
    /// dashes (`:set pes 4`, `:set engine sim`); `:unset OPTION` puts it
    /// back to its default.
    fn set_machine(&mut self, arg: &str, unset: bool) {
        let mut words = arg.split_whitespace();
        let Some(name) = words.next() else { return };
        let name = name.trim_start_matches('-');
        let mut args = self.machine.to_args();
        if unset {
            // Drop the option and its value, if it has one.
            if let Some(i) = args.iter().position(|a| *a == format!("--{name}")) {
                let n = if args.get(i + 1).is_some_and(|v| !v.starts_with("--")) {
                    2
                } else {
                    1
                };
                args.drain(i..i + n);
            }
        } else {
            // A grid says how many PEs there are, and a PE count replaces
            // a grid.
            let replaced = match name {
                "grid" => Some("--pes"),
                "pes" => Some("--grid"),
                _ => None,
            };
            if let Some(i) = replaced.and_then(|r| args.iter().position(|a| a == r)) {
                args.drain(i..i + 2);
            }
            args.push(format!("--{name}"));
            args.extend(words.map(String::from));
        }
        match SetArgs::try_parse_from(args) {
            Ok(s) => {
                // A grid and a PE count must agree: catch it now.
                if let Err(e) = s.machine.config("<interactive>", Vec::new()) {
                    gph_runtime::host_eprintln!("gph: {e}");
                    return;
                }
                if self.sandboxed && s.machine.writes_files() {
                    gph_runtime::host_eprintln!(
                        "gph: :set {arg}: not available here: it writes a file"
                    );
                    return;
                }
                self.machine = s.machine;
                gph_runtime::host_println!("machine: {}", self.machine.describe());
            }
            Err(e) => {
                // clap's message without its usage lines.
                let msg = e.to_string();
                let said: Vec<&str> = msg
                    .trim_start_matches("error: ")
                    .lines()
                    .take_while(|l| !l.trim().is_empty())
                    .map(str::trim)
                    .collect();
                gph_runtime::host_eprintln!("gph: :set {arg}: {}", said.join(" "));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::settings;

    #[test]
    fn settings_are_the_repls_and_the_machines() {
        let all = settings();
        let file = |n: &str| all.iter().find(|(s, _)| s == n).map(|(_, f)| *f);
        assert_eq!(file("+s"), Some(false));
        assert_eq!(file("steps"), Some(false));
        assert_eq!(file("graph-file"), Some(true));
        assert_eq!(file("pes"), Some(false));
        assert_eq!(file("engine"), Some(false));
        assert_eq!(file("grid"), Some(true));
        assert_eq!(file("help"), None);
    }
}
