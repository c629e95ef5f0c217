//! `weakc verify` after instrumentation: choosing the back end, running it, and presenting
//! the result (header, progress, counterexample, verdict line, JSON, execution graph). The
//! CLI only parses flags and calls [`run`].

use crate::backend::{self, Backend, Choice, ExternalOptions, ExternalRun};
use crate::bmc::{self, BmcOptions, Outcome, PropertyKind, Verdict};
use crate::ir::Program;
use crate::source::{Error, SourceMap};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

/// Exit codes of `verify`, as CBMC's: 0 safe, 10 a property is violated; 5 unknown.
pub const EXIT_SAFE: u8 = 0;
pub const EXIT_VIOLATED: u8 = 10;
pub const EXIT_UNKNOWN: u8 = 5;

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub unwind: u32,
    /// Per-loop bounds by loop id (`main.0`), as `--unwindset` gives them.
    pub unwindset: HashMap<String, u32>,
    pub unwinding_assertions: bool,
    pub timeout: Option<Duration>,
    pub backend: Choice,
    pub quiet: bool,
    pub json: bool,
    pub trace_dot: Option<PathBuf>,
}

/// What the header says about the instrumentation.
pub struct Context<'a> {
    pub file: &'a str,
    pub arch: &'a str,
    pub cycles: usize,
    pub pairs: usize,
    /// The instrumented program printed as C (for external back ends).
    pub c_text: &'a dyn Fn() -> String,
}

/// Parses `--unwindset`: `ID:N` pairs separated by commas, each ID a loop of `prog`.
pub fn parse_unwindset(spec: &str, prog: &Program) -> Result<HashMap<String, u32>, Error> {
    let known: Vec<String> = bmc::loops(prog).into_iter().map(|l| l.id).collect();
    let mut out = HashMap::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (id, n) = part
            .rsplit_once(':')
            .ok_or_else(|| Error::Usage(format!("--unwindset: `{part}` is not LOOP:N (e.g. main.0:5)")))?;
        let n: u32 = n.trim().parse().map_err(|_| Error::Usage(format!("--unwindset: `{n}` in `{part}` is not a number")))?;
        let id = id.trim();
        if !known.iter().any(|k| k == id) {
            let list = if known.is_empty() { "the program has no loops".to_string() } else { format!("known loops: {}", known.join(", ")) };
            return Err(Error::Usage(format!("--unwindset: no loop `{id}` ({list}; see --show-loops)")));
        }
        out.insert(id.to_string(), n);
    }
    Ok(out)
}

/// `--show-loops`: every loop of the program that is verified, with its id and location.
pub fn show_loops(prog: &Program, map: &SourceMap, json: bool) -> String {
    let loops = bmc::loops(prog);
    // The instrumentation's helpers have loops of their own (buffer scans): said so.
    let helper = |l: &bmc::LoopInfo| l.loc.line == 0 || crate::trace::internal(&l.function) || l.function.contains("__g");
    if json {
        let v: Vec<serde_json::Value> = loops
            .iter()
            .map(|l| serde_json::json!({"id": l.id, "function": l.function, "file": map.name(l.loc), "line": l.loc.line, "instrumentation": helper(l)}))
            .collect();
        return serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
    }
    let mut s = String::new();
    for l in &loops {
        let at = if l.loc.line > 0 { map.describe(l.loc) } else { "-".into() };
        s.push_str(&format!("Loop {}: {}{}\n", l.id, at, if helper(l) { " (instrumentation)" } else { "" }));
    }
    if loops.is_empty() {
        s.push_str("no loops\n");
    }
    s
}

fn print_progress(m: &str) {
    eprintln!("weakc: {m}");
}

