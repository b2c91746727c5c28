// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_exporter --journal (kpx_journal.c) without journald: the
 * MESSAGE_ID derivation against values computed apart (docs/journal.md's
 * Python), a record's journal fields, and the writer against a journal
 * socket of this test's own, in a private mount namespace over
 * /run/systemd/journal, that nobody reads at first: the socket fills, the
 * writer blocks in sd_journal_sendv(), yet every kpx_journal_add() returns
 * at once, the records past the queue are counted lost (queue_full), and
 * once the socket is read again every queued record arrives, whole.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "kpc_journal.h"
#include "kpx_journal.h"
#include "kpx_replay.h"
#include "test_kpc_tap.h"
#include "test_kpx_entry.h"

static const char rec_json[] =
	"{\"seq\":7,\"source\":\"kprint\",\"level\":\"err\",\"level_num\":3,\"facility\":0,"
	"\"class\":\"detected\","
	"\"ts_mono_ns\":1,\"ts_real_ns\":2,\"cpu\":3,\"pid\":4,\"comm\":\"c\","
	"\"file\":\"f.c\",\"line\":5,\"function\":\"fn\",\"subsystem\":\"sub\",\"device\":\"\","
	"\"module\":\"usb_storage\",\"format\":\"%s\",\"format_id\":\"07b53d07b4815e69\","
	"\"args\":[\"line\\nbreak\"],\"text\":\"line\\nbreak\",\"block_id\":0,\"flags\":0,"
	"\"continues\":0}";

static const char printk_json[] =
	"{\"seq\":8,\"source\":\"printk\",\"level\":\"info\",\"level_num\":6,\"facility\":1,"
	"\"class\":\"none\",\"ts_mono_ns\":1,\"ts_real_ns\":2,\"cpu\":1,\"pid\":0,"
	"\"comm\":\"swapper/1\",\"file\":\"\",\"line\":0,\"function\":\"\",\"subsystem\":\"\","
	"\"device\":\"+usb:1-1\",\"module\":\"\",\"format\":\"up\",\"format_id\":\"0000000000000001\","
	"\"args\":[],\"text\":\"up\",\"block_id\":0,\"flags\":0,\"continues\":0}";

static struct kpc_record *record(const char *json)
{
	struct kpx_replay_line l = { 0 };
	char err[160];

	if (kpx_replay_parse(json, strlen(json), &l, err, sizeof(err)) != 1) {
		printf("# %s\n", err);
		return NULL;
	}
	return l.rec;
}

static void test_message_id(void)
{
	/* Computed with the Python of docs/journal.md. */
	static const struct { const char *fmt, *module, *id; } v[] = {
		{ "%s", "usb_storage", "a5bd0686b44a9e014af3449646f13079" },
		{ "%s", "e1000e", "ab5a6e4520c770efd306621988e9c536" },
		{ "%s", "", "30264a4671c91c615fc62883c1e8afc7" },
		{ "kprint_test flood %u", "kprint_test", "10c20b6238189270c533b42f2f5bd9f5" },
	};
	char id[KPC_MESSAGE_ID_LEN + 1];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		kpc_message_id(kpc_format_id(v[i].fmt), v[i].module, id);
		tap_ok(!strcmp(id, v[i].id), "MESSAGE_ID of \"%s\" of module \"%s\": %s",
		       v[i].fmt, v[i].module, id);
	}
	kpc_message_id(kpc_format_id("%s"), NULL, id);
	tap_ok(!strcmp(id, v[2].id), "no module is the empty module");
}

