use super::*;
use crate::arch::by_name;

fn analyse(src: &str, arch: &Arch) -> Analysis {
    let mut map = SourceMap::default();
    let mut prog = crate::frontend::load_str("t.c", src, &Default::default(), &mut map).expect("parses");
    pipeline::analyze_program(&mut prog, arch, &Default::default(), map, Duration::ZERO, 0).expect("analyses")
}

/// The one unit `analyse` loads.
fn units(a: &Analysis) -> Vec<Unit> {
    Unit::of(a, &[(PathBuf::from("t.c"), Default::default())]).expect("t.c is loaded")
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
    let p = Problem::new(&a, arch, &Default::default(), units(&a)).unwrap();
    // one inline gap between `x = 1;` and `r0 = y;` on line 2, one own-line gap between lines 4 and 5
    assert!(p.gaps.iter().any(|(_, an)| an.line_before == Some(2) && an.line_after == Some(2) && an.suffix == " "));
    assert!(p.gaps.iter().any(|(_, an)| an.line_before == Some(4) && an.line_after == Some(5) && an.suffix == "\n"));
    // no gap inside `for` headers or between parts of one statement
    let sol = p.solve(&a.cycles.cycles).unwrap();
    assert_eq!(sol.chosen.len(), 2);
    let text = p.patched_texts(&sol.chosen).remove(0);
    assert!(text.contains("x = 1; asm volatile(\"mfence\" ::: \"memory\"); r0 = y;"), "{text}");
    assert!(text.contains("  y = 1;\n  asm volatile(\"mfence\" ::: \"memory\");\n  r1 = x;"), "{text}");
    assert!(p.analyse_texts(std::slice::from_ref(&text)).unwrap().cycles.cycles.is_empty());
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
    let p = Problem::new(&a, sc, &Default::default(), units(&a)).unwrap();
    let sol = p.solve(&a.cycles.cycles).unwrap();
    assert!(sol.chosen.is_empty() && sol.cost == 0);
}


/// Message passing over a relaxed flag, in both spellings of the orders.
fn mp_relaxed(gnu: bool) -> String {
    let (rlx, store, load) = if gnu {
        ("__ATOMIC_RELAXED", "__atomic_store_n(&flag, 1, __ATOMIC_RELAXED);", "__atomic_load_n(&flag, __ATOMIC_RELAXED)")
    } else {
        ("memory_order_relaxed", "atomic_store_explicit(&flag, 1, memory_order_relaxed);", "atomic_load_explicit(&flag, memory_order_relaxed)")
    };
    assert!(store.contains(rlx));
    format!(
        "#include <stdatomic.h>\nint data, r; atomic_int flag;\n\
         void *w(void *a) {{\n  data = 1;\n  {store}\n  return 0;\n}}\n\
         void *rd(void *a) {{\n  if ({load} == 1)\n    r = data;\n  return 0;\n}}\n\
         int main() {{ __CPROVER_ASYNC_0: w(0); __CPROVER_ASYNC_1: rd(0); return 0; }}\n"
    )
}

#[test]
fn a_stronger_order_where_it_is_cheaper_than_a_fence() {
    for gnu in [false, true] {
        let src = mp_relaxed(gnu);
        // Power: the acquire load (ld; cmp; bc; isync, cost 1) beats an lwsync (2) in the
        // reader; in the writer a release store costs what the lwsync costs, and the fence
        // wins the tie.
        let power = by_name("power").unwrap();
        let a = analyse(&src, power);
        let p = Problem::new(&a, power, &Default::default(), units(&a)).unwrap();
        let sol = p.solve(&a.cycles.cycles).unwrap();
        assert_eq!(sol.cost, 3, "{gnu}");
        let pl = p.placements(&sol.chosen, &a.cycles.cycles);
        let kinds: Vec<(&str, &str)> = pl.iter().map(|x| (x.kind, x.fence.as_str())).collect();
        let acq = if gnu { "__ATOMIC_ACQUIRE" } else { "memory_order_acquire" };
        assert_eq!(kinds, vec![("fence", "lwsync"), ("order", acq)], "{gnu}");
        assert_eq!((pl[1].line, pl[1].function.as_str()), (9, "rd"));
        let text = p.patched_texts(&sol.chosen).remove(0);
        assert!(text.contains(&format!("(&flag, {acq}) == 1)")), "{text}");
        assert!(p.analyse_with(&sol.chosen).unwrap().cycles.cycles.is_empty());
        assert!(p.analyse_texts(std::slice::from_ref(&text)).unwrap().cycles.cycles.is_empty(), "{text}");
    }
    // ARMv7: the only place between the flag's read and the data's read is inside the
    // `if` condition, where no fence statement fits: the order is the answer.
    let arm = by_name("arm").unwrap();
    let src = mp_relaxed(false);
    let a = analyse(&src, arm);
    let p = Problem::new(&a, arm, &Default::default(), units(&a)).unwrap();
    let sol = p.solve(&a.cycles.cycles).unwrap();
    let text = p.patched_texts(&sol.chosen).remove(0);
    assert!(text.contains("if (atomic_load_explicit(&flag, memory_order_acquire) == 1)\n    r = data;"), "{text}");
    assert!(p.analyse_texts(std::slice::from_ref(&text)).unwrap().cycles.cycles.is_empty(), "{text}");
}

