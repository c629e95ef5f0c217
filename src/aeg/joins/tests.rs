use super::*;
use crate::arch::{by_name, Arch, Cumul, PairSet};
use crate::cycles::{critical_cycles, Limits};
use crate::frontend::{load_str, Options};
use crate::source::SourceMap;

fn aeg_of(src: &str) -> Aeg {
    let mut map = SourceMap::default();
    let mut p = load_str("t.c", src, &Options::default(), &mut map).expect("parses");
    crate::normalize::normalize(&mut p);
    super::super::build(&p, &BuildOptions::default()).expect("builds")
}

/// Critical cycles on Power, each as the sorted names of the threads it goes through.
fn cycles(src: &str) -> Vec<Vec<String>> {
    let aeg = aeg_of(src);
    let set = critical_cycles(&aeg, by_name("power-esop").unwrap(), &Limits::default());
    set.cycles
        .iter()
        .map(|c| {
            let mut ts: Vec<String> = c.events.iter().map(|&e| aeg.thread(aeg.event(e).thread).name.clone()).collect();
            ts.sort();
            ts.dedup();
            ts
        })
        .collect()
}

fn through_main(src: &str) -> usize {
    cycles(src).iter().filter(|c| c.iter().any(|t| t == "main")).count()
}

const MP: &str = r#"#include <pthread.h>
#include <assert.h>
int x, y;
void *t(void *a) { x = 1; y = 1; return 0; }
void *u(void *a) { return 0; }
"#;

fn mp(main_body: &str) -> String {
    format!("{MP}int main() {{ int c; pthread_t h, h2; {main_body} return 0; }}\n")
}

#[test]
fn post_join_cycle_disappears() {
    // Without a join, main's two reads form mp with t.
    assert_eq!(through_main(&mp("pthread_create(&h, 0, t, 0); assert(!(y == 1 && x == 0));")), 1);
    assert_eq!(through_main(&mp("pthread_create(&h, 0, t, 0); pthread_join(h, 0); assert(!(y == 1 && x == 0));")), 0);
    // a second thread joined in between does not disturb the match
    assert_eq!(
        through_main(&mp(
            "pthread_create(&h, 0, t, 0); pthread_create(&h2, 0, u, 0); pthread_join(h2, 0); \
             pthread_join(h, 0); assert(!(y == 1 && x == 0));"
        )),
        0
    );
    // a join in both branches joins
    assert_eq!(
        through_main(&mp(
            "pthread_create(&h, 0, t, 0); if (c) pthread_join(h, 0); else pthread_join(h, 0); \
             assert(!(y == 1 && x == 0));"
        )),
        0
    );
    // array handles with constant indices
    let src = format!(
        "{MP}int main() {{ pthread_t hs[2]; pthread_create(&hs[0], 0, u, 0); pthread_create(&hs[1], 0, t, 0); \
         pthread_join(hs[1], 0); assert(!(y == 1 && x == 0)); return 0; }}\n"
    );
    assert_eq!(through_main(&src), 0);
}

#[test]
fn join_on_one_path_or_unmatched_keeps_the_cycle() {
    let keep = |body: &str| assert_eq!(through_main(&mp(body)), 1, "{body}");
    // join inside one branch only
    keep("pthread_create(&h, 0, t, 0); if (c) pthread_join(h, 0); assert(!(y == 1 && x == 0));");
    // the join comes after the reads
    keep("pthread_create(&h, 0, t, 0); assert(!(y == 1 && x == 0)); pthread_join(h, 0);");
    // another thread's handle
    keep("pthread_create(&h, 0, t, 0); pthread_create(&h2, 0, u, 0); pthread_join(h2, 0); assert(!(y == 1 && x == 0));");
    // the handle is reused for another thread before the join
    keep("pthread_create(&h, 0, t, 0); pthread_create(&h, 0, u, 0); pthread_join(h, 0); assert(!(y == 1 && x == 0));");
    // the handle is overwritten
    keep("pthread_create(&h, 0, t, 0); pthread_create(&h2, 0, u, 0); h = h2; pthread_join(h, 0); assert(!(y == 1 && x == 0));");
    // the handle's address escapes
    keep("pthread_t *p = &h; pthread_create(&h, 0, t, 0); pthread_join(*p, 0); assert(!(y == 1 && x == 0));");
    // threads spawned in a loop: one join per iteration does not join every instance
    let src = format!(
        "{MP}int main() {{ pthread_t hs[2]; for (int i = 0; i < 2; i++) pthread_create(&hs[i], 0, t, 0); \
         for (int i = 0; i < 2; i++) pthread_join(hs[i], 0); assert(!(y == 1 && x == 0)); return 0; }}\n"
    );
    assert!(through_main(&src) > 0);
    // spawned and joined in each iteration: the next instance runs after the join
    let src = format!(
        "{MP}int main() {{ pthread_t g; for (int i = 0; i < 2; i++) {{ pthread_create(&g, 0, t, 0); \
         pthread_join(g, 0); assert(!(y == 1 && x == 0)); }} return 0; }}\n"
    );
    assert!(through_main(&src) > 0);
}

