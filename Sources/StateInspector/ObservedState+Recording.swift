import StateCore

extension ActionRecording {
    /// The state after the recording's first `step` inputs, as recorded:
    /// its initial state for step 0, and the state after its last input
    /// for `steps.count`.
    ///
    /// Steps count every input of every segment in order, as ``steps``
    /// lists them, so step `k` is the state a store replayed through the
    /// first `k` inputs holds.
    ///
    /// - Parameter step: How many inputs have been applied, from 0 through
    ///   `steps.count`; any other number traps, naming the range.
    /// - Returns: The recorded state.
    /// - Complexity: O(*s*) in the segments.
    public func state(atStep step: Int) -> State {
        precondition(step >= 0, "step \(step) is before the recording's start (step 0)")
        var remaining = step
        for segment in segments {
            if remaining == 0 { return segment.initialState }
            if remaining <= segment.steps.count { return segment.steps[remaining - 1].state }
            remaining -= segment.steps.count
        }
        preconditionFailure("step \(step) is past the recording's last, step \(step - remaining)")
    }
}

extension ObservedState {
    /// Creates a model that holds a recorded session's state at one step and
    /// never changes: for a SwiftUI preview or a view test that shows what a
    /// user saw.
    ///
    /// ```swift
    /// let recording = try ActionRecording<any Action, Cart>(jsonLines: text, inputs: coding)
    /// let preview = ObservedState(recording, step: 3)   // after the third input
    /// preview.items.count
    /// ```
    ///
    /// The model reads as any other (`preview.items`, `preview.value`);
    /// see ``ActionRecording/state(atStep:)`` for how steps count.
    ///
    /// - Parameters:
    ///   - recording: A session read from an exported log.
    ///   - step: How many of its inputs have been applied, from 0 (its
    ///     initial state) through `recording.steps.count`.
    public convenience init<Input>(_ recording: ActionRecording<Input, Value>, step: Int) {
        self.init(recording.state(atStep: step))
    }
}
