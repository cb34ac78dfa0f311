import Foundation
import Testing

/// Every input the fuzzers crashed on (fuzz/regressions/<target>/) and every seed of
/// their corpus (fuzz/corpus/<target>/), replayed through the code each target runs
/// (docs/fuzzing.md). A crash here takes the test process down, as it took the server.
@Suite struct FuzzReplayTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz")

    static func inputs(_ folder: String, _ target: String) -> [(String, [UInt8])] {
        let dir = root.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { name in
            (name, [UInt8](FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) ?? Data()))
        }
    }

    /// Every regression input, as "target/name": one test case each.
    static let regressions: [String] = FuzzHarness.targets.keys.sorted().flatMap { t in inputs("regressions", t).map { "\(t)/\($0.0)" } }

    @Test(arguments: regressions)
    func regressionStaysFixed(_ input: String) throws {
        let parts = input.split(separator: "/").map(String.init)
        let bytes = try #require(Self.inputs("regressions", parts[0]).first { $0.0 == parts[1] }?.1)
        #expect(FuzzHarness.targets[parts[0]]!(bytes) == [], "fuzz/regressions/\(input)")
    }

    /// The crashes the fuzzers found are kept (docs/fuzzing.md lists them).
    @Test func regressionsAreKept() {
        #expect(Self.regressions.count >= 15)
        #expect(Self.regressions.contains("points/line-decimator-nan-pixel-to-int"))
    }

    @Test(arguments: FuzzHarness.targets.keys.sorted())
    func corpusSeedsRun(_ target: String) {
        let seeds = Self.inputs("corpus", target)
        #expect(!seeds.isEmpty, "fuzz/corpus/\(target) has no seeds")
        for (name, bytes) in seeds {
            #expect(FuzzHarness.targets[target]!(bytes) == [], "fuzz/corpus/\(target)/\(name)")
        }
    }
}
