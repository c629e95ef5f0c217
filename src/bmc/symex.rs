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
use super::layout::*;
use super::sat::{Lit, Sat};
use super::{BmcOptions, PropertyKind};
use crate::ir::*;
use crate::source::{Error, Loc};
use crate::aeg::alias::{Alias, ObjRoot};
use crate::aeg::ObjId;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::rc::Rc;

mod calls;
mod expr;
mod scanf;
mod taint;
mod tsd;

pub use taint::{EventDeps, Taint};

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
    /// Likewise per constant address of `mem`: a read taken from there depends on what the
    /// value written was computed from, as through a register.
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
    Call { func: String, approx: bool },
    Fail { prop: usize },
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
enum Place {
    Local { key: VKey, var_ty: Type, off: Bv, ty: Type },
    Mem { addr: Bv, ty: Type, roots: Roots },
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

fn known(bv: &[Lit]) -> Known {
    bv.iter().map(|l| l.as_const()).collect()
}

/// The bits two values share (values of different widths share none).
fn join_known(a: &mut Known, b: &[Option<bool>]) {
    if a.len() != b.len() {
        a.iter_mut().for_each(|x| *x = None);
        return;
    }
    for (x, y) in a.iter_mut().zip(b) {
        if *x != *y {
            *x = None;
        }
    }
}

/// Whether a write at an address with bit pattern `pat` and points-to `roots` may touch
/// address `a` of an object with `root`.
fn may_touch(pat: &[Option<bool>], roots: &Roots, a: u128, root: Option<ObjRoot>) -> bool {
    let bits_may = pat.iter().enumerate().all(|(i, b)| b.is_none_or(|b| b == ((a >> i) & 1 == 1)));
    let roots_may = match (roots, root) {
        (Some(rs), Some(r)) => rs.contains(&r),
        _ => true,
    };
    bits_may && roots_may
}

/// What the collection pass learnt: per thread, its identity and the constant addresses it
/// writes; all writes at non-constant addresses (bit patterns and points-to roots); the
/// bits every write at each constant address, and at each non-constant one, agrees on.
#[derive(Default)]
pub struct Collected {
    pub ids: Vec<ThreadKey>,
    pub writes: Vec<std::collections::HashSet<u128>>,
    pub sym: Vec<(Known, Roots)>,
    pub sym_vals: Vec<Known>,
    pub vals: HashMap<u128, Known>,
    /// The resolution pass met a thread the collection pass did not have at that index.
    pub mismatch: bool,
}

impl Collected {
    /// The bits of cell `a` that `init` (its initial value's known bits) and every write
    /// there, as recorded, agree on; `root` is the points-to root of `a`'s object.
    fn known_at(&self, a: u128, init: Known, root: Option<ObjRoot>) -> Known {
        let mut k = init;
        if let Some(v) = self.vals.get(&a) {
            join_known(&mut k, v);
        }
        for ((pat, roots), v) in self.sym.iter().zip(&self.sym_vals) {
            if k.iter().all(|b| b.is_none()) {
                break;
            }
            if may_touch(pat, roots, a, root) {
                join_known(&mut k, v);
            }
        }
        k
    }
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
    strings: HashMap<String, u32>,
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
    /// Thread-specific data keys (`pthread_key_create`).
    keys: tsd::Keys,
    next_frame: u32,
    state: State,
    ctx: Ctx,
    /// Dependencies are recorded ([`super::StoreBufferModel::tracks_deps`]).
    track: bool,
    /// Reads the expression being evaluated depends on so far (see [`taint`]).
    acc: Vec<(u32, Lit)>,
    /// Dependencies of the shared-memory accesses about to be made: their address, and a
    /// write's value; the hardware ordering of the statement's instruction.
    cur_addr: Taint,
    cur_data: Taint,
    cur_hw: HwOrder,
}

type R<T> = Result<T, Error>;

/// The state at a thread's start: guard `guard`, memory as the path knows it `mem`.
fn start_state(guard: Lit, mem: HashMap<u128, Bv>) -> State {
    State { guard, vars: HashMap::new(), atomic_depth: 0, cur_block: None, mem, blk: BTreeMap::new(), taint: HashMap::new(), mem_taint: HashMap::new(), deps: Default::default() }
}

fn dead_state() -> State {
    start_state(Lit::FALSE, HashMap::new())
}

fn is_cond_prefix(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Assign { .. } | StmtKind::Skip => true,
        StmtKind::If { then_, else_, .. } => {
            let brk = |b: &Block| b.len() == 1 && matches!(b[0].kind, StmtKind::Break);
            (brk(then_) && else_.is_empty()) || (then_.is_empty() && brk(else_))
        }
        _ => false,
    }
}

