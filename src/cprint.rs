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

mod expr;
mod layout;
mod literals;
pub use literals::c_string;
mod names;
mod stmt;
mod types;

use crate::ir::*;
use crate::source::SourceMap;
use names::{is_compiler_builtin, is_file_scope, reserved_file_scope, sanitize, unique};
use std::collections::{HashMap, HashSet};

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

/// How to print.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Emit `#line N "file"` directives pointing at the user's source.
    pub line_directives: bool,
    /// Plain text (any number of lines) printed at the top of the file inside a `/* */`
    /// comment; empty for none.
    pub header: String,
    /// With `line_directives`, the file name the directives give the code weakc generated
    /// (buffer helpers, their globals), with its real line numbers: normally the name the
    /// output is written under. Empty: `weakc-generated.c`. Without it a compiler or
    /// verifier would place the helpers in the user's file at lines past its end.
    pub generated_name: String,
}

/// `#line` file name of generated code when [`PrintOptions::generated_name`] is empty.
pub const GENERATED_NAME: &str = "weakc-generated.c";

/// File id standing for the generated code in `Out::cur`.
const GENERATED_FILE: u32 = u32::MAX;

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
        Fence::MembarLoadLoad => "__weakc_fence_membar_ll",
        Fence::MembarStoreLoad => "__weakc_fence_membar_sl",
        Fence::MembarToLoads => "__weakc_fence_membar_to_loads",
        Fence::MembarFromStores => "__weakc_fence_membar_from_stores",
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

/// The program as `units` C files that compile separately and link into it: file `k` holds
/// the definitions of the functions and globals whose location `unit_of` maps to `k` (the
/// instrumentation's own, and those of headers, map to a unit of the caller's choice), and
/// declares everything else. Every name is printed as in [`print_program`]: unique across
/// the program and with external linkage, so the files link.
///
/// `names[k]` is file `k`'s name, for the `#line`s of its generated code.
pub fn print_units(prog: &Program, map: &SourceMap, opts: &PrintOptions, names: &[String], unit_of: &dyn Fn(u32) -> usize) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let opts = PrintOptions { generated_name: name.clone(), ..opts.clone() };
            let mut p = Printer::new(prog, map, &opts);
            p.unit = Some((k, unit_of));
            p.print();
            p.out.text
        })
        .collect()
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
    /// Lines printed so far.
    lines: u32,
}

impl Out {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.text.push_str("    ");
        }
        self.text.push_str(s);
        self.blank();
    }
    fn blank(&mut self) {
        self.text.push('\n');
        self.lines += 1;
        if let Some((_, l)) = &mut self.cur {
            *l += 1;
        }
    }
}

// ------------------------------------------------------------------------------------------
// The printer
// ------------------------------------------------------------------------------------------

struct Printer<'a> {
    /// Printing one file of several (`print_units`): this file's index and each source
    /// file's (by file id); definitions of other files become declarations.
    unit: Option<(usize, &'a dyn Fn(u32) -> usize)>,
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
            unit: None,
            prog,
            map,
            opts,
            out: Out {
                text: String::new(),
                indent: 0,
                cur: None,
                lines: 0,
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
}

#[cfg(test)]
mod tests;
