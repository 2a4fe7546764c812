import Testing
@testable import OrreryCore

@Suite("HTTPStatusCode")
struct HTTPStatusCodeTests {
    @Test("Every case has a reason phrase, a failure reason and a recovery suggestion")
    func everyCaseHasTexts() {
        for status in HTTPStatusCode.allCases {
            #expect(!status.reasonPhrase.isEmpty, "\(status.rawValue) has no reason phrase")
            #expect(!status.failureReason.isEmpty, "\(status.rawValue) has no failure reason")
            #expect(!status.recoverySuggestion.isEmpty, "\(status.rawValue) has no recovery suggestion")
        }
    }

    @Test("Every text is a single sentence")
    func textsAreSingleSentences() {
        for status in HTTPStatusCode.allCases {
            for text in [status.failureReason, status.recoverySuggestion] {
                #expect(text.hasSuffix("."), "\(status.rawValue): \(text)")
                #expect(!text.dropLast().contains(". "), "\(status.rawValue): \(text)")
                #expect(text.first?.isUppercase == true, "\(status.rawValue): \(text)")
            }
        }
    }

    @Test("name matches the Swift case name")
    func nameMatchesCaseName() {
        for status in HTTPStatusCode.allCases {
            #expect(status.name == String(describing: status))
            #expect(status.name.hasPrefix("Code\(status.rawValue)"))
        }
    }

    @Test("name and lowerCamelName round-trip through init(name:)")
    func namesRoundTrip() {
        for status in HTTPStatusCode.allCases {
            #expect(HTTPStatusCode(name: status.name) == status, "\(status.name)")
            #expect(HTTPStatusCode(name: status.lowerCamelName) == status, "\(status.lowerCamelName)")
            #expect(HTTPStatusCode(name: status.reasonPhrase) == status, "\(status.reasonPhrase)")
            #expect(HTTPStatusCode(name: String(status.rawValue)) == status)
        }
    }

    @Test("Reason phrases are distinct once normalized")
    func normalizedPhrasesAreUnique() {
        let keys = HTTPStatusCode.allCases.map { HTTPStatusCode.normalize($0.reasonPhrase) }
        #expect(Set(keys).count == keys.count)
        let lowerCamelNames = HTTPStatusCode.allCases.map(\.lowerCamelName)
        #expect(Set(lowerCamelNames).count == lowerCamelNames.count)
    }

    @Test(
        "lowerCamelName",
        arguments: [
            (HTTPStatusCode.Code401Unauthorized, "unauthorized"),
            (.Code404NotFound, "notFound"),
            (.Code200OK, "ok"),
            (.Code414URITooLong, "uriTooLong"),
            (.Code226IMUsed, "imUsed"),
            (.Code505HTTPVersionNotSupported, "httpVersionNotSupported"),
            (.Code413ContentTooLarge, "contentTooLarge"),
            (.Code418ImATeapot, "imATeapot"),
            (.Code203NonAuthoritativeInformation, "nonAuthoritativeInformation"),
            (.Code207MultiStatus, "multiStatus"),
        ]
    )
    func lowerCamelName(status: HTTPStatusCode, expected: String) {
        #expect(status.lowerCamelName == expected)
    }

