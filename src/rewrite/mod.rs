//! The rewriter (ESOP 2013 §3.1, §4.4): turns the normalised program into one whose SC
//! executions include the weak executions the selected delay pairs stand for.
//!
//! The abstract machine of Fig. 3 is the specification. Per *buffer group* (abstract objects
//! that some instrumented access may touch, merged so every access hits one group) the
//! emitted program keeps a write buffer: entries `(address, value, thread, lw-mark, live)` in
//! FIFO order, one total order per address as in the paper's per-address buffers `b`. Delayed
//! reads keep the address they will read from in a per-destination pointer, the read set
//! `rs`. Each rule is one generated helper function, named after the rule it implements.
//! Flushes happen (i) non-deterministically before each read of the group (lazily, where
//! they can be observed, §4.4), (ii) when the architecture orders the flushed write before
//! the current event (fences, `W→W` on TSO, coherence), and (iii) at thread end. A full
//! buffer blocks further delays (`assume`), so overflow never raises a false alarm.

mod build;
mod complete;

use crate::aeg::{Aeg, Dir, ObjId, SiteId};
use crate::ir::*;
use crate::normalize::{is_lvalue, is_pick_cond, lvalue_is_shared, UNBUFFERED_PREFIX};
use crate::source::Loc;
use build::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What the selected delay pairs ask the rewriter to do.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Writes that may enter the buffer (first event of a `poW*` pair, write of an `rfe`).
    pub delayed_writes: BTreeSet<SiteId>,
    /// Reads that may enter the read set (first event of a `poR*` pair).
    pub delayed_reads: BTreeSet<SiteId>,
    /// Reads of delay pairs across a lightweight fence that a cycle relaxes (herd's Power:
    /// `IRIW+lwsyncs`): the fence does not complete them.
    pub lw_free: BTreeSet<SiteId>,
    /// Write pairs `(W1, W2)` across a lightweight fence that a cycle or a detour relaxes
    /// (herd's Power: `R+lwsync+sync`): W2 need not wait for W1's entries the fence marked.
    /// The fence still holds W2 behind the thread's other marked writes.
    pub lw_pass: BTreeSet<(SiteId, SiteId)>,
    /// Reads that never take another thread's buffered write: every later access of their
    /// thread lies behind a strong cumulative fence (`rfe; sync` is safe, ESOP §2). The write
    /// such a read could see early must reach every thread before the fence completes; the
    /// read, which nothing else observes until then, may as well happen at that point and read
    /// it from memory.
    pub global_reads: BTreeSet<SiteId>,
    /// Why the instrumented program may lack behaviours of the architecture: selected delays
    /// it cannot simulate (an atomic access, a delay across a statement it over-orders). A
    /// verdict of safety is then no proof ([`Summary::approximations`]).
    pub approximations: Vec<(Loc, String)>,
}

/// What a fence does to the machine state, per architecture.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FenceEffect {
    /// Orders earlier writes before later reads (and everything): flush the thread's writes.
    pub flush_writes: bool,
    /// Orders earlier writes before later writes only (`lwsync`, `eieio`): mark them.
    pub mark_writes: bool,
    /// Orders earlier reads before later accesses: complete the thread's delayed reads.
    pub flush_reads: bool,
}

/// The architecture facts the rewriter needs (derived from [`crate::arch`]).
#[derive(Clone, Debug)]
pub struct Model {
    /// `W→W` to different addresses is preserved (TSO): flush before every write.
    pub ww_preserved: bool,
    /// External read-from is relaxed (Power, ARM): reads may see other threads' buffers.
    pub rfe_relaxed: bool,
    /// lwsync-like fences (`mark_writes`) are B-cumulative: their writes reach memory before
    /// any later write of the thread is even buffered, so no other thread can read the later
    /// one first (herd's Power). Otherwise they only must reach memory first (ESOP's Power).
    pub lw_b_cumulative: bool,
    /// A control dependency orders a read before later writes (Power, ARM), and with an
    /// `isync`/`isb` before later reads too.
    pub ctrl_orders_writes: bool,
    pub ctrl_isync_orders_reads: bool,
    /// Store forwarding (`rfi`) is not in global happens-before: a read may take the value of
    /// its thread's earlier store while that store still waits for a delayed read (RMO).
    pub rfi_relaxed: bool,
    pub fences: HashMap<Fence, FenceEffect>,
}

#[derive(Clone, Debug)]
pub struct Options {
    /// Depth of each write buffer when it cannot be computed exactly (loops, many instances).
    pub buffer_size: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { buffer_size: DEFAULT_BUFFER_SIZE }
    }
}

pub const DEFAULT_BUFFER_SIZE: u32 = 4;

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Summary {
    /// Buffered groups: printable object names and buffer depth.
    pub buffers: Vec<(String, u32)>,
    pub delayed_writes: usize,
    pub delayed_reads: usize,
    /// Things the user should know (buffer depth guesses, imprecision, skipped sites).
    pub notes: Vec<(Loc, String)>,
    /// Behaviours of the architecture the instrumented program may lack, and why: when
    /// non-empty, the assertions holding proves nothing.
    pub approximations: Vec<(Loc, String)>,
}

