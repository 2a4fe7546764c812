#!/usr/bin/env python3
"""Sends each hostile input of "Staying up" (DESIGN.md) to a real orrery daemon on 127.0.0.1 and records the answer
each gets, as a Markdown table on stdout. Not part of CI (the automated tests cover the same ground, see
docs/reliability.md); run it to see every answer in one place.

    scripts/hostile.py                      # the debug build (swift build --show-bin-path)/orrery
    scripts/hostile.py --orrery PATH        # another binary, such as scripts/build-release.sh's
    scripts/hostile.py --case case_templates  # one case (repeatable)

Each case starts its own daemon with --port 0 and --ready-file, in a scratch folder that is removed afterwards.
The unreadable-folder case runs the daemon as the user nobody (setpriv), since root reads any folder.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"
NOBODY = 65534  # the unprivileged user and group nobody/nogroup of Debian and Ubuntu
OK_STUB = {"request": {"method": "GET", "path": "/ok"}, "response": {"body": "ok"}}
rows = []


def row(case, sent, answer, holds):
    rows.append((case, sent, answer, "yes" if holds else "**no**"))
    print("%-40s %s" % (case, answer), file=sys.stderr)


class Daemon:
    """One `orrery serve` in a scratch folder; its stderr is kept in a file."""

    def __init__(self, orrery, stubs=None, options=(), shell=None, user=None, files=None):
        self.folder = tempfile.mkdtemp(prefix="orrery-hostile-")
        os.chmod(self.folder, 0o755)
        os.makedirs(os.path.join(self.folder, "stubs"))
        for name, content in (stubs or {"ok.json": OK_STUB}).items():
            self.write("stubs/" + name, content)
        for name, content in (files or {}).items():
            self.write(name, content)
        ready = os.path.join(self.folder, "ready")
        command = [orrery, "serve", "--host", HOST, "--port", "0", "--stubs", self.path("stubs"),
                   "--config", self.path("config"), "--ready-file", ready] + list(options)
        if shell:
            command = ["/bin/sh", "-c", shell + ' exec "$@"', "sh"] + command
        if user is not None:
            for directory, folders, names in os.walk(self.folder):
                for name in folders + names:
                    os.chown(os.path.join(directory, name), user, user)
            os.chown(self.folder, user, user)
            command = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] + command
        self.log = open(self.path("stderr.log"), "w+")
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 30
        self.port = None
        while time.time() < deadline:
            if self.process.poll() is not None:
                break
            if os.path.exists(ready) and open(ready).read().strip():
                self.port = json.load(open(ready))["port"]  # {"url": ..., "port": N, "pid": ..., "version": ...}
                break
            time.sleep(0.05)

    def path(self, relative):
        return os.path.join(self.folder, relative)

    def write(self, relative, content):
        path = self.path(relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write(content if isinstance(content, str) else json.dumps(content))

    def stderr(self):
        self.log.flush()
        return open(self.path("stderr.log")).read()

    def stop(self, sig=signal.SIGTERM, timeout=10):
        """Sends the signal; the exit status and the seconds it took to exit."""
        started = time.time()
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = "killed after %d s" % timeout
        return status, time.time() - started

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def exchange(port, data, timeout=5.0, shut=False):
    """Sends bytes on a new connection; the answer until the server closes (or the timeout), and whether it closed."""
    with socket.create_connection((HOST, port), timeout=timeout) as connection:
        connection.sendall(data)
        if shut:
            connection.shutdown(socket.SHUT_WR)
        received = b""
        try:
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    return received, True
                received += chunk
        except (socket.timeout, ConnectionResetError):
            return received, False


def status_line(answer):
    return answer.split(b"\r\n", 1)[0].decode("latin-1") if answer else "(no answer)"


def get(port, path, headers=""):
    answer, _ = exchange(port, ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n" % (path, headers)).encode())
    return answer


def body(answer):
    return answer.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in answer else b""


def request(port, method, path, data=b"", headers=None):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1", "Connection: close",
             "Content-Length: %d" % len(data)] + ["%s: %s" % item for item in (headers or {}).items()]
    answer, _ = exchange(port, ("\r\n".join(lines) + "\r\n\r\n").encode() + data)
    return answer


def case_regex(orrery):
    daemon = Daemon(orrery, {"re.yaml": "request: { urlPattern: '[a-z][a-z]{0,999}0' }\nresponse: { body: never }\n",
                             "ok.json": OK_STUB}, ["--max-uri-length", "262144"])
    try:
        hostile = b"GET /" + b"a" * 200_000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        started = time.time()
        answer, _ = exchange(daemon.port, hostile)
        took = time.time() - started
        # SIGTERM while hostile requests are being matched: sent right after they are.
        connections = []
        for _ in range(4):
            connection = socket.create_connection((HOST, daemon.port), timeout=5)
            connection.sendall(hostile)
            connections.append(connection)
        ok = body(get(daemon.port, "/ok"))
        status, seconds = daemon.stop()
        warnings = daemon.stderr().count("gave up on a")
        row("pathological regex, SIGTERM during it", "`[a-z][a-z]{0,999}0` stub; GET of 200,000 `a`; 4 more, then SIGTERM",
            "%s in %.2f s; `/ok` meanwhile: %s; exit %s %.2f s after SIGTERM; %d warning(s) naming the pattern"
            % (status_line(answer), took, ok.decode(), status, seconds, warnings),
            answer.startswith(b"HTTP/1.1 404") and ok == b"ok" and status == 0 and seconds < 3 and warnings == 1)
        for connection in connections:
            connection.close()
    finally:
        daemon.close()


def case_fds(orrery):
    daemon = Daemon(orrery, options=["--threads", "1", "--log-level", "info", "--watch-interval", "200"],
                    shell="ulimit -n 64;")
    try:
        held = []
        for _ in range(90):
            try:
                held.append(socket.create_connection((HOST, daemon.port), timeout=2))
            except OSError:
                break
        daemon.write("stubs/extra.json", {"request": {"path": "/extra"}, "response": {"body": "extra"}})
        time.sleep(3)
        for connection in held:
            connection.close()
        deadline = time.time() + 10
        while time.time() < deadline and body(get(daemon.port, "/extra")) != b"extra":
            time.sleep(0.2)
        recovered = time.time() + 10 - deadline
        ok = body(get(daemon.port, "/ok"))
        extra = body(get(daemon.port, "/extra"))
        log = daemon.stderr()
        pauses = log.count("pausing accept")
        failed_reloads = log.count("reload") and log.count("failed; still serving")
        row("fd exhaustion", "`ulimit -n 64`, 90 connections held 3 s, a stub file added meanwhile",
            "%d warning(s) `pausing accept` (one per pause); %d reload(s) failed and kept the stubs; "
            "`/ok` → %s and the new stub → %s, %.1f s after the connections closed"
            % (pauses, failed_reloads, ok.decode(), extra.decode(), recovered),
            1 <= pauses <= 15 and ok == b"ok" and extra == b"extra")
    finally:
        daemon.close()


def case_unreadable(orrery):
    daemon = Daemon(orrery, {"ok.json": OK_STUB, "more/b.json": {"request": {"path": "/b"}, "response": {"body": "b"}}},
                    ["--watch-interval", "0"], user=NOBODY)
    try:
        if daemon.port is None:
            row("unreadable stubs subfolder", "-", "could not start as nobody: " + daemon.stderr()[-300:], False)
            return
        os.chmod(daemon.path("stubs/more"), 0)
        answer = request(daemon.port, "POST", "/__admin/stubs/reload")
        ok = body(get(daemon.port, "/b"))
        os.chmod(daemon.path("stubs/more"), 0o755)
        reply = json.loads(body(answer) or b"{}")
        named = [line for line in json.dumps(reply).split('"') if "stubs/more" in line]
        row("unreadable stubs subfolder", "`chmod 000 stubs/more` (daemon run as nobody), `POST /__admin/stubs/reload`",
            "%s: %s It names `stubs/%s`; `/b` still answers `%s`" % (status_line(answer), reply.get("message", "")[:80],
                                                    (named[0] if named else "(none)").split("/stubs/", 1)[-1],
                                                    ok.decode()),
            b" 4" in answer[:12] and named and ok == b"b")
    finally:
        os.chmod(daemon.path("stubs/more"), 0o755)
        daemon.close()


def case_secrets(orrery):
    secret = "s3cr3t/T0k+n=="
    daemon = Daemon(orrery, {"echo.yaml": "request: { path: /echo }\nresponse: { body: echoed }\n"})
    try:
        forms = {
            "as sent": secret,
            "percent-encoded": urllib.parse.quote(secret, safe=""),
            "JSON-escaped": json.dumps(secret)[1:-1],
            "base64": base64.b64encode(secret.encode()).decode(),
            "Basic credentials": base64.b64encode(("user:" + secret).encode()).decode(),
        }
        payload = json.dumps({"note": "forms: " + " ".join(forms.values())}).encode()
        request(daemon.port, "POST", "/echo?q=" + forms["percent-encoded"], payload,
                {"Authorization": "Bearer " + secret, "Content-Type": "application/json"})
        request(daemon.port, "GET", "/echo", b"", {"Authorization": "Basic " + forms["Basic credentials"]})
        journal = body(get(daemon.port, "/__admin/requests")).decode()
        found = [name for name, form in forms.items() if form in journal]
        row("secrets in encodings", "`Authorization: Bearer` and `Basic`; the token percent-encoded in the query, "
            "JSON-escaped and base64 in the body",
            "journal holds %s; `[REDACTED]` %d times" % ("none of its forms" if not found else ", ".join(found),
                                                         journal.count("[REDACTED]")),
            not found)
    finally:
        daemon.close()


def case_admin(orrery):
    daemon = Daemon(orrery)
    try:
        port = daemon.port
        cross = request(port, "POST", "/__admin/reset", b"{}",
                        {"Origin": "http://evil.example", "Content-Type": "text/plain"})
        row("cross-site POST to the admin API", "`POST /__admin/reset`, `Content-Type: text/plain`, "
            "`Origin: http://evil.example`", status_line(cross), b" 403 " in cross[:16])
        answer, _ = exchange(port, b"GET /__admin/stubs HTTP/1.1\r\nHost: rebind.evil.example:%d\r\nConnection: close\r\n\r\n" % port)
        row("foreign Host (DNS rebinding)", "`GET /__admin/stubs`, `Host: rebind.evil.example`", status_line(answer),
            b" 403 " in answer[:16])
        os.mkfifo(daemon.path("fifo"))
        for target in ["/proc/self/mem", daemon.path("fifo")]:
            answer = request(port, "POST", "/__admin/logging/start", json.dumps({"file": target}).encode(),
                             {"Content-Type": "application/json"})
            message = json.loads(body(answer) or b"{}").get("message", "")
            row("traffic log to " + ("/proc/self/mem" if "proc" in target else "a FIFO"),
                "`POST /__admin/logging/start {\"file\": \"%s\"}`" % ("/proc/self/mem" if "proc" in target else "FIFO"),
                "%s: %s" % (status_line(answer), message[:120]), b" 400 " in answer[:16])
        stub = json.dumps({"id": "11111111-2222-3333-4444-555555555555", "request": {"path": "/dup"},
                           "response": {"body": "x"}}).encode()
        first = request(port, "POST", "/__admin/stubs", stub, {"Content-Type": "application/json"})
        second = request(port, "POST", "/__admin/stubs", stub, {"Content-Type": "application/json"})
        row("duplicate stub id", "the same `POST /__admin/stubs` with an `id` twice",
            "%s, then %s" % (status_line(first), status_line(second)), b" 409 " in second[:16])
    finally:
        daemon.close()
    # At start, the path is the operator's own choice (the contract covers the admin API): a FIFO with no reader is
    # refused; /proc/self/mem opens, and its first write fails, which stops the traffic log and nothing else.
    folder = tempfile.mkdtemp(prefix="orrery-hostile-")
    try:
        os.mkfifo(os.path.join(folder, "fifo"))
        started = subprocess.run([orrery, "serve", "--port", "0", "--stubs", os.path.join(ROOT, "stubs"), "--config",
                                  os.path.join(folder, "config"), "--log-traffic", os.path.join(folder, "fifo")],
                                 capture_output=True, text=True, timeout=30)
        message = started.stderr.strip().splitlines()[-1] if started.stderr.strip() else ""
        row("`--log-traffic` to a FIFO at start", "`orrery serve --log-traffic FIFO`",
            "exit %d: %s" % (started.returncode, message[:120]), started.returncode != 0)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    daemon = Daemon(orrery, options=["--log-traffic", "/proc/self/mem"])
    try:
        ok = body(get(daemon.port, "/ok"))
        again = body(get(daemon.port, "/ok"))
        state = json.loads(body(get(daemon.port, "/__admin/logging")) or b"{}")
        row("`--log-traffic /proc/self/mem` at start", "`orrery serve --log-traffic /proc/self/mem`, then requests",
            "starts; `/ok` → %s, %s; `/__admin/logging`: %s" % (ok.decode(), again.decode(), state.get("error", "")[:110]),
            ok == b"ok" and again == b"ok" and not state.get("logging", True))
    finally:
        daemon.close()


def case_har(orrery):
    folder = tempfile.mkdtemp(prefix="orrery-hostile-")
    try:
        entry = lambda method: {"request": {"method": method, "url": "https://api.example.com/a", "headers": []},
                                "response": {"status": 200, "headers": [], "content": {"size": 0}}}
        har = {"log": {"version": "1.2", "entries": [entry("GET POST"), entry("any"), entry("GET")]}}
        with open(os.path.join(folder, "bad.har"), "w") as out:
            json.dump(har, out)
        result = subprocess.run([orrery, "import", "har", os.path.join(folder, "bad.har"), "--out",
                                 os.path.join(folder, "out")], capture_output=True, text=True, timeout=30)
        lines = (result.stderr + result.stdout).strip().splitlines()
        row("HAR with a bad method", "`orrery import har` of entries with methods `GET POST`, `any`, `GET`",
            "exit %d; %s" % (result.returncode, " / ".join(line.split(": ", 1)[-1][:90] for line in lines)),
            result.returncode == 0 and "Imported 1 of 3" in result.stdout)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def case_sigterm(orrery):
    for idle in [False, True]:
        daemon = Daemon(orrery)
        try:
            connection = None
            if idle:
                connection = socket.create_connection((HOST, daemon.port), timeout=5)
                connection.sendall(b"GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
                connection.recv(4096)
            status, seconds = daemon.stop()
            row("SIGTERM, nothing in flight" + (" (an idle kept-alive connection)" if idle else ""), "SIGTERM",
                "exit %s after %.3f s" % (status, seconds), status == 0 and seconds < 1)
            if connection:
                connection.close()
        finally:
            daemon.close()


MALFORMED = [
    ("no Host on HTTP/1.1", b"GET /ok HTTP/1.1\r\n\r\n"),
    ("two Hosts", b"GET /ok HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
    ("Content-Length and Transfer-Encoding", b"POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("two different Content-Lengths", b"POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
    ("chunk size 0x5", b"POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n"),
    ("`gzip, chunked` coding", b"POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
    ("space before the colon", b"GET /ok HTTP/1.1\r\nHost : x\r\n\r\n"),
    ("folded header line", b"GET /ok HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"),
    ("NUL in the head", b"GET /ok HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n"),
    ("bare CR", b"GET /ok HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n"),
    ("HTTP/2.0 as the version", b"GET /ok HTTP/2.0\r\nHost: x\r\n\r\n"),
    ("a 9 KB target", b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("a 70 KB head", b"GET /ok HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"b" * 70_000 + b"\r\n\r\n"),
    ("a body over --max-body-size", b"POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n"),
]


def case_malformed(orrery):
    daemon = Daemon(orrery, options=["--max-body-size", "1048576"])
    try:
        for name, data in MALFORMED:
            answer, closed = exchange(daemon.port, data)
            still = body(get(daemon.port, "/ok"))
            row("malformed: " + name, "`%s`" % data[:60].decode("latin-1").replace("\r", "\\r").replace("\n", "\\n")
                .replace("\x00", "\\0").replace("|", "\\|") + ("…" if len(data) > 60 else ""),
                "%s%s; next request answered" % (status_line(answer), ", closed" if closed else ", left open"),
                answer[9:10] in (b"4", b"5") and closed and still == b"ok")
    finally:
        daemon.close()


def case_slow(orrery):
    daemon = Daemon(orrery, options=["--header-timeout", "1s", "--body-timeout", "1s", "--idle-timeout", "2s"],
                    stubs={"ok.json": OK_STUB, "big.json": {"request": {"path": "/big"},
                                                            "response": {"body": "x" * 24_000_000}}})
    try:
        started = time.time()
        answer, answered_after = b"", None
        with socket.create_connection((HOST, daemon.port), timeout=5) as connection:
            connection.setblocking(False)
            try:
                for byte in b"GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
                    try:
                        answer = connection.recv(4096)
                        answered_after = time.time() - started
                        break
                    except BlockingIOError:
                        pass
                    connection.sendall(bytes([byte]))
                    time.sleep(0.1)
            except OSError:
                pass
        row("slowloris head", "a head a byte every 100 ms (10 s of it), `--header-timeout 1s`",
            "%s after %.1f s" % (status_line(answer), answered_after or -1),
            answer.startswith(b"HTTP/1.1 408") and (answered_after or 99) < 2.5)
        started = time.time()
        answer, closed = exchange(daemon.port, b"POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nfirst ten!")
        row("slowloris body", "10 of 100 body bytes, then nothing, `--body-timeout 1s`",
            "%s after %.1f s%s" % (status_line(answer), time.time() - started, ", closed" if closed else ""),
            answer.startswith(b"HTTP/1.1 408") and closed)
        # A client that asks for 24 MB and never reads: the daemon closes it after --idle-timeout, and meanwhile
        # answers others.
        started = time.time()
        reader = socket.socket()
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: the window stays small
        reader.settimeout(10)
        reader.connect((HOST, daemon.port))
        reader.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.5)
        others = body(get(daemon.port, "/ok"))
        time.sleep(3.5)
        received, how = 0, "still open"
        try:
            while True:
                chunk = reader.recv(1 << 20)
                if not chunk:
                    how = "closed"
                    break
                received += len(chunk)
        except socket.timeout:
            pass
        except ConnectionResetError:
            how = "reset"
        reader.close()
        row("a client that never reads a large answer", "`GET` of a 24 MB stub, nothing read for 4 s, `--idle-timeout 2s`",
            "others answered meanwhile (`%s`); %s after %.1f MB of it" % (others.decode(), how, received / 1e6),
            others == b"ok" and how != "still open" and received < 24_000_000)
    finally:
        daemon.close()


def proc_status(pid, field):
    """A figure of /proc/PID/status in KiB (VmRSS, VmHWM)."""
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_ticks(pid):
    """User and system clock ticks of the process, from /proc/PID/stat."""
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def alias_bomb(count):
    return ("- request: { path: /bomb }\n  response: { body: &big " + "x" * 100_000 + " }\n"
            + "- request: { path: /bomb }\n  response: { body: *big }\n" * count)


def case_templates(orrery):
    nested = ("{{#request.pathSegments}}{{#request.pathSegments}}{{#request.pathSegments}}x"
              "{{/request.pathSegments}}{{/request.pathSegments}}{{/request.pathSegments}}")
    daemon = Daemon(orrery, {"bomb.yaml": "request: { pathPattern: '/bomb/.*' }\nresponse:\n  template: true\n"
                                          "  body: '%s'\n" % nested, "ok.json": OK_STUB}, ["--threads", "2"])
    try:
        pid = daemon.process.pid
        before = proc_status(pid, "VmRSS")
        started = time.time()
        answer, _ = exchange(daemon.port, ("GET /bomb%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                                           % ("/a" * 2000)).encode(), timeout=30)
        took = time.time() - started
        ok = body(get(daemon.port, "/ok"))
        peak = proc_status(pid, "VmHWM")
        status, seconds = daemon.stop()
        row("template: three nested sections over a 4 KB path", "`{{#request.pathSegments}}` three deep; GET of 2,000 segments; SIGTERM",
            "%s in %.2f s (%s); `/ok`: %s; RSS %d MB, peak %d MB; exit %s %.2f s after SIGTERM"
            % (status_line(answer), took, body(answer).decode().strip(), ok.decode(), before // 1024, peak // 1024,
               status, seconds),
            answer.startswith(b"HTTP/1.1 500") and ok == b"ok" and peak - before < 200_000 and status == 0 and seconds < 5)
    finally:
        daemon.close()


def case_stub_files(orrery):
    daemon = Daemon(orrery, options=["--threads", "1", "--watch-interval", "0", "--max-body-file", "1000000"])
    try:
        pid = daemon.process.pid
        before = proc_status(pid, "VmRSS")
        daemon.write("stubs/bomb.yaml", alias_bomb(20_000))
        started = time.time()
        answer = request(daemon.port, "POST", "/__admin/stubs/reload")
        took = time.time() - started
        peak = proc_status(pid, "VmHWM")
        ok = body(get(daemon.port, "/ok"))
        message = json.loads(body(answer) or b"{}").get("errors", [{}])[0].get("text", "")
        row("YAML alias bomb, reloaded", "a 100 KB text and 20,000 aliases to it (2 GB) written into the stubs folder; reload",
            "%s in %.2f s: `%s`; `/ok`: %s; RSS %d MB, peak %d MB"
            % (status_line(answer), took, message.replace(daemon.folder, "SCRATCH"), ok.decode(), before // 1024, peak // 1024),
            answer.startswith(b"HTTP/1.1 422") and "aliases expand" in message and ok == b"ok" and peak - before < 200_000)
        os.remove(daemon.path("stubs/bomb.yaml"))
        daemon.write("stubs/big.yaml", "request: { path: /big }\nresponse:\n  bodyFile: bodies/big.bin\n")
        os.makedirs(daemon.path("stubs/bodies"), exist_ok=True)
        with open(daemon.path("stubs/bodies/big.bin"), "wb") as out:
            out.truncate(2_000_000)
        answer = request(daemon.port, "POST", "/__admin/stubs/reload")
        message = json.loads(body(answer) or b"{}").get("errors", [{}])[0].get("text", "")
        row("body file over --max-body-file", "a 2 MB body file, `--max-body-file 1000000`; reload",
            "%s: `%s`" % (status_line(answer), message.replace(daemon.folder, "SCRATCH")),
            answer.startswith(b"HTTP/1.1 422") and "big.yaml:3:" in message and "over --max-body-file" in message)
        os.remove(daemon.path("stubs/big.yaml"))
        daemon.write("stubs/early.yaml", "request: { path: /early }\nresponse: { status: 103 }\n")
        answer = request(daemon.port, "POST", "/__admin/stubs/reload")
        message = json.loads(body(answer) or b"{}").get("errors", [{}])[0].get("text", "")
        row("a stub with a 1xx status", "`status: 103`; reload", "%s: `%s`" % (status_line(answer), message.replace(daemon.folder, "SCRATCH")),
            answer.startswith(b"HTTP/1.1 422") and "informational" in message)
        os.remove(daemon.path("stubs/early.yaml"))
    finally:
        daemon.close()
    folder = tempfile.mkdtemp(prefix="orrery-hostile-")
    try:
        os.makedirs(os.path.join(folder, "stubs"))
        name = "x.yaml\nstubs/fake.yaml:1: all is well\x1b[2K.yaml"
        # The name's slash makes a folder `x.yaml\nstubs` holding the file: the line break is in the path either way.
        os.makedirs(os.path.dirname(os.path.join(folder, "stubs", name)))
        with open(os.path.join(folder, "stubs", name), "w") as out:
            out.write("request: { path: /a }\nresponse: { status: 700 }\n")
        result = subprocess.run([orrery, "validate", "--stubs", os.path.join(folder, "stubs"), "--config",
                                 os.path.join(folder, "config")], capture_output=True, text=True, timeout=60)
        lines = result.stderr.splitlines()
        row("a file name with a newline and an escape", "`x.yaml\\nstubs/fake.yaml:1: all is well\\e[2K.yaml`; `validate`",
            "exit %d; %d line(s): `%s`" % (result.returncode, len(lines), lines[0].replace(folder, "SCRATCH") if lines else ""),
            result.returncode == 1 and not any(line.startswith("stubs/fake.yaml") for line in lines) and "\x1b" not in result.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def case_admin_load(orrery):
    daemon = Daemon(orrery, options=["--threads", "1", "--max-uri-length", "65536"])
    try:
        pid = daemon.process.pid
        idle = len(os.listdir("/proc/%d/fd" % pid))
        viewer = socket.create_connection((HOST, daemon.port), timeout=5)
        viewer.sendall(b"GET /__admin/requests/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        viewer.recv(4096)
        viewer.close()
        started = time.time()
        while len(os.listdir("/proc/%d/fd" % pid)) > idle and time.time() - started < 30:
            time.sleep(0.01)
        freed = time.time() - started
        row("a dashboard viewer that leaves", "`GET /__admin/requests/stream`, then the client closes",
            "its descriptor freed after %.2f s" % freed, freed < 1)
        for _ in range(30):
            exchange(daemon.port, b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        pattern = json.dumps({"urlPattern": "[a-z][a-z]{0,999}0"}).encode()
        connection = socket.create_connection((HOST, daemon.port), timeout=120)
        connection.sendall(b"POST /__admin/requests/count HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                           b"Content-Length: %d\r\n\r\n%s" % (len(pattern), pattern))
        started = time.time()
        slowest = 0
        probes = 0
        connection.setblocking(False)
        answer = b""
        while True:
            try:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                answer += chunk
            except BlockingIOError:
                probe = time.time()
                get(daemon.port, "/ok")
                slowest = max(slowest, time.time() - probe)
                probes += 1
            if time.time() - started > 120:
                break
        took = time.time() - started
        connection.close()
        row("a heavy regex `count` over the journal", "30 journaled 20 KB paths; `count` with `[a-z][a-z]{0,999}0`; `/ok` meanwhile",
            "%s after %.2f s; %d `/ok` meanwhile, the slowest %.3f s" % (status_line(answer), took, probes, slowest),
            answer.startswith(b"HTTP/1.1 200") and probes > 0 and slowest < max(0.25, took / 10))
    finally:
        daemon.close()
    daemon = Daemon(orrery, options=["--threads", "1"])
    try:
        for folder in range(100):
            os.makedirs(daemon.path("stubs/bodies/f%d" % folder))
            for number in range(200):
                open(daemon.path("stubs/bodies/f%d/b%d.json" % (folder, number)), "w").close()
        pid = daemon.process.pid
        time.sleep(1.5)  # the first watch interval after the files were made
        before = cpu_ticks(pid)
        time.sleep(5)
        used = cpu_ticks(pid) - before
        daemon.write("stubs/new.json", {"request": {"path": "/new"}, "response": {"body": "new"}})
        started = time.time()
        while body(get(daemon.port, "/new")) != b"new" and time.time() - started < 10:
            time.sleep(0.05)
        row("20,000 files in the stubs folder, idle", "100 folders of 200 files; CPU over 5 s; then a stub added",
            "%d clock ticks (%.1f%% of a core); the new stub answered after %.2f s"
            % (used, used / 5.0, time.time() - started), used <= 10 and time.time() - started < 3)
    finally:
        daemon.close()


class Upstream:
    """Tests/Fixtures/upstream.py on loopback: a real upstream that can stream, drip and fall silent."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/Fixtures/upstream.py"), "--name", "up"],
                                        stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline().split()[1])  # "PORT n"

    def close(self):
        self.process.kill()
        self.process.wait()


