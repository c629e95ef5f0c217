//! Symbolic execution of calls (inlined, through pointers, of external functions the engine
//! models) and of thread creation and joining.

use super::*;

impl<'p> Symex<'p> {
    /// Inlines `f`; returns the merged return value.
    pub(super) fn inline_call(&mut self, f: FuncId, args: Vec<Value>, taints: Vec<Taint>, loc: Loc) -> R<(Option<Value>, Taint)> {
        let func = self.prog.func(f);
        let Some(body) = &func.body else {
            return Err(Error::Internal(format!("`{}` has no body", func.name)));
        };
        if self.ctx.frames.iter().any(|fr| fr.func == f) {
            return Err(Error::unsupported(loc, format!("recursive call of `{}`", func.name)));
        }
        if self.ctx.frames.len() > 200 {
            return Err(Error::unsupported(loc, "call depth over 200"));
        }
        let id = self.next_frame;
        self.next_frame += 1;
        self.ctx.frames.push(Frame { id, func: f, returns: vec![], labels: HashMap::new(), loops: vec![] });
        if self.ctx.thread == 0 && self.ctx.frames.len() == 1 {
            // Main's address-taken locals get their objects now, in a fixed order, so that
            // their ids are the same in every pass.
            for i in 0..self.prog.vars.len() {
                let v = VarId(i as u32);
                let var = self.prog.var(v);
                let mine = matches!(var.storage, Storage::Local { func } | Storage::Temp { func } if func == f);
                if mine && self.is_mem_var(v) && !matches!(var.ty, Type::Func(_)) {
                    self.var_object(v)?;
                }
            }
            self.stable_objs = self.objects.len() as u32;
        }
        for (i, &p) in func.params.iter().enumerate() {
            let pty = self.prog.var(p).ty.clone();
            let v = match args.get(i) {
                Some(v) if !v.is_empty() => v.clone(),
                _ => self.nondet_value(&pty),
            };
            let pe = Expr::var(p, pty);
            let place = self.place(&pe)?;
            self.cur_addr = Taint::default();
            self.cur_data = taints.get(i).cloned().unwrap_or_default();
            self.store(place, v, &pe, loc)?;
        }
        self.block(body)?;
        let fr = self.ctx.frames.pop().unwrap();
        let cur = std::mem::replace(&mut self.state, dead_state());
        let mut all = fr.returns;
        all.push(cur);
        self.state = self.merge(all, None);
        let ret = self.state.vars.remove(&(id, RETVAL));
        self.state.vars.retain(|k, _| k.0 != id);
        let ret_taint = self.state.taint.remove(&(id, RETVAL)).and_then(|v| v.into_iter().next()).unwrap_or_default();
        self.state.taint.retain(|k, _| k.0 != id);
        Ok((ret, ret_taint))
    }

    pub(super) fn call(&mut self, dest: Option<&Expr>, callee: &Callee, args: &[Expr], loc: Loc) -> R<()> {
        let f = match callee {
            Callee::Direct(f) => Some(*f),
            Callee::Indirect(e) => {
                let p = self.eval_ptr(e)?;
                match as_const(&p) {
                    Some(v) if (v >> OFF_BITS) >= FUNC_BASE => {
                        let f = FuncId(((v >> OFF_BITS) - FUNC_BASE) as u32);
                        if self.ctx.frames.iter().any(|fr| fr.func == f) {
                            // recursion through the pointer: see `indirect_call`
                            return self.indirect_call(dest, &p, Args::Exprs(args), loc, Some(&[f]));
                        }
                        Some(f)
                    }
                    Some(_) => {
                        // A call through a null or data pointer: the path cannot go on.
                        self.state.guard = Lit::FALSE;
                        return Ok(());
                    }
                    None => {
                        // The points-to analysis (when its assumptions hold) bounds the
                        // functions the pointer can hold; without it, any function can.
                        let targets = self.alias.as_ref().map(|(a, _)| a.call_targets(self.prog, e).0);
                        return self.indirect_call(dest, &p, Args::Exprs(args), loc, targets.as_deref());
                    }
                }
            }
        };
        let f = f.unwrap();
        self.direct_call(dest, f, Args::Exprs(args), loc)
    }

