//! Fig. 9 as an integer program, per independent component, with a greedy fallback.

use super::{index, DelayPair};
use good_lp::{constraint, microlp, variable, Expression, ProblemVariables, Solution, SolutionStatus, SolverModel, WithTimeLimit};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

/// Minimal-cost cover of `cycles` (each a non-empty list of candidate pairs). Returns the
/// chosen pairs, whether every component was proven optimal, and a note for the user.
pub(super) fn solve(cycles: &[Vec<DelayPair>], budget: Duration) -> (Vec<DelayPair>, bool, Option<String>) {
    let (pairs, sets) = index(cycles);
    let costs: Vec<u32> = pairs.iter().map(|p| p.cost).collect();
    let (pick, optimal, note) = solve_cover(&costs, &sets, budget);
    let chosen = pairs.iter().zip(&pick).filter(|(_, &p)| p).map(|(p, _)| *p).collect();
    (chosen, optimal, note)
}

/// Minimal-cost set cover: candidate `i` costs `costs[i]`; every set of `sets` (indices of
/// candidates, non-empty) must contain a chosen candidate. Solved per independent component
/// with the integer program, warm-started from (and never worse than) the greedy cover.
/// Returns the choice per candidate, whether every component was proven optimal, and a note.
/// Used for delay pairs here and for fence placements (`crate::fences`).
pub(crate) fn solve_cover(all_costs: &[u32], sets: &[Vec<usize>], budget: Duration) -> (Vec<bool>, bool, Option<String>) {
    let comps = components(all_costs.len(), sets);
    let start = Instant::now();
    let mut chosen = vec![false; all_costs.len()];
    let mut optimal = true;
    let (mut not_proven, mut failed, mut skipped) = (0usize, Vec::new(), 0usize);
    for comp in &comps {
        // local numbering of the component's candidates
        let mut cand: Vec<usize> = comp.iter().flat_map(|&c| sets[c].iter().copied()).collect();
        cand.sort_unstable();
        cand.dedup();
        let local = |g: usize| cand.binary_search(&g).unwrap();
        let costs: Vec<u32> = cand.iter().map(|&g| all_costs[g]).collect();
        let lsets: Vec<Vec<usize>> = comp.iter().map(|&c| sets[c].iter().map(|&g| local(g)).collect()).collect();
        let greedy = greedy_cover(&costs, &lsets);
        let pick = if lsets.len() == 1 {
            // one cycle: its cheapest relation is optimal
            let best = (0..costs.len()).min_by_key(|&i| (costs[i], i)).unwrap();
            (0..costs.len()).map(|i| i == best).collect()
        } else {
            let left = budget.saturating_sub(start.elapsed());
            if left.is_zero() {
                skipped += 1;
                optimal = false;
                greedy
            } else {
                match ilp(&costs, &lsets, &greedy, left) {
                    Ok((sel, proven)) if covers(&sel, &lsets) && cost(&sel, &costs) <= cost(&greedy, &costs) => {
                        if !proven {
                            not_proven += 1;
                            optimal = false;
                        }
                        sel
                    }
                    Ok((sel, proven)) => {
                        // an incumbent worse than the greedy cover, or not a cover at all
                        optimal = false;
                        if !covers(&sel, &lsets) {
                            failed.push("solver returned a non-covering solution".to_string());
                        } else if !proven {
                            not_proven += 1;
                        }
                        greedy
                    }
                    Err(e) => {
                        optimal = false;
                        failed.push(e);
                        greedy
                    }
                }
            }
        };
        for (&g, &p) in cand.iter().zip(&pick) {
            chosen[g] |= p;
        }
    }
    let mut notes = Vec::new();
    if not_proven > 0 {
        notes.push(format!(
            "ILP: {not_proven} of {} components not proven optimal within the time limit; the \
             selection covers every cycle but may cost more than necessary",
            comps.len()
        ));
    }
    if skipped > 0 {
        notes.push(format!("ILP: time limit exhausted, {skipped} components use the greedy cover"));
    }
    if !failed.is_empty() {
        failed.sort();
        failed.dedup();
        notes.push(format!("ILP solver failed ({}); fell back to the greedy cover", failed.join("; ")));
    }
    (chosen, optimal, (!notes.is_empty()).then(|| notes.join("; ")))
}

fn cost(sel: &[bool], costs: &[u32]) -> u64 {
    sel.iter().zip(costs).filter(|(&s, _)| s).map(|(_, &c)| c as u64).sum()
}

fn covers(sel: &[bool], sets: &[Vec<usize>]) -> bool {
    sel.len() >= sets.iter().flatten().max().map_or(0, |m| m + 1) && sets.iter().all(|s| s.iter().any(|&i| sel[i]))
}

