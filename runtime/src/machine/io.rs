//! The outside world of one run: the handles (stdin, stdout, stderr and the
//! files the program opened), the program's arguments and name, and the
//! environment. One `Io` per `run_main`, so that the REPL's runs do not
//! share buffers; every output buffer is flushed at the end of a run.
//!
//! A handle is a number: 0 stdin, 1 stdout, 2 stderr, then the files in
//! the order they were opened (numbers are never reused). Each has GHC's
//! state (open, semi-closed after `hGetContents`, closed), its buffering
//! (`NoBuffering`, `LineBuffering`, `BlockBuffering`: stdout is line
//! buffered on a terminal and block buffered otherwise, stderr unbuffered,
//! files block buffered) and GHC's texts for every failure ([`IoErr`]). As
//! in GHC, a file is locked while it is open: any number of readers or one
//! writer (`openFile: resource busy (file is locked)`).

use std::io::{Read, Seek, SeekFrom, Write};

/// Output is written out in blocks of this size (GHC's default buffer).
const OUT_BLOCK: usize = 8192;
const IN_CHUNK: usize = 64 * 1024;

pub const STDIN: usize = 0;
pub const STDOUT: usize = 1;
pub const STDERR: usize = 2;
/// Debug.Trace's stderr: each write goes out whole at once, whatever
/// stderr's buffer mode (GHC writes a trace with one call, so traces of
/// PEs running at the same time do not mix their characters).
pub const TRACE: i64 = -1;

/// GHC's `IOErrorType`, by the position of its constructor (the library's
/// `Gph.IO.IOErrorType` lists them in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrKind {
    AlreadyExists = 0,
    NoSuchThing = 1,
    ResourceBusy = 2,
    ResourceExhausted = 3,
    Eof = 4,
    IllegalOperation = 5,
    PermissionDenied = 6,
    UserError = 7,
    UnsatisfiedConstraints = 8,
    SystemError = 9,
    ProtocolError = 10,
    OtherError = 11,
    InvalidArgument = 12,
    InappropriateType = 13,
    HardwareFault = 14,
    UnsupportedOperation = 15,
    TimeExpired = 16,
    ResourceVanished = 17,
    Interrupted = 18,
}

impl ErrKind {
    /// GHC's `show` of the error type.
    pub fn text(self) -> &'static str {
        use ErrKind::*;
        match self {
            AlreadyExists => "already exists",
            NoSuchThing => "does not exist",
            ResourceBusy => "resource busy",
            ResourceExhausted => "resource exhausted",
            Eof => "end of file",
            IllegalOperation => "illegal operation",
            PermissionDenied => "permission denied",
            UserError => "user error",
            UnsatisfiedConstraints => "unsatisfied constraints",
            SystemError => "system error",
            ProtocolError => "protocol error",
            OtherError => "failed",
            InvalidArgument => "invalid argument",
            InappropriateType => "inappropriate type",
            HardwareFault => "hardware fault",
            UnsupportedOperation => "unsupported operation",
            TimeExpired => "timeout",
            ResourceVanished => "resource vanished",
            Interrupted => "interrupted",
        }
    }
}

/// A failed IO operation, as GHC's `IOError`: what kind, where (the
/// operation, `hGetLine`), the details, and the file or handle it was on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoErr {
    pub kind: ErrKind,
    pub location: String,
    pub description: String,
    pub file: Option<String>,
}

impl IoErr {
    pub fn new(kind: ErrKind, location: &str, description: &str, file: Option<&str>) -> IoErr {
        IoErr {
            kind,
            location: location.into(),
            description: description.into(),
            file: file.map(String::from),
        }
    }

    /// GHC's `show` of the IOError (what an uncaught one prints after
    /// `prog: `): `t1.txt: hGetLine: end of file`.
    pub fn message(&self) -> String {
        let mut s = String::new();
        if let Some(f) = &self.file {
            s.push_str(f);
            s.push_str(": ");
        }
        if !self.location.is_empty() {
            s.push_str(&self.location);
            s.push_str(": ");
        }
        s.push_str(self.kind.text());
        if !self.description.is_empty() {
            s.push_str(" (");
            s.push_str(&self.description);
            s.push(')');
        }
        s
    }

