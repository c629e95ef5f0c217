//! herd's propagation and observation axioms for the non-multi-copy-atomic models (Power,
//! ARM; Alglave, Maranget, Tautschnig, "Herding cats", TOPLAS 2014, §6), checked on one
//! candidate execution of the SAT model:
//!
//! ```text
//! hb        = ppo | fence | rfe
//! prop-base = (fence | rfe; fence); hb*
//! prop      = (prop-base & W*W) | (chapo?; prop-base*; ffence; hb*)
//! chapo     = rfe | fre | coe | fre; rfe | coe; rfe
//! propagation: acyclic(co | prop)        observation: irreflexive(fre; prop; hb*)
//! ```
//!
//! `fence` is every cumulative fence's pairs, `ffence` the strong fences' (`sync`, `dmb`),
//! `ppo` the architecture table's (same address to a write, dependencies, acquire reads,
//! and the pairs a non-cumulative fence orders) and herd's `(addr | data); rfi`. The encoding
//! ([`super::order`]) has the other axioms (no thin air, SC per location, atomicity) and an
//! order these two imply (coherence, from-read, `ppo` and strong fences). What they forbid
//! beyond it — lightweight fences, cumulativity through happens-before chains — is added
//! lazily: a candidate that violates either axiom is excluded by a clause over the literals
//! of its violating cycle's edges (guards, sources of reads, clock comparisons for
//! coherence), and the solver searches again. Every clause holds in every valid execution
//! (its literals are the cycle's edges), so nothing the model allows is lost.
//!
//! The search runs both axioms as automata over the candidate's edges (a fence is a node
//! between the accesses it orders, one per direction it waits for), breadth first from each
//! event on a cycle of the candidate's graph, so the cycle found is a shortest one.

use super::sat::Lit;
use super::order::{acquire_orders, block_fence, dep_sources, dir, Encoding};
use super::symex::Symex;
use super::{model_value, Relaxed, RelaxedFence};
use crate::aeg::Dir::{self, R, W};
use crate::arch::PairSet;
use std::collections::{HashMap, VecDeque};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Label {
    Ppo,
    /// From an access into a fence node.
    FenceIn { strong: bool },
    /// From a fence node to an access it orders.
    FenceOut,
    Rfe,
    Fre,
    Coe,
    Coi,
}

/// Why an edge is in the candidate: what its literals are.
#[derive(Clone, Debug)]
enum Why {
    Lits(Vec<Lit>),
    /// Same address: both active and the addresses equal.
    SameAddr(usize, usize),
    /// Coherence between two writes.
    Co(usize, usize),
    /// A read `r` took its value from `src` (selector `s`; `None`: the initial value) and `w`
    /// comes later in coherence.
    Fr { r: usize, s: Lit, src: Option<usize>, w: usize },
}

/// The candidate execution as a graph: events first, then fence nodes.
struct Graph {
    /// Node → event (`None`: a fence node).
    event: Vec<Option<usize>>,
    /// The node is a write event.
    write: Vec<bool>,
    adj: Vec<Vec<(usize, Label, usize)>>,
    why: Vec<Why>,
}

impl Graph {
    fn edge(&mut self, from: usize, to: usize, l: Label, why: Why) {
        self.why.push(why);
        self.adj[from].push((to, l, self.why.len() - 1));
    }

    fn node(&mut self, ev: Option<usize>) -> usize {
        self.event.push(ev);
        self.write.push(false);
        self.adj.push(vec![]);
        self.event.len() - 1
    }
}

