//! `weakc verify` after the analysis: choosing the back end, instrumenting and deciding the
//! program ([`check`], with the fallback to buffer depth 1 when the built-in engine stops on
//! a memory guard), and presenting the result (header, progress, counterexample, verdict
//! line, JSON, execution graph). The CLI only parses flags and calls [`run`].

use crate::arch::Arch;
use crate::backend::{self, Backend, Choice, ExternalOptions, ExternalRun};
use crate::bmc::{self, BmcOptions, Outcome, PropertyKind, Verdict};
use crate::ir::Program;
use crate::pipeline::{self, Analysis};
use crate::select::{Selection, Strategy};
use crate::source::{Error, SourceMap};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Exit codes of `verify`, as CBMC's: 0 safe, 10 a property is violated; 5 unknown.
pub const EXIT_SAFE: u8 = 0;
pub const EXIT_VIOLATED: u8 = 10;
pub const EXIT_UNKNOWN: u8 = 5;

/// How `verify` decides a weak architecture (`--engine`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Route {
    /// The axiomatic route where the built-in engine runs and has the model (tso, pso), the
    /// instrumentation otherwise.
    #[default]
    Auto,
    /// Instrument the program (ESOP 2013) and decide it under SC with the chosen back end.
    Instrument,
    /// Decide the program itself under the architecture's axioms, with the built-in engine
    /// ([`bmc::StoreBufferModel`]).
    Axiomatic,
}

/// The built-in engine's axiomatic model of `arch`, or why it has none: store-buffer models
/// (multi-copy-atomic, read→read and read→write kept, write→read relaxed, write→write
/// relaxed or not, fences each ordering a product of directions), and models that keep no
/// pair by themselves (RMO, AArch64; Power and ARM with herd's propagation and observation
/// axioms, not `power-esop`).
pub fn store_buffer_model(arch: &Arch) -> Result<bmc::StoreBufferModel, String> {
    use crate::aeg::Dir::{R, W};
    use crate::arch::PairSet;
    let ppo = arch.ppo;
    if !arch.rfe_safe() && arch.fences.iter().any(|f| f.light && !f.orders.is_empty() && f.cumul == crate::arch::Cumul::None) {
        return Err(format!(
            "the built-in engine's axiomatic route follows herd's models, where lightweight fences are cumulative; {}'s are not (the ESOP suite's model, which only the instrumentation simulates)",
            arch.name
        ));
    }
    if ppo == PairSet::NONE {
        let fences = crate::ir::ALL_FENCES
            .iter()
            .map(|&f| {
                let r = arch.fence_rule(f);
                bmc::RelaxedFence { fence: f, orders: r.orders, strong: !r.light, cumulative: r.cumul != crate::arch::Cumul::None }
            })
            .filter(|x| !x.orders.is_empty())
            .collect();
        let relaxed = Some(bmc::Relaxed { fences, deps: arch.deps, acq_rel: arch.acq_rel, mca: arch.rfe_safe() });
        return Ok(bmc::StoreBufferModel { ww_relaxed: true, fences: vec![], relaxed });
    }
    if !arch.rfe_safe() {
        return Err(format!("the built-in engine's axiomatic route has no encoding of {}: stores are not multi-copy atomic and some pairs are kept", arch.name));
    }
    let ww_relaxed = ppo == PairSet::RR | PairSet::RW;
    if !ww_relaxed && ppo != PairSet::ALL.minus(PairSet::WR) {
        return Err(format!("the built-in engine's axiomatic route has no encoding of {}'s preserved program order", arch.name));
    }
    let mut fences = vec![];
    for f in crate::ir::ALL_FENCES {
        let orders = arch.fence_rule(f).orders;
        let with_ppo = orders | ppo;
        if with_ppo == PairSet::ALL {
            fences.push((f, bmc::FenceSides { before_r: true, before_w: true, after_r: true, after_w: true }));
            continue;
        }
        let own = orders.minus(ppo);
        if own.is_empty() {
            continue;
        }
        let sides = bmc::FenceSides {
            before_r: own.contains(R, R) || own.contains(R, W),
            before_w: own.contains(W, R) || own.contains(W, W),
            after_r: own.contains(R, R) || own.contains(W, R),
            after_w: own.contains(R, W) || own.contains(W, W),
        };
        let dirs = |r: bool, w: bool| [(r, R), (w, W)].into_iter().filter(|x| x.0).map(|x| x.1).collect::<Vec<_>>();
        for a in dirs(sides.before_r, sides.before_w) {
            for b in dirs(sides.after_r, sides.after_w) {
                if !with_ppo.contains(a, b) {
                    return Err(format!("{} on {}: it orders some pairs of directions but not all their combinations, which one clock cannot express", f.name(), arch.name));
                }
            }
        }
        fences.push((f, sides));
    }
    Ok(bmc::StoreBufferModel { ww_relaxed, fences, relaxed: None })
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub unwind: u32,
    /// Per-loop bounds by loop id (`main.0`), as `--unwindset` gives them.
    pub unwindset: HashMap<String, u32>,
    pub unwinding_assertions: bool,
    /// When the whole command must end (`--timeout`, counted from its start): every check
    /// gets the time left.
    pub deadline: Option<Instant>,
    pub backend: Choice,
    pub quiet: bool,
    pub json: bool,
    /// With `json`: print the report as SARIF 2.1.0 ([`crate::sarif::verify`]).
    pub sarif: bool,
    pub trace_dot: Option<PathBuf>,
    /// The built-in engine's memory guard in bytes (its check ends UNKNOWN there): below the
    /// process-wide guard ([`crate::guard`]), which ends weakc without a verdict.
    pub max_memory: u64,
    pub route: Route,
    /// `--context-bound N` (ESBMC only): interleavings with at most N context switches.
    pub context_bound: Option<u32>,
    /// `--no-sc-first`: no search among the SC executions beside ([`sc_first`]).
    pub no_sc_first: bool,
}

