//! Layout attributes: `__attribute__((packed))`, `__attribute__((aligned(N)))` on struct
//! and union types and on their members, and `#pragma pack`. They change `sizeof`, member
//! offsets and alignment, and a program that reads a packed header (`sizeof(struct
//! {char c; int i;} __attribute__((packed))) == 5`) is verified wrongly without them.
//!
//! The preprocessing pass blanks every `__attribute__` (tree-sitter-c rejects them in many
//! positions) and every `#pragma`; before that, the layout ones become marker comments
//! (`/*weakc:packed,aligned(8)*/`, `/*weakc:pack(push,1)*/`), which the grammar ignores and
//! which keep the attribute's place in the text. The lowerer then reads, for each struct
//! body, the markers written after its keyword, right after its closing brace, and inside
//! each member's declaration, and the `#pragma pack` in force where the struct starts.
//! GCC's rules (x86-64 and the other LP64 targets weakc models alike): a packed member is
//! byte-aligned (a packed bit-field bit-aligned), `aligned(a)` raises a member's or the
//! type's alignment to a (`aligned` alone: 16, the target's biggest alignment), and
//! `pack(n)` then caps every member's alignment at n.

/// Where a marker comment starts.
const PREFIX: &str = "/*weakc:";

/// The largest alignment any type has on the targets weakc models (`__BIGGEST_ALIGNMENT__`).
pub const BIGGEST_ALIGNMENT: u64 = 16;

/// One layout attribute as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attr {
    Packed,
    /// `aligned` with its argument's text (none: the biggest alignment).
    Aligned(Option<String>),
}

/// Splits `s` at commas outside parentheses.
fn split_top(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Whitespace runs (newlines included) as one space, and no `*/` (the marker is a comment).
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace("*/", "* /")
}

/// The marker comment for an attribute whose parenthesised part is `parens`
/// (`((packed, aligned(8)))`), when it has layout attributes. It is shorter than the
/// attribute it replaces (`__attribute__` alone is longer than the marker's delimiters).
pub fn attribute_marker(parens: &str) -> Option<String> {
    let inner = parens.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
    let inner = inner.strip_prefix('(')?.strip_suffix(')')?;
    let mut kept = vec![];
    for item in split_top(inner) {
        let (name, arg) = match item.find('(') {
            Some(p) => (item[..p].trim(), Some(item[p..].trim())),
            None => (item.as_str(), None),
        };
        match name.trim_start_matches("__").trim_end_matches("__") {
            "packed" => kept.push("packed".to_string()),
            "aligned" => kept.push(match arg {
                Some(a) => format!("aligned{}", collapse(a)),
                None => "aligned".to_string(),
            }),
            _ => {}
        }
    }
    (!kept.is_empty()).then(|| format!("{PREFIX}{}*/", kept.join(",")))
}

/// The marker comment for a `#pragma` directive (`directive` is the text after `#`), when it
/// is `pack`.
pub fn pragma_marker(directive: &str) -> Option<String> {
    let rest = directive.strip_prefix("pragma")?.trim_start();
    let rest = rest.strip_prefix("pack")?.trim();
    let args = rest.strip_prefix('(')?.strip_suffix(')')?;
    Some(format!("{PREFIX}pack({})*/", collapse(args)))
}

/// The markers of a prepared text, in order.
#[derive(Default, Debug)]
pub struct Marks {
    /// (start, end, attributes) of each attribute marker.
    items: Vec<(usize, usize, Vec<Attr>)>,
    /// Where `#pragma pack` changes the members' maximal alignment, and to what.
    packs: Vec<(usize, Option<u64>)>,
}

impl Marks {
    pub fn scan(src: &str) -> Marks {
        let (mut items, mut packs) = (vec![], vec![]);
        let (mut cur, mut stack): (Option<u64>, Vec<Option<u64>>) = (None, vec![]);
        let mut from = 0;
        while let Some(p) = src[from..].find(PREFIX) {
            let start = from + p;
            let body = start + PREFIX.len();
            let Some(len) = src[body..].find("*/") else { break };
            let text = &src[body..body + len];
            from = body + len + 2;
            // `#pragma pack`: a change of the members' maximal alignment from here on.
            if let Some(args) = text.strip_prefix("pack(").and_then(|a| a.strip_suffix(')')) {
                let args = split_top(args);
                let n = args.iter().find_map(|x| eval_align(x, &|_| None));
                match args.first().map(String::as_str) {
                    Some("push") => {
                        stack.push(cur);
                        cur = n.or(cur);
                    }
                    Some("pop") => cur = n.or(stack.pop().flatten()),
                    Some("show") => continue,
                    _ => cur = n,
                }
                packs.push((start, cur));
                continue;
            }
            let attrs = split_top(text)
                .into_iter()
                .filter_map(|a| match a.strip_prefix("aligned") {
                    Some("") => Some(Attr::Aligned(None)),
                    Some(arg) if arg.starts_with('(') => Some(Attr::Aligned(Some(arg.to_string()))),
                    _ => (a == "packed").then_some(Attr::Packed),
                })
                .collect();
            items.push((start, from, attrs));
        }
        Marks { items, packs }
    }