static void test_fields(void)
{
	struct kpx_journal_entry e = { 0 };
	struct kpc_record *rec = record(rec_json), *pr = record(printk_json);
	int found = 0;
	bool ok;

	if (!tap_ok(rec && pr, "the test records parse"))
		return;
	tap_ok(!kpx_journal_entry_build(&e, rec), "a record's fields are built");
	ok = field_is(&e, "MESSAGE", "line\nbreak") && field_is(&e, "PRIORITY", "3") &&
	     field_is(&e, "SYSLOG_FACILITY", "0") && field_is(&e, "SYSLOG_IDENTIFIER", "kprint") &&
	     field_is(&e, "MESSAGE_ID", "a5bd0686b44a9e014af3449646f13079") &&
	     field_is(&e, "CODE_FILE", "f.c") && field_is(&e, "CODE_LINE", "5") &&
	     field_is(&e, "CODE_FUNC", "fn") && field_is(&e, "KPRINT_FORMAT", "%s") &&
	     field_is(&e, "KPRINT_FORMAT_ID", "07b53d07b4815e69") &&
	     field_is(&e, "KPRINT_ARG_0", "line\nbreak") && !field(&e, "KPRINT_ARG_1") &&
	     field_is(&e, "KPRINT_SEQ", "7") && field_is(&e, "KPRINT_SUBSYSTEM", "sub") &&
	     field_is(&e, "KPRINT_MODULE", "usb_storage") &&
	     field_is(&e, "KPRINT_DEVICE", "") && field_is(&e, "KPRINT_SOURCE", "kprint") &&
	     field_is(&e, "KPRINT_TS_MONO_NS", "1") && field_is(&e, "KPRINT_TS_REAL_NS", "2") &&
	     field_is(&e, "KPRINT_LEVEL", "err") && field_is(&e, "KPRINT_CLASS", "detected");
	tap_ok(ok, "every field as the record has it, a newline in MESSAGE and an arg kept");

	tap_ok(!kpx_journal_entry_build(&e, pr), "a bridged printk record's fields are built");
	ok = !field(&e, "CODE_FILE") && !field(&e, "CODE_LINE") && !field(&e, "CODE_FUNC") &&
	     field_is(&e, "KPRINT_SOURCE", "printk") && field_is(&e, "SYSLOG_FACILITY", "1") &&
	     field_is(&e, "KPRINT_MODULE", "") && field_is(&e, "KPRINT_DEVICE", "+usb:1-1") &&
	     !field(&e, "KPRINT_ARG_0");
	tap_ok(ok, "no CODE_ fields without a place, the KPRINT_ ones even when empty, the device");

	/* printk("xxx%cyyy", '\0'): journald takes the byte as it is. */
	pr->text = "xxx\0yyy";
	pr->text_len = 7;
	pr->args[0] = "";
	pr->arg_len[0] = 1;
	pr->nargs = 1;
	tap_ok(!kpx_journal_entry_build(&e, pr), "a record with a NUL in its text is built");
	for (unsigned int i = 0; i < e.n; i++) {
		const char *f = e.iov[i].iov_base;
		size_t len = e.iov[i].iov_len;

		if (len == sizeof("MESSAGE=xxx\0yyy") - 1 && !memcmp(f, "MESSAGE=xxx\0yyy", len))
			found++;
		if (len == sizeof("KPRINT_ARG_0=\0") - 1 && !memcmp(f, "KPRINT_ARG_0=\0", len))
			found++;
	}
	tap_ok(found == 2,
	       "MESSAGE holds the NUL and the bytes after it, and the arg its NUL");
	kpx_journal_entry_fini(&e);
	kpc_record_free(rec);
	kpc_record_free(pr);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A journal socket of our own where sd_journal_sendv() looks: -errno, or the fd. */
static int fake_journald(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX,
				  .sun_path = "/run/systemd/journal/socket" };
	int fd, small = 4096;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755"))
		return -errno;
	if (mkdir("/run/systemd", 0755) || mkdir("/run/systemd/journal", 0755))
		return -errno;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Small, so that it fills after a few entries. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Read what is there; count datagrams, and those with the fields wanted. */
static void drain(int fd, unsigned int *got, unsigned int *whole)
{
	static char buf[65536];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
		buf[n] = '\0';
		(*got)++;
		if (memmem(buf, n, "\nKPRINT_SEQ=", 12) && memmem(buf, n, "MESSAGE_ID=", 11) &&
		    memmem(buf, n, "\nKPRINT_FORMAT_ID=07b53d07b4815e69\n", 35))
			(*whole)++;
	}
}

