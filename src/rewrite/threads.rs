//! Threads and the `me` parameter: which functions own a thread id or receive it, and the
//! fences a function surely executes (a call to it orders like those fences).

use super::*;

impl Rewriter<'_> {
    pub(super) fn find_threads(&mut self) {
        for t in &self.aeg.threads {
            self.entries.insert(t.func);
        }
        // Every defined function may run in any thread (also those reached only through
        // pointers stored in initialisers), so every one gets the thread id.
        for (i, func) in self.src.funcs.iter().enumerate() {
            let f = FuncId(i as u32);
            if func.body.is_some() && !self.entries.contains(&f) {
                self.takes_me.insert(f);
            }
        }
        let next = self.out.add_var(Var {
            name: "__weakc_next_tid".into(),
            ty: Type::INT,
            storage: Storage::Global,
            init: None,
            address_taken: false,
            loc: Loc::default(),
        });
        self.out.globals.push(next);
        self.next_tid = Some(next);
    }

    pub(super) fn compute_must_fences(&mut self) {
        // Fences at the top level of a body, transitively through top-level calls.
        fn go(p: &Program, f: FuncId, memo: &mut HashMap<FuncId, BTreeSet<Fence>>, depth: usize) -> BTreeSet<Fence> {
            if let Some(s) = memo.get(&f) {
                return s.clone();
            }
            memo.insert(f, BTreeSet::new());
            let mut out = BTreeSet::new();
            if let (Some(body), true) = (&p.func(f).body, depth < 32) {
                for s in body {
                    match &s.kind {
                        StmtKind::Fence(fe) => {
                            out.insert(*fe);
                        }
                        StmtKind::Call { callee: Callee::Direct(g), .. } => out.extend(go(p, *g, memo, depth + 1)),
                        _ => {}
                    }
                }
            }
            memo.insert(f, out.clone());
            out
        }
        let mut memo = HashMap::new();
        for i in 0..self.src.funcs.len() {
            go(self.src, FuncId(i as u32), &mut memo, 0);
        }
        self.must_fences = memo;
    }

    /// The shared objects each defined function reads and writes, with those of every function
    /// it calls (to a fixed point: calls may recurse); and where each calls which.
    pub(super) fn compute_callee_access(&mut self) {
        let mut own: HashMap<FuncId, Access> = HashMap::new();
        for (i, site) in self.aeg.sites.iter().enumerate() {
            let objs = self.site_objs.get(&SiteId(i as u32)).into_iter().flatten().copied();
            let acc = own.entry(site.func).or_default();
            match site.dir {
                Dir::R => acc.reads.extend(objs),
                Dir::W => acc.writes.extend(objs),
            }
        }
        for (i, func) in self.src.funcs.iter().enumerate() {
            let f = FuncId(i as u32);
            let Some(body) = &func.body else { continue };
            walk_stmts(body, &mut |s| {
                if let StmtKind::Call { callee: Callee::Direct(g), .. } = &s.kind {
                    self.call_sites.entry(f).or_default().push((s.id, *g));
                    own.entry(f).or_default().callees.insert(*g);
                }
            });
        }
        let mut changed = true;
        while changed {
            changed = false;
            let funcs: Vec<FuncId> = own.keys().copied().collect();
            for f in funcs {
                let mut acc = own[&f].clone();
                for g in &own[&f].callees {
                    if let Some(a) = own.get(g) {
                        acc.reads.extend(a.reads.iter().copied());
                        acc.writes.extend(a.writes.iter().copied());
                        acc.callees.extend(a.callees.iter().copied());
                    }
                }
                if own[&f] != acc {
                    own.insert(f, acc);
                    changed = true;
                }
            }
        }
        self.callee_access = own;
    }

    pub(super) fn add_me_params(&mut self) {
        for &f in &self.takes_me {
            let me = self.out.add_var(Var {
                name: "__weakc_me".into(),
                ty: Type::INT,
                storage: Storage::Local { func: f },
                init: None,
                address_taken: false,
                loc: self.src.func(f).loc,
            });
            let func = &mut self.out.funcs[f.0 as usize];
            func.params.push(me);
            func.ty.params.push(Type::INT);
        }
    }

    pub(super) fn me_var(&self, f: FuncId) -> VarId {
        if self.takes_me.contains(&f) {
            *self.out.func(f).params.last().expect("me parameter added")
        } else {
            self.entry_me[&f]
        }
    }
}
