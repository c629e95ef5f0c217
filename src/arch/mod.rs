//! Architectures as data (ESOP 2013 §2, "Architectures").
//!
//! An architecture `A` is given by the relations it keeps in global happens-before
//! (`safe_A`): which program-order pairs between *different* addresses it preserves, whether
//! internal/external read-from is safe, which dependencies from a read restore which pairs,
//! and what each fence instruction orders. Every architecture is one declarative [`Arch`]
//! value in [`tables`], written to read like a herd `.cat` file; nothing else in weakc
//! inspects architecture names (the cycle search and the selection only call the methods
//! below). Adding an architecture means adding a table and listing it in [`tables::ARCHS`].
//!
//! Same-address program-order pairs are always preserved (uniproc) and are not described
//! here; every method about program-order pairs assumes two different addresses.
//!
//! Fences: every [`Fence`] of the IR has an entry on every architecture. An instruction
//! foreign to the architecture is mapped conservatively: its entry never orders *more* than
//! the instruction (or its usual compilation) would, so a fence can only make weakc report
//! fewer cycles when it really forbids them.

pub mod c11;
pub mod tables;

use crate::aeg::{Deps, Dir, Links, PairInfo};
use crate::ir::Fence;

/// A set of program-order pair kinds (first direction, second direction).
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct PairSet(u8);

impl PairSet {
    pub const NONE: PairSet = PairSet(0);
    pub const WW: PairSet = PairSet(1);
    pub const WR: PairSet = PairSet(2);
    pub const RW: PairSet = PairSet(4);
    pub const RR: PairSet = PairSet(8);
    pub const ALL: PairSet = PairSet(15);

    /// The singleton set of `(first, second)`.
    pub const fn of(first: Dir, second: Dir) -> PairSet {
        match (first, second) {
            (Dir::W, Dir::W) => PairSet::WW,
            (Dir::W, Dir::R) => PairSet::WR,
            (Dir::R, Dir::W) => PairSet::RW,
            (Dir::R, Dir::R) => PairSet::RR,
        }
    }
    /// Union (`|` in the tables).
    pub const fn or(self, other: PairSet) -> PairSet {
        PairSet(self.0 | other.0)
    }
    /// Set difference.
    pub const fn minus(self, other: PairSet) -> PairSet {
        PairSet(self.0 & !other.0)
    }
    pub const fn contains(self, first: Dir, second: Dir) -> bool {
        self.0 & PairSet::of(first, second).0 != 0
    }
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for PairSet {
    type Output = PairSet;
    fn bitor(self, rhs: PairSet) -> PairSet {
        self.or(rhs)
    }
}

impl std::fmt::Debug for PairSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names = Vec::new();
        for (s, n) in [(PairSet::WW, "WW"), (PairSet::WR, "WR"), (PairSet::RW, "RW"), (PairSet::RR, "RR")] {
            if self.0 & s.0 != 0 {
                names.push(n);
            }
        }
        if names.is_empty() {
            write!(f, "{{}}")
        } else {
            write!(f, "{}", names.join("|"))
        }
    }
}

/// Whether a relation is kept in global happens-before.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rel {
    Safe,
    Relaxed,
}

/// Cumulativity of a fence (ESOP 2013 §2: `rfe; fence` and `fence; rfe` become safe).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cumul {
    /// Orders only the pairs around it.
    None,
    /// lwsync as in herd's ppc.cat: B-cumulative (`fence; rfe`), and A-cumulative
    /// (`rfe; fence`) only towards a later *write* — `rfe; lwsync; R` stays relaxed
    /// (iriw+lwsyncs is allowed on Power).
    Writes,
    /// sync/dmb-like: A- and B-cumulative for every pair it orders.
    Full,
}

/// What dependencies from a read preserve (pairs whose first event is a read).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DepRules {
    pub addr: PairSet,
    pub data: PairSet,
    pub ctrl: PairSet,
    /// A control dependency followed by `isync` (Power) / `isb` (ARM).
    pub ctrl_isync: PairSet,
    /// What an access with an address computed from the read, between the two, preserves
    /// (herd's `addr; po`, towards writes on Power, ARM and AArch64).
    pub addr_po: PairSet,
    /// A read that takes its value from its own thread's write comes after the reads that
    /// write's address or value depends on (herd's `(addr | data); rfi` in `ii0` of ppc.cat
    /// and arm.cat, `(addr | data); lrs` in aarch64.cat's `dob`): the write's value is known
    /// only then.
    pub dd_rfi: bool,
    /// Spelling of ctrl+isync in diy names (`DpCtrlIsyncdR` on Power, `DpCtrlIsbdR` on ARM).
    pub isync_diy: &'static str,
    /// Why the dependencies do or do not matter on this architecture (documentation).
    pub note: &'static str,
}

