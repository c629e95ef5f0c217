//! Construction of the abstract event graph from the normalised IR (ESOP 2013 §4.2).
//!
//! Threads are found from `main` by following spawns; each thread's code is walked as if
//! every call were inlined, giving a per-thread control-flow graph whose nodes are accesses,
//! fences, branches and local assignments. `po+` between two events, and what lies on
//! *every* path between them (fences, dependencies), is computed by a forward must-dataflow
//! from each event that communicates with another thread.

use super::alias::{Alias, AliasOptions};
use super::joins::{self, SyncOp};
use super::*;
use crate::ir::*;
use crate::normalize::{is_lvalue, is_pick_cond, lvalue_is_shared, var_is_shared};
use crate::source::Error;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

#[derive(Copy, Clone, Debug, Default)]
pub struct BuildOptions {
    pub alias: AliasOptions,
}

/// Inlining deeper than this is reported as an error (recursion the front end missed, or
/// absurd nesting).
const MAX_INLINE_DEPTH: usize = 64;

#[derive(Clone, Debug, Default)]
pub(super) enum NodeKind {
    #[default]
    Nop,
    Access {
        dir: Dir,
        /// Locals the address computation reads.
        addr_uses: BTreeSet<VarId>,
        /// Locals the stored value is computed from (writes).
        data_uses: BTreeSet<VarId>,
        /// The local a read stores into.
        def: Option<VarId>,
        /// The instruction's own ordering (acquire for a read, release for a write).
        hw: HwOrder,
    },
    Local {
        def: Option<VarId>,
        uses: BTreeSet<VarId>,
    },
    Branch {
        uses: BTreeSet<VarId>,
    },
    Fence(Fence),
}

#[derive(Default)]
pub(super) struct Cfg {
    pub(super) nodes: Vec<NodeKind>,
    /// Successors with a flag telling whether the edge is a loop back-edge.
    pub(super) succ: Vec<Vec<(usize, bool)>>,
    /// Spawns, joins, handle loads and stores, harness counters (see [`super::joins`]).
    pub(super) sync: HashMap<usize, SyncOp>,
    /// Nodes of statements the rewriter over-orders (the statement's id; see [`Point`]).
    pub(super) points: HashMap<usize, u32>,
    /// The statement of each shared write's node.
    pub(super) write_stmt: HashMap<usize, u32>,
}

impl Cfg {
    fn add(&mut self, k: NodeKind, preds: &[usize]) -> usize {
        self.nodes.push(k);
        self.succ.push(vec![]);
        let n = self.nodes.len() - 1;
        for &p in preds {
            self.succ[p].push((n, false));
        }
        n
    }
}

struct LoopCtx {
    breaks: Vec<usize>,
    continues: Vec<usize>,
}

struct Frame {
    func: FuncId,
    returns: Vec<usize>,
    /// Pending forward gotos per label.
    gotos: HashMap<LabelId, Vec<usize>>,
}

struct ThreadWalk<'a> {
    prog: &'a Program,
    alias: &'a Alias,
    cfg: Cfg,
    loops: Vec<LoopCtx>,
    frames: Vec<Frame>,
    atomic_depth: u32,
    /// In `main` before the first thread is created: accesses cannot race with anything.
    before_spawn: bool,
    loop_depth: u32,
    /// Spawns found: (function, loc, inside a loop).
    spawns: Vec<(FuncId, Loc, bool)>,
    spawn_memo: &'a mut HashMap<FuncId, bool>,
    /// Variables usable as thread handles ([`joins::trackable_handles`]).
    handles: &'a HashSet<VarId>,
    /// Statements the rewriter over-orders, found in this thread (see [`Point`]).
    points: Vec<(u32, PointKind, Loc)>,
}

/// Shared state of the whole construction.
struct Builder {
    alias: Alias,
    aeg: Aeg,
    event_ids: HashMap<(ThreadId, SiteId, ObjId), EventId>,
    site_ids: HashMap<(u32, Dir), SiteId>,
    /// Events placed at each (thread, CFG node).
    node_events: HashMap<(ThreadId, usize), Vec<EventId>>,
}

