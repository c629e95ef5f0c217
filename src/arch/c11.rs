//! How C11 `<stdatomic.h>` and GCC `__atomic_*`/`__sync_*` operations, and library locks,
//! compile on each architecture: one [`Row`] per operation and memory order, as data.
//!
//! Sources, cited per table below:
//! * x86, Power, ARMv7: P. Sewell et al., "C/C++11 mappings to processors"
//!   (<https://www.cl.cam.ac.uk/~pes20/cpp/cpp0xmappings.html>), the mappings proved correct
//!   by Batty et al. (POPL 2011, 2012) and Sarkar et al. (PLDI 2012); where the page lists two
//!   sequences, the one GCC 12 emits is used (x86 `mov; mfence` for seq_cst stores, ARMv7
//!   `dmb ish` rather than `isb` after acquire read-modify-writes).
//! * AArch64: GCC 12's `aarch64` backend (`ldar`/`stlr`, `ldaxr`/`stlxr`; `ldapr` with
//!   `+rcpc`, weakc's `--ldapr`), as in the ARMv8 column of the same page and the Arm ARM.
//! * SPARC PSO/RMO: GCC's `sparc_emit_membar_for_model` (gcc/config/sparc/sparc.cc): a
//!   `membar` with the bits the order needs, minus those the memory model (`-mmemory-model=`
//!   pso/rmo) implies. A mask is written as the IR fence that orders exactly those pairs
//!   given the access it surrounds (`#StoreLoad | #StoreStore` after a store is a full
//!   `membar` on PSO, where read→any is kept anyway).
//!
//! What each row's fences and [`HwOrder`] order is the architecture table's business
//! ([`super::tables`]); the rows only say which instructions the compiler emits. Orders a
//! load or store cannot have (a release load, an acquire store) are compiled as `seq_cst`,
//! as GCC does ("invalid memory model"); `consume` is `acquire`, as in every compiler.
//!
//! Locks ([`Mapping::lock`], [`Mapping::unlock`]) are glibc's: `pthread_mutex_lock` is an
//! atomic read-modify-write with acquire ordering and `pthread_mutex_unlock` one with
//! release ordering (`lll_lock` / `atomic_exchange_rel`), on every architecture.

use crate::ir::Fence::{self, *};
use crate::ir::{Acquire, HwOrder, MemOrder};

/// The kind of atomic operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Load,
    Store,
    /// Any read-modify-write: exchange, compare-exchange, fetch-op, test-and-set.
    Rmw,
    /// `atomic_thread_fence`.
    Fence,
}

/// One operation at one order on one architecture.
#[derive(Copy, Clone, Debug)]
pub struct Row {
    pub op: Op,
    pub order: MemOrder,
    /// Barriers before the access (for [`Op::Fence`]: the fence itself).
    pub before: &'static [Fence],
    /// Ordering the access instruction carries itself.
    pub hw: HwOrder,
    /// Barriers after the access.
    pub after: &'static [Fence],
    /// The instruction sequence, for the README and the notes.
    pub code: &'static str,
}

/// The compilation of every operation for one architecture.
#[derive(Debug)]
pub struct Mapping {
    pub name: &'static str,
    /// Where the rows come from.
    pub source: &'static str,
    pub rows: &'static [Row],
}

impl Mapping {
    /// The row for `op` at `order` (`order` made valid for the operation first).
    pub fn row(&self, op: Op, order: MemOrder) -> &Row {
        let order = valid_order(op, order);
        self.rows
            .iter()
            .find(|r| r.op == op && r.order == order)
            .unwrap_or_else(|| panic!("mapping {}: no row for {op:?} {order:?}", self.name))
    }

    /// `pthread_mutex_lock` and the other lock acquisitions.
    pub fn lock(&self) -> &Row {
        self.row(Op::Rmw, MemOrder::Acquire)
    }

    /// `pthread_mutex_unlock` and the other lock releases.
    pub fn unlock(&self) -> &Row {
        self.row(Op::Rmw, MemOrder::Release)
    }
}

