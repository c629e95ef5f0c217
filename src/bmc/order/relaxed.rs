//! Program order of the multi-copy-atomic models that keep no pair by itself (RMO,
//! AArch64), as clock constraints: an access is put after exactly the earlier accesses of
//! its thread the model orders before it —
//!
//! * the same address, unless the earlier one is a write and the later a read (the read may
//!   take the thread's own write before it reaches memory: store forwarding);
//! * the reads its address, its value (a write), the branches before it (alone, or followed
//!   by `isync`/`isb`) or the address of an access between depended on, as far as the table's
//!   dependency rules keep them;
//! * acquire reads before it, every earlier access before a release write, a release write
//!   before an RCsc acquire read;
//! * across a fence, the pairs of directions it orders; across a barrier of the execution
//!   (thread start and end, spawn, join, an atomic section of the program), everything.
//!
//! Every link between two accesses holds only when both execute, so an access on a path not
//! taken orders nothing through it. A fence's clock stands between the accesses it orders
//! when it orders every earlier direction it waits for with every later one it holds back;
//! otherwise (`lwsync`-like fences) its pairs are linked directly.

use super::ppo::Ppo;
use super::{Clocks, Enc};
use crate::aeg::Dir::{self, R, W};
use crate::arch::PairSet;
use crate::bmc::bv::as_const;
use crate::bmc::sat::Lit;
use crate::bmc::symex::{BlockKind, Event};
use crate::bmc::{Relaxed, RelaxedFence};
use crate::ir::Acquire;
use std::collections::HashMap;

/// A fence since the thread's last unconditional barrier.
struct FenceAt {
    block: u32,
    guard: Lit,
    orders: PairSet,
    /// How many accesses of the thread came before it (an index into `Thread::accs`).
    after: usize,
    /// Its clock stands between the pairs (see the module docs).
    node: bool,
    /// A lightweight fence of a non-multi-copy-atomic model orders in happens-before only.
    into: Clocks,
}

/// Per thread, since its last unconditional barrier.
#[derive(Default)]
struct Thread {
    last_full: Option<u32>,
    accs: Vec<usize>,
    fences: Vec<FenceAt>,
    acquires: Vec<usize>,
}

pub(in crate::bmc) fn dir(write: bool) -> Dir {
    if write {
        W
    } else {
        R
    }
}

/// Whether the acquire read `a` orders a later access of direction `d2`: an acquire
/// instruction as the table's acquire/release rules say, Power's `ld; cmp; bc; isync` (and
/// ARM's with `isb`) as its ctrl+isync rule.
pub(in crate::bmc) fn acquire_orders(m: &Relaxed, a: &crate::bmc::symex::Event, d2: Dir) -> bool {
    match a.deps.as_ref().map_or(Acquire::None, |d| d.acquire) {
        Acquire::None => false,
        Acquire::CtrlIsync => m.deps.ctrl_isync.contains(R, d2),
        Acquire::Pc | Acquire::Sc => m.acq_rel.acquire.contains(R, d2),
    }
}

/// The reads access `ev` depends on as the table's dependency rules keep them, each with the
/// condition it holds under (sorted, without repeats).
pub(in crate::bmc) fn dep_sources(m: &Relaxed, ev: &Event) -> Vec<(u32, Lit)> {
    let Some(deps) = &ev.deps else { return vec![] };
    let (rules, d2) = (m.deps, dir(ev.write));
    let mut from: Vec<(u32, Lit)> = vec![];
    let mut add = |set: PairSet, t: &crate::bmc::symex::Taint| {
        if set.contains(R, d2) {
            from.extend_from_slice(t.entries());
        }
    };
    add(rules.addr, &deps.addr);
    if d2 == W {
        add(rules.data, &deps.data);
        add(rules.addr_po, &deps.addr_po);
    }
    add(rules.ctrl, &deps.ctrl);
    add(rules.ctrl_isync, &deps.isync);
    from.sort_unstable();
    from.dedup();
    from
}

/// What a block of kind `kind` orders under `m`, as a fence: a barrier of the execution
/// (thread start and end, spawn, join, an atomic section) everything, strongly and
/// cumulatively; a fence its table row; anything else nothing.
pub(in crate::bmc) fn block_fence(m: &Relaxed, kind: BlockKind) -> Option<RelaxedFence> {
    match kind {
        BlockKind::Marker | BlockKind::AtomicSection => Some(RelaxedFence { fence: crate::ir::Fence::Full, orders: PairSet::ALL, strong: true, cumulative: true }),
        BlockKind::Fence(f) => m.fences.iter().find(|x| x.fence == f).copied(),
        BlockKind::Access | BlockKind::Atomic => None,
    }
}

