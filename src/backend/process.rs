//! Running an external verifier: no shell, a working directory, a time limit enforced by
//! killing the child, and both output streams drained while it runs (a verifier that fills
//! a pipe nobody reads would otherwise block forever).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Finished {
    /// `None` when the process was killed (time limit) or ended by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub elapsed: Duration,
}

/// How often the child is polled: short enough that a time limit is kept to within a few
/// milliseconds, long enough to cost nothing.
const POLL: Duration = Duration::from_millis(10);

pub fn run(bin: &Path, args: &[String], cwd: &Path, timeout: Option<Duration>) -> std::io::Result<Finished> {
    let start = Instant::now();
    let mut cmd = Command::new(bin);
    // Its own process group, so that a time limit also ends what the verifier started (a
    // wrapper script's solver, …): otherwise those would keep the pipes open.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let mut timed_out = false;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if timeout.is_some_and(|t| start.elapsed() >= t) {
            timed_out = true;
            kill_group(&mut child);
            break child.wait()?;
        }
        std::thread::sleep(POLL);
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok(Finished { code: if timed_out { None } else { status.code() }, stdout, stderr, timed_out, elapsed: start.elapsed() })
}

/// Kills the child and its process group. The child may have exited just now: an error
/// then means nothing.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) has no memory effects; a negative pid names the group we created.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_exit_code() {
        let d = tempfile::tempdir().unwrap();
        let f = run(Path::new("sh"), &["-c".into(), "echo out; echo err >&2; pwd; exit 7".into()], d.path(), None).unwrap();
        assert_eq!(f.code, Some(7));
        assert!(f.stdout.starts_with("out\n"));
        assert_eq!(f.stderr, "err\n");
        // It ran in the directory it was given.
        let here = std::fs::canonicalize(d.path()).unwrap();
        assert_eq!(f.stdout.lines().nth(1).map(std::path::PathBuf::from), Some(here));
        assert!(!f.timed_out);
    }

    #[test]
    fn time_limit_kills_the_child() {
        let d = tempfile::tempdir().unwrap();
        // A shell with a grandchild holding the pipes: the whole group must go.
        let f = run(Path::new("sh"), &["-c".into(), "sleep 20; echo done".into()], d.path(), Some(Duration::from_millis(200))).unwrap();
        assert!(f.timed_out);
        assert_eq!(f.code, None);
        assert!(f.elapsed < Duration::from_secs(10), "{:?}", f.elapsed);
    }
}
