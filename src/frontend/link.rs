//! Linking translation units into one program, as a C linker does: names with external
//! linkage are one object or function across the units (an `extern` declaration resolves to
//! the unit that defines it), `static` names stay each unit's own, one definition per name,
//! and one `main`. Struct types that two units declare alike (the same header) become one.
//!
//! Each unit was lowered on its own ([`super::Options::unit`]): it keeps every definition
//! with external linkage, and its [`Linkage`] says which names are internal and which
//! globals it defines rather than declares.

use super::gc::{program_types, remap_type};
use crate::ir::*;
use crate::source::{Error, Loc};
use std::collections::HashMap;

/// The units, linked; the program starts in `entry` (an external definition).
pub fn link(units: Vec<Program>, entry: &str) -> Result<Program, Error> {
    let mut out = Program::default();
    // external names: the canonical variable or function, and where it was defined
    let mut ext_vars: HashMap<String, (VarId, Option<Loc>)> = HashMap::new();
    let mut ext_funcs: HashMap<String, FuncId> = HashMap::new();
    let mut tags: HashMap<String, Vec<StructId>> = HashMap::new();
    // globals the system's headers declare: the C library defines them
    let system: std::collections::BTreeSet<String> = units.iter().flat_map(|u| u.linkage.system.iter().cloned()).collect();
    for mut u in units {
        // structs: the same definition (tag, fields, field types up to this mapping) is one
        let mut smap: HashMap<StructId, StructId> = HashMap::new();
        for (i, s) in u.structs.iter().enumerate() {
            let same = tags.get(&s.tag).into_iter().flatten().copied().find(|&c| {
                let mut m = smap.clone();
                m.insert(StructId(i as u32), c);
                same_struct(s, out.strukt(c), &m)
            });
            let id = same.unwrap_or_else(|| {
                out.structs.push(StructDef { tag: s.tag.clone(), is_union: s.is_union, fields: vec![], complete: s.complete, bytes: None, bitfields: vec![], packing: None });
                let id = StructId(out.structs.len() as u32 - 1);
                tags.entry(s.tag.clone()).or_default().push(id);
                id
            });
            smap.insert(StructId(i as u32), id);
        }
        for (i, s) in u.structs.iter().enumerate() {
            let id = smap[&StructId(i as u32)];
            if out.structs[id.0 as usize].fields.is_empty() && !s.fields.is_empty() {
                let mut fields = s.fields.clone();
                for f in &mut fields {
                    remap_type(&mut f.ty, &smap);
                }
                out.structs[id.0 as usize].fields = fields;
                out.structs[id.0 as usize].complete = s.complete;
                out.structs[id.0 as usize].bytes = s.bytes.clone();
                out.structs[id.0 as usize].bitfields = s.bitfields.clone();
                out.structs[id.0 as usize].packing = s.packing.clone();
            }
        }
        program_types(&mut u, &mut |t| remap_type(t, &smap));

        // functions: a definition is the name's; declarations resolve to it
        let mut fmap: HashMap<FuncId, FuncId> = HashMap::new();
        // the slot the next appended function takes; per function of the unit, where it goes
        let mut next = out.funcs.len() as u32;
        let mut slots: Vec<Slot> = vec![];
        for (i, f) in u.funcs.iter().enumerate() {
            let old = FuncId(i as u32);
            if u.linkage.internal.contains(&f.name) {
                fmap.insert(old, FuncId(next));
                next += 1;
                slots.push(Slot::Append);
                continue;
            }
            match ext_funcs.get(&f.name).copied() {
                Some(c) => {
                    let prev = out.func(c);
                    if f.body.is_some() && prev.body.is_some() {
                        return Err(Error::Link { loc: f.loc, msg: format!("multiple definition of `{}`", f.name), first: Some(prev.loc) });
                    }
                    fmap.insert(old, c);
                    // a definition replaces the declaration seen first
                    slots.push(if f.body.is_some() { Slot::Replace(c) } else { Slot::Drop });
                }
                None => {
                    let id = FuncId(next);
                    next += 1;
                    ext_funcs.insert(f.name.clone(), id);
                    fmap.insert(old, id);
                    slots.push(Slot::Append);
                }
            }
        }

        // variables: external globals are one per name
        let mut vmap: HashMap<VarId, VarId> = HashMap::new();
        // definitions of names an earlier unit only declared: unit variable → canonical one
        let mut replaced: HashMap<usize, VarId> = HashMap::new();
        for (i, v) in u.vars.iter().enumerate() {
            let old = VarId(i as u32);
            let external = matches!(v.storage, Storage::Global | Storage::ThreadLocal) && !u.linkage.internal.contains(&v.name) && is_file_scope_name(&v.name);
            if !external {
                vmap.insert(old, VarId((out.vars.len() + i) as u32));
                continue;
            }
            let defines = u.linkage.defined.contains(&v.name) && !system.contains(&v.name);
            match ext_vars.get(&v.name).copied() {
                Some((c, def)) => {
                    if defines {
                        if let Some(first) = def {
                            return Err(Error::Link { loc: v.loc, msg: format!("multiple definition of `{}`", v.name), first: Some(first) });
                        }
                        ext_vars.insert(v.name.clone(), (c, Some(v.loc)));
                        replaced.insert(i, c);
                    }
                    vmap.insert(old, c);
                }
                None => {
                    let id = VarId((out.vars.len() + i) as u32);
                    ext_vars.insert(v.name.clone(), (id, defines.then_some(v.loc)));
                    vmap.insert(old, id);
                }
            }
        }
        let remap_expr = |e: &mut Expr| {
            e.visit_mut_post(&mut |x| match &mut x.kind {
                ExprKind::Var(v) => *v = vmap[v],
                ExprKind::FuncAddr(f) => *f = fmap[f],
                _ => {}
            })
        };
        let remap_init = |i: &mut Init| init_exprs_mut(i, &mut |e| remap_expr(e));
        for f in &mut u.funcs {
            for p in &mut f.params {
                *p = vmap[p];
            }
            if let Some(b) = &mut f.body {
                walk_stmts_mut(b, &mut |s| {
                    if let StmtKind::Call { callee: Callee::Direct(g), .. } = &mut s.kind {
                        *g = fmap[g];
                    }
                    for_each_expr_mut(s, &mut |e| remap_expr(e));
                });
            }
        }
        for (i, mut v) in u.vars.into_iter().enumerate() {
            if let Some(init) = &mut v.init {
                remap_init(init);
            }
            match &mut v.storage {
                Storage::Local { func } | Storage::Temp { func } => *func = fmap[func],
                _ => {}
            }
            // every unit's variables keep their slots (unified ones stay unused), so ids are
            // offsets; a definition met after a declaration takes the declaration's slot
            if let Some(&c) = replaced.get(&i) {
                let decl = &mut out.vars[c.0 as usize];
                decl.init = v.init.clone();
                decl.loc = v.loc;
                decl.ty = v.ty.clone();
            }
            out.vars.push(v);
        }
        for g in u.globals {
            let c = vmap[&g];
            if !out.globals.contains(&c) {
                out.globals.push(c);
            }
        }
        for a in u.atomic_vars {
            let c = vmap[&a];
            if !out.atomic_vars.contains(&c) {
                out.atomic_vars.push(c);
            }
        }
        out.warnings.extend(u.warnings);
        for (f, slot) in u.funcs.into_iter().zip(slots) {
            match slot {
                Slot::Append => out.funcs.push(f),
                Slot::Replace(c) => out.funcs[c.0 as usize] = f,
                Slot::Drop => {}
            }
        }
    }
    // (a `static` function of that name in two units is two candidates, as for a linker
    // looking for an external symbol it is none: only external definitions count)
    let mains: Vec<FuncId> = ext_funcs.get(entry).copied().filter(|&f| out.func(f).body.is_some()).into_iter().collect();
    out.main = match mains.as_slice() {
        [m] => Some(*m),
        _ => return Err(Error::Usage(format!("link: no translation unit defines `{entry}`"))),
    };
    for (name, (v, def)) in &ext_vars {
        if def.is_none() && !system.contains(name) && out.var(*v).init.is_none() && used(&out, *v) {
            return Err(Error::Link { loc: out.var(*v).loc, msg: format!("undefined reference to `{name}`: no translation unit defines it"), first: None });
        }
    }
    check_recursion(&out)?;
    number_stmts(&mut out);
    Ok(out)
}

