//! Unit tests of the front end: small C programs → IR shape.

use super::dump::{dump, expr_str};
use super::*;
use crate::ir::*;
use crate::source::{Error, SourceMap};

fn try_lower(src: &str) -> Result<Program, Error> {
    let mut map = SourceMap::default();
    load_str("t.c", src, &Options::default(), &mut map)
}

fn lower(src: &str) -> Program {
    match try_lower(src) {
        Ok(p) => p,
        Err(e) => {
            let mut map = SourceMap::default();
            map.add_file("t.c", src.to_string());
            panic!("lowering failed: {}", e.render(&map, false))
        }
    }
}

fn lower_err(src: &str) -> Error {
    match try_lower(src) {
        Ok(p) => panic!("expected an error, got:\n{}", dump(&p)),
        Err(e) => e,
    }
}

/// The dumped body of function `name`, without the signature line and closing brace,
/// indentation removed, lines joined by `\n`.
fn body(p: &Program, name: &str) -> String {
    let f = p.func(p.func_by_name(name).unwrap_or_else(|| panic!("no function {name}:\n{}", dump(p))));
    let text = super::dump::block_str(p, f.body.as_ref().expect("body"));
    text.lines().map(|l| format!("{}\n", l.trim())).collect()
}

fn main_body(src: &str) -> String {
    body(&lower(src), "main")
}

fn stmts_of<'a>(p: &'a Program, name: &str) -> Vec<&'a Stmt> {
    let mut v = Vec::new();
    let f = p.func(p.func_by_name(name).unwrap());
    walk_stmts(f.body.as_ref().unwrap(), &mut |s| v.push(s));
    v
}

fn var<'a>(p: &'a Program, name: &str) -> &'a Var {
    p.vars.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no var {name}"))
}

fn line_of(e: &Error) -> u32 {
    match e {
        Error::Syntax { loc, .. } | Error::Unsupported { loc, .. } => loc.line,
        other => panic!("no location in {other:?}"),
    }
}

// ----- CBMC litmus conventions -----