    /// From an operating system error, as GHC's `errnoToIOError`.
    pub fn os(e: &std::io::Error, location: &str, file: Option<&str>) -> IoErr {
        use ErrKind::*;
        let kind = match e.raw_os_error() {
            Some(n) => match n {
                libc::E2BIG | libc::EAGAIN | libc::EMFILE | libc::ENFILE | libc::ENOSPC => {
                    ResourceExhausted
                }
                libc::EACCES | libc::EPERM | libc::EROFS | libc::EFBIG => PermissionDenied,
                libc::EBUSY | libc::ETXTBSY => ResourceBusy,
                libc::EEXIST => AlreadyExists,
                libc::EINTR => Interrupted,
                libc::EINVAL | libc::EBADF | libc::ELOOP | libc::ENAMETOOLONG => InvalidArgument,
                libc::EIO => HardwareFault,
                libc::EISDIR | libc::ENOTDIR => InappropriateType,
                libc::ENOENT => NoSuchThing,
                libc::ENOTEMPTY => UnsatisfiedConstraints,
                libc::EPIPE => ResourceVanished,
                _ => OtherError,
            },
            None => OtherError,
        };
        // strerror's text, without Rust's " (os error N)".
        let text = e.to_string();
        let description = match text.rfind(" (os error ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        IoErr {
            kind,
            location: location.into(),
            description,
            file: file.map(String::from),
        }
    }
}

/// The C library's errno numbers we map (Linux's; the values GHC's
/// `Foreign.C.Error` has there).
mod libc {
    pub const EPERM: i32 = 1;
    pub const ENOENT: i32 = 2;
    pub const EINTR: i32 = 4;
    pub const EIO: i32 = 5;
    pub const E2BIG: i32 = 7;
    pub const EBADF: i32 = 9;
    pub const EAGAIN: i32 = 11;
    pub const EACCES: i32 = 13;
    pub const EBUSY: i32 = 16;
    pub const EEXIST: i32 = 17;
    pub const ENOTDIR: i32 = 20;
    pub const EISDIR: i32 = 21;
    pub const EINVAL: i32 = 22;
    pub const ENFILE: i32 = 23;
    pub const EMFILE: i32 = 24;
    pub const ETXTBSY: i32 = 26;
    pub const EFBIG: i32 = 27;
    pub const ENOSPC: i32 = 28;
    pub const EROFS: i32 = 30;
    pub const EPIPE: i32 = 32;
    pub const ENAMETOOLONG: i32 = 36;
    pub const ENOTEMPTY: i32 = 39;
    pub const ELOOP: i32 = 40;
}

/// GHC's `BufferMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffering {
    No,
    Line,
    /// `BlockBuffering Nothing` (0) or `Just n`.
    Block(usize),
}

impl Buffering {
    /// The library's code: -2 NoBuffering, -1 LineBuffering, 0
    /// BlockBuffering Nothing, n > 0 BlockBuffering (Just n).
    pub fn code(self) -> i64 {
        match self {
            Buffering::No => -2,
            Buffering::Line => -1,
            Buffering::Block(n) => n as i64,
        }
    }

