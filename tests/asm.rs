//! Inline assembly end to end through the built binary: Concurrency Kit-style `mov` accesses
//! with x86 barriers on TSO, unknown assembly (a warning, and arbitrary values that still
//! expose the bug behind it), and Debian's ck_pr.h itself when installed.

use std::path::Path;
use std::process::Command;

const PRELUDE: &str = r#"
typedef unsigned long pthread_t;
int pthread_create(pthread_t *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);
void __VERIFIER_assert(int c);
typedef unsigned int uint32_t;
/* ck_pr_md_store_32 / ck_pr_md_load_32 of ck's x86-64 port */
static inline void store32(uint32_t *target, uint32_t v) {
  __asm__ __volatile__("movl %1, %0" : "=m" (*(uint32_t *)target) : "q" (v) : "memory");
}
static inline uint32_t load32(const uint32_t *target) {
  uint32_t r;
  __asm__ __volatile__("movl %1, %0" : "=q" (r) : "m" (*(const uint32_t *)target) : "memory");
  return r;
}
"#;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn verify(src: &str, args: &[&str]) -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("t.c");
    std::fs::write(&file, src).expect("write");
    let mut a = vec!["verify", "--backend", "builtin"];
    a.extend_from_slice(args);
    a.push(file.to_str().expect("path"));
    let o = Command::new(env!("CARGO_BIN_EXE_weakc")).args(&a).output().expect("run weakc");
    Run { code: o.status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&o.stdout).into(), stderr: String::from_utf8_lossy(&o.stderr).into() }
}

fn expect(src: &str, args: &[&str], code: i32) -> Run {
    let r = verify(src, args);
    assert_eq!(r.code, code, "weakc verify {args:?}:\n{}{}", r.stdout, r.stderr);
    r
}

