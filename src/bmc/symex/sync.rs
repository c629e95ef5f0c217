//! Locks and atomic read-modify-writes: a read and a (conditional) write made one atomic
//! block; an unlock is a plain write.
//!
//! Separate because they are the statements whose meaning is atomicity rather than control
//! flow or a plain access.

use super::*;
use crate::atomics::LockCall;

impl<'p> Symex<'p> {
    pub(super) fn lock(&mut self, p: &Expr, loc: Loc) -> R<()> {
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

    pub(super) fn unlock(&mut self, p: &Expr, loc: Loc) -> R<()> {
        let addr = self.eval_ptr(p)?;
        self.cur_addr = self.taint_since(0);
        let roots = self.ptr_roots(p);
        let label = format!("*{}", expr_text(self.prog, p));
        self.step(loc, RawKind::Unlock);
        self.write_mem(addr, bv::constant(0, 32), &Type::INT, label, loc, roots.clone());
        Ok(())
    }

    /// A lock operation that is a library call ([`LockCall`]), as one atomic
    /// read-modify-write of the cell at the object's address; its ordering is the lock's or
    /// the unlock's (`crate::atomics`). A mutex is the 32-bit word [`Self::lock`] takes. A
    /// read-write lock or a semaphore is a 64-bit counter (the first cell of glibc's
    /// `pthread_rwlock_t` and `sem_t` unions, zero when initialised): for a lock, the readers
    /// holding it, or -1 while a writer does — taking it for reading waits for no writer, for
    /// writing for no holder at all, unlocking drops the caller's hold (a writer's, or one
    /// reader's); for a semaphore, its value — a wait waits for it to be positive and
    /// decrements it, a post increments it. The forms that try return 0, or
    /// [`LockCall::fails_with`], instead of waiting; the others return 0.
    pub(super) fn lock_call(&mut self, call: LockCall, addr: &Bv, p: &Expr, loc: Loc) -> Bv {
        use LockCall::*;
        if call == BarrierWait {
            return self.barrier_wait(addr, p, loc);
        }
        let roots = self.ptr_roots(p);
        let w = if matches!(call, TryLock { .. }) { 32 } else { 64 };
        let ty = Type::Int { bits: w as u8, signed: true };
        let label = format!("*{}", expr_text(self.prog, p));
        let writer = bv::constant(u64::MAX as u128, 64);
        let one = bv::constant(1, w);
        self.atomic_begin();
        let v = self.read_mem(addr.clone(), w, &ty, label.clone(), loc, roots.clone());
        let free = self.sat.bv_is_zero(&v);
        let negative = |sx: &mut Self| sx.sat.bv_slt(&v, &bv::constant(0, w));
        let (ok, new) = match call {
            TryLock { .. } => (free, one),
            ReadLock { .. } => (!negative(self), self.sat.bv_add(&v, &one)),
            WriteLock { .. } => (free, writer.clone()),
            RwUnlock => {
                let held_by_writer = self.sat.bv_eq(&v, &writer);
                let less = self.sat.bv_sub(&v, &one);
                (Lit::TRUE, self.sat.bv_ite(held_by_writer, &bv::constant(0, 64), &less))
            }
            SemWait { .. } => {
                let n = negative(self);
                (self.sat.and(!free, !n), self.sat.bv_sub(&v, &one))
            }
            SemPost => (Lit::TRUE, self.sat.bv_add(&v, &one)),
            BarrierWait => unreachable!("handled above"),
        };
        let result = match call.fails_with() {
            Some(busy) => {
                let _ = self.under(ok, |sx| {
                    sx.write_mem(addr.clone(), new, &ty, label, loc, roots);
                    Ok(())
                });
                self.sat.bv_ite(ok, &bv::constant(0, 32), &bv::constant(busy as u32 as u128, 32))
            }
            None => {
                if !call.releases() {
                    self.step(loc, RawKind::Lock);
                }
                self.state.guard = self.sat.and(self.state.guard, ok);
                self.write_mem(addr.clone(), new, &ty, label, loc, roots);
                bv::constant(0, 32)
            }
        };
        self.atomic_end();
        result
    }

    /// `pthread_barrier_wait`. The barrier is one 64-bit cell (the first of glibc's
    /// `pthread_barrier_t`): its count in the high half (set by `pthread_barrier_init`), the
    /// arrivals so far in the low half. A thread atomically takes a ticket `t` (the arrivals
    /// before it) and counts itself; then it waits for the arrivals to reach the end of its
    /// round, `(t / count + 1) * count`, so the barrier is reusable. The last thread of a
    /// round gets `PTHREAD_BARRIER_SERIAL_THREAD` (-1), the others 0. A barrier whose count is
    /// zero (never initialised) blocks for good in C and is an approximation site here, so
    /// that a bug hidden behind it is not silently cut.
    pub(super) fn barrier_wait(&mut self, addr: &Bv, p: &Expr, loc: Loc) -> Bv {
        let roots = self.ptr_roots(p);
        let ty = Type::LONG;
        let label = format!("*{}", expr_text(self.prog, p));
        self.atomic_begin();
        let v = self.read_mem(addr.clone(), 64, &ty, label.clone(), loc, roots.clone());
        let next = self.sat.bv_add(&v, &bv::constant(1, 64));
        self.write_mem(addr.clone(), next, &ty, label.clone(), loc, roots.clone());
        self.atomic_end();
        let (ticket, count) = (v[..32].to_vec(), v[32..].to_vec());
        let zero = self.sat.bv_is_zero(&count);
        let guard = self.sat.and(self.state.guard, zero);
        if guard != Lit::FALSE {
            self.approx_sites.push(ApproxSite { guard, loc, what: "waits on a barrier whose count is zero (not initialised)".into(), at: self.here() });
        }
        let (round, _) = self.sat.bv_udivrem(&ticket, &count);
        let round = self.sat.bv_add(&round, &bv::constant(1, 32));
        let end = self.sat.bv_mul(&round, &count);
        let last = self.sat.bv_add(&ticket, &bv::constant(1, 32));
        let serial = self.sat.bv_eq(&last, &end);
        let now = self.read_mem(addr.clone(), 64, &ty, label, loc, roots);
        let done = !self.sat.bv_ult(&now[..32], &end);
        self.step(loc, RawKind::Lock);
        self.state.guard = self.sat.and(self.state.guard, done);
        self.sat.bv_ite(serial, &bv::constant(u32::MAX as u128, 32), &bv::constant(0, 32))
    }

    pub(super) fn rmw(&mut self, r: &Rmw, loc: Loc) -> R<()> {
        use RmwOp::*;
        let ty = r.ptr.ty.pointee().cloned().unwrap_or(Type::INT);
        let ty = if ty.is_scalar() { ty } else { Type::INT };
        let w = width(&ty);
        let addr = self.eval_ptr(&r.ptr)?;
        let addr_taint = self.taint_since(0);
        let roots = self.ptr_roots(&r.ptr);
        self.note_width(&addr, w.div_ceil(8) as u64, loc, true, &roots);
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
}

/// Linux's `O_CREAT` and `O_EXCL` (`<fcntl.h>`); glibc's `SEM_FAILED` is the null pointer.
const O_CREAT: u128 = 0o100;
const O_EXCL: u128 = 0o200;

impl<'p> Symex<'p> {
    /// The directory entry of the named semaphore `name` (the name given to `sem_open` or
    /// `sem_unlink` as a string known at that point; `None` otherwise): one pointer cell,
    /// to the semaphore the name currently denotes, null while it denotes none.
    fn semaphore_name(&mut self, vals: &[Value]) -> R<Option<(Bv, String)>> {
        let Some(text) = vals.first().and_then(|v| v.first()).and_then(|p| self.literal_text(p)) else { return Ok(None) };
        let text: Vec<u8> = text.into_iter().take_while(|&b| b != 0).collect();
        let key = String::from_utf8_lossy(&text).into_owned();
        let label = format!("semaphore name {key:?}");
        let o = match self.semaphores.get(&key) {
            Some(&o) => o,
            None => {
                let o = self.new_object(label.clone(), ObjInit::Zero, None, Some(1), None)?;
                self.semaphores.insert(key, o);
                o
            }
        };
        Ok(Some((bv::constant((o as u128) << OFF_BITS, PTR_BITS), label)))
    }

    /// `sem_open(name, oflag[, mode, value])`: one atomic step (the kernel's) that returns
    /// the semaphore the name denotes, or — when it denotes none and `O_CREAT` asks — a new
    /// semaphore of `value` that the name then denotes; `SEM_FAILED` when the name denotes
    /// none without `O_CREAT` (ENOENT) or one with `O_CREAT | O_EXCL` (EEXIST). A semaphore is
    /// the 64-bit count `sem_wait` and `sem_post` take (as `sem_init`'s). Each call creates
    /// its own, so a name unlinked and created again is a new semaphore while earlier
    /// handles keep the old one, as in POSIX. `None`: the name is not known here (the call
    /// stays unmodelled).
    pub(super) fn sem_open(&mut self, vals: &[Value], loc: Loc) -> R<Option<Bv>> {
        let Some((entry, label)) = self.semaphore_name(vals)? else { return Ok(None) };
        let flags = vals.get(1).and_then(|v| v.first()).cloned().unwrap_or_else(|| bv::constant(0, 32));
        let bit = |sx: &mut Self, b: u128| {
            let m = sx.sat.bv_and(&flags, &bv::constant(b, flags.len()));
            !sx.sat.bv_is_zero(&m)
        };
        let (creat, excl) = (bit(self, O_CREAT), bit(self, O_EXCL));
        let value = match vals.get(3).and_then(|v| v.first()) {
            Some(v) => self.sat.bv_resize(v, 64, false),
            None => bv::constant(0, 64),
        };
        let name = format!("semaphore#{}", self.objects.len());
        let fresh = self.new_object(name.clone(), ObjInit::Zero, None, Some(1), None)?;
        let fresh = bv::constant((fresh as u128) << OFF_BITS, PTR_BITS);
        let ptr = Type::ptr_to(Type::Void);
        // The new semaphore is initialised before its name can lead to it (glibc fills a
        // file, then links it under the name): no architecture shows one without the other.
        // Until then only this call can reach it, so it is written whether or not it is used.
        self.write_mem(fresh.clone(), value, &Type::LONG, name, loc, None);
        self.fence(Fence::Full);
        self.atomic_begin();
        let cur = self.read_mem(entry.clone(), PTR_BITS, &ptr, label.clone(), loc, None);
        let exists = !self.sat.bv_is_zero(&cur);
        let create = self.sat.and(!exists, creat);
        self.under(create, |sx| {
            sx.write_mem(entry, fresh.clone(), &ptr, label, loc, None);
            Ok(())
        })?;
        self.atomic_end();
        let absent = self.sat.and(!exists, !creat);
        let exclusive = self.sat.and(creat, excl);
        let taken = self.sat.and(exists, exclusive);
        let fails = self.sat.or(absent, taken);
        let got = self.sat.bv_ite(exists, &cur, &fresh);
        Ok(Some(self.sat.bv_ite(fails, &bv::constant(0, PTR_BITS), &got)))
    }

    /// `sem_unlink(name)`: the name denotes no semaphore any more (0), or did not (-1,
    /// ENOENT); open handles keep working. `None` as for [`Self::sem_open`].
    pub(super) fn sem_unlink(&mut self, vals: &[Value], loc: Loc) -> R<Option<Bv>> {
        let Some((entry, label)) = self.semaphore_name(vals)? else { return Ok(None) };
        let ptr = Type::ptr_to(Type::Void);
        self.atomic_begin();
        let cur = self.read_mem(entry.clone(), PTR_BITS, &ptr, label.clone(), loc, None);
        let exists = !self.sat.bv_is_zero(&cur);
        self.under(exists, |sx| {
            sx.write_mem(entry, bv::constant(0, PTR_BITS), &ptr, label, loc, None);
            Ok(())
        })?;
        self.atomic_end();
        Ok(Some(self.sat.bv_ite(exists, &bv::constant(0, 32), &bv::constant(u32::MAX as u128, 32))))
    }
}
