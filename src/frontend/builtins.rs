//! Calls: ordinary calls, and the functions weakc gives a meaning to (verifier primitives,
//! pthreads, GCC atomics and fences, inline assembly fences).

use super::expr::{is_null_const, strip_parens, Dest};
use super::lower::{named_children, Lowerer, Ord, R};
use crate::ir::*;
use crate::source::Error;
use tree_sitter::Node;

/// Predefined integer macros that may appear unexpanded (no preprocessing).
pub(super) fn builtin_constant(name: &str) -> Option<i128> {
    Some(match name {
        "__ATOMIC_RELAXED" => 0,
        "__ATOMIC_CONSUME" => 1,
        "__ATOMIC_ACQUIRE" => 2,
        "__ATOMIC_RELEASE" => 3,
        "__ATOMIC_ACQ_REL" => 4,
        "__ATOMIC_SEQ_CST" => 5,
        _ => return None,
    })
}

/// The type of `__VERIFIER_nondet_<suffix>()` when it is not declared.
fn nondet_type(suffix: &str, char_signed: bool) -> Type {
    let i = |bits, signed| Type::Int { bits, signed };
    match suffix {
        "bool" | "_Bool" => Type::Bool,
        "char" => i(8, char_signed),
        "uchar" | "u8" => i(8, false),
        "short" => i(16, true),
        "ushort" | "u16" => i(16, false),
        "int" => Type::INT,
        "uint" | "unsigned" | "u32" => Type::UINT,
        "long" | "longlong" | "loff_t" | "s64" => Type::LONG,
        "ulong" | "ulonglong" | "size_t" | "u64" | "sector_t" => Type::ULONG,
        "pointer" | "pchar" => Type::ptr_to(Type::Void),
        "float" => Type::Float { bits: 32 },
        "double" => Type::Float { bits: 64 },
        "int128" => i(128, true),
        "uint128" => i(128, false),
        _ => Type::INT,
    }
}

fn mem_order(v: i128) -> Option<MemOrder> {
    Some(match v & 0xffff {
        0 => MemOrder::Relaxed,
        1 | 2 => MemOrder::Acquire,
        3 => MemOrder::Release,
        4 => MemOrder::AcqRel,
        5 => MemOrder::SeqCst,
        _ => return None,
    })
}

/// Shape of an atomic builtin: operation, argument roles.
#[derive(Clone, Copy)]
enum Shape {
    /// `(ptr, val[, order])`
    PtrVal,
    /// `(ptr, old, new)` (`__sync_*_compare_and_swap`)
    SyncCas,
    /// `(ptr[, order])`
    Ptr,
    /// `(ptr, expected_ptr, desired, weak, succ, fail)`; desired is a pointer for the generic form.
    AtomicCas { desired_ptr: bool },
    /// `__atomic_load(ptr, ret_ptr, order)`
    GenericLoad,
    /// `__atomic_store(ptr, val_ptr, order)`
    GenericStore,
    /// `__atomic_exchange(ptr, val_ptr, ret_ptr, order)`
    GenericExchange,
}

/// GCC's sized forms (`__sync_val_compare_and_swap_8`, `__atomic_load_4`: what the generic
/// builtins expand to, and what liburcu's generic atomics call by name) are the generic
/// builtin at the pointee's width; the pointer argument gives the width here too.
fn unsized_builtin(name: &str) -> Option<String> {
    let base = ["_16", "_8", "_4", "_2", "_1"].iter().find_map(|s| name.strip_suffix(s))?;
    if let Some(rest) = base.strip_prefix("__atomic_") {
        // The sized `__atomic_` forms take their operands by value, as the `_n` forms do.
        return Some(match rest {
            "load" | "store" | "exchange" | "compare_exchange" => format!("{base}_n"),
            _ => base.to_string(),
        });
    }
    base.starts_with("__sync_").then(|| base.to_string())
}

