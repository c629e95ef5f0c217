/* herd ARM-s2719 (fuzz-litmus; "PosWW Rfe DpCtrldW Rfe DpAddrdR DpCtrlIsbdR Fre"), as weakc litmus
   --emit-c translates it: P2 reads y, then z at an address computed from it, then x after a
   branch on z and an isb. WRC without cumulativity: allowed on ARM. */
int __unbuffered_cnt = 0;
int __unbuffered_p0_R0 = 0;
int __unbuffered_p0_R2 = 0;
int __unbuffered_p1_R0 = 0;
int __unbuffered_p1_R2 = 0;
int __unbuffered_p2_R0 = 0;
int __unbuffered_p2_R2 = 0;
int __unbuffered_p2_R3 = 0;
int __unbuffered_p2_R5 = 0;
int x = 0;
int y = 0;
int z = 0;

void *P0(void *arg) {
  __unbuffered_p0_R0 = 1;
  x = __unbuffered_p0_R0;
  __unbuffered_p0_R2 = 2;
  x = __unbuffered_p0_R2;
  asm("dmb");
  __unbuffered_cnt++;
  return 0;
}

void *P1(void *arg) {
  __unbuffered_p1_R0 = x;
  if (__unbuffered_p1_R0 != __unbuffered_p1_R0) goto LC00;
  LC00: ;
  __unbuffered_p1_R2 = 1;
  y = __unbuffered_p1_R2;
  asm("dmb");
  __unbuffered_cnt++;
  return 0;
}

void *P2(void *arg) {
  __unbuffered_p2_R0 = y;
  __unbuffered_p2_R2 = __unbuffered_p2_R0 ^ __unbuffered_p2_R0;
  __unbuffered_p2_R3 = *(&z + __unbuffered_p2_R2);
  if (__unbuffered_p2_R3 != __unbuffered_p2_R3) goto LC01;
  LC01: ;
  asm("isb");
  __unbuffered_p2_R5 = x;
  asm("dmb");
  __unbuffered_cnt++;
  return 0;
}

int main(void) {
  __CPROVER_ASYNC_0: P0(0);
  __CPROVER_ASYNC_1: P1(0);
  __CPROVER_ASYNC_2: P2(0);
  __CPROVER_assume(__unbuffered_cnt == 3);
  asm("dmb");
  /* exists P: the assertion fails <=> P is reachable */
  __CPROVER_assert(!(((__unbuffered_p1_R0 == 2 && __unbuffered_p2_R0 == 1) && __unbuffered_p2_R5 == 0)), "exists ((1:R0=2 /\\ 2:R0=1) /\\ 2:R5=0)");
  return 0;
}
