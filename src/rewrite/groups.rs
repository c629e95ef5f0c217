//! Buffer groups: the objects that share one write buffer, so that every access of an
//! instrumented statement hits exactly one buffer, and the lookups from sites to groups.

use super::*;

impl Rewriter<'_> {
    pub(super) fn form_groups(&mut self, stmts: &HashMap<u32, &Stmt>) {
        // Union-find over objects: a delayed write's objects share one buffer, and any site
        // touching a buffered object joins all its objects to that buffer.
        let mut parent: HashMap<ObjId, ObjId> = HashMap::new();
        fn find(p: &mut HashMap<ObjId, ObjId>, x: ObjId) -> ObjId {
            let mut r = x;
            while let Some(&q) = p.get(&r) {
                if q == r {
                    break;
                }
                r = q;
            }
            p.insert(x, r);
            r
        }
        let mut buffered: BTreeSet<ObjId> = BTreeSet::new();
        for s in &self.plan.delayed_writes {
            if self.aeg.site(*s).atomic {
                self.summary.approximations.push((self.aeg.site(*s).loc, "an atomic write (read-modify-write, lock or atomic section) was selected for delay; it is kept atomic, so the cycle is not simulated".into()));
                continue;
            }
            let objs = self.site_objs.get(s).cloned().unwrap_or_default();
            let mut it = objs.iter();
            if let Some(&first) = it.next() {
                parent.entry(first).or_insert(first);
                for &o in it {
                    parent.entry(o).or_insert(o);
                    let (a, b) = (find(&mut parent, first), find(&mut parent, o));
                    parent.insert(a, b);
                }
            }
            buffered.extend(objs);
        }
        loop {
            let mut changed = false;
            for objs in self.site_objs.values() {
                if objs.iter().any(|o| buffered.contains(o)) {
                    let first = *objs.iter().next().expect("non-empty");
                    for &o in objs {
                        parent.entry(o).or_insert(o);
                        parent.entry(first).or_insert(first);
                        let (a, b) = (find(&mut parent, first), find(&mut parent, o));
                        if a != b {
                            parent.insert(a, b);
                            changed = true;
                        }
                        changed |= buffered.insert(o);
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut by_root: BTreeMap<ObjId, BTreeSet<ObjId>> = BTreeMap::new();
        for &o in &buffered {
            let r = find(&mut parent, o);
            by_root.entry(r).or_default().insert(o);
        }
        let mut roots: Vec<BTreeSet<ObjId>> = by_root.into_values().collect();
        if self.model.ww_preserved && !roots.is_empty() {
            // TSO: one store buffer per thread, FIFO across addresses. A later write queues
            // behind the thread's pending ones, so every written object shares one buffer.
            let mut merged: BTreeSet<ObjId> = roots.iter().flatten().copied().collect();
            for (sid, objs) in &self.site_objs {
                if self.aeg.site(*sid).dir == Dir::W {
                    merged.extend(objs.iter().copied());
                }
            }
            loop {
                let before = merged.len();
                for objs in self.site_objs.values() {
                    if !objs.is_disjoint(&merged) {
                        merged.extend(objs.iter().copied());
                    }
                }
                if merged.len() == before {
                    break;
                }
            }
            if self.common_scalar_type(stmts, &merged).is_some() {
                roots = vec![merged];
                self.tso_fifo = true;
            } else {
                let loc = self.first_loc(&merged);
                self.summary.approximations.push((loc, "TSO: written objects have different types, so their writes cannot share one FIFO buffer; a later write flushes the thread's pending writes instead of queueing behind them (some TSO behaviours may be missed)".into()));
            }
        }
        let delaying_threads: BTreeSet<crate::aeg::ThreadId> =
            self.aeg.events.iter().filter(|e| self.plan.delayed_writes.contains(&e.site)).map(|e| e.thread).collect();
        for objs in roots {
            let elem = self.common_scalar_type(stmts, &objs);
            // Entries per thread: a shared buffer holds every thread's, an owned one only
            // its own thread's (see `Rewriter::owned`).
            let mut per_thread: HashMap<crate::aeg::ThreadId, u32> = HashMap::new();
            let mut bounded = true;
            for (sid, sobjs) in &self.site_objs {
                if sobjs.is_disjoint(&objs) {
                    continue;
                }
                let site = self.aeg.site(*sid);
                // On TSO every write of a thread that delays writes may queue behind them.
                let queues = |e: &crate::aeg::Event| self.tso_fifo && site.dir == Dir::W && delaying_threads.contains(&e.thread);
                if self.plan.delayed_writes.contains(sid) || self.tso_fifo && site.dir == Dir::W {
                    for e in self.aeg.events.iter().filter(|e| e.site == *sid && (self.plan.delayed_writes.contains(sid) || queues(e))) {
                        *per_thread.entry(e.thread).or_default() += 1;
                        let th = self.aeg.thread(e.thread);
                        if th.instances != crate::aeg::Instances::Count(1) || self.aeg.site(*sid).in_loop {
                            bounded = false;
                        }
                    }
                }
            }
            let delayed_here = if self.owned { per_thread.values().copied().max().unwrap_or(0) } else { per_thread.values().sum() };
            let names: Vec<String> = objs.iter().map(|o| self.aeg.object(*o).name.clone()).collect();
            let Some(elem) = elem else {
                let loc = self.first_loc(&objs);
                // (a safety verdict is then no proof: the weak behaviours of these objects are missing)
                self.summary.approximations.push((loc, format!("objects {{{}}} are accessed with different or aggregate types: not buffered (weak behaviours on them are not simulated)", names.join(", "))));
                continue;
            };
            let depth = if bounded && delayed_here > 0 {
                delayed_here.min(self.opts.buffer_size.max(delayed_here))
            } else {
                let loc = self.first_loc(&objs);
                self.summary.notes.push((loc, format!("buffer of {{{}}}: delayed writes inside loops or repeated threads; depth bounded to {} (--buffer-size): behaviours needing more pending writes are not simulated", names.join(", "), self.opts.buffer_size)));
                self.opts.buffer_size
            };
            let gi = self.groups.len();
            for &o in &objs {
                self.group_of.insert(o, gi);
            }
            self.summary.buffers.push((names.join(","), depth));
            self.groups.push(Group { objects: objs, elem, depth, fns: GroupFns::default(), vars: None });
        }
        self.summary.delayed_writes = self
            .plan
            .delayed_writes
            .iter()
            .filter(|s| self.group_of_site(**s).is_some())
            .count();
    }

    fn first_loc(&self, objs: &BTreeSet<ObjId>) -> Loc {
        self.aeg.events.iter().find(|e| objs.contains(&e.obj)).map(|e| e.loc).unwrap_or_default()
    }

    /// The one scalar type every access touching `objs` has: the element type of their buffer
    /// (`None` when types differ or an access is to an aggregate).
    fn common_scalar_type(&self, stmts: &HashMap<u32, &Stmt>, objs: &BTreeSet<ObjId>) -> Option<Type> {
        let mut elem: Option<Type> = None;
        for (sid, sobjs) in &self.site_objs {
            if sobjs.is_disjoint(objs) {
                continue;
            }
            let site = self.aeg.site(*sid);
            let Some(lv) = stmts.get(&site.stmt).and_then(|s| Self::site_lvalue(s, site.dir)) else { continue };
            match &elem {
                _ if !lv.ty.is_scalar() => return None,
                Some(t) if *t != lv.ty => return None,
                Some(_) => {}
                None => elem = Some(lv.ty),
            }
        }
        elem
    }

    /// Objects the accesses of statement `id` may touch, in direction `dir` (or both).
    pub(super) fn stmt_objects(&self, id: u32, dir: Option<Dir>) -> BTreeSet<ObjId> {
        self.sites_of
            .get(&id)
            .into_iter()
            .flatten()
            .filter(|x| dir.is_none_or(|d| self.aeg.site(**x).dir == d))
            .flat_map(|x| self.site_objs.get(x).into_iter().flatten().copied())
            .collect()
    }

    pub(super) fn group_of_site(&self, s: SiteId) -> Option<usize> {
        self.site_objs.get(&s)?.iter().find_map(|o| self.group_of.get(o).copied())
    }

    pub(super) fn group_of_stmt(&self, id: u32, dir: Dir) -> Option<usize> {
        self.sites_of.get(&id)?.iter().filter(|s| self.aeg.site(**s).dir == dir).find_map(|s| self.group_of_site(*s))
    }

    /// The buffer group of a write statement that may enter the buffer.
    pub(super) fn delayed_write_group(&self, id: u32) -> Option<usize> {
        let group = self.group_of_stmt(id, Dir::W)?;
        let delayed = self.sites_of.get(&id).into_iter().flatten().any(|x| self.plan.delayed_writes.contains(x) && !self.aeg.site(*x).atomic);
        delayed.then_some(group)
    }

    /// Groups updated by read-modify-writes; and where a write of another statement may be
    /// buffered when one reads it on a model with non-atomic stores, an approximation: the
    /// read-modify-write reads memory after letting buffered writes leave, so it never takes
    /// a write that has reached only some threads.
    pub(super) fn note_rmws(&mut self) {
        let mut rmws: Vec<(u32, BTreeSet<ObjId>, Loc)> = self
            .aeg
            .points
            .iter()
            .filter_map(|(&id, p)| match &p.kind {
                crate::aeg::PointKind::Rmw(objs) => Some((id, objs.clone(), p.loc)),
                _ => None,
            })
            .collect();
        rmws.sort_by_key(|r| r.0);
        for (id, objs, loc) in rmws {
            let Some(g) = self.group_of_stmt(id, Dir::W).or_else(|| self.group_of_stmt(id, Dir::R)) else { continue };
            self.rmw_groups.insert(g);
            let buffered_elsewhere = self.model.rfe_relaxed
                && self.plan.delayed_writes.iter().any(|w| self.aeg.site(*w).stmt != id && self.site_objs.get(w).is_some_and(|o| !o.is_disjoint(&objs)));
            if buffered_elsewhere {
                self.summary.approximations.push((loc, "this atomic read-modify-write reads only writes that have reached every thread, while a write it may read can be buffered (non-multi-copy-atomic stores)".into()));
            }
        }
    }
}
