//! Runs on the parallel machine (as `:set` configured it), `:main`, and
//! what the last run left: its statistics (`:stats`, `:sparks`,
//! `:messages`) and recording (`:profile`, `:trace`, `:eventlog`).

use super::{Session, ENTRY};
use gph_runtime::host::Instant;
use gph_runtime::obs::out::Target;

/// The most bytes each file of an evaluation's recording takes (its
/// eventlog, its trace): an evaluation that runs for minutes recorded 86
/// MB, and a session of many such filled the temporary folder. What is
/// kept is the run's beginning, in files their tools read.
pub(super) const RECORDING_LIMIT: u64 = 32 << 20;

impl Session {
    /// Runs a compiled evaluation on the session's machine, recording its
    /// events for `:profile`, `:trace` and `:eventlog` afterwards.
    pub(super) fn run(
        &mut self,
        program: &gph_runtime::code::Program,
        what: &str,
        bind: Option<&str>,
    ) -> bool {
        let file = self.file.as_deref().unwrap_or("<interactive>");
        let mut config = match self.machine.config(file, self.args.clone()) {
            Ok(c) => c,
            Err(e) => {
                gph_runtime::host_eprintln!("gph: {e}");
                return false;
            }
        };
        // As GHCi's: getProgName is "<interactive>".
        config.prog_name = "<interactive>".into();
        let outputs = match crate::options::outputs_at(
            what.trim().to_string(),
            &self.machine,
            &config,
            self.recording(),
            Some(RECORDING_LIMIT),
        ) {
            Ok(o) => o,
            Err(e) => {
                gph_runtime::host_eprintln!("gph: cannot record the evaluation: {e}");
                None
            }
        };
        config.record = outputs.clone().map(|o| o as _);
        config.interrupt = Some(self.interrupt.clone());
        let start = Instant::now();
        let (exit, stats) = self.machine_session.run(program, &config, bind);
        let elapsed = start.elapsed();
        self.recorded = false;
        if let Some(o) = &outputs {
            let run_time = stats.virtual_time.unwrap_or(stats.time.as_secs_f64());
            match o.finish(run_time) {
                Ok(()) => self.recorded = true,
                Err(e) => gph_runtime::host_eprintln!("gph: cannot record the evaluation: {e}"),
            }
            self.recording_cut = o.cut();
        }
        let ok = matches!(exit, gph_runtime::Exit::Success);
        match exit {
            gph_runtime::Exit::Success => {}
            // GHCi's word for an evaluation stopped by Ctrl-C.
            gph_runtime::Exit::Error(m) if m == "interrupted" => {
                gph_runtime::host_eprintln!("Interrupted.")
            }
            gph_runtime::Exit::Error(m) => gph_runtime::host_eprintln!("gph: {m}"),
            gph_runtime::Exit::ExitWith(c) => {
                gph_runtime::host_eprintln!("gph: the program exited with status {c}")
            }
        }
        if self.timing {
            // The sim engine's own time: the simulated machine's, the same
            // on every run (a lesson can show it).
            let time = match stats.virtual_time {
                Some(v) => format!("{v:.4} virtual secs"),
                None => format!("{:.2} secs", elapsed.as_secs_f64()),
            };
            gph_runtime::host_println!(
                "({time}, {} reductions, {} bytes)",
                stats.total.reductions,
                stats.total.allocated_bytes
            );
        }
        let _ = self.machine.report_stats(&stats, elapsed);
        self.last = Some(stats);
        ok
    }

    /// Where the last evaluation's events are recorded (eventlog, trace,
    /// profile): files in the scratch folder, or in the browser build
    /// buffers in memory. Nothing is recorded without either.
    fn recording(&self) -> [Option<Target>; 3] {
        if let Some(m) = &self.in_memory {
            return m.clone().map(Some);
        }
        let at = |f: &str| {
            self.scratch
                .as_ref()
                .map(|d| Target::Path(d.path().join(f).to_string_lossy().into_owned()))
        };
        [at("last.eventlog"), at("last.json"), at("last.svg")]
    }

    /// `:profile FILE`, `:trace FILE`, `:eventlog FILE`: the last
    /// evaluation's recording, copied to `to`.
    pub(super) fn save_recording(&self, what: &str, to: &str) {
        if to.is_empty() {
            gph_runtime::host_println!("usage: :{what} FILE");
            return;
        }
        if !self.recorded {
            gph_runtime::host_println!("nothing recorded yet: evaluate an expression first");
            return;
        }
        let [eventlog, trace, profile] = self.recording();
        let from = match what {
            "profile" => profile,
            "trace" => trace,
            _ => eventlog,
        };
        let from = match from {
            Some(Target::Path(p)) => p,
            // The browser build: the page shows the picture, or offers the
            // file to download (`Repl::take_shown`).
            Some(Target::Memory(m)) => {
                let bytes = m.lock().map(|b| b.clone()).unwrap_or_default();
                *self.shown.borrow_mut() = Some((what.to_string(), bytes));
                return;
            }
            None => return,
        };
        match std::fs::copy(&from, to) {
            Ok(_) if self.recording_cut && what != "profile" => gph_runtime::host_println!(
                "wrote {to} (the evaluation's first {} MB of events: the REPL keeps no more \
                 of one evaluation; `gph run --{what}` records a whole run)",
                RECORDING_LIMIT >> 20
            ),
            Ok(_) => gph_runtime::host_println!("wrote {to}"),
            Err(e) => gph_runtime::host_eprintln!("gph: cannot write {to}: {e}"),
        }
    }

