// ReactorStyle re-exports StateCore, so Disposable, DisposeBag, the
// schedulers and the observer registry are one set of types however many
// flavours a file imports.
@_exported import StateCore
