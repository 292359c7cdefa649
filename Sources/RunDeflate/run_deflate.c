#include "run_deflate.h"
#include <stdlib.h>
#include <string.h>
#include <emmintrin.h>   // SSE2: in every x86-64

// Deflate's length symbols 257-285 and distance symbols 0-29: the first value of each and its
// extra bits (RFC 1951 3.2.5).
static const uint16_t length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                         35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                         3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                           257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                           8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                           7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order the code length code's lengths are sent in (RFC 1951 3.2.7).
static const uint8_t code_length_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

enum {
    ADLER_BASE = 65521, ADLER_CHUNK = 5552, LONGEST = 258, WINDOW = 32768,
    LITERALS = 286, FIXED_LITERALS = 288, DISTANCES = 30, CODE_LENGTHS = 19, END_OF_BLOCK = 256,
    // A token: its literal/length entry in bits 0-8 (a literal byte, or 256 + length - 3),
    // and its distance in bits 9-10 (0: none, a literal; PIXEL_MATCH: one pixel back;
    // ROW_MATCH: one row up), so that sending it takes no branch.
    PIXEL_MATCH = 2 << 9, ROW_MATCH = 3 << 9,
    STORED_MOST = 65535,
};

// ---- Bits out: deflate sends each code's first bit first, filling bytes from bit 0. The
// writer is a local copy of the stream's pending bits, so that the compiler keeps it in
// registers (a store through `out` could otherwise be a store to it).

struct bits_out {
    uint64_t bits;   // pending bits, first in bit 0; fewer than 8 between sends, but at the start
    int count;
    uint8_t *out;
};

// Appends `bits` bits (at most 48: with the 7 that may be pending, they fit the 64). Branch-free:
// it always stores 8 bytes and moves on by the whole bytes it filled, so `out` needs 8 bytes of
// room past what is sent.
static inline void send(struct bits_out *w, uint64_t value, int bits) {
    w->bits |= value << w->count;
    w->count += bits;
    memcpy(w->out, &w->bits, 8);   // little-endian: the first bits first
    w->out += w->count >> 3;
    w->bits >>= w->count & 56;
    w->count &= 7;
}

// Sends the pending bits up to the next byte boundary (zero padding).
static void align(struct bits_out *w) {
    send(w, 0, (8 - w->count) & 7);
}

static uint32_t reversed(uint32_t code, int bits) {
    uint32_t result = 0;
    for (int i = 0; i < bits; i++) result |= ((code >> i) & 1) << (bits - 1 - i);
    return result;
}

// ---- Huffman codes.