/// What `weakc verify` decides: the analysed program, instrumented for `arch`.
pub struct Subject<'a> {
    pub file: &'a str,
    pub arch: &'a Arch,
    pub strategy: Strategy,
    /// `--buffer-size`: the depth of the write buffers whose depth cannot be computed.
    pub buffer_size: u32,
    /// The report's first line (`weakc verify: FILE`).
    pub title: String,
}

/// One decision: the program instrumented at `buffer_size`, and what the engine said.
#[derive(Debug)]
pub struct Check {
    pub buffer_size: u32,
    pub outcome: Outcome,
}

/// The checks of one verification: the first at the requested buffer depth and, when the
/// engine stopped on a memory guard there, a second at depth 1 ([`check`]).
#[derive(Debug)]
pub struct Checked {
    /// One or two checks, the requested depth first.
    pub checks: Vec<Check>,
    /// Why a memory guard at the requested depth was not followed by a check at depth 1.
    pub no_fallback: Option<String>,
    /// Whether the program was instrumented (not for architectures that relax nothing).
    pub instrumented: bool,
    /// Behaviours of the architecture the instrumented program may lack
    /// ([`crate::rewrite::Summary::approximations`]): assertions that hold prove nothing.
    pub approximations: Vec<(crate::source::Loc, String)>,
    /// Behaviours the program has that the C source may not ([`Program::warnings`]): a
    /// violation found by an external verifier may rely on one, so it proves nothing either
    /// (the built-in engine tracks them per path: [`bmc::Outcome::warnings_tracked`]).
    pub doubts: Vec<(crate::source::Loc, String)>,
    /// Decided by the axiomatic route ([`Route::Axiomatic`]), not instrumented.
    pub axiomatic: bool,
    /// The violation was found among the sequentially consistent executions
    /// ([`bmc::verify_sc_first`]).
    pub under_sc: bool,
}

impl Checked {
    /// The depth that was asked for.
    pub fn requested(&self) -> u32 {
        self.checks[0].buffer_size
    }

    /// The check the result comes from (the last).
    pub fn last(&self) -> &Check {
        self.checks.last().expect("at least one check")
    }

