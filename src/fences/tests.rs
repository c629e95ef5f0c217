use super::*;
use crate::arch::by_name;

fn analyse(src: &str, arch: &Arch) -> Analysis {
    let mut map = SourceMap::default();
    let mut prog = crate::frontend::load_str("t.c", src, &Default::default(), &mut map).expect("parses");
    pipeline::analyze_program(&mut prog, arch, &Default::default(), map, Duration::ZERO, 0).expect("analyses")
}

const SB: &str = "int x, y, r0, r1;
void *p0(void *a) { x = 1; r0 = y; return 0; }
void *p1(void *a) {
  y = 1;
  r1 = x;
  return 0;
}
int main() { __CPROVER_ASYNC_0: p0(0); __CPROVER_ASYNC_1: p1(0); return 0; }
";

#[test]
fn anchors_inline_and_own_line() {
    let arch = by_name("tso").unwrap();
    let a = analyse(SB, arch);
    let p = Problem::new(&a, arch, &Default::default()).unwrap();
    // one inline gap between `x = 1;` and `r0 = y;` on line 2, one own-line gap between lines 4 and 5
    assert!(p.gaps.iter().any(|(_, an)| an.line_before == Some(2) && an.line_after == Some(2) && an.suffix == " "));
    assert!(p.gaps.iter().any(|(_, an)| an.line_before == Some(4) && an.line_after == Some(5) && an.suffix == "\n"));
    // no gap inside `for` headers or between parts of one statement
    let sol = p.solve(&a.cycles.cycles).unwrap();
    assert_eq!(sol.chosen.len(), 2);
    let text = p.patched_text(&sol.chosen);
    assert!(text.contains("x = 1; asm volatile(\"mfence\" ::: \"memory\"); r0 = y;"), "{text}");
    assert!(text.contains("  y = 1;\n  asm volatile(\"mfence\" ::: \"memory\");\n  r1 = x;"), "{text}");
    assert!(p.analyse_text(&text).unwrap().cycles.cycles.is_empty());
}

#[test]
fn idiom_prefers_the_files_helper_with_the_same_effect() {
    let src = format!("void fence() {{ asm(\"sync\"); }}\nvoid lwfence() {{ asm(\"lwsync\"); }}\n{SB}");
    let tso = by_name("tso").unwrap();
    let a = analyse(&src, tso);
    let idiom = Idiom::of(&a.program, &src, 0);
    let mf = tso.fence_menu()[0];
    assert_eq!(idiom.spell(tso, &mf, 10), "fence();");
    let power = by_name("power-esop").unwrap();
    let lw = power.fence_menu().into_iter().find(|i| i.fence == Fence::Lwsync).unwrap();
    assert_eq!(idiom.spell(power, &lw, 10), "lwfence();");
    // a helper defined later cannot be called
    assert_eq!(idiom.spell(power, &lw, 1), "asm volatile(\"lwsync\" ::: \"memory\");");
}

#[test]
fn scan_ignores_comments_strings_and_parentheses() {
    let t = "a(\"x;(\"); // ;(\n/* ( */ b;\n";
    let s = Scan::new(t);
    assert_eq!(s.offset(crate::source::Loc { file: 0, line: 2, col: 8, len: 1 }), Some(t.find("b;").unwrap()));
    let d = unified_diff("f.c", "a\nb\n", "a\nx\nb\n");
    assert!(d.contains("+x") && d.starts_with("--- f.c"), "{d}");
}

#[test]
fn nothing_to_do_under_sc() {
    let sc = by_name("sc").unwrap();
    let a = analyse(SB, sc);
    let p = Problem::new(&a, sc, &Default::default()).unwrap();
    let sol = p.solve(&a.cycles.cycles).unwrap();
    assert!(sol.chosen.is_empty() && sol.cost == 0);
}

