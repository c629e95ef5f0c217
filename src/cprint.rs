//! Prints a [`Program`] as one self-contained, compilable C file.
//!
//! The output includes only `weakc.h` ([`WEAKC_H`], shipped in `runtime/`), and is laid out
//! as: header comment, `#include "weakc.h"`, struct/union definitions (dependency order,
//! forward declarations where pointers need them), a prototype for every function that
//! `weakc.h` does not declare, globals with their initialisers, then the function
//! definitions.
//!
//! What is printed how:
//! * **Types** are resolved in the IR, so they are printed structurally with proper C
//!   declarators (`int (*p)[3]`, `void *(*f)(void *)`), integers by width and sign
//!   (`signed char` — plain `char` in prototypes of external functions, which are libc's —
//!   `unsigned short`, `int`, `long`, `__int128`); an empty parameter list is
//!   printed `()` (unprototyped in C17, as accepting as the IR, which cannot tell `(void)`
//!   from `()`).
//! * **Names**: every identifier is sanitised (`$` → `__`, other non-identifier characters
//!   → `_`) and made unique in its C namespace with `__N` suffixes: struct tags among tags,
//!   fields within their struct, functions and globals at file scope (also against the names
//!   `weakc.h` declares and the C keywords), labels per function. Locals (with temporaries)
//!   are all declared at the top of their function, so two locals of one function get
//!   distinct names, and a local is also renamed when it would hide a global or function the
//!   same function refers to. External functions keep their names (they link to them);
//!   user-*defined* functions named like a `weakc.h` function are renamed.
//! * **Statements**: see [`print_program`]; loops become `for (;;) { body latch }` with
//!   `continue` turned into a `goto` to a label before the latch when the latch is not empty.
//! * **`#line`** directives (with [`PrintOptions::line_directives`]) precede every line whose
//!   user location differs from the one the compiler would assume, so diagnostics and
//!   verifier traces name the user's file and line.

use crate::ir::*;
use crate::source::{Loc, SourceMap};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// The runtime header every printed file includes; write it next to the output (see
/// [`write_runtime`]) or pass its directory with `-I`.
pub const WEAKC_H: &str = include_str!("../runtime/weakc.h");

/// Functions and types `weakc.h` declares. The printer prints no prototype for an external
/// function of one of these names (the header's declaration is used), renames user-defined
/// functions and globals that would clash with them, and keeps locals from hiding them.
pub const RUNTIME_NAMES: &[&str] = &[
    // verifier primitives
    "__VERIFIER_assert",
    "__VERIFIER_assume",
    "__VERIFIER_error",
    "__VERIFIER_atomic_begin",
    "__VERIFIER_atomic_end",
    "__VERIFIER_nondet_bool",
    "__VERIFIER_nondet_char",
    "__VERIFIER_nondet_uchar",
    "__VERIFIER_nondet_short",
    "__VERIFIER_nondet_ushort",
    "__VERIFIER_nondet_int",
    "__VERIFIER_nondet_uint",
    "__VERIFIER_nondet_long",
    "__VERIFIER_nondet_ulong",
    "__VERIFIER_nondet_float",
    "__VERIFIER_nondet_double",
    "__VERIFIER_nondet_pointer",
    "__VERIFIER_nondet_int128",
    "__VERIFIER_nondet_uint128",
    // pthreads
    "pthread_t",
    "pthread_create",
    "pthread_join",
    "pthread_exit",
    "pthread_self",
    "pthread_mutex_init",
    "pthread_mutex_destroy",
    "pthread_mutex_lock",
    "pthread_mutex_trylock",
    "pthread_mutex_unlock",
    // libc
    "malloc",
    "free",
    "abort",
    "exit",
    "memset",
    "memcpy",
];

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

/// How to print.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Emit `#line N "file"` directives pointing at the user's source.
    pub line_directives: bool,
    /// Plain text (any number of lines) printed at the top of the file inside a `/* */`
    /// comment; empty for none.
    pub header: String,
}

/// The `weakc.h` macro a fence is printed as (without the `()`): `__weakc_fence_lwsync`.
pub fn fence_macro(f: Fence) -> &'static str {
    match f {
        Fence::Full => "__weakc_fence_full",
        Fence::AcqRel => "__weakc_fence_acqrel",
        Fence::Mfence => "__weakc_fence_mfence",
        Fence::Sync => "__weakc_fence_sync",
        Fence::Lwsync => "__weakc_fence_lwsync",
        Fence::Isync => "__weakc_fence_isync",
        Fence::Eieio => "__weakc_fence_eieio",
        Fence::Dmb => "__weakc_fence_dmb",
        Fence::DmbSt => "__weakc_fence_dmb_st",
        Fence::DmbLd => "__weakc_fence_dmb_ld",
        Fence::Dsb => "__weakc_fence_dsb",
        Fence::Isb => "__weakc_fence_isb",
        Fence::MembarRelease => "__weakc_fence_membar_release",
        Fence::Acquire => "__weakc_fence_acquire",
        Fence::Release => "__weakc_fence_release",
        Fence::Compiler => "__weakc_fence_compiler",
    }
}

