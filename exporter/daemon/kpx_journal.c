// SPDX-License-Identifier: GPL-2.0
/*
 * --journal: every record into the systemd journal, with its fields as
 * journal fields (docs/journal.md has the list and why each is there), and
 * after a record that is a kernel problem one more entry per problem, with
 * the problem catalog's MESSAGE_ID (kprint_exporter(8), PROBLEMS).
 *
 * Why a queue and a thread of its own: sd_journal_sendv() writes to
 * journald's datagram socket and blocks when journald is behind and the
 * socket's queue is full.  The ingest thread must never wait for that (the
 * kernel's multicast would overrun, and /records, /events and the counters
 * would stall with it), so it only copies each record into a bounded
 * queue, under one lock per batch, and this file's writer thread is the
 * only one that ever blocks on journald.  A full queue drops the record
 * and counts it (kprint_exporter_journal_records_lost_total{reason=
 * "queue_full"}); back-pressure shows before that, as the queue's length
 * and high-water mark and the seconds the writer spent in
 * sd_journal_sendv() (kprint_exporter_journal_send_seconds_total), so an
 * alert can fire while nothing is lost yet.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

/* Else sd_journal_sendv() adds CODE_FILE, CODE_LINE and CODE_FUNC of its caller, ours. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "kpc_journal.h"
#include "kpx_expo.h"
#include "kpx_journal.h"
#include "kpx_problems.h"

/* Records the writer takes off the queue per lock. */
#define KPX_JOURNAL_BATCH	64
/* On stop, how long the writer may go on emptying the queue. */
#define KPX_JOURNAL_DRAIN_MS	5000

const char *const kpx_journal_lost_names[KPX_JOURNAL_NR_LOST] = {
	[KPX_JOURNAL_LOST_QUEUE_FULL] = "queue_full",
	[KPX_JOURNAL_LOST_NOMEM] = "nomem",
	[KPX_JOURNAL_LOST_SEND_FAILED] = "send_failed",
	[KPX_JOURNAL_LOST_STOPPED] = "stopped",
};

static uint64_t kpx_journal_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* One "NAME=value" more in e's buffer; its place is fixed up at the end. */
static int kpx_entry_add(struct kpx_journal_entry *e, const char *name, const char *value,
			 size_t len)
{
	size_t nlen = strlen(name), need = nlen + 1 + len;

	if (e->n == KPX_JOURNAL_FIELDS_MAX)
		return -E2BIG;
	if (e->len + need > e->cap) {
		size_t cap = e->cap ? e->cap : 1024;
		char *buf;

		while (cap < e->len + need)
			cap *= 2;
		buf = realloc(e->buf, cap);
		if (!buf)
			return -ENOMEM;
		e->buf = buf;
		e->cap = cap;
	}
	memcpy(e->buf + e->len, name, nlen);
	e->buf[e->len + nlen] = '=';
	memcpy(e->buf + e->len + nlen + 1, value, len);
	e->off[e->n] = e->len;
	e->iov[e->n].iov_len = need;
	e->n++;
	e->len += need;
	return 0;
}

static int kpx_entry_str(struct kpx_journal_entry *e, const char *name, const char *value)
{
	return kpx_entry_add(e, name, value, strlen(value));
}

__attribute__((format(printf, 3, 4)))
static int kpx_entry_fmt(struct kpx_journal_entry *e, const char *name, const char *fmt, ...)
{
	char v[64];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	return kpx_entry_add(e, name, v, len);
}