    pub(super) fn indirect_call(&mut self, dest: Option<&Expr>, p: &Bv, args: Args, loc: Loc, targets: Option<&[FuncId]>) -> R<()> {
        let g = self.state.guard;
        let mut outs = vec![];
        let mut any = Lit::FALSE;
        for (i, f) in self.prog.funcs.iter().enumerate() {
            if f.body.is_none() || (f.params.len() != args.len() && !f.ty.variadic) {
                continue;
            }
            if targets.is_some_and(|t| !t.contains(&FuncId(i as u32))) {
                continue;
            }
            let fp = bv::constant((FUNC_BASE + i as u128) << OFF_BITS, PTR_BITS);
            let c = self.sat.bv_eq(p, &fp);
            let gc = self.sat.and(g, c);
            if gc == Lit::FALSE {
                continue;
            }
            any = self.sat.or(any, c);
            if self.ctx.frames.iter().any(|fr| fr.func == FuncId(i as u32)) {
                // Recursion through a function pointer is not unwound: reaching it is an
                // unwinding assertion (the path is cut without them), as CBMC does for a
                // recursion past its bound. Mostly such a call cannot happen at all (the
                // pointer never holds that function) and the solver shows it.
                if self.opts.unwinding_assertions {
                    let saved = self.state.guard;
                    self.state.guard = gc;
                    self.props.push(Prop {
                        kind: PropertyKind::UnwindingAssertion,
                        loc,
                        msg: format!("recursion unwinding assertion: call of `{}` through a pointer", f.name),
                        viol: gc,
                    });
                    let prop = self.props.len() - 1;
                    self.step(loc, RawKind::Fail { prop });
                    self.state.guard = saved;
                } else {
                    self.cuts.push(gc);
                }
                continue;
            }
            let saved = self.state.clone();
            self.state.guard = gc;
            self.direct_call(dest, FuncId(i as u32), args, loc)?;
            outs.push(std::mem::replace(&mut self.state, saved));
        }
        // No matching function: the call is undefined; the path stops.
        let _ = any;
        self.state = self.merge(outs, None);
        Ok(())
    }

    pub(super) fn direct_call(&mut self, dest: Option<&Expr>, f: FuncId, args: Args, loc: Loc) -> R<()> {
        let func = self.prog.func(f);
        let mut vals = vec![];
        let mut taints = vec![];
        match args {
            Args::Exprs(args) if func.body.is_none() => return self.external_call(dest, &func.name, args, loc),
            Args::Exprs(args) => {
                for (i, a) in args.iter().enumerate() {
                    match func.params.get(i) {
                        Some(&p) => {
                            let pty = self.prog.var(p).ty.clone();
                            let mark = self.acc.len();
                            vals.push(self.eval_as_value(a, &pty)?);
                            taints.push(self.taint_since(mark));
                        }
                        None => {
                            self.eval(a)?;
                        }
                    }
                }
            }
            Args::Pointers(_) if func.body.is_none() => return Err(Error::Internal(format!("`{}` has no body", func.name))),
            Args::Pointers(args) => {
                for (&a, &p) in args.iter().zip(&func.params) {
                    let pty = self.prog.var(p).ty.clone();
                    let v = if pty.is_scalar() { vec![self.convert(a, &Type::ptr_to(Type::Void), &pty)] } else { self.nondet_value(&pty) };
                    vals.push(v);
                }
            }
        }
        self.step(loc, RawKind::Call { func: func.name.clone() });
        self.path.push(self.cur_stmt_ptr);
        let ret = self.inline_call(f, vals, taints, loc);
        self.path.pop();
        let (ret, ret_taint) = ret?;
        if let Some(d) = dest {
            let rt = func.ty.ret.clone();
            let v = match ret {
                Some(v) if rt.is_scalar() && d.ty.is_scalar() && !v.is_empty() => vec![self.convert(&v[0], &rt, &d.ty)],
                Some(v) => v,
                None => self.nondet_value(&d.ty),
            };
            let mark = self.acc.len();
            let place = self.place(d)?;
            self.cur_addr = self.taint_since(mark);
            self.cur_data = ret_taint;
            self.store(place, v, d, loc)?;
        }
        Ok(())
    }