    /// Whether the first check hit a memory guard and the program was checked again at
    /// depth 1.
    pub fn fell_back(&self) -> bool {
        self.checks.len() > 1
    }

    /// The verdict for the requested depth. Depth-1 behaviours are a subset of depth-N ones
    /// (and those of the architecture's): a violation at depth 1 is a violation, but
    /// assertions that hold at depth 1 say nothing about depth N.
    pub fn verdict(&self) -> Verdict {
        match self.verdict_of_checks() {
            Verdict::Safe { .. } if !self.approximations.is_empty() => {
                let (loc, why) = &self.approximations[0];
                let more = match self.approximations.len() - 1 {
                    0 => String::new(),
                    n => format!(" (and {n} more such place{})", if n == 1 { "" } else { "s" }),
                };
                Verdict::Unknown(format!(
                    "the assertions hold in the instrumented program, but it may lack behaviours of the architecture: line {}: {why}{more}",
                    loc.line
                ))
            }
            Verdict::Unsafe if !self.doubts.is_empty() => {
                let (loc, why) = &self.doubts[0];
                Verdict::Unknown(format!(
                    "a violation was found, but it may rely on an over-approximation of the program: line {}: {why}",
                    loc.line
                ))
            }
            v => v,
        }
    }

    /// Whether the engine itself gave up at a limit (time, memory guard), rather than its
    /// answer being doubted: an external verifier asked again would only be doubted the
    /// same way (instrumentation, front end), or would take the value the engine refused
    /// to trust (undefined behaviour, an unmodelled function's result) as any value.
    pub fn engine_gave_up(&self) -> bool {
        matches!(self.verdict_of_checks(), Verdict::Unknown(_)) && self.checks.iter().any(|c| c.outcome.stopped.is_some())
    }

    /// The engine's verdict, before the approximations and doubts are taken into account.
    pub fn verdict_of_checks(&self) -> Verdict {
        let first = &self.checks[0];
        let Some(second) = self.checks.get(1) else {
            return match (&first.outcome.verdict, &self.no_fallback) {
                (Verdict::Unknown(why), Some(n)) => Verdict::Unknown(format!("{why} ({n})")),
                (v, _) => v.clone(),
            };
        };
        let (n, m) = (first.buffer_size, second.buffer_size);
        let why1 = match &first.outcome.verdict {
            Verdict::Unknown(w) => w.clone(),
            v => format!("{v:?}"),
        };
        match &second.outcome.verdict {
            Verdict::Unsafe => Verdict::Unsafe,
            Verdict::Safe { .. } => Verdict::Unknown(format!(
                "at buffer depth {n}: {why1}; at buffer depth {m} the assertions hold, which proves nothing for depth {n}"
            )),
            Verdict::Unknown(why2) => Verdict::Unknown(format!("at buffer depth {n}: {why1}; at buffer depth {m}: {why2}")),
        }
    }

    /// The last check's outcome (its counterexample, if any) with [`Checked::verdict`].
    pub fn into_outcome(mut self) -> Outcome {
        let verdict = self.verdict();
        let mut o = self.checks.pop().expect("at least one check").outcome;
        o.verdict = verdict;
        o
    }
}

/// A verification engine: decides an instrumented program within the time given.
pub type Engine<'a> = dyn FnMut(&Program, Option<Duration>) -> Result<Outcome, Error> + 'a;

