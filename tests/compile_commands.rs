//! `--compile-commands` (issue 18): a file's include paths, macros and standard come from its
//! entry in compile_commands.json, in both the `command` and the `arguments` form, relative to
//! the entry's directory; flags weakc cannot honour are warnings; a file without an entry
//! is an input error.

use std::path::Path;
use std::process::Command;

fn weakc(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(args).current_dir(dir).output().expect("run weakc");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A project: `src/sb.c` includes `flags.h` from `include/`; the store-buffering test is
/// fenced unless `NO_FENCE` is defined, and does not compile unless `PROJECT_CONFIG` is.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::create_dir_all(p.join("include")).unwrap();
    std::fs::create_dir_all(p.join("build")).unwrap();
    std::fs::write(
        p.join("include/flags.h"),
        "#ifndef PROJECT_CONFIG\n#error \"configure the project first\"\n#endif\n#ifdef NO_FENCE\n#define FENCE()\n#else\n#define FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)\n#endif\n",
    )
    .unwrap();
    std::fs::write(
        p.join("src/sb.c"),
        "#include <pthread.h>\n#include <assert.h>\n#include \"flags.h\"\nint x, y, r0, r1;\n\
         void *t0(void *a) { x = 1; FENCE(); r0 = y; return 0; }\n\
         void *t1(void *a) { y = 1; FENCE(); r1 = x; return 0; }\n\
         int main(void) { pthread_t a, b; pthread_create(&a, 0, t0, 0); pthread_create(&b, 0, t1, 0);\n\
         pthread_join(a, 0); pthread_join(b, 0); assert(!(r0 == 0 && r1 == 0)); return 0; }\n",
    )
    .unwrap();
    dir
}

fn write_db(dir: &Path, entry: &str) {
    std::fs::write(dir.join("build/compile_commands.json"), format!("[{entry}]")).unwrap();
}

#[test]
fn flags_come_from_the_entry_in_both_forms() {
    let dir = project();
    let p = dir.path();
    let build = p.join("build");
    let src = p.join("src/sb.c");
    let args = ["verify", "--mm", "tso", "--compile-commands", "build/compile_commands.json", "src/sb.c"];

    // `command` form, a quoted define with a space, paths relative to the build directory
    let entry = format!(
        r#"{{"directory": "{}", "file": "../src/sb.c", "command": "/usr/bin/cc -I../include -DPROJECT_CONFIG -DGREETING='\"a b\"' -O2 -Wall -c -o sb.o ../src/sb.c"}}"#,
        build.display()
    );
    write_db(p, &entry);
    let (code, out, err) = weakc(p, &args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("VERIFICATION SUCCESSFUL"), "{out}");
    assert!(!err.contains("warning"), "{err}");

    // `arguments` form, absolute file, the bug switched on by the build's flags
    let entry = format!(
        r#"{{"directory": "{}", "file": "{}", "arguments": ["gcc", "-I", "../include", "-D", "PROJECT_CONFIG", "-DNO_FENCE", "-std=gnu11", "-c", "{}"]}}"#,
        build.display(),
        src.display(),
        src.display()
    );
    write_db(p, &entry);
    let (code, out, err) = weakc(p, &args);
    assert_eq!(code, 10, "{out}{err}");
    assert!(out.contains("VERIFICATION FAILED"), "{out}");
    // the command line's own -U comes after the entry's -D: the fence is back
    let mut with_u = args.to_vec();
    with_u.splice(1..1, ["-U", "NO_FENCE"]);
    let (code, out, err) = weakc(p, &with_u);
    assert_eq!(code, 0, "{out}{err}");

    // without the entry's macro the project's header refuses to compile: the flags matter
    let entry = format!(r#"{{"directory": "{}", "file": "../src/sb.c", "arguments": ["cc", "-I../include", "-c", "../src/sb.c"]}}"#, build.display());
    write_db(p, &entry);
    let (code, _, err) = weakc(p, &args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("configure the project first"), "{err}");
}

#[test]
fn flags_weakc_cannot_honour_are_warnings() {
    let dir = project();
    let p = dir.path();
    let entry = format!(
        r#"{{"directory": "{}", "file": "../src/sb.c", "arguments": ["cc", "-I../include", "-DPROJECT_CONFIG", "-march=armv8.3-a", "-imacros", "m.h", "-c", "../src/sb.c"]}}"#,
        p.join("build").display()
    );
    write_db(p, &entry);
    let (code, out, err) = weakc(p, &["cycles", "--mm", "tso", "--compile-commands", "build/compile_commands.json", "src/sb.c"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("`-march=armv8.3-a`") && err.contains("`-imacros m.h`") && err.contains("not honoured"), "{err}");
}

#[test]
fn a_file_without_an_entry_or_a_broken_database_is_an_input_error() {
    let dir = project();
    let p = dir.path();
    write_db(p, &format!(r#"{{"directory": "{}", "file": "other.c", "command": "cc -c other.c"}}"#, p.join("build").display()));
    let (code, _, err) = weakc(p, &["verify", "--mm", "tso", "--compile-commands", "build/compile_commands.json", "src/sb.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("no entry for src/sb.c"), "{err}");
    std::fs::write(p.join("build/compile_commands.json"), "{not json").unwrap();
    let (code, _, err) = weakc(p, &["verify", "--mm", "tso", "--compile-commands", "build/compile_commands.json", "src/sb.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a compilation database"), "{err}");
}
