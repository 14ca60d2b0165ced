import Foundation

/// Unbuffered writes to standard output (a pipe would otherwise hold the first line back).
enum StandardOutput {
    /// Writes one line and its newline straight to file descriptor 1.
    static func writeLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
