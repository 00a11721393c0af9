/* What sha256.h gives on both systems, over either's hash. */
#include "sha256.h"
#include "base/util.h"

void sha256_hex_of(const void *data, size_t n, char out[65])
{
    struct sha256 *h = sha256_new();
    sha256_update(h, data, n);
    sha256_finish_hex(h, out);
    sha256_free(h);
}
