//! Path states: stopping a path, merging the paths that meet at a program point, running
//! code under a condition.
//!
//! Separate because path merging is what keeps symbolic execution from enumerating paths,
//! and every control-flow construct relies on its if-then-else rules.

use super::*;

/// The state at a thread's start: guard `guard`, memory as the path knows it `mem`.
pub(super) fn start_state(guard: Lit, mem: HashMap<u128, Bv>) -> State {
    State { guard, vars: HashMap::new(), atomic_depth: 0, cur_block: None, mem, blk: BTreeMap::new(), taint: HashMap::new(), mem_taint: HashMap::new(), deps: Default::default() }
}

pub(super) fn dead_state() -> State {
    start_state(Lit::FALSE, HashMap::new())
}

impl<'p> Symex<'p> {
    pub(super) fn dead(&self) -> bool {
        self.state.guard == Lit::FALSE
    }

    /// Runs `f` on the paths where `c` holds; the others go on unchanged. (Narrowing the
    /// guard alone would not do for writes: the path state's memory would take them too.)
    pub(super) fn under(&mut self, c: Lit, f: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        let g = self.state.guard;
        let taken = self.sat.and(g, c);
        if taken == Lit::FALSE {
            return Ok(());
        }
        let mut skipped = self.state.clone();
        skipped.guard = self.sat.and(g, !c);
        self.state.guard = taken;
        f(self)?;
        let done = std::mem::replace(&mut self.state, dead_state());
        // The guard stays the same literal when `f` cut no path.
        let known = (done.guard == taken).then_some(g);
        self.state = self.merge(vec![done, skipped], known);
        Ok(())
    }

    pub(super) fn kill(&mut self) -> State {
        let mut st = std::mem::replace(&mut self.state, dead_state());
        // Keep the variables so later (dead) code can still look values up cheaply.
        self.state.vars = st.vars.clone();
        st.vars.shrink_to_fit();
        st
    }

    /// Merges states reaching one program point. Paths are mutually exclusive, so values
    /// are if-then-else chains on the path guards. `known_guard` replaces the disjunction
    /// when the caller knows it (both sides of an `if` falling through).
    pub(super) fn merge(&mut self, states: Vec<State>, known_guard: Option<Lit>) -> State {
        let mut live: Vec<State> = states.into_iter().filter(|s| s.guard != Lit::FALSE).collect();
        if live.is_empty() {
            return dead_state();
        }
        if live.len() == 1 {
            return live.pop().unwrap();
        }
        let guard = match known_guard {
            Some(g) => g,
            None => {
                let gs: Vec<Lit> = live.iter().map(|s| s.guard).collect();
                self.sat.or_all(gs)
            }
        };
        let mut keys: Vec<VKey> = live.iter().flat_map(|s| s.vars.keys().copied()).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut vars = HashMap::with_capacity(keys.len());
        for k in keys {
            // Start from the last state having the variable; a state without it (the variable
            // is uninitialised on that path) takes any other path's value.
            let mut acc: Option<Value> = None;
            for s in live.iter().rev() {
                let Some(v) = s.vars.get(&k) else { continue };
                acc = Some(match acc {
                    None => v.clone(),
                    Some(a) if a == *v => a,
                    Some(a) => {
                        let mut out = Vec::with_capacity(v.len());
                        for (x, y) in v.iter().zip(a.iter()) {
                            if x.len() == y.len() {
                                out.push(self.sat.bv_ite(s.guard, x, y));
                            } else {
                                out.push(x.clone());
                            }
                        }
                        out
                    }
                });
            }
            if let Some(v) = acc {
                vars.insert(k, v);
            }
        }
        // Paths meeting here are normally in the same atomic section (or none).
        let (atomic_depth, cur_block) = live.iter().map(|s| (s.atomic_depth, s.cur_block)).max().unwrap();
        let mut keys: Vec<u128> = live.iter().flat_map(|s| s.mem.keys().copied()).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut mem = HashMap::with_capacity(keys.len());
        for a in keys {
            let width = live.iter().find_map(|s| s.mem.get(&a)).map(|v| v.len()).unwrap_or(0);
            let mut acc: Option<Bv> = None;
            for s in live.iter().rev() {
                let v = match s.mem.get(&a) {
                    Some(v) => self.sat.bv_resize(v, width, false),
                    None => self.init_cell(a, width),
                };
                acc = Some(match acc {
                    None => v,
                    Some(x) if x == v => x,
                    Some(x) => self.sat.bv_ite(s.guard, &v, &x),
                });
            }
            mem.insert(a, acc.unwrap());
        }
        let mut blk = BTreeMap::new();
        if live.iter().all(|s| s.cur_block.is_some() && s.cur_block == cur_block) {
            // A cell known on every path, for the whole of each path, stays known.
            'cell: for (&a, (_, v0)) in &live[0].blk {
                let mut acc = v0.clone();
                for (i, s) in live.iter().enumerate() {
                    match s.blk.get(&a) {
                        Some((ge, v)) if v.len() == acc.len() && self.sat.syntactically_implies(s.guard, *ge) => {
                            if i > 0 && *v != acc {
                                acc = self.sat.bv_ite(s.guard, v, &acc);
                            }
                        }
                        _ => continue 'cell,
                    }
                }
                blk.insert(a, (guard, acc));
            }
        }
        let mut taint: HashMap<VKey, Vec<Taint>> = HashMap::new();
        let mut mem_taint: HashMap<u128, Taint> = HashMap::new();
        let mut deps = taint::PathDeps::default();
        if self.track {
            let sat = &mut self.sat;
            let mut keys: Vec<VKey> = live.iter().flat_map(|s| s.taint.keys().copied()).collect();
            keys.sort_unstable();
            keys.dedup();
            for k in keys {
                let n = live.iter().filter_map(|s| s.taint.get(&k)).map(|v| v.len()).max().unwrap_or(0);
                let cells = (0..n).map(|i| taint::merge_paths(live.iter().map(|s| (s.guard, s.taint.get(&k).and_then(|v| v.get(i)))), sat)).collect();
                taint.insert(k, cells);
            }
            let mut addrs: Vec<u128> = live.iter().flat_map(|s| s.mem_taint.keys().copied()).collect();
            addrs.sort_unstable();
            addrs.dedup();
            for a in addrs {
                mem_taint.insert(a, taint::merge_paths(live.iter().map(|s| (s.guard, s.mem_taint.get(&a))), sat));
            }
            deps = taint::PathDeps {
                ctrl: taint::merge_paths(live.iter().map(|s| (s.guard, Some(&s.deps.ctrl))), sat),
                isync: taint::merge_paths(live.iter().map(|s| (s.guard, Some(&s.deps.isync))), sat),
                addr_po: taint::merge_paths(live.iter().map(|s| (s.guard, Some(&s.deps.addr_po))), sat),
            };
        }
        State { guard, vars, atomic_depth, cur_block, mem, blk, taint, mem_taint, deps }
    }

    pub(super) fn frame(&mut self) -> &mut Frame {
        self.ctx.frames.last_mut().expect("frame")
    }
}
