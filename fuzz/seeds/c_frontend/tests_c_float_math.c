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
/* <math.h> and <float.h> through the real headers: classification, the functions weakc
 * models bit-precisely, IEEE 754 corner cases (-0.0, NaN, infinities, subnormals, overflow,
 * rounding). Every assertion holds (checked with gcc on x86-64): expected SAFE. */
extern double __VERIFIER_nondet_double(void);
extern float __VERIFIER_nondet_float(void);
int main(void) {
  double z = -0.0;
  assert(z == 0.0 && !z && signbit(z) && !signbit(0.0));
  double n = NAN;
  assert(isnan(n) && n != n && !(n < 1.0) && !(n >= 1.0));
  assert(isinf(INFINITY) && isinf(-HUGE_VAL) && !isfinite(1.0 / 0.0));
  assert(fabs(-2.5) == 2.5 && sqrt(16.0) == 4.0 && fmin(1.0, n) == 1.0 && fmax(-3.0, 2.0) == 2.0);
  assert(floor(-1.5) == -2.0 && ceil(-1.5) == -1.0 && trunc(-1.5) == -1.0 && round(-1.5) == -2.0 && round(2.5) == 3.0);
  assert(fpclassify(DBL_MIN / 2) == FP_SUBNORMAL && fpclassify(1.0) == FP_NORMAL && isnormal(DBL_MAX));
  assert(DBL_MAX * 2 == INFINITY && 1e308 + 1e308 > DBL_MAX);
  double x = __VERIFIER_nondet_double();
  float f = __VERIFIER_nondet_float();
  if (!isnan(x) && !isinf(x)) {
    assert(x - x == 0.0);
    assert(fabs(x) >= 0.0);
  }
  if (f > 0.0f && f < 1000.0f) {
    int i = (int)f;
    assert(i >= 0 && i <= 1000 && (float)i <= f);
    assert((double)f == f);
  }
  assert(0.1 + 0.2 != 0.3);
  assert((float)0.1 != 0.1);
  assert(3 / 2.0 == 1.5 && 7.0 / 2 == 3.5 && (int)-2.7 == -2 && (unsigned)3.9 == 3u);
  long double ld = 1.5L;
  assert(ld * 2 == 3.0L);
  return 0;
}
