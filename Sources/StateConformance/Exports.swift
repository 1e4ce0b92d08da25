// Every source is built from StateCore's pieces (`Disposable`, `LockedValue`,
// the schedulers), so the kit re-exports StateCore, as every flavour does.
@_exported import StateCore
