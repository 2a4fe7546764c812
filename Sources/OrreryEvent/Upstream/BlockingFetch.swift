import OrreryCore

/// One HTTP request made and waited for on an event loop of its own, with the proxy's client: what the command line
/// uses to talk to a running daemon (`orrery export har`), without linking a second HTTP stack into the binary.
public enum BlockingFetch {
    /// Sends the request and returns the upstream's answer, or why there was none.
    public static func send(_ request: UpstreamRequest, configuration: UpstreamClientConfiguration = UpstreamClientConfiguration())
        -> Result<UpstreamResponse, UpstreamFailure>
    {
        let loop: EventLoop
        let client: UpstreamClient
        do {
            loop = try EventLoop()
            client = try UpstreamClient(loop: loop, configuration: configuration)
        } catch {
            return .failure(UpstreamFailure(.hostConnectionError, "\(error)"))
        }
        var result: Result<UpstreamResponse, UpstreamFailure> = .failure(UpstreamFailure(.hostConnectionError, "no answer"))
        client.send(request) { answer in
            result = answer
            loop.stop()
        }
        loop.run()
        client.close()
        return result
    }
}
