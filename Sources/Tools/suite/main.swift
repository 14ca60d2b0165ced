import SuiteCLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(await SuiteMain.run(Array(CommandLine.arguments.dropFirst())))
