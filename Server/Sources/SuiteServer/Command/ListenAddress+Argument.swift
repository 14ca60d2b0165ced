import ArgumentParser
import SuiteEnvironment

/// `--listen HOST:PORT` of `serve`.
extension ListenAddress: @retroactive ExpressibleByArgument {
    public var defaultValueDescription: String { description }
}
