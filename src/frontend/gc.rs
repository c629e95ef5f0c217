//! Drops struct definitions the program never uses (system headers define many) and
//! renumbers the rest.

use crate::ir::*;
use std::collections::HashMap;

fn type_structs(t: &Type, out: &mut Vec<StructId>) {
    match t {
        Type::Struct(id) => out.push(*id),
        Type::Ptr(t) | Type::Array(t, _) => type_structs(t, out),
        Type::Func(f) => {
            type_structs(&f.ret, out);
            f.params.iter().for_each(|p| type_structs(p, out));
        }
        _ => {}
    }
}

pub(super) fn remap_type(t: &mut Type, m: &HashMap<StructId, StructId>) {
    match t {
        Type::Struct(id) => {
            if let Some(n) = m.get(id) {
                *id = *n;
            }
        }
        Type::Ptr(t) | Type::Array(t, _) => remap_type(t, m),
        Type::Func(f) => {
            remap_type(&mut f.ret, m);
            f.params.iter_mut().for_each(|p| remap_type(p, m));
        }
        _ => {}
    }
}

fn expr_types(e: &mut Expr, f: &mut dyn FnMut(&mut Type)) {
    f(&mut e.ty);
    match &mut e.kind {
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Deref(a) | ExprKind::AddrOf(a) | ExprKind::Member(a, _) => expr_types(a, f),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            expr_types(a, f);
            expr_types(b, f);
        }
        ExprKind::Cond(c, a, b) => {
            expr_types(c, f);
            expr_types(a, f);
            expr_types(b, f);
        }
        _ => {}
    }
}

fn init_types(i: &mut Init, f: &mut dyn FnMut(&mut Type)) {
    match i {
        Init::Expr(e) => expr_types(e, f),
        Init::List(l) => l.iter_mut().for_each(|i| init_types(i, f)),
    }
}

fn stmt_types(s: &mut Stmt, f: &mut dyn FnMut(&mut Type)) {
    for_each_expr_mut(s, &mut |e| expr_types(e, f));
}

/// Calls `f` on every type of the program except struct fields.
pub(super) fn program_types(p: &mut Program, f: &mut dyn FnMut(&mut Type)) {
    for v in &mut p.vars {
        f(&mut v.ty);
        if let Some(i) = &mut v.init {
            init_types(i, f);
        }
    }
    for func in &mut p.funcs {
        f(&mut func.ty.ret);
        func.ty.params.iter_mut().for_each(&mut *f);
        if let Some(b) = &mut func.body {
            walk_stmts_mut(b, &mut |s| stmt_types(s, f));
        }
    }
}

pub(super) fn collect_structs(p: &mut Program) {
    let n = p.structs.len();
    let mut used = vec![false; n];
    let mut stack = Vec::new();
    program_types(p, &mut |t| type_structs(t, &mut stack));
    while let Some(id) = stack.pop() {
        let i = id.0 as usize;
        if i >= n || used[i] {
            continue;
        }
        used[i] = true;
        for f in &p.structs[i].fields {
            type_structs(&f.ty, &mut stack);
        }
    }
    // Keep the used ones, each after the structs it contains by value (so that printing in
    // order gives valid C), otherwise in definition order.
    let mut order = Vec::new();
    let mut state = vec![0u8; n];
    for (i, _) in used.iter().enumerate().filter(|(_, u)| **u) {
        visit(i, &p.structs, &mut state, &mut order);
    }
    let mut old: Vec<Option<StructDef>> = std::mem::take(&mut p.structs).into_iter().map(Some).collect();
    let mut map = HashMap::new();
    let mut kept = Vec::new();
    for i in order {
        map.insert(StructId(i as u32), StructId(kept.len() as u32));
        kept.push(old[i].take().expect("struct"));
    }
    for s in &mut kept {
        for f in &mut s.fields {
            remap_type(&mut f.ty, &map);
        }
    }
    p.structs = kept;
    program_types(p, &mut |t| remap_type(t, &map));
}

/// Structs contained by value (directly or through arrays).
fn by_value(t: &Type, out: &mut Vec<usize>) {
    match t {
        Type::Struct(id) => out.push(id.0 as usize),
        Type::Array(e, _) => by_value(e, out),
        _ => {}
    }
}

fn visit(i: usize, structs: &[StructDef], state: &mut [u8], order: &mut Vec<usize>) {
    if i >= structs.len() || state[i] != 0 {
        return;
    }
    state[i] = 1;
    let mut deps = Vec::new();
    for f in &structs[i].fields {
        by_value(&f.ty, &mut deps);
    }
    for d in deps {
        visit(d, structs, state, order);
    }
    state[i] = 2;
    order.push(i);
}
