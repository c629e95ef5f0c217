//! The constraint graph of a trace under a write order (Qadeer, §5): processor order, plus
//! per location the partial order that the write order induces on all its events (a read
//! after the write it reads from and the writes before it, before the writes after it). The
//! trace is SC under that write order iff the graph is acyclic (Theorem 5.3); a topological
//! order is then a serialisation. Edges are kept linear: one chain per processor and, per
//! location, `w0 → w1 → …` with each write's readers between it and its successor.

use super::parse::{Kind, Trace};
use std::collections::{HashMap, VecDeque};

/// A write order and the source of every read (`None`: the initial value).
#[derive(Clone, Debug)]
pub struct Order {
    /// Per location, its writes in order.
    pub co: Vec<Vec<usize>>,
    /// Per event: for reads, the write read from (`None` for the initial value).
    pub rf: Vec<Option<usize>>,
}

/// Which order a cycle step follows: one processor's order or one location's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Via {
    Proc(usize),
    Loc(usize),
}

/// `from` before `to` in the order `via`; a cycle's steps join end to start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub from: usize,
    pub to: usize,
    pub via: Via,
}

/// The positions that decide both orders in constant time.
pub struct Positions {
    /// Per event: index in its processor's order.
    pub po: Vec<usize>,
    /// Per memory event: (index of the write in the location's order, or of the write a
    /// read reads from, `-1` for the initial value; 0 for a write, 1 for a read).
    pub key: Vec<(i64, u8)>,
}

impl Positions {
    pub fn new(t: &Trace, o: &Order) -> Positions {
        let mut po = vec![0; t.events.len()];
        for evs in &t.po {
            for (i, &e) in evs.iter().enumerate() {
                po[e] = i;
            }
        }
        let mut widx = vec![-1i64; t.events.len()];
        for ws in &o.co {
            for (i, &w) in ws.iter().enumerate() {
                widx[w] = i as i64;
            }
        }
        let key = (0..t.events.len())
            .map(|e| match t.events[e].kind {
                Kind::Write => (widx[e], 0),
                Kind::Read => (o.rf[e].map_or(-1, |w| widx[w]), 1),
                Kind::Fence => (i64::MIN, 2),
            })
            .collect();
        Positions { po, key }
    }

    /// `a` strictly before `b` in `via`.
    pub fn lt(&self, t: &Trace, via: Via, a: usize, b: usize) -> bool {
        let (ea, eb) = (&t.events[a], &t.events[b]);
        match via {
            Via::Proc(p) => ea.proc == p && eb.proc == p && self.po[a] < self.po[b],
            Via::Loc(l) => {
                let mem = |k: Kind| k != Kind::Fence;
                mem(ea.kind) && mem(eb.kind) && ea.loc == l && eb.loc == l && {
                    let (ka, kb) = (self.key[a], self.key[b]);
                    ka.0 < kb.0 || (ka.0 == kb.0 && ka.1 == 0 && kb.1 == 1)
                }
            }
        }
    }
}

/// The graph in adjacency form, each edge labelled with the order it belongs to.
pub struct Graph {
    pub succ: Vec<Vec<(usize, Via)>>,
}

impl Graph {
    /// Processor order alone: one chain per processor.
    pub fn po(t: &Trace) -> Graph {
        let mut succ: Vec<Vec<(usize, Via)>> = vec![vec![]; t.events.len()];
        for (p, evs) in t.po.iter().enumerate() {
            for w in evs.windows(2) {
                succ[w[0]].push((w[1], Via::Proc(p)));
            }
        }
        Graph { succ }
    }

    pub fn new(t: &Trace, o: &Order) -> Graph {
        let mut succ = Graph::po(t).succ;
        // Readers grouped by source, per location.
        let mut readers: Vec<Vec<usize>> = vec![vec![]; t.events.len()];
        let mut init_readers: Vec<Vec<usize>> = vec![vec![]; t.locs.len()];
        for (e, ev) in t.events.iter().enumerate() {
            if ev.kind == Kind::Read {
                match o.rf[e] {
                    Some(w) => readers[w].push(e),
                    None => init_readers[ev.loc].push(e),
                }
            }
        }
        for (l, ws) in o.co.iter().enumerate() {
            let v = Via::Loc(l);
            if let Some(&first) = ws.first() {
                for &r in &init_readers[l] {
                    succ[r].push((first, v));
                }
            }
            for (i, &w) in ws.iter().enumerate() {
                let next = ws.get(i + 1).copied();
                if let Some(n) = next {
                    succ[w].push((n, v));
                }
                for &r in &readers[w] {
                    succ[w].push((r, v));
                    if let Some(n) = next {
                        succ[r].push((n, v));
                    }
                }
            }
        }
        Graph { succ }
    }

