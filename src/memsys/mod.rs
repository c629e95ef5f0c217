//! `weakc memsys`: is a memory-system protocol sequentially consistent? Qadeer's method
//! ("Verifying sequential consistency on shared-memory multiprocessors by model checking",
//! §8): for k = 1 … min(N, M), an observer beside the protocol looks for a run whose
//! constraint graph under the simple witness has a k-nice cycle; the built-in bounded model
//! checker explores the runs up to a depth. A cycle found is checked again on the run's
//! trace with any write order (`trace-check`'s search): a run that is SC after all shows only
//! that the simple witness is not a witness for the protocol (UNKNOWN), not a bug.

pub mod harness;
pub mod run;

use crate::bmc::{self, BmcOptions, Verdict};
use crate::output::stdout;
use crate::source::{Error, SourceMap};
use crate::tracecheck;
use harness::{Bounds, Shape};
use run::Run;
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct MemsysArgs {
    /// The protocol: C with guarded commands (shape in the README).
    #[arg(value_name = "PROTOCOL.c")]
    pub protocol: PathBuf,
    /// Processors (the macro PROCESSORS in the protocol).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 2)]
    pub processors: usize,
    /// Locations (the macro LOCATIONS in the protocol).
    #[arg(long, short = 'm', value_name = "M", default_value_t = 2)]
    pub locations: usize,
    /// Steps of a run explored (each an enabled command, or none).
    #[arg(long, value_name = "D", default_value_t = 10)]
    pub depth: usize,
    /// Only this cycle size (default: every k from 1 to min(N, M)).
    #[arg(long, value_name = "K")]
    pub k: Option<usize>,
    /// Look only for canonical cycles (processors and locations 0, 1, … in order): enough
    /// for a protocol symmetric in processor and location ids (the paper's Assumptions 3
    /// and 4), and faster; by default any distinct processors and locations.
    #[arg(long)]
    pub canonical: bool,
    /// Loop bound inside the protocol's commands.
    #[arg(long, value_name = "U", default_value_t = 4)]
    pub unwind: u32,
    /// Time limit per k in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600.0)]
    pub timeout: f64,
    /// Write the run found as a DOT graph (the cycle in red).
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Write the run's memory events as a trace for `weakc trace-check`.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Macros for the protocol (`-D NAME` or `-D NAME=VALUE`).
    #[arg(short = 'D', value_name = "MACRO")]
    pub defines: Vec<String>,
    /// Output: text, or JSON (one object per k and line).
    #[arg(long, value_enum, default_value_t = tracecheck::Format::Text)]
    pub format: tracecheck::Format,
}

/// What one k gave.
enum Answer {
    /// No k-nice cycle within the depth; `complete` when the protocol's loops were within
    /// `--unwind` on every path.
    NoCycle { complete: bool },
    /// A run with the cycle; `sc` says whether the run is SC with some other write order.
    Cycle { run: Run, sc: tracecheck::check::Verdict },
    /// The protocol's own assertion, or causality, failed.
    Assertion { run: Run, message: String },
    Unknown(String),
}

