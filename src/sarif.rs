//! SARIF 2.1.0 logs (`--format sarif`) for code-scanning tools and IDEs.
//!
//! Each log is built from the JSON report the command already prints (`verify --json`,
//! `cycles --format json`, `fences --format json`), so the two formats cannot drift apart:
//! a violation becomes a result with its counterexample as a `codeFlow` (one `threadFlow`
//! per thread, `executionOrder` giving the interleaving), each critical cycle a result at
//! its events, each fence placement or order strengthening a result with a `fix`. File names
//! become URIs relative to the working directory (`uriBaseId` `SRCROOT`, declared in
//! `originalUriBaseIds`); files outside it keep an absolute `file:` URI.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A kind of finding: one SARIF `reportingDescriptor` in the driver's `rules`.
struct Rule {
    id: &'static str,
    name: &'static str,
    short: &'static str,
    help: &'static str,
}

const VIOLATION: Rule = Rule {
    id: "weakc/violation",
    name: "PropertyViolation",
    short: "A property (assertion, unwinding assertion, error call) fails on the architecture",
    help: "weakc found an execution that the architecture allows and that violates this property; the code flow is that execution, thread by thread, in the order memory saw it. Add the fences `weakc fences` proposes (or strengthen the C11 orders) and verify again.",
};
const UNDECIDED: Rule = Rule {
    id: "weakc/undecided",
    name: "Undecided",
    short: "The program could not be decided within the bounds",
    help: "weakc could not decide the program (a time or memory limit, or a behaviour the engine over-approximates); the message gives the reason. Raise the limit named, or see the README's list of approximations.",
};
const CYCLE: Rule = Rule {
    id: "weakc/critical-cycle",
    name: "CriticalCycle",
    short: "A critical cycle: these accesses may be observed out of program order on the architecture",
    help: "The accesses at these locations form a critical cycle (Shasha and Snir; ESOP 2013 §3) whose program-order pairs the architecture may relax: some thread may observe them in an order no interleaving gives. Whether that breaks the program is for `weakc verify` to say; `weakc fences` finds the cheapest fences that forbid every such cycle.",
};
const FENCE: Rule = Rule {
    id: "weakc/fence",
    name: "MissingFence",
    short: "A fence is needed here",
    help: "Inserting this fence (the fix) breaks the critical cycles listed (or makes the properties hold, with --property) at the lowest total cost of the architecture's barriers.",
};
const ORDER: Rule = Rule {
    id: "weakc/order",
    name: "WeakMemoryOrder",
    short: "A stronger C11 memory order is needed here",
    help: "Strengthening this atomic operation's memory order (the fix) breaks the critical cycles listed (or makes the properties hold, with --property) at a lower cost than a fence.",
};

/// The log of one run of `command` whose report is `report`.
fn log(command: &str, rules: &[&Rule], results: Vec<Value>, properties: Value, notifications: Vec<Value>, base: &Base) -> Value {
    let rules: Vec<Value> = rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": {"text": r.short},
                "fullDescription": {"text": r.help},
                "help": {"text": r.help},
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "weakc",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "originalUriBaseIds": {"SRCROOT": {"uri": base.root_uri()}},
            "invocations": [{
                "commandLine": std::env::args().collect::<Vec<_>>().join(" "),
                "arguments": std::env::args().skip(1).collect::<Vec<_>>(),
                "executionSuccessful": true,
                "toolExecutionNotifications": notifications,
                "properties": properties,
            }],
            "automationDetails": {"id": format!("weakc/{command}/")},
            "results": results,
        }],
    })
}

/// Where relative URIs start: the working directory.
pub struct Base {
    cwd: PathBuf,
}