/// Where a unit's function goes in the linked program.
enum Slot {
    /// A new function (internal, or the first of its name).
    Append,
    /// The definition of a name an earlier unit declared: in the declaration's place.
    Replace(FuncId),
    /// A declaration of a name already there.
    Drop,
}

/// A global's name as the front end gives it: static locals and temporaries are renamed
/// (`f$x`, `__weakc_…`) and never link.
fn is_file_scope_name(name: &str) -> bool {
    !name.contains('$') && !name.starts_with("__weakc")
}

fn init_exprs_mut(i: &mut Init, f: &mut dyn FnMut(&mut Expr)) {
    match i {
        Init::Expr(e) => f(e),
        Init::List(l) => l.iter_mut().for_each(|i| init_exprs_mut(i, f)),
    }
}

fn used(p: &Program, v: VarId) -> bool {
    let mut hit = false;
    let mut look = |e: &Expr| {
        e.visit(&mut |x| hit |= matches!(x.kind, ExprKind::Var(w) if w == v));
    };
    for f in &p.funcs {
        if let Some(b) = &f.body {
            walk_stmts(b, &mut |s| for_each_expr(s, &mut look));
        }
    }
    hit
}

fn same_struct(a: &StructDef, b: &StructDef, m: &HashMap<StructId, StructId>) -> bool {
    if a.is_union != b.is_union || (a.complete && b.complete && (a.fields.len() != b.fields.len() || a.bitfields != b.bitfields)) {
        return false;
    }
    if !a.complete || !b.complete {
        // a declaration of the tag (`struct s;`) is the defined one
        return true;
    }
    a.fields.iter().zip(&b.fields).all(|(x, y)| {
        let mut t = x.ty.clone();
        remap_type(&mut t, m);
        x.name == y.name && t == y.ty
    })
}

