//! Symbolic execution of expressions into bit vectors (C's conversions and operators).

use super::*;

impl<'p> Symex<'p> {
    pub(super) fn eval_scalar(&mut self, e: &Expr) -> R<Bv> {
        let v = self.eval(e)?;
        Ok(v.into_iter().next().unwrap_or_default())
    }

    /// A pointer-valued expression as a 64-bit pointer (arrays and functions decay).
    pub(super) fn eval_ptr(&mut self, e: &Expr) -> R<Bv> {
        self.eval_as(e, &Type::ptr_to(Type::Void))
    }

    pub(super) fn eval_cond(&mut self, e: &Expr) -> R<Lit> {
        let v = self.eval_as(e, &Type::Bool)?;
        Ok(v[0])
    }

    /// Evaluates `e` converted to `ty` (a scalar type), decaying arrays and functions.
    pub(super) fn eval_as(&mut self, e: &Expr, ty: &Type) -> R<Bv> {
        if matches!(e.ty, Type::Array(..)) {
            if let ExprKind::Str(s) = &e.kind {
                let p = self.string_ptr(s)?;
                return Ok(self.convert(&p, &Type::ptr_to(Type::CHAR), ty));
            }
            let place = self.place(e)?;
            let p = match place {
                Place::Mem { addr, .. } => addr,
                Place::Local { .. } => return Err(Error::Internal("address of a non-address-taken local array".into())),
            };
            return Ok(self.convert(&p, &Type::ptr_to(Type::Void), ty));
        }
        let v = self.eval_scalar(e)?;
        Ok(self.convert(&v, &e.ty, ty))
    }

    pub(super) fn eval_as_value(&mut self, e: &Expr, ty: &Type) -> R<Value> {
        if ty.is_scalar() {
            Ok(vec![self.eval_as(e, ty)?])
        } else {
            self.eval(e)
        }
    }

    pub(super) fn string_ptr(&mut self, s: &[u8]) -> R<Bv> {
        let o = match self.strings.get(s) {
            Some(&o) => o,
            None => {
                let mut cells: Vec<Bv> = s.iter().map(|&b| bv::constant(b as u128, 8)).collect();
                cells.push(bv::constant(0, 8));
                let extent = Some(cells.len() as u128);
                let o = self.new_object(crate::cprint::c_string(s), ObjInit::Cells(cells), None, extent, Some(&Type::Array(Box::new(Type::CHAR), None)))?;
                self.strings.insert(s.to_vec(), o);
                o
            }
        };
        Ok(bv::constant((o as u128) << OFF_BITS, PTR_BITS))
    }

    /// The text of a pointer to a string literal.
    pub(super) fn literal_text(&self, p: &Bv) -> Option<Vec<u8>> {
        let p = as_const(p)?;
        let (o, off) = ((p >> OFF_BITS) as u32, (p & ((1 << OFF_BITS) - 1)) as usize);
        self.strings.iter().find(|(_, &so)| so == o).map(|(t, _)| t.get(off..).unwrap_or(&[]).to_vec())
    }

    /// Scalar conversion from `from` to `to` (C casts and implicit conversions).
    pub fn convert(&mut self, v: &Bv, from: &Type, to: &Type) -> Bv {
        match (from, to) {
            (_, Type::Void) => vec![],
            (Type::Bool, Type::Bool) => v.clone(),
            (Type::Float { bits }, Type::Bool) => {
                let z = self.sat.fp_is_zero(Format::of_width(*bits as usize), v);
                vec![!z]
            }
            (_, Type::Bool) => {
                let z = self.sat.bv_is_zero(v);
                vec![!z]
            }
            (Type::Float { bits: b }, Type::Float { bits }) => {
                self.sat.fp_convert(Format::of_width(*b as usize), Format::of_width(*bits as usize), v)
            }
            (_, Type::Float { bits }) => self.sat.fp_from_int(Format::of_width(*bits as usize), v, is_signed(from)),
            (Type::Float { bits }, _) => {
                let w = width(to);
                let (r, ok) = self.sat.fp_to_int(Format::of_width(*bits as usize), v, w, is_signed(to));
                // Out of range (or NaN, an infinity) the result is undefined: any value, and
                // a counterexample that relies on it is not one.
                self.value_unless(ok, r, "converts a floating value out of the range of its integer type (undefined behaviour)")
            }
            _ => self.sat.bv_resize(v, width(to), is_signed(from)),
        }
    }

