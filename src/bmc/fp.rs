//! IEEE 754 binary floating point as circuits over [`Sat`] (bit-precise, like the integer
//! operations of [`super::bv`]): `float` is binary32, `double` binary64, and `long double`
//! is computed as binary64 kept in its wider storage (the upper bits zero), as the README
//! says. Rounding is to nearest, ties to even (C's default; `fesetround` is not modelled).
//!
//! Every arithmetic operation computes an exact or *jammed* intermediate — a significand
//! whose lowest bit is forced to 1 when bits were lost below it — and one [`Sat::fp_round`]
//! turns it into the format: normalisation, gradual underflow, round to nearest even,
//! overflow to infinity. A jammed value lies strictly between its two even neighbours, so
//! it rounds like the exact one as long as the jammed bit sits below the guard bit, which
//! each operation guarantees by the width it keeps.
//!
//! NaN results are the quiet NaN with the sign bit clear and an empty payload, except that
//! conversions between widths keep a NaN's sign and payload (as x86 and ARM do); comparisons
//! with a NaN are false (`!=` true).

use super::bv::{constant, Bv};
use super::sat::{Lit, Sat};

/// A binary interchange format, kept in `storage` bits (its value in the low bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Exponent field width.
    pub exp: usize,
    /// Fraction field width (the significand without its hidden bit).
    pub frac: usize,
    pub storage: usize,
}

impl Format {
    pub const SINGLE: Format = Format { exp: 8, frac: 23, storage: 32 };
    pub const DOUBLE: Format = Format { exp: 11, frac: 52, storage: 64 };

    /// The format of a C floating type of `bits` storage bits: `long double` (80 or 128
    /// bits) is computed as `double`.
    pub fn of_width(bits: usize) -> Format {
        match bits {
            0..=32 => Format::SINGLE,
            64 => Format::DOUBLE,
            _ => Format { storage: bits, ..Format::DOUBLE },
        }
    }

    /// Bits of the value: sign, exponent, fraction.
    fn width(self) -> usize {
        1 + self.exp + self.frac
    }

    fn bias(self) -> i128 {
        (1 << (self.exp - 1)) - 1
    }

    /// Significand width with the hidden bit.
    fn sig(self) -> usize {
        self.frac + 1
    }

    /// Width of the signed exponents computed on the way: products, quotients and
    /// normalisation shifts of subnormals stay well within it.
    fn ew(self) -> usize {
        self.exp + 6
    }

    /// Bit pattern of a value (in the low `width` bits).
    fn pattern(self, sign: bool, exp: u128, frac: u128) -> u128 {
        ((sign as u128) << (self.exp + self.frac)) | (exp << self.frac) | frac
    }

    pub fn nan(self) -> Bv {
        constant(self.pattern(false, (1 << self.exp) - 1, 1 << (self.frac - 1)), self.storage)
    }

    pub fn infinity(self, negative: bool) -> Bv {
        constant(self.pattern(negative, (1 << self.exp) - 1, 0), self.storage)
    }

    /// The constant nearest to `x` (host rounding to the format).
    pub fn from_f64(self, x: f64) -> Bv {
        match self.frac {
            23 => constant((x as f32).to_bits() as u128, self.storage),
            _ => constant(x.to_bits() as u128, self.storage),
        }
    }

    /// The host value of a constant pattern of this format.
    pub fn to_f64(self, bits: u128) -> f64 {
        match self.frac {
            23 => f32::from_bits(bits as u32) as f64,
            _ => f64::from_bits(bits as u64),
        }
    }
}

/// A value taken apart.
struct Parts {
    sign: Lit,
    /// Exponent field.
    exp: Bv,
    /// Fraction field.
    frac: Bv,
    nan: Lit,
    inf: Lit,
    zero: Lit,
    /// The exponent field is zero (zero or subnormal).
    denorm: Lit,
}

impl Sat {
    fn fp_parts(&mut self, f: Format, v: &[Lit]) -> Parts {
        let frac = v[..f.frac].to_vec();
        let exp = v[f.frac..f.frac + f.exp].to_vec();
        let sign = v[f.frac + f.exp];
        let ones = constant((1 << f.exp) - 1, f.exp);
        let top = self.bv_eq(&exp, &ones);
        let denorm = self.bv_is_zero(&exp);
        let fzero = self.bv_is_zero(&frac);
        Parts {
            sign,
            nan: self.and(top, !fzero),
            inf: self.and(top, fzero),
            zero: self.and(denorm, fzero),
            denorm,
            exp,
            frac,
        }
    }

    /// A finite value as `sig × 2^exp`: the significand with its hidden bit (`f.sig()` bits)
    /// and the signed exponent of its lowest bit (`f.ew()` bits).
    fn fp_sig_exp(&mut self, f: Format, p: &Parts) -> (Bv, Bv) {
        let mut sig = p.frac.clone();
        sig.push(!p.denorm);
        let field = self.bv_resize(&p.exp, f.ew(), false);
        let one = constant(1, f.ew());
        let eff = self.bv_ite(p.denorm, &one, &field);
        let exp = self.bv_sub(&eff, &constant((f.bias() + f.frac as i128) as u128, f.ew()));
        (sig, exp)
    }

