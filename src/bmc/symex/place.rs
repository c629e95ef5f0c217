//! Places: where an lvalue lives (an SSA local, or a cell in an object) and loading or
//! storing all cells of a value there.
//!
//! Separate because it decides which variables are shared memory (address taken, global,
//! static) and which stay SSA values that make no events.

use super::*;

/// How a trace names the run of bit-fields that bit-field `e` lives in (its events read and
/// write the whole run).
pub(super) fn run_label(prog: &Program, e: &Expr) -> String {
    format!("bit-field run of {}", expr_text(prog, e))
}

/// The scalar type of each cell of `ty` (for printing values in traces).
fn cell_types(prog: &Program, ty: &Type, n: usize) -> Vec<Type> {
    fn go(prog: &Program, ty: &Type, out: &mut Vec<Type>, limit: usize) {
        if out.len() >= limit {
            return;
        }
        match ty {
            Type::Array(e, k) => {
                for _ in 0..k.unwrap_or(1) {
                    go(prog, e, out, limit);
                    if out.len() >= limit {
                        break;
                    }
                }
            }
            Type::Struct(s) => {
                let d = prog.strukt(*s);
                if d.is_union {
                    match d.fields.first() {
                        Some(f) => go(prog, &f.ty, out, limit),
                        None => out.push(Type::CHAR),
                    }
                } else {
                    for (i, f) in d.fields.iter().enumerate() {
                        match d.bitfield(i) {
                            Some(b) if b.run == i => out.push(b.run_type()),
                            Some(_) => {}
                            None => go(prog, &f.ty, out, limit),
                        }
                    }
                }
            }
            t => out.push(t.clone()),
        }
    }
    let mut out = vec![];
    go(prog, ty, &mut out, n);
    while out.len() < n {
        out.push(Type::LONG);
    }
    out
}

impl<'p> Symex<'p> {
    /// Points-to roots of the lvalue `lv` (a dereference), when the analysis knows them.
    fn access_roots(&self, lv: &Expr) -> Roots {
        let (alias, roots) = self.alias.as_ref()?;
        let t = alias.access(self.prog, lv);
        if t.unknown || t.objects.is_empty() {
            return None;
        }
        let mut set = BTreeSet::new();
        for o in &t.objects {
            set.insert(*roots.get(o)?);
        }
        Some(Rc::new(set))
    }

    /// Points-to roots of `*p`.
    pub(super) fn ptr_roots(&self, p: &Expr) -> Roots {
        self.alias.as_ref()?;
        let ty = p.ty.pointee().cloned().unwrap_or(Type::INT);
        self.access_roots(&Expr::new(ExprKind::Deref(Box::new(p.clone())), ty))
    }

    pub(super) fn is_mem_var(&self, v: VarId) -> bool {
        let var = self.prog.var(v);
        match var.storage {
            Storage::Local { .. } | Storage::Temp { .. } => var.address_taken || var.init.is_some(),
            // Only its own thread can name a thread-local variable whose address is never
            // taken: it lives on the path like a local (no memory events; set up by
            // `Symex::init_thread_locals`), as the instrumentation's buffers do.
            Storage::ThreadLocal => var.address_taken,
            Storage::Global => true,
        }
    }

    /// Whether `v` is a `static` local (one object for the whole program).
    fn is_static_local(&self, v: VarId) -> bool {
        let var = self.prog.var(v);
        matches!(var.storage, Storage::Local { .. }) && var.init.is_some()
    }

    /// The frame a variable's storage belongs to: the innermost call of its function, the
    /// program (globals, static locals) or the current thread (thread-local storage).
    fn frame_of(&self, v: VarId) -> R<u32> {
        let var = self.prog.var(v);
        if self.is_static_local(v) {
            return Ok(GLOBAL_FRAME);
        }
        let f = match var.storage {
            Storage::Local { func } | Storage::Temp { func } => func,
            Storage::Global => return Ok(GLOBAL_FRAME),
            #[allow(unreachable_patterns)]
            _ => return Ok(TLS_FRAME + self.ctx.thread as u32),
        };
        self.ctx
            .frames
            .iter()
            .rev()
            .find(|fr| fr.func == f)
            .map(|fr| fr.id)
            .ok_or_else(|| Error::Internal(format!("variable `{}` used outside its function", var.name)))
    }