/// Builds the abstract event graph of a normalised program.
pub fn build(prog: &Program, opts: &BuildOptions) -> Result<Aeg, Error> {
    let main = prog
        .main
        .ok_or_else(|| Error::Internal("the program has no `main` function".into()))?;
    let reachable = reachable_funcs(prog, main);
    let alias = Alias::analyze(prog, &reachable, opts.alias);
    let thread_local = alias.thread_local_objects(prog, &reachable);
    let mut b = Builder {
        aeg: Aeg { objects: alias.objects.clone(), ..Aeg::default() },
        alias,
        event_ids: HashMap::new(),
        site_ids: HashMap::new(),
        node_events: HashMap::new(),
    };
    let mut spawn_memo = HashMap::new();
    let handles = joins::trackable_handles(prog, &reachable);
    // Threads: main first, then every spawn found while walking a thread.
    let mut queue: Vec<(FuncId, Instances, Loc, u32)> =
        vec![(main, Instances::Count(1), prog.func(main).loc, 0)];
    let mut cfgs = vec![];
    let mut seen_spawns: HashMap<(FuncId, Loc), usize> = HashMap::new();
    while let Some((func, instances, loc, depth)) = queue.pop() {
        let tid = ThreadId(b.aeg.threads.len() as u32);
        b.aeg.threads.push(Thread { name: prog.func(func).name.clone(), func, instances, loc });
        let mut w = ThreadWalk {
            prog,
            alias: &b.alias,
            cfg: Cfg::default(),
            loops: vec![],
            frames: vec![],
            atomic_depth: 0,
            before_spawn: tid.0 == 0,
            loop_depth: 0,
            spawns: vec![],
            spawn_memo: &mut spawn_memo,
            handles: &handles,
            points: vec![],
        };
        let entry = w.cfg.add(NodeKind::Nop, &[]);
        let mut pending = vec![];
        w.call(func, &[entry], 0, &mut pending)?;
        let ThreadWalk { cfg, spawns, points, .. } = w;
        for (kind, node, site, objs) in pending {
            b.place_events(tid, kind, node, site, objs);
        }
        for (id, kind, loc) in points {
            b.aeg.points.entry(id).or_insert(Point { kind, loc });
        }
        cfgs.push(cfg);
        for (f, sloc, in_loop) in spawns {
            let count = seen_spawns.entry((f, sloc)).or_insert(0);
            *count += 1;
            // A spawn reached again through its own descendants is unbounded: stop there.
            if *count > 1 || depth > 8 {
                if let Some(t) = b.aeg.threads.iter_mut().find(|t| t.func == f && t.loc == sloc) {
                    t.instances = Instances::Unbounded;
                }
                continue;
            }
            let inst = if in_loop || instances == Instances::Unbounded {
                Instances::Unbounded
            } else {
                Instances::Count(1)
            };
            queue.push((f, inst, sloc, depth + 1));
        }
    }
    // A read-modify-write point's objects are those its events access; its read and write
    // events are partners.
    let mut halves: HashMap<(ThreadId, u32, ObjId), (Option<EventId>, Option<EventId>)> = HashMap::new();
    for (i, e) in b.aeg.events.iter().enumerate() {
        let stmt = b.aeg.sites[e.site.0 as usize].stmt;
        if let Some(Point { kind: PointKind::Rmw(objs), .. }) = b.aeg.points.get_mut(&stmt) {
            objs.insert(e.obj);
            let h = halves.entry((e.thread, stmt, e.obj)).or_default();
            match e.dir {
                Dir::R => h.0 = Some(EventId(i as u32)),
                Dir::W => h.1 = Some(EventId(i as u32)),
            }
        }
    }
    for (r, w) in halves.into_values() {
        if let (Some(r), Some(w)) = (r, w) {
            b.aeg.rmw_partner.insert(r, w);
            b.aeg.rmw_partner.insert(w, r);
        }
    }
    // Fill the per-node event lists now that events exist, compute com, then pairs.
    b.compute_com(&thread_local);
    let has_com: HashSet<EventId> = b.aeg.com.iter().flat_map(|&(a, c)| [a, c]).collect();
    for (t, cfg) in cfgs.iter().enumerate() {
        b.pairs_for_thread(ThreadId(t as u32), cfg, &has_com);
        b.immediate_po(ThreadId(t as u32), cfg);
    }
    let input = joins::Input { prog, threads: &b.aeg.threads, cfgs: &cfgs, node_events: &b.node_events };
    b.aeg.after = joins::after_joins(&input, b.aeg.events.len());
    Ok(b.aeg)
}

/// Functions reachable from `main` through calls, spawns and address-taken functions.
pub fn reachable_funcs(prog: &Program, main: FuncId) -> Vec<FuncId> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![main];
    while let Some(f) = stack.pop() {
        if !seen.insert(f) {
            continue;
        }
        let Some(body) = &prog.func(f).body else { continue };
        walk_stmts(body, &mut |s| {
            if let StmtKind::Call { callee: Callee::Direct(g), .. } = &s.kind {
                stack.push(*g);
            }
            for_each_expr(s, &mut |e| {
                e.visit(&mut |x| {
                    if let ExprKind::FuncAddr(g) = x.kind {
                        stack.push(g);
                    }
                })
            });
        });
    }
    seen.into_iter().collect()
}

/// Locals (thread-private variables) an expression reads.
fn local_uses(prog: &Program, e: &Expr, out: &mut BTreeSet<VarId>) {
    e.visit(&mut |x| {
        if let ExprKind::Var(v) = x.kind {
            if !var_is_shared(prog, v) {
                out.insert(v);
            }
        }
    });
}

/// Locals read by the address computation of lvalue `lv` (not the value stored at it).
fn addr_uses(prog: &Program, lv: &Expr, out: &mut BTreeSet<VarId>) {
    match &lv.kind {
        ExprKind::Var(_) => {}
        ExprKind::Deref(p) => local_uses(prog, p, out),
        ExprKind::Member(b, _) => addr_uses(prog, b, out),
        ExprKind::Index(b, i) => {
            if matches!(b.ty, Type::Array(..)) {
                addr_uses(prog, b, out)
            } else {
                local_uses(prog, b, out)
            }
            local_uses(prog, i, out);
        }
        _ => local_uses(prog, lv, out),
    }
}

/// The `__unbuffered_` harness counter an lvalue writes (part of), if any.
fn counter_root(prog: &Program, lhs: &Expr) -> Option<VarId> {
    let mut root = lhs;
    while let ExprKind::Index(b, _) | ExprKind::Member(b, _) = &root.kind {
        root = b;
    }
    match root.kind {
        ExprKind::Var(v) if joins::is_counter(prog, v) => Some(v),
        _ => None,
    }
}

type Pending = (Dir, usize, SiteInfo, Vec<ObjId>);

#[derive(Clone)]
struct SiteInfo {
    func: FuncId,
    stmt: u32,
    atomic: bool,
    in_loop: bool,
    loc: Loc,
}

