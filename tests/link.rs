//! Several translation units (issue 18): `weakc verify|instrument|cycles FILE...` links them
//! as a C linker does — external names are one object across units, `static` ones each
//! unit's own, an `extern` declaration resolves to the unit that defines it with its
//! initialiser — and reports what does not link with the locations involved.

use std::path::Path;
use std::process::Command;

fn weakc(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).args(args).current_dir(dir).output().expect("run weakc");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Store buffering split over two units: the library (`sb.c`) holds the shared flags and
/// the accesses (fenced with `-DFENCED`), the harness (`main.c`) the threads and the
/// assertion. Each unit has its own `static int counter`; `limit` is defined with an
/// initialiser in the library and only declared in the harness.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("sb.h"), "struct flags { int x; int y; };\nextern struct flags shared;\nextern int limit;\nint left(void);\nint right(void);\n").unwrap();
    std::fs::write(
        p.join("sb.c"),
        "#include \"sb.h\"\nstruct flags shared;\nint limit = 5;\nstatic int counter = 7;\n\
         static void fence(void) {\n#ifdef FENCED\n  __atomic_thread_fence(__ATOMIC_SEQ_CST);\n#endif\n  counter = counter + 1;\n}\n\
         int left(void) { shared.x = 1; fence(); return shared.y; }\n\
         int right(void) { shared.y = 1; fence(); return shared.x; }\n",
    )
    .unwrap();
    std::fs::write(
        p.join("main.c"),
        "#include <pthread.h>\n#include <assert.h>\n#include \"sb.h\"\nstatic int counter;\nint r0, r1;\n\
         void *t0(void *a) { r0 = left(); return 0; }\nvoid *t1(void *a) { r1 = right(); return 0; }\n\
         int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, t0, 0);\n  pthread_create(&b, 0, t1, 0);\n\
         pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(counter == 0 && limit == 5);\n  assert(!(r0 == 0 && r1 == 0));\n  return 0;\n}\n",
    )
    .unwrap();
    dir
}

