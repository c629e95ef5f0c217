/* A ticket lock (try-lock form) protecting two plain writes read by the other thread.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * why: taking a ticket needs no order (relaxed fetch_add); the acquire load of `serving`
 *      and the release store that hands the lock on order the critical sections.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define ORD_ACQ memory_order_acquire
#define ORD_REL memory_order_release

atomic_int next, serving;
int x, y, r1, r2;

void *t0(void *arg) {
  int my = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
  if (atomic_load_explicit(&serving, ORD_ACQ) == my) {
    x = 1;
    y = 1;
    atomic_store_explicit(&serving, my + 1, ORD_REL);
  }
  return 0;
}

void *t1(void *arg) {
  int my = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
  if (atomic_load_explicit(&serving, ORD_ACQ) == my) {
    r1 = y;
    r2 = x;
    atomic_store_explicit(&serving, my + 1, ORD_REL);
  }
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r1 == 1 && r2 == 0));
  return 0;
}