    /// The value just computed is C's only when `ok` holds on the current path: otherwise
    /// it is arbitrary (undefined behaviour, an unmodelled function), and a counterexample
    /// through it is not known to be one (see `approx_sites`).
    pub(super) fn arbitrary_unless(&mut self, ok: Lit, what: &str) {
        let g = self.sat.and(self.state.guard, !ok);
        if g != Lit::FALSE {
            self.approx_sites.push(ApproxSite { guard: g, loc: self.cur_loc, what: what.to_string(), at: self.here() });
        }
    }

    /// `v` where `ok` holds; elsewhere any value, and the place an approximation site
    /// ([`Self::arbitrary_unless`]).
    pub(super) fn value_unless(&mut self, ok: Lit, v: Bv, what: &str) -> Bv {
        if ok == Lit::TRUE {
            return v;
        }
        self.arbitrary_unless(ok, what);
        let any = self.sat.fresh_bv(v.len());
        self.sat.bv_ite(ok, &v, &any)
    }

    pub(super) fn eval(&mut self, e: &Expr) -> R<Value> {
        let ty = &e.ty;
        Ok(match &e.kind {
            ExprKind::Const(c) => vec![bv::constant_i(*c, width(ty))],
            ExprKind::FloatConst(s) => {
                let f = Format::of_width(width(ty));
                match float_literal(s, f == Format::SINGLE) {
                    Some(x) => vec![f.from_f64(x)],
                    None => vec![self.sat.fresh_bv(width(ty))],
                }
            }
            ExprKind::Str(s) => {
                if matches!(ty, Type::Array(..)) {
                    let mut cells: Vec<Bv> = s.iter().map(|&b| bv::constant(b as u128, 8)).collect();
                    cells.push(bv::constant(0, 8));
                    let n = self.layout.ncells(ty);
                    cells.resize(n.max(1), bv::constant(0, 8));
                    cells
                } else {
                    vec![self.string_ptr(s)?]
                }
            }
            ExprKind::Nondet => self.nondet_value(ty),
            ExprKind::FuncAddr(f) => vec![bv::constant((FUNC_BASE + f.0 as u128) << OFF_BITS, PTR_BITS)],
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Index(..) | ExprKind::Member(..) => {
                if let (ExprKind::Var(v), Type::Func(_)) = (&e.kind, ty) {
                    // A function designator held in a variable slot: its address.
                    let _ = v;
                    return Ok(vec![self.sat.fresh_bv(PTR_BITS)]);
                }
                let mark = self.acc.len();
                let place = self.place(e)?;
                let loc = self.cur_loc;
                // A bit-field: its bits of its run's cell.
                let bits = self.bitfield_of(e);
                let (place, text) = match &bits {
                    Some((_, run_ty)) => (place.retyped(run_ty.clone()), place::run_label(self.prog, e)),
                    None => (place, expr_text(self.prog, e)),
                };
                let v = if matches!(place, Place::Mem { .. }) {
                    // The address's reads order the access; the value read depends on the
                    // access alone.
                    let at = self.taint_since(mark);
                    let saved = std::mem::replace(&mut self.cur_addr, at);
                    let v = self.load(place, &text, loc);
                    self.cur_addr = saved;
                    v?
                } else {
                    self.load(place, &text, loc)?
                };
                match (bits, v.first()) {
                    (Some((b, _)), Some(run)) => vec![self.bitfield_get(b, run, ty)],
                    _ => v,
                }
            }
            ExprKind::AddrOf(lv) => {
                if let (ExprKind::Var(_), Type::Func(_)) = (&lv.kind, &lv.ty) {
                    return Ok(vec![self.sat.fresh_bv(PTR_BITS)]);
                }
                if let ExprKind::Deref(p) = &lv.kind {
                    return Ok(vec![self.eval_ptr(p)?]);
                }
                match self.place(lv)? {
                    Place::Mem { addr, .. } => vec![self.convert(&addr, &Type::ptr_to(Type::Void), ty)],
                    Place::Local { .. } => {
                        return Err(Error::Internal(format!(
                            "address of `{}`, which is not marked address-taken",
                            expr_text(self.prog, lv)
                        )))
                    }
                }
            }
            ExprKind::Cast(a) => {
                if let Some(p) = self.byte_moved_pointer(ty, a)? {
                    return Ok(vec![p]);
                }
                if ty.is_scalar() || *ty == Type::Void {
                    if *ty == Type::Void {
                        self.eval(a)?;
                        return Ok(vec![vec![]]);
                    }
                    if self.prepared.arith_casts.contains(&(e as *const Expr)) {
                        let void = Type::ptr_to(Type::Void);
                        let p = self.eval_as(a, &void)?;
                        let p = self.distrust_pointer_integer(p);
                        return Ok(vec![self.convert(&p, &void, ty)]);
                    }
                    vec![self.eval_as(a, ty)?]
                } else {
                    self.eval(a)?
                }
            }
            ExprKind::Unary(op, a) => {
                let r = match op {
                    UnOp::Neg => {
                        let v = self.eval_as(a, ty)?;
                        if let Type::Float { bits } = ty {
                            self.sat.fp_neg(Format::of_width(*bits as usize), &v)
                        } else {
                            self.sat.bv_neg(&v)
                        }
                    }
                    UnOp::BitNot => {
                        let v = self.eval_as(a, ty)?;
                        self.sat.bv_not(&v)
                    }
                    UnOp::Not => {
                        let c = self.eval_cond(a)?;
                        self.convert(&vec![!c], &Type::Bool, ty)
                    }
                };
                vec![r]
            }
            ExprKind::Binary(op, a, b) => vec![self.binary(*op, a, b, ty)?],
            ExprKind::Cond(c, a, b) => {
                let c = self.eval_cond(c)?;
                let g = self.state.guard;
                let ga = self.sat.and(g, c);
                let gb = self.sat.and(g, !c);
                self.state.guard = ga;
                let m = self.acc.len();
                let va = if ga == Lit::FALSE { self.nondet_value(ty) } else { self.eval_as_value(a, ty)? };
                self.taint_only_under(m, c);
                self.state.guard = gb;
                let m = self.acc.len();
                let vb = if gb == Lit::FALSE { self.nondet_value(ty) } else { self.eval_as_value(b, ty)? };
                self.taint_only_under(m, !c);
                self.state.guard = g;
                let mut out = vec![];
                for (x, y) in va.iter().zip(vb.iter()) {
                    out.push(self.sat.bv_ite(c, x, y));
                }
                out
            }
        })
    }

