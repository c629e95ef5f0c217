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
/* Two delayed reads in a loop whose deferred statements update r (P0, with every relaxable
 * pair delayed: `--strategy all --unwind 3`). In the second iteration the read of y is
 * delayed again while the read of x from the first iteration still waits: the younger read
 * is first in the loop body, so program order does not tell their ages, which are counted
 * at run time. use(r) then completes both, and their statements must run in the order the
 * reads were delayed: r = ((2 * 4 + 1) * 4 + 2) * 4 + 1 = 153 whatever the interleaving
 * (every read returns the initial value, which P1 only writes again). In the order of the
 * loop body, r = 165. */
int x = 1, y = 2, z = 0;
int seen;
void use(int v) { seen = v; }
void *P0(void *arg) {
  int r = 0;
  for (int i = 0; i < 2; i++) {
    int b = y;
    r = r * 4 + b;
    use(r);
    int a = x;
    r = r * 4 + a;
  }
  z = r;
  return 0;
}
void *P1(void *arg) {
  y = 2;
  x = 1;
  return 0;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(z == 153);
  return 0;
}
