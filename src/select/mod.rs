//! Selection of the pairs to delay (ESOP 2013 §4.4–4.5, Fig. 9).
//!
//! Every critical cycle must have at least one of its unsafe relations instrumented (delayed)
//! for the transformed program to exhibit it under SC. The strategies:
//!
//! * [`Strategy::Ilp`] (default): the weighted integer program of Fig. 9 — minimise
//!   `Σ d(e)·x_e` subject to `Σ_{e ∈ C} x_e ≥ 1` for every cycle `C` — with the paper's costs
//!   `d(poW*) = 1`, `d(poRW) = 2`, `d(rfe) = 2`, `d(poRR) = 3` ([`PairKind::cost`]). The
//!   cycles are split into independent components (cycles sharing no candidate pair), each
//!   solved separately with good_lp/microlp, warm-started from a greedy cover, under a time
//!   limit. A component the solver does not finish (time limit, error) keeps the better of
//!   the solver's incumbent and the greedy cover; [`Selection::optimal`] is then false and
//!   [`Selection::note`] says why.
//! * [`Strategy::OnePerCycle`]: the first unsafe relation of every cycle (canonical order).
//! * [`Strategy::AllCycles`]: every unsafe relation of every cycle.
//! * [`Strategy::All`]: the naive baseline: every program-order pair of [`Aeg::pairs`] the
//!   architecture does not preserve (pairs on one exact object excluded: uniproc), and every
//!   com write→read pair when rfe is relaxed; plus the pairs only a lightweight fence orders
//!   where a cycle relaxes them (herd's Power, see `cycles::herd`).

mod ilp;
pub mod lazy;
pub(crate) use ilp::{solve_alternatives, solve_cover, Alternatives};
#[cfg(test)]
mod tests;

use crate::aeg::{Aeg, Dir, EventId};
use crate::arch::Arch;
use crate::cycles::{Cycle, CycleSet, EdgeKind};
use serde::Serialize;
use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Strategy {
    /// Weighted minimal cover by integer programming (Fig. 9).
    #[default]
    Ilp,
    /// The first unsafe relation of each cycle.
    OnePerCycle,
    /// Every unsafe relation of every cycle.
    AllCycles,
    /// Every pair the architecture may relax (naive baseline, ignores the cycles).
    All,
}

