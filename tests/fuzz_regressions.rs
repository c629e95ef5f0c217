//! Every input a fuzzer crashed on (`fuzz/regressions/<target>/`, see `scripts/fuzz` and
//! `tests/FUZZING.md`), replayed through the same code paths (`weakc::fuzzing`) on the
//! stable toolchain: each must now end without a panic. The seed corpora are replayed too.

use std::path::Path;

fn replay(dir: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("entry").path();
        if p.is_file() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
            let data = std::fs::read(&p).expect("read");
            if std::panic::catch_unwind(|| run(&data)).is_err() {
                panic!("{} panics", p.display());
            }
            n += 1;
        }
    }
    n
}

#[test]
fn crashes_found_by_fuzzing_stay_fixed() {
    let c = replay("fuzz/regressions/c_frontend", weakc::fuzzing::c_frontend);
    let l = replay("fuzz/regressions/litmus_parser", weakc::fuzzing::litmus_parser);
    println!("{c} C and {l} litmus regression inputs");
}

#[test]
fn seed_corpora_run_without_a_panic() {
    assert!(replay("fuzz/seeds/c_frontend", weakc::fuzzing::c_frontend) > 0);
    assert!(replay("fuzz/seeds/litmus_parser", weakc::fuzzing::litmus_parser) > 0);
}
