//! The plain-text report CBMC and ESBMC share (ESBMC is a CBMC fork): a results list
//! (CBMC), `State N file F function G line L thread T` blocks with `lhs=value (bits)`
//! assignments, a `Violated property:` block and a `VERIFICATION …` line.

use super::report::{clean_value, ExtLoc, ExtProperty, ExtStep, ExtStepKind, ExtVerdict, Report};

/// Reads `key value` pairs (`file x.c`, `line 3`, `column 5`, `function f`, `thread 0`)
/// from a location line.
fn location(words: &str) -> (ExtLoc, u32) {
    let mut loc = ExtLoc::default();
    let mut thread = 0;
    let w: Vec<&str> = words.split_whitespace().collect();
    let mut i = 0;
    while i + 1 < w.len() {
        match w[i] {
            "file" => loc.file = w[i + 1].to_string(),
            "line" => loc.line = w[i + 1].parse().unwrap_or(0),
            "function" => loc.function = w[i + 1].to_string(),
            "thread" => thread = w[i + 1].parse().unwrap_or(0),
            "column" => {}
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    (loc, thread)
}

/// `[main.assertion.1] line 13 assertion !(…): FAILURE` → id, line, description, status.
fn result_line(l: &str) -> Option<(String, u32, String, String)> {
    let rest = l.strip_prefix('[')?;
    let (id, rest) = rest.split_once("] ")?;
    let (body, status) = rest.rsplit_once(": ")?;
    if !matches!(status, "SUCCESS" | "FAILURE" | "UNKNOWN" | "ERROR") {
        return None;
    }
    let (line, desc) = match body.strip_prefix("line ").and_then(|b| b.split_once(' ')) {
        Some((n, d)) if n.parse::<u32>().is_ok() => (n.parse().unwrap_or(0), d.to_string()),
        _ => (0, body.to_string()),
    };
    Some((id.to_string(), line, desc, status.to_string()))
}

/// Whether the verifier said it stopped at its own time limit (ESBMC: `ERROR: Timed out`,
/// possibly glued to the end of the line before it).
pub fn timed_out(stdout: &str, stderr: &str) -> bool {
    [stdout, stderr].iter().any(|t| t.lines().any(|l| l.trim_end().ends_with("ERROR: Timed out")))
}

pub fn parse(out: &str) -> Report {
    let lines: Vec<&str> = out.lines().collect();
    let mut verdict = ExtVerdict::None;
    let mut failed: Option<ExtProperty> = None;
    let mut from_results: Option<ExtProperty> = None;
    let mut trace = vec![];
    let mut errors = vec![];
    let mut header = ExtLoc::default();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let t = l.trim();
        if t == "VERIFICATION FAILED" {
            verdict = ExtVerdict::Unsafe;
        } else if t == "VERIFICATION SUCCESSFUL" {
            verdict = ExtVerdict::Safe;
        } else if t.starts_with("ERROR") || t.contains(": error:") || t.starts_with("PARSING ERROR") {
            errors.push(t.to_string());
        } else if let Some((id, line, description, status)) = result_line(t) {
            if status == "FAILURE" && from_results.is_none() {
                from_results = Some(ExtProperty { id, loc: ExtLoc { line, ..header.clone() }, description });
            }
        } else if let Some(rest) = t.strip_prefix("State ").filter(|r| r.contains(" file ") || r.contains(" thread ")) {
            let (loc, thread) = location(rest);
            i += 1;
            if lines.get(i).is_some_and(|x| x.trim_start().starts_with("---")) {
                i += 1;
            }
            // Assignments until a blank line; deeper-indented lines continue the value.
            let mut pending: Option<(String, String)> = None;
            while i < lines.len() && !lines[i].trim().is_empty() && !lines[i].trim_start().starts_with("State ") {
                let a = lines[i];
                let cont = a.starts_with("    ") && pending.is_some();
                if cont {
                    if let Some((_, v)) = pending.as_mut() {
                        v.push(' ');
                        v.push_str(a.trim());
                    }
                } else if let Some((lhs, v)) = a.trim().split_once('=') {
                    if let Some((lhs, v)) = pending.take() {
                        trace.push(ExtStep { thread, loc: loc.clone(), kind: ExtStepKind::Assign { lhs, value: clean_value(&v) } });
                    }
                    pending = Some((lhs.trim().to_string(), v.trim().to_string()));
                } else if a.trim() == "Violated property:" {
                    break;
                }
                i += 1;
            }
            if let Some((lhs, v)) = pending.take() {
                trace.push(ExtStep { thread, loc: loc.clone(), kind: ExtStepKind::Assign { lhs, value: clean_value(&v) } });
            }
            // The verifier's own state (thread counters, …) is not the user's.
            trace.retain(|s| !matches!(&s.kind, ExtStepKind::Assign { lhs, .. } if lhs.starts_with("__CPROVER") || lhs.starts_with("__ESBMC")));
            continue;
        } else if t == "Violated property:" {
            let (loc, thread) = location(lines.get(i + 1).copied().unwrap_or(""));
            let desc = lines.get(i + 2).map(|x| x.trim()).unwrap_or("").to_string();
            let expr = lines.get(i + 3).map(|x| x.trim()).unwrap_or("");
            // ESBMC prints the kind alone ("assertion") and the condition below it.
            let description = if !desc.contains(' ') && !expr.is_empty() { format!("{desc} {expr}") } else { desc };
            trace.push(ExtStep { thread, loc: loc.clone(), kind: ExtStepKind::Failure { message: description.clone() } });
            failed = Some(ExtProperty { id: String::new(), loc, description });
            i += 3;
            continue;
        } else if !t.is_empty() && !t.starts_with('[') && !t.starts_with("**") {
            // A results group header: `FILE function FUNC`.
            if let Some((file, func)) = t.rsplit_once(" function ") {
                if !file.contains(' ') || file.starts_with('<') {
                    header = ExtLoc { file: file.to_string(), line: 0, function: func.to_string() };
                }
            }
        }
        i += 1;
    }
    // The results list names the property; the trace's block has the thread and column.
    let failed = match (failed, from_results) {
        (Some(mut f), Some(r)) => {
            f.id = r.id;
            Some(f)
        }
        (f, r) => f.or(r),
    };
    Report { verdict, failed, trace, errors }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ESBMC's text format. No real ESBMC output is recorded in `shared/`; this sample is
    /// written after the format ESBMC documents and prints (a `[Counterexample]` header,
    /// `State N file F line L column C function G thread T` blocks with `lhs = value (bits)`,
    /// a `Violated property:` block with kind and condition on separate lines). Only those
    /// parts, which are stable across ESBMC versions, are relied on.
    const ESBMC_SAMPLE: &str = "ESBMC version 7.4.0 64-bit x86_64 linux
Parsing prog.c
[Counterexample]


State 1 file examples/sb.c line 6 column 3 function P0 thread 1
----------------------------------------------------
  x = 1 (00000000 00000000 00000000 00000001)

State 2 file examples/sb.c line 7 column 3 function P1 thread 2
----------------------------------------------------
  s = { .a=1,
    .b=2 }

Violated property:
  file examples/sb.c line 14 column 3 function main
  assertion
  !(r0 == 0 && r1 == 0)


VERIFICATION FAILED
";

    #[test]
    fn esbmc_sample() {
        let r = parse(ESBMC_SAMPLE);
        assert_eq!(r.verdict, ExtVerdict::Unsafe);
        let f = r.failed.unwrap();
        assert_eq!((f.loc.file.as_str(), f.loc.line, f.description.as_str()), ("examples/sb.c", 14, "assertion !(r0 == 0 && r1 == 0)"));
        assert_eq!(r.trace.len(), 3);
        assert_eq!(r.trace[0].thread, 1);
        assert_eq!(r.trace[0].loc.function, "P0");
        assert_eq!(r.trace[0].kind, ExtStepKind::Assign { lhs: "x".into(), value: "1".into() });
        assert_eq!(r.trace[1].kind, ExtStepKind::Assign { lhs: "s".into(), value: "{ .a=1, .b=2 }".into() });
        assert!(matches!(r.trace[2].kind, ExtStepKind::Failure { .. }));
    }

    #[test]
    fn successful_and_error_outputs() {
        assert_eq!(parse("Symex completed\nVERIFICATION SUCCESSFUL\n").verdict, ExtVerdict::Safe);
        let e = parse("prog.c:3:1: error: unknown type name 'foo'\nPARSING ERROR\n");
        assert_eq!(e.verdict, ExtVerdict::None);
        assert_eq!(e.errors.len(), 2);
    }
}
