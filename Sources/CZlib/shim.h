// zlib's deflate and crc32 (zlib1g-dev), for geo's PNG encoder. Headers only: SystemLibraries
// loads libz on first use.
#include <zlib.h>
