//! The stages wired together: source file → normalised IR → event graph → critical cycles →
//! delay pairs → instrumented program. The CLI and the tests drive weakc through here.

use crate::aeg::{self, Aeg, BuildOptions, Dir, EventId, SiteId};
use crate::arch::Arch;
use crate::cycles::{self, CycleSet, Limits};
use crate::frontend;
use crate::ir::{Fence, Program};
use crate::rewrite::{self, FenceEffect, Model, Plan, Rewritten};
use crate::select::{self, PairKind, Selection, Strategy};
use crate::source::{Error, SourceMap};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

/// [`Options::lazy_seed`] for instrument and verify: enough cycles that small programs are
/// enumerated completely (and their selection needs no check), few enough to stay fast.
pub const LAZY_SEED: usize = 2000;

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub frontend: frontend::Options,
    /// How atomics and locks compile ([`crate::atomics`]).
    pub atomics: crate::atomics::Options,
    pub build: BuildOptions,
    pub limits: Limits,
    /// Stop the first cycle search after this many critical cycles (or [`SEED_STEPS`]
    /// search steps, or a tenth of the time budget): [`choose`] completes the selection
    /// lazily (`select::lazy`) from them.
    /// `None`: the search runs to `limits` (for listing cycles).
    pub lazy_seed: Option<usize>,
    /// Time budget of the lazy selection (`None`: the search's, `limits.time_budget`). When
    /// it runs out, every relaxable pair on a cycle of the event graph is delayed.
    pub selection_timeout: Option<Duration>,
    /// Leave the event graph and the cycle search to [`complete`], called before [`choose`]
    /// by whoever instruments: `verify` needs them only where it instruments, not under SC
    /// nor on the axiomatic route, and on large programs they cost more than deciding the
    /// program.
    pub defer_graph: bool,
}

/// Search steps of the first cycle search of the lazy selection (about half a second on
/// this project's 2-core machine): a bound of work, not time, so that where it binds (large
/// programs) the seed, and with it the selection, does not depend on the machine's speed.
/// (A tenth of the time budget stays as a guard.)
const SEED_STEPS: u64 = 40_000_000;

/// Wall-clock time of each stage, for the summary and the benchmarks.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Timings {
    pub parse: Duration,
    pub normalize: Duration,
    pub event_graph: Duration,
    pub cycles: Duration,
    pub selection: Duration,
    pub emit: Duration,
}

pub struct Analysis {
    pub map: SourceMap,
    /// The normalised program (what the event graph and the rewriter refer to).
    pub program: Program,
    pub aeg: Aeg,
    pub cycles: CycleSet,
    pub timings: Timings,
    /// Lines of the input file (for throughput figures).
    pub lines: usize,
    /// The search limits asked for, with the lazy selection's time budget.
    pub limits: Limits,
    /// [`choose`] completes an incomplete cycle list lazily ([`Options::lazy_seed`]).
    pub lazy: bool,
    /// [`Options::defer_graph`]: `aeg` and `cycles` are empty until [`complete`] builds them
    /// with these options.
    pub deferred: Option<GraphOptions>,
}

/// What [`complete`] needs: how to build the event graph and the first cycle search's limits.
#[derive(Clone, Debug)]
pub struct GraphOptions {
    build: BuildOptions,
    seed: Limits,
}

/// Front end, normalisation, event graph and critical cycles for one file.
pub fn analyze(path: &Path, arch: &Arch, opts: &Options) -> Result<Analysis, Error> {
    analyze_with_sources(path, arch, opts).map_err(|(e, _)| e)
}

/// Like [`analyze`], but a failure comes with the files the front end had read: an error
/// inside an included header can only be rendered with the header's name and text.
pub fn analyze_with_sources(path: &Path, arch: &Arch, opts: &Options) -> Result<Analysis, (Error, SourceMap)> {
    analyze_units(&[(path.to_path_buf(), opts.frontend.clone())], arch, opts)
}

/// [`analyze_with_sources`] for the translation units of one program, each preprocessed with
/// its own options and, when there are several, linked ([`frontend::load_units`]).
pub fn analyze_units(units: &[(std::path::PathBuf, frontend::Options)], arch: &Arch, opts: &Options) -> Result<Analysis, (Error, SourceMap)> {
    let mut map = SourceMap::default();
    let t = Instant::now();
    let mut program = match frontend::load_units(units, &mut map) {
        Ok(p) => p,
        Err(e) => return Err((e, map)),
    };
    let parse = t.elapsed();
    // The front end registered each unit with its text: no second read.
    let names: Vec<String> = units.iter().map(|(p, _)| p.display().to_string()).collect();
    let lines = map.files.iter().filter(|f| names.contains(&f.name)).filter_map(|f| f.text.as_deref()).map(|t| t.lines().count()).sum();
    let fallback = map.clone();
    analyze_program(&mut program, arch, opts, map, parse, lines).map_err(|e| (e, fallback))
}

