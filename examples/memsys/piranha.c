/* The simplified Piranha single-node cache-coherence protocol of Qadeer's Figure 1
 * ("Verifying sequential consistency on shared-memory multiprocessors by model checking"),
 * as weakc memsys reads it: state in globals, one guarded command per event.
 *
 * Each processor's cache holds every location in state INV, SHD or EXC with its data.
 * owner[l] is the last processor granted shared or exclusive access to l, NONE while a
 * grant is in flight (new grants for l wait until it is received). The owner answers a
 * request itself: for a shared copy it keeps its own (EXC becomes SHD), for an exclusive
 * one it gives its own up. Grants and
 * invalidations travel in a per-processor FIFO input queue of QUEUE messages (a command
 * whose messages would not fit is disabled: the bound of this model).
 *
 *   weakc memsys --depth 12 examples/memsys/piranha.c
 * Build with -D DROPPED_GRANT_RESET for the erroneous earlier version the paper tells of:
 * `acks` does not set owner[l] to NONE, so an exclusive grant can overtake a shared one
 * still queued, and the stale shared copy is never invalidated. */
#define INV 0
#define SHD 1
#define EXC 2
#define MSG_ACKS 0
#define MSG_ACKX 1
#define MSG_INVAL 2
#define NONE (-1)
#ifndef QUEUE
#define QUEUE 2
#endif

int state[PROCESSORS][LOCATIONS];
int data[PROCESSORS][LOCATIONS];
int owner[LOCATIONS];
int q_msg[PROCESSORS][QUEUE];
int q_loc[PROCESSORS][QUEUE];
int q_data[PROCESSORS][QUEUE];
int q_len[PROCESSORS];

/* Every line invalid, processor 0 the owner of every location (its data: the initial 0). */
void init(void) {
    for (int l = 0; l < LOCATIONS; l++)
        owner[l] = 0;
}

static void enqueue(int p, int msg, int l, int d) {
    q_msg[p][q_len[p]] = msg;
    q_loc[p][q_len[p]] = l;
    q_data[p][q_len[p]] = d;
    q_len[p]++;
}

/* The owner answers p's request for a shared copy. */
int enabled_acks(int p, int l) { return state[p][l] == INV && owner[l] != NONE && q_len[p] < QUEUE; }
void acks(int p, int l) {
    int o = owner[l];
    enqueue(p, MSG_ACKS, l, data[o][l]);
    if (state[o][l] == EXC)
        state[o][l] = SHD;
#ifndef DROPPED_GRANT_RESET
    owner[l] = NONE;
#endif
}

/* The owner answers p's request for an exclusive copy, giving its own copy up as it
 * answers (so at most one cache holds a location in EXC: the paper's argument for the
 * simple witness); every other valid copy is invalidated by a message. */
int enabled_ackx(int p, int l) {
    if (state[p][l] == EXC || owner[l] == NONE || q_len[p] >= QUEUE)
        return 0;
    for (int q = 0; q < PROCESSORS; q++)
        if (q != p && q != owner[l] && state[q][l] != INV && q_len[q] >= QUEUE)
            return 0;
    return 1;
}
void ackx(int p, int l) {
    int o = owner[l];
    enqueue(p, MSG_ACKX, l, data[o][l]);
    for (int q = 0; q < PROCESSORS; q++)
        if (q != p && q != o && state[q][l] != INV)
            enqueue(q, MSG_INVAL, l, 0);
    if (o != p)
        state[o][l] = INV;
    owner[l] = NONE;
}

/* p takes the message at the head of its queue. */
int enabled_upd(int p) { return q_len[p] > 0; }
void upd(int p) {
    int msg = q_msg[p][0], l = q_loc[p][0], d = q_data[p][0];
    for (int i = 1; i < QUEUE; i++) {
        q_msg[p][i - 1] = q_msg[p][i];
        q_loc[p][i - 1] = q_loc[p][i];
        q_data[p][i - 1] = q_data[p][i];
    }
    q_len[p]--;
    if (msg == MSG_INVAL) {
        state[p][l] = INV;
    } else {
        data[p][l] = d;
        state[p][l] = msg == MSG_ACKS ? SHD : EXC;
        owner[l] = p;
    }
}

int enabled_read(int p, int l) { return state[p][l] != INV; }
int read(int p, int l) { return data[p][l]; }

int enabled_write(int p, int l, int d) { return state[p][l] == EXC; }
void write(int p, int l, int d) { data[p][l] = d; }