/// Instruments `a` for `arch` (the pairs of `selection`) at buffer depth `buffer_size` and
/// decides it with `engine` (given the program and the time left before `deadline`). When
/// the engine stops on a memory guard (formula size or resident memory, not the clock) and
/// a shallower instrumentation exists, the program is instrumented again at depth 1 and
/// decided with the time left; `on_fallback` is told the first check before that.
pub fn check(
    a: &mut Analysis,
    arch: &Arch,
    selection: &Selection,
    buffer_size: u32,
    deadline: Option<Instant>,
    engine: &mut Engine,
    on_fallback: &mut dyn FnMut(&Check),
) -> Result<Checked, Error> {
    let left = || deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let buffer_size = buffer_size.max(1);
    let instrumented = !arch.relaxes_nothing();
    let rw = pipeline::rewrite_at(a, arch, selection, &crate::rewrite::Options { buffer_size });
    let first = Check { buffer_size, outcome: engine(&rw.program, left())? };
    let depths = rw.summary.buffers;
    let approximations = rw.summary.approximations;
    drop(rw.program);
    let doubts = if first.outcome.warnings_tracked { vec![] } else { a.program.warnings.clone() };
    let mut done = Checked { checks: vec![first], no_fallback: None, instrumented, approximations, doubts, axiomatic: false, under_sc: false };
    if buffer_size == 1 || !instrumented || !done.checks[0].outcome.memory_guard_hit() {
        return Ok(done);
    }
    release_freed_memory();
    let rw = pipeline::rewrite_at(a, arch, selection, &crate::rewrite::Options { buffer_size: 1 });
    if rw.summary.buffers == depths {
        done.no_fallback = Some("every buffer depth was computed, none comes from --buffer-size: no smaller instrumentation to fall back to".into());
        return Ok(done);
    }
    if left() == Some(Duration::ZERO) {
        done.no_fallback = Some("no time left to check again at buffer depth 1".into());
        return Ok(done);
    }
    on_fallback(&done.checks[0]);
    let outcome = engine(&rw.program, left())?;
    done.checks.push(Check { buffer_size: 1, outcome });
    Ok(done)
}

/// Gives the memory the abandoned formula held back to the system, so that the resident
/// memory guard of the next check measures that check (glibc keeps freed memory otherwise).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe {
        libc::malloc_trim(0);
    }
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
            .map(|l| serde_json::json!({"id": l.id, "function": l.function, "file": map.name(l.loc), "line": l.loc.line, "instrumentation": helper(l), "spin": l.reduction == Some(bmc::Reduction::Spin), "wait": l.reduction == Some(bmc::Reduction::Wait)}))
            .collect();
        return serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
    }
    let mut s = String::new();
    for l in &loops {
        let at = if l.loc.line > 0 { map.describe(l.loc) } else { "-".into() };
        let spin = match l.reduction {
            Some(bmc::Reduction::Spin) => " (spin loop: entered once, whatever the bound)",
            Some(bmc::Reduction::Wait) => " (condition-wait loop: entered at most twice, whatever the bound)",
            None => "",
        };
        s.push_str(&format!("Loop {}: {}{}{}\n", l.id, at, if helper(l) { " (instrumentation)" } else { "" }, spin));
    }
    if loops.is_empty() {
        s.push_str("no loops\n");
    }
    s
}

fn print_progress(m: &str) {
    eprintln!("weakc: {m}");
}

/// The built-in engine's options for one check with `timeout` left.
pub fn bmc_options(o: &Options, timeout: Option<Duration>, progress: bool) -> BmcOptions {
    BmcOptions {
        unwind: o.unwind,
        unwindset: o.unwindset.clone(),
        unwinding_assertions: o.unwinding_assertions,
        timeout,
        max_clauses: Some(bmc::DEFAULT_MAX_CLAUSES),
        max_memory: Some(o.max_memory),
        progress: if progress { Some(print_progress) } else { None },
        model: None,
        cancel: None,
    }
}

/// The back end `run` uses, and the memory model when it takes the axiomatic route.
pub fn route(s: &Subject, o: &Options) -> Result<(backend::Selection, Option<bmc::StoreBufferModel>), Error> {
    let needs = if o.trace_dot.is_some() {
        Some("--trace-dot")
    } else if !o.unwindset.is_empty() {
        // External verifiers number loops their own way (CBMC: by back edge, inner first).
        Some("--unwindset")
    } else if o.route == Route::Axiomatic {
        Some("--engine axiomatic")
    } else {
        None
    };
    let sel = backend::select(o.backend, needs)?;
    let model = match o.route {
        _ if s.arch.relaxes_nothing() => None,
        Route::Instrument => None,
        Route::Axiomatic => Some(store_buffer_model(s.arch).map_err(|e| Error::Usage(format!("--engine axiomatic: {e}")))?),
        Route::Auto if sel.backend == Backend::Builtin => store_buffer_model(s.arch).ok(),
        Route::Auto => None,
    };
    Ok((sel, model))
}

