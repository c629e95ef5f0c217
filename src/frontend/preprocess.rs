//! Running the system C preprocessor and mapping its output back to the user's files.
//!
//! The preprocessor is only run when the text contains directives other than line markers
//! (`# 12 "file.c" 1`, `#line 12 "file.c"`). Its output keeps GCC line markers; [`strip_markers`]
//! blanks every marker (and any other remaining `#` line such as `#pragma`) so tree-sitter sees
//! clean C with the same number of lines, and records for every line of the parsed text the
//! file and line it came from.

use super::{Options, Preprocess};
use crate::source::{Error, SourceMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where one line of the parsed text came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LineOrigin {
    /// Index in the [`SourceMap`].
    pub file: u32,
    /// 1-based line in that file.
    pub line: u32,
    /// The line comes from a system header (line-marker flag 3).
    pub system: bool,
}

/// Parsed text with its line map (`lines[i]` is the origin of line `i`, 0-based).
#[derive(Clone, Debug)]
pub struct Prepared {
    pub text: String,
    pub lines: Vec<LineOrigin>,
    /// The file id of the main file.
    pub main_file: u32,
}

/// True when `text` has preprocessor directives other than line markers and `#line`.
pub fn needs_preprocessing(text: &str) -> bool {
    text.lines().any(|l| match directive_of(l) {
        Some(d) => !(d.is_empty() || d.starts_with(|c: char| c.is_ascii_digit()) || is_word(d, "line")),
        None => false,
    })
}

fn is_word(s: &str, w: &str) -> bool {
    s.starts_with(w) && !s[w.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
}

/// The text after `#` when `line` is a directive line.
fn directive_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    t.strip_prefix('#').map(|r| r.trim_start())
}

/// Finds the preprocessor: `cpp`, else `cc -E` (or `gcc -E`, `clang -E`).
fn find_preprocessor() -> Option<(PathBuf, Vec<String>)> {
    if let Ok(p) = which::which("cpp") {
        return Some((p, vec![]));
    }
    for cc in ["cc", "gcc", "clang"] {
        if let Ok(p) = which::which(cc) {
            return Some((p, vec!["-E".to_string()]));
        }
    }
    None
}

/// Runs the preprocessor on `path` (when given and readable) or on `text` through stdin.
/// Returns its output (with line markers).
pub fn run(name: &str, path: Option<&Path>, text: &str, opts: &Options) -> Result<String, Error> {
    let err_path = path.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from(name));
    let (exe, mut args) = find_preprocessor().ok_or_else(|| Error::Preprocess {
        path: err_path.clone(),
        msg: "no C preprocessor found (looked for cpp, cc, gcc, clang on PATH)".into(),
    })?;
    for d in &opts.include_dirs {
        args.push(format!("-I{}", d.display()));
    }
    // GCC's <stdatomic.h> expands into code tree-sitter cannot parse: a shim mapping the C11
    // operations to the `__atomic_*` builtins goes before the system headers.
    let shim = if text.contains("stdatomic") {
        let dir = tempfile::Builder::new().prefix("weakc-include").tempdir().map_err(|e| Error::Preprocess {
            path: err_path.clone(),
            msg: format!("cannot create a temporary directory: {e}"),
        })?;
        std::fs::write(dir.path().join("stdatomic.h"), STDATOMIC_SHIM).map_err(|e| Error::Preprocess {
            path: err_path.clone(),
            msg: format!("cannot write the <stdatomic.h> shim: {e}"),
        })?;
        args.push("-isystem".into());
        args.push(dir.path().display().to_string());
        Some(dir)
    } else {
        None
    };
    for d in &opts.defines {
        args.push(format!("-D{d}"));
    }
    args.push("-D__weakc__=1".into());
    let use_stdin = path.is_none();
    if let Some(p) = path {
        args.push(p.display().to_string());
    } else {
        args.push("-".into());
    }
    let mut cmd = Command::new(&exe);
    cmd.args(&args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if use_stdin { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.spawn().map_err(|e| Error::Preprocess {
        path: err_path.clone(),
        msg: format!("cannot run {}: {e}", exe.display()),
    })?;
    let writer = if use_stdin {
        let mut stdin = child.stdin.take();
        let data = text.as_bytes().to_vec();
        Some(std::thread::spawn(move || {
            if let Some(s) = stdin.as_mut() {
                let _ = s.write_all(&data);
            }
            drop(stdin);
        }))
    } else {
        None
    };
    let out = child.wait_with_output().map_err(|e| Error::Preprocess {
        path: err_path.clone(),
        msg: format!("running {}: {e}", exe.display()),
    })?;
    if let Some(w) = writer {
        let _ = w.join();
    }
    drop(shim);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(Error::Preprocess {
            path: err_path,
            msg: if stderr.is_empty() { format!("{} exited with {}", exe.display(), out.status) } else { stderr },
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `<stdatomic.h>` for weakc: C11 atomics as GCC `__atomic_*` builtins.
const STDATOMIC_SHIM: &str = r#"#ifndef __WEAKC_STDATOMIC_H
#define __WEAKC_STDATOMIC_H
typedef enum memory_order {
  memory_order_relaxed = 0, memory_order_consume = 1, memory_order_acquire = 2,
  memory_order_release = 3, memory_order_acq_rel = 4, memory_order_seq_cst = 5
} memory_order;
typedef _Bool atomic_bool;
typedef char atomic_char;
typedef signed char atomic_schar;
typedef unsigned char atomic_uchar;
typedef short atomic_short;
typedef unsigned short atomic_ushort;
typedef int atomic_int;
typedef unsigned int atomic_uint;
typedef long atomic_long;
typedef unsigned long atomic_ulong;
typedef long long atomic_llong;
typedef unsigned long long atomic_ullong;
typedef long atomic_intptr_t;
typedef unsigned long atomic_uintptr_t;
typedef unsigned long atomic_size_t;
typedef long atomic_ptrdiff_t;
typedef long atomic_intmax_t;
typedef unsigned long atomic_uintmax_t;
typedef _Bool atomic_flag;
#define ATOMIC_VAR_INIT(v) (v)
#define ATOMIC_FLAG_INIT 0
#define kill_dependency(y) (y)
#define atomic_is_lock_free(p) 1
#define atomic_init(p, v) ((void)(*(p) = (v)))
#define atomic_thread_fence(o) __atomic_thread_fence(o)
#define atomic_signal_fence(o) __atomic_signal_fence(o)
#define atomic_store_explicit(p, v, o) __atomic_store_n(p, v, o)
#define atomic_store(p, v) __atomic_store_n(p, v, 5)
#define atomic_load_explicit(p, o) __atomic_load_n(p, o)
#define atomic_load(p) __atomic_load_n(p, 5)
#define atomic_exchange_explicit(p, v, o) __atomic_exchange_n(p, v, o)
#define atomic_exchange(p, v) __atomic_exchange_n(p, v, 5)
#define atomic_compare_exchange_strong_explicit(p, e, d, s, f) __atomic_compare_exchange_n(p, e, d, 0, s, f)
#define atomic_compare_exchange_strong(p, e, d) __atomic_compare_exchange_n(p, e, d, 0, 5, 5)
#define atomic_compare_exchange_weak_explicit(p, e, d, s, f) __atomic_compare_exchange_n(p, e, d, 1, s, f)
#define atomic_compare_exchange_weak(p, e, d) __atomic_compare_exchange_n(p, e, d, 1, 5, 5)
#define atomic_fetch_add_explicit(p, v, o) __atomic_fetch_add(p, v, o)
#define atomic_fetch_add(p, v) __atomic_fetch_add(p, v, 5)
#define atomic_fetch_sub_explicit(p, v, o) __atomic_fetch_sub(p, v, o)
#define atomic_fetch_sub(p, v) __atomic_fetch_sub(p, v, 5)
#define atomic_fetch_or_explicit(p, v, o) __atomic_fetch_or(p, v, o)
#define atomic_fetch_or(p, v) __atomic_fetch_or(p, v, 5)
#define atomic_fetch_xor_explicit(p, v, o) __atomic_fetch_xor(p, v, o)
#define atomic_fetch_xor(p, v) __atomic_fetch_xor(p, v, 5)
#define atomic_fetch_and_explicit(p, v, o) __atomic_fetch_and(p, v, o)
#define atomic_fetch_and(p, v) __atomic_fetch_and(p, v, 5)
#define atomic_flag_test_and_set_explicit(p, o) __atomic_test_and_set(p, o)
#define atomic_flag_test_and_set(p) __atomic_test_and_set(p, 5)
#define atomic_flag_clear_explicit(p, o) __atomic_clear(p, o)
#define atomic_flag_clear(p) __atomic_clear(p, 5)
#endif
"#;

/// Parses a line marker (`# 12 "file" 1 3` or `#line 12 "file"`): line, file, flags.
fn parse_marker(directive: &str) -> Option<(u32, Option<String>, Vec<u32>)> {
    let rest = if is_word(directive, "line") { directive[4..].trim_start() } else { directive };
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let line: u32 = digits.parse().ok()?;
    let mut rest = rest[digits.len()..].trim_start();
    let mut file = None;
    if let Some(r) = rest.strip_prefix('"') {
        let mut name = String::new();
        let mut chars = r.char_indices();
        let mut end = r.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, n)) = chars.next() {
                        name.push(n);
                    }
                }
                '"' => {
                    end = i + 1;
                    break;
                }
                c => name.push(c),
            }
        }
        file = Some(name);
        rest = r[end.min(r.len())..].trim_start();
    }
    let flags = rest.split_whitespace().filter_map(|f| f.parse().ok()).collect();
    Some((line, file, flags))
}

