//! End to end through the CLI: floating point in the built-in engine is IEEE 754 (binary32,
//! binary64), so assertions about floats are proved or refuted with real counterexamples;
//! and a counterexample that passes through undefined behaviour or an unmodelled function's
//! result is searched again without it, or reported UNKNOWN (never FAILED). The circuits
//! themselves are checked against the host's float unit in `src/bmc/fp.rs`.

use std::path::Path;
use std::process::Command;

fn weakc(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(args).output().expect("run weakc");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

fn file(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel).display().to_string()
}

/// Writes `text` to a C file in a fresh directory and verifies it.
fn verify_text(text: &str, mm: &str, extra: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.c");
    std::fs::write(&path, text).expect("write");
    let mut args = vec!["verify", "--mm", mm];
    args.extend_from_slice(extra);
    let p = path.display().to_string();
    args.push(&p);
    weakc(&args)
}

/// The value the last counterexample step naming `name` gives it (`name = VALUE`), read
/// back as a double.
fn trace_value(text: &str, name: &str) -> f64 {
    let pat = format!(" {name} = ");
    let line = text.lines().filter(|l| l.contains(&pat)).last().unwrap_or_else(|| panic!("no `{name} = ` in\n{text}"));
    let v = line.split(&pat).nth(1).unwrap().trim();
    match v {
        "NAN" => f64::NAN,
        "INFINITY" => f64::INFINITY,
        "-INFINITY" => f64::NEG_INFINITY,
        v => v.parse().unwrap_or_else(|_| panic!("`{v}` is not a number")),
    }
}

#[test]
fn the_pi_task_holds_and_its_tight_variant_fails_with_the_real_area() {
    let pi = file("tests/c/float/pi.c");
    for (mm, engine) in [("sc", "axiomatic"), ("tso", "axiomatic"), ("tso", "instrument"), ("power", "axiomatic")] {
        let (code, text) = weakc(&["verify", "--mm", mm, "--engine", engine, &pi]);
        assert_eq!(code, 0, "{mm} {engine}:\n{text}");
    }
    let (code, text) = weakc(&["verify", "--mm", "sc", "-DTIGHT", &pi]);
    assert_eq!(code, 10, "{text}");
    // The counterexample's area is what the threads really compute (either order of the two
    // additions rounds to the same value here).
    let area = trace_value(&text, "area");
    let h = 0.25f64;
    let part = |ids: &[i32]| h * ids.iter().fold(0.0, |s, &i| { let x = h * (i as f64 + 0.5); s + 4.0 / (1.0 + x * x) });
    let (a, b) = (part(&[0, 2]), part(&[1, 3]));
    assert!(area == 0.0 + a + b || area == 0.0 + b + a || area == 0.0 + a || area == 0.0 + b, "area {area} in\n{text}");
}

#[test]
fn the_small_example_of_the_issue_is_safe() {
    let (code, text) = verify_text(
        "#include <assert.h>\nint main(void) {\n  double a = 0.0, pi = 3.14159, tol = 1.0E-5;\n  assert(a - pi < tol);\n  return 0;\n}\n",
        "sc",
        &[],
    );
    assert_eq!(code, 0, "{text}");
}

#[test]
fn math_h_holds_and_each_mutation_fails() {
    let src = std::fs::read_to_string(file("tests/c/float/math.c")).expect("math.c");
    let (code, text) = verify_text(&src, "sc", &[]);
    assert_eq!(code, 0, "{text}");
    for (from, to) in [
        ("0.1 + 0.2 != 0.3", "0.1 + 0.2 == 0.3"),
        ("round(2.5) == 3.0", "round(2.5) == 2.0"),
        ("(double)f == f", "(double)f != f"),
        ("fabs(x) >= 0.0", "fabs(x) > 0.0"),
        ("signbit(z) &&", "!signbit(z) &&"),
        ("fmin(1.0, n) == 1.0", "fmin(1.0, n) != 1.0"),
        ("== FP_SUBNORMAL", "== FP_NORMAL"),
        ("DBL_MAX * 2 == INFINITY", "DBL_MAX * 2 == DBL_MAX"),
    ] {
        assert!(src.contains(from), "{from}");
        let (code, text) = verify_text(&src.replace(from, to), "sc", &[]);
        assert_eq!(code, 10, "mutation `{to}` should fail:\n{text}");
    }
}