/// How long `--backend auto` lets an external verifier try a program the built-in engine
/// gave up on, when `--timeout` sets no limit: an interleaving-enumerating verifier (ESBMC)
/// can take hours on programs the built-in engine decides in a second.
pub const SECOND_OPINION_LIMIT: Duration = Duration::from_secs(300);

/// Verifies the analysed program `a` as `s` says and prints the result (see [`check`] for
/// the fallback to buffer depth 1). With `--backend auto` the built-in engine decides; when
/// it gives up (UNKNOWN) and CBMC or ESBMC is installed, that verifier gets the instrumented
/// program, within the time left or [`SECOND_OPINION_LIMIT`]. Returns the exit code.
pub fn run(a: &mut Analysis, s: &Subject, o: &Options) -> Result<u8, Error> {
    let d = decide(a, s, o)?;
    let (report, code) = report(&d.checked, s, &d.decided_by, o, &d.map)?;
    if o.json {
        // Machine formats are never painted.
        crate::output::stdout(&report);
    } else {
        crate::output::report(&report);
    }
    Ok(code)
}

/// What [`decide`] found: the checks, the source map of the program they decided, and the
/// back end whose verdict it is.
pub struct Decided {
    pub checked: Checked,
    pub map: SourceMap,
    pub decided_by: backend::Selection,
}

/// [`run`] without the final report (the text it prints as it goes, when not quiet or JSON).
pub fn decide(a: &mut Analysis, s: &Subject, o: &Options) -> Result<Decided, Error> {
    let (sel, model) = route(s, o)?;
    let text = !o.quiet && !o.json;
    let mut out = String::new();
    // (chosen once: choosing again after a lazy selection would solve the integer program
    // over every cycle it found)
    let mut chosen = None;
    let (mut checked, mut map) = match model {
        Some(m) => (run_axiomatic(a, s, o, &sel, m)?, a.map.clone()),
        None => {
            let selection = chosen.insert(selection_for(a, s)?);
            run_instrumented(a, s, o, &sel, selection, true)?
        }
    };
    let mut decided_by = sel.clone();
    let second = sel.second_opinion().filter(|_| checked.engine_gave_up());
    if let (Verdict::Unknown(why), Some(second)) = (checked.verdict(), second) {
        let limit = o.deadline.map(|d| d.saturating_duration_since(Instant::now())).unwrap_or(SECOND_OPINION_LIMIT);
        if !limit.is_zero() {
            if text {
                out.push_str(&format!(
                    "  the built-in engine gave up: {why}
  trying {} on the instrumented program (time limit {:.0} s)
",
                    second.backend.name(),
                    limit.as_secs_f64()
                ));
                flush(&mut out);
            }
            let o2 = Options { deadline: Some(Instant::now() + limit), ..o.clone() };
            let selection = match chosen.take() {
                Some(c) => c,
                None => selection_for(a, s)?,
            };
            let (c2, map2) = run_instrumented(a, s, &o2, &second, &selection, false)?;
            match c2.verdict() {
                Verdict::Unknown(why2) => {
                    let last = checked.checks.len() - 1;
                    checked.checks[last].outcome.verdict = Verdict::Unknown(format!("{why}; then {}: {why2}", second.backend.name()));
                }
                _ => {
                    checked = c2;
                    map = map2;
                    decided_by = second;
                }
            }
        }
    }
    flush(&mut out);
    Ok(Decided { checked, map, decided_by })
}

/// Whether the built-in engine also looks among the SC executions
/// ([`bmc::verify_sc_first`]): every architecture allows them, so a violation there is one
/// on the architecture too, and most bugs of real concurrent programs need no weak-memory
/// behaviour; the SC formula is the smallest of all (no store forwarding, no relaxed program
/// order, no instrumentation). Not under SC itself, nor with `--no-sc-first`.
fn sc_first(s: &Subject, o: &Options) -> bool {
    !s.arch.relaxes_nothing() && !o.no_sc_first
}

