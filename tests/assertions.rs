//! An assertion of the program (glibc's `assert`, a branch) orders what follows it through a
//! control dependency; a verifier's assertion (`__VERIFIER_assert`) orders nothing.

use std::process::Command;

fn verify(arch: &str, file: &str, extra: &[&str]) -> i32 {
    let mut args = vec!["verify", "--mm", arch, file];
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(&args).output().expect("run weakc");
    let code = out.status.code().unwrap_or(-1);
    assert!(code == 0 || code == 10, "weakc {args:?}: exit {code}\n{}", String::from_utf8_lossy(&out.stderr));
    code
}

#[test]
fn a_verifier_assertion_is_no_control_dependency() {
    let file = "tests/c/lb_assert.c";
    // (architecture, fails with assert(), fails with __VERIFIER_assert)
    let expected = [("sc", false, false), ("tso", false, false), ("pso", false, false), ("rmo", true, true), ("power", false, true), ("arm", false, true), ("aarch64", false, true)];
    for (arch, branch, property) in expected {
        assert_eq!(verify(arch, file, &[]) == 10, branch, "{file} with assert() on {arch}");
        assert_eq!(verify(arch, file, &["-D", "VERIFIER"]) == 10, property, "{file} with __VERIFIER_assert on {arch}");
    }
}
