import Foundation

/// Removing what the user wrote, the same in every app: asked on a terminal, `--yes` in scripts.
enum Confirmation {
    /// Returns when the removal may go ahead; throws when it may not.
    ///
    /// - Parameters:
    ///   - question: "Remove quote #12 …?" (the `[y/N]` is added).
    ///   - yes: the command's `--yes`.
    static func require(_ question: String, yes: Bool) throws {
        if yes { return }
        guard Terminal.stdinIsTerminal else {
            throw CLIError.usage("\(question.trimmingCharacters(in: CharacterSet(charactersIn: "?"))): this needs --yes when not asked on a terminal")
        }
        CLIContext.current.standardError.write(VisibleText.visible("\(question) [y/N] ", oneLine: true))
        let answer = try LineReader().next() ?? ""
        guard ["y", "yes"].contains(answer.lowercased().trimmingCharacters(in: .whitespaces)) else {
            throw CLIError.failed("nothing was removed")
        }
    }
}
