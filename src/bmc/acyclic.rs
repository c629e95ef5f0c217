//! The memory order as a theory of the SAT solver: each order literal `before(a, b)` is an
//! edge of a graph over blocks, and a set of true edges is consistent iff it is acyclic
//! (then it extends to a total order, which is the execution's memory order). This replaces
//! the clock bit-vectors of the partial-order encoding (Alglave, Kroening, Tautschnig, CAV
//! 2013), whose comparators hide transitivity from the solver: here a cycle is seen as soon
//! as its last edge is assigned, and the lemma excluding it names exactly its edges — the
//! approach of acyclicity propagators for SAT (Gebser, Janhunen, Rintanen, ECAI 2014) and of
//! Dat3M's CAAT (Haas et al.).
//!
//! Incremental: a topological order of the true edges is kept (Pearce and Kelly, JEA 2007);
//! an edge that agrees with it costs nothing, one that does not searches only the nodes
//! between its ends. Backtracking removes edges, which keeps the order topological, so the
//! order is never undone. After each new edge `u → v`, every unassigned edge from what `v`
//! reaches to what reaches `u` is propagated false, its reason the cycle it would close.
//! Every lemma and reason is the negation of a cycle: valid whatever the state,
//! so a notification CaDiCaL sends late or twice can cost time, never soundness; and a
//! complete assignment is checked from scratch ([`Theory::check_model`]).

use super::solver::Theory;

/// An edge variable's value as the solver last told it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Val {
    Unknown,
    True,
    False,
}

pub struct Acyclic {
    /// Per DIMACS variable, its edge (`u32::MAX`: none).
    edge_of: Vec<u32>,
    /// Per edge: from, to, variable.
    edges: Vec<(u32, u32, i32)>,
    val: Vec<Val>,
    /// Assigned at the root, for good (never on the trail).
    fixed: Vec<bool>,
    /// Per node, every edge leaving it, whatever its value (for propagation).
    all_out: Vec<Vec<u32>>,
    /// Per node, the true edges leaving and entering it.
    out: Vec<Vec<u32>>,
    inc: Vec<Vec<u32>>,
    /// Topological position of each node.
    ord: Vec<u32>,
    trail: Vec<u32>,
    levels: Vec<usize>,
    /// True edges kept out of the graph because they closed a cycle.
    parked: Vec<u32>,
    /// Lemmas waiting for the solver, each closed by 0; `cursor` is the next literal out.
    pending: Vec<i32>,
    cursor: usize,
    /// Search scratch: visit stamp per node and the edge it was reached by.
    seen: Vec<u32>,
    stamp: u32,
    via: Vec<u32>,
    /// Literals to propagate (an edge that would close a cycle is false), each with its
    /// reason: the cycle's other edges.
    props: Vec<u32>,
    queued: Vec<bool>,
    /// Per edge, the reason of its last propagation.
    reasons: Vec<Vec<i32>>,
    /// The reason being handed out, reversed, with the closing 0 first.
    reason_out: Vec<i32>,
    /// Search scratch: the edge towards the backward search's root; node and edge lists.
    back: Vec<u32>,
    scratch: Vec<u32>,
    cands: Vec<u32>,
    /// Lemmas produced (cycles found).
    pub lemmas: usize,
    /// Literals propagated.
    pub propagated: usize,
}

const NONE: u32 = u32::MAX;

impl Acyclic {
    pub fn new(nodes: usize) -> Acyclic {
        Acyclic {
            edge_of: vec![],
            edges: vec![],
            val: vec![],
            fixed: vec![],
            all_out: vec![vec![]; nodes],
            out: vec![vec![]; nodes],
            inc: vec![vec![]; nodes],
            ord: (0..nodes as u32).collect(),
            trail: vec![],
            levels: vec![],
            parked: vec![],
            pending: vec![],
            cursor: 0,
            seen: vec![0; nodes],
            stamp: 0,
            via: vec![NONE; nodes],
            props: vec![],
            queued: vec![],
            reasons: vec![],
            reason_out: vec![],
            back: vec![NONE; nodes],
            scratch: vec![],
            cands: vec![],
            lemmas: 0,
            propagated: 0,
        }
    }

