//! Tree-sitter CST → [`crate::ir::Program`]: the lowering driver, file-scope declarations,
//! globals and functions.
//!
//! Lowering runs in two passes:
//! 1. every top-level item is recorded in order: typedefs, struct/union/enum definitions,
//!    global variables and functions. A declaration that cannot be handled (say a system
//!    header's `__builtin_va_list` parameter) does not fail the load: its names are *poisoned*
//!    and the error is reported only if the user's code uses them.
//! 2. function bodies are lowered on demand, starting from `main`: a function is lowered when
//!    it is called, spawned or its address is taken; a global becomes a [`Var`] when it is
//!    used. Unused declarations never reach the IR.
//!
//! Conventions of the produced IR (beyond those documented in [`crate::ir`]):
//! - implicit conversions are explicit: operands of arithmetic and comparisons are cast to
//!   their common type, assignment right-hand sides, call arguments and return values to the
//!   target type (integer constants are re-typed and wrapped instead of being wrapped in a
//!   `Cast`; operations on two integer constants are folded);
//! - arrays used as values decay to `&a[0]` (`AddrOf(Index(a, 0))`, marking `a` address-taken),
//!   functions to `FuncAddr` (type `Ptr(Func)`); `NULL` is `Const(0)` of type `void *`;
//! - `ExprKind::Str` holds the literal's bytes with escapes resolved (adjacent literals
//!   concatenated); its type is `char *`;
//! - `Call`/`Rmw` destinations have exactly the callee's result type (a temporary is used
//!   otherwise); `Spawn::arg` is converted to `void *`;
//! - only what `main` uses is lowered: functions called, spawned or whose address is taken
//!   (transitively, including through used globals' initialisers) and the globals they use;
//!   without `main`, every function defined in the user's files is a root. Body-less
//!   [`Function`]s (externals) have empty `params`. [`Program::globals`] lists the used
//!   file-scope variables (and `static` locals) in declaration order;
//! - a global without initialiser has `init: None` (zero-initialised); `__thread` variables
//!   have [`Storage::ThreadLocal`]; `static` locals are globals named `func$name`;
//! - names: locals shadowing another local of the function are renamed `name$N`;
//!   temporaries are `__weakc_tmpN`, unnamed parameters `__weakc_paramN`; anonymous structs
//!   and unions get tags `__anonN`, anonymous members field names `__anon_memberN`;
//! - [`Program::structs`] only keeps the structs the program uses, each after the ones it
//!   contains by value; bit-fields keep their declared type (their width only affects
//!   `sizeof`);
//! - `switch` becomes a temporary, `if (t == c) goto case;` tests and labels named
//!   `__weakc_caseN`, `__weakc_defaultN`, `__weakc_switch_endN`;
//! - a backward `goto L` whose label starts a statement of an enclosing block becomes a loop
//!   (`loop { L: ...; continue; ...; break; }`); one whose labeled statement ends the path
//!   (SV-COMP's `ERROR: { reach_error(); abort(); }`) is replaced by a copy of it; other
//!   backward gotos are unsupported;
//! - a variable-length array `T a[n]` is a `T *a` pointing to `__builtin_alloca(n *
//!   sizeof(T))`;
//! - `__sync_lock_test_and_set` is an acquire and `__sync_lock_release` a release
//!   operation (as GCC documents them); the other `__sync_*` are `SeqCst`;
//! - a designated initialiser of a union member other than the first is positional like
//!   structs: empty entries (`List(vec![])`) before the initialised member.

use super::preprocess::Prepared;
use crate::ir::*;
use crate::source::{Error, Loc};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

pub(super) type R<T> = Result<T, Error>;

/// A recorded error attached to a name, reported when the name is used.
#[derive(Clone, Debug)]
pub(super) struct Poison {
    pub loc: Loc,
    pub msg: String,
    pub syntax: bool,
}

impl Poison {
    pub fn from_err(e: &Error) -> Poison {
        match e {
            Error::Syntax { loc, msg } => Poison { loc: *loc, msg: msg.clone(), syntax: true },
            Error::Unsupported { loc, msg } => Poison { loc: *loc, msg: msg.clone(), syntax: false },
            other => Poison { loc: Loc::default(), msg: other.to_string(), syntax: false },
        }
    }
    pub fn err(&self) -> Error {
        if self.syntax {
            Error::syntax(self.loc, self.msg.clone())
        } else {
            Error::unsupported(self.loc, self.msg.clone())
        }
    }
}

/// What an ordinary identifier names in a scope.
#[derive(Clone, Debug)]
pub(super) enum Ord {
    Var(VarId),
    /// Index into [`Lowerer::globals`].
    Global(usize),
    /// Index into [`Lowerer::fdecls`].
    Func(usize),
    Typedef(Type),
    /// An enumeration constant: its value and type (`int`, or where the value does not fit
    /// in one, GCC's type of its enum).
    Enum(i128, Type),
    Poison(Poison),
}

#[derive(Clone, Debug)]
pub(super) enum Tag {
    Struct(StructId),
    /// An enum and the integer type GCC gives it.
    Enum(Type),
    Poison(Poison),
}

#[derive(Default, Debug)]
pub(super) struct Scope {
    pub ords: HashMap<String, Ord>,
    pub tags: HashMap<String, Tag>,
}

/// A file-scope variable, possibly declared several times.
pub(super) struct GlobalDecl<'t> {
    pub name: String,
    pub ty: Result<Type, Poison>,
    pub init: Option<Node<'t>>,
    pub loc: Loc,
    pub thread_local: bool,
    pub var: Option<VarId>,
    /// Byte offset of the first declaration (for the order of [`Program::globals`]).
    pub pos: usize,
}

