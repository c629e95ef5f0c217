//! Bit-vector circuits over [`Sat`]: vectors of literals, least significant bit first.
//! Every operation folds constants (through the gate store, and by direct evaluation when
//! all inputs are constant), so concrete computations cost nothing in the solver.

use super::sat::{Lit, Sat};

pub type Bv = Vec<Lit>;

/// `x`, `w` bits wide, as the C value of `ty`.
pub fn signed(x: u128, w: usize, ty: &crate::ir::Type) -> i128 {
    match ty {
        crate::ir::Type::Int { signed: true, .. } if w > 0 && w < 128 && x >> (w - 1) & 1 == 1 => x as i128 - (1i128 << w),
        _ => x as i128,
    }
}

/// The constant value of `bv` (as an unsigned number), if every bit is constant.
pub fn as_const(bv: &[Lit]) -> Option<u128> {
    let mut v = 0u128;
    for (i, l) in bv.iter().enumerate() {
        match l.as_const()? {
            true if i < 128 => v |= 1 << i,
            _ => {}
        }
    }
    Some(v)
}

pub fn constant(v: u128, width: usize) -> Bv {
    (0..width).map(|i| Lit::from_bool(i < 128 && (v >> i) & 1 == 1)).collect()
}

/// A constant from a signed value (two's complement, truncated to `width`).
pub fn constant_i(v: i128, width: usize) -> Bv {
    (0..width).map(|i| Lit::from_bool((v >> i.min(127)) & 1 == 1)).collect()
}

fn mask(w: usize) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

fn sext_val(v: u128, w: usize) -> i128 {
    if w == 0 {
        0
    } else if w >= 128 {
        v as i128
    } else if v >> (w - 1) & 1 == 1 {
        (v | !mask(w)) as i128
    } else {
        v as i128
    }
}

impl Sat {
    pub fn fresh_bv(&mut self, width: usize) -> Bv {
        (0..width).map(|_| self.fresh()).collect()
    }

    pub fn bv_not(&mut self, a: &[Lit]) -> Bv {
        a.iter().map(|&l| !l).collect()
    }

    pub fn bv_and(&mut self, a: &[Lit], b: &[Lit]) -> Bv {
        a.iter().zip(b).map(|(&x, &y)| self.and(x, y)).collect()
    }
    pub fn bv_or(&mut self, a: &[Lit], b: &[Lit]) -> Bv {
        a.iter().zip(b).map(|(&x, &y)| self.or(x, y)).collect()
    }
    pub fn bv_xor(&mut self, a: &[Lit], b: &[Lit]) -> Bv {
        a.iter().zip(b).map(|(&x, &y)| self.xor(x, y)).collect()
    }

    pub fn bv_ite(&mut self, c: Lit, t: &[Lit], e: &[Lit]) -> Bv {
        match c.as_const() {
            Some(true) => return t.to_vec(),
            Some(false) => return e.to_vec(),
            None => {}
        }
        t.iter().zip(e).map(|(&x, &y)| self.ite(c, x, y)).collect()
    }

    /// Zero- or sign-extends or truncates `a` to `width`.
    pub fn bv_resize(&mut self, a: &[Lit], width: usize, signed: bool) -> Bv {
        let mut v: Bv = a.iter().take(width).copied().collect();
        let fill = if signed { a.last().copied().unwrap_or(Lit::FALSE) } else { Lit::FALSE };
        while v.len() < width {
            v.push(fill);
        }
        v
    }

    /// `a + b + cin` (same widths), the carry out dropped.
    fn adder(&mut self, a: &[Lit], b: &[Lit], mut carry: Lit) -> Bv {
        let mut out = Vec::with_capacity(a.len());
        for (&x, &y) in a.iter().zip(b) {
            let t = self.xor(x, y);
            out.push(self.xor(t, carry));
            carry = self.ite(t, carry, x);
        }
        out
    }

    pub fn bv_add(&mut self, a: &[Lit], b: &[Lit]) -> Bv {
        if let (Some(x), Some(y)) = (as_const(a), as_const(b)) {
            return constant(x.wrapping_add(y) & mask(a.len()), a.len());
        }
        self.adder(a, b, Lit::FALSE)
    }

