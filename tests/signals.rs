//! `gph run` stopped by SIGINT or SIGTERM (src/signals.rs): the program's
//! output up to that point is all there, whole lines before the last, its
//! eventlog is complete (it ends with the end-of-data marker), and gph
//! exits with 128 + the signal, on one PE and on two.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_signal_stops_a_run_cleanly() {
    let dir = std::env::temp_dir().join(format!("gph-signals-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("forever.gph");
    std::fs::write(&prog, "main :: IO ()\nmain = mapM_ print [1 :: Int ..]\n").unwrap();
    for (sig, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        for pes in ["1", "2"] {
            let out = dir.join("out");
            let log = dir.join("run.eventlog");
            let child = Command::new(env!("CARGO_BIN_EXE_gph"))
                .args(["run", "--pes", pes, "--eventlog"])
                .arg(&log)
                .arg(&prog)
                .env("GPH_CACHE_DIR", dir.join("cache"))
                .stdout(std::fs::File::create(&out).unwrap())
                .stderr(Stdio::piped())
                .spawn()
                .expect("gph runs");
            // Until it has printed something.
            let start = Instant::now();
            while std::fs::metadata(&out).map_or(0, |m| m.len()) < 1000 {
                assert!(start.elapsed() < Duration::from_secs(60), "nothing printed");
                std::thread::sleep(Duration::from_millis(20));
            }
            // SAFETY: a signal to our own child.
            unsafe {
                libc::kill(child.id() as libc::pid_t, sig);
            }
            let stopped = Instant::now();
            let result = child.wait_with_output().unwrap();
            assert!(stopped.elapsed() < Duration::from_secs(10), "slow to stop");
            let what = format!("signal {sig} on {pes} PEs");
            assert_eq!(result.status.code(), Some(status), "{what}");
            let text = std::fs::read_to_string(&out).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let whole = &lines[..lines.len() - 1];
            for (i, l) in whole.iter().enumerate() {
                assert_eq!(*l, (i + 1).to_string(), "{what}: line {}", i + 1);
            }
            let events = std::fs::read(&log).unwrap();
            assert!(
                events.len() > 4 && events.ends_with(&[0xff, 0xff]),
                "{what}: eventlog cut short"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `gph repl` ended by SIGTERM or SIGHUP (a closed terminal) removes its
/// scratch folder (each evaluation's recording) before it ends; before,
/// every such end left one in the temporary folder.
#[test]
fn a_repl_ended_by_a_signal_leaves_no_scratch_folder() {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    let tmp = std::env::temp_dir().join(format!("gph-signals-repl-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    for sig in [libc::SIGTERM, libc::SIGHUP] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gph"))
            .args(["repl", "--pes", "1"])
            .env("TMPDIR", &tmp)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("gph runs");
        let mut stdin = child.stdin.take().unwrap();
        // An evaluation, so that there is a recording; then wait for it.
        writeln!(stdin, "sum [1 .. 100 :: Int]").unwrap();
        stdin.flush().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut seen = String::new();
        let mut buf = [0u8; 256];
        while !seen.contains("5050") {
            let n = std::io::Read::read(&mut stdout, &mut buf).unwrap();
            assert!(n > 0, "the REPL ended: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        let scratch: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
        assert_eq!(scratch.len(), 1, "one scratch folder while it runs");
        // SAFETY: a signal to our own child.
        unsafe {
            libc::kill(child.id() as libc::pid_t, sig);
        }
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(sig), "ended by the signal");
        let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
        assert!(left.is_empty(), "signal {sig} left {left:?}");
        drop(stdin);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
