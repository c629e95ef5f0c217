/* Message passing with the reader spinning on the flag: the spin loop only reads, so the
 * engine enters it once whatever the bound. With ORD relaxed the stale read of data is
 * reachable on power/arm/aarch64/pso/rmo; with release/acquire it is not, and the verdict is
 * complete (no unwinding assertion can fail: the spin loop has none). */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#ifndef ORD_REL
#define ORD_REL memory_order_release
#define ORD_ACQ memory_order_acquire
#endif

atomic_int flag;
int data;

void *writer(void *arg) {
  data = 42;
  atomic_store_explicit(&flag, 1, ORD_REL);
  return 0;
}

void *reader(void *arg) {
  while (atomic_load_explicit(&flag, ORD_ACQ) == 0)
    ;
  assert(data == 42);
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