    fn fp_pack(&mut self, f: Format, sign: Lit, exp: &[Lit], frac: &[Lit]) -> Bv {
        let mut v = frac.to_vec();
        v.extend_from_slice(exp);
        v.push(sign);
        v.resize(f.storage, Lit::FALSE);
        v
    }

    /// `a` shifted left so that its top bit is set (unless `a` is zero), and the shift.
    fn normalize(&mut self, a: &[Lit]) -> (Bv, Bv) {
        let w = a.len();
        let stages = usize::BITS as usize - w.leading_zeros() as usize; // 2^stages > w
        let mut cur = a.to_vec();
        let mut lz = vec![Lit::FALSE; stages + 1];
        for s in (0..stages).rev() {
            let k = 1usize << s;
            if k >= w {
                continue;
            }
            let top = self.or_all(cur[w - k..].to_vec());
            let shifted: Bv = (0..w).map(|i| if i >= k { cur[i - k] } else { Lit::FALSE }).collect();
            cur = self.bv_ite(!top, &shifted, &cur);
            lz[s] = !top;
        }
        (cur, lz)
    }

    /// `a >> amount` (unsigned amount) with every bit shifted out ORed into the lowest bit.
    fn shift_right_jam(&mut self, a: &[Lit], amount: &[Lit]) -> Bv {
        let w = a.len();
        let stages = usize::BITS as usize - w.leading_zeros() as usize; // 2^stages > w
        let mut cur = a.to_vec();
        let mut lost = Lit::FALSE;
        for (s, &bit) in amount.iter().enumerate().take(stages) {
            let k = 1usize << s;
            let out = self.or_all(cur[..k.min(w)].to_vec());
            let l = self.and(bit, out);
            lost = self.or(lost, l);
            let shifted: Bv = (0..w).map(|i| if i + k < w { cur[i + k] } else { Lit::FALSE }).collect();
            cur = self.bv_ite(bit, &shifted, &cur);
        }
        let big = self.or_all(amount.iter().skip(stages).copied());
        let all = self.or_all(a.to_vec());
        let all_lost = self.and(big, all);
        lost = self.or(lost, all_lost);
        let zero = vec![Lit::FALSE; w];
        cur = self.bv_ite(big, &zero, &cur);
        cur[0] = self.or(cur[0], lost);
        cur
    }

    /// Rounds `(-1)^sign × sig × 2^exp` to `f` (to nearest, ties to even). `sig` is unsigned,
    /// of any width, jammed (its lowest bit set when the value is inexact, and then at least
    /// `f.frac + 3` bits long from its top set bit); `exp` is signed, `f.ew()` bits.
    pub fn fp_round(&mut self, f: Format, sign: Lit, sig: &[Lit], exp: &[Lit]) -> Bv {
        let ew = f.ew();
        let mut sig = sig.to_vec();
        let mut exp = exp.to_vec();
        if sig.len() < f.frac + 3 {
            let k = f.frac + 3 - sig.len();
            let mut s = vec![Lit::FALSE; k];
            s.extend_from_slice(&sig);
            sig = s;
            exp = self.bv_sub(&exp, &constant(k as u128, ew));
        }
        let w = sig.len();
        let is_zero = self.bv_is_zero(&sig);
        let (norm, lz) = self.normalize(&sig);
        let lz = self.bv_resize(&lz, ew, false);
        // Biased exponent of the top bit: value = 1.xxx × 2^(be - bias).
        let top = self.bv_add(&exp, &constant((w as i128 - 1 + f.bias()) as u128, ew));
        let be = self.bv_sub(&top, &lz);
        let one = constant(1, ew);
        let tiny = self.bv_slt(&be, &one);
        let gap = self.bv_sub(&one, &be);
        let zero_ew = constant(0, ew);
        let amount = self.bv_ite(tiny, &gap, &zero_ew);
        let shifted = self.shift_right_jam(&norm, &amount);
        let e_eff = self.bv_ite(tiny, &one, &be);
        let mant = shifted[w - f.sig()..].to_vec();
        let guard = shifted[w - f.sig() - 1];
        let sticky = self.or_all(shifted[..w - f.sig() - 1].to_vec());
        let odd_or_sticky = self.or(sticky, mant[0]);
        let up = self.and(guard, odd_or_sticky);
        let mut m1 = mant.clone();
        m1.push(Lit::FALSE);
        let mut inc = vec![Lit::FALSE; f.sig() + 1];
        inc[0] = up;
        let m1 = self.bv_add(&m1, &inc);
        let carry = m1[f.sig()];
        let mant = self.bv_ite(carry, &m1[1..], &m1[..f.sig()]);
        let e1 = self.bv_add(&e_eff, &one);
        let e_eff = self.bv_ite(carry, &e1, &e_eff);
        let hidden = mant[f.frac];
        let max = constant((1 << f.exp) - 1, ew);
        let over = !self.bv_slt(&e_eff, &max);
        let over = self.and(over, !is_zero);
        let field_e = self.bv_ite(hidden, &e_eff[..f.exp], &vec![Lit::FALSE; f.exp]);
        let finite = self.fp_pack(f, sign, &field_e, &mant[..f.frac]);
        let inf = self.fp_infinity(f, sign);
        self.bv_ite(over, &inf, &finite)
    }

    fn fp_infinity(&mut self, f: Format, sign: Lit) -> Bv {
        let mut v = f.infinity(false);
        v[f.frac + f.exp] = sign;
        v
    }