/// Exit codes as `verify`'s: 0 no cycle within the bounds for any k, 10 a run that is not
/// SC (or a failed assertion), 5 undecided.
pub fn main(args: MemsysArgs) -> Result<u8, (Error, SourceMap)> {
    let mut map = SourceMap::default();
    let usage = |m: String| (Error::Usage(m), SourceMap::default());
    if args.processors == 0 || args.locations == 0 || args.depth == 0 {
        return Err(usage("--processors, --locations and --depth must be at least 1".into()));
    }
    let kmax = args.processors.min(args.locations);
    let ks: Vec<usize> = match args.k {
        Some(k) if k == 0 || k > kmax => return Err(usage(format!("--k must be between 1 and min(N, M) = {kmax}"))),
        Some(k) => vec![k],
        None => (1..=kmax).collect(),
    };
    let name = args.protocol.display().to_string();
    let text = crate::source::read_input(&args.protocol).map_err(|e| (e, SourceMap::default()))?;
    let mut fopts = crate::frontend::Options { unit: true, ..Default::default() };
    fopts.defines.push(format!("PROCESSORS={}", args.processors));
    fopts.defines.push(format!("LOCATIONS={}", args.locations));
    fopts.defines.extend(args.defines.iter().cloned());
    // `#include "…"` finds files beside the protocol.
    if let Some(d) = args.protocol.parent().filter(|d| !d.as_os_str().is_empty()) {
        fopts.include_dirs.push(d.to_path_buf());
    }
    let alone = crate::frontend::load_str(&name, &text, &fopts, &mut map).map_err(|e| (e, map.clone()))?;
    let shape = harness::shape(&alone).map_err(|e| (e, map.clone()))?;
    let mut code = 0u8;
    for &k in &ks {
        let t0 = Instant::now();
        let b = Bounds { processors: args.processors, locations: args.locations, depth: args.depth, k, canonical: args.canonical };
        let answer = check_k(&name, &text, &fopts, &shape, &b, &args)?;
        let took = t0.elapsed();
        let c = match &answer {
            Answer::NoCycle { .. } => 0,
            Answer::Cycle { sc: tracecheck::check::Verdict::NotSc { .. }, .. } | Answer::Assertion { .. } => 10,
            _ => 5,
        };
        if let Answer::Cycle { run, .. } | Answer::Assertion { run, .. } = &answer {
            write_outputs(&args, &shape, run)?;
        }
        stdout(&render(&name, &shape, &b, &answer, &args, took));
        code = code.max(c);
        if c == 10 {
            break;
        }
    }
    Ok(code)
}

fn write_outputs(args: &MemsysArgs, shape: &Shape, run: &Run) -> Result<(), (Error, SourceMap)> {
    let out = |path: &PathBuf, text: String| crate::source::write_atomically(path, &text).map_err(|e| (e, SourceMap::default()));
    if let Some(p) = &args.dot {
        out(p, run.dot(shape))?;
    }
    if let Some(p) = &args.trace {
        out(p, run.trace_text(args.processors))?;
    }
    Ok(())
}

/// How many runs whose cycle is no witness (SC with another write order) are set aside
/// before the answer is UNKNOWN: the solver's first run is only one of the runs with a cycle.
const RETRIES: usize = 8;

/// Decides one k: a run whose k-nice cycle is SC with another write order is not an answer,
/// so it is excluded and another run is looked for. The runs set aside do have a cycle under
/// the simple witness, so finding no other run is not "no cycle": the answer is then the
/// first such run (UNKNOWN), as it is when the retries run out.
fn check_k(name: &str, text: &str, fopts: &crate::frontend::Options, shape: &Shape, b: &Bounds, args: &MemsysArgs) -> Result<Answer, (Error, SourceMap)> {
    let mut exclude: Vec<Run> = vec![];
    let mut first_sc: Option<Answer> = None;
    loop {
        let a = check_k_excluding(name, text, fopts, shape, b, args, &exclude)?;
        match a {
            Answer::Cycle { ref run, sc: tracecheck::check::Verdict::Sc { .. } } if exclude.len() < RETRIES => {
                exclude.push(run.clone());
                first_sc.get_or_insert(a);
            }
            Answer::NoCycle { .. } | Answer::Cycle { sc: tracecheck::check::Verdict::Sc { .. }, .. } => return Ok(first_sc.unwrap_or(a)),
            a => return Ok(a),
        }
    }
}

