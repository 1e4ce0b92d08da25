import Dispatch
import StateCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A program run as a child process, waited for to its end or stopped
/// after a time limit.
///
/// `posix_spawn` and a blocking `waitpid` on a thread of its own, rather
/// than Foundation's `Process`: under the thread sanitizer `Process` can
/// miss the end of a child that crashed, leaving it a zombie and its
/// parent waiting for ever.
enum ChildProcess {
    /// How a child ended.
    enum Ending: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)
        /// It ran past its time limit and was killed.
        case stopped
    }

    /// Why a child could not be started.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `executable` with `arguments` and `environment`, its standard
    /// input and output on `/dev/null` and its standard error written to
    /// the file at `standardError`, and waits for its end; every 100 ms of
    /// waiting it asks `shouldStop`, and kills the child when it says so (a
    /// stopped child, one that stopped making progress).
    ///
    /// - Returns: How it ended, or why it could not be started.
    static func run(
        _ executable: String,
        arguments: [String],
        environment: [String: String],
        standardError: String,
        shouldStop: () -> Bool
    ) -> Result<Ending, Problem> {
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            return .failure(Problem(description: "\(executable): \(String(cString: strerror(result)))"))
        }

        let child = pid
        let status = LockedValue<Int32?>(nil)
        let ended = DispatchSemaphore(value: 0)
        startDetachedThread {
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
            status.modify { $0 = raw }
            ended.signal()
        }
        while ended.wait(timeout: .now() + 0.1) == .timedOut {
            guard shouldStop() else { continue }
            // SIGKILL ends a child even when it is stopped (SIGSTOP).
            kill(child, SIGKILL)
            ended.wait()
            return .success(.stopped)
        }
        return .success(ending(fromWaitStatus: status.value ?? 0))
    }

    /// Decodes a `waitpid` status (the `WIFEXITED` and `WTERMSIG` macros,
    /// which Swift does not import).
    static func ending(fromWaitStatus status: Int32) -> Ending {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}
