//! A counterexample's execution graph as Graphviz: one cluster per thread with its
//! shared-memory events in program order, and the `po`, `rf`, `co` and `fr` edges of the
//! model. Accesses to the instrumentation's own objects (buffers, read sets, thread ids)
//! are left out; accesses to user objects made by its helpers (a buffer flush reaching
//! memory, a read served from memory) are kept, at the line of the user statement that
//! called the helper and marked as such.

use crate::bmc::ExecGraph;
use crate::source::SourceMap;
use std::collections::BTreeMap;
use std::fmt::Write;

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn dot(g: &ExecGraph, map: &SourceMap) -> String {
    let visible: Vec<bool> = g.events.iter().map(|e| !crate::trace::internal(&e.object)).collect();
    let mut s = String::from("digraph execution {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n  edge [fontname=\"monospace\"];\n");
    let mut threads: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    // Thread order: by first appearance, main first (BTreeMap sorts names; keep a list).
    let mut order: Vec<&str> = vec![];
    for (i, e) in g.events.iter().enumerate() {
        if !visible[i] {
            continue;
        }
        if !threads.contains_key(e.thread.as_str()) {
            order.push(&e.thread);
        }
        threads.entry(&e.thread).or_default().push(i);
    }
    if g.rf.iter().any(|(w, r)| w.is_none() && visible[*r]) {
        s.push_str("  init [label=\"initial values\", shape=ellipse];\n");
    }
    for (k, t) in order.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_{k} {{\n    label=\"{}\";", esc(t));
        for &i in &threads[t] {
            let e = &g.events[i];
            let at = if e.loc.line > 0 { map.describe(e.loc) } else { "-".into() };
            let how = match (e.in_helper, e.write) {
                (true, true) => " (reaches memory)",
                (true, false) => " (from memory)",
                _ => "",
            };
            let _ = writeln!(
                s,
                "    e{i} [label=\"{} {} = {}{}\\n{}\"];",
                if e.write { "W" } else { "R" },
                esc(&e.object),
                esc(&e.value),
                how,
                esc(&at)
            );
        }
        s.push_str("  }\n");
        for w in threads[t].windows(2) {
            let _ = writeln!(s, "  e{} -> e{} [label=\"po\"];", w[0], w[1]);
        }
    }
    for (w, r) in &g.rf {
        if !visible[*r] {
            continue;
        }
        match w {
            Some(w) if visible[*w] => {
                let _ = writeln!(s, "  e{w} -> e{r} [label=\"rf\", color=red, fontcolor=red];");
            }
            None => {
                let _ = writeln!(s, "  init -> e{r} [label=\"rf\", color=red, fontcolor=red, style=dashed];");
            }
            _ => {}
        }
    }
    for (a, b) in &g.co {
        if visible[*a] && visible[*b] {
            let _ = writeln!(s, "  e{a} -> e{b} [label=\"co\", color=blue, fontcolor=blue];");
        }
    }
    for (a, b) in &g.fr {
        if visible[*a] && visible[*b] {
            let _ = writeln!(s, "  e{a} -> e{b} [label=\"fr\", color=darkorange, fontcolor=darkorange];");
        }
    }
    s.push_str("}\n");
    s
}
