//! The C11 litmus family of `litmus/C11/` (scripts/gen-litmus-c11) on every architecture:
//! each C program is verified with `weakc verify --mm ARCH` (on tso, pso, rmo and aarch64 on both routes,
//! `--engine instrument` and `--engine axiomatic`), and its expected verdict is the
//! axiomatic engine's on the hardware litmus test the program compiles to with the
//! architecture's C11 mapping (`weakc::litmus::c11::hardware`, the rows of
//! `src/arch/c11.rs`). A reachable outcome must be reported FAILED (exit 10: anything else
//! is a missed bug); an unreachable one must not be (a spurious counterexample); UNKNOWN
//! (exit 5) on an unreachable outcome is allowed, counted and printed.
//!
//! Where a compiled test is, up to barriers that order nothing (before a thread's first
//! access, after its last), a test of herd's corpus (../shared/litmus/herd), herd7's verdict
//! (`verdicts.tsv`) is the reference instead, and a disagreement between it and the engine is
//! printed: the engine has known unsound verdicts (tests/litmus_axiomatic.rs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use weakc::arch::by_name;
use weakc::litmus::axiomatic::{self, Limits};
use weakc::litmus::c11;
use weakc::litmus::parse::{LitArch, Prop};
use weakc::litmus::Litmus;
use weakc::source::SourceMap;

const ARCHS: [&str; 6] = ["tso", "pso", "rmo", "power", "arm", "aarch64"];

/// Each architecture with the `--engine` routes it runs on (none given: the default).
const ROUTES: [(&str, &str); 10] = [
    ("tso", "instrument"),
    ("tso", "axiomatic"),
    ("pso", "instrument"),
    ("pso", "axiomatic"),
    ("rmo", "instrument"),
    ("rmo", "axiomatic"),
    ("power", ""),
    ("arm", ""),
    ("aarch64", "instrument"),
    ("aarch64", "axiomatic"),
];

fn family() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/C11");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("litmus/C11")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    files
}

fn name_of(file: &Path) -> String {
    file.file_stem().expect("stem").to_string_lossy().into_owned()
}

/// Every file is what a fresh generation from its name gives, so the verdicts below are
/// those of the tests the names describe.
#[test]
fn every_c11_test_is_its_names_generation() {
    let files = family();
    assert!(files.len() >= 500, "{} tests in litmus/C11", files.len());
    let mut stale = vec![];
    for f in &files {
        let t = c11::parse_name(&name_of(f)).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if std::fs::read_to_string(f).expect("read") != c11::c_program(&t) {
            stale.push(name_of(f));
        }
    }
    assert!(stale.is_empty(), "regenerate with scripts/gen-litmus-c11: {stale:?}");
}

/// Does the instruction access memory?
fn is_access(dialect: LitArch, ins: &str) -> bool {
    let m = ins.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
    if is_barrier(ins) {
        return false;
    }
    match dialect {
        LitArch::X86 => m == "MOV" && ins.contains('['),
        LitArch::Ppc => m.starts_with("LW") || m.starts_with("LD") || m.starts_with("ST"),
        LitArch::Arm | LitArch::AArch64 => m.starts_with("LD") || m.starts_with("ST"),
    }
}

/// A barrier instruction of any dialect.
fn is_barrier(ins: &str) -> bool {
    let m = ins.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
    ["MFENCE", "MEMBAR", "SYNC", "HWSYNC", "LWSYNC", "ISYNC", "EIEIO", "DMB", "DSB", "ISB"].contains(&m.as_str())
}

