/// A binary heap: `pop` returns the element that comes `before` every other.
struct BinaryHeap<Element> {
    let before: (Element, Element) -> Bool
    private var elements: [Element] = []

    init(before: @escaping (Element, Element) -> Bool) {
        self.before = before
    }

    var isEmpty: Bool { elements.isEmpty }

    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < elements.count && before(elements[left], elements[first]) { first = left }
            if right < elements.count && before(elements[right], elements[first]) { first = right }
            guard first != parent else { break }
            elements.swapAt(parent, first)
            parent = first
        }
        return top
    }
}