/// A function, declared and possibly defined.
pub(super) struct FuncDecl<'t> {
    pub name: String,
    pub ty: Result<FuncType, Poison>,
    /// Whether `ty` comes from a prototype (a parameter list other than `()`).
    pub prototyped: bool,
    pub def: Option<Node<'t>>,
    pub loc: Loc,
    pub id: Option<FuncId>,
}

#[derive(Clone, Debug)]
pub(super) enum Ctx {
    Loop,
    Switch(LabelId),
    /// The loop made of a label and the backward gotos to it (index into
    /// [`FnState::goto_loops`]).
    GotoLoop(usize),
}

/// Per-function lowering state.
pub(super) struct FnState {
    pub id: FuncId,
    pub name: String,
    pub ret: Type,
    /// Blocks under construction; statements are emitted into the last one.
    pub blocks: Vec<Block>,
    pub ctx: Vec<Ctx>,
    /// User labels: id and byte offset of the label in the parsed text.
    pub labels: HashMap<String, (LabelId, usize)>,
    pub next_label: u32,
    pub next_tmp: u32,
    pub names: HashSet<String>,
    /// Statement nesting depth (0: the function body's top level).
    pub depth: u32,
    /// Labels turned into loops (targets of backward gotos).
    pub goto_loops: Vec<String>,
}

pub(super) struct Lowerer<'t> {
    pub src: &'t str,
    pub prep: &'t Prepared,
    line_starts: Vec<usize>,
    pub prog: Program,
    pub scopes: Vec<Scope>,
    pub globals: Vec<GlobalDecl<'t>>,
    pub fdecls: Vec<FuncDecl<'t>>,
    pub worklist: Vec<FuncId>,
    pub anon_structs: u32,
    /// Bit-field widths per struct (only used for `sizeof`).
    pub bitfields: HashMap<StructId, Vec<Option<u64>>>,
    /// The layout attributes of the text ([`super::packing`]).
    pub marks: super::packing::Marks,
    /// Structs whose layout an attribute makes unknown to weakc, and why.
    pub unknown_layout: HashMap<StructId, String>,
    pub fs: Option<FnState>,
    /// Direct calls: caller, callee, call site.
    pub call_edges: Vec<(FuncId, FuncId, Loc)>,
    /// `pthread_exit` sites: function, location, at the function's top level.
    pub pthread_exits: Vec<(FuncId, Loc, bool)>,
    /// Declaration order of globals (byte offset), for [`Program::globals`].
    pub global_order: HashMap<VarId, usize>,
    /// Parse errors in system headers, by byte range (reported when a used declaration
    /// touches them).
    pub header_errors: Vec<(usize, usize, Loc)>,
    /// Set when a statement was emitted outside a function (a non-constant static
    /// initialiser).
    pub dropped: bool,
    /// The labeled statements of the current function, by label.
    pub label_nodes: HashMap<String, Node<'t>>,
    /// Local declarations may declare variable-length arrays (their size nodes go here).
    pub vla_sizes: Option<Vec<Node<'t>>>,
    /// Names of the source files (for messages).
    pub file_names: Vec<String>,
    /// Lines of the user's files (not system headers), to map columns after macro expansion.
    pub orig_lines: HashMap<u32, Vec<String>>,
    /// Current nesting of expressions and statements being lowered (bounded, see
    /// [`MAX_NESTING`]).
    pub nesting: u32,
    /// Typedef names of `_Atomic` types.
    pub atomic_typedefs: HashSet<String>,
    /// File-scope variables declared `_Atomic` (their [`Var`]s go to
    /// [`Program::atomic_vars`] when created).
    pub atomic_globals: HashSet<String>,
    /// File-scope names declared `static` (internal linkage), and the globals this unit
    /// defines (not only declares `extern`): what the linker needs ([`Program::linkage`]).
    pub internal: HashSet<String>,
    pub defined_globals: HashSet<String>,
    pub system_globals: HashSet<String>,
    /// The machine the program is analysed for (`--target`, else the memory model's): inline
    /// assembly of another instruction set cannot mean what it says there.
    pub target: Option<super::preprocess::Target>,
    /// Trees of text parsed again as an expression where tree-sitter read a cast
    /// ([`Self::reparsed`]), and the expression found per start offset.
    pub reparses: &'t typed_arena::Arena<tree_sitter::Tree>,
    pub reparsed_at: std::cell::RefCell<HashMap<usize, Option<Node<'t>>>>,
    /// Whether plain `char` is signed ([`super::Options::plain_char_signed`]).
    pub char_signed: bool,
}

/// Deeper expressions or statements are rejected (the lowering and later stages recurse).
pub(super) const MAX_NESTING: u32 = 1000;

pub(super) fn named_children<'a>(n: Node<'a>) -> Vec<Node<'a>> {
    let mut c = n.walk();
    n.named_children(&mut c).filter(|c| c.kind() != "comment").collect()
}

pub(super) fn field_children<'a>(n: Node<'a>, field: &str) -> Vec<Node<'a>> {
    let mut c = n.walk();
    n.children_by_field_name(field, &mut c).collect()
}

/// All ERROR and MISSING nodes under `n` (outermost ones).
pub(super) fn all_errors(n: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            out.push(n);
        } else if n.has_error() {
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
    }
    out
}

/// Finds the first ERROR or MISSING node under `n`.
pub(super) fn first_error(n: Node) -> Option<Node> {
    if n.is_error() || n.is_missing() {
        return Some(n);
    }
    if !n.has_error() {
        return None;
    }
    let mut c = n.walk();
    let kids: Vec<Node> = n.children(&mut c).collect();
    kids.into_iter().find_map(first_error)
}