    /// A topological order (a witness serialisation), or the events left on cycles.
    pub fn topo(&self) -> Result<Vec<usize>, Vec<bool>> {
        let n = self.succ.len();
        let mut indeg = vec![0usize; n];
        for s in &self.succ {
            for &(v, _) in s {
                indeg[v] += 1;
            }
        }
        let mut q: VecDeque<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(u) = q.pop_front() {
            order.push(u);
            for &(v, _) in &self.succ[u] {
                indeg[v] -= 1;
                if indeg[v] == 0 {
                    q.push_back(v);
                }
            }
        }
        if order.len() == n {
            Ok(order)
        } else {
            Err(indeg.iter().map(|&d| d > 0).collect())
        }
    }

    /// The shortest cycle through `start` inside `alive` (breadth first), as steps.
    fn shortest_through(&self, start: usize, alive: &[bool]) -> Option<Vec<Step>> {
        let n = self.succ.len();
        let mut parent: Vec<Option<(usize, Via)>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut q = VecDeque::from([start]);
        seen[start] = true;
        while let Some(u) = q.pop_front() {
            for &(v, via) in &self.succ[u] {
                if !alive[v] {
                    continue;
                }
                if v == start {
                    let mut steps = vec![Step {
                        from: u,
                        to: start,
                        via,
                    }];
                    let mut cur = u;
                    while cur != start {
                        let (p, pv) = parent[cur].expect("bfs parent");
                        steps.push(Step {
                            from: p,
                            to: cur,
                            via: pv,
                        });
                        cur = p;
                    }
                    steps.reverse();
                    return Some(steps);
                }
                if !seen[v] {
                    seen[v] = true;
                    parent[v] = Some((u, via));
                    q.push_back(v);
                }
            }
        }
        None
    }

    /// A small cycle among the events `topo` left: breadth-first cycles through a few of
    /// them, each reduced to a nice cycle; the one with fewest steps, then fewest events.
    pub fn small_cycle(&self, t: &Trace, pos: &Positions, alive: &[bool]) -> Vec<Step> {
        // Walk predecessors inside `alive` until a node repeats: every node there has one.
        let mut pred: Vec<Option<usize>> = vec![None; self.succ.len()];
        for (u, s) in self.succ.iter().enumerate() {
            if alive[u] {
                for &(v, _) in s {
                    if alive[v] && pred[v].is_none() {
                        pred[v] = Some(u);
                    }
                }
            }
        }
        let mut on = vec![false; self.succ.len()];
        let mut v = alive.iter().position(|&a| a).expect("a cycle");
        while !on[v] {
            on[v] = true;
            v = pred[v].expect("a predecessor on the cycle");
        }
        let mut starts = vec![v];
        let mut u = pred[v].expect("pred");
        while u != v && starts.len() < 16 {
            starts.push(u);
            u = pred[u].expect("pred");
        }
        let mut best: Option<Vec<Step>> = None;
        for s in starts {
            let Some(c) = self.shortest_through(s, alive) else {
                continue;
            };
            let c = nice(t, pos, c);
            let better = match &best {
                None => true,
                Some(b) => (c.len(), span(&c)) < (b.len(), span(b)),
            };
            if better {
                best = Some(c);
            }
        }
        best.expect("a cycle through a node of a cycle")
    }
}

fn span(c: &[Step]) -> usize {
    c.iter().map(|s| s.to.abs_diff(s.from)).sum()
}

/// Joins consecutive steps of the same order (both orders are transitive).
fn merge(c: Vec<Step>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::with_capacity(c.len());
    for st in c {
        match out.last_mut() {
            Some(last) if last.via == st.via => last.to = st.to,
            _ => out.push(st),
        }
    }
    // Around the end: the last step joins the first.
    while out.len() > 1 && out[0].via == out[out.len() - 1].via {
        let last = out.pop().expect("two steps");
        out[0].from = last.from;
    }
    out
}