/// What acquire and release *instructions* order by themselves (AArch64's `LDAR`, `LDAPR`,
/// `STLR`; herd's `[A|Q]; po`, `po; [L]` and `[L]; po; [A]` in `bob`). Empty where C11
/// acquire/release compile to fences or dependencies instead.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AcqRelRules {
    /// Pairs from an acquire read (`LDAR`, `LDAPR`) it orders.
    pub acquire: PairSet,
    /// Pairs to a release write (`STLR`) it orders.
    pub release: PairSet,
    /// A release write before an RCsc acquire read (`STLR; LDAR`) stays ordered.
    pub release_acquire: bool,
}

/// No acquire/release instructions.
pub const NO_ACQ_REL: AcqRelRules = AcqRelRules { acquire: PairSet::NONE, release: PairSet::NONE, release_acquire: false };

/// One fence instruction on one architecture.
#[derive(Copy, Clone, Debug)]
pub struct FenceRule {
    pub fence: Fence,
    /// Pairs (between different addresses) across the fence it orders.
    pub orders: PairSet,
    pub cumul: Cumul,
    /// Relative cost of inserting this fence (for a later fence-insertion pass; 0 = free,
    /// a full barrier costs 4).
    pub cost: u32,
    /// diy/herd spelling in cycle names (`MFence`, `Sync`, `LwSync`, `DMB`, ...).
    pub diy: &'static str,
    /// A lightweight fence in herd's sense (`lwsync`, `eieio`: in `prop-base` but not
    /// `ffence`). What it orders, and its cumulativity, forbid a cycle only through herd's
    /// propagation axiom over `co` alone or its observation axiom (one `fr`), or when a
    /// strong fence follows it in happens-before; see [`crate::cycles`].
    pub light: bool,
}

/// A fence `weakc fences` may insert on an architecture: the IR fence (its [`FenceRule`]
/// gives what it orders and its cost) and the instruction for `asm volatile("...")`.
#[derive(Copy, Clone, Debug)]
pub struct Insertable {
    pub fence: Fence,
    /// Assembly text the front end reads back as `fence` (`"lwsync"`, `"membar #StoreStore"`).
    pub asm: &'static str,
}

/// A memory model as a table. See [`tables`] for the instances.
#[derive(Debug)]
pub struct Arch {
    /// Canonical name (`sc`, `tso`, `pso`, `rmo`, `power`, `power-esop`, `arm`, `aarch64`).
    pub name: &'static str,
    /// Other accepted names (`x86`, `ppc`).
    pub aliases: &'static [&'static str],
    /// One-line description for `--help`.
    pub doc: &'static str,
    /// Preserved program order between different addresses, without fences or dependencies.
    pub ppo: PairSet,
    /// Internal read-from (store forwarding).
    pub rfi: Rel,
    /// External read-from (write atomicity).
    pub rfe: Rel,
    pub deps: DepRules,
    /// One rule per [`Fence`] variant (checked by the unit tests).
    pub fences: &'static [FenceRule],
    /// The fences `weakc fences` chooses from, with their assembly (the native
    /// instructions of the architecture; empty when nothing is relaxed).
    pub menu: &'static [Insertable],
    /// What its acquire/release instructions order.
    pub acq_rel: AcqRelRules,
    /// How C11/GCC atomics and locks compile here.
    pub c11: &'static c11::Mapping,
}

