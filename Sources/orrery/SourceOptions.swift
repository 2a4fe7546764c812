import ArgumentParser

/// Where the stub files and the config folder are; shared by `serve` and `validate`.
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Folder of stub files (.json, .yaml, .yml; bodies/ folders hold body files).", valueName: "folder"))
    var stubs = "stubs"

    @Option(help: ArgumentHelp("Folder holding hosts.json, the environment map (optional).", valueName: "folder"))
    var config = "config"

    var hostMapPath: String { (config.hasSuffix("/") ? config : config + "/") + "hosts.json" }
}
