//! The CBMC adapter: command line and the three report formats CBMC writes (`--json-ui`,
//! which the adapter asks for, `--xml-ui` and plain text, parsed too so a user's saved
//! output can be read and so every recorded output is tested).

use super::report::{clean_value, ExtLoc, ExtProperty, ExtStep, ExtStepKind, ExtVerdict, Report};
use super::ExternalOptions;
use serde_json::Value;

/// CBMC's command line for `file`. CBMC 6 enables "standard checks" (pointer, bounds,
/// overflow, …, and unwinding assertions) by default, and with pthreads those checks abort
/// ("pointer handling for concurrency is unsound"). `--no-standard-checks` turns them off,
/// which also matches the built-in engine's documented semantics (only assertions and
/// unwinding assertions are properties); it turns off unwinding assertions too, so they are
/// asked for explicitly. CBMC 5 knows neither flag and has no standard checks.
pub fn args(file: &str, o: &ExternalOptions, major: u32) -> Vec<String> {
    let mut a = vec![file.to_string(), "--json-ui".into(), "--trace".into(), "--unwind".into(), o.unwind.to_string()];
    if major >= 6 {
        a.push("--no-standard-checks".into());
        a.push(if o.unwinding_assertions { "--unwinding-assertions" } else { "--no-unwinding-assertions" }.into());
    } else if o.unwinding_assertions {
        a.push("--unwinding-assertions".into());
    }
    // The fences of weakc.h are asm statements; the instrumentation already models them.
    a.push("-D__WEAKC_NO_ASM".into());
    a
}

/// `cbmc --version` prints `6.0.0-preview (cbmc-6.0.0)` or similar: the major number.
pub fn major_version(out: &str) -> Option<u32> {
    out.split_whitespace().find_map(|w| w.split('.').next()?.parse().ok())
}

fn json_loc(v: &Value) -> ExtLoc {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    ExtLoc { file: s("file"), line: s("line").parse().unwrap_or(0), function: s("function") }
}

pub fn parse_json(out: &str) -> Result<Report, String> {
    let v: Value = serde_json::from_str(out).map_err(|e| format!("CBMC's JSON output could not be read: {e}"))?;
    let items = v.as_array().ok_or("CBMC's JSON output is not a list")?;
    let mut r = Report { verdict: ExtVerdict::None, failed: None, trace: vec![], errors: vec![] };
    for it in items {
        if it.get("messageType").and_then(Value::as_str) == Some("ERROR") {
            r.errors.push(it.get("messageText").and_then(Value::as_str).unwrap_or("").to_string());
        }
        match it.get("cProverStatus").and_then(Value::as_str) {
            Some("success") => r.verdict = ExtVerdict::Safe,
            Some("failure") => r.verdict = ExtVerdict::Unsafe,
            _ => {}
        }
        let Some(results) = it.get("result").and_then(Value::as_array) else { continue };
        for res in results {
            if res.get("status").and_then(Value::as_str) != Some("FAILURE") || r.failed.is_some() {
                continue;
            }
            r.failed = Some(ExtProperty {
                id: res.get("property").and_then(Value::as_str).unwrap_or("").to_string(),
                loc: res.get("sourceLocation").map(json_loc).unwrap_or_default(),
                description: res.get("description").and_then(Value::as_str).unwrap_or("").to_string(),
            });
            for st in res.get("trace").and_then(Value::as_array).into_iter().flatten() {
                if let Some(s) = json_step(st) {
                    r.trace.push(s);
                }
            }
        }
    }
    Ok(r)
}

fn json_step(st: &Value) -> Option<ExtStep> {
    let flag = |k: &str| st.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("hidden") || flag("internal") {
        return None;
    }
    let thread = st.get("thread").and_then(Value::as_u64).unwrap_or(0) as u32;
    let loc = st.get("sourceLocation").map(json_loc).unwrap_or_default();
    let str_of = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let kind = match st.get("stepType").and_then(Value::as_str)? {
        "assignment" => {
            let lhs = str_of(st.get("lhs"));
            if lhs.starts_with("__CPROVER") {
                return None;
            }
            ExtStepKind::Assign { lhs, value: clean_value(&str_of(st.get("value").and_then(|v| v.get("data")))) }
        }
        "function-call" => ExtStepKind::Call { function: str_of(st.get("function").and_then(|f| f.get("identifier"))) },
        "failure" => ExtStepKind::Failure { message: str_of(st.get("reason")) },
        _ => return None,
    };
    Some(ExtStep { thread, loc, kind })
}

fn xml_loc(n: roxmltree::Node) -> ExtLoc {
    let s = |k: &str| n.attribute(k).unwrap_or("").to_string();
    ExtLoc { file: s("file"), line: s("line").parse().unwrap_or(0), function: s("function") }
}

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(name))
}