/// GCC's treatment of orders an operation cannot have: `seq_cst`.
pub fn valid_order(op: Op, order: MemOrder) -> MemOrder {
    use MemOrder::*;
    match (op, order) {
        (Op::Load, Release | AcqRel) | (Op::Store, Acquire | AcqRel) => SeqCst,
        _ => order,
    }
}

const PLAIN: HwOrder = HwOrder { acquire: Acquire::None, release: false };
const CTRL_ISYNC: HwOrder = HwOrder { acquire: Acquire::CtrlIsync, release: false };
const LDAR: HwOrder = HwOrder { acquire: Acquire::Sc, release: false };
const LDAPR: HwOrder = HwOrder { acquire: Acquire::Pc, release: false };
const STLR: HwOrder = HwOrder { acquire: Acquire::None, release: true };
const LDAXR_STLXR: HwOrder = HwOrder { acquire: Acquire::Sc, release: true };

const fn row(op: Op, order: MemOrder, before: &'static [Fence], hw: HwOrder, after: &'static [Fence], code: &'static str) -> Row {
    Row { op, order, before, hw, after, code }
}

use MemOrder::{AcqRel as AR, Acquire as Acq, Relaxed as Rlx, Release as Rel, SeqCst as SC};
use Op::{Fence as F, Load as L, Rmw as M, Store as S};

/// Every valid (operation, order) pair a mapping has a row for.
pub const ROW_KEYS: [(Op, MemOrder); 16] = [
    (L, Rlx), (L, Acq), (L, SC),
    (S, Rlx), (S, Rel), (S, SC),
    (M, Rlx), (M, Acq), (M, Rel), (M, AR), (M, SC),
    (F, Rlx), (F, Acq), (F, Rel), (F, AR), (F, SC),
];

/// x86-64 (also used for `sc`, where nothing is relaxed anyway).
pub static X86: Mapping = Mapping {
    name: "x86",
    source: "Sewell et al., C/C++11 mappings to processors, x86; GCC 12 x86-64",
    rows: &[
        //  op order before     hw     after       code
        row(L, Rlx, &[],        PLAIN, &[],        "mov"),
        row(L, Acq, &[],        PLAIN, &[],        "mov"),
        row(L, SC,  &[],        PLAIN, &[],        "mov"),
        row(S, Rlx, &[],        PLAIN, &[],        "mov"),
        row(S, Rel, &[],        PLAIN, &[],        "mov"),
        row(S, SC,  &[],        PLAIN, &[Mfence],  "mov; mfence"),
        // a locked instruction (lock xadd, lock cmpxchg, xchg) orders everything around it
        row(M, Rlx, &[Mfence],  PLAIN, &[Mfence],  "lock <op>"),
        row(M, Acq, &[Mfence],  PLAIN, &[Mfence],  "lock <op>"),
        row(M, Rel, &[Mfence],  PLAIN, &[Mfence],  "lock <op>"),
        row(M, AR,  &[Mfence],  PLAIN, &[Mfence],  "lock <op>"),
        row(M, SC,  &[Mfence],  PLAIN, &[Mfence],  "lock <op>"),
        row(F, Rlx, &[],        PLAIN, &[],        "(nothing)"),
        row(F, Acq, &[],        PLAIN, &[],        "(nothing)"),
        row(F, Rel, &[],        PLAIN, &[],        "(nothing)"),
        row(F, AR,  &[],        PLAIN, &[],        "(nothing)"),
        row(F, SC,  &[Mfence],  PLAIN, &[],        "mfence"),
    ],
};

