//! Counting loops: `for (i = a; i < b; i += k)` whose counter is a register of its function
//! (never address-taken, written only by the latch). When such a loop reaches its unwinding
//! bound with its counter and limit known, the number of iterations left is known too, and
//! if the whole count is at most [`MAX_COUNT`] the loop is unwound that much further instead
//! of being cut: the iterations add no path, and the loop then ends on its own condition — no
//! unwinding assertion, no cut (nested ones only while the product of their counts stays
//! at most [`MAX_NEST`]). What this is for: `for (i = 0; i < N; i++)
//! pthread_create(...)` (and the joins, and the initialisation loops before the threads
//! start) at the default bound, where a three-thread program would otherwise fail its
//! unwinding assertion or, without the assertions, silently run two threads; raising
//! `--unwind` for it multiplies every other loop's paths.
//!
//! The count is only a prediction of how far to unwind: the extra iterations are executed
//! like any other (a limit read from memory is read again each time), so a wrong prediction
//! costs an unwinding assertion or a cut, never a behaviour. The limit may be a constant, a
//! register the loop does not write, or a register the loop's head assigns (the normaliser
//! hoists `i < s->n` into `t = s->n; if (!(i < t)) break;`): then the value of the last
//! iteration predicts. The pattern is read off the IR (the front end lowers `for`/`while` to
//! a leading `if (!(cond)) break;` in the body and the increment as the latch); the count is
//! simulated on mathematical integers and abandoned whenever a value would leave its C type
//! (so signed and unsigned comparisons and wrap-around never differ from what was assumed).

use crate::ir::*;

/// The largest number of iterations a counting loop is unwound to beyond `--unwind`.
pub const MAX_COUNT: u32 = 32;

/// The largest product of the counts of nested counting loops unwound beyond `--unwind`
/// (`for i < 32 { for j < 32 { for k < 32 … } } }` would otherwise be 32,768 copies of the
/// innermost body): an inner loop that would exceed it keeps its bound.
pub const MAX_NEST: u32 = 256;

/// A counting loop's shape.
#[derive(Debug)]
pub struct Counter<'p> {
    pub var: VarId,
    /// `var`'s declared type.
    pub var_ty: Type,
    /// The loop goes round while `var OP limit`.
    op: BinOp,
    /// The type `var` is converted to before the comparison (its own when there is no cast).
    cmp_ty: Type,
    pub limit: &'p Expr,
    step: i128,
}

fn int_range(ty: &Type) -> Option<(i128, i128)> {
    match *ty {
        Type::Int { bits, signed } if bits <= 64 => Some(if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }),
        _ => None,
    }
}

fn fits(v: i128, ty: &Type) -> bool {
    int_range(ty).is_some_and(|(lo, hi)| lo <= v && v <= hi)
}

/// `e` as `var` itself, or `var` under integer casts: the type it is compared as.
fn counter_operand(e: &Expr) -> Option<(VarId, Type)> {
    match &e.kind {
        ExprKind::Var(v) => int_range(&e.ty).map(|_| (*v, e.ty.clone())),
        ExprKind::Cast(a) if int_range(&e.ty).is_some() => counter_operand(a).map(|(v, _)| (v, e.ty.clone())),
        _ => None,
    }
}

fn negate(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        BinOp::Ne => BinOp::Eq,
        BinOp::Eq => BinOp::Ne,
        _ => return None,
    })
}

/// Whether a statement of `b` writes `v` or may be entered other than from the loop's head
/// (a label: a forward goto from before the loop could land there with another count).
fn writes_or_enters(b: &[Stmt], v: VarId) -> bool {
    let mut found = false;
    walk_stmts(b, &mut |s| {
        found |= matches!(s.kind, StmtKind::Label(..)) || super::spin::dest_of(s).is_some_and(|d| matches!(d.kind, ExprKind::Var(w) if w == v));
    });
    found
}

