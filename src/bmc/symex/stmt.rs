//! Statements and control flow: forward jumps park their path state until the join point,
//! loops are unwound to their bound and then cut (or asserted not to go on).
//!
//! Separate because it is the walk over the IR; what the statements do to memory, paths
//! and events is in the other modules.

use super::*;

fn is_cond_prefix(s: &Stmt) -> bool {
    match &s.kind {
        // An atomic load in the condition is an `Rmw` load with the fences its mapping puts
        // around it (Power's seq_cst load is `sync; ld`): without them here, such a loop
        // could leave after N iterations on sc but not on power.
        StmtKind::Assign { .. } | StmtKind::Skip | StmtKind::Fence(_) => true,
        StmtKind::Rmw(r) => r.op == RmwOp::Load,
        StmtKind::If { then_, else_, .. } => {
            let brk = |b: &Block| b.len() == 1 && matches!(b[0].kind, StmtKind::Break);
            (brk(then_) && else_.is_empty()) || (then_.is_empty() && brk(else_))
        }
        _ => false,
    }
}

impl<'p> Symex<'p> {
    pub(super) fn block(&mut self, stmts: &'p [Stmt]) -> R<()> {
        for s in stmts {
            if self.dead() {
                // Only a label can revive a dead path.
                if !self.contains_pending_label(s) {
                    continue;
                }
            }
            self.stmt(s)?;
        }
        Ok(())
    }

    fn contains_pending_label(&self, s: &Stmt) -> bool {
        let Some(fr) = self.ctx.frames.last() else { return false };
        if fr.labels.is_empty() {
            return false;
        }
        let mut found = false;
        walk_stmts(std::slice::from_ref(s), &mut |x| {
            if let StmtKind::Label(l, _) = &x.kind {
                if fr.labels.get(l).is_some_and(|v| !v.is_empty()) {
                    found = true;
                }
            }
        });
        found
    }

