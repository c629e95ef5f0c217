//! Delayed reads and what waits with them: the per-function [`PendingRead`]s, with their
//! deferred statements, holds, superseded stores, speculations and forwards, planned once
//! before any statement is rewritten.

use super::*;

impl Rewriter<'_> {
    pub(super) fn make_pending_reads(&mut self, stmts: &HashMap<u32, &Stmt>) {
        for sid in &self.plan.delayed_reads {
            let site = self.aeg.site(*sid);
            if site.atomic {
                self.summary.approximations.push((site.loc, "an atomic read (read-modify-write or atomic section) was selected for delay; it is kept atomic, so the cycle is not simulated".into()));
                continue;
            }
            let Some(s) = stmts.get(&site.stmt) else { continue };
            let StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(dest), .. }, rhs } = &s.kind else {
                self.summary.notes.push((site.loc, "a read selected for delay does not read into a variable: not delayed".into()));
                continue;
            };
            if self.pending_of_site.contains_key(&site.stmt) {
                continue;
            }
            let func = site.func;
            let list = self.pending.entry(func).or_default();
            let existing = list.iter().position(|p| p.dest == *dest);
            let idx = match existing {
                Some(i) => i,
                None => {
                    let dv = self.src.var(*dest);
                    let storage = if dv.is_global() { Storage::Global } else { Storage::Temp { func } };
                    let ptr = self.out.add_var(Var {
                        name: format!("{}$rs", dv.name),
                        ty: Type::ptr_to(rhs.ty.clone()),
                        storage,
                        init: None,
                        address_taken: false,
                        loc: dv.loc,
                    });
                    if storage == Storage::Global {
                        self.out.globals.push(ptr);
                    }
                    let list = self.pending.get_mut(&func).expect("inserted");
                    list.push(PendingRead {
                        dest: *dest,
                        ptr,
                        objects: BTreeSet::new(),
                        read_objects: BTreeSet::new(),
                        deferred_writes: BTreeSet::new(),
                        group: None,
                        deferred: vec![],
                        derived: [*dest].into(),
                        cond_derived: BTreeMap::new(),
                        inputs: BTreeSet::new(),
                        early_defs: BTreeSet::new(),
                        spec: vec![],
                        fwd: vec![],
                        lw_free: false,
                        hold: None,
                    });
                    list.len() - 1
                }
            };
            let objs = self.site_objs.get(sid).cloned().unwrap_or_default();
            let group = self.group_of_site(*sid);
            let p = &mut self.pending.get_mut(&func).expect("inserted")[idx];
            p.objects.extend(objs.iter().copied());
            p.read_objects.extend(objs);
            p.group = p.group.or(group);
            p.lw_free |= self.plan.lw_free.contains(sid);
            self.pending_of_site.insert(site.stmt, idx);
            self.summary.delayed_reads += 1;
        }
        self.make_deferred_stores();
        self.make_supersedes();
        self.make_speculations();
        if self.model.rfi_relaxed {
            self.make_forwards();
        }
        self.make_holds();
    }

    /// Whether pending read `p` may be held past the write `s` (see [`Hold`]): `s` may be
    /// buffered in the read's group, and none of the read's deferred statements touches
    /// what `s` writes (they would have to be performed before it).
    pub(super) fn holdable(&self, p: &PendingRead, s: &Stmt) -> bool {
        let StmtKind::Assign { lhs, .. } = &s.kind else { return false };
        if self.tso_fifo || !lvalue_is_shared(self.src, lhs) {
            return false;
        }
        let objs = self.stmt_objects(s.id, Some(Dir::W));
        p.group.is_some()
            && self.delayed_write_group(s.id) == p.group
            && !p.objects.is_disjoint(&objs)
            && p.deferred.iter().all(|d| self.stmt_objects(d.stmt.id, None).is_disjoint(&objs))
    }

    /// The variables of a [`Hold`] for each pending read some write can hold it past.
    fn make_holds(&mut self) {
        let funcs: Vec<FuncId> = self.pending.keys().copied().collect();
        for func in funcs {
            let Some(body) = &self.src.func(func).body else { continue };
            let mut writes = vec![];
            walk_stmts(body, &mut |s| writes.push(s.clone()));
            for pi in 0..self.pending[&func].len() {
                let p = &self.pending[&func][pi];
                if !writes.iter().any(|s| self.holdable(p, s)) {
                    continue;
                }
                let g = p.group.expect("holdable");
                let global = self.out.var(p.ptr).is_global();
                let (name, loc) = { let d = self.src.var(p.dest); (d.name.clone(), d.loc) };
                let storage = if global { Storage::Global } else { Storage::Temp { func } };
                let elem = self.groups[g].elem.clone();
                let mut mk = |n: String, ty: Type, address_taken: bool| {
                    let id = self.out.add_var(Var { name: n, ty, storage, init: None, address_taken, loc });
                    if global {
                        self.out.globals.push(id);
                    }
                    id
                };
                let held = mk(format!("{name}$held"), Type::Bool, false);
                // (Not `__unbuffered_*`: its address is taken.)
                let snap = mk(format!("__weakc_snap${name}"), elem, true);
                self.pending.get_mut(&func).expect("exists")[pi].hold = Some(Hold { held, snap });
                self.hold_groups.insert(g);
            }
        }
    }

    /// For each delayed read site, the statements after it in the same block that depend on
    /// its value and can wait with it (see [`Deferred`]); the scan stops at control flow, at
    /// another delayed read, or where waiting would change what a statement computes.
    fn make_deferred_stores(&mut self) {
        let funcs: Vec<FuncId> = self.pending.keys().copied().collect();
        for func in funcs {
            let Some(body) = &self.src.func(func).body else { continue };
            let blocks = blocks_of(body);
            let mut plans: Vec<(usize, Vec<Stmt>, BTreeSet<VarId>, BTreeSet<VarId>, BTreeSet<u32>, BTreeSet<VarId>)> = vec![];
            for block in blocks {
                for (i, site) in block.iter().enumerate() {
                    let Some(&pi) = self.pending_of_site.get(&site.id) else { continue };
                    let dest = self.pending[&func][pi].dest;
                    let mut sc = Scan { derived: [dest].into(), ..Scan::default() };
                    for (j, t) in block.iter().enumerate().skip(i + 1) {
                        if self.pending_of_site.contains_key(&t.id) {
                            break;
                        }
                        if uses_any(t, &sc.merged) {
                            break;
                        }
                        if matches!(t.kind, StmtKind::Label(..)) {
                            // Paths join: what the chain defined since the jump may be stale.
                            sc.merged.extend(sc.cond_vars.iter().copied());
                        }
                        // Jumps forward within the block (`if (r0 == 1) goto over; r1 = r3;
                        // over:`) skip statements on some paths; deferred statements are
                        // flagged only where they run, and replay in program order.
                        if forward_jump(self.src, block, j, body) {
                            // Copies in the arms run as they are: they must neither use nor
                            // define anything the read's chain holds.
                            let copies = arm_copies(t);
                            let clash = copies.iter().any(|c| {
                                let StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(l), .. }, .. } = &c.kind else { return true };
                                uses_any(c, &sc.derived) || sc.derived.contains(l) || sc.inputs.contains(l)
                            });
                            if clash {
                                break;
                            }
                            sc.early.extend(copies.iter().map(|c| c.id));
                            // A branch on the value (taken on a guess, see `Speculation`):
                            // later stores wait with the read where control dependencies
                            // order them, and a later read of theirs may forward them.
                            let pick = matches!(&t.kind, StmtKind::If { cond, .. } if is_pick_cond(self.src, cond));
                            sc.ctrl |= uses_any(t, &sc.derived) && self.model.ctrl_orders_writes && !pick;
                            sc.jumped = true;
                            continue;
                        }
                        if let StmtKind::Assert { ctrl: false, .. } = &t.kind {
                            // A verifier's assertion is checked when the values it reads are
                            // there; it is no branch, so nothing after it waits.
                            if uses_any(t, &sc.derived) {
                                sc.inputs.extend(vars_used(t).difference(&sc.derived).copied());
                                sc.chain.push(t.clone());
                            }
                            continue;
                        }
                        // A branch on values the read does not determine, whose arms only
                        // assign (`if (q == 0) { z = r; }`): the arms' statements wait with the
                        // read or run now, as in straight-line code; those that wait are
                        // flagged only where their arm runs, like those past a forward jump.
                        if let StmtKind::If { then_, else_, .. } = &t.kind {
                            let plain = then_.iter().chain(else_).all(|c| matches!(c.kind, StmtKind::Assign { .. }));
                            if !plain || uses_any(t, &sc.derived) {
                                break;
                            }
                            let jumped = std::mem::replace(&mut sc.jumped, true);
                            let before = sc.cond_vars.len();
                            let ok = then_.iter().chain(else_).all(|c| sc.step(self.src, c));
                            sc.jumped = jumped;
                            if !ok {
                                break;
                            }
                            // The paths join after the branch: what its arms defined is derived
                            // only where they ran.
                            if sc.cond_vars.len() > before {
                                sc.merged.extend(sc.cond_vars.iter().copied());
                            }
                            continue;
                        }
                        if !sc.step(self.src, t) {
                            break;
                        }
                    }
                    let Scan { derived, inputs, chain, early, cond_vars, .. } = sc;
                    if !chain.is_empty() {
                        plans.push((pi, chain, derived, inputs, early, cond_vars));
                    }
                }
            }
            for (pi, chain, derived, inputs, early, cond_vars) in plans {
                for t in chain {
                    let objs = self.stmt_objects(t.id, None);
                    let writes = self.stmt_objects(t.id, Some(Dir::W));
                    let ptr_global = self.out.var(self.pending[&func][pi].ptr).is_global();
                    let flag = self.out.add_var(Var {
                        name: format!("__weakc_deferred{}", t.id),
                        ty: Type::Bool,
                        storage: if ptr_global { Storage::Global } else { Storage::Temp { func } },
                        init: None,
                        address_taken: false,
                        loc: t.loc,
                    });
                    if ptr_global {
                        self.out.globals.push(flag);
                    }
                    let p = &mut self.pending.get_mut(&func).expect("exists")[pi];
                    p.objects.extend(objs);
                    p.deferred_writes.extend(writes);
                    p.deferred.push(Deferred { stmt: t, flag, sup: None });
                }
                let p = &mut self.pending.get_mut(&func).expect("exists")[pi];
                for v in cond_vars {
                    p.cond_derived.insert(v, vec![]);
                }
                p.derived.extend(derived);
                p.inputs.extend(inputs);
                p.early_defs.extend(early);
            }
            // The flags of every deferred statement defining a conditionally derived variable.
            for p in self.pending.get_mut(&func).expect("exists") {
                for (v, flags) in p.cond_derived.iter_mut() {
                    *flags = p.deferred.iter().filter(|d| matches!(&d.stmt.kind, StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(l), .. }, .. } if l == v)).map(|d| d.flag).collect();
                }
            }
        }
    }

    /// A deferred store to a shared variable that its thread writes again later (`z = r1`
    /// waiting for `r0 = y`, then `z = 2; r3 = z; if (r3 ...) x = 1`): coherence puts the
    /// store before the later write, but the later write need not wait for the read, and
    /// neither do the reads and control dependencies after it (herd's arm.cat and ppc.cat
    /// allow `LB+data+data-wsi-rfi-ctrl`). So the later write may go ahead of the store and
    /// mark it superseded; when the read completes, the store is coherence-before a write
    /// already in memory, and is dropped. (Not simulated: another thread seeing the store
    /// before the later write when the later write went ahead; the choice of completing the
    /// read first remains, which is what weakc did before.)
    fn make_supersedes(&mut self) {
        let funcs: Vec<FuncId> = self.pending.keys().copied().collect();
        for func in funcs {
            let Some(body) = &self.src.func(func).body else { continue };
            let mut written = BTreeSet::new();
            walk_stmts(body, &mut |s| {
                if let Some(v) = self.store_var(s) {
                    written.insert((v, s.id));
                }
            });
            for pi in 0..self.pending[&func].len() {
                for di in 0..self.pending[&func][pi].deferred.len() {
                    let d = &self.pending[&func][pi].deferred[di];
                    let Some(v) = self.store_var(&d.stmt) else { continue };
                    if !written.iter().any(|&(w, id)| w == v && id != d.stmt.id) {
                        continue;
                    }
                    let (name, loc) = (format!("__weakc_superseded{}", d.stmt.id), d.stmt.loc);
                    let storage = self.out.var(d.flag).storage;
                    let sup = self.out.add_var(Var { name, ty: Type::Bool, storage, init: None, address_taken: false, loc });
                    if storage == Storage::Global {
                        self.out.globals.push(sup);
                    }
                    self.pending.get_mut(&func).expect("exists")[pi].deferred[di].sup = Some(sup);
                }
            }
        }
    }

    /// The shared variable a store writes, when its lvalue is one (its address then does not
    /// depend on any value).
    pub(super) fn store_var(&self, s: &Stmt) -> Option<VarId> {
        match &s.kind {
            StmtKind::Assign { lhs, .. } if lvalue_is_shared(self.src, lhs) => match lhs.kind {
                ExprKind::Var(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }

    /// The deferred stores of `p` that the write `s` may go ahead of (see `make_supersedes`):
    /// none unless `s` writes their variable and nothing else the read waits with.
    pub(super) fn supersedable<'p>(&self, p: &'p PendingRead, s: &Stmt) -> Vec<&'p Deferred> {
        let Some(v) = self.store_var(s) else { return vec![] };
        let (sup, rest): (Vec<&Deferred>, Vec<&Deferred>) = p.deferred.iter().partition(|d| d.sup.is_some() && self.store_var(&d.stmt) == Some(v));
        if sup.is_empty() || p.deferred.iter().any(|d| d.stmt.id == s.id) {
            return vec![];
        }
        let objs = self.stmt_objects(s.id, None);
        let clash = !p.read_objects.is_disjoint(&objs) || rest.iter().any(|d| !self.stmt_objects(d.stmt.id, None).is_disjoint(&objs));
        if clash {
            vec![]
        } else {
            sup
        }
    }

    /// For each branch condition using a pending read's value: a guess and a flag per value.
    fn make_speculations(&mut self) {
        let funcs: Vec<FuncId> = self.pending.keys().copied().collect();
        for func in funcs {
            let Some(body) = &self.src.func(func).body else { continue };
            // Variable → whether a control dependency (not only a pick) branches on it.
            let mut used: BTreeMap<VarId, bool> = BTreeMap::new();
            walk_stmts(body, &mut |s| {
                if let StmtKind::If { cond, .. } = &s.kind {
                    let ctrl = !is_pick_cond(self.src, cond);
                    cond.visit(&mut |x| {
                        if let ExprKind::Var(v) = x.kind {
                            *used.entry(v).or_default() |= ctrl;
                        }
                    });
                }
            });
            let mut shared: BTreeMap<(VarId, bool), (VarId, VarId)> = BTreeMap::new();
            for pi in 0..self.pending[&func].len() {
                let p = &self.pending[&func][pi];
                let global = self.out.var(p.ptr).is_global();
                let vars: Vec<(VarId, bool)> = p
                    .derived
                    .iter()
                    .filter_map(|v| used.get(v).map(|c| (*v, *c)))
                    .filter(|(v, _)| self.src.var(*v).ty.is_scalar() && !p.cond_derived.contains_key(v))
                    .collect();
                for (v, ctrl) in vars {
                    let (name, ty, loc) = { let x = self.src.var(v); (x.name.clone(), x.ty.clone(), x.loc) };
                    let storage = if global { Storage::Global } else { Storage::Temp { func } };
                    let mk = |rw: &mut Self, n: String, t: Type| {
                        let id = rw.out.add_var(Var { name: n, ty: t, storage, init: None, address_taken: false, loc });
                        if global {
                            rw.out.globals.push(id);
                        }
                        id
                    };
                    // One guess per variable: the branch takes it whichever pending reads the
                    // value derives from, and it is checked once all of them are complete.
                    let (guess, flag) = match shared.get(&(v, global)) {
                        Some(&gf) => gf,
                        None => {
                            let gf = (mk(self, format!("{name}$guess"), ty), mk(self, format!("{name}$guessed"), Type::Bool));
                            shared.insert((v, global), gf);
                            gf
                        }
                    };
                    self.pending.get_mut(&func).expect("exists")[pi].spec.push(Speculation { var: v, guess, flag, ctrl });
                }
            }
        }
    }

    /// For each plain read after a deferred store to a location it may read, in the store's
    /// block: the variables of a [`Forward`].
    fn make_forwards(&mut self) {
        let funcs: Vec<FuncId> = self.pending.keys().copied().collect();
        for func in funcs {
            let Some(body) = &self.src.func(func).body else { continue };
            let blocks = blocks_of(body);
            let mut found: Vec<(usize, Stmt, Stmt)> = vec![];
            for block in blocks {
                for (k, r) in block.iter().enumerate() {
                    if !plain_read(self.src, r) || self.pending_of_site.contains_key(&r.id) {
                        continue;
                    }
                    let robjs = self.stmt_objects(r.id, Some(Dir::R));
                    for (pi, p) in self.pending[&func].iter().enumerate() {
                        if p.deferred.iter().any(|d| d.stmt.id == r.id) {
                            continue;
                        }
                        let writers: Vec<&Deferred> = p.deferred.iter().filter(|d| !self.stmt_objects(d.stmt.id, Some(Dir::W)).is_disjoint(&robjs)).collect();
                        let [d] = writers.as_slice() else { continue };
                        let before = block[..k].iter().any(|t| t.id == d.stmt.id);
                        let is_store = matches!(&d.stmt.kind, StmtKind::Assign { lhs, .. } if lvalue_is_shared(self.src, lhs));
                        if before && is_store {
                            found.push((pi, r.clone(), d.stmt.clone()));
                        }
                    }
                }
            }
            for (pi, r, store) in found {
                let StmtKind::Assign { lhs, rhs } = &r.kind else { continue };
                let global = self.out.var(self.pending[&func][pi].ptr).is_global();
                let storage = if global { Storage::Global } else { Storage::Temp { func } };
                let mk = |rw: &mut Self, n: String, t: Type| {
                    let id = rw.out.add_var(Var { name: n, ty: t, storage, init: None, address_taken: false, loc: r.loc });
                    if global {
                        rw.out.globals.push(id);
                    }
                    id
                };
                let base = format!("__weakc_fwd{}", r.id);
                let flag = mk(self, format!("{base}_on"), Type::Bool);
                let guess = mk(self, format!("{base}_guess"), lhs.ty.clone());
                let mem = mk(self, format!("{base}_mem"), lhs.ty.clone());
                let addr = mk(self, format!("{base}_addr"), Type::ptr_to(rhs.ty.clone()));
                let nomatch = mk(self, format!("{base}_elsewhere"), Type::Bool);
                self.pending.get_mut(&func).expect("exists")[pi].fwd.push(Forward { site: r.id, store, flag, guess, mem, addr, nomatch });
            }
        }
    }
}

