//! The stages wired together: source file → normalised IR → event graph → critical cycles →
//! delay pairs → instrumented program. The CLI and the tests drive weakc through here.

use crate::aeg::{self, Aeg, BuildOptions, Dir};
use crate::arch::Arch;
use crate::cycles::{self, CycleSet, Limits};
use crate::frontend;
use crate::ir::{Fence, Program};
use crate::rewrite::{self, FenceEffect, Model, Plan, Rewritten};
use crate::select::{self, PairKind, Selection, Strategy};
use crate::source::{Error, SourceMap};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub frontend: frontend::Options,
    pub build: BuildOptions,
    pub limits: Limits,
}

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
}

/// Front end, normalisation, event graph and critical cycles for one file.
pub fn analyze(path: &Path, arch: &Arch, opts: &Options) -> Result<Analysis, Error> {
    let mut map = SourceMap::default();
    let t = Instant::now();
    let mut program = frontend::load_file(path, &opts.frontend, &mut map)?;
    let parse = t.elapsed();
    // The front end registered the file (first) with its text: no second read.
    let lines = map.files.first().and_then(|f| f.text.as_deref()).map_or(0, |t| t.lines().count());
    analyze_program(&mut program, arch, opts, map, parse, lines)
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
    crate::normalize::normalize(program);
    timings.normalize = t.elapsed();
    let t = Instant::now();
    let aeg = aeg::build(program, &opts.build)?;
    timings.event_graph = t.elapsed();
    let t = Instant::now();
    let cycles = cycles::critical_cycles(&aeg, arch, &opts.limits);
    timings.cycles = t.elapsed();
    Ok(Analysis { map, program: program.clone(), aeg, cycles, timings, lines })
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
    // (a weaker simulation of a cumulative one only adds behaviours).
    let lw_b_cumulative = fences.iter().all(|(&f, e)| !e.mark_writes || arch.fence_cumulative(f));
    Model {
        ww_preserved: arch.ppo.contains(Dir::W, Dir::W),
        lw_b_cumulative,
        ctrl_orders_writes: arch.deps.ctrl.contains(Dir::R, Dir::W),
        ctrl_isync_orders_reads: arch.deps.ctrl_isync.contains(Dir::R, Dir::R),
        rfi_relaxed: !arch.rfi_safe(),
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
pub fn plan_of(aeg: &Aeg, sel: &Selection) -> Plan {
    let mut plan = Plan::default();
    for p in &sel.pairs {
        let ev = aeg.event(p.from);
        match ev.dir {
            Dir::W => plan.delayed_writes.insert(ev.site),
            Dir::R => plan.delayed_reads.insert(ev.site),
        };
        // A program-order pair with a fence between is unsafe only because a cycle relaxes a
        // lightweight fence (see `cycles::herd`): the fence must not order it.
        if p.kind != PairKind::Rfe && aeg.pairs.get(&(p.from, p.to)).is_some_and(|i| !i.fences.is_empty()) {
            plan.lw_free.insert(ev.site);
            plan.lw_free.insert(aeg.event(p.to).site);
        }
        if ev.dir == Dir::R && p.kind != PairKind::Rfe {
            for (&(a, w), _) in &aeg.pairs {
                let we = aeg.event(w);
                if a == p.from && we.dir == Dir::W && we.obj == ev.obj && aeg.pair(w, p.to).is_some() {
                    plan.delayed_writes.insert(we.site);
                }
            }
        }
        if p.kind == PairKind::Rfe {
            for (&(a, b), info) in &aeg.pairs {
                if b == p.from && aeg.event(a).dir == Dir::W && !info.fences.is_empty() {
                    plan.delayed_writes.insert(aeg.event(a).site);
                }
            }
        }
    }
    plan
}

pub struct Instrumented {
    /// True when an incomplete cycle search forced the `all` strategy.
    pub fallback: bool,
    pub selection: Selection,
    pub rewritten: Rewritten,
}

/// The delay pairs to instrument (the part of [`instrument`] that does not depend on the
/// buffer depth).
pub struct Chosen {
    /// True when an incomplete cycle search forced the `all` strategy.
    pub fallback: bool,
    pub selection: Selection,
}

/// Chooses the delay pairs of `a` for `arch` with `strategy`.
pub fn choose(a: &mut Analysis, arch: &Arch, strategy: Strategy) -> Chosen {
    let t = Instant::now();
    // An incomplete cycle list cannot tell which pairs suffice: delaying every relaxable pair
    // is the sound fallback (the paper's baseline), at a cost in verification time.
    let fallback = a.cycles.limit_hit.is_some() && !matches!(strategy, Strategy::All);
    let mut selection = select::select(&a.aeg, &a.cycles, arch, if fallback { Strategy::All } else { strategy });
    if fallback {
        selection.note = Some(format!(
            "the cycle search was incomplete ({}); every relaxable pair was delayed instead of strategy `{}` (sound, but the program is larger and slower to verify)",
            a.cycles.limit_hit.as_deref().unwrap_or("limit hit"),
            strategy.name()
        ));
    }
    a.timings.selection = t.elapsed();
    Chosen { fallback, selection }
}

/// Rewrites `a` so that its SC executions simulate `arch` on the pairs of `selection`, with
/// buffers of depth `ropts.buffer_size` where the depth cannot be computed.
pub fn rewrite_at(a: &mut Analysis, arch: &Arch, selection: &Selection, ropts: &rewrite::Options) -> Rewritten {
    let t = Instant::now();
    let plan = plan_of(&a.aeg, selection);
    let rewritten = if arch.relaxes_nothing() {
        Rewritten { program: a.program.clone(), summary: Default::default() }
    } else {
        rewrite::rewrite(&a.program, &a.aeg, &plan, &model_of(arch), ropts)
    };
    a.timings.emit = t.elapsed();
    rewritten
}

/// [`choose`] then [`rewrite_at`].
pub fn instrument(a: &mut Analysis, arch: &Arch, strategy: Strategy, ropts: &rewrite::Options) -> Instrumented {
    let Chosen { fallback, selection } = choose(a, arch, strategy);
    let rewritten = rewrite_at(a, arch, &selection, ropts);
    Instrumented { fallback, selection, rewritten }
}
