/* Message passing through one pthread mutex: correct on every architecture, whichever lock
 * model (the unlock's release barrier orders the writes before it, the lock's acquire
 * orders the reads after it).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(--locks full): power=safe aarch64=safe
 */
#include <pthread.h>
#include <assert.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x, y, r1, r2;

void *t0(void *arg) {
  pthread_mutex_lock(&m);
  x = 1;
  y = 1;
  pthread_mutex_unlock(&m);
  return 0;
}

void *t1(void *arg) {
  pthread_mutex_lock(&m);
  r1 = y;
  r2 = x;
  pthread_mutex_unlock(&m);
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
