// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's web config (--web.config.file, exporter-toolkit's YAML):
 * kpx_webconfig_load() and kpx_webconfig_free(), with libyaml, the TLS
 * check in GnuTLS and the basic_auth_users checks behind them.
 *
 * Input: the YAML file.  kpx_webconfig_load() opens it by path, so this
 * harness links with -Wl,--wrap=fopen (tests/fuzz/Makefile) and
 * __wrap_fopen() serves the names it knows from memory: "fuzz.yml" is the
 * input, "cert.pem", "key.pem" and "ca.pem" a self-signed P-256
 * certificate and its key (made once with openssl req -x509; a test key,
 * never used for anything else), so that the seeds reach the TLS check.
 * Any other file is ENOENT: the fuzzer must not read /dev/stdin,
 * /proc/kmsg or a FIFO that a mutated cert_file could name, and blocking
 * there would be a hang, not a finding.
 *
 * Oracle: 0 with a config, or -EINVAL / -ENOMEM with none.  -EINVAL comes
 * with "kprint_exporter: fuzz.yml:LINE: reason" on stderr (read back here
 * from a memfd), LINE within the input (1 .. its lines, or one past them
 * at its end); 0 says nothing.  A loaded config holds what kpx_webconfig.h promises: the path, a TLS
 * config with both PEMs and GnuTLS priorities of NORMAL with versions
 * only, a client_auth inside the enum, users with names and 60-byte
 * bcrypt hashes.  No crash, UB or leak anywhere.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kpx_webconfig.h"
#include "fuzz.h"

#define NAME	"fuzz.yml"

