//! What symbolic execution records for the encoding and the traces: blocks (accesses,
//! fences, atomic sections), program order, an event's dependencies, trace steps.
//!
//! Separate because these records are what the ordering encoding and the counterexamples
//! are built from; the statements only decide when to make them.

use super::*;

impl<'p> Symex<'p> {
    pub(super) fn new_block(&mut self, kind: BlockKind) -> u32 {
        let t = self.ctx.thread;
        let id = self.blocks.len() as u32;
        let seq = self.threads[t].blocks.len() as u32;
        self.blocks.push(BlockInfo { thread: t, seq, kind, guard: self.state.guard });
        self.threads[t].blocks.push(id);
        self.ctx.last_block = id;
        id
    }

    pub(super) fn event_block(&mut self) -> u32 {
        match self.state.cur_block {
            Some(b) => b,
            None => self.new_block(BlockKind::Access),
        }
    }

    /// The current thread and the position its next step will have: where an
    /// [`ApproxSite`] made now lies in program order.
    pub(super) fn here(&self) -> (usize, u32) {
        (self.ctx.thread, self.ctx.po + 1)
    }

    pub(super) fn next_po(&mut self) -> u32 {
        self.ctx.po += 1;
        self.ctx.po
    }

    /// The dependencies of an access made now; it then counts for `addr; po`.
    pub(super) fn event_deps(&mut self, write: bool) -> Option<Box<EventDeps>> {
        if !self.track {
            return None;
        }
        let d = &self.state.deps;
        let ev = EventDeps {
            addr: self.cur_addr.clone(),
            data: if write { self.cur_data.clone() } else { Taint::default() },
            ctrl: d.ctrl.clone(),
            isync: d.isync.clone(),
            addr_po: d.addr_po.clone(),
            acquire: if write { Acquire::None } else { self.cur_hw.acquire },
            release: write && self.cur_hw.release,
        };
        self.state.deps.addr_po = ev.addr_po.union(&self.cur_addr, &mut self.sat);
        Some(Box::new(ev))
    }

    /// The reads evaluated between marks `a` and `b` of [`Self::acc`], left in it.
    pub(super) fn taint_range(&mut self, a: usize, b: usize) -> Taint {
        if !self.track {
            return Taint::default();
        }
        let end = b.min(self.acc.len());
        let v = self.acc[a.min(end)..end].to_vec();
        Taint::of(v, &mut self.sat)
    }

    /// The reads evaluated since `mark` (of [`Self::acc`]), taken out of it.
    pub(super) fn taint_since(&mut self, mark: usize) -> Taint {
        if !self.track || self.acc.len() <= mark {
            self.acc.truncate(mark);
            return Taint::default();
        }
        let v = self.acc.split_off(mark);
        Taint::of(v, &mut self.sat)
    }

    pub(super) fn push_taint(&mut self, t: &Taint) {
        if self.track {
            self.acc.extend_from_slice(t.entries());
        }
    }

    /// What was evaluated since `mark` counts only where `g` holds (one arm of `?:`, the
    /// second operand of `&&`/`||`).
    pub(super) fn taint_only_under(&mut self, mark: usize, g: Lit) {
        if self.track && g != Lit::TRUE {
            for i in mark..self.acc.len() {
                self.acc[i].1 = self.sat.and(self.acc[i].1, g);
            }
        }
    }

    pub(super) fn step(&mut self, loc: Loc, kind: RawKind) {
        let po = self.next_po();
        self.steps.push(RawStep {
            thread: self.ctx.thread,
            block: self.ctx.last_block,
            po,
            guard: self.state.guard,
            loc,
            kind,
        });
    }

    /// Under a weak model a fence that orders something is a block of its own; under SC,
    /// and inside an atomic section, it is nothing.
    pub(super) fn fence(&mut self, f: Fence) {
        if self.track && matches!(f, Fence::Isync | Fence::Isb) {
            // ctrl+isync: every later access waits for the reads the branches so far
            // depended on.
            let (isync, ctrl) = (self.state.deps.isync.clone(), self.state.deps.ctrl.clone());
            self.state.deps.isync = isync.union(&ctrl, &mut self.sat);
        }
        let orders = self.opts.model.as_ref().is_some_and(|m| m.fence_matters(f));
        if orders && !self.dead() && self.state.atomic_depth == 0 {
            self.new_block(BlockKind::Fence(f));
        }
    }

    pub(super) fn atomic_begin(&mut self) {
        if self.state.atomic_depth == 0 {
            let b = self.new_block(BlockKind::Atomic);
            self.state.cur_block = Some(b);
            self.state.blk.clear();
        }
        self.state.atomic_depth += 1;
    }

    pub(super) fn atomic_end(&mut self) {
        if self.state.atomic_depth > 0 {
            self.state.atomic_depth -= 1;
            if self.state.atomic_depth == 0 {
                self.state.cur_block = None;
                self.state.blk.clear();
            }
        }
    }
}