/// Writes `weakc.h` into `dir` (creating the directory), for compiling printed files.
pub fn write_runtime(dir: &std::path::Path) -> std::io::Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("weakc.h");
    std::fs::write(&path, WEAKC_H)?;
    Ok(path)
}

/// Prints `prog` as one C file.
///
/// Statements: `Assign` → `l = r;`; `Call` → `[dest = ]f(args);` (indirect callees as
/// `(*fp)(args)`); `If` → `if (c) { } else { }`; `Loop` → `for (;;) { body
/// __weakc_continue_N: ; latch }` (`Continue` → `goto __weakc_continue_N;`, or `continue;`
/// when the latch is empty; `Break` → `break;`); `Goto`/`Label` → `goto l;` / `l: ;`;
/// `Assert` → `/* msg */ __VERIFIER_assert(c);`; `Assume` → `__VERIFIER_assume(c);`;
/// `Fence` → `__weakc_fence_<kind>();` ([`fence_macro`]); `AtomicBegin/End` →
/// `__VERIFIER_atomic_begin/end();`; `Spawn` → `pthread_create(tid, 0, f, arg);` (a fresh
/// `pthread_t __weakc_tidN` global when there is no tid); `Join` → `pthread_join(t, ret);`;
/// `Lock/Unlock` → `pthread_mutex_lock/unlock(m);`; `Rmw` → the GCC `__atomic_*` /
/// `__sync_*` builtin; `Block` → `{ }`; `Skip` → nothing.
pub fn print_program(prog: &Program, map: &SourceMap, opts: &PrintOptions) -> String {
    let mut p = Printer::new(prog, map, opts);
    p.print();
    p.out.text
}

// ------------------------------------------------------------------------------------------
// Names
// ------------------------------------------------------------------------------------------

