/* A test-and-set spinlock (try-lock form: a thread that finds it taken gives up) protecting
 * two plain writes, read under the lock by the other thread.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * why: test_and_set(acquire) is an atomic exchange followed by the acquire barrier, clear
 *      (release) a store preceded by the release barrier, per architecture.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define ORD_LOCK memory_order_acquire
#define ORD_UNLOCK memory_order_release

atomic_flag lock = ATOMIC_FLAG_INIT;
int x, y, r1, r2;

void *t0(void *arg) {
  if (!atomic_flag_test_and_set_explicit(&lock, ORD_LOCK)) {
    x = 1;
    y = 1;
    atomic_flag_clear_explicit(&lock, ORD_UNLOCK);
  }
  return 0;
}

void *t1(void *arg) {
  if (!atomic_flag_test_and_set_explicit(&lock, ORD_LOCK)) {
    r1 = y;
    r2 = x;
    atomic_flag_clear_explicit(&lock, ORD_UNLOCK);
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
