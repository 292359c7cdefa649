// zlib's deflate, inflate and crc32 (zlib1g-dev), for geo's PNG encoder and gzip input. Headers only: SystemLibraries
// loads libz on first use.
#include <zlib.h>
