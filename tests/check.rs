//! End to end through the CLI: `weakc check` (CheckFence's observation sets) on the queues of
//! `examples/datatypes/`, with and without their fences, on every architecture; the
//! reference implementation of `--spec`; JSON; and tests or libraries it must refuse.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn weakc(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).current_dir(root()).args(args).output().expect("run weakc");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

const ALL: &str = "sc,tso,pso,rmo,power,arm,aarch64";

/// The verdict of each architecture, from the `CHECK ARCH: VERDICT` lines.
fn verdicts(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter_map(|l| l.trim().strip_prefix("CHECK "))
        .filter_map(|l| l.split_once(": "))
        .map(|(a, v)| (a.to_string(), v.split(':').next().unwrap_or(v).to_string()))
        .collect()
}

fn expect(out: &str, failing: &[&str]) {
    let v = verdicts(out);
    assert_eq!(v.len(), 7, "{out}");
    for (arch, verdict) in &v {
        let want = if failing.contains(&arch.as_str()) { "FAILED" } else { "SAFE" };
        assert_eq!(verdict, want, "{arch}: {out}");
    }
}

#[test]
fn two_lock_queue_needs_its_fence_where_locks_do_not_order_earlier_stores() {
    // Without the fence the node's value can reach memory after the node is linked: on
    // Power (lock = lwarx/stwcx.; isync) and AArch64 (LDAXR), whose lock acquisition lets
    // earlier stores move into the critical section. ARMv7's lock ends with a full dmb and
    // GCC's SPARC acquire RMW with a full membar, which order the stores anyway.
    let (c, out) = weakc(&["check", "--mm", ALL, "examples/datatypes/ms2.c", "--test", "( enqueue | dequeue )", "-DNO_FENCES"]);
    assert_eq!(c, 10, "{out}");
    expect(&out, &["power", "aarch64"]);
    assert!(out.contains("observation set: 4 observations of 2 values each"), "{out}");
    assert!(out.contains("observation outside the set: ( enqueue("), "{out}");
    assert!(out.contains("nearest observations of the set:"), "{out}");
    let (c, out) = weakc(&["check", "--mm", ALL, "examples/datatypes/ms2.c", "--test", "( enqueue | dequeue )"]);
    assert_eq!(c, 0, "{out}");
    expect(&out, &[]);
}

#[test]
fn nonblocking_queue_is_correct_with_checkfences_fences_only() {
    let (c, out) = weakc(&["check", "--mm", ALL, "examples/datatypes/msn.c", "--test", "( enqueue | dequeue )", "-DNO_FENCES"]);
    assert_eq!(c, 10, "{out}");
    expect(&out, &["pso", "rmo", "power", "arm", "aarch64"]);
    let (c, out) = weakc(&["check", "--mm", ALL, "examples/datatypes/msn.c", "--test", "( enqueue | dequeue )"]);
    assert_eq!(c, 0, "{out}");
    expect(&out, &[]);
}

#[test]
fn treiber_stack_publishes_its_node_after_initialising_it_only_with_the_fence() {
    // Without the store-store fence the CAS publishing the node can become visible before
    // the node's value on every architecture that reorders stores; TSO keeps them in order.
    let (c, out) = weakc(&["check", "--mm", ALL, "examples/datatypes/treiber.c", "--test", "( push | pop )", "-DNO_FENCES"]);
    assert_eq!(c, 10, "{out}");
    expect(&out, &["pso", "rmo", "power", "arm", "aarch64"]);
    let (c, out) = weakc(&["check", "--mm", ALL, "examples/datatypes/treiber.c", "--test", "( push | pop )"]);
    assert_eq!(c, 0, "{out}");
    expect(&out, &[]);
}

/// `--emit-harness` writes the inclusion check as a program: `weakc fences --property` on
/// the fenceless two-lock queue and it finds the store-store fence Power needs between the
/// node's initialisation and its link (guided by the axiomatic route's counterexample: the
/// rewriter does not buffer these heap nodes), verified and written as a patch.
#[test]
fn snark_deque_reports_empty_while_an_element_is_left_even_under_sc() {
    // Detlefs et al.'s snark deque as published (DCAS an atomic section): a popLeft reads both
    // hats on the one-element deque; a pushLeft then adds a node and a popRight takes the
    // right one, which it leaves pointing to itself; the popLeft takes that self-pointer for
    // an empty deque and returns -1 while 1 is still there. One of the two known bugs
    // (Doherty et al., SPAA 2004) that CheckFence reproduced; not a memory-model bug.
    let test = "( pushLeft(1) popRight() | pushRight(2) popLeft() )";
    let (c, out) = weakc(&["check", "--mm", "sc", "examples/datatypes/snark.c", "--test", test]);
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("observation outside the set: ( pushLeft(1) popRight() = "), "{out}");
    assert!(out.contains("CHECK sc: FAILED"), "{out}");
}

