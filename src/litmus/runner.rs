//! `weakc litmus`: run litmus suites in batch and compare with reference verdicts.
//!
//! One test = parse (`.litmus`) → translate to C ([`super::translate`]) → front end →
//! [`crate::pipeline`] (event graph, critical cycles, delay pairs, rewriting for the model)
//! → [`crate::bmc::verify`] on the instrumented program. ESOP-style C tests (`.c`, CBMC
//! conventions) skip the first two steps. The test's *reachable* verdict is "the assertion
//! can fail", i.e. the proposition of the final condition is reachable on the model (see
//! [`super::translate`] for the exact meaning per quantifier).
//!
//! With `--engine axiomatic` the verdict comes from [`super::axiomatic`] instead (no C, no
//! instrumentation); with `--engine both` from the instrumentation, the axiomatic verdict
//! is kept next to it and every test where the two differ is reported (`engines_disagree`).
//!
//! Outcomes against an expectation: `agree`; `unsound` (expected reachable, weakc says
//! unreachable: weakc missed a behaviour of the model); `spurious` (expected unreachable,
//! weakc says reachable); `unknown` (no verdict — solver timeout — or no expectation for the
//! test); `error` (the test could not be parsed, translated or analysed; the diagnostic is
//! kept).

use super::parse::{self, LitArch};
use super::translate;
use crate::arch::{self, Arch};
use crate::bmc::{self, BmcOptions, Verdict};
use crate::pipeline;
use crate::source::{write_atomically, Error, SourceMap};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Exit codes of `weakc litmus` (README): every compared test agrees (or nothing to
/// compare) and nothing failed.
pub const EXIT_OK: u8 = 0;
/// Some test is unsound or spurious, or (`--engine both`) the two engines disagree.
pub const EXIT_DISAGREE: u8 = 1;
/// Some test could not be run (parse/translation/analysis error, unsupported instruction),
/// or bad input (no test found, unreadable expectations): input errors.
pub const EXIT_INPUT: u8 = 2;

#[derive(clap::Args, Clone, Debug)]
pub struct LitmusArgs {
    /// Memory model (default: the test's architecture: X86→tso, PPC→power, ARM→arm,
    /// AArch64→aarch64; C tests: their directory, x86→tso, ppc→power).
    #[arg(long = "mm", value_name = "ARCH")]
    pub mm: Option<String>,
    /// Files or directories (searched recursively for `.litmus` and `.c` files).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Time limit per test in seconds (cycle search and SAT solver each).
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Expected verdicts: herd's `verdicts.tsv` or the ESOP suite's `expected.csv`.
    #[arg(long, value_name = "FILE")]
    pub expected: Option<PathBuf>,
    /// Write the results as JSON (`{"tests": [...]}`).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the results as JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Run only shard I of N (0 ≤ I < N) of the sorted file list: files whose index modulo N is I.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Loop unwinding bound of the verifier (litmus tests are loop-free unless they branch backwards).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub unwind: u32,
    /// Also write the C program translated from each `.litmus` file into DIR (as NAME.c).
    #[arg(long, value_name = "DIR")]
    pub emit_c: Option<PathBuf>,
    /// Do not print the per-family table.
    #[arg(long)]
    pub quiet: bool,
    /// Verdict engine: `instrument` (event graph, cycles, rewriting, built-in BMC), `axiomatic`
    /// (enumeration of candidate executions, ESOP 2013 §2 validity; `.litmus` files only) or
    /// `both` (the instrumentation's verdict is compared with the expectation; every test
    /// where the two engines disagree is listed).
    #[arg(long, value_enum, default_value_t = Engine::Instrument)]
    pub engine: Engine,
}

/// Which implementation gives the verdicts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The instrumentation pipeline and the built-in verifier.
    #[default]
    Instrument,
    /// The axiomatic reference engine ([`super::axiomatic`]).
    Axiomatic,
    /// Both; disagreements are reported.
    Both,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Agree,
    Unsound,
    Spurious,
    Unknown,
    Error,
}

