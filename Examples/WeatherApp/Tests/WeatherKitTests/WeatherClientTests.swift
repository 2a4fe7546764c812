import Foundation
import OrreryTesting
import Testing
import WeatherKit

/// The weather client against Orrery: one daemon for the suite, a session for each test, so the tests run in
/// parallel and several stub the same routes with different answers.
@Suite(.orrery(stubs: "Stubs"))
struct WeatherClientTests {
    /// The client as the app makes it, pointed at this test's own session.
    func client(apiKey: String? = "test-key") throws -> WeatherClient {
        WeatherClient(baseURL: try Orrery.url, apiKey: apiKey)
    }

    @Test func currentConditionsComeFromTheStubFile() async throws {
        let now = try await client().currentConditions(city: "Paris")
        #expect(now.celsius == 18.5)
        #expect(now.summary == "Cloudy")
    }

    @Test func anUnknownCityIsCityNotFound() async throws {
        await #expect(throws: WeatherError.cityNotFound) {
            try await client().currentConditions(city: "Atlantis")
        }
    }

    @Test func aMissingAPIKeyIsUnauthorized() async throws {
        await #expect(throws: WeatherError.unauthorized) {
            try await client(apiKey: nil).currentConditions(city: "Paris")
        }
    }

    @Test func aTestCanReplaceTheFileStubInItsOwnSession() async throws {
        try await stubRequest(.get, path: "/v1/current").withQuery(["city": "Paris"])
            .andReturn(.code200OK).withJSON(["city": "Paris", "celsius": 31, "summary": "Heatwave"])
            .withPriority(1)
            .install(on: Orrery.client)
        #expect(try await client().currentConditions(city: "Paris").summary == "Heatwave")
    }

    @Test(arguments: [1, 3, 7])
    func theForecastHasOneEntryPerDay(days: Int) async throws {
        let entries: [JSON] = (0..<days).map { day in
            ["date": .string("2025-06-\(10 + day)"), "high": .number(20 + Double(day)), "low": 12, "summary": "Sun"]
        }
        try await stubRequest(.get, path: "/v1/forecast").withQuery(["days": String(days)])
            .andReturn(.code200OK).withJSON(["city": "Lyon", "days": .array(entries)])
            .install(on: Orrery.client)

        let forecast = try await client().forecast(city: "Lyon", days: days)
        #expect(forecast.count == days)
        #expect(forecast.last?.high == 20 + Double(days - 1))
        try await Orrery.client.verify(RequestPattern(.get, path: "/v1/forecast").withQuery(["days": String(days)]))
    }

    @Test func anObservationIsSentAsJSON() async throws {
        try await stubRequest(.post, path: "/v1/observations").andReturn(.code201Created).withJSON(["id": "obs-1"])
            .install(on: Orrery.client)

        let id = try await client().report(Observation(city: "Nantes", summary: "Drizzle", celsius: 11))
        #expect(id == "obs-1")
        try await Orrery.client.verify(
            RequestPattern(.post, "/v1/observations")
                .withHeader("X-Api-Key", .equalTo("test-key"))
                .withJSON(["city": "Nantes", "summary": "Drizzle", "celsius": 11]))
    }

    @Test func aServerFailureIsReported() async throws {
        try await stubRequest(.get, path: "/v1/forecast").andReturn(503).install(on: Orrery.client)
        await #expect(throws: WeatherError.server(status: 503)) {
            try await client().forecast(city: "Lyon", days: 1)
        }
    }

    @Test func aDroppedConnectionIsAnError() async throws {
        try await stubRequest(.get, path: "/v1/forecast").andFail(with: .connectionReset)
            .install(on: Orrery.client)
        await #expect(throws: (any Error).self) {
            try await client().forecast(city: "Lyon", days: 1)
        }
    }
}