    /// `(uintptr_t)p` whose value may reach arithmetic ([`super::super::ptrint`]): the
    /// integer holds `p`'s cell offset, which is its byte offset only at the start of an
    /// object or in one made of bytes; elsewhere the integer is any value.
    fn distrust_pointer_integer(&mut self, p: Bv) -> Bv {
        let (off, obj) = p.split_at(OFF_BITS);
        let at_start = self.sat.bv_is_zero(off);
        if at_start == Lit::TRUE {
            return p;
        }
        let bytes = self.in_byte_object(obj);
        let ok = self.sat.or(at_start, bytes);
        self.value_unless(ok, p, "does arithmetic on a pointer converted to an integer: its bits count the engine's cells, not bytes, inside an object")
    }

    /// Whether the object `obj` (a pointer's object bits) is one whose cells are bytes.
    fn in_byte_object(&mut self, obj: &[Lit]) -> Lit {
        let is_bytes = |x: &Object| x.map.as_deref().and_then(CellMap::uniform) == Some(1);
        if let Some(o) = as_const(obj) {
            return Lit::from_bool(self.objects.get(o as usize).is_some_and(is_bytes));
        }
        let bytes: Vec<u32> = (0..self.objects.len() as u32).filter(|&o| is_bytes(&self.objects[o as usize])).collect();
        let is: Vec<Lit> = bytes.into_iter().map(|o| self.sat.bv_eq(obj, &bv::constant(o as u128, OBJ_BITS))).collect();
        self.sat.or_all(is)
    }