// Code lengths of at most `limit` bits for the `n` symbols' frequencies (0: unused), as zlib and
// miniz build them: Moffat and Katajainen's in-place minimum-redundancy code on the used symbols
// sorted by frequency, then lengths over the limit folded back (which keeps the code complete),
// the longest lengths going to the rarest symbols. At least two symbols must be used.
static void code_lengths(const uint32_t *frequency, int n, int limit, uint8_t *lengths) {
    uint64_t keys[LITERALS];   // frequency << 16 | symbol, sorted
    int used = 0;
    for (int symbol = 0; symbol < n; symbol++) {
        lengths[symbol] = 0;
        if (frequency[symbol]) keys[used++] = (uint64_t)frequency[symbol] << 16 | (uint64_t)symbol;
    }
    // Sorted by frequency, a byte at a time from the lowest (a stable radix sort: the keys are
    // made in symbol order, so ties stay in symbol order, as sorting the whole keys leaves them).
    // A palette tile uses some 200 literals: insertion sort took 1.5 % of a tile run.
    uint32_t most = 0;
    for (int i = 0; i < used; i++) most |= (uint32_t)(keys[i] >> 16);
    uint64_t spare[LITERALS], *from = keys, *to = spare;
    for (int shift = 16; shift < 48 && (most >> (shift - 16)) != 0; shift += 8) {
        int start[257] = {0};
        for (int i = 0; i < used; i++) start[((from[i] >> shift) & 0xFF) + 1]++;
        for (int digit = 1; digit < 257; digit++) start[digit] += start[digit - 1];
        for (int i = 0; i < used; i++) to[start[(from[i] >> shift) & 0xFF]++] = from[i];
        uint64_t *swap = from; from = to; to = swap;
    }
    if (from != keys) memcpy(keys, from, (size_t)used * sizeof *keys);
    uint32_t a[LITERALS];
    for (int i = 0; i < used; i++) a[i] = (uint32_t)(keys[i] >> 16);
    // Moffat-Katajainen: a[i] becomes the length of the i-th rarest symbol.
    if (used == 1) {
        a[0] = 1;
    } else {
        int root = 0, leaf = 2, next;
        a[0] += a[1];
        for (next = 1; next < used - 1; next++) {
            if (leaf >= used || a[root] < a[leaf]) { a[next] = a[root]; a[root++] = (uint32_t)next; }
            else a[next] = a[leaf++];
            if (leaf >= used || (root < next && a[root] < a[leaf])) { a[next] += a[root]; a[root++] = (uint32_t)next; }
            else a[next] += a[leaf++];
        }
        a[used - 2] = 0;
        for (next = used - 3; next >= 0; next--) a[next] = a[a[next]] + 1;
        int available = 1, taken = 0, depth = 0;
        root = used - 2;
        next = used - 1;
        while (available > 0) {
            while (root >= 0 && (int)a[root] == depth) { taken++; root--; }
            while (available > taken) { a[next--] = (uint32_t)depth; available--; }
            available = 2 * taken;
            depth++;
            taken = 0;
        }
    }
    int count[64] = {0};
    for (int i = 0; i < used; i++) count[a[i] < 63 ? a[i] : 63]++;
    for (int bits = limit + 1; bits < 64; bits++) { count[limit] += count[bits]; count[bits] = 0; }
    uint32_t kraft = 0;   // the code's size in units of 2^-limit: full when 2^limit
    for (int bits = limit; bits > 0; bits--) kraft += (uint32_t)count[bits] << (limit - bits);
    while (kraft != 1u << limit) {   // over full: lengthen a shorter code to make room
        count[limit]--;
        for (int bits = limit - 1; bits > 0; bits--) {
            if (count[bits]) { count[bits]--; count[bits + 1] += 2; break; }
        }
        kraft--;
    }
    int next_key = used;
    for (int bits = 1; bits <= limit; bits++) {
        for (int k = count[bits]; k > 0; k--) lengths[keys[--next_key] & 0xFFFF] = (uint8_t)bits;
    }
}

// The canonical codes of those lengths (RFC 1951 3.2.2), bit-reversed for sending.
static void canonical_codes(const uint8_t *lengths, int n, uint32_t *codes) {
    int count[16] = {0};
    for (int symbol = 0; symbol < n; symbol++) count[lengths[symbol]]++;
    count[0] = 0;
    uint32_t next[16] = {0}, code = 0;
    for (int bits = 1; bits < 16; bits++) {
        code = (code + (uint32_t)count[bits - 1]) << 1;
        next[bits] = code;
    }
    for (int symbol = 0; symbol < n; symbol++) {
        int bits = lengths[symbol];
        codes[symbol] = bits ? reversed(next[bits]++, bits) : 0;
    }
}

// deflate's fixed code lengths (RFC 1951 3.2.6), for all 288 literal/length symbols: the two
// that never occur still shift the 9-bit codes, which follow every 8-bit one.
static void fixed_lengths(uint8_t *literal, uint8_t *distance) {
    for (int symbol = 0; symbol < FIXED_LITERALS; symbol++) {
        literal[symbol] = symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8;
    }
    for (int symbol = 0; symbol < DISTANCES; symbol++) distance[symbol] = 5;
}

// ---- The stream.

static int distance_symbol(long distance) {
    int symbol = 29;
    while (distance_base[symbol] > distance) symbol--;
    return symbol;
}

void geo_run_deflate_start(struct geo_run_deflate *s, long row_bytes, int pixel_bytes) {
    memset(s, 0, sizeof *s);
    s->row_bytes = row_bytes <= WINDOW ? row_bytes : 0;
    s->pixel_bytes = pixel_bytes == 1 ? 1 : 4;
    s->pixel_symbol = s->pixel_bytes == 1 ? 0 : 3;   // distance 1 or 4: symbols 0 and 3, no extra bits
    s->adler_a = 1;
    int symbol = 0;
    for (int length = 3; length <= LONGEST; length++) {
        while (symbol < 28 && length_base[symbol + 1] <= length) symbol++;
        s->length_symbol[length] = (uint16_t)(257 + symbol);
        s->length_extra_bits[length] = length_extra[symbol];
        s->length_extra[length] = (uint16_t)(length - length_base[symbol]);
    }
    if (s->row_bytes) {
        int row = distance_symbol(s->row_bytes);
        s->row_symbol = (uint16_t)row;
        s->row_extra_bits = distance_extra[row];
        s->row_extra = (uint16_t)(s->row_bytes - distance_base[row]);
    }
    // The zlib header: deflate, 32 KiB window, fastest (0x7801 is a multiple of 31).
    s->bits = 0x78 | 0x01 << 8;
    s->count = 16;
}

