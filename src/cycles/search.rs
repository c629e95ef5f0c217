//! The SCC decomposition and the Johnson-style circuit search on the port graph.

use super::{classify, Cycle, CycleSet, Limits, Seg};
use crate::aeg::{Aeg, Dir, EventId, Instances, PairInfo};
use crate::arch::Arch;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Instant;

/// An edge of the port graph.
#[derive(Copy, Clone)]
enum Label<'a> {
    /// `In(a) → Out(b)`: a segment; `None` for the one-event segment `a`.
    Seg(Option<&'a PairInfo>),
    /// `Out(a) → In(b)`: a com edge.
    Com,
}

/// The port graph of one SCC: node `i < n` is `In(events[i])`; the `Out` port of
/// `events[i]` comes in three copies, by the segment that ends there, so that constraints of
/// a com edge on the segment before it are edges left out rather than checks on the path
/// (which would keep Johnson's algorithm from blocking): node `n + i` after the one-event
/// segment ([`OUT_LONE`]), `2n + i` after a pair from a write across fences none of which
/// makes an rfe out of `events[i]` safe ([`OUT_FROM_W`]), `3n + i` after any other pair
/// ([`OUT_OTHER`]). All `In` ports precede all `Out` ports, so every circuit's smallest
/// node is an `In` port: only those are used as start nodes.
struct PortGraph<'a> {
    events: Vec<EventId>,
    adj: Vec<Vec<(u32, Label<'a>)>>,
    /// [`Mode::Through`]: per node, per adjacency entry, the edge's rank among the edges
    /// that may be unsafe in some cycle (`u32::MAX` for the others).
    rank: Vec<Vec<u32>>,
    /// The ranked edges, by rank: `(from, index in adj[from])`.
    must: Vec<(u32, usize)>,
    /// Some segment is unsafe even where every lightweight fence holds.
    strong_unsafe: bool,
}

/// The copies of an `Out` port ([`PortGraph`]), as multiples of `n`.
const OUT_LONE: usize = 1;
const OUT_FROM_W: usize = 2;
const OUT_OTHER: usize = 3;

impl PortGraph<'_> {
    fn n(&self) -> usize {
        self.events.len()
    }
    fn event(&self, node: u32) -> EventId {
        self.events[node as usize % self.events.len()]
    }
    /// The [`EdgeKey`] of the `k`-th ranked edge.
    fn edge_key(&self, k: u32) -> EdgeKey {
        let (from, idx) = self.must[k as usize];
        let to = self.adj[from as usize][idx].0;
        let n = self.n() as u32;
        (self.event(from), (from / n) as u8, self.event(to), (to / n) as u8)
    }
}

/// State shared by all parallel searches.
struct Shared<'a> {
    aeg: &'a Aeg,
    arch: &'a Arch,
    limits: &'a Limits,
    start: Instant,
    stop: AtomicBool,
    found: AtomicUsize,
    candidates: AtomicU64,
    reason: Mutex<Option<String>>,
    /// Per abstract thread: how many segments (concrete threads) it may contribute.
    max_inst: Vec<u32>,
    /// Per object: exact (one address).
    exact: Vec<bool>,
    /// Which critical cycles to report (the others are dropped before counting).
    keep: &'a (dyn Fn(&Cycle) -> bool + Sync),
}

impl Shared<'_> {
    fn halt(&self, why: String) {
        self.stop.store(true, Relaxed);
        let mut r = self.reason.lock().unwrap();
        if r.is_none() {
            *r = Some(why);
        }
    }
    fn out_of_time(&self) -> bool {
        if self.start.elapsed() > self.limits.time_budget {
            self.halt(format!(
                "critical-cycle search stopped: time budget of {:.1} s exhausted after {} critical \
                 cycles; further critical cycles may exist, so the instrumentation may be unsound \
                 (raise the time budget)",
                self.limits.time_budget.as_secs_f64(),
                self.found.load(Relaxed).min(self.limits.max_cycles)
            ));
            true
        } else {
            false
        }
    }
}

/// How circuits are enumerated.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Mode {
    /// Every elementary circuit once, from its smallest port (Johnson).
    Start,
    /// Only circuits through an edge that may be unsafe in some cycle: for the `k`-th such
    /// edge, the circuits through it that avoid the ones ranked before it. A circuit without
    /// such an edge has no unsafe relation and is never critical, so on large graphs this
    /// skips the bulk of the (non-critical) circuits.
    Through,
}

