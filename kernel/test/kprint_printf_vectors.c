// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: kprint_printf_vectors - the kernel's printf test vectors, through printk
 *
 * lib/test_printf.c of Linux 6.1 checks vsnprintf() against a table of
 * formats, arguments and the strings they must give.  This module makes a
 * printk() of every one of those cases that printk can take with constant
 * arguments, in test_printf.c's order, with test_printf.c's format,
 * arguments and expected string (the same functions, the same data), so
 * that tests/e2e/printf-vectors.py can check each bridged record against
 * the string the kernel's own test expects and against /dev/kmsg.  It
 * does not use kprint (it loads without kprint.ko): a plain printk user.
 * The case functions are test_printf.c's (Rasmus Villemoes, GPL-2.0),
 * under their names there, so that the two can be compared line by line;
 * only __test() differs.
 *
 * Writing N to the write-only parameter "run" makes the printk()s N times;
 * the write returns once they are in printk's ring.  Each call is
 * printk(KERN_INFO fmt "\n", args...): the bridge reports the format
 * without its level and newline, which is test_printf.c's fmt.
 *
 * <debugfs>/kprint_printf_vectors/expected has one JSON object a line per
 * record, in the order the records are made: its index, the format and the
 * expected text as hex (it may hold a NUL: "xxx%cyyy" of '\0').
 *
 * Left out, because their output is not a constant: plain "%p" and "%pe"
 * of a valid pointer (hashed with a per-boot key), and the page flags of
 * "%pGp" (their layout depends on the kernel's configuration, which
 * test_printf.c computes with vsnprintf() itself).  test_printf.c has no
 * case for %pS, %pK, %pr, %pa, %pE with a string, %pI6, %pV, %pC or %pNF
 * (its functions for them are empty).  The GFP cases that name
 * __GFP_ATOMIC exist only where the kernel still has it (6.1, not 6.12),
 * the char sign case only where char is signed (6.1 x86, not 6.12), and
 * the symbolic error names only with CONFIG_SYMBOLIC_ERRNAME, as in
 * test_printf.c.
 */

#include <linux/bitmap.h>
#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/in.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/property.h>
#include <linux/rtc.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>

#define BUF_SIZE 256

