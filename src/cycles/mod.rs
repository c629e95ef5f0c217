//! Critical cycles of an abstract event graph (ESOP 2013 §4.3 and footnote 4).
//!
//! A *candidate cycle* alternates thread segments and communication edges. A segment is
//! one event, or two events `a → b` related by a `po+` pair of [`Aeg::pairs`]; each segment
//! runs on its own concrete thread, so an abstract thread contributes at most as many
//! segments as it has instances ([`crate::aeg::Instances`]). A com edge is used in either
//! direction; the direction gives the relation (W→R rfe, R→W fr, W→W ws; R–R never).
//!
//! A candidate is *critical* for an architecture when (footnote 4):
//! 1. the two events of a segment are not to the same exact object;
//! 2. per exact object there are at most three accesses, from distinct segments, shaped
//!    `w-w'`, `w-r`, `r-w` or `r-w-r'` (the last one `r fr w rf r'` through a one-event
//!    segment);
//! 3. it contains an unsafe relation: a program-order pair the architecture does not
//!    preserve ([`Arch::po_pair_safe`]) or an rfe when rfe is relaxed and no cumulative fence
//!    next to it protects it;
//! 4. it is not a uniproc cycle (only one-event segments, or a segment whose two events the
//!    com edges force to one address) and not a thin-air cycle (every pair an addr/data dependency, every com edge an rfe).
//!
//! No cycle contains an rfi: com edges are external, and internal communication is a
//! same-address program-order pair, excluded by (1); store-forwarding effects show up as
//! `PodWR` cycles. [`Arch::rfi_safe`] is therefore not consulted here.
//!
//! Search: SCCs of the event graph (po+ pairs and com edges both ways) with petgraph's
//! `tarjan_scc`, then per SCC and per start node, in parallel with rayon, a Johnson-style
//! elementary-circuit search on a *port graph*: every event `e` has an entry port `In(e)`
//! (first event of a segment) and an exit port `Out(e)` (last event of a segment); segment
//! edges go `In(a) → Out(b)` and com edges `Out(a) → In(b)`. A circuit of the port graph
//! visits each port at most once, so an event may occur twice in a cycle (once ending a
//! segment, once starting one: two instances of the same code; or a loop back-edge pair
//! `(x, x)`). The thread-instance bound and the per-object bound (≤ 3 accesses, and three
//! only as two reads and a write) are checked while the path grows; everything else is
//! checked when a circuit closes. Johnson's blocking is kept sound under these path
//! constraints by treating a pruned branch like a found circuit (the node is unblocked).
//!
//! Approximation: a cycle that would need the same port twice (an event starting two
//! segments) is not enumerated. On exact objects no critical cycle needs it (it would
//! access the object at least four times); on inexact objects (arrays, heap) such cycles
//! decompose into shorter circuits through the same segments, which are enumerated.

mod herd;
mod name;
mod search;
#[cfg(test)]
pub(crate) mod tests;

use crate::aeg::{Aeg, Dir, EventId, PairInfo};
use crate::arch::Arch;
pub use search::{EdgeKey, SearchGraph};
use serde::Serialize;
use std::time::Duration;

/// Bounds on the search. When one is reached the search stops and
/// [`CycleSet::limit_hit`] says so: the cycle set (and any instrumentation derived from it)
/// may then be incomplete.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximal number of critical cycles reported (default 10 000).
    pub max_cycles: usize,
    /// Wall-clock budget for the whole search (default 60 s).
    pub time_budget: Duration,
    /// How many instances of a thread spawned an unbounded number of times (in a loop) one
    /// cycle may go through (default 2). Without a bound such threads give infinitely many
    /// cycles; longer rings through more instances repeat the same abstract pairs.
    pub unbounded_instances: u32,
    /// Search steps all the searches from start nodes may take together (`None`: no bound
    /// but time). Work, not time: where it binds, the cycles found do not depend on the
    /// machine's speed or thread count.
    pub step_budget: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_cycles: 10_000, time_budget: Duration::from_secs(60), unbounded_instances: 2, step_budget: None }
    }
}

/// The relation an edge of a cycle stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum EdgeKind {
    /// A program-order pair of one thread, with what lies between the events.
    Po { info: PairInfo },
    /// External read-from (write → read on another thread).
    Rfe,
    /// External from-read (read → write on another thread).
    Fre,
    /// External write serialisation (write → write on another thread).
    Wse,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CycleEdge {
    pub from: EventId,
    pub to: EventId,
    pub kind: EdgeKind,
    /// The architecture keeps this relation in global happens-before.
    pub safe: bool,
}

