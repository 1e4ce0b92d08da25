#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Starts `body` on a new thread of its own, detached: nothing waits for it,
/// and a check that never returns leaves only its thread behind.
///
/// The kit's checks run on threads of their own rather than on Dispatch's
/// pool, so that an abandoned, deadlocked check holds no worker another
/// check needs. pthread calls, so that the thread is detached from the start
/// and its stack size is the kit's.
///
/// - Parameters:
///   - stackSize: The thread's stack, in bytes.
///   - body: The work.
func startDetachedThread(stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) {
    final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackSize)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let context = Unmanaged.passRetained(Work(body)).toOpaque()
    #if canImport(Darwin)
        var thread: pthread_t?
    #else
        var thread = pthread_t()
    #endif
    let result = pthread_create(
        &thread, &attributes,
        { context in
            // Linux's start routine takes an optional pointer, Darwin's not.
            let pointer: UnsafeMutableRawPointer? = context
            guard let pointer else { return nil }
            Unmanaged<Work>.fromOpaque(pointer).takeRetainedValue().body()
            return nil
        }, context)
    precondition(result == 0, "StateConformance could not start a thread (pthread_create returned \(result)).")
}

/// Writes `text` to standard error, unbuffered (a crash right after it
/// still leaves it written).
func writeToStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let result = bytes.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return -1 }
            return write(2, base + written, buffer.count - written)
        }
        guard result > 0 else { return }
        written += result
    }
}
