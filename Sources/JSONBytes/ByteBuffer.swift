#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable byte buffer that output is built in: one allocation, amortised growth, no
/// bounds-checked `Array` appends in the hot path. Records are written here and handed to the
/// writer in one piece.
public final class ByteBuffer {
    public private(set) var base: UnsafeMutablePointer<UInt8>
    public private(set) var capacity: Int
    public var count: Int = 0

    public init(capacity: Int = 4096) {
        self.capacity = max(capacity, 64)
        base = ByteBuffer.resize(nil, to: self.capacity)
    }

    /// A buffer made of storage that another one handed over (`takeBytes`).
    private init(adopting base: UnsafeMutablePointer<UInt8>, capacity: Int, count: Int) {
        self.base = base
        self.capacity = capacity
        self.count = count
    }

    deinit { free(base) }

    /// Hands the bytes written so far over to a new buffer, without copying them, and goes on
    /// empty, with room for `capacity` bytes: what was written can be written out while more is
    /// written here (anyone holding this buffer writes on into the fresh storage).
    public func takeBytes(leaving capacity: Int) -> ByteBuffer {
        let taken = ByteBuffer(adopting: base, capacity: self.capacity, count: count)
        self.capacity = max(capacity, 64)
        base = ByteBuffer.resize(nil, to: self.capacity)
        count = 0
        return taken
    }

    public var isEmpty: Bool { count == 0 }

    /// The bytes written so far; valid until the next write.
    public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Makes room for `n` more bytes and returns where they go; the caller then adds to `count`.
    @inline(__always)
    public func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if count + n > capacity { grow(to: count + n) }
        return base + count
    }

    private func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        base = ByteBuffer.resize(base, to: newCapacity)
        capacity = newCapacity
    }

    /// malloc's realloc: a large buffer (one malloc maps on its own) grows by mremap, without a
    /// copy and without the old and the new buffer resident at once.
    private static func resize(_ pointer: UnsafeMutablePointer<UInt8>?, to bytes: Int) -> UnsafeMutablePointer<UInt8> {
        guard let resized = realloc(pointer, bytes) else { fatalError("out of memory: a buffer of \(bytes) bytes") }
        return resized.assumingMemoryBound(to: UInt8.self)
    }

    @inline(__always)
    public func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    public func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    public func append(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        append(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    public func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    public func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    public func append(contentsOf other: ByteBuffer) {
        append(other.bytes)
    }

    /// Drops everything after `mark`: used to take back a half-written record.
    public func truncate(to mark: Int) {
        precondition(mark >= 0 && mark <= count)
        count = mark
    }

    public func removeAll() { count = 0 }

    /// Drops the first `n` bytes.
    public func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count)
        UnsafeMutableRawPointer(base).copyMemory(from: base + n, byteCount: count - n)  // memmove: the ranges overlap
        count -= n
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }
}