/// Maps a name to a C identifier: `$` → `__`, any other non-identifier character → `_`, a
/// leading digit gets a `_` in front; empty names become `_`.
fn sanitize(name: &str) -> String {
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
fn is_compiler_builtin(name: &str) -> bool {
    ["__builtin_", "__sync_", "__atomic_"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Whether `v` is a thread-local file-scope variable (`_Thread_local`, `__thread`).
fn is_thread_local(v: &Var) -> bool {
    // Spelled through Debug so that this compiles before and after `Storage::ThreadLocal`
    // (added by the front end) is on main; replace with `matches!` then.
    format!("{:?}", v.storage) == "ThreadLocal"
}

/// Whether `v` lives at file scope (globals, static locals, thread-locals).
fn is_file_scope(v: &Var) -> bool {
    !matches!(v.storage, Storage::Local { .. } | Storage::Temp { .. })
}

fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// `base` if free (and not a keyword), else the first free `base__N`; records the result.
fn unique(base: String, taken: &mut HashSet<String>) -> String {
    let mut name = base.clone();
    let mut n = 1u32;
    while taken.contains(&name) || is_keyword(&name) {
        name = format!("{base}__{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

fn reserved_file_scope() -> HashSet<String> {
    let mut s: HashSet<String> = RUNTIME_NAMES.iter().map(|n| n.to_string()).collect();
    s.extend(INTERNAL_NAMES.iter().map(|n| n.to_string()));
    s.extend(ALL_FENCES.iter().map(|f| fence_macro(*f).to_string()));
    s
}

// ------------------------------------------------------------------------------------------
// Literals and escapes
// ------------------------------------------------------------------------------------------

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
fn c_string(s: &str) -> String {
    format!("\"{}\"", escape_c_bytes(s.as_bytes()))
}

/// Text safe to put inside a one-line `/* */` comment.
fn comment_text(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
        .replace("*/", "* /")
        .replace("/*", "/ *")
}

/// Width of the standard integer type an IR width is printed as.
fn int_width(bits: u8) -> u32 {
    match bits {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        33..=64 => 64,
        _ => 128,
    }
}

/// Wraps `v` into the range of an integer of `bits` width and the given sign.
fn wrap_int(v: i128, bits: u32, signed: bool) -> i128 {
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

fn memorder(o: MemOrder) -> &'static str {
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
fn failure_order(o: MemOrder) -> MemOrder {
    match o {
        MemOrder::Relaxed | MemOrder::Release => MemOrder::Relaxed,
        MemOrder::Acquire | MemOrder::AcqRel => MemOrder::Acquire,
        MemOrder::SeqCst => MemOrder::SeqCst,
    }
}

// ------------------------------------------------------------------------------------------
// Output with line tracking
// ------------------------------------------------------------------------------------------

struct Out {
    text: String,
    indent: usize,
    /// (file, line) the compiler attributes to the next output line, once a `#line`
    /// directive was printed.
    cur: Option<(u32, u32)>,
}

impl Out {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.text.push_str("    ");
        }
        self.text.push_str(s);
        self.text.push('\n');
        if let Some((_, l)) = &mut self.cur {
            *l += 1;
        }
    }
    fn blank(&mut self) {
        self.text.push('\n');
        if let Some((_, l)) = &mut self.cur {
            *l += 1;
        }
    }
}

// Expression precedences (higher binds tighter).
const P_PRIMARY: u8 = 16;
const P_POSTFIX: u8 = 15;
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

fn paren_unless(s: (String, u8), min: u8) -> String {
    if s.1 >= min {
        s.0
    } else {
        format!("({})", s.0)
    }
}


fn init_exprs<'e>(init: &'e Init, f: &mut impl FnMut(&'e Expr)) {
    match init {
        Init::Expr(e) => e.visit(f),
        Init::List(items) => items.iter().for_each(|i| init_exprs(i, f)),
    }
}

/// Whether a block prints nothing.
fn is_empty_block(b: &[Stmt]) -> bool {
    b.iter().all(|s| match &s.kind {
        StmtKind::Skip => true,
        StmtKind::Block(inner) => is_empty_block(inner),
        _ => false,
    })
}

/// Whether `b` holds a `Continue` of the loop it is the body or latch of (not of a nested
/// loop).
fn has_own_continue(b: &[Stmt]) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Continue => true,
        StmtKind::If { then_, else_, .. } => has_own_continue(then_) || has_own_continue(else_),
        StmtKind::Block(inner) => has_own_continue(inner),
        _ => false,
    })
}

// ------------------------------------------------------------------------------------------
// The printer
// ------------------------------------------------------------------------------------------

struct Printer<'a> {
    prog: &'a Program,
    map: &'a SourceMap,
    opts: &'a PrintOptions,
    out: Out,
    /// `struct tag` / `union tag` per struct.
    struct_names: Vec<String>,
    field_names: Vec<Vec<String>>,
    func_names: Vec<String>,
    /// External functions whose prototype is not printed (`weakc.h` declares them, or a
    /// defined function of the same name does).
    skip_proto: Vec<bool>,
    global_names: HashMap<VarId, String>,
    /// Globals in printing order.
    global_order: Vec<VarId>,
    /// Generated thread-id globals for `Spawn`s without a tid, by statement address.
    spawn_tids: HashMap<*const Stmt, String>,
    spawn_tid_order: Vec<String>,
    /// Print 8-bit signed integers as plain `char` (in prototypes of external functions).
    plain_char: std::cell::Cell<bool>,
    /// Locals and temporaries (with parameters) of each function, in variable order.
    owned: HashMap<FuncId, Vec<VarId>>,
    // Per function being printed:
    locals: HashMap<VarId, String>,
    labels: HashMap<LabelId, String>,
    /// Labels printed for each `Label` statement, by statement address (a repeated id gets a
    /// fresh name so that the output has no duplicate label).
    label_stmts: HashMap<*const Stmt, String>,
    label_taken: HashSet<String>,
    /// For each enclosing loop, the label `continue` jumps to (None: plain `continue`).
    loops: Vec<Option<String>>,
    next_continue: u32,
}

impl<'a> Printer<'a> {
    fn new(prog: &'a Program, map: &'a SourceMap, opts: &'a PrintOptions) -> Self {
        // Struct tags and fields.
        let mut tags = HashSet::new();
        let mut struct_names = Vec::new();
        let mut field_names = Vec::new();
        for (i, sd) in prog.structs.iter().enumerate() {
            let base = if sd.tag.trim().is_empty() {
                format!("__anon{i}")
            } else {
                sanitize(&sd.tag)
            };
            let tag = unique(base, &mut tags);
            struct_names.push(format!(
                "{} {}",
                if sd.is_union { "union" } else { "struct" },
                tag
            ));
            let mut taken = HashSet::new();
            let fields = sd
                .fields
                .iter()
                .enumerate()
                .map(|(j, f)| {
                    let base = if f.name.trim().is_empty() {
                        format!("__weakc_field{j}")
                    } else {
                        sanitize(&f.name)
                    };
                    unique(base, &mut taken)
                })
                .collect();
            field_names.push(fields);
        }

        // File scope: defined functions, then external ones, then globals.
        let mut fs = reserved_file_scope();
        let mut func_names = vec![String::new(); prog.funcs.len()];
        let mut skip_proto = vec![false; prog.funcs.len()];
        for (i, f) in prog.funcs.iter().enumerate() {
            if f.body.is_some() {
                func_names[i] = unique(sanitize(&f.name), &mut fs);
            }
        }
        let defined: HashSet<String> = prog
            .funcs
            .iter()
            .zip(&func_names)
            .filter(|(f, _)| f.body.is_some())
            .map(|(_, n)| n.clone())
            .collect();
        let mut extern_seen = HashSet::new();
        for (i, f) in prog.funcs.iter().enumerate() {
            if f.body.is_some() {
                continue;
            }
            let n = sanitize(&f.name);
            if RUNTIME_NAMES.contains(&n.as_str())
                || defined.contains(&n)
                || is_compiler_builtin(&n)
            {
                skip_proto[i] = true;
            } else if !extern_seen.insert(n.clone()) {
                // A second declaration of the same external function: one prototype is enough.
                skip_proto[i] = true;
            }
            fs.insert(n.clone());
            func_names[i] = n;
        }
        let mut global_order: Vec<VarId> = Vec::new();
        let mut listed = HashSet::new();
        for &g in &prog.globals {
            if (g.0 as usize) < prog.vars.len() && is_file_scope(prog.var(g)) && listed.insert(g) {
                global_order.push(g);
            }
        }
        for (i, v) in prog.vars.iter().enumerate() {
            let id = VarId(i as u32);
            if is_file_scope(v) && listed.insert(id) {
                global_order.push(id);
            }
        }
        let mut global_names = HashMap::new();
        for &g in &global_order {
            global_names.insert(g, unique(sanitize(&prog.var(g).name), &mut fs));
        }

        // Thread ids for spawns without one.
        let mut spawn_tids = HashMap::new();
        let mut spawn_tid_order = Vec::new();
        for f in &prog.funcs {
            if let Some(body) = &f.body {
                walk_stmts(body, &mut |s| {
                    if let StmtKind::Spawn { tid: None, .. } = s.kind {
                        let n = unique(format!("__weakc_tid{}", spawn_tid_order.len()), &mut fs);
                        spawn_tids.insert(s as *const Stmt, n.clone());
                        spawn_tid_order.push(n);
                    }
                });
            }
        }

        let mut owned: HashMap<FuncId, Vec<VarId>> = HashMap::new();
        for (i, v) in prog.vars.iter().enumerate() {
            if let Storage::Local { func } | Storage::Temp { func } = v.storage {
                owned.entry(func).or_default().push(VarId(i as u32));
            }
        }

        Printer {
            prog,
            map,
            opts,
            out: Out {
                text: String::new(),
                indent: 0,
                cur: None,
            },
            struct_names,
            field_names,
            func_names,
            skip_proto,
            global_names,
            global_order,
            spawn_tids,
            spawn_tid_order,
            owned,
            plain_char: std::cell::Cell::new(false),
            locals: HashMap::new(),
            labels: HashMap::new(),
            label_stmts: HashMap::new(),
            label_taken: HashSet::new(),
            loops: Vec::new(),
            next_continue: 0,
        }
    }

    // ---------------------------------------------------------------------- types

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
    fn decl(&self, ty: &Type, inner: &str) -> String {
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
    fn type_name(&self, ty: &Type) -> String {
        self.decl(ty, "")
    }

    /// Parameter list of a function type, with names when given.
    fn param_list(&self, ft: &FuncType, names: Option<&[String]>) -> String {
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

    // ---------------------------------------------------------------------- expressions

    fn var_name(&self, v: VarId) -> String {
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

    fn func_name(&self, f: FuncId) -> String {
        self.func_names
            .get(f.0 as usize)
            .cloned()
            .unwrap_or_else(|| format!("__weakc_unknown_func{}", f.0))
    }

    /// An integer constant of type `ty`, suffixed and parenthesised so that it has that
    /// type and binds as a primary expression.
    fn const_lit(&self, v: i128, ty: &Type) -> String {
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

    fn field_name(&self, base: &Expr, idx: usize) -> String {
        let mut sid = match &base.ty {
            Type::Struct(s) => Some(*s),
            _ => None,
        };
        if sid.is_none() {
            if let ExprKind::Deref(p) = &base.kind {
                if let Some(Type::Struct(s)) = p.ty.pointee() {
                    sid = Some(*s);
                }
            }
        }
        sid.and_then(|s| self.field_names.get(s.0 as usize))
            .and_then(|f| f.get(idx))
            .cloned()
            .unwrap_or_else(|| format!("__weakc_field{idx}"))
    }

    /// Prints `e` with the precedence of its outermost operator.
    fn expr_p(&self, e: &Expr) -> (String, u8) {
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

    fn expr(&self, e: &Expr) -> String {
        self.expr_p(e).0
    }

    /// `e` as an `int` truth value (pointers and floats compared with 0, so that passing
    /// them to an `int` parameter needs no conversion).
    fn truth(&self, e: &Expr) -> String {
        if e.ty.is_integral() {
            self.expr(e)
        } else {
            format!("{} != 0", paren_unless(self.expr_p(e), P_UNARY))
        }
    }

    fn init(&self, init: &Init, ty: Option<&Type>) -> String {
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

    // ---------------------------------------------------------------------- layout

    /// Prints a `#line` directive if the compiler would otherwise attribute the next line
    /// to another place than `loc`.
    fn at(&mut self, loc: Loc) {
        if !self.opts.line_directives || loc.line == 0 {
            return;
        }
        let Some(file) = self.map.files.get(loc.file as usize) else {
            return;
        };
        if self.out.cur == Some((loc.file, loc.line)) {
            return;
        }
        let d = format!("#line {} {}\n", loc.line, c_string(&file.name));
        self.out.text.push_str(&d);
        self.out.cur = Some((loc.file, loc.line));
    }

    fn print(&mut self) {
        if !self.opts.header.is_empty() {
            self.out.line("/*");
            for l in self.opts.header.lines() {
                let l = comment_text(l);
                if l.is_empty() {
                    self.out.line(" *");
                } else {
                    self.out.line(&format!(" * {l}"));
                }
            }
            self.out.line(" */");
        }
        self.out.line("#include \"weakc.h\"");
        self.print_structs();
        self.print_prototypes();
        self.print_globals();
        for i in 0..self.prog.funcs.len() {
            if self.prog.funcs[i].body.is_some() {
                self.print_function(FuncId(i as u32));
            }
        }
    }

    // ---------------------------------------------------------------------- structs

    fn used_structs(&self) -> Vec<bool> {
        let mut used = vec![false; self.prog.structs.len()];
        fn note(prog: &Program, ty: &Type, used: &mut Vec<bool>) {
            match ty {
                Type::Struct(s) => {
                    let i = s.0 as usize;
                    if i < used.len() && !used[i] {
                        used[i] = true;
                        for f in &prog.structs[i].fields {
                            note(prog, &f.ty, used);
                        }
                    }
                }
                Type::Ptr(t) | Type::Array(t, _) => note(prog, t, used),
                Type::Func(ft) => {
                    note(prog, &ft.ret, used);
                    ft.params.iter().for_each(|p| note(prog, p, used));
                }
                _ => {}
            }
        }
        let prog = self.prog;
        for v in &prog.vars {
            note(prog, &v.ty, &mut used);
            if let Some(init) = &v.init {
                init_exprs(init, &mut |e| note(prog, &e.ty, &mut used));
            }
        }
        for f in &prog.funcs {
            note(prog, &f.ty.ret, &mut used);
            f.ty.params.iter().for_each(|p| note(prog, p, &mut used));
            if let Some(body) = &f.body {
                walk_stmts(body, &mut |s| {
                    for_each_expr(s, &mut |e| e.visit(&mut |e| note(prog, &e.ty, &mut used)))
                });
            }
        }
        used
    }

    fn print_structs(&mut self) {
        let used = self.used_structs();
        if !used.iter().any(|u| *u) {
            return;
        }
        self.out.blank();
        let n = self.prog.structs.len();
        let mut st = StructState {
            declared: vec![false; n],
            done: vec![false; n],
            visiting: vec![false; n],
        };
        for (i, _) in used.iter().enumerate().filter(|(_, u)| **u) {
            self.emit_struct(i, &mut st);
        }
    }

    fn emit_struct(&mut self, i: usize, st: &mut StructState) {
        if st.done[i] || st.visiting[i] {
            return;
        }
        let sd = &self.prog.structs[i];
        if !sd.complete {
            if !st.declared[i] {
                self.out.line(&format!("{};", self.struct_names[i]));
                st.declared[i] = true;
            }
            st.done[i] = true;
            return;
        }
        st.visiting[i] = true;
        fn deps(ty: &Type, by_value: bool, val: &mut Vec<usize>, ptr: &mut Vec<usize>) {
            match ty {
                Type::Struct(s) => {
                    if by_value {
                        val.push(s.0 as usize)
                    } else {
                        ptr.push(s.0 as usize)
                    }
                }
                // An array type needs a complete element type even behind a pointer.
                Type::Array(t, _) => deps(t, true, val, ptr),
                Type::Ptr(t) => deps(t, false, val, ptr),
                Type::Func(ft) => {
                    deps(&ft.ret, false, val, ptr);
                    ft.params.iter().for_each(|p| deps(p, false, val, ptr));
                }
                _ => {}
            }
        }
        let (mut val, mut ptr) = (Vec::new(), Vec::new());
        for f in &sd.fields {
            deps(&f.ty, true, &mut val, &mut ptr);
        }
        for d in val {
            if d < st.done.len() {
                if st.visiting[d] {
                    // A by-value cycle (not valid C): declare it at least.
                    ptr.push(d);
                } else {
                    self.emit_struct(d, st);
                }
            }
        }
        for d in ptr {
            if d < st.done.len() && d != i && !st.declared[d] && !st.done[d] {
                self.out.line(&format!("{};", self.struct_names[d]));
                st.declared[d] = true;
            }
        }
        self.out.line(&format!("{} {{", self.struct_names[i]));
        self.out.indent += 1;
        for (j, f) in sd.fields.iter().enumerate() {
            let d = self.decl(&f.ty, &self.field_names[i][j]);
            self.out.line(&format!("{d};"));
        }
        self.out.indent -= 1;
        self.out.line("};");
        st.visiting[i] = false;
        st.done[i] = true;
        st.declared[i] = true;
    }

    // ---------------------------------------------------------------------- declarations

    fn print_prototypes(&mut self) {
        let mut first = true;
        for (i, f) in self.prog.funcs.iter().enumerate() {
            if self.skip_proto[i] {
                continue;
            }
            if first {
                self.out.blank();
                first = false;
            }
            // External functions are libc's and the like, declared with plain `char`: say so,
            // so that the prototype agrees with the compiler's builtin one (GCC warns by
            // default about `int puts(signed char *)`).
            self.plain_char.set(f.body.is_none());
            let d = self.decl(&Type::Func(Box::new(f.ty.clone())), &self.func_names[i]);
            self.plain_char.set(false);
            self.out.line(&format!("{d};"));
        }
    }

    fn print_globals(&mut self) {
        if self.global_order.is_empty() && self.spawn_tid_order.is_empty() {
            return;
        }
        self.out.blank();
        let mut printed: HashSet<VarId> = HashSet::new();
        let order = self.global_order.clone();
        for g in order {
            let var = self.prog.var(g);
            if let Some(init) = &var.init {
                // Globals the initialiser refers to that come later: declare them first.
                let mut refs = Vec::new();
                init_exprs(init, &mut |e| {
                    if let ExprKind::Var(r) = e.kind {
                        if r != g && self.global_names.contains_key(&r) && !refs.contains(&r) {
                            refs.push(r);
                        }
                    }
                });
                for r in refs {
                    if printed.insert(r) {
                        let rv = self.prog.var(r);
                        let d = self.decl(&rv.ty, &self.global_names[&r]);
                        let tl = if is_thread_local(rv) {
                            "_Thread_local "
                        } else {
                            ""
                        };
                        self.out.line(&format!("extern {tl}{d};"));
                    }
                }
            }
            printed.insert(g);
            self.at(var.loc);
            let mut d = self.decl(&var.ty, &self.global_names[&g]);
            if is_thread_local(var) {
                d = format!("_Thread_local {d}");
            }
            match &var.init {
                Some(init) => {
                    let i = self.init(init, Some(&var.ty));
                    self.out.line(&format!("{d} = {i};"));
                }
                None => self.out.line(&format!("{d};")),
            }
        }
        for t in self.spawn_tid_order.clone() {
            self.out.line(&format!("pthread_t {t};"));
        }
    }

    // ---------------------------------------------------------------------- functions

    fn print_function(&mut self, fid: FuncId) {
        let prog = self.prog;
        let f = prog.func(fid);
        let body = f.body.as_ref().expect("defined function");

        // File-scope names this function refers to: its locals must not hide them, since
        // they are all declared at the top of the body.
        let mut taken = reserved_file_scope();
        let note_expr = |e: &Expr, taken: &mut HashSet<String>| {
            e.visit(&mut |e| match e.kind {
                ExprKind::Var(v) => {
                    if let Some(n) = self.global_names.get(&v) {
                        taken.insert(n.clone());
                    }
                }
                ExprKind::FuncAddr(g) => {
                    taken.insert(self.func_name(g));
                }
                _ => {}
            })
        };
        walk_stmts(body, &mut |s| {
            for_each_expr(s, &mut |e| note_expr(e, &mut taken));
            if let StmtKind::Call {
                callee: Callee::Direct(g),
                ..
            } = &s.kind
            {
                taken.insert(self.func_name(*g));
            }
            if let Some(t) = self.spawn_tids.get(&(s as *const Stmt)) {
                taken.insert(t.clone());
            }
        });
        let owned: Vec<VarId> = self
            .owned
            .get(&fid)
            .map(|vs| {
                vs.iter()
                    .copied()
                    .filter(|v| !f.params.contains(v))
                    .collect()
            })
            .unwrap_or_default();
        for &v in &owned {
            if let Some(init) = &prog.var(v).init {
                init_exprs(init, &mut |e| note_expr(e, &mut taken));
            }
        }
        self.locals.clear();
        let mut param_names = Vec::new();
        for &p in &f.params {
            let n = unique(sanitize(&prog.var(p).name), &mut taken);
            self.locals.insert(p, n.clone());
            param_names.push(n);
        }
        // A definition needs a name for every parameter, even one the IR has no variable for.
        for i in param_names.len()..f.ty.params.len() {
            param_names.push(unique(format!("__weakc_param{i}"), &mut taken));
        }
        for &v in &owned {
            let n = unique(sanitize(&prog.var(v).name), &mut taken);
            self.locals.insert(v, n);
        }

        // Labels.
        self.labels.clear();
        self.label_stmts.clear();
        self.label_taken.clear();
        self.loops.clear();
        self.next_continue = 0;
        walk_stmts(body, &mut |s| {
            if let StmtKind::Label(id, name) = &s.kind {
                let base = if name.trim().is_empty() {
                    format!("__weakc_label{}", id.0)
                } else {
                    sanitize(name)
                };
                let n = unique(base, &mut self.label_taken);
                self.labels.entry(*id).or_insert_with(|| n.clone());
                self.label_stmts.insert(s as *const Stmt, n);
            }
        });

        // Header: use the parameters' own types when they are known.
        let mut ft = f.ty.clone();
        for (i, &p) in f.params.iter().enumerate() {
            if let Some(t) = ft.params.get_mut(i) {
                *t = prog.var(p).ty.clone();
            }
        }
        self.out.blank();
        self.at(f.loc);
        let params = self.param_list(&ft, Some(&param_names));
        let head = self.decl(
            &ft.ret,
            &format!("{}({params})", self.func_names[fid.0 as usize]),
        );
        self.out.line(&head);
        self.out.line("{");
        self.out.indent += 1;
        for &v in &owned {
            let var = prog.var(v);
            self.at(var.loc);
            let d = self.decl(&var.ty, &self.locals[&v]);
            match &var.init {
                Some(init) => {
                    let i = self.init(init, Some(&var.ty));
                    self.out.line(&format!("{d} = {i};"));
                }
                None => self.out.line(&format!("{d};")),
            }
        }
        self.block(body);
        self.out.indent -= 1;
        self.out.line("}");
        self.locals.clear();
    }

    fn block(&mut self, b: &[Stmt]) {
        for s in b {
            self.stmt(s);
        }
    }

    fn braced(&mut self, b: &[Stmt]) {
        self.out.indent += 1;
        self.block(b);
        self.out.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        if matches!(s.kind, StmtKind::Skip) {
            return;
        }
        self.at(s.loc);
        match &s.kind {
            StmtKind::Skip => {}
            StmtKind::Assign { lhs, rhs } => {
                let l = format!("{} = {};", self.expr(lhs), self.expr(rhs));
                self.out.line(&l);
            }
            StmtKind::Call { dest, callee, args } => {
                let c = match callee {
                    Callee::Direct(f) => self.func_name(*f),
                    Callee::Indirect(e) => paren_unless(self.expr_p(e), P_POSTFIX),
                };
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                let call = format!("{c}({})", args.join(", "));
                let l = match dest {
                    Some(d) => format!("{} = {call};", self.expr(d)),
                    None => format!("{call};"),
                };
                self.out.line(&l);
            }
            StmtKind::If { cond, then_, else_ } => {
                let l = format!("if ({}) {{", self.expr(cond));
                self.out.line(&l);
                self.braced(then_);
                if !is_empty_block(else_) {
                    self.out.line("} else {");
                    self.braced(else_);
                }
                self.out.line("}");
            }
            StmtKind::Loop { body, latch } => {
                let label = if !is_empty_block(latch)
                    && (has_own_continue(body) || has_own_continue(latch))
                {
                    let n = unique(
                        format!("__weakc_continue_{}", self.next_continue),
                        &mut self.label_taken,
                    );
                    self.next_continue += 1;
                    Some(n)
                } else {
                    None
                };
                self.loops.push(label.clone());
                self.out.line("for (;;) {");
                self.out.indent += 1;
                self.block(body);
                if let Some(l) = &label {
                    self.out.line(&format!("{l}: ;"));
                }
                self.block(latch);
                self.out.indent -= 1;
                self.out.line("}");
                self.loops.pop();
            }
            StmtKind::Break => self.out.line("break;"),
            StmtKind::Continue => match self.loops.last() {
                Some(Some(l)) => {
                    let l = format!("goto {l};");
                    self.out.line(&l)
                }
                _ => self.out.line("continue;"),
            },
            StmtKind::Return(None) => self.out.line("return;"),
            StmtKind::Return(Some(e)) => {
                let l = format!("return {};", self.expr(e));
                self.out.line(&l);
            }
            StmtKind::Goto(id) => {
                let n = self
                    .labels
                    .get(id)
                    .cloned()
                    .unwrap_or_else(|| format!("__weakc_label{}", id.0));
                self.out.line(&format!("goto {n};"));
            }
            StmtKind::Label(id, _) => {
                let n = self
                    .label_stmts
                    .get(&(s as *const Stmt))
                    .or_else(|| self.labels.get(id))
                    .cloned()
                    .unwrap_or_else(|| format!("__weakc_label{}", id.0));
                self.out.line(&format!("{n}: ;"));
            }
            StmtKind::Assert { cond, msg, .. } => {
                let c = self.truth(cond);
                let l = if msg.trim().is_empty() {
                    format!("__VERIFIER_assert({c});")
                } else {
                    format!("/* {} */ __VERIFIER_assert({c});", comment_text(msg.trim()))
                };
                self.out.line(&l);
            }
            StmtKind::Assume(c) => {
                let l = format!("__VERIFIER_assume({});", self.truth(c));
                self.out.line(&l);
            }
            StmtKind::Fence(f) => self.out.line(&format!("{}();", fence_macro(*f))),
            StmtKind::AtomicBegin => self.out.line("__VERIFIER_atomic_begin();"),
            StmtKind::AtomicEnd => self.out.line("__VERIFIER_atomic_end();"),
            StmtKind::Spawn { tid, func, arg } => {
                let t = match tid {
                    Some(t) => self.expr(t),
                    None => format!("&{}", self.spawn_tids[&(s as *const Stmt)]),
                };
                let l = format!(
                    "pthread_create({t}, 0, {}, {});",
                    self.thread_func(func),
                    self.thread_arg(arg)
                );
                self.out.line(&l);
            }
            StmtKind::Join { tid, ret } => {
                let r = ret
                    .as_ref()
                    .map(|r| self.expr(r))
                    .unwrap_or_else(|| "0".into());
                let l = format!("pthread_join({}, {r});", self.expr(tid));
                self.out.line(&l);
            }
            StmtKind::Lock(m) => {
                let l = format!("pthread_mutex_lock({});", self.expr(m));
                self.out.line(&l);
            }
            StmtKind::Unlock(m) => {
                let l = format!("pthread_mutex_unlock({});", self.expr(m));
                self.out.line(&l);
            }
            StmtKind::Rmw(r) => {
                let l = self.rmw(r);
                self.out.line(&l);
            }
            StmtKind::Block(b) => {
                self.out.line("{");
                self.braced(b);
                self.out.line("}");
            }
        }
    }

    /// The start routine of a spawn, cast to `void *(*)(void *)` unless it has that type.
    fn thread_func(&self, func: &Expr) -> String {
        let ft = match &func.kind {
            ExprKind::FuncAddr(f) => self.prog.funcs.get(f.0 as usize).map(|f| f.ty.clone()),
            _ => match &func.ty {
                Type::Func(ft) => Some((**ft).clone()),
                Type::Ptr(t) => match &**t {
                    Type::Func(ft) => Some((**ft).clone()),
                    _ => None,
                },
                _ => None,
            },
        };
        let void_ptr = Type::ptr_to(Type::Void);
        let exact = ft.is_some_and(|ft| {
            ft.ret == void_ptr && ft.params == [void_ptr.clone()] && !ft.variadic
        });
        if exact {
            self.expr(func)
        } else {
            format!(
                "(void *(*)(void *)){}",
                paren_unless(self.expr_p(func), P_POSTFIX)
            )
        }
    }

    /// The argument of a spawn as a `void *`.
    fn thread_arg(&self, arg: &Expr) -> String {
        match (&arg.kind, &arg.ty) {
            (_, Type::Ptr(_)) | (_, Type::Array(..)) | (_, Type::Func(_)) => self.expr(arg),
            (ExprKind::Const(0), _) => "0".into(),
            (_, t) if t.is_integral() => {
                format!(
                    "(void *)(long){}",
                    paren_unless(self.expr_p(arg), P_POSTFIX)
                )
            }
            _ => self.expr(arg),
        }
    }

    fn rmw(&self, r: &Rmw) -> String {
        let ptr = self.expr(&r.ptr);
        let val = self.expr(&r.val);
        let ord = memorder(r.order);
        let expected = || {
            r.expected
                .as_ref()
                .map(|e| self.expr(e))
                .unwrap_or_else(|| "0".into())
        };
        let fetch = |name: &str| format!("{name}({ptr}, {val}, {ord})");
        let call = match r.op {
            RmwOp::FetchAdd => fetch("__atomic_fetch_add"),
            RmwOp::FetchSub => fetch("__atomic_fetch_sub"),
            RmwOp::FetchAnd => fetch("__atomic_fetch_and"),
            RmwOp::FetchOr => fetch("__atomic_fetch_or"),
            RmwOp::FetchXor => fetch("__atomic_fetch_xor"),
            RmwOp::FetchNand => fetch("__atomic_fetch_nand"),
            RmwOp::AddFetch => fetch("__atomic_add_fetch"),
            RmwOp::SubFetch => fetch("__atomic_sub_fetch"),
            RmwOp::AndFetch => fetch("__atomic_and_fetch"),
            RmwOp::OrFetch => fetch("__atomic_or_fetch"),
            RmwOp::XorFetch => fetch("__atomic_xor_fetch"),
            RmwOp::NandFetch => fetch("__atomic_nand_fetch"),
            RmwOp::Exchange => fetch("__atomic_exchange_n"),
            RmwOp::CasVal => format!("__sync_val_compare_and_swap({ptr}, {}, {val})", expected()),
            RmwOp::CasBool => format!("__sync_bool_compare_and_swap({ptr}, {}, {val})", expected()),
            RmwOp::CompareExchange => format!(
                "__atomic_compare_exchange_n({ptr}, {}, {val}, 0, {ord}, {})",
                expected(),
                memorder(failure_order(r.order))
            ),
            RmwOp::Load => format!("__atomic_load_n({ptr}, {ord})"),
            RmwOp::Store => format!("__atomic_store_n({ptr}, {val}, {ord})"),
        };
        match &r.dest {
            Some(d) if r.op != RmwOp::Store => format!("{} = {call};", self.expr(d)),
            _ => format!("{call};"),
        }
    }
}

struct StructState {
    declared: Vec<bool>,
    done: Vec<bool>,
    visiting: Vec<bool>,
}

#[cfg(test)]
mod tests;