/// What to search: the graph without the program-order pairs `skip` says, reporting the
/// critical cycles `keep` accepts.
pub(super) struct Query<'q> {
    pub mode: Mode,
    pub skip: &'q (dyn Fn(EventId, EventId) -> bool + Sync),
    /// External read-froms `(w, r)` chosen for delay: paths on which such a relation is a
    /// candidate (unsafe and realisable, see `select::cycle_candidates`) are cut there.
    pub chosen_rfe: &'q (dyn Fn(EventId, EventId) -> bool + Sync),
    pub keep: &'q (dyn Fn(&Cycle) -> bool + Sync),
    /// [`Mode::Through`]: stop the search through one edge after this many cycles (the
    /// lazy selection wants cycles spread over the graph more than all cycles of a spot).
    pub per_edge: usize,
    /// [`Mode::Through`]: the edges whose searches ran out of circuits (none left to try:
    /// every circuit through them was reported or rejected). Those listed are skipped, and
    /// each search that runs out adds its edge. See [`EdgeKey`].
    pub exhausted: Option<&'q Mutex<HashSet<EdgeKey>>>,
    /// [`Mode::Through`]: search steps the search through one edge may take, and where the
    /// edges go whose search took them without a cycle or running out (*undecided*).
    pub budget: Option<(u64, &'q Mutex<Vec<EdgeKey>>)>,
}

/// An edge of a port graph, stable across searches on subgraphs of one event graph: its
/// two events and the copies of its two ports (`In` is copy 0). A subgraph's ranks keep the
/// order of the edges that remain, so the circuits through an edge that avoid those ranked
/// before it can only become fewer when edges are removed: a search that ran out stays out.
pub type EdgeKey = (EventId, u8, EventId, u8);

/// The event graph as the searches walk it, built once and reused by every search on it
/// (the lazy selection searches the same graph round after round, each time without other
/// pairs): the program-order pairs out of each event in order of their second event, with
/// what the architecture says of each pair whatever the cycle, and the com steps.
pub struct SearchGraph<'a> {
    aeg: &'a Aeg,
    arch: &'a Arch,
    pairs_from: Vec<Vec<PairEdge<'a>>>,
    /// Per event, the events a com step leads to (either direction of a com edge), sorted.
    com_of: Vec<Vec<EventId>>,
}

/// A program-order pair out of an event, as [`SearchGraph`] keeps it.
struct PairEdge<'a> {
    to: EventId,
    info: &'a PairInfo,
    /// Its `Out` port copy ([`OUT_FROM_W`] or [`OUT_OTHER`]).
    copy: usize,
    /// Not safe in every cycle (`never_unsafe`): a relation a check ranks.
    may_be_unsafe: bool,
    /// Unsafe but for lightweight fences (see `may_be_critical`).
    strong_unsafe: bool,
    /// Ordered by an A-cumulative fence after an rfe into its first event.
    a_cumulative: bool,
    /// Unsafe in every cycle (`always_unsafe`).
    always_unsafe: bool,
}

impl<'a> SearchGraph<'a> {
    pub fn new(aeg: &'a Aeg, arch: &'a Arch) -> Self {
        let nev = aeg.events.len();
        let dir = |e: EventId| aeg.event(e).dir;
        let mut pairs_from: Vec<Vec<PairEdge<'a>>> = (0..nev).map(|_| Vec::new()).collect();
        for (&(a, b), info) in &aeg.pairs {
            let copy = if crate::select::buffered_with_rfe(dir(a), info) && !arch.pair_then_rfe_safe(Dir::W, info, false) { OUT_FROM_W } else { OUT_OTHER };
            pairs_from[a.0 as usize].push(PairEdge {
                to: b,
                info,
                copy,
                may_be_unsafe: !super::never_unsafe(aeg, arch, a, b, info),
                strong_unsafe: !arch.po_pair_safe_by(dir(a), dir(b), info, true),
                a_cumulative: arch.rfe_then_pair_safe(dir(b), info, false),
                always_unsafe: super::always_unsafe(aeg, arch, a, b, info),
            });
        }
        for v in &mut pairs_from {
            v.sort_unstable_by_key(|p| p.to);
        }
        SearchGraph { aeg, arch, pairs_from, com_of: com_steps(aeg) }
    }

