// Context for the examples in Sources/StateCore/ImmediateClock.swift.
import StateCore