int kpx_journal_entry_build(struct kpx_journal_entry *e, const struct kpc_record *rec)
{
	char id[KPC_MESSAGE_ID_LEN + 1], name[sizeof("KPRINT_ARG_") + 3];
	const char *class = kpc_class_name(rec->class), *source = kpc_source_name(rec->source);
	int err = 0;

	e->n = e->len = 0;
	kpc_message_id(rec->format_id, rec->module, id);
	/* journald's native protocol takes binary values: a NUL stays a NUL. */
	err |= kpx_entry_add(e, "MESSAGE", rec->text, kpc_record_text_len(rec));
	/* kprint's levels are syslog's priorities, emerg 0 to debug 7. */
	err |= kpx_entry_fmt(e, "PRIORITY", "%u", rec->level);
	err |= kpx_entry_fmt(e, "SYSLOG_FACILITY", "%u", rec->facility);
	err |= kpx_entry_str(e, "SYSLOG_IDENTIFIER", KPX_JOURNAL_IDENTIFIER);
	err |= kpx_entry_str(e, "MESSAGE_ID", id);
	/* As journald's own: no CODE_ fields where the record has no place. */
	if (*rec->file) {
		err |= kpx_entry_str(e, "CODE_FILE", rec->file);
		err |= kpx_entry_fmt(e, "CODE_LINE", "%u", rec->line);
	}
	if (*rec->function)
		err |= kpx_entry_str(e, "CODE_FUNC", rec->function);
	err |= kpx_entry_str(e, "KPRINT_FORMAT", rec->format);
	err |= kpx_entry_fmt(e, "KPRINT_FORMAT_ID", "%016" PRIx64, rec->format_id);
	for (unsigned int i = 0; i < rec->nargs && i < KPRINT_ARGS_MAX; i++) {
		snprintf(name, sizeof(name), "KPRINT_ARG_%u", i);
		err |= kpx_entry_add(e, name, rec->args[i], kpc_record_arg_len(rec, i));
	}
	err |= kpx_entry_fmt(e, "KPRINT_SEQ", "%" PRIu64, rec->seq);
	/* Every KPRINT_ field always, empty or not: a query need not ask for both. */
	err |= kpx_entry_str(e, "KPRINT_SUBSYSTEM", rec->subsystem);
	err |= kpx_entry_str(e, "KPRINT_MODULE", rec->module);
	err |= kpx_entry_str(e, "KPRINT_DEVICE", rec->device);
	err |= kpx_entry_str(e, "KPRINT_SOURCE", source ? source : "unknown");
	err |= kpx_entry_str(e, "KPRINT_LEVEL", kpc_level_name(rec->level) ?: "unknown");
	err |= kpx_entry_str(e, "KPRINT_CLASS", class ? class : "unknown");
	err |= kpx_entry_fmt(e, "KPRINT_TS_MONO_NS", "%" PRIu64, rec->ts_mono_ns);
	err |= kpx_entry_fmt(e, "KPRINT_TS_REAL_NS", "%" PRIu64, rec->ts_real_ns);
	err |= kpx_entry_fmt(e, "KPRINT_CPU", "%u", rec->cpu);
	err |= kpx_entry_fmt(e, "KPRINT_PID", "%u", rec->pid);
	err |= kpx_entry_str(e, "KPRINT_COMM", rec->comm);
	err |= kpx_entry_fmt(e, "KPRINT_FLAGS", "%u", rec->flags);
	if (rec->block_id)
		err |= kpx_entry_fmt(e, "KPRINT_BLOCK_ID", "%" PRIu64, rec->block_id);
	if (err)
		return err == -E2BIG ? -E2BIG : -ENOMEM;
	/* The buffer has its final place now. */
	for (unsigned int i = 0; i < e->n; i++)
		e->iov[i].iov_base = e->buf + e->off[i];
	return 0;
}

/* KPRINT_PROBLEM_<NAME>: a catalog name as a journal field name. */
static int kpx_entry_problem_field(struct kpx_journal_entry *e, const char *name,
				   const char *value)
{
	char field[64] = "KPRINT_PROBLEM_";
	size_t len = strlen(field);

	for (const char *p = name; *p && len < sizeof(field) - 1; p++)
		field[len++] = (*p >= 'a' && *p <= 'z') ? *p - 'a' + 'A' :
			       ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_';
	field[len] = '\0';
	return kpx_entry_str(e, field, value);
}