    /// The program-order pair `a → b` is unsafe in every cycle through it (as
    /// `cycles::always_unsafe` says; false where there is no such pair).
    pub fn always_unsafe(&self, a: EventId, b: EventId) -> bool {
        let out = &self.pairs_from[a.0 as usize];
        out.binary_search_by_key(&b, |p| p.to).is_ok_and(|i| out[i].always_unsafe)
    }

    /// The [`sccs`] of the graph without the pairs `skip` says.
    fn sccs(&self, skip: &dyn Fn(EventId, EventId) -> bool) -> Vec<Vec<EventId>> {
        let pairs = self.pairs_from.iter().enumerate().flat_map(|(a, v)| {
            let a = EventId(a as u32);
            v.iter().filter(move |p| !skip(a, p.to)).map(move |p| (a, p.to))
        });
        components(self.aeg, pairs, &self.com_of)
    }
}

/// Per event, the events a com step leads to (either direction of a com edge; a com step
/// out of an event into a thread joined before it is impossible), sorted.
fn com_steps(aeg: &Aeg) -> Vec<Vec<EventId>> {
    let mut com_of: Vec<Vec<EventId>> = vec![Vec::new(); aeg.events.len()];
    for &(a, b) in &aeg.com {
        if aeg.com_step_possible(a, b) {
            com_of[a.0 as usize].push(b);
        }
        if a != b && aeg.com_step_possible(b, a) {
            com_of[b.0 as usize].push(a);
        }
    }
    for v in &mut com_of {
        v.sort_unstable();
        v.dedup();
    }
    com_of
}

/// The strongly connected components of the event graph (po+ pairs, com edges both ways;
/// never R–R) with at least two events, each sorted, in sorted order.
pub(super) fn sccs(aeg: &Aeg) -> Vec<Vec<EventId>> {
    components(aeg, aeg.pairs.keys().copied(), &com_steps(aeg))
}

/// The components of at least two events of the graph of the program-order `pairs` and the
/// com steps `com_of` (but R–R), each sorted, in sorted order.
fn components(aeg: &Aeg, pairs: impl Iterator<Item = (EventId, EventId)>, com_of: &[Vec<EventId>]) -> Vec<Vec<EventId>> {
    let dir = |e: EventId| aeg.event(e).dir;
    let n = aeg.events.len();
    let mut g = DiGraph::<(), ()>::with_capacity(n, 0);
    for _ in 0..n {
        g.add_node(());
    }
    let com = com_of.iter().enumerate().flat_map(|(a, v)| v.iter().map(move |&b| (EventId(a as u32), b)));
    for (a, b) in pairs.chain(com.filter(|&(a, b)| !(dir(a) == Dir::R && dir(b) == Dir::R))) {
        g.add_edge(NodeIndex::new(a.0 as usize), NodeIndex::new(b.0 as usize), ());
    }
    let mut sccs: Vec<Vec<EventId>> = tarjan_scc(&g)
        .into_iter()
        .filter(|c| c.len() >= 2)
        .map(|c| {
            let mut v: Vec<EventId> = c.into_iter().map(|n| EventId(n.index() as u32)).collect();
            v.sort_unstable();
            v
        })
        .collect();
    sccs.sort();
    sccs
}

pub(super) fn run(graph: &SearchGraph, limits: &Limits, q: &Query) -> CycleSet {
    run_sliced(graph, limits, q, MIN_SLICE)
}

/// Tasks run together at least, where they run in slices ([`run`]).
const MIN_SLICE: usize = 1024;