impl<'p> Symex<'p> {
    pub fn new(prog: &'p Program, opts: &'p BmcOptions, alias: Option<Rc<Alias>>) -> Self {
        // One numbering for `unwindset` and `--show-loops`: super::loop_stmts.
        let loop_ids: HashMap<*const Stmt, String> =
            super::loop_stmts(prog).into_iter().map(|(s, _, id)| (s as *const Stmt, id)).collect();
        Symex {
            prog,
            opts,
            limit_hit: false,
            sat: Sat::new(),
            layout: Layout::new(prog),
            objects: vec![Object { name: "NULL".into(), init: ObjInit::Zero, root: None }],
            obj_of: HashMap::new(),
            strings: HashMap::new(),
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
            queue: VecDeque::new(),
            collected: None,
            collecting: None,
            fix_known_bits: true,
            known_used: HashMap::new(),
            stable_objs: 1,
            path: vec![],
            resolvable_cache: HashMap::new(),
            loop_ids,
            keys: Default::default(),
            next_frame: 0,
            state: start_state(Lit::TRUE, HashMap::new()),
            ctx: Ctx { thread: 0, po: 0, last_block: 0, frames: vec![] },
            track: opts.model.as_ref().is_some_and(|m| m.tracks_deps()),
            acc: vec![],
            cur_addr: Taint::default(),
            cur_data: Taint::default(),
            cur_hw: HwOrder::default(),
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
        Ok(())
    }

    fn begin_thread(&mut self, t: usize) {
        let b = self.new_block(BlockKind::Marker);
        self.threads[t].start = b;
    }

    fn run_thread_body(&mut self, f: FuncId, args: Vec<Value>) -> R<()> {
        let loc = self.prog.func(f).loc;
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

    fn init_globals(&mut self) -> R<()> {
        let prog = self.prog;
        let statics: Vec<(VarId, &Var)> = prog
            .vars
            .iter()
            .enumerate()
            .filter(|(_, v)| !matches!(v.ty, Type::Func(_)))
            .filter(|(_, v)| v.is_global() || matches!(v.storage, Storage::Local { .. }) && v.init.is_some())
            .map(|(i, v)| (VarId(i as u32), v))
            .collect();
        // Every object first: an initialiser may take the address of a variable declared
        // (or first used) after the one it initialises.
        for &(id, v) in &statics {
            let o = self.new_object(v.name.clone(), ObjInit::Zero, Some(ObjRoot::Var(id)))?;
            self.obj_of.insert((GLOBAL_FRAME, id), o);
        }
        for &(id, v) in &statics {
            let Some(init) = &v.init else { continue };
            let cells = self.init_cells(&v.ty, Some(init))?;
            if cells.iter().any(|c| as_const(c) != Some(0)) {
                let o = self.obj_of[&(GLOBAL_FRAME, id)];
                self.objects[o as usize].init = ObjInit::Cells(cells);
            }
        }
        self.tsd_init()
    }

    /// Cell values of a static initialiser (missing parts are zero).
    fn init_cells(&mut self, ty: &Type, init: Option<&Init>) -> R<Vec<Bv>> {
        let widths = self.layout.cells(ty);
        let zero = |ws: &[usize]| ws.iter().map(|&w| bv::constant(0, w)).collect::<Vec<_>>();
        let Some(init) = init else { return Ok(zero(&widths)) };
        match (ty, init) {
            (Type::Array(elem, _), Init::Expr(Expr { kind: ExprKind::Str(s), .. })) => {
                let ew = self.layout.cells(elem);
                let mut out = vec![];
                let bytes = s.as_bytes();
                for i in 0..widths.len() / ew.len().max(1) {
                    let b = bytes.get(i).copied().unwrap_or(0);
                    out.push(bv::constant(b as u128, ew[0]));
                }
                Ok(out)
            }
            (_, Init::Expr(e)) if ty.is_scalar() => {
                let v = self.eval_as(e, ty)?;
                Ok(vec![v])
            }
            (_, Init::Expr(e)) => {
                let v = self.eval(e)?;
                Ok(if v.len() == widths.len() { v } else { zero(&widths) })
            }
            (Type::Array(elem, _), Init::List(items)) => {
                let per = self.layout.ncells(elem);
                let n = widths.len() / per.max(1);
                let mut out = vec![];
                for i in 0..n {
                    out.extend(self.init_cells(elem, items.get(i))?);
                }
                Ok(out)
            }
            (Type::Struct(s), Init::List(items)) => {
                let def = self.prog.strukt(*s);
                if def.is_union {
                    let mut out = zero(&widths);
                    if let (Some(f), Some(i)) = (def.fields.first(), items.first()) {
                        let v = self.init_cells(&f.ty.clone(), Some(i))?;
                        for (k, c) in v.into_iter().enumerate() {
                            if k < out.len() {
                                out[k] = self.sat.bv_resize(&c, widths[k], false);
                            }
                        }
                    }
                    return Ok(out);
                }
                let mut out = vec![];
                let fields: Vec<Type> = def.fields.iter().map(|f| f.ty.clone()).collect();
                for (i, fty) in fields.iter().enumerate() {
                    out.extend(self.init_cells(fty, items.get(i))?);
                }
                Ok(out)
            }
            (_, Init::List(items)) => self.init_cells(ty, items.first()),
        }
    }

    /// The initial value of the cell at constant address `a`.
    fn init_cell(&mut self, a: u128, width: usize) -> Bv {
        let o = (a >> OFF_BITS) as usize;
        let off = (a & ((1u128 << OFF_BITS) - 1)) as usize;
        match self.objects.get(o).map(|x| &x.init) {
            Some(ObjInit::Zero) => bv::constant(0, width),
            Some(ObjInit::Cells(cells)) => match cells.get(off) {
                Some(c) => {
                    let c = c.clone();
                    self.sat.bv_resize(&c, width, false)
                }
                None => self.sat.fresh_bv(width),
            },
            _ => self.sat.fresh_bv(width),
        }
    }

    /// The known bits of the initial value of cell `a` read with `width` bits (as
    /// [`Symex::init_cell`] gives it, without making fresh variables), and its object's root.
    fn init_known(&self, a: u128, width: usize) -> (Known, Option<ObjRoot>) {
        let obj = &self.objects[(a >> OFF_BITS) as usize];
        let off = (a & ((1u128 << OFF_BITS) - 1)) as usize;
        let mut k = match &obj.init {
            ObjInit::Zero => vec![Some(false); width],
            ObjInit::Cells(cells) => cells.get(off).map_or_else(|| vec![None; width], |c| known(c)),
            ObjInit::Nondet => vec![None; width],
        };
        k.resize(width, Some(false));
        (k, obj.root)
    }

    /// A fresh value for a read of constant address `a`, with the bits every possible write
    /// agrees on fixed (when the collection pass allows).
    fn read_value(&mut self, a: Option<u128>, width: usize) -> Bv {
        let usable = self.fix_known_bits && self.collected.as_ref().is_some_and(|c| !c.mismatch);
        let Some(a) = a.filter(|&a| usable && (1..self.stable_objs).contains(&((a >> OFF_BITS) as u32))) else {
            return self.sat.fresh_bv(width);
        };
        let k = match self.known_used.get(&(a, width)) {
            Some(k) => k.clone(),
            None => {
                let (init, root) = self.init_known(a, width);
                let k = self.collected.as_ref().expect("collected").known_at(a, init, root);
                self.known_used.insert((a, width), k.clone());
                k
            }
        };
        k.iter().map(|b| b.map_or_else(|| self.sat.fresh(), Lit::from_bool)).collect()
    }

    /// Whether the bits reads took as known hold for every write of this pass (as recorded
    /// in `collecting`): then no execution of the pass's formula is lost by fixing them.
    pub fn known_bits_hold(&self) -> bool {
        let Some(c) = &self.collecting else { return self.known_used.is_empty() };
        self.known_used.iter().all(|(&(a, w), k)| {
            let (init, root) = self.init_known(a, w);
            let now = c.known_at(a, init, root);
            k.iter().zip(&now).all(|(x, y)| x.is_none() || x == y)
        })
    }

    /// Whether a read of constant address `a` by the current thread can take its value from
    /// the path (`State::mem`) instead of being an event: `a` lies in a stable object, no
    /// write at a non-constant address may touch it, no thread other than this one and its
    /// ancestors writes it (per the collection pass), and the ancestors write it only before
    /// spawning the line of threads leading here. Then every write the read could see is
    /// ordered before it and on its own path.
    fn resolvable(&mut self, a: u128) -> bool {
        let t = self.ctx.thread;
        if let Some(&r) = self.resolvable_cache.get(&(t, a)) {
            return r;
        }
        let r = self.compute_resolvable(t, a);
        self.resolvable_cache.insert((t, a), r);
        r
    }

    fn compute_resolvable(&self, t: usize, a: u128) -> bool {
        let o = (a >> OFF_BITS) as u32;
        if o == 0 || o >= self.stable_objs {
            return false;
        }
        let Some(c) = &self.collected else { return false };
        if c.mismatch {
            return false;
        }
        let root = self.objects[o as usize].root;
        if c.sym.iter().any(|(pat, roots)| may_touch(pat, roots, a, root)) {
            return false;
        }
        // Ancestors of t, with the block of the spawn leading towards t.
        let mut anc: HashMap<usize, u32> = HashMap::new();
        let mut x = t;
        while let Some((p, sb)) = self.threads.get(x).and_then(|th| th.parent) {
            anc.insert(p, self.blocks[sb as usize].seq);
            x = p;
        }
        for (k, ws) in c.writes.iter().enumerate() {
            if k == t || anc.contains_key(&k) {
                continue;
            }
            if ws.contains(&a) {
                return false;
            }
        }
        // Ancestors are fully executed: check their writes directly.
        for ev in &self.events {
            if ev.write && anc.get(&ev.thread).is_some_and(|&seq| self.blocks[ev.block as usize].seq > seq) && as_const(&ev.addr) == Some(a) {
                return false;
            }
        }
        true
    }

    fn new_object(&mut self, name: String, init: ObjInit, root: Option<ObjRoot>) -> R<u32> {
        if self.objects.len() as u128 >= FUNC_BASE {
            return Err(Error::Internal("too many memory objects for the pointer encoding".into()));
        }
        self.objects.push(Object { name, init, root });
        Ok(self.objects.len() as u32 - 1)
    }

    // ---------------------------------------------------------------- blocks, events, steps

    fn new_block(&mut self, kind: BlockKind) -> u32 {
        let t = self.ctx.thread;
        let id = self.blocks.len() as u32;
        let seq = self.threads[t].blocks.len() as u32;
        self.blocks.push(BlockInfo { thread: t, seq, kind, guard: self.state.guard });
        self.threads[t].blocks.push(id);
        self.ctx.last_block = id;
        id
    }

    fn event_block(&mut self) -> u32 {
        match self.state.cur_block {
            Some(b) => b,
            None => self.new_block(BlockKind::Access),
        }
    }

    fn next_po(&mut self) -> u32 {
        self.ctx.po += 1;
        self.ctx.po
    }

    /// The dependencies of an access made now; it then counts for `addr; po`.
    fn event_deps(&mut self, write: bool) -> Option<Box<EventDeps>> {
        if !self.track {
            return None;
        }
        let d = &self.state.deps;
        let ev = EventDeps {
            addr: self.cur_addr.clone(),
            data: if write { self.cur_data.clone() } else { Taint::default() },
            ctrl: d.ctrl.clone(),
            isync: d.isync.clone(),
            addr_po: d.addr_po.clone(),
            acquire: if write { Acquire::None } else { self.cur_hw.acquire },
            release: write && self.cur_hw.release,
        };
        self.state.deps.addr_po = ev.addr_po.union(&self.cur_addr, &mut self.sat);
        Some(Box::new(ev))
    }

    /// The reads evaluated since `mark` (of [`Self::acc`]), taken out of it.
    fn taint_since(&mut self, mark: usize) -> Taint {
        if !self.track || self.acc.len() <= mark {
            self.acc.truncate(mark);
            return Taint::default();
        }
        let v = self.acc.split_off(mark);
        Taint::of(v, &mut self.sat)
    }

    fn push_taint(&mut self, t: &Taint) {
        if self.track {
            self.acc.extend_from_slice(t.entries());
        }
    }

    /// What was evaluated since `mark` counts only where `g` holds (one arm of `?:`, the
    /// second operand of `&&`/`||`).
    fn taint_only_under(&mut self, mark: usize, g: Lit) {
        if self.track && g != Lit::TRUE {
            for i in mark..self.acc.len() {
                self.acc[i].1 = self.sat.and(self.acc[i].1, g);
            }
        }
    }

    fn step(&mut self, loc: Loc, kind: RawKind) {
        let po = self.next_po();
        self.steps.push(RawStep {
            thread: self.ctx.thread,
            block: self.ctx.last_block,
            po,
            guard: self.state.guard,
            loc,
            kind,
        });
    }

    fn dead(&self) -> bool {
        self.state.guard == Lit::FALSE
    }

    /// Runs `f` on the paths where `c` holds; the others go on unchanged. (Narrowing the
    /// guard alone would not do for writes: the path state's memory would take them too.)
    fn under(&mut self, c: Lit, f: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        let g = self.state.guard;
        let taken = self.sat.and(g, c);
        if taken == Lit::FALSE {
            return Ok(());
        }
        let mut skipped = self.state.clone();
        skipped.guard = self.sat.and(g, !c);
        self.state.guard = taken;
        f(self)?;
        let done = std::mem::replace(&mut self.state, dead_state());
        // The guard stays the same literal when `f` cut no path.
        let known = (done.guard == taken).then_some(g);
        self.state = self.merge(vec![done, skipped], known);
        Ok(())
    }

    /// Under a weak model a fence that orders something is a block of its own; under SC,
    /// and inside an atomic section, it is nothing.
    fn fence(&mut self, f: Fence) {
        if self.track && matches!(f, Fence::Isync | Fence::Isb) {
            // ctrl+isync: every later access waits for the reads the branches so far
            // depended on.
            let (isync, ctrl) = (self.state.deps.isync.clone(), self.state.deps.ctrl.clone());
            self.state.deps.isync = isync.union(&ctrl, &mut self.sat);
        }
        let orders = self.opts.model.as_ref().is_some_and(|m| m.fence_matters(f));
        if orders && !self.dead() && self.state.atomic_depth == 0 {
            self.new_block(BlockKind::Fence(f));
        }
    }

    fn atomic_begin(&mut self) {
        if self.state.atomic_depth == 0 {
            let b = self.new_block(BlockKind::Atomic);
            self.state.cur_block = Some(b);
            self.state.blk.clear();
        }
        self.state.atomic_depth += 1;
    }

    fn atomic_end(&mut self) {
        if self.state.atomic_depth > 0 {
            self.state.atomic_depth -= 1;
            if self.state.atomic_depth == 0 {
                self.state.cur_block = None;
                self.state.blk.clear();
            }
        }
    }

    fn read_mem(&mut self, addr: Bv, width: usize, ty: &Type, label: String, loc: Loc, roots: Roots) -> Bv {
        if self.dead() {
            return self.sat.fresh_bv(width);
        }
        if self.collected.is_some() {
            if let Some(a) = as_const(&addr) {
                if self.resolvable(a) {
                    let v = match self.state.mem.get(&a) {
                        Some(v) => self.sat.bv_resize(v, width, false),
                        None => self.init_cell(a, width),
                    };
                    if let Some(t) = self.state.mem_taint.get(&a).cloned() {
                        self.push_taint(&t);
                    }
                    if self.track {
                        // No event, but the access is still there for `addr; po`.
                        let ap = self.state.deps.addr_po.union(&self.cur_addr, &mut self.sat);
                        self.state.deps.addr_po = ap;
                    }
                    self.step(loc, RawKind::ReadValue { label, val: v.clone(), ty: ty.clone(), reused: None });
                    return v;
                }
            }
        }
        let cached = as_const(&addr).filter(|_| self.state.cur_block.is_some());
        let g = self.state.guard;
        let hit = cached.and_then(|a| self.state.blk.get(&a)).filter(|(ge, v)| v.len() == width && self.sat.syntactically_implies(g, *ge));
        if let Some((_, v)) = hit {
            let v = v.clone();
            self.step(loc, RawKind::ReadValue { label, val: v.clone(), ty: ty.clone(), reused: cached });
            return v;
        }
        let val = self.read_value(as_const(&addr), width);
        if let Some(a) = cached {
            self.state.blk.insert(a, (g, val.clone()));
        }
        let block = self.event_block();
        let po = self.next_po();
        let ev = self.events.len();
        let deps = self.event_deps(false);
        self.events.push(Event {
            thread: self.ctx.thread,
            block,
            po,
            guard: self.state.guard,
            write: false,
            addr,
            val: val.clone(),
            label,
            loc,
            roots,
            deps,
        });
        if self.track {
            self.acc.push((ev as u32, Lit::TRUE));
        }
        self.step(loc, RawKind::Read { ev, ty: ty.clone() });
        val
    }

    fn write_mem(&mut self, addr: Bv, val: Bv, ty: &Type, label: String, loc: Loc, roots: Roots) {
        if self.dead() {
            return;
        }
        if self.state.cur_block.is_some() {
            self.track_block_write(&addr, &val);
        }
        match as_const(&addr) {
            Some(a) => {
                if ((a >> OFF_BITS) as u32) < self.stable_objs {
                    self.state.mem.insert(a, val.clone());
                    if self.track {
                        self.state.mem_taint.insert(a, self.cur_data.clone());
                    }
                }
                if let Some(c) = self.collecting.as_mut() {
                    c.writes[self.ctx.thread].insert(a);
                    let k = known(&val);
                    match c.vals.get_mut(&a) {
                        Some(old) => join_known(old, &k),
                        None => {
                            c.vals.insert(a, k);
                        }
                    }
                }
            }
            None => {
                if let Some(c) = self.collecting.as_mut() {
                    c.sym.push((known(&addr), roots.clone()));
                    c.sym_vals.push(known(&val));
                }
            }
        }
        let block = self.event_block();
        let po = self.next_po();
        let ev = self.events.len();
        let deps = self.event_deps(true);
        self.events.push(Event {
            thread: self.ctx.thread,
            block,
            po,
            guard: self.state.guard,
            write: true,
            addr,
            val,
            label,
            loc,
            roots,
            deps,
        });
        self.step(loc, RawKind::Write { ev, ty: ty.clone() });
    }

    /// Keeps the block's known values right after a write: a constant address takes the
    /// value, and every known cell the write may hit becomes a choice on the address.
    fn track_block_write(&mut self, addr: &Bv, val: &Bv) {
        let g = self.state.guard;
        if let Some(a) = as_const(addr) {
            let entry = match self.state.blk.get(&a) {
                Some((ge, old)) if old.len() == val.len() && self.sat.syntactically_implies(g, *ge) => {
                    let (ge, old) = (*ge, old.clone());
                    (ge, self.sat.bv_ite(g, val, &old))
                }
                _ => (g, val.clone()),
            };
            self.state.blk.insert(a, entry);
            return;
        }
        let known = std::mem::take(&mut self.state.blk);
        for (a, (ge, old)) in known {
            let same = self.sat.bv_eq(addr, &bv::constant(a, addr.len()));
            let hit = self.sat.and(g, same);
            if hit == Lit::FALSE {
                self.state.blk.insert(a, (ge, old));
            } else if val.len() == old.len() {
                let new = self.sat.bv_ite(hit, val, &old);
                self.state.blk.insert(a, (ge, new));
            }
        }
    }

    // ---------------------------------------------------------------- states

    fn kill(&mut self) -> State {
        let mut st = std::mem::replace(&mut self.state, dead_state());
        // Keep the variables so later (dead) code can still look values up cheaply.
        self.state.vars = st.vars.clone();
        st.vars.shrink_to_fit();
        st
    }

    /// Merges states reaching one program point. Paths are mutually exclusive, so values
    /// are if-then-else chains on the path guards. `known_guard` replaces the disjunction
    /// when the caller knows it (both sides of an `if` falling through).
    fn merge(&mut self, states: Vec<State>, known_guard: Option<Lit>) -> State {
        let mut live: Vec<State> = states.into_iter().filter(|s| s.guard != Lit::FALSE).collect();
        if live.is_empty() {
            return dead_state();
        }
        if live.len() == 1 {
            return live.pop().unwrap();
        }
        let guard = match known_guard {
            Some(g) => g,
            None => {
                let gs: Vec<Lit> = live.iter().map(|s| s.guard).collect();
                self.sat.or_all(gs)
            }
        };
        let mut keys: Vec<VKey> = live.iter().flat_map(|s| s.vars.keys().copied()).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut vars = HashMap::with_capacity(keys.len());
        for k in keys {
            // Start from the last state having the variable; a state without it (the variable
            // is uninitialised on that path) takes any other path's value.
            let mut acc: Option<Value> = None;
            for s in live.iter().rev() {
                let Some(v) = s.vars.get(&k) else { continue };
                acc = Some(match acc {
                    None => v.clone(),
                    Some(a) if a == *v => a,
                    Some(a) => {
                        let mut out = Vec::with_capacity(v.len());
                        for (x, y) in v.iter().zip(a.iter()) {
                            if x.len() == y.len() {
                                out.push(self.sat.bv_ite(s.guard, x, y));
                            } else {
                                out.push(x.clone());
                            }
                        }
                        out
                    }
                });
            }
            if let Some(v) = acc {
                vars.insert(k, v);
            }
        }
        // Paths meeting here are normally in the same atomic section (or none).
        let (atomic_depth, cur_block) = live.iter().map(|s| (s.atomic_depth, s.cur_block)).max().unwrap();
        let mut keys: Vec<u128> = live.iter().flat_map(|s| s.mem.keys().copied()).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut mem = HashMap::with_capacity(keys.len());
        for a in keys {
            let width = live.iter().find_map(|s| s.mem.get(&a)).map(|v| v.len()).unwrap_or(0);
            let mut acc: Option<Bv> = None;
            for s in live.iter().rev() {
                let v = match s.mem.get(&a) {
                    Some(v) => self.sat.bv_resize(v, width, false),
                    None => self.init_cell(a, width),
                };
                acc = Some(match acc {
                    None => v,
                    Some(x) if x == v => x,
                    Some(x) => self.sat.bv_ite(s.guard, &v, &x),
                });
            }
            mem.insert(a, acc.unwrap());
        }
        let mut blk = BTreeMap::new();
        if live.iter().all(|s| s.cur_block.is_some() && s.cur_block == cur_block) {
            // A cell known on every path, for the whole of each path, stays known.
            'cell: for (&a, (_, v0)) in &live[0].blk {
                let mut acc = v0.clone();
                for (i, s) in live.iter().enumerate() {
                    match s.blk.get(&a) {
                        Some((ge, v)) if v.len() == acc.len() && self.sat.syntactically_implies(s.guard, *ge) => {
                            if i > 0 && *v != acc {
                                acc = self.sat.bv_ite(s.guard, v, &acc);
                            }
                        }
                        _ => continue 'cell,
                    }
                }
                blk.insert(a, (guard, acc));
            }
        }
        let mut taint: HashMap<VKey, Vec<Taint>> = HashMap::new();
        let mut mem_taint: HashMap<u128, Taint> = HashMap::new();
        let mut deps = taint::PathDeps::default();
        if self.track {
            let sat = &mut self.sat;
            let mut keys: Vec<VKey> = live.iter().flat_map(|s| s.taint.keys().copied()).collect();
            keys.sort_unstable();
            keys.dedup();
            for k in keys {
                let n = live.iter().filter_map(|s| s.taint.get(&k)).map(|v| v.len()).max().unwrap_or(0);
                let cells = (0..n).map(|i| taint::merge_paths(live.iter().map(|s| (s.guard, s.taint.get(&k).and_then(|v| v.get(i)))), sat)).collect();
                taint.insert(k, cells);
            }
            let mut addrs: Vec<u128> = live.iter().flat_map(|s| s.mem_taint.keys().copied()).collect();
            addrs.sort_unstable();
            addrs.dedup();
            for a in addrs {
                mem_taint.insert(a, taint::merge_paths(live.iter().map(|s| (s.guard, s.mem_taint.get(&a))), sat));
            }
            deps = taint::PathDeps {
                ctrl: taint::merge_paths(live.iter().map(|s| (s.guard, Some(&s.deps.ctrl))), sat),
                isync: taint::merge_paths(live.iter().map(|s| (s.guard, Some(&s.deps.isync))), sat),
                addr_po: taint::merge_paths(live.iter().map(|s| (s.guard, Some(&s.deps.addr_po))), sat),
            };
        }
        State { guard, vars, atomic_depth, cur_block, mem, blk, taint, mem_taint, deps }
    }

    fn frame(&mut self) -> &mut Frame {
        self.ctx.frames.last_mut().expect("frame")
    }

    // ---------------------------------------------------------------- statements

    fn block(&mut self, stmts: &'p [Stmt]) -> R<()> {
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

    fn lock(&mut self, p: &Expr, loc: Loc) -> R<()> {
        let addr = self.eval_ptr(p)?;
        self.cur_addr = self.taint_since(0);
        let roots = self.ptr_roots(p);
        let ty = Type::INT;
        self.atomic_begin();
        let label = format!("*{}", expr_text(self.prog, p));
        let v = self.read_mem(addr.clone(), 32, &ty, label.clone(), loc, roots.clone());
        let free = self.sat.bv_is_zero(&v);
        self.step(loc, RawKind::Lock);
        self.state.guard = self.sat.and(self.state.guard, free);
        self.write_mem(addr, bv::constant(1, 32), &ty, label, loc, roots.clone());
        self.atomic_end();
        Ok(())
    }

    fn unlock(&mut self, p: &Expr, loc: Loc) -> R<()> {
        let addr = self.eval_ptr(p)?;
        self.cur_addr = self.taint_since(0);
        let roots = self.ptr_roots(p);
        let label = format!("*{}", expr_text(self.prog, p));
        self.step(loc, RawKind::Unlock);
        self.write_mem(addr, bv::constant(0, 32), &Type::INT, label, loc, roots.clone());
        Ok(())
    }

    /// `trylock`: atomically take the lock if free; returns 0 on success, EBUSY otherwise.
    fn trylock(&mut self, addr: &Bv, p: &Expr, loc: Loc) -> Bv {
        let roots = self.ptr_roots(p);
        self.atomic_begin();
        let label = format!("*{}", expr_text(self.prog, p));
        let v = self.read_mem(addr.clone(), 32, &Type::INT, label.clone(), loc, roots.clone());
        let free = self.sat.bv_is_zero(&v);
        let _ = self.under(free, |sx| {
            sx.write_mem(addr.clone(), bv::constant(1, 32), &Type::INT, label, loc, roots);
            Ok(())
        });
        self.atomic_end();
        self.sat.bv_ite(free, &bv::constant(0, 32), &bv::constant(16, 32))
    }

    fn loop_(&mut self, s: &'p Stmt, body: &'p [Stmt], latch: &'p [Stmt]) -> R<()> {
        let id = self.loop_ids.get(&(s as *const Stmt)).cloned().unwrap_or_else(|| "loop".into());
        let bound = self.opts.unwindset.get(&id).copied().unwrap_or(self.opts.unwind);
        let mut exits = vec![];
        for iter in 0..bound {
            if self.dead() {
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
        }
        if !self.dead() {
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

    fn rmw(&mut self, r: &Rmw, loc: Loc) -> R<()> {
        use RmwOp::*;
        let ty = r.ptr.ty.pointee().cloned().unwrap_or(Type::INT);
        let ty = if ty.is_scalar() { ty } else { Type::INT };
        let w = width(&ty);
        let addr = self.eval_ptr(&r.ptr)?;
        let addr_taint = self.taint_since(0);
        let roots = self.ptr_roots(&r.ptr);
        let val = self.eval_as(&r.val, &ty)?;
        let label = format!("*{}", expr_text(self.prog, &r.ptr));
        // For compare-exchange, the expected value lives behind a pointer.
        let (expected, exp_addr) = match (r.op, &r.expected) {
            (CompareExchange, Some(e)) => {
                let a = self.eval_ptr(e)?;
                let v = self.load(Place::Mem { addr: a.clone(), ty: ty.clone(), roots: self.ptr_roots(e) }, &format!("*{}", expr_text(self.prog, e)), loc)?;
                (Some(v[0].clone()), Some(a))
            }
            (_, Some(e)) => (Some(self.eval_as(e, &ty)?), None),
            (_, None) => (None, None),
        };
        let operands = self.taint_since(0);
        self.atomic_begin();
        self.cur_addr = addr_taint;
        let old = if r.op == Store { bv::constant(0, w) } else { self.read_mem(addr.clone(), w, &ty, label.clone(), loc, roots.clone()) };
        // The new value and the result depend on the operands and on the read.
        let read = self.taint_since(0);
        let result_taint = operands.union(&read, &mut self.sat);
        self.cur_data = result_taint.clone();
        let signed = is_signed(&ty);
        let _ = signed;
        let (new, result, write_cond): (Option<Bv>, Bv, Lit) = match r.op {
            FetchAdd | AddFetch => {
                let n = self.sat.bv_add(&old, &val);
                let res = if r.op == FetchAdd { old.clone() } else { n.clone() };
                (Some(n), res, Lit::TRUE)
            }
            FetchSub | SubFetch => {
                let n = self.sat.bv_sub(&old, &val);
                let res = if r.op == FetchSub { old.clone() } else { n.clone() };
                (Some(n), res, Lit::TRUE)
            }
            FetchAnd | AndFetch => {
                let n = self.sat.bv_and(&old, &val);
                let res = if r.op == FetchAnd { old.clone() } else { n.clone() };
                (Some(n), res, Lit::TRUE)
            }
            FetchOr | OrFetch => {
                let n = self.sat.bv_or(&old, &val);
                let res = if r.op == FetchOr { old.clone() } else { n.clone() };
                (Some(n), res, Lit::TRUE)
            }
            FetchXor | XorFetch => {
                let n = self.sat.bv_xor(&old, &val);
                let res = if r.op == FetchXor { old.clone() } else { n.clone() };
                (Some(n), res, Lit::TRUE)
            }
            FetchNand | NandFetch => {
                let a = self.sat.bv_and(&old, &val);
                let n = self.sat.bv_not(&a);
                let res = if r.op == FetchNand { old.clone() } else { n.clone() };
                (Some(n), res, Lit::TRUE)
            }
            Exchange => (Some(val.clone()), old.clone(), Lit::TRUE),
            CasVal | CasBool | CompareExchange => {
                let exp = expected.clone().unwrap_or_else(|| bv::constant(0, w));
                let eq = self.sat.bv_eq(&old, &exp);
                let res = if r.op == CasVal { old.clone() } else { vec![eq] };
                (Some(val.clone()), res, eq)
            }
            Load => (None, old.clone(), Lit::FALSE),
            Store => (Some(val.clone()), bv::constant(0, w), Lit::TRUE),
        };
        if let Some(n) = new {
            self.under(write_cond, |sx| {
                sx.write_mem(addr, n, &ty, label, loc, roots.clone());
                Ok(())
            })?;
        }
        self.atomic_end();
        self.cur_addr = Taint::default();
        if let (Some(ea), CompareExchange) = (exp_addr, r.op) {
            // On failure the current value is written back to *expected.
            let label = format!("*{}", expr_text(self.prog, r.expected.as_ref().unwrap()));
            let roots = self.ptr_roots(r.expected.as_ref().unwrap());
            self.under(!write_cond, |sx| {
                sx.write_mem(ea, old.clone(), &ty, label, loc, roots);
                Ok(())
            })?;
        }
        if let Some(d) = &r.dest {
            let from = if matches!(r.op, CasBool | CompareExchange) { Type::Bool } else { ty.clone() };
            let v = self.convert(&result, &from, &d.ty);
            let place = self.place(d)?;
            self.cur_addr = self.taint_since(0);
            self.cur_data = result_taint;
            self.store(place, vec![v], d, loc)?;
        }
        Ok(())
    }

    // ---------------------------------------------------------------- places

    /// Points-to roots of the lvalue `lv` (a dereference), when the analysis knows them.
    fn access_roots(&self, lv: &Expr) -> Roots {
        let (alias, roots) = self.alias.as_ref()?;
        let t = alias.access(self.prog, lv);
        if t.unknown || t.objects.is_empty() {
            return None;
        }
        let mut set = BTreeSet::new();
        for o in &t.objects {
            set.insert(*roots.get(o)?);
        }
        Some(Rc::new(set))
    }

    /// Points-to roots of `*p`.
    fn ptr_roots(&self, p: &Expr) -> Roots {
        self.alias.as_ref()?;
        let ty = p.ty.pointee().cloned().unwrap_or(Type::INT);
        self.access_roots(&Expr::new(ExprKind::Deref(Box::new(p.clone())), ty))
    }

    fn is_mem_var(&self, v: VarId) -> bool {
        let var = self.prog.var(v);
        let local = matches!(var.storage, Storage::Local { .. } | Storage::Temp { .. });
        !local || var.address_taken || var.init.is_some()
    }

    /// Whether `v` is a `static` local (one object for the whole program).
    fn is_static_local(&self, v: VarId) -> bool {
        let var = self.prog.var(v);
        matches!(var.storage, Storage::Local { .. }) && var.init.is_some()
    }

    /// The frame a variable's storage belongs to: the innermost call of its function, the
    /// program (globals, static locals) or the current thread (thread-local storage).
    fn frame_of(&self, v: VarId) -> R<u32> {
        let var = self.prog.var(v);
        if self.is_static_local(v) {
            return Ok(GLOBAL_FRAME);
        }
        let f = match var.storage {
            Storage::Local { func } | Storage::Temp { func } => func,
            Storage::Global => return Ok(GLOBAL_FRAME),
            #[allow(unreachable_patterns)]
            _ => return Ok(TLS_FRAME + self.ctx.thread as u32),
        };
        self.ctx
            .frames
            .iter()
            .rev()
            .find(|fr| fr.func == f)
            .map(|fr| fr.id)
            .ok_or_else(|| Error::Internal(format!("variable `{}` used outside its function", var.name)))
    }

    fn var_object(&mut self, v: VarId) -> R<u32> {
        let frame = self.frame_of(v)?;
        if let Some(&o) = self.obj_of.get(&(frame, v)) {
            return Ok(o);
        }
        let var = self.prog.var(v);
        let init = if frame >= TLS_FRAME && frame != GLOBAL_FRAME {
            // Thread-local storage: initialised like a global, one copy per thread.
            let cells = self.init_cells(&var.ty, var.init.as_ref())?;
            ObjInit::Cells(cells)
        } else {
            // An address-taken local: uninitialised, one object per call.
            let widths = self.layout.cells(&var.ty);
            ObjInit::Cells(widths.iter().map(|&w| self.sat.fresh_bv(w)).collect())
        };
        let o = self.new_object(var.name.clone(), init, Some(ObjRoot::Var(v)))?;
        self.obj_of.insert((frame, v), o);
        Ok(o)
    }

    fn place(&mut self, e: &Expr) -> R<Place> {
        match &e.kind {
            ExprKind::Var(v) => {
                if self.is_mem_var(*v) {
                    let o = self.var_object(*v)?;
                    Ok(Place::Mem { addr: bv::constant((o as u128) << OFF_BITS, PTR_BITS), ty: e.ty.clone(), roots: None })
                } else {
                    let key = (self.frame_of(*v)?, v.0);
                    let var_ty = self.prog.var(*v).ty.clone();
                    Ok(Place::Local { key, var_ty, off: bv::constant(0, LOCAL_OFF_BITS), ty: e.ty.clone() })
                }
            }
            ExprKind::Deref(p) => {
                let addr = self.eval_ptr(p)?;
                let roots = if as_const(&addr).is_some() { None } else { self.access_roots(e) };
                Ok(Place::Mem { addr, ty: e.ty.clone(), roots })
            }
            ExprKind::Index(base, i) => {
                if base.ty.is_pointer() {
                    let addr = self.eval_ptr(base)?;
                    let iv = self.eval_scalar(i)?;
                    let stride = self.layout.ncells(&e.ty);
                    let addr = self.ptr_add(&addr, &iv, is_signed(&i.ty), stride as u128, false);
                    let roots = if as_const(&addr).is_some() { None } else { self.access_roots(e) };
                    return Ok(Place::Mem { addr, ty: e.ty.clone(), roots });
                }
                let bp = self.place(base)?;
                let iv = self.eval_scalar(i)?;
                let stride = self.layout.ncells(&e.ty) as u128;
                Ok(match bp {
                    Place::Mem { addr, roots, .. } => {
                        let addr = self.ptr_add(&addr, &iv, is_signed(&i.ty), stride, false);
                        Place::Mem { addr, ty: e.ty.clone(), roots }
                    }
                    Place::Local { key, var_ty, off, .. } => {
                        let iv = self.sat.bv_resize(&iv, LOCAL_OFF_BITS, is_signed(&i.ty));
                        let st = bv::constant(stride, LOCAL_OFF_BITS);
                        let d = self.sat.bv_mul(&iv, &st);
                        let off = self.sat.bv_add(&off, &d);
                        Place::Local { key, var_ty, off, ty: e.ty.clone() }
                    }
                })
            }
            ExprKind::Member(base, f) => {
                let bp = self.place(base)?;
                let fo = match &base.ty {
                    Type::Struct(s) => self.layout.field_offset(*s, *f) as u128,
                    _ => 0,
                };
                Ok(match bp {
                    Place::Mem { addr, roots, .. } => {
                        let d = bv::constant(fo, 64);
                        let addr = self.ptr_add(&addr, &d, false, 1, false);
                        Place::Mem { addr, ty: e.ty.clone(), roots }
                    }
                    Place::Local { key, var_ty, off, .. } => {
                        let d = bv::constant(fo, LOCAL_OFF_BITS);
                        let off = self.sat.bv_add(&off, &d);
                        Place::Local { key, var_ty, off, ty: e.ty.clone() }
                    }
                })
            }
            ExprKind::Cast(inner) => {
                // `*(T*)&x`-style lvalues through a cast: reinterpret the place.
                let p = self.place(inner)?;
                Ok(match p {
                    Place::Mem { addr, roots, .. } => Place::Mem { addr, ty: e.ty.clone(), roots },
                    Place::Local { key, var_ty, off, .. } => Place::Local { key, var_ty, off, ty: e.ty.clone() },
                })
            }
            _ => Err(Error::unsupported(Loc::default(), format!("not an lvalue: {}", expr_text(self.prog, e)))),
        }
    }

    /// `p + i*stride` on the offset part of a pointer.
    fn ptr_add(&mut self, p: &Bv, i: &Bv, signed: bool, stride: u128, negate: bool) -> Bv {
        let iv = self.sat.bv_resize(i, OFF_BITS, signed);
        let st = bv::constant(stride, OFF_BITS);
        let d = self.sat.bv_mul(&iv, &st);
        let off = if negate { self.sat.bv_sub(&p[..OFF_BITS], &d) } else { self.sat.bv_add(&p[..OFF_BITS], &d) };
        let mut out = off;
        out.extend_from_slice(&p[OFF_BITS..]);
        out
    }

    fn local_cells(&mut self, key: VKey, var_ty: &Type) -> Value {
        if let Some(v) = self.state.vars.get(&key) {
            return v.clone();
        }
        let v = self.nondet_value(var_ty);
        self.state.vars.insert(key, v.clone());
        v
    }

    fn nondet_value(&mut self, ty: &Type) -> Value {
        let ws = self.layout.cells(ty);
        ws.iter().map(|&w| self.sat.fresh_bv(w)).collect()
    }

    /// Reads the value at `place` (all its cells).
    fn load(&mut self, place: Place, label: &str, loc: Loc) -> R<Value> {
        match place {
            Place::Mem { addr, ty, roots } => {
                let widths = self.layout.cells(&ty);
                let mut out = vec![];
                let cell_tys = cell_types(self.prog, &ty, widths.len());
                for (j, &w) in widths.iter().enumerate() {
                    let a = if j == 0 { addr.clone() } else { self.ptr_add(&addr, &bv::constant(j as u128, 64), false, 1, false) };
                    let lab = if widths.len() == 1 { label.to_string() } else { format!("{label}#{j}") };
                    out.push(self.read_mem(a, w, &cell_tys[j], lab, loc, roots.clone()));
                }
                Ok(out)
            }
            Place::Local { key, var_ty, off, ty } => {
                let cells = self.local_cells(key, &var_ty);
                let widths = self.layout.cells(&ty);
                let n = widths.len();
                if self.track {
                    let ts = self.state.taint.get(&key).cloned().unwrap_or_default();
                    let range = match as_const(&off) {
                        Some(k) => (k as usize).min(ts.len())..(k as usize + n).min(ts.len()),
                        None => 0..ts.len(),
                    };
                    for t in &ts[range] {
                        self.push_taint(t);
                    }
                }
                match as_const(&off) {
                    Some(k) => {
                        let k = k as usize;
                        let mut out = vec![];
                        for (j, &w) in widths.iter().enumerate() {
                            match cells.get(k + j) {
                                Some(c) => out.push(self.sat.bv_resize(c, w, false)),
                                None => out.push(self.sat.fresh_bv(w)),
                            }
                        }
                        Ok(out)
                    }
                    None => {
                        let mut out: Value = widths.iter().map(|&w| self.sat.fresh_bv(w)).collect();
                        if cells.len() >= n {
                            for p in 0..=(cells.len() - n) {
                                let pc = bv::constant(p as u128, LOCAL_OFF_BITS);
                                let c = self.sat.bv_eq(&off, &pc);
                                if c == Lit::FALSE {
                                    continue;
                                }
                                for j in 0..n {
                                    let v = self.sat.bv_resize(&cells[p + j], widths[j], false);
                                    out[j] = self.sat.bv_ite(c, &v, &out[j]);
                                }
                            }
                        }
                        Ok(out)
                    }
                }
            }
        }
    }

    fn store(&mut self, place: Place, v: Value, lhs: &Expr, loc: Loc) -> R<()> {
        if self.dead() {
            return Ok(());
        }
        let text = expr_text(self.prog, lhs);
        match place {
            Place::Mem { addr, ty, roots } => {
                let widths = self.layout.cells(&ty);
                let cell_tys = cell_types(self.prog, &ty, widths.len());
                for (j, &w) in widths.iter().enumerate() {
                    let a = if j == 0 { addr.clone() } else { self.ptr_add(&addr, &bv::constant(j as u128, 64), false, 1, false) };
                    let val = match v.get(j) {
                        Some(x) => self.sat.bv_resize(x, w, false),
                        None => self.sat.fresh_bv(w),
                    };
                    let lab = if widths.len() == 1 { text.clone() } else { format!("{text}#{j}") };
                    self.write_mem(a, val, &cell_tys[j], lab, loc, roots.clone());
                }
            }
            Place::Local { key, var_ty, off, ty } => {
                let mut cells = self.local_cells(key, &var_ty);
                let n = self.layout.ncells(&ty);
                match as_const(&off) {
                    Some(k) => {
                        let k = k as usize;
                        for j in 0..n {
                            if let (Some(c), Some(x)) = (cells.get(k + j), v.get(j)) {
                                let w = c.len();
                                cells[k + j] = self.sat.bv_resize(x, w, false);
                            }
                        }
                    }
                    None => {
                        if cells.len() >= n {
                            for p in 0..=(cells.len() - n) {
                                let pc = bv::constant(p as u128, LOCAL_OFF_BITS);
                                let c = self.sat.bv_eq(&off, &pc);
                                if c == Lit::FALSE {
                                    continue;
                                }
                                for j in 0..n {
                                    if let Some(x) = v.get(j) {
                                        let w = cells[p + j].len();
                                        let x = self.sat.bv_resize(x, w, false);
                                        cells[p + j] = self.sat.bv_ite(c, &x, &cells[p + j]);
                                    }
                                }
                            }
                        }
                    }
                }
                if self.track {
                    let t = self.cur_data.union(&self.cur_addr, &mut self.sat);
                    let ncells = cells.len();
                    let mut ts = self.state.taint.remove(&key).unwrap_or_default();
                    ts.resize(ncells.max(ts.len()), Taint::default());
                    match as_const(&off) {
                        Some(k) => {
                            for c in ts.iter_mut().skip(k as usize).take(n) {
                                *c = t.clone();
                            }
                        }
                        None => {
                            for c in ts.iter_mut() {
                                *c = c.union(&t, &mut self.sat);
                            }
                        }
                    }
                    self.state.taint.insert(key, ts);
                }
                self.state.vars.insert(key, cells);
                if ty.is_scalar() && !text.starts_with("__weakc_tmp") {
                    if let Some(x) = v.first() {
                        self.step(loc, RawKind::Assign { lhs: text, val: x.clone(), ty });
                    }
                }
            }
        }
        Ok(())
    }

}

/// `e` without the casts around it.
fn peel(mut e: &Expr) -> &Expr {
    while let ExprKind::Cast(inner) = &e.kind {
        e = inner;
    }
    e
}

/// The element type a pointer argument points to before it was converted to `void *`.
fn elem_type(e: &Expr) -> Option<Type> {
    match peel(e).ty.pointee()? {
        Type::Array(el, _) => Some((**el).clone()),
        Type::Void => None,
        t => Some(t.clone()),
    }
}

/// The usual arithmetic conversions on two integer types (after integer promotion).
pub fn common_type(a: &Type, b: &Type) -> Type {
    let promote = |t: &Type| match t {
        Type::Int { bits, signed } if *bits >= 32 => Type::Int { bits: *bits, signed: *signed },
        _ => Type::INT,
    };
    let (a, b) = (promote(a), promote(b));
    match (&a, &b) {
        (Type::Int { bits: ba, signed: sa }, Type::Int { bits: bb, signed: sb }) => {
            if sa == sb {
                Type::Int { bits: *ba.max(bb), signed: *sa }
            } else {
                let (ub, sbits) = if !sa { (*ba, *bb) } else { (*bb, *ba) };
                if ub >= sbits {
                    Type::Int { bits: ub, signed: false }
                } else {
                    Type::Int { bits: sbits, signed: true }
                }
            }
        }
        _ => Type::INT,
    }
}

/// The scalar type of each cell of `ty` (for printing values in traces).
fn cell_types(prog: &Program, ty: &Type, n: usize) -> Vec<Type> {
    fn go(prog: &Program, ty: &Type, out: &mut Vec<Type>, limit: usize) {
        if out.len() >= limit {
            return;
        }
        match ty {
            Type::Array(e, k) => {
                for _ in 0..k.unwrap_or(1) {
                    go(prog, e, out, limit);
                    if out.len() >= limit {
                        break;
                    }
                }
            }
            Type::Struct(s) => {
                let d = prog.strukt(*s);
                if d.is_union {
                    match d.fields.first() {
                        Some(f) => go(prog, &f.ty, out, limit),
                        None => out.push(Type::CHAR),
                    }
                } else {
                    for f in &d.fields {
                        go(prog, &f.ty, out, limit);
                    }
                }
            }
            t => out.push(t.clone()),
        }
    }
    let mut out = vec![];
    go(prog, ty, &mut out, n);
    while out.len() < n {
        out.push(Type::LONG);
    }
    out
}

/// C-like text of an expression, for traces.
pub fn expr_text(prog: &Program, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Const(c) => c.to_string(),
        ExprKind::FloatConst(s) => s.clone(),
        ExprKind::Str(s) => format!("{s:?}"),
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
