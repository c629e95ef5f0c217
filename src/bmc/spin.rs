//! Side-effect-free spin loops, unrolled once instead of to the bound.
//!
//! A loop whose iterations that go round again change nothing — they only read memory, write
//! locals whose values no later code sees, and fence — can be entered once: an execution that
//! spins k times and then leaves is, with its k spinning iterations deleted, an execution
//! that leaves at once, and the deletion keeps it consistent on every model weakc encodes (SC,
//! TSO, PSO, RMO, Power, ARM, AArch64 are all acyclicity or emptiness conditions over
//! relations that only lose edges when reads and fences are deleted). Conversely the single
//! pass is the original's first iteration. So the path that would go round again is cut with
//! no loss, and with no unwinding assertion: the loop's bound no longer matters. Dat3M and
//! GenMC turn such loops into assumptions for the same reason; the long unrolled spins of
//! lock acquisition were most of the formula in real lock code.
//!
//! What a path that goes round again may do, checked on the IR path by path: assignments to
//! the function's own locals whose address is never taken, atomic loads into them, branches,
//! assertions and assumptions, fences, calls of defined functions that do no more (their own
//! locals are fresh per call), and yielding or sleeping library calls. A path that leaves the
//! loop (`break`, `return`) may do anything: only the last iteration takes it. A local
//! written in the loop must be written before it is read on every path from the loop's head
//! (its value at the head is never used), and, where code after the loop reads it, on every
//! path that leaves the loop by `break`. Loops with nested loops or labels are left alone.
//!
//! **Condition-wait loops** (`while (!ready) pthread_cond_wait(&c, &m);`, which
//! [`crate::atomics`] has made an unlock and a lock of the mutex) are the same but for that
//! wait, the last thing a pass that goes round does (what may follow it: [`fresh_suffix`]).
//! Such a loop is entered at most twice. An
//! execution that waits k > 1 times is, with everything the thread did from the relock of
//! its first wait to the unlock of its last deleted, one that waits once: the deleted part
//! holds the mutex, reads, writes the thread's own locals and fences, and its lock and
//! unlock are adjacent in the mutex's coherence order (the thread held it in between), so
//! every other thread's lock that read the deleted unlock reads the write before the
//! deleted lock instead, with the same value; what the others did during the intermediate
//! waits now happens during the one wait, where the mutex is free. Passes that go round
//! without waiting are spinning passes and are deleted as above. Every wait loop then has an
//! execution entering it at most twice (the second pass leaves), and nothing is lost.
use crate::ir::*;
use std::collections::{BTreeSet, HashMap};

/// Library calls that change no memory the program can see.
const NO_EFFECT_CALLS: &[&str] = &[
    "sched_yield",
    "pthread_yield",
    "sleep",
    "usleep",
    "nanosleep",
    "thrd_yield",
    // Dat3M's `await_while` annotations (`dat3m.h`).
    "__VERIFIER_loop_begin",
    "__VERIFIER_spin_start",
    "__VERIFIER_spin_end",
];

/// How deep calls inside a spin loop are followed before the loop is taken as an ordinary one.
const CALL_DEPTH: usize = 4;

/// How a loop is unrolled without losing executions, whatever the bound.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Reduction {
    /// A spin loop: entered once.
    Spin,
    /// A condition-wait loop: entered at most twice.
    Wait,
}

impl Reduction {
    /// The passes through the body symbolic execution makes before cutting the path that
    /// goes round again.
    pub fn passes(self) -> usize {
        match self {
            Reduction::Spin => 1,
            Reduction::Wait => 2,
        }
    }
}

/// The spin and condition-wait loops of `prog`, by the address of their `Loop` statement.
pub fn spin_loops(prog: &Program) -> HashMap<*const Stmt, Reduction> {
    let mut pure_funcs = HashMap::new();
    let mut out = HashMap::new();
    for (fi, f) in prog.funcs.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        let owner = FuncId(fi as u32);
        walk_stmts(body, &mut |s| {
            if let StmtKind::Loop { body: lb, latch } = &s.kind {
                // A body that ends with a wait has an unlock and a lock: never a spin loop.
                let wait = final_wait(prog, owner, lb);
                if is_spin(prog, owner, body, s, lb, latch, wait.as_ref().map_or(&[], |w| &w[..]), &mut pure_funcs) {
                    out.insert(s as *const Stmt, if wait.is_some() { Reduction::Wait } else { Reduction::Spin });
                }
            }
        });
    }
    out
}

