//! Parser for herd7 `.litmus` files.
//!
//! ```text
//! ARCH NAME                          header (the name may differ from the file name)
//! "doc string"                       optional, may span lines
//! Key=value                          optional metadata lines (Cycle=, Prefetch=, Com=, …)
//! { 0:r2=x; x=1; %x0=x; uint64_t y; int *z; }     initial state
//!  P0           | P1           ;    thread table: one column per thread, rows end with `;`
//!  lwz r1,0(r2) | LC00:        ;    cells may be empty or hold a label
//! locations [x; 0:r1;]               optional
//! exists (0:r1=1 /\ [x]=2)           final condition: exists, ~exists or forall over
//!                                    /\, \/, ~, parentheses, true/false and atoms
//!                                    `T:reg=v`, `x=v`, `[x]=v`; any line layout
//! ```
//!
//! `(* … *)` comments (nested) may appear anywhere. Errors are [`Error::Syntax`] or
//! [`Error::Unsupported`] with the location of the offending text in the file registered in
//! the [`SourceMap`], so they render as diagnostics at the right line.

use crate::source::{Error, Loc, SourceMap};
use serde::Serialize;

/// The architectures whose litmus tests weakc reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum LitArch {
    X86,
    Ppc,
    Arm,
    AArch64,
}

impl LitArch {
    pub fn from_header(s: &str) -> Option<LitArch> {
        match s.to_ascii_uppercase().as_str() {
            "X86" | "X86_64" => Some(LitArch::X86),
            "PPC" | "POWER" => Some(LitArch::Ppc),
            "ARM" => Some(LitArch::Arm),
            "AARCH64" => Some(LitArch::AArch64),
            _ => None,
        }
    }
    /// The name herd uses in headers and in `verdicts.tsv`.
    pub fn herd_name(self) -> &'static str {
        match self {
            LitArch::X86 => "X86",
            LitArch::Ppc => "PPC",
            LitArch::Arm => "ARM",
            LitArch::AArch64 => "AArch64",
        }
    }
    /// weakc's default memory model for tests of this architecture.
    pub fn default_mm(self) -> &'static str {
        match self {
            LitArch::X86 => "tso",
            LitArch::Ppc => "power",
            LitArch::Arm => "arm",
            LitArch::AArch64 => "aarch64",
        }
    }
}

/// A value in the initial state or the final condition: an integer or a location's address.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Value {
    Int(i64),
    Sym(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Sym(s) => write!(f, "{s}"),
        }
    }
}

