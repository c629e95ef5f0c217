typedef unsigned long pthread_t;
typedef struct { int lock; } pthread_mutex_t;
int pthread_create(pthread_t *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_unlock(pthread_mutex_t *m);
void assert(int c);
void __VERIFIER_assume(int c);
int __VERIFIER_nondet_int(void);
double __VERIFIER_nondet_double(void);
/* LB+data+data-wsi-rfi-ctrl (herd, ARM): P1's store z = dep(a) waits for its read of y,
 * but its later z = 2 (which the read of z takes by forwarding, then branches on) need not:
 * x = 1 may go out before y is read. Coherence still puts z = dep(a) before z = 2, so z
 * ends as 2 (see lb_wsi_co.c). Allowed on ARM and Power. */
int x = 0, y = 0, z = 0;
int out0 = 0, out1 = 0, out3 = 0;
void *P0(void *arg) { int a = x; y = a ^ a ^ 1; out1 = a; return 0; }
void *P1(void *arg) {
  int a = y;
  int t = a ^ a;
  t = t + 1;
  z = t;
  z = 2;
  int b = z;
  if (b != b) goto out;
out:
  x = 1;
  out0 = a;
  out3 = b;
  return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(z == 2 && out0 == 1 && out1 == 1 && out3 == 2));
  return 0;
}