/// Whether `orders` is a product: every direction it waits for is held back from every
/// direction it orders after it.
fn is_product(orders: PairSet) -> bool {
    let after = |d: Dir| [R, W].map(|e| orders.contains(d, e));
    let (r, w) = (after(R), after(W));
    r == w || r == [false, false] || w == [false, false]
}

impl Enc<'_, '_> {
    /// Event `e1` (earlier, of the same thread) before event `e2` when both execute.
    fn link_events(&mut self, e1: usize, e2: usize, extra: &[Lit]) {
        self.link_events_into(Clocks::Both, e1, e2, extra);
    }

    fn link_events_into(&mut self, into: Clocks, e1: usize, e2: usize, extra: &[Lit]) {
        let (a, b) = (&self.sx.events[e1], &self.sx.events[e2]);
        if a.block == b.block || a.guard == Lit::FALSE {
            return;
        }
        let mut conds = vec![a.guard, b.guard];
        conds.extend_from_slice(extra);
        let (b1, b2) = (a.block, b.block);
        self.link_into(into, &conds, b1, b2);
    }

    /// The links into access `e` of a thread in state `th`.
    fn order_relaxed_access(&mut self, th: &mut Thread, m: &Relaxed, e: usize) {
        let ev = &self.sx.events[e];
        let (d2, g2, b2) = (dir(ev.write), ev.guard, ev.block);
        let from = dep_sources(m, ev);
        let (rel, acq) = ev.deps.as_ref().map_or((false, Acquire::None), |d| (d.release, d.acquire));
        self.link(th.last_full, b2);
        // The same address. Two reads are not ordered (SPARC RMO does not order loads to
        // one address, AArch64 lets them read one write in either order): that they see
        // writes in coherence order is `read_read_coherence`'s.
        for i in 0..th.accs.len() {
            let e1 = th.accs[i];
            if d2 == R || !self.may_alias(e1, e) {
                continue;
            }
            let (a1, a2) = (as_const(&self.sx.events[e1].addr), as_const(&self.sx.events[e].addr));
            let extra = match (a1, a2) {
                (Some(x), Some(y)) if x == y => vec![],
                (Some(_), Some(_)) => continue,
                _ => vec![self.aeq(e1, e)],
            };
            self.link_events(e1, e, &extra);
        }
        // Dependencies.
        for (r, c) in from {
            let extra: &[Lit] = if c == Lit::TRUE { &[] } else { &[c] };
            self.link_events(r as usize, e, extra);
        }
        // Acquire reads before, release writes after everything.
        for i in 0..th.acquires.len() {
            let a = th.acquires[i];
            if acquire_orders(m, &self.sx.events[a], d2) {
                self.link_events(a, e, &[]);
            }
        }
        let release = d2 == W && rel;
        let rcsc = d2 == R && acq == Acquire::Sc && m.acq_rel.release_acquire;
        if release || rcsc {
            for i in 0..th.accs.len() {
                let e1 = th.accs[i];
                let ev1 = &self.sx.events[e1];
                let d1 = dir(ev1.write);
                let ordered = if release {
                    m.acq_rel.release.contains(d1, W)
                } else {
                    ev1.write && ev1.deps.as_ref().is_some_and(|x| x.release)
                };
                if ordered {
                    self.link_events(e1, e, &[]);
                }
            }
        }
        // Fences.
        for k in 0..th.fences.len() {
            let f = &th.fences[k];
            let (fb, fg, orders, node, upto, into) = (f.block, f.guard, f.orders, f.node, f.after, f.into);
            if node {
                if orders.contains(R, d2) || orders.contains(W, d2) {
                    self.link_into(into, &[fg, g2], fb, b2);
                }
                continue;
            }
            for i in 0..upto {
                let e1 = th.accs[i];
                if orders.contains(dir(self.sx.events[e1].write), d2) {
                    self.link_events_into(into, e1, e, &[fg]);
                }
            }
        }
        if d2 == R && acq != Acquire::None {
            th.acquires.push(e);
        }
        th.accs.push(e);
    }

