/// A paginated stub (`paginate:`), after OperaSwift's `PaginationRequest`: a collection served page by page, filtered
/// by a search query, with `Link` and `X-Total-Count` headers as GitHub's API has them.
public struct Pagination: Sendable, Equatable {
    /// The whole collection, in order.
    public var items: [JSONValue]
    /// Where the page's list goes in the body (`items`, or `data.items` for a nested one); empty: the body is the list.
    public var collectionKeyPath: [String]
    public var perPage: Int
    public var pageParameter: String
    public var queryParameter: String
    public var perPageParameter: String
    public var firstPage: Int
    /// Each item as JSON bytes, encoded once: a page is these joined, not the items encoded again per request.
    private let encodedItems: [[UInt8]]

    public static let defaultPerPage = 30

    public init(
        items: [JSONValue], collectionKeyPath: [String] = [], perPage: Int = Pagination.defaultPerPage,
        pageParameter: String = "page", queryParameter: String = "q", perPageParameter: String = "per_page",
        firstPage: Int = 1
    ) {
        self.items = items
        self.collectionKeyPath = collectionKeyPath
        self.perPage = max(1, perPage)
        self.pageParameter = pageParameter
        self.queryParameter = queryParameter
        self.perPageParameter = perPageParameter
        self.firstPage = firstPage
        encodedItems = items.map(\.encodedBytes)
    }

    /// The page a request asks for, or a 400 when its page (or page size) is not one.
    ///
    /// - Parameters:
    ///   - scheme: how the client reached Orrery (`http`, or `https` on the TLS port), for the `Link` URLs.
    ///   - status: the stub's status, for a page that exists.
    ///   - headers: the stub's headers; `Link` and `X-Total-Count` are added, and `Content-Type` if missing.
    public func page(
        for request: HTTPRequest, scheme: String = "http", status: Int = 200, headers: HTTPHeaders = HTTPHeaders()
    ) -> RenderedResponse {
        let page: Int
        switch number(request, pageParameter, default: firstPage) {
        case .success(let value) where value >= firstPage:
            page = value
        case .success(let value):
            return badRequest("page \(value) is below the first page, \(firstPage).")
        case .failure(let refused):
            return badRequest("page '\(refused.text)' is not a page number: pages are whole numbers from \(firstPage).")
        }
        let size: Int
        switch number(request, perPageParameter, default: perPage) {
        case .success(let value) where value >= 1:
            size = value
        case .success(let value):
            return badRequest("\(perPageParameter) \(value) is not a page size: give a whole number from 1.")
        case .failure(let refused):
            return badRequest("\(perPageParameter) '\(refused.text)' is not a page size: give a whole number from 1.")
        }
        let query = request.queryValue(named: queryParameter) ?? ""
        let lowered = query.lowercased()
        let matching = query.isEmpty ? Array(items.indices) : items.indices.filter { Self.item(items[$0], contains: lowered) }
        let total = matching.count
        let lastPage = firstPage + max(0, total - 1) / size
        let offset = (page - firstPage).multipliedReportingOverflow(by: size)
        let slice: ArraySlice<Int> =
            if offset.overflow || offset.partialValue >= total {
                []
            } else {
                matching[offset.partialValue..<min(total, offset.partialValue + size)]
            }

        var links: [(Int, String)] = [(firstPage, "first")]
        if page > firstPage { links.append((min(page - 1, lastPage), "prev")) }
        if page < lastPage { links.append((page + 1, "next")) }
        links.append((lastPage, "last"))
        var headers = headers
        if !headers.contains("Content-Type") { headers.add("Content-Type", "application/json") }
        headers.set("Link", links.map { "<\(url(of: request, page: $0.0, scheme: scheme))>; rel=\"\($0.1)\"" }.joined(separator: ", "))
        headers.set("X-Total-Count", String(total))

        // `[item,item]`, or with a key path `{"a":{"b":[item,item]}},"total_count":N}`, from the items' own bytes.
        var body: [UInt8] = []
        body.reserveCapacity(slice.reduce(64) { $0 + encodedItems[$1].count + 1 })
        for key in collectionKeyPath {
            body.append(UInt8(ascii: "{"))
            body += JSONValue.string(key).encodedBytes
            body.append(UInt8(ascii: ":"))
        }
        body.append(UInt8(ascii: "["))
        for (position, index) in slice.enumerated() {
            if position > 0 { body.append(UInt8(ascii: ",")) }
            body += encodedItems[index]
        }
        body.append(UInt8(ascii: "]"))
        if !collectionKeyPath.isEmpty {
            body += Array(repeating: UInt8(ascii: "}"), count: collectionKeyPath.count - 1)
            body += Array(",\"total_count\":\(total)}".utf8)
        }
        return RenderedResponse(status: status, headers: headers, body: body)
    }

    /// A whole number from a query parameter, its default when absent, or the text that is not one.
    private func number(_ request: HTTPRequest, _ name: String, default fallback: Int) -> Result<Int, NotANumber> {
        guard let text = request.queryValue(named: name) else { return .success(fallback) }
        guard let value = Int(text) else { return .failure(NotANumber(text: text)) }
        return .success(value)
    }

    private struct NotANumber: Error {
        var text: String
    }

    private func badRequest(_ message: String) -> RenderedResponse {
        let error = ErrorResponse(.Code400BadRequest, message: message)
        return RenderedResponse(status: error.status.code, headers: error.headers, body: error.body)
    }

    /// An item stays when one of its string values (or the item, if it is a string) contains the query.
    static func item(_ item: JSONValue, contains loweredQuery: String) -> Bool {
        switch item {
        case .string(let text): text.lowercased().contains(loweredQuery)
        case .object(let members):
            members.contains { member in
                if case .string(let text) = member.1 { text.lowercased().contains(loweredQuery) } else { false }
            }
        default: false
        }
    }

    /// The request's own URL with only the page changed: the other parameters stay as they were sent.
    func url(of request: HTTPRequest, page: Int, scheme: String) -> String {
        let target = request.target
        let base: Substring
        if let questionMark = target.firstIndex(of: "?") {
            base = target[..<questionMark]
        } else {
            base = target[...]
        }
        var parts: [Substring] = []
        var replaced = false
        for part in request.rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard PercentDecoding.decode(name, plusAsSpace: true) == pageParameter else {
                parts.append(part)
                continue
            }
            if !replaced { parts.append("\(name)=\(page)") }
            replaced = true
        }
        if !replaced { parts.append("\(pageParameter)=\(page)") }
        let pathAndQuery = base + "?" + parts.joined(separator: "&")
        if request.isAbsoluteForm { return String(pathAndQuery) }
        guard let host = request.host else { return String(pathAndQuery) }
        return "\(scheme)://\(host)\(pathAndQuery)"
    }
}
