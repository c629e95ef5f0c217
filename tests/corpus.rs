//! Every `.c` of the ESOP litmus suite and of the SV-COMP concurrency tasks goes through
//! `cycles` and `instrument` for all six architectures without error, and every emitted
//! program compiles with `cc -fsyntax-only -I runtime`. Skips (with a reason) when
//! `../shared` is absent.

use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use weakc::pipeline::{self, Options};
use weakc::source::{Error, SourceMap};

const ARCHS: [&str; 6] = ["sc", "tso", "pso", "rmo", "power", "arm"];

fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if p.is_dir() {
        Some(p)
    } else {
        println!("skipped: ../shared is absent (the ESOP and SV-COMP corpora live there)");
        None
    }
}

fn c_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let Ok(rd) = std::fs::read_dir(dir) else { return out };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(c_files(&p));
        } else if p.extension().is_some_and(|x| x == "c") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Loads a file; when preprocessing fails because a header of the task is not in the corpus,
/// falls back to the task's preprocessed `.i` copy.
fn load(path: &Path, map: &mut SourceMap) -> Result<weakc::ir::Program, Error> {
    let opts = weakc::frontend::Options::default();
    match weakc::frontend::load_file(path, &opts, map) {
        Err(Error::Preprocess { msg, .. }) if msg.contains("No such file") && path.with_extension("i").exists() => {
            weakc::frontend::load_file(&path.with_extension("i"), &opts, map)
        }
        r => r,
    }
}

#[test]
fn corpus_goes_through_every_architecture_and_compiles() {
    let Some(shared) = shared() else { return };
    let mut files = c_files(&shared.join("litmus/esop"));
    files.extend(c_files(&shared.join("svcomp")));
    assert!(files.len() > 400, "corpus incomplete: {} files", files.len());
    let cc = which::which("cc").ok();
    if cc.is_none() {
        println!("not compiling emitted files: no `cc` on PATH");
    }
    let out = tempfile::tempdir().unwrap();
    let failures = Mutex::new(vec![]);
    let fallbacks = Mutex::new(BTreeMap::<&str, usize>::new());
    files.par_iter().enumerate().for_each(|(i, file)| {
        let fail = |arch_name: &str, what: String| failures.lock().unwrap().push(format!("{} [{arch_name}]: {what}", file.display()));
        let mut map = SourceMap::default();
        let mut prog = match load(file, &mut map) {
            Ok(p) => p,
            Err(e) => return fail("all", e.render(&map, false)),
        };
        // Front end, normalisation and event graph do not depend on the architecture.
        let opts = Options::default();
        let sc = weakc::arch::by_name("sc").unwrap();
        let mut a = match pipeline::analyze_program(&mut prog, sc, &opts, map, Default::default(), 0) {
            Ok(a) => a,
            Err(e) => return fail("all", e.to_string()),
        };
        for arch_name in ARCHS {
            let arch = weakc::arch::by_name(arch_name).unwrap();
            a.cycles = weakc::cycles::critical_cycles(&a.aeg, arch, &opts.limits);
            if arch_name == "sc" && !a.cycles.cycles.is_empty() {
                fail(arch_name, format!("{} critical cycles under sc", a.cycles.cycles.len()));
                continue;
            }
            let ins = pipeline::instrument(&mut a, arch, weakc::select::Strategy::Ilp, &Default::default());
            if a.cycles.limit_hit.is_some() {
                assert!(ins.fallback, "an incomplete search must fall back to all pairs");
                *fallbacks.lock().unwrap().entry(arch_name).or_default() += 1;
            }
            let Some(cc) = &cc else { continue };
            let text = weakc::cprint::print_program(
                &ins.rewritten.program,
                &a.map,
                &weakc::cprint::PrintOptions { line_directives: true, ..Default::default() },
            );
            let path = out.path().join(format!("{i}_{arch_name}.c"));
            std::fs::write(&path, text).unwrap();
            let r = Command::new(cc)
                .args(["-fsyntax-only", "-w", "-I"])
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime"))
                .arg(&path)
                .output()
                .unwrap();
            if !r.status.success() {
                let err = String::from_utf8_lossy(&r.stderr);
                fail(arch_name, format!("emitted C does not compile: {}", err.lines().take(3).collect::<Vec<_>>().join(" | ")));
            }
            let _ = std::fs::remove_file(&path);
        }
    });
    println!("{} files x {} architectures; cycle-limit fallbacks per architecture: {:?}", files.len(), ARCHS.len(), fallbacks.lock().unwrap());
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn esop_tests_safe_on_tso_have_no_critical_cycle_on_tso() {
    let Some(shared) = shared() else { return };
    let csv = std::fs::read_to_string(shared.join("litmus/esop/expected.csv")).unwrap();
    // A test counts as SUCCESSFUL on TSO when every strategy row says so.
    let mut verdicts: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() == 6 && f[2] == "TSO" {
            verdicts.entry((f[0].into(), f[1].into())).or_default().insert(f[5].into());
        }
    }
    let safe: Vec<_> = verdicts.iter().filter(|(_, v)| v.len() == 1 && v.contains("SUCCESSFUL")).map(|(k, _)| k.clone()).collect();
    assert!(safe.len() > 100);
    let tso = weakc::arch::by_name("tso").unwrap();
    let bad: Vec<String> = safe
        .par_iter()
        .filter_map(|(src, test)| {
            let path = shared.join(format!("litmus/esop/{src}/{test}.c"));
            let a = pipeline::analyze(&path, tso, &Options::default()).unwrap();
            (!a.cycles.cycles.is_empty()).then(|| format!("{src}/{test}: {:?}", a.cycles.cycles.iter().map(|c| &c.name).collect::<Vec<_>>()))
        })
        .collect();
    println!("{} tests SUCCESSFUL on TSO checked", safe.len());
    assert!(bad.is_empty(), "critical cycles on TSO for tests safe on TSO:\n{}", bad.join("\n"));
}
