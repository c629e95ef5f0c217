/* C11 litmus test 2+2W+rel-rlx+rlx-rel (weakc litmus-c11; regenerate with scripts/gen-litmus-c11).
 * P0: x = 2 (rel); y = 1 (rlx)
 * P1: y = 2 (rlx); x = 1 (rel)
 * The assertion fails iff the outcome (fx == 2 && fy == 2) is reachable.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;

void *P0(void *arg) {
  atomic_store_explicit(&x, 2, memory_order_release);
  atomic_store_explicit(&y, 1, memory_order_relaxed);
  return 0;
}

void *P1(void *arg) {
  atomic_store_explicit(&y, 2, memory_order_relaxed);
  atomic_store_explicit(&x, 1, memory_order_release);
  return 0;
}

int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  int fx = atomic_load_explicit(&x, memory_order_relaxed);
  int fy = atomic_load_explicit(&y, memory_order_relaxed);
  assert(!(fx == 2 && fy == 2));
  return 0;
}
