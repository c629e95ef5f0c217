//! Source files, locations and diagnostics.
//!
//! Every IR node carries a [`Loc`] in the *user's* file (after following the preprocessor's
//! line markers), so diagnostics, `#line` directives in emitted code and counterexamples all
//! point where the user looks.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A position in a user's source file: `file` indexes [`SourceMap::files`]; `line` is 1-based,
/// `col` a 0-based byte column, `len` the byte length of the construct on that line.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
    pub len: u32,
}

#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Name as given by the user or by a line marker.
    pub name: String,
    /// Contents when the file could be read (headers named by line markers may not be).
    pub text: Option<String>,
}

/// The files a program came from.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    /// Index of the file named `name`, if it is registered.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.files.iter().position(|f| f.name == name).map(|i| i as u32)
    }

    /// Index of the file named `name`, adding it (and reading it if possible) when new.
    pub fn file_id(&mut self, name: &str) -> u32 {
        if let Some(i) = self.find(name) {
            return i;
        }
        let text = std::fs::read_to_string(name).ok();
        self.files.push(SourceFile { name: name.to_string(), text });
        self.files.len() as u32 - 1
    }

    pub fn add_file(&mut self, name: &str, text: String) -> u32 {
        if let Some(i) = self.find(name) {
            self.files[i as usize].text = Some(text);
            return i;
        }
        self.files.push(SourceFile { name: name.to_string(), text: Some(text) });
        self.files.len() as u32 - 1
    }

    pub fn name(&self, loc: Loc) -> &str {
        self.files.get(loc.file as usize).map(|f| f.name.as_str()).unwrap_or("<unknown>")
    }

    /// `file:line` for messages.
    pub fn describe(&self, loc: Loc) -> String {
        format!("{}:{}", self.name(loc), loc.line)
    }

    /// The text of the line `loc` points at, trimmed.
    pub fn line_text(&self, loc: Loc) -> Option<&str> {
        let text = self.files.get(loc.file as usize)?.text.as_deref()?;
        text.lines().nth(loc.line.checked_sub(1)? as usize).map(str::trim)
    }

    /// Byte range of `loc` inside its file's text, clipped to the line.
    fn byte_range(&self, loc: Loc) -> Option<std::ops::Range<usize>> {
        let text = self.files.get(loc.file as usize)?.text.as_deref()?;
        let mut start = 0usize;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            if i + 1 == loc.line as usize {
                let content = line.trim_end_matches(['\n', '\r']).len();
                let col = (loc.col as usize).min(content);
                let end = (col + (loc.len as usize).max(1)).min(content.max(col));
                return Some(start + col..start + end);
            }
            start += line.len();
        }
        None
    }
}

/// What can go wrong for a user; each variant has a documented exit code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input uses a construct weakc does not handle (exit 2).
    #[error("{msg}")]
    Unsupported { loc: Loc, msg: String },
    /// The input is not valid C (exit 2).
    #[error("{msg}")]
    Syntax { loc: Loc, msg: String },
    /// Reading or writing a file failed (exit 2 for inputs, 3 for outputs).
    #[error("{path}: {msg}")]
    Io { path: PathBuf, msg: String, output: bool },
    /// The preprocessor could not be run or rejected the input (exit 2).
    #[error("preprocessing {path} failed: {msg}")]
    Preprocess { path: PathBuf, msg: String },
    /// Translation units that do not link (exit 2): a name defined twice (`first`: the
    /// other definition), a name no unit defines, no or several `main`s.
    #[error("{msg}")]
    Link { loc: Loc, msg: String, first: Option<Loc> },
    /// Bad command-line usage, e.g. an unknown memory model (exit 2).
    #[error("{0}")]
    Usage(String),
    /// An internal limit or solver failure (exit 4).
    #[error("{0}")]
    Internal(String),
    /// An external verifier failed on the instrumented program (exit 4): its exit code
    /// (`None` when killed by a signal) and its own messages.
    #[error("{tool} failed{}: {msg}", code.map(|c| format!(" (exit code {c})")).unwrap_or_default())]
    External { tool: String, code: Option<i32>, msg: String },
}

impl Error {
    pub fn unsupported(loc: Loc, msg: impl Into<String>) -> Error {
        Error::Unsupported { loc, msg: msg.into() }
    }
    pub fn syntax(loc: Loc, msg: impl Into<String>) -> Error {
        Error::Syntax { loc, msg: msg.into() }
    }

