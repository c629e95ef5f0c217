/* Message passing with relaxed atomics: the reader may see the flag and stale data.
 * expect: sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * why: relaxed loads and stores compile to plain ld/st (mov on x86) on every architecture;
 *      TSO keeps W->W and R->R, every other model relaxes one of them.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int data, flag;

void *writer(void *arg) {
  atomic_store_explicit(&data, 1, memory_order_relaxed);
  atomic_store_explicit(&flag, 1, memory_order_relaxed);
  return 0;
}

void *reader(void *arg) {
  if (atomic_load_explicit(&flag, memory_order_relaxed) == 1)
    assert(atomic_load_explicit(&data, memory_order_relaxed) == 1);
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
