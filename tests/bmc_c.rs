//! The built-in bounded model checker on real C text (front end → `bmc::verify`), and on a
//! sample of SV-COMP concurrency tasks with known verdicts.

use std::path::{Path, PathBuf};
use std::time::Duration;
use weakc::bmc::{self, BmcOptions, Outcome, PropertyKind, StepKind, Verdict};
use weakc::frontend;
use weakc::source::SourceMap;

const PRELUDE: &str = r#"
typedef unsigned long pthread_t;
typedef struct { int lock; } pthread_mutex_t;
int pthread_create(pthread_t *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_unlock(pthread_mutex_t *m);
void __VERIFIER_assert(int c);
void __VERIFIER_assume(int c);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
void abort(void);
"#;

fn run(src: &str, unwind: u32) -> Outcome {
    let text = format!("{PRELUDE}\n{src}");
    let mut map = SourceMap::default();
    let opts = frontend::Options { preprocess: frontend::Preprocess::Never, ..Default::default() };
    let prog = frontend::load_str("test.c", &text, &opts, &mut map).unwrap_or_else(|e| panic!("front end: {e}"));
    bmc::verify(&prog, &BmcOptions { unwind, ..Default::default() }).expect("verify")
}

fn safe(src: &str, unwind: u32) {
    let o = run(src, unwind);
    assert_eq!(o.verdict, Verdict::Safe { complete: true }, "{:?}\n{:#?}", o.failed, o.trace);
}

fn unsafe_(src: &str, unwind: u32) -> Outcome {
    let o = run(src, unwind);
    assert_eq!(o.verdict, Verdict::Unsafe);
    o
}

#[test]
fn c_integers_and_casts() {
    let body = |cond: &str| {
        format!(
            r#"int main() {{
                unsigned char c = 250; c += 10;
                int m = -7; unsigned u = (unsigned)m;
                long l = (long)(int)0x80000000u;
                int sh = -16 >> 2;
                _Bool b = 42;
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&body("c == 4 && u == 4294967289u && l == -2147483648L && sh == -4 && b == 1 && m / 2 == -3 && m % 2 == -1"), 1);
    unsafe_(&body("c == 260"), 1);
}

/// An enum's type is GCC's: `unsigned int` without negative values (so `e > -1` is false,
/// -1 converting to `unsigned int`), `int` with one, the 64-bit type of the same
/// signedness for values beyond 32 bits. Its constants are `int`, except those `int` does
/// not hold, which have the enum's type (each assertion checked against GCC's program).
#[test]
fn c_enum_types_are_gccs() {
    let body = |cond: &str| {
        format!(
            r#"enum E {{ A, B }}; enum N {{ M = -1, P }}; enum L {{ Q = 0x100000000 }};
            int main() {{
                enum E e = B; enum N n = P; enum L l = Q;
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&body("!(e > -1) && n > -1 && !(l > -1) && sizeof(e) == 4 && sizeof(n) == 4 && sizeof(l) == 8"), 1);
    safe(&body("B > -1 && sizeof(B) == 4 && !(Q > -1) && sizeof(Q) == 8 && l == 0x100000000 && sizeof(M) == 4"), 1);
    unsafe_(&body("e > -1"), 1);
}

/// String literals are bytes, not text: `"\xff"` is the byte 255 (it was read as the first
/// byte of U+FFFD's UTF-8 encoding, a wrong verdict), in a pointer and in an array alike.
#[test]
fn c_string_literals_are_bytes() {
    let body = |cond: &str| {
        format!(
            r#"char arr[] = "\xff\x80z";
            int main() {{
                const unsigned char *p = (const unsigned char *)"\xff\xfe";
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&body(r#"p[0] == 255 && p[1] == 254 && p[2] == 0 && sizeof("\xff\xfe") == 3"#), 1);
    safe(&body("(unsigned char)arr[0] == 255 && (unsigned char)arr[1] == 128 && arr[2] == 'z' && arr[3] == 0 && sizeof(arr) == 4"), 1);
    unsafe_(&body("p[0] == 0xef"), 1);
}

/// A file-scope array whose size its initialiser gives has that size in `sizeof` before its
/// first use (it was 0: `sizeof a / sizeof a[0]` loops ran no iteration).
#[test]
fn c_sizeof_of_arrays_completed_by_their_initialiser() {
    let body = |cond: &str| {
        format!(
            r#"char text[] = "abc"; int nums[] = {{1, 2, 3, 4, 5}};
            int main() {{
                char loc[] = "hello"; static int sl[] = {{1, 2}};
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&body("sizeof(text) == 4 && sizeof nums == 20 && sizeof(nums) / sizeof(nums[0]) == 5 && sizeof(loc) == 6 && sizeof(sl) == 8"), 1);
    unsafe_(&body("sizeof(nums) == 0"), 1);
}

/// Found by `scripts/fuzz-gcc` (GCC's value asserted, each checked with GCC): constant
/// expressions folded in C's types (they were folded in unbounded integers), bit-field
/// promotion and assignment values, a doubly negated hexadecimal float, a union initialised
/// through a designator of another member than the first; and `(T)(x)` casts.
#[test]
fn c_semantics_gcc_agrees_with() {
    let consts = r#"long long g = ~0u; long long h = 0xffffffffu + 1u; long long k = -1 > 0u;
        enum { A = (0u - 1 > 0) ? 7 : 9 }; int arr[(0u - 1 > 0) ? 2 : 3];
        int main() {
            static long long s = 1 ? -1 : 0u;
            long long x = 4294967295LL; int r = 2;
            switch (x) { case 0u - 1: r = 1; }
            __VERIFIER_assert(g == 4294967295LL && h == 0 && k == 1 && A == 7 && sizeof(arr) == 8 && s == 4294967295LL && r == 1);
            return 0;
        }"#;
    safe(consts, 1);
    unsafe_(&consts.replace("g == 4294967295LL &&", "g == -1 &&"), 1);
    let bits = r#"struct S { int f : 6; unsigned u : 5; unsigned w : 32; } s;
        int main() {
            int x = (s.f = 98); long long a = s.u - 1;
            s.u = 31; long long p = s.u++ - 40; long long q = ++s.u - 3;
            int y = ++s.f; long long z = s.w - 1;
            __VERIFIER_assert(x == -30 && a == -1 && p == -9 && q == -2 && y == -29 && z == 4294967295LL);
            return 0;
        }"#;
    safe(bits, 1);
    unsafe_(&bits.replace("x == -30", "x == 98"), 1);
    // GCC promotes a `long` bit-field of at most 32 bits as it does an `int` one (fuzz-gcc
    // seed 1231: `sizeof(+g6.f3)` with `unsigned long f3 : 31` was 8), in values and in
    // `sizeof`; a wider one keeps its type.
    let long_bits = r#"struct S { unsigned long a : 31; long b : 31; int p; unsigned long c : 32; long d : 32; int q; long f : 33; } s;
        int main() {
            long long x = s.a - 1; long long y = s.c - 1; long long z = (1 ? s.a : s.b) - 1;
            __VERIFIER_assert(sizeof(+s.a) == 4 && sizeof(+s.b) == 4 && sizeof(s.c + 0) == 4 && sizeof(-s.d) == 4 && sizeof(+s.f) == 8
                && sizeof(1 ? s.a : s.b) == 4 && x == -1 && y == 4294967295LL && z == -1);
            return 0;
        }"#;
    safe(long_bits, 1);
    unsafe_(&long_bits.replace("x == -1", "x != -1"), 1);
    let floats = "int main() { double r = -(-(0x1p3)); float f = -(-(0x1p-3f)); __VERIFIER_assert(r == 8.0 && f == 0.125f); return 0; }";
    safe(floats, 1);
    let unions = r#"union U { short a; int b; } g = {.b = 5}; union U g0 = {7};
        struct T { int x; union U u; } t = {1, {.b = 7}};
        int main() {
            static union U s = {.b = 9};
            __VERIFIER_assert(g.b == 5 && g0.a == 7 && t.u.b == 7 && t.x == 1 && s.b == 9);
            return 0;
        }"#;
    safe(unions, 1);
    unsafe_(&unions.replace("g.b == 5", "g.b == 0"), 1);
    // `(T)(x)` with a typedef name T or `_Bool`: tree-sitter reads a call of `(T)`.
    let casts = r#"typedef unsigned char byte; int x = 258; _Bool g = (_Bool)(2); byte h = (byte)(300) + 1;
        int main() {
            byte b = (byte)(x); _Bool c = (_Bool)(x);
            __VERIFIER_assert(b == 2 && c == 1 && g == 1 && h == 45 && sizeof((byte)(x)) == 1
                && sizeof(x ? (float)1 : (double)2) == 8 && sizeof(x ? (char)1 : (short)2) == 4);
            return 0;
        }"#;
    safe(casts, 1);
    unsafe_(&casts.replace("b == 2", "b == 258"), 1);
}

#[test]
fn c_arrays_structs_pointers() {
    let src = |cond: &str| {
        format!(
            r#"struct pt {{ int x; int y; }};
            struct pt pts[3];
            int main() {{
                int i = __VERIFIER_nondet_int();
                __VERIFIER_assume(i >= 0 && i < 3);
                for (int k = 0; k < 3; k++) {{ pts[k].x = k; pts[k].y = 2 * k; }}
                struct pt *p = &pts[i];
                int *q = &p->y;
                *q += 1;
                struct pt copy = *p;
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&src("copy.y == 2 * i + 1 && copy.x == i && pts[i].y == copy.y"), 3);
    unsafe_(&src("copy.y != 5"), 3);
}

#[test]
fn c_loop_bounds() {
    // (counting in the body: a counting loop would run its count whatever the bound)
    let src = "int main() { int s = 0, i = 0; while (i < 5) { s += i; i++; } __VERIFIER_assert(s == 10); return 0; }";
    safe(src, 5);
    let o = unsafe_(src, 4);
    assert_eq!(o.failed.unwrap().kind, PropertyKind::UnwindingAssertion);
}

#[test]
fn c_store_buffering_is_sc_safe() {
    let src = |cond: &str| {
        format!(
            r#"int x, y, r0, r1;
            void *t0(void *a) {{ x = 1; r0 = y; return 0; }}
            void *t1(void *a) {{ y = 1; r1 = x; return 0; }}
            int main() {{
                pthread_t a, b;
                pthread_create(&a, 0, t0, 0);
                pthread_create(&b, 0, t1, 0);
                pthread_join(a, 0);
                pthread_join(b, 0);
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&src("!(r0 == 0 && r1 == 0)"), 1);
    let o = unsafe_(&src("!(r0 == 1 && r1 == 1)"), 1);
    // The trace names the threads and points at the user's lines.
    assert!(o.trace.iter().any(|s| s.thread.starts_with("t0") && matches!(&s.kind, StepKind::Write { object, .. } if object == "x")));
    assert!(o.trace.iter().all(|s| s.loc.line > 0));
}

#[test]
fn c_mutex_and_atomic_counters() {
    let src = |lock: &str, unlock: &str, expect: i32| {
        format!(
            r#"int c; pthread_mutex_t m;
            void *inc(void *a) {{ {lock} c = c + 1; {unlock} return 0; }}
            int main() {{
                pthread_t t[3];
                for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, inc, 0);
                for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
                __VERIFIER_assert(c == {expect});
                return 0;
            }}"#
        )
    };
    safe(&src("pthread_mutex_lock(&m);", "pthread_mutex_unlock(&m);", 3), 3);
    safe(&src("__VERIFIER_atomic_begin();", "__VERIFIER_atomic_end();", 3), 3);
    unsafe_(&src("", "", 3), 3);
    unsafe_(&src("pthread_mutex_lock(&m);", "pthread_mutex_unlock(&m);", 2), 3);
}

#[test]
fn c_fetch_and_add_and_cas() {
    let src = |op: &str, expect: i32| {
        format!(
            r#"int c;
            void *inc(void *a) {{ {op}; return 0; }}
            int main() {{
                pthread_t t1, t2;
                pthread_create(&t1, 0, inc, 0);
                pthread_create(&t2, 0, inc, 0);
                pthread_join(t1, 0); pthread_join(t2, 0);
                __VERIFIER_assert(c == {expect});
                return 0;
            }}"#
        )
    };
    safe(&src("__sync_fetch_and_add(&c, 1)", 2), 1);
    unsafe_(&src("__sync_fetch_and_add(&c, 1)", 1), 1);
    // A CAS loop: retry until the increment lands.
    let cas = "int old; do { old = c; } while (!__sync_bool_compare_and_swap(&c, old, old + 1))";
    safe(&src(cas, 2), 3);
}

/// A compare-and-swap that fails writes nothing, also where the engine answers later reads
/// from the path's own writes (a location no other thread writes).
#[test]
fn c_a_failed_cas_leaves_memory_unchanged() {
    let src = |op: &str, cond: &str| {
        format!(
            r#"int x, e;
            int main() {{
                x = __VERIFIER_nondet_int();
                e = 1;
                {op};
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    let cas = "__sync_bool_compare_and_swap(&x, 1, 2)";
    safe(&src(cas, "x == 2 || x != 1"), 1);
    unsafe_(&src(cas, "x == 2"), 1);
    let cx = "__atomic_compare_exchange_n(&x, &e, 2, 0, 5, 5)";
    safe(&src(cx, "(x == 2 && e == 1) || (x != 1 && e == x)"), 1);
    unsafe_(&src(cx, "x == 2"), 1);
    unsafe_(&src(cx, "e == 1"), 1);
}

#[test]
fn c_thread_argument_and_atomic_function() {
    let src = |cond: &str| {
        format!(
            r#"int flags[4]; int done;
            void __VERIFIER_atomic_mark(void) {{ done = done + 1; }}
            void *w(void *arg) {{ long i = (long)arg; flags[i] = 1; __VERIFIER_atomic_mark(); return 0; }}
            int main() {{
                pthread_t t[4];
                for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, w, (void *)i);
                __VERIFIER_assume(done == 4);
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&src("flags[0] + flags[1] + flags[2] + flags[3] == 4"), 4);
    unsafe_(&src("flags[3] == 0"), 4);
}

const TSD: &str = r#"
typedef unsigned int pthread_key_t;
int pthread_key_create(pthread_key_t *k, void (*dtor)(void *));
int pthread_key_delete(pthread_key_t k);
void *pthread_getspecific(pthread_key_t k);
int pthread_setspecific(pthread_key_t k, const void *v);
"#;

#[test]
fn c_thread_specific_data_is_per_thread() {
    let src = |wcond: &str, cond: &str| {
        format!(
            r#"{TSD}
            pthread_key_t k1, k2; int a, b, c;
            void *w(void *arg) {{
                __VERIFIER_assert({wcond});
                pthread_setspecific(k1, &b);
                __VERIFIER_assert(pthread_getspecific(k1) == &b);
                return 0;
            }}
            int main() {{
                pthread_key_create(&k1, 0);
                pthread_key_create(&k2, 0);
                __VERIFIER_assert(k1 != k2);
                pthread_setspecific(k1, &a);
                pthread_t t;
                pthread_create(&t, 0, w, 0);
                pthread_key_t k = __VERIFIER_nondet_int() ? k1 : k2;
                pthread_setspecific(k, &c);
                pthread_join(t, 0);
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    // a new thread starts with NULL; the worker's value is its own; the key chosen
    // nondeterministically got the value, the other kept its own
    let ok = "pthread_getspecific(k1) != &b && (pthread_getspecific(k1) == &c) != (pthread_getspecific(k2) == &c) \
              && (pthread_getspecific(k2) != &c || pthread_getspecific(k1) == &a)";
    safe(&src("pthread_getspecific(k1) == 0", ok), 2);
    unsafe_(&src("pthread_getspecific(k1) == &a", ok), 2);
    unsafe_(&src("pthread_getspecific(k1) == 0", "pthread_getspecific(k2) == &c"), 2);
    unsafe_(&src("pthread_getspecific(k1) == 0", "pthread_getspecific(k1) == &a"), 2);
    // a value set on one branch only is NULL on the other
    let branch = |cond: &str| {
        format!(
            r#"{TSD}
            pthread_key_t k; int a;
            int main() {{
                pthread_key_create(&k, 0);
                if (__VERIFIER_nondet_int()) pthread_setspecific(k, &a);
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&branch("pthread_getspecific(k) == &a || pthread_getspecific(k) == 0"), 1);
    unsafe_(&branch("pthread_getspecific(k) == &a"), 1);
}

#[test]
fn c_thread_specific_destructors_run_when_a_thread_ends() {
    let src = |body: &str, cond: &str| {
        format!(
            r#"{TSD}
            pthread_key_t k, d; int calls, last, again;
            void dtor(void *v) {{
                __VERIFIER_assert((long)v != 5); // main's value: main ends by exit
                __VERIFIER_atomic_begin(); calls = calls + 1; last = (int)(long)v; __VERIFIER_atomic_end();
                if (again) {{ again = 0; pthread_setspecific(k, (void *)7); }}
            }}
            void *w(void *arg) {{ {body} return 0; }}
            int main() {{
                pthread_key_create(&k, dtor);
                pthread_key_create(&d, dtor);
                pthread_setspecific(k, (void *)5);
                pthread_t t;
                pthread_create(&t, 0, w, 0);
                pthread_join(t, 0);
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    // main's own value gets no destructor call (returning from main is exit)
    safe(&src("pthread_setspecific(k, (void *)42);", "calls == 1 && last == 42"), 2);
    unsafe_(&src("pthread_setspecific(k, (void *)42);", "calls == 0"), 2);
    // a NULL value gets none
    safe(&src("pthread_setspecific(k, (void *)42); pthread_setspecific(k, 0);", "calls == 0"), 2);
    // a value set by a destructor gets another round
    safe(&src("again = 1; pthread_setspecific(k, (void *)42);", "calls == 2 && last == 7"), 2);
    unsafe_(&src("again = 1; pthread_setspecific(k, (void *)42);", "calls == 1"), 2);
    // a deleted key's destructor is not called
    safe(&src("pthread_setspecific(d, (void *)9); pthread_key_delete(d);", "calls == 0"), 2);
    unsafe_(&src("pthread_setspecific(d, (void *)9);", "calls == 0"), 2);
}

/// Destructors run in rounds over the keys in order, four rounds at most (glibc's
/// `PTHREAD_DESTRUCTOR_ITERATIONS`): two destructors that set each other's key run 8 times.
#[test]
fn c_thread_specific_destructor_rounds() {
    let src = |cond: &str| {
        format!(
            r#"{TSD}
            pthread_key_t k0, k1; int calls;
            void d0(void *v) {{ calls = calls + 1; pthread_setspecific(k1, (void *)1); }}
            void d1(void *v) {{ calls = calls + 1; pthread_setspecific(k0, (void *)1); }}
            void *w(void *arg) {{ pthread_setspecific(k0, (void *)1); return 0; }}
            int main() {{
                pthread_key_create(&k0, d0);
                pthread_key_create(&k1, d1);
                pthread_t t;
                pthread_create(&t, 0, w, 0);
                pthread_join(t, 0);
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&src("calls == 8"), 1);
    unsafe_(&src("calls == 4"), 1);
}

/// Symbolic execution runs threads one after another, so a key another thread creates
/// later is not known where it is set: never "safe", whatever the assertion.
#[test]
fn c_setting_a_key_made_by_a_later_thread_is_not_a_verdict() {
    let o = run(
        &format!(
            r#"{TSD}
            pthread_key_t k; int made;
            void *setter(void *arg) {{ if (made) pthread_setspecific(k, (void *)1); return 0; }}
            void *maker(void *arg) {{ pthread_key_create(&k, 0); made = 1; return 0; }}
            int main() {{
                pthread_t a, b;
                pthread_create(&a, 0, setter, 0);
                pthread_create(&b, 0, maker, 0);
                return 0;
            }}"#
        ),
        2,
    );
    assert!(matches!(o.verdict, Verdict::Unknown(ref why) if why.contains("pthread_setspecific")), "{:?}", o.verdict);
}

#[test]
fn c_sscanf_stores_any_number_it_matched() {
    let src = |fmt: &str, cond: &str| {
        format!(
            r#"int sscanf(const char *s, const char *fmt, ...);
            int main(int argc, char **argv) {{
                int a = 5; long b = 7;
                int r = sscanf(argv[1], "{fmt}", &a, &b);
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    let bounds = "r >= -1 && r <= 2 && (r >= 1 || a == 5) && (r == 2 || b == 7)";
    safe(&src("%d,%ld", bounds), 1);
    safe(&src("%*s%d%%%*d %ld", bounds), 1);
    unsafe_(&src("%d,%ld", "r != 2 || a != 1000 || b != -3"), 1);
    unsafe_(&src("%d,%ld", "r != -1"), 1);
    // the third value has no conversion: stays; with one conversion, r is at most 1
    safe(&src("%d", "r <= 1 && b == 7"), 1);
    unsafe_(&src("%d", "a == 5"), 1);
    // text conversions and literal inputs are not modelled: never a complete "safe"
    let o = run(&src("%d %s", "a == 5 || a != 5"), 1);
    assert_eq!(o.verdict, Verdict::Safe { complete: false });
    let o = run(&src("%d", "a == 5").replace("argv[1]", "\"12\""), 1);
    assert_eq!(o.verdict, Verdict::Safe { complete: false });
}

// ------------------------------------------------------------------ SV-COMP sample

fn shared_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/svcomp");
    d.is_dir().then_some(d)
}

fn expected_verdict(c_file: &Path) -> Option<bool> {
    let yml = std::fs::read_to_string(c_file.with_extension("yml")).ok()?;
    let mut in_reach = false;
    for line in yml.lines() {
        if line.contains("property_file") {
            in_reach = line.contains("unreach-call");
        }
        if in_reach {
            if let Some(v) = line.trim().strip_prefix("expected_verdict:") {
                return Some(v.trim() == "true");
            }
        }
    }
    None
}

/// Runs the checker on SV-COMP tasks: a wrong verdict fails the test, an unknown one (time
/// limit, bound too small, unsupported construct) is listed.
#[test]
fn svcomp_sample_has_no_wrong_verdicts() {
    let Some(dir) = shared_dir() else {
        println!("skipped: ../shared/svcomp is not present");
        return;
    };
    // (task, unwind)
    let tasks: &[(&str, u32)] = &[
        ("pthread/bigshot_s.c", 2),
        ("pthread/bigshot_s2.c", 2),
        ("pthread/fib_bench-2.c", 6),
        ("pthread/singleton.c", 2),
        ("pthread/singleton_with-uninit-problems.c", 2),
        ("pthread/stateful01-1.c", 2),
        ("pthread/triangular-2.c", 6),
        ("pthread/sync01.c", 2),
        ("pthread-atomic/time_var_mutex.c", 2),
        ("pthread-atomic/read_write_lock-2.c", 2),
        ("pthread-lit/qw2004-1.c", 2),
        ("pthread-lit/qw2004-2.c", 2),
        ("pthread-ext/18_read_write_lock.c", 2),
        ("pthread-wmm/mix000_tso.opt.c", 1),
        ("pthread-wmm/mix000_pso.oepc.c", 1),
        ("pthread-wmm/mix010_power.opt.c", 1),
        ("pthread-wmm/mix020_rmo.oepc.c", 1),
        ("pthread-wmm/mix025_tso.oepc.c", 1),
        ("pthread-divine/tls_basic.i", 2),
        ("pthread-divine/tls_destructor_worker.i", 2),
        ("pthread/twostage_3.c", 2),
        ("pthread-C-DAC/pthread-demo-datarace-2.i", 21),
        ("pthread-driver-races/char_generic_nvram_read_nvram_write_nvram.i", 1),
    ];
    let mut wrong = vec![];
    let mut unknown = vec![];
    let mut correct = 0;
    for &(task, unwind) in tasks {
        let path = dir.join(task);
        if !path.exists() {
            unknown.push(format!("{task}: missing"));
            continue;
        }
        let Some(expect_safe) = expected_verdict(&path) else {
            unknown.push(format!("{task}: no unreach-call verdict"));
            continue;
        };
        let mut map = SourceMap::default();
        let prog = match frontend::load_file(&path, &Default::default(), &mut map) {
            Ok(p) => p,
            Err(e) => {
                unknown.push(format!("{task}: front end: {e}"));
                continue;
            }
        };
        let opts = BmcOptions { unwind, timeout: Some(Duration::from_secs(20)), ..Default::default() };
        let o = match bmc::verify(&prog, &opts) {
            Ok(o) => o,
            Err(e) => {
                unknown.push(format!("{task}: {e}"));
                continue;
            }
        };
        let got = match (&o.verdict, o.failed.as_ref().map(|p| p.kind)) {
            (Verdict::Safe { complete: true }, _) => Some(true),
            // A bound that is too small proves nothing either way.
            (Verdict::Safe { complete: false }, _) if !expect_safe => None,
            (Verdict::Safe { complete: false }, _) => Some(true),
            (Verdict::Unsafe, Some(PropertyKind::Assertion)) => Some(false),
            _ => None,
        };
        match got {
            Some(g) if g == expect_safe => correct += 1,
            Some(_) => wrong.push(format!("{task}: expected {}, got {:?} {:?}", if expect_safe { "safe" } else { "unsafe" }, o.verdict, o.failed)),
            None => unknown.push(format!("{task}: {:?} {:?}", o.verdict, o.failed.map(|p| p.message))),
        }
    }
    println!("svcomp sample: {correct} correct, {} unknown, {} wrong", unknown.len(), wrong.len());
    for u in &unknown {
        println!("  unknown: {u}");
    }
    assert!(wrong.is_empty(), "wrong verdicts:\n{}", wrong.join("\n"));
    assert!(correct >= tasks.len() / 2, "too few decided tasks");
}

// ------------------------------------------------------------------ end to end

/// weakc's own pipeline: instrument a litmus test for an architecture, then decide the
/// instrumented IR on SC. The weak outcome must be found exactly where the architecture
/// allows it.
#[test]
fn instrumented_litmus_tests_match_the_architectures() {
    use weakc::pipeline;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    // (test, architecture, weak outcome reachable)
    let cases: &[(&str, &str, bool)] = &[
        ("sb", "sc", false),
        ("sb", "tso", true),
        ("sb_mfence", "tso", false),
        ("mp", "tso", false),
        ("mp", "pso", true),
        ("iriw", "tso", false),
        ("iriw", "power-esop", true),
        ("wrc", "pso", false),
        ("wrc", "power-esop", true),
        ("sb", "pso", true),
        ("sb", "rmo", true),
        ("sb", "power-esop", true),
        ("sb", "arm", true),
        ("mp", "sc", false),
        ("mp", "rmo", true),
        ("mp", "power-esop", true),
        ("mp", "arm", true),
        ("lb", "sc", false),
        ("lb", "tso", false),
        ("lb", "pso", false),
        ("lb", "rmo", true),
        ("lb", "power-esop", true),
        ("lb", "arm", true),
        ("2+2w", "tso", false),
        ("2+2w", "pso", true),
        ("2+2w", "power-esop", true),
        ("iriw", "rmo", false),
        ("iriw", "arm", true),
        ("wrc", "tso", false),
        ("wrc", "arm", true),
        ("mp", "power", true),
        ("iriw", "power", true),
    ];
    for &(test, mm, weak) in cases {
        let arch = weakc::arch::by_name(mm).expect("architecture");
        let path = dir.join(format!("{test}.c"));
        let mut a = pipeline::analyze(&path, arch, &Default::default()).unwrap_or_else(|e| panic!("{test}: {e}"));
        let ins = pipeline::instrument(&mut a, arch, Default::default(), &weakc::rewrite::Options { buffer_size: 2 });
        let o = bmc::verify(&ins.rewritten.program, &BmcOptions { unwind: 5, ..Default::default() }).expect("verify");
        let expect = if weak { Verdict::Unsafe } else { Verdict::Safe { complete: true } };
        assert_eq!(o.verdict, expect, "{test} on {mm}: {:?}", o.failed);
        if weak {
            assert_eq!(o.failed.unwrap().kind, PropertyKind::Assertion, "{test} on {mm}");
        }
    }
}

/// Header-stripped SV-COMP copies call `malloc` undeclared: the result is a pointer (GCC's
/// built-in prototype), not an `int` that would lose the address.
#[test]
fn c_undeclared_malloc_returns_a_pointer() {
    let src = "struct node { int v; struct node *next; };\n\
               int main(void) { struct node *n = malloc(sizeof(struct node)); n->v = 7; n->next = 0;\n\
               __VERIFIER_assert(n != 0 && n->v == 7); return 0; }";
    safe(src, 1);
    unsafe_(&src.replace("n->v == 7", "n->v == 8"), 1);
}

/// A call through a pointer that could hold a function already being executed is not
/// unwound: it is an unwinding assertion, which holds where the pointer never holds that
/// function (SV-COMP's driver harnesses call `module_init` through a global pointer).
#[test]
fn c_recursion_through_a_function_pointer_is_an_unwinding_assertion() {
    let prog = |init: &str| {
        format!(
            r#"int g;
            int run(void);
            int init(void) {{ g = 1; return 0; }}
            int (*entry)(void) = {init};
            int run(void) {{ return entry(); }}
            int main() {{ run(); __VERIFIER_assert(g == 1); return 0; }}"#
        )
    };
    // `entry` is never `run`: the recursive candidate is ruled out by the solver.
    safe(&prog("init"), 1);
    // `entry` is `run`: run → entry() = run → … reaches the bound.
    let o = unsafe_(&prog("run"), 1);
    let f = o.failed.expect("failed property");
    assert_eq!(f.kind, PropertyKind::UnwindingAssertion);
    assert!(f.message.contains("recursion"), "{}", f.message);
    // A real violation behind a function pointer is found.
    let o = unsafe_(&prog("init").replace("g = 1", "g = 2"), 1);
    assert_ne!(o.failed.expect("failed").kind, PropertyKind::UnwindingAssertion);
}

/// A violated assertion is reported rather than a violated unwinding assertion when the
/// bound allows both: the first is a bug whatever the bound.
#[test]
fn c_a_real_violation_is_preferred_to_an_unwinding_assertion() {
    let src = r#"int main() {
        int n = __VERIFIER_nondet_int();
        for (int i = 0; i < n; i++) {}
        __VERIFIER_assert(n != -12345);
        return 0;
    }"#;
    let o = unsafe_(src, 1);
    let failed = o.failed.expect("failed property");
    assert_ne!(failed.kind, PropertyKind::UnwindingAssertion, "{failed:?}");
    assert!(matches!(o.trace.last().map(|s| &s.kind), Some(StepKind::Failure { .. })), "{:#?}", o.trace);
    // With the assertion true, the unwinding assertion is what fails.
    let o = unsafe_(&src.replace("n != -12345", "1"), 1);
    assert_eq!(o.failed.expect("failed").kind, PropertyKind::UnwindingAssertion);
}

/// `(x) - y * z` is what macro expansion makes of `#define N (x)` … `N - y * z`; tree-sitter
/// reads the parenthesised name as a cast of `-y`, which binds tighter than `*`: the front
/// end groups such chains again by C's precedences (it once computed `(x - y) * z`).
#[test]
fn c_a_parenthesised_name_before_an_operator_keeps_c_precedence() {
    let body = |cond: &str| {
        format!(
            r#"int f(void) {{ return 3; }}
            int main() {{
                int x = 10, y = 2, z = 3;
                int a = (x) - y * z;
                int b = (x) + y * z - 1;
                int c = (x) - y * z == 4;
                int d = (x) & y == 2;
                int e = (x) - y - z;
                int g = (x) - y * f() / 3 + 1;
                int h = (x) - y * z && (x) + y << 1;
                int k = (x) * y + z;
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&body("a == 4 && b == 15 && c == 1 && d == 0 && e == 5 && g == 9 && h == 1 && k == 23"), 1);
    let o = unsafe_(&body("a == 12"), 1);
    assert!(o.failed.is_some());
}

/// `(g * (x)) * 2`: tree-sitter reads the parentheses as the type `g (*)(x)` (a pointer to a
/// function taking an `x`) cast onto `*2`, since it cannot know `g` is a variable. The front
/// end parses what the parentheses hold again as an expression (once said "unknown type name
/// `g`"), and so the call in `sizeof(q((double)(x)))` (read as a type `q` with a function
/// declarator); the first line of the function is short, so the header of the re-parsed text has
/// to go on rows further up; an error inside is shown where it is.
#[test]
fn c_a_parenthesised_product_before_an_operator_is_an_expression() {
    let body = |cond: &str| {
        format!(
            r#"int g, x;
            int h(int v) {{ return v + 1; }}
            int f(void){{return (g*(x))*2;}}
            float q(double v) {{ return v; }}
            int main() {{
                g = 3; x = 2;
                int a = (g * (x)) * 2;
                int b = (g * (x)) * 2 + (g - (x)) - 1 * (g) + 1;
                int c = (h(x) * (g)) - 1;
                int d = (g & (x)) & 3;
                (g * (x)) * 2;
                unsigned long s = sizeof(q((double)(x)));
                __VERIFIER_assert({cond});
                return 0;
            }}"#
        )
    };
    safe(&body("f() == 12 && a == 12 && b == 11 && c == 8 && d == 2 && s == 4"), 1);
    let o = unsafe_(&body("b == 12"), 1);
    assert!(o.failed.is_some());
    let err = weakc::frontend::load_str("t.c", "int g, x;\nint main() {\n  return (g * (x + nope)) * 2;\n}\n", &Default::default(), &mut Default::default()).expect_err("undeclared");
    let shown = format!("{err:?}");
    assert!(shown.contains("nope") && shown.contains("line: 3") && shown.contains("col: 19"), "{shown}");
}

/// A small deterministic generator for the differential test below.
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// An index expression into an array of `n` cells (n = 2, 3 or 4), as C text and as a
/// function of the state for the oracle.
#[derive(Clone, Copy)]
enum Idx {
    Const(i64),
    Nondet(usize),
    /// `a[c] & mask` (+ `add`): an index that depends on the array's contents.
    Of(usize, i64, i64),
}

fn idx_c(i: Idx) -> String {
    match i {
        Idx::Const(c) => c.to_string(),
        Idx::Nondet(k) => format!("i{k}"),
        Idx::Of(c, m, add) => format!("((a[{c}] & {m}) + {add})"),
    }
}

fn idx_eval(i: Idx, a: &[i64; 4], nd: &[i64; 3]) -> usize {
    (match i {
        Idx::Const(c) => c,
        Idx::Nondet(k) => nd[k],
        Idx::Of(c, m, add) => (a[c] & m) + add,
    }) as usize
}

/// Sequential programs over `int a[4]` and `int b[2][3]` indexed by nondeterministic and
/// value-dependent indices (the engine keeps such arrays on the path, selecting and updating
/// cells by the offset): the verdict of `assert(a[X] != V)` must match an interpreter run on
/// every choice of the nondeterministic indices, for a V some choice produces (a violation)
/// and for one none does.
#[test]
fn sequential_arrays_at_varying_offsets_agree_with_an_interpreter() {
    let mut rng = Lcg(7);
    let ranges = [4i64, 2, 3];
    for case in 0..24 {
        let pick_a = |rng: &mut Lcg| match rng.below(3) {
            0 => Idx::Const(rng.below(4) as i64),
            1 => Idx::Nondet(0),
            _ => Idx::Of(rng.below(4) as usize, 3, 0),
        };
        // Statements: 0 a[I] = c; 1 a[I] = a[J] + b[K][L]; 2 b[K][L] = a[I] - c; 3 if (a[I] > c) a[J] = c2;
        let mut stmts = vec![];
        for _ in 0..6 {
            let kind = rng.below(4);
            let (i, j) = (pick_a(&mut rng), pick_a(&mut rng));
            let k = if rng.below(2) == 0 { Idx::Nondet(1) } else { Idx::Of(rng.below(4) as usize, 1, 0) };
            let l = if rng.below(2) == 0 { Idx::Nondet(2) } else { Idx::Of(rng.below(4) as usize, 1, 1) };
            let (c, c2) = (rng.below(7) as i64 - 3, rng.below(7) as i64 - 3);
            stmts.push((kind, i, j, k, l, c, c2));
        }
        let x = pick_a(&mut rng);
        let interp = |nd: &[i64; 3]| -> i64 {
            let mut a = [1i64, 2, 3, 4];
            let mut b = [[0i64; 3]; 2];
            for &(kind, i, j, k, l, c, c2) in &stmts {
                let (ii, jj, kk, ll) = (idx_eval(i, &a, nd), idx_eval(j, &a, nd), idx_eval(k, &a, nd), idx_eval(l, &a, nd));
                match kind {
                    0 => a[ii] = c,
                    1 => a[ii] = a[jj] + b[kk][ll],
                    2 => b[kk][ll] = a[ii] - c,
                    _ => {
                        if a[ii] > c {
                            a[jj] = c2
                        }
                    }
                }
            }
            a[idx_eval(x, &a, nd)]
        };
        let mut outcomes = std::collections::BTreeSet::new();
        for n0 in 0..ranges[0] {
            for n1 in 0..ranges[1] {
                for n2 in 0..ranges[2] {
                    outcomes.insert(interp(&[n0, n1, n2]));
                }
            }
        }
        let mut body = String::from("int a[4] = {1, 2, 3, 4}; int b[2][3];\nint main() {\n");
        for (k, r) in ranges.iter().enumerate() {
            body += &format!("  int i{k} = __VERIFIER_nondet_int(); __VERIFIER_assume(0 <= i{k} && i{k} < {r});\n");
        }
        for &(kind, i, j, k, l, c, c2) in &stmts {
            let (i, j, k, l) = (idx_c(i), idx_c(j), idx_c(k), idx_c(l));
            body += &match kind {
                0 => format!("  a[{i}] = {c};\n"),
                1 => format!("  a[{i}] = a[{j}] + b[{k}][{l}];\n"),
                2 => format!("  b[{k}][{l}] = a[{i}] - {c};\n"),
                _ => format!("  if (a[{i}] > {c}) a[{j}] = {c2};\n"),
            };
        }
        let reached = *outcomes.iter().nth(case % outcomes.len()).unwrap();
        let missed = (-40..40).find(|v| !outcomes.contains(v)).unwrap();
        let x = idx_c(x);
        let o = run(&format!("{body}  __VERIFIER_assert(a[{x}] != {reached});\n  return 0;\n}}\n"), 1);
        assert_eq!(o.verdict, Verdict::Unsafe, "case {case}: a[{x}] can be {reached}\n{body}");
        safe(&format!("{body}  __VERIFIER_assert(a[{x}] != {missed});\n  return 0;\n}}\n"), 1);
    }
}

/// Every thread has its own copy of a `_Thread_local` variable, starting from its
/// initialiser: the instrumentation keeps its buffers in such variables on tso, pso, rmo and
/// aarch64, so a copy shared between threads would mix their buffers.
#[test]
fn thread_local_variables_are_one_copy_per_thread() {
    let prog = r#"
_Thread_local int t = 5;
int seen1, seen2;
void *a(void *p) { t = t + 1; seen1 = t; return 0; }
void *b(void *p) { t = 2; seen2 = t; return 0; }
int main() { pthread_t x, y; pthread_create(&x, 0, a, 0); pthread_create(&y, 0, b, 0);
  pthread_join(x, 0); pthread_join(y, 0); COND; return 0; }
"#;
    safe(&prog.replace("COND", "__VERIFIER_assert(seen1 == 6 && seen2 == 2 && t == 5)"), 2);
    // and that outcome is reached, not vacuously safe
    unsafe_(&prog.replace("COND", "__VERIFIER_assert(!(seen1 == 6 && seen2 == 2 && t == 5))"), 2);
}

#[test]
fn byte_moves_of_pointers_follow_the_struct_layout() {
    // container_of (Linux, liburcu's caa_container_of): back from a member by its offsetof,
    // through `char *` and through GNU `void *` arithmetic; and forward from the struct by a
    // member's offset. Padding after `v` makes the byte offset (8) differ from the cell
    // offset (1): a cell-wise move would land outside the object.
    let prog = |assertion: &str| {
        format!(
            r#"
            struct node {{ struct node *next; int key; }};
            struct item {{ int v; struct node node; char tag[3]; long w; }};
            struct item a;
            struct item arr[2];
            int main() {{
                a.v = 42; a.w = 7; a.node.key = 5; a.tag[1] = 'x'; arr[1].v = 9;
                struct node *n = &a.node;
                struct item *back = (struct item *)((char *)n - 8UL);
                void *vp = n;
                struct item *gnu = (struct item *)(vp - 8);
                struct node *fwd = (struct node *)((char *)&a + 8);
                char *t = (char *)((unsigned char *)&a + 25);
                long *w = (long *)((char *)&a + 32);
                struct item *second = (struct item *)((char *)&arr[0] + sizeof(struct item));
                __VERIFIER_assert({assertion});
                return 0;
            }}"#
        )
    };
    safe(&prog("back == &a && back->v == 42 && gnu->w == 7 && fwd->key == 5 && *t == 'x' && *w == 7 && second->v == 9"), 1);
    unsafe_(&prog("back->v == 41"), 1);
    // A move that lands inside a scalar is not one the cells can represent: not trusted.
    let o = run(
        r#"struct item { int v; long w; };
        struct item a;
        int main() { a.w = 1; int *p = (int *)((char *)&a + 2); __VERIFIER_assert(*p == 5); return 0; }"#,
        1,
    );
    assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("moves a pointer by 2 bytes")), "{:?}", o.verdict);
}

#[test]
fn an_unwinding_counterexample_through_an_unmodelled_value_is_unknown_not_a_crash() {
    // The first counterexample is an unwinding assertion; the search for a real violation
    // finds none (squares are never 2 modulo 2^32), so the first model must be what the
    // over-approximation check reads, not the failed search's.
    let o = run(
        r#"unsigned ext(void);
        int main() { unsigned a = ext(); int i = 0; while (i < 10) { i++; } __VERIFIER_assert(a * a != 2u); return 0; }"#,
        2,
    );
    assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("`ext`")), "{:?}", o.verdict);
    assert_eq!(o.failed.map(|f| f.kind), Some(PropertyKind::UnwindingAssertion));
}

#[test]
fn memcpy_and_memset_copy_whole_structs_cell_by_cell() {
    let prog = |assertion: &str| {
        format!(
            r#"
            void *memcpy(void *d, const void *s, unsigned long n);
            void *memset(void *d, int c, unsigned long n);
            struct msg {{ int id; long payload; char tag[3]; int *ref; }};
            struct msg ring[2];
            int target;
            int main() {{
                struct msg m = {{ 7, 99, "ab", &target }};
                memcpy(&ring[1], &m, sizeof m);
                memcpy(ring, &ring[1], sizeof(struct msg));
                struct msg z;
                memset(&z, 0, sizeof z);
                __VERIFIER_assert({assertion});
                return 0;
            }}"#
        )
    };
    safe(&prog("ring[0].id == 7 && ring[1].payload == 99 && ring[0].tag[1] == 'b' && *ring[0].ref == 0 && ring[0].ref == &target && z.ref == 0 && z.payload == 0"), 1);
    unsafe_(&prog("ring[0].payload == 98"), 1);
    // Bytes that are not whole values of the type are not modelled: not trusted.
    let o = run(
        r#"void *memcpy(void *d, const void *s, unsigned long n);
        struct pair { int a; int b; };
        struct pair p = { 1, 2 }, q;
        int main() { memcpy(&q, &p, 6); __VERIFIER_assert(q.a == 5); return 0; }"#,
        1,
    );
    assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("memcpy")), "{:?}", o.verdict);
}

#[test]
fn arithmetic_on_the_integer_of_a_pointer_is_not_trusted_inside_an_object() {
    // The engine's pointers count cells: `(uintptr_t)&a[1] + sizeof(int)` would be `&a[5]`
    // and `(uintptr_t)&a[3] - (uintptr_t)&a[0]` 3. Such a value is any value (a violation
    // through it is UNKNOWN), so neither a wrong answer nor a missed bug comes out of it.
    let h = "typedef unsigned long uintptr_t;\nint a[10];\n";
    let unknown = |src: &str| {
        let o = run(&format!("{h}{src}"), 1);
        assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("pointer converted to an integer")), "{src}: {:?}", o.verdict);
    };
    unknown("int main() { a[2] = 7; int *p = (int *)((uintptr_t)&a[1] + sizeof(int)); __VERIFIER_assert(*p == 7); return 0; }");
    unknown("int main() { uintptr_t u = (uintptr_t)&a[1]; u += sizeof(int); __VERIFIER_assert(*(int *)u == 0); return 0; }");
    unknown("int main() { uintptr_t d = (uintptr_t)&a[3] - (uintptr_t)&a[0]; __VERIFIER_assert(d == 12); return 0; }");
    // the bug a cell count would hide (3 != 12 holds in cells)
    unknown("int main() { uintptr_t d = (uintptr_t)&a[3] - (uintptr_t)&a[0]; __VERIFIER_assert(d != 12); return 0; }");
    unknown("struct s { char c; int f; } g; int main() { __VERIFIER_assert(((uintptr_t)&g.f & 3) == 0); return 0; }");
    // through memory reached by a pointer, and through atomics (a spurious FAILED before:
    // `&a[1] + 4` landed on `a[5]`, 0)
    unknown("uintptr_t box, *b = &box; int main() { a[2] = 7; *b = (uintptr_t)&a[1]; int *p = (int *)(*b + sizeof(int)); __VERIFIER_assert(*p == 7); return 0; }");
    unknown("uintptr_t cell; int main() { a[2] = 7; __atomic_store_n(&cell, (uintptr_t)&a[1], 0); __atomic_fetch_add(&cell, sizeof(int), 0); __VERIFIER_assert(*(int *)__atomic_load_n(&cell, 0) == 7); return 0; }");
    // Exact where cells are bytes or at an object's start, and for round trips and
    // comparisons, which do no arithmetic.
    safe(
        &format!(
            "{h}char buf[16]; struct n {{ int k; struct n *next; }} nodes[2];
            int main() {{ uintptr_t u = (uintptr_t)&buf[4]; __VERIFIER_assert(u - (uintptr_t)buf == 4);
              struct n *p = (struct n *)(uintptr_t)&nodes[1]; p->k = 3; __VERIFIER_assert(nodes[1].k == 3);
              uintptr_t t = (uintptr_t)&nodes[0] | 1; __VERIFIER_assert(((struct n *)(t & ~(uintptr_t)1))->k == 0);
              __VERIFIER_assert((uintptr_t)&a[2] < (uintptr_t)&a[3]); return 0; }}"
        ),
        1,
    );
    unsafe_(&format!("{h}char buf[16]; int main() {{ uintptr_t u = (uintptr_t)&buf[4]; __VERIFIER_assert(u - (uintptr_t)buf == 3); return 0; }}"), 1);
    // Byte pointers subtracted: bytes, through the object's layout (the pointers reach
    // `char *` through `void *`: a cast of `&a[3]` itself is distrusted as punning).
    let dist = "long dist(const void *p, const void *q) { return (const char *)q - (const char *)p; }\n";
    safe(&format!("{h}{dist}int main() {{ __VERIFIER_assert(dist(&a[0], &a[3]) == 12); return 0; }}"), 1);
    unsafe_(&format!("{h}{dist}int main() {{ __VERIFIER_assert(dist(&a[0], &a[3]) != 12); return 0; }}"), 1);
    safe(&format!("{h}char buf[16]; int main() {{ __VERIFIER_assert((char *)&buf[5] - buf == 5); return 0; }}"), 1);
    safe(&format!("{h}{dist}struct s {{ char c; int x; long y; }} g[2]; int main() {{ __VERIFIER_assert(dist(&g[0].x, &g[1].y) == 20); return 0; }}"), 1);
}

#[test]
fn byte_pointers_move_through_the_layout_of_their_object() {
    // A byte offset that is not a constant (`(char *)base + size * i`, as ring buffers and
    // allocators index): the move lands on the cell that starts there, in arrays of scalars,
    // in structs with padding, in heap blocks laid out as the pointer they were assigned to.
    // (Through a `void *` helper, as allocators and ring buffers take their base: a cast of
    // the array itself to `char *` is distrusted as punning.)
    let h = "void *malloc(unsigned long);\nstruct s { char c; int x; long y; } g[3];\nint a[4];\nvoid *at(void *base, long off) { return (char *)base + off; }\n";
    let prog = |body: &str| format!("{h}int main() {{ int i = __VERIFIER_nondet_int(); if (i < 0 || i > 2) return 0; {body} return 0; }}");
    let ints = "a[i] = i + 10; int *q = at(a, sizeof(int) * i);";
    safe(&prog(&format!("{ints} __VERIFIER_assert(*q == i + 10);")), 1);
    unsafe_(&prog(&format!("{ints} __VERIFIER_assert(*q == 10);")), 1);
    let structs = "g[i].y = i + 20; g[i].x = 3; long *y = at(g, sizeof(struct s) * i + 8); int *x = at(&g[i], 4);";
    safe(&prog(&format!("{structs} __VERIFIER_assert(*y == i + 20 && *x == 3);")), 1);
    unsafe_(&prog(&format!("{structs} __VERIFIER_assert(*y == 20);")), 1);
    let heap = "char *c = malloc(16); c[i] = 7; char *e = at(c, i);";
    safe(&prog(&format!("{heap} __VERIFIER_assert(*e == 7 && e - c == i);")), 1);
    unsafe_(&prog(&format!("{heap} __VERIFIER_assert(*e == 7 && e == c);")), 1);
    // Back by bytes in a variable of its own (`q - 4`), in a heap block allocated as the
    // struct; allocated as `void *`, its layout is unknown: not trusted.
    let back = |alloc: &str, assertion: &str| {
        format!(
            r#"void *malloc(unsigned long);
            struct item {{ int key; int val; }};
            int main() {{ {alloc} it->key = 1; it->val = 2;
              void *member = &it->val; char *q = member; q = q - 4; struct item *back = (struct item *)q;
              __VERIFIER_assert({assertion}); return 0; }}"#
        )
    };
    safe(&back("struct item *it = malloc(sizeof *it);", "back->key == 1"), 1);
    unsafe_(&back("struct item *it = malloc(sizeof *it);", "back->key == 2"), 1);
    let o = run(&back("void *raw = malloc(sizeof(struct item)); struct item *it = raw;", "back->key == 1"), 1);
    assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("moves a byte pointer")), "{:?}", o.verdict);
    // Directly, `(T *)((char *)base + n)`: the bytes are only an address; the cast to `T *`
    // is checked against the object (an `int` array read as `long`s stays distrusted).
    safe(&prog("a[i] = i + 10; int *q = (int *)((char *)a + sizeof(int) * i); __VERIFIER_assert(*q == i + 10);"), 1);
    unsafe_(&prog("a[i] = i + 10; int *q = (int *)((char *)a + sizeof(int) * i); __VERIFIER_assert(*q == 10);"), 1);
    let o = run(&prog("long *q = (long *)((char *)a + sizeof(int) * i); __VERIFIER_assert(*q == 0);"), 1);
    assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("reinterprets memory") || why.contains("mixed-size")), "{:?}", o.verdict);
    // Into the middle of a cell: not a place the cells can represent, so not trusted.
    let o = run(&prog("a[0] = 1; int *q = at(a, i); __VERIFIER_assert(*q == 1);"), 1);
    assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("not the start of a cell")), "{:?}", o.verdict);
}

#[test]
fn a_mixed_size_access_is_unknown_never_a_verdict() {
    // Memory is cells of the declared types: reading or writing a cell through a type of
    // another size (here through a `void *` helper, where no cast shows it) would give bytes
    // the hardware does not. Each of these was a wrong verdict: SUCCESSFUL where the
    // assertion fails on x86-64, or FAILED where it holds.
    let mixed = |src: &str| {
        let o = run(src, 1);
        assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("mixed-size")), "{src}: {:?}", o.verdict);
    };
    let h = "void *malloc(unsigned long);\nint ints[2]; long longs[2];\nlong get(void *p) { return *(long *)p; }\nvoid put(void *p, long v) { *(long *)p = v; }\nshort half(void *p, int i) { return ((short *)p)[i]; }\n";
    let prog = |body: &str| format!("{h}int main() {{ {body} return 0; }}");
    // A wider read (the long is both ints: 0x200000001), a wider write, a narrower read.
    mixed(&prog("ints[0] = 1; ints[1] = 2; __VERIFIER_assert(get(ints) == 1);"));
    mixed(&prog("put(ints, 0x100000001L); __VERIFIER_assert(ints[1] == 0);"));
    mixed(&prog("longs[0] = 0x10001; __VERIFIER_assert(half(longs, 1) == 1);"));
    // A variable on the path (not shared memory), and a heap block of chars used as a struct.
    mixed(&prog("int a[2]; a[0] = 1; a[1] = 2; __VERIFIER_assert(get(a) == 1);"));
    mixed(&format!("{h}struct node {{ long key; struct node *next; }};\nint main() {{ char *pool = malloc(64); struct node *n = (void *)pool; n->key = 1; __VERIFIER_assert(n->key == 1); return 0; }}"));
    // An object known only at run time: checked against each object the pointer may name,
    // where an execution gets there.
    let pick = |tail: &str| prog(&format!("int c = __VERIFIER_nondet_int(); longs[0] = 5; void *p = c ? (void *)ints : (void *)longs; {tail}"));
    mixed(&pick("__VERIFIER_assert(c == 0 || get(p) == 0);"));
    mixed(&pick("put(p, 1); __VERIFIER_assert(longs[1] == 0);"));
    safe(&pick("if (c) return 0; __VERIFIER_assert(get(p) == 5);"), 1);
    unsafe_(&pick("if (c) return 0; __VERIFIER_assert(get(p) == 4);"), 1);
    // Accesses of the cells' own sizes stay decided, through `void *` and in structs.
    safe(&prog("longs[1] = 7; __VERIFIER_assert(get(&longs[1]) == 7);"), 1);
    unsafe_(&prog("put(&longs[1], 7); __VERIFIER_assert(longs[1] == 6);"), 1);
    let s = "struct s { int a; long b; char c; } v[3];\nint main() { int i = __VERIFIER_nondet_int(); if (i < 0 || i > 2) return 0; void *p = &v[i]; struct s *q = p; q->b = 5; q->c = 2; long *l = &v[i].b;";
    safe(&format!("{s} __VERIFIER_assert(*l == 5 && v[i].c == 2); return 0; }}"), 1);
    unsafe_(&format!("{s} __VERIFIER_assert(*l == 4); return 0; }}"), 1);
}

#[test]
fn bit_fields_keep_their_width_and_share_their_run() {
    // A bit-field holds its width's bits (signed ones sign-extend); adjacent ones are one
    // memory location that a write reads and writes whole. Both were wrong: `s.a = 3` read
    // back 3 (a spurious FAILED), and two threads setting two flags of one word never lost
    // an update (a missed bug, SUCCESSFUL on every architecture).
    let h = "struct g { int x; unsigned a : 3, b : 5; unsigned char pad; int c : 4; long y; } s = { 5, 9, 17, 0, 7, 7 }, t;\n";
    let body = "__VERIFIER_assert(s.x == 5 && s.a == 1 && s.b == 17 && s.c == 7 && s.y == 7 && sizeof(struct g) == 16);
        t = s; t.b = t.b + 15; t.c = t.c + 1;
        struct g *p = &t; p->a = 7; p->a++;";
    let prog = |tail: &str| format!("{h}int main() {{ {body} {tail} return 0; }}");
    safe(&prog("__VERIFIER_assert(t.a == 0 && t.b == 0 && t.c == -8 && t.x == 5 && t.y == 7 && s.b == 17);"), 1);
    unsafe_(&prog("__VERIFIER_assert(t.b == 32);"), 1);
    unsafe_(&prog("__VERIFIER_assert(t.c == 8);"), 1);
    // A union's bit-field is the low bits of its cell.
    safe("union u { unsigned w; unsigned low : 4; } v; int main() { v.low = 0x1f; __VERIFIER_assert(v.low == 15); return 0; }", 1);
    // Two threads, two flags of one run: the second write can undo the first.
    let flags = |second: &str| {
        format!(
            r#"struct f {{ unsigned a : 1; {second} }} s;
            void *t1(void *x) {{ s.a = 1; return 0; }}
            void *t2(void *x) {{ s.b = 1; return 0; }}
            int main() {{ pthread_t x, y; pthread_create(&x, 0, t1, 0); pthread_create(&y, 0, t2, 0);
              pthread_join(x, 0); pthread_join(y, 0); __VERIFIER_assert(s.a == 1 && s.b == 1); return 0; }}"#
        )
    };
    let o = unsafe_(&flags("unsigned b : 1;"), 1);
    assert!(o.trace.iter().any(|s| format!("{s:?}").contains("bit-field run of s.")), "{:#?}", o.trace);
    // A field that is not a bit-field is a location of its own.
    safe(&flags("unsigned char pad; unsigned char b;"), 1);
}

#[test]
fn memcpy_through_void_pointers_copies_the_cells_it_lands_on() {
    // ck_ring's shape: a slot located by bytes, copied through `void *` in both directions.
    let prog = |assertion: &str| {
        format!(
            r#"void *memcpy(void *d, const void *s, unsigned long n);
            void *memset(void *d, int c, unsigned long n);
            void *slots[4];
            int x = 3, a[4];
            void put(void *buf, unsigned k, void *v) {{ memcpy((char *)buf + sizeof(void *) * k, &v, sizeof(void *)); }}
            void get(const void *buf, unsigned k, void *out) {{ memcpy(out, (const char *)buf + sizeof(void *) * k, sizeof(void *)); }}
            void fill(void *p, unsigned long n) {{ memset(p, 0xff, n); }}
            int main() {{
                unsigned k = __VERIFIER_nondet_uint(); if (k > 3) return 0;
                put(slots, k, &x);
                int *r = 0;
                get(slots, k, &r);
                fill(a, 2 * sizeof(int));
                __VERIFIER_assert({assertion});
                return 0;
            }}"#
        )
    };
    safe(&prog("r == &x && *r == 3 && a[1] == -1 && a[2] == 0"), 1);
    unsafe_(&prog("*r == 4"), 1);
    unsafe_(&prog("a[2] == -1"), 1);
    // Bytes of a `char` array copied into an `int`: the engine does not assemble bytes.
    let o = run(
        r#"void *memcpy(void *d, const void *s, unsigned long n);
        unsigned char raw[4] = { 1, 0, 0, 0 };
        int main() { int v; memcpy(&v, raw, sizeof v); __VERIFIER_assert(v == 1); return 0; }"#,
        1,
    );
    assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("memcpy")), "{:?}", o.verdict);
}

#[test]
fn an_access_outside_its_object_is_unknown_not_a_counterexample() {
    // An index past the end reads no cell of the array; an
    // integer made from a pointer and moved by `sizeof` steps cells, not bytes. None of
    // these reads is C's value, so the violation is not reported as real.
    let unknown = |src: &str| {
        let o = run(src, 1);
        assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("outside the bounds of an object")), "{src}: {:?}", o.verdict);
    };
    unknown("int a[3]; int main() { int i = __VERIFIER_nondet_int(); if (i >= 0 && i <= 3) __VERIFIER_assert(a[i] == 0); return 0; }");
    // Inside the bounds, with a symbolic index, a violation stays real.
    unsafe_("int a[4]; int main() { int i = __VERIFIER_nondet_int(); if (i >= 0 && i < 4) { a[i] = 5; __VERIFIER_assert(a[i] == 0); } return 0; }", 1);
    safe("int a[4]; int main() { int i = __VERIFIER_nondet_int(); if (i >= 0 && i < 4) { a[i] = 5; __VERIFIER_assert(a[i] == 5); } return 0; }", 1);
}

#[test]
fn only_the_causal_past_of_a_failure_decides_whether_it_is_real() {
    // An over-approximated value (an unmodelled call, an out-of-bounds access) matters to a
    // failure only where the failure depends on it: in its thread before it, in what its reads
    // read from (and so on), in the parent before the spawn, in a joined thread. Outside that
    // past the threads can stop short of it, and the failure stays a real one.
    let h = "int x, y; int data[2];\nint ext(void);\n";
    let unknown = |body: &str| {
        let o = run(&format!("{h}{body}"), 1);
        assert!(matches!(&o.verdict, Verdict::Unknown(why) if why.contains("counterexample")), "{body}: {:?}", o.verdict);
    };
    let failed = |body: &str| {
        let o = unsafe_(&format!("{h}{body}"), 1);
        assert!(matches!(o.trace.last().map(|s| &s.kind), Some(StepKind::Failure { .. })), "{body}: {:#?}", o.trace);
    };
    // The out-of-bounds write after the check that failed (Dat3M's dglm pattern: `assert(r !=
    // EMPTY); data[r] = 1;`) was an UNKNOWN verdict.
    failed("void *t(void *a) { x = -1; return 0; }\nint main() { pthread_t h; pthread_create(&h, 0, t, 0); int r = x; __VERIFIER_assert(r != -1); data[r] = 1; return 0; }");
    // An unmodelled call in the writer after the write that was read.
    failed("void *t(void *a) { x = 1; y = ext(); return 0; }\nint main() { pthread_t h; pthread_create(&h, 0, t, 0); __VERIFIER_assert(x == 0); return 0; }");
    // Inside the past: the value read came from the call; the call precedes the check in its
    // thread; the joined thread called it (it may have written x after x = 1); the parent
    // called it before the spawn.
    unknown("void *t(void *a) { x = ext(); return 0; }\nint main() { pthread_t h; pthread_create(&h, 0, t, 0); __VERIFIER_assert(x != 5); return 0; }");
    unknown("void *t(void *a) { x = 1; return 0; }\nint main() { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); int r = ext(); __VERIFIER_assert(x == 0); y = r; return 0; }");
    unknown("void *t(void *a) { x = 1; y = ext(); return 0; }\nint main() { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); __VERIFIER_assert(x == 0); return 0; }");
    unknown("void *t(void *a) { __VERIFIER_assert(x == 1); return 0; }\nint main() { pthread_t h; y = ext(); pthread_create(&h, 0, t, 0); return 0; }");
}

#[test]
fn unnamed_bit_fields_are_padding_that_initialisers_skip() {
    // glibc's `union wait` and kernel structs have them; tree-sitter-c needs a name, so they
    // were a syntax error. Sizes and values as GCC gives them (x86-64).
    let h = "typedef unsigned __u32;\nstruct s { int a; unsigned int:16; int b; } x = {1, 2};\nstruct t { char c; int : 0; char d; __u32 : 3; unsigned e : 5; } y = {3, 4, 5};\nunion wait { int w_status; struct { unsigned int __w_termsig:7; unsigned int:9; unsigned int:16; } __wait_terminated; };\ntypedef union { union wait *__uptr; int *__iptr; } WS;\nstruct u { unsigned a : 3, : 5; unsigned char b; } z = {1, 2};\n";
    let body = "__VERIFIER_assert(x.a == 1 && x.b == 2 && sizeof(struct s) == 12 && y.c == 3 && y.d == 4 && y.e == 5 && sizeof(struct t) == 8 && sizeof(union wait) == 4 && z.a == 1 && z.b == 2 && sizeof(struct u) == 4);";
    safe(&format!("{h}int main() {{ {body} return 0; }}"), 1);
    unsafe_(&format!("{h}int main() {{ __VERIFIER_assert(x.b == 0); return 0; }}"), 1);
}

/// Struct types with layout attributes, and the `sizeof`/`offsetof` expressions whose values
/// GCC decides.
const PACKED_TYPES: &str = r#"
struct __attribute__((packed)) a { char c; int i; };
struct b { char c; int i; } __attribute__((packed));
typedef struct { char c; long l; short s; } __attribute__((__packed__)) c_t;
struct d { char c; int i __attribute__((packed)); short s; };
struct e { char c; int i __attribute__((aligned(16))); };
struct f { char c; } __attribute__((aligned(8)));
struct g { char c; struct a inner; char z; };
struct h { char c; struct { char x; int y; } __attribute__((packed)) in; int w; };
#pragma pack(push, 2)
struct i { char c; int x; long l; };
#pragma pack(pop)
struct j { char c; int x; };
#pragma pack(1)
struct r { char c; int x __attribute__((aligned(4))); };
#pragma pack()
struct t { char c; int : 0; char d; } __attribute__((packed));
struct v { char c; unsigned x : 4; unsigned y : 30; } __attribute__((packed));
union k { char c[5]; int i; } __attribute__((packed));
struct l { char a; unsigned x : 7; unsigned y : 3; } __attribute__((packed));
struct m { char c; long long v __attribute__((aligned(__alignof__(long long)))); };
struct n { char a, b __attribute__((aligned(4))), c; };
struct o { char c; int x; } __attribute__((packed, aligned(2)));
typedef unsigned long long u64_t;
struct p { char c; int x; } __attribute__((aligned(2 * __alignof__(u64_t))));
enum __attribute__((packed)) small { SMALL_A, SMALL_B = 200 };
enum tiny { TINY_X = -1, TINY_Y = 5 } __attribute__((packed));
struct q { char c; enum small e; enum tiny t; long long w; };
"#;
const PACKED_EXPRS: &[&str] = &[
    "sizeof(struct a)", "sizeof(struct b)", "__builtin_offsetof(struct b, i)", "sizeof(c_t)", "__builtin_offsetof(c_t, s)",
    "sizeof(struct d)", "__builtin_offsetof(struct d, s)", "sizeof(struct e)", "__builtin_offsetof(struct e, i)", "sizeof(struct f)",
    "sizeof(struct g)", "__builtin_offsetof(struct g, z)", "sizeof(struct h)", "__builtin_offsetof(struct h, w)", "sizeof(struct i)",
    "__builtin_offsetof(struct i, l)", "sizeof(struct j)", "sizeof(union k)", "sizeof(struct l)", "sizeof(struct m)",
    "sizeof(struct n)", "__builtin_offsetof(struct n, c)", "sizeof(struct o)", "sizeof(struct p)", "sizeof(struct q)",
    "__builtin_offsetof(struct q, w)", "sizeof(struct r)", "__builtin_offsetof(struct r, x)", "sizeof(struct t)", "sizeof(struct v)",
];

/// What GCC says each of [`PACKED_EXPRS`] is (`None`: no gcc here).
fn gcc_layout_values() -> Option<Vec<u64>> {
    let dir = tempfile::tempdir().expect("tempdir");
    let prints: String = PACKED_EXPRS.iter().map(|e| format!("printf(\"%zu\\n\", (size_t)({e}));\n")).collect();
    std::fs::write(dir.path().join("l.c"), format!("#include <stdio.h>\n{PACKED_TYPES}\nint main(void) {{\n{prints}return 0;\n}}\n")).expect("write");
    let exe = dir.path().join("l");
    let built = std::process::Command::new("gcc").arg("-o").arg(&exe).arg(dir.path().join("l.c")).status().ok()?;
    assert!(built.success(), "gcc rejects the layout test");
    let out = std::process::Command::new(&exe).output().expect("run");
    Some(String::from_utf8_lossy(&out.stdout).lines().map(|l| l.parse().expect("a size")).collect())
}

#[test]
fn layout_attributes_give_the_sizes_and_offsets_gcc_gives() {
    // `packed`, `aligned` and `#pragma pack` were blanked with every other attribute: a
    // program checking `sizeof` of a packed header got a spurious FAILED.
    let Some(values) = gcc_layout_values() else {
        eprintln!("skipped: gcc is not installed");
        return;
    };
    let conj: Vec<String> = PACKED_EXPRS.iter().zip(&values).map(|(e, v)| format!("{e} == {v}")).collect();
    safe(&format!("{PACKED_TYPES}int main() {{ __VERIFIER_assert({}); return 0; }}", conj.join(" && ")), 1);
    // A packed enum is GCC's smallest integer type, unsigned when no value is negative.
    safe(&format!("{PACKED_TYPES}int main() {{ enum small s = SMALL_B; enum tiny t = TINY_X; __VERIFIER_assert(sizeof(enum small) == 1 && sizeof s == 1 && s == 200 && sizeof(enum tiny) == 1 && t < 0); return 0; }}"), 1);
    // Each value is decided, not merely allowed.
    for (e, v) in PACKED_EXPRS.iter().zip(&values) {
        unsafe_(&format!("{PACKED_TYPES}int main() {{ __VERIFIER_assert({e} != {v}); return 0; }}"), 1);
    }
    // The C weakc prints says the same to GCC, through variables of each type (the printed
    // program keeps the types its variables use).
    let vars = [("struct a", "va", "c"), ("struct b", "vb", "c"), ("c_t", "vc", "c"), ("struct d", "vd", "c"), ("struct e", "ve", "c"), ("struct f", "vf", "c"), ("struct g", "vg", "c"), ("struct h", "vh", "c"), ("struct i", "vi", "c"), ("struct j", "vj", "c"), ("union k", "vk", "i"), ("struct l", "vl", "a"), ("struct m", "vm", "c"), ("struct n", "vn", "a"), ("struct o", "vo", "c"), ("struct p", "vp", "c"), ("struct q", "vq", "c"), ("struct r", "vr", "c"), ("struct t", "vt", "c"), ("struct v", "vv", "c")];
    let decls: String = vars.iter().map(|(t, v, _)| format!("{t} {v};\n")).collect();
    let sum: Vec<String> = vars.iter().map(|(_, v, f)| format!("{v}.{f}")).collect();
    let mut map = SourceMap::default();
    let opts = frontend::Options { preprocess: frontend::Preprocess::Never, ..Default::default() };
    let prog = frontend::load_str("t.c", &format!("{PACKED_TYPES}{decls}int main(void) {{ return {}; }}\n", sum.join(" + ")), &opts, &mut map).expect("parses");
    let printed = weakc::cprint::print_program(&prog, &map, &Default::default());
    let of_var = |e: &str| vars.iter().fold(e.to_string(), |e, (t, v, _)| e.replace(&format!("({t})"), &format!("({v})")).replace(&format!("({t},"), &format!("(__typeof__({v}),")));
    let checks: String = PACKED_EXPRS.iter().zip(&values).map(|(e, v)| format!("_Static_assert({} == {v}, \"{e}\");\n", of_var(e))).collect();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("p.c"), format!("{printed}\n{checks}")).expect("write");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
    let out = std::process::Command::new("gcc").args(["-fsyntax-only", "-w", "-I"]).arg(runtime).arg(dir.path().join("p.c")).output().expect("gcc");
    assert!(out.status.success(), "{}\n{printed}{checks}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn byte_pointers_in_variables_land_on_the_fields_of_their_object() {
    let h = "struct hdr { unsigned char tag; int len; short crc; } __attribute__((packed));\nstruct hdr h;\n";
    // A byte pointer held in a variable moves through the object's layout (it moved by
    // cells before, and every such move was an approximation).
    safe(&format!("{h}int main() {{ char *p = (char *)&h; *(short *)(p + 5) = 9; int *q = (int *)(p + 1); *q = 7; __VERIFIER_assert(h.crc == 9 && h.len == 7 && sizeof h == 7); return 0; }}"), 1);
    unsafe_(&format!("{h}int main() {{ char *p = (char *)&h; *(short *)(p + 5) = 9; __VERIFIER_assert(h.crc != 9); return 0; }}"), 1);
    // A `char *` whose own type says nothing of the object (here it came through a
    // `void *`) moved by a constant, in one expression: it moved by cells before (`p + 4`
    // was field `e`), a missed bug.
    let big = "struct big { int a, b, c, d, e, f; };\nstruct big s;\n";
    unsafe_(&format!("{big}int main() {{ void *v = &s; char *p = v; int *q = (int *)(p + 4); *q = 9; __VERIFIER_assert(s.b != 9); return 0; }}"), 1);
    safe(&format!("{big}int main() {{ void *v = &s; char *p = v; int *q = (int *)(p + 4); *q = 9; __VERIFIER_assert(s.b == 9 && s.e == 0); return 0; }}"), 1);
    // Into the middle of a field: not modelled, so not a verdict either way.
    let o = run(&format!("{h}int main() {{ char *p = (char *)&h; p[2] = 1; __VERIFIER_assert(h.len == 0); return 0; }}"), 1);
    assert!(matches!(o.verdict, Verdict::Unknown(_)), "{:?}", o.verdict);
}

#[test]
fn the_sc_search_beside_the_own_one_decides_whichever_ends_first() {
    let parse = |src: &str| {
        let text = format!("{PRELUDE}\n{src}");
        let opts = frontend::Options { preprocess: frontend::Preprocess::Never, ..Default::default() };
        frontend::load_str("test.c", &text, &opts, &mut SourceMap::default()).unwrap_or_else(|e| panic!("front end: {e}"))
    };
    // A lost update (SC finds it at once) beside a program whose own search cannot end soon
    // (factoring a 62-bit semiprime): the SC violation is the verdict and stops the other.
    let race = parse(
        "int x;\nvoid *inc(void *a) { x = x + 1; return 0; }\nint main() { pthread_t t, u; pthread_create(&t, 0, inc, 0); pthread_create(&u, 0, inc, 0);\n pthread_join(t, 0); pthread_join(u, 0);\n __VERIFIER_assert(x == 2); return 0; }",
    );
    let hard = parse(
        "int main() { unsigned long a = __VERIFIER_nondet_uint(), b = __VERIFIER_nondet_uint();\n __VERIFIER_assume(a > 1 && b > 1);\n __VERIFIER_assert(a * b != 3369738766071892021UL); return 0; }",
    );
    let opts = BmcOptions { timeout: Some(Duration::from_secs(60)), ..Default::default() };
    let t = std::time::Instant::now();
    let (o, found) = bmc::verify_sc_first(&race, &hard, &opts).expect("verify");
    assert_eq!((o.verdict, found), (Verdict::Unsafe, bmc::Found::Sc));
    assert!(t.elapsed() < Duration::from_secs(30), "the own search was not stopped: {:?}", t.elapsed());
    // Assertions that hold under SC conclude nothing: the own search's verdict stands, a
    // violation (store buffering on TSO) as well as safety.
    let sb = "int x, y, r0, r1;\nvoid *p0(void *a) { x = 1; r0 = y; return 0; }\nvoid *p1(void *a) { y = 1; r1 = x; return 0; }\nint main() { pthread_t t, u; pthread_create(&t, 0, p0, 0); pthread_create(&u, 0, p1, 0);\n pthread_join(t, 0); pthread_join(u, 0);\n __VERIFIER_assert(r0 == 1 || r1 == 1); return 0; }";
    let sb = parse(sb);
    let tso = BmcOptions { model: Some(weakc::verify::store_buffer_model(weakc::arch::by_name("tso").unwrap()).unwrap()), ..Default::default() };
    let (o, found) = bmc::verify_sc_first(&sb, &sb, &tso).expect("verify");
    assert_eq!((o.verdict, found), (Verdict::Unsafe, bmc::Found::Own));
    let (o, found) = bmc::verify_sc_first(&sb, &sb, &BmcOptions::default()).expect("verify");
    assert_eq!((o.verdict, found), (Verdict::Safe { complete: true }, bmc::Found::Own));
}
