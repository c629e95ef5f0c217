//! Symbolic execution of the IR into guarded bit-vector SSA and shared-memory events.
//!
//! Each thread is executed path-merging: a [`State`] holds the path guard and the SSA values
//! (already bit-blasted) of the thread's non-shared locals; branches are executed under
//! `guard ∧ c` / `guard ∧ ¬c` and merged with if-then-else. Functions are inlined, loops
//! unwound, forward `goto`/`break`/`continue`/`return` park their state until the join point.
//! Every access to shared memory (globals, address-taken locals, anything behind a pointer)
//! becomes an [`Event`] whose value is a fresh vector for reads; [`super::order`] then
//! constrains which write each read sees.
//!
//! `assume(c)` (and `abort()`, `exit()`, a failed lock, an unwinding cut) restricts the guard
//! of the rest of the *thread's* path: the thread stops there, other threads go on. This is
//! exact for reachability — a stopped thread's later steps can always be scheduled after the
//! error — and never loses an error that needs another thread to block.

use super::bv::{self, as_const, Bv};
use super::fp::Format;
use super::layout::*;
use super::sat::{Lit, Sat};
use super::{BmcOptions, PropertyKind};
use crate::ir::*;
use crate::source::{Error, Loc};
use crate::aeg::alias::{Alias, ObjRoot};
use crate::aeg::ObjId;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;

mod bytes;
mod calls;
mod collect;
mod commit;
mod events;
mod expr;
mod math;
pub use math::models as models_math;
mod memory;
mod place;
mod scanf;
mod state;
mod stmt;
mod sync;
mod taint;
mod tsd;

pub use taint::{EventDeps, Taint};
pub(in crate::bmc) use commit::constrain as constrain_commits;
pub(in crate::bmc) use commit::used as commits_used;
use state::{dead_state, start_state};

/// The roots (variables, allocation sites) an access through a pointer may reach, from the
/// points-to analysis; `None` when unknown (anything).
pub type Roots = Option<Rc<BTreeSet<ObjRoot>>>;

pub type Value = Vec<Bv>;
/// (frame, variable); `RETVAL` for a frame's return value.
type VKey = (u32, u32);
const RETVAL: u32 = u32::MAX;
/// Frame id of objects that exist once (globals, static locals).
const GLOBAL_FRAME: u32 = u32::MAX;
/// Frame ids from here on (up to `GLOBAL_FRAME`) hold thread-local storage, per thread.
const TLS_FRAME: u32 = 0x8000_0000;

#[derive(Clone)]
pub struct State {
    pub guard: Lit,
    vars: HashMap<VKey, Value>,
    /// Nesting depth of atomic sections on this path, and the block they share.
    atomic_depth: u32,
    cur_block: Option<u32>,
    /// Latest value this path wrote to each constant address of a stable object (see
    /// [`Symex::resolvable`]); addresses never written hold their initial value.
    mem: HashMap<u128, Bv>,
    /// Values of constant addresses read or written earlier in the current atomic block on
    /// this path: `(g, v)`, the cell holds `v` here whenever `g` holds (`g` is the guard of
    /// the access, narrower than the path's inside `&&`, `?:` and the like). No other
    /// thread's event falls between two events of one block, so a later read there under a
    /// guard implying `g` needs no event (and no choice of source) of its own.
    blk: BTreeMap<u128, (Lit, Bv)>,
    /// Under a model with dependencies: per local, per cell, the reads its value depends on.
    taint: HashMap<VKey, Vec<Taint>>,
    /// Likewise per constant address of `mem`, where the model has `(addr | data); rfi` (or
    /// the cell is an `__unbuffered_*` register): a read taken from there depends on what
    /// the write's address and value were computed from.
    mem_taint: HashMap<u128, Taint>,
    deps: taint::PathDeps,
}

pub enum ObjInit {
    Zero,
    Cells(Vec<Bv>),
    /// Uninitialised heap memory: every read of an unwritten cell is unconstrained.
    Nondet,
}