/// The delay pairs to instrument, the event graph built first if `verify` deferred it.
fn selection_for(a: &mut Analysis, s: &Subject) -> Result<Selection, Error> {
    pipeline::complete(a, s.arch)?;
    Ok(pipeline::choose(a, s.arch, s.strategy).selection)
}

/// The verdict report of a decision, and the exit code.
pub fn render(d: &Decided, s: &Subject, o: &Options) -> Result<(String, u8), Error> {
    report(&d.checked, s, &d.decided_by, o, &d.map)
}

/// The instrumentation route of [`run`]: header (the first line only when `first`), the
/// program instrumented with the delays of `selection` and decided by `sel`'s back end.
fn run_instrumented(a: &mut Analysis, s: &Subject, o: &Options, sel: &backend::Selection, selection: &Selection, first: bool) -> Result<(Checked, SourceMap), Error> {
    let progress = !o.quiet && !o.json && std::io::stderr().is_terminal();
    let text = !o.quiet && !o.json;
    let mut out = String::new();
    let bounds = bounds_text(o);
    let depth = if s.arch.relaxes_nothing() { String::new() } else { format!(", buffer depth {}", s.buffer_size.max(1)) };
    if text {
        if first {
            out.push_str(&format!("{}\n", s.title));
        }
        out.push_str(&format!(
            "  architecture {} ({} critical cycles, {} delay pairs{depth}), backend {} ({}), {bounds}\n",
            s.arch.name,
            a.cycles.cycles.len(),
            selection.pairs.len(),
            sel.backend.name(),
            sel.reason
        ));
        // The header first: a long run shows what it is doing.
        flush(&mut out);
    }
    let mut map = a.map.clone();
    let source_map = a.map.clone();
    let header = format!("Instrumented by weakc {} for {} from {}.", env!("CARGO_PKG_VERSION"), s.arch.name, s.file);
    // The program itself, for the search among its SC executions.
    let original = (sel.backend == Backend::Builtin && sc_first(s, o)).then(|| a.program.clone());
    let found_sc = std::cell::Cell::new(false);
    let mut engine = |prog: &Program, timeout: Option<Duration>| -> Result<Outcome, Error> {
        match sel.backend {
            Backend::Builtin => match &original {
                Some(orig) => {
                    let (outcome, found) = bmc::verify_sc_first(orig, prog, &bmc_options(o, timeout, progress))?;
                    found_sc.set(found == bmc::Found::Sc);
                    Ok(outcome)
                }
                None => bmc::verify(prog, &bmc_options(o, timeout, progress)),
            },
            b => {
                if progress {
                    print_progress(&format!("running {} on the instrumented program", b.name()));
                }
                let c_text = crate::cprint::print_program(
                    prog,
                    &source_map,
                    &crate::cprint::PrintOptions { line_directives: true, header: header.clone(), generated_name: backend::INPUT_NAME.into() },
                );
                let eo = ExternalOptions { unwind: o.unwind, unwinding_assertions: o.unwinding_assertions, timeout, context_bound: o.context_bound };
                Ok(match backend::run_external(sel, &c_text, &eo)? {
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
                        stopped: None,
                        warnings_tracked: false,
                    },
                })
            }
        }
    };
    let mut on_fallback = |first: &Check| {
        let why = match &first.outcome.verdict {
            Verdict::Unknown(w) => w.as_str(),
            _ => "",
        };
        if text {
            out.push_str(&format!(
                "  buffer depth {}: {why}\n  checking again at buffer depth 1 (--buffer-size 1): a violation found there is one at depth {} too\n",
                first.buffer_size, first.buffer_size
            ));
            flush(&mut out);
        } else if progress {
            print_progress(&format!("buffer depth {}: {why}; checking again at buffer depth 1", first.buffer_size));
        }
    };
    let mut checked = check(a, s.arch, selection, s.buffer_size, o.deadline, &mut engine, &mut on_fallback)?;
    checked.under_sc = found_sc.get();
    flush(&mut out);
    Ok((checked, map))
}

