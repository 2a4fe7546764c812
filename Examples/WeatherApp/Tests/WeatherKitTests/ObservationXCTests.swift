import Foundation
import OrreryTesting
import WeatherKit
import XCTest

/// The same kit from XCTest: a daemon for the class, a session for each method.
final class ObservationXCTests: OrreryTestCase {
    override class var orreryOptions: OrreryDaemon.Options { .init(stubs: "Stubs") }

    func testAnObservationGetsAnID() async throws {
        let session = try orrery
        try await stubRequest(.post, path: "/v1/observations").andReturn(201).withJSON(["id": "obs-7"])
            .install(on: session.client)

        let client = WeatherClient(baseURL: session.url, apiKey: "test-key")
        let id = try await client.report(Observation(city: "Brest", summary: "Rain", celsius: 9))
        XCTAssertEqual(id, "obs-7")
        try await session.client.verify(.post, "/v1/observations", count: 1)
    }

    func testARefusedObservationIsAServerError() async throws {
        let session = try orrery
        try await stubRequest(.post, path: "/v1/observations").andReturn(422).install(on: session.client)

        let client = WeatherClient(baseURL: session.url, apiKey: "test-key")
        do {
            _ = try await client.report(Observation(city: "Brest", summary: "Rain", celsius: 9))
            XCTFail("a 422 should be an error")
        } catch let error as WeatherError {
            XCTAssertEqual(error, .server(status: 422))
        }
    }
}
