//! Sequential consistency as a partial-order encoding (Alglave, Kroening, Tautschnig,
//! CAV 2013): no interleavings are enumerated; instead the constraints say there is one
//! total order of the *blocks* of events that explains every value read. The order is
//! either the solver's acyclicity theory (one literal per pair of blocks asked about,
//! [`super::acyclic`]) or, as in the paper, a clock (a bit-vector) per block; see
//! [`OrderMode`]. "Clock" below means a block's place in that order.
//!
//! * A block is one event, or all events of one atomic section (`AtomicBegin..End`, a lock
//!   acquisition, an RMW): they share a clock, ordered among themselves by program order,
//!   so no other thread's conflicting access can fall between them.
//! * Program order: consecutive blocks of a thread have increasing clocks; a spawn comes
//!   before the child's first block; a (matching) join comes after the child's last one.
//! * Reads-from: each active read picks one source — an active write to the same address
//!   ordered before it, or the initial value — and takes its value.
//! * From-read (which implies write serialisation where it matters): if `r` reads from `w`
//!   and `w'` is another active write to the same address not before `w`, then `r` comes
//!   before `w'`. Blocks with equal clocks are thereby forced apart whenever they conflict.
//!
//! Orders fixed by the program structure (same thread, or parent-before-spawn and child)
//! are constants, which prunes most candidate pairs before the solver sees them.

mod ppo;
mod relaxed;

pub(super) use relaxed::{acquire_orders, block_fence, dep_sources, dir};

use super::bv::{self, as_const, Bv};
use super::layout::*;
use super::sat::{Lit, Sat};
use super::symex::{ObjInit, Symex};
use std::collections::HashMap;

/// What the encoding leaves for the counterexample.
pub struct Encoding {
    /// Clock of each block (empty when `edges`).
    pub clocks: Vec<Bv>,
    /// The order is the solver's acyclicity theory ([`OrderMode::Edges`]), not clocks.
    pub edges: bool,
}

impl Encoding {
    /// Per block, its place in the memory order of the last model: blocks with a smaller
    /// value come first (equal values: unordered).
    pub fn ranks(&self, sx: &Symex) -> Vec<u128> {
        if self.edges {
            sx.sat.order_ranks().into_iter().map(u128::from).collect()
        } else {
            self.clocks.iter().map(|c| super::model_value(sx, c)).collect()
        }
    }
}

/// How the memory order is represented. `Edges`: one literal per pair of blocks the
/// encoding asks about, kept acyclic by the solver's theory ([`super::acyclic`]); used under
/// SC and every model (on Power and ARM, happens-before is a second node set of the same
/// theory). `Clocks`: a bit-vector per block (the CAV 2013 encoding); used where the
/// encoding compares orders with values (commit stamps) and where the from-read clauses
/// without clocks would be too many ([`EDGE_FR_LIMIT`]). `WEAKC_BMC_ORDER=clocks` forces
/// clocks everywhere, for comparison.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum OrderMode {
    Edges,
    Clocks,
}

#[cfg(test)]
thread_local! {
    /// Tests force an order representation on their thread.
    pub(super) static ORDER_MODE: std::cell::Cell<Option<OrderMode>> = const { std::cell::Cell::new(None) };
}

fn order_mode() -> OrderMode {
    #[cfg(test)]
    if let Some(m) = ORDER_MODE.with(|m| m.get()) {
        return m;
    }
    match std::env::var("WEAKC_BMC_ORDER").as_deref() {
        Ok("clocks") => OrderMode::Clocks,
        _ => OrderMode::Edges,
    }
}

/// Which clocks a program-order link goes into (see [`Enc::thin`]).
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Clocks {
    /// Both: preserved program order and strong fences.
    Both,
    /// Happens-before only: what a lightweight fence orders on a non-multi-copy-atomic model.
    Thin,
}

