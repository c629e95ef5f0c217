/* The ring of spsc_ring.c publishing the slot with a relaxed store of `tail`: the consumer
 * may see the new tail before the slot's contents.
 * expect: sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * why: the slot store and the tail store are plain stores, ordered only by TSO.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define ORD_PUBLISH memory_order_relaxed

int buf[2];
atomic_uint head, tail;

void *producer(void *arg) {
  unsigned t = atomic_load_explicit(&tail, memory_order_relaxed);
  if (t - atomic_load_explicit(&head, memory_order_acquire) < 2) {
    buf[t % 2] = 42;
    atomic_store_explicit(&tail, t + 1, ORD_PUBLISH);
  }
  return 0;
}

void *consumer(void *arg) {
  unsigned h = atomic_load_explicit(&head, memory_order_relaxed);
  if (atomic_load_explicit(&tail, memory_order_acquire) != h) {
    int v = buf[h % 2];
    assert(v == 42);
    atomic_store_explicit(&head, h + 1, memory_order_release);
  }
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, producer, 0);
  pthread_create(&b, 0, consumer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