    pub(super) fn external_call(&mut self, dest: Option<&Expr>, name: &str, args: &[Expr], loc: Loc) -> R<()> {
        let mut vals = vec![];
        // Where each argument's reads start in `acc`: a copy's accesses depend on them.
        let mut marks = vec![];
        for a in args {
            marks.push(self.acc.len());
            let v = if a.ty.is_scalar() || matches!(a.ty, Type::Array(..)) {
                vec![self.eval_as(a, &if matches!(a.ty, Type::Array(..)) { Type::ptr_to(Type::Void) } else { a.ty.clone() })?]
            } else {
                self.eval(a)?
            };
            vals.push(v);
        }
        let mut approx = false;
        let ptr_args = args.iter().any(|a| a.ty.is_pointer() || matches!(a.ty, Type::Array(..)));
        let const_arg = |i: usize| vals.get(i).and_then(|v| v.first()).and_then(|b| as_const(b));
        let math = self.math_call(name, args, &vals);
        let result_ty = math.as_ref().map(|m| m.1.clone());
        let lock_call = crate::atomics::LockCall::of(name);
        let result: Option<Bv> = match name {
            _ if math.is_some() => math.map(|m| m.0),
            "malloc" | "__builtin_malloc" | "alloca" | "__builtin_alloca" | "valloc" | "calloc" | "realloc" => {
                let n = self.objects.len();
                let init = if name == "calloc" { ObjInit::Zero } else { ObjInit::Nondet };
                // Every cell takes a byte at least, so the bytes asked for bound the offsets.
                let bytes = match name {
                    "calloc" => const_arg(0).zip(const_arg(1)).and_then(|(n, s)| n.checked_mul(s)),
                    "realloc" => const_arg(1),
                    _ => const_arg(0),
                };
                // Laid out as the pointer it is assigned to sees it (a `char *` block is bytes,
                // an `int *` one ints): byte pointers then move through it by that layout.
                let cell_ty = match dest.map(|d| &d.kind) {
                    Some(ExprKind::Var(v)) => self.prepared.alloc_types.get(v).cloned(),
                    _ => None,
                };
                let o = self.new_object(format!("{name}#{n}"), init, Some(ObjRoot::Heap(self.cur_stmt)), bytes, cell_ty.as_ref())?;
                if name == "realloc" {
                    self.warn(loc, "realloc returns fresh memory; the old contents are not copied");
                    approx = true;
                }
                Some(bv::constant((o as u128) << OFF_BITS, PTR_BITS))
            }
            "free" | "__builtin_free" => None,
            "pthread_mutex_lock" | "pthread_mutex_unlock" | "pthread_spin_lock" | "pthread_spin_unlock" if args.len() == 1 => {
                if name.ends_with("_lock") {
                    self.lock(&args[0], loc)?;
                } else {
                    self.unlock(&args[0], loc)?;
                }
                Some(bv::constant(0, 32))
            }
            _ if lock_call.is_some() && !args.is_empty() => lock_call.map(|c| self.lock_call(c, &vals[0][0], &args[0], loc)),
            "sem_init" if args.len() == 3 => {
                let label = format!("*{}", expr_text(self.prog, &args[0]));
                let v = self.sat.bv_resize(&vals[2][0], 64, false);
                self.write_mem(vals[0][0].clone(), v, &Type::LONG, label, loc, None);
                Some(bv::constant(0, 32))
            }
            "sem_getvalue" if args.len() == 2 => {
                let label = format!("*{}", expr_text(self.prog, &args[0]));
                let v = self.read_mem(vals[0][0].clone(), 64, &Type::LONG, label, loc, self.ptr_roots(&args[0]));
                let v = self.sat.bv_resize(&v, 32, true);
                let out = format!("*{}", expr_text(self.prog, &args[1]));
                self.write_mem(vals[1][0].clone(), v, &Type::INT, out, loc, self.ptr_roots(&args[1]));
                Some(bv::constant(0, 32))
            }
            "pthread_rwlock_init" if !vals.is_empty() => {
                let label = format!("*{}", expr_text(self.prog, &args[0]));
                self.write_mem(vals[0][0].clone(), bv::constant(0, 64), &Type::LONG, label, loc, None);
                Some(bv::constant(0, 32))
            }
            "pthread_barrier_init" if args.len() == 3 => {
                let label = format!("*{}", expr_text(self.prog, &args[0]));
                let count = self.sat.bv_resize(&vals[2][0], 32, false);
                let v: Bv = bv::constant(0, 32).into_iter().chain(count).collect();
                self.write_mem(vals[0][0].clone(), v, &Type::LONG, label, loc, None);
                Some(bv::constant(0, 32))
            }
            "sem_open" if args.len() >= 2 => self.sem_open(&vals, loc)?,
            "sem_unlink" if args.len() == 1 => self.sem_unlink(&vals, loc)?,
            "sem_close" if args.len() == 1 => Some(bv::constant(0, 32)),
            "pthread_rwlock_destroy" | "sem_destroy" | "pthread_barrier_destroy" | "pthread_barrierattr_init" | "pthread_barrierattr_destroy" => Some(bv::constant(0, 32)),
            // Waiting on a condition variable: release the mutex, (spuriously) wake up,
            // re-acquire it. Signals are then no-ops: every wake-up is allowed anyway. (The
            // ordering pass makes these an unlock and a lock with their rows; this is for a
            // program checked without it, such as a `memsys` protocol.) A timed wait may
            // also time out.
            "pthread_cond_wait" | "pthread_cond_timedwait" if args.len() >= 2 => {
                self.unlock(&args[1], loc)?;
                self.lock(&args[1], loc)?;
                Some(match name {
                    "pthread_cond_timedwait" => {
                        let timed_out = self.sat.fresh_bv(1)[0];
                        self.sat.bv_ite(timed_out, &bv::constant(crate::atomics::ETIMEDOUT as u128, 32), &bv::constant(0, 32))
                    }
                    _ => bv::constant(0, 32),
                })
            }
            "pthread_cond_signal" | "pthread_cond_broadcast" | "pthread_cond_init" | "pthread_cond_destroy"
            | "pthread_mutex_destroy" | "pthread_attr_init" | "pthread_attr_destroy" | "pthread_spin_destroy"
            | "pthread_mutexattr_init" | "pthread_mutexattr_destroy" | "pthread_mutexattr_settype" => Some(bv::constant(0, 32)),
            "pthread_mutex_init" | "pthread_spin_init" => {
                if !vals.is_empty() {
                    let addr = vals[0][0].clone();
                    let label = format!("*{}", expr_text(self.prog, &args[0]));
                    self.write_mem(addr, bv::constant(0, 32), &Type::INT, label, loc, None);
                }
                Some(bv::constant(0, 32))
            }
            "pthread_self" | "thrd_current" => Some(bv::constant(self.ctx.thread as u128, 64)),
            "__weakc_commit" => {
                self.commit_point();
                None
            }
            "__weakc_commit_take" => Some(self.commit_take()),
            _ if tsd::CALLS.contains(&name) => Some(self.tsd_call(name, args, &vals, loc)?),
            _ if scanf::CALLS.contains(&name) => {
                let r = self.scanf_call(name, args, &vals, loc)?;
                approx = r.is_none();
                r
            }
            "printf" | "puts" | "putchar" | "fprintf" | "fputs" | "fflush" | "perror" | "sched_yield" | "pthread_yield" | "thrd_yield" | "sleep" | "usleep"
            | "nanosleep" | "srand" | "rand" | "random" | "time" | "__VERIFIER_nondet_int" | "__VERIFIER_nondet_uint"
            | "__VERIFIER_nondet_bool" | "__VERIFIER_nondet_char" | "__VERIFIER_nondet_long" | "__VERIFIER_nondet_ulong"
            | "__VERIFIER_nondet_pointer" | "__VERIFIER_nondet_uchar" | "__VERIFIER_nondet_short" | "__VERIFIER_nondet_ushort"
            // Dat3M's annotations of loops (`dat3m.h`): hints to its unroller, no effect.
            | "__VERIFIER_loop_bound" | "__VERIFIER_loop_begin" | "__VERIFIER_spin_start" | "__VERIFIER_spin_end" => None,
            "memset" | "__builtin_memset" if args.len() == 3 => {
                match (const_arg(1), self.copy_cells(&args[0], &vals[0][0], None, const_arg(2))) {
                    (Some(c), Some(cells)) => {
                        let base = vals[0][0].clone();
                        let name = expr_text(self.prog, peel(&args[0]));
                        for (j, t) in cells.iter().enumerate() {
                            let w = width(t);
                            let mut v: u128 = 0;
                            for _ in 0..(w / 8).max(1) {
                                v = (v << 8) | (c & 0xff);
                            }
                            if w == 1 {
                                v = (c & 0xff != 0) as u128;
                            }
                            let a = self.ptr_add(&base, &bv::constant(j as u128, 64), false, 1, false);
                            self.write_mem(a, bv::constant(v, w), t, format!("{name}[{j}]"), loc, None);
                        }
                    }
                    _ => approx = true,
                }
                Some(vals[0][0].clone())
            }
            "memcpy" | "memmove" | "__builtin_memcpy" if args.len() == 3 => {
                match self.copy_cells(&args[0], &vals[0][0], Some((&args[1], &vals[1][0])), const_arg(2)) {
                    Some(cells) => {
                        let (d, src) = (vals[0][0].clone(), vals[1][0].clone());
                        // Each cell written depends on its read (data), the reads and writes
                        // on the pointers (address), as the copy loop a compiler emits: on
                        // Power a read through the copied pointer is ordered after the copy.
                        let (dst_taint, src_taint) = (self.taint_range(marks[0], marks[1]), self.taint_range(marks[1], marks[2]));
                        let saved = (self.cur_addr.clone(), self.cur_data.clone());
                        let (dname, sname) = (expr_text(self.prog, peel(&args[0])), expr_text(self.prog, peel(&args[1])));
                        let mut tmp = vec![];
                        for (j, t) in cells.iter().enumerate() {
                            let a = self.ptr_add(&src, &bv::constant(j as u128, 64), false, 1, false);
                            self.cur_addr = src_taint.clone();
                            let mark = self.acc.len();
                            let v = self.read_mem(a, width(t), t, format!("{sname}[{j}]"), loc, None);
                            tmp.push((v, self.taint_since(mark)));
                        }
                        self.cur_addr = dst_taint;
                        for (j, ((v, data), t)) in tmp.into_iter().zip(&cells).enumerate() {
                            let a = self.ptr_add(&d, &bv::constant(j as u128, 64), false, 1, false);
                            self.cur_data = data;
                            self.write_mem(a, v, t, format!("{dname}[{j}]"), loc, None);
                        }
                        (self.cur_addr, self.cur_data) = saved;
                    }
                    _ => approx = true,
                }
                Some(vals[0][0].clone())
            }
            "strcpy" | "strlen" if !args.is_empty() => {
                let si = if name == "strcpy" { 1 } else { 0 };
                let text = vals.get(si).and_then(|v| self.literal_text(&v[0]));
                match (name, text) {
                    ("strlen", Some(t)) => Some(bv::constant(t.len() as u128, 64)),
                    ("strcpy", Some(t)) if args.len() == 2 => {
                        let d = vals[0][0].clone();
                        let lab = expr_text(self.prog, peel(&args[0]));
                        for (j, &b) in t.iter().chain(std::iter::once(&0u8)).enumerate() {
                            let a = self.ptr_add(&d, &bv::constant(j as u128, 64), false, 1, false);
                            self.write_mem(a, bv::constant(b as u128, 8), &Type::CHAR, format!("{lab}[{j}]"), loc, None);
                        }
                        Some(d)
                    }
                    _ => {
                        approx = true;
                        None
                    }
                }
            }
            _ => {
                approx = ptr_args;
                None
            }
        };
        if approx {
            self.warn(loc, &format!("call of external function `{name}`: its effects on memory are not modelled"));
            self.approximate = true;
        }
        // A result the engine does not know is arbitrary: a counterexample through it (or
        // through memory the call may have written) is not known to be real. The C library's
        // own sources of arbitrary values are exact as they are.
        let arbitrary_source = name.starts_with("__VERIFIER_nondet_") || matches!(name, "rand" | "random" | "time");
        if approx || (dest.is_some() && result.is_none() && !arbitrary_source) {
            self.arbitrary_unless(Lit::FALSE, &format!("calls `{name}`, whose effects are not modelled"));
        }
        self.step(loc, RawKind::Call { func: name.to_string() });
        if let Some(d) = dest {
            let v = match result {
                Some(r) if d.ty.is_scalar() => {
                    let from = result_ty.unwrap_or_else(|| if r.len() == PTR_BITS { Type::ptr_to(Type::Void) } else { Type::INT });
                    vec![self.convert(&r, &from, &d.ty)]
                }
                _ => self.nondet_value(&d.ty),
            };
            let place = self.place(d)?;
            self.store(place, v, d, loc)?;
        }
        Ok(())
    }

