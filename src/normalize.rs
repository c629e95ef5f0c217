//! Normalisation (ESOP 2013 §4.4): every shared-memory access becomes its own assignment.
//!
//! After [`normalize`], a statement touches shared memory in at most one place:
//! `local = shared_lvalue;` (a read), `shared_lvalue = pure;` (a write), or an atomic
//! statement (`Rmw`, `Lock`…) whose operands are pure. Conditions, call arguments and
//! compound expressions read only thread-local variables, because every shared read they
//! contained was hoisted into a temporary (`if (φ(x)) …` ↦ `tmp = x; if (φ(tmp)) …`). The
//! rewriter then only has to instrument assignments, and the event graph sees one access
//! per site.

use crate::ir::*;
use crate::source::Loc;

/// Prefix of variables that are never instrumented (CBMC's goto-instrument convention, used
/// by the ESOP litmus suite for the registers and counters a test observes at the end).
pub const UNBUFFERED_PREFIX: &str = "__unbuffered_";

/// Prefix of the *pick* conditions the litmus translator writes for AArch64 `CAS` and `CSEL`
/// (`__unbuffered_pick_p1_3 = (r == s); if (__unbuffered_pick_p1_3) … else …`). The branch
/// only selects which value a register or memory receives — herd's `iico_ctrl` inside one
/// instruction, a *pick* dependency — and is not a control dependency: the event graph gives
/// it no `ctrl`, and the rewriter does not make later writes wait for the reads whose values
/// it speculated (see [`is_pick_cond`]). Such variables are `__unbuffered_` registers.
pub const PICK_PREFIX: &str = "__unbuffered_pick_";

/// Whether a branch condition reads only pick variables ([`PICK_PREFIX`]): a selection, not a
/// control dependency.
pub fn is_pick_cond(prog: &Program, cond: &Expr) -> bool {
    let (mut vars, mut all) = (0, true);
    cond.visit(&mut |x| {
        if let ExprKind::Var(v) = x.kind {
            vars += 1;
            all &= prog.var(v).name.starts_with(PICK_PREFIX);
        }
    });
    vars > 0 && all
}

/// Whether a variable lives in memory other threads may reach: globals and locals whose
/// address is taken, except `__unbuffered_*` globals which, as in goto-instrument, are
/// treated like registers (SC, never events).
pub fn var_is_shared(prog: &Program, v: VarId) -> bool {
    let var = prog.var(v);
    (var.is_global() || var.address_taken) && !var.name.starts_with(UNBUFFERED_PREFIX)
}

/// Whether the lvalue `e` denotes shared memory (reading or writing it is a memory event).
pub fn lvalue_is_shared(prog: &Program, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(v) => var_is_shared(prog, *v) && !matches!(e.ty, Type::Func(_)),
        ExprKind::Deref(_) => true,
        ExprKind::Index(base, _) | ExprKind::Member(base, _) => lvalue_is_shared(prog, base),
        _ => false,
    }
}

/// Whether `e` is an lvalue expression (something that designates memory).
pub fn is_lvalue(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Index(..) | ExprKind::Member(..)
    )
}

/// Rewrites every function body of `prog` in place.
pub fn normalize(prog: &mut Program) {
    for fi in 0..prog.funcs.len() {
        let Some(body) = prog.funcs[fi].body.take() else { continue };
        let mut n = Normalizer { prog, func: FuncId(fi as u32) };
        let body = n.block(body);
        prog.funcs[fi].body = Some(body);
    }
    number_stmts(prog);
}

struct Normalizer<'a> {
    prog: &'a mut Program,
    func: FuncId,
}

