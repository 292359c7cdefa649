import Styles

/// A style span as the Maps SDK resolves it: a style over a fractional number of segments.
/// The style is an index into the request's `styles`: a long path under a short pattern has tens
/// of thousands of spans, 16 bytes each so (48 with the style and its name, 1.3 MB for the
/// corpus' longest path under a 5 km pattern, while its pieces were written).
public struct ResolvedSpan: Equatable, Sendable {
    public var styleIndex: Int
    public var segments: Double
}

/// The spans a command line asks for.
public enum SpanRequest: Sendable {
    /// GMSStyleSpans / GMSStyleSpansOffset: styles and lengths repeating independently.
    case pattern(styles: [(name: String, style: Style)], lengths: [Double], offset: Double)
    /// GMSPolyline.spans: explicit spans of SEGMENTS each.
    case explicit([(name: String, style: Style, segments: Double)])

    /// The styles that resolved spans point to, as the user wrote them and parsed.
    public var styles: [(name: String, style: Style)] {
        switch self {
        case .pattern(let styles, _, _): return styles
        case .explicit(let spans): return spans.map { ($0.name, $0.style) }
        }
    }

    /// Resolves the request on a path whose vertices are `cumulative` metres from the start
    /// (measured by the run's --kind).
    public func resolve(cumulative: [Double]) -> [ResolvedSpan] {
        let segmentCount = Double(max(cumulative.count - 1, 0))
        switch self {
        case .explicit(let spans):
            // Spans run end to end; the last covers the rest; coverage past the end is ignored.
            var resolved: [ResolvedSpan] = []
            var remaining = segmentCount
            for (index, span) in spans.enumerated() where remaining > 0 {
                let segments = index == spans.count - 1 ? remaining : min(span.segments, remaining)
                resolved.append(ResolvedSpan(styleIndex: index, segments: segments))
                remaining -= segments
            }
            return resolved
        case .pattern(let styles, let lengths, let offset):
            return pattern(styles: styles, lengths: lengths, offset: offset, cumulative: cumulative)
        }
    }

    /// About (and at most) how many spans `resolve` makes on a path `total` long: the pattern elements that
    /// end on it (each element makes at most one span), so a tiny --length can be refused before
    /// anything is built.
    public func maximumSpans(total: Double) -> Double {
        switch self {
        case .explicit(let spans):
            return Double(spans.count)
        case .pattern(_, let lengths, _):
            let patternLength = lengths.reduce(0, +)
            guard patternLength > 0 else { return 0 }
            // Every run of lengths.count elements covers patternLength; one more may end past the end.
            return ((total / patternLength).rounded(.up) + 1) * Double(lengths.count) + 1
        }
    }

    /// Google's GMSStyleSpans algorithm (docs/algorithms.md, "Style spans"): walk the pattern from −offset, emitting
    /// a span each time an element ends past 0, until the path's length is reached.
    func pattern(styles: [(name: String, style: Style)], lengths: [Double], offset: Double,
                 cumulative: [Double]) -> [ResolvedSpan] {
        let patternLength = lengths.reduce(0, +)
        guard !styles.isEmpty, patternLength > 0, let total = cumulative.last, cumulative.count > 1 else { return [] }
        // The joint pattern repeats every lcm(nL, nS) elements.
        let period = patternLength * Double(styles.count / gcd(lengths.count, styles.count))
        var position = -offset.truncatingRemainder(dividingBy: period)
        if position > 0 { position -= period }
        var resolved: [ResolvedSpan] = []
        var previousIndex = 0.0
        var element = 0
        while position < total {
            position += lengths[element % lengths.count]
            let styleIndex = element % styles.count
            element += 1
            guard position > 0 else { continue }
            let index = segmentIndex(atDistance: position, cumulative: cumulative)
            if index - previousIndex > 0 {
                resolved.append(ResolvedSpan(styleIndex: styleIndex, segments: index - previousIndex))
                previousIndex = index
            }
        }
        return resolved
    }
}

/// GMSPath segmentsForLength: i + (L − cum_i)/len_i on the edge holding L, clamped to N − 1.
func segmentIndex(atDistance distance: Double, cumulative: [Double]) -> Double {
    let last = cumulative.count - 1
    guard distance < cumulative[last] else { return Double(last) }
    // Binary search for the edge: the last vertex at or before `distance`.
    var low = 0, high = last
    while high - low > 1 {
        let middle = (low + high) / 2
        if cumulative[middle] <= distance { low = middle } else { high = middle }
    }
    let edge = cumulative[low + 1] - cumulative[low]
    return Double(low) + (edge > 0 ? (distance - cumulative[low]) / edge : 0)
}

func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
