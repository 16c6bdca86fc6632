//! Byte spans into a source file, and the file itself with its line table.

use std::fmt;

/// A half-open byte range `start..end` in one source file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }
    pub fn is_empty(self) -> bool {
        self.end == self.start
    }
    /// An empty span at the start of this one.
    pub fn point(self) -> Span {
        Span {
            start: self.start,
            end: self.start,
        }
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A source file: its name as the user gave it, its text, and where lines start.
///
/// Spans are global: a file's spans start at its `base`, so that one span
/// says both which file and where (see `SourceMap`).
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    pub base: u32,
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        SourceFile::with_base(name, text, 0)
    }

    pub fn with_base(name: impl Into<String>, text: impl Into<String>, base: u32) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        SourceFile {
            name: name.into(),
            text,
            base,
            line_starts,
        }
    }

    /// Whether a global position falls in this file (its end included).
    pub fn contains(&self, pos: u32) -> bool {
        pos >= self.base && pos <= self.base + self.text.len() as u32
    }

    /// The span relative to the start of this file's text.
    pub fn local(&self, span: Span) -> Span {
        let len = self.text.len() as u32;
        let start = span.start.saturating_sub(self.base).min(len);
        let end = span.end.saturating_sub(self.base).clamp(start, len);
        Span { start, end }
    }

    /// 1-based line and 1-based column (in characters, tabs count as one) of a global byte offset.
    pub fn line_col(&self, pos: u32) -> (usize, usize) {
        let pos = pos.saturating_sub(self.base).min(self.text.len() as u32);
        let line = self.line_starts.partition_point(|&s| s <= pos) - 1;
        let start = self.line_starts[line] as usize;
        let end = (pos as usize).min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count())
            + 1;
        (line + 1, col)
    }

    /// `name:line:col` of the start of a span.
    pub fn locate(&self, span: Span) -> String {
        let (l, c) = self.line_col(span.start);
        format!("{}:{}:{}", self.name, l, c)
    }

    /// GHC's form of a span for run-time messages: `file:(l1,c1)-(l2,c2)` or `file:l:c1-c2`.
    pub fn ghc_span(&self, span: Span) -> String {
        let (l1, c1) = self.line_col(span.start);
        let (l2, c2) = self.line_col(span.end.max(span.start + 1) - 1);
        if l1 == l2 {
            if c1 == c2 {
                format!("{}:{}:{}", self.name, l1, c1)
            } else {
                format!("{}:{}:{}-{}", self.name, l1, c1, c2)
            }
        } else {
            format!("{}:({},{})-({},{})", self.name, l1, c1, l2, c2)
        }
    }

    /// The text of line `line` (1-based), without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1] as usize;
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&e| e as usize);
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    pub fn slice(&self, span: Span) -> &str {
        let s = self.local(span);
        self.text
            .get(s.start as usize..s.end as usize)
            .unwrap_or("")
    }
}

/// All source files of a program, each at its own range of global positions.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    /// Adds a file after the last one; returns its index.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> usize {
        let base = self
            .files
            .last()
            .map_or(0, |f| f.base + f.text.len() as u32 + 1);
        self.files.push(SourceFile::with_base(name, text, base));
        self.files.len() - 1
    }

    /// The file a span belongs to.
    /// GHC's rendering of a span in a run-time error (`file:(l1,c1)-(l2,c2)`,
    /// `file:l:c1-c2`), without trailing white space (a layout block's
    /// span may reach the next line).
    pub fn ghc_location(&self, span: Span) -> String {
        match self.file_of(span) {
            Some(f) => {
                let text = f.slice(span);
                let trimmed = text.trim_end().len();
                let span = if trimmed > 0 && trimmed < text.len() {
                    Span::new(span.start as usize, span.start as usize + trimmed)
                } else {
                    span
                };
                f.ghc_span(span)
            }
            None => "<unknown>".to_string(),
        }
    }

    pub fn file_of(&self, span: Span) -> Option<&SourceFile> {
        let i = self.files.partition_point(|f| f.base <= span.start);
        i.checked_sub(1).map(|i| &self.files[i])
    }
}
