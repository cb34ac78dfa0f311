import Testing
@testable import ChartSession

@Suite struct AppendBodyTests {
    /// The example of docs/protocol.md, byte for byte, and back.
    @Test func documentedExample() throws {
        let bytes = AppendBody.encode(xs: [1, 2], ys: [0.5, .nan])
        #expect(bytes == [0x43, 0x57, 0x41, 0x31, 0x02, 0, 0, 0,
                          0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0x40,
                          0, 0, 0, 0, 0, 0, 0xE0, 0x3F, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F])
        let (xs, ys) = try AppendBody.decode(bytes)
        #expect(xs == [1, 2] && ys[0] == 0.5 && ys[1].isNaN)
    }

    @Test func refusesWhatItCannotRead() throws {
        #expect(throws: AppendBody.DecodeError(message: "must start with \"CWA1\"")) { try AppendBody.decode(Array("{}".utf8)) }
        #expect(throws: AppendBody.DecodeError.self) { try AppendBody.decode(Array("CWA1".utf8) + [1, 0]) }
        #expect(throws: AppendBody.DecodeError(message: "1 points need 24 bytes, got 23")) {
            try AppendBody.decode(Array(AppendBody.encode(xs: [1], ys: [2]).dropLast()))
        }
        #expect(throws: AppendBody.DecodeError(message: "3 points in one append; at most 2 are accepted")) {
            try AppendBody.decode(AppendBody.encode(xs: [1, 2, 3], ys: [1, 2, 3]), limit: 2)
        }
        #expect(try AppendBody.decode(AppendBody.encode(xs: [], ys: [])).xs.isEmpty)
    }
}