/// Something the initial state, `locations` or the final condition talks about.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Place {
    /// Register `reg` of thread `thread` (`1:r2`); `thread` is None for ARM's symbolic
    /// registers without a thread (`%x0`).
    Reg { thread: Option<u32>, reg: String },
    /// A memory location (`x`, `[x]`).
    Mem(String),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Reg { thread: Some(t), reg } => write!(f, "{t}:{reg}"),
            Place::Reg { thread: None, reg } => write!(f, "{reg}"),
            Place::Mem(x) => write!(f, "[{x}]"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InitItem {
    pub place: Place,
    /// C-like type when declared (`uint64_t`, `int *`).
    pub ty: Option<String>,
    /// None for a declaration without a value (zero).
    pub val: Option<Value>,
    #[serde(skip)]
    pub loc: Loc,
}

/// One non-empty cell of the thread table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Instr {
    pub text: String,
    #[serde(skip)]
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Thread {
    /// `P0`, `P1`, …
    pub name: String,
    pub code: Vec<Instr>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Quant {
    Exists,
    NotExists,
    Forall,
}

impl Quant {
    pub fn keyword(self) -> &'static str {
        match self {
            Quant::Exists => "exists",
            Quant::NotExists => "~exists",
            Quant::Forall => "forall",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Atom {
    pub place: Place,
    pub val: Value,
    #[serde(skip)]
    pub loc: Loc,
}

/// A proposition over the final state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Prop {
    True,
    False,
    Atom(Atom),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
}

impl Prop {
    /// Every atom, left to right.
    pub fn atoms(&self) -> Vec<&Atom> {
        let mut out = vec![];
        fn go<'a>(p: &'a Prop, out: &mut Vec<&'a Atom>) {
            match p {
                Prop::Atom(a) => out.push(a),
                Prop::Not(a) => go(a, out),
                Prop::And(a, b) | Prop::Or(a, b) => {
                    go(a, out);
                    go(b, out);
                }
                Prop::True | Prop::False => {}
            }
        }
        go(self, &mut out);
        out
    }
}

impl std::fmt::Display for Prop {
    /// herd syntax, fully parenthesised.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prop::True => write!(f, "true"),
            Prop::False => write!(f, "false"),
            Prop::Atom(a) => match &a.place {
                Place::Mem(x) => write!(f, "[{x}]={}", a.val),
                p => write!(f, "{p}={}", a.val),
            },
            Prop::Not(p) => write!(f, "~({p})"),
            Prop::And(a, b) => write!(f, "({a} /\\ {b})"),
            Prop::Or(a, b) => write!(f, "({a} \\/ {b})"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Condition {
    pub quant: Quant,
    pub prop: Prop,
    #[serde(skip)]
    pub loc: Loc,
}

/// A parsed litmus test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Litmus {
    pub arch: LitArch,
    /// The architecture as written in the header.
    pub arch_name: String,
    pub name: String,
    pub doc: Option<String>,
    pub keys: Vec<(String, String)>,
    pub init: Vec<InitItem>,
    pub threads: Vec<Thread>,
    pub locations: Vec<Place>,
    pub cond: Condition,
    #[serde(skip)]
    pub header_loc: Loc,
}

impl Litmus {
    /// Prints the test back in herd syntax (comments and layout are not kept; parsing the
    /// output gives the same test up to locations).
    pub fn to_herd(&self) -> String {
        let mut s = format!("{} {}\n", self.arch_name, self.name);
        if let Some(d) = &self.doc {
            s += &format!("\"{d}\"\n");
        }
        for (k, v) in &self.keys {
            s += &format!("{k}={v}\n");
        }
        s += "{\n";
        for i in &self.init {
            let ty = i.ty.as_ref().map(|t| format!("{t} ")).unwrap_or_default();
            let place = match &i.place {
                Place::Mem(x) => x.clone(),
                p => p.to_string(),
            };
            match &i.val {
                Some(v) => s += &format!("{ty}{place}={v};\n"),
                None => s += &format!("{ty}{place};\n"),
            }
        }
        s += "}\n";
        let rows = self.threads.iter().map(|t| t.code.len()).max().unwrap_or(0);
        let head: Vec<String> = self.threads.iter().map(|t| t.name.clone()).collect();
        s += &format!(" {} ;\n", head.join(" | "));
        for r in 0..rows {
            let cells: Vec<&str> = self.threads.iter().map(|t| t.code.get(r).map_or("", |i| i.text.as_str())).collect();
            s += &format!(" {} ;\n", cells.join(" | "));
        }
        if !self.locations.is_empty() {
            let l: Vec<String> = self
                .locations
                .iter()
                .map(|p| match p {
                    Place::Mem(x) => x.clone(),
                    p => p.to_string(),
                })
                .collect();
            s += &format!("locations [{};]\n", l.join("; "));
        }
        s += &format!("{} {}\n", self.cond.quant.keyword(), self.cond.prop);
        s
    }

    /// Same test ignoring source locations (for round-trip checks).
    pub fn same_as(&self, o: &Litmus) -> bool {
        let strip = |l: &Litmus| {
            let mut l = l.clone();
            l.header_loc = Loc::default();
            l.cond.loc = Loc::default();
            strip_prop(&mut l.cond.prop);
            for i in &mut l.init {
                i.loc = Loc::default();
            }
            for t in &mut l.threads {
                for i in &mut t.code {
                    i.loc = Loc::default();
                }
            }
            l
        };
        fn strip_prop(p: &mut Prop) {
            match p {
                Prop::Atom(a) => a.loc = Loc::default(),
                Prop::Not(a) => strip_prop(a),
                Prop::And(a, b) | Prop::Or(a, b) => {
                    strip_prop(a);
                    strip_prop(b);
                }
                _ => {}
            }
        }
        strip(self) == strip(o)
    }
}

/// Reads and parses a `.litmus` file, registering it in `map`.
pub fn parse_file(path: &std::path::Path, map: &mut SourceMap) -> Result<Litmus, Error> {
    let text = std::fs::read(path).map_err(|e| Error::Io { path: path.to_path_buf(), msg: e.to_string(), output: false })?;
    parse_str(&path.display().to_string(), &String::from_utf8_lossy(&text), map)
}

/// Parses litmus text; `name` names it in diagnostics.
pub fn parse_str(name: &str, text: &str, map: &mut SourceMap) -> Result<Litmus, Error> {
    let file = map.add_file(name, text.to_string());
    let p = P::new(file, text)?;
    p.litmus()
}

struct P<'a> {
    file: u32,
    /// The text with comments blanked out (same byte offsets as the original).
    text: String,
    line_starts: Vec<usize>,
    orig: &'a str,
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '%' | '.' | '$' | '-' | '+')
}

impl<'a> P<'a> {
    fn new(file: u32, orig: &'a str) -> Result<P<'a>, Error> {
        let mut line_starts = vec![0];
        for (i, b) in orig.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        let mut p = P { file, text: String::new(), line_starts, orig };
        p.text = p.strip_comments(orig)?;
        Ok(p)
    }

    fn loc(&self, start: usize, end: usize) -> Loc {
        // Byte offsets from the parser may fall inside a multi-byte character: widen the
        // span to whole characters (a report slices the text there).
        let o = self.orig;
        let mut start = start.min(o.len());
        while !o.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = end.clamp(start, o.len());
        while !o.is_char_boundary(end) {
            end += 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= start);
        let ls = self.line_starts[line - 1];
        let line_end = self.orig[start.min(self.orig.len())..].find('\n').map_or(self.orig.len(), |i| start + i);
        let first = o[start..].chars().next().map_or(1, char::len_utf8);
        Loc { file: self.file, line: line as u32, col: (start - ls) as u32, len: (end.min(line_end).max(start + first) - start) as u32 }
    }

    fn syntax(&self, start: usize, end: usize, msg: impl Into<String>) -> Error {
        Error::syntax(self.loc(start, end), msg)
    }

    /// Blanks `(* … *)` comments (nested), keeping newlines and byte offsets.
    fn strip_comments(&self, s: &str) -> Result<String, Error> {
        let b = s.as_bytes();
        let mut out = b.to_vec();
        let mut depth = 0usize;
        let mut open_at = 0usize;
        let mut i = 0;
        while i < b.len() {
            if i + 1 < b.len() && b[i] == b'(' && b[i + 1] == b'*' {
                if depth == 0 {
                    open_at = i;
                }
                depth += 1;
                out[i] = b' ';
                out[i + 1] = b' ';
                i += 2;
                continue;
            }
            if depth > 0 && i + 1 < b.len() && b[i] == b'*' && b[i + 1] == b')' {
                depth -= 1;
                out[i] = b' ';
                out[i + 1] = b' ';
                i += 2;
                continue;
            }
            if depth > 0 && b[i] != b'\n' {
                out[i] = b' ';
            }
            i += 1;
        }
        if depth > 0 {
            return Err(Error::syntax(self.loc(open_at, open_at + 2), "unterminated comment `(*`"));
        }
        // Blanking only replaced whole ASCII bytes or bytes inside comments: keep it valid
        // UTF-8 by replacing any broken sequence.
        Ok(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    /// Lines as (start offset, text without the newline).
    fn lines_from(&self, from: usize, to: usize) -> Vec<(usize, &str)> {
        let mut out = vec![];
        let mut start = from;
        for l in self.text[from..to].split_inclusive('\n') {
            out.push((start, l.trim_end_matches(['\n', '\r'])));
            start += l.len();
        }
        out
    }

    fn litmus(&self) -> Result<Litmus, Error> {
        let t = &self.text;
        // Header.
        let hstart = t.find(|c: char| !c.is_whitespace()).ok_or_else(|| Error::syntax(self.loc(0, 0), "empty litmus file"))?;
        let hend = t[hstart..].find('\n').map_or(t.len(), |i| hstart + i);
        let header = &t[hstart..hend];
        let mut words = header.split_whitespace();
        let arch_name = words.next().unwrap_or_default().to_string();
        let name = words.collect::<Vec<_>>().join(" ");
        let header_loc = self.loc(hstart, hend);
        let arch = LitArch::from_header(&arch_name)
            .ok_or_else(|| Error::unsupported(self.loc(hstart, hstart + arch_name.len()), format!("litmus architecture `{arch_name}` (supported: X86, PPC, ARM, AArch64)")))?;
        if name.is_empty() {
            return Err(self.syntax(hstart, hend, "the header needs an architecture and a test name (`PPC MP+lwsync+addr`)"));
        }
        // Doc string and Key=value lines up to `{`.
        let mut doc = None;
        let mut keys = vec![];
        let mut pos = hend;
        let init_open = loop {
            let rest = &t[pos..];
            let Some(off) = rest.find(|c: char| !c.is_whitespace()) else {
                return Err(self.syntax(hstart, hend, "no initial state `{ … }` after the header"));
            };
            let s = pos + off;
            let c = t[s..].chars().next().unwrap_or(' ');
            if c == '{' {
                break s;
            }
            if c == '"' {
                // herd accepts a doc string left open: it then ends with its line.
                let eol = t[s..].find('\n').map_or(t.len(), |i| s + i);
                match t[s + 1..eol].find('"') {
                    Some(i) => {
                        doc = Some(t[s + 1..s + 1 + i].to_string());
                        pos = s + 2 + i;
                    }
                    None => {
                        doc = Some(t[s + 1..eol].trim_end().to_string());
                        pos = eol;
                    }
                }
                continue;
            }
            let e = t[s..].find('\n').map_or(t.len(), |i| s + i);
            let line = t[s..e].trim_end();
            match line.split_once('=') {
                Some((k, v)) if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') => {
                    keys.push((k.to_string(), v.trim().to_string()));
                }
                _ => return Err(self.syntax(s, e, "expected a doc string, a `Key=value` line or the initial state `{`")),
            }
            pos = e;
        };
        let init_close = t[init_open..].find('}').map(|i| init_open + i).ok_or_else(|| self.syntax(init_open, init_open + 1, "the initial state `{` is never closed"))?;
        let init = self.init(init_open + 1, init_close)?;
        // Thread table up to the first line starting with a keyword.
        let mut table = vec![];
        let mut after_table = t.len();
        for (s, line) in self.lines_from(init_close + 1, t.len()) {
            let tr = line.trim_start();
            let first = tr.trim_start_matches('~').trim_start();
            let word: String = first.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            if matches!(word.as_str(), "exists" | "forall" | "locations" | "filter") && !tr.contains('|') {
                after_table = s + (line.len() - tr.len());
                break;
            }
            if !tr.is_empty() {
                table.push((s + (line.len() - tr.len()), tr));
            }
        }
        let threads = self.table(&table, init_close)?;
        // locations, filter, condition.
        let mut locations = vec![];
        let mut pos = after_table;
        let cond = loop {
            let rest = &t[pos..];
            let Some(off) = rest.find(|c: char| !c.is_whitespace()) else {
                // No condition (a test that only lists `locations`): herd reads `forall true`.
                break Condition { quant: Quant::Forall, prop: Prop::True, loc: self.loc(pos.min(t.len().saturating_sub(1)), t.len()) };
            };
            let s = pos + off;
            let r = &t[s..];
            if let Some(after) = r.strip_prefix("locations") {
                let open = after.find('[').map(|i| s + 9 + i).ok_or_else(|| self.syntax(s, s + 9, "expected `[` after `locations`"))?;
                let close = t[open..].find(']').map(|i| open + i).ok_or_else(|| self.syntax(open, open + 1, "unterminated `locations [`"))?;
                for (a, b) in split_offsets(t, open + 1, close, ';') {
                    let item = t[a..b].trim();
                    if item.is_empty() {
                        continue;
                    }
                    let ia = a + (t[a..b].len() - t[a..b].trim_start().len());
                    locations.push(self.place(item, ia, false)?);
                }
                pos = close + 1;
                continue;
            }
            if r.starts_with("filter") {
                return Err(Error::unsupported(self.loc(s, s + 6), "`filter` clauses"));
            }
            let (quant, kw_len) = if r.starts_with("exists") {
                (Quant::Exists, 6)
            } else if r.starts_with("forall") {
                (Quant::Forall, 6)
            } else if let Some(x) = r.strip_prefix('~') {
                let x2 = x.trim_start();
                if x2.starts_with("exists") {
                    (Quant::NotExists, 1 + (x.len() - x2.len()) + 6)
                } else {
                    return Err(self.syntax(s, s + 1, "expected `~exists`"));
                }
            } else {
                let e = r.find('\n').map_or(t.len(), |i| s + i);
                return Err(self.syntax(s, e, "expected the final condition (`exists`, `~exists` or `forall`)"));
            };
            let toks = self.tokens(s + kw_len, t.len())?;
            let mut cp = CondParser { p: self, toks: &toks, i: 0, end: t.len() };
            let prop = cp.or()?;
            // A trailing `;` is accepted, as herd does.
            if toks.get(cp.i).is_some_and(|t| t.kind == TK::Semi) {
                cp.i += 1;
            }
            if let Some(tok) = toks.get(cp.i) {
                return Err(self.syntax(tok.start, tok.end, format!("unexpected `{}` after the final condition", tok.text)));
            }
            break Condition { quant, prop, loc: self.loc(s, s + kw_len) };
        };
        Ok(Litmus { arch, arch_name, name, doc, keys, init, threads, locations, cond, header_loc })
    }

    fn init(&self, from: usize, to: usize) -> Result<Vec<InitItem>, Error> {
        let t = &self.text;
        let mut out = vec![];
        for (a, b) in split_offsets(t, from, to, ';') {
            let raw = &t[a..b];
            let item = raw.trim();
            if item.is_empty() {
                continue;
            }
            let s = a + (raw.len() - raw.trim_start().len());
            let e = s + item.len();
            let (lhs, val) = match item.split_once('=') {
                Some((l, v)) => {
                    let v = v.trim();
                    if v.is_empty() {
                        return Err(self.syntax(s, e, "missing value after `=`"));
                    }
                    (l.trim(), Some(parse_value(v)))
                }
                None => (item, None),
            };
            // `TYPE name`, `TYPE *name`, `T:reg` (also `T: reg`), `name`, `%reg`.
            let compact;
            let lhs = if lhs.contains(':') {
                compact = lhs.split(':').map(str::trim).collect::<Vec<_>>().join(":");
                compact.as_str()
            } else {
                lhs
            };
            let (ty, place_text) = match lhs.rfind(|c: char| c.is_whitespace() || c == '*') {
                Some(i) if !lhs[..=i].trim().is_empty() => (Some(lhs[..=i].trim().to_string()), lhs[i + 1..].trim()),
                _ => (None, lhs),
            };
            if place_text.is_empty() {
                return Err(self.syntax(s, e, "expected a location or register"));
            }
            let place = self.place(place_text, s + raw.trim_start().find(place_text).unwrap_or(0), true)?;
            out.push(InitItem { place, ty, val, loc: self.loc(s, e) });
        }
        Ok(out)
    }

    /// `T:reg`, `%reg`, `x`, `[x]`.
    fn place(&self, s: &str, at: usize, bare_is_mem: bool) -> Result<Place, Error> {
        let end = at + s.len();
        if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            let inner = inner.trim();
            if inner.is_empty() || !inner.chars().all(is_ident_char) {
                return Err(self.syntax(at, end, format!("bad location `{s}`")));
            }
            return Ok(Place::Mem(inner.to_string()));
        }
        if let Some((th, reg)) = s.split_once(':') {
            let th = th.trim().trim_start_matches('P');
            let reg = reg.trim();
            let t: u32 = th.parse().map_err(|_| self.syntax(at, end, format!("bad thread number in `{s}`")))?;
            if reg.is_empty() || !reg.chars().all(is_ident_char) {
                return Err(self.syntax(at, end, format!("bad register in `{s}`")));
            }
            return Ok(Place::Reg { thread: Some(t), reg: reg.to_string() });
        }
        if s.starts_with('%') {
            return Ok(Place::Reg { thread: None, reg: s.to_string() });
        }
        if !s.chars().all(is_ident_char) || !bare_is_mem && s.is_empty() {
            return Err(self.syntax(at, end, format!("bad location `{s}`")));
        }
        Ok(Place::Mem(s.to_string()))
    }

    fn table(&self, rows: &[(usize, &str)], after: usize) -> Result<Vec<Thread>, Error> {
        let Some(&(hs, head)) = rows.first() else {
            return Err(self.syntax(after, after + 1, "no thread table (`P0 | P1 ;`) after the initial state"));
        };
        let split = |s: usize, line: &str| -> Vec<(usize, String)> {
            let body = line.trim_end();
            let body = body.strip_suffix(';').unwrap_or(body);
            let mut out = vec![];
            let mut off = 0;
            for cell in body.split('|') {
                let lead = cell.len() - cell.trim_start().len();
                out.push((s + off + lead, cell.trim().to_string()));
                off += cell.len() + 1;
            }
            out
        };
        let heads = split(hs, head);
        let mut threads = vec![];
        for (i, (cs, h)) in heads.iter().enumerate() {
            let ok = h.strip_prefix('P').and_then(|n| n.parse::<usize>().ok()) == Some(i);
            if !ok {
                return Err(self.syntax(*cs, cs + h.len().max(1), format!("expected thread name `P{i}` in the table header, found `{h}`")));
            }
            threads.push(Thread { name: h.clone(), code: vec![] });
        }
        for &(s, line) in &rows[1..] {
            let cells = split(s, line);
            if cells.len() != threads.len() {
                return Err(self.syntax(s, s + line.len(), format!("row has {} cells, the table has {} threads", cells.len(), threads.len())));
            }
            for (t, (cs, c)) in cells.into_iter().enumerate() {
                if !c.is_empty() {
                    let loc = self.loc(cs, cs + c.len());
                    threads[t].code.push(Instr { text: c, loc });
                }
            }
        }
        Ok(threads)
    }

    fn tokens(&self, from: usize, to: usize) -> Result<Vec<Tok>, Error> {
        let t = &self.text;
        let b = t.as_bytes();
        let mut out = vec![];
        let mut i = from;
        while i < to {
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
                continue;
            }
            // Bytes, not a string slice: the second byte may be inside a multi-byte character.
            let two: &[u8] = if i + 1 < to { &b[i..i + 2] } else { b"" };
            let (kind, len) = match c {
                b'(' => (TK::LParen, 1),
                b')' => (TK::RParen, 1),
                b'[' => (TK::LBrack, 1),
                b']' => (TK::RBrack, 1),
                b':' => (TK::Colon, 1),
                b'=' => (TK::Eq, 1),
                b'~' => (TK::Not, 1),
                b';' => (TK::Semi, 1),
                _ if two == b"/\\" => (TK::And, 2),
                _ if two == b"\\/" => (TK::Or, 2),
                _ if (c as char).is_ascii_alphanumeric() || matches!(c, b'_' | b'%' | b'-' | b'$' | b'.') => {
                    let n = t[i..to].find(|ch: char| !(ch.is_ascii_alphanumeric() || matches!(ch, '_' | '%' | '-' | '$' | '.'))).unwrap_or(to - i);
                    (TK::Word, n)
                }
                _ => {
                    // `i` is on a character boundary: only ASCII and whole words were skipped.
                    let ch = t[i..].chars().next().unwrap_or('?');
                    return Err(self.syntax(i, i + ch.len_utf8(), format!("unexpected character `{ch}` in the final condition")));
                }
            };
            out.push(Tok { kind, start: i, end: i + len, text: t[i..i + len].to_string() });
            i += len;
        }
        Ok(out)
    }
}

/// Splits `t[from..to]` at `sep`, returning byte ranges.
fn split_offsets(t: &str, from: usize, to: usize, sep: char) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut s = from;
    for (i, c) in t[from..to].char_indices() {
        if c == sep {
            out.push((s, from + i));
            s = from + i + 1;
        }
    }
    out.push((s, to));
    out
}

