//! C front end: preprocess, parse with tree-sitter, lower to [`crate::ir`].
//!
//! [`load_file`] and [`load_str`] run the system preprocessor when needed
//! ([`preprocess`]), parse with tree-sitter-c and lower the syntax tree to a typed
//! [`Program`] (see [`lower`] for the conventions of the produced IR).
//!
//! Understood beyond plain C: CBMC's litmus conventions (`__CPROVER_ASYNC_n: f(x);`,
//! `__CPROVER_assume/assert`, `__CPROVER_atomic_begin/end`), SV-COMP's (`__VERIFIER_*`,
//! `reach_error`, `assume_abort_if_not`, atomic sections and `__VERIFIER_atomic_*`
//! functions), glibc's `assert` expansions, pthreads (create, join, mutex lock/unlock), GCC
//! inline assembly (fences and memory idioms, `asm.rs`), `__sync_*`/`__atomic_*` builtins, and C11 `<stdatomic.h>` (through
//! a shim header mapping it to the `__atomic_*` builtins).
//!
//! Errors: malformed C in the user's files is [`Error::Syntax`]; constructs weakc does not
//! model, in code that is used, are [`Error::Unsupported`] (declarations of system headers
//! that cannot be handled are only reported when the program uses them).

mod asm;
mod builtins;
pub mod dump;
mod expr;
mod gc;
mod init;
mod link;
mod packing;
pub mod lower;
pub mod preprocess;
mod stmt;
mod types;
pub mod unnamed;
#[cfg(test)]
mod tests;

use crate::ir::{self, Program};
use crate::source::{Error, SourceMap};
use std::path::{Path, PathBuf};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Preprocess {
    /// Run the system preprocessor when the text has directives other than line markers.
    #[default]
    Auto,
    /// Never run it (the input is already preprocessed).
    Never,
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub preprocess: Preprocess,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// Macros to undefine (`-U`), after the defines.
    pub undefines: Vec<String>,
    /// Language standard for the preprocessor (`-std=`), e.g. from a compilation database.
    pub std: Option<String>,
    /// Files included before the source (`-include`).
    pub forced_includes: Vec<PathBuf>,
    /// The file is one of several translation units to link (`load_units`): every function
    /// and global it defines is kept (another unit may use it), `main` is optional.
    pub unit: bool,
    /// The function the program starts in (`None`: `main`).
    pub entry: Option<String>,
    /// Preprocess as a compiler for this machine would (`-undef` and its predefined macros);
    /// `None` keeps the host preprocessor's own macros.
    pub target: Option<preprocess::Target>,
    /// Whether plain `char` is signed (`-fsigned-char`/`-funsigned-char`); `None`: as the
    /// target's ABI says ([`preprocess::Target::char_signed`]; the host's, x86-64, without one).
    pub char_signed: Option<bool>,
}

impl Options {
    /// Whether plain `char` is signed for this compilation.
    pub fn plain_char_signed(&self) -> bool {
        self.char_signed.unwrap_or_else(|| self.target.is_none_or(preprocess::Target::char_signed))
    }
}

/// Parses C text with tree-sitter-c.
pub fn parse_c(text: &str) -> Option<tree_sitter::Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_c::LANGUAGE.into()).ok()?;
    parser.parse(text, None)
}

/// Loads, preprocesses (when needed) and lowers a C file.
pub fn load_file(path: &Path, opts: &Options, map: &mut SourceMap) -> Result<Program, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io { path: path.to_path_buf(), msg: e.to_string(), output: false })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let name = path.display().to_string();
    map.add_file(&name, text.clone());
    let prep = preprocess::prepare(&name, Some(path), &text, opts, map)?;
    lower_prepared(&prep, map, opts)
}

/// Loads each file as a translation unit with its own options and links them
/// ([`link::link`]); one file is loaded as by [`load_file`].
pub fn load_units(units: &[(PathBuf, Options)], map: &mut SourceMap) -> Result<Program, Error> {
    load_linked(units, |(_, o)| o, |(path, _), o| load_file(path, o, map))
}

