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
/* Midpoint-rule integration of 4/(1+x^2) over [0,1] by two threads (the shape of the
 * SV-COMP task that integrates pi): the result is 3.146801..., within 0.01 of 3.14159.
 * weakc's expected verdict: SAFE on every architecture (the sum is under a mutex). */

#define N 4

double area = 0.0;
pthread_mutex_t m;

void *work(void *arg) {
  int id = (int)(long)arg;
  double h = 1.0 / N, sum = 0.0;
  for (int i = id; i < N; i += 2) {
    double x = h * (i + 0.5);
    sum += 4.0 / (1.0 + x * x);
  }
  pthread_mutex_lock(&m);
  area += h * sum;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t[2];
  double pi = 3.14159, tol = 1.0E-2;
  for (long k = 0; k < 2; k++)
    pthread_create(&t[k], 0, work, (void *)k);
  for (int k = 0; k < 2; k++)
    pthread_join(t[k], 0);
#ifdef TIGHT
  /* The bug: four intervals are not that precise (|area - pi| is 0.0052). */
  tol = 1.0E-5;
#endif
  assert(area - pi < tol && pi - area < tol);
  return 0;
}
