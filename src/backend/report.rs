//! What an external verifier said, before it is mapped onto the program: verdict, the
//! failed property, and the counterexample's steps, with locations as the verifier printed
//! them.

/// A location in the verifier's output (file as in the `#line` directives it read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtLoc {
    pub file: String,
    pub line: u32,
    pub function: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtStepKind {
    Assign { lhs: String, value: String },
    Call { function: String },
    Failure { message: String },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtStep {
    pub thread: u32,
    pub loc: ExtLoc,
    pub kind: ExtStepKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtProperty {
    /// CBMC's property id (`main.assertion.1`, `main.unwind.0`); empty when not printed.
    pub id: String,
    pub loc: ExtLoc,
    pub description: String,
}

impl ExtProperty {
    /// Unwinding assertions: CBMC names them `F.unwind.K`, ESBMC describes them.
    pub fn is_unwinding(&self) -> bool {
        self.id.contains(".unwind.") || self.description.starts_with("unwinding assertion")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtVerdict {
    Safe,
    Unsafe,
    /// The output has no verdict (crash, error message, cut off).
    None,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub verdict: ExtVerdict,
    pub failed: Option<ExtProperty>,
    pub trace: Vec<ExtStep>,
    /// Error messages the verifier printed (for diagnostics).
    pub errors: Vec<String>,
}

/// Values as the built-in engine prints them: integer suffixes (`1ul`) and SSA decorations
/// of names (`a!0@1`) dropped, the binary rendering in parentheses removed.
pub fn clean_value(v: &str) -> String {
    let mut v = v.trim();
    // "1 (00000000 00000001)": CBMC and ESBMC text traces add the bits.
    if let Some(i) = v.rfind(" (") {
        let bits = &v[i + 2..];
        if bits.ends_with(')') && bits[..bits.len() - 1].chars().all(|c| c == '0' || c == '1' || c == ' ') {
            v = v[..i].trim_end();
        }
    }
    let digits = v.trim_start_matches('-');
    let stripped = digits.trim_end_matches(['u', 'l', 'U', 'L']);
    if !stripped.is_empty() && stripped.len() < digits.len() && stripped.bytes().all(|b| b.is_ascii_digit()) {
        return v[..v.len() - (digits.len() - stripped.len())].to_string();
    }
    strip_ssa(v)
}

/// `a!0@1` → `a`, `&x!0` → `&x`: CBMC's SSA level suffixes.
fn strip_ssa(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '!' | '@' | '#') && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::clean_value;

    #[test]
    fn values_lose_suffixes_bits_and_ssa_levels() {
        assert_eq!(clean_value("1ul (00000000 00000001)"), "1");
        assert_eq!(clean_value("-5l"), "-5");
        assert_eq!(clean_value("42"), "42");
        assert_eq!(clean_value("&a!0@1 (00000010 00000000)"), "&a");
        assert_eq!(clean_value("((const void **)NULL)"), "((const void **)NULL)");
        assert_eq!(clean_value("x != 0"), "x != 0");
    }
}