/// The unlock and the relock of a wait that ends the loop body `body` (see the module
/// comment): an `Unlock` and a `Lock` of the same local mutex pointer with only fences
/// between, followed only by fences and assumptions and by assignments to the function's own
/// locals of fresh values, constants, or locals assigned there first.
fn final_wait(prog: &Program, owner: FuncId, body: &[Stmt]) -> Option<[*const Stmt; 2]> {
    let j = body.iter().rposition(|s| matches!(s.kind, StmtKind::Lock(_)))?;
    let i = body[..j].iter().rposition(|s| !matches!(s.kind, StmtKind::Fence(_)))?;
    let mutex = |s: &Stmt| match &s.kind {
        StmtKind::Lock(Expr { kind: ExprKind::Var(v), .. }) | StmtKind::Unlock(Expr { kind: ExprKind::Var(v), .. }) if own_local(prog, owner, *v) => Some(*v),
        _ => None,
    };
    let same = matches!(body[i].kind, StmtKind::Unlock(_)) && mutex(&body[i]).is_some() && mutex(&body[i]) == mutex(&body[j]);
    (same && fresh_suffix(prog, owner, &body[j + 1..], &mut BTreeSet::new())).then_some([&body[i] as *const Stmt, &body[j] as *const Stmt])
}

/// What may follow a wait in a condition-wait loop: fences, assumptions, assignments to the
/// function's own locals of fresh values (nondeterministic, constant, or computed from locals
/// assigned so, such as a timed wait's result), and branches on those whose arms are such
/// code or leave the loop. A pass that goes round thus depends on nothing it computed
/// before the wait, which is what lets passes be merged across the deleted span.
fn fresh_suffix(prog: &Program, owner: FuncId, stmts: &[Stmt], fresh: &mut BTreeSet<VarId>) -> bool {
    let reads_fresh = |e: &Expr, fresh: &BTreeSet<VarId>| {
        let mut vs = BTreeSet::new();
        vars_in(e, &mut vs);
        vs.is_subset(fresh)
    };
    let leaves = |b: &[Stmt]| matches!(b.last().map(|s| &s.kind), Some(StmtKind::Break | StmtKind::Return(_)));
    for s in stmts {
        match &s.kind {
            StmtKind::Fence(_) | StmtKind::Skip => {}
            StmtKind::Assume(e) if reads_fresh(e, fresh) => {}
            StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(v), .. }, rhs }
                if own_local(prog, owner, *v) && (matches!(rhs.kind, ExprKind::Nondet | ExprKind::Const(_)) || reads_fresh(rhs, fresh)) =>
            {
                fresh.insert(*v);
            }
            StmtKind::If { cond, then_, else_ } if reads_fresh(cond, fresh) => {
                for arm in [then_, else_] {
                    if !leaves(arm) && !fresh_suffix(prog, owner, arm, &mut fresh.clone()) {
                        return false;
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

fn is_spin(
    prog: &Program,
    owner: FuncId,
    func_body: &[Stmt],
    lp: &Stmt,
    body: &[Stmt],
    latch: &[Stmt],
    wait: &[*const Stmt],
    pure_funcs: &mut HashMap<FuncId, bool>,
) -> bool {
    let own_local = |v: VarId| own_local(prog, owner, v);
    // Control the must-write analysis below does not follow is refused outright.
    let mut followed = true;
    for block in [body, latch] {
        walk_stmts(block, &mut |s| followed &= !matches!(s.kind, StmtKind::Loop { .. } | StmtKind::Goto(_) | StmtKind::Label(..)));
    }
    if !followed {
        return false;
    }
    let mut written = BTreeSet::new();
    for block in [body, latch] {
        walk_stmts(block, &mut |s| {
            if let Some(Expr { kind: ExprKind::Var(v), .. }) = dest_of(s) {
                if own_local(*v) {
                    written.insert(*v);
                }
            }
        });
    }
    // Locals written in the loop that code outside it may read (every mention counts).
    let mut outside = BTreeSet::new();
    mentions_outside(func_body, lp, &mut outside);
    let live_after: BTreeSet<VarId> = written.intersection(&outside).copied().collect();
    let mut flow = Flow { prog, own_local: &own_local, pure_funcs, written: &written, live_after: &live_after, wait, ok: true, conts: vec![] };
    let end = flow.block(body, Some(Path::default()));
    let conts = std::mem::take(&mut flow.conts);
    let at_latch = conts.into_iter().fold(end, meet);
    // Whatever reaches the end of the latch goes round again: it must have changed nothing.
    if let Some(p) = flow.block(latch, at_latch) {
        flow.ok &= !p.effect;
    }
    flow.ok
}

fn own_local(prog: &Program, owner: FuncId, v: VarId) -> bool {
    let var = &prog.vars[v.0 as usize];
    matches!(var.storage, Storage::Local { func } | Storage::Temp { func } if func == owner) && !var.address_taken
}

/// The lvalue a statement assigns as a whole, if any.
pub(super) fn dest_of(s: &Stmt) -> Option<&Expr> {
    match &s.kind {
        StmtKind::Assign { lhs, .. } => Some(lhs),
        StmtKind::Rmw(r) => r.dest.as_ref(),
        StmtKind::Call { dest, .. } => dest.as_ref(),
        _ => None,
    }
}

/// Whether statement `s` (not its nested blocks) may change something a later iteration or
/// another thread could see: memory, a lock, a thread, or a local it does not own.
fn has_effect(prog: &Program, s: &Stmt, own_local: &dyn Fn(VarId) -> bool, pure_funcs: &mut HashMap<FuncId, bool>, depth: usize) -> bool {
    let local_dest = dest_of(s).is_none_or(|e| matches!(e.kind, ExprKind::Var(v) if own_local(v)));
    match &s.kind {
        StmtKind::Assign { .. } => !local_dest,
        StmtKind::Rmw(r) => r.op != RmwOp::Load || !local_dest,
        StmtKind::Call { callee: Callee::Direct(f), .. } => {
            let callee = prog.func(*f);
            let pure = match &callee.body {
                Some(b) => depth < CALL_DEPTH && pure_function(prog, *f, b, pure_funcs, depth + 1),
                None => NO_EFFECT_CALLS.contains(&callee.name.as_str()),
            };
            !(pure && local_dest)
        }
        StmtKind::If { .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(_)
        | StmtKind::Assert { .. }
        | StmtKind::Assume(_)
        | StmtKind::Fence(_)
        | StmtKind::Block(_)
        | StmtKind::Skip => false,
        StmtKind::Call { callee: Callee::Indirect(_), .. }
        | StmtKind::Loop { .. }
        | StmtKind::Goto(_)
        | StmtKind::Label(..)
        | StmtKind::AtomicBegin
        | StmtKind::AtomicEnd
        | StmtKind::Spawn { .. }
        | StmtKind::Join { .. }
        | StmtKind::Lock(_)
        | StmtKind::Unlock(_) => true,
    }
}

/// A defined function whose calls change nothing but its own (fresh) locals.
fn pure_function(prog: &Program, f: FuncId, body: &[Stmt], memo: &mut HashMap<FuncId, bool>, depth: usize) -> bool {
    if let Some(&p) = memo.get(&f) {
        return p;
    }
    // Recursion is rejected by the front end; the provisional `false` also ends any cycle.
    memo.insert(f, false);
    let own = |v: VarId| own_local(prog, f, v);
    let mut ok = true;
    walk_stmts(body, &mut |s| ok &= !has_effect(prog, s, &own, memo, depth));
    memo.insert(f, ok);
    ok
}

/// Every variable mentioned in `block` outside the statement `skip`.
fn mentions_outside(block: &[Stmt], skip: &Stmt, out: &mut BTreeSet<VarId>) {
    for s in block {
        if std::ptr::eq(s, skip) {
            continue;
        }
        for_each_expr(s, &mut |e| vars_in(e, out));
        match &s.kind {
            StmtKind::If { then_, else_, .. } => {
                mentions_outside(then_, skip, out);
                mentions_outside(else_, skip, out);
            }
            StmtKind::Loop { body, latch } => {
                mentions_outside(body, skip, out);
                mentions_outside(latch, skip, out);
            }
            StmtKind::Block(b) => mentions_outside(b, skip, out),
            _ => {}
        }
    }
}

fn vars_in(e: &Expr, out: &mut BTreeSet<VarId>) {
    e.visit(&mut |x| {
        if let ExprKind::Var(v) = x.kind {
            out.insert(v);
        }
    });
}

/// One path through the loop from its head: the locals it certainly wrote, and whether it
/// changed anything else (allowed only on a path that then leaves the loop).
#[derive(Clone, Default)]
struct Path {
    defined: BTreeSet<VarId>,
    effect: bool,
}

/// `None` where no path arrives.
type State = Option<Path>;

fn meet(a: State, b: State) -> State {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(Path { defined: a.defined.intersection(&b.defined).copied().collect(), effect: a.effect || b.effect }),
    }
}

/// Must-write and effect analysis of one pass through the loop.
struct Flow<'a> {
    prog: &'a Program,
    own_local: &'a dyn Fn(VarId) -> bool,
    pure_funcs: &'a mut HashMap<FuncId, bool>,
    written: &'a BTreeSet<VarId>,
    live_after: &'a BTreeSet<VarId>,
    /// The unlock and relock of the wait that ends the body of a condition-wait loop.
    wait: &'a [*const Stmt],
    ok: bool,
    conts: Vec<State>,
}

impl Flow<'_> {
    /// A local written in the loop must not be read before this pass wrote it.
    fn read(&mut self, e: &Expr, p: &Path) {
        let mut vs = BTreeSet::new();
        vars_in(e, &mut vs);
        self.ok &= vs.iter().all(|v| !self.written.contains(v) || p.defined.contains(v));
    }

    fn block(&mut self, block: &[Stmt], mut state: State) -> State {
        for s in block {
            let Some(mut p) = state else { return None };
            p.effect |= !self.wait.contains(&(s as *const Stmt)) && has_effect(self.prog, s, self.own_local, self.pure_funcs, 0);
            state = match &s.kind {
                StmtKind::If { cond, then_, else_ } => {
                    self.read(cond, &p);
                    let t = self.block(then_, Some(p.clone()));
                    let e = self.block(else_, Some(p));
                    meet(t, e)
                }
                StmtKind::Block(b) => self.block(b, Some(p)),
                StmtKind::Break => {
                    // Leaving the loop: what code after it reads must be this pass's value.
                    self.ok &= self.live_after.iter().all(|v| p.defined.contains(v));
                    None
                }
                StmtKind::Continue => {
                    self.conts.push(Some(p));
                    None
                }
                StmtKind::Return(e) => {
                    if let Some(e) = e {
                        self.read(e, &p);
                    }
                    None
                }
                _ => {
                    let dest = dest_of(s);
                    for_each_expr(s, &mut |e| {
                        // A whole local assigned is written, not read.
                        let whole_dest = dest.is_some_and(|d| std::ptr::eq(d, e)) && matches!(e.kind, ExprKind::Var(_));
                        if !whole_dest {
                            self.read(e, &p);
                        }
                    });
                    if let Some(Expr { kind: ExprKind::Var(v), .. }) = dest {
                        p.defined.insert(*v);
                    }
                    Some(p)
                }
            };
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceMap;

    /// For each loop of `main` in order: whether it is a spin loop.
    fn spins(body: &str) -> Vec<bool> {
        reductions(body, "").into_iter().map(|r| r == Some(Reduction::Spin)).collect()
    }

    /// For each loop of `main` in order, after the ordering pass for `arch` (which expands
    /// condition waits): how it is reduced.
    fn reductions(body: &str, arch: &str) -> Vec<Option<Reduction>> {
        let src = format!(
            "#include <stdatomic.h>\natomic_int x, y; int g;\nvoid __VERIFIER_loop_begin(void); void __VERIFIER_spin_start(void); void __VERIFIER_spin_end(int);\n#define await_while(cond) for (int tmp = (__VERIFIER_loop_begin(), 0); __VERIFIER_spin_start(), tmp = cond, __VERIFIER_spin_end(!tmp), tmp;)\nstatic int peek(void) {{ int t = atomic_load(&x); return t; }}\nstatic int poke(void) {{ g = 1; return 0; }}\nvoid use(int);\n#include <pthread.h>\npthread_mutex_t m; pthread_cond_t c;\nint main(void) {{ {body} return 0; }}\n"
        );
        let mut map = SourceMap::default();
        let mut p = crate::frontend::load_str("t.c", &src, &Default::default(), &mut map).expect("parses");
        if let Some(a) = crate::arch::by_name(arch) {
            crate::atomics::compile(&mut p, a, &Default::default());
        }
        let spin = spin_loops(&p);
        let main = p.func(p.main.unwrap()).body.as_ref().unwrap();
        let mut out = vec![];
        walk_stmts(main, &mut |s| {
            if matches!(s.kind, StmtKind::Loop { .. }) {
                out.push(spin.get(&(s as *const Stmt)).copied());
            }
        });
        out
    }

    #[test]
    fn condition_wait_loops_are_entered_at_most_twice() {
        const W: Option<Reduction> = Some(Reduction::Wait);
        for arch in ["sc", "tso", "power", "aarch64"] {
            assert_eq!(reductions("pthread_mutex_lock(&m); while (!atomic_load(&x)) pthread_cond_wait(&c, &m); pthread_mutex_unlock(&m);", arch), [W], "{arch}");
            assert_eq!(reductions("while (g == 0) { if (atomic_load(&y)) return 1; pthread_cond_wait(&c, &m); }", arch), [W], "{arch}");
            // A timed wait whose timeout leaves the loop.
            assert_eq!(reductions("struct timespec t; while (g == 0) { int rc = pthread_cond_timedwait(&c, &m, &t); if (rc == 110) break; }", arch), [W], "{arch}");
        }
        // Something that goes round after the wait and depends on what came before it, a
        // write, or a second wait: ordinary loops.
        assert_eq!(reductions("int n = 0; while (g == 0) { n = atomic_load(&x); pthread_cond_wait(&c, &m); if (n) break; }", "sc"), [None]);
        assert_eq!(reductions("while (g == 0) { atomic_store(&x, 1); pthread_cond_wait(&c, &m); }", "sc"), [None]);
        assert_eq!(reductions("while (g == 0) { pthread_cond_wait(&c, &m); pthread_cond_wait(&c, &m); }", "sc"), [None]);
        // Before the ordering pass the wait is a library call: an ordinary loop.
        assert_eq!(reductions("while (g == 0) pthread_cond_wait(&c, &m);", ""), [None]);
    }

    #[test]
    fn loops_that_only_read_and_fence_are_spin_loops() {
        assert_eq!(spins("while (atomic_load_explicit(&x, memory_order_relaxed) != 0) ;"), [true]);
        assert_eq!(spins("int r; do { r = atomic_load(&x); } while (r == 0); use(r);"), [true]);
        assert_eq!(spins("for (;;) { int r = atomic_load(&x); if (r) break; atomic_thread_fence(memory_order_acquire); }"), [true]);
        assert_eq!(spins("while (atomic_load(&x) >= 1) { if (atomic_load(&y) == 2) return 1; }"), [true]);
        assert_eq!(spins("while (peek() == 0) sched_yield();"), [true]);
        // Dat3M's annotated form (`dat3m.h`).
        assert_eq!(spins("await_while(atomic_load(&x) == 0) ;"), [true]);
    }

    #[test]
    fn loops_with_effects_or_carried_locals_are_not() {
        // A write to memory, an RMW, a call that writes.
        assert_eq!(spins("while (atomic_load(&x) == 0) g = 1;"), [false]);
        assert_eq!(spins("while (atomic_exchange(&x, 1) == 1) ;"), [false]);
        assert_eq!(spins("while (poke() == 0 && atomic_load(&x) == 0) ;"), [false]);
        // A local carried from one iteration to the next.
        assert_eq!(spins("int n = 0; while (atomic_load(&x) == 0) n = n + 1; use(n);"), [false]);
        // A local read after the loop that the leaving path does not write.
        assert_eq!(spins("int last = 0; while (atomic_load(&x) == 0) { last = atomic_load(&y); } use(last);"), [false]);
        // Nested loops are left to the ordinary unrolling.
        assert_eq!(spins("while (atomic_load(&x) == 0) { while (atomic_load(&y) == 0) ; }"), [false, true]);
        // A write on a path that goes round again, even if another path leaves.
        assert_eq!(spins("while (atomic_load(&x) == 0) { if (atomic_load(&y)) { g = 2; continue; } if (g) break; }"), [false]);
        assert_eq!(spins("while (atomic_load(&x) == 0) { if (atomic_load(&y)) g = 2; else return 1; }"), [false]);
    }

    #[test]
    fn effects_on_the_way_out_are_allowed() {
        assert_eq!(spins("while (atomic_load(&x) != 1) { if (atomic_load(&y)) { atomic_store(&x, 2); return 1; } }"), [true]);
        assert_eq!(spins("int r; for (;;) { r = atomic_load(&x); if (r) { g = r; break; } } use(r);"), [true]);
        assert_eq!(spins("while (atomic_load(&x) == 0) { if (atomic_load(&y)) { poke(); break; } }"), [true]);
    }
}
