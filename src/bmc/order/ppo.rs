//! Preserved program order of the store-buffer models (TSO, PSO) as clock constraints
//! (Alglave, Kroening, Tautschnig, CAV 2013, §5): instead of one chain through all blocks of
//! a thread (SC), each block is put after exactly the earlier blocks the model orders
//! before it, and transitivity does the rest:
//!
//! * after the thread's last block with a read (read→anything is kept);
//! * after the last full barrier (thread start and end, spawn, join, an atomic section of the
//!   program, a fence ordering every pair);
//! * a block with a write: after the thread's last block with a write (TSO), or after its
//!   last write to the same address (PSO: coherence), conditionally on the addresses being
//!   equal where one of them is not a constant;
//! * after each partial fence (`membar #StoreStore`, …) whose later side it belongs to, and
//!   the fence after the earlier accesses of its earlier side.
//!
//! A chain through a block whose path is not taken must not order more than the model
//! does. Links into reads and writes are safe that way (read→X and X→write are kept whatever
//! X is); links out of fences and of barriers under a condition are not, so they hold only
//! when both ends execute, and such a barrier does not stand for the ones before it.

use super::Enc;
use crate::bmc::bv::as_const;
use crate::bmc::sat::Lit;
use crate::bmc::symex::BlockKind;
use crate::bmc::{FenceSides, StoreBufferModel};
use std::collections::HashMap;

/// What the constraints say about one block, for [`Ppo::before`].
#[derive(Clone, Copy, Default)]
struct BlockOrd {
    /// The block got its constraints (it has active events, or is an unconditional barrier).
    linked: bool,
    r: bool,
    w: bool,
    /// An unconditional full barrier: every block of the thread is ordered with it.
    reset: bool,
    /// Position of the last such barrier at or before this block in its thread.
    last_reset: Option<u32>,
}

/// The order the constraints fix between blocks of one thread without the solver.
pub(in crate::bmc) struct Ppo {
    info: Vec<BlockOrd>,
    ww_relaxed: bool,
    /// Pairs from reads are relaxed too (RMO, AArch64): only barriers fix an order.
    reads_relaxed: bool,
}

const FULL: FenceSides = FenceSides { before_r: true, before_w: true, after_r: true, after_w: true };

impl Ppo {
    /// Whether block `b1` (at position `s1` of a thread) comes before `b2` (position `s2` of
    /// the same thread) in every model of the constraints: `Some(true)`/`Some(false)` when
    /// fixed, `None` when the clocks decide.
    pub(super) fn before(&self, b1: u32, s1: u32, b2: u32, s2: u32) -> Option<bool> {
        let (a, b, sa, flip) = if s1 < s2 { (b1, b2, s1, false) } else { (b2, b1, s2, true) };
        let (x, y) = (&self.info[a as usize], &self.info[b as usize]);
        if !(x.linked && y.linked) {
            return None;
        }
        let kept = !self.reads_relaxed && (x.r || (!self.ww_relaxed && x.w && y.w));
        let ordered = kept || x.reset || y.reset || y.last_reset.is_some_and(|s| s > sa);
        ordered.then_some(!flip)
    }
}

/// Per thread, what later blocks must be put after (since the last unconditional barrier).
#[derive(Default)]
struct Chain {
    last_r: Option<u32>,
    last_full: Option<u32>,
    /// TSO: the last block with a write.
    pend: Option<u32>,
    /// PSO: per constant address, the last write's block.
    pend_at: HashMap<u128, u32>,
    /// PSO: every write event since the last reset, and those at a non-constant address.
    w_since: Vec<usize>,
    sym_since: Vec<usize>,
    /// Partial fences and conditional barriers: block, sides, guard.
    fences: Vec<(u32, FenceSides, Lit)>,
}

impl Enc<'_, '_> {
    /// `from` before `to` whenever all of `conds` hold.
    pub(super) fn link_if(&mut self, conds: &[Lit], from: u32, to: u32) {
        self.link_into(super::Clocks::Both, conds, from, to);
    }

    /// [`Self::link_if`] in the orders `into` says.
    pub(super) fn link_into(&mut self, into: super::Clocks, conds: &[Lit], from: u32, to: u32) {
        if from == to {
            return;
        }
        let mut c: Vec<Lit> = conds.iter().map(|&x| !x).collect();
        if into == super::Clocks::Both {
            let l = self.raw_lt(from, to);
            c.push(l);
            self.sx.sat.add_clause(&c);
            c.pop();
        }
        if self.non_mca {
            let l = self.raw_lt_thin(from, to);
            c.push(l);
            self.sx.sat.add_clause(&c);
        }
    }

    pub(super) fn link(&mut self, from: Option<u32>, to: u32) {
        if let Some(x) = from {
            self.link_if(&[], x, to);
        }
    }

    /// Write events `w1` (earlier) and `w2` of one thread, one address not constant: ordered
    /// when both happen at one address.
    fn link_same_address(&mut self, w1: usize, w2: usize) {
        let (b1, b2) = (self.sx.events[w1].block, self.sx.events[w2].block);
        if b1 == b2 || !self.may_alias(w1, w2) {
            return;
        }
        let a = self.aeq(w1, w2);
        let (g1, g2) = (self.sx.events[w1].guard, self.sx.events[w2].guard);
        self.link_if(&[g1, g2, a], b1, b2);
    }

