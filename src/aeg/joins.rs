//! Which threads have certainly finished before an event: joins end concurrency.
//!
//! An event `e` of thread `P` is *after* thread `T` when, on every path of `P` to `e`, all
//! of `T`'s events are ordered before `e` by a synchronisation. Then no execution has a
//! communication from `e` to an event of `T` (`e` cannot be read by `T`, is
//! coherence-after `T`'s writes, and reads them or later values), so the cycle search never
//! takes a com step `e → f` with `f` in `T` ([`super::Aeg::com_step_possible`]). The other
//! direction (`T` writes, `e` reads it) stays: a cycle may enter `e` from `T` and leave to a
//! thread still running.
//!
//! Two synchronisations are recognised, both by a must-dataflow over the thread's
//! control-flow graph (a join inside one branch of an `if` does not help the other path):
//!
//! * `pthread_join(h, ...)` where the handle `h` (a variable, or an array element with a
//!   constant index) holds, on every path, the id stored by `pthread_create(&h, ...)` of a
//!   thread that runs at most once ([`Instances::Count`]`(1)`: not spawned in a loop, not
//!   reached twice). A handle is tracked only when every use of it is such a spawn, a plain
//!   load, a store or a join — its address never escapes, so nothing else writes it — and a
//!   global handle only when all of that happens in `main`. Threads spawned in loops
//!   (handle arrays indexed by the loop variable) are not matched: one join per iteration
//!   does not show that every instance was joined, so they stay concurrent (sound).
//! * The ESOP/CBMC litmus harness: every thread ends with `fence(); __unbuffered_cnt++;`,
//!   `main` does `__CPROVER_assume(__unbuffered_cnt == N); fence();`. Treated as a join of
//!   the `N` incrementing threads when all of the following hold, which make it one:
//!   - the counter is a global `__unbuffered_*` variable (accessed without buffering),
//!     initially 0, whose address is never taken, and every assignment to it anywhere is
//!     `v = v + 1`;
//!   - exactly `N` increments exist in all threads together, each the only one of its
//!     thread, outside loops, in a thread that runs once: so `v == N` means each of them
//!     executed (each increment writes the value it read plus one: the value `N` needs a
//!     chain of `N` distinct increments reading `0, 1, ..., N-1`; lost updates only lower
//!     it);
//!   - in each such thread no access follows the increment and a full, cumulative fence
//!     (`sync`, `mfence`, `dmb`, a portable full barrier — full on every architecture, see
//!     [`full_everywhere`]) lies between every access and the increment: the thread's
//!     accesses are performed and its writes visible to all before the counter changes;
//!   - in the waiting thread a full fence follows the assumption before the event (its later
//!     accesses cannot be performed before it read `N`).
//!
//!   Without any of the fences the harness does not order anything (on Power a read after
//!   the assumption may still see an old value), and the threads stay concurrent.
//!
//! Not handled (kept concurrent, sound): transitivity (`main` joins `T` which joined `U`),
//! handles passed around through pointers or structures, joins of threads with several
//! instances.

use super::build::{Cfg, NodeKind};
use super::*;
use crate::ir::*;
use crate::normalize::UNBUFFERED_PREFIX;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A handle location: a variable, or one element of an array variable.
pub(super) type HandleLoc = (VarId, Option<i128>);

/// What a CFG node does that matters here (recorded by the walk beside the node).
#[derive(Clone, Debug)]
pub(super) enum SyncOp {
    /// `pthread_create`: the thread `(func, loc)` when the target is one function.
    Spawn { thread: Option<(FuncId, Loc)>, handle: Option<HandleLoc> },
    /// `pthread_join` on a handle location or on a temporary loaded from one.
    Join { handle: Option<HandleLoc>, temp: Option<VarId> },
    /// `temp = handle`.
    Load { handle: HandleLoc, temp: VarId },
    /// A store to (some element of) a handle variable.
    Store(VarId),
    /// A fence statement (not a join, lock or atomic section).
    Barrier,
    /// `v = v + 1` of an `__unbuffered_` counter.
    Increment { var: VarId, in_loop: bool },
    /// Any other assignment to an `__unbuffered_` variable.
    OtherWrite(VarId),
    /// `assume(v == n)`.
    AssumeCount { var: VarId, n: i128 },
}

/// Fences that order every pair and are fully cumulative on every architecture.
pub fn full_everywhere(f: Fence) -> bool {
    matches!(f, Fence::Full | Fence::Mfence | Fence::Sync | Fence::Dmb | Fence::Dsb)
}

