//! What the machine takes from the host it runs on, beyond the program's
//! own stdin and stdout (which the driver hands to each run): a clock, and
//! the text streams where the session's messages and a program's stderr
//! (and Debug.Trace) go.
//!
//! Natively these are the process's: `std::time::Instant`, `std::io::stdout`
//! and `std::io::stderr`. The browser build (`web/`, docs/web.md) runs on
//! `wasm32-unknown-unknown`, where the standard library has no clock (it
//! traps) and its stdout and stderr throw the text away; there the embedder
//! sets both once, with [`set_browser_host`], before anything runs.

use std::io::Write;
use std::time::Duration;

/// A point in time of the host's monotonic clock.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Instant(imp::Instant);

impl Instant {
    pub fn now() -> Instant {
        Instant(imp::now())
    }

    /// The time since this instant.
    pub fn elapsed(&self) -> Duration {
        imp::since(self.0)
    }
}

/// The time since 1970-01-01 00:00 UTC by the host's wall clock. (The
/// browser build's embedder gives only a monotonic clock: there it is the
/// time since the page's clock started.)
pub fn unix_time() -> Duration {
    imp::unix_time()
}

/// One of the host's two text streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// A writer to one of the host's text streams; unbuffered (each write
/// reaches the host at once, as stderr does).
pub struct HostWriter(Stream);

impl Write for HostWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        imp::write(self.0, buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        imp::flush(self.0)
    }
}

/// The host's stdout: the session's own messages (the REPL's answers).
pub fn stdout() -> HostWriter {
    HostWriter(Stream::Stdout)
}

/// The host's stderr: error messages, a program's `hPutStr stderr` and
/// Debug.Trace.
pub fn stderr() -> HostWriter {
    HostWriter(Stream::Stderr)
}

/// A long run's progress so far: the virtual time of the PE that just ran
/// (seconds) and the reductions of all PEs. The sim engine reports every
/// million reductions or so; natively nobody listens, in the browser the
/// page shows them.
#[inline]
pub fn progress(virtual_s: f64, reductions: u64) {
    imp::progress(virtual_s, reductions)
}

/// `print!` to the host's stdout.
#[macro_export]
macro_rules! host_print {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = write!($crate::host::stdout(), $($arg)*);
    }};
}

/// `println!` to the host's stdout.
#[macro_export]
macro_rules! host_println {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = writeln!($crate::host::stdout(), $($arg)*);
    }};
}

/// `eprintln!` to the host's stderr.
#[macro_export]
macro_rules! host_eprintln {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = writeln!($crate::host::stderr(), $($arg)*);
    }};
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::Stream;
    use std::io::Write;
    use std::time::Duration;

    pub type Instant = std::time::Instant;

    pub fn now() -> Instant {
        std::time::Instant::now()
    }

    pub fn since(t: Instant) -> Duration {
        t.elapsed()
    }

    pub fn unix_time() -> Duration {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
    }

    pub fn write(s: Stream, buf: &[u8]) -> std::io::Result<usize> {
        match s {
            Stream::Stdout => std::io::stdout().write(buf),
            Stream::Stderr => std::io::stderr().write(buf),
        }
    }

    pub fn flush(s: Stream) -> std::io::Result<()> {
        match s {
            Stream::Stdout => std::io::stdout().flush(),
            Stream::Stderr => std::io::stderr().flush(),
        }
    }

    #[inline]
    pub fn progress(_: f64, _: u64) {}
}

/// What the embedder of the browser build provides.
#[cfg(target_arch = "wasm32")]
#[derive(Clone, Copy)]
pub struct BrowserHost {
    /// Milliseconds of a monotonic clock (`performance.now()`).
    pub now_ms: fn() -> f64,
    /// Takes text written to a stream.
    pub write: fn(Stream, &[u8]),
    /// Takes a run's progress ([`progress`]).
    pub progress: fn(f64, u64),
}

/// Sets the browser build's clock and streams (once, before any run).
#[cfg(target_arch = "wasm32")]
pub fn set_browser_host(host: BrowserHost) {
    let _ = imp::HOST.set(host);
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::{BrowserHost, Stream};
    use std::sync::OnceLock;
    use std::time::Duration;

    pub static HOST: OnceLock<BrowserHost> = OnceLock::new();

    /// Milliseconds since the clock's origin.
    pub type Instant = f64;

    pub fn now() -> Instant {
        HOST.get().map_or(0.0, |h| (h.now_ms)())
    }

    pub fn since(t: Instant) -> Duration {
        Duration::from_secs_f64(((now() - t) / 1000.0).max(0.0))
    }

    pub fn unix_time() -> Duration {
        Duration::from_secs_f64((now() / 1000.0).max(0.0))
    }

    pub fn write(s: Stream, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(h) = HOST.get() {
            (h.write)(s, buf);
        }
        Ok(buf.len())
    }

    pub fn flush(_: Stream) -> std::io::Result<()> {
        Ok(())
    }

    pub fn progress(virtual_s: f64, reductions: u64) {
        if let Some(h) = HOST.get() {
            (h.progress)(virtual_s, reductions);
        }
    }
}