def hosts_for(port):
    return {"configurations": [{"canonical_host": "api.example.com", "canonical_protocol": "http", "release_key": "PROD",
                                "hosts": [{"key": "PROD", "host": "%s:%d" % (HOST, port), "protocol": "http"},
                                          {"key": "USER"}]}]}


def figures(pid):
    """The daemon's resident memory (MB) and open descriptors, from /proc."""
    with open("/proc/%d/status" % pid) as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return rss / 1024, len(os.listdir("/proc/%d/fd" % pid))


def download(port, path, seconds, rate=None, receive_buffer=None):
    """Reads `path` through the daemon for at most `seconds` (at `rate` bytes/s if given); bytes read, how it ended,
    and the daemon's peak RSS meanwhile (the caller samples)."""
    connection = socket.socket()
    if receive_buffer:
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    connection.settimeout(5)
    connection.connect((HOST, port))
    connection.sendall(("GET %s HTTP/1.1\r\nHost: api.example.com\r\nConnection: close\r\n\r\n" % path).encode())
    received, how, started = 0, "still open", time.time()
    try:
        while time.time() - started < seconds:
            chunk = connection.recv(65536 if rate is None else min(65536, rate // 10))
            if not chunk:
                how = "closed"
                break
            received += len(chunk)
            if rate is not None:
                time.sleep(0.1)
    except socket.timeout:
        how = "timed out"
    except ConnectionResetError:
        how = "reset"
    connection.close()
    return received, how


def sampled(pid, action):
    """Runs `action` while sampling the daemon's RSS every 100 ms; its result and the peak RSS in MB."""
    import threading
    peak, done = [0.0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], figures(pid)[0])
            time.sleep(0.1)
    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        return action(), peak[0]
    finally:
        done.set()
        sampler.join()


def case_proxy_stream(orrery):
    upstream = Upstream()
    daemon = Daemon(orrery, options=["--upstream-timeout", "1000"], files={"config/hosts.json": hosts_for(upstream.port)})
    try:
        pid = daemon.process.pid
        rss, fds = figures(pid)
        (received, how), peak = sampled(pid, lambda: download(daemon.port, "/stream?seconds=4", 10))
        row("an upstream that streams fast", "`GET` of a 4 s chunked stream as fast as loopback carries it, `--upstream-timeout 1000`",
            "%.0f MB relayed, %s; RSS %.0f MB before, %.0f MB at most" % (received / 1e6, how, rss, peak),
            received > 100e6 and peak - rss < 64)
        (received, how), peak = sampled(pid, lambda: download(daemon.port, "/stream?seconds=10&length=1", 3, rate=2_000_000,
                                                                receive_buffer=65536))
        time.sleep(1)
        after_rss, after_fds = figures(pid)
        row("a client that reads a stream slowly", "the same stream read at 2 MB/s for 3 s, then the client leaves",
            "RSS %.0f MB at most; descriptors %d before, %d after it left" % (peak, fds, after_fds),
            peak - rss < 64 and after_fds <= fds)
        started = time.time()
        answer, closed = exchange(daemon.port, b"GET /stall?ms=4000 HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        row("an upstream that falls silent mid-body", "head and 5 bytes, then 4 s of silence, `--upstream-timeout 1000`",
            "%s, %d body bytes, %s after %.1f s" % (status_line(answer), len(body(answer)), "closed" if closed else "open",
                                                    time.time() - started),
            closed and time.time() - started < 2.5)
    finally:
        daemon.close()
        upstream.close()


def case_loops(orrery):
    upstream = Upstream()
    daemon = Daemon(orrery, options=["--tunnel-idle-timeout", "1s", "--max-connections", "50"],
                    files={"config/hosts.json": hosts_for(upstream.port)})
    try:
        port = daemon.port
        answer, _ = exchange(port, ("CONNECT %s:%d HTTP/1.1\r\nHost: x\r\n\r\n" % (HOST, port)).encode(), timeout=2)
        answer_localhost, _ = exchange(port, ("CONNECT localhost:%d HTTP/1.1\r\nHost: x\r\n\r\n" % port).encode(), timeout=2)
        fds = figures(daemon.process.pid)[1]
        row("a CONNECT to the daemon itself", "`CONNECT 127.0.0.1:<own port>` and `CONNECT localhost:<own port>`",
            "%s; %s; %d descriptors open" % (status_line(answer), status_line(answer_localhost), fds),
            b"508 Loop Detected" in answer and b"failureReason" in answer and b"508" in answer_localhost)
        request(port, "PUT", "/__admin/environments/api.example.com",
                json.dumps({"key": "USER", "host": "%s:%d" % (HOST, port), "protocol": "http"}).encode())
        request(port, "DELETE", "/__admin/requests")
        looped = get(port, "/anything")
        entries = json.loads(body(get(port, "/__admin/requests")))["total"]
        row("a host map pointing at the daemon", "the active environment's host is the daemon's own address",
            "%s; %d exchanges journaled" % (status_line(looped), entries), b"508" in status_line(looped).encode() and entries <= 2)
        started = time.time()
        answer, closed = exchange(port, ("CONNECT %s:%d HTTP/1.1\r\nHost: x\r\n\r\n" % (HOST, upstream.port)).encode(),
                                  timeout=5)
        row("a tunnel nobody uses", "`CONNECT` to a real upstream, then silence, `--tunnel-idle-timeout 1s`",
            "%s; %s after %.1f s" % (status_line(answer), "closed" if closed else "open", time.time() - started),
            closed and time.time() - started < 2.5)
    finally:
        daemon.close()
        upstream.close()


def case_tls_close(orrery):
    import ssl
    probe = socket.socket()
    probe.bind((HOST, 0))
    tls_port = probe.getsockname()[1]
    probe.close()
    ca_folder = tempfile.mkdtemp(prefix="orrery-hostile-ca-")
    daemon = Daemon(orrery, options=["--tls-port", str(tls_port), "--ca-dir", ca_folder])
    try:
        context = ssl._create_unverified_context()
        results = []
        for sent in [b"GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", b"GET /ok HTTP/1.0\r\n\r\n",
                     b"GET /ok HTTP/1.1\r\n\r\n"]:
            with socket.create_connection((HOST, tls_port), timeout=5) as raw, context.wrap_socket(raw) as tls:
                tls.sendall(sent)
                received = b""
                try:
                    while True:
                        chunk = tls.recv(65536)
                        if not chunk:
                            break
                        received += chunk
                except (socket.timeout, ssl.SSLError, ConnectionResetError):
                    pass
            results.append(status_line(received))
        row("answers that close their connection, on the TLS port", "`Connection: close`, HTTP/1.0, and a 400 (no Host)",
            "; ".join(results), results[0].endswith("200 OK") and results[1].endswith("200 OK") and "400" in results[2])
    finally:
        daemon.close()
        shutil.rmtree(ca_folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--orrery", help="the orrery binary (default: the debug build)")
    parser.add_argument("--case", action="append", help="run only this case (case_templates, ...); repeatable")
    arguments = parser.parse_args()
    orrery = arguments.orrery
    if not orrery:
        orrery = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.strip() + "/orrery"
    for case in [case_regex, case_fds, case_unreadable, case_secrets, case_admin, case_har, case_sigterm,
                 case_malformed, case_slow, case_templates, case_stub_files, case_admin_load, case_proxy_stream,
                 case_loops, case_tls_close]:
        if arguments.case and case.__name__ not in arguments.case:
            continue
        try:
            case(orrery)
        except Exception as error:  # a case that breaks is a row too
            row(case.__name__, "-", "the case failed: %r" % error, False)
    print("| hostile input | sent | answer | as the contract says |")
    print("|---|---|---|---|")
    for case, sent, answer, holds in rows:
        print("| %s | %s | %s | %s |" % (case, sent, answer.replace("|", "\\|"), holds))
    return 0 if all(holds == "yes" for *_, holds in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