pub struct Rewritten {
    pub program: Program,
    pub summary: Summary,
}

struct Group {
    objects: BTreeSet<ObjId>,
    elem: Type,
    depth: u32,
    /// Generated helper functions.
    fns: GroupFns,
    /// Its buffer arrays, once made (`__weakc_lw_blocked` scans every group).
    vars: Option<GroupVars>,
}

#[derive(Default, Clone, Copy)]
struct GroupFns {
    flush_own: Option<FuncId>,
    flush_lw: Option<FuncId>,
    mark_lw: Option<FuncId>,
    flush_some: Option<FuncId>,
    read: Option<FuncId>,
    /// `read` without other threads' entries (memory or the thread's own newest entry), for
    /// [`Plan::global_reads`].
    read_own: Option<FuncId>,
    write: Option<FuncId>,
    /// The coherence part of `write` alone: own entries to the address (and what is ahead
    /// of them) leave first. For read-modify-writes, which then update memory themselves.
    flush_addr: Option<FuncId>,
    delay: Option<FuncId>,
    /// `delay` for a write that a pending read of its thread is held past (see [`Hold`]).
    hold: Option<FuncId>,
    read_held: Option<FuncId>,
}

/// A pending delayed read: the destination variable and its read-set pointer.
#[derive(Clone)]
struct PendingRead {
    dest: VarId,
    ptr: VarId,
    /// Objects whose accesses by the same thread must wait for the read (the read's own, and
    /// those its deferred statements access).
    objects: BTreeSet<ObjId>,
    /// The objects its read sites access (without those of the deferred statements).
    read_objects: BTreeSet<ObjId>,
    /// Objects the deferred statements write: a later read of one must see that write.
    /// (Objects they only read do not hold a later read back: po-loc read-read pairs are
    /// satisfied out of order by every relaxed model that delays reads.)
    deferred_writes: BTreeSet<ObjId>,
    group: Option<usize>,
    /// Statements depending on the read's value, performed when it completes.
    deferred: Vec<Deferred>,
    /// Variables holding the pending value or values computed from it.
    derived: BTreeSet<VarId>,
    /// Derived variables defined only by deferred statements past a jump: derived while one
    /// of these flags is set (see `make_deferred_stores`).
    cond_derived: BTreeMap<VarId, Vec<VarId>>,
    /// Other variables the deferred statements read: redefining one completes the read first.
    inputs: BTreeSet<VarId>,
    /// Statements between the read and the deferred statements that define an input before
    /// any deferred statement uses it (`r4 = 1` before `*(&x + r3) = r4`): the replay wants
    /// that value, so they need not wait.
    early_defs: BTreeSet<u32>,
    /// Branches on the pending value speculate it (see [`Speculation`]).
    spec: Vec<Speculation>,
    /// Later reads that may take a deferred store's value early (see [`Forward`]).
    fwd: Vec<Forward>,
    /// A lightweight fence does not complete it ([`Plan::lw_free`]).
    lw_free: bool,
    /// The read may stay pending past a later write of its thread to its location.
    hold: Option<Hold>,
}

/// A pending read held past a later write of its thread to the same location (`r0 = y;
/// y = 2; r2 = y` with `r0` satisfied last). Coherence (CoRW) only requires the read to take
/// a value coherence-before the write, not to be satisfied first: the write enters the
/// buffer with a pointer to `snap`, and the read, when it completes, takes memory (and
/// buffers, without its thread's entries from that write on) while the write is still
/// buffered, else `snap`, the value memory held just before the write reached it.
#[derive(Clone, Copy)]
struct Hold {
    /// Set while a buffered write of the thread holds the read (the read's address).
    held: VarId,
    snap: VarId,
}

/// A read of a location that one of the pending read's deferred stores may write (`r6 = x`
/// after `*(&x + dep(r1)) = 1`): with store forwarding outside happens-before, the read
/// need not wait for the pending read. It takes a guessed value at once; when the pending
/// read completes and the store is performed, the guess must be the store's value if the
/// store wrote the read's address, else the value the read found in memory.
#[derive(Clone)]
struct Forward {
    /// The reading statement.
    site: u32,
    /// The deferred store (evaluated again after the completion for its address and value).
    store: Stmt,
    flag: VarId,
    guess: VarId,
    mem: VarId,
    addr: VarId,
}

/// A branch whose condition uses a pending read's value does not wait for the read: the
/// value (or one computed from it) is guessed, the branch is taken on the guess, and when
/// the read completes the real value must equal the guess (`assume`). Later reads may thus
/// be satisfied before the read, as control dependencies allow; later writes (and, after an
/// `isync`, reads) still wait where the architecture orders them after a control dependency.
/// A *pick* ([`crate::normalize::is_pick_cond`], the translation of AArch64 `CAS`/`CSEL`) is
/// speculated the same way but is no control dependency: later writes do not wait for it.
#[derive(Clone)]
struct Speculation {
    var: VarId,
    guess: VarId,
    /// Set while the guess is in force.
    flag: VarId,
    /// Some branch that is a control dependency uses the variable (not only picks).
    ctrl: bool,
}