// Automaton states. Observation: O0 -fre-> A, then prop (prop1 through P1*, prop2 through
// the C block), then hb* in Z back to the read. Propagation: Z0 with co, prop1 through Q1*,
// prop2 through the same block shifted by `PROP2`.
const O0: u8 = 0;
const A: u8 = 1;
const P1M: u8 = 2;
const P1R: u8 = 3;
const P1H: u8 = 4;
const P1HM: u8 = 5;
// prop2 block (observation copy; the propagation copy is `+ PROP2`).
const C1: u8 = 6;
const C2: u8 = 7;
const BM: u8 = 8;
const BR: u8 = 9;
const BH: u8 = 10;
const BHM: u8 = 11;
const SM: u8 = 12;
const FIN: u8 = 13;
const FINM: u8 = 14;
const Z: u8 = 15;
const ZM: u8 = 16;
const PROP2: u8 = 20;
const Z0: u8 = 20;
const Q1M: u8 = 21;
const Q1R: u8 = 22;
const Q1H: u8 = 23;
const Q1HM: u8 = 24;
const NSTATES: usize = 35;

fn hb_step(l: Label, stay: u8, mid: u8, out: &mut Vec<u8>) {
    match l {
        Label::Ppo | Label::Rfe => out.push(stay),
        Label::FenceIn { .. } => out.push(mid),
        _ => {}
    }
}

/// States after an edge labelled `l` from state `q` at a node that is a write (`w`).
fn step(q: u8, l: Label, w: bool, out: &mut Vec<u8>) {
    use Label::*;
    match q {
        O0 if l == Fre => out.push(A),
        A => match l {
            FenceIn { .. } => out.push(P1M),
            Rfe => out.extend([P1R, C2]),
            Fre | Coe => out.push(C1),
            _ => {}
        },
        P1R | Q1R if matches!(l, FenceIn { .. }) => out.push(q - 1),
        P1M | Q1M if l == FenceOut => out.push(q + 2),
        P1H | Q1H => hb_step(l, q, q + 1, out),
        P1HM | Q1HM if l == FenceOut => out.push(q - 1),
        Z => hb_step(l, Z, ZM, out),
        ZM if l == FenceOut => out.push(Z),
        Z0 => match l {
            Coe => out.extend([Z0, C1 + PROP2]),
            Coi => out.push(Z0),
            FenceIn { .. } if w => out.push(Q1M),
            Rfe => {
                if w {
                    out.push(Q1R);
                }
                out.push(C2 + PROP2);
            }
            Fre => out.push(C1 + PROP2),
            _ => {}
        },
        _ => {
            // The prop2 block, either copy.
            let (k, base) = if q >= PROP2 { (q - PROP2, PROP2) } else { (q, 0) };
            match (k, l) {
                (C1, Rfe) => out.push(C2 + base),
                (C2, FenceIn { strong }) => {
                    out.push(BM + base);
                    if strong {
                        out.push(SM + base);
                    }
                }
                (C2, Rfe) => out.push(BR + base),
                (SM, FenceOut) => out.push(FIN + base),
                (BM, FenceOut) => out.push(BH + base),
                (BR, FenceIn { .. }) => out.push(BM + base),
                (BH, _) => hb_step(l, BH + base, BHM + base, out),
                (BHM, FenceOut) => out.push(BH + base),
                (FIN, _) => hb_step(l, FIN + base, FINM + base, out),
                (FINM, FenceOut) => out.push(FIN + base),
                _ => {}
            }
        }
    }
}

/// States reached from `q` without an edge at a node that is a write (`w`).
fn eps(q: u8, w: bool) -> &'static [u8] {
    match q {
        A => &[C2],
        C1 | BH => &[C2],
        FIN => &[Z],
        P1H if w => &[Z],
        Z0 => &[C2 + PROP2],
        q if q == C1 + PROP2 || q == BH + PROP2 => &[C2 + PROP2],
        q if q == FIN + PROP2 => &[Z0],
        Q1H if w => &[Z0],
        _ => &[],
    }
}

