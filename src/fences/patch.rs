//! From IR gaps to the user's source text: where a gap is in the file, how the file spells
//! a fence, the patched text and its unified diff.

use super::gaps::{neighbours, Gap};
use crate::arch::{Arch, Insertable};
use crate::ir::{Fence, Program, Stmt, StmtKind};
use crate::normalize::{is_lvalue, lvalue_is_shared};
use crate::source::Loc;

/// Lexical facts about the source text: per byte, whether it is code (not comment, string
/// or character literal) and the parenthesis depth there.
pub struct Scan<'t> {
    pub text: &'t str,
    code: Vec<bool>,
    depth: Vec<i32>,
    line_starts: Vec<usize>,
}

impl<'t> Scan<'t> {
    pub fn new(text: &'t str) -> Scan<'t> {
        let b = text.as_bytes();
        let (mut code, mut depth) = (vec![true; b.len()], vec![0i32; b.len()]);
        let mut line_starts = vec![0];
        let (mut i, mut d) = (0usize, 0i32);
        while i < b.len() {
            depth[i] = d;
            let c = b[i];
            if c == b'\n' {
                line_starts.push(i + 1);
            }
            let skip_to = |code: &mut Vec<bool>, depth: &mut Vec<i32>, from: usize, to: usize| {
                for k in from..to.min(b.len()) {
                    code[k] = false;
                    depth[k] = d;
                }
            };
            if c == b'/' && b.get(i + 1) == Some(&b'/') {
                let end = text[i..].find('\n').map_or(b.len(), |e| i + e);
                skip_to(&mut code, &mut depth, i, end);
                i = end;
                continue;
            }
            if c == b'/' && b.get(i + 1) == Some(&b'*') {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                for k in i..end.min(b.len()) {
                    if b[k] == b'\n' {
                        line_starts.push(k + 1);
                    }
                }
                skip_to(&mut code, &mut depth, i, end);
                i = end;
                continue;
            }
            if c == b'"' || c == b'\'' {
                let mut k = i + 1;
                while k < b.len() && b[k] != c && b[k] != b'\n' {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
                skip_to(&mut code, &mut depth, i, k + 1);
                i = k + 1;
                continue;
            }
            match c {
                b'(' | b'[' => d += 1,
                b')' | b']' => {
                    d -= 1;
                    depth[i] = d;
                }
                _ => {}
            }
            i += 1;
        }
        Scan { text, code, depth, line_starts }
    }

    /// The 1-based line of byte `off`.
    fn line_of(&self, off: usize) -> u32 {
        self.line_starts.partition_point(|&s| s <= off) as u32
    }

    /// Where the statement holding code at `off` (bracket depth 0) starts, when that is on a
    /// line of its own and not a control statement (whose body `off` may be in): back to
    /// the `;`, `{` or `}` at depth 0 that ends the previous statement.
    fn statement_start(&self, off: usize) -> Option<usize> {
        if !self.code.get(off).copied().unwrap_or(false) || self.depth[off] != 0 {
            return None;
        }
        let mut cur = off;
        while let Some((q, c)) = self.prev_code(cur) {
            if self.depth[q] == 0 && matches!(c, b';' | b'{' | b'}') {
                break;
            }
            cur = q;
        }
        let ls = self.line_start(cur);
        let control = matches!(self.word_at(cur), "if" | "else" | "for" | "while" | "do" | "switch" | "case" | "default" | "return");
        (self.text[ls..cur].trim().is_empty() && !control).then_some(cur)
    }

    /// The identifier or keyword starting at `off` (empty if none).
    fn word_at(&self, off: usize) -> &str {
        let rest = &self.text[off..];
        &rest[..rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len())]
    }

    /// Byte offset of a location (line 1-based, byte column).
    pub fn offset(&self, loc: Loc) -> Option<usize> {
        let start = *self.line_starts.get((loc.line as usize).checked_sub(1)?)?;
        let off = start + loc.col as usize;
        (off <= self.text.len()).then_some(off)
    }

    fn line_start(&self, off: usize) -> usize {
        self.text[..off].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self, off: usize) -> usize {
        self.text[off..].find('\n').map_or(self.text.len(), |i| off + i)
    }

    fn is_preprocessor_line(&self, off: usize) -> bool {
        let ls = self.line_start(off);
        self.text[ls..].trim_start().starts_with('#')
    }

    /// The last code character before `off` that is not white space (preprocessor lines
    /// skipped).
    fn prev_code(&self, mut off: usize) -> Option<(usize, u8)> {
        let b = self.text.as_bytes();
        while off > 0 {
            off -= 1;
            if self.code[off] && !b[off].is_ascii_whitespace() {
                if self.is_preprocessor_line(off) {
                    off = self.line_start(off);
                    continue;
                }
                return Some((off, b[off]));
            }
        }
        None
    }

    /// Parenthesis depth at `off` (a closing parenthesis has its opening one's).
    pub fn depth_at(&self, off: usize) -> i32 {
        self.depth.get(off).copied().unwrap_or(0)
    }

    /// Whether the byte at `off` is code (not comment, string or character literal).
    pub fn is_code(&self, off: usize) -> bool {
        self.code.get(off).copied().unwrap_or(false)
    }

    /// Where the statement starting at `off` ends: just after its `;` (at the same
    /// parenthesis depth).
    pub(super) fn statement_end(&self, off: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let d = self.depth[off];
        (off..b.len()).find(|&k| self.code[k] && b[k] == b';' && self.depth[k] == d).map(|k| k + 1)
    }

    fn indent_at(&self, off: usize) -> &str {
        let ls = self.line_start(off);
        let line = &self.text[ls..self.line_end(ls)];
        &line[..line.len() - line.trim_start().len()]
    }
}

/// Where a gap is in the source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// Byte offset where the fence text goes.
    pub offset: usize,
    /// Text before and after the fence statement (newlines and indentation, or spaces).
    pub prefix: String,
    pub suffix: String,
    /// The source lines of the statements around the gap (for messages).
    pub line_before: Option<u32>,
    pub line_after: Option<u32>,
    /// The translation unit whose text it is in (index into `Problem::units`).
    pub unit: usize,
}