#[test]
fn units_link_as_a_c_linker_links_them() {
    let dir = project();
    let p = dir.path();
    // sc: the statics stay apart (main's counter is 0, the library's is bumped) and `limit`
    // has the library's initialiser
    let (code, out, err) = weakc(p, &["verify", "--mm", "sc", "main.c", "sb.c"]);
    assert_eq!(code, 0, "{out}{err}");
    // tso: the store-buffering outcome through the library's accesses, found at the
    // library's lines
    let (code, out, err) = weakc(p, &["verify", "--mm", "tso", "main.c", "sb.c"]);
    assert_eq!(code, 10, "{out}{err}");
    assert!(out.contains("sb.c:11") || out.contains("sb.c:12"), "the trace names the library's lines:\n{out}");
    assert!(out.contains("main.c:"), "the trace names the harness's lines too:\n{out}");
    let (code, out, err) = weakc(p, &["verify", "--mm", "tso", "-D", "FENCED", "main.c", "sb.c"]);
    assert_eq!(code, 0, "{out}{err}");
    // the cycle lies across both threads' calls into the library
    let (code, out, _) = weakc(p, &["cycles", "--mm", "tso", "--format", "json", "sb.c", "main.c"]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files: Vec<&str> = j["cycles"][0]["events"].as_array().unwrap().iter().map(|e| e["file"].as_str().unwrap()).collect();
    assert!(!files.is_empty() && files.iter().all(|f| *f == "sb.c"), "{files:?}");
    // one C file out, with #line directives to both units, that a C compiler takes
    let (code, _, err) = weakc(p, &["instrument", "--mm", "tso", "main.c", "sb.c", "-o", "out.c"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(p.join("out.c")).unwrap();
    assert!(text.contains("#line") && text.contains("\"sb.c\"") && text.contains("\"main.c\""));
    let runtime = concat!(env!("CARGO_MANIFEST_DIR"), "/runtime");
    let cc = Command::new("gcc").args(["-fsyntax-only", "-w", "-I", runtime, "out.c"]).current_dir(p).output();
    if let Ok(cc) = cc {
        assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    }
}

#[test]
fn what_does_not_link_is_reported_with_its_locations() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let w = |name: &str, text: &str| std::fs::write(p.join(name), text).unwrap();
    w("a.c", "int x = 1;\nint main(void) { return x; }\n");
    w("b.c", "int x = 2;\n");
    let (code, _, err) = weakc(p, &["verify", "--mm", "sc", "a.c", "b.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("multiple definition of `x`") && err.contains("b.c:1") && err.contains("a.c:1"), "{err}");

    w("c.c", "extern int q;\nint main(void) { return q; }\n");
    w("d.c", "int other;\n");
    let (code, _, err) = weakc(p, &["verify", "--mm", "sc", "c.c", "d.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("undefined reference to `q`") && err.contains("c.c:1"), "{err}");

    w("e.c", "int f(void) { return 1; }\n");
    let (code, _, err) = weakc(p, &["verify", "--mm", "sc", "d.c", "e.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("no translation unit defines `main`"), "{err}");
    w("f.c", "int f(void) { return 2; }\nint main(void) { return f(); }\n");
    let (code, _, err) = weakc(p, &["verify", "--mm", "sc", "e.c", "f.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("multiple definition of `f`") && err.contains("f.c:1") && err.contains("e.c:1"), "{err}");

    w("m2.c", "int main(void) { return 2; }\n");
    let (code, _, err) = weakc(p, &["verify", "--mm", "sc", "a.c", "m2.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("multiple definition of `main`") && err.contains("m2.c:1") && err.contains("a.c:2"), "{err}");

    // a recursion only the linked program has
    w("g.c", "int h(void);\nint main(void) { return h(); }\n");
    w("h.c", "int main(void);\nint h(void) { return main(); }\n");
    let (code, _, err) = weakc(p, &["verify", "--mm", "sc", "g.c", "h.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("recursion") && err.contains("h.c:2"), "{err}");

    // an error inside the second unit names it
    w("bad.c", "int g(void) { return 1 +; }\n");
    let (code, _, err) = weakc(p, &["verify", "--mm", "sc", "a.c", "bad.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.c:1"), "{err}");
}

#[test]
fn each_unit_takes_its_own_compile_commands_entry() {
    let dir = project();
    let p = dir.path();
    // only the library is built with FENCED: that is what makes the program safe
    let db = format!(
        r#"[{{"directory": "{d}", "file": "sb.c", "arguments": ["cc", "-DFENCED", "-c", "sb.c"]}},
            {{"directory": "{d}", "file": "main.c", "arguments": ["cc", "-c", "main.c"]}}]"#,
        d = p.display()
    );
    std::fs::write(p.join("compile_commands.json"), db).unwrap();
    let (code, out, err) = weakc(p, &["verify", "--mm", "tso", "--compile-commands", "compile_commands.json", "main.c", "sb.c"]);
    assert_eq!(code, 0, "{out}{err}");
    let db = format!(
        r#"[{{"directory": "{d}", "file": "sb.c", "arguments": ["cc", "-c", "sb.c"]}},
            {{"directory": "{d}", "file": "main.c", "arguments": ["cc", "-DFENCED", "-c", "main.c"]}}]"#,
        d = p.display()
    );
    std::fs::write(p.join("compile_commands.json"), db).unwrap();
    let (code, out, err) = weakc(p, &["verify", "--mm", "tso", "--compile-commands", "compile_commands.json", "main.c", "sb.c"]);
    assert_eq!(code, 10, "{out}{err}");
}

#[test]
fn the_entry_function_and_the_units_picked_from_the_database() {
    let dir = project();
    let p = dir.path();
    // no `main`: the harness starts somewhere else
    let harness = std::fs::read_to_string(p.join("main.c")).unwrap().replace("int main(void)", "int harness(void)");
    std::fs::write(p.join("harness.c"), harness).unwrap();
    let (code, out, err) = weakc(p, &["verify", "--mm", "tso", "--entry", "harness", "harness.c", "sb.c"]);
    assert_eq!(code, 10, "{out}{err}");
    let (code, _, err) = weakc(p, &["verify", "--mm", "tso", "harness.c", "sb.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("no translation unit defines `main`"), "{err}");
    let (code, _, err) = weakc(p, &["verify", "--mm", "tso", "--entry", "nowhere", "main.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("no function `nowhere`"), "{err}");

    // --files picks units from the database (the rest of the build, here a tool that does
    // not even parse, is ignored)
    std::fs::create_dir_all(p.join("tools")).unwrap();
    std::fs::write(p.join("tools/gen.c"), "int broken( {\n").unwrap();
    let db = format!(
        r#"[{{"directory": "{d}", "file": "sb.c", "arguments": ["cc", "-c", "sb.c"]}},
            {{"directory": "{d}", "file": "main.c", "arguments": ["cc", "-c", "main.c"]}},
            {{"directory": "{d}", "file": "tools/gen.c", "arguments": ["cc", "-c", "tools/gen.c"]}}]"#,
        d = p.display()
    );
    std::fs::write(p.join("compile_commands.json"), db).unwrap();
    let (code, out, err) = weakc(p, &["verify", "--mm", "tso", "--compile-commands", "compile_commands.json", "--files", "*sb.c", "main.c"]);
    assert_eq!(code, 10, "{out}{err}");
    let (code, out, err) = weakc(p, &["verify", "--mm", "sc", "--compile-commands", "compile_commands.json", "--files", "[ms]*.c"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = weakc(p, &["verify", "--mm", "sc", "--compile-commands", "compile_commands.json", "--files", "nothing*.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("no file of compile_commands.json matches"), "{err}");
}

/// `instrument --out-dir`: one file per unit, each compiling on its own, that link into the
/// program the single output holds (no symbol defined twice, none missing but what the
/// single file also leaves to the verifier and the C library).
#[test]
fn instrumented_units_compile_apart_and_link() {
    let have = |t: &str| Command::new(t).arg("--version").output().is_ok_and(|o| o.status.success());
    let dir = project();
    let p = dir.path();
    for arch in ["tso", "power"] {
        let (code, _, err) = weakc(p, &["instrument", "--mm", arch, "main.c", "sb.c", "-o", "whole.c", "--out-dir", "split"]);
        assert_eq!(code, 0, "{err}");
        let main = std::fs::read_to_string(p.join("split/main.c")).unwrap();
        let lib = std::fs::read_to_string(p.join("split/sb.c")).unwrap();
        assert!(main.contains("int main(") && !lib.contains("int main()\n{"));
        assert!(lib.contains("int left(") && lib.contains("limit = 5;"), "{lib}");
        assert!(main.contains("extern int limit;"), "{main}");
        if !(have("gcc") && have("ld") && have("nm")) {
            eprintln!("skipped the link check: gcc, ld or nm missing");
            continue;
        }
        let runtime = concat!(env!("CARGO_MANIFEST_DIR"), "/runtime");
        let run = |args: &[&str]| {
            let o = Command::new(args[0]).args(&args[1..]).current_dir(p).output().unwrap();
            assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        run(&["gcc", "-w", "-I", runtime, "-c", "split/main.c", "-o", "m.o"]);
        run(&["gcc", "-w", "-I", runtime, "-c", "split/sb.c", "-o", "s.o"]);
        run(&["gcc", "-w", "-I", runtime, "-c", "whole.c", "-o", "w.o"]);
        run(&["ld", "-r", "m.o", "s.o", "-o", "linked.o"]);
        let undefined = |o: &str| -> std::collections::BTreeSet<String> { run(&["nm", "-u", o]).lines().map(|l| l.trim().trim_start_matches("U ").to_string()).collect() };
        assert_eq!(undefined("linked.o"), undefined("w.o"), "{arch}");
    }
}

/// `fences` over several units: the fences go where the accesses are (here two units
/// besides the harness), `--patch` is one diff covering each changed unit, the patched
/// program verifies, and the quiet and SARIF outputs name each placement's own file.
#[test]
fn fences_place_and_patch_across_units() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("shared.h"), "extern int x, y;\nvoid *p0(void *a);\nvoid *p1(void *a);\n").unwrap();
    std::fs::write(
        p.join("main.c"),
        "#include <pthread.h>\n#include <assert.h>\n#include \"shared.h\"\nint x, y, r0, r1;\nint main() {\n  pthread_t a, b;\n\
         pthread_create(&a, 0, p0, 0);\n  pthread_create(&b, 0, p1, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n\
         assert(!(r0 == 0 && r1 == 0));\n  return 0;\n}\n",
    )
    .unwrap();
    std::fs::write(p.join("t0.c"), "#include \"shared.h\"\nextern int r0;\nvoid *p0(void *a) {\n  x = 1;\n  r0 = y;\n  return 0;\n}\n").unwrap();
    std::fs::write(p.join("t1.c"), "#include \"shared.h\"\nextern int r1;\nvoid *p1(void *a) {\n  y = 1;\n  r1 = x;\n  return 0;\n}\n").unwrap();
    let units = ["main.c", "t0.c", "t1.c"];
    let (code, out, err) = weakc(p, &[&["verify", "--mm", "tso"][..], &units].concat());
    assert_eq!(code, 10, "{out}{err}");
    let (code, out, err) = weakc(p, &[&["fences", "--mm", "tso", "--patch", "fix.diff"][..], &units].concat());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("of t0.c") && out.contains("of t1.c"), "{out}");
    let diff = std::fs::read_to_string(p.join("fix.diff")).unwrap();
    assert!(diff.contains("--- t0.c\n+++ t0.c") && diff.contains("--- t1.c\n+++ t1.c") && !diff.contains("main.c"), "{diff}");
    assert_eq!(diff.matches("+  asm volatile(\"mfence\" ::: \"memory\");").count(), 2, "{diff}");
    // -o writes one file: not for several units.
    let (code, _, err) = weakc(p, &[&["fences", "--mm", "power", "-o", "x.c"][..], &units].concat());
    assert_eq!(code, 2);
    assert!(err.contains("use --patch"), "{err}");
    // One line per placement, each in its own unit; SARIF locations likewise.
    let (code, out, err) = weakc(p, &[&["fences", "--mm", "power", "--quiet"][..], &units].concat());
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("t0.c:")) && lines.iter().any(|l| l.starts_with("t1.c:")), "{out}");
    assert!(lines.iter().all(|l| l.contains(": insert ")), "{out}");
    let (_, out, _) = weakc(p, &[&["fences", "--mm", "power", "--format", "sarif"][..], &units].concat());
    assert!(out.contains("\"uri\": \"t0.c\"") && out.contains("\"uri\": \"t1.c\""), "{out}");
    // The patch applies to the units and the program then holds on tso.
    let applied = Command::new("patch").args(["-p0", "-i", "fix.diff"]).current_dir(p).output();
    match applied {
        Ok(o) if o.status.success() => {
            let (code, out, err) = weakc(p, &[&["verify", "--mm", "tso"][..], &units].concat());
            assert_eq!(code, 0, "{out}{err}");
        }
        _ => eprintln!("skipped applying the patch: `patch` is not installed"),
    }
}
