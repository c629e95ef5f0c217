//! A counterexample read back as a run of the protocol: its steps, its memory events, the
//! cycle the observer chose, and the run as a trace for `trace-check`.

use super::harness::{CmdKind, Shape, PREFIX};
use crate::bmc::{Step as BmcStep, StepKind};

/// One step of the run: a command with its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunStep {
    pub cmd: usize,
    pub args: Vec<i64>,
    /// The value a read returned.
    pub value: Option<i64>,
}

/// A memory event of the run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MemEvent {
    /// Index into the run's steps.
    pub step: usize,
    pub write: bool,
    pub proc: i64,
    pub loc: i64,
    pub value: i64,
}

/// The run and the observer's cycle: `cycle[i] = (a_i, b_i)`, indices into `events`.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub steps: Vec<RunStep>,
    pub events: Vec<MemEvent>,
    pub cycle: Vec<(usize, usize)>,
}

fn int(v: &str) -> Option<i64> {
    let t = v.split_whitespace().next()?;
    t.parse::<i64>().ok().or_else(|| t.parse::<u64>().ok().map(|u| u as i64))
}

/// Reads the run back from the harness's logging writes in `trace`.
pub fn decode(trace: &[BmcStep], shape: &Shape, k: usize) -> Run {
    let mut run = Run::default();
    let mut marks: Vec<(usize, usize)> = vec![];
    for st in trace {
        let StepKind::Write { object, value } = &st.kind else { continue };
        let Some(field) = object.strip_prefix(PREFIX) else { continue };
        let Some(v) = int(value) else { continue };
        match field {
            "cmd" => run.steps.push(RunStep { cmd: v as usize, args: vec![], value: None }),
            "arg0" | "arg1" | "arg2" => {
                if let Some(s) = run.steps.last_mut() {
                    s.args.push(v);
                }
            }
            "value" => {
                if let Some(s) = run.steps.last_mut() {
                    s.value = Some(v);
                }
            }
            "mark" if v > 0 && !run.steps.is_empty() => marks.push((run.steps.len() - 1, v as usize)),
            _ => {}
        }
    }
    for (i, s) in run.steps.iter().enumerate() {
        let Some(c) = shape.commands.get(s.cmd) else { continue };
        let ev = match (c.kind, s.args.as_slice(), s.value) {
            (CmdKind::Read, [p, l, ..], Some(v)) => MemEvent { step: i, write: false, proc: *p, loc: *l, value: v },
            (CmdKind::Write, [p, l, d, ..], _) => MemEvent { step: i, write: true, proc: *p, loc: *l, value: *d },
            _ => continue,
        };
        run.events.push(ev);
    }
    let ev_at = |step: usize| run.events.iter().position(|e| e.step == step);
    let mut a = vec![None; k];
    let mut b = vec![None; k];
    for (step, m) in marks {
        let i = (m - 1) / 2;
        if i < k {
            if m % 2 == 1 {
                a[i] = ev_at(step);
            } else {
                b[i] = ev_at(step);
            }
        }
    }
    run.cycle = a.iter().zip(&b).filter_map(|(x, y)| Some(((*x)?, (*y)?))).collect();
    if run.cycle.len() != k {
        run.cycle.clear();
    }
    run
}

impl Run {
    /// The step as the protocol's call: `write(p=0, l=1, d=1)`, `read(p=1, l=0) = 0`.
    pub fn describe(&self, shape: &Shape, i: usize) -> String {
        let s = &self.steps[i];
        let Some(c) = shape.commands.get(s.cmd) else { return format!("command #{}", s.cmd) };
        let args: Vec<String> = c.params.iter().zip(&s.args).map(|(p, v)| format!("{}={v}", p.name)).collect();
        let ret = s.value.map(|v| format!(" = {v}")).unwrap_or_default();
        format!("{}({}){ret}", c.name, args.join(", "))
    }

    /// A memory event in trace-check's notation (`P0: W l1 2`).
    pub fn event_text(&self, e: usize) -> String {
        let ev = &self.events[e];
        format!("P{}: {} l{} {}", ev.proc, if ev.write { "W" } else { "R" }, ev.loc, ev.value)
    }

    /// The run's memory events as a trace for `weakc trace-check`, each with its step as
    /// timestamp (the simple witness), processors and locations named `P<p>` and `l<l>`.
    pub fn trace_text(&self, processors: usize) -> String {
        let mut s = String::from("# memory events of a run found by weakc memsys; @N is the step\n");
        for p in 0..processors as i64 {
            let evs: Vec<String> = self
                .events
                .iter()
                .filter(|e| e.proc == p)
                .map(|e| format!("{} l{} {} @{}", if e.write { "W" } else { "R" }, e.loc, e.value, e.step + 1))
                .collect();
            if !evs.is_empty() {
                s += &format!("P{p}: {}\n", evs.join("; "));
            }
        }
        s
    }

