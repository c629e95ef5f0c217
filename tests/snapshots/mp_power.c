/*
 * Instrumented by weakc 0.1.0 for power (strategy ilp) from tests/c/mp.c.
 * SC executions of this program include the power executions of the original
 * (within the buffer depths stated below). Compile with: cc -I runtime
 */
#include "weakc.h"

int main();
void *writer(void *);
void *reader(void *);
void data__g0_flush_own(int);
void data__g0_flush_lw(int);
void data__g0_mark_lw(int);
void data__g0_flush_some();
int data__g0_read(int *, int);
int data__g0_read_own(int *, int);
void data__g0_delay(int *, int, int);
void data__g0_write(int *, int, int);
void __weakc_flush_all_own(int);
void __weakc_flush_all_lw(int);
void __weakc_mark_all_lw(int);

#line 4 "tests/c/mp.c"
int data = 0;
#line 4 "tests/c/mp.c"
int flag = 0;
int r0 = 0;
#line 5 "tests/c/mp.c"
int r1 = 0;
#line 31 "target/snapshot-out/mp_power.c"
int __weakc_next_tid;
int *data__g0_addr[1];
int data__g0_val[1];
int data__g0_thd[1];
int data__g0_lw[1];
_Bool data__g0_live[1];
int data__g0_n;

#line 8 "tests/c/mp.c"
int main()
{
#line 9 "tests/c/mp.c"
    unsigned long a;
#line 9 "tests/c/mp.c"
    unsigned long b;
#line 14 "tests/c/mp.c"
    int __weakc_tmp0;
#line 12 "tests/c/mp.c"
    unsigned long __weakc_tmp9;
    unsigned long __weakc_tmp10;
    int __weakc_tmp11;
#line 14 "tests/c/mp.c"
    int __weakc_tmp12;
#line 8 "tests/c/mp.c"
    int __weakc_me;
#line 8 "tests/c/mp.c"
    __weakc_me = 0;
    __VERIFIER_atomic_begin();
#line 9 "tests/c/mp.c"
    __weakc_flush_all_lw(__weakc_me);
#line 9 "tests/c/mp.c"
    a = __VERIFIER_nondet_ulong();
#line 9 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 9 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 9 "tests/c/mp.c"
    __weakc_flush_all_lw(__weakc_me);
#line 9 "tests/c/mp.c"
    b = __VERIFIER_nondet_ulong();
#line 9 "tests/c/mp.c"
    __VERIFIER_atomic_end();
    __VERIFIER_atomic_begin();
#line 10 "tests/c/mp.c"
    __weakc_flush_all_own(__weakc_me);
#line 10 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 10 "tests/c/mp.c"
    pthread_create(&a, 0, writer, ((void *)0));
    __VERIFIER_atomic_begin();
#line 11 "tests/c/mp.c"
    __weakc_flush_all_own(__weakc_me);
#line 11 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 11 "tests/c/mp.c"
    pthread_create(&b, 0, reader, ((void *)0));
    __weakc_tmp9 = a;
#line 12 "tests/c/mp.c"
    pthread_join(__weakc_tmp9, 0);
    __weakc_tmp10 = b;
#line 13 "tests/c/mp.c"
    pthread_join(__weakc_tmp10, 0);
    __weakc_tmp11 = r0;
#line 14 "tests/c/mp.c"
    if (__weakc_tmp11 == 1) {
#line 14 "tests/c/mp.c"
        __weakc_tmp12 = r1;
#line 14 "tests/c/mp.c"
        __weakc_tmp0 = __weakc_tmp12 == 0;
    } else {
#line 14 "tests/c/mp.c"
        __weakc_tmp0 = 0;
    }
#line 14 "tests/c/mp.c"
    /* !(r0 == 1 && r1 == 0) */ __VERIFIER_assert(!__weakc_tmp0);
    __VERIFIER_atomic_begin();
#line 15 "tests/c/mp.c"
    __weakc_flush_all_own(__weakc_me);
#line 15 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 15 "tests/c/mp.c"
    return 0;
#line 8 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 8 "tests/c/mp.c"
    __weakc_flush_all_own(__weakc_me);
#line 8 "tests/c/mp.c"
    __VERIFIER_atomic_end();
}

#line 6 "tests/c/mp.c"
void *writer(void *arg)
{
#line 6 "tests/c/mp.c"
    int __weakc_me;
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/mp.c"
    __weakc_next_tid = __weakc_next_tid + 1;
#line 6 "tests/c/mp.c"
    __weakc_me = __weakc_next_tid;
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/mp.c"
    if (__VERIFIER_nondet_bool()) {
#line 6 "tests/c/mp.c"
        data__g0_delay(&data, 1, __weakc_me);
    } else {
#line 6 "tests/c/mp.c"
        __weakc_flush_all_lw(__weakc_me);
#line 6 "tests/c/mp.c"
        data__g0_write(&data, 1, __weakc_me);
    }
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/mp.c"
    __weakc_flush_all_lw(__weakc_me);
#line 6 "tests/c/mp.c"
    flag = 1;
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/mp.c"
    __weakc_flush_all_own(__weakc_me);
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 6 "tests/c/mp.c"
    return ((void *)0);
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 6 "tests/c/mp.c"
    __weakc_flush_all_own(__weakc_me);
#line 6 "tests/c/mp.c"
    __VERIFIER_atomic_end();
}

