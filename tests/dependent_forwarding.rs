//! End to end through the CLI: herd's `(addr | data); lrs` (aarch64.cat's `dob`) and
//! `(addr | data); rfi` (ppc.cat's and arm.cat's `ii0`) on both routes of `verify`: a read
//! that takes its value from its own thread's store comes after the reads that store's
//! address or value depends on, and so does what that read orders after it (an acquire, an
//! address dependency). `tests/c/mp_rel_lrs_acq.c` (MP+rel+addr-lrs-acq in C) says what each
//! variant's outcome is on which model, and why.

use std::process::Command;

const SAFE: i32 = 0;
const FAILED: i32 = 10;

/// Exit code of `weakc verify --engine ENGINE --mm ARCH [-D DEF]... FILE`.
fn verdict(file: &str, engine: &str, arch: &str, defs: &[&str]) -> i32 {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_weakc"));
    cmd.args(["verify", "--engine", engine, "--mm", arch, "--quiet"]);
    for d in defs {
        cmd.args(["-D", d]);
    }
    let out = cmd.arg(file).output().expect("run weakc");
    out.status.code().unwrap_or(-1)
}

#[test]
fn a_read_of_a_dependent_store_waits_for_what_the_store_depends_on() {
    let variants: [&[&str]; 8] = [
        &[],
        &["DATA"],
        &["NO_ACQUIRE"],
        &["NO_DEP"],
        &["ELSEWHERE"],
        &["NO_ACQUIRE", "ADDR_AFTER"],
        &["NO_ACQUIRE", "DATA", "ADDR_AFTER"],
        // the store goes elsewhere, so the load of z reads memory: the read of x it addresses
        // is not ordered after the read of y (the instrumentation had it wait, a missed bug)
        &["ELSEWHERE", "NO_ACQUIRE", "ADDR_AFTER"],
    ];
    // The verdict of each variant above, per architecture.
    let table = [
        ("aarch64", [SAFE, SAFE, FAILED, FAILED, FAILED, SAFE, SAFE, FAILED]),
        ("power", [SAFE, SAFE, FAILED, FAILED, FAILED, SAFE, SAFE, FAILED]),
        ("arm", [SAFE, SAFE, FAILED, SAFE, SAFE, SAFE, SAFE, FAILED]),
        ("rmo", [SAFE, SAFE, FAILED, SAFE, SAFE, FAILED, FAILED, FAILED]),
        ("tso", [SAFE; 8]),
    ];
    for engine in ["axiomatic", "instrument"] {
        for (arch, wants) in table {
            for (defs, want) in variants.iter().zip(wants) {
                assert_eq!(verdict("tests/c/mp_rel_lrs_acq.c", engine, arch, defs), want, "{engine} {arch} {defs:?}");
            }
        }
    }
}

/// A write computed from a read that may take its thread's dependent store
/// (`tests/c/lb_forward_elsewhere.c`): ordered after what the store depends on only where the
/// read takes the store (-DSAME) and the model has `(addr | data); rfi`.
#[test]
fn a_read_that_takes_nothing_from_a_dependent_store_orders_nothing() {
    let table = [("aarch64", SAFE, FAILED), ("power", SAFE, FAILED), ("arm", SAFE, FAILED), ("rmo", FAILED, FAILED), ("tso", SAFE, SAFE)];
    for engine in ["axiomatic", "instrument"] {
        for (arch, same, elsewhere) in table {
            assert_eq!(verdict("tests/c/lb_forward_elsewhere.c", engine, arch, &["SAME"]), same, "{engine} {arch} -DSAME");
            assert_eq!(verdict("tests/c/lb_forward_elsewhere.c", engine, arch, &[]), elsewhere, "{engine} {arch}");
        }
    }
}