// How many bytes from `here` equal those `distance` back, up to `most`; the match may overlap
// what it copies, as deflate allows.
static inline long match_length(const uint8_t *here, long distance, long most) {
    const uint8_t *there = here - distance;
    long n = 0;
    while (n + 8 <= most) {
        uint64_t a, b;
        memcpy(&a, here + n, 8);
        memcpy(&b, there + n, 8);
        if (a != b) return n + (__builtin_ctzll(a ^ b) >> 3);
        n += 8;
    }
    while (n < most && here[n] == there[n]) n++;
    return n;
}

// The adler-32 of the stream so far, extended by `size` bytes, 16 bytes at a time: for bytes
// d0..d15, b grows by 16a + 16 d0 + 15 d1 + ... + 1 d15 and a by their sum (SSE2's sum of
// absolute differences gives the sum, a multiply-add of 16-bit lanes the weighted sum). Sixteen
// zero bytes only add 16a to b: most of a tile.
static void adler(struct geo_run_deflate *s, const uint8_t *data, long size) {
    uint64_t a = s->adler_a, b = s->adler_b;
    const __m128i zero = _mm_setzero_si128();
    const __m128i high_weights = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
    const __m128i low_weights = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
    while (size > 0) {
        long chunk = size < ADLER_CHUNK ? size : ADLER_CHUNK;
        long i = 0;
        for (; i + 16 <= chunk; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(data + i));
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)) == 0xFFFF) { b += 16 * a; continue; }
            __m128i sums = _mm_sad_epu8(v, zero);
            uint64_t sum = (uint64_t)_mm_cvtsi128_si32(sums) + (uint64_t)_mm_extract_epi16(sums, 4);
            __m128i weighted = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(v, zero), high_weights),
                                             _mm_madd_epi16(_mm_unpackhi_epi8(v, zero), low_weights));
            weighted = _mm_add_epi32(weighted, _mm_shuffle_epi32(weighted, 0x4E));
            weighted = _mm_add_epi32(weighted, _mm_shuffle_epi32(weighted, 0xB1));
            b += 16 * a + (uint32_t)_mm_cvtsi128_si32(weighted);
            a += sum;
        }
        for (; i < chunk; i++) { a += data[i]; b += a; }
        a %= ADLER_BASE;
        b %= ADLER_BASE;
        data += chunk;
        size -= chunk;
    }
    s->adler_a = (uint32_t)a;
    s->adler_b = (uint32_t)b;
}

// How many zero bytes start `here`, up to `most`.
static inline long zero_run(const uint8_t *here, long most) {
    const __m128i zero = _mm_setzero_si128();
    long z = 0;
    while (z + 16 <= most) {
        int equal = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(here + z)), zero));
        if (equal != 0xFFFF) return z + __builtin_ctz(~equal);
        z += 16;
    }
    while (z < most && here[z] == 0) z++;
    return z;
}

static inline uint32_t load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

// The longest match at `here` (0 if under 3 bytes), one pixel (`size` bytes) back or one row up
// (`*which` 1), of at most `most` bytes; `pixel` and `up` say whether those bytes exist.
static inline __attribute__((always_inline)) long longest_match(const uint8_t *here, long most, long row, long size, int pixel,
                                                                int up, uint32_t *which) {
    *which = 0;
    if (most >= 4 && pixel && up) {
        // Neither the pixel before nor the one above starts with these 3 bytes: a literal,
        // without a longer look (most bytes of a line's antialiased edge).
        uint32_t word = load32(here), left = word ^ load32(here - size), above = word ^ load32(here - row);
        if ((left & 0xFFFFFF) && (above & 0xFFFFFF)) return 0;
        // Transparent pixels after transparent pixels: count the zeros (most of a tile).
        if ((word | left) == 0) return zero_run(here, most);
    }
    long best = 0;
    if (most >= 3) {
        if (pixel) best = match_length(here, size, most);
        if (up && best < most) {
            long above = match_length(here, row, most);
            if (above > best) { best = above; *which = 1; }
        }
    }
    return best >= 3 ? best : 0;
}

