// expect: sc=S tso=S pso=S power=S arm=S
// Coherence of a thread's write and its later read: if t0 reads t1's 2 after writing 1,
// its own 1 came first in the order of writes to x, so x ends as 2.
#include <pthread.h>
#include <assert.h>
int x, r;
void *t0(void *a) { x = 1; r = x; return 0; }
void *t1(void *a) { x = 2; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(r == 2 && x == 1));
  return 0;
}
