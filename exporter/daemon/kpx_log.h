/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's messages on standard error, each "kprint_exporter: "
 * and the text (kpx_log.c).  Callers end the text with its newline.
 */
#ifndef KPX_LOG_H
#define KPX_LOG_H

#include <stdarg.h>

void kpx_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kpx_vlog(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif /* KPX_LOG_H */