/// `r = <shared lvalue>`: a read whose only other part is its address.
pub(super) fn plain_read(prog: &Program, s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::Assign { lhs, rhs } if matches!(lhs.kind, ExprKind::Var(_)) && !lvalue_is_shared(prog, lhs) && is_lvalue(rhs) && lvalue_is_shared(prog, rhs))
}

/// Every statement list of a body (the body, branches, loop bodies and latches, blocks):
/// deferred chains and forwarded reads live within one of them.
/// The scan of `make_deferred_stores` after one delayed read: what waits with it so far.
#[derive(Default)]
struct Scan {
    /// Variables whose value depends on the read (the read's destination first).
    derived: BTreeSet<VarId>,
    /// Other variables the waiting statements use: they must keep their values.
    inputs: BTreeSet<VarId>,
    /// The statements that wait with the read, in program order.
    chain: Vec<Stmt>,
    /// Statements the scan passed that run now (they use and define nothing derived).
    early: BTreeSet<u32>,
    /// Past a jump (or in a branch's arm), chain statements may not run: what they define is
    /// derived only where they ran (their flags say so at run time).
    jumped: bool,
    /// A branch on the value came before: later stores wait with the read where control
    /// dependencies order them.
    ctrl: bool,
    cond_vars: BTreeSet<VarId>,
    /// Those of `cond_vars` past a point where paths that skipped them join: a use ends the
    /// scan.
    merged: BTreeSet<VarId>,
}