    /// Variable `var` (DIMACS, positive) stands for `from` before `to`.
    pub fn add_edge(&mut self, var: i32, from: u32, to: u32) {
        let v = var as usize;
        if self.edge_of.len() <= v {
            self.edge_of.resize(v + 1, NONE);
        }
        self.edge_of[v] = self.edges.len() as u32;
        self.edges.push((from, to, var));
        self.val.push(Val::Unknown);
        self.queued.push(false);
        self.reasons.push(vec![]);
        self.fixed.push(false);
        self.all_out[from as usize].push(self.edges.len() as u32 - 1);
    }

    /// Per node, its position in a total order that extends the edges true in `value`
    /// (which must be acyclic; nodes on a cycle, which a model of the theory never has,
    /// come last).
    pub fn ranks(&self, value: impl Fn(i32) -> bool) -> Vec<u32> {
        let n = self.out.len();
        let mut succ: Vec<Vec<u32>> = vec![vec![]; n];
        let mut indeg = vec![0u32; n];
        for &(f, t, v) in &self.edges {
            if value(v) {
                succ[f as usize].push(t);
                indeg[t as usize] += 1;
            }
        }
        // Kahn's algorithm, smallest node first: a deterministic order.
        let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<u32>> = (0..n as u32).filter(|&x| indeg[x as usize] == 0).map(std::cmp::Reverse).collect();
        let mut rank = vec![u32::MAX; n];
        let mut next = 0;
        while let Some(std::cmp::Reverse(x)) = ready.pop() {
            rank[x as usize] = next;
            next += 1;
            for &y in &succ[x as usize] {
                indeg[y as usize] -= 1;
                if indeg[y as usize] == 0 {
                    ready.push(std::cmp::Reverse(y));
                }
            }
        }
        for r in rank.iter_mut().filter(|r| **r == u32::MAX) {
            *r = next;
        }
        rank
    }

    /// Puts the true edge `e` into the graph, or, when it closes a cycle, queues the lemma
    /// and parks it outside (the graph stays acyclic and `ord` topological; the solver's
    /// conflict then unassigns some edge of the cycle, and [`Theory::backtrack`] retries the
    /// parked edges still true).
    fn enable(&mut self, e: u32) {
        let (f, t, v) = self.edges[e as usize];
        let fits = if f == t {
            self.queue(&[-v]);
            false
        } else {
            self.ord[f as usize] < self.ord[t as usize] || self.reorder(e)
        };
        if !fits {
            self.parked.push(e);
            return;
        }
        self.out[f as usize].push(e);
        self.inc[t as usize].push(e);
        self.propagate_after(e);
    }

    /// Breadth-first over the true edges from `root`, forward (out-edges; each node's edge
    /// from its predecessor in `via`) or backward (in-edges; its edge towards the root in
    /// `back`): the nodes reached, each marked with a fresh stamp in `seen`. The list is the
    /// reused scratch vector (hand it back).
    fn reach(&mut self, root: u32, forward: bool) -> Vec<u32> {
        let st = self.next_stamp();
        self.seen[root as usize] = st;
        (if forward { &mut self.via } else { &mut self.back })[root as usize] = NONE;
        let mut list = std::mem::take(&mut self.scratch);
        list.clear();
        list.push(root);
        let mut i = 0;
        while i < list.len() {
            let n = list[i] as usize;
            i += 1;
            let deg = if forward { self.out[n].len() } else { self.inc[n].len() };
            for k in 0..deg {
                let ed = if forward { self.out[n][k] } else { self.inc[n][k] };
                let (f, t, _) = self.edges[ed as usize];
                let m = if forward { t } else { f } as usize;
                if self.seen[m] != st {
                    self.seen[m] = st;
                    (if forward { &mut self.via } else { &mut self.back })[m] = ed;
                    list.push(m as u32);
                }
            }
        }
        list
    }

