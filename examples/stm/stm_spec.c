/* The sequential reference of the STM libraries (`weakc check --spec stm_spec.c`):
 * transactions over two shared variables, var[0] ("x") and var[1] ("y"), both 0 at first.
 * Each operation is ONE attempt of a transaction, which commits or aborts and returns.
 * Here every attempt runs atomically (the serial executions never overlap two calls) and
 * may abort whenever it likes (__VERIFIER_nondet_int()): an aborted attempt writes nothing,
 * and what it returns is what an attempt that read a consistent snapshot (the current
 * state) and then gave up may return: the values of the reads it finished so far.
 *
 * Operations (`self` is the calling thread's number, 1, 2, ...; the spec ignores it, the
 * STMs use it as the owner identity of locks and transaction descriptors):
 *   int tx_w(int self, int v)      write v to x, then to y; 1 committed, 0 aborted
 *   int tx_r(int self, int first)  read var[first], then var[1 - first];
 *                                  100 * committed + 10 * r1 + r2
 *   int tx_rw(int self, int i)     read var[i], write var[1 - i] := that value + 1;
 *                                  100 * committed + r1
 * where r1, r2 are the values of the first and second read, or UNREAD (9) for a read the
 * attempt did not finish (it aborted first). A read is "finished" (FOIL's rfin) when the
 * STM hands the value to the transaction: after the read's own validation. An aborted
 * attempt reports the reads it finished, so an STM that lets a doomed transaction see an
 * inconsistent snapshot (x from before a commit, y from after it) produces an observation
 * that is not in this set, whether the attempt then commits or aborts.
 *
 * What the check means. An observation of the STM is in this set iff there is a serial
 * order of ALL attempts, each thread's in program order, such that the committed ones'
 * writes take effect in that order, every committed attempt read the state of its place
 * in the order, and every aborted one's finished reads are a prefix of the reads of that
 * state: opacity (Guerraoui-Kapalka) for the bounded test, WITHOUT its real-time
 * condition (CheckFence's observations carry no timing, so an attempt that finished before
 * another began may still be ordered after it). FOIL's opacity (FMSD 2011, Sec. 2.4.2)
 * keeps real-time order; a violation of the weaker property found here is a violation of
 * FOIL's too, a pass here is a pass of the weaker property only.
 */
#include "fences.h"

extern int __VERIFIER_nondet_int(void);

static int var[2];

void init(void)
{
    var[0] = 0;
    var[1] = 0;
}

int tx_w(int self, int v)
{
    (void)self;
    if (__VERIFIER_nondet_int())
        return 0; /* aborted: writes nothing */
    var[0] = v;
    var[1] = v;
    return 1;
}

int tx_r(int self, int first)
{
    (void)self;
    int r1 = var[first];
    int r2 = var[1 - first];
    switch (__VERIFIER_nondet_int()) {
    case 0:
        return 0 * 100 + 10 * UNREAD + UNREAD; /* aborted before finishing a read */
    case 1:
        return 0 * 100 + 10 * r1 + UNREAD;     /* aborted after the first read */
    case 2:
        return 0 * 100 + 10 * r1 + r2;         /* aborted after both reads (at commit) */
    default:
        return 1 * 100 + 10 * r1 + r2;         /* committed */
    }
}

int tx_rw(int self, int i)
{
    (void)self;
    int r1 = var[i];
    switch (__VERIFIER_nondet_int()) {
    case 0:
        return 0 * 100 + UNREAD; /* aborted before finishing the read */
    case 1:
        return 0 * 100 + r1;     /* aborted after the read (at the write or the commit) */
    default:
        var[1 - i] = r1 + 1;
        return 1 * 100 + r1;     /* committed */
    }
}