pub(super) fn strip_casts(mut e: &Expr) -> &Expr {
    while let ExprKind::Cast(inner) = &e.kind {
        e = inner;
    }
    e
}

/// `v` or `v[c]`.
pub(super) fn handle_form(e: &Expr) -> Option<HandleLoc> {
    match &strip_casts(e).kind {
        ExprKind::Var(v) => Some((*v, None)),
        ExprKind::Index(b, i) => match (&b.kind, &strip_casts(i).kind) {
            (ExprKind::Var(v), ExprKind::Const(c)) if matches!(b.ty, Type::Array(..)) => Some((*v, Some(*c))),
            _ => None,
        },
        _ => None,
    }
}

/// `v == n` or `n == v`.
pub(super) fn count_test(e: &Expr) -> Option<(VarId, i128)> {
    let ExprKind::Binary(BinOp::Eq, a, b) = &strip_casts(e).kind else { return None };
    match (&strip_casts(a).kind, &strip_casts(b).kind) {
        (ExprKind::Var(v), ExprKind::Const(n)) | (ExprKind::Const(n), ExprKind::Var(v)) => Some((*v, *n)),
        _ => None,
    }
}

/// `v = v + 1` (or `1 + v`).
pub(super) fn is_increment(v: VarId, rhs: &Expr) -> bool {
    let ExprKind::Binary(BinOp::Add, a, b) = &strip_casts(rhs).kind else { return false };
    matches!(
        (&strip_casts(a).kind, &strip_casts(b).kind),
        (ExprKind::Var(x), ExprKind::Const(1)) | (ExprKind::Const(1), ExprKind::Var(x)) if *x == v
    )
}

pub(super) fn is_counter(prog: &Program, v: VarId) -> bool {
    let var = prog.var(v);
    var.is_global() && var.name.starts_with(UNBUFFERED_PREFIX)
}

/// Variables usable as thread handles: every occurrence is `pthread_create(&h or &h[c])`,
/// a load `t = h` / `t = h[c]`, a store to `h` / `h[c]`, or `pthread_join(h or h[c])`; a
/// global one only in `main`.
pub(super) fn trackable_handles(prog: &Program, funcs: &[FuncId]) -> HashSet<VarId> {
    let mut ok: HashSet<VarId> = HashSet::new();
    let mut bad: HashSet<VarId> = HashSet::new();
    for &f in funcs {
        let Some(body) = &prog.func(f).body else { continue };
        let in_main = prog.main == Some(f);
        walk_stmts(body, &mut |s| {
            // Top-level expressions of `s` that are allowed uses of a handle.
            let mut allowed: Vec<*const Expr> = vec![];
            let mut mark = |h: Option<HandleLoc>, top: &Expr| {
                if let Some((v, _)) = h {
                    if prog.var(v).is_global() && !in_main {
                        bad.insert(v);
                    } else {
                        ok.insert(v);
                    }
                    allowed.push(top as *const Expr);
                }
            };
            match &s.kind {
                StmtKind::Spawn { tid: Some(t), .. } => {
                    if let ExprKind::AddrOf(inner) = &strip_casts(t).kind {
                        mark(handle_form(inner), t);
                    }
                }
                StmtKind::Join { tid, .. } => mark(handle_form(tid), tid),
                StmtKind::Assign { lhs, rhs } => {
                    mark(handle_form(lhs), lhs);
                    if matches!(lhs.kind, ExprKind::Var(_)) {
                        mark(handle_form(rhs), rhs);
                    }
                }
                _ => {}
            }
            // Every other occurrence of a variable disqualifies it.
            for_each_expr(s, &mut |e| {
                if allowed.iter().any(|&a| std::ptr::eq(a, e)) {
                    return;
                }
                e.visit(&mut |x| {
                    if let ExprKind::Var(v) = x.kind {
                        bad.insert(v);
                    }
                });
            });
        });
    }
    // (a handle's address is taken by `pthread_create`: others are plain temporaries)
    ok.retain(|v| !bad.contains(v) && prog.var(*v).address_taken && !matches!(prog.var(*v).storage, Storage::ThreadLocal));
    ok
}

