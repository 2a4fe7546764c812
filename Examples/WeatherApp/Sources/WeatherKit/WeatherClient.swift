import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client for a small weather API: current conditions, a forecast, and observations sent by users.
///
/// The base URL is all it takes to point it elsewhere: the real service in the app, an Orrery session in the tests.
public struct WeatherClient: Sendable {
    /// Where the API lives, such as `https://api.weather.example`.
    public let baseURL: URL
    /// Sent as `X-Api-Key` with every request; nil sends none.
    public let apiKey: String?
    /// Seconds a request may take.
    public let timeout: TimeInterval
    private let session: URLSession

    /// Makes a client for the API at `baseURL`.
    public init(baseURL: URL, apiKey: String?, timeout: TimeInterval = 10, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.timeout = timeout
        self.session = session
    }

    /// `GET /v1/current?city=...`: the weather now.
    public func currentConditions(city: String) async throws -> Conditions {
        try await send("GET", "/v1/current", query: [URLQueryItem(name: "city", value: city)])
    }

    /// `GET /v1/forecast?city=...&days=...`: one entry per day, today first.
    public func forecast(city: String, days: Int) async throws -> [DailyForecast] {
        let query = [URLQueryItem(name: "city", value: city), URLQueryItem(name: "days", value: String(days))]
        let page: ForecastPage = try await send("GET", "/v1/forecast", query: query)
        return page.days
    }

    /// `POST /v1/observations`: reports what a user sees; answers with the observation's id.
    public func report(_ observation: Observation) async throws -> String {
        let receipt: Receipt = try await send("POST", "/v1/observations", body: try JSONEncoder().encode(observation))
        return receipt.id
    }

    private func send<Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil
    ) async throws -> Answer {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        components?.queryItems = query.isEmpty ? nil : query
        guard let url = components?.url else { throw WeatherError.invalidRequest(path) }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        if let apiKey { request.setValue(apiKey, forHTTPHeaderField: "X-Api-Key") }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        switch status {
        case 200..<300:
            do {
                return try JSONDecoder().decode(Answer.self, from: data)
            } catch {
                throw WeatherError.unreadableAnswer(String(decoding: data.prefix(200), as: UTF8.self))
            }
        case 401: throw WeatherError.unauthorized
        case 404: throw WeatherError.cityNotFound
        default: throw WeatherError.server(status: status)
        }
    }
}

/// Why a call failed.
public enum WeatherError: Error, Equatable, Sendable {
    /// The API key was missing or refused.
    case unauthorized
    /// The service knows no such city.
    case cityNotFound
    /// The service failed (5xx) or answered with an unexpected status.
    case server(status: Int)
    /// A success status with a body that is not what the API documents.
    case unreadableAnswer(String)
    /// The path and query did not make a URL.
    case invalidRequest(String)
}
