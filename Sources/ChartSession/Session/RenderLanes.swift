import Dispatch
import Foundation
import Synchronization

/// Threads that render beside the caller's: one per processor but the caller's, started
/// once and shared by every session (sessions publish one at a time, on the transport's
/// thread).
///
/// Work is split into lanes: lane 0 runs on the caller's thread, lane `k` always on the
/// same worker. A session gives each of its views a lane for the view's lifetime, so a
/// view's frames are made, replaced and freed by one thread: its memory stays in that
/// thread's malloc arena instead of being freed across threads under the arenas' locks
/// (which took a tenth of the transport thread's time when views were handed out to
/// whichever thread was free).
final class RenderLanes: @unchecked Sendable {
    static let shared = RenderLanes(workers: max(0, ProcessInfo.processInfo.activeProcessorCount - 1))

    /// Lanes a run can have: the workers and the caller.
    var count: Int { workers.count + 1 }

    private final class Worker: @unchecked Sendable {
        let start = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        /// Set before `start` is signalled, read by the worker after: the semaphores
        /// order the two.
        var job: (() -> Void)?
    }
    private let workers: [Worker]
    /// A run holds the workers.
    private let busy = Mutex(false)

    private init(workers n: Int) {
        workers = (0..<n).map { _ in Worker() }
        for (k, w) in workers.enumerated() {
            let thread = Thread {
                while true {
                    w.start.wait()
                    w.job?()
                    w.job = nil
                    w.done.signal()
                }
            }
            thread.name = "render-\(k + 1)"
            thread.start()
        }
    }

    /// Runs `body(lane)` for every lane below `lanes` (at most `count`), each on its own
    /// thread, lane 0 on the caller's; returns when all are done. The caller vouches that
    /// lanes touch nothing another lane changes. While another thread's run holds the
    /// workers (sessions driven from several threads: a host of its own, tests), the
    /// lanes run one after another on the caller's thread.
    func run(lanes: Int, _ body: (Int) -> Void) {
        let n = min(lanes, count)
        let taken = n > 1 && busy.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
        guard taken else {
            for k in 0..<lanes { body(k) }
            return
        }
        defer { busy.withLock { $0 = false } }
        withoutActuallyEscaping(body) { body in
            let shared = Unchecked(body)
            for k in 1..<n {
                workers[k - 1].job = { shared.value(k) }
                workers[k - 1].start.signal()
            }
            shared.value(0)
            for k in 1..<n { workers[k - 1].done.wait() }
        }
    }

    /// Runs `body(item)` for every item of `lists`, list `k` in lane `k` (see `run`); a
    /// lane done with its own list helps the others with theirs, so a worker the system
    /// set aside for a while (the machine is shared) holds nobody up.
    func run(lists: [[Int]], _ body: (Int) -> Void) {
        let next = Mutex([Int](repeating: 0, count: lists.count))
        func take(_ k: Int) -> Int? {
            next.withLock { n in
                guard n[k] < lists[k].count else { return nil }
                defer { n[k] += 1 }
                return lists[k][n[k]]
            }
        }
        run(lanes: lists.count) { lane in
            for k in [lane] + lists.indices.filter({ $0 != lane }) {
                while let item = take(k) { body(item) }
            }
        }
    }

    /// Work started on the first worker that the caller does not wait for at once (see
    /// `start`). `wait` joins it, exactly once: the workers stay taken until then.
    final class Ticket: @unchecked Sendable {
        fileprivate let lanes: RenderLanes
        fileprivate let finished = Atomic<Bool>(false)
        fileprivate var waited = false
        fileprivate init(lanes: RenderLanes) { self.lanes = lanes }
        /// The work is done (it may still be finishing its last step; `wait` returns at once).
        var isDone: Bool { finished.load(ordering: .acquiring) }
        /// Waits for the work and gives the workers back.
        func wait() {
            guard !waited else { return }
            waited = true
            lanes.workers[0].done.wait()
            lanes.busy.withLock { $0 = false }
        }
    }

    /// Runs `body` on the first worker and returns at once, or returns nil when there
    /// is no worker or another run holds them. `done` is called on the worker after
    /// `body` (to wake whoever collects the work).
    func start(_ body: @escaping @Sendable () -> Void, done: @escaping @Sendable () -> Void) -> Ticket? {
        guard !workers.isEmpty else { return nil }
        let taken = busy.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
        guard taken else { return nil }
        let ticket = Ticket(lanes: self)
        workers[0].job = {
            body()
            ticket.finished.store(true, ordering: .releasing)
            done()
        }
        workers[0].start.signal()
        return ticket
    }

}

/// Hands a value to other threads that the caller knows is used safely there.
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
