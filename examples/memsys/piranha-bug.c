/* The erroneous earlier version of the Piranha protocol that Qadeer's paper tells of:
 * `acks` does not set owner[l] to NONE, so an exclusive grant can overtake a shared grant
 * still in the requester's queue; no invalidation is sent to it (its line is still INV),
 * and when it finally takes the shared grant it keeps a stale copy. A 2-nice cycle in a
 * run of 12 events.
 *   weakc memsys --depth 12 --k 2 --canonical examples/memsys/piranha-bug.c */
#define DROPPED_GRANT_RESET
#include "piranha.c"
