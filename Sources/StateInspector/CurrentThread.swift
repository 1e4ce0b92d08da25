import StateCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The calling thread as a log entry names it, read with pthread calls (the
/// inspector links no `Foundation`, which alone has `Thread`).
///
/// Not by the thread's name: Linux keeps only 15 bytes of it (Dispatch's
/// `com.apple.root.default-qos` threads all read as `oot.default-qos`, a
/// longer name cannot be set at all, and a new thread starts with its
/// creator's), so names neither tell threads apart nor say which is which.
enum CurrentThread {
    /// The calling thread: `"main thread 4242"` for the process's main
    /// thread, `"thread 4243"` for any other.
    ///
    /// The number is the system's id for the thread: the kernel's thread id
    /// on Linux (`gettid`, as `ps -L` and `top -H` show it, the process id
    /// for the main thread), `pthread_threadid_np` on Darwin (as Instruments
    /// and `lldb` show it). It is the same for every entry of one thread
    /// and no two live threads share it; the system may give it to a new
    /// thread after this one ends.
    ///
    /// Read once per thread and kept in the thread's own storage: a log
    /// records many inputs on one thread, and reading the id costs a system
    /// call and the text an allocation.
    static var name: String {
        if let stored = pthread_getspecific(key) {
            return Unmanaged<StoredName>.fromOpaque(stored).takeUnretainedValue().name
        }
        let name = readName()
        pthread_setspecific(key, Unmanaged.passRetained(StoredName(name)).toOpaque())
        return name
    }

    private static func readName() -> String {
        isMain ? "main thread \(id)" : "thread \(id)"
    }

    /// A thread's name, in its own storage.
    private final class StoredName {
        let name: String
        init(_ name: String) { self.name = name }
    }

    /// The key of the name in each thread's storage; the name is released
    /// when its thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { stored in
            // Linux passes an optional pointer, Darwin not.
            let pointer: UnsafeMutableRawPointer? = stored
            guard let pointer else { return }
            Unmanaged<StoredName>.fromOpaque(pointer).release()
        }
        precondition(created == 0, "StateInspector could not make a thread-storage key (\(created)).")
        return key
    }()

    /// Whether the calling thread is the process's main thread.
    static var isMain: Bool {
        #if canImport(Darwin)
            pthread_main_np() != 0
        #else
            // On Linux the main thread's id is the process's.
            Linux.threadID.map { $0() == getpid() } ?? false
        #endif
    }

    /// The system's id for the calling thread; where it cannot be read
    /// (a C library without `gettid`), the `pthread_t`, which is as stable
    /// for the thread's life.
    static var id: UInt64 {
        #if canImport(Darwin)
            var id: UInt64 = 0
            let read = pthread_threadid_np(nil, &id)
            precondition(read == 0, "StateInspector could not read the thread's id: pthread_threadid_np (\(read)).")
            return id
        #else
            guard let threadID = Linux.threadID else { return UInt64(currentThreadIdentity()) }
            return UInt64(clamping: threadID())
        #endif
    }

    #if !canImport(Darwin)
        /// The C library's thread call that its Swift module does not show
        /// (it needs `_GNU_SOURCE`), looked up once.
        private enum Linux {
            typealias ThreadID = @convention(c) () -> pid_t

            static let threadID: ThreadID? = symbol("gettid", as: ThreadID.self)

            private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
                // RTLD_DEFAULT: the symbols of everything the process has loaded.
                dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
            }
        }
    #endif
}