impl ThreadWalk<'_> {
    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("inside a function")
    }

    fn may_spawn(&mut self, block: &[Stmt]) -> bool {
        let mut calls = vec![];
        let mut direct = false;
        walk_stmts(block, &mut |s| match &s.kind {
            StmtKind::Spawn { .. } => direct = true,
            StmtKind::Call { callee: Callee::Direct(g), .. } => calls.push(*g),
            StmtKind::Call { callee: Callee::Indirect(_), .. } => direct = true,
            _ => {}
        });
        if direct {
            return true;
        }
        calls.into_iter().any(|g| self.func_may_spawn(g, 0))
    }

    fn func_may_spawn(&mut self, f: FuncId, depth: usize) -> bool {
        if let Some(&r) = self.spawn_memo.get(&f) {
            return r;
        }
        if depth > MAX_INLINE_DEPTH {
            return true;
        }
        self.spawn_memo.insert(f, false);
        let Some(body) = &self.prog.func(f).body else { return false };
        let mut calls = vec![];
        let mut direct = false;
        walk_stmts(body, &mut |s| match &s.kind {
            StmtKind::Spawn { .. } | StmtKind::Call { callee: Callee::Indirect(_), .. } => direct = true,
            StmtKind::Call { callee: Callee::Direct(g), .. } => calls.push(*g),
            _ => {}
        });
        let r = direct || calls.into_iter().any(|g| self.func_may_spawn(g, depth + 1));
        self.spawn_memo.insert(f, r);
        r
    }

    /// Inlines a call of `f`; returns the frontier after it.
    fn call(&mut self, f: FuncId, preds: &[usize], depth: usize, pending: &mut Vec<Pending>) -> Result<Vec<usize>, Error> {
        let func = self.prog.func(f);
        let Some(body) = &func.body else { return Ok(preds.to_vec()) };
        if depth > MAX_INLINE_DEPTH || self.frames.iter().any(|fr| fr.func == f) {
            return Err(Error::unsupported(
                func.loc,
                format!("recursive call of `{}`: functions are analysed as if inlined, recursion is not supported", func.name),
            ));
        }
        self.frames.push(Frame { func: f, returns: vec![], gotos: HashMap::new() });
        let saved_loops = std::mem::take(&mut self.loops);
        let mut front = self.block(body, preds.to_vec(), depth, pending)?;
        self.loops = saved_loops;
        let fr = self.frames.pop().expect("pushed above");
        front.extend(fr.returns);
        Ok(front)
    }

    fn block(&mut self, block: &[Stmt], mut front: Vec<usize>, depth: usize, pending: &mut Vec<Pending>) -> Result<Vec<usize>, Error> {
        for s in block {
            front = self.stmt(s, front, depth, pending)?;
        }
        Ok(front)
    }

    fn access(&mut self, s: &Stmt, lv: &Expr, dir: Dir, def: Option<VarId>, data: Option<&Expr>, front: &[usize], pending: &mut Vec<Pending>) -> usize {
        self.access_hw(s, lv, dir, def, data, s.hw, front, pending)
    }

    /// [`ThreadWalk::access`] with the instruction's ordering given (`hw` of the statement's
    /// own access; its acquire half applies to a read, its release half to a write).
    #[allow(clippy::too_many_arguments)]
    fn access_hw(&mut self, s: &Stmt, lv: &Expr, dir: Dir, def: Option<VarId>, data: Option<&Expr>, hw: HwOrder, front: &[usize], pending: &mut Vec<Pending>) -> usize {
        let mut a = BTreeSet::new();
        addr_uses(self.prog, lv, &mut a);
        let mut d = BTreeSet::new();
        if let Some(e) = data {
            local_uses(self.prog, e, &mut d);
        }
        let hw = match dir {
            Dir::R => HwOrder { release: false, ..hw },
            Dir::W => HwOrder { acquire: Acquire::None, ..hw },
        };
        let n = self.cfg.add(NodeKind::Access { dir, addr_uses: a, data_uses: d, def, hw }, front);
        if dir == Dir::W {
            self.cfg.write_stmt.insert(n, s.id);
        }
        if hw.release {
            self.cfg.points.insert(n, s.id);
            self.points.push((s.id, PointKind::Release, s.loc));
        }
        if let Some(h) = joins::handle_form(lv).filter(|h| self.handles.contains(&h.0)) {
            match (dir, def) {
                (Dir::W, _) => {
                    self.cfg.sync.insert(n, SyncOp::Store(h.0));
                }
                (Dir::R, Some(temp)) => {
                    self.cfg.sync.insert(n, SyncOp::Load { handle: h, temp });
                }
                (Dir::R, None) => {}
            }
        }
        if !self.before_spawn {
            let objs = self.alias.access(self.prog, lv).objects;
            let func = self.frames.last().map(|f| f.func).unwrap_or(FuncId(0));
            let atomic = self.atomic_depth > 0 || matches!(s.kind, StmtKind::Rmw(_));
            pending.push((dir, n, SiteInfo { func, stmt: s.id, atomic, in_loop: self.loop_depth > 0, loc: s.loc }, objs));
        }
        n
    }

    /// Records an assignment to an `__unbuffered_` harness counter at node `n`.
    fn note_counter_write(&mut self, n: usize, lhs: &Expr, rhs: Option<&Expr>) {
        let Some(var) = counter_root(self.prog, lhs) else { return };
        let op = match (&lhs.kind, rhs) {
            (ExprKind::Var(_), Some(r)) if joins::is_increment(var, r) => SyncOp::Increment { var, in_loop: self.loop_depth > 0 },
            _ => SyncOp::OtherWrite(var),
        };
        self.cfg.sync.insert(n, op);
    }

    fn fence(&mut self, f: Fence, front: &[usize]) -> Vec<usize> {
        vec![self.cfg.add(NodeKind::Fence(f), front)]
    }

    fn stmt(&mut self, s: &Stmt, front: Vec<usize>, depth: usize, pending: &mut Vec<Pending>) -> Result<Vec<usize>, Error> {
        let prog = self.prog;
        Ok(match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                if lvalue_is_shared(prog, lhs) {
                    vec![self.access(s, lhs, Dir::W, None, Some(rhs), &front, pending)]
                } else {
                    let def = match lhs.kind {
                        ExprKind::Var(v) => Some(v),
                        _ => None,
                    };
                    if is_lvalue(rhs) && lvalue_is_shared(prog, rhs) {
                        vec![self.access(s, rhs, Dir::R, def, None, &front, pending)]
                    } else {
                        let mut uses = BTreeSet::new();
                        local_uses(prog, rhs, &mut uses);
                        // A partial write (array element, field) of a local keeps the rest.
                        let def = if matches!(lhs.kind, ExprKind::Var(_)) { def } else { None };
                        let n = self.cfg.add(NodeKind::Local { def, uses }, &front);
                        self.note_counter_write(n, lhs, Some(rhs));
                        vec![n]
                    }
                }
            }
            StmtKind::Call { dest, callee, args } => {
                let targets: Vec<FuncId> = match callee {
                    Callee::Direct(g) => vec![*g],
                    // A function pointer can only call functions of a matching arity.
                    Callee::Indirect(e) => self
                        .alias
                        .call_targets(prog, e)
                        .0
                        .into_iter()
                        .filter(|g| {
                            let f = prog.func(*g);
                            f.params.len() == args.len() || f.ty.variadic && f.params.len() <= args.len()
                        })
                        .collect(),
                };
                let mut out = vec![];
                for g in targets.iter().copied() {
                    let callee_f = prog.func(g);
                    // Parameters receive the arguments: local assignments for the dataflow.
                    let mut f2 = front.clone();
                    for (p, a) in callee_f.params.iter().zip(args) {
                        let mut uses = BTreeSet::new();
                        local_uses(prog, a, &mut uses);
                        f2 = vec![self.cfg.add(NodeKind::Local { def: Some(*p), uses }, &f2)];
                    }
                    out.extend(self.call(g, &f2, depth + 1, pending)?);
                }
                if targets.is_empty() {
                    out = front;
                }
                // The destination receives an unknown (untainted) value.
                if let Some(Expr { kind: ExprKind::Var(v), .. }) = dest {
                    out = vec![self.cfg.add(NodeKind::Local { def: Some(*v), uses: BTreeSet::new() }, &out)];
                }
                if let Some(d) = dest.as_ref().filter(|d| counter_root(prog, d).is_some()) {
                    let n = self.cfg.add(NodeKind::Nop, &out);
                    self.note_counter_write(n, d, None);
                    out = vec![n];
                }
                out
            }
            StmtKind::If { cond, then_, else_ } => {
                let mut uses = BTreeSet::new();
                // A pick (the translation of AArch64 `CAS`/`CSEL`) selects a value: what the
                // branches assign is tainted only where both are, and nothing later is
                // control-dependent on it.
                if !is_pick_cond(prog, cond) {
                    local_uses(prog, cond, &mut uses);
                }
                let b = self.cfg.add(NodeKind::Branch { uses }, &front);
                let mut out = self.block(then_, vec![b], depth, pending)?;
                out.extend(self.block(else_, vec![b], depth, pending)?);
                out
            }
            StmtKind::Loop { body, latch } => {
                if self.before_spawn && (self.may_spawn(body) || self.may_spawn(latch)) {
                    // Accesses early in the loop run again after the spawn of iteration 1.
                    self.before_spawn = false;
                }
                let head = self.cfg.add(NodeKind::Nop, &front);
                self.loops.push(LoopCtx { breaks: vec![], continues: vec![] });
                self.loop_depth += 1;
                let body_front = self.block(body, vec![head], depth, pending)?;
                let mut latch_preds = body_front;
                latch_preds.extend(std::mem::take(&mut self.loops.last_mut().expect("pushed").continues));
                let latch_head = self.cfg.add(NodeKind::Nop, &latch_preds);
                let latch_front = self.block(latch, vec![latch_head], depth, pending)?;
                for n in latch_front {
                    self.cfg.succ[n].push((head, true));
                }
                self.loop_depth -= 1;
                let ctx = self.loops.pop().expect("pushed");
                ctx.breaks
            }
            StmtKind::Break => {
                if let Some(l) = self.loops.last_mut() {
                    l.breaks.extend(front);
                }
                vec![]
            }
            StmtKind::Continue => {
                if let Some(l) = self.loops.last_mut() {
                    l.continues.extend(front);
                }
                vec![]
            }
            StmtKind::Return(_) => {
                self.frame().returns.extend(front);
                vec![]
            }
            StmtKind::Goto(l) => {
                self.frame().gotos.entry(*l).or_default().extend(front);
                vec![]
            }
            StmtKind::Label(l, _) => {
                let mut preds = front;
                preds.extend(self.frame().gotos.remove(l).unwrap_or_default());
                vec![self.cfg.add(NodeKind::Nop, &preds)]
            }
            // A verifier's assertion is no branch: nothing depends on it.
            StmtKind::Assert { ctrl: false, .. } => front,
            StmtKind::Assert { cond, .. } | StmtKind::Assume(cond) => {
                let mut uses = BTreeSet::new();
                local_uses(prog, cond, &mut uses);
                let n = self.cfg.add(NodeKind::Branch { uses }, &front);
                if let (StmtKind::Assume(_), Some((var, n_))) = (&s.kind, joins::count_test(cond)) {
                    if joins::is_counter(prog, var) {
                        self.cfg.sync.insert(n, SyncOp::AssumeCount { var, n: n_ });
                    }
                }
                vec![n]
            }
            StmtKind::Fence(f) => {
                let n = self.fence(*f, &front);
                self.cfg.sync.insert(n[0], SyncOp::Barrier);
                n
            }
            StmtKind::AtomicBegin => {
                self.atomic_depth += 1;
                self.fence(Fence::Full, &front)
            }
            StmtKind::AtomicEnd => {
                self.atomic_depth = self.atomic_depth.saturating_sub(1);
                self.fence(Fence::Full, &front)
            }
            // Thread creation, joins and mutexes synchronise: order everything around them.
            StmtKind::Spawn { func, tid, .. } => {
                let (targets, _) = self.alias.call_targets(prog, func);
                let in_loop = self.loop_depth > 0;
                let mut started = vec![];
                for g in targets {
                    if prog.func(g).body.is_some() {
                        self.spawns.push((g, s.loc, in_loop));
                        started.push(g);
                    }
                }
                self.before_spawn = false;
                let n = self.fence(Fence::Full, &front);
                let thread = match started[..] {
                    [g] => Some((g, s.loc)),
                    _ => None,
                };
                let handle = match tid.as_ref().map(|t| &joins::strip_casts(t).kind) {
                    Some(ExprKind::AddrOf(inner)) => joins::handle_form(inner).filter(|h| self.handles.contains(&h.0)),
                    _ => None,
                };
                self.cfg.sync.insert(n[0], SyncOp::Spawn { thread, handle });
                n
            }
            StmtKind::Join { tid, .. } => {
                let n = self.fence(Fence::Full, &front);
                let (handle, temp) = match joins::handle_form(tid) {
                    Some(h) if self.handles.contains(&h.0) => (Some(h), None),
                    Some((v, None)) if !var_is_shared(prog, v) => (None, Some(v)),
                    _ => (None, None),
                };
                self.cfg.sync.insert(n[0], SyncOp::Join { handle, temp });
                n
            }
            // What a lock operation orders is in the fences and instruction orderings
            // `crate::atomics` put around and on it; mutual exclusion is the verifier's.
            StmtKind::Lock(_) => vec![self.cfg.add(NodeKind::Nop, &front)],
            StmtKind::Unlock(_) => {
                let n = self.cfg.add(NodeKind::Nop, &front);
                self.cfg.points.insert(n, s.id);
                self.points.push((s.id, PointKind::Unlock, s.loc));
                vec![n]
            }
            // The order's barriers are statements of their own after `crate::atomics`.
            StmtKind::Rmw(r) => {
                let cell = Expr::new(ExprKind::Deref(Box::new(r.ptr.clone())), r.val.ty.clone());
                let mut f = front;
                let def = match &r.dest {
                    Some(Expr { kind: ExprKind::Var(v), .. }) => Some(*v),
                    _ => None,
                };
                if r.op != RmwOp::Store {
                    f = vec![self.access(s, &cell, Dir::R, def, None, &f, pending)];
                }
                if r.op != RmwOp::Load {
                    f = vec![self.access(s, &cell, Dir::W, None, Some(&r.val), &f, pending)];
                }
                if let (RmwOp::CompareExchange, Some(exp)) = (r.op, &r.expected) {
                    let exp_cell = Expr::new(ExprKind::Deref(Box::new(exp.clone())), r.val.ty.clone());
                    // the write-back of a failed compare-exchange is a plain store
                    f = vec![self.access_hw(s, &exp_cell, Dir::W, None, None, HwOrder::default(), &f, pending)];
                }
                if !matches!(r.op, RmwOp::Load | RmwOp::Store) {
                    self.cfg.points.insert(f[0], s.id);
                    self.points.push((s.id, PointKind::Rmw(BTreeSet::new()), s.loc));
                }
                f
            }
            StmtKind::Block(b) => self.block(b, front, depth, pending)?,
            StmtKind::Skip => front,
        })
    }
}

