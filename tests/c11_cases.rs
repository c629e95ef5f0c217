//! End to end through the CLI: the C11 and lock case studies of `examples/c11/`, each with
//! its expected verdict per architecture in its header comment (`expect: tso=fail ...`, and
//! `expect(FLAGS): ...` for a run with extra flags), the reasoning next to it. The true
//! answer is what the program compiled with the architecture's C11 mapping does on the
//! hardware model: a `fail` must be found (exit 10, no missed bug), a `safe` must never be
//! reported violated (no spurious counterexample); it may be UNKNOWN (exit 5) when weakc
//! cannot simulate every behaviour, which is printed, or fail only its unwinding assertion
//! (the bound is too small to decide it, as on the instrumentation route for a loop that
//! waits on a condition variable). On tso, pso, rmo and aarch64 every case
//! runs on both routes of `verify` (`--engine instrument` and `--engine axiomatic`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::ARCHS;

#[derive(Debug)]
struct Run {
    file: PathBuf,
    flags: Vec<String>,
    arch: String,
    fails: bool,
}

/// The runs a case file asks for: `expect:` over every architecture it names (all seven
/// must be named), `expect(FLAGS):` for some of them with extra flags.
fn runs_of(file: &Path) -> Vec<Run> {
    let mut runs = vec![];
    for line in common::expect_lines(file) {
        for (arch, v) in &line.items {
            assert!(ARCHS.contains(&arch.as_str()), "{}: unknown architecture {arch}", file.display());
            assert!(v == "safe" || v == "fail", "{}: verdict {v}", file.display());
            let engines: &[Option<&str>] = if ["tso", "pso", "rmo", "aarch64"].contains(&arch.as_str()) { &[Some("instrument"), Some("axiomatic")] } else { &[None] };
            for e in engines {
                let mut flags = line.flags.clone();
                if let Some(e) = e {
                    flags.extend(["--engine".to_string(), e.to_string()]);
                }
                runs.push(Run { file: file.to_path_buf(), flags, arch: arch.clone(), fails: v == "fail" });
            }
        }
        if line.flags.is_empty() {
            assert_eq!(line.items.len(), ARCHS.len(), "{}: `expect:` must name every architecture", file.display());
        }
    }
    runs
}

#[test]
fn c11_case_studies_give_their_expected_verdicts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/c11");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/c11")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "case studies missing in {}", dir.display());
    let runs: Vec<Run> = files.iter().flat_map(|f| runs_of(f)).collect();
    let results: Vec<(usize, i32, String)> = std::thread::scope(|s| {
        let chunks: Vec<_> = runs
            .chunks(runs.len().div_ceil(2))
            .enumerate()
            .map(|(k, chunk)| {
                let base = k * runs.len().div_ceil(2);
                s.spawn(move || {
                    chunk
                        .iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let out = Command::new(env!("CARGO_BIN_EXE_weakc"))
                                .args(["verify", "--mm", &r.arch])
                                .args(&r.flags)
                                .arg(&r.file)
                                .output()
                                .expect("run weakc");
                            let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
                            (base + i, out.status.code().unwrap_or(-1), text)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        chunks.into_iter().flat_map(|h| h.join().expect("worker")).collect()
    });
    let mut wrong = vec![];
    let mut unknown = vec![];
    for (i, code, text) in results {
        let r = &runs[i];
        let name = format!("{} --mm {} {}", r.file.file_name().unwrap().to_string_lossy(), r.arch, r.flags.join(" "));
        // A counterexample that is only the unwinding assertion says the bound is too small,
        // not that the assertion fails: inconclusive for a safe case, no bug found for a
        // failing one.
        let unwinding = code == 10 && text.lines().any(|l| l.starts_with("Counterexample (unwinding assertion"));
        match (r.fails, code) {
            (false, 10) if unwinding => unknown.push(format!("{name}: bound too small (unwinding assertion)")),
            (true, 10) if unwinding => wrong.push(format!("missed (only the unwinding assertion fails) {name}")),
            (true, 10) | (false, 0) => {}
            (false, 5) => unknown.push(format!("{name}: {}", text.lines().find(|l| l.contains("UNKNOWN")).unwrap_or(""))),
            (true, 0) => wrong.push(format!("MISSED BUG {name}")),
            (true, 5) => wrong.push(format!("missed (UNKNOWN) {name}: {}", text.lines().find(|l| l.contains("UNKNOWN")).unwrap_or(""))),
            (false, 10) => wrong.push(format!("SPURIOUS {name}")),
            (_, c) => wrong.push(format!("exit {c} {name}:\n{text}")),
        }
    }
    println!("{} runs, {} unknown:", runs.len(), unknown.len());
    for u in &unknown {
        println!("  {u}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
