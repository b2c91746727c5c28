// SPDX-License-Identifier: GPL-2.0
/*
 * Files of the call-site catalog, uncompressed: modules as Debian ships
 * them (.ko on 6.1, .ko.xz on 6.12) and the kernel image's payload (xz on
 * 6.1, zstd on 6.12), each recognised by its magic, not its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "kpc_sites_scan.h"

/* No file the catalog reads comes near this: a corrupt size field does. */
#define KPC_UNPACK_MAX		(1UL << 30)

static const unsigned char kpc_xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
static const unsigned char kpc_zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };
static const unsigned char kpc_gzip_magic[] = { 0x1f, 0x8b };

int kpc_sites_fail(int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static bool kpc_has_magic(const void *in, size_t inlen, const unsigned char *magic, size_t n)
{
	return inlen >= n && !memcmp(in, magic, n);
}

/*
 * The output buffer, grown by doubling from a first guess.  The guess is
 * the size the input names when it names one, so that the common case
 * allocates once.
 */
struct kpc_unpack_buf {
	unsigned char *p;
	size_t len, cap;
};

static int kpc_unpack_grow(struct kpc_unpack_buf *b, size_t want)
{
	size_t cap = b->cap ? b->cap : 1 << 16;
	unsigned char *p;

	while (cap < want)
		cap *= 2;
	if (cap > KPC_UNPACK_MAX)
		return -EFBIG;
	if (cap == b->cap)
		return 0;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/*
 * xz, with the x86 BCJ filter of the kernel's own payload as well.  Only
 * the first stream is read: the kernel appends the uncompressed size
 * after it, which is no xz stream.
 */
static int kpc_unpack_xz(const void *in, size_t inlen, struct kpc_unpack_buf *b,
			 char *err, size_t errlen)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	lzma_ret r;
	int ret = 0;

	if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK)
		return kpc_sites_fail(-ENOMEM, err, errlen, "xz: cannot start the decoder");
	strm.next_in = in;
	strm.avail_in = inlen;
	do {
		if (b->len == b->cap) {
			ret = kpc_unpack_grow(b, b->cap * 2 + 1);
			if (ret) {
				kpc_sites_fail(ret, err, errlen, "xz: %s", strerror(-ret));
				break;
			}
		}
		strm.next_out = b->p + b->len;
		strm.avail_out = b->cap - b->len;
		r = lzma_code(&strm, LZMA_FINISH);
		b->len = b->cap - strm.avail_out;
	} while (r == LZMA_OK || (r == LZMA_BUF_ERROR && !strm.avail_out));
	if (!ret && r != LZMA_STREAM_END)
		ret = kpc_sites_fail(-EINVAL, err, errlen, "xz: corrupt or truncated (error %d)",
				     (int)r);
	lzma_end(&strm);
	return ret;
}

/*
 * zstd, one frame after another.  The kernel's payload frame need not
 * carry its size and is followed by the size as 4 bytes, which end the
 * reading as anything else not starting with the magic does.
 */
static int kpc_unpack_zstd(const void *in, size_t inlen, struct kpc_unpack_buf *b,
			   char *err, size_t errlen)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer zin = { in, inlen, 0 };
	size_t r = 1;
	int ret = 0;

	if (!ds)
		return kpc_sites_fail(-ENOMEM, err, errlen, "zstd: cannot start the decoder");
	ZSTD_initDStream(ds);
	for (;;) {
		ZSTD_outBuffer zout;

		if (!r) {
			/* A frame ended: another one, or the end. */
			if (!kpc_has_magic((const char *)in + zin.pos, inlen - zin.pos,
					   kpc_zstd_magic, sizeof(kpc_zstd_magic)))
				break;
			ZSTD_initDStream(ds);
		}
		if (b->len == b->cap) {
			ret = kpc_unpack_grow(b, b->cap * 2 + 1);
			if (ret) {
				kpc_sites_fail(ret, err, errlen, "zstd: %s", strerror(-ret));
				break;
			}
		}
		zout = (ZSTD_outBuffer){ b->p, b->cap, b->len };
		r = ZSTD_decompressStream(ds, &zout, &zin);
		b->len = zout.pos;
		if (ZSTD_isError(r)) {
			ret = kpc_sites_fail(-EINVAL, err, errlen, "zstd: %s",
					     ZSTD_getErrorName(r));
			break;
		}
		if (r && zin.pos == inlen && zout.pos < zout.size) {
			ret = kpc_sites_fail(-EINVAL, err, errlen, "zstd: truncated");
			break;
		}
	}
	ZSTD_freeDStream(ds);
	return ret;
}

/* gzip (.ko.gz), through zlib's inflate with the gzip header. */
static int kpc_unpack_gzip(const void *in, size_t inlen, struct kpc_unpack_buf *b,
			   char *err, size_t errlen)
{
	z_stream zs = { 0 };
	int r, ret = 0;

	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return kpc_sites_fail(-ENOMEM, err, errlen, "gzip: cannot start the decoder");
	zs.next_in = (Bytef *)in;
	do {
		/* zlib counts in uInt: feed and take at most 1 GiB a call. */
		size_t in_left = inlen - (size_t)((const unsigned char *)zs.next_in -
						  (const unsigned char *)in);

		zs.avail_in = in_left > (1U << 30) ? 1U << 30 : (uInt)in_left;
		if (b->len == b->cap) {
			ret = kpc_unpack_grow(b, b->cap * 2 + 1);
			if (ret) {
				kpc_sites_fail(ret, err, errlen, "gzip: %s", strerror(-ret));
				break;
			}
		}
		zs.next_out = b->p + b->len;
		zs.avail_out = b->cap - b->len;
		r = inflate(&zs, Z_NO_FLUSH);
		b->len = b->cap - zs.avail_out;
	} while (r == Z_OK || (r == Z_BUF_ERROR && !zs.avail_out));
	if (!ret && r != Z_STREAM_END)
		ret = kpc_sites_fail(-EINVAL, err, errlen, "gzip: corrupt or truncated (%s)",
				     zs.msg ? zs.msg : "unexpected end");
	inflateEnd(&zs);
	return ret;
}

