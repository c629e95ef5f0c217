//! Syntactic dependencies for the models that honour them (RMO, AArch64): which read events
//! of its thread an address, a written value or a branch was computed from, as herd
//! computes `addr`, `data` and `ctrl` from register dataflow. Values flow through the
//! thread's SSA locals (and through memory only its own thread can have written); a value
//! read back from shared memory depends on that read only, and an address's reads are not
//! part of the value read at it — both choices can only leave dependencies out, that is
//! allow more executions.
//!
//! Paths are merged, so a dependency holds under a condition: `s = y; if (r == 0) s = 42;`
//! leaves `s` depending on the read of `y` only where `r != 0`. Each dependency carries the
//! literal under which it holds; claiming one on a path where it does not exist would order
//! what the hardware does not, and hide its behaviours.

use crate::bmc::sat::{Lit, Sat};
use std::rc::Rc;

/// Read events (their ids) a value depends on, each under a condition; sorted by id.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Taint(Option<Rc<[(u32, Lit)]>>);

impl Taint {
    /// The dependencies `v` lists (an id twice: under either condition).
    pub fn of(mut v: Vec<(u32, Lit)>, sat: &mut Sat) -> Taint {
        v.retain(|x| x.1 != Lit::FALSE);
        if v.is_empty() {
            return Taint(None);
        }
        v.sort_unstable_by_key(|x| x.0);
        let mut out: Vec<(u32, Lit)> = Vec::with_capacity(v.len());
        for (id, c) in v {
            match out.last_mut() {
                Some(last) if last.0 == id => last.1 = sat.or(last.1, c),
                _ => out.push((id, c)),
            }
        }
        Taint(Some(out.into()))
    }

    pub fn entries(&self) -> &[(u32, Lit)] {
        self.0.as_deref().unwrap_or(&[])
    }

    pub fn union(&self, other: &Taint, sat: &mut Sat) -> Taint {
        match (&self.0, &other.0) {
            (None, _) => other.clone(),
            (_, None) => self.clone(),
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => self.clone(),
            (Some(a), Some(b)) => {
                if b.iter().all(|x| a.binary_search_by_key(&x.0, |y| y.0).is_ok_and(|i| a[i].1 == x.1 || a[i].1 == Lit::TRUE)) {
                    return self.clone();
                }
                Taint::of(a.iter().chain(b.iter()).copied().collect(), sat)
            }
        }
    }

    /// The dependencies where `g` also holds.
    pub fn under(&self, g: Lit, sat: &mut Sat) -> Taint {
        if g == Lit::TRUE || self.0.is_none() {
            return self.clone();
        }
        Taint::of(self.entries().iter().map(|&(id, c)| (id, sat.and(c, g))).collect(), sat)
    }
}

/// A thread's path-wide dependency state (part of a path's [`super::State`]).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PathDeps {
    /// Reads some branch taken so far depended on (herd's `ctrl` reaches every later access,
    /// also past the join).
    pub ctrl: Taint,
    /// Reads whose control dependency an `isync`/`isb` completed since.
    pub isync: Taint,
    /// Reads some earlier access's address depended on (herd's `addr; po`).
    pub addr_po: Taint,
}

/// Merges one taint per path (`None`: the path has none), each path with its guard: a
/// dependency holds on a path where it held before. Taints equal on every path stay as
/// they are.
pub fn merge_paths<'a>(items: impl IntoIterator<Item = (Lit, Option<&'a Taint>)>, sat: &mut Sat) -> Taint {
    let items: Vec<(Lit, Option<&Taint>)> = items.into_iter().collect();
    let first = items.first().and_then(|x| x.1);
    if items.iter().all(|x| x.1 == first) {
        return first.cloned().unwrap_or_default();
    }
    let mut acc = Taint::default();
    for (g, t) in items {
        if let Some(t) = t {
            let t = t.under(g, sat);
            acc = acc.union(&t, sat);
        }
    }
    acc
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
