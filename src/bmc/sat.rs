//! Propositional layer: literals, a gate store with structural hashing and constant
//! propagation (an and/xor/ite graph), Tseitin clauses sent straight to CaDiCaL.
//!
//! Variable 0 is the constant `true`; every gate is created once per distinct set of inputs
//! (after normalising operand order and polarity), so equal sub-circuits share one variable.

use super::acyclic::Acyclic;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A literal: variable index times two, plus one when negated.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Lit(u32);

impl Lit {
    pub const TRUE: Lit = Lit(0);
    pub const FALSE: Lit = Lit(1);

    pub fn var(self) -> u32 {
        self.0 >> 1
    }
    pub fn is_neg(self) -> bool {
        self.0 & 1 == 1
    }
    pub fn is_const(self) -> bool {
        self.var() == 0
    }
    pub fn from_bool(b: bool) -> Lit {
        if b {
            Lit::TRUE
        } else {
            Lit::FALSE
        }
    }
    /// The constant value, if this literal is a constant.
    pub fn as_const(self) -> Option<bool> {
        if self.is_const() {
            Some(self == Lit::TRUE)
        } else {
            None
        }
    }
    fn dimacs(self) -> i32 {
        let v = self.var() as i32 + 1;
        if self.is_neg() {
            -v
        } else {
            v
        }
    }
    /// `self` with its polarity flipped when `b`.
    pub fn xor_sign(self, b: bool) -> Lit {
        Lit(self.0 ^ b as u32)
    }
}

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

#[derive(Clone, Copy, Debug)]
enum Def {
    Input,
    And(Lit, Lit),
    Xor,
    Ite,
}

/// Why the formula was abandoned (building or solving it went past a limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Stop {
    /// The deadline passed.
    Time,
    /// The formula reached this many clauses (the memory guard).
    Size(usize),
    /// The process's resident memory reached this many bytes (the other memory guard).
    Memory(u64),
    /// Another search decided the question ([`Sat::set_cancel`]).
    Cancelled,
}

/// Resident memory of this process in bytes (Linux: `/proc/self/statm`), when known.
pub fn resident_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * if page > 0 { page as u64 } else { 4096 })
}

/// Resident memory is read again after this many more clauses.
const RSS_EVERY: usize = 1 << 16;

/// How often (in clauses added) the deadline is looked at.
const CHECK_EVERY: usize = 1 << 12;

/// The solver's terminate callback: stop at the deadline or when resident memory
/// reaches the limit; `hit` says which.
#[derive(Default)]
pub struct Limits {
    deadline: Option<Instant>,
    max_rss: Option<u64>,
    /// When resident memory was last read (at most every [`RSS_PERIOD`]).
    rss_read: Option<Instant>,
    hit: Option<Stop>,
    cancel: Option<Arc<AtomicBool>>,
}

const RSS_PERIOD: std::time::Duration = std::time::Duration::from_millis(50);

/// What stops a search from outside its formula, while building and while solving: another
/// search decided first, or the deadline passed.
fn outside_stop(cancel: &Option<Arc<AtomicBool>>, deadline: Option<Instant>, now: Instant) -> Option<Stop> {
    if cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
        Some(Stop::Cancelled)
    } else if deadline.is_some_and(|d| now >= d) {
        Some(Stop::Time)
    } else {
        None
    }
}

impl super::solver::Terminate for Limits {
    fn terminate(&mut self) -> bool {
        if self.hit.is_none() {
            let now = Instant::now();
            self.hit = outside_stop(&self.cancel, self.deadline, now);
            if let Some(m) = self.max_rss.filter(|_| self.hit.is_none() && self.rss_read.is_none_or(|t| now - t >= RSS_PERIOD)) {
                self.rss_read = Some(now);
                if resident_bytes().is_some_and(|r| r >= m) {
                    self.hit = Some(Stop::Memory(m));
                }
            }
        }
        self.hit.is_some()
    }
}

