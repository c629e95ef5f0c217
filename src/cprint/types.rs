//! Types as C declarators: `int (*p)[3]`, `void *(*f)(void *)`, parameter lists.
//!
//! Separate because C's inside-out declarator syntax is the one tricky part of printing a
//! type, and every declaration of the output goes through it.

use super::literals::int_width;
use super::Printer;
use crate::ir::*;

impl Printer<'_> {
    fn struct_name(&self, s: StructId) -> String {
        self.struct_names
            .get(s.0 as usize)
            .cloned()
            .unwrap_or_else(|| format!("struct __weakc_unknown_struct{}", s.0))
    }

    /// The type specifier a non-derived type is printed with.
    fn base_type(&self, ty: &Type) -> String {
        match ty {
            Type::Void => "void".into(),
            Type::Bool => "_Bool".into(),
            Type::Int { bits, signed } => {
                let s = match int_width(*bits) {
                    8 => "char",
                    16 => "short",
                    32 => "int",
                    64 => "long",
                    _ => "__int128",
                };
                match (int_width(*bits), signed) {
                    (8, true) if self.plain_char.get() => "char".into(),
                    (8, true) => "signed char".into(),
                    (_, true) => s.into(),
                    (_, false) => format!("unsigned {s}"),
                }
            }
            Type::Float { bits } => match bits {
                0..=32 => "float".into(),
                33..=64 => "double".into(),
                _ => "long double".into(),
            },
            Type::Struct(s) => self.struct_name(*s),
            Type::Ptr(_) | Type::Array(..) | Type::Func(_) => unreachable!("derived type"),
        }
    }

    /// `ty` declaring `inner` (an identifier, or "" for an abstract declarator).
    pub(super) fn decl(&self, ty: &Type, inner: &str) -> String {
        match ty {
            Type::Ptr(t) => {
                let mut d = format!("*{inner}");
                if matches!(**t, Type::Array(..) | Type::Func(_)) {
                    d = format!("({d})");
                }
                self.decl(t, &d)
            }
            Type::Array(t, n) => {
                let d = match n {
                    Some(n) => format!("{inner}[{n}]"),
                    None => format!("{inner}[]"),
                };
                self.decl(t, &d)
            }
            Type::Func(ft) => {
                let params = self.param_list(ft, None);
                self.decl(&ft.ret, &format!("{inner}({params})"))
            }
            _ => {
                let b = self.base_type(ty);
                if inner.is_empty() {
                    b
                } else {
                    format!("{b} {inner}")
                }
            }
        }
    }

    /// A type name, as in casts: `int *`, `void *(*)(void *)`.
    pub(super) fn type_name(&self, ty: &Type) -> String {
        self.decl(ty, "")
    }

    /// Parameter list of a function type, with names when given.
    pub(super) fn param_list(&self, ft: &FuncType, names: Option<&[String]>) -> String {
        if ft.params.is_empty() {
            // `()`: unprototyped before C23; `(...)` alone is C23 only.
            return String::new();
        }
        let mut parts: Vec<String> = ft
            .params
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let n = names
                    .and_then(|n| n.get(i))
                    .map(String::as_str)
                    .unwrap_or("");
                self.decl(t, n)
            })
            .collect();
        if ft.variadic {
            parts.push("...".into());
        }
        parts.join(", ")
    }
}
