/* A sequence lock as Boehm gives it for C11 ("Can seqlocks get along with programming
 * language memory models?", MSPC 2012): the writer makes the counter odd, a release fence,
 * relaxed data stores, then an even counter with a release store; the reader an acquire
 * load of the counter, relaxed data loads, an acquire fence and a relaxed reload. A reader
 * that saw the same even counter twice saw a consistent snapshot.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * why: the release fence orders the odd counter before the data stores (lwsync, dmb ish,
 *      a full membar on SPARC), the release store the data before the even counter; on the
 *      reader's side the acquire load and the acquire fence order its loads.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define WRITER_FENCE 1

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