/// Checks the SAT model's candidate execution; `Some(clause)` excludes a violation found.
pub(super) fn check(sx: &mut Symex, enc: &Encoding, m: &Relaxed) -> Option<Vec<Lit>> {
    let g = build(sx, enc, m);
    // The candidate's graph, for debugging the axioms (`WEAKC_BMC_DEBUG=2`).
    if std::env::var("WEAKC_BMC_DEBUG").is_ok_and(|v| v == "2") {
        for (x, es) in g.adj.iter().enumerate() {
            for &(y, l, _) in es {
                let name = |v: usize| g.event[v].map_or(format!("F{v}"), |e| format!("{}{}:{}", if sx.events[e].write { "W" } else { "R" }, e, sx.events[e].label));
                eprintln!("  {} -{l:?}-> {}", name(x), name(y));
            }
        }
    }
    let path = search(&g)?;
    let mut lits = vec![];
    for why in path {
        lits.extend(literals(sx, enc, &g.why[why]));
    }
    lits.retain(|&l| l != Lit::TRUE);
    lits.sort_unstable();
    lits.dedup();
    Some(lits.into_iter().map(|l| !l).collect())
}

fn build(sx: &Symex, enc: &Encoding, m: &Relaxed) -> Graph {
    let n = sx.events.len();
    let active: Vec<bool> = sx.events.iter().map(|e| sx.sat.value(e.guard)).collect();
    let addr: Vec<u128> = (0..n).map(|e| if active[e] { model_value(sx, &sx.events[e].addr) } else { 0 }).collect();
    let mut g = Graph { event: (0..n).map(Some).collect(), write: sx.events.iter().map(|e| e.write).collect(), adj: vec![vec![]; n], why: vec![] };
    let mut by_block: Vec<Vec<usize>> = vec![vec![]; sx.blocks.len()];
    for e in (0..n).filter(|&e| active[e]) {
        by_block[sx.events[e].block as usize].push(e);
    }
    for b in &mut by_block {
        b.sort_by_key(|&e| sx.events[e].po);
    }
    // Program order: accesses, fences, dependencies, same address.
    for t in 0..sx.threads.len() {
        let mut before: Vec<usize> = vec![];
        // Fence nodes so far: (node, the direction it waits for, what it orders).
        let mut fences: Vec<(usize, Dir, PairSet)> = vec![];
        // Non-cumulative fences so far: (accesses before it, what it orders, its guard).
        let mut local: Vec<(usize, PairSet, Lit)> = vec![];
        for &b in &sx.threads[t].blocks {
            for &e in &by_block[b as usize] {
                let ev = &sx.events[e];
                let d = dir(ev.write);
                for &(node, d1, orders) in &fences {
                    if orders.contains(d1, d) {
                        g.edge(node, e, Label::FenceOut, Why::Lits(vec![ev.guard]));
                    }
                }
                if ev.write {
                    for &a in &before {
                        if addr[a] == addr[e] {
                            g.edge(a, e, Label::Ppo, Why::SameAddr(a, e));
                        }
                    }
                }
                for (r, c) in dep_sources(m, ev) {
                    let r = r as usize;
                    if active[r] && sx.sat.value(c) {
                        g.edge(r, e, Label::Ppo, Why::Lits(vec![sx.events[r].guard, ev.guard, c]));
                    }
                }
                for &(upto, orders, fg) in &local {
                    for &a in &before[..upto] {
                        if orders.contains(dir(sx.events[a].write), d) {
                            g.edge(a, e, Label::Ppo, Why::Lits(vec![sx.events[a].guard, fg, ev.guard]));
                        }
                    }
                }
                for &a in &before {
                    if acquire_orders(m, &sx.events[a], d) {
                        g.edge(a, e, Label::Ppo, Why::Lits(vec![sx.events[a].guard, ev.guard]));
                    }
                }
                before.push(e);
            }
            let bi = &sx.blocks[b as usize];
            let Some(RelaxedFence { orders, strong, cumulative, .. }) = block_fence(m, bi.kind) else { continue };
            if !sx.sat.value(bi.guard) {
                continue;
            }
            if !cumulative {
                local.push((before.len(), orders, bi.guard));
                continue;
            }
            for d1 in [R, W] {
                if !orders.contains(d1, R) && !orders.contains(d1, W) {
                    continue;
                }
                let node = g.node(None);
                for &a in &before {
                    if dir(sx.events[a].write) == d1 {
                        g.edge(a, node, Label::FenceIn { strong }, Why::Lits(vec![sx.events[a].guard, bi.guard]));
                    }
                }
                fences.push((node, d1, orders));
            }
        }
    }
    // Reads-from, coherence (by clock; one block's writes by program order), from-read.
    let ranks = enc.ranks(sx);
    let clock = |e: usize| (ranks[sx.events[e].block as usize], sx.events[e].block, sx.events[e].po);
    let mut writes: HashMap<u128, Vec<usize>> = HashMap::new();
    for e in (0..n).filter(|&e| active[e] && sx.events[e].write) {
        writes.entry(addr[e]).or_default().push(e);
    }
    let mut co_pos: HashMap<usize, usize> = HashMap::new();
    for ws in writes.values_mut() {
        ws.sort_by_cached_key(|&e| clock(e));
        for (i, &a) in ws.iter().enumerate() {
            co_pos.insert(a, i);
            for &b in &ws[i + 1..] {
                let l = if sx.events[a].thread == sx.events[b].thread { Label::Coi } else { Label::Coe };
                g.edge(a, b, l, Why::Co(a, b));
            }
        }
    }
    for (r, sources) in &sx.rf_choices {
        let r = *r;
        if !active[r] {
            continue;
        }
        let Some(&(src, s)) = sources.iter().find(|(_, s)| sx.sat.value(*s)) else { continue };
        let tr = sx.events[r].thread;
        if let Some(w) = src {
            if sx.events[w].thread != tr {
                g.edge(w, r, Label::Rfe, Why::Lits(vec![s, sx.events[r].guard]));
            } else if let Some(d) = &sx.events[w].deps {
                // `(addr | data); rfi` is in herd's ppo (`ii0` of ppc.cat and arm.cat): the read
                // waits for the reads the forwarded write's address or value came from.
                for &(r1, c) in d.addr.entries().iter().chain(d.data.entries()) {
                    let r1 = r1 as usize;
                    if active[r1] && sx.sat.value(c) {
                        g.edge(r1, r, Label::Ppo, Why::Lits(vec![sx.events[r1].guard, c, s, sx.events[r].guard]));
                    }
                }
            }
        }
        let Some(ws) = writes.get(&addr[r]) else { continue };
        let after = src.map_or(0, |w| co_pos.get(&w).map_or(ws.len(), |p| p + 1));
        for &w in &ws[after.min(ws.len())..] {
            if sx.events[w].thread != tr {
                g.edge(r, w, Label::Fre, Why::Fr { r, s, src, w });
            }
        }
    }
    g
}

