//! `weakc trace-check`: is a recorded trace of memory events sequentially consistent (or,
//! with `--mm`, allowed by an architecture)? Qadeer's method for memory systems ("Verifying
//! sequential consistency on shared-memory multiprocessors by model checking", §5–6): the
//! constraint graph of processor order and the per-location order a write order induces is
//! acyclic iff the trace is SC, and a violating cycle reduces to a *nice* one (at most one
//! edge per processor and per location).

pub mod arch;
pub mod check;
pub mod graph;
pub mod outcomes;
pub mod parse;

use crate::output::stdout;
use crate::source::{Error, SourceMap};
use check::{Limits, Mode, Outcome, Verdict};
use graph::{is_nice, Order, Step, Via};
use parse::{Kind, Trace};
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct TraceCheckArgs {
    /// Trace files (format in the README: `P0: W x 1; R y 0 @5`, one processor per line).
    #[arg(required = true, value_name = "TRACE")]
    pub traces: Vec<PathBuf>,
    /// Decide for this architecture with the axiomatic engine (small traces: one register
    /// per read) instead of sequential consistency; timestamps are then not used.
    #[arg(long = "mm", value_name = "ARCH", default_value = "sc")]
    pub mm: String,
    /// Search for a write order even when the writes carry timestamps (by default they are
    /// the simple witness: the trace is judged under that order).
    #[arg(long)]
    pub ignore_timestamps: bool,
    /// Print the serialisation that shows a trace SC (every event, in order).
    #[arg(long)]
    pub witness: bool,
    /// Time limit per trace in seconds (the write-order search, the axiomatic engine).
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Pairs of writes the write-order search may decide for a trace without timestamps.
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    pub max_pairs: usize,
    /// Output: text, or JSON (one object per trace and line).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The TRACE files are herd7 or litmus7 logs of this litmus test: check each final state
    /// they list (is it SC, or with --mm allowed by the architecture?).
    #[arg(long, value_name = "TEST.litmus")]
    pub litmus: Option<PathBuf>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Exit codes as `verify`'s: 0 all SC (allowed), 10 some trace violates, 5 some undecided.
pub fn main(args: TraceCheckArgs) -> Result<u8, (Error, SourceMap)> {
    let model = if args.mm == "sc" {
        None
    } else {
        Some(crate::arch::lookup(&args.mm).map_err(|e| (e, SourceMap::default()))?)
    };
    if let Some(test) = &args.litmus {
        return litmus_logs(&args, test, model);
    }
    let mut code = 0u8;
    for path in &args.traces {
        let mut map = SourceMap::default();
        let name = path.display().to_string();
        let text = crate::source::read_input(path).map_err(|e| (e, SourceMap::default()))?;
        let file = map.add_file(&name, text);
        let t0 = Instant::now();
        let text = map.files[file as usize].text.as_deref().unwrap_or_default();
        let trace = parse::parse(text, file).map_err(|e| (e, map.clone()))?;
        let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
        let (out, c) = match model {
            None => {
                let lim = Limits {
                    deadline: t0 + timeout,
                    ignore_timestamps: args.ignore_timestamps,
                    max_pairs: args.max_pairs,
                };
                let o = check::decide(&trace, &lim).map_err(|e| (e, map.clone()))?;
                let c = match o.verdict {
                    Verdict::Sc { .. } => 0,
                    Verdict::NotSc { .. } => 10,
                    Verdict::Unknown(_) => 5,
                };
                (
                    render_sc(
                        &name,
                        &map,
                        &trace,
                        &o,
                        args.format,
                        args.witness,
                        t0.elapsed(),
                    ),
                    c,
                )
            }
            Some(arch) => {
                let r = arch::allowed(&trace, arch, timeout);
                let (verdict, reason, c) = match &r {
                    Ok(a) if a.reachable == Some(true) => ("allowed", None, 0),
                    Ok(a) if a.reachable == Some(false) => ("forbidden", None, 10),
                    Ok(a) => ("unknown", a.reason.clone(), 5),
                    Err(why) => ("unknown", Some(why.clone()), 5),
                };
                (
                    render_arch(
                        &name,
                        &trace,
                        arch.name,
                        verdict,
                        reason,
                        args.format,
                        t0.elapsed(),
                    ),
                    c,
                )
            }
        };
        stdout(&out);
        // Violations (10) outrank undecided traces (5), as in `verify`.
        code = code.max(c);
    }
    Ok(code)
}

/// `--litmus TEST`: every final state of every log, decided for the model.
fn litmus_logs(args: &TraceCheckArgs, test_path: &PathBuf, model: Option<&'static crate::arch::Arch>) -> Result<u8, (Error, SourceMap)> {
    let mut map = SourceMap::default();
    let test = crate::litmus::parse::parse_file(test_path, &mut map).map_err(|e| (e, map.clone()))?;
    let arch = match model {
        Some(a) => a,
        None => crate::arch::lookup("sc").map_err(|e| (e, SourceMap::default()))?,
    };
    let (yes, no) = if model.is_none() { ("sc", "not_sc") } else { ("allowed", "forbidden") };
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    let mut code = 0u8;
    for path in &args.traces {
        let name = path.display().to_string();
        let log = crate::source::read_input(path).map_err(|e| (e, SourceMap::default()))?;
        let states = outcomes::states(&log);
        if states.is_empty() {
            let mut m = SourceMap::default();
            let f = m.add_file(&name, log.clone());
            let loc = crate::source::Loc { file: f, line: 1, col: 0, len: 0 };
            return Err((Error::syntax(loc, "no final states in this log (herd7's `States` lines or litmus7's `Histogram` lines, e.g. `0:EAX=0; 1:EAX=0;`)"), m));
        }
        let mut rows = vec![];
        for s in &states {
            let (verdict, reason) = match outcomes::decide(&test, s, arch, timeout) {
                Ok((Some(true), _)) => (yes, None),
                Ok((Some(false), _)) => (no, None),
                Ok((None, why)) => ("unknown", why),
                Err(e) => ("unknown", Some(e.to_string())),
            };
            code = code.max(match verdict {
                v if v == no => 10,
                "unknown" => 5,
                _ => 0,
            });
            rows.push((s, verdict, reason));
        }
        let bad = rows.iter().filter(|r| r.1 == no).count();
        let out = match args.format {
            Format::Json => {
                let st: Vec<serde_json::Value> = rows.iter().map(|(s, v, r)| json!({"state": s.text, "line": s.line, "count": s.count, "verdict": v, "reason": r})).collect();
                serde_json::to_string(&json!({"file": name, "test": test.name, "model": arch.name, "states": st})).expect("json") + "\n"
            }
            Format::Text => {
                let what = if model.is_none() { "NOT SC".to_string() } else { format!("FORBIDDEN on {}", arch.name) };
                let mut o = format!("{name}: litmus test {} under {}: {bad} of {} observed states {what}\n", test.name, arch.name, rows.len());
                let w = rows.iter().map(|r| r.0.text.len()).max().unwrap_or(0);
                for (s, v, r) in &rows {
                    let times = s.count.map(|c| format!("{c} times, ")).unwrap_or_default();
                    let say = match *v {
                        x if x == no && model.is_none() => format!("NOT SC: no SC execution of {} ends in this state", test.name),
                        x if x == no => format!("FORBIDDEN: no execution {} allows ends in this state", arch.name),
                        "unknown" => format!("UNKNOWN: {}", r.clone().unwrap_or_default()),
                        _ if model.is_none() => "SC".into(),
                        _ => "allowed".into(),
                    };
                    o += &format!("  {:<w$}  ({times}line {})  {say}\n", s.text, s.line);
                }
                o
            }
        };
        stdout(&out);
    }
    Ok(code)
}

fn shape(t: &Trace) -> String {
    format!(
        "{} events, {} processors, {} locations",
        t.events.len(),
        t.procs.len(),
        t.locs.len()
    )
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Timestamps => "timestamps",
        Mode::Searched => "searched",
    }
}