/// Statements after which a fence can be placed by finding their `;`.
fn simple(s: &Stmt) -> bool {
    matches!(
        s.kind,
        StmtKind::Assign { .. }
            | StmtKind::Call { .. }
            | StmtKind::Fence(_)
            | StmtKind::Assert { .. }
            | StmtKind::Assume(_)
            | StmtKind::Rmw(_)
            | StmtKind::Lock(_)
            | StmtKind::Unlock(_)
            | StmtKind::Join { .. }
    )
}

/// Whether `s` may access shared memory (anything but an assignment between registers).
fn may_access_shared(prog: &Program, s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Assign { lhs, rhs } => {
            let mut hit = false;
            for e in [lhs, rhs] {
                e.visit(&mut |x| hit |= is_lvalue(x) && lvalue_is_shared(prog, x));
            }
            hit
        }
        _ => true,
    }
}

fn same_source(a: &Stmt, b: &Stmt) -> bool {
    (a.loc.file, a.loc.line, a.loc.col) == (b.loc.file, b.loc.line, b.loc.col)
}

/// The place of `g` in the text of file `file`, when it is one in the source (gaps between
/// the statements normalisation made out of one source statement, or inside a `for`
/// header, have none).
pub fn anchor(scan: &Scan, prog: &Program, g: &Gap, file: u32) -> Option<Anchor> {
    let (prev, next) = neighbours(prog, g);
    let in_file = |s: &Stmt| s.loc.file == file && s.loc.line > 0;
    if let (Some(p), Some(n)) = (prev, next) {
        if same_source(p, n) {
            return None;
        }
        // Statements before the gap whose text comes after the start of the next one's
        // (an atomic load in an `if` condition, a `for` initialisation): a fence placed
        // before the next statement's text comes before theirs too, which is only the same
        // place when none of them touches shared memory.
        if in_file(n) {
            let no = scan.offset(n.loc);
            let block = super::gaps::block_of(prog, g.func, &g.path).map_or(&[][..], |b| &b[..g.index]);
            let inside = block.iter().rev().take_while(|s| s.loc.file == n.loc.file && in_file(s) && scan.offset(s.loc) >= no);
            if inside.into_iter().any(|s| may_access_shared(prog, s)) {
                return None;
            }
        }
    }
    let line_before = prev.filter(|s| in_file(s)).map(|s| s.loc.line);
    let line_after = next.filter(|s| in_file(s)).map(|s| s.loc.line);
    // before the next statement, when it starts a statement in the text
    if let Some(n) = next.filter(|s| in_file(s)) {
        let off = scan.offset(n.loc)?;
        // (a location inside a macro expansion can point past its line's end)
        let starts_statement = scan.code.get(off).copied().unwrap_or(false)
            && !scan.text.as_bytes()[off].is_ascii_whitespace()
            && scan.depth[off] == 0
            && matches!(scan.prev_code(off), Some((_, b';' | b'{' | b'}')) | None);
        // or is inside one that starts its own line (the call of `int v = FETCH_ADD(x, 1);`)
        // and the statements before the gap are all before it in the text
        let off = if starts_statement {
            Some(off)
        } else {
            scan.statement_start(off).filter(|&st| {
                let block = super::gaps::block_of(prog, g.func, &g.path).map_or(&[][..], |b| &b[..g.index]);
                scan.line_of(st) == n.loc.line
                    && prev.is_some()
                    && !block.iter().any(|s| s.loc.file == n.loc.file && scan.offset(s.loc).is_none_or(|o| o >= st))
            })
        };
        if let Some(off) = off {
            let ls = scan.line_start(off);
            let own_line = scan.text[ls..off].trim().is_empty();
            let (offset, prefix, suffix) = if own_line {
                (ls, scan.indent_at(off).to_string(), "\n".to_string())
            } else {
                (off, String::new(), " ".to_string())
            };
            return Some(Anchor { offset, prefix, suffix, line_before, line_after, unit: 0 });
        }
        if prev.is_none() {
            return None;
        }
    }
    // after the previous statement's `;`
    let p = prev.filter(|s| in_file(s) && simple(s))?;
    let off = scan.offset(p.loc)?;
    if !scan.code.get(off).copied().unwrap_or(false) || scan.depth[off] != 0 {
        return None;
    }
    // Not after a `return` (dead code in the text; an inlined copy's return is an
    // assignment the copy goes on from).
    if scan.word_at(off) == "return" {
        return None;
    }
    // At the end of a block, only when the text braces it (one of its statements follows a
    // `{`): after the last statement of an unbraced `if`/`for` body the fence would land
    // after the whole `if`/`for`.
    if next.is_none() {
        let block = super::gaps::block_of(prog, g.func, &g.path)?;
        let braced = block
            .iter()
            .filter(|s| in_file(s))
            .filter_map(|s| scan.offset(s.loc))
            .any(|o| matches!(scan.prev_code(o), Some((_, b'{'))));
        if !braced {
            return None;
        }
    }
    let end = scan.statement_end(off)?;
    let le = scan.line_end(end);
    let rest = &scan.text[end..le];
    let rest_is_comment = (end..le).all(|k| !scan.code[k] || scan.text.as_bytes()[k].is_ascii_whitespace());
    if rest.trim().is_empty() || rest_is_comment {
        // on its own line after the statement's line
        let offset = if le < scan.text.len() { le + 1 } else { le };
        let (prefix, suffix) = if le < scan.text.len() {
            (scan.indent_at(off).to_string(), "\n".to_string())
        } else {
            (format!("\n{}", scan.indent_at(off)), String::new())
        };
        Some(Anchor { offset, prefix, suffix, line_before, line_after, unit: 0 })
    } else {
        Some(Anchor { offset: end, prefix: " ".into(), suffix: String::new(), line_before, line_after, unit: 0 })
    }
}

