#!/usr/bin/env python3
"""A mirror of NVIDIA's redist folder on loopback, with faults on demand (tests only).

usage: server.py ROOT PORT_FILE LOG_FILE

Serves ROOT at http://127.0.0.1:PORT/<mode>/..., PORT chosen by the system and written to
PORT_FILE. A folder is answered with an index page like NVIDIA's, or, where it holds an
index.html, as a package index's project page: that file, or its index.json beside it when
the request accepts application/vnd.pypi.simple.v1+json (PEP 691). Manifests, listings and
index pages are always served as they are; the mode applies to archives (paths below
cudnn/, and below v<version>/ as NVIDIA kept the archives older than its manifests) and to
wheels (*.whl):

  ok        as it is, with Range requests honoured (206; "bytes=A-" and "bytes=A-B"), 416
            past the end
  cut       headers for the whole body, half of it, then the connection closes
  cut-once  cut the first request for each archive, serve the later ones
  wrong     one byte in the middle changed (the same size)
  norange   Range ignored: always 200 and the whole file
  redirect  302 to the same path under /ok/
  slow      a trickle: 8 KiB every 20 ms
  stall     half of the body, then nothing for 5 s
  trickle   the first 64 KiB at once, then 10 bytes a second (never a full stall)
  paced     at $MIRROR_RATE bytes a second (default 12500000: 100 Mb/s), read from the file
            as it is sent (a link of that speed, for tests/bench/stream.sh); each
            connection at that speed
  paced-lie as paced, but a range with an end ("bytes=A-B", what a reader asks ahead of the
            download) has its first byte changed
  huge      a Content-Length of 10^15 bytes, then the file's bytes and a closed connection
  404 403 500  that status; 500-once: 500 the first time, then as ok

Every request is logged to LOG_FILE as one JSON line: mode, path, range, status, bytes.

As a proxy it answers CONNECT, whatever host is named, with a tunnel to
$MIRROR_TUNNEL_TO (host:port, an https mirror on loopback), so that a client
configured with https_proxy reaches "developer.download.nvidia.com" there and
nothing leaves the machine; the CONNECT is logged (mode CONNECT, path the host named).
Stops on SIGTERM.
"""
import http.server
import json
import os
import re
import select
import signal
import socket
import socketserver
import sys
import threading
import time
import urllib.parse

ROOT, PORT_FILE, LOG_FILE = sys.argv[1:4]
MODES = {"ok", "cut", "cut-once", "wrong", "norange", "redirect", "slow", "stall", "trickle",
         "huge", "404", "403", "500", "500-once", "paced", "paced-lie"}
PACED_CHUNK = 256 * 1024
log_lock = threading.Lock()
faulted = set()  # (mode, path) that had their one fault