    fn stmt(&mut self, s: &'p Stmt) -> R<()> {
        let loc = s.loc;
        if self.sat.check_limits().is_some() {
            self.limit_hit = true;
            return Err(Error::Internal("limit reached during symbolic execution".into()));
        }
        self.cur_loc = loc;
        self.cur_stmt = s.id;
        self.cur_stmt_ptr = s as *const Stmt as usize;
        self.acc.clear();
        self.cur_addr = Taint::default();
        self.cur_data = Taint::default();
        self.cur_hw = s.hw;
        // (Most programs have no warning: no lookup per statement for them.)
        if !self.distrusted.is_empty() {
            if let Some(why) = self.distrusted.get(&loc) {
                let why = why.clone();
                self.arbitrary_unless(Lit::FALSE, &why);
            }
        }
        match &s.kind {
            StmtKind::Skip => {}
            StmtKind::Fence(f) => self.fence(*f),
            StmtKind::Block(b) => self.block(b)?,
            StmtKind::Assign { lhs, rhs } => {
                let v = self.eval_as_value(rhs, &lhs.ty)?;
                let data = self.taint_since(0);
                let place = self.place(lhs)?;
                self.cur_addr = self.taint_since(0);
                self.cur_data = data;
                self.store(place, v, lhs, loc)?;
            }
            StmtKind::If { cond, then_, else_ } => {
                let c = self.eval_cond(cond)?;
                if self.track {
                    let t = self.taint_since(0);
                    let ctrl = self.state.deps.ctrl.clone();
                    self.state.deps.ctrl = ctrl.union(&t, &mut self.sat);
                }
                let g = self.state.guard;
                let gt = self.sat.and(g, c);
                let ge = self.sat.and(g, !c);
                if ge == Lit::FALSE {
                    self.state.guard = gt;
                    self.block(then_)?;
                } else if gt == Lit::FALSE {
                    self.state.guard = ge;
                    self.block(else_)?;
                } else {
                    let saved = self.state.clone();
                    self.state.guard = gt;
                    self.block(then_)?;
                    let st = std::mem::replace(&mut self.state, saved);
                    self.state.guard = ge;
                    self.block(else_)?;
                    let se = std::mem::replace(&mut self.state, dead_state());
                    let known = (st.guard == gt && se.guard == ge).then_some(g);
                    self.state = self.merge(vec![st, se], known);
                }
            }
            StmtKind::Loop { body, latch } => self.loop_(s, body, latch)?,
            StmtKind::Break => {
                let st = self.kill();
                match self.frame().loops.last_mut() {
                    Some(l) => l.breaks.push(st),
                    None => return Err(Error::syntax(loc, "`break` outside a loop")),
                }
            }
            StmtKind::Continue => {
                let st = self.kill();
                match self.frame().loops.last_mut() {
                    Some(l) => l.conts.push(st),
                    None => return Err(Error::syntax(loc, "`continue` outside a loop")),
                }
            }
            StmtKind::Return(e) => {
                let fid = self.frame().id;
                let f = self.frame().func;
                if let Some(e) = e {
                    let rt = self.prog.func(f).ty.ret.clone();
                    let v = if rt == Type::Void { self.eval(e)? } else { self.eval_as_value(e, &rt)? };
                    self.state.vars.insert((fid, RETVAL), v);
                    if self.track {
                        let t = self.taint_since(0);
                        self.state.taint.insert((fid, RETVAL), vec![t]);
                    }
                }
                let st = self.kill();
                self.frame().returns.push(st);
            }
            StmtKind::Goto(l) => {
                let st = self.kill();
                self.frame().labels.entry(*l).or_default().push(st);
            }
            StmtKind::Label(l, _) => {
                let pending = self.frame().labels.remove(l).unwrap_or_default();
                if !pending.is_empty() {
                    let cur = std::mem::replace(&mut self.state, dead_state());
                    let mut all = pending;
                    all.push(cur);
                    self.state = self.merge(all, None);
                }
            }
            StmtKind::Assert { cond, msg, .. } => {
                let c = self.eval_cond(cond)?;
                let viol = self.sat.and(self.state.guard, !c);
                if viol != Lit::FALSE {
                    let msg = if msg.is_empty() { "assertion".to_string() } else { msg.clone() };
                    self.props.push(Prop { kind: PropertyKind::Assertion, loc, msg, viol });
                    let prop = self.props.len() - 1;
                    let g = self.state.guard;
                    self.state.guard = viol;
                    self.step(loc, RawKind::Fail { prop });
                    self.state.guard = g;
                }
            }
            StmtKind::Assume(c) => {
                let c = self.eval_cond(c)?;
                self.step(loc, RawKind::Assume);
                self.state.guard = self.sat.and(self.state.guard, c);
            }
            StmtKind::AtomicBegin => {
                let outer = self.state.atomic_depth == 0;
                self.atomic_begin();
                if outer {
                    // The program's own atomic section is a full fence too, as for the
                    // instrumentation (README, conventions).
                    self.blocks[self.ctx.last_block as usize].kind = BlockKind::AtomicSection;
                }
                self.step(loc, RawKind::AtomicBegin);
            }
            StmtKind::AtomicEnd => {
                self.step(loc, RawKind::AtomicEnd);
                self.atomic_end();
            }
            StmtKind::Call { dest, callee, args } => self.call(dest.as_ref(), callee, args, loc)?,
            StmtKind::Spawn { tid, func, arg } => self.spawn(tid.as_ref(), func, arg, loc)?,
            StmtKind::Join { tid, ret } => self.join(tid, ret.as_ref(), loc)?,
            StmtKind::Lock(p) => self.lock(p, loc)?,
            StmtKind::Unlock(p) => self.unlock(p, loc)?,
            StmtKind::Rmw(r) => self.rmw(r, loc)?,
        }
        Ok(())
    }

