import DeltaStyle
import TestSupport
import Testing

@Suite("ObservableProperty: changes made inside callbacks, in delivery order")
struct ObservablePropertyOrderTests {
    // MARK: The last value delivered is the value

    @Test("an apply then a set inside a callback are delivered in that order, and the set's value is the value")
    func applyThenSetInsideCallback() {
        let property = ObservableProperty(5)
        let delivered = Recorder<Int>()
        let other = Recorder<Int>()
        var reacted = false
        property.subscribe { value in
            delivered.append(value)
            guard !reacted else { return }
            reacted = true
            property.apply(AddTen())
            property.value = 5
        }
        property.subscribe { other.append($0) }
        property.value = 5
        #expect(delivered.values == [5, 15, 5])
        #expect(property.value == 5, "the last value delivered must be the value readers see")
        #expect(property.value == other.values.last)
    }

    @Test("inside a callback, the value read right after a set is still the value being delivered")
    func setInsideCallbackTakesEffectAfterDelivery() {
        let property = ObservableProperty(0)
        let delivered = Recorder<Int>()
        let readInside = LockedValue<Int?>(nil)
        var reacted = false
        property.subscribe { value in
            delivered.append(value)
            guard !reacted else { return }
            reacted = true
            property.apply(AddTen())
            property.value = 7
            readInside.modify { $0 = property.value }
        }
        property.value = 1
        #expect(readInside.value == 1, "a set inside a callback takes effect after the current delivery")
        #expect(delivered.values == [1, 11, 7], "the apply runs on the value current at its turn, then the set")
        #expect(property.value == 7)
        #expect(property.value == delivered.values.last)
    }

    @Test("a set made inside an action's reduce takes effect after the action, and is the final value")
    func setInsideReduce() {
        let property = ObservableProperty(0)
        let delivered = Recorder<Int>()
        property.subscribe { delivered.append($0) }
        property.apply(SetWhileReducing(property: property, valueToSet: 100))
        #expect(delivered.values == [1, 100])
        #expect(property.value == 100, "the last value delivered must be the value readers see")
    }

    // MARK: A replay after a queued change

    @Test("a model observed in a callback after an apply ends at the value after that apply")
    func observedAfterQueuedApply() {
        let property = ObservableProperty(0)
        var model: ObservedState<Int>?
        property.subscribe { _ in
            guard model == nil else { return }
            property.apply(AddTen())
            model = property.observed(on: ImmediateScheduler())
        }
        property.value = 1
        #expect(model?.value == 11, "the replay is read when the model joins, after the queued apply")
        property.value = 2
        #expect(model?.value == 2)
    }
}

private struct AddTen: ActionType {
    func reduce(state: Int) -> Int { state + 10 }
}

/// Adds one, and sets `property` to `valueToSet` while reducing.
private struct SetWhileReducing: ActionType {
    let property: ObservableProperty<Int>
    let valueToSet: Int

    func reduce(state: Int) -> Int {
        property.value = valueToSet
        return state + 1
    }
}