    pub fn fp_is_nan(&mut self, f: Format, a: &[Lit]) -> Lit {
        self.fp_parts(f, a).nan
    }

    pub fn fp_is_inf(&mut self, f: Format, a: &[Lit]) -> Lit {
        self.fp_parts(f, a).inf
    }

    pub fn fp_is_zero(&mut self, f: Format, a: &[Lit]) -> Lit {
        self.fp_parts(f, a).zero
    }

    /// Neither zero, subnormal, infinite nor NaN.
    pub fn fp_is_normal(&mut self, f: Format, a: &[Lit]) -> Lit {
        let p = self.fp_parts(f, a);
        let special = self.or(p.nan, p.inf);
        self.and(!p.denorm, !special)
    }

    pub fn fp_neg(&mut self, f: Format, a: &[Lit]) -> Bv {
        let mut v = a.to_vec();
        v[f.frac + f.exp] = !v[f.frac + f.exp];
        v
    }

    pub fn fp_abs(&mut self, f: Format, a: &[Lit]) -> Bv {
        let mut v = a.to_vec();
        v[f.frac + f.exp] = Lit::FALSE;
        v
    }

    /// `a` with the sign of `b`.
    pub fn fp_copysign(&mut self, f: Format, a: &[Lit], b: &[Lit]) -> Bv {
        let mut v = a.to_vec();
        v[f.frac + f.exp] = b[f.frac + f.exp];
        v
    }

    /// `(special, value)` → `value` unless the special case holds, with the NaN case first.
    fn fp_select(&mut self, cases: &[(Lit, Bv)], otherwise: Bv) -> Bv {
        let mut out = otherwise;
        for (c, v) in cases.iter().rev() {
            out = self.bv_ite(*c, v, &out);
        }
        out
    }

    /// `a + b`, or `a - b` when `sub`.
    pub fn fp_add(&mut self, f: Format, a: &[Lit], b: &[Lit], sub: bool) -> Bv {
        let pa = self.fp_parts(f, a);
        let mut pb = self.fp_parts(f, b);
        if sub {
            pb.sign = !pb.sign;
        }
        let differ = self.xor(pa.sign, pb.sign);
        let both_inf = self.and(pa.inf, pb.inf);
        let inf_minus_inf = self.and(both_inf, differ);
        let nan_in = self.or(pa.nan, pb.nan);
        let nan = self.or(nan_in, inf_minus_inf);
        let inf_a = self.fp_infinity(f, pa.sign);
        let inf_b = self.fp_infinity(f, pb.sign);
        // Finite: the operand of larger magnitude first.
        let mag = f.width() - 1;
        let swap = self.bv_ult(&a[..mag], &b[..mag]);
        let (sa, ea) = self.fp_sig_exp(f, &pa);
        let (sb, eb) = self.fp_sig_exp(f, &pb);
        let big_s = self.bv_ite(swap, &sb, &sa);
        let small_s = self.bv_ite(swap, &sa, &sb);
        let big_e = self.bv_ite(swap, &eb, &ea);
        let small_e = self.bv_ite(swap, &ea, &eb);
        let big_sign = self.ite(swap, pb.sign, pa.sign);
        // Three bits below the significands and one above for the carry: the sum (or the
        // difference, which cancels at most one bit once a bit was jammed) keeps its guard
        // bit above the jammed one.
        let w = f.sig() + 4;
        let widen = |s: &[Lit]| -> Bv {
            let mut v = vec![Lit::FALSE; 3];
            v.extend_from_slice(s);
            v.push(Lit::FALSE);
            v
        };
        let big_x = widen(&big_s);
        let small_x = widen(&small_s);
        debug_assert_eq!(big_x.len(), w);
        let d = self.bv_sub(&big_e, &small_e);
        let small_x = self.shift_right_jam(&small_x, &d);
        let sum = self.bv_add(&big_x, &small_x);
        let diff = self.bv_sub(&big_x, &small_x);
        let res = self.bv_ite(differ, &diff, &sum);
        let exact_zero = self.bv_is_zero(&res);
        // An exact zero sum is +0, unless both operands are -0 (round to nearest).
        let both_neg = self.and(pa.sign, pb.sign);
        let sign = self.ite(exact_zero, both_neg, big_sign);
        let exp = self.bv_sub(&big_e, &constant(3, f.ew()));
        let finite = self.fp_round(f, sign, &res, &exp);
        self.fp_select(&[(nan, f.nan()), (pa.inf, inf_a), (pb.inf, inf_b)], finite)
    }

    pub fn fp_mul(&mut self, f: Format, a: &[Lit], b: &[Lit]) -> Bv {
        let pa = self.fp_parts(f, a);
        let pb = self.fp_parts(f, b);
        let sign = self.xor(pa.sign, pb.sign);
        let nan_in = self.or(pa.nan, pb.nan);
        let inf_zero = self.and(pa.inf, pb.zero);
        let zero_inf = self.and(pa.zero, pb.inf);
        let bad = self.or(inf_zero, zero_inf);
        let nan = self.or(nan_in, bad);
        let inf = self.or(pa.inf, pb.inf);
        let (sa, ea) = self.fp_sig_exp(f, &pa);
        let (sb, eb) = self.fp_sig_exp(f, &pb);
        let sa = self.bv_resize(&sa, 2 * f.sig(), false);
        let sb = self.bv_resize(&sb, 2 * f.sig(), false);
        let prod = self.bv_mul(&sa, &sb);
        let exp = self.bv_add(&ea, &eb);
        let finite = self.fp_round(f, sign, &prod, &exp);
        let inf_v = self.fp_infinity(f, sign);
        self.fp_select(&[(nan, f.nan()), (inf, inf_v)], finite)
    }

