use super::*;
use crate::aeg::{Deps, Dir::*, PairInfo};

const PAIRS: [(Dir, Dir); 4] = [(W, R), (W, W), (R, R), (R, W)];

fn plain() -> PairInfo {
    PairInfo::default()
}
fn fenced(f: Fence) -> PairInfo {
    let mut p = PairInfo::default();
    p.fences.insert(f);
    p
}
fn dep(d: Deps) -> PairInfo {
    PairInfo { deps: d, ..PairInfo::default() }
}
fn arch(n: &str) -> &'static Arch {
    by_name(n).unwrap()
}
/// The pair kinds an architecture relaxes without fences or dependencies.
fn relaxed(a: &Arch) -> Vec<(Dir, Dir)> {
    PAIRS.iter().copied().filter(|&(x, y)| !a.po_pair_safe(x, y, &plain())).collect()
}

#[test]
fn every_table_has_every_fence_once() {
    for (i, f) in ALL_FENCES.iter().enumerate() {
        assert_eq!(fence_index(*f), i);
    }
    for a in Arch::all() {
        assert_eq!(a.fences.len(), ALL_FENCES.len(), "{}", a.name);
        for f in ALL_FENCES {
            assert_eq!(a.fences.iter().filter(|r| r.fence == f).count(), 1, "{} {:?}", a.name, f);
        }
    }
}

#[test]
fn names_and_aliases_resolve() {
    assert_eq!(Arch::names(), vec!["sc", "tso", "pso", "rmo", "power", "power-esop", "arm", "aarch64"]);
    for n in Arch::names() {
        assert_eq!(arch(n).name, n);
    }
    assert_eq!(arch("x86").name, "tso");
    assert_eq!(arch("PPC").name, "power");
    assert_eq!(arch("Power").name, "power");
    assert_eq!(arch("power-herd").name, "power");
    assert_eq!(arch("ppc-esop").name, "power-esop");
    assert!(by_name("alpha").is_none());
}

#[test]
fn sc_relaxes_nothing() {
    let sc = arch("sc");
    assert!(relaxed(sc).is_empty());
    assert!(sc.rfe_safe() && sc.rfi_safe());
    assert!(sc.relaxes_nothing());
    for a in Arch::all() {
        if a.name != "sc" {
            assert!(!a.relaxes_nothing(), "{}", a.name);
        }
    }
}

#[test]
fn tso_relaxes_exactly_wr_and_rfi() {
    let tso = arch("tso");
    assert_eq!(relaxed(tso), vec![(W, R)]);
    assert!(!tso.rfi_safe());
    assert!(tso.rfe_safe());
}

#[test]
fn pso_rmo_power_arm_relaxed_pairs() {
    assert_eq!(relaxed(arch("pso")), vec![(W, R), (W, W)]);
    for n in ["rmo", "power-esop", "arm"] {
        assert_eq!(relaxed(arch(n)), PAIRS.to_vec(), "{n}");
    }
    for n in ["pso", "rmo"] {
        assert!(arch(n).rfe_safe() && !arch(n).rfi_safe(), "{n}");
    }
    for n in ["power-esop", "arm"] {
        assert!(!arch(n).rfe_safe() && !arch(n).rfi_safe(), "{n}");
    }
}

#[test]
fn power_respects_addr_and_data_deps() {
    let p = arch("power-esop");
    let addr = dep(Deps { addr: true, ..Deps::default() });
    let data = dep(Deps { data: true, ..Deps::default() });
    let ctrl = dep(Deps { ctrl: true, ..Deps::default() });
    let ctrl_isync = dep(Deps { ctrl: true, ctrl_isync: true, ..Deps::default() });
    assert!(p.po_pair_safe(R, R, &addr) && p.po_pair_safe(R, W, &addr));
    assert!(p.po_pair_safe(R, W, &data));
    assert!(!p.po_pair_safe(R, R, &data));
    assert!(p.po_pair_safe(R, W, &ctrl));
    assert!(!p.po_pair_safe(R, R, &ctrl));
    assert!(p.po_pair_safe(R, R, &ctrl_isync));
    // dependencies only ever start at a read
    assert!(!p.po_pair_safe(W, W, &addr));
    // RMO: addr and data, not ctrl
    let rmo = arch("rmo");
    assert!(rmo.po_pair_safe(R, R, &addr) && rmo.po_pair_safe(R, W, &data));
    assert!(!rmo.po_pair_safe(R, W, &ctrl));
    // ARM: ctrl+isb restores read-read
    assert!(arch("arm").po_pair_safe(R, R, &ctrl_isync));
    assert!(!arch("arm").po_pair_safe(R, R, &ctrl));
}