    pub fn from_code(c: i64) -> Buffering {
        match c {
            -2 => Buffering::No,
            -1 => Buffering::Line,
            n => Buffering::Block(n.max(0) as usize),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Open,
    /// After hGetContents: only the lazy list reads it.
    SemiClosed,
    Closed,
}

enum Dev {
    Stdin,
    Stdout,
    Stderr,
    File {
        file: std::fs::File,
        /// (device, inode): the lock's key.
        key: (u64, u64),
    },
    /// A file that was closed.
    Gone,
}

struct Handle {
    /// `<stdin>` or the path the program gave.
    name: String,
    dev: Dev,
    state: State,
    readable: bool,
    writable: bool,
    buffering: Buffering,
    ibuf: Vec<u8>,
    ipos: usize,
    eof: bool,
    obuf: Vec<u8>,
}

impl Handle {
    fn new(name: &str, dev: Dev, readable: bool, writable: bool, b: Buffering) -> Handle {
        Handle {
            name: name.into(),
            dev,
            state: State::Open,
            readable,
            writable,
            buffering: b,
            ibuf: Vec::new(),
            ipos: 0,
            eof: false,
            obuf: Vec::new(),
        }
    }

    fn available(&self) -> &[u8] {
        &self.ibuf[self.ipos..]
    }

    /// The handle's file; None for the standard handles and a closed one.
    fn file(&mut self) -> Option<&mut std::fs::File> {
        match &mut self.dev {
            Dev::File { file, .. } => Some(file),
            _ => None,
        }
    }

    fn err(&self, kind: ErrKind, loc: &str, desc: &str) -> IoErr {
        IoErr::new(kind, loc, desc, Some(&self.name))
    }

    fn illegal(&self, loc: &str, why: &str) -> IoErr {
        self.err(ErrKind::IllegalOperation, loc, why)
    }

    /// The state checks of an operation that reads.
    fn check_read(&self, loc: &str) -> Result<(), IoErr> {
        self.check_open(loc, self.readable, "reading")
    }

    fn check_write(&self, loc: &str) -> Result<(), IoErr> {
        self.check_open(loc, self.writable, "writing")
    }

    /// Open, and open for this direction (`reading`/`writing`).
    fn check_open(&self, loc: &str, allowed: bool, direction: &str) -> Result<(), IoErr> {
        match self.state {
            State::Closed => Err(self.illegal(loc, "handle is closed")),
            State::SemiClosed => Err(self.illegal(loc, "handle is semi-closed")),
            State::Open if !allowed => {
                Err(self.illegal(loc, &format!("handle is not open for {direction}")))
            }
            State::Open => Ok(()),
        }
    }
}

/// How a program opens a file (GHC's `IOMode`, by constructor position).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Read = 0,
    Write = 1,
    Append = 2,
    ReadWrite = 3,
}

pub struct Io<'a> {
    out: &'a mut dyn Write,
    input: &'a mut dyn Read,
    handles: Vec<Handle>,
    pub args: Vec<String>,
    pub prog_name: String,
    /// False on the PEs other than the main one: they have no outside world
    /// but stderr (debugging output, Debug.Trace).
    reachable: bool,
    /// Files created by openTempFile so far (their names are unique).
    temps: u64,
    /// When the program started (System.CPUTime's clock).
    pub started: crate::host::Instant,
}

