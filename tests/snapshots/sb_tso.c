/*
 * Instrumented by weakc 0.1.0 for tso (strategy ilp) from tests/c/sb.c.
 * SC executions of this program include the tso executions of the original
 * (within the buffer depths stated below). Compile with: cc -I runtime
 */
#include "weakc.h"

int main();
void *P0(void *);
void *P1(void *);
void y__g0_flush_own(int);
void y__g0_flush_lw(int);
void y__g0_mark_lw(int);
void y__g0_flush_some();
int y__g0_read(int *, int);
void y__g0_write(int *, int, int);
void y__g0_delay(int *, int, int);
void __weakc_flush_all_own(int);
void __weakc_flush_all_lw(int);
void __weakc_mark_all_lw(int);

#line 4 "tests/c/sb.c"
int x = 0;
#line 4 "tests/c/sb.c"
int y = 0;
int r0 = 0;
#line 5 "tests/c/sb.c"
int r1 = 0;
int __weakc_next_tid;
int *y__g0_addr[1];
int y__g0_val[1];
int y__g0_thd[1];
_Bool y__g0_lw[1];
_Bool y__g0_live[1];
int y__g0_n;

#line 8 "tests/c/sb.c"
int main()
{
#line 9 "tests/c/sb.c"
    unsigned long t0;
#line 9 "tests/c/sb.c"
    unsigned long t1;
#line 14 "tests/c/sb.c"
    int __weakc_tmp0;
#line 12 "tests/c/sb.c"
    unsigned long __weakc_tmp9;
    unsigned long __weakc_tmp10;
    int __weakc_tmp11;
#line 14 "tests/c/sb.c"
    int __weakc_tmp12;
#line 8 "tests/c/sb.c"
    int __weakc_me;
#line 8 "tests/c/sb.c"
    __weakc_me = 0;
    __VERIFIER_atomic_begin();
#line 9 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 9 "tests/c/sb.c"
    t0 = __VERIFIER_nondet_ulong();
#line 9 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 9 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 9 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 9 "tests/c/sb.c"
    t1 = __VERIFIER_nondet_ulong();
#line 9 "tests/c/sb.c"
    __VERIFIER_atomic_end();
    __VERIFIER_atomic_begin();
#line 10 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 10 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 10 "tests/c/sb.c"
    pthread_create(&t0, 0, P0, ((void *)0));
    __VERIFIER_atomic_begin();
#line 11 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 11 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 11 "tests/c/sb.c"
    pthread_create(&t1, 0, P1, ((void *)0));
    __weakc_tmp9 = t0;
#line 12 "tests/c/sb.c"
    pthread_join(__weakc_tmp9, 0);
    __weakc_tmp10 = t1;
#line 13 "tests/c/sb.c"
    pthread_join(__weakc_tmp10, 0);
    __weakc_tmp11 = r0;
#line 14 "tests/c/sb.c"
    if (__weakc_tmp11 == 0) {
#line 14 "tests/c/sb.c"
        __weakc_tmp12 = r1;
#line 14 "tests/c/sb.c"
        __weakc_tmp0 = __weakc_tmp12 == 0;
    } else {
#line 14 "tests/c/sb.c"
        __weakc_tmp0 = 0;
    }
#line 14 "tests/c/sb.c"
    /* !(r0 == 0 && r1 == 0) */ __VERIFIER_assert(!__weakc_tmp0);
    __VERIFIER_atomic_begin();
#line 15 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 15 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 15 "tests/c/sb.c"
    return 0;
#line 8 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 8 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 8 "tests/c/sb.c"
    __VERIFIER_atomic_end();
}

#line 6 "tests/c/sb.c"
void *P0(void *arg)
{
#line 6 "tests/c/sb.c"
    int __weakc_tmp13;
#line 6 "tests/c/sb.c"
    int __weakc_me;
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    __weakc_next_tid = __weakc_next_tid + 1;
#line 6 "tests/c/sb.c"
    __weakc_me = __weakc_next_tid;
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 6 "tests/c/sb.c"
    x = 1;
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    y__g0_flush_some();
#line 6 "tests/c/sb.c"
    __weakc_tmp13 = y__g0_read(&y, __weakc_me);
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 6 "tests/c/sb.c"
    r0 = __weakc_tmp13;
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    return ((void *)0);
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
}

