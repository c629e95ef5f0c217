/* pthread_mutex_trylock (MUTEX) and C11's mtx_trylock with thrd_create/thrd_join (default):
 * two workers each try the lock once and count their own success; main checks that the
 * counter, incremented only under the lock, equals the successes the threads return.
 * A trylock is an acquire read-modify-write (glibc: a locked cmpxchg on x86, lwarx/stwcx.
 * then isync on Power, ldaxr/stxr on AArch64, ldrex/strex then dmb on ARMv7) and the unlock
 * a release store: the second holder reads the first one's increment on every architecture.
 * SB: each thread stores its flag, try-locks its own mutex, then reads the other's flag. The
 * acquire RMW orders the earlier store before the later load only where its code has a full
 * barrier: x86 (a locked instruction), SPARC (GCC's acquire RMW is `cas` then a full
 * `membar` on PSO and RMO) and ARMv7 (`dmb` after the loop); Power's `isync` and AArch64's
 * `ldaxr` do not, so both reads may see 0 there (with --locks full every lock is a full
 * barrier).
 * TIMED: the timed forms (pthread_mutex_timedlock, mtx_timedlock), which either take the lock
 * or give up with ETIMEDOUT / thrd_timedout (never when the lock is free; when the attempt
 * happens is up to the scheduler, as a deadline's expiry is): the same answers, and a
 * failure returns the timeout's code.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DMUTEX): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DSB): sc=safe tso=safe pso=safe rmo=safe power=fail arm=safe aarch64=fail
 * expect(-DTIMED): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DTIMED -DMUTEX): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DTIMED -DSB): sc=safe tso=safe pso=safe rmo=safe power=fail arm=safe aarch64=fail
 * expect(-DSB --locks full): power=safe arm=safe aarch64=safe
 */
#include <assert.h>
#include <pthread.h>
#include <threads.h>
#include <errno.h>
#include <time.h>

struct timespec deadline = { 1, 0 };
#ifdef MUTEX
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
#ifdef TIMED
#define ATTEMPT(l) pthread_mutex_timedlock(l, &deadline)
#define GAVE_UP ETIMEDOUT
#else
#define ATTEMPT(l) pthread_mutex_trylock(l)
#define GAVE_UP EBUSY
#endif
#define TOOK 0
#define UNLOCK(l) pthread_mutex_unlock(l)
#else
mtx_t m, m2;
#ifdef TIMED
#define ATTEMPT(l) mtx_timedlock(l, &deadline)
#define GAVE_UP thrd_timedout
#else
#define ATTEMPT(l) mtx_trylock(l)
#define GAVE_UP thrd_busy
#endif
#define TOOK thrd_success
#define UNLOCK(l) mtx_unlock(l)
#endif
#define TRYLOCK(l) (ATTEMPT(l) == TOOK)
int counter, x, y, r0, r1;

#ifdef SB
int t0(void *arg) {
  x = 1;
  if (TRYLOCK(&m))
    r0 = y;
  else
    r0 = 1;
  return 0;
}
int t1(void *arg) {
  y = 1;
  if (TRYLOCK(&m2))
    r1 = x;
  else
    r1 = 1;
  return 0;
}
#else
int t0(void *arg) {
  int got = ATTEMPT(&m);
  if (got == TOOK) {
    counter = counter + 1;
    UNLOCK(&m);
    return 1;
  }
  assert(got == GAVE_UP);
  return 0;
}
#define t1 t0
#endif

int main(void) {
  thrd_t a, b;
  int ra, rb;
#ifndef MUTEX
  mtx_init(&m, mtx_plain | mtx_timed);
  mtx_init(&m2, mtx_plain | mtx_timed);
#endif
  thrd_create(&a, t0, 0);
  thrd_create(&b, t1, 0);
  thrd_join(a, &ra);
  thrd_join(b, &rb);
#ifdef SB
  assert(r0 == 1 || r1 == 1);
#else
  assert(counter == ra + rb);
#endif
  return 0;
}
