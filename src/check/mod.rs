//! `weakc check`: does a concurrent library behave on an architecture as its operations
//! would atomically? CheckFence's method (Burckhardt, Alur, Martin, PLDI 2007, §2.2 and
//! §3.2): a bounded client test calls the library's operations; the *observation set* is
//! every vector of open arguments and return values the test produces in serial executions
//! (operations interleaved, never overlapping) — all solutions of the built-in engine, each
//! excluded by a blocking clause — and the library is correct on the architecture when every
//! execution there produces an observation of the set (the *inclusion check*, the program
//! instrumented and decided as `weakc verify` does). Loops are unrolled lazily (§3.3): the
//! set is computed at the first bound no serial execution exceeds.

pub mod harness;
pub mod test;

use crate::arch::Arch;
use crate::bmc::{self, Verdict};
use crate::output::stdout;
use crate::pipeline;
use crate::source::{Error, Loc, SourceMap};
use crate::verify;
use harness::{Commits, Mode, Plan};
use crate::frontend::preprocess::Target;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// The test: `[init calls] ( calls | calls … )` (CheckFence's notation, README), or a
    /// file holding it.
    #[arg(long, value_name = "TEST")]
    pub test: String,
    /// Compute the observation set from this sequential reference implementation (same
    /// operations) instead of the library itself.
    #[arg(long, value_name = "FILE.c")]
    pub spec: Option<PathBuf>,
    /// The library's init function, run before the test.
    #[arg(long, value_name = "FUNC", default_value = "init")]
    pub init: String,
    /// The values an open argument (`*`, or an operation written without parentheses) takes.
    #[arg(long, value_name = "V,...", default_value = "0,1")]
    pub values: String,
    /// Lazy unrolling stops at this bound: a serial execution still beyond it is an error
    /// (the test is not bounded); the inclusion check unrolls up to it too.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_unwind: u32,
    /// At most this many observations (more: UNKNOWN).
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_observations: usize,
    /// Also write the inclusion harness (a C unit with `main`, to link with the library) to
    /// this file, for `weakc verify`, `weakc fences --property`, CBMC or ESBMC.
    #[arg(long, value_name = "FILE.c")]
    pub emit_harness: Option<PathBuf>,
    /// Check the commit points the library marks with `__weakc_commit()` (CAV 2006): every
    /// execution's observation must be that of the serial execution running the calls in
    /// the order of their commit points. Built-in engine, axiomatic route only.
    #[arg(long)]
    pub commit_points: bool,
}

/// What the command needs besides its own flags: the library's units with their front-end
/// options, and the verification options `weakc verify` would use.
pub struct Request<'a> {
    pub units: Vec<(PathBuf, crate::frontend::Options)>,
    /// Pipeline options per architecture (the preprocessor's target differs).
    pub pipeline: &'a dyn Fn(&Arch) -> pipeline::Options,
    pub verify: verify::Options,
    pub archs: Vec<&'static Arch>,
    pub strategy: crate::select::Strategy,
    pub buffer_size: u32,
    pub args: &'a CheckArgs,
}

/// The observation set of a test, and how far it can be trusted.
#[derive(Clone, Debug)]
pub struct ObservationSet {
    pub values: Vec<Vec<i128>>,
    /// The loop bound it was computed at.
    pub unwind: u32,
    /// The set may hold observations C cannot produce (an over-approximated value): an
    /// inclusion check that passes proves nothing.
    pub approximate: Option<String>,
    pub time: Duration,
}

type Fail = (Error, SourceMap);

fn values_of(spec: &str) -> Result<Vec<i64>, Error> {
    let v: Result<Vec<i64>, _> = spec.split(',').map(|x| x.trim().parse::<i64>()).collect();
    match v {
        Ok(v) if !v.is_empty() => Ok(v),
        _ => Err(Error::Usage(format!("--values: `{spec}` is not a comma-separated list of integers"))),
    }
}

/// The units' texts, read once.
fn read_units(units: &[(PathBuf, crate::frontend::Options)]) -> Result<Vec<(String, String, crate::frontend::Options)>, Error> {
    units
        .iter()
        .map(|(p, o)| Ok((p.display().to_string(), crate::source::read_input(p)?, crate::frontend::Options { unit: true, ..o.clone() })))
        .collect()
}

