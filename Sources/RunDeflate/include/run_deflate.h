#ifndef GEO_RUN_DEFLATE_STREAM_H
#define GEO_RUN_DEFLATE_STREAM_H

#include <stdint.h>

// run_deflate.c: the deflate stream. (png_rows.h: the PNG rows it is given.)

// A zlib stream (RFC 1950/1951) made for pictures that are mostly runs: map tiles, where most
// pixels are transparent and a line's pixels repeat its colour. At each byte it tries two
// matches only, the pixel before (4 bytes back, 1 in palette rows) and one row up, and takes
// the longer (3 to 258 bytes), else a literal: no hash table, no search. Each call is one
// deflate block with its own Huffman codes (dynamic codes built from the block's counts, or the
// fixed codes, or the bytes stored, whichever is shortest), as fpng does for PNG. On the 1,155
// palette tiles of bench/tiles.py's Europe corpus it takes 0.11 ms a tile where zlib's level 2
// takes 0.51 ms, and its output is smaller (16.4 MB against 18.2 MB; level 6: 16.8 MB); on
// RGBA tiles it is 4.6× as fast as level 2 for output 12–30 % larger (`python3
// bench/deflate.py`, 2026-12-06). Any inflater reads it: the tests inflate it with zlib and
// Python.

/// The encoder's state across calls: pending bits, the running adler-32, the length table.
struct geo_run_deflate {
    uint64_t bits;          // pending output bits, first bit in bit 0
    int count;              // how many of `bits` are pending (fewer than 8 between blocks)
    uint32_t adler_a, adler_b;
    long row_bytes;
    int pixel_bytes;               // 4 (RGBA) or 1 (a palette index): matches are tried that far back
    int pixel_symbol;              // that distance's symbol
    uint16_t length_symbol[259];   // match length 3-258: its symbol 257-285
    uint8_t length_extra_bits[259];
    uint16_t length_extra[259];    // the value of its extra bits
    uint16_t row_symbol, row_extra; // the distance one row up: its symbol and extra bits' value
    uint8_t row_extra_bits;
};

/// The room one call of geo_run_deflate_block needs at `out` for `size` bytes of input: the size
/// of the bytes stored, each stored block's header, the bits still pending, and 8 bytes the
/// bit writer may store past what it sends. What it returns is at least 8 less.
long geo_run_deflate_bound(long size);

/// Starts a stream whose rows (filter byte included) are `row_bytes` long, of pixels
/// `pixel_bytes` (4 or 1) long; matches one row up are tried when a row is at most 32,768 bytes
/// (deflate's window). Writes nothing yet.
void geo_run_deflate_start(struct geo_run_deflate *state, long row_bytes, int pixel_bytes);

/// Compresses the `size` bytes at `data` as one (not final) block; the `history` bytes before
/// `data` (the end of the previous call's data, up to one row) may be matched. `tokens` is
/// scratch for `size` entries. Writes within geo_run_deflate_bound(size) bytes at `out` and
/// returns how many it sent.
long geo_run_deflate_block(struct geo_run_deflate *state, const uint8_t *data, long size, long history,
                           uint32_t *tokens, uint8_t *out);

/// Ends the stream (an empty final block, padding, the adler-32) into `out` (room for 24
/// bytes); returns how many bytes.
long geo_run_deflate_finish(struct geo_run_deflate *state, uint8_t *out);

#endif