#line 7 "tests/c/sb.c"
void *P1(void *arg)
{
#line 7 "tests/c/sb.c"
    int __weakc_tmp14;
#line 7 "tests/c/sb.c"
    int __weakc_me;
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    __weakc_next_tid = __weakc_next_tid + 1;
#line 7 "tests/c/sb.c"
    __weakc_me = __weakc_next_tid;
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 7 "tests/c/sb.c"
    if (__VERIFIER_nondet_bool()) {
#line 7 "tests/c/sb.c"
        y__g0_delay(&y, 1, __weakc_me);
    } else {
#line 7 "tests/c/sb.c"
        y__g0_write(&y, 1, __weakc_me);
    }
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    __weakc_tmp14 = x;
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 7 "tests/c/sb.c"
    r1 = __weakc_tmp14;
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    return ((void *)0);
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    __weakc_flush_all_own(__weakc_me);
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
}

void y__g0_flush_own(int me)
{
    if (y__g0_live[0] && (0 || ((y__g0_live[0] && (y__g0_thd[0] == me)) && (y__g0_addr[0] == y__g0_addr[0])))) {
        *y__g0_addr[0] = y__g0_val[0];
        y__g0_live[0] = 0;
    }
    if (1 && !y__g0_live[0]) {
        y__g0_n = 0;
    }
}

void y__g0_flush_lw(int me)
{
    if (y__g0_live[0] && (0 || (((y__g0_live[0] && (y__g0_thd[0] == me)) && (y__g0_addr[0] == y__g0_addr[0])) && y__g0_lw[0]))) {
        *y__g0_addr[0] = y__g0_val[0];
        y__g0_live[0] = 0;
    }
    if (1 && !y__g0_live[0]) {
        y__g0_n = 0;
    }
}

void y__g0_mark_lw(int me)
{
    if (y__g0_live[0] && (y__g0_thd[0] == me)) {
        y__g0_lw[0] = 1;
    }
}

void y__g0_flush_some()
{
    if (y__g0_live[0] && __VERIFIER_nondet_bool()) {
        *y__g0_addr[0] = y__g0_val[0];
        y__g0_live[0] = 0;
    }
    if (1 && !y__g0_live[0]) {
        y__g0_n = 0;
    }
}

int y__g0_read(int *p, int me)
{
    int v;
    v = *p;
    if ((y__g0_live[0] && (y__g0_addr[0] == p)) && (y__g0_thd[0] == me)) {
        v = y__g0_val[0];
    }
    return v;
}

void y__g0_write(int *p, int v, int me)
{
    if ((y__g0_live[0] && (y__g0_addr[0] == p)) && (0 || ((y__g0_live[0] && (y__g0_thd[0] == me)) && (y__g0_addr[0] == p)))) {
        *y__g0_addr[0] = y__g0_val[0];
        y__g0_live[0] = 0;
    }
    if (1 && !y__g0_live[0]) {
        y__g0_n = 0;
    }
    *p = v;
}

void y__g0_delay(int *p, int v, int me)
{
    __VERIFIER_assume(y__g0_n < 1);
    y__g0_addr[y__g0_n] = p;
    y__g0_val[y__g0_n] = v;
    y__g0_thd[y__g0_n] = me;
    y__g0_lw[y__g0_n] = 0;
    y__g0_live[y__g0_n] = 1;
    y__g0_n = y__g0_n + 1;
}

void __weakc_flush_all_own(int me)
{
    y__g0_flush_own(me);
}

void __weakc_flush_all_lw(int me)
{
    y__g0_flush_lw(me);
}

void __weakc_mark_all_lw(int me)
{
    y__g0_mark_lw(me);
}