/// Groups of cycles sharing candidates (transitively), each sorted, in order of first cycle.
fn components(ncand: usize, sets: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..ncand).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for s in sets {
        for &c in &s[1..] {
            let (a, b) = (find(&mut parent, s[0]), find(&mut parent, c));
            parent[a] = b;
        }
    }
    let mut by_root: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    let mut order = Vec::new();
    for (i, s) in sets.iter().enumerate() {
        let r = find(&mut parent, s[0]);
        let e = by_root.entry(r).or_default();
        if e.is_empty() {
            order.push(r);
        }
        e.push(i);
    }
    order.into_iter().map(|r| by_root.remove(&r).unwrap()).collect()
}

/// Weighted greedy set cover (cheapest cost per newly covered cycle first), then removal of
/// redundant picks, most expensive first. Every set must be non-empty.
pub(crate) fn greedy_cover(costs: &[u32], sets: &[Vec<usize>]) -> Vec<bool> {
    let m = costs.len();
    let cycles_of = sets_of(m, sets);
    let mut fresh: Vec<usize> = cycles_of.iter().map(|c| c.len()).collect();
    let mut covered = vec![false; sets.len()];
    let mut left = sets.len();
    let mut sel = vec![false; m];
    // The cheapest per fresh cycle first, ties to the lower index. A candidate's fresh count
    // only falls, so an entry's ratio is never above its candidate's current one: an entry
    // popped with its current count is the minimum (a stale entry is re-pushed).
    let mut heap: BinaryHeap<Reverse<Ratio>> = (0..m).filter(|&i| fresh[i] > 0).map(|i| Reverse(Ratio { cost: costs[i], fresh: fresh[i], i })).collect();
    while left > 0 {
        let Reverse(top) = heap.pop().expect("every cycle has a candidate");
        let best = top.i;
        if top.fresh != fresh[best] {
            if fresh[best] > 0 {
                heap.push(Reverse(Ratio { fresh: fresh[best], ..top }));
            }
            continue;
        }
        sel[best] = true;
        for &j in &cycles_of[best] {
            if !covered[j] {
                covered[j] = true;
                left -= 1;
                for &i in &sets[j] {
                    fresh[i] -= 1;
                }
            }
        }
    }
    reverse_delete_in(costs, sets, &cycles_of, &mut sel);
    sel
}

/// A candidate's cost per fresh cycle, ordered by `cost / fresh`, then by index.
struct Ratio {
    cost: u32,
    fresh: usize,
    i: usize,
}

impl Ord for Ratio {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        ((self.cost as u64) * o.fresh as u64).cmp(&((o.cost as u64) * self.fresh as u64)).then(self.i.cmp(&o.i))
    }
}

impl PartialEq for Ratio {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}

impl Eq for Ratio {}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// Per candidate of `m`, the sets that contain it.
fn sets_of(m: usize, sets: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut of: Vec<Vec<usize>> = vec![Vec::new(); m];
    for (j, s) in sets.iter().enumerate() {
        for &i in s {
            of[i].push(j);
        }
    }
    of
}

/// Drops the picks of `sel` every set of which has another pick, most expensive first.
pub(crate) fn reverse_delete(costs: &[u32], sets: &[Vec<usize>], sel: &mut [bool]) {
    reverse_delete_in(costs, sets, &sets_of(costs.len(), sets), sel);
}

fn reverse_delete_in(costs: &[u32], sets: &[Vec<usize>], cycles_of: &[Vec<usize>], sel: &mut [bool]) {
    let mut count: Vec<usize> = sets.iter().map(|s| s.iter().filter(|&&i| sel[i]).count()).collect();
    let mut picked: Vec<usize> = (0..costs.len()).filter(|&i| sel[i]).collect();
    picked.sort_by_key(|&i| (std::cmp::Reverse(costs[i]), i));
    for i in picked {
        if cycles_of[i].iter().all(|&j| count[j] > 1) {
            sel[i] = false;
            for &j in &cycles_of[i] {
                count[j] -= 1;
            }
        }
    }
}

/// Solve one component: `Ok((selection, proven optimal))`.
fn ilp(costs: &[u32], sets: &[Vec<usize>], start: &[bool], limit: Duration) -> Result<(Vec<bool>, bool), String> {
    let run = || -> Result<(Vec<bool>, bool), String> {
        let mut vars = ProblemVariables::new();
        let xs: Vec<_> = start
            .iter()
            .map(|&s| vars.add(variable().binary().initial(if s { 1.0 } else { 0.0 })))
            .collect();
        let objective: Expression = xs.iter().zip(costs).map(|(&x, &c)| c as f64 * x).sum();
        let mut model = vars.minimise(objective).using(microlp).with_time_limit(limit.as_secs_f64());
        for s in sets {
            let row: Expression = s.iter().map(|&i| xs[i]).sum();
            model.add_constraint(constraint!(row >= 1));
        }
        let sol = model.solve().map_err(|e| e.to_string())?;
        let proven = matches!(sol.status(), SolutionStatus::Optimal);
        Ok((xs.iter().map(|&x| sol.value(x) > 0.5).collect(), proven))
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|_| Err("solver panicked".to_string()))
}

