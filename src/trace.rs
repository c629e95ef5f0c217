//! Counterexamples in the user's terms: the verifier's steps with the instrumentation's
//! machinery (buffers, read sets, thread ids) hidden and its helper calls said as the
//! weak-memory events they stand for.

use crate::bmc::{Outcome, Step, StepKind};
use crate::source::SourceMap;
use serde_json::{json, Value};

/// Objects and variables that belong to the instrumentation, not to the user's program.
pub fn internal(name: &str) -> bool {
    name.contains("$g") || name.contains("$rs") || name.contains("__weakc")
}

/// What a call to a generated helper means, when it is one (`x$g0_delay` → "write … delayed").
fn helper_meaning(function: &str) -> Option<(String, &'static str)> {
    let (base, rule) = function.rsplit_once('_')?;
    let object = base.split("$g").next()?.to_string();
    if !base.contains("$g") && !function.starts_with("__weakc_") {
        return None;
    }
    let what = match rule {
        "delay" | "hold" => "write delayed in the store buffer",
        "write" => "write to memory",
        "read" | "held" => "read (from memory, or forwarded from a buffer)",
        "some" => "buffer may be flushed",
        "own" => "own buffered writes flushed (fence or thread end)",
        "lw" => "writes before the lightweight fence flushed",
        _ => return None,
    };
    Some((object, what))
}

/// A helper call being folded into one line: its rule, its `p`/`v` arguments, what it did.
struct Pending {
    rule: &'static str,
    thread: String,
    at: String,
    addr: Option<String>,
    value: Option<String>,
    read: Option<String>,
    flushed: Vec<String>,
}

impl Pending {
    fn finish(self, out: &mut Vec<String>) {
        let target = self.addr.as_deref().map(|a| a.trim_start_matches('&').to_string()).unwrap_or_else(|| "?".into());
        let v = self.value.unwrap_or_else(|| "?".into());
        let text = match self.rule {
            "delay" => Some(format!("write {target} = {v}: delayed in the store buffer")),
            "write" => Some(format!("write {target} = {v}")),
            "read" => Some(format!("read {target} = {}", self.read.unwrap_or_else(|| "?".into()))),
            _ => None,
        };
        let line = |t: &str| format!("{:<10} {:<28} {t}", self.thread, self.at);
        for f in &self.flushed {
            out.push(line(&format!("a buffered write (value {f}) reaches memory")));
        }
        if let Some(t) = text {
            out.push(line(&t));
        }
    }
}

/// One line per user-visible step.
pub fn render(outcome: &Outcome, map: &SourceMap) -> Vec<String> {
    let mut out = vec![];
    let mut pending: Option<Pending> = None;
    for s in &outcome.trace {
        let at = if s.loc.line > 0 { map.describe(s.loc) } else { "-".into() };
        let same_thread = pending.as_ref().is_some_and(|p| p.thread == s.thread);
        if same_thread {
            let p = pending.as_mut().expect("checked");
            match &s.kind {
                StepKind::Assign { lhs, value } if s.loc.line > 0 && matches!(lhs.as_str(), "p" | "v" | "me" | "s" | "mask" | "tag") => {
                    match lhs.as_str() {
                        "p" => p.addr = Some(value.clone()),
                        "v" => p.value = Some(value.clone()),
                        _ => {}
                    }
                    continue;
                }
                StepKind::Call { function } if s.loc.line == 0 && helper_meaning(function).is_some() => continue,
                _ if s.loc.line == 0 => {
                    match &s.kind {
                        // The read helper's result: the last value of its local `v`.
                        StepKind::Assign { lhs, value } if p.rule == "read" && lhs == "v" => p.read = Some(value.clone()),
                        StepKind::Write { object, value } if object.starts_with('*') && object.contains("_addr[") => p.flushed.push(value.clone()),
                        _ => {}
                    }
                    continue;
                }
                _ => {}
            }
        }
        if let StepKind::Call { function } = &s.kind {
            if let Some(rule) = function.rsplit_once('_').map(|(_, r)| r).filter(|_| helper_meaning(function).is_some()) {
                if let Some(p) = pending.take() {
                    p.finish(&mut out);
                }
                let rule = match rule {
                    "delay" | "hold" => "delay",
                    "write" => "write",
                    "read" | "held" => "read",
                    _ => "flush",
                };
                pending = Some(Pending { rule, thread: s.thread.clone(), at, addr: None, value: None, read: None, flushed: vec![] });
                continue;
            }
        }
        if let Some(p) = pending.take() {
            p.finish(&mut out);
        }
        if let Some(line) = render_step(s, map) {
            out.push(line);
        }
    }
    if let Some(p) = pending.take() {
        p.finish(&mut out);
    }
    out
}

fn render_step(s: &Step, map: &SourceMap) -> Option<String> {
    let at = if s.loc.line > 0 { map.describe(s.loc) } else { "-".into() };
    let text = match &s.kind {
        StepKind::Assign { lhs, value } if !internal(lhs) && s.loc.line > 0 => format!("{lhs} = {value}"),
        StepKind::Read { object, value } if !internal(object) && s.loc.line > 0 => format!("read {object} = {value}"),
        StepKind::Write { object, value } if !internal(object) && s.loc.line > 0 => format!("write {object} = {value}"),
        StepKind::BufferedWrite { object, value } if !internal(object) && s.loc.line > 0 => {
            format!("write {object} = {value}: reaches memory now, after later accesses of its thread (store buffer)")
        }
        StepKind::Delayed { object, value } if s.loc.line > 0 => format!("write {object} = {value}: delayed in the store buffer"),
        StepKind::Flushed { object, value } if s.loc.line > 0 => format!("a buffered write {object} = {value} reaches memory"),
        StepKind::Spawn { thread } => format!("start thread {thread}"),
        StepKind::Join { thread } => format!("join thread {thread}"),
        StepKind::Lock => "lock".into(),
        StepKind::Unlock => "unlock".into(),
        StepKind::Failure { message } => format!("property violated: {message}"),
        _ => return None,
    };
    Some(format!("{:<10} {:<28} {text}", s.thread, at))
}

pub fn json(outcome: &Outcome, map: &SourceMap) -> Value {
    let steps: Vec<Value> = outcome
        .trace
        .iter()
        .filter_map(|s| {
            render_step(s, map)?;
            Some(json!({"thread": s.thread, "file": map.name(s.loc), "line": s.loc.line, "step": s.kind}))
        })
        .collect();
    Value::Array(steps)
}