    /// How many more times a counting loop ([`super::super::counted`]) goes round from this
    /// state, at most `max`, when its counter and limit are known here.
    fn counted(&mut self, body: &'p [Stmt], latch: &'p [Stmt], max: u32) -> R<Option<u32>> {
        let prog = self.prog;
        let register = |v: VarId| matches!(prog.var(v).storage, Storage::Local { .. } | Storage::Temp { .. }) && !self.is_mem_var(v);
        let Some(c) = super::super::counted::counter(body, latch, register) else { return Ok(None) };
        let value = |bv: &Bv, ty: &Type| Some(bv::signed(as_const(bv)?, bv.len(), ty));
        // registers only: no event; what their taint adds is no statement's dependency
        let mark = self.acc.len();
        let start = self.eval_scalar(&Expr::var(c.var, c.var_ty.clone()))?;
        let limit = self.eval_scalar(c.limit)?;
        self.acc.truncate(mark);
        Ok(match (value(&start, &c.var_ty), value(&limit, &c.limit.ty)) {
            (Some(s), Some(l)) => c.count(s, l, max),
            _ => None,
        })
    }

    fn loop_(&mut self, s: &'p Stmt, body: &'p [Stmt], latch: &'p [Stmt]) -> R<()> {
        let id = self.loop_ids.get(&(s as *const Stmt)).cloned().unwrap_or_else(|| "loop".into());
        let reduced = self.spin.get(&(s as *const Stmt)).copied();
        let mut bound = match reduced {
            Some(r) => r.passes() as u32,
            None => self.opts.unwindset.get(&id).copied().unwrap_or(self.opts.unwind),
        };
        // A counting loop at its bound goes on for the iterations its counter says are left.
        let counting = reduced.is_none() && !self.opts.unwindset.contains_key(&id);
        let mut exits = vec![];
        let mut iter = 0;
        let outer_nest = self.counted_nest;
        loop {
            use super::super::counted::{MAX_COUNT, MAX_NEST};
            if iter == bound && counting && !self.dead() && iter < MAX_COUNT {
                if let Some(left) = self.counted(body, latch, MAX_COUNT - iter)? {
                    if left > 0 && outer_nest.saturating_mul(bound + left) <= MAX_NEST {
                        bound += left;
                        self.counted_nest = outer_nest * bound;
                    }
                }
            }
            if iter >= bound || self.dead() {
                break;
            }
            self.path.push(s as *const Stmt as usize);
            self.path.push(iter as usize);
            self.frame().loops.push(LoopCtx::default());
            self.block(body)?;
            let ctx = self.frame().loops.pop().unwrap();
            let cur = std::mem::replace(&mut self.state, dead_state());
            let mut all = ctx.conts;
            all.push(cur);
            self.state = self.merge(all, None);
            self.frame().loops.push(LoopCtx { breaks: ctx.breaks, conts: vec![] });
            self.block(latch)?;
            let ctx = self.frame().loops.pop().unwrap();
            exits.extend(ctx.breaks);
            self.path.pop();
            self.path.pop();
            iter += 1;
        }
        self.counted_nest = outer_nest;
        if reduced.is_some() {
            // Going round again would change nothing: the path ends here, with no loss.
            self.kill();
        } else if !self.dead() {
            // One more (partial) iteration: evaluate the loop condition at the head of the
            // body, then the path that would enter the body again is cut.
            self.frame().loops.push(LoopCtx::default());
            for st in body {
                if self.dead() || !is_cond_prefix(st) {
                    break;
                }
                self.stmt(st)?;
            }
            let ctx = self.frame().loops.pop().unwrap();
            exits.extend(ctx.breaks);
            exits.extend(ctx.conts);
            if !self.dead() {
                let g = self.state.guard;
                if self.opts.unwinding_assertions {
                    self.props.push(Prop {
                        kind: PropertyKind::UnwindingAssertion,
                        loc: s.loc,
                        msg: format!("unwinding assertion loop {id}"),
                        viol: g,
                    });
                    let prop = self.props.len() - 1;
                    self.step(s.loc, RawKind::Fail { prop });
                } else {
                    self.cuts.push(g);
                }
                self.kill();
            }
        }
        let cur = std::mem::replace(&mut self.state, dead_state());
        exits.push(cur);
        self.state = self.merge(exits, None);
        Ok(())
    }
}
