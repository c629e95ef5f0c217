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
