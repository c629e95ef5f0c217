//! The process-wide memory guard ends weakc with exit code 7 and a message, and leaves no
//! output file behind.

use std::process::Command;

#[test]
fn memory_guard_stops_instrument_with_exit_code_7() {
    let dir = tempfile::tempdir().expect("tempdir");
    // a program whose selection needs well over 40 MiB (about 170 MiB measured)
    let mut src = String::new();
    for i in 0..16 {
        src += &format!("int v{i};\n");
    }
    for t in 0..2 {
        src += &format!("void *t{t}(void *a) {{\n  int r = 0;\n");
        for k in 0..200 {
            let v = (k * 7 + t * 3 + k / 5) % 16;
            src += &if (k + t) % 2 == 0 { format!("  v{v} = {};\n", 1 + k % 9) } else { format!("  r = r + v{v};\n") };
        }
        src += "  return 0;\n}\n";
    }
    src += "int main(void) {\n  __CPROVER_ASYNC_0: t0(0);\n  __CPROVER_ASYNC_1: t1(0);\n  return 0;\n}\n";
    let file = dir.path().join("big.c");
    std::fs::write(&file, src).unwrap();
    let out_c = dir.path().join("out.c");
    let out = Command::new(env!("CARGO_BIN_EXE_weakc"))
        .args(["--max-memory", "40", "instrument", "--mm", "tso"])
        .arg(&file)
        .arg("-o")
        .arg(&out_c)
        .output()
        .expect("run weakc");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{err}");
    assert!(err.contains("memory guard") && err.contains("--max-memory"), "{err}");
    assert!(!out_c.exists(), "no output file after the guard stopped weakc");
}
