//! Compiles C11/GCC atomic operations, portable barriers and library locks into what the
//! chosen architecture executes (the rows of [`crate::arch::c11`]), so that every later
//! stage sees hardware: plain accesses, native fences and instructions that order by
//! themselves ([`HwOrder`]).
//!
//! * An atomic load or store becomes an ordinary shared access — relaxed and acquire/release
//!   accesses are delayed and reordered like any other — between the barriers of its row.
//! * A read-modify-write stays one atomic [`StmtKind::Rmw`] (no write to its location comes
//!   between its read and its write), with its row's barriers around it; its `order` is kept
//!   for printing only and orders nothing by itself any more.
//! * `__atomic_thread_fence`/`__sync_synchronize` become the row's native barrier.
//! * `pthread_mutex_lock`/`unlock` (and the other locks the front end reads as
//!   [`StmtKind::Lock`]/[`StmtKind::Unlock`]) get the barriers of an acquire/release
//!   read-modify-write, as glibc implements them ([`crate::arch::c11::Mapping::lock`]); with
//!   [`LockModel::Full`] every lock operation is a full barrier instead (goto-instrument's
//!   and the ESOP suite's assumption). Mutual exclusion itself is the verifier's.

use crate::arch::c11::{self, Mapping, Op, Row};
use crate::arch::Arch;
use crate::ir::*;
use crate::source::Loc;

/// What a lock operation orders.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum LockModel {
    /// As the C library implements it on the architecture (acquire on lock, release on
    /// unlock).
    #[default]
    Real,
    /// A full barrier before and after every lock and unlock.
    Full,
}

#[derive(Copy, Clone, Debug, Default)]
pub struct Options {
    pub locks: LockModel,
    /// AArch64 acquire loads are `LDAPR` (RCpc) instead of `LDAR`.
    pub ldapr: bool,
}

/// The mapping used for `arch` under `opts`.
pub fn mapping(arch: &Arch, opts: &Options) -> &'static Mapping {
    if opts.ldapr && std::ptr::eq(arch.c11, &c11::AARCH64) {
        &c11::AARCH64_RCPC
    } else {
        arch.c11
    }
}

/// Compiles every atomic operation, portable barrier and lock of `prog` for `arch`.
pub fn compile(prog: &mut Program, arch: &Arch, opts: &Options) {
    let m = mapping(arch, opts);
    for f in 0..prog.funcs.len() {
        let Some(body) = prog.funcs[f].body.take() else { continue };
        let mut c = Compiler { prog, func: FuncId(f as u32), map: m, opts };
        let body = c.block(body);
        prog.funcs[f].body = Some(body);
    }
}

struct Compiler<'a> {
    prog: &'a mut Program,
    func: FuncId,
    map: &'static Mapping,
    opts: &'a Options,
}

fn fences(fs: &[Fence], loc: Loc, out: &mut Block) {
    out.extend(fs.iter().map(|&f| Stmt::new(StmtKind::Fence(f), loc)));
}

/// A lock operation that stays a library call in the IR: this pass gives it the lock's (or
/// the unlock's) ordering, the model checker its effect (`bmc::symex::sync`).
///
/// A timed form (`pthread_mutex_timedlock`, `sem_timedwait`, …) is its try form with the
/// timeout's error: in an interleaving semantics the moment of the attempt is already
/// arbitrary, and POSIX forbids a timeout when the lock can be taken at once, so "take it
/// when free, else possibly give up" is exactly what a deadline can do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LockCall {
    /// `pthread_mutex_trylock`, `pthread_spin_trylock` (fail: EBUSY), `mtx_trylock`
    /// (fail: `thrd_busy`); `pthread_mutex_timedlock` (ETIMEDOUT), `mtx_timedlock`
    /// (`thrd_timedout`).
    TryLock { busy: i32 },
    /// `pthread_rwlock_rdlock`; `fails`: what `_tryrdlock` or `_timedrdlock` return when
    /// they do not take it.
    ReadLock { fails: Option<i32> },
    /// `pthread_rwlock_wrlock`, `_trywrlock`, `_timedwrlock`.
    WriteLock { fails: Option<i32> },
    /// `pthread_rwlock_unlock`.
    RwUnlock,
    /// `sem_wait`, `sem_trywait`, `sem_timedwait` (both fail with -1; errno is not kept).
    SemWait { fails: Option<i32> },
    /// `sem_post`.
    SemPost,
    /// `pthread_barrier_wait`: arrive, then wait for the rest of the round. POSIX (XBD
    /// 4.12) makes it synchronise memory like a full barrier, and it gets that row.
    BarrierWait,
}