def log(entry):
    with log_lock, open(LOG_FILE, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):  # the JSON log is enough
        pass

    def finish_log(self, mode, rel, status, sent, rng):
        log({"mode": mode, "path": rel, "range": rng, "status": status, "bytes": sent})

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def listing(self, folder):
        names = sorted(os.listdir(folder))
        links = "".join(f"<a href='{n}{'/' if os.path.isdir(os.path.join(folder, n)) else ''}'>"
                        f"{n}</a><br>\n" for n in names)
        return f"<html><body><h1>Index</h1>\n{links}</body></html>\n".encode()

    def do_CONNECT(self):
        target = os.environ.get("MIRROR_TUNNEL_TO")
        if not target:
            self.send(405)
            return self.finish_log("CONNECT", self.path, 405, 0, None)
        host, port = target.rsplit(":", 1)
        upstream = socket.create_connection((host, int(port)))
        self.send_response(200, "Connection established")
        self.end_headers()
        self.finish_log("CONNECT", self.path, 200, 0, None)
        ends = [self.connection, upstream]
        try:
            while True:
                ready, _, _ = select.select(ends, [], [], 30)
                if not ready:
                    break
                for r in ready:
                    data = r.recv(65536)
                    if not data:
                        return
                    (upstream if r is self.connection else self.connection).sendall(data)
        finally:
            upstream.close()

    def do_GET(self):
        parts = urllib.parse.unquote(self.path).lstrip("/").split("/", 1)
        mode, rel = parts[0], parts[1] if len(parts) > 1 else ""
        rng = self.headers.get("Range")
        if mode not in MODES or ".." in rel.split("/"):
            self.send(400)
            return self.finish_log(mode, rel, 400, 0, rng)
        path = os.path.join(ROOT, rel)
        if os.path.isdir(path) and os.path.isfile(os.path.join(path, "index.html")):
            # a package index's project page (PEP 503), or its JSON form (PEP 691) when
            # the client asks for it and the folder has one
            accept = self.headers.get("Accept") or ""
            form, kind = "index.html", "text/html"
            if "application/vnd.pypi.simple.v1+json" in accept and \
                    os.path.isfile(os.path.join(path, "index.json")):
                form, kind = "index.json", "application/vnd.pypi.simple.v1+json"
            with open(os.path.join(path, form), "rb") as f:
                body = f.read()
            self.send(200, body, [("Content-Type", kind)])
            return self.finish_log(mode, rel + form, 200, len(body), rng)
        if os.path.isdir(path):
            body = self.listing(path)
            self.send(200, body, [("Content-Type", "text/html")])
            return self.finish_log(mode, rel, 200, len(body), rng)
        if not os.path.isfile(path):
            self.send(404, b"not found\n")
            return self.finish_log(mode, rel, 404, 0, rng)
        if mode in ("paced", "paced-lie") and (rel.startswith("cudnn/") or rel.endswith(".whl")):
            return self.paced(path, rel, rng, mode)
        with open(path, "rb") as f:
            data = f.read()
        if not (rel.startswith("cudnn/") or re.match(r"v[0-9.]+/", rel) or rel.endswith(".whl")):
            mode = "ok"  # manifests and index pages are served as they are
        if mode in ("cut-once", "500-once"):
            with log_lock:
                if (mode, rel) in faulted:
                    mode = "ok"
                else:
                    faulted.add((mode, rel))
        if mode in ("404", "403", "500", "500-once"):
            status = int(mode[:3])
            self.send(status, b"refused\n")
            return self.finish_log(mode, rel, status, 0, rng)
        if mode == "redirect":
            self.send(302, b"", [("Location", "/ok/" + urllib.parse.quote(rel))])
            return self.finish_log(mode, rel, 302, 0, rng)
        if mode == "wrong":
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]
        start, end = 0, len(data)
        if rng and mode != "norange":
            start, end = range_asked(rng, len(data))
            if start >= len(data):
                self.send(416, b"", [("Content-Range", f"bytes */{len(data)}")])
                return self.finish_log(mode, rel, 416, 0, rng)
        body = data[start:end]
        status = 206 if (start or end < len(data)) else 200
        self.send_response(status)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        self.send_header("Content-Length", str(10**15 if mode == "huge" else len(body)))
        self.send_header("Accept-Ranges", "none" if mode == "norange" else "bytes")
        self.end_headers()
        sent = 0
        try:
            if mode in ("cut", "cut-once", "stall"):
                half = len(body) // 2
                self.wfile.write(body[:half])
                self.wfile.flush()
                sent = half
                if mode == "stall":
                    time.sleep(5)
                self.connection.shutdown(2)  # the cut: no more bytes, connection closed
            elif mode == "trickle":
                self.wfile.write(body[:65536])
                self.wfile.flush()
                sent = min(len(body), 65536)
                while sent < len(body):
                    self.wfile.write(body[sent:sent + 1])
                    self.wfile.flush()
                    sent += 1
                    time.sleep(0.1)
            elif mode == "slow":
                for i in range(0, len(body), 8192):
                    self.wfile.write(body[i:i + 8192])
                    self.wfile.flush()
                    sent += len(body[i:i + 8192])
                    time.sleep(0.02)
            else:
                self.wfile.write(body)
                sent = len(body)
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        self.finish_log(mode, rel, status, sent, rng)


    def paced(self, path, rel, rng, mode):
        """The file from the range's start at $MIRROR_RATE bytes a second, as a link of that
        speed would bring it: each chunk sent when the clock says it may be."""
        rate = float(os.environ.get("MIRROR_RATE", "12500000"))
        chunk = max(4096, min(PACED_CHUNK, int(rate / 50)))  # 50 sends a second at least
        size = os.path.getsize(path)
        start, end = range_asked(rng, size) if rng else (0, size)
        if start >= size > 0:
            self.send(416, b"", [("Content-Range", f"bytes */{size}")])
            return self.finish_log(mode, rel, 416, 0, rng)
        status = 206 if (start or end < size) else 200
        self.send_response(status)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
        self.send_header("Content-Length", str(end - start))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        sent, t0 = 0, time.monotonic()
        lie = mode == "paced-lie" and rng and rng.partition("-")[2].strip() != ""
        try:
            with open(path, "rb") as f:
                f.seek(start)
                while sent < end - start and (data := f.read(min(chunk, end - start - sent))):
                    if lie and sent == 0:
                        data = bytes([data[0] ^ 0xFF]) + data[1:]
                    self.wfile.write(data)
                    sent += len(data)
                    ahead = t0 + sent / rate - time.monotonic()
                    if ahead > 0:
                        time.sleep(ahead)
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        self.finish_log(mode, rel, status, sent, rng)


def range_asked(rng, size):
    """A Range header's bytes as [start, end): "bytes=A-" to the file's end, "bytes=A-B"
    up to B (cut at the end)."""
    first, _, last = rng.split("=", 1)[1].partition("-")
    end = min(size, int(last) + 1) if last.strip() else size
    return int(first), end


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *a: threading.Thread(target=server.shutdown).start())
    with open(PORT_FILE + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(PORT_FILE + ".tmp", PORT_FILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
