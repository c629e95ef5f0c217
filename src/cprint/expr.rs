//! Expressions and initialisers, parenthesised by precedence only where C needs it.
//!
//! Separate from statements because an expression is printed as a string with its binding
//! strength, never as output lines.

use super::literals::{c_string, int_width};
use super::Printer;
use crate::ir::*;

// Expression precedences (higher binds tighter).
const P_PRIMARY: u8 = 16;
pub(super) const P_POSTFIX: u8 = 15;
const P_UNARY: u8 = 14;
const P_COND: u8 = 3;

fn bin_prec(op: BinOp) -> u8 {
    use BinOp::*;
    match op {
        Mul | Div | Rem => 13,
        Add | Sub => 12,
        Shl | Shr => 11,
        Lt | Le | Gt | Ge => 10,
        Eq | Ne => 9,
        BitAnd => 8,
        BitXor => 7,
        BitOr => 6,
        LogAnd => 5,
        LogOr => 4,
    }
}

pub(super) fn paren_unless(s: (String, u8), min: u8) -> String {
    if s.1 >= min {
        s.0
    } else {
        format!("({})", s.0)
    }
}

impl Printer<'_> {
    fn nondet(&self, ty: &Type) -> (String, u8) {
        let f = match ty {
            Type::Bool => "bool",
            Type::Int { bits, signed } => match (int_width(*bits), signed) {
                (8, true) => "char",
                (8, false) => "uchar",
                (16, true) => "short",
                (16, false) => "ushort",
                (32, true) => "int",
                (32, false) => "uint",
                (64, true) => "long",
                (64, false) => "ulong",
                (_, true) => "int128",
                (_, false) => "uint128",
            },
            Type::Float { bits } if *bits <= 32 => "float",
            Type::Float { bits } if *bits <= 64 => "double",
            Type::Float { .. } => {
                return (
                    "((long double)__VERIFIER_nondet_double())".to_string(),
                    P_PRIMARY,
                )
            }
            Type::Ptr(t) if **t == Type::Void => "pointer",
            Type::Ptr(_) => {
                return (
                    format!("(({})__VERIFIER_nondet_pointer())", self.type_name(ty)),
                    P_PRIMARY,
                )
            }
            _ => {
                // No SV-COMP function for aggregates: an uninitialised (indeterminate) value.
                return (
                    format!(
                        "({{ {}; __weakc_nondet; }})",
                        self.decl(ty, "__weakc_nondet")
                    ),
                    P_PRIMARY,
                );
            }
        };
        (format!("__VERIFIER_nondet_{f}()"), P_POSTFIX)
    }

    /// Prints `e` with the precedence of its outermost operator.
    pub(super) fn expr_p(&self, e: &Expr) -> (String, u8) {
        match &e.kind {
            ExprKind::Const(v) => (self.const_lit(*v, &e.ty), P_PRIMARY),
            ExprKind::FloatConst(s) => {
                let s = s.trim();
                if s.starts_with('-') || s.starts_with('+') {
                    (format!("({s})"), P_PRIMARY)
                } else {
                    (s.to_string(), P_PRIMARY)
                }
            }
            ExprKind::Str(s) => (c_string(s), P_PRIMARY),
            ExprKind::Var(v) => (self.var_name(*v), P_PRIMARY),
            ExprKind::FuncAddr(f) => (self.func_name(*f), P_PRIMARY),
            ExprKind::Nondet => self.nondet(&e.ty),
            ExprKind::Unary(op, a) => {
                let o = match op {
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::Not => "!",
                };
                (
                    format!("{o}{}", paren_unless(self.expr_p(a), P_POSTFIX)),
                    P_UNARY,
                )
            }
            ExprKind::Deref(a) => (
                format!("*{}", paren_unless(self.expr_p(a), P_POSTFIX)),
                P_UNARY,
            ),
            ExprKind::AddrOf(a) => (
                format!("&{}", paren_unless(self.expr_p(a), P_POSTFIX)),
                P_UNARY,
            ),
            ExprKind::Cast(a) => (
                format!(
                    "({}){}",
                    self.type_name(&e.ty),
                    paren_unless(self.expr_p(a), P_POSTFIX)
                ),
                P_UNARY,
            ),
            ExprKind::Binary(op, a, b) => {
                // A left chain of one (non-comparison) operator prints without parentheses:
                // walked iteratively into one string (formatting it level by level copied
                // each level again: quadratic on the long chains of the instrumentation).
                let mut right = vec![b];
                let mut first = a;
                while let ExprKind::Binary(op2, a2, b2) = &first.kind {
                    if op2 != op || op.is_comparison() {
                        break;
                    }
                    right.push(b2);
                    first = a2;
                }
                let mut s = paren_unless(self.expr_p(first), P_UNARY);
                for r in right.iter().rev() {
                    s.push(' ');
                    s.push_str(op.c_str());
                    s.push(' ');
                    s.push_str(&paren_unless(self.expr_p(r), P_UNARY));
                }
                (s, bin_prec(*op))
            }
            ExprKind::Cond(c, a, b) => (
                format!(
                    "{} ? {} : {}",
                    paren_unless(self.expr_p(c), P_UNARY),
                    paren_unless(self.expr_p(a), P_UNARY),
                    paren_unless(self.expr_p(b), P_UNARY)
                ),
                P_COND,
            ),
            ExprKind::Member(base, idx) => {
                let f = self.field_name(base, *idx);
                match &base.kind {
                    ExprKind::Deref(p) => (
                        format!("{}->{f}", paren_unless(self.expr_p(p), P_POSTFIX)),
                        P_POSTFIX,
                    ),
                    _ => (
                        format!("{}.{f}", paren_unless(self.expr_p(base), P_POSTFIX)),
                        P_POSTFIX,
                    ),
                }
            }
            ExprKind::Index(a, i) => (
                format!(
                    "{}[{}]",
                    paren_unless(self.expr_p(a), P_POSTFIX),
                    self.expr(i)
                ),
                P_POSTFIX,
            ),
        }
    }

    pub(super) fn expr(&self, e: &Expr) -> String {
        self.expr_p(e).0
    }

    /// `e` as an `int` truth value (pointers and floats compared with 0, so that passing
    /// them to an `int` parameter needs no conversion).
    pub(super) fn truth(&self, e: &Expr) -> String {
        if e.ty.is_integral() {
            self.expr(e)
        } else {
            format!("{} != 0", paren_unless(self.expr_p(e), P_UNARY))
        }
    }

    pub(super) fn init(&self, init: &Init, ty: Option<&Type>) -> String {
        // A union's list initialises one member: named, since it need not be the first.
        if let (Init::List(items), Some(Type::Struct(s))) = (init, ty) {
            if let Some(def) = self.prog.structs.get(s.0 as usize).filter(|d| d.is_union) {
                return match Init::union_member(items) {
                    Some((k, it)) => format!("{{.{} = {}}}", self.struct_field_name(*s, k), self.init(it, def.fields.get(k).map(|f| &f.ty))),
                    None => "{0}".into(),
                };
            }
        }
        match init {
            Init::Expr(e) => self.expr(e),
            Init::List(items) if items.is_empty() => {
                if ty.is_some_and(Type::is_scalar) {
                    "0".into()
                } else {
                    "{0}".into()
                }
            }
            Init::List(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(i, it)| {
                        let et = match ty {
                            Some(Type::Array(t, _)) => Some(&**t),
                            Some(Type::Struct(s)) => self
                                .prog
                                .structs
                                .get(s.0 as usize)
                                .and_then(|d| d.fields.get(i))
                                .map(|f| &f.ty),
                            _ => None,
                        };
                        self.init(it, et)
                    })
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }
}