/// SPARC V9 in PSO mode (`#LoadLoad | #LoadStore` implied).
pub static SPARC_PSO: Mapping = Mapping {
    name: "sparc-pso",
    source: "GCC sparc_emit_membar_for_model, -mmemory-model=pso",
    rows: &[
        row(L, Rlx, &[],        PLAIN, &[],        "ld"),
        row(L, Acq, &[],        PLAIN, &[],        "ld"),
        // #StoreLoad before the load; with read→any kept, a full membar orders no more
        row(L, SC,  &[Mfence],  PLAIN, &[],        "membar #StoreLoad; ld"),
        row(S, Rlx, &[],        PLAIN, &[],        "st"),
        row(S, Rel, &[DmbSt],   PLAIN, &[],        "membar #StoreStore; st"),
        row(S, SC,  &[DmbSt],   PLAIN, &[Mfence],  "membar #StoreStore; st; membar #StoreLoad | #StoreStore"),
        row(M, Rlx, &[],        PLAIN, &[],        "cas"),
        row(M, Acq, &[],        PLAIN, &[Mfence],  "cas; membar #StoreLoad | #StoreStore"),
        row(M, Rel, &[Mfence],  PLAIN, &[],        "membar #StoreLoad | #StoreStore; cas"),
        row(M, AR,  &[Mfence],  PLAIN, &[Mfence],  "membar #StoreLoad | #StoreStore; cas; membar #StoreLoad | #StoreStore"),
        row(M, SC,  &[Mfence],  PLAIN, &[Mfence],  "membar #StoreLoad | #StoreStore; cas; membar #StoreLoad | #StoreStore"),
        row(F, Rlx, &[],        PLAIN, &[],        "(nothing)"),
        row(F, Acq, &[Mfence],  PLAIN, &[],        "membar #StoreLoad | #StoreStore"),
        row(F, Rel, &[Mfence],  PLAIN, &[],        "membar #StoreLoad | #StoreStore"),
        row(F, AR,  &[Mfence],  PLAIN, &[],        "membar #StoreLoad | #StoreStore"),
        row(F, SC,  &[Mfence],  PLAIN, &[],        "membar #StoreLoad | #StoreStore"),
    ],
};

/// SPARC V9 in RMO mode (nothing implied).
pub static SPARC_RMO: Mapping = Mapping {
    name: "sparc-rmo",
    source: "GCC sparc_emit_membar_for_model, -mmemory-model=rmo",
    rows: &[
        row(L, Rlx, &[],              PLAIN, &[],       "ld"),
        row(L, Acq, &[],              PLAIN, &[DmbLd],  "ld; membar #LoadLoad | #LoadStore"),
        // #LoadLoad | #StoreLoad before: everything earlier is ordered before the load, and
        // the load before everything later, so a full membar before orders no more
        row(L, SC,  &[Mfence],        PLAIN, &[DmbLd],  "membar #LoadLoad | #StoreLoad; ld; membar #LoadLoad | #LoadStore"),
        row(S, Rlx, &[],              PLAIN, &[],       "st"),
        row(S, Rel, &[MembarRelease], PLAIN, &[],       "membar #LoadStore | #StoreStore; st"),
        // #StoreLoad | #StoreStore after: as above, a full membar orders no more
        row(S, SC,  &[MembarRelease], PLAIN, &[Mfence], "membar #LoadStore | #StoreStore; st; membar #StoreLoad | #StoreStore"),
        row(M, Rlx, &[],              PLAIN, &[],       "cas"),
        row(M, Acq, &[],              PLAIN, &[Mfence], "cas; membar #LoadLoad | #LoadStore | #StoreLoad | #StoreStore"),
        row(M, Rel, &[Mfence],        PLAIN, &[],       "membar #LoadLoad | #LoadStore | #StoreLoad | #StoreStore; cas"),
        row(M, AR,  &[Mfence],        PLAIN, &[Mfence], "membar (all); cas; membar (all)"),
        row(M, SC,  &[Mfence],        PLAIN, &[Mfence], "membar (all); cas; membar (all)"),
        row(F, Rlx, &[],              PLAIN, &[],       "(nothing)"),
        row(F, Acq, &[Mfence],        PLAIN, &[],       "membar #LoadLoad | #LoadStore | #StoreLoad | #StoreStore"),
        row(F, Rel, &[Mfence],        PLAIN, &[],       "membar #LoadLoad | #LoadStore | #StoreLoad | #StoreStore"),
        row(F, AR,  &[Mfence],        PLAIN, &[],       "membar #LoadLoad | #LoadStore | #StoreLoad | #StoreStore"),
        row(F, SC,  &[Mfence],        PLAIN, &[],       "membar #LoadLoad | #LoadStore | #StoreLoad | #StoreStore"),
    ],
};