/// One critical cycle, in canonical rotation: `edges[i]` goes from `events[i]` to
/// `events[(i + 1) % len]`. An event can occur twice (two instances of a thread, or a loop
/// back-edge pair `(x, x)`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cycle {
    pub events: Vec<EventId>,
    pub edges: Vec<CycleEdge>,
    /// The litmus idiom (`sb`, `mp`, `lb`, `s`, `r`, `2+2w`, `wrc`, `rwc`, `iriw`, `isa2`)
    /// when the abstract shape matches one, otherwise the diy edge list
    /// (`PodWR Fre SyncdWW Rfe DpAddrdR Fre`).
    pub name: String,
    /// The diy edge list, always (for idioms too).
    pub diy: String,
}

impl Cycle {
    /// Identifies the cycle: its relations as `(from, to, is program order)`, in canonical
    /// rotation.
    pub fn key(&self) -> Vec<(u32, u32, bool)> {
        self.edges.iter().map(|e| (e.from.0, e.to.0, matches!(e.kind, EdgeKind::Po { .. }))).collect()
    }

    /// The unsafe relations of the cycle: the candidates for delaying.
    pub fn unsafe_edges(&self) -> impl Iterator<Item = &CycleEdge> {
        self.edges.iter().filter(|e| !e.safe)
    }