int kpx_journal_problem_build(struct kpx_journal_entry *e, const struct kpc_record *rec,
			      const struct kpc_problem_hit *hit)
{
	const struct kpc_problem_rule *r = hit->rule;
	size_t nlen = strlen(r->name), tlen = kpc_record_text_len(rec);
	char *msg = malloc(nlen + 2 + tlen);
	int err = 0;

	if (!msg)
		return -ENOMEM;
	memcpy(msg, r->name, nlen);
	memcpy(msg + nlen, ": ", 2);
	memcpy(msg + nlen + 2, rec->text, tlen);
	e->n = e->len = 0;
	err |= kpx_entry_add(e, "MESSAGE", msg, nlen + 2 + tlen);
	free(msg);
	err |= kpx_entry_fmt(e, "PRIORITY", "%u", rec->level);
	err |= kpx_entry_fmt(e, "SYSLOG_FACILITY", "%u", rec->facility);
	err |= kpx_entry_str(e, "SYSLOG_IDENTIFIER", KPX_JOURNAL_IDENTIFIER);
	/* A node-problem-detector rule's hit has no catalog entry to point to. */
	if (r->message_id)
		err |= kpx_entry_str(e, "MESSAGE_ID", r->message_id);
	err |= kpx_entry_str(e, "KPRINT_PROBLEM", r->name);
	if (r->npd)
		err |= kpx_entry_str(e, "KPRINT_PROBLEM_NPD", r->npd);
	err |= kpx_entry_str(e, "KPRINT_PROBLEM_KIND",
			     r->kind == KPC_PROBLEM_CONDITION ? "condition" : "event");
	if (r->kind == KPC_PROBLEM_CONDITION && r->condition)
		err |= kpx_entry_str(e, "KPRINT_PROBLEM_CONDITION", r->condition);
	for (unsigned int l = 0; l < r->nlabels; l++)
		err |= kpx_entry_problem_field(e, r->labels[l], hit->labels[l]);
	for (unsigned int a = 0; a < hit->nattrs; a++)
		err |= kpx_entry_problem_field(e, hit->attr_names[a], hit->attrs[a]);
	/* The record it is, and where the journal left off when it is the last entry. */
	err |= kpx_entry_fmt(e, "KPRINT_FORMAT_ID", "%016" PRIx64, rec->format_id);
	err |= kpx_entry_fmt(e, "KPRINT_SEQ", "%" PRIu64, rec->seq);
	err |= kpx_entry_fmt(e, "KPRINT_TS_MONO_NS", "%" PRIu64, rec->ts_mono_ns);
	err |= kpx_entry_fmt(e, "KPRINT_TS_REAL_NS", "%" PRIu64, rec->ts_real_ns);
	if (err)
		return err == -E2BIG ? -E2BIG : -ENOMEM;
	for (unsigned int i = 0; i < e->n; i++)
		e->iov[i].iov_base = e->buf + e->off[i];
	return 0;
}

void kpx_journal_entry_fini(struct kpx_journal_entry *e)
{
	free(e->buf);
	e->buf = NULL;
	e->cap = e->len = e->n = 0;
}

int kpx_journal_init(struct kpx_journal *j, size_t cap)
{
	j->q = calloc(cap, sizeof(*j->q));
	if (!j->q)
		return -ENOMEM;
	j->cap = cap;
	j->head = j->n = 0;
	j->drain_ms = KPX_JOURNAL_DRAIN_MS;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	/* systemd sets it for a unit with LogNamespace= (systemd.exec(5)). */
	j->ns = getenv("LOG_NAMESPACE");
	if (j->ns && !*j->ns)
		j->ns = NULL;
	j->ready = true;
	return 0;
}

/* A field's value as a number; -EINVAL when it is not there or not one. */
static int kpx_journal_u64(sd_journal *sj, const char *name, uint64_t *v)
{
	const void *data;
	size_t len, n = strlen(name);
	char buf[24];

	if (sd_journal_get_data(sj, name, &data, &len) < 0 || len <= n + 1 ||
	    len - n - 1 >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, (const char *)data + n + 1, len - n - 1);
	buf[len - n - 1] = '\0';
	return kpc_parse_u64(buf, 10, UINT64_MAX, v);
}

/*
 * No _BOOT_ID match: the unit's ProcSubset=pid hides /proc/sys, where
 * sd_id128_get_boot() reads it.  Nor is it needed: a record is known by
 * its seq and both its clocks, which no record of another boot or another
 * kprint.ko instance repeats.
 */
