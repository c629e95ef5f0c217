//! Presenting results: critical cycles as diagnostics, JSON and Graphviz; the instrument
//! summary.

use crate::aeg::{Aeg, Dir, EventId};
use crate::cycles::EdgeKind;
use crate::pipeline::{Analysis, Instrumented};
use crate::source::{render_labels, Loc, Severity, SourceMap};
use serde_json::{json, Value};
use std::fmt::Write;

fn event_json(aeg: &Aeg, map: &SourceMap, e: EventId) -> Value {
    let ev = aeg.event(e);
    json!({
        "id": e.0,
        "thread": aeg.thread(ev.thread).name,
        "dir": if ev.dir == Dir::W { "W" } else { "R" },
        "object": aeg.object(ev.obj).name,
        "file": map.name(ev.loc),
        "line": ev.loc.line,
    })
}

fn edge_name(k: &EdgeKind) -> &'static str {
    match k {
        EdgeKind::Po { .. } => "po",
        EdgeKind::Rfe => "rfe",
        EdgeKind::Fre => "fre",
        EdgeKind::Wse => "wse",
    }
}

pub fn cycles_json(file: &str, a: &Analysis, arch: &str) -> Value {
    let cycles: Vec<Value> = a
        .cycles
        .cycles
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "diy": c.diy,
                "events": c.events.iter().map(|e| event_json(&a.aeg, &a.map, *e)).collect::<Vec<_>>(),
                "edges": c.edges.iter().map(|e| json!({
                    "from": e.from.0, "to": e.to.0, "kind": edge_name(&e.kind), "safe": e.safe,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "file": file,
        "arch": arch,
        "threads": a.aeg.threads.iter().map(|t| json!({"name": t.name, "instances": match t.instances {
            crate::aeg::Instances::Count(n) => json!(n),
            crate::aeg::Instances::Unbounded => json!("unbounded"),
        }})).collect::<Vec<_>>(),
        "events": a.aeg.events.len(),
        "com_edges": a.aeg.com.len(),
        "sccs": a.cycles.sccs,
        "cycles": cycles,
        "limit_hit": a.cycles.limit_hit,
    })
}

/// One diagnostic per cycle, with a label on the source of each event.
/// `cycles --quiet`: one line per critical cycle, at its first event
/// (`FILE:LINE: critical cycle NAME (DIY) on ARCH: EVENTS`), and the search's limit if hit.
pub fn cycles_lines(a: &Analysis, arch: &str) -> String {
    let mut out = String::new();
    for c in &a.cycles.cycles {
        let at = c.edges.first().map(|e| a.map.describe(a.aeg.event(e.from).loc)).unwrap_or_default();
        let events = c.describe(&a.aeg);
        let events = events.strip_prefix(&format!("{}: ", c.name)).unwrap_or(&events);
        let _ = writeln!(out, "{at}: critical cycle {} ({}) on {arch}: {events}", c.name, c.diy);
    }
    if let Some(l) = &a.cycles.limit_hit {
        let _ = writeln!(out, "warning: cycle search stopped early, the list is incomplete: {l}");
    }
    out
}

pub fn cycles_text(file: &str, a: &Analysis, arch: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{file}: {} critical cycle(s) for {arch} ({} threads, {} events, {} com edges, {} SCCs)",
        a.cycles.cycles.len(),
        a.aeg.threads.len(),
        a.aeg.events.len(),
        a.aeg.com.len(),
        a.cycles.sccs
    );
    for (i, c) in a.cycles.cycles.iter().enumerate() {
        let labels: Vec<(Loc, String)> = c
            .edges
            .iter()
            .map(|e| {
                let ev = a.aeg.event(e.from);
                let rel = match &e.kind {
                    EdgeKind::Po { .. } => "then, in program order".to_string(),
                    k => format!("{} to the next event", edge_name(k)),
                };
                let unsafe_mark = if e.safe { "" } else { " (relaxed)" };
                (
                    ev.loc,
                    format!(
                        "{}: {} {}; {rel}{unsafe_mark}",
                        a.aeg.thread(ev.thread).name,
                        if ev.dir == Dir::W { "write" } else { "read" },
                        a.aeg.object(ev.obj).name
                    ),
                )
            })
            .collect();
        let msg = format!("cycle {}: {} ({})", i + 1, c.name, c.diy);
        out.push_str(&render_labels(&a.map, Severity::Note, &msg, &labels, &[c.describe(&a.aeg)]));
    }
    if let Some(l) = &a.cycles.limit_hit {
        let _ = writeln!(out, "warning: cycle search stopped early: {l}");
        let _ = writeln!(out, "warning: the cycle list is incomplete: instrumentation based on it may miss weak behaviours");
    }
    for (loc, n) in &a.aeg.notes {
        out.push_str(&render_labels(&a.map, Severity::Warning, n, &[(*loc, String::new())], &[]));
    }
    out
}

