//! Type punning the engine does not model. Memory is made of scalar cells of their declared
//! widths (see [`super::layout`]): reading an object through a type whose cells differ from
//! the object's (a union's other member, `*(int *)&pair_of_shorts`, bytes of an `int` through
//! a `char *`) does not give the bytes the hardware would. Such places make the engine's
//! verdict UNKNOWN instead of a silently wrong one. The check is syntactic: a cast is seen
//! where it takes the object's address itself; a pointer that reached the other type through
//! a `void *` variable is not (nor are accesses whose layout only differs on a big-endian
//! machine: a narrower member read from a wider value is its low bytes).

use super::layout::Layout;
use crate::frontend::dump::type_str;
use crate::ir::*;
use crate::source::Loc;
use std::collections::BTreeMap;

/// Where the program reinterprets memory, with why (first place per union type or cast).
pub fn find(prog: &Program) -> Vec<(Loc, String)> {
    let mut layout = Layout::new(prog);
    let mut out = vec![];
    // Per union type: the members accessed, with the first place of each.
    let mut members: BTreeMap<StructId, BTreeMap<usize, Loc>> = BTreeMap::new();
    // Per union type: a member narrower than the union written (first place).
    let mut narrow: BTreeMap<StructId, (usize, Loc)> = BTreeMap::new();
    let mut casts_seen = std::collections::HashSet::new();
    for f in &prog.funcs {
        let Some(body) = &f.body else { continue };
        walk_stmts(body, &mut |s| {
            if let StmtKind::Assign { lhs: Expr { kind: ExprKind::Member(inner, idx), .. }, .. } = &s.kind {
                if let Type::Struct(u) = &inner.ty {
                    let def = prog.strukt(*u);
                    if def.is_union && layout.cells(&def.fields[*idx].ty) != layout.cells(&inner.ty) {
                        narrow.entry(*u).or_insert((*idx, s.loc));
                    }
                }
            }
            for_each_expr(s, &mut |e| {
                // The casts to bytes inside a move by bytes only compute an address: the
                // engine places the move in its cells (or distrusts it). Outer expressions
                // are visited first.
                let mut address_only: std::collections::HashSet<*const Expr> = std::collections::HashSet::new();
                e.visit(&mut |x| match &x.kind {
                    ExprKind::Member(inner, idx) => {
                        if let Type::Struct(u) = &inner.ty {
                            if prog.strukt(*u).is_union {
                                members.entry(*u).or_default().entry(*idx).or_insert(s.loc);
                            }
                        }
                    }
                    ExprKind::Cast(inner) => {
                        // Only where the object is known: `(int *)&x`, `(int *)((char *)&x + 1)`
                        // (a cast of a pointer variable says nothing of the object it points
                        // to: `container_of` casts back to the object's own type).
                        if let Some(m) = super::layout::byte_move(inner) {
                            mark_address_only(m.ptr, &mut address_only);
                            return;
                        }
                        // `(T *)((char *)p + n)` with any `n`: the bytes are only an address
                        // (the engine moves through the object's layout); the cast to `T *`
                        // itself is still checked against the object below.
                        if x.ty.is_pointer() && !super::layout::is_byte_pointer(&x.ty) {
                            if let ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) = &super::layout::strip_pointer_casts(inner).kind {
                                for p in [&**a, &**b].into_iter().filter(|p| super::layout::is_byte_pointer(&p.ty)) {
                                    mark_address_only(p, &mut address_only);
                                }
                            }
                        }
                        if address_only.contains(&(x as *const Expr)) {
                            return;
                        }
                        let (Type::Ptr(to), Some(from)) = (&x.ty, object_of(inner)) else { return };
                        if matches!(**to, Type::Void | Type::Func(_)) || matches!(from, Type::Void | Type::Func(_)) {
                            return;
                        }
                        // Bytes of an object whose layout in bytes is known: the engine
                        // places every move through them and checks the width of every
                        // access (`Symex::note_width`).
                        if matches!(**to, Type::Int { bits: 8, .. } | Type::Bool) && layout.cell_map(from).is_some() {
                            return;
                        }
                        let (a, b) = (layout.cells(from), layout.cells(to));
                        // Reading a prefix of the object with its own cells is exact (a
                        // struct's first member, a common initial sequence).
                        if a.starts_with(&b) || b.starts_with(&a) {
                            return;
                        }
                        if casts_seen.insert((from.clone(), (**to).clone())) {
                            out.push((s.loc, format!("a pointer to `{}` is cast to `{}*`: weakc's engine does not model reading memory through a type of other widths", type_str(prog, from), type_str(prog, to))));
                        }
                    }
                    _ => {}
                })
            });
        });
    }
    // A write of a narrower member replaces the whole cell; reading a narrower member of a
    // wider value truncates it, which is exact on a little-endian machine.
    for (u, (w, wloc)) in narrow {
        let def = prog.strukt(u);
        let cells = layout.cells(&def.fields[w].ty);
        let other = members.get(&u).into_iter().flatten().find(|(&i, _)| layout.cells(&def.fields[i].ty) != cells);
        if let Some((&i, _)) = other {
            out.push((wloc, format!("union `{}` is written as `{}` and accessed as `{}`, of other widths: weakc's engine does not model bytes", def.tag, def.fields[w].name, def.fields[i].name)));
        }
    }
    out.sort_by_key(|(l, _)| (l.file, l.line, l.col));
    out
}

/// `p` and the casts under it only compute an address.
fn mark_address_only(mut p: &Expr, set: &mut std::collections::HashSet<*const Expr>) {
    set.insert(p);
    while let ExprKind::Cast(q) = &p.kind {
        p = q;
        set.insert(p);
    }
}

/// The type of the object whose address `e` computes, when `e` takes an address itself
/// (through casts and pointer arithmetic).
fn object_of(e: &Expr) -> Option<&Type> {
    match &e.kind {
        ExprKind::AddrOf(o) => Some(&o.ty),
        ExprKind::Cast(a) => object_of(a),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => object_of(a).or_else(|| object_of(b)),
        _ => None,
    }
}

