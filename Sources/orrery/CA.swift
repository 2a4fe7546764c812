import ArgumentParser
import Foundation
import OrreryEvent

struct CA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "The local certificate authority that signs Orrery's HTTPS certificates.",
        discussion: """
            Orrery makes the CA on first need: an EC P-256 key (ca-key.pem, readable by you only) and a \
            self-signed certificate (ca.pem) in --ca-dir. Clients that trust ca.pem accept the certificates \
            Orrery presents. The key never leaves the folder.
            """,
        subcommands: [CAExport.self, CAInstall.self]
    )
}

/// Where the CA lives, shared by the commands that use it.
struct CAOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The CA's folder (default: $XDG_DATA_HOME/orrery/ca, else ~/.local/share/orrery/ca).", valueName: "dir"))
    var caDir: String?

    /// The CA in `--ca-dir`, made there first if there is none; a CA that cannot be used exits 1 with the reason.
    func loadOrCreate() throws -> CertificateAuthority {
        do {
            let folder = try caDir ?? CertificateAuthority.defaultFolder()
            let authority = try CertificateAuthority.loadOrCreate(in: folder)
            if authority.wasCreated { Console.error("orrery: made a new local CA in \(folder)") }
            return authority
        } catch {
            Console.error("orrery: \(error)")
            throw ExitCode(1)
        }
    }
}

enum CertificateFormat: String, ExpressibleByArgument, CaseIterable {
    case pem, der
}

struct CAExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the CA certificate (never its key), making the CA first if there is none.",
        discussion: """
            Trust it where your client runs (ca.pem below is the exported file). Whoever holds the CA's key \
            can impersonate any HTTPS site to a client that trusts it; Orrery keeps the key readable by you only.

              iOS simulator  xcrun simctl keychain booted add-root-cert ca.pem
              macOS          security add-trusted-cert -r trustRoot ca.pem
              curl           curl --cacert ca.pem https://api.example.test/
              Python         REQUESTS_CA_BUNDLE=ca.pem, or SSL_CERT_FILE=ca.pem for ssl
              Node.js        NODE_EXTRA_CA_CERTS=ca.pem node app.js
              Debian         sudo cp ca.pem /usr/local/share/ca-certificates/orrery.crt
                             sudo update-ca-certificates

            REQUESTS_CA_BUNDLE and SSL_CERT_FILE replace the default roots; NODE_EXTRA_CA_CERTS adds to them. \
            Android and Java take DER (--format der): the system's CA certificate settings, or keytool \
            -importcert -cacerts -alias orrery -file ca.der.
            """
    )

    @OptionGroup var ca: CAOptions

    @Option(help: ArgumentHelp("pem (text) or der (binary).", valueName: "format"))
    var format = CertificateFormat.pem

    @Option(help: ArgumentHelp("File to write (written whole or not at all); standard output when left out.", valueName: "file"))
    var out: String?

    func run() throws {
        let authority = try ca.loadOrCreate()
        let bytes: [UInt8]
        do {
            bytes = try format == .pem ? authority.certificate.pem() : authority.certificate.der()
        } catch {
            Console.error("orrery: \(error)")
            throw ExitCode(1)
        }
        guard let out else {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: out), options: .atomic)
        } catch {
            Console.error("orrery: cannot write \(out): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        Console.error("wrote \(out) (SHA-256 fingerprint \(authority.certificate.sha256Fingerprint))")
    }
}
