/* deflate_tiles: geo's run deflater (Sources/RunDeflate) against zlib on the same PNG rows.
 *
 * usage: deflate_tiles ROWS.bin ROW_BYTES ROWS_PER_TILE PIXEL_BYTES [REPEATS]
 *
 * ROWS.bin is what bench/deflate.py writes: the inflated IDAT of every tile of one kind, one
 * after another (filter byte and RGBA pixels, PIXEL_BYTES 4, or palette indices, PIXEL_BYTES 1;
 * ROWS_PER_TILE rows of ROW_BYTES each a tile). The file is read into
 * memory first; then every tile is deflated, each pass over all tiles timed with
 * clock_gettime(CLOCK_MONOTONIC), REPEATS passes (default 3), the best reported: by the run
 * deflater as geo calls it for a tile (one block, the whole tile), and by zlib's deflate at
 * levels 1, 2 and 6 (windowBits 15, memLevel 9, as geo's zlib path). Each run deflater stream is
 * inflated again by zlib's uncompress and compared with its rows before any timing.
 *
 * Output, one "key value" per line (deflate.py parses it):
 *     tiles N
 *     run_us_per_tile X     run_bytes B
 *     zlib1_us_per_tile X   zlib1_bytes B    (likewise zlib2, zlib6)
 *
 * build: cc -O3 -I Sources/RunDeflate/include bench/deflate_tiles.c Sources/RunDeflate/run_deflate.c -lz
 */
#include "RunDeflate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int pixel_bytes = 4;

static long run_deflate(const uint8_t *tile, long size, long row_bytes, uint32_t *tokens, uint8_t *out) {
    struct geo_run_deflate state;
    geo_run_deflate_start(&state, row_bytes, pixel_bytes);
    long n = geo_run_deflate_block(&state, tile, size, 0, tokens, out);
    return n + geo_run_deflate_finish(&state, out + n);
}

static long zlib_deflate(const uint8_t *tile, long size, int level, uint8_t *out, long room) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 15, 9, Z_DEFAULT_STRATEGY) != Z_OK) exit(2);
    z.next_in = (Bytef *)tile;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)room;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) exit(2);
    long n = (long)z.total_out;
    deflateEnd(&z);
    return n;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: deflate_tiles ROWS.bin ROW_BYTES ROWS_PER_TILE PIXEL_BYTES [REPEATS]\n");
        return 64;
    }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 66; }
    fseek(file, 0, SEEK_END);
    long total = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *data = malloc(total);
    if (!data || fread(data, 1, total, file) != (size_t)total) return 74;
    fclose(file);
    long row_bytes = atol(argv[2]), size = row_bytes * atol(argv[3]), tiles = total / size;
    pixel_bytes = atoi(argv[4]);
    int repeats = argc > 5 ? atoi(argv[5]) : 3;
    long room = geo_run_deflate_bound(size) + 24;
    uint32_t *tokens = malloc(sizeof *tokens * size);
    uint8_t *out = malloc(room), *back = malloc(size);
    for (long t = 0; t < tiles; t++) {   // every stream inflates to its rows
        long n = run_deflate(data + t * size, size, row_bytes, tokens, out);
        uLongf length = size;
        if (uncompress(back, &length, out, n) != Z_OK || length != (uLongf)size || memcmp(back, data + t * size, size)) {
            fprintf(stderr, "tile %ld: the run deflater's stream does not inflate to its rows\n", t);
            return 1;
        }
    }
    printf("tiles %ld\n", tiles);
    const int levels[] = {0, 1, 2, 6};   // 0: the run deflater
    for (int k = 0; k < 4; k++) {
        double best = 1e30;
        long bytes = 0;
        for (int r = 0; r < repeats; r++) {
            double start = now();
            bytes = 0;
            for (long t = 0; t < tiles; t++) {
                bytes += levels[k] ? zlib_deflate(data + t * size, size, levels[k], out, room)
                                   : run_deflate(data + t * size, size, row_bytes, tokens, out);
            }
            double seconds = now() - start;
            if (seconds < best) best = seconds;
        }
        if (levels[k]) printf("zlib%d_us_per_tile %.1f\nzlib%d_bytes %ld\n", levels[k], best / tiles * 1e6, levels[k], bytes);
        else printf("run_us_per_tile %.1f\nrun_bytes %ld\n", best / tiles * 1e6, bytes);
    }
    return 0;
}
