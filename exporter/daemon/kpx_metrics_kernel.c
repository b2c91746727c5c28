// SPDX-License-Identifier: GPL-2.0
/*
 * The module's counters in /metrics: kprint_kernel_up, the ring's totals,
 * the printk bridge's and the ratelimit hook's families, read from the
 * stats reply at each scrape.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "kpx_expo.h"
#include "kpx_metrics.h"
#include "kpx_metrics_kernel.h"

/*
 * The printk bridge's counters, when the module sends them all: a
 * kprint.ko without the bridge has no such families, rather than zeros
 * that would read as "on, nothing lost".
 */
static void kpx_bridge_write(struct kpx_expo *e, const struct kpc_stats *st)
{
	if (!kpc_stats_has_bridge(st))
		return;
	kpx_expo_single(e, KPX_M_BRIDGE_ENABLED, st->bridge ? 1 : 0);
	kpx_expo_single(e, KPX_M_BRIDGE_RECORDS, st->bridged);
	kpx_expo_single(e, KPX_M_BRIDGE_SKIPPED, st->bridge_skipped);
	kpx_expo_metric_head(e, KPX_M_BRIDGE_DROPPED);
	kpx_expo_sample1(e->out, KPX_M_BRIDGE_DROPPED, "reason", "nmi", st->bridge_dropped_nmi);
	kpx_expo_sample1(e->out, KPX_M_BRIDGE_DROPPED, "reason", "recursion",
			 st->bridge_dropped_recursion);
	kpx_expo_sample1(e->out, KPX_M_BRIDGE_DROPPED, "reason", "scratch",
			 st->bridge_dropped_scratch);
	kpx_expo_sample1(e->out, KPX_M_BRIDGE_DROPPED, "reason", "missed", st->bridge_missed);
	kpx_expo_single(e, KPX_M_BRIDGE_BACKLOG, st->bridge_backlog);
}

void kpx_metrics_bridge(FILE *out, const struct kpc_stats *st)
{
	struct kpx_expo e = { .out = out, .format = KPX_EXPO_TEXT };

	kpx_bridge_write(&e, st);
}

/*
 * The ratelimit hook's counters (kprint.ko's kretprobe on ___ratelimit(),
 * which feeds kprint_ratelimit_suppressed_total on kernels where BPF cannot
 * probe it), from the stats reply.  A table of their own, outside
 * kpx_metric_defs and its enum in kpx_expo.h.
 */
static const struct kpx_metric_def kpx_rl_hook_defs[] = {
	{ "kprint_ratelimit_hook_enabled", "gauge",
	  "Whether kprint.ko's kretprobe on ___ratelimit() is registered (1), so that "
	  "kprint_ratelimit_suppressed_total counts through kprint:kprint_trace_ratelimit, "
	  "or not (0: ratelimit=0, or the kernel refused the probe)." },
	{ "kprint_ratelimit_hook_queued_total", "counter",
	  "Calls ___ratelimit() refused that kprint.ko's kretprobe queued for "
	  "kprint_trace_ratelimit() since kprint.ko was loaded." },
	{ "kprint_ratelimit_hook_traced_total", "counter",
	  "Queued refused calls handed to kprint_trace_ratelimit() (where BPF counts them)." },
	{ "kprint_ratelimit_hook_lost_total", "counter",
	  "Calls ___ratelimit() refused that found their CPU's queue full: never counted by BPF." },
	{ "kprint_ratelimit_hook_missed_total", "counter",
	  "___ratelimit() calls the kretprobe missed (its nmissed): not seen at all." },
};

static void kpx_rl_hook(struct kpx_expo *e, unsigned int i, uint64_t v)
{
	const struct kpx_metric_def *d = &kpx_rl_hook_defs[i];

	kpx_expo_head(e, d);
	fprintf(e->out, "%s %" PRIu64 "\n", d->name, v);
}

/*
 * Only when the module sends them all: a kprint.ko without the hook has no
 * such families, rather than zeros that would read as "on, nothing lost".
 */
static void kpx_metrics_ratelimit_hook(struct kpx_expo *e, const struct kpc_stats *st)
{
	if (!kpc_stats_has_ratelimit(st))
		return;
	kpx_rl_hook(e, 0, st->ratelimit ? 1 : 0);
	kpx_rl_hook(e, 1, st->ratelimit_queued);
	kpx_rl_hook(e, 2, st->ratelimit_traced);
	kpx_rl_hook(e, 3, st->ratelimit_lost);
	kpx_rl_hook(e, 4, st->ratelimit_missed);
}

void kpx_metrics_kernel(struct kpx_expo *e, struct kpx_metrics *m)
{
	struct kpc_stats st;
	int err = -ENOTCONN;

	if (m->ctl)
		err = kpc_stats_get(m->ctl, &st);
	if (err == -ENOENT && !kpc_sock_rebind(m->ctl))
		/*
		 * kprint.ko was reloaded: a new family id.  The socket is
		 * kept, not reopened, since the kernel checks CAP_SYSLOG
		 * against its opener and we run without it by now.
		 */
		err = kpc_stats_get(m->ctl, &st);
	if (err) {
		fprintf(stderr, "kprint_exporter: reading the module's counters: %s\n",
			strerror(-err));
	}
	kpx_expo_single(e, KPX_M_KERNEL_UP, err ? 0 : 1);
	if (err)
		return;
	kpx_expo_single(e, KPX_M_KERNEL_RECORDS, st.records);
	kpx_expo_single(e, KPX_M_KERNEL_OVERWRITTEN, st.overwritten);
	kpx_bridge_write(e, &st);
	kpx_metrics_ratelimit_hook(e, &st);
}
