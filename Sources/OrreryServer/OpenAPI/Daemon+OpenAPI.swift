import Logging
import OrreryCore
import OrreryOpenAPI

extension Daemon {
    /// Loads the `--openapi` specs (a spec that cannot be read stops the start) and logs what each serves.
    static func loadOpenAPI(_ configuration: DaemonConfiguration, logger: Logger) throws -> OpenAPIMock? {
        guard !configuration.openAPISpecs.isEmpty else { return nil }
        var specs: [OpenAPISpec] = []
        for path in configuration.openAPISpecs {
            let spec = try OpenAPISpecLoader.load(path: path)
            for warning in spec.warnings { logger.warning("OpenAPI \(path): \(warning)") }
            specs.append(spec)
        }
        let mock = OpenAPIMock(specs: specs, validation: configuration.openAPIValidation)
        for line in mock.summary { logger.info("\(line)") }
        return mock
    }
}
