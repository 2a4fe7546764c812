import ArgumentParser
import OrreryServer

@main
struct Orrery: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orrery",
        abstract: "A working model of your backend: replays stubs, explains misses, serves an admin API.",
        discussion: """
            Orrery answers HTTP requests from stub files (JSON or YAML) under a stubs folder. Start it with \
            'orrery serve' from the repository root to serve the example stubs in stubs/, or check stub files \
            with 'orrery validate'.
            """,
        version: OrreryVersion.current,
        subcommands: [Serve.self, Validate.self, Export.self, Import.self, CA.self, Doctor.self],
        defaultSubcommand: Serve.self
    )
}
