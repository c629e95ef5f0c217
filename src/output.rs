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