impl Arch {
    /// The canonical names of all architectures, in table order.
    pub fn names() -> Vec<&'static str> {
        tables::ARCHS.iter().map(|a| a.name).collect()
    }

    /// All architectures.
    pub fn all() -> &'static [&'static Arch] {
        tables::ARCHS
    }

    /// The fence's rule. Panics only if a table misses a fence (a unit test forbids it).
    pub fn fence_rule(&self, f: Fence) -> &FenceRule {
        self.fences
            .iter()
            .find(|r| r.fence == f)
            .unwrap_or_else(|| panic!("arch {}: no rule for fence {:?}", self.name, f))
    }

    /// Does fence `f` order a `(first, second)` pair across it (different addresses)?
    pub fn fence_orders(&self, f: Fence, first: Dir, second: Dir) -> bool {
        self.fence_rule(f).orders.contains(first, second)
    }

    /// Is fence `f` cumulative at all (A- or B-)? See [`Cumul`] for the refinement used by
    /// [`Arch::rfe_then_pair_safe`].
    pub fn fence_cumulative(&self, f: Fence) -> bool {
        self.fence_rule(f).cumul != Cumul::None
    }

    /// Is a program-order pair between different addresses preserved, given what lies between
    /// (fences on every path, dependencies)? True if the model preserves the pair kind, a
    /// fence in `info.fences` orders it, or a dependency in `info.deps` the table honours
    /// preserves it.
    pub fn po_pair_safe(&self, first: Dir, second: Dir, info: &PairInfo) -> bool {
        self.po_pair_safe_by(first, second, info, false)
    }

    /// The pair `(first, second)` is ordered by a lightweight fence and by nothing stronger (as
    /// the cycle search judges it, also through a write to the read's object in between).
    pub fn light_ordered(&self, first: Dir, second: Dir, info: &PairInfo) -> bool {
        let light = |d: Dir| self.po_pair_safe_by(first, d, info, false) && !self.po_pair_safe_by(first, d, info, true);
        light(second) || second == Dir::R && !info.writes_between.is_empty() && light(Dir::W)
    }

    /// [`Arch::po_pair_safe`], counting only strong fences when `strong_only`.
    pub fn po_pair_safe_by(&self, first: Dir, second: Dir, info: &PairInfo, strong_only: bool) -> bool {
        self.ppo.contains(first, second)
            || self.fences_of(info, strong_only).any(|f| self.fence_orders(f, first, second))
            || self.dep_preserves(first, second, info)
            || self.acq_rel_preserves(first, second, info)
    }

    /// Does an acquire or release instruction at either end of the pair preserve it?
    pub fn acq_rel_preserves(&self, first: Dir, second: Dir, info: &PairInfo) -> bool {
        let (h, r) = (&info.hw, &self.acq_rel);
        (h.acquire && r.acquire.contains(first, second))
            || (h.release && r.release.contains(first, second))
            || (h.release_acquire && r.release_acquire)
    }

    /// The fences of `info` that count: all, or the strong ones only.
    fn fences_of<'i>(&'i self, info: &'i PairInfo, strong_only: bool) -> impl Iterator<Item = Fence> + 'i {
        info.fences.iter().copied().filter(move |&f| !strong_only || !self.fence_rule(f).light)
    }

    /// Does a strong (not lightweight) fence of `info` order the pair?
    pub fn strongly_fenced(&self, first: Dir, second: Dir, info: &PairInfo) -> bool {
        self.fences_of(info, true).any(|f| self.fence_orders(f, first, second))
    }

    /// Does a dependency recorded in `info` preserve the pair on this architecture?
    pub fn dep_preserves(&self, first: Dir, second: Dir, info: &PairInfo) -> bool {
        if first != Dir::R {
            return false;
        }
        let d = &info.deps;
        let direct = Links { addr: d.addr, data: d.data, ctrl: d.ctrl, ctrl_isync: d.ctrl_isync };
        self.links_preserve(second, &direct) || (d.addr_po && self.deps.addr_po.contains(first, second)) || self.chain_preserves(second, d)
    }

    /// Does one of the dependencies `l` of a later event on a read preserve the pair?
    fn links_preserve(&self, second: Dir, l: &Links) -> bool {
        let r = &self.deps;
        (l.addr && r.addr.contains(Dir::R, second))
            || (l.data && r.data.contains(Dir::R, second))
            || (l.ctrl && r.ctrl.contains(Dir::R, second))
            || (l.ctrl_isync && r.ctrl_isync.contains(Dir::R, second))
    }

    /// Does a chain of dependencies through reads between ([`Deps::chained`]) preserve the
    /// pair from a read to `second`? Where the reads between are ordered after the first
    /// (herd's `ii`: an address dependency, or a branch and an `isync`), what orders them
    /// before `second` composes with it on every model here (Power and ARM: `ii; ii ⊆ ii`,
    /// `ii; ic ⊆ ic`; AArch64's `ob` and SPARC's memory order are transitive).
    fn chain_preserves(&self, second: Dir, d: &Deps) -> bool {
        let r = &self.deps;
        let addr_rr = r.addr.contains(Dir::R, Dir::R);
        (addr_rr && self.links_preserve(second, &d.chained_addr))
            || (addr_rr && r.ctrl_isync.contains(Dir::R, Dir::R) && self.links_preserve(second, &d.chained))
    }

    /// Is the pair ordered by some fence of `info` (not by the model or a dependency)?
    pub fn fenced(&self, first: Dir, second: Dir, info: &PairInfo) -> Option<Fence> {
        info.fences.iter().copied().find(|&f| self.fence_orders(f, first, second))
    }

    /// External read-from is safe (multi-copy-atomic stores).
    pub fn rfe_safe(&self) -> bool {
        self.rfe == Rel::Safe
    }

    /// Internal read-from (store forwarding) is safe.
    pub fn rfi_safe(&self) -> bool {
        self.rfi == Rel::Safe
    }

    /// A-cumulativity: is `rfe; fence` safe, where the fence orders the program-order pair
    /// `(R, second)` that starts at the rfe's read?
    pub fn rfe_then_pair_safe(&self, second: Dir, info: &PairInfo, strong_only: bool) -> bool {
        self.fences_of(info, strong_only).any(|f| {
            let r = self.fence_rule(f);
            r.orders.contains(Dir::R, second)
                && match r.cumul {
                    Cumul::None => false,
                    Cumul::Writes => second == Dir::W,
                    Cumul::Full => true,
                }
        })
    }

    /// B-cumulativity: is `fence; rfe` safe, where the fence orders the program-order pair
    /// `(first, W)` that ends at the rfe's write?
    pub fn pair_then_rfe_safe(&self, first: Dir, info: &PairInfo, strong_only: bool) -> bool {
        self.fences_of(info, strong_only).any(|f| {
            let r = self.fence_rule(f);
            r.orders.contains(first, Dir::W)
                && r.cumul != Cumul::None
        })
    }

    /// The fences `weakc fences` may insert, cheapest first.
    pub fn fence_menu(&self) -> Vec<Insertable> {
        let mut m = self.menu.to_vec();
        m.sort_by_key(|i| (self.fence_rule(i.fence).cost, crate::arch::fence_index(i.fence)));
        m
    }

    /// Do two fences have the same effect here (what they order and their cumulativity)?
    pub fn fences_equivalent(&self, a: Fence, b: Fence) -> bool {
        let (x, y) = (self.fence_rule(a), self.fence_rule(b));
        x.orders == y.orders && x.cumul == y.cumul
    }

    /// The model relaxes nothing (SC): no cycle can be critical.
    pub fn relaxes_nothing(&self) -> bool {
        self.ppo == PairSet::ALL && self.rfe_safe() && self.rfi_safe()
    }
}