#[derive(Clone, Debug, Serialize)]
pub struct TestResult {
    /// Path as found under the paths given.
    pub file: String,
    /// Name from the header (file stem for C tests).
    pub test: String,
    pub arch: String,
    pub mm: String,
    pub reachable: Option<bool>,
    pub expected: Option<bool>,
    pub outcome: Outcome,
    pub seconds: f64,
    pub error: Option<String>,
    /// The engine that gave `reachable` (`both`: the instrumentation's verdict).
    pub engine: Engine,
    /// With `--engine both`: the axiomatic engine's verdict (null otherwise or unknown).
    pub reachable_axiomatic: Option<bool>,
    /// With `--engine both`: both engines gave a verdict and they differ.
    pub engines_disagree: bool,
    /// Why the axiomatic engine gave no verdict (bound exceeded, C test), if so.
    pub note: Option<String>,
    #[serde(skip)]
    pub family: String,
    /// The verifier gave no verdict (timeout).
    #[serde(skip)]
    pub timeout: bool,
}

/// Reference verdicts: "is the proposition reachable" per test and model.
#[derive(Default, Debug)]
pub struct Expectations {
    /// (relpath, mm) → reachable (herd `verdicts.tsv`).
    by_path: HashMap<(String, String), bool>,
    /// (arch, test, mm) → reachable; None when rows disagree.
    by_name: HashMap<(String, String, String), Option<bool>>,
}

/// Both Power tables: a Power reference (ppc.cat, the ESOP suite's POWER rows) is compared
/// with each.
const POWER_MODELS: &[&str] = &["power", "power-esop"];

/// weakc model names a herd model file gives the reference for.
fn mms_of_cat(model: &str) -> &'static [&'static str] {
    let f = model.rsplit('/').next().unwrap_or(model);
    match f {
        "x86tso.cat" => &["tso"],
        "sc.cat" => &["sc"],
        "pso.cat" => &["pso"],
        "rmo.cat" => &["rmo"],
        "ppc.cat" => POWER_MODELS,
        "arm.cat" => &["arm"],
        "aarch64.cat" => &["aarch64"],
        _ => &[],
    }
}

impl Expectations {
    /// Reads herd's `verdicts.tsv` or the ESOP suite's `expected.csv` (by header).
    pub fn load(path: &Path) -> Result<Expectations, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io { path: path.to_path_buf(), msg: e.to_string(), output: false })?;
        Self::parse(&text).map_err(|m| Error::Usage(format!("{}: {m}", path.display())))
    }

    pub fn parse(text: &str) -> Result<Expectations, String> {
        let mut lines = text.lines();
        let header = lines.next().unwrap_or("");
        let mut e = Expectations::default();
        let add_name = |e: &mut Expectations, k: (String, String, String), v: bool| {
            e.by_name.entry(k).and_modify(|o| if *o != Some(v) { *o = None }).or_insert(Some(v));
        };
        if header.starts_with("arch\ttest\t") {
            let cols: Vec<&str> = header.split('\t').collect();
            let col = |n: &str| cols.iter().position(|c| *c == n).ok_or_else(|| format!("no column `{n}`"));
            let (ca, ct, cp, cm, cr) = (col("arch")?, col("test")?, col("relpath")?, col("model")?, col("cond_reachable")?);
            for (i, l) in lines.enumerate() {
                if l.trim().is_empty() {
                    continue;
                }
                let f: Vec<&str> = l.split('\t').collect();
                let get = |c: usize| f.get(c).copied().ok_or_else(|| format!("line {}: too few columns", i + 2));
                let v = match get(cr)? {
                    "yes" => true,
                    "no" => false,
                    _ => continue,
                };
                for mm in mms_of_cat(get(cm)?) {
                    e.by_path.insert((get(cp)?.to_string(), mm.to_string()), v);
                    add_name(&mut e, (get(ca)?.to_ascii_uppercase(), get(ct)?.to_string(), mm.to_string()), v);
                }
            }
        } else if header.starts_with("src,test,mm") {
            for (i, l) in lines.enumerate() {
                if l.trim().is_empty() {
                    continue;
                }
                let f: Vec<&str> = l.split(',').collect();
                if f.len() < 6 {
                    return Err(format!("line {}: expected 6 columns", i + 2));
                }
                let mms: &[&str] = match arch::by_name(f[2]) {
                    Some(a) if a.name == "power" => POWER_MODELS,
                    Some(a) => std::slice::from_ref(&a.name),
                    None => continue,
                };
                let v = match f[5] {
                    "FAILED" => true,
                    "SUCCESSFUL" => false,
                    _ => continue,
                };
                // ESOP rows are keyed by directory (`ppc`, `x86`) and file stem.
                for mm in mms {
                    add_name(&mut e, (f[0].to_ascii_uppercase(), f[1].to_string(), mm.to_string()), v);
                }
            }
        } else {
            return Err("unknown expectations format (expected herd's verdicts.tsv header `arch\\ttest\\t…` or the ESOP `src,test,mm,…` header)".into());
        }
        Ok(e)
    }

    /// The expected reachability of `test` in `file` (by relative path first, then by
    /// architecture and name) under `mm`; None if unknown or ambiguous.
    pub fn lookup(&self, file: &Path, arch: &str, test: &str, mm: &str) -> Option<bool> {
        let comps: Vec<String> = file.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        for k in (1..=comps.len()).rev() {
            let rel = comps[comps.len() - k..].join("/");
            if let Some(v) = self.by_path.get(&(rel, mm.to_string())) {
                return Some(*v);
            }
        }
        self.by_name.get(&(arch.to_ascii_uppercase(), test.to_string(), mm.to_string())).copied().flatten()
    }
}