    /// `:main ARGS`: runs the loaded file's `main` with these arguments
    /// (words, or "quoted strings" with spaces).
    pub(super) fn run_main_with(&mut self, arg: &str) {
        let args = match split_args(arg) {
            Ok(a) => a,
            Err(e) => {
                gph_runtime::host_eprintln!("gph: :main {arg}: {e}");
                return;
            }
        };
        if !self
            .types(&self.source(""), true)
            .is_some_and(|ts| ts.iter().any(|(n, _)| n == "main"))
        {
            gph_runtime::host_println!("no `main` to run: :load a file that defines it");
            return;
        }
        let src = self.source(&format!("{ENTRY} = main\n"));
        let Some(program) = self.compile(&src, false) else {
            return;
        };
        self.args = args;
        // Named as `gph run` names a run: the file's stem (and its args).
        let name = self
            .file
            .as_deref()
            .and_then(|f| std::path::Path::new(f).file_stem())
            .map_or_else(|| "main".to_string(), |s| s.to_string_lossy().into_owned());
        self.run(&program, &name, None);
        self.args.clear();
    }

    /// `:stats`: the last evaluation's statistics, as `gph run --stats`
    /// prints them.
    pub(super) fn stats(&self) {
        match &self.last {
            Some(s) => gph_runtime::host_print!("{}", gph_runtime::format_stats(s)),
            None => gph_runtime::host_println!("nothing evaluated yet"),
        }
    }

    /// `:sparks`: what each PE did with its sparks in the last evaluation.
    pub(super) fn sparks(&self) {
        let Some(stats) = &self.last else {
            gph_runtime::host_println!("nothing evaluated yet");
            return;
        };
        gph_runtime::host_println!(
            "{:>5} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9}",
            "PE",
            "created",
            "converted",
            "fizzled",
            "overflowed",
            "exported",
            "imported"
        );
        let row = |name: &str, p: &gph_runtime::obs::stats::PeStats| {
            gph_runtime::host_println!(
                "{name:>5} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9}",
                p.sparks_created,
                p.sparks_converted,
                p.sparks_fizzled,
                p.sparks_overflowed,
                p.sparks_exported,
                p.sparks_imported
            )
        };
        for (i, p) in stats.per_pe.iter().enumerate() {
            row(&i.to_string(), p);
        }
        if stats.per_pe.len() > 1 {
            row("total", &stats.total);
        }
        virtual_time(stats);
    }

    /// `:messages`: the messages the PEs sent in the last evaluation, by
    /// kind (FISH, SCHEDULE, FETCH, RESUME, ...).
    pub(super) fn messages(&self) {
        let Some(stats) = &self.last else {
            gph_runtime::host_println!("nothing evaluated yet");
            return;
        };
        let all = &stats.total.messages;
        if all.is_empty() {
            gph_runtime::host_println!("no messages (one PE, or nobody needed to talk)");
            return;
        }
        gph_runtime::host_println!("{:<10} {:>8} {:>10}", "kind", "count", "bytes");
        let (mut n, mut b) = (0, 0);
        for (kind, (count, bytes)) in all {
            gph_runtime::host_println!("{kind:<10} {count:>8} {bytes:>10}");
            n += count;
            b += bytes;
        }
        gph_runtime::host_println!("{:<10} {n:>8} {b:>10}", "total");
        let p = &stats.total.packets;
        if p.chunked() {
            gph_runtime::host_println!(
                "in {} packets (at most {} message{} in one); they left urgent {}, full {}, \
                 timed out {}, idle {}",
                p.sent,
                p.max_messages.0,
                if p.max_messages.0 == 1 { "" } else { "s" },
                p.urgent,
                p.full,
                p.timeout,
                p.idle
            );
        }
        virtual_time(stats);
    }
}

/// The simulated machine's clock does not depend on the host: a figure a
/// lesson can quote (`:sparks`, `:messages`).
fn virtual_time(stats: &gph_runtime::Stats) {
    if let Some(v) = stats.virtual_time {
        let s = if stats.pes == 1 { "" } else { "s" };
        gph_runtime::host_println!(
            "virtual time {:.3} ms on {} simulated PE{s}",
            v * 1e3,
            stats.pes
        );
    }
}

/// The words of `:main`'s arguments: spaces separate them, except inside
/// double quotes (where `\"` and `\\` are escapes), as GHCi splits them.
fn split_args(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e) => cur.push(e),
                            None => return Err("an escape at the end".into()),
                        },
                        Some(x) => cur.push(x),
                        None => return Err("a string without its closing quote".into()),
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}