    /// The run as a DOT graph: memory events per processor in program order, the cycle's
    /// edges in red (po and the location order they stand for).
    pub fn dot(&self, shape: &Shape) -> String {
        let mut s = String::from("digraph run {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
        let mut procs: Vec<i64> = self.events.iter().map(|e| e.proc).collect();
        procs.sort_unstable();
        procs.dedup();
        let on_cycle = |e: usize| self.cycle.iter().any(|&(a, b)| a == e || b == e);
        for p in &procs {
            s += &format!("  subgraph cluster_P{p} {{\n    label=\"P{p}\";\n");
            for (i, e) in self.events.iter().enumerate().filter(|(_, e)| e.proc == *p) {
                let style = if on_cycle(i) { ", color=red, penwidth=2" } else { "" };
                s += &format!("    e{i} [label=\"{}. {}\"{style}];\n", e.step + 1, self.describe(shape, e.step).replace('"', "'"));
            }
            let ids: Vec<usize> = self.events.iter().enumerate().filter(|(_, e)| e.proc == *p).map(|(i, _)| i).collect();
            for w in ids.windows(2) {
                s += &format!("    e{} -> e{} [color=gray];\n", w[0], w[1]);
            }
            s += "  }\n";
        }
        let k = self.cycle.len();
        for (i, &(a, b)) in self.cycle.iter().enumerate() {
            let next = self.cycle[(i + 1) % k].0;
            s += &format!("  e{a} -> e{b} [color=red, penwidth=2, label=\"po P{}\"];\n", self.events[a].proc);
            s += &format!("  e{b} -> e{next} [color=red, penwidth=2, style=dashed, label=\"{} l{}\"];\n", self.relation(b, next), self.events[b].loc);
        }
        s + "}\n"
    }

    /// The location edge from `x` to `y` in herd's names (under the simple witness).
    pub fn relation(&self, x: usize, y: usize) -> &'static str {
        let (a, b) = (&self.events[x], &self.events[y]);
        match (a.write, b.write) {
            (true, true) => "co",
            (true, false) if a.value == b.value => "rf",
            (true, false) => "co;rf",
            (false, true) => "fr",
            (false, false) => "fr;rf",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memsys::harness::{Command, Param, Range};
    use crate::source::Loc;

    fn write(object: &str, value: i64) -> BmcStep {
        BmcStep { thread: "main".into(), loc: Loc::default(), kind: StepKind::Write { object: format!("{PREFIX}{object}"), value: value.to_string() }, po: 0 }
    }

    #[test]
    fn decodes_steps_events_and_the_observers_choice() {
        let param = |name: &str, range| Param { name: name.into(), range };
        let shape = Shape {
            commands: vec![
                Command { name: "read".into(), params: vec![param("p", Range::Processor), param("l", Range::Location)], kind: CmdKind::Read },
                Command { name: "write".into(), params: vec![param("p", Range::Processor), param("l", Range::Location), param("d", Range::Data)], kind: CmdKind::Write },
                Command { name: "flush".into(), params: vec![param("p", Range::Processor)], kind: CmdKind::Internal },
            ],
            init: false,
        };
        // SB: P0 writes l0 and reads l1 = 0; P1 writes l1 and reads l0 = 0; P0 flushes;
        // marks 2i+1 / 2i+2 are the observer's a_i / b_i.
        let mut t = vec![];
        for (cmd, args, value, mark) in [
            (1, vec![0, 0, 1], None, Some(1)),
            (1, vec![1, 1, 2], None, Some(3)),
            (0, vec![0, 1], Some(0), Some(2)),
            (2, vec![0], None, None),
            (0, vec![1, 0], Some(0), Some(4)),
        ] {
            t.push(write("cmd", cmd));
            for (i, a) in args.iter().enumerate() {
                t.push(write(&format!("arg{i}"), *a));
            }
            if let Some(v) = value {
                t.push(write("value", v));
            }
            if let Some(m) = mark {
                t.push(write("mark", m));
            }
        }
        let run = decode(&t, &shape, 2);
        assert_eq!(run.steps.len(), 5);
        assert_eq!(run.events.len(), 4);
        assert_eq!(run.describe(&shape, 3), "flush(p=0)");
        assert_eq!(run.describe(&shape, 2), "read(p=0, l=1) = 0");
        // P0: W l0 -po-> R l1 -fr-> P1: W l1 -po-> R l0 -fr-> back (processors 0, 1;
        // locations l1, l0).
        assert_eq!(run.cycle, vec![(0, 2), (1, 3)]);
        assert_eq!(run.relation(2, 1), "fr");
        assert_eq!(run.relation(3, 0), "fr");
        let tr = run.trace_text(2);
        assert!(tr.contains("P0: W l0 1 @1; R l1 0 @3"), "{tr}");
        assert!(tr.contains("P1: W l1 2 @2; R l0 0 @5"), "{tr}");
        assert!(run.dot(&shape).contains("color=red"));
    }
}