#[test]
fn cbmc_litmus_shapes() {
    let p = lower(
        r#"void fence() { asm("sync"); }
void lwfence() { asm("lwsync"); }
int x = 0, y = 0, r = 0, cnt = 0;
void * P0(void * arg) { x = 1; fence(); cnt++; }
void * P1(void * arg) { r = x; lwfence(); cnt++; }
int main() {
  __CPROVER_ASYNC_0: P0(0);
  __CPROVER_ASYNC_1: P1(0);
  __CPROVER_assume(cnt==2);
  __CPROVER_assert(!(r == 1), "Program proven to be relaxed");
  return 0;
}
"#,
    );
    let m = body(&p, "main");
    assert_eq!(
        m,
        "spawn(-, &P0, 0);\nspawn(-, &P1, 0);\nassume((cnt == 2));\nassert(!(r == 1)); // Program proven to be relaxed\nreturn 0;\n"
    );
    let spawn = stmts_of(&p, "main").into_iter().find(|s| matches!(s.kind, StmtKind::Spawn { .. })).unwrap();
    match &spawn.kind {
        StmtKind::Spawn { tid: None, func, arg } => {
            assert!(matches!(func.kind, ExprKind::FuncAddr(_)));
            assert_eq!(arg.ty, Type::ptr_to(Type::Void));
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(body(&p, "fence"), "fence(sync);\n");
    assert_eq!(body(&p, "lwfence"), "fence(lwsync);\n");
    assert_eq!(body(&p, "P0"), "x = 1;\nfence();\ncnt = (cnt + 1);\n");
    assert_eq!(p.main, p.func_by_name("main"));
    let names: Vec<&str> = p.globals.iter().map(|g| p.var(*g).name.as_str()).collect();
    assert_eq!(names, vec!["x", "r", "cnt"]);
    assert!(matches!(var(&p, "x").init, Some(Init::Expr(Expr { kind: ExprKind::Const(0), .. }))));
}

// ----- SV-COMP conventions -----

#[test]
fn nondet_types_and_hoisting() {
    let p = lower(
        r#"extern unsigned int __VERIFIER_nondet_uint(void);
int g;
int main() {
  unsigned u = __VERIFIER_nondet_uint();
  char c = __VERIFIER_nondet_char();
  _Bool b = __VERIFIER_nondet_bool();
  long l = __VERIFIER_nondet_long();
  g = __VERIFIER_nondet_int() + 1;
  return 0;
}"#,
    );
    let m = body(&p, "main");
    assert!(m.starts_with("u = nondet();\nc = nondet();\nb = nondet();\nl = nondet();\n__weakc_tmp0 = nondet();\ng = (__weakc_tmp0 + 1);\n"), "{m}");
    let mut tys = Vec::new();
    for s in stmts_of(&p, "main") {
        if let StmtKind::Assign { rhs: Expr { kind: ExprKind::Nondet, ty }, .. } = &s.kind {
            tys.push(ty.clone());
        }
    }
    assert_eq!(tys, vec![Type::UINT, Type::CHAR, Type::Bool, Type::LONG, Type::INT]);
    assert!(matches!(var(&p, "__weakc_tmp0").storage, Storage::Temp { .. }));
}

#[test]
fn verifier_primitives_intercepted_even_if_defined() {
    let p = lower(
        r#"extern void abort(void);
void reach_error(){}
void assume_abort_if_not(int cond) { if(!cond) {abort();} }
void __VERIFIER_assert(int expression) { if (!expression) { ERROR: {reach_error();abort();} }; return; }
void __VERIFIER_error(void) { }
int x;
int main() {
  assume_abort_if_not(x > 0);
  __VERIFIER_assume(x < 10);
  __VERIFIER_assert(x != 5);
  if (x == 7) reach_error();
  if (x == 8) __VERIFIER_error();
  if (x == 9) exit(1);
  abort();
}"#,
    );
    assert_eq!(
        body(&p, "main"),
        "assume((x > 0));\nassume((x < 10));\nassert((x != 5)); // x != 5\nassert(!(x == 7)); // reach_error()\nassert(!(x == 8)); // __VERIFIER_error()\nif ((x == 9)) {\nassume(0);\n}\nassume(0);\n"
    );
    for f in ["reach_error", "assume_abort_if_not", "__VERIFIER_assert", "__VERIFIER_error"] {
        assert!(p.func_by_name(f).is_none(), "{f} should not be lowered");
    }
}

#[test]
fn glibc_assert_expansions() {
    // Both forms glibc's assert() expands to, and the real header.
    let p = lower(
        r#"extern void __assert_fail (const char *__assertion, const char *__file, unsigned int __line, const char *__function);
int x;
int main() {
  ((x > 0) ? (void) (0) : __assert_fail ("x > 0", "t.c", 4, __extension__ __PRETTY_FUNCTION__));
  ((void) sizeof ((x < 9) ? 1 : 0), __extension__ ({ if (x < 9) ; else __assert_fail ("x < 9", "t.c", 5, __extension__ __PRETTY_FUNCTION__); }));
  __assert_fail("boom", "t.c", 6, "main");
}"#,
    );
    assert_eq!(body(&p, "main"), "assert((x > 0)); // x > 0\nassert((x < 9)); // x < 9\nassert(0); // boom\n");
    let p = lower("#include <assert.h>\nint x;\nint main() { assert(x == 1); return 0; }\n");
    assert_eq!(body(&p, "main"), "assert((x == 1)); // x == 1\nreturn 0;\n");
}

#[test]
fn atomic_sections() {
    let p = lower(
        r#"int x;
void __VERIFIER_atomic_inc() { x = x + 1; }
int __VERIFIER_atomic_get() { return x; }
int main() {
  __VERIFIER_atomic_begin(); x = 1; __VERIFIER_atomic_end();
  __CPROVER_atomic_begin(); x = 2; __CPROVER_atomic_end();
  __VERIFIER_atomic_inc();
  int r = __VERIFIER_atomic_get();
  return r;
}"#,
    );
    assert_eq!(
        body(&p, "main"),
        "atomic_begin;\nx = 1;\natomic_end;\natomic_begin;\nx = 2;\natomic_end;\natomic_begin;\n__VERIFIER_atomic_inc();\natomic_end;\natomic_begin;\nr = __VERIFIER_atomic_get();\natomic_end;\nreturn r;\n"
    );
}

#[test]
fn pthreads() {
    let p = lower(
        r#"#include <pthread.h>
pthread_mutex_t m;
int x;
void *t(void *arg) { pthread_mutex_lock(&m); x++; pthread_mutex_unlock(&m); return 0; }
int main() {
  pthread_t id[2];
  pthread_attr_t a;
  void *res;
  pthread_mutex_init(&m, 0);
  pthread_attr_init(&a);
  for (int i = 0; i < 2; i++) pthread_create(&id[i], &a, t, (void*)0);
  void *(*fp)(void *) = t;
  pthread_t u;
  if (pthread_create(&u, 0, fp, &x) != 0) return 1;
  pthread_join(id[0], &res);
  pthread_join(u, NULL);
  pthread_mutex_destroy(&m);
  pthread_cond_signal((pthread_cond_t*)0);
  return 0;
}"#,
    );
    let m = body(&p, "main");
    assert!(m.contains("skip;\nskip;\ni = 0;\nloop {\nif (!(i < 2)) {\nbreak;\n}\nspawn(&id[i], &t, 0);\n} latch {\ni = (i + 1);\n}\n"), "{m}");
    assert!(m.contains("fp = &t;\nu = nondet();\nspawn(&u, fp, (void*)&x);\nif (0) {\nreturn 1;\n}\njoin(id[0], &res);\njoin(u, -);\nskip;\npthread_cond_signal(0);\nreturn 0;\n"), "{m}");
    assert_eq!(body(&p, "t"), "lock(&m);\nx = (x + 1);\nunlock(&m);\nreturn 0;\n");
    let cond = p.func(p.func_by_name("pthread_cond_signal").unwrap());
    assert!(cond.body.is_none());
    assert!(var(&p, "u").address_taken && var(&p, "m").address_taken && var(&p, "id").address_taken);
    assert!(!var(&p, "fp").address_taken);
}

#[test]
fn pthread_exit_rules() {
    let p = lower(
        "#include <pthread.h>\nint x;\nvoid *t(void *a) { x = 1; pthread_exit(NULL); }\nint main() { pthread_t id; pthread_create(&id, 0, t, 0); return 0; }\n",
    );
    assert_eq!(body(&p, "t"), "x = 1;\nreturn 0;\n");
    let e = lower_err(
        "#include <pthread.h>\nint x;\nvoid *t(void *a) {\n if (x) pthread_exit(NULL);\n return 0; }\nint main() { pthread_t id; pthread_create(&id, 0, t, 0); return 0; }\n",
    );
    assert!(matches!(e, Error::Unsupported { .. }) && line_of(&e) == 4, "{e:?}");
    let e = lower_err("#include <pthread.h>\nint main() {\n pthread_exit(0);\n}\n");
    assert!(matches!(e, Error::Unsupported { .. }) && line_of(&e) == 3, "{e:?}");
}

// ----- fences, atomics, asm -----

#[test]
fn asm_fences() {
    let cases = [
        ("mfence", "mfence"),
        ("sync", "sync"),
        ("hwsync", "sync"),
        ("lwsync", "lwsync"),
        ("isync", "isync"),
        ("eieio", "eieio"),
        ("dmb", "dmb"),
        ("dmb sy", "dmb"),
        ("dmb ish", "dmb"),
        ("dmb st", "dmb st"),
        ("dmb ishst", "dmb st"),
        ("dmb ld", "dmb ld"),
        ("dmb ishld", "dmb ld"),
        ("dsb sy", "dsb"),
        ("dsb", "dsb"),
        ("isb", "isb"),
        ("", "compiler barrier"),
        ("  MFENCE;\\n", "mfence"),
    ];
    for (code, name) in cases {
        for form in [
            format!("asm(\"{code}\");"),
            format!("asm volatile(\"{code}\" ::: \"memory\");"),
            format!("__asm__ __volatile__(\"{code}\" : : : \"memory\");"),
        ] {
            let m = main_body(&format!("int main() {{ {form} return 0; }}"));
            assert_eq!(m, format!("fence({name});\nreturn 0;\n"), "{form}");
        }
    }
}

fn lower_for(src: &str, target: Option<preprocess::Target>) -> Program {
    let mut map = SourceMap::default();
    let opts = Options { target, preprocess: Preprocess::Never, ..Options::default() };
    match load_str("t.c", src, &opts, &mut map) {
        Ok(p) => p,
        Err(e) => {
            map.add_file("t.c", src.to_string());
            panic!("lowering failed: {}", e.render(&map, false))
        }
    }
}

/// The body of `t` for asm statement(s) `stmt` with the given declarations, and the warnings.
fn asm_body(decls: &str, stmt: &str, target: Option<preprocess::Target>) -> (String, Vec<String>) {
    let p = lower_for(&format!("{decls}\nvoid t(void) {{\n{stmt}\n}}\nint main() {{ t(); return 0; }}\n"), target);
    (body(&p, "t"), p.warnings.iter().map(|(l, m)| format!("{}: {m}", l.line)).collect())
}

fn asm_ok(decls: &str, stmt: &str, target: Option<preprocess::Target>) -> String {
    let (b, w) = asm_body(decls, stmt, target);
    assert!(w.is_empty(), "{stmt}: unexpected warnings {w:?}");
    b
}

#[test]
fn asm_fences_of_every_kind() {
    let cases = [
        ("lfence", "compiler barrier"),
        ("sfence", "compiler barrier"),
        ("lock; addl $0,0(%%rsp)", "mfence"),
        ("lock; orq $0,(%%rsp)", "mfence"),
        ("lock addl $0,-4(%%rsp)", "mfence"),
        ("sync 0", "sync"),
        ("sync 1", "lwsync"),
        ("dmb nsh", "dmb"),
        ("dmb osh", "dmb"),
        ("dmb nshst", "dmb st"),
        ("dmb oshst", "dmb st"),
        ("dmb nshld", "dmb ld"),
        ("dmb oshld", "dmb ld"),
        ("dsb ish", "dsb"),
        ("dsb ishst", "dmb st"),
        ("dsb ld", "dmb ld"),
        ("dsb oshld", "dmb ld"),
        ("isb sy", "isb"),
        ("pause", "compiler barrier"),
    ];
    for (code, name) in cases {
        let b = asm_ok("", &format!("asm volatile(\"{code}\" ::: \"memory\");"), None);
        assert_eq!(b, format!("fence({name});\n"), "{code}");
    }
    // foreign fences keep their meaning (the tables map them conservatively)
    let b = asm_ok("", "asm volatile(\"lwsync\" ::: \"memory\");", Some(preprocess::Target::X86_64));
    assert_eq!(b, "fence(lwsync);\n");
}

const CK_DECLS: &str = "typedef unsigned int uint32_t; typedef unsigned long uint64_t; uint32_t x; void *pp; _Bool z;";

#[test]
fn asm_x86_plain_moves_are_plain_accesses() {
    let x86 = Some(preprocess::Target::X86_64);
    // ck_pr_md_store_32 / ck_pr_md_load_32
    let b = asm_ok(CK_DECLS, "uint32_t *p = &x; uint32_t v = 1;\n__asm__ __volatile__(\"movl %1, %0\" : \"=m\" (*(uint32_t *)p) : \"Z\" \"q\" (v) : \"memory\");", x86);
    assert!(b.ends_with("*p = v;\n"), "{b}");
    let b = asm_ok(CK_DECLS, "uint32_t *p = &x; uint32_t r;\n__asm__ __volatile__(\"movl %1, %0\" : \"=q\" (r) : \"m\" (*(const uint32_t *)p) : \"memory\");", x86);
    assert!(b.ends_with("__weakc_tmp0 = *p;\nr = __weakc_tmp0;\n"), "{b}");
    // an immediate, and the pointer-in-a-register addressing form
    let b = asm_ok(CK_DECLS, "asm(\"movl $3, (%0)\" : : \"r\" (&x) : \"memory\");", x86);
    assert_eq!(b, "*&x = 3;\n");
    // ck's pointer store passes `*(char *)target` to a 64-bit `movq`: the access is 8 bytes
    let b = asm_ok(CK_DECLS, "__asm__ __volatile__(\"movq %1, %0\" : \"=m\" (*(char *)&pp) : \"q\" (pp) : \"memory\");", x86);
    assert_eq!(b, "*(void**)(i8*)&pp = pp;\n");
}

#[test]
fn asm_x86_locked_instructions_are_seq_cst_rmws() {
    let x86 = Some(preprocess::Target::X86_64);
    let rmw = |stmt: &str| -> Vec<(RmwOp, MemOrder)> {
        let p = lower_for(&format!("{CK_DECLS}\nvoid t(void) {{ uint32_t d = 2, c = 1, s = 3; {stmt} }}\nint main() {{ t(); return 0; }}\n"), x86);
        assert!(p.warnings.is_empty(), "{stmt}: {:?}", p.warnings);
        stmts_of(&p, "t").iter().filter_map(|s| match &s.kind { StmtKind::Rmw(r) => Some((r.op, r.order)), _ => None }).collect()
    };
    use MemOrder::SeqCst;
    assert_eq!(rmw("__asm__ __volatile__(\"xchgl %0, %1\" : \"+m\" (x), \"+q\" (d) : : \"memory\");"), [(RmwOp::Exchange, SeqCst)]);
    assert_eq!(rmw("__asm__ __volatile__(\"lock xaddl %1, %0\" : \"+m\" (x), \"+q\" (d) : : \"memory\", \"cc\");"), [(RmwOp::FetchAdd, SeqCst)]);
    assert_eq!(rmw("__asm__ __volatile__(\"lock incl %0\" : \"+m\" (x) : : \"memory\", \"cc\");"), [(RmwOp::FetchAdd, SeqCst)]);
    assert_eq!(rmw("__asm__ __volatile__(\"lock; decl %0\" : \"+m\" (x) : : \"memory\", \"cc\");"), [(RmwOp::FetchSub, SeqCst)]);
    for (ins, op) in [("addl", RmwOp::FetchAdd), ("subl", RmwOp::FetchSub), ("andl", RmwOp::FetchAnd), ("orl", RmwOp::FetchOr), ("xorl", RmwOp::FetchXor)] {
        assert_eq!(rmw(&format!("__asm__ __volatile__(\"lock {ins} %1, %0\" : \"+m\" (x) : \"iq\" (d) : \"memory\", \"cc\");")), [(op, SeqCst)], "{ins}");
    }
    assert_eq!(rmw("__asm__ __volatile__(\"lock cmpxchgl %2, %0; setz %1\" : \"+m\" (x), \"=a\" (z) : \"q\" (s), \"a\" (c) : \"memory\", \"cc\");"), [(RmwOp::CasVal, SeqCst)]);
    // without `lock`, an add to memory is a plain read and a plain write
    assert_eq!(rmw("__asm__ __volatile__(\"addl %1, %0\" : \"+m\" (x) : \"r\" (d));"), []);
}

#[test]
fn asm_x86_results_reach_their_outputs() {
    let x86 = Some(preprocess::Target::X86_64);
    // lock xadd: the register operand receives the old value
    let b = asm_ok(CK_DECLS, "uint32_t d = 2;\n__asm__ __volatile__(\"lock xaddl %1, %0\" : \"+m\" (x), \"+q\" (d) : : \"memory\");", x86);
    assert_eq!(b, "d = 2;\n__weakc_tmp0 = d;\n__weakc_tmp1 = rmw FetchAdd(&x, __weakc_tmp0, SeqCst);\nd = __weakc_tmp1;\n");
    // cmpxchg: EAX holds the expected value; setz gives success
    let b = asm_ok(CK_DECLS, "uint32_t c = 1, s = 3;\n__asm__ __volatile__(\"lock cmpxchgl %2, %0; setz %1\" : \"+m\" (x), \"=a\" (z) : \"q\" (s), \"a\" (c) : \"memory\", \"cc\");", x86);
    assert!(b.ends_with("__weakc_tmp2 = rmw CasVal(&x, __weakc_tmp0, expected __weakc_tmp1, SeqCst);\nz = (_Bool)__weakc_tmp2;\nz = (_Bool)(__weakc_tmp2 == __weakc_tmp1);\n"), "{b}");
    // lock inc; setz: the flag is the new value being zero
    let b = asm_ok(CK_DECLS, "__asm__ __volatile__(\"lock incl %0; setz %1\" : \"+m\" (x), \"=rm\" (z) : : \"memory\", \"cc\");", x86);
    assert_eq!(b, "__weakc_tmp0 = rmw FetchAdd(&x, 1, SeqCst);\nz = (_Bool)((__weakc_tmp0 + 1) == 0);\n");
}

#[test]
fn asm_power_and_arm_exclusive_loops_are_rmws() {
    let ppc = Some(preprocess::Target::Ppc64le);
    let a64 = Some(preprocess::Target::Aarch64);
    let v7 = Some(preprocess::Target::Armv7a);
    let rmws = |stmt: &str, target| -> (Vec<(RmwOp, MemOrder)>, String) {
        let p = lower_for(&format!("int x; int *px = &x;\nvoid t(void) {{ int t1, t2, a = 2, o = 1, nw = 3; {stmt} }}\nint main() {{ t(); return 0; }}\n"), target);
        assert!(p.warnings.is_empty(), "{stmt}: {:?}", p.warnings);
        let r = stmts_of(&p, "t").iter().filter_map(|s| match &s.kind { StmtKind::Rmw(r) => Some((r.op, r.order)), _ => None }).collect();
        (r, body(&p, "t"))
    };
    use MemOrder::*;
    // Linux powerpc atomic_add, atomic_add_return_relaxed with acquire isync, xchg, cmpxchg
    let add = "__asm__ __volatile__(\"1:\tlwarx\t%0,0,%3\t# atomic_add\\n\tadd\t%0,%2,%0\\n\tstwcx.\t%0,0,%3\\n\tbne-\t1b\\n\" : \"=&r\" (t1), \"+m\" (x) : \"r\" (a), \"r\" (px) : \"cc\");";
    let (r, b) = rmws(add, ppc);
    assert_eq!(r, [(RmwOp::FetchAdd, Relaxed)], "{b}");
    assert!(b.ends_with("__weakc_tmp1 = rmw FetchAdd(px, __weakc_tmp0, Relaxed);\nt1 = (__weakc_tmp1 + __weakc_tmp0);\n"), "{b}");
    let acq = "__asm__ __volatile__(\"1: lwarx %0,0,%2\\n addic %0,%0,1\\n stwcx. %0,0,%2\\n bne- 1b\\n isync\\n\" : \"=&r\" (t1) : \"r\" (a), \"r\" (px) : \"cc\", \"memory\");";
    assert_eq!(rmws(acq, ppc).0, [(RmwOp::FetchAdd, Acquire)]);
    let xchg = "__asm__ __volatile__(\"lwsync\\n1: lwarx %0,0,%2\\n stwcx. %3,0,%2\\n bne- 1b\\n sync\" : \"=&r\" (t1), \"+m\" (x) : \"r\" (px), \"r\" (nw) : \"cc\", \"memory\");";
    let (r, b) = rmws(xchg, ppc);
    assert_eq!(r, [(RmwOp::Exchange, Relaxed)]);
    assert!(b.ends_with("fence(lwsync);\n__weakc_tmp1 = rmw Exchange(px, __weakc_tmp0, Relaxed);\nfence(sync);\nt1 = __weakc_tmp1;\n"), "{b}");
    let cas = "__asm__ __volatile__(\"sync\\n1: lwarx %0,0,%2\\n cmpw 0,%0,%3\\n bne- 2f\\n stwcx. %4,0,%2\\n bne- 1b\\n sync\\n2:\" : \"=&r\" (t1), \"+m\" (x) : \"r\" (px), \"r\" (o), \"r\" (nw) : \"cc\", \"memory\");";
    let (r, b) = rmws(cas, ppc);
    assert_eq!(r, [(RmwOp::CasVal, Relaxed)]);
    assert!(b.contains("if ((__weakc_tmp2 == __weakc_tmp1)) {\nfence(sync);\n}"), "the exit barrier only on success: {b}");
    // AArch64 (Linux's LL/SC atomics): ldxr/stxr relaxed, ldaxr/stlxr acq_rel, and ldar/stlr
    let a = "asm volatile(\"prfm pstl1strm, %2\\n1: ldxr %w0, %2\\n add %w0, %w0, %w3\\n stxr %w1, %w0, %2\\n cbnz %w1, 1b\" : \"=&r\" (t1), \"=&r\" (t2), \"+Q\" (x) : \"Ir\" (a));";
    assert_eq!(rmws(a, a64).0, [(RmwOp::FetchAdd, Relaxed)]);
    let a = "asm volatile(\"1: ldaxr %w0, %2\\n stlxr %w1, %w3, %2\\n cbnz %w1, 1b\" : \"=&r\" (t1), \"=&r\" (t2), \"+Q\" (x) : \"r\" (nw) : \"memory\");";
    assert_eq!(rmws(a, a64).0, [(RmwOp::Exchange, AcqRel)]);
    let a = "asm volatile(\"1: ldxr %w0, %2\\n stlxr %w1, %w3, %2\\n cbnz %w1, 1b\\n dmb ish\" : \"=&r\" (t1), \"=&r\" (t2), \"+Q\" (x) : \"r\" (nw) : \"memory\");";
    let (r, b) = rmws(a, a64);
    assert_eq!(r, [(RmwOp::Exchange, Release)]);
    assert!(b.contains("Release);\nfence(dmb);\n"), "{b}");
    let a = "asm volatile(\"ldar %w0, %1\" : \"=r\" (t1) : \"Q\" (x) : \"memory\");";
    assert_eq!(rmws(a, a64).0, [(RmwOp::Load, SeqCst)]);
    let a = "asm volatile(\"stlr %w1, %0\" : \"=Q\" (x) : \"r\" (a) : \"memory\");";
    assert_eq!(rmws(a, a64).0, [(RmwOp::Store, Release)]);
    // ARMv7 ldrex/strex
    let a = "__asm__ __volatile__(\"@ atomic_add\\n1: ldrex %0, [%3]\\n add %0, %0, %4\\n strex %1, %0, [%3]\\n teq %1, #0\\n bne 1b\" : \"=&r\" (t1), \"=&r\" (t2), \"+Qo\" (x) : \"r\" (px), \"Ir\" (a) : \"cc\");";
    let a = a.replace("@ atomic_add\\n", "");
    assert_eq!(rmws(&a, v7).0, [(RmwOp::FetchAdd, Relaxed)]);
    // plain ldr/str and Power lwz/stw
    let (r, b) = rmws("asm volatile(\"ldr %0, [%1]\" : \"=r\" (t1) : \"r\" (px));", v7);
    assert!(r.is_empty() && b.ends_with("__weakc_tmp0 = *px;\nt1 = __weakc_tmp0;\n"), "{b}");
    let (r, b) = rmws("asm volatile(\"stw%U0%X0 %1,%0\" : \"=m\" (x) : \"r\" (a));", ppc);
    assert!(r.is_empty() && b.ends_with("*&x = a;\n"), "{b}");
}

#[test]
fn asm_of_another_architecture_or_unknown_is_a_warning_and_nondeterministic() {
    // x86 assembly analysed for Power
    let (b, w) = asm_body("int x;", "int d = 1;\n__asm__ __volatile__(\"lock xaddl %1, %0\" : \"+m\" (x), \"+q\" (d) : : \"memory\");", Some(preprocess::Target::Ppc64le));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("4: ") && w[0].contains("x86 assembly, but the analysis is for ppc64le"), "{w:?}");
    assert_eq!(b, "d = 1;\nskip;\n__weakc_tmp0 = *&x;\n*&x = nondet();\nd = nondet();\n");
    // unknown instructions: "=m" written, "m" read, "=r" arbitrary, no fence
    let (b, w) = asm_body("int x, y, r;", "asm volatile(\"frobnicate %0, %1, %2\" : \"=m\" (x), \"=r\" (r) : \"m\" (y) : \"memory\");", None);
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("`frobnicate %0, %1, %2` treated as unknown"), "{w:?}");
    assert_eq!(b, "skip;\n__weakc_tmp0 = *&y;\n*&x = nondet();\nr = nondet();\n");
    // a pointer input with a "memory" clobber: the object it points to may be updated
    let (b, _) = asm_body("int x;", "asm volatile(\"frob (%0)\" : : \"r\" (&x) : \"memory\");", None);
    assert_eq!(b, "skip;\n__weakc_tmp0 = *&x;\n*&x = nondet();\n");
    // bad operand references are not errors either
    let (_, w) = asm_body("int x;", "asm volatile(\"movl %5, %0\" : \"=m\" (x));", None);
    assert!(w[0].contains("operand %5 does not exist"), "{w:?}");
    // an empty template passes tied values through
    let b = asm_ok("int x;", "int a = 1, r;\nasm(\"\" : \"=r\" (r) : \"0\" (a));", None);
    assert_eq!(b, "a = 1;\nr = nondet();\nr = a;\n");
}

