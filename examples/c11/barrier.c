/* pthread barriers. Default: each thread writes its slot, waits at the barrier, then reads
 * the other's slot. POSIX (XBD 4.12) makes pthread_barrier_wait synchronise memory, so both
 * slots are seen on every architecture; exactly one thread of the round gets
 * PTHREAD_BARRIER_SERIAL_THREAD. ROUNDS: the barrier is used twice, the second round
 * publishing values written between the two. HANDROLLED: the barrier replaced by a counter
 * of relaxed atomics (increment, then spin until both arrived): the slot writes are not
 * ordered before the increment, so the other thread can pass and read a stale slot on
 * PSO, RMO, Power, ARM and AArch64 (a relaxed RMW is a bare cas, ldxr/stxr, lwarx/stwcx.);
 * on x86 the RMW is a locked instruction, a full barrier. LATE: the slot is written after
 * the barrier, so the other thread may read it first, even under SC.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DROUNDS): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DLATE): sc=fail tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * expect(-DHANDROLLED): sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

pthread_barrier_t b;
int slot[2], again[2];
int serial[2];
atomic_int arrived;

static void arrive(int me) {
#ifdef HANDROLLED
  atomic_fetch_add_explicit(&arrived, 1, memory_order_relaxed);
  while (atomic_load_explicit(&arrived, memory_order_relaxed) < 2)
    ;
#else
  if (pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD)
    serial[me] = serial[me] + 1;
#endif
}

void *worker(void *arg) {
  int me = (int)(long)arg;
#ifdef LATE
  arrive(me);
  slot[me] = me + 1;
#else
  slot[me] = me + 1;
  arrive(me);
#endif
  assert(slot[1 - me] == 2 - me);
#ifdef ROUNDS
  again[me] = 10 + me;
  arrive(me);
  assert(again[1 - me] == 11 - me);
#endif
  return 0;
}

int main(void) {
  pthread_t t0, t1;
  pthread_barrier_init(&b, 0, 2);
  pthread_create(&t0, 0, worker, (void *)0L);
  pthread_create(&t1, 0, worker, (void *)1L);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
#ifndef HANDROLLED
#ifdef ROUNDS
  assert(serial[0] + serial[1] == 2);
#else
  assert(serial[0] + serial[1] == 1);
#endif
#endif
  pthread_barrier_destroy(&b);
  return 0;
}
