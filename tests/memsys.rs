//! End to end through the CLI: `weakc memsys` on the protocols of `examples/memsys/` and
//! `tests/c/memsys/`, each with the answer its header comment gives, the run's trace handed
//! to `trace-check`, and protocols that do not have the documented shape.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn weakc(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).current_dir(root()).args(args).output().expect("run weakc");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

#[test]
fn store_buffers_are_not_sc_and_the_sb_cycle_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("sb.trace");
    let dot = dir.path().join("sb.dot");
    let (c, out) = weakc(&[
        "memsys", "--depth", "4", "--k", "2", "--canonical", "--trace", trace.to_str().unwrap(), "--dot", dot.to_str().unwrap(), "examples/memsys/store-buffer.c",
    ]);
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("k=2: NOT SEQUENTIALLY CONSISTENT: a run of 4 steps with a 2-nice cycle"), "{out}");
    // SB: each processor writes one location then reads the other's initial value.
    assert_eq!(out.matches("--po-->").count(), 2, "{out}");
    assert_eq!(out.matches("--fr l").count(), 2, "{out}");
    assert_eq!(out.matches("= 0  <- b").count(), 2, "{out}");
    // The run's trace: trace-check finds the same cycle under the simple witness, and no
    // write order makes it SC.
    let (c, tc) = weakc(&["trace-check", trace.to_str().unwrap()]);
    assert_eq!(c, 10, "{tc}");
    assert!(tc.contains("a 2-nice cycle"), "{tc}");
    let (c, tc) = weakc(&["trace-check", "--ignore-timestamps", trace.to_str().unwrap()]);
    assert_eq!(c, 10, "{tc}");
    let d = std::fs::read_to_string(&dot).unwrap();
    assert!(d.starts_with("digraph") && d.matches("color=red, penwidth=2, label").count() == 2, "{d}");
}

#[test]
fn a_cycle_only_under_the_simple_witness_is_unknown() {
    // Store buffers write a location in the order the writes leave the buffers, not the
    // order they are issued: the simple witness is wrong for them, and a 1-nice cycle under it
    // is a run that is SC with the other write order.
    let (c, out) = weakc(&["memsys", "--depth", "6", "--k", "1", "examples/memsys/store-buffer.c"]);
    assert_eq!(c, 5, "{out}");
    assert!(out.contains("k=1: UNKNOWN") && out.contains("the simple witness is not a witness for this protocol"), "{out}");
}

#[test]
fn one_memory_has_no_nice_cycle_within_the_bound() {
    let (c, out) = weakc(&["memsys", "--depth", "5", "examples/memsys/single-memory.c"]);
    assert_eq!(c, 0, "{out}");
    assert!(out.contains("k=1: no 1-nice cycle in runs of up to 5 steps"), "{out}");
    assert!(out.contains("k=2: no 2-nice cycle in runs of up to 5 steps"), "{out}");
    // Three processors and locations: k goes to 3.
    let (c, out) = weakc(&["memsys", "-n", "3", "-m", "3", "--depth", "4", "--canonical", "--format", "json", "examples/memsys/single-memory.c"]);
    assert_eq!(c, 0, "{out}");
    let ks: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(ks.len(), 3, "{out}");
    for (i, j) in ks.iter().enumerate() {
        assert_eq!(j["k"], i + 1);
        assert_eq!(j["verdict"], "no_cycle");
        assert_eq!(j["complete"], true);
    }
}

#[test]
fn the_piranha_protocol_has_no_short_cycle() {
    let (c, out) = weakc(&["memsys", "--depth", "5", "--canonical", "examples/memsys/piranha.c"]);
    assert_eq!(c, 0, "{out}");
    assert!(out.contains("k=2: no 2-nice cycle in runs of up to 5 steps"), "{out}");
}

#[test]
fn a_stale_own_read_is_a_one_nice_cycle() {
    let (c, out) = weakc(&["memsys", "--depth", "3", "--format", "json", "tests/c/memsys/stale-own-read.c"]);
    assert_eq!(c, 10, "{out}");
    let j: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(j["verdict"], "not_sc");
    assert_eq!(j["k"], 1);
    let cycle = j["cycle"].as_array().unwrap();
    assert_eq!(cycle.len(), 1);
    assert_eq!(cycle[0]["location_edge"], "fr", "{out}");
    assert_eq!(j["run"].as_array().unwrap().len(), 3, "{out}");
}

#[test]
fn causality_and_the_protocols_own_assertions_are_checked() {
    let (c, out) = weakc(&["memsys", "--depth", "3", "tests/c/memsys/liar.c"]);
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("ASSERTION FAILED: causality: a read returns a value no write to its location wrote before"), "{out}");
    let (c, out) = weakc(&["memsys", "--depth", "3", "tests/c/memsys/protocol-assert.c"]);
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("ASSERTION FAILED: count < 2 (tests/c/memsys/protocol-assert.c:7)"), "{out}");
    assert!(out.contains("2. write("), "{out}");
}

#[test]
fn protocols_without_the_shape_are_input_errors() {
    let (c, out) = weakc(&["memsys", "tests/c/memsys/no-read.c"]);
    assert_eq!(c, 2, "{out}");
    assert!(out.contains("no `read` command") && out.contains("no-read.c"), "{out}");
    let (c, out) = weakc(&["memsys", "tests/c/memsys/bad-param.c"]);
    assert_eq!(c, 2, "{out}");
    assert!(out.contains("parameter `x` of `evict`") && out.contains("bad-param.c:7"), "{out}");
    let (c, out) = weakc(&["memsys", "--k", "3", "examples/memsys/single-memory.c"]);
    assert_eq!(c, 2, "{out}");
    assert!(out.contains("--k must be between 1 and min(N, M) = 2"), "{out}");
    let (c, out) = weakc(&["memsys", "examples/memsys/missing.c"]);
    assert_eq!(c, 2, "{out}");
    assert!(out.contains("missing.c"), "{out}");
}