pub struct Object {
    pub name: String,
    pub init: ObjInit,
    /// What the points-to analysis calls it (none for string literals).
    pub root: Option<ObjRoot>,
    /// How many cells it has, where that bounds its valid offsets (an upper bound for heap
    /// memory: the bytes allocated); none where unknown.
    pub extent: Option<u128>,
    /// Where its cells lie in bytes (`None`: unknown); a byte pointer into it moves by it
    /// ([`bytes`]).
    pub map: Option<Rc<CellMap>>,
}

pub struct Thread {
    pub name: String,
    pub guard: Lit,
    /// Parent thread and the block of the spawn in it.
    pub parent: Option<(usize, u32)>,
    /// Block ids in program order.
    pub blocks: Vec<u32>,
    pub start: u32,
    pub end: u32,
    /// The thread ran to its end.
    pub finished: Lit,
    pub retval: Bv,
}

pub struct BlockInfo {
    pub thread: usize,
    pub seq: u32,
    pub kind: BlockKind,
    /// The path condition when the block began.
    pub guard: Lit,
}

/// What made a block: the weak memory models order blocks by it ([`super::order`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// One shared-memory access outside any atomic section.
    Access,
    /// A lock or read-modify-write: its events happen at once.
    Atomic,
    /// An atomic section of the program (`__VERIFIER_atomic_*`): its events happen at once,
    /// and it orders everything before it before everything after it.
    AtomicSection,
    /// Thread start and end, spawn, join: ordered with everything around them.
    Marker,
    /// A fence statement (recorded only under a weak [`super::StoreBufferModel`]).
    Fence(Fence),
}

pub struct Event {
    pub thread: usize,
    pub block: u32,
    pub po: u32,
    pub guard: Lit,
    pub write: bool,
    pub addr: Bv,
    pub val: Bv,
    pub label: String,
    #[allow(dead_code)]
    pub loc: Loc,
    pub roots: Roots,
    /// Under a model with dependencies ([`super::StoreBufferModel::tracks_deps`]).
    pub deps: Option<Box<EventDeps>>,
}

pub struct JoinRec {
    pub thread: usize,
    pub block: u32,
    pub guard: Lit,
    pub tid: Bv,
    pub joined: Lit,
    pub ret: Bv,
}

pub struct Prop {
    pub kind: PropertyKind,
    pub loc: Loc,
    pub msg: String,
    pub viol: Lit,
}

pub enum RawKind {
    Assign { lhs: String, val: Bv, ty: Type },
    /// A read that needs no event: a resolved cell (`reused: None`), or a re-read of the
    /// constant address `reused` in the current atomic section, which takes the value of the
    /// thread's last access there (see `State::blk`).
    ReadValue { label: String, val: Bv, ty: Type, reused: Option<u128> },
    Read { ev: usize, ty: Type },
    Write { ev: usize, ty: Type },
    Assume,
    Spawn { thread: usize },
    Join { tid: Bv },
    AtomicBegin,
    AtomicEnd,
    Lock,
    Unlock,
    Call { func: String },
    Fail { prop: usize },
}

/// An access [`Symex::invalid_derefs`] must check: its address, path guard, place, whether
/// it writes, the objects the points-to analysis says it may reach, and what to check.
struct Deref {
    guard: Lit,
    addr: Bv,
    loc: Loc,
    write: bool,
    roots: Roots,
    check: DerefCheck,
    /// Thread and position, for the [`ApproxSite`] it may become.
    at: (usize, u32),
}

enum DerefCheck {
    /// The address names a cell of its object.
    Bounds,
    /// The program's access of this many bytes meets a cell of its size; the literal is to
    /// say where it does not (see [`Symex::note_width`]).
    Width(u64, Lit),
}

/// Where the engine's value is not C's: undefined behaviour (any value), an unmodelled
/// function's result. A counterexample that passes here (`guard` holds) is not known to be
/// real.
#[derive(Clone, Debug)]
pub struct ApproxSite {
    pub guard: Lit,
    pub loc: Loc,
    pub what: String,
    /// Thread and program-order position (that of the next step there): only a site in the
    /// causal past of a failure can have influenced it ([`super::past`]).
    pub at: (usize, u32),
}

