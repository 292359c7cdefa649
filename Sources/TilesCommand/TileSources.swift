#if canImport(Glibc)
import Glibc
#endif
import Records

/// A pyramid read back tile by tile, as `geo tiles --merge` joins it: a tile directory, an MBTiles
/// file or a PMTiles archive, whoever wrote it.
protocol TileSource: AnyObject {
    /// The name the user gave, as messages say it.
    var path: String { get }
    /// The zooms and bounds (W, S, E, N) the part's metadata declares; nil when it has none (a
    /// directory).
    var declared: (zooms: ClosedRange<Int>, bounds: (west: Double, south: Double, east: Double, north: Double))? { get }
    /// Every tile with its bytes, in whatever order the part keeps them.
    func forEachTile(_ body: (TileAddress, [UInt8]) throws(RunFailure) -> Void) throws(RunFailure)
}

enum TileSources {
    /// The part at `path`, by what it holds (not by its name): a folder is a tile directory, a
    /// file an MBTiles file (SQLite's header) or a PMTiles archive (its magic).
    static func open(_ path: String) throws(RunFailure) -> TileSource {
        var info = stat()
        guard stat(path, &info) == 0 else { throw RunFailure("cannot open '\(path)': \(systemReason())", status: .noInput) }
        if (info.st_mode & S_IFMT) == S_IFDIR { return try TileDirectorySource(path) }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RunFailure("cannot open '\(path)': \(systemReason())", status: .noInput) }
        var magic = [UInt8](repeating: 0, count: 16)
        let got = magic.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, 0) }
        if got == 16 && magic[0..<7].elementsEqual("PMTiles".utf8) { return try PMTilesSource(path, fd: fd) }
        close(fd)
        if got == 16 && magic.elementsEqual("SQLite format 3\0".utf8) { return try MBTilesSource(path) }
        throw notAPart(path, "it is not a tile directory, an MBTiles file or a PMTiles archive")
    }

    /// A part geo cannot read as a pyramid: the merge writes nothing (65, as bad input).
    static func notAPart(_ path: String, _ problem: String) -> RunFailure {
        RunFailure("cannot merge '\(path)': \(problem)", status: .dataError)
    }

    /// A tile's zoom, column and row checked: nil unless a tile of the XYZ scheme.
    static func tile(z: Int, x: Int, y: Int) -> TileAddress? {
        guard (0...24).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else { return nil }
        return TileAddress(z: z, x: x, y: y)
    }
}

/// `PART/{z}/{x}/{y}.png`, as geo tiles (or gdal2tiles --xyz, or a copy of either) writes it.
final class TileDirectorySource: TileSource {
    let path: String
    let declared: (zooms: ClosedRange<Int>, bounds: (west: Double, south: Double, east: Double, north: Double))? = nil

    init(_ path: String) throws(RunFailure) {
        self.path = path
        if let foreign = DirectoryStore.foreignFile(in: path) {
            throw TileSources.notAPart(path, "it holds '\(foreign)', which is not a tile ({z}/{x}/{y}.png) or index.html")
        }
    }

    func forEachTile(_ body: (TileAddress, [UInt8]) throws(RunFailure) -> Void) throws(RunFailure) {
        for z in numbered(path) {
            for x in numbered("\(path)/\(z)") {
                for y in numbered("\(path)/\(z)/\(x)", suffix: ".png") {
                    let file = "\(path)/\(z)/\(x)/\(y).png"
                    guard let tile = TileSources.tile(z: z, x: x, y: y) else {
                        throw TileSources.notAPart(path, "'\(file)' is not a tile of zoom \(z)")
                    }
                    try body(tile, try read(file))
                }
            }
        }
    }

    /// The numbers that name a folder's entries (foreignFile has checked that they all are), in order.
    private func numbered(_ folder: String, suffix: String = "") -> [Int] {
        guard let stream = opendir(folder) else { return [] }
        defer { closedir(stream) }
        var numbers: [Int] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasSuffix(suffix), let number = Int(name.dropLast(suffix.count)) { numbers.append(number) }
        }
        return numbers.sorted()
    }

    private func read(_ file: String) throws(RunFailure) -> [UInt8] {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RunFailure("cannot open '\(file)': \(systemReason())", status: .noInput) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw RunFailure("cannot read '\(file)': \(systemReason())", status: .ioError) }
        let size = Int(info.st_size)
        var reason: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            reason = size == 0 ? nil : readAll(fd, UnsafeMutableRawBufferPointer(buffer), at: 0)
            initialized = size
        }
        if let reason { throw RunFailure("cannot read '\(file)': \(reason)", status: .ioError) }
        return bytes
    }
}