fn atomic_builtin(name: &str) -> Option<(RmwOp, Shape, Option<MemOrder>)> {
    if let Some(base) = unsized_builtin(name) {
        return atomic_builtin(&base);
    }
    use RmwOp::*;
    let ops = [("add", FetchAdd, AddFetch), ("sub", FetchSub, SubFetch), ("and", FetchAnd, AndFetch), ("or", FetchOr, OrFetch), ("xor", FetchXor, XorFetch), ("nand", FetchNand, NandFetch)];
    let sc = Some(MemOrder::SeqCst);
    if let Some(rest) = name.strip_prefix("__sync_") {
        for (o, fetch_op, op_fetch) in ops {
            if rest == format!("fetch_and_{o}") {
                return Some((fetch_op, Shape::PtrVal, sc));
            }
            if rest == format!("{o}_and_fetch") {
                return Some((op_fetch, Shape::PtrVal, sc));
            }
        }
        return match rest {
            "val_compare_and_swap" => Some((CasVal, Shape::SyncCas, sc)),
            "bool_compare_and_swap" => Some((CasBool, Shape::SyncCas, sc)),
            "lock_test_and_set" => Some((Exchange, Shape::PtrVal, Some(MemOrder::Acquire))),
            "lock_release" => Some((Store, Shape::Ptr, Some(MemOrder::Release))),
            _ => None,
        };
    }
    if let Some(rest) = name.strip_prefix("__atomic_") {
        for (o, fetch_op, op_fetch) in ops {
            if rest == format!("fetch_{o}") {
                return Some((fetch_op, Shape::PtrVal, None));
            }
            if rest == format!("{o}_fetch") {
                return Some((op_fetch, Shape::PtrVal, None));
            }
        }
        return match rest {
            "load_n" => Some((Load, Shape::Ptr, None)),
            "store_n" => Some((Store, Shape::PtrVal, None)),
            "exchange_n" => Some((Exchange, Shape::PtrVal, None)),
            "compare_exchange_n" => Some((CompareExchange, Shape::AtomicCas { desired_ptr: false }, None)),
            "compare_exchange" => Some((CompareExchange, Shape::AtomicCas { desired_ptr: true }, None)),
            "load" => Some((Load, Shape::GenericLoad, None)),
            "store" => Some((Store, Shape::GenericStore, None)),
            "exchange" => Some((Exchange, Shape::GenericExchange, None)),
            "test_and_set" => Some((Exchange, Shape::Ptr, None)),
            "clear" => Some((Store, Shape::Ptr, None)),
            _ => None,
        };
    }
    None
}

const ASSERT_FAIL: &[&str] = &["reach_error", "__VERIFIER_error", "__assert_fail", "__assert_perror_fail", "__assert", "__assert_rtn"];
const ASSUME: &[&str] = &["__VERIFIER_assume", "assume_abort_if_not", "__CPROVER_assume"];
const ASSERT: &[&str] = &["__VERIFIER_assert", "__CPROVER_assert", "assert"];
const ABORT: &[&str] = &["abort", "exit", "_exit", "_Exit", "__builtin_abort", "__builtin_trap", "__builtin_unreachable"];
const SKIP: &[&str] = &["pthread_mutex_init", "pthread_mutex_destroy", "mtx_init", "mtx_destroy"];

