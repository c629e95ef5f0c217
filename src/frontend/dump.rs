//! A compact, C-like text dump of the IR (for tests and debugging; not valid C).

use crate::ir::*;
use std::fmt::Write;

pub fn type_str(p: &Program, t: &Type) -> String {
    match t {
        Type::Void => "void".into(),
        Type::Bool => "_Bool".into(),
        Type::Int { bits, signed } => format!("{}{}", if *signed { "i" } else { "u" }, bits),
        Type::Float { bits } => format!("f{bits}"),
        Type::Ptr(t) => format!("{}*", type_str(p, t)),
        Type::Array(t, n) => format!("{}[{}]", type_str(p, t), n.map(|n| n.to_string()).unwrap_or_default()),
        Type::Struct(id) => {
            let s = &p.structs[id.0 as usize];
            format!("{} {}", if s.is_union { "union" } else { "struct" }, s.tag)
        }
        Type::Func(f) => {
            let ps: Vec<String> = f.params.iter().map(|t| type_str(p, t)).collect();
            format!("{}({}{})", type_str(p, &f.ret), ps.join(", "), if f.variadic { ", ..." } else { "" })
        }
    }
}

pub fn expr_str(p: &Program, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Const(v) => v.to_string(),
        ExprKind::FloatConst(s) => s.clone(),
        ExprKind::Str(s) => crate::cprint::c_string(s),
        ExprKind::Var(v) => p.var(*v).name.clone(),
        ExprKind::FuncAddr(f) => format!("&{}", p.func(*f).name),
        ExprKind::Unary(op, a) => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::Not => "!",
            };
            format!("{o}{}", expr_str(p, a))
        }
        ExprKind::Binary(op, a, b) => format!("({} {} {})", expr_str(p, a), op.c_str(), expr_str(p, b)),
        ExprKind::Cond(c, a, b) => format!("({} ? {} : {})", expr_str(p, c), expr_str(p, a), expr_str(p, b)),
        ExprKind::Cast(a) => format!("({}){}", type_str(p, &e.ty), expr_str(p, a)),
        ExprKind::Deref(a) => format!("*{}", expr_str(p, a)),
        ExprKind::AddrOf(a) => format!("&{}", expr_str(p, a)),
        ExprKind::Member(a, i) => {
            let name = match &a.ty {
                Type::Struct(id) => p.strukt(*id).fields.get(*i).map(|f| f.name.clone()).unwrap_or_else(|| i.to_string()),
                _ => i.to_string(),
            };
            match &a.kind {
                ExprKind::Deref(inner) => format!("{}->{}", expr_str(p, inner), name),
                _ => format!("{}.{}", expr_str(p, a), name),
            }
        }
        ExprKind::Index(a, i) => format!("{}[{}]", expr_str(p, a), expr_str(p, i)),
        ExprKind::Nondet => "nondet()".into(),
    }
}

fn init_str(p: &Program, i: &Init) -> String {
    match i {
        Init::Expr(e) => expr_str(p, e),
        Init::List(l) => format!("{{{}}}", l.iter().map(|i| init_str(p, i)).collect::<Vec<_>>().join(", ")),
    }
}

fn block(p: &Program, b: &[Stmt], ind: usize, out: &mut String) {
    for s in b {
        stmt(p, s, ind, out);
    }
}

