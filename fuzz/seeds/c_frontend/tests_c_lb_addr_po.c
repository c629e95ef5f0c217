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
/* LB+addrs+WW (herd) in C: each thread reads, writes through an address computed from the
 * read, then writes the other thread's flag. herd's Power and ARM models order a write after
 * an access whose address depends on an earlier read (addr; po): forbidden there. The ESOP
 * suite's model (`power-esop`) has no such rule: allowed. With -D ONE_PATH, P0's address-dependent write
 * is on one path only (never taken): no write follows such an access on every path, so the
 * outcome is allowed on every model. */
int x = 0, y = 0, z = 0, a = 0, c = 0;
int out0 = 0, out1 = 0;
void *P0(void *arg) {
  int r = x;
#ifdef ONE_PATH
  if (c == 1)
#endif
  *(&y + (r ^ r)) = 1;
  z = 1;
  out0 = r;
  return 0; }
void *P1(void *arg) { int r = z; *(&a + (r ^ r)) = 1; x = 1; out1 = r; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(out0 == 1 && out1 == 1));
  return 0;
}