impl Builder {
    fn site(&mut self, info: &SiteInfo, dir: Dir) -> SiteId {
        if let Some(&s) = self.site_ids.get(&(info.stmt, dir)) {
            self.aeg.sites[s.0 as usize].atomic |= info.atomic;
            self.aeg.sites[s.0 as usize].in_loop |= info.in_loop;
            return s;
        }
        self.aeg.sites.push(Site { func: info.func, stmt: info.stmt, dir, atomic: info.atomic, in_loop: info.in_loop, loc: info.loc });
        let id = SiteId(self.aeg.sites.len() as u32 - 1);
        self.site_ids.insert((info.stmt, dir), id);
        id
    }

    fn place_events(&mut self, tid: ThreadId, dir: Dir, node: usize, info: SiteInfo, objs: Vec<ObjId>) {
        let site = self.site(&info, dir);
        let mut evs = vec![];
        for o in objs {
            let key = (tid, site, o);
            let id = match self.event_ids.get(&key) {
                Some(&e) => e,
                None => {
                    self.aeg.events.push(Event { thread: tid, dir, obj: o, site, loc: info.loc });
                    let e = EventId(self.aeg.events.len() as u32 - 1);
                    self.event_ids.insert(key, e);
                    e
                }
            };
            evs.push(id);
        }
        self.node_events.entry((tid, node)).or_default().extend(evs);
    }

