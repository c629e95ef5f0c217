/* A single-producer single-consumer ring of ints (C11 atomics). */
#ifndef SPSC_H
#define SPSC_H
#include <stdatomic.h>

#define SPSC_SIZE 4

struct spsc {
  atomic_uint head; /* next slot to pop: written by the consumer */
  atomic_uint tail; /* next slot to push: written by the producer */
  int slot[SPSC_SIZE];
};

void spsc_init(struct spsc *q);
/* 1 if v was queued, 0 if the ring is full. */
int spsc_push(struct spsc *q, int v);
/* 1 if a value was taken into *v, 0 if the ring is empty. */
int spsc_pop(struct spsc *q, int *v);

#endif