// The block's tokens: literals, or matches one pixel (`pixel_bytes`, a constant where it is
// inlined) back or one row up; counts their symbols.
static inline __attribute__((always_inline)) long tokenize_pixels(const struct geo_run_deflate *s, const long pixel_bytes,
                                                                  const uint8_t *data, long size, long history, uint32_t *tokens,
                                                                  uint32_t *literal_count, uint32_t *distance_count) {
    const long row = s->row_bytes;
    long n = 0, i = 0;
    // Where a full row of history is behind every byte and a longest match still fits: the
    // checks fold away there (a tile's every row but the first).
    const long steady_from = row ? (row > pixel_bytes ? row : pixel_bytes) - history : size, steady_to = size - LONGEST;
    while (i < size) {
        const uint8_t *here = data + i;
        long best;
        uint32_t which;
        if (i >= steady_from && i <= steady_to) {
            best = longest_match(here, LONGEST, row, pixel_bytes, 1, 1, &which);
        } else {
            long most = size - i < LONGEST ? size - i : LONGEST;
            best = longest_match(here, most, row, pixel_bytes, i + history >= pixel_bytes, row && i + history >= row, &which);
        }
        if (best) {
            tokens[n++] = (which ? ROW_MATCH : PIXEL_MATCH) | (uint32_t)(256 + best - 3);
            literal_count[s->length_symbol[best]]++;
            distance_count[which ? s->row_symbol : s->pixel_symbol]++;
            i += best;
        } else {
            tokens[n++] = *here;
            literal_count[*here]++;
            i++;
        }
    }
    literal_count[END_OF_BLOCK]++;
    return n;
}

// RGBA rows and palette-index rows, each with its pixel size built in.
static long tokenize(const struct geo_run_deflate *s, const uint8_t *data, long size, long history, uint32_t *tokens,
                     uint32_t *literal_count, uint32_t *distance_count) {
    return s->pixel_bytes == 1 ? tokenize_pixels(s, 1, data, size, history, tokens, literal_count, distance_count)
                               : tokenize_pixels(s, 4, data, size, history, tokens, literal_count, distance_count);
}

// The bits the tokens take in codes of these lengths (extra bits included).
static uint64_t data_bits(const struct geo_run_deflate *s, const uint32_t *literal_count, const uint32_t *distance_count,
                          const uint8_t *literal_length, const uint8_t *distance_length) {
    uint64_t bits = 0;
    for (int symbol = 0; symbol < LITERALS; symbol++) {
        bits += (uint64_t)literal_count[symbol] * (literal_length[symbol] + (symbol >= 257 ? length_extra[symbol - 257] : 0));
    }
    for (int symbol = 0; symbol < DISTANCES; symbol++) {
        bits += (uint64_t)distance_count[symbol] * (distance_length[symbol] + distance_extra[symbol]);
    }
    return bits;
}

// The dynamic block's header: the code lengths, run-length coded (RFC 1951 3.2.7).
struct header {
    int literals, distances, code_lengths;   // HLIT + 257, HDIST + 1, HCLEN + 4
    uint8_t symbols[LITERALS + DISTANCES];    // code length symbols 0-18
    uint8_t extras[LITERALS + DISTANCES];     // their extra bits' value (16: 3-6, 17: 3-10, 18: 11-138)
    int count;
    uint8_t lengths[CODE_LENGTHS];
    uint32_t codes[CODE_LENGTHS];
    uint64_t bits;
};

