import SuiteCLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A full disk or a file-size limit must surface as an error (EFBIG → "disk is full"), not kill
// the process mid-write.
signal(SIGXFSZ, SIG_IGN)
exit(await SuiteMain.run(Array(CommandLine.arguments.dropFirst())))
