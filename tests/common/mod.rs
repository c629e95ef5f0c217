//! Shared by the end-to-end tests whose case files state their expected verdicts.

use std::path::Path;

/// One `expect: ARCH=VERDICT ...` line of a case file's header comment, or
/// `expect(FLAGS): ...` for a run with extra flags.
pub struct ExpectLine {
    pub flags: Vec<String>,
    /// `(architecture, verdict)` as written.
    pub items: Vec<(String, String)>,
}

/// Every expect line of `file`, in order.
pub fn expect_lines(file: &Path) -> Vec<ExpectLine> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut out = vec![];
    for line in text.lines() {
        let line = line.trim_start_matches(|c: char| c == '*' || c == '/' || c.is_whitespace());
        let Some(rest) = line.strip_prefix("expect") else { continue };
        let (flags, verdicts) = match rest.strip_prefix('(') {
            Some(r) => {
                let (f, v) = r.split_once("):").unwrap_or_else(|| panic!("{}: expect(FLAGS): ...", file.display()));
                (f.split_whitespace().map(String::from).collect(), v)
            }
            None => (vec![], rest.strip_prefix(':').unwrap_or_else(|| panic!("{}: expect: ...", file.display()))),
        };
        let items = verdicts
            .trim_end_matches("*/")
            .split_whitespace()
            .map(|item| {
                let (a, v) = item.split_once('=').unwrap_or_else(|| panic!("{}: `{item}` is not ARCH=VERDICT", file.display()));
                (a.to_string(), v.to_string())
            })
            .collect();
        out.push(ExpectLine { flags, items });
    }
    assert!(!out.is_empty(), "{}: no expect line", file.display());
    out
}