#[test]
fn builtin_fences() {
    let m = main_body(
        "int main() { __sync_synchronize(); __atomic_thread_fence(__ATOMIC_SEQ_CST); __atomic_thread_fence(__ATOMIC_ACQUIRE);\n __atomic_thread_fence(__ATOMIC_RELEASE); __atomic_thread_fence(__ATOMIC_ACQ_REL); __atomic_thread_fence(__ATOMIC_RELAXED); __atomic_signal_fence(__ATOMIC_SEQ_CST); __atomic_thread_fence(5); return 0; }",
    );
    assert_eq!(
        m,
        "fence(full barrier);\nfence(full barrier);\nfence(acquire barrier);\nfence(release barrier);\nfence(acquire/release barrier);\nfence(compiler barrier);\nfence(compiler barrier);\nfence(full barrier);\nreturn 0;\n"
    );
}

#[test]
fn rmw_builtins() {
    let p = lower(
        r#"int x; long l; _Bool ok;
int main() {
  int r, e = 0;
  r = __sync_fetch_and_add(&x, 1);
  __sync_fetch_and_sub(&x, 2);
  r = __sync_and_and_fetch(&x, 3) + 1;
  r = __sync_val_compare_and_swap(&x, 0, 1);
  ok = __sync_bool_compare_and_swap(&x, 1, 2);
  r = __sync_lock_test_and_set(&x, 1);
  __sync_lock_release(&x);
  r = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
  __atomic_store_n(&x, 5, __ATOMIC_RELEASE);
  r = __atomic_exchange_n(&x, 6, __ATOMIC_ACQ_REL);
  l = __atomic_fetch_or(&l, 8, __ATOMIC_RELAXED);
  r = __atomic_xor_fetch(&x, 1, __ATOMIC_SEQ_CST);
  ok = __atomic_compare_exchange_n(&x, &e, 7, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
  r = __sync_fetch_and_nand(&x, 1);
  return r;
}"#,
    );
    let m = body(&p, "main");
    let expect = "\
r = rmw FetchAdd(&x, 1, SeqCst);
rmw FetchSub(&x, 2, SeqCst);
__weakc_tmp0 = rmw AndFetch(&x, 3, SeqCst);
r = (__weakc_tmp0 + 1);
r = rmw CasVal(&x, 1, expected 0, SeqCst);
ok = rmw CasBool(&x, 2, expected 1, SeqCst);
r = rmw Exchange(&x, 1, Acquire);
rmw Store(&x, 0, Release);
r = rmw Load(&x, 0, Acquire);
rmw Store(&x, 5, Release);
r = rmw Exchange(&x, 6, AcqRel);
l = rmw FetchOr(&l, 8, Relaxed);
r = rmw XorFetch(&x, 1, SeqCst);
ok = rmw CompareExchange(&x, 7, expected &e, SeqCst);
r = rmw FetchNand(&x, 1, SeqCst);
return r;
";
    assert!(m.ends_with(expect), "{m}");
    // a memory order that is not a constant: relaxed (the weakest), with a warning there
    let p = lower("int x; int main(int o) {\n return __atomic_load_n(&x, o);\n}");
    assert!(crate::frontend::dump::dump(&p).contains("rmw Load(&x, 0, Relaxed)"));
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert_eq!(p.warnings[0].0.line, 2);
    assert!(p.warnings[0].1.contains("not a compile-time constant"));
}

#[test]
fn c11_atomics_through_the_stdatomic_shim() {
    let p = lower(
        r#"#include <stdatomic.h>
atomic_int x = ATOMIC_VAR_INIT(0);
_Atomic int y;
int main() {
  int e = 0;
  atomic_store_explicit(&x, 1, memory_order_release);
  int r = atomic_load_explicit(&y, memory_order_acquire);
  atomic_thread_fence(memory_order_seq_cst);
  r = atomic_fetch_add(&x, 2);
  _Bool ok = atomic_compare_exchange_strong(&x, &e, 3);
  atomic_store(&y, r + ok);
  return r;
}"#,
    );
    assert_eq!(
        body(&p, "main"),
        "e = 0;\nrmw Store(&x, 1, Release);\nr = rmw Load(&y, 0, Acquire);\nfence(full barrier);\nr = rmw FetchAdd(&x, 2, SeqCst);\nok = rmw CompareExchange(&x, 3, expected &e, SeqCst);\nrmw Store(&y, (r + (i32)ok), SeqCst);\nreturn r;\n"
    );
}

// ----- types -----

#[test]
fn types_and_sizeof() {
    let p = lower(
        r#"typedef unsigned long size_t;
typedef struct { char c; int i; } S1;
struct S2 { char c; double d; short s; };
union U { char c[5]; int i; };
struct N { struct { int a; char b; } inner; long l[3]; };
enum E { A, B = 10, C };
typedef int (*fp_t)(int, char *);
struct L { int v; struct L *next; };
size_t sz[] = { sizeof(char), sizeof(short), sizeof(int), sizeof(long), sizeof(long long), sizeof(void *),
  sizeof(S1), sizeof(struct S2), sizeof(union U), sizeof(struct N), sizeof(int[3][4]), sizeof(_Bool),
  sizeof(float), sizeof(double), sizeof(fp_t), sizeof(struct L), C, sizeof(enum E) };
signed char sc; unsigned char uc; short sh; unsigned short us; unsigned u; long long ll; unsigned long long ull;
int m[2][3]; float f; double d; fp_t fp; struct L node; union U un; enum E en; _Bool bo;
int main() { sc = uc = sh = us = u = ll = ull = m[1][2] = en = bo = 0; f = 1.5f; d = 2.0; node.next = &node; un.i = 1; fp = 0; return sz[0]; }
"#,
    );
    let Some(Init::List(items)) = &var(&p, "sz").init else { panic!() };
    let vals: Vec<i128> = items
        .iter()
        .map(|i| match i {
            Init::Expr(Expr { kind: ExprKind::Const(v), .. }) => *v,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(vals, vec![1, 2, 4, 8, 8, 8, 8, 24, 8, 32, 48, 1, 4, 8, 8, 16, 11, 4]);
    assert_eq!(var(&p, "sz").ty, Type::Array(Box::new(Type::ULONG), Some(18)));
    let ty = |n: &str| var(&p, n).ty.clone();
    assert_eq!(ty("sc"), Type::CHAR);
    assert_eq!(ty("uc"), Type::Int { bits: 8, signed: false });
    assert_eq!(ty("sh"), Type::Int { bits: 16, signed: true });
    assert_eq!(ty("us"), Type::Int { bits: 16, signed: false });
    assert_eq!(ty("u"), Type::UINT);
    assert_eq!(ty("ll"), Type::LONG);
    assert_eq!(ty("ull"), Type::ULONG);
    assert_eq!(ty("m"), Type::Array(Box::new(Type::Array(Box::new(Type::INT), Some(3))), Some(2)));
    assert_eq!(ty("f"), Type::Float { bits: 32 });
    assert_eq!(ty("d"), Type::Float { bits: 64 });
    // GCC: `unsigned int` for an enum without negative values.
    assert_eq!(ty("en"), Type::UINT);
    assert_eq!(ty("bo"), Type::Bool);
    assert_eq!(ty("fp"), Type::ptr_to(Type::Func(Box::new(FuncType { ret: Type::INT, params: vec![Type::INT, Type::ptr_to(Type::CHAR)], variadic: false }))));
    let Type::Struct(l) = ty("node") else { panic!() };
    let sd = p.strukt(l);
    assert_eq!(sd.tag, "L");
    assert_eq!(sd.fields[1].ty, Type::ptr_to(Type::Struct(l)));
    let Type::Struct(u) = ty("un") else { panic!() };
    assert!(p.strukt(u).is_union);
    let m = body(&p, "main");
    assert!(m.contains("m[1][2] = 0;"), "{m}");
    assert!(m.contains("node.next = &node;"), "{m}");
    assert!(m.contains("f = 1.5f;"), "{m}");
    assert!(var(&p, "node").address_taken);
}

#[test]
fn offsetof_and_static_assert() {
    let m = main_body("#include <stddef.h>\nstruct s { char c; int x; long y; };\nint main() {\n  _Static_assert(sizeof(struct s) == 16, \"size\");\n  return offsetof(struct s, y);\n}\n");
    assert_eq!(m, "return 8;\n");
    let e = lower_err("int main() {\n  _Static_assert(sizeof(int) == 8, \"int is 8 bytes\");\n  return 0;\n}\n");
    assert!(matches!(e, Error::Syntax { .. }) && line_of(&e) == 2, "{e:?}");
}

#[test]
fn anonymous_structs_and_members() {
    let p = lower(
        r#"struct T { int k; union { int a; char b; }; struct { int c; } named; };
struct T t;
int main() { t.a = 1; t.named.c = 2; return t.b; }"#,
    );
    let Type::Struct(id) = var(&p, "t").ty else { panic!() };
    let sd = p.strukt(id);
    assert_eq!(sd.fields[1].name, "__anon_member0");
    let Type::Struct(inner) = sd.fields[1].ty else { panic!() };
    assert!(p.strukt(inner).tag.starts_with("__anon") && p.strukt(inner).is_union);
    assert_eq!(body(&p, "main"), "t.__anon_member0.a = 1;\nt.named.c = 2;\nreturn (i32)t.__anon_member0.b;\n");
}

#[test]
fn typedef_enum_and_struct_shadowing() {
    let p = lower(
        r#"typedef int T;
enum { X = 3, Y };
int main() {
  T a = Y;
  { typedef char T; T b = 1; a = a + b; }
  { int a = 5; a++; }
  return a;
}"#,
    );
    assert_eq!(body(&p, "main"), "a = 4;\n{\nb = 1;\na = (a + (i32)b);\n}\n{\na$1 = 5;\na$1 = (a$1 + 1);\n}\nreturn a;\n");
    assert_eq!(var(&p, "b").ty, Type::CHAR);
}

#[test]
fn static_locals_and_initialisers() {
    let p = lower(
        r#"struct P { int x; int y[2]; };
struct P gp = { .y = { [1] = 7 }, .x = 3 };
int ga[2][2] = { 1, 2, 3 };
char gs[] = "hi";
int *gptr = &ga[1][0];
struct P gq[] = { [2].x = 1 };
int counter() { static int n = 5; n++; return n; }
int main() {
  int a[3] = { 1, 2 };
  struct P p = { 4, { 5 } };
  char s[4] = "ab";
  int u;
  struct P q;
  int *pp;
  return counter() + a[0] + p.x + s[0] + u + gp.x + ga[0][0] + gs[0] + *gptr + gq[0].x;
}"#,
    );
    let init = |n: &str| {
        let v = var(&p, n);
        super::dump::dump(&Program { globals: vec![], ..p.clone() });
        match &v.init {
            Some(i) => init_s(&p, i),
            None => "-".into(),
        }
    };
    fn init_s(p: &Program, i: &Init) -> String {
        match i {
            Init::Expr(e) => expr_str(p, e),
            Init::List(l) => format!("{{{}}}", l.iter().map(|i| init_s(p, i)).collect::<Vec<_>>().join(",")),
        }
    }
    assert_eq!(init("gp"), "{3,{{},7}}");
    assert_eq!(init("ga"), "{{1,2},{3}}");
    assert_eq!(init("gs"), "{104,105,0}");
    assert_eq!(var(&p, "gs").ty, Type::Array(Box::new(Type::CHAR), Some(3)));
    assert_eq!(init("gptr"), "&ga[1][0]");
    assert_eq!(var(&p, "gq").ty.clone(), Type::Array(Box::new(var(&p, "gp").ty.clone()), Some(3)));
    assert_eq!(init("gq"), "{{},{},{1}}");
    let n = var(&p, "counter$n");
    assert!(n.is_global());
    assert_eq!(init("counter$n"), "5");
    assert!(p.globals.contains(&p.vars.iter().position(|v| v.name == "counter$n").map(|i| VarId(i as u32)).unwrap()));
    assert_eq!(body(&p, "counter"), "counter$n = (counter$n + 1);\nreturn counter$n;\n");
    let m = body(&p, "main");
    assert!(
        m.starts_with("a[0] = 1;\na[1] = 2;\na[2] = 0;\np.x = 4;\np.y[0] = 5;\np.y[1] = 0;\ns[0] = 97;\ns[1] = 98;\ns[2] = 0;\ns[3] = 0;\nu = nondet();\npp = nondet();\n"),
        "{m}"
    );
}

#[test]
fn variable_length_arrays() {
    let p = lower("int n = 3;\nint main() { int a[n + 1]; a[2] = 5; int *q = a; return a[2] + *q; }");
    assert_eq!(
        body(&p, "main"),
        "__weakc_tmp0 = __builtin_alloca(((u64)(n + 1) * 4));\na = (i32*)__weakc_tmp0;\n*(a + 2) = 5;\nq = a;\nreturn (*(a + 2) + *q);\n"
    );
    assert_eq!(var(&p, "a").ty, Type::ptr_to(Type::INT));
    let e = lower_err("int n = 3;\nint main() {\n int a[n][n];\n return 0;\n}");
    assert!(matches!(e, Error::Unsupported { .. }) && line_of(&e) == 3, "{e:?}");
}

// ----- control flow -----

#[test]
fn loops() {
    let m = main_body(
        "int g;\nint main() { int i = 0; while (i < 3) { i++; if (g) continue; } for (i = 0; i < 2; i++) { if (i) break; } do { i--; } while (i > 0); for (;;) { break; } while (1) { break; } return i; }",
    );
    assert_eq!(
        m,
        "i = 0;\nloop {\nif (!(i < 3)) {\nbreak;\n}\ni = (i + 1);\nif (g) {\ncontinue;\n}\n}\n\
i = 0;\nloop {\nif (!(i < 2)) {\nbreak;\n}\nif (i) {\nbreak;\n}\n} latch {\ni = (i + 1);\n}\n\
loop {\ni = (i - 1);\n} latch {\nif (!(i > 0)) {\nbreak;\n}\n}\n\
loop {\nbreak;\n}\nloop {\nbreak;\n}\nreturn i;\n"
    );
    // The condition's side effects are re-evaluated in the loop head.
    let m = main_body("int f(); int main() { while (f()) { } return 0; }");
    assert_eq!(m, "loop {\n__weakc_tmp0 = f();\nif (!__weakc_tmp0) {\nbreak;\n}\n}\nreturn 0;\n");
}

#[test]
fn switch_lowering() {
    let m = main_body(
        "int g;\nint main() { int r = 0;\n switch (g) { case 1: r = 1; case 2: r += 2; break; default: r = 9; break; case 3: { r = 3; } }\n return r; }",
    );
    assert_eq!(
        m,
        "r = 0;\n__weakc_tmp0 = g;\nif ((__weakc_tmp0 == 1)) {\ngoto L1;\n}\nif ((__weakc_tmp0 == 2)) {\ngoto L2;\n}\nif ((__weakc_tmp0 == 3)) {\ngoto L4;\n}\ngoto L3;\n\
L1: // __weakc_case1\nr = 1;\nL2: // __weakc_case2\nr = (r + 2);\ngoto L0;\nL3: // __weakc_default3\nr = 9;\ngoto L0;\nL4: // __weakc_case4\n{\nr = 3;\n}\nL0: // __weakc_switch_end0\nreturn r;\n"
    );
    // break inside a loop inside a switch leaves the loop; continue inside a switch continues.
    let m = main_body("int main() { int i; for (i = 0; i < 3; i++) { switch (i) { case 0: continue; default: while (1) break; } } return 0; }");
    assert!(m.contains("L1: // __weakc_case1\ncontinue;\nL2: // __weakc_default2\nloop {\nbreak;\n}\nL0:"), "{m}");
}

#[test]
fn gotos() {
    let p = lower("int x;\nint main() { if (x) goto out; x = 1; out: x = 2; return 0; }");
    assert_eq!(body(&p, "main"), "if (x) {\ngoto L0;\n}\nx = 1;\nL0: // out\nx = 2;\nreturn 0;\n");
    // A backward goto to a label of an enclosing block is a loop.
    let m = main_body("int x;\nint main() {\n again: x++;\n if (x < 3) goto again;\n return x; }");
    assert_eq!(m, "loop {\nL0: // again\nx = (x + 1);\nif ((x < 3)) {\ncontinue;\n}\nreturn x;\nbreak;\n}\n");
    // SV-COMP's `goto ERROR` back to a block that ends the path: the block is copied.
    let m = main_body("void reach_error();void abort();int x;\nint main() { if (x) { ERROR: {reach_error(); abort();} }\n if (!x) goto ERROR;\n return 0; }");
    assert!(m.contains("if (!x) {\n{\nassert(0); // reach_error()\nassume(0);\n}\n}"), "{m}");
    // Other backward gotos are unsupported.
    let e = lower_err("int x;\nint main() {\n { L: x++; }\n while (x) {\n  goto L;\n }\n return 0;\n}");
    assert!(matches!(e, Error::Unsupported { .. }) && line_of(&e) == 5, "{e:?}");
    let e = lower_err("int x;\nint main() {\n L: x++;\n while (x) {\n  if (x > 2) goto L;\n }\n return 0;\n}");
    assert!(matches!(e, Error::Unsupported { .. }) && line_of(&e) == 5, "{e:?}");
    let e = lower_err("int main() {\n  void *p = &&l;\n  goto *p;\n l: return 0;\n}\n");
    match &e {
        Error::Unsupported { loc, msg } => assert!(loc.line == 3 && msg.contains("computed goto"), "{msg}"),
        e => panic!("{e:?}"),
    }
    let e = lower_err("int main(int x) {\n  switch (x) {\n  case 1 ... 3: return 1;\n  }\n  return 0;\n}\n");
    assert!(matches!(e, Error::Unsupported { .. }) && line_of(&e) == 3, "{e:?}");
    let e = lower_err("int main() {\n goto nowhere;\n}");
    assert!(matches!(e, Error::Syntax { .. }) && line_of(&e) == 2, "{e:?}");
}

#[test]
fn recursion_is_rejected() {
    let e = lower_err("int f(int n) {\n  if (n) return f(n - 1);\n  return 0;\n}\nint main() { return f(3); }");
    assert!(matches!(e, Error::Unsupported { .. }) && line_of(&e) == 2, "{e:?}");
    let e = lower_err("int g(int);\nint f(int n) { return g(n); }\nint g(int n) {\n  return n ? f(n - 1) : 0;\n}\nint main() { return f(3); }");
    assert!(matches!(e, Error::Unsupported { .. }) && line_of(&e) == 4, "{e:?}");
    // Recursion in an unused function does not matter.
    lower("int f(int n) { return f(n); }\nint main() { return 0; }");
}

// ----- expressions -----

#[test]
fn side_effects_are_lowered() {
    let m = main_body("int g; int f(int); int main() { int a = 1, b; b = a++ + ++a; b = (a = 3) * 2; b += f(a) * f(b); a = 1, b = 2; return a; }");
    assert_eq!(
        m,
        "a = 1;\nb = nondet();\n__weakc_tmp0 = a;\na = (__weakc_tmp0 + 1);\n__weakc_tmp1 = (a + 1);\na = __weakc_tmp1;\nb = (__weakc_tmp0 + __weakc_tmp1);\n\
a = 3;\nb = 6;\n__weakc_tmp2 = f(a);\n__weakc_tmp3 = f(b);\nb = (b + (__weakc_tmp2 * __weakc_tmp3));\na = 1;\nb = 2;\nreturn a;\n"
    );
}

#[test]
fn short_circuit_and_conditional() {
    // Pure operands on locals stay expressions.
    let m = main_body("int main() { int a = 1, b = 2, c; c = a && b; c = a || !b; c = a ? b : 3; return c; }");
    assert!(m.contains("c = (a && b);\nc = (a || !b);\nc = (a ? b : 3);"), "{m}");
    // Reads of globals or through pointers on the right become ifs.
    let m = main_body("int g; int *p; int main() { int a = 1, c; c = a && g; c = a || *p; c = a ? g : 3; return c; }");
    assert!(
        m.contains(
            "if (a) {\n__weakc_tmp0 = (g != 0);\n} else {\n__weakc_tmp0 = 0;\n}\nc = __weakc_tmp0;\n\
if (a) {\n__weakc_tmp1 = 1;\n} else {\n__weakc_tmp1 = (*p != 0);\n}\nc = __weakc_tmp1;\n\
if (a) {\n__weakc_tmp2 = g;\n} else {\n__weakc_tmp2 = 3;\n}\nc = __weakc_tmp2;\n"
        ),
        "{m}"
    );
    // Calls on the right are only made when needed.
    let m = main_body("int f(); int main() { int a = 0; if (a && f()) a = 2; a || f(); return a; }");
    assert!(m.contains("if (a) {\n__weakc_tmp0 = f();\n__weakc_tmp1 = (__weakc_tmp0 != 0);\n} else {\n__weakc_tmp1 = 0;\n}\nif (__weakc_tmp1) {\na = 2;\n}\nif (a) {\n} else {\nf();\n}"), "{m}");
    // Left operand reading a global is evaluated before the right's side effects.
    let m = main_body("int g; int f(); int main() { int r = g + f(); return r; }");
    assert_eq!(m, "__weakc_tmp1 = g;\n__weakc_tmp0 = f();\nr = (__weakc_tmp1 + __weakc_tmp0);\nreturn r;\n");
}

#[test]
fn pointers_members_indexing() {
    let p = lower(
        "struct S { int a; int b[4]; struct S *n; };\nstruct S s; int arr[5];\nint main() { struct S *p = &s; int *q = arr; p->n->a = 1; p->b[2] = 3; q[1] = 4; arr[2] = *q; 2[q] = 0; return *(q + 1); }",
    );
    let m = body(&p, "main");
    assert_eq!(m, "p = &s;\nq = &arr[0];\np->n->a = 1;\np->b[2] = 3;\n*(q + 1) = 4;\narr[2] = *q;\n*(q + 2) = 0;\nreturn *(q + 1);\n");
    assert!(var(&p, "arr").address_taken && var(&p, "s").address_taken);
    assert!(!var(&p, "q").address_taken);
    // p->n->a is Member(Deref(Member(Deref(p)))).
    let s = stmts_of(&p, "main")[2];
    let StmtKind::Assign { lhs, .. } = &s.kind else { panic!() };
    let ExprKind::Member(d, 0) = &lhs.kind else { panic!("{lhs:?}") };
    assert!(matches!(&d.kind, ExprKind::Deref(inner) if matches!(inner.kind, ExprKind::Member(..))));
}

#[test]
fn implicit_conversions_are_explicit() {
    let p = lower("int main() { char c = 'a'; unsigned u = 1; long l; l = c + u; c = l; unsigned char uc = -1; return u < -1; }");
    let m = body(&p, "main");
    assert!(m.contains("l = (i64)((u32)c + u);\nc = (i8)l;\nuc = 255;\nreturn (u < 4294967295);\n"), "{m}");
}

#[test]
fn function_pointers() {
    let p = lower("int inc(int x) { return x + 1; }\nint (*fp)(int) = inc;\nint main() { int (*g)(int) = &inc; return fp(1) + (*g)(2); }");
    assert_eq!(body(&p, "main"), "g = &inc;\n__weakc_tmp0 = (*fp)(1);\n__weakc_tmp1 = (*g)(2);\nreturn (__weakc_tmp0 + __weakc_tmp1);\n");
    assert!(p.func(p.func_by_name("inc").unwrap()).body.is_some());
}

#[test]
fn only_reachable_functions_are_lowered() {
    let p = lower(
        "int unused() { return __builtin_va_arg_pack(); }\nint helper() { return 1; }\nint ext(int);\nint (*tbl[1])(void) = { 0 };\nint main() { return helper() + ext(2); }",
    );
    assert!(p.func_by_name("unused").is_none());
    let ext = p.func(p.func_by_name("ext").unwrap());
    assert!(ext.body.is_none() && ext.params.is_empty());
    assert!(p.vars.iter().all(|v| v.name != "tbl"));
}

// ----- locations -----

#[test]
fn locations_point_at_the_users_file() {
    let src = "#include <stdio.h>\n#define SET(v) x = v\nint x;\nint main() {\n  SET(1);\n  if (x)\n    printf(\"%d\\n\", x);\n  return 0;\n}\n";
    let mut map = SourceMap::default();
    let p = load_str("loc.c", src, &Options::default(), &mut map).unwrap();
    let ss = stmts_of(&p, "main");
    let lines: Vec<u32> = ss.iter().map(|s| s.loc.line).collect();
    assert_eq!(lines, vec![5, 6, 7, 8]);
    for s in &ss {
        assert_eq!(map.name(s.loc), "loc.c");
    }
    assert_eq!((ss[1].loc.col, ss[1].loc.len), (2, 6));
    assert_eq!((ss[3].loc.col, ss[3].loc.len), (2, 9));
    assert!(ss.iter().all(|s| s.id != 0));
    let printf = p.func(p.func_by_name("printf").unwrap());
    assert!(printf.body.is_none() && printf.ty.variadic);
}

#[test]
fn line_markers_are_followed_without_preprocessing() {
    let src = "# 1 \"orig.c\"\nint x;\n# 10 \"orig.c\"\nint main() {\n  x = 1;\n  return 0;\n}\n";
    let mut map = SourceMap::default();
    let p = load_str("t.i", src, &Options::default(), &mut map).unwrap();
    let ss = stmts_of(&p, "main");
    assert_eq!(map.name(ss[0].loc), "orig.c");
    assert_eq!(ss[0].loc.line, 11);
}

// ----- errors -----

#[test]
fn malformed_c_is_a_syntax_error_at_its_line() {
    let e = lower_err("int x;\nint main() {\n  x = = 1;\n  return 0;\n}\n");
    assert!(matches!(e, Error::Syntax { .. }), "{e:?}");
    assert_eq!(line_of(&e), 3);
    let e = lower_err("int x\nint main() { return 0; }\n");
    assert!(matches!(e, Error::Syntax { .. }), "{e:?}");
    let e = lower_err("int main() {\n  return y;\n}\n");
    assert!(matches!(e, Error::Syntax { .. }) && line_of(&e) == 2, "{e:?}");
    // A struct definition alone at file scope (it was lowered without its error).
    let e = lower_err("int x;\nstruct s { unsigned a : 3, ; char b; };\nint main() { return 0; }\n");
    assert!(matches!(e, Error::Syntax { .. }) && line_of(&e) == 2, "{e:?}");
}

#[test]
fn syntax_errors_in_unused_functions() {
    // Malformed C is reported even in a function main does not use...
    let e = lower_err("int unused() {\n  return 1 +;\n}\nint main() { return 0; }\n");
    assert!(matches!(e, Error::Syntax { .. }) && line_of(&e) == 2, "{e:?}");
    // `typeof` (the Linux kernel's container_of) is understood, used or not.
    let src = "struct s { int a; int b; };\nint helper(int *p) {\n  const typeof( ((struct s *)0)->b ) *q = p;\n  return *q;\n}\n";
    lower(&format!("{src}int main() {{ return 0; }}\n"));
    lower(&format!("{src}int main() {{ int v = 0; return helper(&v); }}\n"));
}

// ----- GNU and C11 constructs of real headers -----

fn var_type(p: &Program, name: &str) -> Type {
    p.vars.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}:\n{}", dump(p))).ty.clone()
}

#[test]
fn typeof_of_expressions_and_type_names() {
    let p = lower(
        "struct s { int a; long b; };\nstruct s g;\nint main() {\n  __typeof__(g.b) x = 1;\n  typeof(int *) p = 0;\n  __typeof(x) *q = &x;\n  const __typeof__(__typeof__(g) *) r = &g;\n  unsigned char c = 0;\n  typeof(c + 1) d = 2;\n  return (int)(x + *q) + (p == 0) + r->a + d + (int)sizeof(__typeof__(g.a));\n}\n",
    );
    assert_eq!(var_type(&p, "x"), Type::LONG);
    assert_eq!(var_type(&p, "p"), Type::ptr_to(Type::INT));
    assert_eq!(var_type(&p, "q"), Type::ptr_to(Type::LONG));
    assert!(matches!(var_type(&p, "r"), Type::Ptr(t) if matches!(*t, Type::Struct(_))));
    // Integer promotion happens in the operand, as in GCC.
    assert_eq!(var_type(&p, "d"), Type::INT);
    // typeof does not evaluate its operand.
    let b = main_body("int n;\nint f(void) { n++; return n; }\nint main() { typeof(f()) v = 3; return v; }\n");
    assert!(!b.contains("f("), "{b}");
}

#[test]
fn auto_type_takes_the_initialisers_type() {
    let p = lower("long g(void) { return 5; }\nint main() {\n  int a[3] = {1, 2, 3};\n  __auto_type x = g();\n  __auto_type y = a, z = 'c';\n  return (int)x + y[1] + z;\n}\n");
    assert_eq!(var_type(&p, "x"), Type::LONG);
    assert_eq!(var_type(&p, "y"), Type::ptr_to(Type::INT));
    assert_eq!(var_type(&p, "z"), Type::INT);
    let e = lower_err("int main() {\n  __auto_type x;\n  return 0;\n}\n");
    assert!(matches!(e, Error::Syntax { .. }) && line_of(&e) == 2, "{e:?}");
}

#[test]
fn atomic_objects_are_their_type_and_listed() {
    let p = lower(
        "typedef _Atomic int aint;\n_Atomic(int) a;\n_Atomic long b;\nint *_Atomic c;\n_Atomic int *d;\naint e;\n_Atomic(int *) f;\nint main() {\n  _Atomic(unsigned) l = 1;\n  a = 1; b = 2; c = 0; d = 0; e = 3; f = 0;\n  return a + (int)b + e + (int)l;\n}\n",
    );
    assert_eq!(var_type(&p, "a"), Type::INT);
    assert_eq!(var_type(&p, "b"), Type::LONG);
    assert_eq!(var_type(&p, "f"), Type::ptr_to(Type::INT));
    assert_eq!(var_type(&p, "l"), Type::UINT);
    let mut atomic: Vec<&str> = p.atomic_vars.iter().map(|v| p.var(*v).name.as_str()).collect();
    atomic.sort();
    assert_eq!(atomic, vec!["a", "b", "c", "e", "f", "l"]);
    // Plain accesses stay plain assignments.
    let b = body(&p, "main");
    assert!(b.contains("a = 1;"), "{b}");
}

#[test]
fn statement_expressions_keep_their_effects_in_order() {
    let b = main_body("int x;\nint main() {\n  int y = ({ x = x + 1; x * 2; }) + __extension__ ({ x = 5; x; });\n  return y;\n}\n");
    let first = b.find("x = (x + 1)").unwrap_or_else(|| panic!("{b}"));
    let second = b.find("x = 5").unwrap_or_else(|| panic!("{b}"));
    assert!(first < second, "{b}");
}

#[test]
fn static_asserts_are_checked() {
    lower("_Static_assert(sizeof(long) == 8, \"LP64\");\nint main() { _Static_assert(1, \"one\"); return 0; }\n");
    let e = lower_err("int x;\n_Static_assert(sizeof(int) == 2, \"int has 16 bits\");\nint main() { return 0; }\n");
    assert!(matches!(&e, Error::Syntax { msg, .. } if msg.contains("int has 16 bits")) && line_of(&e) == 2, "{e:?}");
    let e = lower_err("int main() {\n  _Static_assert(sizeof(char) == 2, \"char\");\n  return 0;\n}\n");
    assert!(matches!(&e, Error::Syntax { msg, .. } if msg.contains("static assertion failed: char")) && line_of(&e) == 2, "{e:?}");
}

#[test]
fn builtins_of_headers() {
    let b = main_body(
        "#include <stddef.h>\nstruct s { char c; long l; int i; };\nint n;\nint main() {\n  if (__builtin_expect(n > 3, 0)) __builtin_unreachable();\n  return (int)(offsetof(struct s, l) + __builtin_offsetof(struct s, i));\n}\n",
    );
    assert!(b.contains("return 24;") || b.contains("24"), "{b}");
    assert!(!b.contains("__builtin_expect"), "{b}");
    // unreachable ends the path like abort.
    let abort = main_body("int n;\nint main() {\n  if (n > 3) __builtin_abort();\n  return 0;\n}\n");
    assert_eq!(b.lines().filter(|l| l.contains("assume") || l.contains("abort")).count(), abort.lines().filter(|l| l.contains("assume") || l.contains("abort")).count(), "{b}\n{abort}");
}

#[test]
fn attributes_and_unused_int128() {
    lower(
        "struct __attribute__((packed)) p { int a; } __attribute__((aligned(4)));\nstatic __int128 wide;\nextern unsigned __int128 f128(unsigned __int128);\n__attribute__((noinline)) int f(int x __attribute__((unused))) { return 1; }\nint main() { __attribute__((unused)) int v = f(1); int w __attribute__((aligned(8))) = v; return w; }\n",
    );
}

#[test]
fn errors_in_headers_name_the_header() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("h.h"), "static inline int ok(int a) { return a; }\n\nstatic inline int bad(int a) { return a @ 2; }\n").unwrap();
    let main = d.path().join("m.c");
    std::fs::write(&main, "#include \"h.h\"\nint main() { return bad(1); }\n").unwrap();
    let mut map = SourceMap::default();
    let e = load_file(&main, &Options::default(), &mut map).unwrap_err();
    let Error::Syntax { loc, .. } = &e else { panic!("{e:?}") };
    assert!(map.name(*loc).ends_with("h.h"), "{}", map.name(*loc));
    assert_eq!(loc.line, 3);
    let text = e.render(&map, false);
    assert!(text.contains("h.h:3:") && !text.contains("<unknown>"), "{text}");
}

