import Foundation

/// The weather now, in a city.
public struct Conditions: Codable, Equatable, Sendable {
    public let city: String
    public let celsius: Double
    public let summary: String
}

/// One day of a forecast.
public struct DailyForecast: Codable, Equatable, Sendable {
    public let date: String
    public let high: Double
    public let low: Double
    public let summary: String

    public init(date: String, high: Double, low: Double, summary: String) {
        self.date = date
        self.high = high
        self.low = low
        self.summary = summary
    }
}

/// What `GET /v1/forecast` answers.
struct ForecastPage: Codable, Sendable {
    let city: String
    let days: [DailyForecast]
}

/// What a user saw, reported to the service.
public struct Observation: Codable, Equatable, Sendable {
    public let city: String
    public let summary: String
    public let celsius: Double

    public init(city: String, summary: String, celsius: Double) {
        self.city = city
        self.summary = summary
        self.celsius = celsius
    }
}

/// What `POST /v1/observations` answers.
struct Receipt: Codable, Sendable {
    let id: String
}
