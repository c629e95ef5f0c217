//! Statements: each IR statement kind in C — loops as `for (;;)` with labels for
//! `continue`, threads as `pthread_*` calls, read-modify-writes as GCC atomic builtins.
//!
//! Separate because this is where the IR's statement kinds map to C (see
//! [`print_program`](super::print_program)); everything else only frames them.

use super::expr::{paren_unless, P_POSTFIX};
use super::literals::{comment_text, failure_order, memorder};
use super::names::unique;
use super::{fence_macro, Printer};
use crate::ir::*;

/// Whether a block prints nothing.
fn is_empty_block(b: &[Stmt]) -> bool {
    b.iter().all(|s| match &s.kind {
        StmtKind::Skip => true,
        StmtKind::Block(inner) => is_empty_block(inner),
        _ => false,
    })
}

/// Whether `b` holds a `Continue` of the loop it is the body or latch of (not of a nested
/// loop).
fn has_own_continue(b: &[Stmt]) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Continue => true,
        StmtKind::If { then_, else_, .. } => has_own_continue(then_) || has_own_continue(else_),
        StmtKind::Block(inner) => has_own_continue(inner),
        _ => false,
    })
}

impl Printer<'_> {
    pub(super) fn block(&mut self, b: &[Stmt]) {
        for s in b {
            self.stmt(s);
        }
    }

    fn braced(&mut self, b: &[Stmt]) {
        self.out.indent += 1;
        self.block(b);
        self.out.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        if matches!(s.kind, StmtKind::Skip) {
            return;
        }
        self.at(s.loc);
        match &s.kind {
            StmtKind::Skip => {}
            StmtKind::Assign { lhs, rhs } => {
                let l = format!("{} = {};", self.expr(lhs), self.expr(rhs));
                self.out.line(&l);
            }
            StmtKind::Call { dest, callee, args } => {
                let c = match callee {
                    Callee::Direct(f) => self.func_name(*f),
                    Callee::Indirect(e) => paren_unless(self.expr_p(e), P_POSTFIX),
                };
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                let call = format!("{c}({})", args.join(", "));
                let l = match dest {
                    Some(d) => format!("{} = {call};", self.expr(d)),
                    None => format!("{call};"),
                };
                self.out.line(&l);
            }
            StmtKind::If { cond, then_, else_ } => {
                let l = format!("if ({}) {{", self.expr(cond));
                self.out.line(&l);
                self.braced(then_);
                if !is_empty_block(else_) {
                    self.out.line("} else {");
                    self.braced(else_);
                }
                self.out.line("}");
            }
            StmtKind::Loop { body, latch } => {
                let label = if !is_empty_block(latch)
                    && (has_own_continue(body) || has_own_continue(latch))
                {
                    let n = unique(
                        format!("__weakc_continue_{}", self.next_continue),
                        &mut self.label_taken,
                    );
                    self.next_continue += 1;
                    Some(n)
                } else {
                    None
                };
                self.loops.push(label.clone());
                self.out.line("for (;;) {");
                self.out.indent += 1;
                self.block(body);
                if let Some(l) = &label {
                    self.out.line(&format!("{l}: ;"));
                }
                self.block(latch);
                self.out.indent -= 1;
                self.out.line("}");
                self.loops.pop();
            }
            StmtKind::Break => self.out.line("break;"),
            StmtKind::Continue => match self.loops.last() {
                Some(Some(l)) => {
                    let l = format!("goto {l};");
                    self.out.line(&l)
                }
                _ => self.out.line("continue;"),
            },
            StmtKind::Return(None) => self.out.line("return;"),
            StmtKind::Return(Some(e)) => {
                let l = format!("return {};", self.expr(e));
                self.out.line(&l);
            }
            StmtKind::Goto(id) => {
                let n = self
                    .labels
                    .get(id)
                    .cloned()
                    .unwrap_or_else(|| format!("__weakc_label{}", id.0));
                self.out.line(&format!("goto {n};"));
            }
            StmtKind::Label(id, _) => {
                let n = self
                    .label_stmts
                    .get(&(s as *const Stmt))
                    .or_else(|| self.labels.get(id))
                    .cloned()
                    .unwrap_or_else(|| format!("__weakc_label{}", id.0));
                self.out.line(&format!("{n}: ;"));
            }
            StmtKind::Assert { cond, msg, .. } => {
                let c = self.truth(cond);
                let l = if msg.trim().is_empty() {
                    format!("__VERIFIER_assert({c});")
                } else {
                    format!("/* {} */ __VERIFIER_assert({c});", comment_text(msg.trim()))
                };
                self.out.line(&l);
            }
            StmtKind::Assume(c) => {
                let l = format!("__VERIFIER_assume({});", self.truth(c));
                self.out.line(&l);
            }
            StmtKind::Fence(f) => self.out.line(&format!("{}();", fence_macro(*f))),
            StmtKind::AtomicBegin => self.out.line("__VERIFIER_atomic_begin();"),
            StmtKind::AtomicEnd => self.out.line("__VERIFIER_atomic_end();"),
            StmtKind::Spawn { tid, func, arg } => {
                let t = match tid {
                    Some(t) => self.expr(t),
                    None => format!("&{}", self.spawn_tids[&(s as *const Stmt)]),
                };
                let l = format!(
                    "pthread_create({t}, 0, {}, {});",
                    self.thread_func(func),
                    self.thread_arg(arg)
                );
                self.out.line(&l);
            }
            StmtKind::Join { tid, ret: Some(r) } if r.ty.pointee().is_some_and(|t| t.is_integral()) => {
                // `thrd_join`'s `int` result, through pthread's `void *` one
                let l = format!(
                    "{{ void *__weakc_ret; pthread_join({}, &__weakc_ret); *{} = (int)(long)__weakc_ret; }}",
                    self.expr(tid),
                    paren_unless(self.expr_p(r), P_POSTFIX)
                );
                self.out.line(&l);
            }
            StmtKind::Join { tid, ret } => {
                let r = ret
                    .as_ref()
                    .map(|r| self.expr(r))
                    .unwrap_or_else(|| "0".into());
                let l = format!("pthread_join({}, {r});", self.expr(tid));
                self.out.line(&l);
            }
            StmtKind::Lock(m) => {
                let l = format!("pthread_mutex_lock({});", self.expr(m));
                self.out.line(&l);
            }
            StmtKind::Unlock(m) => {
                let l = format!("pthread_mutex_unlock({});", self.expr(m));
                self.out.line(&l);
            }
            StmtKind::Rmw(r) => {
                let l = self.rmw(r);
                self.out.line(&l);
            }
            StmtKind::Block(b) => {
                self.out.line("{");
                self.braced(b);
                self.out.line("}");
            }
        }
    }

    /// The start routine of a spawn, cast to `void *(*)(void *)` unless it has that type.
    fn thread_func(&self, func: &Expr) -> String {
        let ft = match &func.kind {
            ExprKind::FuncAddr(f) => self.prog.funcs.get(f.0 as usize).map(|f| f.ty.clone()),
            _ => match &func.ty {
                Type::Func(ft) => Some((**ft).clone()),
                Type::Ptr(t) => match &**t {
                    Type::Func(ft) => Some((**ft).clone()),
                    _ => None,
                },
                _ => None,
            },
        };
        let void_ptr = Type::ptr_to(Type::Void);
        let exact = ft.is_some_and(|ft| {
            ft.ret == void_ptr && ft.params == [void_ptr.clone()] && !ft.variadic
        });
        if exact {
            self.expr(func)
        } else {
            format!(
                "(void *(*)(void *)){}",
                paren_unless(self.expr_p(func), P_POSTFIX)
            )
        }
    }

    /// The argument of a spawn as a `void *`.
    fn thread_arg(&self, arg: &Expr) -> String {
        match (&arg.kind, &arg.ty) {
            (_, Type::Ptr(_)) | (_, Type::Array(..)) | (_, Type::Func(_)) => self.expr(arg),
            (ExprKind::Const(0), _) => "0".into(),
            (_, t) if t.is_integral() => {
                format!(
                    "(void *)(long){}",
                    paren_unless(self.expr_p(arg), P_POSTFIX)
                )
            }
            _ => self.expr(arg),
        }
    }

    fn rmw(&self, r: &Rmw) -> String {
        let ptr = self.expr(&r.ptr);
        let val = self.expr(&r.val);
        let ord = memorder(r.order);
        let expected = || {
            r.expected
                .as_ref()
                .map(|e| self.expr(e))
                .unwrap_or_else(|| "0".into())
        };
        let fetch = |name: &str| format!("{name}({ptr}, {val}, {ord})");
        let call = match r.op {
            RmwOp::FetchAdd => fetch("__atomic_fetch_add"),
            RmwOp::FetchSub => fetch("__atomic_fetch_sub"),
            RmwOp::FetchAnd => fetch("__atomic_fetch_and"),
            RmwOp::FetchOr => fetch("__atomic_fetch_or"),
            RmwOp::FetchXor => fetch("__atomic_fetch_xor"),
            RmwOp::FetchNand => fetch("__atomic_fetch_nand"),
            RmwOp::AddFetch => fetch("__atomic_add_fetch"),
            RmwOp::SubFetch => fetch("__atomic_sub_fetch"),
            RmwOp::AndFetch => fetch("__atomic_and_fetch"),
            RmwOp::OrFetch => fetch("__atomic_or_fetch"),
            RmwOp::XorFetch => fetch("__atomic_xor_fetch"),
            RmwOp::NandFetch => fetch("__atomic_nand_fetch"),
            RmwOp::Exchange => fetch("__atomic_exchange_n"),
            RmwOp::CasVal => format!("__sync_val_compare_and_swap({ptr}, {}, {val})", expected()),
            RmwOp::CasBool => format!("__sync_bool_compare_and_swap({ptr}, {}, {val})", expected()),
            RmwOp::CompareExchange => format!(
                "__atomic_compare_exchange_n({ptr}, {}, {val}, 0, {ord}, {})",
                expected(),
                memorder(failure_order(r.order))
            ),
            RmwOp::Load => format!("__atomic_load_n({ptr}, {ord})"),
            RmwOp::Store => format!("__atomic_store_n({ptr}, {val}, {ord})"),
        };
        match &r.dest {
            Some(d) if r.op != RmwOp::Store => format!("{} = {call};", self.expr(d)),
            _ => format!("{call};"),
        }
    }
}
