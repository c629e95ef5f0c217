//! `--format sarif` (issue 18): every log validates against the SARIF 2.1.0 schema (kept in
//! `tests/sarif/`, OASIS's `sarif-schema-2.1.0.json`) and carries the findings: a violation
//! with its counterexample as a code flow, each critical cycle at its events, each fence or
//! order placement with a fix that applies to the source.

use serde_json::Value;
use std::process::Command;

fn weakc(args: &[&str]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run weakc");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("weakc {args:?}: not JSON ({e}):\n{text}\n{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), v)
}

fn validate(log: &Value) {
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sarif/sarif-schema-2.1.0.json")).unwrap()).unwrap();
    // OASIS's schema gives `language` (of a run, of a tool component) the pattern `^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`,
    // whose lone `]` ECMAScript reads as a literal and the validator's regex syntax rejects:
    // escaped, it means the same
    fn escape_lone_bracket(v: &mut Value) -> usize {
        match v {
            Value::Object(m) => m
                .iter_mut()
                .map(|(k, x)| {
                    if k == "pattern" && x == "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$" {
                        *x = Value::from("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$");
                        1
                    } else {
                        escape_lone_bracket(x)
                    }
                })
                .sum(),
            Value::Array(a) => a.iter_mut().map(escape_lone_bracket).sum(),
            _ => 0,
        }
    }
    assert!(escape_lone_bracket(&mut schema) > 0);
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator.iter_errors(log).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "not valid SARIF 2.1.0:\n{}\n{}", errors.join("\n"), serde_json::to_string_pretty(log).unwrap());
    assert_eq!(log["version"], "2.1.0");
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

/// The rule a result names is in the driver's rules, at its index.
fn rule_of<'a>(log: &'a Value, r: &Value) -> &'a Value {
    let rules = &log["runs"][0]["tool"]["driver"]["rules"];
    let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], r["ruleId"]);
    assert!(rule["help"]["text"].as_str().is_some_and(|t| !t.is_empty()));
    rule
}

#[test]
fn a_violation_carries_its_counterexample_as_a_code_flow() {
    let (code, log) = weakc(&["verify", "--mm", "tso", "--format", "sarif", "tests/c/sb.c"]);
    assert_eq!(code, 10);
    validate(&log);
    let rs = results(&log);
    assert_eq!(rs.len(), 1);
    let r = &rs[0];
    assert_eq!(r["ruleId"], "weakc/violation");
    assert_eq!(r["level"], "error");
    rule_of(&log, r);
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "tests/c/sb.c");
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "SRCROOT");
    assert_eq!(loc["region"]["startLine"], 14);
    let root = log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"].as_str().unwrap();
    assert!(root.starts_with("file:///") && root.ends_with('/'));
    // one thread flow per thread (main and the two writers); execution orders interleave
    // them and number every step once
    let flows = r["codeFlows"][0]["threadFlows"].as_array().unwrap();
    assert!(flows.len() >= 3, "{flows:?}");
    let mut orders: Vec<u64> = flows.iter().flat_map(|f| f["locations"].as_array().unwrap()).map(|l| l["executionOrder"].as_u64().unwrap()).collect();
    let n = orders.len() as u64;
    orders.sort();
    assert_eq!(orders, (1..=n).collect::<Vec<_>>());
    // the weak behaviour: both threads' writes and reads are in the flow, at their lines
    let steps: Vec<(u64, String)> = flows
        .iter()
        .flat_map(|f| f["locations"].as_array().unwrap())
        .map(|l| (l["location"]["physicalLocation"]["region"]["startLine"].as_u64().unwrap(), l["location"]["message"]["text"].as_str().unwrap().to_string()))
        .collect();
    for line in [6, 7] {
        assert!(steps.iter().any(|(l, _)| *l == line), "no step on line {line}: {steps:?}");
    }
    let props = &log["runs"][0]["invocations"][0]["properties"];
    assert_eq!(props["verdict"], "unsafe");
    assert_eq!(props["arch"], "tso");
}

#[test]
fn a_safe_program_has_no_results_and_says_its_verdict() {
    let (code, log) = weakc(&["verify", "--mm", "tso", "--format", "sarif", "tests/c/mp.c"]);
    assert_eq!(code, 0);
    validate(&log);
    assert!(results(&log).is_empty());
    assert_eq!(log["runs"][0]["invocations"][0]["properties"]["verdict"], "safe");
}

#[test]
fn each_critical_cycle_is_a_result_at_its_events() {
    let (code, log) = weakc(&["cycles", "--mm", "power", "--format", "sarif", "tests/c/iriw.c"]);
    assert_eq!(code, 0);
    validate(&log);
    let rs = results(&log);
    let (_, json) = weakc(&["cycles", "--mm", "power", "--format", "json", "tests/c/iriw.c"]);
    let cycles = json["cycles"].as_array().unwrap();
    assert!(!cycles.is_empty());
    assert_eq!(rs.len(), cycles.len());
    for (r, c) in rs.iter().zip(cycles) {
        assert_eq!(r["ruleId"], "weakc/critical-cycle");
        rule_of(&log, r);
        let locs = r["locations"].as_array().unwrap();
        let events = c["events"].as_array().unwrap();
        assert_eq!(locs.len(), events.len());
        for (l, e) in locs.iter().zip(events) {
            assert_eq!(l["physicalLocation"]["region"]["startLine"], e["line"]);
            assert_eq!(l["physicalLocation"]["artifactLocation"]["uri"], "tests/c/iriw.c");
        }
        assert!(r["message"]["text"].as_str().unwrap().contains(c["name"].as_str().unwrap()));
    }
}

