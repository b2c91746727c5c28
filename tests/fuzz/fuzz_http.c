// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP handler in-process: libmicrohttpd with kprint_exporter's own
 * handler, limits and connection callbacks (kpx_http_start_nolisten(): no
 * listening socket, no threads).  Each input is a raw request (or several,
 * or garbage) written into one end of a socketpair whose other end
 * MHD_add_connection() hands over; MHD_run() drives the connection in this
 * thread until the server closes it.  The client end is half-closed once
 * the whole input is in, as a client that has said all it will.
 *
 * The exporter serves a replay (kpx_store.replay): records whose strings
 * hold quotes, backslashes, newlines and ill-formed UTF-8, and their
 * per-format counts, so every endpoint renders real content and nothing
 * touches netlink or BPF.
 *
 * Oracle: no crash, UB or leak; the server closes the connection once the
 * client is done (no hang); what comes back is a sequence of HTTP/1.x
 * answers; and no answer is a 5xx but the two that do not depend on the
 * input being bad: 503 from /formats (no BPF counters in a replay:
 * documented, the same for every request) and 505 when a request line
 * names a version other than HTTP/1.0 or 1.1.  Allocations do not fail
 * here, so the handler's 500 for out of memory must never show.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>

#include "kpx_http.h"
#include "kpx_http_server.h"
#include "kpx_metrics.h"
#include "kpx_replay.h"
#include "kpx_store.h"
#include "fuzz.h"

/* Rounds of MHD_run() without progress before the connection is a hang. */
#define MAX_IDLE_ROUNDS	10000
#define MAX_ANSWER	(8 << 20)

static struct kpx_store store;
static struct kpx_metrics metrics;
static struct kpx_http http;

/* What /formats answers without BPF counters, as kpx_formats_json() says it. */
#define FORMATS_503 "{\"error\":\"no BPF counters with --replay\"}"

static const char *const strings[] = {
	"cheesy %s drive detected at %d", "back\\slash \"quote\"", "new\nline\r\t",
	"ill-formed \xff\xfe \xc3( \xed\xa0\x80", "", "usb-storage", "kprint_test",
	"valid \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "%s",
};
#define NSTRINGS (sizeof(strings) / sizeof(strings[0]))

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct kpx_counts counts = { 0 };
	struct kpc_record rec, *copy;
	unsigned int i;

	(void)argc;
	(void)argv;
	/* As kprint_exporter does: a peer gone mid-answer is no signal. */
	signal(SIGPIPE, SIG_IGN);
	fuzz_assert(!kpx_store_init(&store, 64), "store");
	store.replay = true;
	for (i = 0; i < 40; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.seq = 10 + i * 2;
		rec.level = i % (KPRINT_LEVEL_MAX + 1);
		rec.class = i % (KPRINT_CLASS_MAX + 1);
		rec.comm = strings[i % NSTRINGS];
		rec.file = "";
		rec.function = "";
		rec.subsystem = strings[(i + 4) % NSTRINGS];
		/* Every other one bridged from printk, with a device. */
		rec.source = i % 2 ? KPRINT_SOURCE_PRINTK : KPRINT_SOURCE_KPRINT;
		rec.device = i % 2 ? strings[(i + 3) % NSTRINGS] : "";
		rec.module = strings[(i + 5) % NSTRINGS];
		rec.format = strings[i % NSTRINGS];
		rec.format_id = kpc_format_id(rec.format);
		rec.args[0] = strings[(i + 1) % NSTRINGS];
		rec.nargs = 1;
		rec.text = strings[(i + 2) % NSTRINGS];
		copy = kpc_record_dup(&rec);
		fuzz_assert(copy && !kpx_counts_add(&counts, copy), "record %u", i);
		kpx_store_add(&store, &copy, 1);
	}
	pthread_mutex_init(&metrics.lock, NULL);
	metrics.store = &store;
	metrics.max_series = 5;		/* so that the overflow series shows */
	metrics.replay = counts.f;
	metrics.nreplay = counts.n;
	free(counts.index);
	snprintf(metrics.bpf_error, sizeof(metrics.bpf_error), "no BPF counters with --replay");
	http.metrics = &metrics;
	http.store = &store;
	fuzz_assert(!kpx_http_start_nolisten(&http), "libmicrohttpd would not start");
	return 0;
}