    /// `(T *)((char *)p ± k)` with a constant `k`: a pointer moved by bytes and taken as a
    /// pointer to something other than bytes. Memory here is made of cells, so the move is
    /// translated into cells through a layout that says where `k` bytes land: that of the
    /// struct `T` when the move goes back (`container_of(p, T, member)`: `p` points at the
    /// member `k` bytes into a `T`), or that of `p`'s own pointee when it goes forward
    /// (`(char *)s + offsetof(S, f)`), either as an array of them (`+ sizeof(S)` is the next
    /// element). A move no layout places is evaluated cell-wise, and a counterexample through
    /// it is not trusted. `None`: not such an expression, or a forward move of a pointer
    /// whose type says nothing (the object's own layout then places it).
    fn byte_moved_pointer(&mut self, ty: &Type, a: &Expr) -> R<Option<Bv>> {
        let Type::Ptr(target) = ty else { return Ok(None) };
        let Some(m) = byte_move(a) else { return Ok(None) };
        if matches!(**target, Type::Func(_)) || m.bytes == 0 || m.bytes.unsigned_abs() > u64::MAX as u128 {
            return Ok(None);
        }
        let (back, k) = (m.bytes < 0, m.bytes.unsigned_abs() as u64);
        // Past the struct's end the move steps over whole elements of an array of it.
        let elements = |t: &Type| Type::Array(Box::new(t.clone()), None);
        let cells = match (back, m.source) {
            (true, _) => self.layout.cell_at_byte(&elements(target), k),
            (false, Some(s)) => self.layout.cell_at_byte(&elements(s), k),
            // A byte pointer of no known type: moved through the layout of the object it
            // points into ([`Self::byte_pointer_add`]).
            (false, None) => return Ok(None),
        };
        let pv = self.eval_as(m.ptr, &Type::ptr_to(Type::Void))?;
        let moved = match cells {
            Some(c) => self.ptr_add(&pv, &bv::constant(c as u128, OFF_BITS), false, 1, back),
            None => {
                self.arbitrary_unless(Lit::FALSE, &format!("moves a pointer by {k} byte{} to a place no type's layout locates (memory is modelled in cells of declared types)", if k == 1 { "" } else { "s" }));
                self.ptr_add(&pv, &bv::constant(k as u128, OFF_BITS), false, 1, back)
            }
        };
        Ok(Some(self.convert(&moved, &Type::ptr_to(Type::Void), ty)))
    }

