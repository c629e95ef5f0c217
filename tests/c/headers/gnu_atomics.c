#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include "gnu_atomics.h"

struct node n = { 7, 0, 0 };
_Atomic(int) flag;
int data;

void *writer(void *arg) {
  data = 42;
  put(&flag, 1);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  __auto_type seen = get(&flag);
  _Static_assert(sizeof(seen) == sizeof(int), "seen is an int");
  if (likely(seen == 1))
    assert(data == 42);
  if (node_of(&n.state)->key != 7)
    die();
  pthread_join(t, 0);
  /* BAD is defined by the test to get a failing property. */
#ifdef BAD
  assert(n.key == 8);
#endif
  return 0;
}
