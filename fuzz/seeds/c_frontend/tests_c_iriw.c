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
/* Independent reads of independent writes, reads ordered by address dependencies. */
int x = 0, y = 0;
int a0, a1, b0, b1;
void *W0(void *arg) { x = 1; return 0; }
void *W1(void *arg) { y = 1; return 0; }
void *R0(void *arg) { int r = x; a0 = r; int *p = &y + (r ^ r); a1 = *p; return 0; }
void *R1(void *arg) { int r = y; b0 = r; int *p = &x + (r ^ r); b1 = *p; return 0; }
int main(void) {
  pthread_t t[4];
  pthread_create(&t[0], 0, W0, 0);
  pthread_create(&t[1], 0, W1, 0);
  pthread_create(&t[2], 0, R0, 0);
  pthread_create(&t[3], 0, R1, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  assert(!(a0 == 1 && a1 == 0 && b0 == 1 && b1 == 0));
  return 0;
}
