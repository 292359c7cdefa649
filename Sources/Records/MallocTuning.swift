import CMalloc

/// glibc's malloc, told how the engine uses memory. By default it raises its mmap threshold to
/// the largest block ever freed (up to 32 MB): after one record that wrote 8 MB, every later
/// output buffer of a few MB comes from a thread's arena, and the arena keeps those pages when
/// the writer frees them, so a run with a few heavy records stayed 30 MB higher to its end
/// (bench/README.md, Memory). A fixed threshold of twice a chunk's aimed output keeps ordinary
/// buffers in the arenas, where they are reused without page faults, and gives the rare large
/// one back to the system when it is written; trimming only above twice that keeps an arena
/// from handing back and faulting in again the same pages for every chunk.
enum MallocTuning {
    static func apply() {
        let threshold = Int32(2 * ChunkReader.outputPerChunk)
        mallopt(M_MMAP_THRESHOLD, threshold)
        mallopt(M_TRIM_THRESHOLD, 2 * threshold)
    }
}
