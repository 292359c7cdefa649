extension StringProtocol {
    /// The text without spaces (or the given characters) at either end.
    public func trimmed(_ characters: Set<Character> = [" "]) -> String {
        guard let first = firstIndex(where: { !characters.contains($0) }),
              let last = lastIndex(where: { !characters.contains($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension String {
    /// The text padded with spaces to `width` columns, and at least one space after it.
    public func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
