//! The execution graph of a counterexample: the shared-memory events of the trace with the
//! write each read took its value from (`rf`), the order of the writes to each address
//! (`co`), and from-read edges (`fr`: a read comes before the writes that overwrite the
//! one it read). All of it is read off the SAT model: `rf` from the read's source selector,
//! `co` from the block clocks (same-block events by program order).

use super::order::Encoding;
use super::symex::Symex;
use super::{model_value, GraphEvent};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Serialize)]
pub struct ExecGraph {
    /// Events in trace order (a valid SC order, hence consistent with po).
    pub events: Vec<GraphEvent>,
    /// `(write, read)`: indices into `events`; `None` for the initial value.
    pub rf: Vec<(Option<usize>, usize)>,
    /// `(w1, w2)`: consecutive writes to one address.
    pub co: Vec<(usize, usize)>,
    /// `(read, write)`: the read precedes the `co`-next write after its source.
    pub fr: Vec<(usize, usize)>,
}

/// What a node of the graph stands for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Node {
    /// A symex event.
    Event(usize),
    /// A read repeated inside an atomic section, which takes its value from the thread's
    /// last access to the address (this event) without an event of its own.
    Reread(usize),
}

/// `nodes[i]` describes `kinds[i]` (both in trace order).
pub(super) fn build(sx: &Symex, enc: &Encoding, nodes: Vec<GraphEvent>, kinds: &[Node]) -> ExecGraph {
    let index: std::collections::HashMap<usize, usize> = kinds.iter().enumerate().filter_map(|(i, k)| if let Node::Event(e) = k { Some((*e, i)) } else { None }).collect();
    let ranks = enc.ranks(sx);
    let clock = |e: usize| {
        let ev = &sx.events[e];
        (ranks[ev.block as usize], ev.po)
    };
    // co: writes of the trace grouped by the address the model gives them, by clock.
    let mut by_addr: BTreeMap<u128, Vec<usize>> = BTreeMap::new();
    for &e in index.keys() {
        if sx.events[e].write {
            by_addr.entry(model_value(sx, &sx.events[e].addr)).or_default().push(e);
        }
    }
    let mut co = vec![];
    let mut co_next = std::collections::HashMap::new();
    let mut first_write = std::collections::HashMap::new();
    for (addr, ws) in by_addr.iter_mut() {
        ws.sort_by_key(|&w| clock(w));
        first_write.insert(*addr, ws[0]);
        for p in ws.windows(2) {
            co.push((index[&p[0]], index[&p[1]]));
            co_next.insert(p[0], p[1]);
        }
    }
    let mut rf = vec![];
    let mut fr = vec![];
    // The write each read event read from (None: the initial value).
    let source = super::past::rf_sources(sx);
    let reads = kinds.iter().enumerate().filter_map(|(i, k)| match k {
        Node::Event(e) if !sx.events[*e].write => Some((i, *e, source.get(e).copied()?)),
        Node::Reread(e) if sx.events[*e].write => Some((i, *e, Some(*e))),
        Node::Reread(e) => Some((i, *e, source.get(e).copied()?)),
        Node::Event(_) => None,
    });
    for (ri, r, src) in reads {
        let addr = model_value(sx, &sx.events[r].addr);
        match src {
            Some(w) => {
                if let Some(&wi) = index.get(&w) {
                    rf.push((Some(wi), ri));
                }
                if let Some(n) = co_next.get(&w).and_then(|n| index.get(n)) {
                    fr.push((ri, *n));
                }
            }
            None => {
                rf.push((None, ri));
                if let Some(n) = first_write.get(&addr).and_then(|n| index.get(n)) {
                    fr.push((ri, *n));
                }
            }
        }
    }
    ExecGraph { events: nodes, rf, co, fr }
}
