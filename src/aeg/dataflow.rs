//! The worklist fixpoint shared by the event graph's forward must-analyses (program-order
//! pair facts in `build`, finished threads in `joins`).

use std::collections::BTreeSet;

/// A must-analysis fact: `meet` narrows it by another path's fact.
pub(super) trait Meet: Clone {
    /// Narrows `self` by `o`; true when `self` changed.
    fn meet(&mut self, o: &Self) -> bool;
}

/// The facts at the entry of each of `nodes` CFG nodes, from the initial `work` items
/// `(node, facts)`. `step(n, facts, work)` is called with a node's entry facts whenever they
/// change and pushes the facts its successors receive. `None`: the node is not reached.
///
/// Nodes are numbered so that every forward edge goes to a larger number (the CFG builders
/// add a node after its predecessors; only loop back-edges and backward gotos go down), so
/// the changed node with the smallest number is stepped first: a node runs once all its
/// forward predecessors have, and a chain of if/else diamonds costs one step per node
/// instead of one per path (last-in-first-out stepping re-ran the rest of the function
/// after every branch, exponential in the number of diamonds).
pub(super) fn fixpoint<F: Meet>(
    nodes: usize,
    mut work: Vec<(usize, F)>,
    mut step: impl FnMut(usize, F, &mut Vec<(usize, F)>),
) -> Vec<Option<F>> {
    let mut state: Vec<Option<F>> = vec![None; nodes];
    let mut changed = BTreeSet::new();
    loop {
        for (n, f) in work.drain(..) {
            let grew = match &mut state[n] {
                Some(old) => old.meet(&f),
                slot @ None => {
                    *slot = Some(f);
                    true
                }
            };
            if grew {
                changed.insert(n);
            }
        }
        let Some(n) = changed.pop_first() else { break };
        step(n, state[n].clone().expect("set when marked changed"), &mut work);
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set of branch arms taken on some path (may-information, grows at every join).
    #[derive(Clone)]
    struct Arms(BTreeSet<usize>);

    impl Meet for Arms {
        fn meet(&mut self, o: &Self) -> bool {
            let before = self.0.len();
            self.0.extend(o.0.iter().copied());
            self.0.len() != before
        }
    }

    #[test]
    fn a_chain_of_diamonds_steps_each_node_once() {
        // Diamond i: head 3i branches to 3i+1 and 3i+2, both join at 3(i+1).
        let k = 30;
        let succ = |n: usize| if n % 3 == 0 { vec![n + 1, n + 2] } else { vec![3 * (n / 3 + 1)] };
        let mut steps = 0;
        let state = fixpoint(3 * k + 1, vec![(0, Arms(BTreeSet::new()))], |n, mut f, work| {
            steps += 1;
            f.0.insert(n);
            if n < 3 * k {
                work.extend(succ(n).into_iter().map(|m| (m, f.clone())));
            }
        });
        assert_eq!(steps, 3 * k + 1);
        // The end is reached with every arm of every diamond.
        assert_eq!(state[3 * k].as_ref().map(|f| f.0.len()), Some(3 * k));
    }
}