/// [`run`], running tasks that report at most one cycle in slices of at least `min_slice`.
pub(super) fn run_sliced(graph: &SearchGraph, limits: &Limits, q: &Query, min_slice: usize) -> CycleSet {
    let (aeg, arch) = (graph.aeg, graph.arch);
    let sccs = graph.sccs(q.skip);
    let mut set = CycleSet { arch: arch.name.to_string(), sccs: sccs.len(), ..CycleSet::default() };
    if arch.relaxes_nothing() {
        // No relation can be unsafe: no candidate is critical.
        return set;
    }

    let shared = Shared {
        aeg,
        arch,
        limits,
        start: Instant::now(),
        stop: AtomicBool::new(false),
        found: AtomicUsize::new(0),
        candidates: AtomicU64::new(0),
        reason: Mutex::new(None),
        max_inst: aeg
            .threads
            .iter()
            .map(|t| match t.instances {
                Instances::Count(n) => n,
                Instances::Unbounded => limits.unbounded_instances.max(1),
            })
            .collect(),
        exact: aeg.objects.iter().map(|o| o.exact).collect(),
        keep: q.keep,
    };
    let ctx = Context { graph, skip: q.skip, chosen_rfe: q.chosen_rfe };

    let graphs: Vec<PortGraph> = sccs
        .iter()
        .map(|scc| port_graph(scc, &ctx))
        .filter(|pg| pg.may_be_critical(aeg, arch))
        .collect();

    // The searches, one per start (or relation), run in parallel, each stopping after `cap`
    // cycles. What is kept is their cycles in round-robin order — every task's first, then
    // every task's second, … — up to the cycle limit: spread over the graph (a seed for the
    // lazy selection), and independent of the thread count and of scheduling, since a task
    // finds the same cycles first however many others run beside it (only the time budget
    // can change the outcome). `cap` starts at the limit's share per task and doubles for
    // the tasks that reached it (or their step budget), until the tasks together have one
    // more cycle than the limit or none has more; a task run again finds its first cycles
    // again (at most twice the work).
    let tasks: Vec<(usize, u32)> = graphs
        .iter()
        .enumerate()
        .flat_map(|(g, pg)| {
            let starts = match q.mode {
                Mode::Start => pg.n(),
                Mode::Through => pg.must.len(),
            };
            (0..starts as u32).map(move |s| (g, s))
        })
        .collect();
    let want = limits.max_cycles.saturating_add(1);
    let mut cap = want.div_ceil(tasks.len().max(1)).max(1);
    // [`Mode::Start`]: a start's search also stops after `steps` (doubling with `cap`), so
    // that starts with vast circuit spaces and few critical cycles do not hold up the rest
    // when the limit binds (deterministic work, unlike the time budget)
    let mut steps: u64 = START_STEPS;
    let mut lists: Vec<Found> = vec![Vec::new(); tasks.len()];
    let mut more: Vec<bool> = vec![true; tasks.len()];
    // [`Limits::step_budget`]: the steps the passes have taken; a pass gives each start at
    // most an equal share of what is left
    let mut spent: u64 = 0;
    loop {
        let todo: Vec<usize> = (0..tasks.len()).filter(|&i| more[i]).collect();
        let mut pass_steps = steps;
        if let (Mode::Start, Some(total)) = (q.mode, limits.step_budget) {
            pass_steps = steps.min(total.saturating_sub(spent) / todo.len().max(1) as u64);
            if pass_steps == 0 {
                let found: usize = lists.iter().map(Vec::len).sum();
                shared.halt(format!(
                    "critical-cycle search stopped: step budget of {total} exhausted after {} critical cycles; further critical cycles may exist, so the instrumentation may be unsound (raise the step budget)",
                    found.min(limits.max_cycles)
                ));
                break;
            }
        }
        // Where a task reports at most one cycle, the merge below keeps the first distinct
        // cycles in task order: the tasks then run in slices, in order, until those are
        // enough (the lazy selection's checks would otherwise search through every relation
        // of a large graph each round for a few thousand cycles).
        let one_each = match q.mode {
            Mode::Start => cap,
            Mode::Through => q.per_edge.min(cap),
        } == 1;
        let slice = if one_each { want.max(min_slice) } else { todo.len().max(1) };
        let mut distinct: HashSet<Vec<(u32, u32, bool)>> = HashSet::new();
        for part in todo.chunks(slice) {
            let results: Vec<(usize, Found, bool, u64)> = part
                .par_iter()
                .map_init(
                    || None::<(usize, Search)>,
                    |cache, &i| {
                        let (g, s) = tasks[i];
                        if cache.as_ref().is_none_or(|(cg, _)| *cg != g) {
                            *cache = Some((g, Search::new(&shared, &graphs[g])));
                        }
                        let st = &mut cache.as_mut().expect("set above").1;
                        let pg = &graphs[g];
                        match q.mode {
                            Mode::Start => {
                                let before = st.steps;
                                let (found, ran_out) = st.run_within(s, None, cap, pass_steps);
                                (i, found, !ran_out, st.steps - before)
                            }
                            Mode::Through => {
                                let key = pg.edge_key(s);
                                if q.exhausted.is_some_and(|x| x.lock().expect("no panics while locked").contains(&key)) {
                                    return (i, Vec::new(), false, 0);
                                }
                                let max = q.per_edge.min(cap);
                                let before = st.steps;
                                let budget = q.budget.map_or(u64::MAX, |b| b.0);
                                let (found, ran_out) = st.run_within(pg.must[s as usize].0, Some(s), max, budget);
                                if let (true, Some(x)) = (ran_out, q.exhausted) {
                                    x.lock().expect("no panics while locked").insert(key);
                                }
                                if let Some((_, undecided)) = q.budget.filter(|_| !ran_out && found.is_empty() && st.steps - before > budget) {
                                    undecided.lock().expect("no panics while locked").push(key);
                                }
                                // (stopped at `per_edge` itself: that is all this relation gives)
                                let full = !ran_out && found.len() >= max && max < q.per_edge;
                                (i, found, full, st.steps - before)
                            }
                        }
                    },
                )
                .collect();
            for (i, found, full, took) in results {
                spent += took;
                if one_each {
                    distinct.extend(found.iter().map(|(k, _)| k.clone()));
                }
                lists[i] = found;
                more[i] = full;
            }
            if one_each && distinct.len() >= want || shared.stop.load(Relaxed) {
                break;
            }
        }
        let total: usize = lists.iter().map(Vec::len).sum();
        if total >= want || !more.iter().any(|&m| m) || shared.stop.load(Relaxed) {
            break;
        }
        cap = cap.saturating_mul(2);
        steps = steps.saturating_mul(2);
    }
    let mut kept: Found = Vec::new();
    let mut seen: HashSet<Vec<(u32, u32, bool)>> = HashSet::new();
    let depth = lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut iters: Vec<std::vec::IntoIter<_>> = lists.into_iter().map(Vec::into_iter).collect();
    'merge: for _ in 0..depth {
        for it in &mut iters {
            if let Some((k, c)) = it.next() {
                if seen.insert(k.clone()) {
                    kept.push((k, c));
                    if kept.len() >= want {
                        break 'merge;
                    }
                }
            }
        }
    }
    if kept.len() > limits.max_cycles {
        shared.halt(format!(
            "critical-cycle search stopped: more than {} critical cycles; further critical \
             cycles are not reported, so the instrumentation may be unsound (raise the cycle \
             limit)",
            limits.max_cycles
        ));
    }
    kept.truncate(limits.max_cycles);
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    set.cycles = kept.into_iter().map(|(_, c)| c).collect();
    set.candidates = shared.candidates.load(Relaxed);
    set.limit_hit = shared.reason.into_inner().unwrap();
    set
}