/// IBM Power (both `power` and `power-esop`).
pub static POWER: Mapping = Mapping {
    name: "power",
    source: "Sewell et al., C/C++11 mappings to processors, Power (GCC 12 emits the same)",
    rows: &[
        row(L, Rlx, &[],       PLAIN,      &[], "ld"),
        row(L, Acq, &[],       CTRL_ISYNC, &[], "ld; cmp; bc; isync"),
        row(L, SC,  &[Sync],   CTRL_ISYNC, &[], "hwsync; ld; cmp; bc; isync"),
        row(S, Rlx, &[],       PLAIN,      &[], "st"),
        row(S, Rel, &[Lwsync], PLAIN,      &[], "lwsync; st"),
        row(S, SC,  &[Sync],   PLAIN,      &[], "hwsync; st"),
        row(M, Rlx, &[],       PLAIN,      &[], "loop: lwarx; <op>; stwcx.; bne loop"),
        row(M, Acq, &[],       CTRL_ISYNC, &[], "loop: lwarx; <op>; stwcx.; bne loop; isync"),
        row(M, Rel, &[Lwsync], PLAIN,      &[], "lwsync; loop: lwarx; <op>; stwcx.; bne loop"),
        row(M, AR,  &[Lwsync], CTRL_ISYNC, &[], "lwsync; loop: lwarx; <op>; stwcx.; bne loop; isync"),
        row(M, SC,  &[Sync],   CTRL_ISYNC, &[], "hwsync; loop: lwarx; <op>; stwcx.; bne loop; isync"),
        row(F, Rlx, &[],       PLAIN,      &[], "(nothing)"),
        row(F, Acq, &[Lwsync], PLAIN,      &[], "lwsync"),
        row(F, Rel, &[Lwsync], PLAIN,      &[], "lwsync"),
        row(F, AR,  &[Lwsync], PLAIN,      &[], "lwsync"),
        row(F, SC,  &[Sync],   PLAIN,      &[], "hwsync"),
    ],
};

/// ARMv7.
pub static ARMV7: Mapping = Mapping {
    name: "armv7",
    source: "Sewell et al., C/C++11 mappings to processors, ARMv7 (the dmb variants, as GCC 12 emits)",
    rows: &[
        row(L, Rlx, &[],    PLAIN, &[],    "ldr"),
        row(L, Acq, &[],    PLAIN, &[Dmb], "ldr; dmb ish"),
        row(L, SC,  &[],    PLAIN, &[Dmb], "ldr; dmb ish"),
        row(S, Rlx, &[],    PLAIN, &[],    "str"),
        row(S, Rel, &[Dmb], PLAIN, &[],    "dmb ish; str"),
        row(S, SC,  &[Dmb], PLAIN, &[Dmb], "dmb ish; str; dmb ish"),
        row(M, Rlx, &[],    PLAIN, &[],    "loop: ldrex; <op>; strex; bne loop"),
        row(M, Acq, &[],    PLAIN, &[Dmb], "loop: ldrex; <op>; strex; bne loop; dmb ish"),
        row(M, Rel, &[Dmb], PLAIN, &[],    "dmb ish; loop: ldrex; <op>; strex; bne loop"),
        row(M, AR,  &[Dmb], PLAIN, &[Dmb], "dmb ish; loop: ldrex; <op>; strex; bne loop; dmb ish"),
        row(M, SC,  &[Dmb], PLAIN, &[Dmb], "dmb ish; loop: ldrex; <op>; strex; bne loop; dmb ish"),
        row(F, Rlx, &[],    PLAIN, &[],    "(nothing)"),
        row(F, Acq, &[Dmb], PLAIN, &[],    "dmb ish"),
        row(F, Rel, &[Dmb], PLAIN, &[],    "dmb ish"),
        row(F, AR,  &[Dmb], PLAIN, &[],    "dmb ish"),
        row(F, SC,  &[Dmb], PLAIN, &[],    "dmb ish"),
    ],
};