static unsigned int connections(void)
{
	const union MHD_DaemonInfo *di =
		MHD_get_daemon_info(http.mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	return di ? di->num_connections : 0;
}

/* Whether the input has a request line whose version is not HTTP/1.x. */
static bool odd_version(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;

	while ((p = memmem(p, end - p, " HTTP/", 6))) {
		const uint8_t *v = p + 1, *e = v;

		while (e < end && *e != '\r' && *e != '\n' && *e != ' ')
			e++;
		if (!((e - v == 8 && (!memcmp(v, "HTTP/1.1", 8) || !memcmp(v, "HTTP/1.0", 8)))))
			return true;
		p = e;
	}
	/* A request line with no version at all is HTTP/0.9 to some. */
	return !memmem(data, size, " HTTP/1.", 8);
}

/* Check every answer in buf (n bytes). */
static void check_answers(const char *buf, size_t n, const uint8_t *data, size_t size)
{
	size_t at = 0;

	fuzz_assert(n == 0 || (n >= 12 && !memcmp(buf, "HTTP/1.", 7)),
		    "the reply does not start with a status line: %.40s", buf);
	while (at < n) {
		const char *p = memmem(buf + at, n - at, "HTTP/1.", 7);
		const char *head_end;
		int status;

		if (!p)
			break;
		at = p - buf + 7;
		if (p != buf && p[-1] != '\n')
			continue;
		if (n - (p - buf) < 12 || p[8] != ' ')
			continue;
		status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
		if (status < 500)
			continue;
		head_end = memmem(p, n - (p - buf), "\r\n\r\n", 4);
		if (status == 503) {
			/* /formats, as a GET (its body) or a HEAD (its length). */
			char length[48];

			snprintf(length, sizeof(length), "Content-Length: %zu\r\n",
				 strlen(FORMATS_503));
			fuzz_assert(head_end && memmem(p, head_end + 2 - p, length, strlen(length)),
				    "503 that is not /formats': %.200s", p);
			continue;
		}
		fuzz_assert(status == 505 && odd_version(data, size),
			    "a %d answer: %.200s", status, p);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in peer = {
		.sin_family = AF_INET,
		.sin_port = htons(40000),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	size_t sent = 0, n = 0, cap = 65536;
	unsigned int idle = 0;
	bool eof = false, half_closed = false;
	char *buf = malloc(cap);
	int sv[2];

	fuzz_assert(buf, "no memory");
	fuzz_assert(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv),
		    "socketpair: %s", strerror(errno));
	/* From here on sv[1] is libmicrohttpd's, to close. */
	fuzz_assert(MHD_add_connection(http.mhd, sv[1], (struct sockaddr *)&peer,
				       sizeof(peer)) == MHD_YES, "MHD_add_connection");

	while (!eof) {
		bool progress = false;
		ssize_t r;

		if (sent < size) {
			r = send(sv[0], data + sent, size - sent, MSG_NOSIGNAL);
			if (r > 0) {
				sent += r;
				progress = true;
			} else if (r < 0 && errno != EAGAIN) {
				sent = size;	/* the server hung up on us */
			}
		}
		if (sent == size && !half_closed) {
			shutdown(sv[0], SHUT_WR);
			half_closed = true;
		}
		MHD_run(http.mhd);
		for (;;) {
			if (n == cap) {
				fuzz_assert(cap < MAX_ANSWER, "an answer past %d bytes", MAX_ANSWER);
				cap *= 2;
				buf = realloc(buf, cap);
				fuzz_assert(buf, "no memory");
			}
			r = recv(sv[0], buf + n, cap - n, 0);
			if (r > 0) {
				n += r;
				progress = true;
				continue;
			}
			if (r == 0 || (r < 0 && errno != EAGAIN))
				eof = true;
			break;
		}
		idle = progress ? 0 : idle + 1;
		fuzz_assert(eof || idle < MAX_IDLE_ROUNDS,
			    "the connection hangs after %zu of %zu bytes (%zu answered)",
			    sent, size, n);
	}
	close(sv[0]);
	/* Let libmicrohttpd clean the connection up before the next input. */
	for (idle = 0; connections() && idle < MAX_IDLE_ROUNDS; idle++)
		MHD_run(http.mhd);
	fuzz_assert(!connections(), "a connection outlives its client");

	check_answers(buf, n, data, size);
	free(buf);
	return 0;
}
