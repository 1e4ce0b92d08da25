/// The one upstream subscription behind ``ObservableType/share(replay:scope:)``,
/// counted by its subscribers.
///
/// Its ``ShareState`` (behind a lock) decides; this class acts after the
/// lock is released: it observes the subject, connects the source, forwards
/// the source's end, and disposes the connection.
final class SharedSource<Element> {
    private let source: Observable<Element>
    private let state: LockedValue<ShareState<Element>>

    init(_ source: Observable<Element>, replay: Int, scope: SubjectLifetimeScope) {
        self.source = source
        state = LockedValue(ShareState(replay: replay, scope: scope))
    }

    func subscribe(_ observer: AnyObserver<Element>) -> Disposable {
        let join = state.modify { $0.join() }
        // Observe first, so that the events the source emits while it is
        // being connected reach this subscriber too.
        let observation = join.subject.add(replaying: true) { event in
            switch event {
            case .next(let element): observer.onNext(element)
            case .error(let error): observer.onError(error)
            case .completed: observer.onCompleted()
            }
        }
        if let connection = join.connection {
            if join.connects {
                connect(connection)
                connection.opened()
            } else {
                // Joined a connection another thread is still opening: once
                // this returns, the source's next event must reach this
                // subscriber, so the connection must be open.
                connection.waitUntilOpen()
            }
        }
        let joined = join.connection
        // A composite, so that every concurrent `dispose()` reaches the
        // observation, whose disposal waits for a running call (rule C10).
        return Disposables.create(
            observation,
            Disposables.create { [self] in state.modify { $0.leave(joined) }?.upstream.dispose() }
        )
    }

    private func connect(_ connection: ShareConnection<Element>) {
        connection.upstream.setDisposable(
            source.subscribeHandler(
                AnyObserver(
                    next: { element in connection.forward(.next(element)) },
                    error: { [self] error in end(connection, with: .error(error)) },
                    completed: { [self] in end(connection, with: .completed) }
                )
            )
        )
    }

    private func end(_ connection: ShareConnection<Element>, with event: ShareEvent<Element>) {
        guard state.modify({ $0.end(connection) }) else { return }
        connection.forward(event, evenIfDetached: true)
        connection.upstream.dispose()
    }
}
