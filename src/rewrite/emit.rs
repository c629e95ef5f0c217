//! Rewriting the user's statements: each one is preceded by the flushes and completions the
//! architecture orders before it, and shared accesses go through the buffer helpers.

use super::*;
use super::pending::{plain_read, vars_used};

pub(super) struct Ctx {
    pub(super) func: FuncId,
    pub(super) me: Expr,
    pub(super) entry: bool,
    /// Inside a user atomic section: do not open nested ones.
    pub(super) atomic_depth: u32,
    /// The statement being rewritten (`None`: the end of the function), for completions of
    /// the reads that may be pending there only.
    pub(super) at: Option<u32>,
}

impl Rewriter<'_> {
    fn wrap(&self, ctx: &Ctx, body: Block, loc: Loc) -> Block {
        if body.is_empty() {
            return body;
        }
        if ctx.atomic_depth > 0 {
            body
        } else {
            atomic(body, loc)
        }
    }

    fn call_me(&self, f: Option<FuncId>, ctx: &Ctx, loc: Loc) -> Option<Stmt> {
        f.map(|f| call(f, vec![ctx.me.clone()], loc))
    }

    /// Some fence of the program only marks writes (orders them before later writes, not
    /// before later reads) on a model that does not keep write order anyway: entries must
    /// then leave, and on B-cumulative models be seen, after the marked ones
    /// (`__weakc_lw_blocked`).
    pub(super) fn program_marks_writes(&self) -> bool {
        if self.model.ww_preserved || self.tso_fifo {
            return false;
        }
        let mut any = false;
        for f in &self.src.funcs {
            if let Some(body) = &f.body {
                walk_stmts(body, &mut |s| {
                    if let StmtKind::Fence(fence) = &s.kind {
                        any |= self.fence_effect(*fence).mark_writes;
                    }
                });
            }
        }
        any
    }

    /// Buffer entries carry the tag of their write site ([`Plan::lw_pass`]).
    pub(super) fn tagged(&self) -> bool {
        !self.lw_bits.is_empty() && self.model.fences.values().any(|e| e.mark_writes)
    }

    /// The tag of the write statement `sid`: the bits of its sites.
    fn site_tag(&self, sid: u32) -> u32 {
        self.sites_of.get(&sid).into_iter().flatten().filter_map(|x| self.lw_bits.get(x)).fold(0, |m, b| m | b)
    }

    /// The entries the write statement `sid` passes: the bits of the W1 of its `lw_pass` pairs.
    fn pass_mask(&self, sid: u32) -> u32 {
        let sites = self.sites_of.get(&sid).map_or(&[][..], Vec::as_slice);
        self.plan.lw_pass.iter().filter(|(_, w2)| sites.contains(w2)).filter_map(|(w1, _)| self.lw_bits.get(w1)).fold(0, |m, b| m | b)
    }

    /// `__weakc_flush_all_lw(me[, mask])`: the thread's lwsync-marked entries to memory, but
    /// those whose tag is in `mask`.
    fn flush_lw_call(&self, ctx: &Ctx, mask: u32, loc: Loc) -> Option<Stmt> {
        let f = self.flush_all_lw?;
        let mut args = vec![ctx.me.clone()];
        if self.tagged() {
            args.push(uint(mask));
        }
        Some(call(f, args, loc))
    }

    /// Completes the pending reads `filter` selects (READ FROM SET, rule f(r(w, r))), with
    /// what their deferred statements need (see `complete`).
    fn complete_reads(&self, ctx: &Ctx, filter: impl Fn(&PendingRead) -> bool, loc: Loc) -> Block {
        let pending: &[PendingRead] = self.pending.get(&ctx.func).map_or(&[], Vec::as_slice);
        let triggers = pending.iter().enumerate().filter(|(_, p)| filter(p)).map(|(i, _)| (i, None)).collect();
        self.complete(ctx, triggers, loc)
    }

    /// Completes the reads whose value a branch has guessed (a control dependency orders them
    /// before what follows), and those whose deferred store a read forwarded that the
    /// statement depends on: for `need` (see [`Need`]).
    fn complete_speculated(&self, ctx: &Ctx, loc: Loc, need: Need) -> Block {
        let Some(pending) = self.pending.get(&ctx.func) else { return vec![] };
        let mut b = vec![];
        let mut triggers = vec![];
        let picks = need == Need::Picks;
        for (i, p) in pending.iter().enumerate() {
            let mut conds: Vec<Expr> = p.spec.iter().filter(|sp| picks || sp.ctrl).map(|sp| var(sp.flag, &Type::Bool)).collect();
            for f in p.fwd.iter().filter(|f| ctx.at.is_none_or(|at| self.forward_orders(ctx, f, at))) {
                conds.push(match need {
                    Need::Order => self.unless_elsewhere(f, &mut b, loc),
                    Need::Values | Need::Picks => var(f.flag, &Type::Bool),
                });
            }
            if let Some(any) = conds.into_iter().reduce(or) {
                triggers.push((i, Some(any)));
            }
        }
        b.extend(self.complete(ctx, triggers, loc));
        b
    }

    /// For an access ordered after forwarded read `f` (see [`Forward`]): either the pending
    /// read completes first, or the read is bound to have taken its value elsewhere than
    /// from the deferred store (`nomatch`), which then orders nothing. Pushes the choice to
    /// `b` and returns the completion's condition.
    fn unless_elsewhere(&self, f: &Forward, b: &mut Block, loc: Loc) -> Expr {
        let (on, nomatch) = (var(f.flag, &Type::Bool), var(f.nomatch, &Type::Bool));
        b.push(if_(and(on.clone(), nondet_bool()), vec![assign(nomatch.clone(), int(1), loc)], vec![], loc));
        and(on, not(nomatch))
    }

    /// Whether a forwarded read (see [`Forward`]) orders statement `at` after the pending
    /// read whose store it took: its value is there only once the store's is, so what
    /// depends on it — `at` itself, or a branch between the two — comes after the pending
    /// read (herd's `data; rfi; ctrl`). A later access independent of it does not wait
    /// (herd's Power and ARM allow `DataRW`: `r1 = y; z = r1 + 1; r5 = z; x = 1`). Values
    /// are followed through assignments in program order (by statement id); inside a loop
    /// around both, the write always waits.
    fn forward_orders(&self, ctx: &Ctx, f: &Forward, at: u32) -> bool {
        let Some(body) = &self.src.func(ctx.func).body else { return true };
        if self.shared_loop(ctx, f.site, at) {
            return true;
        }
        let mut tainted = BTreeSet::new();
        let mut orders = false;
        walk_stmts(body, &mut |s| {
            if orders || s.id < f.site || s.id > at {
                return;
            }
            if s.id == f.site {
                if let StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(d), .. }, .. } = &s.kind {
                    tainted.insert(*d);
                }
                return;
            }
            let uses = vars_used(s).iter().any(|v| tainted.contains(v));
            match &s.kind {
                _ if s.id == at => orders = uses,
                StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(l), .. }, rhs } => {
                    let mut hit = false;
                    rhs.visit(&mut |x| hit |= matches!(x.kind, ExprKind::Var(v) if tainted.contains(&v)));
                    if hit {
                        tainted.insert(*l);
                    }
                }
                StmtKind::Call { .. } => {
                    // What a callee makes of the value is not followed.
                    orders = uses;
                }
                StmtKind::If { .. } | StmtKind::Assume(_) | StmtKind::Assert { ctrl: true, .. } => orders = uses,
                _ => {}
            }
        });
        orders
    }

    fn fence_effect(&self, f: Fence) -> FenceEffect {
        self.model.fences.get(&f).copied().unwrap_or_default()
    }

    /// Everything a fence does to the machine: flush writes, mark them, complete reads.
    fn fence_stmts(&self, ctx: &Ctx, eff: FenceEffect, loc: Loc) -> Block {
        let mut b = vec![];
        if eff.flush_reads {
            let light = !eff.flush_writes;
            b.extend(self.complete_reads(ctx, |p| !(light && p.lw_free), loc));
        }
        if eff.flush_writes {
            b.extend(self.call_me(self.flush_all_own, ctx, loc));
        } else if eff.mark_writes {
            b.extend(self.call_me(self.mark_all_lw, ctx, loc));
        }
        b
    }

    fn full(&self) -> FenceEffect {
        FenceEffect { flush_writes: true, mark_writes: false, flush_reads: true }
    }

    /// Writes ordered before any later write of the thread must be in memory first.
    /// `skip`: the pending read whose deferred statement is being performed (never completed
    /// from inside its own completion).
    /// `buffered`: the write enters the buffer, where lwsync-marked entries need not have left
    /// yet — they must only reach memory first (see `flush_some`), so another thread may read
    /// the new write early (ESOP's lwsync is not B-cumulative from a write).
    /// `pass`: the entries the write need not wait for at all ([`Plan::lw_pass`], by tag).
    /// `spare`: pending reads the caller completes or not itself: one the write may hold (see
    /// [`Hold`]), or one whose deferred store it may supersede (see `make_supersedes`).
    fn pre_write(&self, ctx: &Ctx, at: &Stmt, objs: &BTreeSet<ObjId>, skip: Option<usize>, spare: &[usize], buffered: bool, pass: u32) -> Block {
        let loc = at.loc;
        let mut b = vec![];
        if self.tso_fifo {
            // Writes queue in the FIFO buffer (`*_write`): nothing to flush here.
        } else if self.model.ww_preserved {
            b.extend(self.call_me(self.flush_all_own, ctx, loc));
        } else if !buffered {
            b.extend(self.flush_lw_call(ctx, pass, loc));
        }
        if self.model.ctrl_orders_writes && skip.is_none() {
            b.extend(self.complete_speculated(ctx, loc, Need::Order));
        }
        // A read delayed past a later write to the same location would break coherence.
        // Coherence only asks the read to take a value coherence-before the write; where it
        // is not held past the write (see `Hold`), completing it here keeps the accesses it
        // is delayed past behind the write: said when one may follow.
        let spared: Vec<VarId> = skip.iter().chain(spare).map(|&i| self.pending[&ctx.func][i].ptr).collect();
        let completes = |p: &PendingRead| !spared.contains(&p.ptr) && !p.objects.is_disjoint(objs);
        if skip.is_none() {
            let pending: &[PendingRead] = self.pending.get(&ctx.func).map_or(&[], Vec::as_slice);
            for i in (0..pending.len()).filter(|&i| completes(&pending[i])) {
                self.note_too_early(ctx, i, at, "where its location is written");
            }
        }
        b.extend(self.complete_reads(ctx, completes, loc));
        b
    }

    pub(super) fn rewrite_func(&mut self, f: FuncId) {
        let body = self.src.func(f).body.clone().expect("has body");
        let entry = self.entries.contains(&f);
        let loc = self.src.func(f).loc;
        let mut prologue = vec![];
        let me = if entry {
            let mv = self.out.add_var(Var { name: "__weakc_me".into(), ty: Type::INT, storage: Storage::Temp { func: f }, init: None, address_taken: false, loc });
            self.entry_me.insert(f, mv);
            let me = var(mv, &Type::INT);
            if Some(f) == self.src.main {
                prologue.push(assign(me.clone(), int(0), loc));
            } else {
                let next = var(self.next_tid.expect("made"), &Type::INT);
                prologue.extend(atomic(
                    vec![assign(next.clone(), bin(BinOp::Add, next.clone(), int(1)), loc), assign(me.clone(), next, loc)],
                    loc,
                ));
            }
            me
        } else {
            var(self.me_var(f), &Type::INT)
        };
        for p in self.pending.get(&f).cloned().unwrap_or_default() {
            if !self.out.var(p.ptr).is_global() {
                let t = self.out.var(p.ptr).ty.clone();
                prologue.push(assign(var(p.ptr, &t), null(&t), loc));
                for d in &p.deferred {
                    prologue.push(assign(var(d.flag, &Type::Bool), int(0), loc));
                    if let Some(sup) = d.sup {
                        prologue.push(assign(var(sup, &Type::Bool), int(0), loc));
                    }
                }
                for sp in &p.spec {
                    prologue.push(assign(var(sp.flag, &Type::Bool), int(0), loc));
                }
                for f in &p.fwd {
                    prologue.push(assign(var(f.flag, &Type::Bool), int(0), loc));
                    prologue.push(assign(var(f.nomatch, &Type::Bool), int(0), loc));
                }
                if let Some(h) = p.hold {
                    prologue.push(assign(var(h.held, &Type::Bool), int(0), loc));
                }
            }
        }
        let mut ctx = Ctx { func: f, me, entry, atomic_depth: 0, at: None };
        self.plan_drains(f, entry, &body);
        self.plan_cascades(f, &ctx);
        prologue.extend(self.cascade_prologue(f, loc));
        let mut out = prologue;
        out.extend(self.block(&body, &mut ctx));
        // Falling off the end of a thread: THREAD END flushes everything.
        ctx.at = None;
        if entry {
            out.extend(self.drain_steps(&ctx, None, loc));
        }
        out.extend(self.end_of_thread(&ctx, loc));
        self.out.funcs[f.0 as usize].body = Some(out);
    }

    fn end_of_thread(&self, ctx: &Ctx, loc: Loc) -> Block {
        let mut b = self.complete_reads(ctx, |_| true, loc);
        if ctx.entry {
            b.extend(self.call_me(self.flush_all_own, ctx, loc));
        }
        self.wrap(ctx, b, loc)
    }

    fn block(&self, block: &[Stmt], ctx: &mut Ctx) -> Block {
        let mut out = vec![];
        for s in block {
            self.stmt(s, ctx, &mut out);
        }
        out
    }

    fn stmt(&self, s: &Stmt, ctx: &mut Ctx, out: &mut Block) {
        ctx.at = Some(s.id);
        if !self.drains() {
            return self.stmt_flagged(s, ctx, out);
        }
        let mut now = vec![];
        self.stmt_flagged(s, ctx, &mut now);
        // Owned buffers leave before what others can observe: the statement's own accesses,
        // or the steps the rewriter made for it (completions of pending reads read memory).
        // (Statements inside a branch or loop drain for themselves.)
        let mut steps = false;
        match s.kind {
            StmtKind::If { .. } | StmtKind::Loop { .. } | StmtKind::Block(_) => steps = now.iter().any(|x| matches!(x.kind, StmtKind::AtomicBegin)),
            _ => walk_stmts(&now, &mut |x| steps |= matches!(x.kind, StmtKind::AtomicBegin)),
        }
        if (steps || self.observable(s, ctx)) && !self.queues_behind(s) {
            out.extend(self.drain_steps(ctx, Some(s.id), s.loc));
        }
        out.extend(now);
    }

    fn stmt_flagged(&self, s: &Stmt, ctx: &mut Ctx, out: &mut Block) {
        let pending: &[PendingRead] = self.pending.get(&ctx.func).map_or(&[], Vec::as_slice);
        let deferred = pending.iter().enumerate().find_map(|(i, p)| p.deferred.iter().find(|d| d.stmt.id == s.id).map(|d| (i, d.clone())));
        if let Some((pi, d)) = deferred {
            // While the read is pending the statement only is flagged (see `Deferred`).
            let mut now = vec![];
            self.stmt_inner(s, ctx, &mut now, Some(pi));
            let pty = self.out.var(pending[pi].ptr).ty.clone();
            let cond = ne(var(pending[pi].ptr, &pty), null(&pty));
            out.push(if_(cond, vec![assign(var(d.flag, &Type::Bool), int(1), s.loc)], now, s.loc));
            return;
        }
        self.stmt_inner(s, ctx, out, None);
    }

    pub(super) fn stmt_inner(&self, s: &Stmt, ctx: &mut Ctx, out: &mut Block, deferring: Option<usize>) {
        let loc = s.loc;
        let pending: &[PendingRead] = self.pending.get(&ctx.func).map_or(&[], Vec::as_slice);
        // Uses of a delayed read's destination complete it first (dependencies are kept).
        let mut used = vars_used(s);
        let mut defined = None;
        if let StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(v), .. }, rhs } = &s.kind {
            let mut in_rhs = false;
            rhs.visit(&mut |x| in_rhs |= matches!(x.kind, ExprKind::Var(w) if w == *v));
            if !in_rhs {
                used.remove(v);
            }
            defined = Some(*v);
        }
        let mut pre = vec![];
        // A read of a location a deferred store will write must see that store.
        let read_objs = self.stmt_objects(s.id, Some(Dir::R));
        let reads_plainly = plain_read(self.src, s);
        let mut forward: Option<(usize, &PendingRead, &Forward)> = None;
        // Completions not yet emitted: consecutive ones form one cascade (see `complete`).
        let mut triggers = vec![];
        for (i, p) in pending.iter().enumerate() {
            if deferring == Some(i) {
                continue;
            }
            let waits_for_store = !p.deferred_writes.is_disjoint(&read_objs);
            if waits_for_store && deferring.is_none() && forward.is_none() {
                if let Some(f) = p.fwd.iter().find(|f| f.site == s.id) {
                    forward = Some((i, p, f));
                    continue;
                }
            }
            // (Statements the chain scan passed use and define no derived value there.)
            let early = p.early_defs.contains(&s.id);
            let derived_now = |v: &VarId| p.derived.contains(v) && !p.cond_derived.contains_key(v);
            let uses_value = used.iter().any(derived_now) && !early;
            // Redefining what the read or its deferred statements use: finish them first.
            let overwrites = defined.is_some_and(|d| derived_now(&d) || p.inputs.contains(&d)) && !early;
            // Conditionally derived values: only where a deferred statement defined them.
            let cond_flags: Vec<Expr> = if early {
                vec![]
            } else {
                used.iter().chain(defined.as_ref()).filter_map(|v| p.cond_derived.get(v)).flatten().map(|f| var(*f, &Type::Bool)).collect()
            };
            let speculable = matches!(s.kind, StmtKind::If { .. })
                && !waits_for_store
                && used.iter().filter(|v| p.derived.contains(v)).all(|v| p.spec.iter().any(|sp| sp.var == *v));
            if uses_value && speculable {
                // (Guesses stay where they were among the completions: after the earlier ones.)
                pre.extend(self.complete(ctx, std::mem::take(&mut triggers), loc));
                let pty = self.out.var(p.ptr).ty.clone();
                for sp in p.spec.iter().filter(|sp| used.contains(&sp.var)) {
                    let ty = self.out.var(sp.var).ty.clone();
                    let flag = var(sp.flag, &Type::Bool);
                    // The variable keeps its value: the statements that wait for the read
                    // compute the real one from it (`r = r + t`), and the branch reads the
                    // guess instead (see `guessed`).
                    let guess = vec![assign(var(sp.guess, &ty), Expr::new(ExprKind::Nondet, ty.clone()), loc), assign(flag.clone(), int(1), loc)];
                    pre.push(if_(and(ne(var(p.ptr, &pty), null(&pty)), not(flag)), guess, vec![], loc));
                }
                continue;
            }
            if overwrites && !uses_value && deferring.is_none() && defined.is_some_and(|d| derived_now(&d)) && read_objs.is_empty()
                && self.cascades.get(&ctx.func).is_some_and(|c| self.src.func(ctx.func).body.as_ref().is_some_and(|b| c.before_on_every_path(b, i, s.id)))
            {
                // The read completes here though nothing here depends on it: everything after
                // this point in the thread now waits for it, also what is independent of it
                // (`idd_dynamic`: the store after the join, on the path that redefined it).
                // Only where the read is surely pending from this iteration's site: from an
                // earlier iteration of a loop, or a sibling branch, not said (see the README).
                let v = defined.map(|d| self.src.var(d).name.clone()).unwrap_or_default();
                let why = format!("`{v}` is redefined while the delayed read into `{}` may be pending: weakc completes the read there, so later accesses that do not depend on it cannot go before it", self.out.var(p.dest).name);
                self.early_completions.borrow_mut().entry(s.id).or_insert((loc, why));
            }
            if uses_value && matches!(s.kind, StmtKind::Return(Some(_))) && !self.entry_me.contains_key(&ctx.func) {
                // The value leaves the function: the read completes at the return, so what
                // the caller does next waits for it even where it does not use the value
                // (a load wrapped in a function: Concurrency Kit's `ck_pr_load_*`).
                let why = format!(
                    "the delayed read into `{}` completes where `{}` returns it, so the caller's later accesses that do not depend on it cannot go before it",
                    self.out.var(p.dest).name,
                    self.src.func(ctx.func).name
                );
                self.early_completions.borrow_mut().entry(s.id).or_insert((loc, why));
            }
            // When the read must complete: always, or under one of these conditions; and why.
            let mut when = cond_flags;
            let always = uses_value || overwrites;
            let mut cause = (always || !when.is_empty()).then_some("where its value is used or redefined");
            if waits_for_store {
                // Only while one of those stores is deferred: a store later in program order
                // (`r = x; t = z; z = r; y = 1` — the read of `z` comes first) is not yet,
                // and completing the read there would order it before `y` (a missed LB).
                let stores = p.deferred.iter().filter(|d| !self.stmt_objects(d.stmt.id, Some(Dir::W)).is_disjoint(&read_objs));
                let waiting = stores.map(|d| var(d.flag, &Type::Bool)).reduce(or).expect("a deferred store writes a read object");
                // Not for stores a later write went ahead of: the read sees that write.
                when.push(match self.superseded(p, &read_objs) {
                    Some(all) => and(waiting, not(all)),
                    None => waiting,
                });
                cause.get_or_insert("where it reads what a store waiting for the read writes");
            }
            if self.model.dd_rfi && reads_plainly && deferring.is_none() {
                // A read whose address comes from a value forwarded early comes after that
                // value's store, hence after the pending read (`(addr | data); rfi; addr`).
                let before = when.len();
                for f in p.fwd.iter().filter(|f| f.site != s.id && self.forward_orders(ctx, f, s.id)) {
                    when.push(self.unless_elsewhere(f, &mut pre, loc));
                }
                if when.len() > before {
                    cause.get_or_insert("where a read whose address depends on it through memory is made (`(addr | data); rfi; addr`)");
                }
            }
            // Completed at this statement, the read also goes before the thread's later
            // accesses that need not wait for it. (Inside a deferred statement, the completion
            // happens when that statement's read completes: not here.)
            if let Some(cause) = cause.filter(|_| deferring.is_none()) {
                self.note_too_early(ctx, i, s, cause);
            }
            if always {
                triggers.push((i, None));
            } else if let Some(any) = when.into_iter().reduce(or) {
                triggers.push((i, Some(any)));
            }
        }
        pre.extend(self.complete(ctx, triggers, loc));
        out.extend(self.wrap(ctx, pre, loc));
        if let Some((pi, p, f)) = forward {
            // Either the pending read completes first (the read then sees the store, or not),
            // or the read takes a guess now (see `Forward`).
            let StmtKind::Assign { lhs, rhs } = &s.kind else { unreachable!("forwards are made for plain reads") };
            let gty = self.out.var(f.guess).ty.clone();
            let aty = self.out.var(f.addr).ty.clone();
            let pty = self.out.var(p.ptr).ty.clone();
            let mut early = vec![assign(var(f.addr, &aty), addr_of(rhs.clone()), loc)];
            // What memory (or the buffer) holds now, ignoring the deferred store.
            self.emit(s, ctx, &mut early, deferring);
            early.push(assign(var(f.mem, &gty), lhs.clone(), loc));
            early.push(assign(var(f.guess, &gty), Expr::new(ExprKind::Nondet, gty.clone()), loc));
            early.push(assign(lhs.clone(), var(f.guess, &gty), loc));
            early.push(assign(var(f.flag, &Type::Bool), int(1), loc));
            if self.model.dd_rfi && s.hw.acquire != Acquire::None {
                early.push(assign(var(f.nomatch, &Type::Bool), int(1), loc));
            }
            let mut wait = self.wrap(ctx, self.complete(ctx, vec![(pi, None)], loc), loc);
            self.emit(s, ctx, &mut wait, deferring);
            let forward = if_(and(ne(var(p.ptr, &pty), null(&pty)), nondet_bool()), early, wait, loc);
            match self.superseded(p, &read_objs) {
                // The stores are coherence-before a later write: the read sees that one.
                Some(all) => {
                    let mut now = vec![];
                    self.emit(s, ctx, &mut now, deferring);
                    out.push(if_(all, now, vec![forward], loc));
                }
                None => out.push(forward),
            }
            return;
        }
        self.emit(s, ctx, out, deferring);
    }

    /// Whether statements `a` and `b` of the current function lie in one loop.
    fn shared_loop(&self, ctx: &Ctx, a: u32, b: u32) -> bool {
        self.loop_spans.get(&ctx.func).is_some_and(|spans| spans.iter().any(|&(lo, hi)| (lo..=hi).contains(&a) && (lo..=hi).contains(&b)))
    }

    /// Whether the read `site`, one of pending read `i`'s, may be pending at statement `at`
    /// (statement ids follow program order, see `loop_spans`): from before `at` in the same
    /// pass through the body, or, with `loops`, from an earlier iteration of a loop around
    /// both.
    fn pending_at(&self, ctx: &Ctx, i: usize, site: &crate::aeg::Site, at: u32, loops: bool) -> bool {
        site.func == ctx.func && self.pending_of_site.get(&site.stmt) == Some(&i) && (site.stmt < at || (loops && self.shared_loop(ctx, site.stmt, at)))
    }

    /// Whether one of pending read `i`'s reads may be pending at statement `at`.
    fn may_be_pending(&self, ctx: &Ctx, i: usize, at: u32, loops: bool) -> bool {
        self.plan.delayed_reads.iter().any(|r| self.pending_at(ctx, i, self.aeg.site(*r), at, loops))
    }

    /// What the callee's accesses need of the caller's pending reads, which the callee cannot
    /// see: its writes wait for the reads of their locations (coherence) and, where control
    /// dependencies order writes, for the reads a branch guessed; its accesses to a location
    /// a waiting store writes come after that store. Where the callee accesses memory only
    /// through pointer parameters (`st(&x, v)`, Concurrency Kit's `ck_pr_*`), the reads
    /// complete only when an argument is the address in question (the points-to sets of a
    /// parameter merge every call site: completing on them would order accesses to other
    /// locations, a missed behaviour); otherwise they complete before the call, and the
    /// rewriter says so (a SUCCESSFUL verdict is then UNKNOWN). Completing the guessed reads
    /// orders the callee's reads before its writes as well: said where the callee reads.
    fn before_call(&self, ctx: &Ctx, g: FuncId, s: &Stmt, args: &[Expr]) -> Block {
        let Some(acc) = self.callee_access.get(&g) else { return vec![] };
        let pending: &[PendingRead] = self.pending.get(&ctx.func).map_or(&[], Vec::as_slice);
        let mut b = vec![];
        let ctrl = self.model.ctrl_orders_writes && !acc.writes.is_empty();
        if ctrl {
            b.extend(self.complete_speculated(ctx, s.loc, Need::Values));
        }
        // The pointer arguments the callee writes or reads through, when that is all it does.
        let through = |dir: Dir| -> Option<Vec<Expr>> {
            let ks = self.param_access(g, dir)?;
            let out: Vec<Expr> = ks.iter().filter_map(|&k| args.get(k)).cloned().collect();
            // (`&x` is an address, not a read of x; anything else reading shared memory would
            // be read again, outside the instrumentation, by the condition.)
            let reads_shared = |a: &Expr| {
                if let ExprKind::AddrOf(inner) = &a.kind {
                    if matches!(inner.kind, ExprKind::Var(_)) {
                        return false;
                    }
                }
                let mut shared = false;
                a.visit(&mut |x| shared |= is_lvalue(x) && lvalue_is_shared(self.src, x));
                shared
            };
            (!out.iter().any(reads_shared) && out.len() == ks.len()).then_some(out)
        };
        let same = |a: Expr, ptr: &Expr| eq(Expr::new(ExprKind::Cast(Box::new(a)), ptr.ty.clone()), ptr.clone());
        let mut triggers = vec![];
        let mut blind = false;
        let mut guessed = false;
        for (i, p) in pending.iter().enumerate() {
            if !self.may_be_pending(ctx, i, s.id, true) {
                continue;
            }
            // (What is said is what happens in one pass through a loop body, see `note_too_early`.)
            let said = self.may_be_pending(ctx, i, s.id, false);
            guessed |= said && ctrl && !p.spec.is_empty();
            let ptr = var(p.ptr, &self.out.var(p.ptr).ty);
            let mut conds = vec![];
            let mut always = false;
            if !p.read_objects.is_disjoint(&acc.writes) {
                match through(Dir::W) {
                    Some(addrs) => conds.extend(addrs.into_iter().map(|a| same(a, &ptr))),
                    None => always = true,
                }
            }
            let touched: BTreeSet<ObjId> = acc.reads.union(&acc.writes).copied().collect();
            for d in p.deferred.iter().filter(|d| !self.stmt_objects(d.stmt.id, Some(Dir::W)).is_disjoint(&touched)) {
                let addrs = through(Dir::R).zip(through(Dir::W)).map(|(r, w)| [r, w].concat());
                match (addrs, self.store_var(&d.stmt)) {
                    (Some(addrs), Some(v)) => {
                        let target = addr_of(var(v, &self.src.var(v).ty));
                        let flagged = var(d.flag, &Type::Bool);
                        conds.extend(addrs.into_iter().map(|a| and(flagged.clone(), same(a, &target))));
                    }
                    _ => always = true,
                }
            }
            if always {
                triggers.push((i, None));
                blind |= said;
            } else if let Some(c) = conds.into_iter().reduce(or) {
                triggers.push((i, Some(c)));
            }
        }
        b.extend(self.complete(ctx, triggers, s.loc));
        let name = &self.src.func(g).name;
        let why = if blind {
            Some(format!("delayed reads complete before the call to `{name}`, which may access their locations (not only through its pointer parameters): later accesses cannot go before them"))
        } else if guessed && !acc.reads.is_empty() {
            Some(format!("delayed reads complete before the call to `{name}`, whose writes must follow them: the callee's reads before those writes cannot go before the delayed reads"))
        } else {
            None
        };
        if let Some(why) = why {
            self.early_completions.borrow_mut().entry(s.id).or_insert((s.loc, why));
        }
        self.wrap(ctx, b, s.loc)
    }

    /// For a function whose every shared access in direction `dir` is `*p` for one of its
    /// pointer parameters `p` (never assigned, its address never taken), and which calls no
    /// function that accesses shared memory: the indices of those parameters.
    fn param_access(&self, g: FuncId, dir: Dir) -> Option<BTreeSet<usize>> {
        let f = self.src.func(g);
        let body = f.body.as_ref()?;
        let param_of = |e: &Expr| -> Option<usize> {
            let mut e = e;
            while let ExprKind::Cast(inner) = &e.kind {
                e = inner;
            }
            match e.kind {
                ExprKind::Var(v) => f.params.iter().position(|&p| p == v),
                _ => None,
            }
        };
        let mut out = BTreeSet::new();
        let mut ok = true;
        walk_stmts(body, &mut |s| {
            match &s.kind {
                StmtKind::Call { callee: Callee::Direct(h), .. } => ok &= self.callee_access.get(h).is_none_or(|a| a.reads.is_empty() && a.writes.is_empty()),
                StmtKind::Call { callee: Callee::Indirect(_), .. } => ok = false,
                StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(v), .. }, .. } if f.params.contains(v) => ok = false,
                _ => {}
            }
            crate::ir::for_each_expr(s, &mut |e| e.visit(&mut |x| {
                if let ExprKind::AddrOf(inner) = &x.kind {
                    ok &= param_of(inner).is_none();
                }
            }));
            let sites = self.sites_of.get(&s.id).into_iter().flatten().filter(|x| self.aeg.site(**x).dir == dir);
            for _ in sites {
                let lv = match (&s.kind, dir) {
                    (StmtKind::Assign { lhs, .. }, Dir::W) => Some(lhs),
                    (StmtKind::Assign { rhs, .. }, Dir::R) | (StmtKind::Return(Some(rhs)), Dir::R) => Some(rhs),
                    _ => None,
                };
                match lv.map(|lv| &lv.kind) {
                    Some(ExprKind::Deref(p)) if param_of(p).is_some() => {
                        out.insert(param_of(p).expect("checked"));
                    }
                    _ => ok = false,
                }
            }
        });
        ok.then_some(out)
    }

    /// Records an approximation where statement `s` completes pending read `i` (`cause`: it
    /// uses or redefines the read's value, outside the statements that wait with the read, or
    /// writes its location without holding it) while an event the read is delayed past may
    /// still follow `s`: that event can then no longer go before the read (`r = y; if (q) {
    /// z = r; } x = 1;` on LB), so a verdict of safety would be no proof. Within one pass
    /// through a loop body: a read pending from an earlier iteration, completed when the next
    /// one reads again, is the bound the README states.
    fn note_too_early(&self, ctx: &Ctx, i: usize, s: &Stmt, cause: &str) {
        // A branch on the value orders the writes after it where control dependencies do:
        // completing the read there takes nothing from them (the event graph may have missed
        // the dependency, through a join say).
        let branch = matches!(s.kind, StmtKind::If { .. } | StmtKind::Assert { ctrl: true, .. } | StmtKind::Assume(_));
        let ordered = |a: &crate::aeg::Site| branch && self.model.ctrl_orders_writes && a.dir == Dir::W && a.func == ctx.func;
        let reads = self.plan.read_seconds.iter().filter(|(r, _)| self.pending_at(ctx, i, self.aeg.site(**r), s.id, false));
        for (&r, seconds) in reads {
            let later = seconds.iter().map(|&a| self.aeg.site(a)).filter(|a| !ordered(a)).find(|a| {
                if a.func != ctx.func {
                    // In a function called here: after `s` where a call to it is (or where it
                    // is not called from here at all: in the caller, say).
                    let calls: Vec<u32> = self.call_sites.get(&ctx.func).into_iter().flatten()
                        .filter(|(_, g)| *g == a.func || self.callee_access.get(g).is_some_and(|acc| acc.callees.contains(&a.func)))
                        .map(|&(c, _)| c)
                        .collect();
                    return calls.is_empty() || calls.iter().any(|&c| c >= s.id);
                }
                a.stmt > s.id
            });
            if let Some(a) = later {
                let why = format!(
                    "the delayed read at line {} completes here, {cause}, before the access at line {} it is delayed past: the instrumented program cannot let that access go first",
                    self.aeg.site(r).loc.line,
                    a.loc.line
                );
                self.early_completions.borrow_mut().entry(s.id).or_insert((s.loc, why));
                return;
            }
        }
    }

    /// A branch condition reading, for each speculated variable, its guess while one is in
    /// force (`r$guessed ? r$guess : r`).
    fn guessed(&self, ctx: &Ctx, cond: &Expr) -> Expr {
        let mut guesses: BTreeMap<VarId, BTreeSet<(VarId, VarId)>> = BTreeMap::new();
        for p in self.pending.get(&ctx.func).map_or(&[][..], Vec::as_slice) {
            for sp in &p.spec {
                guesses.entry(sp.var).or_default().insert((sp.flag, sp.guess));
            }
        }
        let mut cond = cond.clone();
        cond.visit_mut_post(&mut |e| {
            let ExprKind::Var(v) = e.kind else { return };
            for &(flag, guess) in guesses.get(&v).into_iter().flatten() {
                let g = Expr::new(ExprKind::Var(guess), e.ty.clone());
                *e = Expr::new(ExprKind::Cond(Box::new(var(flag, &Type::Bool)), Box::new(g), Box::new(e.clone())), e.ty.clone());
            }
        });
        cond
    }

    /// Whether every deferred store of `p` to `objs` has been gone ahead of by a later write
    /// of its thread (see `make_supersedes`); `None` when one of them cannot be.
    fn superseded(&self, p: &PendingRead, objs: &BTreeSet<ObjId>) -> Option<Expr> {
        let stores = p.deferred.iter().filter(|d| !self.stmt_objects(d.stmt.id, Some(Dir::W)).is_disjoint(objs));
        stores.map(|d| d.sup.map(|v| var(v, &Type::Bool))).collect::<Option<Vec<_>>>()?.into_iter().reduce(and)
    }

    /// The statement itself, once the pending reads it waits for are complete.
    fn emit(&self, s: &Stmt, ctx: &mut Ctx, out: &mut Block, deferring: Option<usize>) {
        let loc = s.loc;
        let pending: &[PendingRead] = self.pending.get(&ctx.func).map_or(&[], Vec::as_slice);
        match &s.kind {
            StmtKind::Assign { lhs, rhs } if lvalue_is_shared(self.src, lhs) => {
                let objs = self.stmt_objects(s.id, Some(Dir::W));
                let group = self.group_of_stmt(s.id, Dir::W);
                let delayed = self.delayed_write_group(s.id).is_some();
                let pass = self.pass_mask(s.id);
                let hold = if deferring.is_none() { pending.iter().position(|p| p.hold.is_some() && self.holdable(p, s)) } else { None };
                let sup = if deferring.is_none() { pending.iter().enumerate().find(|(_, p)| !self.supersedable(p, s).is_empty()).map(|(i, _)| i) } else { None };
                let spare: Vec<usize> = hold.into_iter().chain(sup).collect();
                // A release write (`STLR`): everything earlier of the thread completes first.
                let mut b = if s.hw.release && deferring.is_none() { self.fence_stmts(ctx, self.full(), loc) } else { vec![] };
                b.extend(self.pre_write(ctx, s, &objs, deferring, &spare, delayed, pass));
                if let Some(si) = sup {
                    // Either the read completes first, or this write goes ahead of its
                    // deferred stores to the variable (see `make_supersedes`).
                    let p = &pending[si];
                    let pty = self.out.var(p.ptr).ty.clone();
                    let stores = self.supersedable(p, s);
                    let waiting = stores.iter().map(|d| var(d.flag, &Type::Bool)).reduce(or).expect("non-empty");
                    let ahead = stores
                        .iter()
                        .map(|d| {
                            let sup = var(d.sup.expect("supersedable"), &Type::Bool);
                            assign(sup.clone(), or(sup, var(d.flag, &Type::Bool)), loc)
                        })
                        .collect();
                    let go = and(and(ne(var(p.ptr, &pty), null(&pty)), waiting), nondet_bool());
                    b.push(if_(go, ahead, self.complete(ctx, vec![(si, None)], loc), loc));
                }
                match group {
                    Some(g) => {
                        let fns = self.groups[g].fns;
                        let args = vec![addr_of(lhs.clone()), rhs.clone(), ctx.me.clone()];
                        let direct = call(fns.write.expect("made"), args.clone(), loc);
                        if delayed {
                            // Straight to memory: lwsync-marked entries first.
                            let mut to_memory: Block = self.flush_lw_call(ctx, pass, loc).filter(|_| !self.tso_fifo && !self.model.ww_preserved).into_iter().collect();
                            to_memory.push(direct);
                            let mut args = args;
                            if self.groups[g].vars.as_ref().is_some_and(|gv| gv.tag.is_some()) {
                                args.push(uint(self.site_tag(s.id)));
                                args.push(uint(pass));
                            }
                            let mut write = vec![if_(nondet_bool(), vec![call(fns.delay.expect("made"), args.clone(), loc)], to_memory, loc)];
                            if let Some(hi) = hold {
                                // Either the pending read of this location completes first, or
                                // the write enters the buffer holding it (see `Hold`).
                                let p = &pending[hi];
                                let h = p.hold.expect("holdable");
                                let pty = self.out.var(p.ptr).ty.clone();
                                let sty = self.out.var(h.snap).ty.clone();
                                let held = var(h.held, &Type::Bool);
                                let ptr = var(p.ptr, &pty);
                                let same = eq(ptr.clone(), Expr::new(ExprKind::Cast(Box::new(addr_of(lhs.clone()))), pty.clone()));
                                let keep = and(and(ne(ptr, null(&pty)), same), and(not(held.clone()), nondet_bool()));
                                // (p, v, me, snapshot[, tag])
                                let mut hold_args = args[..3].to_vec();
                                hold_args.push(addr_of(var(h.snap, &sty)));
                                hold_args.extend(args[3..].iter().cloned());
                                let hold = vec![assign(held.clone(), int(1), loc), call(fns.hold.expect("made"), hold_args, loc)];
                                write.insert(0, if_(not(held), self.complete(ctx, vec![(hi, None)], loc), vec![], loc));
                                write = vec![if_(keep, hold, write, loc)];
                            }
                            b.extend(write);
                        } else {
                            b.push(direct);
                        }
                    }
                    None => b.push(s.clone()),
                }
                out.extend(self.wrap(ctx, b, loc));
            }
            StmtKind::Assign { lhs, rhs } if is_lvalue(rhs) && lvalue_is_shared(self.src, rhs) => {
                let group = self.group_of_stmt(s.id, Dir::R);
                let normal: Block = match group {
                    Some(g) => {
                        let fns = self.groups[g].fns;
                        let global = self.sites_of.get(&s.id).is_some_and(|ss| {
                            ss.iter().filter(|&&x| self.aeg.site(x).dir == Dir::R).all(|x| self.plan.global_reads.contains(x))
                        });
                        let read = if global { fns.read_own.or(fns.read) } else { fns.read };
                        // (Owned buffers leave in their threads' own steps instead.)
                        let flush = fns.flush_some.map(|f| call(f, vec![], loc));
                        let read = stmt(StmtKind::Call { dest: Some(lhs.clone()), callee: Callee::Direct(read.expect("made")), args: vec![addr_of(rhs.clone()), ctx.me.clone()] }, loc);
                        flush.into_iter().chain([read]).collect()
                    }
                    None => vec![s.clone()],
                };
                match self.pending_of_site.get(&s.id).map(|&i| &pending[i]) {
                    Some(p) => {
                        // DELAY READ, rule d(r(w, r)): remember the address in the read set.
                        let t = self.out.var(p.ptr).ty.clone();
                        let mut delay = vec![assign(var(p.ptr, &t), addr_of(rhs.clone()), loc)];
                        delay.extend(self.count_delay(ctx, self.pending_of_site[&s.id], loc));
                        let mut now = vec![assign(var(p.ptr, &t), null(&t), loc)];
                        now.extend(normal);
                        out.extend(self.wrap(ctx, vec![if_(nondet_bool(), delay, now, loc)], loc));
                    }
                    None if group.is_some() => out.extend(self.wrap(ctx, normal, loc)),
                    None => out.push(s.clone()),
                }
            }
            StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(v), .. }, .. }
                if self.src.var(*v).is_global() && self.src.var(*v).name.starts_with(UNBUFFERED_PREFIX) =>
            {
                out.extend(self.wrap(ctx, vec![s.clone()], loc));
            }
            // What a read-modify-write or lock orders is in the barriers `crate::atomics`
            // put around it; here only what its own write needs: coherence with the thread's
            // own buffered writes and pending reads of the location, and for a release write
            // (`STLXR`, an AArch64 unlock) everything earlier of the thread completed.
            StmtKind::Rmw(r) => {
                let objs = self.stmt_objects(s.id, None);
                let mut b = if s.hw.release { self.fence_stmts(ctx, self.full(), loc) } else { vec![] };
                b.extend(self.pre_write(ctx, s, &objs, None, &[], false, 0));
                if let Some(g) = self.group_of_stmt(s.id, Dir::W).or_else(|| self.group_of_stmt(s.id, Dir::R)) {
                    let fns = self.groups[g].fns;
                    // Another thread's buffered write may be what the read takes: it may
                    // reach memory first (owned buffers: in that thread's own steps).
                    b.extend(fns.flush_some.map(|f| call(f, vec![], loc)));
                    if let Some(f) = fns.flush_addr {
                        b.push(call(f, vec![r.ptr.clone(), ctx.me.clone()], loc));
                        // a compare-exchange also reads (and may write) `*expected`
                        if let (RmwOp::CompareExchange, Some(e)) = (r.op, &r.expected) {
                            b.push(call(f, vec![Expr::new(ExprKind::Cast(Box::new(e.clone())), r.ptr.ty.clone()), ctx.me.clone()], loc));
                        }
                    }
                }
                b.push(s.clone());
                out.extend(self.wrap(ctx, b, loc));
            }
            StmtKind::Lock(_) => out.push(s.clone()),
            StmtKind::Unlock(_) => {
                // The unlock's store is ordered after the writes its barrier orders.
                let mut b = if s.hw.release { self.fence_stmts(ctx, self.full(), loc) } else { vec![] };
                b.extend(self.pre_write(ctx, s, &BTreeSet::new(), None, &[], false, 0));
                out.extend(self.wrap(ctx, b, loc));
                out.push(s.clone());
            }
            StmtKind::Spawn { .. } => {
                let b = self.fence_stmts(ctx, self.full(), loc);
                out.extend(self.wrap(ctx, b, loc));
                out.push(s.clone());
            }
            StmtKind::Assert { .. } => {
                // A property is checked on real values only: guesses are confirmed first.
                let b = self.complete_speculated(ctx, loc, Need::Picks);
                out.extend(self.wrap(ctx, b, loc));
                out.push(s.clone());
            }
            StmtKind::Fence(f) => {
                let mut b = vec![];
                if matches!(f, Fence::Isync | Fence::Isb) && self.model.ctrl_isync_orders_reads {
                    b.extend(self.complete_speculated(ctx, loc, Need::Order));
                }
                b.extend(self.fence_stmts(ctx, self.fence_effect(*f), loc));
                out.extend(self.wrap(ctx, b, loc));
                out.push(s.clone());
            }
            StmtKind::Call { dest, callee, args } => {
                if let Callee::Direct(g) = callee {
                    // A call to a fence helper (`fence()`, `lwfence()`) completes reads here;
                    // its writes are flushed inside the callee.
                    let reads = self.must_fences.get(g).is_some_and(|fs| fs.iter().any(|f| self.fence_effect(*f).flush_reads));
                    let isync = self.model.ctrl_isync_orders_reads && self.must_fences.get(g).is_some_and(|fs| fs.iter().any(|f| matches!(f, Fence::Isync | Fence::Isb)));
                    if isync && !reads {
                        let b = self.complete_speculated(ctx, loc, Need::Order);
                        out.extend(self.wrap(ctx, b, loc));
                    }
                    if reads {
                        let strong = self.must_fences.get(g).is_some_and(|fs| fs.iter().any(|f| self.fence_effect(*f).flush_writes));
                        let b = self.complete_reads(ctx, |p| strong || !p.lw_free, loc);
                        out.extend(self.wrap(ctx, b, loc));
                    }
                }
                if let Callee::Direct(g) = callee {
                    out.extend(self.before_call(ctx, *g, s, args));
                }
                let mut args = args.clone();
                let mut callee = callee.clone();
                match &mut callee {
                    Callee::Direct(g) => {
                        if self.takes_me.contains(g) {
                            args.push(ctx.me.clone());
                        }
                    }
                    // Defined functions called through pointers take the thread id too: call
                    // through the extended type.
                    Callee::Indirect(e) => {
                        if let Some(Type::Func(ft)) = e.ty.pointee() {
                            let mut ft = (**ft).clone();
                            ft.params.push(Type::INT);
                            let ty = Type::ptr_to(Type::Func(Box::new(ft)));
                            *e = Expr::new(ExprKind::Cast(Box::new(e.clone())), ty);
                            args.push(ctx.me.clone());
                        }
                    }
                }
                out.push(Stmt { kind: StmtKind::Call { dest: dest.clone(), callee, args }, loc, id: s.id, hw: s.hw });
            }
            StmtKind::Return(_) => {
                out.extend(self.end_of_thread(ctx, loc));
                out.push(s.clone());
            }
            StmtKind::AtomicBegin => {
                ctx.atomic_depth += 1;
                out.push(s.clone());
            }
            StmtKind::AtomicEnd => {
                ctx.atomic_depth = ctx.atomic_depth.saturating_sub(1);
                out.push(s.clone());
            }
            StmtKind::If { cond, then_, else_ } => {
                let cond = if deferring.is_none() { self.guessed(ctx, cond) } else { cond.clone() };
                let then_ = self.block(then_, ctx);
                let else_ = self.block(else_, ctx);
                out.push(Stmt { kind: StmtKind::If { cond, then_, else_ }, loc, id: s.id, hw: s.hw });
            }
            StmtKind::Loop { body, latch } => {
                let body = self.block(body, ctx);
                let latch = self.block(latch, ctx);
                out.push(Stmt { kind: StmtKind::Loop { body, latch }, loc, id: s.id, hw: s.hw });
            }
            StmtKind::Block(b) => {
                let b = self.block(b, ctx);
                out.push(Stmt { kind: StmtKind::Block(b), loc, id: s.id, hw: s.hw });
            }
            _ => out.push(s.clone()),
        }
    }
}