struct Enc<'a, 'p> {
    sx: &'a mut Symex<'p>,
    clocks: Vec<Bv>,
    /// Order literals are theory edges (see [`OrderMode`]): block `b` is node `b`, and in
    /// happens-before ([`Self::thin`]) node `nblocks + b`.
    edges: bool,
    /// Power, ARM: a happens-before order beside `clocks` ([`Self::thin`]).
    non_mca: bool,
    lt_cache: HashMap<(u32, u32), Lit>,
    aeq_cache: HashMap<(usize, usize), Lit>,
    init_clauses: usize,
    fr_clauses: usize,
    fr_pairs: usize,
    rw_pairs: usize,
    fr_mode: FrMode,
    clock_reads: usize,
    src_clauses: usize,
    /// Under a store-buffer model: what its program-order constraints fix (`None`: SC).
    ppo: Option<ppo::Ppo>,
    /// Non-multi-copy-atomic models (Power, ARM): a second clock per block for herd's
    /// happens-before, `hb = ppo | fence | rfe`, acyclic ("no thin air"). A read takes its
    /// value from a write of another thread before it in this order; `clocks` then holds
    /// coherence, from-read, preserved program order and strong fences (an order herd's
    /// propagation and observation axioms imply), and those axioms themselves are checked
    /// on each candidate execution ([`super::propagation`]). Empty with theory edges.
    thin: Vec<Bv>,
    thin_cache: HashMap<(u32, u32), Lit>,
}

/// The encoding, or `None` when a limit of the gate store ([`Sat::stopped`]: deadline,
/// clause count) was reached on the way.
pub fn encode(sx: &mut Symex) -> Option<Encoding> {
    let nblocks = sx.blocks.len();
    let non_mca = sx.opts.model.as_ref().and_then(|m| m.relaxed.as_ref()).is_some_and(|r| !r.mca);
    let edges_allowed = order_mode() == OrderMode::Edges && !super::symex::commits_used(sx);
    let cw = (usize::BITS - (nblocks + 1).leading_zeros()) as usize;
    let debug = std::env::var_os("WEAKC_BMC_DEBUG").is_some();
    if debug {
        eprintln!("bmc: after symex: {} vars, {} clauses, {} events, {} blocks", sx.sat.num_vars(), sx.sat.clauses, sx.events.len(), nblocks);
    }
    let mut e = Enc {
        sx,
        clocks: vec![],
        edges: false,
        non_mca,
        lt_cache: HashMap::new(),
        aeq_cache: HashMap::new(),
        init_clauses: 0,
        fr_clauses: 0,
        fr_pairs: 0,
        rw_pairs: 0,
        fr_mode: fr_mode(),
        clock_reads: 0,
        src_clauses: 0,
        ppo: None,
        thin: vec![],
        thin_cache: HashMap::new(),
    };
    let edges = edges_allowed && e.from_read_estimate() <= EDGE_FR_LIMIT;
    e.edges = edges;
    if edges {
        e.sx.sat.order_theory(if non_mca { 2 * nblocks } else { nblocks });
    } else {
        e.clocks = (0..nblocks).map(|_| e.sx.sat.fresh_bv(cw.max(1))).collect();
        if non_mca {
            e.thin = (0..nblocks).map(|_| e.sx.sat.fresh_bv(cw.max(1))).collect();
        }
    }
    let c0 = e.sx.sat.clauses;
    e.program_order();
    if let Some(m) = e.sx.opts.model.clone() {
        e.ppo = Some(e.store_buffer_order(&m));
    }
    e.joins();
    let po_clauses = e.sx.sat.clauses - c0;
    e.reads();
    if let Some(m) = e.sx.opts.model.as_ref().and_then(|m| m.relaxed.clone()) {
        e.read_read_coherence();
        e.dependent_forwarding(&m);
    }
    let stopped = e.sx.sat.check_limits().is_some();
    if debug {
        if stopped {
            eprintln!("bmc: encoding stopped by a limit; so far:");
        }
        eprintln!("bmc: program order and joins: {po_clauses} clauses; sources (values, orders): {} clauses", e.src_clauses);
        let sym = e.sx.events.iter().filter(|ev| as_const(&ev.addr).is_none()).count();
        let with_roots = e.sx.events.iter().filter(|ev| ev.roots.is_some()).count();
        let sym_obj = e.sx.events.iter().filter(|ev| as_const(&ev.addr[OFF_BITS..]).is_none()).count();
        eprintln!("bmc: {with_roots} events with points-to roots, {sym_obj} with a symbolic object");
        eprintln!(
            "bmc: after encoding: {} vars, {} clauses; {} events with symbolic addresses, {} clock comparisons, {} address comparisons",
            e.sx.sat.num_vars(),
            e.sx.sat.clauses,
            sym,
            e.lt_cache.len(),
            e.aeq_cache.len()
        );
        eprintln!(
            "bmc: init-value clauses {}, from-read clauses {} ({} source/write pairs, {} read/write pairs, {} reads by clock)",
            e.init_clauses, e.fr_clauses, e.fr_pairs, e.rw_pairs, e.clock_reads
        );
        match e.edges {
            true => eprintln!("bmc: order: {} theory edges over {nblocks} blocks", e.sx.sat.order_edges()),
            false => eprintln!("bmc: order: clocks of {cw} bits"),
        }
    }
    if stopped {
        return None;
    }
    if !edges {
        super::symex::constrain_commits(e.sx, &e.clocks);
    }
    Some(Encoding { clocks: e.clocks, edges })
}

