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
//! they can be observed, §4.4) — or, where only a write's own thread can make it visible,
//! in the owner's own drain steps with thread-local buffers (see `drain`) —, (ii) when the
//! architecture orders the flushed write before the current event (fences, `W→W` on TSO,
//! coherence), and (iii) at thread end. A full buffer blocks further delays (`assume`), so
//! overflow never raises a false alarm.

mod buffers;
mod build;
mod complete;
mod drain;
mod emit;
mod groups;
mod pending;
mod threads;

use crate::aeg::{Aeg, Dir, EventId, ObjId, SiteId};
use crate::ir::*;
use crate::normalize::{is_lvalue, is_pick_cond, lvalue_is_shared, UNBUFFERED_PREFIX};
use crate::source::Loc;
use build::*;
use emit::Ctx;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What the selected delay pairs ask the rewriter to do.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Writes that may enter the buffer (first event of a `poW*` pair, write of an `rfe`).
    pub delayed_writes: BTreeSet<SiteId>,
    /// Reads that may enter the read set (first event of a `poR*` pair).
    pub delayed_reads: BTreeSet<SiteId>,
    /// Per delayed read, the events of its thread it is delayed past (the second events of
    /// its program-order pairs): where the read completes early, these must not come after.
    pub read_seconds: BTreeMap<SiteId, BTreeSet<SiteId>>,
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
    /// A read that takes its thread's store comes after the reads the store's address or
    /// value depends on (herd's `(addr | data); rfi` on Power, ARM and AArch64): so does
    /// what that read orders after it (see [`Forward`]).
    pub dd_rfi: bool,
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
    /// One of the thread's entries (or none) leaves memory-bound: a drain step of owned
    /// buffers (`Rewriter::owned`), instead of `flush_some`.
    drain_one: Option<FuncId>,
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

#[derive(Clone)]
struct GroupVars {
    addr: Expr,
    val: Expr,
    /// Per entry, the thread that made it; absent where buffers are owned (every entry is
    /// the running thread's).
    thd: Option<Expr>,
    lw: Expr,
    live: Expr,
    n: Expr,
    /// Per entry, where to save memory's value when it leaves the buffer (see [`Hold`]).
    cap: Option<Expr>,
    /// Per entry, the bit of its write site in [`Plan::lw_pass`] (see `Rewriter::lw_bits`).
    tag: Option<Expr>,
    /// Per entry, the tags of the marked entries its write passes (`Rewriter::pass_mask`).
    pass: Option<Expr>,
    /// Per entry of a buffer other threads read early (non-atomic writes): bit `t` set once
    /// thread `t` (below [`OBSERVER_BITS`]) has read it there. Coherence then puts the
    /// entry before that thread's later accesses of its address (CoRW, CoRR).
    obs: Option<Expr>,
}

/// Threads whose early reads of another thread's buffered write are recorded (the bits of
/// `GroupVars::obs`); a thread with a larger id is not constrained by them (more
/// behaviours, never fewer).
pub(super) const OBSERVER_BITS: i128 = 32;

impl GroupVars {
    /// `c` and "entry `i` is thread `me`'s" (always so in an owned buffer: `c` alone).
    fn and_mine(&self, c: Expr, i: u64, me: &Expr) -> Expr {
        match &self.thd {
            Some(thd) => and(c, eq(index(thd.clone(), int(i as i128)), me.clone())),
            None => c,
        }
    }

    /// Whether thread `me` has read entry `i` while it was buffered (never without `obs`).
    fn observed(&self, i: u64, me: &Expr) -> Option<Expr> {
        let obs = self.obs.as_ref()?;
        let bit = bin(BinOp::BitAnd, bin(BinOp::Shr, index(obs.clone(), int(i as i128)), me.clone()), uint(1));
        Some(and(lt(me.clone(), int(OBSERVER_BITS)), ne(bit, uint(0))))
    }
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
    /// Set when an access ordered after the read went ahead of the pending read: under
    /// [`Model::dd_rfi`] that is only possible where the read did not take the store's value
    /// (the check then asks the store to have written elsewhere). An acquire read, which
    /// orders everything after it, sets it when it takes the guess.
    nomatch: VarId,
}