pub struct RawStep {
    pub thread: usize,
    pub block: u32,
    pub po: u32,
    pub guard: Lit,
    pub loc: Loc,
    pub kind: RawKind,
}

#[derive(Default)]
struct LoopCtx {
    breaks: Vec<State>,
    conts: Vec<State>,
}

struct Frame {
    id: u32,
    func: FuncId,
    returns: Vec<State>,
    labels: HashMap<LabelId, Vec<State>>,
    loops: Vec<LoopCtx>,
}

/// Per-thread execution context.
struct Ctx {
    thread: usize,
    po: u32,
    last_block: u32,
    frames: Vec<Frame>,
}

/// A place a value lives: an SSA local (cells `off..` of the variable) or shared memory.
#[derive(Clone)]
enum Place {
    Local { key: VKey, var_ty: Type, off: Bv, ty: Type },
    Mem { addr: Bv, ty: Type, roots: Roots },
}

impl Place {
    /// The same place seen as a value of type `ty`.
    fn retyped(self, ty: Type) -> Place {
        match self {
            Place::Mem { addr, roots, .. } => Place::Mem { addr, ty, roots },
            Place::Local { key, var_ty, off, .. } => Place::Local { key, var_ty, off, ty },
        }
    }
}

/// The arguments of a call: the call's expressions, or `void *` values the engine passes
/// itself (to a thread-specific-data destructor).
#[derive(Clone, Copy)]
enum Args<'a> {
    Exprs(&'a [Expr]),
    Pointers(&'a [&'a Bv]),
}

impl Args<'_> {
    fn len(&self) -> usize {
        match self {
            Args::Exprs(a) => a.len(),
            Args::Pointers(a) => a.len(),
        }
    }
}

/// Bits of a value known without the solver (`None`: unknown), least significant first.
pub type Known = Vec<Option<bool>>;

/// What the collection pass learnt: per thread, its identity and the constant addresses it
/// writes; all writes at non-constant addresses (bit patterns and points-to roots); the
/// bits every write at each constant address, and at each non-constant one, agrees on.
#[derive(Default)]
pub struct Collected {
    pub ids: Vec<ThreadKey>,
    pub writes: Vec<std::collections::HashSet<u128>>,
    pub sym: Vec<(Known, Roots)>,
    pub sym_vals: Vec<Known>,
    /// Per entry of `sym`: a sequential program keeps the write on the path
    /// ([`Symex::sequential`]), so it does not stop reads of what it touches being resolved.
    pub sym_on_path: Vec<bool>,
    pub vals: HashMap<u128, Known>,
    /// The resolution pass met a thread the collection pass did not have at that index.
    pub mismatch: bool,
}

/// A thread's identity across passes: parent, spawn statement, call/iteration path.
pub type ThreadKey = (usize, usize, Vec<usize>);

