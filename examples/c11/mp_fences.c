/* Message passing with relaxed accesses and release/acquire fences: correct C11.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * why: the release fence is lwsync (Power), dmb ish (ARMv7, AArch64), a full membar (SPARC,
 *      GCC), nothing on x86; the acquire fence is lwsync, dmb ish, dmb ishld (AArch64), a
 *      full membar, nothing.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int data, flag;

void *writer(void *arg) {
  atomic_store_explicit(&data, 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&flag, 1, memory_order_relaxed);
  return 0;
}

void *reader(void *arg) {
  if (atomic_load_explicit(&flag, memory_order_relaxed) == 1) {
    atomic_thread_fence(memory_order_acquire);
    assert(atomic_load_explicit(&data, memory_order_relaxed) == 1);
  }
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
