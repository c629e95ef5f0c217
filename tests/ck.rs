//! Concurrency Kit (Debian's `libck-dev`) as shipped, and with one order weakened in a copy
//! of the library function: the harnesses of `tests/c/ck/`, each with its verdict per
//! architecture in its header comment (`expect:`, and `expect(FLAGS):` with extra flags).
//!
//! ck is built per architecture: on x86 (sc, tso) its own x86-64 port; elsewhere its GCC
//! builtins port (`-DCK_USE_CC_BUILTINS=1`) with the memory model its configure script
//! picks there (`-DCK_MD_PSO` on pso, `-DCK_MD_RMO` on rmo, power, arm and aarch64; Debian's
//! `ck_md.h` says `CK_MD_TSO` only because it was configured on x86-64). Spin loops are
//! bounded (`--no-unwinding-assertions`).
//!
//! `fail` must never be reported safe: exit 10, or UNKNOWN where the instrumentation says it
//! cannot simulate some behaviour or reaches its time limit (printed; the axiomatic route
//! must find it); `safe` must
//! not be reported violated (exit 0, or UNKNOWN where the instrumentation cannot simulate a
//! behaviour or does not finish within its time limit, printed); `unknown` must be exactly
//! that (a construct the engine does not model). tso, pso, rmo and aarch64 run on both
//! routes of `verify`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const ARCHS: [&str; 7] = ["sc", "tso", "pso", "rmo", "power", "arm", "aarch64"];

fn ck_flags(arch: &str) -> &'static [&'static str] {
    match arch {
        "sc" | "tso" => &[],
        "pso" => &["-DCK_USE_CC_BUILTINS=1", "-DCK_MD_PSO"],
        _ => &["-DCK_USE_CC_BUILTINS=1", "-DCK_MD_RMO"],
    }
}

struct Run {
    file: PathBuf,
    flags: Vec<String>,
    arch: &'static str,
    engine: Option<&'static str>,
    want: &'static str,
}

fn runs_of(file: &Path) -> Vec<Run> {
    let mut runs = vec![];
    for line in common::expect_lines(file) {
        assert_eq!(line.items.len(), ARCHS.len(), "{}: an expect line must name every architecture", file.display());
        for (arch, v) in &line.items {
            let arch = *ARCHS.iter().find(|a| *a == arch).unwrap_or_else(|| panic!("{}: unknown architecture {arch}", file.display()));
            let want = ["safe", "fail", "unknown"].into_iter().find(|w| w == v).unwrap_or_else(|| panic!("{}: verdict {v}", file.display()));
            let engines: &[Option<&str>] = if ["tso", "pso", "rmo", "aarch64"].contains(&arch) { &[Some("instrument"), Some("axiomatic")] } else { &[None] };
            for &engine in engines {
                runs.push(Run { file: file.to_path_buf(), flags: line.flags.clone(), arch, engine, want });
            }
        }
    }
    runs
}

fn run(r: &Run) -> (i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_weakc"));
    cmd.args(["verify", "--quiet", "--no-unwinding-assertions", "--timeout", "15", "--mm", r.arch]);
    if let Some(e) = r.engine {
        cmd.args(["--engine", e]);
    }
    cmd.args(ck_flags(r.arch)).args(&r.flags).arg(&r.file);
    let o = cmd.output().expect("run weakc");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr))
}

#[test]
fn concurrency_kit_harnesses_give_their_expected_verdicts() {
    if !Path::new("/usr/include/ck_pr.h").exists() {
        println!("skipped: /usr/include/ck_pr.h is absent (Debian package libck-dev; .ci/run installs it)");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/ck");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).expect("tests/c/ck").map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    files.sort();
    assert!(files.len() >= 3);
    let runs: Vec<Run> = files.iter().flat_map(|f| runs_of(f)).collect();
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
