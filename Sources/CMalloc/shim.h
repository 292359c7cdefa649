// What Swift's Glibc module leaves out of glibc: malloc tuning (mallopt and its M_* parameters), renameat2.
#include <malloc.h>

// Asks the caches for the first `bytes` (at most 2 KB) at `start` ahead of their use: memory
// about to be read from a place a load could not predict (a tile's next feature in the spool,
// whose first read otherwise waits on memory). Swift has no word for a prefetch.
static inline void geo_prefetch(const void *start, long bytes) {
    const char *at = (const char *)start;
    if (bytes > 2048) bytes = 2048;
    for (long offset = 0; offset < bytes; offset += 64) __builtin_prefetch(at + offset);
}

// Swaps two names in one step (renameat2's RENAME_EXCHANGE, Linux 3.15): a folder built beside
// its name takes the old one's place while a reader sees one or the other, never neither.
// Declared here because Swift's Glibc module is built without _GNU_SOURCE, which hides it.
int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
static inline int geo_exchange_names(const char *a, const char *b) {
    return renameat2(-100 /* AT_FDCWD */, a, -100, b, 1u << 1 /* RENAME_EXCHANGE */);
}
