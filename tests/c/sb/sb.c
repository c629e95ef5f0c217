// expect: sc=S tso=F pso=F power=F arm=F
// Store buffering: each thread's write waits in its buffer while it reads the other flag.
#include <pthread.h>
#include <assert.h>
int x, y, r0, r1;
void *t0(void *a) { x = 1; r0 = y; return 0; }
void *t1(void *a) { y = 1; r1 = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