/// The harness's name in diagnostics and traces.
const HARNESS: &str = "<weakc check harness>";

/// The library's units and the harness as one program, preprocessed for `target` (the
/// architecture's; `--target` when given).
fn load(lib: &[(String, String, crate::frontend::Options)], harness: &str, target: Option<Target>, map: &mut SourceMap) -> Result<crate::ir::Program, Error> {
    let opts: Vec<crate::frontend::Options> = lib.iter().map(|u| crate::frontend::Options { target, ..u.2.clone() }).collect();
    let mut units: Vec<(&str, &str, &crate::frontend::Options)> = vec![(HARNESS, harness, &opts[0])];
    units.extend(lib.iter().zip(&opts).map(|((n, t, _), o)| (n.as_str(), t.as_str(), o)));
    crate::frontend::load_texts(&units, map)
}

pub fn main(req: Request) -> Result<u8, Fail> {
    let args = req.args;
    let mut map = SourceMap::default();
    let at = |e: Error, map: &SourceMap| (e, map.clone());
    let values = values_of(&args.values).map_err(|e| (e, SourceMap::default()))?;
    let lib = read_units(&req.units).map_err(|e| (e, SourceMap::default()))?;
    let spec = match &args.spec {
        Some(p) => Some(read_units(&[(p.clone(), req.units[0].1.clone())]).map_err(|e| (e, SourceMap::default()))?),
        None => None,
    };
    // The test: a file, or the text itself.
    let (test_name, test_text) = match std::path::Path::new(&args.test) {
        p if p.is_file() => (args.test.clone(), crate::source::read_input(p).map_err(|e| (e, SourceMap::default()))?),
        _ => ("--test".to_string(), args.test.clone()),
    };
    let test_file = map.add_file(&test_name, test_text.clone());
    let test = test::parse(&test_text, test_file).map_err(|e| at(e, &map))?;
    let test_loc = Loc { file: test_file, line: 1, col: 0, len: test_text.lines().next().map_or(1, |l| l.len().max(1)) as u32 };
    // Each implementation alone, to read the operations' signatures.
    let plan_of = |units: &[(String, String, crate::frontend::Options)], map: &mut SourceMap| -> Result<Plan, Error> {
        let refs: Vec<(&str, &str, &crate::frontend::Options)> = units.iter().map(|(n, t, o)| (n.as_str(), t.as_str(), o)).collect();
        let alone = crate::frontend::load_texts(&refs, map)?;
        harness::plan(&alone, &test, &args.init, test_loc)
    };
    let mut plan = plan_of(&lib, &mut map).map_err(|e| at(e, &map))?;
    if args.commit_points {
        plan.commits = Commits::Order;
        commit_points_route(&req).map_err(|e| (e, SourceMap::default()))?;
    }
    if let Some(spec) = &spec {
        let sp = plan_of(spec, &mut map).map_err(|e| at(e, &map))?;
        for (a, b) in plan.ops.iter().zip(&sp.ops) {
            if a.params != b.params || a.ret != b.ret {
                let loc = plan.test.threads.iter().flatten().chain(&plan.test.init).find(|c| c.name == a.name).map(|c| c.loc).unwrap_or(test_loc);
                return Err(at(Error::syntax(loc, format!("operation `{}` has another signature in the specification {}", a.name, spec[0].0)), &map));
            }
        }
    }
    let json = req.verify.json;
    let text = !req.verify.quiet && !json;
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr()) && !req.verify.quiet;
    if text {
        crate::output::report(&format!(
            "weakc check: {}{}, test {}\n",
            lib.iter().map(|u| u.0.as_str()).collect::<Vec<_>>().join(" "),
            args.spec.as_ref().map(|p| format!(" against the specification {}", p.display())).unwrap_or_default(),
            plan.show_open()
        ));
    }
    let sc = crate::arch::lookup("sc").map_err(|e| (e, SourceMap::default()))?;
    let set = observation_set(spec.as_deref().unwrap_or(&lib), &plan, &values, &req, (req.pipeline)(sc), progress, &mut map).map_err(|e| at(e, &map))?;
    let set = match set {
        Ok(s) => s,
        Err(why) => {
            let v = Verdict::Unknown(format!("the observation set could not be computed: {why}"));
            emit(&req, &plan, None, &[], v.clone(), None, None, json, "");
            return Ok(5);
        }
    };
    if text {
        crate::output::report(&format!(
            "  observation set: {} observation{} of {} value{} each{}, serial executions{} within unwind {} ({:.1} s)\n",
            set.values.len(),
            if set.values.len() == 1 { "" } else { "s" },
            plan.slots.len(),
            if plan.slots.len() == 1 { "" } else { "s" },
            if plan.commits == Commits::Order { " and the order of the calls" } else { "" },
            if args.spec.is_some() { " of the specification" } else { "" },
            set.unwind,
            set.time.as_secs_f64()
        ));
    }
    // One harness for every architecture (the set and the values do not depend on it).
    let harness = plan.harness(&Mode::Inclusion { set: &set.values }, &values);
    if let Some(path) = &args.emit_harness {
        let c = format!(
            "/* The inclusion harness of `weakc check` for the test {} ({} observation{} under SC, {}).\n * Link it with {}; it defines main. */\n{}",
            plan.show_open(),
            set.values.len(),
            if set.values.len() == 1 { "" } else { "s" },
            args.spec.as_ref().map_or("of the library's serial executions".to_string(), |p| format!("of the specification {}", p.display())),
            lib.iter().map(|u| u.0.as_str()).collect::<Vec<_>>().join(" "),
            harness
        );
        crate::source::write_atomically(path, &c).map_err(|e| (e, SourceMap::default()))?;
        if text {
            crate::output::report(&format!("  inclusion harness written to {}\n", path.display()));
        }
    }
    // Power and ARM have no single memory order (a write reaches threads at different
    // times): the encoding's clocks order coherence, not what each read saw, so no commit
    // order can be read from them. There each call must still pass one commit point, and
    // the observation is checked against the set without the order.
    let once = (plan.commits == Commits::Order && req.archs.iter().any(|a| !a.rfe_safe())).then(|| {
        let once = Plan { commits: Commits::Once, ..plan.clone() };
        let mut projected: Vec<Vec<i128>> = set.values.iter().map(|v| v[..plan.slots.len()].to_vec()).collect();
        projected.sort();
        projected.dedup();
        let set = ObservationSet { values: projected, ..set.clone() };
        let text = once.harness(&Mode::Inclusion { set: &set.values }, &values);
        (once, set, text)
    });
    let mut code = 0u8;
    for arch in &req.archs {
        let c = match &once {
            Some((p, s, t)) if !arch.rfe_safe() => {
                if text {
                    crate::output::report(&format!(
                        "  commit points on {}: its stores are not multi-copy atomic (no single memory order to read a commit order from): each call is checked to pass one commit point, and the observation against the set without the order\n",
                        arch.name
                    ));
                }
                inclusion(&lib, p, s, t, arch, &req, &map)?
            }
            _ => inclusion(&lib, &plan, &set, &harness, arch, &req, &map)?,
        };
        code = code.max(c);
    }
    Ok(code)
}

