//! liburcu (Debian's `liburcu-dev`) as shipped: its barriers, atomics and lock-free stack in
//! the harnesses of `tests/c/urcu/`, each with its verdict per architecture in its header
//! comment, and with one barrier dropped or an operation replaced (`expect(FLAGS):`). The
//! headers select their architecture's code from the target's predefined macros (`--target`
//! follows `--mm`). How a verdict is judged: `common::check_harnesses`.

mod common;

use std::path::Path;

fn no_flags(_: &str) -> &'static [&'static str] {
    &[]
}

#[test]
fn liburcu_harnesses_give_their_expected_verdicts() {
    let found = ["/usr/include/urcu/uatomic.h", "/usr/include/x86_64-linux-gnu/urcu/uatomic.h", "/usr/include/aarch64-linux-gnu/urcu/uatomic.h"].iter().any(|p| Path::new(p).exists());
    if !found {
        println!("skipped: liburcu's headers (<urcu/uatomic.h>) are absent (Debian package liburcu-dev; .ci/run installs it)");
        return;
    }
    common::check_harnesses(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/urcu"), no_flags);
}
