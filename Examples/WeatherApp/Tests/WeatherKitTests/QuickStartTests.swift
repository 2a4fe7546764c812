import OrreryTesting
import Testing
import WeatherKit

@Suite(.orrery(stubs: "Stubs")) struct QuickStartTests {
    @Test func snowInOslo() async throws {
        let day: JSON = ["date": "2025-01-06", "high": -2, "low": -9, "summary": "Snow"]
        try await stubRequest(.get, path: "/v1/forecast").andReturn(.code200OK)
            .withJSON(["city": "Oslo", "days": [day]]).install(on: Orrery.client)
        let days = try await WeatherClient(baseURL: Orrery.url, apiKey: "k").forecast(city: "Oslo", days: 1)
        #expect(days.first?.summary == "Snow")
    }
}
