// SPDX-License-Identifier: GPL-2.0
/*
 * One prefix for every message, so that a journal or a terminal shared
 * with other programs shows whose message it is.  One fprintf() per
 * message: stderr is unbuffered, and threads log at the same time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kpx_log.h"

#define KPX_LOG_PREFIX	"kprint_exporter: "

void kpx_vlog(const char *fmt, va_list ap)
{
	char *text = NULL;

	if (vasprintf(&text, fmt, ap) < 0) {
		fputs(KPX_LOG_PREFIX "(out of memory for a message)\n", stderr);
		return;
	}
	fprintf(stderr, KPX_LOG_PREFIX "%s", text);
	free(text);
}

void kpx_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kpx_vlog(fmt, ap);
	va_end(ap);
}
