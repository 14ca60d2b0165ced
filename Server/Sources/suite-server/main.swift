import Foundation
import Logging
import SuiteServer

LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
exit(await SuiteServerMain.run(Array(CommandLine.arguments.dropFirst())))