static const char fuzz_cert[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBdTCCARugAwIBAgIUJnf6jW16hURBqtOYMXnnh530lNowCgYIKoZIzj0EAwIw\n"
	"DzENMAsGA1UEAwwEZnV6ejAgFw0yNjEyMDQyMzE3NDZaGA8yMTI2MTExMDIzMTc0\n"
	"NlowDzENMAsGA1UEAwwEZnV6ejBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABF/a\n"
	"CcLX3CrhQtS66+u1jRKwBRPLvPUnLzjfFxbIuBv1F9UMA0P2Z0Hx+LvDA7l6lEpE\n"
	"w1npHHlXZu0BDrQD01WjUzBRMB0GA1UdDgQWBBTYtx8w9+wWNhsg7DCtWILCAgge\n"
	"0DAfBgNVHSMEGDAWgBTYtx8w9+wWNhsg7DCtWILCAgge0DAPBgNVHRMBAf8EBTAD\n"
	"AQH/MAoGCCqGSM49BAMCA0gAMEUCIAL6vPhntyMbVq/r+zujPaZa4SjfkNP9iOQt\n"
	"c1HyHHvgAiEA/iq9XcC3kL+xt4a/3chbA2pFWrIbk5Dp3QLwiUnvlBo=\n"
	"-----END CERTIFICATE-----\n";
static const char fuzz_key[] =
	"-----BEGIN PRIVATE KEY-----\n"
	"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg7RARcFMUgbSxgB4t\n"
	"gdDwyXFH9ONXSq26k2GwKVdRt1KhRANCAARf2gnC19wq4ULUuuvrtY0SsAUTy7z1\n"
	"Jy843xcWyLgb9RfVDAND9mdB8fi7wwO5epRKRMNZ6Rx5V2btAQ60A9NV\n"
	"-----END PRIVATE KEY-----\n";
static int input_fd = -1;	/* memfd: the current input */
static int err_fd = -1;		/* memfd: what the loader said on stderr */

FILE *__real_fopen(const char *path, const char *mode);

FILE *__wrap_fopen(const char *path, const char *mode)
{
	int fd;

	(void)mode;
	if (!strcmp(path, NAME)) {
		fd = dup(input_fd);
		if (fd < 0 || lseek(fd, 0, SEEK_SET)) {
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		return fdopen(fd, "r");
	}
	if (!strcmp(path, "cert.pem") || !strcmp(path, "ca.pem"))
		return fmemopen((void *)fuzz_cert, strlen(fuzz_cert), "r");
	if (!strcmp(path, "key.pem"))
		return fmemopen((void *)fuzz_key, strlen(fuzz_key), "r");
	errno = ENOENT;
	return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	input_fd = memfd_create("fuzz_webconfig", MFD_CLOEXEC);
	err_fd = memfd_create("fuzz_webconfig_stderr", MFD_CLOEXEC);
	fuzz_assert(input_fd >= 0 && err_fd >= 0, "memfd_create: %s", strerror(errno));
	return 0;
}

/* The loader's stderr, NUL-terminated, in buf. */
static void fuzz_said(char *buf, size_t size)
{
	ssize_t n = pread(err_fd, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

static void fuzz_check_loaded(const struct kpx_web *w)
{
	size_t i;

	fuzz_assert(w && w->path && !strcmp(w->path, NAME), "path");
	fuzz_assert(w->client_auth < KPX_NR_CLIENT_AUTH, "client_auth %d", w->client_auth);
	if (w->tls) {
		fuzz_assert(w->cert_pem && w->key_pem, "TLS without its PEMs");
		fuzz_assert(!strncmp(w->priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.",
				     strlen("NORMAL:-VERS-ALL:+VERS-TLS1.")),
			    "priorities '%s'", w->priorities);
	}
	fuzz_assert(!w->nusers || w->cache, "users without the auth cache");
	for (i = 0; i < w->nusers; i++) {
		fuzz_assert(w->users[i].name, "user %zu without a name", i);
		fuzz_assert(w->users[i].hash && strlen(w->users[i].hash) == 60 &&
			    !strncmp(w->users[i].hash, "$2", 2), "user %zu's hash", i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kpx_web *w = (struct kpx_web *)1;
	char said[4096], *end;
	size_t lines = 1, i;
	unsigned long line;
	int saved, ret;

	if (ftruncate(input_fd, 0) || pwrite(input_fd, data, size, 0) != (ssize_t)size ||
	    ftruncate(err_fd, 0))
		abort();
	/*
	 * YAML breaks lines at \n, \r, \r\n, NEL (U+0085, or the byte 0x85
	 * libyaml also takes), LS and PS: counting each of their bytes that
	 * can end a line bounds the lines from above.
	 */
	for (i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\r' || data[i] == 0x85 ||
			 (data[i] == 0xa8 || data[i] == 0xa9);

	/* The loader reports on stderr: caught here, for the oracle. */
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	if (saved < 0 || dup2(err_fd, STDERR_FILENO) < 0 || lseek(err_fd, 0, SEEK_SET))
		abort();
	ret = kpx_webconfig_load(NAME, &w);
	fflush(stderr);
	if (dup2(saved, STDERR_FILENO) < 0)
		abort();
	close(saved);
	fuzz_said(said, sizeof(said));

	if (!ret) {
		fuzz_assert(!said[0], "a loaded config with a complaint: '%s'", said);
		fuzz_check_loaded(w);
		kpx_webconfig_free(w);
		return 0;
	}
	fuzz_assert(!w, "a refused config is no config (%d)", ret);
	fuzz_assert(ret == -EINVAL || ret == -ENOMEM, "ret %d", ret);
	if (ret == -ENOMEM)
		return 0;
	fuzz_assert(!strncmp(said, "kprint_exporter: " NAME ":",
			     strlen("kprint_exporter: " NAME ":")), "said '%s'", said);
	line = strtoul(said + strlen("kprint_exporter: " NAME ":"), &end, 10);
	/*
	 * libyaml may place a problem at the end of a file without a final
	 * newline one line past its last: lines + 1 is still "at the end".
	 */
	fuzz_assert(*end == ':' && line >= 1 && line <= lines + 1, "line %lu of %zu: '%s'",
		    line, lines, said);
	return 0;
}
