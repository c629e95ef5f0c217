// expect: sc=S tso=S pso=F power=F arm=F
// 2+2W: both threads write both variables in opposite orders; each first write ends
// last in coherence only if a write overtakes the thread's earlier one (PSO).
#include <pthread.h>
#include <assert.h>
int x, y;
void *t0(void *a) { x = 2; y = 1; return 0; }
void *t1(void *a) { y = 2; x = 1; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(x == 2 && y == 2));
  return 0;
}
