/* A pthread read-write lock. Default: two readers hold it at once (each marks itself in,
 * then looks for the other) while a writer updates a pair that the readers check under the
 * lock. A read lock is shared, so both readers may see each other in (the assertion that
 * they cannot fails on every architecture, sc included), and the pair is always seen whole.
 * PAIR: only the pair check (holds everywhere: the write lock excludes the readers, and the
 * lock's acquire and the unlock's release order the accesses as for a mutex).
 * WRITE_UNDER_READ: the readers increment a counter under the read lock, a bug: two
 * increments can be lost against each other on every architecture.
 * TIMED: the writer uses pthread_rwlock_timedwrlock and writes only when it took the lock
 * (otherwise it must have got ETIMEDOUT); the readers pthread_rwlock_timedrdlock likewise:
 * the same answers.
 * expect: sc=fail tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * expect(-DPAIR): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DPAIR -DTIMED): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DPAIR -DWRITE_UNDER_READ): sc=fail tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 */
#include <assert.h>
#include <pthread.h>
#include <errno.h>
#include <time.h>

#ifdef TIMED
struct timespec deadline = { 1, 0 };
#define TAKE(how) do { int r_ = pthread_rwlock_timed##how##lock(&l, &deadline); if (r_ != 0) { assert(r_ == ETIMEDOUT); return 0; } } while (0)
#else
#define TAKE(how) pthread_rwlock_##how##lock(&l)
#endif

pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
int a, b, in0, in1, saw0, saw1, count;

void *reader(void *arg) {
  long me = (long)arg;
  TAKE(rd);
  assert(a == b);
#ifndef PAIR
  if (me == 0) {
    in0 = 1;
    saw0 = in1;
  } else {
    in1 = 1;
    saw1 = in0;
  }
#endif
#ifdef WRITE_UNDER_READ
  count = count + 1;
#endif
  pthread_rwlock_unlock(&l);
  return 0;
}

void *writer(void *arg) {
  TAKE(wr);
  a = a + 1;
  b = b + 1;
  pthread_rwlock_unlock(&l);
  return 0;
}

int main(void) {
  pthread_t r0, r1, w;
  pthread_create(&r0, 0, reader, (void *)0);
  pthread_create(&r1, 0, reader, (void *)1);
  pthread_create(&w, 0, writer, 0);
  pthread_join(r0, 0);
  pthread_join(r1, 0);
  pthread_join(w, 0);
#ifndef PAIR
  assert(!(saw0 && saw1));
#endif
#ifdef WRITE_UNDER_READ
  assert(count == 2);
#endif
  return 0;
}
