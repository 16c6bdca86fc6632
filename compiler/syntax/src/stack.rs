//! The compiler's stack: a large reserved stack, and a guard that turns its
//! exhaustion into a clean error.
//!
//! Every pass recurses over the syntax tree or Core, and some trees are as
//! deep as the input is long (a 10,000-operand `++` chain, a `do` block of
//! 10,000 statements becomes 10,000 nested binds, a list literal 10,000
//! nested conses). Rather than making each pass iterative, the compiler
//! runs on a thread with a large stack ([`run`]: 1 GiB reserved, of which
//! only what the recursion reaches is ever touched), and the recursive
//! functions of the passes call [`guard`], which stops the compilation with
//! [`TooDeep`] (a panic payload the caller turns into an error message)
//! before the stack runs out. In a debug build the deepest passes use about
//! 4 KB of stack per level, so 1 GiB is room for some 200,000 levels; the
//! parser rejects programs nested more than
//! [`crate::nesting::MAX_NESTING`] deep before that, with a located error.
//!
//! The guard is per thread: on a thread not started by [`run`] (unit
//! tests), it does nothing.

use std::cell::Cell;

/// The stack reserved for the compiler's thread. Reserved, not committed:
/// the pages are touched only as deep as the recursion goes.
pub const STACK: usize = 1 << 30;

/// What the guard keeps free below the point where it stops: destructors
/// of the trees being dropped while unwinding, and recursion in code that
/// has no guard (derived `Clone` and `Drop` take ~100 bytes per level).
#[cfg(not(target_arch = "wasm32"))]
const MARGIN_FRACTION: usize = 8;

/// The panic payload of a compilation stopped by [`guard`].
#[derive(Debug, Clone, Copy)]
pub struct TooDeep;

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "program nested too deeply: the compiler ran out of stack"
        )
    }
}

thread_local! {
    /// The lowest stack address the guard allows (0: no guard).
    static LIMIT: Cell<usize> = const { Cell::new(0) };
}

fn stack_pointer() -> usize {
    let x = 0u8;
    std::hint::black_box(&x) as *const u8 as usize
}

/// Stops the compilation (panics with [`TooDeep`]) when the stack is nearly
/// exhausted. Call it at the top of recursive functions whose depth follows
/// the input's.
#[inline]
pub fn guard() {
    let limit = LIMIT.with(Cell::get);
    if limit != 0 && stack_pointer() < limit {
        too_deep();
    }
}

#[cold]
#[inline(never)]
fn too_deep() -> ! {
    // Unwinding drops what the frames hold; without the guard, so that a
    // destructor calling a guarded function does not panic again.
    LIMIT.with(|l| l.set(0));
    std::panic::panic_any(TooDeep)
}

/// Whether a panic payload is the guard's.
pub fn is_too_deep(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<TooDeep>()
}

/// Runs `f` on a new thread with a [`STACK`]-byte stack and the guard on
/// (with a quarter of that if the system refuses so large a reservation).
/// Returns `Err(TooDeep)` if the guard stopped it; other panics are passed
/// on.
pub fn run<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, TooDeep> {
    // GPH_STACK_MB: a smaller stack, for testing that the guard stops every
    // pass in time.
    let mb = std::env::var("GPH_STACK_MB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    run_sized(mb.map_or(STACK, |m| m << 20), f)
}

/// The browser build (web/, docs/web.md) has no threads and no unwinding:
/// the compiler runs on the caller's stack without the guard, and the
/// parser's bound ([`crate::nesting::MAX_NESTING`], smaller there) is what
/// keeps programs within it; a program that still runs out of stack stops
/// the WebAssembly instance, and the page reports that and starts afresh.
#[cfg(target_arch = "wasm32")]
fn run_sized<T: Send + 'static>(
    _stack: usize,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, TooDeep> {
    Ok(f())
}

#[cfg(not(target_arch = "wasm32"))]
fn run_sized<T: Send + 'static>(
    stack: usize,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, TooDeep> {
    let body = move |size: usize| {
        move || {
            // Stacks grow downwards on every platform gph runs on.
            let top = stack_pointer();
            LIMIT.with(|l| l.set(top.saturating_sub(size - size / MARGIN_FRACTION)));
            catch(f)
        }
    };
    // Thread spawning consumes the closure, so try the large stack first
    // with a probe: a reservation the system refuses fails at once.
    let size = [stack, stack / 4]
        .into_iter()
        .find(|&s| {
            std::thread::Builder::new()
                .stack_size(s)
                .spawn(|| ())
                .is_ok_and(|h| h.join().is_ok())
        })
        .unwrap_or(stack / 16);
    let handle = std::thread::Builder::new()
        .stack_size(size)
        .spawn(body(size))
        .expect("cannot start the compiler's thread");
    match handle.join() {
        Ok(r) => r,
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// Runs `f`, returning `Err(TooDeep)` if the guard stopped it (on the
/// current thread: for a loop that must survive, like the REPL's).
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, TooDeep> {
    let saved = LIMIT.with(Cell::get);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    // The guard switched itself off to unwind: back on.
    LIMIT.with(|l| l.set(saved));
    match r {
        Ok(v) => Ok(v),
        Err(p) if is_too_deep(&*p) => Err(TooDeep),
        Err(p) => std::panic::resume_unwind(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(n: usize) -> usize {
        guard();
        let pad = std::hint::black_box([0u8; 256]);
        if n == 0 {
            pad[0] as usize
        } else {
            1 + depth(n - 1) + pad[1] as usize
        }
    }

    #[test]
    fn the_guard_stops_deep_recursion_cleanly() {
        const MB: usize = 1 << 20;
        assert_eq!(run_sized(16 * MB, || depth(10_000)).unwrap(), 10_000);
        assert!(run_sized(16 * MB, || depth(usize::MAX)).is_err());
        // After a stop, the thread's guard works again.
        let r = run_sized(16 * MB, || {
            let first = catch(|| depth(usize::MAX)).is_err();
            (
                first,
                catch(|| depth(1000)).ok(),
                catch(|| depth(usize::MAX)).is_err(),
            )
        });
        assert_eq!(r.unwrap(), (true, Some(1000), true));
    }
}
