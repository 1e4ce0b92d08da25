// Context for the examples in Sources/StateCore/TestClock.swift.
import StateCore