static void test_writer(void)
{
	enum { CAP = 64, N = 1000, BATCH = 100 };
	struct kpx_journal j = { 0 };
	struct kpc_record *batch[BATCH];
	unsigned int got = 0, whole = 0;
	double t0, slowest = 0, deadline;
	uint64_t written, full, stuck;
	int fd;

	fd = fake_journald();
	if (fd < 0) {
		tap_skip("the writer against a journal socket of our own: %s (needs root)",
			 strerror(-fd));
		return;
	}
	tap_ok(!kpx_journal_init(&j, CAP) && !kpx_journal_start(&j),
	       "a writer with a queue of %d records starts", CAP);
	for (int b = 0; b < N / BATCH; b++) {
		for (int i = 0; i < BATCH; i++) {
			batch[i] = record(rec_json);
			if (!batch[i])
				abort();
			batch[i]->seq = b * BATCH + i;
		}
		t0 = now();
		kpx_journal_add(&j, batch, BATCH);
		if (now() - t0 > slowest)
			slowest = now() - t0;
		for (int i = 0; i < BATCH; i++)
			kpc_record_free(batch[i]);
	}
	/* Until the writer is stuck on the full socket: nothing more for 0.3 s. */
	deadline = now() + 10;
	do {
		pthread_mutex_lock(&j.lock);
		stuck = j.written;
		pthread_mutex_unlock(&j.lock);
		usleep(300000);
		pthread_mutex_lock(&j.lock);
		written = j.written;
		full = j.lost[KPX_JOURNAL_LOST_QUEUE_FULL];
		pthread_mutex_unlock(&j.lock);
	} while (written != stuck && now() < deadline);
	tap_ok(slowest < 0.5, "no kpx_journal_add() waited on the full socket (slowest %.3f s)",
	       slowest);
	tap_ok(written < N && full > 0 && j.queued + full == N,
	       "with journald not reading: %" PRIu64 " written, %" PRIu64 " queued, %" PRIu64
	       " lost as queue_full, of %d", written, j.queued, full, N);

	/* journald reads again: everything queued arrives. */
	deadline = now() + 20;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		drain(fd, &got, &whole);
		pthread_mutex_lock(&j.lock);
		written = j.written;
		pthread_mutex_unlock(&j.lock);
		if ((written == j.queued && got == written) || now() > deadline)
			break;
		poll(&p, 1, 100);
	}
	tap_ok(written == j.queued && got == written && whole == got,
	       "once read again, every queued record arrives with its fields: %u of %" PRIu64,
	       whole, j.queued);
	kpx_journal_stop(&j);
	tap_ok(j.lost[KPX_JOURNAL_LOST_SEND_FAILED] == 0 && j.lost[KPX_JOURNAL_LOST_STOPPED] == 0,
	       "none failed, none left at the stop");

	/* A stop while journald takes nothing: it ends, and says what it left. */
	memset(&j, 0, sizeof(j));
	tap_ok(!kpx_journal_init(&j, CAP) && !kpx_journal_start(&j), "a second writer starts");
	j.drain_ms = 200;
	for (int i = 0; i < BATCH; i++) {
		batch[i] = record(rec_json);
		if (!batch[i])
			abort();
	}
	kpx_journal_add(&j, batch, BATCH);
	for (int i = 0; i < BATCH; i++)
		kpc_record_free(batch[i]);
	deadline = now() + 10;
	do {
		usleep(100000);
		pthread_mutex_lock(&j.lock);
		stuck = j.writing;
		pthread_mutex_unlock(&j.lock);
	} while (!stuck && now() < deadline);
	t0 = now();
	kpx_journal_stop(&j);
	tap_ok(now() - t0 < 3, "the stop ends a send journald never takes (%.1f s)", now() - t0);
	tap_ok(j.written + j.lost[KPX_JOURNAL_LOST_STOPPED] == j.queued &&
	       j.lost[KPX_JOURNAL_LOST_STOPPED] > 0,
	       "written %" PRIu64 " + lost as stopped %" PRIu64 " = queued %" PRIu64,
	       j.written, j.lost[KPX_JOURNAL_LOST_STOPPED], j.queued);
	close(fd);
}

int main(void)
{
	test_message_id();
	test_fields();
	test_writer();
	return tap_done();
}
