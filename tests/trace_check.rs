//! End to end through the CLI: `weakc trace-check` on the traces of
//! `examples/memsys/traces/` (each with its expected answer in its header comment), on
//! architectures through the axiomatic engine, on broken input, and on a large trace from
//! `scripts/gen-trace` (an SC run, and an x86-TSO run that is not SC).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn weakc(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc"))
        .current_dir(root().join("examples/memsys/traces"))
        .args(args)
        .output()
        .expect("run weakc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn example_traces_get_their_expected_answers() {
    for (f, code, what) in [
        ("sb.trace", 10, "a 2-nice cycle"),
        ("store-buffer-run.trace", 10, "a 2-nice cycle"),
        ("piranha-bug-run.trace", 10, "a 2-nice cycle"),
        ("iriw.trace", 10, "a 2-nice cycle"),
        ("causality.trace", 10, "not causal"),
        ("sb-fenced.trace", 0, "SEQUENTIALLY CONSISTENT"),
        ("mp-ok.trace", 0, "SEQUENTIALLY CONSISTENT"),
        ("sc-no-timestamps.trace", 0, "write order: searched"),
    ] {
        let (c, text) = weakc(&["trace-check", f]);
        assert_eq!(c, code, "{f}: {text}");
        assert!(text.contains(what), "{f}: {text}");
    }
    // The cycle names its events' lines and the relations between them.
    let (_, text) = weakc(&["trace-check", "sb.trace"]);
    assert!(
        text.contains("sb.trace:6:5") && text.contains("--fr y-->") && text.contains("--po-->"),
        "{text}"
    );
}

#[test]
fn witness_and_json() {
    let (c, text) = weakc(&[
        "trace-check",
        "--witness",
        "--format",
        "json",
        "mp-ok.trace",
        "sb.trace",
    ]);
    assert_eq!(c, 10, "{text}");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["verdict"], "sc");
    assert_eq!(lines[0]["witness"].as_array().map(Vec::len), Some(4));
    assert_eq!(lines[1]["verdict"], "not_sc");
    assert_eq!(lines[1]["nice"], true);
    assert_eq!(lines[1]["k"], 2);
    assert_eq!(lines[1]["mode"], "timestamps");
}

#[test]
fn architectures_through_the_axiomatic_engine() {
    for (mm, f, code) in [
        ("tso", "sb.trace", 0),
        ("tso", "iriw.trace", 10),
        ("pso", "iriw.trace", 10),
        ("power", "iriw.trace", 0),
        ("arm", "iriw.trace", 0),
        ("aarch64", "sb.trace", 0),
        ("power", "causality.trace", 10),
    ] {
        let (c, text) = weakc(&["trace-check", "--mm", mm, f]);
        assert_eq!(c, code, "{mm} {f}: {text}");
    }
    let (c, text) = weakc(&["trace-check", "--mm", "vax", "sb.trace"]);
    assert_eq!(c, 2, "{text}");
}

#[test]
fn broken_traces_are_input_errors_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    for (text, line, what) in [
        ("P0: W x 1\nP1: X y 2\n", 2, "expected `R LOCATION VALUE`"),
        ("P0: W x 1 @1\nP1: W x 2\nP1: R x 1\n", 2, "no timestamp"),
        ("P0: W x 1 @4\nP1: W x 2 @4\n", 2, "timestamp 4"),
    ] {
        let f = dir.path().join("t.trace");
        std::fs::write(&f, text).unwrap();
        let (c, out) = weakc(&["trace-check", f.to_str().unwrap()]);
        assert_eq!(c, 2, "{text}: {out}");
        assert!(
            out.contains(&format!("t.trace:{line}:")) && out.contains(what),
            "{text}: {out}"
        );
    }
    let (c, out) = weakc(&["trace-check", "no-such.trace"]);
    assert_eq!(c, 2, "{out}");
}

#[test]
fn large_generated_traces() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, verdict) in [("", "sc"), ("--tso", "not_sc")] {
        let mut cmd = Command::new("python3");
        cmd.arg(root().join("scripts/gen-trace")).args([
            "--procs", "4", "--locs", "8", "--events", "20000", "--seed", "3",
        ]);
        if !flag.is_empty() {
            cmd.arg(flag);
        }
        let out = match cmd.output() {
            Ok(o) if o.status.success() => o.stdout,
            other => {
                println!("skipped: python3 scripts/gen-trace did not run: {other:?}");
                return;
            }
        };
        let f = dir.path().join("big.trace");
        std::fs::write(&f, out).unwrap();
        let (c, text) = weakc(&["trace-check", "--format", "json", f.to_str().unwrap()]);
        let j: serde_json::Value =
            serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(j["verdict"], verdict, "{flag}: {text}");
        assert_eq!(j["events"], 20000);
        assert_eq!(c, if verdict == "sc" { 0 } else { 10 });
        if verdict == "not_sc" {
            assert_eq!(j["nice"], true, "{text}");
        }
    }
}

#[test]
fn final_states_of_herd7_and_litmus7_logs_are_checked_against_the_model() {
    // herd7's four states of SB: only both reads 0 is not SC; x86-TSO allows all four.
    let (c, out) = weakc(&["trace-check", "--litmus", "../../../litmus/X86/SB.litmus", "../logs/SB.x86.herd7"]);
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("litmus test SB under sc: 1 of 4 observed states NOT SC"), "{out}");
    assert!(out.contains("0:EAX=0; 1:EAX=0;  (line 3)  NOT SC: no SC execution of SB ends in this state"), "{out}");
    assert_eq!(out.matches(")  SC\n").count(), 3, "{out}");
    let (c, out) = weakc(&["trace-check", "--mm", "tso", "--litmus", "../../../litmus/X86/SB.litmus", "../logs/SB.x86.herd7"]);
    assert_eq!(c, 0, "{out}");
    assert_eq!(out.matches("allowed").count(), 4, "{out}");
    // litmus7's histogram of MP on Power, with counts: 28 runs saw the weak outcome.
    let (c, out) = weakc(&["trace-check", "--format", "json", "--litmus", "../../../litmus/PPC/MP.litmus", "../logs/MP.ppc.litmus7"]);
    assert_eq!(c, 10, "{out}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let states = j["states"].as_array().unwrap();
    assert_eq!(states.len(), 4);
    let bad: Vec<&serde_json::Value> = states.iter().filter(|s| s["verdict"] == "not_sc").collect();
    assert_eq!(bad.len(), 1, "{out}");
    assert_eq!(bad[0]["state"], "1:r1=1; 1:r3=0;");
    assert_eq!(bad[0]["count"], 28);
    let (c, out) = weakc(&["trace-check", "--mm", "power", "--litmus", "../../../litmus/PPC/MP.litmus", "../logs/MP.ppc.litmus7"]);
    assert_eq!(c, 0, "{out}");
    // A log without states is an input error.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, "Test SB Allowed\nOk\n").unwrap();
    let (c, out) = weakc(&["trace-check", "--litmus", "../../../litmus/X86/SB.litmus", empty.to_str().unwrap()]);
    assert_eq!(c, 2, "{out}");
    assert!(out.contains("no final states in this log"), "{out}");
}