/// What the port graphs are built from.
struct Context<'c, 'a> {
    graph: &'c SearchGraph<'a>,
    skip: &'c (dyn Fn(EventId, EventId) -> bool + Sync),
    chosen_rfe: &'c (dyn Fn(EventId, EventId) -> bool + Sync),
}

fn port_graph<'a>(scc: &[EventId], ctx: &Context<'_, 'a>) -> PortGraph<'a> {
    let (aeg, arch) = (ctx.graph.aeg, ctx.graph.arch);
    let n = scc.len();
    let local = |e: EventId| scc.binary_search(&e).ok().map(|i| i as u32);
    let dir = |e: EventId| aeg.event(e).dir;
    let exact = |e: EventId| aeg.object(aeg.event(e).obj).exact;
    let node = |copy: usize, i: usize| (copy * n + i) as u32;
    // A program-order pair out of the event is ordered by an A-cumulative fence (then an rfe
    // into it may be safe in a cycle).
    let a_cumulative_after = |c: EventId| ctx.graph.pairs_from[c.0 as usize].iter().any(|p| p.a_cumulative && !(ctx.skip)(c, p.to));
    let mut adj: Vec<Vec<(u32, Label<'a>)>> = vec![Vec::new(); 4 * n];
    // per `In` port, per segment edge out of it: whether it may be unsafe in some cycle
    let mut seg_unsafe: Vec<Vec<bool>> = vec![Vec::new(); n];
    let mut strong_unsafe = false;
    for (i, &e) in scc.iter().enumerate() {
        // Footnote 4 (ii), as `footnote4_shapes` decides on the closed cycle: a one-event
        // segment on an exact object is the middle of its three accesses, `r fr w rf r'` or
        // `w ws w' rf r` (anything else is a shorter cycle): a write, left towards a read.
        if !exact(e) || dir(e) == Dir::W {
            adj[i].push((node(OUT_LONE, i), Label::Seg(None)));
            seg_unsafe[i].push(false);
        }
        for p in &ctx.graph.pairs_from[e.0 as usize] {
            let Some(j) = local(p.to) else { continue };
            // footnote 4 (i): the two events of a segment are to different addresses
            let (oa, ob) = (aeg.event(e).obj, aeg.event(p.to).obj);
            if oa == ob && aeg.object(oa).exact || (ctx.skip)(e, p.to) {
                continue;
            }
            adj[i].push((node(p.copy, j as usize), Label::Seg(Some(p.info))));
            seg_unsafe[i].push(p.may_be_unsafe);
            strong_unsafe |= p.strong_unsafe;
        }
        for &c in &ctx.graph.com_of[e.0 as usize] {
            let Some(j) = local(c) else { continue };
            if dir(e) == Dir::R && dir(c) == Dir::R {
                continue;
            }
            // A chosen rfe breaks every cycle in which it is a candidate: unsafe (no
            // cumulative fence before its write or after its read) and realisable (not
            // entered by a pair from a read or an unfenced one from a write), as
            // `cycles::judge` and `cycle_candidates` say.
            let broken = !arch.rfe_safe() && dir(e) == Dir::W && dir(c) == Dir::R && (ctx.chosen_rfe)(e, c) && !a_cumulative_after(c);
            if !(exact(e) && dir(c) != Dir::R) && !broken {
                adj[node(OUT_LONE, i) as usize].push((j, Label::Com));
            }
            if !broken {
                adj[node(OUT_FROM_W, i) as usize].push((j, Label::Com));
            }
            adj[node(OUT_OTHER, i) as usize].push((j, Label::Com));
        }
    }
    // Edges that may be unsafe in some cycle: a pair that is not safe in every cycle (a
    // lightweight fence counts as absent: a cycle may relax it), and a write-to-read com
    // edge where rfe is relaxed.
    let mut rank: Vec<Vec<u32>> = adj.iter().map(|v| vec![u32::MAX; v.len()]).collect();
    let mut must = Vec::new();
    for (from, edges) in adj.iter().enumerate() {
        let e = scc[from % n];
        for (k, &(to, lab)) in edges.iter().enumerate() {
            let t = scc[to as usize % n];
            let may_be_unsafe = match lab {
                Label::Seg(_) => seg_unsafe[from][k],
                Label::Com => !arch.rfe_safe() && dir(e) == Dir::W && dir(t) == Dir::R,
            };
            if may_be_unsafe {
                rank[from][k] = must.len() as u32;
                must.push((from as u32, k));
            }
        }
    }
    PortGraph { events: scc.to_vec(), adj, rank, must, strong_unsafe }
}

impl PortGraph<'_> {
    /// Cheap filter: an SCC without any relation that could be unsafe has no critical cycle.
    fn may_be_critical(&self, aeg: &Aeg, arch: &Arch) -> bool {
        let dir = |e: EventId| aeg.event(e).dir;
        let n = self.n();
        self.strong_unsafe
            || !arch.rfe_safe()
                && (0..n).any(|i| dir(self.events[i]) == Dir::W && self.adj[OUT_OTHER * n + i].iter().any(|&(t, _)| dir(self.event(t)) == Dir::R))
    }
}

