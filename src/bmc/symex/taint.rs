//! Syntactic dependencies for the models that honour them (RMO, AArch64): which read events
//! of its thread an address, a written value or a branch was computed from, as herd
//! computes `addr`, `data` and `ctrl` from register dataflow. Values flow through the
//! thread's SSA locals; a value read back from memory depends on that read only (never on
//! what was stored there), and an address's reads are not part of the value read at it —
//! both choices can only leave out dependencies, that is allow more executions.

use std::rc::Rc;

/// Read events (their ids) a value depends on: sorted, without duplicates.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Taint(Option<Rc<[u32]>>);

impl Taint {
    pub fn of(mut v: Vec<u32>) -> Taint {
        if v.is_empty() {
            return Taint(None);
        }
        v.sort_unstable();
        v.dedup();
        Taint(Some(v.into()))
    }

    pub fn ids(&self) -> &[u32] {
        self.0.as_deref().unwrap_or(&[])
    }

    pub fn union(&self, other: &Taint) -> Taint {
        match (&self.0, &other.0) {
            (None, _) => other.clone(),
            (_, None) => self.clone(),
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => self.clone(),
            (Some(a), Some(b)) => {
                if b.iter().all(|x| a.binary_search(x).is_ok()) {
                    return self.clone();
                }
                Taint::of(a.iter().chain(b.iter()).copied().collect())
            }
        }
    }
}

/// A thread's path-wide dependency state (part of a path's [`super::State`]).
#[derive(Clone, Default)]
pub struct PathDeps {
    /// Reads some branch taken so far depended on (herd's `ctrl` reaches every later access,
    /// also past the join).
    pub ctrl: Taint,
    /// Reads whose control dependency an `isync`/`isb` completed since.
    pub isync: Taint,
    /// Reads some earlier access's address depended on (herd's `addr; po`).
    pub addr_po: Taint,
}

impl PathDeps {
    pub fn union(&self, o: &PathDeps) -> PathDeps {
        PathDeps { ctrl: self.ctrl.union(&o.ctrl), isync: self.isync.union(&o.isync), addr_po: self.addr_po.union(&o.addr_po) }
    }
}

/// What one event depends on, and how its instruction orders it.
#[derive(Clone, Default, Debug)]
pub struct EventDeps {
    pub addr: Taint,
    /// A write's value.
    pub data: Taint,
    pub ctrl: Taint,
    pub isync: Taint,
    pub addr_po: Taint,
    pub acquire: crate::ir::Acquire,
    pub release: bool,
}
