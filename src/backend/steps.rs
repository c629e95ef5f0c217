//! An external verifier's counterexample told in the user's terms: the steps inside the
//! instrumentation's helpers (buffer slots, thread ids, return-value temporaries, parameter
//! passing) become the weak-memory events they stand for (a write delayed in the store
//! buffer, a buffered write reaching memory, a write or read of memory), and the verifiers'
//! own library code (`/esbmc-vfs/…`, `pthread_trampoline`, `<builtin-library-…>`) is dropped.
//!
//! Both verifiers' shapes are read: CBMC reports a call to a helper as a call step followed
//! by its parameters (at the call site); ESBMC reports neither, only assignments, each with
//! the function it is in. The helpers name their object in a local (`__weakc_target`, see
//! `rewrite::buffers`) and the delay stores it in the buffer slot (`…_addr[i] = &x`), so
//! the object of every event can be named.

use super::report::{ExtLoc, ExtStep, ExtStepKind};
use super::INPUT_NAME;
use crate::bmc::StepKind;
use std::collections::HashMap;

/// A step of the reduced trace: the external thread number, where (a user location, or
/// none for the verifiers' own code), and what, in the built-in engine's terms.
#[derive(Clone, Debug)]
pub struct UserStep {
    pub thread: u32,
    pub loc: Option<ExtLoc>,
    pub kind: StepKind,
}

/// The verifiers' own code: their C library models and thread start-up.
pub fn is_library(l: &ExtLoc) -> bool {
    l.file.starts_with('<') || l.file.starts_with("/esbmc-vfs/") || l.function == "pthread_trampoline" || l.function.starts_with("__CPROVER_") || l.function.starts_with("__ESBMC_")
}

/// Code weakc generated: the `#line` of the instrumented program names it `INPUT_NAME`
/// (and `weakc.h`'s macros); its helpers are `OBJ__gK_RULE` or `__weakc_…`.
pub fn is_generated(l: &ExtLoc) -> bool {
    l.file == INPUT_NAME || l.file.ends_with("weakc.h") || helper_rule(&l.function).is_some()
}

/// What a helper does, from its printed name: `delay`, `write`, `read` or `flush`.
fn helper_rule(function: &str) -> Option<&'static str> {
    if !function.starts_with("__weakc_") && !buffer_name(function) {
        return None;
    }
    let rule = if function.ends_with("_delay") || function.ends_with("_hold") {
        "delay"
    } else if function.ends_with("_write") {
        "write"
    } else if function.contains("_read") {
        "read"
    } else {
        "flush"
    };
    Some(rule)
}

/// `OBJ__gK_…`: a name the rewriter gave a buffer group's variable or helper (printed with
/// `$` as `__`).
fn buffer_name(name: &str) -> bool {
    name.split("__g").skip(1).any(|t| t.starts_with(|c: char| c.is_ascii_digit()))
}

/// Names of the instrumentation's variables and of the verifiers' temporaries
/// (`goto_symex$$return_value$$f`).
fn internal(name: &str) -> bool {
    name.contains("__weakc") || name.contains("$$") || buffer_name(name)
}

/// `&x` → `x`; anything else as it is.
fn object_of(value: &str) -> String {
    value.trim().trim_start_matches('&').to_string()
}

/// `X_addr[i]` (or `*X_addr[i]` with `deref`) → `(X, i)`.
fn slot(lhs: &str, deref: bool) -> Option<(String, String)> {
    let l = match (deref, lhs.strip_prefix('*')) {
        (true, l) => l?,
        (false, None) => lhs,
        (false, Some(_)) => return None,
    };
    let (base, rest) = l.split_once("_addr[")?;
    let idx = rest.strip_suffix(']')?;
    Some((base.to_string(), idx.to_string()))
}

/// A helper call being read: its rule, where it was called from, and what it showed.
struct Open {
    rule: &'static str,
    /// The helper that started it (CBMC: the one called; ESBMC: the one of its first step).
    function: String,
    /// The last line seen in each helper of this call.
    lines: HashMap<String, u32>,
    loc: Option<ExtLoc>,
    target: Option<String>,
    value: Option<String>,
    read: Option<String>,
    /// CBMC's parameters come right after the call step, at the call site.
    params: bool,
}

impl Open {
    fn close(self, thread: u32, out: &mut Vec<UserStep>) {
        let object = self.target.unwrap_or_else(|| "?".into());
        let kind = match self.rule {
            "delay" => StepKind::Delayed { object, value: self.value.unwrap_or_else(|| "?".into()) },
            "write" => StepKind::Write { object, value: self.value.unwrap_or_else(|| "?".into()) },
            "read" => StepKind::Read { object, value: self.read.unwrap_or_else(|| "?".into()) },
            _ => return,
        };
        out.push(UserStep { thread, loc: self.loc, kind });
    }
}