    /// After the true edge `e = u → v` entered the graph: every unassigned edge `w → z` with
    /// `v ⇝ w` and `z ⇝ u` would close a cycle, so it is false; its reason is that cycle.
    /// Computed now (not when the solver asks), so the reason holds only edges assigned
    /// before the literal it explains.
    fn propagate_after(&mut self, e: u32) {
        let (u, v, ev) = self.edges[e as usize];
        let fwd = self.reach(v, true);
        // Unassigned edges out of the forward set that go back in the order to u or before.
        let ord_u = self.ord[u as usize];
        let mut cands = std::mem::take(&mut self.cands);
        cands.clear();
        for &w in &fwd {
            for &ed in &self.all_out[w as usize] {
                let z = self.edges[ed as usize].1;
                if self.val[ed as usize] == Val::Unknown && !self.queued[ed as usize] && self.ord[z as usize] <= ord_u {
                    cands.push(ed);
                }
            }
        }
        self.scratch = fwd;
        if cands.is_empty() {
            self.cands = cands;
            return;
        }
        let bwd = self.reach(u, false);
        let bs = self.stamp;
        self.scratch = bwd;
        for &ed in &cands {
            let (w, z, var) = self.edges[ed as usize];
            if self.seen[z as usize] != bs {
                continue;
            }
            // The cycle: w → z, z ⇝ u, u → v, v ⇝ w.
            let mut reason = std::mem::take(&mut self.reasons[ed as usize]);
            reason.clear();
            reason.extend([-var, -ev]);
            let mut k = z;
            while self.back[k as usize] != NONE {
                let pe = self.back[k as usize];
                reason.push(-self.edges[pe as usize].2);
                k = self.edges[pe as usize].1;
            }
            let mut k = w;
            while self.via[k as usize] != NONE {
                let pe = self.via[k as usize];
                reason.push(-self.edges[pe as usize].2);
                k = self.edges[pe as usize].0;
            }
            self.reasons[ed as usize] = reason;
            self.queued[ed as usize] = true;
            self.props.push(ed);
        }
        self.cands = cands;
    }