impl Scan {
    /// One assignment: waits with the read, runs now, or ends the scan (`false`).
    fn step(&mut self, prog: &Program, t: &Stmt) -> bool {
        let StmtKind::Assign { lhs, rhs } = &t.kind else { return false };
        // A store through a pointer (`*(&x + r3) = r4`) waits too when its address or value
        // depends on the read; an unrelated one ends the scan.
        let l = match lhs.kind {
            ExprKind::Var(l) => Some(l),
            _ => None,
        };
        let mut uses = BTreeSet::new();
        let used_exprs = if l.is_some() { vec![rhs] } else { vec![lhs, rhs] };
        for e in used_exprs {
            e.visit(&mut |x| {
                if let ExprKind::Var(v) = x.kind {
                    uses.insert(v);
                }
            });
        }
        if !uses.is_disjoint(&self.derived) || (self.ctrl && lvalue_is_shared(prog, lhs)) {
            // (Deferred statements replay in order among themselves.)
            self.inputs.extend(uses.difference(&self.derived).copied());
            if let Some(l) = l.filter(|_| !lvalue_is_shared(prog, lhs)) {
                if self.jumped && !self.derived.contains(&l) {
                    self.cond_vars.insert(l);
                }
                self.derived.insert(l);
            }
            self.chain.push(t.clone());
            true
        } else if l.is_none_or(|l| self.derived.contains(&l) || self.inputs.contains(&l)) {
            false
        } else {
            self.early.insert(t.id);
            true
        }
    }
}

