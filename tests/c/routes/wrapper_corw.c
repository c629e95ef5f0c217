/* A pending read of y, then a store of y through a wrapper that is not inlined: the read
 * completes before the call (the argument is its address), so it never sees its own
 * thread's later store (CoRW). The LB cycle through x delays the read. */
#include <pthread.h>
#include <assert.h>
void trace_store(void);
int x, y;
int a0, a1;
static void st(int *p, int v) { trace_store(); *p = v; }
void *t0(void *arg) { int r = x; st(&y, 1); a0 = r; return 0; }
void *t1(void *arg) { int r = y; st(&y, 2); st(&x, 1); a1 = r; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(a1 != 2);
  return 0;
}