/// Blanks line markers and other directive lines, recording the origin of every line.
/// `main_name` is the name the main file is registered under (`<stdin>` and the name cpp was
/// given both map to it); `cpp_name` is the name cpp uses for it in markers.
pub fn strip_markers(
    text: &str,
    main_name: &str,
    cpp_name: &str,
    keep_directives: bool,
    map: &mut SourceMap,
) -> Prepared {
    let main_file = map.files.iter().position(|f| f.name == main_name).map(|i| i as u32);
    let main_file = match main_file {
        Some(i) => i,
        None => map.file_id(main_name),
    };
    let text = &normalize_keywords(text);
    let mut out = String::with_capacity(text.len());
    let mut lines = Vec::new();
    let mut cur = LineOrigin { file: main_file, line: 1, system: false };
    for raw in text.split_inclusive('\n') {
        let content = raw.trim_end_matches(['\n', '\r']);
        let directive = directive_of(content);
        let marker = directive.and_then(parse_marker);
        let blank = match (directive, &marker) {
            (_, Some(_)) => true,
            (Some(_), None) => !keep_directives,
            (None, _) => false,
        };
        lines.push(cur);
        if blank {
            out.push('\n');
        } else {
            out.push_str(content);
            out.push('\n');
        }
        match marker {
            Some((line, file, flags)) => {
                if let Some(f) = file {
                    let system = flags.contains(&3);
                    let id = if f == main_name || f == cpp_name || f == "<stdin>" {
                        main_file
                    } else {
                        map.file_id(&f)
                    };
                    let system = system || f.starts_with('<');
                    cur = LineOrigin { file: id, line, system };
                } else {
                    cur.line = line;
                }
            }
            None => cur.line += 1,
        }
    }
    if lines.is_empty() {
        lines.push(cur);
    }
    Prepared { text: out, lines, main_file }
}

