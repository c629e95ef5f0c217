// expect: sc=S tso=S pso=S power=S arm=S
// Coherence: two writes to one address by one thread are seen in program order (PSO
// relaxes write->write only between different addresses), and one reader's two reads of
// it do not go back in time.
#include <pthread.h>
#include <assert.h>
int x, a0, b0;
void *t0(void *a) { x = 1; x = 2; return 0; }
void *t1(void *a) { a0 = x; b0 = x; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(a0 == 2 && b0 == 1));
  return 0;
}
