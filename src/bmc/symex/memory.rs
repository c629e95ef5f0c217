//! Shared memory: the objects variables and strings live in, their initial values, and
//! reads and writes of cells, which become events.
//!
//! Separate because this is the one place where an access turns into an [`Event`] (or,
//! when the collection pass allows, into a value taken from the path): everything that
//! touches shared memory goes through [`Symex::read_mem`] and [`Symex::write_mem`].

use super::*;
use super::collect::{join_known, known};

impl<'p> Symex<'p> {
    pub(super) fn init_globals(&mut self) -> R<()> {
        let prog = self.prog;
        let statics: Vec<(VarId, &Var)> = prog
            .vars
            .iter()
            .enumerate()
            .filter(|(_, v)| !matches!(v.ty, Type::Func(_)))
            .filter(|(_, v)| v.is_global() || matches!(v.storage, Storage::Local { .. }) && v.init.is_some())
            .map(|(i, v)| (VarId(i as u32), v))
            .collect();
        // Every object first: an initialiser may take the address of a variable declared
        // (or first used) after the one it initialises.
        for &(id, v) in &statics {
            let extent = self.layout.extent(&v.ty);
            let o = self.new_object(v.name.clone(), ObjInit::Zero, Some(ObjRoot::Var(id)), extent, Some(&v.ty))?;
            self.obj_of.insert((GLOBAL_FRAME, id), o);
        }
        for &(id, v) in &statics {
            let Some(init) = &v.init else { continue };
            let cells = self.init_cells(&v.ty, Some(init))?;
            if cells.iter().any(|c| as_const(c) != Some(0)) {
                let o = self.obj_of[&(GLOBAL_FRAME, id)];
                self.objects[o as usize].init = ObjInit::Cells(cells);
            }
        }
        self.tsd_init()
    }

    /// Cell values of a static initialiser (missing parts are zero).
    pub(super) fn init_cells(&mut self, ty: &Type, init: Option<&Init>) -> R<Vec<Bv>> {
        let widths = self.layout.cells(ty);
        let zero = |ws: &[usize]| ws.iter().map(|&w| bv::constant(0, w)).collect::<Vec<_>>();
        let Some(init) = init else { return Ok(zero(&widths)) };
        match (ty, init) {
            (Type::Array(elem, _), Init::Expr(Expr { kind: ExprKind::Str(s), .. })) => {
                let ew = self.layout.cells(elem);
                let mut out = vec![];
                for i in 0..widths.len() / ew.len().max(1) {
                    let b = s.get(i).copied().unwrap_or(0);
                    out.push(bv::constant(b as u128, ew[0]));
                }
                Ok(out)
            }
            (_, Init::Expr(e)) if ty.is_scalar() => {
                let v = self.eval_as(e, ty)?;
                Ok(vec![v])
            }
            (_, Init::Expr(e)) => {
                let v = self.eval(e)?;
                Ok(if v.len() == widths.len() { v } else { zero(&widths) })
            }
            (Type::Array(elem, _), Init::List(items)) => {
                let per = self.layout.ncells(elem);
                let n = widths.len() / per.max(1);
                let mut out = vec![];
                for i in 0..n {
                    out.extend(self.init_cells(elem, items.get(i))?);
                }
                Ok(out)
            }
            (Type::Struct(s), Init::List(items)) => {
                let def = self.prog.strukt(*s);
                if def.is_union {
                    let mut out = zero(&widths);
                    if let Some((k, i)) = Init::union_member(items) {
                        let v = self.init_cells(&def.fields[k].ty.clone(), Some(i))?;
                        for (k, c) in v.into_iter().enumerate() {
                            if k < out.len() {
                                out[k] = self.sat.bv_resize(&c, widths[k], false);
                            }
                        }
                    }
                    return Ok(out);
                }
                let mut out = vec![];
                let prog = self.prog;
                let def = prog.strukt(*s);
                // Where each run of bit-fields has its cell in `out`.
                let mut runs: HashMap<usize, usize> = HashMap::new();
                for (i, f) in def.fields.iter().enumerate() {
                    let v = self.init_cells(&f.ty, items.get(i))?;
                    match def.bitfield(i) {
                        Some(b) => {
                            let at = *runs.entry(b.run).or_insert_with(|| {
                                out.push(bv::constant(0, b.run_bits as usize));
                                out.len() - 1
                            });
                            if let Some(v) = v.first() {
                                out[at] = self.bitfield_set(b, &out[at], v);
                            }
                        }
                        None => out.extend(v),
                    }
                }
                Ok(out)
            }
            (_, Init::List(items)) => self.init_cells(ty, items.first()),
        }
    }

