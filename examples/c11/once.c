/* Run-once initialisation. Default: two threads call pthread_once on the same control word
 * before reading a table its init function fills; glibc's once is an acquire load, an
 * acquire CAS claiming the run, and a release store when init is done (the others wait for
 * it), so init runs exactly once and its writes are seen by both threads on every
 * architecture. C11: the same with call_once and a once_flag. HANDROLLED: a broken
 * double-checked flag instead (a relaxed `done` flag set after the table, read without
 * ordering): the table can be seen unfilled on PSO, RMO, Power, ARM and AArch64, and init
 * may run twice everywhere (the count assertion), even under SC.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DC11): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DHANDROLLED): sc=fail tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * expect(-DHANDROLLED -DONE_CALLER): sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <threads.h>

int table[2];
int runs;

static void init(void) {
  table[0] = 1;
  table[1] = 2;
  runs = runs + 1;
}

#if defined(HANDROLLED)
atomic_int done;
static void ensure(int me) {
  if (!atomic_load_explicit(&done, memory_order_relaxed)) {
#ifdef ONE_CALLER
    /* only thread 0 may initialise: the count holds, the publication does not */
    if (me != 0)
      return;
#endif
    init();
    atomic_store_explicit(&done, 1, memory_order_relaxed);
  }
}
#elif defined(C11)
once_flag flag = ONCE_FLAG_INIT;
static void ensure(int me) { call_once(&flag, init); }
#else
pthread_once_t once = PTHREAD_ONCE_INIT;
static void ensure(int me) { pthread_once(&once, init); }
#endif

void *worker(void *arg) {
  int me = (int)(long)arg;
  ensure(me);
#ifdef ONE_CALLER
  if (atomic_load_explicit(&done, memory_order_relaxed))
#endif
  assert(table[0] + table[1] == 3);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void *)0L);
  pthread_create(&b, 0, worker, (void *)1L);
  pthread_join(a, 0);
  pthread_join(b, 0);
#ifndef ONE_CALLER
  assert(runs == 1);
#endif
  return 0;
}
