/*
 * Instrumented by weakc 0.1.0 for power (strategy ilp) from tests/c/iriw.c.
 * SC executions of this program include the power executions of the original
 * (within the buffer depths stated below). Compile with: cc -I runtime
 */
#include "weakc.h"

int main();
void *W0(void *);
void *W1(void *);
void *R0(void *);
void *R1(void *);
void x__g0_flush_own(int);
void x__g0_flush_lw(int);
void x__g0_mark_lw(int);
void x__g0_flush_some();
int x__g0_read(int *, int);
void x__g0_delay(int *, int, int);
void x__g0_write(int *, int, int);
void __weakc_flush_all_own(int);
void __weakc_flush_all_lw(int);
void __weakc_mark_all_lw(int);

#line 4 "tests/c/iriw.c"
int x = 0;
#line 4 "tests/c/iriw.c"
int y = 0;
int a0;
#line 5 "tests/c/iriw.c"
int a1;
#line 5 "tests/c/iriw.c"
int b0;
#line 5 "tests/c/iriw.c"
int b1;
#line 36 "target/snapshot-out/iriw_power.c"
int __weakc_next_tid;
int *x__g0_addr[1];
int x__g0_val[1];
int x__g0_thd[1];
int x__g0_lw[1];
_Bool x__g0_live[1];
int x__g0_n;

#line 10 "tests/c/iriw.c"
int main()
{
#line 11 "tests/c/iriw.c"
    unsigned long t[4];
#line 16 "tests/c/iriw.c"
    int i;
    int __weakc_tmp0;
#line 17 "tests/c/iriw.c"
    int __weakc_tmp1;
#line 17 "tests/c/iriw.c"
    int __weakc_tmp2;
#line 16 "tests/c/iriw.c"
    unsigned long __weakc_tmp19;
    int __weakc_tmp20;
#line 17 "tests/c/iriw.c"
    int __weakc_tmp21;
#line 17 "tests/c/iriw.c"
    int __weakc_tmp22;
#line 17 "tests/c/iriw.c"
    int __weakc_tmp23;
#line 10 "tests/c/iriw.c"
    int __weakc_me;
#line 10 "tests/c/iriw.c"
    __weakc_me = 0;
#line 12 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 12 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 12 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 12 "tests/c/iriw.c"
    pthread_create(&t[0], 0, W0, ((void *)0));
    __VERIFIER_atomic_begin();
#line 13 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 13 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 13 "tests/c/iriw.c"
    pthread_create(&t[1], 0, W1, ((void *)0));
    __VERIFIER_atomic_begin();
#line 14 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 14 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 14 "tests/c/iriw.c"
    pthread_create(&t[2], 0, R0, ((void *)0));
    __VERIFIER_atomic_begin();
#line 15 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 15 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 15 "tests/c/iriw.c"
    pthread_create(&t[3], 0, R1, ((void *)0));
    i = 0;
#line 16 "tests/c/iriw.c"
    for (;;) {
#line 16 "tests/c/iriw.c"
        if (!(i < 4)) {
#line 16 "tests/c/iriw.c"
            break;
        }
#line 16 "tests/c/iriw.c"
        __weakc_tmp19 = t[i];
#line 16 "tests/c/iriw.c"
        pthread_join(__weakc_tmp19, 0);
#line 16 "tests/c/iriw.c"
        i = i + 1;
    }
#line 17 "tests/c/iriw.c"
    __weakc_tmp20 = a0;
#line 17 "tests/c/iriw.c"
    if (__weakc_tmp20 == 1) {
#line 17 "tests/c/iriw.c"
        __weakc_tmp21 = a1;
#line 17 "tests/c/iriw.c"
        __weakc_tmp0 = __weakc_tmp21 == 0;
    } else {
#line 17 "tests/c/iriw.c"
        __weakc_tmp0 = 0;
    }
#line 17 "tests/c/iriw.c"
    if (__weakc_tmp0) {
#line 17 "tests/c/iriw.c"
        __weakc_tmp22 = b0;
#line 17 "tests/c/iriw.c"
        __weakc_tmp1 = __weakc_tmp22 == 1;
    } else {
#line 17 "tests/c/iriw.c"
        __weakc_tmp1 = 0;
    }
#line 17 "tests/c/iriw.c"
    if (__weakc_tmp1) {
#line 17 "tests/c/iriw.c"
        __weakc_tmp23 = b1;
#line 17 "tests/c/iriw.c"
        __weakc_tmp2 = __weakc_tmp23 == 0;
    } else {
#line 17 "tests/c/iriw.c"
        __weakc_tmp2 = 0;
    }
#line 17 "tests/c/iriw.c"
    /* !(a0 == 1 && a1 == 0 && b0 == 1 && b1 == 0) */ __VERIFIER_assert(!__weakc_tmp2);
    __VERIFIER_atomic_begin();
#line 18 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 18 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 18 "tests/c/iriw.c"
    return 0;
#line 10 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 10 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 10 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
}