/// A statement that depends on a delayed read's value (`r3 = r1 ^ r1`, the address-dependent
/// read `r4 = *(&y + r3)`, the store `r0 = tmp`). In the abstract machine the events that
/// depend on a read stay pending with it while independent later events go ahead (R→R and
/// R→W are relaxed wherever reads are delayed), so while the read is pending the statement
/// is only flagged, and it is performed, in program order, when the read completes.
#[derive(Clone)]
struct Deferred {
    stmt: Stmt,
    flag: VarId,
    /// For a store to a variable the thread writes again later: set when that later write
    /// goes ahead while this store still waits (see [`Deferred::sup`] in `make_supersedes`).
    sup: Option<VarId>,
}

pub fn rewrite(prog: &Program, aeg: &Aeg, plan: &Plan, model: &Model, opts: &Options) -> Rewritten {
    let mut rw = Rewriter::new(prog, aeg, plan, model, opts);
    rw.run();
    let Rewriter { out, mut summary, early_completions, .. } = rw;
    summary.approximations.extend(early_completions.into_inner().into_values());
    Rewritten { program: out, summary }
}

struct Rewriter<'a> {
    src: &'a Program,
    aeg: &'a Aeg,
    plan: &'a Plan,
    model: &'a Model,
    opts: &'a Options,
    out: Program,
    summary: Summary,
    /// Sites of each statement id.
    sites_of: HashMap<u32, Vec<SiteId>>,
    /// Objects each site touches (over all threads).
    site_objs: HashMap<SiteId, BTreeSet<ObjId>>,
    groups: Vec<Group>,
    group_of: HashMap<ObjId, usize>,
    next_tid: Option<VarId>,
    /// Functions that receive the current thread id as an extra last parameter.
    takes_me: BTreeSet<FuncId>,
    /// Thread entry functions (spawned) and main: they own a thread id.
    entries: BTreeSet<FuncId>,
    /// Delayed reads per function.
    pending: HashMap<FuncId, Vec<PendingRead>>,
    pending_of_site: HashMap<u32, usize>,
    /// Fences a function executes on every path (for read-set flushes at call sites).
    must_fences: HashMap<FuncId, BTreeSet<Fence>>,
    flush_all_own: Option<FuncId>,
    flush_all_lw: Option<FuncId>,
    mark_all_lw: Option<FuncId>,
    /// `__weakc_lw_blocked(t, c)`: thread `t` has a buffered write behind more lwsyncs than
    /// `c`, which must reach memory first (body made once every group exists).
    lw_blocked: Option<FuncId>,
    /// The local holding the thread id in thread entry functions.
    entry_me: HashMap<FuncId, VarId>,
    /// TSO with one FIFO buffer for every written object: writes queue behind the thread's
    /// pending writes, flushes follow each thread's program order.
    tso_fifo: bool,
    /// How each function's pending reads are completed (see `complete`).
    cascades: HashMap<FuncId, complete::Cascades>,
    /// While the code of a deferred statement is made: the completions it asks for, recorded
    /// instead of emitted (the cascade that performs the statement makes them).
    sink: std::cell::RefCell<Option<Vec<complete::Trigger>>>,
    /// Statements that complete a pending read only because they redefine its value (see
    /// `stmt_inner`), by statement: approximations of the instrumented program.
    early_completions: std::cell::RefCell<BTreeMap<u32, (Loc, String)>>,
    /// Groups whose writes may hold a pending read (see [`Hold`]).
    hold_groups: BTreeSet<usize>,
    /// Groups a read-modify-write updates (they get a `flush_addr` helper).
    rmw_groups: BTreeSet<usize>,
    /// Per write site W1 of [`Plan::lw_pass`], its bit in the buffer entries' `tag`: a write
    /// W2 passes the marked entries whose tag is in its mask (empty: no tags at all).
    lw_bits: HashMap<SiteId, u32>,
}

impl<'a> Rewriter<'a> {
    fn new(prog: &'a Program, aeg: &'a Aeg, plan: &'a Plan, model: &'a Model, opts: &'a Options) -> Self {
        let mut sites_of: HashMap<u32, Vec<SiteId>> = HashMap::new();
        for (i, s) in aeg.sites.iter().enumerate() {
            sites_of.entry(s.stmt).or_default().push(SiteId(i as u32));
        }
        let mut site_objs: HashMap<SiteId, BTreeSet<ObjId>> = HashMap::new();
        for e in &aeg.events {
            site_objs.entry(e.site).or_default().insert(e.obj);
        }
        Rewriter {
            src: prog,
            aeg,
            plan,
            model,
            opts,
            out: prog.clone(),
            summary: Summary { approximations: plan.approximations.clone(), ..Summary::default() },
            sites_of,
            site_objs,
            groups: vec![],
            group_of: HashMap::new(),
            next_tid: None,
            takes_me: BTreeSet::new(),
            entries: BTreeSet::new(),
            pending: HashMap::new(),
            pending_of_site: HashMap::new(),
            must_fences: HashMap::new(),
            flush_all_own: None,
            flush_all_lw: None,
            mark_all_lw: None,
            lw_blocked: None,
            entry_me: HashMap::new(),
            tso_fifo: false,
            cascades: HashMap::new(),
            sink: Default::default(),
            early_completions: Default::default(),
            hold_groups: BTreeSet::new(),
            rmw_groups: BTreeSet::new(),
            lw_bits: lw_bits(plan),
        }
    }

