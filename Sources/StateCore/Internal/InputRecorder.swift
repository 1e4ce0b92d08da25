/// What a store records its inputs through: the seam between a store and
/// the inspector.
///
/// While a log (`StateInspector`'s `ActionLog`) is attached, it holds the
/// log's admission check and recording, for the store's own state type.
///
/// The store keeps it in a field read only in its delivery order; with no
/// log attached that field is nil, and a store's hot path pays one load.
@usableFromInline
package final class InputRecorder<Input, Value> {
    /// The log, for telling recorders apart.
    package let log: AnyObject
    /// Whether the store may apply an input now.
    @usableFromInline package let admits: (Input) -> Bool
    /// Records an input and the store's state after it.
    @usableFromInline package let record: (Input, Value) -> Void
    /// Tells the log it is no longer attached.
    package let disconnect: () -> Void
    /// A flight recorder's ring, which admits every input: the store
    /// records into it directly, specialised, instead of calling `admits`
    /// and `record`.
    @usableFromInline package let ring: InputRing<Input, Value>?

    package init(
        log: AnyObject,
        admits: @escaping (Input) -> Bool,
        record: @escaping (Input, Value) -> Void,
        disconnect: @escaping () -> Void
    ) {
        self.log = log
        self.admits = admits
        self.record = record
        self.disconnect = disconnect
        ring = nil
    }

    /// A recorder that keeps every input in `ring`, and runs `disconnect`
    /// when the store lets it go for another.
    package init(log: AnyObject, ring: InputRing<Input, Value>, disconnect: @escaping () -> Void) {
        self.log = log
        admits = { _ in true }
        record = { [ring] input, value in ring.record(input, value) }
        self.disconnect = disconnect
        self.ring = ring
    }
}

extension InputRecorder {
    /// Puts `recorder` in a store's fields and returns the one they held.
    ///
    /// A store keeps its log's recorder and a ``RecordingSwitch`` saying
    /// one is set (and which ring it has), both touched only in its
    /// delivery order: the hot path tests the plain switch, since testing
    /// the optional reference (or a struct holding it) retains and
    /// releases it per input (state-bench S3, callgrind).
    package static func exchange<Owner: AnyObject>(
        _ recorder: InputRecorder<Input, Value>?,
        in owner: Owner,
        recorderAt field: ReferenceWritableKeyPath<Owner, InputRecorder<Input, Value>?>,
        switchAt recording: ReferenceWritableKeyPath<Owner, RecordingSwitch<Input, Value>>
    ) -> InputRecorder<Input, Value>? {
        defer {
            // The recorder first: it holds the ring the switch refers to.
            owner[keyPath: field] = recorder
            owner[keyPath: recording] = RecordingSwitch(recorder)
        }
        return owner[keyPath: field]
    }
}