/// Verifies `prog` (the instrumented program; `map` its sources) and prints the result.
/// Returns the exit code.
pub fn run(prog: &Program, map: &SourceMap, cx: &Context, o: &Options) -> Result<u8, Error> {
    let needs = if o.trace_dot.is_some() {
        Some("--trace-dot")
    } else if !o.unwindset.is_empty() {
        // External verifiers number loops their own way (CBMC: by back edge, inner first).
        Some("--unwindset")
    } else {
        None
    };
    let sel = backend::select(o.backend, needs)?;
    let progress = !o.quiet && !o.json && std::io::stderr().is_terminal();
    let mut out = String::new();
    let bounds = bounds_text(o);
    if !o.quiet && !o.json {
        out.push_str(&format!("weakc verify: {}\n", cx.file));
        out.push_str(&format!(
            "  architecture {} ({} critical cycles, {} delay pairs), backend {} ({}), {bounds}\n",
            cx.arch,
            cx.cycles,
            cx.pairs,
            sel.backend.name(),
            sel.reason
        ));
        // The header first: a long run shows what it is doing.
        flush(&mut out);
    }
    let mut map = map.clone();
    let outcome = match sel.backend {
        Backend::Builtin => {
            let opts = BmcOptions {
                unwind: o.unwind,
                unwindset: o.unwindset.clone(),
                unwinding_assertions: o.unwinding_assertions,
                timeout: o.timeout,
                max_clauses: Some(bmc::DEFAULT_MAX_CLAUSES),
                max_memory: Some(bmc::DEFAULT_MAX_MEMORY),
                progress: if progress { Some(print_progress) } else { None },
            };
            bmc::verify(prog, &opts)?
        }
        b => {
            if progress {
                print_progress(&format!("running {} on the instrumented program", b.name()));
            }
            let eo = ExternalOptions { unwind: o.unwind, unwinding_assertions: o.unwinding_assertions, timeout: o.timeout };
            match backend::run_external(&sel, &(cx.c_text)(), &eo)? {
                ExternalRun::Done(r) => {
                    let messages = backend::assertion_messages(prog, &map);
                    backend::to_outcome(&r, &mut map, o.unwinding_assertions, &messages)
                }
                ExternalRun::TimedOut(t) => Outcome {
                    verdict: Verdict::Unknown(format!("{} was stopped at the time limit ({:.1} s)", b.name(), t.as_secs_f64())),
                    failed: None,
                    trace: vec![],
                    stats: Default::default(),
                    warnings: vec![],
                    graph: None,
                },
            }
        }
    };
    let (line, code) = verdict_line(&outcome, cx.arch, &bounds);
    if let Some(path) = &o.trace_dot {
        // Written only when there is a counterexample; an earlier file is left alone.
        if let Some(g) = &outcome.graph {
            crate::source::write_atomically(path, &crate::execgraph::dot(g, &map))?;
        }
    }
    if o.json {
        let j = serde_json::json!({
            "file": cx.file, "arch": cx.arch, "backend": sel.backend.name(), "backend_reason": sel.reason,
            "unwind": o.unwind, "unwindset": o.unwindset, "unwinding_assertions": o.unwinding_assertions,
            "verdict": match outcome.verdict { Verdict::Safe { .. } => "safe", Verdict::Unsafe => "unsafe", Verdict::Unknown(_) => "unknown" },
            "complete": matches!(outcome.verdict, Verdict::Safe { complete: true }),
            "reason": match &outcome.verdict { Verdict::Unknown(w) => Some(w.clone()), _ => None },
            "failed": outcome.failed.as_ref().map(|p| serde_json::json!({"kind": format!("{:?}", p.kind), "file": map.name(p.loc), "line": p.loc.line, "message": p.message})),
            "trace": crate::trace::json(&outcome, &map),
        });
        out.push_str(&serde_json::to_string_pretty(&j).unwrap_or_default());
        out.push('\n');
        flush(&mut out);
        return Ok(code);
    }
    if !o.quiet {
        for w in &outcome.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        if let (Some(p), Verdict::Unsafe | Verdict::Unknown(_)) = (&outcome.failed, &outcome.verdict) {
            let what = if p.kind == PropertyKind::UnwindingAssertion { "unwinding assertion" } else { "assertion" };
            out.push_str(&format!("\nCounterexample ({what} at {}: {}):\n", map.describe(p.loc), p.message));
            for l in crate::trace::render(&outcome, &map) {
                out.push_str(&format!("  {l}\n"));
            }
            out.push('\n');
        }
    }
    out.push_str(&line);
    out.push('\n');
    flush(&mut out);
    Ok(code)
}

fn bounds_text(o: &Options) -> String {
    let mut b = format!("unwind {}", o.unwind);
    if !o.unwindset.is_empty() {
        let mut v: Vec<String> = o.unwindset.iter().map(|(k, n)| format!("{k}:{n}")).collect();
        v.sort();
        b.push_str(&format!(", unwindset {}", v.join(",")));
    }
    if !o.unwinding_assertions {
        b.push_str(", no unwinding assertions");
    }
    b
}

/// One line, CBMC's words, and always the bounds it holds within.
fn verdict_line(outcome: &Outcome, arch: &str, bounds: &str) -> (String, u8) {
    match &outcome.verdict {
        Verdict::Safe { complete: true } => (format!("VERIFICATION SUCCESSFUL ({arch}; {bounds}; the bounds were shown sufficient)"), EXIT_SAFE),
        Verdict::Safe { complete: false } => (
            format!("VERIFICATION SUCCESSFUL up to the bounds ({arch}; {bounds}; some loops or external functions were not fully explored)"),
            EXIT_SAFE,
        ),
        Verdict::Unsafe => (format!("VERIFICATION FAILED ({arch}; {bounds})"), EXIT_VIOLATED),
        Verdict::Unknown(why) => (format!("VERIFICATION UNKNOWN ({arch}; {bounds}): {why}"), EXIT_UNKNOWN),
    }
}

/// Prints and clears `out`. A closed stdout (`| head`) is not an error worth a panic.
fn flush(out: &mut String) {
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(out.as_bytes());
    let _ = so.flush();
    out.clear();
}
