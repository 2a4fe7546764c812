import OrreryCore

extension AdminAPI {
    /// `GET /__admin/contract`: the drift report of `--validate-against`; a 404 that says so without it.
    func contract() -> AdminReply {
        guard let contract = serviceLogger.contract else {
            return .error(.Code404NotFound, "No spec to report against: start the daemon with --validate-against SPEC.")
        }
        return .json(contract.json)
    }
}
