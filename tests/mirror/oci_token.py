#!/usr/bin/env python3
"""A registry token server on loopback, as Docker's token auth specifies it, for the OCI
scenarios: a client that Basic-authenticates as USER:PASSWORD gets a JWT (RS256, with the
signing certificate in its x5c header) granting the scopes it asks for; anyone else gets
401. The CNCF registry trusts the certificate through auth.token.rootcertbundle.

Usage: oci_token.py DIR USER PASSWORD PORTFILE LOG
  DIR gets key.pem and cert.pem (made once); the chosen port is written to PORTFILE;
  each request is a line of LOG: the scope asked, and whether it was granted."""
import base64
import datetime
import json
import os
import sys
import time
import urllib.parse

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

from loopback import QuietHandler, serve

ISSUER = "cdm-test-issuer"


def make_key(folder):
    key_path, cert_path = os.path.join(folder, "key.pem"), os.path.join(folder, "cert.pem")
    if not os.path.exists(key_path):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ISSUER)])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=30))
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .sign(key, hashes.SHA256()))
        with open(key_path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        with open(cert_path, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), None)
    with open(cert_path, "rb") as f:
        cert = x509.load_pem_x509_certificate(f.read())
    return key, cert


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(key, cert, service, access):
    der = cert.public_bytes(serialization.Encoding.DER)
    header = {"typ": "JWT", "alg": "RS256", "x5c": [base64.b64encode(der).decode()]}
    now = int(time.time())
    claims = {"iss": ISSUER, "sub": "cdm", "aud": service, "exp": now + 300, "nbf": now - 10,
              "iat": now, "jti": os.urandom(8).hex(), "access": access}
    signing = (b64url(json.dumps(header).encode()) + "." +
               b64url(json.dumps(claims).encode())).encode()
    sig = key.sign(signing, padding.PKCS1v15(), hashes.SHA256())
    return signing.decode() + "." + b64url(sig)


def access_of(scopes):
    access = []
    for scope in scopes:
        parts = scope.split(":")
        if len(parts) == 3 and parts[0] == "repository":
            access.append({"type": "repository", "name": parts[1],
                           "actions": parts[2].split(",")})
    return access


def main():
    folder, user, password, portfile, log = sys.argv[1:6]
    key, cert = make_key(folder)
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    class Handler(QuietHandler):
        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            query = urllib.parse.parse_qs(url.query)
            scopes = query.get("scope", [])
            granted = self.headers.get("Authorization") == expected
            with open(log, "a") as f:
                f.write(f"{' '.join(scopes) or '-'} {'granted' if granted else 'refused'}\n")
            if not granted:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="cdm-test"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = json.dumps({"token": token(key, cert, query.get("service", [""])[0],
                                              access_of(scopes)),
                               "expires_in": 300}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    serve(Handler, portfile)


if __name__ == "__main__":
    main()