/// The result type of a builtin call (for `sizeof`), None when not a builtin.
pub(super) fn builtin_result_type<'t>(l: &mut Lowerer<'t>, name: &str, call: Node<'t>) -> R<Option<Type>> {
    if let Some(suffix) = name.strip_prefix("__VERIFIER_nondet_") {
        if let Some(Ord::Func(i)) = l.lookup_ord(name) {
            if let Ok(ft) = &l.fdecls[*i].ty {
                return Ok(Some(ft.ret.clone()));
            }
        }
        return Ok(Some(nondet_type(suffix, l.char_signed)));
    }
    if let Some((op, _, _)) = atomic_builtin(name) {
        let args = call.child_by_field_name("arguments").map(named_children).unwrap_or_default();
        let Some(&p) = args.first() else { return Ok(None) };
        let pt = l.expr_type(p)?;
        let elem = pt.pointee().cloned().unwrap_or(Type::INT);
        return Ok(Some(match op {
            RmwOp::CasBool | RmwOp::CompareExchange => Type::Bool,
            RmwOp::Store => Type::Void,
            _ => elem,
        }));
    }
    if name.starts_with("pthread_") && l.lookup_ord(name).is_none() {
        return Ok(Some(Type::INT));
    }
    Ok(None)
}

impl<'t> Lowerer<'t> {
    /// Any call expression.
    pub fn call(&mut self, n: Node<'t>, dest: Dest) -> R<Option<Expr>> {
        let fnode = n.child_by_field_name("function").ok_or_else(|| self.syntax_err(n))?;
        let args = n.child_by_field_name("arguments").map(named_children).unwrap_or_default();
        if let Some(ty) = self.cast_misread_as_call(fnode, &args) {
            let e = self.cast_to(ty, args[0], n)?;
            let loc = self.loc(n);
            return Ok(self.deliver(e, dest, loc));
        }
        let f = strip_parens(fnode);
        if f.kind() == "identifier" {
            let name = self.text(f);
            let shadowed = matches!(self.lookup_ord(name), Some(Ord::Var(_)) | Some(Ord::Global(_)));
            if !shadowed {
                if let Some(r) = self.builtin_call(name, n, &args, dest.clone())? {
                    return Ok(r);
                }
                if name.starts_with("__VERIFIER_atomic_") {
                    let loc = self.loc(n);
                    self.emit(StmtKind::AtomicBegin, loc);
                    let r = self.plain_call(n, fnode, &args, dest)?;
                    self.emit(StmtKind::AtomicEnd, loc);
                    return Ok(r);
                }
                if self.lookup_ord(name).is_none() {
                    // C89 implicit declaration: `int name()`; for the C library's allocation
                    // and memory functions the standard prototype, as GCC does (a pointer
                    // squeezed through `int` would be garbage: header-stripped `.i` files
                    // call `malloc` undeclared).
                    let ft = library_prototype(name).unwrap_or(FuncType { ret: Type::INT, params: vec![], variadic: false });
                    let loc = self.loc(f);
                    self.declare_function(name, Ok(ft), false, None, loc, true);
                }
            }
        }
        self.plain_call(n, fnode, &args, dest)
    }