/// How from-read is encoded: `cubic` (one clause per read, source and other write), `clock`
/// (per read, a bit-vector holding the chosen source's clock, compared with each other
/// write), `auto` (per read, whichever is smaller). `WEAKC_BMC_FR` overrides `auto`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FrMode {
    Auto,
    Cubic,
    Clock,
}

#[cfg(test)]
thread_local! {
    /// Tests force a from-read encoding on their thread.
    pub(super) static FR_MODE: std::cell::Cell<Option<FrMode>> = const { std::cell::Cell::new(None) };
}

fn fr_mode() -> FrMode {
    #[cfg(test)]
    if let Some(m) = FR_MODE.with(|m| m.get()) {
        return m;
    }
    match std::env::var("WEAKC_BMC_FR").as_deref() {
        Ok("cubic") => FrMode::Cubic,
        Ok("clock") => FrMode::Clock,
        _ => FrMode::Auto,
    }
}

/// The active writes of the program, for finding each read's candidates.
#[derive(Default)]
struct Writes {
    by_addr: HashMap<u128, Vec<usize>>,
    /// At non-constant addresses.
    sym: Vec<usize>,
    all: Vec<usize>,
}

/// Above this many estimated from-read clauses ([`Enc::from_read_estimate`]) the order is
/// encoded with clocks, whose from-read encoding is linear per read: about 1 GB of clauses.
const EDGE_FR_LIMIT: usize = 4_000_000;

/// What an access may touch, as far as known without the solver.
enum Tgt<'a> {
    Obj(usize),
    Roots(&'a std::collections::BTreeSet<crate::aeg::alias::ObjRoot>),
    Any,
}

/// Whether two address vectors can be equal (no bit position with opposite constants).
fn may_equal(a: &[Lit], b: &[Lit]) -> bool {
    a.iter().zip(b).all(|(x, y)| !(x.is_const() && y.is_const() && x != y))
}