#line 7 "tests/c/mp.c"
void *reader(void *arg)
{
#line 7 "tests/c/mp.c"
    int __weakc_tmp13;
#line 7 "tests/c/mp.c"
    int __weakc_tmp14;
#line 7 "tests/c/mp.c"
    int __weakc_me;
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/mp.c"
    __weakc_next_tid = __weakc_next_tid + 1;
#line 7 "tests/c/mp.c"
    __weakc_me = __weakc_next_tid;
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/mp.c"
    __weakc_tmp13 = flag;
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/mp.c"
    __weakc_flush_all_lw(__weakc_me);
#line 7 "tests/c/mp.c"
    r0 = __weakc_tmp13;
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/mp.c"
    data__g0_flush_some();
#line 7 "tests/c/mp.c"
    __weakc_tmp14 = data__g0_read_own(&data, __weakc_me);
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/mp.c"
    __weakc_flush_all_lw(__weakc_me);
#line 7 "tests/c/mp.c"
    r1 = __weakc_tmp14;
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/mp.c"
    __weakc_flush_all_own(__weakc_me);
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_end();
#line 7 "tests/c/mp.c"
    return ((void *)0);
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_begin();
#line 7 "tests/c/mp.c"
    __weakc_flush_all_own(__weakc_me);
#line 7 "tests/c/mp.c"
    __VERIFIER_atomic_end();
}

#line 232 "target/snapshot-out/mp_power.c"
void data__g0_flush_own(int me)
{
    if (data__g0_live[0] && (0 || ((data__g0_live[0] && (data__g0_thd[0] == me)) && (data__g0_addr[0] == data__g0_addr[0])))) {
        *data__g0_addr[0] = data__g0_val[0];
        data__g0_live[0] = 0;
    }
    if (1 && !data__g0_live[0]) {
        data__g0_n = 0;
    }
}

void data__g0_flush_lw(int me)
{
    if (data__g0_live[0] && (0 || (((data__g0_live[0] && (data__g0_thd[0] == me)) && (data__g0_addr[0] == data__g0_addr[0])) && (0 < data__g0_lw[0])))) {
        *data__g0_addr[0] = data__g0_val[0];
        data__g0_live[0] = 0;
    }
    if (1 && !data__g0_live[0]) {
        data__g0_n = 0;
    }
}

void data__g0_mark_lw(int me)
{
    if (data__g0_live[0] && (data__g0_thd[0] == me)) {
        data__g0_lw[0] = data__g0_lw[0] + 1;
    }
}

void data__g0_flush_some()
{
    if (data__g0_live[0] && __VERIFIER_nondet_bool()) {
        *data__g0_addr[0] = data__g0_val[0];
        data__g0_live[0] = 0;
    }
    if (1 && !data__g0_live[0]) {
        data__g0_n = 0;
    }
}

int data__g0_read(int *p, int me)
{
    int v;
    int *__weakc_target;
    __weakc_target = p;
    v = *p;
    if ((data__g0_live[0] && (data__g0_addr[0] == p)) && ((data__g0_thd[0] == me) || __VERIFIER_nondet_bool())) {
        v = data__g0_val[0];
    }
    return v;
}

int data__g0_read_own(int *p, int me)
{
    int v;
    int *__weakc_target;
    __weakc_target = p;
    v = *p;
    if ((data__g0_live[0] && (data__g0_addr[0] == p)) && (data__g0_thd[0] == me)) {
        v = data__g0_val[0];
    }
    return v;
}

void data__g0_delay(int *p, int v, int me)
{
    __VERIFIER_assume(data__g0_n < 1);
    data__g0_addr[data__g0_n] = p;
    data__g0_val[data__g0_n] = v;
    data__g0_thd[data__g0_n] = me;
    data__g0_lw[data__g0_n] = 0;
    data__g0_live[data__g0_n] = 1;
    data__g0_n = data__g0_n + 1;
}

void data__g0_write(int *p, int v, int me)
{
    int *__weakc_target;
    __weakc_target = p;
    if ((data__g0_live[0] && (data__g0_addr[0] == p)) && (0 || ((data__g0_live[0] && (data__g0_thd[0] == me)) && (data__g0_addr[0] == p)))) {
        *data__g0_addr[0] = data__g0_val[0];
        data__g0_live[0] = 0;
    }
    if (1 && !data__g0_live[0]) {
        data__g0_n = 0;
    }
    *p = v;
}

void __weakc_flush_all_own(int me)
{
    data__g0_flush_own(me);
}

void __weakc_flush_all_lw(int me)
{
    data__g0_flush_lw(me);
}

void __weakc_mark_all_lw(int me)
{
    data__g0_mark_lw(me);
}