/// The event graph in Graphviz: threads as clusters, po solid, com dashed, cycle edges red.
pub fn dot(a: &Analysis) -> String {
    let aeg = &a.aeg;
    let mut on_cycle = std::collections::HashSet::new();
    for c in &a.cycles.cycles {
        for e in &c.edges {
            on_cycle.insert((e.from, e.to));
        }
    }
    let mut s = String::from("digraph aeg {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
    for (t, th) in aeg.threads.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_{t} {{\n    label=\"{}\";", th.name);
        for (i, e) in aeg.events.iter().enumerate() {
            if e.thread.0 as usize == t {
                let _ = writeln!(
                    s,
                    "    e{i} [label=\"{}{} @{}\"];",
                    e.dir.letter(),
                    aeg.object(e.obj).name.replace('"', "\\\""),
                    e.loc.line
                );
            }
        }
        s.push_str("  }\n");
    }
    for &(a1, b) in &aeg.po {
        let red = if on_cycle.contains(&(a1, b)) { ", color=red, penwidth=2" } else { "" };
        let _ = writeln!(s, "  e{} -> e{} [label=\"po\"{red}];", a1.0, b.0);
    }
    for &(a1, b) in &aeg.com {
        let red = if on_cycle.contains(&(a1, b)) || on_cycle.contains(&(b, a1)) { ", color=red, penwidth=2" } else { ", color=gray" };
        let _ = writeln!(s, "  e{} -> e{} [dir=none, style=dashed, label=\"com\"{red}];", a1.0, b.0);
    }
    for c in &a.cycles.cycles {
        for e in &c.edges {
            if let EdgeKind::Po { .. } = e.kind {
                if !aeg.po.contains(&(e.from, e.to)) {
                    let _ = writeln!(s, "  e{} -> e{} [style=dotted, color=red, label=\"po+\"];", e.from.0, e.to.0);
                }
            }
        }
    }
    s.push_str("}\n");
    s
}

/// How many of the instrumented program's approximations the text summary shows with their source.
const SHOWN_APPROXIMATIONS: usize = 5;

pub fn instrument_summary(file: &str, out: &str, a: &Analysis, arch: &str, strategy: &str, ins: &Instrumented) -> String {
    let mut s = String::new();
    let t = &a.timings;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let sel = &ins.selection;
    let sum = &ins.rewritten.summary;
    let _ = writeln!(s, "weakc instrument: {file} -> {out} (architecture {arch}, strategy {strategy})");
    let _ = writeln!(s, "  threads         {}", a.aeg.threads.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", "));
    let _ = writeln!(s, "  events          {} ({} com edges, {} po+ pairs)", a.aeg.events.len(), a.aeg.com.len(), a.aeg.pairs.len());
    let _ = writeln!(s, "  SCCs            {}", a.cycles.sccs);
    let _ = writeln!(s, "  critical cycles {}", a.cycles.cycles.len());
    let _ = writeln!(
        s,
        "  delay pairs     {} (cost {}{})",
        sel.pairs.len(),
        sel.total_cost,
        if sel.optimal { ", optimal" } else { ", not proven optimal" }
    );
    let _ = writeln!(s, "  delayed         {} write site(s), {} read site(s)", sum.delayed_writes, sum.delayed_reads);
    let bufs: Vec<String> = sum.buffers.iter().map(|(n, d)| format!("{n} (depth {d})")).collect();
    let _ = writeln!(s, "  buffered        {}", if bufs.is_empty() { "nothing".into() } else { bufs.join(", ") });
    let _ = writeln!(
        s,
        "  time (ms)       parse {:.1}, normalise {:.1}, event graph {:.1}, cycles {:.1}, selection {:.1}, emit {:.1}",
        ms(t.parse),
        ms(t.normalize),
        ms(t.event_graph),
        ms(t.cycles),
        ms(t.selection),
        ms(t.emit)
    );
    if let Some(n) = &sel.note {
        let _ = writeln!(s, "{}: {n}", if ins.fallback { "warning" } else { "  note" });
    }
    if let (Some(l), false) = (&a.cycles.limit_hit, ins.fallback) {
        let _ = writeln!(s, "warning: cycle search stopped early: {l}");
        let _ = writeln!(s, "warning: instrumentation may be UNSOUND (weak behaviours of unlisted cycles are not simulated)");
    }
    for (loc, n) in &sum.notes {
        s.push_str(&render_labels(&a.map, Severity::Warning, n, &[(*loc, String::new())], &[]));
    }
    // (what `verify` turns a safe verdict into UNKNOWN for). A program delayed wholesale
    // can have hundreds of such places: the first few show the kind, the JSON has them all.
    for (loc, n) in sum.approximations.iter().take(SHOWN_APPROXIMATIONS) {
        let msg = format!("the instrumented program may lack behaviours of the architecture: {n}");
        s.push_str(&render_labels(&a.map, Severity::Warning, &msg, &[(*loc, String::new())], &[]));
    }
    let more = sum.approximations.len().saturating_sub(SHOWN_APPROXIMATIONS);
    if more > 0 {
        let _ = writeln!(
            s,
            "warning: ... and {more} more place{} where the instrumented program may lack behaviours of the architecture (all of them: --format json, `summary.approximations`)",
            if more == 1 { "" } else { "s" }
        );
    }
    s
}
