// Context for the examples in Sources/StateCore/EffectTasks.swift.
import StateCore