    fn stmt_by_id(&self) -> HashMap<u32, &'a Stmt> {
        let mut m = HashMap::new();
        for f in &self.src.funcs {
            if let Some(b) = &f.body {
                walk_stmts(b, &mut |s| {
                    m.insert(s.id, s);
                });
            }
        }
        m
    }

    /// The lvalue a site accesses.
    fn site_lvalue(s: &Stmt, dir: Dir) -> Option<Expr> {
        match (&s.kind, dir) {
            (StmtKind::Assign { lhs, .. }, Dir::W) => Some(lhs.clone()),
            (StmtKind::Assign { rhs, .. }, Dir::R) => Some(rhs.clone()),
            (StmtKind::Rmw(r), _) => Some(deref(r.ptr.clone())),
            _ => None,
        }
    }

    fn run(&mut self) {
        let stmts = self.stmt_by_id();
        self.form_groups(&stmts);
        let needs_work = !self.groups.is_empty() || !self.plan.delayed_reads.is_empty();
        if !needs_work {
            return;
        }
        self.find_threads();
        self.compute_must_fences();
        self.note_rmws();
        self.make_pending_reads(&stmts);
        if self.program_marks_writes() {
            let params: &[(&str, Type)] = if self.tagged() { &[("t", Type::INT), ("c", Type::INT), ("mask", Type::UINT)] } else { &[("t", Type::INT), ("c", Type::INT)] };
            self.lw_blocked = Some(self.new_func("__weakc_lw_blocked".into(), params, Type::Bool, |_, _| vec![]));
        }
        for g in 0..self.groups.len() {
            self.make_group_fns(g);
        }
        self.make_global_fns();
        self.add_me_params();
        let funcs: Vec<FuncId> = (0..self.src.funcs.len() as u32).map(FuncId).collect();
        for f in funcs {
            if self.src.func(f).body.is_some() && self.is_instrumented_func(f) {
                self.rewrite_func(f);
            }
        }
    }

    /// Groups updated by read-modify-writes; and where a write of another statement may be
    /// buffered when one reads it on a model with non-atomic stores, an approximation: the
    /// read-modify-write reads memory after letting buffered writes leave, so it never takes
    /// a write that has reached only some threads.
    fn note_rmws(&mut self) {
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

    fn is_instrumented_func(&self, f: FuncId) -> bool {
        self.takes_me.contains(&f) || self.entries.contains(&f)
    }

    // ---- buffer groups -------------------------------------------------------------

    fn form_groups(&mut self, stmts: &HashMap<u32, &Stmt>) {
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
            let mut delayed_here = 0u32;
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
                        delayed_here += 1;
                        let th = self.aeg.thread(e.thread);
                        if th.instances != crate::aeg::Instances::Count(1) || self.aeg.site(*sid).in_loop {
                            bounded = false;
                        }
                    }
                }
            }
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
    fn stmt_objects(&self, id: u32, dir: Option<Dir>) -> BTreeSet<ObjId> {
        self.sites_of
            .get(&id)
            .into_iter()
            .flatten()
            .filter(|x| dir.is_none_or(|d| self.aeg.site(**x).dir == d))
            .flat_map(|x| self.site_objs.get(x).into_iter().flatten().copied())
            .collect()
    }

    fn group_of_site(&self, s: SiteId) -> Option<usize> {
        self.site_objs.get(&s)?.iter().find_map(|o| self.group_of.get(o).copied())
    }

    fn group_of_stmt(&self, id: u32, dir: Dir) -> Option<usize> {
        self.sites_of.get(&id)?.iter().filter(|s| self.aeg.site(**s).dir == dir).find_map(|s| self.group_of_site(*s))
    }

    // ---- threads and the `me` parameter ---------------------------------------------

    fn find_threads(&mut self) {
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

    fn compute_must_fences(&mut self) {
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

    fn make_pending_reads(&mut self, stmts: &HashMap<u32, &Stmt>) {
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

    /// The buffer group of a write statement that may enter the buffer.
    fn delayed_write_group(&self, id: u32) -> Option<usize> {
        let group = self.group_of_stmt(id, Dir::W)?;
        let delayed = self.sites_of.get(&id).into_iter().flatten().any(|x| self.plan.delayed_writes.contains(x) && !self.aeg.site(*x).atomic);
        delayed.then_some(group)
    }

    /// Whether pending read `p` may be held past the write `s` (see [`Hold`]): `s` may be
    /// buffered in the read's group, and none of the read's deferred statements touches
    /// what `s` writes (they would have to be performed before it).
    fn holdable(&self, p: &PendingRead, s: &Stmt) -> bool {
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
                    let mut derived: BTreeSet<VarId> = [dest].into();
                    let mut inputs = BTreeSet::new();
                    let mut chain = vec![];
                    let mut early = BTreeSet::new();
                    // Past a jump, chain statements may not run: what they define is derived
                    // only where they ran (their flags say so at run time), and the scan
                    // stops at a use of it past the label where the paths join.
                    let mut jumped = false;
                    let mut ctrl = false;
                    let mut cond_vars = BTreeSet::new();
                    // Those of them past a label, where paths that skipped them join.
                    let mut merged = BTreeSet::new();
                    for (j, t) in block.iter().enumerate().skip(i + 1) {
                        if self.pending_of_site.contains_key(&t.id) {
                            break;
                        }
                        if uses_any(t, &merged) {
                            break;
                        }
                        if matches!(t.kind, StmtKind::Label(..)) {
                            // Paths join: what the chain defined since the jump may be stale.
                            merged.extend(cond_vars.iter().copied());
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
                                uses_any(c, &derived) || derived.contains(l) || inputs.contains(l)
                            });
                            if clash {
                                break;
                            }
                            early.extend(copies.iter().map(|c| c.id));
                            // A branch on the value (taken on a guess, see `Speculation`):
                            // later stores wait with the read where control dependencies
                            // order them, and a later read of theirs may forward them.
                            let pick = matches!(&t.kind, StmtKind::If { cond, .. } if is_pick_cond(self.src, cond));
                            ctrl |= uses_any(t, &derived) && self.model.ctrl_orders_writes && !pick;
                            jumped = true;
                            continue;
                        }
                        if let StmtKind::Assert { ctrl: false, .. } = &t.kind {
                            // A verifier's assertion is checked when the values it reads are
                            // there; it is no branch, so nothing after it waits.
                            if uses_any(t, &derived) {
                                inputs.extend(vars_used(t).difference(&derived).copied());
                                chain.push(t.clone());
                            }
                            continue;
                        }
                        let StmtKind::Assign { lhs, rhs } = &t.kind else { break };
                        // A store through a pointer (`*(&x + r3) = r4`) waits too when its
                        // address or value depends on the read; an unrelated one ends the scan.
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
                        if !uses.is_disjoint(&derived) || (ctrl && lvalue_is_shared(self.src, lhs)) {
                            // (Deferred statements replay in order among themselves.)
                            inputs.extend(uses.difference(&derived).copied());
                            if let Some(l) = l.filter(|_| !lvalue_is_shared(self.src, lhs)) {
                                if jumped && !derived.contains(&l) {
                                    cond_vars.insert(l);
                                }
                                derived.insert(l);
                            }
                            chain.push(t.clone());
                        } else if l.is_none_or(|l| derived.contains(&l) || inputs.contains(&l)) {
                            break;
                        } else {
                            early.insert(t.id);
                        }
                    }
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
    fn store_var(&self, s: &Stmt) -> Option<VarId> {
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
    fn supersedable<'p>(&self, p: &'p PendingRead, s: &Stmt) -> Vec<&'p Deferred> {
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
                    let StmtKind::Assign { lhs, rhs } = &r.kind else { continue };
                    let plain_read = matches!(lhs.kind, ExprKind::Var(_)) && !lvalue_is_shared(self.src, lhs) && is_lvalue(rhs) && lvalue_is_shared(self.src, rhs);
                    if !plain_read || self.pending_of_site.contains_key(&r.id) {
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
                self.pending.get_mut(&func).expect("exists")[pi].fwd.push(Forward { site: r.id, store, flag, guess, mem, addr });
            }
        }
    }

    fn add_me_params(&mut self) {
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

    fn me_var(&self, f: FuncId) -> VarId {
        if self.takes_me.contains(&f) {
            *self.out.func(f).params.last().expect("me parameter added")
        } else {
            self.entry_me[&f]
        }
    }
}