pub struct Symex<'p> {
    pub prog: &'p Program,
    pub opts: &'p BmcOptions,
    /// Set when symbolic execution gave up because a limit of [`Sat::set_limits`] (deadline,
    /// clause count) was reached; [`Sat::stopped`] says which.
    pub limit_hit: bool,
    pub sat: Sat,
    pub layout: Layout<'p>,
    pub objects: Vec<Object>,
    obj_of: HashMap<(u32, VarId), u32>,
    strings: HashMap<Vec<u8>, u32>,
    /// Names of named semaphores (`sem_open`): the object holding what each denotes.
    semaphores: HashMap<String, u32>,
    pub threads: Vec<Thread>,
    pub blocks: Vec<BlockInfo>,
    pub events: Vec<Event>,
    pub joins: Vec<JoinRec>,
    pub props: Vec<Prop>,
    pub steps: Vec<RawStep>,
    /// Guards of paths cut by an unwinding assumption.
    pub cuts: Vec<Lit>,
    pub warnings: Vec<String>,
    /// For each read: its possible sources (None = initial value) and their selectors.
    pub rf_choices: Vec<(usize, Vec<(Option<usize>, Lit)>)>,
    /// Location and id of the statement being executed.
    cur_loc: Loc,
    cur_stmt: u32,
    cur_stmt_ptr: usize,
    /// Points-to analysis (when its assumptions hold for the program) and its object roots.
    alias: Option<(Rc<Alias>, HashMap<ObjId, ObjRoot>)>,
    /// Something was over- or under-approximated: a `Safe` verdict is not complete.
    pub approximate: bool,
    /// Over-approximated values, per path (see [`ApproxSite`]).
    pub approx_sites: Vec<ApproxSite>,
    /// Places whose effect the engine does not model at all (not even by any value: a
    /// mixed-size write changes bytes of other cells): an execution that reaches one makes
    /// "safe" unknown too. Each is also an approximation site.
    pub unmodelled: Vec<ApproxSite>,
    /// The front end's warnings by place (unknown inline assembly, a memory order that is not
    /// a constant): a path through one of them is an [`ApproxSite`].
    distrusted: HashMap<Loc, String>,
    /// Accesses whose address may name no object (null, a function, an id never created) or
    /// lie outside its object, or meet a cell of another size, with their path guards and
    /// points-to roots: decided once every object exists ([`Self::run`]).
    derefs: Vec<Deref>,
    /// `__weakc_commit()` marks, and per thread how many of them a take has consumed.
    commits: Vec<commit::CommitMark>,
    /// Per thread, at its last take: how many marks and events there were.
    commit_taken: HashMap<usize, (usize, usize)>,
    queue: VecDeque<(usize, FuncId, Bv, HashMap<u128, Bv>)>,
    /// What an earlier pass learnt: reads are resolved with it (see [`Symex::resolvable`]).
    pub collected: Option<Collected>,
    /// What this pass learns, when asked to.
    pub collecting: Option<Collected>,
    /// Reads of a constant address take the bits every write there agrees on (per
    /// `collected`) as constants; [`Symex::known_bits_hold`] checks the assumption after the
    /// pass.
    pub fix_known_bits: bool,
    /// The known bits reads took, per address and width.
    known_used: HashMap<(u128, usize), Known>,
    /// Objects with ids below this are created identically in every pass (globals, strings
    /// of initialisers, main's address-taken locals).
    stable_objs: u32,
    /// Path of calls and loop iterations leading to the current statement (thread identity).
    path: Vec<usize>,
    resolvable_cache: HashMap<(usize, u128), bool>,
    loop_ids: HashMap<*const Stmt, String>,
    /// Loops entered once or twice whatever the bound: spin loops, whose iterations that go
    /// round again change nothing, and condition-wait loops ([`super::spin`]).
    spin: HashMap<*const Stmt, super::spin::Reduction>,
    /// The product of the iteration counts of the counting loops unwound past their bound
    /// that enclose the current statement ([`super::counted::MAX_NEST`] bounds it).
    counted_nest: u32,
    /// Thread-specific data keys (`pthread_key_create`).
    keys: tsd::Keys,
    next_frame: u32,
    state: State,
    ctx: Ctx,
    /// Dependencies are recorded ([`super::StoreBufferModel::tracks_deps`]).
    track: bool,
    /// A read of its thread's write depends on what that write's address and value depend
    /// on ([`crate::arch::DepRules::dd_rfi`]): seen where such a read is resolved from path
    /// memory and has no event of its own.
    dd_rfi: bool,
    /// Reads the expression being evaluated depends on so far (see [`taint`]).
    acc: Vec<(u32, Lit)>,
    /// Dependencies of the shared-memory accesses about to be made: their address, and a
    /// write's value; the hardware ordering of the statement's instruction.
    cur_addr: Taint,
    cur_data: Taint,
    cur_hw: HwOrder,
    prepared: Rc<Prepared>,
}

/// What every symbolic-execution pass over a program reads of it, found once per
/// verification.
#[derive(Default)]
pub struct Prepared {
    /// Casts of pointers to integers that may reach arithmetic ([`super::ptrint`]).
    arith_casts: HashSet<*const Expr>,
    /// The pointee type each allocation's result is converted to ([`bytes::allocation_types`]).
    alloc_types: HashMap<VarId, Type>,
}