pub fn analyze_program(
    program: &mut Program,
    arch: &Arch,
    opts: &Options,
    map: SourceMap,
    parse: Duration,
    lines: usize,
) -> Result<Analysis, Error> {
    let mut timings = Timings { parse, ..Timings::default() };
    let t = Instant::now();
    crate::atomics::compile(program, arch, &opts.atomics);
    crate::inline::inline_leaves(program);
    crate::normalize::normalize(program);
    timings.normalize = t.elapsed();
    let limits = Limits { time_budget: opts.selection_timeout.unwrap_or(opts.limits.time_budget), ..opts.limits.clone() };
    let seed = match opts.lazy_seed {
        Some(n) => Limits {
            max_cycles: n.min(opts.limits.max_cycles),
            time_budget: opts.limits.time_budget / 10,
            step_budget: Some(SEED_STEPS),
            ..opts.limits.clone()
        },
        None => opts.limits.clone(),
    };
    let mut a = Analysis {
        map,
        program: program.clone(),
        aeg: Aeg::default(),
        cycles: CycleSet::default(),
        timings,
        lines,
        limits,
        lazy: opts.lazy_seed.is_some(),
        deferred: Some(GraphOptions { build: opts.build.clone(), seed }),
    };
    if !opts.defer_graph {
        complete(&mut a, arch)?;
    }
    Ok(a)
}

/// Builds the event graph and searches the critical cycles of an analysis whose
/// [`Options::defer_graph`] left them out (nothing when they are there).
pub fn complete(a: &mut Analysis, arch: &Arch) -> Result<(), Error> {
    let Some(g) = a.deferred.take() else { return Ok(()) };
    let t = Instant::now();
    a.aeg = aeg::build(&a.program, &g.build)?;
    a.timings.event_graph = t.elapsed();
    let t = Instant::now();
    a.cycles = cycles::critical_cycles(&a.aeg, arch, &g.seed);
    a.timings.cycles = t.elapsed();
    Ok(())
}

/// The rewriter's view of an architecture.
pub fn model_of(arch: &Arch) -> Model {
    let mut fences = HashMap::new();
    for &f in crate::arch::ALL_FENCES.iter() {
        let o = |a, b| arch.fence_orders(f, a, b);
        let flush_writes = o(Dir::W, Dir::R);
        fences.insert(
            f,
            FenceEffect {
                flush_writes,
                mark_writes: !flush_writes && o(Dir::W, Dir::W),
                flush_reads: o(Dir::R, Dir::R) || o(Dir::R, Dir::W),
            },
        );
    }
    // Fences the table does not list order nothing.
    fences.entry(Fence::Compiler).or_default();
    // One marking mechanism serves every write-ordering fence: B-cumulative only if all are
    // (a weaker simulation of a cumulative one only adds behaviours). Where no thread reads
    // another's buffered write (rfe safe), B-cumulativity constrains nothing: a later write
    // may then wait in the buffer behind the marked ones instead of flushing them.
    let lw_b_cumulative = !arch.rfe_safe() && fences.iter().all(|(&f, e)| !e.mark_writes || arch.fence_cumulative(f));
    Model {
        ww_preserved: arch.ppo.contains(Dir::W, Dir::W),
        lw_b_cumulative,
        ctrl_orders_writes: arch.deps.ctrl.contains(Dir::R, Dir::W),
        ctrl_isync_orders_reads: arch.deps.ctrl_isync.contains(Dir::R, Dir::R),
        rfi_relaxed: !arch.rfi_safe(),
        dd_rfi: arch.deps.dd_rfi,
        rfe_relaxed: !arch.rfe_safe(),
        fences,
    }
}

