/* The sequence lock of seqlock.c without the writer's release fence: the data stores may
 * become visible before the odd counter, and a reader sees half an update with the same
 * even counter before and after.
 * expect: sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * why: two relaxed stores (plain st/str) to different addresses are not ordered on PSO,
 *      RMO, Power, ARM and AArch64; TSO keeps them in order.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define WRITER_FENCE 0

atomic_uint seq;
atomic_int data1, data2;

void *writer(void *arg) {
  unsigned s = atomic_load_explicit(&seq, memory_order_relaxed);
  atomic_store_explicit(&seq, s + 1, memory_order_relaxed);
#if WRITER_FENCE
  atomic_thread_fence(memory_order_release);
#endif
  atomic_store_explicit(&data1, 1, memory_order_relaxed);
  atomic_store_explicit(&data2, 1, memory_order_relaxed);
  atomic_store_explicit(&seq, s + 2, memory_order_release);
  return 0;
}

void *reader(void *arg) {
  unsigned s0 = atomic_load_explicit(&seq, memory_order_acquire);
  int r1 = atomic_load_explicit(&data1, memory_order_relaxed);
  int r2 = atomic_load_explicit(&data2, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  unsigned s1 = atomic_load_explicit(&seq, memory_order_relaxed);
  if (s0 == s1 && (s0 & 1) == 0)
    assert(r1 == r2);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, reader, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