struct Frame {
    v: u32,
    next: usize,
    /// A circuit was found (or a branch was pruned by a path constraint) below this node.
    f: bool,
}

/// One worker's search state for one port graph, reused across start nodes.
struct Search<'s, 'a> {
    sh: &'s Shared<'a>,
    g: &'s PortGraph<'a>,
    blocked: Vec<bool>,
    b: Vec<Vec<u32>>,
    dirty: Vec<bool>,
    touched: Vec<u32>,
    thread_cnt: Vec<u32>,
    obj_cnt: Vec<u8>,
    obj_reads: Vec<u8>,
    /// Per event of the graph: a copy of its `Out` port is on the path.
    out_used: Vec<bool>,
    path: Vec<(u32, u32, Label<'a>)>,
    steps: u64,
}

/// Cycles with their sort key (edges as `(from, to, is_po)`).
type Found = Vec<(Vec<(u32, u32, bool)>, Cycle)>;

/// Search steps a start first gets in [`run`] (then twice as many per pass): enough that
/// most starts finish or find their cycles in the first pass (fewer spread the seed of the
/// lazy selection over easy spots: 2×200×16 on power then cost 62,000 instead of 46,500).
const START_STEPS: u64 = 65536;

impl<'s, 'a> Search<'s, 'a> {
    fn new(sh: &'s Shared<'a>, g: &'s PortGraph<'a>) -> Self {
        let nodes = g.adj.len();
        Search {
            sh,
            g,
            blocked: vec![false; nodes],
            b: vec![Vec::new(); nodes],
            dirty: vec![false; nodes],
            touched: Vec::new(),
            thread_cnt: vec![0; sh.aeg.threads.len()],
            obj_cnt: vec![0; sh.aeg.objects.len()],
            obj_reads: vec![0; sh.aeg.objects.len()],
            out_used: vec![false; g.n()],
            path: Vec::new(),
            steps: 0,
        }
    }

