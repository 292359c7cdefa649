// glibc's malloc tuning (mallopt and its M_* parameters), which Swift's Glibc module leaves out.
#include <malloc.h>

// Asks the caches for the first `bytes` (at most 2 KB) at `start` ahead of their use: memory
// about to be read from a place a load could not predict (a tile's next feature in the spool,
// whose first read otherwise waits on memory). Swift has no word for a prefetch.
static inline void geo_prefetch(const void *start, long bytes) {
    const char *at = (const char *)start;
    if (bytes > 2048) bytes = 2048;
    for (long offset = 0; offset < bytes; offset += 64) __builtin_prefetch(at + offset);
}