    /// A fence (or a barrier, ordering everything) at block `b`; an unconditional one that
    /// orders everything starts the thread's state again. Returns whether it did.
    fn order_relaxed_fence(&mut self, th: &mut Thread, b: u32, guard: Lit, uncond: bool, orders: PairSet, into: Clocks) -> bool {
        let node = is_product(orders);
        if node {
            for i in 0..th.accs.len() {
                let e1 = th.accs[i];
                let ev = &self.sx.events[e1];
                if ev.block == b || ev.guard == Lit::FALSE {
                    continue;
                }
                let d1 = dir(ev.write);
                if orders.contains(d1, R) || orders.contains(d1, W) {
                    let (g1, b1) = (ev.guard, ev.block);
                    // Into an unconditional barrier, unconditionally: see `Ppo::before`.
                    let conds: &[Lit] = if uncond { &[] } else { &[g1, guard] };
                    self.link_into(into, conds, b1, b);
                }
            }
        }
        if orders == PairSet::ALL {
            self.link(th.last_full, b);
            if uncond {
                *th = Thread { last_full: Some(b), ..Thread::default() };
                return true;
            }
        }
        th.fences.push(FenceAt { block: b, guard, orders, after: th.accs.len(), node, into });
        false
    }

    /// Two reads of one address in program order see writes in coherence order (CoRR): the
    /// first one's source is the initial value, the same write, or a write clocked before
    /// the second one's. Each read involved gets the key `(from a write, clock of it)`.
    /// Where a read's source need not come before it in `clocks` (non-multi-copy-atomic
    /// models), a read's source also comes before a later write of its thread to the address
    /// in coherence (CoRW).
    pub(super) fn read_read_coherence(&mut self) {
        let with_writes = self.non_mca;
        let mut pairs = vec![];
        for t in 0..self.sx.threads.len() {
            let mut accs: Vec<usize> = (0..self.sx.events.len())
                .filter(|&e| {
                    let ev = &self.sx.events[e];
                    ev.thread == t && (!ev.write || with_writes) && ev.guard != Lit::FALSE
                })
                .collect();
            accs.sort_by_key(|&e| (self.sx.blocks[self.sx.events[e].block as usize].seq, self.sx.events[e].po));
            for j in 0..accs.len() {
                for i in 0..j {
                    let (r1, r2) = (accs[i], accs[j]);
                    if self.sx.events[r1].write {
                        continue;
                    }
                    let (a1, a2) = (as_const(&self.sx.events[r1].addr), as_const(&self.sx.events[r2].addr));
                    let same = match (a1, a2) {
                        (Some(x), Some(y)) if x != y => continue,
                        (Some(_), Some(_)) => None,
                        _ if !self.may_alias(r1, r2) => continue,
                        _ => Some(self.aeq(r1, r2)),
                    };
                    pairs.push((r1, r2, same));
                }
            }
        }
        if pairs.is_empty() {
            return;
        }
        let choice_of: HashMap<usize, usize> = self.sx.rf_choices.iter().enumerate().map(|(i, (r, _))| (*r, i)).collect();
        if self.edges {
            self.read_read_coherence_by_edges(&pairs, &choice_of);
            return;
        }
        let mut keys: HashMap<usize, Vec<Lit>> = HashMap::new();
        for (r1, r2, same) in pairs {
            if self.sx.sat.stopped().is_some() {
                return;
            }
            let Some(&c1) = choice_of.get(&r1) else { continue };
            let k1 = self.source_key(c1, &mut keys);
            let back = if self.sx.events[r2].write {
                // The write's key: its clock with the top bit set; the source's must be below.
                let mut k2 = self.clocks[self.sx.events[r2].block as usize].clone();
                k2.push(Lit::TRUE);
                !self.sx.sat.bv_ult(&k1, &k2)
            } else {
                let Some(&c2) = choice_of.get(&r2) else { continue };
                let k2 = self.source_key(c2, &mut keys);
                self.sx.sat.bv_ult(&k2, &k1)
            };
            let (g1, g2) = (self.sx.events[r1].guard, self.sx.events[r2].guard);
            let mut clause = vec![!g1, !g2, !back];
            if let Some(a) = same {
                clause.push(!a);
            }
            self.sx.sat.add_clause(&clause);
        }
    }