#[test]
fn target_macros_select_header_branches() {
    use super::preprocess::Target;
    let src = "#if defined(__aarch64__) && __ARM_ARCH == 8\nint arch = 2;\n#elif defined(__x86_64__)\nint arch = 1;\n#else\nint arch = 0;\n#endif\n#include <pthread.h>\n#include <stdint.h>\n#include <assert.h>\nint main() { assert(sizeof(intptr_t) == 8); return arch; }\n";
    let arch_of = |t: Option<Target>| {
        let mut map = SourceMap::default();
        let opts = Options { target: t, ..Options::default() };
        let p = load_str("t.c", src, &opts, &mut map).unwrap_or_else(|e| panic!("{t:?}: {}", e.render(&map, false)));
        let v = p.vars.iter().find(|v| v.name == "arch").expect("arch");
        format!("{:?}", v.init)
    };
    assert!(arch_of(Some(Target::Aarch64)).contains("Const(2)"), "{}", arch_of(Some(Target::Aarch64)));
    assert!(arch_of(Some(Target::X86_64)).contains("Const(1)"));
    for t in [Target::Ppc64le, Target::Armv7a, Target::Sparc64] {
        assert!(arch_of(Some(t)).contains("Const(0)"), "{t:?}");
    }
    assert_eq!(Target::for_memory_model("pso"), Target::Sparc64);
    assert_eq!(Target::for_memory_model("power-esop"), Target::Ppc64le);
    assert_eq!(Target::for_memory_model("sc"), Target::X86_64);
}

