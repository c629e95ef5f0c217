//! Literal spellings: escaped strings and comment text, integer constants that keep their
//! IR type (wrapped to width, suffixed, `__int128` built from halves), memory-order macros.
//!
//! Separate because getting a constant's C type and value exactly right is its own
//! problem, independent of the expression around it.

use super::Printer;
use crate::ir::*;
use std::fmt::Write as _;

/// Escapes `bytes` for the inside of a C string literal: printable ASCII as is (with `\\`,
/// `\"` and `?` after `?` escaped against trigraphs), common controls by name, everything
/// else as three-digit octal (never hex, which would swallow following hex digits).
fn escape_c_bytes(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    let mut prev_q = false;
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            b'?' if prev_q => s.push_str("\\?"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{:03o}", b);
            }
        }
        prev_q = b == b'?';
    }
    s
}

/// A C string literal with the given contents.
pub fn c_string(s: &[u8]) -> String {
    format!("\"{}\"", escape_c_bytes(s))
}

/// Text safe to put inside a one-line `/* */` comment.
pub(super) fn comment_text(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
        .replace("*/", "* /")
        .replace("/*", "/ *")
}

/// Width of the standard integer type an IR width is printed as.
pub(super) fn int_width(bits: u8) -> u32 {
    match bits {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        33..=64 => 64,
        _ => 128,
    }
}

/// Wraps `v` into the range of an integer of `bits` width and the given sign.
pub(super) fn wrap_int(v: i128, bits: u32, signed: bool) -> i128 {
    if bits >= 128 {
        return v;
    }
    let m = 1i128 << bits;
    let u = v.rem_euclid(m);
    if signed && u >= m / 2 {
        u - m
    } else {
        u
    }
}

pub(super) fn memorder(o: MemOrder) -> &'static str {
    match o {
        MemOrder::Relaxed => "__ATOMIC_RELAXED",
        MemOrder::Acquire => "__ATOMIC_ACQUIRE",
        MemOrder::Release => "__ATOMIC_RELEASE",
        MemOrder::AcqRel => "__ATOMIC_ACQ_REL",
        MemOrder::SeqCst => "__ATOMIC_SEQ_CST",
    }
}

/// The strongest order valid for the failure case of a compare-exchange with success order
/// `o` (C11: not release, not acq_rel, not stronger than the success order).
pub(super) fn failure_order(o: MemOrder) -> MemOrder {
    match o {
        MemOrder::Relaxed | MemOrder::Release => MemOrder::Relaxed,
        MemOrder::Acquire | MemOrder::AcqRel => MemOrder::Acquire,
        MemOrder::SeqCst => MemOrder::SeqCst,
    }
}

impl Printer<'_> {
    /// An integer constant of type `ty`, suffixed and parenthesised so that it has that
    /// type and binds as a primary expression.
    pub(super) fn const_lit(&self, v: i128, ty: &Type) -> String {
        match ty {
            Type::Bool => if v != 0 { "1" } else { "0" }.into(),
            Type::Int { bits, signed } => {
                let w = int_width(*bits);
                let v = wrap_int(v, w, *signed);
                match (w, *signed) {
                    (128, _) => self.const128(v, *signed),
                    (64, true) => {
                        if v == i64::MIN as i128 {
                            "(-9223372036854775807L - 1L)".into()
                        } else if v < 0 {
                            format!("(-{}L)", -v)
                        } else {
                            format!("{v}L")
                        }
                    }
                    (64, false) => format!("{v}UL"),
                    (32, false) => format!("{v}U"),
                    _ => {
                        // int, and the narrower types, which promote to int anyway.
                        if v == i32::MIN as i128 {
                            "(-2147483647 - 1)".into()
                        } else if v < 0 {
                            format!("(-{})", -v)
                        } else {
                            format!("{v}")
                        }
                    }
                }
            }
            Type::Ptr(_) => {
                let n = if v == 0 {
                    "0".to_string()
                } else {
                    format!("{}UL", v as u64)
                };
                format!("(({}){n})", self.type_name(ty))
            }
            Type::Float { .. } => format!("(({}){v})", self.type_name(ty)),
            _ => {
                if v < 0 {
                    format!("(-{})", v.unsigned_abs())
                } else {
                    v.to_string()
                }
            }
        }
    }

    fn const128(&self, v: i128, signed: bool) -> String {
        let t = if signed {
            "__int128"
        } else {
            "unsigned __int128"
        };
        if signed && v >= i64::MIN as i128 && v <= i64::MAX as i128 {
            return if v == i64::MIN as i128 {
                format!("(({t})(-9223372036854775807L - 1L))")
            } else if v < 0 {
                format!("(({t})(-{}L))", -v)
            } else {
                format!("(({t}){v}L)")
            };
        }
        let u = v as u128;
        if u <= u64::MAX as u128 {
            return format!("(({t}){u}UL)");
        }
        let hi = (u >> 64) as u64;
        let lo = u as u64;
        let mut s = format!("((unsigned __int128){hi:#x}UL << 64)");
        if lo != 0 {
            s = format!("({s} | {lo:#x}UL)");
        }
        format!("(({t}){s})")
    }
}