    @Test(
        "Spellings users write resolve",
        arguments: [
            ("Code401Unauthorized", HTTPStatusCode.Code401Unauthorized),
            ("code401Unauthorized", .Code401Unauthorized),
            ("unauthorized", .Code401Unauthorized),
            ("Unauthorized", .Code401Unauthorized),
            ("UNAUTHORIZED", .Code401Unauthorized),
            ("401", .Code401Unauthorized),
            ("Code401", .Code401Unauthorized),
            ("401 Unauthorized", .Code401Unauthorized),
            ("not_found", .Code404NotFound),
            ("not-found", .Code404NotFound),
            ("Not Found", .Code404NotFound),
            ("notFound", .Code404NotFound),
            ("NOT_FOUND", .Code404NotFound),
            ("  not found  ", .Code404NotFound),
            ("Code200OK", .Code200OK),
            ("ok", .Code200OK),
            ("Code226IMUsed", .Code226IMUsed),
            ("Code413ContentTooLarge", .Code413ContentTooLarge),
            ("Code413RequestEntityTooLarge", .Code413ContentTooLarge),
            ("requestEntityTooLarge", .Code413ContentTooLarge),
            ("payloadTooLarge", .Code413ContentTooLarge),
            ("Code414URITooLong", .Code414URITooLong),
            ("Code414RequestURITooLong", .Code414URITooLong),
            ("requestUriTooLong", .Code414URITooLong),
            ("Code416RangeNotSatisfiable", .Code416RangeNotSatisfiable),
            ("Code416RequestedRangeNotSatisfiable", .Code416RangeNotSatisfiable),
            ("Code203NonAuthoritativeInformation", .Code203NonAuthoritativeInformation),
            ("Code203NonAuthoritative", .Code203NonAuthoritativeInformation),
            ("Code422UnprocessableContent", .Code422UnprocessableContent),
            ("Code422UnprocessableEntity", .Code422UnprocessableContent),
            ("unprocessableEntity", .Code422UnprocessableContent),
            ("Code418ImATeapot", .Code418ImATeapot),
            ("imATeapot", .Code418ImATeapot),
            ("I'm a teapot", .Code418ImATeapot),
            ("Code505HTTPVersionNotSupported", .Code505HTTPVersionNotSupported),
            ("http_version_not_supported", .Code505HTTPVersionNotSupported),
            ("Request Time-out", .Code408RequestTimeout),
        ]
    )
    func spellingResolves(spelling: String, expected: HTTPStatusCode) {
        #expect(HTTPStatusCode(name: spelling) == expected)
    }

    @Test(
        "Mismatched and unknown names return nil",
        arguments: [
            "Code404Unauthorized",
            "Code401NotFound",
            "404Unauthorized",
            "Code306Unused",
            "Code306SwitchProxy",
            "306",
            "999",
            "Code999",
            "",
            "   ",
            "-_-",
            "notAStatus",
            "Code",
            "unauthorised",
        ]
    )
    func badNamesReturnNil(spelling: String) {
        #expect(HTTPStatusCode(name: spelling) == nil)
    }

    @Test("Every IANA registered code is a case")
    func caseCount() {
        #expect(HTTPStatusCode.allCases.count >= 60)
        let registered =
            Array(100...103) + Array(200...208) + [226] + Array(300...305) + [307, 308]
            + Array(400...418) + Array(421...426) + [428, 429, 431, 451]
            + Array(500...508) + [510, 511]
        #expect(Set(HTTPStatusCode.allCases.map(\.rawValue)) == Set(registered))
        #expect(HTTPStatusCode(rawValue: 306) == nil)
    }

    @Test("reasonPhrase(for:) covers registered and unregistered numbers")
    func reasonPhraseForNumber() {
        #expect(HTTPStatusCode.reasonPhrase(for: 404) == "Not Found")
        #expect(HTTPStatusCode(rawValue: 413)?.reasonPhrase == "Content Too Large")
        #expect(HTTPStatusCode.reasonPhrase(for: 413) == "Content Too Large")
        #expect(!HTTPStatusCode.reasonPhrase(for: 599).isEmpty)
        #expect(HTTPStatusCode.reasonPhrase(for: 599) == "Unknown Server Error")
        #expect(HTTPStatusCode.reasonPhrase(for: 499) == "Unknown Client Error")
        #expect(HTTPStatusCode.reasonPhrase(for: 306) == "Unknown Redirection")
        #expect(HTTPStatusCode.reasonPhrase(for: 299) == "Unknown Success")
        #expect(HTTPStatusCode.reasonPhrase(for: 199) == "Unknown Informational")
        for code in 100...599 {
            #expect(!HTTPStatusCode.reasonPhrase(for: code).isEmpty)
        }
    }

    @Test("Class predicates")
    func classPredicates() {
        #expect(HTTPStatusCode.Code100Continue.isInformational)
        #expect(HTTPStatusCode.Code204NoContent.isSuccess)
        #expect(HTTPStatusCode.Code308PermanentRedirect.isRedirection)
        #expect(HTTPStatusCode.Code404NotFound.isClientError)
        #expect(HTTPStatusCode.Code503ServiceUnavailable.isServerError)
        #expect(HTTPStatusCode.Code404NotFound.isError)
        #expect(HTTPStatusCode.Code500InternalServerError.isError)
        #expect(!HTTPStatusCode.Code302Found.isError)
        for status in HTTPStatusCode.allCases {
            let classes = [
                status.isInformational, status.isSuccess, status.isRedirection,
                status.isClientError, status.isServerError,
            ]
            #expect(classes.filter { $0 }.count == 1, "\(status.rawValue)")
            #expect(status.isError == (status.isClientError || status.isServerError))
        }
    }
}
