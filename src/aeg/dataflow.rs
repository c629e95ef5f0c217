//! The worklist fixpoint shared by the event graph's forward must-analyses (program-order
//! pair facts in `build`, finished threads in `joins`).

/// A must-analysis fact: `meet` narrows it by another path's fact.
pub(super) trait Meet: Clone {
    /// Narrows `self` by `o`; true when `self` changed.
    fn meet(&mut self, o: &Self) -> bool;
}

/// The facts at the entry of each of `nodes` CFG nodes, from the initial `work` items
/// `(node, facts)`. `step(n, facts, work)` is called with a node's entry facts whenever they
/// change and pushes the facts its successors receive. `None`: the node is not reached.
pub(super) fn fixpoint<F: Meet>(
    nodes: usize,
    mut work: Vec<(usize, F)>,
    mut step: impl FnMut(usize, F, &mut Vec<(usize, F)>),
) -> Vec<Option<F>> {
    let mut state: Vec<Option<F>> = vec![None; nodes];
    while let Some((n, f)) = work.pop() {
        let changed = match &mut state[n] {
            Some(old) => old.meet(&f),
            slot @ None => {
                *slot = Some(f);
                true
            }
        };
        if changed {
            step(n, state[n].clone().expect("set above"), &mut work);
        }
    }
    state
}