/// glibc's EBUSY and ETIMEDOUT, and C11's `thrd_busy` and `thrd_timedout` (glibc's
/// `<threads.h>` numbering).
const EBUSY: i32 = 16;
pub(crate) const ETIMEDOUT: i32 = 110;
const THRD_BUSY: i32 = 1;
const THRD_TIMEDOUT: i32 = 4;

impl LockCall {
    pub fn of(name: &str) -> Option<LockCall> {
        use LockCall::*;
        Some(match name {
            "pthread_mutex_trylock" | "pthread_spin_trylock" => TryLock { busy: EBUSY },
            "pthread_mutex_timedlock" => TryLock { busy: ETIMEDOUT },
            "mtx_trylock" => TryLock { busy: THRD_BUSY },
            "mtx_timedlock" => TryLock { busy: THRD_TIMEDOUT },
            "pthread_rwlock_rdlock" => ReadLock { fails: None },
            "pthread_rwlock_tryrdlock" => ReadLock { fails: Some(EBUSY) },
            "pthread_rwlock_timedrdlock" | "pthread_rwlock_clockrdlock" => ReadLock { fails: Some(ETIMEDOUT) },
            "pthread_rwlock_wrlock" => WriteLock { fails: None },
            "pthread_rwlock_trywrlock" => WriteLock { fails: Some(EBUSY) },
            "pthread_rwlock_timedwrlock" | "pthread_rwlock_clockwrlock" => WriteLock { fails: Some(ETIMEDOUT) },
            "pthread_rwlock_unlock" => RwUnlock,
            "sem_wait" => SemWait { fails: None },
            "sem_trywait" | "sem_timedwait" | "sem_clockwait" => SemWait { fails: Some(-1) },
            "sem_post" => SemPost,
            "pthread_barrier_wait" => BarrierWait,
            _ => return None,
        })
    }

    /// A release (the unlock's ordering) rather than an acquisition.
    pub fn releases(self) -> bool {
        matches!(self, LockCall::RwUnlock | LockCall::SemPost)
    }

    /// What the call returns when it did not take the lock, for the forms that try (or
    /// wait with a deadline) instead of waiting for good.
    pub fn fails_with(self) -> Option<i32> {
        match self {
            LockCall::TryLock { busy } => Some(busy),
            LockCall::ReadLock { fails } | LockCall::WriteLock { fails } | LockCall::SemWait { fails } => fails,
            _ => None,
        }
    }
}

/// The run-once calls [`Compiler::once`] expands.
const ONCE: &[&str] = &["pthread_once", "call_once"];

/// Calls that are system calls of the kernel's (named semaphores: glibc's `sem_open` creates
/// and links a file, `sem_unlink` unlinks it): a full barrier on every architecture, so that a
/// semaphore another thread opened is seen initialised.
const KERNEL_CALLS: &[&str] = &["sem_open", "sem_unlink"];

/// The condition-variable waits [`Compiler::cond_wait`] expands.
const COND_WAITS: &[&str] = &["pthread_cond_wait", "pthread_cond_timedwait"];


const FULL: Row = Row { op: Op::Rmw, order: MemOrder::SeqCst, before: &[Fence::Full], hw: HwOrder { acquire: Acquire::None, release: false }, after: &[Fence::Full], code: "full barrier" };

