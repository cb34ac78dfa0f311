import Foundation

/// The allocator's purging. `wsserver` allocates with jemalloc, which returns freed
/// pages to the system only as it allocates again (decay runs on allocation): after a
/// burst (a large body, a thousand viewers leaving) an idle server kept hundreds of
/// megabytes resident. With jemalloc's background thread the pages go back within its
/// decay time (a second here) whatever the server does next. Found at run time
/// (`mallctl`): a program hosting the library with another allocator is left alone.
enum Allocator {
    private typealias MallCtl = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?,
                                                UnsafeMutableRawPointer?, Int) -> Int32

    /// Turns on jemalloc's background purging with `decayMs` of decay; false when the
    /// process does not allocate with jemalloc.
    @discardableResult
    static func purgeInBackground(decayMs: Int = 1000) -> Bool {
        guard let symbol = dlsym(nil, "mallctl") else { return false }  // RTLD_DEFAULT
        let mallctl = unsafeBitCast(symbol, to: MallCtl.self)
        var decay = decayMs
        for name in ["arenas.dirty_decay_ms", "arenas.muzzy_decay_ms"] {
            _ = withUnsafeMutableBytes(of: &decay) { mallctl(name, nil, nil, $0.baseAddress, MemoryLayout<Int>.size) }
        }
        var on = true
        return withUnsafeMutableBytes(of: &on) { mallctl("background_thread", nil, nil, $0.baseAddress, MemoryLayout<Bool>.size) } == 0
    }
}
