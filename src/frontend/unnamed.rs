//! Unnamed bit-fields (`unsigned int : 16;`, `int : 0;`, `__u32 : 3;`) are padding that
//! real headers use (glibc's `union wait`, kernel structs), but tree-sitter-c's grammar
//! requires a name before a bit-field clause. This pass gives each one the name
//! [`UNNAMED_BITFIELD`] in the text; the lowerer turns a field of that name back into an
//! unnamed member, which initialisers skip and the C printer prints without a name.

/// The name given to an unnamed bit-field.
pub const UNNAMED_BITFIELD: &str = "__weakc_unnamed_bitfield";

/// Qualifiers and keywords that may precede a bit-field's type without being it.
const NOT_A_TYPE: &[&str] = &["const", "volatile", "__extension__", "_Atomic", "restrict"];

/// Type keywords: a declaration whose last word is one of them declares no name.
const TYPE_WORDS: &[&str] = &["int", "unsigned", "signed", "char", "short", "long", "_Bool", "bool", "__int128"];

#[derive(Clone, Copy, PartialEq)]
enum Brace {
    /// A struct or union body: its members are field declarations.
    Members,
    Other,
}

/// The text with a name inserted before the `:` of every unnamed bit-field (outside strings,
/// character constants, comments and directive lines). Only that line's columns move.
pub fn name_bitfields(text: &str) -> String {
    if !text.contains(':') {
        return text.to_string();
    }
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut braces: Vec<Brace> = vec![];
    // The words of the current member declaration (`None` once something other than a word
    // appeared in it), and the last two significant tokens (for `struct [tag] {`).
    let mut words: Option<Vec<&str>> = Some(vec![]);
    let mut last: [&str; 2] = ["", ""];
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if line_start && c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                out.push(b[i]);
                i += 1;
            }
            continue;
        }
        if c == b'\n' {
            line_start = true;
            out.push(c);
            i += 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        let start = i;
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            words = None;
            last = [last[1], "\""];
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i = (i + 2).min(b.len());
        } else if ident(c) {
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            let w = &text[start..i];
            if let Some(ws) = words.as_mut() {
                ws.push(w);
            }
            last = [last[1], w];
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else {
            i += 1;
            match c {
                b'{' => {
                    let members = matches!(last, ["struct" | "union", _] | [_, "struct" | "union"]);
                    braces.push(if members { Brace::Members } else { Brace::Other });
                    words = Some(vec![]);
                }
                b'}' => {
                    braces.pop();
                    words = Some(vec![]);
                }
                b';' => words = Some(vec![]),
                b':' if braces.last() == Some(&Brace::Members) && b.get(i) != Some(&b':') => {
                    // (`unsigned a : 3, : 5;`: a declarator list may end with one.)
                    if words.as_deref().is_some_and(unnamed) || last[1] == "," {
                        // Before the `:` and the spaces that precede it.
                        let mut at = out.len();
                        while at > 0 && out[at - 1].is_ascii_whitespace() && out[at - 1] != b'\n' {
                            at -= 1;
                        }
                        let name = format!(" {UNNAMED_BITFIELD}");
                        out.splice(at..at, name.bytes());
                    }
                    words = None;
                }
                _ => words = None,
            }
            last = [last[1], match c {
                b'{' => "{",
                b',' => ",",
                _ => "",
            }];
        }
        out.extend_from_slice(&b[start..i]);
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Whether a member declaration made of these words, then `:`, declares no name: its words
/// are a type alone (`unsigned int`, a typedef name, `enum e`).
fn unnamed(words: &[&str]) -> bool {
    let ws: Vec<&str> = words.iter().copied().filter(|w| !NOT_A_TYPE.contains(w)).collect();
    match ws.as_slice() {
        [] => false,
        [_] => true,
        ["enum" | "struct" | "union", _] => true,
        [.., w] => TYPE_WORDS.contains(w),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_only_unnamed_bit_fields() {
        let n = |t: &str| name_bitfields(t);
        assert_eq!(n("struct s { unsigned int:16; int a : 3; };"), format!("struct s {{ unsigned int {UNNAMED_BITFIELD}:16; int a : 3; }};"));
        assert_eq!(n("union { struct { __u32 : 3; const int : 0; unsigned x:1; } w; };"), format!("union {{ struct {{ __u32 {UNNAMED_BITFIELD} : 3; const int {UNNAMED_BITFIELD} : 0; unsigned x:1; }} w; }};"));
        assert_eq!(n("struct s { unsigned a:3, :5, b:2; };"), format!("struct s {{ unsigned a:3, {UNNAMED_BITFIELD} :5, b:2; }};"));
        // Labels, `case`, `?:`, `::` and strings are not bit-fields; nor is anything outside
        // a struct body or on a directive line.
        for t in ["void f(int x) { again: switch (x) { case 1: x = x ? 1 : 2; } }", "int f(void) { int y = 1; return y ? y : 0; }", "const char *s = \"int : 3;\";", "#define F struct { int : 3; }\n", "enum e { A }; int g(int int_ : 1);"] {
            assert_eq!(n(t), t);
        }
        // A struct declared inside a function body.
        assert_eq!(n("int f(void) { struct { long : 8; char c; } v; l: return 0; }"), format!("int f(void) {{ struct {{ long {UNNAMED_BITFIELD} : 8; char c; }} v; l: return 0; }}"));
    }
}
