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
/* 2+2W: two threads write two locations in opposite orders. */
int x = 0, y = 0;
void *P0(void *arg) { x = 1; y = 2; return 0; }
void *P1(void *arg) { y = 1; x = 2; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, P0, 0);
  pthread_create(&b, 0, P1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(x == 1 && y == 1));
  return 0;
}