#line 6 "tests/c/iriw.c"
void *W0(void *arg)
{
#line 6 "tests/c/iriw.c"
    int __weakc_me;
#line 6 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/iriw.c"
    __weakc_next_tid = __weakc_next_tid + 1;
#line 6 "tests/c/iriw.c"
    __weakc_me = __weakc_next_tid;
#line 6 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/iriw.c"
    if (__VERIFIER_nondet_bool()) {
#line 6 "tests/c/iriw.c"
        x__g0_delay(&x, 1, __weakc_me);
    } else {
#line 6 "tests/c/iriw.c"
        __weakc_flush_all_lw(__weakc_me);
#line 6 "tests/c/iriw.c"
        x__g0_write(&x, 1, __weakc_me);
    }
#line 6 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 6 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/iriw.c"
    return ((void *)0);
#line 6 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 6 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
}

#line 7 "tests/c/iriw.c"
void *W1(void *arg)
{
#line 7 "tests/c/iriw.c"
    int __weakc_me;
#line 7 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/iriw.c"
    __weakc_next_tid = __weakc_next_tid + 1;
#line 7 "tests/c/iriw.c"
    __weakc_me = __weakc_next_tid;
#line 7 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/iriw.c"
    __weakc_flush_all_lw(__weakc_me);
#line 7 "tests/c/iriw.c"
    y = 1;
#line 7 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 7 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/iriw.c"
    return ((void *)0);
#line 7 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 7 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
}

#line 8 "tests/c/iriw.c"
void *R0(void *arg)
{
#line 8 "tests/c/iriw.c"
    int r;
#line 8 "tests/c/iriw.c"
    int *p;
#line 8 "tests/c/iriw.c"
    int __weakc_tmp24;
#line 8 "tests/c/iriw.c"
    int __weakc_me;
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 8 "tests/c/iriw.c"
    __weakc_next_tid = __weakc_next_tid + 1;
#line 8 "tests/c/iriw.c"
    __weakc_me = __weakc_next_tid;
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 8 "tests/c/iriw.c"
    x__g0_flush_some();
#line 8 "tests/c/iriw.c"
    r = x__g0_read(&x, __weakc_me);
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 8 "tests/c/iriw.c"
    __weakc_flush_all_lw(__weakc_me);
#line 8 "tests/c/iriw.c"
    a0 = r;
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 8 "tests/c/iriw.c"
    p = &y + (r ^ r);
#line 8 "tests/c/iriw.c"
    __weakc_tmp24 = *p;
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 8 "tests/c/iriw.c"
    __weakc_flush_all_lw(__weakc_me);
#line 8 "tests/c/iriw.c"
    a1 = __weakc_tmp24;
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 8 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 8 "tests/c/iriw.c"
    return ((void *)0);
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 8 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 8 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
}

