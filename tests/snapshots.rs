//! Emitted programs are committed (tests/snapshots/*.c) so that every change to the
//! instrumentation shows up in review. Regenerate with `WEAKC_BLESS=1 cargo test --test snapshots`.

use std::process::Command;

fn check(arch: &str, input: &str, name: &str) {
    // (a path relative to the crate: the generated code's `#line`s name the output file)
    let out = format!("target/snapshot-out/{name}");
    std::fs::create_dir_all(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/snapshot-out")).unwrap();
    let st = Command::new(env!("CARGO_BIN_EXE_weakc"))
        .args(["instrument", "--mm", arch, input, "-o", &out])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let got = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&out)).unwrap();
    let snap = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name);
    if std::env::var_os("WEAKC_BLESS").is_some() {
        std::fs::write(&snap, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&snap).unwrap_or_default();
    assert!(got == want, "{name} changed; review `diff` and run with WEAKC_BLESS=1 to accept:\n{}", first_diff(&want, &got));
}

fn first_diff(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n- {x}\n+ {y}", i + 1);
        }
    }
    format!("lengths differ: {} vs {} lines", a.lines().count(), b.lines().count())
}

#[test]
fn sb_on_tso() {
    check("tso", "tests/c/sb.c", "sb_tso.c");
}

#[test]
fn mp_on_power() {
    check("power", "tests/c/mp.c", "mp_power.c");
}

#[test]
fn iriw_on_power() {
    check("power", "tests/c/iriw.c", "iriw_power.c");
}
