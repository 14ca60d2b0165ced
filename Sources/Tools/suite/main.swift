import SuiteCLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A full disk or a file-size limit must surface as an error (EFBIG → "disk is full"), not kill
// the process mid-write.
signal(SIGXFSZ, SIG_IGN)
if let status = SuiteMain.refuseInvalidArguments() { exit(status) }
// This process's environment and standard streams.
let context = CLIContext.process
// The frequent read commands run here, on the main thread: no hop to a worker thread, whose
// malloc arena would grow in hundreds of small mprotect calls.
if let status = SuiteMain.runFast(Array(CommandLine.arguments.dropFirst()), context: context, endsProcess: true) { exit(status) }
exit(await SuiteMain.run(Array(CommandLine.arguments.dropFirst()), context: context))