/// The observation set by lazy unrolling from `--unwind` up to `--max-unwind`; `Err(why)`
/// when the engine gave up.
fn observation_set(
    units: &[(String, String, crate::frontend::Options)],
    plan: &Plan,
    values: &[i64],
    req: &Request,
    popts: pipeline::Options,
    progress: bool,
    map: &mut SourceMap,
) -> Result<Result<ObservationSet, String>, Error> {
    let t0 = Instant::now();
    let text = plan.harness(&Mode::Serial, values);
    let mut prog = load(units, &text, popts.frontend.target, map)?;
    let sc = crate::arch::lookup("sc")?;
    crate::atomics::compile(&mut prog, sc, &popts.atomics);
    crate::inline::inline_leaves(&mut prog);
    crate::normalize::normalize(&mut prog);
    let watch = plan.watched();
    let mut unwind = req.verify.unwind.max(1);
    loop {
        let left = req.verify.deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let last = unwind >= req.args.max_unwind.max(req.verify.unwind);
        let mut opts = verify::bmc_options(&req.verify, left, false);
        opts.unwind = unwind;
        opts.unwinding_assertions = true;
        let mut tick = |n: usize| {
            if progress && n % 50 == 0 {
                eprint!("\rweakc: observation set: {n} observations so far");
            }
        };
        let e = bmc::enumerate(&prog, &opts, &watch, req.args.max_observations, &mut tick)?;
        if progress && e.values.len() >= 50 {
            eprintln!();
        }
        if let Some((loc, msg)) = &e.beyond_bound {
            if !last {
                unwind += 1;
                continue;
            }
            // The test does not terminate within the bound: no observation set to trust.
            return Err(Error::unsupported(
                *loc,
                format!("the test is not bounded: serial executions go beyond unwind {unwind} here ({msg}); raise --max-unwind if the loop ends later"),
            ));
        }
        if let Some(why) = e.stopped {
            return Ok(Err(why));
        }
        let mut values: Vec<Vec<i128>> = e.values;
        for v in &mut values {
            v.pop(); // the completion marker
        }
        values.sort();
        return Ok(Ok(ObservationSet {
            values,
            unwind,
            approximate: e.approximate.map(|(loc, what)| format!("{what} ({})", map.describe(loc))),
            time: t0.elapsed(),
        }));
    }
}