/// A violating cycle (the reasons of its edges), shortest first per start.
fn search(g: &Graph) -> Option<Vec<usize>> {
    let on_cycle = cyclic_nodes(g);
    for start in 0..g.event.len() {
        if !on_cycle[start] || g.event[start].is_none() {
            continue;
        }
        let reads = g.adj[start].iter().any(|e| e.1 == Label::Fre);
        for (init, goal) in [(O0, Z), (Z0, Z0)] {
            if init == O0 && !reads {
                continue;
            }
            if let Some(p) = bfs(g, start, init, goal, &on_cycle) {
                return Some(p);
            }
        }
    }
    None
}

/// Nodes on some cycle of the whole graph (the only possible starts).
fn cyclic_nodes(g: &Graph) -> Vec<bool> {
    let mut pg = petgraph::graph::DiGraph::<(), ()>::new();
    let ids: Vec<_> = (0..g.event.len()).map(|_| pg.add_node(())).collect();
    for (x, es) in g.adj.iter().enumerate() {
        for e in es {
            pg.add_edge(ids[x], ids[e.0], ());
        }
    }
    let mut on = vec![false; g.event.len()];
    for scc in petgraph::algo::tarjan_scc(&pg) {
        if scc.len() > 1 {
            for v in scc {
                on[v.index()] = true;
            }
        }
    }
    on
}

