//! Same input, same bytes, whatever the thread count: every command's output (and every
//! file it writes) is compared across runs with 1, 2 and 8 worker threads. Only the time
//! budgets may change an answer (they say so when they run out); they are set far out of
//! reach here.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// A random straight-line program as `scripts/gen-random` writes them: `threads` threads of
/// `stmts` statements over `vars` shared ints (stores of constants, sums of reads).
fn random_program(seed: u64, threads: usize, stmts: usize, vars: usize) -> String {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut s = String::from("#include <pthread.h>\n#include <assert.h>\n");
    for v in 0..vars {
        s.push_str(&format!("int v{v};\n"));
    }
    for t in 0..threads {
        s.push_str(&format!("int r{t};\nvoid *t{t}(void *a) {{\n"));
        for _ in 0..stmts {
            let v = next(vars);
            if next(2) == 0 {
                s.push_str(&format!("  v{v} = {};\n", 1 + next(5)));
            } else {
                s.push_str(&format!("  r{t} = r{t} + v{v};\n"));
            }
        }
        s.push_str("  return 0;\n}\n");
    }
    s.push_str("int main() {\n");
    for t in 0..threads {
        s.push_str(&format!("  pthread_t h{t}; pthread_create(&h{t}, 0, t{t}, 0);\n"));
    }
    for t in 0..threads {
        s.push_str(&format!("  pthread_join(h{t}, 0);\n"));
    }
    s.push_str("  assert(r0 >= 0);\n  return 0;\n}\n");
    s
}

/// Runs weakc with `threads` worker threads in `dir`; returns stdout and the bytes of the
/// files named in `outputs`.
fn run(dir: &Path, args: &[&str], threads: usize, outputs: &[&str]) -> (Vec<u8>, Vec<Vec<u8>>, Option<i32>) {
    for o in outputs {
        let _ = std::fs::remove_file(dir.join(o));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_weakc"))
        .args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .output()
        .expect("run weakc");
    let files = outputs.iter().map(|o| std::fs::read(dir.join(o)).unwrap_or_default()).collect();
    (out.stdout, files, out.status.code())
}

#[test]
fn output_does_not_depend_on_the_thread_count() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("big.c"), random_program(7, 4, 40, 8)).unwrap();
    std::fs::write(d.path().join("mid.c"), random_program(3, 3, 20, 6)).unwrap();
    for f in ["mp.c", "sb.c"] {
        std::fs::copy(examples().join(f), d.path().join(f)).unwrap();
    }
    let far = ["--cycle-timeout", "600", "--selection-timeout", "600"];
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        // The cycle search stopped at its cycle limit: which cycles it kept.
        (vec!["cycles", "--mm", "power", "big.c", "--max-cycles", "300", "--quiet"], vec![]),
        (vec!["cycles", "--mm", "arm", "mid.c", "--format", "json"], vec![]),
        // The lazy selection's rounds and the printed program.
        (vec!["instrument", "--mm", "power", "big.c", "-o", "big_power.c", "--format", "json"], vec!["big_power.c"]),
        (vec!["instrument", "--mm", "tso", "mid.c", "-o", "mid_tso.c", "--format", "json"], vec!["mid_tso.c"]),
        (vec!["verify", "--mm", "power", "mp.c"], vec![]),
        (vec!["verify", "--mm", "tso", "--engine", "instrument", "sb.c", "--format", "sarif"], vec![]),
        (vec!["fences", "--mm", "power", "mp.c", "--patch", "mp.diff"], vec!["mp.diff"]),
        (vec!["fences", "--mm", "power", "mid.c", "--format", "sarif"], vec![]),
    ];
    for (args, outputs) in &cases {
        let mut args = args.clone();
        if args[0] != "verify" {
            args.extend(far);
        }
        // (instrument's JSON summary has its timings: compared without them)
        let strip = |b: &[u8]| -> Vec<u8> {
            match serde_json::from_slice::<serde_json::Value>(b) {
                Ok(mut v) if args[0] == "instrument" => {
                    v.as_object_mut().map(|o| o.remove("timings"));
                    v.to_string().into_bytes()
                }
                _ => b.to_vec(),
            }
        };
        let (out1, files1, code1) = run(d.path(), &args, 1, outputs);
        assert!(code1.is_some_and(|c| c != 2 && c != 4), "{args:?}: exit {code1:?}: {}", String::from_utf8_lossy(&out1));
        for threads in [2, 8] {
            let (out, files, code) = run(d.path(), &args, threads, outputs);
            assert_eq!(code, code1, "{args:?}: exit code with {threads} threads");
            assert!(strip(&out) == strip(&out1), "{args:?}: stdout differs with {threads} threads:\n{}\n---\n{}", String::from_utf8_lossy(&out1), String::from_utf8_lossy(&out));
            for (i, (a, b)) in files1.iter().zip(&files).enumerate() {
                assert!(!a.is_empty(), "{args:?}: {} was not written", outputs[i]);
                assert!(a == b, "{args:?}: {} differs with {threads} threads", outputs[i]);
            }
        }
    }
}