/// Builds the harness for one k (without the runs in `exclude`), links it with the protocol
/// and decides it.
fn check_k_excluding(name: &str, text: &str, fopts: &crate::frontend::Options, shape: &Shape, b: &Bounds, args: &MemsysArgs, exclude: &[Run]) -> Result<Answer, (Error, SourceMap)> {
    let h = harness::harness(shape, b, exclude);
    let hname = format!("<memsys harness k={}>", b.k);
    let hopts = crate::frontend::Options { defines: fopts.defines.clone(), ..Default::default() };
    let mut map = SourceMap::default();
    let prog = crate::frontend::load_texts(&[(&hname, &h, &hopts), (name, text, fopts)], &mut map).map_err(|e| (e, map.clone()))?;
    let mut unwindset = HashMap::new();
    unwindset.insert("main.0".to_string(), b.depth as u32);
    let opts = BmcOptions {
        unwind: args.unwind,
        unwindset,
        unwinding_assertions: true,
        timeout: Some(Duration::from_secs_f64(args.timeout.max(0.001))),
        max_memory: Some(bmc::DEFAULT_MAX_MEMORY),
        ..Default::default()
    };
    let o = bmc::verify(&prog, &opts).map_err(|e| (e, map.clone()))?;
    let harness_file = map.find(&hname);
    Ok(match o.verdict {
        Verdict::Safe { complete } => Answer::NoCycle { complete },
        Verdict::Unknown(why) => Answer::Unknown(why),
        Verdict::Unsafe => {
            let run = run::decode(&o.trace, shape, b.k);
            let failed = o.failed.expect("a failed property");
            let is_cycle = Some(failed.loc.file) == harness_file && failed.message.ends_with("-nice cycle");
            if failed.kind == bmc::PropertyKind::UnwindingAssertion {
                Answer::Unknown(format!("a loop of the protocol runs more than --unwind {} times ({}:{})", args.unwind, map.name(failed.loc), failed.loc.line))
            } else if is_cycle && run.cycle.len() == b.k {
                let sc = recheck(&run, b.processors);
                Answer::Cycle { run, sc }
            } else if is_cycle {
                Answer::Unknown("the counterexample's cycle could not be read back from its trace".into())
            } else {
                let at = if Some(failed.loc.file) == harness_file { "the harness".to_string() } else { format!("{}:{}", map.name(failed.loc), failed.loc.line) };
                Answer::Assertion { run, message: format!("{} ({at})", failed.message) }
            }
        }
    })
}

/// Whether the run is SC with any write order: `trace-check`'s search on its events.
fn recheck(run: &Run, processors: usize) -> tracecheck::check::Verdict {
    let text = run.trace_text(processors);
    let trace = match tracecheck::parse::parse(&text, 0) {
        Ok(t) => t,
        Err(e) => return tracecheck::check::Verdict::Unknown(format!("the run's trace: {e}")),
    };
    let lim = tracecheck::check::Limits { deadline: Instant::now() + Duration::from_secs(60), ignore_timestamps: true, max_pairs: 2_000_000 };
    match tracecheck::check::decide(&trace, &lim) {
        Ok(o) => o.verdict,
        Err(e) => tracecheck::check::Verdict::Unknown(e.to_string()),
    }
}

/// Why a cycle under the simple witness is not a verdict, when it is not.
fn not_decided(sc: &tracecheck::check::Verdict) -> Option<String> {
    match sc {
        tracecheck::check::Verdict::NotSc { .. } => None,
        tracecheck::check::Verdict::Sc { .. } => Some("the run is SC with another write order: the simple witness is not a witness for this protocol".into()),
        tracecheck::check::Verdict::Unknown(why) => Some(format!("whether another write order makes the run SC is undecided: {why}")),
    }
}

