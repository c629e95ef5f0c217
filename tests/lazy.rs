//! End to end: the lazily chosen instrumentation (a first cycle search cut short at two
//! cycles, completed by cover and check) and the naive one (`--strategy all`: every
//! relaxable pair delayed) give the same verdict on small random programs, with an
//! assertion a weak behaviour violates and one nothing violates.

use std::process::Command;

fn weakc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(args).output().expect("run weakc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `scripts/gen-random`'s shape: stores of constants and `r = r + v_k` after a store-buffering
/// prefix on `v0`/`v1`; `weak` asserts the SC-only outcome of the prefix (violated on every
/// weak model), otherwise that the sums are non-negative (always true).
fn program(seed: u64, threads: usize, stmts: usize, vars: usize, weak: bool) -> String {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let mut next = |n: usize| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((x >> 33) % n as u64) as usize
    };
    let mut s = String::from("#include <assert.h>\n");
    s += &(0..vars).map(|i| format!("int v{i};\n")).collect::<String>();
    s += &(0..threads).map(|t| format!("int r{t}, s{t};\n")).collect::<String>();
    for t in 0..threads {
        s += &format!("void *t{t}(void *a) {{\n  int r = 0;\n");
        if t < 2 {
            s += &format!("  v{t} = 1;\n  s{t} = v{};\n", 1 - t);
        }
        for _ in 0..stmts {
            let k = next(vars);
            if next(2) == 0 {
                s += &format!("  v{k} = {};\n", 1 + next(9));
            } else {
                s += &format!("  r = r + v{k};\n");
            }
        }
        s += &format!("  r{t} = r;\n  return 0;\n}}\n");
    }
    s += "int main(void) {\n";
    for t in 0..threads {
        s += &format!("  __CPROVER_ASYNC_{t}: t{t}(0);\n");
    }
    s += if weak { "  assert(!(s0 == 0 && s1 == 0));\n" } else { "  assert(r0 >= 0);\n" };
    s + "  return 0;\n}\n"
}

#[test]
fn lazy_and_naive_instrumentation_agree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut lazy_used = 0;
    for seed in 0..4u64 {
        for weak in [false, true] {
            let src = program(seed, 2, 3, 3, weak);
            let file = dir.path().join(format!("r{seed}{}.c", if weak { "w" } else { "" }));
            std::fs::write(&file, &src).unwrap();
            let f = file.to_str().unwrap();
            for arch in ["tso", "pso", "power"] {
                let (_, json, err) = weakc(&["instrument", "--mm", arch, "--max-cycles", "2", f, "-o", dir.path().join("o.c").to_str().unwrap(), "--format", "json"]);
                let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}{err}"));
                assert_eq!(v["fallback_all_pairs"], false, "{arch} {f}: {json}");
                if v["lazy_rounds"].is_u64() {
                    lazy_used += 1;
                }
                let (lazy, out_lazy, _) = weakc(&["verify", "--mm", arch, "--engine", "instrument", "--max-cycles", "2", "--quiet", f]);
                let (naive, out_naive, _) = weakc(&["verify", "--mm", arch, "--engine", "instrument", "--strategy", "all", "--quiet", f]);
                assert_eq!(lazy, naive, "{arch} seed {seed}: lazy `{out_lazy}` vs all `{out_naive}`\n{src}");
                assert_eq!(lazy, if weak { 10 } else { 0 }, "{arch} seed {seed}: {out_lazy}\n{src}");
            }
        }
    }
    assert!(lazy_used > 0, "the first search always finished: the lazy selection was never exercised");
}