    fn disable(&mut self, e: u32) {
        if let Some(i) = self.parked.iter().position(|&x| x == e) {
            self.parked.swap_remove(i);
            return;
        }
        let (f, t, _) = self.edges[e as usize];
        let o = &mut self.out[f as usize];
        if let Some(i) = o.iter().rposition(|&x| x == e) {
            o.swap_remove(i);
        }
        let n = &mut self.inc[t as usize];
        if let Some(i) = n.iter().rposition(|&x| x == e) {
            n.swap_remove(i);
        }
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Pearce–Kelly for the new edge `e = x → y` with `ord[x] > ord[y]`: the nodes reachable
    /// from `y` up to `x`'s position, and those reaching `x` down to `y`'s, swap places; if
    /// `x` is reachable from `y` there is a cycle: its lemma is queued instead and the
    /// answer is `false`.
    fn reorder(&mut self, e: u32) -> bool {
        let (x, y, _) = self.edges[e as usize];
        let (lo, hi) = (self.ord[y as usize], self.ord[x as usize]);
        let fwd_stamp = self.next_stamp();
        let mut fwd = vec![y];
        self.seen[y as usize] = fwd_stamp;
        self.via[y as usize] = NONE;
        let mut stack = vec![y];
        while let Some(n) = stack.pop() {
            for i in 0..self.out[n as usize].len() {
                let ed = self.out[n as usize][i];
                let m = self.edges[ed as usize].1;
                if m == x {
                    // y reaches x: with e, a cycle.
                    let mut lemma = vec![-self.edges[e as usize].2, -self.edges[ed as usize].2];
                    let mut k = n;
                    while self.via[k as usize] != NONE {
                        let pe = self.via[k as usize];
                        lemma.push(-self.edges[pe as usize].2);
                        k = self.edges[pe as usize].0;
                    }
                    self.queue(&lemma);
                    return false;
                }
                if self.seen[m as usize] != fwd_stamp && self.ord[m as usize] < hi {
                    self.seen[m as usize] = fwd_stamp;
                    self.via[m as usize] = ed;
                    fwd.push(m);
                    stack.push(m);
                }
            }
        }
        let bwd_stamp = self.next_stamp();
        let mut bwd = vec![x];
        self.seen[x as usize] = bwd_stamp;
        let mut stack = vec![x];
        while let Some(n) = stack.pop() {
            for i in 0..self.inc[n as usize].len() {
                let m = self.edges[self.inc[n as usize][i] as usize].0;
                if self.seen[m as usize] != bwd_stamp && self.ord[m as usize] > lo {
                    self.seen[m as usize] = bwd_stamp;
                    bwd.push(m);
                    stack.push(m);
                }
            }
        }
        // Everything reaching x goes before everything y reaches, in the positions they
        // held, each group keeping its relative order.
        let key = |v: &u32| self.ord[*v as usize];
        bwd.sort_by_key(key);
        fwd.sort_by_key(key);
        let mut slots: Vec<u32> = bwd.iter().chain(&fwd).map(|&v| self.ord[v as usize]).collect();
        slots.sort_unstable();
        for (&v, &p) in bwd.iter().chain(&fwd).zip(&slots) {
            self.ord[v as usize] = p;
        }
        true
    }

    fn queue(&mut self, lemma: &[i32]) {
        self.lemmas += 1;
        self.pending.extend_from_slice(lemma);
        self.pending.push(0);
    }

    /// A cycle among the edges whose variables are true in `model`, as a lemma.
    fn find_cycle(&self, model: &[i32]) -> Option<Vec<i32>> {
        let n = self.out.len();
        let mut succ: Vec<Vec<u32>> = vec![vec![]; n];
        for &l in model {
            if l > 0 {
                if let Some(&e) = self.edge_of.get(l as usize).filter(|&&e| e != NONE) {
                    succ[self.edges[e as usize].0 as usize].push(e);
                }
            }
        }
        // Iterative DFS with colours: 0 new, 1 on the stack, 2 done.
        let mut colour = vec![0u8; n];
        let mut via = vec![NONE; n];
        for root in 0..n {
            if colour[root] != 0 {
                continue;
            }
            let mut stack: Vec<(u32, usize)> = vec![(root as u32, 0)];
            colour[root] = 1;
            while let Some(&mut (v, ref mut i)) = stack.last_mut() {
                if let Some(&e) = succ[v as usize].get(*i) {
                    *i += 1;
                    let w = self.edges[e as usize].1;
                    match colour[w as usize] {
                        0 => {
                            colour[w as usize] = 1;
                            via[w as usize] = e;
                            stack.push((w, 0));
                        }
                        1 => {
                            let mut lemma = vec![-self.edges[e as usize].2];
                            let mut k = v;
                            while k != w {
                                let pe = via[k as usize];
                                lemma.push(-self.edges[pe as usize].2);
                                k = self.edges[pe as usize].0;
                            }
                            return Some(lemma);
                        }
                        _ => {}
                    }
                } else {
                    colour[v as usize] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}

impl Theory for Acyclic {
    fn assign(&mut self, lit: i32, fixed: bool) {
        let Some(&e) = self.edge_of.get(lit.unsigned_abs() as usize).filter(|&&e| e != NONE) else { return };
        if self.val[e as usize] != Val::Unknown {
            self.fixed[e as usize] |= fixed;
            return;
        }
        self.val[e as usize] = if lit > 0 { Val::True } else { Val::False };
        self.fixed[e as usize] = fixed;
        if !fixed {
            self.trail.push(e);
        }
        if lit > 0 {
            self.enable(e);
        }
    }

    fn new_level(&mut self) {
        self.levels.push(self.trail.len());
    }

    fn backtrack(&mut self, level: usize) {
        if self.levels.len() <= level {
            return;
        }
        let mark = self.levels[level];
        self.levels.truncate(level);
        while self.trail.len() > mark {
            let e = self.trail.pop().expect("trail above mark");
            if !self.fixed[e as usize] {
                if self.val[e as usize] == Val::True {
                    self.disable(e);
                }
                self.val[e as usize] = Val::Unknown;
            }
        }
        // Propagations not yet handed out were computed on edges now undone.
        for e in self.props.drain(..) {
            self.queued[e as usize] = false;
        }
        let parked = std::mem::take(&mut self.parked);
        for e in parked {
            if self.val[e as usize] == Val::True {
                self.enable(e);
            }
        }
    }

    fn propagate(&mut self) -> i32 {
        while let Some(e) = self.props.pop() {
            self.queued[e as usize] = false;
            if self.val[e as usize] == Val::Unknown {
                self.propagated += 1;
                return -self.edges[e as usize].2;
            }
        }
        0
    }

    fn reason_lit(&mut self, lit: i32) -> i32 {
        if self.reason_out.is_empty() {
            let e = self.edge_of[lit.unsigned_abs() as usize];
            // Only literals `propagate` gave are asked about; each has its reason.
            self.reason_out.push(0);
            self.reason_out.extend(self.reasons[e as usize].iter().rev());
            debug_assert_eq!(self.reason_out.last(), Some(&lit));
        }
        self.reason_out.pop().unwrap_or(0)
    }

    fn check_model(&mut self, model: &[i32]) -> bool {
        match self.find_cycle(model) {
            None => true,
            Some(lemma) => {
                self.queue(&lemma);
                false
            }
        }
    }

    fn has_clause(&mut self) -> bool {
        self.cursor < self.pending.len()
    }

    fn next_clause(&mut self) -> Option<i32> {
        let l = *self.pending.get(self.cursor)?;
        self.cursor += 1;
        if self.cursor == self.pending.len() {
            self.pending.clear();
            self.cursor = 0;
        }
        Some(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lemma(a: &mut Acyclic) -> Vec<i32> {
        let mut v = vec![];
        while let Some(l) = a.next_clause() {
            if l == 0 {
                break;
            }
            v.push(l);
        }
        v.sort();
        v
    }

    #[test]
    fn a_cycle_is_a_lemma_of_its_edges_and_backtracking_forgets_edges() {
        let mut a = Acyclic::new(4);
        // 1: 0→1, 2: 1→2, 3: 2→0, 4: 2→3, 5: 3→0
        for (v, f, t) in [(1, 0, 1), (2, 1, 2), (3, 2, 0), (4, 2, 3), (5, 3, 0)] {
            a.add_edge(v, f, t);
        }
        a.assign(1, true);
        a.new_level();
        a.assign(2, false);
        a.assign(4, false);
        assert!(!a.has_clause());
        a.new_level();
        a.assign(5, false);
        assert!(a.has_clause());
        assert_eq!(lemma(&mut a), vec![-5, -4, -2, -1]);
        a.backtrack(1);
        a.assign(3, false);
        assert_eq!(lemma(&mut a), vec![-3, -2, -1]);
        a.backtrack(0);
        // Only the fixed edge is left: 2→0 and 3→0 are consistent with it.
        a.new_level();
        a.assign(3, false);
        a.assign(5, false);
        assert!(!a.has_clause());
        assert!(a.check_model(&[1, -2, 3, -4, 5]));
        assert!(!a.check_model(&[1, 2, 3, -4, -5]));
        assert_eq!(lemma(&mut a), vec![-3, -2, -1]);
    }

    #[test]
    fn ranks_extend_the_true_edges() {
        let mut a = Acyclic::new(3);
        a.add_edge(1, 2, 0);
        a.add_edge(2, 0, 1);
        let r = a.ranks(|v| v == 1 || v == 2);
        assert!(r[2] < r[0] && r[0] < r[1]);
    }

    /// Random edge sets, assigned in random order with random backtracking: the theory
    /// reports a cycle exactly when the edges assigned so far have one.
    #[test]
    fn incremental_detection_agrees_with_a_search_from_scratch() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..300 {
            let n = 2 + rnd(7) as u32;
            let m = 1 + rnd(14) as i32;
            let mut a = Acyclic::new(n as usize);
            let mut edges = vec![];
            for v in 1..=m {
                let (f, t) = (rnd(n as u64) as u32, rnd(n as u64) as u32);
                a.add_edge(v, f, t);
                edges.push((f, t));
            }
            // Levels of assigned variables, as the solver would.
            let mut levels: Vec<Vec<i32>> = vec![vec![]];
            for _ in 0..20 {
                match rnd(4) {
                    0 if levels.len() > 1 => {
                        let l = rnd(levels.len() as u64) as usize;
                        levels.truncate(l + 1);
                        a.backtrack(l);
                    }
                    1 => {
                        levels.push(vec![]);
                        a.new_level();
                        continue;
                    }
                    _ => {
                        let v = 1 + rnd(m as u64) as i32;
                        if levels.iter().flatten().any(|&x| x == v) {
                            continue;
                        }
                        levels.last_mut().unwrap().push(v);
                        a.assign(v, false);
                    }
                }
                let model: Vec<i32> = (1..=m).map(|x| if levels.iter().flatten().any(|&y| y == x) { x } else { -x }).collect();
                let cyclic = a.find_cycle(&model).is_some();
                assert_eq!(a.has_clause(), cyclic, "edges {edges:?} true {model:?}");
                // Each lemma is falsified: all its edges are true.
                while a.has_clause() {
                    let l = lemma(&mut a);
                    assert!(l.iter().all(|x| model.contains(&-x)), "{l:?} {model:?}");
                }
                if cyclic {
                    // As the solver would after the conflict: leave the level.
                    let top = levels.len() - 1;
                    if top == 0 {
                        break;
                    }
                    levels.truncate(top);
                    a.backtrack(top - 1);
                    let model: Vec<i32> = (1..=m).map(|x| if levels.iter().flatten().any(|&y| y == x) { x } else { -x }).collect();
                    assert_eq!(a.has_clause(), a.find_cycle(&model).is_some());
                    while a.has_clause() {
                        lemma(&mut a);
                    }
                }
            }
        }
    }
}