/// The gate store and the solver it feeds.
///
/// Limits ([`Sat::set_limits`]): once the deadline has passed or the clause limit is
/// reached, [`Sat::stopped`] says so, no further clause reaches the solver (so memory stays
/// bounded whatever the caller still builds) and [`Sat::solve`] answers `None`. Callers in
/// long loops poll `stopped` to give up early; the formula is then meaningless.
pub struct Sat {
    solver: super::solver::Solver<Acyclic, Limits>,
    order_cache: HashMap<(u32, u32), Lit>,
    defs: Vec<Def>,
    and_cache: HashMap<(Lit, Lit), Lit>,
    xor_cache: HashMap<(Lit, Lit), Lit>,
    ite_cache: HashMap<(Lit, Lit, Lit), Lit>,
    /// Number of clauses sent to the solver.
    pub clauses: usize,
    /// Whether the last `solve` found a model.
    has_model: bool,
    deadline: Option<Instant>,
    max_clauses: Option<usize>,
    max_rss: Option<u64>,
    /// Clause count when resident memory was last read.
    rss_checked_at: usize,
    stop: Option<Stop>,
    cancel: Option<Arc<AtomicBool>>,
}

impl Default for Sat {
    fn default() -> Self {
        Sat::new()
    }
}

impl Sat {
    pub fn new() -> Sat {
        let mut solver = super::solver::Solver::new();
        solver.add_clause(&[1]);
        Sat {
            solver,
            order_cache: HashMap::new(),
            defs: vec![Def::Input],
            and_cache: HashMap::new(),
            xor_cache: HashMap::new(),
            ite_cache: HashMap::new(),
            clauses: 1,
            has_model: false,
            deadline: None,
            max_clauses: None,
            max_rss: None,
            rss_checked_at: 0,
            stop: None,
            cancel: None,
        }
    }

    /// Stop at `deadline` and (memory guards) when the formula reaches `max_clauses` or the
    /// process's resident memory `max_rss` bytes.
    pub fn set_limits(&mut self, deadline: Option<Instant>, max_clauses: Option<usize>, max_rss: Option<u64>) {
        self.deadline = deadline;
        self.max_clauses = max_clauses;
        self.max_rss = max_rss;
        self.rss_checked_at = 0;
        self.check_limits();
    }

    /// Stops building and solving (with [`Stop::Cancelled`]) once `cancel` is set.
    pub fn set_cancel(&mut self, cancel: Option<Arc<AtomicBool>>) {
        self.cancel = cancel;
    }

    /// Forgets a limit reached by a search the caller chose to bound more tightly.
    pub fn clear_stop(&mut self) {
        self.stop = None;
    }

    /// Why the formula was abandoned, if it was.
    pub fn stopped(&self) -> Option<Stop> {
        self.stop
    }

    /// Looks at the clock and the clause count now; the reason to stop, if any.
    pub fn check_limits(&mut self) -> Option<Stop> {
        if self.stop.is_none() {
            if let Some(stop) = outside_stop(&self.cancel, self.deadline, Instant::now()) {
                self.stop = Some(stop);
            } else if let Some(m) = self.max_clauses.filter(|&m| self.clauses >= m) {
                self.stop = Some(Stop::Size(m));
            } else if let Some(m) = self.max_rss.filter(|_| self.clauses >= self.rss_checked_at) {
                self.rss_checked_at = self.clauses + RSS_EVERY;
                if resident_bytes().is_some_and(|r| r >= m) {
                    self.stop = Some(Stop::Memory(m));
                }
            }
        }
        self.stop
    }

    /// Number of variables (including the constant).
    pub fn num_vars(&self) -> usize {
        self.defs.len()
    }

    /// A fresh unconstrained variable.
    pub fn fresh(&mut self) -> Lit {
        self.defs.push(Def::Input);
        Lit((self.defs.len() as u32 - 1) << 1)
    }

    fn gate(&mut self, d: Def) -> Lit {
        self.defs.push(d);
        Lit((self.defs.len() as u32 - 1) << 1)
    }

    /// Adds a clause, dropping false literals and skipping satisfied clauses.
    pub fn add_clause(&mut self, lits: &[Lit]) {
        if self.stop.is_some() {
            return;
        }
        let mut out: Vec<i32> = Vec::with_capacity(lits.len());
        for &l in lits {
            match l.as_const() {
                Some(true) => return,
                Some(false) => {}
                None => out.push(l.dimacs()),
            }
        }
        self.clauses += 1;
        if self.clauses % CHECK_EVERY == 0 || self.max_clauses.is_some_and(|m| self.clauses >= m) {
            self.check_limits();
        }
        self.solver.add_clause(&out);
    }

