#if canImport(Glibc)
import Glibc
#endif
import Records

/// Records whose z-index is not 0, kept in temporary files until their turn: one file per
/// z-index (the first 256 values), the rest in one more file read once per value it holds.
/// Memory holds the z-index values, never the records.
package final class LayerSpools {
    package static let maximumFiles = 256
    private var files: [Double: Int32] = [:]
    private var overflow: Int32 = -1
    private var overflowValues: Set<Double> = []
    package private(set) var failure: RunFailure?

    package func keep(_ record: UnsafeBufferPointer<UInt8>, z: Double) {
        guard failure == nil else { return }
        do throws(RunFailure) {
            var fd: Int32
            if let known = files[z] {
                fd = known
            } else if files.count < LayerSpools.maximumFiles {
                fd = try temporaryFile(purpose: "keep records until their z-index")
                files[z] = fd
            } else {
                if overflow < 0 { overflow = try temporaryFile(purpose: "keep records until their z-index") }
                fd = overflow
                overflowValues.insert(z)
            }
            var header: (Double, UInt32, UInt32) = (z, 0, UInt32(record.count))
            try withUnsafeBytes(of: &header) { bytes throws(RunFailure) in
                try writeTemporary(fd, UnsafeRawBufferPointer(rebasing: bytes[0..<16]), what: "keep records until their z-index")
            }
            try writeTemporary(fd, UnsafeRawBufferPointer(record), what: "keep records until their z-index")
        } catch {
            failure = error
        }
    }

    /// Draws the kept records below 0 (`below`) or above it, by z-index, then input order.
    package func draw(below: Bool, with drawer: Drawer) throws(RunFailure) {
        let values = (Set(files.keys).union(overflowValues)).filter { below ? $0 < 0 : $0 > 0 }.sorted()
        for z in values {
            try replay(files[z] ?? overflow, z: z, with: drawer)
        }
    }

    private func replay(_ fd: Int32, z: Double, with drawer: Drawer) throws(RunFailure) {
        lseek(fd, 0, SEEK_SET)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var header = [UInt8](repeating: 0, count: 16)
        while try readExactly(fd, &header, 16) {
            let (value, length) = header.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: 0, as: Double.self), $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            }
            if buffer.count < Int(length) { buffer = [UInt8](repeating: 0, count: Int(length)) }
            guard try readExactly(fd, &buffer, Int(length)) else { break }
            if value == z {
                buffer.withUnsafeBufferPointer { drawer.redraw(UnsafeBufferPointer(rebasing: $0[0..<Int(length)])) }
            }
        }
    }

    private func readExactly(_ fd: Int32, _ buffer: inout [UInt8], _ count: Int) throws(RunFailure) -> Bool {
        var got = 0
        while got < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, count - got) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RunFailure(temporaryFileFailure("read records back", systemReason()), status: .ioError)
            }
            if n == 0 { return false }
            got += n
        }
        return true
    }
}