    /// The layout attributes of the markers inside `range`.
    pub fn within(&self, range: std::ops::Range<usize>) -> Vec<&Attr> {
        let first = self.items.partition_point(|m| m.0 < range.start);
        self.items[first..].iter().take_while(|m| m.1 <= range.end).flat_map(|m| &m.2).collect()
    }

    /// The markers that follow `pos` in `src` with only white space before each: those after
    /// a struct body's closing brace. Also where they end.
    pub fn after(&self, src: &str, pos: usize) -> (Vec<&Attr>, usize) {
        let mut end = pos;
        let mut out = vec![];
        for m in &self.items[self.items.partition_point(|m| m.0 < pos)..] {
            if !src[end..m.0].trim().is_empty() {
                break;
            }
            out.extend(&m.2);
            end = m.1;
        }
        (out, end)
    }

    /// The attributes of a struct, union or enum type whose specifier starts at `start` and
    /// whose body spans `body`: those after its keyword and right after its closing brace.
    pub fn of_type(&self, src: &str, start: usize, body: std::ops::Range<usize>) -> Vec<&Attr> {
        let mut own = self.within(start..body.start);
        own.extend(self.after(src, body.end).0);
        own
    }

    /// The members' maximal alignment `#pragma pack` sets at `pos`.
    pub fn pack_at(&self, pos: usize) -> Option<u64> {
        let i = self.packs.partition_point(|p| p.0 < pos);
        i.checked_sub(1).and_then(|i| self.packs[i].1)
    }
}

/// What a list of attributes asks of one type or member.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    pub packed: bool,
    /// The largest `aligned` alignment.
    pub aligned: Option<u64>,
}

impl Wanted {
    /// Gathers `attrs`; an `aligned` argument weakc cannot evaluate is returned as `Err`.
    /// `named` gives a type name's (size, alignment).
    pub fn of(attrs: &[&Attr], named: &dyn Fn(&str) -> Option<(u64, u64)>) -> Result<Wanted, String> {
        let mut w = Wanted::default();
        for a in attrs {
            match a {
                Attr::Packed => w.packed = true,
                Attr::Aligned(arg) => {
                    let n = match arg {
                        None => BIGGEST_ALIGNMENT,
                        Some(t) => eval_align(t, named).ok_or_else(|| format!("__attribute__((aligned{t})): weakc evaluates only integer constants, and `sizeof` and `__alignof__` of basic types and type names there"))?,
                    };
                    w.aligned = Some(w.aligned.map_or(n, |m| m.max(n)));
                }
            }
        }
        Ok(w)
    }
}

/// The value of an alignment argument: a power of two from integer constants, `+ - * / <<
/// >>`, parentheses, and `sizeof`/`__alignof__`/`_Alignof` of a basic type or of a type
/// name (`named`: its size and alignment).
pub fn eval_align(text: &str, named: &dyn Fn(&str) -> Option<(u64, u64)>) -> Option<u64> {
    let toks = tokens(text)?;
    let mut p = Parser { toks, at: 0, named };
    let v = p.sum()?;
    (p.at == p.toks.len() && v > 0 && (v as u64).is_power_of_two()).then_some(v as u64)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i128),
    Word(String),
    Op(&'static str),
}

fn tokens(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            match super::expr::parse_number(&s[st..i])? {
                super::expr::Number::Int(v, _) => out.push(Tok::Num(v)),
                super::expr::Number::Float(..) => return None,
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Word(s[st..i].to_string()));
        } else {
            let two = s.get(i..i + 2);
            let op = ["<<", ">>"].into_iter().find(|o| two == Some(o)).or_else(|| ["(", ")", "+", "-", "*", "/"].into_iter().find(|o| o.as_bytes()[0] == c))?;
            i += op.len();
            out.push(Tok::Op(op));
        }
    }
    Some(out)
}

struct Parser<'n> {
    toks: Vec<Tok>,
    at: usize,
    named: &'n dyn Fn(&str) -> Option<(u64, u64)>,
}