    /// The initial value of the cell at constant address `a`.
    pub(super) fn init_cell(&mut self, a: u128, width: usize) -> Bv {
        let o = (a >> OFF_BITS) as usize;
        let off = (a & ((1u128 << OFF_BITS) - 1)) as usize;
        match self.objects.get(o).map(|x| &x.init) {
            Some(ObjInit::Zero) => bv::constant(0, width),
            Some(ObjInit::Cells(cells)) => match cells.get(off) {
                Some(c) => {
                    let c = c.clone();
                    self.sat.bv_resize(&c, width, false)
                }
                None => self.sat.fresh_bv(width),
            },
            _ => self.sat.fresh_bv(width),
        }
    }

    /// A new object; `ty`, its declared type where it has one, says whether its cells are
    /// bytes.
    pub(super) fn new_object(&mut self, name: String, init: ObjInit, root: Option<ObjRoot>, extent: Option<u128>, ty: Option<&Type>) -> R<u32> {
        if self.objects.len() as u128 >= FUNC_BASE {
            return Err(Error::Internal("too many memory objects for the pointer encoding".into()));
        }
        let map = ty.and_then(|t| self.layout.cell_map(t));
        self.objects.push(Object { name, init, root, extent, map });
        Ok(self.objects.len() as u32 - 1)
    }

    pub(super) fn read_mem(&mut self, addr: Bv, width: usize, ty: &Type, label: String, loc: Loc, roots: Roots) -> Bv {
        if self.dead() {
            return self.sat.fresh_bv(width);
        }
        self.note_deref(&addr, loc, false, &roots);
        // (An acquire read stays an event where dependencies are tracked: what it orders
        // after it depends on when it is satisfied, `(addr | data); lrs; [A]` on AArch64.)
        let acquire = self.track && self.cur_hw.acquire != Acquire::None;
        if self.collected.is_some() && !acquire {
            if let Some(a) = as_const(&addr) {
                if self.resolvable(a) {
                    let v = match self.state.mem.get(&a) {
                        Some(v) => self.sat.bv_resize(v, width, false),
                        None => self.init_cell(a, width),
                    };
                    if let Some(t) = self.state.mem_taint.get(&a).cloned() {
                        self.push_taint(&t);
                    }
                    if self.track {
                        // No event, but the access is still there for `addr; po`.
                        let ap = self.state.deps.addr_po.union(&self.cur_addr, &mut self.sat);
                        self.state.deps.addr_po = ap;
                    }
                    self.step(loc, RawKind::ReadValue { label, val: v.clone(), ty: ty.clone(), reused: None });
                    return v;
                }
            }
        }
        let cells = if self.sequential() { self.var_cells(&addr, width) } else { None };
        if let Some(cells) = cells.filter(|cells| cells.iter().all(|&a| self.resolvable(a))) {
            let v = self.read_cells(&addr, &cells, width);
            self.step(loc, RawKind::ReadValue { label, val: v.clone(), ty: ty.clone(), reused: None });
            return v;
        }
        let cached = as_const(&addr).filter(|_| self.state.cur_block.is_some());
        let g = self.state.guard;
        let hit = cached.and_then(|a| self.state.blk.get(&a)).filter(|(ge, v)| v.len() == width && self.sat.syntactically_implies(g, *ge));
        if let Some((_, v)) = hit {
            let v = v.clone();
            self.step(loc, RawKind::ReadValue { label, val: v.clone(), ty: ty.clone(), reused: cached });
            return v;
        }
        let val = self.read_value(as_const(&addr), width);
        if let Some(a) = cached {
            self.state.blk.insert(a, (g, val.clone()));
        }
        let block = self.event_block();
        let po = self.next_po();
        let ev = self.events.len();
        let deps = self.event_deps(false);
        self.events.push(Event {
            thread: self.ctx.thread,
            block,
            po,
            guard: self.state.guard,
            write: false,
            addr,
            val: val.clone(),
            label,
            loc,
            roots,
            deps,
        });
        if self.track {
            self.acc.push((ev as u32, Lit::TRUE));
        }
        self.step(loc, RawKind::Read { ev, ty: ty.clone() });
        val
    }

