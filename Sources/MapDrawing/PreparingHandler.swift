#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Drawing
import Geodesy
import GeoJSON
import Geometry
import Records
import Styles
import Synchronization

/// What the --jobs workers do with each record: read it and its style (a bad one is reported
/// like any bad record), and project every vertex (the costly part), into the display list the
/// drawing thread draws in input order. Sendable by hand: its members are `let`s, and the
/// projection pool locks its own.
package final class PreparingHandler: PathHandler, @unchecked Sendable {
    package let input: PathInputFormat
    package let stamps: Set<String>
    package let frame: Frame
    package let projections: ProjectionPool

    /// `projections` are copies of the frame's.
    package init(input: PathInputFormat, stamps: Set<String>, frame: Frame, projections: ProjectionPool) {
        self.input = input
        self.stamps = stamps
        self.frame = frame
        self.projections = projections
    }

    /// The last few properties whose style was read without error. Most records of a file share
    /// a few styles, and reading one (its colours by name) was 4 % of a tile run: the same bytes
    /// read the same, so they are not read again. Shared by the workers, under its lock.
    private let readWell = Mutex<[[UInt8]]>([])
    private static let remembered = 8, longest = 1024

    /// Throws the bad record's error when `properties` hold no style geo can draw.
    private func checkStyle(_ properties: UnsafeBufferPointer<UInt8>?) throws {
        guard let properties, !properties.isEmpty, properties.count <= PreparingHandler.longest else {
            _ = try FeatureStyle(properties: properties, stamps: stamps)
            return
        }
        guard !readWell.withLock({ list in list.contains { sameBytes($0, properties) } }) else { return }
        _ = try FeatureStyle(properties: properties, stamps: stamps)
        readWell.withLock { list in
            if list.count == PreparingHandler.remembered { list.removeFirst() }
            list.append(Array(properties))
        }
    }

    package func handle(_ record: UnsafeBufferPointer<UInt8>, into output: RecordWriter) throws {
        // Every feature of the record is read before any is drawn: a bad one rejects the record
        // (a collection on one line is then tried feature by feature) without half drawing it.
        var features: [Feature] = []
        try input.readFeatures(record) { feature in
            try checkStyle(feature.propertiesBytes.map { UnsafeBufferPointer(rebasing: record[$0]) })
            features.append(feature)
        }
        let projection = projections.borrow()
        defer { projections.giveBack(projection) }
        var scratch: [Double] = []
        for feature in features {
            DisplayList.write(properties: feature.propertiesBytes.map { UnsafeBufferPointer(rebasing: record[$0]) },
                              geometry: feature.geometry, frame: frame, projection: projection, to: output.buffer, scratch: &scratch)
        }
    }
}

/// One projection object per worker thread at a time (a PROJ context is not shared), each a
/// copy of one projection, kept for the next thread that asks. Sendable by hand: `free` and
/// `original` are touched only with `mutex` locked.
package final class ProjectionPool: @unchecked Sendable {
    /// What the pool's projections are copied from: a copy of its own, which no thread
    /// transforms with (PROJ reads the object it clones).
    private let original: Projection
    private var free: [Projection] = []
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// To be made before other threads use `projection`.
    package init(copying projection: Projection) {
        original = projection.copy()
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func borrow() -> Projection {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return free.popLast() ?? original.copy()
    }

    package func giveBack(_ projection: Projection) {
        pthread_mutex_lock(mutex)
        free.append(projection)
        pthread_mutex_unlock(mutex)
    }
}