int kpx_journal_resume(struct kpx_journal *j)
{
	sd_journal *sj;
	int err;

	err = j->ns ? sd_journal_open_namespace(&sj, j->ns, SD_JOURNAL_LOCAL_ONLY) :
		      sd_journal_open(&sj, SD_JOURNAL_LOCAL_ONLY);
	if (err < 0)
		return err;
	err = sd_journal_add_match(sj, "SYSLOG_IDENTIFIER=" KPX_JOURNAL_IDENTIFIER, 0);
	if (!err)
		err = sd_journal_seek_tail(sj);
	if (!err)
		err = sd_journal_previous(sj);
	/* 0: no entry of ours at all. */
	if (err > 0 && !kpx_journal_u64(sj, "KPRINT_SEQ", &j->resume_seq) &&
	    !kpx_journal_u64(sj, "KPRINT_TS_MONO_NS", &j->resume_mono_ns) &&
	    !kpx_journal_u64(sj, "KPRINT_TS_REAL_NS", &j->resume_real_ns))
		j->resume_found = true;
	sd_journal_close(sj);
	j->resume_known = err >= 0;
	return err < 0 ? err : 0;
}

void kpx_journal_add_ring(struct kpx_journal *j, struct kpc_record *const *recs,
			  struct kpx_hits *const *hits, size_t n)
{
	size_t from = 0, i;

	if (!j || !j->ready || !j->resume_known)
		return;
	/*
	 * The journal's last record still in the ring: those after it.  Else
	 * the ring holds none the journal has: the last one is of another
	 * boot or kprint.ko instance, or the ring moved past it (what it
	 * overwrote meanwhile is gone, as for /records).
	 */
	for (i = 0; j->resume_found && i < n; i++)
		if (recs[i]->seq == j->resume_seq && recs[i]->ts_mono_ns == j->resume_mono_ns &&
		    recs[i]->ts_real_ns == j->resume_real_ns) {
			from = i + 1;
			break;
		}
	j->resumed = n - from;
	kpx_journal_add_hits(j, recs + from, hits ? hits + from : NULL, n - from);
}

void kpx_journal_add(struct kpx_journal *j, struct kpc_record *const *recs, size_t n)
{
	kpx_journal_add_hits(j, recs, NULL, n);
}

/* A copy of a record's hits for the queue, without their /events text. */
static struct kpx_hits *kpx_journal_hits_dup(const struct kpx_hits *h)
{
	struct kpx_hits *copy;

	if (!h || !h->n)
		return NULL;
	copy = malloc(sizeof(*copy));
	if (copy) {
		*copy = *h;
		copy->events = NULL;
	}
	return copy;
}

static void kpx_journal_item_free(struct kpx_journal_item *it)
{
	kpc_record_free(it->rec);
	kpx_hits_free(it->hits);
	it->rec = NULL;
	it->hits = NULL;
}

void kpx_journal_add_hits(struct kpx_journal *j, struct kpc_record *const *recs,
			  struct kpx_hits *const *hits, size_t n)
{
	bool added = false;

	if (!j || !j->ready || !n)
		return;
	pthread_mutex_lock(&j->lock);
	for (size_t i = 0; i < n; i++) {
		struct kpc_record *copy;
		struct kpx_journal_item *it;

		if (j->n == j->cap) {
			j->lost[KPX_JOURNAL_LOST_QUEUE_FULL]++;
			continue;
		}
		copy = kpc_record_dup(recs[i]);
		if (!copy) {
			j->lost[KPX_JOURNAL_LOST_NOMEM]++;
			continue;
		}
		it = &j->q[(j->head + j->n) % j->cap];
		it->rec = copy;
		/* Without memory for them, the record's own entry still goes. */
		it->hits = kpx_journal_hits_dup(hits ? hits[i] : NULL);
		j->n++;
		j->queued++;
		added = true;
	}
	if (j->n > j->high_water)
		j->high_water = j->n;
	if (added)
		pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
}