/// What a statement needs of the guesses made before it (see [`Speculation`], [`Forward`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    /// To be ordered after the reads its guessed values come from (a write, an `isync`).
    Order,
    /// Real values (a call, which may check them).
    Values,
    /// Real values, also those only picks guessed (an assertion).
    Picks,
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
    // Copies of one statement (inlined calls, unrolled loops) give the same place twice.
    let mut seen = std::collections::HashSet::new();
    summary.approximations.retain(|a| seen.insert(a.clone()));
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
    /// Only a write's own thread can make it visible ([`Model::rfe_relaxed`] off): the
    /// buffers are thread-local (`_Thread_local`) and each thread drains its own at its statement
    /// boundaries (`drain_steps`), so the buffer bookkeeping is no shared memory at all.
    owned: bool,
    /// Per function, how many entries each group can hold before each statement (see
    /// `drain`).
    drain_bounds: HashMap<FuncId, drain::Bounds>,
    /// How each function's pending reads are completed (see `complete`).
    cascades: HashMap<FuncId, complete::Cascades>,
    /// While the code of a deferred statement is made: the completions it asks for, recorded
    /// instead of emitted (the cascade that performs the statement makes them).
    sink: std::cell::RefCell<Option<Vec<complete::Trigger>>>,
    /// Statements that complete a pending read only because they redefine its value (see
    /// `stmt_inner`), by statement: approximations of the instrumented program.
    early_completions: std::cell::RefCell<BTreeMap<u32, (Loc, String)>>,
    /// The shared objects each function reads and writes, its callees' included.
    callee_access: HashMap<FuncId, Access>,
    /// The direct calls of each function: (statement, callee).
    call_sites: HashMap<FuncId, Vec<(u32, FuncId)>>,
    /// Per function, the statement-id ranges of its loops (ids are numbered in pre-order, so
    /// a loop spans its own id to its last statement's).
    loop_spans: HashMap<FuncId, Vec<(u32, u32)>>,
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
            owned: !model.rfe_relaxed,
            drain_bounds: HashMap::new(),
            cascades: HashMap::new(),
            sink: Default::default(),
            early_completions: Default::default(),
            loop_spans: loop_spans(prog),
            callee_access: HashMap::new(),
            call_sites: HashMap::new(),
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
        self.compute_callee_access();
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

    fn is_instrumented_func(&self, f: FuncId) -> bool {
        self.takes_me.contains(&f) || self.entries.contains(&f)
    }
}

/// The shared objects a function reads and writes (see `compute_callee_access`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Access {
    reads: BTreeSet<ObjId>,
    writes: BTreeSet<ObjId>,
    /// The functions it calls, directly or not.
    callees: BTreeSet<FuncId>,
}

/// Per function, the range of statement ids each loop spans.
fn loop_spans(prog: &Program) -> HashMap<FuncId, Vec<(u32, u32)>> {
    let mut out: HashMap<FuncId, Vec<(u32, u32)>> = HashMap::new();
    for (fi, f) in prog.funcs.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        walk_stmts(body, &mut |s| {
            if matches!(s.kind, StmtKind::Loop { .. }) {
                let mut last = s.id;
                walk_stmts(std::slice::from_ref(s), &mut |t| last = last.max(t.id));
                out.entry(FuncId(fi as u32)).or_default().push((s.id, last));
            }
        });
    }
    out
}

/// One bit per write site W1 of [`Plan::lw_pass`] (the first 31, in site order; the others
/// share the last bit: a write passing one of them passes them all, more behaviours, never
/// fewer).
fn lw_bits(plan: &Plan) -> HashMap<SiteId, u32> {
    let firsts: BTreeSet<SiteId> = plan.lw_pass.iter().map(|&(w1, _)| w1).collect();
    firsts.into_iter().enumerate().map(|(i, w1)| (w1, 1u32 << i.min(31))).collect()
}