    pub(super) fn warn(&mut self, loc: Loc, msg: &str) {
        let m = format!("line {}: {msg}", loc.line);
        if !self.warnings.contains(&m) {
            self.warnings.push(m);
        }
    }

    pub(super) fn spawn(&mut self, tid: Option<&Expr>, func: &Expr, arg: &Expr, loc: Loc) -> R<()> {
        let fp = self.eval_ptr(func)?;
        let f = match as_const(&fp) {
            Some(v) if (v >> OFF_BITS) >= FUNC_BASE => FuncId(((v >> OFF_BITS) - FUNC_BASE) as u32),
            _ => return Err(Error::unsupported(loc, "thread start routine is not a known function")),
        };
        if self.prog.func(f).body.is_none() {
            return Err(Error::unsupported(loc, format!("thread function `{}` has no body", self.prog.func(f).name)));
        }
        let argv = self.eval_as(arg, &Type::ptr_to(Type::Void))?;
        if self.dead() {
            return Ok(());
        }
        let k = self.threads.len();
        let block = self.new_block(BlockKind::Marker);
        self.threads.push(Thread {
            name: format!("{}#{k}", self.prog.func(f).name),
            guard: self.state.guard,
            parent: Some((self.ctx.thread, block)),
            blocks: vec![],
            start: 0,
            end: 0,
            finished: Lit::FALSE,
            retval: vec![],
        });
        self.step(loc, RawKind::Spawn { thread: k });
        let key: ThreadKey = (self.ctx.thread, self.cur_stmt_ptr, self.path.clone());
        if let Some(c) = self.collecting.as_mut() {
            c.ids.push(key.clone());
            c.writes.push(Default::default());
        }
        if let Some(c) = self.collected.as_mut() {
            if c.ids.get(k) != Some(&key) {
                c.mismatch = true;
            }
        }
        if let Some(t) = tid {
            let addr = self.eval_ptr(t)?;
            let ty = t.ty.pointee().cloned().unwrap_or(Type::ULONG);
            let w = width(&ty);
            let label = format!("*{}", expr_text(self.prog, t));
            self.write_mem(addr, bv::constant(k as u128, w), &ty, label, loc, self.ptr_roots(t));
        }
        let mem = self.state.mem.clone();
        self.queue.push_back((k, f, argv, mem));
        Ok(())
    }

