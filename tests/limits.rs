//! Memory within its limit: a program whose live data grows without end,
//! under several `--heap-limit`s, on one PE and on four, stops with "heap
//! exhausted" and exit status 1, its peak resident memory (the kernel's
//! count, from wait4) at most 1.5 times the limit plus 64 MB: the limit is
//! the whole run's, both semispaces of every PE (`HeapBudget`).

use std::time::{Duration, Instant};

/// Runs `gph ARGS`; its exit status, stderr and peak resident bytes.
// The child is waited for by wait4, which clippy does not see.
#[allow(clippy::zombie_processes)]
fn run_measured(args: &[&str]) -> (i32, String, u64) {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_gph"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("gph runs");
    let pid = child.id() as libc::pid_t;
    let mut err = child.stderr.expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let mut status = 0;
    // SAFETY: waits for our own child; the rusage is plain data.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut usage), pid);
        usage
    };
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, reader.join().unwrap(), usage.ru_maxrss as u64 * 1024)
}

#[test]
fn a_growing_program_stays_within_its_heap_limit() {
    let dir = std::env::temp_dir().join(format!("gph-limits-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("grow.gph");
    std::fs::write(
        &prog,
        "main :: IO ()\nmain = do\n  let xs = [1 ..] :: [Integer]\n  print (length xs, sum xs)\n",
    )
    .unwrap();
    let prog = prog.to_str().unwrap();
    for (limit, mb) in [("32M", 32u64), ("256M", 256)] {
        for pes in ["1", "4"] {
            let start = Instant::now();
            let (code, stderr, rss) =
                run_measured(&["run", "--pes", pes, "--heap-limit", limit, prog]);
            let what = format!("--heap-limit {limit} on {pes} PEs");
            assert_eq!(code, 1, "{what}: {stderr}");
            assert!(stderr.contains("heap exhausted"), "{what}: {stderr}");
            let bound = (mb << 20) * 3 / 2 + (64 << 20);
            assert!(rss <= bound, "{what}: peak RSS {} MB", rss >> 20);
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "{what}: slow to fail"
            );
        }
    }
    // Out of heap as soon as the live data fills what the limit allows:
    // the collections are those of the heap's doublings and one more, not
    // a long tail of collections that each copy it all to free a few
    // words (22 at 256M before).
    let (code, stderr, _) =
        run_measured(&["run", "--pes", "1", "--heap-limit", "256M", "--stats", prog]);
    assert_eq!(code, 1, "{stderr}");
    let collections: u64 = stderr
        .lines()
        .find_map(|l| l.trim().strip_suffix(" collections"))
        .and_then(|n| n.trim().replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no count of collections in {stderr}"));
    assert!(
        collections <= 10,
        "{collections} collections before failing"
    );
    let _ = std::fs::remove_dir_all(dir);
}
