// expect: sc=S tso=S pso=S power=S arm=S
// Message passing with a release store (SPARC: membar #StoreStore before it) and an
// acquire load.
#include <pthread.h>
#include <assert.h>
int data, flag, r0, r1;
void *t0(void *a) { data = 1; __atomic_store_n(&flag, 1, __ATOMIC_RELEASE); return 0; }
void *t1(void *a) { r0 = __atomic_load_n(&flag, __ATOMIC_ACQUIRE); r1 = data; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(r0 == 1 && r1 == 0));
  return 0;
}