// ---- generated machine: one helper per rule of Fig. 3 --------------------------------

#[derive(Clone)]
struct GroupVars {
    addr: Expr,
    val: Expr,
    thd: Expr,
    lw: Expr,
    live: Expr,
    n: Expr,
    /// Per entry, where to save memory's value when it leaves the buffer (see [`Hold`]).
    cap: Option<Expr>,
    /// Per entry, the bit of its write site in [`Plan::lw_pass`] (see `Rewriter::lw_bits`).
    tag: Option<Expr>,
    /// Per entry, the tags of the marked entries its write passes (`Rewriter::pass_mask`).
    pass: Option<Expr>,
}

impl Rewriter<'_> {
    fn global(&mut self, name: String, ty: Type) -> VarId {
        let v = self.out.add_var(Var { name, ty, storage: Storage::Global, init: None, address_taken: false, loc: Loc::default() });
        self.out.globals.push(v);
        v
    }

    /// Adds a function `name(params) -> ret` whose body `body` builds from the parameters.
    fn new_func(&mut self, name: String, params: &[(&str, Type)], ret: Type, body: impl FnOnce(&mut Self, &[Expr]) -> Block) -> FuncId {
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

    fn make_group_fns(&mut self, g: usize) {
        let n = self.groups[g].depth as u64;
        let elem = self.groups[g].elem.clone();
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
            thd: { let v = self.global(format!("{base}_thd"), arr(Type::INT)); var(v, &arr(Type::INT)) },
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
        let anchor = |gv: &GroupVars, i: u64, me: &Expr, addr: &Expr, marked: Option<Option<&Expr>>| -> Expr {
            let mut any = int(0);
            for j in i..n {
                let mut c = and(and(at(&gv.live, j), eq(at(&gv.thd, j), me.clone())), eq(at(&gv.addr, j), addr.clone()));
                if let Some(mask) = marked {
                    c = and(c, lt(int(0), at(&gv.lw, j)));
                    if let (Some(mask), Some(tag)) = (mask, &gv.tag) {
                        c = and(c, eq(bin(BinOp::BitAnd, at(tag, j), mask.clone()), uint(0)));
                    }
                }
                any = or(any, c);
            }
            any
        };
        let fenced = self.model.fences.values().any(|e| e.mark_writes);
        let tso_fifo = self.tso_fifo;

        // Flush every entry of `me` (and, per address, everything ahead of it): fences that
        // order W→R, thread end, and W→W on TSO.
        let flush_own = self.new_func(format!("{base}_flush_own"), &[("me", Type::INT)], Type::Void, |_, p| {
            let mut b = vec![];
            for i in 0..n {
                let c = and(at(&gv.live, i), anchor(&gv, i, &p[0], &at(&gv.addr, i), None));
                b.push(if_(c, flush_i(&gv, i), vec![], l));
            }
            b.push(reset(&gv));
            b
        });
        let (flush_lw, mark_lw) = if fenced {
            let params: &[(&str, Type)] = if gv.tag.is_some() { &[("me", Type::INT), ("mask", Type::UINT)] } else { &[("me", Type::INT)] };
            let fl = self.new_func(format!("{base}_flush_lw"), params, Type::Void, |_, p| {
                let mut b = vec![];
                for i in 0..n {
                    let c = and(at(&gv.live, i), anchor(&gv, i, &p[0], &at(&gv.addr, i), Some(p.get(1))));
                    b.push(if_(c, flush_i(&gv, i), vec![], l));
                }
                b.push(reset(&gv));
                b
            });
            let mk = self.new_func(format!("{base}_mark_lw"), &[("me", Type::INT)], Type::Void, |_, p| {
                (0..n)
                    .map(|i| {
                        let bump = assign(at(&gv.lw, i), bin(BinOp::Add, at(&gv.lw, i), int(1)), l);
                        if_(and(at(&gv.live, i), eq(at(&gv.thd, i), p[0].clone())), vec![bump], vec![], l)
                    })
                    .collect()
            });
            (Some(fl), Some(mk))
        } else {
            (None, None)
        };
        // Non-deterministic flush of the oldest entries per address, inserted before reads
        // where its effect can be observed (§4.4).
        let lw_blocked = self.lw_blocked;
        // `__weakc_lw_blocked(thread, lwsyncs after it[, what it passes])` for entry i
        let blocked_args = |i: u64| -> Vec<Expr> {
            let mut a = vec![at(&gv.thd, i), at(&gv.lw, i)];
            a.extend(gv.pass.as_ref().map(|p| at(p, i)));
            a
        };
        let flush_some = self.new_func(format!("{base}_flush_some"), &[], Type::Void, |s, _| {
            let fid = FuncId(s.out.funcs.len() as u32 - 1);
            let mut b = vec![];
            for i in 0..n {
                let mut c = and(at(&gv.live, i), nondet_bool());
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
                for k in 0..i {
                    // Oldest per address (coherence); on TSO also oldest of its thread.
                    let mut older = eq(at(&gv.addr, k), at(&gv.addr, i));
                    if tso_fifo {
                        older = or(older, eq(at(&gv.thd, k), at(&gv.thd, i)));
                    }
                    c = and(c, not(and(at(&gv.live, k), older)));
                }
                b.push(if_(c, flush_i(&gv, i), vec![], l));
            }
            b.push(reset(&gv));
            b
        });
        // READ FROM memory or buffer: own newest entry (rfi, store forwarding); with
        // non-atomic writes (rfe relaxed) also another thread's entry (R6, visible(w, r)).
        let rfe = self.model.rfe_relaxed;
        let b_blocked = self.lw_blocked.filter(|_| self.model.lw_b_cumulative);
        let read_fn = |s: &mut Self, name: String, others: bool| {
            s.new_func(name, &[("p", pty.clone()), ("me", Type::INT)], elem.clone(), |s, p| {
                let fid = FuncId(s.out.funcs.len() as u32 - 1);
                let v = s.local(fid, "v", elem.clone());
                let mut b = vec![assign(v.clone(), deref(p[0].clone()), l)];
                for i in 0..n {
                    let mut who = eq(at(&gv.thd, i), p[1].clone());
                    if others {
                        let mut seen = nondet_bool();
                        if let Some(f) = b_blocked {
                            // B-cumulativity: another thread sees the entry only after its
                            // thread's writes from before an lwsync that precedes it.
                            let blocked = s.local(fid, &format!("blocked{i}"), Type::Bool);
                            b.push(stmt(StmtKind::Call { dest: Some(blocked.clone()), callee: Callee::Direct(f), args: blocked_args(i) }, l));
                            seen = and(seen, not(blocked));
                        }
                        who = or(who, seen);
                    }
                    let c = and(and(at(&gv.live, i), eq(at(&gv.addr, i), p[0].clone())), who);
                    b.push(if_(c, vec![assign(v.clone(), at(&gv.val, i), l)], vec![], l));
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
                assign(index(gv.thd.clone(), i.clone()), p[2].clone(), l),
                assign(index(gv.lw.clone(), i.clone()), int(0), l),
                assign(index(gv.live.clone(), i.clone()), int(1), l),
            ];
            if let (Some(tag), Some(pass)) = (&gv.tag, &gv.pass) {
                b.push(assign(index(tag.clone(), i.clone()), p[3].clone(), l));
                b.push(assign(index(pass.clone(), i.clone()), p[4].clone(), l));
            }
            b.push(assign(gv.n.clone(), bin(BinOp::Add, gv.n.clone(), int(1)), l));
            b
        });
        // A write: own entries to the same address go first (coherence, W4). On TSO a write
        // of a thread with pending writes either queues behind them or waits for them all.
        let coherent = |p: &[Expr]| -> Block {
            let mut direct = vec![];
            if tso_fifo {
                direct.push(call(flush_own, vec![p[1].clone()], l));
            } else {
                for i in 0..n {
                    let c = and(and(at(&gv.live, i), eq(at(&gv.addr, i), p[0].clone())), anchor(&gv, i, &p[1], &p[0], None));
                    direct.push(if_(c, flush_i(&gv, i), vec![], l));
                }
                direct.push(reset(&gv));
            }
            direct
        };
        let flush_addr = self.rmw_groups.contains(&g).then(|| {
            self.new_func(format!("{base}_flush_addr"), &[("p", pty.clone()), ("me", Type::INT)], Type::Void, |_, p| coherent(p))
        });
        let write = self.new_func(format!("{base}_write"), &[("p", pty.clone()), ("v", elem.clone()), ("me", Type::INT)], Type::Void, |_, p| {
            let mut direct = coherent(&[p[0].clone(), p[2].clone()]);
            direct.push(assign(deref(p[0].clone()), p[1].clone(), l));
            if !tso_fifo {
                return direct;
            }
            let mut own = int(0);
            for i in 0..n {
                own = or(own, and(at(&gv.live, i), eq(at(&gv.thd, i), p[2].clone())));
            }
            let mut args = p.to_vec();
            if gv.tag.is_some() {
                args.extend([uint(0), uint(0)]);
            }
            vec![if_(and(own, nondet_bool()), vec![call(delay, args, l)], direct, l)]
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
                        let own = eq(at(&gv.thd, i), p[1].clone());
                        let mut who = and(own.clone(), not(hit.clone()));
                        if rfe {
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
            flush_some: Some(flush_some),
            read: Some(read),
            read_own,
            write: Some(write),
            flush_addr,
            delay: Some(delay),
            hold,
            read_held,
        };
    }

    fn make_global_fns(&mut self) {
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
                    let mut c = and(and(at(&gv.live), eq(at(&gv.thd), ps[0].clone())), lt(ps[1].clone(), at(&gv.lw)));
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

/// One bit per write site W1 of [`Plan::lw_pass`] (the first 31, in site order; the others
/// share the last bit: a write passing one of them passes them all, more behaviours, never
/// fewer).
fn lw_bits(plan: &Plan) -> HashMap<SiteId, u32> {
    let firsts: BTreeSet<SiteId> = plan.lw_pass.iter().map(|&(w1, _)| w1).collect();
    firsts.into_iter().enumerate().map(|(i, w1)| (w1, 1u32 << i.min(31))).collect()
}

/// Every statement list of a body (the body, branches, loop bodies and latches, blocks):
/// deferred chains and forwarded reads live within one of them.
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

/// Whether a statement's expressions use any of `vars`.
/// The variables a statement's expressions mention.
fn vars_used(s: &Stmt) -> BTreeSet<VarId> {
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

fn uses_any(s: &Stmt, vars: &BTreeSet<VarId>) -> bool {
    let mut hit = false;
    crate::ir::for_each_expr(s, &mut |e| e.visit(&mut |x| hit |= matches!(x.kind, ExprKind::Var(v) if vars.contains(&v))));
    hit
}

/// A C identifier fragment from an object name (`s.f[]` → `s_f`).
fn sanitize(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    s.trim_end_matches('_').to_string()
}

// ---- rewriting the user's statements -------------------------------------------------

struct Ctx {
    func: FuncId,
    me: Expr,
    entry: bool,
    /// Inside a user atomic section: do not open nested ones.
    atomic_depth: u32,
    /// The statement being rewritten (`None`: the end of the function), for completions of
    /// the reads that may be pending there only.
    at: Option<u32>,
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
    fn program_marks_writes(&self) -> bool {
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
    fn tagged(&self) -> bool {
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
    /// before what follows). `picks`: also those only picks guessed (before an assertion,
    /// which must see real values; a pick orders nothing).
    fn complete_speculated(&self, ctx: &Ctx, loc: Loc, picks: bool) -> Block {
        let Some(pending) = self.pending.get(&ctx.func) else { return vec![] };
        let triggers = pending
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let flags = p.spec.iter().filter(|sp| picks || sp.ctrl).map(|sp| sp.flag).chain(p.fwd.iter().map(|f| f.flag));
                let any = flags.map(|f| var(f, &Type::Bool)).reduce(or)?;
                Some((i, Some(any)))
            })
            .collect();
        self.complete(ctx, triggers, loc)
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
    fn pre_write(&self, ctx: &Ctx, objs: &BTreeSet<ObjId>, skip: Option<usize>, spare: &[usize], buffered: bool, pass: u32, loc: Loc) -> Block {
        let mut b = vec![];
        if self.tso_fifo {
            // Writes queue in the FIFO buffer (`*_write`): nothing to flush here.
        } else if self.model.ww_preserved {
            b.extend(self.call_me(self.flush_all_own, ctx, loc));
        } else if !buffered {
            b.extend(self.flush_lw_call(ctx, pass, loc));
        }
        if self.model.ctrl_orders_writes && skip.is_none() {
            b.extend(self.complete_speculated(ctx, loc, false));
        }
        // A read delayed past a later write to the same location would break coherence.
        let spared: Vec<VarId> = skip.iter().chain(spare).map(|&i| self.pending[&ctx.func][i].ptr).collect();
        b.extend(self.complete_reads(ctx, |p| !spared.contains(&p.ptr) && !p.objects.is_disjoint(objs), loc));
        b
    }

    fn rewrite_func(&mut self, f: FuncId) {
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
                }
                if let Some(h) = p.hold {
                    prologue.push(assign(var(h.held, &Type::Bool), int(0), loc));
                }
            }
        }
        let mut ctx = Ctx { func: f, me, entry, atomic_depth: 0, at: None };
        self.plan_cascades(f, &ctx);
        prologue.extend(self.cascade_prologue(f, loc));
        let mut out = prologue;
        out.extend(self.block(&body, &mut ctx));
        // Falling off the end of a thread: THREAD END flushes everything.
        ctx.at = None;
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

    fn stmt_inner(&self, s: &Stmt, ctx: &mut Ctx, out: &mut Block, deferring: Option<usize>) {
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
            // When the read must complete: always, or under one of these conditions.
            let mut when = cond_flags;
            let mut always = uses_value || overwrites;
            if waits_for_store {
                // Not for stores a later write went ahead of: the read sees that write.
                match self.superseded(p, &read_objs) {
                    Some(all) => when.push(not(all)),
                    None => always = true,
                }
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
                b.extend(self.pre_write(ctx, &objs, deferring, &spare, delayed, pass, loc));
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
                let normal: Block = match self.group_of_stmt(s.id, Dir::R) {
                    Some(g) => {
                        let fns = self.groups[g].fns;
                        let global = self.sites_of.get(&s.id).is_some_and(|ss| {
                            ss.iter().filter(|&&x| self.aeg.site(x).dir == Dir::R).all(|x| self.plan.global_reads.contains(x))
                        });
                        let read = if global { fns.read_own.or(fns.read) } else { fns.read };
                        vec![
                            call(fns.flush_some.expect("made"), vec![], loc),
                            stmt(StmtKind::Call { dest: Some(lhs.clone()), callee: Callee::Direct(read.expect("made")), args: vec![addr_of(rhs.clone()), ctx.me.clone()] }, loc),
                        ]
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
                    None if normal.len() > 1 => out.extend(self.wrap(ctx, normal, loc)),
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
                b.extend(self.pre_write(ctx, &objs, None, &[], false, 0, loc));
                if let Some(g) = self.group_of_stmt(s.id, Dir::W).or_else(|| self.group_of_stmt(s.id, Dir::R)) {
                    let fns = self.groups[g].fns;
                    // Another thread's buffered write may be what the read takes: it may
                    // reach memory first.
                    b.push(call(fns.flush_some.expect("made"), vec![], loc));
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
                b.extend(self.pre_write(ctx, &BTreeSet::new(), None, &[], false, 0, loc));
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
                let b = self.complete_speculated(ctx, loc, true);
                out.extend(self.wrap(ctx, b, loc));
                out.push(s.clone());
            }
            StmtKind::Fence(f) => {
                let mut b = vec![];
                if matches!(f, Fence::Isync | Fence::Isb) && self.model.ctrl_isync_orders_reads {
                    b.extend(self.complete_speculated(ctx, loc, false));
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
                        let b = self.complete_speculated(ctx, loc, false);
                        out.extend(self.wrap(ctx, b, loc));
                    }
                    if reads {
                        let strong = self.must_fences.get(g).is_some_and(|fs| fs.iter().any(|f| self.fence_effect(*f).flush_writes));
                        let b = self.complete_reads(ctx, |p| strong || !p.lw_free, loc);
                        out.extend(self.wrap(ctx, b, loc));
                    }
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
