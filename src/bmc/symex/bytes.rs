//! Byte pointers in a memory of cells. A `char *` or `void *` moved by `n` bytes lands on
//! the cell that starts `n` bytes further in its object, as the object's [`CellMap`] lays
//! the cells out: `(char *)buf + sizeof(void *) * i` on an array of pointers is element
//! `i`, and within a struct a move follows its padding and nested arrays. A move that
//! lands inside a cell, or in an object whose layout is unknown, cannot be represented:
//! the pointer is then any value and the place an approximation site.
//!
//! Separate from [`super::expr`] because every byte-pointer operation (arithmetic,
//! indexing, differences, `memcpy`/`memset` through `void *`) asks the same question:
//! which layout does the pointed-to object have.

use super::*;

/// Objects grouped by their layout; beyond this many layouts a pointer that may point
/// into any of them is not followed (any value, approximation site).
const MAX_GROUPS: usize = 8;

/// A layout and the objects that have it.
struct Group {
    map: Option<Rc<CellMap>>,
    objs: Vec<u32>,
}

impl<'p> Symex<'p> {
    /// `p ± n` for a byte pointer `p` (the value of `ptr`; `n` in bytes, `signed`: its
    /// type's signedness).
    pub(super) fn byte_pointer_add(&mut self, p: &Bv, ptr: &Expr, n: &Bv, signed: bool, negate: bool) -> Bv {
        let n = self.sat.bv_resize(n, OFF_BITS, signed);
        let n = if negate { self.sat.bv_neg(&n) } else { n };
        let off = &p[..OFF_BITS];
        let (mut r, ok) = self.per_layout(p, ptr, |sx, map| match map {
            Some(m) => sx.move_in(m, off, &n),
            // Unknown layout: moved by cells, as the engine always did, exact only for 0.
            None => (sx.sat.bv_add(off, &n), sx.sat.bv_is_zero(&n)),
        });
        r.extend_from_slice(&p[OFF_BITS..]);
        self.value_unless(ok, r, "moves a byte pointer to a place that is not the start of a cell of its object, or in an object whose layout in bytes is unknown (the engine's memory is cells of declared types)")
    }

    /// `q - p` in bytes for byte pointers into the same object (`p` the value of `ptr`), and
    /// whether that is known.
    pub(super) fn byte_distance(&mut self, q: &Bv, p: &Bv, ptr: &Expr) -> (Bv, Lit) {
        self.per_layout(p, ptr, |sx, map| match map {
            Some(m) => {
                let bq = sx.cell_to_byte(m, &q[..OFF_BITS]);
                let bp = sx.cell_to_byte(m, &p[..OFF_BITS]);
                (sx.sat.bv_sub(&bq, &bp), Lit::TRUE)
            }
            None => (bv::constant(0, OFF_BITS), sx.sat.bv_eq(&q[..OFF_BITS], &p[..OFF_BITS])),
        })
    }

    /// `f` of each layout the object `p` points into may have, selected by its object bits.
    fn per_layout(&mut self, p: &Bv, ptr: &Expr, mut f: impl FnMut(&mut Self, Option<&CellMap>) -> (Bv, Lit)) -> (Bv, Lit) {
        let mut out: Option<(Bv, Lit)> = None;
        // Later groups first, so the first group ends up outermost in the ite chain.
        for (member, map) in self.groups(p, ptr).into_iter().rev() {
            let (v, ok) = f(self, map.as_deref());
            out = Some(match out {
                None => (v, ok),
                Some((v2, ok2)) => (self.sat.bv_ite(member, &v, &v2), self.sat.ite(member, ok, ok2)),
            });
        }
        out.expect("at least one group")
    }

    /// Every cell of the object `p` (the value of `ptr`) points into has the same size, and
    /// which.
    fn uniform_cells(&mut self, p: &Bv, ptr: &Expr) -> Option<u64> {
        let groups = self.groups(p, ptr);
        let mut sizes = groups.iter().map(|(_, m)| m.as_deref().and_then(CellMap::uniform));
        let first = sizes.next()??;
        sizes.all(|s| s == Some(first)).then_some(first)
    }