const NONE: usize = usize::MAX;

/// Breadth first over (node, state) from `(start, init)` to `(start, goal)` after at least
/// one edge; the reasons of the path's edges.
fn bfs(g: &Graph, start: usize, init: u8, goal: u8, on: &[bool]) -> Option<Vec<usize>> {
    let idx = |x: usize, q: u8| x * NSTATES + q as usize;
    // Product node → (previous product node, reason of the edge; NONE for an epsilon).
    let mut parent: HashMap<usize, (usize, usize)> = HashMap::new();
    let mut queue: VecDeque<(usize, u8)> = VecDeque::new();
    // Enters (x, q) and its epsilon closure; the goal's parent link when reached.
    let enter = |x: usize, q: u8, prev: usize, why: usize, moved: bool, parent: &mut HashMap<usize, (usize, usize)>, queue: &mut VecDeque<(usize, u8)>| -> Option<(usize, usize)> {
        let mut stack = vec![(q, prev, why)];
        while let Some((q, prev, why)) = stack.pop() {
            if moved && x == start && q == goal {
                return Some((prev, why));
            }
            let k = idx(x, q);
            if parent.contains_key(&k) {
                continue;
            }
            parent.insert(k, (prev, why));
            queue.push_back((x, q));
            for &q2 in eps(q, g.write[x]) {
                stack.push((q2, k, NONE));
            }
        }
        None
    };
    enter(start, init, NONE, NONE, false, &mut parent, &mut queue);
    let mut next = vec![];
    while let Some((x, q)) = queue.pop_front() {
        let k = idx(x, q);
        for &(y, l, why) in &g.adj[x] {
            if !on[y] {
                continue;
            }
            next.clear();
            step(q, l, g.write[x], &mut next);
            for &q2 in &next {
                if let Some(last) = enter(y, q2, k, why, true, &mut parent, &mut queue) {
                    let mut out = vec![];
                    let mut cur = last;
                    loop {
                        if cur.1 != NONE {
                            out.push(cur.1);
                        }
                        if cur.0 == NONE {
                            break;
                        }
                        cur = parent[&cur.0];
                    }
                    out.reverse();
                    return Some(out);
                }
            }
        }
    }
    None
}

/// The literals of an edge, all true in the model: adding `¬` of them all excludes it.
fn literals(sx: &mut Symex, enc: &Encoding, why: &Why) -> Vec<Lit> {
    match *why {
        Why::Lits(ref l) => l.clone(),
        Why::SameAddr(a, b) => vec![sx.events[a].guard, sx.events[b].guard, same_addr(sx, a, b)],
        Why::Co(a, b) => vec![sx.events[a].guard, sx.events[b].guard, same_addr(sx, a, b), co(sx, enc, a, b)],
        Why::Fr { r, s, src, w } => {
            let mut v = vec![s, sx.events[r].guard, sx.events[w].guard, same_addr(sx, r, w)];
            if let Some(a) = src {
                v.push(co(sx, enc, a, w));
            }
            v
        }
    }
}

fn same_addr(sx: &mut Symex, a: usize, b: usize) -> Lit {
    let (x, y) = (sx.events[a].addr.clone(), sx.events[b].addr.clone());
    sx.sat.bv_eq(&x, &y)
}

