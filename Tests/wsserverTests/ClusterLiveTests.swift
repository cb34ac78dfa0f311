import Foundation
import Testing
import RedisStore
@testable import ChartWireServer

/// What a cluster node publishes for presence (Cluster+Live.swift, RedisPubSub.swift).
@Suite struct ClusterLiveTests {
    @Test func publicationsNameTheirNode() throws {
        let bytes = RedisPubSub.frame(node: "n1a", body: Array(#"{"spots":[]}"#.utf8))
        #expect(bytes == Array("n1a\n{\"spots\":[]}".utf8))
        let (node, body) = try #require(RedisPubSub.unframe(bytes))
        #expect(node == "n1a" && body == Array(#"{"spots":[]}"#.utf8))
        // A body may hold newlines of its own: only the first one ends the name.
        #expect(RedisPubSub.unframe(Array("n\n{\n}".utf8))?.body == Array("{\n}".utf8))
        #expect(RedisPubSub.unframe(Array("no newline".utf8)) == nil)
    }

    @Test func spotsAreReadOrRefusedWhole() {
        let ok = ClusterLive.spots(Array(#"{"spots":[[3,1.5,-2],[7,100,0]]}"#.utf8))
        #expect(ok?.map(\.viewer) == [3, 7] && ok?.map(\.x) == [1.5, 100] && ok?.map(\.y) == [-2, 0])
        #expect(ClusterLive.spots(Array(#"{"spots":[]}"#.utf8))?.isEmpty == true)
        for bad in [#"{"spots":[[3,1.5]]}"#, #"{"spots":[["3",1,2]]}"#, #"{"spot":[]}"#, "not json", #"{"spots":[[1,1e999,0]]}"#] {
            #expect(ClusterLive.spots(Array(bad.utf8)) == nil, "\(bad)")
        }
        // At most 256 spots from one node: more is not a room of people.
        func many(_ n: Int) -> [UInt8] { Array(("{\"spots\":[" + (0..<n).map { "[\($0),1,2]" }.joined(separator: ",") + "]}").utf8) }
        #expect(ClusterLive.spots(many(256))?.count == 256)
        #expect(ClusterLive.spots(many(257)) == nil)
    }
}