    pub(super) fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: &Type) -> R<Bv> {
        use BinOp::*;
        let decays = |t: &Type| matches!(t, Type::Ptr(_) | Type::Array(..) | Type::Func(_));
        match op {
            LogAnd | LogOr => {
                let la = self.eval_cond(a)?;
                let g = self.state.guard;
                // Short circuit: `b` is evaluated only when it matters.
                let gb = if op == LogAnd { self.sat.and(g, la) } else { self.sat.and(g, !la) };
                self.state.guard = gb;
                let m = self.acc.len();
                let lb = if gb == Lit::FALSE { Lit::FALSE } else { self.eval_cond(b)? };
                self.taint_only_under(m, if op == LogAnd { la } else { !la });
                self.state.guard = g;
                let r = if op == LogAnd { self.sat.and(la, lb) } else { self.sat.or(la, lb) };
                return Ok(self.convert(&vec![r], &Type::Bool, ty));
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let (x, y, signed) = if decays(&a.ty) || decays(&b.ty) {
                    let p = Type::ptr_to(Type::Void);
                    (self.eval_as(a, &p)?, self.eval_as(b, &p)?, false)
                } else if let Some(bits) = float_bits(&a.ty, &b.ty) {
                    let ct = Type::Float { bits };
                    let f = Format::of_width(bits as usize);
                    let x = self.eval_as(a, &ct)?;
                    let y = self.eval_as(b, &ct)?;
                    let r = match op {
                        Eq => self.sat.fp_eq(f, &x, &y),
                        Ne => !self.sat.fp_eq(f, &x, &y),
                        Lt => self.sat.fp_lt(f, &x, &y),
                        Gt => self.sat.fp_lt(f, &y, &x),
                        Le => self.sat.fp_le(f, &x, &y),
                        Ge => self.sat.fp_le(f, &y, &x),
                        _ => unreachable!(),
                    };
                    return Ok(self.convert(&vec![r], &Type::Bool, ty));
                } else {
                    let ct = common_type(&a.ty, &b.ty);
                    (self.eval_as(a, &ct)?, self.eval_as(b, &ct)?, is_signed(&ct))
                };
                let lt = |s: &mut Sat, p: &Bv, q: &Bv| if signed { s.bv_slt(p, q) } else { s.bv_ult(p, q) };
                let r = match op {
                    Eq => self.sat.bv_eq(&x, &y),
                    Ne => !self.sat.bv_eq(&x, &y),
                    Lt => lt(&mut self.sat, &x, &y),
                    Gt => lt(&mut self.sat, &y, &x),
                    Le => !lt(&mut self.sat, &y, &x),
                    Ge => !lt(&mut self.sat, &x, &y),
                    _ => unreachable!(),
                };
                return Ok(self.convert(&vec![r], &Type::Bool, ty));
            }
            _ => {}
        }
        // Pointer arithmetic.
        if matches!(op, Add | Sub) && (decays(&a.ty) || decays(&b.ty)) {
            let p = Type::ptr_to(Type::Void);
            if decays(&a.ty) && decays(&b.ty) && op == Sub {
                let x = self.eval_as(a, &p)?;
                let y = self.eval_as(b, &p)?;
                let q = if is_byte_pointer(&a.ty) {
                    // Bytes between two places of an object, through its layout.
                    let (d, ok) = self.byte_distance(&x, &y, b);
                    let d = self.sat.bv_resize(&d, 64, true);
                    self.value_unless(ok, d, "subtracts byte pointers inside an object whose layout in bytes is unknown (the engine's pointers count cells)")
                } else {
                    let stride = a.ty.pointee().map(|t| self.layout.ncells(t)).unwrap_or(1).max(1);
                    let d = self.sat.bv_sub(&x[..OFF_BITS], &y[..OFF_BITS]);
                    let d = self.sat.bv_resize(&d, 64, true);
                    if stride == 1 { d } else { self.sat.bv_sdivrem(&d, &bv::constant(stride as u128, 64)).0 }
                };
                return Ok(self.convert(&q, &Type::LONG, ty));
            }
            let (pe, ie) = if decays(&a.ty) { (a, b) } else { (b, a) };
            let pv = self.eval_as(pe, &p)?;
            let iv = self.eval_scalar(ie)?;
            if is_byte_pointer(&pe.ty) {
                let r = self.byte_pointer_add(&pv, pe, &iv, is_signed(&ie.ty), op == Sub);
                return Ok(self.convert(&r, &p, ty));
            }
            let stride = match &pe.ty {
                Type::Ptr(t) | Type::Array(t, _) => match &**t {
                    Type::Void | Type::Func(_) => 1,
                    t => self.layout.ncells(t).max(1),
                },
                _ => 1,
            };
            let r = self.ptr_add(&pv, &iv, is_signed(&ie.ty), stride as u128, op == Sub);
            return Ok(self.convert(&r, &p, ty));
        }
        if let Type::Float { bits } = ty {
            let f = Format::of_width(*bits as usize);
            let x = self.eval_as(a, ty)?;
            let y = self.eval_as(b, ty)?;
            return Ok(match op {
                Add => self.sat.fp_add(f, &x, &y, false),
                Sub => self.sat.fp_add(f, &x, &y, true),
                Mul => self.sat.fp_mul(f, &x, &y),
                Div => self.sat.fp_div(f, &x, &y),
                // Not C (`%` and the bitwise operators take integers): the front end rejects it.
                _ => return Err(Error::Internal(format!("floating operands of {op:?}"))),
            });
        }
        let rt = if matches!(ty, Type::Bool) { Type::INT } else { ty.clone() };
        let signed = is_signed(&rt);
        let x = self.eval_as(a, &rt)?;
        let r = match op {
            Shl | Shr => {
                let amt = self.eval_scalar(b)?;
                let amt = if matches!(b.ty, Type::Float { .. }) { self.sat.fresh_bv(32) } else { amt };
                self.sat.bv_shift(&x, &amt, op == Shl, signed)
            }
            _ => {
                let y = self.eval_as(b, &rt)?;
                match op {
                    Add => self.sat.bv_add(&x, &y),
                    Sub => self.sat.bv_sub(&x, &y),
                    Mul => self.sat.bv_mul(&x, &y),
                    BitAnd => self.sat.bv_and(&x, &y),
                    BitOr => self.sat.bv_or(&x, &y),
                    BitXor => self.sat.bv_xor(&x, &y),
                    Div | Rem => {
                        let (q, m) = if signed { self.sat.bv_sdivrem(&x, &y) } else { self.sat.bv_udivrem(&x, &y) };
                        let r = if op == Div { q } else { m };
                        // Division by zero is undefined: any value, and a counterexample
                        // through it is not one.
                        let z = self.sat.bv_is_zero(&y);
                        self.value_unless(!z, r, "divides by zero (undefined behaviour)")
                    }
                    _ => unreachable!(),
                }
            }
        };
        Ok(self.convert(&r, &rt, ty))
    }
}