impl Compiler<'_> {
    fn block(&mut self, b: Block) -> Block {
        let mut out = Vec::with_capacity(b.len());
        for s in b {
            self.stmt(s, &mut out);
        }
        out
    }

    fn temp(&mut self, ty: Type, loc: Loc) -> VarId {
        let n = self.prog.vars.len();
        self.prog.add_var(Var { name: format!("__weakc_atomic{n}"), ty, storage: Storage::Temp { func: self.func }, init: None, address_taken: false, loc })
    }

    /// The row of a lock operation: the lock's (the unlock's when it releases), or full
    /// barriers under `--locks full`.
    fn lock_row(&self, release: bool) -> &'static Row {
        match (self.opts.locks, release) {
            (LockModel::Full, _) => &FULL,
            (LockModel::Real, false) => self.map.lock(),
            (LockModel::Real, true) => self.map.unlock(),
        }
    }

    /// `kind`, a lock operation, between the barriers of `row` and with its hardware order.
    fn lock_op(&self, kind: StmtKind, row: &Row, loc: Loc, out: &mut Block) {
        fences(row.before, loc, out);
        out.push(Stmt { hw: row.hw, ..Stmt::new(kind, loc) });
        fences(row.after, loc, out);
    }

    /// `pthread_cond_wait(c, m)`: the mutex released, then taken again, each with its row —
    /// glibc's wait unlocks with `pthread_mutex_unlock` and relocks with the lock's acquire
    /// CAS, so what the waiter reads after waking is ordered after the lock. Every wake-up is
    /// allowed (signals wake no one in particular, and POSIX allows spurious wake-ups), so
    /// the condition variable itself plays no part. `pthread_cond_timedwait` returns 0 or
    /// ETIMEDOUT, either way with the mutex held again.
    fn cond_wait(&mut self, timed: bool, args: Vec<Expr>, dest: Option<Expr>, loc: Loc, out: &mut Block) {
        let m = args[1].clone();
        // The mutex's address once, in a local: both halves name the same mutex.
        let t = self.temp(m.ty.clone(), loc);
        out.push(Stmt::new(StmtKind::Assign { lhs: Expr::var(t, m.ty.clone()), rhs: m.clone() }, loc));
        let p = Expr::var(t, m.ty);
        self.lock_op(StmtKind::Unlock(p.clone()), self.lock_row(true), loc, out);
        self.lock_op(StmtKind::Lock(p), self.lock_row(false), loc, out);
        let Some(d) = dest else { return };
        let rhs = if timed {
            let r = self.temp(d.ty.clone(), loc);
            let rv = Expr::var(r, d.ty.clone());
            out.push(Stmt::new(StmtKind::Assign { lhs: rv.clone(), rhs: Expr::new(ExprKind::Nondet, d.ty.clone()) }, loc));
            let is = |v: i128| Expr::new(ExprKind::Binary(BinOp::Eq, Box::new(rv.clone()), Box::new(Expr::new(ExprKind::Const(v), d.ty.clone()))), Type::INT);
            let either = Expr::new(ExprKind::Binary(BinOp::LogOr, Box::new(is(0)), Box::new(is(ETIMEDOUT as i128))), Type::INT);
            out.push(Stmt::new(StmtKind::Assume(either), loc));
            rv
        } else {
            Expr::new(ExprKind::Const(0), d.ty.clone())
        };
        out.push(Stmt::new(StmtKind::Assign { lhs: d, rhs }, loc));
    }

    /// `pthread_once(o, init)` and C11's `call_once(o, init)` as glibc implements them: an
    /// acquire load of the control word (0: not run, 1: running, 2: done); if not done, an
    /// acquire compare-and-swap from 0 to 1, whose winner calls `init` and then stores 2 with
    /// release, while the others wait (a spin loop of acquire loads) for 2. So `init` runs
    /// once, and whatever it wrote is seen by every caller after the call returns. (C11's
    /// `once_flag` is glibc's `struct { int __data; }`: its first cell.)
    fn once(&mut self, args: Vec<Expr>, dest: Option<Expr>, loc: Loc, out: &mut Block) {
        let mut args = args.into_iter();
        let (flag, init) = (args.next().expect("two arguments"), args.next().expect("two arguments"));
        let int_ptr = Type::ptr_to(Type::INT);
        let o = self.temp(int_ptr.clone(), loc);
        let ov = Expr::var(o, int_ptr.clone());
        let flag = if flag.ty == int_ptr { flag } else { Expr::new(ExprKind::Cast(Box::new(flag)), int_ptr) };
        out.push(Stmt::new(StmtKind::Assign { lhs: ov.clone(), rhs: flag }, loc));
        let st = self.temp(Type::INT, loc);
        let sv = Expr::var(st, Type::INT);
        let s = |kind| Stmt::new(kind, loc);
        let int = |v: i128| Expr::new(ExprKind::Const(v), Type::INT);
        let is = |v: i128, op| Expr::new(ExprKind::Binary(op, Box::new(sv.clone()), Box::new(int(v))), Type::INT);
        let rmw = |op, val: Expr, expected: Option<Expr>, dest: Option<Expr>, order| s(StmtKind::Rmw(Rmw { op, dest, ptr: ov.clone(), val, expected, order }));
        let load = || rmw(RmwOp::Load, int(0), None, Some(sv.clone()), MemOrder::Acquire);
        let callee = match init.kind {
            ExprKind::FuncAddr(f) => Callee::Direct(f),
            _ => Callee::Indirect(init),
        };
        let run = vec![s(StmtKind::Call { dest: None, callee, args: vec![] }), rmw(RmwOp::Store, int(2), None, None, MemOrder::Release)];
        let wait = vec![s(StmtKind::Loop { body: vec![load(), s(StmtKind::If { cond: is(2, BinOp::Eq), then_: vec![s(StmtKind::Break)], else_: vec![] })], latch: vec![] })];
        let claim = vec![
            rmw(RmwOp::CasVal, int(1), Some(int(0)), Some(sv.clone()), MemOrder::Acquire),
            s(StmtKind::If { cond: is(0, BinOp::Eq), then_: run, else_: wait }),
        ];
        let code = vec![load(), s(StmtKind::If { cond: is(2, BinOp::Ne), then_: claim, else_: vec![] })];
        let code = self.block(code);
        out.extend(code);
        if let Some(d) = dest {
            let zero = Expr::new(ExprKind::Const(0), d.ty.clone());
            out.push(Stmt::new(StmtKind::Assign { lhs: d, rhs: zero }, loc));
        }
    }

    fn stmt(&mut self, s: Stmt, out: &mut Block) {
        let loc = s.loc;
        let lock_call = match &s.kind {
            StmtKind::Call { callee: Callee::Direct(f), .. } => LockCall::of(&self.prog.func(*f).name),
            _ => None,
        };
        match s.kind {
            StmtKind::Rmw(r) => match r.op {
                RmwOp::Load => {
                    let row = self.map.row(Op::Load, r.order);
                    fences(row.before, loc, out);
                    let ty = r.ptr.ty.pointee().cloned().unwrap_or(Type::INT);
                    let cell = Expr::new(ExprKind::Deref(Box::new(r.ptr)), ty.clone());
                    // The read goes into a fresh local so that it is one access of its own
                    // (the destination may be shared memory, or a partial lvalue).
                    let t = self.temp(ty.clone(), loc);
                    out.push(Stmt { hw: row.hw, ..Stmt::new(StmtKind::Assign { lhs: Expr::var(t, ty.clone()), rhs: cell }, loc) });
                    fences(row.after, loc, out);
                    if let Some(d) = r.dest {
                        let v = Expr::var(t, ty);
                        let v = if v.ty == d.ty { v } else { Expr::new(ExprKind::Cast(Box::new(v)), d.ty.clone()) };
                        out.push(Stmt::new(StmtKind::Assign { lhs: d, rhs: v }, loc));
                    }
                }
                RmwOp::Store => {
                    let row = self.map.row(Op::Store, r.order);
                    fences(row.before, loc, out);
                    let ty = r.ptr.ty.pointee().cloned().unwrap_or(Type::INT);
                    let cell = Expr::new(ExprKind::Deref(Box::new(r.ptr)), ty);
                    out.push(Stmt { hw: row.hw, ..Stmt::new(StmtKind::Assign { lhs: cell, rhs: r.val }, loc) });
                    fences(row.after, loc, out);
                }
                _ => {
                    let row = self.map.row(Op::Rmw, r.order);
                    fences(row.before, loc, out);
                    out.push(Stmt { hw: row.hw, ..Stmt::new(StmtKind::Rmw(r), loc) });
                    fences(row.after, loc, out);
                }
            },
            StmtKind::Fence(f @ (Fence::Full | Fence::AcqRel | Fence::Acquire | Fence::Release)) => {
                let order = match f {
                    Fence::Full => MemOrder::SeqCst,
                    Fence::AcqRel => MemOrder::AcqRel,
                    Fence::Acquire => MemOrder::Acquire,
                    _ => MemOrder::Release,
                };
                let row = self.map.row(Op::Fence, order);
                if row.before.is_empty() {
                    // Nothing in hardware; the compiler still may not move accesses across.
                    out.push(Stmt::new(StmtKind::Fence(Fence::Compiler), loc));
                }
                fences(row.before, loc, out);
            }
            // A trylock is a lock that may fail: glibc's is an acquire compare-and-swap, whose
            // barrier follows it whether or not it took the lock (Power's `isync` after the
            // loop's exit label, AArch64's `ldaxr`).
            k @ StmtKind::Call { .. } if lock_call.is_some() => {
                let row = match lock_call {
                    Some(LockCall::BarrierWait) => &FULL,
                    _ => self.lock_row(lock_call.is_some_and(LockCall::releases)),
                };
                self.lock_op(k, row, loc, out)
            }
            k @ StmtKind::Call { callee: Callee::Direct(f), .. } if KERNEL_CALLS.contains(&self.prog.func(f).name.as_str()) => {
                self.lock_op(k, &FULL, loc, out)
            }
            StmtKind::Call { callee: Callee::Direct(f), args, dest } if ONCE.contains(&self.prog.func(f).name.as_str()) && args.len() == 2 => {
                self.once(args, dest, loc, out)
            }
            StmtKind::Call { callee: Callee::Direct(f), args, dest } if COND_WAITS.contains(&self.prog.func(f).name.as_str()) && args.len() >= 2 => {
                let timed = self.prog.func(f).name == "pthread_cond_timedwait";
                self.cond_wait(timed, args, dest, loc, out)
            }
            k @ (StmtKind::Lock(_) | StmtKind::Unlock(_)) => {
                let row = self.lock_row(matches!(k, StmtKind::Unlock(_)));
                self.lock_op(k, row, loc, out);
            }
            StmtKind::If { cond, then_, else_ } => {
                let (then_, else_) = (self.block(then_), self.block(else_));
                out.push(Stmt::new(StmtKind::If { cond, then_, else_ }, loc));
            }
            StmtKind::Loop { body, latch } => {
                let (body, latch) = (self.block(body), self.block(latch));
                out.push(Stmt::new(StmtKind::Loop { body, latch }, loc));
            }
            StmtKind::Block(b) => {
                let b = self.block(b);
                out.push(Stmt::new(StmtKind::Block(b), loc));
            }
            kind => out.push(Stmt { kind, ..s }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::by_name;
    use crate::source::SourceMap;

    fn compiled(src: &str, arch: &str, opts: Options) -> String {
        let mut map = SourceMap::default();
        let mut p = crate::frontend::load_str("t.c", src, &Default::default(), &mut map).expect("parses");
        compile(&mut p, by_name(arch).expect("arch"), &opts);
        let main = p.func_by_name("t").expect("t");
        let mut out = String::new();
        walk_stmts(p.func(main).body.as_ref().expect("body"), &mut |s| {
            let k = match &s.kind {
                StmtKind::Fence(f) => format!("fence {}", f.name()),
                StmtKind::Assign { lhs, .. } if matches!(lhs.kind, ExprKind::Deref(_)) => "store".into(),
                StmtKind::Assign { lhs: Expr { kind: ExprKind::Var(v), .. }, .. } if p.var(*v).is_global() => "store".into(),
                StmtKind::Assign { rhs, .. } if matches!(rhs.kind, ExprKind::Deref(_)) => "load".into(),
                StmtKind::Assign { .. } => "copy".into(),
                StmtKind::Rmw(_) => "rmw".into(),
                StmtKind::Lock(_) => "lock".into(),
                StmtKind::Unlock(_) => "unlock".into(),
                StmtKind::Return(_) => return,
                k => format!("{k:?}"),
            };
            let hw = match (s.hw.acquire, s.hw.release) {
                (Acquire::None, false) => String::new(),
                (a, r) => format!(" [{a:?}{}]", if r { " release" } else { "" }),
            };
            out.push_str(&format!("{k}{hw}; "));
        });
        out
    }

    const PROG: &str = "int x, y; void t(void) {\n\
        __atomic_store_n(&x, 1, __ATOMIC_RELEASE);\n\
        int r = __atomic_load_n(&y, __ATOMIC_ACQUIRE);\n\
        __atomic_fetch_add(&x, 1, __ATOMIC_RELAXED);\n\
        __atomic_thread_fence(__ATOMIC_ACQUIRE);\n\
        __atomic_thread_fence(__ATOMIC_SEQ_CST);\n\
    }\nint main() { t(); }\n";

    #[test]
    fn atomics_become_each_architectures_instructions() {
        let o = Options::default();
        assert_eq!(compiled(PROG, "tso", o), "store; load; copy; fence mfence; rmw; fence mfence; fence compiler barrier; fence mfence; ");
        assert_eq!(compiled(PROG, "power", o), "fence lwsync; store; load [CtrlIsync]; copy; rmw; fence lwsync; fence sync; ");
        assert_eq!(compiled(PROG, "arm", o), "fence dmb; store; load; fence dmb; copy; rmw; fence dmb; fence dmb; ");
        assert_eq!(compiled(PROG, "aarch64", o), "store [None release]; load [Sc]; copy; rmw; fence dmb ld; fence dmb; ");
        assert_eq!(compiled(PROG, "rmo", o), "fence membar #LoadStore|#StoreStore; store; load; fence dmb ld; copy; rmw; fence mfence; fence mfence; ");
        assert_eq!(compiled(PROG, "pso", o), "fence dmb st; store; load; copy; rmw; fence mfence; fence mfence; ");
        let rcpc = Options { ldapr: true, ..o };
        assert_eq!(compiled(PROG, "aarch64", rcpc), "store [None release]; load [Pc]; copy; rmw; fence dmb ld; fence dmb; ");
    }

    #[test]
    fn locks_are_acquire_release_unless_full_is_asked_for() {
        let src = "#include <pthread.h>\npthread_mutex_t m; int x; void t(void) { pthread_mutex_lock(&m); x = 1; pthread_mutex_unlock(&m); }\nint main() { t(); }\n";
        let o = Options::default();
        assert_eq!(compiled(src, "power", o), "lock [CtrlIsync]; store; fence lwsync; unlock; ");
        assert_eq!(compiled(src, "tso", o), "fence mfence; lock; fence mfence; store; fence mfence; unlock; fence mfence; ");
        assert_eq!(compiled(src, "aarch64", o), "lock [Sc]; store; unlock [None release]; ");
        let full = Options { locks: LockModel::Full, ..o };
        assert_eq!(compiled(src, "power", full), "fence full barrier; lock; fence full barrier; store; fence full barrier; unlock; fence full barrier; ");
    }
}
