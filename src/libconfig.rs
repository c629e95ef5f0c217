//! Warnings about a library built for another memory model than the one checked.
//!
//! Concurrency Kit takes its fences from its build configuration: `ck_md.h` defines
//! `CK_MD_TSO`, `CK_MD_PSO` or `CK_MD_RMO` for the machine the package was configured on,
//! and `ck_pr.h` then makes each `ck_pr_fence_<kind>` either the architecture's strict fence
//! or nothing (a compiler barrier). Debian's `libck-dev` is configured on x86-64 (TSO), so
//! checked with `--mm power` the code keeps x86's no-op fences: the verdicts are right for
//! that build, which is not what runs on Power. The check says so.

use crate::arch::{Arch, PairSet};
use crate::ir::{walk_stmts, Callee, Fence, Program, StmtKind};
use crate::source::Loc;

/// The program-order pairs each of Concurrency Kit's fences orders (ck_pr.h's comments and
/// the strict fences of its `gcc/*/ck_pr.h` ports).
const CK_FENCES: &[(&str, PairSet)] = &[
    ("store", PairSet::WW),
    ("load", PairSet::RR),
    ("load_store", PairSet::RW),
    ("store_load", PairSet::WR),
    ("memory", PairSet::ALL),
    ("acquire", PairSet::RR.or(PairSet::RW)),
    ("release", PairSet::RW.or(PairSet::WW)),
    ("acqrel", PairSet::RR.or(PairSet::RW).or(PairSet::WW)),
    ("lock", PairSet::RR.or(PairSet::RW)),
    ("unlock", PairSet::RW.or(PairSet::WW)),
    ("atomic", PairSet::WW),
    ("atomic_store", PairSet::RW),
    ("atomic_load", PairSet::WR),
    ("store_atomic", PairSet::WW),
    ("load_atomic", PairSet::RW),
];

/// A warning at the first Concurrency Kit fence of the program that its build made a no-op
/// while `arch` reorders what the fence orders (none for a build configured for `arch`; one
/// tells the story, the others would repeat it).
pub fn warning(prog: &Program, arch: &Arch) -> Option<(Loc, String)> {
    for f in &prog.funcs {
        let Some(kind) = f.name.strip_prefix("ck_pr_fence_") else { continue };
        let Some(&(_, orders)) = CK_FENCES.iter().find(|(k, _)| *k == kind) else { continue };
        let Some(body) = &f.body else { continue };
        let mut strict = false;
        // (The strict fence may already be inlined, or compiled to a native fence.)
        walk_stmts(body, &mut |s| match &s.kind {
            StmtKind::Call { callee: Callee::Direct(g), .. } => strict |= prog.func(*g).name.starts_with("ck_pr_fence_strict_"),
            StmtKind::Fence(f) => strict |= *f != Fence::Compiler,
            _ => {}
        });
        let reordered = orders.minus(arch.ppo);
        if strict || reordered.is_empty() {
            continue;
        }
        return Some((
            f.loc,
            format!(
                "Concurrency Kit's `{}` orders nothing in this build, but --mm {} reorders what it is meant to order ({:?}): its <ck_md.h> was configured for another machine (Debian's for x86-64, CK_MD_TSO). The verdict holds for that build; to check the code as it is built for {}, pass {} (with -DCK_USE_CC_BUILTINS=1 where ck has no port)",
                f.name,
                arch.name,
                reordered,
                arch.name,
                if arch.name == "pso" { "-DCK_MD_PSO" } else { "-DCK_MD_RMO" }
            ),
        ));
    }
    None
}