/// The user-level steps of `trace`.
pub fn reduce(trace: &[ExtStep]) -> Vec<UserStep> {
    let mut out = vec![];
    let mut open: HashMap<u32, Open> = HashMap::new();
    let mut last_user: HashMap<u32, ExtLoc> = HashMap::new();
    // Buffer slot → the object and value of the write it holds.
    let mut slots: HashMap<(String, String), (String, String)> = HashMap::new();
    for s in trace {
        let t = s.thread;
        let generated = is_generated(&s.loc);
        // Helpers run atomically: another thread's step ends every other open call.
        let others: Vec<u32> = open.keys().copied().filter(|&k| k != t).collect();
        for k in others {
            if let Some(o) = open.remove(&k) {
                o.close(k, &mut out);
            }
        }
        // A call to a helper (CBMC): a new event, or a nested helper of the open one (a
        // write that decides to delay calls `delay`).
        if let ExtStepKind::Call { function } = &s.kind {
            if let Some(rule) = helper_rule(function) {
                match open.get_mut(&t) {
                    Some(o) if generated => {
                        if o.rule == "write" && rule == "delay" {
                            o.rule = "delay";
                        }
                    }
                    _ => {
                        if let Some(o) = open.remove(&t) {
                            o.close(t, &mut out);
                        }
                        let loc = if is_library(&s.loc) || generated { last_user.get(&t).cloned() } else { Some(s.loc.clone()) };
                        open.insert(t, Open { rule, function: function.clone(), lines: HashMap::new(), loc, target: None, value: None, read: None, params: true });
                    }
                }
                continue;
            }
        }
        // Inside a helper. ESBMC shows no call: a step in another helper than the open
        // one's, or back at or before a line the open helper already passed (helpers have no
        // loops), starts a new event; a delay or flush helper called from the open one (a
        // write queued behind earlier ones, a flush before a write) does not.
        if generated {
            let rule = helper_rule(&s.loc.function);
            let new_call = match (open.get(&t), rule) {
                (None, _) => true,
                (Some(o), r) => match o.lines.get(&s.loc.function) {
                    Some(&l) => s.loc.line <= l,
                    None if o.function == s.loc.function || o.params => false,
                    None => {
                        let outer = helper_rule(&o.function).unwrap_or("flush");
                        let nested = (outer == "write" && r == Some("delay")) || (r == Some("flush") && outer != "flush");
                        !nested
                    }
                },
            };
            if new_call {
                if let Some(o) = open.remove(&t) {
                    o.close(t, &mut out);
                }
                open.insert(
                    t,
                    Open {
                        rule: rule.unwrap_or("flush"),
                        function: s.loc.function.clone(),
                        lines: HashMap::new(),
                        loc: last_user.get(&t).cloned(),
                        target: None,
                        value: None,
                        read: None,
                        params: false,
                    },
                );
            }
            let o = open.get_mut(&t).expect("opened above");
            o.params = false;
            o.lines.insert(s.loc.function.clone(), s.loc.line);
            if o.rule == "write" && rule == Some("delay") {
                o.rule = "delay";
            }
            if let ExtStepKind::Assign { lhs, value } = &s.kind {
                if lhs == "__weakc_target" {
                    // Its declaration shows as an assignment too.
                    if value.trim_start().starts_with('&') {
                        o.target = Some(object_of(value));
                    }
                } else if let Some(k) = slot(lhs, false) {
                    o.target.get_or_insert_with(|| object_of(value));
                    slots.insert(k, (object_of(value), String::new()));
                } else if let Some(k) = slot(lhs, true) {
                    // The value the slot was given: ESBMC 8.4 prints another value for the
                    // assignment through the slot's pointer.
                    let (object, v) = slots.get(&k).cloned().unwrap_or_else(|| ("?".into(), String::new()));
                    let value = if v.is_empty() { value.clone() } else { v };
                    out.push(UserStep { thread: t, loc: o.loc.clone(), kind: StepKind::Flushed { object, value } });
                } else if let Some(k) = lhs.split_once("_val[").and_then(|(b, i)| Some((b.to_string(), i.strip_suffix(']')?.to_string()))) {
                    o.value = Some(value.clone());
                    if let Some(e) = slots.get_mut(&k) {
                        e.1 = value.clone();
                    }
                } else if lhs == "v" && o.rule == "read" {
                    o.read = Some(value.clone());
                } else if lhs.starts_with('*') && o.rule == "write" {
                    o.value = Some(value.clone());
                }
            }
            continue;
        }
        // CBMC's parameters of the call just made.
        if let (Some(o), ExtStepKind::Assign { lhs, value }) = (open.get_mut(&t), &s.kind) {
            if o.params && matches!(lhs.as_str(), "p" | "v" | "me" | "s" | "tag" | "pass") {
                match lhs.as_str() {
                    "p" => o.target = Some(object_of(value)),
                    "v" if o.rule != "read" => o.value = Some(value.clone()),
                    _ => {}
                }
                continue;
            }
        }
        if let Some(o) = open.remove(&t) {
            o.close(t, &mut out);
        }
        if is_library(&s.loc) {
            // The failure itself is kept wherever it is reported.
            if let ExtStepKind::Failure { message } = &s.kind {
                out.push(UserStep { thread: t, loc: None, kind: StepKind::Failure { message: message.clone() } });
            }
            continue;
        }
        last_user.insert(t, s.loc.clone());
        let kind = match &s.kind {
            ExtStepKind::Assign { lhs, .. } if internal(lhs) => continue,
            ExtStepKind::Assign { lhs, value } => StepKind::Assign { lhs: lhs.clone(), value: value.clone() },
            ExtStepKind::Call { function } => StepKind::Call { function: function.clone() },
            ExtStepKind::Failure { message } => StepKind::Failure { message: message.clone() },
        };
        out.push(UserStep { thread: t, loc: Some(s.loc.clone()), kind });
    }
    let mut rest: Vec<(u32, Open)> = open.into_iter().collect();
    rest.sort_by_key(|(t, _)| *t);
    for (t, o) in rest {
        o.close(t, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(file: &str, line: u32, function: &str) -> ExtLoc {
        ExtLoc { file: file.into(), line, function: function.into() }
    }

    fn assign(thread: u32, loc: ExtLoc, lhs: &str, value: &str) -> ExtStep {
        ExtStep { thread, loc, kind: ExtStepKind::Assign { lhs: lhs.into(), value: value.into() } }
    }

    fn call(thread: u32, loc: ExtLoc, function: &str) -> ExtStep {
        ExtStep { thread, loc, kind: ExtStepKind::Call { function: function.into() } }
    }

    /// CBMC's shape: a call step, the parameters at the call site, the helper's body in the
    /// generated file; a write that queues behind the thread's earlier entries is a delay.
    #[test]
    fn cbmc_calls_become_user_steps() {
        let user = || at("mp.c", 6, "writer");
        let gen = |line: u32, f: &str| at(INPUT_NAME, line, f);
        let trace = vec![
            call(1, user(), "data__g0_delay"),
            assign(1, user(), "p", "&data"),
            assign(1, user(), "v", "1"),
            assign(1, user(), "me", "1"),
            assign(1, gen(300, "data__g0_delay"), "data__g0_addr[0]", "&data"),
            assign(1, gen(301, "data__g0_delay"), "data__g0_val[0]", "1"),
            call(1, user(), "flag__g1_write"),
            assign(1, user(), "p", "&flag"),
            assign(1, user(), "v", "1"),
            assign(1, gen(320, "flag__g1_write"), "__weakc_target", "&flag"),
            assign(1, gen(321, "flag__g1_write"), "*p", "1"),
            assign(1, at("mp.c", 6, "writer"), "goto_symex$$return_value$$f", "0"),
            call(2, at("mp.c", 7, "reader"), "data__g0_read"),
            assign(2, at("mp.c", 7, "reader"), "p", "&data"),
            assign(2, gen(290, "data__g0_read"), "v", "0"),
            assign(2, at("mp.c", 7, "reader"), "r1", "0"),
            call(1, at("mp.c", 6, "writer"), "__weakc_flush_all_own"),
            assign(1, gen(240, "data__g0_flush_own"), "*data__g0_addr[0]", "7"),
        ];
        let kinds: Vec<(u32, Option<u32>, StepKind)> = reduce(&trace).into_iter().map(|s| (s.thread, s.loc.map(|l| l.line), s.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (1, Some(6), StepKind::Delayed { object: "data".into(), value: "1".into() }),
                (1, Some(6), StepKind::Write { object: "flag".into(), value: "1".into() }),
                (2, Some(7), StepKind::Read { object: "data".into(), value: "0".into() }),
                (2, Some(7), StepKind::Assign { lhs: "r1".into(), value: "0".into() }),
                // the slot's own value, not the one printed for the store through its pointer
                (1, Some(6), StepKind::Flushed { object: "data".into(), value: "1".into() }),
            ]
        );
    }

    /// ESBMC's shape: no call steps, no parameters; declarations show as assignments; two
    /// reads in a row are told apart by the helper's lines starting again.
    #[test]
    fn esbmc_helper_steps_become_user_steps() {
        let user = || at("sb.c", 7, "P1");
        let gen = |line: u32| at(INPUT_NAME, line, "store_buffer__g0_read");
        let trace = vec![
            assign(2, user(), "__weakc_me", "1"),
            assign(2, gen(294), "v", "0"),
            assign(2, gen(295), "__weakc_target", "0"),
            assign(2, gen(296), "__weakc_target", "&x"),
            assign(2, gen(297), "v", "5"),
            assign(2, gen(294), "v", "0"),
            assign(2, gen(295), "__weakc_target", "0"),
            assign(2, gen(296), "__weakc_target", "&y"),
            assign(2, gen(297), "v", "6"),
            assign(2, at("/esbmc-vfs/libc/library/pthread_lib.c", 230, "pthread_trampoline"), "exit_val", "0"),
        ];
        let kinds: Vec<StepKind> = reduce(&trace).into_iter().map(|s| s.kind).collect();
        assert_eq!(kinds, vec![StepKind::Read { object: "x".into(), value: "5".into() }, StepKind::Read { object: "y".into(), value: "6".into() }]);
    }
}
