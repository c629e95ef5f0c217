//! Memory read through a type of other widths (unions, pointer casts): the built-in engine
//! does not model bytes, and says UNKNOWN rather than a verdict that may be wrong.

use std::process::Command;

fn verify(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weakc")).arg("verify").args(args).output().expect("run weakc");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_union_read_as_another_member_is_unknown_either_way() {
    for arch in ["sc", "tso", "aarch64"] {
        for extra in [&[][..], &["-D", "WRONG"][..]] {
            let mut args = vec!["--mm", arch, "tests/c/union_pun.c"];
            args.extend_from_slice(extra);
            let (code, out) = verify(&args);
            assert_eq!(code, 5, "{args:?}: {out}");
            assert!(out.contains("reinterprets memory at line 8") && out.contains("as_short"), "{args:?}: {out}");
        }
    }
}

#[test]
fn members_of_one_width_and_casts_between_equal_layouts_stay_decided() {
    let dir = std::env::temp_dir().join(format!("weakc-punning-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("same.c");
    std::fs::write(
        &f,
        "#include <assert.h>\nstruct pair { int a; int b; };\nunion { int i; unsigned u; } x;\nstruct pair p;\n\
         int main(void) { x.i = -1; assert(x.u == 4294967295u); int *q = (int *)&p; *q = 3; assert(p.a == 3); return 0; }\n",
    )
    .unwrap();
    let (code, out) = verify(&["--mm", "sc", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    std::fs::remove_dir_all(&dir).ok();
}