/* test_printf.c's, for its narrowing conversions. */
#define NOWARN(option, comment, block) \
	__diag_push(); \
	__diag_ignore_all(#option, comment); \
	block \
	__diag_pop();

/*
 * Where the vectors go: printk() (kppv_list NULL), or one expected line
 * each into kppv_list.
 */
static struct seq_file *kppv_list;
static unsigned int kppv_index;

static void kppv_expect(const char *fmt, const char *expect, int elen)
{
	struct seq_file *m = kppv_list;
	int i;

	seq_printf(m, "{\"index\": %u, \"format\": \"", kppv_index);
	/* test_printf.c's formats hold neither quotes, backslashes nor controls. */
	seq_puts(m, fmt);
	seq_puts(m, "\", \"expected_hex\": \"");
	for (i = 0; i < elen; i++)
		seq_printf(m, "%02x", (unsigned char)expect[i]);
	seq_puts(m, "\"}\n");
}

/*
 * test_printf.c's __test(): here one printk() per case, its own call site,
 * or the case's expected line.
 */
#define __test(expect, elen, fmt, ...)					\
do {									\
	if (kppv_list)							\
		kppv_expect(fmt, expect, elen);				\
	else								\
		printk(KERN_INFO fmt "\n", ##__VA_ARGS__);		\
	kppv_index++;							\
} while (0)

#define test(expect, fmt, ...)					\
	__test(expect, strlen(expect), fmt, ##__VA_ARGS__)

static void test_basic(void)
{
	/* test("", &nul): an empty format. */
	test("", "");
	test("100%", "100%%");
	test("xxx%yyy", "xxx%cyyy", '%');
	__test("xxx\0yyy", 7, "xxx%cyyy", '\0');
}

static void test_number(void)
{
	test("0x1234abcd  ", "%#-12x", 0x1234abcd);
	test("  0x1234abcd", "%#12x", 0x1234abcd);
	test("0|001| 12|+123| 1234|-123|-1234", "%d|%03d|%3d|%+d|% d|%+d|% d", 0, 1, 12, 123, 1234, -123, -1234);
	NOWARN(-Wformat, "Intentionally test narrowing conversion specifiers.", {
		test("0|1|1|128|255", "%hhu|%hhu|%hhu|%hhu|%hhu", 0, 1, 257, 128, -1);
		test("0|1|1|-128|-1", "%hhd|%hhd|%hhd|%hhd|%hhd", 0, 1, 257, 128, -1);
		test("2015122420151225", "%ho%ho%#ho", 1037, 5282, -11627);
	})
	test("00|0|0|0|0", "%.2d|%.1d|%.0d|%.*d|%1.0d", 0, 0, 0, 0, 0, 0);
#ifndef __CHAR_UNSIGNED__
	{
		char val = -16;
		test("0xfffffff0|0xf0|0xf0", "%#02x|%#02x|%#02x", val, val & 0xff, (u8)val);
	}
#endif
}

static void test_string(void)
{
	test("", "%s%.0s", "", "123");
	test("ABCD|abc|123", "%s|%.3s|%.*s", "ABCD", "abcdef", 3, "123456");
	test("1  |  2|3  |  4|5  ", "%-3s|%3s|%-*s|%*s|%*s", "1", "2", 3, "3", 3, "4", -3, "5");
	test("1234      ", "%-10.4s", "123456");
	test("      1234", "%10.4s", "123456");
	test("    ", "%4.*s", -5, "123456");
	test("123456", "%.s", "123456");
	test("a||", "%.s|%.0s|%.*s", "a", "b", 0, "c");
	test("a  |   |   ", "%-3.s|%-3.0s|%-3.*s", "a", "b", 0, "c");
}

#define ZEROS "00000000"	/* hex 32 zero bits */
#define ONES "ffffffff"		/* hex 32 one bits */
#define PTR_INVALID ((void *)0x000000ab)

static void null_pointer(void)
{
	test(ZEROS "00000000", "%p", NULL);
	test(ZEROS "00000000", "%px", NULL);
	test("(null)", "%pE", NULL);
}

static void error_pointer(void)
{
	test(ONES "fffffff5", "%p", ERR_PTR(-11));
	test(ONES "fffffff5", "%px", ERR_PTR(-11));
	test("(efault)", "%pE", ERR_PTR(-11));
}

static void invalid_pointer(void)
{
	test(ZEROS "000000ab", "%px", PTR_INVALID);
	test("(efault)", "%pE", PTR_INVALID);
}

static void hex_string(void)
{
	const char buf[3] = {0xc0, 0xff, 0xee};

	test("c0 ff ee|c0:ff:ee|c0-ff-ee|c0ffee",
	     "%3ph|%3phC|%3phD|%3phN", buf, buf, buf, buf);
	test("c0 ff ee|c0:ff:ee|c0-ff-ee|c0ffee",
	     "%*ph|%*phC|%*phD|%*phN", 3, buf, 3, buf, 3, buf, 3, buf);
}

static void mac(void)
{
	const u8 addr[6] = {0x2d, 0x48, 0xd6, 0xfc, 0x7a, 0x05};

	test("2d:48:d6:fc:7a:05", "%pM", addr);
	test("05:7a:fc:d6:48:2d", "%pMR", addr);
	test("2d-48-d6-fc-7a-05", "%pMF", addr);
	test("2d48d6fc7a05", "%pm", addr);
	test("057afcd6482d", "%pmR", addr);
}

static void ip4(void)
{
	struct sockaddr_in sa;

	sa.sin_family = AF_INET;
	sa.sin_port = cpu_to_be16(12345);
	sa.sin_addr.s_addr = cpu_to_be32(0x7f000001);

	test("127.000.000.001|127.0.0.1", "%pi4|%pI4", &sa.sin_addr, &sa.sin_addr);
	test("127.000.000.001|127.0.0.1", "%piS|%pIS", &sa, &sa);
	sa.sin_addr.s_addr = cpu_to_be32(0x01020304);
	test("001.002.003.004:12345|1.2.3.4:12345", "%piSp|%pISp", &sa, &sa);
}

static void uuid(void)
{
	const char uuid[16] = {0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7,
			       0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf};

	test("00010203-0405-0607-0809-0a0b0c0d0e0f", "%pUb", uuid);
	test("00010203-0405-0607-0809-0A0B0C0D0E0F", "%pUB", uuid);
	test("03020100-0504-0706-0809-0a0b0c0d0e0f", "%pUl", uuid);
	test("03020100-0504-0706-0809-0A0B0C0D0E0F", "%pUL", uuid);
}

static struct dentry test_dentry[4] = {
	{ .d_parent = &test_dentry[0],
	  .d_name = QSTR_INIT(test_dentry[0].d_iname, 3),
	  .d_iname = "foo" },
	{ .d_parent = &test_dentry[0],
	  .d_name = QSTR_INIT(test_dentry[1].d_iname, 5),
	  .d_iname = "bravo" },
	{ .d_parent = &test_dentry[1],
	  .d_name = QSTR_INIT(test_dentry[2].d_iname, 4),
	  .d_iname = "alfa" },
	{ .d_parent = &test_dentry[2],
	  .d_name = QSTR_INIT(test_dentry[3].d_iname, 5),
	  .d_iname = "romeo" },
};

static void dentry(void)
{
	test("foo", "%pd", &test_dentry[0]);
	test("foo", "%pd2", &test_dentry[0]);

	test("(null)", "%pd", NULL);
	test("(efault)", "%pd", PTR_INVALID);
	test("(null)", "%pD", NULL);
	test("(efault)", "%pD", PTR_INVALID);

	test("romeo", "%pd", &test_dentry[3]);
	test("alfa/romeo", "%pd2", &test_dentry[3]);
	test("bravo/alfa/romeo", "%pd3", &test_dentry[3]);
	test("/bravo/alfa/romeo", "%pd4", &test_dentry[3]);
	test("/bravo/alfa", "%pd4", &test_dentry[2]);

	test("bravo/alfa  |bravo/alfa  ", "%-12pd2|%*pd2", &test_dentry[2], -12, &test_dentry[2]);
	test("  bravo/alfa|  bravo/alfa", "%12pd2|%*pd2", &test_dentry[2], 12, &test_dentry[2]);
}

static void time_and_date(void)
{
	/* 1543210543 */
	const struct rtc_time tm = {
		.tm_sec = 43,
		.tm_min = 35,
		.tm_hour = 5,
		.tm_mday = 26,
		.tm_mon = 10,
		.tm_year = 118,
	};
	/* 2019-01-04T15:32:23 */
	time64_t t = 1546615943;

	test("(%pt?)", "%pt", &tm);
	test("2018-11-26T05:35:43", "%ptR", &tm);
	test("0118-10-26T05:35:43", "%ptRr", &tm);
	test("05:35:43|2018-11-26", "%ptRt|%ptRd", &tm, &tm);
	test("05:35:43|0118-10-26", "%ptRtr|%ptRdr", &tm, &tm);
	test("05:35:43|2018-11-26", "%ptRttr|%ptRdtr", &tm, &tm);
	test("05:35:43 tr|2018-11-26 tr", "%ptRt tr|%ptRd tr", &tm, &tm);

	test("2019-01-04T15:32:23", "%ptT", &t);
	test("0119-00-04T15:32:23", "%ptTr", &t);
	test("15:32:23|2019-01-04", "%ptTt|%ptTd", &t, &t);
	test("15:32:23|0119-00-04", "%ptTtr|%ptTdr", &t, &t);

	test("2019-01-04 15:32:23", "%ptTs", &t);
	test("0119-00-04 15:32:23", "%ptTsr", &t);
	test("15:32:23|2019-01-04", "%ptTts|%ptTds", &t, &t);
	test("15:32:23|0119-00-04", "%ptTtrs|%ptTdrs", &t, &t);
}

static void large_bitmap(void)
{
	const int nbits = 1 << 16;
	unsigned long *bits = bitmap_zalloc(nbits, GFP_KERNEL);
	if (!bits)
		return;

	bitmap_set(bits, 1, 20);
	bitmap_set(bits, 60000, 15);
	test("1-20,60000-60014", "%*pbl", nbits, bits);
	bitmap_free(bits);
}

static void bitmap(void)
{
	DECLARE_BITMAP(bits, 20);
	const int primes[] = {2,3,5,7,11,13,17,19};
	int i;

	bitmap_zero(bits, 20);
	test("00000|00000", "%20pb|%*pb", bits, 20, bits);
	test("|", "%20pbl|%*pbl", bits, 20, bits);

	for (i = 0; i < ARRAY_SIZE(primes); ++i)
		set_bit(primes[i], bits);
	test("a28ac|a28ac", "%20pb|%*pb", bits, 20, bits);
	test("2-3,5,7,11,13,17,19|2-3,5,7,11,13,17,19", "%20pbl|%*pbl", bits, 20, bits);

	bitmap_fill(bits, 20);
	test("fffff|fffff", "%20pb|%*pb", bits, 20, bits);
	test("0-19|0-19", "%20pbl|%*pbl", bits, 20, bits);

	large_bitmap();
}

/* test_printf.c's flags() without the page flags (see the top). */
static void flags(void)
{
	unsigned long flags;
	char *cmp_buffer;
	gfp_t gfp;

	cmp_buffer = kmalloc(BUF_SIZE, GFP_KERNEL);
	if (!cmp_buffer)
		return;

	flags = VM_READ | VM_EXEC | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	test("read|exec|mayread|maywrite|mayexec", "%pGv", &flags);

	gfp = GFP_TRANSHUGE;
	test("GFP_TRANSHUGE", "%pGg", &gfp);

	gfp = GFP_ATOMIC|__GFP_DMA;
	test("GFP_ATOMIC|GFP_DMA", "%pGg", &gfp);

#ifdef __GFP_ATOMIC
	gfp = __GFP_ATOMIC;
	test("__GFP_ATOMIC", "%pGg", &gfp);

	/* Any flags not translated by the table should remain numeric */
	gfp = ~__GFP_BITS_MASK;
	snprintf(cmp_buffer, BUF_SIZE, "%#lx", (unsigned long) gfp);
	test(cmp_buffer, "%pGg", &gfp);

	snprintf(cmp_buffer, BUF_SIZE, "__GFP_ATOMIC|%#lx",
							(unsigned long) gfp);
	gfp |= __GFP_ATOMIC;
	test(cmp_buffer, "%pGg", &gfp);
#endif

	kfree(cmp_buffer);
}

static void fwnode_pointer(void)
{
	/*
	 * Static here: the nodes are registered while the module runs.  As a
	 * group, since 6.12 has no software_node_register_nodes().
	 */
	static const struct software_node softnodes[] = {
		{ .name = "first", },
		{ .name = "second", .parent = &softnodes[0], },
		{ .name = "third", .parent = &softnodes[1], },
	};
	static const struct software_node *group[] = {
		&softnodes[0], &softnodes[1], &softnodes[2], NULL,
	};
	const char * const full_name = "first/second/third";
	const char * const full_name_second = "first/second";
	const char * const second_name = "second";
	const char * const third_name = "third";
	int rval = 0;

	if (!kppv_list)
		rval = software_node_register_node_group(group);
	if (rval) {
		pr_warn("cannot register softnodes; rval %d\n", rval);
		kppv_index += 5;
		return;
	}

	test(full_name_second, "%pfw", software_node_fwnode(&softnodes[1]));
	test(full_name, "%pfw", software_node_fwnode(&softnodes[2]));
	test(full_name, "%pfwf", software_node_fwnode(&softnodes[2]));
	test(second_name, "%pfwP", software_node_fwnode(&softnodes[1]));
	test(third_name, "%pfwP", software_node_fwnode(&softnodes[2]));

	if (!kppv_list)
		software_node_unregister_node_group(group);
}

static void fourcc_pointer(void)
{
	struct {
		u32 code;
		char *str;
	} const try[] = {
		{ 0x3231564e, "NV12 little-endian (0x3231564e)", },
		{ 0xb231564e, "NV12 big-endian (0xb231564e)", },
		{ 0x10111213, ".... little-endian (0x10111213)", },
		{ 0x20303159, "Y10  little-endian (0x20303159)", },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(try); i++)
		test(try[i].str, "%p4cc", &try[i].code);
}

static void errptr(void)
{
	test("-1234", "%pe", ERR_PTR(-1234));

#ifdef CONFIG_SYMBOLIC_ERRNAME
	test("(-ENOTSOCK)", "(%pe)", ERR_PTR(-ENOTSOCK));
	test("(-EAGAIN)", "(%pe)", ERR_PTR(-EAGAIN));
	BUILD_BUG_ON(EAGAIN != EWOULDBLOCK);
	test("(-EAGAIN)", "(%pe)", ERR_PTR(-EWOULDBLOCK));
	test("[-EIO    ]", "[%-8pe]", ERR_PTR(-EIO));
	test("[    -EIO]", "[%8pe]", ERR_PTR(-EIO));
	test("-EPROBE_DEFER", "%pe", ERR_PTR(-EPROBE_DEFER));
#endif
}

static void test_pointer(void)
{
	null_pointer();
	error_pointer();
	invalid_pointer();
	hex_string();
	mac();
	ip4();
	uuid();
	dentry();
	time_and_date();
	bitmap();
	flags();
	errptr();
	fwnode_pointer();
	fourcc_pointer();
}

/* All of them, printed or listed. */
static void kppv_all(struct seq_file *list)
{
	kppv_list = list;
	kppv_index = 0;
	test_basic();
	test_number();
	test_string();
	test_pointer();
	kppv_list = NULL;
}

/* One writer at a time: the vectors share kppv_list and kppv_index. */
static DEFINE_MUTEX(kppv_lock);

static int kppv_set_run(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int err;

	err = kstrtouint(val, 0, &n);
	if (err)
		return err;
	if (n > 1000)
		return -EINVAL;
	mutex_lock(&kppv_lock);
	for (i = 0; i < n; i++)
		kppv_all(NULL);
	mutex_unlock(&kppv_lock);
	return 0;
}

static const struct kernel_param_ops kppv_run_ops = {
	.set = kppv_set_run,
};
module_param_cb(run, &kppv_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "Write N: printk() every printf test vector, N times");

static int kppv_expected_show(struct seq_file *m, void *unused)
{
	mutex_lock(&kppv_lock);
	kppv_all(m);
	mutex_unlock(&kppv_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kppv_expected);

static struct dentry *kppv_debugfs;

static int __init kppv_init(void)
{
	/* No debugfs is no error for the module, only for its test. */
	kppv_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("expected", 0400, kppv_debugfs, NULL,
			    &kppv_expected_fops);
	return 0;
}

static void __exit kppv_exit(void)
{
	debugfs_remove(kppv_debugfs);
}

module_init(kppv_init);
module_exit(kppv_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprint: the kernel's printf test vectors (lib/test_printf.c), through printk");