/// The inclusion check on `arch`: prints the result, returns the exit code.
#[allow(clippy::too_many_arguments)]
fn inclusion(
    lib: &[(String, String, crate::frontend::Options)],
    plan: &Plan,
    set: &ObservationSet,
    text: &str,
    arch: &'static Arch,
    req: &Request,
    map0: &SourceMap,
) -> Result<u8, Fail> {
    let mut unwind = set.unwind.max(req.verify.unwind);
    let popts = {
        let mut o = (req.pipeline)(arch);
        o.lazy_seed = Some(pipeline::LAZY_SEED);
        o
    };
    let json = req.verify.json;
    loop {
        let mut map = map0.clone();
        let t = Instant::now();
        let mut prog = load(lib, text, popts.frontend.target, &mut map).map_err(|e| (e, map.clone()))?;
        let mut a = pipeline::analyze_program(&mut prog, arch, &popts, map.clone(), t.elapsed(), 0).map_err(|e| (e, map.clone()))?;
        let route = if plan.commits != Commits::Off { verify::Route::Axiomatic } else { req.verify.route };
        // One search per architecture: the harness holds in every SC execution when the
        // observation set is the library's own (SC's), so a search among them finds nothing;
        // with --spec, `--mm sc` among the architectures asks that question itself.
        let o = verify::Options { unwind, route, no_sc_first: true, ..req.verify.clone() };
        let file = lib[0].0.clone();
        let subject = verify::Subject { file: &file, arch, strategy: req.strategy, buffer_size: req.buffer_size, title: format!("  inclusion check on {}:", arch.name) };
        let d = verify::decide(&mut a, &subject, &o).map_err(|e| (e, a.map.clone()))?;
        let outcome = &d.checked.last().outcome;
        // An execution beyond the bound: unroll further while allowed.
        let unwinding = outcome.failed.as_ref().is_some_and(|p| p.kind == bmc::PropertyKind::UnwindingAssertion) && d.checked.verdict() == Verdict::Unsafe;
        if unwinding && unwind < req.args.max_unwind {
            unwind += 1;
            continue;
        }
        let (report, code) = verify::render(&d, &subject, &o).map_err(|e| (e, d.map.clone()))?;
        let failed_here = outcome.failed.as_ref().is_some_and(|p| p.message == harness::OUTSIDE || p.message == harness::COMMIT_ONCE) && d.checked.verdict() == Verdict::Unsafe;
        let observation = if failed_here { decode(&outcome.trace, plan) } else { None };
        let once_failed = failed_here && outcome.failed.as_ref().is_some_and(|p| p.message == harness::COMMIT_ONCE);
        let commit_finding = match (plan.commits, &observation) {
            (Commits::Off, _) => None,
            _ if once_failed => Some(ONCE.to_string()),
            (_, Some(o)) => Some(commit_finding(plan, set, o)),
            (_, None) => None,
        };
        // An observation outside an incomplete set is not known to be wrong; a set that may
        // hold impossible observations proves nothing when everything is in it.
        let (verdict, code) = match (&d.checked.verdict(), &observation) {
            (Verdict::Unsafe, None) if unwinding => (
                Verdict::Unknown(format!(
                    "executions on {} run a loop past unwind {unwind} (--max-unwind): {}",
                    arch.name,
                    outcome.failed.as_ref().map(|p| p.message.as_str()).unwrap_or("")
                )),
                5,
            ),
            (Verdict::Safe { .. }, _) if set.approximate.is_some() => {
                (Verdict::Unknown(format!("every observation is in the set, but the set may hold observations C cannot produce: {}", set.approximate.as_deref().unwrap_or(""))), 5)
            }
            (v, _) => (v.clone(), code),
        };
        let nearest = observation.as_ref().map(|o| nearest(&set.values, o, 3)).unwrap_or_default();
        emit(req, plan, Some((arch, &set_summary(set))), &nearest, verdict, observation.as_deref(), commit_finding.as_deref(), json, &report);
        return Ok(code);
    }
}