#[test]
fn unsupported_construct_at_its_line() {
    let e = lower_err("int main() {\n  int x = 0;\n  x = _Generic(x, int: 1, default: 0);\n  return x;\n}\n");
    assert!(matches!(e, Error::Unsupported { .. }), "{e:?}");
    assert_eq!(line_of(&e), 3);
}

#[test]
fn system_header_problems_only_matter_when_used() {
    let hdr = "# 1 \"t.c\"\n# 1 \"/usr/include/h.h\" 1 3\ntypedef __builtin_va_list va_list;\nint vfoo(va_list ap);\nint bar(int);\nstruct bad { int x : ; };\n# 2 \"t.c\" 2\n";
    lower(&format!("{hdr}int main() {{ return bar(1); }}\n"));
    let e = lower_err(&format!("{hdr}int main() {{\n  return vfoo(0);\n}}\n"));
    match &e {
        Error::Unsupported { loc, msg } => {
            assert_eq!(loc.line, 3, "{msg}");
            assert!(msg.contains("/usr/include/h.h:1") && msg.contains("va_list"), "{msg}");
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn preprocessor_failure() {
    let e = lower_err("#include \"does_not_exist.h\"\nint main() { return 0; }\n");
    match e {
        Error::Preprocess { msg, .. } => assert!(msg.contains("does_not_exist.h"), "{msg}"),
        e => panic!("{e:?}"),
    }
    // With preprocessing disabled the directive is ignored.
    let mut map = SourceMap::default();
    let opts = Options { preprocess: Preprocess::Never, ..Default::default() };
    load_str("t.c", "#include \"does_not_exist.h\"\nint main() { return 0; }\n", &opts, &mut map).unwrap();
}

#[test]
fn load_file_and_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prog.c");
    std::fs::write(dir.path().join("local.h"), "#define N 2\nint shared;\n").unwrap();
    std::fs::write(&path, "#include \"local.h\"\nint main() {\n  shared = N;\n  return 0;\n}\n").unwrap();
    let mut map = SourceMap::default();
    let p = load_file(&path, &Options::default(), &mut map).unwrap();
    let s = stmts_of(&p, "main")[0];
    assert_eq!((map.name(s.loc), s.loc.line), (path.display().to_string().as_str(), 3));
    assert_eq!(map.line_text(s.loc), Some("shared = N;"));
    let g = var(&p, "shared");
    assert!(map.name(g.loc).ends_with("local.h") && g.loc.line == 2);
    let e = load_file(&dir.path().join("nope.c"), &Options::default(), &mut SourceMap::default()).unwrap_err();
    assert!(matches!(e, Error::Io { output: false, .. }), "{e:?}");
}

#[test]
fn defines_and_include_dirs_are_passed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("inc.h"), "int from_header;\n").unwrap();
    let mut map = SourceMap::default();
    let opts = Options { include_dirs: vec![dir.path().to_path_buf()], defines: vec!["VAL=42".into()], ..Default::default() };
    let p = load_str("t.c", "#include <inc.h>\nint main() { from_header = VAL; return 0; }\n", &opts, &mut map).unwrap();
    assert_eq!(body(&p, "main"), "from_header = 42;\nreturn 0;\n");
    let g = var(&p, "from_header");
    assert!(map.name(g.loc).ends_with("inc.h"));
}

