import ArgumentParser
import Foundation
import OrreryEvent

/// `orrery ca install`: trusts the local CA where apps run, by running the platform's own tool and saying what it ran.
struct CAInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Trust the local CA on iOS simulators (--simulator) or in the system store (--system).",
        discussion: """
            Makes the CA first if there is none, then runs, and prints, one of:

              --simulator booted|UDID   xcrun simctl keychain DEVICE add-root-cert ca.pem
              --system (Debian)         copies ca.pem to /usr/local/share/ca-certificates/orrery-local-ca.crt, \
            then update-ca-certificates
              --system (macOS)          security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ca.pem

            --system changes what every program on the machine trusts: it needs root (sudo) on Debian and an \
            administrator on macOS. Whoever holds the CA's key can impersonate any HTTPS site to the machine.
            """
    )

    @OptionGroup var ca: CAOptions

    @Option(
        help: ArgumentHelp("A simulator to trust the CA: booted (every booted one) or a UDID.", valueName: "device"))
    var simulator: String?

    @Flag(help: "Trust the CA in the system store (Debian's update-ca-certificates, macOS's security).")
    var system = false

    /// Which system store `--system` means; the platform's own unless a test says otherwise.
    @Option(help: .hidden)
    var systemKind: SystemStore?

    /// `ORRERY_CA_CERTIFICATES_DIR` replaces /usr/local/share/ca-certificates (another distribution's folder).
    static var debianFolder: String {
        ProcessInfo.processInfo.environment["ORRERY_CA_CERTIFICATES_DIR"] ?? "/usr/local/share/ca-certificates"
    }

    enum SystemStore: String, ExpressibleByArgument {
        case debian, macos

        static var current: SystemStore {
            #if os(macOS)
                .macos
            #else
                .debian
            #endif
        }
    }

    func validate() throws {
        guard (simulator != nil) != system else {
            throw ValidationError("Say where to trust the CA: --simulator booted|UDID, or --system (one of them).")
        }
        if let simulator, simulator.isEmpty || simulator.hasPrefix("-") {
            throw ValidationError("--simulator takes 'booted' or a simulator's UDID (xcrun simctl list devices).")
        }
    }

    func run() throws {
        let authority = try ca.loadOrCreate()
        let pem = authority.certificatePath
        if let simulator {
            try Self.run(["xcrun", "simctl", "keychain", simulator, "add-root-cert", pem])
            Console.out("trusted \(pem) on simulator \(simulator)")
            return
        }
        switch systemKind ?? .current {
        case .macos:
            try Self.run([
                "security", "add-trusted-cert", "-d", "-r", "trustRoot", "-k", "/Library/Keychains/System.keychain",
                pem,
            ])
        case .debian:
            let target = Self.debianFolder + "/orrery-local-ca.crt"
            do {
                try FileManager.default.createDirectory(atPath: Self.debianFolder, withIntermediateDirectories: true)
                if FileManager.default.fileExists(atPath: target) { try FileManager.default.removeItem(atPath: target) }
                try FileManager.default.copyItem(atPath: pem, toPath: target)
            } catch {
                Console.error(
                    "orrery: cannot copy \(pem) to \(target): \(error.localizedDescription) (run it with sudo)")
                throw ExitCode(1)
            }
            Console.out("copied \(pem) to \(target)")
            try Self.run(["update-ca-certificates"])
        }
        Console.out("trusted \(pem) in the system store")
    }

    /// Runs a tool found on PATH, printing the command first; a failure exits 1 naming it.
    static func run(_ command: [String]) throws {
        Console.out("running: " + command.map(quoted).joined(separator: " "))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        do {
            try process.run()
        } catch {
            Console.error("orrery: could not run \(command[0]): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let missing = process.terminationStatus == 127 ? " (\(command[0]) is not on PATH)" : ""
            Console.error(
                "orrery: \(command[0]) exited with status \(process.terminationStatus)\(missing); the CA is not trusted there"
            )
            throw ExitCode(1)
        }
    }

    private static func quoted(_ word: String) -> String {
        word.contains(" ") || word.isEmpty ? "'\(word)'" : word
    }
}
