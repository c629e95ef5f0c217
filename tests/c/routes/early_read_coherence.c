/* Coherence after an early read. p0's z = 2 is buffered past x = 1 (the MP of p2); p1
   reads it from the buffer (Power, ARM: non-atomic writes), then
   - (default) writes z = 1, which is coherence-after what it read: z cannot end 2 (CoRW);
   - with -DCORR reads z again, which cannot give the initial value, coherence-before the
     write the first read saw (CoRR).
   Both forbidden on every model. With -DALLOWED the twin outcome, allowed on Power and ARM:
   z ends 1 (CoRW), or the second read sees 2 as well (CoRR). */
#include <pthread.h>
#include <assert.h>
int x, z;
int a, b, c, d;
void *p0(void *arg) { z = 2; x = 1; return 0; }
#ifdef CORR
void *p1(void *arg) { a = z; d = z; return 0; }
#else
void *p1(void *arg) { a = z; z = 1; return 0; }
#endif
void *p2(void *arg) { b = x; c = z; return 0; }
int main(void) {
  pthread_t t0, t1, t2;
  pthread_create(&t0, 0, p0, 0);
  pthread_create(&t1, 0, p1, 0);
  pthread_create(&t2, 0, p2, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
#if defined(CORR) && defined(ALLOWED)
  assert(!(a == 2 && d == 2 && b == 1 && c == 0));
#elif defined(CORR)
  assert(!(a == 2 && d == 0 && b == 1 && c == 0));
#elif defined(ALLOWED)
  assert(!(a == 2 && b == 1 && c == 0 && z == 1));
#else
  assert(!(a == 2 && b == 1 && c == 0 && z == 2));
#endif
  return 0;
}
