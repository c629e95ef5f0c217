//! The generated machine: one helper function per rule of Fig. 3, per buffer group and for
//! all groups together, so that the rewritten statements only call them.

use super::*;

impl Rewriter<'_> {
    /// A variable of the buffers' state: one per thread where buffers are owned.
    fn global(&mut self, name: String, ty: Type) -> VarId {
        let storage = if self.owned { Storage::ThreadLocal } else { Storage::Global };
        let v = self.out.add_var(Var { name, ty, storage, init: None, address_taken: false, loc: Loc::default() });
        self.out.globals.push(v);
        v
    }

    /// Adds a function `name(params) -> ret` whose body `body` builds from the parameters.
    pub(super) fn new_func(&mut self, name: String, params: &[(&str, Type)], ret: Type, body: impl FnOnce(&mut Self, &[Expr]) -> Block) -> FuncId {
        let f = FuncId(self.out.funcs.len() as u32);
        self.out.funcs.push(Function {
            name,
            ty: FuncType { ret, params: params.iter().map(|p| p.1.clone()).collect(), variadic: false },
            params: vec![],
            body: None,
            loc: Loc::default(),
        });
        let mut vars = vec![];
        let mut exprs = vec![];
        for (pn, pt) in params {
            let v = self.out.add_var(Var {
                name: pn.to_string(),
                ty: pt.clone(),
                storage: Storage::Local { func: f },
                init: None,
                address_taken: false,
                loc: Loc::default(),
            });
            vars.push(v);
            exprs.push(var(v, pt));
        }
        let b = body(self, &exprs);
        let func = &mut self.out.funcs[f.0 as usize];
        func.params = vars;
        func.body = Some(b);
        f
    }

    fn local(&mut self, f: FuncId, name: &str, ty: Type) -> Expr {
        let v = self.out.add_var(Var { name: name.into(), ty: ty.clone(), storage: Storage::Temp { func: f }, init: None, address_taken: false, loc: Loc::default() });
        var(v, &ty)
    }

    /// The addresses of the group's objects when each is one whole scalar variable of the
    /// element type (so that two entries are to the same address exactly when they are to
    /// the same object), and there are fewer of them than slots: the helpers then scan the
    /// buffer once with a flag per object instead of comparing every pair of entries.
    fn object_addresses(&self, g: usize) -> Option<Vec<Expr>> {
        let grp = &self.groups[g];
        if grp.objects.len() as u64 >= grp.depth as u64 {
            return None;
        }
        grp.objects
            .iter()
            .map(|&o| {
                let obj = self.aeg.object(o);
                let v = obj.var.filter(|_| obj.exact)?;
                let var = self.out.var(v);
                (var.name == obj.name && var.ty == grp.elem && var.ty.is_scalar()).then(|| addr_of(super::build::var(v, &var.ty)))
            })
            .collect()
    }

    /// Thread ids run from 0 (main) to this, when every thread is started a known number
    /// of times.
    fn max_thread_id(&self) -> Option<i128> {
        let mut n = 0i128;
        for t in &self.aeg.threads {
            match t.instances {
                crate::aeg::Instances::Count(c) => n += c as i128,
                crate::aeg::Instances::Unbounded => return None,
            }
        }
        Some(n)
    }

    /// Whether some thread accesses one of `objects` again after reading it (program order,
    /// or a read in a loop): only then can an early read of another thread's entry constrain
    /// what the thread does later (`GroupVars::obs`).
    fn reaccessed_after_a_read(&self, objects: &BTreeSet<ObjId>) -> bool {
        let aeg = self.aeg;
        let read_of = |e: EventId| {
            let ev = aeg.event(e);
            (ev.dir == Dir::R && objects.contains(&ev.obj)).then_some(ev)
        };
        aeg.events.iter().any(|e| e.dir == Dir::R && objects.contains(&e.obj) && aeg.site(e.site).in_loop)
            || aeg.pairs.keys().any(|&(a, b)| read_of(a).is_some_and(|r| {
                let later = aeg.event(b);
                later.obj == r.obj && later.thread == r.thread
            }))
    }

    pub(super) fn make_group_fns(&mut self, g: usize) {
        let n = self.groups[g].depth as u64;
        let elem = self.groups[g].elem.clone();
        let objs = self.object_addresses(g);
        let max_tid = self.max_thread_id();
        let base = if self.tso_fifo {
            "store_buffer".to_string()
        } else {
            sanitize(&self.aeg.object(*self.groups[g].objects.iter().next().expect("non-empty")).name)
        };
        let base = format!("{base}$g{g}");
        let pty = Type::ptr_to(elem.clone());
        let arr = |t: Type| Type::Array(Box::new(t), Some(n));
        let gv = GroupVars {
            addr: { let v = self.global(format!("{base}_addr"), arr(pty.clone())); var(v, &arr(pty.clone())) },
            val: { let v = self.global(format!("{base}_val"), arr(elem.clone())); var(v, &arr(elem.clone())) },
            thd: (!self.owned).then(|| {
                let v = self.global(format!("{base}_thd"), arr(Type::INT));
                var(v, &arr(Type::INT))
            }),
            // How many lwsyncs of its thread follow the entry (0: none, may leave freely).
            lw: { let v = self.global(format!("{base}_lw"), arr(Type::INT)); var(v, &arr(Type::INT)) },
            live: { let v = self.global(format!("{base}_live"), arr(Type::Bool)); var(v, &arr(Type::Bool)) },
            n: { let v = self.global(format!("{base}_n"), Type::INT); var(v, &Type::INT) },
            cap: self.hold_groups.contains(&g).then(|| {
                let v = self.global(format!("{base}_cap"), arr(pty.clone()));
                var(v, &arr(pty.clone()))
            }),
            tag: self.tagged().then(|| {
                let v = self.global(format!("{base}_tag"), arr(Type::UINT));
                var(v, &arr(Type::UINT))
            }),
            pass: self.tagged().then(|| {
                let v = self.global(format!("{base}_pass"), arr(Type::UINT));
                var(v, &arr(Type::UINT))
            }),
            obs: (self.model.rfe_relaxed && !self.owned && self.reaccessed_after_a_read(&self.groups[g].objects)).then(|| {
                let v = self.global(format!("{base}_obs"), arr(Type::UINT));
                var(v, &arr(Type::UINT))
            }),
        };
        let at = |a: &Expr, i: u64| index(a.clone(), int(i as i128));
        let l = Loc::default();
        // Flushing entry i: WRITE FROM BUFFER TO MEMORY (Fig. 3), rule f(w(w)).
        let flush_i = |gv: &GroupVars, i: u64| -> Block {
            let mut b = vec![];
            if let Some(cap) = &gv.cap {
                // A read held past this write takes memory's value from just before it.
                let c = at(cap, i);
                let save = vec![assign(deref(c.clone()), deref(at(&gv.addr, i)), l), assign(c.clone(), null(&c.ty), l)];
                b.push(if_(ne(c.clone(), null(&c.ty)), save, vec![], l));
            }
            b.extend([assign(deref(at(&gv.addr, i)), at(&gv.val, i), l), assign(at(&gv.live, i), int(0), l)]);
            b
        };
        // Buffer empty again: slots are reused (keeps loops within the depth).
        let reset = |gv: &GroupVars| -> Stmt {
            let mut all_dead = int(1);
            for i in 0..n {
                all_dead = and(all_dead, not(at(&gv.live, i)));
            }
            if_(all_dead, vec![assign(gv.n.clone(), int(0), l)], vec![], l)
        };
        // Entry i must leave before an own entry j >= i to the same address (W4: FIFO per
        // address), where `extra` selects which own entries force the flush. Another
        // thread's entry forced out this way is not held back by its own thread's writes
        // from before an lwsync (`__weakc_lw_blocked`): more behaviours, never fewer (a
        // precise version inlines a cross-buffer flush at every forced flush: 1000x slower).
        // With `marked`, only entries an lwsync marked count, and of them (with tags) only
        // those whose tag is not in the mask (the writes the current one passes).
        // Entry j is the thread's own (live; with `addr`, to that address; with `marked`, as
        // `anchor` says).
        let own = |gv: &GroupVars, j: u64, me: &Expr, addr: Option<&Expr>, marked: Option<Option<&Expr>>| -> Expr {
            let mut c = gv.and_mine(at(&gv.live, j), j, me);
            if let Some(a) = addr {
                c = and(c, eq(at(&gv.addr, j), a.clone()));
            }
            if let Some(mask) = marked {
                c = and(c, lt(int(0), at(&gv.lw, j)));
                if let (Some(mask), Some(tag)) = (mask, &gv.tag) {
                    c = and(c, eq(bin(BinOp::BitAnd, at(tag, j), mask.clone()), uint(0)));
                }
            }
            c
        };
        let anchor = |gv: &GroupVars, i: u64, me: &Expr, addr: &Expr, marked: Option<Option<&Expr>>| -> Expr {
            let mut any = int(0);
            for j in i..n {
                any = or(any, own(gv, j, me, Some(addr), marked));
            }
            any
        };
        // `anchor(i, me, addr[i], marked)` for every i as locals of the helper being built:
        // one backward scan with a flag per object (an own entry to it seen so far).
        let anchors = |s: &mut Self, gv: &GroupVars, me: &Expr, marked: Option<Option<&Expr>>, addrs: &[Expr]| -> (Block, Vec<Expr>) {
            let fid = FuncId(s.out.funcs.len() as u32 - 1);
            let flags: Vec<Expr> = (0..addrs.len()).map(|o| s.local(fid, &format!("own_at{o}"), Type::Bool)).collect();
            let ms: Vec<Expr> = (0..n).map(|i| s.local(fid, &format!("anchored{i}"), Type::Bool)).collect();
            let mut b: Block = flags.iter().map(|f| assign(f.clone(), int(0), l)).collect();
            for i in (0..n).rev() {
                b.push(if_(own(gv, i, me, None, marked), set_flag(&at(&gv.addr, i), addrs, &flags), vec![], l));
                b.push(assign(ms[i as usize].clone(), flag_of(&at(&gv.addr, i), addrs, &flags), l));
            }
            (b, ms)
        };
        let fenced = self.model.fences.values().any(|e| e.mark_writes);
        let tso_fifo = self.tso_fifo;
        let owned = self.owned;

        // Flush every entry of `me` (and, per address, everything ahead of it): fences that
        // order W→R, thread end, and W→W on TSO.
        // (An owned buffer holds only the thread's entries: all of them leave, in order.)
        let flush_own = self.new_func(format!("{base}_flush_own"), &[("me", Type::INT)], Type::Void, |s, p| {
            if owned {
                let mut b: Block = (0..n).map(|i| if_(at(&gv.live, i), flush_i(&gv, i), vec![], l)).collect();
                b.push(reset(&gv));
                return b;
            }
            let (mut b, ms) = match &objs {
                Some(addrs) => anchors(s, &gv, &p[0], None, addrs),
                None => (vec![], (0..n).map(|i| anchor(&gv, i, &p[0], &at(&gv.addr, i), None)).collect()),
            };
            for (i, m) in (0..n).zip(ms) {
                b.push(if_(and(at(&gv.live, i), m), flush_i(&gv, i), vec![], l));
            }
            b.push(reset(&gv));
            b
        });
        let (flush_lw, mark_lw) = if fenced {
            let params: &[(&str, Type)] = if gv.tag.is_some() { &[("me", Type::INT), ("mask", Type::UINT)] } else { &[("me", Type::INT)] };
            let fl = self.new_func(format!("{base}_flush_lw"), params, Type::Void, |s, p| {
                let (mut b, ms) = match &objs {
                    Some(addrs) => anchors(s, &gv, &p[0], Some(p.get(1)), addrs),
                    None => (vec![], (0..n).map(|i| anchor(&gv, i, &p[0], &at(&gv.addr, i), Some(p.get(1)))).collect()),
                };
                for (i, m) in (0..n).zip(ms) {
                    let c = and(at(&gv.live, i), m);
                    b.push(if_(c, flush_i(&gv, i), vec![], l));
                }
                b.push(reset(&gv));
                b
            });
            let mk = self.new_func(format!("{base}_mark_lw"), &[("me", Type::INT)], Type::Void, |_, p| {
                (0..n)
                    .map(|i| {
                        let bump = assign(at(&gv.lw, i), bin(BinOp::Add, at(&gv.lw, i), int(1)), l);
                        if_(gv.and_mine(at(&gv.live, i), i, &p[0]), vec![bump], vec![], l)
                    })
                    .collect()
            });
            (Some(fl), Some(mk))
        } else {
            (None, None)
        };
        let lw_blocked = self.lw_blocked;
        // `__weakc_lw_blocked(thread, lwsyncs after it[, what it passes])` for entry i (an
        // owned buffer's entries are all the running thread's: no thread to name)
        let blocked_args = |i: u64| -> Vec<Expr> {
            let mut a = vec![gv.thd.as_ref().map_or(int(0), |t| at(t, i)), at(&gv.lw, i)];
            a.extend(gv.pass.as_ref().map(|p| at(p, i)));
            a
        };
        // `one`: at most one entry leaves (the drain step of owned buffers), and its write to
        // memory is made once, at the address chosen, instead of once per slot: a verifier
        // then sees one store per step (per known object, at its own address), not one per slot.
        let make_flush = |s: &mut Self, name: String, one: bool| s.new_func(name, &[], Type::Void, |s, _| {
            let fid = FuncId(s.out.funcs.len() as u32 - 1);
            let mut b = vec![];
            let thd_of = |i: u64| gv.thd.as_ref().map_or(int(0), |t| at(t, i));
            let older = if tso_fifo && owned {
                let f = s.local(fid, "older", Type::Bool);
                b.push(assign(f.clone(), int(0), l));
                Older::Any(f)
            } else {
                let tids = if tso_fifo { max_tid.map(|m| (0..=m).map(int).collect()) } else { Some(vec![]) };
                match (&objs, tids) {
                    (Some(addrs), Some(tids)) => {
                        let at_obj: Vec<Expr> = (0..addrs.len()).map(|o| s.local(fid, &format!("older_at{o}"), Type::Bool)).collect();
                        let of_thd: Vec<Expr> = (0..tids.len()).map(|t| s.local(fid, &format!("older_of{t}"), Type::Bool)).collect();
                        b.extend(at_obj.iter().chain(&of_thd).map(|f| assign(f.clone(), int(0), l)));
                        Older::Flags { addrs: addrs.clone(), at_obj, tids, of_thd }
                    }
                    _ => Older::Pairs,
                }
            };
            // The entry chosen to leave, with `one`: whether there is one, its address, value
            // and (held reads) snapshot pointer.
            let chosen = one.then(|| {
                let done = s.local(fid, "done", Type::Bool);
                let a = s.local(fid, "a", pty.clone());
                let v = s.local(fid, "v", elem.clone());
                let c = gv.cap.as_ref().map(|_| s.local(fid, "c", pty.clone()));
                b.push(assign(done.clone(), int(0), l));
                b.push(assign(a.clone(), null(&pty), l));
                (done, a, v, c)
            });
            let leave = |i: u64| -> Block {
                match &chosen {
                    None => flush_i(&gv, i),
                    Some((done, a, v, c)) => {
                        let mut t = vec![assign(a.clone(), at(&gv.addr, i), l), assign(v.clone(), at(&gv.val, i), l)];
                        if let (Some(c), Some(cap)) = (c, &gv.cap) {
                            t.push(assign(c.clone(), at(cap, i), l));
                            t.push(assign(at(cap, i), null(&pty), l));
                        }
                        t.extend([assign(at(&gv.live, i), int(0), l), assign(done.clone(), int(1), l)]);
                        t
                    }
                }
            };
            for i in 0..n {
                let mut c = and(at(&gv.live, i), nondet_bool());
                if let Some((done, ..)) = &chosen {
                    c = and(not(done.clone()), c);
                }
                if let Some(f) = lw_blocked {
                    // An entry leaves only after its thread's entries from before an lwsync
                    // that follows it (W1 with lwsync in ab; they may still be read early).
                    let blocked = s.local(fid, &format!("blocked{i}"), Type::Bool);
                    b.push(stmt(
                        StmtKind::Call { dest: Some(blocked.clone()), callee: Callee::Direct(f), args: blocked_args(i) },
                        l,
                    ));
                    c = and(c, not(blocked));
                }
                // Oldest per address (coherence); on TSO also oldest of its thread.
                match &older {
                    Older::Any(f) => {
                        b.push(if_(and(c, not(f.clone())), leave(i), vec![], l));
                        b.push(if_(at(&gv.live, i), vec![assign(f.clone(), int(1), l)], vec![], l));
                    }
                    Older::Flags { addrs, at_obj, tids, of_thd } => {
                        // flags: a live entry older than this one is at the object / of the thread
                        c = and(c, not(flag_of(&at(&gv.addr, i), addrs, at_obj)));
                        if tso_fifo {
                            c = and(c, not(flag_of(&thd_of(i), tids, of_thd)));
                        }
                        b.push(if_(c, leave(i), vec![], l));
                        let mut mark = set_flag(&at(&gv.addr, i), addrs, at_obj);
                        if tso_fifo {
                            mark.extend(set_flag(&thd_of(i), tids, of_thd));
                        }
                        b.push(if_(at(&gv.live, i), mark, vec![], l));
                    }
                    Older::Pairs => {
                        for k in 0..i {
                            let mut ahead = eq(at(&gv.addr, k), at(&gv.addr, i));
                            if tso_fifo {
                                ahead = or(ahead, eq(thd_of(k), thd_of(i)));
                            }
                            c = and(c, not(and(at(&gv.live, k), ahead)));
                        }
                        b.push(if_(c, leave(i), vec![], l));
                    }
                }
            }
            if let Some((done, a, v, c)) = &chosen {
                let mut w = vec![];
                if let Some(c) = c {
                    // A read held past this write takes memory's value from just before it.
                    w.push(if_(ne(c.clone(), null(&pty)), vec![assign(deref(c.clone()), deref(a.clone()), l)], vec![], l));
                }
                // Where the objects are known, one store per object at its own address: a
                // verifier then matches each only with the accesses of that object.
                let store = match &objs {
                    Some(addrs) => addrs.iter().rev().fold(vec![], |rest, o| vec![if_(eq(a.clone(), o.clone()), vec![assign(deref(o.clone()), v.clone(), l)], rest, l)]),
                    None => vec![assign(deref(a.clone()), v.clone(), l)],
                };
                w.extend(store);
                b.push(if_(done.clone(), w, vec![], l));
            }
            b.push(reset(&gv));
            b
        });
        // Non-deterministic flush of the oldest entries per address, inserted before reads
        // where its effect can be observed (§4.4); owned buffers leave one entry per step of
        // their own thread instead (`drain_steps`).
        let (flush_some, drain_one) = if owned {
            (None, Some(make_flush(self, format!("{base}_drain_one"), true)))
        } else {
            (Some(make_flush(self, format!("{base}_flush_some"), false)), None)
        };
        // READ FROM memory or buffer: own newest entry (rfi, store forwarding); with
        // non-atomic writes (rfe relaxed) also another thread's entry (R6, visible(w, r)).
        let rfe = self.model.rfe_relaxed;
        let b_blocked = self.lw_blocked.filter(|_| self.model.lw_b_cumulative);
        let read_fn = |s: &mut Self, name: String, others: bool| {
            s.new_func(name, &[("p", pty.clone()), ("me", Type::INT)], elem.clone(), |s, p| {
                let fid = FuncId(s.out.funcs.len() as u32 - 1);
                let v = s.local(fid, "v", elem.clone());
                let mut b = vec![name_target(s, fid, &p[0], &pty, l), assign(v.clone(), deref(p[0].clone()), l)];
                // The entry read (-1: memory), to record another thread's as observed.
                let src = gv.obs.as_ref().map(|_| s.local(fid, "src", Type::INT));
                b.extend(src.iter().map(|x| assign(x.clone(), int(-1), l)));
                for i in 0..n {
                    // whose entry it may read: its own (every entry of an owned buffer, which
                    // never has `others`: owned means no rfe); with `others`, any it sees;
                    // one it has read before, or a later one (CoRR: memory and the older
                    // entries at the address are coherence-before it)
                    let mut who = gv.thd.as_ref().map(|t| {
                        let own = eq(at(t, i), p[1].clone());
                        match gv.observed(i, &p[1]) {
                            Some(o) => or(own, o),
                            None => own,
                        }
                    });
                    if others {
                        let mut seen = nondet_bool();
                        if let Some(f) = b_blocked {
                            // B-cumulativity: another thread sees the entry only after its
                            // thread's writes from before an lwsync that precedes it.
                            let blocked = s.local(fid, &format!("blocked{i}"), Type::Bool);
                            b.push(stmt(StmtKind::Call { dest: Some(blocked.clone()), callee: Callee::Direct(f), args: blocked_args(i) }, l));
                            seen = and(seen, not(blocked));
                        }
                        who = who.map(|m| or(m, seen));
                    }
                    let mut c = and(at(&gv.live, i), eq(at(&gv.addr, i), p[0].clone()));
                    if let Some(w) = who {
                        c = and(c, w);
                    }
                    let mut take = vec![assign(v.clone(), at(&gv.val, i), l)];
                    take.extend(src.iter().map(|x| assign(x.clone(), int(i as i128), l)));
                    b.push(if_(c, take, vec![], l));
                }
                if let (Some(src), Some(obs), Some(thd)) = (&src, &gv.obs, &gv.thd) {
                    let bit = bin(BinOp::Shl, uint(1), p[1].clone());
                    for i in 0..n {
                        let c = and(and(eq(src.clone(), int(i as i128)), ne(at(thd, i), p[1].clone())), lt(p[1].clone(), int(OBSERVER_BITS)));
                        b.push(if_(c, vec![assign(at(obs, i), bin(BinOp::BitOr, at(obs, i), bit.clone()), l)], vec![], l));
                    }
                }
                b.push(stmt(StmtKind::Return(Some(v)), l));
                b
            })
        };
        let read = read_fn(self, format!("{base}_read"), rfe);
        let has_global = self.plan.global_reads.iter().any(|&x| self.group_of_site(x) == Some(g));
        let read_own = (rfe && has_global).then(|| read_fn(self, format!("{base}_read_own"), false));
        // WRITE TO BUFFER, rule d(w(w)); a full buffer blocks the delay (never a false alarm).
        // With tags, a fourth parameter: the bits of the write's site (see `lw_bits`).
        let mut delay_params = vec![("p", pty.clone()), ("v", elem.clone()), ("me", Type::INT)];
        if gv.tag.is_some() {
            delay_params.push(("tag", Type::UINT));
            delay_params.push(("pass", Type::UINT));
        }
        let delay = self.new_func(format!("{base}_delay"), &delay_params, Type::Void, |_, p| {
            let i = gv.n.clone();
            let mut b = vec![
                assume(lt(gv.n.clone(), int(n as i128)), l),
                assign(index(gv.addr.clone(), i.clone()), p[0].clone(), l),
                assign(index(gv.val.clone(), i.clone()), p[1].clone(), l),
            ];
            if let Some(thd) = &gv.thd {
                b.push(assign(index(thd.clone(), i.clone()), p[2].clone(), l));
            }
            b.extend([assign(index(gv.lw.clone(), i.clone()), int(0), l), assign(index(gv.live.clone(), i.clone()), int(1), l)]);
            if let Some(obs) = &gv.obs {
                b.push(assign(index(obs.clone(), i.clone()), uint(0), l));
            }
            if let (Some(tag), Some(pass)) = (&gv.tag, &gv.pass) {
                b.push(assign(index(tag.clone(), i.clone()), p[3].clone(), l));
                b.push(assign(index(pass.clone(), i.clone()), p[4].clone(), l));
            }
            b.push(assign(gv.n.clone(), bin(BinOp::Add, gv.n.clone(), int(1)), l));
            b
        });
        // A write: own entries to the same address go first (coherence, W4), and so do the
        // entries of other threads it has read (CoRW: the write is coherence-after what its
        // thread read), with what is ahead of them at the address. On TSO a write of a thread
        // with pending writes either queues behind them or waits for them all.
        let coherent = |p: &[Expr]| -> Block {
            let mut direct = vec![];
            if tso_fifo {
                direct.push(call(flush_own, vec![p[1].clone()], l));
            } else {
                for i in 0..n {
                    let mut ahead = anchor(&gv, i, &p[1], &p[0], None);
                    for j in i..n {
                        if let Some(o) = gv.observed(j, &p[1]) {
                            ahead = or(ahead, and(and(at(&gv.live, j), eq(at(&gv.addr, j), p[0].clone())), o));
                        }
                    }
                    let c = and(and(at(&gv.live, i), eq(at(&gv.addr, i), p[0].clone())), ahead);
                    direct.push(if_(c, flush_i(&gv, i), vec![], l));
                }
                direct.push(reset(&gv));
            }
            direct
        };
        let flush_addr = self.rmw_groups.contains(&g).then(|| {
            self.new_func(format!("{base}_flush_addr"), &[("p", pty.clone()), ("me", Type::INT)], Type::Void, |_, p| coherent(p))
        });
        let write = self.new_func(format!("{base}_write"), &[("p", pty.clone()), ("v", elem.clone()), ("me", Type::INT)], Type::Void, |s, p| {
            let fid = FuncId(s.out.funcs.len() as u32 - 1);
            let target = name_target(s, fid, &p[0], &pty, l);
            let mut direct = coherent(&[p[0].clone(), p[2].clone()]);
            direct.push(assign(deref(p[0].clone()), p[1].clone(), l));
            if !tso_fifo {
                direct.insert(0, target);
                return direct;
            }
            let mut own = int(0);
            for i in 0..n {
                own = or(own, gv.and_mine(at(&gv.live, i), i, &p[2]));
            }
            let mut args = p.to_vec();
            if gv.tag.is_some() {
                args.extend([uint(0), uint(0)]);
            }
            vec![target, if_(and(own, nondet_bool()), vec![call(delay, args, l)], direct, l)]
        });
        let (hold, read_held) = match gv.cap.clone() {
            None => (None, None),
            Some(cap) => {
                // `delay`, the entry remembering where the held read's snapshot goes.
                let mut hold_params = vec![("p", pty.clone()), ("v", elem.clone()), ("me", Type::INT), ("s", pty.clone())];
                if gv.tag.is_some() {
                    hold_params.push(("tag", Type::UINT));
                    hold_params.push(("pass", Type::UINT));
                }
                let hold = self.new_func(format!("{base}_hold"), &hold_params, Type::Void, |_, p| {
                    let i = gv.n.clone();
                    let mut args = p[..3].to_vec();
                    args.extend(p[4..].iter().cloned());
                    vec![
                        call(delay, args, l),
                        assign(index(cap.clone(), bin(BinOp::Sub, i, int(1))), p[3].clone(), l),
                    ]
                });
                // READ FROM memory or buffer for a held read: while the write that holds
                // it is buffered, what `read` sees without that write and the thread's later
                // entries; once it has left, the value memory held just before.
                let read_held = self.new_func(format!("{base}_read_held"), &[("p", pty.clone()), ("me", Type::INT), ("s", pty.clone())], elem.clone(), |s, p| {
                    let fid = FuncId(s.out.funcs.len() as u32 - 1);
                    let v = s.local(fid, "v", elem.clone());
                    let hit = s.local(fid, "hit", Type::Bool);
                    let mut b = vec![assign(v.clone(), deref(p[0].clone()), l), assign(hit.clone(), int(0), l)];
                    for i in 0..n {
                        let mine = and(at(&gv.live, i), eq(at(&cap, i), p[2].clone()));
                        b.push(if_(mine, vec![assign(hit.clone(), int(1), l)], vec![], l));
                        // its own entries until the holding one is met; with rfe, any other's
                        let own = gv.thd.as_ref().map(|t| eq(at(t, i), p[1].clone()));
                        let mut who = own.clone().map_or(not(hit.clone()), |o| and(o, not(hit.clone())));
                        if let (true, Some(own)) = (rfe, own) {
                            who = or(who, and(not(own), nondet_bool()));
                        }
                        let c = and(and(at(&gv.live, i), eq(at(&gv.addr, i), p[0].clone())), who);
                        b.push(if_(c, vec![assign(v.clone(), at(&gv.val, i), l)], vec![], l));
                    }
                    let release: Block = (0..n).map(|i| if_(eq(at(&cap, i), p[2].clone()), vec![assign(at(&cap, i), null(&pty), l)], vec![], l)).collect();
                    b.push(if_(hit, release, vec![assign(v.clone(), deref(p[2].clone()), l)], l));
                    b.push(stmt(StmtKind::Return(Some(v)), l));
                    b
                });
                (Some(hold), Some(read_held))
            }
        };
        self.groups[g].vars = Some(gv.clone());
        self.groups[g].fns = GroupFns {
            flush_own: Some(flush_own),
            flush_lw,
            mark_lw,
            flush_some,
            drain_one,
            read: Some(read),
            read_own,
            write: Some(write),
            flush_addr,
            delay: Some(delay),
            hold,
            read_held,
        };
    }

    pub(super) fn make_global_fns(&mut self) {
        let fns: Vec<GroupFns> = self.groups.iter().map(|g| g.fns).collect();
        let l = Loc::default();
        let all = |pick: fn(&GroupFns) -> Option<FuncId>, p: &[Expr]| -> Block {
            fns.iter().filter_map(pick).map(|f| call(f, vec![p[0].clone()], l)).collect()
        };
        if let Some(f) = self.lw_blocked {
            let ps: Vec<Expr> = self.out.func(f).params.iter().map(|&v| var(v, &self.out.var(v).ty)).collect();
            let r = self.local(f, "r", Type::Bool);
            let mut body = vec![assign(r.clone(), int(0), l)];
            for g in &self.groups {
                let gv = g.vars.as_ref().expect("made");
                for i in 0..g.depth as u64 {
                    let at = |a: &Expr| index(a.clone(), int(i as i128));
                    let mut c = and(gv.and_mine(at(&gv.live), i, &ps[0]), lt(ps[1].clone(), at(&gv.lw)));
                    // an entry the blocked one passes does not hold it back
                    if let (Some(tag), Some(mask)) = (&gv.tag, ps.get(2)) {
                        c = and(c, eq(bin(BinOp::BitAnd, at(tag), mask.clone()), uint(0)));
                    }
                    body.push(if_(c, vec![assign(r.clone(), int(1), l)], vec![], l));
                }
            }
            body.push(stmt(StmtKind::Return(Some(r)), l));
            self.out.funcs[f.0 as usize].body = Some(body);
        }
        self.flush_all_own = Some(self.new_func("__weakc_flush_all_own".into(), &[("me", Type::INT)], Type::Void, |_, p| all(|g| g.flush_own, p)));
        if fns.iter().any(|g| g.flush_lw.is_some()) {
            let tagged = self.tagged();
            let params: &[(&str, Type)] = if tagged { &[("me", Type::INT), ("mask", Type::UINT)] } else { &[("me", Type::INT)] };
            self.flush_all_lw = Some(self.new_func("__weakc_flush_all_lw".into(), params, Type::Void, |_, p| {
                fns.iter().filter_map(|g| g.flush_lw).map(|f| call(f, p.to_vec(), l)).collect()
            }));
            self.mark_all_lw = Some(self.new_func("__weakc_mark_all_lw".into(), &[("me", Type::INT)], Type::Void, |_, p| all(|g| g.mark_lw, p)));
        }
    }
}

