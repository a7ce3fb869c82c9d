#!/bin/sh
# Makes the encoded bodies CurlDecodingTests serves (run once; the outputs are committed, so CI needs
# none of these tools). Needs python3, gzip, brotli and zstd.
set -eu
cd "$(dirname "$0")"
# lines.txt: 2,000 numbered lines, also made by the test itself (CurlDecodingTests.lines).
python3 -c '
import sys
sys.stdout.write("".join("line %d: the quick brown fox jumps over the lazy dog\n" % i for i in range(2000)))' > lines.txt
gzip -c -9 -n lines.txt > lines.gz
python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(open("lines.txt", "rb").read(), 9))' > lines.zlib
python3 -c '
import sys, zlib
c = zlib.compressobj(9, zlib.DEFLATED, -15)
sys.stdout.buffer.write(c.compress(open("lines.txt", "rb").read()) + c.flush())' > lines.deflate
brotli -c -q 11 lines.txt > lines.br
zstd -q -c -19 lines.txt > lines.zst
# Content-Encoding: gzip, br: gzip applied first, then br.
brotli -c -q 11 lines.gz > lines.gz.br
rm lines.txt
# repeated.zst: 64 MiB of one 64-byte line, in a few KiB: a high-ratio stream for the memory tests.
python3 -c '
import sys
line = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-+\n"[:63] + b"\n"
out = sys.stdout.buffer
for _ in range(64):
    out.write(line * 16384)' > repeated.txt
zstd -q -c -19 repeated.txt > repeated.zst
# The first 16 MiB of it in gzip (gzip's ratio is at most about 1,000:1).
head -c 16777216 repeated.txt | gzip -c -9 -n > repeated.gz
rm repeated.txt
# wide-window.zst: 20 MiB of that line with a 16 MiB window, past the 8 MiB RFC 9659 allows HTTP.
python3 -c '
import sys
line = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-\n"
sys.stdout.buffer.write(line * (20 * 16384))' | zstd -q -c --long=24 -19 > wide-window.zst