impl<'t> Lowerer<'t> {
    pub fn new(src: &'t str, prep: &'t Prepared, reparses: &'t typed_arena::Arena<tree_sitter::Tree>) -> Lowerer<'t> {
        let mut line_starts = vec![0];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Lowerer {
            src,
            prep,
            line_starts,
            prog: Program::default(),
            scopes: vec![Scope::default()],
            globals: Vec::new(),
            fdecls: Vec::new(),
            worklist: Vec::new(),
            anon_structs: 0,
            bitfields: HashMap::new(),
            marks: super::packing::Marks::scan(src),
            unknown_layout: HashMap::new(),
            fs: None,
            call_edges: Vec::new(),
            pthread_exits: Vec::new(),
            global_order: HashMap::new(),
            header_errors: Vec::new(),
            dropped: false,
            label_nodes: HashMap::new(),
            vla_sizes: None,
            file_names: Vec::new(),
            orig_lines: HashMap::new(),
            nesting: 0,
            atomic_typedefs: HashSet::new(),
            atomic_globals: HashSet::new(),
            internal: HashSet::new(),
            defined_globals: HashSet::new(),
            system_globals: HashSet::new(),
            target: None,
            reparses,
            reparsed_at: Default::default(),
            char_signed: true,
        }
    }

    /// Plain `char`: signed or not as the target's ABI (or `-f[un]signed-char`) says.
    pub fn plain_char(&self) -> Type {
        Type::Int { bits: 8, signed: self.char_signed }
    }

    /// Records the source files' names and the user files' lines (for locations).
    pub fn set_sources(&mut self, map: &crate::source::SourceMap) {
        self.file_names = map.files.iter().map(|f| f.name.clone()).collect();
        let user: HashSet<u32> = self.prep.lines.iter().filter(|o| !o.system).map(|o| o.file).collect();
        for f in user {
            if let Some(t) = map.files.get(f as usize).and_then(|f| f.text.as_deref()) {
                self.orig_lines.insert(f, t.lines().map(str::to_string).collect());
            }
        }
    }

    /// A note for "undeclared" errors when system headers had parse errors (the missing
    /// declaration may be in them).
    pub fn header_note(&self) -> String {
        match self.header_errors.first() {
            None => String::new(),
            Some((_, _, loc)) => {
                let file = self.file_names.get(loc.file as usize).map(String::as_str).unwrap_or("<header>");
                format!(
                    " (note: {} declaration(s) in system headers could not be parsed, the first at {}:{})",
                    self.header_errors.len(),
                    file,
                    loc.line
                )
            }
        }
    }

    /// Runs `f` one nesting level deeper, failing beyond [`MAX_NESTING`].
    pub fn nested<T>(&mut self, n: Node, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.nesting >= MAX_NESTING {
            return Err(self.unsupported(n, format!("construct nested more than {MAX_NESTING} levels deep")));
        }
        self.nesting += 1;
        let r = f(self);
        self.nesting -= 1;
        r
    }

    pub fn text(&self, n: Node) -> &'t str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    /// Location of `n` in the user's file: start line and column, length on that line.
    pub fn loc(&self, n: Node) -> Loc {
        let sp = n.start_position();
        let ep = n.end_position();
        let origin = self.prep.lines.get(sp.row).or(self.prep.lines.last()).copied();
        let len = if ep.row == sp.row {
            ep.column.saturating_sub(sp.column)
        } else {
            let start = self.line_starts.get(sp.row).copied().unwrap_or(0);
            let end = self.line_starts.get(sp.row + 1).map(|e| e - 1).unwrap_or(self.src.len());
            end.saturating_sub(start + sp.column)
        };
        match origin {
            Some(o) => {
                let (col, len) = self.original_columns(sp.row, o, sp.column, len);
                Loc { file: o.file, line: o.line, col: col as u32, len: len as u32 }
            }
            None => Loc { file: self.prep.main_file, line: sp.row as u32 + 1, col: sp.column as u32, len: len as u32 },
        }
    }

    /// Macro expansion moves columns: when the parsed line differs from the user's line,
    /// find the construct's text (or its first token) in the user's line, nearest the
    /// parsed column.
    fn original_columns(&self, row: usize, o: super::preprocess::LineOrigin, col: usize, len: usize) -> (usize, usize) {
        let Some(orig) = self.orig_lines.get(&o.file).and_then(|l| l.get((o.line as usize).wrapping_sub(1))) else {
            return (col, len);
        };
        let start = self.line_starts.get(row).copied().unwrap_or(0);
        let end = self.line_starts.get(row + 1).map(|e| e - 1).unwrap_or(self.src.len());
        let parsed = self.src.get(start..end).unwrap_or("");
        if parsed == orig.as_str() {
            return (col, len);
        }
        let nearest = |pat: &str| orig.match_indices(pat).map(|(i, _)| i).min_by_key(|i| i.abs_diff(col));
        let text = parsed.get(col..(col + len).min(parsed.len())).unwrap_or("");
        if !text.is_empty() {
            if let Some(c) = nearest(text) {
                return (c, len);
            }
            let tok_len = text
                .char_indices()
                .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '$'))
                .map(|(i, _)| i)
                .unwrap_or(text.len())
                .max(text.chars().next().map(char::len_utf8).unwrap_or(1));
            if let Some(c) = text.get(..tok_len).and_then(nearest) {
                // A construct running to the end of the line still does; a call `f(...)`
                // ends at its closing parenthesis.
                if col + len >= parsed.len() {
                    return (c, orig.len() - c);
                }
                let rest = &orig.as_bytes()[c + tok_len..];
                if text.ends_with(')') && rest.first() == Some(&b'(') {
                    let mut depth = 0i32;
                    for (i, &b) in rest.iter().enumerate() {
                        match b {
                            b'(' => depth += 1,
                            b')' => {
                                depth -= 1;
                                if depth == 0 {
                                    return (c, tok_len + i + 1);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                return (c, tok_len);
            }
        }
        let c = col.min(orig.len());
        (c, len.min(orig.len() - c))
    }

    /// True when `n` starts in a system header.
    pub fn in_system(&self, n: Node) -> bool {
        self.prep.lines.get(n.start_position().row).map(|o| o.system).unwrap_or(false)
    }

    pub fn unsupported(&self, n: Node, msg: impl Into<String>) -> Error {
        Error::unsupported(self.loc(n), msg)
    }

    /// The GNU extension that makes tree-sitter fail at error node `e`, if any (local labels
    /// in the enclosing statement; `typeof` is rewritten into a form it parses).
    pub fn gnu_extension_at(&self, e: Node) -> Option<&'static str> {
        let mut cur = Some(e);
        while let Some(n) = cur {
            let k = n.kind();
            if k.ends_with("_statement") || k == "declaration" || k == "function_definition" {
                let t = self.text(n);
                for ext in ["__label__"] {
                    if t.contains(ext) {
                        return Some(ext);
                    }
                }
                return None;
            }
            cur = n.parent();
        }
        None
    }

    pub fn syntax_err(&self, n: Node) -> Error {
        if let Some(ext) = self.gnu_extension_at(n) {
            return Error::unsupported(self.loc(n), format!("`{ext}` (a GNU extension the C parser does not handle)"));
        }
        // GNU extensions tree-sitter-c does not parse.
        let parent = n.parent().map(|p| p.kind()).unwrap_or("");
        if parent == "goto_statement" && self.text(n).starts_with('*') {
            return Error::unsupported(self.loc(n), "computed goto (`goto *p`)");
        }
        if parent == "case_statement" && self.text(n).starts_with("...") {
            return Error::unsupported(self.loc(n), "case range (`case a ... b:`)");
        }
        let what = if n.is_missing() {
            format!("expected `{}`", n.kind())
        } else {
            let t = self.text(n);
            let t: String = t.chars().take(40).collect();
            format!("unexpected `{}`", t.split_whitespace().collect::<Vec<_>>().join(" "))
        };
        Error::syntax(self.loc(n), format!("cannot parse this C: {what}"))
    }

    /// Checks `n` for parse errors (used before lowering a used declaration or body).
    pub fn check_syntax(&self, n: Node) -> R<()> {
        match first_error(n) {
            Some(e) => Err(self.syntax_err(e)),
            None => Ok(()),
        }
    }

    // ----- scopes -----

    pub fn lookup_ord(&self, name: &str) -> Option<&Ord> {
        self.scopes.iter().rev().find_map(|s| s.ords.get(name))
    }

    pub fn lookup_tag(&self, name: &str) -> Option<&Tag> {
        self.scopes.iter().rev().find_map(|s| s.tags.get(name))
    }

    pub fn bind_ord(&mut self, name: &str, o: Ord) {
        self.scopes.last_mut().expect("scope").ords.insert(name.to_string(), o);
    }

    pub fn is_typedef_name(&self, name: &str) -> bool {
        matches!(self.lookup_ord(name), Some(Ord::Typedef(_)))
    }

    /// Whether `name` is declared and not a type (a variable, function or enum constant):
    /// where tree-sitter read it as a type name, the text was an expression.
    pub fn names_a_value(&self, name: &str) -> bool {
        self.lookup_ord(name).is_some_and(|o| !matches!(o, Ord::Typedef(_)))
    }

    // ----- pass 1: file scope -----

    pub fn translation_unit(&mut self, root: Node<'t>) -> R<()> {
        for item in named_children(root) {
            self.top_item(item)?;
        }
        Ok(())
    }

    fn top_item(&mut self, item: Node<'t>) -> R<()> {
        let system = self.in_system(item);
        if item.is_error() || item.is_missing() {
            if system {
                self.header_errors.push((item.start_byte(), item.end_byte(), self.loc(item)));
                return Ok(());
            }
            return Err(self.syntax_err(item));
        }
        match item.kind() {
            "function_definition" | "declaration" | "type_definition" => {
                // Parse errors inside a declaration of the user's file are errors; inside a
                // function body they are reported when the body is lowered.
                if let Some(e) = first_error(item) {
                    let in_body = item
                        .child_by_field_name("body")
                        .map(|b| b.start_byte() <= e.start_byte() && e.end_byte() <= b.end_byte())
                        .unwrap_or(false);
                    if system {
                        self.header_errors.push((e.start_byte(), e.end_byte(), self.loc(e)));
                        if !in_body {
                            self.poison_names(item, Poison::from_err(&self.syntax_err(e)));
                            return Ok(());
                        }
                    } else if !in_body {
                        return Err(self.syntax_err(e));
                    } else if let Some(bad) = all_errors(item).into_iter().find(|e| self.gnu_extension_at(*e).is_none()) {
                        // Malformed C in the user's file is an error even in an unused
                        // function; GNU extensions tree-sitter cannot parse only matter
                        // when the function is used.
                        return Err(self.syntax_err(bad));
                    }
                }
                let r = match item.kind() {
                    "function_definition" => self.function_definition(item),
                    "declaration" => self.declaration(item, true),
                    _ => self.type_definition(item),
                };
                if let Err(e) = r {
                    self.poison_names(item, Poison::from_err(&e));
                }
                Ok(())
            }
            "linkage_specification" => {
                if let Some(b) = item.child_by_field_name("body") {
                    if b.kind() == "declaration_list" {
                        for c in named_children(b) {
                            self.top_item(c)?;
                        }
                    } else {
                        self.top_item(b)?;
                    }
                }
                Ok(())
            }
            k if k.starts_with("preproc_") => Ok(()),
            ";" => Ok(()),
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                // (`struct s { unsigned a : 3, ; };` parses as a type with an error inside.)
                if let Some(e) = first_error(item) {
                    if system {
                        self.header_errors.push((e.start_byte(), e.end_byte(), self.loc(e)));
                        return Ok(());
                    }
                    return Err(self.syntax_err(e));
                }
                if let Err(e) = self.spec_type(item, item) {
                    if !system {
                        return Err(e);
                    }
                }
                Ok(())
            }
            "expression_statement" if self.text(item).trim() == ";" => Ok(()),
            _ => {
                if system {
                    return Ok(());
                }
                let t = self.text(item).trim_start();
                if t.starts_with("_Static_assert") || t.starts_with("static_assert") {
                    return self.file_static_assert(item);
                }
                if t.starts_with("__extension__") {
                    return Ok(());
                }
                Err(Error::syntax(
                    self.loc(item),
                    format!("expected a declaration or function definition, found {}", item.kind().replace('_', " ")),
                ))
            }
        }
    }

    /// `_Static_assert(c, "msg");` at file scope (tree-sitter reads it as a call): checked
    /// now, since nothing else would ever look at it.
    fn file_static_assert(&mut self, item: Node<'t>) -> R<()> {
        let call = named_children(item).into_iter().find(|c| c.kind() == "call_expression");
        let args = call.and_then(|c| c.child_by_field_name("arguments")).map(named_children).unwrap_or_default();
        let Some(&cond) = args.first() else {
            return Err(Error::syntax(self.loc(item), "`_Static_assert` needs a condition"));
        };
        if self.const_eval(cond)? == 0 {
            let msg = match args.get(1) {
                Some(m) => String::from_utf8_lossy(&self.string_literal_bytes(*m)?).into_owned(),
                None => self.text(cond).to_string(),
            };
            return Err(Error::syntax(self.loc(item), format!("static assertion failed: {msg}")));
        }
        Ok(())
    }

    /// Poisons every name a failed declaration would have declared.
    fn poison_names(&mut self, item: Node<'t>, p: Poison) {
        let mut names = Vec::new();
        for d in field_children(item, "declarator") {
            if let Some(n) = super::types::declarator_name(d) {
                names.push(self.text(n).to_string());
            }
        }
        for n in names {
            // Do not poison a function or global that was fine in an earlier declaration.
            match self.scopes[0].ords.get(&n) {
                Some(Ord::Func(i)) if self.fdecls[*i].ty.is_ok() => continue,
                Some(Ord::Global(i)) if self.globals[*i].ty.is_ok() => continue,
                _ => {}
            }
            self.scopes[0].ords.insert(n, Ord::Poison(p.clone()));
        }
        if let Some(t) = item.child_by_field_name("type") {
            if let Some(name) = t.child_by_field_name("name") {
                if matches!(t.kind(), "struct_specifier" | "union_specifier" | "enum_specifier")
                    && t.child_by_field_name("body").is_some()
                {
                    let n = self.text(name).to_string();
                    self.scopes[0].tags.insert(n, Tag::Poison(p));
                }
            }
        }
    }

    pub fn type_definition(&mut self, item: Node<'t>) -> R<()> {
        let tnode = item.child_by_field_name("type").ok_or_else(|| self.unsupported(item, "typedef without a type"))?;
        let base = self.spec_type(tnode, item)?;
        for d in field_children(item, "declarator") {
            let name_node = super::types::declarator_name(d).ok_or_else(|| self.unsupported(d, "typedef without a name"))?;
            let name = self.text(name_node).to_string();
            if super::types::declares_atomic(self, item, d) {
                self.atomic_typedefs.insert(name.clone());
            } else {
                self.atomic_typedefs.remove(&name);
            }
            match self.declarator(base.clone(), d) {
                Ok((_, ty)) => self.bind_ord(&name, Ord::Typedef(ty)),
                Err(e) => self.bind_ord(&name, Ord::Poison(Poison::from_err(&e))),
            }
        }
        Ok(())
    }

    /// A declaration at file scope (`file_scope`) or, for function-local `extern`
    /// declarations and prototypes, inside a function.
    pub fn declaration(&mut self, item: Node<'t>, file_scope: bool) -> R<()> {
        let tnode = item.child_by_field_name("type").ok_or_else(|| self.unsupported(item, "declaration without a type"))?;
        let flags = super::types::storage_flags(self, item);
        let base = self.spec_type(tnode, item)?;
        for d in field_children(item, "declarator") {
            let (decl, init) = if d.kind() == "init_declarator" {
                (d.child_by_field_name("declarator").unwrap_or(d), d.child_by_field_name("value"))
            } else {
                (d, None)
            };
            if decl.kind() == "gnu_asm_expression" {
                continue;
            }
            let name_node = match super::types::declarator_name(decl) {
                Some(n) => n,
                None => continue,
            };
            let name = self.text(name_node).to_string();
            if file_scope && flags.is_static {
                self.internal.insert(name.clone());
            }
            if file_scope && (!flags.is_extern || init.is_some()) {
                self.defined_globals.insert(name.clone());
            }
            if file_scope && self.in_system(item) {
                self.system_globals.insert(name.clone());
            }
            let r = self.declarator(base.clone(), decl);
            let ty = match r {
                Ok((_, ty)) => ty,
                Err(e) => {
                    self.bind_ord(&name, Ord::Poison(Poison::from_err(&e)));
                    continue;
                }
            };
            if let Type::Func(ft) = ty {
                let prototyped = super::types::is_prototyped(decl);
                self.declare_function(&name, Ok(*ft), prototyped, None, self.loc(name_node), file_scope);
            } else if file_scope || flags.is_extern {
                if super::types::declares_atomic(self, item, d) {
                    self.atomic_globals.insert(name.clone());
                }
                self.declare_global(&name, ty, init, self.loc(name_node), flags.is_thread, file_scope, d.start_byte());
            } else {
                return Err(self.unsupported(item, "internal: local declaration at file scope"));
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn declare_global(&mut self, name: &str, ty: Type, init: Option<Node<'t>>, loc: Loc, thread_local: bool, file_scope: bool, pos: usize) {
        let existing = self.scopes[0].ords.get(name).cloned();
        let idx = match existing {
            Some(Ord::Global(i)) => {
                let g = &mut self.globals[i];
                let replace = match &g.ty {
                    Err(_) => true,
                    Ok(Type::Array(_, None)) => true,
                    Ok(_) => init.is_some() && !matches!(ty, Type::Array(_, None)),
                };
                if replace {
                    g.ty = Ok(ty);
                }
                if init.is_some() {
                    g.init = init;
                    g.loc = loc;
                }
                g.thread_local |= thread_local;
                i
            }
            _ => {
                self.globals.push(GlobalDecl { name: name.to_string(), ty: Ok(ty), init, loc, thread_local, var: None, pos });
                let i = self.globals.len() - 1;
                self.scopes[0].ords.insert(name.to_string(), Ord::Global(i));
                i
            }
        };
        if !file_scope {
            self.bind_ord(name, Ord::Global(idx));
        }
    }

    pub fn declare_function(
        &mut self,
        name: &str,
        ty: Result<FuncType, Poison>,
        prototyped: bool,
        def: Option<Node<'t>>,
        loc: Loc,
        file_scope: bool,
    ) -> usize {
        let existing = self.scopes[0].ords.get(name).cloned();
        let idx = match existing {
            Some(Ord::Func(i)) => {
                let f = &mut self.fdecls[i];
                let take = match (&f.ty, &ty) {
                    (Err(_), _) => true,
                    (Ok(_), Err(_)) => false,
                    (Ok(_), Ok(_)) => prototyped || !f.prototyped,
                };
                if take {
                    f.ty = ty;
                    f.prototyped = prototyped;
                }
                if def.is_some() {
                    f.def = def;
                    f.loc = loc;
                }
                i
            }
            _ => {
                self.fdecls.push(FuncDecl { name: name.to_string(), ty, prototyped, def, loc, id: None });
                let i = self.fdecls.len() - 1;
                self.scopes[0].ords.insert(name.to_string(), Ord::Func(i));
                i
            }
        };
        if !file_scope {
            self.bind_ord(name, Ord::Func(idx));
        }
        idx
    }

    fn function_definition(&mut self, item: Node<'t>) -> R<()> {
        let tnode = item.child_by_field_name("type").ok_or_else(|| self.unsupported(item, "function without a return type"))?;
        let decl = item.child_by_field_name("declarator").ok_or_else(|| self.unsupported(item, "function without a declarator"))?;
        let name_node = super::types::declarator_name(decl).ok_or_else(|| self.unsupported(decl, "function without a name"))?;
        let name = self.text(name_node).to_string();
        let base = self.spec_type(tnode, item);
        let ty = base.and_then(|b| self.declarator(b, decl)).map(|(_, t)| t);
        let ft = match ty {
            Ok(Type::Func(ft)) => Ok(*ft),
            Ok(_) => Err(Poison::from_err(&self.unsupported(decl, format!("`{name}` is not a function")))),
            Err(e) => Err(Poison::from_err(&e)),
        };
        let prototyped = super::types::is_prototyped(decl);
        if super::types::storage_flags(self, item).is_static {
            self.internal.insert(name.clone());
        }
        self.declare_function(&name, ft, prototyped, Some(item), self.loc(name_node), true);
        Ok(())
    }

    // ----- materialising globals and functions -----

    /// The variable of global `idx`, created (with its initialiser) on first use.
    pub fn global_var(&mut self, idx: usize, use_site: Node) -> R<VarId> {
        if let Some(v) = self.globals[idx].var {
            return Ok(v);
        }
        let ty = match &self.globals[idx].ty {
            Ok(t) => t.clone(),
            Err(p) => return Err(self.poison_at_use(p, use_site)),
        };
        let g = &self.globals[idx];
        let storage = if g.thread_local { Storage::ThreadLocal } else { Storage::Global };
        let var = Var { name: g.name.clone(), ty: ty.clone(), storage, init: None, address_taken: false, loc: g.loc };
        let id = self.prog.add_var(var);
        if self.atomic_globals.contains(&self.globals[idx].name) {
            self.prog.atomic_vars.push(id);
        }
        self.globals[idx].var = Some(id);
        self.global_order.insert(id, self.globals[idx].pos);
        if let Some(init) = self.globals[idx].init {
            let saved = self.fs.take();
            let saved_scopes = self.scopes.split_off(1);
            let r = self.static_init(&ty, init);
            self.scopes.extend(saved_scopes);
            self.fs = saved;
            let (init, ty) = r?;
            let v = &mut self.prog.vars[id.0 as usize];
            v.init = Some(init);
            v.ty = ty;
        }
        Ok(id)
    }

    /// Turns a poisoned declaration into an error at its use, mentioning where it failed.
    pub fn poison_at_use(&self, p: &Poison, use_site: Node) -> Error {
        let decl_in_header = self.prep.lines.iter().any(|o| o.file == p.loc.file && o.system);
        if !decl_in_header || self.in_system(use_site) || !matches!(use_site.kind(), "identifier" | "type_identifier") {
            return p.err();
        }
        // A header declaration we could not handle, used by the user's code: report the use.
        let file = self.file_names.get(p.loc.file as usize).map(String::as_str).unwrap_or("<header>");
        let msg = format!("`{}` depends on a header declaration weakc cannot handle ({}:{}: {})", self.text(use_site), file, p.loc.line, p.msg);
        if p.syntax {
            Error::syntax(self.loc(use_site), msg)
        } else {
            Error::unsupported(self.loc(use_site), msg)
        }
    }

    /// The [`FuncId`] of function `idx`, created on first use; defined functions are queued
    /// for lowering.
    pub fn func_id(&mut self, idx: usize, use_site: Node) -> R<FuncId> {
        if let Some(id) = self.fdecls[idx].id {
            return Ok(id);
        }
        let ty = match &self.fdecls[idx].ty {
            Ok(t) => t.clone(),
            Err(p) => return Err(self.poison_at_use(p, use_site)),
        };
        let f = &self.fdecls[idx];
        let func = Function { name: f.name.clone(), ty, params: Vec::new(), body: None, loc: f.loc };
        self.prog.funcs.push(func);
        let id = FuncId(self.prog.funcs.len() as u32 - 1);
        self.fdecls[idx].id = Some(id);
        if self.fdecls[idx].def.is_some() {
            self.worklist.push(id);
        }
        Ok(id)
    }

    fn fdecl_of(&self, id: FuncId) -> usize {
        self.fdecls.iter().position(|f| f.id == Some(id)).expect("function id")
    }

    /// Lowers the body of `id`.
    pub fn lower_function(&mut self, id: FuncId) -> R<()> {
        let idx = self.fdecl_of(id);
        let def = self.fdecls[idx].def.expect("definition");
        let name = self.fdecls[idx].name.clone();
        let ft = self.prog.funcs[id.0 as usize].ty.clone();
        if let Some(body) = def.child_by_field_name("body") {
            self.check_syntax(body)?;
        }
        let decl = def.child_by_field_name("declarator").expect("declarator");
        let fdecl = super::types::function_declarator_of(decl).ok_or_else(|| self.unsupported(decl, "function definition without a parameter list"))?;
        self.check_syntax(fdecl)?;
        self.scopes.truncate(1);
        self.scopes.push(Scope::default());
        self.fs = Some(FnState {
            id,
            name: name.clone(),
            ret: ft.ret.clone(),
            blocks: vec![Vec::new()],
            ctx: Vec::new(),
            labels: HashMap::new(),
            next_label: 0,
            next_tmp: 0,
            names: HashSet::new(),
            depth: 0,
            goto_loops: Vec::new(),
        });
        self.label_nodes.clear();
        // Parameters.
        let mut params = Vec::new();
        let plist = fdecl.child_by_field_name("parameters").expect("parameters");
        let mut i = 0usize;
        for p in named_children(plist) {
            match p.kind() {
                "parameter_declaration" => {}
                "variadic_parameter" => continue,
                "identifier" => {
                    return Err(self.unsupported(p, "old-style (K&R) parameter declarations"));
                }
                _ => continue,
            }
            if i >= ft.params.len() {
                // `f(void)`
                break;
            }
            let ty = ft.params[i].clone();
            let pname = p
                .child_by_field_name("declarator")
                .and_then(super::types::declarator_name)
                .map(|n| self.text(n).to_string())
                .unwrap_or_else(|| format!("__weakc_param{i}"));
            let v = self.new_local(&pname, ty, self.loc(p), true);
            params.push(v);
            i += 1;
        }
        self.prog.funcs[id.0 as usize].params = params;
        let body = def.child_by_field_name("body").expect("body");
        self.collect_labels(body)?;
        // The body's items share the parameters' scope.
        self.stmts(&named_children(body))?;
        let fs = self.fs.take().expect("fn state");
        let block = fs.blocks.into_iter().next().unwrap_or_default();
        self.prog.funcs[id.0 as usize].body = Some(block);
        self.scopes.truncate(1);
        Ok(())
    }

    /// Records the user labels of a function body (ids and positions, for forward-goto checks).
    fn collect_labels(&mut self, body: Node<'t>) -> R<()> {
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.kind() == "labeled_statement" {
                if let Some(l) = n.child_by_field_name("label") {
                    let name = self.text(l).to_string();
                    let fs = self.fs.as_mut().expect("fn state");
                    if fs.labels.contains_key(&name) {
                        return Err(Error::syntax(self.loc(l), format!("duplicate label `{name}`")));
                    }
                    let id = LabelId(fs.next_label);
                    fs.next_label += 1;
                    fs.labels.insert(name.clone(), (id, n.start_byte()));
                    self.label_nodes.insert(name, n);
                }
            }
            for c in named_children(n) {
                stack.push(c);
            }
        }
        Ok(())
    }

    /// Adds a local variable (renamed when the name is already used in this function).
    pub fn new_local(&mut self, name: &str, ty: Type, loc: Loc, bind: bool) -> VarId {
        let fs = self.fs.as_mut().expect("fn state");
        let mut unique = name.to_string();
        let mut k = 1;
        while fs.names.contains(&unique) {
            unique = format!("{name}${k}");
            k += 1;
        }
        fs.names.insert(unique.clone());
        let func = fs.id;
        let id = self.prog.add_var(Var { name: unique, ty, storage: Storage::Local { func }, init: None, address_taken: false, loc });
        if bind {
            self.bind_ord(name, Ord::Var(id));
        }
        id
    }

    /// A fresh temporary `__weakc_tmpN` of type `ty` in the current function.
    pub fn new_temp(&mut self, ty: Type, at: Node) -> R<VarId> {
        let loc = self.loc(at);
        let fs = match self.fs.as_mut() {
            Some(fs) => fs,
            None => return Err(Error::unsupported(loc, "initialiser with side effects or calls at file scope")),
        };
        let mut name;
        loop {
            name = format!("__weakc_tmp{}", fs.next_tmp);
            fs.next_tmp += 1;
            if !fs.names.contains(&name) {
                break;
            }
        }
        fs.names.insert(name.clone());
        let func = fs.id;
        Ok(self.prog.add_var(Var { name, ty, storage: Storage::Temp { func }, init: None, address_taken: false, loc }))
    }

    pub fn fresh_label(&mut self) -> LabelId {
        let fs = self.fs.as_mut().expect("fn state");
        let id = LabelId(fs.next_label);
        fs.next_label += 1;
        id
    }

    /// A warning that the program here may have behaviours the C source has not (unknown
    /// inline assembly, a stand-in for something weakc does not model), with a statement at
    /// its place: the model checker distrusts the paths through that place
    /// (`Program::warnings`).
    pub fn distrust(&mut self, loc: Loc, why: String) {
        self.prog.warnings.push((loc, why));
        self.emit(StmtKind::Skip, loc);
    }

    pub fn emit(&mut self, kind: StmtKind, loc: Loc) {
        match self.fs.as_mut() {
            Some(fs) => fs.blocks.last_mut().expect("block").push(Stmt::new(kind, loc)),
            None => self.dropped = true,
        }
    }

    pub fn push_block(&mut self) {
        if let Some(fs) = self.fs.as_mut() {
            fs.blocks.push(Vec::new());
        }
    }

    pub fn pop_block(&mut self) -> Block {
        match self.fs.as_mut() {
            Some(fs) => fs.blocks.pop().unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Number of statements in the current block (for [`Self::spill`]).
    pub fn mark(&self) -> usize {
        self.fs.as_ref().and_then(|fs| fs.blocks.last()).map(|b| b.len()).unwrap_or(0)
    }

    pub fn cur_func(&self) -> Option<FuncId> {
        self.fs.as_ref().map(|f| f.id)
    }

    pub fn mark_address_taken(&mut self, e: &Expr) {
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Var(v) => {
                    self.prog.vars[v.0 as usize].address_taken = true;
                    return;
                }
                ExprKind::Index(a, _) | ExprKind::Member(a, _) => cur = a,
                _ => return,
            }
        }
    }

    // ----- finishing -----

    pub fn finish(mut self, roots: Vec<FuncId>) -> R<Program> {
        while let Some(id) = self.worklist.pop() {
            self.lower_function(id)?;
        }
        self.check_recursion(&roots)?;
        self.check_pthread_exit()?;
        let mut globals: Vec<VarId> = self.global_order.keys().copied().collect();
        globals.sort_by_key(|v| (self.global_order[v], *v));
        self.prog.globals = globals;
        let mut prog = self.prog;
        super::gc::collect_structs(&mut prog);
        number_stmts(&mut prog);
        Ok(prog)
    }

    fn check_recursion(&self, roots: &[FuncId]) -> R<()> {
        let n = self.prog.funcs.len();
        let mut adj: Vec<Vec<(FuncId, Loc)>> = vec![Vec::new(); n];
        for &(a, b, loc) in &self.call_edges {
            adj[a.0 as usize].push((b, loc));
        }
        // Iterative DFS with colours; a grey target is a back edge (recursion).
        let mut colour = vec![0u8; n];
        let mut all_roots: Vec<FuncId> = roots.to_vec();
        all_roots.extend((0..n as u32).map(FuncId));
        for r in all_roots {
            if colour[r.0 as usize] != 0 {
                continue;
            }
            let mut stack: Vec<(FuncId, usize)> = vec![(r, 0)];
            colour[r.0 as usize] = 1;
            while let Some(&mut (f, ref mut i)) = stack.last_mut() {
                if *i < adj[f.0 as usize].len() {
                    let (g, loc) = adj[f.0 as usize][*i];
                    *i += 1;
                    match colour[g.0 as usize] {
                        0 => {
                            colour[g.0 as usize] = 1;
                            stack.push((g, 0));
                        }
                        1 => {
                            let callee = &self.prog.funcs[g.0 as usize].name;
                            let caller = &self.prog.funcs[f.0 as usize].name;
                            let msg = if f == g {
                                format!("recursion: `{caller}` calls itself")
                            } else {
                                format!("recursion: `{caller}` calls `{callee}`, which is already on the call stack")
                            };
                            return Err(Error::unsupported(loc, msg));
                        }
                        _ => {}
                    }
                } else {
                    colour[f.0 as usize] = 2;
                    stack.pop();
                }
            }
        }
        Ok(())
    }

    fn check_pthread_exit(&self) -> R<()> {
        if self.pthread_exits.is_empty() {
            return Ok(());
        }
        let mut starts: HashSet<FuncId> = HashSet::new();
        let mut indirect = false;
        for f in &self.prog.funcs {
            if let Some(b) = &f.body {
                walk_stmts(b, &mut |s| {
                    if let StmtKind::Spawn { func, .. } = &s.kind {
                        match &func.kind {
                            ExprKind::FuncAddr(id) => {
                                starts.insert(*id);
                            }
                            _ => indirect = true,
                        }
                    }
                });
            }
        }
        for &(f, loc, top) in &self.pthread_exits {
            let name = &self.prog.funcs[f.0 as usize].name;
            let is_start = starts.contains(&f) || (indirect && Some(f) != self.prog.main);
            if !is_start {
                return Err(Error::unsupported(loc, format!("pthread_exit in `{name}`, which is not a thread start function")));
            }
            if !top {
                return Err(Error::unsupported(
                    loc,
                    format!("pthread_exit nested inside a statement of `{name}` (only supported at the top level of a thread start function)"),
                ));
            }
        }
        Ok(())
    }
}