fn stmt(p: &Program, s: &Stmt, ind: usize, out: &mut String) {
    let pad = "  ".repeat(ind);
    let e = |x: &Expr| expr_str(p, x);
    match &s.kind {
        StmtKind::Assign { lhs, rhs } => writeln!(out, "{pad}{} = {};", e(lhs), e(rhs)),
        StmtKind::Call { dest, callee, args } => {
            let c = match callee {
                Callee::Direct(f) => p.func(*f).name.clone(),
                Callee::Indirect(x) => format!("(*{})", e(x)),
            };
            let a: Vec<String> = args.iter().map(e).collect();
            match dest {
                Some(d) => writeln!(out, "{pad}{} = {c}({});", e(d), a.join(", ")),
                None => writeln!(out, "{pad}{c}({});", a.join(", ")),
            }
        }
        StmtKind::If { cond, then_, else_ } => {
            let _ = writeln!(out, "{pad}if ({}) {{", e(cond));
            block(p, then_, ind + 1, out);
            if !else_.is_empty() {
                let _ = writeln!(out, "{pad}}} else {{");
                block(p, else_, ind + 1, out);
            }
            writeln!(out, "{pad}}}")
        }
        StmtKind::Loop { body, latch } => {
            let _ = writeln!(out, "{pad}loop {{");
            block(p, body, ind + 1, out);
            if !latch.is_empty() {
                let _ = writeln!(out, "{pad}}} latch {{");
                block(p, latch, ind + 1, out);
            }
            writeln!(out, "{pad}}}")
        }
        StmtKind::Break => writeln!(out, "{pad}break;"),
        StmtKind::Continue => writeln!(out, "{pad}continue;"),
        StmtKind::Return(None) => writeln!(out, "{pad}return;"),
        StmtKind::Return(Some(x)) => writeln!(out, "{pad}return {};", e(x)),
        StmtKind::Goto(l) => writeln!(out, "{pad}goto L{};", l.0),
        StmtKind::Label(l, n) => writeln!(out, "{pad}L{}: // {n}", l.0),
        StmtKind::Assert { cond, msg, .. } => writeln!(out, "{pad}assert({}); // {msg}", e(cond)),
        StmtKind::Assume(c) => writeln!(out, "{pad}assume({});", e(c)),
        StmtKind::Fence(f) => writeln!(out, "{pad}fence({});", f.name()),
        StmtKind::AtomicBegin => writeln!(out, "{pad}atomic_begin;"),
        StmtKind::AtomicEnd => writeln!(out, "{pad}atomic_end;"),
        StmtKind::Spawn { tid, func, arg } => {
            writeln!(out, "{pad}spawn({}, {}, {});", tid.as_ref().map(e).unwrap_or_else(|| "-".into()), e(func), e(arg))
        }
        StmtKind::Join { tid, ret } => writeln!(out, "{pad}join({}, {});", e(tid), ret.as_ref().map(e).unwrap_or_else(|| "-".into())),
        StmtKind::Lock(x) => writeln!(out, "{pad}lock({});", e(x)),
        StmtKind::Unlock(x) => writeln!(out, "{pad}unlock({});", e(x)),
        StmtKind::Rmw(r) => {
            let d = r.dest.as_ref().map(|d| format!("{} = ", e(d))).unwrap_or_default();
            let ex = r.expected.as_ref().map(|x| format!(", expected {}", e(x))).unwrap_or_default();
            writeln!(out, "{pad}{d}rmw {:?}({}, {}{ex}, {:?});", r.op, e(&r.ptr), e(&r.val), r.order)
        }
        StmtKind::Block(b) => {
            let _ = writeln!(out, "{pad}{{");
            block(p, b, ind + 1, out);
            writeln!(out, "{pad}}}")
        }
        StmtKind::Skip => writeln!(out, "{pad}skip;"),
    }
    .ok();
}

/// Dumps the whole program: structs, globals, functions (bodies included).
pub fn dump(p: &Program) -> String {
    let mut out = String::new();
    for s in &p.structs {
        let fs: Vec<String> = s.fields.iter().map(|f| format!("{} {}", type_str(p, &f.ty), f.name)).collect();
        let _ = writeln!(out, "{} {} {{ {} }}", if s.is_union { "union" } else { "struct" }, s.tag, fs.join("; "));
    }
    for g in &p.globals {
        let v = p.var(*g);
        let init = v.init.as_ref().map(|i| format!(" = {}", init_str(p, i))).unwrap_or_default();
        let tl = if matches!(v.storage, Storage::ThreadLocal) { "__thread " } else { "" };
        let _ = writeln!(out, "{tl}{} {}{init};", type_str(p, &v.ty), v.name);
    }
    for f in &p.funcs {
        let params: Vec<String> = f.params.iter().map(|v| format!("{} {}", type_str(p, &p.var(*v).ty), p.var(*v).name)).collect();
        match &f.body {
            None => {
                let _ = writeln!(out, "extern {} {};", type_str(p, &Type::Func(Box::new(f.ty.clone()))), f.name);
            }
            Some(b) => {
                let _ = writeln!(out, "{} {}({}) {{", type_str(p, &f.ty.ret), f.name, params.join(", "));
                block(p, b, 1, &mut out);
                let _ = writeln!(out, "}}");
            }
        }
    }
    out
}

/// Dumps one block (indentation 0 at its top level).
pub fn block_str(p: &Program, b: &[Stmt]) -> String {
    let mut out = String::new();
    block(p, b, 0, &mut out);
    out
}
