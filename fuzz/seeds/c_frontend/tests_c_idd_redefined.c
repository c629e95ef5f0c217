typedef unsigned long pthread_t;
typedef struct { int lock; } pthread_mutex_t;
int pthread_create(pthread_t *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_unlock(pthread_mutex_t *m);
void assert(int c);
void __VERIFIER_assume(int c);
int __VERIFIER_nondet_int(void);
double __VERIFIER_nondet_double(void);
/* Dat3M's idd_dynamic.c in plain C: `s` holds the relaxed read of y unless r == 0, where it is
 * redefined, so the store of s to x depends on the read of y on one path only. On AArch64 the
 * store may then go before the read, and thread 2's copy of x into y lets u be 42. weakc
 * completes the read where `s` is redefined, which orders it before the store on both paths:
 * it cannot find the violation, and says so (UNKNOWN, not SUCCESSFUL). The axiomatic route of
 * `verify` (the default on aarch64) follows the dependency per path and finds it. */
atomic_int x, y, z;
void *t1(void *arg) {
  int r = atomic_load_explicit(&x, memory_order_relaxed);
  int s = atomic_load_explicit(&y, memory_order_relaxed);
  int u = s;
  if (r == 0) {
    atomic_store_explicit(&z, 4, memory_order_relaxed);
    s = 42;
  }
  atomic_store_explicit(&x, s, memory_order_relaxed);
  assert(u != 42);
  return 0;
}
void *t2(void *arg) {
  int a = atomic_load_explicit(&x, memory_order_relaxed);
  atomic_store_explicit(&y, a, memory_order_relaxed);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