fn set_summary(set: &ObservationSet) -> serde_json::Value {
    serde_json::json!({
        "size": set.values.len(), "unwind": set.unwind, "approximate": set.approximate,
        "seconds": set.time.as_secs_f64(),
    })
}

/// `--commit-points` decides on the built-in engine's axiomatic route (the stamps are clocks
/// of its encoding): not with `--engine instrument`, an external back end, or an
/// architecture that route has no model of.
fn commit_points_route(req: &Request) -> Result<(), Error> {
    if req.verify.route == verify::Route::Instrument {
        return Err(Error::Usage("--commit-points: the commit order is read from the built-in engine's axiomatic route, not the instrumented program (drop --engine instrument)".into()));
    }
    if let crate::backend::Choice::Only(b) = req.verify.backend {
        if b != crate::backend::Backend::Builtin {
            return Err(Error::Usage(format!("--commit-points needs the built-in engine (the commit order is read from its encoding), not --backend {}", b.name())));
        }
    }
    for arch in &req.archs {
        if !arch.relaxes_nothing() {
            verify::store_buffer_model(arch).map_err(|e| Error::Usage(format!("--commit-points needs the built-in engine's axiomatic route, which has no model of {}: {e}", arch.name)))?;
        }
    }
    Ok(())
}

const WRONG: &str = "the commit order does not explain the observation";
const ONCE: &str = "a call passed no commit point, or more than one, or one before any memory access of its own (`__weakc_commit()` must run exactly once per call, right after the access that commits it)";

/// What an observation outside the set says about the commit points: either some serial
/// order gives it (the commit order does not), or none does (not linearizable).
fn commit_finding(plan: &Plan, set: &ObservationSet, o: &[i128]) -> String {
    let n = plan.slots.len();
    if plan.commits == Commits::Once {
        return "not linearizable: no serial execution gives this observation".into();
    }
    let order = plan.show_order(&o[n..]);
    if set.values.iter().any(|s| s[..n] == o[..n]) {
        format!("{WRONG}: a serial execution gives this observation, but not the one in the commit order {order} (the commit points are misplaced, or the operations do not take effect at them: see the trace)")
    } else {
        format!("not linearizable: no serial execution gives this observation (commit order {order})")
    }
}

