// SPDX-License-Identifier: GPL-2.0
/*
 * The module's counters in /metrics: kprint_kernel_up, then one family per
 * counter the spec gives a metric (schema/kprint.yaml; the table,
 * kpx_stats_metrics[], is generated), read from the stats reply at each
 * scrape.
 *
 * The families of a line of `kprint stats` (the bridge's, the ratelimit
 * hook's) are served only when the module sent every counter of the
 * line: a kprint.ko without the bridge has no kprint_bridge_* at all,
 * rather than zeros that would read as "on, nothing lost".
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "kpx_expo.h"
#include "kpx_metrics.h"
#include "kpx_metrics_kernel.h"
#include "kpx_stats_metrics.h"

static uint64_t kpx_stats_metric_value(const struct kpc_stats *st,
				       const struct kpx_stats_metric *m)
{
	const struct kpc_stats_field *f = kpc_stats_field_of(m->attr);
	uint64_t v = f ? kpc_stats_value(st, f) : 0;

	return m->flag ? !!v : v;
}

/* The families of one line (NULL: every family), in the table's order. */
static void kpx_stats_write(struct kpx_expo *e, const struct kpc_stats *st,
			    const char *line)
{
	unsigned int i;

	for (i = 0; i < kpx_stats_nmetrics; i++) {
		const struct kpx_stats_metric *m = &kpx_stats_metrics[i];

		if (line && (!m->line || strcmp(m->line, line)))
			continue;
		if ((st->present & m->needs) != m->needs)
			continue;
		if (m->family) {
			struct kpx_metric_def d = {
				.name = m->family, .type = m->type, .help = m->help,
			};

			kpx_expo_head(e, &d);
		}
		fprintf(e->out, "%s %" PRIu64 "\n", m->sample, kpx_stats_metric_value(st, m));
	}
}

void kpx_metrics_bridge(FILE *out, const struct kpc_stats *st)
{
	struct kpx_expo e = { .out = out, .format = KPX_EXPO_TEXT };

	kpx_stats_write(&e, st, "bridge");
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
	kpx_stats_write(e, &st, NULL);
}
