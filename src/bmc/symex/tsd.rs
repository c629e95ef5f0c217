//! POSIX thread-specific data: `pthread_key_create`, `pthread_key_delete`,
//! `pthread_getspecific`, `pthread_setspecific`, and the destructors that run when a
//! thread ends.
//!
//! * **Keys are constants.** Each `pthread_key_create` the unwound program executes (each of
//!   its instances in symbolic execution) gets the next number. An instance runs at most
//!   once per execution, so the keys of one execution are distinct, which is all POSIX
//!   promises about their values. More than [`KEYS_MAX`] instances are refused with a
//!   diagnostic rather than answered with an `EAGAIN` the real system would not give.
//! * **Values are thread-local.** Only the thread itself reads or writes its values, so they
//!   live in its path state, one slot per key (an absent slot is NULL: a new thread's
//!   values and a new key's), and make no memory events. A slot is set under the path's
//!   guard (`ite(guard, new, old)`), so where paths meet, one that never set it takes the
//!   other's value unchanged, as the merge of path states does for any variable.
//! * **Destructors are shared.** A key's destructor is written by the creating thread and
//!   read by every thread that ends, so it lives in memory (one table object) and the SC
//!   encoding orders the creation before the reads.
//! * **Setting a key made later.** A key is only known once its creation has been executed
//!   symbolically, but threads run one after another there: a thread could set a key that a
//!   thread executed after it creates. Setting a key not yet made is therefore an
//!   unmodelled call: reachable, it makes the verdict unknown, never a wrong one.
//! * **Destructors at thread end.** When a thread other than `main` ends (returning from
//!   `main` is `exit`, which runs none), each key with a non-NULL value and destructor has
//!   its value set to NULL and its destructor called with the old value, in key order; this
//!   repeats while values are non-NULL, up to [`DESTRUCTOR_ROUNDS`] rounds, as glibc does.

use super::*;

/// glibc's `PTHREAD_KEYS_MAX`.
const KEYS_MAX: u32 = 1024;
/// glibc's `PTHREAD_DESTRUCTOR_ITERATIONS`.
const DESTRUCTOR_ROUNDS: usize = 4;
/// Variable ids of the value slots in `State::vars`, under the frame `TLS_FRAME + thread`.
const SLOT_BASE: u32 = 0xF000_0000;
const EINVAL: u128 = 22;

pub(super) const CALLS: &[&str] = &["pthread_key_create", "pthread_key_delete", "pthread_getspecific", "pthread_setspecific"];

#[derive(Default)]
pub(super) struct Keys {
    /// Keys handed out so far.
    created: u32,
    /// The object holding each key's destructor.
    table: Option<u32>,
    /// The functions passed as destructors, when every `pthread_key_create` names its
    /// destructor (or NULL) directly; otherwise any function may be one.
    destructors: Option<Vec<FuncId>>,
}

/// The functions `pthread_key_create` gets as destructors, or `None` when one of its calls
/// passes something other than a function or a null constant.
fn destructors(prog: &Program) -> Option<Vec<FuncId>> {
    let create = prog.func_by_name("pthread_key_create")?;
    let mut out = Some(vec![]);
    for f in &prog.funcs {
        let Some(body) = &f.body else { continue };
        walk_stmts(body, &mut |s| {
            let StmtKind::Call { callee: Callee::Direct(g), args, .. } = &s.kind else { return };
            if *g != create {
                return;
            }
            let mut e = args.get(1);
            while let Some(Expr { kind: ExprKind::Cast(x) | ExprKind::AddrOf(x), .. }) = e {
                e = Some(x);
            }
            match e.map(|e| &e.kind) {
                Some(ExprKind::FuncAddr(d)) => {
                    if let Some(v) = out.as_mut() {
                        v.push(*d)
                    }
                }
                Some(ExprKind::Const(0)) => {}
                _ => out = None,
            }
        });
    }
    out
}