impl Prepared {
    pub fn of(prog: &Program) -> Prepared {
        Prepared { arith_casts: super::ptrint::arithmetic_casts(prog), alloc_types: bytes::allocation_types(prog) }
    }
}

type R<T> = Result<T, Error>;

impl<'p> Symex<'p> {
    /// `prepared`: [`Prepared::of`] `prog`, made once for every pass over it.
    pub fn new(prog: &'p Program, opts: &'p BmcOptions, alias: Option<Rc<Alias>>, prepared: Rc<Prepared>) -> Self {
        // One numbering for `unwindset` and `--show-loops`: super::loop_stmts.
        let loop_ids: HashMap<*const Stmt, String> =
            super::loop_stmts(prog).into_iter().map(|(s, _, id)| (s as *const Stmt, id)).collect();
        Symex {
            prog,
            opts,
            limit_hit: false,
            sat: Sat::new(),
            layout: Layout::new(prog),
            // Object 0 holds integers cast to pointers (`(void *)(long)i`), offsets that are
            // plain numbers: its cells count as bytes.
            objects: vec![Object { name: "NULL".into(), init: ObjInit::Zero, root: None, extent: None, map: Some(Rc::new(CellMap::cells_of(1))) }],
            obj_of: HashMap::new(),
            strings: HashMap::new(),
            semaphores: HashMap::new(),
            threads: vec![],
            blocks: vec![],
            events: vec![],
            joins: vec![],
            props: vec![],
            steps: vec![],
            cuts: vec![],
            warnings: vec![],
            rf_choices: vec![],
            cur_loc: Loc::default(),
            cur_stmt: 0,
            cur_stmt_ptr: 0,
            alias: alias.map(|a| {
                let r = a.roots();
                (a, r)
            }),
            approximate: false,
            approx_sites: vec![],
            unmodelled: vec![],
            distrusted: prog.warnings.iter().map(|(l, w)| (*l, format!("goes through a place weakc over-approximates: {w}"))).collect(),
            derefs: vec![],
            commits: vec![],
            commit_taken: HashMap::new(),
            queue: VecDeque::new(),
            collected: None,
            collecting: None,
            fix_known_bits: true,
            known_used: HashMap::new(),
            stable_objs: 1,
            path: vec![],
            resolvable_cache: HashMap::new(),
            loop_ids,
            spin: super::spin::spin_loops(prog),
            counted_nest: 1,
            keys: Default::default(),
            next_frame: 0,
            state: start_state(Lit::TRUE, HashMap::new()),
            ctx: Ctx { thread: 0, po: 0, last_block: 0, frames: vec![] },
            track: opts.model.as_ref().is_some_and(|m| m.tracks_deps()),
            dd_rfi: opts.model.as_ref().and_then(|m| m.relaxed.as_ref()).is_some_and(|r| r.deps.dd_rfi),
            acc: vec![],
            cur_addr: Taint::default(),
            cur_data: Taint::default(),
            cur_hw: HwOrder::default(),
            prepared,
        }
    }

    // ---------------------------------------------------------------- driver

    /// Executes `main` and every thread it (transitively) spawns.
    pub fn run(&mut self) -> R<()> {
        let main = self.prog.main.or_else(|| self.prog.func_by_name("main"));
        let main = main.ok_or_else(|| Error::Usage("the program has no `main` function".into()))?;
        if self.prog.func(main).body.is_none() {
            return Err(Error::Usage("`main` has no body".into()));
        }
        self.threads.push(Thread {
            name: "main".into(),
            guard: Lit::TRUE,
            parent: None,
            blocks: vec![],
            start: 0,
            end: 0,
            finished: Lit::FALSE,
            retval: vec![],
        });
        self.begin_thread(0);
        if let Some(c) = self.collecting.as_mut() {
            *c = Collected { ids: vec![(0, 0, vec![])], writes: vec![Default::default()], ..Default::default() };
        }
        self.init_globals()?;
        let nparams = self.prog.func(main).params.len();
        let args: Vec<Value> = (0..nparams).map(|_| vec![]).collect();
        self.run_thread_body(main, args)?;
        while let Some((t, f, arg, mem)) = self.queue.pop_front() {
            self.ctx = Ctx { thread: t, po: 0, last_block: 0, frames: vec![] };
            self.path.clear();
            self.state = start_state(self.threads[t].guard, mem);
            self.begin_thread(t);
            let np = self.prog.func(f).params.len();
            let mut args = vec![];
            if np > 0 {
                args.push(vec![arg]);
            }
            self.run_thread_body(f, args)?;
        }
        self.invalid_derefs();
        Ok(())
    }

