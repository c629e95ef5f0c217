/* MP with lwsync on the writer and an address dependency on the reader: safe on Power. */
int data = 0, flag = 0;
int r0 = 0, r1 = 0;
void *writer(void *arg) { data = 1; __asm__ __volatile__("lwsync" ::: "memory"); flag = 1; return 0; }
void *reader(void *arg) { int r = flag; r0 = r; int *p = &data + (r ^ r); r1 = *p; return 0; }
int main(void) {
  __CPROVER_ASYNC_0: writer(0);
  __CPROVER_ASYNC_1: reader(0);
  return 0;
}