#[test]
fn never_panics_on_garbage() {
    let samples = [
        "",
        "}",
        "int main(",
        "int main() { return (",
        "struct { int x; } main() { }",
        "int main() { int a[] ; a = 1; }",
        "int main() { goto *p; }",
        "int main() { case 1: ; }",
        "int main() { break; }",
        "int main() { int x = sizeof(struct nope); }",
        "int f(); int main() { return f(1,2)(3); }",
        "int main() { __sync_fetch_and_add(); }",
        "int main() { pthread_create(); }",
        "int main() { int x; x.y = 1; }",
        "void main() { return 1; }",
        "int main() { char c = '\\x'; char *s = \"\\\"; }",
        "int x = 1 / 0; int main() { return x; }",
        "int a[-1]; int main() { return a[0]; }",
        "int main() { switch (1) { case 1 ... 2: ; } }",
        "int main() { int i; for (int i = 0; ; ) { } }",
        "int g = ({ int y = 1; y; }); int main() { return g; }",
        "char a[] = {[100000000] = 1}; int main() { return a[0]; }",
        "char big[1L<<62][16]; int main() { return sizeof big; }",
        "int main() { return -340282366920938463463374607431768211455; }",
        "int main() { return 99999999999999999999999999999999999999999999999; }",
        "struct s { int x : 99999999999; }; int main() { return sizeof(struct s); }",
        "int main() { int a[3] = { [2] = 1, 5 }; return a[0]; }",
        "union u { int a; char b; } v = { .b = 1, 2 }; int main() { return v.a; }",
        "int main() { static int x = ({ 1; }); return x; }",
    ];
    for s in samples {
        let r = try_lower(s);
        assert!(!matches!(r, Err(Error::Internal(_))), "{s}: {r:?}");
    }
    // Absurd nesting is an error, not a stack overflow.
    for src in [
        format!("int x; int main() {{ return {}; }}", vec!["x"; 20000].join("+")),
        format!("int x; int main() {{ return {}x{}; }}", "(".repeat(20000), ")".repeat(20000)),
        format!("int x; int main() {{ {} x = 1; {} return 0; }}", "if (x) {".repeat(3000), "}".repeat(3000)),
    ] {
        let r = try_lower(&src);
        assert!(matches!(r, Err(Error::Unsupported { .. })), "{:?}", r.map(|_| ()));
    }
    // Every prefix of a real program.
    let prog = r#"#include <pthread.h>
int x, y; pthread_mutex_t m;
struct S { int a; char *p; } s = { 1, "x" };
void *t(void *arg) { int i; for (i = 0; i < 2; i++) { pthread_mutex_lock(&m); x = x ? y : i++; pthread_mutex_unlock(&m); } return arg; }
int main() { pthread_t id; pthread_create(&id, 0, t, &s); switch (x) { case 1: y = 2; default: break; } pthread_join(id, 0); __VERIFIER_assert(x >= 0 && y != 3); return 0; }
"#;
    let body_start = prog.find("int x").unwrap();
    for cut in (body_start..prog.len()).step_by(7) {
        let r = try_lower(&prog[..cut]);
        assert!(!matches!(r, Err(Error::Internal(_))), "cut {cut}: {r:?}");
    }
}