/// The floating type two operands are compared in, when one of them is floating: the
/// wider one.
fn float_bits(a: &Type, b: &Type) -> Option<u8> {
    match (a, b) {
        (Type::Float { bits: x }, Type::Float { bits: y }) => Some(*x.max(y)),
        (Type::Float { bits }, _) | (_, Type::Float { bits }) => Some(*bits),
        _ => None,
    }
}

/// The usual arithmetic conversions on two integer types (after integer promotion).
pub fn common_type(a: &Type, b: &Type) -> Type {
    let promote = |t: &Type| match t {
        Type::Int { bits, signed } if *bits >= 32 => Type::Int { bits: *bits, signed: *signed },
        _ => Type::INT,
    };
    let (a, b) = (promote(a), promote(b));
    match (&a, &b) {
        (Type::Int { bits: ba, signed: sa }, Type::Int { bits: bb, signed: sb }) => {
            if sa == sb {
                Type::Int { bits: *ba.max(bb), signed: *sa }
            } else {
                let (ub, sbits) = if !sa { (*ba, *bb) } else { (*bb, *ba) };
                if ub >= sbits {
                    Type::Int { bits: ub, signed: false }
                } else {
                    Type::Int { bits: sbits, signed: true }
                }
            }
        }
        _ => Type::INT,
    }
}

/// The value of a C floating constant (decimal or hexadecimal, any suffix), rounded once to
/// the format (`single`: binary32, else binary64).
pub fn float_literal(text: &str, single: bool) -> Option<f64> {
    let t = text.trim().trim_end_matches(['f', 'F', 'l', 'L']);
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        // Hexadecimal: an exact binary fraction, rounded by the host (to binary64 first:
        // exact for up to 53 significant bits, the constants real code writes).
        let (m, e) = h.split_once(['p', 'P'])?;
        let e: i32 = e.parse().ok()?;
        let (int, frac) = m.split_once('.').unwrap_or((m, ""));
        let mut x = 0f64;
        for c in int.chars().chain(frac.chars()) {
            x = x * 16.0 + c.to_digit(16)? as f64;
        }
        // Scaled in two steps: 2^-1074 itself is below what one power of two reaches.
        let e = e - 4 * frac.len() as i32;
        let v = x * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
        if single {
            v as f32 as f64
        } else {
            v
        }
    } else if single {
        t.parse::<f32>().ok()? as f64
    } else {
        t.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::float_literal;

    #[test]
    fn float_literals_round_once_to_their_type() {
        assert_eq!(float_literal("0x1.8p3", false), Some(12.0));
        assert_eq!(float_literal("0X.8P-1f", true), Some(0.25));
        assert_eq!(float_literal("-0x1p-1074", false), Some(-f64::from_bits(1)));
        // 0.1f is the binary32 value nearest to 0.1, not binary64's 0.1 rounded again.
        assert_eq!(float_literal("0.1f", true), Some(0.1f32 as f64));
        assert_eq!(float_literal("1e999", false), Some(f64::INFINITY));
        assert_eq!(float_literal("1.5L", false), Some(1.5));
        assert_eq!(float_literal("2.", false), Some(2.0));
        assert_eq!(float_literal(".5e1", false), Some(5.0));
        assert_eq!(float_literal("0x1.pz", false), None);
    }
}
