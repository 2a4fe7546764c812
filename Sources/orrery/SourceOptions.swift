import ArgumentParser
import OrreryCore

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

    @Option(help: ArgumentHelp("Folder holding hosts.json, the environment map (optional).", valueName: "folder"))
    var config = "config"

    @Option(help: ArgumentHelp("Largest body file a stub may name, in bytes; a larger one fails to load, with its file and line.", valueName: "bytes"))
    var maxBodyFile = StubDecoder.defaultMaximumBodyFileBytes

    /// A loader for the stubs folder, with the limits given.
    var stubLoader: StubLoader {
        var loader = StubLoader(root: stubs)
        loader.maximumBodyFileBytes = maxBodyFile
        return loader
    }

    var hostMapPath: String { (config.hasSuffix("/") ? config : config + "/") + "hosts.json" }
}