    pub fn fp_div(&mut self, f: Format, a: &[Lit], b: &[Lit]) -> Bv {
        let pa = self.fp_parts(f, a);
        let pb = self.fp_parts(f, b);
        let sign = self.xor(pa.sign, pb.sign);
        let nan_in = self.or(pa.nan, pb.nan);
        let inf_inf = self.and(pa.inf, pb.inf);
        let zero_zero = self.and(pa.zero, pb.zero);
        let bad = self.or(inf_inf, zero_zero);
        let nan = self.or(nan_in, bad);
        let inf = self.or(pa.inf, pb.zero);
        let zero = self.or(pb.inf, pa.zero);
        let (sa, ea) = self.fp_sig_exp(f, &pa);
        let (sb, eb) = self.fp_sig_exp(f, &pb);
        // Normalised significands: their quotient lies in (1/2, 2), so shifting the
        // dividend by sig + 3 leaves at least sig + 3 quotient bits (mantissa, guard, jam).
        let (na, la) = self.normalize(&sa);
        let (nb, lb) = self.normalize(&sb);
        let k = f.sig() + 3;
        let w = f.sig() + k;
        let mut num = vec![Lit::FALSE; k];
        num.extend_from_slice(&na);
        let den = self.bv_resize(&nb, w, false);
        // A zero divisor is a special case above; divide by one instead of building a
        // circuit whose result is discarded anyway.
        let den_zero = self.bv_is_zero(&den);
        let den = self.bv_ite(den_zero, &constant(1, w), &den);
        let (q, r) = self.bv_udivrem(&num, &den);
        let inexact = !self.bv_is_zero(&r);
        let mut q = q;
        q[0] = self.or(q[0], inexact);
        let la = self.bv_resize(&la, f.ew(), false);
        let lb = self.bv_resize(&lb, f.ew(), false);
        let ea = self.bv_sub(&ea, &la);
        let eb = self.bv_sub(&eb, &lb);
        let e = self.bv_sub(&ea, &eb);
        let exp = self.bv_sub(&e, &constant(k as u128, f.ew()));
        let finite = self.fp_round(f, sign, &q, &exp);
        let inf_v = self.fp_infinity(f, sign);
        let mut zero_v = constant(0, f.storage);
        zero_v[f.frac + f.exp] = sign;
        self.fp_select(&[(nan, f.nan()), (inf, inf_v), (zero, zero_v)], finite)
    }

    pub fn fp_sqrt(&mut self, f: Format, a: &[Lit]) -> Bv {
        let pa = self.fp_parts(f, a);
        let negative = self.and(pa.sign, !pa.zero);
        let nan = self.or(pa.nan, negative);
        let (s, e) = self.fp_sig_exp(f, &pa);
        let (n, lz) = self.normalize(&s);
        let lz = self.bv_resize(&lz, f.ew(), false);
        let e = self.bv_sub(&e, &lz);
        // An even exponent: an odd one moves a bit into the significand.
        let odd = e[0];
        let mut n1 = n.clone();
        n1.push(Lit::FALSE);
        let mut n2 = vec![Lit::FALSE];
        n2.extend_from_slice(&n);
        let n = self.bv_ite(odd, &n2, &n1);
        let e1 = self.bv_sub(&e, &constant(1, f.ew()));
        let e = self.bv_ite(odd, &e1, &e);
        // X = n × 2^(2k), so that isqrt(X) has sig + 3 bits or more.
        let k = (f.sig() + 7) / 2;
        let mut x = vec![Lit::FALSE; 2 * k];
        x.extend_from_slice(&n);
        let (r, exact) = self.isqrt(&x);
        let mut r = r;
        r[0] = self.or(r[0], !exact);
        // (e - 2k) / 2, e even.
        let e = self.bv_sub(&e, &constant(2 * k as u128, f.ew()));
        let mut half = e[1..].to_vec();
        half.push(e[f.ew() - 1]);
        let finite = self.fp_round(f, Lit::FALSE, &r, &half);
        let pos_inf = f.infinity(false);
        self.fp_select(&[(nan, f.nan()), (pa.zero, a.to_vec()), (pa.inf, pos_inf)], finite)
    }

    /// The integer square root (floor) of `x` and whether it is exact, digit by digit (two
    /// bits of `x` per bit of the root, as by hand): a circuit the solver evaluates by
    /// propagation alone.
    fn isqrt(&mut self, x: &[Lit]) -> (Bv, Lit) {
        let mut x = x.to_vec();
        if x.len() % 2 == 1 {
            x.push(Lit::FALSE);
        }
        let n = x.len() / 2;
        let w = n + 2;
        let mut root: Bv = vec![Lit::FALSE; w];
        let mut rem: Bv = vec![Lit::FALSE; w];
        for i in (0..n).rev() {
            // rem = rem·4 + the next two bits; trial = root·4 + 1.
            let mut r4 = vec![x[2 * i], x[2 * i + 1]];
            r4.extend_from_slice(&rem[..w - 2]);
            let mut trial = vec![Lit::TRUE, Lit::FALSE];
            trial.extend_from_slice(&root[..w - 2]);
            let lt = self.bv_ult(&r4, &trial);
            let diff = self.bv_sub(&r4, &trial);
            rem = self.bv_ite(lt, &r4, &diff);
            let mut r2 = vec![!lt];
            r2.extend_from_slice(&root[..w - 1]);
            root = r2;
        }
        let exact = self.bv_is_zero(&rem);
        (root[..n + 1].to_vec(), exact)
    }

