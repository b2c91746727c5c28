/* SPDX-License-Identifier: GPL-2.0 */
/* The module's counters in /metrics (kpx_metrics_kernel.c). */
#ifndef KPX_METRICS_KERNEL_H
#define KPX_METRICS_KERNEL_H

#include "kpx_expo.h"
#include "kpx_metrics.h"

/*
 * kprint_kernel_up and the families of the module's counters, read now;
 * only kprint_kernel_up 0 when the module does not answer.
 */
void kpx_metrics_kernel(struct kpx_expo *e, struct kpx_metrics *m);

#endif /* KPX_METRICS_KERNEL_H */
