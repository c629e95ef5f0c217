/* MP+dmb+addr-po where the address dependency goes through memory: `r = y` stores the read
   value in a global, `*(&z + (r ^ r))` reads it back (data; rfi; addr: the read of z is
   ordered after the read of y on ARM), but nothing orders the read of x after them. */
#include <pthread.h>
#include <assert.h>
int x, y, z;
int r, s, t;
void *p0(void *a) { x = 1; __asm__ __volatile__("dmb ish" ::: "memory"); y = 1; return 0; }
void *p1(void *a) { r = y; s = *(&z + (r ^ r)); t = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, p0, 0); pthread_create(&b, 0, p1, 0);
  pthread_join(a, 0); pthread_join(b, 0);
  assert(!(r == 1 && t == 0));
  return 0;
}