#[test]
fn counterexample_values_are_real_on_the_host() {
    // x + 1.0 == x for magnitudes of 2^53 and more and for infinities.
    let (code, text) = verify_text(
        "#include <assert.h>\ndouble __VERIFIER_nondet_double(void);\nint main(void) {\n  double x = __VERIFIER_nondet_double();\n  assert(x + 1.0 != x);\n  return 0;\n}\n",
        "sc",
        &[],
    );
    assert_eq!(code, 10, "{text}");
    let x = trace_value(&text, "x");
    assert!(x + 1.0 == x, "the counterexample's x = {x} does not violate the assertion on the host");
    // Single precision: 1.9982f * 1.9982f rounds to 3.99 or more.
    let (code, text) = verify_text(
        "#include <assert.h>\nfloat __VERIFIER_nondet_float(void);\nint main(void) {\n  float f = __VERIFIER_nondet_float();\n  if (f > 1.0f && f < 2.0f) assert(f * f < 3.99f);\n  return 0;\n}\n",
        "sc",
        &[],
    );
    assert_eq!(code, 10, "{text}");
    let f = trace_value(&text, "f") as f32;
    assert!(f > 1.0 && f < 2.0 && f * f >= 3.99, "f = {f}");
}

#[test]
fn a_counterexample_through_an_unmodelled_function_is_unknown() {
    let (code, text) = verify_text(
        "#include <assert.h>\n#include <math.h>\ndouble __VERIFIER_nondet_double(void);\nint main(void) {\n  double s = sin(__VERIFIER_nondet_double());\n  assert(s <= 1.0);\n  return 0;\n}\n",
        "sc",
        &[],
    );
    assert_eq!(code, 5, "{text}");
    assert!(text.contains("calls `sin`"), "{text}");
}

#[test]
fn a_real_violation_is_found_past_an_approximated_one() {
    // Either assertion can fail in the formula; only the second one really can, on a path
    // that neither calls `sin` nor divides by zero.
    let (code, text) = verify_text(
        "#include <assert.h>\n#include <math.h>\nint __VERIFIER_nondet_int(void);\ndouble __VERIFIER_nondet_double(void);\nint main(void) {\n  double s = 0.0;\n  int d = __VERIFIER_nondet_int();\n  if (d > 5) s = sin(__VERIFIER_nondet_double());\n  int q = 100 / d;\n  assert(s <= 1.0 && (d != 0 || q == 7));\n  assert(d != 3);\n  return 0;\n}\n",
        "sc",
        &[],
    );
    assert_eq!(code, 10, "{text}");
    assert!(text.contains("property violated: d != 3"), "{text}");
}

#[test]
fn undefined_behaviour_is_not_a_counterexample() {
    for (body, why) in [
        ("int d = __VERIFIER_nondet_int();\n  int q = 10 / d;\n  if (d == 0) assert(q == 1);", "divides by zero"),
        ("double v = __VERIFIER_nondet_double();\n  int i = (int)v;\n  if (v > 3e9) assert(i == 5);", "out of the range"),
    ] {
        let (code, text) = verify_text(
            &format!("#include <assert.h>\nint __VERIFIER_nondet_int(void);\ndouble __VERIFIER_nondet_double(void);\nint main(void) {{\n  {body}\n  return 0;\n}}\n"),
            "sc",
            &[],
        );
        assert_eq!(code, 5, "{text}");
        assert!(text.contains(why), "{why}: {text}");
    }
}