static void make_header(struct header *h, const uint8_t *literal_length, const uint8_t *distance_length) {
    h->literals = LITERALS;
    while (h->literals > 257 && literal_length[h->literals - 1] == 0) h->literals--;
    h->distances = DISTANCES;
    while (h->distances > 1 && distance_length[h->distances - 1] == 0) h->distances--;
    uint8_t all[LITERALS + DISTANCES];
    int total = h->literals + h->distances;
    memcpy(all, literal_length, (size_t)h->literals);
    memcpy(all + h->literals, distance_length, (size_t)h->distances);
    uint32_t frequency[CODE_LENGTHS] = {0};
    h->count = 0;
    for (int i = 0; i < total;) {
        int length = all[i], run = 1;
        while (i + run < total && all[i + run] == length) run++;
        i += run;
        if (length == 0) {
            while (run >= 11) {
                int n = run < 138 ? run : 138;
                h->symbols[h->count] = 18; h->extras[h->count++] = (uint8_t)(n - 11); frequency[18]++;
                run -= n;
            }
            if (run >= 3) {
                h->symbols[h->count] = 17; h->extras[h->count++] = (uint8_t)(run - 3); frequency[17]++;
                run = 0;
            }
        } else {
            h->symbols[h->count] = (uint8_t)length; h->extras[h->count++] = 0; frequency[length]++;
            run--;
            while (run >= 3) {
                int n = run < 6 ? run : 6;
                h->symbols[h->count] = 16; h->extras[h->count++] = (uint8_t)(n - 3); frequency[16]++;
                run -= n;
            }
        }
        while (run-- > 0) { h->symbols[h->count] = (uint8_t)length; h->extras[h->count++] = 0; frequency[length]++; }
    }
    int used = 0;
    for (int symbol = 0; symbol < CODE_LENGTHS; symbol++) used += frequency[symbol] != 0;
    for (int symbol = 0; used < 2; symbol++) if (!frequency[symbol]) { frequency[symbol] = 1; used++; }
    code_lengths(frequency, CODE_LENGTHS, 7, h->lengths);
    canonical_codes(h->lengths, CODE_LENGTHS, h->codes);
    h->code_lengths = CODE_LENGTHS;
    while (h->code_lengths > 4 && h->lengths[code_length_order[h->code_lengths - 1]] == 0) h->code_lengths--;
    h->bits = 5 + 5 + 4 + 3 * (uint64_t)h->code_lengths;
    for (int i = 0; i < h->count; i++) {
        int symbol = h->symbols[i];
        h->bits += h->lengths[symbol] + (symbol == 16 ? 2 : symbol == 17 ? 3 : symbol == 18 ? 7 : 0);
    }
}

static void put_header(struct bits_out *w, const struct header *h) {
    send(w, (uint32_t)(h->literals - 257), 5);
    send(w, (uint32_t)(h->distances - 1), 5);
    send(w, (uint32_t)(h->code_lengths - 4), 4);
    for (int i = 0; i < h->code_lengths; i++) send(w, h->lengths[code_length_order[i]], 3);
    for (int i = 0; i < h->count; i++) {
        int symbol = h->symbols[i];
        send(w, h->codes[symbol], h->lengths[symbol]);
        if (symbol >= 16) send(w, h->extras[i], symbol == 16 ? 2 : symbol == 17 ? 3 : 7);
    }
}

// The tokens in the codes of these lengths (`literal_symbols` of them: 286, or the fixed code's 288).
static void put_tokens(const struct geo_run_deflate *s, struct bits_out *w, const uint32_t *tokens, long n,
                       const uint8_t *literal_length, int literal_symbols, const uint8_t *distance_length) {
    uint32_t literal_code[FIXED_LITERALS], distance_code[DISTANCES];
    canonical_codes(literal_length, literal_symbols, literal_code);
    canonical_codes(distance_length, DISTANCES, distance_code);
    // Each token's literal/length code (with a length's extra bits) and its distance code (with
    // its extra bits), each with its size in bits in the top 5 bits of the word.
    uint32_t first[512], second[4] = {0, 0, 0, 0};
    for (int symbol = 0; symbol < 256; symbol++) first[symbol] = literal_code[symbol] | (uint32_t)literal_length[symbol] << 27;
    for (int n = 3; n <= LONGEST; n++) {
        int symbol = s->length_symbol[n];
        first[256 + n - 3] = (literal_code[symbol] | (uint32_t)s->length_extra[n] << literal_length[symbol])
            | (uint32_t)(literal_length[symbol] + s->length_extra_bits[n]) << 27;
    }
    second[PIXEL_MATCH >> 9] = distance_code[s->pixel_symbol] | (uint32_t)distance_length[s->pixel_symbol] << 27;
    if (s->row_bytes) {
        second[ROW_MATCH >> 9] = (distance_code[s->row_symbol] | (uint32_t)s->row_extra << distance_length[s->row_symbol])
            | (uint32_t)(distance_length[s->row_symbol] + s->row_extra_bits) << 27;
    }
    struct bits_out local = *w;
    for (long i = 0; i < n; i++) {
        // Both codes in one send: at most 20 + 28 bits, which fit beside the 7 pending.
        uint32_t token = tokens[i], code = first[token & 0x1FF], far = second[token >> 9];
        const int code_bits = (int)(code >> 27);
        send(&local, (code & 0x7FFFFFF) | (uint64_t)(far & 0x7FFFFFF) << code_bits, code_bits + (int)(far >> 27));
    }
    send(&local, literal_code[END_OF_BLOCK], literal_length[END_OF_BLOCK]);
    *w = local;
}

