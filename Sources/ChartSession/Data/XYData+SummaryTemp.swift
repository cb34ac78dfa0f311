// TEMPORARY scanning stand-in for the index-backed summary being built on branch
// `index`; removed when that branch is merged.
extension XYData {
    public struct YSummary: Equatable, Sendable {
        public var min: Double; public var max: Double; public var hasGap: Bool
    }
    public func ySummary(_ indices: Range<Int>) -> YSummary {
        var mn = Double.infinity, mx = -Double.infinity, gap = false
        for i in indices {
            let v = y(i)
            if v.isNaN { gap = true; continue }
            if v < mn { mn = v }
            if v > mx { mx = v }
        }
        return YSummary(min: mn, max: mx, hasGap: gap)
    }
}