    /// Communication edges between events of one object in different threads (or instances
    /// of one thread); objects local to their thread have none.
    fn compute_com(&mut self, thread_local: &BTreeSet<ObjId>) {
        let mut by_obj: BTreeMap<ObjId, Vec<EventId>> = BTreeMap::new();
        for (i, e) in self.aeg.events.iter().enumerate() {
            if !thread_local.contains(&e.obj) {
                by_obj.entry(e.obj).or_default().push(EventId(i as u32));
            }
        }
        for evs in by_obj.values() {
            for (i, &a) in evs.iter().enumerate() {
                for &b in &evs[i..] {
                    let (ea, eb) = (self.aeg.event(a), self.aeg.event(b));
                    if ea.dir == Dir::R && eb.dir == Dir::R {
                        continue;
                    }
                    let concurrent = ea.thread != eb.thread
                        || self.aeg.thread(ea.thread).instances != Instances::Count(1);
                    if concurrent {
                        self.aeg.com.push((a, b));
                    }
                }
            }
        }
    }
}

/// Dataflow facts on entry to a node, for paths from one source event. The sets are shared
/// (copied only where a path changes them): every node of every source's walk holds a copy.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Facts {
    fences: Arc<BTreeSet<Fence>>,
    /// Locals holding a value computed from the source read, on every path.
    tainted: Arc<BTreeSet<VarId>>,
    ctrl: bool,
    ctrl_isync: bool,
    /// Passed an access whose address depends on the source read, on every path.
    addr_po: bool,
    /// Locals holding a value computed from a read that depends on the source read by its
    /// address or by a branch and an `isync` (herd's `ii`), on every path; and a branch on
    /// such a value passed (then an `isync`).
    chained: Arc<BTreeSet<VarId>>,
    /// ... through address dependencies only.
    chained_addr: Arc<BTreeSet<VarId>>,
    chain_ctrl: bool,
    chain_ctrl_isync: bool,
    /// Reached by some path without a loop back-edge.
    direct: bool,
    /// Objects definitely written on every path so far.
    written: Arc<BTreeSet<ObjId>>,
    /// Over-ordered statements passed on *some* path (may-information: union).
    crossed: Arc<BTreeSet<u32>>,
    /// Fences passed on some path.
    may_fences: Arc<BTreeSet<Fence>>,
    /// Write sites passed on some path after a fence passed before them on that path.
    fenced_writes: Arc<BTreeSet<(Fence, SiteId)>>,
}