    pub(super) fn var_object(&mut self, v: VarId) -> R<u32> {
        let frame = self.frame_of(v)?;
        if let Some(&o) = self.obj_of.get(&(frame, v)) {
            return Ok(o);
        }
        let var = self.prog.var(v);
        let init = if frame >= TLS_FRAME && frame != GLOBAL_FRAME {
            // Thread-local storage: initialised like a global, one copy per thread.
            let cells = self.init_cells(&var.ty, var.init.as_ref())?;
            ObjInit::Cells(cells)
        } else {
            // An address-taken local: uninitialised, one object per call.
            let widths = self.layout.cells(&var.ty);
            ObjInit::Cells(widths.iter().map(|&w| self.sat.fresh_bv(w)).collect())
        };
        let extent = self.layout.extent(&var.ty);
        let o = self.new_object(var.name.clone(), init, Some(ObjRoot::Var(v)), extent, Some(&var.ty))?;
        self.obj_of.insert((frame, v), o);
        Ok(o)
    }

    pub(super) fn place(&mut self, e: &Expr) -> R<Place> {
        match &e.kind {
            ExprKind::Var(v) => {
                if self.is_mem_var(*v) {
                    let o = self.var_object(*v)?;
                    Ok(Place::Mem { addr: bv::constant((o as u128) << OFF_BITS, PTR_BITS), ty: e.ty.clone(), roots: None })
                } else {
                    let key = (self.frame_of(*v)?, v.0);
                    let var_ty = self.prog.var(*v).ty.clone();
                    Ok(Place::Local { key, var_ty, off: bv::constant(0, LOCAL_OFF_BITS), ty: e.ty.clone() })
                }
            }
            ExprKind::Deref(p) => {
                let addr = self.eval_ptr(p)?;
                let roots = if as_const(&addr).is_some() { None } else { self.access_roots(e) };
                Ok(Place::Mem { addr, ty: e.ty.clone(), roots })
            }
            ExprKind::Index(base, i) => {
                if base.ty.is_pointer() {
                    let addr = self.eval_ptr(base)?;
                    let iv = self.eval_scalar(i)?;
                    let addr = if is_byte_pointer(&base.ty) {
                        self.byte_pointer_add(&addr, base, &iv, is_signed(&i.ty), false)
                    } else {
                        let stride = self.layout.ncells(&e.ty);
                        self.ptr_add(&addr, &iv, is_signed(&i.ty), stride as u128, false)
                    };
                    let roots = if as_const(&addr).is_some() { None } else { self.access_roots(e) };
                    return Ok(Place::Mem { addr, ty: e.ty.clone(), roots });
                }
                let bp = self.place(base)?;
                let iv = self.eval_scalar(i)?;
                let stride = self.layout.ncells(&e.ty) as u128;
                Ok(match bp {
                    Place::Mem { addr, roots, .. } => {
                        let addr = self.ptr_add(&addr, &iv, is_signed(&i.ty), stride, false);
                        Place::Mem { addr, ty: e.ty.clone(), roots }
                    }
                    Place::Local { key, var_ty, off, .. } => {
                        let iv = self.sat.bv_resize(&iv, LOCAL_OFF_BITS, is_signed(&i.ty));
                        let st = bv::constant(stride, LOCAL_OFF_BITS);
                        let d = self.sat.bv_mul(&iv, &st);
                        let off = self.sat.bv_add(&off, &d);
                        Place::Local { key, var_ty, off, ty: e.ty.clone() }
                    }
                })
            }
            ExprKind::Member(base, f) => {
                let bp = self.place(base)?;
                let fo = match &base.ty {
                    Type::Struct(s) => self.layout.field_offset(*s, *f) as u128,
                    _ => 0,
                };
                Ok(match bp {
                    Place::Mem { addr, roots, .. } => {
                        let d = bv::constant(fo, 64);
                        let addr = self.ptr_add(&addr, &d, false, 1, false);
                        Place::Mem { addr, ty: e.ty.clone(), roots }
                    }
                    Place::Local { key, var_ty, off, .. } => {
                        let d = bv::constant(fo, LOCAL_OFF_BITS);
                        let off = self.sat.bv_add(&off, &d);
                        Place::Local { key, var_ty, off, ty: e.ty.clone() }
                    }
                })
            }
            ExprKind::Cast(inner) => {
                // `*(T*)&x`-style lvalues through a cast: reinterpret the place.
                let p = self.place(inner)?;
                Ok(match p {
                    Place::Mem { addr, roots, .. } => Place::Mem { addr, ty: e.ty.clone(), roots },
                    Place::Local { key, var_ty, off, .. } => Place::Local { key, var_ty, off, ty: e.ty.clone() },
                })
            }
            _ => Err(Error::unsupported(Loc::default(), format!("not an lvalue: {}", expr_text(self.prog, e)))),
        }
    }