#[test]
fn lwsync_does_not_order_write_read() {
    for n in ["power-esop", "arm", "tso", "pso", "rmo"] {
        let a = arch(n);
        assert!(!a.fence_orders(Fence::Lwsync, W, R), "{n}");
        assert!(!a.po_pair_safe(W, R, &fenced(Fence::Lwsync)), "{n}");
        for (x, y) in [(W, W), (R, R), (R, W)] {
            assert!(a.fence_orders(Fence::Lwsync, x, y), "{n} {x:?}{y:?}");
        }
    }
    // ESOP's Power: lwsync is not cumulative; herd's: it is.
    assert!(!arch("power-esop").fence_cumulative(Fence::Lwsync));
    assert!(arch("power").fence_cumulative(Fence::Lwsync));
    // AcqRel is lwsync on Power
    assert!(!arch("power-esop").fence_orders(Fence::AcqRel, W, R));
    assert!(arch("power-esop").fence_orders(Fence::AcqRel, R, R));
}

#[test]
fn full_fences_order_everything() {
    for a in Arch::all() {
        for f in [Fence::Mfence, Fence::Sync, Fence::Full, Fence::Dmb, Fence::Dsb] {
            for (x, y) in PAIRS {
                assert!(a.fence_orders(f, x, y), "{} {f:?}", a.name);
                assert!(a.po_pair_safe(x, y, &fenced(f)), "{} {f:?}", a.name);
            }
            if !a.rfe_safe() {
                assert!(a.fence_cumulative(f));
                assert!(a.rfe_then_pair_safe(R, &fenced(f), false));
                assert!(a.pair_then_rfe_safe(W, &fenced(f), false));
            }
        }
    }
    // mfence on TSO makes sb safe
    assert!(arch("tso").po_pair_safe(W, R, &fenced(Fence::Mfence)));
}

#[test]
fn weak_fences() {
    for a in Arch::all() {
        // compiler barrier, isync and isb alone order nothing anywhere
        for f in [Fence::Compiler, Fence::Isync, Fence::Isb] {
            for (x, y) in PAIRS {
                assert!(!a.fence_orders(f, x, y), "{} {f:?}", a.name);
            }
        }
        // store barriers order only write-write
        for f in [Fence::Eieio, Fence::DmbSt] {
            for (x, y) in PAIRS {
                assert_eq!(a.fence_orders(f, x, y), (x, y) == (W, W), "{} {f:?}", a.name);
            }
        }
        // dmb ld: from a read only
        for (x, y) in PAIRS {
            assert_eq!(a.fence_orders(Fence::DmbLd, x, y), x == R, "{}", a.name);
        }
        assert!(!a.fence_cumulative(Fence::DmbLd));
    }
    // AcqRel: nothing on TSO (compiler barrier), lwsync-like on PSO/RMO, dmb on ARM
    for (x, y) in PAIRS {
        assert!(!arch("tso").fence_orders(Fence::AcqRel, x, y));
        assert!(arch("arm").fence_orders(Fence::AcqRel, x, y));
    }
    for n in ["pso", "rmo"] {
        assert!(arch(n).fence_orders(Fence::AcqRel, W, W));
        assert!(!arch(n).fence_orders(Fence::AcqRel, W, R));
    }
}