/// Turns selected delay pairs into what the rewriter instruments: the first event of every
/// pair is delayed (a write enters the buffer; a read enters the read set). For an `rfe`,
/// so are the writes fenced before its write in program order: the reader may see the
/// buffered write while they are still buffered (lwsync is not B-cumulative from a write),
/// and they can only wait in the buffer if they entered it. For a read delayed past a later
/// event, so are its thread's writes to the read's object in between: the read may then be
/// satisfied after them while they wait in the buffer (coherence only requires it to read
/// something older, see the rewriter's `Hold`), and their own thread may read them first.
///
/// Lightweight fences (`lwsync`, `eieio`): a pair only such a fence orders is selected only
/// where a cycle relaxes the fence (see `cycles::herd`). Then the fence does not complete
/// the pair's read ([`Plan::lw_free`]), nor hold the pair's second write behind its first
/// ([`Plan::lw_pass`]: that pair only, the fence still orders the thread's other writes).
/// Likewise for an `rfe` whose B-cumulativity a cycle relaxes. And see [`lw_detours`].
pub fn plan_of(aeg: &Aeg, arch: &Arch, cycles: &[crate::cycles::Cycle], sel: &Selection) -> Plan {
    let mut plan = Plan::default();
    let light_ww: Vec<(EventId, EventId)> = aeg
        .pairs
        .iter()
        .filter(|(&(a, b), info)| aeg.event(a).dir == Dir::W && aeg.event(b).dir == Dir::W && arch.light_ordered(Dir::W, Dir::W, info))
        .map(|(&k, _)| k)
        .collect();
    // Per rfe relation: the writes before its write whose lightweight fence a cycle through
    // both relaxes (B-cumulativity relaxed with it).
    let mut rfe_light: HashMap<(EventId, EventId), Vec<EventId>> = HashMap::new();
    if !light_ww.is_empty() {
        let light_set: std::collections::HashSet<(EventId, EventId)> = light_ww.iter().copied().collect();
        for c in cycles {
            let n = c.edges.len();
            for (i, e) in c.edges.iter().enumerate() {
                let prev = &c.edges[(i + n - 1) % n];
                if matches!(e.kind, crate::cycles::EdgeKind::Rfe) && !e.safe && !prev.safe && light_set.contains(&(prev.from, prev.to)) {
                    rfe_light.entry((e.from, e.to)).or_default().push(prev.from);
                }
            }
        }
    }
    // The program-order pairs by first and by second event (the loops below would otherwise
    // scan every pair per selected pair: quadratic on large programs).
    let mut succ: HashMap<EventId, Vec<(EventId, &aeg::PairInfo)>> = HashMap::new();
    let mut pred: HashMap<EventId, Vec<(EventId, &aeg::PairInfo)>> = HashMap::new();
    for (&(a, b), info) in &aeg.pairs {
        succ.entry(a).or_default().push((b, info));
        pred.entry(b).or_default().push((a, info));
    }
    for p in &sel.pairs {
        let ev = aeg.event(p.from);
        match ev.dir {
            Dir::W => plan.delayed_writes.insert(ev.site),
            Dir::R => plan.delayed_reads.insert(ev.site),
        };
        let to = aeg.event(p.to);
        if ev.dir == Dir::R && p.kind != PairKind::Rfe {
            plan.read_seconds.entry(ev.site).or_default().insert(to.site);
        }
        if p.kind != PairKind::Rfe && aeg.pairs.get(&(p.from, p.to)).is_some_and(|i| arch.light_ordered(ev.dir, to.dir, i)) {
            match (ev.dir, to.dir) {
                (Dir::R, _) => plan.lw_free.insert(ev.site),
                (Dir::W, Dir::W) => plan.lw_pass.insert((ev.site, to.site)),
                // ordered through a write in between: nothing the fence does to undo
                (Dir::W, Dir::R) => false,
            };
        }
        if p.kind == PairKind::Rfe {
            for &w1 in rfe_light.get(&(p.from, p.to)).into_iter().flatten() {
                plan.delayed_writes.insert(aeg.event(w1).site);
                plan.lw_pass.insert((aeg.event(w1).site, ev.site));
            }
        } else if !light_ww.is_empty() {
            lw_detours(aeg, p, &light_ww, &mut plan);
        }
        if ev.dir == Dir::R && p.kind != PairKind::Rfe {
            for &(w, _) in succ.get(&p.from).into_iter().flatten() {
                let we = aeg.event(w);
                if we.dir == Dir::W && we.obj == ev.obj && aeg.pair(w, p.to).is_some() {
                    plan.delayed_writes.insert(we.site);
                }
            }
        }
        if p.kind == PairKind::Rfe {
            for &(a, info) in pred.get(&p.from).into_iter().flatten() {
                if select::buffered_with_rfe(aeg.event(a).dir, info) {
                    plan.delayed_writes.insert(aeg.event(a).site);
                }
            }
        }
    }
    plan.global_reads = global_reads(aeg, arch);
    let model = model_of(arch);
    delay_fenced_writes(aeg, &model, sel, &mut plan);
    plan.approximations = approximations(aeg, &model, sel, &plan);
    plan
}

