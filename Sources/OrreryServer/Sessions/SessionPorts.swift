import OrreryEvent

/// Where sessions get their ports: the daemon's server, which opens a listener on every event loop for each.
/// Tests of the pipeline give sessions no port at all and reach them by their tag or header.
protocol SessionPorts: AnyObject, Sendable {
    /// Opens a port whose connections carry `tag`; returns its number.
    func openPort(tag: Int) throws(EventError) -> Int
    /// Closes the port opened for `tag`, and its connections.
    func closePort(tag: Int)
}

extension HTTPServer: SessionPorts {
    func openPort(tag: Int) throws(EventError) -> Int {
        try addListener(tag: tag)
    }

    func closePort(tag: Int) {
        removeListeners(tag: tag)
    }
}
