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
/* Two delayed reads whose deferred statements share a variable (P0, with every relaxable
 * pair delayed: `--strategy all`): r = a * 2 waits for the read of x, r = r + b and z = r
 * wait for the read of y, and the write x = 2 completes the read of x while the read of y
 * may still be pending. The statements then run in program order, so z = 2a + b with
 * a, b in {0, 1} (a is never 2: CoRW): z < 100 always holds. It failed when completing a
 * read inlined the completion of every read its statements touch: z = r ran before
 * r = a * 2, storing 100 + b.
 * With -D WEAK: z == 2 (a = 1, b = 0) is MP's weak outcome, the read of x satisfied after
 * the read of y: reachable on Power and ARM, not on SC. */
int x = 0, y = 0, z = 0;
void *P0(void *arg) {
  int r = 100;
  int a = x;
  r = a * 2;
  int b = y;
  r = r + b;
  z = r;
  x = 2;
  return 0;
}
void *P1(void *arg) {
  y = 1;
  __asm__ __volatile__("sync" ::: "memory");
  x = 1;
  return 0;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
#ifdef WEAK
  assert(z != 2);
#else
  assert(z < 100);
#endif
  return 0;
}