/// A write after a write-ordering barrier, between a delayed write and the event it is
/// delayed past, may wait in the buffer behind the barrier's earlier writes (where the
/// barrier is not simulated B-cumulatively): delaying it lets those stay buffered past the
/// event, as the pair asks, instead of being flushed when it goes to memory.
fn delay_fenced_writes(aeg: &Aeg, model: &Model, sel: &Selection, plan: &mut Plan) {
    if model.ww_preserved {
        return;
    }
    for p in sel.pairs.iter().filter(|p| p.kind != PairKind::Rfe && aeg.event(p.from).dir == Dir::W) {
        let Some(info) = aeg.pair(p.from, p.to) else { continue };
        for &(f, w) in info.fenced_writes.iter() {
            if model.fences.get(&f).is_some_and(|e| e.mark_writes) && !aeg.site(w).atomic {
                plan.delayed_writes.insert(w);
            }
        }
    }
}

/// Selected delays the rewriter cannot simulate because a statement between the two events
/// is simulated with more ordering than the architecture gives it ([`aeg::Point`]): a
/// release write or an AArch64 unlock completes everything earlier at once; an unlock whose
/// barrier only orders writes before writes flushes the earlier writes; a read-modify-write
/// completes the earlier pending reads of its location.
///
/// And a write after a barrier that orders writes before writes only (`lwsync`, `dmb st`,
/// `membar #StoreStore`), between a delayed write and the event it is delayed past: going
/// to memory, it first flushes the barrier's earlier writes — also before everything after
/// it. Only a write that may pass those entries ([`Plan::lw_pass`], herd's Power) or wait in
/// the buffer behind them (a delayed write: it leaves, and where the barrier is
/// B-cumulative is seen by other threads, only after them) escapes.
fn approximations(aeg: &Aeg, model: &Model, sel: &Selection, plan: &Plan) -> Vec<(crate::source::Loc, String)> {
    let mut out = vec![];
    let mut seen = BTreeSet::new();
    for p in sel.pairs.iter().filter(|p| p.kind != PairKind::Rfe) {
        let Some(info) = aeg.pair(p.from, p.to) else { continue };
        let first = aeg.event(p.from);
        if first.dir == Dir::W && !model.ww_preserved {
            for &(f, ws) in info.fenced_writes.iter() {
                let marks = model.fences.get(&f).is_some_and(|e| e.mark_writes);
                let escapes = plan.lw_pass.contains(&(first.site, ws)) || plan.delayed_writes.contains(&ws);
                if marks && !escapes && seen.insert((p.from, p.to, false, ws.0)) {
                    out.push((
                        aeg.site(ws).loc,
                        format!(
                            "the delay of {} past {} crosses this write after a {}, which the instrumentation makes flush the barrier's earlier writes first (more ordering than the architecture has)",
                            aeg.describe(p.from),
                            aeg.describe(p.to),
                            f.name()
                        ),
                    ));
                }
            }
        }
        for id in info.crosses.iter() {
            let Some(point) = aeg.points.get(id) else { continue };
            let what = match &point.kind {
                aeg::PointKind::Release => "a release store",
                aeg::PointKind::Unlock if first.dir == Dir::W => "a lock release",
                aeg::PointKind::Rmw(objs) if first.dir == Dir::R && objs.contains(&first.obj) => "a read-modify-write of the same location",
                _ => continue,
            };
            if seen.insert((p.from, p.to, true, *id)) {
                out.push((
                    point.loc,
                    format!(
                        "the delay of {} past {} crosses {what} here, which the instrumentation completes everything before (more ordering than the architecture has)",
                        aeg.describe(p.from),
                        aeg.describe(p.to)
                    ),
                ));
            }
        }
    }
    out
}