long geo_run_deflate_block(struct geo_run_deflate *s, const uint8_t *data, long size, long history,
                           uint32_t *tokens, uint8_t *out) {
    adler(s, data, size);
    uint32_t literal_count[LITERALS] = {0}, distance_count[DISTANCES] = {0};
    long n = tokenize(s, data, size, history, tokens, literal_count, distance_count);

    // Dynamic codes: zlib and most decoders want at least two codes in each table.
    uint32_t literal_frequency[LITERALS], distance_frequency[DISTANCES];
    memcpy(literal_frequency, literal_count, sizeof literal_count);
    memcpy(distance_frequency, distance_count, sizeof distance_count);
    int used = 0;
    for (int symbol = 0; symbol < LITERALS; symbol++) used += literal_frequency[symbol] != 0;
    for (int symbol = 0; used < 2; symbol++) if (!literal_frequency[symbol]) { literal_frequency[symbol] = 1; used++; }
    used = 0;
    for (int symbol = 0; symbol < DISTANCES; symbol++) used += distance_frequency[symbol] != 0;
    for (int symbol = 0; used < 2; symbol++) if (!distance_frequency[symbol]) { distance_frequency[symbol] = 1; used++; }
    uint8_t literal_length[LITERALS], distance_length[DISTANCES];
    code_lengths(literal_frequency, LITERALS, 15, literal_length);
    code_lengths(distance_frequency, DISTANCES, 15, distance_length);
    struct header header;
    make_header(&header, literal_length, distance_length);
    uint64_t dynamic_bits = 3 + header.bits + data_bits(s, literal_count, distance_count, literal_length, distance_length);

    uint8_t fixed_literal[FIXED_LITERALS], fixed_distance[DISTANCES];
    fixed_lengths(fixed_literal, fixed_distance);
    uint64_t fixed_bits = 3 + data_bits(s, literal_count, distance_count, fixed_literal, fixed_distance);

    // Stored: each piece of up to 65,535 bytes costs its header, padding to a byte and LEN, NLEN.
    uint64_t stored_bits = (uint64_t)(size / STORED_MOST + 1) * (3 + 7 + 32) + 8 * (uint64_t)size;

    struct bits_out w = {s->bits, s->count, out};
    if (stored_bits < dynamic_bits && stored_bits < fixed_bits) {
        long done = 0;
        do {
            long piece = size - done < STORED_MOST ? size - done : STORED_MOST;
            send(&w, 0, 3);   // not final, stored
            align(&w);
            uint8_t *at = w.out;
            *at++ = (uint8_t)piece; *at++ = (uint8_t)(piece >> 8);
            *at++ = (uint8_t)~piece; *at++ = (uint8_t)(~piece >> 8);
            memcpy(at, data + done, (size_t)piece);
            w.out = at + piece;
            done += piece;
        } while (done < size);
    } else if (fixed_bits <= dynamic_bits) {
        send(&w, 1 << 1, 3);   // not final, fixed codes
        put_tokens(s, &w, tokens, n, fixed_literal, FIXED_LITERALS, fixed_distance);
    } else {
        send(&w, 2 << 1, 3);   // not final, dynamic codes
        put_header(&w, &header);
        put_tokens(s, &w, tokens, n, literal_length, LITERALS, distance_length);
    }
    s->bits = w.bits;
    s->count = w.count;
    return w.out - out;
}

long geo_run_deflate_finish(struct geo_run_deflate *s, uint8_t *out) {
    struct bits_out w = {s->bits, s->count, out};
    send(&w, 1 | 1 << 1, 3);   // final, fixed codes
    send(&w, 0, 7);            // end of block: symbol 256, seven zero bits
    align(&w);
    uint32_t sum = s->adler_b << 16 | s->adler_a;
    for (int shift = 24; shift >= 0; shift -= 8) *w.out++ = (uint8_t)(sum >> shift);
    s->bits = 0;
    s->count = 0;
    return w.out - out;
}

long geo_run_deflate_bound(long size) { return size + 8 * (size / STORED_MOST + 1) + 24; }
