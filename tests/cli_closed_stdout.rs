//! Every command, its standard output closed before it writes (`weakc cycles … | head`
//! once `head` has exited): no panic, no message, the command's usual exit code.

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `weakc ARGS` with stdout a pipe whose reader is already gone; returns the exit code
/// and stderr.
fn closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_weakc"))
        .args(args)
        .current_dir(root())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run weakc");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The exit code with stdout open (to a pipe that is read).
fn open_stdout(args: &[&str]) -> Option<i32> {
    Command::new(env!("CARGO_BIN_EXE_weakc")).args(args).current_dir(root()).output().expect("run weakc").status.code()
}

#[test]
fn every_command_ends_quietly_with_its_usual_code_when_stdout_is_closed() {
    let d = tempfile::tempdir().unwrap();
    let inst = d.path().join("mp_power.c");
    let gen = d.path().join("sb.litmus");
    let cases: Vec<Vec<&str>> = vec![
        vec!["--help"],
        vec!["cycles", "--mm", "power", "examples/pgsql.c"],
        vec!["cycles", "--mm", "power", "examples/pgsql.c", "--format", "json"],
        vec!["instrument", "--mm", "power", "examples/mp.c", "-o", inst.to_str().unwrap()],
        vec!["instrument", "--mm", "power", "examples/mp.c", "-o", inst.to_str().unwrap(), "--format", "json"],
        vec!["verify", "--mm", "power", "--backend", "builtin", "examples/mp.c"],
        vec!["verify", "--mm", "tso", "--backend", "builtin", "examples/mp.c", "--json"],
        vec!["verify", "--mm", "power", "--backend", "builtin", "examples/pgsql.c", "--show-loops"],
        vec!["fences", "--mm", "power", "examples/mp.c"],
        vec!["fences", "--mm", "tso", "--property", "examples/sb.c", "--format", "json"],
        vec!["litmus", "--jobs", "1", "litmus/X86/IRIW.litmus"],
        vec!["litmus-gen", "--arch", "X86", "--cycle", "PodWR Fre PodWR Fre"],
    ];
    for args in &cases {
        let (code, err) = closed_stdout(args);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "weakc {args:?}: {err}");
        assert!(err.is_empty(), "weakc {args:?}: nothing on stderr expected: {err}");
        assert_eq!(code, open_stdout(args), "weakc {args:?}: the exit code changed with stdout closed: {err}");
        assert!(code.is_some(), "weakc {args:?}: killed by a signal");
    }
    // Output to a file still works (litmus-gen -o), and a closed stdout does not stop it.
    let (code, err) = closed_stdout(&["litmus-gen", "--arch", "X86", "--cycle", "PodWR Fre PodWR Fre", "-o", gen.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(std::fs::read_to_string(&gen).unwrap().contains("X86"));
}