impl Parser<'_> {
    fn peek_op(&self, op: &str) -> bool {
        matches!(self.toks.get(self.at), Some(Tok::Op(o)) if *o == op)
    }

    fn eat(&mut self, op: &str) -> Option<()> {
        self.peek_op(op).then(|| self.at += 1)
    }

    /// Operands of `next` joined by the operators of one precedence level, left to right.
    fn level(&mut self, ops: &[&str], next: fn(&mut Self) -> Option<i128>) -> Option<i128> {
        let mut v = next(self)?;
        while let Some(&op) = ops.iter().find(|o| self.peek_op(o)) {
            self.at += 1;
            let w = next(self)?;
            v = match op {
                "+" => v.checked_add(w),
                "-" => v.checked_sub(w),
                "*" => v.checked_mul(w),
                "/" => v.checked_div(w),
                "<<" => v.checked_shl(u32::try_from(w).ok()?),
                _ => v.checked_shr(u32::try_from(w).ok()?),
            }?;
        }
        Some(v)
    }

    /// `<< >>` below `+ -` below `* /`, as in C.
    fn sum(&mut self) -> Option<i128> {
        self.level(&["<<", ">>"], |p| p.level(&["+", "-"], |p| p.level(&["*", "/"], Self::atom)))
    }

    fn atom(&mut self) -> Option<i128> {
        match self.toks.get(self.at).cloned()? {
            Tok::Num(v) => {
                self.at += 1;
                Some(v)
            }
            Tok::Op("(") => {
                self.at += 1;
                let v = self.sum()?;
                self.eat(")")?;
                Some(v)
            }
            Tok::Word(w) if matches!(w.as_str(), "sizeof" | "__alignof__" | "__alignof" | "_Alignof" | "alignof") => {
                self.at += 1;
                self.eat("(")?;
                let mut words = vec![];
                let mut pointer = false;
                loop {
                    match self.toks.get(self.at)? {
                        Tok::Word(t) => words.push(t.clone()),
                        Tok::Op("*") => pointer = true,
                        Tok::Op(")") => break,
                        _ => return None,
                    }
                    self.at += 1;
                }
                self.at += 1;
                let v = match (pointer, words.as_slice()) {
                    (true, _) => 8,
                    (false, [name]) if basic_size(&words).is_none() => {
                        let (size, align) = (self.named)(name)?;
                        if w == "sizeof" { size } else { align }
                    }
                    // Every basic type of the LP64 targets has its size as alignment.
                    _ => basic_size(&words)?,
                };
                Some(v as i128)
            }
            _ => None,
        }
    }
}

/// The size of a basic type spelled with keywords (LP64).
fn basic_size(words: &[String]) -> Option<u64> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let longs = words.iter().filter(|x| *x == "long").count();
    if words.iter().any(|w| !matches!(w.as_str(), "char" | "short" | "int" | "long" | "signed" | "unsigned" | "float" | "double" | "_Bool" | "const" | "volatile" | "__int128")) {
        return None;
    }
    Some(if has("char") || has("_Bool") {
        1
    } else if has("short") {
        2
    } else if has("__int128") || has("double") && longs > 0 {
        16
    } else if has("double") || longs > 0 {
        8
    } else if has("float") || has("int") || has("signed") || has("unsigned") {
        4
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_become_markers_no_longer_than_themselves() {
        for (attr, want) in [
            ("((packed))", Some("/*weakc:packed*/")),
            ("((__packed__, __aligned__(8)))", Some("/*weakc:packed,aligned(8)*/")),
            ("((aligned))", Some("/*weakc:aligned*/")),
            ("((unused, noinline))", None),
            ("((aligned (1 <<\n 4)))", Some("/*weakc:aligned(1 << 4)*/")),
        ] {
            let m = attribute_marker(attr);
            assert_eq!(m.as_deref(), want, "{attr}");
            if let Some(m) = m {
                assert!(m.len() <= "__attribute__".len() + attr.len(), "{attr}");
            }
        }
        assert_eq!(pragma_marker("pragma pack(push, 1)").as_deref(), Some("/*weakc:pack(push, 1)*/"));
        assert_eq!(pragma_marker("pragma once"), None);
    }

    #[test]
    fn alignments_evaluate_as_gcc_does() {
        let none = |_: &str| None;
        assert_eq!(eval_align("(8)", &none), Some(8));
        assert_eq!(eval_align("(1 << 6)", &none), Some(64));
        assert_eq!(eval_align("(__alignof__ (long long))", &none), Some(8));
        assert_eq!(eval_align("(__alignof__(long double))", &none), Some(16));
        assert_eq!(eval_align("(2 * sizeof(void *))", &none), Some(16));
        assert_eq!(eval_align("(0x10UL)", &none), Some(16));
        assert_eq!(eval_align("(1 << 2 + 1)", &none), Some(8), "C precedence");
        assert_eq!(eval_align("(3)", &none), None, "not a power of two");
        assert_eq!(eval_align("(__alignof__(u64))", &none), None, "an unknown type name");
        let u64_ = |n: &str| (n == "u64").then_some((8, 8));
        assert_eq!(eval_align("(__alignof__(u64) * 2)", &u64_), Some(16));
    }

    #[test]
    fn markers_are_found_in_place_and_pragmas_stack() {
        let src = "/*weakc:pack(push, 2)*/\nstruct s { int a /*weakc:aligned(8)*/; } /*weakc:packed*/ x;\n/*weakc:pack(pop)*/\nstruct t { int b; };";
        let m = Marks::scan(src);
        let body_end = src.find("} ").unwrap() + 1;
        assert_eq!(m.within(0..body_end), vec![&Attr::Aligned(Some("(8)".into()))]);
        let (after, end) = m.after(src, body_end);
        assert_eq!(after, vec![&Attr::Packed]);
        assert_eq!(&src[end..end + 2], " x");
        assert_eq!(m.pack_at(src.find("struct s").unwrap()), Some(2));
        assert_eq!(m.pack_at(src.find("struct t").unwrap()), None);
        assert_eq!(m.pack_at(0), None);
    }
}
