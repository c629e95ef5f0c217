//! Concurrency Kit (Debian's `libck-dev`) as shipped, and with one order weakened in a copy
//! of the library function: the harnesses of `tests/c/ck/`, each with its verdict per
//! architecture in its header comment (`expect:`, and `expect(FLAGS):` with extra flags).
//!
//! ck is built per architecture: on x86 (sc, tso) its own x86-64 port; elsewhere its GCC
//! builtins port (`-DCK_USE_CC_BUILTINS=1`) with the memory model its configure script
//! picks there (`-DCK_MD_PSO` on pso, `-DCK_MD_RMO` on rmo, power, arm and aarch64; Debian's
//! `ck_md.h` says `CK_MD_TSO` only because it was configured on x86-64). Spin loops are
//! bounded (`--no-unwinding-assertions`).
//!
//! How a verdict is judged: `common::check_harnesses`.

mod common;

use std::path::Path;

fn ck_flags(arch: &str) -> &'static [&'static str] {
    match arch {
        "sc" | "tso" => &[],
        "pso" => &["-DCK_USE_CC_BUILTINS=1", "-DCK_MD_PSO"],
        _ => &["-DCK_USE_CC_BUILTINS=1", "-DCK_MD_RMO"],
    }
}

#[test]
fn concurrency_kit_harnesses_give_their_expected_verdicts() {
    if !Path::new("/usr/include/ck_pr.h").exists() {
        println!("skipped: /usr/include/ck_pr.h is absent (Debian package libck-dev; .ci/run installs it)");
        return;
    }
    common::check_harnesses(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/ck"), ck_flags);
}

#[test]
fn a_build_configured_for_x86_is_named_when_checked_for_a_weaker_model() {
    if !Path::new("/usr/include/ck_pr.h").exists() {
        println!("skipped: /usr/include/ck_pr.h is absent (Debian package libck-dev; .ci/run installs it)");
        return;
    }
    // Debian's ck_md.h says CK_MD_TSO: on power its fences would stay x86's no-ops, a
    // verdict about a build that does not run there. The user is told, and told how to
    // check the real build.
    let run = |mm: &str, flags: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_weakc"))
            .args(["verify", "--mm", mm, "--unwind", "1", "--no-unwinding-assertions"])
            .args(flags)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/ck/fas.c"))
            .output()
            .expect("weakc runs");
        String::from_utf8_lossy(&out.stderr).contains("orders nothing in this build")
    };
    assert!(run("power", &[]));
    assert!(run("pso", &["-DCK_USE_CC_BUILTINS=1"]));
    assert!(!run("power", ck_flags("power")));
    assert!(!run("pso", ck_flags("pso")));
    assert!(!run("tso", &[]));
}
