//! The `<math.h>` functions SV-COMP tasks and real code use, bit-precise over
//! [`super::super::fp`]: classification (also glibc's `__isnan`-style names and GCC's
//! type-generic builtins, which `<math.h>`'s macros expand to), `fabs`, `copysign`, `sqrt`,
//! `fmin`/`fmax`, `floor`/`ceil`/`trunc`/`round`, infinities and NaNs. Any other math
//! function is an unmodelled call (its result arbitrary, see `approx_sites`). Also
//! `<stdlib.h>`'s `abs`, `labs`, `llabs`.

use super::super::fp::{Format, Integral};
use super::*;

/// The names handled here (without `__builtin_`), for the points-to analysis's list of
/// calls without effects on memory.
pub const CALLS: &[&str] = &[
    "fabs", "fabsf", "fabsl", "copysign", "copysignf", "copysignl", "sqrt", "sqrtf", "sqrtl", "fmin", "fminf", "fminl",
    "fmax", "fmaxf", "fmaxl", "floor", "floorf", "floorl", "ceil", "ceilf", "ceill", "trunc", "truncf", "truncl", "round",
    "roundf", "roundl", "inf", "inff", "infl", "huge_val", "huge_valf", "huge_vall", "nan", "nanf", "nanl", "isnan",
    "isinf", "isinf_sign", "isfinite", "finite", "isnormal", "signbit", "fpclassify", "__isnan", "__isnanf", "__isnanl",
    "__isinf", "__isinff", "__isinfl", "__finite", "__finitef", "__finitel", "__signbit", "__signbitf", "__signbitl",
    "__fpclassify", "__fpclassifyf", "__fpclassifyl", "abs", "labs", "llabs",
];

/// glibc's `FP_*` classes (`<math.h>`), as `__fpclassify` returns them.
const FP_NAN: u128 = 0;
const FP_INFINITE: u128 = 1;
const FP_ZERO: u128 = 2;
const FP_SUBNORMAL: u128 = 3;
const FP_NORMAL: u128 = 4;

/// Whether `name` (with or without `__builtin_`) is one of [`CALLS`].
pub fn models(name: &str) -> bool {
    CALLS.contains(&name.strip_prefix("__builtin_").unwrap_or(name))
}

/// The storage width of the floating type a function of the family `base` computes in: `f`
/// single, `l` long double, else double (glibc's `__isnanf`-style names likewise).
fn suffix_bits(name: &str, base: &str) -> Option<u8> {
    match name.strip_prefix(base)? {
        "" => Some(64),
        "f" => Some(32),
        "l" => Some(128),
        _ => None,
    }
}

const VALUE_FAMILIES: &[&str] = &["fabs", "copysign", "sqrt", "fmin", "fmax", "floor", "ceil", "trunc", "round", "inf", "huge_val", "nan"];
const GLIBC_CLASSIFIERS: &[&str] = &["__isnan", "__isinf", "__finite", "__signbit", "__fpclassify"];