/// The relation a cycle step stands for, in herd's names.
fn relation(t: &Trace, o: &Order, s: &Step) -> String {
    match s.via {
        Via::Proc(_) => "po".into(),
        Via::Loc(l) => {
            let x = &t.locs[l];
            let (a, b) = (&t.events[s.from], &t.events[s.to]);
            let r = match (a.kind, b.kind) {
                (Kind::Write, Kind::Write) => "co",
                (Kind::Write, Kind::Read) if o.rf[s.to] == Some(s.from) => "rf",
                (Kind::Write, Kind::Read) => "co;rf",
                (Kind::Read, Kind::Write) => "fr",
                _ => "fr;rf",
            };
            format!("{r} {x}")
        }
    }
}

fn at(map: &SourceMap, t: &Trace, e: usize) -> String {
    let s = t.events[e].span;
    format!("{}:{}:{}", map.name(s), s.line, s.col + 1)
}

fn render_sc(
    name: &str,
    map: &SourceMap,
    t: &Trace,
    o: &Outcome,
    format: Format,
    witness: bool,
    took: Duration,
) -> String {
    let mode = mode_name(o.mode);
    let how = match o.mode {
        Mode::Timestamps => "write order: the simple witness (timestamps)".to_string(),
        Mode::Searched => format!("write order: searched, {} candidates refuted", o.refuted),
    };
    let cycle_json = |c: &[Step], ord: &Order| -> serde_json::Value {
        c.iter()
            .map(|s| {
                let sp = t.events[s.from].span;
                json!({"event": t.describe(s.from), "line": sp.line, "col": sp.col + 1, "next": relation(t, ord, s)})
            })
            .collect()
    };
    match format {
        Format::Json => {
            let mut j = json!({"file": name, "model": "sc", "write_order": if o.mode == Mode::Timestamps { "timestamps" } else { "any" }, "events": t.events.len(), "processors": t.procs.len(), "locations": t.locs.len(), "mode": mode, "refuted": o.refuted, "seconds": took.as_secs_f64()});
            match &o.verdict {
                Verdict::Sc { witness: w, .. } => {
                    j["verdict"] = json!("sc");
                    if witness {
                        j["witness"] = w.iter().map(|&e| json!({"event": t.describe(e), "line": t.events[e].span.line, "col": t.events[e].span.col + 1})).collect();
                    }
                }
                Verdict::NotSc { cycle, order, why } => {
                    j["verdict"] = json!("not_sc");
                    j["reason"] = json!(why);
                    if let Some(ord) = order {
                        j["cycle"] = cycle_json(cycle, ord);
                        j["nice"] = json!(is_nice(cycle));
                        j["k"] = json!(cycle
                            .iter()
                            .filter(|s| matches!(s.via, Via::Proc(_)))
                            .count());
                    }
                }
                Verdict::Unknown(why) => {
                    j["verdict"] = json!("unknown");
                    j["reason"] = json!(why);
                }
            }
            serde_json::to_string(&j).expect("json") + "\n"
        }
        Format::Text => {
            let mut s = String::new();
            match &o.verdict {
                Verdict::Sc { witness: w, .. } => {
                    s += &format!("{name}: SEQUENTIALLY CONSISTENT ({}; {how})\n", shape(t));
                    if witness {
                        for (i, &e) in w.iter().enumerate() {
                            s += &format!(
                                "  {:>6}. {:<20} {}\n",
                                i + 1,
                                t.describe(e),
                                at(map, t, e)
                            );
                        }
                    }
                }
                Verdict::NotSc { cycle, order, why } => {
                    let under = if o.mode == Mode::Timestamps {
                        " under the simple witness"
                    } else {
                        ""
                    };
                    s += &format!(
                        "{name}: NOT SEQUENTIALLY CONSISTENT{under} ({}; {how})\n",
                        shape(t)
                    );
                    if let Some(ord) = order {
                        let k = cycle
                            .iter()
                            .filter(|s| matches!(s.via, Via::Proc(_)))
                            .count();
                        let kind = if is_nice(cycle) {
                            format!("a {k}-nice cycle")
                        } else {
                            format!("a cycle of {} steps", cycle.len())
                        };
                        s += &format!("  {why}: {kind}\n");
                        let width = cycle
                            .iter()
                            .map(|st| t.describe(st.from).len())
                            .max()
                            .unwrap_or(0);
                        for (i, st) in cycle.iter().enumerate() {
                            let back = if i + 1 == cycle.len() {
                                " (back to the first)"
                            } else {
                                ""
                            };
                            s += &format!(
                                "    {:<width$}  {:<28} --{}-->{back}\n",
                                t.describe(st.from),
                                at(map, t, st.from),
                                relation(t, ord, st)
                            );
                        }
                    } else {
                        s += &format!("  {why}\n");
                    }
                }
                Verdict::Unknown(why) => s += &format!("{name}: UNKNOWN ({}): {why}\n", shape(t)),
            }
            s + &format!("  ({:.3} s)\n", took.as_secs_f64())
        }
    }
}

fn render_arch(
    name: &str,
    t: &Trace,
    arch: &str,
    verdict: &str,
    reason: Option<String>,
    format: Format,
    took: Duration,
) -> String {
    match format {
        Format::Json => {
            let j = json!({"file": name, "model": arch, "events": t.events.len(), "processors": t.procs.len(), "locations": t.locs.len(), "mode": "axiomatic", "verdict": verdict, "reason": reason, "seconds": took.as_secs_f64()});
            serde_json::to_string(&j).expect("json") + "\n"
        }
        Format::Text => {
            let head = match verdict {
                "allowed" => format!("ALLOWED on {arch}"),
                "forbidden" => format!(
                    "FORBIDDEN on {arch}: no execution of the architecture reads these values"
                ),
                _ => format!("UNKNOWN on {arch}: {}", reason.unwrap_or_default()),
            };
            format!(
                "{name}: {head} ({}; axiomatic engine, any write order)\n  ({:.3} s)\n",
                shape(t),
                took.as_secs_f64()
            )
        }
    }
}
