//! `gph run` stopped by SIGINT (Ctrl-C) or SIGTERM: the program stops at
//! its PEs' next scheduling round, as the REPL's Ctrl-C stops an
//! evaluation; what it printed is flushed, its eventlog, trace and profile
//! are finished as after any run, and gph exits with 128 + the signal
//! (130, 143), as a shell reports a process the signal ended. Before, the
//! signal killed gph at once: the last of the program's output was lost
//! (half a line) and an eventlog was cut short.
//!
//! A program blocked where it cannot see the flag (waiting for stdin)
//! would not stop, so a watchdog gives it [`GRACE`]; then the signal's
//! default action ends gph. A second signal ends it at once (the handler
//! is reset after the first).
//!
//! `gph repl` ended by SIGTERM or SIGHUP removes its scratch folder first
//! ([`remove_on_signals`]); before, each such end left one behind.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The signal received, or 0.
static RECEIVED: AtomicI32 = AtomicI32::new(0);
/// The run's interrupt flag.
static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
/// Set once the run has stopped: the watchdog stands down.
static STOPPED: AtomicBool = AtomicBool::new(false);
/// The write end of the pipe that wakes the watchdog (-1: none).
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// How long a run has to stop after a signal.
const GRACE: Duration = Duration::from_secs(3);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only atomics and write(2): nothing here may allocate or lock.
    RECEIVED.store(sig, Ordering::SeqCst);
    if let Some(f) = FLAG.get() {
        f.store(true, Ordering::SeqCst);
    }
    let fd = WAKE.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) may be called in a signal handler.
        unsafe {
            libc::write(fd, [0u8].as_ptr().cast(), 1);
        }
    }
}

/// Makes SIGINT and SIGTERM set `flag` (the machine's interrupt) for the
/// rest of this process.
pub fn stop_runs_on_signals(flag: Arc<AtomicBool>) {
    if FLAG.set(flag).is_err() {
        return;
    }
    watch(&[libc::SIGINT, libc::SIGTERM], |sig| {
        std::thread::sleep(GRACE);
        if !STOPPED.load(Ordering::SeqCst) {
            default_action(sig);
        }
    });
}

/// Makes SIGTERM and SIGHUP (a closed terminal) remove `dir` (the REPL's
/// scratch folder) before they end the process as they would have.
/// SIGINT stays the REPL's, which stops an evaluation with it.
pub fn remove_on_signals(dir: std::path::PathBuf) {
    watch(&[libc::SIGTERM, libc::SIGHUP], move |sig| {
        let _ = std::fs::remove_dir_all(&dir);
        default_action(sig);
    });
}

/// Installs the handler for `sigs`, and a thread that runs `then` with the
/// signal once one comes. The thread sleeps in read(2) until the handler
/// writes to a pipe: a thread that woke to look 50 times a second cost a
/// busy 2-PE run on 2 cores up to 5 %.
fn watch(sigs: &[libc::c_int], then: impl FnOnce(libc::c_int) + Send + 'static) {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe(2) fills the two descriptors.
    if WAKE.load(Ordering::SeqCst) >= 0 || unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return;
    }
    WAKE.store(fds[1], Ordering::SeqCst);
    std::thread::spawn(move || loop {
        let mut byte = 0u8;
        // SAFETY: reads one byte into a local.
        let n = unsafe { libc::read(fds[0], (&mut byte as *mut u8).cast(), 1) };
        let sig = RECEIVED.load(Ordering::SeqCst);
        if n >= 0 && sig != 0 {
            then(sig);
            return;
        }
    });
    for &sig in sigs {
        // SAFETY: a plain sigaction with a handler that only touches
        // atomics and write(2); SA_RESETHAND makes a second signal take its
        // default action, SA_RESTART keeps other system calls going.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART | libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}

/// Ends the process by `sig`'s default action.
fn default_action(sig: libc::c_int) {
    // SAFETY: the default action of a signal the process had.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// The run has stopped: the signal that stopped it, if one did.
pub fn run_stopped() -> Option<i32> {
    STOPPED.store(true, Ordering::SeqCst);
    Some(RECEIVED.load(Ordering::SeqCst)).filter(|&s| s != 0)
}