/// The AArch64 rows every variant shares (all but the acquire load).
macro_rules! aarch64_rows {
    ($acq_load:expr, $acq_code:expr) => {
        &[
            row(L, Rlx, &[],      PLAIN,       &[], "ldr"),
            row(L, Acq, &[],      $acq_load,   &[], $acq_code),
            row(L, SC,  &[],      LDAR,        &[], "ldar"),
            row(S, Rlx, &[],      PLAIN,       &[], "str"),
            row(S, Rel, &[],      STLR,        &[], "stlr"),
            row(S, SC,  &[],      STLR,        &[], "stlr"),
            row(M, Rlx, &[],      PLAIN,       &[], "loop: ldxr; <op>; stxr; cbnz loop"),
            row(M, Acq, &[],      LDAR,        &[], "loop: ldaxr; <op>; stxr; cbnz loop"),
            row(M, Rel, &[],      STLR,        &[], "loop: ldxr; <op>; stlxr; cbnz loop"),
            row(M, AR,  &[],      LDAXR_STLXR, &[], "loop: ldaxr; <op>; stlxr; cbnz loop"),
            row(M, SC,  &[],      LDAXR_STLXR, &[], "loop: ldaxr; <op>; stlxr; cbnz loop"),
            row(F, Rlx, &[],      PLAIN,       &[], "(nothing)"),
            row(F, Acq, &[DmbLd], PLAIN,       &[], "dmb ishld"),
            row(F, Rel, &[Dmb],   PLAIN,       &[], "dmb ish"),
            row(F, AR,  &[Dmb],   PLAIN,       &[], "dmb ish"),
            row(F, SC,  &[Dmb],   PLAIN,       &[], "dmb ish"),
        ]
    };
}

/// AArch64 as GCC compiles it by default: acquire loads are `LDAR`.
pub static AARCH64: Mapping = Mapping {
    name: "aarch64",
    source: "GCC 12 aarch64 (ARMv8.0): ldar/stlr, ldaxr/stlxr, dmb ish/ishld",
    rows: aarch64_rows!(LDAR, "ldar"),
};

