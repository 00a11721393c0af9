#!/usr/bin/env python3
"""A registry's front as the big ones run it (GHCR, ECR, Docker Hub), for the OCI
scenarios: every request is passed to the registry behind it, but a blob GET is answered
with a redirect to a storage host (here: the same server under the name localhost, under
/cdn/), which serves the blob's bytes from the registry's storage and, as S3 does for a
signed URL, refuses a request that carries an Authorization header. A client that sends
the registry's token on to the storage host fails.

Usage: oci_cdn.py REGISTRY_HOST:PORT REGISTRY_DATA PORTFILE LOG"""
import http.client
import os
import re
import sys

from loopback import QuietHandler, serve


def main():
    upstream, data, portfile, log = sys.argv[1:5]

    class Handler(QuietHandler):
        protocol_version = "HTTP/1.1"

        def note(self, what):
            with open(log, "a") as f:
                f.write(f"{self.command} {self.path} {what}\n")

        def reply(self, status, headers, body=b""):
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def cdn(self, digest):
            if self.headers.get("Authorization"):
                self.note("refused: an Authorization header came to the storage host")
                return self.reply(400, [], b"Only one auth mechanism allowed\n")
            path = os.path.join(data, "docker/registry/v2/blobs/sha256", digest[:2], digest, "data")
            with open(path, "rb") as f:
                body = f.read()
            self.note("served")
            self.reply(200, [("Content-Type", "application/octet-stream")], body)

        def forward(self):
            m = re.fullmatch(r"/v2/(.+)/blobs/sha256:([0-9a-f]{64})", self.path)
            if self.command == "GET" and m and self.headers.get("Authorization"):
                port = self.server.server_address[1]
                self.note("redirected")
                return self.reply(307, [("Location", f"http://localhost:{port}/cdn/{m.group(2)}")])
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            conn = http.client.HTTPConnection(upstream)
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            conn.request(self.command, self.path, body=body, headers=headers)
            r = conn.getresponse()
            data_back = r.read()
            self.reply(r.status, [(k, v) for k, v in r.getheaders()
                                  if k.lower() not in ("content-length", "transfer-encoding",
                                                       "connection")], data_back)

        def do_GET(self):
            if self.path.startswith("/cdn/"):
                return self.cdn(self.path[5:])
            self.forward()

        do_HEAD = do_GET

    serve(Handler, portfile)


if __name__ == "__main__":
    main()