/// Reads, preprocesses when needed, and maps a source text.
pub fn prepare(
    name: &str,
    path: Option<&Path>,
    text: &str,
    opts: &Options,
    map: &mut SourceMap,
) -> Result<Prepared, Error> {
    let run_cpp = opts.preprocess == Preprocess::Auto && needs_preprocessing(text);
    if run_cpp {
        let out = run(name, path, text, opts)?;
        let cpp_name = path.map(|p| p.display().to_string()).unwrap_or_else(|| "<stdin>".to_string());
        Ok(strip_markers(&out, name, &cpp_name, false, map))
    } else {
        Ok(strip_markers(text, name, name, true, map))
    }
}

/// GNU spellings tree-sitter-c does not know, with their standard replacement (padded to the
/// same length so columns do not move).
const GNU_KEYWORDS: &[(&str, &str)] = &[
    ("__signed__", "signed"),
    ("__signed", "signed"),
    ("__const__", "const"),
    ("__const", "const"),
    ("__volatile", "volatile"),
    ("__builtin_offsetof", "offsetof"),
    ("__inline__", "inline"),
    ("_Thread_local", "__thread"),
    ("__restrict__", "restrict"),
];

/// Replaces GNU alternate keywords by their standard spelling (same length, padded with
/// spaces), outside strings, character constants and comments.
pub fn normalize_keywords(text: &str) -> String {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' {
            let q = c;
            out.push(c);
            i += 1;
            while i < b.len() && b[i] != q && b[i] != b'\n' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    out.push(b[i]);
                    i += 1;
                }
                out.push(b[i]);
                i += 1;
            }
            if i < b.len() && b[i] == q {
                out.push(q);
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b[i]);
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            out.extend_from_slice(b"/*");
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                out.push(b[i]);
                i += 1;
            }
            if i < b.len() {
                out.extend_from_slice(b"*/");
                i += 2;
            }
        } else if ident(c) {
            let start = i;
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            let word = &text[start..i];
            if word == "__attribute__" || word == "__attribute" {
                // Attributes change nothing weakc models and trip tree-sitter in some
                // positions: blank them (keeping newlines).
                let mut j = i;
                while j < b.len() && (b[j] == b' ' || b[j] == b'\t' || b[j] == b'\n' || b[j] == b'\r') {
                    j += 1;
                }
                if b.get(j) == Some(&b'(') {
                    let mut depth = 0i32;
                    let mut k = j;
                    while k < b.len() {
                        match b[k] {
                            b'(' => depth += 1,
                            b')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            b'"' => {
                                k += 1;
                                while k < b.len() && b[k] != b'"' {
                                    if b[k] == b'\\' {
                                        k += 1;
                                    }
                                    k += 1;
                                }
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                    if k < b.len() {
                        for &c in &b[start..=k] {
                            out.push(if c == b'\n' || c == b'\r' { c } else { b' ' });
                        }
                        i = k + 1;
                        continue;
                    }
                }
            }
            match GNU_KEYWORDS.iter().find(|(k, _)| *k == word) {
                Some((k, r)) => {
                    out.extend_from_slice(r.as_bytes());
                    out.extend(std::iter::repeat_n(b' ', k.len() - r.len()));
                }
                None => out.extend_from_slice(word.as_bytes()),
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_directives() {
        assert!(needs_preprocessing("#include <stdio.h>\nint x;"));
        assert!(needs_preprocessing("  #  define X 1\n"));
        assert!(!needs_preprocessing("# 1 \"a.c\"\nint x;\n#line 4 \"b.c\"\n"));
        assert!(!needs_preprocessing("int x; // # define\n"));
    }

    #[test]
    fn normalizes_gnu_spellings() {
        let t = "typedef __signed__ char s8; int x __attribute__((aligned(64), section(\")\"))) = 1; char *s = \"__const\";";
        let n = normalize_keywords(t);
        assert_eq!(n.len(), t.len());
        assert!(n.starts_with("typedef signed     char s8; int x "));
        assert!(n.contains("x ") && n.contains(" = 1;") && !n.contains("aligned"));
        assert!(n.ends_with("char *s = \"__const\";"));
    }

    #[test]
    fn markers_map_lines() {
        let mut map = SourceMap::default();
        map.add_file("a.c", "x\n".into());
        let text = "# 1 \"a.c\"\nint x;\n# 1 \"/usr/include/h.h\" 1 3 4\nint y;\n# 3 \"a.c\" 2\nint z;\n";
        let p = strip_markers(text, "a.c", "a.c", false, &mut map);
        assert_eq!(p.text.lines().collect::<Vec<_>>(), vec!["", "int x;", "", "int y;", "", "int z;"]);
        assert_eq!(p.lines[1].line, 1);
        assert_eq!(p.lines[1].file, p.main_file);
        assert!(p.lines[3].system);
        assert_eq!(p.lines[3].line, 1);
        assert_eq!(p.lines[5], LineOrigin { file: p.main_file, line: 3, system: false });
    }
}