fn blocks_of(body: &[Stmt]) -> Vec<&[Stmt]> {
    let mut blocks: Vec<&[Stmt]> = vec![body];
    walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::If { then_, else_, .. } => {
            blocks.push(then_);
            blocks.push(else_);
        }
        StmtKind::Loop { body, latch } => {
            blocks.push(body);
            blocks.push(latch);
        }
        StmtKind::Block(b) => blocks.push(b),
        _ => {}
    });
    blocks
}

/// Whether `block[j]` is a label that only jumps from earlier in `block` reach, or a branch
/// whose arms end with a jump forward to such a label (or fall through), after assignments
/// to registers only (`{ r1_v2 = r1; goto over; }`: the litmus translator's join copies).
fn forward_jump(prog: &Program, block: &[Stmt], j: usize, body: &[Stmt]) -> bool {
    let label_at = |l: LabelId| block.iter().position(|s| matches!(s.kind, StmtKind::Label(m, _) if m == l));
    let only_forward = |l: LabelId, at: usize| {
        let mut ok = true;
        walk_stmts(body, &mut |s| {
            if matches!(s.kind, StmtKind::Goto(m) if m == l) {
                ok &= block[..at].iter().any(|b| contains_stmt(b, s.id));
            }
        });
        ok
    };
    match &block[j].kind {
        StmtKind::Label(l, _) => only_forward(*l, j),
        StmtKind::If { then_, else_, .. } => {
            let arm_ok = |arm: &[Stmt]| {
                let (last, copies) = match arm.split_last() {
                    Some((last, copies)) if matches!(last.kind, StmtKind::Goto(_)) => (Some(last), copies),
                    _ => (None, arm),
                };
                last.is_none_or(|s| matches!(s.kind, StmtKind::Goto(l) if label_at(l).is_some_and(|at| at > j && only_forward(l, at))))
                    && copies.iter().all(|s| register_copy(prog, s))
            };
            arm_ok(then_) && arm_ok(else_)
        }
        _ => false,
    }
}