    /// `p + i*stride` on the offset part of a pointer.
    pub(super) fn ptr_add(&mut self, p: &Bv, i: &Bv, signed: bool, stride: u128, negate: bool) -> Bv {
        let iv = self.sat.bv_resize(i, OFF_BITS, signed);
        let st = bv::constant(stride, OFF_BITS);
        let d = self.sat.bv_mul(&iv, &st);
        let off = if negate { self.sat.bv_sub(&p[..OFF_BITS], &d) } else { self.sat.bv_add(&p[..OFF_BITS], &d) };
        let mut out = off;
        out.extend_from_slice(&p[OFF_BITS..]);
        out
    }

    fn local_cells(&mut self, key: VKey, var_ty: &Type) -> Value {
        if let Some(v) = self.state.vars.get(&key) {
            return v.clone();
        }
        let v = self.nondet_value(var_ty);
        self.state.vars.insert(key, v.clone());
        v
    }

    pub(super) fn nondet_value(&mut self, ty: &Type) -> Value {
        let ws = self.layout.cells(ty);
        ws.iter().map(|&w| self.sat.fresh_bv(w)).collect()
    }

    /// The bits of a bit-field member `e` (`s.f`, `p->f`) and the type of its run's cell,
    /// which [`Self::place`] of `e` names (see [`BitField`]); a union member's run is its own
    /// declared cell.
    pub(super) fn bitfield_of(&self, e: &Expr) -> Option<(BitField, Type)> {
        let ExprKind::Member(base, idx) = &e.kind else { return None };
        let Type::Struct(s) = &base.ty else { return None };
        let def = self.prog.strukt(*s);
        let mut b = def.bitfield(*idx)?;
        if def.is_union {
            b.bit = 0;
            b.run_bits = width(&e.ty) as u32;
            return Some((b, e.ty.clone()));
        }
        Some((b, b.run_type()))
    }

    /// The value of bit-field `b` (of type `ty`) in its run's cell.
    pub(super) fn bitfield_get(&mut self, b: BitField, run: &Bv, ty: &Type) -> Bv {
        let bits = &run[b.bit as usize..(b.bit + b.width) as usize];
        self.sat.bv_resize(bits, width(ty), is_signed(ty))
    }

    /// The run's cell with bit-field `b` set to `v` (truncated to its width).
    pub(super) fn bitfield_set(&self, b: BitField, run: &Bv, v: &Bv) -> Bv {
        let (lo, hi) = (b.bit as usize, (b.bit + b.width) as usize);
        let mut out = run[..lo].to_vec();
        out.extend((0..b.width as usize).map(|k| v.get(k).copied().unwrap_or(Lit::FALSE)));
        out.extend_from_slice(&run[hi..]);
        out
    }

    /// `v`, or any value where `c` holds.
    fn any_where(&mut self, c: Lit, v: Bv) -> Bv {
        if c == Lit::FALSE {
            return v;
        }
        let any = self.sat.fresh_bv(v.len());
        self.sat.bv_ite(c, &any, &v)
    }

    /// Reads the value at `place` (all its cells).
    pub(super) fn load(&mut self, place: Place, label: &str, loc: Loc) -> R<Value> {
        match place {
            Place::Mem { addr, ty, roots } => {
                let widths = self.layout.cells(&ty);
                let mut out = vec![];
                let cell_tys = cell_types(self.prog, &ty, widths.len());
                for (j, &w) in widths.iter().enumerate() {
                    let a = if j == 0 { addr.clone() } else { self.ptr_add(&addr, &bv::constant(j as u128, 64), false, 1, false) };
                    let lab = if widths.len() == 1 { label.to_string() } else { format!("{label}#{j}") };
                    let differs = self.note_width(&a, w.div_ceil(8) as u64, loc, false, &roots);
                    let v = self.read_mem(a, w, &cell_tys[j], lab, loc, roots.clone());
                    out.push(self.any_where(differs, v));
                }
                Ok(out)
            }
            Place::Local { key, var_ty, off, ty } => {
                let differs = self.note_local_width(&var_ty, &off, &ty, loc, false);
                let cells = self.local_cells(key, &var_ty);
                let widths = self.layout.cells(&ty);
                let n = widths.len();
                if self.track {
                    let ts = self.state.taint.get(&key).cloned().unwrap_or_default();
                    let range = match as_const(&off) {
                        Some(k) => (k as usize).min(ts.len())..(k as usize + n).min(ts.len()),
                        None => 0..ts.len(),
                    };
                    for t in &ts[range] {
                        self.push_taint(t);
                    }
                }
                match as_const(&off) {
                    Some(k) => {
                        let k = k as usize;
                        let mut out = vec![];
                        for (j, &w) in widths.iter().enumerate() {
                            match cells.get(k + j) {
                                Some(c) => out.push(self.sat.bv_resize(c, w, false)),
                                None => out.push(self.sat.fresh_bv(w)),
                            }
                        }
                        Ok(out.into_iter().map(|v| self.any_where(differs, v)).collect())
                    }
                    None => {
                        let mut out: Value = widths.iter().map(|&w| self.sat.fresh_bv(w)).collect();
                        if cells.len() >= n {
                            for p in 0..=(cells.len() - n) {
                                let pc = bv::constant(p as u128, LOCAL_OFF_BITS);
                                let c = self.sat.bv_eq(&off, &pc);
                                if c == Lit::FALSE {
                                    continue;
                                }
                                for j in 0..n {
                                    let v = self.sat.bv_resize(&cells[p + j], widths[j], false);
                                    out[j] = self.sat.bv_ite(c, &v, &out[j]);
                                }
                            }
                        }
                        Ok(out.into_iter().map(|v| self.any_where(differs, v)).collect())
                    }
                }
            }
        }
    }