/// Dataflow facts on entry to a node (must-information: meet is intersection).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Facts {
    handles: BTreeMap<HandleLoc, ThreadId>,
    temps: BTreeMap<VarId, ThreadId>,
    joined: BTreeSet<ThreadId>,
    /// Harness assumption passed, its fence not yet.
    assumed: BTreeSet<ThreadId>,
}

impl super::dataflow::Meet for Facts {
    fn meet(&mut self, o: &Facts) -> bool {
        let before = self.clone();
        self.handles.retain(|k, t| o.handles.get(k) == Some(t));
        self.temps.retain(|k, t| o.temps.get(k) == Some(t));
        self.joined.retain(|t| o.joined.contains(t));
        self.assumed.retain(|t| o.assumed.contains(t));
        *self != before
    }
}

/// Inputs of the analysis, for the whole program.
pub(super) struct Input<'a> {
    pub prog: &'a Program,
    pub threads: &'a [Thread],
    pub cfgs: &'a [Cfg],
    pub node_events: &'a HashMap<(ThreadId, usize), Vec<EventId>>,
}

/// Per event, the threads certainly finished before it (sorted), indexed by event.
pub(super) fn after_joins(inp: &Input, n_events: usize) -> Vec<Vec<ThreadId>> {
    let once: HashMap<(FuncId, Loc), ThreadId> = inp
        .threads
        .iter()
        .enumerate()
        .filter(|(_, t)| t.instances == Instances::Count(1))
        .map(|(i, t)| ((t.func, t.loc), ThreadId(i as u32)))
        .collect();
    let harness = harness_counters(inp);
    let mut out: Vec<Option<BTreeSet<ThreadId>>> = vec![None; n_events];
    for (t, cfg) in inp.cfgs.iter().enumerate() {
        let tid = ThreadId(t as u32);
        let state = solve(cfg, &once, &harness, tid);
        for (n, facts) in state.iter().enumerate() {
            let Some(evs) = inp.node_events.get(&(tid, n)) else { continue };
            // An unreachable node: nothing known (its events never happen anyway).
            let joined = facts.as_ref().map(|f| f.joined.clone()).unwrap_or_default();
            for e in evs {
                match &mut out[e.0 as usize] {
                    Some(s) => s.retain(|x| joined.contains(x)),
                    slot @ None => *slot = Some(joined.clone()),
                }
            }
        }
    }
    out.into_iter().map(|s| s.unwrap_or_default().into_iter().collect()).collect()
}

fn solve(
    cfg: &Cfg,
    once: &HashMap<(FuncId, Loc), ThreadId>,
    harness: &HashMap<(VarId, i128), Vec<ThreadId>>,
    me: ThreadId,
) -> Vec<Option<Facts>> {
    if cfg.nodes.is_empty() {
        return vec![];
    }
    super::dataflow::fixpoint(cfg.nodes.len(), vec![(0, Facts::default())], |n, entry, work| {
        let out = transfer(cfg, n, entry, once, harness, me);
        for &(m, _) in &cfg.succ[n] {
            work.push((m, out.clone()));
        }
    })
}

fn transfer(
    cfg: &Cfg,
    n: usize,
    mut f: Facts,
    once: &HashMap<(FuncId, Loc), ThreadId>,
    harness: &HashMap<(VarId, i128), Vec<ThreadId>>,
    me: ThreadId,
) -> Facts {
    let op = cfg.sync.get(&n);
    // A temporary redefined by anything but a handle load no longer holds a thread id.
    let def = match &cfg.nodes[n] {
        NodeKind::Local { def, .. } | NodeKind::Access { def, .. } => *def,
        _ => None,
    };
    if let Some(d) = def {
        f.temps.remove(&d);
    }
    match op {
        Some(SyncOp::Spawn { thread, handle }) => {
            if let Some(h) = handle {
                match thread.and_then(|k| once.get(&k)) {
                    Some(&t) => {
                        f.handles.insert(*h, t);
                    }
                    None => {
                        f.handles.remove(h);
                    }
                }
            }
        }
        Some(SyncOp::Store(v)) => f.handles.retain(|(x, _), _| x != v),
        Some(SyncOp::Load { handle, temp }) => {
            if let Some(&t) = f.handles.get(handle) {
                f.temps.insert(*temp, t);
            }
        }
        Some(SyncOp::Join { handle, temp }) => {
            let t = handle.and_then(|h| f.handles.get(&h).copied()).or_else(|| temp.and_then(|v| f.temps.get(&v).copied()));
            if let Some(t) = t {
                f.joined.insert(t);
            }
        }
        Some(SyncOp::AssumeCount { var, n }) => {
            if let Some(ts) = harness.get(&(*var, *n)) {
                f.assumed.extend(ts.iter().copied().filter(|&t| t != me));
            }
        }
        Some(SyncOp::Barrier) => {
            if matches!(cfg.nodes[n], NodeKind::Fence(fence) if full_everywhere(fence)) {
                let a = std::mem::take(&mut f.assumed);
                f.joined.extend(a);
            }
        }
        Some(SyncOp::Increment { .. } | SyncOp::OtherWrite(_)) | None => {}
    }
    f
}

