//! The outside world of one run: stdout (buffered), stdin (getChar,
//! getLine, getContents with GHC's end-of-file texts), the program's
//! arguments and name. One `Io` per `run_main`, so that the REPL's runs do
//! not share buffers; the output is flushed at the end of every run.

use std::io::{Read, Write};

/// Output is written out in blocks of this size (or per line on a tty).
const OUT_BLOCK: usize = 8192;
const IN_CHUNK: usize = 64 * 1024;

pub struct Io<'a> {
    out: &'a mut dyn Write,
    obuf: Vec<u8>,
    line_buffered: bool,
    input: &'a mut dyn Read,
    ibuf: Vec<u8>,
    ipos: usize,
    eof: bool,
    /// getContents was called: stdin is semi-closed.
    semi_closed: bool,
    pub args: Vec<String>,
    pub prog_name: String,
    /// False on the PEs other than the main one: they have no outside world.
    reachable: bool,
}

impl<'a> Io<'a> {
    pub fn new(
        out: &'a mut dyn Write,
        line_buffered: bool,
        input: &'a mut dyn Read,
        args: Vec<String>,
        prog_name: String,
    ) -> Io<'a> {
        Io {
            out,
            obuf: Vec::with_capacity(OUT_BLOCK * 2),
            line_buffered,
            input,
            ibuf: Vec::new(),
            ipos: 0,
            eof: false,
            semi_closed: false,
            args,
            prog_name,
            reachable: true,
        }
    }

    /// The outside world of a PE other than the main one: none. Reading or
    /// writing is an internal error (only the main thread does input and
    /// output, and it runs on PE 0).
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

    fn check_reachable(&self) -> Result<(), String> {
        if self.reachable {
            Ok(())
        } else {
            Err("internal error: input/output on a PE other than the main one".into())
        }
    }

    pub fn put_str(&mut self, s: &str) -> Result<(), String> {
        self.check_reachable()?;
        self.obuf.extend_from_slice(s.as_bytes());
        if self.obuf.len() >= OUT_BLOCK || (self.line_buffered && s.contains('\n')) {
            self.flush()?;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> Result<(), String> {
        if !self.obuf.is_empty() {
            let r = self.out.write_all(&self.obuf);
            self.obuf.clear();
            r.map_err(|e| format!("<stdout>: commitBuffer: {}", io_err_text(&e)))?;
        }
        self.out
            .flush()
            .map_err(|e| format!("<stdout>: hFlush: {}", io_err_text(&e)))
    }

    /// Reads more input into the buffer; false at end of input.
    fn fill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        if self.ipos > 0 {
            self.ibuf.drain(..self.ipos);
            self.ipos = 0;
        }
        let old = self.ibuf.len();
        self.ibuf.resize(old + IN_CHUNK, 0);
        loop {
            match self.input.read(&mut self.ibuf[old..]) {
                Ok(0) => {
                    self.ibuf.truncate(old);
                    self.eof = true;
                    return false;
                }
                Ok(n) => {
                    self.ibuf.truncate(old + n);
                    return true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.ibuf.truncate(old);
                    self.eof = true;
                    return false;
                }
            }
        }
    }

    fn available(&self) -> &[u8] {
        &self.ibuf[self.ipos..]
    }

    pub fn get_char(&mut self) -> Result<char, String> {
        self.check_reachable()?;
        if self.semi_closed {
            return Err("<stdin>: hGetChar: illegal operation (handle is semi-closed)".into());
        }
        if self.available().is_empty() && !self.fill() {
            return Err("<stdin>: hGetChar: end of file".into());
        }
        let need = utf8_len(self.available()[0]);
        while self.available().len() < need && self.fill() {}
        let n = need.min(self.available().len());
        let s = String::from_utf8_lossy(&self.available()[..n]).into_owned();
        self.ipos += n;
        Ok(s.chars().next().unwrap_or('\u{FFFD}'))
    }

    pub fn get_line(&mut self) -> Result<String, String> {
        self.check_reachable()?;
        if self.semi_closed {
            return Err("<stdin>: hGetLine: illegal operation (handle is semi-closed)".into());
        }
        let mut from = 0;
        loop {
            if let Some(i) = self.available()[from..].iter().position(|&b| b == b'\n') {
                let end = from + i;
                let line = String::from_utf8_lossy(&self.available()[..end]).into_owned();
                self.ipos += end + 1;
                return Ok(line);
            }
            from = self.available().len();
            if !self.fill() {
                if self.available().is_empty() {
                    return Err("<stdin>: hGetLine: end of file".into());
                }
                let line = String::from_utf8_lossy(self.available()).into_owned();
                self.ipos = self.ibuf.len();
                return Ok(line);
            }
        }
    }

    /// getContents: stdin becomes semi-closed.
    pub fn semi_close(&mut self) -> Result<(), String> {
        self.check_reachable()?;
        self.semi_closed = true;
        Ok(())
    }

    /// The next piece of the lazy stdin string; None at end of input.
    pub fn read_chunk(&mut self) -> Option<String> {
        if self.available().is_empty() && !self.fill() {
            return None;
        }
        // Whole UTF-8 sequences only (unless the input ends mid-sequence).
        let mut end = self.available().len();
        let a = self.available();
        let mut k = end;
        while k > 0 && end - k < 4 && (a[k - 1] & 0xC0) == 0x80 {
            k -= 1;
        }
        if k > 0 && a[k - 1] >= 0xC0 && k - 1 + utf8_len(a[k - 1]) > end {
            end = k - 1;
        }
        if end == 0 {
            while self.available().len() < 4 && self.fill() {}
            end = self.available().len();
        }
        let s = String::from_utf8_lossy(&self.available()[..end]).into_owned();
        self.ipos += end;
        Some(s)
    }
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

fn io_err_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::BrokenPipe => "resource vanished (Broken pipe)".into(),
        _ => e.to_string(),
    }
}