    pub fn bv_sub(&mut self, a: &[Lit], b: &[Lit]) -> Bv {
        if let (Some(x), Some(y)) = (as_const(a), as_const(b)) {
            return constant(x.wrapping_sub(y) & mask(a.len()), a.len());
        }
        let nb: Bv = b.iter().map(|&l| !l).collect();
        self.adder(a, &nb, Lit::TRUE)
    }

    pub fn bv_neg(&mut self, a: &[Lit]) -> Bv {
        let z = constant(0, a.len());
        self.bv_sub(&z, a)
    }

    pub fn bv_mul(&mut self, a: &[Lit], b: &[Lit]) -> Bv {
        let w = a.len();
        if let (Some(x), Some(y)) = (as_const(a), as_const(b)) {
            return constant(x.wrapping_mul(y) & mask(w), w);
        }
        // Put the operand with more constant bits second: its zero bits skip whole rows.
        let consts = |v: &[Lit]| v.iter().filter(|l| l.is_const()).count();
        let (a, b) = if consts(a) > consts(b) { (b, a) } else { (a, b) };
        let mut acc = constant(0, w);
        for i in 0..w {
            if b[i] == Lit::FALSE {
                continue;
            }
            let mut row = vec![Lit::FALSE; w];
            for j in 0..w - i {
                row[i + j] = self.and(a[j], b[i]);
            }
            acc = self.bv_add(&acc, &row);
        }
        acc
    }

    pub fn bv_eq(&mut self, a: &[Lit], b: &[Lit]) -> Lit {
        if let (Some(x), Some(y)) = (as_const(a), as_const(b)) {
            return Lit::from_bool(x == y);
        }
        let mut acc = Lit::TRUE;
        for (&x, &y) in a.iter().zip(b) {
            let e = self.xnor(x, y);
            acc = self.and(acc, e);
            if acc == Lit::FALSE {
                break;
            }
        }
        acc
    }

    /// Unsigned `a < b`.
    pub fn bv_ult(&mut self, a: &[Lit], b: &[Lit]) -> Lit {
        if let (Some(x), Some(y)) = (as_const(a), as_const(b)) {
            return Lit::from_bool(x < y);
        }
        let mut lt = Lit::FALSE;
        for (&x, &y) in a.iter().zip(b) {
            let d = self.xor(x, y);
            lt = self.ite(d, y, lt);
        }
        lt
    }

    /// Signed `a < b`.
    pub fn bv_slt(&mut self, a: &[Lit], b: &[Lit]) -> Lit {
        let w = a.len();
        if w == 0 {
            return Lit::FALSE;
        }
        let mut a2 = a.to_vec();
        let mut b2 = b.to_vec();
        a2[w - 1] = !a[w - 1];
        b2[w - 1] = !b[w - 1];
        self.bv_ult(&a2, &b2)
    }

    pub fn bv_is_zero(&mut self, a: &[Lit]) -> Lit {
        let z = constant(0, a.len());
        self.bv_eq(a, &z)
    }

    /// Unsigned division and remainder (restoring); the caller handles division by zero.
    pub fn bv_udivrem(&mut self, a: &[Lit], b: &[Lit]) -> (Bv, Bv) {
        let w = a.len();
        if let (Some(x), Some(y)) = (as_const(a), as_const(b)) {
            if y != 0 {
                return (constant(x / y, w), constant(x % y, w));
            }
        }
        // Division by a constant power of two: shifts.
        if let Some(y) = as_const(b) {
            if y.is_power_of_two() {
                let k = y.trailing_zeros() as usize;
                let mut q = vec![Lit::FALSE; w];
                let mut r = vec![Lit::FALSE; w];
                for i in 0..w {
                    if i + k < w {
                        q[i] = a[i + k];
                    }
                    if i < k {
                        r[i] = a[i];
                    }
                }
                return (q, r);
            }
        }
        // Division by another constant: q and r are fresh, defined by a = q*b + r, r < b
        // (computed wide enough not to overflow); a solution always exists, so the
        // constraints can be asserted outright.
        if let Some(y) = as_const(b) {
            if y != 0 {
                let k = (128 - y.leading_zeros()) as usize;
                let w2 = w + k;
                let q = self.fresh_bv(w);
                let r = self.fresh_bv(w);
                let qe = self.bv_resize(&q, w2, false);
                let re = self.bv_resize(&r, w2, false);
                let ae = self.bv_resize(a, w2, false);
                let prod = self.bv_mul(&qe, &constant(y, w2));
                let sum = self.bv_add(&prod, &re);
                let ok = self.bv_eq(&sum, &ae);
                self.assert(ok);
                let lt = self.bv_ult(&r, b);
                self.assert(lt);
                return (q, r);
            }
        }
        let mut q = vec![Lit::FALSE; w];
        // rem has w+1 bits so the shifted value never overflows.
        let mut rem = vec![Lit::FALSE; w + 1];
        let mut bx = b.to_vec();
        bx.push(Lit::FALSE);
        for i in (0..w).rev() {
            rem.pop();
            rem.insert(0, a[i]);
            let lt = self.bv_ult(&rem, &bx);
            let diff = self.bv_sub(&rem, &bx);
            q[i] = !lt;
            rem = self.bv_ite(lt, &rem, &diff);
        }
        rem.pop();
        (q, rem)
    }