    /// The cells that `bytes` bytes at `dst` (and at `src`, for a copy) cover, by type: the
    /// element type one of the pointers had before its conversion to `void *` where that is
    /// not a byte type (a `T *` points to `T`s); else the pointed-to objects' layouts, where
    /// every cell they may hold has one size, the same for both. `None`: not representable
    /// (a size that is not constant, part of a cell, mixed or unknown layouts, more than
    /// [`MAX_COPY_CELLS`] cells).
    pub(super) fn copy_cells(&mut self, dst: &Expr, dv: &Bv, src: Option<(&Expr, &Bv)>, bytes: Option<u128>) -> Option<Vec<Type>> {
        let bytes = bytes?;
        let typed = |e: &Expr| calls::elem_type(e).filter(|t| !matches!(t, Type::Int { bits: 8, .. }));
        let (dt, st) = (typed(dst), src.and_then(|(e, _)| typed(e)));
        if let Some(t) = dt.clone().or_else(|| st.clone()) {
            // The other side a byte pointer: its object must hold `t`s there, or the copy
            // would reinterpret bytes (`memcpy(&i, chars, 4)`).
            let other = match (&dt, src) {
                (Some(_), Some((e, v))) if st.is_none() => Some((e, v)),
                (None, _) => Some((dst, dv)),
                _ => None,
            };
            if let Some((e, v)) = other {
                let want = self.layout.cell_map(&t)?;
                if !self.holds_layout(v, calls::peel(e), &want) {
                    return None;
                }
            }
            return self.layout.cell_run(&t, bytes);
        }
        let s = self.uniform_cells(dv, calls::peel(dst))?;
        if let Some((e, v)) = src {
            if self.uniform_cells(v, calls::peel(e))? != s {
                return None;
            }
        }
        let (s, n) = (s as u128, bytes / s as u128);
        if s > 16 || bytes % s != 0 || n > MAX_COPY_CELLS as u128 {
            return None;
        }
        let t = if s == 1 { Type::CHAR } else { Type::Int { bits: (8 * s) as u8, signed: false } };
        Some(vec![t; n as usize])
    }

    /// Whether `p` points to the start of a period of layout `want` in an object laid out so
    /// (any cell where every cell has one size; else a constant offset at a period's start).
    fn holds_layout(&mut self, p: &Bv, ptr: &Expr, want: &CellMap) -> bool {
        let groups = self.groups(p, ptr);
        if !groups.iter().all(|(_, m)| m.as_deref() == Some(want)) {
            return false;
        }
        want.uniform().is_some() || as_const(&p[..OFF_BITS]).is_some_and(|off| off as u64 % want.period_cells == 0)
    }

    /// The layouts the object `p` (the value of `ptr`) may point into, each with the
    /// condition that it does (the last group's condition is implied when the others fail).
    /// Candidates are the objects of `ptr`'s points-to roots where known, else every object
    /// made so far; an object made later in the symbolic execution (another thread's
    /// allocation) falls into the unknown group.
    fn groups(&mut self, p: &Bv, ptr: &Expr) -> Vec<(Lit, Option<Rc<CellMap>>)> {
        let obj = &p[OFF_BITS..];
        if let Some(o) = as_const(obj) {
            return vec![(Lit::TRUE, self.objects.get(o as usize).and_then(|x| x.map.clone()))];
        }
        let roots = self.ptr_roots(ptr);
        let mut groups: Vec<Group> = vec![];
        let mut seen = BTreeSet::new();
        for (i, x) in self.objects.iter().enumerate() {
            if let Some(rs) = &roots {
                match &x.root {
                    Some(r) if rs.contains(r) => seen.insert(r.clone()),
                    _ => continue,
                };
            }
            // (Objects of one type share their map: grouping compares pointers.)
            match groups.iter_mut().find(|g| g.map == x.map) {
                Some(g) => g.objs.push(i as u32),
                None => groups.push(Group { map: x.map.clone(), objs: vec![i as u32] }),
            }
        }
        // Objects of a root with none made yet, or of any object when the roots are
        // unknown, and layouts past the limit: unknown. (Objects of one root share their
        // layout: one variable's type, one allocation's.)
        let closed = roots.as_ref().is_some_and(|rs| rs.len() == seen.len());
        if groups.len() > MAX_GROUPS || !closed || groups.is_empty() {
            groups.retain(|g| g.map.is_some());
            groups.truncate(MAX_GROUPS);
            groups.push(Group { map: None, objs: vec![] });
        }
        let n = groups.len();
        groups
            .into_iter()
            .enumerate()
            .map(|(i, g)| {
                let member = if i + 1 == n {
                    Lit::TRUE
                } else {
                    let is: Vec<Lit> = g.objs.iter().map(|&o| self.sat.bv_eq(obj, &bv::constant(o as u128, OBJ_BITS))).collect();
                    self.sat.or_all(is)
                };
                (member, g.map)
            })
            .collect()
    }

    /// The cell `n` bytes after cell `off` in layout `m`, and whether a cell starts there.
    fn move_in(&mut self, m: &CellMap, off: &[Lit], n: &[Lit]) -> (Bv, Lit) {
        if let Some(s) = m.uniform() {
            if s == 1 {
                return (self.sat.bv_add(off, n), Lit::TRUE);
            }
            let (q, r) = self.floor_divmod(n, s);
            let ok = self.sat.bv_is_zero(&r);
            return (self.sat.bv_add(off, &q), ok);
        }
        let b = self.cell_to_byte(m, off);
        let b = self.sat.bv_add(&b, n);
        self.byte_to_cell(m, &b)
    }

