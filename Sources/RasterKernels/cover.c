#include <math.h>
#include <stdlib.h>

#include "RasterKernels.h"

static inline double smaller(double a, double b) { return a < b ? a : b; }
static inline double larger(double a, double b) { return a > b ? a : b; }

void geo_cover_table_fill(struct geo_cover_table *table, double half) {
    const double reach = half + 0.5, step = reach * reach / GEO_COVER_STEPS;
    table->half = half;
    table->scale = 1 / step;
    for (int index = 0; index < GEO_COVER_STEPS; index++) {
        const double distance = sqrt((index + 0.5) * step);
        const double covered = smaller(distance + 0.5, half) - larger(distance - 0.5, -half);
        table->values[index] = covered <= 0 ? 0 : (uint8_t)(smaller(1, covered) * 255 + 0.5);
    }
}

static void grow(struct geo_touched *touched) {
    long capacity = touched->capacity ? 2 * touched->capacity : 4096;
    struct geo_touched_pixel *items = realloc(touched->items, capacity * sizeof *items);
    if (!items) abort();  // as Swift does when an allocation fails
    touched->items = items;
    touched->capacity = capacity;
}

// One row of a segment: the pixels `first`...`last` of `cells` (the line's coverage of the
// row, 0-255), whose first centre lies `along` the segment from its start and `across` it,
// each next one `ux` further along and `uy` less across, get the coverage `table` gives their
// distance from the segment (`length` long, round ends) where it exceeds theirs; a pixel
// covered for the first time is added to `touched` as `cellBase` + its column in the coverage,
// `pixelBase` + its column in the picture.
static inline void geo_cover_row(uint8_t *cells, long first, long last, double along, double across, double ux, double uy,
                                 double length, const struct geo_cover_table *table, int32_t cellBase, int32_t pixelBase,
                                 struct geo_touched *touched) {
    const double scale = table->scale;
    // Room for every pixel of the row first, so that the loop takes no branch on the data (a
    // pixel's being covered, or covered for the first time, is as likely as not at an edge).
    while (touched->capacity - touched->count < last - first + 1) grow(touched);
    struct geo_touched_pixel *items = touched->items;
    long count = touched->count;
    for (long column = first; column <= last; column++, along += ux, across -= uy) {
        const double beyond = along < 0 ? -along : along > length ? along - length : 0;
        const double step = (beyond * beyond + across * across) * scale;
        const int inside = step < GEO_COVER_STEPS;
        const uint8_t value = table->values[inside ? (long)step : 0] & (uint8_t)-inside;
        const uint8_t old = cells[column];
        cells[column] = value > old ? value : old;
        items[count] = (struct geo_touched_pixel){cellBase + (int32_t)column, pixelBase + (int32_t)column};
        count += old == 0 && value != 0;
    }
    touched->count = count;
}

// ⌈x⌉, 0 for any x <= 0 (as the Swift code it replaced: Band.ceiling); x is held below 2^53,
// past any picture.
static inline long ceiling(double x) {
    if (!(x > 0)) return 0;
    if (x > 9e15) x = 9e15;
    long whole = (long)x;
    return (double)whole < x ? whole + 1 : whole;
}

// ⌊x⌋, -1 for any x < 0.
static inline long floor_or_minus_one(double x) {
    if (!(x >= 0)) return -1;
    if (x > 9e15) x = 9e15;
    return (long)x;
}

// One row of a segment: pixel centres are tried within the rectangle round the capsule,
// `across` the segment at most reach, `along` it from `before` (-reach, or 0 when the previous
// segment's end cap stands in for this one's start cap) to length + reach, a range of columns
// found where each of the two limits is crossed.
static inline void cover_segment_row(uint8_t *coverage, long width, long row, long cell_row, double ax, double ay,
                                     double ux, double uy, double inverse_ux, double inverse_uy, double length, double reach,
                                     double before, const struct geo_cover_table *table, struct geo_touched *touched) {
    const double cy = (double)row + 0.5, oy = cy - ay;
    double low = -INFINITY, high = INFINITY;   // in x - ax
    if (fabs(uy) > 1e-9) {
        const double p = (oy * ux - reach) * inverse_uy, q = (oy * ux + reach) * inverse_uy;
        low = q < p ? q : p;
        high = q >= p ? q : p;
    } else if (fabs(oy) > reach) {
        return;
    }
    if (fabs(ux) > 1e-9) {
        const double p = (before - oy * uy) * inverse_ux, q = (length + reach - oy * uy) * inverse_ux;
        const double least = q < p ? q : p, most = q >= p ? q : p;
        low = least >= low ? least : low;
        high = most < high ? most : high;
    } else if (oy * uy < before || oy * uy > length + reach) {
        return;
    }
    if (!(low <= high)) return;
    const long left = ceiling(ax + low - 0.5);
    long right = floor_or_minus_one(ax + high - 0.5);
    if (right > width - 1) right = width - 1;
    if (left > right) return;
    // The pixel centre in the segment's frame: `along` it from a, `across` it; both step by a
    // constant from one column to the next.
    const double ox = (double)left + 0.5 - ax;
    geo_cover_row(coverage + cell_row * width, left, right, ox * ux + oy * uy, oy * ux - ox * uy, ux, uy, length, table,
                  (int32_t)(cell_row * width), (int32_t)(row * width), touched);
}

void geo_cover_segment(uint8_t *coverage, long width, long height, long band, long bands, long stripe,
                       double ax, double ay, double bx, double by, double half, int starts_line,
                       const struct geo_cover_table *table, struct geo_touched *touched) {
    const double reach = half + 0.5;   // beyond this distance from the segment a pixel's centre is not covered
    const double before = starts_line ? -reach : 0;
    const double dx = bx - ax, dy = by - ay;
    const double length = sqrt(dx * dx + dy * dy);
    const double ux = length > 0 ? dx / length : 1, uy = length > 0 ? dy / length : 0;
    // Rows whose centre (row + 1/2) is within reach of the segment's y range.
    const long top = ceiling((by < ay ? by : ay) - reach - 0.5);
    long bottom = floor_or_minus_one((by >= ay ? by : ay) + reach - 0.5);
    if (bottom > height - 1) bottom = height - 1;
    if (top > bottom) return;
    const double inverse_ux = 1 / ux, inverse_uy = 1 / uy;
    if (bands == 1) {   // one thread (every map tile): all the rows, and no divisions to find them
        for (long row = top; row <= bottom; row++) {
            cover_segment_row(coverage, width, row, row, ax, ay, ux, uy, inverse_ux, inverse_uy, length, reach, before, table, touched);
        }
        return;
    }
    // This thread's stripes among those rows.
    long s = top / stripe;
    s += (band - s % bands + bands) % bands;
    for (; s * stripe <= bottom; s += bands) {
        const long first = top > s * stripe ? top : s * stripe;
        const long last = bottom < s * stripe + stripe - 1 ? bottom : s * stripe + stripe - 1;
        const long shift = (s / bands - s) * stripe;   // a picture row + shift: its row in `coverage`
        for (long row = first; row <= last; row++) {
            cover_segment_row(coverage, width, row, row + shift, ax, ay, ux, uy, inverse_ux, inverse_uy, length, reach, before,
                              table, touched);
        }
    }
}