    /// [`Self::read_read_coherence`] with the order as theory edges: for reads `r1` before
    /// `r2` of one address, sources `w1 ≠ w2`: `w1` before `w2`, and `r2` does not take the
    /// initial value after `r1` took a write; for a later write `r2` (CoRW, non-multi-copy-
    /// atomic models): `r1`'s source before `r2`. (Writes of one block are ordered by program
    /// order here; clocks equal them.)
    fn read_read_coherence_by_edges(&mut self, pairs: &[(usize, usize, Option<Lit>)], choice_of: &HashMap<usize, usize>) {
        for &(r1, r2, same) in pairs {
            if self.sx.sat.stopped().is_some() {
                return;
            }
            let Some(&c1) = choice_of.get(&r1) else { continue };
            let s1 = self.sx.rf_choices[c1].1.clone();
            let corw = self.sx.events[r2].write;
            let s2 = if corw {
                vec![(Some(r2), Lit::TRUE)]
            } else {
                let Some(&c2) = choice_of.get(&r2) else { continue };
                self.sx.rf_choices[c2].1.clone()
            };
            let (g1, g2) = (self.sx.events[r1].guard, self.sx.events[r2].guard);
            for &(w1, l1) in &s1 {
                let Some(w1) = w1 else { continue };
                for &(w2, l2) in &s2 {
                    if w2 == Some(w1) && !corw {
                        continue;
                    }
                    let mut clause = vec![!g1, !g2, !l1, !l2];
                    if let Some(a) = same {
                        clause.push(!a);
                    }
                    if let Some(w2) = w2.filter(|&w2| w2 != w1) {
                        let o = self.lt(w1, w2);
                        clause.push(o);
                    }
                    self.sx.sat.add_clause(&clause);
                }
            }
        }
    }

    /// A read that takes its value from its own thread's write comes after the reads that
    /// write's address or value depends on, where the model says so ([`DepRules::dd_rfi`]:
    /// herd's `(addr | data); rfi` on Power and ARM, `(addr | data); lrs` on AArch64, which
    /// with an acquire read of the location orders the first read before everything after
    /// it: MP+rel+addr-lrs-acq). Needs the sources (`reads` first).
    ///
    /// [`DepRules::dd_rfi`]: crate::arch::DepRules::dd_rfi
    pub(super) fn dependent_forwarding(&mut self, m: &Relaxed) {
        if !m.deps.dd_rfi {
            return;
        }
        let mut links = vec![];
        for (r, sources) in &self.sx.rf_choices {
            for &(w, s) in sources {
                let Some(w) = w.filter(|&w| self.sx.events[w].thread == self.sx.events[*r].thread) else { continue };
                let Some(d) = &self.sx.events[w].deps else { continue };
                links.extend(d.addr.entries().iter().chain(d.data.entries()).map(|&(r1, c)| (r1 as usize, *r, [s, c])));
            }
        }
        for (r1, r, conds) in links {
            self.link_events(r1, r, &conds);
        }
    }

    /// The clock of the source of the read of `rf_choices[c]`, with a top bit set for a
    /// write (the initial value comes first).
    fn source_key(&mut self, c: usize, keys: &mut HashMap<usize, Vec<Lit>>) -> Vec<Lit> {
        if let Some(k) = keys.get(&c) {
            return k.clone();
        }
        let sources = self.sx.rf_choices[c].1.clone();
        let cw = self.clocks.first().map_or(1, |c| c.len());
        let k = self.sx.sat.fresh_bv(cw + 1);
        for (src, s) in sources {
            match src {
                None => self.sx.sat.add_clause(&[!s, !k[cw]]),
                Some(w) => {
                    let c = self.clocks[self.sx.events[w].block as usize].clone();
                    self.sx.sat.add_clause(&[!s, k[cw]]);
                    self.equal_under(s, &k[..cw], &c);
                }
            }
        }
        keys.insert(c, k.clone());
        k
    }

    /// The program-order constraints of a relaxed model `m` (module docs).
    pub(super) fn relaxed_order(&mut self, m: &Relaxed) -> Ppo {
        let access = |enc: &mut Self, th: &mut Thread, _b: u32, _guard: Lit, evs: &[usize]| {
            for &e in evs {
                enc.order_relaxed_access(th, m, e);
            }
        };
        let barrier = |enc: &mut Self, th: &mut Thread, b: u32, kind: BlockKind, guard: Lit, uncond: bool| {
            let Some(f) = block_fence(m, kind).filter(|f| !f.orders.is_empty()) else { return false };
            let into = if f.strong || m.mca { Clocks::Both } else { Clocks::Thin };
            enc.order_relaxed_fence(th, b, guard, uncond, f.orders, into)
        };
        self.walk_threads(true, true, access, barrier)
    }
}