/// The counting loop `loop { body; latch }` is, if it is one. `register`: whether a variable
/// lives only on the path of its function (no address taken, not static), so that nothing
/// but the statements of this function can write it.
pub fn counter<'p>(body: &'p [Stmt], latch: &'p [Stmt], register: impl Fn(VarId) -> bool) -> Option<Counter<'p>> {
    // the head: what computes the condition into registers, then the exit test
    let head = body.iter().position(|s| match &s.kind {
        StmtKind::Assign { lhs, .. } => !matches!(lhs.kind, ExprKind::Var(v) if register(v)),
        StmtKind::Rmw(r) => r.op != RmwOp::Load || !matches!(r.dest.as_ref().map(|d| &d.kind), Some(ExprKind::Var(v)) if register(*v)),
        StmtKind::Skip | StmtKind::Fence(_) => false,
        _ => true,
    })?;
    let StmtKind::If { cond, then_, else_ } = &body[head].kind else { return None };
    if !(then_.len() == 1 && matches!(then_[0].kind, StmtKind::Break) && else_.is_empty()) {
        return None;
    }
    // `if (!(v OP limit)) break;` goes round while `v OP limit`; `if (v OP limit) break;`
    // while its negation
    let (cmp, go_on_if_true) = match &cond.kind {
        ExprKind::Unary(UnOp::Not, c) => (&**c, true),
        _ => (cond, false),
    };
    let ExprKind::Binary(op, l, r) = &cmp.kind else { return None };
    let op = if go_on_if_true { *op } else { negate(*op)? };
    negate(op)?; // a comparison
    // the latch: `v = v ± k` (the front end's `v++`, `v += k`), nothing else
    let [Stmt { kind: StmtKind::Assign { lhs, rhs }, .. }] = latch else { return None };
    let ExprKind::Var(var) = lhs.kind else { return None };
    let (cmp_ty, limit, op) = match (counter_operand(l), counter_operand(r)) {
        (Some((v, t)), _) if v == var => (t, &**r, op),
        // `n > i`
        (_, Some((v, t))) if v == var => {
            let flipped = match op {
                BinOp::Lt => BinOp::Gt,
                BinOp::Le => BinOp::Ge,
                BinOp::Gt => BinOp::Lt,
                BinOp::Ge => BinOp::Le,
                o => o,
            };
            (t, &**l, flipped)
        }
        _ => return None,
    };
    if !register(var) {
        return None;
    }
    // the limit: a constant, or a register the loop writes in its head at most
    match &limit.kind {
        ExprKind::Const(_) => {}
        _ => {
            let (u, _) = counter_operand(limit)?;
            if u == var || !register(u) || writes_or_enters(&body[head..], u) || writes_or_enters(latch, u) {
                return None;
            }
        }
    }
    let rhs = match &rhs.kind {
        ExprKind::Cast(a) if rhs.ty == lhs.ty => &**a,
        _ => rhs,
    };
    let ExprKind::Binary(bop @ (BinOp::Add | BinOp::Sub), a, k) = &rhs.kind else { return None };
    let (ExprKind::Var(w), ExprKind::Const(k)) = (&a.kind, &k.kind) else { return None };
    if *w != var || *k == 0 {
        return None;
    }
    let step = if *bop == BinOp::Add { *k } else { -*k };
    if writes_or_enters(body, var) {
        return None;
    }
    Some(Counter { var, var_ty: lhs.ty.clone(), op, cmp_ty, limit, step })
}