/// What holds an entry back in a flush scan: an older live entry at its address (coherence)
/// and, on TSO, an older one of its thread.
enum Older {
    /// An owned TSO buffer is one FIFO of one thread: any older live entry, one flag.
    Any(Expr),
    /// A flag per known object and (TSO) per thread id, set scanning forward:
    /// O(entries × objects).
    Flags { addrs: Vec<Expr>, at_obj: Vec<Expr>, tids: Vec<Expr>, of_thd: Vec<Expr> },
    /// Every older entry compared: O(entries²).
    Pairs,
}

/// `flags[k] = 1` for the `k` with `x == keys[k]` (none if no key matches).
fn set_flag(x: &Expr, keys: &[Expr], flags: &[Expr]) -> Block {
    let l = Loc::default();
    keys.iter().zip(flags).rev().fold(vec![], |rest, (k, f)| vec![if_(eq(x.clone(), k.clone()), vec![assign(f.clone(), int(1), l)], rest, l)])
}

/// `flags[k]` for the `k` with `x == keys[k]`, 0 if none matches.
fn flag_of(x: &Expr, keys: &[Expr], flags: &[Expr]) -> Expr {
    keys.iter().zip(flags).fold(int(0), |acc, (k, f)| or(acc, and(eq(x.clone(), k.clone()), f.clone())))
}

/// A C identifier fragment from an object name (`s.f[]` → `s_f`).
fn sanitize(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    s.trim_end_matches('_').to_string()
}

/// `__weakc_target = p`: names the accessed object in an external verifier's trace, which
/// shows a helper's local assignments but not its parameters (ESBMC), so that the trace can
/// be told as the user's reads and writes (`backend::steps`).
fn name_target(s: &mut Rewriter<'_>, f: FuncId, p: &Expr, pty: &Type, l: Loc) -> Stmt {
    let t = s.local(f, "__weakc_target", pty.clone());
    assign(t, p.clone(), l)
}
