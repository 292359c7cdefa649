// zlib (libz), loaded on first use, so that only the runs that write PNG pictures or read gzip
// input load it: see lazy_library.h. geo's PNG encoder (Drawing/PNGEncoder.swift) deflates,
// the reader of gzip input (Records/GzipDecoder.swift) inflates. cairo's
// libpng, which uses zlib too, binds to libz itself: these wrappers are hidden, so no call of
// libpng's ever reaches them.
// The header's own export macro, set to hidden: these wrappers stay inside the executable.
#define ZEXTERN __attribute__((visibility("hidden"))) extern
#include <zlib.h>

#include "lazy_library.h"

static struct lazy_library zlib = {
    {"libz.so.1", "libz.so"}, "zlib", "zlib1g", PTHREAD_MUTEX_INITIALIZER, NULL,
};
#define LAZY_LIBRARY zlib

FORWARD(uLong, crc32, (uLong crc, const Bytef *buffer, uInt length), (crc, buffer, length))
FORWARD(int, deflate, (z_streamp stream, int flush), (stream, flush))
FORWARD(int, deflateEnd, (z_streamp stream), (stream))
FORWARD(int, deflateInit2_, (z_streamp stream, int level, int method, int windowBits, int memLevel, int strategy,
                             const char *version, int streamSize),
        (stream, level, method, windowBits, memLevel, strategy, version, streamSize))
FORWARD(int, inflate, (z_streamp stream, int flush), (stream, flush))
FORWARD(int, inflateEnd, (z_streamp stream), (stream))
FORWARD(int, inflateReset, (z_streamp stream), (stream))
FORWARD(int, inflateInit2_, (z_streamp stream, int windowBits, const char *version, int streamSize),
        (stream, windowBits, version, streamSize))