/// The harness counters `v` with the value `n` that means "these threads are done".
fn harness_counters(inp: &Input) -> HashMap<(VarId, i128), Vec<ThreadId>> {
    // Per counter: increments (thread, node, in loop); disqualified counters.
    let mut incs: BTreeMap<VarId, Vec<(ThreadId, usize, bool)>> = BTreeMap::new();
    let mut bad: BTreeSet<VarId> = BTreeSet::new();
    let mut tests: BTreeSet<(VarId, i128)> = BTreeSet::new();
    for (t, cfg) in inp.cfgs.iter().enumerate() {
        for (&n, op) in &cfg.sync {
            match op {
                SyncOp::Increment { var, in_loop } => incs.entry(*var).or_default().push((ThreadId(t as u32), n, *in_loop)),
                SyncOp::OtherWrite(v) => {
                    bad.insert(*v);
                }
                SyncOp::AssumeCount { var, n } => {
                    tests.insert((*var, *n));
                }
                _ => {}
            }
        }
    }
    let mut out = HashMap::new();
    for (v, n) in tests {
        let var = inp.prog.var(v);
        let zero_init = match &var.init {
            None => true,
            Some(Init::Expr(e)) => matches!(strip_casts(e).kind, ExprKind::Const(0)),
            Some(Init::List(_)) => false,
        };
        if bad.contains(&v) || var.address_taken || !zero_init || !is_counter(inp.prog, v) {
            continue;
        }
        let sites = incs.get(&v).map(Vec::as_slice).unwrap_or(&[]);
        if n <= 0 || sites.len() as i128 != n {
            continue;
        }
        let mut threads: Vec<ThreadId> = sites.iter().map(|s| s.0).collect();
        threads.sort_unstable();
        threads.dedup();
        let each_ok = threads.len() == sites.len()
            && sites.iter().all(|&(t, node, in_loop)| {
                !in_loop
                    && inp.threads[t.0 as usize].instances == Instances::Count(1)
                    && ends_fenced(&inp.cfgs[t.0 as usize], node)
            });
        if each_ok {
            out.insert((v, n), threads);
        }
    }
    out
}

/// No access is reachable from `node`, and every path from an access to `node` crosses a
/// full fence statement.
fn ends_fenced(cfg: &Cfg, node: usize) -> bool {
    let is_access = |n: usize| matches!(cfg.nodes[n], NodeKind::Access { .. });
    let is_full_fence = |n: usize| {
        matches!(cfg.sync.get(&n), Some(SyncOp::Barrier)) && matches!(cfg.nodes[n], NodeKind::Fence(f) if full_everywhere(f))
    };
    // forwards (through back-edges too): no access after the increment
    let mut seen = vec![false; cfg.nodes.len()];
    let mut stack: Vec<usize> = cfg.succ[node].iter().map(|&(m, _)| m).collect();
    while let Some(m) = stack.pop() {
        if std::mem::replace(&mut seen[m], true) {
            continue;
        }
        if is_access(m) || m == node {
            return false;
        }
        stack.extend(cfg.succ[m].iter().map(|&(k, _)| k));
    }
    // backwards, stopping at full fences: no access
    let mut preds: Vec<Vec<usize>> = vec![vec![]; cfg.nodes.len()];
    for (a, succ) in cfg.succ.iter().enumerate() {
        for &(b, _) in succ {
            preds[b].push(a);
        }
    }
    let mut seen = vec![false; cfg.nodes.len()];
    let mut stack = preds[node].clone();
    while let Some(m) = stack.pop() {
        if std::mem::replace(&mut seen[m], true) || is_full_fence(m) {
            continue;
        }
        if is_access(m) {
            return false;
        }
        stack.extend(preds[m].iter().copied());
    }
    true
}

#[cfg(test)]
mod tests;
