//! The process-wide memory guard: a watchdog thread that ends weakc with a clear message
//! and exit code [`EXIT_MEMORY`] when its resident memory reaches a limit, before the
//! kernel's OOM killer ends it (and, on a shared machine, others) with none. The built-in
//! model checker has its own, lower guard that turns into an UNKNOWN verdict; this one
//! covers every other stage (front end, event graph, cycle search, selection, emission).

use std::time::Duration;

/// Exit code when the guard stops weakc.
pub const EXIT_MEMORY: i32 = 7;

/// How often resident memory is read.
const PERIOD: Duration = Duration::from_millis(20);

/// The default limit: 6 GiB (above the model checker's own guard, so that its graceful
/// UNKNOWN comes first), or 80% of the machine's memory if that is less.
pub fn default_limit() -> u64 {
    let six = 6u64 << 30;
    total_memory().map_or(six, |t| six.min(t / 5 * 4))
}

/// Physical memory (Linux: `/proc/meminfo`), when known.
fn total_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = s.lines().find(|l| l.starts_with("MemTotal:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb << 10)
}

/// Starts the watchdog for `limit` bytes (no-op where resident memory cannot be read).
pub fn spawn(limit: u64) {
    if crate::bmc::resident_bytes().is_none() {
        return;
    }
    std::thread::spawn(move || loop {
        std::thread::sleep(PERIOD);
        if let Some(r) = crate::bmc::resident_bytes().filter(|&r| r >= limit) {
            eprintln!(
                "error: memory guard: weakc's resident memory reached {} MiB (limit {} MiB) and it stopped; \
                 no output was written. Raise the limit with --max-memory MIB, or make the problem smaller \
                 (--max-cycles, --cycle-timeout, --buffer-size, --unwind)",
                r >> 20,
                limit >> 20
            );
            std::process::exit(EXIT_MEMORY);
        }
    });
}