/// Families shown in the summary table, matched case-insensitively on the name's first
/// `+`-separated part.
const FAMILIES: &[&str] = &["2+2W", "SB", "MP", "LB", "S", "R", "WRC", "RWC", "IRIW", "ISA2", "WWC", "W+RWC", "Z6.0", "Z6.1", "Z6.2", "Z6.3", "3.SB", "3.LB", "3.2W"];

/// The family of a test from its name: `MP+lwsync+addr` → `MP`, `2+2W+syncs` → `2+2W`,
/// `safe012` → `safe*`, `podwr001` → `podwr*`, `CoRR2` → `Co*`.
pub fn family(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("2+2w") {
        return "2+2W".into();
    }
    if let Some(f) = FAMILIES.iter().find(|f| f.contains('+') && lower.starts_with(&format!("{}+", f.to_ascii_lowercase()))) {
        return f.to_string();
    }
    let first = name.split('+').next().unwrap_or(name);
    if let Some(f) = FAMILIES.iter().find(|f| f.eq_ignore_ascii_case(first)) {
        return f.to_string();
    }
    // ESOP/diy numbered names: a stem followed by digits.
    let stem = first.trim_end_matches(|c: char| c.is_ascii_digit());
    if stem.len() < first.len() && !stem.is_empty() {
        return format!("{stem}*");
    }
    if first.len() > 2 && (first.starts_with("Co") || first.starts_with("CO-")) {
        return "Co*".into();
    }
    first.to_string()
}