#[test]
fn cumulativity_of_lwsync_is_restricted() {
    // The ESOP model's lwsync is not cumulative at all.
    let esop = arch("power-esop");
    for d in [R, W] {
        assert!(!esop.rfe_then_pair_safe(d, &fenced(Fence::Lwsync), false) && !esop.pair_then_rfe_safe(d, &fenced(Fence::Lwsync), false));
    }
    let p = arch("power");
    let lw = fenced(Fence::Lwsync);
    // rfe; lwsync; W is safe (wrc+lwsync+addr), rfe; lwsync; R is not (iriw+lwsyncs)
    assert!(p.rfe_then_pair_safe(W, &lw, false));
    assert!(!p.rfe_then_pair_safe(R, &lw, false));
    // lwsync; rfe (mp+lwsync+addr)
    assert!(p.pair_then_rfe_safe(W, &lw, false));
    assert!(p.pair_then_rfe_safe(R, &lw, false));
    // sync is fully cumulative
    assert!(p.rfe_then_pair_safe(R, &fenced(Fence::Sync), false));
    // dmb ld is not cumulative; eieio only orders W→W
    assert!(!arch("arm").rfe_then_pair_safe(R, &fenced(Fence::DmbLd), false));
    assert!(!p.rfe_then_pair_safe(W, &fenced(Fence::Eieio), false));
    assert!(p.pair_then_rfe_safe(W, &fenced(Fence::Eieio), false));
    assert!(!p.pair_then_rfe_safe(R, &fenced(Fence::Eieio), false));
}

#[test]
fn fence_costs_are_monotone() {
    for a in Arch::all() {
        let c = |f| a.fence_rule(f).cost;
        assert_eq!(c(Fence::Compiler), 0);
        assert!(c(Fence::Lwsync) < c(Fence::Sync) && c(Fence::Eieio) <= c(Fence::Lwsync));
    }
}

#[test]
fn addr_po_orders_a_later_write_on_herds_power_and_arm_only() {
    let info = PairInfo { deps: Deps { addr_po: true, ..Deps::default() }, ..PairInfo::default() };
    for (name, kept) in [("power-esop", false), ("power", true), ("arm", true), ("aarch64", true), ("rmo", false)] {
        let a = by_name(name).unwrap();
        assert_eq!(a.po_pair_safe(Dir::R, Dir::W, &info), kept, "{name}: R→W after an address-dependent access");
        if name != "rmo" {
            assert!(!a.po_pair_safe(Dir::R, Dir::R, &info), "{name}: addr;po does not order a later read");
        }
    }
}

/// A pair from a read ordered through a read between (`r = y; s = *(p + r); … x`): on
/// Power and ARM `ii; ii ⊆ ii` and `ii; ic ⊆ ic`, AArch64's `ob` and SPARC's memory order
/// are transitive; RMO knows no `isync`, so only chains of address dependencies count there.
#[test]
fn a_dependency_chain_through_a_read_orders_the_pair_it_spans() {
    use crate::aeg::Links;
    let any = |l: Links| dep(Deps { chained: l, ..Deps::default() });
    let by_addr = |l: Links| dep(Deps { chained_addr: l, ..Deps::default() });
    let addr = Links { addr: true, ..Links::default() };
    let data = Links { data: true, ..Links::default() };
    let ctrl = Links { ctrl: true, ..Links::default() };
    let ctrl_isync = Links { ctrl: true, ctrl_isync: true, ..Links::default() };
    for n in ["power", "arm", "aarch64"] {
        let a = arch(n);
        assert!(a.po_pair_safe(R, R, &any(addr)) && a.po_pair_safe(R, W, &any(addr)), "{n}");
        assert!(a.po_pair_safe(R, R, &any(ctrl_isync)), "{n}");
        assert!(a.po_pair_safe(R, W, &any(data)) && a.po_pair_safe(R, W, &any(ctrl)), "{n}");
        assert!(!a.po_pair_safe(R, R, &any(ctrl)), "{n}: a branch alone does not order a read");
        assert!(!a.po_pair_safe(R, R, &any(data)), "{n}");
    }
    let rmo = arch("rmo");
    assert!(rmo.po_pair_safe(R, R, &by_addr(addr)) && rmo.po_pair_safe(R, W, &by_addr(data)));
    assert!(!rmo.po_pair_safe(R, R, &any(addr)), "rmo: a chain through a branch does not count");
    assert!(!rmo.po_pair_safe(R, W, &by_addr(ctrl)));
}
