import XCTest
@testable import TilesCommand

/// The tile partition (TilesCommand/TilePartition.swift): features kept in a spool, entries
/// sorted by tile in runs and merged, and the features read back for each tile, from a mapping of
/// the spool or with pread. Every way must hand each tile the same features in the same order.
final class TilePartitionTests: XCTestCase {
    /// Random features (1 byte to 9 KB, so that some reads join neighbours and some do not) in
    /// random tiles, some in several, with random z-indexes.
    func partition(runLength: Int, seed: UInt64) throws -> (TilePartition, [(entry: TileEntry, bytes: [UInt8])]) {
        var random = SeededGenerator(seed: seed)
        let partition = try TilePartition(runLength: runLength)
        var expected: [(entry: TileEntry, bytes: [UInt8])] = []
        for _ in 0..<1_000 {
            let salt = Int.random(in: 0...Int(Int32.max), using: &random)
            let bytes = (0..<Int.random(in: 1...9_000, using: &random)).map { UInt8(truncatingIfNeeded: ($0 &* 131) ^ salt ^ ($0 >> 8)) }
            let offset = try bytes.withUnsafeBufferPointer { try partition.keep($0) }
            let zIndex = Double(Int.random(in: -1...1, using: &random))
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let entry = TileEntry(tile: UInt64.random(in: 0..<40, using: &random), zIndex: zIndex, offset: offset, size: UInt32(bytes.count))
                try partition.add(entry)
                expected.append((entry, bytes))
            }
        }
        return (partition, expected.sorted { $0.entry < $1.entry })
    }

    /// The run sort (a radix sort by tile for entries of one z-index in spool order, `sort()` for
    /// any other run) orders every run as `sort()` does: real tile keys from zoom 0 to 24, one
    /// z-index (0 and -0 both), several, and entries out of spool order.
    func testTheRunSortOrdersAsSortDoes() {
        var random = SeededGenerator(seed: 26)
        for round in 0..<60 {
            let zoomMost = [0, 3, 8, 14, 24][round % 5]
            var entries: [TileEntry] = []
            var offset: UInt64 = 0
            for _ in 0..<Int.random(in: 0...3_000, using: &random) {
                offset += UInt64.random(in: 0...2, using: &random)   // a feature in several tiles: the same offset
                let z = Int.random(in: 0...zoomMost, using: &random)
                let tile = TileAddress(z: z, x: Int.random(in: 0..<(1 << z), using: &random), y: Int.random(in: 0..<(1 << z), using: &random))
                let zIndex: Double = switch round % 3 {
                case 0: 0
                case 1: Bool.random(using: &random) ? 0 : -0.0
                default: Double(Int.random(in: -1...1, using: &random))
                }
                entries.append(TileEntry(tile: tile.key, zIndex: zIndex, offset: offset, size: 1))
            }
            if round % 7 == 6, entries.count > 1 { entries.swapAt(0, entries.count - 1) }
            var sorted = entries
            TilePartition.sort(&sorted)
            let expected = entries.sorted()
            XCTAssertEqual(sorted.map(\.tile), expected.map(\.tile), "round \(round)")
            XCTAssertEqual(sorted.map(\.offset), expected.map(\.offset), "round \(round)")
            XCTAssertEqual(sorted.map(\.zIndex), expected.map(\.zIndex), "round \(round)")
        }
    }

    func read(_ sorted: SortedEntries) throws -> [[UInt8]] {
        var buffer: [UInt8] = []
        var features: [[UInt8]] = []
        for start in stride(from: 0, to: sorted.count, by: 100) {  // blocks, as a drawing thread reads a large tile's
            try sorted.forEachFeature(try sorted.entries(from: start, count: min(100, sorted.count - start)), buffer: &buffer) {
                features.append(Array($0))
            }
        }
        return features
    }

    func testEveryWayOfReadingHandsBackTheSameFeaturesInTileOrder() throws {
        for (runLength, mapped) in [(TilePartition.runLength, true), (TilePartition.runLength, false), (500, true), (500, false)] {
            let (partition, expected) = try partition(runLength: runLength, seed: 5)
            let sorted = try partition.sorted(mappingUpTo: mapped ? Int.max : 0)
            XCTAssertEqual(sorted.isMapped, mapped)
            XCTAssertEqual(sorted.count, expected.count)
            XCTAssertEqual(sorted.tiles, Set(expected.map(\.entry.tile)).count)
            XCTAssertEqual(try sorted.entries(from: 0, count: sorted.count).map(\.tile), expected.map(\.entry.tile))
            let features = try read(sorted)
            XCTAssertEqual(features.count, expected.count)
            XCTAssertTrue(zip(features, expected).allSatisfy { $0 == $1.bytes },
                          "run length \(runLength), \(mapped ? "mapped" : "pread"): a feature differs")
        }
    }

    func testALargeSpoolIsReadWithPread() throws {
        let (partition, _) = try partition(runLength: TilePartition.runLength, seed: 6)
        XCTAssertFalse(try partition.sorted(mappingUpTo: 1_000).isMapped)
    }
}