/// Every `.litmus` and `.c` file under `paths`, sorted.
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = vec![];
    fn walk(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
            entries.sort();
            for e in entries {
                walk(&e, out)?;
            }
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("litmus" | "c")) {
            out.push(p.to_path_buf());
        }
        Ok(())
    }
    for p in paths {
        if !p.exists() {
            return Err(Error::Io { path: p.clone(), msg: "no such file or directory".into(), output: false });
        }
        if p.is_file() {
            out.push(p.clone());
        } else {
            walk(p, &mut out).map_err(|e| Error::Io { path: p.clone(), msg: e.to_string(), output: false })?;
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Parses `I/N`.
pub fn parse_shard(s: &str) -> Result<(usize, usize), Error> {
    let bad = || Error::Usage(format!("bad --shard `{s}`: expected I/N with 0 <= I < N"));
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub mm: Option<String>,
    /// Directory receiving the translated C of each `.litmus` test.
    pub emit_c: Option<PathBuf>,
    pub timeout: Duration,
    pub unwind: u32,
    pub engine: Engine,
}

/// The C directory convention of the ESOP suite: `x86/…` → tso, `ppc/…` → power.
fn c_dir_arch(path: &Path) -> Option<(&'static str, &'static str)> {
    let dir = path.parent()?.file_name()?.to_str()?.to_ascii_lowercase();
    match dir.as_str() {
        "x86" => Some(("X86", "tso")),
        "ppc" | "power" => Some(("PPC", "power")),
        "arm" => Some(("ARM", "arm")),
        "aarch64" => Some(("AArch64", "aarch64")),
        _ => None,
    }
}

/// Runs one test file.
pub fn run_one(path: &Path, opts: &RunOptions, exp: Option<&Expectations>) -> TestResult {
    let t0 = Instant::now();
    let file = path.display().to_string();
    let is_litmus = path.extension().and_then(|e| e.to_str()) == Some("litmus");
    let mut map = SourceMap::default();
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut res = TestResult {
        file: file.clone(),
        test: stem.clone(),
        arch: String::new(),
        mm: opts.mm.clone().unwrap_or_default(),
        reachable: None,
        expected: None,
        outcome: Outcome::Error,
        seconds: 0.0,
        error: None,
        engine: opts.engine,
        reachable_axiomatic: None,
        engines_disagree: false,
        note: None,
        family: family(&stem),
        timeout: false,
    };
    let lit = if is_litmus { Some(parse::parse_file(path, &mut map)) } else { None };
    if let Some(Ok(l)) = &lit {
        res.test = l.name.clone();
        res.family = family(&l.name);
        res.arch = l.arch.herd_name().to_string();
    }
    // The axiomatic engine (litmus files only).
    let mut ax: Option<Result<(Option<bool>, bool), Error>> = None;
    if opts.engine != Engine::Instrument {
        let r = match &lit {
            Some(Ok(l)) => model(opts.mm.as_deref().unwrap_or(l.arch.default_mm())).and_then(|arch| {
                res.mm = arch.name.to_string();
                let limits = super::axiomatic::Limits { timeout: opts.timeout, ..Default::default() };
                let a = super::axiomatic::check(l, arch, &limits)?;
                if let Some(why) = &a.reason {
                    res.note = Some(format!("axiomatic: {why}"));
                }
                Ok((a.reachable, a.reachable.is_none()))
            }),
            // reported below (the parse error itself)
            Some(Err(_)) => Ok((None, false)),
            None => Err(Error::Usage(format!("{file}: the axiomatic engine reads .litmus files only"))),
        };
        if opts.engine == Engine::Both {
            match &r {
                Ok((v, _)) => res.reachable_axiomatic = *v,
                Err(e) => res.note = Some(format!("axiomatic: {}", e.render(&map, false).lines().next().unwrap_or("").trim())),
            }
        }
        ax = Some(r);
    }
    let r = if opts.engine == Engine::Axiomatic {
        match lit {
            Some(Err(e)) => Err(e),
            _ => ax.take().unwrap_or_else(|| Err(Error::Internal("axiomatic engine did not run".into()))),
        }
    } else {
        instrument_one(path, &file, lit, opts, &mut res, &mut map, t0)
    };
    if opts.engine == Engine::Both {
        if let (Ok((Some(a), _)), Some(b)) = (&r, res.reachable_axiomatic) {
            res.engines_disagree = *a != b;
        }
    }
    finish(res, r, path, exp, &map, t0)
}

/// The instrumentation pipeline's verdict: (reachable, timed out).
fn instrument_one(
    path: &Path,
    file: &str,
    lit: Option<Result<parse::Litmus, Error>>,
    opts: &RunOptions,
    res: &mut TestResult,
    map: &mut SourceMap,
    t0: Instant,
) -> Result<(Option<bool>, bool), Error> {
    (|| -> Result<(Option<bool>, bool), Error> {
        // A test whose atomics the translation splits, for the axiomatic engine to confirm
        // a reachable outcome on.
        let mut split = None;
        let (program, arch): (crate::ir::Program, &Arch) = if let Some(lit) = lit {
            let lit = lit?;
            res.test = lit.name.clone();
            res.family = family(&lit.name);
            res.arch = lit.arch.herd_name().to_string();
            let arch = model(opts.mm.as_deref().unwrap_or(lit.arch.default_mm()))?;
            res.mm = arch.name.to_string();
            let c = translate::translate(&lit)?;
            if let Some(dir) = &opts.emit_c {
                let safe: String = lit.name.chars().map(|c| if c.is_ascii_alphanumeric() || "+-_.".contains(c) { c } else { '_' }).collect();
                write_atomically(&dir.join(format!("{safe}.c")), &c.c)?;
            }
            let fopts = crate::frontend::Options { preprocess: crate::frontend::Preprocess::Never, ..Default::default() };
            let program = crate::frontend::load_str(&format!("{file} (as C)"), &c.c, &fopts, map)?;
            if !c.non_atomic.is_empty() {
                split = Some((lit, c.non_atomic));
            }
            (program, arch)
        } else {
            let (a, default_mm) = c_dir_arch(path).map_or(("C", None), |(a, m)| (a, Some(m)));
            res.arch = a.to_string();
            let mm = opts.mm.as_deref().or(default_mm).ok_or_else(|| Error::Usage(format!("{file}: give --mm for C tests outside an x86/ or ppc/ directory")))?;
            let arch = model(mm)?;
            res.mm = arch.name.to_string();
            (crate::frontend::load_file(path, &Default::default(), map)?, arch)
        };
        let popts = pipeline::Options {
            limits: crate::cycles::Limits { time_budget: opts.timeout, ..Default::default() },
            ..Default::default()
        };
        let mut program = program;
        let parse = t0.elapsed();
        let mut a = pipeline::analyze_program(&mut program, arch, &popts, std::mem::take(map), parse, 0)?;
        let ins = pipeline::instrument(&mut a, arch, Default::default(), &Default::default());
        *map = a.map.clone();
        let bo = BmcOptions { unwind: opts.unwind, timeout: Some(opts.timeout), ..Default::default() };
        let o = bmc::verify(&ins.rewritten.program, &bo)?;
        // As `verify` says: an instrumented program that may lack behaviours of the
        // architecture proves nothing by its safety.
        Ok(match (o.verdict, ins.rewritten.summary.approximations.first()) {
            // The translation's split atomics over-approximate: a write of another thread
            // may come between their read and write. The axiomatic engine keeps atomicity:
            // the outcome is reachable if it says so too, and otherwise no verdict.
            (Verdict::Unsafe, _) if split.is_some() => {
                let (lit, atomics) = split.take().expect("checked");
                // (`--engine both` has asked it already)
                let ax = if opts.engine == Engine::Both {
                    (res.reachable_axiomatic, None)
                } else {
                    let limits = super::axiomatic::Limits { timeout: opts.timeout.saturating_sub(t0.elapsed()), ..Default::default() };
                    let a = super::axiomatic::check(&lit, arch, &limits)?;
                    (a.reachable, a.reason)
                };
                if ax.0 == Some(true) {
                    (Some(true), false)
                } else {
                    let why = match ax {
                        (Some(_), _) => "the axiomatic engine, which keeps it, finds the outcome unreachable".to_string(),
                        (None, reason) => format!("the axiomatic engine, which keeps it, gave no verdict ({})", reason.as_deref().unwrap_or("see the note")),
                    };
                    let note = format!(
                        "the instrumentation reaches the outcome in a C translation that splits {} into a read and a write (no atomicity, no pick dependencies); {why}",
                        atomics.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
                    );
                    add_note(res, note);
                    (None, false)
                }
            }
            (Verdict::Unsafe, _) => (Some(true), false),
            (Verdict::Safe { complete: true }, Some((loc, why))) => {
                let note = format!("instrumentation may lack behaviours of the architecture: line {}: {why}", loc.line);
                add_note(res, note);
                (None, false)
            }
            (Verdict::Safe { complete: true }, None) => (Some(false), false),
            (Verdict::Safe { complete: false }, _) => (None, false),
            (Verdict::Unknown(_), _) => (None, true),
        })
    })()
}

/// Appends `note` to the test's note.
fn add_note(res: &mut TestResult, note: String) {
    res.note = Some(match res.note.take() {
        Some(n) => format!("{n}; {note}"),
        None => note,
    });
}

/// Fills in the verdict, the expectation and the outcome.
fn finish(mut res: TestResult, r: Result<(Option<bool>, bool), Error>, path: &Path, exp: Option<&Expectations>, map: &SourceMap, t0: Instant) -> TestResult {
    res.seconds = t0.elapsed().as_secs_f64();
    if let Some(e) = exp {
        res.expected = e.lookup(path, &res.arch, &res.test, &res.mm);
    }
    match r {
        Ok((reachable, timeout)) => {
            res.reachable = reachable;
            res.timeout = timeout;
            res.outcome = match (reachable, res.expected) {
                (Some(r), Some(e)) if r == e => Outcome::Agree,
                (Some(false), Some(true)) => Outcome::Unsound,
                (Some(true), Some(false)) => Outcome::Spurious,
                _ => Outcome::Unknown,
            };
        }
        Err(e) => {
            res.outcome = Outcome::Error;
            res.error = Some(e.render(map, false).trim_end().to_string());
        }
    }
    res
}

fn model(name: &str) -> Result<&'static Arch, Error> {
    arch::lookup(name)
}

/// Runs every file on `jobs` threads (None: all cores), ticking `progress` after each.
pub fn run_all(files: &[PathBuf], opts: &RunOptions, exp: Option<&Expectations>, jobs: Option<usize>, progress: Option<&indicatif::ProgressBar>) -> Result<Vec<TestResult>, Error> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(j) = jobs {
        b = b.num_threads(j.max(1));
    }
    let pool = b.build().map_err(|e| Error::Internal(format!("cannot start worker threads: {e}")))?;
    Ok(pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let r = run_one(f, opts, exp);
                if let Some(p) = progress {
                    p.set_message(r.test.clone());
                    p.inc(1);
                }
                r
            })
            .collect()
    }))
}

