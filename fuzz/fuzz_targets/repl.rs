//! The REPL on any lines typed at it: commands with any arguments,
//! definitions, expressions, `:set` with any option. Each line gets an
//! answer (an error is fine); no panic, no hang, no stack overflow. The
//! session is sandboxed (no `:!`, `:edit`, `:cd`, files written) and runs
//! in a scratch folder; an evaluation that runs on is interrupted after
//! two seconds, as a user's Ctrl-C would (a loop is the program's
//! business; a compiler that does not come back is a bug).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Lines of one input at most: each compiles the Prelude again.
const MAX_LINES: usize = 8;

fuzz_target!(
    init: {
        // A program that reads standard input gets end of file, not the
        // fuzzer's terminal (a read blocks where no interrupt reaches).
        let null = std::fs::File::open("/dev/null").expect("/dev/null");
        // SAFETY: replaces this process's descriptor 0 with /dev/null.
        unsafe {
            libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 0);
        }
        let dir = std::env::temp_dir().join(format!("gph-fuzz-repl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        std::env::set_current_dir(&dir).expect("into the scratch folder");
    },
    |data: &[u8]| {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let lines: Vec<String> = text.lines().take(MAX_LINES).map(String::from).collect();
        let _ = gph_syntax::stack::run(move || {
            let machine = gph::MachineOpts::parse(&[
                "--pes", "2", "--engine", "sim", "--heap-limit", "256M",
            ])
            .expect("the fuzz target's options");
            let compiler = gph::CompileOpts::parse(&[]).expect("the default options");
            let mut repl = gph::repl::Repl::new(machine, compiler);
            repl.sandbox();
            for line in lines {
                let flag = repl.interrupt();
                let (done, wait) = std::sync::mpsc::channel::<()>();
                let watchdog = std::thread::spawn(move || {
                    if wait.recv_timeout(Duration::from_secs(2)).is_err() {
                        flag.store(true, Ordering::SeqCst);
                    }
                });
                let go_on = repl.input(&line);
                let _ = done.send(());
                let _ = watchdog.join();
                if !go_on {
                    break;
                }
            }
        });
    }
);