    /// `sb: P0:Wx@3 -PodWR-> P0:Ry@4 -Fre-> P1:Wy@9 ...`, unsafe relations marked `!`.
    pub fn describe(&self, aeg: &Aeg) -> String {
        let labels: Vec<&str> = self.diy.split(' ').collect();
        let mut s = format!("{}:", self.name);
        for (i, e) in self.edges.iter().enumerate() {
            s.push(' ');
            s.push_str(&aeg.describe(e.from));
            s.push_str(&format!(" -{}{}->", labels.get(i).copied().unwrap_or("?"), if e.safe { "" } else { "!" }));
        }
        if let Some(first) = self.events.first() {
            s.push(' ');
            s.push_str(&aeg.describe(*first));
        }
        s
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct CycleSet {
    /// Critical cycles, sorted by their canonical event sequence.
    pub cycles: Vec<Cycle>,
    /// Set when [`Limits`] stopped the search: the set may be incomplete and the
    /// instrumentation unsound. The message names the limit and how to raise it.
    pub limit_hit: Option<String>,
    /// Architecture the cycles are critical for.
    pub arch: String,
    /// Strongly connected components with at least two events.
    pub sccs: usize,
    /// Closed candidate cycles examined (critical or not).
    pub candidates: u64,
}

/// All critical cycles of `aeg` for `arch`, within `limits`.
pub fn critical_cycles(aeg: &Aeg, arch: &Arch, limits: &Limits) -> CycleSet {
    search::run(&SearchGraph::new(aeg, arch), limits, &search::Query { mode: search::Mode::Start, skip: &|_, _| false, chosen_rfe: &|_, _| false, keep: &|_| true, per_edge: usize::MAX, exhausted: None, budget: None })
}

/// The critical cycles of `graph` (an event graph and an architecture, prepared once for
/// all the checks on it) that `keep` accepts, within `limits` (the cycle limit counts
/// accepted cycles only), in the event graph without the program-order pairs `skip` says
/// and without the cycles that a chosen external read-from (`chosen_rfe`) breaks: the
/// check of the lazy selection (`select::lazy`), which removes the pairs that cover every
/// cycle through them and asks for the cycles the selection leaves unbroken.
/// Only circuits through a relation that may be unsafe are enumerated, at most `per_edge`
/// through each; relations listed in `exhausted` are skipped, and those whose circuits run
/// out are added to it (valid for later searches that only remove edges and reject no
/// fewer cycles: [`EdgeKey`]). With `budget`, the search through one relation stops after
/// that many steps, and a relation whose search stopped there with no cycle is added to
/// the list (sorted) instead: whether a cycle runs through it is not known.
#[allow(clippy::too_many_arguments)]
pub fn critical_cycles_where(
    graph: &SearchGraph,
    limits: &Limits,
    skip: &(dyn Fn(EventId, EventId) -> bool + Sync),
    chosen_rfe: &(dyn Fn(EventId, EventId) -> bool + Sync),
    keep: &(dyn Fn(&Cycle) -> bool + Sync),
    per_edge: usize,
    exhausted: Option<&std::sync::Mutex<std::collections::HashSet<EdgeKey>>>,
    budget: Option<(u64, &std::sync::Mutex<Vec<EdgeKey>>)>,
) -> CycleSet {
    let set = search::run(graph, limits, &search::Query { mode: search::Mode::Through, skip, chosen_rfe, keep, per_edge, exhausted, budget });
    if let Some((_, undecided)) = budget {
        // (in the order the parallel searches finished)
        undecided.lock().expect("no panics while locked").sort_unstable();
    }
    set
}

/// The strongly connected components (at least two events) of the event graph whose edges
/// are the program-order pairs and the com edges in both directions: every critical cycle
/// lies within one.
pub fn sccs(aeg: &Aeg) -> Vec<Vec<EventId>> {
    search::sccs(aeg)
}

/// A segment of a candidate cycle: one event, or a program-order pair.
#[derive(Copy, Clone, Debug)]
struct Seg<'a> {
    first: EventId,
    last: EventId,
    /// `Some` for a two-event segment (possibly `(x, x)` through a back-edge).
    pair: Option<&'a PairInfo>,
}

/// The com relation from `a` to `b`, by direction.
fn com_kind(a: Dir, b: Dir) -> Option<EdgeKind> {
    match (a, b) {
        (Dir::W, Dir::R) => Some(EdgeKind::Rfe),
        (Dir::R, Dir::W) => Some(EdgeKind::Fre),
        (Dir::W, Dir::W) => Some(EdgeKind::Wse),
        (Dir::R, Dir::R) => None,
    }
}

/// The a-posteriori checks on a closed candidate (segments in path order; the com edge
/// from segment `i` goes to segment `i + 1`). Returns the cycle if it is critical.
fn classify(aeg: &Aeg, arch: &Arch, segs: &[Seg]) -> Option<Cycle> {
    let n = segs.len();
    if n < 2 {
        return None;
    }
    // uniproc: no program-order pair at all, so every access is to one address
    if segs.iter().all(|s| s.pair.is_none()) {
        return None;
    }
    if !footnote4_shapes(aeg, segs) || same_address_segment(aeg, segs) {
        return None;
    }
    let dir = |e: EventId| aeg.event(e).dir;
    // thin air: a cycle in rf ∪ dp
    let thin_air = segs.iter().enumerate().all(|(i, s)| {
        let dep = s.pair.is_some_and(|p| p.deps.addr || p.deps.data);
        let next = &segs[(i + 1) % n];
        dep && dir(s.last) == Dir::W && dir(next.first) == Dir::R
    });
    if thin_air {
        return None;
    }
    // canonical rotation: the smallest segment first
    let key = |s: &Seg| (s.first, s.last, s.pair.is_some());
    let start = (0..n).min_by_key(|&i| key(&segs[i])).unwrap();
    let segs: Vec<Seg> = (0..n).map(|i| segs[(start + i) % n]).collect();

    let Judged { events, edges, .. } = judge(aeg, arch, &segs)?.relax_light();
    if edges.iter().all(|e| e.safe) {
        return None;
    }
    let diy = name::diy_name(aeg, arch, &edges);
    let name = name::idiom(aeg, &segs).map(str::to_string).unwrap_or_else(|| diy.clone());
    Some(Cycle { events, edges, name, diy })
}

/// The events and relations of a candidate (segments in path order), each relation judged
/// safe or not for `arch` (condition 3 of footnote 4). `None` when two consecutive
/// segments cannot communicate (read to read).
fn judge(aeg: &Aeg, arch: &Arch, segs: &[Seg]) -> Option<Judged> {
    let n = segs.len();
    let dir = |e: EventId| aeg.event(e).dir;
    let mut events = Vec::new();
    let mut edges = Vec::new();
    // per edge: safe only thanks to a lightweight fence; herd's view of it
    let mut light_only = Vec::new();
    let mut labs = Vec::new();
    for (i, s) in segs.iter().enumerate() {
        let next = &segs[(i + 1) % n];
        events.push(s.first);
        if let Some(info) = s.pair {
            events.push(s.last);
            // A read of an exact object written on every path since `first` reads that write
            // or a coherence-later one: when the cycle leaves the read by fr, the path really
            // runs first -po-> that write -ws-> …, so the pair is as safe as (first, write).
            let obj = aeg.event(s.last).obj;
            let via_write = dir(s.last) == Dir::R
                && dir(next.first) == Dir::W
                && aeg.object(obj).exact
                && info.writes_between.contains(&obj);
            // A read-modify-write's write follows its read in coherence with nothing between
            // (atomicity). Leaving its read by fr to a write W', the path really runs
            // `first -po-> its write -ws-> W'`; entering its write by ws from X, the read took
            // X or a coherence-later write, so the path runs `X -ws*;rfe-> its read -po->
            // last` where external read-from is in happens-before — unless the thread itself
            // wrote the location before (the read may take that write instead).
            let prev = &segs[(i + n - 1) % n];
            let rmw_read_leaving = match (dir(s.last), dir(next.first), aeg.rmw_partner.get(&s.last)) {
                (Dir::R, Dir::W, Some(&w)) => aeg.pair(s.first, w),
                _ => None,
            };
            let rmw_write_entered = match (dir(prev.last), dir(s.first), aeg.rmw_partner.get(&s.first)) {
                (Dir::W, Dir::W, Some(&r)) if arch.rfe_safe() && !own_write_before(aeg, r) => aeg.pair(r, s.last),
                _ => None,
            };
            let safe_by = |strong_only| {
                arch.po_pair_safe_by(dir(s.first), dir(s.last), info, strong_only)
                    || via_write && arch.po_pair_safe_by(dir(s.first), Dir::W, info, strong_only)
                    || rmw_read_leaving.is_some_and(|p| arch.po_pair_safe_by(dir(s.first), Dir::W, p, strong_only))
                    || rmw_write_entered.is_some_and(|p| arch.po_pair_safe_by(Dir::R, dir(s.last), p, strong_only))
            };
            let (safe, safe_strong) = (safe_by(false), safe_by(true));
            let strong = arch.strongly_fenced(dir(s.first), dir(s.last), info);
            light_only.push(safe && !safe_strong);
            labs.push(herd::Lab::Po { ppo: safe_strong && !strong, light: safe && !safe_strong, strong });
            edges.push(CycleEdge { from: s.first, to: s.last, kind: EdgeKind::Po { info: info.clone() }, safe });
        }
        let kind = com_kind(dir(s.last), dir(next.first))?;
        let safe_by = |strong_only| match kind {
            EdgeKind::Rfe => {
                arch.rfe_safe()
                    // A-cumulativity: rfe; fence
                    || next.pair.is_some_and(|p| arch.rfe_then_pair_safe(dir(next.last), p, strong_only))
                    // B-cumulativity: fence; rfe
                    || s.pair.is_some_and(|p| arch.pair_then_rfe_safe(dir(s.first), p, strong_only))
            }
            _ => true,
        };
        let safe = safe_by(false);
        light_only.push(safe && !safe_by(true));
        labs.push(match kind {
            EdgeKind::Rfe => herd::Lab::Rfe,
            EdgeKind::Fre => herd::Lab::Fre,
            _ => herd::Lab::Coe,
        });
        edges.push(CycleEdge { from: s.last, to: next.first, kind, safe });
    }
    let dirs = events.iter().map(|&e| dir(e)).collect();
    Some(Judged { events, edges, light_only, labs, dirs })
}

/// A program-order pair `a → b` is safe in every cycle through it, even where a cycle
/// relaxes its lightweight fences: what [`judge`] decides with the context every cycle has
/// (a read is always left by fr, so the rules for a read left by fr always apply).
fn never_unsafe(aeg: &Aeg, arch: &Arch, a: EventId, b: EventId, info: &PairInfo) -> bool {
    pair_safe_whatever_the_cycle(aeg, arch, a, b, info, true)
}

/// A program-order pair `a → b` is unsafe in every cycle through it (as [`judge`] decides:
/// only the rule for a read-modify-write's write entered by ws depends on the cycle, and
/// is assumed to apply).
fn always_unsafe(aeg: &Aeg, arch: &Arch, a: EventId, b: EventId, info: &PairInfo) -> bool {
    !pair_safe_whatever_the_cycle(aeg, arch, a, b, info, false) && !aeg.rmw_partner.contains_key(&a)
}

fn pair_safe_whatever_the_cycle(aeg: &Aeg, arch: &Arch, a: EventId, b: EventId, info: &PairInfo, strong_only: bool) -> bool {
    let (ea, eb) = (aeg.event(a), aeg.event(b));
    let safe = |d: Dir, i: &PairInfo| arch.po_pair_safe_by(ea.dir, d, i, strong_only);
    // the cycle leaves a read by fr, to a write: `judge`'s rules for that case
    let via_write = eb.dir == Dir::R && aeg.object(eb.obj).exact && info.writes_between.contains(&eb.obj);
    let rmw_read = match (eb.dir, aeg.rmw_partner.get(&b)) {
        (Dir::R, Some(&w)) => aeg.pair(a, w),
        _ => None,
    };
    safe(eb.dir, info) || via_write && safe(Dir::W, info) || rmw_read.is_some_and(|p| safe(Dir::W, p))
}

/// Whether a write of `read`'s thread to its object may precede it (then the read of a
/// read-modify-write may take that write).
fn own_write_before(aeg: &Aeg, read: EventId) -> bool {
    let r = aeg.event(read);
    aeg.events.iter().enumerate().any(|(i, w)| {
        w.dir == Dir::W && w.thread == r.thread && w.obj == r.obj && aeg.pair(EventId(i as u32), read).is_some()
    })
}

/// A candidate's relations judged by the architecture's table, with what herd's axioms need.
struct Judged {
    events: Vec<EventId>,
    /// `safe` as the table says, before [`Judged::relax_light`].
    edges: Vec<CycleEdge>,
    /// Per edge: safe only thanks to a lightweight fence.
    light_only: Vec<bool>,
    labs: Vec<herd::Lab>,
    dirs: Vec<Dir>,
}

impl Judged {
    fn herd_forbids(&self) -> bool {
        herd::forbids(&self.labs, &self.dirs)
    }