    fn touch(&mut self, x: u32) {
        if !self.dirty[x as usize] {
            self.dirty[x as usize] = true;
            self.touched.push(x);
        }
    }

    fn reset(&mut self) {
        for x in self.touched.drain(..) {
            let x = x as usize;
            self.blocked[x] = false;
            self.b[x].clear();
            self.dirty[x] = false;
        }
        self.path.clear();
        debug_assert!(self.thread_cnt.iter().all(|&c| c == 0));
    }

    fn block(&mut self, x: u32) {
        self.blocked[x as usize] = true;
        self.touch(x);
    }

    fn unblock(&mut self, u: u32) {
        let mut work = vec![u];
        while let Some(x) = work.pop() {
            if !self.blocked[x as usize] {
                continue;
            }
            self.blocked[x as usize] = false;
            work.append(&mut self.b[x as usize]);
        }
    }

    /// Accesses of a segment edge.
    fn seg_events(&self, from: u32, to: u32, pair: bool) -> (EventId, Option<EventId>) {
        let a = self.g.event(from);
        (a, pair.then(|| self.g.event(to)))
    }

    /// Take edge `from → to`: update the path constraints; false (and nothing changed) if a
    /// constraint is violated. Every constraint is monotone along a path.
    fn apply(&mut self, from: u32, to: u32, lab: Label) -> bool {
        let Label::Seg(pair) = lab else { return true };
        let aeg = self.sh.aeg;
        let (a, b) = self.seg_events(from, to, pair.is_some());
        let t = aeg.event(a).thread.0 as usize;
        // one copy of each `Out` port per circuit (a lone segment and a pair may both end at
        // one event, reached through a com edge between two instances of it)
        let out = to as usize % self.g.n();
        if self.thread_cnt[t] >= self.sh.max_inst[t] || self.out_used[out] {
            return false;
        }
        // per exact object: at most 3 accesses, at most two of them reads (the shape is
        // checked on the closed cycle)
        let ok = |cnt: u8, reads: u8, d: Dir| {
            let (c, r) = (cnt + 1, reads + (d == Dir::R) as u8);
            c <= 3 && r <= 2
        };
        for e in std::iter::once(a).chain(b) {
            let ev = aeg.event(e);
            let o = ev.obj.0 as usize;
            if self.sh.exact[o] && !ok(self.obj_cnt[o], self.obj_reads[o], ev.dir) {
                return false;
            }
        }
        // (the two events of a segment are never on the same exact object: filtered)
        self.thread_cnt[t] += 1;
        self.out_used[out] = true;
        for e in std::iter::once(a).chain(b) {
            let ev = aeg.event(e);
            let o = ev.obj.0 as usize;
            if self.sh.exact[o] {
                self.obj_cnt[o] += 1;
                self.obj_reads[o] += (ev.dir == Dir::R) as u8;
            }
        }
        true
    }

    fn undo(&mut self, from: u32, to: u32, lab: Label) {
        let Label::Seg(pair) = lab else { return };
        let aeg = self.sh.aeg;
        let (a, b) = self.seg_events(from, to, pair.is_some());
        self.thread_cnt[aeg.event(a).thread.0 as usize] -= 1;
        self.out_used[to as usize % self.g.n()] = false;
        for e in std::iter::once(a).chain(b) {
            let ev = aeg.event(e);
            let o = ev.obj.0 as usize;
            if self.sh.exact[o] {
                self.obj_cnt[o] -= 1;
                self.obj_reads[o] -= (ev.dir == Dir::R) as u8;
            }
        }
    }

