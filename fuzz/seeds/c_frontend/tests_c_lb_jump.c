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
/* LB+rel+BEQ (herd, AArch64) in C: P1 branches on a value unrelated to its read of y and
 * copies the read into r1 on one path; its later store of 7 depends on neither, so it may
 * go out before y is read. (The copy waits with the read where it runs.) Allowed on ARM. */
int x = 0, y = 0, c = 0;
int out0 = 0, out1 = 0, out3 = 0;
void *P0(void *arg) { int a = x; __asm__ __volatile__("dmb sy" ::: "memory"); y = 1; out0 = a; return 0; }
void *P1(void *arg) {
  int r1 = 0;
  int r3 = y;
  if (c == 1) goto over;
  r1 = r3;
over:
  x = 7;
  out1 = r1;
  out3 = r3;
  return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(out0 == 7 && out3 == 1));
  return 0;
}