/// Adds `x` to a shared set, copying the set only when `x` is new.
fn add<T: Ord + Clone>(s: &mut Arc<BTreeSet<T>>, x: T) {
    if !s.contains(&x) {
        Arc::make_mut(s).insert(x);
    }
}

/// Removes `x` from a shared set, copying the set only when `x` is in it.
fn remove<T: Ord + Clone>(s: &mut Arc<BTreeSet<T>>, x: &T) {
    if s.contains(x) {
        Arc::make_mut(s).remove(x);
    }
}

/// `s ∩= o`; true when `s` changed.
fn narrow<T: Ord + Clone>(s: &mut Arc<BTreeSet<T>>, o: &Arc<BTreeSet<T>>) -> bool {
    if Arc::ptr_eq(s, o) || s.is_subset(o) {
        return false;
    }
    *s = Arc::new(s.intersection(o).cloned().collect());
    true
}

/// `s ∪= o`; true when `s` changed.
fn widen<T: Ord + Clone>(s: &mut Arc<BTreeSet<T>>, o: &Arc<BTreeSet<T>>) -> bool {
    if Arc::ptr_eq(s, o) || o.is_subset(s) {
        return false;
    }
    Arc::make_mut(s).extend(o.iter().cloned());
    true
}

impl super::dataflow::Meet for Facts {
    fn meet(&mut self, o: &Facts) -> bool {
        let mut changed = narrow(&mut self.fences, &o.fences);
        changed |= narrow(&mut self.tainted, &o.tainted);
        changed |= narrow(&mut self.chained, &o.chained);
        changed |= narrow(&mut self.chained_addr, &o.chained_addr);
        changed |= narrow(&mut self.written, &o.written);
        changed |= widen(&mut self.crossed, &o.crossed);
        changed |= widen(&mut self.may_fences, &o.may_fences);
        changed |= widen(&mut self.fenced_writes, &o.fenced_writes);
        let flags = (self.ctrl, self.ctrl_isync, self.addr_po, self.direct, self.chain_ctrl, self.chain_ctrl_isync);
        self.ctrl &= o.ctrl;
        self.ctrl_isync &= o.ctrl_isync;
        self.addr_po &= o.addr_po;
        self.direct |= o.direct;
        self.chain_ctrl &= o.chain_ctrl;
        self.chain_ctrl_isync &= o.chain_ctrl_isync;
        changed || flags != (self.ctrl, self.ctrl_isync, self.addr_po, self.direct, self.chain_ctrl, self.chain_ctrl_isync)
    }
}