    /// Signed division truncating toward zero and the matching remainder (sign of the
    /// dividend); `INT_MIN / -1` wraps to `INT_MIN` with remainder 0.
    pub fn bv_sdivrem(&mut self, a: &[Lit], b: &[Lit]) -> (Bv, Bv) {
        let w = a.len();
        if let (Some(x), Some(y)) = (as_const(a), as_const(b)) {
            let (x, y) = (sext_val(x, w), sext_val(y, w));
            if y != 0 {
                let q = x.wrapping_div(y);
                let r = x.wrapping_rem(y);
                return (constant(q as u128 & mask(w), w), constant(r as u128 & mask(w), w));
            }
        }
        let sa = a[w - 1];
        let sb = b[w - 1];
        let na = self.bv_neg(a);
        let nb = self.bv_neg(b);
        let abs_a = self.bv_ite(sa, &na, a);
        let abs_b = self.bv_ite(sb, &nb, b);
        let (q, r) = self.bv_udivrem(&abs_a, &abs_b);
        let qs = self.xor(sa, sb);
        let nq = self.bv_neg(&q);
        let nr = self.bv_neg(&r);
        let q = self.bv_ite(qs, &nq, &q);
        let r = self.bv_ite(sa, &nr, &r);
        (q, r)
    }

    /// Shift by a (possibly symbolic) amount read as unsigned; amounts of `width` or more give
    /// 0 (or all sign bits for an arithmetic right shift).
    pub fn bv_shift(&mut self, a: &[Lit], amount: &[Lit], left: bool, arith: bool) -> Bv {
        let w = a.len();
        let fill = if arith && !left { a[w - 1] } else { Lit::FALSE };
        if let Some(k) = as_const(amount) {
            let k = k.min(w as u128) as usize;
            let mut out = vec![fill; w];
            for i in 0..w {
                if left {
                    if i >= k {
                        out[i] = a[i - k];
                    } else {
                        out[i] = Lit::FALSE;
                    }
                } else if i + k < w {
                    out[i] = a[i + k];
                }
            }
            return out;
        }
        let stages = (usize::BITS - (w.max(1) - 1).leading_zeros()) as usize; // ceil(log2 w)
        let mut cur = a.to_vec();
        for s in 0..stages.min(amount.len()) {
            let k = 1usize << s;
            let bit = amount[s];
            let shifted: Bv = (0..w)
                .map(|i| {
                    if left {
                        if i >= k {
                            cur[i - k]
                        } else {
                            Lit::FALSE
                        }
                    } else if i + k < w {
                        cur[i + k]
                    } else {
                        fill
                    }
                })
                .collect();
            cur = self.bv_ite(bit, &shifted, &cur);
        }
        // Amount >= w: any higher bit set, or the low bits' value >= w (w not a power of two).
        let mut big = Lit::FALSE;
        for &l in amount.iter().skip(stages) {
            big = self.or(big, l);
        }
        if !w.is_power_of_two() {
            let ww = constant(w as u128, amount.len());
            let ge = self.bv_ult(amount, &ww);
            big = self.or(big, !ge);
        }
        let fillv = vec![fill; w];
        self.bv_ite(big, &fillv, &cur)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates a binary circuit on symbolic inputs pinned to constants through the solver,
    /// so the gates themselves (not the constant folding) are checked.
    fn check2(f: impl Fn(&mut Sat, &Bv, &Bv) -> Bv, x: u128, y: u128, w: usize) -> u128 {
        let mut s = Sat::new();
        let a = s.fresh_bv(w);
        let b = s.fresh_bv(w);
        let out = f(&mut s, &a, &b);
        let ca = constant(x, w);
        let cb = constant(y, w);
        let ea = s.bv_eq(&a, &ca);
        let eb = s.bv_eq(&b, &cb);
        s.assert(ea);
        s.assert(eb);
        assert_eq!(s.solve(&[]), Some(true));
        let mut v = 0u128;
        for (i, l) in out.iter().enumerate() {
            if s.value(*l) {
                v |= 1 << i;
            }
        }
        v
    }

    #[test]
    fn division_by_constant() {
        for &x in &[0u128, 1, 2, 5, 99, 100, 254, 255] {
            for &y in &[3u128, 7, 10, 255] {
                let mut s = Sat::new();
                let a = s.fresh_bv(8);
                let (q, r) = s.bv_udivrem(&a, &constant(y, 8));
                let eq = s.bv_eq(&a, &constant(x, 8));
                s.assert(eq);
                assert_eq!(s.solve(&[]), Some(true));
                let val = |s: &Sat, v: &Bv| v.iter().enumerate().fold(0u128, |acc, (i, l)| acc | ((s.value(*l) as u128) << i));
                assert_eq!((val(&s, &q), val(&s, &r)), (x / y, x % y), "{x} / {y}");
            }
        }
    }

    #[test]
    fn arithmetic_matches_constant_folding() {
        let w = 8;
        let samples = [0u128, 1, 2, 3, 7, 100, 127, 128, 200, 255];
        for &x in &samples {
            for &y in &samples {
                let sym = check2(|s, a, b| s.bv_add(a, b), x, y, w);
                assert_eq!(sym, (x + y) & 255);
                let sym = check2(|s, a, b| s.bv_sub(a, b), x, y, w);
                assert_eq!(sym, x.wrapping_sub(y) & 255);
                let sym = check2(|s, a, b| s.bv_mul(a, b), x, y, w);
                assert_eq!(sym, (x * y) & 255);
                if y != 0 {
                    let sym = check2(|s, a, b| s.bv_udivrem(a, b).0, x, y, w);
                    assert_eq!(sym, x / y, "{x}/{y}");
                    let sym = check2(|s, a, b| s.bv_udivrem(a, b).1, x, y, w);
                    assert_eq!(sym, x % y);
                    let (sx, sy) = (x as u8 as i8, y as u8 as i8);
                    let sym = check2(|s, a, b| s.bv_sdivrem(a, b).0, x, y, w);
                    assert_eq!(sym, sx.wrapping_div(sy) as u8 as u128, "{sx}/{sy}");
                    let sym = check2(|s, a, b| s.bv_sdivrem(a, b).1, x, y, w);
                    assert_eq!(sym, sx.wrapping_rem(sy) as u8 as u128, "{sx}%{sy}");
                }
                let lt = check2(|s, a, b| vec![s.bv_ult(a, b)], x, y, w);
                assert_eq!(lt == 1, x < y);
                let slt = check2(|s, a, b| vec![s.bv_slt(a, b)], x, y, w);
                assert_eq!(slt == 1, (x as u8 as i8) < (y as u8 as i8));
                let k = y % 10;
                let shl = check2(|s, a, b| s.bv_shift(a, b, true, false), x, k, w);
                assert_eq!(shl, if k >= 8 { 0 } else { (x << k) & 255 });
                let shr = check2(|s, a, b| s.bv_shift(a, b, false, true), x, k, w);
                let expect = if k >= 8 { ((x as u8 as i8) >> 7) as u8 } else { ((x as u8 as i8) >> k) as u8 };
                assert_eq!(shr, expect as u128, "{x} >> {k}");
            }
        }
    }
}
