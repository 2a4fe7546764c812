/// `GET /__admin/logging`: the traffic log (Astro's NetworkServiceLogger), on or off.
public struct TrafficLogStatus: Decodable, Sendable, Equatable {
    public let isLogging: Bool
    /// The file it writes, one JSON object per exchange and line.
    public let file: String?
    public let includeHeaders: Bool?
    public let includeBody: Bool?
    /// The size at which the file is rotated.
    public let maxBytes: Int?
    public let exchangesWritten: Int?
    /// Exchanges left out because the disk fell behind.
    public let exchangesDropped: Int?
    /// Why the log stopped, when a write failed.
    public let error: String?

    enum CodingKeys: String, CodingKey {
        case isLogging = "logging"
        case file, includeHeaders, includeBody, maxBytes, exchangesWritten, exchangesDropped, error
    }
}