/// A test as code, initial state and outcome, with each thread's barriers before its first
/// access and everything but accesses after its last one left out (they order nothing).
fn key(l: &Litmus) -> String {
    let mut k = format!("{:?}\n", l.arch);
    // a location's zero initial value is the default, written or not
    let zero = |i: &&weakc::litmus::parse::InitItem| matches!(i.place, weakc::litmus::parse::Place::Mem(_)) && matches!(i.val, None | Some(weakc::litmus::parse::Value::Int(0)));
    let mut init: Vec<String> = l.init.iter().filter(|i| !zero(i)).map(|i| format!("{}={:?}", i.place, i.val)).collect();
    init.sort();
    k += &init.join(";");
    for t in &l.threads {
        let code: Vec<String> = t.code.iter().map(|i| i.text.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        let first = code.iter().position(|i| is_access(l.arch, i)).unwrap_or(code.len());
        let last = code.iter().rposition(|i| is_access(l.arch, i)).map_or(0, |p| p + 1);
        let kept: Vec<&String> = code.iter().enumerate().filter(|&(p, i)| p < last && (p >= first || !is_barrier(i))).map(|(_, i)| i).collect();
        k += &format!("\n{kept:?}");
    }
    let mut atoms: Vec<String> = l.cond.prop.atoms().iter().map(|a| Prop::Atom((*a).clone()).to_string()).collect();
    atoms.sort();
    k + &format!("\n{:?} {atoms:?}", l.cond.quant)
}

/// herd's verdicts on its corpus by [`key`] and weakc memory model (empty without the corpus).
fn herd_verdicts() -> BTreeMap<(String, &'static str), (String, bool)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/litmus/herd");
    let Ok(tsv) = std::fs::read_to_string(root.join("verdicts.tsv")) else {
        println!("../shared/litmus/herd is absent: no comparison with herd");
        return BTreeMap::new();
    };
    let models = [("x86tso.cat", "tso"), ("corpus/cats/pso.cat", "pso"), ("corpus/cats/rmo.cat", "rmo"), ("ppc.cat", "power"), ("arm.cat", "arm"), ("aarch64.cat", "aarch64")];
    let mut out = BTreeMap::new();
    let mut keys: BTreeMap<String, Option<String>> = BTreeMap::new();
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (Some(&model), Some(&reach)) = (f.get(3), f.get(11)) else { continue };
        let Some(&(_, mm)) = models.iter().find(|(m, _)| *m == model) else { continue };
        if reach != "yes" && reach != "no" {
            continue;
        }
        let k = keys
            .entry(f[2].to_string())
            .or_insert_with(|| {
                let mut map = SourceMap::default();
                weakc::litmus::parse_file(&root.join(f[2]), &mut map).ok().map(|l| key(&l))
            })
            .clone();
        if let Some(k) = k {
            out.insert((k, mm), (f[1].to_string(), reach == "yes"));
        }
    }
    out
}

#[derive(Debug)]
struct Run {
    test: String,
    arch: &'static str,
    /// Index in [`ROUTES`].
    route: usize,
    /// The reference: herd's verdict if the compiled test is in its corpus, else the engine's.
    reachable: bool,
    engine: bool,
    /// herd's test and verdict.
    herd: Option<(String, bool)>,
    code: i32,
    output: String,
    hardware: String,
}

/// The engine's verdict on the compiled test, and its [`key`].
fn expected(t: &c11::C11Test, mm: &str) -> (bool, String, String) {
    let arch = by_name(mm).expect("arch");
    let text = c11::hardware(t, arch, arch.c11).unwrap_or_else(|e| panic!("{} on {mm}: {e}", t.name));
    let mut map = SourceMap::default();
    let l = weakc::litmus::parse_str(&t.name, &text, &mut map).unwrap_or_else(|e| panic!("{}\n{text}", e.render(&map, false)));
    let r = axiomatic::check(&l, arch, &Limits::default()).unwrap_or_else(|e| panic!("{}\n{text}", e.render(&map, false)));
    let reachable = r.reachable.unwrap_or_else(|| panic!("{} on {mm}: no axiomatic verdict: {:?}", t.name, r.reason));
    (reachable, text, key(&l))
}

