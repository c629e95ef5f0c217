//! Real headers through the front end, end to end with the built binary: GNU and C11
//! constructs inside included headers, diagnostics at the header's file and line, and
//! `--target` choosing the predefined macros (fixtures in tests/c/headers/).

use std::path::{Path, PathBuf};
use std::process::Command;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/headers")
}

/// `weakc verify --backend builtin -I include ARGS` in the fixtures' directory.
fn verify(args: &[&str]) -> Run {
    let o = Command::new(env!("CARGO_BIN_EXE_weakc"))
        .args(["verify", "--backend", "builtin", "-I", "include"])
        .args(args)
        .current_dir(dir())
        .output()
        .expect("run weakc");
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn expect(args: &[&str], code: i32) -> Run {
    let r = verify(args);
    assert_eq!(r.code, code, "weakc verify {args:?}\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    r
}

#[test]
fn target_follows_the_memory_model() {
    // arch_select.h picks ARCH_ID by architecture macro; #error when none or LP64 is missing.
    for (mm, id) in [("sc", 1), ("tso", 1), ("power", 3), ("power-esop", 3), ("arm", 5), ("aarch64", 2), ("pso", 4), ("rmo", 4)] {
        let r = expect(&["--mm", mm, &format!("-DEXPECTED_ARCH={id}"), "arch_select.c"], 0);
        assert!(r.stdout.contains("VERIFICATION SUCCESSFUL"), "{mm}: {}", r.stdout);
    }
    // The x86-64 branch is not the one taken under aarch64, and the other way round.
    expect(&["--mm", "aarch64", "-DEXPECTED_ARCH=1", "arch_select.c"], 10);
    expect(&["--mm", "tso", "-DEXPECTED_ARCH=2", "arch_select.c"], 10);
}

#[test]
fn explicit_target_overrides_the_memory_model() {
    expect(&["--mm", "aarch64", "--target", "x86_64", "-DEXPECTED_ARCH=1", "arch_select.c"], 0);
    expect(&["--mm", "tso", "--target", "aarch64", "-DEXPECTED_ARCH=2", "arch_select.c"], 0);
    let r = expect(&["--mm", "tso", "--target", "mips", "arch_select.c"], 2);
    assert!(r.stderr.contains("unknown target `mips`") && r.stderr.contains("aarch64"), "{}", r.stderr);
}

#[test]
fn plain_char_is_the_target_abis() {
    // Unsigned on Power, ARM and AArch64, signed on x86-64 and SPARC: a wrong guess is a
    // wrong verdict (`char c = 200; c > 0`). The fixture checks values, `<limits.h>` and
    // `__CHAR_UNSIGNED__`; with the other expectation an assertion fails.
    for (mm, unsigned) in [("sc", 0), ("tso", 0), ("pso", 0), ("power", 1), ("arm", 1), ("aarch64", 1)] {
        let r = expect(&["--mm", mm, &format!("-DCHAR_IS_UNSIGNED={unsigned}"), "plain_char.c"], 0);
        assert!(r.stdout.contains("VERIFICATION SUCCESSFUL"), "{mm}: {}", r.stdout);
        expect(&["--mm", mm, &format!("-DCHAR_IS_UNSIGNED={}", 1 - unsigned), "plain_char.c"], 10);
    }
    // GCC's flags override the ABI, the last one winning.
    expect(&["--mm", "aarch64", "-fsigned-char", "-DCHAR_IS_UNSIGNED=0", "plain_char.c"], 0);
    expect(&["--mm", "tso", "-funsigned-char", "-DCHAR_IS_UNSIGNED=1", "plain_char.c"], 0);
    expect(&["--mm", "tso", "-fno-signed-char", "-fno-unsigned-char", "-DCHAR_IS_UNSIGNED=0", "plain_char.c"], 0);
    expect(&["--mm", "sc", "--target", "armv7-a", "-DCHAR_IS_UNSIGNED=1", "plain_char.c"], 0);
}

#[test]
fn gnu_and_c11_constructs_in_a_header() {
    for mm in ["sc", "tso", "aarch64"] {
        let r = expect(&["--mm", mm, "gnu_atomics.c"], 0);
        assert!(r.stdout.contains("VERIFICATION SUCCESSFUL"), "{mm}: {}", r.stdout);
    }
    // The statement expressions and offsetof arithmetic really computed something.
    let r = expect(&["--mm", "sc", "-DBAD", "gnu_atomics.c"], 10);
    assert!(r.stdout.contains("gnu_atomics.c:"), "{}", r.stdout);
}

#[test]
fn syntax_error_in_a_header_names_the_header() {
    let r = expect(&["--mm", "sc", "broken_header.c"], 2);
    assert!(r.stderr.contains("include/broken.h:4:45"), "{}", r.stderr);
    assert!(!r.stderr.contains("<unknown>"), "{}", r.stderr);
    assert!(r.stderr.contains("a @ 2"), "the header's line is shown: {}", r.stderr);
}

#[test]
fn unsupported_construct_in_a_header_names_the_header() {
    let r = expect(&["--mm", "tso", "unsupported_header.c"], 2);
    assert!(r.stderr.contains("unsupported: _Generic") && r.stderr.contains("include/unsupported.h:4:"), "{}", r.stderr);
}

#[test]
fn failed_static_assert_in_a_header() {
    let r = expect(&["--mm", "sc", "static_assert_header.c"], 2);
    assert!(r.stderr.contains("static assertion failed: int is not 8 bytes here"), "{}", r.stderr);
    assert!(r.stderr.contains("include/static_assert.h:3:"), "{}", r.stderr);
}

#[test]
fn concurrency_kit_ck_pr() {
    if !Path::new("/usr/include/ck_pr.h").exists() {
        eprintln!("skipped: /usr/include/ck_pr.h is absent (Debian package libck-dev)");
        return;
    }
    // Debian's ck is configured for x86-64 (CK_MD_TSO): the non-strict fences are no-ops, so
    // message passing breaks on aarch64 and holds on TSO; the strict fences are real fences.
    let cc = "-DCK_USE_CC_BUILTINS=1";
    expect(&["--mm", "aarch64", cc, "ck_pr.c"], 10);
    expect(&["--mm", "aarch64", cc, "-DSTRICT", "ck_pr.c"], 0);
    expect(&["--mm", "tso", cc, "ck_pr.c"], 0);
    // ck's own x86-64 port: inline assembly with memory operands, understood on TSO
    let r = expect(&["--mm", "tso", "ck_pr.c"], 0);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // and its AArch64, Power and ARMv7 ports (ldr/str, lwz/stw, dmb, lwsync/sync) on theirs
    for (mm, strict, code) in [("aarch64", false, 10), ("aarch64", true, 0), ("power", false, 10), ("power", true, 0), ("arm", true, 0)] {
        let mut a = vec!["--mm", mm, "ck_pr.c"];
        if strict {
            a.push("-DSTRICT");
        }
        let r = expect(&a, code);
        // The only warning: Debian's build is x86's, whose plain fences order nothing here.
        let config = r.stderr.matches("orders nothing in this build").count();
        assert_eq!(r.stderr.matches("warning").count(), config, "{mm}: {}", r.stderr);
        assert!(strict || config == 1, "{mm}: {}", r.stderr);
    }
}