impl<'p> Symex<'p> {
    /// The result of a math function and its type, or `None` when `name` is not one of
    /// [`CALLS`] or its arguments do not fit.
    pub(super) fn math_call(&mut self, name: &str, args: &[Expr], vals: &[Value]) -> Option<(Bv, Type)> {
        let name = name.strip_prefix("__builtin_").unwrap_or(name);
        if !CALLS.contains(&name) {
            return None;
        }
        let arg = |s: &mut Self, i: usize, ty: &Type| -> Option<Bv> { Some(s.convert(vals.get(i)?.first()?, &args.get(i)?.ty, ty)) };
        if let "abs" | "labs" | "llabs" = name {
            // <stdlib.h>'s: |INT_MIN| (undefined) wraps to INT_MIN.
            let ty = if name == "abs" { Type::INT } else { Type::LONG };
            let x = arg(self, 0, &ty)?;
            let minus = self.sat.bv_neg(&x);
            return Some((self.sat.bv_ite(x[x.len() - 1], &minus, &x), ty));
        }
        if let Some((base, bits)) = VALUE_FAMILIES.iter().find_map(|b| Some((*b, suffix_bits(name, b)?))) {
            let ty = Type::Float { bits };
            let f = Format::of_width(bits as usize);
            let r = match base {
                "inf" | "huge_val" => f.infinity(false),
                "nan" => f.nan(),
                "fabs" => {
                    let x = arg(self, 0, &ty)?;
                    self.sat.fp_abs(f, &x)
                }
                "sqrt" => {
                    let x = arg(self, 0, &ty)?;
                    self.sat.fp_sqrt(f, &x)
                }
                "copysign" => {
                    let (x, y) = (arg(self, 0, &ty)?, arg(self, 1, &ty)?);
                    self.sat.fp_copysign(f, &x, &y)
                }
                "fmin" | "fmax" => {
                    let (x, y) = (arg(self, 0, &ty)?, arg(self, 1, &ty)?);
                    // A NaN operand gives the other one (C11 F.10.9.2-3).
                    let x_nan = self.sat.fp_is_nan(f, &x);
                    let y_nan = self.sat.fp_is_nan(f, &y);
                    let lt = if base == "fmin" { self.sat.fp_lt(f, &y, &x) } else { self.sat.fp_lt(f, &x, &y) };
                    let pick_y = self.sat.or(x_nan, lt);
                    let pick_y = self.sat.and(pick_y, !y_nan);
                    self.sat.bv_ite(pick_y, &y, &x)
                }
                _ => {
                    let x = arg(self, 0, &ty)?;
                    let mode = match base {
                        "floor" => Integral::Floor,
                        "ceil" => Integral::Ceil,
                        "trunc" => Integral::Trunc,
                        _ => Integral::Round,
                    };
                    self.sat.fp_integral(f, &x, mode)
                }
            };
            return Some((r, ty));
        }
        // Classification. glibc's names take their argument as their suffix says; GCC's
        // type-generic builtins (unprototyped) in the argument's own type (`fpclassify`'s
        // value is its sixth argument).
        let bits = match GLIBC_CLASSIFIERS.iter().find_map(|b| suffix_bits(name, b)) {
            Some(bits) => bits,
            None => match &args.get(if name == "fpclassify" { 5 } else { 0 })?.ty {
                Type::Float { bits } => *bits,
                _ => 64,
            },
        };
        let f = Format::of_width(bits as usize);
        let x = arg(self, if name == "fpclassify" { 5 } else { 0 }, &Type::Float { bits })?;
        let int = |b: Lit| {
            let mut v = bv::constant(0, 32);
            v[0] = b;
            v
        };
        let nan = self.sat.fp_is_nan(f, &x);
        let inf = self.sat.fp_is_inf(f, &x);
        let sign = x[f.exp + f.frac];
        let r = match name {
            n if n.starts_with("__isnan") || n == "isnan" => int(nan),
            // glibc's `__isinf` and GCC's `isinf_sign` say which infinity.
            n if n.starts_with("__isinf") || n == "isinf_sign" => {
                let signed = self.sat.bv_ite(sign, &bv::constant_i(-1, 32), &bv::constant(1, 32));
                self.sat.bv_ite(inf, &signed, &bv::constant(0, 32))
            }
            "isinf" => int(inf),
            n if n.starts_with("__finite") || n == "isfinite" || n == "finite" => {
                let special = self.sat.or(nan, inf);
                int(!special)
            }
            "isnormal" => int(self.sat.fp_is_normal(f, &x)),
            n if n.starts_with("__signbit") || n == "signbit" => int(sign),
            _ => {
                // fpclassify: glibc's function returns the FP_* constants; GCC's builtin the
                // first five arguments, in that order (nan, infinite, normal, subnormal, zero).
                let mut classes = vec![];
                for (i, c) in [FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO].into_iter().enumerate() {
                    classes.push(if name == "fpclassify" { arg(self, i, &Type::INT)? } else { bv::constant(c, 32) });
                }
                let [c_nan, c_inf, c_norm, c_sub, c_zero] = <[Bv; 5]>::try_from(classes).ok()?;
                let zero = self.sat.fp_is_zero(f, &x);
                let normal = self.sat.fp_is_normal(f, &x);
                let r = self.sat.bv_ite(normal, &c_norm, &c_sub);
                let r = self.sat.bv_ite(zero, &c_zero, &r);
                let r = self.sat.bv_ite(inf, &c_inf, &r);
                self.sat.bv_ite(nan, &c_nan, &r)
            }
        };
        Some((r, Type::INT))
    }
}
