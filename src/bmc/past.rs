//! The causal past of a failure in a counterexample: the events the failing check depends
//! on, closed under program order, reads-from, spawn (the parent up to the spawn) and join
//! (the whole joined thread).
//!
//! Why it matters: an over-approximated value ([`super::symex::ApproxSite`]) outside this
//! past cannot have influenced the failure. Cutting every thread at the edge of the past
//! leaves an execution of the real program — each read still reads from a write inside it,
//! and every axiom of the models (acyclicity and irreflexivity of relations built from po,
//! rf, co, fences and dependencies) holds of a subset of the events when it holds of all of
//! them — in which the check fails with the same values. Such a counterexample is real.

use super::model_value;
use super::symex::{RawKind, Symex};
use std::collections::HashMap;

/// Per thread, the last program-order position inside the past (`None`: no part of it).
pub(super) struct Past {
    upto: Vec<Option<u32>>,
}

/// A position of another thread that a position of this one depends on.
#[derive(Clone, Copy)]
struct Pull {
    thread: usize,
    upto: u32,
}

impl Past {
    /// Whether position `po` of `thread` lies in the past.
    pub(super) fn contains(&self, (thread, po): (usize, u32)) -> bool {
        self.upto.get(thread).copied().flatten().is_some_and(|u| po <= u)
    }
}

/// The write each active read event took its value from in the solver's model (`None`: the
/// initial value).
pub(super) fn rf_sources(sx: &Symex) -> HashMap<usize, Option<usize>> {
    sx.rf_choices.iter().filter_map(|(r, sources)| sources.iter().find(|(_, l)| sx.sat.value(*l)).map(|(src, _)| (*r, *src))).collect()
}

/// The past of position `po` of `thread` in the solver's current model.
pub(super) fn of(sx: &Symex, thread: usize, po: u32) -> Past {
    let n = sx.threads.len();
    // Per thread, in program order, what pulls other threads in: a read (its source write),
    // a join (the joined thread, whole).
    let mut pulls: Vec<Vec<(u32, Pull)>> = vec![vec![]; n];
    let sources = rf_sources(sx);
    for (r, src) in &sources {
        let e = &sx.events[*r];
        if let (Some(w), false, true) = (src, e.write, sx.sat.value(e.guard)) {
            let w = &sx.events[*w];
            pulls[e.thread].push((e.po, Pull { thread: w.thread, upto: w.po }));
        }
    }
    let mut spawned_at: Vec<Option<(usize, u32)>> = vec![None; n];
    for s in sx.steps.iter().filter(|s| sx.sat.value(s.guard)) {
        match &s.kind {
            RawKind::Spawn { thread } => spawned_at[*thread] = Some((s.thread, s.po)),
            RawKind::Join { tid } => {
                let k = model_value(sx, tid) as usize;
                if k < n {
                    pulls[s.thread].push((s.po, Pull { thread: k, upto: u32::MAX }));
                }
            }
            _ => {}
        }
    }
    for p in &mut pulls {
        p.sort_unstable_by_key(|(at, _)| *at);
    }
    let mut past = Past { upto: vec![None; n] };
    // How many of each thread's pulls have been followed.
    let mut done = vec![0usize; n];
    let mut work = vec![(thread, po)];
    while let Some((t, p)) = work.pop() {
        if past.upto[t].is_some_and(|u| u >= p) {
            continue;
        }
        if past.upto[t].is_none() {
            if let Some(parent) = spawned_at[t] {
                work.push(parent);
            }
        }
        past.upto[t] = Some(p);
        while let Some(&(at, pull)) = pulls[t].get(done[t]) {
            if at > p {
                break;
            }
            done[t] += 1;
            work.push((pull.thread, pull.upto));
        }
    }
    past
}