/// The observation of a counterexample: each observed global's value (written once by its
/// thread; `main` copies it into a local, which a trace may or may not show); with
/// `--commit-points`, then each thread call's place in the order of the stamps.
fn decode(trace: &[bmc::Step], plan: &Plan) -> Option<Vec<i128>> {
    let mut v = vec![None; plan.slots.len()];
    let ranked = if plan.commits == Commits::Order { plan.ranked_calls() } else { 0 };
    let mut stamps: Vec<Option<i128>> = vec![None; ranked];
    let int = |value: &str| value.split_whitespace().next().and_then(|x| x.parse::<i128>().ok());
    for st in trace {
        use bmc::StepKind::*;
        let (name, value) = match &st.kind {
            Write { object, value } | BufferedWrite { object, value } | Flushed { object, value } => (object, value),
            Assign { lhs, value } => (lhs, value),
            _ => continue,
        };
        if let Some(i) = (0..plan.slots.len()).find(|&i| *name == harness::observed(i) || *name == harness::global(i)) {
            v[i] = int(value).or(v[i]);
        }
        if let Some(k) = (0..ranked).find(|&k| *name == harness::stamp(k)) {
            stamps[k] = int(value).or(stamps[k]);
        }
    }
    let mut v: Vec<i128> = v.into_iter().collect::<Option<_>>()?;
    let stamps: Vec<i128> = stamps.into_iter().collect::<Option<_>>()?;
    if stamps.iter().any(|s| *s < 0) {
        // A call without exactly one commit point has no place in the order.
        v.extend(std::iter::repeat_n(-1, ranked));
    } else {
        // The harness keeps stamps apart: a call's place is how many stamps are below its.
        v.extend(stamps.iter().map(|s| stamps.iter().filter(|t| *t < s).count() as i128));
    }
    Some(v)
}

/// The `k` observations of `set` that differ from `o` in the fewest values.
pub fn nearest(set: &[Vec<i128>], o: &[i128], k: usize) -> Vec<Vec<i128>> {
    let mut v: Vec<(usize, &Vec<i128>)> = set.iter().map(|s| (s.iter().zip(o).filter(|(a, b)| a != b).count(), s)).collect();
    v.sort();
    v.into_iter().take(k).map(|(_, s)| s.clone()).collect()
}

/// Prints one architecture's result: the verify report, then the observation outside the
/// set and the nearest ones of the set (JSON: one object with both).
#[allow(clippy::too_many_arguments)]
fn emit(req: &Request, plan: &Plan, arch: Option<(&Arch, &serde_json::Value)>, nearest: &[Vec<i128>], verdict: Verdict, observation: Option<&[i128]>, commit: Option<&str>, json: bool, report: &str) {
    let verdict_text = match &verdict {
        Verdict::Safe { .. } => "SAFE".to_string(),
        Verdict::Unsafe => "FAILED".to_string(),
        Verdict::Unknown(w) => format!("UNKNOWN: {w}"),
    };
    if json && req.verify.sarif {
        stdout(report);
        return;
    }
    if json {
        let report: serde_json::Value = serde_json::from_str(report).unwrap_or(serde_json::Value::Null);
        let j = serde_json::json!({
            "test": plan.show_open(),
            "arch": arch.map(|a| a.0.name),
            "observation_set": arch.map(|a| a.1.clone()),
            "verdict": match &verdict { Verdict::Safe { .. } => "safe", Verdict::Unsafe => "failed", Verdict::Unknown(_) => "unknown" },
            "reason": match &verdict { Verdict::Unknown(w) => Some(w.clone()), _ => None },
            "observation": observation.map(|o| plan.show(o)),
            "nearest": nearest.iter().map(|n| plan.show(n)).collect::<Vec<_>>(),
            "commit_points": commit,
            "verify": report,
        });
        stdout(&(serde_json::to_string(&j).unwrap_or_default() + "\n"));
        return;
    }
    let mut s = String::new();
    s += report;
    if let Some(o) = observation {
        let what = if plan.commits != Commits::Off { "observation" } else { "observation outside the set" };
        s += &format!("  {what}: {}\n", plan.show(o));
        if let Some(c) = commit {
            s += &format!("  commit points: {c}\n");
        }
        if !nearest.is_empty() {
            s += "  nearest observations of the set:\n";
            for n in nearest {
                s += &format!("    {}\n", plan.show(n));
            }
        }
    }
    s += &format!("  CHECK{}: {verdict_text}\n", arch.map_or(String::new(), |a| format!(" {}", a.0.name)));
    crate::output::report(&s);
}