/// AArch64 with RCpc loads (`-march=armv8.3-a+rcpc`, weakc's `--ldapr`): acquire (not
/// seq_cst) loads are `LDAPR`.
pub static AARCH64_RCPC: Mapping = Mapping {
    name: "aarch64-rcpc",
    source: "GCC 12 aarch64 with +rcpc: ldapr for acquire loads, otherwise as aarch64",
    rows: aarch64_rows!(LDAPR, "ldapr"),
};

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [&Mapping; 7] = [&X86, &SPARC_PSO, &SPARC_RMO, &POWER, &ARMV7, &AARCH64, &AARCH64_RCPC];

    #[test]
    fn every_mapping_has_exactly_one_row_per_valid_operation_and_order() {
        for m in ALL {
            assert_eq!(m.rows.len(), ROW_KEYS.len(), "{}", m.name);
            for (op, order) in ROW_KEYS {
                let n = m.rows.iter().filter(|r| r.op == op && r.order == order).count();
                assert_eq!(n, 1, "{}: {op:?} {order:?}", m.name);
            }
        }
    }

    #[test]
    fn invalid_orders_are_compiled_as_seq_cst_like_gcc() {
        assert_eq!(valid_order(Op::Load, MemOrder::Release), MemOrder::SeqCst);
        assert_eq!(valid_order(Op::Store, MemOrder::Acquire), MemOrder::SeqCst);
        assert_eq!(valid_order(Op::Rmw, MemOrder::Acquire), MemOrder::Acquire);
        assert_eq!(POWER.row(Op::Store, MemOrder::AcqRel).code, "hwsync; st");
    }

    /// The published tables, row by row (the instruction sequence each row stands for and
    /// the IR it becomes).
    #[test]
    fn rows_match_the_published_mappings() {
        let check = |m: &Mapping, op, order, before: &[Fence], hw: HwOrder, after: &[Fence], code: &str| {
            let r = m.row(op, order);
            assert_eq!((r.before, r.hw, r.after, r.code), (before, hw, after, code), "{} {op:?} {order:?}", m.name);
        };
        // x86: only seq_cst stores and fences, and locked read-modify-writes, need barriers
        check(&X86, L, SC, &[], PLAIN, &[], "mov");
        check(&X86, S, Rel, &[], PLAIN, &[], "mov");
        check(&X86, S, SC, &[], PLAIN, &[Mfence], "mov; mfence");
        check(&X86, M, Rlx, &[Mfence], PLAIN, &[Mfence], "lock <op>");
        check(&X86, F, Acq, &[], PLAIN, &[], "(nothing)");
        check(&X86, F, SC, &[Mfence], PLAIN, &[], "mfence");
        // Power: acquire = ctrl+isync after the load, release = lwsync before, seq_cst = hwsync before
        check(&POWER, L, Rlx, &[], PLAIN, &[], "ld");
        check(&POWER, L, Acq, &[], CTRL_ISYNC, &[], "ld; cmp; bc; isync");
        check(&POWER, L, SC, &[Sync], CTRL_ISYNC, &[], "hwsync; ld; cmp; bc; isync");
        check(&POWER, S, Rel, &[Lwsync], PLAIN, &[], "lwsync; st");
        check(&POWER, S, SC, &[Sync], PLAIN, &[], "hwsync; st");
        check(&POWER, M, Rlx, &[], PLAIN, &[], "loop: lwarx; <op>; stwcx.; bne loop");
        check(&POWER, M, AR, &[Lwsync], CTRL_ISYNC, &[], "lwsync; loop: lwarx; <op>; stwcx.; bne loop; isync");
        check(&POWER, F, Acq, &[Lwsync], PLAIN, &[], "lwsync");
        check(&POWER, F, SC, &[Sync], PLAIN, &[], "hwsync");
        // ARMv7: dmb after acquire, before release, both sides of seq_cst stores
        check(&ARMV7, L, Acq, &[], PLAIN, &[Dmb], "ldr; dmb ish");
        check(&ARMV7, S, SC, &[Dmb], PLAIN, &[Dmb], "dmb ish; str; dmb ish");
        check(&ARMV7, M, SC, &[Dmb], PLAIN, &[Dmb], "dmb ish; loop: ldrex; <op>; strex; bne loop; dmb ish");
        check(&ARMV7, F, Rel, &[Dmb], PLAIN, &[], "dmb ish");
        // AArch64: acquire/release instructions, no barriers but for fences
        check(&AARCH64, L, Acq, &[], LDAR, &[], "ldar");
        check(&AARCH64_RCPC, L, Acq, &[], LDAPR, &[], "ldapr");
        check(&AARCH64_RCPC, L, SC, &[], LDAR, &[], "ldar");
        check(&AARCH64, S, SC, &[], STLR, &[], "stlr");
        check(&AARCH64, M, Rel, &[], STLR, &[], "loop: ldxr; <op>; stlxr; cbnz loop");
        check(&AARCH64, M, SC, &[], LDAXR_STLXR, &[], "loop: ldaxr; <op>; stlxr; cbnz loop");
        check(&AARCH64, F, Acq, &[DmbLd], PLAIN, &[], "dmb ishld");
        check(&AARCH64, F, SC, &[Dmb], PLAIN, &[], "dmb ish");
        // SPARC: GCC's membar masks minus what the model implies
        check(&SPARC_PSO, S, Rel, &[DmbSt], PLAIN, &[], "membar #StoreStore; st");
        check(&SPARC_PSO, L, Acq, &[], PLAIN, &[], "ld");
        check(&SPARC_RMO, L, Acq, &[], PLAIN, &[DmbLd], "ld; membar #LoadLoad | #LoadStore");
        check(&SPARC_RMO, S, Rel, &[MembarRelease], PLAIN, &[], "membar #LoadStore | #StoreStore; st");
        check(&SPARC_RMO, F, Acq, &[Mfence], PLAIN, &[], "membar #LoadLoad | #LoadStore | #StoreLoad | #StoreStore");
    }

    #[test]
    fn locks_are_acquire_and_release_read_modify_writes() {
        assert_eq!(POWER.lock().code, "loop: lwarx; <op>; stwcx.; bne loop; isync");
        assert_eq!(POWER.unlock().code, "lwsync; loop: lwarx; <op>; stwcx.; bne loop");
        assert_eq!(X86.unlock().before, &[Mfence]);
        assert_eq!(AARCH64.lock().hw, LDAR);
        assert_eq!(AARCH64.unlock().hw, STLR);
    }
}