    /// `a < b` (false when either is NaN; -0 and +0 are equal).
    pub fn fp_lt(&mut self, f: Format, a: &[Lit], b: &[Lit]) -> Lit {
        let pa = self.fp_parts(f, a);
        let pb = self.fp_parts(f, b);
        let mag = f.width() - 1;
        let a_lt = self.bv_ult(&a[..mag], &b[..mag]);
        let b_lt = self.bv_ult(&b[..mag], &a[..mag]);
        let pos = self.and(!pa.sign, !pb.sign);
        let neg = self.and(pa.sign, pb.sign);
        let mixed = self.and(pa.sign, !pb.sign);
        let both_zero = self.and(pa.zero, pb.zero);
        let p = self.and(pos, a_lt);
        let n = self.and(neg, b_lt);
        let m = self.and(mixed, !both_zero);
        let lt = self.or_all([p, n, m]);
        let nan = self.or(pa.nan, pb.nan);
        self.and(lt, !nan)
    }

    /// `a == b` (false when either is NaN; -0 equals +0).
    pub fn fp_eq(&mut self, f: Format, a: &[Lit], b: &[Lit]) -> Lit {
        let pa = self.fp_parts(f, a);
        let pb = self.fp_parts(f, b);
        let same = self.bv_eq(&a[..f.width()], &b[..f.width()]);
        let both_zero = self.and(pa.zero, pb.zero);
        let eq = self.or(same, both_zero);
        let nan = self.or(pa.nan, pb.nan);
        self.and(eq, !nan)
    }

    pub fn fp_le(&mut self, f: Format, a: &[Lit], b: &[Lit]) -> Lit {
        let lt = self.fp_lt(f, a, b);
        let eq = self.fp_eq(f, a, b);
        self.or(lt, eq)
    }

    /// The integer `v` (signed or not) rounded to `f`.
    pub fn fp_from_int(&mut self, f: Format, v: &[Lit], signed: bool) -> Bv {
        let neg = if signed && !v.is_empty() { v[v.len() - 1] } else { Lit::FALSE };
        let minus = self.bv_neg(v);
        let abs = self.bv_ite(neg, &minus, v);
        self.fp_round(f, neg, &abs, &constant(0, f.ew()))
    }

    /// `a` truncated toward zero to a `width`-bit integer, and whether it fits (C leaves
    /// the result of NaN, infinities and values out of range undefined).
    pub fn fp_to_int(&mut self, f: Format, a: &[Lit], width: usize, signed: bool) -> (Bv, Lit) {
        let p = self.fp_parts(f, a);
        let (sig, exp) = self.fp_sig_exp(f, &p);
        let wm = width + f.sig() + 2;
        let sig = self.bv_resize(&sig, wm, false);
        let left = !exp[f.ew() - 1];
        let too_far = {
            let lim = constant(width as u128 + 2, f.ew());
            let lt = self.bv_slt(&exp, &lim);
            self.and(left, !lt)
        };
        let l = self.bv_shift(&sig, &exp, true, false);
        let minus = self.bv_neg(&exp);
        let r = self.bv_shift(&sig, &minus, false, false);
        let m = self.bv_ite(left, &l, &r);
        let limit = match (signed, p.sign) {
            // Signed: magnitude at most 2^(w-1) - 1, or 2^(w-1) when negative.
            (true, _) => {
                let pos = constant((1u128 << (width - 1)) - 1, wm);
                let neg = constant(1u128 << (width - 1), wm);
                self.bv_ite(p.sign, &neg, &pos)
            }
            // Unsigned: below 2^w when positive, 0 when negative (-0.5 truncates to 0).
            (false, s) => {
                let pos = constant(if width >= 128 { u128::MAX } else { (1u128 << width) - 1 }, wm);
                let zero = constant(0, wm);
                self.bv_ite(s, &zero, &pos)
            }
        };
        let over = self.bv_ult(&limit, &m);
        let special = self.or(p.nan, p.inf);
        let bad = self.or_all([over, special, too_far]);
        let neg_m = self.bv_neg(&m);
        let v = self.bv_ite(p.sign, &neg_m, &m);
        (v[..width].to_vec(), !bad)
    }

    /// `a` converted from format `from` to format `to`.
    pub fn fp_convert(&mut self, from: Format, to: Format, a: &[Lit]) -> Bv {
        if from.exp == to.exp && from.frac == to.frac {
            return self.bv_resize(&a[..from.width()], to.storage, false);
        }
        let p = self.fp_parts(from, a);
        // A NaN keeps its sign and the top of its payload, and is quiet.
        let mut payload: Bv = if to.frac >= from.frac {
            let mut v = vec![Lit::FALSE; to.frac - from.frac];
            v.extend_from_slice(&p.frac);
            v
        } else {
            p.frac[from.frac - to.frac..].to_vec()
        };
        payload[to.frac - 1] = Lit::TRUE;
        let all_ones = vec![Lit::TRUE; to.exp];
        let nan = self.fp_pack(to, p.sign, &all_ones, &payload);
        let inf = self.fp_infinity(to, p.sign);
        let (sig, exp) = self.fp_sig_exp(from, &p);
        let exp = self.bv_resize(&exp, to.ew(), true);
        let finite = self.fp_round(to, p.sign, &sig, &exp);
        self.fp_select(&[(p.nan, nan), (p.inf, inf)], finite)
    }