    pub(super) fn write_mem(&mut self, addr: Bv, val: Bv, ty: &Type, label: String, loc: Loc, roots: Roots) {
        if self.dead() {
            return;
        }
        self.note_deref(&addr, loc, true, &roots);
        if self.state.cur_block.is_some() {
            self.track_block_write(&addr, &val);
        }
        match as_const(&addr) {
            Some(a) => {
                if ((a >> OFF_BITS) as u32) < self.stable_objs {
                    self.state.mem.insert(a, val.clone());
                    // `(addr | data); rfi`: a read resolved from this cell comes after the
                    // reads its address or value was computed from. rmo.cat has no such rule
                    // (a read of the thread's own write depends on nothing), but for the
                    // `__unbuffered_*` globals, which are registers, as through a local.
                    if self.dd_rfi {
                        let t = self.cur_data.union(&self.cur_addr, &mut self.sat);
                        self.state.mem_taint.insert(a, t);
                    } else if self.track && self.objects[(a >> OFF_BITS) as usize].name.starts_with(crate::normalize::UNBUFFERED_PREFIX) {
                        self.state.mem_taint.insert(a, self.cur_data.clone());
                    }
                }
                if let Some(c) = self.collecting.as_mut() {
                    c.writes[self.ctx.thread].insert(a);
                    let k = known(&val);
                    match c.vals.get_mut(&a) {
                        Some(old) => join_known(old, &k),
                        None => {
                            c.vals.insert(a, k);
                        }
                    }
                }
            }
            None => {
                let cells = self.var_cells(&addr, val.len());
                if self.sequential() {
                    match &cells {
                        Some(cells) => self.write_cells(&addr, cells, &val),
                        // Reads were resolved assuming every write the previous pass could
                        // keep on the path is kept there; this one is not (rare: its object
                        // was constant then): redo without resolution.
                        None => {
                            if let Some(c) = self.collected.as_mut().filter(|c| c.sym_on_path.iter().any(|&b| b)) {
                                c.mismatch = true;
                            }
                        }
                    }
                }
                if let Some(c) = self.collecting.as_mut() {
                    c.sym.push((known(&addr), roots.clone()));
                    c.sym_vals.push(known(&val));
                    c.sym_on_path.push(cells.is_some());
                }
            }
        }
        let block = self.event_block();
        let po = self.next_po();
        let ev = self.events.len();
        let deps = self.event_deps(true);
        self.events.push(Event {
            thread: self.ctx.thread,
            block,
            po,
            guard: self.state.guard,
            write: true,
            addr,
            val,
            label,
            loc,
            roots,
            deps,
        });
        self.step(loc, RawKind::Write { ev, ty: ty.clone() });
    }

    /// Records an access whose address may name no object, or lie outside it (see
    /// [`Self::invalid_derefs`]); a constant address inside its object needs no check.
    fn note_deref(&mut self, addr: &Bv, loc: Loc, write: bool, roots: &Roots) {
        if let Some(a) = as_const(addr) {
            let o = (a >> OFF_BITS) as usize;
            let inside = |x: &Object| x.extent.is_none_or(|e| a & ((1 << OFF_BITS) - 1) < e);
            if o != 0 && self.objects.get(o).is_some_and(inside) {
                return;
            }
        }
        self.derefs.push(Deref { guard: self.state.guard, addr: addr.clone(), loc, write, roots: roots.clone(), check: DerefCheck::Bounds, at: self.here() });
    }

