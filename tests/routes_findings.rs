//! Programs on which `scripts/fuzz-routes` found the two verification routes disagreeing on
//! aarch64 (tests/FUZZING.md), kept with the verdict each route must give now. The
//! instrumentation (with the ILP's pairs or with every pair) must agree with the axiomatic
//! route, or say UNKNOWN where it knows it completes a delayed read early; it must never
//! say SUCCESSFUL where the architecture allows the violation, nor FAILED where it forbids it.

use std::process::Command;

/// Exit code of `weakc verify --mm ARCH ARGS… FILE` (0 successful, 10 failed, 5 unknown)
/// and its standard output.
fn verify_on(arch: &str, file: &str, args: &[&str]) -> (i32, String) {
    let mut all = vec!["verify", "--mm", arch];
    all.extend_from_slice(args);
    all.push(file);
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(&all).output().expect("run weakc");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `file`'s axiomatic verdict is `axiomatic`; the instrumentation's is `instrument` for both
/// strategies (5 with the reason when it cannot simulate a reordering the program needs).
fn check(file: &str, axiomatic: i32, instrument: i32) {
    check_on("aarch64", file, axiomatic, instrument);
}

/// [`check`] on `arch`.
fn check_on(arch: &str, file: &str, axiomatic: i32, instrument: i32) {
    let (code, out) = verify_on(arch, file, &["--engine", "axiomatic"]);
    assert_eq!(code, axiomatic, "{file} axiomatic: {out}");
    for strategy in ["ilp", "all"] {
        let (code, out) = verify_on(arch, file, &["--engine", "instrument", "--strategy", strategy]);
        assert_eq!(code, instrument, "{file} instrument --strategy {strategy}: {out}");
        if code == 5 {
            assert!(out.contains("the assertions hold in the instrumented program, but it may lack behaviours"), "{file}: {out}");
        }
    }
}

/// LB where the read's value is used inside a branch on another value: the later store
/// goes first (the ILP's pair used to be lost at that use: SUCCESSFUL, a missed bug).
#[test]
fn a_use_in_an_unrelated_branch_does_not_hold_back_the_later_store() {
    check("tests/c/routes/p2454.c", 10, 10);
    check("tests/c/routes/p2031.c", 10, 10);
}

/// LB where the read's variable is copied and then redefined before the store: the read
/// completes at the redefinition, which the rewriter reports (UNKNOWN, not SUCCESSFUL).
#[test]
fn a_redefinition_before_the_delayed_past_store_is_unknown() {
    check("tests/c/routes/p2051.c", 10, 5);
}

/// LB where the store, in a called function, follows a branch on the read (a control
/// dependency AArch64 keeps): the instrumentation used to let it go first with every pair
/// delayed (FAILED, a counterexample aarch64 forbids). The wrappers are now inlined, and a
/// call that is not completes the branch's guess before it (`wrapper_*` below).
#[test]
fn a_store_in_a_callee_after_a_branch_on_the_read_waits_for_it() {
    check("tests/c/routes/p2117.c", 0, 0);
}

/// LB with both stores in `st(&x, 1)`-style wrappers: the call completes a pending read only
/// when the argument is the read's address (the wrapper's parameter points to both x and y
/// over all call sites; completing on that missed this LB for one commit). `p3073.c`'s
/// wrappers are inlined; those of `wrapper_*.c` call an external function, so they stay
/// calls: the LB is found through them, and the comparison of the argument with the pending
/// read's address keeps coherence (a read never sees its thread's later store).
#[test]
fn a_store_through_a_wrapper_waits_only_for_reads_of_its_address() {
    check("tests/c/routes/p3073.c", 10, 10);
    check("tests/c/routes/wrapper_lb.c", 10, 10);
    check("tests/c/routes/wrapper_corw.c", 0, 0);
}

/// LB where the read's value waits in a store to `z` that a relaxed fetch_add of `z` follows
/// (`scripts/fuzz-routes --rich`, seed 6158): the read cannot be held past the RMW's write,
/// so it completes there, before the store of `x` it is delayed past. The instrumentation
/// said SUCCESSFUL (a missed bug on power, arm, aarch64 and rmo); it now says it cannot
/// simulate the reordering.
#[test]
fn a_completion_forced_by_a_write_of_the_location_is_reported() {
    check("tests/c/routes/p6158.c", 10, 5);
}

/// Power's R+lwsync+sync inside a program with a release store and an extra write
/// (`scripts/fuzz-routes --rich`, seeds 6062 and 6823): herd allows it through its
/// propagation axiom, which a cycle-based selection finds; `--strategy all` took only the
/// table's pairs, in which lwsync orders the writes, and said SUCCESSFUL.
#[test]
fn every_pair_includes_what_a_cycle_relaxes_past_a_lightweight_fence() {
    let f = "tests/c/routes/p6062.c";
    assert_eq!(verify_on("power", f, &["--engine", "axiomatic"]).0, 10);
    for strategy in ["ilp", "all"] {
        let (code, out) = verify_on("power", f, &["--engine", "instrument", "--strategy", strategy]);
        assert_eq!(code, 10, "{strategy}: {out}");
    }
}

/// S on Power with the first write unfenced (`scripts/fuzz-routes --rich`, seed 6913):
/// `x = 2; acquire load; y = 1` against `r = y; …; x = 1`. The ILP covered the cycle with
/// the rfe of `y` alone, which makes `y` visible early but leaves `x = 2` in memory before
/// the reader goes on: SUCCESSFUL, a missed bug. Such an rfe is no candidate now; the write
/// pair is.
#[test]
fn an_rfe_after_an_unfenced_write_pair_does_not_cover_the_cycle() {
    check_on("power", "tests/c/routes/p6913.c", 10, 10);
}

/// WRC on ARM whose last thread orders its two reads through a third: `r = y; s = *(&z + (r
/// ^ r)); if (s == s) {} isb; t = x`. The pair of the two outer reads is ordered by the chain
/// (herd's `ii; ii`), which the critical cycles skip; the event graph took it for relaxed,
/// the ILP chose it as the cheapest delay of both cycles, and the rewriter, which must
/// complete the read for the address, could not delay it: SUCCESSFUL, a missed bug
/// (fuzz-litmus, tests/FUZZING.md). Now the chain orders the pair and the rfes are chosen.
#[test]
fn a_dependency_chain_through_a_read_orders_the_pair_it_spans() {
    check_on("arm", "tests/c/routes/wrc_dep_chain.c", 10, 10);
}

/// MP+dmb+addr-po whose address dependency goes through memory (`r = y; s = *(&z + (r ^ r));
/// t = x` with `r` a global): the read of `y` is completed where the read of `z` is made
/// (`(addr | data); rfi; addr` orders that one), so `t = x` can no longer go first. That was
/// SUCCESSFUL without a word (a missed bug); it is UNKNOWN with the reason until the
/// rewriter can keep the read of `z` waiting too.
#[test]
fn a_completion_for_a_dependency_through_memory_is_reported() {
    check_on("arm", "tests/c/routes/mp_addr_rfi.c", 10, 5);
}

/// A thread that read another thread's buffered write early (Power, ARM: non-atomic
/// writes) must keep its later accesses of the address coherence-after it. The
/// instrumentation let its later write reach memory before the buffered one (CoRW: `z`
/// ended with the value read before the write) and its later read take memory's older
/// value (CoRR): FAILED with either strategy where both models forbid it. The allowed twins
/// (`-DALLOWED`) stay reachable. With every pair delayed, `main`'s final reads complete
/// early (UNKNOWN is the honest answer there, FAILED is not), and the CoRR program is not
/// checked: its two reads of `z` are then a delayed same-location pair, the documented
/// `PosRR` relaxation (tests/FUZZING.md), which reaches the outcome without any early read.
#[test]
fn accesses_after_an_early_read_are_coherence_after_the_write_read() {
    let file = "tests/c/routes/early_read_coherence.c";
    for arch in ["power", "arm"] {
        for (defines, reachable) in [(&[][..], false), (&["-DCORR"][..], false), (&["-DALLOWED"][..], true), (&["-DCORR", "-DALLOWED"][..], true)] {
            let want = if reachable { 10 } else { 0 };
            let run = |args: &[&str]| verify_on(arch, file, &[defines, args].concat());
            let (code, out) = run(&["--engine", "axiomatic"]);
            assert_eq!(code, want, "{file} {defines:?} {arch} axiomatic: {out}");
            let (code, out) = run(&["--engine", "instrument", "--no-sc-first"]);
            assert_eq!(code, want, "{file} {defines:?} {arch} instrument: {out}");
            if defines == ["-DCORR"] {
                continue;
            }
            let (code, out) = run(&["--engine", "instrument", "--no-sc-first", "--strategy", "all"]);
            assert!(if reachable { code == 10 } else { code == 0 || code == 5 }, "{file} {defines:?} {arch} instrument --strategy all: {out}");
        }
    }
}
