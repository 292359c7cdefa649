#ifndef GEO_RASTER_KERNELS_H
#define GEO_RASTER_KERNELS_H

#include <stdint.h>

// The inner loops of geo's line rasterizer (Drawing/LineRasterizer.swift), in C: the composite
// prefetches the scattered pixels it is about to blend (Swift cannot say that), and a segment's
// coverage is a few multiplications and a table lookup a pixel, its rows set up without a call
// each.

/// A pixel a line covers: its index in the drawing thread's coverage (which holds only that
/// thread's rows) and in the picture.
struct geo_touched_pixel {
    int32_t cell;
    int32_t pixel;
};

/// The pixels a line covers, each once, in a buffer that grows.
struct geo_touched {
    struct geo_touched_pixel *items;
    long count;
    long capacity;
};

/// A line's coverage of a pixel by the squared distance of its centre from the line's nearest
/// segment: the overlap of the pixel's [d - 1/2, d + 1/2] with the band [-half, half], in
/// 0-255, sampled at the middles of `GEO_COVER_STEPS` equal steps of d^2 from 0 to (half + 1/2)^2
/// (beyond that, nothing). Looking it up spares a square root a pixel; between samples, d moves
/// by under 0.002 px for lines 1 px wide or more, under a level of coverage.
enum { GEO_COVER_STEPS = 4096 };
struct geo_cover_table {
    double half;
    double scale;  // steps per unit of d^2
    uint8_t values[GEO_COVER_STEPS];
};

/// Fills `table` for lines `half` wide on each side.
void geo_cover_table_fill(struct geo_cover_table *table, double half);

/// A segment from (ax, ay) to (bx, by) (finite, in pixels; equal for a dot) of a line `half`
/// wide on each side (`table` filled for it): every pixel of the drawing thread's rows within
/// reach gets the coverage `table` gives its distance where that exceeds its own, and a pixel
/// covered for the first time is added to `touched`. The thread's rows are every `bands`-th
/// stripe of `stripe` rows from stripe `band` on, stacked in `coverage` (`width` cells a row);
/// the picture is `width`×`height`. One call a segment, so that the rows' set-up stays in C.
///
/// Unless the segment `starts_line`, pixels before its start (whose nearest point on it is (ax,
/// ay)) are skipped: (ax, ay) ends the previous segment, which is at least as near them, so the
/// line's coverage (the largest of its segments') is the same (up to rounding in the last bit
/// of a distance). A pixel before the start of that one too is nearer still to the start of
/// the one before, and so on back to the first, which draws its start cap whole. The skip
/// halves the pixels tried for segments under a pixel long, as at low zooms.
void geo_cover_segment(uint8_t *coverage, long width, long height, long band, long bands, long stripe,
                       double ax, double ay, double bx, double by, double half, int starts_line,
                       const struct geo_cover_table *table, struct geo_touched *touched);

/// A line's `count` points (x, y pairs in pixels; one point: a dot) through geo_cover_segment,
/// segment by segment: a segment with an end that is not finite is left out, and the one after
/// it starts the line again (draws its start cap). One call a line: the per-segment loop stays
/// in C beside the kernel it calls.
void geo_cover_line(uint8_t *coverage, long width, long height, long band, long bands, long stripe,
                    const double *points, long count, double half, const struct geo_cover_table *table,
                    struct geo_touched *touched);

/// A line's colour (unpremultiplied 0xAARRGGBB) and its red, green and blue premultiplied by
/// each alpha 0-255 (`words[a]`, premultiplied ARGB32).
struct geo_colour_ramp {
    uint32_t colour;
    uint32_t words[256];
};

/// Fills `ramp` for `colour`.
void geo_colour_ramp_fill(struct geo_colour_ramp *ramp, uint32_t colour);

/// Lays a line's coverage onto the picture, source over: for each of the `count` pixels in
/// `touched`, `pixels[pixel]` (premultiplied ARGB32) gets the ramp's colour at
/// `coverage[cell]`/255 of its alpha, and `coverage[cell]` is cleared. A pixel already of the
/// line's colour (at any alpha, or transparent) stays exactly that colour: only its alpha
/// grows, to a + old alpha (1 - a), as over says; blending each premultiplied channel apart
/// would round it off the colour by a level, and a tile in one colour would no longer have one
/// colour per alpha (what a palette PNG of it needs). The pixels of a line are scattered over a
/// picture too large for the caches: each is asked for a few iterations before it is needed.
/// Returns the words it wrote OR'd together: its top byte is 0 when the line laid no ink.
uint32_t geo_composite_coverage(uint8_t *coverage, const struct geo_touched_pixel *touched, long count, uint32_t *pixels,
                                const struct geo_colour_ramp *ramp);

#endif
