/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libkpc, the kprint client library: everything a kprint reader needs.
 *
 *	kpc_sock	a generic netlink socket for the kprint family
 *	kpc_record	one record, decoded; level and class names; format ids
 *	kpc_ops		dump, stats, emit
 *	kpc_tracker	sequence tracking and resync decisions (no I/O)
 *	kpc_stream	a live subscriber that resyncs from the ring
 *	kpc_filter	level/class/subsystem/module filters
 *	kpc_json	records and events as JSON
 *	kpc_text	records as dmesg-like lines, colors, safe escaping
 *	kpc_utf8	UTF-8 validation
 *	kpc_bpf		the in-kernel per-format counters (BPF)
 *	kpc_parse	the integer parser every number given to kprint goes through
 *	kpc_caps	the thread's capabilities: read, set, raised around a call
 *	kpc_catalog	PO message catalogs: records translated, POT templates
 *	kpc_catalog_fmt	kernel printf formats as a catalog checks them
 *	kpc_journal	the systemd journal's MESSAGE_ID of a record
 *	kpc_sites	the call-site catalog: every format a kernel can print
 *	kpc_problems	the problem catalog (problems.yaml) and its matcher by
 *			format id; kpc_format_matches() for a %pV's text
 *	kpc_npd		node-problem-detector's rule files: loaded, and
 *			matched on a ring of messages as NPD matches them
 *	kpc_npdcheck	NPD's rules held against a kernel's formats
 *
 * Functions return 0 (or a count) on success and a negative errno on
 * failure.  Nothing is thread-safe: give each thread its own sockets and
 * streams.
 */
#ifndef KPC_H
#define KPC_H

#include "kpc_sock.h"
#include "kpc_record.h"
#include "kpc_ops.h"
#include "kpc_tracker.h"
#include "kpc_stream.h"
#include "kpc_filter.h"
#include "kpc_json.h"
#include "kpc_text.h"
#include "kpc_utf8.h"
#include "kpc_bpf.h"
#include "kpc_parse.h"
#include "kpc_caps.h"
#include "kpc_catalog.h"
#include "kpc_catalog_fmt.h"
#include "kpc_journal.h"
#include "kpc_sites.h"
#include "kpc_sites_diff.h"
#include "kpc_problems.h"
#include "kpc_npd.h"
#include "kpc_npdcheck.h"

#endif /* KPC_H */