/// Read sites whose every later access in their thread is ordered after them by a strong
/// cumulative fence ([`Plan::global_reads`]). Thread creation, joins and mutexes count as
/// such fences (as everywhere in weakc), and so does the end of the thread, where its writes
/// are flushed; an access that only threads joining this one communicate with is not seen
/// before that end either. Only on models where an external read-from is relaxed does it
/// matter.
fn global_reads(aeg: &Aeg, arch: &Arch) -> BTreeSet<SiteId> {
    if arch.rfe_safe() {
        return BTreeSet::new();
    }
    let mut ok: HashMap<SiteId, bool> = HashMap::new();
    for ev in &aeg.events {
        if ev.dir == Dir::R && !aeg.site(ev.site).atomic {
            ok.entry(ev.site).or_insert(true);
        }
    }
    // Events some thread may communicate with while theirs still runs.
    let mut seen_running: BTreeSet<EventId> = BTreeSet::new();
    for &(a, b) in &aeg.com {
        if aeg.com_step_possible(b, a) {
            seen_running.insert(a);
        }
        if aeg.com_step_possible(a, b) {
            seen_running.insert(b);
        }
    }
    for (&(a, b), info) in &aeg.pairs {
        let ev = aeg.event(a);
        if ev.dir == Dir::R && seen_running.contains(&b) && !arch.rfe_then_pair_safe(aeg.event(b).dir, info, true) {
            ok.insert(ev.site, false);
        }
    }
    ok.into_iter().filter(|&(_, g)| g).map(|(s, _)| s).collect()
}

/// Detours through a lightweight fence of another thread (`MP+lwsync+addr-bigdetour-addr`).
/// Delaying the po pair `p` lets its first event `x` (or, for a read, an event depending on
/// it) be performed after a later read `y` of the thread up to `p`'s second event. herd's
/// ppc.cat allows `x -fr|co-> W1 -lwsync-> W2 -rfe-> y` then (the lightweight fence orders
/// W1 before W2 for the reads that happen-after W2, which `x` is not), but in the
/// instrumented program W1 is in memory before W2 can be read at all, so `x` would see W1.
/// Such a pair (W1, W2) is relaxed: W1 may wait in the buffer and W2 pass it.
fn lw_detours(aeg: &Aeg, p: &crate::select::DelayPair, light_ww: &[(EventId, EventId)], plan: &mut Plan) {
    let (a, b) = (p.from, p.to);
    // Program order within one iteration: a pair around a loop's back edge is left out (its
    // detours would relax the fence for every reader of the loop; see the README).
    let fwd = |x: EventId, y: EventId| aeg.pair(x, y).is_some_and(|i| !i.via_back_edge);
    if !fwd(a, b) {
        return;
    }
    let first = aeg.event(a);
    let t = first.thread;
    let several = aeg.thread(t).instances != aeg::Instances::Count(1);
    // The events of the thread from `a` to `b` in program order.
    let between = |e: EventId| e == a || e == b || fwd(a, e) && fwd(e, b);
    let in_thread: Vec<EventId> = aeg.events.iter().enumerate().map(|(i, _)| EventId(i as u32)).filter(|&e| aeg.event(e).thread == t && between(e)).collect();
    // Performed late: the first event and, for a read, what depends on its value.
    let late: Vec<EventId> = in_thread
        .iter()
        .copied()
        .filter(|&e| e == a || first.dir == Dir::R && e != b && fwd(a, e) && aeg.pair(a, e).is_some_and(|i| i.deps.addr || i.deps.data))
        .collect();
    for &x in &late {
        for &y in &in_thread {
            if y == a || aeg.event(y).dir != Dir::R || !(x == a || fwd(x, y)) || x == y {
                continue;
            }
            for &(w1, w2) in light_ww {
                let (e1, e2) = (aeg.event(w1), aeg.event(w2));
                if (e1.thread != t || several) && e1.obj == aeg.event(x).obj && e2.obj == aeg.event(y).obj {
                    plan.delayed_writes.insert(e1.site);
                    plan.lw_pass.insert((e1.site, e2.site));
                }
            }
        }
    }
}

pub struct Instrumented {
    /// True when the selection fell back to every relaxable pair on some cycle.
    pub fallback: bool,
    pub selection: Selection,
    pub rewritten: Rewritten,
    /// [`Chosen::lazy_rounds`].
    pub lazy_rounds: Option<usize>,
}

/// The delay pairs to instrument (the part of [`instrument`] that does not depend on the
/// buffer depth).
pub struct Chosen {
    /// True when neither the cycle search nor the lazy selection finished: every relaxable
    /// pair whose events lie on a cycle of the event graph was delayed.
    pub fallback: bool,
    pub selection: Selection,
    /// Cover-and-check rounds when the selection was completed lazily.
    pub lazy_rounds: Option<usize>,
}

