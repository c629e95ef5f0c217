//! Commit points (Burckhardt, Alur, Martin, CAV 2006, §3): the library marks, in each
//! operation, the instruction whose place in the memory order is the operation's place in
//! the linearization order, by calling `__weakc_commit()` right after it. The harness calls
//! `__weakc_commit_take()` before each call (to start it) and after it: the *stamp* of the
//! one commit point the call passed — the clock (the encoding's memory order) of the
//! thread's latest memory access before the mark, made since the start — or -1 when it
//! passed none, -2 when more than one, -3 when a mark had no access of the call before it.
//!
//! Nothing is written to memory and nothing orders anything: a stamp is a value the
//! encoding equates with a clock afterwards ([`constrain`]), so recording the order does
//! not change which executions exist on the architecture. (Any C-level counter would: an
//! atomic section or a locked increment is a barrier.)

use super::*;

/// The stamps are ints; clocks are narrower and zero-extended.
const STAMP_BITS: usize = 32;
/// How far back a mark looks for its thread's latest access (the events of one operation).
const LOOKBACK: usize = 256;

/// One `__weakc_commit()` reached by symbolic execution.
pub struct CommitMark {
    thread: usize,
    /// The path reaches the mark.
    guard: Lit,
    /// Equals the clock of the latest executed candidate (see [`constrain`]).
    stamp: Bv,
    /// The thread's accesses before the mark, latest first: (executed, block).
    cands: Vec<(Lit, u32)>,
    /// Read by a `__weakc_commit_take()` (only those stamps are constrained).
    used: bool,
}

impl<'p> Symex<'p> {
    /// `__weakc_commit()`.
    pub(super) fn commit_point(&mut self) {
        let t = self.ctx.thread;
        let since = self.commit_taken.get(&t).map_or(0, |s| s.1);
        let cands = self.events[since..].iter().rev().filter(|e| e.thread == t).take(LOOKBACK).map(|e| (e.guard, e.block)).collect();
        let stamp = self.sat.fresh_bv(STAMP_BITS);
        self.commits.push(CommitMark { thread: t, guard: self.state.guard, stamp, cands, used: false });
    }

    /// `__weakc_commit_take()`: the stamp of the one mark this thread passed since its last
    /// take, -1 for none, -2 for several.
    pub(super) fn commit_take(&mut self) -> Bv {
        let t = self.ctx.thread;
        let from = self.commit_taken.get(&t).map_or(0, |s| s.0);
        self.commit_taken.insert(t, (self.commits.len(), self.events.len()));
        let mut result = bv::constant_i(-1, STAMP_BITS);
        let mut seen = Lit::FALSE;
        let mut several = Lit::FALSE;
        for i in from..self.commits.len() {
            if self.commits[i].thread != t {
                continue;
            }
            self.commits[i].used = true;
            let g = self.commits[i].guard;
            let both = self.sat.and(seen, g);
            several = self.sat.or(several, both);
            let stamp = self.commits[i].stamp.clone();
            result = self.sat.bv_ite(g, &stamp, &result);
            seen = self.sat.or(seen, g);
        }
        let two = bv::constant_i(-2, STAMP_BITS);
        self.sat.bv_ite(several, &two, &result)
    }
}

/// Whether a `__weakc_commit_take()` reads a stamp (which [`constrain`] equates with clocks).
pub(in crate::bmc) fn used(sx: &Symex) -> bool {
    sx.commits.iter().any(|m| m.used)
}

/// Equates each used stamp with the clock of its mark's latest executed access (-3 if none).
pub(in crate::bmc) fn constrain(sx: &mut Symex, clocks: &[Bv]) {
    let marks = std::mem::take(&mut sx.commits);
    for m in marks.iter().filter(|m| m.used) {
        let mut v = bv::constant_i(-3, STAMP_BITS);
        for &(g, b) in m.cands.iter().rev() {
            let c = sx.sat.bv_resize(&clocks[b as usize], STAMP_BITS, false);
            v = sx.sat.bv_ite(g, &c, &v);
        }
        for (&x, &y) in m.stamp.iter().zip(&v) {
            sx.sat.add_clause(&[!m.guard, !x, y]);
            sx.sat.add_clause(&[!m.guard, x, !y]);
        }
    }
    sx.commits = marks;
}