/// [`run`] on the axiomatic route: the program itself, decided by the built-in engine under
/// `model` (no cycles, no instrumentation, no buffer depth).
fn run_axiomatic(a: &Analysis, s: &Subject, o: &Options, sel: &backend::Selection, model: bmc::StoreBufferModel) -> Result<Checked, Error> {
    let progress = !o.quiet && !o.json && std::io::stderr().is_terminal();
    let mut out = String::new();
    if !o.quiet && !o.json {
        out.push_str(&format!("{}\n", s.title));
        out.push_str(&format!(
            "  architecture {} (axiomatic: the program under the architecture's axioms, {}), backend builtin ({}), {}\n",
            s.arch.name,
            if model.relaxed.is_some() { "no bound on how far accesses are reordered" } else { "store buffers unbounded" },
            sel.reason,
            bounds_text(o)
        ));
        flush(&mut out);
    }
    let left = o.deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let bo = BmcOptions { model: Some(model), ..bmc_options(o, left, progress) };
    let (outcome, found) = if sc_first(s, o) { bmc::verify_sc_first(&a.program, &a.program, &bo)? } else { (bmc::verify(&a.program, &bo)?, bmc::Found::Own) };
    Ok(Checked {
        checks: vec![Check { buffer_size: 0, outcome }],
        no_fallback: None,
        instrumented: false,
        approximations: vec![],
        // The built-in engine tracks the warnings per path.
        doubts: vec![],
        axiomatic: true,
        under_sc: found == bmc::Found::Sc,
    })
}

