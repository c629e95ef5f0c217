// expect: sc=S tso=F pso=F power=F arm=F
// SB+rfi-pos (x86-TSO's store forwarding): each thread reads its own write back from its
// buffer, then the other variable; both see their own write and miss the other's.
#include <pthread.h>
#include <assert.h>
int x, y, a0, b0, a1, b1;
void *t0(void *a) { x = 1; a0 = x; b0 = y; return 0; }
void *t1(void *a) { y = 1; a1 = y; b1 = x; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(a0 == 1 && b0 == 0 && a1 == 1 && b1 == 0));
  return 0;
}
