#include "RasterKernels.h"

/// x·y/255, rounded, for x and y in 0...255.
static inline uint32_t scale(uint32_t x, uint32_t y) {
    uint32_t product = x * y + 128;
    return (product + (product >> 8)) >> 8;
}

void geo_composite_coverage(uint8_t *coverage, const struct geo_touched_pixel *touched, long count, uint32_t *pixels, uint32_t colour) {
    enum { ahead = 12 };  // iterations: enough to cover a miss to memory at a few ns an iteration
    const uint32_t alpha = colour >> 24, red = (colour >> 16) & 0xFF, green = (colour >> 8) & 0xFF, blue = colour & 0xFF;
    const uint32_t solid = 0xFF000000u | (colour & 0xFFFFFFu);
    for (long slot = 0; slot < count; slot++) {
        if (slot + ahead < count) __builtin_prefetch(pixels + touched[slot + ahead].pixel, 1);
        const int32_t index = touched[slot].pixel, cell = touched[slot].cell;
        const uint32_t a = scale(alpha, coverage[cell]);  // the source's alpha at this pixel
        coverage[cell] = 0;
        if (a == 255) {
            pixels[index] = solid;
            continue;
        }
        const uint32_t keep = 255 - a, old = pixels[index];
        pixels[index] = (a + scale(old >> 24, keep)) << 24
            | (scale(red, a) + scale((old >> 16) & 0xFF, keep)) << 16
            | (scale(green, a) + scale((old >> 8) & 0xFF, keep)) << 8
            | (scale(blue, a) + scale(old & 0xFF, keep));
    }
}
