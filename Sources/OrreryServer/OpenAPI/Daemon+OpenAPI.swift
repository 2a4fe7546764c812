import Logging
import OrreryCore
import OrreryOpenAPI

extension Daemon {
    /// Loads the `--openapi` specs (a spec that cannot be read stops the start) and logs what each serves.
    static func loadOpenAPI(_ configuration: DaemonConfiguration, logger: Logger) throws -> OpenAPIMock? {
        guard !configuration.openAPISpecs.isEmpty else { return nil }
        let mock = OpenAPIMock(
            specs: try load(configuration.openAPISpecs, logger: logger), validation: configuration.openAPIValidation)
        for line in mock.summary { logger.info("\(line)") }
        return mock
    }

    /// Loads the `--validate-against` specs, for the journal's `contractViolations` and the drift report.
    static func loadContract(_ configuration: DaemonConfiguration, logger: Logger) throws -> ContractMonitor? {
        guard !configuration.validateAgainst.isEmpty else { return nil }
        let mock = OpenAPIMock(specs: try load(configuration.validateAgainst, logger: logger), validation: .report)
        for line in mock.summary { logger.info("validating against \(line)") }
        return ContractMonitor(specs: mock)
    }

    private static func load(_ paths: [String], logger: Logger) throws -> [OpenAPISpec] {
        var specs: [OpenAPISpec] = []
        for path in paths {
            let spec = try OpenAPISpecLoader.load(path: path)
            for warning in spec.warnings { logger.warning("OpenAPI \(path): \(warning)") }
            specs.append(spec)
        }
        return specs
    }
}