/// [`load_units`] for texts in memory (name, text, options), each named as its unit
/// (`weakc fences` analyses the units it edits this way). Loaded in the order of the
/// original units with their options, the files get the same ids in `map`.
pub fn load_texts(units: &[(&str, &str, &Options)], map: &mut SourceMap) -> Result<Program, Error> {
    load_linked(units, |u| u.2, |(name, text, _), o| {
        // (read from stdin, a unit finds its `#include "…"` files through its directory)
        let mut o = o.clone();
        if let Some(d) = Path::new(name).parent().filter(|d| !d.as_os_str().is_empty()) {
            o.include_dirs.push(d.to_path_buf());
        }
        load_str(name, text, &o, map)
    })
}

/// One unit loaded as a program of its own; several loaded as units ([`Options::unit`]) and
/// linked, the program starting in the first one's entry.
fn load_linked<U>(units: &[U], opts: impl Fn(&U) -> &Options, mut load: impl FnMut(&U, &Options) -> Result<Program, Error>) -> Result<Program, Error> {
    if let [u] = units {
        return load(u, opts(u));
    }
    let mut programs = Vec::with_capacity(units.len());
    for u in units {
        programs.push(load(u, &Options { unit: true, ..opts(u).clone() })?);
    }
    link::link(programs, units.first().and_then(|u| opts(u).entry.as_deref()).unwrap_or("main"))
}

/// Like [`load_file`] for text in memory; `name` names it in locations and messages.
pub fn load_str(name: &str, text: &str, opts: &Options, map: &mut SourceMap) -> Result<Program, Error> {
    map.add_file(name, text.to_string());
    let prep = preprocess::prepare(name, None, text, opts, map)?;
    lower_prepared(&prep, map, opts)
}

/// Stack for lowering (deeply nested expressions recurse).
const STACK: usize = 256 << 20;

fn lower_prepared(prep: &preprocess::Prepared, map: &SourceMap, opts: &Options) -> Result<Program, Error> {
    std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .name("weakc-frontend".into())
            .stack_size(STACK)
            .spawn_scoped(s, || lower_tree(prep, map, opts))
            .map_err(|e| Error::Internal(format!("cannot start the front-end thread: {e}")))?;
        h.join().unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(Error::Internal(format!("front end failed (internal error): {msg}")))
        })
    })
}

fn lower_tree(prep: &preprocess::Prepared, map: &SourceMap, opts: &Options) -> Result<Program, Error> {
    let (unit, entry) = (opts.unit, opts.entry.as_deref());
    let tree = parse_c(&prep.text).ok_or_else(|| Error::Internal("tree-sitter could not parse the input".into()))?;
    let reparses = typed_arena::Arena::new();
    let mut l = lower::Lowerer::new(&prep.text, prep, &reparses);
    l.set_sources(map);
    l.target = opts.target;
    l.char_signed = opts.plain_char_signed();
    l.translation_unit(tree.root_node())?;
    let root = tree.root_node();
    let mut roots = Vec::new();
    if unit {
        // Another unit may use any global this one defines with external linkage: create
        // them all (with their initialisers), not only those this unit uses.
        for i in 0..l.globals.len() {
            let name = &l.globals[i].name;
            if l.defined_globals.contains(name) && !l.internal.contains(name) {
                l.global_var(i, root)?;
            }
        }
        l.prog.linkage = ir::Linkage {
            internal: l.internal.iter().cloned().collect(),
            defined: l.defined_globals.iter().cloned().collect(),
            system: l.system_globals.iter().cloned().collect(),
        };
    }
    let main = entry.unwrap_or("main");
    match l.scopes[0].ords.get(main).cloned() {
        Some(lower::Ord::Func(i)) if l.fdecls[i].def.is_some() && !unit => {
            let id = l.func_id(i, root)?;
            l.prog.main = Some(id);
            roots.push(id);
        }
        Some(lower::Ord::Poison(p)) => return Err(p.err()),
        _ if entry.is_some() && !unit => return Err(Error::Usage(format!("--entry {main}: no function `{main}` is defined"))),
        _ => {
            // No main: every function defined in the user's files is a root.
            let defined: Vec<usize> = (0..l.fdecls.len())
                .filter(|&i| l.fdecls[i].def.map(|d| !l.in_system(d)).unwrap_or(false))
                .collect();
            for i in defined {
                roots.push(l.func_id(i, root)?);
            }
        }
    }
    l.finish(roots)
}