fn meet_info(a: &mut PairInfo, b: &PairInfo) {
    a.fences = a.fences.intersection(&b.fences).copied().collect();
    a.deps.addr &= b.deps.addr;
    a.deps.data &= b.deps.data;
    a.deps.ctrl &= b.deps.ctrl;
    a.deps.ctrl_isync &= b.deps.ctrl_isync;
    a.deps.addr_po &= b.deps.addr_po;
    a.deps.chained.meet(&b.deps.chained);
    a.deps.chained_addr.meet(&b.deps.chained_addr);
    a.via_back_edge &= b.via_back_edge;
    narrow(&mut a.writes_between, &b.writes_between);
    a.hw.acquire &= b.hw.acquire;
    a.hw.release &= b.hw.release;
    a.hw.release_acquire &= b.hw.release_acquire;
    widen(&mut a.crosses, &b.crosses);
    widen(&mut a.fenced_writes, &b.fenced_writes);
}

impl Builder {
    /// `po+` pairs between communicating events of one thread, with must-information.
    fn pairs_for_thread(&mut self, tid: ThreadId, cfg: &Cfg, has_com: &HashSet<EventId>) {
        let relevant = |evs: &Vec<EventId>| evs.iter().any(|e| has_com.contains(e));
        let sources: Vec<usize> = (0..cfg.nodes.len())
            .filter(|n| self.node_events.get(&(tid, *n)).is_some_and(relevant))
            .collect();
        // The object a node writes, when it writes exactly one.
        let must_write: Vec<Option<ObjId>> = (0..cfg.nodes.len())
            .map(|n| match (&cfg.nodes[n], self.node_events.get(&(tid, n))) {
                (NodeKind::Access { dir: Dir::W, .. }, Some(evs)) if evs.len() == 1 => Some(self.aeg.event(evs[0]).obj),
                _ => None,
            })
            .collect();
        for src in sources {
            let src_events: Vec<EventId> = self.node_events[&(tid, src)]
                .iter()
                .copied()
                .filter(|e| has_com.contains(e))
                .collect();
            let (src_dir, src_def, src_hw) = match &cfg.nodes[src] {
                NodeKind::Access { dir, def, hw, .. } => (*dir, *def, *hw),
                _ => continue,
            };
            let mut start = Facts {
                fences: Arc::default(),
                tainted: Arc::default(),
                ctrl: false,
                ctrl_isync: false,
                addr_po: false,
                chained: Arc::default(),
                chained_addr: Arc::default(),
                chain_ctrl: false,
                chain_ctrl_isync: false,
                direct: true,
                written: Arc::default(),
                crossed: Arc::default(),
                may_fences: Arc::default(),
                fenced_writes: Arc::default(),
            };
            if let (Dir::R, Some(d)) = (src_dir, src_def) {
                add(&mut start.tainted, d);
            }
            let first: Vec<(usize, Facts)> =
                cfg.succ[src].iter().map(|&(n, back)| (n, Facts { direct: !back, ..start.clone() })).collect();
            let site_ids = &self.site_ids;
            let state = super::dataflow::fixpoint(cfg.nodes.len(), first, |n, entry, work| {
                let mut out = transfer(&cfg.nodes[n], entry);
                if let Some(o) = must_write[n] {
                    add(&mut out.written, o);
                }
                if let Some(&id) = cfg.points.get(&n) {
                    add(&mut out.crossed, id);
                }
                if let Some(&w) = cfg.write_stmt.get(&n).and_then(|id| site_ids.get(&(*id, Dir::W))) {
                    for &f in out.may_fences.clone().iter() {
                        add(&mut out.fenced_writes, (f, w));
                    }
                }
                if let NodeKind::Fence(f) = &cfg.nodes[n] {
                    add(&mut out.may_fences, *f);
                }
                for &(m, back) in &cfg.succ[n] {
                    let mut o = out.clone();
                    if back {
                        o.direct = false;
                    }
                    work.push((m, o));
                }
            });
            for (n, facts) in state.iter().enumerate() {
                let Some(facts) = facts else { continue };
                let Some(dst_events) = self.node_events.get(&(tid, n)) else { continue };
                let uses = |set: &BTreeSet<VarId>| match &cfg.nodes[n] {
                    NodeKind::Access { dir, addr_uses, data_uses, .. } => (!addr_uses.is_disjoint(set), *dir == Dir::W && !data_uses.is_disjoint(set)),
                    _ => (false, false),
                };
                let (addr, data) = uses(&facts.tainted);
                let dst_hw = match &cfg.nodes[n] {
                    NodeKind::Access { hw, .. } => *hw,
                    _ => HwOrder::default(),
                };
                let (chained_addr, chained_data) = uses(&facts.chained);
                let (addr_chained_addr, addr_chained_data) = uses(&facts.chained_addr);
                let from_read = src_dir == Dir::R;
                let hw = HwPair {
                    acquire: matches!(src_hw.acquire, Acquire::Pc | Acquire::Sc),
                    release: dst_hw.release,
                    release_acquire: src_hw.release && dst_hw.acquire == Acquire::Sc,
                };
                let info = PairInfo {
                    fences: (*facts.fences).clone(),
                    deps: Deps {
                        addr: from_read && addr,
                        data: from_read && data,
                        ctrl: from_read && facts.ctrl,
                        ctrl_isync: from_read && (facts.ctrl_isync || src_hw.acquire == Acquire::CtrlIsync),
                        addr_po: from_read && facts.addr_po,
                        chained: Links {
                            addr: from_read && chained_addr,
                            data: from_read && chained_data,
                            ctrl: from_read && facts.chain_ctrl,
                            ctrl_isync: from_read && facts.chain_ctrl_isync,
                        },
                        chained_addr: Links { addr: from_read && addr_chained_addr, data: from_read && addr_chained_data, ..Links::default() },
                    },
                    via_back_edge: !facts.direct,
                    writes_between: facts.written.clone(),
                    hw,
                    crosses: facts.crossed.clone(),
                    fenced_writes: facts.fenced_writes.clone(),
                };
                for &a in &src_events {
                    for &b in dst_events.iter().filter(|e| has_com.contains(e)) {
                        match self.aeg.pairs.get_mut(&(a, b)) {
                            Some(old) => meet_info(old, &info),
                            None => {
                                self.aeg.pairs.insert((a, b), info.clone());
                            }
                        }
                    }
                }
            }
        }
    }

