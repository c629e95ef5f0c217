/* Concurrency Kit's single-producer single-consumer ring (ck_ring.h, Debian's libck-dev):
 * the producer fills a message, then enqueues a pointer to it; the consumer dequeues it and
 * must see the message filled.
 * WEAKEN drops ck_pr_fence_load() between the consumer's read of p_tail and its read of the
 * slot, in a copy of the library's dequeue (ring_dequeue_weak below).
 * memcpy moves the entries through `void *` at byte offsets (`(char *)buffer + ts * index`):
 * the engine follows them through the buffer's layout (README "Byte pointers"). Without the
 * fence the consumer can read the slot before the producer's copy reaches it: a null entry
 * (rmo and weaker: a load-load reordering; PSO keeps loads in order).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DWEAKEN): sc=safe tso=safe pso=safe rmo=fail power=fail arm=fail aarch64=fail */
#include <ck_ring.h>
#include <pthread.h>
#include <assert.h>

#define SIZE 4
static ck_ring_t ring;
static ck_ring_buffer_t buf[SIZE];
static int msg[2];

#ifdef WEAKEN
/* _ck_ring_dequeue_sc of ck 0.7.1 without its load fence */
static bool ring_dequeue_weak(ck_ring_t *r, ck_ring_buffer_t *b, void *target) {
  unsigned int consumer = r->c_head;
  unsigned int producer = ck_pr_load_uint(&r->p_tail);
  if (consumer == producer)
    return false;
  memcpy(target, (char *)b + sizeof(void *) * (consumer & r->mask), sizeof(void *));
  ck_pr_fence_store();
  ck_pr_store_uint(&r->c_head, consumer + 1);
  return true;
}
#define DEQUEUE(r, b, t) ring_dequeue_weak(r, b, t)
#else
#define DEQUEUE(r, b, t) ck_ring_dequeue_spsc(r, b, t)
#endif

void *producer(void *arg) {
  for (int i = 0; i < 2; i++) {
    msg[i] = i + 1;
    while (!ck_ring_enqueue_spsc(&ring, buf, &msg[i]))
      ;
  }
  return arg;
}

int main(void) {
  pthread_t t;
  ck_ring_init(&ring, SIZE);
  pthread_create(&t, 0, producer, 0);
  for (int i = 0; i < 2; i++) {
    int *m;
    if (DEQUEUE(&ring, buf, &m))
      assert(m != 0 && *m != 0);
  }
  pthread_join(t, 0);
  return 0;
}