    fn plain_call(&mut self, n: Node<'t>, fnode: Node<'t>, args: &[Node<'t>], dest: Dest) -> R<Option<Expr>> {
        let loc = self.loc(n);
        let fe = self.rvalue(fnode)?;
        let (callee, ft) = match &fe.kind {
            ExprKind::FuncAddr(id) => (Callee::Direct(*id), self.prog.funcs[id.0 as usize].ty.clone()),
            _ => match &fe.ty {
                Type::Ptr(p) => match &**p {
                    Type::Func(ft) => ((Callee::Indirect(fe.clone())), (**ft).clone()),
                    _ => return Err(Error::syntax(self.loc(fnode), format!("`{}` is not a function", self.text(fnode)))),
                },
                _ => return Err(Error::syntax(self.loc(fnode), format!("`{}` is not a function", self.text(fnode)))),
            },
        };
        let m = self.mark();
        let vals = self.rvalues(args)?;
        let callee = match callee {
            Callee::Indirect(e) => Callee::Indirect(self.spill(e, m, fnode)?),
            c => c,
        };
        if !ft.variadic && !ft.params.is_empty() && vals.len() != ft.params.len() {
            return Err(Error::syntax(
                loc,
                format!("`{}` takes {} argument(s), {} given", self.text(fnode), ft.params.len(), vals.len()),
            ));
        }
        let vals: Vec<Expr> = vals
            .into_iter()
            .enumerate()
            .map(|(i, v)| match ft.params.get(i) {
                Some(t) => self.conv(v, t),
                None => v,
            })
            .collect();
        if let (Callee::Direct(id), Some(cur)) = (&callee, self.cur_func()) {
            self.call_edges.push((cur, *id, loc));
        }
        let d = self.dest_for(&dest, &ft.ret, n)?;
        self.emit(StmtKind::Call { dest: d.clone(), callee, args: vals }, loc);
        Ok(self.finish_dest(dest, d, &ft.ret, loc))
    }

    /// Builtins; `Ok(None)` when `name` is not one.
    fn builtin_call(&mut self, name: &str, n: Node<'t>, args: &[Node<'t>], dest: Dest) -> R<Option<Option<Expr>>> {
        let loc = self.loc(n);
        let void = || Some(Expr::new(ExprKind::Const(0), Type::Void));
        let zero = |l: &mut Self, dest: Dest| l.deliver(Expr::int(0), dest, loc);
        let nargs = |_: &Self, k: usize| -> R<()> {
            if args.len() != k {
                return Err(Error::syntax(loc, format!("`{}` takes {k} argument(s), {} given", name, args.len())));
            }
            Ok(())
        };
        let r = |dest: &Dest, e: Option<Expr>| if matches!(dest, Dest::Value) { e } else { None };
        if let Some(suffix) = name.strip_prefix("__VERIFIER_nondet_") {
            let ty = match self.lookup_ord(name) {
                Some(Ord::Func(i)) => match &self.fdecls[*i].ty {
                    Ok(ft) => ft.ret.clone(),
                    Err(_) => nondet_type(suffix, self.char_signed),
                },
                _ => nondet_type(suffix, self.char_signed),
            };
            if matches!(dest, Dest::Discard) || ty == Type::Void {
                return Ok(Some(r(&dest, void())));
            }
            let d = self.dest_for(&dest, &ty, n)?.expect("destination");
            self.emit(StmtKind::Assign { lhs: d.clone(), rhs: Expr::new(ExprKind::Nondet, ty.clone()) }, loc);
            return Ok(Some(self.finish_dest(dest, Some(d), &ty, loc)));
        }
        if ASSUME.contains(&name) {
            nargs(self, 1)?;
            let c = self.rvalue(args[0])?;
            self.emit(StmtKind::Assume(c), loc);
            return Ok(Some(r(&dest, void())));
        }
        if ASSERT.contains(&name) {
            if args.is_empty() {
                return Err(Error::syntax(loc, format!("`{name}` needs a condition")));
            }
            let c = self.rvalue(args[0])?;
            let msg = match args.get(1) {
                Some(m) if matches!(m.kind(), "string_literal" | "concatenated_string") => {
                    String::from_utf8_lossy(&self.string_literal_bytes(*m)?).into_owned()
                }
                _ => self.text(args[0]).split_whitespace().collect::<Vec<_>>().join(" "),
            };
            // `assert` as a function (no <assert.h>) stands for the macro, a branch.
            self.emit(StmtKind::Assert { cond: c, msg, ctrl: name == "assert" }, loc);
            return Ok(Some(r(&dest, void())));
        }
        if ASSERT_FAIL.contains(&name) {
            let msg = match args.first() {
                Some(m) if name.starts_with("__assert") && matches!(m.kind(), "string_literal" | "concatenated_string") => {
                    String::from_utf8_lossy(&self.string_literal_bytes(*m)?).into_owned()
                }
                _ => format!("{name}()"),
            };
            self.emit(StmtKind::Assert { cond: Expr::int(0), msg, ctrl: true }, loc);
            return Ok(Some(r(&dest, void())));
        }
        if ABORT.contains(&name) {
            self.emit(StmtKind::Assume(Expr::int(0)), loc);
            return Ok(Some(r(&dest, void())));
        }
        match name {
            "__VERIFIER_atomic_begin" | "__CPROVER_atomic_begin" => {
                self.emit(StmtKind::AtomicBegin, loc);
                return Ok(Some(r(&dest, void())));
            }
            "__VERIFIER_atomic_end" | "__CPROVER_atomic_end" => {
                self.emit(StmtKind::AtomicEnd, loc);
                return Ok(Some(r(&dest, void())));
            }
            // C11 `<threads.h>`: glibc implements `thrd_t` and `mtx_t` as pthread's, and so
            // are they here (`thrd_success` is 0; a thread's `int` result is joined as one).
            "pthread_create" | "thrd_create" => {
                let c11 = name == "thrd_create";
                nargs(self, if c11 { 3 } else { 4 })?;
                let vals = self.rvalues(args)?;
                let mut it = vals.into_iter();
                let tid = it.next().unwrap();
                if !c11 {
                    it.next();
                }
                let (func, arg) = (it.next().unwrap(), it.next().unwrap());
                let func_arg = args[if c11 { 1 } else { 2 }];
                let mut func = func;
                while let ExprKind::Cast(inner) = func.kind {
                    func = *inner;
                }
                let is_fn = matches!(func.kind, ExprKind::FuncAddr(_))
                    || matches!(&func.ty, Type::Ptr(p) if matches!(**p, Type::Func(_)));
                if !is_fn {
                    return Err(Error::syntax(self.loc(func_arg), "the thread start routine is not a function"));
                }
                let tid = if is_null_const(&tid) { None } else { Some(tid) };
                let arg = self.conv(arg, &Type::ptr_to(Type::Void));
                self.emit(StmtKind::Spawn { tid, func, arg }, loc);
                return Ok(Some(zero(self, dest)));
            }
            "pthread_join" | "thrd_join" => {
                nargs(self, 2)?;
                let vals = self.rvalues(args)?;
                let mut it = vals.into_iter();
                let (tid, ret) = (it.next().unwrap(), it.next().unwrap());
                let ret = if is_null_const(&ret) { None } else { Some(ret) };
                self.emit(StmtKind::Join { tid, ret }, loc);
                return Ok(Some(zero(self, dest)));
            }
            "pthread_mutex_lock" | "pthread_mutex_unlock" | "mtx_lock" | "mtx_unlock" => {
                nargs(self, 1)?;
                let m = self.rvalue(args[0])?;
                let k = if name.ends_with("_lock") { StmtKind::Lock(m) } else { StmtKind::Unlock(m) };
                self.emit(k, loc);
                return Ok(Some(zero(self, dest)));
            }
            "pthread_exit" => {
                nargs(self, 1)?;
                let v = self.rvalue(args[0])?;
                let (id, ret, top) = {
                    let fs = self.fs.as_ref().ok_or_else(|| self.unsupported(n, "pthread_exit outside a function"))?;
                    (fs.id, fs.ret.clone(), fs.depth == 0 && matches!(dest, Dest::Discard))
                };
                self.pthread_exits.push((id, loc, top));
                let v = if ret == Type::Void { None } else { Some(self.conv(v, &ret)) };
                self.emit(StmtKind::Return(v), loc);
                return Ok(Some(r(&dest, void())));
            }
            "__sync_synchronize" => {
                self.emit(StmtKind::Fence(Fence::Full), loc);
                return Ok(Some(r(&dest, void())));
            }
            "__atomic_thread_fence" | "__atomic_signal_fence" => {
                nargs(self, 1)?;
                let o = match self.const_eval(args[0]).ok().and_then(mem_order) {
                    Some(o) => o,
                    None => {
                        self.effect(args[0])?;
                        self.relaxed_order(args[0])
                    }
                };
                let f = if name == "__atomic_signal_fence" {
                    Fence::Compiler
                } else {
                    match o {
                        MemOrder::SeqCst => Fence::Full,
                        MemOrder::Relaxed => Fence::Compiler,
                        MemOrder::Acquire => Fence::Acquire,
                        MemOrder::Release => Fence::Release,
                        MemOrder::AcqRel => Fence::AcqRel,
                    }
                };
                self.emit(StmtKind::Fence(f), loc);
                return Ok(Some(r(&dest, void())));
            }
            "_Static_assert" | "static_assert" => {
                if let Some(c) = args.first() {
                    if self.const_eval(*c)? == 0 {
                        let msg = match args.get(1) {
                            Some(m) => String::from_utf8_lossy(&self.string_literal_bytes(*m)?).into_owned(),
                            None => self.text(*c).to_string(),
                        };
                        return Err(Error::syntax(loc, format!("static assertion failed: {msg}")));
                    }
                }
                return Ok(Some(r(&dest, void())));
            }
            "__builtin_expect" | "__builtin_expect_with_probability" => {
                if args.is_empty() {
                    return Err(Error::syntax(loc, "`__builtin_expect` needs arguments"));
                }
                let e = self.rvalue(args[0])?;
                for a in &args[1..] {
                    self.effect(*a)?;
                }
                return Ok(Some(self.deliver(e, dest, loc)));
            }
            _ => {}
        }
        if SKIP.contains(&name) || name.starts_with("pthread_attr_") {
            for a in args {
                self.effect(*a)?;
            }
            self.emit(StmtKind::Skip, loc);
            return Ok(Some(zero(self, dest)));
        }
        if let Some((op, shape, order)) = atomic_builtin(name) {
            return self.rmw(n, name, op, shape, order, args, dest).map(Some);
        }
        Ok(None)
    }