impl<'a> Io<'a> {
    pub fn new(
        out: &'a mut dyn Write,
        line_buffered: bool,
        input: &'a mut dyn Read,
        args: Vec<String>,
        prog_name: String,
    ) -> Io<'a> {
        let stdout = if line_buffered {
            Buffering::Line
        } else {
            Buffering::Block(0)
        };
        let handles = vec![
            Handle::new("<stdin>", Dev::Stdin, true, false, Buffering::Line),
            Handle::new("<stdout>", Dev::Stdout, false, true, stdout),
            Handle::new("<stderr>", Dev::Stderr, false, true, Buffering::No),
        ];
        Io {
            out,
            input,
            handles,
            args,
            prog_name,
            reachable: true,
            temps: 0,
            started: crate::host::Instant::now(),
        }
    }

    /// The outside world of a PE other than the main one: none but stderr.
    /// Anything else is an internal error (only the main thread does input
    /// and output, and it runs on PE 0).
    pub fn elsewhere() -> Io<'a> {
        let mut io = Io::new(
            Box::leak(Box::new(std::io::sink())),
            false,
            Box::leak(Box::new(std::io::empty())),
            Vec::new(),
            String::new(),
        );
        io.reachable = false;
        io
    }

    fn handle(&mut self, h: i64, loc: &str) -> Result<&mut Handle, IoErr> {
        if !self.reachable && h != STDERR as i64 {
            return Err(IoErr::new(
                ErrKind::SystemError,
                loc,
                "internal error: input/output on a PE other than the main one",
                None,
            ));
        }
        match usize::try_from(h)
            .ok()
            .and_then(|i| self.handles.get_mut(i))
        {
            Some(x) => Ok(x),
            None => Err(IoErr::new(
                ErrKind::InvalidArgument,
                loc,
                "no such handle",
                None,
            )),
        }
    }

    // ------------------------------------------------------------ output

    /// Writes `s` to handle `h` (hPutStr), buffered as the handle says.
    pub fn put_str(&mut self, h: i64, s: &str) -> Result<(), IoErr> {
        if h == TRACE {
            let mut e = crate::host::stderr();
            return e
                .write_all(s.as_bytes())
                .and_then(|()| e.flush())
                .map_err(|e| IoErr::os(&e, "hPutStr", Some("<stderr>")));
        }
        let x = self.handle(h, "hPutStr")?;
        x.check_write("hPutStr")?;
        if x.readable && !x.available().is_empty() {
            // ReadWriteMode: writing continues where reading got to.
            let back = x.available().len() as i64;
            if let Dev::File { file, .. } = &mut x.dev {
                file.seek(SeekFrom::Current(-back))
                    .map_err(|e| IoErr::os(&e, "hPutStr", Some(&x.name)))?;
            }
            x.ibuf.clear();
            x.ipos = 0;
            x.eof = false;
        }
        x.obuf.extend_from_slice(s.as_bytes());
        let due = match x.buffering {
            Buffering::No => true,
            Buffering::Line => s.contains('\n') || x.obuf.len() >= OUT_BLOCK,
            Buffering::Block(0) => x.obuf.len() >= OUT_BLOCK,
            Buffering::Block(n) => x.obuf.len() >= n,
        };
        if due {
            self.flush_handle(h as usize, "hPutStr")?;
        }
        Ok(())
    }

    /// Writes out a handle's buffer (GHC's texts: "commitBuffer" when the
    /// write fails, `loc` when the flush does).
    fn flush_handle(&mut self, i: usize, loc: &str) -> Result<(), IoErr> {
        let x = &mut self.handles[i];
        if x.obuf.is_empty() {
            return Ok(());
        }
        let r = match &mut x.dev {
            Dev::Stdout => self
                .out
                .write_all(&x.obuf)
                .map_err(|e| (e, "commitBuffer"))
                .and_then(|()| self.out.flush().map_err(|e| (e, loc))),
            Dev::Stderr => {
                let mut e = crate::host::stderr();
                e.write_all(&x.obuf).map_err(|e| (e, "commitBuffer"))
            }
            Dev::File { file, .. } => file.write_all(&x.obuf).map_err(|e| (e, "commitBuffer")),
            Dev::Stdin | Dev::Gone => Ok(()),
        };
        x.obuf.clear();
        r.map_err(|(e, l)| IoErr::os(&e, l, Some(&x.name)))
    }

    /// hFlush.
    pub fn h_flush(&mut self, h: i64) -> Result<(), IoErr> {
        let x = self.handle(h, "hFlush")?;
        x.check_write("hFlush")?;
        self.flush_handle(h as usize, "hFlush")
    }

    /// Flushes every handle (the end of a run). The first failure, as
    /// GHC reports a failed flush of stdout at exit.
    pub fn flush(&mut self) -> Result<(), String> {
        let mut first = Ok(());
        for i in 0..self.handles.len() {
            let r = self.flush_handle(i, "hFlush");
            if first.is_ok() {
                first = r;
            }
        }
        first.map_err(|e| e.message())
    }

    // ------------------------------------------------------------ input

    /// Reads more input into a handle's buffer; false at end of input.
    fn fill(&mut self, i: usize) -> bool {
        let x = &mut self.handles[i];
        if x.eof {
            return false;
        }
        if x.ipos > 0 {
            x.ibuf.drain(..x.ipos);
            x.ipos = 0;
        }
        let old = x.ibuf.len();
        x.ibuf.resize(old + IN_CHUNK, 0);
        loop {
            let r = match &mut x.dev {
                Dev::Stdin => self.input.read(&mut x.ibuf[old..]),
                Dev::File { file, .. } => file.read(&mut x.ibuf[old..]),
                _ => Ok(0),
            };
            match r {
                Ok(0) => {
                    x.ibuf.truncate(old);
                    x.eof = true;
                    return false;
                }
                Ok(n) => {
                    x.ibuf.truncate(old + n);
                    return true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    x.ibuf.truncate(old);
                    x.eof = true;
                    return false;
                }
            }
        }
    }

    /// Before reading a handle open for writing too: its output goes first.
    fn start_reading(&mut self, i: usize, loc: &str) -> Result<(), IoErr> {
        if self.handles[i].writable {
            self.flush_handle(i, loc)?;
        }
        Ok(())
    }

    /// hGetChar.
    pub fn get_char(&mut self, h: i64) -> Result<char, IoErr> {
        let (c, n) = self.next_char(h, "hGetChar")?;
        self.handles[h as usize].ipos += n;
        Ok(c)
    }

    /// hLookAhead: the next character, left to be read again.
    pub fn look_ahead(&mut self, h: i64) -> Result<char, IoErr> {
        Ok(self.next_char(h, "hLookAhead")?.0)
    }

    /// The handle's next character and its length in bytes, not consumed
    /// (the end of input is `loc`'s end-of-file error).
    fn next_char(&mut self, h: i64, loc: &str) -> Result<(char, usize), IoErr> {
        let x = self.handle(h, loc)?;
        x.check_read(loc)?;
        let i = h as usize;
        self.start_reading(i, loc)?;
        if self.handles[i].available().is_empty() && !self.fill(i) {
            return Err(self.handles[i].err(ErrKind::Eof, loc, ""));
        }
        let need = utf8_len(self.handles[i].available()[0]);
        while self.handles[i].available().len() < need && self.fill(i) {}
        let a = self.handles[i].available();
        let n = need.min(a.len());
        let s = String::from_utf8_lossy(&a[..n]);
        Ok((s.chars().next().unwrap_or('\u{FFFD}'), n))
    }

    /// hWaitForInput (hReady waits 0 ms): whether a character can be read.
    /// Input already buffered answers at once; otherwise the handle is read,
    /// which for a file or a pipe with data does not wait; on a terminal it
    /// waits for a line whatever the time given. At the end of input it is
    /// GHC's end-of-file error.
    pub fn wait_for_input(&mut self, h: i64, _ms: i64) -> Result<bool, IoErr> {
        let x = self.handle(h, "hWaitForInput")?;
        x.check_read("hWaitForInput")?;
        let i = h as usize;
        self.start_reading(i, "hWaitForInput")?;
        if self.handles[i].available().is_empty() && !self.fill(i) {
            return Err(self.handles[i].err(ErrKind::Eof, "hWaitForInput", ""));
        }
        Ok(true)
    }

    /// hIsTerminalDevice: the standard handles when the process's are
    /// terminals; never a file.
    pub fn is_terminal(&mut self, h: i64) -> Result<bool, IoErr> {
        use std::io::IsTerminal;
        let x = self.handle(h, "hIsTerminalDevice")?;
        Ok(match x.dev {
            Dev::Stdin => std::io::stdin().is_terminal(),
            Dev::Stdout => std::io::stdout().is_terminal(),
            Dev::Stderr => std::io::stderr().is_terminal(),
            Dev::File { .. } | Dev::Gone => false,
        })
    }

    /// hGetLine: a line without its '\n' (a last line without one counts).
    pub fn get_line(&mut self, h: i64) -> Result<String, IoErr> {
        let x = self.handle(h, "hGetLine")?;
        x.check_read("hGetLine")?;
        let i = h as usize;
        self.start_reading(i, "hGetLine")?;
        let mut from = 0;
        loop {
            let x = &mut self.handles[i];
            if let Some(k) = x.available()[from..].iter().position(|&b| b == b'\n') {
                let end = from + k;
                let line = String::from_utf8_lossy(&x.available()[..end]).into_owned();
                x.ipos += end + 1;
                return Ok(line);
            }
            from = x.available().len();
            if !self.fill(i) {
                let x = &mut self.handles[i];
                if x.available().is_empty() {
                    return Err(x.err(ErrKind::Eof, "hGetLine", ""));
                }
                let line = String::from_utf8_lossy(x.available()).into_owned();
                x.ipos = x.ibuf.len();
                return Ok(line);
            }
        }
    }

    /// An open handle on a file, its output written: its index. Any
    /// other handle (the standard ones, whatever they are connected to)
    /// is the error `kind`, `why`.
    fn file_handle(&mut self, h: i64, loc: &str, kind: ErrKind, why: &str) -> Result<usize, IoErr> {
        let x = self.handle(h, loc)?;
        x.check_open(loc, true, "")?;
        if x.file().is_none() {
            return Err(x.err(kind, loc, why));
        }
        self.flush_handle(h as usize, loc)?;
        Ok(h as usize)
    }

    /// A seekable handle's index and its logical position: the file's
    /// less what is read ahead.
    fn position(&mut self, h: i64, loc: &str) -> Result<(usize, u64), IoErr> {
        let i = self.file_handle(h, loc, ErrKind::IllegalOperation, "handle is not seekable")?;
        let x = &mut self.handles[i];
        let ahead = x.available().len() as u64;
        let at = x.file().expect("a file handle").stream_position();
        let at = at.map_err(|e| IoErr::os(&e, loc, Some(&x.name)))?;
        Ok((i, at.saturating_sub(ahead)))
    }

    /// hSeek h mode n: mode 0 from the start, 1 from here, 2 from the end;
    /// the read-ahead is dropped.
    pub fn seek(&mut self, h: i64, mode: i64, n: i64) -> Result<(), IoErr> {
        let (i, here) = self.position(h, "hSeek")?;
        let x = &mut self.handles[i];
        x.ibuf.clear();
        x.ipos = 0;
        x.eof = false;
        let target = match mode {
            0 => u64::try_from(n).ok().map(SeekFrom::Start),
            1 => here.checked_add_signed(n).map(SeekFrom::Start),
            _ => Some(SeekFrom::End(n)),
        };
        let Some(target) = target else {
            return Err(x.err(ErrKind::InvalidArgument, "hSeek", "Invalid argument"));
        };
        let r = x.file().expect("a file handle").seek(target);
        r.map(drop)
            .map_err(|e| IoErr::os(&e, "hSeek", Some(&x.name)))
    }

    /// hTell: the position the next read or write is at, in bytes. (GHC's
    /// hTell reports its errors as hGetPosn's.)
    pub fn tell(&mut self, h: i64) -> Result<i64, IoErr> {
        Ok(self.position(h, "hGetPosn")?.1 as i64)
    }

    /// hFileSize: the file's size in bytes (what is written so far
    /// included).
    pub fn file_size(&mut self, h: i64) -> Result<i64, IoErr> {
        let loc = "hFileSize";
        let i = self.file_handle(h, loc, ErrKind::InappropriateType, "not a regular file")?;
        let x = &mut self.handles[i];
        let m = x.file().expect("a file handle").metadata();
        m.map(|m| m.len() as i64)
            .map_err(|e| IoErr::os(&e, loc, Some(&x.name)))
    }

    /// hIsEOF.
    pub fn is_eof(&mut self, h: i64) -> Result<bool, IoErr> {
        let x = self.handle(h, "hIsEOF")?;
        x.check_read("hIsEOF")?;
        let i = h as usize;
        self.start_reading(i, "hIsEOF")?;
        Ok(self.handles[i].available().is_empty() && !self.fill(i))
    }

    /// hGetContents: the handle becomes semi-closed; the lazy list reads it
    /// with [`Io::read_chunk`].
    pub fn semi_close(&mut self, h: i64) -> Result<(), IoErr> {
        let x = self.handle(h, "hGetContents")?;
        x.check_read("hGetContents")?;
        let i = h as usize;
        self.start_reading(i, "hGetContents")?;
        self.handles[i].state = State::SemiClosed;
        Ok(())
    }

    /// The next piece of a semi-closed handle's lazy contents; None at the
    /// end of input, when the handle is closed (as GHC does). Reading a
    /// handle the program closed meanwhile is GHC's "delayed read on
    /// closed handle" error.
    pub fn read_chunk(&mut self, h: i64) -> Result<Option<String>, String> {
        let i = h as usize;
        match self.handles.get(i).map(|x| x.state) {
            Some(State::SemiClosed) => {}
            Some(_) => {
                let x = &self.handles[i];
                return Err(x
                    .illegal("hGetContents", "delayed read on closed handle")
                    .message());
            }
            None => return Err("internal error: lazy read of no handle".into()),
        }
        if self.handles[i].available().is_empty() && !self.fill(i) {
            self.close_handle(i);
            return Ok(None);
        }
        // Whole UTF-8 sequences only (unless the input ends mid-sequence).
        let a = self.handles[i].available();
        let mut end = a.len();
        let mut k = end;
        while k > 0 && end - k < 4 && (a[k - 1] & 0xC0) == 0x80 {
            k -= 1;
        }
        if k > 0 && a[k - 1] >= 0xC0 && k - 1 + utf8_len(a[k - 1]) > end {
            end = k - 1;
        }
        if end == 0 {
            while self.handles[i].available().len() < 4 && self.fill(i) {}
            end = self.handles[i].available().len();
        }
        let x = &mut self.handles[i];
        let s = String::from_utf8_lossy(&x.available()[..end]).into_owned();
        x.ipos += end;
        Ok(Some(s))
    }

    // ------------------------------------------------------------ handles

    /// hClose: flushes and closes (closing a closed handle does nothing).
    pub fn h_close(&mut self, h: i64) -> Result<(), IoErr> {
        let x = self.handle(h, "hClose")?;
        if x.state == State::Closed {
            return Ok(());
        }
        let i = h as usize;
        let r = self.flush_handle(i, "hClose");
        self.close_handle(i);
        r
    }

    fn close_handle(&mut self, i: usize) {
        let x = &mut self.handles[i];
        x.state = State::Closed;
        x.ibuf = Vec::new();
        x.ipos = 0;
        x.obuf = Vec::new();
        if let Dev::File { .. } = x.dev {
            // Dropping the file closes it (and releases the lock).
            x.dev = Dev::Gone;
            x.readable = false;
            x.writable = false;
        }
    }

    /// hSetBuffering (the buffer is flushed when the mode changes).
    pub fn set_buffering(&mut self, h: i64, code: i64) -> Result<(), IoErr> {
        let x = self.handle(h, "hSetBuffering")?;
        if x.state == State::Closed {
            return Err(x.illegal("hSetBuffering", "handle is closed"));
        }
        let b = Buffering::from_code(code);
        let i = h as usize;
        if self.handles[i].buffering != b {
            self.flush_handle(i, "hSetBuffering")?;
        }
        self.handles[i].buffering = b;
        Ok(())
    }

    /// hGetBuffering: the code of [`Buffering::code`], or -3 for a closed
    /// handle (the library raises GHC's error: its hPutStr asks first).
    pub fn get_buffering(&mut self, h: i64) -> Result<i64, IoErr> {
        if h == TRACE {
            return Ok(Buffering::Block(0).code());
        }
        let x = self.handle(h, "hGetBuffering")?;
        if x.state == State::Closed {
            return Ok(-3);
        }
        Ok(x.buffering.code())
    }

    /// openFile: the new handle's number.
    pub fn open_file(&mut self, path: &str, mode: i64) -> Result<i64, IoErr> {
        const LOC: &str = "openFile";
        if !self.reachable {
            return Err(IoErr::new(
                ErrKind::SystemError,
                LOC,
                "internal error: input/output on a PE other than the main one",
                None,
            ));
        }
        let mode = match mode {
            0 => Mode::Read,
            1 => Mode::Write,
            2 => Mode::Append,
            _ => Mode::ReadWrite,
        };
        let mut o = std::fs::OpenOptions::new();
        match mode {
            Mode::Read => o.read(true),
            Mode::Write => o.write(true).create(true),
            Mode::Append => o.append(true).create(true),
            Mode::ReadWrite => o.read(true).write(true).create(true),
        };
        let os = |e: std::io::Error| IoErr::os(&e, LOC, Some(path));
        let file = o.open(path).map_err(os)?;
        let meta = file.metadata().map_err(os)?;
        if meta.is_dir() {
            return Err(IoErr::new(
                ErrKind::InappropriateType,
                LOC,
                "is a directory",
                Some(path),
            ));
        }
        let key = file_key(&meta);
        // GHC's locking: many readers or one writer.
        let writer = mode != Mode::Read;
        let clash = self.handles.iter().any(|x| match &x.dev {
            Dev::File { key: k, .. } if *k == key && x.state != State::Closed => {
                writer || x.writable
            }
            _ => false,
        });
        if clash {
            return Err(IoErr::new(
                ErrKind::ResourceBusy,
                LOC,
                "file is locked",
                Some(path),
            ));
        }
        if mode == Mode::Write {
            file.set_len(0).map_err(os)?;
        }
        let readable = matches!(mode, Mode::Read | Mode::ReadWrite);
        self.handles.push(Handle::new(
            path,
            Dev::File { file, key },
            readable,
            writer,
            Buffering::Block(0),
        ));
        Ok(self.handles.len() as i64 - 1)
    }

    /// openTempFile's file: a new empty file in `dir` named after the
    /// template (`foo.txt` gives `fooNNN.txt`), created here; its path.
    pub fn temp_file(&mut self, dir: &str, template: &str) -> Result<String, IoErr> {
        const LOC: &str = "openTempFile";
        let (stem, ext) = match template.rfind('.') {
            Some(i) => (&template[..i], &template[i..]),
            None => (template, ""),
        };
        // The browser build has no processes (and no files: the open
        // below fails there with a clean error).
        let pid = if cfg!(target_arch = "wasm32") {
            0
        } else {
            std::process::id()
        };
        loop {
            self.temps += 1;
            let name = format!("{stem}{pid}-{}{ext}", self.temps);
            let path = if dir.is_empty() {
                name
            } else if dir.ends_with('/') {
                format!("{dir}{name}")
            } else {
                format!("{dir}/{name}")
            };
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => return Ok(path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(IoErr::os(&e, LOC, Some(dir))),
            }
        }
    }

    /// removeFile (System.Directory); its errors name the system call, as GHC's (`removeLink`).
    pub fn remove_file(&mut self, path: &str) -> Result<(), IoErr> {
        std::fs::remove_file(path).map_err(|e| IoErr::os(&e, "removeLink", Some(path)))
    }

    /// doesFileExist (System.Directory).
    pub fn file_exists(&self, path: &str) -> bool {
        std::fs::metadata(path).is_ok_and(|m| !m.is_dir())
    }
}

#[cfg(unix)]
fn file_key(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
fn file_key(_: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

fn utf8_len(b: u8) -> usize {
    match b {
        0..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}
