/* Message passing with a release store and an acquire load: correct C11.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * why: x86 mov/mov (TSO keeps W->W, R->R); PSO membar #StoreStore before the flag store;
 *      RMO membar #LoadStore|#StoreStore before it and #LoadLoad|#LoadStore after the load;
 *      Power lwsync before it, ld;cmp;bc;isync for the load; ARMv7 dmb before and after;
 *      AArch64 stlr/ldar.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

int data;
atomic_int flag;

void *writer(void *arg) {
  data = 1;
  atomic_store_explicit(&flag, 1, memory_order_release);
  return 0;
}

void *reader(void *arg) {
  if (atomic_load_explicit(&flag, memory_order_acquire) == 1)
    assert(data == 1);
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
