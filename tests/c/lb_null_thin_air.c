/* Load buffering whose only way to the outcome is a value read through a null pointer:
 * t1's store `p = 0` is control-dependent on its read of x (not kept on RMO), t2 reads
 * *p and writes what it read to x. For r1 == 42, t2 must read 42 through p == 0 —
 * undefined behaviour, no value of C's — and supply it to t1: out of thin air. */
#include <pthread.h>
#include <assert.h>
int a;
int *p = &a;
int x;
int r1;
void *t1(void *arg) { r1 = x; if (r1 == 42) p = 0; return 0; }
void *t2(void *arg) { int *l = p; int v = *l; x = v; return 0; }
int main(void) {
  pthread_t a1, a2;
  pthread_create(&a1, 0, t1, 0);
  pthread_create(&a2, 0, t2, 0);
  pthread_join(a1, 0);
  pthread_join(a2, 0);
  assert(r1 != 42);
  return 0;
}