/// An integer (decimal, `0x` hex, negative) or a symbol.
pub fn parse_value(v: &str) -> Value {
    let v = v.trim();
    let (neg, d) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v),
    };
    let n = match d.strip_prefix("0x").or_else(|| d.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => d.parse::<i64>().ok(),
    };
    match n {
        Some(n) => Value::Int(if neg { -n } else { n }),
        None => Value::Sym(v.to_string()),
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TK {
    LParen,
    RParen,
    LBrack,
    RBrack,
    Colon,
    Eq,
    Not,
    And,
    Or,
    Semi,
    Word,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: TK,
    start: usize,
    end: usize,
    text: String,
}

struct CondParser<'p, 'a> {
    p: &'p P<'a>,
    toks: &'p [Tok],
    i: usize,
    end: usize,
}

impl CondParser<'_, '_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }
    fn err_here(&self, msg: &str) -> Error {
        match self.peek() {
            Some(t) => self.p.syntax(t.start, t.end, format!("{msg}, found `{}`", t.text)),
            None => {
                let at = self.toks.last().map_or(self.end.saturating_sub(1), |t| t.start);
                let e = self.toks.last().map_or(self.end, |t| t.end);
                self.p.syntax(at, e, format!("{msg}, found the end of the file"))
            }
        }
    }
    fn expect(&mut self, k: TK, what: &str) -> Result<Tok, Error> {
        match self.peek() {
            Some(t) if t.kind == k => {
                self.i += 1;
                Ok(self.toks[self.i - 1].clone())
            }
            _ => Err(self.err_here(&format!("expected {what}"))),
        }
    }
    fn or(&mut self) -> Result<Prop, Error> {
        let mut l = self.and()?;
        while self.peek().is_some_and(|t| t.kind == TK::Or) {
            self.i += 1;
            let r = self.and()?;
            l = Prop::Or(Box::new(l), Box::new(r));
        }
        Ok(l)
    }
    fn and(&mut self) -> Result<Prop, Error> {
        let mut l = self.unary()?;
        while self.peek().is_some_and(|t| t.kind == TK::And) {
            self.i += 1;
            let r = self.unary()?;
            l = Prop::And(Box::new(l), Box::new(r));
        }
        Ok(l)
    }
    fn unary(&mut self) -> Result<Prop, Error> {
        let Some(t) = self.peek().cloned() else {
            return Err(self.err_here("expected a proposition"));
        };
        match t.kind {
            TK::Not => {
                self.i += 1;
                Ok(Prop::Not(Box::new(self.unary()?)))
            }
            TK::LParen => {
                self.i += 1;
                let p = self.or()?;
                self.expect(TK::RParen, "`)`")?;
                Ok(p)
            }
            TK::Word if t.text == "true" => {
                self.i += 1;
                Ok(Prop::True)
            }
            TK::Word if t.text == "false" => {
                self.i += 1;
                Ok(Prop::False)
            }
            TK::Word if t.text == "not" => {
                self.i += 1;
                Ok(Prop::Not(Box::new(self.unary()?)))
            }
            TK::LBrack => {
                self.i += 1;
                let x = self.expect(TK::Word, "a location")?;
                self.expect(TK::RBrack, "`]`")?;
                self.atom_value(Place::Mem(x.text), t.start)
            }
            TK::Word => {
                self.i += 1;
                if self.peek().is_some_and(|n| n.kind == TK::Colon) {
                    self.i += 1;
                    let r = self.expect(TK::Word, "a register")?;
                    let th = t.text.trim_start_matches('P');
                    let thread: u32 = th.parse().map_err(|_| self.p.syntax(t.start, t.end, format!("bad thread number `{}`", t.text)))?;
                    self.atom_value(Place::Reg { thread: Some(thread), reg: r.text }, t.start)
                } else if t.text.starts_with('%') {
                    self.atom_value(Place::Reg { thread: None, reg: t.text }, t.start)
                } else {
                    self.atom_value(Place::Mem(t.text), t.start)
                }
            }
            _ => Err(self.err_here("expected a proposition")),
        }
    }
    fn atom_value(&mut self, place: Place, start: usize) -> Result<Prop, Error> {
        self.expect(TK::Eq, "`=`")?;
        let v = self.expect(TK::Word, "a value")?;
        Ok(Prop::Atom(Atom { place, val: parse_value(&v.text), loc: self.p.loc(start, v.end) }))
    }
}