pub fn parse_xml(out: &str) -> Result<Report, String> {
    let doc = roxmltree::Document::parse(out).map_err(|e| format!("CBMC's XML output could not be read: {e}"))?;
    let mut r = Report { verdict: ExtVerdict::None, failed: None, trace: vec![], errors: vec![] };
    for n in doc.root_element().children().filter(|n| n.is_element()) {
        match n.tag_name().name() {
            "cprover-status" => {
                r.verdict = match n.text().map(str::trim) {
                    Some("SUCCESS") => ExtVerdict::Safe,
                    Some("FAILURE") => ExtVerdict::Unsafe,
                    _ => ExtVerdict::None,
                }
            }
            "message" if n.attribute("type") == Some("ERROR") => {
                r.errors.push(child(n, "text").and_then(|t| t.text()).unwrap_or("").to_string());
            }
            "result" if n.attribute("status") == Some("FAILURE") && r.failed.is_none() => {
                let trace = child(n, "goto_trace");
                // The result element has no description; the trace's failure step does.
                let fail = trace.and_then(|t| child(t, "failure"));
                r.failed = Some(ExtProperty {
                    id: n.attribute("property").unwrap_or("").to_string(),
                    loc: child(n, "location").map(xml_loc).unwrap_or_default(),
                    description: fail.and_then(|f| f.attribute("reason")).unwrap_or("").to_string(),
                });
                for st in trace.into_iter().flat_map(|t| t.children()).filter(|c| c.is_element()) {
                    if st.attribute("hidden") == Some("true") {
                        continue;
                    }
                    let thread = st.attribute("thread").and_then(|t| t.parse().ok()).unwrap_or(0);
                    let loc = child(st, "location").map(xml_loc).unwrap_or_default();
                    let kind = match st.tag_name().name() {
                        "assignment" => {
                            let lhs = child(st, "full_lhs").and_then(|x| x.text()).unwrap_or("").to_string();
                            if lhs.starts_with("__CPROVER") {
                                continue;
                            }
                            let value = child(st, "full_lhs_value").and_then(|x| x.text()).unwrap_or("");
                            ExtStepKind::Assign { lhs, value: clean_value(value) }
                        }
                        "function_call" => ExtStepKind::Call {
                            function: child(st, "function").and_then(|f| f.attribute("identifier")).unwrap_or("").to_string(),
                        },
                        "failure" => ExtStepKind::Failure { message: st.attribute("reason").unwrap_or("").to_string() },
                        _ => continue,
                    };
                    r.trace.push(ExtStep { thread, loc, kind });
                }
            }
            _ => {}
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn command_line() {
        let o = ExternalOptions { unwind: 3, unwinding_assertions: true, timeout: None, context_bound: None };
        let a = args("p.c", &o, 6);
        assert_eq!(&a[..5], &["p.c", "--json-ui", "--trace", "--unwind", "3"]);
        assert!(a.contains(&"--no-standard-checks".to_string()) && a.contains(&"--unwinding-assertions".to_string()));
        let off = args("p.c", &ExternalOptions { unwinding_assertions: false, ..o.clone() }, 6);
        assert!(off.contains(&"--no-unwinding-assertions".to_string()));
        let old = args("p.c", &ExternalOptions { unwinding_assertions: false, ..o }, 5);
        assert!(!old.iter().any(|x| x.contains("standard-checks") || x.contains("unwinding")));
        assert_eq!(major_version("6.0.0-preview (cbmc-6.0.0)"), Some(6));
        assert_eq!(major_version("5.12 (cbmc-5.12)"), Some(5));
    }

    /// `shared/verifier-outputs/cbmc-6.0`, or `None` (with the reason printed) when absent.
    fn recorded() -> Option<PathBuf> {
        let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/verifier-outputs/cbmc-6.0");
        if d.is_dir() {
            Some(d)
        } else {
            eprintln!("skipped: {} is absent (recorded CBMC outputs)", d.display());
            None
        }
    }

    fn read(name: &str) -> Option<String> {
        Some(std::fs::read_to_string(recorded()?.join(name)).expect("recorded file"))
    }

    /// What every recorded run of sb_buggy_sc.c says: main.assertion.1 at line 13 fails.
    fn check_buggy(r: &Report, with_trace: bool) {
        assert_eq!(r.verdict, ExtVerdict::Unsafe);
        let f = r.failed.as_ref().expect("failed property");
        assert_eq!(f.id, "main.assertion.1");
        assert_eq!((f.loc.file.as_str(), f.loc.line, f.loc.function.as_str()), ("sb_buggy_sc.c", 13, "main"));
        assert_eq!(f.description, "assertion !(r1 == 1 && r2 == 1)");
        assert!(!f.is_unwinding());
        if !with_trace {
            assert!(r.trace.is_empty());
            return;
        }
        let assign = |thread: u32, lhs: &str| {
            r.trace.iter().find_map(|s| match &s.kind {
                ExtStepKind::Assign { lhs: l, value } if l == lhs && s.thread == thread => Some((value.clone(), s.loc.line, s.loc.function.clone())),
                _ => None,
            })
        };
        // The weak outcome: both threads wrote and read 1, t0 in thread 1, t1 in thread 2.
        assert_eq!(assign(1, "x"), Some(("1".into(), 5, "t0".into())));
        assert_eq!(assign(2, "y"), Some(("1".into(), 6, "t1".into())));
        assert_eq!(assign(1, "r1"), Some(("1".into(), 5, "t0".into())));
        assert_eq!(assign(2, "r2"), Some(("1".into(), 6, "t1".into())));
        assert_eq!(assign(0, "a").map(|a| a.0), Some("1".into()));
        let last = r.trace.last().expect("steps");
        assert_eq!(last.kind, ExtStepKind::Failure { message: "assertion !(r1 == 1 && r2 == 1)".into() });
        assert_eq!((last.thread, last.loc.line), (0, 13));
        // No CBMC-internal state leaks into the trace.
        assert!(r.trace.iter().all(|s| !matches!(&s.kind, ExtStepKind::Assign { lhs, .. } if lhs.starts_with("__CPROVER"))));
    }

    #[test]
    fn recorded_sb_buggy_json() {
        let Some(t) = read("sb_buggy_sc.cbmc.json") else { return };
        let r = parse_json(&t).unwrap();
        check_buggy(&r, true);
        // Thread creation appears as calls of the pthread model.
        assert!(r.trace.iter().any(|s| s.kind == ExtStepKind::Call { function: "pthread_create".into() }));
    }

    #[test]
    fn recorded_sb_buggy_xml() {
        let Some(t) = read("sb_buggy_sc.cbmc.xml") else { return };
        let r = parse_xml(&t).unwrap();
        check_buggy(&r, true);
        assert!(r.trace.iter().any(|s| s.kind == ExtStepKind::Call { function: "pthread_create".into() }));
    }

    #[test]
    fn recorded_sb_buggy_text() {
        let Some(t) = read("sb_buggy_sc.cbmc.txt") else { return };
        check_buggy(&super::super::text::parse(&t), false);
    }

    #[test]
    fn recorded_sb_buggy_text_trace() {
        let Some(t) = read("sb_buggy_sc.cbmc.trace.txt") else { return };
        let r = super::super::text::parse(&t);
        check_buggy(&r, true);
        // The text trace has the bits after each value and the pointer decorations removed.
        assert!(r.trace.iter().any(|s| s.kind == ExtStepKind::Assign { lhs: "thread".into(), value: "&a".into() }));
        // 33 states, two of which assign CBMC's own __CPROVER_next_thread_id.
        assert_eq!(r.trace.iter().filter(|s| matches!(s.kind, ExtStepKind::Assign { .. })).count(), 31);
    }

    #[test]
    fn recorded_sb_safe_all_formats() {
        for (name, r) in [
            ("sb.cbmc.json", read("sb.cbmc.json").map(|t| parse_json(&t).unwrap())),
            ("sb.cbmc.xml", read("sb.cbmc.xml").map(|t| parse_xml(&t).unwrap())),
            ("sb.cbmc.txt", read("sb.cbmc.txt").map(|t| super::super::text::parse(&t))),
        ] {
            let Some(r) = r else { return };
            assert_eq!(r.verdict, ExtVerdict::Safe, "{name}");
            assert!(r.failed.is_none() && r.trace.is_empty() && r.errors.is_empty(), "{name}");
        }
    }

    #[test]
    fn recorded_goto_instrument_tso() {
        let Some(t) = read("sb_async_tso.cbmc.json") else { return };
        let r = parse_json(&t).unwrap();
        assert_eq!(r.verdict, ExtVerdict::Unsafe);
        let f = r.failed.as_ref().unwrap();
        assert_eq!((f.id.as_str(), f.loc.file.as_str(), f.loc.line), ("main.assertion.1", "sb_async.c", 36));
        assert_eq!(f.description, "SB: r1==0 && r2==0 reachable");
        // Both registers end 0: the weak outcome.
        for reg in ["__unbuffered_p0_r1", "__unbuffered_p1_r1"] {
            let last = r.trace.iter().rev().find_map(|s| match &s.kind {
                ExtStepKind::Assign { lhs, value } if lhs == reg => Some(value.as_str()),
                _ => None,
            });
            assert_eq!(last, Some("0"), "{reg}");
        }
        assert!(r.trace.iter().map(|s| s.thread).max() >= Some(2));
        let Some(t) = read("sb_async_tso.cbmc.txt") else { return };
        let r = super::super::text::parse(&t);
        assert_eq!(r.verdict, ExtVerdict::Unsafe);
        let f = r.failed.unwrap();
        assert_eq!((f.id.as_str(), f.loc.file.as_str(), f.loc.line, f.loc.function.as_str()), ("main.assertion.1", "sb_async.c", 36, "main"));
        assert_eq!(f.description, "SB: r1==0 && r2==0 reachable");
    }

    #[test]
    fn recorded_goto_instrument_log_has_no_verdict() {
        // goto-instrument's own log is not a verifier report: no verdict, no property.
        let Some(t) = read("sb_async.goto-instrument-tso.txt") else { return };
        let r = super::super::text::parse(&t);
        assert_eq!(r.verdict, ExtVerdict::None);
        assert!(r.failed.is_none());
    }
}