    /// Checks the program's access of `bytes` bytes at `addr` (not the engine's own accesses
    /// to the words it models locks with): where the cell there has another size
    /// (`*(long *)ints`, `((short *)longs)[1]`, a `char` pool used as structs), cell-wise
    /// memory is not what the hardware does. Returns where that is so: a read there takes
    /// any value. An object whose layout is unknown (a union, a heap block kept in a
    /// `void *`) is not checked. Where the object is not a constant, the condition is a
    /// fresh literal defined once every object exists ([`Self::invalid_derefs`]).
    pub(super) fn note_width(&mut self, addr: &Bv, bytes: u64, loc: Loc, write: bool, roots: &Roots) -> Lit {
        if self.dead() {
            return Lit::FALSE;
        }
        let differs = match as_const(&addr[OFF_BITS..]) {
            // (Null is the bounds check's business: see `note_deref`.)
            Some(0) => return Lit::FALSE,
            Some(o) => {
                let Some(map) = self.objects.get(o as usize).and_then(|x| x.map.clone()) else { return Lit::FALSE };
                self.cell_size_differs(&map, &addr[..OFF_BITS], bytes)
            }
            None => {
                let d = self.sat.fresh();
                self.derefs.push(Deref { guard: self.state.guard, addr: addr.clone(), loc, write, roots: roots.clone(), check: DerefCheck::Width(bytes, d), at: self.here() });
                d
            }
        };
        let guard = self.sat.and(self.state.guard, differs);
        self.mixed_size_access(guard, loc, write, bytes);
        differs
    }

    /// [`Self::note_width`] for an access of type `ty` at cell `off` of a variable of type
    /// `var_ty` that lives on the path.
    pub(super) fn note_local_width(&mut self, var_ty: &Type, off: &Bv, ty: &Type, loc: Loc, write: bool) -> Lit {
        if self.dead() {
            return Lit::FALSE;
        }
        let Some(map) = self.layout.cell_map(var_ty) else { return Lit::FALSE };
        let mut differs = vec![];
        let mut width = 0;
        for (j, w) in self.layout.cells(ty).into_iter().enumerate() {
            let at = self.sat.bv_add(off, &bv::constant(j as u128, off.len()));
            differs.push(self.cell_size_differs(&map, &at, w.div_ceil(8) as u64));
            width = width.max(w.div_ceil(8) as u64);
        }
        let differs = self.sat.or_all(differs);
        let guard = self.sat.and(self.state.guard, differs);
        self.mixed_size_access(guard, loc, write, width);
        differs
    }

    /// A mixed-size access of `bytes` bytes, where `guard` holds: a counterexample through
    /// it is not known to be one; neither is "safe" through a write (it would change bytes of
    /// other cells), while a read takes any value.
    pub(super) fn mixed_size_access(&mut self, guard: Lit, loc: Loc, write: bool, bytes: u64) {
        if guard == Lit::FALSE {
            return;
        }
        let what = if write { "writes" } else { "reads" };
        let site = ApproxSite { guard, loc, what: format!("{what} {bytes} byte(s) where its object has a cell of another size (a mixed-size access: the engine's memory is cells of the declared types and would not give the bytes the hardware does)"), at: self.here() };
        if write {
            self.unmodelled.push(site.clone());
        }
        self.approx_sites.push(site);
    }

    /// Whether the path holds memory at non-constant addresses too ([`Self::var_cells`]): a
    /// program of one thread (per the collection pass) under sequential consistency.
    /// (`WEAKC_BMC_NO_PATH_MEMORY` switches it off, for experiments: on some protocols of
    /// `weakc memsys` the events solve faster than the merged cells.)
    pub(super) fn sequential(&self) -> bool {
        std::env::var_os("WEAKC_BMC_NO_PATH_MEMORY").is_none() && self.opts.model.is_none() && self.collected.as_ref().is_some_and(|c| !c.mismatch && c.ids.len() == 1)
    }

