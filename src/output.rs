//! Standard output for every command. `println!` panics when stdout is closed (`weakc cycles
//! … | head` exits early; Rust ignores SIGPIPE, so the write fails with `BrokenPipe`):
//! all output goes through [`stdout`] instead, which ends the output quietly. The crate
//! denies `clippy::print_stdout` so that no other path to stdout comes back.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write to stdout failed: nothing more is written.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to standard output and flushes it. When the reader went away the rest of
/// the output is dropped and the command goes on to its usual exit code; any other write
/// error is said once on stderr.
pub fn stdout(text: &str) {
    if text.is_empty() || CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut so = std::io::stdout().lock();
    if let Err(e) = so.write_all(text.as_bytes()).and_then(|()| so.flush()) {
        if !CLOSED.swap(true, Ordering::Relaxed) && e.kind() != ErrorKind::BrokenPipe {
            eprintln!("weakc: cannot write to standard output: {e}");
        }
    }
}

/// Whether a write to stdout failed (the reader went away).
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Whether [`report`] paints its text (`--color`, decided once by the CLI).
static COLOR: AtomicBool = AtomicBool::new(false);

/// `--color`: when output is painted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// When the stream is a terminal, `NO_COLOR` is unset and `TERM` is not `dumb`.
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether a stream that is (`terminal`) or is not a terminal gets colour.
    pub fn on(self, terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && !std::env::var("TERM").is_ok_and(|t| t == "dumb")
            }
        }
    }
}

/// Sets whether [`report`] paints (for stdout).
pub fn set_color(on: bool) {
    COLOR.store(on, Ordering::Relaxed);
}

/// Writes a human-readable report to stdout ([`stdout`]), painted when colour is on: the
/// verdict words (`VERIFICATION FAILED` red, `SUCCESSFUL` green, `UNKNOWN` yellow) and the
/// `error:`/`warning:`/`note:` headings as codespan-reporting colours them. Machine formats
/// (JSON, SARIF, C) go through [`stdout`] and are never painted.
pub fn report(text: &str) {
    if COLOR.load(Ordering::Relaxed) {
        stdout(&paint(text));
    } else {
        stdout(text);
    }
}

const RESET: &str = "\x1b[0m";

/// `text` with ANSI colours on the words [`report`] names.
pub fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let mut l = line.to_string();
        for (word, style) in [("VERIFICATION FAILED", "\x1b[1;31m"), ("VERIFICATION SUCCESSFUL", "\x1b[1;32m"), ("VERIFICATION UNKNOWN", "\x1b[1;33m")] {
            if let Some(i) = l.find(word) {
                l = format!("{}{style}{word}{RESET}{}", &l[..i], &l[i + word.len()..]);
                break;
            }
        }
        for (head, style) in [("error", "\x1b[1;31m"), ("warning", "\x1b[1;33m"), ("note", "\x1b[1;32m")] {
            if l.starts_with(&format!("{head}:")) || l.starts_with(&format!("{head}[")) {
                l = format!("{style}{head}{RESET}{}", &l[head.len()..]);
                break;
            }
        }
        out.push_str(&l);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paint_colours_verdicts_and_headings_only() {
        let t = "weakc verify: a.c\nnote: cycle 1\nVERIFICATION FAILED (tso; unwind 2)\nx.c:3: VERIFICATION SUCCESSFUL\nplain\n";
        let p = paint(t);
        assert!(p.contains("\x1b[1;31mVERIFICATION FAILED\x1b[0m (tso; unwind 2)\n"), "{p:?}");
        assert!(p.contains("\x1b[1;32mnote\x1b[0m: cycle 1\n"), "{p:?}");
        assert!(p.contains("x.c:3: \x1b[1;32mVERIFICATION SUCCESSFUL\x1b[0m\n"), "{p:?}");
        assert!(p.starts_with("weakc verify: a.c\n") && p.ends_with("plain\n"));
        // Stripped of its colours, it is the text.
        assert_eq!(p.replace("\x1b[1;31m", "").replace("\x1b[1;32m", "").replace("\x1b[0m", ""), t);
    }

    #[test]
    fn never_and_always_ignore_the_terminal() {
        assert!(!ColorChoice::Never.on(true));
        assert!(ColorChoice::Always.on(false));
        assert!(!ColorChoice::Auto.on(false));
    }
}