#[test]
fn joined_thread_does_not_join_its_children() {
    let src = r#"#include <pthread.h>
#include <assert.h>
int x, y;
void *v(void *a) { x = 1; y = 1; return 0; }
void *t(void *a) { pthread_t g; pthread_create(&g, 0, v, 0); return 0; }
int main() { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); assert(!(y == 1 && x == 0)); return 0; }
"#;
    assert_eq!(through_main(src), 1);
}

#[test]
fn a_cycle_may_still_enter_main_from_the_joined_thread() {
    // lb through three threads: t (joined) writes x, main reads it after the join and
    // writes y, u (still running) reads y and writes z, t read z. Only main's step into t
    // is impossible; this cycle steps from t into main and from main into u.
    let src = r#"#include <pthread.h>
int x, y, z;
void *t(void *a) { int r = z; x = 1; return 0; }
void *u(void *a) { int r = y; z = 1; return 0; }
int main() { pthread_t h, g; pthread_create(&h, 0, t, 0); pthread_create(&g, 0, u, 0);
  pthread_join(h, 0); int r = x; y = 1; return 0; }
"#;
    let cs = cycles(src);
    assert!(cs.iter().any(|c| c.len() == 3), "{cs:?}");
}

const HARNESS: &str = r#"void fence() { asm("sync"); }
int __unbuffered_cnt = 0;
int x = 0, y = 0;
void *P0(void *arg) { x = 1; y = 1; @PRE@ __unbuffered_cnt++; }
void *P1(void *arg) { int r = y; @FENCE@; __unbuffered_cnt++; }
int main() {
  __CPROVER_ASYNC_0: P0(0);
  __CPROVER_ASYNC_1: P1(0);
  __CPROVER_assume(__unbuffered_cnt == @N@);
  @MAINFENCE@;
  __CPROVER_assert(!(y == 1 && x == 0), "");
  return 0;
}
"#;

fn harness(pre: &str, n: &str, main_fence: &str) -> String {
    HARNESS.replace("@PRE@", pre).replace("@FENCE@", "fence()").replace("@MAINFENCE@", main_fence).replace("@N@", n)
}

#[test]
fn esop_harness_is_a_join() {
    // the same program without the assumption: cycles through main
    assert!(through_main(&harness("fence();", "2", "fence()").replace("__CPROVER_assume(", "(")) > 0);
    assert_eq!(through_main(&harness("fence();", "2", "fence()")), 0);
    // a portable full barrier works as well
    assert_eq!(through_main(&harness("__sync_synchronize();", "2", "__sync_synchronize()")), 0);
}

#[test]
fn esop_harness_needs_every_piece() {
    // no fence in a thread before its increment: its writes may still be buffered
    assert!(through_main(&harness("", "2", "fence()")) > 0);
    // lwsync is not full
    assert!(through_main(&harness("asm(\"lwsync\");", "2", "fence()")) > 0);
    // no fence after the assumption in main
    assert!(through_main(&harness("fence();", "2", "(void)0")) > 0);
    // the count does not mean that every thread incremented
    assert!(through_main(&harness("fence();", "1", "fence()")) > 0);
    // an access after the increment
    assert!(through_main(&harness("fence(); __unbuffered_cnt++; x = 2; fence();", "3", "fence()")) > 0);
    // another write to the counter
    let src = harness("fence();", "2", "fence()").replace("int main() {", "int main() { __unbuffered_cnt = 1;");
    assert!(through_main(&src) > 0);
    // the assumption on one path only
    let src = harness("fence();", "2", "fence()").replace("__CPROVER_assume(", "if (x) __CPROVER_assume(");
    assert!(through_main(&src) > 0);
}

#[test]
fn full_everywhere_fences_are_full_on_every_architecture() {
    for f in ALL_FENCES.iter().copied().filter(|&f| full_everywhere(f)) {
        for arch in Arch::all() {
            if arch.relaxes_nothing() {
                continue;
            }
            let r = arch.fence_rule(f);
            assert!(r.orders == PairSet::ALL, "{} {f:?}", arch.name);
            assert_eq!(r.cumul, Cumul::Full, "{} {f:?}", arch.name);
        }
    }
}