/* The uncompressed size a zstd frame or a gzip trailer names, or a guess. */
static size_t kpc_unpack_guess(const void *in, size_t inlen)
{
	const unsigned char *p = in;
	unsigned long long zsize;

	if (kpc_has_magic(in, inlen, kpc_zstd_magic, sizeof(kpc_zstd_magic))) {
		zsize = ZSTD_getFrameContentSize(in, inlen);
		if (zsize != ZSTD_CONTENTSIZE_UNKNOWN && zsize != ZSTD_CONTENTSIZE_ERROR &&
		    zsize <= KPC_UNPACK_MAX)
			return zsize + 1;
	}
	if (kpc_has_magic(in, inlen, kpc_gzip_magic, sizeof(kpc_gzip_magic)) && inlen >= 18) {
		/* ISIZE, the size mod 2^32; deflate shrinks 1032:1 at most. */
		size_t isize = p[inlen - 4] | p[inlen - 3] << 8 | p[inlen - 2] << 16 |
			       (size_t)p[inlen - 1] << 24;

		if (isize / 1032 <= inlen)
			return isize + 1;
	}
	return inlen * 4;
}

int kpc_sites_unpack(const void *in, size_t inlen, void **out, size_t *outlen,
		     char *err, size_t errlen)
{
	struct kpc_unpack_buf b = { 0 };
	int ret;

	if (!kpc_has_magic(in, inlen, kpc_xz_magic, sizeof(kpc_xz_magic)) &&
	    !kpc_has_magic(in, inlen, kpc_zstd_magic, sizeof(kpc_zstd_magic)) &&
	    !kpc_has_magic(in, inlen, kpc_gzip_magic, sizeof(kpc_gzip_magic))) {
		/* Plain: a copy, so that the caller frees what it gets either way. */
		*out = malloc(inlen ? inlen : 1);
		if (!*out)
			return kpc_sites_fail(-ENOMEM, err, errlen, "out of memory");
		memcpy(*out, in, inlen);
		*outlen = inlen;
		return 0;
	}
	ret = kpc_unpack_grow(&b, kpc_unpack_guess(in, inlen));
	if (ret)
		return kpc_sites_fail(ret, err, errlen, "%s", strerror(-ret));
	if (kpc_has_magic(in, inlen, kpc_xz_magic, sizeof(kpc_xz_magic)))
		ret = kpc_unpack_xz(in, inlen, &b, err, errlen);
	else if (kpc_has_magic(in, inlen, kpc_zstd_magic, sizeof(kpc_zstd_magic)))
		ret = kpc_unpack_zstd(in, inlen, &b, err, errlen);
	else
		ret = kpc_unpack_gzip(in, inlen, &b, err, errlen);
	if (ret) {
		free(b.p);
		return ret;
	}
	*out = b.p;
	*outlen = b.len;
	return 0;
}

static int kpc_read_all(const char *path, void **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t done = 0;
	char *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return kpc_sites_fail(-errno, err, errlen, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return kpc_sites_fail(ret, err, errlen, "%s: %s", path, strerror(-ret));
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > KPC_UNPACK_MAX) {
		close(fd);
		return kpc_sites_fail(-EINVAL, err, errlen, "%s: %s", path,
				      S_ISREG(st.st_mode) ? "too large" : "not a regular file");
	}
	p = malloc(st.st_size ? st.st_size : 1);
	if (!p) {
		close(fd);
		return kpc_sites_fail(-ENOMEM, err, errlen, "%s: out of memory", path);
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, p + done, st.st_size - done);

		if (n <= 0) {
			ret = n ? -errno : -EIO;
			close(fd);
			free(p);
			return kpc_sites_fail(ret, err, errlen, "%s: %s", path,
					      n ? strerror(-ret) : "shorter than its size");
		}
		done += n;
	}
	/*
	 * A build reads every module file of a kernel once (400 MB for 6.1):
	 * that must not push what the machine is using out of the page cache.
	 */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	*buf = p;
	*len = done;
	return 0;
}

int kpc_sites_read_file(const char *path, void **buf, size_t *len, char *err, size_t errlen)
{
	void *raw = NULL;
	size_t rawlen = 0;
	int ret = kpc_read_all(path, &raw, &rawlen, err, errlen);
	char why[256];

	if (ret)
		return ret;
	if (!kpc_has_magic(raw, rawlen, kpc_xz_magic, sizeof(kpc_xz_magic)) &&
	    !kpc_has_magic(raw, rawlen, kpc_zstd_magic, sizeof(kpc_zstd_magic)) &&
	    !kpc_has_magic(raw, rawlen, kpc_gzip_magic, sizeof(kpc_gzip_magic))) {
		*buf = raw;
		*len = rawlen;
		return 0;
	}
	ret = kpc_sites_unpack(raw, rawlen, buf, len, why, sizeof(why));
	free(raw);
	if (ret)
		return kpc_sites_fail(ret, err, errlen, "%s: %s", path, why);
	return 0;
}
