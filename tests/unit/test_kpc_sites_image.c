// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel image reader of the call-site catalog (kpc_sites_image.c,
 * kpc_sites_unpack.c).
 *
 * Without arguments (make test): kpc_sites_unpack() and
 * kpc_sites_read_file() on buffers compressed here with liblzma (with the
 * x86 BCJ filter, as the kernel's payload), libzstd (a frame without its
 * size and 4 bytes after it, as the kernel's payload) and zlib, truncated
 * ones refused, plain ones copied.
 *
 * test_kpc_sites_image IMAGE [KALLSYMS]: scans a kernel image and prints
 * its entries as JSON lines, then the seconds the scan took on stderr;
 * tests/host/sites-image.py checks them against the image itself.
 */
#include <errno.h>
#include <json-c/json.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "kpc_sites_scan.h"
#include "test_kpc_tap.h"

/* Text that compresses, with bytes that look like x86 calls for the BCJ filter. */
static unsigned char *sample(size_t n)
{
	unsigned char *p = malloc(n);
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = i % 97 == 0 ? 0xe8 : "kernel message formats "[i % 23] ^ (i / 4096 & 7);
	return p;
}

static size_t compress_xz(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	lzma_options_lzma opt;
	lzma_filter filters[] = {
		{ LZMA_FILTER_X86, NULL },
		{ LZMA_FILTER_LZMA2, &opt },
		{ LZMA_VLI_UNKNOWN, NULL },
	};
	size_t pos = 0;

	lzma_lzma_preset(&opt, 6);
	if (lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL, in, n, out, &pos, cap))
		return 0;
	return pos;
}

/* One frame without its content size, as the kernel's zstd payload. */
static size_t compress_zstd(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_inBuffer zin = { in, n, 0 };
	ZSTD_outBuffer zout = { out, cap, 0 };
	size_t r;

	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
	do
		r = ZSTD_compressStream2(c, &zout, &zin, ZSTD_e_end);
	while (r && !ZSTD_isError(r));
	ZSTD_freeCCtx(c);
	return ZSTD_isError(r) ? 0 : zout.pos;
}

static size_t compress_gzip(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream zs = { 0 };
	size_t len;

	if (deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	zs.next_in = (Bytef *)in;
	zs.avail_in = n;
	zs.next_out = out;
	zs.avail_out = cap;
	len = deflate(&zs, Z_FINISH) == Z_STREAM_END ? zs.total_out : 0;
	deflateEnd(&zs);
	return len;
}

static void test_one(const char *name, size_t (*compress)(const unsigned char *, size_t,
							   unsigned char *, size_t))
{
	size_t n = 3 << 20, cap = n + (1 << 16), clen, outlen = 0;
	unsigned char *in = sample(n), *c = malloc(cap);
	void *out = NULL;
	char err[256] = "";
	int ret;

	clen = compress(in, n, c, cap);
	if (!tap_ok(clen > 0 && clen < n, "%s: %zu bytes compressed to %zu", name, n, clen))
		goto out;
	/* The kernel appends the uncompressed size: the reader must stop before it. */
	memcpy(c + clen, &(uint32_t){ n }, 4);
	ret = kpc_sites_unpack(c, clen + 4, &out, &outlen, err, sizeof(err));
	tap_ok(!ret && outlen == n && !memcmp(out, in, n),
	       "%s: unpacked to the same %zu bytes, the size after the stream ignored (%s)",
	       name, n, ret ? err : "no error");
	free(out);
	out = NULL;
	ret = kpc_sites_unpack(c, clen / 2, &out, &outlen, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, name), "%s: half the stream refused: %s", name, err);
	free(out);
out:
	free(in);
	free(c);
}

static void test_plain_and_file(void)
{
	char path[] = "/tmp/test_kpc_sites_XXXXXX", err[256] = "";
	unsigned char *in = sample(1 << 16), c[1 << 17];
	size_t clen = compress_xz(in, 1 << 16, c, sizeof(c)), outlen = 0;
	void *out = NULL;
	int fd = mkstemp(path), ret;

	ret = kpc_sites_unpack("\177ELF plain", 10, &out, &outlen, err, sizeof(err));
	tap_ok(!ret && outlen == 10 && !memcmp(out, "\177ELF plain", 10),
	       "a buffer without a known magic comes back as it is");
	free(out);
	out = NULL;
	if (fd < 0 || write(fd, c, clen) != (ssize_t)clen) {
		tap_ok(0, "write %s: %s", path, strerror(errno));
		goto out;
	}
	ret = kpc_sites_read_file(path, &out, &outlen, err, sizeof(err));
	tap_ok(!ret && outlen == 1 << 16 && !memcmp(out, in, outlen),
	       "kpc_sites_read_file() unpacks an .xz file by its magic");
	free(out);
	ret = kpc_sites_read_file("/nonexistent/x.ko", &out, &outlen, err, sizeof(err));
	tap_ok(ret == -ENOENT && strstr(err, "/nonexistent/x.ko"),
	       "a missing file: -ENOENT, and the message names it: %s", err);
out:
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(in);
}

static void print_entry(const struct kpc_site *e)
{
	const char *level = kpc_site_level_name(e->level);
	struct json_object *o = json_object_new_object();
	char id[17];

	snprintf(id, sizeof(id), "%016llx", (unsigned long long)e->format_id);
	json_object_object_add(o, "format_id", json_object_new_string(id));
	json_object_object_add(o, "format", json_object_new_string(e->format));
	json_object_object_add(o, "level", level ? json_object_new_string(level) : NULL);
	json_object_object_add(o, "module", json_object_new_string(e->module));
	json_object_object_add(o, "function",
			       e->function ? json_object_new_string(e->function) : NULL);
	json_object_object_add(o, "kind", json_object_new_string(kpc_site_kind_name(e->kind)));
	json_object_object_add(o, "source",
			       json_object_new_string(kpc_site_source_name(e->source)));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static int scan(const char *image, const char *kallsyms)
{
	struct kpc_sites s = { 0 };
	struct timespec t0, t1;
	char err[512];
	size_t i;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = kpc_sites_scan_image(image, kallsyms, &s, err, sizeof(err));
	if (!ret)
		kpc_sites_sort(&s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret) {
		fprintf(stderr, "test_kpc_sites_image: %s\n", err);
		return 1;
	}
	for (i = 0; i < s.n; i++)
		print_entry(&s.v[i]);
	fprintf(stderr, "seconds %.3f entries %zu kallsyms %d\n",
		t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9, s.n, s.kallsyms);
	kpc_sites_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return scan(argv[1], argc > 2 ? argv[2] : NULL);
	test_one("xz", compress_xz);
	test_one("zstd", compress_zstd);
	test_one("gzip", compress_gzip);
	test_plain_and_file();
	return tap_failures ? 1 : 0;
}
