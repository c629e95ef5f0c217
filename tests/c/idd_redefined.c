/* Dat3M's idd_dynamic.c in plain C: `s` holds the relaxed read of y unless r == 0, where it is
 * redefined, so the store of s to x depends on the read of y on one path only. On AArch64 the
 * store may then go before the read, and thread 2's copy of x into y lets u be 42. weakc
 * completes the read where `s` is redefined, which orders it before the store on both paths:
 * it cannot find the violation, and says so (UNKNOWN, not SUCCESSFUL). The axiomatic route of
 * `verify` (the default on aarch64) follows the dependency per path and finds it. */
#include <pthread.h>
#include <assert.h>
#include <stdatomic.h>
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