    /// A read through a null or wild pointer takes any value and a write there lands in a
    /// cell of no object, where later wild reads may take it: neither is C's (undefined
    /// behaviour, a crash on hardware), so a counterexample through one is not reported as
    /// real (an out-of-thin-air cycle on RMO once ran through a null `curr->key`).
    ///
    /// So is an access outside its object's cells (an index past the end, a pointer moved by
    /// integer arithmetic the cell encoding does not follow): it would read some other cell
    /// or an unconstrained value. And the width checks of [`Self::note_width`] whose object
    /// was not a constant get their condition here, over the objects each may reach.
    fn invalid_derefs(&mut self) {
        let n = self.objects.len() as u128;
        // Objects by points-to root, for accesses whose object is not a constant.
        let mut by_root: HashMap<ObjRoot, Vec<u32>> = HashMap::new();
        for (o, x) in self.objects.iter().enumerate().skip(1) {
            if let Some(r) = x.root {
                by_root.entry(r).or_default().push(o as u32);
            }
        }
        let all: Vec<u32> = (1..self.objects.len() as u32).collect();
        for d in std::mem::take(&mut self.derefs) {
            let (off, obj) = d.addr.split_at(OFF_BITS);
            let what = if d.write { "writes" } else { "reads" };
            let (single, reached): ([u32; 1], Vec<u32>);
            let candidates: &[u32] = match (as_const(obj), &d.roots) {
                (Some(o), _) => {
                    single = [o as u32];
                    &single
                }
                (None, Some(roots)) => {
                    reached = roots.iter().filter_map(|r| by_root.get(r)).flatten().copied().collect();
                    &reached
                }
                (None, None) => &all,
            };
            let mut bad = vec![];
            // (The solver's gates are shared: `obj == o` is made once per object bits.)
            let here = |sx: &mut Self, o: u32| sx.sat.bv_eq(obj, &bv::constant(o as u128, obj.len()));
            match d.check {
                DerefCheck::Bounds => {
                    if as_const(obj).is_none_or(|o| o == 0 || o >= n) {
                        let null = !self.sat.or_all(obj.iter().copied());
                        let created = self.sat.bv_ult(obj, &bv::constant(n, obj.len()));
                        let wild = self.sat.or_all([null, !created]);
                        let guard = self.sat.and(d.guard, wild);
                        if guard != Lit::FALSE {
                            self.approx_sites.push(ApproxSite { guard, loc: d.loc, what: format!("{what} through a null or invalid pointer (undefined behaviour)"), at: d.at });
                        }
                    }
                    for &o in candidates {
                        let Some(extent) = self.objects.get(o as usize).and_then(|x| x.extent) else { continue };
                        let within = self.sat.bv_ult(off, &bv::constant(extent, off.len()));
                        let h = here(self, o);
                        bad.push(self.sat.and(h, !within));
                    }
                    let out = self.sat.or_all(bad);
                    let guard = self.sat.and(d.guard, out);
                    if guard != Lit::FALSE {
                        self.approx_sites.push(ApproxSite { guard, loc: d.loc, what: format!("{what} outside the bounds of an object (undefined behaviour, or pointer arithmetic on integers that the engine's cell addresses do not follow)"), at: d.at });
                    }
                }
                DerefCheck::Width(bytes, differs_lit) => {
                    for &o in candidates.iter().filter(|&&o| o != 0) {
                        let Some(map) = self.objects.get(o as usize).and_then(|x| x.map.clone()) else { continue };
                        let differs = self.cell_size_differs(&map, off, bytes);
                        if differs != Lit::FALSE {
                            let h = here(self, o);
                            bad.push(self.sat.and(h, differs));
                        }
                    }
                    let out = self.sat.or_all(bad);
                    self.sat.add_clause(&[!differs_lit, out]);
                    self.sat.add_clause(&[differs_lit, !out]);
                }
            }
        }
    }

