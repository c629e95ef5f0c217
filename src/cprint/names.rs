//! C identifiers: how an IR name becomes one (sanitised, kept unique in its C namespace,
//! away from keywords and what `weakc.h` declares), and the lookups of the names chosen.
//!
//! Separate so that every renaming rule of the module doc's **Names** item is in one place;
//! the rest of the printer only asks for names.

use super::{fence_macro, Printer, RUNTIME_NAMES};
use crate::ir::*;
use std::collections::HashSet;

/// Other identifiers `weakc.h` defines (types, macros): user names must avoid them too.
const INTERNAL_NAMES: &[&str] = &[
    "WEAKC_H",
    "__weakc_size_t",
    "__WEAKC_NORETURN",
    "__WEAKC_NO_ASM",
    "__weakc_no_pthread_decls",
    "__weakc_no_libc_decls",
    "__weakc_asm_fence",
    "__weakc_fence_nop",
    "__WEAKC_ARCH_X86",
    "__WEAKC_ARCH_POWER",
    "__WEAKC_ARCH_ARM",
    "__WEAKC_ARCH_ARM64",
];


/// C keywords (C89–C23) and GNU spellings that cannot be used as identifiers.
const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "alignas",
    "alignof",
    "bool",
    "constexpr",
    "false",
    "nullptr",
    "static_assert",
    "thread_local",
    "true",
    "typeof",
    "typeof_unqual",
    "_BitInt",
    "_Decimal32",
    "_Decimal64",
    "_Decimal128",
    "asm",
    "__asm",
    "__asm__",
    "__typeof",
    "__typeof__",
    "__attribute",
    "__attribute__",
    "__extension__",
    "__inline",
    "__inline__",
    "__restrict",
    "__restrict__",
    "__volatile",
    "__volatile__",
    "__const",
    "__const__",
    "__signed",
    "__signed__",
    "__label__",
    "__builtin_va_list",
    "__builtin_va_arg",
    "__builtin_offsetof",
    "__int128",
    "__auto_type",
    "__real__",
    "__imag__",
    "__alignof__",
    "__thread",
    "__func__",
    "__FUNCTION__",
    "__PRETTY_FUNCTION__",
];


/// Maps a name to a C identifier: `$` → `__`, any other non-identifier character → `_`, a
/// leading digit gets a `_` in front; empty names become `_`.
pub(super) fn sanitize(name: &str) -> String {
    let mut s = String::with_capacity(name.len());
    for c in name.chars() {
        if c == '$' {
            s.push_str("__");
        } else if c.is_ascii_alphanumeric() || c == '_' {
            s.push(c);
        } else {
            s.push('_');
        }
    }
    if s.is_empty() || s.as_bytes()[0].is_ascii_digit() {
        s.insert(0, '_');
    }
    s
}

/// Functions the compiler provides (`__builtin_expect`, `__sync_fetch_and_add`,
/// `__atomic_load_n`, ...): redeclaring them would turn them into ordinary external
/// functions (GCC) or be an error (Clang), so calls to them are printed without a prototype.
pub(super) fn is_compiler_builtin(name: &str) -> bool {
    ["__builtin_", "__sync_", "__atomic_"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Whether `v` is a thread-local file-scope variable (`_Thread_local`, `__thread`).
pub(super) fn is_thread_local(v: &Var) -> bool {
    // Spelled through Debug so that this compiles before and after `Storage::ThreadLocal`
    // (added by the front end) is on main; replace with `matches!` then.
    format!("{:?}", v.storage) == "ThreadLocal"
}

/// Whether `v` lives at file scope (globals, static locals, thread-locals).
pub(super) fn is_file_scope(v: &Var) -> bool {
    !matches!(v.storage, Storage::Local { .. } | Storage::Temp { .. })
}

fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// `base` if free (and not a keyword), else the first free `base__N`; records the result.
pub(super) fn unique(base: String, taken: &mut HashSet<String>) -> String {
    let mut name = base.clone();
    let mut n = 1u32;
    while taken.contains(&name) || is_keyword(&name) {
        name = format!("{base}__{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

pub(super) fn reserved_file_scope() -> HashSet<String> {
    let mut s: HashSet<String> = RUNTIME_NAMES.iter().map(|n| n.to_string()).collect();
    s.extend(INTERNAL_NAMES.iter().map(|n| n.to_string()));
    s.extend(ALL_FENCES.iter().map(|f| fence_macro(*f).to_string()));
    s
}

impl Printer<'_> {
    pub(super) fn var_name(&self, v: VarId) -> String {
        if let Some(n) = self.locals.get(&v) {
            return n.clone();
        }
        if let Some(n) = self.global_names.get(&v) {
            return n.clone();
        }
        match self.prog.vars.get(v.0 as usize) {
            Some(var) => sanitize(&var.name),
            None => format!("__weakc_unknown_var{}", v.0),
        }
    }

    pub(super) fn func_name(&self, f: FuncId) -> String {
        self.func_names
            .get(f.0 as usize)
            .cloned()
            .unwrap_or_else(|| format!("__weakc_unknown_func{}", f.0))
    }

    pub(super) fn field_name(&self, base: &Expr, idx: usize) -> String {
        let sid = match &base.ty {
            Type::Struct(s) => Some(*s),
            _ => None,
        };
        let sid = sid.or(match &base.kind {
            ExprKind::Deref(p) => match p.ty.pointee() {
                Some(Type::Struct(s)) => Some(*s),
                _ => None,
            },
            _ => None,
        });
        match sid {
            Some(s) => self.struct_field_name(s, idx),
            None => format!("__weakc_field{idx}"),
        }
    }

    /// The printed name of field `idx` of struct or union `s`.
    pub(super) fn struct_field_name(&self, s: StructId, idx: usize) -> String {
        self.field_names.get(s.0 as usize).and_then(|f| f.get(idx)).cloned().unwrap_or_else(|| format!("__weakc_field{idx}"))
    }
}
