/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's families of the module's counters.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */
#ifndef KPX_STATS_METRICS_H
#define KPX_STATS_METRICS_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct kpx_stats_metric - one sample of /metrics from a module counter
 * @family: the family's name in HELP and TYPE, where a family begins;
 *	NULL for a further sample of the family above
 * @type: "counter" or "gauge"
 * @help: the family's HELP
 * @sample: the sample's name, with its labels
 * @attr: the counter (KPRINT_STATS_A_*)
 * @line: the `kprint stats` line it is shown on, NULL for a line of its own
 * @needs: counters the kernel must all send for the family to be served,
 *	1 << attr each (a line's); 0: always served
 * @flag: 1 when the counter is non-zero, 0 otherwise
 */
struct kpx_stats_metric {
	const char *family;
	const char *type;
	const char *help;
	const char *sample;
	int attr;
	const char *line;
	uint32_t needs;
	bool flag;
};

/* In /metrics order: the counters alone, then the lines', in their order. */
extern const struct kpx_stats_metric kpx_stats_metrics[];
extern const unsigned int kpx_stats_nmetrics;

#endif /* KPX_STATS_METRICS_H */
