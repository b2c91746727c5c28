/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little the unit tests share: TAP-style result lines ("ok - what",
 * "not ok - what") that tests/run counts, and builders of kprint netlink
 * messages made with libnl, as the kernel would send them.
 */
#ifndef TEST_KPC_TAP_H
#define TEST_KPC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <linux/kprint.h>

static int tap_failures;

__attribute__((format(printf, 2, 3), unused))
static int tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - ", ok ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		tap_failures++;
	return ok;
}

/* A skipped case still passes, and says why. */
__attribute__((format(printf, 1, 2), unused))
static void tap_skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP\n");
}

/*
 * What the statement CALL writes to the stream it names F, as a string
 * the caller frees: tap_capture(f, kpc_text_print(f, &o, &rec)).
 */
#define tap_capture(F, CALL) ({					\
	char *tap_buf_ = NULL;					\
	size_t tap_len_ = 0;					\
	FILE *F = open_memstream(&tap_buf_, &tap_len_);		\
								\
	CALL;							\
	fclose(F);						\
	tap_buf_;						\
})

__attribute__((unused))
static int tap_done(void)
{
	return tap_failures ? 1 : 0;
}

/* Any family id will do: decoding does not look at it. */
#define TEST_FAMILY_ID	0x2a

static inline struct nl_msg *test_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc_size(65536);

	genlmsg_put(msg, 0, 0, TEST_FAMILY_ID, 0, 0, cmd, KPRINT_GENL_VERSION);
	return msg;
}

/*
 * A complete, valid record with two args and every attribute, a bridged
 * printk fragment's (source, device, facility, continues); seq and level
 * vary.
 */
static inline void test_put_record(struct nl_msg *msg, uint64_t seq,
				   unsigned int level)
{
	struct nlattr *nest = nla_nest_start(msg, KPRINT_A_RECORD);

	/* u64s come after a PAD, as nla_put_u64_64bit() lays them out. */
	nla_put(msg, KPRINT_RECORD_A_PAD, 0, NULL);
	nla_put_u64(msg, KPRINT_RECORD_A_SEQ, seq);
	nla_put_u32(msg, KPRINT_RECORD_A_LEVEL, level);
	nla_put_u32(msg, KPRINT_RECORD_A_CLASS, KPRINT_CLASS_DETECTED);
	nla_put_u64(msg, KPRINT_RECORD_A_TS_MONO_NS, 12345678901ULL);
	nla_put_u64(msg, KPRINT_RECORD_A_TS_REAL_NS, 1700000000123456789ULL);
	nla_put_u32(msg, KPRINT_RECORD_A_CPU, 1);
	nla_put_u32(msg, KPRINT_RECORD_A_PID, 4242);
	nla_put_string(msg, KPRINT_RECORD_A_COMM, "insmod");
	nla_put_string(msg, KPRINT_RECORD_A_FILE, "drivers/usb/storage/usb.c");
	nla_put_u32(msg, KPRINT_RECORD_A_LINE, 1234);
	nla_put_string(msg, KPRINT_RECORD_A_FUNCTION, "usb_stor_probe1");
	nla_put_string(msg, KPRINT_RECORD_A_SUBSYSTEM, "usb-storage");
	nla_put_string(msg, KPRINT_RECORD_A_MODULE, "usb_storage");
	nla_put_string(msg, KPRINT_RECORD_A_FORMAT, "cheesy %s drive detected at %d");
	nla_put_u64(msg, KPRINT_RECORD_A_FORMAT_ID, 0x0123456789abcdefULL);
	nla_put_string(msg, KPRINT_RECORD_A_ARG, "flash");
	nla_put_string(msg, KPRINT_RECORD_A_ARG, "12");
	nla_put_string(msg, KPRINT_RECORD_A_TEXT,
		       "cheesy flash drive detected at 12");
	nla_put_u64(msg, KPRINT_RECORD_A_BLOCK_ID, 7);
	nla_put_u32(msg, KPRINT_RECORD_A_FLAGS, KPRINT_RECORD_F_USER | KPRINT_RECORD_F_CONT);
	nla_put_u32(msg, KPRINT_RECORD_A_SOURCE, KPRINT_SOURCE_PRINTK);
	nla_put_string(msg, KPRINT_RECORD_A_DEVICE, "+usb:1-1.2");
	nla_put_u32(msg, KPRINT_RECORD_A_FACILITY, 3);
	nla_put_u64(msg, KPRINT_RECORD_A_CONTINUES, seq ? seq - 1 : 0);
	nla_nest_end(msg, nest);
}

/*
 * The printk bridge's counters as the kernel sends them, each a number of
 * its own (dropped's reasons add up to 12), for the tests of their output.
 * For tests that include kpc.h (struct kpc_stats).
 */
#define test_stats_bridge(st) do {					\
	(st)->bridge = 1;						\
	(st)->bridged = 812;						\
	(st)->bridge_skipped = 3;					\
	(st)->bridge_dropped_nmi = 1;					\
	(st)->bridge_dropped_recursion = 2;				\
	(st)->bridge_dropped_scratch = 4;				\
	(st)->bridge_missed = 5;					\
	(st)->bridge_backlog = 554;					\
	for (int a_ = KPRINT_STATS_A_BRIDGE;				\
	     a_ <= KPRINT_STATS_A_BRIDGE_BACKLOG; a_++)			\
		(st)->present |= 1u << a_;				\
} while (0)

#endif /* TEST_KPC_TAP_H */