impl Strategy {
    /// Command-line names, in the order of [`Strategy::ALL`].
    pub const NAMES: [&'static str; 4] = ["ilp", "one-per-cycle", "all-cycles", "all"];
    pub const ALL: [Strategy; 4] = [Strategy::Ilp, Strategy::OnePerCycle, Strategy::AllCycles, Strategy::All];

    pub fn name(self) -> &'static str {
        Strategy::NAMES[Strategy::ALL.iter().position(|&s| s == self).unwrap()]
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Strategy::NAMES
            .iter()
            .position(|&n| n == s)
            .map(|i| Strategy::ALL[i])
            .ok_or_else(|| format!("unknown strategy `{s}` (expected one of: {})", Strategy::NAMES.join(", ")))
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum PairKind {
    PoWW,
    PoWR,
    PoRW,
    PoRR,
    /// External read-from (write on one thread, read on another).
    Rfe,
}

impl PairKind {
    pub fn po(first: Dir, second: Dir) -> PairKind {
        match (first, second) {
            (Dir::W, Dir::W) => PairKind::PoWW,
            (Dir::W, Dir::R) => PairKind::PoWR,
            (Dir::R, Dir::W) => PairKind::PoRW,
            (Dir::R, Dir::R) => PairKind::PoRR,
        }
    }
    /// Instrumentation cost of §4.5: poW* 1, poRW 2, rfe 2, poRR 3.
    pub fn cost(self) -> u32 {
        match self {
            PairKind::PoWW | PairKind::PoWR => 1,
            PairKind::PoRW | PairKind::Rfe => 2,
            PairKind::PoRR => 3,
        }
    }
}

/// A pair of abstract events whose order the instrumentation may relax.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct DelayPair {
    pub from: EventId,
    pub to: EventId,
    pub kind: PairKind,
    pub cost: u32,
}

impl DelayPair {
    pub fn new(from: EventId, to: EventId, kind: PairKind) -> DelayPair {
        DelayPair { from, to, kind, cost: kind.cost() }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Selection {
    /// Sorted by `(from, to, kind)`, no duplicates.
    pub pairs: Vec<DelayPair>,
    pub total_cost: u32,
    /// [`Strategy::Ilp`] only: the solver proved every component optimal. False for the
    /// other strategies.
    pub optimal: bool,
    /// What went wrong or was approximated (solver fallback, time limit, cycles without
    /// unsafe relation); for the user.
    pub note: Option<String>,
    /// Behaviours of the architecture the instrumentation with these pairs may lack, with
    /// the place and why (the fallback's lightweight fences, see [`fallback`]).
    #[serde(skip)]
    pub lacks: Option<(crate::source::Loc, String)>,
}

impl Selection {
    /// A selection of the given pairs, not derived from cycles.
    pub fn from_all(pairs: Vec<DelayPair>) -> Selection {
        Selection::from_pairs(pairs, false, None)
    }

    fn from_pairs(mut pairs: Vec<DelayPair>, optimal: bool, note: Option<String>) -> Selection {
        pairs.sort();
        pairs.dedup();
        let total_cost = pairs.iter().map(|p| p.cost).sum();
        Selection { pairs, total_cost, optimal, note, lacks: None }
    }
}

/// Tuning of [`Strategy::Ilp`].
#[derive(Clone, Debug)]
pub struct SelectOptions {
    /// Total solver time over all components (default 30 s). When it runs out, the
    /// remaining components keep their greedy cover.
    pub ilp_time_limit: Duration,
}

impl Default for SelectOptions {
    fn default() -> Self {
        SelectOptions { ilp_time_limit: Duration::from_secs(30) }
    }
}

/// Choose the pairs to delay with the default [`SelectOptions`].
pub fn select(aeg: &Aeg, cycles: &CycleSet, arch: &Arch, strategy: Strategy) -> Selection {
    select_with(aeg, cycles, arch, strategy, &SelectOptions::default())
}

/// The candidates of each cycle: its unsafe relations as delay pairs.
///
/// An `rfe` is instrumented by buffering its write so that the reader may see it before the
/// others do. That realises the cycle when the write is the writer thread's only event in
/// the cycle (iriw, wrc), or when its program-order predecessor in the cycle is a write
/// across a fence, which then waits in the buffer as well (S+lwsync+addr). With a read
/// predecessor (lb: `R y; W x` then `rfe`) the read would have to complete after the read
/// that sees the buffered write, which a buffered write cannot simulate; with a write
/// predecessor and no fence (`W x; W y` then `rfe`: seed 6913) the first write is not
/// buffered, so it stays visible before the reader's thread goes on. Such rfes are not
/// candidates; the cycle's other unsafe relations are (when a cycle keeps none, all its
/// unsafe relations are used and a note says so).
fn candidates(aeg: &Aeg, cycles: &[Cycle]) -> Vec<Vec<DelayPair>> {
    cycles.iter().map(|c| cycle_candidates(aeg, c)).collect()
}

/// Does the first write of a program-order pair `(first, W)` wait in the buffer with the
/// second when an rfe out of the second is delayed? Only across a fence (`plan_of` delays
/// it then); so only then is such an rfe a cycle's candidate ([`candidates`]).
pub(crate) fn buffered_with_rfe(first: Dir, info: &crate::aeg::PairInfo) -> bool {
    first == Dir::W && !info.fences.is_empty()
}

/// [`candidates`] of one cycle.
pub(crate) fn cycle_candidates(aeg: &Aeg, c: &Cycle) -> Vec<DelayPair> {
    let n = c.edges.len();
    // A write predecessor across a fence waits in the buffer too (`plan_of` delays it with
    // the rfe's write): `W lwsync W rfe R` is realisable. `R; W rfe` is not, nor is a plain
    // `W; W rfe`: the first write is not delayed with the rfe (its pair is the cycle's
    // candidate instead), and an early-visible second write alone does not reorder it.
    let realisable = |i: usize| match &c.edges[i].kind {
        EdgeKind::Rfe => {
            let prev = &c.edges[(i + n - 1) % n];
            match &prev.kind {
                EdgeKind::Po { info } => buffered_with_rfe(aeg.event(prev.from).dir, info),
                _ => true,
            }
        }
        _ => true,
    };
    let mut idx: Vec<usize> = (0..n).filter(|&i| !c.edges[i].safe && realisable(i)).collect();
    if idx.iter().all(|&i| matches!(c.edges[i].kind, EdgeKind::Fre | EdgeKind::Wse)) {
        idx = (0..n).filter(|&i| !c.edges[i].safe).collect();
    }
    let mut v: Vec<DelayPair> = idx
        .into_iter()
        .map(|i| &c.edges[i])
        .filter_map(|e| {
            let kind = match e.kind {
                EdgeKind::Po { .. } => PairKind::po(aeg.event(e.from).dir, aeg.event(e.to).dir),
                EdgeKind::Rfe => PairKind::Rfe,
                // fr and ws are always safe
                EdgeKind::Fre | EdgeKind::Wse => return None,
            };
            Some(DelayPair::new(e.from, e.to, kind))
        })
        .collect();
    // keep the cycle's order for one-per-cycle, drop repeats
    let mut seen = std::collections::HashSet::new();
    v.retain(|p| seen.insert(*p));
    v
}

/// Choose the pairs to delay.
pub fn select_with(aeg: &Aeg, cycles: &CycleSet, arch: &Arch, strategy: Strategy, opts: &SelectOptions) -> Selection {
    select_cycles(aeg, &cycles.cycles, arch, strategy, opts)
}

/// [`select_with`] on a list of cycles.
pub(crate) fn select_cycles(aeg: &Aeg, cycles: &[Cycle], arch: &Arch, strategy: Strategy, opts: &SelectOptions) -> Selection {
    let cands = candidates(aeg, cycles);
    let uncoverable = cands.iter().filter(|c| c.is_empty()).count();
    let mut note = (uncoverable > 0)
        .then(|| format!("{uncoverable} cycle(s) without an unsafe relation were ignored"));
    match strategy {
        Strategy::OnePerCycle => {
            Selection::from_pairs(cands.iter().filter_map(|c| c.first().copied()).collect(), false, note)
        }
        Strategy::AllCycles => Selection::from_pairs(cands.into_iter().flatten().collect(), false, note),
        // A pair only a lightweight fence orders is relaxed where a cycle relaxes the fence
        // (herd's Power, see `cycles::herd`), not by the table: the cycles' pairs join the
        // baseline, or `all` would miss R+lwsync+sync, which every cycle-based strategy finds.
        Strategy::All => {
            let mut pairs = all_pairs(aeg, arch);
            let mut seen: std::collections::HashSet<DelayPair> = pairs.iter().copied().collect();
            let light = |p: &DelayPair| aeg.pairs.get(&(p.from, p.to)).is_some_and(|i| arch.light_ordered(aeg.event(p.from).dir, aeg.event(p.to).dir, i));
            pairs.extend(cands.into_iter().flatten().filter(|p| light(p) && seen.insert(*p)));
            Selection::from_pairs(pairs, false, note)
        }
        Strategy::Ilp => {
            let cands: Vec<Vec<DelayPair>> = cands.into_iter().filter(|c| !c.is_empty()).collect();
            let (pairs, optimal, why) = ilp::solve(&cands, opts.ilp_time_limit);
            if let Some(w) = why {
                note = Some(match note {
                    Some(n) => format!("{n}; {w}"),
                    None => w,
                });
            }
            Selection::from_pairs(pairs, optimal, note)
        }
    }
}

/// [`on_some_cycle`] as a selection. A pair that only a lightweight fence orders (lwsync,
/// eieio, as herd's Power relaxes them) is not among its pairs: the cycles herd relaxes
/// such a fence in are not known without the cycles, and delaying it everywhere
/// would add behaviours the architecture does not have. The instrumentation may then lack
/// some (R+lwsync+sync), which `lacks` says, at the first such pair: a violation found is
/// real, its absence proves nothing.
pub fn fallback(aeg: &Aeg, arch: &Arch) -> Selection {
    let scc = scc_of(aeg);
    let mut light: Vec<(EventId, EventId)> = aeg
        .pairs
        .iter()
        .filter(|(&(a, b), info)| scc.same(a, b) && arch.light_ordered(aeg.event(a).dir, aeg.event(b).dir, info))
        .map(|(&k, _)| k)
        .collect();
    light.sort();
    let mut s = Selection::from_all(on_cycles(aeg, arch, &scc));
    s.lacks = light.first().map(|&(a, b)| {
        (
            aeg.event(a).loc,
            format!(
                "the fallback selection keeps every lightweight fence ordering ({} pair(s) on cycles of the event graph, the first from here to line {}), which {} relaxes in some cycles",
                light.len(),
                aeg.event(b).loc.line,
                arch.name
            ),
        )
    });
    s
}

/// Per event, its strongly connected component of the event graph.
struct SccOf(Vec<usize>);

impl SccOf {
    fn same(&self, a: EventId, b: EventId) -> bool {
        let (x, y) = (self.0[a.0 as usize], self.0[b.0 as usize]);
        x != usize::MAX && x == y
    }
}

fn scc_of(aeg: &Aeg) -> SccOf {
    let mut scc_of = vec![usize::MAX; aeg.events.len()];
    for (i, c) in crate::cycles::sccs(aeg).iter().enumerate() {
        for e in c {
            scc_of[e.0 as usize] = i;
        }
    }
    SccOf(scc_of)
}

/// The sound over-approximation when not even the lazy selection finishes: every relation
/// the architecture may relax whose two events lie on a common cycle of the event graph
/// (one strongly connected component), the only places a critical cycle can go through.
pub fn on_some_cycle(aeg: &Aeg, arch: &Arch) -> Vec<DelayPair> {
    on_cycles(aeg, arch, &scc_of(aeg))
}

fn on_cycles(aeg: &Aeg, arch: &Arch, scc: &SccOf) -> Vec<DelayPair> {
    all_pairs(aeg, arch).into_iter().filter(|p| scc.same(p.from, p.to)).collect()
}

/// The naive baseline: every relation the architecture may relax.
fn all_pairs(aeg: &Aeg, arch: &Arch) -> Vec<DelayPair> {
    let mut out = Vec::new();
    for (&(a, b), info) in &aeg.pairs {
        let (ea, eb) = (aeg.event(a), aeg.event(b));
        if ea.obj == eb.obj && aeg.object(ea.obj).exact {
            continue;
        }
        if !arch.po_pair_safe(ea.dir, eb.dir, info) {
            out.push(DelayPair::new(a, b, PairKind::po(ea.dir, eb.dir)));
        }
    }
    if !arch.rfe_safe() {
        for &(a, b) in &aeg.com {
            for (w, r) in [(a, b), (b, a)] {
                if aeg.event(w).dir == Dir::W && aeg.event(r).dir == Dir::R {
                    out.push(DelayPair::new(w, r, PairKind::Rfe));
                }
            }
        }
    }
    out
}

/// Index the distinct candidates: returns them and, per cycle, the indices of its own.
fn index(cycles: &[Vec<DelayPair>]) -> (Vec<DelayPair>, Vec<Vec<usize>>) {
    let mut ids: HashMap<DelayPair, usize> = HashMap::new();
    let mut pairs = Vec::new();
    let sets = cycles
        .iter()
        .map(|c| {
            let mut v: Vec<usize> = c
                .iter()
                .map(|p| {
                    *ids.entry(*p).or_insert_with(|| {
                        pairs.push(*p);
                        pairs.len() - 1
                    })
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    (pairs, sets)
}