#[test]
fn the_emitted_harness_lets_fences_find_the_queues_fence() {
    let d = tempfile::tempdir().unwrap();
    let h = d.path().join("h.c");
    let (code, out) = weakc(&["check", "--mm", "sc", "examples/datatypes/ms2.c", "-DNO_FENCES", "--test", "( enqueue | dequeue )", "--emit-harness", h.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(&h).unwrap();
    assert!(text.contains("int main(void)") && text.contains("__CPROVER_assert"), "{text}");
    let (code, out) = weakc(&["verify", "--mm", "power", "examples/datatypes/ms2.c", "-DNO_FENCES", h.to_str().unwrap()]);
    assert_eq!(code, 10, "{out}");
    let patch = d.path().join("fix.diff");
    let (code, out) = weakc(&["fences", "--mm", "power", "--property", "-DNO_FENCES", "examples/datatypes/ms2.c", h.to_str().unwrap(), "--patch", patch.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["status"], "verified", "{out}");
    let p = &j["placements"];
    assert_eq!(p.as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(p[0]["fence"], "lwsync", "{out}");
    // after the value's store, before the link under the tail lock (line 55)
    let line = p[0]["line_after"].as_u64().unwrap();
    assert!((49..=55).contains(&line), "{out}");
    assert!(std::fs::read_to_string(&patch).unwrap().contains("lwsync"));
}

/// FOIL's DSTM (examples/stm/) checked for opacity against the sequential reference whose
/// attempts may abort: opaque on every architecture with the fence weakc's models need
/// after the locator's compare-and-swap (they keep no control dependency: FOIL's do, so its
/// Table 3 has none); without it a reader returns a snapshot no serial order gives, on the
/// four architectures that let the status check overtake the CAS it branches on.
#[test]
fn dstm_is_opaque_with_the_fence_after_its_locator_cas() {
    let test = "( tx_w(1,1) | tx_r(2,*) )";
    let (_, out) = weakc(&["check", "--mm", ALL, "examples/stm/dstm.c", "-DEXTRA_FENCES", "--spec", "examples/stm/stm_spec.c", "--test", test]);
    expect(&out, &[]);
    assert!(out.contains("observation set: 22 observations"), "{out}");
    let (code, out) = weakc(&["check", "--mm", ALL, "examples/stm/dstm.c", "--spec", "examples/stm/stm_spec.c", "--test", test]);
    assert_eq!(code, 10, "{out}");
    expect(&out, &["rmo", "power", "arm", "aarch64"]);
}

#[test]
fn a_specification_gives_the_observation_set() {
    let spec = "examples/datatypes/queue-spec.c";
    let (c, out) = weakc(&["check", "--mm", "sc,tso", "examples/datatypes/ms2.c", "--spec", spec, "--test", "enqueue(1) ( enqueue(2) | dequeue dequeue )"]);
    assert_eq!(c, 0, "{out}");
    assert!(out.contains("serial executions of the specification"), "{out}");
    // A stack is not a queue, even under SC.
    let (c, out) = weakc(&["check", "--mm", "sc", "tests/c/check/lifo-queue.c", "--spec", spec, "--test", "enqueue(1) enqueue(2) ( dequeue )"]);
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("observation outside the set: enqueue(1) enqueue(2) ( dequeue() = 2 )"), "{out}");
    assert!(out.contains("    enqueue(1) enqueue(2) ( dequeue() = 1 )"), "{out}");
}

#[test]
fn json_reports_the_set_the_observation_and_the_verify_report() {
    let (c, out) = weakc(&["check", "--mm", "tso,power", "--format", "json", "examples/datatypes/ms2.c", "--test", "( enqueue | dequeue )", "-DNO_FENCES"]);
    assert_eq!(c, 10, "{out}");
    let lines: Vec<serde_json::Value> = out.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).expect("json line")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["arch"], "tso");
    assert_eq!(lines[0]["verdict"], "safe");
    assert_eq!(lines[1]["verdict"], "failed");
    assert_eq!(lines[1]["observation_set"]["size"], 4);
    assert!(lines[1]["observation"].as_str().is_some_and(|o| o.starts_with("( enqueue(")), "{out}");
    assert!(lines[1]["verify"].is_object(), "{out}");
}

#[test]
fn tests_and_libraries_it_cannot_check_are_errors_with_their_place() {
    for (args, place, what) in [
        (vec!["examples/datatypes/ms2.c", "--test", "( enqueue | pop )"], "--test:1:13", "unknown operation `pop`"),
        (vec!["examples/datatypes/ms2.c", "--test", "( enqueue(1, 2) | dequeue )"], "--test:1:3", "takes 1 argument(s), the test gives 2"),
        (vec!["examples/datatypes/ms2.c", "--test", "( enqueue dequeue"], "--test:1:18", "expected an operation, `|` or `)`"),
        (vec!["tests/c/check/no-init.c", "--test", "( put | get )"], "--test:1:1", "no init function `init`"),
        (vec!["tests/c/check/pointer-op.c", "--test", "( put | get )"], "--test:1:3", "parameter of type `i32*`"),
        (vec!["tests/c/check/unbounded.c", "--test", "( spin )", "--max-unwind", "3"], "unbounded.c:8:5", "the test is not bounded"),
        (vec!["examples/datatypes/ms2.c", "--test", "( enqueue )", "--values", "0,x"], "", "--values"),
    ] {
        let mut a = vec!["check", "--mm", "sc"];
        a.extend(args.iter());
        let (c, out) = weakc(&a);
        assert_eq!(c, 2, "{args:?}: {out}");
        assert!(out.contains(what), "{args:?}: {out}");
        assert!(out.contains(place), "{args:?}: {out}");
    }
    // --init names another function.
    let (c, out) = weakc(&["check", "--mm", "sc", "tests/c/check/no-init.c", "--init", "setup", "--test", "( put(1) | get )"]);
    assert_eq!(c, 0, "{out}");
    assert!(out.contains("observation set: 2 observations of 1 value each"), "{out}");
}

/// `--commit-points` (CAV 2006): the two-lock queue commits an enqueue at its link and a
/// dequeue at its read of head->next; every execution's observation is then the serial one
/// in commit order, on every architecture. CAV'06's first guess (the dequeue's read of
/// `head`) is refuted even under SC; without the fence Power shows an observation no serial
/// order gives. A call that passes no commit point of its own is a finding too.
#[test]
fn commit_points_give_the_two_lock_queues_linearization_order() {
    let test = "( enqueue(1) | dequeue() )";
    let (c, out) = weakc(&["check", "--mm", ALL, "examples/datatypes/ms2.c", "--test", test, "--commit-points"]);
    assert_eq!(c, 0, "{out}");
    expect(&out, &[]);
    assert!(out.contains("and the order of the calls"), "{out}");
    let (c, out) = weakc(&["check", "--mm", "sc,tso,power", "examples/datatypes/ms2.c", "-DEARLY_DEQUEUE_COMMIT", "--test", test, "--commit-points"]);
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("CHECK sc: FAILED") && out.contains("CHECK tso: FAILED"), "{out}");
    assert!(out.contains("commit order does not explain the observation") && out.contains("dequeue() (thread 1) < enqueue(1) (thread 0)"), "{out}");
    // Power: no single memory order; each call's one commit point is still checked.
    assert!(out.contains("CHECK power: SAFE") && out.contains("not multi-copy atomic"), "{out}");
    let (c, out) = weakc(&["check", "--mm", "power", "examples/datatypes/ms2.c", "-DNO_FENCES", "--test", test, "--commit-points"]);
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("not linearizable: no serial execution gives this observation"), "{out}");
    for bad in ["-DONLY_WHEN_SEEN", "-DTOO_EARLY"] {
        let (c, out) = weakc(&["check", "--mm", "sc,power", "tests/c/check/commit-once.c", bad, "--test", "( add add | get )", "--commit-points"]);
        assert_eq!(c, 10, "{bad}: {out}");
        assert_eq!(out.matches("a call passed no commit point").count(), 2, "{bad}: {out}");
    }
    let (c, out) = weakc(&["check", "--mm", "sc,tso,rmo,power,arm,aarch64", "tests/c/check/commit-once.c", "--test", "( add add | get )", "--commit-points"]);
    assert_eq!(c, 0, "{out}");
    // The commit order is read from the built-in engine's axiomatic route only.
    let (c, out) = weakc(&["check", "--mm", "tso", "tests/c/check/commit-once.c", "--test", "( add | get )", "--commit-points", "--engine", "instrument"]);
    assert_eq!(c, 2, "{out}");
    let (c, out) = weakc(&["check", "--mm", "power-esop", "tests/c/check/commit-once.c", "--test", "( add | get )", "--commit-points"]);
    assert_eq!(c, 2, "{out}");
    assert!(out.contains("no model of power-esop"), "{out}");
}
