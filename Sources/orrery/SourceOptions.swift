import ArgumentParser

/// Where the stub files and the config folder are; shared by `serve` and `validate`.
struct SourceOptions: ParsableArguments {
    @Option(
        name: .customLong("stubs"),
        help: ArgumentHelp("Folder of stub files (.json, .yaml, .yml; bodies/ folders hold body files) (default: stubs).", valueName: "folder"))
    var givenStubs: String?

    /// The stubs folder: the one given, else `stubs`.
    var stubs: String { givenStubs ?? "stubs" }

    /// Whether `--stubs` named the folder (which must then exist).
    var isStubsFolderGiven: Bool { givenStubs != nil }

    @Option(
        name: .customLong("wiremock-root"),
        help: ArgumentHelp("A WireMock root (mappings/, __files/) served as WireMock would serve it (repeatable).", valueName: "folder"))
    var wiremockRoots: [String] = []

    @Option(help: ArgumentHelp("Folder holding hosts.json, the environment map (optional).", valueName: "folder"))
    var config = "config"

    var hostMapPath: String { (config.hasSuffix("/") ? config : config + "/") + "hosts.json" }
}
