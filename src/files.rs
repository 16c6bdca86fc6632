//! Files gph makes on its own, not at a path the user named: the REPL's
//! scratch folder (where each evaluation's recording goes), `:graph`'s
//! default output, the cache of compiled programs. Each is made so that
//! another local user cannot choose where gph writes or read what it
//! wrote: a scratch folder has a random name and mode 0700 (a name such as
//! `/tmp/gph-repl-PID` could be made first, or be a symbolic link, by
//! anyone who can write to `/tmp`); a file is never written through a
//! symbolic link; the cache's folder is the user's alone, and an entry is
//! written under a fresh name before it takes its place.

//!
//! The browser build (web/, docs/web.md) has no files at all: there each
//! of these fails with the standard library's "unsupported" error, and
//! the REPL records nothing.

#[cfg(unix)]
pub use unix::*;

#[cfg(not(unix))]
pub use elsewhere::*;

#[cfg(not(unix))]
mod elsewhere {
    use std::io::{Error, ErrorKind, Result};
    use std::path::Path;

    fn none<T>() -> Result<T> {
        Err(Error::new(ErrorKind::Unsupported, "no files here"))
    }

    pub fn scratch_dir(_: &str) -> Result<tempfile::TempDir> {
        none()
    }

    pub fn write_no_follow(_: &Path, _: &[u8]) -> Result<()> {
        none()
    }

    pub fn private_dir(_: &Path) -> Result<()> {
        none()
    }

    pub fn write_fresh(_: &Path, _: &[u8]) -> Result<()> {
        none()
    }
}

#[cfg(unix)]
mod unix {
    use std::fs::{DirBuilder, OpenOptions};
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    use std::path::Path;

    /// A new folder of this user's alone, with a random name starting with
    /// `prefix`, in the temporary folder; removed when dropped.
    pub fn scratch_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
        // tempfile makes it with mkdir, under a name it has just drawn at
        // random, and fails rather than reuse one that exists; by default with
        // the umask's mode (0755), so the mode is asked for.
        use std::os::unix::fs::PermissionsExt;
        tempfile::Builder::new()
            .prefix(prefix)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
    }

    /// Writes `bytes` to `path` (made, or emptied first), refusing to follow a
    /// symbolic link there.
    pub fn write_no_follow(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| {
                if e.raw_os_error() == Some(libc::ELOOP) {
                    std::io::Error::other("it is a symbolic link, which gph does not write through")
                } else {
                    e
                }
            })?;
        f.write_all(bytes)
    }

    /// Makes `dir` (and its parents) as this user's alone (mode 0700 for what
    /// it makes).
    pub fn private_dir(dir: &Path) -> std::io::Result<()> {
        DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }

    /// Writes `bytes` as a new file at `path`, which must not exist (nor be a
    /// symbolic link): mode 0600.
    pub fn write_fresh(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        f.write_all(bytes)
    }
}