    /// Process exit code documented in the README.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Unsupported { .. } | Error::Syntax { .. } | Error::Preprocess { .. } | Error::Link { .. } => 2,
            Error::Io { output: false, .. } | Error::Usage(_) => 2,
            Error::Io { output: true, .. } => 3,
            Error::Internal(_) | Error::External { .. } => 4,
        }
    }

    fn loc(&self) -> Option<Loc> {
        match self {
            Error::Unsupported { loc, .. } | Error::Syntax { loc, .. } | Error::Link { loc, .. } => Some(*loc),
            _ => None,
        }
    }

    /// Renders the error as a codespan-reporting diagnostic (with the source span when the
    /// file is readable) to a string.
    pub fn render(&self, map: &SourceMap, color: bool) -> String {
        let msg = match self {
            Error::Unsupported { .. } => format!("unsupported: {self}"),
            Error::Syntax { .. } => format!("syntax error: {self}"),
            Error::Link { loc, first: Some(first), .. } => {
                let labels = [(*loc, "defined here".to_string()), (*first, "and here".to_string())];
                return render_labels(map, Severity::Error, &format!("link: {self}"), &labels, &[]);
            }
            Error::Link { .. } => format!("link: {self}"),
            _ => self.to_string(),
        };
        render_diagnostic(map, Severity::Error, self.loc(), &msg, "", color)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// Renders one diagnostic pointing at `loc` (when given and readable), falling back to a
/// plain `file:line: message` line when the file text is unavailable.
pub fn render_diagnostic(
    map: &SourceMap,
    severity: Severity,
    loc: Option<Loc>,
    message: &str,
    label: &str,
    color: bool,
) -> String {
    let mut files = SimpleFiles::new();
    let mut diag = match severity {
        Severity::Error => Diagnostic::error(),
        Severity::Warning => Diagnostic::warning(),
        Severity::Note => Diagnostic::note(),
    }
    .with_message(message);
    let mut prefix = String::new();
    if let Some(loc) = loc {
        match (map.byte_range(loc), map.files.get(loc.file as usize)) {
            (Some(range), Some(f)) => {
                let id = files.add(f.name.clone(), f.text.clone().unwrap_or_default());
                diag = diag.with_labels(vec![Label::primary(id, range).with_message(label)]);
            }
            _ => prefix = format!("{}: ", map.describe(loc)),
        }
    }
    let _ = color; // plain text: output is read in terminals, logs and CI alike
    match term::emit_into_string(&term::Config::default(), &files, &diag) {
        Ok(text) => format!("{prefix}{text}"),
        Err(_) => format!("{prefix}{message}\n"),
    }
}

/// Renders one diagnostic with a label at each readable location, plus notes. Locations in
/// files that cannot be read become `file:line` notes so nothing is lost.
pub fn render_labels(map: &SourceMap, severity: Severity, message: &str, labels: &[(Loc, String)], notes: &[String]) -> String {
    let mut files = SimpleFiles::new();
    let mut ids: Vec<(u32, usize)> = vec![];
    let mut cs_labels = vec![];
    let mut extra = notes.to_vec();
    for (i, (loc, text)) in labels.iter().enumerate() {
        match (map.byte_range(*loc), map.files.get(loc.file as usize)) {
            (Some(range), Some(f)) if loc.line > 0 => {
                let id = match ids.iter().find(|(fid, _)| *fid == loc.file) {
                    Some((_, id)) => *id,
                    None => {
                        let id = files.add(f.name.clone(), f.text.clone().unwrap_or_default());
                        ids.push((loc.file, id));
                        id
                    }
                };
                let l = if i == 0 { Label::primary(id, range) } else { Label::secondary(id, range) };
                cs_labels.push(l.with_message(text.clone()));
            }
            _ if !text.is_empty() => extra.push(format!("{}: {text}", map.describe(*loc))),
            _ => {}
        }
    }
    let diag = match severity {
        Severity::Error => Diagnostic::error(),
        Severity::Warning => Diagnostic::warning(),
        Severity::Note => Diagnostic::note(),
    }
    .with_message(message)
    .with_labels(cs_labels)
    .with_notes(extra);
    term::emit_into_string(&term::Config::default(), &files, &diag).unwrap_or_else(|_| format!("{message}\n"))
}

/// Reads an input file as text; a failure is the input error (exit 2) naming the file.
pub fn read_input(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::Io { path: path.to_path_buf(), msg: e.to_string(), output: false })
}

/// Writes `text` to `path` through a temporary file in the same directory and a rename, so
/// no half-written file is ever left behind.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), Error> {
    let io = |e: std::io::Error| Error::Io { path: path.to_path_buf(), msg: e.to_string(), output: true };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    tmp.write_all(text.as_bytes()).map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}
