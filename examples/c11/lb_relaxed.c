/* Load buffering with relaxed atomics: each load may read the other thread's later store.
 * expect: sc=safe tso=safe pso=safe rmo=fail power=fail arm=fail aarch64=fail
 * why: plain ld/st; R->W is kept by TSO and PSO only.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1;

void *t0(void *arg) {
  r0 = atomic_load_explicit(&x, memory_order_relaxed);
  atomic_store_explicit(&y, 1, memory_order_relaxed);
  return 0;
}

void *t1(void *arg) {
  r1 = atomic_load_explicit(&y, memory_order_relaxed);
  atomic_store_explicit(&x, 1, memory_order_relaxed);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 1 && r1 == 1));
  return 0;
}