    pub(super) fn store(&mut self, place: Place, v: Value, lhs: &Expr, loc: Loc) -> R<()> {
        if self.dead() {
            return Ok(());
        }
        // A bit-field: the compiled code reads its run, sets the bits and writes it back.
        if let Some((b, run_ty)) = self.bitfield_of(lhs) {
            let place = place.retyped(run_ty);
            let text = run_label(self.prog, lhs);
            let old = self.load(place.clone(), &text, loc)?;
            let new = match (old.first(), v.first()) {
                (Some(old), Some(v)) => self.bitfield_set(b, old, v),
                _ => return Err(Error::Internal(format!("bit-field `{text}` without a value"))),
            };
            return self.store_cells(place, vec![new], text, loc);
        }
        let text = expr_text(self.prog, lhs);
        self.store_cells(place, v, text, loc)
    }

    fn store_cells(&mut self, place: Place, v: Value, text: String, loc: Loc) -> R<()> {
        match place {
            Place::Mem { addr, ty, roots } => {
                let widths = self.layout.cells(&ty);
                let cell_tys = cell_types(self.prog, &ty, widths.len());
                for (j, &w) in widths.iter().enumerate() {
                    let a = if j == 0 { addr.clone() } else { self.ptr_add(&addr, &bv::constant(j as u128, 64), false, 1, false) };
                    let val = match v.get(j) {
                        Some(x) => self.sat.bv_resize(x, w, false),
                        None => self.sat.fresh_bv(w),
                    };
                    let lab = if widths.len() == 1 { text.clone() } else { format!("{text}#{j}") };
                    self.note_width(&a, w.div_ceil(8) as u64, loc, true, &roots);
                    self.write_mem(a, val, &cell_tys[j], lab, loc, roots.clone());
                }
            }
            Place::Local { key, var_ty, off, ty } => {
                self.note_local_width(&var_ty, &off, &ty, loc, true);
                let mut cells = self.local_cells(key, &var_ty);
                let n = self.layout.ncells(&ty);
                match as_const(&off) {
                    Some(k) => {
                        let k = k as usize;
                        for j in 0..n {
                            if let (Some(c), Some(x)) = (cells.get(k + j), v.get(j)) {
                                let w = c.len();
                                cells[k + j] = self.sat.bv_resize(x, w, false);
                            }
                        }
                    }
                    None => {
                        if cells.len() >= n {
                            for p in 0..=(cells.len() - n) {
                                let pc = bv::constant(p as u128, LOCAL_OFF_BITS);
                                let c = self.sat.bv_eq(&off, &pc);
                                if c == Lit::FALSE {
                                    continue;
                                }
                                for j in 0..n {
                                    if let Some(x) = v.get(j) {
                                        let w = cells[p + j].len();
                                        let x = self.sat.bv_resize(x, w, false);
                                        cells[p + j] = self.sat.bv_ite(c, &x, &cells[p + j]);
                                    }
                                }
                            }
                        }
                    }
                }
                if self.track {
                    let t = self.cur_data.union(&self.cur_addr, &mut self.sat);
                    let ncells = cells.len();
                    let mut ts = self.state.taint.remove(&key).unwrap_or_default();
                    ts.resize(ncells.max(ts.len()), Taint::default());
                    match as_const(&off) {
                        Some(k) => {
                            for c in ts.iter_mut().skip(k as usize).take(n) {
                                *c = t.clone();
                            }
                        }
                        None => {
                            for c in ts.iter_mut() {
                                *c = c.union(&t, &mut self.sat);
                            }
                        }
                    }
                    self.state.taint.insert(key, ts);
                }
                self.state.vars.insert(key, cells);
                if ty.is_scalar() && !text.starts_with("__weakc_tmp") {
                    if let Some(x) = v.first() {
                        self.step(loc, RawKind::Assign { lhs: text, val: x.clone(), ty });
                    }
                }
            }
        }
        Ok(())
    }
}