/// Applies a result's replacements (SARIF regions: 1-based lines and columns, end column
/// exclusive) to the text.
fn apply(text: &str, fixes: &[&Value]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut reps: Vec<(usize, usize, usize, String)> = fixes
        .iter()
        .flat_map(|f| f["artifactChanges"][0]["replacements"].as_array().unwrap().iter())
        .map(|r| {
            let d = &r["deletedRegion"];
            assert_eq!(d["startLine"], d["endLine"]);
            let u = |k: &str| d[k].as_u64().unwrap() as usize;
            (u("startLine"), u("startColumn"), u("endColumn"), r["insertedContent"]["text"].as_str().unwrap().to_string())
        })
        .collect();
    // from the end, so earlier positions stay valid
    reps.sort_by(|a, b| (b.0, b.1).cmp(&(a.0, a.1)));
    for (line, c0, c1, ins) in reps {
        let l = &mut lines[line - 1];
        l.replace_range(c0 - 1..c1 - 1, &ins);
        let split: Vec<String> = l.split('\n').map(str::to_string).collect();
        lines.splice(line - 1..line, split);
    }
    lines.join("\n") + "\n"
}

#[test]
fn fence_and_order_placements_carry_fixes_that_repair_the_program() {
    let (code, log) = weakc(&["fences", "--mm", "power", "--format", "sarif", "examples/c11/mp_relaxed.c"]);
    assert_eq!(code, 0);
    validate(&log);
    let rs = results(&log);
    let kinds: Vec<&str> = rs.iter().map(|r| r["ruleId"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"weakc/fence") && kinds.contains(&"weakc/order"), "{kinds:?}");
    for r in rs {
        rule_of(&log, r);
        assert_eq!(r["fixes"][0]["artifactChanges"][0]["artifactLocation"]["uri"], "examples/c11/mp_relaxed.c");
    }
    // the fixes, applied, give a program with no critical cycle left on power
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/c11/mp_relaxed.c")).unwrap();
    let fixed = apply(&src, &rs.iter().map(|r| &r["fixes"][0]).collect::<Vec<_>>());
    assert!(fixed.contains("memory_order_acquire") && fixed.contains("lwsync"), "{fixed}");
    let dir = std::env::temp_dir().join(format!("weakc-sarif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mp_fixed.c");
    std::fs::write(&path, &fixed).unwrap();
    let (code, json) = weakc(&["cycles", "--mm", "power", "--format", "json", path.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0);
    assert_eq!(json["cycles"].as_array().unwrap().len(), 0, "{fixed}");
}

/// The check above can fail: a log with a level SARIF does not define, or a result without
/// its message, is rejected.
#[test]
fn the_schema_check_rejects_what_sarif_forbids() {
    let (_, log) = weakc(&["verify", "--mm", "tso", "--format", "sarif", "tests/c/sb.c"]);
    for broken in [
        |l: &mut Value| l["runs"][0]["results"][0]["level"] = Value::from("fatal"),
        |l: &mut Value| {
            l["runs"][0]["results"][0].as_object_mut().unwrap().remove("message");
        },
        |l: &mut Value| l["version"] = Value::from("2.0.0"),
    ] {
        let mut l = log.clone();
        broken(&mut l);
        assert!(std::panic::catch_unwind(|| validate(&l)).is_err());
    }
}

#[test]
fn an_undecided_program_is_an_open_result_with_its_reason() {
    let (code, log) = weakc(&["verify", "--mm", "tso", "--timeout", "0", "--format", "sarif", "tests/c/sb.c"]);
    assert_eq!(code, 5);
    validate(&log);
    let rs = results(&log);
    assert_eq!(rs.len(), 1);
    assert_eq!(rs[0]["ruleId"], "weakc/undecided");
    assert_eq!((rs[0]["kind"].as_str(), rs[0]["level"].as_str()), (Some("open"), Some("none")));
    assert!(rs[0]["message"]["text"].as_str().unwrap().contains("time limit"), "{}", rs[0]["message"]);
    rule_of(&log, &rs[0]);
}

#[test]
fn linked_units_are_located_in_their_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("lib.c"), "int x, y;\nint left(void) { x = 1; return y; }\nint right(void) { y = 1; return x; }\n").unwrap();
    std::fs::write(
        p.join("main.c"),
        "#include <pthread.h>\n#include <assert.h>\nint left(void); int right(void);\nint r0, r1;\n\
         void *t0(void *a) { r0 = left(); return 0; }\nvoid *t1(void *a) { r1 = right(); return 0; }\n\
         int main(void) { pthread_t a, b; pthread_create(&a, 0, t0, 0); pthread_create(&b, 0, t1, 0);\n\
         pthread_join(a, 0); pthread_join(b, 0); assert(!(r0 == 0 && r1 == 0)); return 0; }\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(["cycles", "--mm", "tso", "--format", "sarif", "main.c", "lib.c"]).current_dir(p).output().unwrap();
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    validate(&log);
    let uris: Vec<&str> = results(&log)[0]["locations"].as_array().unwrap().iter().map(|l| l["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap()).collect();
    assert!(!uris.is_empty() && uris.iter().all(|u| *u == "lib.c"), "{uris:?}");
}