/// Look an architecture up by name or alias (case-insensitive).
/// [`by_name`], or the usage error every command gives for an unknown model (exit 2).
pub fn lookup(name: &str) -> Result<&'static Arch, crate::source::Error> {
    by_name(name).ok_or_else(|| crate::source::Error::Usage(format!("unknown memory model `{name}`; known: {} (aliases x86, ppc)", Arch::names().join(", "))))
}

pub fn by_name(name: &str) -> Option<&'static Arch> {
    let n = name.to_ascii_lowercase();
    tables::ARCHS
        .iter()
        .copied()
        .find(|a| a.name == n || a.aliases.iter().any(|&x| x == n))
}

pub use crate::ir::ALL_FENCES;


/// Position of a fence in [`ALL_FENCES`]; the exhaustive match makes adding a variant to
/// [`Fence`] a compile error here, reminding to extend the list and every table.
pub const fn fence_index(f: Fence) -> usize {
    match f {
        Fence::Full => 0,
        Fence::AcqRel => 1,
        Fence::Mfence => 2,
        Fence::Sync => 3,
        Fence::Lwsync => 4,
        Fence::Isync => 5,
        Fence::Eieio => 6,
        Fence::Dmb => 7,
        Fence::DmbSt => 8,
        Fence::DmbLd => 9,
        Fence::Dsb => 10,
        Fence::Isb => 11,
        Fence::MembarRelease => 12,
        Fence::MembarLoadLoad => 13,
        Fence::MembarStoreLoad => 14,
        Fence::MembarToLoads => 15,
        Fence::MembarFromStores => 16,
        Fence::Acquire => 17,
        Fence::Release => 18,
        Fence::Compiler => 19,
    }
}

#[cfg(test)]
mod tests;
