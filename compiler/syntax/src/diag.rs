//! Diagnostics: what every pass reports, rendered as miette reports with the
//! source line and the span underlined.

use crate::span::{SourceFile, Span};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// One problem found in the user's program.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Text under the primary span; defaults to nothing.
    pub label: Option<String>,
    /// Further spans worth pointing at ("first defined here").
    pub secondary: Vec<(Span, String)>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: None,
            secondary: Vec::new(),
            help: None,
        }
    }
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic for a terminal (or a test snapshot, without colour).
    pub fn render(&self, file: &SourceFile, color: bool) -> String {
        use miette::{GraphicalReportHandler, GraphicalTheme};
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_width(100)
            .with_links(false);
        let report = Report { diag: self, file };
        let mut out = String::new();
        // Rendering into a String cannot fail; fall back to a plain line if it ever does.
        if handler.render_report(&mut out, &report).is_err() {
            out = format!("{}: {}\n", file.locate(self.span), self.message);
        }
        out
    }
}

/// Adapts a diagnostic and its file to miette's `Diagnostic` trait.
struct Report<'a> {
    diag: &'a Diagnostic,
    file: &'a SourceFile,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diag.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (l, c) = self.file.line_col(self.diag.span.start);
        write!(f, "{}:{}:{}: {}", self.file.name, l, c, self.diag.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.file.text)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let file = self.file;
        let clamp = move |s: Span| {
            let s = file.local(s);
            miette::SourceSpan::new((s.start as usize).into(), s.len())
        };
        let primary = miette::LabeledSpan::new_primary_with_span(
            self.diag.label.clone(),
            clamp(self.diag.span),
        );
        let rest = self
            .diag
            .secondary
            .iter()
            .map(move |(s, l)| miette::LabeledSpan::new_with_span(Some(l.clone()), clamp(*s)));
        Some(Box::new(std::iter::once(primary).chain(rest)))
    }
}

/// Sorts diagnostics by position so that reports read top to bottom.
pub fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| (d.span.start, d.span.end));
}