/// Chooses the delay pairs of `a` for `arch` with `strategy`. When the cycle search stopped
/// at a limit, the selection is completed lazily (if [`Analysis::lazy`]) from the cycles found
/// ([`select::lazy`]); the cycles it used replace `a.cycles`, which is then complete for
/// the selection (no limit hit). Only if that does not finish either, every relaxable pair
/// on some cycle of the event graph is delayed (sound, at a cost in verification time).
pub fn choose(a: &mut Analysis, arch: &Arch, strategy: Strategy) -> Chosen {
    debug_assert!(a.deferred.is_none(), "choose needs the event graph: `complete` first");
    let t = Instant::now();
    let mut chosen = Chosen { fallback: false, selection: Selection::default(), lazy_rounds: None };
    match a.cycles.limit_hit.take() {
        None => chosen.selection = select::select(&a.aeg, &a.cycles, arch, strategy),
        Some(_) if strategy == Strategy::All => chosen.selection = select::select(&a.aeg, &a.cycles, arch, strategy),
        Some(first) => match a
            .lazy
            .then(|| select::lazy::cover(&a.aeg, arch, &a.cycles.cycles, strategy, &a.limits, &Default::default()))
            .unwrap_or_else(|| Err(select::lazy::Incomplete { why: "--exhaustive: not attempted".into(), out_of_time: false }))
        {
            Ok(l) => {
                let note = format!(
                    "the first cycle search stopped at a limit after {} cycle(s); the selection was completed lazily: {} round(s), {} critical cycle(s) used, and a last search found no critical cycle it leaves unbroken",
                    a.cycles.cycles.len(),
                    l.rounds,
                    l.cycles.len()
                );
                chosen.selection = l.selection;
                chosen.selection.note = Some(match chosen.selection.note.take() {
                    Some(n) => format!("{note}; {n}"),
                    None => note,
                });
                chosen.lazy_rounds = Some(l.rounds);
                a.cycles.candidates += l.examined;
                a.cycles.cycles = l.cycles;
            }
            Err(why) => {
                chosen.fallback = true;
                chosen.selection = select::fallback(&a.aeg, arch);
                let hint = if why.out_of_time { "; --selection-timeout gives the lazy selection more time" } else { "" };
                chosen.selection.note = Some(format!(
                    "the cycle search was incomplete ({first}) and so was the lazy selection ({why}); every relaxable pair on a cycle of the event graph was delayed instead of strategy `{}` (sound, but the program is larger and slower to verify{hint})",
                    strategy.name()
                ));
                a.cycles.limit_hit = Some(first);
            }
        },
    }
    a.timings.selection = t.elapsed();
    chosen
}

/// Rewrites `a` so that its SC executions simulate `arch` on the pairs of `selection`, with
/// buffers of depth `ropts.buffer_size` where the depth cannot be computed.
pub fn rewrite_at(a: &mut Analysis, arch: &Arch, selection: &Selection, ropts: &rewrite::Options) -> Rewritten {
    let t = Instant::now();
    let rewritten = if arch.relaxes_nothing() {
        Rewritten { program: a.program.clone(), summary: Default::default() }
    } else {
        let plan = plan_of(&a.aeg, arch, &a.cycles.cycles, selection);
        let mut r = rewrite::rewrite(&a.program, &a.aeg, &plan, &model_of(arch), ropts);
        r.summary.approximations.extend(selection.lacks.clone());
        r
    };
    a.timings.emit = t.elapsed();
    rewritten
}

/// [`choose`] then [`rewrite_at`].
pub fn instrument(a: &mut Analysis, arch: &Arch, strategy: Strategy, ropts: &rewrite::Options) -> Instrumented {
    let Chosen { fallback, selection, lazy_rounds } = choose(a, arch, strategy);
    let rewritten = rewrite_at(a, arch, &selection, ropts);
    Instrumented { fallback, selection, rewritten, lazy_rounds }
}

#[cfg(test)]
mod tests {
    use super::model_of;
    use crate::arch::by_name;

    /// lwsync is simulated B-cumulatively on herd's Power only: one write-ordering fence
    /// entry without cumulativity (even of an instruction foreign to Power) would turn it off
    /// for every lwsync and let MP+lwsyncs through.
    #[test]
    fn write_marking_is_b_cumulative_exactly_where_the_model_says() {
        let b = |a: &str| model_of(by_name(a).expect("arch")).lw_b_cumulative;
        assert!(b("power"));
        assert!(b("arm"));
        assert!(!b("power-esop"), "the ESOP suite's lwsync is not cumulative");
        // no thread reads another's buffered write: a later write may wait behind marked ones
        for a in ["pso", "rmo", "aarch64"] {
            assert!(!b(a), "{a}");
        }
    }
}