impl Base {
    pub fn current() -> Base {
        Base { cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")) }
    }

    fn root_uri(&self) -> String {
        let mut s = file_uri(&self.cwd);
        if !s.ends_with('/') {
            s.push('/');
        }
        s
    }

    /// An `artifactLocation` for a file name as the reports print it.
    fn artifact(&self, file: &str) -> Value {
        let p = Path::new(file);
        let abs = if p.is_absolute() { p.to_path_buf() } else { self.cwd.join(p) };
        match abs.strip_prefix(&self.cwd) {
            Ok(rel) if !file.starts_with('<') => json!({"uri": encode(&rel.to_string_lossy()), "uriBaseId": "SRCROOT"}),
            _ if file.starts_with('<') => json!({"uri": encode(file.trim_matches(|c| c == '<' || c == '>'))}),
            _ => json!({"uri": file_uri(&abs)}),
        }
    }
}

fn file_uri(p: &Path) -> String {
    format!("file://{}", encode(&p.to_string_lossy()))
}

/// Percent-encodes what may not appear in a URI path (RFC 3986: unreserved characters, `/`
/// and the sub-delimiters stay).
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A `location` at a line (and 0-based column) of a file, with an optional message.
fn location(base: &Base, file: &str, line: u64, col: Option<u64>, message: Option<String>) -> Value {
    let mut region = json!({"startLine": line.max(1)});
    if let Some(c) = col {
        region["startColumn"] = json!(c + 1);
    }
    let mut l = json!({"physicalLocation": {"artifactLocation": base.artifact(file), "region": region}});
    if let Some(m) = message {
        l["message"] = json!({"text": m});
    }
    l
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

/// A trace step (`{"Write": {"object": "x", "value": "1"}}`, `{"Spawn": {"thread": "P0#1"}}`)
/// as a line of text.
fn step_text(step: &Value) -> String {
    match step {
        Value::Object(m) if m.len() == 1 => {
            let (k, v) = m.iter().next().expect("one entry");
            match v {
                Value::Object(f) => {
                    let fields: Vec<String> = f.iter().map(|(n, x)| format!("{n} {}", text(x))).collect();
                    format!("{k}: {}", fields.join(", "))
                }
                Value::Null => k.clone(),
                v => format!("{k}: {}", text(v)),
            }
        }
        v => text(v),
    }
}

/// `verify --json`'s report as SARIF: a violation with its counterexample, or an undecided
/// verdict with its reason; a safe program has no results (the verdict and bounds are in the
/// invocation's properties).
pub fn verify(report: &Value, base: &Base) -> Value {
    let file = text(&report["file"]);
    let arch = text(&report["arch"]);
    let mut results = vec![];
    match report["verdict"].as_str() {
        Some("unsafe") => {
            let f = &report["failed"];
            let ffile = f["file"].as_str().map_or(file.clone(), str::to_string);
            let line = f["line"].as_u64().unwrap_or(1);
            // one thread flow per thread, in the order threads first appear; executionOrder
            // numbers the steps across threads
            let mut flows: Vec<(String, Vec<Value>)> = vec![];
            for (i, st) in report["trace"].as_array().into_iter().flatten().enumerate() {
                let thread = text(&st["thread"]);
                let loc = location(base, st["file"].as_str().unwrap_or(&file), st["line"].as_u64().unwrap_or(1), None, Some(format!("{thread}: {}", step_text(&st["step"]))));
                let tfl = json!({"location": loc, "executionOrder": i + 1});
                match flows.iter_mut().find(|(t, _)| *t == thread) {
                    Some((_, v)) => v.push(tfl),
                    None => flows.push((thread, vec![tfl])),
                }
            }
            let mut r = json!({
                "ruleId": VIOLATION.id,
                "ruleIndex": 0,
                "kind": "fail",
                "level": "error",
                "message": {"text": format!(
                    "{} violated on {arch} ({}, unwind {}): {}",
                    text(&f["kind"]).to_lowercase(),
                    text(&report["engine"]),
                    text(&report["unwind"]),
                    text(&f["message"])
                )},
                "locations": [location(base, &ffile, line, None, None)],
            });
            if !flows.is_empty() {
                r["codeFlows"] = json!([{
                    "message": {"text": format!("an execution {arch} allows")},
                    "threadFlows": flows.into_iter().map(|(t, locs)| json!({"id": t, "message": {"text": format!("thread {t}")}, "locations": locs})).collect::<Vec<_>>(),
                }]);
            }
            results.push(r);
        }
        Some("unknown") => results.push(json!({
            "ruleId": UNDECIDED.id,
            "ruleIndex": 1,
            "kind": "open",
            "level": "none",
            "message": {"text": format!("undecided on {arch}: {}", report["reason"].as_str().unwrap_or("no reason given"))},
            "locations": [{"physicalLocation": {"artifactLocation": base.artifact(&file)}}],
        })),
        _ => {}
    }
    let props = json!({
        "verdict": report["verdict"],
        "arch": report["arch"],
        "engine": report["engine"],
        "backend": report["backend"],
        "unwind": report["unwind"],
        "unwinding_assertions": report["unwinding_assertions"],
        "complete": report["complete"],
        "buffer_size": report["buffer_size"],
    });
    log("verify", &[&VIOLATION, &UNDECIDED], results, props, vec![], base)
}

/// `cycles --format json`'s report as SARIF: one result per critical cycle, located at its
/// events; a search limit is a warning notification (the list may be incomplete).
pub fn cycles(report: &Value, base: &Base) -> Value {
    let arch = text(&report["arch"]);
    let results: Vec<Value> = report["cycles"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let events: Vec<&Value> = c["events"].as_array().into_iter().flatten().collect();
            let describe = |e: &Value| format!("{} {} {} ({}, line {})", text(&e["thread"]), text(&e["dir"]), text(&e["object"]), text(&e["file"]), text(&e["line"]));
            json!({
                "ruleId": CYCLE.id,
                "ruleIndex": 0,
                "kind": "fail",
                "level": "warning",
                "message": {"text": format!(
                    "critical cycle {} ({}) on {arch}: {}",
                    text(&c["name"]),
                    text(&c["diy"]),
                    events.iter().map(|e| describe(e)).collect::<Vec<_>>().join(" → ")
                )},
                "locations": events
                    .iter()
                    .map(|e| location(base, &text(&e["file"]), e["line"].as_u64().unwrap_or(1), None, Some(format!("{}: {} {}", text(&e["thread"]), text(&e["dir"]), text(&e["object"])))))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let notes = match report["limit_hit"].as_str() {
        Some(why) => vec![json!({"level": "warning", "message": {"text": why}})],
        None => vec![],
    };
    let props = json!({"arch": report["arch"], "events": report["events"], "sccs": report["sccs"], "complete": report["limit_hit"].is_null()});
    log("cycles", &[&CYCLE], results, props, notes, base)
}

/// `fences --format json`'s report as SARIF: one result per placement with its fix (the
/// fence line inserted, or the order token replaced); a placement that could not be verified
/// is a warning notification.
pub fn fences(report: &Value, base: &Base) -> Value {
    let file = text(&report["file"]);
    let arch = text(&report["arch"]);
    let results: Vec<Value> = report["placements"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            // (each placement is in its own translation unit)
            let file = p["file"].as_str().map_or_else(|| file.clone(), str::to_string);
            let line = p["line"].as_u64().unwrap_or(1).max(1);
            let col = p["col"].as_u64().unwrap_or(0);
            let cycles: Vec<String> = p["cycles"].as_array().into_iter().flatten().map(text).collect();
            let why = if cycles.is_empty() { String::new() } else { format!("; breaks {}", cycles.join(", ")) };
            let order = p["kind"].as_str() == Some("order");
            let (rule, idx, message, replacement) = if order {
                let from = text(&p["from"]);
                let to = text(&p["fence"]);
                // replace the order as written: the region is the old token
                let region = json!({"startLine": line, "startColumn": col + 1, "endLine": line, "endColumn": col + 1 + from.len() as u64});
                (&ORDER, 1, format!("strengthen {from} to {to} (cost {}) on {arch}{why}", text(&p["cost"])), json!({"deletedRegion": region, "insertedContent": {"text": to}}))
            } else {
                // insert a line of its own before line `line`: an empty region at its start
                let region = json!({"startLine": line, "startColumn": 1, "endLine": line, "endColumn": 1});
                (
                    &FENCE,
                    0,
                    format!("insert `{}` ({}, cost {}) in {} between lines {} and {} on {arch}{why}", text(&p["text"]), text(&p["fence"]), text(&p["cost"]), text(&p["function"]), text(&p["line_before"]), text(&p["line_after"])),
                    json!({"deletedRegion": region, "insertedContent": {"text": format!("{}\n", text(&p["text"]))}}),
                )
            };
            json!({
                "ruleId": rule.id,
                "ruleIndex": idx,
                "kind": "fail",
                "level": "warning",
                "message": {"text": message},
                "locations": [location(base, &file, line, Some(if order { col } else { 0 }), None)],
                "fixes": [{
                    "description": {"text": message},
                    "artifactChanges": [{"artifactLocation": base.artifact(&file), "replacements": [replacement]}],
                }],
            })
        })
        .collect();
    let notes = match report["status"].as_str() {
        Some("verified") | None => vec![],
        Some(s) => vec![json!({"level": "warning", "message": {"text": format!("{s}: {}", text(&report["verification"]))}})],
    };
    let props = json!({
        "arch": report["arch"],
        "mode": report["mode"],
        "total_cost": report["total_cost"],
        "optimal": report["optimal"],
        "status": report["status"],
    });
    log("fences", &[&FENCE, &ORDER], results, props, notes, base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_to_the_working_directory_and_encoded() {
        let b = Base { cwd: PathBuf::from("/home/u/proj") };
        assert_eq!(b.artifact("src/a b.c"), json!({"uri": "src/a%20b.c", "uriBaseId": "SRCROOT"}));
        assert_eq!(b.artifact("/home/u/proj/x.c"), json!({"uri": "x.c", "uriBaseId": "SRCROOT"}));
        assert_eq!(b.artifact("/usr/include/stdio.h"), json!({"uri": "file:///usr/include/stdio.h"}));
        assert_eq!(b.root_uri(), "file:///home/u/proj/");
    }

    #[test]
    fn steps_read_as_text() {
        assert_eq!(step_text(&json!({"Write": {"object": "x", "value": "1"}})), "Write: object x, value 1");
        assert_eq!(step_text(&json!({"Spawn": {"thread": "P0#1"}})), "Spawn: thread P0#1");
        assert_eq!(step_text(&json!("Flush")), "Flush");
    }
}
