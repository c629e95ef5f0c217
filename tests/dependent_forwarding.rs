//! End to end through the CLI: herd's `(addr | data); lrs` (aarch64.cat's `dob`) and
//! `(addr | data); rfi` (ppc.cat's and arm.cat's `ii0`) on both routes of `verify`: a read
//! that takes its value from its own thread's store comes after the reads that store's
//! address or value depends on, and so does what that read orders after it (an acquire, an
//! address dependency). `tests/c/mp_rel_lrs_acq.c` (MP+rel+addr-lrs-acq in C) says what each
//! variant's outcome is on which model, and why.

use std::process::Command;

/// Exit code of `weakc verify --engine ENGINE --mm ARCH [-D DEF]... tests/c/mp_rel_lrs_acq.c`.
fn verdict(engine: &str, arch: &str, defs: &[&str]) -> i32 {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_weakc"));
    cmd.args(["verify", "--engine", engine, "--mm", arch, "--quiet"]);
    for d in defs {
        cmd.args(["-D", d]);
    }
    let out = cmd.arg("tests/c/mp_rel_lrs_acq.c").output().expect("run weakc");
    out.status.code().unwrap_or(-1)
}

#[test]
fn a_read_of_a_dependent_store_waits_for_what_the_store_depends_on() {
    const SAFE: i32 = 0;
    const FAILED: i32 = 10;
    let variants: [&[&str]; 7] = [&[], &["DATA"], &["NO_ACQUIRE"], &["NO_DEP"], &["ELSEWHERE"], &["NO_ACQUIRE", "ADDR_AFTER"], &["NO_ACQUIRE", "DATA", "ADDR_AFTER"]];
    // The verdict of each variant above, per architecture.
    let table = [
        ("aarch64", [SAFE, SAFE, FAILED, FAILED, FAILED, SAFE, SAFE]),
        ("power", [SAFE, SAFE, FAILED, FAILED, FAILED, SAFE, SAFE]),
        ("arm", [SAFE, SAFE, FAILED, SAFE, SAFE, SAFE, SAFE]),
        ("rmo", [SAFE, SAFE, FAILED, SAFE, SAFE, FAILED, FAILED]),
        ("tso", [SAFE; 7]),
    ];
    for engine in ["axiomatic", "instrument"] {
        for (arch, wants) in table {
            for (defs, want) in variants.iter().zip(wants) {
                assert_eq!(verdict(engine, arch, defs), want, "{engine} {arch} {defs:?}");
            }
        }
    }
}
