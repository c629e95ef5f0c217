//! What waits with a delayed read (`src/rewrite`) and what does not. Branches on its value
//! take a guess (`Speculation`): the guess must neither replace an input the waiting
//! statements compute from (a spurious counterexample and a missed one, both seen before) nor
//! be checked before every read the value derives from is complete. A verifier's assertion
//! waits with the read it checks and orders nothing; glibc's `assert` is a branch. A read
//! completed early, where its value is redefined, makes safety UNKNOWN.

use std::process::Command;

/// Exit code of `weakc verify` (0 successful, 10 failed).
fn verify(arch: &str, file: &str, extra: &[&str]) -> i32 {
    // the instrumentation is what these programs test (tso and pso default to the axiomatic route)
    let mut args = vec!["verify", "--mm", arch, "--engine", "instrument", file];
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(&args).output().expect("run weakc");
    let code = out.status.code().unwrap_or(-1);
    assert!(code == 0 || code == 10, "weakc {args:?}: exit {code}\n{}", String::from_utf8_lossy(&out.stderr));
    code
}

fn check(file: &str) {
    for (arch, weak_allowed) in [("sc", false), ("tso", false), ("power", true), ("arm", true)] {
        for strategy in [&[][..], &["--strategy", "all"][..]] {
            // Values no execution can produce: never a counterexample.
            assert_eq!(verify(arch, file, strategy), 0, "{file} on {arch} {strategy:?}: spurious counterexample");
            // The weak outcome: found exactly where the architecture allows it.
            let mut weak = vec!["-D", "WEAK"];
            weak.extend_from_slice(strategy);
            let expected = if weak_allowed { 10 } else { 0 };
            assert_eq!(verify(arch, file, &weak), expected, "{file} -D WEAK on {arch} {strategy:?}");
        }
    }
}

#[test]
fn a_guess_leaves_the_inputs_of_the_waiting_statements_alone() {
    check("tests/c/spec_input.c");
}

#[test]
fn a_value_from_two_delayed_reads_is_checked_once_both_are_complete() {
    check("tests/c/spec_two_inputs.c");
}

/// A read completed where its value is redefined on one path orders it before what follows
/// on both: the behaviour the other path allows is not simulated, and the verdict says so.
#[test]
fn a_read_completed_at_a_redefinition_makes_safety_unknown() {
    let file = "tests/c/idd_redefined.c";
    for arch in ["aarch64", "power", "arm"] {
        let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(["verify", "--mm", arch, "--engine", "instrument", file]).output().expect("run weakc");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(5), "{arch}: {stdout}");
        assert!(stdout.contains("`s` is redefined"), "{arch}: {stdout}");
    }
    // The axiomatic route (multi-copy-atomic models) follows the dependency per path and
    // finds the violation.
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(["verify", "--mm", "aarch64", "--engine", "axiomatic", file]).output().expect("run weakc");
    assert_eq!(out.status.code(), Some(10), "{}", String::from_utf8_lossy(&out.stdout));
    // Where reads are not delayed, nothing is lost.
    assert_eq!(verify("tso", file, &[]), 0);
}

/// An assertion of the program (glibc's `assert`, a branch) orders what follows it through a
/// control dependency; a verifier's assertion (`__VERIFIER_assert`) orders nothing.
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