impl Counter<'_> {
    /// How many more times the body runs with the counter at `start` and the limit at
    /// `limit` (both as values of their C types), if that is at most `max` and no value
    /// leaves its type on the way.
    pub fn count(&self, start: i128, limit: i128, max: u32) -> Option<u32> {
        // values that fit both operand types compare the same, signed or unsigned
        if !fits(limit, &self.cmp_ty) || !fits(limit, &self.limit.ty) {
            return None;
        }
        let mut v = start;
        for n in 0..=max {
            if !fits(v, &self.var_ty) || !fits(v, &self.cmp_ty) || !fits(v, &self.limit.ty) {
                return None;
            }
            let go_on = match self.op {
                BinOp::Lt => v < limit,
                BinOp::Le => v <= limit,
                BinOp::Gt => v > limit,
                BinOp::Ge => v >= limit,
                BinOp::Ne => v != limit,
                BinOp::Eq => v == limit,
                _ => return None,
            };
            if !go_on {
                return Some(n);
            }
            v += self.step;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(v: u32, ty: Type) -> Expr {
        Expr::new(ExprKind::Var(VarId(v)), ty)
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        let ty = a.ty.clone();
        Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
    }
    fn stmt(kind: StmtKind) -> Stmt {
        Stmt::new(kind, Default::default())
    }
    /// `for (; v OP limit; v += step) { rest }`, `v` an `int`
    fn for_loop(op: BinOp, limit: Expr, step: i128, rest: Vec<Stmt>) -> (Vec<Stmt>, Vec<Stmt>) {
        for_loop_of(Type::INT, op, limit, step, rest)
    }
    fn for_loop_of(ty: Type, op: BinOp, limit: Expr, step: i128, rest: Vec<Stmt>) -> (Vec<Stmt>, Vec<Stmt>) {
        let i = var(0, ty);
        let cond = Expr::new(ExprKind::Unary(UnOp::Not, Box::new(bin(op, i.clone(), limit))), Type::INT);
        let mut body = vec![stmt(StmtKind::If { cond, then_: vec![stmt(StmtKind::Break)], else_: vec![] })];
        body.extend(rest);
        let latch = vec![stmt(StmtKind::Assign { lhs: i.clone(), rhs: bin(BinOp::Add, i, Expr::int(step)) })];
        (body, latch)
    }

    #[test]
    fn counts_follow_the_entry_values_and_stop_at_the_type() {
        let (b, l) = for_loop(BinOp::Lt, Expr::int(3), 1, vec![]);
        let c = counter(&b, &l, |_| true).expect("a counting loop");
        assert_eq!(c.count(0, 3, MAX_COUNT), Some(3));
        assert_eq!(c.count(5, 3, MAX_COUNT), Some(0));
        assert_eq!(c.count(0, 1000, MAX_COUNT), None, "beyond the largest count");
        let (b, l) = for_loop(BinOp::Ne, Expr::int(7), 2, vec![]);
        let c = counter(&b, &l, |_| true).unwrap();
        assert_eq!(c.count(1, 7, MAX_COUNT), Some(3));
        assert_eq!(c.count(0, 7, MAX_COUNT), None, "never equal: no count");
        let (b, l) = for_loop(BinOp::Gt, Expr::int(0), -1, vec![]);
        let c = counter(&b, &l, |_| true).unwrap();
        assert_eq!(c.count(4, 0, MAX_COUNT), Some(4));
        // `3 > i` is `i < 3`
        let (mut b, l) = for_loop(BinOp::Lt, Expr::int(3), 1, vec![]);
        if let StmtKind::If { cond, .. } = &mut b[0].kind {
            *cond = Expr::new(ExprKind::Unary(UnOp::Not, Box::new(bin(BinOp::Gt, Expr::int(3), var(0, Type::INT)))), Type::INT);
        }
        assert_eq!(counter(&b, &l, |_| true).unwrap().count(0, 3, MAX_COUNT), Some(3));
        // an unsigned counter going below zero wraps: not simulated
        let (b, l) = for_loop_of(Type::UINT, BinOp::Ge, Expr::int(0), -1, vec![]);
        let c = counter(&b, &l, |_| true).unwrap();
        assert_eq!(c.count(2, 0, MAX_COUNT), None);
    }

    #[test]
    fn a_counter_written_in_the_body_or_in_memory_is_no_counter() {
        let (b, l) = for_loop(BinOp::Lt, Expr::int(3), 1, vec![]);
        assert!(counter(&b, &l, |_| false).is_none(), "address-taken counter");
        let write = stmt(StmtKind::Assign { lhs: var(0, Type::INT), rhs: Expr::int(0) });
        let (b, l) = for_loop(BinOp::Lt, Expr::int(3), 1, vec![stmt(StmtKind::If { cond: Expr::int(1), then_: vec![write], else_: vec![] })]);
        assert!(counter(&b, &l, |_| true).is_none(), "written in the body");
        let (b, l) = for_loop(BinOp::Lt, Expr::int(3), 1, vec![stmt(StmtKind::Label(LabelId(0), "l".into()))]);
        assert!(counter(&b, &l, |_| true).is_none(), "a label in the body");
        // a limit read from memory is not known at the entry
        let g = Expr::new(ExprKind::Deref(Box::new(Expr::new(ExprKind::Var(VarId(1)), Type::ptr_to(Type::INT)))), Type::INT);
        let (b, l) = for_loop(BinOp::Lt, g.clone(), 1, vec![]);
        assert!(counter(&b, &l, |_| true).is_none());
        // a register limit the body does not write
        let (b, l) = for_loop(BinOp::Lt, var(1, Type::INT), 1, vec![]);
        assert!(counter(&b, &l, |_| true).is_some());
        let (b, l) = for_loop(BinOp::Lt, var(1, Type::INT), 1, vec![stmt(StmtKind::Assign { lhs: var(1, Type::INT), rhs: Expr::int(9) })]);
        assert!(counter(&b, &l, |_| true).is_none());
        // the normaliser's hoisted limit, `t = *g; if (!(i < t)) break;`: the head may assign it
        let (mut b, l) = for_loop(BinOp::Lt, var(1, Type::INT), 1, vec![]);
        b.insert(0, stmt(StmtKind::Assign { lhs: var(1, Type::INT), rhs: g.clone() }));
        assert!(counter(&b, &l, |_| true).is_some());
        // ... unless it goes to memory, or the counter is assigned there
        assert!(counter(&b, &l, |v| v != VarId(1)).is_none());
        b.insert(0, stmt(StmtKind::Assign { lhs: var(0, Type::INT), rhs: g }));
        assert!(counter(&b, &l, |_| true).is_none());
    }
}