/// Shortens a cycle until no two steps follow the same processor or location (the proof of
/// Qadeer's Theorem 6.1): for steps `a → b` and `c → d` of one order, either `a` is before
/// `d` (skip from `a` to `d`) or `c` is before `b` (close `b … c → b`); for a location this
/// is Lemma 5.1. The result is a k-nice cycle: k processor steps alternating with k location
/// steps.
pub fn nice(t: &Trace, pos: &Positions, c: Vec<Step>) -> Vec<Step> {
    let mut c = merge(c);
    loop {
        let n = c.len();
        let mut first: HashMap<Via, usize> = HashMap::new();
        let pair = (0..n).find_map(|j| first.insert(c[j].via, j).map(|i| (i, j)));
        let Some((i, j)) = pair else { return c };
        let via = c[i].via;
        let (a, b, cc, d) = (c[i].from, c[i].to, c[j].from, c[j].to);
        let next = if pos.lt(t, via, a, d) {
            let mut v = c[..i].to_vec();
            v.push(Step {
                from: a,
                to: d,
                via,
            });
            v.extend_from_slice(&c[j + 1..]);
            v
        } else if pos.lt(t, via, cc, b) {
            let mut v = vec![Step {
                from: cc,
                to: b,
                via,
            }];
            v.extend_from_slice(&c[i + 1..j]);
            v
        } else {
            // Not an order (cannot happen for a consistent write order): keep the cycle.
            return c;
        };
        c = merge(next);
    }
}

/// True when no two steps share a processor or a location.
pub fn is_nice(c: &[Step]) -> bool {
    c.iter()
        .enumerate()
        .all(|(i, s)| c[i + 1..].iter().all(|o| o.via != s.via))
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn st(from: usize, to: usize, via: Via) -> Step {
        Step { from, to, via }
    }

    fn order_by_file(t: &Trace) -> Order {
        let mut co = vec![vec![]; t.locs.len()];
        for (e, ev) in t.events.iter().enumerate() {
            if ev.kind == Kind::Write {
                co[ev.loc].push(e);
            }
        }
        let rf = (0..t.events.len())
            .map(|e| {
                let ev = &t.events[e];
                (ev.kind == Kind::Read)
                    .then(|| {
                        co[ev.loc]
                            .iter()
                            .copied()
                            .find(|&w| t.events[w].val == ev.val)
                    })
                    .flatten()
            })
            .collect();
        Order { co, rf }
    }

    #[test]
    fn store_buffering_is_a_2_nice_cycle() {
        let t = parse("P0: W x 1; R y 0\nP1: W y 1; R x 0\n", 0).unwrap();
        let o = order_by_file(&t);
        let g = Graph::new(&t, &o);
        let alive = g.topo().unwrap_err();
        let pos = Positions::new(&t, &o);
        let c = g.small_cycle(&t, &pos, &alive);
        assert_eq!(c.len(), 4);
        assert!(is_nice(&c));
    }

    #[test]
    fn a_long_cycle_is_reduced_to_a_nice_one() {
        // The SB violation between P0 and P1, with P0 also reaching it through P2 and y.
        let t = parse(
            "P0: W x 1; W z 1; R y 0\nP1: W y 1; R x 0\nP2: R z 1; R y 0\n",
            0,
        )
        .unwrap();
        let o = order_by_file(&t);
        let pos = Positions::new(&t, &o);
        // Locations by first use: x 0, z 1, y 2. The long way round:
        // 0 -po-> 1 -rf z-> 5 -po-> 6 -fr y-> 3 -po-> 4 -fr x-> 0.
        let long = vec![
            st(0, 1, Via::Proc(0)),
            st(1, 5, Via::Loc(1)),
            st(5, 6, Via::Proc(2)),
            st(6, 3, Via::Loc(2)),
            st(3, 4, Via::Proc(1)),
            st(4, 0, Via::Loc(0)),
        ];
        assert!(is_nice(&long));
        let n = nice(&t, &pos, long.clone());
        assert_eq!(n, long, "already nice: unchanged");
        // Two steps through P0 are joined or skipped.
        let mut twice = long.clone();
        twice.extend([st(0, 2, Via::Proc(0)), st(2, 3, Via::Loc(2)), st(3, 4, Via::Proc(1)), st(4, 0, Via::Loc(0))]);
        let n = nice(&t, &pos, twice);
        assert!(is_nice(&n), "{n:?}");
        assert!(n.len() < 10);
        for s in &n {
            assert!(pos.lt(&t, s.via, s.from, s.to), "{s:?}");
        }
    }

    #[test]
    fn sc_trace_has_a_witness() {
        let t = parse("P0: W x 1; R y 1\nP1: W y 1; R x 1\n", 0).unwrap();
        let o = order_by_file(&t);
        let order = Graph::new(&t, &o).topo().unwrap();
        assert_eq!(order.len(), 4);
    }
}
