"""What the loopback servers of the tests share: a handler that logs nothing, and serving
on a free port of 127.0.0.1 whose number is written to a file (atomically: the scenario
waits for the file, then reads a whole number)."""
import http.server
import os


class QuietHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(handler, portfile):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    server.serve_forever()
