extension StringProtocol {
    /// The text without spaces (or the given characters) at either end.
    public func trimmed(_ characters: Set<Character> = [" "]) -> String {
        guard let first = firstIndex(where: { !characters.contains($0) }),
              let last = lastIndex(where: { !characters.contains($0) }) else { return "" }
        return String(self[first...last])
    }
}
