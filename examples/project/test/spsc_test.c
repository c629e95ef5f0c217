/* The ring's test: one producer pushes 1 and 2, one consumer pops what it finds; whatever
   it pops must be what was pushed, in order. */
#include <assert.h>
#include <pthread.h>
#include "spsc.h"

static struct spsc q;

static void *producer(void *arg) {
  spsc_push(&q, 1);
  spsc_push(&q, 2);
  return 0;
}

static void *consumer(void *arg) {
  int v;
  if (spsc_pop(&q, &v)) {
    assert(v == 1);
    if (spsc_pop(&q, &v))
      assert(v == 2);
  }
  return 0;
}

int main(void) {
  pthread_t p, c;
  spsc_init(&q);
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