#line 9 "tests/c/iriw.c"
void *R1(void *arg)
{
#line 9 "tests/c/iriw.c"
    int r;
#line 9 "tests/c/iriw.c"
    int *p;
#line 9 "tests/c/iriw.c"
    int __weakc_tmp25;
#line 9 "tests/c/iriw.c"
    int __weakc_me;
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 9 "tests/c/iriw.c"
    __weakc_next_tid = __weakc_next_tid + 1;
#line 9 "tests/c/iriw.c"
    __weakc_me = __weakc_next_tid;
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 9 "tests/c/iriw.c"
    r = y;
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 9 "tests/c/iriw.c"
    __weakc_flush_all_lw(__weakc_me);
#line 9 "tests/c/iriw.c"
    b0 = r;
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 9 "tests/c/iriw.c"
    p = &x + (r ^ r);
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 9 "tests/c/iriw.c"
    x__g0_flush_some();
#line 9 "tests/c/iriw.c"
    __weakc_tmp25 = x__g0_read(&(*p), __weakc_me);
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 9 "tests/c/iriw.c"
    __weakc_flush_all_lw(__weakc_me);
#line 9 "tests/c/iriw.c"
    b1 = __weakc_tmp25;
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 9 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
#line 9 "tests/c/iriw.c"
    return ((void *)0);
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_begin();
#line 9 "tests/c/iriw.c"
    __weakc_flush_all_own(__weakc_me);
#line 9 "tests/c/iriw.c"
    __VERIFIER_atomic_end();
}

#line 369 "target/snapshot-out/iriw_power.c"
void x__g0_flush_own(int me)
{
    if (x__g0_live[0] && (0 || ((x__g0_live[0] && (x__g0_thd[0] == me)) && (x__g0_addr[0] == x__g0_addr[0])))) {
        *x__g0_addr[0] = x__g0_val[0];
        x__g0_live[0] = 0;
    }
    if (1 && !x__g0_live[0]) {
        x__g0_n = 0;
    }
}

void x__g0_flush_lw(int me)
{
    if (x__g0_live[0] && (0 || (((x__g0_live[0] && (x__g0_thd[0] == me)) && (x__g0_addr[0] == x__g0_addr[0])) && (0 < x__g0_lw[0])))) {
        *x__g0_addr[0] = x__g0_val[0];
        x__g0_live[0] = 0;
    }
    if (1 && !x__g0_live[0]) {
        x__g0_n = 0;
    }
}

void x__g0_mark_lw(int me)
{
    if (x__g0_live[0] && (x__g0_thd[0] == me)) {
        x__g0_lw[0] = x__g0_lw[0] + 1;
    }
}

void x__g0_flush_some()
{
    if (x__g0_live[0] && __VERIFIER_nondet_bool()) {
        *x__g0_addr[0] = x__g0_val[0];
        x__g0_live[0] = 0;
    }
    if (1 && !x__g0_live[0]) {
        x__g0_n = 0;
    }
}

int x__g0_read(int *p, int me)
{
    int v;
    int *__weakc_target;
    __weakc_target = p;
    v = *p;
    if ((x__g0_live[0] && (x__g0_addr[0] == p)) && ((x__g0_thd[0] == me) || __VERIFIER_nondet_bool())) {
        v = x__g0_val[0];
    }
    return v;
}

void x__g0_delay(int *p, int v, int me)
{
    __VERIFIER_assume(x__g0_n < 1);
    x__g0_addr[x__g0_n] = p;
    x__g0_val[x__g0_n] = v;
    x__g0_thd[x__g0_n] = me;
    x__g0_lw[x__g0_n] = 0;
    x__g0_live[x__g0_n] = 1;
    x__g0_n = x__g0_n + 1;
}

void x__g0_write(int *p, int v, int me)
{
    int *__weakc_target;
    __weakc_target = p;
    if ((x__g0_live[0] && (x__g0_addr[0] == p)) && (0 || ((x__g0_live[0] && (x__g0_thd[0] == me)) && (x__g0_addr[0] == p)))) {
        *x__g0_addr[0] = x__g0_val[0];
        x__g0_live[0] = 0;
    }
    if (1 && !x__g0_live[0]) {
        x__g0_n = 0;
    }
    *p = v;
}

void __weakc_flush_all_own(int me)
{
    x__g0_flush_own(me);
}

void __weakc_flush_all_lw(int me)
{
    x__g0_flush_lw(me);
}

void __weakc_mark_all_lw(int me)
{
    x__g0_mark_lw(me);
}