/// When the lazy selection runs out of time (`--selection-timeout 0`), every relaxable pair
/// on a cycle of the event graph is delayed: the summary says so, and the verdicts stay those
/// of the complete selection.
#[test]
fn a_lazy_selection_out_of_time_falls_back_to_every_pair_on_a_cycle() {
    let dir = tempfile::tempdir().expect("tempdir");
    for weak in [false, true] {
        let src = program(1, 2, 6, 3, weak);
        let file = dir.path().join(format!("r{}.c", if weak { "w" } else { "" }));
        std::fs::write(&file, &src).unwrap();
        let f = file.to_str().unwrap();
        let out = dir.path().join("o.c");
        let args = ["--mm", "power", "--max-cycles", "2", "--selection-timeout", "0", f];
        let (code, json, err) = weakc(&[&["instrument", "-o", out.to_str().unwrap(), "--format", "json"][..], &args[..]].concat());
        assert_eq!(code, 0, "{json}{err}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}{err}"));
        assert_eq!(v["fallback_all_pairs"], true, "{json}");
        assert!(v["note"].as_str().is_some_and(|n| n.contains("--selection-timeout")), "{json}");
        let (code, stdout, _) = weakc(&[&["verify", "--engine", "instrument", "--quiet"][..], &args[..]].concat());
        assert_eq!(code, if weak { 10 } else { 0 }, "{stdout}\n{src}");
    }
}

/// The fallback keeps what a lightweight fence orders: it cannot tell in which cycles herd's
/// Power relaxes lwsync (R+lwsync+sync), so where such a pair lies on a cycle the
/// instrumentation may lack behaviours, and assertions that hold prove nothing: UNKNOWN
/// with the reason, never SUCCESSFUL. (The program is MP+lwsync+sync, forbidden, with a
/// third thread: a violation would be spurious.)
#[test]
fn the_fallback_says_it_keeps_lightweight_fences() {
    let f = "tests/c/fallback_lwsync.c";
    let fallback = ["--max-cycles", "1", "--selection-timeout", "0"];
    let (code, stdout, err) = weakc(&[&["verify", "--engine", "instrument", "--mm", "power"][..], &fallback[..], &[f][..]].concat());
    assert_eq!(code, 5, "{stdout}{err}");
    assert!(stdout.contains("the fallback selection keeps every lightweight fence ordering"), "{stdout}");
    // `instrument` says it too
    let out = tempfile::tempdir().expect("tempdir");
    let o = out.path().join("o.c");
    let (code, stdout, err) = weakc(&[&["instrument", "--mm", "power", "-o", o.to_str().unwrap()][..], &fallback[..], &[f][..]].concat());
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(format!("{stdout}{err}").contains("may lack behaviours of the architecture: the fallback selection keeps"), "{stdout}{err}");
    // with the cycles, or on an architecture without lightweight fences, it is decided
    let (code, stdout, err) = weakc(&["verify", "--engine", "instrument", "--mm", "power", f]);
    assert_eq!(code, 0, "{stdout}{err}");
    let (code, stdout, err) = weakc(&[&["verify", "--engine", "instrument", "--mm", "rmo"][..], &fallback[..], &[f][..]].concat());
    assert_eq!(code, 0, "{stdout}{err}");
}

/// A program the fallback delays wholesale has many places where the instrumentation may lack
/// behaviours: `instrument`'s text shows the first five with their source and counts the
/// rest, while the JSON lists every one, each place once.
#[test]
fn instrument_shows_a_few_approximations_and_counts_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("p.c");
    std::fs::write(&src, program(3, 4, 50, 8, false)).expect("write");
    let o = dir.path().join("o.c");
    let args = ["instrument", "--mm", "rmo", "--max-cycles", "1", "--selection-timeout", "0", "-o", o.to_str().unwrap(), src.to_str().unwrap()];
    let (code, text, err) = weakc(&args);
    assert_eq!(code, 0, "{text}{err}");
    let (code, json, err) = weakc(&[&args[..], &["--format", "json"][..]].concat());
    assert_eq!(code, 0, "{json}{err}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let all = v["summary"]["approximations"].as_array().expect("approximations").clone();
    assert!(all.len() > 5, "the program should need more than five approximations: {json}");
    let distinct: std::collections::HashSet<String> = all.iter().map(|a| a.to_string()).collect();
    assert_eq!(distinct.len(), all.len(), "repeated places: {json}");
    let out = format!("{text}{err}");
    assert_eq!(out.matches("warning: the instrumented program may lack behaviours").count(), 5, "{out}");
    assert!(out.contains(&format!("... and {} more places", all.len() - 5)), "{out}");
}
