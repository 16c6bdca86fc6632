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
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and 1-based column (in characters, tabs count as one) of a byte offset.
    pub fn line_col(&self, pos: u32) -> (usize, usize) {
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
        &self.text[span.start as usize..span.end as usize]
    }
}