    /// The cells of the variable an access at non-constant address `addr` touches, when the
    /// path can hold them in a sequential program: the variable is known statically (only
    /// the offset varies) and every cell of it is `width` bits wide. A read then selects
    /// among the cells and a write updates each conditionally, O(cells), where events cost
    /// a comparison with every other access to the variable.
    fn var_cells(&mut self, addr: &Bv, width: usize) -> Option<Vec<u128>> {
        const MAX_CELLS: usize = 64;
        if as_const(addr).is_some() {
            return None;
        }
        let o = as_const(&addr[OFF_BITS..])? as u32;
        if o == 0 || o >= self.stable_objs {
            return None;
        }
        let Some(ObjRoot::Var(v)) = self.objects[o as usize].root else { return None };
        let ty = self.prog.vars[v.0 as usize].ty.clone();
        let n = self.layout.ncells(&ty);
        if n > MAX_CELLS || self.layout.cells(&ty).iter().any(|&w| w != width) {
            return None;
        }
        let base = (o as u128) << OFF_BITS;
        Some((0..n as u128).map(|i| base | i).collect())
    }

    /// Per cell `i < n` of the variable, whether `addr`'s offset is `i`: the offset's high
    /// bits are zero (once) and its low bits equal `i`.
    fn cell_selectors(&mut self, addr: &Bv, n: usize) -> Vec<Lit> {
        let low = (usize::BITS - n.saturating_sub(1).leading_zeros()) as usize;
        let in_range = !self.sat.or_all(addr[low..OFF_BITS].iter().copied());
        (0..n).map(|i| {
            let eq = self.sat.bv_eq(&addr[..low], &bv::constant(i as u128, low));
            self.sat.and(in_range, eq)
        }).collect()
    }

    /// The value at `addr` among `cells` (an offset outside them reads any value).
    fn read_cells(&mut self, addr: &Bv, cells: &[u128], width: usize) -> Bv {
        let here = self.cell_selectors(addr, cells.len());
        let mut v = self.sat.fresh_bv(width);
        for (&a, &here) in cells.iter().zip(&here).rev() {
            let cell = match self.state.mem.get(&a) {
                Some(c) => self.sat.bv_resize(c, width, false),
                None => self.init_cell(a, width),
            };
            v = self.sat.bv_ite(here, &cell, &v);
        }
        v
    }

    /// Writes `val` at `addr` into whichever of `cells` it names.
    fn write_cells(&mut self, addr: &Bv, cells: &[u128], val: &Bv) {
        let here = self.cell_selectors(addr, cells.len());
        let g = self.state.guard;
        for (&a, &here) in cells.iter().zip(&here) {
            let hit = self.sat.and(g, here);
            if hit == Lit::FALSE {
                continue;
            }
            let old = match self.state.mem.get(&a) {
                Some(c) => self.sat.bv_resize(c, val.len(), false),
                None => self.init_cell(a, val.len()),
            };
            let new = self.sat.bv_ite(hit, val, &old);
            self.state.mem.insert(a, new);
        }
    }

    /// Keeps the block's known values right after a write: a constant address takes the
    /// value, and every known cell the write may hit becomes a choice on the address.
    fn track_block_write(&mut self, addr: &Bv, val: &Bv) {
        let g = self.state.guard;
        if let Some(a) = as_const(addr) {
            let entry = match self.state.blk.get(&a) {
                Some((ge, old)) if old.len() == val.len() && self.sat.syntactically_implies(g, *ge) => {
                    let (ge, old) = (*ge, old.clone());
                    (ge, self.sat.bv_ite(g, val, &old))
                }
                _ => (g, val.clone()),
            };
            self.state.blk.insert(a, entry);
            return;
        }
        let known = std::mem::take(&mut self.state.blk);
        for (a, (ge, old)) in known {
            let same = self.sat.bv_eq(addr, &bv::constant(a, addr.len()));
            let hit = self.sat.and(g, same);
            if hit == Lit::FALSE {
                self.state.blk.insert(a, (ge, old));
            } else if val.len() == old.len() {
                let new = self.sat.bv_ite(hit, val, &old);
                self.state.blk.insert(a, (ge, new));
            }
        }
    }
}
