import Foundation
import Logging
import SuiteWeb

LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
exit(await SuiteWebMain.run(Array(CommandLine.arguments.dropFirst())))
