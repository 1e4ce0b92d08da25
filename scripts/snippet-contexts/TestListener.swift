// Context for the examples in Sources/ReceiverStyleTesting/TestListener.swift.
import ReceiverStyle
import ReceiverStyleTesting

let (transmitter, receiver) = Receiver<Int>.make(with: .warm(upTo: 2))
transmitter.broadcast(1)
transmitter.broadcast(2)