    /// Asserts `l`.
    pub fn assert(&mut self, l: Lit) {
        self.add_clause(&[l]);
    }

    /// Asserts `a → b`.
    pub fn implies(&mut self, a: Lit, b: Lit) {
        self.add_clause(&[!a, b]);
    }

    pub fn and(&mut self, a: Lit, b: Lit) -> Lit {
        if a == Lit::FALSE || b == Lit::FALSE || a == !b {
            return Lit::FALSE;
        }
        if a == Lit::TRUE || a == b {
            return b;
        }
        if b == Lit::TRUE {
            return a;
        }
        let key = if a < b { (a, b) } else { (b, a) };
        if let Some(&g) = self.and_cache.get(&key) {
            return g;
        }
        let g = self.gate(Def::And(key.0, key.1));
        self.add_clause(&[!g, a]);
        self.add_clause(&[!g, b]);
        self.add_clause(&[g, !a, !b]);
        self.and_cache.insert(key, g);
        g
    }

    pub fn or(&mut self, a: Lit, b: Lit) -> Lit {
        !self.and(!a, !b)
    }

    pub fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        if a.is_const() {
            return b.xor_sign(a == Lit::TRUE);
        }
        if b.is_const() {
            return a.xor_sign(b == Lit::TRUE);
        }
        if a == b {
            return Lit::FALSE;
        }
        if a == !b {
            return Lit::TRUE;
        }
        let parity = a.is_neg() ^ b.is_neg();
        let (a, b) = (Lit(a.0 & !1), Lit(b.0 & !1));
        let key = if a < b { (a, b) } else { (b, a) };
        let g = match self.xor_cache.get(&key) {
            Some(&g) => g,
            None => {
                let g = self.gate(Def::Xor);
                self.add_clause(&[!g, a, b]);
                self.add_clause(&[!g, !a, !b]);
                self.add_clause(&[g, !a, b]);
                self.add_clause(&[g, a, !b]);
                self.xor_cache.insert(key, g);
                g
            }
        };
        g.xor_sign(parity)
    }

    pub fn xnor(&mut self, a: Lit, b: Lit) -> Lit {
        !self.xor(a, b)
    }

    /// `c ? t : e`.
    pub fn ite(&mut self, c: Lit, t: Lit, e: Lit) -> Lit {
        match c.as_const() {
            Some(true) => return t,
            Some(false) => return e,
            None => {}
        }
        if t == e {
            return t;
        }
        if t == !e {
            return self.xnor(c, t);
        }
        if t == Lit::TRUE || c == t {
            return self.or(c, e);
        }
        if t == Lit::FALSE || c == !t {
            return self.and(!c, e);
        }
        if e == Lit::TRUE || c == !e {
            return self.or(!c, t);
        }
        if e == Lit::FALSE || c == e {
            return self.and(c, t);
        }
        let (c, t, e) = if c.is_neg() { (!c, e, t) } else { (c, t, e) };
        let (t, e, flip) = if t.is_neg() { (!t, !e, true) } else { (t, e, false) };
        let key = (c, t, e);
        let g = match self.ite_cache.get(&key) {
            Some(&g) => g,
            None => {
                let g = self.gate(Def::Ite);
                self.add_clause(&[!c, !t, g]);
                self.add_clause(&[!c, t, !g]);
                self.add_clause(&[c, !e, g]);
                self.add_clause(&[c, e, !g]);
                self.add_clause(&[!t, !e, g]);
                self.add_clause(&[t, e, !g]);
                self.ite_cache.insert(key, g);
                g
            }
        };
        g.xor_sign(flip)
    }

    /// Disjunction of many literals as one gate (`g ↔ l1 ∨ … ∨ ln`).
    pub fn or_all(&mut self, lits: impl IntoIterator<Item = Lit>) -> Lit {
        let mut v: Vec<Lit> = Vec::new();
        for l in lits {
            if l == Lit::TRUE {
                return Lit::TRUE;
            }
            if l != Lit::FALSE {
                v.push(l);
            }
        }
        v.sort();
        v.dedup();
        match v.len() {
            0 => Lit::FALSE,
            1 => v[0],
            2 => self.or(v[0], v[1]),
            _ => {
                let g = self.fresh();
                let mut big = vec![!g];
                for &l in &v {
                    self.add_clause(&[g, !l]);
                    big.push(l);
                }
                self.add_clause(&big);
                g
            }
        }
    }

    /// Whether `a` syntactically implies `b` (looking through and-gates): a cheap, incomplete
    /// check used to prune the encoding.
    pub fn syntactically_implies(&self, a: Lit, b: Lit) -> bool {
        fn go(s: &Sat, a: Lit, b: Lit, depth: u32) -> bool {
            if a == b || b == Lit::TRUE || a == Lit::FALSE {
                return true;
            }
            if depth == 0 || a.is_neg() {
                return false;
            }
            match s.defs[a.var() as usize] {
                Def::And(x, y) => go(s, x, b, depth - 1) || go(s, y, b, depth - 1),
                _ => false,
            }
        }
        go(self, a, b, 64)
    }

    /// Makes the solver keep "before" over `nodes` nodes acyclic ([`Acyclic`]); once per
    /// formula.
    pub fn order_theory(&mut self, nodes: usize) {
        self.solver.connect(Acyclic::new(nodes));
    }

    /// The literal "node `from` comes before node `to`" of the order theory (connected by
    /// [`Sat::order_theory`]); one per pair. Order literals must be used positively (as what
    /// an execution requires): a false one does not mean the opposite order.
    pub fn order_edge(&mut self, from: u32, to: u32) -> Lit {
        if let Some(&l) = self.order_cache.get(&(from, to)) {
            return l;
        }
        let l = self.fresh();
        let v = l.dimacs();
        self.solver.observe(v);
        self.solver.theory_mut().expect("order theory connected").add_edge(v, from, to);
        self.order_cache.insert((from, to), l);
        l
    }

    /// The number of order-theory edges made.
    pub fn order_edges(&self) -> usize {
        self.order_cache.len()
    }

    /// After a satisfiable [`Sat::solve`] with order edges: each block's place in a total
    /// order that extends the true edges.
    pub fn order_ranks(&self) -> Vec<u32> {
        let Some(t) = self.solver.theory() else { return vec![] };
        t.ranks(|v| self.solver.value(v))
    }

    /// Cycles the order theory excluded so far, and edges it propagated false.
    pub fn order_stats(&self) -> (usize, usize) {
        self.solver.theory().map_or((0, 0), |t| (t.lemmas, t.propagated))
    }

    /// Solves under `assumptions`; `None` when a limit was reached (before: see
    /// [`Sat::stopped`]; while solving: the deadline, and `stopped` then says `Time`).
    pub fn solve(&mut self, assumptions: &[Lit]) -> Option<bool> {
        self.has_model = false;
        if self.check_limits().is_some() {
            return None;
        }
        let mut assume = Vec::new();
        for &a in assumptions {
            match a.as_const() {
                Some(true) => {}
                Some(false) => {
                    self.has_model = false;
                    return Some(false);
                }
                None => assume.push(a.dimacs()),
            }
        }
        let limits = Limits { deadline: self.deadline, max_rss: self.max_rss, rss_read: None, hit: None, cancel: self.cancel.clone() };
        let any = limits.deadline.is_some() || limits.max_rss.is_some() || limits.cancel.is_some();
        self.solver.set_terminate(any.then_some(limits));
        let r = self.solver.solve(&assume);
        if r.is_none() {
            // Only the terminate callback makes CaDiCaL give up.
            self.stop = Some(self.solver.terminate_fn().and_then(|l| l.hit).unwrap_or(Stop::Time));
        }
        self.has_model = r == Some(true);
        r
    }

    /// The value of `l` in the last model (false for variables the solver never saw).
    pub fn value(&self, l: Lit) -> bool {
        if let Some(b) = l.as_const() {
            return b;
        }
        debug_assert!(self.has_model);
        self.solver.value(l.dimacs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_fold() {
        let mut s = Sat::new();
        let a = s.fresh();
        assert_eq!(s.and(a, Lit::TRUE), a);
        assert_eq!(s.and(a, !a), Lit::FALSE);
        assert_eq!(s.xor(a, a), Lit::FALSE);
        assert_eq!(s.ite(Lit::TRUE, a, !a), a);
        let b = s.fresh();
        let g1 = s.and(a, b);
        let g2 = s.and(b, a);
        assert_eq!(g1, g2);
        let x1 = s.xor(!a, b);
        let x2 = s.xor(a, b);
        assert_eq!(x1, !x2);
        assert!(s.syntactically_implies(g1, a));
    }

    #[test]
    fn solve_and_model() {
        let mut s = Sat::new();
        let a = s.fresh();
        let b = s.fresh();
        let x = s.xor(a, b);
        let c = s.ite(a, b, !b);
        s.assert(x);
        s.assert(a);
        assert_eq!(s.solve(&[]), Some(true));
        assert!(s.value(a) && !s.value(b) && !s.value(c));
        assert_eq!(s.solve(&[b]), Some(false));
    }

    #[test]
    fn expired_deadline_stops_adding_and_solving() {
        let mut s = Sat::new();
        let a = s.fresh();
        let b = s.fresh();
        s.set_limits(Some(Instant::now()), None, None);
        assert_eq!(s.stopped(), Some(Stop::Time));
        let before = s.clauses;
        let _ = s.and(a, b);
        assert_eq!(s.clauses, before, "no clause reaches the solver once stopped");
        assert_eq!(s.solve(&[]), None);
    }

    #[test]
    fn clause_limit_stops() {
        let mut s = Sat::new();
        s.set_limits(None, Some(10), None);
        let mut x = s.fresh();
        for _ in 0..10 {
            let y = s.fresh();
            x = s.xor(x, y);
        }
        assert_eq!(s.stopped(), Some(Stop::Size(10)));
        assert!(s.clauses <= 10);
        assert_eq!(s.solve(&[x]), None);
    }

    #[test]
    fn deadline_in_the_solver() {
        // The terminate callback alone (as when the deadline passes during the search).
        type S = crate::bmc::solver::Solver<Acyclic, Limits>;
        let mut solver = S::new();
        solver.add_clause(&[1, 2]);
        solver.set_terminate(Some(Limits { deadline: Some(Instant::now()), ..Default::default() }));
        assert_eq!(solver.solve(&[]), None);
        assert_eq!(solver.terminate_fn().and_then(|l| l.hit), Some(Stop::Time));
        if resident_bytes().is_some() {
            let mut solver = S::new();
            solver.add_clause(&[1, 2]);
            solver.set_terminate(Some(Limits { max_rss: Some(1), ..Default::default() }));
            assert_eq!(solver.solve(&[]), None);
            assert_eq!(solver.terminate_fn().and_then(|l| l.hit), Some(Stop::Memory(1)));
        }
        solver.set_terminate(Some(Limits::default()));
        assert_eq!(solver.solve(&[]), Some(true));
    }

    #[test]
    fn order_edges_are_kept_acyclic_by_the_theory() {
        // Three blocks; 0→1, 1→2 and 2→0 cannot all hold; any two can.
        let mut s = Sat::new();
        s.order_theory(3);
        let a = s.order_edge(0, 1);
        let b = s.order_edge(1, 2);
        let c = s.order_edge(2, 0);
        assert_eq!(s.solve(&[a, b, c]), Some(false));
        assert_eq!(s.solve(&[a, b]), Some(true));
        assert!(!s.value(c));
        let r = s.order_ranks();
        assert!(r[0] < r[1] && r[1] < r[2]);
        // A cycle through a clause: (0→1 or 1→0) and (1→0 → 0→1).
        let d = s.order_edge(1, 0);
        s.add_clause(&[a, d]);
        s.implies(d, a);
        assert_eq!(s.solve(&[]), Some(true));
        assert!(s.value(a) && !s.value(d));
    }

    #[test]
    fn memory_limit_stops() {
        if resident_bytes().is_none() {
            return;
        }
        let mut s = Sat::new();
        s.set_limits(None, None, Some(1));
        assert_eq!(s.stopped(), Some(Stop::Memory(1)));
    }
}