/* One entry to journald: the only place the writer may be cancelled. */
static int kpx_journal_send(struct kpx_journal_entry *e, uint64_t *spent)
{
	uint64_t t0 = kpx_journal_now_ns();
	int err, was;

	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &was);
	err = sd_journal_sendv(e->iov, e->n);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &was);
	*spent += kpx_journal_now_ns() - t0;
	return err;
}

static void *kpx_journal_main(void *arg)
{
	struct kpx_journal *j = arg;
	struct kpx_journal_entry e = { 0 };
	struct kpx_journal_item batch[KPX_JOURNAL_BATCH];
	uint64_t deadline = 0, spent;
	size_t k, i;
	int err, last_err = 0;

	/*
	 * Cancellable only inside sd_journal_sendv() (sendmsg() is a
	 * cancellation point), where kpx_journal_stop() may have to end a
	 * send that journald never takes: never with the lock held.
	 */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	for (;;) {
		pthread_mutex_lock(&j->lock);
		while (!j->n && !j->stop)
			pthread_cond_wait(&j->cond, &j->lock);
		if (j->stop && !deadline)
			deadline = kpx_journal_now_ns() + j->drain_ms * 1000000ull;
		if (!j->n || (deadline && kpx_journal_now_ns() > deadline)) {
			/* Stopping: what journald did not take in time is lost, and said. */
			while (j->n) {
				kpx_journal_item_free(&j->q[j->head]);
				j->head = (j->head + 1) % j->cap;
				j->n--;
				j->lost[KPX_JOURNAL_LOST_STOPPED]++;
			}
			pthread_mutex_unlock(&j->lock);
			break;
		}
		for (k = 0; k < KPX_JOURNAL_BATCH && j->n; k++) {
			batch[k] = j->q[j->head];
			j->q[j->head] = (struct kpx_journal_item){ NULL, NULL };
			j->head = (j->head + 1) % j->cap;
			j->n--;
		}
		j->writing = k;
		pthread_mutex_unlock(&j->lock);

		for (i = 0; i < k; i++) {
			spent = 0;
			err = kpx_journal_entry_build(&e, batch[i].rec);
			if (!err)
				err = kpx_journal_send(&e, &spent);
			/* Its problems after it: one entry each, the record's loss alone counted. */
			for (unsigned int h = 0; !err && batch[i].hits && h < batch[i].hits->n; h++)
				if (!kpx_journal_problem_build(&e, batch[i].rec, &batch[i].hits->hit[h]))
					kpx_journal_send(&e, &spent);
			kpx_journal_item_free(&batch[i]);
			/* Counted as each is sent: a scrape sees the burst go. */
			pthread_mutex_lock(&j->lock);
			if (err)
				j->lost[KPX_JOURNAL_LOST_SEND_FAILED]++;
			else
				j->written++;
			j->send_ns += spent;
			j->writing--;
			pthread_mutex_unlock(&j->lock);
			/* Once per kind of failure, not per record. */
			if (err && err != last_err)
				fprintf(stderr, "kprint_exporter: --journal: a record not written: %s\n",
					strerror(-err));
			if (err)
				last_err = err;
		}
	}
	kpx_journal_entry_fini(&e);
	return NULL;
}

int kpx_journal_start(struct kpx_journal *j)
{
	int err = -pthread_create(&j->thread, NULL, kpx_journal_main, j);

	j->running = !err;
	return err;
}

void kpx_journal_stop(struct kpx_journal *j)
{
	if (!j->ready)
		return;
	if (j->running) {
		struct timespec until;

		pthread_mutex_lock(&j->lock);
		j->stop = true;
		pthread_cond_signal(&j->cond);
		pthread_mutex_unlock(&j->lock);
		/*
		 * The writer gives up on the queue after KPX_JOURNAL_DRAIN_MS;
		 * a send journald still does not take a second later is ended,
		 * and its batch counted lost with the rest.
		 */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += j->drain_ms / 1000 + 1;
		if (pthread_timedjoin_np(j->thread, NULL, &until)) {
			pthread_cancel(j->thread);
			pthread_join(j->thread, NULL);
			/* The rest of the batch in flight is not freed: we exit anyway. */
			j->lost[KPX_JOURNAL_LOST_STOPPED] += j->n + j->writing;
			fprintf(stderr, "kprint_exporter: --journal: journald took nothing for"
				" %u ms; %zu records not written\n", j->drain_ms,
				j->n + j->writing);
		}
		j->running = false;
	}
	while (j->n) {
		kpx_journal_item_free(&j->q[j->head]);
		j->head = (j->head + 1) % j->cap;
		j->n--;
	}
	free(j->q);
	j->q = NULL;
	pthread_cond_destroy(&j->cond);
	pthread_mutex_destroy(&j->lock);
	j->ready = false;
}