/// Calls across units may close a recursion no unit saw: rejected as in one unit.
fn check_recursion(p: &Program) -> Result<(), Error> {
    let n = p.funcs.len();
    let mut adj: Vec<Vec<(usize, Loc)>> = vec![vec![]; n];
    for (i, f) in p.funcs.iter().enumerate() {
        if let Some(b) = &f.body {
            walk_stmts(b, &mut |s| {
                if let StmtKind::Call { callee: Callee::Direct(g), .. } = &s.kind {
                    adj[i].push((g.0 as usize, s.loc));
                }
            });
        }
    }
    let mut colour = vec![0u8; n];
    for r in 0..n {
        if colour[r] != 0 {
            continue;
        }
        let mut stack = vec![(r, 0usize)];
        colour[r] = 1;
        while let Some(&mut (f, ref mut i)) = stack.last_mut() {
            if let Some(&(g, loc)) = adj[f].get(*i) {
                *i += 1;
                match colour[g] {
                    0 => {
                        colour[g] = 1;
                        stack.push((g, 0));
                    }
                    1 => {
                        return Err(Error::unsupported(
                            loc,
                            format!("recursion: `{}` calls `{}`, which is on the call stack (across translation units)", p.funcs[f].name, p.funcs[g].name),
                        ))
                    }
                    _ => {}
                }
            } else {
                colour[f] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}