#[derive(Default, Clone)]
struct Row {
    tests: usize,
    reachable: usize,
    unreachable: usize,
    agree: usize,
    unsound: usize,
    spurious: usize,
    timeouts: usize,
    errors: usize,
    time: f64,
}

impl Row {
    fn add(&mut self, r: &TestResult) {
        self.tests += 1;
        match r.reachable {
            Some(true) => self.reachable += 1,
            Some(false) => self.unreachable += 1,
            None => {}
        }
        match r.outcome {
            Outcome::Agree => self.agree += 1,
            Outcome::Unsound => self.unsound += 1,
            Outcome::Spurious => self.spurious += 1,
            Outcome::Error => self.errors += 1,
            Outcome::Unknown => {}
        }
        if r.timeout {
            self.timeouts += 1;
        }
        self.time += r.seconds;
    }
}

/// Median of the per-test times.
pub fn median_seconds(results: &[TestResult]) -> f64 {
    let mut t: Vec<f64> = results.iter().map(|r| r.seconds).collect();
    t.sort_by(|a, b| a.total_cmp(b));
    match t.len() {
        0 => 0.0,
        n if n % 2 == 1 => t[n / 2],
        n => (t[n / 2 - 1] + t[n / 2]) / 2.0,
    }
}

/// The per-family table, totals, and the lists of disagreements and errors.
pub fn report(results: &[TestResult]) -> String {
    let mut fams: BTreeMap<(String, String), Row> = BTreeMap::new();
    let mut total = Row::default();
    for r in results {
        fams.entry((r.mm.clone(), r.family.clone())).or_default().add(r);
        total.add(r);
    }
    let mut s = String::new();
    let head = format!("{:<8} {:<12} {:>6} {:>6} {:>6} {:>6} {:>7} {:>8} {:>8} {:>6} {:>9}\n", "mm", "family", "tests", "reach", "unrch", "agree", "unsound", "spurious", "timeouts", "errors", "time(s)");
    s += &head;
    s += &format!("{}\n", "-".repeat(head.len() - 1));
    let line = |mm: &str, f: &str, r: &Row| {
        format!(
            "{:<8} {:<12} {:>6} {:>6} {:>6} {:>6} {:>7} {:>8} {:>8} {:>6} {:>9.2}\n",
            mm, f, r.tests, r.reachable, r.unreachable, r.agree, r.unsound, r.spurious, r.timeouts, r.errors, r.time
        )
    };
    for ((mm, f), r) in &fams {
        s += &line(mm, f, r);
    }
    s += &format!("{}\n", "-".repeat(head.len() - 1));
    s += &line("all", "total", &total);
    s += &format!("median {:.3} s per test\n", median_seconds(results));
    let dis: Vec<&TestResult> = results.iter().filter(|r| matches!(r.outcome, Outcome::Unsound | Outcome::Spurious)).collect();
    if !dis.is_empty() {
        s += &format!("\ndisagreements ({}):\n", dis.len());
        for r in dis {
            let what = if r.outcome == Outcome::Unsound { "unsound: expected reachable, weakc says unreachable" } else { "spurious: expected unreachable, weakc says reachable" };
            s += &format!("  {} ({}, {}) {what}\n", r.test, r.file, r.mm);
        }
    }
    let both: Vec<&TestResult> = results.iter().filter(|r| r.engines_disagree).collect();
    if !both.is_empty() {
        s += &format!("\nengines disagree ({}):\n", both.len());
        for r in both {
            let show = |b: Option<bool>| b.map_or("unknown", |b| if b { "reachable" } else { "unreachable" });
            s += &format!("  {} ({}, {}) instrument: {}, axiomatic: {}, expected: {}\n", r.test, r.file, r.mm, show(r.reachable), show(r.reachable_axiomatic), show(r.expected));
        }
    } else if results.iter().any(|r| r.engine == Engine::Both) {
        let compared = results.iter().filter(|r| r.reachable.is_some() && r.reachable_axiomatic.is_some()).count();
        s += &format!("engines agree on all {compared} tests where both gave a verdict\n");
    }
    let errs: Vec<&TestResult> = results.iter().filter(|r| r.outcome == Outcome::Error).collect();
    if !errs.is_empty() {
        s += &format!("\nerrors ({}):\n", errs.len());
        for r in errs {
            let first = r.error.as_deref().unwrap_or("").lines().next().unwrap_or("");
            s += &format!("  {}: {first}\n", r.file);
        }
    }
    s
}