    pub(super) fn join(&mut self, tid: &Expr, ret: Option<&Expr>, loc: Loc) -> R<()> {
        let tv = self.eval_scalar(tid)?;
        let tv = self.sat.bv_resize(&tv, 64, false);
        if self.dead() {
            return Ok(());
        }
        let block = self.new_block(BlockKind::Marker);
        let joined = self.sat.fresh();
        let retv = self.sat.fresh_bv(PTR_BITS);
        self.joins.push(JoinRec { thread: self.ctx.thread, block, guard: self.state.guard, tid: tv.clone(), joined, ret: retv.clone() });
        self.step(loc, RawKind::Join { tid: tv });
        self.state.guard = self.sat.and(self.state.guard, joined);
        if let Some(r) = ret {
            let addr = self.eval_ptr(r)?;
            let label = format!("*{}", expr_text(self.prog, r));
            // `thrd_join` takes the thread's `int` result, `pthread_join` its `void *`.
            let void_ptr = Type::ptr_to(Type::Void);
            let ty = r.ty.pointee().filter(|t| t.is_integral()).cloned().unwrap_or(void_ptr.clone());
            let v = self.convert(&retv, &void_ptr, &ty);
            self.write_mem(addr, v, &ty, label, loc, self.ptr_roots(r));
        }
        Ok(())
    }
}

/// `e` without the casts around it.
pub(super) fn peel(mut e: &Expr) -> &Expr {
    while let ExprKind::Cast(inner) = &e.kind {
        e = inner;
    }
    e
}

/// The element type a pointer argument points to before it was converted to `void *`.
pub(super) fn elem_type(e: &Expr) -> Option<Type> {
    match peel(e).ty.pointee()? {
        Type::Array(el, _) => Some((**el).clone()),
        Type::Void => None,
        t => Some(t.clone()),
    }
}
