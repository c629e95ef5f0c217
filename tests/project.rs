//! `examples/project` (issue 18): a multi-file library with a `check-wmm` make target that
//! runs weakc on tso, power and aarch64 and fails the build on a violation; and its CMake
//! variant, which gives weakc each unit's flags through compile_commands.json.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// A copy of the project (builds write into it).
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/project");
    let dst = dir.path().join("project");
    for rel in ["Makefile", "CMakeLists.txt", "include/spsc.h", "src/spsc.c", "test/spsc_test.c"] {
        let to = dst.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(rel), &to).unwrap();
    }
    (dir, dst)
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn make_check_wmm_passes_and_fails_the_build_on_a_violation() {
    if !have("make") {
        eprintln!("skipped: make is not installed (.ci/run installs it)");
        return;
    }
    let (_tmp, dir) = project();
    let weakc = format!("WEAKC={}", env!("CARGO_BIN_EXE_weakc"));
    let ok = Command::new("make").args(["-s", "check-wmm", &weakc]).current_dir(&dir).output().unwrap();
    assert!(ok.status.success(), "{}", text(&ok));
    let out = text(&ok);
    for arch in ["tso", "power", "aarch64"] {
        assert!(out.contains(&format!("VERIFICATION SUCCESSFUL ({arch}")), "{out}");
    }
    let broken = Command::new("make").args(["-s", "check-wmm", &weakc, "CPPFLAGS=-DSPSC_BROKEN"]).current_dir(&dir).output().unwrap();
    assert!(!broken.status.success(), "{}", text(&broken));
    let out = text(&broken);
    assert!(out.contains("VERIFICATION SUCCESSFUL (tso") && out.contains("VERIFICATION FAILED (power"), "{out}");
    // the violation is printed: the failed assertion and the steps to it
    assert!(out.contains("v == 1") || out.contains("v == 2"), "{out}");
    // the project is a real program too
    if have("cc") {
        let built = Command::new("make").args(["-s", "spsc_test"]).current_dir(&dir).output().unwrap();
        assert!(built.status.success(), "{}", text(&built));
    }
}

#[test]
fn cmake_check_wmm_takes_the_flags_from_compile_commands() {
    if !have("cmake") || !have("make") {
        eprintln!("skipped: cmake (or make) is not installed (.ci/run installs them when it can)");
        return;
    }
    let (_tmp, dir) = project();
    let weakc = format!("-DWEAKC={}", env!("CARGO_BIN_EXE_weakc"));
    for (flags, pass) in [("", true), ("-DSPSC_BROKEN", false)] {
        let build = dir.join(if pass { "build" } else { "build-broken" });
        let cfg = Command::new("cmake")
            .args(["-S", ".", "-B", build.to_str().unwrap(), &weakc, &format!("-DCMAKE_C_FLAGS={flags}")])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(cfg.status.success(), "{}", text(&cfg));
        let db = std::fs::read_to_string(build.join("compile_commands.json")).expect("CMake exported compile_commands.json");
        assert!(db.contains("spsc.c") && db.contains("spsc_test.c"));
        let check = Command::new("cmake").args(["--build", build.to_str().unwrap(), "--target", "check-wmm"]).current_dir(&dir).output().unwrap();
        assert_eq!(check.status.success(), pass, "{flags}: {}", text(&check));
    }
}