    /// Whether cell `off` of layout `m` is not `bytes` bytes long.
    pub(super) fn cell_size_differs(&mut self, m: &CellMap, off: &[Lit], bytes: u64) -> Lit {
        if m.segs.iter().all(|s| s.size == bytes) {
            return Lit::FALSE;
        }
        if m.segs.iter().all(|s| s.size != bytes) {
            return Lit::TRUE;
        }
        let (_, r) = self.floor_divmod(off, m.period_cells);
        let w = off.len();
        let mut differs = vec![];
        for s in m.segs.iter().filter(|s| s.size != bytes) {
            let above = !self.sat.bv_ult(&r, &bv::constant(s.cell as u128, w));
            let below = self.sat.bv_ult(&r, &bv::constant((s.cell + s.count) as u128, w));
            differs.push(self.sat.and(above, below));
        }
        self.sat.or_all(differs)
    }

    /// Byte offset of cell `c`.
    fn cell_to_byte(&mut self, m: &CellMap, c: &[Lit]) -> Bv {
        let (q, r) = self.floor_divmod(c, m.period_cells);
        let base = self.sat.bv_mul(&q, &bv::constant(m.period_bytes as u128, OFF_BITS));
        let mut within = bv::constant(0, OFF_BITS);
        for s in &m.segs {
            let rel = self.sat.bv_sub(&r, &bv::constant(s.cell as u128, OFF_BITS));
            let bytes = self.sat.bv_mul(&rel, &bv::constant(s.size as u128, OFF_BITS));
            let at = self.sat.bv_add(&bytes, &bv::constant(s.byte as u128, OFF_BITS));
            // Segments are in cell order: the last one starting at or before `r` holds it.
            let from = !self.sat.bv_ult(&r, &bv::constant(s.cell as u128, OFF_BITS));
            within = self.sat.bv_ite(from, &at, &within);
        }
        self.sat.bv_add(&base, &within)
    }

    /// The cell starting at byte `b`, and whether one does.
    fn byte_to_cell(&mut self, m: &CellMap, b: &[Lit]) -> (Bv, Lit) {
        let (q, r) = self.floor_divmod(b, m.period_bytes);
        let base = self.sat.bv_mul(&q, &bv::constant(m.period_cells as u128, OFF_BITS));
        let mut cell = bv::constant(0, OFF_BITS);
        let mut oks = vec![];
        for s in &m.segs {
            let lo = bv::constant(s.byte as u128, OFF_BITS);
            let hi = bv::constant((s.byte + s.count * s.size) as u128, OFF_BITS);
            let above = !self.sat.bv_ult(&r, &lo);
            let below = self.sat.bv_ult(&r, &hi);
            let inside = self.sat.and(above, below);
            let rel = self.sat.bv_sub(&r, &lo);
            let (k, rest) = self.floor_divmod(&rel, s.size);
            let starts = self.sat.bv_is_zero(&rest);
            let at = self.sat.bv_add(&k, &bv::constant(s.cell as u128, OFF_BITS));
            cell = self.sat.bv_ite(inside, &at, &cell);
            oks.push(self.sat.and(inside, starts));
        }
        let ok = self.sat.or_all(oks);
        (self.sat.bv_add(&base, &cell), ok)
    }

    /// Floor division and the remainder in `[0, d)` of a two's-complement value by a
    /// positive constant: `p - 4 + 4` is `p` again even before the object's start.
    fn floor_divmod(&mut self, x: &[Lit], d: u64) -> (Bv, Bv) {
        let w = x.len();
        if d == 1 {
            return (x.to_vec(), bv::constant(0, w));
        }
        if d.is_power_of_two() {
            let k = d.trailing_zeros() as usize;
            let sign = x[w - 1];
            let mut q: Bv = x[k..].to_vec();
            q.resize(w, sign);
            let mut r: Bv = x[..k].to_vec();
            r.resize(w, Lit::FALSE);
            return (q, r);
        }
        let dv = bv::constant(d as u128, w);
        let (q, r) = self.sat.bv_sdivrem(x, &dv);
        let neg = self.sat.bv_slt(&r, &bv::constant(0, w));
        let q1 = self.sat.bv_sub(&q, &bv::constant(1, w));
        let r1 = self.sat.bv_add(&r, &dv);
        (self.sat.bv_ite(neg, &q1, &q), self.sat.bv_ite(neg, &r1, &r))
    }
}

/// For each temporary that receives a call's result and is then converted to a pointer to
/// something (`int *a = malloc(n)`: `t = malloc(n); a = (int *)t`), what it points to: the
/// layout a heap block gets.
pub(super) fn allocation_types(prog: &Program) -> HashMap<VarId, Type> {
    let mut out = HashMap::new();
    for f in &prog.funcs {
        let Some(body) = &f.body else { continue };
        walk_stmts(body, &mut |s| {
            let StmtKind::Assign { lhs, rhs } = &s.kind else { return };
            let ExprKind::Var(t) = &calls::peel(rhs).kind else { return };
            if !matches!(prog.var(*t).storage, Storage::Temp { .. }) {
                return;
            }
            if let Some(pointee) = lhs.ty.pointee().filter(|p| !matches!(p, Type::Void | Type::Func(_))) {
                out.entry(*t).or_insert_with(|| pointee.clone());
            }
        });
    }
    out
}