    #[allow(clippy::too_many_arguments)]
    /// A memory order that is not a compile-time constant: the weakest, `relaxed` (every
    /// behaviour of the real order is one of relaxed's), with a warning.
    fn relaxed_order(&mut self, a: Node<'t>) -> MemOrder {
        let loc = self.loc(a);
        self.distrust(loc, "memory order is not a compile-time constant: treated as memory_order_relaxed (no behaviour of the real order is lost; more may be reported)".into());
        MemOrder::Relaxed
    }

    fn rmw(&mut self, n: Node<'t>, name: &str, op: RmwOp, shape: Shape, order: Option<MemOrder>, args: &[Node<'t>], dest: Dest) -> R<Option<Expr>> {
        let loc = self.loc(n);
        let (nvals, order_idx) = match (shape, order.is_some()) {
            (Shape::PtrVal, true) => (2, None),
            (Shape::PtrVal, false) => (2, Some(2)),
            (Shape::SyncCas, _) => (3, None),
            (Shape::Ptr, true) => (1, None),
            (Shape::Ptr, false) => (1, Some(1)),
            (Shape::AtomicCas { .. }, _) => (4, Some(4)),
            (Shape::GenericLoad, _) | (Shape::GenericStore, _) => (2, Some(2)),
            (Shape::GenericExchange, _) => (3, Some(3)),
        };
        let mut required = order_idx.map(|i| i + 1).unwrap_or(nvals);
        if matches!(shape, Shape::AtomicCas { .. }) {
            required += 1;
        }
        let ok = if name.starts_with("__sync_") { args.len() >= required } else { args.len() == required };
        if !ok {
            return Err(Error::syntax(loc, format!("`{name}` takes {required} arguments, {} given", args.len())));
        }
        let order = match (order, order_idx) {
            (Some(o), _) => o,
            (None, Some(i)) => {
                let a = args.get(i).copied().ok_or_else(|| Error::syntax(loc, format!("`{name}` needs a memory order")))?;
                // its effects, if any, are lowered with the trailing arguments below
                self.const_eval(a).ok().and_then(mem_order).unwrap_or_else(|| self.relaxed_order(a))
            }
            (None, None) => MemOrder::SeqCst,
        };
        let vals = self.rvalues(&args[..nvals])?;
        let ptr = vals[0].clone();
        let elem = match &ptr.ty {
            Type::Ptr(t) if **t != Type::Void => (**t).clone(),
            _ => return Err(Error::syntax(self.loc(args[0]), format!("first argument of `{name}` must point to an object"))),
        };
        let deref = |l: &mut Self, e: Expr, at: Node<'t>| l.deref(e, at);
        let (val, expected, mut out, result_ty) = match shape {
            Shape::PtrVal => (self.conv(vals[1].clone(), &elem), None, None, if op == RmwOp::Store { Type::Void } else { elem.clone() }),
            Shape::SyncCas => {
                let rt = if op == RmwOp::CasBool { Type::Bool } else { elem.clone() };
                (self.conv(vals[2].clone(), &elem), Some(self.conv(vals[1].clone(), &elem)), None, rt)
            }
            Shape::Ptr => {
                let v = if name.ends_with("test_and_set") { 1 } else { 0 };
                let rt = if op == RmwOp::Store { Type::Void } else { elem.clone() };
                (self.conv(Expr::int(v), &elem), None, None, rt)
            }
            Shape::AtomicCas { desired_ptr } => {
                let d = if desired_ptr { deref(self, vals[2].clone(), args[2])? } else { vals[2].clone() };
                let exp_ty = Type::ptr_to(elem.clone());
                (self.conv(d, &elem), Some(self.conv(vals[1].clone(), &exp_ty)), None, Type::Bool)
            }
            Shape::GenericLoad => {
                let out = deref(self, vals[1].clone(), args[1])?;
                (self.conv(Expr::int(0), &elem), None, Some(out), Type::Void)
            }
            Shape::GenericStore => {
                let v = deref(self, vals[1].clone(), args[1])?;
                (self.conv(v, &elem), None, None, Type::Void)
            }
            Shape::GenericExchange => {
                let v = deref(self, vals[1].clone(), args[1])?;
                let out = deref(self, vals[2].clone(), args[2])?;
                (self.conv(v, &elem), None, Some(out), Type::Void)
            }
        };
        // Arguments after the values (weak flag, orders) may still have effects.
        for a in args.iter().skip(nvals) {
            if self.const_eval(*a).is_err() {
                self.effect(*a)?;
            }
        }
        if out.is_none() && result_ty != Type::Void {
            out = self.dest_for(&dest, &result_ty, n)?;
            let rmw = Rmw { op, dest: out.clone(), ptr, val, expected, order };
            self.emit(StmtKind::Rmw(rmw), loc);
            return Ok(self.finish_dest(dest, out, &result_ty, loc));
        }
        let rmw = Rmw { op, dest: out, ptr, val, expected, order };
        self.emit(StmtKind::Rmw(rmw), loc);
        Ok(if matches!(dest, Dest::Value) { Some(Expr::new(ExprKind::Const(0), Type::Void)) } else { None })
    }
}

/// The standard prototype of a C library function whose result is a pointer, for calls
/// without a declaration in scope.
fn library_prototype(name: &str) -> Option<FuncType> {
    let void_ptr = Type::ptr_to(Type::Void);
    let size = Type::ULONG;
    let (ret, params) = match name {
        "malloc" | "valloc" | "alloca" => (void_ptr, vec![size]),
        "calloc" => (void_ptr, vec![size.clone(), size]),
        "realloc" => (void_ptr.clone(), vec![void_ptr, size]),
        "memcpy" | "memmove" => (void_ptr.clone(), vec![void_ptr.clone(), void_ptr, size]),
        "memset" => (void_ptr.clone(), vec![void_ptr, Type::INT, size]),
        "strdup" => (Type::ptr_to(Type::CHAR), vec![Type::ptr_to(Type::CHAR)]),
        _ => return None,
    };
    Some(FuncType { ret, params, variadic: false })
}