/// An assignment between registers (no shared memory on either side).
fn register_copy(prog: &Program, s: &Stmt) -> bool {
    let StmtKind::Assign { lhs, rhs } = &s.kind else { return false };
    let mut shared = lvalue_is_shared(prog, lhs);
    rhs.visit(&mut |x| shared |= is_lvalue(x) && lvalue_is_shared(prog, x));
    matches!(lhs.kind, ExprKind::Var(_)) && !shared
}

/// The register copies in the arms of a branch [`forward_jump`] accepts.
fn arm_copies(s: &Stmt) -> Vec<&Stmt> {
    let StmtKind::If { then_, else_, .. } = &s.kind else { return vec![] };
    then_.iter().chain(else_).filter(|s| matches!(s.kind, StmtKind::Assign { .. })).collect()
}

/// Whether statement `outer` is or contains the statement `id`.
fn contains_stmt(outer: &Stmt, id: u32) -> bool {
    let mut found = false;
    walk_stmts(std::slice::from_ref(outer), &mut |s| found |= s.id == id);
    found
}

/// The variables a statement's expressions mention.
pub(super) fn vars_used(s: &Stmt) -> BTreeSet<VarId> {
    let mut used = BTreeSet::new();
    crate::ir::for_each_expr(s, &mut |e| {
        e.visit(&mut |x| {
            if let ExprKind::Var(v) = x.kind {
                used.insert(v);
            }
        })
    });
    used
}

/// Whether a statement's expressions use any of `vars`.
fn uses_any(s: &Stmt, vars: &BTreeSet<VarId>) -> bool {
    let mut hit = false;
    crate::ir::for_each_expr(s, &mut |e| e.visit(&mut |x| hit |= matches!(x.kind, ExprKind::Var(v) if vars.contains(&v))));
    hit
}