impl Symex<'_> {
    /// Creates the destructor table when the program uses thread-specific data (during the
    /// creation of the globals, so that its object id is the same in every pass).
    pub(super) fn tsd_init(&mut self) -> R<()> {
        if self.prog.func_by_name("pthread_key_create").is_none() {
            return Ok(());
        }
        let o = self.new_object("pthread key destructors".into(), ObjInit::Zero, None, None, None)?;
        self.keys.table = Some(o);
        self.keys.destructors = destructors(self.prog);
        Ok(())
    }

    fn slot_key(&self, key: u32) -> VKey {
        (TLS_FRAME + self.ctx.thread as u32, SLOT_BASE + key)
    }

    fn slot(&self, key: u32) -> Bv {
        match self.state.vars.get(&self.slot_key(key)) {
            Some(v) => v[0].clone(),
            None => bv::constant(0, PTR_BITS),
        }
    }

    fn destructor_cell(&mut self, key: &Bv) -> R<Bv> {
        let table = self.keys.table.ok_or_else(|| Error::Internal("thread-specific data without its table".into()))?;
        let base = bv::constant((table as u128) << OFF_BITS, PTR_BITS);
        Ok(self.ptr_add(&base, key, false, 1, false))
    }

    /// One of [`CALLS`], with its arguments' values; returns the call's result.
    pub(super) fn tsd_call(&mut self, name: &str, args: &[Expr], vals: &[Value], loc: Loc) -> R<Bv> {
        let arg = |i: usize| -> R<Bv> {
            vals.get(i).and_then(|v| v.first()).cloned().ok_or_else(|| Error::unsupported(loc, format!("`{name}` with too few arguments")))
        };
        let ptr = Type::ptr_to(Type::Void);
        match name {
            "pthread_key_create" => {
                let at = arg(0)?;
                let dtor = self.sat.bv_resize(&arg(1)?, PTR_BITS, false);
                if self.dead() {
                    return Ok(bv::constant(0, 32));
                }
                let k = self.keys.created;
                if k >= KEYS_MAX {
                    return Err(Error::unsupported(loc, format!("more than {KEYS_MAX} `pthread_key_create` calls in the unwound program")));
                }
                self.keys.created += 1;
                let kty = args[0].ty.pointee().cloned().unwrap_or(Type::UINT);
                let label = format!("*{}", expr_text(self.prog, &args[0]));
                let roots = self.ptr_roots(&args[0]);
                self.write_mem(at, bv::constant(k as u128, width(&kty)), &kty, label, loc, roots);
                let cell = self.destructor_cell(&bv::constant(k as u128, 64))?;
                self.write_mem(cell, dtor, &ptr, format!("destructor of pthread key {k}"), loc, None);
                Ok(bv::constant(0, 32))
            }
            "pthread_key_delete" => {
                // No destructor runs for a deleted key.
                let key = self.sat.bv_resize(&arg(0)?, 32, false);
                let valid = self.sat.bv_ult(&key, &bv::constant(KEYS_MAX as u128, 32));
                let cell = self.destructor_cell(&key)?;
                self.under(valid, |sx| {
                    sx.write_mem(cell, bv::constant(0, PTR_BITS), &ptr, "destructor of a deleted pthread key".into(), loc, None);
                    Ok(())
                })?;
                Ok(self.sat.bv_ite(valid, &bv::constant(0, 32), &bv::constant(EINVAL, 32)))
            }
            "pthread_getspecific" => {
                let key = self.sat.bv_resize(&arg(0)?, 32, false);
                let mut out = bv::constant(0, PTR_BITS);
                for j in 0..self.keys.created {
                    let v = self.slot(j);
                    if as_const(&v) == Some(0) {
                        continue;
                    }
                    let is = self.sat.bv_eq(&key, &bv::constant(j as u128, 32));
                    out = self.sat.bv_ite(is, &v, &out);
                }
                Ok(out)
            }
            "pthread_setspecific" => {
                let key = self.sat.bv_resize(&arg(0)?, 32, false);
                let val = self.sat.bv_resize(&arg(1)?, PTR_BITS, false);
                if self.dead() {
                    return Ok(bv::constant(0, 32));
                }
                let made = self.sat.bv_ult(&key, &bv::constant(self.keys.created as u128, 32));
                for j in 0..self.keys.created {
                    let is = self.sat.bv_eq(&key, &bv::constant(j as u128, 32));
                    let here = self.sat.and(self.state.guard, is);
                    if here == Lit::FALSE {
                        continue;
                    }
                    let old = self.slot(j);
                    let new = self.sat.bv_ite(here, &val, &old);
                    let sk = self.slot_key(j);
                    self.state.vars.insert(sk, vec![new]);
                }
                self.unmade_key(name, made, loc);
                Ok(bv::constant(0, 32))
            }
            _ => Err(Error::Internal(format!("`{name}` is not a thread-specific-data call"))),
        }
    }

    /// A key not made yet in symbolic execution may be one a later thread makes: reaching
    /// this with such a key is reported as an unmodelled call (see the module comment).
    fn unmade_key(&mut self, name: &str, made: Lit, loc: Loc) {
        let unmade = self.sat.and(self.state.guard, !made);
        if unmade == Lit::FALSE {
            return;
        }
        let saved = self.state.guard;
        self.state.guard = unmade;
        self.step(loc, RawKind::Call { func: name.to_string() });
        self.arbitrary_unless(made, &format!("calls `{name}` on a key not yet created in symbolic-execution order, which is not modelled"));
        self.props.push(Prop {
            kind: PropertyKind::Assertion,
            loc,
            msg: format!("`{name}` on a key not yet created in symbolic-execution order (not modelled)"),
            viol: unmade,
        });
        let prop = self.props.len() - 1;
        self.step(loc, RawKind::Fail { prop });
        self.state.guard = self.sat.and(saved, made);
    }

    /// Runs the destructors of the ending thread's non-NULL values (see the module comment).
    pub(super) fn run_destructors(&mut self, loc: Loc) -> R<()> {
        for _ in 0..DESTRUCTOR_ROUNDS {
            let live = |sx: &Self, j: u32| as_const(&sx.slot(j)) != Some(0);
            if self.dead() || !(0..self.keys.created).any(|j| live(self, j)) {
                break;
            }
            // One round goes through the keys in order, so a value an earlier destructor
            // sets for a later key is destroyed in the same round (as glibc does).
            for j in 0..self.keys.created {
                if !live(self, j) {
                    continue;
                }
                let v = self.slot(j);
                let sk = self.slot_key(j);
                self.state.vars.insert(sk, vec![bv::constant(0, PTR_BITS)]);
                let cell = self.destructor_cell(&bv::constant(j as u128, 64))?;
                let f = self.read_mem(cell, PTR_BITS, &Type::ptr_to(Type::Void), format!("destructor of pthread key {j}"), loc, None);
                let (v_null, f_null) = (self.sat.bv_is_zero(&v), self.sat.bv_is_zero(&f));
                let call = self.sat.and(!v_null, !f_null);
                let targets = self.keys.destructors.clone();
                self.under(call, |sx| sx.indirect_call(None, &f, Args::Pointers(&[&v]), loc, targets.as_deref()))?;
            }
        }
        Ok(())
    }
}