/// The printing step of [`run`]: counterexample, verdict line (or JSON), execution graph.
fn report(checked: &Checked, s: &Subject, sel: &backend::Selection, o: &Options, map: &SourceMap) -> Result<(String, u8), Error> {
    let outcome = &checked.last().outcome;
    let verdict = checked.verdict();
    let bounds = bounds_text(o);
    let arch_label = match (checked.axiomatic, checked.under_sc) {
        (_, true) => format!("{}, an SC execution", s.arch.name),
        (true, _) => format!("{}, axiomatic", s.arch.name),
        _ => s.arch.name.to_string(),
    };
    let (line, code) = verdict_line(&verdict, checked, &arch_label, &bounds);
    if let Some(path) = &o.trace_dot {
        // Written only when there is a counterexample; an earlier file is left alone.
        if let Some(g) = &outcome.graph {
            crate::source::write_atomically(path, &crate::execgraph::dot(g, map))?;
        }
    }
    let mut out = String::new();
    if o.json {
        let verdict_word = |v: &Verdict| match v {
            Verdict::Safe { .. } => "safe",
            Verdict::Unsafe => "unsafe",
            Verdict::Unknown(_) => "unknown",
        };
        let reason = |v: &Verdict| match v {
            Verdict::Unknown(w) => Some(w.clone()),
            _ => None,
        };
        let checks: Vec<serde_json::Value> = checked
            .checks
            .iter()
            .map(|c| {
                serde_json::json!({
                    "buffer_size": c.buffer_size, "verdict": verdict_word(&c.outcome.verdict),
                    "reason": reason(&c.outcome.verdict), "memory_guard": c.outcome.memory_guard_hit(),
                    "clauses": c.outcome.stats.clauses, "peak_clauses": c.outcome.stats.peak_clauses,
                })
            })
            .collect();
        let j = serde_json::json!({
            "file": s.file, "arch": s.arch.name, "backend": sel.backend.name(), "backend_reason": sel.reason,
            "engine": if checked.under_sc { "sc" } else if checked.axiomatic { "axiomatic" } else { "instrument" },
            "unwind": o.unwind, "unwindset": o.unwindset, "unwinding_assertions": o.unwinding_assertions,
            "buffer_size": checked.instrumented.then_some(checked.requested()),
            "verdict": verdict_word(&verdict),
            "complete": matches!(verdict, Verdict::Safe { complete: true }),
            "reason": reason(&verdict),
            "checks": checks,
            "fell_back": checked.fell_back(),
            "counterexample_buffer_size": (checked.instrumented && outcome.failed.is_some()).then_some(checked.last().buffer_size),
            "failed": outcome.failed.as_ref().map(|p| serde_json::json!({"kind": format!("{:?}", p.kind), "file": map.name(p.loc), "line": p.loc.line, "message": p.message})),
            "trace": crate::trace::json(outcome, map),
            "stats": {
                "events": outcome.stats.events, "threads": outcome.stats.threads, "vars": outcome.stats.vars,
                "clauses": outcome.stats.clauses, "symex_s": outcome.stats.symex_time.as_secs_f64(),
                "encode_s": outcome.stats.encode_time.as_secs_f64(), "solve_s": outcome.stats.solve_time.as_secs_f64(),
            },
        });
        let j = if o.sarif { crate::sarif::verify(&j, &crate::sarif::Base::current()) } else { j };
        out.push_str(&serde_json::to_string_pretty(&j).unwrap_or_default());
        out.push('\n');
        return Ok((out, code));
    }
    if !o.quiet {
        for w in &outcome.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        if checked.under_sc && verdict == Verdict::Unsafe {
            out.push_str("  the violation needs no weak-memory behaviour: it was found among the sequentially consistent executions, which every architecture allows\n");
        }
        if let (Some(p), Verdict::Unsafe | Verdict::Unknown(_)) = (&outcome.failed, &verdict) {
            let what = if p.kind == PropertyKind::UnwindingAssertion { "unwinding assertion" } else { "assertion" };
            let at_depth = if checked.fell_back() { format!(", buffer depth {}", checked.last().buffer_size) } else { String::new() };
            out.push_str(&format!("\nCounterexample ({what} at {}: {}{at_depth}):\n", map.describe(p.loc), p.message));
            for l in crate::trace::render(outcome, map) {
                out.push_str(&format!("  {l}\n"));
            }
            out.push('\n');
        }
    }
    match (&outcome.failed, &verdict) {
        // --quiet: one line per finding, where a compiler would put it.
        (Some(p), Verdict::Unsafe) if o.quiet => out.push_str(&format!("{}: {line}: {}", map.describe(p.loc), p.message)),
        _ => out.push_str(&line),
    }
    out.push('\n');
    Ok((out, code))
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
    if let Some(n) = o.context_bound {
        b.push_str(&format!(", interleavings with at most {n} context switches"));
    }
    b
}

/// One line, CBMC's words, and always the bounds it holds within (and, after the fallback
/// of [`check`], the buffer depth the verdict was found at).
fn verdict_line(verdict: &Verdict, checked: &Checked, arch: &str, bounds: &str) -> (String, u8) {
    match verdict {
        Verdict::Safe { complete: true } => (format!("VERIFICATION SUCCESSFUL ({arch}; {bounds}; the bounds were shown sufficient)"), EXIT_SAFE),
        Verdict::Safe { complete: false } => (
            format!("VERIFICATION SUCCESSFUL up to the bounds ({arch}; {bounds}; some loops or external functions were not fully explored)"),
            EXIT_SAFE,
        ),
        Verdict::Unsafe if checked.fell_back() => (
            format!(
                "VERIFICATION FAILED ({arch}; {bounds}; found at buffer depth {}, the check at buffer depth {} stopped at the memory guard)",
                checked.last().buffer_size,
                checked.requested()
            ),
            EXIT_VIOLATED,
        ),
        Verdict::Unsafe => (format!("VERIFICATION FAILED ({arch}; {bounds})"), EXIT_VIOLATED),
        Verdict::Unknown(why) => (format!("VERIFICATION UNKNOWN ({arch}; {bounds}): {why}"), EXIT_UNKNOWN),
    }
}

/// Prints and clears the text `out` (a closed stdout ends the output quietly, and the text
/// is painted when colour is on: [`crate::output::report`]).
fn flush(out: &mut String) {
    crate::output::report(out);
    out.clear();
}
