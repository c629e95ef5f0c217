//! End to end through the CLI: side-effect-free spin loops are entered once whatever the
//! bound (`src/bmc/spin.rs`), so a spinning lock verifies completely at a small bound, and a
//! loop whose iterations carry state is still unrolled (no bug missed). Programs in
//! `tests/c/spin/`, each with the reasoning in its header comment.

use std::path::Path;
use std::process::Command;

fn weakc(args: &[&str]) -> (i32, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/spin");
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).current_dir(dir).args(args).output().expect("run weakc");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

const RELAXED: [&str; 2] = ["-DORD_REL=memory_order_relaxed", "-DORD_ACQ=memory_order_relaxed"];

#[test]
fn a_spinning_reader_is_decided_completely_at_bound_one() {
    for mm in ["sc", "tso", "pso", "rmo", "power", "arm", "aarch64"] {
        // Release/acquire: safe everywhere, and with unwinding assertions on at --unwind 1 the
        // verdict is complete: the spin loop has no unwinding assertion to fail.
        let (code, text) = weakc(&["verify", "--mm", mm, "--unwind", "1", "mp_spin.c"]);
        assert_eq!(code, 0, "{mm}: {text}");
        assert!(text.contains("the bounds were shown sufficient"), "{mm}: {text}");
        let mut args = vec!["verify", "--mm", mm, "--unwind", "1"];
        args.extend(RELAXED);
        args.push("mp_spin.c");
        let (code, text) = weakc(&args);
        let weak = !["sc", "tso"].contains(&mm);
        assert_eq!(code, if weak { 10 } else { 0 }, "{mm} relaxed: {text}");
    }
}

#[test]
fn show_loops_marks_spin_loops() {
    let (code, text) = weakc(&["verify", "--mm", "power", "--show-loops", "mp_spin.c"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("Loop reader.0: mp_spin.c:24 (spin loop"), "{text}");
    let (_, text) = weakc(&["verify", "--mm", "power", "--show-loops", "counted_spin.c"]);
    assert!(text.contains("Loop waiter.0:") && !text.contains("spin loop"), "{text}");
}

#[test]
fn a_loop_that_counts_its_iterations_is_unrolled() {
    // The assertion needs two iterations of the waiting loop: found at --unwind 2 on the
    // default route of every architecture, and not at --unwind 1 (the loop is bounded). On
    // power and arm the seq_cst load in the condition carries a fence: the last check of the
    // condition at the bound must still be made.
    for mm in ["sc", "tso", "pso", "rmo", "power", "arm", "aarch64"] {
        let (code, text) = weakc(&["verify", "--mm", mm, "--unwind", "2", "counted_spin.c"]);
        assert_eq!(code, 10, "{mm}: {text}");
        assert!(text.contains("spins < 2"), "{mm}: {text}");
        let (code, text) = weakc(&["verify", "--mm", mm, "--unwind", "1", "--no-unwinding-assertions", "counted_spin.c"]);
        assert_eq!(code, 0, "{mm}: {text}");
        assert!(text.contains("up to the bounds"), "{mm}: {text}");
    }
}

#[test]
fn a_spinning_ticket_lock_with_three_threads() {
    // main's thread-creation loops need four iterations; the workers' spin loops need none.
    for mm in ["sc", "tso", "pso", "rmo", "power", "arm", "aarch64"] {
        let (code, text) = weakc(&["verify", "--mm", mm, "--unwind", "4", "ticket_spin.c"]);
        assert_eq!(code, 0, "{mm}: {text}");
        assert!(text.contains("the bounds were shown sufficient"), "{mm}: {text}");
        let mut args = vec!["verify", "--mm", mm, "--unwind", "4"];
        args.extend(RELAXED);
        args.push("ticket_spin.c");
        let (code, text) = weakc(&args);
        let weak = !["sc", "tso"].contains(&mm);
        assert_eq!(code, if weak { 10 } else { 0 }, "{mm} relaxed: {text}");
    }
}
