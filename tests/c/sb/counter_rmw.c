// expect: sc=S tso=S pso=S power=S arm=S
// Read-modify-writes stay atomic on every model: no increment is lost.
#include <pthread.h>
#include <assert.h>
int c;
void *t(void *a) { __atomic_fetch_add(&c, 1, __ATOMIC_RELAXED); return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t, 0);
  pthread_create(&q, 0, t, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(c == 2);
  return 0;
}