impl Normalizer<'_> {
    fn temp(&mut self, ty: Type, loc: Loc) -> VarId {
        let n = self.prog.vars.len();
        // Arrays and functions never reach here as values (they decay before), but keep a
        // scalar type for safety.
        let ty = match ty {
            Type::Array(t, _) => Type::Ptr(t),
            Type::Func(_) => Type::ptr_to(Type::Void),
            t => t,
        };
        self.prog.add_var(Var {
            name: format!("__weakc_tmp{n}"),
            ty,
            storage: Storage::Temp { func: self.func },
            init: None,
            address_taken: false,
            loc,
        })
    }

    fn block(&mut self, block: Block) -> Block {
        let mut out = Vec::with_capacity(block.len());
        for s in block {
            self.stmt(s, &mut out);
        }
        out
    }

    /// Hoists every shared read inside `e` (all of `e` when it is itself a shared lvalue read)
    /// into temporaries appended to `out`, returning the read-free expression.
    fn pure(&mut self, e: Expr, loc: Loc, out: &mut Block) -> Expr {
        let e = self.pure_inner(e, loc, out);
        if is_lvalue(&e) && lvalue_is_shared(self.prog, &e) && !matches!(e.ty, Type::Array(..)) {
            let ty = e.ty.clone();
            let t = self.temp(ty.clone(), loc);
            out.push(Stmt::new(StmtKind::Assign { lhs: Expr::var(t, ty.clone()), rhs: e }, loc));
            return Expr::var(t, ty);
        }
        e
    }

    /// Makes the *operands* of `e` read-free but leaves `e` itself (possibly a shared lvalue)
    /// in place: used for the address computation of an access.
    fn pure_inner(&mut self, e: Expr, loc: Loc, out: &mut Block) -> Expr {
        let Expr { kind, ty } = e;
        let kind = match kind {
            ExprKind::Unary(op, a) => ExprKind::Unary(op, Box::new(self.pure(*a, loc, out))),
            ExprKind::Binary(op, a, b) => {
                let a = self.pure(*a, loc, out);
                let b = self.pure(*b, loc, out);
                ExprKind::Binary(op, Box::new(a), Box::new(b))
            }
            ExprKind::Cond(c, a, b) => {
                let c = self.pure(*c, loc, out);
                let a = self.pure(*a, loc, out);
                let b = self.pure(*b, loc, out);
                ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b))
            }
            ExprKind::Cast(a) => ExprKind::Cast(Box::new(self.pure(*a, loc, out))),
            // `*p`: reading `p` is a read; the dereference itself is the access.
            ExprKind::Deref(p) => ExprKind::Deref(Box::new(self.pure(*p, loc, out))),
            // `&lv` reads only what the address computation of `lv` reads.
            ExprKind::AddrOf(lv) => ExprKind::AddrOf(Box::new(self.pure_inner(*lv, loc, out))),
            ExprKind::Member(base, f) => {
                ExprKind::Member(Box::new(self.pure_inner(*base, loc, out)), f)
            }
            ExprKind::Index(base, i) => {
                let base = if matches!(base.ty, Type::Array(..)) {
                    self.pure_inner(*base, loc, out)
                } else {
                    self.pure(*base, loc, out)
                };
                ExprKind::Index(Box::new(base), Box::new(self.pure(*i, loc, out)))
            }
            k => k,
        };
        Expr { kind, ty }
    }

    /// A destination lvalue: operands made pure; if shared, writes go through a temporary
    /// when the producing statement is not a plain assignment (calls, RMWs).
    fn dest_via_temp(&mut self, dest: Expr, loc: Loc, out: &mut Block, after: &mut Block) -> Expr {
        let dest = self.pure_inner(dest, loc, out);
        if lvalue_is_shared(self.prog, &dest) {
            let ty = dest.ty.clone();
            let t = self.temp(ty.clone(), loc);
            after.push(Stmt::new(StmtKind::Assign { lhs: dest, rhs: Expr::var(t, ty.clone()) }, loc));
            Expr::var(t, ty)
        } else {
            dest
        }
    }

    fn stmt(&mut self, s: Stmt, out: &mut Block) {
        let loc = s.loc;
        let mut after = Vec::new();
        let kind = match s.kind {
            StmtKind::Assign { lhs, rhs } => {
                let lhs = self.pure_inner(lhs, loc, out);
                let rhs = if lvalue_is_shared(self.prog, &lhs) {
                    self.pure(rhs, loc, out)
                } else if is_lvalue(&rhs) && !matches!(rhs.ty, Type::Array(..)) {
                    // `local = shared;` is the normal form of a read: keep it.
                    self.pure_inner(rhs, loc, out)
                } else {
                    self.pure(rhs, loc, out)
                };
                StmtKind::Assign { lhs, rhs }
            }
            StmtKind::Call { dest, callee, args } => {
                let callee = match callee {
                    Callee::Indirect(e) => Callee::Indirect(self.pure(e, loc, out)),
                    c => c,
                };
                let args = args.into_iter().map(|a| self.pure(a, loc, out)).collect();
                let dest = dest.map(|d| self.dest_via_temp(d, loc, out, &mut after));
                StmtKind::Call { dest, callee, args }
            }
            StmtKind::If { cond, then_, else_ } => {
                let cond = self.pure(cond, loc, out);
                StmtKind::If { cond, then_: self.block(then_), else_: self.block(else_) }
            }
            StmtKind::Loop { body, latch } => {
                StmtKind::Loop { body: self.block(body), latch: self.block(latch) }
            }
            StmtKind::Block(b) => StmtKind::Block(self.block(b)),
            StmtKind::Return(Some(e)) => StmtKind::Return(Some(self.pure(e, loc, out))),
            StmtKind::Assert { cond, msg, ctrl } => StmtKind::Assert { cond: self.pure(cond, loc, out), msg, ctrl },
            StmtKind::Assume(c) => StmtKind::Assume(self.pure(c, loc, out)),
            StmtKind::Spawn { tid, func, arg } => {
                let func = self.pure(func, loc, out);
                let arg = self.pure(arg, loc, out);
                let tid = tid.map(|t| self.pure(t, loc, out));
                StmtKind::Spawn { tid, func, arg }
            }
            StmtKind::Join { tid, ret } => {
                let tid = self.pure(tid, loc, out);
                let ret = ret.map(|r| self.pure(r, loc, out));
                StmtKind::Join { tid, ret }
            }
            StmtKind::Lock(p) => StmtKind::Lock(self.pure(p, loc, out)),
            StmtKind::Unlock(p) => StmtKind::Unlock(self.pure(p, loc, out)),
            StmtKind::Rmw(r) => {
                let ptr = self.pure(r.ptr, loc, out);
                let val = self.pure(r.val, loc, out);
                let expected = r.expected.map(|e| self.pure(e, loc, out));
                let dest = r.dest.map(|d| self.dest_via_temp(d, loc, out, &mut after));
                StmtKind::Rmw(Rmw { op: r.op, dest, ptr, val, expected, order: r.order })
            }
            k => k,
        };
        out.push(Stmt { kind, loc, id: s.id, hw: s.hw });
        out.extend(after);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog_with(globals: &[&str], locals: &[&str]) -> (Program, Vec<VarId>) {
        let mut p = Program::default();
        p.funcs.push(Function {
            name: "f".into(),
            ty: FuncType { ret: Type::Void, params: vec![], variadic: false },
            params: vec![],
            body: Some(vec![]),
            loc: Loc::default(),
        });
        let mut ids = vec![];
        for g in globals {
            ids.push(p.add_var(Var {
                name: g.to_string(),
                ty: Type::INT,
                storage: Storage::Global,
                init: None,
                address_taken: false,
                loc: Loc::default(),
            }));
        }
        for l in locals {
            ids.push(p.add_var(Var {
                name: l.to_string(),
                ty: Type::INT,
                storage: Storage::Local { func: FuncId(0) },
                init: None,
                address_taken: false,
                loc: Loc::default(),
            }));
        }
        (p, ids)
    }

    fn shared_reads(p: &Program, e: &Expr) -> usize {
        let mut n = 0;
        e.visit(&mut |x| {
            if is_lvalue(x) && lvalue_is_shared(p, x) {
                n += 1
            }
        });
        n
    }

    #[test]
    fn hoists_reads_from_conditions_and_copies() {
        let (mut p, v) = prog_with(&["x", "y"], &["r"]);
        let x = Expr::var(v[0], Type::INT);
        let y = Expr::var(v[1], Type::INT);
        let r = Expr::var(v[2], Type::INT);
        let body = vec![
            // x = y;  → tmp = y; x = tmp;
            Stmt::new(StmtKind::Assign { lhs: x.clone(), rhs: y.clone() }, Loc::default()),
            // r = x;  stays
            Stmt::new(StmtKind::Assign { lhs: r.clone(), rhs: x.clone() }, Loc::default()),
            // if (x + y == 2) ...  → two temps
            Stmt::new(
                StmtKind::If {
                    cond: Expr::new(
                        ExprKind::Binary(
                            BinOp::Eq,
                            Box::new(Expr::new(ExprKind::Binary(BinOp::Add, Box::new(x), Box::new(y)), Type::INT)),
                            Box::new(Expr::int(2)),
                        ),
                        Type::INT,
                    ),
                    then_: vec![],
                    else_: vec![],
                },
                Loc::default(),
            ),
        ];
        p.funcs[0].body = Some(body);
        normalize(&mut p);
        let body = p.funcs[0].body.as_ref().unwrap();
        assert_eq!(body.len(), 6, "{body:#?}");
        for s in body {
            match &s.kind {
                StmtKind::Assign { lhs, rhs } => {
                    let total = shared_reads(&p, rhs) + usize::from(lvalue_is_shared(&p, lhs));
                    assert!(total <= 1, "more than one shared access in {s:?}");
                }
                StmtKind::If { cond, .. } => assert_eq!(shared_reads(&p, cond), 0),
                _ => {}
            }
            assert!(s.id != 0);
        }
    }
}
