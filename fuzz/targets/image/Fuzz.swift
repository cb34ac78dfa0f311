import CFuzzDriver
import FuzzHarness

/// libFuzzer's test of one input for the image target (docs/fuzzing.md): runs
/// FuzzHarness on it and traps on anything it reports, so libFuzzer keeps it as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let problems = FuzzHarness.targets["image"]!(bytes)
    if !problems.isEmpty { fatalError("fuzz image: " + problems.prefix(5).joined(separator: "; ")) }
    return 0
}

/// The entry point: SwiftPM links `main` to `<module>_main`; this starts libFuzzer.
@_cdecl("fuzz_image_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    cw_fuzz_run(argc, argv) { data, size in fuzzOneInput(data, size) }
}
