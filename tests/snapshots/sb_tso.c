/*
 * Instrumented by weakc 0.1.0 for tso (strategy ilp) from tests/c/sb.c.
 * SC executions of this program include the tso executions of the original
 * (within the buffer depths stated below). Compile with: cc -I runtime
 */
#include "weakc.h"

int main();
void *P0(void *);
void *P1(void *);
void store_buffer__g0_flush_own(int);
void store_buffer__g0_flush_lw(int);
void store_buffer__g0_mark_lw(int);
void store_buffer__g0_drain_one();
int store_buffer__g0_read(int *, int);
void store_buffer__g0_delay(int *, int, int);
void store_buffer__g0_write(int *, int, int);
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
#line 30 "target/snapshot-out/sb_tso.c"
int __weakc_next_tid;
_Thread_local int *store_buffer__g0_addr[2];
_Thread_local int store_buffer__g0_val[2];
_Thread_local int store_buffer__g0_lw[2];
_Thread_local _Bool store_buffer__g0_live[2];
_Thread_local int store_buffer__g0_n;

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
    t0 = __VERIFIER_nondet_ulong();
#line 9 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 9 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
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
    __VERIFIER_atomic_begin();
#line 14 "tests/c/sb.c"
    __weakc_tmp11 = store_buffer__g0_read(&r0, __weakc_me);
#line 14 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 14 "tests/c/sb.c"
    if (__weakc_tmp11 == 0) {
#line 14 "tests/c/sb.c"
        __VERIFIER_atomic_begin();
#line 14 "tests/c/sb.c"
        __weakc_tmp12 = store_buffer__g0_read(&r1, __weakc_me);
#line 14 "tests/c/sb.c"
        __VERIFIER_atomic_end();
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
    store_buffer__g0_write(&x, 1, __weakc_me);
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    store_buffer__g0_drain_one();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    __weakc_tmp13 = store_buffer__g0_read(&y, __weakc_me);
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    store_buffer__g0_write(&r0, __weakc_tmp13, __weakc_me);
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    store_buffer__g0_drain_one();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/sb.c"
    store_buffer__g0_drain_one();
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
    if (__VERIFIER_nondet_bool()) {
#line 7 "tests/c/sb.c"
        store_buffer__g0_delay(&y, 1, __weakc_me);
    } else {
#line 7 "tests/c/sb.c"
        store_buffer__g0_write(&y, 1, __weakc_me);
    }
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    store_buffer__g0_drain_one();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    __weakc_tmp14 = store_buffer__g0_read(&x, __weakc_me);
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    store_buffer__g0_write(&r1, __weakc_tmp14, __weakc_me);
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    store_buffer__g0_drain_one();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/sb.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/sb.c"
    store_buffer__g0_drain_one();
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

#line 264 "target/snapshot-out/sb_tso.c"
void store_buffer__g0_flush_own(int me)
{
    if (store_buffer__g0_live[0]) {
        *store_buffer__g0_addr[0] = store_buffer__g0_val[0];
        store_buffer__g0_live[0] = 0;
    }
    if (store_buffer__g0_live[1]) {
        *store_buffer__g0_addr[1] = store_buffer__g0_val[1];
        store_buffer__g0_live[1] = 0;
    }
    if ((1 && !store_buffer__g0_live[0]) && !store_buffer__g0_live[1]) {
        store_buffer__g0_n = 0;
    }
}

void store_buffer__g0_flush_lw(int me)
{
    if (store_buffer__g0_live[0] && ((0 || ((store_buffer__g0_live[0] && (store_buffer__g0_addr[0] == store_buffer__g0_addr[0])) && (0 < store_buffer__g0_lw[0]))) || ((store_buffer__g0_live[1] && (store_buffer__g0_addr[1] == store_buffer__g0_addr[0])) && (0 < store_buffer__g0_lw[1])))) {
        *store_buffer__g0_addr[0] = store_buffer__g0_val[0];
        store_buffer__g0_live[0] = 0;
    }
    if (store_buffer__g0_live[1] && (0 || ((store_buffer__g0_live[1] && (store_buffer__g0_addr[1] == store_buffer__g0_addr[1])) && (0 < store_buffer__g0_lw[1])))) {
        *store_buffer__g0_addr[1] = store_buffer__g0_val[1];
        store_buffer__g0_live[1] = 0;
    }
    if ((1 && !store_buffer__g0_live[0]) && !store_buffer__g0_live[1]) {
        store_buffer__g0_n = 0;
    }
}

void store_buffer__g0_mark_lw(int me)
{
    if (store_buffer__g0_live[0]) {
        store_buffer__g0_lw[0] = store_buffer__g0_lw[0] + 1;
    }
    if (store_buffer__g0_live[1]) {
        store_buffer__g0_lw[1] = store_buffer__g0_lw[1] + 1;
    }
}

void store_buffer__g0_drain_one()
{
    _Bool older;
    _Bool done;
    int *a;
    int v;
    older = 0;
    done = 0;
    a = (int *)0;
    if ((!done && (store_buffer__g0_live[0] && __VERIFIER_nondet_bool())) && !older) {
        a = store_buffer__g0_addr[0];
        v = store_buffer__g0_val[0];
        store_buffer__g0_live[0] = 0;
        done = 1;
    }
    if (store_buffer__g0_live[0]) {
        older = 1;
    }
    if ((!done && (store_buffer__g0_live[1] && __VERIFIER_nondet_bool())) && !older) {
        a = store_buffer__g0_addr[1];
        v = store_buffer__g0_val[1];
        store_buffer__g0_live[1] = 0;
        done = 1;
    }
    if (store_buffer__g0_live[1]) {
        older = 1;
    }
    if (done) {
        *a = v;
    }
    if ((1 && !store_buffer__g0_live[0]) && !store_buffer__g0_live[1]) {
        store_buffer__g0_n = 0;
    }
}

int store_buffer__g0_read(int *p, int me)
{
    int v;
    int *__weakc_target;
    __weakc_target = p;
    v = *p;
    if (store_buffer__g0_live[0] && (store_buffer__g0_addr[0] == p)) {
        v = store_buffer__g0_val[0];
    }
    if (store_buffer__g0_live[1] && (store_buffer__g0_addr[1] == p)) {
        v = store_buffer__g0_val[1];
    }
    return v;
}

void store_buffer__g0_delay(int *p, int v, int me)
{
    __VERIFIER_assume(store_buffer__g0_n < 2);
    store_buffer__g0_addr[store_buffer__g0_n] = p;
    store_buffer__g0_val[store_buffer__g0_n] = v;
    store_buffer__g0_lw[store_buffer__g0_n] = 0;
    store_buffer__g0_live[store_buffer__g0_n] = 1;
    store_buffer__g0_n = store_buffer__g0_n + 1;
}

void store_buffer__g0_write(int *p, int v, int me)
{
    int *__weakc_target;
    __weakc_target = p;
    if (((0 || store_buffer__g0_live[0]) || store_buffer__g0_live[1]) && __VERIFIER_nondet_bool()) {
        store_buffer__g0_delay(p, v, me);
    } else {
        store_buffer__g0_flush_own(me);
        *p = v;
    }
}

void __weakc_flush_all_own(int me)
{
    store_buffer__g0_flush_own(me);
}

void __weakc_flush_all_lw(int me)
{
    store_buffer__g0_flush_lw(me);
}

void __weakc_mark_all_lw(int me)
{
    store_buffer__g0_mark_lw(me);
}