/// A requirement met by any one of its alternatives; an alternative is met when each of its
/// sets (indices of candidates, non-empty) contains a chosen candidate.
pub(crate) type Alternatives = Vec<Vec<Vec<usize>>>;

/// Minimal-cost choice meeting every requirement of `groups` (each a non-empty list of
/// alternatives): the integer program with one indicator per alternative, never worse than
/// the greedy choice. Returns the choice per candidate, whether it was proven optimal, and
/// a note. `crate::fences`' property mode: one requirement per counterexample, met by
/// breaking any one of the critical cycles the counterexample realises.
pub(crate) fn solve_alternatives(costs: &[u32], groups: &[Alternatives], budget: Duration) -> (Vec<bool>, bool, Option<String>) {
    if groups.iter().all(|g| g.len() == 1) {
        let sets: Vec<Vec<usize>> = groups.iter().flat_map(|g| g[0].iter().cloned()).collect();
        return solve_cover(costs, &sets, budget);
    }
    let greedy = greedy_alternatives(costs, groups);
    let run = || -> Result<(Vec<bool>, bool), String> {
        let mut vars = ProblemVariables::new();
        let xs: Vec<_> = greedy.iter().map(|&s| vars.add(variable().binary().initial(if s { 1.0 } else { 0.0 }))).collect();
        let objective: Expression = xs.iter().zip(costs).map(|(&x, &c)| c as f64 * x).sum();
        let ys: Vec<Vec<_>> = groups
            .iter()
            .map(|g| g.iter().map(|alt| vars.add(variable().binary().initial(if met(&greedy, alt) { 1.0 } else { 0.0 }))).collect())
            .collect();
        let mut model = vars.minimise(objective).using(microlp).with_time_limit(budget.as_secs_f64());
        for (g, y) in groups.iter().zip(&ys) {
            let any: Expression = y.iter().copied().sum();
            model.add_constraint(constraint!(any >= 1));
            for (alt, &ya) in g.iter().zip(y) {
                for s in alt {
                    let row: Expression = s.iter().map(|&i| xs[i]).sum();
                    model.add_constraint(constraint!(row - ya >= 0));
                }
            }
        }
        let sol = model.solve().map_err(|e| e.to_string())?;
        Ok((xs.iter().map(|&x| sol.value(x) > 0.5).collect(), matches!(sol.status(), SolutionStatus::Optimal)))
    };
    let meets = |sel: &[bool]| groups.iter().all(|g| g.iter().any(|alt| met(sel, alt)));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|_| Err("solver panicked".to_string())) {
        Ok((sel, proven)) if meets(&sel) && cost(&sel, costs) <= cost(&greedy, costs) => {
            let note = (!proven).then(|| "ILP: not proven optimal within the time limit; the fences may cost more than necessary".to_string());
            (sel, proven, note)
        }
        Ok(_) => (greedy, false, Some("ILP: the solver's answer was no better than the greedy choice, which is used".to_string())),
        Err(e) => (greedy, false, Some(format!("ILP solver failed ({e}); fell back to the greedy choice"))),
    }
}

fn met(sel: &[bool], alt: &[Vec<usize>]) -> bool {
    alt.iter().all(|s| s.iter().any(|&i| sel[i]))
}

/// Requirements in order: one not met yet takes its alternative cheapest to complete (the
/// cheapest candidate of each set not met); then picks no requirement needs are dropped,
/// most expensive first.
fn greedy_alternatives(costs: &[u32], groups: &[Alternatives]) -> Vec<bool> {
    let mut sel = vec![false; costs.len()];
    for g in groups {
        if g.iter().any(|alt| met(&sel, alt)) {
            continue;
        }
        let completion = |alt: &Vec<Vec<usize>>| -> Vec<usize> {
            let mut add: Vec<usize> = alt
                .iter()
                .filter(|s| !s.iter().any(|&i| sel[i]))
                .map(|s| *s.iter().min_by_key(|&&i| (costs[i], i)).expect("non-empty set"))
                .collect();
            add.sort_unstable();
            add.dedup();
            add
        };
        let best = g.iter().map(completion).min_by_key(|add| add.iter().map(|&i| costs[i] as u64).sum::<u64>()).expect("non-empty group");
        for i in best {
            sel[i] = true;
        }
    }
    let mut picked: Vec<usize> = (0..sel.len()).filter(|&i| sel[i]).collect();
    picked.sort_by_key(|&i| std::cmp::Reverse((costs[i], i)));
    for i in picked {
        sel[i] = false;
        if !groups.iter().all(|g| g.iter().any(|alt| met(&sel, alt))) {
            sel[i] = true;
        }
    }
    sel
}
