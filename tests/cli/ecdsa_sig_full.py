#!/usr/bin/env python3
"""Exit 0 when the ECDSA signature of the PEM certificate named holds r and s of full length
(32 bytes each for P-256), else 1 (tests only).

    ecdsa_sig_full.py CERT.pem

Wine's crypt32 fails to verify a P-256 signature whose r or s is shorter than 32 bytes (a
leading zero byte, about 1 signature in 128): the test certificates are made again until
theirs is not, so that a TLS test under Wine does not fail by the draw of a signature.
"""
import base64
import sys


def read(der, at):
    """(tag, content start, content end) of the DER element at `at`."""
    tag, n = der[at], der[at + 1]
    at += 2
    if n & 0x80:
        k = n & 0x7F
        n = int.from_bytes(der[at:at + k], "big")
        at += k
    return tag, at, at + n


def main():
    pem = open(sys.argv[1]).read()
    body = pem.split("-----BEGIN CERTIFICATE-----")[1].split("-----END CERTIFICATE-----")[0]
    der = base64.b64decode("".join(body.split()))
    _, start, end = read(der, 0)  # Certificate
    _, _, at = read(der, start)  # tbsCertificate
    _, _, at = read(der, at)  # signatureAlgorithm
    tag, bits, bits_end = read(der, at)  # signatureValue, a BIT STRING
    _, r_at, r_end = read(der, bits + 1)  # the signature's SEQUENCE
    sizes = []
    at = r_at
    while at < r_end:
        _, s, e = read(der, at)
        sizes.append(len(der[s:e].lstrip(b"\0")))
        at = e
    sys.exit(0 if tag == 3 and len(sizes) == 2 and all(n == 32 for n in sizes) else 1)


if __name__ == "__main__":
    main()
