/* A spinning ticket lock, three threads. Each waits for its turn in a spin loop (reads
 * only), so the lock verifies completely at any bound; with ORD relaxed the critical
 * sections leak on every model weaker than TSO (the writes in one may pass the hand-over
 * store, the reads in the next may be satisfied before its load of `serving`). */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#ifndef ORD_REL
#define ORD_REL memory_order_release
#define ORD_ACQ memory_order_acquire
#endif

atomic_int next, serving;
int owner, count;

void *worker(void *arg) {
  int me = (int)(long)arg;
  int ticket = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
  while (atomic_load_explicit(&serving, ORD_ACQ) != ticket)
    ;
  owner = me;
  count = count + 1;
  assert(owner == me);
  atomic_store_explicit(&serving, ticket + 1, ORD_REL);
  return 0;
}

int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++)
    pthread_create(&t[i], 0, worker, (void *)(i + 1));
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], 0);
  assert(count == 3);
  return 0;
}
