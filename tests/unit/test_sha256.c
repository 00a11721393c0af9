/* SHA-256 from the platform's crypto (Nettle or BCrypt) against FIPS 180-2 vectors. */
#include "platform/sha256.h"
#include "tap.h"

#include <stdlib.h>

static void digest_of(const char *data, size_t n, size_t chunk, char out[65])
{
    struct sha256 *h = sha256_new();
    for (size_t i = 0; i < n; i += chunk)
        sha256_update(h, data + i, n - i < chunk ? n - i : chunk);
    sha256_finish_hex(h, out);
    sha256_free(h);
}

int main(void)
{
    char hex[65];
    digest_of("", 0, 1, hex);
    is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty input");
    digest_of("abc", 3, 3, hex);
    is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "'abc'");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    digest_of(two, strlen(two), 7, hex);
    is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
           "two blocks, fed in pieces of 7 bytes");
    size_t million = 1000000;
    char *a = malloc(million);
    memset(a, 'a', million);
    digest_of(a, million, 65536, hex);
    free(a);
    is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
           "a million 'a'");

    struct sha256 *h = sha256_new();
    sha256_update(h, "abc", 3);
    sha256_finish_hex(h, hex);
    sha256_update(h, "abc", 3);
    sha256_finish_hex(h, hex);
    is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
           "a hash is fresh again after finish");
    sha256_update(h, "xyz", 3);
    sha256_reset(h);
    sha256_update(h, "abc", 3);
    sha256_finish_hex(h, hex);
    is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
           "reset drops what was fed");
    sha256_free(h);
    return tap_done();
}