/// Write `a` before `b` in coherence: by program order in one block, otherwise `b`'s clock is
/// not below `a`'s (equal clocks: the tie the candidate's order broke; with distinct clocks,
/// as every valid execution can have, it is the order itself). With theory edges: `b` is not
/// required before `a` (the exclusion clause then requires it, a positive use of the edge;
/// the candidate, whose order put `a` first, has that edge false).
fn co(sx: &mut Symex, enc: &Encoding, a: usize, b: usize) -> Lit {
    let (ea, eb) = (&sx.events[a], &sx.events[b]);
    if ea.block == eb.block {
        return Lit::from_bool(ea.po < eb.po);
    }
    if enc.edges {
        let (ba, bb) = (ea.block, eb.block);
        return !sx.sat.order_edge(bb, ba);
    }
    let (ca, cb) = (enc.clocks[ea.block as usize].clone(), enc.clocks[eb.block as usize].clone());
    !sx.sat.bv_ult(&cb, &ca)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of `n` events (`writes` says which are writes) and the given edges; a fence is
    /// `(from, strong, to)` through a node of its own.
    fn graph(writes: &[bool], edges: &[(usize, Label, usize)], fences: &[(&[usize], bool, &[usize])]) -> Graph {
        let n = writes.len();
        let mut g = Graph { event: (0..n).map(Some).collect(), write: writes.to_vec(), adj: vec![vec![]; n], why: vec![] };
        for &(a, l, b) in edges {
            g.edge(a, b, l, Why::Lits(vec![]));
        }
        for (from, strong, to) in fences {
            let node = g.node(None);
            for &a in from.iter() {
                g.edge(a, node, Label::FenceIn { strong: *strong }, Why::Lits(vec![]));
            }
            for &b in to.iter() {
                g.edge(node, b, Label::FenceOut, Why::Lits(vec![]));
            }
        }
        g
    }

    #[test]
    fn mp_with_lwsyncs_violates_observation() {
        // 0: Wx, 1: Wy (lwsync between) | 2: Ry (reads 1), 3: Rx (reads the initial value).
        let g = graph(&[true, true, false, false], &[(1, Label::Rfe, 2), (3, Label::Fre, 0)], &[(&[0], false, &[1]), (&[2], false, &[3])]);
        assert!(search(&g).is_some());
        // Without the reader's fence (MP+lwsync+po) nothing orders its reads.
        let g = graph(&[true, true, false, false], &[(1, Label::Rfe, 2), (3, Label::Fre, 0)], &[(&[0], false, &[1])]);
        assert!(search(&g).is_none());
    }

    #[test]
    fn r_with_lwsync_and_sync_is_allowed_but_not_with_two_syncs() {
        // 0: Wx, 1: Wy=1 | 2: Wy=2, 3: Rx (initial value); y ends as 2.
        let edges = [(1, Label::Coe, 2), (3, Label::Fre, 0)];
        let w = [true, true, true, false];
        let g = graph(&w, &edges, &[(&[0], false, &[1]), (&[2], true, &[3])]);
        assert!(search(&g).is_none(), "R+lwsync+sync is allowed by ppc.cat");
        let g = graph(&w, &edges, &[(&[0], true, &[1]), (&[2], true, &[3])]);
        let cycle = search(&g).expect("R+syncs is forbidden");
        assert!(cycle.len() >= 4, "{cycle:?}");
    }

    #[test]
    fn wrc_needs_cumulativity_through_happens_before() {
        // 0: Wx | 1: Rx (reads 0) then 2: Wy | 3: Ry (reads 2) then 4: Rx (initial value).
        let edges = [(0, Label::Rfe, 1), (2, Label::Rfe, 3), (4, Label::Fre, 0)];
        let w = [true, false, true, false, false];
        // Dependencies only (WRC+data+addr): allowed, the write is not multi-copy atomic.
        let mut deps = edges.to_vec();
        deps.extend([(1, Label::Ppo, 2), (3, Label::Ppo, 4)]);
        assert!(search(&graph(&w, &deps, &[])).is_none());
        // A sync in the middle thread (WRC+sync+addr): forbidden (A-cumulativity).
        let mut e = edges.to_vec();
        e.push((3, Label::Ppo, 4));
        assert!(search(&graph(&w, &e, &[(&[1], true, &[2])])).is_some());
    }
}