    /// A circuit closed: the path holds segment and com edges alternately, starting with a
    /// segment at the start node.
    fn close(&mut self, out: &mut Found, candidates: &mut u64) {
        *candidates += 1;
        let segs: Vec<Seg> = self
            .path
            .iter()
            .filter_map(|&(from, to, lab)| match lab {
                Label::Seg(pair) => Some(Seg { first: self.g.event(from), last: self.g.event(to), pair }),
                Label::Com => None,
            })
            .collect();
        let Some(cycle) = classify(self.sh.aeg, self.sh.arch, &segs) else { return };
        if !(self.sh.keep)(&cycle) {
            return;
        }
        // (counted for the time-budget message only: the limit is applied in task order)
        self.sh.found.fetch_add(1, Relaxed);
        out.push((cycle.key(), cycle));
    }

    /// Johnson 1975, iteratively. Without `through`: all circuits whose smallest port is
    /// `In(s)`. With `through = Some(k)`: all circuits that take the `k`-th ranked edge (out
    /// of `s`) and no edge ranked before it. Stops after `max` reported cycles, a limit, or
    /// `budget` steps (deterministic work, unlike time). The flag says whether the search
    /// ran out of circuits (rather than stopping at `max`, a limit or the budget).
    fn run_within(&mut self, s: u32, through: Option<u32>, max: usize, budget: u64) -> (Found, bool) {
        let mut out = Vec::new();
        let first_step = self.steps;
        if self.sh.stop.load(Relaxed) || self.sh.out_of_time() {
            return (out, false);
        }
        let mut ran_out = false;
        self.reset();
        let mut candidates = 0u64;
        let g = self.g;
        self.block(s);
        let mut stack = vec![Frame { v: s, next: 0, f: false }];
        let min_rank = through.unwrap_or(0);
        if let Some(k) = through {
            // the forced first edge; the start frame has nothing else to try
            let (from, idx) = g.must[k as usize];
            debug_assert_eq!(from, s);
            let (w, lab) = g.adj[from as usize][idx];
            stack[0].next = usize::MAX;
            if w == s || !self.apply(s, w, lab) {
                return (out, true);
            }
            self.path.push((s, w, lab));
            self.block(w);
            stack.push(Frame { v: w, next: 0, f: false });
        }
        loop {
            self.steps += 1;
            if self.steps.is_multiple_of(1024) && self.sh.out_of_time() || self.sh.stop.load(Relaxed) || self.steps - first_step > budget {
                break;
            }
            let top = stack.last_mut().unwrap();
            let v = top.v;
            if let Some(&(w, lab)) = g.adj[v as usize].get(top.next) {
                let rank = g.rank[v as usize][top.next];
                top.next += 1;
                if through.is_none() && w < s || rank < min_rank {
                    continue;
                }
                // A com edge into a thread without an instance left leads nowhere but the
                // start: its next segment would fail the instance bound anyway.
                let dead_end = matches!(lab, Label::Com) && w != s && {
                    let t = self.sh.aeg.event(g.event(w)).thread.0 as usize;
                    self.thread_cnt[t] >= self.sh.max_inst[t]
                };
                if dead_end || !self.apply(v, w, lab) {
                    // pruned by a path constraint: v must not be blocked on this account
                    top.f = true;
                    continue;
                }
                if w == s {
                    top.f = true;
                    self.path.push((v, w, lab));
                    self.close(&mut out, &mut candidates);
                    self.path.pop();
                    self.undo(v, w, lab);
                    if out.len() >= max {
                        break;
                    }
                    continue;
                }
                if self.blocked[w as usize] {
                    self.undo(v, w, lab);
                    continue;
                }
                self.path.push((v, w, lab));
                self.block(w);
                stack.push(Frame { v: w, next: 0, f: false });
            } else {
                let f = top.f;
                if f {
                    self.unblock(v);
                } else {
                    for &(w, _) in &g.adj[v as usize] {
                        if (through.is_some() || w >= s) && !self.b[w as usize].contains(&v) {
                            self.b[w as usize].push(v);
                            self.touch(w);
                        }
                    }
                }
                stack.pop();
                let Some(parent) = stack.last_mut() else {
                    ran_out = true;
                    break;
                };
                parent.f |= f;
                let (pv, pw, lab) = self.path.pop().unwrap();
                self.undo(pv, pw, lab);
            }
        }
        // unwind whatever an early stop left on the path
        while let Some((pv, pw, lab)) = self.path.pop() {
            self.undo(pv, pw, lab);
        }
        self.sh.candidates.fetch_add(candidates, Relaxed);
        (out, ran_out)
    }
}