    /// Rounds `a` to an integral value of the same format: toward zero (`trunc`), down
    /// (`floor`), up (`ceil`), or to nearest with ties away from zero (`round`).
    pub fn fp_integral(&mut self, f: Format, a: &[Lit], mode: Integral) -> Bv {
        let p = self.fp_parts(f, a);
        let (sig, exp) = self.fp_sig_exp(f, &p);
        // Values with a non-negative exponent are integral already; below -sig every bit is
        // a fraction.
        let w = f.sig() + 2;
        let sig = self.bv_resize(&sig, w, false);
        let minus = self.bv_neg(&exp);
        let int = self.bv_shift(&sig, &minus, false, false);
        let back = self.bv_shift(&int, &minus, true, false);
        let exact = self.bv_eq(&back, &sig);
        let half_bit = {
            // The bit just below the binary point: (sig >> (-exp - 1)) & 1.
            let m1 = self.bv_sub(&minus, &constant(1, f.ew()));
            let s = self.bv_shift(&sig, &m1, false, false);
            let neg_amount = m1[f.ew() - 1];
            self.and(s[0], !neg_amount)
        };
        let bump = match mode {
            Integral::Trunc => Lit::FALSE,
            Integral::Floor => self.and(p.sign, !exact),
            Integral::Ceil => self.and(!p.sign, !exact),
            Integral::Round => half_bit,
        };
        let mut inc = vec![Lit::FALSE; w];
        inc[0] = bump;
        let int = self.bv_add(&int, &inc);
        let rounded = self.fp_round(f, p.sign, &int, &constant(0, f.ew()));
        let integral_already = !exp[f.ew() - 1];
        let special = self.or_all([p.nan, p.inf, p.zero, integral_already]);
        self.bv_ite(special, a, &rounded)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integral {
    Trunc,
    Floor,
    Ceil,
    Round,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator (xorshift), with values biased toward the edges of
    /// the formats: zeros, subnormals, the largest finite values, infinities, NaNs.
    struct Gen(u64);
    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn f64(&mut self) -> f64 {
            let r = self.next();
            match r % 16 {
                0 => [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MAX, f64::MIN_POSITIVE, 1.0][(r >> 8) as usize % 8],
                1 => f64::from_bits(self.next() & 0x000f_ffff_ffff_ffff | (r & 1) << 63), // subnormal
                2 => (self.next() % 2000) as f64 / 8.0 - 125.0,
                3 => f64::from_bits(0x7fe0_0000_0000_0000 | self.next() & 0x000f_ffff_ffff_ffff),
                _ => f64::from_bits(self.next()),
            }
        }
        fn f32(&mut self) -> f32 {
            let r = self.next();
            match r % 16 {
                0 => [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, f32::MIN_POSITIVE, 1.0][(r >> 8) as usize % 8],
                1 => f32::from_bits(self.next() as u32 & 0x007f_ffff | ((r & 1) as u32) << 31),
                2 => (self.next() % 2000) as f32 / 8.0 - 125.0,
                _ => f32::from_bits(self.next() as u32),
            }
        }
    }

    /// Builds `op` over fresh inputs, then evaluates it on each case by pinning the inputs
    /// with assumptions: the circuit is checked, not the constant folding.
    fn eval_cases(width: usize, n_in: usize, op: impl Fn(&mut Sat, &[Bv]) -> Bv, cases: &[Vec<u128>]) -> Vec<u128> {
        eval_many(width, n_in, |s, i| vec![op(s, i)], cases).into_iter().map(|v| v[0]).collect()
    }

    /// The same with several outputs (each at most 128 bits).
    fn eval_many(width: usize, n_in: usize, op: impl Fn(&mut Sat, &[Bv]) -> Vec<Bv>, cases: &[Vec<u128>]) -> Vec<Vec<u128>> {
        let mut s = Sat::new();
        let ins: Vec<Bv> = (0..n_in).map(|_| s.fresh_bv(width)).collect();
        let outs = op(&mut s, &ins);
        cases
            .iter()
            .map(|case| {
                let assume: Vec<Lit> = ins
                    .iter()
                    .zip(case)
                    .flat_map(|(bv, v)| bv.iter().enumerate().map(move |(i, &l)| if (v >> i) & 1 == 1 { l } else { !l }))
                    .collect();
                assert_eq!(s.solve(&assume), Some(true));
                outs.iter().map(|out| out.iter().enumerate().fold(0u128, |acc, (i, &l)| acc | ((s.value(l) as u128) << i))).collect()
            })
            .collect()
    }

    fn same64(got: u128, want: f64) -> bool {
        let g = f64::from_bits(got as u64);
        (g.is_nan() && want.is_nan()) || got as u64 == want.to_bits()
    }

    fn same32(got: u128, want: f32) -> bool {
        let g = f32::from_bits(got as u32);
        (g.is_nan() && want.is_nan()) || got as u32 == want.to_bits()
    }

    fn check64(name: &str, op: impl Fn(&mut Sat, &[Bv]) -> Bv, host: impl Fn(f64, f64) -> f64, n: usize, seed: u64) {
        let mut g = Gen(seed);
        let xs: Vec<(f64, f64)> = (0..n).map(|_| (g.f64(), g.f64())).collect();
        let cases: Vec<Vec<u128>> = xs.iter().map(|(a, b)| vec![a.to_bits() as u128, b.to_bits() as u128]).collect();
        let got = eval_cases(64, 2, op, &cases);
        for ((a, b), r) in xs.iter().zip(got) {
            let want = host(*a, *b);
            assert!(same64(r, want), "{name}({a:e} [{:#x}], {b:e} [{:#x}]) = {:e} [{r:#x}], host {want:e} [{:#x}]", a.to_bits(), b.to_bits(), f64::from_bits(r as u64), want.to_bits());
        }
    }

    fn check32(name: &str, op: impl Fn(&mut Sat, &[Bv]) -> Bv, host: impl Fn(f32, f32) -> f32, n: usize, seed: u64) {
        let mut g = Gen(seed);
        let xs: Vec<(f32, f32)> = (0..n).map(|_| (g.f32(), g.f32())).collect();
        let cases: Vec<Vec<u128>> = xs.iter().map(|(a, b)| vec![a.to_bits() as u128, b.to_bits() as u128]).collect();
        let got = eval_cases(32, 2, op, &cases);
        for ((a, b), r) in xs.iter().zip(got) {
            let want = host(*a, *b);
            assert!(same32(r, want), "{name}({a:e} [{:#x}], {b:e} [{:#x}]) = {:e} [{r:#x}], host {want:e} [{:#x}]", a.to_bits(), b.to_bits(), f32::from_bits(r as u32), want.to_bits());
        }
    }

    const D: Format = Format::DOUBLE;
    const S: Format = Format::SINGLE;

    #[test]
    fn add_sub_match_the_host() {
        check64("add", |s, i| s.fp_add(D, &i[0], &i[1], false), |a, b| a + b, 400, 1);
        check64("sub", |s, i| s.fp_add(D, &i[0], &i[1], true), |a, b| a - b, 400, 2);
        check32("add", |s, i| s.fp_add(S, &i[0], &i[1], false), |a, b| a + b, 400, 3);
        check32("sub", |s, i| s.fp_add(S, &i[0], &i[1], true), |a, b| a - b, 400, 4);
    }

    #[test]
    fn add_near_cancellation_and_ties() {
        // Operands one or two binades apart with random low bits: the cases where the
        // jammed bit meets the guard bit.
        let mut g = Gen(99);
        let xs: Vec<(f32, f32)> = (0..400)
            .map(|_| {
                let a = f32::from_bits(0x3f80_0000 | (g.next() as u32 & 0x7f_ffff));
                let e = (g.next() % 30) as i32;
                let b = f32::from_bits(0x3f80_0000 | (g.next() as u32 & 0x7f_ffff)) * 2f32.powi(-e);
                (a, if g.next() & 1 == 1 { -b } else { b })
            })
            .collect();
        let cases: Vec<Vec<u128>> = xs.iter().map(|(a, b)| vec![a.to_bits() as u128, b.to_bits() as u128]).collect();
        let got = eval_cases(32, 2, |s, i| s.fp_add(S, &i[0], &i[1], false), &cases);
        for ((a, b), r) in xs.iter().zip(got) {
            assert!(same32(r, a + b), "{a:e} + {b:e}: got {:e}, host {:e}", f32::from_bits(r as u32), a + b);
        }
    }

    #[test]
    fn mul_div_match_the_host() {
        check64("mul", |s, i| s.fp_mul(D, &i[0], &i[1]), |a, b| a * b, 200, 5);
        check64("div", |s, i| s.fp_div(D, &i[0], &i[1]), |a, b| a / b, 150, 6);
        check32("mul", |s, i| s.fp_mul(S, &i[0], &i[1]), |a, b| a * b, 400, 7);
        check32("div", |s, i| s.fp_div(S, &i[0], &i[1]), |a, b| a / b, 400, 8);
    }

    #[test]
    fn sqrt_matches_the_host() {
        check64("sqrt", |s, i| s.fp_sqrt(D, &i[0]), |a, _| a.sqrt(), 150, 9);
        check32("sqrt", |s, i| s.fp_sqrt(S, &i[0]), |a, _| a.sqrt(), 300, 10);
    }

    #[test]
    fn comparisons_match_the_host() {
        for (f, w) in [(D, 64), (S, 32)] {
            let mut g = Gen(11 + w as u64);
            let xs: Vec<(u128, u128)> = (0..300)
                .map(|_| {
                    let (a, b) = if w == 64 { (g.f64().to_bits() as u128, g.f64().to_bits() as u128) } else { (g.f32().to_bits() as u128, g.f32().to_bits() as u128) };
                    // Half the pairs equal up to the sign, so -0 == +0 and ties are met.
                    if g.next() % 4 == 0 { (a, a ^ (1 << (w - 1))) } else if g.next() % 4 == 0 { (a, a) } else { (a, b) }
                })
                .collect();
            let cases: Vec<Vec<u128>> = xs.iter().map(|(a, b)| vec![*a, *b]).collect();
            let got = eval_cases(w, 2, |s, i| vec![s.fp_lt(f, &i[0], &i[1]), s.fp_eq(f, &i[0], &i[1]), s.fp_le(f, &i[0], &i[1])], &cases);
            for ((a, b), r) in xs.iter().zip(got) {
                let (x, y) = (f.to_f64(*a), f.to_f64(*b));
                let want = (x < y) as u128 | ((x == y) as u128) << 1 | ((x <= y) as u128) << 2;
                assert_eq!(r, want, "compare {x:e} {y:e}");
            }
        }
    }

    #[test]
    fn conversions_match_the_host() {
        // double -> float and back.
        let mut g = Gen(12);
        let xs: Vec<f64> = (0..300).map(|_| g.f64()).collect();
        let cases: Vec<Vec<u128>> = xs.iter().map(|a| vec![a.to_bits() as u128]).collect();
        let got = eval_cases(64, 1, |s, i| s.fp_convert(D, S, &i[0]), &cases);
        for (a, r) in xs.iter().zip(got) {
            assert!(same32(r, *a as f32), "(float){a:e}: got {:e}", f32::from_bits(r as u32));
        }
        let ys: Vec<f32> = (0..300).map(|_| g.f32()).collect();
        let cases: Vec<Vec<u128>> = ys.iter().map(|a| vec![a.to_bits() as u128]).collect();
        let got = eval_cases(32, 1, |s, i| s.fp_convert(S, D, &i[0]), &cases);
        for (a, r) in ys.iter().zip(got) {
            assert!(same64(r, *a as f64), "(double){a:e}");
        }
        // Integers to floats, signed and unsigned, 32 and 64 bits.
        let ints: Vec<u64> = (0..300).map(|i| if i % 5 == 0 { [0, 1, u64::MAX, 1 << 63, (1 << 53) + 1][i / 5 % 5] } else { g.next() >> (g.next() % 64) }).collect();
        let cases: Vec<Vec<u128>> = ints.iter().map(|v| vec![*v as u128]).collect();
        let got = eval_many(64, 1, |s, i| {
            vec![s.fp_from_int(D, &i[0], true), s.fp_from_int(D, &i[0], false), s.fp_from_int(S, &i[0], true), s.fp_from_int(S, &i[0][..32], false)]
        }, &cases);
        for (v, r) in ints.iter().zip(got) {
            assert_eq!(r[0] as u64, (*v as i64 as f64).to_bits(), "(double)(long){}", *v as i64);
            assert_eq!(r[1] as u64, (*v as f64).to_bits(), "(double)(unsigned long){v}");
            assert_eq!(r[2] as u32, (*v as i64 as f32).to_bits(), "(float)(long){}", *v as i64);
            assert_eq!(r[3] as u32, (*v as u32 as f32).to_bits(), "(float)(unsigned){}", *v as u32);
        }
        // Floats to integers (truncation), where the value fits.
        let xs: Vec<f64> = (0..300).map(|i| if i % 3 == 0 { g.f64() } else { (g.next() as i64 >> (g.next() % 64)) as f64 / [1.0, 3.0, 1024.0][i % 3] }).collect();
        let cases: Vec<Vec<u128>> = xs.iter().map(|a| vec![a.to_bits() as u128]).collect();
        let got = eval_many(64, 1, |s, i| {
            let (v, ok) = s.fp_to_int(D, &i[0], 32, true);
            let (u, ok2) = s.fp_to_int(D, &i[0], 64, false);
            vec![v, vec![ok], u, vec![ok2]]
        }, &cases);
        for (a, r) in xs.iter().zip(got) {
            let t = a.trunc();
            let fits32 = a.is_finite() && t >= i32::MIN as f64 && t <= i32::MAX as f64;
            assert_eq!(r[1] == 1, fits32, "(int){a:e} fits");
            if fits32 {
                assert_eq!(r[0] as u32, *a as i32 as u32, "(int){a:e}");
            }
            let fitsu = a.is_finite() && t >= 0.0 && t < 18446744073709551616.0;
            assert_eq!(r[3] == 1, fitsu, "(unsigned long){a:e} fits");
            if fitsu {
                assert_eq!(r[2] as u64, *a as u64, "(unsigned long){a:e}");
            }
        }
    }

    #[test]
    fn integral_rounding_matches_the_host() {
        let mut g = Gen(13);
        let xs: Vec<f64> = (0..300).map(|i| if i % 2 == 0 { g.f64() } else { (g.next() % 4000) as f64 / 4.0 - 500.0 }).collect();
        let cases: Vec<Vec<u128>> = xs.iter().map(|a| vec![a.to_bits() as u128]).collect();
        let modes = [Integral::Trunc, Integral::Floor, Integral::Ceil, Integral::Round];
        let got = eval_many(64, 1, |s, i| modes.iter().map(|m| s.fp_integral(D, &i[0], *m)).collect(), &cases);
        for (a, r) in xs.iter().zip(got) {
            for (k, (name, want)) in [("trunc", a.trunc()), ("floor", a.floor()), ("ceil", a.ceil()), ("round", a.round())].iter().enumerate() {
                assert!(same64(r[k], *want), "{name}({a:e}) = {:e}", f64::from_bits(r[k] as u64));
            }
        }
    }
}
