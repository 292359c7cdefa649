#include "RasterKernels.h"

/// x·y/255, rounded, for x and y in 0...255.
static inline uint32_t scale(uint32_t x, uint32_t y) {
    uint32_t product = x * y + 128;
    return (product + (product >> 8)) >> 8;
}

void geo_colour_ramp_fill(struct geo_colour_ramp *ramp, uint32_t colour) {
    const uint32_t red = (colour >> 16) & 0xFF, green = (colour >> 8) & 0xFF, blue = colour & 0xFF;
    ramp->colour = colour;
    for (uint32_t a = 0; a < 256; a++) ramp->words[a] = a << 24 | scale(red, a) << 16 | scale(green, a) << 8 | scale(blue, a);
}

uint32_t geo_composite_coverage(uint8_t *coverage, const struct geo_touched_pixel *touched, long count, uint32_t *pixels,
                                const struct geo_colour_ramp *ramp) {
    uint32_t laid = 0;   // the written pixels' words OR'd together
    enum { ahead = 12 };  // iterations: enough to cover a miss to memory at a few ns an iteration
    const uint32_t colour = ramp->colour;
    const uint32_t alpha = colour >> 24, red = (colour >> 16) & 0xFF, green = (colour >> 8) & 0xFF, blue = colour & 0xFF;
    const uint32_t *words = ramp->words;
    for (long slot = 0; slot < count; slot++) {
        if (slot + ahead < count) __builtin_prefetch(pixels + touched[slot + ahead].pixel, 1);
        const int32_t index = touched[slot].pixel, cell = touched[slot].cell;
        const uint32_t a = scale(alpha, coverage[cell]);  // the source's alpha at this pixel
        coverage[cell] = 0;
        const uint32_t keep = 255 - a, old = pixels[index], old_alpha = old >> 24;
        if (old == words[old_alpha]) {
            // Transparent, or this colour already: the colour stays, only the alpha grows.
            const uint32_t word = words[a + scale(old_alpha, keep)];
            pixels[index] = word;
            laid |= word;
            continue;
        }
        const uint32_t word = (a + scale(old >> 24, keep)) << 24
            | (scale(red, a) + scale((old >> 16) & 0xFF, keep)) << 16
            | (scale(green, a) + scale((old >> 8) & 0xFF, keep)) << 8
            | (scale(blue, a) + scale(old & 0xFF, keep));
        pixels[index] = word;
        laid |= word;
    }
    return laid;
}
