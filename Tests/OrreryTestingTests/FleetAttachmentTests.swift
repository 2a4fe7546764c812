import Foundation
import OrreryClient
import Testing

@testable import OrreryTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Attaching to a fleet by its URL: sessions under ids the kit chose, reached with the header its configuration
/// carries. One daemon stands in for the fleet (the fleet test in OrreryEndToEndTests puts nginx in front of three).
@Suite struct FleetAttachmentTests {
    @Test func fleetFromEnvironment() {
        #expect(OrreryFleet.fromEnvironment([:]) == nil)
        #expect(OrreryFleet.fromEnvironment(["ORRERY_URL": ""]) == nil)
        let fleet = OrreryFleet.fromEnvironment([
            "ORRERY_URL": "http://orrery.ci.internal:8080", "ORRERY_ADMIN_TOKEN": "t",
        ])
        #expect(fleet?.url.absoluteString == "http://orrery.ci.internal:8080")
        #expect(fleet?.adminToken == "t")
    }

    @Test func chosenIDsAreValidAndDistinct() {
        let ids = (0..<50).map { _ in OrreryFleet.newID(for: "checkout: pays by card ✓") }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.count <= 64 && id.hasPrefix("checkout--pays-by-card--"))
            #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        }
        #expect(OrreryFleet.newID(for: String(repeating: "x", count: 200)).count == 61)
    }

    @Test func sessionsOnAFleetSeeOnlyTheirOwnStubs() async throws {
        try await Orrery.withDaemon(Support.privateOptions()) { daemon in
            let fleet = OrreryFleet(url: daemon.url)
            let first = try await fleet.openSession(name: "first")
            let second = try await fleet.openSession(name: "second")
            #expect(first.id != second.id)
            for session in [first, second] {
                try await stubRequest(.get, "/who").andReturn(.code200OK).withBody("I am \(session.id)").install(
                    on: session.client)
            }
            for session in [first, second] {
                let app = URLSession(configuration: session.urlSessionConfiguration)
                let (data, response) = try await app.data(from: session.url.appendingPathComponent("who"))
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(String(decoding: data, as: UTF8.self) == "I am \(session.id)")
            }
            try await first.end()
            let app = URLSession(configuration: first.urlSessionConfiguration)
            let (data, response) = try await app.data(from: first.url.appendingPathComponent("who"))
            #expect((response as? HTTPURLResponse)?.statusCode == 404)
            #expect(String(decoding: data, as: UTF8.self).contains(first.id))
            try await second.end()
        }
    }
}
