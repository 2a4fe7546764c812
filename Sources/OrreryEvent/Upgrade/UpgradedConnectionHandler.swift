/// Hears what happens on a connection that stopped being HTTP: bytes from the client, and its end.
public protocol UpgradedConnectionHandler: AnyObject {
    /// Bytes the client sent, in order; the first call may carry what arrived right behind the upgrade request.
    func upgradedConnection(_ connection: UpgradedConnection, received bytes: [UInt8])
    /// The connection ended, however it ended (the client left, a write failed, the server stops).
    func upgradedConnectionClosed(_ connection: UpgradedConnection)
}
