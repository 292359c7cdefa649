/// Neumaier's compensated summation: adding a million edge lengths loses nothing visible.
public struct CompensatedSum: Sendable {
    public private(set) var sum = 0.0
    private var compensation = 0.0

    public init() {}

    @inline(__always)
    public mutating func add(_ value: Double) {
        let total = sum + value
        if abs(sum) >= abs(value) {
            compensation += (sum - total) + value
        } else {
            compensation += (value - total) + sum
        }
        sum = total
    }

    public var value: Double { sum + compensation }
}
