//! Using what the collection pass learnt: which reads can take their value from the path
//! instead of being events, and which bits of a read's value every write agrees on.
//!
//! Separate because it is an optimisation with its own soundness argument (see
//! [`Symex::resolvable`], and [`Symex::known_bits_hold`], checked after the pass); without a
//! collection pass every read is an event with a fresh value.

use super::*;

pub(super) fn known(bv: &[Lit]) -> Known {
    bv.iter().map(|l| l.as_const()).collect()
}

/// The bits two values share (values of different widths share none).
pub(super) fn join_known(a: &mut Known, b: &[Option<bool>]) {
    if a.len() != b.len() {
        a.iter_mut().for_each(|x| *x = None);
        return;
    }
    for (x, y) in a.iter_mut().zip(b) {
        if *x != *y {
            *x = None;
        }
    }
}

/// Whether a write at an address with bit pattern `pat` and points-to `roots` may touch
/// address `a` of an object with `root`.
fn may_touch(pat: &[Option<bool>], roots: &Roots, a: u128, root: Option<ObjRoot>) -> bool {
    let bits_may = pat.iter().enumerate().all(|(i, b)| b.is_none_or(|b| b == ((a >> i) & 1 == 1)));
    let roots_may = match (roots, root) {
        (Some(rs), Some(r)) => rs.contains(&r),
        _ => true,
    };
    bits_may && roots_may
}

impl Collected {
    /// The bits of cell `a` that `init` (its initial value's known bits) and every write
    /// there, as recorded, agree on; `root` is the points-to root of `a`'s object.
    fn known_at(&self, a: u128, init: Known, root: Option<ObjRoot>) -> Known {
        let mut k = init;
        if let Some(v) = self.vals.get(&a) {
            join_known(&mut k, v);
        }
        for ((pat, roots), v) in self.sym.iter().zip(&self.sym_vals) {
            if k.iter().all(|b| b.is_none()) {
                break;
            }
            if may_touch(pat, roots, a, root) {
                join_known(&mut k, v);
            }
        }
        k
    }
}

impl<'p> Symex<'p> {
    /// The known bits of the initial value of cell `a` read with `width` bits (as
    /// [`Symex::init_cell`] gives it, without making fresh variables), and its object's root.
    fn init_known(&self, a: u128, width: usize) -> (Known, Option<ObjRoot>) {
        let obj = &self.objects[(a >> OFF_BITS) as usize];
        let off = (a & ((1u128 << OFF_BITS) - 1)) as usize;
        let mut k = match &obj.init {
            ObjInit::Zero => vec![Some(false); width],
            ObjInit::Cells(cells) => cells.get(off).map_or_else(|| vec![None; width], |c| known(c)),
            ObjInit::Nondet => vec![None; width],
        };
        k.resize(width, Some(false));
        (k, obj.root)
    }

    /// A fresh value for a read of constant address `a`, with the bits every possible write
    /// agrees on fixed (when the collection pass allows).
    pub(super) fn read_value(&mut self, a: Option<u128>, width: usize) -> Bv {
        let usable = self.fix_known_bits && self.collected.as_ref().is_some_and(|c| !c.mismatch);
        let Some(a) = a.filter(|&a| usable && (1..self.stable_objs).contains(&((a >> OFF_BITS) as u32))) else {
            return self.sat.fresh_bv(width);
        };
        let k = match self.known_used.get(&(a, width)) {
            Some(k) => k.clone(),
            None => {
                let (init, root) = self.init_known(a, width);
                let k = self.collected.as_ref().expect("collected").known_at(a, init, root);
                self.known_used.insert((a, width), k.clone());
                k
            }
        };
        k.iter().map(|b| b.map_or_else(|| self.sat.fresh(), Lit::from_bool)).collect()
    }

    /// Whether the bits reads took as known hold for every write of this pass (as recorded
    /// in `collecting`): then no execution of the pass's formula is lost by fixing them.
    pub fn known_bits_hold(&self) -> bool {
        let Some(c) = &self.collecting else { return self.known_used.is_empty() };
        self.known_used.iter().all(|(&(a, w), k)| {
            let (init, root) = self.init_known(a, w);
            let now = c.known_at(a, init, root);
            k.iter().zip(&now).all(|(x, y)| x.is_none() || x == y)
        })
    }

    /// Whether a read of constant address `a` by the current thread can take its value from
    /// the path (`State::mem`) instead of being an event: `a` lies in a stable object, no
    /// write at a non-constant address may touch it, no thread other than this one and its
    /// ancestors writes it (per the collection pass), and the ancestors write it only before
    /// spawning the line of threads leading here. Then every write the read could see is
    /// ordered before it and on its own path.
    pub(super) fn resolvable(&mut self, a: u128) -> bool {
        let t = self.ctx.thread;
        if let Some(&r) = self.resolvable_cache.get(&(t, a)) {
            return r;
        }
        let r = self.compute_resolvable(t, a);
        self.resolvable_cache.insert((t, a), r);
        r
    }

    fn compute_resolvable(&self, t: usize, a: u128) -> bool {
        let o = (a >> OFF_BITS) as u32;
        if o == 0 || o >= self.stable_objs {
            return false;
        }
        let Some(c) = &self.collected else { return false };
        if c.mismatch {
            return false;
        }
        let root = self.objects[o as usize].root;
        let seq = self.sequential();
        if c.sym.iter().zip(&c.sym_on_path).any(|((pat, roots), &on_path)| !(seq && on_path) && may_touch(pat, roots, a, root)) {
            return false;
        }
        // Ancestors of t, with the block of the spawn leading towards t.
        let mut anc: HashMap<usize, u32> = HashMap::new();
        let mut x = t;
        while let Some((p, sb)) = self.threads.get(x).and_then(|th| th.parent) {
            anc.insert(p, self.blocks[sb as usize].seq);
            x = p;
        }
        for (k, ws) in c.writes.iter().enumerate() {
            if k == t || anc.contains_key(&k) {
                continue;
            }
            if ws.contains(&a) {
                return false;
            }
        }
        // Ancestors are fully executed: check their writes directly.
        for ev in &self.events {
            if ev.write && anc.get(&ev.thread).is_some_and(|&seq| self.blocks[ev.block as usize].seq > seq) && as_const(&ev.addr) == Some(a) {
                return false;
            }
        }
        true
    }
}
