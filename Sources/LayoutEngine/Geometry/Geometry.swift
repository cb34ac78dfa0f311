/// Plain geometry values in CSS pixels. The origin is the canvas' top-left corner,
/// y grows downwards.
public struct Point: Equatable, Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

public struct Size: Equatable, Hashable, Sendable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
}

public struct Rect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func contains(_ p: Point) -> Bool {
        p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY
    }

    /// True when `other` lies entirely inside this rectangle (edges may touch).
    public func contains(_ other: Rect) -> Bool {
        other.minX >= minX - 1e-9 && other.maxX <= maxX + 1e-9
            && other.minY >= minY - 1e-9 && other.maxY <= maxY + 1e-9
    }

    public func intersects(_ other: Rect) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }

    /// Shrinks the rectangle by the insets; never returns a negative size.
    public func inset(by e: EdgeInsets) -> Rect {
        Rect(x: x + e.left, y: y + e.top,
             width: max(0, width - e.left - e.right),
             height: max(0, height - e.top - e.bottom))
    }

    public var description: String { "(\(x), \(y), \(width)x\(height))" }
}

public struct EdgeInsets: Equatable, Hashable, Sendable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
    public static func all(_ v: Double) -> EdgeInsets { EdgeInsets(top: v, left: v, bottom: v, right: v) }
}
