/* C11 litmus test S+rlx-sc+sc-rel (weakc litmus-c11; regenerate with scripts/gen-litmus-c11).
 * P0: x = 2 (rlx); y = 1 (sc)
 * P1: r0 = y (sc); x = 1 (rel)
 * The assertion fails iff the outcome (fx == 2 && r0 == 1) is reachable.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0;

void *P0(void *arg) {
  atomic_store_explicit(&x, 2, memory_order_relaxed);
  atomic_store_explicit(&y, 1, memory_order_seq_cst);
  return 0;
}

void *P1(void *arg) {
  r0 = atomic_load_explicit(&y, memory_order_seq_cst);
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
  assert(!(fx == 2 && r0 == 1));
  return 0;
}