/// How the file spells fences.
pub struct Idiom {
    /// Parameterless functions of the file whose body is one fence: (name, fence, line).
    helpers: Vec<(String, Fence, u32)>,
    sync_synchronize: bool,
    atomic_thread_fence: bool,
    gnu_asm: bool,
}

impl Idiom {
    pub fn of(prog: &Program, text: &str, file: u32) -> Idiom {
        let mut helpers = vec![];
        for f in &prog.funcs {
            let Some(body) = &f.body else { continue };
            let stmts: Vec<&Stmt> =
                body.iter().filter(|s| !matches!(s.kind, StmtKind::Skip | StmtKind::Return(None))).collect();
            if let ([s], true) = (stmts.as_slice(), f.params.is_empty() && f.loc.file == file && !f.name.starts_with("__")) {
                if let StmtKind::Fence(fence) = s.kind {
                    helpers.push((f.name.clone(), fence, f.loc.line));
                }
            }
        }
        // Helpers the program does not call are not in the IR: find `void NAME(void) {
        // asm(...); }` in the text and read the instruction with the front end.
        let scan = Scan::new(text);
        let mut at = 0;
        while let Some(k) = text[at..].find("void ") {
            let start = at + k;
            at = start + 5;
            if !scan.code[start] || (start > 0 && text.as_bytes()[start - 1].is_ascii_alphanumeric()) {
                continue;
            }
            let rest = &text[start + 5..];
            let name: String = rest.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name.is_empty() || name.starts_with("__") || helpers.iter().any(|h| h.0 == name) {
                continue;
            }
            let after = rest.trim_start()[name.len()..].trim_start();
            let Some(params_end) = after.find(')') else { continue };
            if !after.starts_with('(') || !matches!(after[1..params_end].trim(), "" | "void") {
                continue;
            }
            let body = after[params_end + 1..].trim_start();
            let Some(close) = body.find('}') else { continue };
            if !body.starts_with('{') || !body[1..close].trim_start().starts_with("asm") && !body[1..close].trim_start().starts_with("__asm") {
                continue;
            }
            let snippet = format!("void {name}(void) {}
int main(void) {{ {name}(); return 0; }}
", &body[..=close]);
            let mut map = crate::source::SourceMap::default();
            if let Ok(p) = crate::frontend::load_str("helper.c", &snippet, &crate::frontend::Options { preprocess: crate::frontend::Preprocess::Never, ..Default::default() }, &mut map) {
                if let Some(StmtKind::Fence(fence)) = p.func_by_name(&name).and_then(|f| p.func(f).body.as_ref()).and_then(|b| b.first()).map(|s| s.kind.clone()) {
                    let line = text[..start].matches('\n').count() as u32 + 1;
                    helpers.push((name, fence, line));
                }
            }
        }
        Idiom {
            helpers,
            sync_synchronize: text.contains("__sync_synchronize"),
            atomic_thread_fence: text.contains("__atomic_thread_fence"),
            gnu_asm: text.contains("__asm__"),
        }
    }

    /// The statement text for fence `ins` at a point after source line `line`: the file's
    /// own helper when one has the same effect on `arch` (and is defined earlier), else the
    /// builtin the file uses, else inline assembly.
    pub fn spell(&self, arch: &Arch, ins: &Insertable, line: u32) -> String {
        if let Some((name, _, _)) = self.helpers.iter().find(|(_, f, l)| *l < line && arch.fences_equivalent(*f, ins.fence)) {
            return format!("{name}();");
        }
        if self.sync_synchronize && arch.fences_equivalent(Fence::Full, ins.fence) {
            return "__sync_synchronize();".into();
        }
        if self.atomic_thread_fence {
            if arch.fences_equivalent(Fence::Full, ins.fence) {
                return "__atomic_thread_fence(__ATOMIC_SEQ_CST);".into();
            }
            if arch.fences_equivalent(Fence::AcqRel, ins.fence) {
                return "__atomic_thread_fence(__ATOMIC_ACQ_REL);".into();
            }
        }
        if self.gnu_asm {
            format!("__asm__ __volatile__(\"{}\" ::: \"memory\");", ins.asm)
        } else {
            format!("asm volatile(\"{}\" ::: \"memory\");", ins.asm)
        }
    }
}

/// One change of the source text.
#[derive(Clone, Debug)]
pub enum Edit {
    /// A statement inserted at an anchor.
    Insert(Anchor, String),
    /// A byte range replaced (an order argument).
    Replace(std::ops::Range<usize>, String),
}

/// `text` with every edit applied (several insertions at one offset in the given order;
/// edits do not overlap).
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let start = |e: &Edit| match e {
        Edit::Insert(a, _) => a.offset,
        Edit::Replace(r, _) => r.start,
    };
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (start(&edits[i]), i));
    let mut out = String::with_capacity(text.len() + 64 * edits.len());
    let mut at = 0;
    for i in order {
        out.push_str(&text[at..start(&edits[i])]);
        match &edits[i] {
            Edit::Insert(a, stmt) => {
                out.push_str(&a.prefix);
                out.push_str(stmt);
                out.push_str(&a.suffix);
                at = a.offset;
            }
            Edit::Replace(r, new) => {
                out.push_str(new);
                at = r.end;
            }
        }
    }
    out.push_str(&text[at..]);
    out
}

/// Unified diff of `old` → `new`, both named `name` (apply with `patch -p0`).
pub fn unified_diff(name: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new).unified_diff().context_radius(3).header(name, name).to_string()
}