fn render(name: &str, shape: &Shape, b: &Bounds, a: &Answer, args: &MemsysArgs, took: Duration) -> String {
    let bounds = format!(
        "{} processors, {} locations, depth {}, {} cycles, unwind {}",
        b.processors,
        b.locations,
        b.depth,
        if b.canonical { "canonical" } else { "any" },
        args.unwind
    );
    let k = b.k;
    let run_json = |run: &Run| -> serde_json::Value { (0..run.steps.len()).map(|i| json!(run.describe(shape, i))).collect() };
    let cycle_json = |run: &Run| -> serde_json::Value {
        let n = run.cycle.len();
        run.cycle
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| {
                let next = run.cycle[(i + 1) % n].0;
                json!({"processor": run.events[x].proc, "location": run.events[y].loc, "from_step": run.events[x].step + 1, "to_step": run.events[y].step + 1, "location_edge": run.relation(y, next), "next_step": run.events[next].step + 1})
            })
            .collect()
    };
    if args.format == tracecheck::Format::Json {
        let mut j = json!({"file": name, "k": k, "processors": b.processors, "locations": b.locations, "depth": b.depth, "canonical": b.canonical, "unwind": args.unwind, "seconds": took.as_secs_f64()});
        match a {
            Answer::NoCycle { complete } => {
                j["verdict"] = json!("no_cycle");
                j["complete"] = json!(complete);
            }
            Answer::Cycle { run, sc } => {
                j["verdict"] = json!(if matches!(sc, tracecheck::check::Verdict::NotSc { .. }) { "not_sc" } else { "unknown" });
                if let Some(why) = not_decided(sc) {
                    j["reason"] = json!(why);
                }
                j["run"] = run_json(run);
                j["cycle"] = cycle_json(run);
            }
            Answer::Assertion { run, message, .. } => {
                j["verdict"] = json!("assertion");
                j["reason"] = json!(message);
                j["run"] = run_json(run);
            }
            Answer::Unknown(why) => {
                j["verdict"] = json!("unknown");
                j["reason"] = json!(why);
            }
        }
        return serde_json::to_string(&j).expect("json") + "\n";
    }
    let mut s = String::new();
    let steps = |s: &mut String, run: &Run| {
        let marked: HashMap<usize, String> = run
            .cycle
            .iter()
            .enumerate()
            .flat_map(|(i, &(x, y))| [(run.events[x].step, format!("a{i}")), (run.events[y].step, format!("b{i}"))])
            .collect();
        for i in 0..run.steps.len() {
            let m = marked.get(&i).map(|m| format!("  <- {m}")).unwrap_or_default();
            *s += &format!("    {:>3}. {}{m}\n", i + 1, run.describe(shape, i));
        }
    };
    match a {
        Answer::NoCycle { complete } => {
            let note = if *complete { "" } else { " (some loop of the protocol was cut at --unwind: runs beyond it were not explored)" };
            s += &format!("{name}: k={k}: no {k}-nice cycle in runs of up to {} steps ({bounds}){note}\n", b.depth);
        }
        Answer::Cycle { run, sc } => {
            match sc {
                tracecheck::check::Verdict::NotSc { .. } => s += &format!("{name}: k={k}: NOT SEQUENTIALLY CONSISTENT: a run of {} steps with a {k}-nice cycle ({bounds})\n", run.steps.len()),
                _ => s += &format!(
                    "{name}: k={k}: UNKNOWN: a run of {} steps has a {k}-nice cycle under the simple witness, but {} ({bounds})\n",
                    run.steps.len(),
                    not_decided(sc).unwrap_or_default()
                ),
            }
            s += "  run:\n";
            steps(&mut s, run);
            s += "  cycle:\n";
            let n = run.cycle.len();
            for (i, &(x, y)) in run.cycle.iter().enumerate() {
                let next = run.cycle[(i + 1) % n].0;
                s += &format!("    {:<16} (step {:>2})  --po-->\n", run.event_text(x), run.events[x].step + 1);
                s += &format!("    {:<16} (step {:>2})  --{} l{}-->{}\n", run.event_text(y), run.events[y].step + 1, run.relation(y, next), run.events[y].loc, if i + 1 == n { " (back to the first)" } else { "" });
            }
        }
        Answer::Assertion { run, message, .. } => {
            s += &format!("{name}: k={k}: ASSERTION FAILED: {message}, after a run of {} steps ({bounds})\n  run:\n", run.steps.len());
            steps(&mut s, run);
        }
        Answer::Unknown(why) => s += &format!("{name}: k={k}: UNKNOWN: {why} ({bounds})\n"),
    }
    s + &format!("  ({:.2} s)\n", took.as_secs_f64())
}