    fn begin_thread(&mut self, t: usize) {
        let b = self.new_block(BlockKind::Marker);
        self.threads[t].start = b;
    }

    /// The thread's copies of the thread-local variables that live on the path (see
    /// `is_mem_var`), initialised as their declarations say.
    fn init_thread_locals(&mut self) -> R<()> {
        for i in 0..self.prog.vars.len() {
            let v = VarId(i as u32);
            let var = self.prog.var(v);
            if matches!(var.storage, Storage::ThreadLocal) && !self.is_mem_var(v) {
                let (ty, init) = (var.ty.clone(), var.init.clone());
                let cells = self.init_cells(&ty, init.as_ref())?;
                self.state.vars.insert((TLS_FRAME + self.ctx.thread as u32, v.0), cells);
            }
        }
        Ok(())
    }

    fn run_thread_body(&mut self, f: FuncId, args: Vec<Value>) -> R<()> {
        let loc = self.prog.func(f).loc;
        self.init_thread_locals()?;
        let (ret, _) = self.inline_call(f, args, vec![], loc)?;
        let t = self.ctx.thread;
        if t != 0 {
            self.run_destructors(loc)?;
        }
        let b = self.new_block(BlockKind::Marker);
        self.threads[t].end = b;
        self.threads[t].finished = self.state.guard;
        let rt = self.prog.func(f).ty.ret.clone();
        self.threads[t].retval = match ret {
            Some(v) if !v.is_empty() && rt.is_scalar() => self.convert(&v[0], &rt, &Type::ptr_to(Type::Void)),
            _ => bv::constant(0, PTR_BITS),
        };
        Ok(())
    }
}

/// C-like text of an expression, for traces.
pub fn expr_text(prog: &Program, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Const(c) => c.to_string(),
        ExprKind::FloatConst(s) => s.clone(),
        ExprKind::Str(s) => crate::cprint::c_string(s),
        ExprKind::Var(v) => prog.var(*v).name.clone(),
        ExprKind::FuncAddr(f) => prog.func(*f).name.clone(),
        ExprKind::Unary(op, a) => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::Not => "!",
            };
            format!("{o}{}", paren(prog, a))
        }
        ExprKind::Binary(op, a, b) => format!("{} {} {}", paren(prog, a), op.c_str(), paren(prog, b)),
        ExprKind::Cond(c, a, b) => format!("{} ? {} : {}", paren(prog, c), paren(prog, a), paren(prog, b)),
        ExprKind::Cast(a) => expr_text(prog, a),
        ExprKind::Deref(p) => match &p.kind {
            ExprKind::Binary(BinOp::Add, base, i) => format!("{}[{}]", paren(prog, base), expr_text(prog, i)),
            _ => format!("*{}", paren(prog, p)),
        },
        ExprKind::AddrOf(a) => format!("&{}", paren(prog, a)),
        ExprKind::Member(base, f) => {
            let name = match &base.ty {
                Type::Struct(s) => prog.strukt(*s).fields.get(*f).map(|x| x.name.clone()).unwrap_or_default(),
                _ => f.to_string(),
            };
            match &base.kind {
                ExprKind::Deref(p) => format!("{}->{name}", paren(prog, p)),
                _ => format!("{}.{name}", paren(prog, base)),
            }
        }
        ExprKind::Index(a, i) => format!("{}[{}]", paren(prog, a), expr_text(prog, i)),
        ExprKind::Nondet => "nondet()".into(),
    }
}

fn paren(prog: &Program, e: &Expr) -> String {
    let t = expr_text(prog, e);
    match &e.kind {
        ExprKind::Binary(..) | ExprKind::Cond(..) => format!("({t})"),
        _ => t,
    }
}