#[test]
fn no_fence_point_inside_a_statement_or_past_a_line_end() {
    // The atomic load in the condition and the `if` are two IR statements of one source
    // statement: no gap between them has a place in the text.
    let arm = by_name("arm").unwrap();
    let src = mp_relaxed(false);
    let a = analyse(&src, arm);
    let p = Problem::new(&a, arm, &Default::default(), units(&a)).unwrap();
    let line = |l: u32| src.lines().nth(l as usize - 1).unwrap();
    for (_, an) in &p.gaps {
        let at = &src[an.offset..];
        assert!(!at.starts_with("atomic_load") && !at.starts_with("== 1") && !at.starts_with('\n'), "gap at {an:?}: {}", line(an.line_after.unwrap_or(1)));
    }
}

/// Every fence candidate means in the IR what it means written into the text: the fenced
/// IR and the patched source, parsed again, have the same critical cycles.
fn each_candidate_means_its_text(src: &str, arch: &Arch) {
    let a = analyse(src, arch);
    let p = Problem::new(&a, arch, &Default::default(), units(&a)).unwrap();
    for k in 0..p.candidates.len() {
        let ir = p.analyse_with(&[k]).unwrap().cycles.cycles.len();
        let text = p.patched_texts(&[k]);
        let re = p.analyse_texts(&text).unwrap().cycles.cycles.len();
        assert_eq!(ir, re, "candidate {k}: {}", text[0]);
    }
}

#[test]
fn a_fence_in_an_inlined_function_is_in_every_copy() {
    let src = "int x, y, r0, r1;
static void set(int *p) { *p = 1; }
static int get(int *p) { return *p; }
void *p0(void *a) { set(&x); r0 = get(&y); return 0; }
void *p1(void *a) {
  set(&y);
  r1 = get(&x);
  return 0;
}
int main() { __CPROVER_ASYNC_0: p0(0); __CPROVER_ASYNC_1: p1(0); return 0; }
";
    let arch = by_name("tso").unwrap();
    each_candidate_means_its_text(src, arch);
    let a = analyse(src, arch);
    let p = Problem::new(&a, arch, &Default::default(), units(&a)).unwrap();
    // one fence in `set` orders both threads' store before their load
    let sol = p.solve(&a.cycles.cycles).unwrap();
    assert_eq!(sol.chosen.len(), 1);
    let text = p.patched_texts(&sol.chosen).remove(0);
    assert!(text.contains("{ *p = 1; asm volatile(\"mfence\" ::: \"memory\"); }"), "{text}");
    assert!(p.analyse_texts(std::slice::from_ref(&text)).unwrap().cycles.cycles.is_empty());
}

#[test]
fn candidates_in_an_unbraced_loop_body_mean_their_text() {
    // the end of the `if` body orders the read of z in its condition only on the path
    // through the body; a fence written after `x = 1;` is after the `for`, on every path
    let src = "int x, y, z, r0;
void *p0(void *a) {
  for (int i = 0; i < 2; i++)
    if (z)
      x = 1;
  r0 = y;
  return 0;
}
void *p1(void *a) { y = 1; z = 1; return 0; }
int main() { __CPROVER_ASYNC_0: p0(0); __CPROVER_ASYNC_1: p1(0); return 0; }
";
    each_candidate_means_its_text(src, by_name("rmo").unwrap());
}
