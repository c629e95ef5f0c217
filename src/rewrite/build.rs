//! Small constructors for IR the rewriter emits (keeps the instrumentation readable).

use crate::ir::*;
use crate::source::Loc;

pub fn var(v: VarId, ty: &Type) -> Expr {
    Expr::var(v, ty.clone())
}
pub fn int(v: i128) -> Expr {
    Expr::int(v)
}
pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() { Type::INT } else { a.ty.clone() };
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}
pub fn and(a: Expr, b: Expr) -> Expr {
    bin(BinOp::LogAnd, a, b)
}
pub fn or(a: Expr, b: Expr) -> Expr {
    bin(BinOp::LogOr, a, b)
}
pub fn eq(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Eq, a, b)
}
pub fn ne(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Ne, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Lt, a, b)
}
pub fn not(a: Expr) -> Expr {
    Expr::new(ExprKind::Unary(UnOp::Not, Box::new(a)), Type::INT)
}
pub fn index(arr: Expr, i: Expr) -> Expr {
    let elem = arr.ty.pointee().cloned().unwrap_or(Type::INT);
    Expr::new(ExprKind::Index(Box::new(arr), Box::new(i)), elem)
}
pub fn deref(p: Expr) -> Expr {
    let t = p.ty.pointee().cloned().unwrap_or(Type::INT);
    Expr::new(ExprKind::Deref(Box::new(p)), t)
}
pub fn addr_of(lv: Expr) -> Expr {
    let t = Type::ptr_to(lv.ty.clone());
    Expr::new(ExprKind::AddrOf(Box::new(lv)), t)
}
pub fn null(ty: &Type) -> Expr {
    Expr::new(ExprKind::Cast(Box::new(int(0))), ty.clone())
}
pub fn nondet_bool() -> Expr {
    Expr::new(ExprKind::Nondet, Type::Bool)
}

pub fn stmt(kind: StmtKind, loc: Loc) -> Stmt {
    Stmt::new(kind, loc)
}
pub fn assign(lhs: Expr, rhs: Expr, loc: Loc) -> Stmt {
    stmt(StmtKind::Assign { lhs, rhs }, loc)
}
pub fn if_(cond: Expr, then_: Block, else_: Block, loc: Loc) -> Stmt {
    stmt(StmtKind::If { cond, then_, else_ }, loc)
}
pub fn assume(c: Expr, loc: Loc) -> Stmt {
    stmt(StmtKind::Assume(c), loc)
}
pub fn call(f: FuncId, args: Vec<Expr>, loc: Loc) -> Stmt {
    stmt(StmtKind::Call { dest: None, callee: Callee::Direct(f), args }, loc)
}
/// `atomic_begin; body; atomic_end` — every instrumented access is indivisible (ESOP §4.4).
pub fn atomic(body: Block, loc: Loc) -> Vec<Stmt> {
    let mut v = Vec::with_capacity(body.len() + 2);
    v.push(stmt(StmtKind::AtomicBegin, loc));
    v.extend(body);
    v.push(stmt(StmtKind::AtomicEnd, loc));
    v
}
pub fn uint(v: u32) -> Expr {
    Expr::new(ExprKind::Const(v as i128), Type::UINT)
}
