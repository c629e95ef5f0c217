/* Store buffering with mfence between the write and the read: safe on x86. */
int x = 0, y = 0;
int r0 = 0, r1 = 0;
void *P0(void *arg) { x = 1; asm volatile("mfence" ::: "memory"); r0 = y; return 0; }
void *P1(void *arg) { y = 1; asm volatile("mfence" ::: "memory"); r1 = x; return 0; }
int main(void) {
  __CPROVER_ASYNC_0: P0(0);
  __CPROVER_ASYNC_1: P1(0);
  return 0;
}