impl Enc<'_, '_> {
    fn target(&self, e: usize) -> Tgt<'_> {
        let ev = &self.sx.events[e];
        if let Some(o) = as_const(&ev.addr[OFF_BITS..]) {
            return Tgt::Obj(o as usize);
        }
        match &ev.roots {
            Some(r) => Tgt::Roots(r),
            None => Tgt::Any,
        }
    }

    fn obj_in(&self, o: usize, roots: &std::collections::BTreeSet<crate::aeg::alias::ObjRoot>) -> bool {
        match self.sx.objects.get(o).and_then(|x| x.root) {
            Some(r) => roots.contains(&r),
            // Objects the analysis does not know (string literals): possible.
            None => o != 0,
        }
    }

    /// Whether events `e1` and `e2` may touch the same object (points-to and constant bits).
    fn may_alias(&self, e1: usize, e2: usize) -> bool {
        if !may_equal(&self.sx.events[e1].addr, &self.sx.events[e2].addr) {
            return false;
        }
        match (self.target(e1), self.target(e2)) {
            (Tgt::Any, _) | (_, Tgt::Any) => true,
            (Tgt::Obj(a), Tgt::Obj(b)) => a == b,
            (Tgt::Obj(o), Tgt::Roots(r)) | (Tgt::Roots(r), Tgt::Obj(o)) => self.obj_in(o, r),
            (Tgt::Roots(a), Tgt::Roots(b)) => !a.is_disjoint(b),
        }
    }

    fn raw_lt(&mut self, b1: u32, b2: u32) -> Lit {
        if self.edges {
            return self.sx.sat.order_edge(b1, b2);
        }
        let (c1, c2) = (self.clocks[b1 as usize].clone(), self.clocks[b2 as usize].clone());
        self.sx.sat.bv_ult(&c1, &c2)
    }

    /// Block `b1` before `b2` in happens-before, [`Self::thin`] (non-multi-copy-atomic
    /// models only).
    fn raw_lt_thin(&mut self, b1: u32, b2: u32) -> Lit {
        debug_assert!(self.non_mca);
        if self.edges {
            let n = self.sx.blocks.len() as u32;
            return self.sx.sat.order_edge(n + b1, n + b2);
        }
        let (c1, c2) = (self.thin[b1 as usize].clone(), self.thin[b2 as usize].clone());
        self.sx.sat.bv_ult(&c1, &c2)
    }

    /// A spawn before the child's first block, and under SC each block of a thread before
    /// the next (a store-buffer model adds its own program order, [`ppo`]).
    fn program_order(&mut self) {
        let sc = self.sx.opts.model.is_none();
        for t in 0..self.sx.threads.len() {
            if self.sx.sat.stopped().is_some() {
                return;
            }
            if sc {
                let bs = self.sx.threads[t].blocks.clone();
                for w in bs.windows(2) {
                    let l = self.raw_lt(w[0], w[1]);
                    self.sx.sat.assert(l);
                }
            }
            if let Some((_, sb)) = self.sx.threads[t].parent {
                let start = self.sx.threads[t].start;
                self.link_if(&[], sb, start);
            }
        }
    }

    /// Statically known order of two different blocks.
    fn static_before(&self, b1: u32, b2: u32) -> Option<bool> {
        let i1 = &self.sx.blocks[b1 as usize];
        let i2 = &self.sx.blocks[b2 as usize];
        if i1.thread == i2.thread {
            return match &self.ppo {
                None => Some(i1.seq < i2.seq),
                Some(p) => p.before(b1, i1.seq, b2, i2.seq),
            };
        }
        if self.ancestor_before(i1.thread, i1.seq, i2.thread) {
            return Some(true);
        }
        if self.ancestor_before(i2.thread, i2.seq, i1.thread) {
            return Some(false);
        }
        None
    }

    /// Whether position `seq` of thread `t1` precedes the spawn (transitively) of `t2`.
    fn ancestor_before(&self, t1: usize, seq: u32, t2: usize) -> bool {
        let mut t = t2;
        while let Some((p, sb)) = self.sx.threads[t].parent {
            if p == t1 {
                return seq <= self.sx.blocks[sb as usize].seq;
            }
            t = p;
        }
        false
    }

    fn lt_block(&mut self, b1: u32, b2: u32) -> Lit {
        self.lt_block_in(false, b1, b2)
    }

    /// Block `b1` before `b2` in `clocks`, or in happens-before ([`Self::thin`]) when `thin`:
    /// orders the structure fixes (program order, spawns) hold in both.
    fn lt_block_in(&mut self, thin: bool, b1: u32, b2: u32) -> Lit {
        if b1 == b2 {
            return Lit::FALSE;
        }
        if let Some(b) = self.static_before(b1, b2) {
            return Lit::from_bool(b);
        }
        let cache = if thin { &self.thin_cache } else { &self.lt_cache };
        if let Some(&l) = cache.get(&(b1, b2)) {
            return l;
        }
        let l = if thin { self.raw_lt_thin(b1, b2) } else { self.raw_lt(b1, b2) };
        if thin { &mut self.thin_cache } else { &mut self.lt_cache }.insert((b1, b2), l);
        l
    }

    /// `e1` is ordered before `e2`.
    fn lt(&mut self, e1: usize, e2: usize) -> Lit {
        let (b1, p1) = (self.sx.events[e1].block, self.sx.events[e1].po);
        let (b2, p2) = (self.sx.events[e2].block, self.sx.events[e2].po);
        if b1 == b2 {
            return Lit::from_bool(p1 < p2);
        }
        self.lt_block(b1, b2)
    }

    /// Write `w` is among what read `r` may see: ordered before it, or (under a store-buffer
    /// model) an earlier write of its own thread, which it sees even while buffered.
    fn visible(&mut self, w: usize, r: usize) -> Lit {
        if self.ppo.is_none() {
            return self.lt(w, r);
        }
        let (bw, br) = (self.sx.events[w].block, self.sx.events[r].block);
        if bw == br {
            return Lit::from_bool(self.sx.events[w].po < self.sx.events[r].po);
        }
        let (iw, ir) = (&self.sx.blocks[bw as usize], &self.sx.blocks[br as usize]);
        if iw.thread == ir.thread {
            return Lit::from_bool(iw.seq < ir.seq);
        }
        // rfe is in happens-before only, where there is one.
        self.lt_block_in(self.non_mca, bw, br)
    }

    /// Write `w` is not among what read `r` may see: `r` comes before it, or (under a
    /// store-buffer model) it is a later write of `r`'s own thread. Strictly before, as for
    /// [`Self::visible`]: blocks of different threads with equal clocks are thereby forced
    /// apart when one reads where the other writes (two read-modify-writes with one clock
    /// would otherwise both read the value before them).
    fn hidden(&mut self, w: usize, r: usize) -> Lit {
        if self.ppo.is_some() {
            let (bw, br) = (self.sx.events[w].block, self.sx.events[r].block);
            let (iw, ir) = (&self.sx.blocks[bw as usize], &self.sx.blocks[br as usize]);
            if bw == br {
                return Lit::from_bool(self.sx.events[w].po > self.sx.events[r].po);
            }
            if iw.thread == ir.thread {
                return Lit::from_bool(iw.seq > ir.seq);
            }
        }
        self.lt(r, w)
    }

    fn aeq(&mut self, e1: usize, e2: usize) -> Lit {
        let key = (e1.min(e2), e1.max(e2));
        if let Some(&l) = self.aeq_cache.get(&key) {
            return l;
        }
        let a1 = self.sx.events[e1].addr.clone();
        let a2 = self.sx.events[e2].addr.clone();
        let l = self.sx.sat.bv_eq(&a1, &a2);
        self.aeq_cache.insert(key, l);
        l
    }

    fn joins(&mut self) {
        let joins = std::mem::take(&mut self.sx.joins);
        for j in &joins {
            let mut matched = vec![];
            let mut any_eq = Lit::FALSE;
            for k in 1..self.sx.threads.len() {
                if k == j.thread {
                    continue;
                }
                let kc = bv::constant(k as u128, 64);
                let eq = self.sx.sat.bv_eq(&j.tid, &kc);
                let m = self.sx.sat.and(j.guard, eq);
                if m == Lit::FALSE {
                    continue;
                }
                any_eq = self.sx.sat.or(any_eq, eq);
                let fin = self.sx.threads[k].finished;
                let end = self.sx.threads[k].end;
                let mf = self.sx.sat.and(eq, fin);
                matched.push(mf);
                self.link_if(&[m, fin], end, j.block);
                let rv = self.sx.threads[k].retval.clone();
                for (a, b) in j.ret.iter().zip(rv.iter()) {
                    self.sx.sat.add_clause(&[!m, !fin, !*a, *b]);
                    self.sx.sat.add_clause(&[!m, !fin, *a, !*b]);
                }
            }
            let any = self.sx.sat.or_all(matched);
            let ok = self.sx.sat.or(any, !any_eq);
            self.sx.sat.implies(j.joined, ok);
            self.sx.sat.implies(ok, j.joined);
        }
        self.sx.joins = joins;
    }

    /// The initial value of the cell read by event `r` with `width` bits.
    fn init_value(&mut self, r: usize, width: usize) -> Bv {
        let addr = self.sx.events[r].addr.clone();
        let roots = self.sx.events[r].roots.clone();
        let nobj = self.sx.objects.len();
        let obj_bits = addr[OFF_BITS..].to_vec();
        let off = addr[..OFF_BITS].to_vec();
        let mut acc = self.sx.sat.fresh_bv(width);
        for o in 1..nobj {
            let oc = bv::constant(o as u128, OBJ_BITS);
            if !may_equal(&obj_bits, &oc) || roots.as_ref().is_some_and(|rs| !self.obj_in(o, rs)) {
                continue;
            }
            let c = self.sx.sat.bv_eq(&obj_bits, &oc);
            let v = match &self.sx.objects[o].init {
                ObjInit::Zero => bv::constant(0, width),
                ObjInit::Nondet => self.sx.sat.fresh_bv(width),
                ObjInit::Cells(cells) => {
                    let cells = cells.clone();
                    match as_const(&off) {
                        Some(k) => match cells.get(k as usize) {
                            Some(c) => self.sx.sat.bv_resize(c, width, false),
                            None => self.sx.sat.fresh_bv(width),
                        },
                        None => {
                            let mut v = self.sx.sat.fresh_bv(width);
                            for (k, cell) in cells.iter().enumerate() {
                                let kc = bv::constant(k as u128, OFF_BITS);
                                if !may_equal(&off, &kc) {
                                    continue;
                                }
                                let eq = self.sx.sat.bv_eq(&off, &kc);
                                let cv = self.sx.sat.bv_resize(cell, width, false);
                                v = self.sx.sat.bv_ite(eq, &cv, &v);
                            }
                            v
                        }
                    }
                }
            };
            acc = self.sx.sat.bv_ite(c, &v, &acc);
        }
        acc
    }

    /// The active writes, by constant address and at non-constant addresses.
    fn writes(&self) -> Writes {
        let mut w = Writes::default();
        for (i, e) in self.sx.events.iter().enumerate() {
            if !e.write || e.guard == Lit::FALSE {
                continue;
            }
            w.all.push(i);
            match as_const(&e.addr) {
                Some(a) => w.by_addr.entry(a).or_default().push(i),
                None => w.sym.push(i),
            }
        }
        w
    }

    /// The writes read `r` may take its value from, as far as addresses tell.
    fn pool(&self, w: &Writes, r: usize) -> Vec<usize> {
        match as_const(&self.sx.events[r].addr) {
            Some(a) => {
                let mut v = w.by_addr.get(&a).cloned().unwrap_or_default();
                v.extend(w.sym.iter().copied().filter(|&x| self.may_alias(x, r)));
                v
            }
            None => w.all.iter().copied().filter(|&x| self.may_alias(x, r)).collect(),
        }
    }

    /// An upper bound on the from-read clauses of the encoding without clocks (one per
    /// read, source and other write): per read, its pool squared, unless under SC every
    /// write of the pool is its own thread's (then [`Self::latest_write`] is linear).
    fn from_read_estimate(&self) -> usize {
        let w = self.writes();
        let sc = self.sx.opts.model.is_none();
        let relaxed = self.sx.opts.model.as_ref().is_some_and(|m| m.relaxed.is_some());
        let thread = |e: usize| self.sx.blocks[self.sx.events[e].block as usize].thread;
        let mut total = 0usize;
        // Relaxed models: reads per thread and address (None: not constant), and their
        // largest pool, for the coherence of reads (a clause per pair of their sources).
        let mut corr: HashMap<(usize, Option<u128>), (usize, usize)> = HashMap::new();
        for r in 0..self.sx.events.len() {
            let ev = &self.sx.events[r];
            if ev.write || ev.guard == Lit::FALSE {
                continue;
            }
            let pool = self.pool(&w, r);
            if relaxed {
                let c = corr.entry((ev.thread, as_const(&ev.addr))).or_default();
                c.0 += 1;
                c.1 = c.1.max(pool.len());
            }
            if sc && pool.iter().all(|&x| thread(x) == thread(r)) {
                continue;
            }
            total = total.saturating_add(pool.len().saturating_mul(pool.len()));
        }
        let sym: HashMap<usize, usize> = corr.iter().filter(|(k, _)| k.1.is_none()).map(|(k, v)| (k.0, v.0)).collect();
        for ((t, a), (n, p)) in &corr {
            // Pairs at this address, and with the thread's reads at non-constant addresses.
            let others = if a.is_some() { sym.get(t).copied().unwrap_or(0) } else { 0 };
            let pairs = n.saturating_mul(n.saturating_sub(1) / 2 + others);
            total = total.saturating_add(pairs.saturating_mul(p.saturating_mul(*p)));
        }
        total
    }

    fn reads(&mut self) {
        let n = self.sx.events.len();
        let writes = self.writes();
        for r in 0..n {
            // The deadline is also looked at every few thousand clauses by the gate store;
            // a read may add many fewer.
            if self.sx.sat.check_limits().is_some() {
                return;
            }
            if self.sx.events[r].write || self.sx.events[r].guard == Lit::FALSE {
                continue;
            }
            let rconst = as_const(&self.sx.events[r].addr);
            let pool = self.pool(&writes, r);
            let c_src = self.sx.sat.clauses;
            // Writes that may be ordered before the read.
            let mut cands: Vec<usize> = vec![];
            for w in pool {
                if self.hidden(w, r) != Lit::TRUE {
                    cands.push(w);
                }
            }
            // Dominating writes: same constant address, statically before the read, active
            // whenever the read is. Nothing statically before one of them can be read.
            let rguard = self.sx.events[r].guard;
            let mut dom = vec![];
            if rconst.is_some() {
                for &w in &cands {
                    if as_const(&self.sx.events[w].addr) == rconst
                        && self.visible(w, r) == Lit::TRUE
                        && self.sx.sat.syntactically_implies(rguard, self.sx.events[w].guard)
                    {
                        dom.push(w);
                    }
                }
            }
            let init_possible = dom.is_empty();
            if !dom.is_empty() {
                let mut keep = vec![];
                for &w in &cands {
                    let shadowed = dom.iter().any(|&d| d != w && self.lt(w, d) == Lit::TRUE);
                    if !shadowed {
                        keep.push(w);
                    }
                }
                cands = keep;
            }
            let rval = self.sx.events[r].val.clone();
            let width = rval.len();
            if let Some(sorted) = self.program_ordered(r, &cands) {
                let c_chain = self.sx.sat.clauses;
                let sources = self.latest_write(r, &sorted, init_possible);
                self.src_clauses += self.sx.sat.clauses - c_chain;
                self.sx.rf_choices.push((r, sources));
                continue;
            }
            // Sources: None = initial value.
            let mut sources: Vec<(Option<usize>, Lit)> = vec![];
            if init_possible {
                let s = self.sx.sat.fresh();
                let c0 = self.sx.sat.clauses;
                let iv = self.init_value(r, width);
                self.init_clauses += self.sx.sat.clauses - c0;
                self.equal_under(s, &rval, &iv);
                sources.push((None, s));
            }
            for &w in &cands {
                let ok_order = self.visible(w, r);
                let g = self.sx.events[w].guard;
                let a = self.aeq(w, r);
                if ok_order == Lit::FALSE || a == Lit::FALSE {
                    continue;
                }
                let s = self.sx.sat.fresh();
                self.sx.sat.implies(s, g);
                self.sx.sat.implies(s, a);
                self.sx.sat.implies(s, ok_order);
                let wv = self.sx.events[w].val.clone();
                let wv = self.sx.sat.bv_resize(&wv, width, false);
                self.equal_under(s, &rval, &wv);
                sources.push((Some(w), s));
            }
            let mut clause: Vec<Lit> = vec![!rguard];
            clause.extend(sources.iter().map(|s| s.1));
            self.sx.sat.add_clause(&clause);
            // From-read.
            let c0 = self.sx.sat.clauses;
            self.src_clauses += c0 - c_src;
            self.fr_pairs += sources.len() * cands.len();
            self.rw_pairs += cands.len();
            let cw = self.clocks.first().map_or(1, |c| c.len());
            let by_clock = match self.fr_mode {
                // Theory edges have no clock to compare with.
                _ if self.edges => false,
                FrMode::Cubic => false,
                FrMode::Clock => true,
                // Per other write: a comparator (~10 clauses a bit) instead of one clause
                // per source.
                FrMode::Auto => sources.len() > 12 * cw,
            };
            if by_clock {
                self.clock_reads += 1;
                self.from_read_by_clock(r, rguard, &sources, &cands);
            } else {
                for &(src, s) in &sources {
                    if self.sx.sat.stopped().is_some() {
                        return;
                    }
                    for &w2 in &cands {
                        if Some(w2) == src {
                            continue;
                        }
                        let r_before = self.hidden(w2, r);
                        if r_before == Lit::TRUE {
                            continue;
                        }
                        let w2_before_src = match src {
                            None => Lit::FALSE,
                            Some(w) => self.lt(w2, w),
                        };
                        if w2_before_src == Lit::TRUE {
                            continue;
                        }
                        let g2 = self.sx.events[w2].guard;
                        let a2 = self.aeq(w2, r);
                        if a2 == Lit::FALSE {
                            continue;
                        }
                        self.sx.sat.add_clause(&[!s, !g2, !a2, w2_before_src, r_before]);
                    }
                }
            }
            self.fr_clauses += self.sx.sat.clauses - c0;
            self.sx.rf_choices.push((r, sources));
        }
    }

    /// The candidate writes of read `r` in program order, when program order alone decides
    /// which one it reads: under SC, every candidate is a write of `r`'s own thread before
    /// it (a sequential program, or an object only its thread writes). Then the read takes
    /// the latest active write to its address, and from-read holds by construction.
    fn program_ordered(&mut self, r: usize, cands: &[usize]) -> Option<Vec<usize>> {
        if self.sx.opts.model.is_some() {
            return None;
        }
        let key = |sx: &Symex, e: usize| (sx.blocks[sx.events[e].block as usize].seq, sx.events[e].po);
        let rt = self.sx.blocks[self.sx.events[r].block as usize].thread;
        for &w in cands {
            if self.sx.blocks[self.sx.events[w].block as usize].thread != rt || self.visible(w, r) != Lit::TRUE {
                return None;
            }
        }
        let mut sorted = cands.to_vec();
        sorted.sort_by_key(|&w| key(self.sx, w));
        Some(sorted)
    }

    /// The sources of `r` over `sorted` (its candidates in program order, see
    /// [`Self::program_ordered`]): a write is the source iff it is active at `r`'s address
    /// and no later candidate is — a chain of O(|sorted|) gates where the general encoding
    /// needs a from-read clause per source and later write.
    fn latest_write(&mut self, r: usize, sorted: &[usize], init_possible: bool) -> Vec<(Option<usize>, Lit)> {
        let rval = self.sx.events[r].val.clone();
        let width = rval.len();
        let rguard = self.sx.events[r].guard;
        let mut none_later = Lit::TRUE;
        let mut sources = vec![];
        for &w in sorted.iter().rev() {
            let a = self.aeq(w, r);
            let hit = self.sx.sat.and(self.sx.events[w].guard, a);
            let s = self.sx.sat.and(none_later, hit);
            if s != Lit::FALSE {
                let wv = self.sx.events[w].val.clone();
                let wv = self.sx.sat.bv_resize(&wv, width, false);
                self.equal_under(s, &rval, &wv);
                sources.push((Some(w), s));
            }
            none_later = self.sx.sat.and(none_later, !hit);
        }
        if init_possible {
            let iv = self.init_value(r, width);
            self.equal_under(none_later, &rval, &iv);
            sources.push((None, none_later));
        } else {
            // A dominating write is active with the read: some candidate is its source.
            self.sx.sat.add_clause(&[!rguard, !none_later]);
        }
        sources.reverse();
        sources
    }

    /// From-read with O(|cands|) comparisons instead of O(|sources| · |cands|) clauses, for
    /// reads with many possible sources. `k` is the clock of the chosen source and `id` its
    /// index among `sources` (which makes the choice unique). Then, for every other active
    /// write `w2` to the read's address: the read comes before `w2`, or `w2`'s clock is below
    /// `k`, unless the source is `w2` itself, the initial value (then the read must come
    /// before `w2`, as in the cubic form) or a write of `w2`'s own block (ordered by program
    /// order, not by clock: those pairs get the cubic clause). Same models as the cubic
    /// form: `lt(w2, w)` between different blocks is the clock comparison (orders known
    /// statically agree with the clocks, which program order constrains).
    fn from_read_by_clock(&mut self, r: usize, rguard: Lit, sources: &[(Option<usize>, Lit)], cands: &[usize]) {
        let cw = self.clocks.first().map_or(1, |c| c.len());
        let idw = ((usize::BITS - sources.len().leading_zeros()) as usize).max(1);
        let k = self.sx.sat.fresh_bv(cw);
        let id = self.sx.sat.fresh_bv(idw);
        let mut init = None;
        let mut selector: HashMap<usize, Lit> = HashMap::new();
        let mut in_block: HashMap<u32, Vec<(usize, Lit)>> = HashMap::new();
        for (i, &(src, s)) in sources.iter().enumerate() {
            let ic = bv::constant(i as u128, idw);
            self.equal_under(s, &id, &ic);
            match src {
                None => init = Some(s),
                Some(w) => {
                    let b = self.sx.events[w].block;
                    let c = self.clocks[b as usize].clone();
                    self.equal_under(s, &k, &c);
                    selector.insert(w, s);
                    in_block.entry(b).or_default().push((w, s));
                }
            }
        }
        // `clock(b) < k`, per block of the other writes.
        let mut below_k: HashMap<u32, Lit> = HashMap::new();
        for &w2 in cands {
            if self.sx.sat.stopped().is_some() {
                return;
            }
            let r_before = self.hidden(w2, r);
            if r_before == Lit::TRUE {
                continue;
            }
            let a2 = self.aeq(w2, r);
            if a2 == Lit::FALSE {
                continue;
            }
            let g2 = self.sx.events[w2].guard;
            let b2 = self.sx.events[w2].block;
            let mut clause = vec![!rguard, !g2, !a2, r_before];
            if let Some(s0) = init {
                self.sx.sat.add_clause(&[!s0, !g2, !a2, r_before]);
                clause.push(s0);
            }
            if let Some(&s) = selector.get(&w2) {
                clause.push(s);
            }
            for (w, s) in in_block.get(&b2).cloned().unwrap_or_default() {
                if w == w2 {
                    continue;
                }
                clause.push(s);
                if self.lt(w2, w) != Lit::TRUE {
                    self.sx.sat.add_clause(&[!s, !g2, !a2, r_before]);
                }
            }
            let lt_k = match below_k.get(&b2) {
                Some(&l) => l,
                None => {
                    let c2 = self.clocks[b2 as usize].clone();
                    let l = self.sx.sat.bv_ult(&c2, &k);
                    below_k.insert(b2, l);
                    l
                }
            };
            clause.push(lt_k);
            self.sx.sat.add_clause(&clause);
        }
    }

    /// `s → (a == b)` bitwise.
    fn equal_under(&mut self, s: Lit, a: &[Lit], b: &[Lit]) {
        let sat: &mut Sat = &mut self.sx.sat;
        for (&x, &y) in a.iter().zip(b) {
            if x == y {
                continue;
            }
            sat.add_clause(&[!s, !x, y]);
            sat.add_clause(&[!s, x, !y]);
        }
    }
}