static const struct kpx_metric_def kpx_journal_defs[] = {
	{ "kprint_exporter_journal_info", "gauge",
	  "--journal writes records to the systemd journal (always 1; without --journal "
	  "no kprint_exporter_journal_* family is served); namespace: the journal "
	  "namespace (LogNamespace=), empty for the system journal." },
	{ "kprint_exporter_journal_records_written_total", "counter",
	  "Records journald accepted from --journal." },
	{ "kprint_exporter_journal_records_lost_total", "counter",
	  "Records --journal received but did not write, by reason: queue_full (journald "
	  "fell --journal-queue records behind), nomem, send_failed (journald refused the "
	  "entry), stopped (still queued when the exporter stopped)." },
	{ "kprint_exporter_journal_queue_records", "gauge",
	  "Records waiting for journald now (back-pressure: journald slower than ingest)." },
	{ "kprint_exporter_journal_queue_high_water_records", "gauge",
	  "The most records that ever waited for journald at once." },
	{ "kprint_exporter_journal_queue_capacity_records", "gauge",
	  "Records the queue to journald holds (--journal-queue); past it they are lost." },
	{ "kprint_exporter_journal_send_seconds_total", "counter",
	  "Seconds the journal writer spent in sd_journal_sendv(), waiting on a full "
	  "journal socket included (back-pressure)." },
};

void kpx_journal_metrics(struct kpx_expo *e, struct kpx_journal *j)
{
	uint64_t written, lost[KPX_JOURNAL_NR_LOST], send_ns;
	size_t queued, high, cap;
	const char *ns;

	/* Without --journal, no families: there is nothing to count. */
	if (!j || !j->ready)
		return;
	pthread_mutex_lock(&j->lock);
	written = j->written;
	memcpy(lost, j->lost, sizeof(lost));
	queued = j->n + j->writing;
	high = j->high_water;
	cap = j->cap;
	send_ns = j->send_ns;
	ns = j->ns ? j->ns : "";
	pthread_mutex_unlock(&j->lock);
	kpx_expo_head(e, &kpx_journal_defs[0]);
	fprintf(e->out, "%s{namespace=\"", kpx_journal_defs[0].name);
	kpx_label_escape(e->out, ns);
	fputs("\"} 1\n", e->out);
	kpx_expo_head(e, &kpx_journal_defs[1]);
	fprintf(e->out, "%s %" PRIu64 "\n", kpx_journal_defs[1].name, written);
	kpx_expo_head(e, &kpx_journal_defs[2]);
	for (int r = 0; r < KPX_JOURNAL_NR_LOST; r++)
		fprintf(e->out, "%s{reason=\"%s\"} %" PRIu64 "\n", kpx_journal_defs[2].name,
			kpx_journal_lost_names[r], lost[r]);
	kpx_expo_head(e, &kpx_journal_defs[3]);
	fprintf(e->out, "%s %zu\n", kpx_journal_defs[3].name, queued);
	kpx_expo_head(e, &kpx_journal_defs[4]);
	fprintf(e->out, "%s %zu\n", kpx_journal_defs[4].name, high);
	kpx_expo_head(e, &kpx_journal_defs[5]);
	fprintf(e->out, "%s %zu\n", kpx_journal_defs[5].name, cap);
	kpx_expo_head(e, &kpx_journal_defs[6]);
	fprintf(e->out, "%s %.9f\n", kpx_journal_defs[6].name, send_ns / 1e9);
}