    /// The links into block `b`, with reads (`r`) and the write events `writes`, as an access.
    fn order_access(&mut self, ch: &mut Chain, m: &StoreBufferModel, b: u32, guard: Lit, r: bool, writes: &[usize]) {
        let w = !writes.is_empty();
        self.link(ch.last_full, b);
        self.link(ch.last_r, b);
        for &(f, sd, gf) in &ch.fences {
            if (sd.after_r && r) || (sd.after_w && w) {
                self.link_if(&[gf, guard], f, b);
            }
        }
        if w && !m.ww_relaxed {
            self.link(ch.pend, b);
            ch.pend = Some(b);
        }
        if w && m.ww_relaxed {
            for &e in writes {
                match as_const(&self.sx.events[e].addr) {
                    Some(a) => {
                        self.link(ch.pend_at.get(&a).copied(), b);
                        for &s in &ch.sym_since {
                            self.link_same_address(s, e);
                        }
                        ch.pend_at.insert(a, b);
                    }
                    None => {
                        for &s in &ch.w_since {
                            self.link_same_address(s, e);
                        }
                        ch.sym_since.push(e);
                    }
                }
                ch.w_since.push(e);
            }
        }
        if r {
            ch.last_r = Some(b);
        }
    }

    /// The links into block `b` as a fence with sides `sd`; an unconditional full one starts
    /// the chain again. Returns whether it did.
    fn order_barrier(&mut self, ch: &mut Chain, m: &StoreBufferModel, b: u32, guard: Lit, uncond: bool, sd: FenceSides) -> bool {
        if sd.before_r {
            self.link(ch.last_r, b);
        }
        if sd.before_w && !m.ww_relaxed {
            self.link(ch.pend, b);
        }
        if sd.before_w && m.ww_relaxed {
            let mut from: Vec<u32> = ch.pend_at.values().copied().collect();
            from.extend(ch.sym_since.iter().map(|&e| self.sx.events[e].block));
            from.sort_unstable();
            from.dedup();
            for x in from {
                self.link(Some(x), b);
            }
        }
        let full = sd == FULL;
        if full {
            self.link(ch.last_full, b);
        }
        if full && uncond {
            *ch = Chain { last_full: Some(b), ..Chain::default() };
            return true;
        }
        if uncond {
            // An unconditional fence stands for the earlier ones like it.
            ch.fences.retain(|(_, s, _)| *s != sd);
        }
        ch.fences.push((b, sd, guard));
        false
    }

    /// The program-order constraints of `m` (module docs).
    pub(super) fn store_buffer_order(&mut self, m: &StoreBufferModel) -> Ppo {
        if let Some(r) = &m.relaxed {
            return self.relaxed_order(r);
        }
        let access = |enc: &mut Self, ch: &mut Chain, b: u32, guard: Lit, evs: &[usize]| {
            let writes: Vec<usize> = evs.iter().copied().filter(|&e| enc.sx.events[e].write).collect();
            let r = writes.len() < evs.len();
            enc.order_access(ch, m, b, guard, r, &writes);
        };
        let barrier = |enc: &mut Self, ch: &mut Chain, b: u32, kind: BlockKind, guard: Lit, uncond: bool| {
            let sides = match kind {
                BlockKind::Marker | BlockKind::AtomicSection => Some(FULL),
                BlockKind::Fence(f) => m.fence(f),
                BlockKind::Access | BlockKind::Atomic => None,
            };
            sides.is_some_and(|sd| enc.order_barrier(ch, m, b, guard, uncond, sd))
        };
        self.walk_threads(m.ww_relaxed, false, access, barrier)
    }

    /// Walks every thread's blocks in program order with a per-thread state `S`: `access`
    /// links a block's active events, `barrier` a block that may order (it returns whether
    /// the block was an unconditional full barrier, which starts the state again). Records
    /// what [`Ppo::before`] needs.
    pub(super) fn walk_threads<S: Default>(
        &mut self,
        ww_relaxed: bool,
        reads_relaxed: bool,
        mut access: impl FnMut(&mut Self, &mut S, u32, Lit, &[usize]),
        mut barrier: impl FnMut(&mut Self, &mut S, u32, BlockKind, Lit, bool) -> bool,
    ) -> Ppo {
        let nb = self.sx.blocks.len();
        let mut info = vec![BlockOrd::default(); nb];
        let mut by_block: Vec<Vec<usize>> = vec![vec![]; nb];
        for (i, ev) in self.sx.events.iter().enumerate() {
            if ev.guard == Lit::FALSE {
                continue;
            }
            let b = ev.block as usize;
            by_block[b].push(i);
            if ev.write {
                info[b].w = true;
            } else {
                info[b].r = true;
            }
        }
        for t in 0..self.sx.threads.len() {
            let tg = self.sx.threads[t].guard;
            let mut st = S::default();
            let mut last_reset = None;
            for b in self.sx.threads[t].blocks.clone() {
                if self.sx.sat.stopped().is_some() {
                    break;
                }
                let bi = &self.sx.blocks[b as usize];
                let (kind, guard, seq) = (bi.kind, bi.guard, bi.seq);
                let uncond = guard == tg || guard == Lit::TRUE;
                let evs = std::mem::take(&mut by_block[b as usize]);
                if !evs.is_empty() {
                    info[b as usize].linked = true;
                    access(self, &mut st, b, guard, &evs);
                }
                if barrier(self, &mut st, b, kind, guard, uncond) {
                    last_reset = Some(seq);
                    info[b as usize].reset = true;
                    // A fence block has no event: nothing asks for its order.
                    info[b as usize].linked = !matches!(kind, BlockKind::Fence(_));
                }
                info[b as usize].last_reset = last_reset;
            }
        }
        Ppo { info, ww_relaxed, reads_relaxed }
    }
}
