/* LB with the stores in a wrapper that is not inlined (it calls an external function): the
 * call completes the caller's pending read only when its argument is the read's address, so
 * the store of x still goes before the read of y (allowed on power, arm and aarch64). */
#include <pthread.h>
#include <assert.h>
void trace_store(void);
int x, y;
int a0, a1;
static void st(int *p, int v) { trace_store(); *p = v; }
void *t0(void *arg) { int r = x; st(&y, 1); a0 = r; return 0; }
void *t1(void *arg) { int r = y; st(&x, 1); a1 = r; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(a0 == 1 && a1 == 1));
  return 0;
}