    /// herd's ppc.cat allows the cycle although its lightweight fences order what they
    /// order, and would forbid it were they strong (`R+lwsync+sync`: forbidden with two
    /// syncs; `W+RWC+eieio+addr+sync`): the cycle relies on the fences' weakness, which the
    /// instrumentation's lwsync (a write in memory before any later write of its thread is
    /// seen) does not have, so what they order, and their cumulativity, is relaxed in it.
    /// Where herd allows the cycle with strong fences too (`MP+lwsync+po`: the reader's pair
    /// is not ordered), its other unsafe relations realise it and the fences stay: relaxing
    /// them there would let the instrumented program break them also where herd keeps them
    /// (`MP+lwsyncs` through the same writer). Detours through a lightweight fence off the
    /// cycle (`MP+lwsync+addr-bigdetour-addr`) are relaxed when the pairs are chosen
    /// (`pipeline::plan_of`).
    fn light_relaxed(&self) -> bool {
        self.light_only.contains(&true) && !self.herd_forbids() && herd::forbids(&herd::strengthened(&self.labs), &self.dirs)
    }

    fn relax_light(mut self) -> Self {
        if self.light_relaxed() {
            for (e, &l) in self.edges.iter_mut().zip(&self.light_only) {
                if l {
                    e.safe = false;
                }
            }
        }
        self
    }
}

/// Re-judges the relations of `cycle` with each program-order relation's information
/// replaced by `info(i)` (`i` indexes [`Cycle::edges`]), by the same rules as the search:
/// which relations would be safe if, e.g., fences were added between its events. `None`
/// when `cycle` is not a well-formed cycle.
pub fn rejudge(aeg: &Aeg, arch: &Arch, cycle: &Cycle, info: &dyn Fn(usize) -> PairInfo) -> Option<Rejudged> {
    // segments in the cycle's order: a po edge then its com edge, or a com edge alone
    let infos: Vec<Option<PairInfo>> = (0..cycle.edges.len())
        .map(|i| matches!(cycle.edges[i].kind, EdgeKind::Po { .. }).then(|| info(i)))
        .collect();
    let mut segs = Vec::new();
    let mut i = 0;
    while i < cycle.edges.len() {
        let e = &cycle.edges[i];
        match &infos[i] {
            Some(p) => {
                segs.push(Seg { first: e.from, last: e.to, pair: Some(p) });
                i += 2;
            }
            None => {
                segs.push(Seg { first: e.from, last: e.from, pair: None });
                i += 1;
            }
        }
    }
    let j = judge(aeg, arch, &segs)?;
    if !(j.edges.len() == cycle.edges.len() && j.edges.iter().zip(&cycle.edges).all(|(a, b)| a.from == b.from && a.to == b.to)) {
        return None;
    }
    let herd_forbids = j.herd_forbids();
    let light_relaxed = j.light_relaxed();
    let tables = j.edges.iter().map(|e| e.safe).collect();
    Some(Rejudged { tables, light_only: j.light_only, herd_forbids, light_relaxed })
}

/// [`rejudge`]'s answer.
#[derive(Clone, Debug)]
pub struct Rejudged {
    /// Per edge: safe by the architecture's table (fences, dependencies, cumulativity).
    pub tables: Vec<bool>,
    /// Per edge: safe by the table only thanks to a lightweight fence.
    pub light_only: Vec<bool>,
    /// herd's ppc.cat forbids the cycle ([`herd`]).
    pub herd_forbids: bool,
    /// The lightweight fences are relaxed in it (`Judged::relax_light`).
    pub light_relaxed: bool,
}

impl Rejudged {
    /// Per edge: safe in this cycle (the search's verdict).
    pub fn safe(&self) -> Vec<bool> {
        self.tables.iter().zip(&self.light_only).map(|(&t, &l)| t && !(self.light_relaxed && l)).collect()
    }
}

/// Footnote 4 (ii): per exact object at most three accesses, from distinct segments,
/// shaped `w-w'`, `w-r`, `r-w` or `r fr w rf r'` (the write a one-event segment between the
/// two reads).
fn footnote4_shapes(aeg: &Aeg, segs: &[Seg]) -> bool {
    let n = segs.len();
    // (object, segment, dir) of every access on an exact object
    let mut acc: Vec<(u32, usize, Dir)> = Vec::new();
    for (i, s) in segs.iter().enumerate() {
        let mut push = |e: EventId| {
            let ev = aeg.event(e);
            if aeg.object(ev.obj).exact {
                acc.push((ev.obj.0, i, ev.dir));
            }
        };
        push(s.first);
        if s.pair.is_some() {
            push(s.last);
        }
    }
    acc.sort_by_key(|a| a.0);
    for group in acc.chunk_by(|a, b| a.0 == b.0) {
        match group.len() {
            0 | 1 => {}
            2 => {
                if group[0].1 == group[1].1 || (group[0].2 == Dir::R && group[1].2 == Dir::R) {
                    return false;
                }
            }
            3 => {
                // Footnote 4 admits `r fr w rf r'` only. Power's cumulativity needs
                // `w ws w' rf r` too (aclwdrr: a third thread's unfenced write defeats
                // B-cumulativity): three accesses chained through com edges around a
                // one-event middle segment.
                let obj = group[0].0;
                let on_obj = |e: EventId| aeg.event(e).obj.0 == obj;
                let Some(m) = group.iter().map(|a| a.1).find(|&i| {
                    segs[i].pair.is_none() && on_obj(segs[(i + n - 1) % n].last) && on_obj(segs[(i + 1) % n].first)
                }) else {
                    return false;
                };
                // `fr;ws` ⊆ fr, `ws;ws` ⊆ ws and `rf;fr` ⊆ ws are shorter cycles already:
                // only `fr;rf` (r-w-r') and `ws;rf` (w-w'-r) need the middle thread.
                let (b, c) = (aeg.event(segs[m].first).dir, aeg.event(segs[(m + 1) % n].first).dir);
                if b != Dir::W || c != Dir::R {
                    return false;
                }
                let mut seg_ids: Vec<usize> = group.iter().map(|a| a.1).collect();
                seg_ids.sort_unstable();
                seg_ids.dedup();
                if seg_ids.len() != 3 {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// Footnote 4 (i) on inexact objects: a com edge relates two accesses to one address, so
/// along one-event segments the com edges chain addresses together. A two-event segment
/// whose events are thereby forced to one address is a po-loc pair (uniproc), e.g.
/// `W a[i] → W a[j] rfe R fre W a[i]` forces `i = j`.
fn same_address_segment(aeg: &Aeg, segs: &[Seg]) -> bool {
    let n = segs.len();
    // positions: segment i has first 2i and last 2i+1 (the same access when one-event)
    let mut parent: Vec<usize> = (0..2 * n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let union = |p: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(p, a), find(p, b));
        p[ra] = rb;
    };
    let mut by_obj: std::collections::HashMap<u32, usize> = Default::default();
    for (i, s) in segs.iter().enumerate() {
        if s.pair.is_none() {
            union(&mut parent, 2 * i, 2 * i + 1);
        }
        union(&mut parent, 2 * i + 1, (2 * i + 2) % (2 * n));
        for (pos, e) in [(2 * i, s.first), (2 * i + 1, s.last)] {
            let obj = aeg.event(e).obj;
            if aeg.object(obj).exact {
                let first = *by_obj.entry(obj.0).or_insert(pos);
                union(&mut parent, first, pos);
            }
        }
    }
    segs.iter().enumerate().any(|(i, s)| s.pair.is_some() && find(&mut parent, 2 * i) == find(&mut parent, 2 * i + 1))
}