/// `{"tests": [...]}`.
pub fn json(results: &[TestResult]) -> serde_json::Value {
    serde_json::json!({ "tests": results })
}

fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o += "&amp;",
            '<' => o += "&lt;",
            '>' => o += "&gt;",
            '"' => o += "&quot;",
            '\'' => o += "&apos;",
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {}
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: one test case per test (class = family), `unsound`/`spurious` as failures,
/// `error` as errors, `unknown` as skipped.
pub fn junit(results: &[TestResult]) -> String {
    let failures = results.iter().filter(|r| matches!(r.outcome, Outcome::Unsound | Outcome::Spurious)).count();
    let errors = results.iter().filter(|r| r.outcome == Outcome::Error).count();
    let skipped = results.iter().filter(|r| r.outcome == Outcome::Unknown).count();
    let time: f64 = results.iter().map(|r| r.seconds).sum();
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s += &format!("<testsuites name=\"weakc litmus\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">\n", results.len());
    s += &format!("  <testsuite name=\"weakc litmus\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">\n", results.len());
    for r in results {
        s += &format!(
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{:.3}\">",
            xml_escape(&format!("{}.{}", r.mm, r.family)),
            xml_escape(&format!("{} ({})", r.test, r.mm)),
            xml_escape(&r.file),
            r.seconds
        );
        let show = |b: Option<bool>| b.map_or("unknown".to_string(), |b| if b { "reachable".into() } else { "unreachable".into() });
        match r.outcome {
            Outcome::Agree => {}
            Outcome::Unsound | Outcome::Spurious => {
                let msg = format!("{:?}: expected {}, weakc says {}", r.outcome, show(r.expected), show(r.reachable)).to_lowercase();
                s += &format!("\n      <failure message=\"{}\" type=\"{:?}\"/>\n    ", xml_escape(&msg), r.outcome);
            }
            Outcome::Error => {
                let e = r.error.clone().unwrap_or_default();
                let first = e.lines().next().unwrap_or("").to_string();
                s += &format!("\n      <error message=\"{}\">{}</error>\n    ", xml_escape(&first), xml_escape(&e));
            }
            Outcome::Unknown => {
                let why = if r.timeout { "no verdict (timeout)" } else if r.reachable.is_none() { "no verdict" } else { "no expectation" };
                s += &format!("\n      <skipped message=\"{why}\"/>\n    ");
            }
        }
        s += "</testcase>\n";
    }
    s += "  </testsuite>\n</testsuites>\n";
    s
}

/// Exit code for a finished run (see the constants).
pub fn exit_code(results: &[TestResult]) -> u8 {
    if results.iter().any(|r| matches!(r.outcome, Outcome::Unsound | Outcome::Spurious) || r.engines_disagree) {
        EXIT_DISAGREE
    } else if results.iter().any(|r| r.outcome == Outcome::Error) {
        EXIT_INPUT
    } else {
        EXIT_OK
    }
}

/// The `weakc litmus` command: returns the exit code.
pub fn main(args: LitmusArgs) -> Result<u8, Error> {
    use std::io::IsTerminal;
    if let Some(mm) = &args.mm {
        model(mm)?;
    }
    let exp = args.expected.as_deref().map(Expectations::load).transpose()?;
    let mut files = collect_files(&args.paths)?;
    if let Some(s) = &args.shard {
        let (i, n) = parse_shard(s)?;
        files = files.into_iter().enumerate().filter(|(k, _)| k % n == i).map(|(_, f)| f).collect();
    }
    if files.is_empty() {
        return Err(Error::Usage("no .litmus or .c file found under the given paths".into()));
    }
    if let Some(d) = &args.emit_c {
        std::fs::create_dir_all(d).map_err(|e| Error::Io { path: d.clone(), msg: e.to_string(), output: true })?;
    }
    let opts = RunOptions { mm: args.mm.clone(), emit_c: args.emit_c.clone(), timeout: Duration::from_secs_f64(args.timeout.max(0.001)), unwind: args.unwind, engine: args.engine };
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        if let Ok(st) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} eta {eta} {wide_msg}") {
            b.set_style(st);
        }
        b
    });
    let results = run_all(&files, &opts, exp.as_ref(), args.jobs, bar.as_ref())?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    for r in &results {
        if let Some(e) = &r.error {
            eprintln!("{e}");
        }
    }
    if !args.quiet {
        crate::output::stdout(&report(&results));
    }
    if let Some(j) = &args.json {
        write_atomically(j, &(serde_json::to_string_pretty(&json(&results)).expect("json") + "\n"))?;
    }
    if let Some(j) = &args.junit {
        write_atomically(j, &junit(&results))?;
    }
    Ok(exit_code(&results))
}

/// Architecture of a litmus file from its header, without a full parse (None if unreadable).
pub fn header_arch(path: &Path) -> Option<LitArch> {
    let text = std::fs::read_to_string(path).ok()?;
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    LitArch::from_header(first.split_whitespace().next()?)
}
