#include "spsc.h"

/* The producer publishes a slot with a release store of tail; the consumer acquires it.
   Built with -DSPSC_BROKEN, the publication is relaxed: the slot may become visible after
   the new tail on Power and Arm, and the consumer reads a value that was never pushed. */
#ifdef SPSC_BROKEN
#define PUBLISH memory_order_relaxed
#else
#define PUBLISH memory_order_release
#endif

void spsc_init(struct spsc *q) {
  atomic_store_explicit(&q->head, 0, memory_order_relaxed);
  atomic_store_explicit(&q->tail, 0, memory_order_relaxed);
}

int spsc_push(struct spsc *q, int v) {
  unsigned t = atomic_load_explicit(&q->tail, memory_order_relaxed);
  unsigned h = atomic_load_explicit(&q->head, memory_order_acquire);
  if (t - h == SPSC_SIZE)
    return 0;
  q->slot[t % SPSC_SIZE] = v;
  atomic_store_explicit(&q->tail, t + 1, PUBLISH);
  return 1;
}

int spsc_pop(struct spsc *q, int *v) {
  unsigned h = atomic_load_explicit(&q->head, memory_order_relaxed);
  unsigned t = atomic_load_explicit(&q->tail, memory_order_acquire);
  if (h == t)
    return 0;
  *v = q->slot[h % SPSC_SIZE];
  atomic_store_explicit(&q->head, h + 1, memory_order_release);
  return 1;
}