    /// Immediate program-order successors between events (for drawing the graph).
    fn immediate_po(&mut self, tid: ThreadId, cfg: &Cfg) {
        let mut edges = BTreeSet::new();
        for n in 0..cfg.nodes.len() {
            let Some(src) = self.node_events.get(&(tid, n)) else { continue };
            let mut seen = HashSet::new();
            let mut stack: Vec<usize> = cfg.succ[n].iter().map(|&(m, _)| m).collect();
            while let Some(m) = stack.pop() {
                if !seen.insert(m) {
                    continue;
                }
                match self.node_events.get(&(tid, m)) {
                    Some(dst) if !dst.is_empty() => {
                        for &a in src {
                            for &b in dst {
                                edges.insert((a, b));
                            }
                        }
                    }
                    _ => stack.extend(cfg.succ[m].iter().map(|&(k, _)| k)),
                }
            }
        }
        self.aeg.po.extend(edges);
    }
}

fn transfer(node: &NodeKind, mut f: Facts) -> Facts {
    match node {
        NodeKind::Fence(fence) => {
            add(&mut f.fences, *fence);
            if matches!(fence, Fence::Isync | Fence::Isb) {
                f.ctrl_isync |= f.ctrl;
                f.chain_ctrl_isync |= f.chain_ctrl;
            }
        }
        NodeKind::Branch { uses } => {
            f.ctrl |= !uses.is_disjoint(&f.tainted);
            f.chain_ctrl |= !uses.is_disjoint(&f.chained);
        }
        NodeKind::Local { def: Some(d), uses } => {
            if uses.is_disjoint(&f.tainted) {
                remove(&mut f.tainted, d);
            } else {
                add(&mut f.tainted, *d);
            }
            for set in [&mut f.chained, &mut f.chained_addr] {
                if uses.is_disjoint(set) {
                    remove(set, d);
                } else {
                    add(set, *d);
                }
            }
        }
        NodeKind::Access { dir, def, addr_uses, .. } => {
            let addr = !addr_uses.is_disjoint(&f.tainted);
            f.addr_po |= addr;
            // A value loaded from memory is not a dependency on the source (dd = addr | data),
            // but the load is ordered after it when its address or its place after a branch
            // and an isync depends on the source (or on such a load): herd's `ii`, which
            // composes (`ii; ii ⊆ ii`, `ii; ic ⊆ ic`; AArch64's `ob` is transitive).
            if let Some(d) = def {
                remove(&mut f.tainted, d);
                let read = *dir == Dir::R;
                let by_addr = read && (addr || !addr_uses.is_disjoint(&f.chained_addr));
                let ordered = read && (addr || f.ctrl_isync || !addr_uses.is_disjoint(&f.chained) || f.chain_ctrl_isync);
                for (set, on) in [(&mut f.chained, ordered), (&mut f.chained_addr, by_addr)] {
                    if on {
                        add(set, *d);
                    } else {
                        remove(set, d);
                    }
                }
            }
        }
        _ => {}
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(xs: &[u32]) -> Arc<BTreeSet<u32>> {
        Arc::new(xs.iter().copied().collect())
    }

    /// The shared-set operations of the pair facts: the result of the plain set operation,
    /// "changed" exactly when it differs, and no copy when nothing changes.
    #[test]
    fn shared_sets_change_only_when_their_contents_do() {
        for (a, b) in [(&[1, 2, 3][..], &[2, 3, 4][..]), (&[1, 2], &[1, 2, 3]), (&[], &[5]), (&[7], &[])] {
            let (sa, sb): (BTreeSet<u32>, BTreeSet<u32>) = (a.iter().copied().collect(), b.iter().copied().collect());
            let mut n = set(a);
            let before = Arc::clone(&n);
            let changed = narrow(&mut n, &set(b));
            assert_eq!(*n, &sa & &sb, "{a:?} ∩ {b:?}");
            assert_eq!(changed, *n != sa, "{a:?} ∩ {b:?}");
            assert_eq!(Arc::ptr_eq(&n, &before), !changed, "{a:?} ∩ {b:?}: copied without a change");
            let mut w = set(a);
            let before = Arc::clone(&w);
            let changed = widen(&mut w, &set(b));
            assert_eq!(*w, &sa | &sb, "{a:?} ∪ {b:?}");
            assert_eq!(changed, *w != sa, "{a:?} ∪ {b:?}");
            assert_eq!(Arc::ptr_eq(&w, &before), !changed, "{a:?} ∪ {b:?}: copied without a change");
        }
        let shared = set(&[1]);
        let mut s = Arc::clone(&shared);
        add(&mut s, 1);
        remove(&mut s, &2);
        assert!(Arc::ptr_eq(&s, &shared), "no change, no copy");
        add(&mut s, 2);
        remove(&mut s, &1);
        assert_eq!(*s, BTreeSet::from([2]));
        assert_eq!(*shared, BTreeSet::from([1]), "the other holder keeps its set");
    }
}
