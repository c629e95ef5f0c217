//! Owned buffers ([`Rewriter::owned`]): where and how often a thread lets its buffered
//! writes leave. Each thread drains its own buffers in atomic steps of its own before every
//! statement another thread could tell apart from them; the scheduler places each step
//! anywhere among the other threads' steps, so every moment a write may reach memory is
//! covered, while the buffers themselves stay thread-local state.

use super::*;

/// Per statement (by id), the most entries each group can hold just before it; under
/// [`END`], at the end of the function.
pub(super) type Bounds = HashMap<u32, Vec<u32>>;

const END: u32 = u32::MAX;

impl Rewriter<'_> {
    /// The drain steps before statement `at` (`None`: the end of the thread): one per entry
    /// each group can hold there, as they may all leave between two statements, each a step
    /// of its own.
    pub(super) fn drain_steps(&self, ctx: &Ctx, at: Option<u32>, loc: Loc) -> Block {
        if ctx.atomic_depth > 0 {
            return vec![];
        }
        let bounds = self.drain_bounds.get(&ctx.func).and_then(|b| b.get(&at.unwrap_or(END)));
        let mut out = vec![];
        for (g, grp) in self.groups.iter().enumerate() {
            let Some(d) = grp.fns.drain_one else { continue };
            let n = bounds.map_or(grp.depth, |b| b[g]);
            for _ in 0..n {
                out.extend(atomic(vec![call(d, vec![], loc)], loc));
            }
        }
        out
    }

    /// Threads drain buffers of their own in steps ([`Rewriter::owned`], and some group).
    pub(super) fn drains(&self) -> bool {
        self.owned && !self.groups.is_empty()
    }

    /// Whether another thread can tell where the statement runs relative to this thread's
    /// buffered writes leaving: it accesses shared memory, synchronises or ends the thread.
    /// Local computation, jumps and calls of defined functions (whose own statements say)
    /// cannot.
    pub(super) fn observable(&self, s: &Stmt, ctx: &Ctx) -> bool {
        self.sites_of.contains_key(&s.id)
            || match &s.kind {
                StmtKind::Assign { lhs, rhs } => self.memory(lhs) || self.memory(rhs),
                StmtKind::If { cond, .. } | StmtKind::Assert { cond, .. } | StmtKind::Assume(cond) => self.memory(cond),
                StmtKind::Call { callee: Callee::Direct(g), .. } => self.src.func(*g).body.is_none(),
                StmtKind::Call { callee: Callee::Indirect(_), .. } => true,
                StmtKind::Return(_) => ctx.entry,
                StmtKind::Fence(_)
                | StmtKind::AtomicBegin
                | StmtKind::Spawn { .. }
                | StmtKind::Join { .. }
                | StmtKind::Lock(_)
                | StmtKind::Unlock(_)
                | StmtKind::Rmw(_) => true,
                _ => false,
            }
    }

    fn memory(&self, e: &Expr) -> bool {
        let mut m = false;
        e.visit(&mut |x| match &x.kind {
            ExprKind::Var(v) => m |= self.src.var(*v).is_global(),
            ExprKind::Deref(_) => m = true,
            _ => {}
        });
        m
    }

    /// A plain store on TSO: it may queue behind the thread's buffered writes (`*_write`), so
    /// the steps that let them leave can all come after it, where the next statement drains.
    pub(super) fn queues_behind(&self, s: &Stmt) -> bool {
        let StmtKind::Assign { rhs, .. } = &s.kind else { return false };
        let only_writes = self.sites_of.get(&s.id).is_some_and(|ss| ss.iter().all(|x| self.aeg.site(*x).dir == Dir::W));
        self.tso_fifo && only_writes && !s.hw.release && !self.memory(rhs) && self.group_of_stmt(s.id, Dir::W).is_some()
    }

    /// Bounds the entries each group can hold before each statement of `f`, so that a thread
    /// drains no more often than it can have written: a thread starts empty, a write that
    /// may enter a buffer adds one, a barrier that flushes the thread's writes empties them,
    /// branches take the larger count; a loop that may buffer a write or a call of a function
    /// that writes the group's objects gives up (the group's depth), and so does a function
    /// with jumps, everywhere. A function that is not a thread's entry may be called with
    /// full buffers.
    pub(super) fn plan_drains(&mut self, f: FuncId, entry: bool, body: &[Stmt]) {
        if !self.drains() {
            return;
        }
        let depth: Vec<u32> = self.groups.iter().map(|g| g.depth).collect();
        // A jump may bring entries back to a point the structured walk saw emptied by a
        // fence (`fence(); L: r = y; x = 1; goto L;`): no bounds, the depth everywhere.
        let mut jumps = false;
        walk_stmts(body, &mut |s| jumps |= matches!(s.kind, StmtKind::Goto(_) | StmtKind::Label(..)));
        if jumps {
            return;
        }
        let start = if entry { vec![0; depth.len()] } else { depth.clone() };
        let mut bounds = Bounds::new();
        let mut count = start;
        self.bound_block(body, &mut count, &depth, &mut bounds);
        bounds.insert(END, count);
        self.drain_bounds.insert(f, bounds);
    }

    fn bound_block(&self, block: &[Stmt], count: &mut Vec<u32>, depth: &[u32], out: &mut Bounds) {
        for s in block {
            out.insert(s.id, count.clone());
            match &s.kind {
                StmtKind::If { then_, else_, .. } => {
                    let mut other = count.clone();
                    self.bound_block(then_, count, depth, out);
                    self.bound_block(else_, &mut other, depth, out);
                    for (c, o) in count.iter_mut().zip(other) {
                        *c = (*c).max(o);
                    }
                }
                StmtKind::Block(b) => self.bound_block(b, count, depth, out),
                StmtKind::Loop { body, latch } => {
                    // Any group the loop may buffer a write of is full from the loop on.
                    let mut probe = vec![0; depth.len()];
                    let mut scratch = Bounds::new();
                    self.bound_block(body, &mut probe, depth, &mut scratch);
                    self.bound_block(latch, &mut probe, depth, &mut scratch);
                    let grows: Vec<bool> = scratch.values().chain([&probe]).fold(vec![false; depth.len()], |acc, v| acc.iter().zip(v).map(|(a, x)| *a || *x > 0).collect());
                    for (g, c) in count.iter_mut().enumerate() {
                        if grows[g] {
                            *c = depth[g];
                        }
                    }
                    // The loop's own count is now at least what any iteration brings back
                    // (a group that does not grow can only be emptied inside), so the latch,
                    // which a `continue` reaches from anywhere in the body, and the exit, which
                    // a `break` does, start from the larger of it and the body's end.
                    let mut inside = count.clone();
                    self.bound_block(body, &mut inside, depth, out);
                    let mut latch_count: Vec<u32> = count.iter().zip(&inside).map(|(c, i)| (*c).max(*i)).collect();
                    self.bound_block(latch, &mut latch_count, depth, out);
                    for (c, i) in count.iter_mut().zip(latch_count) {
                        *c = (*c).max(i);
                    }
                }
                _ => self.bound_stmt(s, count, depth),
            }
        }
    }

    /// The effect of one simple statement on the counts.
    fn bound_stmt(&self, s: &Stmt, count: &mut [u32], depth: &[u32]) {
        let full = |c: &mut [u32]| c.iter_mut().for_each(|x| *x = 0);
        match &s.kind {
            StmtKind::Assign { .. } => {
                if s.hw.release {
                    full(count);
                }
                let g = self.delayed_write_group(s.id).or_else(|| self.group_of_stmt(s.id, Dir::W).filter(|_| self.tso_fifo));
                if let Some(g) = g {
                    count[g] = (count[g] + 1).min(depth[g]);
                }
            }
            StmtKind::Fence(fe) if self.model.fences.get(fe).is_some_and(|e| e.flush_writes) => full(count),
            StmtKind::Spawn { .. } | StmtKind::Return(_) => full(count),
            StmtKind::Unlock(_) | StmtKind::Rmw(_) if s.hw.release => full(count),
            // (An external function buffers nothing: only rewritten code does.)
            StmtKind::Call { callee: Callee::Direct(g), .. } if self.src.func(*g).body.is_some() => {
                let acc = self.callee_access.get(g);
                let fences = self.must_fences.get(g).is_some_and(|fs| fs.iter().any(|f| self.model.fences.get(f).is_some_and(|e| e.flush_writes)));
                for (k, grp) in self.groups.iter().enumerate() {
                    let writes = acc.is_some_and(|a| !a.writes.is_disjoint(&grp.objects));
                    if writes {
                        count[k] = depth[k];
                    } else if fences {
                        count[k] = 0;
                    }
                }
            }
            StmtKind::Call { callee: Callee::Indirect(_), .. } => count.copy_from_slice(depth),
            _ => {}
        }
    }
}
