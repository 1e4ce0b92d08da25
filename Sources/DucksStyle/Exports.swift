// DucksStyle re-exports StateCore, so Disposable, DisposeBag, the schedulers
// and the observer registry are one set of types however many flavours a
// file imports. StateCore's names match RxSwift's (`Disposable`,
// `Disposables`, `DisposeBag`), so RxDucks code ports by changing imports.
@_exported import StateCore