/// Store buffering with the asm accesses, `FENCE` between each thread's store and load.
fn sb(fence: &str) -> String {
    format!(
        "{PRELUDE}
uint32_t x, y, r0, r1;
void *p0(void *a) {{ store32(&x, 1); {fence} r0 = load32(&y); return 0; }}
void *p1(void *a) {{ store32(&y, 1); {fence} r1 = load32(&x); return 0; }}
int main(void) {{
  pthread_t t0, t1;
  pthread_create(&t0, 0, p0, 0);
  pthread_create(&t1, 0, p1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  __VERIFIER_assert(!(r0 == 0 && r1 == 0));
  return 0;
}}
"
    )
}

#[test]
fn ck_style_asm_accesses_and_barriers_on_tso() {
    // message passing: TSO keeps store/store and load/load order, the asm adds nothing
    let mp = format!(
        "{PRELUDE}
uint32_t data, flag;
void *w(void *a) {{ store32(&data, 1); store32(&flag, 1); return 0; }}
int main(void) {{
  pthread_t t;
  pthread_create(&t, 0, w, 0);
  if (load32(&flag) == 1) __VERIFIER_assert(load32(&data) == 1);
  pthread_join(t, 0);
  return 0;
}}
"
    );
    let r = expect(&mp, &["--mm", "tso"], 0);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // store buffering needs a full barrier: without one the asm accesses are reordered
    expect(&sb(""), &["--mm", "tso"], 10);
    expect(&sb("__asm__ __volatile__(\"mfence\" ::: \"memory\");"), &["--mm", "tso"], 0);
    expect(&sb("__asm__ __volatile__(\"lock; addl $0,-4(%%rsp)\" ::: \"memory\", \"cc\");"), &["--mm", "tso"], 0);
    // a locked instruction on shared memory is a full barrier too
    expect(&sb("{ uint32_t d = 0; __asm__ __volatile__(\"lock xaddl %1, %0\" : \"+m\" (r0), \"+q\" (d) :: \"memory\"); }"), &["--mm", "tso"], 0);
    // lfence and sfence order nothing TSO does not
    expect(&sb("__asm__ __volatile__(\"sfence\" ::: \"memory\");"), &["--mm", "tso"], 10);
    expect(&sb("__asm__ __volatile__(\"lfence\" ::: \"memory\");"), &["--mm", "tso"], 10);
}

#[test]
fn unknown_asm_warns_and_its_outputs_are_arbitrary() {
    let src = format!(
        "{PRELUDE}
int x;
int main(void) {{
  x = 1;
  asm volatile(\"frobnicate %0\" : \"=m\" (x));
  __VERIFIER_assert(x == 1);
  return 0;
}}
"
    );
    // the violation is found, but it relies on the arbitrary output: UNKNOWN, with the trace
    let r = expect(&src, &["--mm", "sc"], 5);
    assert!(r.stdout.contains("a violation was found, but the counterexample goes through a place weakc over-approximates: inline assembly `frobnicate %0`"), "{}", r.stdout);
    assert!(r.stdout.contains("Counterexample"), "{}", r.stdout);
    assert!(r.stderr.contains("warning: inline assembly `frobnicate %0` treated as unknown"), "{}", r.stderr);
    assert!(r.stderr.contains("t.c:20:3"), "the warning points at the statement: {}", r.stderr);
    // Distrust is per path: a violation whose path does not run the asm is a violation.
    let off_path = src.replace("  x = 1;\n", "  x = 1;\n  if (x == 2)\n").replace("__VERIFIER_assert(x == 1);", "__VERIFIER_assert(x == 2);");
    let r = expect(&off_path, &["--mm", "sc"], 10);
    assert!(r.stderr.contains("treated as unknown"), "{}", r.stderr);
    // x86 assembly analysed for Power: not modelled, and said so
    let r = verify(&sb("__asm__ __volatile__(\"mfence\" ::: \"memory\");").replace("store32(&x, 1);", "{ uint32_t d = 1; __asm__ __volatile__(\"xchgl %0, %1\" : \"+m\" (x), \"+q\" (d) :: \"memory\"); }"), &["--mm", "power"]);
    assert!(r.stderr.contains("x86 assembly, but the analysis is for ppc64le"), "{}", r.stderr);
}

#[test]
fn concurrency_kit_ck_pr_on_tso() {
    if !Path::new("/usr/include/ck_pr.h").exists() {
        println!("skipped: /usr/include/ck_pr.h is absent (Debian package libck-dev)");
        return;
    }
    let src = r#"
#include <ck_pr.h>
#include <pthread.h>
#include <assert.h>
uint32_t x, y, r0, r1, n;
void *p0(void *a) { ck_pr_store_32(&x, 1); FENCE(); r0 = ck_pr_load_32(&y); ck_pr_inc_32(&n); return 0; }
void *p1(void *a) { ck_pr_store_32(&y, 1); FENCE(); r1 = ck_pr_load_32(&x); ck_pr_faa_32(&n, 1); return 0; }
int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, p0, 0);
  pthread_create(&t1, 0, p1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(ck_pr_load_32(&n) == 2);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
"#;
    let r = expect(src, &["--mm", "tso", "-DFENCE=ck_pr_fence_memory"], 0);
    assert!(!r.stderr.contains("warning"), "ck_pr.h's asm is understood: {}", r.stderr);
    expect(src, &["--mm", "tso", "-DFENCE=ck_pr_fence_strict_store_load"], 0);
    // a store fence does not order a store before a later load
    expect(src, &["--mm", "tso", "-DFENCE=ck_pr_fence_strict_store"], 10);
}

/// liburcu's shapes: an atomic exchange whose address is a `void *` (the mnemonic gives the
/// width), a trap after the size switch (`ud2`, Power's `.long 0xd00d00`: the program ends
/// there, no warning), and GCC's sized `__sync_*_N` builtins (its generic atomics on ARM).
#[test]
fn liburcu_style_atomics_are_understood() {
    let xchg = |asm: &str| {
        format!(
            r#"
typedef unsigned long pthread_t;
int pthread_create(pthread_t *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);
void __VERIFIER_assert(int c);
static inline unsigned long exchange(void *addr, unsigned long val, int len) {{
  switch (len) {{
  case 4: {{
    unsigned int result;
    {asm}
    return result;
  }}
  }}
  __asm__ __volatile__("{trap}");
  return 0;
}}
unsigned int lock, counter;
void *worker(void *a) {{
  while (exchange(&lock, 1, sizeof(lock))) {{ }}
  counter = counter + 1;
  __sync_lock_release(&lock);
  return 0;
}}
int main(void) {{
  pthread_t t0, t1;
  pthread_create(&t0, 0, worker, 0);
  pthread_create(&t1, 0, worker, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  __VERIFIER_assert(counter == 2);
  return 0;
}}"#,
            trap = if asm.contains("lwarx") {
                ".long 0xd00d00"
            } else if asm.contains("__sync") {
                "udf #0"
            } else {
                "ud2"
            }
        )
    };
    let power = xchg(r#"__asm__ __volatile__("lwsync\n1:\tlwarx %0,0,%1\nstwcx. %2,0,%1\nbne- 1b\nsync\n" : "=&r"(result) : "r"(addr), "r"(val) : "memory", "cc");"#);
    let x86 = xchg(r#"__asm__ __volatile__("xchgl %0, %1" : "=r"(result), "+m"(*(unsigned int *)addr) : "0"((unsigned int)val) : "memory");"#);
    let sync = xchg(r#"result = __sync_lock_test_and_set_4((unsigned int *)addr, (unsigned int)val); __sync_synchronize();"#);
    for (src, mm) in [(&power, "power"), (&x86, "tso"), (&sync, "arm"), (&sync, "aarch64")] {
        let r = expect(src, &["--mm", mm, "--no-unwinding-assertions"], 0);
        assert!(!r.stderr.contains("warning") && !r.stdout.contains("warning"), "{mm}: {}{}", r.stdout, r.stderr);
    }
    // The exchange really is one: with a plain read and write instead, both increments can
    // take the lock.
    let racy = xchg("result = *(volatile unsigned int *)addr; *(volatile unsigned int *)addr = val;");
    expect(&racy, &["--mm", "sc", "--no-unwinding-assertions"], 10);
    // A trap ends the path: an assertion behind one cannot fail.
    let trapped = format!("void __VERIFIER_assert(int c);\nint main(void) {{ int x = 0; __asm__ __volatile__(\"ud2\"); __VERIFIER_assert(x == 1); return 0; }}");
    let r = expect(&trapped, &["--mm", "tso"], 0);
    assert!(!r.stderr.contains("treated as unknown"), "{}", r.stderr);
}

/// A SPARC `membar` mask no weakc fence matches is taken as a weaker one, and a violation
/// through it is not trusted (RMO's message passing with `#LoadLoad | #StoreStore` in the
/// reader is correct, but the mask is taken as `#StoreStore`); an exact one (`#StoreStore`,
/// `#LoadLoad`) is a fence like any other.
#[test]
fn inexact_membar_masks_are_distrusted() {
    let mp = |rmb: &str| {
        format!(
            "{PRELUDE}
int data, flag;
void *w(void *a) {{ data = 42; __asm__ __volatile__(\"membar #StoreStore\" ::: \"memory\"); flag = 1; return 0; }}
void *r(void *a) {{ if (flag) {{ {rmb} __VERIFIER_assert(data == 42); }} return 0; }}
int main(void) {{ pthread_t a, b; pthread_create(&a, 0, w, 0); pthread_create(&b, 0, r, 0); pthread_join(a, 0); pthread_join(b, 0); return 0; }}
"
        )
    };
    let r = expect(&mp("__asm__ __volatile__(\"membar #LoadLoad | #StoreStore\" ::: \"memory\");"), &["--mm", "rmo"], 5);
    assert!(r.stdout.contains("`membar #loadload | #storestore` has no exact counterpart"), "{}", r.stdout);
    for exact in ["#LoadLoad", "#StoreLoad | #LoadLoad"] {
        let r = expect(&mp(&format!("__asm__ __volatile__(\"membar {exact}\" ::: \"memory\");")), &["--mm", "rmo"], 0);
        assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    }
    // `#StoreLoad | #StoreStore` in the writer orders the stores: safe; `#StoreLoad` alone
    // does not, on PSO.
    let writer = |m: &str| mp("__asm__ __volatile__(\"membar #LoadLoad\" ::: \"memory\");").replace("membar #StoreStore", m);
    expect(&writer("membar #StoreLoad | #StoreStore"), &["--mm", "pso"], 0);
    expect(&writer("membar #StoreLoad"), &["--mm", "pso"], 10);
    expect(&writer("membar #StoreLoad"), &["--mm", "tso"], 0);
    let r = expect(&mp("__asm__ __volatile__(\"membar #LoadLoad | #LoadStore\" ::: \"memory\");"), &["--mm", "rmo"], 0);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    expect(&mp(""), &["--mm", "rmo"], 10);
    // liburcu's and Linux's `membar_safe`: the membar in the delay slot of a branch to the
    // next label is that membar.
    let safe = |mask: &str| format!("__asm__ __volatile__(\"ba,pt %%xcc, 1f\\n\\tmembar {mask}\\n1:\\n\" : : : \"memory\");");
    let r = expect(&mp(&safe("#LoadLoad | #LoadStore")), &["--mm", "rmo"], 0);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    let r = expect(&mp(&safe("#LoadLoad | #LoadStore | #StoreStore | #StoreLoad")), &["--mm", "rmo"], 0);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // An annulled delay slot does not execute: unknown assembly, and the bug stays visible.
    let annulled = "__asm__ __volatile__(\"ba,a,pt %%xcc, 1f\\n\\tmembar #LoadLoad | #LoadStore\\n1:\\n\" : : : \"memory\");";
    let r = expect(&mp(annulled), &["--mm", "rmo"], 5);
    assert!(r.stdout.contains("UNKNOWN"), "{}", r.stdout);
}

/// SPARC's `cas` as liburcu writes it (`_uatomic_cmpxchg` in <urcu/uatomic/sparc64.h>:
/// `membar #StoreLoad | #LoadLoad; cas [addr], old, new; membar #StoreLoad | #StoreStore`):
/// an atomic compare-and-swap returning the old word, ordered by exactly its membars. A
/// spinlock built on it keeps its counter on pso and rmo; without the trailing membar the
/// critical section's read of the counter may be satisfied before the lock is taken on rmo
/// (pso keeps a read before everything after it).
#[test]
fn sparc_cas_is_an_atomic_compare_and_swap_with_its_membars() {
    let lock = |post: &str| {
        format!(
            "{PRELUDE}
static unsigned long cas(void *addr, unsigned long old, unsigned long _new) {{
  __asm__ __volatile__(\"membar #StoreLoad | #LoadLoad\\n\\tcas [%1],%2,%0\\n\\t{post}\"
                       : \"+&r\" (_new) : \"r\" (addr), \"r\" (old) : \"memory\");
  return _new;
}}
unsigned int lock; int counter;
void *w(void *a) {{
  while (cas(&lock, 0, 1) != 0) {{}}
  counter = counter + 1;
  __asm__ __volatile__(\"membar #LoadStore | #StoreStore\" ::: \"memory\");
  lock = 0;
  return 0;
}}
int main(void) {{ pthread_t a, b; pthread_create(&a, 0, w, 0); pthread_create(&b, 0, w, 0); pthread_join(a, 0); pthread_join(b, 0); __VERIFIER_assert(counter == 2); return 0; }}
"
        )
    };
    let shipped = lock("membar #StoreLoad | #StoreStore\\n\\t");
    for mm in ["sc", "pso", "rmo"] {
        let r = expect(&shipped, &["--mm", mm, "--target", "sparc64", "--unwind", "3", "--no-unwinding-assertions"], 0);
        assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    }
    expect(&lock(""), &["--mm", "pso", "--unwind", "3", "--no-unwinding-assertions"], 0);
    expect(&lock(""), &["--mm", "rmo", "--unwind", "3", "--no-unwinding-assertions"], 10);
    // An inexact mask around it leaves the statement unknown (with the warning), not a
    // weaker fence trusted.
    let r = verify(&lock("membar #LoadLoad | #StoreStore\\n\\t"), &["--mm", "rmo", "--unwind", "3", "--no-unwinding-assertions"]);
    assert!(r.stderr.contains("treated as unknown"), "{}", r.stderr);
    // SPARC assembly analysed for x86: not modelled, and said so.
    let r = expect(&shipped, &["--mm", "tso", "--unwind", "3", "--no-unwinding-assertions"], 5);
    assert!(r.stderr.contains("SPARC assembly, but the analysis is for x86_64"), "{}", r.stderr);
}

/// A memory order that is not a constant is compiled as relaxed: a violation that needs it
/// relaxed (store buffering with a `seq_cst` order held in a variable) is not trusted, one
/// on a path without it is.
#[test]
fn a_violation_through_a_non_constant_memory_order_is_unknown() {
    let sb = |order: &str| {
        format!(
            "#include <stdatomic.h>
typedef unsigned long pthread_t;
int pthread_create(pthread_t *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);
void __VERIFIER_assert(int c);
atomic_int x, y; int r0, r1; memory_order o = memory_order_seq_cst;
void *p0(void *a) {{ atomic_store_explicit(&x, 1, {order}); r0 = atomic_load_explicit(&y, memory_order_seq_cst); return 0; }}
void *p1(void *a) {{ atomic_store_explicit(&y, 1, memory_order_seq_cst); r1 = atomic_load_explicit(&x, memory_order_seq_cst); return 0; }}
int main(void) {{ pthread_t t0, t1; pthread_create(&t0, 0, p0, 0); pthread_create(&t1, 0, p1, 0); pthread_join(t0, 0); pthread_join(t1, 0); __VERIFIER_assert(r0 == 1 || r1 == 1); return 0; }}
"
        )
    };
    let r = expect(&sb("o"), &["--mm", "tso"], 5);
    assert!(r.stdout.contains("memory order is not a compile-time constant"), "{}", r.stdout);
    expect(&sb("memory_order_seq_cst"), &["--mm", "tso"], 0);
    expect(&sb("memory_order_relaxed"), &["--mm", "tso"], 10);
}