#[test]
fn c11_family_agrees_with_the_axiomatic_engine_on_every_architecture() {
    let files = family();
    assert!(!files.is_empty());
    let jobs: Vec<(&PathBuf, usize)> = files.iter().flat_map(|f| (0..ROUTES.len()).map(move |k| (f, k))).collect();
    assert!(ARCHS.iter().all(|a| ROUTES.iter().any(|r| r.0 == *a)));
    let herd = herd_verdicts();
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut runs: Vec<Run> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut out = vec![];
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(file, route)) = jobs.get(i) else { break };
                        let (arch, engine_flag) = ROUTES[route];
                        let test = name_of(file);
                        let t = c11::parse_name(&test).expect("name");
                        let (engine, hardware, k) = expected(&t, arch);
                        let herd = herd.get(&(k, arch)).cloned();
                        let reachable = herd.as_ref().map_or(engine, |h| h.1);
                        let mut cmd = Command::new(env!("CARGO_BIN_EXE_weakc"));
                        cmd.args(["verify", "--mm", arch]);
                        if !engine_flag.is_empty() {
                            cmd.args(["--engine", engine_flag]);
                        }
                        let o = cmd.arg(file).output().expect("run weakc");
                        let output = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
                        out.push(Run { test, arch, route, reachable, engine, herd, code: o.status.code().unwrap_or(-1), output, hardware });
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker")).collect()
    });
    runs.sort_by(|a, b| (&a.test, a.route).cmp(&(&b.test, b.route)));

    // per architecture: tests, reachable, agree, unknown, missed, spurious
    let mut table: BTreeMap<usize, (String, [usize; 6])> = BTreeMap::new();
    let mut wrong = vec![];
    let mut unknown = vec![];
    let mut engine_vs_herd = vec![];
    let mut matched = 0;
    for r in &runs {
        let label = match ROUTES[r.route] {
            (a, "") => a.to_string(),
            (a, e) => format!("{a} --engine {e}"),
        };
        // herd against the engine: once per test and architecture (the axiomatic route of
        // tso, pso, rmo and aarch64 repeats the comparison).
        if let (Some((h, v)), false) = (&r.herd, ROUTES[r.route].1 == "axiomatic") {
            matched += 1;
            if *v != r.engine {
                engine_vs_herd.push(format!("{} --mm {} is herd's {h}: herd {}, engine {}", r.test, r.arch, reach(*v), reach(r.engine)));
            }
        }
        let row = &mut table.entry(r.route).or_insert((label.clone(), [0; 6])).1;
        row[0] += 1;
        row[1] += r.reachable as usize;
        let verdict = r.output.lines().find(|l| l.contains("VERIFICATION")).unwrap_or("").to_string();
        match (r.reachable, r.code) {
            (true, 10) | (false, 0) => row[2] += 1,
            (false, 5) => {
                row[3] += 1;
                unknown.push(format!("{} --mm {label}: {verdict}", r.test));
            }
            (true, _) => {
                row[4] += 1;
                wrong.push(format!("MISSED (reachable, exit {}) {} --mm {label}: {verdict}\n{}", r.code, r.test, r.hardware));
            }
            (false, 10) => {
                row[5] += 1;
                wrong.push(format!("SPURIOUS (unreachable, FAILED) {} --mm {label}\n{}", r.test, r.hardware));
            }
            (false, c) => wrong.push(format!("exit {c} {} --mm {label}:\n{}", r.test, r.output)),
        }
    }
    println!("| architecture | tests | reachable | agree | unknown | missed | spurious |");
    println!("|---|---|---|---|---|---|---|");
    for (arch, n) in table.values() {
        println!("| {arch} | {} | {} | {} | {} | {} | {} |", n[0], n[1], n[2], n[3], n[4], n[5]);
    }
    println!("{matched} runs are a test of herd's corpus; herd and the engine differ on {}:", engine_vs_herd.len());
    for e in &engine_vs_herd {
        println!("  {e}");
    }
    println!("{} unknown:", unknown.len());
    for u in &unknown {
        println!("  {u}");
    }
    // Both verdicts occur on every architecture: the comparison can fail either way.
    for (arch, n) in table.values() {
        assert!(n[1] > 0 && n[1] < n[0], "{arch}: {} of {} reachable", n[1], n[0]);
    }
    assert!(wrong.is_empty(), "{} disagreements:\n{}", wrong.len(), wrong.join("\n"));
}

fn reach(r: bool) -> &'static str {
    if r {
        "reachable"
    } else {
        "unreachable"
    }
}
