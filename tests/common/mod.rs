//! Shared by the end-to-end tests whose case files state their expected verdicts.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `expect: ARCH=VERDICT ...` line of a case file's header comment, or
/// `expect(FLAGS): ...` for a run with extra flags.
pub struct ExpectLine {
    pub flags: Vec<String>,
    /// `(architecture, verdict)` as written.
    pub items: Vec<(String, String)>,
}

/// Every expect line of `file`, in order.
pub fn expect_lines(file: &Path) -> Vec<ExpectLine> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut out = vec![];
    for line in text.lines() {
        let line = line.trim_start_matches(|c: char| c == '*' || c == '/' || c.is_whitespace());
        let Some(rest) = line.strip_prefix("expect") else { continue };
        let (flags, verdicts) = match rest.strip_prefix('(') {
            Some(r) => {
                let (f, v) = r.split_once("):").unwrap_or_else(|| panic!("{}: expect(FLAGS): ...", file.display()));
                (f.split_whitespace().map(String::from).collect(), v)
            }
            None => (vec![], rest.strip_prefix(':').unwrap_or_else(|| panic!("{}: expect: ...", file.display()))),
        };
        let items = verdicts
            .trim_end_matches("*/")
            .split_whitespace()
            .map(|item| {
                let (a, v) = item.split_once('=').unwrap_or_else(|| panic!("{}: `{item}` is not ARCH=VERDICT", file.display()));
                (a.to_string(), v.to_string())
            })
            .collect();
        out.push(ExpectLine { flags, items });
    }
    assert!(!out.is_empty(), "{}: no expect line", file.display());
    out
}

/// The architectures a harness's expect line names, in order.
pub const ARCHS: [&str; 7] = ["sc", "tso", "pso", "rmo", "power", "arm", "aarch64"];

/// One `weakc verify` run of a harness and the verdict it must give.
pub struct HarnessRun {
    pub file: PathBuf,
    pub flags: Vec<String>,
    pub arch: &'static str,
    pub engine: Option<&'static str>,
    pub want: &'static str,
}

/// Runs every `.c` harness of `dir` on each architecture of its expect lines (tso, pso, rmo
/// and aarch64 on both routes of `verify`, with `arch_flags(arch)` before the line's own),
/// two at a time, and fails on a verdict that contradicts the expected one. `fail` must
/// never be reported safe: exit 10, or UNKNOWN where the instrumentation says it cannot
/// simulate some behaviour or reaches its time limit (printed; the axiomatic route must find
/// it); `safe` must not be reported violated (exit 0, or UNKNOWN, printed); `unknown` must
/// be exactly that. Spin loops are bounded (`--no-unwinding-assertions`).
pub fn check_harnesses(dir: &Path, arch_flags: fn(&str) -> &'static [&'static str]) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no harness", dir.display());
    let mut runs = vec![];
    for file in &files {
        for line in expect_lines(file) {
            assert_eq!(line.items.len(), ARCHS.len(), "{}: an expect line must name every architecture", file.display());
            for (arch, v) in &line.items {
                let arch = *ARCHS.iter().find(|a| *a == arch).unwrap_or_else(|| panic!("{}: unknown architecture {arch}", file.display()));
                let want = ["safe", "fail", "unknown"].into_iter().find(|w| w == v).unwrap_or_else(|| panic!("{}: verdict {v}", file.display()));
                let engines: &[Option<&str>] = if ["tso", "pso", "rmo", "aarch64"].contains(&arch) { &[Some("instrument"), Some("axiomatic")] } else { &[None] };
                for &engine in engines {
                    runs.push(HarnessRun { file: file.clone(), flags: line.flags.clone(), arch, engine, want });
                }
            }
        }
    }
    let run = |r: &HarnessRun| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_weakc"));
        cmd.args(["verify", "--quiet", "--no-unwinding-assertions", "--timeout", "15", "--mm", r.arch]);
        if let Some(e) = r.engine {
            cmd.args(["--engine", e]);
        }
        cmd.args(arch_flags(r.arch)).args(&r.flags).arg(&r.file);
        let o = cmd.output().expect("run weakc");
        (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr))
    };
    let results: Vec<(usize, i32, String)> = std::thread::scope(|s| {
        let half = runs.len().div_ceil(2);
        let handles: Vec<_> = runs.chunks(half).enumerate().map(|(k, c)| s.spawn(move || c.iter().enumerate().map(|(i, r)| { let (code, out) = run(r); (k * half + i, code, out) }).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut wrong = vec![];
    let mut unknown = vec![];
    for (i, code, out) in results {
        let r = &runs[i];
        let name = format!(
            "{} {} --mm {}{}",
            r.file.file_name().unwrap().to_string_lossy(),
            r.flags.join(" "),
            r.arch,
            r.engine.map(|e| format!(" --engine {e}")).unwrap_or_default()
        );
        let verdict = out.lines().find(|l| l.contains("VERIFICATION")).unwrap_or(out.trim()).to_string();
        match (r.want, code) {
            ("fail", 10) | ("safe", 0) | ("unknown", 5) => {}
            ("safe", 5) => unknown.push(format!("{name}: {verdict}")),
            ("fail", 5) if r.engine != Some("axiomatic") && (verdict.contains("may lack behaviours") || verdict.contains("time limit")) => {
                unknown.push(format!("{name} (a violation the instrumentation does not reach): {verdict}"))
            }
            (w, c) => wrong.push(format!("{name}: expected {w}, exit {c}: {verdict}")),
        }
    }
    println!("{} runs; UNKNOWN:", runs.len());
    for u in &unknown {
        println!("  {u}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
